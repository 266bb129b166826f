//! The `stats` run against GitHub: list the PRs merged in the window, read each one not in
//! the cache (one PR at a time, as GitHub asks of API clients; the reads of one PR are the
//! action's own), measure it, then score and write the three files.
// An edge module: the environment, files and the clock are its job.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};

use anyhow::Context;
use chrono::{DateTime, SecondsFormat, Utc};

use super::cache::Cache;
use super::progress::Progress;
use super::record::{record_pr, source_names, PrRecord};
use super::score::{score, Scorecard, Window};
use super::{chart, markdown};
use crate::adapters::SourceConfig;
use crate::config::PrTarget;
use crate::github::pulls::list_merged_since;
use crate::github::{fetch_snapshot, GitHub};
use crate::publish::commands;

pub const MARKDOWN_FILE: &str = "scorecard.md";
pub const JSON_FILE: &str = "scorecard.json";
pub const SVG_FILE: &str = "scorecard.svg";

#[derive(Debug)]
pub struct StatsRequest<'a> {
    pub owner: String,
    pub repo: String,
    pub since_days: u32,
    pub sources: &'a [SourceConfig],
    /// Where the three files go.
    pub out_dir: PathBuf,
    /// Where the per-PR records are kept.
    pub cache_dir: PathBuf,
    /// The clock, read by the caller: the window ends now.
    pub now: DateTime<Utc>,
    /// stderr is a terminal (a progress bar) and whether this is Actions (progress lines).
    pub terminal: bool,
    pub in_actions: bool,
}

#[derive(Debug)]
pub struct StatsResult {
    pub scorecard: Scorecard,
    pub markdown: String,
    /// The files written.
    pub files: Vec<PathBuf>,
    /// PRs read from GitHub in this run, and PRs taken from the cache.
    pub fetched: usize,
    pub cached: usize,
    /// What the caller should warn about (unread PRs, cache trouble).
    pub warnings: Vec<String>,
}

pub async fn run(gh: &GitHub, request: StatsRequest<'_>) -> anyhow::Result<StatsResult> {
    let repository = format!("{}/{}", request.owner, request.repo);
    let since = request.now - chrono::Duration::days(i64::from(request.since_days));
    let listing = list_merged_since(gh, &request.owner, &request.repo, since)
        .await
        .with_context(|| format!("cannot list the merged pull requests of {repository}"))?;
    let mut warnings = Vec::new();
    if !listing.unreadable.is_empty() {
        warnings.push(format!(
            "{} closed pull requests in the listing could not be read and are left out: {}",
            listing.unreadable.len(),
            listing.unreadable.join(", ")
        ));
    }

    let cache = Cache::new(&request.cache_dir, request.sources);
    let mut progress = Progress::new(listing.pulls.len(), request.terminal, request.in_actions);
    let mut records: Vec<PrRecord> = Vec::with_capacity(listing.pulls.len());
    let mut unread: Vec<u64> = Vec::new();
    let (mut fetched, mut cached) = (0, 0);
    // Set when GitHub refuses reads (401/403/429 after the retries): the remaining PRs
    // would fail the same way, so only the cache is used from then on.
    let mut refused: Option<String> = None;
    let mut cache_failure: Option<String> = None;
    for pull in &listing.pulls {
        if let Some(record) = cache.load(pull.number) {
            cached += 1;
            records.push(record);
            progress.advance(pull.number, true);
            continue;
        }
        if refused.is_some() {
            unread.push(pull.number);
            progress.advance(pull.number, false);
            continue;
        }
        let target = PrTarget {
            owner: request.owner.clone(),
            repo: request.repo.clone(),
            number: pull.number,
            head_sha: None,
            from_fork: false,
        };
        match fetch_snapshot(gh, &target).await {
            Ok(snapshot) => {
                fetched += 1;
                let merged_at = pull.merged_at.to_rfc3339_opts(SecondsFormat::Secs, true);
                let record = record_pr(&snapshot, request.sources, &merged_at);
                if let Err(err) = cache.store(&record) {
                    cache_failure.get_or_insert_with(|| {
                        format!("cannot write the cache in {}: {err}", cache.dir().display())
                    });
                }
                records.push(record);
            }
            Err(err) => {
                // GitHub's message is untrusted: one line, no workflow command in it.
                let reason = commands::escape_data(&err.to_string());
                progress.say(&format!("stats: cannot read #{}: {reason}", pull.number));
                if matches!(err.status(), Some(401 | 403 | 429)) {
                    refused = Some(reason);
                }
                unread.push(pull.number);
            }
        }
        progress.advance(pull.number, false);
    }
    progress.finish();
    if !listing.pulls.is_empty() && records.is_empty() {
        anyhow::bail!(
            "none of the {} merged pull requests of {repository} could be read{}",
            listing.pulls.len(),
            refused.map(|r| format!(": {r}")).unwrap_or_default()
        );
    }
    if !unread.is_empty() {
        warnings.push(format!(
            "{} merged pull requests could not be read and are left out of the scorecard{}; \
             a later run reads them",
            unread.len(),
            refused
                .map(|r| format!(" (GitHub refused further reads: {r})"))
                .unwrap_or_default()
        ));
    }
    warnings.extend(cache_failure);

    records.sort_by_key(|r| r.number);
    unread.sort_unstable();
    let window = Window {
        repository,
        since_days: request.since_days,
        since: since.to_rfc3339_opts(SecondsFormat::Secs, true),
    };
    let scorecard = score(&window, &records, &source_names(request.sources), &unread);
    let markdown = markdown::render_markdown(&scorecard);
    let svg = chart::render_svg(&scorecard).map_err(anyhow::Error::msg)?;
    let files = write_files(&request.out_dir, &scorecard, &markdown, &svg)?;
    Ok(StatsResult {
        scorecard,
        markdown,
        files,
        fetched,
        cached,
        warnings,
    })
}

fn write_files(
    dir: &Path,
    scorecard: &Scorecard,
    markdown: &str,
    svg: &str,
) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the output folder {}", dir.display()))?;
    let mut json = serde_json::to_string_pretty(scorecard)?;
    json.push('\n');
    let mut files = Vec::new();
    for (name, text) in [
        (MARKDOWN_FILE, markdown),
        (JSON_FILE, &json),
        (SVG_FILE, svg),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        files.push(path);
    }
    Ok(files)
}
