//! Sourcery (`sourcery-ai[bot]`): inline comments `**type (category):** title`, and the ❌
//! rows of the Reviewer's Guide's "Assessment against linked issues" (PR-level). Review
//! bodies (verdicts, the AI-prompt digest that repeats the inline comments, budget notices)
//! and the rest of the guide are not findings. Formats: docs/bot-formats.md section 2.

use crate::adapters::read::taxonomy::NativeCategory;
use crate::adapters::read::{inline, linked_issues, markdown};
use crate::adapters::Anchor;
use crate::adapters::{
    category_for, detail_from, provenance, Activity, Adapter, AdapterOutput, Identity, Signal,
};
use crate::api::{PrSnapshot, ReviewComment};
use crate::model::{Category, NormalizedFinding, Severity};

pub struct Sourcery;

const ID: &str = "sourcery";

impl Adapter for Sourcery {
    fn id(&self) -> &'static str {
        ID
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &["sourcery-ai[bot]"]
    }

    /// Its app's (`sourcery-ai`) check run.
    fn signals(&self) -> &'static [Signal] {
        &[Signal::CheckRunVerdict("")]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        let mut out = AdapterOutput::default();
        let mut activity = Activity::new(snapshot.head_sha());

        inline::read_comments(snapshot, &identity, &mut activity, &mut out, inline_finding);
        for review in &snapshot.reviews {
            if !identity.matches(review.user.as_ref()) {
                continue;
            }
            let body = review.body.as_deref().unwrap_or("");
            if body.trim().is_empty() {
                continue;
            }
            out.readable += 1;
            if is_notice(body) {
                activity.declined_notice(body);
                out.notes
                    .push(format!("review {}: budget or size notice", review.id));
            } else {
                activity.reviewed(review.commit_id.as_deref());
            }
        }
        for comment in &snapshot.issue_comments {
            if !identity.matches(comment.user.as_ref()) {
                continue;
            }
            out.readable += 1;
            let body = comment.body.as_deref().unwrap_or("");
            if is_notice(body) {
                activity.declined_notice(body);
                out.notes.push(format!(
                    "issue comment {}: budget or size notice",
                    comment.id
                ));
                continue;
            }
            // The Reviewer's Guide's "Assessment against linked issues": ❌ rows are PR-level.
            for unmet in linked_issues::unmet_objectives(body) {
                let finding =
                    linked_issues::finding(ID, comment.id, comment.html_url.as_deref(), &unmet);
                out.findings.push(finding);
            }
        }
        out.set_coverage(&activity);
        out
    }
}

/// Budget, rate-limit and size refusals ("Sorry @user, ...").
fn is_notice(body: &str) -> bool {
    let lower = markdown::visible_start(body).to_lowercase();
    lower.starts_with("sorry @")
        && (lower.contains("review budget")
            || lower.contains("rate limit")
            || lower.contains("larger than the review limit"))
}

/// `issue (bug_risk)` -> ("issue", Some("bug_risk")).
fn split_label(label: &str) -> (String, Option<String>) {
    let label = label.trim().trim_end_matches(':').trim();
    match label.split_once('(') {
        Some((kind, rest)) => {
            let category = rest.trim_end_matches(')').trim().to_lowercase();
            (
                kind.trim().to_lowercase(),
                Some(category).filter(|c| !c.is_empty()),
            )
        }
        None => (label.to_lowercase(), None),
    }
}

fn severity(kind: &str, category: Option<&str>) -> Severity {
    let security = category == Some("security");
    match kind {
        "issue" if security => Severity::High,
        "issue" => Severity::Medium,
        "suggestion" if security => Severity::Medium,
        "suggestion" | "nitpick" => Severity::Low,
        _ => Severity::Medium,
    }
}

fn native_category(category: Option<&str>) -> Option<Category> {
    match category? {
        "security" => Some(Category::Security),
        "bug_risk" | "bug" => Some(Category::Bug),
        "performance" => Some(Category::Performance),
        "testing" | "tests" => Some(Category::Test),
        "typo" | "style" => Some(Category::Style),
        "code-quality" | "code_quality" | "complexity" => Some(Category::Maintainability),
        "documentation" | "docs" => Some(Category::Docs),
        _ => None,
    }
}

/// Drop a trailing rule link: ``Avoid loops in tests. ([`no-loop-in-tests`](…))``.
fn strip_rule_link(title: &str) -> &str {
    let trimmed = title.trim_end();
    if trimmed.ends_with("`)") {
        if let Some(open) = trimmed.rfind("(`") {
            return trimmed[..open].trim_end();
        }
    }
    trimmed
}

fn inline_finding(comment: &ReviewComment, anchor: &Anchor) -> Result<NormalizedFinding, String> {
    let text = markdown::normalize_newlines(&comment.body);
    let visible = markdown::strip_hidden(&text);
    let trimmed = markdown::visible_start(&visible);
    let first_line = trimmed.lines().next().unwrap_or("");

    // `**issue (bug_risk):** Title` — the bold label includes the colon.
    let (kind, category, title_md, rest) = match first_line
        .strip_prefix("**")
        .and_then(|l| l.split_once("**"))
        .filter(|(label, _)| label.trim_end().ends_with(':'))
    {
        Some((label, after)) => {
            let (kind, category) = split_label(label);
            let rest = trimmed.get(first_line.len()..).unwrap_or("");
            (kind, category, after.to_owned(), rest)
        }
        None => (String::new(), None, String::new(), trimmed),
    };
    let mut title = strip_rule_link(&markdown::inline_plain(&title_md)).to_owned();
    if title.is_empty() {
        let first = markdown::paragraphs(rest, true).into_iter().next();
        title = first
            .map(|p| markdown::first_sentence(&p).to_owned())
            .unwrap_or_default();
    }
    if title.is_empty() {
        return Err("label without a title or text".to_owned());
    }
    let title = markdown::shorten(&title, 240);
    let native = NativeCategory {
        strong: native_category(category.as_deref()),
        weak: None,
    };
    let (resolved, source) = category_for(native, &anchor.file, &title, rest);
    let mut finding = NormalizedFinding::new(
        ID,
        comment.id.to_string(),
        severity(&kind, category.as_deref()),
        resolved.as_str(),
        title,
    );
    finding.evidence.file = anchor.file.clone();
    finding.evidence.line = anchor.line;
    finding.evidence.end_line = anchor.end_line;
    finding.detail = detail_from(rest);
    finding.nitpick = kind == "nitpick";
    finding.provenance = provenance(comment, anchor, source);
    Ok(finding)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `bots/sourcery`: two inline comments, the second opening with an HTML comment and a
    /// `[//]: # (…)` line that GitHub does not show (issue 24): both read alike.
    #[test]
    fn sample_comments() {
        let out = crate::adapters::fixture::parse(&Sourcery, "bots/sourcery");
        assert!(out.malformed.is_empty(), "{:?}", out.malformed);
        let got = crate::adapters::fixture::places_and(&out.findings, |f| f.title.as_str());
        assert_eq!(
            got,
            vec![
                (
                    "app/webhooks/retry.py",
                    Some(28),
                    Severity::Medium,
                    "bug",
                    "The retry loop never waits between attempts, so a provider outage is hammered with requests."
                ),
                (
                    "app/webhooks/verify.py",
                    Some(20),
                    Severity::High,
                    "security",
                    "The signature is compared with `==`, which returns early and leaks timing."
                ),
            ]
        );
        assert_eq!(out.coverage, crate::model::Coverage::Reviewed);
    }

    fn comment(body: &str) -> ReviewComment {
        ReviewComment {
            id: 7,
            body: body.to_owned(),
            path: Some("app/x.py".into()),
            line: None,
            original_line: Some(12),
            ..ReviewComment::default()
        }
    }

    /// The adapter's reader on one comment, anchored the way `inline::read_comments` does.
    fn read(comment: &ReviewComment) -> Result<NormalizedFinding, String> {
        let anchor = crate::adapters::anchor(comment).expect("the test comment has a path");
        inline_finding(comment, &anchor)
    }

    #[test]
    fn label_forms() {
        let f = read(&comment(
            "**issue (security):** Injectable `IN` list.\n\nMore.",
        ))
        .unwrap();
        assert_eq!(
            (f.severity, f.category.as_str()),
            (Severity::High, "security")
        );
        assert_eq!(f.title, "Injectable `IN` list.");
        assert_eq!(
            f.evidence.line,
            Some(12),
            "line: null falls back to original_line"
        );
        let f = read(&comment("**nitpick:** Odd name for `x`.")).unwrap();
        assert!(f.nitpick);
        assert_eq!((f.severity, f.category.as_str()), (Severity::Low, "other"));
        let f = read(&comment(
            "**issue (code-quality):** Avoid loops in tests. ([`no-loop-in-tests`](https://docs.sourcery.ai/x))\n\n<details><summary>Explanation</summary>long</details>",
        ))
        .unwrap();
        assert_eq!(f.title, "Avoid loops in tests.");
        assert_eq!(f.category, "maintainability");
    }

    #[test]
    fn empty_label_is_malformed() {
        assert!(read(&comment("**issue (bug_risk):**")).is_err());
        assert!(read(&comment("")).is_err());
    }

    #[test]
    fn notices() {
        assert!(is_notice("Sorry @ana, your pull request is larger than the review limit of 150000 diff characters"));
        assert!(!is_notice("Hey - I've found 2 issues"));
    }
}
