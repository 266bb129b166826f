//! The command line (CONTRACT section 1): no subcommand inside Actions is the action;
//! `demo`, `run`, `render` and `stats` are for laptops (`stats` also for scheduled jobs).
//! Each returns the process exit code on success; errors go back to `main`, which alone
//! maps them to exit codes.
// An edge module: the environment, files and the clock are its job.
#![allow(clippy::disallowed_methods)]

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::Context;
use clap::{Arg, ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use review_consensus::action::{self, RunRequest};
use review_consensus::adapters::BotSelection;
use review_consensus::config::{
    head_lookup, resolve_pr, Config, ConfigError, GitHubEnv, PrTarget, BOOLEAN_INPUTS, INPUT_NAMES,
    ONLINE_ONLY,
};
use review_consensus::github::{retry, GitHub, RetryPolicy};
use review_consensus::model::Outcome;
use review_consensus::publish::{commands, outputs};
use review_consensus::render::sarif::SarifOptions;
use review_consensus::render::{self, RenderOptions};
use review_consensus::{demo, doctor, judge, local, pipeline, stats};

/// Where `render` reads the judge's token.
pub const JUDGE_TOKEN_VAR: &str = "REVIEW_CONSENSUS_JUDGE_TOKEN";

/// Exit code when there is nothing to do or the gate passed.
const OK: u8 = 0;
/// Exit code for "no subcommand outside Actions": a usage error, like clap's.
const USAGE: u8 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "review-consensus",
    version,
    about = "Merge review-bot findings on a pull request by consensus and gate on them",
    long_about = "Merge review-bot findings on a pull request by consensus and gate on them.\n\n\
        Without a subcommand inside GitHub Actions (GITHUB_ACTIONS=true) it runs as the action, \
        configured through its INPUT_* variables."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Offline, no token: the whole pipeline on a bundled PR reviewed by three bots.
    Demo,
    /// The action from a laptop: read a PR with GITHUB_TOKEN, analyse, publish.
    Run(RunArgs),
    /// Offline: analyse saved inputs, print the comment, exit with the gate's code.
    Render(RenderArgs),
    /// The per-bot scorecard over recently merged PRs (markdown, JSON, SVG); GITHUB_TOKEN.
    Stats(StatsArgs),
    /// Build the HTTPS clients (TLS roots are bundled) and print OK: a container check.
    #[command(hide = true)]
    Doctor,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The repository, `OWNER/NAME`.
    #[arg(long, value_name = "OWNER/NAME")]
    pub repo: String,
    /// The pull request number.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub pr: u64,
    /// Write nothing to GitHub; print the comment instead.
    #[arg(long)]
    pub dry_run: bool,
    /// Also save what was fetched as a saved-API-JSON folder (replay it with `render`).
    #[arg(long, value_name = "DIR")]
    pub save: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct RenderArgs {
    /// Write the JSON report here.
    #[arg(long, value_name = "PATH")]
    pub report: Option<PathBuf>,
    /// Write the pairs the judge would be asked (JSONL, one pair a line, exactly as sent)
    /// and call no model; needs `--judge`.
    #[arg(long, value_name = "FILE")]
    pub judge_questions: Option<PathBuf>,
    /// Replay recorded verdicts (JSONL, one `{"id", "same", "why", "model"}` a line) instead
    /// of calling a model; needs `--judge`.
    #[arg(long, value_name = "FILE")]
    pub judge_answers: Option<PathBuf>,
    /// Every action input that makes sense offline, as `--<input> VALUE`.
    #[command(flatten)]
    pub inputs_as_flags: InputFlags,
    /// Saved-API-JSON folders, normalised-findings JSON files or SARIF files.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// The repository, `OWNER/NAME`.
    #[arg(long, value_name = "OWNER/NAME")]
    pub repo: String,
    /// The window: PRs merged in the last DAYS days.
    #[arg(long, value_name = "DAYS", default_value_t = 30,
          value_parser = clap::value_parser!(u32).range(1..=3650))]
    pub since: u32,
    /// The bots to score, as the `bots` input (default: every built-in adapter).
    #[arg(long, value_name = "IDS")]
    pub bots: Option<String>,
    /// Where scorecard.md, scorecard.json and scorecard.svg are written.
    #[arg(long, value_name = "DIR", default_value = "scorecard")]
    pub out: PathBuf,
    /// The per-PR cache, so a later run reads only new PRs (default: OUT/cache).
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
}

/// `render`'s flags: one per action input that is not online-only (`INPUT_NAMES` minus
/// `ONLINE_ONLY`), of the same name, validated by the same code as the input. A new input
/// becomes a flag by itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InputFlags(pub Vec<(String, String)>);

/// The inputs `render` takes as flags.
pub fn offline_inputs() -> impl Iterator<Item = &'static str> {
    INPUT_NAMES
        .iter()
        .copied()
        .filter(|name| !ONLINE_ONLY.contains(name))
}

/// What `--help` says of a flag: the input's meaning for the common ones.
fn flag_help(name: &str) -> String {
    let meaning = match name {
        "bots" => "adapter ids, `id=login` to map one (default: the bots that posted on the PR)",
        "bots-ran" => "the agreement denominator (default: the sources that ran)",
        "fail-on" => "confirmed, needs-verification, unverified or never (default confirmed)",
        "fail-on-severity" => "critical, high, medium or low: a finding at or above it also fails",
        "required-bots" => "sources that must have reviewed the head commit; `a|b` = one of them",
        "line-window" => "lines apart that still count as the same finding (default 3)",
        "title-overlap" => "title similarity, 0 to 1, for findings without a line (default 0.5)",
        "include-outdated" => "also take comments whose line left the diff",
        "include-resolved" => "also take comments in resolved threads",
        "include-pre-existing" => {
            "treat findings the bots mark pre-existing (not the PR's) like any other"
        }
        "comment-header" => "the sticky comment's marker suffix",
        "sarif" => "glob(s) of SARIF files, each an extra source",
        "sarif-output" => "also write the consensus results as SARIF 2.1.0 here, for code scanning",
        "judge" => {
            "off, github-models or openai: a model decides the pairs the fitted model cannot \
             (token from REVIEW_CONSENSUS_JUDGE_TOKEN)"
        }
        "judge-model" => "the judge's model (default openai/gpt-4.1-mini)",
        "judge-endpoint" => "the judge's chat-completions URL (https; default GitHub Models')",
        "judge-max-pairs" => "pairs asked per run at most (default 40)",
        "judge-keep" => "fitted links at or above this are not asked (default 0.95)",
        _ => "",
    };
    match meaning.split_at_checked(1) {
        Some((first, rest)) => format!("{}{rest}; the `{name}` input", first.to_uppercase()),
        None => format!("The `{name}` input (README, Inputs)"),
    }
}

impl Args for InputFlags {
    fn augment_args(command: clap::Command) -> clap::Command {
        offline_inputs().fold(command, |command, name| {
            let flag = Arg::new(name)
                .long(name)
                .help(flag_help(name))
                .allow_negative_numbers(true);
            let flag = if BOOLEAN_INPUTS.contains(&name) {
                // `--include-resolved` alone is `true`; `--include-resolved=false` too.
                flag.num_args(0..=1)
                    .require_equals(true)
                    .default_missing_value("true")
                    .value_name("BOOL")
            } else {
                flag.value_name("VALUE")
            };
            command.arg(flag)
        })
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        Self::augment_args(command)
    }
}

impl FromArgMatches for InputFlags {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        Ok(InputFlags(
            offline_inputs()
                .filter_map(|name| {
                    let value = matches.get_one::<String>(name)?;
                    Some((name.to_owned(), value.clone()))
                })
                .collect(),
        ))
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = InputFlags::from_arg_matches(matches)?;
        Ok(())
    }
}

/// The process environment as pairs; variables that are not UTF-8 cannot be ours.
pub fn env_pairs() -> Vec<(String, String)> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}

pub fn dispatch(cli: Cli, vars: Vec<(String, String)>) -> anyhow::Result<u8> {
    let in_actions = GitHubEnv::from_vars(vars.clone()).in_actions;
    match cli.command {
        None if in_actions => action_mode(vars),
        None => {
            print_err(&Cli::command().render_help().to_string());
            Ok(USAGE)
        }
        Some(Command::Demo) => demo_mode(),
        Some(Command::Run(args)) => run_mode(args, vars),
        Some(Command::Render(args)) => render_mode(args, vars),
        Some(Command::Stats(args)) => stats_mode(args, vars),
        Some(Command::Doctor) => {
            print_out(&doctor::check(&GitHubEnv::from_vars(vars))?);
            Ok(OK)
        }
    }
}

fn action_mode(vars: Vec<(String, String)>) -> anyhow::Result<u8> {
    let config = Config::from_inputs(vars.clone())?;
    let env = GitHubEnv::from_vars(vars);
    let event = read_event(&env)?;
    let found = resolve_pr(&config, &env, event.as_ref())?;
    let lookup = match found {
        Some(_) => None,
        None => head_lookup(&config, &env, event.as_ref())?,
    };
    if (found.is_some() || lookup.is_some()) && config.token.is_none() {
        return Err(ConfigError {
            input: "github-token".to_owned(),
            message: "empty; pass `${{ github.token }}` (the default) or another token".to_owned(),
        }
        .into());
    }
    let target = match (found, lookup) {
        (Some(target), _) => Some(target),
        (None, Some(lookup)) => {
            let target = runtime()?.block_on(action::find_pull(&config, &env, &lookup))?;
            if target.is_none() {
                print_out(&commands::notice(&format!(
                    "no open pull request has head commit {}; nothing to gate",
                    lookup.head_sha
                )));
                return Ok(OK);
            }
            target
        }
        (None, None) => None,
    };
    let Some(target) = target else {
        let event = env.event_name.as_deref().unwrap_or("unknown");
        print_out(&commands::notice(&format!(
            "no pull request in this `{event}` event; nothing to gate"
        )));
        return Ok(OK);
    };
    let result = run_request(&config, &env, target, false, None)?;
    Ok(gate_code(&result.outcome))
}

fn read_event(env: &GitHubEnv) -> anyhow::Result<Option<serde_json::Value>> {
    let Some(path) = &env.event_path else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(path).with_context(|| {
        format!(
            "cannot read the event payload GITHUB_EVENT_PATH={}",
            path.display()
        )
    })?;
    serde_json::from_str(&text)
        .map(Some)
        .with_context(|| format!("the event payload {} is not JSON", path.display()))
}

fn run_mode(args: RunArgs, vars: Vec<(String, String)>) -> anyhow::Result<u8> {
    let config = Config::from_inputs(vars.clone())?;
    if config.token.is_none() {
        return Err(ConfigError {
            input: "GITHUB_TOKEN".to_owned(),
            message: "not set; `run` reads the token from GITHUB_TOKEN".to_owned(),
        }
        .into());
    }
    let env = GitHubEnv::from_vars(vars);
    let (owner, repo) = match args.repo.split_once('/') {
        Some((o, r)) if !o.is_empty() && !r.is_empty() && !r.contains('/') => (o, r),
        _ => {
            return Err(ConfigError {
                input: "--repo".to_owned(),
                message: format!("`{}` is not `OWNER/NAME`", args.repo),
            }
            .into())
        }
    };
    let target = PrTarget {
        owner: owner.to_owned(),
        repo: repo.to_owned(),
        number: args.pr,
        head_sha: None,
        from_fork: false,
    };
    let result = run_request(&config, &env, target, args.dry_run, args.save)?;
    if args.dry_run {
        print_out(&result.comment);
    }
    print_err(&demo::verdict(&result.outcome));
    Ok(gate_code(&result.outcome))
}

fn run_request(
    config: &Config,
    env: &GitHubEnv,
    target: PrTarget,
    dry_run: bool,
    save_dir: Option<PathBuf>,
) -> anyhow::Result<action::RunResult> {
    runtime()?.block_on(action::run(RunRequest {
        config,
        env,
        target,
        dry_run,
        save_dir,
    }))
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

fn render_mode(args: RenderArgs, vars: Vec<(String, String)>) -> anyhow::Result<u8> {
    // The judge's token is never a flag: it comes from the environment.
    let judge_token = vars
        .iter()
        .rev()
        .find(|(k, v)| k == JUDGE_TOKEN_VAR && !v.trim().is_empty())
        .map(|(_, v)| ("INPUT_JUDGE-TOKEN".to_owned(), v.clone()));
    let pairs = args
        .inputs_as_flags
        .0
        .iter()
        .map(|(name, value)| (format!("INPUT_{}", name.to_uppercase()), value.clone()))
        .chain(judge_token);
    // The validators are the inputs'; the error names the flag.
    let config = Config::from_inputs(pairs).map_err(|e| ConfigError {
        input: format!("--{}", e.input),
        message: e.message,
    })?;
    if args.report.is_some() && args.report == config.sarif_output {
        return Err(ConfigError {
            input: "--sarif-output".to_owned(),
            message: "is also `--report`; accepted: a path other than the report's".to_owned(),
        }
        .into());
    }
    let (snapshot, mut extra) = local::load_inputs(&args.inputs)?;
    extra.extend(action::sarif_sources(
        &config.sarif,
        review_consensus::adapters::sarif::parse,
    ));
    let code_scanning = pipeline::code_scanning_sources(&extra);
    let marker = render::markdown::marker(config.comment_header.as_deref());
    let today = chrono::Utc::now().date_naive();
    let identity = local::offline_identity(snapshot.as_ref(), &marker, today);
    let mut options = pipeline::AnalysisOptions {
        identity,
        ..config.analysis_options()
    };
    let prepared = pipeline::prepare(snapshot.as_ref(), &config.sources, extra, &options);
    let given = judge_for_render(
        &args,
        &config,
        &vars,
        &prepared,
        snapshot.as_ref(),
        &options,
    )?;
    options.judge.given = given;
    let outcome = prepared.finish(snapshot.as_ref(), &options);
    let server_url = snapshot
        .as_ref()
        .map(|_| GitHubEnv::from_vars(vars).server_url);
    let comment = render::render_comment(
        &outcome,
        &RenderOptions {
            header: config.comment_header.clone(),
            server_url: server_url.clone(),
            ..RenderOptions::default()
        },
    );
    print_out(&comment);
    if let Some(path) = &args.report {
        outputs::write_report(path, &render::render_report(&outcome))
            .with_context(|| format!("cannot write the report to {}", path.display()))?;
    }
    if let Some(path) = &config.sarif_output {
        let options = SarifOptions {
            header: config.comment_header.clone(),
            server_url,
            code_scanning,
            ..SarifOptions::default()
        };
        let summary = outputs::write_sarif(path, &outcome, &options)
            .with_context(|| format!("cannot write the SARIF to {}", path.display()))?;
        let notes = [summary.left_out_note(), summary.cut_note()];
        for note in notes.into_iter().flatten() {
            print_err(&format!("SARIF: {note}"));
        }
    }
    print_err(&demo::verdict(&outcome));
    let code = gate_code(&outcome);
    // The process ends now: freeing 100,000 findings one by one would only cost time.
    std::mem::forget(outcome);
    Ok(code)
}

/// What the judge gives `render`: recorded verdicts (`--judge-answers`), none while writing
/// its questions (`--judge-questions`), else the live endpoint's, when the judge is on.
fn judge_for_render(
    args: &RenderArgs,
    config: &Config,
    vars: &[(String, String)],
    prepared: &pipeline::Prepared,
    snapshot: Option<&review_consensus::api::PrSnapshot>,
    options: &pipeline::AnalysisOptions,
) -> anyhow::Result<pipeline::Given> {
    let needs_judge = |flag: &str| -> anyhow::Result<()> {
        if config.judge.is_on() {
            return Ok(());
        }
        Err(ConfigError {
            input: flag.to_owned(),
            message: "needs the judge on: add `--judge github-models` (or `openai`)".to_owned(),
        }
        .into())
    };
    let shape = judge::plan::Shape::default();
    if let Some(path) = &args.judge_questions {
        needs_judge("--judge-questions")?;
        let questions = prepared.judge_questions(snapshot, options, shape);
        local::write_jsonl(path, &questions)
            .with_context(|| format!("cannot write the judge's questions to {}", path.display()))?;
        print_err(&format!(
            "judge: {} question(s) written to {}",
            questions.len(),
            path.display()
        ));
    }
    if let Some(path) = &args.judge_answers {
        needs_judge("--judge-answers")?;
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the judge's answers {}", path.display()))?;
        let answers = judge::answer::read_recorded(&text)
            .map_err(|e| anyhow::anyhow!("--judge-answers {}: {e}", path.display()))?;
        return Ok(pipeline::Given::replayed(answers));
    }
    if !config.judge.is_on() || args.judge_questions.is_some() {
        return Ok(pipeline::Given::default());
    }
    let token = config.judge_token().map_err(|e| ConfigError {
        input: if e.input == "judge-token" {
            JUDGE_TOKEN_VAR.to_owned()
        } else {
            format!("--{}", e.input)
        },
        message: e.message,
    })?;
    let Some(token) = token else {
        return Ok(pipeline::Given::default());
    };
    let endpoint = judge::client::Endpoint {
        provider: config.judge.provider,
        url: config.judge.endpoint.clone(),
        model: config.judge.model.clone(),
        token: token.clone(),
    };
    let questions = prepared.judge_questions(snapshot, options, shape);
    let lookup = |name: &str| {
        vars.iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let limits = judge::client::Limits::from_vars(lookup);
    let asked = runtime()?.block_on(judge::client::ask(&endpoint, &questions, limits));
    Ok(pipeline::Given::from(asked))
}

fn stats_mode(args: StatsArgs, vars: Vec<(String, String)>) -> anyhow::Result<u8> {
    let (owner, repo) = owner_and_name(&args.repo)?;
    let mut pairs: Vec<(String, String)> = vars
        .iter()
        .filter(|(k, _)| k == "GITHUB_TOKEN")
        .cloned()
        .collect();
    pairs.extend(args.bots.map(|bots| ("INPUT_BOTS".to_owned(), bots)));
    let config = Config::from_inputs(pairs).map_err(|e| ConfigError {
        input: format!("--{}", e.input),
        message: e.message,
    })?;
    let Some(token) = config.token.as_ref() else {
        return Err(ConfigError {
            input: "GITHUB_TOKEN".to_owned(),
            message: "not set; `stats` reads the token from GITHUB_TOKEN".to_owned(),
        }
        .into());
    };
    let env = GitHubEnv::from_vars(vars.clone());
    let var = |name: &str| lookup(&vars, name);
    let mut retry = RetryPolicy::from_vars(var);
    if var(retry::MAX_WAIT_VAR).is_none() {
        // A scheduled job can wait out an exhausted hourly quota; the action cannot.
        retry.max_wait = STATS_MAX_WAIT;
    }
    let cache_dir = args.cache.clone().unwrap_or_else(|| args.out.join("cache"));
    // Every PR is read with one list, so that "absent" compares across the window; bots
    // never seen are named apart in the scorecard.
    let sources = match &config.sources {
        BotSelection::Listed(sources) => sources.clone(),
        BotSelection::Posted { .. } => review_consensus::adapters::default_sources(),
    };
    let request = stats::StatsRequest {
        owner,
        repo,
        since_days: args.since,
        sources: &sources,
        out_dir: args.out,
        cache_dir,
        now: chrono::Utc::now(),
        terminal: std::io::stderr().is_terminal(),
        in_actions: env.in_actions,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    // octocrab's client must be built inside the runtime.
    let result = runtime.block_on(async {
        let gh = GitHub::new(&env.api_url, &env.graphql_url, Some(token))?.with_retry(retry);
        stats::run(&gh, request).await
    })?;
    for warning in &result.warnings {
        if env.in_actions {
            print_out(&commands::warning(warning));
        } else {
            print_err(&format!("warning: {warning}"));
        }
    }
    print_out(&result.markdown);
    let files: Vec<String> = result
        .files
        .iter()
        .map(|f| f.display().to_string())
        .collect();
    print_err(&format!(
        "{} merged PRs: {} read from GitHub, {} from the cache; wrote {}",
        result.scorecard.merged_prs,
        result.fetched,
        result.cached,
        files.join(", ")
    ));
    Ok(OK)
}

/// How long one wait for GitHub's rate limit may last in `stats` (the hourly reset).
const STATS_MAX_WAIT: std::time::Duration = std::time::Duration::from_secs(3_600);

/// `OWNER/NAME` split, or a usage error naming `--repo`.
fn owner_and_name(text: &str) -> Result<(String, String), ConfigError> {
    match text.split_once('/') {
        Some((o, r)) if !o.is_empty() && !r.is_empty() && !r.contains('/') => {
            Ok((o.to_owned(), r.to_owned()))
        }
        _ => Err(ConfigError {
            input: "--repo".to_owned(),
            message: format!("`{text}` is not `OWNER/NAME`"),
        }),
    }
}

/// A variable from the pairs, the last one winning as in a process environment.
fn lookup(vars: &[(String, String)], name: &str) -> Option<String> {
    vars.iter()
        .rev()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
}

fn demo_mode() -> anyhow::Result<u8> {
    let demo = demo::run()?;
    print_out(&demo.comment);
    print_out(&demo.verdict);
    // The demo shows a verdict; it did not gate anything.
    Ok(OK)
}

fn gate_code(outcome: &Outcome) -> u8 {
    u8::try_from(outcome.gate.exit_code()).unwrap_or(1)
}

/// The only place the CLI writes to stdout (the comment, workflow commands). A closed pipe
/// (`| head`) is not an error worth a panic.
pub fn print_out(text: &str) {
    let _ = writeln!(std::io::stdout().lock(), "{}", text.trim_end_matches('\n'));
}

/// The only place the CLI writes to stderr (help, verdicts, plain errors).
pub fn print_err(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{}", text.trim_end_matches('\n'));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every input that makes sense offline is a `render` flag of the same name, and its
    /// value reaches the configuration exactly as the input's would.
    #[test]
    fn every_offline_input_is_a_render_flag() {
        let command = Cli::command();
        let render = command
            .find_subcommand("render")
            .expect("render subcommand");
        for name in INPUT_NAMES {
            let flag = render.get_arguments().any(|a| a.get_long() == Some(name));
            assert_eq!(
                flag,
                !ONLINE_ONLY.contains(name),
                "`{name}`: a render flag exactly when it is not online-only"
            );
        }
        for name in ONLINE_ONLY {
            assert!(INPUT_NAMES.contains(name), "`{name}` is no input");
        }
        let cli = Cli::try_parse_from([
            "review-consensus",
            "render",
            "--fail-on-severity",
            "high",
            "--required-bots",
            "coderabbit|sourcery",
            "--include-resolved",
            "--line-window",
            "-1",
            "pr/",
        ])
        .expect("parses");
        let Some(Command::Render(args)) = cli.command else {
            panic!("render");
        };
        // In INPUT_NAMES order, a bare boolean flag as `true`.
        let expected = [
            ("fail-on-severity", "high"),
            ("required-bots", "coderabbit|sourcery"),
            ("line-window", "-1"),
            ("include-resolved", "true"),
        ]
        .map(|(k, v)| (k.to_owned(), v.to_owned()));
        assert_eq!(args.inputs_as_flags.0, expected);
        assert_eq!(args.inputs, [PathBuf::from("pr/")]);

        // Every offline flag at once, `=` or not: each lands under its input's name.
        let mut argv = vec!["review-consensus".to_owned(), "render".to_owned()];
        for name in offline_inputs() {
            argv.push(format!("--{name}=value-of-{name}"));
        }
        argv.push("pr/".to_owned());
        let cli = Cli::try_parse_from(argv).expect("parses");
        let Some(Command::Render(args)) = cli.command else {
            panic!("render");
        };
        let names: Vec<&str> = args
            .inputs_as_flags
            .0
            .iter()
            .map(|(k, _)| k.as_str())
            .collect();
        assert_eq!(names, offline_inputs().collect::<Vec<_>>());
        assert!(args
            .inputs_as_flags
            .0
            .iter()
            .all(|(k, v)| *v == format!("value-of-{k}")));
    }

    /// A flag's help leads with the input's meaning; an input added later (`matching`) still
    /// gets a flag, whose help points at the README.
    #[test]
    fn flag_help_names_the_input() {
        assert_eq!(
            flag_help("required-bots"),
            "Sources that must have reviewed the head commit; `a|b` = one of them; the \
             `required-bots` input"
        );
        assert_eq!(
            flag_help("matching"),
            "The `matching` input (README, Inputs)"
        );
        for name in offline_inputs() {
            assert!(flag_help(name).contains(&format!("`{name}`")), "{name}");
        }
    }
}
