//! The pull requests merged in a window, for `stats`.
//!
//! `GET /repos/{o}/{r}/pulls?state=closed&sort=updated&direction=desc`, page by page, until a
//! page reaches PRs last updated before the window. Chosen over the search API
//! (`is:pr is:merged merged:>=DATE`), which has its own limit of 30 requests a minute and
//! returns at most 1,000 results: this list costs one core-limit request per 100 closed PRs
//! and has no cap. It is complete for the window because a PR merged at `t` was updated at or
//! after `t`, so it sorts before every PR updated before the window starts.

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;

use super::fetch::{next_page, Pages};
use super::{endpoint_name, routes, GitHub, GitHubError};
use crate::api::Element;

/// One merged PR of the window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergedPull {
    pub number: u64,
    pub merged_at: DateTime<Utc>,
}

/// What the listing gave: the merged PRs (newest merge first, each once) and the closed
/// PRs that could not be read (their numbers when known).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MergedListing {
    pub pulls: Vec<MergedPull>,
    pub unreadable: Vec<String>,
    /// Listing pages read (requests, retries aside).
    pub pages: usize,
}

/// The fields of a listed PR the window needs (the list's items are full PR objects).
#[derive(Deserialize)]
struct ListedPull {
    number: u64,
    updated_at: DateTime<Utc>,
    merged_at: Option<DateTime<Utc>>,
}

/// Every PR of `owner/repo` merged at or after `since`.
pub async fn list_merged_since(
    gh: &GitHub,
    owner: &str,
    repo: &str,
    since: DateTime<Utc>,
) -> Result<MergedListing, GitHubError> {
    let first = format!(
        "{}?state=closed&sort=updated&direction=desc&per_page=100",
        routes::PULLS.fill(&[owner, repo])
    );
    let mut listing = MergedListing::default();
    // A `Link` loop or more than `MAX_PAGES` pages (100,000 closed PRs updated in the
    // window) is an error, never a silently shorter scorecard.
    let mut pages = Pages::new(gh);
    let mut next = Some(first);
    while let Some(target) = next.take() {
        pages.enter(&target).map_err(|err| match err {
            GitHubError::Incomplete { endpoint, message } => GitHubError::Incomplete {
                endpoint,
                message: format!("{message}; choose a shorter --since"),
            },
            other => other,
        })?;
        let endpoint = endpoint_name(&http::Method::GET, &target);
        let reply = gh.read(&target).await?;
        let items = gh.list(&reply, &endpoint, &[])?;
        listing.pages += 1;
        let mut left_window = false;
        for item in items {
            let (number, read) = match item {
                Element::Value(item) => (
                    item.get("number").and_then(Value::as_u64),
                    serde_json::from_value::<ListedPull>(item).map_err(|e| e.to_string()),
                ),
                Element::Unbuilt { reason, .. } => (None, Err(reason)),
            };
            match read {
                Ok(pull) => {
                    left_window |= pull.updated_at < since;
                    let merged = pull.merged_at.filter(|at| *at >= since);
                    // The list can shift while it is paged: a PR may show up twice.
                    if let Some(merged_at) = merged {
                        if !listing.pulls.iter().any(|p| p.number == pull.number) {
                            listing.pulls.push(MergedPull {
                                number: pull.number,
                                merged_at,
                            });
                        }
                    }
                }
                Err(err) => {
                    let which = number.map_or_else(|| "?".to_owned(), |n| format!("#{n}"));
                    tracing::warn!(
                        "{endpoint}: skipped an unreadable pull request {which}: {}",
                        gh.clean(&err)
                    );
                    listing.unreadable.push(which);
                }
            }
        }
        if left_window {
            break;
        }
        next = next_page(gh, &endpoint, &reply)?;
    }
    listing
        .pulls
        .sort_by(|a, b| b.merged_at.cmp(&a.merged_at).then(a.number.cmp(&b.number)));
    Ok(listing)
}
