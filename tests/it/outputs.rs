//! The files the runner reads after the step: outputs, job summary, report.

use std::fs;

use review_consensus::model::{FailOn, Gate, Outcome};
use review_consensus::publish::outputs::{
    action_outputs, append_step_summary, write_outputs, write_report,
};
use serde_json::json;

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
    let back: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).expect("read")).expect("json");
    assert_eq!(back, report);
}

#[test]
fn action_outputs_cover_the_contract_names() {
    let outcome = Outcome {
        repository: "acme/api".to_owned(),
        pull_request: Some(3),
        head_sha: None,
        bots_ran: 4,
        sources: Vec::new(),
        findings: Vec::new(),
        fail_on: FailOn::Confirmed,
        gate: Gate::Pass,
    };
    let report = std::path::Path::new("/tmp/r.json");
    let outputs = action_outputs(&outcome, Some((77, "https://x/c/77")), report);
    let names: Vec<_> = outputs.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names,
        [
            "confirmed",
            "needs-verification",
            "unverified",
            "suppressed",
            "total",
            "bots-ran",
            "gate",
            "comment-id",
            "comment-url",
            "report"
        ]
    );
    let get = |name: &str| {
        outputs
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(get("bots-ran"), Some("4"));
    assert_eq!(get("gate"), Some("pass"));
    assert_eq!(get("total"), Some("0"));
    assert_eq!(get("comment-id"), Some("77"));
    assert_eq!(get("report"), Some("/tmp/r.json"));
    let without = action_outputs(&outcome, None, report);
    assert_eq!(without[7], ("comment-id", String::new()));
}
