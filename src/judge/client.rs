//! The judge's client: a few POSTs of batched pairs to an OpenAI-style chat-completions
//! endpoint. A failure never fails the run: 401/403 (for GitHub Models: the job lacks
//! `permissions: models: read`), an unknown model, an input too large (the batch is halved
//! and sent once more), 429 (its `Retry-After` and rate headers are honoured within the
//! judge's time, else asking stops), 5xx and timeouts (one retry after a pause). Whatever
//! is left unanswered keeps the fitted model's decision; one line says what happened.
//!
//! The token is sent only as `Authorization: Bearer` to the judge's endpoint, never logged,
//! and redacted from anything the server echoes.
// An edge module: the network and the clock are its job.
#![allow(clippy::disallowed_methods)]

use std::collections::VecDeque;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use http::{HeaderMap, HeaderName, StatusCode};
use http_body_util::{BodyExt, Limited};
use octocrab::Octocrab;
use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;

use super::answer::{self, Read};
use super::plan::Question;
use super::prompt;
use super::{Answer, Provider};
use crate::render::escape;

/// The longest answer body read (a chat completion of at most 20 verdicts is a few KB).
const MAX_BODY_BYTES: usize = 256 * 1024;
/// The longest wait for a rate limit inside the judge's time.
const MAX_RATE_WAIT: Duration = Duration::from_secs(60);
/// Rate limits waited out in one run; the next one stops asking.
const MAX_RATE_WAITS: u32 = 2;

/// Where and how to ask.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub provider: Provider,
    pub url: String,
    pub model: String,
    pub token: SecretString,
}

/// How long asking may take: each request, and all of it (waits included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub request: Duration,
    pub total: Duration,
    /// The pause before retrying a 5xx or a timeout.
    pub backoff: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            request: Duration::from_secs(60),
            total: Duration::from_secs(150),
            backoff: Duration::from_secs(2),
        }
    }
}

/// Environment variable bounding all of the judge's asking, in milliseconds.
pub const JUDGE_TIMEOUT_VAR: &str = "REVIEW_CONSENSUS_JUDGE_TIMEOUT_MS";

impl Limits {
    /// The defaults, with the request bound, the total and the backoff from
    /// `REVIEW_CONSENSUS_REQUEST_TIMEOUT_MS`, `REVIEW_CONSENSUS_JUDGE_TIMEOUT_MS` and
    /// `REVIEW_CONSENSUS_RETRY_BASE_MS` (tests shorten them).
    pub fn from_vars(lookup: impl Fn(&str) -> Option<String>) -> Limits {
        let ms = |name: &str| {
            lookup(name)
                .and_then(|v| v.trim().parse::<u64>().ok())
                .filter(|ms| *ms > 0)
                .map(Duration::from_millis)
        };
        let default = Limits::default();
        Limits {
            request: ms(crate::github::deadline::REQUEST_TIMEOUT_VAR).unwrap_or(default.request),
            total: ms(JUDGE_TIMEOUT_VAR).unwrap_or(default.total),
            backoff: ms(crate::github::retry::BASE_DELAY_VAR).unwrap_or(default.backoff),
        }
    }
}

/// What asking gave.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Asked {
    pub answers: Vec<Answer>,
    /// Pairs sent (a pair sent twice counts once).
    pub asked: usize,
    /// Answer parts left out (unknown or repeated ids, malformed verdicts).
    pub ignored: usize,
    /// Every batch was sent and answered (nothing failed): a rerun at this head need not ask.
    pub finished: bool,
    /// What went wrong, in one line, when something did (our own text, no server text but
    /// the cleaned status line).
    pub note: Option<String>,
    pub requests: usize,
}

/// One HTTP answer.
struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    body: String,
}

/// What one request came to.
enum Sent {
    Answered(Read),
    Failed(Failure),
}

enum Failure {
    /// 401/403: the token may not use the endpoint.
    Refused(StatusCode),
    UnknownModel,
    /// The endpoint takes no `response_format`: send without it.
    NoSchema,
    TooLarge,
    RateLimited(Option<Duration>),
    /// 5xx, a timeout or a broken connection.
    Transient(String),
    /// Any other status.
    Other(StatusCode),
}

/// Ask every question, batched, within `limits`. Never an error: see [`Asked::note`].
pub async fn ask(endpoint: &Endpoint, questions: &[Question], limits: Limits) -> Asked {
    let started = Instant::now();
    let mut asked = Asked::default();
    if questions.is_empty() {
        asked.finished = true;
        return asked;
    }
    let client = match build_client(endpoint, limits) {
        Ok(client) => client,
        Err(why) => {
            asked.note = Some(format!("the judge's client could not be built: {why}"));
            return asked;
        }
    };
    let mut queue: VecDeque<(Vec<&Question>, bool)> = prompt::batches(questions)
        .into_iter()
        .map(|batch| (batch, false))
        .collect();
    let mut sent_ids: std::collections::BTreeSet<&str> = Default::default();
    let mut schema = true;
    let mut retried_transient = false;
    let mut rate_waits = 0;
    while let Some((batch, halved)) = queue.pop_front() {
        let left = limits.total.saturating_sub(started.elapsed());
        if left.is_zero() {
            asked.note = Some(
                "the judge ran out of time; the rest kept the fitted model's decision".to_owned(),
            );
            return asked;
        }
        let ids: Vec<&str> = batch.iter().map(|q| q.id.as_str()).collect();
        sent_ids.extend(ids.iter().copied());
        asked.asked = sent_ids.len();
        asked.requests += 1;
        let body = prompt::request_body(&endpoint.model, &batch, schema);
        let sent = send(&client, endpoint, &body, limits.request.min(left)).await;
        match classify(sent, &ids, &endpoint.model, schema) {
            Sent::Answered(read) => {
                retried_transient = false;
                asked.ignored += read.ignored;
                if let Some(problem) = read.problem {
                    asked.ignored += 1;
                    asked.note.get_or_insert(problem);
                }
                asked.answers.extend(read.answers);
            }
            Sent::Failed(Failure::NoSchema) => {
                schema = false;
                queue.push_front((batch, halved));
            }
            Sent::Failed(Failure::TooLarge) if !halved && batch.len() > 1 => {
                let (first, second) = batch.split_at(batch.len() / 2);
                queue.push_front((second.to_vec(), true));
                queue.push_front((first.to_vec(), true));
            }
            Sent::Failed(Failure::TooLarge) => {
                asked.note.get_or_insert_with(|| {
                    "a batch was too large for the endpoint even halved".to_owned()
                });
            }
            Sent::Failed(Failure::RateLimited(wait)) => {
                let left = limits.total.saturating_sub(started.elapsed());
                match wait.filter(|w| *w <= MAX_RATE_WAIT && *w < left) {
                    Some(wait) if rate_waits < MAX_RATE_WAITS => {
                        rate_waits += 1;
                        tracing::warn!("judge: rate limited, waiting {:.1}s", wait.as_secs_f64());
                        tokio::time::sleep(wait).await;
                        queue.push_front((batch, halved));
                    }
                    _ => {
                        asked.note = Some(match wait {
                            Some(wait) => format!(
                                "the judge's endpoint is rate limited for {}s; asking stopped",
                                wait.as_secs()
                            ),
                            None => {
                                "the judge's endpoint is rate limited; asking stopped".to_owned()
                            }
                        });
                        return asked;
                    }
                }
            }
            Sent::Failed(Failure::Transient(what)) if !retried_transient => {
                retried_transient = true;
                tracing::warn!("judge: {what}; retrying once");
                if limits.backoff < left {
                    tokio::time::sleep(limits.backoff).await;
                }
                queue.push_front((batch, halved));
            }
            Sent::Failed(Failure::Transient(what)) => {
                asked.note = Some(format!(
                    "the judge's endpoint failed twice ({what}); asking stopped"
                ));
                return asked;
            }
            Sent::Failed(Failure::Refused(status)) => {
                asked.note = Some(refused_note(endpoint.provider, status));
                return asked;
            }
            Sent::Failed(Failure::UnknownModel) => {
                asked.note = Some(format!(
                    "the judge's endpoint does not know the model `{}` (judge-model)",
                    escape::one_line(&endpoint.model, 80)
                ));
                return asked;
            }
            Sent::Failed(Failure::Other(status)) => {
                asked.note = Some(format!(
                    "the judge's endpoint answered HTTP {}; asking stopped",
                    status.as_u16()
                ));
                return asked;
            }
        }
    }
    asked.finished = asked.note.is_none();
    asked
}

fn refused_note(provider: Provider, status: StatusCode) -> String {
    let fix = match provider {
        Provider::GitHubModels => "add `permissions: models: read` to the job (or pass a `judge-token` that may use GitHub Models)",
        _ => "check `judge-token` and `judge-endpoint`",
    };
    format!(
        "the judge's endpoint refused the token (HTTP {}): {fix}",
        status.as_u16()
    )
}

fn build_client(endpoint: &Endpoint, limits: Limits) -> Result<Octocrab, String> {
    let origin = origin(&endpoint.url);
    let mut builder = Octocrab::builder()
        .base_uri(origin)
        .map_err(|e| e.to_string())?
        .add_header(http::header::ACCEPT, "application/json".to_owned())
        .set_connect_timeout(Some(Duration::from_secs(10)))
        .set_read_timeout(Some(limits.request))
        .personal_token(endpoint.token.clone());
    if endpoint.provider == Provider::GitHubModels {
        builder = builder.add_header(
            HeaderName::from_static("x-github-api-version"),
            "2022-11-28".to_owned(),
        );
    }
    builder.build().map_err(|e| e.to_string())
}

fn origin(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host_len = rest.find('/').unwrap_or(rest.len());
    &url[..url.len() - rest.len() + host_len]
}

/// One POST, bounded by `limit` as a whole.
async fn send(
    client: &Octocrab,
    endpoint: &Endpoint,
    body: &Value,
    limit: Duration,
) -> Result<Reply, String> {
    let request = async {
        let response = client
            ._post(endpoint.url.as_str(), Some(body))
            .await
            .map_err(|e| crate::github::error_text(&e))?;
        let (parts, body) = response.into_parts();
        let bytes = Limited::new(body, MAX_BODY_BYTES)
            .collect()
            .await
            .map_err(|_| "the answer was oversized or broke off".to_owned())?
            .to_bytes();
        Ok::<Reply, String>(Reply {
            status: parts.status,
            headers: parts.headers,
            body: String::from_utf8_lossy(&bytes).into_owned(),
        })
    };
    match tokio::time::timeout(limit, request).await {
        Ok(result) => result.map_err(|e: String| clean(endpoint, &e)),
        Err(_) => Err(format!("no answer within {:.0}s", limit.as_secs_f64())),
    }
}

/// What a reply means.
fn classify(sent: Result<Reply, String>, ids: &[&str], model: &str, schema: bool) -> Sent {
    let reply = match sent {
        Ok(reply) => reply,
        Err(what) => return Sent::Failed(Failure::Transient(what)),
    };
    let status = reply.status;
    if status.is_success() {
        return Sent::Answered(answer::read_completion(&reply.body, ids, model));
    }
    let lower = reply.body.to_lowercase();
    match status.as_u16() {
        401 | 403 if !is_rate_limited(&reply) => Sent::Failed(Failure::Refused(status)),
        429 | 403 => Sent::Failed(Failure::RateLimited(rate_wait(&reply.headers))),
        413 => Sent::Failed(Failure::TooLarge),
        400 | 404 | 422
            if lower.contains("unknown_model")
                || lower.contains("unknown model")
                || lower.contains("model_not_found") =>
        {
            Sent::Failed(Failure::UnknownModel)
        }
        400 | 422
            if lower.contains("tokens_limit_reached")
                || lower.contains("too large")
                || lower.contains("maximum context length") =>
        {
            Sent::Failed(Failure::TooLarge)
        }
        400 | 422
            if schema && (lower.contains("response_format") || lower.contains("json_schema")) =>
        {
            Sent::Failed(Failure::NoSchema)
        }
        500..=599 => Sent::Failed(Failure::Transient(format!("HTTP {}", status.as_u16()))),
        _ => Sent::Failed(Failure::Other(status)),
    }
}

fn is_rate_limited(reply: &Reply) -> bool {
    reply.headers.contains_key("retry-after")
        || header(&reply.headers, "x-ratelimit-remaining") == Some("0")
        || reply.body.to_lowercase().contains("rate limit")
}

/// How long a rate limit asks to wait: `Retry-After` (seconds), else the reset time of the
/// exhausted rate header (`x-ratelimit-reset`: seconds since the epoch, or OpenAI's
/// `x-ratelimit-reset-requests` / `-tokens`: `1s`, `6m0s`).
fn rate_wait(headers: &HeaderMap) -> Option<Duration> {
    if let Some(seconds) = header(headers, "retry-after").and_then(|v| v.trim().parse::<u64>().ok())
    {
        return Some(Duration::from_secs(seconds));
    }
    if let Some(reset) =
        header(headers, "x-ratelimit-reset").and_then(|v| v.trim().parse::<u64>().ok())
    {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).ok()?.as_secs();
        return Some(Duration::from_secs(reset.saturating_sub(now).max(1)));
    }
    ["x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"]
        .iter()
        .filter_map(|name| header(headers, name).and_then(parse_go_duration))
        .max()
}

/// `1s`, `250ms`, `6m0s`, `1h2m3.5s`.
fn parse_go_duration(text: &str) -> Option<Duration> {
    let mut total = 0.0;
    let mut number = String::new();
    let mut chars = text.trim().chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() || c == '.' {
            number.push(c);
            continue;
        }
        let value: f64 = number.parse().ok()?;
        number.clear();
        let unit = match (c, chars.peek()) {
            ('m', Some('s')) => {
                chars.next();
                0.001
            }
            ('h', _) => 3600.0,
            ('m', _) => 60.0,
            ('s', _) => 1.0,
            _ => return None,
        };
        total += value * unit;
    }
    (number.is_empty() && total > 0.0).then(|| Duration::from_secs_f64(total))
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Server or transport text made safe to show: the token redacted, one short line.
fn clean(endpoint: &Endpoint, text: &str) -> String {
    let redacted = escape::redact(text, &[endpoint.token.expose_secret()]);
    escape::one_line(&redacted, 200)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_waits_come_from_retry_after_then_the_rate_headers() {
        let mut headers = HeaderMap::new();
        headers.insert("x-ratelimit-reset-requests", "6m0s".parse().unwrap());
        headers.insert("x-ratelimit-reset-tokens", "1.5s".parse().unwrap());
        assert_eq!(rate_wait(&headers), Some(Duration::from_secs(360)));
        headers.insert("retry-after", "7".parse().unwrap());
        assert_eq!(rate_wait(&headers), Some(Duration::from_secs(7)));
        assert_eq!(rate_wait(&HeaderMap::new()), None);
        assert_eq!(parse_go_duration("250ms"), Some(Duration::from_millis(250)));
        assert_eq!(parse_go_duration("1h2m3s"), Some(Duration::from_secs(3723)));
        assert_eq!(parse_go_duration("soon"), None);
    }

    #[test]
    fn the_origin_is_scheme_and_host() {
        assert_eq!(
            origin("https://models.github.ai/inference/chat/completions"),
            "https://models.github.ai"
        );
        assert_eq!(
            origin("http://127.0.0.1:8080/v1/chat/completions"),
            "http://127.0.0.1:8080"
        );
    }
}
