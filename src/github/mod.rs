//! Every GitHub API call lives under this module; nothing else imports octocrab.
//!
//! octocrab is used as an authenticated HTTP client only (its raw `_get`/`_post`/...), with the
//! project's lean serde shapes from `crate::api`: its typed models have failed on real
//! payloads. Two clients: REST at `GITHUB_API_URL`, GraphQL at `GITHUB_GRAPHQL_URL` exactly
//! (GHES serves `/api/graphql`, not `{api}/graphql`).
// An edge module: the environment, files and the clock are its job.
#![allow(clippy::disallowed_methods)]

pub mod checks;
pub mod comment;
pub mod deadline;
pub mod fetch;
pub mod permissions;
pub mod pulls;
pub mod retry;
pub mod routes;
pub mod threads;
pub mod wait;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use http::{HeaderMap, Method, StatusCode};
use octocrab::Octocrab;
use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;

use crate::api::{self, Element, ListError};
use crate::render::escape;

pub use deadline::Timeouts;
pub use fetch::fetch_snapshot;
pub use retry::{RetryPolicy, DEFAULT_WRITE_SPACING};

/// Longest piece of server text kept in an error (the start of an HTML error page is enough).
const MAX_SERVER_TEXT: usize = 300;

/// GitHub's 403 wordings for a token that may read but not write here.
const READ_ONLY_MESSAGES: [&str; 3] = [
    // An installation token (`GITHUB_TOKEN`) without the permission, e.g. on a fork PR.
    "Resource not accessible by integration",
    // A fine-grained personal access token without the permission.
    "Resource not accessible by personal access token",
    // The Checks API refuses every token that is not a GitHub App's.
    "You must authenticate via a GitHub App",
];

/// A failed GitHub call, naming the endpoint (never the token). Every message that came
/// from the server is already one escaped line, with the token redacted.
#[derive(Debug, thiserror::Error)]
pub enum GitHubError {
    #[error("{endpoint}: HTTP {status}: {message}")]
    Status {
        endpoint: String,
        status: u16,
        message: String,
        /// For a rate limit (a 429, or a 403 that says so): how long GitHub asked to wait.
        rate_limit_wait: Option<Duration>,
    },
    #[error("{endpoint}: {message}")]
    Transport { endpoint: String, message: String },
    #[error("{endpoint}: unexpected response: {message}")]
    Decode { endpoint: String, message: String },
    /// A list that could not be read whole (a `Link` loop, too many pages): never decided on.
    #[error("{endpoint}: incomplete list: {message}")]
    Incomplete { endpoint: String, message: String },
    #[error("{endpoint}: GraphQL error: {message}")]
    GraphQl { endpoint: String, message: String },
    /// The run's overall deadline passed: nothing more is asked of GitHub.
    #[error("{endpoint}: {message}")]
    Deadline { endpoint: String, message: String },
    #[error("cannot set up the GitHub client for {url}: {message}")]
    Setup { url: String, message: String },
}

impl GitHubError {
    pub fn status(&self) -> Option<u16> {
        match self {
            GitHubError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// Any 403: a missing permission, but also a secondary rate limit or an abuse block.
    /// Use `is_read_only` to decide that the token cannot write.
    pub fn is_forbidden(&self) -> bool {
        self.status() == Some(403)
    }

    /// The token cannot write here: one of GitHub's 403 wordings for a token without the
    /// permission (`READ_ONLY_MESSAGES`), or a 404 on a write (how GitHub answers a token
    /// that may read but not write). Not any other 403: a rate limit is not a permission
    /// problem.
    pub fn is_read_only(&self) -> bool {
        match self {
            GitHubError::Status {
                status: 403,
                message,
                rate_limit_wait: None,
                ..
            } => READ_ONLY_MESSAGES.iter().any(|m| message.contains(m)),
            GitHubError::Status {
                status: 404,
                endpoint,
                ..
            } => !endpoint.starts_with("GET "),
            _ => false,
        }
    }

    /// A primary or secondary rate limit (a 429, or a 403 with `retry-after`, an exhausted
    /// quota or GitHub's rate-limit wording): worth waiting for, then trying again.
    pub fn rate_limit_wait(&self) -> Option<Duration> {
        match self {
            GitHubError::Status {
                rate_limit_wait, ..
            } => *rate_limit_wait,
            _ => None,
        }
    }

    pub fn is_rate_limited(&self) -> bool {
        self.rate_limit_wait().is_some()
    }
}

/// One HTTP response, read whole: status, headers and body text.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: String,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// GitHub's `message` field, or the start of the body (raw: escape before showing).
    pub fn message(&self) -> String {
        serde_json::from_str::<Value>(&self.body)
            .ok()
            .and_then(|v| v.get("message").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_else(|| self.body.chars().take(MAX_SERVER_TEXT).collect())
    }
}

/// One GraphQL error: its message and the path of the field it lost (empty: the request).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphQlError {
    pub message: String,
    pub path: Vec<Value>,
}

/// A GraphQL answer: the `data` GitHub could give, and the errors for what it could not
/// (a field error nulls that field and its parents up to the nearest nullable one).
#[derive(Debug, Clone, PartialEq)]
pub struct GraphQlAnswer {
    pub data: Value,
    pub errors: Vec<GraphQlError>,
}

/// The REST and GraphQL clients of one run, with the retry policy for reads.
#[derive(Debug, Clone)]
pub struct GitHub {
    rest: Octocrab,
    graphql: Octocrab,
    api_url: String,
    graphql_url: String,
    /// The token, only to redact it from server text that echoes it.
    token: Option<SecretString>,
    retry: RetryPolicy,
    timeouts: Timeouts,
    /// When the run must be done with GitHub; `None`: no overall deadline.
    deadline: Option<Instant>,
    /// The least time between the end of one write and the start of the next (GitHub asks
    /// for serialised mutations about a second apart).
    write_spacing: Duration,
    /// When the last write ended, shared by clones.
    last_write: Arc<Mutex<Option<Instant>>>,
}

impl GitHub {
    /// Clients for `api_url` (REST) and `graphql_url` (GraphQL, used exactly as given).
    pub fn new(
        api_url: &str,
        graphql_url: &str,
        token: Option<&SecretString>,
    ) -> Result<GitHub, GitHubError> {
        let api_url = api_url.trim_end_matches('/').to_owned();
        let graphql_url = graphql_url.trim_end_matches('/').to_owned();
        Ok(GitHub {
            rest: build_client(&api_url, token)?,
            // Base = the endpoint itself, so octocrab's base-path joining leaves it alone.
            graphql: build_client(&graphql_url, token)?,
            api_url,
            graphql_url,
            token: token.cloned(),
            retry: RetryPolicy::default(),
            timeouts: Timeouts::default(),
            deadline: None,
            write_spacing: DEFAULT_WRITE_SPACING,
            last_write: Arc::new(Mutex::new(None)),
        })
    }

    pub fn with_retry(mut self, retry: RetryPolicy) -> GitHub {
        self.retry = retry;
        self
    }

    /// The pause between consecutive writes (`Duration::ZERO`: none).
    pub fn with_write_spacing(mut self, spacing: Duration) -> GitHub {
        self.write_spacing = spacing;
        self
    }

    /// Bound every request by `timeouts.request` and the whole run by `timeouts.run` from
    /// now: a server that drips its answer cannot hold the job until the runner kills it.
    pub fn with_timeouts(mut self, timeouts: Timeouts) -> GitHub {
        self.deadline = Some(Instant::now() + timeouts.run);
        self.timeouts = timeouts;
        self
    }

    pub fn api_url(&self) -> &str {
        &self.api_url
    }

    pub fn retry_policy(&self) -> &RetryPolicy {
        &self.retry
    }

    /// Server text made safe for logs, errors, the comment and the report: the token
    /// redacted, one line with every control and bidirectional character escaped, bounded.
    pub fn clean(&self, text: &str) -> String {
        let token = self.token.as_ref().map(|t| t.expose_secret());
        let redacted = escape::redact(text, token.as_slice());
        escape::one_line(&redacted, MAX_SERVER_TEXT)
    }

    /// The time left before the run's deadline, or the error saying it passed.
    fn time_left(&self, endpoint: &str) -> Result<Duration, GitHubError> {
        let Some(deadline) = self.deadline else {
            return Ok(Duration::MAX);
        };
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(self.deadline_passed(endpoint));
        }
        Ok(left)
    }

    fn deadline_passed(&self, endpoint: &str) -> GitHubError {
        GitHubError::Deadline {
            endpoint: endpoint.to_owned(),
            message: format!(
                "the run's deadline of {:.0}s passed ({})",
                self.timeouts.run.as_secs_f64(),
                deadline::RUN_TIMEOUT_VAR
            ),
        }
    }

    /// Sleep `wait` before trying `endpoint` again, unless that would pass the deadline.
    pub async fn pause(&self, wait: Duration, endpoint: &str) -> Result<(), GitHubError> {
        if wait >= self.time_left(endpoint)? {
            return Err(self.deadline_passed(endpoint));
        }
        tokio::time::sleep(wait).await;
        Ok(())
    }

    /// One request, no retry, within the request timeout and the run's deadline. `target`
    /// is a path under the REST base or an absolute URL (a `Link` page or the GraphQL
    /// endpoint).
    pub async fn send(
        &self,
        method: Method,
        target: &str,
        body: Option<&Value>,
    ) -> Result<Reply, GitHubError> {
        self.send_with(method, target, body, &HeaderMap::new())
            .await
    }

    /// `send` with extra request headers (only GETs carry them: `If-None-Match`).
    async fn send_with(
        &self,
        method: Method,
        target: &str,
        body: Option<&Value>,
        headers: &HeaderMap,
    ) -> Result<Reply, GitHubError> {
        let endpoint = endpoint_name(&method, target);
        let left = self.time_left(&endpoint)?;
        let limit = self.timeouts.request.min(left);
        let answer = self.send_now(&endpoint, method, target, body, headers);
        match tokio::time::timeout(limit, answer).await {
            Ok(result) => result,
            Err(_) if limit < self.timeouts.request => Err(self.deadline_passed(&endpoint)),
            Err(_) => Err(GitHubError::Transport {
                endpoint,
                message: format!(
                    "no complete answer within {:.1}s ({})",
                    limit.as_secs_f64(),
                    deadline::REQUEST_TIMEOUT_VAR
                ),
            }),
        }
    }

    async fn send_now(
        &self,
        endpoint: &str,
        method: Method,
        target: &str,
        body: Option<&Value>,
        headers: &HeaderMap,
    ) -> Result<Reply, GitHubError> {
        let client = if target == self.graphql_url {
            &self.graphql
        } else {
            &self.rest
        };
        let uri = if target.starts_with("http://") || target.starts_with("https://") {
            target.to_owned()
        } else {
            format!("{}{}", self.api_url, target)
        };
        let transport = |err: octocrab::Error| GitHubError::Transport {
            endpoint: endpoint.to_owned(),
            message: self.clean(&error_text(&err)),
        };
        let response = match method {
            Method::GET if headers.is_empty() => client._get(uri.as_str()).await,
            Method::GET => {
                client
                    ._get_with_headers(uri.as_str(), Some(headers.clone()))
                    .await
            }
            Method::POST => client._post(uri.as_str(), body).await,
            Method::PATCH => client._patch(uri.as_str(), body).await,
            Method::DELETE => client._delete(uri.as_str(), body).await,
            other => {
                return Err(GitHubError::Transport {
                    endpoint: endpoint.to_owned(),
                    message: format!("unsupported method {other}"),
                })
            }
        }
        .map_err(transport)?;
        let status = response.status();
        let headers = response.headers().clone();
        let body = client.body_to_string(response).await.map_err(transport)?;
        Ok(Reply {
            status,
            headers,
            body,
        })
    }

    /// A read: retried on 5xx, 429 and secondary rate limits; an error status is an error.
    pub async fn read(&self, target: &str) -> Result<Reply, GitHubError> {
        self.read_with(Method::GET, target, None).await
    }

    async fn read_with(
        &self,
        method: Method,
        target: &str,
        body: Option<&Value>,
    ) -> Result<Reply, GitHubError> {
        let reply = retry::with_retry(self, &endpoint_name(&method, target), || {
            self.send(method.clone(), target, body)
        })
        .await?;
        self.check(&method, target, reply)
    }

    /// A conditional read (`If-None-Match: etag`), retried and bounded like `read`:
    /// `Ok(None)` when GitHub answers 304 Not Modified, which does not count against the
    /// primary rate limit.
    pub async fn read_if_changed(
        &self,
        target: &str,
        etag: Option<&str>,
    ) -> Result<Option<Reply>, GitHubError> {
        let endpoint = endpoint_name(&Method::GET, target);
        let mut headers = HeaderMap::new();
        if let Some(etag) = etag {
            let value = http::HeaderValue::from_str(etag).map_err(|_| GitHubError::Decode {
                endpoint: endpoint.clone(),
                message: format!("unusable ETag {:?}", self.clean(etag)),
            })?;
            headers.insert(http::header::IF_NONE_MATCH, value);
        }
        let reply = retry::with_retry(self, &endpoint, || {
            self.send_with(Method::GET, target, None, &headers)
        })
        .await?;
        if reply.status == StatusCode::NOT_MODIFIED {
            return Ok(None);
        }
        self.check(&Method::GET, target, reply).map(Some)
    }

    /// A write: sent once, at least `write_spacing` after the previous write ended. The
    /// caller decides how to recover (re-list first). Callers await each write before the
    /// next, so writes are serialised as GitHub asks.
    pub async fn write(
        &self,
        method: Method,
        target: &str,
        body: Option<&Value>,
    ) -> Result<Reply, GitHubError> {
        let wait = self.write_wait(Instant::now());
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
        let sent = self.send(method.clone(), target, body).await;
        *lock(&self.last_write) = Some(Instant::now());
        self.check(&method, target, sent?)
    }

    /// A write that a rate limit refused is sent again after the wait GitHub asked for, up
    /// to the retry policy's attempts (a refused write was not carried out, so sending it
    /// again cannot duplicate it). For writes whose need does not change while waiting.
    pub async fn write_patiently(
        &self,
        method: Method,
        target: &str,
        body: Option<&Value>,
    ) -> Result<Reply, GitHubError> {
        let mut attempt = 1;
        loop {
            match self.write(method.clone(), target, body).await {
                Err(err) if attempt < self.retry.max_attempts => {
                    let Some(wait) = err.rate_limit_wait() else {
                        return Err(err);
                    };
                    tracing::warn!(
                        "{err} (attempt {attempt}), writing again in {:.1}s",
                        wait.as_secs_f64()
                    );
                    // No time left to wait: the rate limit is what stopped the write.
                    if self
                        .pause(wait, &endpoint_name(&method, target))
                        .await
                        .is_err()
                    {
                        return Err(err);
                    }
                    attempt += 1;
                }
                other => return other,
            }
        }
    }

    /// How long a write starting at `now` must wait for the spacing.
    fn write_wait(&self, now: Instant) -> Duration {
        match *lock(&self.last_write) {
            Some(last) => (last + self.write_spacing).saturating_duration_since(now),
            None => Duration::ZERO,
        }
    }

    fn check(&self, method: &Method, target: &str, reply: Reply) -> Result<Reply, GitHubError> {
        if reply.status.is_success() {
            return Ok(reply);
        }
        let rate_limit_wait = if matches!(reply.status.as_u16(), 403 | 429) {
            self.retry.wait_for(&reply, 1, SystemTime::now())
        } else {
            None
        };
        Err(GitHubError::Status {
            endpoint: endpoint_name(method, target),
            status: reply.status.as_u16(),
            message: self.clean(&reply.message()),
            rate_limit_wait,
        })
    }

    /// A body as JSON, or an error naming the endpoint.
    pub fn json(&self, reply: &Reply, endpoint: &str) -> Result<Value, GitHubError> {
        serde_json::from_str(&reply.body).map_err(|err| self.decode_error(endpoint, &err))
    }

    /// A list page's elements, each read on its own (`api::read_list`): an element that
    /// cannot be built (nested too deep) is reported by `api::parse_list`, not the page's
    /// failure. `path` leads to the array in an object answer (`check_runs`).
    pub fn list(
        &self,
        reply: &Reply,
        endpoint: &str,
        path: &[&str],
    ) -> Result<Vec<Element>, GitHubError> {
        api::read_list(&reply.body, path).map_err(|err| match err {
            ListError::NotJson(err) => self.decode_error(endpoint, &err),
            ListError::NotList(message) => GitHubError::Decode {
                endpoint: endpoint.to_owned(),
                message,
            },
        })
    }

    /// A decoding failure (serde's messages quote the data they choke on: cleaned).
    pub fn decode_error(&self, endpoint: &str, err: &dyn std::fmt::Display) -> GitHubError {
        GitHubError::Decode {
            endpoint: endpoint.to_owned(),
            message: self.clean(&err.to_string()),
        }
    }

    /// A GraphQL query (a read, so retried). Field errors beside `data` are returned with
    /// it, for the caller to keep what arrived and name what was lost; `errors` without
    /// `data` is an error, retried only when it is a rate limit (GraphQL reports those with
    /// HTTP 200).
    pub async fn graphql(
        &self,
        query: &str,
        variables: Value,
    ) -> Result<GraphQlAnswer, GitHubError> {
        let body = serde_json::json!({ "query": query, "variables": variables });
        let endpoint = endpoint_name(&Method::POST, &self.graphql_url);
        let mut attempt = 1;
        loop {
            let reply = self
                .read_with(Method::POST, &self.graphql_url, Some(&body))
                .await?;
            let mut value = self.json(&reply, &endpoint)?;
            let errors = self.graphql_errors(&value);
            let data = value
                .get_mut("data")
                .map(Value::take)
                .unwrap_or(Value::Null);
            if errors.is_empty() || !data.is_null() {
                return Ok(GraphQlAnswer { data, errors });
            }
            let message = joined(&errors);
            let rate_limited = message.to_lowercase().contains("rate limit");
            if !rate_limited || attempt >= self.retry.max_attempts {
                return Err(GitHubError::GraphQl { endpoint, message });
            }
            let wait = self.retry.rate_limit_wait(attempt);
            tracing::warn!(
                "{endpoint}: {message} (attempt {attempt}), retrying in {:.1}s",
                wait.as_secs_f64()
            );
            self.pause(wait, &endpoint).await?;
            attempt += 1;
        }
    }

    /// The `errors` array of a GraphQL answer, messages cleaned.
    fn graphql_errors(&self, value: &Value) -> Vec<GraphQlError> {
        let Some(errors) = value.get("errors").and_then(Value::as_array) else {
            return Vec::new();
        };
        errors
            .iter()
            .map(|e| GraphQlError {
                message: self.clean(
                    e.get("message")
                        .and_then(Value::as_str)
                        .or_else(|| e.get("type").and_then(Value::as_str))
                        .unwrap_or("unknown error"),
                ),
                path: e
                    .get("path")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default(),
            })
            .collect()
    }

    /// Whether an absolute URL (a `Link` page) is on our REST host, so the token may go there.
    fn same_origin(&self, url: &str) -> bool {
        origin(url) == origin(&self.api_url)
    }
}

/// The messages of GraphQL errors, joined.
pub fn joined(errors: &[GraphQlError]) -> String {
    let messages: Vec<&str> = errors.iter().map(|e| e.message.as_str()).collect();
    messages.join("; ")
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn origin(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host_len = rest.find('/').unwrap_or(rest.len());
    &url[..url.len() - rest.len() + host_len]
}

fn build_client(url: &str, token: Option<&SecretString>) -> Result<Octocrab, GitHubError> {
    let setup = |message: String| GitHubError::Setup {
        url: url.to_owned(),
        message,
    };
    let mut builder = Octocrab::builder()
        .base_uri(url)
        .map_err(|err| setup(error_text(&err)))?
        .add_header(
            http::header::ACCEPT,
            "application/vnd.github+json".to_owned(),
        )
        .set_connect_timeout(Some(Duration::from_secs(10)))
        .set_read_timeout(Some(Duration::from_secs(60)));
    if let Some(token) = token {
        builder = builder.personal_token(token.clone());
    }
    builder.build().map_err(|err| setup(error_text(&err)))
}

/// `GET /repos/o/r/pulls/1/comments` (path only: no host, no query).
pub fn endpoint_name(method: &Method, target: &str) -> String {
    let path = target
        .split_once("://")
        .map(|(_, rest)| rest.find('/').map_or("/", |i| &rest[i..]))
        .unwrap_or(target);
    let path = path.split('?').next().unwrap_or(path);
    format!("{method} {}", escape::one_line(path, MAX_SERVER_TEXT))
}

/// An octocrab error with its chain of sources, in one line of text.
pub(crate) fn error_text(err: &octocrab::Error) -> String {
    let mut text = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(inner) = source {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        source = inner.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_names_drop_host_and_query() {
        assert_eq!(
            endpoint_name(&Method::GET, "https://h.example/api/v3/repos/o/r?page=2"),
            "GET /api/v3/repos/o/r"
        );
        assert_eq!(
            endpoint_name(&Method::POST, "/repos/o/r/check-runs"),
            "POST /repos/o/r/check-runs"
        );
    }

    #[test]
    fn origins_compare_scheme_and_host() {
        assert_eq!(origin("http://127.0.0.1:80/api/v3"), "http://127.0.0.1:80");
        assert_eq!(origin("https://api.github.com"), "https://api.github.com");
        assert_ne!(
            origin("https://evil.example/x"),
            origin("https://api.github.com")
        );
    }

    fn status(endpoint: &str, status: u16, message: &str) -> GitHubError {
        GitHubError::Status {
            endpoint: endpoint.into(),
            status,
            message: message.into(),
            rate_limit_wait: None,
        }
    }

    #[test]
    fn read_only_is_githubs_403_wording_or_a_404_on_a_write() {
        let err = status("POST /x", 403, "Resource not accessible by integration");
        assert!(err.is_read_only() && err.is_forbidden());
        assert!(err.to_string().contains("POST /x: HTTP 403"));
        for message in [
            "Resource not accessible by personal access token",
            "You must authenticate via a GitHub App.",
        ] {
            assert!(status("POST /x", 403, message).is_read_only(), "{message}");
        }
        assert!(status("POST /x", 404, "Not Found").is_read_only());
        assert!(status("PATCH /x/1", 404, "Not Found").is_read_only());
        assert!(!status("GET /x", 404, "Not Found").is_read_only());
    }

    #[test]
    fn a_rate_limit_403_is_forbidden_but_not_read_only() {
        let limited = GitHubError::Status {
            endpoint: "POST /x".into(),
            status: 403,
            message: "You have exceeded a secondary rate limit. Please wait a few minutes.".into(),
            rate_limit_wait: Some(Duration::from_secs(60)),
        };
        assert!(limited.is_forbidden() && limited.is_rate_limited());
        assert!(!limited.is_read_only());
        assert!(!status("POST /x", 403, "Must have admin rights").is_read_only());
        assert!(!status("POST /x", 403, "Must have admin rights").is_rate_limited());
    }

    #[tokio::test]
    async fn server_text_is_redacted_escaped_and_bounded() {
        let token = SecretString::from("fake-test-token-TESTTOKEN0123456789abcdef".to_owned());
        let gh = GitHub::new(
            "http://127.0.0.1:9",
            "http://127.0.0.1:9/graphql",
            Some(&token),
        )
        .unwrap();
        let echoed = format!(
            "<html>\nBad token fake-test-token-TESTTOKEN0123456789abcdef\n::set-output name=gate::pass\u{1b}[0m{}",
            "x".repeat(1000)
        );
        let clean = gh.clean(&echoed);
        assert!(
            !clean.contains("TESTTOKEN") && clean.contains("***"),
            "{clean}"
        );
        assert!(
            !clean.contains('\n') && !clean.contains('\u{1b}'),
            "{clean}"
        );
        assert!(clean.chars().count() <= MAX_SERVER_TEXT + 1);
    }

    // A runtime because octocrab's client needs one to be built.
    #[tokio::test]
    async fn writes_wait_out_the_spacing_after_the_previous_one() {
        let gh = GitHub::new(
            "https://api.github.com",
            "https://api.github.com/graphql",
            None,
        )
        .unwrap();
        assert_eq!(gh.write_spacing, Duration::from_secs(1), "the default");
        let now = Instant::now();
        assert_eq!(
            gh.write_wait(now),
            Duration::ZERO,
            "the first write goes at once"
        );
        *lock(&gh.last_write) = Some(now);
        assert_eq!(gh.write_wait(now), Duration::from_secs(1));
        // Clones share the clock: they are the same run's client.
        let clone = gh.clone();
        assert_eq!(
            clone.write_wait(now + Duration::from_millis(400)),
            Duration::from_millis(600)
        );
        assert_eq!(gh.write_wait(now + Duration::from_secs(2)), Duration::ZERO);
        let unspaced = gh.with_write_spacing(Duration::ZERO);
        assert_eq!(unspaced.write_wait(now), Duration::ZERO);
    }
}
