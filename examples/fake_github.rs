//! A standalone fake GitHub on 127.0.0.1 for smoke tests of the binary or the container.
//!
//! ```text
//! cargo run --example fake_github -- --dir tests/fixtures/pr-101-three-bots --port 0 \
//!     --log /tmp/requests.log
//! ```
//!
//! Flags:
//! - `--dir DIR` (required): a saved-API-JSON folder (`pull.json`, `review_comments.json`,
//!   `reviews.json`, `issue_comments.json`, optional `code_scanning_alerts.json` and
//!   `review_threads.json`, and the completion signals `reactions.json`, `check_runs.json`,
//!   `statuses.json`, `head_commit.json`); the repository and PR number come from `pull.json`.
//! - `--port N` (default 0 = any free port): port on 127.0.0.1.
//! - `--log FILE`: append `METHOD /path?query` of every request to FILE, one per line.
//! - `--ghes`: GitHub Enterprise Server layout (REST under `/api/v3`, GraphQL at `/api/graphql`).
//! - `--page-size N` (default 100): items per page of every REST list (`Link` headers).
//! - `--viewer LOGIN` (default `github-actions[bot]`): the GraphQL `viewer.login`.
//!
//! It prints one line on stdout, the base URL (`http://127.0.0.1:PORT`), then serves until
//! killed. Point the binary at it with `GITHUB_API_URL=BASE` and `GITHUB_GRAPHQL_URL=BASE/graphql`
//! (with `--ghes`: `BASE/api/v3` and `BASE/api/graphql`). Comment and check-run writes are
//! kept in memory, so a second run edits its comment in place. Any request it does not
//! expect gets a 500 `unexpected request: METHOD /path`.
// An edge module: the environment, files and the clock are its job.
#![allow(clippy::disallowed_methods)]

#[allow(dead_code)]
#[path = "../tests/it/support/fake.rs"]
mod fake;

use std::io::Write;
use std::path::PathBuf;

use clap::Parser;

#[derive(Parser)]
#[command(about = "A fake GitHub API serving one saved PR")]
struct Args {
    #[arg(long)]
    dir: PathBuf,
    #[arg(long, default_value_t = 0)]
    port: u16,
    #[arg(long)]
    log: Option<PathBuf>,
    #[arg(long)]
    ghes: bool,
    #[arg(long, default_value_t = 100)]
    page_size: usize,
    #[arg(long, default_value = "github-actions[bot]")]
    viewer: String,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), String> {
    let args = Args::parse();
    let data = fake::PrData::from_dir(&args.dir)?;
    let mut builder = fake::FakeBuilder::new(data)
        .port(args.port)
        .page_size(args.page_size)
        .viewer(Some(&args.viewer));
    if args.ghes {
        builder = builder.ghes();
    }
    if let Some(log) = args.log {
        builder = builder.log_file(log);
    }
    let server = builder.start().await;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", server.server.uri()).map_err(|e| e.to_string())?;
    out.flush().map_err(|e| e.to_string())?;
    drop(out);
    std::future::pending::<()>().await;
    Ok(())
}
