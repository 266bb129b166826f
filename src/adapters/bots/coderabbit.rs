//! CodeRabbit (`coderabbitai[bot]`): inline comments (three label generations), findings in
//! review bodies (Nitpick / Outside diff range / severity overflow / Duplicate sections),
//! addressed/withdrawn markers (hidden, or the visible `✅ Addressed in commit …` line), and
//! the walkthrough's ❌ linked-issue objectives (PR-level). The rest of the walkthrough,
//! notices, AI-prompt digests, review info and "Additional comments" are not findings.
//! Formats: docs/bot-formats.md section 1.

mod parse;
mod review_body;

use crate::adapters::read::inline::NOTICE_MAX_BYTES;
use crate::adapters::read::taxonomy::NativeCategory;
use crate::adapters::read::{linked_issues, markdown};
use crate::adapters::{
    anchor, category_for, detail_from, line_ranges, provenance, Activity, Adapter, AdapterOutput,
    Identity, Signal,
};
use crate::api::{PrSnapshot, ReviewComment};
use crate::model::{Category, CategorySource, NormalizedFinding, Severity};
use parse::{parse_body, pill_severity, Parsed};
use review_body::{merge_body_items, review_items};

pub struct CodeRabbit;

const ID: &str = "coderabbit";

impl Adapter for CodeRabbit {
    fn id(&self) -> &'static str {
        ID
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &["coderabbitai[bot]"]
    }

    /// The `CodeRabbit` commit status (`Review completed`, `Review rate limited`) and check
    /// run of the `coderabbitai` app, when the repository enables them.
    fn signals(&self) -> &'static [Signal] {
        &[Signal::Status("CodeRabbit"), Signal::CheckRun("CodeRabbit")]
    }

    fn user_ids(&self) -> &'static [u64] {
        &[136622811]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        let mut out = AdapterOutput::default();
        let mut activity = Activity::new(snapshot.head_sha());

        for comment in &snapshot.review_comments {
            if !identity.matches(comment.user.as_ref()) || comment.in_reply_to_id.is_some() {
                continue;
            }
            activity.reviewed(comment.reviewed_commit());
            match inline_finding(comment) {
                Ok((finding, withdrawn)) => {
                    out.readable += 1;
                    if withdrawn {
                        out.withdrawn.push(finding.finding_id.clone());
                    }
                    out.findings.push(finding);
                }
                Err(reason) => out
                    .malformed
                    .push(format!("comment {}: {reason}", comment.id)),
            }
        }

        let mut body_items = Vec::new();
        for review in &snapshot.reviews {
            if !identity.matches(review.user.as_ref()) {
                continue;
            }
            let body = review.body.as_deref().unwrap_or("");
            if body.trim().is_empty() {
                continue; // the review wrapping a thread reply
            }
            out.readable += 1;
            if let Some(notice) = notice_kind(body) {
                activity.declined_notice(body);
                out.notes
                    .push(format!("review {}: {notice} notice", review.id));
                continue;
            }
            activity.reviewed(review.commit_id.as_deref());
            body_items.extend(review_items(review, &mut out.malformed));
        }

        for comment in &snapshot.issue_comments {
            if !identity.matches(comment.user.as_ref()) {
                continue;
            }
            out.readable += 1;
            let body = comment.body.as_deref().unwrap_or("");
            // Notices carry the walkthrough marker too: classify them first.
            if let Some(notice) = notice_kind(body) {
                activity.declined_notice(body);
                out.notes
                    .push(format!("issue comment {}: {notice} notice", comment.id));
                continue;
            }
            // The walkthrough's "Assessment against linked issues": ❌ rows are PR-level.
            for unmet in linked_issues::unmet_objectives(body) {
                let finding =
                    linked_issues::finding(ID, comment.id, comment.html_url.as_deref(), &unmet);
                out.findings.push(finding);
            }
        }

        merge_body_items(&mut out, body_items);
        out.set_coverage(&activity);
        out
    }
}

/// CodeRabbit's hidden notice markers (`<!-- This is an auto-generated comment: rate limited
/// by coderabbit.ai -->`, `... skip review by coderabbit.ai -->`) and the notice they mark.
const NOTICE_MARKERS: &[(&str, &str)] = &[
    ("rate limited by coderabbit.ai", "rate-limit"),
    ("skip review by coderabbit.ai", "review skipped"),
];

/// Notice phrases, trusted only in a short body without a marker.
const NOTICE_PHRASES: &[(&str, &str)] = &[
    ("rate limit exceeded", "rate-limit"),
    ("review skipped", "review skipped"),
    ("reviews paused", "reviews paused"),
    ("review paused", "reviews paused"),
    ("review failed", "review failed"),
    ("review limit reached", "rate-limit"),
    ("reached your pr review limit", "rate-limit"),
];

/// A rate-limit / skip / pause / failure notice (no review happened): a body carrying one of
/// CodeRabbit's notice markers, or a short one (`NOTICE_MAX_BYTES`) with a notice phrase.
/// Never a body with finding sections: a review whose nitpick merely mentions "rate limit
/// exceeded" is a review.
fn notice_kind(body: &str) -> Option<&'static str> {
    let text = markdown::normalize_newlines(body);
    let masked = markdown::mask_code(&text);
    let has_findings = markdown::details_blocks(&text, &masked)
        .iter()
        .any(|block| Section::from_summary(&block.summary).is_some());
    if has_findings {
        return None;
    }
    let markers = markdown::html_comments(&text).join("\n").to_lowercase();
    if let Some((_, kind)) = NOTICE_MARKERS.iter().find(|(m, _)| markers.contains(m)) {
        return Some(kind);
    }
    if body.len() > NOTICE_MAX_BYTES {
        return None;
    }
    let lower = masked.to_lowercase();
    NOTICE_PHRASES
        .iter()
        .find(|(phrase, _)| lower.contains(phrase))
        .map(|(_, kind)| *kind)
}

/// Defaults when a label is missing, by where the item was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Inline,
    Nitpick,
    OutsideDiff,
    Duplicate,
    Overflow(Severity),
}

impl Section {
    fn default_severity(self) -> Severity {
        match self {
            Section::Nitpick => Severity::Low,
            Section::Overflow(severity) => severity,
            Section::Inline | Section::OutsideDiff | Section::Duplicate => Severity::Medium,
        }
    }

    fn from_summary(summary: &str) -> Option<Section> {
        let lower = summary.to_lowercase();
        if lower.contains("nitpick") {
            return Some(Section::Nitpick);
        }
        if lower.contains("outside diff") {
            return Some(Section::OutsideDiff);
        }
        if lower.contains("duplicate comments") {
            return Some(Section::Duplicate);
        }
        // Overflow sections: "🟠 Major comments (43)".
        let head = lower.split("comments").next().unwrap_or("");
        if lower.contains("comments") {
            let word = head.split_whitespace().last().unwrap_or("");
            if let Some(severity) = pill_severity(word) {
                return Some(Section::Overflow(severity));
            }
        }
        None
    }
}

fn build(parsed: Parsed, section: Section, file: &str, finding_id: String) -> NormalizedFinding {
    let labels = parsed.labels;
    let severity = labels
        .pill
        .or(labels.type_severity)
        .unwrap_or(section.default_severity());
    let native = NativeCategory {
        strong: labels.category,
        weak: labels
            .type_category
            .or((section == Section::Nitpick).then_some(Category::Style)),
    };
    let (category, source) = category_for(native, file, &parsed.title, &parsed.explanation);
    let mut finding =
        NormalizedFinding::new(ID, finding_id, severity, category.as_str(), parsed.title);
    finding.detail = detail_from(&parsed.explanation);
    finding.evidence.also = parsed
        .also_applies
        .iter()
        .flat_map(|ranges| line_ranges(ranges))
        .collect();
    if !parsed.also_applies.is_empty() {
        let extra = format!("(also applies to: {})", parsed.also_applies.join(", "));
        finding.detail = markdown::shorten(format!("{} {extra}", finding.detail).trim(), 480);
    }
    finding.nitpick = labels.nitpick || section == Section::Nitpick;
    finding.provenance.category_source = Some(source);
    finding
}

fn inline_finding(comment: &ReviewComment) -> Result<(NormalizedFinding, bool), String> {
    let anchor = anchor(comment).ok_or("no `path`")?;
    let parsed = parse_body(&comment.body)?;
    let withdrawn = parsed.withdrawn;
    let stable_id = parsed.hidden_id.clone();
    let id = parsed
        .hidden_id
        .clone()
        .unwrap_or_else(|| comment.id.to_string());
    let mut finding = build(parsed, Section::Inline, &anchor.file, id);
    finding.stable_id = stable_id;
    let source = finding
        .provenance
        .category_source
        .unwrap_or(CategorySource::Fallback);
    finding.evidence.file = anchor.file.clone();
    finding.evidence.line = anchor.line;
    finding.evidence.end_line = anchor.end_line;
    finding.provenance = provenance(comment, &anchor, source);
    Ok((finding, withdrawn))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Review;

    fn cr_user() -> Option<crate::api::User> {
        Some(crate::api::User {
            login: "coderabbitai[bot]".into(),
            id: 136622811,
            kind: "Bot".into(),
        })
    }

    fn nitpick_body(item: &str) -> String {
        format!(
            "**Actionable comments posted: 0**\n\n<details>\n<summary>🧹 Nitpick comments (1)</summary><blockquote>\n\n\
<details>\n<summary>app/a.py (1)</summary><blockquote>\n\n`3-3`: **{item}**\n\nSee above.\n\n\
</blockquote></details>\n\n</blockquote></details>"
        )
    }

    #[test]
    fn notices_are_short_or_marked_and_never_have_findings() {
        assert_eq!(
            notice_kind("Review failed\n\nThe head commit changed during the review."),
            Some("review failed")
        );
        // A finding that merely mentions a notice phrase, short or long.
        for phrase in [
            "rate limit exceeded",
            "review failed",
            "review skipped",
            "reviews paused",
        ] {
            let short = nitpick_body(&format!("Handle `{phrase}` from the API ({phrase})."));
            assert_eq!(notice_kind(&short), None, "{phrase}");
        }
        let long_summary = format!(
            "## Walkthrough\n\n{}\nThe client now retries when the rate limit exceeded error comes back.",
            "Changes the HTTP client. ".repeat(60)
        );
        assert_eq!(notice_kind(&long_summary), None);
        // A long notice still counts by its marker.
        let marked = format!(
            "<!-- This is an auto-generated comment: rate limited by coderabbit.ai -->\n\n> [!WARNING]\n> ## Rate limit exceeded\n\n{}",
            "Please wait before requesting another review. ".repeat(40)
        );
        assert!(marked.len() > NOTICE_MAX_BYTES);
        assert_eq!(notice_kind(&marked), Some("rate-limit"));
    }

    #[test]
    fn nitpicks_mentioning_notice_phrases_are_kept() {
        let mut snapshot = PrSnapshot::default();
        snapshot.reviews.push(Review {
            id: 78,
            user: cr_user(),
            body: Some(nitpick_body("Retry when the API says rate limit exceeded.")),
            ..Review::default()
        });
        let out = CodeRabbit.parse(&snapshot, &["coderabbitai[bot]".to_owned()]);
        assert_eq!(out.findings.len(), 1, "{:?}", out.notes);
        assert!(out.notes.is_empty(), "{:?}", out.notes);
        assert_eq!(out.coverage, crate::model::Coverage::Reviewed);
    }

    #[test]
    fn review_body_sections() {
        let body = "**Actionable comments posted: 1**\n\n\
<details>\n<summary>♻️ Duplicate comments (2)</summary><blockquote>\n\n\
<details>\n<summary>app/a.py (2)</summary><blockquote>\n\n\
`10-12`: _⚠️ Potential issue_ | _🟠 Major_\n\n**Guard the null row.**\n\nStill valid.\n\n<!-- cr-comment:v1:aaa -->\n\n---\n\n\
`40-41`: _⚠️ Potential issue_\n\n**Close the file handle.**\n\nIt leaks.\n\n\
</blockquote></details>\n\n</blockquote></details>\n\n\
<details>\n<summary>🟠 Major comments (1)</summary><blockquote>\n\n\
<details>\n<summary>web/x.tsx-32-68 (1)</summary><blockquote>\n\n\
_🚀 Performance & Scalability_\n\n**Memoise the rows.**\n\nRe-renders every keystroke.\n\n\
</blockquote></details>\n\n</blockquote></details>\n\n\
<details>\n<summary>🔇 Additional comments (1)</summary><blockquote>\n\n\
<details>\n<summary>app/a.py (1)</summary><blockquote>\n\n`3-3`: **LGTM.**\n\n</blockquote></details>\n\n</blockquote></details>\n\n\
<details>\n<summary>🤖 Prompt for all review comments with AI agents</summary>\n\n```\nIn `@app/a.py`:\n- Around line 10-12: guard.\n```\n\n</details>";
        let mut snapshot = PrSnapshot::default();
        snapshot.pull.head.sha = "h".into();
        snapshot.review_comments.push(ReviewComment {
            id: 5,
            user: cr_user(),
            body: "_⚠️ Potential issue_ | _🟠 Major_\n\n**Guard the null row.**\n\n<!-- cr-comment:v1:aaa -->".into(),
            path: Some("app/a.py".into()),
            start_line: Some(10),
            line: Some(12),
            commit_id: Some("old".into()),
            ..ReviewComment::default()
        });
        snapshot.reviews.push(Review {
            id: 77,
            user: cr_user(),
            body: Some(body.into()),
            commit_id: Some("h".into()),
            ..Review::default()
        });
        let out = CodeRabbit.parse(&snapshot, &["coderabbitai[bot]".to_owned()]);
        let titles: Vec<&str> = out.findings.iter().map(|f| f.title.as_str()).collect();
        assert_eq!(
            titles,
            vec![
                "Guard the null row.",
                "Memoise the rows.",
                "Close the file handle."
            ],
            "the duplicate of the inline finding merges; LGTM notes and the digest are ignored"
        );
        let memo = &out.findings[1];
        assert_eq!(
            (memo.evidence.line, memo.evidence.end_line),
            (Some(32), Some(68))
        );
        assert_eq!(
            (memo.severity, memo.category.as_str()),
            (Severity::High, "performance")
        );
        let dup = &out.findings[2];
        assert_eq!(
            (dup.severity, dup.category.as_str()),
            (Severity::Medium, "bug")
        );
        assert_eq!(dup.finding_id, "review-77-2");
        assert!(out.notes.iter().any(|n| n.contains("duplicate")));
        assert_eq!(out.coverage, crate::model::Coverage::Reviewed);
    }

    /// 2026 bodies name the section with a bold line and give each item its own
    /// `<details>`, whose summary ends with the location (jdx/mise#13233).
    #[test]
    fn headed_outside_diff_items() {
        let body = "> [!CAUTION]\n> Some comments fall outside the diff and GitHub does not allow them inline.\n> \n> **⚠️ Outside diff range comments (1)**\n> \n> <details>\n> <summary><em>🟡 Minor</em> · Gate blanket-resolution guidance on resolvable conflicts. · <code>src/sync/apply.rs:295-299</code></summary><blockquote>\n> \n> `295-299`: _🎯 Functional Correctness_ | _🟡 Minor_ | _⚡ Quick win_\n> \n> **Gate blanket-resolution guidance on resolvable conflicts.** `status.conflicts.len()` counts holds that `--take-remote-all` cannot resolve.\n> \n> <details>\n> <summary>🤖 Prompt for AI Agents</summary>\n> \n> ```\n> In `@src/sync/apply.rs` around lines 295 - 299, fix it.\n> ```\n> \n> </details>\n> \n> <!-- cr-comment:v1:b1ca50037c3a42d7a274545f -->\n> \n> </blockquote></details>\n\n<details>\n<summary>🤖 Prompt for all review comments with AI agents</summary>\n\n```\nOutside diff comments: fix it.\n```\n\n</details>";
        let mut snapshot = PrSnapshot::default();
        snapshot.reviews.push(Review {
            id: 79,
            user: cr_user(),
            body: Some(body.into()),
            ..Review::default()
        });
        let out = CodeRabbit.parse(&snapshot, &["coderabbitai[bot]".to_owned()]);
        assert_eq!(
            out.findings.len(),
            1,
            "{:?} {:?}",
            out.findings,
            out.malformed
        );
        let f = &out.findings[0];
        assert_eq!(
            (
                f.evidence.file.as_str(),
                f.evidence.line,
                f.evidence.end_line
            ),
            ("src/sync/apply.rs", Some(295), Some(299))
        );
        assert_eq!(
            f.title,
            "Gate blanket-resolution guidance on resolvable conflicts."
        );
        assert_eq!((f.severity, f.category.as_str()), (Severity::Medium, "bug"));
        assert_eq!(f.finding_id, "cr-comment:v1:b1ca50037c3a42d7a274545f");
    }
}
