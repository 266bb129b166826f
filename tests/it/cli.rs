//! The real binary, spawned with a clean environment: exit codes, messages, outputs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_review-consensus");
const FAKE_TOKEN: &str = "fake-cli-token-FAKEfakeFAKE0123456789";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn run<S: AsRef<std::ffi::OsStr>>(args: &[S], vars: &[(&str, &str)]) -> Output {
    Command::new(BIN)
        .args(args)
        .env_clear()
        .envs(vars.iter().copied())
        .output()
        .expect("the binary runs")
}

fn text(output: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The variables the runner sets for a container action, for an event payload on disk.
fn actions_env<'a>(event_name: &'a str, event_path: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("GITHUB_ACTIONS", "true"),
        ("GITHUB_REPOSITORY", "acme/payments-api"),
        ("GITHUB_EVENT_NAME", event_name),
        ("GITHUB_EVENT_PATH", event_path),
        ("INPUT_GITHUB-TOKEN", FAKE_TOKEN),
        ("INPUT_FAIL-ON", ""),
        ("INPUT_BOTS", ""),
    ]
}

fn write_event(dir: &Path, payload: &str) -> String {
    let path = dir.join("event.json");
    std::fs::write(&path, payload).expect("event written");
    path.display().to_string()
}

#[test]
fn bad_inputs_exit_2_naming_the_input_and_never_print_the_token() {
    let dir = tempfile::tempdir().expect("tempdir");
    let event = write_event(dir.path(), r#"{"pull_request": {"number": 1}}"#);
    for (key, value, named, quoted) in [
        ("INPUT_FAIL-ON", "maybe", "fail-on", "`maybe`"),
        ("INPUT_LINE-WINDOW", "-1", "line-window", "`-1`"),
        ("INPUT_TITLE-OVERLAP", "2", "title-overlap", "`2`"),
        ("INPUT_BOTS", "coderabbit,nonesuch", "bots", "`nonesuch`"),
    ] {
        let mut vars = actions_env("pull_request", &event);
        vars.extend([(key, value), ("RUNNER_DEBUG", "1")]);
        let output = run::<&str>(&[], &vars);
        let (stdout, stderr) = text(&output);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{key}={value}: {stdout}{stderr}"
        );
        assert!(
            stdout.contains(&format!("::error::invalid input `{named}`")),
            "{stdout}"
        );
        assert!(stdout.contains(quoted), "the bad value is quoted: {stdout}");
        assert!(!stdout.contains(FAKE_TOKEN) && !stderr.contains(FAKE_TOKEN));
    }
}

#[test]
fn a_missing_token_with_a_pr_is_a_config_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let event = write_event(dir.path(), r#"{"pull_request": {"number": 3}}"#);
    let mut vars = actions_env("pull_request", &event);
    vars.retain(|(k, _)| *k != "INPUT_GITHUB-TOKEN");
    vars.push(("INPUT_GITHUB-TOKEN", ""));
    let output = run::<&str>(&[], &vars);
    let (stdout, _) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    assert!(stdout.contains("`github-token`"), "{stdout}");
}

#[test]
fn no_pr_in_the_event_is_a_notice_and_exit_0() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (event_name, payload) in [
        ("push", r#"{"ref": "refs/heads/main"}"#),
        (
            "issue_comment",
            r#"{"issue": {"number": 8}, "comment": {"body": "hi"}}"#,
        ),
        ("workflow_run", r#"{"workflow_run": {"pull_requests": []}}"#),
    ] {
        let event = write_event(dir.path(), payload);
        let output = run::<&str>(&[], &actions_env(event_name, &event));
        let (stdout, stderr) = text(&output);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{event_name}: {stdout}{stderr}"
        );
        assert!(
            stdout.contains(&format!(
                "::notice::no pull request in this `{event_name}` event; nothing to gate"
            )),
            "{stdout}"
        );
        assert!(!stdout.contains(FAKE_TOKEN) && !stderr.contains(FAKE_TOKEN));
    }
}

#[test]
fn an_unreadable_event_is_a_runtime_error_exit_3() {
    let dir = tempfile::tempdir().expect("tempdir");
    let event = write_event(dir.path(), "{not json");
    let output = run::<&str>(&[], &actions_env("pull_request", &event));
    let (stdout, _) = text(&output);
    assert_eq!(output.status.code(), Some(3), "{stdout}");
    assert!(stdout.starts_with("::error::the event payload"), "{stdout}");
    assert_eq!(stdout.lines().count(), 1, "one error line: {stdout}");
}

#[test]
fn no_subcommand_outside_actions_prints_help_and_exits_2() {
    let output = run::<&str>(&[], &[]);
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr.contains("Usage: review-consensus"), "{stderr}");
    assert!(
        stderr.contains("render") && stderr.contains("demo"),
        "{stderr}"
    );
}

#[test]
fn run_without_a_token_or_with_a_bad_repo_exits_2() {
    let output = run(&["run", "--repo", "acme/payments-api", "--pr", "1"], &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output).1.contains("GITHUB_TOKEN"));
    let output = run(
        &["run", "--repo", "acme", "--pr", "1"],
        &[("GITHUB_TOKEN", FAKE_TOKEN)],
    );
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr.contains("`--repo`"), "{stderr}");
    assert!(!stdout.contains(FAKE_TOKEN) && !stderr.contains(FAKE_TOKEN));
    let output = run(
        &["run", "--repo", "acme/x", "--pr", "0"],
        &[("GITHUB_TOKEN", FAKE_TOKEN)],
    );
    assert_eq!(output.status.code(), Some(2), "clap rejects PR 0");
}

#[test]
fn render_flags_are_validated_like_inputs() {
    let output = run(&["render", "--line-window", "-1", "x.json"], &[]);
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("invalid input `--line-window`"), "{stderr}");
    assert!(stderr.contains("non-negative integer"), "{stderr}");
}

#[test]
fn render_names_an_input_it_cannot_read() {
    let output = run(&["render", "/nonexistent/findings.json"], &[]);
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("/nonexistent/findings.json"), "{stderr}");
}

const TWO_BOTS_AGREE: &str = r#"[
  {"bot": "semgrep", "finding_id": "s1", "severity": "high", "category": "security",
   "title": "SQL injection in the refund query", "evidence": {"file": "app/db.py", "line": 12}},
  {"bot": "custom-linter", "finding_id": "c1", "severity": "high", "category": "security",
   "title": "SQL injection in refund query", "evidence": {"file": "app/db.py", "line": 13}}
]"#;

fn render_findings(extra: &[&str]) -> (Output, serde_json::Value) {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("findings.json");
    std::fs::write(&input, TWO_BOTS_AGREE).expect("written");
    let report = dir.path().join("out/report.json");
    let mut args = vec!["render", "--report", report.to_str().expect("utf-8")];
    args.extend_from_slice(extra);
    args.push(input.to_str().expect("utf-8"));
    let output = run(&args, &[]);
    let report = std::fs::read_to_string(&report)
        .map(|t| serde_json::from_str(&t).expect("the report is JSON"))
        .unwrap_or(serde_json::Value::Null);
    (output, report)
}

#[test]
fn render_on_normalised_findings_gates_and_writes_the_report() {
    let (output, report) = render_findings(&[]);
    let (stdout, stderr) = text(&output);
    assert_eq!(
        output.status.code(),
        Some(1),
        "two bots agree: confirmed: {stdout}{stderr}"
    );
    assert!(stdout.starts_with("<!-- review-bot-ack -->"), "{stdout}");
    assert!(stdout.contains("SQL injection"), "{stdout}");
    assert!(stderr.contains("gate: fail — 1 confirmed"), "{stderr}");
    assert_eq!(report["version"], 1);
    assert_eq!(report["gate"], "fail");
    assert_eq!(report["bots_ran"], 2);

    let (output, report) = render_findings(&["--fail-on", "never"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(report["gate"], "pass");

    let (output, _) = render_findings(&["--bots-ran", "8", "--fail-on", "confirmed"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "2 of 8 bots is not a confirmation"
    );
}

#[test]
fn render_on_a_fixture_folder_gates_and_writes_the_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = dir.path().join("report.json");
    let folder = fixture("pr-101-three-bots");
    let output = run(
        &[
            "render",
            "--report",
            report.to_str().expect("utf-8"),
            folder.to_str().expect("utf-8"),
        ],
        &[],
    );
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stdout.starts_with("<!-- review-bot-ack -->"), "{stdout}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("report written"))
            .expect("json");
    assert_eq!(report["repository"], "acme/payments-api");
    assert_eq!(report["pull_request"], 101);
    assert_eq!(report["gate"], "fail");
}

#[test]
fn demo_prints_the_comment_and_the_verdict_without_a_token() {
    let output = run(&["demo"], &[]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stdout.starts_with("<!-- review-bot-ack -->"), "{stdout}");
    let verdict = stdout.lines().last().unwrap_or_default();
    assert!(verdict.starts_with("gate: fail — "), "{verdict}");
    assert!(verdict.ends_with("(fail-on: confirmed)"), "{verdict}");
}

#[test]
fn render_reads_sarif_logs_as_sources() {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = dir.path().join("report.json");
    let sarif = fixture("bots/sarif/codeql.sarif");
    let args = |fail_on: &str| {
        [
            "render".as_ref(),
            "--fail-on".as_ref(),
            fail_on.as_ref(),
            "--report".as_ref(),
            report.as_os_str(),
            sarif.as_os_str(),
        ]
        .map(std::ffi::OsStr::to_owned)
    };
    let output = run(&args("never"), &[]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("codeql"), "{stdout}");
    let parsed: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("report")).expect("json");
    let sources = parsed["sources"].as_array().expect("sources");
    assert!(
        sources
            .iter()
            .any(|s| s["bot"] == "codeql" && s["status"] == "ok"),
        "{sources:?}"
    );
    assert!(parsed["findings"].as_array().is_some_and(|f| !f.is_empty()));

    let output = run(&args("unverified"), &[]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "a single-source finding fails at `unverified`"
    );
}

#[test]
fn render_with_a_broken_optional_file_reports_it_and_reads_the_rest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("pr");
    std::fs::create_dir_all(&folder).expect("mkdir");
    let fixture_dir = fixture("pr-103-edge-cases");
    for entry in std::fs::read_dir(&fixture_dir).expect("fixture") {
        let path = entry.expect("entry").path();
        std::fs::copy(&path, folder.join(path.file_name().expect("name"))).expect("copy");
    }
    let whole = run(&["render", folder.to_str().expect("utf-8")], &[]);
    let (whole_out, _) = text(&whole);
    std::fs::write(folder.join("code_scanning_alerts.json"), "{ truncated").expect("write");
    std::fs::write(folder.join("review_threads.json"), r#"{"data": null}"#).expect("write");
    let broken = run(&["render", folder.to_str().expect("utf-8")], &[]);
    let (stdout, stderr) = text(&broken);
    assert!(
        matches!(broken.status.code(), Some(0 | 1)),
        "not a runtime error: {stdout}{stderr}"
    );
    // Code scanning's alerts are reported unreadable; its inline comments are still read.
    assert!(
        stdout.contains("code\\_scanning\\_alerts.json: not valid JSON"),
        "{stdout}"
    );
    assert!(stdout.contains("review threads (malformed)"), "{stdout}");
    // The other bots' findings are all still there.
    assert!(whole_out.contains("### Confirmed") == stdout.contains("### Confirmed"));
    for bot in ["coderabbit", "sourcery"] {
        assert!(stdout.contains(bot), "{bot}: {stdout}");
    }
}

/// `{"a": {"a": ... 1 ...}}`, `depth` objects deep.
fn nested(depth: usize) -> String {
    format!("{}1{}", "{\"a\": ".repeat(depth), "}".repeat(depth))
}

/// Issue 19: one element nested deeper than the JSON reader's limit (128 levels) used to
/// fail the whole file (exit 3, every finding lost). It is skipped and counted against its
/// bot like any other unreadable comment; the rest of the file is read.
#[test]
fn issue_19_render_skips_an_element_nested_too_deep_and_keeps_the_rest_of_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("pr");
    std::fs::create_dir_all(&folder).expect("mkdir");
    for entry in std::fs::read_dir(fixture("pr-101-three-bots")).expect("fixture") {
        let path = entry.expect("entry").path();
        std::fs::copy(&path, folder.join(path.file_name().expect("name"))).expect("copy");
    }
    let render = |name: &str| {
        let report = dir.path().join(name);
        let output = run(
            &[
                "render",
                "--report",
                report.to_str().expect("utf-8"),
                folder.to_str().expect("utf-8"),
            ],
            &[],
        );
        let report: serde_json::Value = std::fs::read_to_string(&report)
            .map(|t| serde_json::from_str(&t).expect("the report is JSON"))
            .unwrap_or(serde_json::Value::Null);
        (output, report)
    };
    let (whole, whole_report) = render("whole.json");

    let path = folder.join("review_comments.json");
    let comments: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("JSON");
    let mut items: Vec<String> = comments.iter().map(|c| c.to_string()).collect();
    let deep = format!(
        r#"{{"id": 2502140099, "user": {{"login": "coderabbitai[bot]", "type": "Bot"}},
            "body": "**Potential issue** lost in the depths", "path": "app/db/queries.py",
            "line": 3, "meta": {}}}"#,
        nested(10_000)
    );
    items.insert(1, deep);
    std::fs::write(&path, format!("[{}]", items.join(",\n"))).expect("write");
    let (output, report) = render("deep.json");
    let (stdout, stderr) = text(&output);

    assert_eq!(
        output.status.code(),
        whole.status.code(),
        "the gate as before, not a runtime error: {stdout}{stderr}"
    );
    assert_eq!(
        report["findings"], whole_report["findings"],
        "no finding lost"
    );
    let coderabbit = report["sources"]
        .as_array()
        .expect("sources")
        .iter()
        .find(|s| s["bot"] == "coderabbit")
        .expect("coderabbit");
    assert_eq!(coderabbit["skipped"], 1, "{coderabbit}");
    let note = coderabbit["notes"].to_string();
    assert!(
        note.contains("review_comments #2502140099") && note.contains("128 levels"),
        "{note}"
    );
    assert!(
        stdout.contains("128 levels"),
        "the comment says it: {stdout}"
    );
}

/// `render` on a saved PR folder resolves the `bots` default on the snapshot, as the
/// action does: the bots that posted are the sources, none is listed as absent.
#[test]
fn render_reads_the_bots_that_posted_on_a_saved_pr() {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = dir.path().join("report.json");
    let folder = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/pr-101-three-bots"
    );
    let output = run(
        &[
            "render",
            "--report",
            report.to_str().expect("utf-8"),
            folder,
        ],
        &[],
    );
    let (stdout, stderr) = text(&output);
    assert!(!stdout.contains("absent"), "{stdout}{stderr}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("report")).expect("JSON");
    let bots: Vec<&str> = report["sources"]
        .as_array()
        .expect("sources")
        .iter()
        .map(|s| s["bot"].as_str().expect("bot"))
        .collect();
    assert_eq!(bots, ["coderabbit", "sourcery", "gh-advanced-security"]);
}

/// `render --include-pre-existing`: a PR whose only finding a bot marks pre-existing passes
/// by default (it is shown apart) and fails when the flag treats it like any other.
#[test]
fn render_sets_pre_existing_findings_apart_unless_told_otherwise() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("pr");
    std::fs::create_dir(&folder).expect("folder");
    for file in [
        "pull.json",
        "reviews.json",
        "issue_comments.json",
        "check_runs.json",
    ] {
        std::fs::copy(
            fixture("bots/claude-code-review").join(file),
            folder.join(file),
        )
        .expect("copied");
    }
    // Only the 🟣 comment is kept.
    let comments: Vec<serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(fixture("bots/claude-code-review/review_comments.json"))
            .expect("read"),
    )
    .expect("json");
    let purple: Vec<&serde_json::Value> = comments
        .iter()
        .filter(|c| c["body"].as_str().unwrap_or("").starts_with('🟣'))
        .collect();
    assert_eq!(purple.len(), 1);
    std::fs::write(
        folder.join("review_comments.json"),
        serde_json::to_string(&purple).expect("json"),
    )
    .expect("written");
    let report = dir.path().join("report.json");
    let render = |extra: &[&str]| {
        let mut args = vec!["render", "--fail-on", "unverified", "--report"];
        let report = report.to_str().unwrap();
        args.push(report);
        args.extend_from_slice(extra);
        let folder = folder.to_str().unwrap();
        args.push(folder);
        let out = run(&args, &[]);
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(report).expect("report"))
                .expect("report JSON");
        (out, json)
    };
    let (out, json) = render(&[]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("Pre-existing (1)"), "{stdout}");
    assert!(
        stderr.contains("0 suppressed, 1 pre-existing (fail-on: unverified)"),
        "the verdict line counts it: {stderr}"
    );
    assert_eq!(json["counts"]["pre_existing"], 1);
    assert_eq!(json["gate"], "pass");

    let (out, json) = render(&["--include-pre-existing"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out).0);
    assert_eq!(json["gate"], "fail");
    // One of the two sources that ran (the Claude app's tracking comment is the other).
    assert_eq!(
        json["counts"]["needs-verification"], 1,
        "{}",
        json["counts"]
    );
    assert!(json["counts"].get("pre_existing").is_none());
}
