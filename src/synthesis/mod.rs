//! Finding synthesis (seed `finding-synthesizer.md`) on top of the consensus clusters:
//! corroborate, contest, suppress, rank. Pure.

use crate::model::{ConsensusFinding, SynthesizedFinding};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SynthesisOptions {
    /// Suppress style-only findings as covered by linters.
    pub style_covered_by_linters: bool,
    /// Suppress findings whose `rank_score` is below this.
    pub evidence_threshold: u8,
}

impl Default for SynthesisOptions {
    fn default() -> Self {
        SynthesisOptions {
            style_covered_by_linters: true,
            evidence_threshold: 4,
        }
    }
}

/// Synthesise consensus clusters: surfaced findings first in rank order, then suppressed.
pub fn synthesize(
    clusters: Vec<ConsensusFinding>,
    options: &SynthesisOptions,
) -> Vec<SynthesizedFinding> {
    let _ = (clusters, options);
    todo!("engine")
}
