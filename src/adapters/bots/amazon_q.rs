//! Amazon Q Developer (`amazon-q-developer[bot]` id 208079219): the GitHub app's code
//! review. Each finding is an inline comment that opens with a severity icon, a bold
//! category and the claim, `:stop_sign: **Logic Error**: The -SimpleMatch parameter …`,
//! often with a `suggestion` block. Its review body (`## Review Summary`) is the finished
//! review; a short `I'm not able to complete the code review` notice declines; its answers
//! to `/q` questions are thread replies, never findings. Only `:stop_sign:` and `Logic
//! Error` are seen in captures: the other icons and labels are read by the shared icon and
//! label rules (inferred). Formats: docs/adapters.md, docs/bot-formats.md.

use crate::adapters::read::inline::{self, Status};
use crate::adapters::read::markdown;
use crate::adapters::read::taxonomy::{self, NativeCategory};
use crate::adapters::{Adapter, AdapterOutput, Identity};
use crate::api::PrSnapshot;
use crate::model::{Category, Severity};

/// Notices that mean Amazon Q did not review: its service-error message and the monthly
/// line allowance of the free tier (inferred from the docs' wording).
const DECLINED: &[&str] = &[
    "not able to complete the code review",
    "internal service error",
    "monthly limit",
    "limit of lines",
    "usage limit",
];

/// The heading of its review body: the finished review.
const SUMMARY: &str = "review summary";

pub struct AmazonQ;

const ID: &str = "amazon-q";

impl Adapter for AmazonQ {
    fn id(&self) -> &'static str {
        ID
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &["amazon-q-developer[bot]"]
    }

    fn user_ids(&self) -> &'static [u64] {
        &[208079219]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        inline::parse(snapshot, &identity, status, |comment, anchor| {
            let body = markdown::normalize_newlines(&comment.body);
            let Some(header) = header(&body) else {
                // Free prose (no icon and label): read like any prose comment.
                return inline::prose_finding(ID, comment, anchor);
            };
            let severity = header.severity.unwrap_or(Severity::Medium);
            let mut finding = inline::claim_finding(
                ID,
                comment,
                anchor,
                Some(severity),
                label_category(&header.label),
                &header.claim,
            )
            .ok_or("a category label without a claim")?;
            finding.evidence.symbol = header.label;
            Ok(finding)
        })
    }
}

/// Its review summary finishes a review; a short service-error or allowance notice declines.
fn status(body: &str) -> Status {
    if inline::is_notice(body, DECLINED) {
        Status::Declined
    } else if markdown::visible_start(&markdown::mask_code(body))
        .trim_start_matches('#')
        .trim()
        .to_lowercase()
        .starts_with(SUMMARY)
    {
        Status::Done(None)
    } else {
        Status::Other
    }
}

/// What opens a finding: `:stop_sign: **Logic Error**: claim`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Header {
    /// From the icon; `None` when the label comes without one.
    severity: Option<Severity>,
    /// The bold category, as written (`Logic Error`).
    label: String,
    /// Everything after the label (Markdown: the claim, then any suggestion block).
    claim: String,
}

/// The icon (optional), the bold label and the claim on the first visible line; `None` when
/// the comment does not open with a bold label.
fn header(body: &str) -> Option<Header> {
    let visible = markdown::strip_hidden(body);
    let text = markdown::visible_start(&visible);
    let (severity, rest) = match taxonomy::leading_severity_icon(text) {
        Some((severity, rest)) => (Some(severity), rest.trim_start()),
        None => (None, text),
    };
    // `**Logic Error**:` or `**Logic Error:**`.
    let (label, claim) = rest.strip_prefix("**")?.split_once("**")?;
    let label = label.trim().trim_end_matches(':').trim();
    let claim = claim.strip_prefix(':').unwrap_or(claim).trim();
    let label_is_short = !label.is_empty() && label.split_whitespace().count() <= 5;
    label_is_short.then(|| Header {
        severity,
        label: markdown::inline_plain(label),
        claim: claim.to_owned(),
    })
}

/// The category its bold label names: `Logic Error` (seen) -> bug; the others by their
/// words (inferred): security, performance, maintainability, docs, style, test. A label
/// none of these name leaves the category to the claim's keywords.
fn label_category(label: &str) -> NativeCategory {
    let lower = label.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    let category = if has(&["secur", "vulnerab", "injection", "credential", "secret"]) {
        Category::Security
    } else if has(&["performance", "efficien"]) {
        Category::Performance
    } else if has(&[
        "logic",
        "bug",
        "error",
        "crash",
        "null",
        "race",
        "concurren",
        "leak",
        "exception",
    ]) {
        Category::Bug
    } else if has(&[
        "maintainab",
        "readab",
        "quality",
        "best practice",
        "complexity",
        "duplicat",
    ]) {
        Category::Maintainability
    } else if has(&["document", "comment"]) {
        Category::Docs
    } else if has(&["style", "naming", "format"]) {
        Category::Style
    } else if has(&["test"]) {
        Category::Test
    } else {
        return NativeCategory::none();
    };
    NativeCategory::strong(category)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::fixture;
    use crate::api::{IssueComment, User};
    use crate::model::Coverage;

    #[test]
    fn headers_with_an_icon_shortcode_or_emoji_and_a_bold_label() {
        let h = header(
            ":stop_sign: **Logic Error**: The `-SimpleMatch` parameter conflicts with the regex.\n```suggestion\nx\n```",
        )
        .unwrap();
        assert_eq!(h.severity, Some(Severity::High));
        assert_eq!(h.label, "Logic Error");
        assert!(
            h.claim.starts_with("The `-SimpleMatch` parameter"),
            "{}",
            h.claim
        );
        let h = header("<!-- q -->\n⚠️ **Security Vulnerability:** Logs the token.").unwrap();
        assert_eq!(
            (h.severity, h.label.as_str(), h.claim.as_str()),
            (
                Some(Severity::Medium),
                "Security Vulnerability",
                "Logs the token."
            )
        );
        let h = header("**Performance**: A query per row.").unwrap();
        assert_eq!(h.severity, None);
        for prose in [
            "The loop never ends.",
            "**This whole sentence is bold and far too long to be a label**: x",
            "",
        ] {
            assert_eq!(header(prose), None, "{prose}");
        }
        assert_eq!(label_category("Logic Error").strong, Some(Category::Bug));
        assert_eq!(
            label_category("Security Vulnerability").strong,
            Some(Category::Security)
        );
        assert_eq!(label_category("Something Else"), NativeCategory::none());
    }

    #[test]
    fn sample_review() {
        let out = fixture::parse(&AmazonQ, "bots/amazon-q");
        assert!(out.malformed.is_empty(), "{:?}", out.malformed);
        let got = fixture::places_and(&out.findings, |f| f.title.as_str());
        assert_eq!(
            got,
            vec![
                (
                    "app/services/retry.py",
                    Some(22),
                    Severity::High,
                    "bug",
                    "The loop compares attempt > MAX_RETRIES after incrementing it, so the last retry never runs."
                ),
                (
                    "app/webhooks/verify.py",
                    Some(14),
                    Severity::Medium,
                    "security",
                    "The debug line writes the webhook secret to the log."
                ),
                (
                    "app/services/fx_rates.py",
                    Some(40),
                    Severity::Low,
                    "performance",
                    "The rate table is fetched once per payout instead of once per run."
                ),
            ]
        );
        assert_eq!(out.findings[0].evidence.symbol, "Logic Error");
        assert!(!out.findings[0].detail.contains("suggestion"));
        // The reply in the first finding's thread is no finding; the summary is the review.
        assert_eq!(out.coverage, Coverage::Reviewed);
        assert_eq!(out.coverage_signal.as_deref(), Some("review on head"));
    }

    #[test]
    fn a_service_error_notice_declines() {
        let notice = IssueComment {
            id: 9,
            user: Some(User {
                login: "amazon-q-developer[bot]".into(),
                id: 208079219,
                kind: "Bot".into(),
            }),
            body: Some("🔴 I'm not able to complete the code review at this moment because of an internal service error. Please try again later.\n\nRequest ID : c9f96950-546e-4886-803d-e81a3cde1a85".into()),
            ..IssueComment::default()
        };
        let snapshot = PrSnapshot {
            issue_comments: vec![notice],
            ..PrSnapshot::default()
        };
        let out = AmazonQ.parse(&snapshot, &["amazon-q-developer[bot]".to_owned()]);
        assert_eq!(out.coverage, Coverage::Declined);
        assert_eq!(out.coverage_signal.as_deref(), Some("notice: failed"));
        assert!(out.findings.is_empty());
    }
}
