//! Sentry / Seer (`sentry[bot]` id 39604003, `seer-by-sentry[bot]` id 157164994): bug
//! predictions as inline comments, `**Bug:** <claim>`, then `<sub>Severity:
//! CRITICAL|HIGH|MEDIUM|LOW</sub>` (sometimes `<sub>Severity: HIGH | Confidence: 0.92</sub>`),
//! `<!-- BUG_PREDICTION -->` and a "🔍 Detailed Analysis"
//! `<details>`. Sentry is a bug predictor: without keywords the category is `bug`. Its
//! issue comments (issue links, coverage reports) are not findings. Codecov AI's prose
//! reviews are the `codecov-ai` adapter's. Formats: docs/adapters.md (research captures).

use crate::adapters::read::inline;
use crate::adapters::read::taxonomy::{self, NativeCategory};
use crate::adapters::read::{html, markdown};
use crate::adapters::{Adapter, AdapterOutput, Identity, Meaning, Signal};
use crate::api::PrSnapshot;
use crate::model::{Category, Severity};

/// Notices that mean Seer did not review.
const DECLINED: &[&str] = &["usage limit", "quota", "rate limit", "budget exceeded"];

pub struct Sentry;

const ID: &str = "sentry";

impl Adapter for Sentry {
    fn id(&self) -> &'static str {
        ID
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &["sentry[bot]", "seer-by-sentry[bot]"]
    }

    fn user_ids(&self) -> &'static [u64] {
        &[39604003, 157164994]
    }

    /// The `Seer Code Review` check run (findings are reported as `neutral`) and the 👀 Seer
    /// puts on the PR when it schedules a review.
    fn signals(&self) -> &'static [Signal] {
        &[
            Signal::CheckRunVerdict("Seer"),
            Signal::Reaction("eyes", Meaning::Running),
        ]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        let status = inline::declines(DECLINED);
        inline::parse(snapshot, &identity, status, |comment, anchor| {
            let body = markdown::normalize_newlines(&comment.body);
            let (severity, confidence) = sub_labels(&body);
            let visible = markdown::strip_hidden(&body);
            let claim = markdown::visible_start(&visible)
                .strip_prefix("**Bug:**")
                .unwrap_or(&visible)
                .to_owned();
            let bug = NativeCategory::weak(Category::Bug);
            let mut finding = inline::claim_finding(ID, comment, anchor, severity, bug, &claim)
                .ok_or("no claim")?;
            if let Some(confidence) = confidence {
                finding.confidence = confidence;
            }
            Ok(finding)
        })
    }
}

/// `<sub>Severity: HIGH</sub>` (optionally `| Confidence: 0.92`), outside code.
fn sub_labels(body: &str) -> (Option<Severity>, Option<f64>) {
    let masked = markdown::mask_code(body);
    let Some(sub) = html::between(&masked, "<sub>", "</sub>").filter(|s| s.contains("Severity"))
    else {
        return (None, None);
    };
    let value = |key: &str| {
        sub.split('|')
            .find_map(|part| part.trim().strip_prefix(key))
            .map(|v| v.trim_start_matches(':').trim().to_owned())
    };
    let severity = value("Severity").and_then(|v| taxonomy::severity_word(&v));
    let confidence = value("Confidence")
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|c| (0.0..=1.0).contains(c));
    (severity, confidence)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::fixture;
    use crate::model::{CategorySource, Coverage};

    #[test]
    fn severity_sub_label() {
        assert_eq!(
            sub_labels("**Bug:** x\n\n<sub>Severity: CRITICAL</sub>\n\n<!-- BUG_PREDICTION -->"),
            (Some(Severity::Critical), None)
        );
        assert_eq!(
            sub_labels("<sub>Severity: HIGH | Confidence: 0.92</sub>"),
            (Some(Severity::High), Some(0.92))
        );
        assert_eq!(sub_labels("`<sub>Severity: LOW</sub>`"), (None, None));
        assert_eq!(sub_labels("<sub>Reviewed by Seer</sub>"), (None, None));
    }

    #[test]
    fn sample_comments() {
        let out = fixture::parse(&Sentry, "bots/sentry");
        let got = fixture::places_and(&out.findings, |f| f.provenance.category_source);
        assert_eq!(
            got,
            vec![
                (
                    "app/services/refunds.py",
                    Some(45),
                    Severity::High,
                    "bug",
                    Some(CategorySource::Keyword)
                ),
                (
                    "app/services/ledger.py",
                    Some(79),
                    Severity::Medium,
                    "bug",
                    Some(CategorySource::TypeLabel)
                ),
            ]
        );
        assert_eq!(
            out.findings[0].title,
            "Refunding after a partial capture raises `KeyError` because the capture map is keyed by payment id.".replace('`', "")
        );
        assert!(!out.findings[0].detail.contains("Detailed Analysis"));
        // Its body opens with a `[//]: # (…)` line GitHub does not show (issue 24).
        assert_eq!(
            out.findings[1].title,
            "close_period hides database failures behind a zero balance, so a closed period can report nothing owed."
        );
        assert_eq!(out.findings[1].confidence, 0.81);
        assert_eq!(out.coverage, Coverage::Reviewed);
    }
}
