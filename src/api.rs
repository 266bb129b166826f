//! Lean, forgiving shapes of the GitHub API JSON that adapters read. Only the fields we use,
//! every one optional or defaulted, and each list element parsed on its own so that one odd
//! object is reported instead of losing the page. Adapters see these, never octocrab's models.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

mod elements;

pub use elements::{read_list, Element, ListError};

/// The `surface` of unreadable code-scanning alerts (they carry no author login: they belong
/// to the code-scanning source whatever its logins).
pub const CODE_SCANNING_SURFACE: &str = "code_scanning_alerts";

/// The `surface` of review-thread state that could not be read (a thread node, the whole
/// GraphQL answer, a saved `review_threads.json`): resolved / outdated then unknown for the
/// comments concerned, which are counted.
pub const REVIEW_THREADS_SURFACE: &str = "review_threads";

/// Longest reason kept for an unreadable object (serde quotes the data it chokes on).
const MAX_REASON: usize = 300;

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

/// The login GitHub Actions' token posts as, when the viewer query fails.
pub const ACTIONS_LOGIN: &str = "github-actions[bot]";

/// Who the token is: its login and whether it is an app (a Bot) or a person (a User, as
/// with a personal access token). Both decide which comments are ours.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

/// App logins compare without the `[bot]` suffix, ignoring case.
fn same_bot_login(a: &str, b: &str) -> bool {
    let strip = |s: &str| s.trim().trim_end_matches("[bot]").to_ascii_lowercase();
    strip(a) == strip(b)
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
    /// The diff around the comment, ending at its (original) line: the code it is anchored
    /// on ([`ReviewComment::anchored_code`]).
    pub diff_hunk: Option<String>,
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

    /// The code line(s) the comment is anchored on, from the end of `diff_hunk` (which
    /// GitHub cuts at the comment's original line): as many lines as its original range
    /// holds, at most [`ANCHORED_LINES`], on its side of the diff, without the diff marks.
    /// Empty when the API gave no hunk.
    pub fn anchored_code(&self) -> String {
        let Some(hunk) = self.diff_hunk.as_deref() else {
            return String::new();
        };
        let left = self.side.as_deref() == Some("LEFT");
        let span = match (self.original_start_line, self.original_line) {
            (Some(start), Some(end)) if start <= end => (end - start + 1) as usize,
            _ => 1,
        };
        let mut lines: Vec<&str> = hunk
            .lines()
            .rev()
            .filter(|l| !l.starts_with("@@") && !l.starts_with('\\'))
            .filter(|l| !l.starts_with(if left { '+' } else { '-' }))
            .take(span.min(ANCHORED_LINES))
            .map(|l| l.get(1..).unwrap_or(""))
            .collect();
        lines.reverse();
        let code = lines.join("\n");
        let code = code.trim_matches('\n');
        code.chars().take(ANCHORED_CHARS).collect()
    }
}

/// Lines of anchored code kept per comment, and characters.
pub const ANCHORED_LINES: usize = 6;
pub const ANCHORED_CHARS: usize = 400;

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
#[serde(default)]
pub struct ThreadComment {
    /// The REST id of the comment: GraphQL's `fullDatabaseId`, a BigInt sent as a string
    /// (the deprecated 32-bit `databaseId` fails above 2^31, where every real id now is).
    /// Saved folders written before may carry `databaseId` as a number: read too.
    #[serde(
        rename = "fullDatabaseId",
        alias = "databaseId",
        deserialize_with = "big_int",
        serialize_with = "big_int_text"
    )]
    pub database_id: Option<u64>,
}

/// A GraphQL `BigInt` (a decimal string), or a plain JSON number.
fn big_int<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Id {
        Number(u64),
        Text(String),
    }
    match Option::<Id>::deserialize(deserializer)? {
        None => Ok(None),
        Some(Id::Number(n)) => Ok(Some(n)),
        Some(Id::Text(text)) => text.trim().parse().map(Some).map_err(|_| {
            serde::de::Error::custom(format!(
                "`fullDatabaseId` {:?} is not a decimal id",
                crate::render::escape::one_line(&text, 40)
            ))
        }),
    }
}

fn big_int_text<S: serde::Serializer>(id: &Option<u64>, serializer: S) -> Result<S::Ok, S::Error> {
    match id {
        Some(id) => serializer.serialize_str(&id.to_string()),
        None => serializer.serialize_none(),
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ThreadComments {
    /// A null node (a comment GitHub could not give) is left out: that comment then has
    /// no thread state and is counted.
    #[serde(deserialize_with = "present_nodes")]
    pub nodes: Vec<ThreadComment>,
}

fn present_nodes<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<ThreadComment>, D::Error> {
    let nodes = Option::<Vec<Option<ThreadComment>>>::deserialize(deserializer)?;
    Ok(nodes.unwrap_or_default().into_iter().flatten().collect())
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
    /// The run's details (Claude Code Review ends it with its severity counts).
    pub text: Option<String>,
}

/// `GET /repos/{o}/{r}/commits/{sha}/check-runs` element (`check_runs[]`): the latest run of
/// each name on the head commit. Also what is read of the run `POST .../check-runs` creates.
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
    /// Who the token is: only its comments with the marker on their first line are our
    /// sticky. Set by the action, saved by `run --save` as `viewer.json` and read back by
    /// `render`. `None` when a saved folder does not say: a marker comment by a built-in
    /// bot's login is then never taken for ours, and a state block is read only from
    /// `github-actions[bot]`'s (`local::offline_identity`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewer: Option<Viewer>,
}

impl PrSnapshot {
    pub fn head_sha(&self) -> &str {
        &self.pull.head.sha
    }
}

/// Parse a JSON array element by element: the good ones, and a note for each bad one (an
/// element of the wrong shape, or one that could not even be built: [`Element::Unbuilt`]).
pub fn parse_list<T: DeserializeOwned>(
    surface: &str,
    items: impl IntoIterator<Item = impl Into<Element>>,
) -> (Vec<T>, Vec<Unreadable>) {
    let items = items.into_iter();
    let mut good = Vec::with_capacity(items.size_hint().0);
    let mut bad = Vec::new();
    for item in items {
        let lost = |id, login, reason| Unreadable {
            surface: surface.to_owned(),
            id,
            login,
            reason,
        };
        let item = match item.into() {
            Element::Value(item) => item,
            Element::Unbuilt { id, login, reason } => {
                let reason = crate::render::escape::one_line(&reason, MAX_REASON);
                bad.push(lost(id, login, reason));
                continue;
            }
        };
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
            Err(err) => bad.push(lost(id, login, reason(&err))),
        }
    }
    (good, bad)
}

/// A serde error as one bounded, escaped line (it may quote the object's text).
fn reason(err: &serde_json::Error) -> String {
    crate::render::escape::one_line(&err.to_string(), MAX_REASON)
}

/// Where the thread nodes are in the whole GraphQL response.
const THREAD_NODES: [&str; 5] = [
    "data",
    "repository",
    "pullRequest",
    "reviewThreads",
    "nodes",
];

/// Read GraphQL review-thread nodes from the whole response (`data.repository...`), a
/// `nodes` array or a bare array (as `run --save` writes it), node by node: a null or odd
/// node is reported (surface `review_threads`), the others kept. `Err` when the value holds
/// no thread list at all.
pub fn parse_threads(value: &Value) -> Result<(Vec<ReviewThread>, Vec<Unreadable>), String> {
    let nodes = value
        .pointer("/data/repository/pullRequest/reviewThreads/nodes")
        .or_else(|| value.pointer("/nodes"))
        .unwrap_or(value);
    let Value::Array(nodes) = nodes else {
        return Err(NO_THREAD_NODES.to_owned());
    };
    Ok(thread_nodes(nodes.iter().cloned().map(Element::Value)))
}

const NO_THREAD_NODES: &str =
    "expected GraphQL reviewThreads nodes (the whole response or the `nodes` array)";

/// `parse_threads` from the text (a saved `review_threads.json`), node by node from the
/// start: a node nested too deep to be built loses only itself.
pub fn read_threads(text: &str) -> Result<(Vec<ReviewThread>, Vec<Unreadable>), ListError> {
    let nodes = match read_list(text, &THREAD_NODES) {
        Err(ListError::NotList(_)) => read_list(text, &["nodes"]).map_err(|err| match err {
            ListError::NotList(_) => ListError::NotList(NO_THREAD_NODES.to_owned()),
            err => err,
        })?,
        read => read?,
    };
    Ok(thread_nodes(nodes))
}

fn thread_nodes(nodes: impl IntoIterator<Item = Element>) -> (Vec<ReviewThread>, Vec<Unreadable>) {
    let mut good = Vec::new();
    let mut bad = Vec::new();
    for (index, node) in nodes.into_iter().enumerate() {
        let lost = |why: String| Unreadable {
            surface: REVIEW_THREADS_SURFACE.to_owned(),
            id: None,
            login: None,
            reason: format!("thread node {index}: {why}"),
        };
        match node {
            Element::Value(Value::Null) => {
                bad.push(lost("null (GitHub could not give it)".to_owned()))
            }
            Element::Value(node) => match serde_json::from_value::<ReviewThread>(node) {
                Ok(thread) => good.push(thread),
                Err(err) => bad.push(lost(reason(&err))),
            },
            Element::Unbuilt { reason, .. } => {
                bad.push(lost(crate::render::escape::one_line(&reason, MAX_REASON)))
            }
        }
    }
    (good, bad)
}

/// The readable thread nodes of `value` (see `parse_threads`), `None` when it holds none.
pub fn threads_from_json(value: &Value) -> Option<Vec<ReviewThread>> {
    parse_threads(value).ok().map(|(good, _)| good)
}

#[cfg(test)]
mod tests {
    use super::ReviewComment;

    #[test]
    fn the_anchored_code_is_the_end_of_the_hunk_on_the_comments_side() {
        let hunk = "@@ -1,4 +1,5 @@\n def f(x):\n-    return x\n+    y = x + 1\n+    return y\n\\ No newline at end of file";
        let comment = |side: &str, start: Option<u32>, line: u32| ReviewComment {
            diff_hunk: Some(hunk.to_owned()),
            side: Some(side.to_owned()),
            original_start_line: start,
            original_line: Some(line),
            ..ReviewComment::default()
        };
        // One line: the last line of the hunk on the right side ("\ No newline" is no line).
        assert_eq!(comment("RIGHT", None, 3).anchored_code(), "    return y");
        // A range of two lines: the last two of its side.
        assert_eq!(
            comment("RIGHT", Some(2), 3).anchored_code(),
            "    y = x + 1\n    return y"
        );
        // The left side skips added lines.
        assert_eq!(comment("LEFT", None, 2).anchored_code(), "    return x");
        assert_eq!(ReviewComment::default().anchored_code(), "");
    }

    use super::*;

    #[test]
    fn thread_comment_ids_read_bigint_strings_and_old_numbers() {
        let nodes = serde_json::json!([
            {"id": "T1", "isResolved": true, "comments": {"nodes": [
                {"fullDatabaseId": "2561200101"}, {"fullDatabaseId": "18446744073709551615"}]}},
            {"id": "T2", "comments": {"nodes": [{"databaseId": 7}, {"fullDatabaseId": null}]}},
            null,
            {"id": "T4", "comments": {"nodes": [{"fullDatabaseId": "12abc"}]}},
        ]);
        let (good, bad) = parse_threads(&nodes).expect("a list");
        let ids: Vec<Vec<Option<u64>>> = good
            .iter()
            .map(|t| t.comments.nodes.iter().map(|c| c.database_id).collect())
            .collect();
        assert_eq!(
            ids,
            vec![
                vec![Some(2_561_200_101), Some(u64::MAX)],
                vec![Some(7), None]
            ]
        );
        let reasons: Vec<&str> = bad.iter().map(|u| u.reason.as_str()).collect();
        assert_eq!(bad.len(), 2, "{reasons:?}");
        assert!(reasons[0].starts_with("thread node 2: null"), "{reasons:?}");
        assert!(reasons[1].starts_with("thread node 3:") && reasons[1].contains("12abc"));
        // Written back as GitHub sends it.
        let saved = serde_json::to_value(&good[0].comments.nodes[0]).unwrap();
        assert_eq!(saved, serde_json::json!({"fullDatabaseId": "2561200101"}));
        assert!(parse_threads(&serde_json::json!({"x": 1})).is_err());
    }

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
