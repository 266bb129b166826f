//! Every REST operation the program calls, named by its path in GitHub's OpenAPI
//! description, so the tests can check each one (and the fields read from its answer)
//! against the published description of api.github.com and GitHub Enterprise Server.

/// One REST operation: method and OpenAPI path template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    pub method: &'static str,
    pub path: &'static str,
}

impl Route {
    const fn new(method: &'static str, path: &'static str) -> Route {
        Route { method, path }
    }

    /// The path with its `{...}` parameters replaced by `values`, in order.
    pub fn fill(&self, values: &[&str]) -> String {
        let mut out = String::with_capacity(self.path.len() + 32);
        let mut values = values.iter();
        let mut rest = self.path;
        while let Some(open) = rest.find('{') {
            let close = rest[open..].find('}').map_or(rest.len(), |i| open + i + 1);
            out.push_str(&rest[..open]);
            out.push_str(values.next().copied().unwrap_or_default());
            rest = &rest[close..];
        }
        out.push_str(rest);
        out
    }

    /// Whether a request path (no query) is this route's.
    pub fn matches(&self, method: &str, path: &str) -> bool {
        if method != self.method {
            return false;
        }
        let (mut want, mut got) = (self.path.split('/'), path.split('/'));
        loop {
            match (want.next(), got.next()) {
                (None, None) => return true,
                (Some(w), Some(g)) if w.starts_with('{') => {
                    if g.is_empty() {
                        return false;
                    }
                }
                (Some(w), Some(g)) if w == g => {}
                _ => return false,
            }
        }
    }
}

pub const PULL: Route = Route::new("GET", "/repos/{owner}/{repo}/pulls/{pull_number}");
/// Open PRs with a given head (`workflow_run` from a fork, whose payload lists none).
pub const PULLS: Route = Route::new("GET", "/repos/{owner}/{repo}/pulls");
pub const REVIEW_COMMENTS: Route =
    Route::new("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/comments");
pub const REVIEWS: Route = Route::new("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews");
pub const ISSUE_COMMENTS: Route = Route::new(
    "GET",
    "/repos/{owner}/{repo}/issues/{issue_number}/comments",
);
pub const CREATE_ISSUE_COMMENT: Route = Route::new(
    "POST",
    "/repos/{owner}/{repo}/issues/{issue_number}/comments",
);
pub const UPDATE_ISSUE_COMMENT: Route = Route::new(
    "PATCH",
    "/repos/{owner}/{repo}/issues/comments/{comment_id}",
);
pub const DELETE_ISSUE_COMMENT: Route = Route::new(
    "DELETE",
    "/repos/{owner}/{repo}/issues/comments/{comment_id}",
);
pub const CODE_SCANNING_ALERTS: Route =
    Route::new("GET", "/repos/{owner}/{repo}/code-scanning/alerts");
pub const CREATE_CHECK_RUN: Route = Route::new("POST", "/repos/{owner}/{repo}/check-runs");
pub const UPDATE_CHECK_RUN: Route =
    Route::new("PATCH", "/repos/{owner}/{repo}/check-runs/{check_run_id}");
/// Reactions on the PR (completion signals).
pub const ISSUE_REACTIONS: Route = Route::new(
    "GET",
    "/repos/{owner}/{repo}/issues/{issue_number}/reactions",
);
/// Check runs on a commit (completion signals).
pub const COMMIT_CHECK_RUNS: Route =
    Route::new("GET", "/repos/{owner}/{repo}/commits/{ref}/check-runs");
/// Statuses on a commit, newest first (completion signals).
pub const COMMIT_STATUSES: Route =
    Route::new("GET", "/repos/{owner}/{repo}/commits/{ref}/statuses");
/// The PR's commits (the head commit's date, for reactions).
pub const PULL_COMMITS: Route =
    Route::new("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/commits");
/// A commenter's permission (who may acknowledge a finding).
pub const COLLABORATOR_PERMISSION: Route = Route::new(
    "GET",
    "/repos/{owner}/{repo}/collaborators/{username}/permission",
);

/// All of them.
pub const ALL: [Route; 16] = [
    PULL,
    PULLS,
    REVIEW_COMMENTS,
    REVIEWS,
    ISSUE_COMMENTS,
    CREATE_ISSUE_COMMENT,
    UPDATE_ISSUE_COMMENT,
    DELETE_ISSUE_COMMENT,
    CODE_SCANNING_ALERTS,
    CREATE_CHECK_RUN,
    UPDATE_CHECK_RUN,
    ISSUE_REACTIONS,
    COMMIT_CHECK_RUNS,
    COMMIT_STATUSES,
    PULL_COMMITS,
    COLLABORATOR_PERMISSION,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_and_match_are_inverse() {
        let path = REVIEW_COMMENTS.fill(&["acme", "api", "7"]);
        assert_eq!(path, "/repos/acme/api/pulls/7/comments");
        assert!(REVIEW_COMMENTS.matches("GET", &path));
        assert!(!REVIEW_COMMENTS.matches("POST", &path));
        assert!(!PULL.matches("GET", &path));
        assert!(UPDATE_CHECK_RUN.matches("PATCH", "/repos/a/b/check-runs/9"));
        assert!(!UPDATE_CHECK_RUN.matches("PATCH", "/repos/a/b/check-runs/"));
        for route in ALL {
            let values: Vec<String> = (1..=4).map(|i| format!("v{i}")).collect();
            let values: Vec<&str> = values.iter().map(String::as_str).collect();
            let path = route.fill(&values);
            let matching: Vec<_> = ALL
                .iter()
                .filter(|r| r.matches(route.method, &path))
                .collect();
            assert_eq!(matching, [&route], "routes never overlap: {path}");
        }
    }
}
