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
pub mod fetch;
pub mod permissions;
pub mod pulls;
pub mod retry;
pub mod threads;
pub mod wait;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use http::{HeaderMap, Method, StatusCode};
use octocrab::Octocrab;
use secrecy::SecretString;
use serde_json::Value;

pub use fetch::fetch_snapshot;
pub use retry::{RetryPolicy, DEFAULT_WRITE_SPACING};

/// A failed GitHub call, naming the endpoint (never the token).
#[derive(Debug, thiserror::Error)]
pub enum GitHubError {
    #[error("{endpoint}: HTTP {status}: {message}")]
    Status {
        endpoint: String,
        status: u16,
        message: String,
    },
    #[error("{endpoint}: {message}")]
    Transport { endpoint: String, message: String },
    #[error("{endpoint}: unexpected response: {message}")]
    Decode { endpoint: String, message: String },
    #[error("{endpoint}: GraphQL error: {message}")]
    GraphQl { endpoint: String, message: String },
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

    /// The token cannot write here: GitHub's 403 wording for an installation token without
    /// the permission (fork PRs, missing `pull-requests`/`checks: write`), or a 404 on a
    /// write (how GitHub answers a token that may read but not write, e.g. a fine-grained
    /// PAT). Not any other 403: a rate limit is not a permission problem.
    pub fn is_read_only(&self) -> bool {
        match self {
            GitHubError::Status {
                status: 403,
                message,
                ..
            } => message.contains("Resource not accessible by integration"),
            GitHubError::Status {
                status: 404,
                endpoint,
                ..
            } => !endpoint.starts_with("GET "),
            _ => false,
        }
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

    /// GitHub's `message` field, or the start of the body.
    pub fn message(&self) -> String {
        serde_json::from_str::<Value>(&self.body)
            .ok()
            .and_then(|v| v.get("message").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_else(|| self.body.chars().take(200).collect())
    }

    pub fn json(&self, endpoint: &str) -> Result<Value, GitHubError> {
        serde_json::from_str(&self.body).map_err(|err| GitHubError::Decode {
            endpoint: endpoint.to_owned(),
            message: format!("invalid JSON: {err}"),
        })
    }

    fn into_error(self, endpoint: &str) -> GitHubError {
        GitHubError::Status {
            endpoint: endpoint.to_owned(),
            status: self.status.as_u16(),
            message: self.message(),
        }
    }
}

/// The REST and GraphQL clients of one run, with the retry policy for reads.
#[derive(Debug, Clone)]
pub struct GitHub {
    rest: Octocrab,
    graphql: Octocrab,
    api_url: String,
    graphql_url: String,
    retry: RetryPolicy,
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
            retry: RetryPolicy::default(),
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

    pub fn api_url(&self) -> &str {
        &self.api_url
    }

    /// One request, no retry. `target` is a path under the REST base or an absolute URL
    /// (a `Link` page or the GraphQL endpoint).
    pub async fn send(
        &self,
        method: Method,
        target: &str,
        body: Option<&Value>,
    ) -> Result<Reply, GitHubError> {
        let endpoint = endpoint_name(&method, target);
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
            endpoint: endpoint.clone(),
            message: error_text(&err),
        };
        let response = match method {
            Method::GET => client._get(uri.as_str()).await,
            Method::POST => client._post(uri.as_str(), body).await,
            Method::PATCH => client._patch(uri.as_str(), body).await,
            Method::DELETE => client._delete(uri.as_str(), body).await,
            other => {
                return Err(GitHubError::Transport {
                    endpoint,
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
        let reply = retry::with_retry(&self.retry, &endpoint_name(&method, target), || {
            self.send(method.clone(), target, body)
        })
        .await?;
        self.check(&method, target, reply)
    }

    /// A conditional read (`If-None-Match: etag`), retried like `read`: `Ok(None)` when GitHub
    /// answers 304 Not Modified, which does not count against the primary rate limit.
    pub async fn read_if_changed(
        &self,
        target: &str,
        etag: Option<&str>,
    ) -> Result<Option<Reply>, GitHubError> {
        let endpoint = endpoint_name(&Method::GET, target);
        let reply = retry::with_retry(&self.retry, &endpoint, || {
            self.get_if_none_match(target, etag)
        })
        .await?;
        if reply.status == StatusCode::NOT_MODIFIED {
            return Ok(None);
        }
        self.check(&Method::GET, target, reply).map(Some)
    }

    /// One conditional GET on the REST client, no retry.
    async fn get_if_none_match(
        &self,
        target: &str,
        etag: Option<&str>,
    ) -> Result<Reply, GitHubError> {
        let endpoint = endpoint_name(&Method::GET, target);
        let transport = |message: String| GitHubError::Transport {
            endpoint: endpoint.clone(),
            message,
        };
        let uri = if target.starts_with("http://") || target.starts_with("https://") {
            target.to_owned()
        } else {
            format!("{}{}", self.api_url, target)
        };
        let mut headers = HeaderMap::new();
        if let Some(etag) = etag {
            let value = http::HeaderValue::from_str(etag)
                .map_err(|_| transport(format!("unusable ETag {etag:?}")))?;
            headers.insert(http::header::IF_NONE_MATCH, value);
        }
        let response = self
            .rest
            ._get_with_headers(uri.as_str(), Some(headers))
            .await
            .map_err(|err| transport(error_text(&err)))?;
        let status = response.status();
        let headers = response.headers().clone();
        let body = self
            .rest
            .body_to_string(response)
            .await
            .map_err(|err| transport(error_text(&err)))?;
        Ok(Reply {
            status,
            headers,
            body,
        })
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

    /// How long a write starting at `now` must wait for the spacing.
    fn write_wait(&self, now: Instant) -> Duration {
        match *lock(&self.last_write) {
            Some(last) => (last + self.write_spacing).saturating_duration_since(now),
            None => Duration::ZERO,
        }
    }

    fn check(&self, method: &Method, target: &str, reply: Reply) -> Result<Reply, GitHubError> {
        if reply.status.is_success() {
            Ok(reply)
        } else {
            Err(reply.into_error(&endpoint_name(method, target)))
        }
    }

    /// A GraphQL query (a read, so retried), returning `data`. `errors` in a 200 is an
    /// error, retried only when it is a rate limit (GraphQL reports those with HTTP 200).
    pub async fn graphql(&self, query: &str, variables: Value) -> Result<Value, GitHubError> {
        let body = serde_json::json!({ "query": query, "variables": variables });
        let endpoint = endpoint_name(&Method::POST, &self.graphql_url);
        let mut attempt = 1;
        loop {
            let reply = self
                .read_with(Method::POST, &self.graphql_url, Some(&body))
                .await?;
            let mut value = reply.json(&endpoint)?;
            let Some(message) = graphql_errors(&value) else {
                return Ok(value
                    .get_mut("data")
                    .map(Value::take)
                    .unwrap_or(Value::Null));
            };
            let rate_limited = message.to_lowercase().contains("rate limit");
            if !rate_limited || attempt >= self.retry.max_attempts {
                return Err(GitHubError::GraphQl { endpoint, message });
            }
            let wait = self.retry.rate_limit_wait(attempt);
            tracing::warn!(
                "{endpoint}: {message} (attempt {attempt}), retrying in {:.1}s",
                wait.as_secs_f64()
            );
            tokio::time::sleep(wait).await;
            attempt += 1;
        }
    }

    /// Whether an absolute URL (a `Link` page) is on our REST host, so the token may go there.
    fn same_origin(&self, url: &str) -> bool {
        origin(url) == origin(&self.api_url)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The joined messages of a GraphQL `errors` array, when there is one.
fn graphql_errors(value: &Value) -> Option<String> {
    let errors = value.get("errors")?.as_array()?;
    if errors.is_empty() {
        return None;
    }
    let messages: Vec<&str> = errors
        .iter()
        .map(|e| {
            e.get("message")
                .and_then(Value::as_str)
                .or_else(|| e.get("type").and_then(Value::as_str))
                .unwrap_or("unknown error")
        })
        .collect();
    Some(messages.join("; "))
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
    format!("{method} {path}")
}

fn error_text(err: &octocrab::Error) -> String {
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
        }
    }

    #[test]
    fn read_only_is_githubs_403_wording_or_a_404_on_a_write() {
        let err = status("POST /x", 403, "Resource not accessible by integration");
        assert!(err.is_read_only() && err.is_forbidden());
        assert!(err.to_string().contains("POST /x: HTTP 403"));
        assert!(status("POST /x", 404, "Not Found").is_read_only());
        assert!(status("PATCH /x/1", 404, "Not Found").is_read_only());
        assert!(!status("GET /x", 404, "Not Found").is_read_only());
    }

    #[test]
    fn a_rate_limit_403_is_forbidden_but_not_read_only() {
        let limited = status(
            "POST /x",
            403,
            "You have exceeded a secondary rate limit. Please wait a few minutes.",
        );
        assert!(limited.is_forbidden());
        assert!(!limited.is_read_only());
        assert!(!status("POST /x", 403, "Must have admin rights").is_read_only());
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
