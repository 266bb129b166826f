//! `review-consensus stats` end to end: the real binary against a fake GitHub serving a
//! repository of closed PRs; the scorecard's figures, the listing's stop, the cache.

use std::path::Path;
use std::process::{Command, Output};

use chrono::{Duration, SecondsFormat, Utc};
use review_consensus::adapters::SourceConfig;
use review_consensus::stats::record_pr;
use serde_json::{json, Value};

use crate::support::fake_repo::{FakeRepo, RepoPr};
use crate::support::{PrData, TOKEN};

const BIN: &str = env!("CARGO_BIN_EXE_review-consensus");
const HEAD: &str = "1111111111111111111111111111111111111111";
const OLD: &str = "0000000000000000000000000000000000000000";
const BOTS: &str =
    "generic=alpha[bot],generic=beta[bot],gemini,coderabbit,sourcery,gh-advanced-security";

fn ago(days: f64) -> String {
    let at = Utc::now() - Duration::minutes((days * 24.0 * 60.0) as i64);
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

fn inline(id: u64, login: &str, body: &str, file: &str, line: Option<u64>) -> Value {
    json!({
        "id": id, "user": {"login": login, "id": 500 + id, "type": "Bot"}, "body": body,
        "path": file, "line": line, "original_line": 10 + id, "commit_id": HEAD,
        "original_commit_id": HEAD, "subject_type": "line",
        "html_url": format!("https://github.com/acme/shop/pull/1#discussion_r{id}"),
    })
}

fn thread(ids: &[u64], resolved: bool, outdated: bool) -> Value {
    let nodes: Vec<Value> = ids.iter().map(|id| json!({"databaseId": id})).collect();
    json!({"id": format!("T{}", ids[0]), "isResolved": resolved, "isOutdated": outdated,
           "path": "src/x.rs", "comments": {"nodes": nodes}})
}

fn pr(number: u64, merged: Option<f64>, updated: f64) -> RepoPr {
    RepoPr {
        data: PrData::empty("acme", "shop", number, HEAD),
        merged_at: merged.map(ago),
        updated_at: ago(updated),
    }
}

/// The repository: what each PR holds is spelled out where it is built.
fn repository() -> Vec<RepoPr> {
    // #1: alpha and beta raise the same injection; alpha's thread was resolved, beta's not.
    // alpha also left a style nit nobody acted on.
    let mut one = pr(1, Some(1.0), 1.0);
    one.data.review_comments = vec![
        inline(
            11,
            "alpha[bot]",
            "**SQL injection in the query builder**",
            "src/db.rs",
            Some(10),
        ),
        inline(
            12,
            "beta[bot]",
            "**SQL injection in the query builder**",
            "src/db.rs",
            Some(11),
        ),
        inline(
            13,
            "alpha[bot]",
            "Nit: **Rename the variable for style consistency**",
            "src/db.rs",
            Some(80),
        ),
    ];
    one.data.threads = vec![
        thread(&[11], true, false),
        thread(&[12], false, false),
        thread(&[13], false, false),
    ];

    // #2: alpha's first finding: the code at its lines changed in a later commit (outdated);
    // its second was disputed by a person.
    let mut two = pr(2, Some(2.0), 2.0);
    let mut moved = inline(
        21,
        "alpha[bot]",
        "**Unbounded retry loop**",
        "src/net.rs",
        None,
    );
    moved["commit_id"] = json!(OLD);
    let mut reply = inline(
        23,
        "carol",
        "False positive: the caller bounds it.",
        "src/log.rs",
        Some(7),
    );
    reply["user"] = json!({"login": "carol", "id": 9, "type": "User"});
    reply["in_reply_to_id"] = json!(22);
    two.data.review_comments = vec![
        moved,
        inline(
            22,
            "alpha[bot]",
            "**Token logged in plain text**",
            "src/log.rs",
            Some(7),
        ),
        reply,
    ];
    two.data.threads = vec![thread(&[21], false, true), thread(&[22, 23], false, false)];

    // #3: only Gemini's quota notice.
    let mut three = pr(3, Some(3.0), 3.0);
    three.data.issue_comments = vec![json!({
        "id": 31, "user": {"login": "gemini-code-assist[bot]", "id": 176961590, "type": "Bot"},
        "body": "You have reached your daily quota limit. Please wait up to 24 hours.",
    })];

    // #7: a real PR reviewed by CodeRabbit, Sourcery and code scanning.
    let mut seven = RepoPr {
        data: PrData::fixture("pr-101-three-bots"),
        merged_at: Some(ago(4.0)),
        updated_at: ago(4.0),
    };
    seven.data.number = 7;

    let mut prs = vec![
        one,
        two,
        three,
        seven,
        // Closed without merging: not in the scorecard.
        pr(4, None, 1.5),
        // Merged in the window, but GitHub fails on it.
        pr(6, Some(2.5), 2.5),
        // Merged before the window: the listing stops here, never reading later pages.
        pr(5, Some(40.0), 40.0),
    ];
    prs.extend((8..12).map(|n| pr(n, Some(33.0 + n as f64), 33.0 + n as f64)));
    prs
}

fn stats(fake: &FakeRepo, out: &Path, actions: bool) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args([
        "stats",
        "--repo",
        "acme/shop",
        "--since",
        "30",
        "--bots",
        BOTS,
        "--out",
    ])
    .arg(out)
    .env_clear()
    .env("GITHUB_TOKEN", TOKEN)
    .env("GITHUB_API_URL", &fake.api_url)
    .env("GITHUB_GRAPHQL_URL", &fake.graphql_url)
    .env("REVIEW_CONSENSUS_RETRY_MAX_WAIT_MS", "20")
    .env("REVIEW_CONSENSUS_RETRY_BASE_MS", "2");
    if actions {
        cmd.env("GITHUB_ACTIONS", "true");
    }
    cmd.output().expect("the binary runs")
}

fn bot<'a>(card: &'a Value, name: &str) -> &'a Value {
    card["bots"]
        .as_array()
        .and_then(|bots| bots.iter().find(|b| b["bot"] == name))
        .unwrap_or_else(|| panic!("{name} in {card}"))
}

/// The per-PR requests (`/pulls/N...`, `/issues/N/...`, alerts of `refs/pull/N`, GraphQL).
fn per_pr(requests: &[String]) -> Vec<&String> {
    requests.iter().filter(|r| !r.contains("/pulls?")).collect()
}

#[tokio::test]
async fn scores_each_bot_over_the_window_and_a_second_run_reads_only_what_is_new() {
    let fake = FakeRepo::start("acme", "shop", repository(), 2, &[(6, 502)]).await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("scorecard");

    let first = stats(&fake, &out, false);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&first.stdout),
        String::from_utf8_lossy(&first.stderr),
    );
    assert_eq!(first.status.code(), Some(0), "{stdout}{stderr}");
    assert!(!stdout.contains(TOKEN) && !stderr.contains(TOKEN));
    assert!(
        stderr.contains("warning: 1 merged pull requests could not be read"),
        "{stderr}"
    );
    assert!(
        stdout.contains("## Review bot scorecard: acme/shop"),
        "{stdout}"
    );

    let card: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("scorecard.json")).unwrap())
            .unwrap();
    assert_eq!(card["version"], 1);
    assert_eq!(card["repository"], "acme/shop");
    assert_eq!(card["since_days"], 30);
    assert_eq!(card["merged_prs"], 5, "#1 #2 #3 #6 #7: {card}");
    assert_eq!(card["prs_unread"], json!([6]));

    let alpha = bot(&card, "alpha");
    let figures = |b: &Value| {
        [
            "prs_reviewed",
            "prs_declined",
            "prs_absent",
            "findings_raised",
            "findings_addressed",
            "findings_open_at_merge",
            "findings_disputed",
            "findings_agreed",
        ]
        .map(|k| b[k].as_u64().unwrap_or(u64::MAX))
    };
    assert_eq!(figures(alpha), [2, 0, 2, 4, 2, 1, 1, 1], "{alpha}");
    assert_eq!(alpha["agreed_with"], json!({"beta": 1}));
    // Counted: the injection (addressed), the retry loop (addressed), the disputed token
    // finding; the style nit is left out.
    let precision = alpha["precision_estimate"].as_f64().unwrap();
    assert!((precision - 2.0 / 3.0).abs() < 1e-9, "{alpha}");

    let beta = bot(&card, "beta");
    assert_eq!(figures(beta), [1, 0, 3, 1, 0, 1, 0, 1], "{beta}");
    assert_eq!(beta["agreed_with"], json!({"alpha": 1}));
    assert_eq!(beta["precision_estimate"], 0.0);

    let gemini = bot(&card, "gemini");
    assert_eq!(figures(gemini), [0, 1, 3, 0, 0, 0, 0, 0], "{gemini}");
    assert_eq!(gemini["precision_estimate"], Value::Null);

    // The real PR is measured exactly as the library measures it.
    let snapshot = review_consensus::local::load_snapshot_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pr-101-three-bots"),
    )
    .unwrap();
    let sources: Vec<SourceConfig> = ["coderabbit", "sourcery", "gh-advanced-security"]
        .map(|a| SourceConfig {
            adapter: a.to_owned(),
            logins: Vec::new(),
        })
        .to_vec();
    let expected = record_pr(&snapshot, &sources, "");
    for name in ["coderabbit", "sourcery", "gh-advanced-security"] {
        let measured = expected.bots.iter().find(|b| b.bot == name).unwrap();
        let got = bot(&card, name);
        assert!(
            !measured.findings.is_empty(),
            "{name} raised findings on the fixture"
        );
        assert_eq!(got["findings_raised"], measured.findings.len(), "{name}");
        assert_eq!(got["prs_reviewed"], 1, "{name}");
    }

    let md = std::fs::read_to_string(out.join("scorecard.md")).unwrap();
    assert!(
        md.contains("| alpha | 2 | 0 | 2 | 4 | 2 | 1 | 1 | 25% (1) | 67% (2/3) |"),
        "{md}"
    );
    assert!(md.contains("### Overlap"), "{md}");
    let svg = std::fs::read_to_string(out.join("scorecard.svg")).unwrap();
    let doc = roxmltree::Document::parse(&svg).expect("well-formed SVG");
    for name in ["alpha", "beta", "coderabbit", "sourcery"] {
        assert!(
            doc.descendants().any(|n| n.has_tag_name("text")
                && n.descendants()
                    .any(|t| t.is_text() && t.text().map(str::trim) == Some(name))),
            "{name} labelled in the chart"
        );
    }

    let requests = fake.state().requests.clone();
    assert!(
        fake.state().unexpected.is_empty(),
        "{:?}",
        fake.state().unexpected
    );
    // Every REST read is one of the routes checked against GitHub's description.
    for request in requests.iter().filter(|r| !r.ends_with(" /graphql")) {
        let (method, rest) = request.split_once(' ').expect("METHOD /path");
        let path = rest.split('?').next().unwrap_or(rest);
        assert!(
            review_consensus::github::routes::ALL
                .iter()
                .any(|r| r.matches(method, path)),
            "{request} is no declared route"
        );
    }
    // Pages of 2 by last update: [1, 4] [2, 6] [3, 7] [5, 8]; #5 left the window.
    let listing: Vec<&String> = requests.iter().filter(|r| r.contains("/pulls?")).collect();
    assert_eq!(listing.len(), 4, "{listing:?}");
    for skipped in [
        "/pulls/4",
        "/pulls/5",
        "/pulls/8",
        "/issues/4/",
        "/issues/5/",
    ] {
        assert!(
            !requests
                .iter()
                .any(|r| r.contains(&format!("{skipped}/")) || r.ends_with(skipped)),
            "{skipped} was not read: {requests:?}"
        );
    }
    for read in ["/pulls/1", "/pulls/2", "/pulls/3", "/pulls/7"] {
        assert!(requests.iter().any(|r| r.ends_with(read)), "{read}");
    }
    let cache_files = std::fs::read_dir(out.join("cache")).unwrap().count();
    assert_eq!(
        cache_files, 4,
        "one record per PR read; none for the failed one"
    );

    // Second run, as in Actions: the four cached PRs cost no request; #6 is tried again.
    fake.reset_log();
    let second = stats(&fake, &out, true);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&second.stdout),
        String::from_utf8_lossy(&second.stderr),
    );
    assert_eq!(second.status.code(), Some(0), "{stdout}{stderr}");
    let requests = fake.state().requests.clone();
    let reads = per_pr(&requests);
    assert!(!reads.is_empty());
    assert!(
        reads.iter().all(|r| r.contains("/pulls/6")
            || r.contains("/issues/6/")
            || r.contains("refs/pull/6/")
            || r.starts_with("POST /graphql")),
        "only #6 is read again: {reads:?}"
    );
    assert!(
        !reads
            .iter()
            .any(|r| r.ends_with("/pulls/1") || r.ends_with("/pulls/7")),
        "{reads:?}"
    );
    assert!(
        stdout.contains("::warning::1 merged pull requests could not be read"),
        "{stdout}"
    );
    assert!(
        stderr.contains("stats: 5/5 merged pull requests (4 from the cache)"),
        "progress lines in Actions: {stderr}"
    );
    let mut again: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("scorecard.json")).unwrap())
            .unwrap();
    // The window starts `since_days` before each run's own clock.
    let mut card = card.clone();
    for scorecard in [&mut again, &mut card] {
        scorecard.as_object_mut().unwrap().remove("since");
    }
    assert_eq!(again, card, "the cache gives the same scorecard");
}

#[tokio::test]
async fn other_bots_are_measured_again_rather_than_read_from_the_cache() {
    let fake = FakeRepo::start("acme", "shop", repository(), 100, &[]).await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    assert_eq!(stats(&fake, &out, false).status.code(), Some(0));
    fake.reset_log();
    let output = Command::new(BIN)
        .args([
            "stats",
            "--repo",
            "acme/shop",
            "--bots",
            "generic=alpha[bot]",
            "--out",
        ])
        .arg(&out)
        .env_clear()
        .env("GITHUB_TOKEN", TOKEN)
        .env("GITHUB_API_URL", &fake.api_url)
        .env("GITHUB_GRAPHQL_URL", &fake.graphql_url)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let requests = fake.state().requests.clone();
    assert!(
        requests.iter().any(|r| r.ends_with("/pulls/1")),
        "{requests:?}"
    );
    let card: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("scorecard.json")).unwrap())
            .unwrap();
    let names: Vec<&str> = card["bots"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["bot"].as_str())
        .collect();
    assert_eq!(names, ["alpha"]);
}

#[test]
fn bad_arguments_are_usage_errors_naming_the_flag() {
    for (args, named) in [
        (vec!["stats", "--repo", "no-slash"], "--repo"),
        (
            vec!["stats", "--repo", "a/b", "--bots", "nonesuch"],
            "--bots",
        ),
    ] {
        let output = Command::new(BIN)
            .args(&args)
            .env_clear()
            .env("GITHUB_TOKEN", TOKEN)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(named), "{stderr}");
    }
    let output = Command::new(BIN)
        .args(["stats", "--repo", "a/b"])
        .env_clear()
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("GITHUB_TOKEN"));
    let output = Command::new(BIN)
        .args(["stats", "--repo", "a/b", "--since", "0"])
        .env_clear()
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(2),
        "--since 0 is refused by clap"
    );
}

#[tokio::test]
async fn once_github_refuses_reads_the_rest_is_left_unread_not_hammered() {
    let prs = vec![
        pr(1, Some(1.0), 1.0),
        pr(2, Some(2.0), 2.0),
        pr(3, Some(3.0), 3.0),
    ];
    let fake = FakeRepo::start("acme", "shop", prs, 100, &[(2, 403)]).await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let output = stats(&fake, &out, false);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("GitHub refused further reads"), "{stderr}");
    let requests = fake.state().requests.clone();
    // Newest merge first: #1 read, #2 refused (after its retries), #3 never asked for.
    assert!(requests.iter().any(|r| r.ends_with("/pulls/1")));
    assert!(
        requests.iter().filter(|r| r.ends_with("/pulls/2")).count() > 1,
        "retried"
    );
    assert!(!requests.iter().any(|r| r.contains("/3")), "{requests:?}");
    let card: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("scorecard.json")).unwrap())
            .unwrap();
    assert_eq!(card["merged_prs"], 3);
    assert_eq!(card["prs_unread"], json!([2, 3]));
}

#[tokio::test]
async fn no_readable_pr_is_a_failure_not_an_empty_scorecard() {
    let prs = vec![pr(1, Some(1.0), 1.0)];
    let fake = FakeRepo::start("acme", "shop", prs, 100, &[(1, 502)]).await;
    let dir = tempfile::tempdir().unwrap();
    let output = stats(&fake, &dir.path().join("out"), false);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("none of the 1 merged pull requests of acme/shop"),
        "{stderr}"
    );
}

#[tokio::test]
async fn the_listing_keeps_each_merged_pr_once_and_reports_unreadable_items() {
    use review_consensus::github::pulls::list_merged_since;
    use wiremock::matchers::{method, path, query_param};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    let server = MockServer::start().await;
    let item = |n: u64, merged: Option<f64>, updated: f64| json!({"number": n, "state": "closed", "merged_at": merged.map(ago), "updated_at": ago(updated)});
    let next = format!(
        "<{}/repos/acme/shop/pulls?state=closed&page=2>; rel=\"next\"",
        server.uri()
    );
    Mock::given(method("GET"))
        .and(path("/repos/acme/shop/pulls"))
        .and(query_param("page", "2"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!([
            // The list shifted while paged: #3 shows up again.
            item(3, Some(3.0), 3.0),
            {"number": 9, "updated_at": "yesterday"},
            item(4, None, 4.0),
            item(5, Some(40.0), 40.0),
        ])))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/repos/acme/shop/pulls"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("link", next.as_str())
                .set_body_json(json!([item(2, Some(2.0), 1.0), item(3, Some(3.0), 3.0)])),
        )
        .mount(&server)
        .await;
    let gh = review_consensus::github::GitHub::new(
        &server.uri(),
        &format!("{}/graphql", server.uri()),
        None,
    )
    .unwrap();
    let since = Utc::now() - Duration::days(30);
    let listing = list_merged_since(&gh, "acme", "shop", since).await.unwrap();
    let numbers: Vec<u64> = listing.pulls.iter().map(|p| p.number).collect();
    assert_eq!(
        numbers,
        [2, 3],
        "newest merge first, each once, no unmerged or old PR"
    );
    assert_eq!(listing.unreadable, ["#9"]);
    assert_eq!(listing.pages, 2, "stopped at the page that left the window");
}

/// The listing follows pages under the edge's rules: a `Link` back to a page already read
/// is an incomplete list, not a scorecard of what was read before the loop.
#[tokio::test]
async fn a_listing_link_loop_is_an_error() {
    use review_consensus::github::pulls::list_merged_since;
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    let server = MockServer::start().await;
    let first = format!(
        "<{}/repos/acme/shop/pulls?state=closed&sort=updated&direction=desc&per_page=100>; rel=\"next\"",
        server.uri()
    );
    Mock::given(method("GET"))
        .and(path("/repos/acme/shop/pulls"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("link", first.as_str())
                .set_body_json(
                    json!([{"number": 2, "merged_at": ago(1.0), "updated_at": ago(1.0)}]),
                ),
        )
        .mount(&server)
        .await;
    let gh = review_consensus::github::GitHub::new(
        &server.uri(),
        &format!("{}/graphql", server.uri()),
        None,
    )
    .unwrap();
    let since = Utc::now() - Duration::days(30);
    let err = list_merged_since(&gh, "acme", "shop", since)
        .await
        .expect_err("a loop");
    let text = err.to_string();
    assert!(
        text.contains("incomplete list") && text.contains("already read"),
        "{text}"
    );
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}

/// The 2026 bots are scored like the others: each of their fixture PRs gives the bot a
/// reviewed PR and its findings; Claude Code Review's pre-existing finding is raised but
/// left out of its precision (nobody fixes it in the PR), Devin's withdrawn one is
/// addressed.
#[test]
fn the_scorecard_carries_the_new_bots() {
    use review_consensus::stats::score::{score, Window};
    let sources: Vec<SourceConfig> = [
        "claude-code-review",
        "devin",
        "codescene",
        "codecov-ai",
        "gitstream",
        "amazon-q",
        "codacy",
        "codefactor",
    ]
    .iter()
    .map(|id| SourceConfig {
        adapter: (*id).to_owned(),
        logins: Vec::new(),
    })
    .collect();
    let records: Vec<_> = [
        "bots/claude-code-review",
        "bots/devin",
        "bots/devin-summary",
        "bots/codescene",
        "bots/codecov-ai",
        "bots/gitstream",
        "bots/amazon-q",
        "bots/codacy",
        "bots/codefactor",
    ]
    .iter()
    .map(|folder| record_pr(&crate::adapters::load_fixture(folder), &sources, ""))
    .collect();
    let names: Vec<String> = sources.iter().map(|s| s.adapter.clone()).collect();
    let window = Window {
        repository: "acme/payments-api".into(),
        since_days: 30,
        since: String::new(),
    };
    let card = serde_json::to_value(score(&window, &records, &names, &[])).unwrap();
    let row = |name: &str| bot(&card, name).clone();
    let expect = [
        ("claude-code-review", 1, 3),
        ("devin", 2, 7),
        ("codescene", 1, 4),
        ("codecov-ai", 1, 2),
        ("gitstream", 1, 3),
        ("amazon-q", 1, 3),
        ("codacy", 1, 6),
        ("codefactor", 1, 3),
    ];
    for (name, reviewed, raised) in expect {
        let r = row(name);
        assert_eq!(r["prs_reviewed"], reviewed, "{name}: {r}");
        assert_eq!(r["findings_raised"], raised, "{name}: {r}");
    }
    // 🔴 high and 🟡 nit-but-maintainability are counted; 🟣 pre-existing is not.
    assert_eq!(row("claude-code-review")["precision_basis"]["counted"], 2);
    // Devin's resolved 🟡 is addressed; its 📝 info flag is not counted.
    let devin = row("devin");
    assert_eq!(devin["findings_addressed"], 1, "{devin}");
    assert_eq!(devin["precision_basis"]["counted"], 6, "{devin}");
}
