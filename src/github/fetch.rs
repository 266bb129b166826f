//! Reading one PR: the pull, its three comment lists (every page), code-scanning alerts and
//! review-thread state, the independent calls concurrently.
//!
//! A list is read whole or not at all: every `Link` page is followed, a page that comes back
//! twice or a chain longer than `MAX_PAGES` is an error (never a partial list taken for the
//! whole, which would let a flood of comments hide findings), and items repeated across
//! pages are kept once.

use std::collections::HashSet;

use serde_json::Value;

use super::routes::{self, Route};
use super::{endpoint_name, threads, GitHub, GitHubError};
use crate::api::REVIEW_THREADS_SURFACE;
use crate::api::{self, CodeScanning, PrSnapshot, PullRequest, Unreadable};
use crate::config::PrTarget;

/// Hard stop for `Link` chains: 1,000 pages of 100 = 100,000 items. Reaching it fails the
/// run (the gate is never decided on what was read so far).
pub const MAX_PAGES: usize = 1000;

/// Unreadable objects logged one by one; the rest are counted.
const LOGGED_UNREADABLE: usize = 5;

/// Everything the adapters read about the PR.
pub async fn fetch_snapshot(gh: &GitHub, target: &PrTarget) -> Result<PrSnapshot, GitHubError> {
    let n = target.number.to_string();
    let params = [target.owner.as_str(), target.repo.as_str(), n.as_str()];
    let listed = |route: Route| format!("{}?per_page=100", route.fill(&params));
    let (pull_path, review_comments_path, reviews_path, issue_comments_path) = (
        routes::PULL.fill(&params),
        listed(routes::REVIEW_COMMENTS),
        listed(routes::REVIEWS),
        listed(routes::ISSUE_COMMENTS),
    );
    let (pull, review_comments, reviews, issue_comments, code_scanning, review_threads) = tokio::join!(
        fetch_pull(gh, &pull_path),
        list_all(gh, &review_comments_path),
        list_all(gh, &reviews_path),
        list_all(gh, &issue_comments_path),
        fetch_code_scanning(gh, target),
        threads::fetch_threads(gh, target),
    );
    let mut unreadable = Vec::new();
    let review_comments = keep(gh, "review_comments", review_comments?, &mut unreadable);
    let reviews = keep(gh, "reviews", reviews?, &mut unreadable);
    let issue_comments = keep(gh, "issue_comments", issue_comments?, &mut unreadable);
    let code_scanning = match code_scanning? {
        CodeScanningFetch::Alerts(items) => {
            CodeScanning::Alerts(keep(gh, api::CODE_SCANNING_SURFACE, items, &mut unreadable))
        }
        CodeScanningFetch::Unavailable(reason) => CodeScanning::Unavailable(reason),
    };
    let review_threads = match review_threads {
        Ok((threads, lost)) => {
            if !lost.is_empty() {
                tracing::warn!(
                    "review-thread state: {} part(s) GitHub could not give, their comments are counted as unresolved: {}",
                    lost.len(),
                    lost.iter().take(LOGGED_UNREADABLE).map(|u| u.reason.as_str()).collect::<Vec<_>>().join("; ")
                );
            }
            unreadable.extend(lost);
            Some(threads)
        }
        Err(err) => {
            tracing::warn!("review-thread state unavailable, resolved/outdated unknown: {err}");
            unreadable.push(Unreadable {
                surface: REVIEW_THREADS_SURFACE.to_owned(),
                id: None,
                login: None,
                reason: format!("unavailable: {err}"),
            });
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
        viewer: None,
    })
}

/// The readable items of a list; the others are reported (their reasons quote API data:
/// cleaned like any server text).
fn keep<T: serde::de::DeserializeOwned>(
    gh: &GitHub,
    surface: &str,
    items: Vec<Value>,
    unreadable: &mut Vec<Unreadable>,
) -> Vec<T> {
    let (good, mut bad) = api::parse_list(surface, items);
    for item in &mut bad {
        item.reason = gh.clean(&item.reason);
    }
    for item in bad.iter().take(LOGGED_UNREADABLE) {
        tracing::warn!(
            "skipped an unreadable {surface} object (id {:?}): {}",
            item.id,
            item.reason
        );
    }
    if bad.len() > LOGGED_UNREADABLE {
        tracing::warn!(
            "skipped {} more unreadable {surface} objects",
            bad.len() - LOGGED_UNREADABLE
        );
    }
    unreadable.extend(bad);
    good
}

async fn fetch_pull(gh: &GitHub, path: &str) -> Result<PullRequest, GitHubError> {
    let endpoint = endpoint_name(&http::Method::GET, path);
    let reply = gh.read(path).await?;
    let value = gh.json(&reply, &endpoint)?;
    serde_json::from_value(value).map_err(|err| gh.decode_error(&endpoint, &err))
}

/// GET a list and every page after it, following `Link: <...>; rel="next"`: every item,
/// each once (by `id`, or `number` for alerts), or an error.
pub async fn list_all(gh: &GitHub, first: &str) -> Result<Vec<Value>, GitHubError> {
    let mut items = Vec::new();
    let mut ids = HashSet::new();
    let mut pages = HashSet::new();
    let mut next = Some(first.to_owned());
    while let Some(target) = next.take() {
        let endpoint = endpoint_name(&http::Method::GET, &target);
        let incomplete = |message: String| GitHubError::Incomplete {
            endpoint: endpoint.clone(),
            message,
        };
        if !pages.insert(page_key(gh, &target)) {
            return Err(incomplete(format!(
                "`Link` leads back to a page already read ({})",
                gh.clean(&target)
            )));
        }
        if pages.len() > MAX_PAGES {
            return Err(incomplete(format!(
                "more than {MAX_PAGES} pages; refusing to decide on part of the list"
            )));
        }
        let reply = gh.read(&target).await?;
        match gh.json(&reply, &endpoint)? {
            Value::Array(page) => {
                for item in page {
                    let id = item
                        .get("id")
                        .or_else(|| item.get("number"))
                        .and_then(Value::as_u64);
                    if id.is_none_or(|id| ids.insert(id)) {
                        items.push(item);
                    }
                }
            }
            other => {
                return Err(GitHubError::Decode {
                    endpoint,
                    message: format!("expected a JSON array, got {}", kind(&other)),
                })
            }
        }
        next = reply.header("link").and_then(next_link).map(str::to_owned);
        if let Some(url) = &next {
            if !gh.same_origin(url) {
                return Err(GitHubError::Decode {
                    endpoint,
                    message: format!("`Link` points to another host: {}", gh.clean(url)),
                });
            }
        }
    }
    Ok(items)
}

/// A page's identity: its URL made absolute, so the first (a path) and a `Link` back to it
/// (a URL) compare equal.
fn page_key(gh: &GitHub, target: &str) -> String {
    if target.starts_with("http://") || target.starts_with("https://") {
        target.to_owned()
    } else {
        format!("{}{target}", gh.api_url())
    }
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
/// other failure is also not fatal, only louder; but a list that could not be read whole
/// is an error like any other.
async fn fetch_code_scanning(
    gh: &GitHub,
    target: &PrTarget,
) -> Result<CodeScanningFetch, GitHubError> {
    let path = format!(
        "{}?ref=refs/pull/{}/merge&per_page=100",
        routes::CODE_SCANNING_ALERTS.fill(&[&target.owner, &target.repo]),
        target.number
    );
    match list_all(gh, &path).await {
        Ok(items) => Ok(CodeScanningFetch::Alerts(items)),
        Err(err @ (GitHubError::Incomplete { .. } | GitHubError::Deadline { .. })) => Err(err),
        Err(err) if matches!(err.status(), Some(403 | 404)) => {
            tracing::info!("code scanning unavailable: {err}");
            Ok(CodeScanningFetch::Unavailable(err.to_string()))
        }
        Err(err) => {
            tracing::warn!("code scanning alerts could not be read: {err}");
            Ok(CodeScanningFetch::Unavailable(err.to_string()))
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
