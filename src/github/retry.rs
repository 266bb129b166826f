//! Retries for reads: 5xx, 429 and secondary rate limits, honouring `retry-after`, then
//! `x-ratelimit-reset`, else exponential backoff. Writes never come through here; they are
//! only spaced apart (`write_spacing_from_vars`).

use std::future::Future;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{GitHub, GitHubError, Reply};

/// How reads are retried. Waits are capped so a run (and a test) cannot hang on a header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in total, the first included.
    pub max_attempts: u32,
    /// First backoff step when GitHub gives no hint (doubles each time).
    pub base_delay: Duration,
    /// Upper bound of any single wait.
    pub max_wait: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 4,
            base_delay: Duration::from_secs(2),
            max_wait: Duration::from_secs(120),
        }
    }
}

/// The default pause between consecutive writes (GitHub: mutations about 1 s apart).
pub const DEFAULT_WRITE_SPACING: Duration = Duration::from_secs(1);
/// Environment variable for the pause between writes, in milliseconds (tests use 0).
pub const WRITE_SPACING_VAR: &str = "REVIEW_CONSENSUS_WRITE_SPACING_MS";

/// The pause between writes: `REVIEW_CONSENSUS_WRITE_SPACING_MS`, else 1 s.
pub fn write_spacing_from_vars(lookup: impl Fn(&str) -> Option<String>) -> Duration {
    lookup(WRITE_SPACING_VAR)
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(DEFAULT_WRITE_SPACING, Duration::from_millis)
}

/// Environment variable capping each wait, in milliseconds (tests use a few ms).
pub const MAX_WAIT_VAR: &str = "REVIEW_CONSENSUS_RETRY_MAX_WAIT_MS";
/// Environment variable for the first backoff step, in milliseconds.
pub const BASE_DELAY_VAR: &str = "REVIEW_CONSENSUS_RETRY_BASE_MS";

impl RetryPolicy {
    /// The default policy, with waits overridden by `REVIEW_CONSENSUS_RETRY_*` variables.
    pub fn from_vars(lookup: impl Fn(&str) -> Option<String>) -> RetryPolicy {
        let ms = |name| {
            lookup(name)
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(Duration::from_millis)
        };
        let default = RetryPolicy::default();
        RetryPolicy {
            max_attempts: default.max_attempts,
            base_delay: ms(BASE_DELAY_VAR).unwrap_or(default.base_delay),
            max_wait: ms(MAX_WAIT_VAR).unwrap_or(default.max_wait),
        }
    }

    /// The wait before the next attempt, or `None` when the reply is not worth retrying.
    /// `attempt` counts from 1 (the attempt that just failed).
    pub fn wait_for(&self, reply: &Reply, attempt: u32, now: SystemTime) -> Option<Duration> {
        if !retryable(reply) {
            return None;
        }
        let hinted = reply
            .header("retry-after")
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs)
            .or_else(|| reset_wait(reply, now));
        let secondary = reply.status.as_u16() == 403 || reply.status.as_u16() == 429;
        let backoff = if secondary {
            // GitHub asks for at least a minute when it gives no header.
            self.rate_limit_wait(attempt)
        } else {
            self.backoff(attempt)
        };
        Some(hinted.unwrap_or(backoff).min(self.max_wait))
    }

    /// A rate limit without a header: at least a minute, growing, capped.
    pub fn rate_limit_wait(&self, attempt: u32) -> Duration {
        Duration::from_secs(60)
            .max(self.backoff(attempt))
            .min(self.max_wait)
    }

    fn backoff(&self, attempt: u32) -> Duration {
        self.base_delay
            .saturating_mul(1u32 << attempt.saturating_sub(1).min(16))
    }
}

/// 5xx, 429, or a 403 that is a rate limit (not a permission problem).
fn retryable(reply: &Reply) -> bool {
    let status = reply.status.as_u16();
    if status >= 500 || status == 429 {
        return true;
    }
    if status == 403 {
        return reply.header("retry-after").is_some()
            || reply.header("x-ratelimit-remaining") == Some("0")
            || reply.message().to_lowercase().contains("rate limit");
    }
    false
}

fn reset_wait(reply: &Reply, now: SystemTime) -> Option<Duration> {
    if reply.header("x-ratelimit-remaining") != Some("0") {
        return None;
    }
    let reset = reply
        .header("x-ratelimit-reset")?
        .trim()
        .parse::<u64>()
        .ok()?;
    let now = now.duration_since(UNIX_EPOCH).ok()?.as_secs();
    Some(Duration::from_secs(reset.saturating_sub(now).max(1)))
}

/// Run `call` until it gives a non-retryable reply or attempts run out. A transport error
/// (connection refused, reset, no answer in time) is retried like a 5xx; the last one is
/// returned. A wait that would pass the run's deadline is not waited for.
pub async fn with_retry<F, Fut>(
    gh: &GitHub,
    endpoint: &str,
    mut call: F,
) -> Result<Reply, GitHubError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Reply, GitHubError>>,
{
    let policy = gh.retry_policy();
    let mut attempt = 1;
    loop {
        let wait = match call().await {
            Ok(reply) => match policy.wait_for(&reply, attempt, SystemTime::now()) {
                Some(wait) if attempt < policy.max_attempts => {
                    tracing::warn!(
                        "{endpoint}: HTTP {} (attempt {attempt}), retrying in {:.1}s",
                        reply.status.as_u16(),
                        wait.as_secs_f64()
                    );
                    wait
                }
                _ => return Ok(reply),
            },
            Err(err @ GitHubError::Transport { .. }) if attempt < policy.max_attempts => {
                let wait = policy.backoff(attempt).min(policy.max_wait);
                tracing::warn!("{err} (attempt {attempt}), retrying");
                wait
            }
            Err(err) => return Err(err),
        };
        gh.pause(wait, endpoint).await?;
        attempt += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::{HeaderMap, HeaderValue, StatusCode};

    fn reply(status: u16, headers: &[(&'static str, &str)], body: &str) -> Reply {
        let mut map = HeaderMap::new();
        for (name, value) in headers {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        Reply {
            status: StatusCode::from_u16(status).unwrap(),
            headers: map,
            body: body.to_owned(),
        }
    }

    fn policy() -> RetryPolicy {
        RetryPolicy {
            max_attempts: 4,
            base_delay: Duration::from_secs(1),
            max_wait: Duration::from_secs(100),
        }
    }

    #[test]
    fn server_errors_back_off_exponentially() {
        let now = SystemTime::now();
        let r = reply(502, &[], "");
        assert_eq!(policy().wait_for(&r, 1, now), Some(Duration::from_secs(1)));
        assert_eq!(policy().wait_for(&r, 3, now), Some(Duration::from_secs(4)));
    }

    #[test]
    fn retry_after_wins_then_reset_then_a_minute() {
        let now = UNIX_EPOCH + Duration::from_secs(1_000);
        let after = reply(403, &[("retry-after", "7")], "{}");
        assert_eq!(
            policy().wait_for(&after, 1, now),
            Some(Duration::from_secs(7))
        );
        let reset = reply(
            403,
            &[
                ("x-ratelimit-remaining", "0"),
                ("x-ratelimit-reset", "1030"),
            ],
            "{}",
        );
        assert_eq!(
            policy().wait_for(&reset, 1, now),
            Some(Duration::from_secs(30))
        );
        let secondary = reply(
            403,
            &[],
            r#"{"message":"You have exceeded a secondary rate limit"}"#,
        );
        assert_eq!(
            policy().wait_for(&secondary, 1, now),
            Some(Duration::from_secs(60))
        );
    }

    #[test]
    fn waits_are_capped() {
        let capped = RetryPolicy {
            max_wait: Duration::from_millis(5),
            ..policy()
        };
        let after = reply(429, &[("retry-after", "3600")], "");
        assert_eq!(
            capped.wait_for(&after, 1, SystemTime::now()),
            Some(Duration::from_millis(5))
        );
    }

    #[test]
    fn permission_and_client_errors_are_not_retried() {
        let now = SystemTime::now();
        let forbidden = reply(
            403,
            &[],
            r#"{"message":"Resource not accessible by integration"}"#,
        );
        assert_eq!(policy().wait_for(&forbidden, 1, now), None);
        assert_eq!(policy().wait_for(&reply(404, &[], ""), 1, now), None);
        assert_eq!(policy().wait_for(&reply(200, &[], "[]"), 1, now), None);
    }

    #[test]
    fn env_overrides_waits() {
        let p = RetryPolicy::from_vars(|name| match name {
            MAX_WAIT_VAR => Some("25".to_owned()),
            BASE_DELAY_VAR => Some("3".to_owned()),
            _ => None,
        });
        assert_eq!(p.max_wait, Duration::from_millis(25));
        assert_eq!(p.base_delay, Duration::from_millis(3));
    }

    #[test]
    fn env_sets_the_write_spacing() {
        let spacing = |value: Option<&str>| {
            write_spacing_from_vars(|name| match name {
                WRITE_SPACING_VAR => value.map(str::to_owned),
                _ => None,
            })
        };
        assert_eq!(spacing(None), Duration::from_secs(1));
        assert_eq!(spacing(Some("0")), Duration::ZERO);
        assert_eq!(spacing(Some(" 250 ")), Duration::from_millis(250));
        assert_eq!(spacing(Some("soon")), Duration::from_secs(1));
    }
}
