//! How a merge decision is recorded: the members it joined, how their lines compare and
//! the evidence, so that a person can see why two bots were judged to agree.

use super::cluster::{jaccard, title_tokens, Rules};
use crate::model::{MatchReason, NormalizedFinding};

/// `bot#finding_id`, or the bot alone when the finding has no id.
pub(super) fn member_name(finding: &NormalizedFinding) -> String {
    if finding.finding_id.is_empty() {
        finding.bot.clone()
    } else {
        format!("{}#{}", finding.bot, finding.finding_id)
    }
}

/// `147-149` or `149`; `-` without a line.
fn show_range(finding: &NormalizedFinding) -> String {
    match (finding.evidence.line, finding.evidence.end_line) {
        (Some(start), Some(end)) if end != start => format!("{start}-{end}"),
        (Some(line), _) => line.to_string(),
        (None, _) => "-".to_owned(),
    }
}

/// `same lines`, `lines 65/163`, `lines 246/297 on different commits`, `no line`.
pub(super) fn describe_lines(
    x: &NormalizedFinding,
    y: &NormalizedFinding,
    distance: Option<u32>,
) -> String {
    let (a, b) = (show_range(x), show_range(y));
    match distance {
        Some(0) if a == b => "same lines".to_owned(),
        Some(_) => format!("lines {a}/{b}"),
        None if x.evidence.line.is_some() && y.evidence.line.is_some() => {
            format!("lines {a}/{b} on different commits")
        }
        None => format!("lines {a}/{b}"),
    }
}

/// Why the seed's rules put `member` in the cluster of `anchor` (its first member).
pub(super) fn seed_reason(
    rules: Rules,
    anchor: &NormalizedFinding,
    member: &NormalizedFinding,
) -> MatchReason {
    // The line rule decides on lines alone (similarity 1); the title rule on the overlap.
    let (distance, similarity, rule) = match (anchor.evidence.line, member.evidence.line) {
        (Some(a), Some(b)) => (
            Some(a.abs_diff(b)),
            1.0,
            format!(
                "seed: same file and category, first lines within {}",
                rules.line_window
            ),
        ),
        _ => (
            None,
            jaccard(&title_tokens(&anchor.title), &title_tokens(&member.title)),
            format!(
                "seed: same file and category, titles overlap at least {}",
                rules.title_overlap
            ),
        ),
    };
    MatchReason {
        between: [member_name(anchor), member_name(member)],
        lines: describe_lines(anchor, member, distance),
        distance,
        similarity: (similarity * 100.0).round() / 100.0,
        shared: Vec::new(),
        rule,
    }
}
