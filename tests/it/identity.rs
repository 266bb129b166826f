//! Finding identity across runs against the fake GitHub, with the real binary as the action:
//! fingerprints that survive a push, acknowledgements (who may, with what reason, until
//! when), the state block in our own comment only, what changed since the last run, and the
//! request budget of the permission lookups.

use serde_json::{json, Value};

use crate::support::{ActionRun, FakeBuilder, FakeGitHub, PrData};

const MARKER: &str = "<!-- review-bot-ack -->";
const HEAD_2: &str = "2222222222aaaaaaaaaabbbbbbbbbbcccccccccc";
const REPO: &str = "/repos/acme/payments-api";

fn sticky(fake: &FakeGitHub) -> String {
    fake.comments()
        .into_iter()
        .find(|c| {
            c["body"].as_str().unwrap_or("").starts_with(MARKER)
                && c["user"]["login"] == "github-actions[bot]"
        })
        .and_then(|c| c["body"].as_str().map(str::to_owned))
        .expect("our sticky comment")
}

fn findings(report: &Value) -> &Vec<Value> {
    report["findings"].as_array().expect("findings")
}

/// `(fingerprint, file, state)` of every finding, sorted.
fn identities(report: &Value) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = findings(report)
        .iter()
        .map(|f| {
            (
                f["fingerprint"].as_str().expect("fingerprint").to_owned(),
                f["file"].as_str().unwrap_or("").to_owned(),
                f["state"].as_str().expect("state").to_owned(),
            )
        })
        .collect();
    out.sort();
    out
}

/// The fingerprint of the finding in `file` whose title contains `words`.
fn fingerprint_of(report: &Value, file: &str, words: &str) -> String {
    findings(report)
        .iter()
        .find(|f| f["file"] == file && f["title"].as_str().unwrap_or("").contains(words))
        .and_then(|f| f["fingerprint"].as_str())
        .unwrap_or_else(|| panic!("no finding in {file} with {words:?}"))
        .to_owned()
}

fn finding_by_fp<'a>(report: &'a Value, fp: &str) -> &'a Value {
    findings(report)
        .iter()
        .find(|f| f["fingerprint"] == fp)
        .unwrap_or_else(|| panic!("no finding {fp}"))
}

/// A person's PR conversation comment.
fn comment(id: u64, login: &str, body: &str) -> Value {
    json!({
        "id": id,
        "user": {"login": login, "id": id, "type": "User"},
        "body": body,
        "html_url": format!("https://github.com/acme/payments-api/pull/101#issuecomment-{id}"),
        "created_at": "2026-01-02T00:00:00Z",
    })
}

fn say(fake: &FakeGitHub, id: u64, login: &str, body: &str) {
    fake.state().issue_comments.push(comment(id, login, body));
}

/// The PR after a push to `HEAD_2` that moved every line down by `shift`: the bots in
/// `rereviewed` reviewed the new head (their comments and reviews moved to it), the others
/// still stand at the old one. The conversation is what `fake` holds now.
fn pushed(base: &PrData, fake: &FakeGitHub, shift: u32, rereviewed: &[&str]) -> PrData {
    let mut data = base.clone();
    data.pull["head"]["sha"] = json!(HEAD_2);
    let moves = |login: &Value| rereviewed.iter().any(|b| login == b);
    for c in &mut data.review_comments {
        for field in ["line", "start_line", "original_line", "original_start_line"] {
            if let Some(n) = c[field].as_u64() {
                c[field] = json!(n + u64::from(shift));
            }
        }
        // GitHub moves every live comment's `commit_id` to the new head; a re-review
        // posts new comments, whose `original_commit_id` is the new head.
        if !c["line"].is_null() {
            c["commit_id"] = json!(HEAD_2);
        }
        if moves(&c["user"]["login"]) {
            c["original_commit_id"] = json!(HEAD_2);
        }
    }
    for r in &mut data.reviews {
        if moves(&r["user"]["login"]) {
            r["commit_id"] = json!(HEAD_2);
        }
    }
    for alert in data.code_scanning.iter_mut().flatten() {
        let location = &mut alert["most_recent_instance"]["location"];
        for field in ["start_line", "end_line"] {
            if let Some(n) = location[field].as_u64() {
                location[field] = json!(n + u64::from(shift));
            }
        }
        if moves(&json!("github-advanced-security[bot]")) {
            alert["most_recent_instance"]["commit_sha"] = json!(HEAD_2);
        }
    }
    data.issue_comments = fake.comments();
    data
}

fn event(data: &PrData) -> Value {
    json!({"action": "synchronize", "number": data.number, "pull_request": data.pull})
}

#[tokio::test]
async fn a_push_that_moves_lines_keeps_fingerprints_and_the_ack() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone())
        .permission("dana-ortiz", "write", "maintain")
        .start()
        .await;
    let first = ActionRun::new(&fake, &data).run();
    assert_eq!(first.code, 1, "{}", first.stderr);
    let report = first.report.as_ref().expect("report");
    assert!(identities(report)
        .iter()
        .all(|(fp, _, state)| { fp.starts_with("rc-") && fp.len() == 11 && state == "new" }));
    let fp = fingerprint_of(report, "app/db/queries.py", "order_ref");
    assert!(sticky(&fake).contains(&format!("`{fp}` 🆕 **critical**")));
    say(
        &fake,
        9_000,
        "dana-ortiz",
        &format!("Checked with the team.\n\n/consensus ack {fp} order_ref is an enum validated by the router"),
    );

    let moved = pushed(
        &data,
        &fake,
        7,
        &[
            "coderabbitai[bot]",
            "sourcery-ai[bot]",
            "github-advanced-security[bot]",
        ],
    );
    let fake2 = FakeBuilder::new(moved.clone())
        .permission("dana-ortiz", "write", "maintain")
        .start()
        .await;
    let second = ActionRun::new(&fake2, &moved)
        .event("pull_request", event(&moved))
        .run();
    let report2 = second.report.as_ref().expect("report");
    let before: Vec<String> = identities(report).into_iter().map(|(fp, ..)| fp).collect();
    let after: Vec<String> = identities(report2).into_iter().map(|(fp, ..)| fp).collect();
    assert_eq!(before, after, "every fingerprint survived the push");
    let acked = finding_by_fp(report2, &fp);
    assert_eq!(acked["line"], 46, "the finding did move");
    assert_eq!(acked["state"], "acknowledged");
    assert_eq!(acked["acknowledged"]["by"], "dana-ortiz");
    assert_eq!(
        acked["acknowledged"]["reason"],
        "order_ref is an enum validated by the router"
    );
    assert!(findings(report2)
        .iter()
        .filter(|f| f["fingerprint"] != fp.as_str())
        .all(|f| f["state"] == "open" && f["new"] == false));
    assert_eq!(second.output("new"), "0");
    assert_eq!(second.output("acknowledged"), "1");
    assert_eq!(
        second.output("confirmed"),
        "3",
        "the acknowledged one left the count"
    );
    assert_eq!(
        second.code, 1,
        "three confirmed findings still fail the gate"
    );
    let body = sticky(&fake2);
    assert!(
        body.contains(
            "**Since the last run (`8c1f0d3`):** 🆕 0 new · 8 still open · ✅ 0 resolved"
        ),
        "{body}"
    );
    assert!(body.contains("<b>Acknowledged (1)</b>"));
    assert!(
        body.contains(
            "acknowledged by dana-ortiz: “order\\_ref is an enum validated by the router”"
        ),
        "{body}"
    );
}

#[tokio::test]
async fn refused_acks_are_listed_with_why_and_an_expired_one_lapses() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone())
        .permission("dana-ortiz", "write", "write")
        .permission("mallory", "read", "read")
        .start()
        .await;
    let action = ActionRun::new(&fake, &data);
    let first = action.run();
    let report = first.report.as_ref().expect("report");
    let sql = fingerprint_of(report, "app/db/queries.py", "order_ref");
    let token = fingerprint_of(report, "app/auth/tokens.py", "");
    let ledger = fingerprint_of(report, "app/services/ledger.py", "float");
    say(
        &fake,
        9_001,
        "mallory",
        &format!("/consensus ack {sql} the router validates order_ref upstream"),
    );
    say(
        &fake,
        9_002,
        "dana-ortiz",
        &format!("/consensus ack {token} false positive"),
    );
    say(
        &fake,
        9_003,
        "dana-ortiz",
        &format!("/consensus ack {ledger} rounding is fixed in the next release until 2020-01-01"),
    );

    let second = action.run();
    assert_eq!(second.code, 1, "{}", second.stderr);
    assert_eq!(second.output("acknowledged"), "0");
    assert_eq!(second.output("confirmed"), "4");
    let report = second.report.as_ref().expect("report");
    let refused = report["acknowledgements"]["refused"].as_array().unwrap();
    assert_eq!(refused.len(), 2, "{refused:?}");
    assert_eq!(refused[0]["by"], "mallory");
    assert!(refused[0]["why"]
        .as_str()
        .unwrap()
        .contains("has read permission"));
    assert_eq!(refused[0]["kind"], "no-permission");
    assert_eq!(refused[1]["by"], "dana-ortiz");
    assert!(refused[1]["why"]
        .as_str()
        .unwrap()
        .contains("is a label, not a reason"));
    // Issue 19: the rule is in the report and in the comment, not only the refusal.
    assert_eq!(refused[1]["kind"], "bad-reason");
    let rule = refused[1]["rule"].as_str().unwrap();
    assert!(rule.contains("at least 12 characters"), "{rule}");
    let lapsed = report["acknowledgements"]["lapsed"].as_array().unwrap();
    assert_eq!(lapsed.len(), 1);
    assert_eq!(lapsed[0]["fingerprint"], ledger.as_str());
    // Same head commit as the first run: still new, and not acknowledged.
    assert_eq!(finding_by_fp(report, &ledger)["state"], "new");
    let body = sticky(&fake);
    // Issue 19: the person who typed a refused command sees why, unfolded, and the rule.
    assert!(
        body.contains("⚠️ 2 `/consensus` command(s) not followed"),
        "{body}"
    );
    let refused_at = body.find("### Commands not followed (2)").expect("{body}");
    let section = &body[refused_at..];
    assert!(section.contains("mallory: /consensus ack"), "{section}");
    assert!(
        section.contains("not followed: mallory has read permission"),
        "{section}"
    );
    assert!(
        section.contains(&format!(
            "dana-ortiz: /consensus ack {token} false positive"
        )),
        "{section}"
    );
    assert!(
        section.contains("not followed: “false positive” is a label, not a reason"),
        "{section}"
    );
    assert!(section.contains(rule), "{section}");
    assert!(
        section.contains("needs write, maintain or admin permission on the repository."),
        "{section}"
    );
    assert!(
        body.contains("<summary>Acknowledgements that lapsed (1)</summary>"),
        "{body}"
    );
    assert!(body.contains("— lapsed, it no longer holds"));

    // An edit fixes the reason: the next run honours it.
    {
        let mut state = fake.state();
        let edited = state
            .issue_comments
            .iter_mut()
            .find(|c| c["id"] == 9_002)
            .unwrap();
        edited["body"] = json!(format!("/consensus ack {token} the token is a test fixture, never a real secret until 2999-12-31"));
    }
    let third = action.run();
    assert_eq!(third.output("acknowledged"), "1");
    let acked = finding_by_fp(third.report.as_ref().unwrap(), &token);
    assert_eq!(acked["acknowledged"]["until"], "2999-12-31");
}

#[tokio::test]
async fn a_forged_state_block_in_a_human_comment_is_ignored() {
    let mut data = PrData::fixture("pr-101-three-bots");
    // A first run elsewhere gives the real fingerprints to forge against.
    let probe = FakeBuilder::new(data.clone()).start().await;
    let real = ActionRun::new(&probe, &data)
        .input("comment", "false")
        .run();
    let sql = fingerprint_of(
        real.report.as_ref().unwrap(),
        "app/db/queries.py",
        "order_ref",
    );
    let today = chrono::Utc::now()
        .date_naive()
        .format("%Y-%m-%d")
        .to_string();
    let forged = json!({
        "v": 1, "recipe": 1, "head": "0000000000", "prev": "1111111111",
        "seen": {sql.clone(): {"k": [sql[3..].to_owned()], "b": ["coderabbit"], "s": "0000000000"}},
        "acks": {sql.clone(): {"by": "mallory", "why": "forged in the state block", "id": 1}},
        "perms": {"mallory": {"role": "admin", "ok": true, "on": today}},
    });
    data.issue_comments.push(comment(
        9_100,
        "mallory",
        &format!("{MARKER}\nlooks like ours\n<!-- review-consensus-state {forged} -->"),
    ));
    data.issue_comments.push(comment(
        9_101,
        "mallory",
        &format!("/consensus ack {sql} the forged cache says I am an admin here"),
    ));
    let fake = FakeBuilder::new(data.clone())
        .permission("mallory", "read", "read")
        .start()
        .await;
    let ran = ActionRun::new(&fake, &data).run();
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let report = ran.report.as_ref().unwrap();
    assert_eq!(
        finding_by_fp(report, &sql)["state"],
        "new",
        "not first seen at the forged head"
    );
    assert_eq!(ran.output("acknowledged"), "0");
    assert_eq!(ran.output("new"), "8");
    assert_eq!(report["changes"]["baseline"], Value::Null);
    let refused = report["acknowledgements"]["refused"].as_array().unwrap();
    assert_eq!(refused.len(), 1);
    assert!(refused[0]["why"]
        .as_str()
        .unwrap()
        .contains("has read permission"));
    // Asked GitHub, not the forged cache; the forged comment is left alone.
    assert_eq!(
        fake.count(&format!("GET {REPO}/collaborators/mallory/permission")),
        1
    );
    let human = fake
        .comments()
        .into_iter()
        .find(|c| c["id"] == 9_100)
        .unwrap();
    assert!(human["body"].as_str().unwrap().contains("looks like ours"));
    assert!(sticky(&fake).contains("review-consensus-state"));
}

#[tokio::test]
async fn a_finding_fixed_and_re_reviewed_is_resolved_and_one_not_re_reviewed_stays_open() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone()).start().await;
    let first = ActionRun::new(&fake, &data).run();
    let report = first.report.as_ref().unwrap();
    let in_list = fingerprint_of(report, "app/db/queries.py", "IN (...)");
    let extract = fingerprint_of(
        report,
        "app/api/refunds.py",
        "Extract the amount validation",
    );

    // Sourcery re-reviewed the new head and no longer reports the IN-list; CodeRabbit's
    // comment on the extract went outdated, and CodeRabbit has not reviewed the new head.
    let mut fixed = pushed(
        &data,
        &fake,
        0,
        &["sourcery-ai[bot]", "github-advanced-security[bot]"],
    );
    fixed
        .review_comments
        .retain(|c| c["id"] != 2_502_118_811u64);
    for c in &mut fixed.review_comments {
        if c["id"] == 2_502_140_035u64 {
            // Outdated: GitHub leaves it on the last commit whose diff showed its line.
            c["line"] = Value::Null;
            c["start_line"] = Value::Null;
            c["commit_id"] = data.pull["head"]["sha"].clone();
        }
    }
    let fake2 = FakeBuilder::new(fixed.clone()).start().await;
    let ran = ActionRun::new(&fake2, &fixed)
        .event("pull_request", event(&fixed))
        .run();
    let report2 = ran.report.as_ref().unwrap();
    let resolved = report2["changes"]["resolved"].as_array().unwrap();
    assert_eq!(resolved.len(), 1, "{resolved:?}");
    assert_eq!(resolved[0]["fingerprint"], in_list.as_str());
    assert!(resolved[0]["why"]
        .as_str()
        .unwrap()
        .contains("sourcery re-reviewed"));
    let awaiting = report2["changes"]["awaiting_review"].as_array().unwrap();
    assert_eq!(awaiting.len(), 1, "{awaiting:?}");
    assert_eq!(awaiting[0]["fingerprint"], extract.as_str());
    assert!(awaiting[0]["why"].as_str().unwrap().contains("coderabbit"));
    let body = sticky(&fake2);
    assert!(
        body.contains("🆕 0 new · 7 still open · ✅ 1 resolved"),
        "{body}"
    );
    assert!(body.contains(&format!("- ✅ `{in_list}`")), "{body}");
    assert!(body.contains(&format!("- ⏳ `{extract}`")), "{body}");
}

#[tokio::test]
async fn permission_lookups_are_cached_and_runs_stay_within_the_request_budget() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone())
        .permission("dana-ortiz", "write", "write")
        .permission("priya-raman", "admin", "admin")
        .start()
        .await;
    let probe = FakeBuilder::new(data.clone()).start().await;
    let real = ActionRun::new(&probe, &data)
        .input("comment", "false")
        .run();
    let report = real.report.as_ref().unwrap();
    let sql = fingerprint_of(report, "app/db/queries.py", "order_ref");
    let token = fingerprint_of(report, "app/auth/tokens.py", "");
    say(
        &fake,
        9_001,
        "dana-ortiz",
        &format!("/consensus ack {sql} order_ref is an enum validated by the router"),
    );
    say(
        &fake,
        9_002,
        "priya-raman",
        &format!("/consensus ack {token} a test fixture token, never a real secret"),
    );
    say(
        &fake,
        9_003,
        "dana-ortiz",
        &format!("/consensus unack {sql}\n/consensus ack {sql} validated by the router, see #42"),
    );
    let action = ActionRun::new(&fake, &data);

    let first = action.run();
    assert_eq!(first.output("acknowledged"), "2", "{}", first.stderr);
    let lookups = |fake: &FakeGitHub| fake.count(&format!("GET {REPO}/collaborators/"));
    let first_requests = fake.state().requests.len();
    assert_eq!(lookups(&fake), 2, "one per distinct commenter");
    // 5 REST reads, 2 GraphQL reads (threads, viewer), 2 lookups, the comment's POST and the
    // re-list after it.
    assert_eq!(first_requests, 11, "{:#?}", fake.state().requests);

    let second = action.run();
    assert_eq!(second.output("acknowledged"), "2");
    let second_requests = fake.state().requests.len() - first_requests;
    assert_eq!(lookups(&fake), 2, "the state block answered the second run");
    assert_eq!(second_requests, 7, "reads only: the comment is unchanged");
    assert_eq!(fake.count("PATCH"), 0);
    let unexpected = fake.state().unexpected.clone();
    assert!(unexpected.is_empty(), "{unexpected:?}");
}

#[tokio::test]
async fn render_replays_the_state_offline_and_refuses_unknown_permissions() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone())
        .permission("dana-ortiz", "write", "write")
        .start()
        .await;
    let action = ActionRun::new(&fake, &data);
    let first = action.run();
    let sql = fingerprint_of(
        first.report.as_ref().unwrap(),
        "app/db/queries.py",
        "order_ref",
    );
    say(
        &fake,
        9_001,
        "dana-ortiz",
        &format!("/consensus ack {sql} order_ref is an enum validated by the router"),
    );
    let online = action.run();
    assert_eq!(online.output("acknowledged"), "1");
    // Someone else acks after the last run: offline, nobody can ask GitHub about them.
    say(
        &fake,
        9_002,
        "priya-raman",
        &format!("/consensus ack {sql} also checked by the payments team"),
    );

    // `run --dry-run --save` from a laptop: the folder, and who we were.
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("pr");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_review-consensus"))
        .args([
            "run",
            "--repo",
            "acme/payments-api",
            "--pr",
            "101",
            "--dry-run",
            "--save",
        ])
        .arg(&saved)
        .env_clear()
        .env("GITHUB_TOKEN", crate::support::TOKEN)
        .env("GITHUB_API_URL", &fake.api_url)
        .env("GITHUB_GRAPHQL_URL", &fake.graphql_url)
        .env("REVIEW_CONSENSUS_RETRY_MAX_WAIT_MS", "30")
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let viewer: Value =
        serde_json::from_str(&std::fs::read_to_string(saved.join("viewer.json")).unwrap()).unwrap();
    assert_eq!(
        viewer,
        json!({"login": "github-actions[bot]", "type": "Bot"})
    );
    let report_path = dir.path().join("report.json");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_review-consensus"))
        .arg("render")
        .arg("--report")
        .arg(&report_path)
        .arg(&saved)
        .env_clear()
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&report_path).unwrap()).unwrap();
    assert_eq!(
        identities(&report),
        identities(online.report.as_ref().unwrap())
    );
    let acked = finding_by_fp(&report, &sql);
    assert_eq!(acked["state"], "acknowledged");
    assert_eq!(
        acked["acknowledged"]["by"], "dana-ortiz",
        "the cached permission answered"
    );
    let refused = report["acknowledgements"]["refused"].as_array().unwrap();
    assert_eq!(refused.len(), 1);
    assert!(refused[0]["why"]
        .as_str()
        .unwrap()
        .contains("permission unknown offline"));
    assert!(stdout.contains("<b>Acknowledged (1)</b>"), "{stdout}");
    assert_eq!(
        out.status.code(),
        Some(1),
        "three confirmed findings remain"
    );
}

/// A real PR (jdx/mise#13266: Greptile, Bugbot, CodeRabbit): the bots' own ids reach the
/// fingerprints, and a push that moves every line renames nothing and announces nothing.
#[test]
fn real_bot_ids_carry_fingerprints_across_a_push() {
    use review_consensus::adapters::{default_sources, BotSelection};
    use review_consensus::identity::{IdentityInput, Prior};
    use review_consensus::pipeline::{analyze, AnalysisOptions};

    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/real/dev-10-mise-13266-shims-exclude");
    let snapshot = review_consensus::local::load_snapshot_dir(&dir).unwrap();
    // CodeRabbit's comments here are addressed or outdated: keep them, to see their ids.
    let every_comment = AnalysisOptions {
        extract: review_consensus::adapters::ExtractOptions {
            include_outdated: true,
            include_resolved: true,
        },
        ..AnalysisOptions::default()
    };
    let first = analyze(
        Some(&snapshot),
        &BotSelection::Listed(default_sources()),
        Vec::new(),
        &every_comment,
    );
    let members: Vec<_> = first
        .findings
        .iter()
        .flat_map(|f| &f.consensus.members)
        .collect();
    let bugbot: Vec<_> = members
        .iter()
        .filter(|m| m.bot == "cursor-bugbot")
        .collect();
    assert!(!bugbot.is_empty());
    assert!(bugbot
        .iter()
        .all(|m| m.stable_id.as_deref().is_some_and(|id| id.len() == 36)));
    let coderabbit: Vec<_> = members.iter().filter(|m| m.bot == "coderabbit").collect();
    assert!(coderabbit.iter().any(|m| m
        .stable_id
        .as_deref()
        .is_some_and(|id| id.starts_with("cr-comment:v1:"))));

    let head = snapshot.head_sha().to_owned();
    let mut moved = snapshot.clone();
    moved.pull.head.sha = "9".repeat(40);
    for c in &mut moved.review_comments {
        for line in [&mut c.line, &mut c.start_line, &mut c.original_line] {
            *line = line.map(|n| n + 12);
        }
        if c.commit_id.as_deref() == Some(head.as_str()) {
            c.commit_id = Some("9".repeat(40));
        }
    }
    for r in &mut moved.reviews {
        r.commit_id = Some("9".repeat(40));
    }
    let options = AnalysisOptions {
        identity: IdentityInput {
            prior: Prior {
                state: Some(first.identity.state.clone()),
                note: None,
            },
            ..IdentityInput::default()
        },
        ..every_comment
    };
    let second = analyze(
        Some(&moved),
        &BotSelection::Listed(default_sources()),
        Vec::new(),
        &options,
    );
    let names = |o: &review_consensus::model::Outcome| {
        let mut v: Vec<String> = o
            .findings
            .iter()
            .filter_map(|f| f.fingerprint().map(str::to_owned))
            .collect();
        v.sort();
        v
    };
    assert!(!names(&first).is_empty());
    assert_eq!(names(&first), names(&second));
    assert_eq!(second.new_findings().count(), 0);
    assert!(second.identity.resolved.is_empty() && second.identity.awaiting.is_empty());
}

#[tokio::test]
async fn a_malformed_block_in_our_comment_is_reported_and_the_run_starts_afresh() {
    let mut data = PrData::fixture("pr-101-three-bots");
    data.issue_comments.push(json!({
        "id": 9_200,
        "user": {"login": "github-actions[bot]", "id": 41898282, "type": "Bot"},
        "body": format!("{MARKER}\nold\n<!-- review-consensus-state {{\"v\":1,\"seen\": -->"),
        "html_url": "https://github.com/acme/payments-api/pull/101#issuecomment-9200",
    }));
    let fake = FakeBuilder::new(data.clone()).start().await;
    let ran = ActionRun::new(&fake, &data).run();
    assert_eq!(ran.code, 1, "the gate still decides: {}", ran.stderr);
    let report = ran.report.as_ref().unwrap();
    assert_eq!(report["changes"]["first_run"], true);
    assert_eq!(ran.output("new"), "8");
    let notes = report["identity_notes"].as_array().unwrap();
    assert!(
        notes[0].as_str().unwrap().contains("not valid JSON"),
        "{notes:?}"
    );
    assert_eq!(
        ran.output("comment-id"),
        "9200",
        "our comment, edited in place"
    );
    let body = sticky(&fake);
    assert!(
        body.contains("⚠️ the state block of our comment could not be read"),
        "{body}"
    );
    // The block written now is whole again: the next run reads it.
    let again = ActionRun::new(&fake, &data).run();
    assert_eq!(
        again.report.as_ref().unwrap()["changes"]["first_run"],
        false
    );
}

/// A comment by a bot account.
fn bot_comment(id: u64, login: &str, body: &str) -> Value {
    json!({
        "id": id,
        "user": {"login": login, "id": id, "type": "Bot"},
        "body": body,
        "html_url": format!("https://github.com/acme/payments-api/pull/101#issuecomment-{id}"),
        "created_at": "2026-01-02T00:00:00Z",
    })
}

fn corrections(report: &Value) -> &Vec<Value> {
    report["corrections"].as_array().expect("corrections")
}

fn has_finding(report: &Value, fp: &str) -> bool {
    findings(report).iter().any(|f| f["fingerprint"] == fp)
}

/// Issue 18: a person corrects a merge. `same` joins two findings of different files (no
/// matcher ever links those, whatever its weights), `split` takes the joined finding apart
/// again (a split keeps apart what a same would join), deleting the split joins them once
/// more, deleting the same leaves them as they were. Each run reads the last one's state
/// block from our comment; the fingerprints are resolved through it.
#[tokio::test]
async fn split_and_same_correct_merges_until_their_comments_are_deleted() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone())
        .permission("dana-ortiz", "write", "maintain")
        .permission("mallory", "read", "read")
        .start()
        .await;
    let action = ActionRun::new(&fake, &data);
    let ran = |run: &crate::support::Ran| {
        assert!(matches!(run.code, 0 | 1), "{}", run.stderr);
        run.report.clone().expect("report")
    };
    let first = ran(&action.run());
    let exposure = fingerprint_of(&first, "app/api/refunds.py", "exception");
    let balance = fingerprint_of(&first, "app/services/ledger.py", "close_period");
    let before = identities(&first);
    assert!(corrections(&first).is_empty());

    // `same`: one finding, with both bots, under one of the two names; the other an alias.
    say(
        &fake,
        9_001,
        "dana-ortiz",
        &format!("Same root cause.\n/consensus same {exposure} {balance}"),
    );
    let joined = ran(&action.run());
    assert_eq!(findings(&joined).len(), findings(&first).len() - 1);
    let both: Vec<&Value> = findings(&joined)
        .iter()
        .filter(|f| {
            let fp = f["fingerprint"].as_str().unwrap();
            fp == exposure || fp == balance
        })
        .collect();
    assert_eq!(both.len(), 1, "one finding for the two");
    let name = both[0]["fingerprint"].as_str().unwrap().to_owned();
    let other = if name == exposure {
        &balance
    } else {
        &exposure
    };
    assert_eq!(
        both[0]["detected_by"],
        json!(["coderabbit", "gh-advanced-security"])
    );
    assert_eq!(both[0]["aliases"], json!([other]));
    let same = &corrections(&joined)[0];
    assert_eq!(same["kind"], "same");
    assert_eq!(same["fingerprints"], json!([exposure, balance]));
    assert_eq!(same["by"], "dana-ortiz");
    assert_eq!(same["comment_id"], 9_001);
    assert_eq!(
        same["comment_url"],
        "https://github.com/acme/payments-api/pull/101#issuecomment-9001"
    );
    assert_eq!(same["findings"], json!([name]));
    assert_eq!(same["applied"], true);
    let body = sticky(&fake);
    let joined_line = format!(
        "🔗 joined `{exposure}` and `{balance}` at the request of dana-ortiz · \
         [comment](https://github.com/acme/payments-api/pull/101#issuecomment-9001)"
    );
    assert_eq!(
        body.matches(&joined_line).count(),
        2,
        "beside it and listed: {body}"
    );
    assert!(body.contains("<summary>Merges corrected by people (1)</summary>"));
    assert!(
        body.contains("`/consensus split <fingerprint>`"),
        "the help line"
    );
    assert!(body.contains(r#""corrections":[{"do":"same","by":"dana-ortiz","id":9001"#));

    // `split` of the joined finding, and three that are not followed.
    say(
        &fake,
        9_002,
        "dana-ortiz",
        &format!("/consensus split {name}"),
    );
    say(&fake, 9_003, "mallory", &format!("/consensus split {name}"));
    fake.state().issue_comments.push(bot_comment(
        9_004,
        "renovate[bot]",
        &format!("/consensus split {name}"),
    ));
    say(&fake, 9_005, "dana-ortiz", "/consensus split rc-zzzzzzzz");
    let split = ran(&action.run());
    assert_eq!(
        identities(&split),
        before,
        "each its own again, under its own name"
    );
    let kinds: Vec<&str> = corrections(&split)
        .iter()
        .map(|c| c["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["same", "split"]);
    let (same, split_c) = (&corrections(&split)[0], &corrections(&split)[1]);
    assert_eq!(same["applied"], false);
    assert_eq!(
        same["note"],
        "not applied: a `/consensus split` keeps them apart"
    );
    assert_eq!(split_c["fingerprints"], json!([name]));
    assert_eq!(split_c["applied"], true);
    let mut pieces: Vec<&str> = split_c["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    pieces.sort_unstable();
    let mut expected = vec![exposure.as_str(), balance.as_str()];
    expected.sort_unstable();
    assert_eq!(pieces, expected);
    let refused = split["acknowledgements"]["refused"].as_array().unwrap();
    let refused: Vec<(&str, &str)> = refused
        .iter()
        .map(|r| (r["by"].as_str().unwrap(), r["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(
        refused,
        [
            ("mallory", "no-permission"),
            ("renovate[bot]", "bot-account"),
            ("dana-ortiz", "unknown-fingerprint"),
        ]
    );
    let body = sticky(&fake);
    assert!(
        body.contains(&format!(
            "✂️ split from `{name}` at the request of dana-ortiz · \
             [comment](https://github.com/acme/payments-api/pull/101#issuecomment-9002)"
        )),
        "{body}"
    );
    assert!(body.contains("⚠️ 3 `/consensus` command(s) not followed"));
    assert!(body.contains("mallory: /consensus split"));
    assert!(body
        .contains("Acknowledging or correcting a merge needs write, maintain or admin permission"));

    // The split's comment deleted: joined again, under the same name as before.
    fake.state()
        .issue_comments
        .retain(|c| ![9_002, 9_003, 9_004, 9_005].contains(&c["id"].as_u64().unwrap()));
    let rejoined = ran(&action.run());
    assert!(has_finding(&rejoined, &name) && !has_finding(&rejoined, other));
    assert_eq!(findings(&rejoined).len(), findings(&first).len() - 1);
    assert_eq!(corrections(&rejoined).len(), 1);
    assert_eq!(corrections(&rejoined)[0]["applied"], true);
    assert!(rejoined["acknowledgements"]["refused"]
        .as_array()
        .unwrap()
        .is_empty());
    assert!(rejoined["changes"]["resolved"]
        .as_array()
        .unwrap()
        .is_empty());

    // The same's comment deleted too: as before any command, and nothing left in the state.
    fake.state().issue_comments.retain(|c| c["id"] != 9_001);
    let last = ran(&action.run());
    assert_eq!(identities(&last), before);
    assert!(corrections(&last).is_empty());
    assert!(findings(&last).iter().all(|f| f.get("aliases").is_none()));
    assert!(last["changes"]["resolved"].as_array().unwrap().is_empty());
    let body = sticky(&fake);
    assert!(!body.contains("Merges corrected"));
    assert!(!body.contains(r#""corrections""#));
}

/// A push that only moves lines (every line +12) gives the same clusters and fingerprints,
/// whichever bots re-reviewed the new head (issue 23, item 5): the SQL-injection alert at the
/// line of CodeRabbit's and Sourcery's prose about it joins them before and after.
#[test]
fn a_push_that_moves_every_line_keeps_clusters_and_fingerprints_whoever_rereviewed() {
    use review_consensus::adapters::{default_sources, BotSelection};
    use review_consensus::api::CodeScanning;
    use review_consensus::identity::{IdentityInput, Prior};
    use review_consensus::pipeline::{analyze, AnalysisOptions};

    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pr-101-three-bots");
    let snapshot = review_consensus::local::load_snapshot_dir(&dir).unwrap();
    let bots = BotSelection::Listed(default_sources());
    let first = analyze(
        Some(&snapshot),
        &bots,
        Vec::new(),
        &AnalysisOptions::default(),
    );
    let groups = |o: &review_consensus::model::Outcome| {
        let mut v: Vec<(String, Vec<String>)> = o
            .findings
            .iter()
            .map(|f| {
                let fingerprint = f.fingerprint().unwrap_or_default().to_owned();
                (fingerprint, crate::support::member_ids(f))
            })
            .collect();
        v.sort();
        v
    };
    let sql = first
        .findings
        .iter()
        .find(|f| {
            f.consensus
                .members
                .iter()
                .any(|m| m.finding_id == "alert-41")
        })
        .expect("the SQL alert");
    assert_eq!(
        sql.consensus.detected_by.len(),
        3,
        "three bots on the first run"
    );

    let new_head = "2222222222aaaaaaaaaabbbbbbbbbbcccccccccc";
    let logins = [
        "coderabbitai[bot]",
        "sourcery-ai[bot]",
        "github-advanced-security[bot]",
    ];
    for mask in 0..(1 << logins.len()) {
        let moved_by = |login: &str| {
            logins
                .iter()
                .enumerate()
                .any(|(k, l)| mask & (1 << k) != 0 && *l == login)
        };
        let mut pushed = snapshot.clone();
        pushed.pull.head.sha = new_head.to_owned();
        for c in &mut pushed.review_comments {
            for line in [
                &mut c.line,
                &mut c.start_line,
                &mut c.original_line,
                &mut c.original_start_line,
            ] {
                *line = line.map(|n| n + 12);
            }
            if c.line.is_some() {
                c.commit_id = Some(new_head.to_owned());
            }
            let login = c.user.as_ref().map(|u| u.login.clone()).unwrap_or_default();
            if moved_by(&login) {
                c.original_commit_id = Some(new_head.to_owned());
            }
        }
        for r in &mut pushed.reviews {
            let login = r.user.as_ref().map(|u| u.login.clone()).unwrap_or_default();
            if moved_by(&login) {
                r.commit_id = Some(new_head.to_owned());
            }
        }
        if let CodeScanning::Alerts(alerts) = &mut pushed.code_scanning {
            for alert in alerts {
                let location = &mut alert.most_recent_instance.location;
                location.start_line = location.start_line.map(|n| n + 12);
                location.end_line = location.end_line.map(|n| n + 12);
                if moved_by("github-advanced-security[bot]") {
                    alert.most_recent_instance.commit_sha = Some(new_head.to_owned());
                }
            }
        }
        let options = AnalysisOptions {
            identity: IdentityInput {
                prior: Prior {
                    state: Some(first.identity.state.clone()),
                    note: None,
                },
                ..IdentityInput::default()
            },
            ..AnalysisOptions::default()
        };
        let second = analyze(Some(&pushed), &bots, Vec::new(), &options);
        assert_eq!(
            groups(&first),
            groups(&second),
            "re-reviewed by mask {mask:03b}"
        );
    }
}
