//! The consensus results as one SARIF 2.1.0 run, for `github/codeql-action/upload-sarif`
//! (the `sarif-output` input, CONTRACT section 3; README, "Code scanning (SARIF)").
//!
//! One result per surfaced finding, one rule per taxonomy class, the finding's fingerprint
//! as `partialFingerprints` and an `automationDetails.id` of our own, so the upload is an
//! analysis beside the bots' own code scanning, never in place of it. Findings that only
//! code-scanning sources raised (`gh-advanced-security`, SARIF inputs) are already alerts and
//! are left out; so are PR-wide findings, which have no file to point at, and pre-existing
//! ones (not the PR's, never gating), which are counted in the run's summary. The run stays
//! within GitHub's upload limits, cutting the lowest tier first and saying so in the run.

use std::collections::BTreeMap;
use std::io;

use serde::Serialize;

use crate::model::{ConsensusLevel, MatchReason, Outcome, Severity, SynthesizedFinding};
use crate::render::escape;
use crate::synthesis::TOOL_VERIFIED;

pub const TOOL_NAME: &str = "review-consensus";

fn is_zero(n: &usize) -> bool {
    *n == 0
}
const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// `partialFingerprints` key: GitHub matches results across runs by it. Versioned with the
/// fingerprint recipe (docs/identity.md; a test ties the two).
const FINGERPRINT_KEY: &str = "reviewConsensusFingerprint/v1";
/// Paths are relative to the repository's root, which this names (as CodeQL does).
const SRCROOT: &str = "%SRCROOT%";

/// Results code scanning keeps of one run: it stores the top 5,000 by severity and rejects
/// an upload of more than 25,000 (GitHub Docs, "SARIF results exceed one or more limits").
pub const MAX_RESULTS: usize = 5_000;
/// The largest upload code scanning accepts is 10 MB (GitHub Docs, "SARIF file is too
/// large"); it counts the gzip-compressed file, we keep the file itself under it.
pub const MAX_BYTES: usize = 10_000_000;
/// Room kept for the run's envelope (tool, rules are counted per result, notifications).
const ENVELOPE_RESERVE: usize = 16 * 1024;

/// What the SARIF run needs besides the outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SarifOptions {
    /// `comment-header`: a second configuration gets a category of its own.
    pub header: Option<String>,
    /// Web base (`https://github.com`): with the repository and head commit it names the
    /// revision analysed (`versionControlProvenance`).
    pub server_url: Option<String>,
    /// Sources whose findings are code scanning already (the SARIF inputs), besides
    /// `gh-advanced-security`.
    pub code_scanning: Vec<String>,
    pub max_results: usize,
    pub max_bytes: usize,
}

impl Default for SarifOptions {
    fn default() -> Self {
        SarifOptions {
            header: None,
            server_url: None,
            code_scanning: Vec::new(),
            max_results: MAX_RESULTS,
            max_bytes: MAX_BYTES,
        }
    }
}

/// The SARIF log as text, and what it left out.
#[derive(Debug, Clone, PartialEq)]
pub struct Sarif {
    pub json: String,
    pub summary: SarifSummary,
}

/// How many surfaced findings became results, and why the others did not.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifSummary {
    pub results: usize,
    /// Raised only by code-scanning sources: already alerts of their own.
    pub code_scanning_only: usize,
    /// PR-wide (no file): code scanning needs a location.
    pub without_file: usize,
    /// Findings the bots say the PR did not introduce (pre-existing): never results, as they
    /// never gate. Omitted when zero.
    #[serde(skip_serializing_if = "is_zero")]
    pub pre_existing: usize,
    /// Cut to stay within GitHub's limits, lowest tier first.
    pub cut: usize,
    /// The highest level among the cut ones, when any was cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut_from: Option<ConsensusLevel>,
}

impl SarifSummary {
    /// One line for the job log and the run's notifications, when something was cut.
    pub fn cut_note(&self) -> Option<String> {
        let from = self.cut_from?;
        Some(format!(
            "{} finding(s) not in the SARIF, cut to stay within code scanning's limits \
             ({MAX_RESULTS} results, {} MB), lowest tier first (from {from} down); the \
             JSON report has them all",
            self.cut,
            MAX_BYTES / 1_000_000
        ))
    }

    /// Findings left out for what they are (not for the limits), for the log.
    pub fn left_out_note(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.code_scanning_only > 0 {
            parts.push(format!(
                "{} raised only by code scanning (already alerts)",
                self.code_scanning_only
            ));
        }
        if self.without_file > 0 {
            parts.push(format!(
                "{} PR-wide without a file to point at",
                self.without_file
            ));
        }
        if self.pre_existing > 0 {
            parts.push(format!(
                "{} pre-existing (not introduced by this PR)",
                self.pre_existing
            ));
        }
        (!parts.is_empty()).then(|| format!("not in the SARIF: {}", parts.join(", ")))
    }
}

/// Render the run. Pure; the caller writes `json` to the `sarif-output` path.
pub fn render_sarif(outcome: &Outcome, options: &SarifOptions) -> Sarif {
    let mut summary = SarifSummary {
        pre_existing: outcome.pre_existing().count(),
        ..SarifSummary::default()
    };
    let is_code_scanning =
        |bot: &String| TOOL_VERIFIED.contains(&bot.as_str()) || options.code_scanning.contains(bot);
    let mut candidates: Vec<&SynthesizedFinding> = Vec::new();
    for finding in outcome.surfaced() {
        if finding.consensus.detected_by.iter().all(is_code_scanning) {
            summary.code_scanning_only += 1;
        } else if finding.consensus.file.trim_matches('/').is_empty() {
            summary.without_file += 1;
        } else {
            candidates.push(finding);
        }
    }
    // Highest tier first; within a tier the outcome's rank order (the sort is stable).
    candidates.sort_by_key(|f| std::cmp::Reverse(f.consensus.level));

    let mut rules: Vec<Rule> = Vec::new();
    let mut results: Vec<SarifResult<'_>> = Vec::new();
    let mut budget = options.max_bytes.saturating_sub(ENVELOPE_RESERVE);
    for (kept, finding) in candidates.iter().enumerate() {
        let id = rule_id(&finding.consensus.category);
        let known = rules.iter().position(|r| r.id == id);
        let rule_index = known.unwrap_or(rules.len());
        let result = SarifResult::new(finding, id.clone(), rule_index, outcome.bots_ran);
        let rule = known.is_none().then(|| Rule::new(id));
        let cost = json_len(&result) + 1 + rule.as_ref().map_or(0, |r| json_len(r) + 1);
        if kept >= options.max_results || cost > budget {
            summary.cut = candidates.len() - kept;
            summary.cut_from = Some(finding.consensus.level);
            break;
        }
        budget -= cost;
        rules.extend(rule);
        results.push(result);
    }
    summary.results = results.len();

    let notes: Vec<Notification> = summary
        .cut_note()
        .map(|text| Notification::new("warning", "results-cut", text))
        .into_iter()
        .chain(
            summary
                .left_out_note()
                .map(|text| Notification::new("note", "results-left-out", text)),
        )
        .collect();
    let log = Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: [Run {
            tool: Tool {
                driver: Driver {
                    name: TOOL_NAME,
                    version: env!("CARGO_PKG_VERSION"),
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    information_uri: env!("CARGO_PKG_REPOSITORY"),
                    rules,
                },
            },
            automation_details: AutomationDetails {
                id: format!("{}/", category(options.header.as_deref())),
            },
            version_control_provenance: provenance(outcome, options.server_url.as_deref()),
            invocations: [Invocation {
                execution_successful: true,
                tool_execution_notifications: notes,
            }],
            results,
            properties: RunProperties {
                gate: outcome.gate.as_str(),
                bots_ran: outcome.bots_ran,
                surfaced: outcome.surfaced().count(),
                summary: &summary,
            },
        }],
    };
    // Our own types always serialise (string keys only); a failure would be a bug.
    let json = serde_json::to_string(&log).unwrap_or_default();
    Sarif { json, summary }
}

/// The category of our analysis: `review-consensus`, or `review-consensus/HEADER` for a
/// second configuration (`comment-header`). Never a bot's, so uploading it replaces no
/// other tool's results.
pub fn category(header: Option<&str>) -> String {
    match header.map(str::trim).filter(|h| !h.is_empty()) {
        None => TOOL_NAME.to_owned(),
        Some(header) => format!("{TOOL_NAME}/{}", slug(header)),
    }
}

/// Letters, digits, `.`, `_` and `-` kept, anything else a `-`.
fn slug(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

/// The rule of a taxonomy class: `security`, `bug`, ... (a normalised-findings file may
/// bring classes of its own, made safe as ids).
fn rule_id(category: &str) -> String {
    let id = slug(category.trim());
    if id.trim_matches('-').is_empty() {
        "other".to_owned()
    } else {
        id
    }
}

/// Code scanning's level: confirmed findings are errors unless minor, a lone bot's finding
/// is a note unless severe.
fn sarif_level(level: ConsensusLevel, severity: Severity) -> &'static str {
    match (level, severity) {
        (ConsensusLevel::Confirmed, Severity::Critical | Severity::High | Severity::Medium) => {
            "error"
        }
        (ConsensusLevel::Confirmed, _) => "warning",
        (ConsensusLevel::NeedsVerification, Severity::Info | Severity::Low) => "note",
        (ConsensusLevel::NeedsVerification, _) => "warning",
        (ConsensusLevel::Unverified, Severity::Critical | Severity::High) => "warning",
        (ConsensusLevel::Unverified, _) => "note",
    }
}

/// The first and last line of the finding: its line, to the end line the member at that
/// line gave. Code scanning needs a line: a file-level finding points at line 1, as its
/// check-run annotation does.
fn region(finding: &SynthesizedFinding) -> Region {
    let c = &finding.consensus;
    let Some(start) = c.line.filter(|&l| l > 0) else {
        return Region {
            start_line: 1,
            end_line: None,
        };
    };
    let end = c
        .members
        .iter()
        .filter(|m| m.evidence.file == c.file && m.evidence.line == Some(start))
        .find_map(|m| m.evidence.end_line)
        .filter(|&end| end > start);
    Region {
        start_line: start,
        end_line: end,
    }
}

/// A repository path as a relative URI: `/` kept between segments, the rest
/// percent-encoded, no leading `/` or `./` (code scanning resolves it against the checkout).
fn artifact_uri(file: &str) -> String {
    let mut path = file.replace('\\', "/");
    while let Some(rest) = path.strip_prefix("./") {
        path = rest.to_owned();
    }
    escape::encode_path(path.trim_start_matches('/'))
}

fn provenance(outcome: &Outcome, server_url: Option<&str>) -> Option<[Provenance; 1]> {
    let server = server_url?.trim_end_matches('/');
    let sha = outcome.head_sha.as_deref().filter(|s| !s.is_empty())?;
    if outcome.repository.is_empty() {
        return None;
    }
    Some([Provenance {
        repository_uri: format!("{server}/{}", outcome.repository),
        revision_id: sha.to_owned(),
        mapped_to: MappedTo {
            uri_base_id: SRCROOT,
        },
    }])
}

fn json_len(value: &impl Serialize) -> usize {
    let mut counter = Counter(0);
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}

/// Counts the bytes written to it.
struct Counter(usize);

impl io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[derive(Serialize)]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a> {
    tool: Tool,
    automation_details: AutomationDetails,
    #[serde(skip_serializing_if = "Option::is_none")]
    version_control_provenance: Option<[Provenance; 1]>,
    invocations: [Invocation; 1],
    results: Vec<SarifResult<'a>>,
    properties: RunProperties<'a>,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    semantic_version: &'static str,
    information_uri: &'static str,
    rules: Vec<Rule>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    id: String,
    name: String,
    short_description: Text,
    full_description: Text,
    help: Help,
    help_uri: String,
    default_configuration: Configuration,
    properties: RuleProperties,
}

impl Rule {
    fn new(id: String) -> Rule {
        let name: String = id
            .split(['-', '.', '_'])
            .filter(|part| !part.is_empty())
            .map(|part| {
                let mut chars = part.chars();
                chars.next().map_or_else(String::new, |first| {
                    first.to_ascii_uppercase().to_string() + chars.as_str()
                })
            })
            .collect();
        let text = format!(
            "A {id} finding that review bots raised on the pull request, judged by consensus."
        );
        let help = format!(
            "review-consensus merges what the review bots on a pull request found and scores \
             how many of them agree. This result is a finding of class `{id}`: its level \
             follows its consensus level (confirmed, needs-verification, unverified) and its \
             severity, and its properties name the bots that detected it (`detectedBy`), \
             their agreement and why their comments were judged one issue (`matchReasons`)."
        );
        Rule {
            name: format!("Consensus{name}"),
            short_description: Text::new(text.clone()),
            full_description: Text::new(text),
            help: Help {
                text: help.clone(),
                markdown: help,
            },
            help_uri: format!("{}#sarif-output", env!("CARGO_PKG_REPOSITORY")),
            default_configuration: Configuration { level: "warning" },
            properties: RuleProperties {
                tags: vec![TOOL_NAME.to_owned(), id.clone()],
            },
            id,
        }
    }
}

#[derive(Serialize)]
struct Text {
    text: String,
}

impl Text {
    fn new(text: String) -> Text {
        Text { text }
    }
}

#[derive(Serialize)]
struct Help {
    text: String,
    markdown: String,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
struct RuleProperties {
    tags: Vec<String>,
}

#[derive(Serialize)]
struct AutomationDetails {
    id: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Provenance {
    repository_uri: String,
    revision_id: String,
    mapped_to: MappedTo,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MappedTo {
    uri_base_id: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    execution_successful: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_execution_notifications: Vec<Notification>,
}

#[derive(Serialize)]
struct Notification {
    level: &'static str,
    message: Text,
    descriptor: Descriptor,
}

impl Notification {
    fn new(level: &'static str, id: &'static str, text: String) -> Notification {
        Notification {
            level,
            message: Text::new(text),
            descriptor: Descriptor { id },
        }
    }
}

#[derive(Serialize)]
struct Descriptor {
    id: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RunProperties<'a> {
    gate: &'static str,
    bots_ran: usize,
    /// Surfaced findings of the outcome (the results plus those left out or cut).
    surfaced: usize,
    summary: &'a SarifSummary,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: String,
    rule_index: usize,
    level: &'static str,
    message: Text,
    locations: [Location; 1],
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    partial_fingerprints: BTreeMap<&'static str, &'a str>,
    properties: ResultProperties<'a>,
}

impl<'a> SarifResult<'a> {
    fn new(
        finding: &'a SynthesizedFinding,
        rule_id: String,
        rule_index: usize,
        bots_ran: usize,
    ) -> SarifResult<'a> {
        let c = &finding.consensus;
        let ratio = format!("{}/{}", c.detected_by.len(), bots_ran.max(1));
        let title = escape::sarif_text(&c.title);
        let stop = if title.ends_with(['.', '!', '?', '…']) {
            ""
        } else {
            "."
        };
        let mut message = format!(
            "{title}{stop} Detected by {ratio} bots ({}), agreement {:.0}%, {}",
            escape::sarif_text(&c.detected_by.join(", ")),
            c.agreement_ratio * 100.0,
            c.level,
        );
        if finding.is_contested() {
            message.push_str(&format!(
                "; contested by {}",
                escape::sarif_text(&finding.contested_by.join(", "))
            ));
        }
        message.push('.');
        SarifResult {
            rule_id,
            rule_index,
            level: sarif_level(c.level, c.severity),
            message: Text::new(message),
            locations: [Location {
                physical_location: PhysicalLocation {
                    artifact_location: ArtifactLocation {
                        uri: artifact_uri(&c.file),
                        uri_base_id: SRCROOT,
                    },
                    region: region(finding),
                },
            }],
            partial_fingerprints: finding
                .fingerprint()
                .map(|fp| (FINGERPRINT_KEY, fp))
                .into_iter()
                .collect(),
            properties: ResultProperties {
                detected_by: &c.detected_by,
                agreement: c.agreement_ratio,
                level: c.level,
                severity: c.severity,
                match_reasons: &c.match_reasons,
                contested_by: &finding.contested_by,
                rank_score: finding.rank_score,
            },
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    physical_location: PhysicalLocation,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    region: Region,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    uri_base_id: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_line: Option<u32>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResultProperties<'a> {
    detected_by: &'a [String],
    agreement: f64,
    level: ConsensusLevel,
    severity: Severity,
    /// Why the members were judged one issue (the report's `match_reasons`).
    match_reasons: &'a [MatchReason],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    contested_by: &'a [String],
    rank_score: u8,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::BotSelection;
    use crate::model::NormalizedFinding;
    use crate::pipeline::{self, AnalysisOptions, ExtraSource};
    use serde_json::Value;

    fn finding(
        bot: &str,
        id: &str,
        severity: Severity,
        category: &str,
        at: (&str, u32),
    ) -> NormalizedFinding {
        let mut f = NormalizedFinding::new(bot, id, severity, category, format!("Issue {id}"));
        f.evidence.file = at.0.to_owned();
        f.evidence.line = (at.1 > 0).then_some(at.1);
        f.detail = "Explained at length by the bot.".to_owned();
        f
    }

    /// Three review bots and a SARIF tool: a confirmed finding, a lone one, one the SARIF
    /// tool alone raised, one PR-wide, and one the SARIF tool corroborates.
    fn outcome() -> Outcome {
        let review = |bot: &str, findings| ExtraSource::ok(bot, findings);
        let mut codeql = ExtraSource::ok(
            "codeql",
            vec![
                finding(
                    "codeql",
                    "q1",
                    Severity::High,
                    "security",
                    ("app/db.py", 80),
                ),
                finding(
                    "codeql",
                    "q2",
                    Severity::High,
                    "security",
                    ("app/auth.py", 5),
                ),
            ],
        );
        codeql.tool_verified = true;
        let extra = vec![
            review(
                "alpha",
                vec![
                    finding(
                        "alpha",
                        "a1",
                        Severity::High,
                        "security",
                        ("app/api.py", 10),
                    ),
                    finding("alpha", "a2", Severity::Medium, "bug", ("app/jobs.py", 40)),
                    finding("alpha", "a3", Severity::High, "bug", ("", 0)),
                    finding(
                        "alpha",
                        "a4",
                        Severity::High,
                        "security",
                        ("app/auth.py", 5),
                    ),
                ],
            ),
            review(
                "beta",
                vec![finding(
                    "beta",
                    "b1",
                    Severity::High,
                    "security",
                    ("app/api.py", 11),
                )],
            ),
            review(
                "gamma",
                vec![
                    finding("gamma", "c1", Severity::Low, "docs", ("docs/guide.md", 3)),
                    finding(
                        "gamma",
                        "c2",
                        Severity::High,
                        "security",
                        ("app/api.py", 12),
                    ),
                ],
            ),
            codeql,
        ];
        let options = SarifOptions {
            code_scanning: pipeline::code_scanning_sources(&extra),
            ..SarifOptions::default()
        };
        assert_eq!(options.code_scanning, ["codeql"]);
        pipeline::analyze(
            None,
            &BotSelection::default(),
            extra,
            &AnalysisOptions::default(),
        )
    }

    fn options() -> SarifOptions {
        SarifOptions {
            code_scanning: vec!["codeql".to_owned()],
            ..SarifOptions::default()
        }
    }

    fn run_of(json: &str) -> Value {
        let log: Value = serde_json::from_str(json).expect("SARIF is JSON");
        assert_eq!(log["version"], "2.1.0");
        assert_eq!(log["runs"].as_array().map(Vec::len), Some(1), "one run");
        log["runs"][0].clone()
    }

    /// A pre-existing finding (not the PR's) is never a result: code scanning would show it
    /// as the PR's. It is counted in the run's summary and the left-out note.
    #[test]
    fn pre_existing_findings_are_left_out_and_counted() {
        let mut old = finding("delta", "d1", Severity::Critical, "bug", ("app/db.py", 88));
        old.pre_existing = true;
        let with_old = pipeline::analyze(
            None,
            &BotSelection::default(),
            vec![
                ExtraSource::ok("delta", vec![old]),
                ExtraSource::ok(
                    "alpha",
                    vec![finding(
                        "alpha",
                        "a1",
                        Severity::High,
                        "bug",
                        ("app/api.py", 3),
                    )],
                ),
            ],
            &AnalysisOptions::default(),
        );
        let sarif = render_sarif(&with_old, &options());
        let run = run_of(&sarif.json);
        let results = run["results"].as_array().expect("results");
        assert_eq!(results.len(), 1);
        assert!(!sarif.json.contains("app/db.py"));
        assert_eq!(sarif.summary.pre_existing, 1);
        assert_eq!(run["properties"]["summary"]["preExisting"], 1);
        let note = sarif.summary.left_out_note().expect("a note");
        assert!(
            note.contains("1 pre-existing (not introduced by this PR)"),
            "{note}"
        );
        // Without any, the summary has no such key.
        let plain = render_sarif(&outcome(), &options());
        assert!(!plain.json.contains("preExisting"));
    }

    #[test]
    fn one_result_per_surfaced_finding_that_code_scanning_does_not_have() {
        let outcome = outcome();
        let sarif = render_sarif(&outcome, &options());
        let run = run_of(&sarif.json);
        assert_eq!(run["tool"]["driver"]["name"], TOOL_NAME);
        assert_eq!(run["automationDetails"]["id"], "review-consensus/");

        let surfaced: Vec<&SynthesizedFinding> = outcome.surfaced().collect();
        let results = run["results"].as_array().expect("results");
        // Left out: the one only codeql raised (app/db.py) and the PR-wide one.
        assert_eq!(sarif.summary.code_scanning_only, 1);
        assert_eq!(sarif.summary.without_file, 1);
        assert_eq!(results.len(), surfaced.len() - 2);
        assert_eq!(sarif.summary.results, results.len());
        let uris: Vec<&str> = results
            .iter()
            .map(|r| {
                r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                    .as_str()
                    .unwrap()
            })
            .collect();
        assert!(
            !uris.contains(&"app/db.py"),
            "codeql's own alert is not ours: {uris:?}"
        );
        assert!(
            uris.contains(&"app/auth.py"),
            "corroborated by a review bot: ours"
        );

        let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
        let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
        let mut unique = ids.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), ids.len(), "one rule per class: {ids:?}");
        for result in results {
            let index = result["ruleIndex"].as_u64().unwrap() as usize;
            assert_eq!(rules[index]["id"], result["ruleId"]);
            let uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap();
            let line = result["locations"][0]["physicalLocation"]["region"]["startLine"].as_u64();
            let finding = surfaced
                .iter()
                .find(|f| f.consensus.file == uri && f.consensus.line.map(u64::from) == line)
                .expect("a surfaced finding");
            assert_eq!(result["ruleId"], finding.consensus.category.as_str());
            assert_eq!(
                result["partialFingerprints"][FINGERPRINT_KEY].as_str(),
                finding.fingerprint()
            );
            let props = &result["properties"];
            assert_eq!(
                props["detectedBy"],
                serde_json::json!(finding.consensus.detected_by)
            );
            assert_eq!(
                props["agreement"].as_f64(),
                Some(finding.consensus.agreement_ratio)
            );
            assert_eq!(props["level"], finding.consensus.level.as_str());
            assert_eq!(
                props["matchReasons"],
                serde_json::to_value(&finding.consensus.match_reasons).unwrap()
            );
            assert_eq!(
                result["level"],
                sarif_level(finding.consensus.level, finding.consensus.severity)
            );
        }
        let confirmed = results
            .iter()
            .find(|r| r["properties"]["level"] == "confirmed")
            .expect("alpha, beta and gamma agree on app/api.py");
        assert_eq!(confirmed["level"], "error");
        let reasons = confirmed["properties"]["matchReasons"].as_array().unwrap();
        assert!(
            !reasons.is_empty() && reasons[0]["between"].is_array(),
            "{reasons:?}"
        );
        assert_eq!(
            confirmed["locations"][0]["physicalLocation"]["region"]["startLine"],
            10
        );
        let text = confirmed["message"]["text"].as_str().unwrap();
        assert!(
            text.contains("Detected by 3/4 bots (alpha, beta, gamma)"),
            "{text}"
        );
        assert!(text.ends_with('.'));
        assert_eq!(run["properties"]["summary"]["codeScanningOnly"], 1);
        let notes = &run["invocations"][0]["toolExecutionNotifications"];
        assert_eq!(notes[0]["level"], "note", "left out, not cut: {notes}");
    }

    #[test]
    fn the_fingerprint_key_names_the_recipe_version() {
        let version = crate::identity::fingerprint::RECIPE_VERSION;
        assert_eq!(
            FINGERPRINT_KEY,
            format!("reviewConsensusFingerprint/v{version}")
        );
    }

    #[test]
    fn levels_follow_consensus_and_severity() {
        use ConsensusLevel::*;
        let table = [
            (Confirmed, Severity::Critical, "error"),
            (Confirmed, Severity::Medium, "error"),
            (Confirmed, Severity::Low, "warning"),
            (NeedsVerification, Severity::High, "warning"),
            (NeedsVerification, Severity::Medium, "warning"),
            (NeedsVerification, Severity::Info, "note"),
            (Unverified, Severity::Critical, "warning"),
            (Unverified, Severity::Medium, "note"),
        ];
        for (level, severity, expected) in table {
            assert_eq!(sarif_level(level, severity), expected, "{level} {severity}");
        }
    }

    /// `n` confirmed findings (two of three bots agree) and `n` that need verification (the
    /// third bot alone).
    fn tiers(n: u32) -> Outcome {
        let mut a = Vec::new();
        let mut b = Vec::new();
        let mut c = Vec::new();
        for i in 0..n {
            let file = format!("src/f{i}.rs");
            a.push(finding(
                "a",
                &format!("a{i}"),
                Severity::High,
                "bug",
                (&file, 10),
            ));
            b.push(finding(
                "b",
                &format!("b{i}"),
                Severity::High,
                "bug",
                (&file, 10),
            ));
            let mut lone = finding("c", &format!("c{i}"), Severity::High, "bug", (&file, 500));
            lone.title = format!("Lone problem c{i}");
            lone.detail = "A different problem, far from the others.".to_owned();
            c.push(lone);
        }
        let extra = vec![
            ExtraSource::ok("a", a),
            ExtraSource::ok("b", b),
            ExtraSource::ok("c", c),
        ];
        pipeline::analyze(
            None,
            &BotSelection::default(),
            extra,
            &AnalysisOptions::default(),
        )
    }

    fn levels(run: &Value) -> Vec<String> {
        run["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["properties"]["level"].as_str().unwrap().to_owned())
            .collect()
    }

    #[test]
    fn too_many_results_cut_the_lowest_tier_first_and_say_so() {
        let outcome = tiers(4);
        let sarif = render_sarif(
            &outcome,
            &SarifOptions {
                max_results: 5,
                ..SarifOptions::default()
            },
        );
        let run = run_of(&sarif.json);
        assert_eq!(
            levels(&run),
            [
                "confirmed",
                "confirmed",
                "confirmed",
                "confirmed",
                "needs-verification"
            ]
        );
        assert_eq!(sarif.summary.cut, 3);
        assert_eq!(
            sarif.summary.cut_from,
            Some(ConsensusLevel::NeedsVerification)
        );
        let note = &run["invocations"][0]["toolExecutionNotifications"][0];
        assert_eq!(note["level"], "warning");
        assert_eq!(note["descriptor"]["id"], "results-cut");
        assert!(note["message"]["text"]
            .as_str()
            .unwrap()
            .starts_with("3 finding(s)"));
        assert_eq!(run["properties"]["summary"]["cut"], 3);
        assert_eq!(
            run["properties"]["summary"]["cutFrom"],
            "needs-verification"
        );
    }

    #[test]
    fn the_file_stays_within_the_size_limit() {
        let outcome = tiers(40);
        let whole = render_sarif(&outcome, &SarifOptions::default());
        assert_eq!(whole.summary.cut, 0);
        for max_bytes in [
            ENVELOPE_RESERVE + 3_000,
            ENVELOPE_RESERVE + 12_000,
            whole.json.len() - 1,
        ] {
            let sarif = render_sarif(
                &outcome,
                &SarifOptions {
                    max_bytes,
                    ..SarifOptions::default()
                },
            );
            assert!(
                sarif.json.len() <= max_bytes,
                "{} > {max_bytes}",
                sarif.json.len()
            );
            assert!(sarif.summary.cut > 0 && sarif.summary.results > 0);
            assert_eq!(sarif.summary.results + sarif.summary.cut, 80);
            let levels = levels(&run_of(&sarif.json));
            let lower = levels.iter().position(|l| l != "confirmed");
            assert!(
                levels
                    .iter()
                    .skip(lower.unwrap_or(levels.len()))
                    .all(|l| l != "confirmed"),
                "tiers in order: {levels:?}"
            );
        }
    }

    #[test]
    fn a_second_configuration_has_a_category_of_its_own() {
        assert_eq!(category(None), "review-consensus");
        assert_eq!(category(Some("  ")), "review-consensus");
        assert_eq!(
            category(Some("Security Only")),
            "review-consensus/security-only"
        );
        let sarif = render_sarif(
            &tiers(1),
            &SarifOptions {
                header: Some("strict".to_owned()),
                ..SarifOptions::default()
            },
        );
        assert_eq!(
            run_of(&sarif.json)["automationDetails"]["id"],
            "review-consensus/strict/"
        );
    }

    #[test]
    fn paths_become_relative_uris_and_bot_text_makes_no_link() {
        assert_eq!(artifact_uri("./src/a b.rs"), "src/a%20b.rs");
        assert_eq!(artifact_uri("/app/x.py"), "app/x.py");
        assert_eq!(artifact_uri("win\\path.cs"), "win/path.cs");
        assert_eq!(rule_id("Code Smell"), "code-smell");
        assert_eq!(rule_id("  "), "other");

        let mut tricky = tiers(1);
        tricky.findings[0].consensus.title = "See [the docs](1) @alice\nnow".to_owned();
        let sarif = render_sarif(&tricky, &SarifOptions::default());
        let run = run_of(&sarif.json);
        let text = run["results"][0]["message"]["text"].as_str().unwrap();
        assert!(
            text.starts_with("See [the docs\\](1) @\u{200B}alice now. Detected by"),
            "{text}"
        );
    }
}
