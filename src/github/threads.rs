//! GraphQL reads: review-thread state (only GraphQL knows `isResolved`/`isOutdated`) and the
//! token's own identity (`GET /user` is forbidden for Actions tokens).
//!
//! Every document sent is in `DOCUMENTS`; the tests validate each against GitHub's
//! published schema and refuse deprecated fields.

use std::collections::HashSet;

use serde_json::{json, Value};

use super::{joined, GitHub, GitHubError, GraphQlError};
use crate::api::{self, ReviewThread, Unreadable, REVIEW_THREADS_SURFACE};
use crate::config::PrTarget;

pub use crate::api::{Viewer, ACTIONS_LOGIN};

/// A PR's review threads, 100 per page, each with its first 100 comment ids (`fullDatabaseId`:
/// the 64-bit REST id; the 32-bit `databaseId` is deprecated and fails on real ids).
pub const THREADS_QUERY: &str =
    "query($owner: String!, $name: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $cursor) {
        pageInfo { hasNextPage endCursor }
        nodes {
          id isResolved isOutdated path
          comments(first: 100) { pageInfo { hasNextPage endCursor } nodes { fullDatabaseId } }
        }
      }
    }
  }
}";

/// The further comments of one thread with more than 100.
pub const THREAD_COMMENTS_QUERY: &str = "query($id: ID!, $cursor: String) {
  node(id: $id) {
    ... on PullRequestReviewThread {
      comments(first: 100, after: $cursor) { pageInfo { hasNextPage endCursor } nodes { fullDatabaseId } }
    }
  }
}";

pub const VIEWER_QUERY: &str = "query { viewer { login __typename } }";

/// Every GraphQL document the program sends.
pub const DOCUMENTS: [(&str, &str); 3] = [
    ("threads", THREADS_QUERY),
    ("thread comments", THREAD_COMMENTS_QUERY),
    ("viewer", VIEWER_QUERY),
];

/// Hard stop for a cursor chain: 1,000 pages of 100. Reaching it is an error, never a
/// partial list taken for the whole.
const MAX_PAGES: usize = 1000;

const ENDPOINT: &str = "GraphQL reviewThreads";

/// Every review thread of the PR, following both cursors (threads, and comments of a thread
/// with more than 100), and the parts GitHub could not give (a null node, a field error):
/// those are named, the rest is kept.
pub async fn fetch_threads(
    gh: &GitHub,
    target: &PrTarget,
) -> Result<(Vec<ReviewThread>, Vec<Unreadable>), GitHubError> {
    let mut threads = Vec::new();
    let mut lost = Vec::new();
    let mut cursors = Cursors::default();
    let mut cursor = Value::Null;
    loop {
        let variables = json!({
            "owner": target.owner, "name": target.repo,
            "number": target.number, "cursor": cursor,
        });
        let answer = gh.graphql(THREADS_QUERY, variables).await?;
        let Some(page) = answer.data.pointer("/repository/pullRequest/reviewThreads") else {
            return Err(GitHubError::GraphQl {
                endpoint: ENDPOINT.to_owned(),
                message: if answer.errors.is_empty() {
                    "no repository.pullRequest.reviewThreads in the response".to_owned()
                } else {
                    joined(&answer.errors)
                },
            });
        };
        let offset = threads.len();
        let named = field_errors(&answer.errors, offset);
        let nodes = page
            .get("nodes")
            .cloned()
            .unwrap_or(Value::Array(Vec::new()));
        let Value::Array(node_list) = &nodes else {
            return Err(GitHubError::Decode {
                endpoint: ENDPOINT.to_owned(),
                message: "reviewThreads.nodes is not a list".to_owned(),
            });
        };
        let mut batch = Vec::with_capacity(node_list.len());
        for (i, node) in node_list.iter().enumerate() {
            let place = format!("thread {}", offset + i + 1);
            if node.is_null() {
                // A field error nulled it; that error names it already.
                if !named.iter().any(|(at, _)| *at == Some(offset + i)) {
                    lost.push(lost_thread(&place, "null: GitHub could not give it"));
                }
                continue;
            }
            match serde_json::from_value::<ReviewThread>(node.clone()) {
                Ok(thread) => batch.push(thread),
                Err(err) => lost.push(lost_thread(&place, &gh.clean(&err.to_string()))),
            }
        }
        lost.extend(named.into_iter().map(|(_, lost)| lost));
        // Threads with more than 100 comments: the rest of their comments.
        let more: Vec<(usize, String, String)> = nodes
            .as_array()
            .into_iter()
            .flatten()
            .filter(|node| !node.is_null())
            .filter_map(|node| {
                let id = node.get("id")?.as_str()?.to_owned();
                let after = next_cursor(node.pointer("/comments/pageInfo")?)?;
                let index = batch.iter().position(|t| t.id == id)?;
                Some((index, id, after))
            })
            .collect();
        for (index, id, after) in more {
            match thread_comments(gh, &id, after).await {
                Ok(comments) => batch[index].comments.nodes.extend(comments),
                Err(err) => lost.push(lost_thread(&format!("thread {id}"), &err.to_string())),
            }
        }
        threads.extend(batch);
        match next_cursor(page.get("pageInfo").unwrap_or(&Value::Null)) {
            Some(next) => {
                cursors.advance(&next)?;
                cursor = Value::String(next);
            }
            None => return Ok((threads, lost)),
        }
    }
}

/// The comments of one thread after `after`, every page.
async fn thread_comments(
    gh: &GitHub,
    thread_id: &str,
    after: String,
) -> Result<Vec<api::ThreadComment>, GitHubError> {
    let mut comments = Vec::new();
    let mut cursors = Cursors::default();
    let mut cursor = after;
    cursors.advance(&cursor)?;
    loop {
        let answer = gh
            .graphql(
                THREAD_COMMENTS_QUERY,
                json!({ "id": thread_id, "cursor": cursor }),
            )
            .await?;
        let Some(connection) = answer.data.pointer("/node/comments") else {
            return Err(GitHubError::GraphQl {
                endpoint: ENDPOINT.to_owned(),
                message: format!("no comments for thread {thread_id}"),
            });
        };
        if !answer.errors.is_empty() {
            return Err(GitHubError::GraphQl {
                endpoint: ENDPOINT.to_owned(),
                message: joined(&answer.errors),
            });
        }
        let page: api::ThreadComments =
            serde_json::from_value(connection.clone()).map_err(|err| GitHubError::Decode {
                endpoint: ENDPOINT.to_owned(),
                message: gh.clean(&err.to_string()),
            })?;
        comments.extend(page.nodes);
        match next_cursor(connection.get("pageInfo").unwrap_or(&Value::Null)) {
            Some(next) => {
                cursors.advance(&next)?;
                cursor = next;
            }
            None => return Ok(comments),
        }
    }
}

/// The cursors of one chain: a repeated cursor or too many pages is an error.
#[derive(Default)]
struct Cursors {
    seen: HashSet<String>,
}

impl Cursors {
    fn advance(&mut self, cursor: &str) -> Result<(), GitHubError> {
        let incomplete = |message: String| GitHubError::Incomplete {
            endpoint: ENDPOINT.to_owned(),
            message,
        };
        if !self.seen.insert(cursor.to_owned()) {
            return Err(incomplete(
                "the cursor repeats a page already read".to_owned(),
            ));
        }
        if self.seen.len() >= MAX_PAGES {
            return Err(incomplete(format!("more than {MAX_PAGES} pages")));
        }
        Ok(())
    }
}

/// `endCursor` when `hasNextPage`.
fn next_cursor(page_info: &Value) -> Option<String> {
    let more = page_info.get("hasNextPage").and_then(Value::as_bool) == Some(true);
    match page_info.get("endCursor") {
        Some(Value::String(next)) if more => Some(next.clone()),
        _ => None,
    }
}

/// The field errors of one page as lost parts, with the index of the thread each points
/// into (`nodes.3...`: the page's fourth thread, `offset` threads after the first).
fn field_errors(errors: &[GraphQlError], offset: usize) -> Vec<(Option<usize>, Unreadable)> {
    errors
        .iter()
        .map(|e| {
            let within = e
                .path
                .iter()
                .skip_while(|p| p.as_str() != Some("nodes"))
                .nth(1)
                .and_then(Value::as_u64)
                .and_then(|i| usize::try_from(i).ok())
                .map(|i| offset + i);
            let place = match within {
                Some(i) => format!("thread {}", i + 1),
                None => "the page".to_owned(),
            };
            let path: Vec<String> = e
                .path
                .iter()
                .map(|p| p.as_str().map_or_else(|| p.to_string(), str::to_owned))
                .collect();
            let lost = Unreadable {
                surface: REVIEW_THREADS_SURFACE.to_owned(),
                id: None,
                login: None,
                reason: format!("{place} ({}): {}", path.join("."), e.message),
            };
            (within, lost)
        })
        .collect()
}

fn lost_thread(place: &str, why: &str) -> Unreadable {
    Unreadable {
        surface: REVIEW_THREADS_SURFACE.to_owned(),
        id: None,
        login: None,
        reason: format!("{place}: {why}"),
    }
}

/// The token's identity, or `github-actions[bot]` when GraphQL will not say.
pub async fn viewer(gh: &GitHub) -> Viewer {
    match gh.graphql(VIEWER_QUERY, json!({})).await {
        Ok(answer) => match answer.data.pointer("/viewer/login").and_then(Value::as_str) {
            Some(login) if !login.trim().is_empty() => Viewer::from_graphql(
                login,
                answer
                    .data
                    .pointer("/viewer/__typename")
                    .and_then(Value::as_str),
            ),
            _ => Viewer::actions(),
        },
        Err(err) => {
            tracing::warn!("could not read the token's login ({err}); assuming {ACTIONS_LOGIN}");
            Viewer::actions()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_errors_name_the_thread_they_lost() {
        let errors = vec![
            GraphQlError {
                message: "Something went wrong".into(),
                path: vec![
                    json!("repository"),
                    json!("pullRequest"),
                    json!("reviewThreads"),
                    json!("nodes"),
                    json!(2),
                    json!("comments"),
                ],
            },
            GraphQlError {
                message: "timeout".into(),
                path: Vec::new(),
            },
        ];
        let lost: Vec<Unreadable> = field_errors(&errors, 100)
            .into_iter()
            .map(|(at, lost)| {
                assert_eq!(at.is_some(), lost.reason.starts_with("thread"));
                lost
            })
            .collect();
        assert_eq!(
            lost[0].reason,
            "thread 103 (repository.pullRequest.reviewThreads.nodes.2.comments): Something went wrong"
        );
        assert_eq!(lost[1].reason, "the page (): timeout");
        assert!(lost.iter().all(|u| u.surface == REVIEW_THREADS_SURFACE));
    }

    #[test]
    fn a_cursor_chain_refuses_loops() {
        let mut cursors = Cursors::default();
        cursors.advance("a").unwrap();
        cursors.advance("b").unwrap();
        let err = cursors.advance("a").unwrap_err();
        assert!(err.to_string().contains("repeats"), "{err}");
        assert_eq!(
            next_cursor(&json!({"hasNextPage": false, "endCursor": "x"})),
            None
        );
        assert_eq!(
            next_cursor(&json!({"hasNextPage": true, "endCursor": "x"})),
            Some("x".to_owned())
        );
    }
}
