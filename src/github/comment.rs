//! The sticky comment (CONTRACT section 5): one issue comment whose first line is the marker,
//! authored by us. Oldest kept, extra copies of ours deleted, foreign ones never touched,
//! no write when unchanged. Convergent without locks: after a create, list again. A write a
//! rate limit refused is retried from a fresh listing after the wait GitHub asks for (the
//! comment may have been written meanwhile by another run).

use http::Method;
use serde_json::{json, Value};

use super::fetch::list_all;
use super::routes;
use super::threads::{self, Viewer};
use super::{endpoint_name, GitHub, GitHubError};
use crate::api::{self, IssueComment};
use crate::config::PrTarget;

/// What the upsert did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StickyAction {
    Created,
    Updated,
    Unchanged,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sticky {
    pub id: u64,
    pub html_url: String,
    pub action: StickyAction,
    /// Extra copies of ours that were deleted.
    pub deleted: Vec<u64>,
}

/// Whether a comment is one of our stickies: marker on the first line, written by the
/// token's identity (login and account type: see `Viewer::is`).
pub fn is_ours(comment: &IssueComment, marker: &str, viewer: &Viewer) -> bool {
    let body = comment.body.as_deref().unwrap_or("");
    let first_line = body.lines().next().unwrap_or("");
    // The adapters' rule (one ownership rule everywhere), for this header's marker.
    first_line.trim() == marker
        && crate::adapters::is_own_sticky(body, comment.user.as_ref(), Some(viewer))
}

/// Our sticky comment: the oldest of ours (the one an upsert keeps), whose state block the
/// next run reads. Anyone else's comment, marker or not, is never it.
pub fn find_ours<'a>(
    comments: &'a [IssueComment],
    marker: &str,
    viewer: &Viewer,
) -> Option<&'a IssueComment> {
    comments
        .iter()
        .filter(|c| is_ours(c, marker, viewer))
        .min_by_key(|c| c.id)
}

/// Line endings and trailing space do not make a body different.
fn normalise(body: &str) -> String {
    body.replace("\r\n", "\n").trim_end().to_owned()
}

/// Create or edit the sticky comment. `known` is the issue-comment list already fetched
/// (saves a listing); `None` lists afresh.
pub async fn upsert_sticky(
    gh: &GitHub,
    target: &PrTarget,
    marker: &str,
    body: &str,
    known: Option<&[IssueComment]>,
) -> Result<Sticky, GitHubError> {
    let viewer = threads::viewer(gh).await;
    upsert_sticky_as(gh, target, marker, body, known, &viewer).await
}

/// `upsert_sticky` for an identity already known (the viewer query runs beside the fetch).
/// A rate-limited write: wait as GitHub asks, list again, write what is still needed; at
/// most the retry policy's attempts, then the rate limit's error.
pub async fn upsert_sticky_as(
    gh: &GitHub,
    target: &PrTarget,
    marker: &str,
    body: &str,
    known: Option<&[IssueComment]>,
    viewer: &Viewer,
) -> Result<Sticky, GitHubError> {
    let mut known = known;
    let mut attempt = 1;
    loop {
        match upsert_once(gh, target, marker, body, known, viewer).await {
            Err(err) if attempt < gh.retry_policy().max_attempts => {
                let Some(wait) = err.rate_limit_wait() else {
                    return Err(err);
                };
                tracing::warn!(
                    "{err} (attempt {attempt}); listing again in {:.1}s",
                    wait.as_secs_f64()
                );
                // No time left to wait: the rate limit is what stopped the write.
                if gh
                    .pause(wait, &endpoint_name(&Method::POST, &create_path(target)))
                    .await
                    .is_err()
                {
                    return Err(err);
                }
                known = None;
                attempt += 1;
            }
            other => return other,
        }
    }
}

async fn upsert_once(
    gh: &GitHub,
    target: &PrTarget,
    marker: &str,
    body: &str,
    known: Option<&[IssueComment]>,
    viewer: &Viewer,
) -> Result<Sticky, GitHubError> {
    let comments = match known {
        Some(list) => list.to_vec(),
        None => list_comments(gh, target).await?,
    };
    let mut ours = mine(&comments, marker, viewer);
    let mut created = None;
    if ours.is_empty() {
        let new = create(gh, target, marker, body, viewer).await?;
        // A concurrent run may have created one too: the fresh list decides (oldest wins).
        ours = mine(&list_comments(gh, target).await?, marker, viewer);
        // The list may lag behind our write; ours must be in it to be kept or deleted.
        if !ours.iter().any(|c| c.id == new.id) {
            ours.push(new.clone());
            ours.sort_by_key(|c| c.id);
        }
        created = Some(new);
    }
    let keep = ours.remove(0);
    let mut deleted = Vec::new();
    for extra in &ours {
        match gh
            .write(
                Method::DELETE,
                &routes::DELETE_ISSUE_COMMENT.fill(&[
                    &target.owner,
                    &target.repo,
                    &extra.id.to_string(),
                ]),
                None,
            )
            .await
        {
            Ok(_) => deleted.push(extra.id),
            Err(err) if err.status() == Some(404) => {}
            // A refused delete leaves a duplicate for the next run; not worth failing for.
            Err(err) => tracing::warn!("could not delete a duplicate sticky comment: {err}"),
        }
    }
    if created.as_ref().is_some_and(|c| c.id == keep.id) {
        return Ok(done(keep, StickyAction::Created, deleted));
    }
    if normalise(keep.body.as_deref().unwrap_or("")) == normalise(body) {
        return Ok(done(keep, StickyAction::Unchanged, deleted));
    }
    let path = comment_path(target, keep.id);
    match gh
        .write(Method::PATCH, &path, Some(&json!({ "body": body })))
        .await
    {
        Ok(reply) => Ok(done(
            parse_comment(&reply.body, &path)?,
            StickyAction::Updated,
            deleted,
        )),
        // Deleted since we listed it (a concurrent run, a person): post a new one.
        Err(err) if err.status() == Some(404) => {
            let new = create(gh, target, marker, body, viewer).await?;
            Ok(done(new, StickyAction::Created, deleted))
        }
        Err(err) => Err(err),
    }
}

fn done(comment: IssueComment, action: StickyAction, deleted: Vec<u64>) -> Sticky {
    Sticky {
        id: comment.id,
        html_url: comment.html_url.unwrap_or_default(),
        action,
        deleted,
    }
}

fn mine(comments: &[IssueComment], marker: &str, viewer: &Viewer) -> Vec<IssueComment> {
    let mut ours: Vec<IssueComment> = comments
        .iter()
        .filter(|c| is_ours(c, marker, viewer))
        .cloned()
        .collect();
    ours.sort_by_key(|c| c.id);
    ours
}

async fn list_comments(gh: &GitHub, target: &PrTarget) -> Result<Vec<IssueComment>, GitHubError> {
    let path = format!("{}?per_page=100", create_path(target));
    let (comments, _) = api::parse_list("issue_comments", list_all(gh, &path).await?);
    Ok(comments)
}

fn create_path(target: &PrTarget) -> String {
    let n = target.number.to_string();
    routes::ISSUE_COMMENTS.fill(&[&target.owner, &target.repo, &n])
}

/// POST once. On a 5xx or a dropped connection the comment may exist anyway: list first,
/// and only post again when it does not.
async fn create(
    gh: &GitHub,
    target: &PrTarget,
    marker: &str,
    body: &str,
    viewer: &Viewer,
) -> Result<IssueComment, GitHubError> {
    let path = create_path(target);
    let payload = json!({ "body": body });
    match gh.write(Method::POST, &path, Some(&payload)).await {
        Ok(reply) => parse_comment(&reply.body, &path),
        Err(err) if uncertain(&err) => {
            tracing::warn!("{err}; checking whether the comment was created before retrying");
            if let Some(existing) = mine(&list_comments(gh, target).await?, marker, viewer)
                .into_iter()
                .next()
            {
                return Ok(existing);
            }
            let reply = gh.write(Method::POST, &path, Some(&payload)).await?;
            parse_comment(&reply.body, &path)
        }
        Err(err) => Err(err),
    }
}

fn uncertain(err: &GitHubError) -> bool {
    matches!(err, GitHubError::Transport { .. }) || err.status().is_some_and(|s| s >= 500)
}

fn comment_path(target: &PrTarget, id: u64) -> String {
    routes::UPDATE_ISSUE_COMMENT.fill(&[&target.owner, &target.repo, &id.to_string()])
}

fn parse_comment(text: &str, path: &str) -> Result<IssueComment, GitHubError> {
    serde_json::from_str::<Value>(text)
        .and_then(serde_json::from_value::<IssueComment>)
        .map_err(|err| GitHubError::Decode {
            endpoint: path.to_owned(),
            message: crate::render::escape::one_line(&err.to_string(), 300),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::User;

    fn comment(id: u64, login: &str, body: &str) -> IssueComment {
        IssueComment {
            id,
            user: Some(User {
                login: login.to_owned(),
                id: 1,
                kind: "Bot".to_owned(),
            }),
            body: Some(body.to_owned()),
            ..IssueComment::default()
        }
    }

    const M: &str = "<!-- review-bot-ack -->";

    #[test]
    fn ours_needs_marker_on_first_line_and_our_login() {
        let login = &Viewer::from_graphql("github-actions", Some("Bot"));
        assert!(is_ours(
            &comment(1, "github-actions[bot]", &format!("{M}\nx")),
            M,
            login
        ));
        assert!(is_ours(
            &comment(1, "github-actions[bot]", &format!("{M}\r\nx")),
            M,
            login
        ));
        assert!(!is_ours(&comment(1, "alice", &format!("{M}\nx")), M, login));
        assert!(!is_ours(
            &comment(1, "github-actions[bot]", &format!("quote\n{M}")),
            M,
            login
        ));
        let headed = "<!-- review-bot-ack:api -->";
        assert!(!is_ours(
            &comment(1, "github-actions[bot]", &format!("{headed}\n")),
            M,
            login
        ));
        assert!(is_ours(
            &comment(1, "github-actions[bot]", &format!("{headed}\n")),
            headed,
            login
        ));
    }

    #[test]
    fn mine_sorts_oldest_first() {
        let list = vec![
            comment(30, "github-actions[bot]", M),
            comment(10, "alice", M),
            comment(20, "github-actions[bot]", M),
        ];
        let ids: Vec<u64> = mine(&list, M, &Viewer::actions())
            .iter()
            .map(|c| c.id)
            .collect();
        assert_eq!(ids, vec![20, 30]);
    }

    #[test]
    fn crlf_and_trailing_space_are_not_changes() {
        assert_eq!(normalise("a\r\nb\r\n"), normalise("a\nb"));
        assert_ne!(normalise("a\nb"), normalise("a\nc"));
    }
}
