//! The files the runner reads after the step: outputs, job summary, report.

use std::fs;

use review_consensus::adapters::BotSelection;
use review_consensus::identity::{
    Ack, Correction, CorrectionKind, Lapsed, Refusal, RefusalKind, Tracked,
};
use review_consensus::model::{ConsensusLevel, Outcome};
use review_consensus::pipeline::{self, AnalysisOptions};
use review_consensus::publish::outputs::{append_step_summary, write_outputs, write_report};
use review_consensus::{local, render};
use serde_json::{json, Value};

/// Parse a GITHUB_OUTPUT file the way the runner does (name=value or name<<DELIM heredoc).
fn parse_outputs(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = text.split('\n');
    while let Some(line) = lines.next() {
        if line.is_empty() {
            continue;
        }
        let heredoc = line
            .find("<<")
            .filter(|i| line.find('=').is_none_or(|e| e > *i));
        if let Some(i) = heredoc {
            let (name, delimiter) = (&line[..i], &line[i + 2..]);
            let mut value = Vec::new();
            for next in lines.by_ref() {
                if next == delimiter {
                    break;
                }
                value.push(next);
            }
            out.push((name.to_owned(), value.join("\n")));
        } else if let Some((name, value)) = line.split_once('=') {
            out.push((name.to_owned(), value.to_owned()));
        }
    }
    out
}

#[test]
fn single_and_multi_line_values_round_trip_through_the_runner_format() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("output");
    fs::write(&path, "earlier=kept\n").expect("seed");
    let tricky = "line one\nEOF\nghadelimiter_\n<<x\nlast".to_owned();
    write_outputs(
        &path,
        &[
            ("gate", "fail".to_owned()),
            (
                "comment-url",
                "https://github.com/a/b/pull/1#issuecomment-9".to_owned(),
            ),
            ("summary", tricky.clone()),
            ("empty", String::new()),
        ],
    )
    .expect("written");
    let text = fs::read_to_string(&path).expect("read");
    assert!(
        text.starts_with("earlier=kept\ngate=fail\n"),
        "appends: {text}"
    );
    assert!(text.contains("summary<<ghadelimiter_"), "{text}");
    let parsed = parse_outputs(&text);
    let get = |name: &str| {
        parsed
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(get("earlier").as_deref(), Some("kept"));
    assert_eq!(get("gate").as_deref(), Some("fail"));
    assert_eq!(
        get("comment-url").as_deref(),
        Some("https://github.com/a/b/pull/1#issuecomment-9")
    );
    assert_eq!(get("summary"), Some(tricky));
    assert_eq!(get("empty").as_deref(), Some(""));
}

#[test]
fn delimiters_are_random() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("output");
    write_outputs(&path, &[("a", "1\n2".to_owned()), ("b", "3\n4".to_owned())]).expect("written");
    let text = fs::read_to_string(&path).expect("read");
    let delimiters: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_once("<<").map(|(_, d)| d))
        .collect();
    assert_eq!(delimiters.len(), 2);
    assert_ne!(delimiters[0], delimiters[1]);
}

#[test]
fn a_bad_output_name_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("output");
    let e = write_outputs(&path, &[("a=b", "x".to_owned())]).expect_err("refused");
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
    assert!(!path.exists(), "nothing half-written");
}

#[test]
fn the_step_summary_is_appended_with_a_final_newline() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("summary.md");
    append_step_summary(&path, "# one").expect("first");
    append_step_summary(&path, "two\n").expect("second");
    assert_eq!(fs::read_to_string(&path).expect("read"), "# one\ntwo\n");
}

#[test]
fn the_report_is_written_with_its_parent_folders() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("deep/er/report.json");
    let report = json!({"version": 1, "gate": "pass", "findings": []});
    write_report(&path, &report).expect("written");
    let back: Value =
        serde_json::from_str(&fs::read_to_string(&path).expect("read")).expect("json");
    assert_eq!(back, report);
}

/// The report as it was built before it was streamed: a `serde_json::Value` tree made with
/// `json!` (kept here, verbatim, as the reference the streamed report must equal).
fn previous_report(outcome: &Outcome) -> Value {
    fn to_json<T: serde::Serialize>(value: &T) -> Value {
        serde_json::to_value(value).unwrap_or(Value::Null)
    }
    let suppressed = outcome.suppressed().count();
    let identity = &outcome.identity;
    json!({
        "version": 1,
        "repository": outcome.repository,
        "pull_request": outcome.pull_request,
        "head_sha": outcome.head_sha,
        "bots_ran": outcome.bots_ran,
        "sources": to_json(&outcome.sources),
        // Issue 24: the bot accounts whose review comments no source read.
        "unread_bots": to_json(&outcome.unread_bots),
        "counts": {
            "confirmed": outcome.count_at(ConsensusLevel::Confirmed),
            "needs-verification": outcome.count_at(ConsensusLevel::NeedsVerification),
            "unverified": outcome.count_at(ConsensusLevel::Unverified),
            "suppressed": suppressed,
            "total": outcome.findings.len(),
            "acknowledged": outcome.acknowledged().count(),
            "new": outcome.new_findings().count(),
        },
        "findings": to_json(&outcome.findings),
        "fail_on": to_json(&outcome.fail_on),
        "fail_on_severity": to_json(&outcome.fail_on_severity),
        "required_bots": outcome.required_bots,
        "not_reviewed": outcome.not_reviewed,
        "gate": outcome.gate.as_str(),
        "changes": {
            "first_run": identity.first_run,
            "baseline": identity.baseline,
            "resolved": to_json(&identity.resolved),
            "awaiting_review": to_json(&identity.awaiting),
        },
        "acknowledgements": {
            "refused": to_json(&identity.refused),
            "lapsed": to_json(&identity.lapsed),
        },
        // Issue 18: the corrections of merges in force (`/consensus split` and `same`).
        "corrections": to_json(&identity.corrections),
        "identity_notes": to_json(&identity.notes),
    })
}

/// The fixture PRs as `render` analyses them, and the demo with every identity list filled.
fn fixture_outcomes() -> Vec<(String, Outcome)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut outcomes = Vec::new();
    for name in [
        "pr-101-three-bots",
        "pr-102-gemini-copilot",
        "pr-103-edge-cases",
    ] {
        let (snapshot, extra) = local::load_inputs(&[root.join(name)]).expect("fixture loads");
        let outcome = pipeline::analyze(
            snapshot.as_ref(),
            &BotSelection::default(),
            extra,
            &AnalysisOptions::default(),
        );
        outcomes.push((name.to_owned(), outcome));
    }
    let mut demo = review_consensus::demo::run().expect("demo").outcome;
    let tracked = |why: &str| Tracked {
        fingerprint: "rc-00000000".to_owned(),
        title: "Gone".to_owned(),
        file: "a.rs".to_owned(),
        bots: vec!["coderabbit".to_owned()],
        why: why.to_owned(),
        acknowledged: None,
    };
    let ack = Ack {
        by: "alice".to_owned(),
        reason: "accepted risk until the rewrite".to_owned(),
        until: Some("2026-01-31".to_owned()),
        comment_url: None,
        comment_id: 9,
    };
    demo.identity.baseline = Some("0123456789".to_owned());
    demo.identity.resolved = vec![tracked("fixed")];
    demo.identity.awaiting = vec![tracked("awaiting coderabbit")];
    demo.identity.refused = vec![Refusal {
        comment_url: Some("https://github.com/a/b/pull/1#issuecomment-2".to_owned()),
        ..Refusal::new(
            RefusalKind::BadReason,
            "a bare label".to_owned(),
            "mallory",
            "/consensus ack rc-00000000 wontfix",
        )
    }];
    demo.identity.lapsed = vec![Lapsed {
        fingerprint: "rc-11111111".to_owned(),
        ack,
    }];
    demo.identity.corrections = vec![Correction {
        kind: CorrectionKind::Split,
        fingerprints: vec!["rc-22222222".to_owned()],
        by: "alice".to_owned(),
        comment_url: Some("https://github.com/a/b/pull/1#issuecomment-3".to_owned()),
        comment_id: 3,
        findings: vec!["rc-22222222".to_owned(), "rc-33333333".to_owned()],
        applied: true,
        note: None,
    }];
    demo.identity.notes = vec!["a note".to_owned()];
    outcomes.push(("demo".to_owned(), demo));
    outcomes
}

/// Issue 14: the report is serialised straight to the file from the typed outcome; its
/// content is exactly what the `Value`-built report held (CONTRACT section 7).
#[test]
fn the_streamed_report_holds_what_the_built_one_did() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, outcome) in fixture_outcomes() {
        assert!(!outcome.findings.is_empty(), "{name}");
        let path = dir.path().join(format!("{name}.json"));
        write_report(&path, &render::render_report(&outcome)).expect("written");
        let text = fs::read_to_string(&path).expect("read");
        assert!(text.starts_with("{\n  \"version\": 1,"), "pretty: {name}");
        assert!(text.ends_with("}\n"), "{name}");
        let streamed: Value = serde_json::from_str(&text).expect("json");
        assert_eq!(streamed, previous_report(&outcome), "{name}");
    }
}
