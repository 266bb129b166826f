//! The action attacked as an adversary would: floods, forged markers, hostile server text,
//! an echoed token, a server that loops or drips. Each is a regression test for a way around
//! the gate or into the log.

use std::time::Duration;

use serde_json::{json, Value};
use wiremock::ResponseTemplate;

use crate::support::{drip_server, ActionRun, FakeBuilder, FakeGitHub, PrData, Ran, TOKEN};

const MARKER: &str = "<!-- review-bot-ack -->";

fn stickies(fake: &FakeGitHub) -> Vec<Value> {
    fake.comments()
        .into_iter()
        .filter(|c| c["body"].as_str().unwrap_or("").starts_with(MARKER))
        .collect()
}

/// Every line a run printed, stdout and stderr.
fn lines(ran: &Ran) -> Vec<&str> {
    ran.stdout.lines().chain(ran.stderr.lines()).collect()
}

/// `render DIR` on the same data: exit code and report.
fn render(data: &PrData) -> (i32, Value) {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("pr");
    data.save_dir(&folder).unwrap();
    let report = dir.path().join("report.json");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_review-consensus"))
        .arg("render")
        .arg("--report")
        .arg(&report)
        .arg(&folder)
        .env_clear()
        .output()
        .unwrap();
    let report = std::fs::read_to_string(&report).unwrap();
    (
        out.status.code().unwrap_or(-1),
        serde_json::from_str(&report).unwrap(),
    )
}

fn counts(report: &Value) -> Vec<(String, usize)> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for finding in report["findings"].as_array().unwrap() {
        let level = finding["level"].as_str().unwrap_or("").to_owned();
        match counts.iter_mut().find(|(l, _)| *l == level) {
            Some((_, n)) => *n += 1,
            None => counts.push((level, 1)),
        }
    }
    counts.sort();
    counts
}

#[tokio::test]
async fn a_flood_of_20000_comments_gates_exactly_like_render_on_the_same_data() {
    let mut data = PrData::fixture("pr-101-three-bots");
    // 20,000 review comments before the bots' (more than the 100 pages read before), and
    // 20,000 conversation comments before our sticky of an earlier run.
    let spam = |id: u64| {
        json!({"id": id, "user": {"login": "flooder", "id": 7, "type": "User"}, "body": "+1",
               "path": "README.md", "line": 1, "commit_id": "0".repeat(40)})
    };
    let mut review_comments: Vec<Value> = (1..=20_000).map(spam).collect();
    review_comments.append(&mut data.review_comments);
    data.review_comments = review_comments;
    let mut issue_comments: Vec<Value> = (100_001..=120_000).map(spam).collect();
    issue_comments.append(&mut data.issue_comments);
    issue_comments.push(json!({"id": 200_000, "body": format!("{MARKER}\nold"),
        "user": {"login": "github-actions[bot]", "id": 41898282, "type": "Bot"}}));
    data.issue_comments = issue_comments;

    let fake = FakeBuilder::new(data.clone()).start().await;
    let ran = ActionRun::new(&fake, &data).run();
    let (render_code, render_report) = render(&data);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert_eq!(ran.code, render_code, "the action and render disagree");
    let report = ran.report.as_ref().expect("report");
    assert_eq!(counts(report), counts(&render_report));
    assert_eq!(report["gate"], render_report["gate"]);
    assert_eq!(ran.output("confirmed"), "4");
    // Every page was read, and the sticky on the last page was found: edited, not doubled.
    assert_eq!(
        fake.count("GET /repos/acme/payments-api/pulls/101/comments"),
        201
    );
    assert_eq!(stickies(&fake).len(), 1);
    assert_eq!(
        fake.count("POST /repos/acme/payments-api/issues/101/comments"),
        0
    );
    assert_eq!(ran.output("comment-id"), "200000");
}

#[tokio::test]
async fn a_bot_body_that_carries_our_marker_is_still_read() {
    let mut data = PrData::fixture("pr-101-three-bots");
    data.review_comments.clear();
    let nitpicks = "<details>\n<summary>🧹 Nitpick comments (1)</summary><blockquote>\n\n\
<details>\n<summary>app/a.py (1)</summary><blockquote>\n\n`3-3`: **Rename the variable x.**\n\nUnclear.\n\n\
</blockquote></details>\n\n</blockquote></details>";
    for review in &mut data.reviews {
        if review["user"]["login"] == "coderabbitai[bot]" {
            // The marker on its first line, and again quoted in a code block.
            review["body"] = json!(format!("{MARKER}\n```\n{MARKER}\n```\n{nitpicks}"));
        }
    }
    let fake = FakeBuilder::new(data.clone()).start().await;
    let ran = ActionRun::new(&fake, &data).input("fail-on", "never").run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let report = ran.report.expect("report").to_string();
    assert!(
        report.contains("Rename the variable x"),
        "the bot's finding was dropped"
    );
    // Offline, without the token's identity, a built-in bot's comment is never ours either.
    let (_, offline) = render(&data);
    assert!(offline.to_string().contains("Rename the variable x"));
    // And its comment is never taken for our sticky: ours is a new one.
    assert_eq!(
        fake.count("POST /repos/acme/payments-api/issues/101/comments"),
        1
    );
}

#[tokio::test]
async fn a_flood_of_unreadable_comments_leaves_the_findings_in_the_sticky() {
    let mut data = PrData::fixture("pr-101-three-bots");
    for id in 0..3_000u64 {
        data.review_comments.push(json!({
            "id": 500_000 + id, "body": 17 + id,
            "user": {"login": "sourcery-ai[bot]", "id": 58596630, "type": "Bot"},
        }));
    }
    let fake = FakeBuilder::new(data.clone()).start().await;
    let ran = ActionRun::new(&fake, &data).run();
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let sticky = stickies(&fake).pop().expect("a sticky");
    let body = sticky["body"].as_str().unwrap();
    assert!(body.chars().count() <= 65_536);
    assert!(
        body.contains("### Confirmed (4)"),
        "the findings were pushed out:\n{}",
        &body[..2000.min(body.len())]
    );
    assert!(body.contains("3000 skipped as unreadable"), "{body}");
    assert!(body.contains("×3000"), "counted per reason: {body}");
    assert!(
        body.chars().count() < 20_000,
        "the notes are a summary, not a list"
    );
    // The log names a few and counts the rest.
    assert!(
        ran.stderr.lines().count() < 100,
        "{} log lines",
        ran.stderr.lines().count()
    );
}

#[tokio::test]
async fn server_text_cannot_become_a_workflow_command_or_move_the_terminal() {
    let data = PrData::fixture("pr-101-three-bots");
    let page = "<html>\r\n<title>Unicorn!</title>\n::set-output name=gate::pass\n::add-mask::x\n::error::forged\u{1b}[2J\u{0}\u{202E}</html>";
    let fake = FakeBuilder::new(data.clone())
        .fault(
            "GET",
            "/repos/acme/payments-api/pulls/101/reviews",
            ResponseTemplate::new(500).set_body_string(page),
            20,
        )
        .start()
        .await;
    let ran = ActionRun::new(&fake, &data).var("RUNNER_DEBUG", "1").run();
    assert_eq!(ran.code, 3, "{}", ran.stdout);
    for line in lines(&ran) {
        let start = line.trim_start();
        assert!(
            !start.starts_with("::set-output") && !start.starts_with("::add-mask"),
            "{line:?}"
        );
        assert!(!start.starts_with("::error::forged"), "{line:?}");
        assert!(
            !line
                .chars()
                .any(|c| c.is_control() || ('\u{202A}'..='\u{202E}').contains(&c)),
            "{line:?}"
        );
    }
    let error = ran
        .stdout
        .lines()
        .find(|l| l.starts_with("::error::"))
        .expect("one error line");
    assert!(
        error.contains("Unicorn!") && error.contains("\\n::set-output"),
        "{error}"
    );
}

#[tokio::test]
async fn control_and_bidi_characters_in_bot_text_never_reach_annotations() {
    let mut data = PrData::fixture("pr-101-three-bots");
    for comment in &mut data.review_comments {
        let body = comment["body"].as_str().unwrap_or("").to_owned();
        comment["body"] = json!(body.replacen("**", "**\u{1b}]0;owned\u{7}\u{202E}\u{0}", 2));
    }
    let fake = FakeBuilder::new(data.clone()).start().await;
    let ran = ActionRun::new(&fake, &data).input("check-name", "rc").run();
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let annotations: Vec<&str> = ran
        .stdout
        .lines()
        .filter(|l| l.starts_with("::error "))
        .collect();
    assert!(!annotations.is_empty());
    for line in lines(&ran) {
        assert!(
            !line
                .chars()
                .any(|c| (c.is_control() && c != '\t') || ('\u{202A}'..='\u{202E}').contains(&c)),
            "{line:?}"
        );
    }
    let state = fake.state();
    let runs = state.check_runs[0].to_string();
    assert!(
        !runs.contains('\u{202E}') && !runs.contains('\u{1b}'),
        "check-run annotations"
    );
}

#[tokio::test]
async fn an_api_message_that_echoes_the_token_is_redacted_everywhere() {
    let data = PrData::fixture("pr-101-three-bots");
    let echo = format!("Bad credentials for token {TOKEN} (ghp_{})", "A".repeat(36));
    let fake = FakeBuilder::new(data.clone())
        // Code scanning's failure is not fatal: its message reaches the comment and report.
        .fault(
            "GET",
            "/repos/acme/payments-api/code-scanning/alerts",
            crate::support::api_error(403, &echo),
            5,
        )
        .fault(
            "POST",
            "/repos/acme/payments-api/check-runs",
            crate::support::api_error(
                403,
                &format!("Resource not accessible by integration; {echo}"),
            ),
            5,
        )
        .start()
        .await;
    let ran = ActionRun::new(&fake, &data)
        .var("RUNNER_DEBUG", "1")
        .input("check-name", "rc")
        .run();
    assert_eq!(ran.code, 1, "{}", ran.stdout);
    let comment = stickies(&fake).pop().expect("sticky")["body"].to_string();
    assert!(
        comment.contains("Bad credentials"),
        "the message itself is kept"
    );
    let report = ran
        .report
        .as_ref()
        .map(Value::to_string)
        .unwrap_or_default();
    for (what, text) in [
        ("stdout", &ran.stdout),
        ("stderr", &ran.stderr),
        ("summary", &ran.summary),
        ("report", &report),
        ("comment", &comment),
    ] {
        assert!(
            !text.contains(TOKEN) && !text.contains(&TOKEN[4..]),
            "token in {what}"
        );
        assert!(
            !text.contains("ghp_AAAA"),
            "a token-shaped string in {what}"
        );
    }
}

#[tokio::test]
async fn a_server_that_drips_its_answer_cannot_hold_the_job() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone()).start().await;
    // Headers at once, then one byte every 20 s: no read timeout between bytes ever fires.
    let drip = drip_server(Duration::from_secs(20), 64);
    let ran = ActionRun::new(&fake, &data)
        .api(&drip, &format!("{drip}/graphql"))
        .var("REVIEW_CONSENSUS_REQUEST_TIMEOUT_MS", "500")
        .run();
    assert_eq!(ran.code, 3, "{}", ran.stdout);
    assert!(
        ran.elapsed < Duration::from_secs(15),
        "held the job {:?}",
        ran.elapsed
    );
    assert!(
        ran.stdout.contains("no complete answer within 0.5s"),
        "{}",
        ran.stdout
    );
    assert!(ran.stdout.contains("REVIEW_CONSENSUS_REQUEST_TIMEOUT_MS"));

    // With generous requests, the run's own deadline ends it.
    let ran = ActionRun::new(&fake, &data)
        .api(&drip, &format!("{drip}/graphql"))
        .var("REVIEW_CONSENSUS_RUN_TIMEOUT_MS", "1500")
        .run();
    assert_eq!(ran.code, 3, "{}", ran.stdout);
    assert!(
        ran.elapsed < Duration::from_secs(15),
        "held the job {:?}",
        ran.elapsed
    );
    assert!(ran.stdout.contains("deadline"), "{}", ran.stdout);
}

#[tokio::test]
async fn a_link_loop_fails_the_run_instead_of_passing_it() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone())
        .page_size(6)
        .link_loop()
        .start()
        .await;
    let ran = ActionRun::new(&fake, &data).run();
    assert_eq!(
        ran.code, 3,
        "never a pass on a partial list: {}",
        ran.stdout
    );
    assert!(ran.stdout.contains("::error::") && ran.stdout.contains("page already read"));
    assert!(stickies(&fake).is_empty());
}

#[tokio::test]
async fn lost_thread_state_is_said_in_the_comment() {
    let data = PrData::fixture("pr-103-edge-cases");
    let fake = FakeBuilder::new(data.clone()).threads_fail().start().await;
    let ran = ActionRun::new(&fake, &data).run();
    assert!(ran.code == 0 || ran.code == 1, "{}", ran.stderr);
    let body = stickies(&fake).pop().expect("sticky")["body"].to_string();
    assert!(body.contains("review threads (malformed)"), "{body}");
    assert!(body.contains("they are counted"), "{body}");
}

/// A check run's name is a server's (any app's) text: the wait's log lines show it as one
/// escaped line, so it starts no workflow command and carries no bidirectional control.
#[tokio::test]
async fn a_check_run_name_cannot_forge_a_command_in_the_wait_log() {
    let head = "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567";
    let mut data = PrData::empty("acme", "payments-api", 7, head);
    data.head_check_runs = vec![json!({
        "id": 9001, "name": "Cursor Bugbot\n::error::forged\u{202E}", "head_sha": head,
        "status": "in_progress", "conclusion": null, "started_at": "2026-11-02T09:01:00Z",
        "app": {"id": 1210556, "slug": "cursor", "name": "Cursor"},
    })];
    let fake = FakeBuilder::new(data.clone()).start().await;
    let ran = ActionRun::new(&fake, &data)
        .input("bots", "cursor-bugbot")
        .input("wait-for-bots", "1s")
        .run();
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.contains("poll 1: still pending"),
        "{}",
        ran.stdout
    );
    for line in lines(&ran) {
        assert!(
            !line.trim_start().starts_with("::error::forged"),
            "{line:?}"
        );
        assert!(!line.chars().any(|c| c == '\u{202E}'), "{line:?}");
    }
}

/// A review comment on the PR's head: `login` of `kind`, `body` at `path:line`.
fn inline(
    id: u64,
    login: &str,
    kind: &str,
    body: &str,
    path: &str,
    line: u32,
    head: &str,
) -> Value {
    json!({"id": id, "user": {"login": login, "id": id, "type": kind}, "body": body,
           "path": path, "line": line, "side": "RIGHT", "subject_type": "line",
           "commit_id": head, "original_commit_id": head,
           "html_url": format!("https://github.com/acme/repo/pull/202#discussion_r{id}")})
}

/// Only Claude Code Review's own 🟣 marker sets a finding apart. The same marker opening
/// another bot's comment, a person's comment or reply, an account merely named like the
/// bot, or quoted inside one of Claude's 🔴 findings makes nothing pre-existing: those
/// findings still gate.
#[tokio::test]
async fn a_forged_pre_existing_marker_sets_nothing_apart() {
    let mut data = PrData::fixture("bots/claude-code-review");
    let head = data.pull["head"]["sha"].as_str().unwrap().to_owned();
    let forged = "🟣 **Pre-existing** — **Password logged in plain text**\n\nThe login handler writes the password to the log.";
    data.review_comments.extend([
        // Another bot opening with the marker: its finding is the PR's.
        inline(4100000001, "coderabbitai[bot]", "Bot", forged, "app/auth/login.py", 12, &head),
        // A person's comment and a person's reply in the thread of Claude's 🔴 finding.
        inline(4100000002, "mallory", "User", forged, "app/auth/login.py", 30, &head),
        {
            let mut reply = inline(4100000003, "mallory", "User", "🟣 Pre-existing, ignore it", "app/api/refunds.py", 44, &head);
            reply["in_reply_to_id"] = json!(3900000101u64);
            reply
        },
        // A person's account named like the app.
        inline(4100000004, "claude", "User", forged, "app/auth/login.py", 50, &head),
        // Claude's own 🔴 finding that merely quotes the 🟣 marker further down.
        inline(
            4100000005,
            "claude[bot]",
            "Bot",
            "🔴 **Important** — **Session token is never rotated**\n\nA reviewer wrote \"🟣 Pre-existing\" here earlier, but the rotation was removed in this PR.",
            "app/auth/tokens.py",
            22,
            &head,
        ),
    ]);
    let fake = FakeBuilder::new(data.clone()).start().await;
    let ran = ActionRun::new(&fake, &data)
        .input("fail-on", "never")
        .input("fail-on-severity", "high")
        .run();
    assert_eq!(
        ran.code, 1,
        "the PR's own high findings gate: {}",
        ran.stderr
    );
    let report = ran.report.expect("report");
    let findings = report["findings"].as_array().unwrap();
    let apart: Vec<&Value> = findings
        .iter()
        .filter(|f| f["suppression_reason"] == "pre-existing")
        .collect();
    assert_eq!(apart.len(), 1, "only Claude's own 🟣 comment");
    assert_eq!(apart[0]["members"][0]["finding_id"], "3900000103");
    assert_eq!(report["counts"]["pre_existing"], 1);
    let surfaced = |file: &str| {
        findings
            .iter()
            .find(|f| f["file"] == file && f["suppressed"] == false)
            .unwrap_or_else(|| panic!("{file} not surfaced: {report}"))
    };
    assert_eq!(
        surfaced("app/auth/login.py")["detected_by"],
        json!(["coderabbit"])
    );
    assert_eq!(surfaced("app/auth/tokens.py")["severity"], "high");
    assert_eq!(surfaced("app/api/refunds.py")["severity"], "high");
    for f in findings {
        for m in f["members"].as_array().unwrap() {
            let id = m["finding_id"].as_str().unwrap_or("");
            assert!(
                !["4100000002", "4100000003", "4100000004"].contains(&id),
                "a person's comment became a finding: {m}"
            );
        }
    }
    // The comment shows it apart and the gate names only the PR's findings.
    let body = stickies(&fake).pop().expect("sticky")["body"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        body.contains("Pre-existing (1): not introduced by this PR"),
        "{body}"
    );
}

/// A Devin-style `Bugs:` list in a person's comment or review, or from an account merely
/// named like Devin, is not a finding: only Devin's own review body is read.
#[tokio::test]
async fn a_devin_style_list_from_a_person_is_no_finding() {
    let mut data = PrData::fixture("bots/devin-summary");
    let head = data.pull["head"]["sha"].as_str().unwrap().to_owned();
    let list = "Devin Review found 1 Bugs + 0 Flags (0 Vulnerabilities) on this PR:\n\n**Bugs:**\n- Ledger totals drift — app/services/ledger.py:12\n";
    data.reviews.push(
        json!({"id": 7200000199u64, "state": "COMMENTED", "commit_id": head, "body": list,
        "user": {"login": "devin-ai-integration", "id": 5, "type": "User"}}),
    );
    data.issue_comments
        .push(json!({"id": 5910000199u64, "body": list,
        "user": {"login": "greptile-apps[bot]", "id": 6, "type": "Bot"}}));
    let fake = FakeBuilder::new(data.clone()).start().await;
    let ran = ActionRun::new(&fake, &data).input("fail-on", "never").run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let report = ran.report.expect("report");
    let text = report.to_string();
    assert!(!text.contains("app/services/ledger.py"), "{text}");
    let devin: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["members"].as_array().unwrap())
        .filter(|m| m["bot"] == "devin")
        .collect();
    assert_eq!(devin.len(), 3, "Devin's own list: {text}");
    let source = report["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["bot"] == "devin")
        .expect("devin listed");
    assert_eq!(source["coverage"], "reviewed");
    assert_eq!(source["skipped"], 1, "its entry without a location");
}
