//! The pure middle of the pipeline, shared by the action, `run`, `render` and `demo`:
//! adapters -> consensus -> synthesis -> gate, giving one `Outcome`.

use crate::adapters::{self, ExtractOptions, SourceConfig};
use crate::api::PrSnapshot;
use crate::consensus::{self, ConsensusOptions};
use crate::gate;
use crate::model::{Coverage, FailOn, NormalizedFinding, Outcome, SourceState, SourceStatus};
use crate::synthesis::{self, SynthesisOptions};

/// Findings that come from outside the PR's comments: a SARIF file, a findings file.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtraSource {
    /// Status to report for it (its `bot` is the source name).
    pub status: SourceStatus,
    pub findings: Vec<NormalizedFinding>,
}

impl ExtraSource {
    /// A source that was read successfully.
    pub fn ok(bot: impl Into<String>, findings: Vec<NormalizedFinding>) -> Self {
        let status = SourceStatus {
            bot: bot.into(),
            status: SourceState::Ok,
            coverage: Coverage::Reviewed,
            findings: findings.len(),
            skipped: 0,
            notes: Vec::new(),
        };
        ExtraSource { status, findings }
    }

    /// A source that could not be read at all: listed, nothing taken from it.
    pub fn malformed(bot: impl Into<String>, reason: impl Into<String>) -> Self {
        let status = SourceStatus {
            bot: bot.into(),
            status: SourceState::Malformed,
            coverage: Coverage::Absent,
            findings: 0,
            skipped: 0,
            notes: vec![reason.into()],
        };
        ExtraSource {
            status,
            findings: Vec::new(),
        }
    }
}

/// Every knob of the pure pipeline.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AnalysisOptions {
    pub extract: ExtractOptions,
    /// `bots_ran: None` derives the denominator from the sources that ran.
    pub consensus: ConsensusOptions,
    pub synthesis: SynthesisOptions,
    pub fail_on: FailOn,
}

/// Run adapters (when there is a PR snapshot), add extra sources, then the engine and gate.
pub fn analyze(
    snapshot: Option<&PrSnapshot>,
    sources: &[SourceConfig],
    extra: Vec<ExtraSource>,
    options: &AnalysisOptions,
) -> Outcome {
    let mut findings = Vec::new();
    let mut statuses = Vec::new();
    if let Some(snapshot) = snapshot {
        let extraction = adapters::extract(snapshot, sources, &options.extract);
        findings.extend(extraction.findings);
        statuses.extend(extraction.sources);
    }
    for source in extra {
        findings.extend(source.findings);
        statuses.push(source.status);
    }

    let bots_ran = options
        .consensus
        .bots_ran
        .unwrap_or_else(|| statuses.iter().filter(|s| s.coverage.ran()).count())
        .max(1);
    let consensus_options = ConsensusOptions {
        bots_ran: Some(bots_ran),
        ..options.consensus.clone()
    };
    // `findings` is not needed afterwards: the clusters take the findings, no copies.
    let clusters = consensus::consensus_owned(findings, &consensus_options);
    let synthesized = synthesis::synthesize(clusters, &options.synthesis);
    let gate = gate::decide(&synthesized, options.fail_on);

    Outcome {
        repository: snapshot.map(|s| s.repository.clone()).unwrap_or_default(),
        pull_request: snapshot.map(|s| s.pull.number),
        head_sha: snapshot
            .map(|s| s.head_sha().to_owned())
            .filter(|sha| !sha.is_empty()),
        bots_ran,
        sources: statuses,
        findings: synthesized,
        fail_on: options.fail_on,
        gate,
    }
}
