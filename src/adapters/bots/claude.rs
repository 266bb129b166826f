//! Claude Code review (`claude[bot]`, id 209825114; under a workflow token it posts as
//! `github-actions[bot]`, mapped with `bots: claude=github-actions[bot]`). It leaves no
//! review object. Its tracking issue comment, edited in place, says "Claude Code is
//! working…" while it runs, then `**Claude finished @user's task in 1m 44s**` (a finished
//! review) or `**Claude encountered an error after 45s**` (declined). Its inline comments,
//! posted after the session, are free prose: read like the generic adapter's (title = bold
//! span or first sentence, severity from the opening words). The tracking comment's own
//! summary is free-form and not read for findings. Claude Code Review, the managed review,
//! posts under the same app: what carries its severity markers is its adapter's
//! (`claude_code_review.rs`), not this one's. Formats: docs/adapters.md.

use super::claude_code_review::{is_code_review_post, opening_marker};
use crate::adapters::read::inline::{self, Status};
use crate::adapters::read::markdown;
use crate::adapters::{Activity, Adapter, AdapterOutput, Identity, Signal};
use crate::api::PrSnapshot;

/// Notices that mean Claude did not review (besides its "encountered an error" header).
const DECLINED: &[&str] = &[
    "credit balance is too low",
    "usage limit",
    "rate limit",
    "overloaded",
];

pub struct Claude;

const ID: &str = "claude";

impl Adapter for Claude {
    fn id(&self) -> &'static str {
        ID
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &["claude[bot]"]
    }

    fn user_ids(&self) -> &'static [u64] {
        &[209825114]
    }

    /// The workflow job of Claude Code's review (`claude-review` in the generated workflow,
    /// `claude` for the mention workflow): a GitHub Actions run, so only its failure counts
    /// (a green job may still have left "No buffered inline comments").
    fn signals(&self) -> &'static [Signal] {
        &[
            Signal::CheckRunFailure {
                app: "github-actions",
                name: "claude-review",
            },
            Signal::CheckRunFailure {
                app: "github-actions",
                name: "claude",
            },
        ]
    }

    /// Claude Code Review posts under the same app: its marked inline comments, its reviews
    /// and its confirmations are left to the `claude-code-review` adapter.
    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        let mut activity = Activity::new(snapshot.head_sha());
        let mut out = AdapterOutput::default();
        inline::read_comments_where(
            snapshot,
            &identity,
            &mut activity,
            &mut out,
            |c| opening_marker(&c.body).is_none(),
            |comment, anchor| inline::prose_finding(ID, comment, anchor),
        );
        inline::note_statuses_where(
            snapshot,
            &identity,
            |post| !is_code_review_post(post, snapshot),
            status,
            &mut activity,
            &mut out,
        );
        out.set_coverage(&activity);
        out
    }
}

/// The tracking comment's header: finished, an error, or still working (started); anything
/// else (a chat answer) says nothing about coverage.
fn status(body: &str) -> Status {
    let head = markdown::visible_start(body)
        .trim_start_matches('*')
        .to_lowercase();
    if head.starts_with("claude finished") {
        Status::Done(None)
    } else if head.starts_with("claude encountered an error") || inline::is_notice(body, DECLINED) {
        Status::Declined
    } else if head.starts_with("claude code is working") {
        Status::Started
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
    fn tracking_comment_states() {
        assert_eq!(
            status("**Claude finished @priya's task in 1m 44s** —— [View job](https://x)\n\n---\n### Review Summary\n✅ Approved — 0 inline comments posted"),
            Status::Done(None)
        );
        assert_eq!(
            status("**Claude encountered an error after 45s** —— [View job](https://x)"),
            Status::Declined
        );
        assert_eq!(
            status("Claude Code is working… <img src='spinner.gif' />\n\n- [ ] Analyze changes"),
            Status::Started
        );
        assert_eq!(
            status("A long review that says Claude finished nothing."),
            Status::Other,
            "only the header counts"
        );
    }

    #[test]
    fn sample_comments() {
        let out = fixture::parse(&Claude, "bots/claude");
        let got = fixture::places_and(&out.findings, |f| f.title.as_str());
        assert_eq!(
            got,
            vec![
                (
                    "app/db/queries.py",
                    Some(39),
                    Severity::Critical,
                    "security",
                    "The order lookup interpolates `order_ref` into the SQL text."
                ),
                (
                    "app/services/ledger.py",
                    Some(57),
                    Severity::Medium,
                    "bug",
                    "Converting with float and truncating with int can refund one cent too little."
                ),
            ]
        );
        assert_eq!(out.coverage, Coverage::Reviewed);
    }

    /// On a PR Claude Code Review also reviewed (same `claude[bot]`), only the app's own
    /// comment and tracking comment are this adapter's.
    #[test]
    fn code_review_posts_are_left_to_their_adapter() {
        let out = fixture::parse(&Claude, "bots/claude-code-review");
        let ids: Vec<Option<u64>> = out
            .findings
            .iter()
            .map(|f| f.provenance.comment_id)
            .collect();
        assert_eq!(ids, [Some(3900000106)]);
        assert!(out.malformed.is_empty(), "{:?}", out.malformed);
        assert_eq!(out.coverage, Coverage::Reviewed);

        // Without the app's own comment and tracking comment, Code Review's review, its
        // marked comments and its check run show nothing of the app.
        let mut snapshot = fixture::snapshot("bots/claude-code-review");
        snapshot.review_comments.retain(|c| c.id != 3900000106);
        snapshot.issue_comments.clear();
        let out = Claude.parse(&snapshot, &["claude[bot]".to_owned()]);
        assert!(out.findings.is_empty());
        assert_eq!(out.coverage, Coverage::Absent, "{:?}", out.coverage_signal);
    }
}
