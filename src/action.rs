//! The whole run against GitHub: fetch, analyze, publish. Used by the action (no arguments
//! under `GITHUB_ACTIONS=true`) and by `run --repo --pr`.

use std::path::PathBuf;

use crate::config::{Config, GitHubEnv, PrTarget};
use crate::model::Outcome;

#[derive(Debug)]
pub struct RunRequest<'a> {
    pub config: &'a Config,
    pub env: &'a GitHubEnv,
    pub target: PrTarget,
    /// Write nothing to GitHub (the caller prints the comment).
    pub dry_run: bool,
    /// Also save the fetched API JSON as a saved-API-JSON folder.
    pub save_dir: Option<PathBuf>,
}

#[derive(Debug)]
pub struct RunResult {
    pub outcome: Outcome,
    /// The sticky comment's markdown as rendered (written or not).
    pub comment: String,
}

pub async fn run(request: RunRequest<'_>) -> anyhow::Result<RunResult> {
    let _ = request;
    todo!("edge-github")
}
