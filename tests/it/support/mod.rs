//! Shared test set-up: the fake GitHub and clients pointed at it.

pub mod fake;

use std::time::Duration;

use review_consensus::config::PrTarget;
use review_consensus::github::{GitHub, RetryPolicy};
use secrecy::SecretString;

pub use fake::{FakeBuilder, FakeGitHub, PrData};

/// A token that must never show up in any output.
pub const TOKEN: &str = "ghs_TESTTOKENtesttoken0123456789abcdef";

/// Retries with millisecond waits (the waits' logic has unit tests).
pub fn fast_retry() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 4,
        base_delay: Duration::from_millis(5),
        max_wait: Duration::from_millis(50),
    }
}

pub fn client(fake: &FakeGitHub) -> GitHub {
    let token = SecretString::from(TOKEN.to_owned());
    match GitHub::new(&fake.api_url, &fake.graphql_url, Some(&token)) {
        Ok(gh) => gh.with_retry(fast_retry()),
        Err(err) => panic!("client: {err}"),
    }
}

pub fn target(data: &PrData) -> PrTarget {
    PrTarget {
        owner: data.owner.clone(),
        repo: data.repo.clone(),
        number: data.number,
        head_sha: None,
        from_fork: false,
    }
}
