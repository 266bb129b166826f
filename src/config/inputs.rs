//! Stage one and two of the action inputs: raw optional strings from `INPUT_*` pairs (the
//! runner sends every declared input, unset ones as empty strings), then one validator per
//! input, each error naming the input and what it accepts.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use secrecy::SecretString;
use serde::Deserialize;

use super::{judge_inputs, Config, ConfigError};
use crate::adapters::{self, BotSelection, SourceConfig};
use crate::consensus::Matching;
use crate::gate::RequiredGroup;
use crate::model::{FailOn, Severity};

/// Every input, spelled as in action.yml (the drift test compares this list with it).
pub const INPUT_NAMES: &[&str] = &[
    "github-token",
    "bots",
    "bots-ran",
    "fail-on",
    "fail-on-severity",
    "matching",
    "required-bots",
    "wait-for-bots",
    "line-window",
    "title-overlap",
    "pr-number",
    "include-outdated",
    "include-resolved",
    "include-pre-existing",
    "check-name",
    "comment",
    "comment-header",
    "sarif",
    "report-path",
    "sarif-output",
    "judge",
    "judge-model",
    "judge-endpoint",
    "judge-token",
    "judge-max-pairs",
    "judge-keep",
];

/// Inputs that only mean something against GitHub: `render` has no flag for them. Every other
/// input is a `render` flag of the same name (`cli.rs` derives them from `INPUT_NAMES`).
pub const ONLINE_ONLY: &[&str] = &[
    "github-token",
    "pr-number",
    "check-name",
    "comment",
    "report-path",
    "wait-for-bots",
    // A secret is never a command-line flag: `render` reads REVIEW_CONSENSUS_JUDGE_TOKEN.
    "judge-token",
];

/// Inputs read as `true` / `false`: as `render` flags they may stand alone (`--include-resolved`).
pub const BOOLEAN_INPUTS: &[&str] = &[
    "include-outdated",
    "include-resolved",
    "include-pre-existing",
    "comment",
];

/// The longest `wait-for-bots` (a job's minutes are billed; bots that take longer are late).
pub const MAX_WAIT: Duration = Duration::from_secs(30 * 60);

const DEFAULT_LINE_WINDOW: u32 = 3;
const DEFAULT_TITLE_OVERLAP: f64 = 0.5;
const REPORT_FILE: &str = "review-consensus.json";

/// The inputs as the runner passes them: text, possibly empty. Envy lowercases the keys
/// after `INPUT_`, so `INPUT_FAIL-ON` lands on `fail-on`.
#[derive(Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct RawInputs {
    github_token: Option<String>,
    bots: Option<String>,
    bots_ran: Option<String>,
    fail_on: Option<String>,
    fail_on_severity: Option<String>,
    matching: Option<String>,
    required_bots: Option<String>,
    wait_for_bots: Option<String>,
    line_window: Option<String>,
    title_overlap: Option<String>,
    pr_number: Option<String>,
    include_outdated: Option<String>,
    include_resolved: Option<String>,
    include_pre_existing: Option<String>,
    check_name: Option<String>,
    comment: Option<String>,
    comment_header: Option<String>,
    sarif: Option<String>,
    report_path: Option<String>,
    sarif_output: Option<String>,
    judge: Option<String>,
    judge_model: Option<String>,
    judge_endpoint: Option<String>,
    judge_token: Option<String>,
    judge_max_pairs: Option<String>,
    judge_keep: Option<String>,
}

// Hand-written so that the token can never reach a log through `{:?}`.
impl fmt::Debug for RawInputs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RawInputs")
            .field(
                "github_token",
                &self.github_token.as_ref().map(|_| "[REDACTED]"),
            )
            .field(
                "judge_token",
                &self.judge_token.as_ref().map(|_| "[REDACTED]"),
            )
            .field("bots", &self.bots)
            .field("fail_on", &self.fail_on)
            .finish_non_exhaustive()
    }
}

fn error(input: &str, message: impl Into<String>) -> ConfigError {
    ConfigError {
        input: input.to_owned(),
        message: message.into(),
    }
}

/// An input's value, trimmed; empty means unset.
fn set(value: &Option<String>) -> Option<&str> {
    value.as_deref().map(str::trim).filter(|v| !v.is_empty())
}

pub(super) fn from_pairs(pairs: Vec<(String, String)>) -> Result<Config, ConfigError> {
    let fallback_token = lookup(&pairs, "GITHUB_TOKEN");
    let runner_temp = lookup(&pairs, "RUNNER_TEMP");
    let github_hosts: Vec<String> = ["GITHUB_API_URL", "GITHUB_SERVER_URL"]
        .iter()
        .filter_map(|name| lookup(&pairs, name))
        .filter_map(|url| judge_inputs::host_of(&url).map(str::to_owned))
        .collect();
    let raw: RawInputs = envy::prefixed("INPUT_")
        .from_iter(pairs)
        .map_err(|e| error("inputs", format!("cannot read the INPUT_* variables: {e}")))?;

    let token = set(&raw.github_token)
        .map(str::to_owned)
        .or(fallback_token)
        .map(SecretString::from);
    let report_path = match set(&raw.report_path) {
        Some(path) => PathBuf::from(path),
        None => runner_temp
            .map(PathBuf::from)
            .unwrap_or_else(std::env::temp_dir)
            .join(REPORT_FILE),
    };
    let mut sources = parse_bots(set(&raw.bots))?;
    let required_bots = parse_required(set(&raw.required_bots), listed(&sources))?;
    add_required(&mut sources, &required_bots);
    let sarif = parse_sarif(set(&raw.sarif))?;
    let sarif_output = set(&raw.sarif_output)
        .map(|path| parse_sarif_output(path, &sarif, &report_path))
        .transpose()?;
    let (judge, judge_token) = judge_inputs::parse(
        &judge_inputs::Raw {
            judge: set(&raw.judge),
            model: set(&raw.judge_model),
            endpoint: set(&raw.judge_endpoint),
            token: set(&raw.judge_token),
            max_pairs: set(&raw.judge_max_pairs),
            keep: set(&raw.judge_keep),
        },
        token.as_ref(),
        &github_hosts,
    )?;
    Ok(Config {
        token,
        sources,
        required_bots,
        bots_ran: set(&raw.bots_ran)
            .map(|v| parse_positive("bots-ran", v))
            .transpose()?
            .map(|n| n as usize),
        fail_on: set(&raw.fail_on)
            .map(parse_fail_on)
            .transpose()?
            .unwrap_or_default(),
        fail_on_severity: set(&raw.fail_on_severity)
            .map(parse_fail_on_severity)
            .transpose()?,
        wait_for_bots: set(&raw.wait_for_bots)
            .map(parse_wait)
            .transpose()?
            .unwrap_or(Duration::ZERO),
        matching: set(&raw.matching)
            .map(parse_matching)
            .transpose()?
            .unwrap_or_default(),
        line_window: set(&raw.line_window)
            .map(parse_line_window)
            .transpose()?
            .unwrap_or(DEFAULT_LINE_WINDOW),
        title_overlap: set(&raw.title_overlap)
            .map(parse_title_overlap)
            .transpose()?
            .unwrap_or(DEFAULT_TITLE_OVERLAP),
        pr_number: set(&raw.pr_number)
            .map(|v| parse_positive("pr-number", v))
            .transpose()?,
        include_outdated: parse_bool("include-outdated", set(&raw.include_outdated), false)?,
        include_resolved: parse_bool("include-resolved", set(&raw.include_resolved), false)?,
        include_pre_existing: parse_bool(
            "include-pre-existing",
            set(&raw.include_pre_existing),
            false,
        )?,
        check_name: set(&raw.check_name).map(str::to_owned),
        comment: parse_bool("comment", set(&raw.comment), true)?,
        comment_header: set(&raw.comment_header)
            .map(parse_comment_header)
            .transpose()?,
        sarif,
        report_path,
        sarif_output,
        judge,
        judge_token,
    })
}

/// A plain variable from the same pairs, empty meaning unset.
fn lookup(pairs: &[(String, String)], name: &str) -> Option<String> {
    pairs
        .iter()
        .rev()
        .find(|(k, v)| k == name && !v.trim().is_empty())
        .map(|(_, v)| v.trim().to_owned())
}

/// Comma- or newline-separated items, trimmed, empty ones dropped.
fn split_list(text: &str) -> impl Iterator<Item = &str> {
    text.split([',', '\n', '\r'])
        .map(str::trim)
        .filter(|item| !item.is_empty())
}

/// `bots`: adapter ids, each optionally `id=login` to read another login. Repeated ids
/// merge; a bare id reads the adapter's default logins (besides any `id=login` of it).
/// Unset or empty: the built-in bots that posted on the PR (`BotSelection::Posted`).
pub(super) fn parse_bots(text: Option<&str>) -> Result<BotSelection, ConfigError> {
    let Some(text) = text else {
        return Ok(BotSelection::default());
    };
    let known = || {
        adapters::registry()
            .iter()
            .map(|a| a.id())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut sources: Vec<SourceConfig> = Vec::new();
    for item in split_list(text) {
        let (id, login) = match item.split_once('=') {
            Some((id, login)) => (id.trim(), Some(login.trim())),
            None => (item, None),
        };
        let Some(adapter) = adapters::registry().iter().find(|a| a.id() == id) else {
            return Err(error(
                "bots",
                format!(
                    "unknown adapter id `{id}`; known ids: {}; use `id=login` to read another login",
                    known()
                ),
            ));
        };
        let logins: Vec<String> = match login {
            Some("") => {
                return Err(error(
                    "bots",
                    format!("`{item}` has no login after `=`; write `{id}=login`"),
                ))
            }
            Some(login) => vec![login.to_owned()],
            None => adapter
                .default_logins()
                .iter()
                .map(|l| (*l).to_owned())
                .collect(),
        };
        match sources.iter_mut().find(|s| s.adapter == id) {
            Some(source) => {
                for login in logins {
                    if !source.logins.contains(&login) {
                        source.logins.push(login);
                    }
                }
            }
            None => sources.push(SourceConfig {
                adapter: id.to_owned(),
                logins,
            }),
        }
    }
    if sources.is_empty() {
        return Ok(BotSelection::default());
    }
    Ok(BotSelection::Listed(sources))
}

pub(super) fn parse_fail_on(text: &str) -> Result<FailOn, ConfigError> {
    FailOn::parse(&text.to_ascii_lowercase()).ok_or_else(|| {
        error(
            "fail-on",
            format!("`{text}` is not a level; accepted: {}", FailOn::ACCEPTED),
        )
    })
}

pub(super) fn parse_fail_on_severity(text: &str) -> Result<Severity, ConfigError> {
    Severity::parse(&text.to_ascii_lowercase())
        .filter(|s| *s > Severity::Info)
        .ok_or_else(|| {
            error(
                "fail-on-severity",
                format!("`{text}` is not a severity; accepted: {}", Severity::FLOORS),
            )
        })
}

/// `required-bots`: comma or newline separated groups, `a|b` meaning one of them suffices.
/// Each member is an adapter id or the name of a login mapped with `generic=login`.
pub(super) fn parse_required(
    text: Option<&str>,
    sources: &[SourceConfig],
) -> Result<Vec<RequiredGroup>, ConfigError> {
    let Some(text) = text else {
        return Ok(Vec::new());
    };
    let mapped: Vec<String> = sources
        .iter()
        .filter(|s| adapters::source_per_login(&s.adapter))
        .flat_map(|s| s.logins.iter().map(|l| adapters::bot_name(l)))
        .collect();
    let mut groups = Vec::new();
    for item in split_list(text) {
        let mut members = Vec::new();
        for member in item.split('|').map(str::trim) {
            let known = (adapters::is_known(member) && !adapters::source_per_login(member))
                || mapped.iter().any(|m| m == member);
            if member.is_empty() || !known {
                return Err(error(
                    "required-bots",
                    format!(
                        "`{member}` in `{item}` is not a source; accepted: adapter ids ({}) or a \
                         login mapped with `bots: generic=login`, `|` between alternatives, \
                         commas between groups",
                        adapters::default_sources()
                            .into_iter()
                            .map(|s| s.adapter)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
            if !members.iter().any(|m| m == member) {
                members.push(member.to_owned());
            }
        }
        groups.push(RequiredGroup(members));
    }
    Ok(groups)
}

/// The sources `bots` lists (none when unset).
fn listed(selection: &BotSelection) -> &[SourceConfig] {
    match selection {
        BotSelection::Listed(sources) => sources,
        BotSelection::Posted { .. } => &[],
    }
}

/// A required bot is always a configured source, whatever `bots` says: added to the list
/// (with its default logins) when `bots` is set, else read and shown even when it never
/// posted (`BotSelection::Posted { also }`), so that silence fails the gate as "not
/// reviewed" instead of leaving the bot out. A login mapped with `generic=login` is
/// already a source.
fn add_required(selection: &mut BotSelection, required: &[RequiredGroup]) {
    let mapped = |member: &str| {
        listed(selection).iter().any(|s| {
            adapters::source_per_login(&s.adapter)
                && s.logins.iter().any(|l| adapters::bot_name(l) == member)
        })
    };
    let missing: Vec<&str> = required
        .iter()
        .flat_map(|g| g.0.iter().map(String::as_str))
        .filter(|member| !mapped(member))
        .collect();
    selection.require(&missing);
}

/// `wait-for-bots`: `0`, `90s`, `10m`; at most `MAX_WAIT`.
pub(super) fn parse_wait(text: &str) -> Result<Duration, ConfigError> {
    let bad = || {
        error(
            "wait-for-bots",
            format!(
                "`{text}` is not a wait; accepted: 0 (decide at once), seconds as `90s` or \
                 minutes as `10m`, at most `30m`"
            ),
        )
    };
    let lower = text.trim().to_ascii_lowercase();
    if lower == "0" {
        return Ok(Duration::ZERO);
    }
    let unit_at = lower.char_indices().last().map_or(0, |(i, _)| i);
    let (number, unit) = lower.split_at(unit_at);
    let n: u64 = number.trim().parse().map_err(|_| bad())?;
    let wait = match unit {
        "s" => Duration::from_secs(n),
        "m" => Duration::from_secs(n.saturating_mul(60)),
        _ => return Err(bad()),
    };
    if wait > MAX_WAIT {
        return Err(bad());
    }
    Ok(wait)
}

pub(super) fn parse_matching(text: &str) -> Result<Matching, ConfigError> {
    Matching::parse(&text.to_ascii_lowercase()).ok_or_else(|| {
        error(
            "matching",
            format!(
                "`{text}` is not a matching mode; accepted: {} (default issue)",
                Matching::ACCEPTED
            ),
        )
    })
}

pub(super) fn parse_positive(input: &str, text: &str) -> Result<u64, ConfigError> {
    match text.parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(error(
            input,
            format!("`{text}` is not a positive integer; accepted: 1, 2, 3, ..."),
        )),
    }
}

pub(super) fn parse_line_window(text: &str) -> Result<u32, ConfigError> {
    text.parse::<u32>().map_err(|_| {
        error(
            "line-window",
            format!("`{text}` is not a non-negative integer; accepted: 0, 1, 2, ... (default 3)"),
        )
    })
}

pub(super) fn parse_title_overlap(text: &str) -> Result<f64, ConfigError> {
    match text.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(error(
            "title-overlap",
            format!("`{text}` is not a number from 0 to 1; accepted: e.g. 0, 0.5, 1 (default 0.5)"),
        )),
    }
}

fn parse_bool(input: &str, text: Option<&str>, default: bool) -> Result<bool, ConfigError> {
    match text.map(str::to_ascii_lowercase).as_deref() {
        None => Ok(default),
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        Some(_) => Err(error(
            input,
            format!(
                "`{}` is not a boolean; accepted: true, false",
                text.unwrap_or_default()
            ),
        )),
    }
}

/// The header goes inside `<!-- review-bot-ack:HEADER -->`: nothing that could end the
/// comment or start markup, and no line breaks (the marker must stay on the first line).
fn parse_comment_header(text: &str) -> Result<String, ConfigError> {
    let bad = ["-->", "--!>", "<", ">", "\n", "\r"];
    if let Some(found) = bad.iter().find(|b| text.contains(*b)) {
        return Err(error(
            "comment-header",
            format!(
                "contains `{}`; accepted: one line of text without `<`, `>` or `-->`",
                found.escape_debug()
            ),
        ));
    }
    Ok(text.to_owned())
}

fn parse_sarif(text: Option<&str>) -> Result<Vec<String>, ConfigError> {
    let Some(text) = text else {
        return Ok(Vec::new());
    };
    split_list(text)
        .map(|pattern| {
            glob::Pattern::new(pattern).map(|_| pattern.to_owned()).map_err(|e| {
                error(
                    "sarif",
                    format!("`{pattern}` is not a valid glob ({e}); accepted: comma or newline separated globs such as `reports/*.sarif`"),
                )
            })
        })
        .collect()
}

/// `sarif-output`: a file to write, which the run must not read back as a bot's SARIF (a
/// `sarif` glob matching it) nor share with the report.
fn parse_sarif_output(
    text: &str,
    sarif: &[String],
    report_path: &std::path::Path,
) -> Result<PathBuf, ConfigError> {
    let accepted = "accepted: a file path such as `review-consensus.sarif`";
    if text.ends_with(['/', '\\']) {
        return Err(error(
            "sarif-output",
            format!("`{text}` is a folder; {accepted}"),
        ));
    }
    let path = PathBuf::from(text);
    if path == report_path {
        return Err(error(
            "sarif-output",
            format!("`{text}` is also `report-path`; {accepted} other than the report's"),
        ));
    }
    let read_back = sarif
        .iter()
        .find(|pattern| glob::Pattern::new(pattern).is_ok_and(|p| p.matches_path(&path)));
    if let Some(pattern) = read_back {
        return Err(error(
            "sarif-output",
            format!(
                "`{text}` matches the `sarif` input `{pattern}`, so our own results would be \
                 read back as a bot's; {accepted} outside the `sarif` globs"
            ),
        ));
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sarif_output_is_a_file_of_its_own() {
        let config = |pairs: &[(&str, &str)]| {
            from_pairs(
                pairs
                    .iter()
                    .map(|(k, v)| (format!("INPUT_{}", k.to_uppercase()), (*v).to_owned()))
                    .collect(),
            )
        };
        let ok = config(&[("sarif-output", " out/rc.sarif ")]).expect("valid");
        assert_eq!(ok.sarif_output, Some(PathBuf::from("out/rc.sarif")));
        assert_eq!(
            config(&[("sarif-output", "")]).expect("unset").sarif_output,
            None
        );
        for (pairs, says) in [
            (vec![("sarif-output", "out/")], "is a folder"),
            (
                vec![("sarif-output", "r.json"), ("report-path", "r.json")],
                "also `report-path`",
            ),
            (
                vec![
                    ("sarif-output", "scans/rc.sarif"),
                    ("sarif", "scans/*.sarif"),
                ],
                "read back as a bot's",
            ),
        ] {
            let err = config(&pairs).expect_err("refused");
            assert_eq!(err.input, "sarif-output");
            assert!(err.message.contains(says), "{}", err.message);
        }
    }

    /// The drift test ties INPUT_NAMES to action.yml; this ties it to the parser: every
    /// name reaches exactly one field (as the runner spells it, `INPUT_FAIL-ON`), and there
    /// is no field without a name.
    #[test]
    fn every_input_name_reaches_exactly_one_field() {
        for name in INPUT_NAMES {
            let key = format!("INPUT_{}", name.to_uppercase());
            let raw: RawInputs = envy::prefixed("INPUT_")
                .from_iter([(key, "x".to_owned())])
                .expect("reads");
            let fields = [
                &raw.github_token,
                &raw.bots,
                &raw.bots_ran,
                &raw.fail_on,
                &raw.fail_on_severity,
                &raw.required_bots,
                &raw.wait_for_bots,
                &raw.matching,
                &raw.line_window,
                &raw.title_overlap,
                &raw.pr_number,
                &raw.include_outdated,
                &raw.include_resolved,
                &raw.include_pre_existing,
                &raw.check_name,
                &raw.comment,
                &raw.comment_header,
                &raw.sarif,
                &raw.report_path,
                &raw.sarif_output,
                &raw.judge,
                &raw.judge_model,
                &raw.judge_endpoint,
                &raw.judge_token,
                &raw.judge_max_pairs,
                &raw.judge_keep,
            ];
            assert_eq!(fields.len(), INPUT_NAMES.len(), "a field without a name");
            let set = fields.iter().filter(|f| f.is_some()).count();
            assert_eq!(set, 1, "`{name}` reaches {set} fields");
        }
    }
}
