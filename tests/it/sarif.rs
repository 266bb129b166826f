//! The SARIF output (`sarif-output`, `render --sarif-output`), checked by Microsoft's SARIF
//! validator with GitHub's ingestion rules (`--rule-kind "Sarif;Gh"`): no result of level
//! `error`. `.ci/run` installs the validator in `.ci/sarif-multitool/`; without it these
//! tests fail in CI (`CI` set) and only say so elsewhere.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use crate::support::{ActionRun, FakeBuilder, PrData};

const BIN: &str = env!("CARGO_BIN_EXE_review-consensus");

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The validator `.ci/sarif-multitool.sh` unpacked, or `None` off CI when it is missing.
fn multitool() -> Option<PathBuf> {
    let tool = Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/sarif-multitool/Sarif.Multitool");
    if tool.exists() {
        return Some(tool);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI must validate the SARIF output: {} is missing (.ci/sarif-multitool.sh)",
        tool.display()
    );
    let _ = writeln!(
        std::io::stderr(),
        "note: {} missing; the SARIF output is not validated (bash .ci/sarif-multitool.sh)",
        tool.display()
    );
    None
}

/// What the validator reports at level `error` for `files` (file, rule id and message).
fn validation_errors(tool: &Path, files: &[PathBuf]) -> Vec<String> {
    let out_dir = tempfile::tempdir().expect("tempdir");
    let out = out_dir.path().join("validation.sarif");
    let ran = Command::new(tool)
        .args(["validate", "--rule-kind", "Sarif;Gh", "--output"])
        .arg(&out)
        .args(files)
        .env("DOTNET_SYSTEM_GLOBALIZATION_INVARIANT", "1")
        .output()
        .expect("the validator runs");
    let text = std::fs::read_to_string(&out).unwrap_or_else(|e| {
        panic!(
            "no validation log ({e}): {}{}",
            String::from_utf8_lossy(&ran.stdout),
            String::from_utf8_lossy(&ran.stderr)
        )
    });
    let stdout = String::from_utf8_lossy(&ran.stdout);
    assert!(
        stdout.contains(&format!("Done. {} files scanned.", files.len())),
        "every file validated: {stdout}"
    );
    let log: Value = serde_json::from_str(&text).expect("the validation log is JSON");
    let results = log["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    results
        .iter()
        // A result without `level` is a warning (SARIF's default).
        .filter(|r| r["level"] == "error")
        .map(|r| {
            let file = &r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
            format!("{file} {}: {}", r["ruleId"], r["message"])
        })
        .collect()
}

/// `render --sarif-output` on `inputs`: the SARIF log and the stderr.
fn render_sarif(inputs: &[PathBuf], dir: &Path) -> (PathBuf, Value, String) {
    let path = dir.join("out/review-consensus.sarif");
    let out = Command::new(BIN)
        .arg("render")
        .arg("--sarif-output")
        .arg(&path)
        .args(inputs)
        .env_clear()
        .output()
        .expect("render runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(matches!(out.status.code(), Some(0 | 1)), "{stderr}");
    let text = std::fs::read_to_string(&path).expect("SARIF written");
    (
        path,
        serde_json::from_str(&text).expect("SARIF is JSON"),
        stderr,
    )
}

fn results(log: &Value) -> &Vec<Value> {
    log["runs"][0]["results"].as_array().expect("results")
}

/// The fixture PRs and the real multi-bot PRs (their bots' own text and paths).
#[test]
fn the_fixture_prs_give_sarif_that_github_accepts() {
    let tool = multitool();
    let dir = tempfile::tempdir().expect("tempdir");
    let mut prs: Vec<PathBuf> = [
        "pr-101-three-bots",
        "pr-102-gemini-copilot",
        "pr-103-edge-cases",
    ]
    .map(fixture)
    .into();
    let real = std::fs::read_dir(fixture("real")).expect("real fixtures");
    let mut real: Vec<PathBuf> = real
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    real.sort();
    prs.extend(real);
    let mut written = Vec::new();
    for (i, pr) in prs.iter().enumerate() {
        let (path, log, _) =
            render_sarif(std::slice::from_ref(pr), &dir.path().join(i.to_string()));
        let run = &log["runs"][0];
        assert_eq!(run["tool"]["driver"]["name"], "review-consensus");
        assert_eq!(run["automationDetails"]["id"], "review-consensus/");
        assert!(
            run["versionControlProvenance"][0]["repositoryUri"]
                .as_str()
                .is_some_and(|uri| uri.starts_with("https://github.com/")),
            "{}",
            pr.display()
        );
        for result in results(&log) {
            let fp = result["partialFingerprints"]["reviewConsensusFingerprint/v1"]
                .as_str()
                .unwrap_or_default();
            assert!(
                fp.starts_with("rc-") && fp.len() == 11,
                "{}: {result}",
                pr.display()
            );
        }
        written.push((path, results(&log).len()));
    }
    assert!(written[0].1 > 0, "pr-101 has results");
    let total: usize = written.iter().map(|(_, n)| n).sum();
    assert!(total > 20, "{total} results over {} PRs", written.len());
    if let Some(tool) = &tool {
        let files: Vec<PathBuf> = written.into_iter().map(|(p, _)| p).collect();
        let errors = validation_errors(tool, &files);
        assert!(errors.is_empty(), "{errors:#?}");
    }
}

/// The 2026 bots' fixture PRs give results like the others, named after the bot that
/// detected them; Claude Code Review's pre-existing finding is no result, only counted.
#[test]
fn the_new_bots_reach_the_sarif_and_pre_existing_findings_do_not() {
    let tool = multitool();
    let dir = tempfile::tempdir().expect("tempdir");
    let mut written = Vec::new();
    for (i, (folder, bot)) in [
        ("bots/claude-code-review", "claude-code-review"),
        ("bots/devin", "devin"),
        ("bots/devin-summary", "devin"),
        ("bots/codescene", "codescene"),
        ("bots/codecov-ai", "codecov-ai"),
        ("bots/gitstream", "gitstream"),
        ("bots/amazon-q", "amazon-q"),
        ("bots/codacy", "codacy"),
        ("bots/codefactor", "codefactor"),
    ]
    .into_iter()
    .enumerate()
    {
        let (path, log, stderr) = render_sarif(&[fixture(folder)], &dir.path().join(i.to_string()));
        let detected: Vec<&Value> = results(&log)
            .iter()
            .flat_map(|r| r["properties"]["detectedBy"].as_array().unwrap())
            .collect();
        assert!(
            detected.iter().any(|b| *b == bot),
            "{folder}: {log}\n{stderr}"
        );
        if folder == "bots/claude-code-review" {
            let text = log.to_string();
            assert!(!text.contains("app/db/queries.py"), "{text}");
            assert_eq!(log["runs"][0]["properties"]["summary"]["preExisting"], 1);
        }
        written.push(path);
    }
    if let Some(tool) = &tool {
        let errors = validation_errors(tool, &written);
        assert!(errors.is_empty(), "{errors:#?}");
    }
}

/// The bots' own code-scanning alerts are not re-emitted: on pr-101 the alert that
/// gh-advanced-security alone raised is not a result; the ones review bots share are.
#[test]
fn code_scanning_alerts_are_never_re_emitted_as_ours() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, log, stderr) = render_sarif(&[fixture("pr-101-three-bots")], dir.path());
    let summary = &log["runs"][0]["properties"]["summary"];
    assert!(summary["codeScanningOnly"].as_u64() >= Some(1), "{summary}");
    assert!(stderr.contains("raised only by code scanning"), "{stderr}");
    for result in results(&log) {
        let bots = result["properties"]["detectedBy"].as_array().unwrap();
        assert!(
            bots.iter().any(|b| b != "gh-advanced-security"),
            "an alert of gh-advanced-security alone: {result}"
        );
    }
    let shared = results(&log)
        .iter()
        .any(|r| r["properties"]["detectedBy"].as_array().unwrap().len() > 1);
    assert!(shared);
}

/// More findings than code scanning keeps, with text and paths that try to break out: the
/// run keeps 5,000, the highest tier first, says so, and still validates.
#[test]
fn beyond_githubs_limits_the_lowest_tier_is_cut_and_the_run_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut rows = Vec::new();
    let tricky = [
        "See [the docs](1) and \\[x\\](2) @octocat",
        "Tab\tand\nnewline\u{0} and \u{202E}bidi",
        "Trailing backslash \\",
    ];
    let paths = [
        "src/a b/ü.rs",
        "/abs/path/x.py",
        "./rel/y.go",
        "win\\style\\z.cs",
    ];
    for i in 0..5_300 {
        let file = format!("{}/{i}", paths[i % paths.len()]);
        let title = format!("{} #{i}", tricky[i % tricky.len()]);
        // The first 300 are confirmed (both bots), the rest need verification.
        let bots: &[&str] = if i < 300 {
            &["alpha", "beta"]
        } else {
            &["alpha"]
        };
        for bot in bots {
            rows.push(json!({
                "bot": bot, "finding_id": format!("{bot}-{i}"), "severity": "high",
                "category": if i % 2 == 0 { "security" } else { "Code Smell" },
                "title": title, "evidence": {"file": file, "line": 10 + i % 7},
                "detail": "The bot explains why."
            }));
        }
    }
    let input = dir.path().join("findings.json");
    std::fs::write(&input, serde_json::to_string(&rows).unwrap()).unwrap();
    let (path, log, stderr) = render_sarif(&[input], dir.path());

    let results = results(&log);
    assert_eq!(results.len(), 5_000);
    assert!(results[..300]
        .iter()
        .all(|r| r["properties"]["level"] == "confirmed"));
    let run = &log["runs"][0];
    assert_eq!(run["properties"]["summary"]["cut"], 300);
    assert_eq!(
        run["properties"]["summary"]["cutFrom"],
        "needs-verification"
    );
    let note = &run["invocations"][0]["toolExecutionNotifications"][0];
    assert_eq!(note["level"], "warning");
    assert!(
        stderr.contains("300 finding(s) not in the SARIF"),
        "the job log says so: {stderr}"
    );
    assert!(std::fs::metadata(&path).unwrap().len() <= 10_000_000);
    let rules: Vec<&str> = run["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["security", "code-smell"]);
    if let Some(tool) = multitool() {
        let errors = validation_errors(&tool, &[path]);
        assert!(errors.is_empty(), "{errors:#?}");
    }
}

#[test]
fn sarif_output_is_validated_like_an_input() {
    let out = Command::new(BIN)
        .args(["render", "--sarif-output", "out/", "x.json"])
        .env_clear()
        .output()
        .expect("render runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--sarif-output"), "{stderr}");
    assert!(stderr.contains("is a folder"), "{stderr}");
}

/// The action writes the file where `sarif-output` says, refuses a path its own `sarif`
/// globs would read back, and a later upload step finds the file.
#[tokio::test]
async fn the_action_writes_the_sarif_output() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone()).start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("results/review-consensus.sarif");
    let ran = ActionRun::new(&fake, &data)
        .input("sarif-output", &path.display().to_string())
        .input("comment-header", "strict")
        .run();
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let log: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("written")).expect("json");
    assert_eq!(
        log["runs"][0]["automationDetails"]["id"],
        "review-consensus/strict/"
    );
    assert_eq!(
        results(&log).len() as u64,
        log["runs"][0]["properties"]["summary"]["results"]
            .as_u64()
            .unwrap()
    );
    assert!(!results(&log).is_empty());

    let glob = format!("{}/results/*.sarif", dir.path().display());
    let refused = ActionRun::new(&fake, &data)
        .input("sarif", &glob)
        .input("sarif-output", &path.display().to_string())
        .run();
    assert_eq!(refused.code, 2, "{}", refused.stdout);
    assert!(
        refused.stdout.contains("sarif-output") || refused.stderr.contains("sarif-output"),
        "{}{}",
        refused.stdout,
        refused.stderr
    );
}

/// The oracle itself: a result without a location or message text, and an absolute path,
/// are errors under GitHub's rules (so a clean run above means something).
#[test]
fn the_validator_rejects_what_github_would() {
    let Some(tool) = multitool() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, mut log, _) = render_sarif(&[fixture("pr-101-three-bots")], dir.path());
    let results = log["runs"][0]["results"].as_array_mut().expect("results");
    results[0].as_object_mut().unwrap().remove("locations");
    results[1]["message"] = json!({"id": "nope"});
    let bad = dir.path().join("bad.sarif");
    std::fs::write(&bad, log.to_string()).unwrap();
    let errors = validation_errors(&tool, &[bad]);
    assert!(errors.iter().any(|e| e.contains("GH1015")), "{errors:#?}");
    assert!(
        errors.iter().any(|e| e.contains("results[1].message")),
        "{errors:#?}"
    );
}
