//! Codecov AI (`codecov-ai[bot]`, id 156709835; the reviewer is also seen as
//! `codecov-ai-reviewer[bot]`), Sentry's Codecov reviewer, run with `@codecov-ai-reviewer
//! review`. Its findings are inline review comments in free prose (read like the generic
//! adapter's: title = bold span or first sentence). Its issue comments are status and
//! automation: "On it! We are reviewing the PR …" (started), "No changes requiring review at
//! this time." (a clean pass), and the test-generation notes ("… has generated a new PR with
//! unit tests", "… unit tests are not necessary"), which are neither findings nor a review.
//! Seer's bug predictions are the `sentry` adapter's. Formats: getsentry/seer
//! (`pr_review_publisher.py`, `repo_client.py`); docs/adapters.md.

use crate::adapters::read::inline::{self, Status};
use crate::adapters::read::markdown;
use crate::adapters::{Adapter, AdapterOutput, Identity};
use crate::api::PrSnapshot;

/// Notices that mean it did not review.
const DECLINED: &[&str] = &["usage limit", "quota", "rate limit", "not enabled", "trial"];

pub struct CodecovAi;

const ID: &str = "codecov-ai";

impl Adapter for CodecovAi {
    fn id(&self) -> &'static str {
        ID
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &["codecov-ai[bot]", "codecov-ai-reviewer[bot]"]
    }

    fn user_ids(&self) -> &'static [u64] {
        &[156709835]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        inline::parse(snapshot, &identity, status, |comment, anchor| {
            inline::prose_finding(ID, comment, anchor)
        })
    }
}

/// The acknowledgement starts a review, "no changes requiring review" finishes a clean one;
/// the test-generation notes and anything else say nothing about the review.
fn status(body: &str) -> Status {
    let lower = markdown::visible_start(body).trim_end().to_lowercase();
    if lower.contains("unit tests") {
        // "Codecov has generated a new PR with unit tests…", "… unit tests are not necessary"
        Status::Other
    } else if lower.starts_with("no changes requiring review") {
        Status::Done(None)
    } else if lower.starts_with("on it!") && lower.contains("reviewing the pr") {
        Status::Started
    } else if inline::is_notice(body, DECLINED) {
        Status::Declined
    } else {
        Status::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::fixture;
    use crate::model::{Coverage, Severity};

    #[test]
    fn status_comments() {
        assert_eq!(
            status("On it! We are reviewing the PR and will provide feedback shortly."),
            Status::Started
        );
        assert_eq!(
            status("No changes requiring review at this time."),
            Status::Done(None)
        );
        // A hidden first line is not what the comment opens with (issue 24).
        assert_eq!(
            status(
                "<!-- codecov-ai -->\n[//]: # (status)\nNo changes requiring review at this time."
            ),
            Status::Done(None)
        );
        assert_eq!(
            status(
                "Codecov has generated a new [PR](https://x/pull/9) with unit tests for this PR."
            ),
            Status::Other
        );
        assert_eq!(
            status("Sentry has determined that unit tests are not necessary for this PR."),
            Status::Other
        );
    }

    #[test]
    fn sample_review() {
        let out = fixture::parse(&CodecovAi, "bots/codecov-ai");
        let got = fixture::places_and(&out.findings, |f| f.title.as_str());
        assert_eq!(
            got,
            vec![
                (
                    "app/services/fx_rates.py",
                    Some(32),
                    Severity::Medium,
                    "performance",
                    "The cached rate is returned even after it expired."
                ),
                (
                    "app/api/refunds.py",
                    Some(18),
                    Severity::Medium,
                    "bug",
                    "Catching Exception here also hides the validation error the caller expects."
                ),
            ]
        );
        assert!(out.malformed.is_empty(), "{:?}", out.malformed);
        assert_eq!(out.coverage, Coverage::Reviewed);
        // The test-generation note is automation, not a review.
        let mut snapshot = fixture::snapshot("bots/codecov-ai");
        snapshot.review_comments.clear();
        snapshot
            .issue_comments
            .retain(|c| c.body.as_deref().unwrap_or("").contains("unit tests"));
        let logins = ["codecov-ai[bot]".to_owned()];
        let out = CodecovAi.parse(&snapshot, &logins);
        assert_eq!(out.coverage, Coverage::Absent, "{:?}", out.coverage_signal);
    }
}
