//! A fake GitHub on 127.0.0.1 (wiremock) serving one repository with many closed PRs, for
//! `stats`: the closed-PR list (sorted by `updated_at`, newest first, paged with `Link`) and,
//! per PR, every read `fetch_snapshot` makes (the pull, its three comment lists,
//! code-scanning alerts by `ref`, GraphQL review threads by number). Logs every request and
//! answers anything else with a loud 500. Shared by the integration tests and
//! `examples/stats_bench.rs` (included there with `#[path]`).

use std::collections::HashMap;
use std::net::TcpListener;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{json, Value};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::fake::PrData;

/// One closed PR: its API data and when it was merged (`None`: closed unmerged) and updated.
#[derive(Debug, Clone)]
pub struct RepoPr {
    pub data: PrData,
    pub merged_at: Option<String>,
    pub updated_at: String,
}

#[derive(Debug, Default)]
pub struct RepoState {
    /// `METHOD /path?query` of every request, in order.
    pub requests: Vec<String>,
    pub unexpected: Vec<String>,
}

pub struct FakeRepo {
    pub server: MockServer,
    pub api_url: String,
    pub graphql_url: String,
    state: Arc<Mutex<RepoState>>,
}

impl FakeRepo {
    /// Serve `prs` of `owner/repo`, `page_size` items per REST page. Each PR's data is
    /// renumbered into this repository; each `failing` PR answers every read of the pull
    /// with its status (502: a server error; 403: a rate limit with `x-ratelimit-remaining: 0`).
    pub async fn start(
        owner: &str,
        repo: &str,
        prs: Vec<RepoPr>,
        page_size: usize,
        failing: &[(u64, u16)],
    ) -> FakeRepo {
        let listener = match TcpListener::bind(("127.0.0.1", 0)) {
            Ok(l) => l,
            Err(err) => panic!("cannot bind 127.0.0.1: {err}"),
        };
        let server = MockServer::builder().listener(listener).start().await;
        let full = format!("{owner}/{repo}");
        let mut prs: Vec<RepoPr> = prs
            .into_iter()
            .map(|mut pr| {
                let n = pr.data.number;
                let pull = &mut pr.data.pull;
                pull["number"] = json!(n);
                pull["state"] = json!("closed");
                pull["merged_at"] = json!(pr.merged_at);
                pull["updated_at"] = json!(pr.updated_at);
                pull["closed_at"] = json!(pr.merged_at.as_ref().unwrap_or(&pr.updated_at));
                pull["base"]["repo"]["full_name"] = json!(full);
                pull["html_url"] = json!(format!("https://github.com/{full}/pull/{n}"));
                pr.data.owner = owner.to_owned();
                pr.data.repo = repo.to_owned();
                pr
            })
            .collect();
        prs.sort_by(|a, b| b.updated_at.cmp(&a.updated_at));
        let state = Arc::new(Mutex::new(RepoState::default()));
        let route = RepoRoute {
            prs,
            repo_path: format!("/repos/{full}"),
            base: server.uri(),
            page_size: page_size.max(1),
            failing: failing.iter().copied().collect(),
            state: state.clone(),
        };
        Mock::given(any()).respond_with(route).mount(&server).await;
        FakeRepo {
            api_url: server.uri(),
            graphql_url: format!("{}/graphql", server.uri()),
            server,
            state,
        }
    }

    pub fn state(&self) -> MutexGuard<'_, RepoState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Clear the request log (between runs).
    pub fn reset_log(&self) {
        let mut state = self.state();
        state.requests.clear();
        state.unexpected.clear();
    }
}

struct RepoRoute {
    prs: Vec<RepoPr>,
    repo_path: String,
    base: String,
    page_size: usize,
    failing: HashMap<u64, u16>,
    state: Arc<Mutex<RepoState>>,
}

impl Respond for RepoRoute {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let path = request.url.path();
        let line = match request.url.query() {
            Some(q) => format!("{} {path}?{q}", request.method),
            None => format!("{} {path}", request.method),
        };
        let answer = self.answer(request);
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        state.requests.push(line.clone());
        match answer {
            Some(template) => template,
            None => {
                state.unexpected.push(line.clone());
                let message = format!("unexpected request: {line}");
                ResponseTemplate::new(500).set_body_json(json!({ "message": message }))
            }
        }
    }
}

impl RepoRoute {
    fn answer(&self, request: &Request) -> Option<ResponseTemplate> {
        let method = request.method.as_str();
        let path = request.url.path();
        if method == "POST" && path == "/graphql" {
            return self.threads(request);
        }
        if method != "GET" {
            return None;
        }
        let rest = path.strip_prefix(&self.repo_path)?;
        let parts: Vec<&str> = rest.split('/').filter(|p| !p.is_empty()).collect();
        match parts.as_slice() {
            ["pulls"] => {
                let wanted = [
                    ("state", "closed"),
                    ("sort", "updated"),
                    ("direction", "desc"),
                ];
                if !wanted
                    .iter()
                    .all(|(k, v)| query(request, k).as_deref() == Some(*v))
                {
                    return None;
                }
                let pulls: Vec<Value> = self.prs.iter().map(|p| p.data.pull.clone()).collect();
                Some(self.page(&pulls, request))
            }
            ["pulls", n] => {
                let pr = self.pr(n)?;
                match self.failing.get(&pr.data.number) {
                    Some(403) => {
                        return Some(
                            ResponseTemplate::new(403)
                                .insert_header("x-ratelimit-remaining", "0")
                                .set_body_json(json!({"message": "API rate limit exceeded"})),
                        )
                    }
                    Some(status) => {
                        return Some(
                            ResponseTemplate::new(*status)
                                .set_body_json(json!({"message": "Bad gateway"})),
                        )
                    }
                    None => {}
                }
                Some(ResponseTemplate::new(200).set_body_json(pr.data.pull.clone()))
            }
            ["pulls", n, "comments"] => Some(self.page(&self.pr(n)?.data.review_comments, request)),
            ["pulls", n, "reviews"] => Some(self.page(&self.pr(n)?.data.reviews, request)),
            ["issues", n, "comments"] => Some(self.page(&self.pr(n)?.data.issue_comments, request)),
            ["code-scanning", "alerts"] => {
                let git_ref = query(request, "ref")?;
                let n = git_ref.strip_prefix("refs/pull/")?.strip_suffix("/merge")?;
                match &self.pr(n)?.data.code_scanning {
                    Some(alerts) => Some(self.page(alerts, request)),
                    None => Some(ResponseTemplate::new(404).set_body_json(
                        json!({"message": "Code scanning is not enabled for this repository"}),
                    )),
                }
            }
            _ => None,
        }
    }

    fn pr(&self, number: &str) -> Option<&RepoPr> {
        let n: u64 = number.parse().ok()?;
        self.prs.iter().find(|p| p.data.number == n)
    }

    fn page(&self, items: &[Value], request: &Request) -> ResponseTemplate {
        let page: usize = query(request, "page")
            .and_then(|p| p.parse().ok())
            .unwrap_or(1)
            .max(1);
        let size = self.page_size;
        let start = (page - 1) * size;
        let chunk: Vec<Value> = items.iter().skip(start).take(size).cloned().collect();
        let mut template = ResponseTemplate::new(200).set_body_json(Value::Array(chunk));
        if start + size < items.len() {
            let mut pairs: Vec<String> = request
                .url
                .query_pairs()
                .filter(|(k, _)| k != "page")
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            pairs.push(format!("page={}", page + 1));
            let next = format!("{}{}?{}", self.base, request.url.path(), pairs.join("&"));
            template = template.insert_header("link", format!("<{next}>; rel=\"next\"").as_str());
        }
        template
    }

    fn threads(&self, request: &Request) -> Option<ResponseTemplate> {
        let body: Value = request.body_json().ok()?;
        let query = body.get("query").and_then(Value::as_str)?;
        if !query.contains("reviewThreads") {
            return None;
        }
        let n = body.pointer("/variables/number").and_then(Value::as_u64)?;
        let pr = self.prs.iter().find(|p| p.data.number == n)?;
        let start: usize = body
            .pointer("/variables/cursor")
            .and_then(Value::as_str)
            .and_then(|c| c.trim_start_matches('c').parse().ok())
            .unwrap_or(0);
        let size = 100;
        let nodes: Vec<Value> = pr
            .data
            .threads
            .iter()
            .skip(start)
            .take(size)
            .cloned()
            .collect();
        let more = start + size < pr.data.threads.len();
        Some(ResponseTemplate::new(200).set_body_json(
            json!({"data": {"repository": {"pullRequest": {"reviewThreads": {
                "pageInfo": {"hasNextPage": more, "endCursor": format!("c{}", start + size)},
                "nodes": nodes,
            }}}}}),
        ))
    }
}

fn query(request: &Request, name: &str) -> Option<String> {
    request
        .url
        .query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}
