//! The whole run against GitHub: fetch, analyze, publish. Used by the action (no arguments
//! under `GITHUB_ACTIONS=true`) and by `run --repo --pr`.
// An edge module: the environment, files and the clock are its job.
#![allow(clippy::disallowed_methods)]

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::api::{IssueComment, PullRequest};
use crate::config::{Config, GitHubEnv, HeadLookup, PrTarget};
use crate::github::checks::{self, CheckRunSpec};
use crate::github::comment::{self, StickyAction};
use crate::github::fetch::{fetch_signals, list_all, Cost, SignalCache};
use crate::github::permissions;
use crate::github::routes;
use crate::github::threads::{self, Viewer};
use crate::github::wait::{wait_for_bots, SystemClock};
use crate::github::{fetch_snapshot, retry, GitHub, GitHubError, RetryPolicy, Timeouts};
use crate::identity::{self, IdentityInput, Prior};
use crate::model::{ConsensusLevel, Gate, Outcome};
use crate::pipeline::{self, ExtraSource};
use crate::publish::{commands, outputs};
use crate::render::sarif::SarifOptions;
use crate::render::{self, RenderOptions};

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
    let RunRequest {
        config,
        env,
        mut target,
        dry_run,
        save_dir,
    } = request;
    // The judge's token is checked before anything is read: a missing one is a clear error.
    config.judge_token()?;
    let console = Console {
        enabled: env.in_actions,
    };
    let gh = github_client(config, env)?;

    if !config.wait_for_bots.is_zero() {
        wait_step(&gh, config, &target, &console).await;
    }

    console.group(&format!("Fetch {}#{}", target.full_name(), target.number));
    // Who we are decides which comment is our sticky (to edit, to read the last run's state
    // from, and to keep away from the adapters); asked beside the fetch, off the critical
    // path.
    let (snapshot, viewer) = tokio::join!(fetch_snapshot(&gh, &target), threads::viewer(&gh));
    let mut snapshot = match snapshot {
        Ok(snapshot) => snapshot,
        Err(err) => {
            // The error is shown outside the folded group.
            console.endgroup();
            return Err(anyhow::Error::new(err).context(format!(
                "cannot read pull request {}#{}",
                target.full_name(),
                target.number
            )));
        }
    };
    snapshot.viewer = Some(viewer.clone());
    if target.head_sha.as_deref().is_none_or(str::is_empty) {
        target.head_sha = Some(snapshot.head_sha().to_owned());
    }
    // Reactions, check runs, statuses: only those a configured bot that has not reviewed
    // the head by its comments signals on.
    let needs =
        crate::adapters::needed_surfaces(&snapshot, &config.sources.active_sources(&snapshot));
    if needs.any() {
        let head = snapshot.head_sha().to_owned();
        let mut cost = Cost::default();
        snapshot.signals = fetch_signals(
            &gh,
            &target,
            &head,
            needs,
            &mut SignalCache::default(),
            &mut cost,
        )
        .await;
        tracing::info!("completion signals read ({} requests)", cost.requests);
    }
    // The last run's state is in our own comment; who we are decides which one that is.
    let marker = render::markdown::marker(config.comment_header.as_deref());
    let identity = identity_input(&gh, &target, &snapshot, &marker, &viewer).await;
    console.endgroup();
    if let Some(dir) = &save_dir {
        // The folder keeps who we were (`viewer.json`), so `render` finds the same sticky.
        crate::local::save_snapshot_dir(&snapshot, dir)
            .with_context(|| format!("cannot save the API JSON to {}", dir.display()))?;
    }

    console.group("Analyze");
    let mut extra = sarif_sources(&config.sarif, crate::adapters::sarif::parse);
    extra.extend(crate::local::thread_state_problems(&snapshot));
    let code_scanning = pipeline::code_scanning_sources(&extra);
    let mut options = pipeline::AnalysisOptions {
        identity,
        ..config.analysis_options()
    };
    let prepared = pipeline::prepare(Some(&snapshot), &config.sources, extra, &options);
    if let Some(token) = config.judge_token()? {
        options.judge.given = ask_judge(config, token, &prepared, &snapshot, &options).await;
    }
    let outcome = prepared.finish(Some(&snapshot), &options);
    let markdown = render::render_comment(
        &outcome,
        &RenderOptions {
            header: config.comment_header.clone(),
            server_url: Some(env.server_url.clone()),
            ..RenderOptions::default()
        },
    );
    console.endgroup();

    console.group("Publish");
    // What was written is kept even when a later write failed: the outputs, the job summary
    // and the report describe it, and only then is the error returned.
    let (published, failure) = if dry_run {
        (Published::default(), None)
    } else {
        let written = Written {
            markdown: &markdown,
            known: &snapshot.issue_comments,
            viewer: &viewer,
        };
        publish(&gh, config, env, &target, &outcome, written).await
    };
    for warning in &published.warnings {
        console.warning(warning);
    }
    write_files(config, env, &outcome, &markdown, &published)?;
    if let Some(path) = &config.sarif_output {
        let options = SarifOptions {
            header: config.comment_header.clone(),
            server_url: Some(env.server_url.clone()),
            code_scanning,
            ..SarifOptions::default()
        };
        let summary = outputs::write_sarif(path, &outcome, &options)
            .with_context(|| format!("cannot write the SARIF to {}", path.display()))?;
        tracing::info!(
            "SARIF: {} result(s) written to {}",
            summary.results,
            path.display()
        );
        if let Some(note) = summary.left_out_note() {
            tracing::info!("SARIF: {note}");
        }
        if let Some(note) = summary.cut_note() {
            console.warning(&note);
        }
    }
    console.endgroup();
    for line in render::annotations::workflow_annotations(&outcome) {
        console.line(&line);
    }
    if let Some(err) = failure {
        return Err(err);
    }
    Ok(RunResult {
        outcome,
        comment: markdown,
    })
}

/// The open PR whose head is `lookup.head_sha` (a `workflow_run` after a fork's PR run):
/// one listing of the open PRs with that head (`owner:branch`, which GitHub matches for a
/// fork's branch too; the commit-to-PR endpoint only knows commits of this repository), or
/// of every open PR when the payload does not name the head. `None`: no such PR.
pub async fn find_pull(
    config: &Config,
    env: &GitHubEnv,
    lookup: &HeadLookup,
) -> anyhow::Result<Option<PrTarget>> {
    let gh = github_client(config, env)?;
    let mut path = format!(
        "{}?state=open&per_page=100",
        routes::PULLS.fill(&[&lookup.owner, &lookup.repo])
    );
    if let Some(head) = &lookup.head {
        path.push_str("&head=");
        path.push_str(&query_value(head));
    }
    let items = list_all(&gh, &path).await.with_context(|| {
        format!(
            "cannot look up the pull request of commit {}",
            lookup.head_sha
        )
    })?;
    let (pulls, _) = crate::api::parse_list::<PullRequest>("pulls", items);
    Ok(pulls
        .into_iter()
        .find(|pull| pull.head.sha == lookup.head_sha && pull.number > 0)
        .map(|pull| PrTarget {
            owner: lookup.owner.clone(),
            repo: lookup.repo.clone(),
            number: pull.number,
            head_sha: Some(pull.head.sha),
            // `workflow_run` runs with this repository's own token.
            from_fork: false,
        }))
}

/// A query value, percent-encoded (a branch name may hold `&`, `#`, `+`, spaces...).
fn query_value(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b':' | b'/' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// Longest wait log line (who is pending, with each bot's signal).
const MAX_LOG_LINE: usize = 2000;

/// `wait-for-bots`: poll until the configured bots are done for the head commit, logging who
/// is pending. A failed poll or the budget running out is a warning: the fetch after it
/// decides on what is there.
async fn wait_step(gh: &GitHub, config: &Config, target: &PrTarget, console: &Console) {
    let budget = config.wait_for_bots;
    console.group(&format!(
        "Wait up to {}s for the bots to finish the head commit",
        budget.as_secs()
    ));
    let waited = wait_for_bots(gh, target, &config.sources, budget, &SystemClock, |line| {
        // Check-run names and statuses are a server's text: one escaped line each.
        let line = render::escape::one_line(line, MAX_LOG_LINE);
        console.line(&line);
        if !console.enabled {
            tracing::info!("{line}");
        }
    })
    .await;
    console.endgroup();
    match waited {
        Ok(waited) if waited.timed_out => console.warning(&format!(
            "wait-for-bots: {}s passed, deciding without {}",
            budget.as_secs(),
            if waited.pending.is_empty() {
                "a quiet minute after the last bot activity".to_owned()
            } else {
                crate::wait::describe(&waited.pending)
            }
        )),
        Ok(waited) => {
            let requests: usize = waited.costs.iter().map(|c| c.requests).sum();
            let not_modified: usize = waited.costs.iter().map(|c| c.not_modified).sum();
            tracing::info!(
                "waited {}s over {} polls: {requests} requests, {not_modified} of them 304",
                waited.waited.as_secs(),
                waited.polls
            );
        }
        Err(err) => console.warning(&format!("wait-for-bots stopped: {err}")),
    }
}

/// What the identity stage needs from GitHub: the state in our own sticky comment (the
/// oldest with the marker on its first line by `viewer`), the permissions of the commenters
/// who sent commands (looked up unless the state cached them today), and today's date.
async fn identity_input(
    gh: &GitHub,
    target: &PrTarget,
    snapshot: &crate::api::PrSnapshot,
    marker: &str,
    viewer: &Viewer,
) -> IdentityInput {
    let today = chrono::Utc::now().date_naive();
    let ours = comment::find_ours(&snapshot.issue_comments, marker, viewer);
    let prior = Prior::read(ours.and_then(|c| c.body.as_deref()));
    if let Some(note) = &prior.note {
        tracing::warn!("{note}");
    }
    let commands = identity::read_commands(&snapshot.issue_comments);
    let wanted = identity::logins_to_check(&commands, &prior, Some(today));
    let permissions = permissions::lookup_all(gh, target, &wanted)
        .await
        .into_iter()
        .collect();
    IdentityInput {
        prior,
        permissions,
        today: Some(today),
        offline: false,
        judged: None,
    }
}

/// What the GitHub writes produced, for the outputs, and what to warn about.
#[derive(Debug, Default)]
struct Published {
    comment_id: Option<u64>,
    comment_url: Option<String>,
    warnings: Vec<String>,
}

const READ_ONLY: &str = "the token cannot write to this pull request (a fork PR, missing \
    `pull-requests: write`, or a personal access token without that permission); the report \
    is in the job summary and the gate still applies";

const RATE_LIMITED: &str = "GitHub's rate limit still refused the write after waiting as it \
    asked; the report is in the job summary and the gate still applies";

/// The client for one run: retries, write spacing and deadlines from the environment. The
/// run's deadline is counted after `wait-for-bots`: the wait's budget comes on top of it.
pub fn github_client(config: &Config, env: &GitHubEnv) -> Result<GitHub, GitHubError> {
    let var = |name: &str| std::env::var(name).ok();
    let timeouts = Timeouts::from_vars(var).after_waiting(config.wait_for_bots);
    Ok(
        GitHub::new(&env.api_url, &env.graphql_url, config.token.as_ref())?
            .with_retry(RetryPolicy::from_vars(var))
            .with_write_spacing(retry::write_spacing_from_vars(var))
            .with_timeouts(timeouts),
    )
}

/// Ask the model judge the pairs the fitted model cannot decide. Never an error: what went
/// wrong is a note, and the fitted model decides what is left.
async fn ask_judge(
    config: &Config,
    token: &secrecy::SecretString,
    prepared: &pipeline::Prepared,
    snapshot: &crate::api::PrSnapshot,
    options: &pipeline::AnalysisOptions,
) -> pipeline::Given {
    let questions = prepared.judge_questions(
        Some(snapshot),
        options,
        crate::judge::plan::Shape::default(),
    );
    if questions.is_empty() {
        return pipeline::Given {
            finished: true,
            ..pipeline::Given::default()
        };
    }
    let endpoint = crate::judge::client::Endpoint {
        provider: config.judge.provider,
        url: config.judge.endpoint.clone(),
        model: config.judge.model.clone(),
        token: token.clone(),
    };
    let limits = crate::judge::client::Limits::from_vars(|name| std::env::var(name).ok());
    tracing::info!(
        "judge: asking {} about {} pair(s)",
        config.judge.model,
        questions.len()
    );
    let asked = crate::judge::client::ask(&endpoint, &questions, limits).await;
    if let Some(note) = &asked.note {
        tracing::warn!("judge: {note}");
    }
    pipeline::Given::from(asked)
}

/// The token cannot write: a fork PR outside `pull_request_target`.
fn read_only(env: &GitHubEnv, target: &PrTarget) -> bool {
    target.from_fork && env.event_name.as_deref() != Some("pull_request_target")
}

/// The comment to write and what is already known about the PR's comments.
struct Written<'a> {
    markdown: &'a str,
    known: &'a [IssueComment],
    viewer: &'a Viewer,
}

/// The sticky comment and the check run: what was published, and the error that stopped
/// it, if any. A read-only token (one of GitHub's 403 wordings for it, or a 404 on a
/// write), a missing `checks: write`, or a rate limit that still refuses the write after
/// the waits GitHub asked for, is a warning (the report is in the job summary, the gate
/// still decides the exit code); any other failure is an error naming its endpoint.
async fn publish(
    gh: &GitHub,
    config: &Config,
    env: &GitHubEnv,
    target: &PrTarget,
    outcome: &Outcome,
    written: Written<'_>,
) -> (Published, Option<anyhow::Error>) {
    let mut published = Published::default();
    if read_only(env, target) {
        published
            .warnings
            .push(format!("fork pull request: {READ_ONLY}"));
        return (published, None);
    }
    if config.comment {
        let marker = render::markdown::marker(config.comment_header.as_deref());
        let upsert = comment::upsert_sticky_as(
            gh,
            target,
            &marker,
            written.markdown,
            Some(written.known),
            written.viewer,
        );
        match upsert.await {
            Ok(sticky) => {
                let verb = match sticky.action {
                    StickyAction::Created => "created",
                    StickyAction::Updated => "updated",
                    StickyAction::Unchanged => "unchanged",
                };
                tracing::info!("sticky comment {} {verb}", sticky.id);
                published.comment_id = Some(sticky.id);
                published.comment_url = Some(sticky.html_url);
            }
            // Not fatal: the markdown is in the job summary. The check run may still work.
            Err(err) if err.is_read_only() => {
                published.warnings.push(format!("{err}: {READ_ONLY}"))
            }
            Err(err) if err.is_rate_limited() => published.warnings.push(format!(
                "cannot write the sticky comment: {err}: {RATE_LIMITED}"
            )),
            Err(err) => {
                let err = anyhow::Error::new(err).context("cannot write the sticky comment");
                return (published, Some(err));
            }
        }
    }
    if let Some(name) = &config.check_name {
        match check_run(gh, target, name, outcome, written.markdown).await {
            Ok(()) => {}
            Err(err) if err.is_read_only() => published.warnings.push(format!(
                "{err}: cannot create the check run `{name}` (needs `checks: write` and \
                 GitHub Actions' token or an app's); the job's exit code is still the gate"
            )),
            Err(err) if err.is_rate_limited() => published.warnings.push(format!(
                "cannot create the check run `{name}`: {err}: {RATE_LIMITED}"
            )),
            Err(err) => {
                let err = anyhow::Error::new(err).context("cannot create the check run");
                return (published, Some(err));
            }
        }
    }
    (published, None)
}

async fn check_run(
    gh: &GitHub,
    target: &PrTarget,
    name: &str,
    outcome: &Outcome,
    markdown: &str,
) -> Result<(), GitHubError> {
    let head_sha = target.head_sha.clone().unwrap_or_default();
    let title = format!(
        "{} confirmed, {} needs verification, {} unverified",
        outcome.count_at(ConsensusLevel::Confirmed),
        outcome.count_at(ConsensusLevel::NeedsVerification),
        outcome.count_at(ConsensusLevel::Unverified),
    );
    let run = checks::publish_check_run(
        gh,
        target,
        CheckRunSpec {
            name,
            head_sha: &head_sha,
            conclusion: match outcome.gate {
                Gate::Pass => "success",
                Gate::Fail => "failure",
            },
            title: &title,
            summary: markdown,
            annotations: render::annotations::check_annotations(outcome),
        },
    )
    .await?;
    tracing::info!("check run {} created ({} requests)", run.id, run.requests);
    Ok(())
}

/// The runner's files: job summary, JSON report, step outputs (each when its path is known).
fn write_files(
    config: &Config,
    env: &GitHubEnv,
    outcome: &Outcome,
    markdown: &str,
    published: &Published,
) -> anyhow::Result<()> {
    if let Some(path) = &env.step_summary_path {
        let summary = with_warnings(markdown, &published.warnings);
        outputs::append_step_summary(path, &summary)
            .with_context(|| format!("cannot write the job summary {}", path.display()))?;
    }
    outputs::write_report(&config.report_path, &render::render_report(outcome)).with_context(
        || {
            format!(
                "cannot write the report to {}",
                config.report_path.display()
            )
        },
    )?;
    if let Some(path) = &env.output_path {
        let values = output_values(outcome, published, &config.report_path);
        let pairs: Vec<(&str, String)> = values.iter().map(|(k, v)| (*k, v.clone())).collect();
        outputs::write_outputs(path, &pairs)
            .with_context(|| format!("cannot write the step outputs {}", path.display()))?;
    }
    Ok(())
}

/// The job summary: what could not be published, then the comment's markdown.
fn with_warnings(markdown: &str, warnings: &[String]) -> String {
    if warnings.is_empty() {
        return markdown.to_owned();
    }
    let mut text = String::new();
    for warning in warnings {
        text.push_str("> ⚠️ ");
        text.push_str(&render::escape::escape_inline(warning));
        text.push('\n');
    }
    text.push('\n');
    text.push_str(markdown);
    text
}

fn output_values(
    outcome: &Outcome,
    published: &Published,
    report: &Path,
) -> Vec<(&'static str, String)> {
    vec![
        (
            "confirmed",
            outcome.count_at(ConsensusLevel::Confirmed).to_string(),
        ),
        (
            "needs-verification",
            outcome
                .count_at(ConsensusLevel::NeedsVerification)
                .to_string(),
        ),
        (
            "unverified",
            outcome.count_at(ConsensusLevel::Unverified).to_string(),
        ),
        ("suppressed", outcome.suppressed().count().to_string()),
        ("total", outcome.findings.len().to_string()),
        ("bots-ran", outcome.bots_ran.to_string()),
        ("gate", outcome.gate.as_str().to_owned()),
        (
            "comment-id",
            published
                .comment_id
                .map(|id| id.to_string())
                .unwrap_or_default(),
        ),
        (
            "comment-url",
            published.comment_url.clone().unwrap_or_default(),
        ),
        ("report", report.display().to_string()),
        ("acknowledged", outcome.acknowledged().count().to_string()),
        ("new", outcome.new_findings().count().to_string()),
        ("not-reviewed", outcome.not_reviewed.join(",")),
    ]
}

/// Each file matching the `sarif` globs becomes extra sources; an unreadable one is listed
/// as malformed, a glob matching nothing is a warning.
pub fn sarif_sources(
    globs: &[String],
    parse: fn(&str) -> Result<Vec<ExtraSource>, String>,
) -> Vec<ExtraSource> {
    let mut sources = Vec::new();
    for pattern in globs {
        let paths = match glob::glob(pattern) {
            Ok(paths) => paths.filter_map(Result::ok).collect::<Vec<_>>(),
            Err(err) => {
                sources.push(ExtraSource::malformed(
                    pattern.clone(),
                    format!("bad glob: {err}"),
                ));
                continue;
            }
        };
        if paths.is_empty() {
            tracing::warn!("`sarif` pattern {pattern} matched no file");
        }
        for path in paths {
            let name = path.display().to_string();
            match std::fs::read_to_string(&path)
                .map_err(|err| err.to_string())
                .and_then(|text| parse(&text))
            {
                Ok(found) => sources.extend(found),
                Err(reason) => sources.push(ExtraSource::malformed(name, reason)),
            }
        }
    }
    sources
}

/// Workflow commands on stdout, only inside Actions (a laptop run prints none).
struct Console {
    enabled: bool,
}

impl Console {
    fn line(&self, text: &str) {
        if self.enabled {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{text}");
        }
    }

    fn group(&self, title: &str) {
        self.line(&commands::command("group", &[], title));
    }

    fn endgroup(&self) {
        self.line(&commands::command("endgroup", &[], ""));
    }

    /// In Actions a `::warning::` (shown on the run page), elsewhere a log line.
    fn warning(&self, message: &str) {
        if self.enabled {
            self.line(&commands::command("warning", &[], message));
        } else {
            tracing::warn!("{message}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::SourceState;

    #[test]
    fn sarif_globs_become_sources_and_bad_files_are_malformed() {
        let dir = tempfile::tempdir().unwrap();
        let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/bots/sarif");
        std::fs::copy(
            format!("{fixtures}/semgrep.sarif"),
            dir.path().join("a.sarif"),
        )
        .unwrap();
        std::fs::write(dir.path().join("b.sarif"), "{ not json").unwrap();
        let pattern = format!("{}/*.sarif", dir.path().display());
        let none = format!("{}/*.nothing", dir.path().display());
        let sources = sarif_sources(&[pattern, none], crate::adapters::sarif::parse);
        let ok: Vec<_> = sources
            .iter()
            .filter(|s| s.status.status == SourceState::Ok)
            .collect();
        assert!(!ok.is_empty() && ok.iter().any(|s| !s.findings.is_empty()));
        let bad: Vec<_> = sources
            .iter()
            .filter(|s| s.status.status == SourceState::Malformed)
            .collect();
        assert_eq!(bad.len(), 1);
        assert!(bad[0].status.bot.ends_with("b.sarif"));
    }

    #[test]
    fn outputs_carry_every_contract_name() {
        let outcome = pipeline::analyze(
            None,
            &crate::adapters::BotSelection::default(),
            Vec::new(),
            &pipeline::AnalysisOptions::default(),
        );
        let published = Published {
            comment_id: Some(7),
            comment_url: Some("https://x/7".to_owned()),
            warnings: Vec::new(),
        };
        let values = output_values(&outcome, &published, Path::new("/tmp/r.json"));
        let names: Vec<&str> = values.iter().map(|(k, _)| *k).collect();
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
                "report",
                "acknowledged",
                "new",
                "not-reviewed"
            ]
        );
        assert!(values.contains(&("comment-id", "7".to_owned())));
        assert!(values.contains(&("gate", "pass".to_owned())));
        assert!(values.contains(&("report", "/tmp/r.json".to_owned())));
    }
}
