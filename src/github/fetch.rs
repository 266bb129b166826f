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
use super::{endpoint_name, threads, GitHub, GitHubError, Reply};
use crate::adapters::Needs;
use crate::api::{
    self, CodeScanning, Element, PrSnapshot, PullRequest, Signals, Surface, Unreadable,
    REVIEW_THREADS_SURFACE,
};
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
        signals: Signals::default(),
        viewer: None,
    })
}

/// The readable items of a list; the others are reported (their reasons quote API data:
/// cleaned like any server text).
fn keep<T: serde::de::DeserializeOwned>(
    gh: &GitHub,
    surface: &str,
    items: Vec<Element>,
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
/// each once (by `id`, or `number` for alerts), or an error. Items are read one by one
/// (`GitHub::list`): one that cannot be built is left to `api::parse_list` to report.
pub async fn list_all(gh: &GitHub, first: &str) -> Result<Vec<Element>, GitHubError> {
    let mut pages = Pages::new(gh);
    let mut next = Some(first.to_owned());
    while let Some(target) = next.take() {
        pages.enter(&target)?;
        let endpoint = endpoint_name(&http::Method::GET, &target);
        let reply = gh.read(&target).await?;
        pages.add(gh.list(&reply, &endpoint, &[])?);
        next = next_page(gh, &endpoint, &reply)?;
    }
    Ok(pages.items)
}

/// What every paged read keeps to: each page once (a `Link` back to a page already read is
/// a loop), at most `MAX_PAGES`, each item once. Breaking a rule is an error: the list is
/// then not known whole, and a part is never taken for it.
pub(super) struct Pages<'a> {
    gh: &'a GitHub,
    seen: HashSet<String>,
    ids: HashSet<u64>,
    items: Vec<Element>,
}

impl<'a> Pages<'a> {
    pub(super) fn new(gh: &'a GitHub) -> Pages<'a> {
        Pages {
            gh,
            seen: HashSet::new(),
            ids: HashSet::new(),
            items: Vec::new(),
        }
    }

    /// Before reading `target`.
    pub(super) fn enter(&mut self, target: &str) -> Result<(), GitHubError> {
        let incomplete = |message: String| GitHubError::Incomplete {
            endpoint: endpoint_name(&http::Method::GET, target),
            message,
        };
        if !self.seen.insert(page_key(self.gh, target)) {
            return Err(incomplete(format!(
                "`Link` leads back to a page already read ({})",
                self.gh.clean(target)
            )));
        }
        if self.seen.len() > MAX_PAGES {
            return Err(incomplete(format!(
                "more than {MAX_PAGES} pages; refusing to decide on part of the list"
            )));
        }
        Ok(())
    }

    /// A page's items, those not already read.
    fn add(&mut self, page: Vec<Element>) {
        for item in page {
            if item.id().is_none_or(|id| self.ids.insert(id)) {
                self.items.push(item);
            }
        }
    }
}

/// The `rel="next"` page of a reply, when it is on our host (the token goes there).
pub(super) fn next_page(
    gh: &GitHub,
    endpoint: &str,
    reply: &Reply,
) -> Result<Option<String>, GitHubError> {
    let next = reply.header("link").and_then(next_link).map(str::to_owned);
    match next {
        Some(url) if !gh.same_origin(&url) => Err(GitHubError::Decode {
            endpoint: endpoint.to_owned(),
            message: format!("`Link` points to another host: {}", gh.clean(&url)),
        }),
        next => Ok(next),
    }
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
    link(header, "next")
}

enum CodeScanningFetch {
    Alerts(Vec<Element>),
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

/// The last answer for one URL: its `ETag`, content as read and `Link: rel="next"`.
#[derive(Debug, Clone)]
struct Cached<T> {
    url: String,
    etag: Option<String>,
    content: T,
    next: Option<String>,
}

/// GET `url` with the cached ETag: a 304 reuses the cached answer (`true`: it did); a fresh
/// answer is read with `read`.
async fn get_cached<T: Clone>(
    gh: &GitHub,
    url: &str,
    slot: &mut Option<Cached<T>>,
    cost: &mut Cost,
    read: impl Fn(&Reply, &str) -> Result<T, GitHubError>,
) -> Result<(Cached<T>, bool), GitHubError> {
    let known = slot.as_ref().filter(|c| c.url == url);
    let etag = known.and_then(|c| c.etag.clone());
    let endpoint = endpoint_name(&http::Method::GET, url);
    cost.requests += 1;
    match gh.read_if_changed(url, etag.as_deref()).await? {
        None => {
            cost.not_modified += 1;
            // A 304 only comes back for the ETag we sent, so the cached answer exists.
            let cached = known.cloned().ok_or_else(|| GitHubError::Decode {
                endpoint,
                message: "304 Not Modified without a cached answer".to_owned(),
            })?;
            Ok((cached, true))
        }
        Some(reply) => {
            let cached = Cached {
                url: url.to_owned(),
                etag: reply.header("etag").map(str::to_owned),
                content: read(&reply, &endpoint)?,
                next: next_page(gh, &endpoint, &reply)?,
            };
            *slot = Some(cached.clone());
            Ok((cached, false))
        }
    }
}

/// One list read page by page with ETags, so reading it again costs 304s when nothing
/// changed; whole or not at all, like `list_all`, and item by item like it. `field` names
/// the array inside an object answer (`check_runs`).
#[derive(Debug, Default)]
pub struct ConditionalList {
    pages: Vec<Option<Cached<Vec<Element>>>>,
}

impl ConditionalList {
    pub async fn read(
        &mut self,
        gh: &GitHub,
        first: &str,
        field: Option<&str>,
        cost: &mut Cost,
    ) -> Result<Vec<Element>, GitHubError> {
        let path: Vec<&str> = field.into_iter().collect();
        let read = |reply: &Reply, endpoint: &str| gh.list(reply, endpoint, &path);
        let mut pages = Pages::new(gh);
        let mut url = Some(first.to_owned());
        let mut index = 0;
        while let Some(target) = url.take() {
            pages.enter(&target)?;
            if self.pages.len() <= index {
                self.pages.push(None);
            }
            let (mut page, unchanged) =
                get_cached(gh, &target, &mut self.pages[index], cost, read).await?;
            // A full last page that did not change may have grown a next page (whose link
            // only a fresh answer carries): ask once without the ETag.
            let full = page.content.len() >= PER_PAGE;
            if page.next.is_none() && full && unchanged {
                self.pages[index] = None;
                page = get_cached(gh, &target, &mut self.pages[index], cost, read)
                    .await?
                    .0;
            }
            pages.add(page.content);
            url = page.next.clone();
            index += 1;
        }
        self.pages.truncate(index);
        Ok(pages.items)
    }
}

/// One object (the pull) read with its ETag, so reading it again costs a 304.
#[derive(Debug, Default)]
pub struct ConditionalObject {
    slot: Option<Cached<Value>>,
}

impl ConditionalObject {
    pub async fn read(
        &mut self,
        gh: &GitHub,
        url: &str,
        cost: &mut Cost,
    ) -> Result<Value, GitHubError> {
        let read = |reply: &Reply, endpoint: &str| gh.json(reply, endpoint);
        Ok(get_cached(gh, url, &mut self.slot, cost, read)
            .await?
            .0
            .content)
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
/// without `checks: read`, 404, a failure, a list not read whole) is `Unread` with the
/// reason, never fatal: the bots' comments still decide, and the source's notes say what was
/// missing.
pub async fn fetch_signals(
    gh: &GitHub,
    target: &PrTarget,
    head_sha: &str,
    needs: Needs,
    cache: &mut SignalCache,
    cost: &mut Cost,
) -> Signals {
    let n = target.number.to_string();
    let (owner, repo) = (target.owner.as_str(), target.repo.as_str());
    let listed = |route: Route, params: &[&str]| format!("{}?per_page=100", route.fill(params));
    let reactions_path = listed(routes::ISSUE_REACTIONS, &[owner, repo, &n]);
    let check_runs_path = listed(routes::COMMIT_CHECK_RUNS, &[owner, repo, head_sha]);
    let statuses_path = listed(routes::COMMIT_STATUSES, &[owner, repo, head_sha]);
    let commits_path = listed(routes::PULL_COMMITS, &[owner, repo, &n]);
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
    Signals {
        reactions: surface(gh, "reactions", reactions),
        check_runs: surface(gh, "check_runs", check_runs),
        statuses: surface(gh, "statuses", statuses),
        head_committed_at: committed_at.flatten(),
    }
}

/// A surface's items, or why it was not read (`None`: not asked for).
async fn optional(
    needed: bool,
    name: &str,
    read: impl std::future::Future<Output = Result<Vec<Element>, GitHubError>>,
) -> Option<Result<Vec<Element>, String>> {
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

/// The readable items of a surface (the others are logged, cleaned, and left out).
fn surface<T: serde::de::DeserializeOwned>(
    gh: &GitHub,
    name: &str,
    read: Option<Result<Vec<Element>, String>>,
) -> Surface<T> {
    match read {
        None => Surface::default(),
        Some(Ok(items)) => Surface::Read(keep(gh, name, items, &mut Vec::new())),
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
        if let Some(date) = gh.json(&reply, &endpoint).ok().as_ref().and_then(date_in) {
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
