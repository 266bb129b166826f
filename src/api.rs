//! Lean, forgiving shapes of the GitHub API JSON that adapters read. Only the fields we use,
//! every one optional or defaulted, and each list element parsed on its own so that one odd
//! object is reported instead of losing the page. Adapters see these, never octocrab's models.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// The `surface` of unreadable code-scanning alerts (they carry no author login: they belong
/// to the code-scanning source whatever its logins).
pub const CODE_SCANNING_SURFACE: &str = "code_scanning_alerts";

/// `null` read as the default: GitHub sends `null` for many lists, strings and objects its
/// schema marks nullable (`rule.tags`, `body`, ...), and `#[serde(default)]` covers only
/// missing fields. Without this one `null` makes the whole object unreadable.
fn null_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// A GitHub account as embedded in comments, reviews and alerts.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct User {
    #[serde(deserialize_with = "null_default")]
    pub login: String,
    pub id: u64,
    /// `"Bot"`, `"User"` or `"Organization"`.
    #[serde(rename = "type")]
    #[serde(deserialize_with = "null_default")]
    pub kind: String,
}

impl User {
    pub fn is_bot(&self) -> bool {
        self.kind == "Bot"
    }
}

/// `GET /repos/{o}/{r}/pulls/{n}/comments` element (an inline review comment).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ReviewComment {
    pub id: u64,
    pub pull_request_review_id: Option<u64>,
    pub in_reply_to_id: Option<u64>,
    pub user: Option<User>,
    #[serde(deserialize_with = "null_default")]
    pub body: String,
    /// Missing in malformed payloads: such a comment is skipped and reported.
    pub path: Option<String>,
    pub line: Option<u32>,
    pub start_line: Option<u32>,
    pub original_line: Option<u32>,
    pub original_start_line: Option<u32>,
    pub side: Option<String>,
    pub start_side: Option<String>,
    pub commit_id: Option<String>,
    pub original_commit_id: Option<String>,
    /// `"line"` or `"file"`.
    pub subject_type: Option<String>,
    pub html_url: Option<String>,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
}

impl ReviewComment {
    /// The commit the bot commented on: `original_commit_id`. GitHub moves a live comment's
    /// `commit_id` along to the newest commit whose diff still shows its line, so it says
    /// nothing about which commit the bot reviewed.
    pub fn reviewed_commit(&self) -> Option<&str> {
        self.original_commit_id
            .as_deref()
            .or(self.commit_id.as_deref())
    }
}

/// `GET /repos/{o}/{r}/pulls/{n}/reviews` element.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Review {
    pub id: u64,
    pub user: Option<User>,
    pub body: Option<String>,
    /// `COMMENTED`, `APPROVED`, `CHANGES_REQUESTED`, `DISMISSED`, `PENDING`.
    pub state: Option<String>,
    pub commit_id: Option<String>,
    pub submitted_at: Option<String>,
    pub html_url: Option<String>,
}

/// `GET /repos/{o}/{r}/issues/{n}/comments` element.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct IssueComment {
    pub id: u64,
    pub user: Option<User>,
    pub body: Option<String>,
    pub html_url: Option<String>,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AlertRule {
    pub id: Option<String>,
    pub name: Option<String>,
    /// `note`, `warning`, `error`.
    pub severity: Option<String>,
    /// `low`, `medium`, `high`, `critical` (security queries only).
    pub security_severity_level: Option<String>,
    pub description: Option<String>,
    pub full_description: Option<String>,
    #[serde(deserialize_with = "null_default")]
    pub tags: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AlertTool {
    pub name: Option<String>,
    pub version: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AlertLocation {
    pub path: Option<String>,
    pub start_line: Option<u32>,
    pub end_line: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AlertMessage {
    pub text: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AlertInstance {
    #[serde(rename = "ref")]
    pub git_ref: Option<String>,
    pub state: Option<String>,
    pub commit_sha: Option<String>,
    #[serde(deserialize_with = "null_default")]
    pub message: AlertMessage,
    #[serde(deserialize_with = "null_default")]
    pub location: AlertLocation,
}

/// `GET /repos/{o}/{r}/code-scanning/alerts?ref=refs/pull/{n}/merge` element.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CodeScanningAlert {
    pub number: u64,
    /// `open`, `fixed`, `dismissed`.
    pub state: Option<String>,
    pub html_url: Option<String>,
    #[serde(deserialize_with = "null_default")]
    pub rule: AlertRule,
    #[serde(deserialize_with = "null_default")]
    pub tool: AlertTool,
    #[serde(deserialize_with = "null_default")]
    pub most_recent_instance: AlertInstance,
    pub dismissed_reason: Option<String>,
    pub fixed_at: Option<String>,
    /// When the alert was first seen: one older than the PR is pre-existing, not the PR's.
    pub created_at: Option<String>,
}

/// A comment reference inside a GraphQL review thread.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ThreadComment {
    /// The REST id of the comment.
    pub database_id: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ThreadComments {
    #[serde(deserialize_with = "null_default")]
    pub nodes: Vec<ThreadComment>,
}

/// GraphQL `pullRequest.reviewThreads.nodes` element: the only place "resolved" exists.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ReviewThread {
    #[serde(deserialize_with = "null_default")]
    pub id: String,
    pub is_resolved: bool,
    pub is_outdated: bool,
    pub path: Option<String>,
    #[serde(deserialize_with = "null_default")]
    pub comments: ThreadComments,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RepoRef {
    pub full_name: Option<String>,
    pub owner: Option<User>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Branch {
    #[serde(deserialize_with = "null_default")]
    pub sha: String,
    #[serde(rename = "ref")]
    pub git_ref: Option<String>,
    pub repo: Option<RepoRef>,
}

/// `GET /repos/{o}/{r}/pulls/{n}`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PullRequest {
    pub number: u64,
    pub title: Option<String>,
    pub html_url: Option<String>,
    pub user: Option<User>,
    #[serde(deserialize_with = "null_default")]
    pub head: Branch,
    #[serde(deserialize_with = "null_default")]
    pub base: Branch,
    pub created_at: Option<String>,
}

/// Code scanning for the PR: its alerts, or why there are none to read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "state", content = "value")]
pub enum CodeScanning {
    Alerts(Vec<CodeScanningAlert>),
    /// 403 / 404 / not fetched: the source is absent, not an error.
    Unavailable(String),
}

impl Default for CodeScanning {
    fn default() -> Self {
        CodeScanning::Unavailable("not fetched".to_owned())
    }
}

/// `GET /repos/{o}/{r}/issues/{n}/reactions` element: a reaction on the PR itself (Codex
/// reacts 👍 instead of commenting when it has nothing to say).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Reaction {
    pub id: u64,
    pub user: Option<User>,
    /// `+1`, `-1`, `laugh`, `confused`, `heart`, `hooray`, `rocket`, `eyes`.
    #[serde(deserialize_with = "null_default")]
    pub content: String,
    pub created_at: Option<String>,
}

/// The app that created a check run.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CheckApp {
    pub id: Option<u64>,
    /// The app's slug; its bot account is `<slug>[bot]`.
    pub slug: Option<String>,
    pub name: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CheckOutput {
    pub title: Option<String>,
    pub summary: Option<String>,
}

/// `GET /repos/{o}/{r}/commits/{sha}/check-runs` element (`check_runs[]`): the latest run of
/// each name on the head commit.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CheckRun {
    pub id: u64,
    #[serde(deserialize_with = "null_default")]
    pub name: String,
    pub head_sha: Option<String>,
    /// `queued`, `in_progress`, `completed`, `waiting`, `requested`, `pending`.
    pub status: Option<String>,
    /// `success`, `failure`, `neutral`, `cancelled`, `skipped`, `timed_out`,
    /// `action_required` (and `stale`); `null` until completed.
    pub conclusion: Option<String>,
    pub started_at: Option<String>,
    pub completed_at: Option<String>,
    #[serde(deserialize_with = "null_default")]
    pub output: CheckOutput,
    pub app: Option<CheckApp>,
    pub html_url: Option<String>,
}

/// `GET /repos/{o}/{r}/commits/{sha}/statuses` element (newest first; the combined `/status`
/// lacks `creator`, which is how a status is tied to a bot).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CommitStatus {
    pub id: u64,
    /// `error`, `failure`, `pending`, `success`.
    #[serde(deserialize_with = "null_default")]
    pub state: String,
    #[serde(deserialize_with = "null_default")]
    pub context: String,
    pub description: Option<String>,
    pub creator: Option<User>,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
}

/// One optional surface of the PR: its objects, or why they were not read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "state", content = "value")]
pub enum Surface<T> {
    Read(Vec<T>),
    /// Not needed (no configured bot signals there), not saved, or not readable (the reason).
    Unread(String),
}

impl<T> Default for Surface<T> {
    fn default() -> Self {
        Surface::Unread(NOT_FETCHED.to_owned())
    }
}

impl<T> Surface<T> {
    pub fn items(&self) -> &[T] {
        match self {
            Surface::Read(items) => items,
            Surface::Unread(_) => &[],
        }
    }

    /// Why it was not read, when it was asked for and could not be (not "not fetched").
    pub fn unread_reason(&self) -> Option<&str> {
        match self {
            Surface::Unread(reason) if reason != NOT_FETCHED => Some(reason),
            _ => None,
        }
    }
}

/// The reason of a surface nobody asked for.
pub const NOT_FETCHED: &str = "not fetched";

/// The surfaces some bots signal completion on besides their comments (docs/adapters.md,
/// "Completion signals"). Read only when a configured bot needs them.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Signals {
    /// Reactions on the PR (`issues/{n}/reactions`).
    pub reactions: Surface<Reaction>,
    /// Check runs on the head commit.
    pub check_runs: Surface<CheckRun>,
    /// Commit statuses on the head commit, newest first.
    pub statuses: Surface<CommitStatus>,
    /// When the head commit was made (`git/commits/{sha}` committer date, RFC 3339): a
    /// reaction, which names no commit, counts for the head only when it is newer.
    pub head_committed_at: Option<String>,
}

/// An API object that could not be read, kept so it can be reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unreadable {
    /// Which list it came from (`review_comments`, `reviews`, ...).
    pub surface: String,
    /// Its `id` when one could be read.
    pub id: Option<u64>,
    /// Its author's login when one could be read (to blame the right source).
    pub login: Option<String>,
    pub reason: String,
}

/// Everything the adapters read about one PR: what the endpoints return, de-paginated.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PrSnapshot {
    /// `owner/name`.
    pub repository: String,
    pub pull: PullRequest,
    pub review_comments: Vec<ReviewComment>,
    pub reviews: Vec<Review>,
    pub issue_comments: Vec<IssueComment>,
    pub code_scanning: CodeScanning,
    /// `None` when thread state was not fetched (resolved/outdated then unknown).
    pub review_threads: Option<Vec<ReviewThread>>,
    /// Objects that did not fit their shape, skipped and reported.
    pub unreadable: Vec<Unreadable>,
    /// Reactions, check runs and statuses, for the bots that signal completion there.
    #[serde(default)]
    pub signals: Signals,
}

impl PrSnapshot {
    pub fn head_sha(&self) -> &str {
        &self.pull.head.sha
    }
}

/// Parse a JSON array element by element: the good ones, and a note for each bad one.
pub fn parse_list<T: DeserializeOwned>(
    surface: &str,
    items: Vec<Value>,
) -> (Vec<T>, Vec<Unreadable>) {
    let mut good = Vec::with_capacity(items.len());
    let mut bad = Vec::new();
    for item in items {
        let id = item
            .get("id")
            .or_else(|| item.get("number"))
            .and_then(Value::as_u64);
        let login = item
            .pointer("/user/login")
            .and_then(Value::as_str)
            .map(str::to_owned);
        match serde_json::from_value::<T>(item) {
            Ok(value) => good.push(value),
            Err(err) => bad.push(Unreadable {
                surface: surface.to_owned(),
                id,
                login,
                reason: err.to_string(),
            }),
        }
    }
    (good, bad)
}

/// Read the GraphQL thread list from either the whole response (`data.repository...`) or a
/// bare `nodes` array, as saved by `run --save`.
pub fn threads_from_json(value: &Value) -> Option<Vec<ReviewThread>> {
    let nodes = value
        .pointer("/data/repository/pullRequest/reviewThreads/nodes")
        .or_else(|| value.pointer("/nodes"))
        .unwrap_or(value);
    serde_json::from_value(nodes.clone()).ok()
}
