//! Fetching a PR against the fake GitHub: pagination, retries, GHES paths, optional sources.

use std::time::{Duration, Instant};

use review_consensus::api::CodeScanning;
use review_consensus::github::{fetch_snapshot, GitHub, GitHubError, RetryPolicy};
use serde_json::json;
use wiremock::ResponseTemplate;

use crate::support::{client, target, FakeBuilder, PrData};

#[tokio::test]
async fn fetches_a_fixture_pr_with_every_source() {
    let data = PrData::fixture("pr-103-edge-cases");
    let fake = FakeBuilder::new(data.clone()).start().await;
    let snap = fetch_snapshot(&client(&fake), &target(&data))
        .await
        .unwrap();
    assert_eq!(snap.repository, "acme/payments-api");
    assert_eq!(snap.head_sha(), "e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6");
    // 21 review comments; the fixture's malformed one still parses as a shape (no path).
    assert_eq!(snap.review_comments.len() + snap.unreadable.len(), 21);
    assert_eq!(snap.reviews.len(), 14);
    assert_eq!(snap.issue_comments.len(), 3);
    assert!(matches!(snap.code_scanning, CodeScanning::Alerts(ref a) if !a.is_empty()));
    let threads = snap.review_threads.expect("thread state");
    assert_eq!(threads.len(), data.threads.len());
    assert!(threads.iter().any(|t| t.is_resolved));
    assert!(
        fake.state().unexpected.is_empty(),
        "{:?}",
        fake.state().unexpected
    );
    // Every list asked for 100 per page.
    let state = fake.state();
    for r in state
        .requests
        .iter()
        .filter(|r| r.contains("/comments") || r.contains("/reviews"))
    {
        assert!(r.contains("per_page=100"), "{r}");
    }
    assert!(state
        .requests
        .iter()
        .any(|r| r.contains("ref=refs/pull/103/merge")));
}

#[tokio::test]
async fn follows_link_headers_over_three_pages() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone()).page_size(6).start().await;
    let snap = fetch_snapshot(&client(&fake), &target(&data))
        .await
        .unwrap();
    assert_eq!(snap.review_comments.len(), 15);
    let ids: Vec<u64> = snap.review_comments.iter().map(|c| c.id).collect();
    let expected: Vec<u64> = data
        .review_comments
        .iter()
        .map(|c| c["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, expected, "all pages, in order");
    assert_eq!(
        fake.count("GET /repos/acme/payments-api/pulls/101/comments"),
        3
    );
    assert!(fake.state().unexpected.is_empty());
}

#[tokio::test]
async fn a_502_on_a_list_is_retried() {
    let data = PrData::fixture("pr-101-three-bots");
    let list = "/repos/acme/payments-api/pulls/101/reviews";
    let fake = FakeBuilder::new(data.clone())
        .fault(
            "GET",
            list,
            ResponseTemplate::new(502).set_body_string("Bad Gateway"),
            1,
        )
        .start()
        .await;
    let snap = fetch_snapshot(&client(&fake), &target(&data))
        .await
        .unwrap();
    assert_eq!(snap.reviews.len(), 4);
    assert_eq!(fake.count(&format!("GET {list}")), 2);
}

#[tokio::test]
async fn a_secondary_rate_limit_waits_for_retry_after() {
    let data = PrData::fixture("pr-102-gemini-copilot");
    let list = "/repos/acme/payments-api/issues/102/comments";
    let limited = ResponseTemplate::new(403)
        .insert_header("retry-after", "1")
        .set_body_json(json!({"message": "You have exceeded a secondary rate limit."}));
    let fake = FakeBuilder::new(data.clone())
        .fault("GET", list, limited, 1)
        .start()
        .await;
    let gh = client(&fake).with_retry(RetryPolicy {
        max_attempts: 3,
        base_delay: Duration::from_millis(1),
        max_wait: Duration::from_secs(5),
    });
    let started = Instant::now();
    let snap = fetch_snapshot(&gh, &target(&data)).await.unwrap();
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "retry-after honoured"
    );
    assert_eq!(snap.issue_comments.len(), 4);
    assert_eq!(fake.count(&format!("GET {list}")), 2);
}

#[tokio::test]
async fn a_list_failing_every_time_names_the_endpoint() {
    let data = PrData::fixture("pr-101-three-bots");
    let list = "/repos/acme/payments-api/pulls/101/comments";
    let fake = FakeBuilder::new(data.clone())
        .fault("GET", list, ResponseTemplate::new(503), 10)
        .start()
        .await;
    let err = fetch_snapshot(&client(&fake), &target(&data))
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(503));
    assert!(err.to_string().contains(&format!("GET {list}")), "{err}");
    assert_eq!(fake.count(&format!("GET {list}")), 4, "max attempts");
}

#[tokio::test]
async fn ghes_paths_put_graphql_at_api_graphql() {
    let data = PrData::fixture("pr-103-edge-cases");
    let fake = FakeBuilder::new(data.clone()).ghes().start().await;
    assert!(fake.api_url.ends_with("/api/v3") && fake.graphql_url.ends_with("/api/graphql"));
    let snap = fetch_snapshot(&client(&fake), &target(&data))
        .await
        .unwrap();
    assert!(snap.review_threads.is_some());
    let state = fake.state();
    assert!(state.unexpected.is_empty(), "{:?}", state.unexpected);
    assert!(state.requests.iter().any(|r| r == "POST /api/graphql"));
    assert!(state.requests.iter().any(|r| r
        .starts_with("GET /api/v3/repos/acme/payments-api/pulls/103?")
        || r == "GET /api/v3/repos/acme/payments-api/pulls/103"));
}

#[tokio::test]
async fn thread_state_is_paged_and_its_failure_is_not_fatal() {
    let data = PrData::fixture("pr-103-edge-cases");
    let paged = FakeBuilder::new(data.clone())
        .thread_page_size(5)
        .start()
        .await;
    let snap = fetch_snapshot(&client(&paged), &target(&data))
        .await
        .unwrap();
    assert_eq!(snap.review_threads.unwrap().len(), data.threads.len());
    assert_eq!(paged.count("POST /graphql"), data.threads.len().div_ceil(5));

    let failing = FakeBuilder::new(data.clone()).threads_fail().start().await;
    let snap = fetch_snapshot(&client(&failing), &target(&data))
        .await
        .unwrap();
    assert!(snap.review_threads.is_none());
    assert_eq!(snap.reviews.len(), 14);
}

#[tokio::test]
async fn code_scanning_not_enabled_is_an_absent_source() {
    let data = PrData::fixture("pr-102-gemini-copilot");
    let fake = FakeBuilder::new(data.clone()).start().await;
    let snap = fetch_snapshot(&client(&fake), &target(&data))
        .await
        .unwrap();
    assert!(
        matches!(snap.code_scanning, CodeScanning::Unavailable(ref why) if why.contains("404"))
    );
}

#[tokio::test]
async fn bad_objects_are_reported_not_fatal() {
    let mut data = PrData::fixture("pr-102-gemini-copilot");
    data.reviews
        .push(json!({"id": 77, "user": {"login": "x[bot]"}, "body": 12}));
    let fake = FakeBuilder::new(data.clone()).start().await;
    let snap = fetch_snapshot(&client(&fake), &target(&data))
        .await
        .unwrap();
    assert_eq!(snap.reviews.len(), 2);
    assert_eq!(snap.unreadable.len(), 1);
    assert_eq!(snap.unreadable[0].surface, "reviews");
    assert_eq!(snap.unreadable[0].id, Some(77));
}

/// Issue 19: the live path reads a page element by element too, so one element nested
/// deeper than the JSON reader's limit is reported, not the whole run's failure.
#[tokio::test]
async fn issue_19_an_element_nested_too_deep_loses_only_itself() {
    let mut data = PrData::fixture("pr-101-three-bots");
    let before = data.review_comments.len();
    let mut deep = json!(1);
    for _ in 0..1_000 {
        deep = json!({ "a": deep });
    }
    data.review_comments.insert(
        1,
        json!({"id": 2502140099u64, "user": {"login": "coderabbitai[bot]"}, "body": "x", "meta": deep}),
    );
    let fake = FakeBuilder::new(data.clone()).start().await;
    let snap = fetch_snapshot(&client(&fake), &target(&data))
        .await
        .expect("the page is read");
    assert_eq!(snap.review_comments.len(), before, "the others are kept");
    let lost: Vec<_> = snap
        .unreadable
        .iter()
        .map(|u| (u.surface.as_str(), u.id, u.login.as_deref()))
        .collect();
    assert_eq!(
        lost,
        [(
            "review_comments",
            Some(2502140099),
            Some("coderabbitai[bot]")
        )]
    );
    assert!(snap.unreadable[0].reason.contains("128 levels"));
}

#[tokio::test]
async fn links_to_another_host_are_not_followed() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone()).page_size(6).start().await;
    // A client whose REST base is a different origin than the Link URLs the fake emits.
    let other = fake.api_url.replace("127.0.0.1", "localhost");
    let gh = GitHub::new(&other, &fake.graphql_url, None).unwrap();
    let err = fetch_snapshot(&gh, &target(&data)).await.unwrap_err();
    assert!(err.to_string().contains("another host"), "{err}");
}

#[tokio::test]
async fn a_graphql_rate_limit_in_a_200_is_retried() {
    let data = PrData::fixture("pr-103-edge-cases");
    let limited = ResponseTemplate::new(200).set_body_json(json!({
        "errors": [{"type": "RATE_LIMITED", "message": "API rate limit exceeded for installation."}]
    }));
    let fake = FakeBuilder::new(data.clone())
        .fault("POST", "/graphql", limited, 1)
        .start()
        .await;
    let snap = fetch_snapshot(&client(&fake), &target(&data))
        .await
        .unwrap();
    assert_eq!(snap.review_threads.unwrap().len(), data.threads.len());
    assert_eq!(fake.count("POST /graphql"), 2);
}

#[tokio::test]
async fn other_graphql_errors_are_not_retried() {
    let data = PrData::fixture("pr-103-edge-cases");
    let fake = FakeBuilder::new(data.clone()).threads_fail().start().await;
    let snap = fetch_snapshot(&client(&fake), &target(&data))
        .await
        .unwrap();
    assert!(snap.review_threads.is_none());
    assert_eq!(fake.count("POST /graphql"), 1);
}

#[tokio::test]
async fn an_unreachable_api_is_an_error_naming_the_endpoint() {
    let data = PrData::fixture("pr-101-three-bots");
    // Port 9 (discard) is closed on 127.0.0.1: connection refused, retried, then reported.
    let gh = GitHub::new("http://127.0.0.1:9", "http://127.0.0.1:9/graphql", None)
        .unwrap()
        .with_retry(crate::support::fast_retry());
    let err = fetch_snapshot(&gh, &target(&data)).await.unwrap_err();
    let text = err.to_string();
    assert!(text.starts_with("GET /repos/acme/payments-api/"), "{text}");
    assert_eq!(err.status(), None);
}

#[test]
fn a_bad_api_url_is_a_setup_error_naming_it() {
    let err = GitHub::new("not a url", "https://api.github.com/graphql", None).unwrap_err();
    assert!(err.to_string().contains("not a url"), "{err}");
}

/// Every comment id of the fixture's threads, as the REST ids they are.
fn thread_ids(threads: &[review_consensus::api::ReviewThread]) -> Vec<Option<u64>> {
    threads
        .iter()
        .flat_map(|t| t.comments.nodes.iter().map(|c| c.database_id))
        .collect()
}

#[tokio::test]
async fn the_fake_fails_database_id_above_2_31_as_github_does_and_thread_state_uses_full_ids() {
    let data = PrData::fixture("pr-103-edge-cases");
    let fake = FakeBuilder::new(data.clone()).start().await;
    let gh = client(&fake);
    // The query this program sent before: GitHub nulls each id above 2^31 with a field error.
    let old = "query($owner: String!, $name: String!, $number: Int!) { repository(owner: $owner, name: $name) { pullRequest(number: $number) { reviewThreads(first: 100) { nodes { id isResolved comments(first: 100) { nodes { databaseId } } } } } } }";
    let answer = gh
        .graphql(
            old,
            json!({"owner": "acme", "name": "payments-api", "number": 103}),
        )
        .await
        .unwrap();
    let comments = data
        .threads
        .iter()
        .map(|t| t["comments"]["nodes"].as_array().unwrap().len())
        .sum::<usize>();
    assert_eq!(answer.errors.len(), comments, "every real id is above 2^31");
    assert!(answer.errors[0]
        .message
        .starts_with("Integer out of bounds: 2561200101"));
    assert_eq!(
        answer
            .data
            .pointer("/repository/pullRequest/reviewThreads/nodes/0/comments/nodes/0/databaseId"),
        Some(&serde_json::Value::Null)
    );

    let snap = fetch_snapshot(&gh, &target(&data)).await.unwrap();
    let threads = snap.review_threads.expect("thread state");
    assert!(snap.unreadable.is_empty(), "{:?}", snap.unreadable);
    let ids = thread_ids(&threads);
    assert_eq!(ids.len(), comments);
    assert!(
        ids.iter()
            .all(|id| id.is_some_and(|id| id > i32::MAX as u64)),
        "{ids:?}"
    );
    let sent = fake.server.received_requests().await.unwrap_or_default();
    // The program's own queries (after the test's) never ask for the 32-bit id.
    assert!(sent
        .iter()
        .skip(1)
        .all(|r| !String::from_utf8_lossy(&r.body).contains(" databaseId ")));
}

#[tokio::test]
async fn a_threads_nested_comments_are_paged_too() {
    let data = PrData::fixture("pr-103-edge-cases");
    let fake = FakeBuilder::new(data.clone())
        .comment_page_size(1)
        .start()
        .await;
    let snap = fetch_snapshot(&client(&fake), &target(&data))
        .await
        .unwrap();
    let threads = snap.review_threads.expect("thread state");
    let long = threads
        .iter()
        .find(|t| t.id == "PRRT_kwDOKtL9Nc125ZHXHuc2YL")
        .expect("the E6a thread");
    let ids: Vec<Option<u64>> = long.comments.nodes.iter().map(|c| c.database_id).collect();
    assert_eq!(ids, [Some(2561210411), Some(2561262002), Some(2561263330)]);
    // Two threads of three comments: two further pages each.
    assert_eq!(
        fake.count("POST /graphql"),
        1 + 4,
        "{:?}",
        fake.state().requests
    );
}

#[tokio::test]
async fn a_partial_graphql_answer_keeps_what_it_has_and_names_what_it_lost() {
    let data = PrData::fixture("pr-103-edge-cases");
    let mut nodes: Vec<serde_json::Value> = data.threads.clone();
    nodes[1] = serde_json::Value::Null;
    for node in &mut nodes {
        if let Some(comments) = node
            .pointer_mut("/comments/nodes")
            .and_then(|n| n.as_array_mut())
        {
            for c in comments {
                *c = json!({"fullDatabaseId": c["databaseId"].to_string()});
            }
        }
    }
    let partial = ResponseTemplate::new(200).set_body_json(json!({
        "data": {"repository": {"pullRequest": {"reviewThreads": {
            "pageInfo": {"hasNextPage": false, "endCursor": null}, "nodes": nodes}}}},
        "errors": [{"message": "Something went wrong while executing your query.",
                    "path": ["repository", "pullRequest", "reviewThreads", "nodes", 1]}]
    }));
    let fake = FakeBuilder::new(data.clone())
        .fault("POST", "/graphql", partial, 1)
        .start()
        .await;
    let snap = fetch_snapshot(&client(&fake), &target(&data))
        .await
        .unwrap();
    let threads = snap.review_threads.expect("kept");
    assert_eq!(threads.len(), data.threads.len() - 1);
    let lost: Vec<&str> = snap.unreadable.iter().map(|u| u.reason.as_str()).collect();
    assert_eq!(lost.len(), 1, "{lost:?}");
    assert!(
        lost[0].starts_with("thread 2 (repository.pullRequest.reviewThreads.nodes.1)"),
        "{lost:?}"
    );
    assert!(lost[0].contains("Something went wrong"));
}

#[tokio::test]
async fn a_link_that_loops_back_is_an_error_not_a_partial_list() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone())
        .page_size(6)
        .link_loop()
        .start()
        .await;
    let err = fetch_snapshot(&client(&fake), &target(&data))
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, GitHubError::Incomplete { .. }), "{text}");
    assert!(text.contains("page already read"), "{text}");
    assert!(fake.count("GET /repos/acme/payments-api/pulls/101/comments") <= 4);
}

#[tokio::test]
async fn items_repeated_across_pages_are_kept_once() {
    let mut data = PrData::fixture("pr-101-three-bots");
    let first = data.review_comments[0].clone();
    // A comment added while paging shifts the pages: the same item shows up twice.
    data.review_comments.insert(7, first.clone());
    let fake = FakeBuilder::new(data.clone()).page_size(6).start().await;
    let snap = fetch_snapshot(&client(&fake), &target(&data))
        .await
        .unwrap();
    assert_eq!(snap.review_comments.len(), 15);
    let id = first["id"].as_u64().unwrap();
    assert_eq!(
        snap.review_comments.iter().filter(|c| c.id == id).count(),
        1
    );
}

#[tokio::test]
async fn a_list_longer_than_the_hard_limit_fails_closed() {
    let mut data = PrData::empty("acme", "flood", 9, &"a".repeat(40));
    let pages = review_consensus::github::fetch::MAX_PAGES + 1;
    data.issue_comments = (0..pages as u64)
        .map(|id| json!({"id": id + 1, "user": {"login": "spam", "type": "User"}, "body": "+1"}))
        .collect();
    let fake = FakeBuilder::new(data.clone()).page_size(1).start().await;
    let err = fetch_snapshot(&client(&fake), &target(&data))
        .await
        .unwrap_err();
    assert!(matches!(err, GitHubError::Incomplete { .. }), "{err}");
    assert!(err.to_string().contains("more than 1000 pages"), "{err}");
}
