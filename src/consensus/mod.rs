//! The consensus engine (seed `consensus-scoring.md`): cluster duplicate findings across
//! bots, score agreement, bucket. Pure: no I/O, no async, no clock.

use crate::model::{ConsensusFinding, ConsensusLevel, NormalizedFinding};

/// The seed's knobs.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsensusOptions {
    /// Agreement denominator; `None` = distinct bots in the input (at least 1).
    pub bots_ran: Option<usize>,
    pub line_window: u32,
    pub title_overlap: f64,
}

impl Default for ConsensusOptions {
    fn default() -> Self {
        ConsensusOptions {
            bots_ran: None,
            line_window: 3,
            title_overlap: 0.5,
        }
    }
}

pub fn compute_consensus(
    findings: &[NormalizedFinding],
    options: &ConsensusOptions,
) -> Vec<ConsensusFinding> {
    let _ = (findings, options);
    todo!("engine")
}

pub fn bucket_for_score(score: f64) -> ConsensusLevel {
    let _ = score;
    todo!("engine")
}
