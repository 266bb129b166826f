//! Inputs, GitHub environment and PR resolution, fed with literal pairs (never the process
//! environment).

use std::path::PathBuf;

use review_consensus::adapters;
use review_consensus::config::{
    head_lookup, resolve_pr, Config, ConfigError, GitHubEnv, PrTarget, INPUT_NAMES,
};
use review_consensus::model::FailOn;
use secrecy::ExposeSecret;
use serde_json::{json, Value};

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn inputs(list: &[(&str, &str)]) -> Result<Config, ConfigError> {
    Config::from_inputs(pairs(list))
}

fn err(list: &[(&str, &str)]) -> ConfigError {
    match inputs(list) {
        Ok(config) => panic!("expected an error, got {config:?}"),
        Err(e) => e,
    }
}

/// Every declared input, as the runner sends it when the workflow sets none: empty.
fn all_empty() -> Vec<(String, String)> {
    INPUT_NAMES
        .iter()
        .map(|name| (format!("INPUT_{}", name.to_uppercase()), String::new()))
        .collect()
}

#[test]
fn empty_strings_mean_defaults() {
    let mut vars = all_empty();
    vars.push(("RUNNER_TEMP".into(), "/runner/_temp".into()));
    let config = Config::from_inputs(vars).expect("defaults are valid");
    assert!(config.token.is_none());
    assert_eq!(config.sources, adapters::BotSelection::default());
    assert_eq!(config.bots_ran, None);
    assert_eq!(config.fail_on, FailOn::Confirmed);
    assert_eq!(config.line_window, 3);
    assert_eq!(config.title_overlap, 0.5);
    assert_eq!(config.pr_number, None);
    assert!(!config.include_outdated && !config.include_resolved);
    assert!(!config.include_pre_existing);
    assert!(!config.analysis_options().include_pre_existing);
    assert!(config.comment);
    assert_eq!(config.check_name, None);
    assert_eq!(config.comment_header, None);
    assert!(config.sarif.is_empty());
    assert_eq!(
        config.report_path,
        PathBuf::from("/runner/_temp/review-consensus.json")
    );
}

#[test]
fn without_runner_temp_the_report_goes_to_a_temp_dir() {
    let config = inputs(&[]).expect("valid");
    assert!(config.report_path.ends_with("review-consensus.json"));
    assert!(config.report_path.is_absolute());
}

#[test]
fn every_input_is_read_with_hyphens_kept() {
    let config = inputs(&[
        ("INPUT_GITHUB-TOKEN", "ghs_input"),
        (
            "INPUT_BOTS",
            "coderabbit\nsourcery=my-sourcery[bot], copilot",
        ),
        ("INPUT_BOTS-RAN", "4"),
        ("INPUT_FAIL-ON", "Needs-Verification"),
        ("INPUT_LINE-WINDOW", "0"),
        ("INPUT_TITLE-OVERLAP", "1"),
        ("INPUT_PR-NUMBER", "42"),
        ("INPUT_INCLUDE-OUTDATED", "TRUE"),
        ("INPUT_INCLUDE-RESOLVED", "True"),
        ("INPUT_INCLUDE-PRE-EXISTING", "true"),
        ("INPUT_CHECK-NAME", " review consensus "),
        ("INPUT_COMMENT", "false"),
        ("INPUT_COMMENT-HEADER", "backend"),
        ("INPUT_SARIF", "reports/*.sarif,\n  lint/**/*.sarif\n"),
        ("INPUT_REPORT-PATH", "out/report.json"),
    ])
    .expect("valid");
    assert_eq!(
        config.token.as_ref().map(|t| t.expose_secret()),
        Some("ghs_input")
    );
    let sources = listed(&config);
    let ids: Vec<_> = sources.iter().map(|s| s.adapter.as_str()).collect();
    assert_eq!(ids, ["coderabbit", "sourcery", "copilot"]);
    assert_eq!(sources[1].logins, ["my-sourcery[bot]"]);
    assert_eq!(config.bots_ran, Some(4));
    assert_eq!(config.fail_on, FailOn::NeedsVerification);
    assert_eq!(config.line_window, 0);
    assert_eq!(config.title_overlap, 1.0);
    assert_eq!(config.pr_number, Some(42));
    assert!(config.include_outdated && config.include_resolved);
    assert!(config.analysis_options().include_pre_existing);
    assert_eq!(config.check_name.as_deref(), Some("review consensus"));
    assert!(!config.comment);
    assert_eq!(config.comment_header.as_deref(), Some("backend"));
    assert_eq!(config.sarif, ["reports/*.sarif", "lint/**/*.sarif"]);
    assert_eq!(config.report_path, PathBuf::from("out/report.json"));
}

#[test]
fn a_bare_bot_id_keeps_its_default_logins_and_remaps_add_to_them() {
    let config =
        inputs(&[("INPUT_BOTS", "coderabbit, coderabbit=our-rabbit[bot]")]).expect("valid");
    let sources = listed(&config);
    assert_eq!(sources.len(), 1);
    assert_eq!(sources[0].logins, ["coderabbitai[bot]", "our-rabbit[bot]"]);
    let config = inputs(&[("INPUT_BOTS", "coderabbit=our-rabbit[bot]")]).expect("valid");
    assert_eq!(
        listed(&config)[0].logins,
        ["our-rabbit[bot]"],
        "a remap alone replaces"
    );
}

/// An explicit `bots` list.
fn listed(config: &Config) -> &[adapters::SourceConfig] {
    match &config.sources {
        adapters::BotSelection::Listed(sources) => sources,
        other => panic!("expected an explicit list, got {other:?}"),
    }
}

#[test]
fn the_token_falls_back_to_github_token_and_is_not_debug_printed() {
    let config = inputs(&[
        ("INPUT_GITHUB-TOKEN", ""),
        ("GITHUB_TOKEN", "ghp_fallback_secret"),
    ])
    .expect("valid");
    assert_eq!(
        config.token.as_ref().map(|t| t.expose_secret()),
        Some("ghp_fallback_secret")
    );
    assert!(!format!("{config:?}").contains("ghp_fallback_secret"));
}

#[test]
fn bad_values_name_the_input_and_the_accepted_values() {
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "INPUT_FAIL-ON",
            "maybe",
            "fail-on",
            "confirmed, needs-verification, unverified, never",
        ),
        (
            "INPUT_LINE-WINDOW",
            "-1",
            "line-window",
            "non-negative integer",
        ),
        (
            "INPUT_LINE-WINDOW",
            "three",
            "line-window",
            "non-negative integer",
        ),
        ("INPUT_MATCHING", "fuzzy", "matching", "issue, seed"),
        ("INPUT_TITLE-OVERLAP", "2", "title-overlap", "from 0 to 1"),
        ("INPUT_TITLE-OVERLAP", "NaN", "title-overlap", "from 0 to 1"),
        ("INPUT_BOTS-RAN", "0", "bots-ran", "positive integer"),
        ("INPUT_PR-NUMBER", "#12", "pr-number", "positive integer"),
        (
            "INPUT_INCLUDE-OUTDATED",
            "yes",
            "include-outdated",
            "true, false",
        ),
        (
            "INPUT_INCLUDE-RESOLVED",
            "1",
            "include-resolved",
            "true, false",
        ),
        (
            "INPUT_INCLUDE-PRE-EXISTING",
            "maybe",
            "include-pre-existing",
            "true, false",
        ),
        ("INPUT_COMMENT", "off", "comment", "true, false"),
        (
            "INPUT_COMMENT-HEADER",
            "x --> <b>",
            "comment-header",
            "without `<`, `>` or `-->`",
        ),
        ("INPUT_COMMENT-HEADER", "a\nb", "comment-header", "one line"),
        ("INPUT_SARIF", "reports/[.sarif", "sarif", "globs"),
        ("INPUT_BOTS", "coderabbit=", "bots", "coderabbit=login"),
    ];
    for (key, value, input, accepted) in cases {
        let e = err(&[(key, value)]);
        assert_eq!(&e.input, input, "{key}={value}");
        assert!(e.message.contains(accepted), "{key}={value}: {}", e.message);
        assert!(e.to_string().contains(&format!("`{input}`")), "{e}");
    }
}

#[test]
fn an_unknown_bot_lists_the_known_ids() {
    let e = err(&[("INPUT_BOTS", "coderabbit, reviewbot9000")]);
    assert_eq!(e.input, "bots");
    assert!(e.message.contains("reviewbot9000"));
    for source in adapters::default_sources() {
        assert!(e.message.contains(&source.adapter), "{}", e.message);
    }
}

#[test]
fn input_names_are_unique_kebab_case() {
    let mut seen = std::collections::HashSet::new();
    for name in INPUT_NAMES {
        assert!(seen.insert(name), "{name} twice");
        assert!(
            name.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
            "{name}"
        );
    }
    assert_eq!(INPUT_NAMES.len(), 26);
}

#[test]
fn github_env_defaults_and_trailing_slashes() {
    let env = GitHubEnv::from_vars(pairs(&[]));
    assert_eq!(env.api_url, "https://api.github.com");
    assert_eq!(env.graphql_url, "https://api.github.com/graphql");
    assert_eq!(env.server_url, "https://github.com");
    assert!(!env.in_actions && !env.runner_debug);

    let env = GitHubEnv::from_vars(pairs(&[
        ("GITHUB_API_URL", "https://ghe.example/api/v3/"),
        ("GITHUB_GRAPHQL_URL", "https://ghe.example/api/graphql"),
        ("GITHUB_SERVER_URL", "https://ghe.example/"),
        ("GITHUB_REPOSITORY", "acme/payments-api"),
        ("GITHUB_EVENT_NAME", "pull_request"),
        ("GITHUB_EVENT_PATH", "/github/workflow/event.json"),
        ("GITHUB_SHA", "abc"),
        ("GITHUB_OUTPUT", "/github/file_commands/set_output_1"),
        (
            "GITHUB_STEP_SUMMARY",
            "/github/file_commands/step_summary_1",
        ),
        ("RUNNER_TEMP", "/github/runner_temp"),
        ("RUNNER_DEBUG", "1"),
        ("GITHUB_ACTIONS", "true"),
        ("GITHUB_TOKEN", "not-read-here"),
    ]));
    assert_eq!(env.api_url, "https://ghe.example/api/v3");
    assert_eq!(env.graphql_url, "https://ghe.example/api/graphql");
    assert_eq!(env.server_url, "https://ghe.example");
    assert_eq!(env.repository.as_deref(), Some("acme/payments-api"));
    assert_eq!(env.event_name.as_deref(), Some("pull_request"));
    assert_eq!(
        env.event_path,
        Some(PathBuf::from("/github/workflow/event.json"))
    );
    assert_eq!(env.sha.as_deref(), Some("abc"));
    assert_eq!(
        env.output_path,
        Some(PathBuf::from("/github/file_commands/set_output_1"))
    );
    assert_eq!(
        env.step_summary_path,
        Some(PathBuf::from("/github/file_commands/step_summary_1"))
    );
    assert_eq!(env.runner_temp, Some(PathBuf::from("/github/runner_temp")));
    assert!(env.runner_debug && env.in_actions);
}

fn env_for(event: &str) -> GitHubEnv {
    GitHubEnv::from_vars(pairs(&[
        ("GITHUB_REPOSITORY", "acme/payments-api"),
        ("GITHUB_EVENT_NAME", event),
    ]))
}

fn defaults() -> Config {
    inputs(&[]).expect("valid")
}

fn resolve(event: &str, payload: &Value) -> Option<PrTarget> {
    resolve_pr(&defaults(), &env_for(event), Some(payload)).expect("resolves")
}

fn pull_request(number: u64, head_repo: Value) -> Value {
    json!({
        "number": number,
        "head": {"sha": "head123", "repo": head_repo},
        "base": {"sha": "base456", "repo": {"full_name": "acme/payments-api", "id": 1}}
    })
}

fn same_repo() -> Value {
    json!({"full_name": "acme/payments-api", "id": 1})
}

#[test]
fn every_pull_request_event_kind_resolves_number_sha_and_fork() {
    for event in [
        "pull_request",
        "pull_request_target",
        "pull_request_review",
        "pull_request_review_comment",
    ] {
        let payload = json!({"action": "opened", "pull_request": pull_request(101, same_repo())});
        let target = resolve(event, &payload).expect(event);
        assert_eq!(
            target,
            PrTarget {
                owner: "acme".into(),
                repo: "payments-api".into(),
                number: 101,
                head_sha: Some("head123".into()),
                from_fork: false,
            },
            "{event}"
        );
        let fork = json!({"pull_request": pull_request(7, json!({"full_name": "someone/payments-api", "id": 9}))});
        assert!(resolve(event, &fork).expect(event).from_fork, "{event}");
    }
}

#[test]
fn a_deleted_fork_counts_as_a_fork() {
    let payload = json!({"pull_request": pull_request(5, Value::Null)});
    assert!(resolve("pull_request", &payload).expect("pr").from_fork);
}

#[test]
fn issue_comment_resolves_on_a_pr_only() {
    let on_pr = json!({"issue": {"number": 102, "pull_request": {"url": "https://api.github.com/repos/acme/payments-api/pulls/102"}}});
    let target = resolve("issue_comment", &on_pr).expect("a PR");
    assert_eq!(target.number, 102);
    assert_eq!(target.head_sha, None, "fetched later");
    let on_issue = json!({"issue": {"number": 103}});
    assert_eq!(resolve("issue_comment", &on_issue), None);
}

#[test]
fn workflow_run_takes_the_pull_request_of_this_repository() {
    // GitHub lists every PR whose head is the run's branch, other repositories' too.
    let payload = json!({"repository": {"id": 1, "full_name": "acme/payments-api"},
        "workflow_run": {
        "event": "pull_request",
        "head_sha": "run-sha",
        "pull_requests": [
            {"number": 12, "head": {"sha": "pr-sha"}, "base": {"repo": {"id": 99, "name": "payments-api"}}},
            {"number": 77, "head": {"sha": "pr-sha", "repo": {"id": 1, "name": "payments-api"}},
             "base": {"repo": {"id": 1, "name": "payments-api"}}},
        ]
    }});
    let target = resolve("workflow_run", &payload).expect("a PR");
    assert_eq!(
        (target.number, target.head_sha.as_deref(), target.from_fork),
        (77, Some("pr-sha"), false)
    );

    // Without the payload's `repository`, the base repository's API URL decides.
    let by_url = json!({"workflow_run": {"head_sha": "run-sha", "pull_requests": [
        {"number": 3, "base": {"repo": {"url": "https://api.github.com/repos/acme/payments-api"}}}]}});
    let target = resolve("workflow_run", &by_url).expect("a PR");
    assert_eq!(
        (target.number, target.head_sha.as_deref()),
        (3, Some("run-sha"))
    );

    // Only another repository's PR, or none (a fork's): looked up by the head commit.
    let mut only_other = payload.clone();
    only_other["workflow_run"]["pull_requests"] =
        json!([payload["workflow_run"]["pull_requests"][0]]);
    assert_eq!(resolve("workflow_run", &only_other), None);
    let fork = json!({"workflow_run": {"event": "pull_request", "head_sha": "fork-sha",
        "head_branch": "fix", "head_repository": {"owner": {"login": "mallory"}}, "pull_requests": []}});
    assert_eq!(resolve("workflow_run", &fork), None);
    let env = env_for("workflow_run");
    let lookup = head_lookup(&defaults(), &env, Some(&fork))
        .expect("ok")
        .expect("a lookup");
    assert_eq!(
        (
            lookup.owner.as_str(),
            lookup.head_sha.as_str(),
            lookup.head.as_deref()
        ),
        ("acme", "fork-sha", Some("mallory:fix"))
    );
    assert!(head_lookup(&defaults(), &env, Some(&only_other))
        .expect("ok")
        .is_some());
    assert_eq!(
        head_lookup(&defaults(), &env, Some(&payload)).expect("ok"),
        None,
        "named"
    );

    // A run that was not for a PR (a push, a dispatch) has no PR to look up.
    let mut pushed = fork.clone();
    pushed["workflow_run"]["event"] = json!("push");
    assert_eq!(
        head_lookup(&defaults(), &env, Some(&pushed)).expect("ok"),
        None
    );
    // `pr-number` wins.
    let config = inputs(&[("INPUT_PR-NUMBER", "9")]).expect("valid");
    assert_eq!(head_lookup(&config, &env, Some(&fork)).expect("ok"), None);
}

#[test]
fn pull_request_review_thread_resolves_like_the_other_pr_events() {
    for action in ["resolved", "unresolved"] {
        let payload = json!({"action": action, "pull_request": pull_request(101, same_repo())});
        let target = resolve("pull_request_review_thread", &payload).expect(action);
        assert_eq!(
            (target.number, target.head_sha.as_deref()),
            (101, Some("head123"))
        );
    }
}

#[test]
fn events_without_a_pr_resolve_to_none() {
    assert_eq!(resolve("push", &json!({"ref": "refs/heads/main"})), None);
    assert_eq!(
        resolve_pr(&defaults(), &env_for("schedule"), None).expect("ok"),
        None
    );
}

#[test]
fn the_pr_number_input_wins_over_the_event() {
    let config = inputs(&[("INPUT_PR-NUMBER", "9")]).expect("valid");
    let payload = json!({"pull_request": pull_request(101, same_repo())});
    let target = resolve_pr(&config, &env_for("pull_request"), Some(&payload))
        .expect("ok")
        .expect("a PR");
    assert_eq!((target.number, target.head_sha), (9, None));
    let target = resolve_pr(&config, &env_for("push"), None)
        .expect("ok")
        .expect("a PR");
    assert_eq!(target.full_name(), "acme/payments-api");
}

#[test]
fn a_missing_or_bad_repository_is_a_config_error() {
    let payload = json!({"pull_request": pull_request(1, same_repo())});
    let env = GitHubEnv::from_vars(pairs(&[("GITHUB_EVENT_NAME", "pull_request")]));
    let e = resolve_pr(&defaults(), &env, Some(&payload)).expect_err("no repository");
    assert_eq!(e.input, "GITHUB_REPOSITORY");
    let env = GitHubEnv::from_vars(pairs(&[
        ("GITHUB_EVENT_NAME", "pull_request"),
        ("GITHUB_REPOSITORY", "just-a-name"),
    ]));
    let e = resolve_pr(&defaults(), &env, Some(&payload)).expect_err("bad repository");
    assert!(e.message.contains("owner/name"));
}

#[test]
fn a_pull_request_event_without_its_pr_is_reported() {
    let e = resolve_pr(
        &defaults(),
        &env_for("pull_request"),
        Some(&json!({"action": "opened"})),
    )
    .expect_err("malformed");
    assert_eq!(e.input, "GITHUB_EVENT_PATH");
    assert!(e.message.contains("pull_request"));
}
