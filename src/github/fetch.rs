//! Reading one PR: the pull, its three comment lists (every page), code-scanning alerts and
//! review-thread state, the independent calls concurrently.

use serde_json::Value;

use super::{endpoint_name, threads, GitHub, GitHubError};
use crate::adapters::Needs;
use crate::api::{self, CodeScanning, PrSnapshot, PullRequest, Signals, Surface, Unreadable};
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

/// What a round of conditional requests cost: requests sent, and how many of them GitHub
/// answered 304 Not Modified (those do not count against the primary rate limit).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cost {
    pub requests: usize,
    pub not_modified: usize,
}

impl Cost {
    pub fn add(&mut self, other: Cost) {
        self.requests += other.requests;
        self.not_modified += other.not_modified;
    }
}

/// The last answer for one URL: its `ETag`, body and `Link: rel="next"`.
#[derive(Debug, Clone)]
struct Cached {
    url: String,
    etag: Option<String>,
    value: Value,
    next: Option<String>,
}

/// GET `url` with the cached ETag: a 304 reuses the cached answer (`true`: it did).
async fn get_cached(
    gh: &GitHub,
    url: &str,
    slot: &mut Option<Cached>,
    cost: &mut Cost,
) -> Result<(Cached, bool), GitHubError> {
    let known = slot.as_ref().filter(|c| c.url == url);
    let etag = known.and_then(|c| c.etag.clone());
    cost.requests += 1;
    match gh.read_if_changed(url, etag.as_deref()).await? {
        None => {
            cost.not_modified += 1;
            // A 304 only comes back for the ETag we sent, so the cached answer exists.
            let cached = known.cloned().ok_or_else(|| GitHubError::Decode {
                endpoint: endpoint_name(&http::Method::GET, url),
                message: "304 Not Modified without a cached answer".to_owned(),
            })?;
            Ok((cached, true))
        }
        Some(reply) => {
            let endpoint = endpoint_name(&http::Method::GET, url);
            let next = reply.header("link").and_then(next_link).map(str::to_owned);
            if let Some(next) = &next {
                if !gh.same_origin(next) {
                    return Err(GitHubError::Decode {
                        endpoint,
                        message: format!("`Link` points to another host: {next}"),
                    });
                }
            }
            let cached = Cached {
                url: url.to_owned(),
                etag: reply.header("etag").map(str::to_owned),
                value: reply.json(&endpoint)?,
                next,
            };
            *slot = Some(cached.clone());
            Ok((cached, false))
        }
    }
}

/// One list read page by page with ETags, so reading it again costs 304s when nothing
/// changed. `field` names the array inside an object answer (`check_runs`).
#[derive(Debug, Default)]
pub struct ConditionalList {
    pages: Vec<Option<Cached>>,
}

impl ConditionalList {
    pub async fn read(
        &mut self,
        gh: &GitHub,
        first: &str,
        field: Option<&str>,
        cost: &mut Cost,
    ) -> Result<Vec<Value>, GitHubError> {
        let mut items = Vec::new();
        let mut url = Some(first.to_owned());
        let mut index = 0;
        while let Some(target) = url.take() {
            if index >= MAX_PAGES {
                tracing::warn!("{target}: stopped after {MAX_PAGES} pages");
                break;
            }
            if self.pages.len() <= index {
                self.pages.push(None);
            }
            let (mut page, unchanged) =
                get_cached(gh, &target, &mut self.pages[index], cost).await?;
            // A full last page that did not change may have grown a next page (whose link
            // only a fresh answer carries): ask once without the ETag.
            let full = page.value.as_array().is_some_and(|a| a.len() >= PER_PAGE);
            if page.next.is_none() && full && unchanged {
                self.pages[index] = None;
                page = get_cached(gh, &target, &mut self.pages[index], cost)
                    .await?
                    .0;
            }
            let endpoint = endpoint_name(&http::Method::GET, &target);
            let list = match field {
                Some(field) => page.value.get(field).cloned().unwrap_or(Value::Null),
                None => page.value.clone(),
            };
            match list {
                Value::Array(page_items) => items.extend(page_items),
                other => {
                    return Err(GitHubError::Decode {
                        endpoint,
                        message: format!("expected a JSON array, got {}", kind(&other)),
                    })
                }
            }
            url = page.next.clone();
            index += 1;
        }
        self.pages.truncate(index);
        Ok(items)
    }
}

/// One object (the pull) read with its ETag, so reading it again costs a 304.
#[derive(Debug, Default)]
pub struct ConditionalObject {
    slot: Option<Cached>,
}

impl ConditionalObject {
    pub async fn read(
        &mut self,
        gh: &GitHub,
        url: &str,
        cost: &mut Cost,
    ) -> Result<Value, GitHubError> {
        Ok(get_cached(gh, url, &mut self.slot, cost).await?.0.value)
    }
}

/// Items per page asked for (GitHub's maximum).
const PER_PAGE: usize = 100;

/// The conditional caches of the completion-signal surfaces, kept across polls.
#[derive(Debug, Default)]
pub struct SignalCache {
    reactions: ConditionalList,
    check_runs: ConditionalList,
    statuses: ConditionalList,
    /// `(sha, committer date)` of the head commit: it never changes for a sha.
    head_commit: Option<(String, Option<String>)>,
}

/// The surfaces `needs` asks for: reactions on the PR, check runs and statuses on `head_sha`
/// (and the head commit's date when reactions are read). One that cannot be read (403
/// without `checks: read`, 404, a failure) is `Unread` with the reason, never fatal: the
/// bots' comments still decide, and the source's notes say what was missing.
pub async fn fetch_signals(
    gh: &GitHub,
    target: &PrTarget,
    head_sha: &str,
    needs: Needs,
    cache: &mut SignalCache,
    cost: &mut Cost,
) -> Signals {
    let repo = format!("/repos/{}/{}", target.owner, target.repo);
    let reactions_path = format!("{repo}/issues/{}/reactions?per_page=100", target.number);
    let check_runs_path = format!("{repo}/commits/{head_sha}/check-runs?per_page=100");
    let statuses_path = format!("{repo}/commits/{head_sha}/statuses?per_page=100");
    let commits_path = format!("{repo}/pulls/{}/commits?per_page=100", target.number);
    let known_commit = cache
        .head_commit
        .as_ref()
        .filter(|(sha, _)| sha == head_sha)
        .map(|(_, date)| date.clone());
    let (mut c1, mut c2, mut c3, mut c4) = (
        Cost::default(),
        Cost::default(),
        Cost::default(),
        Cost::default(),
    );
    let SignalCache {
        reactions,
        check_runs,
        statuses,
        ..
    } = cache;
    let (reactions, check_runs, statuses, committed_at) = tokio::join!(
        optional(needs.reactions, "reactions", async {
            reactions.read(gh, &reactions_path, None, &mut c1).await
        }),
        optional(needs.check_runs, "check runs", async {
            check_runs
                .read(gh, &check_runs_path, Some("check_runs"), &mut c2)
                .await
        }),
        optional(needs.statuses, "commit statuses", async {
            statuses.read(gh, &statuses_path, None, &mut c3).await
        }),
        async {
            match (needs.reactions, known_commit) {
                (false, _) => None,
                (true, Some(date)) => Some(date),
                (true, None) => Some(head_commit_date(gh, &commits_path, head_sha, &mut c4).await),
            }
        },
    );
    for c in [c1, c2, c3, c4] {
        cost.add(c);
    }
    if let Some(date) = &committed_at {
        cache.head_commit = Some((head_sha.to_owned(), date.clone()));
    }
    let mut unreadable = Vec::new();
    let signals = Signals {
        reactions: surface("reactions", reactions, &mut unreadable),
        check_runs: surface("check_runs", check_runs, &mut unreadable),
        statuses: surface("statuses", statuses, &mut unreadable),
        head_committed_at: committed_at.flatten(),
    };
    for item in unreadable {
        tracing::warn!(
            "skipped an unreadable {} object (id {:?}): {}",
            item.surface,
            item.id,
            item.reason
        );
    }
    signals
}

/// A surface's items, or why it was not read (`None`: not asked for).
async fn optional(
    needed: bool,
    name: &str,
    read: impl std::future::Future<Output = Result<Vec<Value>, GitHubError>>,
) -> Option<Result<Vec<Value>, String>> {
    if !needed {
        return None;
    }
    Some(read.await.map_err(|err| {
        if matches!(err.status(), Some(403 | 404)) {
            tracing::info!("{name} unavailable: {err}");
        } else {
            tracing::warn!("{name} could not be read: {err}");
        }
        err.to_string()
    }))
}

fn surface<T: serde::de::DeserializeOwned>(
    name: &str,
    read: Option<Result<Vec<Value>, String>>,
    unreadable: &mut Vec<Unreadable>,
) -> Surface<T> {
    match read {
        None => Surface::default(),
        Some(Ok(items)) => {
            let (good, bad) = api::parse_list(name, items);
            unreadable.extend(bad);
            Surface::Read(good)
        }
        Some(Err(reason)) => Surface::Unread(reason),
    }
}

/// The head commit's committer date, from the PR's commit list (oldest first, so the head is
/// on the first page or the last; `pull-requests: read` suffices, unlike `git/commits`).
/// Unknown (`None`) when it cannot be read: reactions then count for the head.
async fn head_commit_date(
    gh: &GitHub,
    first: &str,
    head_sha: &str,
    cost: &mut Cost,
) -> Option<String> {
    let date_in = |page: &Value| {
        page.as_array()?
            .iter()
            .find(|c| c.get("sha").and_then(Value::as_str) == Some(head_sha))?
            .pointer("/commit/committer/date")
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let mut target = first.to_owned();
    for _ in 0..2 {
        cost.requests += 1;
        let reply = match gh.read(&target).await {
            Ok(reply) => reply,
            Err(err) => {
                tracing::warn!("the head commit's date is unknown, reactions count for it: {err}");
                return None;
            }
        };
        let endpoint = endpoint_name(&http::Method::GET, &target);
        if let Some(date) = reply.json(&endpoint).ok().as_ref().and_then(date_in) {
            return Some(date);
        }
        match reply.header("link").and_then(|h| link(h, "last")) {
            Some(last) if last != target && gh.same_origin(last) => target = last.to_owned(),
            _ => break,
        }
    }
    tracing::warn!("the head commit is not in the PR's commit list; reactions count for it");
    None
}

/// The URL of a `Link` header's `rel` (`next`, `last`).
fn link<'a>(header: &'a str, rel: &str) -> Option<&'a str> {
    header.split(',').find_map(|part| {
        let (url, params) = part.split_once(';')?;
        let matches = params.split(';').any(|p| {
            let p = p.trim();
            p == format!("rel=\"{rel}\"") || p == format!("rel={rel}")
        });
        matches.then(|| url.trim().trim_start_matches('<').trim_end_matches('>'))
    })
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
