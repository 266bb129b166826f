//! How long GitHub may take: each request, and the whole run. The client's own read timeout
//! only bounds the silence between two bytes, so a server that drips one byte every 20 s
//! would hold the job until the runner's timeout; these bound the answer as a whole.

use std::time::Duration;

/// Environment variable for the longest a single request (headers and body) may take, in
/// milliseconds.
pub const REQUEST_TIMEOUT_VAR: &str = "REVIEW_CONSENSUS_REQUEST_TIMEOUT_MS";
/// Environment variable for the longest the run may spend on GitHub in all (reads, retries
/// and their waits, writes), in milliseconds.
pub const RUN_TIMEOUT_VAR: &str = "REVIEW_CONSENSUS_RUN_TIMEOUT_MS";

/// The bounds of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// One request, from sending it to the last byte of its answer.
    pub request: Duration,
    /// Everything, from the first request to the last.
    pub run: Duration,
}

impl Default for Timeouts {
    /// A minute per request (a page of 100 comments takes well under a second); eight
    /// minutes in all, inside the recommended workflow's `timeout-minutes: 10`.
    fn default() -> Self {
        Timeouts {
            request: Duration::from_secs(60),
            run: Duration::from_secs(8 * 60),
        }
    }
}

impl Timeouts {
    /// The run's bound with `wait` on top: `wait-for-bots` polls inside the run, and the
    /// fetch and the writes after the wait still get the whole `run` bound (a 30-minute wait
    /// with the 8-minute default: 38 minutes in all).
    pub fn after_waiting(self, wait: Duration) -> Timeouts {
        Timeouts {
            run: self.run.saturating_add(wait),
            ..self
        }
    }

    /// The defaults, overridden by `REVIEW_CONSENSUS_REQUEST_TIMEOUT_MS` and
    /// `REVIEW_CONSENSUS_RUN_TIMEOUT_MS` (a value that is not a positive number is ignored).
    pub fn from_vars(lookup: impl Fn(&str) -> Option<String>) -> Timeouts {
        let ms = |name| {
            lookup(name)
                .and_then(|v| v.trim().parse::<u64>().ok())
                .filter(|ms| *ms > 0)
                .map(Duration::from_millis)
        };
        let default = Timeouts::default();
        Timeouts {
            request: ms(REQUEST_TIMEOUT_VAR).unwrap_or(default.request),
            run: ms(RUN_TIMEOUT_VAR).unwrap_or(default.run),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_overrides_the_bounds_and_bad_values_keep_the_defaults() {
        let t = Timeouts::from_vars(|name| match name {
            REQUEST_TIMEOUT_VAR => Some("1500".to_owned()),
            RUN_TIMEOUT_VAR => Some("soon".to_owned()),
            _ => None,
        });
        assert_eq!(t.request, Duration::from_millis(1500));
        assert_eq!(t.run, Timeouts::default().run);
        let zero = Timeouts::from_vars(|_| Some("0".to_owned()));
        assert_eq!(zero, Timeouts::default(), "0 would fail every request");
    }

    #[test]
    fn the_wait_comes_on_top_of_the_run_bound() {
        let waited = Timeouts::default().after_waiting(Duration::from_secs(30 * 60));
        assert_eq!(waited.run, Duration::from_secs(38 * 60));
        assert_eq!(waited.request, Timeouts::default().request);
        assert_eq!(
            Timeouts::default().after_waiting(Duration::ZERO),
            Timeouts::default()
        );
    }
}
