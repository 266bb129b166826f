//! GraphQL reads: review-thread state (only GraphQL knows `isResolved`/`isOutdated`) and the
//! token's own identity (`GET /user` is forbidden for Actions tokens).

use serde_json::{json, Value};

use super::{GitHub, GitHubError};
use crate::api::{ReviewThread, User};
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

const VIEWER_QUERY: &str = "query { viewer { login __typename } }";

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

/// Who the token is: its login and whether it is an app (a Bot) or a person (a User, as
/// with a personal access token). Both decide which comments are ours.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Viewer {
    pub login: String,
    pub bot: bool,
}

impl Viewer {
    /// GitHub Actions' own token, the identity assumed when GraphQL will not say.
    pub fn actions() -> Viewer {
        Viewer {
            login: ACTIONS_LOGIN.to_owned(),
            bot: true,
        }
    }

    /// From GraphQL's `login` and `__typename`. A login ending in `[bot]` is an app whatever
    /// the type says (a person's login cannot contain brackets).
    pub fn from_graphql(login: &str, typename: Option<&str>) -> Viewer {
        Viewer {
            login: login.trim().to_owned(),
            bot: typename == Some("Bot") || login.trim().ends_with("[bot]"),
        }
    }

    /// Whether `author` is this identity. An app's login may come with or without the
    /// `[bot]` suffix (GraphQL omits it, REST has it), and the author must be a Bot too;
    /// a person needs the exact login and `type: User`, so a token of user `foo` never
    /// claims a comment by the app `foo[bot]`. Case is ignored (GitHub logins are).
    pub fn is(&self, author: &User) -> bool {
        if self.bot {
            author.kind == "Bot" && same_bot_login(&author.login, &self.login)
        } else {
            author.kind == "User" && author.login.trim().eq_ignore_ascii_case(&self.login)
        }
    }
}

/// The token's identity, or `github-actions[bot]` when GraphQL will not say.
pub async fn viewer(gh: &GitHub) -> Viewer {
    match gh.graphql(VIEWER_QUERY, json!({})).await {
        Ok(data) => match data.pointer("/viewer/login").and_then(Value::as_str) {
            Some(login) if !login.trim().is_empty() => Viewer::from_graphql(
                login,
                data.pointer("/viewer/__typename").and_then(Value::as_str),
            ),
            _ => Viewer::actions(),
        },
        Err(err) => {
            tracing::warn!("could not read the token's login ({err}); assuming {ACTIONS_LOGIN}");
            Viewer::actions()
        }
    }
}

/// App logins compare without the `[bot]` suffix, ignoring case.
fn same_bot_login(a: &str, b: &str) -> bool {
    let strip = |s: &str| s.trim().trim_end_matches("[bot]").to_ascii_lowercase();
    strip(a) == strip(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(login: &str, kind: &str) -> User {
        User {
            login: login.to_owned(),
            id: 1,
            kind: kind.to_owned(),
        }
    }

    #[test]
    fn an_app_matches_with_or_without_bot_suffix() {
        let actions = Viewer::from_graphql("github-actions", Some("Bot"));
        assert!(actions.is(&user("github-actions[bot]", "Bot")));
        assert!(Viewer::actions().is(&user("GitHub-Actions[bot]", "Bot")));
        assert!(!actions.is(&user("coderabbitai[bot]", "Bot")));
        // A person whose login is the app's without the suffix is not the app.
        assert!(!actions.is(&user("github-actions", "User")));
    }

    #[test]
    fn a_person_needs_the_exact_login_and_type_user() {
        let pat = Viewer::from_graphql("foo", Some("User"));
        assert!(!pat.bot);
        assert!(pat.is(&user("foo", "User")));
        assert!(pat.is(&user("Foo", "User")));
        assert!(!pat.is(&user("foo[bot]", "Bot")));
        assert!(!pat.is(&user("foo", "Bot")));
        assert!(!pat.is(&user("octo", "User")) && !pat.is(&user("foobar", "User")));
    }

    #[test]
    fn the_type_comes_from_typename_or_the_suffix() {
        assert!(Viewer::from_graphql("my-app[bot]", None).bot);
        assert!(Viewer::from_graphql("my-app", Some("Bot")).bot);
        assert!(!Viewer::from_graphql("alice", Some("User")).bot);
        assert!(!Viewer::from_graphql("alice", None).bot);
    }
}
