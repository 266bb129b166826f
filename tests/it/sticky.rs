//! The sticky comment against the fake GitHub (CONTRACT section 5).

use review_consensus::api::IssueComment;
use review_consensus::github::comment::{upsert_sticky, StickyAction};
use review_consensus::render::markdown::MARKER;
use serde_json::{json, Value};
use wiremock::ResponseTemplate;

use crate::support::{client, read_only, target, FakeBuilder, PrData};

fn body(text: &str) -> String {
    format!("{MARKER}\n{text}")
}

fn marked(fake_comments: &[Value]) -> Vec<(u64, String, String)> {
    fake_comments
        .iter()
        .filter(|c| c["body"].as_str().unwrap_or("").contains(MARKER))
        .map(|c| {
            (
                c["id"].as_u64().unwrap(),
                c["user"]["login"].as_str().unwrap_or("").to_owned(),
                c["body"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

fn comment(id: u64, login: &str, body: &str) -> Value {
    json!({"id": id, "user": {"login": login, "id": 9, "type": "Bot"}, "body": body,
           "html_url": format!("https://github.com/acme/payments-api/pull/101#issuecomment-{id}")})
}

#[tokio::test]
async fn first_run_creates_and_second_run_edits_in_place() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone()).start().await;
    let gh = client(&fake);
    let first = upsert_sticky(&gh, &target(&data), MARKER, &body("one"), None)
        .await
        .unwrap();
    assert_eq!(first.action, StickyAction::Created);
    assert!(first
        .html_url
        .contains(&format!("issuecomment-{}", first.id)));

    let second = upsert_sticky(&gh, &target(&data), MARKER, &body("two"), None)
        .await
        .unwrap();
    assert_eq!(second.action, StickyAction::Updated);
    assert_eq!(second.id, first.id);
    let ours = marked(&fake.comments());
    assert_eq!(ours.len(), 1);
    assert_eq!(ours[0].2, body("two"));
    assert_eq!(
        fake.count("POST /repos/acme/payments-api/issues/101/comments"),
        1
    );
    assert_eq!(
        fake.count("PATCH /repos/acme/payments-api/issues/comments/"),
        1
    );
    assert!(fake.state().unexpected.is_empty());
}

#[tokio::test]
async fn an_unchanged_body_is_not_written() {
    let mut data = PrData::fixture("pr-101-three-bots");
    data.issue_comments.push(comment(
        5000,
        "github-actions[bot]",
        &body("same\r\n").replace('\n', "\r\n"),
    ));
    let fake = FakeBuilder::new(data.clone()).start().await;
    let sticky = upsert_sticky(&client(&fake), &target(&data), MARKER, &body("same"), None)
        .await
        .unwrap();
    assert_eq!(sticky.action, StickyAction::Unchanged);
    assert_eq!(sticky.id, 5000);
    assert_eq!(fake.count("PATCH"), 0);
    assert_eq!(fake.count("POST /repos"), 0);
}

#[tokio::test]
async fn two_stale_stickies_converge_to_the_oldest() {
    let mut data = PrData::fixture("pr-101-three-bots");
    data.issue_comments
        .push(comment(7002, "github-actions[bot]", &body("stale b")));
    data.issue_comments
        .push(comment(7001, "github-actions[bot]", &body("stale a")));
    let fake = FakeBuilder::new(data.clone()).start().await;
    let sticky = upsert_sticky(&client(&fake), &target(&data), MARKER, &body("fresh"), None)
        .await
        .unwrap();
    assert_eq!(sticky.id, 7001);
    assert_eq!(sticky.deleted, vec![7002]);
    let ours = marked(&fake.comments());
    assert_eq!(
        ours,
        vec![(7001, "github-actions[bot]".to_owned(), body("fresh"))]
    );
    assert_eq!(
        fake.count("DELETE /repos/acme/payments-api/issues/comments/7002"),
        1
    );
}

#[tokio::test]
async fn a_human_comment_with_the_marker_is_untouched() {
    let mut data = PrData::fixture("pr-101-three-bots");
    let quoted = body("I copied the bot's comment here");
    data.issue_comments
        .push(comment(4000, "dana-ortiz", &quoted));
    let fake = FakeBuilder::new(data.clone()).start().await;
    let gh = client(&fake);
    let sticky = upsert_sticky(&gh, &target(&data), MARKER, &body("ours"), None)
        .await
        .unwrap();
    assert_eq!(sticky.action, StickyAction::Created);
    assert_ne!(sticky.id, 4000);
    let again = upsert_sticky(&gh, &target(&data), MARKER, &body("ours 2"), None)
        .await
        .unwrap();
    assert_eq!(again.id, sticky.id);
    let all = marked(&fake.comments());
    assert!(all.contains(&(4000, "dana-ortiz".to_owned(), quoted)));
    assert_eq!(all.len(), 2);
    assert_eq!(fake.count("DELETE"), 0);
    assert_eq!(
        fake.count("PATCH /repos/acme/payments-api/issues/comments/4000"),
        0
    );
}

#[tokio::test]
async fn a_comment_by_another_bot_with_our_marker_is_untouched() {
    let mut data = PrData::fixture("pr-101-three-bots");
    data.issue_comments
        .push(comment(4100, "coderabbitai[bot]", &body("imitation")));
    let fake = FakeBuilder::new(data.clone()).start().await;
    let sticky = upsert_sticky(&client(&fake), &target(&data), MARKER, &body("ours"), None)
        .await
        .unwrap();
    assert_ne!(sticky.id, 4100);
    assert_eq!(fake.count("DELETE"), 0);
}

#[tokio::test]
async fn the_viewer_falls_back_to_github_actions_and_compares_without_bot() {
    let mut data = PrData::fixture("pr-101-three-bots");
    // REST says `github-actions[bot]`; GraphQL fails, so the fallback identity is used.
    data.issue_comments
        .push(comment(6000, "github-actions[bot]", &body("old")));
    let fake = FakeBuilder::new(data.clone()).viewer(None).start().await;
    let sticky = upsert_sticky(&client(&fake), &target(&data), MARKER, &body("new"), None)
        .await
        .unwrap();
    assert_eq!((sticky.id, sticky.action), (6000, StickyAction::Updated));

    // GraphQL's viewer login without the suffix still matches the REST author.
    let fake = FakeBuilder::new(data.clone())
        .viewer(Some("github-actions"))
        .start()
        .await;
    let sticky = upsert_sticky(&client(&fake), &target(&data), MARKER, &body("new"), None)
        .await
        .unwrap();
    assert_eq!(sticky.id, 6000);
}

#[tokio::test]
async fn headers_keep_separate_stickies() {
    let mut data = PrData::fixture("pr-101-three-bots");
    data.issue_comments
        .push(comment(6100, "github-actions[bot]", &body("default")));
    let fake = FakeBuilder::new(data.clone()).start().await;
    let headed = "<!-- review-bot-ack:api -->";
    let sticky = upsert_sticky(
        &client(&fake),
        &target(&data),
        headed,
        &format!("{headed}\nx"),
        None,
    )
    .await
    .unwrap();
    assert_eq!(sticky.action, StickyAction::Created);
    assert_eq!(fake.count("PATCH"), 0);
    assert_eq!(fake.count("DELETE"), 0);
}

#[tokio::test]
async fn a_403_on_create_is_recognised_as_read_only() {
    let data = PrData::fixture("pr-101-three-bots");
    let forbidden = read_only();
    let fake = FakeBuilder::new(data.clone())
        .fault(
            "POST",
            "/repos/acme/payments-api/issues/101/comments",
            forbidden,
            5,
        )
        .start()
        .await;
    let err = upsert_sticky(&client(&fake), &target(&data), MARKER, &body("x"), None)
        .await
        .unwrap_err();
    assert!(err.is_read_only(), "{err}");
    assert_eq!(
        fake.count("POST /repos/acme/payments-api/issues/101/comments"),
        1,
        "no retry"
    );
}

#[tokio::test]
async fn a_502_on_create_lists_before_posting_again() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone())
        .fault(
            "POST",
            "/repos/acme/payments-api/issues/101/comments",
            ResponseTemplate::new(502),
            1,
        )
        .start()
        .await;
    let sticky = upsert_sticky(&client(&fake), &target(&data), MARKER, &body("x"), None)
        .await
        .unwrap();
    assert_eq!(sticky.action, StickyAction::Created);
    let between = fake.between_the_two("POST /repos/acme/payments-api/issues/101/comments");
    assert!(between
        .iter()
        .any(|r| r.starts_with("GET /repos/acme/payments-api/issues/101/comments")));
    assert_eq!(marked(&fake.comments()).len(), 1);
}

#[tokio::test]
async fn a_sticky_deleted_since_the_listing_is_posted_again() {
    let data = PrData::fixture("pr-101-three-bots");
    let fake = FakeBuilder::new(data.clone()).start().await;
    // The caller's list still has comment 8000, which no longer exists on the server.
    let stale: Vec<IssueComment> = vec![serde_json::from_value(json!({
        "id": 8000, "user": {"login": "github-actions[bot]", "type": "Bot"},
        "body": body("old"),
    }))
    .unwrap()];
    let sticky = upsert_sticky(
        &client(&fake),
        &target(&data),
        MARKER,
        &body("new"),
        Some(&stale),
    )
    .await
    .unwrap();
    assert_eq!(sticky.action, StickyAction::Created);
    assert_ne!(sticky.id, 8000);
    assert_eq!(marked(&fake.comments()).len(), 1);
    assert_eq!(
        fake.count("PATCH /repos/acme/payments-api/issues/comments/8000"),
        1
    );
}

#[tokio::test]
async fn a_personal_token_never_claims_the_same_named_apps_comment() {
    // The token is user `foo`'s (a PAT); the app `foo[bot]` left a comment with our marker.
    let mut data = PrData::fixture("pr-101-three-bots");
    data.issue_comments
        .push(comment(4200, "foo[bot]", &body("the app's")));
    let fake = FakeBuilder::new(data.clone())
        .user_viewer("foo")
        .start()
        .await;
    let gh = client(&fake);
    let sticky = upsert_sticky(&gh, &target(&data), MARKER, &body("ours"), None)
        .await
        .unwrap();
    assert_eq!(sticky.action, StickyAction::Created);
    assert_ne!(sticky.id, 4200);
    // The next run finds its own (`foo`, type User) and edits that one only.
    let again = upsert_sticky(&gh, &target(&data), MARKER, &body("ours 2"), None)
        .await
        .unwrap();
    assert_eq!((again.id, again.action), (sticky.id, StickyAction::Updated));
    let all = marked(&fake.comments());
    assert!(all.contains(&(4200, "foo[bot]".to_owned(), body("the app's"))));
    assert!(all.contains(&(sticky.id, "foo".to_owned(), body("ours 2"))));
    assert_eq!(all.len(), 2);
    assert_eq!(fake.count("DELETE"), 0);
    assert_eq!(
        fake.count("PATCH /repos/acme/payments-api/issues/comments/4200"),
        0
    );
}

#[tokio::test]
async fn an_app_token_never_claims_the_same_named_users_comment() {
    // The reverse: the token is the app `foo[bot]`; user `foo` pasted our marker.
    let mut data = PrData::fixture("pr-101-three-bots");
    let mut person = comment(4300, "foo", &body("a person's"));
    person["user"]["type"] = json!("User");
    data.issue_comments.push(person);
    let fake = FakeBuilder::new(data.clone())
        .viewer(Some("foo"))
        .start()
        .await;
    let sticky = upsert_sticky(&client(&fake), &target(&data), MARKER, &body("ours"), None)
        .await
        .unwrap();
    assert_eq!(sticky.action, StickyAction::Created);
    assert_ne!(sticky.id, 4300);
    assert_eq!(fake.count("PATCH"), 0);
    assert_eq!(fake.count("DELETE"), 0);
}
