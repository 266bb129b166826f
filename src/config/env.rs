//! The runner's `GITHUB_*` / `RUNNER_*` variables, with GitHub.com defaults.

use std::collections::HashMap;
use std::path::PathBuf;

use super::GitHubEnv;

const API_URL: &str = "https://api.github.com";
const GRAPHQL_URL: &str = "https://api.github.com/graphql";
const SERVER_URL: &str = "https://github.com";

pub(super) fn from_pairs(pairs: impl IntoIterator<Item = (String, String)>) -> GitHubEnv {
    let vars: HashMap<String, String> = pairs
        .into_iter()
        .filter(|(k, _)| k.starts_with("GITHUB_") || k.starts_with("RUNNER_"))
        .collect();
    let get = |name: &str| {
        vars.get(name)
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
    };
    let url = |name: &str, default: &str| {
        get(name)
            .map(|v| v.trim_end_matches('/').to_owned())
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| default.to_owned())
    };
    GitHubEnv {
        api_url: url("GITHUB_API_URL", API_URL),
        graphql_url: url("GITHUB_GRAPHQL_URL", GRAPHQL_URL),
        server_url: url("GITHUB_SERVER_URL", SERVER_URL),
        repository: get("GITHUB_REPOSITORY"),
        event_name: get("GITHUB_EVENT_NAME"),
        event_path: get("GITHUB_EVENT_PATH").map(PathBuf::from),
        sha: get("GITHUB_SHA"),
        output_path: get("GITHUB_OUTPUT").map(PathBuf::from),
        step_summary_path: get("GITHUB_STEP_SUMMARY").map(PathBuf::from),
        runner_temp: get("RUNNER_TEMP").map(PathBuf::from),
        runner_debug: get("RUNNER_DEBUG").as_deref() == Some("1"),
        in_actions: get("GITHUB_ACTIONS").as_deref() == Some("true"),
    }
}
