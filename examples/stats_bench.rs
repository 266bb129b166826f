//! Benchmark of `review-consensus stats` against a local fake GitHub serving a repository
//! with 500 PRs merged in the window (the 14 fixture PRs, real bot formats, cycled), 50
//! closed unmerged and 100 merged before the window. Prints wall time, peak RSS and the HTTP
//! requests of a cold run (empty cache) and a warm one (every PR cached), and the requests
//! the action itself makes for one PR, to compare.
//!
//! ```text
//! cargo build --release && cargo run --release --example stats_bench
//! ```
//!
//! Flags: `--bin PATH` (default `target/release/review-consensus`), `--prs N` (default 500).
//! Peak RSS comes from `/usr/bin/time -v` when present, else from polling `VmHWM`.
//! Targets: at most the action's own requests per PR, peak RSS under 100 MB.
// An edge module: the environment, files and the clock are its job.
#![allow(clippy::disallowed_methods)]

#[allow(dead_code)]
#[path = "../tests/it/support/fake.rs"]
mod fake;
#[allow(dead_code)]
#[path = "../tests/it/support/fake_repo.rs"]
mod fake_repo;
#[path = "../benches/support/measure.rs"]
mod measure;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use chrono::{SecondsFormat, Utc};
use clap::Parser;
use serde_json::json;

#[derive(Parser)]
struct Args {
    #[arg(long, default_value = "target/release/review-consensus")]
    bin: PathBuf,
    #[arg(long, default_value_t = 500)]
    prs: u64,
}

const FIXTURES: [&str; 3] = [
    "pr-101-three-bots",
    "pr-102-gemini-copilot",
    "pr-103-edge-cases",
];

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), String> {
    let args = Args::parse();
    measure::check_built(&args.bin)?;
    let templates = fixture_prs()?;
    let work = std::env::temp_dir().join(format!("stats-bench-{}", std::process::id()));
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    let mut out = std::io::stdout().lock();
    let mut say = |text: String| {
        let _ = writeln!(out, "{text}");
    };

    // The action on one PR: its requests are the bar for the per-PR reads of `stats`.
    let mut action_counts = Vec::new();
    for template in &templates {
        action_counts.push(action_requests(&args.bin, template, &work).await?);
    }
    say(format!(
        "the action, one run per fixture PR ({} PRs): {:?} requests (min {})",
        templates.len(),
        action_counts,
        action_counts.iter().min().unwrap_or(&0)
    ));

    let prs = repository(&templates, args.prs);
    let comments: usize = prs.iter().map(|p| p.data.review_comments.len()).sum();
    let server = fake_repo::FakeRepo::start("acme", "bench", prs, 100, &[]).await;
    say(format!(
        "repository: {} merged PRs in the window ({comments} review comments), 50 closed \
         unmerged, 100 merged before the window",
        args.prs
    ));
    let out_dir = work.join("scorecard");
    for run in ["cold (empty cache)", "warm (every PR cached)"] {
        server.reset_log();
        let ran = run_stats(&args.bin, &server, &out_dir)?;
        let state = server.state();
        let requests = &state.requests;
        let listing = requests.iter().filter(|r| r.contains("/pulls?")).count();
        let per_pr = requests.len() - listing;
        let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
        for r in requests {
            *kinds.entry(kind(r)).or_default() += 1;
        }
        say(format!(
            "{run}: exit {}, wall {:.2} s, peak RSS {}, {} requests: {listing} listing \
             pages + {per_pr} per-PR ({:.2} per PR){}",
            ran.code,
            ran.wall.as_secs_f64(),
            ran.peak(),
            requests.len(),
            per_pr as f64 / args.prs as f64,
            if state.unexpected.is_empty() {
                String::new()
            } else {
                format!(
                    ", UNEXPECTED: {:?}",
                    &state.unexpected[..state.unexpected.len().min(5)]
                )
            }
        ));
        for (k, n) in kinds {
            say(format!("    {n:>5}  {k}"));
        }
    }
    say(format!("scorecard written to {}", out_dir.display()));
    Ok(())
}

/// The 14 fixture PRs (three scenarios and the real dev set) as served data.
fn fixture_prs() -> Result<Vec<fake::PrData>, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut dirs: Vec<PathBuf> = FIXTURES.iter().map(|f| root.join(f)).collect();
    let mut real: Vec<PathBuf> = std::fs::read_dir(root.join("real"))
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("pull.json").exists())
        .collect();
    real.sort();
    dirs.extend(real);
    dirs.iter().map(|d| fake::PrData::from_dir(d)).collect()
}

/// `merged` PRs in the last 25 days, then 50 closed unmerged, then 100 older merges.
fn repository(templates: &[fake::PrData], merged: u64) -> Vec<fake_repo::RepoPr> {
    let now = Utc::now();
    let at = |minutes: i64| {
        (now - chrono::Duration::minutes(minutes)).to_rfc3339_opts(SecondsFormat::Secs, true)
    };
    let window = 25 * 24 * 60;
    let mut prs = Vec::new();
    for n in 1..=merged + 150 {
        let mut data = templates[(n as usize) % templates.len()].clone();
        data.number = n;
        let (merged_at, updated) = if n <= merged {
            let m = (n as i64 * window) / merged as i64;
            (Some(at(m)), at(m))
        } else if n <= merged + 50 {
            (None, at((n as i64 - merged as i64) * 300))
        } else {
            let m = window + 10 * 24 * 60 + n as i64 * 60;
            (Some(at(m)), at(m))
        };
        prs.push(fake_repo::RepoPr {
            data,
            merged_at,
            updated_at: updated,
        });
    }
    prs
}

fn run_stats(
    bin: &Path,
    server: &fake_repo::FakeRepo,
    out_dir: &Path,
) -> Result<measure::Measured, String> {
    let time_out = out_dir.with_extension("time");
    let mut cmd = measure::timed(bin, &time_out);
    cmd.args(["stats", "--repo", "acme/bench", "--since", "30", "--out"])
        .arg(out_dir)
        .env_clear()
        .env("GITHUB_TOKEN", "bench-token")
        .env("GITHUB_API_URL", &server.api_url)
        .env("GITHUB_GRAPHQL_URL", &server.graphql_url)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    measure::measure(cmd, &time_out)
}

/// Requests of one action run on `data` (no check run), against the one-PR fake.
async fn action_requests(bin: &Path, data: &fake::PrData, work: &Path) -> Result<usize, String> {
    let server = fake::FakeBuilder::new(data.clone()).start().await;
    let event = work.join("event.json");
    std::fs::write(
        &event,
        json!({"pull_request": data.pull, "number": data.number}).to_string(),
    )
    .map_err(|e| e.to_string())?;
    let status = Command::new(bin)
        .env_clear()
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_API_URL", &server.api_url)
        .env("GITHUB_GRAPHQL_URL", &server.graphql_url)
        .env("GITHUB_REPOSITORY", format!("{}/{}", data.owner, data.repo))
        .env("GITHUB_EVENT_NAME", "pull_request")
        .env("GITHUB_EVENT_PATH", &event)
        .env("RUNNER_TEMP", work)
        .env("INPUT_GITHUB-TOKEN", "bench-token")
        .env("REVIEW_CONSENSUS_WRITE_SPACING_MS", "0")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| e.to_string())?;
    if status.code().is_none_or(|c| c > 1) {
        return Err(format!("the action failed on {}: {status}", data.number));
    }
    let count = server.state().requests.len();
    Ok(count)
}

/// `measure::request_kind`, the closed-PR listing marked ` (listing)`.
fn kind(request: &str) -> String {
    let kind = measure::request_kind(request);
    if kind.ends_with(" pulls") && request.contains("state=closed") {
        format!("{kind} (listing)")
    } else {
        kind
    }
}
