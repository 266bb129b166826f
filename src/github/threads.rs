//! GraphQL reads: review-thread state (only GraphQL knows `isResolved`/`isOutdated`) and the
//! token's own login (`GET /user` is forbidden for Actions tokens).

use serde_json::{json, Value};

use super::{GitHub, GitHubError};
use crate::api::ReviewThread;
use crate::config::PrTarget;

/// Fields kept to ones old GHES versions have.
const THREADS_QUERY: &str =
    "query($owner: String!, $name: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $cursor) {
        pageInfo { hasNextPage endCursor }
        nodes { id isResolved isOutdated path comments(first: 100) { nodes { databaseId } } }
      }
    }
  }
}";

const VIEWER_QUERY: &str = "query { viewer { login } }";

/// The login GitHub Actions' token posts as, when the viewer query fails.
pub const ACTIONS_LOGIN: &str = "github-actions[bot]";

/// Safety stop for the thread cursor (100 pages of 100 threads).
const MAX_PAGES: usize = 100;

/// Every review thread of the PR, following the cursor.
pub async fn fetch_threads(
    gh: &GitHub,
    target: &PrTarget,
) -> Result<Vec<ReviewThread>, GitHubError> {
    let mut threads = Vec::new();
    let mut cursor = Value::Null;
    for _ in 0..MAX_PAGES {
        let variables = json!({
            "owner": target.owner, "name": target.repo,
            "number": target.number, "cursor": cursor,
        });
        let data = gh.graphql(THREADS_QUERY, variables).await?;
        let page = data
            .pointer("/repository/pullRequest/reviewThreads")
            .ok_or_else(|| GitHubError::Decode {
                endpoint: "GraphQL reviewThreads".to_owned(),
                message: "no repository.pullRequest.reviewThreads in the response".to_owned(),
            })?;
        let nodes = page
            .get("nodes")
            .cloned()
            .unwrap_or(Value::Array(Vec::new()));
        let batch: Vec<ReviewThread> =
            serde_json::from_value(nodes).map_err(|err| GitHubError::Decode {
                endpoint: "GraphQL reviewThreads".to_owned(),
                message: err.to_string(),
            })?;
        threads.extend(batch);
        let more = page
            .pointer("/pageInfo/hasNextPage")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        match page.pointer("/pageInfo/endCursor") {
            Some(Value::String(next)) if more => cursor = Value::String(next.clone()),
            _ => return Ok(threads),
        }
    }
    tracing::warn!("review threads: stopped after {MAX_PAGES} pages");
    Ok(threads)
}

/// The token's login, or `github-actions[bot]` when GraphQL will not say.
pub async fn viewer_login(gh: &GitHub) -> String {
    match gh.graphql(VIEWER_QUERY, json!({})).await {
        Ok(data) => match data.pointer("/viewer/login").and_then(Value::as_str) {
            Some(login) if !login.is_empty() => login.to_owned(),
            _ => ACTIONS_LOGIN.to_owned(),
        },
        Err(err) => {
            tracing::warn!("could not read the token's login ({err}); assuming {ACTIONS_LOGIN}");
            ACTIONS_LOGIN.to_owned()
        }
    }
}

/// Logins compare without the `[bot]` suffix (GraphQL omits it, REST has it), ignoring case.
pub fn same_login(a: &str, b: &str) -> bool {
    let strip = |s: &str| s.trim().trim_end_matches("[bot]").to_ascii_lowercase();
    strip(a) == strip(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logins_match_with_or_without_bot_suffix() {
        assert!(same_login("github-actions[bot]", "github-actions"));
        assert!(same_login("GitHub-Actions", "github-actions[bot]"));
        assert!(!same_login("github-actions[bot]", "coderabbitai[bot]"));
        assert!(!same_login("octo", "octocat"));
    }
}
