//! The real binary as the action (`GITHUB_ACTIONS=true`, no subcommand) against a fake
//! GitHub on 127.0.0.1: fetch, publish, outputs and the gate's exit code.

use std::collections::BTreeSet;
use std::time::Duration;

use review_consensus::github::routes;
use serde_json::{json, Value};
use wiremock::ResponseTemplate;

use crate::support::{
    api_error, read_only, secondary_rate_limit, ActionRun, FakeBuilder, FakeGitHub, PrData, TOKEN,
};

const MARKER: &str = "<!-- review-bot-ack -->";

/// PR 101's review comments, reviews, issue comments (the sticky's) and the check runs.
const REVIEW_COMMENTS: &str = "/repos/acme/payments-api/pulls/101/comments";
const REVIEWS: &str = "/repos/acme/payments-api/pulls/101/reviews";
const COMMENTS: &str = "/repos/acme/payments-api/issues/101/comments";
const CHECK_RUNS: &str = "/repos/acme/payments-api/check-runs";

/// The fake GitHub serving `data`, answering the first `times` `method` requests to `path`
/// with `answer`.
async fn failing(
    data: &PrData,
    method: &str,
    path: &str,
    answer: ResponseTemplate,
    times: u64,
) -> FakeGitHub {
    FakeBuilder::new(data.clone())
        .fault(method, path, answer, times)
        .start()
        .await
}

fn stickies(fake: &FakeGitHub) -> Vec<Value> {
    fake.comments()
        .into_iter()
        .filter(|c| c["body"].as_str().unwrap_or("").starts_with(MARKER))
        .collect()
}

#[tokio::test]
async fn first_run_creates_the_comment_and_the_second_edits_it() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone()).start().await;
    let action = ActionRun::new(&fake, &data);

    let first = action.run();
    assert_eq!(
        first.code, 1,
        "four confirmed findings fail the gate: {}",
        first.stderr
    );
    assert_eq!(first.output("gate"), "fail");
    assert_eq!(first.output("confirmed"), "4");
    let created = stickies(&fake);
    assert_eq!(created.len(), 1);
    let id = created[0]["id"].as_u64().unwrap();
    assert_eq!(first.output("comment-id"), id.to_string());
    assert!(first
        .output("comment-url")
        .ends_with(&format!("issuecomment-{id}")));
    assert!(first.summary.starts_with(MARKER) || first.summary.contains(MARKER));
    assert!(first.stdout.contains("::group::"));
    assert!(
        first.stdout.contains("::error file=app/db/queries.py"),
        "{}",
        first.stdout
    );
    let report = first.report.as_ref().expect("report written");
    assert_eq!(report["version"], 1);
    assert_eq!(
        report["head_sha"],
        "8c1f0d3b6a2e4f57c9d1a0b3e6f7c8d9a1b2c3d4"
    );
    assert!(first.output("report").ends_with("review-consensus.json"));

    let second = action.run();
    assert_eq!(second.code, 1);
    assert_eq!(second.output("comment-id"), id.to_string());
    assert_eq!(stickies(&fake).len(), 1);
    assert_eq!(
        fake.count("POST /repos/acme/payments-api/issues/101/comments"),
        1
    );
    // Same findings, same body: the second run writes nothing.
    assert_eq!(fake.count("PATCH"), 0);
    fake.assert_clean();
}

#[tokio::test]
async fn a_changed_outcome_edits_the_comment_in_place() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone()).start().await;
    let action = ActionRun::new(&fake, &data);
    let first = action.run();
    let id = first.output("comment-id").to_owned();
    let second = ActionRun::new(&fake, &data).input("fail-on", "never").run();
    assert_eq!(second.code, 0);
    assert_eq!(second.output("comment-id"), id);
    assert_eq!(
        fake.count(&format!(
            "PATCH /repos/acme/payments-api/issues/comments/{id}"
        )),
        1
    );
    assert_eq!(stickies(&fake).len(), 1);
}

#[tokio::test]
async fn two_stale_stickies_converge_and_a_human_quote_is_untouched() {
    let mut data = PrData::fixture("pr-101-three-bots");
    let bot = json!({"login": "github-actions[bot]", "id": 41898282, "type": "Bot"});
    let human = json!({"login": "dana-ortiz", "id": 5, "type": "User"});
    for (id, user) in [(9002, &bot), (9001, &bot), (9000, &human)] {
        data.issue_comments.push(json!({
            "id": id, "user": user, "body": format!("{MARKER}\nold {id}"),
            "html_url": format!("https://github.com/acme/payments-api/pull/101#issuecomment-{id}"),
        }));
    }
    let fake = FakeBuilder::new(data.clone()).start().await;
    let ran = ActionRun::new(&fake, &data).run();
    assert_eq!(ran.output("comment-id"), "9001");
    let left: Vec<u64> = stickies(&fake)
        .iter()
        .map(|c| c["id"].as_u64().unwrap())
        .collect();
    assert_eq!(left, vec![9001, 9000]);
    let human_body = fake
        .comments()
        .into_iter()
        .find(|c| c["id"] == 9000)
        .unwrap();
    assert_eq!(human_body["body"], format!("{MARKER}\nold 9000"));
    assert_eq!(
        fake.count("DELETE /repos/acme/payments-api/issues/comments/9002"),
        1
    );
    assert_eq!(
        fake.count("POST /repos/acme/payments-api/issues/101/comments"),
        0
    );
    fake.assert_clean();
}

#[tokio::test]
async fn review_comments_are_read_over_three_pages() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone()).page_size(6).start().await;
    let ran = ActionRun::new(&fake, &data).run();
    assert_eq!(ran.output("confirmed"), "4", "{}", ran.stderr);
    assert_eq!(
        fake.count("GET /repos/acme/payments-api/pulls/101/comments"),
        3
    );
    fake.assert_clean();
}

#[tokio::test]
async fn a_502_then_success_is_retried() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = failing(&data, "GET", REVIEW_COMMENTS, ResponseTemplate::new(502), 1).await;
    let ran = ActionRun::new(&fake, &data).run();
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert_eq!(ran.output("confirmed"), "4");
    assert_eq!(
        fake.count("GET /repos/acme/payments-api/pulls/101/comments"),
        2
    );
}

#[tokio::test]
async fn a_list_that_keeps_failing_is_a_clear_error() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = failing(&data, "GET", REVIEWS, ResponseTemplate::new(500), 20).await;
    let ran = ActionRun::new(&fake, &data).run();
    assert!(
        ran.code != 0 && ran.code != 1 && ran.code != 2,
        "code {}",
        ran.code
    );
    assert!(ran.stdout.contains("::error::"), "{}", ran.stdout);
    assert!(ran
        .stdout
        .contains("GET /repos/acme/payments-api/pulls/101/reviews"));
    assert!(stickies(&fake).is_empty());
}

#[tokio::test]
async fn a_secondary_rate_limit_honours_retry_after() {
    let data = PrData::fixture("pr-101-three-bots");
    let limited = secondary_rate_limit().insert_header("retry-after", "1");
    let fake = failing(&data, "GET", REVIEWS, limited, 1).await;
    let ran = ActionRun::new(&fake, &data)
        .var("REVIEW_CONSENSUS_RETRY_MAX_WAIT_MS", "3000")
        .run();
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(
        ran.elapsed >= Duration::from_secs(1),
        "waited {:?}",
        ran.elapsed
    );
    assert_eq!(
        fake.count("GET /repos/acme/payments-api/pulls/101/reviews"),
        2
    );
}

#[tokio::test]
async fn a_403_on_the_comment_falls_back_to_the_job_summary() {
    let data = PrData::fixture("pr-101-three-bots");
    let forbidden = read_only();
    let fake = failing(&data, "POST", COMMENTS, forbidden, 5).await;
    let ran = ActionRun::new(&fake, &data).run();
    assert_eq!(ran.code, 1, "the gate still applies: {}", ran.stderr);
    assert!(ran.stdout.contains("::warning::"), "{}", ran.stdout);
    assert!(ran.summary.contains(MARKER) && ran.summary.contains("app/db/queries.py"));
    assert_eq!(ran.output("comment-id"), "");
    assert_eq!(ran.output("gate"), "fail");
    assert_eq!(
        fake.count("POST /repos/acme/payments-api/issues/101/comments"),
        1
    );
}

#[tokio::test]
async fn a_fork_pr_does_not_try_to_write() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone()).start().await;
    let mut pull = data.pull.clone();
    pull["head"]["repo"] =
        json!({"full_name": "mallory/payments-api", "owner": {"login": "mallory", "id": 666}});
    let ran = ActionRun::new(&fake, &data)
        .event("pull_request", json!({"number": 101, "pull_request": pull}))
        .input("check-name", "review-consensus")
        .run();
    assert_eq!(ran.code, 1);
    assert!(ran.stdout.contains("::warning::"));
    assert!(ran.summary.contains(MARKER));
    assert_eq!(fake.count("POST /repos"), 0);
    assert_eq!(fake.count("PATCH"), 0);
}

#[tokio::test]
async fn fail_on_levels_and_never() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone()).start().await;
    for (level, code) in [
        ("confirmed", 1),
        ("needs-verification", 1),
        ("unverified", 1),
        ("never", 0),
    ] {
        let ran = ActionRun::new(&fake, &data)
            .input("fail-on", level)
            .input("comment", "false")
            .run();
        assert_eq!(ran.code, code, "fail-on {level}: {}", ran.stderr);
        assert_eq!(ran.output("gate"), if code == 1 { "fail" } else { "pass" });
    }
    // With `comment: false` nothing is written.
    assert_eq!(fake.count("POST /repos"), 0);
    let bad = ActionRun::new(&fake, &data).input("fail-on", "maybe").run();
    assert_eq!(bad.code, 2);
    assert!(bad.stdout.contains("fail-on") || bad.stderr.contains("fail-on"));
}

#[tokio::test]
async fn fail_on_needs_verification_passes_a_pr_with_only_lower_findings() {
    // PR 102's bots barely overlap: nothing confirmed, so `confirmed` passes.
    let data = PrData::fixture("pr-102-gemini-copilot");
    let fake = FakeBuilder::new(data.clone()).start().await;
    let ran = ActionRun::new(&fake, &data).input("comment", "false").run();
    let confirmed: usize = ran.output("confirmed").parse().unwrap();
    assert_eq!(ran.code, i32::from(confirmed > 0), "{}", ran.stderr);
    let never = ActionRun::new(&fake, &data)
        .input("comment", "false")
        .input("fail-on", "never")
        .run();
    assert_eq!(never.code, 0);
}

#[tokio::test]
async fn issue_comment_events_fetch_the_head_sha_for_the_check_run() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone()).start().await;
    let event = json!({
        "action": "created",
        "issue": {"number": 101, "pull_request": {"url": "https://api.github.com/repos/acme/payments-api/pulls/101"}},
        "comment": {"id": 1, "body": "@coderabbitai review"},
    });
    let ran = ActionRun::new(&fake, &data)
        .event("issue_comment", event)
        .input("check-name", "review-consensus")
        .run();
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let state = fake.state();
    assert_eq!(state.check_runs.len(), 1);
    // The PR head, not GITHUB_SHA (the default branch on issue_comment).
    assert_eq!(
        state.check_runs[0]["head_sha"],
        "8c1f0d3b6a2e4f57c9d1a0b3e6f7c8d9a1b2c3d4"
    );
    assert_eq!(state.check_runs[0]["conclusion"], "failure");
    assert_eq!(state.check_runs[0]["name"], "review-consensus");
}

#[tokio::test]
async fn workflow_run_events_use_the_pull_request_of_this_repository() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone()).start().await;
    let head = "8c1f0d3b6a2e4f57c9d1a0b3e6f7c8d9a1b2c3d4";
    let event = json!({"repository": {"id": 1, "full_name": "acme/payments-api"},
        "workflow_run": {"event": "pull_request", "head_sha": head, "pull_requests": [
            {"number": 5, "head": {"sha": head}, "base": {"repo": {"id": 2, "name": "payments-api"}}},
            {"number": 101, "head": {"sha": head}, "base": {"repo": {"id": 1, "name": "payments-api"}}}]}});
    let ran = ActionRun::new(&fake, &data)
        .event("workflow_run", event)
        .run();
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert_eq!(ran.output("confirmed"), "4");
    assert_eq!(fake.count("GET /repos/acme/payments-api/pulls/5"), 0);
    fake.assert_clean();
}

#[tokio::test]
async fn workflow_run_after_a_fork_pr_finds_the_pr_by_its_head_and_writes_the_comment() {
    let mut data = PrData::fixture("pr-101-three-bots");
    data.pull["head"]["repo"] =
        json!({"full_name": "mallory/payments-api", "owner": {"login": "mallory"}});
    data.pull["head"]["ref"] = json!("fix-refunds");
    let head = data.pull["head"]["sha"].as_str().unwrap().to_owned();
    let fake = FakeBuilder::new(data.clone()).start().await;
    // GitHub leaves `pull_requests` empty for a fork's PR.
    let event = |sha: &str| {
        json!({"repository": {"id": 1, "full_name": "acme/payments-api"},
            "workflow_run": {"event": "pull_request", "head_sha": sha, "head_branch": "fix-refunds",
                "head_repository": {"full_name": "mallory/payments-api", "owner": {"login": "mallory"}},
                "pull_requests": []}})
    };
    let ran = ActionRun::new(&fake, &data)
        .event("workflow_run", event(&head))
        .run();
    assert_eq!(ran.code, 1, "{} {}", ran.stdout, ran.stderr);
    assert_eq!(ran.output("confirmed"), "4");
    // One listing, narrowed to the fork's branch; then a write token: the comment is kept.
    let lookups: Vec<String> = fake
        .state()
        .requests
        .iter()
        .filter(|r| r.starts_with("GET /repos/acme/payments-api/pulls?"))
        .cloned()
        .collect();
    assert_eq!(lookups.len(), 1, "{lookups:?}");
    assert!(lookups[0].contains("head=mallory:fix-refunds") && lookups[0].contains("state=open"));
    assert_eq!(stickies(&fake).len(), 1);
    fake.assert_clean();

    // No open PR has that head (pushed since, or closed): nothing to gate.
    let gone = ActionRun::new(&fake, &data)
        .event("workflow_run", event(&"0".repeat(40)))
        .run();
    assert_eq!(gone.code, 0, "{}", gone.stdout);
    assert!(gone.stdout.contains("::notice::") && gone.stdout.contains("no open pull request"));
}

#[tokio::test]
async fn a_resolved_review_thread_event_reruns_and_drops_the_resolved_finding() {
    let data = PrData::fixture("pr-103-edge-cases");
    let fake = FakeBuilder::new(data.clone()).start().await;
    let event =
        json!({"action": "resolved", "pull_request": data.pull, "thread": {"node_id": "PRRT_x"}});
    let ran = ActionRun::new(&fake, &data)
        .event("pull_request_review_thread", event)
        .run();
    assert!(ran.code == 0 || ran.code == 1, "{}", ran.stderr);
    // 2561299313 (E6b) sits in a resolved thread: its state was read (by its 64-bit id), so
    // it is not counted; with include-resolved it is.
    let report = ran.report.expect("report").to_string();
    assert!(
        !report.contains("2561299313"),
        "a resolved thread's comment counted"
    );
    let included = ActionRun::new(&fake, &data)
        .event(
            "pull_request_review_thread",
            json!({"action": "unresolved", "pull_request": data.pull}),
        )
        .input("include-resolved", "true")
        .input("comment", "false")
        .run();
    assert!(included
        .report
        .expect("report")
        .to_string()
        .contains("2561299313"));
    assert_eq!(stickies(&fake).len(), 1);
    fake.assert_clean();
}

#[tokio::test]
async fn an_event_without_a_pr_is_a_notice_and_exit_0() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone()).start().await;
    let ran = ActionRun::new(&fake, &data)
        .event("push", json!({"ref": "refs/heads/main"}))
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(fake.state().requests.is_empty());
}

#[tokio::test]
async fn ghes_serves_rest_under_api_v3_and_graphql_at_api_graphql() {
    let data = PrData::fixture("pr-103-edge-cases");
    let fake = FakeBuilder::new(data.clone()).ghes().start().await;
    let ran = ActionRun::new(&fake, &data).run();
    assert!(
        ran.code == 0 || ran.code == 1,
        "{} {}",
        ran.stdout,
        ran.stderr
    );
    fake.assert_clean();
    let state = fake.state();
    assert!(state
        .requests
        .iter()
        .all(|r| r.contains(" /api/v3/") || r.ends_with(" /api/graphql")));
    assert!(
        state
            .requests
            .iter()
            .filter(|r| r.ends_with(" /api/graphql"))
            .count()
            >= 2
    );
    drop(state);
    assert_eq!(stickies(&fake).len(), 1);
}

#[tokio::test]
async fn many_findings_with_a_check_name_send_annotations_fifty_at_a_time() {
    let data = many_findings_pr(120);
    let fake = FakeBuilder::new(data.clone()).start().await;
    let ran = ActionRun::new(&fake, &data)
        .input("check-name", "review-consensus")
        .input("fail-on", "never")
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let surfaced: usize = ["confirmed", "needs-verification", "unverified"]
        .iter()
        .map(|k| ran.output(k).parse::<usize>().unwrap())
        .sum();
    assert_eq!(surfaced, 120, "{:?}", ran.outputs);
    let state = fake.state();
    assert_eq!(
        state.check_writes,
        vec![
            ("POST".to_owned(), 50),
            ("PATCH".to_owned(), 50),
            ("PATCH".to_owned(), 20)
        ]
    );
    assert_eq!(state.check_runs[0]["conclusion"], "success");
}

#[tokio::test]
async fn a_missing_checks_permission_is_a_warning() {
    let data = PrData::fixture("pr-101-three-bots");
    let forbidden = read_only();
    let fake = failing(&data, "POST", CHECK_RUNS, forbidden, 1).await;
    let ran = ActionRun::new(&fake, &data).input("check-name", "rc").run();
    assert_eq!(ran.code, 1);
    assert!(ran.stdout.contains("::warning::") && ran.stdout.contains("checks: write"));
    assert_eq!(stickies(&fake).len(), 1, "the comment was still written");
}

#[tokio::test]
async fn a_failed_check_run_still_writes_the_outputs_of_the_comment_written() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = failing(&data, "POST", CHECK_RUNS, api_error(500, "Server Error"), 1).await;
    let ran = ActionRun::new(&fake, &data).input("check-name", "rc").run();
    assert_eq!(ran.code, 3, "the check-run error still fails the step");
    assert!(ran.stdout.contains("::error::") && ran.stdout.contains("check run"));
    let created = stickies(&fake);
    assert_eq!(created.len(), 1);
    let id = created[0]["id"].as_u64().unwrap();
    assert_eq!(
        ran.output("comment-id"),
        id.to_string(),
        "{:?}",
        ran.outputs
    );
    assert!(ran
        .output("comment-url")
        .ends_with(&format!("issuecomment-{id}")));
    assert_eq!(ran.output("gate"), "fail");
    assert!(ran.summary.contains(MARKER));
    assert!(ran.report.is_some(), "report written");
}

#[tokio::test]
async fn a_secondary_rate_limit_on_the_comment_write_waits_relists_and_writes() {
    let data = PrData::fixture("pr-101-three-bots");
    let limited = secondary_rate_limit().insert_header("retry-after", "1");
    let fake = failing(&data, "POST", COMMENTS, limited, 1).await;
    let ran = ActionRun::new(&fake, &data)
        .var("REVIEW_CONSENSUS_RETRY_MAX_WAIT_MS", "3000")
        .run();
    assert_eq!(ran.code, 1, "the gate's own code: {}", ran.stdout);
    assert!(
        ran.elapsed >= Duration::from_secs(1),
        "retry-after honoured"
    );
    assert_eq!(stickies(&fake).len(), 1, "written once the limit let it");
    assert!(!ran.output("comment-id").is_empty());
    // Listed again before the second try: the comment may have been written meanwhile.
    let between = fake.between_the_two("POST /repos/acme/payments-api/issues/101/comments");
    assert!(between
        .iter()
        .any(|r| r.starts_with("GET /repos/acme/payments-api/issues/101/comments")));
    fake.assert_clean();
}

#[tokio::test]
async fn a_rate_limit_that_never_lifts_warns_and_keeps_the_gate() {
    let data = PrData::fixture("pr-101-three-bots");
    let limited = secondary_rate_limit();
    let fake = failing(&data, "POST", COMMENTS, limited.clone(), 100).await;
    let ran = ActionRun::new(&fake, &data).run();
    assert_eq!(ran.code, 1, "never exit 3: {}", ran.stdout);
    assert!(ran.stdout.contains("::warning::") && ran.stdout.contains("secondary rate limit"));
    assert!(!ran.stdout.contains("::error::"), "{}", ran.stdout);
    assert!(
        !ran.stdout.contains("fork PR"),
        "not a read-only token: {}",
        ran.stdout
    );
    assert!(ran.summary.contains(MARKER) && ran.summary.contains("rate limit"));
    assert_eq!(ran.output("gate"), "fail");
    assert_eq!(ran.output("comment-id"), "");
    assert_eq!(
        fake.count("POST /repos/acme/payments-api/issues/101/comments"),
        4,
        "bounded: the retry policy's attempts"
    );

    // On the check run the same: not "needs `checks: write`".
    let fake = failing(&data, "POST", CHECK_RUNS, limited, 100).await;
    let ran = ActionRun::new(&fake, &data).input("check-name", "rc").run();
    assert_eq!(ran.code, 1, "{}", ran.stdout);
    assert!(ran.stdout.contains("secondary rate limit"));
    assert!(!ran.stdout.contains("checks: write"), "{}", ran.stdout);
    assert!(!ran.output("comment-id").is_empty());
}

#[tokio::test]
async fn every_token_that_cannot_write_degrades_to_a_warning() {
    let data = PrData::fixture("pr-101-three-bots");
    for (path, message) in [
        (
            "/repos/acme/payments-api/issues/101/comments",
            "Resource not accessible by personal access token",
        ),
        (
            "/repos/acme/payments-api/check-runs",
            "You must authenticate via a GitHub App.",
        ),
        (
            "/repos/acme/payments-api/check-runs",
            "Resource not accessible by integration",
        ),
    ] {
        let fake = failing(&data, "POST", path, api_error(403, message), 5).await;
        let ran = ActionRun::new(&fake, &data).input("check-name", "rc").run();
        assert_eq!(ran.code, 1, "{message}: {}", ran.stdout);
        assert!(
            ran.stdout.contains("::warning::"),
            "{message}: {}",
            ran.stdout
        );
        assert!(
            ran.stdout.contains(message.trim_end_matches('.')),
            "{}",
            ran.stdout
        );
        assert!(
            !ran.stdout.contains("::error::"),
            "{message}: {}",
            ran.stdout
        );
        assert!(ran.summary.contains(MARKER) && ran.summary.contains("⚠️"));
        assert_eq!(ran.output("gate"), "fail");
    }
}

#[tokio::test]
async fn a_404_on_the_comment_write_is_a_read_only_token() {
    // A token that can read the PR but not write to it (a fine-grained PAT) gets a 404.
    let data = PrData::fixture("pr-101-three-bots");
    let fake = failing(&data, "POST", COMMENTS, api_error(404, "Not Found"), 1).await;
    let ran = ActionRun::new(&fake, &data).run();
    assert_eq!(ran.code, 1, "the gate applies: {}", ran.stdout);
    assert!(ran.stdout.contains("::warning::") && ran.stdout.contains("fork PR"));
    assert_eq!(ran.output("comment-id"), "");
}

#[tokio::test]
async fn writes_are_spaced_by_the_env_knob() {
    let data = many_findings_pr(120);
    let fake = FakeBuilder::new(data.clone()).start().await;
    let ran = ActionRun::new(&fake, &data)
        .input("check-name", "review-consensus")
        .input("fail-on", "never")
        .var("REVIEW_CONSENSUS_WRITE_SPACING_MS", "200")
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    // Comment POST, check-run POST and two PATCHes: three pauses.
    assert_eq!(fake.count("POST /repos") + fake.count("PATCH"), 4);
    assert!(
        ran.elapsed >= Duration::from_millis(600),
        "took {:?}",
        ran.elapsed
    );
}

#[tokio::test]
async fn the_token_never_appears_in_any_output() {
    let data = PrData::fixture("pr-101-three-bots");
    let forbidden = read_only();
    let fake = failing(&data, "POST", CHECK_RUNS, forbidden, 1).await;
    let ran = ActionRun::new(&fake, &data)
        .var("RUNNER_DEBUG", "1")
        .input("check-name", "rc")
        .run();
    for (what, text) in [
        ("stdout", &ran.stdout),
        ("stderr", &ran.stderr),
        ("summary", &ran.summary),
        (
            "report",
            &ran.report
                .as_ref()
                .map(Value::to_string)
                .unwrap_or_default(),
        ),
        ("outputs", &format!("{:?}", ran.outputs)),
    ] {
        assert!(!text.contains(TOKEN), "token in {what}");
        assert!(!text.contains(&TOKEN[4..]), "token in {what}");
    }
    // It was sent, though, as a bearer token.
    let requests = fake.server.received_requests().await.unwrap_or_default();
    assert!(!requests.is_empty());
    assert!(requests.iter().all(
        |r| r.headers.get("authorization").and_then(|v| v.to_str().ok())
            == Some(&format!("Bearer {TOKEN}"))
    ));
}

/// A PR where CodeRabbit and Sourcery agree on `n` separate spots (one finding each).
fn many_findings_pr(n: usize) -> PrData {
    let base = PrData::fixture("pr-101-three-bots");
    let pick = |login: &str| {
        base.review_comments
            .iter()
            .find(|c| c["user"]["login"] == login && c["in_reply_to_id"].is_null())
            .cloned()
            .unwrap()
    };
    let (cr, so) = (pick("coderabbitai[bot]"), pick("sourcery-ai[bot]"));
    let mut data = base.clone();
    data.review_comments.clear();
    data.issue_comments.clear();
    data.code_scanning = None;
    // Reviews stay (they make the bots count as having run), their bodies' findings go.
    for review in &mut data.reviews {
        review["body"] = json!("");
    }
    for i in 0..n {
        for (k, template) in [&cr, &so].into_iter().enumerate() {
            let mut c = template.clone();
            c["id"] = json!(100_000 + i * 2 + k);
            c["path"] = json!(format!("src/file_{i:03}.py"));
            c["line"] = json!(10);
            c["start_line"] = Value::Null;
            c["original_line"] = json!(10);
            data.review_comments.push(c);
        }
    }
    data
}

/// `run --repo --pr` from a laptop, without `GITHUB_ACTIONS`.
fn laptop(fake: &FakeGitHub, args: &[&str]) -> std::process::Output {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_review-consensus"))
        .args(args)
        .env_clear()
        .env("GITHUB_TOKEN", TOKEN)
        .env("GITHUB_API_URL", &fake.api_url)
        .env("GITHUB_GRAPHQL_URL", &fake.graphql_url)
        .env("REVIEW_CONSENSUS_RETRY_MAX_WAIT_MS", "30")
        .env("REVIEW_CONSENSUS_WRITE_SPACING_MS", "0")
        .output();
    match out {
        Ok(out) => out,
        Err(err) => panic!("cannot run the binary: {err}"),
    }
}

#[tokio::test]
async fn run_dry_run_writes_nothing_and_save_replays_offline() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone()).start().await;
    let saved = tempfile::tempdir().unwrap();
    let dir = saved.path().join("pr");
    let dir_arg = dir.display().to_string();
    let args = [
        "run",
        "--repo",
        "acme/payments-api",
        "--pr",
        "101",
        "--dry-run",
        "--save",
        &dir_arg,
    ];
    let out = laptop(&fake, &args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(MARKER), "the comment is printed");
    assert!(
        !stdout.contains("::group::"),
        "no workflow commands outside Actions"
    );
    let state = fake.state();
    assert!(state
        .requests
        .iter()
        .all(|r| r.starts_with("GET ") || r == "POST /graphql"));
    drop(state);
    assert!(stickies(&fake).is_empty());

    let replay = std::process::Command::new(env!("CARGO_BIN_EXE_review-consensus"))
        .args(["render", &dir_arg])
        .env_clear()
        .output()
        .unwrap();
    assert_eq!(replay.status.code(), Some(1));
    let replayed = String::from_utf8_lossy(&replay.stdout);
    assert!(replayed.contains("app/db/queries.py"));
}

#[tokio::test]
async fn review_events_and_pull_request_target_resolve_the_pr() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone()).start().await;
    let mut fork_pull = data.pull.clone();
    fork_pull["head"]["repo"] = json!({"full_name": "mallory/payments-api"});
    for (name, pull) in [
        ("pull_request_review", &data.pull),
        ("pull_request_review_comment", &data.pull),
        // A fork PR, but `pull_request_target` has a write token: the comment is written.
        ("pull_request_target", &fork_pull),
    ] {
        let ran = ActionRun::new(&fake, &data)
            .event(name, json!({"action": "submitted", "pull_request": pull}))
            .run();
        assert_eq!(ran.code, 1, "{name}: {}", ran.stderr);
        assert_eq!(ran.output("confirmed"), "4", "{name}");
        assert!(!ran.output("comment-id").is_empty(), "{name}");
    }
    assert_eq!(stickies(&fake).len(), 1);
    fake.assert_clean();
}

/// The declared route of every REST request the fake received; one that matches none fails.
fn routes_taken(fake: &FakeGitHub) -> BTreeSet<(&'static str, &'static str)> {
    let state = fake.state();
    let mut seen = BTreeSet::new();
    for request in state.requests.iter().filter(|r| !r.ends_with(" /graphql")) {
        let (method, rest) = request.split_once(' ').unwrap();
        let path = rest.split('?').next().unwrap();
        let route = routes::ALL
            .iter()
            .find(|r| r.matches(method, path))
            .unwrap_or_else(|| panic!("{request} is no declared route"));
        seen.insert((route.method, route.path));
    }
    seen
}

#[tokio::test]
async fn every_rest_request_is_one_of_the_routes_checked_against_githubs_description() {
    let mut data = many_findings_pr(60);
    let bot = json!({"login": "github-actions[bot]", "id": 41898282, "type": "Bot"});
    for id in [9002, 9001] {
        data.issue_comments
            .push(json!({"id": id, "user": bot, "body": format!("{MARKER}\nold")}));
    }
    let fake = FakeBuilder::new(data.clone()).page_size(7).start().await;
    let ran = ActionRun::new(&fake, &data)
        .input("check-name", "rc")
        .input("fail-on", "never")
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let seen = routes_taken(&fake);
    // Reads, the comment's edit and delete, the check run and its update all went through.
    assert!(seen.len() >= 8, "{seen:?}");
}

/// The requests issues 10 and 12 added go through the same routes: the wait's polls, the
/// completion signals (reactions, the head commit's date, check runs, statuses) and a
/// commenter's permission.
#[tokio::test]
async fn the_wait_signals_and_permission_lookups_are_declared_routes_too() {
    let mut data = PrData::from_dir(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/signals/completion-104"
    )))
    .expect("fixture");
    data.issue_comments.push(json!({
        "id": 2002, "user": {"login": "dana", "id": 501, "type": "User"},
        "body": "/consensus ack rc-abcdefgh checked by hand",
    }));
    let fake = FakeBuilder::new(data.clone())
        .permission("dana", "write", "maintain")
        .start()
        .await;
    let ran = ActionRun::new(&fake, &data)
        .input("bots", "sourcery, codex, cursor-bugbot, coderabbit")
        .input("wait-for-bots", "90s")
        .input("fail-on", "never")
        .run();
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.contains("::group::Wait up to 90s"),
        "{}",
        ran.stdout
    );
    let seen = routes_taken(&fake);
    for route in [
        routes::ISSUE_REACTIONS,
        routes::PULL_COMMITS,
        routes::COMMIT_CHECK_RUNS,
        routes::COMMIT_STATUSES,
        routes::COLLABORATOR_PERMISSION,
    ] {
        let key = (route.method, route.path);
        assert!(
            seen.contains(&key),
            "{} not requested: {seen:?}",
            route.path
        );
    }
    // The wait's poll and the fetch after it both read the lists.
    assert!(fake.count("GET /repos/acme/payments-api/pulls/104/reviews") >= 2);
    fake.assert_clean();
}

#[tokio::test]
async fn a_rate_limit_wait_longer_than_the_run_has_left_warns_at_once() {
    let data = PrData::fixture("pr-101-three-bots");
    let limited = ResponseTemplate::new(429)
        .insert_header("retry-after", "60")
        .set_body_json(json!({"message": "API rate limit exceeded"}));
    let fake = failing(&data, "POST", COMMENTS, limited, 100).await;
    let ran = ActionRun::new(&fake, &data)
        .var("REVIEW_CONSENSUS_RETRY_MAX_WAIT_MS", "120000")
        .var("REVIEW_CONSENSUS_RUN_TIMEOUT_MS", "20000")
        .run();
    assert_eq!(
        ran.code, 1,
        "the gate's code, not a runtime error: {}",
        ran.stdout
    );
    assert!(
        ran.elapsed < Duration::from_secs(15),
        "waited {:?}",
        ran.elapsed
    );
    assert!(ran.stdout.contains("::warning::") && ran.stdout.contains("HTTP 429"));
    assert!(ran.summary.contains(MARKER));
    assert_eq!(
        fake.count("POST /repos/acme/payments-api/issues/101/comments"),
        1
    );
}

/// `wait-for-bots` may wait longer than the run's own bound: the deadline is counted after
/// the wait, so the fetch and the writes after it still run (and the gate decides).
#[tokio::test]
async fn the_run_deadline_starts_after_the_wait() {
    let head = "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567";
    let mut data = PrData::empty("acme", "payments-api", 7, head);
    data.head_check_runs = vec![json!({
        "id": 9001, "name": "Cursor Bugbot", "head_sha": head, "status": "in_progress",
        "conclusion": null, "started_at": "2026-11-02T09:01:00Z",
        "app": {"id": 1210556, "slug": "cursor", "name": "Cursor"},
    })];
    let fake = FakeBuilder::new(data.clone()).start().await;
    let ran = ActionRun::new(&fake, &data)
        .input("bots", "cursor-bugbot")
        .input("wait-for-bots", "3s")
        .var("REVIEW_CONSENSUS_RUN_TIMEOUT_MS", "1500")
        .run();
    assert!(ran.elapsed >= Duration::from_secs(3), "{:?}", ran.elapsed);
    assert!(
        ran.stdout
            .contains("wait-for-bots: 3s passed, deciding without cursor-bugbot"),
        "{}",
        ran.stdout
    );
    assert_eq!(ran.code, 0, "the gate's code: {}{}", ran.stdout, ran.stderr);
    assert!(!ran.stdout.contains("deadline"), "{}", ran.stdout);
    assert!(
        stickies(&fake).len() == 1,
        "the comment is written after the wait"
    );
    fake.assert_clean();
}
