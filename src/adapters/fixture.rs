//! Test support: a `PrSnapshot` from a saved-API-JSON folder under `tests/fixtures/`, read
//! with the same forgiving `parse_list` as the real fetch, and a run of one adapter over it.
// An edge module: the environment, files and the clock are its job.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::adapters::{extract, AdapterOutput, ExtractOptions, Extraction, SourceConfig};
use crate::api::{self, PrSnapshot};
use crate::model::{NormalizedFinding, Severity};

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
        signals: api::Signals {
            check_runs: check_runs(&dir, &mut unreadable),
            ..api::Signals::default()
        },
        unreadable,
        ..PrSnapshot::default()
    }
}

/// `check_runs.json`: the endpoint's object (`{"check_runs": [...]}`) or the array; absent:
/// not read.
fn check_runs(dir: &Path, unreadable: &mut Vec<api::Unreadable>) -> api::Surface<api::CheckRun> {
    let runs = match read_json(dir, "check_runs.json") {
        Some(Value::Object(mut object)) => object.remove("check_runs"),
        other => other,
    };
    match runs {
        Some(Value::Array(items)) => {
            let (good, bad) = api::parse_list("check_runs", items);
            unreadable.extend(bad);
            api::Surface::Read(good)
        }
        _ => api::Surface::default(),
    }
}

/// Every sample PR under `tests/fixtures/bots/` (`bots/<bot>`, the folders with a
/// `pull.json`), sorted.
pub(crate) fn bot_folders() -> Vec<String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bots");
    let mut folders: Vec<String> = std::fs::read_dir(root)
        .expect("tests/fixtures/bots")
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.path().join("pull.json").is_file())
        .filter_map(|entry| entry.file_name().into_string().ok())
        .map(|name| format!("bots/{name}"))
        .collect();
    folders.sort();
    folders
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

/// Each finding's file, line, severity and category: the columns fixture tests compare.
pub(crate) fn places(findings: &[NormalizedFinding]) -> Vec<(&str, Option<u32>, Severity, &str)> {
    places_and(findings, |_| ())
        .into_iter()
        .map(|(file, line, severity, category, ())| (file, line, severity, category))
        .collect()
}

/// `places` with one more column, `more` of each finding (its title, confidence, ...).
pub(crate) fn places_and<'a, T>(
    findings: &'a [NormalizedFinding],
    more: impl Fn(&'a NormalizedFinding) -> T,
) -> Vec<(&'a str, Option<u32>, Severity, &'a str, T)> {
    findings
        .iter()
        .map(|f| {
            let e = &f.evidence;
            (
                e.file.as_str(),
                e.line,
                f.severity,
                f.category.as_str(),
                more(f),
            )
        })
        .collect()
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
