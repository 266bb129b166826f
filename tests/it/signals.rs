//! Coverage from every completion signal, declined notices, the gate's severity floor and
//! required bots, `render` replaying them, and `wait-for-bots` against the fake GitHub with
//! an injected clock (tests/fixtures/signals/README.md lists what each fixture shows).

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use review_consensus::adapters::BotSelection;
use review_consensus::api::Surface;
use review_consensus::config::Config;
use review_consensus::github::wait::{wait_for_bots, Clock, Waited};
use review_consensus::local;
use review_consensus::model::{Coverage, Gate, Outcome};
use review_consensus::pipeline;
use serde_json::{json, Value};

use crate::support::{client, target, ActionRun, FakeBuilder, FakeGitHub, PrData};

const BIN: &str = env!("CARGO_BIN_EXE_review-consensus");

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/signals")
        .join(name)
}

fn config(inputs: &[(&str, &str)]) -> Config {
    let pairs = inputs
        .iter()
        .map(|(k, v)| (format!("INPUT_{}", k.to_uppercase()), (*v).to_owned()));
    Config::from_inputs(pairs).expect("valid inputs")
}

fn analyze(folder: &str, inputs: &[(&str, &str)]) -> Outcome {
    let snapshot = local::load_snapshot_dir(&fixture(folder)).expect("fixture loads");
    let config = config(inputs);
    pipeline::analyze(
        Some(&snapshot),
        &config.sources,
        Vec::new(),
        &config.analysis_options(),
    )
}

fn coverage(outcome: &Outcome) -> Vec<(&str, Coverage, &str)> {
    outcome
        .sources
        .iter()
        .map(|s| (s.bot.as_str(), s.coverage, s.coverage_signal.as_str()))
        .collect()
}

const BOTS_104: &str =
    "sourcery, coderabbit, codex, cursor-bugbot, generic=baz-reviewer[bot], greptile, qodo";

#[test]
fn every_completion_signal_counts_for_the_head() {
    let outcome = analyze("completion-104", &[("bots", BOTS_104)]);
    use Coverage::*;
    assert_eq!(
        coverage(&outcome),
        [
            ("sourcery", Reviewed, "review on head"),
            ("coderabbit", Reviewed, "status CodeRabbit: success"),
            ("codex", Reviewed, "reaction 👍 on the PR"),
            (
                "cursor-bugbot",
                Reviewed,
                "check run Cursor Bugbot: success on head"
            ),
            (
                "baz-reviewer",
                Reviewed,
                "check run Baz Reviewer: success on head"
            ),
            ("greptile", Absent, "check run Greptile Review: in_progress"),
            ("qodo", Absent, "nothing posted"),
        ]
    );
    assert_eq!(outcome.bots_ran, 5, "the five that reviewed the head");
    // The one finding is single-bot: `fail-on: confirmed` alone lets it pass.
    assert_eq!(outcome.findings.len(), 1);
    assert_eq!(outcome.findings[0].consensus.detected_by, ["sourcery"]);
    assert_eq!(outcome.gate, Gate::Pass);
}

#[test]
fn a_reaction_older_than_the_head_commit_is_stale() {
    let dir = tempfile::tempdir().expect("tempdir");
    let copy = dir.path().join("pr");
    let mut snapshot = local::load_snapshot_dir(&fixture("completion-104")).expect("loads");
    snapshot.signals.head_committed_at = Some("2026-11-02T09:30:00Z".to_owned());
    local::save_snapshot_dir(&snapshot, &copy).expect("saves");
    let back = local::load_snapshot_dir(&copy).expect("reloads");
    assert_eq!(
        back.signals, snapshot.signals,
        "the signal files round-trip"
    );
    let config = config(&[("bots", "codex")]);
    let outcome = pipeline::analyze(
        Some(&back),
        &config.sources,
        Vec::new(),
        &config.analysis_options(),
    );
    assert_eq!(
        coverage(&outcome),
        [(
            "codex",
            Coverage::Stale,
            "reaction 👍 on the PR, older than the head commit"
        )]
    );
}

#[test]
fn every_declined_notice_leaves_the_bot_out_of_the_denominator() {
    let outcome = analyze(
        "declined-105",
        &[(
            "bots",
            "gemini, copilot, cursor-bugbot, coderabbit, codex, sourcery",
        )],
    );
    use Coverage::*;
    assert_eq!(
        coverage(&outcome),
        [
            ("gemini", Declined, "notice: sunset"),
            (
                "copilot",
                Declined,
                "check run copilot-pull-request-reviewer: failure (billing)"
            ),
            ("cursor-bugbot", Declined, "notice: quota"),
            (
                "coderabbit",
                Declined,
                "status CodeRabbit: failure (rate limit)"
            ),
            ("codex", Reviewed, "comment \"no major issues\" on head"),
            ("sourcery", Reviewed, "review on head"),
        ]
    );
    assert_eq!(outcome.bots_ran, 2);
    let gemini = &outcome.sources[0];
    // One hint to drop it, Gemini's own (the generic one is not repeated).
    let hints: Vec<&String> = gemini
        .notes
        .iter()
        .filter(|n| n.contains("sunset"))
        .collect();
    assert!(
        hints.len() == 1 && hints[0].contains("from `bots`"),
        "{:?}",
        gemini.notes
    );
    // The comment lists the declined bots with what showed it.
    let comment = review_consensus::render::render_comment(&outcome, &Default::default());
    assert!(
        comment.contains("gemini (declined: notice: sunset)"),
        "{comment}"
    );
    assert!(comment.contains("coderabbit (declined: status CodeRabbit: failure (rate limit))"));
}

#[test]
fn the_2026_bots_finish_through_their_check_runs_and_reactions() {
    // `bots` unset: the bots are those that left something, here only signals.
    let outcome = analyze("completion-106", &[]);
    use Coverage::*;
    assert_eq!(
        coverage(&outcome),
        [
            (
                "sourcery",
                Reviewed,
                "check run Sourcery review: success on head"
            ),
            (
                "gh-advanced-security",
                Reviewed,
                "check run CodeQL: failure on head"
            ),
            (
                "github-code-quality",
                Reviewed,
                "check run Code Quality: failure on head"
            ),
            (
                "deepsource",
                Reviewed,
                "check run DeepSource: Python: failure on head"
            ),
            (
                "cubic",
                Reviewed,
                "check run cubic · AI code review: success on head"
            ),
            (
                "kodus",
                Reviewed,
                "check run Kody Code Review: neutral on head"
            ),
            (
                "macroscope",
                Reviewed,
                "check run Macroscope - Correctness Check: failure on head"
            ),
            (
                "codeant",
                Reviewed,
                "check run CodeAnt AI Review: success on head"
            ),
            (
                "sentry",
                Reviewed,
                "check run Seer Code Review: neutral on head"
            ),
            ("claude", Reviewed, "status comment on head"),
        ]
    );
    assert_eq!(outcome.bots_ran, 10, "a failing verdict run is a review");

    // Without check runs (no `checks: read`): Kodus's 🎉 still shows it finished, Seer's 👀
    // and CodeAnt's "is reviewing" comment only that they started.
    let mut snapshot = local::load_snapshot_dir(&fixture("completion-106")).expect("loads");
    snapshot.signals.check_runs = Surface::Read(Vec::new());
    let config = config(&[("bots", "kodus, sentry, codeant")]);
    let analyzed = |snapshot: &review_consensus::api::PrSnapshot| {
        pipeline::analyze(
            Some(snapshot),
            &config.sources,
            Vec::new(),
            &config.analysis_options(),
        )
    };
    assert_eq!(
        coverage(&analyzed(&snapshot)),
        [
            ("kodus", Reviewed, "reaction 🎉 on the PR"),
            ("sentry", Absent, "reaction 👀 on the PR"),
            ("codeant", Absent, "status comment: started"),
        ]
    );
    // A 🎉 from before the head commit was for an older one.
    snapshot.signals.head_committed_at = Some("2026-11-04T09:30:00Z".to_owned());
    assert_eq!(
        coverage(&analyzed(&snapshot))[0],
        (
            "kodus",
            Stale,
            "reaction 🎉 on the PR, older than the head commit"
        )
    );
}

/// `declined-107` with `bots` unset: the bots that posted, plus the required ones.
const REQUIRED_107: &str = "sentry, github-code-quality, kodus|sourcery";

#[test]
fn the_2026_bots_decline_or_only_start_through_their_signals() {
    let outcome = analyze("declined-107", &[("required-bots", REQUIRED_107)]);
    use Coverage::*;
    assert_eq!(
        coverage(&outcome),
        [
            ("sourcery", Reviewed, "review on head"),
            (
                "github-code-quality",
                Absent,
                "check run Code Quality: in_progress"
            ),
            (
                "cubic",
                Declined,
                "check run cubic · AI code review: neutral (quota)"
            ),
            ("kodus", Declined, "reaction 😕 on the PR"),
            (
                "macroscope",
                Declined,
                "check run Macroscope - Correctness Check: action_required (billing)"
            ),
            ("codeant", Declined, "check run CodeAnt AI Review: skipped"),
            ("sentry", Absent, "reaction 👀 on the PR"),
            ("claude", Declined, "check run claude-review: failure"),
        ]
    );
    assert_eq!(outcome.bots_ran, 1);
    assert_eq!(
        outcome.not_reviewed,
        ["sentry", "github-code-quality"],
        "kodus|sourcery is satisfied by sourcery; a bot that only started is not a review"
    );
    assert_eq!(outcome.gate, Gate::Fail);
}

#[test]
fn required_bots_are_read_whether_bots_is_set_or_not() {
    // Unset: the required bots join the ones that posted, so a silent one is listed.
    let unset = config(&[("required-bots", "cursor-bugbot, coderabbit|sourcery")]);
    assert_eq!(
        unset.sources,
        BotSelection::posted_plus(["cursor-bugbot", "coderabbit", "sourcery"])
    );
    let outcome = analyze(
        "declined-107",
        &[("required-bots", "cursor-bugbot"), ("fail-on", "never")],
    );
    let bugbot = outcome
        .sources
        .iter()
        .find(|s| s.bot == "cursor-bugbot")
        .expect("a required bot that never posted is listed");
    assert_eq!(
        (bugbot.coverage, bugbot.coverage_signal.as_str()),
        (Coverage::Absent, "nothing posted")
    );
    assert_eq!(outcome.not_reviewed, ["cursor-bugbot"]);
    assert_eq!(outcome.gate, Gate::Fail, "not reviewed fails on its own");
    assert!(
        !outcome.sources.iter().any(|s| s.bot == "gemini"),
        "a bot neither posting nor required stays out"
    );

    // Set: the required bots are added to the list, with their default logins.
    let listed = config(&[
        ("bots", "sourcery"),
        ("required-bots", "claude|sourcery, kodus"),
    ]);
    let BotSelection::Listed(sources) = &listed.sources else {
        panic!("`bots` is set: {:?}", listed.sources);
    };
    let ids: Vec<&str> = sources.iter().map(|s| s.adapter.as_str()).collect();
    assert_eq!(ids, ["sourcery", "claude", "kodus"]);
    let outcome = analyze(
        "declined-107",
        &[
            ("bots", "sourcery"),
            ("required-bots", "claude|sourcery, kodus"),
        ],
    );
    assert_eq!(outcome.not_reviewed, ["kodus"], "declined is not reviewed");
}

#[tokio::test]
async fn an_acknowledged_finding_does_not_fail_the_severity_floor() {
    let data = fixture_data("completion-104");
    let fake = FakeBuilder::new(data.clone())
        .permission("dana", "write", "write")
        .start()
        .await;
    let run = || {
        ActionRun::new(&fake, &data)
            .input("bots", BOTS_104)
            .input("fail-on-severity", "high")
            .run()
    };
    let first = run();
    assert_eq!(first.code, 1, "the lone high finding: {}", first.stderr);
    let report = first.report.expect("report");
    let fingerprint = report["findings"][0]["fingerprint"]
        .as_str()
        .expect("a fingerprint")
        .to_owned();
    fake.state().issue_comments.push(json!({
        "id": 2999,
        "user": {"login": "dana", "id": 501, "type": "User"},
        "body": format!("/consensus ack {fingerprint} the limit is enforced by the ledger service"),
        "html_url": "https://github.com/acme/payments-api/pull/104#issuecomment-2999",
        "created_at": "2026-11-02T10:00:00Z",
    }));
    let second = run();
    assert_eq!(second.code, 0, "{}{}", second.stdout, second.stderr);
    assert_eq!(second.output("acknowledged"), "1");
    assert_eq!(second.output("gate"), "pass");
    let report = second.report.expect("report");
    assert_eq!(report["findings"][0]["state"], "acknowledged");
    assert_eq!(report["fail_on_severity"], "high");
}

#[test]
fn a_required_group_is_satisfied_by_its_second_member_and_declined_is_not_reviewed() {
    let bots = ("bots", "coderabbit, sourcery");
    let passed = analyze(
        "declined-105",
        &[
            bots,
            ("fail-on", "never"),
            ("required-bots", "coderabbit|sourcery"),
        ],
    );
    assert_eq!(passed.not_reviewed, Vec::<String>::new());
    assert_eq!(passed.gate, Gate::Pass);

    // gemini only declined; it is read although `bots` does not name it.
    let failed = analyze(
        "declined-105",
        &[
            bots,
            ("fail-on", "never"),
            (
                "required-bots",
                "coderabbit|sourcery, gemini\ncopilot|cursor-bugbot",
            ),
        ],
    );
    assert!(failed.sources.iter().any(|s| s.bot == "gemini"));
    assert_eq!(failed.not_reviewed, ["gemini", "copilot|cursor-bugbot"]);
    assert_eq!(failed.gate, Gate::Fail);
    let comment = review_consensus::render::render_comment(&failed, &Default::default());
    assert!(
        comment.contains("not reviewed: gemini, copilot\\|cursor-bugbot."),
        "{comment}"
    );
}

#[test]
fn bad_gate_inputs_name_the_input_and_what_it_accepts() {
    for (name, value, accepted) in [
        ("fail-on-severity", "severe", "critical, high, medium, low"),
        ("fail-on-severity", "info", "critical, high, medium, low"),
        ("required-bots", "coderabbit|nonesuch", "adapter ids"),
        ("required-bots", "generic", "adapter ids"),
        ("required-bots", "coderabbit||sourcery", "adapter ids"),
        ("wait-for-bots", "31m", "at most `30m`"),
        ("wait-for-bots", "600", "`90s`"),
        ("wait-for-bots", "1h", "`10m`"),
        ("wait-for-bots", "-5s", "`90s`"),
        ("wait-for-bots", "5µ", "`90s`"),
    ] {
        let pairs = [(format!("INPUT_{}", name.to_uppercase()), value.to_owned())];
        let err = Config::from_inputs(pairs).expect_err(value);
        assert_eq!(err.input, name, "{value}");
        assert!(
            err.message.contains(accepted) && err.message.contains(value),
            "{name}={value}: {}",
            err.message
        );
    }
    let ok = config(&[
        ("wait-for-bots", "90s"),
        ("fail-on-severity", "HIGH"),
        ("bots", "generic=baz-reviewer[bot]"),
        ("required-bots", "baz-reviewer | sourcery"),
    ]);
    assert_eq!(ok.wait_for_bots, Duration::from_secs(90));
    assert_eq!(
        config(&[("wait-for-bots", "10m")]).wait_for_bots,
        Duration::from_secs(600)
    );
    assert_eq!(
        config(&[("wait-for-bots", "0")]).wait_for_bots,
        Duration::ZERO
    );
    assert_eq!(ok.required_ids(), ["baz-reviewer", "sourcery"]);
    let BotSelection::Listed(sources) = &ok.sources else {
        panic!("`bots` is set: {:?}", ok.sources);
    };
    let adapters: Vec<&str> = sources.iter().map(|s| s.adapter.as_str()).collect();
    assert_eq!(
        adapters,
        ["generic", "sourcery"],
        "required bots are configured"
    );
}

fn render(args: &[&str]) -> (i32, String, String, Value) {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = dir.path().join("report.json");
    let out = Command::new(BIN)
        .arg("render")
        .arg("--report")
        .arg(&report)
        .args(args)
        .env_clear()
        .output()
        .expect("runs");
    let report = std::fs::read_to_string(&report)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        report,
    )
}

#[test]
fn render_fails_a_pr_of_single_bot_findings_on_the_severity_floor() {
    let folder = fixture("completion-104");
    let folder = folder.to_str().expect("utf-8");
    let (code, _, stderr, report) = render(&["--bots", BOTS_104, folder]);
    assert_eq!(code, 0, "fail-on: confirmed alone passes: {stderr}");
    assert_eq!(report["gate"], "pass");

    let (code, stdout, stderr, report) =
        render(&["--bots", BOTS_104, "--fail-on-severity", "high", folder]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stderr.contains("1 high finding (fail-on-severity: high)"),
        "{stderr}"
    );
    assert!(
        stdout.contains("**1 high finding** (`fail-on-severity: high`)"),
        "{stdout}"
    );
    assert_eq!(report["gate"], "fail");
    assert_eq!(report["fail_on_severity"], "high");
    let sources = report["sources"].as_array().expect("sources");
    let codex = sources.iter().find(|s| s["bot"] == "codex").expect("codex");
    assert_eq!(codex["coverage"], "reviewed");
    assert_eq!(codex["coverage_signal"], "reaction 👍 on the PR");
}

#[test]
fn render_replays_required_bots() {
    let folder = fixture("declined-105");
    let folder = folder.to_str().expect("utf-8");
    let bots = "coderabbit, sourcery";
    let (code, _, stderr, report) = render(&[
        "--bots",
        bots,
        "--fail-on",
        "never",
        "--required-bots",
        "coderabbit|sourcery",
        folder,
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(report["required_bots"], json!(["coderabbit|sourcery"]));
    assert_eq!(report["not_reviewed"], json!([]));

    let (code, stdout, stderr, report) = render(&[
        "--bots",
        bots,
        "--fail-on",
        "never",
        "--required-bots=gemini",
        folder,
    ]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stderr.contains("not reviewed: gemini"), "{stderr}");
    assert_eq!(report["not_reviewed"], json!(["gemini"]));

    let (code, _, stderr, _) = render(&["--required-bots", "nonesuch", folder]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--required-bots"), "{stderr}");
}

/// A clock whose sleeps move virtual time and run a hook (the bots answering meanwhile).
struct FakeClock<F: Fn(u32)> {
    now: Cell<SystemTime>,
    sleeps: RefCell<Vec<Duration>>,
    on_sleep: F,
}

/// Where every fake clock starts (seconds since 1970).
const START: u64 = 1_800_000_000;

impl<F: Fn(u32)> FakeClock<F> {
    /// At `START`; `on_sleep` gets each sleep's number (1, 2, ...) after it.
    fn new(on_sleep: F) -> Self {
        FakeClock {
            now: Cell::new(SystemTime::UNIX_EPOCH + Duration::from_secs(START)),
            sleeps: RefCell::new(Vec::new()),
            on_sleep,
        }
    }

    /// How far the sleeps moved it.
    fn elapsed(&self) -> Duration {
        let start = SystemTime::UNIX_EPOCH + Duration::from_secs(START);
        self.now.get().duration_since(start).expect("forward")
    }
}

impl<F: Fn(u32)> Clock for FakeClock<F> {
    fn now(&self) -> SystemTime {
        self.now.get()
    }

    fn sleep(&self, duration: Duration) -> impl std::future::Future<Output = ()> {
        self.now.set(self.now.get() + duration);
        self.sleeps.borrow_mut().push(duration);
        (self.on_sleep)(self.sleeps.borrow().len() as u32);
        std::future::ready(())
    }
}

/// `secs` after `START`, as GitHub writes times.
fn at(secs: u64) -> String {
    chrono::DateTime::from_timestamp((START + secs) as i64, 0)
        .expect("in range")
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// `wait_for_bots` on the fake with `clock`, and the lines it logged.
async fn wait_on(
    fake: &FakeGitHub,
    data: &PrData,
    selection: &BotSelection,
    budget: Duration,
    clock: &impl Clock,
) -> (Waited, Vec<String>) {
    let mut log = Vec::new();
    let waited = wait_for_bots(
        &client(fake),
        &target(data),
        selection,
        budget,
        clock,
        |line| log.push(line.to_owned()),
    )
    .await
    .expect("waits");
    (waited, log)
}

/// Bugbot's check run (`waiting_pr`) finished cleanly at `at`.
fn finish_check_run(run: &mut Value, at: &str) {
    run["status"] = json!("completed");
    run["conclusion"] = json!("success");
    run["completed_at"] = json!(at);
}

const HEAD: &str = "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567";

fn waiting_pr() -> PrData {
    let mut data = PrData::empty("acme", "payments-api", 7, HEAD);
    data.head_check_runs = vec![json!({
        "id": 9001, "name": "Cursor Bugbot", "head_sha": HEAD, "status": "in_progress",
        "conclusion": null, "started_at": "2026-11-02T09:01:00Z",
        "app": {"id": 1210556, "slug": "cursor", "name": "Cursor"},
    })];
    data
}

#[tokio::test]
async fn wait_for_bots_polls_until_a_late_review_then_a_quiet_minute() {
    let data = waiting_pr();
    let fake = FakeBuilder::new(data.clone()).start().await;
    let sources = config(&[("bots", "sourcery, cursor-bugbot")]).sources;
    // After the second poll, Sourcery reviews the head and Bugbot's run completes.
    let clock = FakeClock::new(|n: u32| {
        if n == 2 {
            let mut state = fake.state();
            state.reviews.push(bot_review(
                4501,
                "sourcery-ai[bot]",
                58596630,
                "Hey - I've reviewed your changes and they look great!",
                HEAD,
                &at(25),
            ));
            finish_check_run(&mut state.head_check_runs[0], &at(25));
        }
    });
    let real = std::time::Instant::now();
    let (waited, log) = wait_on(&fake, &data, &sources, Duration::from_secs(600), &clock).await;
    assert!(
        real.elapsed() < Duration::from_secs(10),
        "never a real sleep"
    );

    assert!(!waited.timed_out && waited.pending.is_empty(), "{waited:?}");
    let pending = "still pending for 0a1b2c3: sourcery (absent), cursor-bugbot (absent: check \
                   run Cursor Bugbot: in_progress)";
    assert!(
        log[0].starts_with(&format!("poll 1: {pending}; next poll in 10s")),
        "{log:?}"
    );
    assert!(
        log[1].starts_with(&format!("poll 2: {pending}; next poll in 15s")),
        "{log:?}"
    );
    assert!(
        log[2].contains("every bot is done; waiting for a quiet minute"),
        "{log:?}"
    );
    assert!(log
        .last()
        .expect("a last line")
        .starts_with("every configured bot finished"));
    // The review landed at +25 s: the decision comes a quiet minute after it, not before.
    let decided = clock.elapsed();
    assert!(decided >= Duration::from_secs(85), "{decided:?}");
    assert!(decided < Duration::from_secs(150), "{decided:?}");

    // Requests per poll: pull + three comment lists + the check runs Bugbot needs while it
    // has not finished; unchanged answers are 304s.
    let per_poll: Vec<(usize, usize)> = waited
        .costs
        .iter()
        .map(|c| (c.requests, c.not_modified))
        .collect();
    // The figures of the report (`cargo test --test it wait_for_bots -- --nocapture`).
    #[allow(clippy::print_stdout)]
    {
        println!("wait-for-bots requests per poll (sent, of which 304): {per_poll:?}");
    }
    assert_eq!(per_poll[0], (5, 0), "the first round reads everything");
    assert_eq!(per_poll[1], (5, 5), "nothing changed: five 304s");
    assert_eq!(per_poll[2], (5, 3), "reviews and check runs changed");
    for later in &per_poll[3..] {
        assert_eq!(*later, (4, 4), "both settled: no check runs read, all 304");
    }
    assert_eq!(
        fake.state().not_modified,
        per_poll.iter().map(|p| p.1).sum::<usize>()
    );
    fake.assert_clean();
}

#[tokio::test]
async fn wait_for_bots_gives_up_at_the_budget_naming_who_is_pending() {
    let data = waiting_pr();
    let fake = FakeBuilder::new(data.clone()).start().await;
    let sources = config(&[("bots", "cursor-bugbot, gemini")]).sources;
    let clock = FakeClock::new(|_| {});
    let (waited, _) = wait_on(&fake, &data, &sources, Duration::from_secs(90), &clock).await;
    assert!(waited.timed_out);
    let names: Vec<&str> = waited.pending.iter().map(|p| p.bot.as_str()).collect();
    assert_eq!(names, ["cursor-bugbot", "gemini"]);
    assert_eq!(
        clock.elapsed(),
        Duration::from_secs(90),
        "sleeps end exactly at the budget"
    );
    // The backoff (10 s growing by half), the last pause cut at the deadline.
    let sleeps: Vec<u64> = clock
        .sleeps
        .borrow()
        .iter()
        .map(|d| d.as_millis() as u64)
        .collect();
    assert_eq!(sleeps, [10_000, 15_000, 22_500, 33_750, 8_750]);
}

fn bot_review(id: u64, login: &str, user_id: u64, body: &str, commit: &str, at: &str) -> Value {
    json!({
        "id": id, "user": {"login": login, "id": user_id, "type": "Bot"},
        "body": body, "state": "COMMENTED", "commit_id": commit, "submitted_at": at,
    })
}

#[tokio::test]
async fn with_bots_unset_the_wait_follows_the_bots_that_posted_or_started() {
    let mut data = waiting_pr();
    // CodeRabbit reviewed the previous commit; Bugbot's run on the head is in progress.
    data.reviews.push(bot_review(
        4601,
        "coderabbitai[bot]",
        136622811,
        "**Actionable comments posted: 0**",
        "9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b",
        "2026-11-01T12:00:00Z",
    ));
    let fake = FakeBuilder::new(data.clone()).start().await;
    let unset = config(&[]).sources;
    assert_eq!(unset, BotSelection::default());
    // After the second poll CodeRabbit reviews the head and Bugbot's run completes.
    let clock = FakeClock::new(|n: u32| {
        if n == 2 {
            let mut state = fake.state();
            state.reviews.push(bot_review(
                4602,
                "coderabbitai[bot]",
                136622811,
                "**Actionable comments posted: 0**",
                HEAD,
                &at(25),
            ));
            finish_check_run(&mut state.head_check_runs[0], &at(25));
        }
    });
    let (waited, log) = wait_on(&fake, &data, &unset, Duration::from_secs(600), &clock).await;
    assert!(!waited.timed_out && waited.pending.is_empty(), "{waited:?}");
    // Poll 1 knows only CodeRabbit (it posted); its check-run read shows Bugbot started, so
    // poll 2 waits for Bugbot too. Bots that never showed up are never named.
    assert!(
        log[0].starts_with(
            "poll 1: still pending for 0a1b2c3: coderabbit (stale: review on an older commit);"
        ),
        "{log:?}"
    );
    assert!(
        log[1].starts_with(
            "poll 2: still pending for 0a1b2c3: coderabbit (stale: review on an older commit), \
             cursor-bugbot (absent: check run Cursor Bugbot: in_progress);"
        ),
        "{log:?}"
    );
    assert!(
        log.last()
            .expect("a last line")
            .starts_with("every configured bot finished or declined for 0a1b2c3"),
        "{log:?}"
    );
    assert!(
        log.iter()
            .all(|l| !l.contains("sourcery") && !l.contains("gemini")),
        "{log:?}"
    );
    let decided = clock.elapsed();
    assert!(
        decided >= Duration::from_secs(85),
        "a quiet minute after +25 s: {decided:?}"
    );
    fake.assert_clean();
}

#[tokio::test]
async fn with_bots_unset_the_wait_gives_bots_a_quiet_minute_to_show_up() {
    let wait = |data: PrData, arrive: bool| async move {
        let fake = FakeBuilder::new(data.clone()).start().await;
        // Sourcery shows up 10 s in with a review of an older commit, then reviews the head
        // after the third poll.
        let clock = FakeClock::new(|n: u32| {
            let older = "9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b";
            let (commit, secs) = match n {
                1 => (older, 5),
                3 => (HEAD, 40),
                _ => return,
            };
            if arrive {
                fake.state().reviews.push(bot_review(
                    4700 + u64::from(n),
                    "sourcery-ai[bot]",
                    58596630,
                    "Hey - I've reviewed your changes and they look great!",
                    commit,
                    &at(secs),
                ));
            }
        });
        let selection = BotSelection::default();
        let (waited, log) =
            wait_on(&fake, &data, &selection, Duration::from_secs(600), &clock).await;
        (waited, log, clock.elapsed())
    };
    let empty = PrData::empty("acme", "payments-api", 7, HEAD);

    // Nobody posts: a quiet minute from the start, then decide (not a timeout).
    let (waited, log, decided) = wait(empty.clone(), false).await;
    assert!(!waited.timed_out, "{waited:?}");
    assert_eq!(decided, Duration::from_secs(60));
    assert!(
        log[0].starts_with(
            "poll 1: no bot has posted yet; waiting a quiet minute for one to start; next poll in 10s"
        ),
        "{log:?}"
    );
    assert!(
        log.last()
            .expect("a last line")
            .starts_with("no bot posted for 0a1b2c3"),
        "{log:?}"
    );

    // Sourcery shows up within that minute: it is waited for until it reviews the head.
    let (waited, log, decided) = wait(empty, true).await;
    assert!(!waited.timed_out && waited.pending.is_empty(), "{waited:?}");
    assert!(
        log[1].starts_with(
            "poll 2: still pending for 0a1b2c3: sourcery (stale: review on an older commit)"
        ),
        "{log:?}"
    );
    assert!(
        decided >= Duration::from_secs(100),
        "a quiet minute after its review at +40 s: {decided:?}"
    );
}

fn fixture_data(name: &str) -> PrData {
    PrData::from_dir(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn requests(fake: &FakeGitHub, part: &str) -> usize {
    fake.state()
        .requests
        .iter()
        .filter(|r| r.contains(part))
        .count()
}

#[tokio::test]
async fn the_action_reads_a_signal_surface_only_for_a_bot_that_needs_it() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone()).start().await;
    // Both reviewed the head in their comments: nothing more to read.
    let ran = ActionRun::new(&fake, &data)
        .input("bots", "coderabbit, sourcery")
        .input("comment", "false")
        .run();
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    for surface in ["/reactions", "/check-runs", "/statuses", "/101/commits"] {
        assert_eq!(requests(&fake, surface), 0, "{surface}");
    }
    // Codex posted nothing: its 👍 is looked for (with the head commit's date), nothing else.
    let ran = ActionRun::new(&fake, &data)
        .input("bots", "coderabbit, sourcery, codex")
        .input("comment", "false")
        .run();
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert_eq!(requests(&fake, "/reactions"), 1);
    assert_eq!(requests(&fake, "/pulls/101/commits"), 1);
    assert_eq!(
        requests(&fake, "/check-runs") + requests(&fake, "/statuses"),
        0
    );
    let report = ran.report.expect("report");
    let codex = report["sources"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["bot"] == "codex"))
        .expect("codex listed");
    assert_eq!(codex["coverage"], "absent");
    fake.assert_clean();
}

#[tokio::test]
async fn the_action_waits_then_gates_on_required_bots_and_the_severity_floor() {
    let data = fixture_data("completion-104");
    let fake = FakeBuilder::new(data.clone()).start().await;
    // Every configured bot is done and its last activity is long past: one poll decides.
    let ran = ActionRun::new(&fake, &data)
        .input("bots", "sourcery, codex, cursor-bugbot")
        .input("wait-for-bots", "90s")
        .input("required-bots", "coderabbit|cursor-bugbot")
        .input("fail-on-severity", "high")
        .input("comment", "false")
        .run();
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.contains("::group::Wait up to 90s"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout
            .contains("every configured bot finished or declined for 4c0ffee (poll 1"),
        "{}",
        ran.stdout
    );
    assert!(ran.elapsed < Duration::from_secs(20), "{:?}", ran.elapsed);
    // coderabbit is read because it is required; cursor-bugbot satisfies the group.
    assert_eq!(ran.output("not-reviewed"), "");
    let report = ran.report.expect("report");
    let bots: Vec<&str> = report["sources"]
        .as_array()
        .expect("sources")
        .iter()
        .filter_map(|s| s["bot"].as_str())
        .collect();
    assert_eq!(bots, ["sourcery", "codex", "cursor-bugbot", "coderabbit"]);
    assert!(
        ran.summary
            .contains("**1 high finding** (`fail-on-severity: high`)"),
        "{}",
        ran.summary
    );

    // A required bot that posted nothing fails the gate on its own.
    let ran = ActionRun::new(&fake, &data)
        .input("bots", "sourcery")
        .input("required-bots", "sourcery, gemini")
        .input("comment", "false")
        .run();
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert_eq!(ran.output("not-reviewed"), "gemini");
    assert_eq!(ran.output("gate"), "fail");
    let report = ran.report.expect("report");
    assert_eq!(report["not_reviewed"], json!(["gemini"]));
    assert_eq!(report["required_bots"], json!(["sourcery", "gemini"]));
    assert!(
        ran.summary.contains("not reviewed: gemini."),
        "{}",
        ran.summary
    );
    fake.assert_clean();
}

/// The action on the fake, then `run --save` and `render` on the saved folder with the same
/// inputs as flags: the report's decision fields must be equal.
async fn replay(folder: &str, inputs: &[(&str, &str)], saved_signals: &[&str]) -> Value {
    let data = fixture_data(folder);
    let fake = FakeBuilder::new(data.clone()).start().await;
    let mut action = ActionRun::new(&fake, &data).input("comment", "false");
    for (k, v) in inputs {
        action = action.input(k, v);
    }
    let ran = action.run();
    assert_eq!(ran.code, 1, "{folder}: {}", ran.stderr);
    let online = ran.report.expect("report");

    let saved = tempfile::tempdir().expect("tempdir");
    let dir = saved.path().join("pr");
    let out = Command::new(BIN)
        .args(["run", "--repo", "acme/payments-api", "--pr"])
        .arg(data.number.to_string())
        .args(["--dry-run", "--save"])
        .arg(&dir)
        .env_clear()
        .env("GITHUB_TOKEN", crate::support::TOKEN)
        .env("GITHUB_API_URL", &fake.api_url)
        .env("GITHUB_GRAPHQL_URL", &fake.graphql_url)
        .env("REVIEW_CONSENSUS_RETRY_MAX_WAIT_MS", "30")
        .envs(
            inputs
                .iter()
                .map(|(k, v)| (format!("INPUT_{}", k.to_uppercase()), *v)),
        )
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{folder}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for file in saved_signals {
        assert!(dir.join(file).exists(), "{folder}: {file} saved");
    }
    let mut args: Vec<String> = Vec::new();
    for (k, v) in inputs {
        args.push(format!("--{k}"));
        args.push((*v).to_owned());
    }
    args.push(dir.to_str().expect("utf-8").to_owned());
    let (code, _, stderr, offline) = render(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 1, "{folder}: {stderr}");
    for field in [
        "sources",
        "bots_ran",
        "gate",
        "required_bots",
        "not_reviewed",
        "fail_on_severity",
        "counts",
    ] {
        assert_eq!(offline[field], online[field], "{folder}: {field}");
    }
    offline
}

#[tokio::test]
async fn a_saved_pr_replays_the_actions_coverage_and_decision() {
    // Listed bots, the severity floor and a required group none of whose members reviewed.
    let report = replay(
        "completion-104",
        &[
            ("bots", BOTS_104),
            ("fail-on-severity", "high"),
            ("required-bots", "sourcery, qodo|greptile"),
        ],
        &[
            "check_runs.json",
            "statuses.json",
            "reactions.json",
            "head_commit.json",
        ],
    )
    .await;
    assert_eq!(report["not_reviewed"], json!(["qodo|greptile"]));

    // `bots` unset: the bots that posted, plus the required ones; declined bots, one that
    // only started, and a required one that never finished.
    let report = replay(
        "declined-107",
        &[("required-bots", REQUIRED_107)],
        &["check_runs.json", "reactions.json", "head_commit.json"],
    )
    .await;
    assert_eq!(
        report["not_reviewed"],
        json!(["sentry", "github-code-quality"])
    );
    let declined: Vec<&str> = report["sources"]
        .as_array()
        .expect("sources")
        .iter()
        .filter(|s| s["coverage"] == "declined")
        .filter_map(|s| s["bot"].as_str())
        .collect();
    assert_eq!(
        declined,
        ["cubic", "kodus", "macroscope", "codeant", "claude"]
    );
}
