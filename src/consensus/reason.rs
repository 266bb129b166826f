//! How a merge decision is recorded: the members it joined, how their lines compare and
//! the evidence, so that a person can see why two bots were judged to agree.

use super::cluster::{jaccard, title_tokens, Rules};
use crate::model::{MatchReason, NormalizedFinding};

/// `bot#finding_id`, or the bot alone when the finding has no id.
pub(super) fn member_name(finding: &NormalizedFinding) -> String {
    let (bot, id) = (&finding.bot, &finding.finding_id);
    let mut name = String::with_capacity(bot.len() + 1 + id.len());
    name.push_str(bot);
    if !id.is_empty() {
        name.push('#');
        name.push_str(id);
    }
    name
}

/// The finding's first and last line; `None` without a line.
fn range_of(finding: &NormalizedFinding) -> Option<(u32, u32)> {
    let start = finding.evidence.line?;
    Some((start, finding.evidence.end_line.unwrap_or(start)))
}

/// Appends `147-149`, `149` or `-` (no line).
fn push_range(out: &mut String, range: Option<(u32, u32)>) {
    use std::fmt::Write as _;
    // Writing to a String cannot fail.
    let _ = match range {
        Some((start, end)) if end != start => write!(out, "{start}-{end}"),
        Some((line, _)) => write!(out, "{line}"),
        None => write!(out, "-"),
    };
}

/// `same lines`, `lines 65/163`, `lines 246/297 on different commits`, `lines -/12` (one
/// without a line).
pub(super) fn describe_lines(
    x: &NormalizedFinding,
    y: &NormalizedFinding,
    distance: Option<u32>,
) -> String {
    let (a, b) = (range_of(x), range_of(y));
    if distance == Some(0) && a == b {
        return "same lines".to_owned();
    }
    let mut out = String::with_capacity(40);
    out.push_str("lines ");
    push_range(&mut out, a);
    out.push('/');
    push_range(&mut out, b);
    if distance.is_none() && a.is_some() && b.is_some() {
        out.push_str(" on different commits");
    }
    out
}

/// Why the seed's rules put a member in the cluster of its anchor (first member); the
/// rules' wording is made once, not per member.
pub(super) struct SeedReasons {
    line_rule: String,
    title_rule: String,
}

impl SeedReasons {
    pub(super) fn new(rules: Rules) -> SeedReasons {
        SeedReasons {
            line_rule: format!(
                "seed: same file and category, first lines within {}",
                rules.line_window
            ),
            title_rule: format!(
                "seed: same file and category, titles overlap at least {}",
                rules.title_overlap
            ),
        }
    }

    pub(super) fn of(&self, anchor: &NormalizedFinding, member: &NormalizedFinding) -> MatchReason {
        // The line rule decides on lines alone (similarity 1); the title rule on the overlap.
        let (distance, similarity, rule) = match (anchor.evidence.line, member.evidence.line) {
            (Some(a), Some(b)) => (Some(a.abs_diff(b)), 1.0, &self.line_rule),
            _ => (
                None,
                jaccard(&title_tokens(&anchor.title), &title_tokens(&member.title)),
                &self.title_rule,
            ),
        };
        MatchReason {
            between: [member_name(anchor), member_name(member)],
            lines: describe_lines(anchor, member, distance),
            distance,
            similarity: (similarity * 100.0).round() / 100.0,
            shared: Vec::new(),
            rule: rule.clone(),
            probability: None,
            judge: None,
        }
    }
}
