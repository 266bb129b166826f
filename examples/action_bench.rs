//! Benchmark of one action run against a local fake GitHub: a PR with 600 bot comments from
//! 5 bots over 80 files. Prints wall time, HTTP requests by kind and the child's peak RSS.
//!
//! ```text
//! cargo build --release && cargo run --release --example action_bench
//! ```
//!
//! Flags: `--bin PATH` (default `target/release/review-consensus`), `--runs N` (default 3;
//! the first run creates the sticky comment, later ones edit or skip it), `--check-name NAME`
//! (default `review-consensus`; empty = no check run). Peak RSS comes from `/usr/bin/time -v`
//! when present, else from polling `VmHWM` in `/proc/<pid>/status`.
//! Targets: < 0.5 s wall, < 30 MB peak RSS, no request beyond the listing pages, the thread
//! query, the viewer query, one comment write and the check-run calls.
// An edge module: the environment, files and the clock are its job.
#![allow(clippy::disallowed_methods)]

#[allow(dead_code)]
#[path = "../tests/it/support/fake.rs"]
mod fake;
#[path = "../benches/support/measure.rs"]
mod measure;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use clap::Parser;
use serde_json::{json, Value};

#[derive(Parser)]
struct Args {
    #[arg(long, default_value = "target/release/review-consensus")]
    bin: PathBuf,
    #[arg(long, default_value_t = 3)]
    runs: usize,
    #[arg(long, default_value = "review-consensus")]
    check_name: String,
}

const BOTS: [&str; 5] = [
    "coderabbitai[bot]",
    "sourcery-ai[bot]",
    "gemini-code-assist[bot]",
    "Copilot",
    "github-advanced-security[bot]",
];
const COMMENTS: usize = 600;
const FILES: usize = 80;
const HEAD: &str = "1234567890abcdef1234567890abcdef12345678";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), String> {
    let args = Args::parse();
    measure::check_built(&args.bin)?;
    let data = synthetic_pr()?;
    let work = std::env::temp_dir().join(format!("action-bench-{}", std::process::id()));
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    let server = fake::FakeBuilder::new(data.clone()).start().await;
    let event = work.join("event.json");
    let event_json = json!({"pull_request": data.pull, "number": data.number});
    std::fs::write(&event, event_json.to_string()).map_err(|e| e.to_string())?;

    let mut out = std::io::stdout().lock();
    let say = |out: &mut std::io::StdoutLock<'_>, text: String| {
        let _ = writeln!(out, "{text}");
    };
    say(
        &mut out,
        format!(
            "PR: {} review comments from {} bots over {FILES} files, {} reviews",
            data.review_comments.len(),
            BOTS.len(),
            data.reviews.len()
        ),
    );
    for run in 1..=args.runs {
        let before = server.state().requests.len();
        let ran = run_once(&args, &server, &event, &work)?;
        let state = server.state();
        let requests = &state.requests[before..];
        let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
        for r in requests {
            *kinds.entry(measure::request_kind(r)).or_default() += 1;
        }
        say(
            &mut out,
            format!(
                "run {run}: exit {}, wall {:.3} s, peak RSS {}, {} requests{}",
                ran.code,
                ran.wall.as_secs_f64(),
                ran.peak(),
                requests.len(),
                if state.unexpected.is_empty() {
                    String::new()
                } else {
                    format!(", UNEXPECTED: {:?}", state.unexpected)
                }
            ),
        );
        let outputs = std::fs::read_to_string(work.join("output.txt")).unwrap_or_default();
        let counts: Vec<&str> = outputs
            .lines()
            .filter(|l| {
                [
                    "confirmed=",
                    "needs-verification=",
                    "unverified=",
                    "suppressed=",
                ]
                .iter()
                .any(|p| l.starts_with(p))
            })
            .collect();
        say(&mut out, format!("    findings: {}", counts.join(", ")));
        for (k, n) in kinds {
            say(&mut out, format!("    {n:>3}  {k}"));
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}

fn run_once(
    args: &Args,
    server: &fake::FakeGitHub,
    event: &Path,
    work: &Path,
) -> Result<measure::Measured, String> {
    let time_out = work.join("time.txt");
    let mut cmd = measure::timed(&args.bin, &time_out);
    let output = work.join("output.txt");
    let _ = std::fs::remove_file(&output);
    let summary = work.join("summary.md");
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_API_URL", &server.api_url)
        .env("GITHUB_GRAPHQL_URL", &server.graphql_url)
        .env("GITHUB_REPOSITORY", "acme/bench")
        .env("GITHUB_EVENT_NAME", "pull_request")
        .env("GITHUB_EVENT_PATH", event)
        .env("GITHUB_OUTPUT", &output)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("RUNNER_TEMP", work)
        .env("INPUT_GITHUB-TOKEN", "ghs_benchtoken")
        .env("INPUT_CHECK-NAME", &args.check_name)
        .env("INPUT_REPORT-PATH", work.join("report.json"))
        // No 1 s pause between writes: the bench measures our work, not GitHub's pacing.
        .env("REVIEW_CONSENSUS_WRITE_SPACING_MS", "0")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    measure::measure(cmd, &time_out)
}

/// Comments cloned from the fixtures' bot comments (so every adapter sees its real format),
/// spread over 80 files; each spot gets comments from several bots.
fn synthetic_pr() -> Result<fake::PrData, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut templates: BTreeMap<&str, Vec<Value>> = BTreeMap::new();
    for dir in ["pr-101-three-bots", "pr-102-gemini-copilot"] {
        let data = fake::PrData::from_dir(&root.join(dir))?;
        for c in data.review_comments {
            let login = c
                .pointer("/user/login")
                .and_then(Value::as_str)
                .unwrap_or("");
            if let Some(bot) = BOTS.iter().find(|b| **b == login) {
                if c.get("in_reply_to_id").is_none_or(Value::is_null) {
                    templates.entry(bot).or_default().push(c);
                }
            }
        }
    }
    let mut data = fake::PrData::empty("acme", "bench", 900, HEAD);
    for (b, bot) in BOTS.iter().enumerate() {
        let review_id = 500 + b as u64;
        data.reviews.push(json!({
            "id": review_id, "user": {"login": bot, "id": 100 + b, "type": "Bot"},
            "body": "", "state": "COMMENTED", "commit_id": HEAD,
            "submitted_at": "2026-01-01T00:00:00Z",
        }));
        let Some(pool) = templates.get(bot) else {
            return Err(format!("no fixture comment by {bot}"));
        };
        let per_bot = COMMENTS / BOTS.len();
        for k in 0..per_bot {
            let mut c = pool[k % pool.len()].clone();
            let id = 10_000 + (b * per_bot + k) as u64;
            let file = format!("src/module_{:02}/file.py", k % FILES);
            let line = 10 + (k / FILES) as u64 * 40 + b as u64;
            c["id"] = json!(id);
            c["pull_request_review_id"] = json!(review_id);
            c["path"] = json!(file);
            c["line"] = json!(line);
            c["original_line"] = json!(line);
            c["start_line"] = Value::Null;
            c["commit_id"] = json!(HEAD);
            c["original_commit_id"] = json!(HEAD);
            c["html_url"] = json!(format!(
                "https://github.com/acme/bench/pull/900#discussion_r{id}"
            ));
            data.review_comments.push(c);
        }
    }
    Ok(data)
}
