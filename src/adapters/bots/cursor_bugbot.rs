//! Cursor Bugbot (`cursor[bot]`): one finding per inline comment, `### Title`, a
//! `**High Severity**` line, the explanation between `DESCRIPTION START/END` markers and a
//! stable `BUGBOT_BUG_ID` that Bugbot re-posts at new lines on every push, so findings are
//! deduplicated by it. The review body ("Cursor Bugbot has reviewed your changes …") and the
//! `CURSOR_SUMMARY` description block carry no findings of their own.

use std::collections::HashMap;

use crate::adapters::read::html::between;
use crate::adapters::read::inline;
use crate::adapters::read::markdown;
use crate::adapters::read::taxonomy::NativeCategory;
use crate::adapters::{Adapter, AdapterOutput, Identity, Signal};
use crate::api::PrSnapshot;
use crate::model::{Category, NormalizedFinding, Severity};

/// Notices that mean Bugbot did not review (`### Bugbot couldn't run - usage limit reached`).
const DECLINED: &[&str] = &[
    "usage limit",
    "limit reached",
    "bugbot is paused",
    "couldn't run",
];

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

    /// The `Cursor Bugbot` check run of the `cursor` app: `success` when it finished (no
    /// review object when it found nothing), `neutral` when its usage limit is reached.
    fn signals(&self) -> &'static [Signal] {
        &[Signal::CheckRun("Cursor Bugbot")]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        // finding_id -> the copy's anchor is outdated
        let mut outdated: HashMap<u64, bool> = HashMap::new();
        let status = inline::declines(DECLINED);
        let mut out = inline::parse(snapshot, &identity, status, |comment, anchor| {
            let bug = read_body(&comment.body)?;
            let explanation = if bug.description.is_empty() {
                markdown::strip_hidden(&markdown::normalize_newlines(&comment.body))
            } else {
                bug.description.clone()
            };
            // A comment without a head line (file-level) still names its range in LOCATIONS.
            let mut anchor = anchor.clone();
            if anchor.line.is_none() && !anchor.outdated {
                if let Some((_, start, end)) = bug
                    .locations
                    .iter()
                    .find(|(path, _, _)| *path == anchor.file)
                {
                    anchor.line = Some(*start);
                    anchor.end_line = Some(*end);
                }
            }
            let mut finding = inline::finding(
                self.id(),
                comment,
                &anchor,
                bug.severity.unwrap_or(Severity::Medium),
                &bug.title,
                NativeCategory::weak(Category::Bug),
                &explanation,
            );
            if let Some(id) = bug.bug_id {
                finding.stable_id = Some(id.clone());
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
    let description = between(
        &body,
        "<!-- DESCRIPTION START -->",
        "<!-- DESCRIPTION END -->",
    )
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
        let inner = inner.trim().to_ascii_lowercase();
        match inner.strip_suffix("severity")?.trim() {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::{fixture, ExtractOptions};
    use crate::model::{CategorySource, Coverage, SourceState};

    #[test]
    fn reads_the_structured_body() {
        let body = "### Bug: Upgrade replaces provider-satisfied packages\r\n\r\n**Medium Severity**\r\n\r\n<!-- DESCRIPTION START -->\r\nExplained.\r\n<!-- DESCRIPTION END -->\r\n\r\n<!-- BUGBOT_BUG_ID: f5760c56-f895 -->\r\n\r\n<!-- LOCATIONS START\r\nsrc/system/packages/aur.rs#L92-L102\r\nsrc/lib.rs#L7\r\nLOCATIONS END -->";
        let bug = read_body(body).expect("readable");
        assert_eq!(bug.title, "Upgrade replaces provider-satisfied packages");
        assert_eq!(bug.severity, Some(Severity::Medium));
        assert_eq!(bug.description, "Explained.");
        assert_eq!(bug.bug_id.as_deref(), Some("f5760c56-f895"));
        assert_eq!(
            bug.locations,
            vec![
                ("src/system/packages/aur.rs".to_owned(), 92, 102),
                ("src/lib.rs".to_owned(), 7, 7)
            ]
        );
        for (line, expected) in [
            ("**Critical Severity**", Some(Severity::Critical)),
            ("**high severity**", Some(Severity::High)),
            ("**Low Severity**", Some(Severity::Low)),
            ("**Odd Severity**", None),
        ] {
            assert_eq!(severity_line(&format!("### T\n\n{line}")), expected);
        }
        assert!(read_body("```\n### not a heading\n```\nno title").is_err());
        assert!(read_body("").is_err());
    }

    /// pr-103 E8: two comments with the same BUGBOT_BUG_ID (one outdated, on the old head):
    /// one finding, high / bug, lines 55-58, from the current copy.
    #[test]
    fn pr103_duplicate_bug_ids_collapse_to_one_finding() {
        let out = fixture::parse(&CursorBugbot, "pr-103-edge-cases");
        assert!(out.malformed.is_empty(), "{:?}", out.malformed);
        assert_eq!(out.findings.len(), 1);
        let e8 = &out.findings[0];
        assert_eq!(e8.bot, "cursor-bugbot");
        assert_eq!(e8.finding_id, "7d3c1f0e-2b9a-4c85-a6e1-90f4b2d7c3a8");
        assert_eq!(e8.title, "Unknown payout id returns 200 with a null body");
        assert_eq!(e8.severity, Severity::High);
        assert_eq!(e8.category, "bug");
        assert_eq!(e8.evidence.file, "app/api/payouts.py");
        assert_eq!(
            (e8.evidence.line, e8.evidence.end_line),
            (Some(55), Some(58))
        );
        assert_eq!(e8.provenance.comment_id, Some(2561302207));
        assert_eq!(
            e8.provenance.commit.as_deref(),
            Some("e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6")
        );
        assert!(
            e8.detail.starts_with("payout_status answers")
                || e8.detail.starts_with("`payout_status` answers"),
            "{}",
            e8.detail
        );
        assert_eq!(out.coverage, Coverage::Reviewed);
    }

    /// With or without include-outdated, E8 is one finding (never a second bot vote); the
    /// review bodies ("Cursor Bugbot has reviewed your changes…") are not findings.
    #[test]
    fn pr103_outdated_copy_never_counts_twice() {
        for include_outdated in [false, true] {
            let options = ExtractOptions {
                include_outdated,
                ..ExtractOptions::default()
            };
            let extraction =
                fixture::extract_one("cursor-bugbot", &[], "pr-103-edge-cases", &options);
            assert_eq!(
                extraction.findings.len(),
                1,
                "include_outdated={include_outdated}"
            );
            assert_eq!(extraction.findings[0].evidence.line, Some(55));
            let status = &extraction.sources[0];
            assert_eq!(status.status, SourceState::Ok);
            assert_eq!(status.findings, 1);
        }
    }

    #[test]
    fn weak_bug_label_yields_to_keywords_and_paths() {
        let mut snapshot = fixture::snapshot("pr-103-edge-cases");
        snapshot.review_comments.retain(|c| c.id == 2561302207);
        snapshot.review_comments[0].body = snapshot.review_comments[0].body.replace(
            "Unknown payout id returns 200 with a null body",
            "Webhook token compared without constant time",
        );
        let out = CursorBugbot.parse(&snapshot, &["cursor[bot]".to_owned()]);
        assert_eq!(out.findings[0].category, "security");
        assert_eq!(
            out.findings[0].provenance.category_source,
            Some(CategorySource::Keyword)
        );

        let mut file_level = snapshot.review_comments[0].clone();
        file_level.subject_type = Some("file".into());
        file_level.line = None;
        let out = CursorBugbot.parse(
            &PrSnapshot {
                review_comments: vec![file_level],
                ..PrSnapshot::default()
            },
            &["cursor[bot]".to_owned()],
        );
        assert_eq!(
            (
                out.findings[0].evidence.line,
                out.findings[0].evidence.end_line
            ),
            (Some(55), Some(58)),
            "file-level comment: range from LOCATIONS"
        );

        snapshot.review_comments[0].body =
            "### Polling loop never stops\n\n**Low Severity**\n\nIt keeps going.".into();
        let out = CursorBugbot.parse(&snapshot, &["cursor[bot]".to_owned()]);
        assert_eq!(out.findings[0].category, "bug");
        assert_eq!(out.findings[0].severity, Severity::Low);
        assert_eq!(
            out.findings[0].provenance.category_source,
            Some(CategorySource::TypeLabel)
        );
        assert_eq!(
            out.findings[0].finding_id, "2561302207",
            "no bug id: the comment id"
        );
    }
}
