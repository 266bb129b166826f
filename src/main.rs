//! The `review-consensus` binary: parse the command line, run, and decide the exit code in
//! one place (CONTRACT section 6): 0 pass or nothing to do, 1 the gate failed, 2 a
//! configuration or usage error, 3 any other failure (so that "the gate failed" is never
//! confused with "the tool broke").

mod cli;

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use review_consensus::config::{ConfigError, GitHubEnv};
use review_consensus::publish::commands;
use tracing_subscriber::EnvFilter;

const CONFIG_ERROR: u8 = 2;
const RUNTIME_ERROR: u8 = 3;

fn main() -> ExitCode {
    // clap's own errors exit 2, `--help`/`--version` exit 0.
    let parsed = cli::Cli::parse();
    let vars = cli::env_pairs();
    let env = GitHubEnv::from_vars(vars.clone());
    init_tracing(&env);
    let code = match cli::dispatch(parsed, vars) {
        Ok(code) => code,
        Err(err) => report(&err, env.in_actions),
    };
    ExitCode::from(code)
}

/// Print the error once, then map it: a `ConfigError` anywhere in the chain is exit 2. The
/// message may quote data (a saved file's text): one line, control characters escaped.
fn report(err: &anyhow::Error, in_actions: bool) -> u8 {
    let message = review_consensus::render::escape::one_line(&format!("{err:#}"), 4000);
    if in_actions {
        cli::print_out(&commands::error(&message));
    } else {
        cli::print_err(&format!("error: {message}"));
    }
    if err
        .chain()
        .any(|e| e.downcast_ref::<ConfigError>().is_some())
    {
        CONFIG_ERROR
    } else {
        RUNTIME_ERROR
    }
}

/// Logs on stderr: `RUST_LOG` when set, else info (debug for our crate with RUNNER_DEBUG=1).
/// octocrab's own logs stay off: they carry server text unescaped (a body with a line
/// `::set-output ...` would become a workflow command) and log every non-2xx answer as an
/// error, even one our retry recovers from; our own errors name the endpoint that failed,
/// with the server's message escaped. No colours in the Actions log, which shows escape
/// codes raw.
fn init_tracing(env: &GitHubEnv) {
    let default = if env.runner_debug {
        "info,review_consensus=debug,octocrab=off"
    } else {
        "info,octocrab=off"
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(!env.in_actions && std::io::stderr().is_terminal())
        .with_target(false)
        .with_env_filter(filter)
        .init();
}
