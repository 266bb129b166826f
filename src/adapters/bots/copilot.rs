//! GitHub Copilot code review. One account (id 175728472) under three logins: `Copilot` on
//! inline comments, `copilot-pull-request-reviewer[bot]` on reviews, and the GraphQL form.
//! Inline comments are plain prose (title = first sentence, `[nitpick]` = low). Review
//! bodies: the 2025 "Comments suppressed due to low confidence" entries are findings (low,
//! confidence 0.5); the 2026 overview (`<!-- ccr-overview-v2 -->`, `overview.rs`) gives the
//! inline findings their severity, lists the ones resolved since the last review, and holds
//! "Previously missed" findings of its own. The rest of the overview is not a finding.
//! Formats: docs/bot-formats.md section 5.

mod overview;

use crate::adapters::read::taxonomy::{self, NativeCategory};
use crate::adapters::read::{inline, markdown};
use crate::adapters::review_provenance;
use crate::adapters::Anchor;
use crate::adapters::{
    also_appears, category_for, detail_after_title, provenance, Activity, Adapter, AdapterOutput,
    Identity, Signal,
};
use crate::api::{PrSnapshot, Review, ReviewComment};
use crate::model::{NormalizedFinding, Severity};
use overview::{Overview, Tracker};

pub struct Copilot;

const ID: &str = "copilot";
const LOW_CONFIDENCE: f64 = 0.5;

impl Adapter for Copilot {
    fn id(&self) -> &'static str {
        ID
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &[
            "Copilot",
            "copilot-pull-request-reviewer[bot]",
            "copilot-pull-request-reviewer",
        ]
    }

    fn user_ids(&self) -> &'static [u64] {
        &[175728472]
    }

    /// The review runs as a GitHub Actions job of that name ("Running Copilot Code Review");
    /// out of quota (HTTP 402) it fails and posts no review.
    fn signals(&self) -> &'static [Signal] {
        &[Signal::CheckRunFailure {
            app: "github-actions",
            name: "copilot-pull-request-reviewer",
        }]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        let mut out = AdapterOutput::default();
        let mut activity = Activity::new(snapshot.head_sha());

        // Reviews first, oldest first: the latest overview decides what is open.
        let mut reviews: Vec<&Review> = snapshot
            .reviews
            .iter()
            .filter(|r| identity.matches(r.user.as_ref()))
            .collect();
        reviews.sort_by(|a, b| (&a.submitted_at, a.id).cmp(&(&b.submitted_at, b.id)));
        let mut body_findings = Vec::new();
        let mut tracker = Tracker::default();
        for review in reviews {
            let body = review.body.as_deref().unwrap_or("");
            if body.trim().is_empty() {
                continue;
            }
            out.readable += 1;
            if is_failure_notice(body) {
                activity.declined_notice(body);
                out.notes
                    .push(format!("review {}: Copilot could not review", review.id));
                continue;
            }
            activity.reviewed(review.commit_id.as_deref());
            body_findings.extend(suppressed_findings(review, &mut out.malformed));
            if let Some(overview) = Overview::read(review, &mut out.malformed) {
                tracker.add(overview, &mut out.notes, review.id);
            }
        }

        inline::read_comments(
            snapshot,
            &identity,
            &mut activity,
            &mut out,
            |comment, anchor| inline_finding(comment, anchor, tracker.severity_of(comment.id)),
        );
        let (missed, withdrawn) = tracker.finish();
        out.findings.extend(body_findings);
        out.findings.extend(missed);
        out.withdrawn.extend(withdrawn);
        out.set_coverage(&activity);
        out
    }
}

/// Copilot's "could not review" notice: a short body (no marker is known) with one of its
/// phrases, and never one with low-confidence findings. An overview or a suppressed entry
/// that merely says "encountered an error" is a review.
fn is_failure_notice(body: &str) -> bool {
    if body.len() > inline::NOTICE_MAX_BYTES {
        return false;
    }
    let text = markdown::normalize_newlines(body);
    if suppressed_block(&text).is_some() {
        return false;
    }
    let lower = markdown::mask_code(&text).to_lowercase();
    lower.contains("wasn't able to review")
        || lower.contains("was unable to review")
        || lower.contains("encountered an error")
}

/// Optional prefixes: `[nitpick]`, and `P0:`..`P3:` from custom instructions.
fn prefix_severity(first_paragraph: &str) -> (Option<Severity>, bool, String) {
    let text = first_paragraph.trim();
    if let Some(rest) = text.strip_prefix("[nitpick]") {
        return (Some(Severity::Low), true, rest.trim().to_owned());
    }
    let head: String = text
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    if head.len() == 2 {
        if let Some(severity) = taxonomy::priority_severity(&head) {
            let rest = &text[head.len()..];
            // `P1: ...` or `P1 (xref): ...`
            if let Some(colon) = rest.find(':').filter(|c| *c < 24) {
                return (Some(severity), false, rest[colon + 1..].trim().to_owned());
            }
        }
    }
    (None, false, text.to_owned())
}

/// One inline comment; `listed` is the severity the overview's Open list gives it.
fn inline_finding(
    comment: &ReviewComment,
    anchor: &Anchor,
    listed: Option<Severity>,
) -> Result<NormalizedFinding, String> {
    let text = markdown::normalize_newlines(&comment.body);
    let visible = markdown::strip_hidden(&text);
    let first = markdown::paragraphs(&visible, true)
        .into_iter()
        .next()
        .ok_or("empty body")?;
    let (prefixed, nitpick, first) = prefix_severity(&first);
    // Its own prefix, else a severity picture on its first line, else the overview's.
    let (first_line, _) = markdown::first_visible_line(&visible);
    let severity = prefixed
        .or_else(|| overview::picture_severity(first_line))
        .or(listed);
    let title = markdown::shorten(markdown::first_sentence(&first), 240);
    if title.is_empty() {
        return Err("no text".to_owned());
    }
    let (category, source) = category_for(NativeCategory::none(), &anchor.file, &title, &visible);
    let mut finding = NormalizedFinding::new(
        ID,
        comment.id.to_string(),
        severity.unwrap_or(Severity::Medium),
        category.as_str(),
        title,
    );
    finding.evidence.file = anchor.file.clone();
    finding.evidence.line = anchor.line;
    finding.evidence.end_line = anchor.end_line;
    finding.evidence.also = also_appears(&visible);
    let first_title = markdown::first_sentence(&first).to_owned();
    let trimmed = markdown::visible_start(&visible);
    let unprefixed = trimmed.strip_prefix("[nitpick]").unwrap_or(trimmed);
    finding.detail = detail_after_title(unprefixed, &first_title);
    finding.nitpick = nitpick;
    finding.provenance = provenance(comment, anchor, source);
    Ok(finding)
}

/// `path:line` or `path:start-end`.
fn entry_location(bold: &str) -> Option<(String, u32, u32)> {
    let (path, lines) = bold.trim().rsplit_once(':')?;
    let (start, end) = match lines.split_once('-') {
        Some((s, e)) => (s.trim().parse().ok()?, e.trim().parse().ok()?),
        None => {
            let line: u32 = lines.trim().parse().ok()?;
            (line, line)
        }
    };
    let path = path.trim();
    (!path.is_empty() && !path.contains(' '))
        .then(|| (path.to_owned(), start.min(end), start.max(end)))
}

/// The Markdown of the low-confidence block: a `<details>` whose summary says so, or the
/// `### Suppressed comments (N)` heading form (up to the next heading).
fn suppressed_block(text: &str) -> Option<String> {
    let masked = markdown::mask_code(text);
    for block in markdown::details_blocks(text, &masked) {
        let summary = block.summary.to_lowercase();
        if summary.contains("suppressed due to low confidence")
            || summary.contains("suppressed comments")
        {
            return text.get(block.inner).map(str::to_owned);
        }
    }
    // ASCII lowering keeps every byte offset: the offsets below slice `text`. (Unicode
    // lowering does not: 'İ' grows, the Kelvin sign shrinks.)
    let lower = masked.to_ascii_lowercase();
    let at = lower.find("suppressed comments")?;
    let line_start = lower[..at].rfind('\n').map_or(0, |i| i + 1);
    if !lower[line_start..at].trim_start().starts_with('#') {
        return None;
    }
    let body_start = lower[at..].find('\n').map_or(lower.len(), |i| at + i + 1);
    let body_end = lower[body_start..]
        .find("\n#")
        .map_or(lower.len(), |i| body_start + i);
    text.get(body_start..body_end).map(str::to_owned)
}

/// The low-confidence entries of a review body; an entry without text adds a reason to
/// `malformed`.
fn suppressed_findings(review: &Review, malformed: &mut Vec<String>) -> Vec<NormalizedFinding> {
    let text = markdown::normalize_newlines(review.body.as_deref().unwrap_or(""));
    let Some(block) = suppressed_block(&text) else {
        return Vec::new();
    };
    let masked = markdown::mask_code_blocks(&block);
    let mut entries: Vec<((String, u32, u32), String)> = Vec::new();
    let mut offset = 0;
    for line in masked.split('\n') {
        let start = offset;
        offset += line.len() + 1;
        let original = block.get(start..start + line.len()).unwrap_or("");
        let trimmed = line.trim();
        let location = trimmed
            .strip_prefix("**")
            .and_then(|l| l.strip_suffix("**"))
            .and_then(entry_location);
        match (location, entries.last_mut()) {
            (Some(location), _) => entries.push((location, String::new())),
            (None, Some((_, body))) => {
                body.push_str(original);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    let mut findings = Vec::new();
    for (n, ((file, start, end), body)) in entries.into_iter().enumerate() {
        let Some(first) = markdown::paragraphs(&body, true).into_iter().next() else {
            malformed.push(format!(
                "review {} suppressed entry {} ({file}:{start}): no text",
                review.id,
                n + 1
            ));
            continue;
        };
        let title = markdown::shorten(markdown::first_sentence(&first), 240);
        let (category, source) = category_for(NativeCategory::none(), &file, &title, &body);
        let mut finding = NormalizedFinding::new(
            ID,
            format!("review-{}-{}", review.id, n + 1),
            Severity::Low,
            category.as_str(),
            title,
        );
        finding.evidence.file = file;
        finding.evidence.line = Some(start);
        finding.evidence.end_line = Some(end);
        finding.confidence = LOW_CONFIDENCE;
        finding.detail = detail_after_title(&body, &finding.title);
        finding.provenance = review_provenance(review, Some(source));
        findings.push(finding);
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes() {
        assert_eq!(
            prefix_severity("[nitpick] Spelling: x."),
            (Some(Severity::Low), true, "Spelling: x.".to_owned())
        );
        assert_eq!(
            prefix_severity("P1 (xref): Broken link."),
            (Some(Severity::High), false, "Broken link.".to_owned())
        );
        assert_eq!(prefix_severity("Plain text.").0, None);
    }

    #[test]
    fn suppressed_entries_both_forms() {
        let review = Review {
            id: 9,
            body: Some("## Pull request overview\n\n<details>\n<summary>Comments suppressed due to low confidence (2)</summary>\n\n**app/a.py:20**\n* Cached rates never expire. More.\n```\ncode **x.py:1**\n```\n**web/b.ts:3-5**\n* Second one.\n</details>".into()),
            ..Review::default()
        };
        let found = suppressed_findings(&review, &mut Vec::new());
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].evidence.file, "app/a.py");
        assert_eq!(found[0].title, "Cached rates never expire.");
        assert_eq!(found[0].confidence, LOW_CONFIDENCE);
        assert_eq!(
            (found[1].evidence.line, found[1].evidence.end_line),
            (Some(3), Some(5))
        );

        let heading = Review {
            id: 10,
            body: Some(
                "### Suppressed comments (1)\n\n**app/a.py:7**\n* Off by one.\n\n### Other".into(),
            ),
            ..Review::default()
        };
        assert_eq!(suppressed_findings(&heading, &mut Vec::new()).len(), 1);
    }

    fn copilot_user() -> Option<crate::api::User> {
        Some(crate::api::User {
            login: "copilot-pull-request-reviewer[bot]".into(),
            id: 175728472,
            kind: "Bot".into(),
        })
    }

    /// A severity picture on the first visible line, after lines GitHub does not show
    /// (issue 24).
    #[test]
    fn a_severity_picture_after_a_hidden_line() {
        let comment = ReviewComment {
            id: 21,
            user: copilot_user(),
            body: "<!-- copilot-comment -->\n[//]: # (copilot:finding)\n<img alt=\"high\" src=\"https://github.com/images/copilot-code-review/high-severity.svg\"> The loop never ends when the queue is empty.".into(),
            path: Some("app/a.py".into()),
            line: Some(4),
            ..ReviewComment::default()
        };
        let anchor = crate::adapters::anchor(&comment).unwrap();
        let finding = inline_finding(&comment, &anchor, None).unwrap();
        assert_eq!(finding.severity, Severity::High);
        assert_eq!(
            finding.title,
            "The loop never ends when the queue is empty."
        );
    }

    #[test]
    fn failure_notices_are_short_and_without_findings() {
        assert!(is_failure_notice(
            "Copilot encountered an error and was unable to review this pull request. You can try again by re-requesting a review."
        ));
        assert!(is_failure_notice(
            "Copilot wasn't able to review any files in this pull request."
        ));
        let with_entry = "## Pull request overview\n\n<details>\n<summary>Comments suppressed due to low confidence (1)</summary>\n\n**app/a.py:20**\n* The handler swallows the exception when the client encountered an error.\n</details>";
        assert!(!is_failure_notice(with_entry));
        let long_overview = format!(
            "## Pull request overview\n\n{}\nThe retry loop now logs when the upload encountered an error.",
            "Refactors the upload client. ".repeat(50)
        );
        assert!(!is_failure_notice(&long_overview));

        let mut snapshot = PrSnapshot::default();
        snapshot.reviews.push(Review {
            id: 14,
            user: copilot_user(),
            body: Some(with_entry.into()),
            ..Review::default()
        });
        let out = Copilot.parse(
            &snapshot,
            &["copilot-pull-request-reviewer[bot]".to_owned()],
        );
        assert_eq!(out.findings.len(), 1, "{:?}", out.notes);
        assert_eq!(out.coverage, crate::model::Coverage::Reviewed);
    }

    #[test]
    fn suppressed_entry_without_text_is_reported() {
        let review = Review {
            id: 13,
            body: Some(
                "### Suppressed comments (2)\n\n**app/a.py:7**\n\n**app/b.py:9**\n* Off by one.\n"
                    .into(),
            ),
            ..Review::default()
        };
        let mut malformed = Vec::new();
        let found = suppressed_findings(&review, &mut malformed);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].evidence.file, "app/b.py");
        assert_eq!(
            malformed,
            vec!["review 13 suppressed entry 1 (app/a.py:7): no text".to_owned()]
        );
    }

    #[test]
    fn suppressed_heading_after_non_ascii_case_changes() {
        // 'İ' lowercases to 3 bytes (from 2) and the Kelvin sign to 1 (from 3): offsets
        // found in a Unicode-lowered copy no longer slice the original at the same place.
        for prefix in ["İİİ İstanbul notes", "\u{212A}\u{212A} 5\u{212A} budget"] {
            let review = Review {
                id: 11,
                body: Some(format!(
                    "{prefix}\n\n### Suppressed comments (1)\n\n**app/a.py:7**\n* Off by one.\n\n### Other\nTail."
                )),
                ..Review::default()
            };
            let found = suppressed_findings(&review, &mut Vec::new());
            assert_eq!(found.len(), 1, "{prefix}");
            assert_eq!(
                (found[0].evidence.file.as_str(), found[0].evidence.line),
                ("app/a.py", Some(7))
            );
            assert_eq!(found[0].title, "Off by one.", "{prefix}");
            assert_eq!(found[0].detail, "", "{prefix}");
        }
    }

    /// Two 2026 overviews: the later one moves a finding to "Resolved since last review"
    /// and adds a "Previously missed" one; the inline comments take their listed severity.
    #[test]
    fn v2_overviews_over_a_push() {
        use crate::adapters::{fixture, ExtractOptions};
        let out = fixture::parse(&Copilot, "bots/copilot");
        let got: Vec<_> = out
            .findings
            .iter()
            .map(|f| (f.finding_id.as_str(), f.evidence.line, f.severity))
            .collect();
        assert_eq!(
            got,
            vec![
                ("3120000001", Some(45), Severity::High),
                ("3120000002", Some(60), Severity::Medium),
                ("3120000003", Some(41), Severity::High),
                ("review-4120000002-missed-1", Some(18), Severity::High),
            ]
        );
        assert_eq!(out.withdrawn, vec!["3120000003".to_owned()]);
        assert_eq!(out.coverage, crate::model::Coverage::Reviewed);

        let x = fixture::extract_one("copilot", &[], "bots/copilot", &ExtractOptions::default());
        let ids: Vec<_> = x.findings.iter().map(|f| f.finding_id.as_str()).collect();
        assert_eq!(
            ids,
            ["3120000001", "3120000002", "review-4120000002-missed-1"],
            "the resolved finding is not counted"
        );
        let missed = &x.findings[2];
        assert_eq!(
            (missed.evidence.file.as_str(), missed.category.as_str()),
            ("app/webhooks/verify.py", "security")
        );
        assert!(x.sources[0].notes.iter().any(|n| n.contains("1 resolved")));
    }
}
