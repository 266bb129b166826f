//! The check run: head SHA, conclusion, annotations 50 per request.

use review_consensus::github::checks::{publish_check_run, CheckRunSpec};
use serde_json::json;

use crate::support::{client, read_only, target, FakeBuilder, PrData};

fn annotations(n: usize) -> Vec<serde_json::Value> {
    (0..n)
        .map(|i| {
            json!({"path": "src/a.rs", "start_line": i + 1, "end_line": i + 1,
                        "annotation_level": "failure", "message": format!("finding {i}")})
        })
        .collect()
}

fn spec(n: usize) -> CheckRunSpec<'static> {
    CheckRunSpec {
        name: "review-consensus",
        head_sha: "8c1f0d3b6a2e4f57c9d1a0b3e6f7c8d9a1b2c3d4",
        conclusion: "failure",
        title: "t",
        summary: "s",
        annotations: annotations(n),
    }
}

#[tokio::test]
async fn annotations_go_fifty_per_request() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone()).start().await;
    let run = publish_check_run(&client(&fake), &target(&data), spec(120))
        .await
        .unwrap();
    assert_eq!(run.requests, 3);
    let state = fake.state();
    let writes: Vec<(String, usize)> = state.check_writes.clone();
    assert_eq!(
        writes,
        vec![
            ("POST".into(), 50),
            ("PATCH".into(), 50),
            ("PATCH".into(), 20)
        ]
    );
    let created = &state.check_runs[0];
    assert_eq!(
        created["head_sha"],
        "8c1f0d3b6a2e4f57c9d1a0b3e6f7c8d9a1b2c3d4"
    );
    assert_eq!(created["conclusion"], "failure");
    assert_eq!(created["status"], "completed");
    assert!(state.unexpected.is_empty());
}

#[tokio::test]
async fn few_annotations_need_one_request() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone()).start().await;
    let run = publish_check_run(&client(&fake), &target(&data), spec(0))
        .await
        .unwrap();
    assert_eq!(run.requests, 1);
    assert_eq!(fake.state().check_writes, vec![("POST".to_owned(), 0)]);
}

#[tokio::test]
async fn missing_checks_write_is_a_403() {
    let data = PrData::fixture("pr-101-three-bots");
    let forbidden = read_only();
    let fake = FakeBuilder::new(data.clone())
        .fault("POST", "/repos/acme/payments-api/check-runs", forbidden, 1)
        .start()
        .await;
    let err = publish_check_run(&client(&fake), &target(&data), spec(3))
        .await
        .unwrap_err();
    assert!(err.is_forbidden());
    assert!(err
        .to_string()
        .contains("POST /repos/acme/payments-api/check-runs"));
}

#[tokio::test]
async fn consecutive_writes_are_spaced_apart() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone()).start().await;
    let spacing = std::time::Duration::from_millis(150);
    let gh = client(&fake).with_write_spacing(spacing);
    let started = std::time::Instant::now();
    let run = publish_check_run(&gh, &target(&data), spec(120))
        .await
        .unwrap();
    assert_eq!(run.requests, 3);
    // Three writes, two pauses; the first write does not wait.
    let elapsed = started.elapsed();
    assert!(elapsed >= spacing * 2, "took {elapsed:?}");
}
