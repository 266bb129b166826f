//! What the identity tests build alike: a person's comment and the PR that holds them.

use crate::api::{IssueComment, PrSnapshot, PullRequest, User};

/// An issue comment `id` by `login` (a `User` or `Bot` of that `kind`) saying `body`.
pub(crate) fn said(id: u64, login: &str, kind: &str, body: &str) -> IssueComment {
    IssueComment {
        id,
        user: Some(User {
            login: login.into(),
            id,
            kind: kind.into(),
        }),
        body: Some(body.into()),
        html_url: Some(format!(
            "https://github.com/acme/app/pull/1#issuecomment-{id}"
        )),
        ..IssueComment::default()
    }
}

/// acme/app's PR at `head`, with `comments` on it.
pub(crate) fn snapshot(head: &str, comments: Vec<IssueComment>) -> PrSnapshot {
    let mut pull = PullRequest::default();
    pull.head.sha = head.to_owned();
    PrSnapshot {
        repository: "acme/app".into(),
        pull,
        issue_comments: comments,
        ..PrSnapshot::default()
    }
}
