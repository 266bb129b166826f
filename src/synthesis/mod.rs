//! Finding synthesis (seed `finding-synthesizer.md`) on top of the consensus clusters:
//! corroborate, contest, suppress, rank. Pure. The rules are documented in
//! `docs/scoring.md`.

mod contest;
mod rank;
mod suppress;

pub use rank::{confidence_score, merged_confidence, severity_score, verification_score};
pub use suppress::{has_no_evidence, is_style_only};

use crate::consensus::sort_stable;
use crate::model::{ConsensusFinding, SuppressionReason, SynthesizedFinding};

/// Sources whose findings a tool verified (code scanning), whatever the options say.
pub const TOOL_VERIFIED: &[&str] = &["gh-advanced-security"];

/// The seed's shortcut: one source with fewer findings than this skips the de-noising.
pub const SHORTCUT_BELOW: usize = 5;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SynthesisOptions {
    /// Suppress style-only findings as covered by linters.
    pub style_covered_by_linters: bool,
    /// Suppress findings whose `rank_score` is below this.
    pub evidence_threshold: u8,
    /// More tool-verified sources (e.g. a SARIF source's name), besides `TOOL_VERIFIED`.
    pub verified_sources: Vec<String>,
    /// Apply the seed's single-source shortcut.
    pub single_source_shortcut: bool,
    /// How many sources ran (the pipeline knows; `None` = judge by the findings' bots). The
    /// shortcut is for one review source, not for one source that happened to find things.
    pub sources_ran: Option<usize>,
}

impl Default for SynthesisOptions {
    fn default() -> Self {
        SynthesisOptions {
            style_covered_by_linters: true,
            evidence_threshold: 4,
            verified_sources: Vec::new(),
            single_source_shortcut: true,
            sources_ran: None,
        }
    }
}

impl SynthesisOptions {
    fn is_tool_verified(&self, source: &str) -> bool {
        TOOL_VERIFIED.contains(&source) || self.verified_sources.iter().any(|s| s == source)
    }
}

/// Whether the seed's shortcut applies: a single source with fewer than 5 findings.
pub fn shortcut_applies(clusters: &[ConsensusFinding]) -> bool {
    let mut members = clusters.iter().flat_map(|c| c.members.iter());
    let Some(first) = members.next() else {
        return true;
    };
    let mut count = 1;
    for member in members {
        if member.bot != first.bot {
            return false;
        }
        count += 1;
    }
    count < SHORTCUT_BELOW
}

/// Synthesise consensus clusters: surfaced findings first in rank order, then suppressed
/// (also in rank order); ties keep the consensus order.
pub fn synthesize(
    clusters: Vec<ConsensusFinding>,
    options: &SynthesisOptions,
) -> Vec<SynthesizedFinding> {
    let one_source = options.sources_ran.is_none_or(|ran| ran <= 1);
    let judge = !(options.single_source_shortcut && one_source && shortcut_applies(&clusters));
    let findings: Vec<SynthesizedFinding> = clusters
        .into_iter()
        .map(|cluster| synthesize_one(cluster, options, judge))
        .collect();
    sort_stable(findings, |a, b| {
        a.suppressed
            .cmp(&b.suppressed)
            .then_with(|| b.rank_score.cmp(&a.rank_score))
    })
}

/// Synthesise the clusters of pre-existing findings (the bots say the PR did not introduce
/// them): scored like any other, then suppressed as `PreExisting`, so they are shown apart
/// and never gate. Rank order, ties in the consensus order.
pub fn set_apart(
    clusters: Vec<ConsensusFinding>,
    options: &SynthesisOptions,
) -> Vec<SynthesizedFinding> {
    let findings: Vec<SynthesizedFinding> = clusters
        .into_iter()
        .map(|cluster| {
            let mut finding = synthesize_one(cluster, options, false);
            finding.suppressed = true;
            finding.suppression_reason = Some(SuppressionReason::PreExisting);
            finding
        })
        .collect();
    sort_stable(findings, |a, b| b.rank_score.cmp(&a.rank_score))
}

fn synthesize_one(
    cluster: ConsensusFinding,
    options: &SynthesisOptions,
    judge: bool,
) -> SynthesizedFinding {
    let (contested_by, contest_reasons) = contest::contesters(&cluster);
    let tool_verified = cluster
        .detected_by
        .iter()
        .any(|s| options.is_tool_verified(s));
    let severity_score = severity_score(cluster.severity);
    let confidence_score = confidence_score(cluster.max_confidence);
    let verification_score = verification_score(cluster.detected_by.len(), tool_verified);
    let rank_score = severity_score * confidence_score * verification_score;
    let merged_confidence = merged_confidence(
        confidence_score,
        verification_score,
        !contested_by.is_empty(),
    );
    let suppression_reason = suppress::suppression(
        &cluster,
        rank_score,
        options.style_covered_by_linters,
        options.evidence_threshold,
        judge,
    );
    SynthesizedFinding {
        corroborated_by: cluster.detected_by.clone(),
        consensus: cluster,
        contested_by,
        contest_reasons,
        merged_confidence,
        severity_score,
        confidence_score,
        verification_score,
        rank_score,
        suppressed: suppression_reason.is_some(),
        suppression_reason,
        identity: None,
    }
}

#[cfg(test)]
mod tests;
