//! Reading one PR: the pull, its three comment lists (every page), code-scanning alerts and
//! review-thread state, the independent calls concurrently.

use serde_json::Value;

use super::{endpoint_name, threads, GitHub, GitHubError};
use crate::api::{self, CodeScanning, PrSnapshot, PullRequest, Unreadable};
use crate::config::PrTarget;

/// Safety stop for `Link` chains (100 pages of 100 = 10,000 items).
const MAX_PAGES: usize = 100;

/// Everything the adapters read about the PR.
pub async fn fetch_snapshot(gh: &GitHub, target: &PrTarget) -> Result<PrSnapshot, GitHubError> {
    let repo = format!("/repos/{}/{}", target.owner, target.repo);
    let n = target.number;
    let pull_path = format!("{repo}/pulls/{n}");
    let review_comments_path = format!("{repo}/pulls/{n}/comments?per_page=100");
    let reviews_path = format!("{repo}/pulls/{n}/reviews?per_page=100");
    let issue_comments_path = format!("{repo}/issues/{n}/comments?per_page=100");
    let (pull, review_comments, reviews, issue_comments, code_scanning, review_threads) = tokio::join!(
        fetch_pull(gh, &pull_path),
        list_all(gh, &review_comments_path),
        list_all(gh, &reviews_path),
        list_all(gh, &issue_comments_path),
        fetch_code_scanning(gh, target),
        threads::fetch_threads(gh, target),
    );
    let mut unreadable = Vec::new();
    let review_comments = keep("review_comments", review_comments?, &mut unreadable);
    let reviews = keep("reviews", reviews?, &mut unreadable);
    let issue_comments = keep("issue_comments", issue_comments?, &mut unreadable);
    let code_scanning = match code_scanning {
        CodeScanningFetch::Alerts(items) => {
            CodeScanning::Alerts(keep("code_scanning_alerts", items, &mut unreadable))
        }
        CodeScanningFetch::Unavailable(reason) => CodeScanning::Unavailable(reason),
    };
    let review_threads = match review_threads {
        Ok(threads) => Some(threads),
        Err(err) => {
            tracing::warn!("review-thread state unavailable, resolved/outdated unknown: {err}");
            None
        }
    };
    Ok(PrSnapshot {
        repository: target.full_name(),
        pull: pull?,
        review_comments,
        reviews,
        issue_comments,
        code_scanning,
        review_threads,
        unreadable,
        signals: Default::default(),
    })
}

fn keep<T: serde::de::DeserializeOwned>(
    surface: &str,
    items: Vec<Value>,
    unreadable: &mut Vec<Unreadable>,
) -> Vec<T> {
    let (good, bad) = api::parse_list(surface, items);
    for item in &bad {
        tracing::warn!(
            "skipped an unreadable {surface} object (id {:?}): {}",
            item.id,
            item.reason
        );
    }
    unreadable.extend(bad);
    good
}

async fn fetch_pull(gh: &GitHub, path: &str) -> Result<PullRequest, GitHubError> {
    let reply = gh.read(path).await?;
    let value = reply.json(&endpoint_name(&http::Method::GET, path))?;
    serde_json::from_value(value).map_err(|err| GitHubError::Decode {
        endpoint: endpoint_name(&http::Method::GET, path),
        message: err.to_string(),
    })
}

/// GET a list and every page after it, following `Link: <...>; rel="next"`.
pub async fn list_all(gh: &GitHub, first: &str) -> Result<Vec<Value>, GitHubError> {
    let mut items = Vec::new();
    let mut next = Some(first.to_owned());
    let mut pages = 0;
    while let Some(target) = next.take() {
        let endpoint = endpoint_name(&http::Method::GET, &target);
        let reply = gh.read(&target).await?;
        match reply.json(&endpoint)? {
            Value::Array(page) => items.extend(page),
            other => {
                return Err(GitHubError::Decode {
                    endpoint,
                    message: format!("expected a JSON array, got {}", kind(&other)),
                })
            }
        }
        pages += 1;
        next = reply.header("link").and_then(next_link).map(str::to_owned);
        if let Some(url) = &next {
            if !gh.same_origin(url) {
                return Err(GitHubError::Decode {
                    endpoint,
                    message: format!("`Link` points to another host: {url}"),
                });
            }
            if pages >= MAX_PAGES {
                tracing::warn!("{endpoint}: stopped after {MAX_PAGES} pages");
                next = None;
            }
        }
    }
    Ok(items)
}

/// The `rel="next"` URL of a `Link` header.
pub fn next_link(header: &str) -> Option<&str> {
    header.split(',').find_map(|part| {
        let (url, params) = part.split_once(';')?;
        let is_next = params
            .split(';')
            .any(|p| matches!(p.trim(), "rel=\"next\"" | "rel=next"));
        is_next.then(|| url.trim().trim_start_matches('<').trim_end_matches('>'))
    })
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

enum CodeScanningFetch {
    Alerts(Vec<Value>),
    Unavailable(String),
}

/// Alerts on the PR's merge ref. 403/404 (not enabled, no access) = source absent; any
/// other failure is also not fatal, only louder.
async fn fetch_code_scanning(gh: &GitHub, target: &PrTarget) -> CodeScanningFetch {
    let path = format!(
        "/repos/{}/{}/code-scanning/alerts?ref=refs/pull/{}/merge&per_page=100",
        target.owner, target.repo, target.number
    );
    match list_all(gh, &path).await {
        Ok(items) => CodeScanningFetch::Alerts(items),
        Err(err) if matches!(err.status(), Some(403 | 404)) => {
            tracing::info!("code scanning unavailable: {err}");
            CodeScanningFetch::Unavailable(err.to_string())
        }
        Err(err) => {
            tracing::warn!("code scanning alerts could not be read: {err}");
            CodeScanningFetch::Unavailable(err.to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_link_picks_rel_next() {
        let header = r#"<https://api.github.com/r?page=2>; rel="next", <https://api.github.com/r?page=5>; rel="last""#;
        assert_eq!(next_link(header), Some("https://api.github.com/r?page=2"));
        let last = r#"<https://api.github.com/r?page=1>; rel="prev", <https://api.github.com/r?page=1>; rel="first""#;
        assert_eq!(next_link(last), None);
        assert_eq!(next_link(""), None);
    }
}
