//! A fake GitHub on 127.0.0.1 (wiremock): serves one PR's saved API JSON over REST (every
//! list paged with `Link` headers, every read with an `ETag`, answered 304 to a matching
//! `If-None-Match`) and GraphQL (review threads with their nested comment pages, viewer),
//! accepts sticky comment and check-run writes with state (a second run edits in place),
//! answers the collaborator-permission lookups it was given (404 for anyone else, as for a
//! non-collaborator), logs every request and answers anything else with a loud 500. Shared
//! by the integration tests and by `examples/fake_github.rs` / `examples/action_bench.rs`
//! (included there with `#[path]`).
//!
//! Where GitHub's answers matter it answers as GitHub does: thread comment ids as
//! `fullDatabaseId` strings, and the deprecated 32-bit `databaseId` above 2^31 as a null
//! with the field error GitHub's GraphQL engine (graphql-ruby) gives.

use std::fs::File;
use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{json, Value};
use wiremock::matchers::{any, method, path, path_regex};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// One PR's API data, as the endpoints return it (de-paginated).
#[derive(Debug, Clone)]
pub struct PrData {
    pub owner: String,
    pub repo: String,
    pub number: u64,
    pub pull: Value,
    pub review_comments: Vec<Value>,
    pub reviews: Vec<Value>,
    pub issue_comments: Vec<Value>,
    /// `None`: code scanning answers 404 (not enabled).
    pub code_scanning: Option<Vec<Value>>,
    /// GraphQL `reviewThreads` nodes.
    pub threads: Vec<Value>,
    /// Reactions on the PR, check runs and statuses of the head commit.
    pub reactions: Vec<Value>,
    pub head_check_runs: Vec<Value>,
    pub statuses: Vec<Value>,
    /// `committer.date` of the head commit (`pulls/{n}/commits`).
    pub head_committed_at: String,
}

impl PrData {
    /// Read a saved-API-JSON folder (`pull.json`, `review_comments.json`, ...).
    pub fn from_dir(dir: &Path) -> Result<PrData, String> {
        let read = |name: &str| -> Result<Option<Value>, String> {
            let file = dir.join(name);
            if !file.exists() {
                return Ok(None);
            }
            let text =
                std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
            serde_json::from_str(&text)
                .map(Some)
                .map_err(|e| format!("{}: {e}", file.display()))
        };
        let list = |name: &str| -> Result<Vec<Value>, String> {
            Ok(match read(name)? {
                Some(Value::Array(items)) => items,
                Some(_) => return Err(format!("{name}: not a JSON array")),
                None => Vec::new(),
            })
        };
        let pull = read("pull.json")?.ok_or("pull.json is missing")?;
        let full_name = pull
            .pointer("/base/repo/full_name")
            .and_then(Value::as_str)
            .unwrap_or("acme/repo")
            .to_owned();
        let (owner, repo) = full_name.split_once('/').ok_or("bad full_name")?;
        let threads = match read("review_threads.json")? {
            Some(v) => v
                .pointer("/data/repository/pullRequest/reviewThreads/nodes")
                .or_else(|| v.pointer("/nodes"))
                .cloned()
                .unwrap_or(v)
                .as_array()
                .cloned()
                .unwrap_or_default(),
            None => Vec::new(),
        };
        let head_check_runs = match read("check_runs.json")? {
            Some(Value::Object(o)) => o
                .get("check_runs")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        };
        let head_committed_at = read("head_commit.json")?
            .and_then(|c| {
                c.pointer("/committer/date")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| "2025-01-01T00:00:00Z".to_owned());
        Ok(PrData {
            owner: owner.to_owned(),
            repo: repo.to_owned(),
            number: pull.get("number").and_then(Value::as_u64).unwrap_or(1),
            pull,
            review_comments: list("review_comments.json")?,
            reviews: list("reviews.json")?,
            issue_comments: list("issue_comments.json")?,
            code_scanning: read("code_scanning_alerts.json")?.and_then(|v| v.as_array().cloned()),
            threads,
            reactions: list("reactions.json")?,
            head_check_runs,
            statuses: list("statuses.json")?,
            head_committed_at,
        })
    }

    /// An empty PR with a head commit.
    pub fn empty(owner: &str, repo: &str, number: u64, head_sha: &str) -> PrData {
        let full = format!("{owner}/{repo}");
        PrData {
            owner: owner.to_owned(),
            repo: repo.to_owned(),
            number,
            pull: json!({
                "number": number, "title": "a change",
                "html_url": format!("https://github.com/{full}/pull/{number}"),
                "user": {"login": "alice", "id": 1, "type": "User"},
                "head": {"sha": head_sha, "ref": "feature", "repo": {"full_name": full}},
                "base": {"sha": "b".repeat(40), "ref": "main", "repo": {"full_name": full}},
            }),
            review_comments: Vec::new(),
            reviews: Vec::new(),
            issue_comments: Vec::new(),
            code_scanning: None,
            threads: Vec::new(),
            reactions: Vec::new(),
            head_check_runs: Vec::new(),
            statuses: Vec::new(),
            head_committed_at: "2025-01-01T00:00:00Z".to_owned(),
        }
    }

    /// Write the data as a saved-API-JSON folder (what `render DIR` reads).
    pub fn save_dir(&self, dir: &Path) -> Result<(), String> {
        let write = |name: &str, value: &Value| {
            let text = serde_json::to_string(value).map_err(|e| e.to_string())?;
            std::fs::write(dir.join(name), text).map_err(|e| format!("{name}: {e}"))
        };
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        write("pull.json", &self.pull)?;
        write(
            "review_comments.json",
            &Value::Array(self.review_comments.clone()),
        )?;
        write("reviews.json", &Value::Array(self.reviews.clone()))?;
        write(
            "issue_comments.json",
            &Value::Array(self.issue_comments.clone()),
        )?;
        if let Some(alerts) = &self.code_scanning {
            write("code_scanning_alerts.json", &Value::Array(alerts.clone()))?;
        }
        if !self.threads.is_empty() {
            write("review_threads.json", &Value::Array(self.threads.clone()))?;
        }
        Ok(())
    }

    pub fn fixture(name: &str) -> PrData {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name);
        match PrData::from_dir(&dir) {
            Ok(data) => data,
            Err(err) => panic!("fixture {name}: {err}"),
        }
    }
}

/// Mutable server state: the comment list (with our writes), check runs, the request log.
/// Reviews, reactions and the head's check runs and statuses live here too, so a test can
/// make a bot answer while a run polls.
#[derive(Debug, Default)]
pub struct State {
    pub issue_comments: Vec<Value>,
    pub reviews: Vec<Value>,
    pub reactions: Vec<Value>,
    pub head_check_runs: Vec<Value>,
    pub statuses: Vec<Value>,
    /// Reads answered 304 Not Modified.
    pub not_modified: usize,
    pub check_runs: Vec<Value>,
    /// `(method, annotations in the request)` for every check-run write.
    pub check_writes: Vec<(String, usize)>,
    /// `METHOD /path?query` of every request, in order.
    pub requests: Vec<String>,
    /// Requests nothing was meant to answer.
    pub unexpected: Vec<String>,
    next_id: u64,
    log: Option<File>,
}

/// Fluent set-up of a fake GitHub for one PR.
pub struct FakeBuilder {
    data: PrData,
    api_prefix: String,
    graphql_path: String,
    viewer: Option<String>,
    viewer_type: String,
    page_size: usize,
    thread_page_size: usize,
    comment_page_size: usize,
    threads_fail: bool,
    link_loop: bool,
    faults: Vec<(String, String, ResponseTemplate, u64)>,
    log_file: Option<PathBuf>,
    port: u16,
    /// `login -> (permission, role_name)` for the collaborator-permission endpoint.
    permissions: Vec<(String, String, String)>,
}

impl FakeBuilder {
    pub fn new(data: PrData) -> FakeBuilder {
        FakeBuilder {
            data,
            api_prefix: String::new(),
            graphql_path: "/graphql".to_owned(),
            viewer: Some("github-actions[bot]".to_owned()),
            viewer_type: "Bot".to_owned(),
            page_size: 100,
            thread_page_size: 100,
            comment_page_size: 100,
            threads_fail: false,
            link_loop: false,
            faults: Vec::new(),
            log_file: None,
            port: 0,
            permissions: Vec::new(),
        }
    }

    /// `GET /repos/{o}/{r}/collaborators/{login}/permission` answers GitHub's shape with
    /// this `permission` (`admin`, `write`, `read`, `none`) and `role_name`.
    pub fn permission(mut self, login: &str, permission: &str, role_name: &str) -> Self {
        self.permissions.push((
            login.to_owned(),
            permission.to_owned(),
            role_name.to_owned(),
        ));
        self
    }

    /// GHES layout: REST under `/api/v3`, GraphQL at `/api/graphql`.
    pub fn ghes(mut self) -> Self {
        self.api_prefix = "/api/v3".to_owned();
        self.graphql_path = "/api/graphql".to_owned();
        self
    }

    /// The GraphQL `viewer.login` (an app, `__typename` Bot); `None` makes the viewer
    /// query fail.
    pub fn viewer(mut self, login: Option<&str>) -> Self {
        self.viewer = login.map(str::to_owned);
        self.viewer_type = "Bot".to_owned();
        self
    }

    /// The token is a person's (a personal access token): `__typename` User, and the
    /// comments it creates are by that `type: User` login.
    pub fn user_viewer(mut self, login: &str) -> Self {
        self.viewer = Some(login.to_owned());
        self.viewer_type = "User".to_owned();
        self
    }

    /// Items per page of every REST list (GitHub's is 100).
    pub fn page_size(mut self, size: usize) -> Self {
        self.page_size = size.max(1);
        self
    }

    pub fn thread_page_size(mut self, size: usize) -> Self {
        self.thread_page_size = size.max(1);
        self
    }

    /// Comments per page of a thread's nested `comments` connection (GitHub's is 100).
    pub fn comment_page_size(mut self, size: usize) -> Self {
        self.comment_page_size = size.max(1);
        self
    }

    pub fn threads_fail(mut self) -> Self {
        self.threads_fail = true;
        self
    }

    /// The last page of every REST list links back to the first (a broken or hostile server).
    pub fn link_loop(mut self) -> Self {
        self.link_loop = true;
        self
    }

    /// Answer the next `times` requests to `method` + `path` with `template` instead.
    /// REST paths (`/repos/...`) are given without the API prefix; GraphQL as `/graphql`.
    pub fn fault(
        mut self,
        method: &str,
        path: &str,
        template: ResponseTemplate,
        times: u64,
    ) -> Self {
        self.faults
            .push((method.to_owned(), path.to_owned(), template, times));
        self
    }

    pub fn log_file(mut self, path: PathBuf) -> Self {
        self.log_file = Some(path);
        self
    }

    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    pub async fn start(self) -> FakeGitHub {
        let listener = match TcpListener::bind(("127.0.0.1", self.port)) {
            Ok(l) => l,
            Err(err) => panic!("cannot bind 127.0.0.1:{}: {err}", self.port),
        };
        let server = MockServer::builder().listener(listener).start().await;
        let log = self.log_file.as_ref().map(|p| match File::create(p) {
            Ok(f) => f,
            Err(err) => panic!("cannot create {}: {err}", p.display()),
        });
        let next_id = self
            .data
            .issue_comments
            .iter()
            .filter_map(|c| c.get("id").and_then(Value::as_u64))
            .max()
            .unwrap_or(1_000)
            + 1;
        let state = Arc::new(Mutex::new(State {
            issue_comments: self.data.issue_comments.clone(),
            reviews: self.data.reviews.clone(),
            reactions: self.data.reactions.clone(),
            head_check_runs: self.data.head_check_runs.clone(),
            statuses: self.data.statuses.clone(),
            next_id,
            log,
            ..State::default()
        }));
        let ctx = Arc::new(Ctx {
            data: self.data,
            base: server.uri(),
            viewer: self.viewer,
            viewer_type: self.viewer_type,
            page_size: self.page_size,
            thread_page_size: self.thread_page_size,
            comment_page_size: self.comment_page_size,
            threads_fail: self.threads_fail,
            link_loop: self.link_loop,
            permissions: self.permissions,
        });
        let route = |kind: Kind| Route {
            ctx: ctx.clone(),
            state: state.clone(),
            kind,
        };
        let p = &self.api_prefix;
        let repo = format!("{p}/repos/{}/{}", ctx.data.owner, ctx.data.repo);
        let n = ctx.data.number;
        let head = ctx
            .data
            .pull
            .pointer("/head/sha")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        for (m, fault_path, template, times) in self.faults {
            let full = if fault_path == "/graphql" {
                self.graphql_path.clone()
            } else {
                format!("{p}{fault_path}")
            };
            Mock::given(method(m.as_str()))
                .and(path(full))
                .respond_with(route(Kind::Fixed(template)))
                .up_to_n_times(times)
                .mount(&server)
                .await;
        }
        let routes = [
            ("GET", format!("{repo}/pulls/{n}"), Kind::Pull),
            (
                "GET",
                format!("{repo}/pulls/{n}/comments"),
                Kind::List(List::ReviewComments),
            ),
            (
                "GET",
                format!("{repo}/pulls/{n}/reviews"),
                Kind::List(List::Reviews),
            ),
            (
                "GET",
                format!("{repo}/issues/{n}/comments"),
                Kind::List(List::IssueComments),
            ),
            (
                "GET",
                format!("{repo}/code-scanning/alerts"),
                Kind::List(List::CodeScanning),
            ),
            (
                "GET",
                format!("{repo}/issues/{n}/reactions"),
                Kind::List(List::Reactions),
            ),
            (
                "GET",
                format!("{repo}/commits/{head}/check-runs"),
                Kind::List(List::CheckRuns),
            ),
            (
                "GET",
                format!("{repo}/commits/{head}/statuses"),
                Kind::List(List::Statuses),
            ),
            (
                "GET",
                format!("{repo}/pulls/{n}/commits"),
                Kind::PullCommits,
            ),
            (
                "POST",
                format!("{repo}/issues/{n}/comments"),
                Kind::CreateComment,
            ),
            ("POST", format!("{repo}/check-runs"), Kind::CreateCheck),
            ("GET", format!("{repo}/pulls"), Kind::List(List::Pulls)),
            ("POST", self.graphql_path.clone(), Kind::GraphQl),
        ];
        for (m, route_path, kind) in routes {
            Mock::given(method(m))
                .and(path(route_path))
                .respond_with(route(kind))
                .mount(&server)
                .await;
        }
        let permission_re = format!("^{}/collaborators/[^/]+/permission$", regex_escape(&repo));
        Mock::given(method("GET"))
            .and(path_regex(permission_re.as_str()))
            .respond_with(route(Kind::Permission))
            .mount(&server)
            .await;
        let comment_re = format!("^{}/issues/comments/[0-9]+$", regex_escape(&repo));
        let check_re = format!("^{}/check-runs/[0-9]+$", regex_escape(&repo));
        for (m, re, kind) in [
            ("PATCH", &comment_re, Kind::EditComment),
            ("DELETE", &comment_re, Kind::DeleteComment),
            ("PATCH", &check_re, Kind::UpdateCheck),
        ] {
            Mock::given(method(m))
                .and(path_regex(re.as_str()))
                .respond_with(route(kind))
                .mount(&server)
                .await;
        }
        Mock::given(any())
            .respond_with(route(Kind::Unexpected))
            .mount(&server)
            .await;
        FakeGitHub {
            api_url: format!("{}{}", server.uri(), self.api_prefix),
            graphql_url: format!("{}{}", server.uri(), self.graphql_path),
            server,
            state,
        }
    }
}

fn regex_escape(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let special = ".+*?()[]{}|^$\\".contains(c);
            special
                .then_some('\\')
                .into_iter()
                .chain(std::iter::once(c))
        })
        .collect()
}

/// A running fake; dropped = stopped.
pub struct FakeGitHub {
    pub server: MockServer,
    pub state: Arc<Mutex<State>>,
    /// `GITHUB_API_URL` for it.
    pub api_url: String,
    /// `GITHUB_GRAPHQL_URL` for it.
    pub graphql_url: String,
}

impl FakeGitHub {
    pub fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// The requests so far whose `METHOD /path` starts with `prefix`.
    pub fn count(&self, prefix: &str) -> usize {
        self.state()
            .requests
            .iter()
            .filter(|r| r.starts_with(prefix))
            .count()
    }

    pub fn comments(&self) -> Vec<Value> {
        self.state().issue_comments.clone()
    }

    /// The requests sent between the two that start with `prefix` (a write tried twice).
    pub fn between_the_two(&self, prefix: &str) -> Vec<String> {
        let requests = self.state().requests.clone();
        let at: Vec<usize> = (0..requests.len())
            .filter(|&i| requests[i].starts_with(prefix))
            .collect();
        assert_eq!(at.len(), 2, "{prefix} twice: {requests:?}");
        requests[at[0] + 1..at[1]].to_vec()
    }

    /// Every request was one the fake knows (GitHub would have answered it).
    pub fn assert_clean(&self) {
        let state = self.state();
        assert!(
            state.unexpected.is_empty(),
            "unexpected: {:?}",
            state.unexpected
        );
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

struct Ctx {
    data: PrData,
    base: String,
    viewer: Option<String>,
    viewer_type: String,
    page_size: usize,
    thread_page_size: usize,
    comment_page_size: usize,
    threads_fail: bool,
    link_loop: bool,
    permissions: Vec<(String, String, String)>,
}

#[derive(Clone, Copy)]
enum List {
    ReviewComments,
    Reviews,
    IssueComments,
    CodeScanning,
    /// Open PRs (`?state=open&head=owner:branch`): the one PR, when its head matches.
    Pulls,
    Reactions,
    /// Answered as GitHub does: `{"total_count", "check_runs": [...]}`.
    CheckRuns,
    Statuses,
}

enum Kind {
    Pull,
    PullCommits,
    List(List),
    CreateComment,
    EditComment,
    DeleteComment,
    CreateCheck,
    UpdateCheck,
    GraphQl,
    Permission,
    Fixed(ResponseTemplate),
    Unexpected,
}

struct Route {
    ctx: Arc<Ctx>,
    state: Arc<Mutex<State>>,
    kind: Kind,
}

impl Respond for Route {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let mut state = lock(&self.state);
        let line = match request.url.query() {
            Some(q) => format!("{} {}?{q}", request.method, request.url.path()),
            None => format!("{} {}", request.method, request.url.path()),
        };
        if let Some(log) = state.log.as_mut() {
            let _ = writeln!(log, "{line}");
        }
        state.requests.push(line.clone());
        match &self.kind {
            Kind::Fixed(template) => template.clone(),
            Kind::Unexpected => {
                state.unexpected.push(line.clone());
                let message = format!("unexpected request: {line}");
                let _ = writeln!(std::io::stderr(), "fake GitHub: {message}");
                ResponseTemplate::new(500).set_body_json(json!({ "message": message }))
            }
            Kind::Pull => conditional(
                &mut state,
                request,
                ok(&self.ctx.data.pull),
                &self.ctx.data.pull,
            ),
            Kind::PullCommits => {
                let commits = json!([{
                    "sha": self.ctx.data.pull.pointer("/head/sha"),
                    "commit": {"committer": {"name": "alice", "email": "a@example.com",
                                             "date": self.ctx.data.head_committed_at}},
                }]);
                conditional(&mut state, request, ok(&commits), &commits)
            }
            Kind::List(list) => self.list(&mut state, *list, request),
            Kind::CreateComment => self.create_comment(&mut state, request),
            Kind::EditComment => self.edit_comment(&mut state, request),
            Kind::DeleteComment => {
                let id = last_id(request);
                let before = state.issue_comments.len();
                state
                    .issue_comments
                    .retain(|c| c.get("id").and_then(Value::as_u64) != Some(id));
                if state.issue_comments.len() == before {
                    not_found()
                } else {
                    ResponseTemplate::new(204)
                }
            }
            Kind::CreateCheck => {
                let body: Value = request.body_json().unwrap_or(Value::Null);
                let id = state.next_id;
                state.next_id += 1;
                let count = annotations(&body);
                state.check_writes.push(("POST".to_owned(), count));
                let mut run = body.clone();
                run["id"] = json!(id);
                run["html_url"] = json!(format!(
                    "https://github.com/{}/{}/runs/{id}",
                    self.ctx.data.owner, self.ctx.data.repo
                ));
                state.check_runs.push(run.clone());
                ResponseTemplate::new(201).set_body_json(run)
            }
            Kind::UpdateCheck => {
                let body: Value = request.body_json().unwrap_or(Value::Null);
                let id = last_id(request);
                let count = annotations(&body);
                state.check_writes.push(("PATCH".to_owned(), count));
                match state
                    .check_runs
                    .iter()
                    .find(|r| r.get("id").and_then(Value::as_u64) == Some(id))
                {
                    Some(run) => ok(run),
                    None => not_found(),
                }
            }
            Kind::GraphQl => self.graphql(request),
            Kind::Permission => self.permission(request),
        }
    }
}

impl Route {
    fn list(&self, state: &mut State, list: List, request: &Request) -> ResponseTemplate {
        let data = &self.ctx.data;
        let pulls: Vec<Value>;
        let items: &[Value] = match list {
            List::Pulls => {
                let pull = &data.pull;
                let head = format!(
                    "{}:{}",
                    pull.pointer("/head/repo/owner/login")
                        .or_else(|| pull.pointer("/head/user/login"))
                        .and_then(Value::as_str)
                        .unwrap_or(""),
                    pull.pointer("/head/ref")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                );
                let wanted = query(request, "head");
                pulls = if wanted.is_none_or(|w| w == head) {
                    vec![pull.clone()]
                } else {
                    Vec::new()
                };
                &pulls
            }
            List::ReviewComments => &data.review_comments,
            List::Reviews => &state.reviews,
            List::IssueComments => &state.issue_comments,
            List::Reactions => &state.reactions,
            List::CheckRuns => &state.head_check_runs,
            List::Statuses => &state.statuses,
            List::CodeScanning => match &data.code_scanning {
                Some(alerts) => alerts,
                None => {
                    return ResponseTemplate::new(404).set_body_json(
                        json!({"message": "Code scanning is not enabled for this repository"}),
                    )
                }
            },
        };
        let page: usize = query(request, "page")
            .and_then(|p| p.parse().ok())
            .unwrap_or(1)
            .max(1);
        let size = self.ctx.page_size;
        let start = (page - 1) * size;
        let chunk: Vec<Value> = items.iter().skip(start).take(size).cloned().collect();
        let body = match list {
            List::CheckRuns => json!({"total_count": items.len(), "check_runs": chunk}),
            _ => Value::Array(chunk),
        };
        let more = start + size < items.len();
        let mut template = ResponseTemplate::new(200).set_body_json(body.clone());
        if !more && self.ctx.link_loop {
            let first = format!(
                "{}{}?per_page=100&page=1",
                self.ctx.base,
                request.url.path()
            );
            template = template.insert_header("link", format!("<{first}>; rel=\"next\"").as_str());
        } else if more {
            let mut pairs: Vec<(String, String)> = request
                .url
                .query_pairs()
                .filter(|(k, _)| k != "page")
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect();
            pairs.push(("page".to_owned(), (page + 1).to_string()));
            let query = pairs
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join("&");
            let next = format!("{}{}?{query}", self.ctx.base, request.url.path());
            template = template.insert_header("link", format!("<{next}>; rel=\"next\"").as_str());
        }
        conditional(state, request, template, &json!([body, more]))
    }

    fn create_comment(&self, state: &mut State, request: &Request) -> ResponseTemplate {
        let Some(body) = request
            .body_json::<Value>()
            .ok()
            .and_then(|b| b.get("body").and_then(Value::as_str).map(str::to_owned))
        else {
            return ResponseTemplate::new(422).set_body_json(json!({"message": "body is missing"}));
        };
        let id = state.next_id;
        state.next_id += 1;
        let login = self
            .ctx
            .viewer
            .clone()
            .unwrap_or_else(|| "github-actions[bot]".to_owned());
        let comment = json!({
            "id": id,
            "body": body,
            "user": {"login": login, "id": 41898282, "type": self.ctx.viewer_type},
            "html_url": format!(
                "https://github.com/{}/{}/pull/{}#issuecomment-{id}",
                self.ctx.data.owner, self.ctx.data.repo, self.ctx.data.number
            ),
            "created_at": "2026-01-01T00:00:00Z",
        });
        state.issue_comments.push(comment.clone());
        ResponseTemplate::new(201).set_body_json(comment)
    }

    fn edit_comment(&self, state: &mut State, request: &Request) -> ResponseTemplate {
        let id = last_id(request);
        let body = request
            .body_json::<Value>()
            .ok()
            .and_then(|b| b.get("body").cloned());
        match (
            state
                .issue_comments
                .iter_mut()
                .find(|c| c.get("id").and_then(Value::as_u64) == Some(id)),
            body,
        ) {
            (Some(comment), Some(body)) => {
                comment["body"] = body;
                ok(comment)
            }
            (None, _) => not_found(),
            (_, None) => ResponseTemplate::new(422).set_body_json(json!({"message": "no body"})),
        }
    }

    /// GitHub's `repository-collaborator-permission` shape (@octokit/openapi).
    fn permission(&self, request: &Request) -> ResponseTemplate {
        let segments: Vec<&str> = request.url.path().rsplit('/').collect();
        let login = segments.get(1).copied().unwrap_or("");
        match self
            .ctx
            .permissions
            .iter()
            .find(|(l, _, _)| l.eq_ignore_ascii_case(login))
        {
            Some((l, permission, role)) => ok(&json!({
                "permission": permission,
                "role_name": role,
                "user": {"login": l, "id": 7, "type": "User", "site_admin": false},
            })),
            None => not_found(),
        }
    }

    fn graphql(&self, request: &Request) -> ResponseTemplate {
        let body: Value = request.body_json().unwrap_or(Value::Null);
        let query = body.get("query").and_then(Value::as_str).unwrap_or("");
        if query.contains("viewer") {
            return match &self.ctx.viewer {
                Some(login) => ok(&json!({"data": {"viewer": {
                    "login": login, "__typename": self.ctx.viewer_type,
                }}})),
                None => ok(&json!({"errors": [{"message": "viewer is not available"}]})),
            };
        }
        if query.contains("node(id:") {
            return self.thread_comments(&body, query);
        }
        if query.contains("reviewThreads") {
            if self.ctx.threads_fail {
                return ok(&json!({"errors": [{"message": "Field 'isOutdated' doesn't exist"}]}));
            }
            let start: usize = body
                .pointer("/variables/cursor")
                .and_then(Value::as_str)
                .and_then(|c| c.trim_start_matches('c').parse().ok())
                .unwrap_or(0);
            let size = self.ctx.thread_page_size;
            let mut errors = Vec::new();
            let nodes: Vec<Value> = self
                .ctx
                .data
                .threads
                .iter()
                .enumerate()
                .skip(start)
                .take(size)
                .map(|(i, thread)| {
                    let mut node = thread.clone();
                    let comments = thread_comment_nodes(thread);
                    let page = self.comment_page(&comments, 0, query, &[i - start], &mut errors);
                    node["comments"] = page;
                    node
                })
                .collect();
            let more = start + size < self.ctx.data.threads.len();
            let mut answer = json!({"data": {"repository": {"pullRequest": {"reviewThreads": {
                "pageInfo": {"hasNextPage": more, "endCursor": format!("c{}", start + size)},
                "nodes": nodes,
            }}}}});
            if !errors.is_empty() {
                answer["errors"] = Value::Array(errors);
            }
            return ok(&answer);
        }
        ResponseTemplate::new(500).set_body_json(json!({"message": "unexpected GraphQL query"}))
    }
}

impl Route {
    /// One page of a thread's comments, each with the id fields the query selects.
    fn comment_page(
        &self,
        comments: &[Value],
        start: usize,
        query: &str,
        thread_index: &[usize],
        errors: &mut Vec<Value>,
    ) -> Value {
        let size = self.ctx.comment_page_size;
        let nodes: Vec<Value> = comments
            .iter()
            .enumerate()
            .skip(start)
            .take(size)
            .map(|(k, comment)| comment_node(comment, query, thread_index, k - start, errors))
            .collect();
        json!({
            "pageInfo": {"hasNextPage": start + size < comments.len(), "endCursor": format!("k{}", start + size)},
            "nodes": nodes,
        })
    }

    /// `node(id:) { ... on PullRequestReviewThread { comments(after:) } }`.
    fn thread_comments(&self, body: &Value, query: &str) -> ResponseTemplate {
        let id = body
            .pointer("/variables/id")
            .and_then(Value::as_str)
            .unwrap_or("");
        let Some(thread) = self.ctx.data.threads.iter().find(|t| t["id"] == id) else {
            return ok(
                &json!({"data": {"node": null}, "errors": [{"message": format!("Could not resolve to a node with the global id of '{id}'")}]}),
            );
        };
        let start: usize = body
            .pointer("/variables/cursor")
            .and_then(Value::as_str)
            .and_then(|c| c.trim_start_matches('k').parse().ok())
            .unwrap_or(0);
        let mut errors = Vec::new();
        let page = self.comment_page(
            &thread_comment_nodes(thread),
            start,
            query,
            &[],
            &mut errors,
        );
        let mut answer = json!({"data": {"node": {"comments": page}}});
        if !errors.is_empty() {
            answer["errors"] = Value::Array(errors);
        }
        ok(&answer)
    }
}

fn thread_comment_nodes(thread: &Value) -> Vec<Value> {
    thread
        .pointer("/comments/nodes")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// A comment node as GitHub answers the query: `fullDatabaseId` as a string; the deprecated
/// 32-bit `databaseId` null above 2^31, with graphql-ruby's `IntegerEncodingError`.
fn comment_node(
    comment: &Value,
    query: &str,
    thread_index: &[usize],
    index: usize,
    errors: &mut Vec<Value>,
) -> Value {
    let id = comment
        .get("fullDatabaseId")
        .and_then(|v| {
            v.as_str()
                .and_then(|s| s.parse().ok())
                .or_else(|| v.as_u64())
        })
        .or_else(|| comment.get("databaseId").and_then(Value::as_u64));
    let mut node = serde_json::Map::new();
    if query.contains("fullDatabaseId") {
        node.insert(
            "fullDatabaseId".into(),
            id.map_or(Value::Null, |id| json!(id.to_string())),
        );
    } else if query.contains("databaseId") {
        match id {
            Some(id) if id > i32::MAX as u64 => {
                let mut path = vec![
                    json!("repository"),
                    json!("pullRequest"),
                    json!("reviewThreads"),
                    json!("nodes"),
                ];
                path.extend(thread_index.iter().map(|i| json!(i)));
                path.extend([
                    json!("comments"),
                    json!("nodes"),
                    json!(index),
                    json!("databaseId"),
                ]);
                let dotted: Vec<String> = path
                    .iter()
                    .map(|p| p.as_str().map_or_else(|| p.to_string(), str::to_owned))
                    .collect();
                errors.push(json!({
                    "message": format!("Integer out of bounds: {id} @ {} (PullRequestReviewComment.databaseId). Consider using ID or GraphQL::Types::BigInt instead.", dotted.join(".")),
                    "locations": [{"line": 1, "column": 1}],
                    "path": path,
                }));
                node.insert("databaseId".into(), Value::Null);
            }
            other => {
                node.insert("databaseId".into(), json!(other));
            }
        }
    }
    Value::Object(node)
}

/// Add an `ETag` (a hash of what the answer says); answer 304 with no body to a request whose
/// `If-None-Match` carries it, as GitHub does.
fn conditional(
    state: &mut State,
    request: &Request,
    template: ResponseTemplate,
    content: &Value,
) -> ResponseTemplate {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    content.to_string().hash(&mut hasher);
    let etag = format!("W/\"{:016x}\"", hasher.finish());
    let asked = request
        .headers
        .get("if-none-match")
        .and_then(|v| v.to_str().ok());
    if asked == Some(etag.as_str()) {
        state.not_modified += 1;
        return ResponseTemplate::new(304).insert_header("etag", etag.as_str());
    }
    template.insert_header("etag", etag.as_str())
}

fn ok(value: &Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(value.clone())
}

fn not_found() -> ResponseTemplate {
    ResponseTemplate::new(404).set_body_json(json!({"message": "Not Found"}))
}

fn last_id(request: &Request) -> u64 {
    request
        .url
        .path()
        .rsplit('/')
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

fn query(request: &Request, name: &str) -> Option<String> {
    request
        .url
        .query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

fn annotations(body: &Value) -> usize {
    body.pointer("/output/annotations")
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
}
