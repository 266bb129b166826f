//! Cursor Bugbot (`cursor[bot]`): one finding per inline comment, `### Title`, a
//! `**High Severity**` line, the explanation between `DESCRIPTION START/END` markers and a
//! stable `BUGBOT_BUG_ID` that Bugbot re-posts at new lines on every push, so findings are
//! deduplicated by it. The review body ("Cursor Bugbot has reviewed your changes …") and the
//! `CURSOR_SUMMARY` description block carry no findings of their own.

use std::collections::HashMap;

use crate::adapters::html::between;
use crate::adapters::inline;
use crate::adapters::markdown;
use crate::adapters::taxonomy::NativeCategory;
use crate::adapters::{Activity, Adapter, AdapterOutput, Identity};
use crate::api::PrSnapshot;
use crate::model::{Category, NormalizedFinding, Severity};

/// Notices that mean Bugbot did not review.
const DECLINED: &[&str] = &["usage limit", "limit reached", "bugbot is paused"];

pub struct CursorBugbot;

impl Adapter for CursorBugbot {
    fn id(&self) -> &'static str {
        "cursor-bugbot"
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &["cursor[bot]"]
    }

    fn user_ids(&self) -> &'static [u64] {
        &[206951365]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        let mut activity = Activity::new(snapshot.head_sha());
        let mut out = AdapterOutput::default();
        // finding_id -> the copy's anchor is outdated
        let mut outdated: HashMap<u64, bool> = HashMap::new();
        inline::read_comments(snapshot, &identity, &mut activity, &mut out, |comment, anchor| {
            let bug = read_body(&comment.body)?;
            let explanation = if bug.description.is_empty() {
                markdown::strip_hidden(&markdown::normalize_newlines(&comment.body))
            } else {
                bug.description.clone()
            };
            let mut finding = inline::finding(
                self.id(),
                comment,
                anchor,
                bug.severity.unwrap_or(Severity::Medium),
                &bug.title,
                NativeCategory::weak(Category::Bug),
                &explanation,
            );
            if let Some(id) = bug.bug_id {
                finding.finding_id = id;
            }
            outdated.insert(comment.id, anchor.outdated);
            Ok(finding)
        });
        let before = out.findings.len();
        out.findings = dedup_by_bug_id(std::mem::take(&mut out.findings), &outdated);
        if out.findings.len() < before {
            out.notes.push(format!(
                "{} re-posted copies merged by BUGBOT_BUG_ID",
                before - out.findings.len()
            ));
        }
        inline::note_activity(snapshot, &identity, DECLINED, &mut activity, &mut out);
        out.coverage = activity.coverage();
        out
    }
}

/// Bugbot re-posts the same bug id at new lines on every push: keep one copy per id, the
/// current one (not outdated) before an outdated one, then the newest comment.
fn dedup_by_bug_id(
    findings: Vec<NormalizedFinding>,
    outdated: &HashMap<u64, bool>,
) -> Vec<NormalizedFinding> {
    let rank = |f: &NormalizedFinding| {
        let id = f.provenance.comment_id.unwrap_or(0);
        (!outdated.get(&id).copied().unwrap_or(false), id)
    };
    let mut kept: Vec<NormalizedFinding> = Vec::with_capacity(findings.len());
    for finding in findings {
        match kept.iter_mut().find(|k| k.finding_id == finding.finding_id) {
            Some(existing) if rank(&finding) > rank(existing) => *existing = finding,
            Some(_) => {}
            None => kept.push(finding),
        }
    }
    kept
}

/// What one Bugbot inline comment says.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BugbotBody {
    pub title: String,
    pub severity: Option<Severity>,
    pub description: String,
    pub bug_id: Option<String>,
    /// `path#Lstart-Lend` entries of the hidden `LOCATIONS` block.
    pub locations: Vec<(String, u32, u32)>,
}

/// Read a Bugbot comment body; `Err` names why it is not a finding.
pub(crate) fn read_body(body: &str) -> Result<BugbotBody, String> {
    let body = body.replace("\r\n", "\n");
    let title = first_heading(&body)
        .map(|t| t.strip_prefix("Bug:").unwrap_or(&t).trim().to_owned())
        .filter(|t| !t.is_empty());
    let description = between(&body, "<!-- DESCRIPTION START -->", "<!-- DESCRIPTION END -->")
        .map(|d| d.trim().to_owned())
        .unwrap_or_default();
    let Some(title) = title else {
        return Err("no `### title` heading".to_owned());
    };
    Ok(BugbotBody {
        title,
        severity: severity_line(&body),
        description,
        bug_id: between(&body, "<!-- BUGBOT_BUG_ID:", "-->")
            .map(|id| id.trim().to_owned())
            .filter(|id| !id.is_empty()),
        locations: between(&body, "<!-- LOCATIONS START", "LOCATIONS END -->")
            .map(locations)
            .unwrap_or_default(),
    })
}

/// The first ATX/setext heading's text, read with pulldown-cmark so that a `###` inside a
/// code block is not taken for the title.
fn first_heading(body: &str) -> Option<String> {
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};
    let mut text = String::new();
    let mut inside = false;
    for event in Parser::new(body) {
        match event {
            Event::Start(Tag::Heading { .. }) => inside = true,
            Event::End(TagEnd::Heading(_)) if inside => return Some(text.trim().to_owned()),
            Event::Text(t) | Event::Code(t) if inside => text.push_str(&t),
            Event::SoftBreak | Event::HardBreak if inside => text.push(' '),
            _ => {}
        }
    }
    None
}

/// `**High Severity**` (any case) on a line of its own.
fn severity_line(body: &str) -> Option<Severity> {
    body.lines().find_map(|line| {
        let inner = line.trim().strip_prefix("**")?.strip_suffix("**")?;
        let word = inner.trim().strip_suffix("Severity")?.trim();
        match word.to_ascii_lowercase().as_str() {
            "critical" => Some(Severity::Critical),
            "high" => Some(Severity::High),
            "medium" => Some(Severity::Medium),
            "low" => Some(Severity::Low),
            _ => None,
        }
    })
}

/// `src/a.rs#L92-L102` or `src/a.rs#L7` per line.
fn locations(block: &str) -> Vec<(String, u32, u32)> {
    block
        .lines()
        .filter_map(|line| {
            let (path, anchor) = line.trim().rsplit_once("#L")?;
            let (start, end) = match anchor.split_once("-L") {
                Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
                None => {
                    let n = anchor.parse().ok()?;
                    (n, n)
                }
            };
            (!path.is_empty()).then(|| (path.to_owned(), start, end))
        })
        .collect()
}
