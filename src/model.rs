//! The vocabulary shared by every stage: what adapters produce, what the engine returns and
//! what the renderers and the gate read. Pure data; serde names are part of the JSON contract.

use serde::{Deserialize, Serialize};
use std::fmt;

pub mod identity;

pub use identity::{FindingIdentity, FindingState, RunIdentity};

/// How bad a finding is, lowest first so that `Ord` ranks them.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Low,
    #[default]
    Medium,
    High,
    Critical,
}

impl Severity {
    pub const ALL: [Severity; 5] = [
        Severity::Info,
        Severity::Low,
        Severity::Medium,
        Severity::High,
        Severity::Critical,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
            Severity::Critical => "critical",
        }
    }

    /// Position on the scale (info = 0 .. critical = 4), for "steps apart" comparisons.
    pub fn rank(self) -> u8 {
        self as u8
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The one category set every adapter maps onto. The engine itself compares categories as
/// strings (the seed's `category: str`), so normalised-findings JSON may carry others.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    Security,
    Bug,
    Performance,
    Maintainability,
    Style,
    Docs,
    Test,
    Other,
}

impl Category {
    pub const ALL: [Category; 8] = [
        Category::Security,
        Category::Bug,
        Category::Performance,
        Category::Maintainability,
        Category::Style,
        Category::Docs,
        Category::Test,
        Category::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Category::Security => "security",
            Category::Bug => "bug",
            Category::Performance => "performance",
            Category::Maintainability => "maintainability",
            Category::Style => "style",
            Category::Docs => "docs",
            Category::Test => "test",
            Category::Other => "other",
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How an adapter decided a finding's category (taxonomy order, strongest first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CategorySource {
    /// An explicit category label of the bot's own.
    Native,
    /// A documentation or test path.
    PathRule,
    /// Keywords in the title and first paragraph.
    Keyword,
    /// A weak type label of the bot's (e.g. "Potential issue" -> bug).
    TypeLabel,
    /// Nothing matched: `other`.
    Fallback,
}

/// Where in the code a finding points. Empty `file` means a PR-wide (global) finding.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Evidence {
    pub file: String,
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u32>,
    pub snippet: String,
    pub symbol: String,
    /// More places the bot says the same issue applies to (CodeRabbit's "Also applies to",
    /// Copilot's "also appears on line N"): matching compares every range.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<LineRange>,
}

/// Lines `start..=end` of the finding's file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct LineRange {
    pub start: u32,
    pub end: u32,
}

impl LineRange {
    /// `start..=end`, in order whichever way round they were given.
    pub fn new(a: u32, b: u32) -> Self {
        LineRange {
            start: a.min(b),
            end: a.max(b),
        }
    }

    /// Lines between the two ranges: 0 when they overlap or touch.
    pub fn gap(self, other: LineRange) -> u32 {
        self.start
            .max(other.start)
            .saturating_sub(self.end.min(other.end))
    }
}

impl Evidence {
    /// The finding's own range (`line..=end_line`) and every `also` range; none without a
    /// line.
    pub fn ranges(&self) -> impl Iterator<Item = LineRange> + '_ {
        let own = self
            .line
            .map(|line| LineRange::new(line, self.end_line.unwrap_or(line)));
        own.into_iter()
            .chain(self.also.iter().copied().filter(|_| self.line.is_some()))
    }
}

/// Where a finding came from on GitHub, for links and audit. All optional: SARIF and
/// normalised-findings input have none of it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Provenance {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comment_id: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review_id: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original_line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category_source: Option<CategorySource>,
}

impl Provenance {
    fn is_empty(&self) -> bool {
        self == &Provenance::default()
    }
}

/// A reply in the finding's review thread that disputes it ("false positive", "won't fix").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dispute {
    /// Login of the person or bot who disputed.
    pub by: String,
    /// The phrase that was recognised, for the comment and the report.
    pub reason: String,
}

fn default_confidence() -> f64 {
    1.0
}

fn is_false(b: &bool) -> bool {
    !b
}

/// One finding of one bot, normalised by its adapter (the seed's `NormalizedFinding`, plus
/// optional fields the synthesis stage reads).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NormalizedFinding {
    pub bot: String,
    #[serde(default)]
    pub finding_id: String,
    #[serde(default)]
    pub severity: Severity,
    pub category: String,
    pub title: String,
    #[serde(default)]
    pub evidence: Evidence,
    /// Bot self-reported, nominally in [0, 1]; the engine clamps.
    #[serde(default = "default_confidence")]
    pub confidence: f64,
    /// The explanation after the title (plain text, code blocks removed, shortened).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
    /// The bot marked it as a nitpick (CodeRabbit's Nitpick section, Copilot `[nitpick]`...).
    #[serde(default, skip_serializing_if = "is_false")]
    pub nitpick: bool,
    /// Replies in its thread that dispute it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disputes: Vec<Dispute>,
    #[serde(default, skip_serializing_if = "Provenance::is_empty")]
    pub provenance: Provenance,
    /// The bot's own id for this finding when it keeps it across pushes (CodeRabbit's
    /// `cr-comment` id, Bugbot's bug id, a code-scanning alert number): the strongest input
    /// of the fingerprint (docs/identity.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stable_id: Option<String>,
    /// The bot says the issue is not this PR's: it exists in the code the PR starts from
    /// (Claude Code Review's 🟣 Pre-existing). Kept out of the agreement and of the gate,
    /// and shown apart (`SuppressionReason::PreExisting`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub pre_existing: bool,
}

impl NormalizedFinding {
    /// A finding with the seed's defaults; adapters and tests fill in the rest.
    pub fn new(
        bot: impl Into<String>,
        finding_id: impl Into<String>,
        severity: Severity,
        category: impl Into<String>,
        title: impl Into<String>,
    ) -> Self {
        NormalizedFinding {
            bot: bot.into(),
            finding_id: finding_id.into(),
            severity,
            category: category.into(),
            title: title.into(),
            evidence: Evidence::default(),
            confidence: 1.0,
            detail: String::new(),
            nitpick: false,
            disputes: Vec::new(),
            provenance: Provenance::default(),
            stable_id: None,
            pre_existing: false,
        }
    }

    pub fn at(mut self, file: impl Into<String>, line: Option<u32>) -> Self {
        self.evidence.file = file.into();
        self.evidence.line = line;
        self
    }
}

/// The seed's consensus buckets, lowest first so that `Ord` compares them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConsensusLevel {
    Unverified,
    NeedsVerification,
    Confirmed,
}

impl ConsensusLevel {
    /// Highest first: the order the comment shows them in.
    pub const DESCENDING: [ConsensusLevel; 3] = [
        ConsensusLevel::Confirmed,
        ConsensusLevel::NeedsVerification,
        ConsensusLevel::Unverified,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ConsensusLevel::Unverified => "unverified",
            ConsensusLevel::NeedsVerification => "needs-verification",
            ConsensusLevel::Confirmed => "confirmed",
        }
    }
}

impl fmt::Display for ConsensusLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One merged issue: a cluster of findings that the dedup rules call the same.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConsensusFinding {
    pub file: String,
    pub line: Option<u32>,
    pub category: String,
    pub title: String,
    pub severity: Severity,
    pub detected_by: Vec<String>,
    pub bots_ran: usize,
    pub agreement_ratio: f64,
    pub max_confidence: f64,
    pub consensus_score: f64,
    pub level: ConsensusLevel,
    pub members: Vec<NormalizedFinding>,
    /// Why the members were judged one issue: one entry per link that joined two of them.
    #[serde(default)]
    pub match_reasons: Vec<MatchReason>,
}

/// One link between two members of a cluster, and the evidence that made it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchReason {
    /// The two members, as `bot#finding_id`.
    pub between: [String; 2],
    /// How the loci compare: `same lines`, `lines 65/163`, `lines on different commits`, ...
    pub lines: String,
    /// Lines between their ranges, when comparable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distance: Option<u32>,
    /// Content similarity in [0, 1] (issue matching); 1 for the seed's line rule.
    pub similarity: f64,
    /// Shared evidence, most distinctive first: `identifiers`, concepts, words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shared: Vec<String>,
    /// The rule that accepted the link (`seed: ...`), or what the match model weighed most.
    pub rule: String,
    /// The match model's probability that the two are one defect (issue matching).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probability: Option<f64>,
    /// What the model judge said of the pair, when it decided it (the `judge` input).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeSaid>,
}

/// What the judge did in a run, for the comment's notes, the footer, the job summary and
/// the report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgeRun {
    /// The model asked (or whose verdicts were remembered).
    pub model: String,
    /// Pairs inside the band this run.
    pub candidates: usize,
    /// Pairs sent to the endpoint this run.
    pub asked: usize,
    /// Verdicts the endpoint gave this run.
    pub answered: usize,
    /// Verdicts taken from the state block (earlier runs) or a recorded answers file.
    pub remembered: usize,
    /// Verdicts that decided a pair: made a link the fitted model would not, or refused one
    /// it would have made.
    pub joined: usize,
    pub kept_apart: usize,
    /// Parts of answers left out: ids never asked or given twice, malformed verdicts.
    pub ignored: usize,
    /// Pairs inside the band that kept the fitted model's decision (over the budget, or
    /// unanswered).
    pub unanswered: usize,
    /// What went wrong, in one line (our own text: a failure, a refusal, a rate limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl JudgeRun {
    /// One line for the comment's notes and the job summary.
    pub fn line(&self) -> String {
        let mut line = format!(
            "the judge ({}) decided {} of {} uncertain pair(s): {} joined, {} kept apart",
            self.model,
            self.answered + self.remembered,
            self.candidates,
            self.joined,
            self.kept_apart
        );
        if self.remembered > 0 {
            line.push_str(&format!(
                "; {} remembered from earlier runs",
                self.remembered
            ));
        }
        if self.unanswered > 0 {
            line.push_str(&format!(
                "; {} kept the fitted model's decision",
                self.unanswered
            ));
        }
        if self.ignored > 0 {
            line.push_str(&format!("; {} answer part(s) ignored", self.ignored));
        }
        if let Some(note) = &self.note {
            line.push_str(&format!(" ({note})"));
        }
        line
    }
}

/// A model judge's verdict on one pair of findings, as the report shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgeSaid {
    /// The model that answered (`openai/gpt-4.1-mini`).
    pub model: String,
    /// One defect (`true`) or two.
    pub same: bool,
    /// Its reason, at most 20 words (untrusted text: escape it before showing).
    pub why: String,
}

/// The synthesis stage's confidence in a merged finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MergedConfidence {
    Low,
    Medium,
    High,
}

/// Why a finding is kept in the data but not surfaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SuppressionReason {
    /// Style-only, and style is configured as covered by linters.
    StyleCoveredByLinters,
    /// `rank_score` below the evidence threshold.
    BelowEvidenceThreshold,
    /// No file, no snippet and no explanation.
    NoEvidence,
    /// Every bot that raised it says it was there before the PR (a pre-existing bug): shown
    /// apart, never gating.
    PreExisting,
}

impl SuppressionReason {
    pub fn description(self) -> &'static str {
        match self {
            SuppressionReason::StyleCoveredByLinters => "style-only, covered by linters",
            SuppressionReason::BelowEvidenceThreshold => "below the evidence threshold",
            SuppressionReason::NoEvidence => "no evidence (no file, snippet or explanation)",
            SuppressionReason::PreExisting => "pre-existing, not introduced by this PR",
        }
    }
}

/// A consensus cluster after synthesis: corroborated, contested, scored, maybe suppressed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SynthesizedFinding {
    #[serde(flatten)]
    pub consensus: ConsensusFinding,
    pub corroborated_by: Vec<String>,
    pub contested_by: Vec<String>,
    /// Why each contesting source disagrees, in the order of `contested_by`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contest_reasons: Vec<String>,
    pub merged_confidence: MergedConfidence,
    pub severity_score: u8,
    pub confidence_score: u8,
    pub verification_score: u8,
    /// severity_score * confidence_score * verification_score, 1..=27.
    pub rank_score: u8,
    pub suppressed: bool,
    pub suppression_reason: Option<SuppressionReason>,
    /// Fingerprint, state across runs and acknowledgement: set by the identity stage.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<FindingIdentity>,
}

impl SynthesizedFinding {
    pub fn is_contested(&self) -> bool {
        !self.contested_by.is_empty()
    }

    /// A person acknowledged it (CONTRACT section 8): it no longer fails the gate.
    pub fn is_acknowledged(&self) -> bool {
        self.identity
            .as_ref()
            .is_some_and(FindingIdentity::is_acknowledged)
    }

    pub fn fingerprint(&self) -> Option<&str> {
        self.identity.as_ref().map(|i| i.fingerprint.as_str())
    }

    /// Set apart as pre-existing (not the PR's): never surfaced, shown in its own section.
    pub fn is_pre_existing(&self) -> bool {
        self.suppression_reason == Some(SuppressionReason::PreExisting)
    }
}

/// Whether a configured source could be read for this PR.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceState {
    Ok,
    Missing,
    Malformed,
}

/// A bot's coverage of the PR's head commit, which decides whether it counts in `bots_ran`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Coverage {
    /// Reviewed the head commit.
    Reviewed,
    /// Reviewed only older commits: counted, shown as stale.
    Stale,
    /// Posted only a rate-limit, budget or skip notice: not counted.
    Declined,
    /// Posted nothing: not counted.
    Absent,
}

impl Coverage {
    /// Whether the source counts in the agreement denominator.
    pub fn ran(self) -> bool {
        matches!(self, Coverage::Reviewed | Coverage::Stale)
    }
}

/// One configured source (a bot, a SARIF file, a findings file) and what came of reading it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceStatus {
    pub bot: String,
    pub status: SourceState,
    pub coverage: Coverage,
    /// What decided `coverage`: `review on head`, `reaction 👍 on the PR`,
    /// `check run Cursor Bugbot: success on head`, `notice: quota`, `nothing posted`, ...
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub coverage_signal: String,
    /// Findings extracted (after resolved/outdated filtering).
    pub findings: usize,
    /// Comments that could not be read and were skipped.
    #[serde(default)]
    pub skipped: usize,
    /// Human-readable notes: why it is missing, what was malformed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The gate's threshold: the lowest consensus level that fails the check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FailOn {
    #[default]
    Confirmed,
    NeedsVerification,
    Unverified,
    Never,
}

impl Severity {
    /// `fail-on-severity`'s values (info is never a floor).
    pub const FLOORS: &'static str = "critical, high, medium, low or empty";

    pub fn parse(text: &str) -> Option<Severity> {
        Severity::ALL
            .into_iter()
            .find(|s| s.as_str() == text.trim())
    }
}

impl FailOn {
    pub const ACCEPTED: &'static str = "confirmed, needs-verification, unverified, never";

    pub fn parse(text: &str) -> Option<FailOn> {
        match text.trim() {
            "confirmed" => Some(FailOn::Confirmed),
            "needs-verification" => Some(FailOn::NeedsVerification),
            "unverified" => Some(FailOn::Unverified),
            "never" => Some(FailOn::Never),
            _ => None,
        }
    }

    /// The lowest level that fails, or `None` for `never`.
    pub fn threshold(self) -> Option<ConsensusLevel> {
        match self {
            FailOn::Confirmed => Some(ConsensusLevel::Confirmed),
            FailOn::NeedsVerification => Some(ConsensusLevel::NeedsVerification),
            FailOn::Unverified => Some(ConsensusLevel::Unverified),
            FailOn::Never => None,
        }
    }
}

/// The gate's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Gate {
    Pass,
    Fail,
}

impl Gate {
    pub fn as_str(self) -> &'static str {
        match self {
            Gate::Pass => "pass",
            Gate::Fail => "fail",
        }
    }

    /// The process exit code the contract gives the verdict.
    pub fn exit_code(self) -> i32 {
        match self {
            Gate::Pass => 0,
            Gate::Fail => 1,
        }
    }
}

/// A bot account that left review comments on the PR which no configured source read:
/// named in the comment's notes and the report's `unread_bots`, so that no bot is dropped
/// without a word.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnreadBot {
    /// The account's login as GitHub gives it (`codacy-production[bot]`).
    pub login: String,
    /// Its top-level inline review comments plus its reviews with a body.
    pub comments: usize,
    /// The `bots` entry that reads it: the id of the built-in adapter whose default login it
    /// is (left out by a `bots` list, or retired); `<id>=<login>` when the login names one
    /// adapter's vendor (`qodo=codiumai-pr-agent-free[bot]`); else `generic=<login>`.
    pub hint: String,
}

/// Everything one run decided, before it is written anywhere: the input of every renderer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// `owner/name`, empty offline.
    pub repository: String,
    pub pull_request: Option<u64>,
    pub head_sha: Option<String>,
    pub bots_ran: usize,
    pub sources: Vec<SourceStatus>,
    /// Every finding, surfaced ones first in rank order, then the suppressed.
    pub findings: Vec<SynthesizedFinding>,
    pub fail_on: FailOn,
    /// `fail-on-severity`: surfaced findings at or above it also fail; `None`: off.
    #[serde(default)]
    pub fail_on_severity: Option<Severity>,
    /// `required-bots` groups as written (`a|b`).
    #[serde(default)]
    pub required_bots: Vec<String>,
    /// `required-bots` groups with no member that reviewed the head commit (`a|b`).
    #[serde(default)]
    pub not_reviewed: Vec<String>,
    /// Bot accounts whose review comments no source read, most comments first.
    #[serde(default)]
    pub unread_bots: Vec<UnreadBot>,
    pub gate: Gate,
    /// What changed since the last run, acknowledgements, and the state to carry forward.
    #[serde(default)]
    pub identity: RunIdentity,
    /// What the model judge did, when it was on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeRun>,
}

impl Outcome {
    /// The findings that ask for action: neither suppressed nor acknowledged.
    pub fn surfaced(&self) -> impl Iterator<Item = &SynthesizedFinding> {
        self.findings
            .iter()
            .filter(|f| !f.suppressed && !f.is_acknowledged())
    }

    /// Findings a person acknowledged (and that are not suppressed anyway).
    pub fn acknowledged(&self) -> impl Iterator<Item = &SynthesizedFinding> {
        self.findings
            .iter()
            .filter(|f| !f.suppressed && f.is_acknowledged())
    }

    /// Findings (not suppressed, acknowledged or not) first seen at this head commit.
    pub fn new_findings(&self) -> impl Iterator<Item = &SynthesizedFinding> {
        self.findings
            .iter()
            .filter(|f| !f.suppressed && f.identity.as_ref().is_some_and(|i| i.new))
    }

    /// Findings kept out for a synthesis reason (style, evidence); the pre-existing ones are
    /// listed by `pre_existing`.
    pub fn suppressed(&self) -> impl Iterator<Item = &SynthesizedFinding> {
        self.findings
            .iter()
            .filter(|f| f.suppressed && !f.is_pre_existing())
    }

    /// Findings the bots say the PR did not introduce: shown apart, never gating.
    pub fn pre_existing(&self) -> impl Iterator<Item = &SynthesizedFinding> {
        self.findings.iter().filter(|f| f.is_pre_existing())
    }

    /// Surfaced findings at exactly this level.
    pub fn count_at(&self, level: ConsensusLevel) -> usize {
        self.surfaced()
            .filter(|f| f.consensus.level == level)
            .count()
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// The vocabulary depends on nothing above it (std and serde only), so no circle in the
    /// module graph runs through it: no `crate::` path in `model.rs` or in its children, no
    /// `super::` in `model.rs` (the crate root) nor `super::super::` in a child.
    #[test]
    #[allow(clippy::disallowed_methods)] // reads its own source
    fn the_vocabulary_imports_no_crate_module() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = vec![(src.join("model.rs"), "super::")];
        for entry in std::fs::read_dir(src.join("model")).expect("src/model") {
            files.push((entry.expect("an entry").path(), "super::super::"));
        }
        for (file, above) in files {
            let source = std::fs::read_to_string(&file).expect("source");
            let code = source.split("#[cfg(test)]").next().unwrap_or(&source);
            for (n, line) in code.lines().enumerate() {
                let line = line.trim_start();
                if line.starts_with("//") {
                    continue;
                }
                let at = format!("{}:{}: {line}", file.display(), n + 1);
                assert!(!line.contains("crate::") && !line.contains(above), "{at}");
                if let Some(path) = line.strip_prefix("pub use ").or(line.strip_prefix("use ")) {
                    let allowed = ["std::", "serde::", "identity::", "super::"];
                    assert!(allowed.iter().any(|a| path.starts_with(a)), "{at}");
                }
            }
        }
    }
}
