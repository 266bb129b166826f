//! cubic (`cubic-dev-ai[bot]`, id 191113872): one finding per inline comment. The body
//! opens with hidden markers, `<!-- cubic:v=<uuid> -->` (a stable id per violation) and
//! `<!-- metadata:{"confidence":9} -->` (0-10), then `P0: <claim>` (P0 critical … P3 low),
//! a "Prompt for AI agents" `<details>` and a "Fix with cubic" picture link. The review body
//! (`**N issues found** across M files`, with a prompt that repeats the inline comments) is a
//! finished review, never a finding. Formats: docs/adapters.md (research captures).

use crate::adapters::read::inline;
use crate::adapters::read::markdown;
use crate::adapters::read::taxonomy::{self, NativeCategory};
use crate::adapters::{Adapter, AdapterOutput, Identity, Signal};
use crate::api::PrSnapshot;
use crate::model::Severity;

/// Notices that mean cubic did not review (its allowance is spent).
const DECLINED: &[&str] = &[
    "line limit reached",
    "review limit reached",
    "usage limit",
    "trial has ended",
    "upgrade your plan",
];

pub struct Cubic;

const ID: &str = "cubic";

impl Adapter for Cubic {
    fn id(&self) -> &'static str {
        ID
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &["cubic-dev-ai[bot]"]
    }

    fn user_ids(&self) -> &'static [u64] {
        &[191113872]
    }

    /// Its app's check run; `neutral` "AI review line limit reached" when the allowance is
    /// spent (declined), else its verdict.
    fn signals(&self) -> &'static [Signal] {
        &[Signal::CheckRunVerdict("")]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        let status = inline::declines(DECLINED);
        inline::parse(snapshot, &identity, status, |comment, anchor| {
            let body = markdown::normalize_newlines(&comment.body);
            let markers = markdown::html_comments(&body);
            let visible = markdown::strip_hidden(&body);
            let (severity, claim) = priority_prefix(&visible);
            let none = NativeCategory::none();
            let mut finding = inline::claim_finding(ID, comment, anchor, severity, none, claim)
                .ok_or("no claim after the priority")?;
            if let Some(confidence) = markers.iter().find_map(|m| confidence(m)) {
                finding.confidence = confidence;
            }
            if let Some(id) = markers.iter().find_map(|m| m.strip_prefix("cubic:v=")) {
                finding.finding_id = format!("cubic:{}", id.trim());
            }
            Ok(finding)
        })
    }
}

/// `P1: claim` -> (high, "claim"); no prefix -> (None, the text).
fn priority_prefix(text: &str) -> (Option<Severity>, &str) {
    let trimmed = markdown::visible_start(text);
    match trimmed.split_once(':') {
        Some((label, rest)) if label.len() == 2 => match taxonomy::priority_severity(label) {
            Some(severity) => (Some(severity), rest.trim_start()),
            None => (None, trimmed),
        },
        _ => (None, trimmed),
    }
}

/// `metadata:{"confidence":9}` -> 0.9 (cubic's 0-10 scale; out-of-range values clamped).
fn confidence(marker: &str) -> Option<f64> {
    let json = marker.strip_prefix("metadata:")?;
    let value: serde_json::Value = serde_json::from_str(json.trim()).ok()?;
    let raw = value.get("confidence")?.as_f64()?;
    raw.is_finite().then(|| (raw / 10.0).clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::fixture;
    use crate::model::Coverage;

    #[test]
    fn prefix_and_confidence() {
        assert_eq!(
            priority_prefix("P0: Logs leak tokens."),
            (Some(Severity::Critical), "Logs leak tokens.")
        );
        assert_eq!(priority_prefix("Note: plain.").0, None);
        assert_eq!(confidence("metadata:{\"confidence\":9}"), Some(0.9));
        assert_eq!(confidence("metadata:{\"confidence\":14}"), Some(1.0));
        assert_eq!(confidence("metadata:{nope"), None);
        assert_eq!(confidence("cubic:v=1"), None);
    }

    #[test]
    fn sample_inline_comments() {
        let out = fixture::parse(&Cubic, "bots/cubic");
        let got = fixture::places_and(&out.findings, |f| f.confidence);
        assert_eq!(
            got,
            vec![
                (
                    "server/src/middleware/logger.ts",
                    Some(5),
                    Severity::Critical,
                    "security",
                    1.0
                ),
                (
                    "server/src/services/export.service.ts",
                    Some(9),
                    Severity::High,
                    "bug",
                    0.9
                ),
                (
                    "src/app/shifts/shifts-page.stories.tsx",
                    Some(263),
                    Severity::Low,
                    "test",
                    0.8
                ),
            ]
        );
        assert!(out.findings[1].title.starts_with(
            "Concurrent exports race and can truncate or overwrite each other's file"
        ));
        assert_eq!(
            out.findings[0].finding_id,
            "cubic:9bfc9f7b-54a7-4124-a9ee-453a3c22e865"
        );
        assert!(!out.findings[0].detail.contains("Fix with cubic"));
        assert!(!out.findings[0]
            .detail
            .contains("Check if this issue is valid"));
        assert_eq!(out.coverage, Coverage::Reviewed);
        assert_eq!(
            out.findings.len(),
            3,
            "the review body's prompt repeats them"
        );
    }
}
