//! Bito (`bito-code-review[bot]`, id 188872107; `bito-pr-review[bot]` in older installs):
//! a review, possibly `CHANGES_REQUESTED`, whose body is `<h3>Code Review Agent Run
//! #f933eb</h3>` with `<b>Actionable Suggestions - 3</b>`, a per-file list (it repeats the
//! inline comments) and "Review Details" (`Commit Range: 3f3f028..3f3f028`, the reviewed
//! commits), plus one inline comment per suggestion. An inline comment's title is its first
//! bold (or `<b>`) text, else its first sentence; Bito states no severity of its own, so a
//! severity is read only from the opening words (`Severity: high`), else medium. Changelist
//! and interaction-diagram comments are not findings. Formats: docs/adapters.md.

use crate::adapters::read::inline::{self, Status};
use crate::adapters::read::taxonomy::NativeCategory;
use crate::adapters::read::{html, markdown, prose};
use crate::adapters::{Adapter, AdapterOutput, Identity};
use crate::api::PrSnapshot;
use crate::model::Severity;

/// Notices that mean Bito did not review.
const DECLINED: &[&str] = &[
    "usage limit",
    "limit reached",
    "trial has expired",
    "subscription has expired",
    "out of credits",
];

pub struct Bito;

const ID: &str = "bito";

impl Adapter for Bito {
    fn id(&self) -> &'static str {
        ID
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &["bito-code-review[bot]", "bito-pr-review[bot]"]
    }

    fn user_ids(&self) -> &'static [u64] {
        &[188872107]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        inline::parse(snapshot, &identity, status, |comment, anchor| {
            let body = markdown::normalize_newlines(&comment.body);
            let prose = prose::read(&body)?;
            // `<div id="issue"><b>Title</b></div>`: the bold is raw HTML.
            let title = html_bold(&body).unwrap_or(prose.title);
            Ok(inline::finding(
                ID,
                comment,
                anchor,
                prose.severity.unwrap_or(Severity::Medium),
                &title,
                NativeCategory::none(),
                &prose.explanation,
            ))
        })
    }
}

/// A notice declines; an agent run names the last commit of its range.
fn status(body: &str) -> Status {
    if inline::is_notice(body, DECLINED) {
        return Status::Declined;
    }
    let lower = body.to_lowercase();
    if !lower.contains("code review agent run") {
        return Status::Other;
    }
    let commit = lower
        .find("commit range:")
        .and_then(|at| inline::commit_after(&lower[at..], ".."));
    Status::Done(commit)
}

/// The first `<b>…</b>` at the start of the comment (outside code), as plain text.
fn html_bold(body: &str) -> Option<String> {
    let masked = markdown::mask_code(body);
    let head = markdown::visible_start(&masked);
    if !head.starts_with('<') {
        return None;
    }
    let inner = html::between(head, "<b>", "</b>")?;
    let title = html::strip_tags(inner);
    (!title.is_empty()).then_some(title)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::fixture;
    use crate::api::{IssueComment, User};
    use crate::model::Coverage;

    #[test]
    fn agent_run_names_the_reviewed_commit() {
        let body = "<div>\n<h3>Code Review Agent Run #f933eb</h3>\n<details><summary><b>Actionable Suggestions - 1</b></summary></details>\n<details><summary>Review Details</summary>Files reviewed - 3 · Commit Range: <code>3f3f028..c0ffee0</code></details>\n</div>";
        assert_eq!(status(body), Status::Done(Some("c0ffee0".into())));
        assert_eq!(
            status("Changelist by Bito This pull request implements the following key changes."),
            Status::Other
        );
        assert_eq!(
            status("Your Bito trial has expired. Upgrade to continue reviews."),
            Status::Declined
        );
        assert_eq!(
            html_bold("<div id=\"issue\"><b>Hardcoded month filter</b></div>\n\nProse."),
            Some("Hardcoded month filter".into())
        );
        assert_eq!(html_bold("Prose with <b>bold</b> later."), None);
    }

    #[test]
    fn a_notice_is_declined_with_its_kind() {
        let notice = IssueComment {
            id: 1,
            user: Some(User {
                login: "bito-code-review[bot]".into(),
                id: 188872107,
                kind: "Bot".into(),
            }),
            body: Some("Your Bito trial has expired. Upgrade to continue reviews.".into()),
            ..IssueComment::default()
        };
        let snapshot = PrSnapshot {
            issue_comments: vec![notice],
            ..PrSnapshot::default()
        };
        let out = Bito.parse(&snapshot, &["bito-code-review[bot]".to_owned()]);
        assert_eq!(out.coverage, Coverage::Declined);
        assert_eq!(out.coverage_signal.as_deref(), Some("notice: billing"));
    }

    #[test]
    fn sample_comments() {
        let out = fixture::parse(&Bito, "bots/bito");
        let got = fixture::places_and(&out.findings, |f| f.title.as_str());
        assert_eq!(
            got,
            vec![
                (
                    "src/app/reports/exports/page.tsx",
                    Some(246),
                    Severity::Medium,
                    "bug",
                    "Hardcoded month filter"
                ),
                (
                    "src/app/settings/billing/page.tsx",
                    Some(235),
                    Severity::Medium,
                    "other",
                    "Percentage display inconsistency"
                ),
            ]
        );
        assert_eq!(out.coverage, Coverage::Reviewed);
    }
}
