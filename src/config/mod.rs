//! Configuration in two stages: raw action inputs and GitHub environment (strings, maybe
//! empty), then one validated `Config`. A bad value is a `ConfigError` naming the input and
//! what it accepts, which the binary turns into exit code 2.

mod env;
mod event;
mod inputs;
pub mod judge_inputs;

use std::path::PathBuf;
use std::time::Duration;

use secrecy::SecretString;

pub use inputs::{BOOLEAN_INPUTS, INPUT_NAMES, MAX_WAIT, ONLINE_ONLY};

use crate::adapters::{BotSelection, ExtractOptions};
use crate::consensus::{ConsensusOptions, Matching};
use crate::gate::RequiredGroup;
use crate::model::{FailOn, Severity};
use crate::pipeline::AnalysisOptions;

/// A configuration error: always names the input and the values it accepts.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
#[error("invalid input `{input}`: {message}")]
pub struct ConfigError {
    pub input: String,
    pub message: String,
}

/// The action's inputs, validated (CONTRACT section 3).
#[derive(Debug, Clone)]
pub struct Config {
    pub token: Option<SecretString>,
    /// `bots`: unset = the built-in bots that posted on the PR (resolved on the snapshot).
    pub sources: BotSelection,
    /// `None`: derived from the sources that reviewed the PR.
    pub bots_ran: Option<usize>,
    pub fail_on: FailOn,
    /// `fail-on-severity`; `None`: off.
    pub fail_on_severity: Option<Severity>,
    /// `required-bots`; each member is among `sources`.
    pub required_bots: Vec<RequiredGroup>,
    /// `wait-for-bots`: how long to wait for the configured bots (zero: decide at once).
    pub wait_for_bots: Duration,
    /// How findings are judged the same issue.
    pub matching: Matching,
    pub line_window: u32,
    pub title_overlap: f64,
    /// `None`: from the event payload.
    pub pr_number: Option<u64>,
    pub include_outdated: bool,
    pub include_resolved: bool,
    /// Treat findings the bots mark pre-existing (not introduced by the PR) like any other.
    pub include_pre_existing: bool,
    /// `None`: no check run, the job's exit code is the check.
    pub check_name: Option<String>,
    /// Write the sticky comment (`false`: job summary only).
    pub comment: bool,
    pub comment_header: Option<String>,
    /// SARIF globs, each match an extra source.
    pub sarif: Vec<String>,
    pub report_path: PathBuf,
    /// `sarif-output`: also write the consensus results as SARIF here.
    pub sarif_output: Option<PathBuf>,
    /// The model judge (`judge*` inputs; off by default).
    pub judge: crate::judge::Settings,
    /// The token sent to the judge's endpoint: `judge-token`, else (GitHub Models on a
    /// GitHub host only) the workflow's token; `None` when the judge is off.
    pub judge_token: Option<judge_inputs::JudgeToken>,
}

/// What the runner tells us through `GITHUB_*` / `RUNNER_*` (CONTRACT section 2).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitHubEnv {
    /// REST base, default `https://api.github.com`.
    pub api_url: String,
    /// GraphQL endpoint, default `https://api.github.com/graphql`.
    pub graphql_url: String,
    /// Web base for links, default `https://github.com`.
    pub server_url: String,
    /// `owner/name`.
    pub repository: Option<String>,
    pub event_name: Option<String>,
    pub event_path: Option<PathBuf>,
    pub sha: Option<String>,
    pub output_path: Option<PathBuf>,
    pub step_summary_path: Option<PathBuf>,
    pub runner_temp: Option<PathBuf>,
    pub runner_debug: bool,
    /// `GITHUB_ACTIONS=true`.
    pub in_actions: bool,
}

/// The pull request a run is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrTarget {
    pub owner: String,
    pub repo: String,
    pub number: u64,
    /// From the event when it carries it; otherwise fetched with the PR.
    pub head_sha: Option<String>,
    /// Head and base repositories differ (the token is then read-only, except under
    /// `pull_request_target`).
    pub from_fork: bool,
}

impl PrTarget {
    pub fn full_name(&self) -> String {
        format!("{}/{}", self.owner, self.repo)
    }
}

/// A PR to find by its head commit: a `workflow_run` after a fork's PR run, whose payload
/// lists no pull request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadLookup {
    pub owner: String,
    pub repo: String,
    pub head_sha: String,
    /// `owner:branch` of the head, when the payload names it (narrows the search to it).
    pub head: Option<String>,
}

impl Config {
    /// Validate the action inputs. `vars` are environment-style pairs; only the
    /// `INPUT_*` ones are read (hyphens kept: `INPUT_FAIL-ON`).
    pub fn from_inputs<I>(vars: I) -> Result<Config, ConfigError>
    where
        I: IntoIterator<Item = (String, String)>,
    {
        inputs::from_pairs(vars.into_iter().collect())
    }

    /// The token for the judge's endpoint: `Ok(None)` when the judge is off, an error naming
    /// the input when it is on and has none.
    pub fn judge_token(&self) -> Result<Option<&SecretString>, ConfigError> {
        match &self.judge_token {
            None => Ok(None),
            Some(Ok(token)) => Ok(Some(token)),
            Some(Err(err)) => Err(err.clone()),
        }
    }

    /// The source names `required-bots` names (for a default `bots` that must include them).
    pub fn required_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = Vec::new();
        for member in self.required_bots.iter().flat_map(|g| g.0.iter()) {
            if !ids.contains(member) {
                ids.push(member.clone());
            }
        }
        ids
    }

    /// The pure pipeline's knobs these inputs set (synthesis keeps its defaults).
    pub fn analysis_options(&self) -> AnalysisOptions {
        AnalysisOptions {
            extract: ExtractOptions {
                include_outdated: self.include_outdated,
                include_resolved: self.include_resolved,
            },
            consensus: ConsensusOptions {
                bots_ran: self.bots_ran,
                line_window: self.line_window,
                title_overlap: self.title_overlap,
                matching: self.matching,
                ..ConsensusOptions::default()
            },
            fail_on: self.fail_on,
            fail_on_severity: self.fail_on_severity,
            required: self.required_bots.clone(),
            include_pre_existing: self.include_pre_existing,
            judge: crate::pipeline::JudgeOptions {
                settings: self.judge.clone(),
                ..Default::default()
            },
            ..AnalysisOptions::default()
        }
    }
}

impl GitHubEnv {
    /// Read `GITHUB_*` / `RUNNER_*` from environment-style pairs, with GitHub.com defaults.
    pub fn from_vars<I>(vars: I) -> GitHubEnv
    where
        I: IntoIterator<Item = (String, String)>,
    {
        env::from_pairs(vars)
    }
}

/// The PR this run is about: `pr-number` input, else the event payload (CONTRACT section 2).
/// `Ok(None)`: the event has no PR (a notice and exit 0, not an error).
pub fn resolve_pr(
    config: &Config,
    env: &GitHubEnv,
    event: Option<&serde_json::Value>,
) -> Result<Option<PrTarget>, ConfigError> {
    event::resolve(config, env, event)
}

/// When `resolve_pr` finds none: the head commit whose open PR is to be looked up
/// (`workflow_run` after a fork's PR run), else `None` (nothing to gate).
pub fn head_lookup(
    config: &Config,
    env: &GitHubEnv,
    event: Option<&serde_json::Value>,
) -> Result<Option<HeadLookup>, ConfigError> {
    event::head_lookup(config, env, event)
}
