//! Test support: a `PrSnapshot` from a saved-API-JSON folder under `tests/fixtures/`, read
//! with the same forgiving `parse_list` as the real fetch, and a run of one adapter over it.
// An edge module: the environment, files and the clock are its job.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::adapters::{extract, AdapterOutput, ExtractOptions, Extraction, SourceConfig};
use crate::api::{self, PrSnapshot};

fn read_json(dir: &Path, file: &str) -> Option<Value> {
    let text = std::fs::read_to_string(dir.join(file)).ok()?;
    Some(serde_json::from_str(&text).expect("fixture JSON parses"))
}

fn list<T: serde::de::DeserializeOwned>(
    dir: &Path,
    file: &str,
    unreadable: &mut Vec<api::Unreadable>,
) -> Vec<T> {
    let Some(Value::Array(items)) = read_json(dir, file) else {
        return Vec::new();
    };
    let surface = file.trim_end_matches(".json");
    let (good, bad) = api::parse_list(surface, items);
    unreadable.extend(bad);
    good
}

/// Load `tests/fixtures/<folder>` (e.g. `pr-102-gemini-copilot`, `bots/greptile`).
pub(crate) fn snapshot(folder: &str) -> PrSnapshot {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(folder);
    let pull = read_json(&dir, "pull.json").expect("pull.json");
    let mut unreadable = Vec::new();
    PrSnapshot {
        repository: "acme/payments-api".to_owned(),
        pull: serde_json::from_value(pull).expect("pull.json shape"),
        review_comments: list(&dir, "review_comments.json", &mut unreadable),
        reviews: list(&dir, "reviews.json", &mut unreadable),
        issue_comments: list(&dir, "issue_comments.json", &mut unreadable),
        review_threads: read_json(&dir, "review_threads.json")
            .and_then(|v| api::threads_from_json(&v)),
        unreadable,
        ..PrSnapshot::default()
    }
}

/// One adapter's raw output over a fixture folder, with its default logins.
pub(crate) fn parse(adapter: &dyn crate::adapters::Adapter, folder: &str) -> AdapterOutput {
    let logins: Vec<String> = adapter
        .default_logins()
        .iter()
        .map(|l| (*l).to_owned())
        .collect();
    adapter.parse(&snapshot(folder), &logins)
}

/// `extract` for one source over a fixture folder.
pub(crate) fn extract_one(
    adapter: &str,
    logins: &[&str],
    folder: &str,
    options: &ExtractOptions,
) -> Extraction {
    let source = SourceConfig {
        adapter: adapter.to_owned(),
        logins: logins.iter().map(|l| (*l).to_owned()).collect(),
    };
    extract(&snapshot(folder), &[source], options)
}
