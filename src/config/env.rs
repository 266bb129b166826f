//! The runner's `GITHUB_*` / `RUNNER_*` variables, with GitHub.com defaults.

use std::collections::HashMap;
use std::path::PathBuf;

use super::GitHubEnv;

const API_URL: &str = "https://api.github.com";
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
    let api_url = url("GITHUB_API_URL", API_URL);
    GitHubEnv {
        graphql_url: url("GITHUB_GRAPHQL_URL", &graphql_beside(&api_url)),
        api_url,
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

/// The GraphQL endpoint that goes with a REST base when `GITHUB_GRAPHQL_URL` is not set (the
/// runner always sets it; a laptop pointing `GITHUB_API_URL` at GHES may not): GHES serves
/// REST at `/api/v3` and GraphQL at `/api/graphql`, github.com at `/graphql` beside REST.
fn graphql_beside(api_url: &str) -> String {
    match api_url.strip_suffix("/api/v3") {
        Some(host) => format!("{host}/api/graphql"),
        None => format!("{api_url}/graphql"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> GitHubEnv {
        from_pairs(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())))
    }

    #[test]
    fn graphql_defaults_beside_the_rest_base() {
        assert_eq!(env(&[]).graphql_url, "https://api.github.com/graphql");
        let ghes = env(&[("GITHUB_API_URL", "https://ghe.example.com/api/v3/")]);
        assert_eq!(ghes.graphql_url, "https://ghe.example.com/api/graphql");
        let local = env(&[("GITHUB_API_URL", "http://127.0.0.1:8080")]);
        assert_eq!(local.graphql_url, "http://127.0.0.1:8080/graphql");
        let explicit = env(&[
            ("GITHUB_API_URL", "https://ghe.example.com/api/v3"),
            ("GITHUB_GRAPHQL_URL", "https://gql.example.com/graphql"),
        ]);
        assert_eq!(explicit.graphql_url, "https://gql.example.com/graphql");
    }
}
