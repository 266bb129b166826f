//! The consensus engine (seed `consensus-scoring.md`): cluster duplicate findings across
//! bots, score agreement, bucket. Pure: no I/O, no async, no clock.

mod cluster;
mod render;
mod score;

pub use cluster::{jaccard, title_tokens};
pub use render::{locus, render_consensus_markdown, render_provenance};
pub use score::{bucket_for_score, clamp_confidence};

use crate::model::{ConsensusFinding, ConsensusLevel, NormalizedFinding};
use cluster::Rules;

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

/// Merge findings that the seed's rules call the same issue, score and bucket each cluster,
/// and return them in output order (score, severity, file, line; deterministic).
pub fn compute_consensus(
    findings: &[NormalizedFinding],
    options: &ConsensusOptions,
) -> Vec<ConsensusFinding> {
    let bots_ran = options
        .bots_ran
        .unwrap_or_else(|| {
            let mut bots: Vec<&str> = findings.iter().map(|f| f.bot.as_str()).collect();
            bots.sort_unstable();
            bots.dedup();
            bots.len()
        })
        .max(1);
    let rules = Rules {
        line_window: options.line_window,
        title_overlap: options.title_overlap,
    };
    let (cluster_of, count) = cluster::assign_clusters(findings, rules);
    let mut members: Vec<Vec<NormalizedFinding>> = vec![Vec::new(); count];
    for (finding, &cluster) in findings.iter().zip(&cluster_of) {
        members[cluster].push(finding.clone());
    }
    let clusters: Vec<ConsensusFinding> = members
        .into_iter()
        .map(|members| score::score_cluster(members, bots_ran))
        .collect();
    sort_stable(clusters, score::output_order)
}

/// A stable sort that moves each (large) element once: sort indices, then take in order.
pub(crate) fn sort_stable<T>(
    items: Vec<T>,
    compare: impl Fn(&T, &T) -> std::cmp::Ordering,
) -> Vec<T> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| compare(&items[a], &items[b]));
    let mut slots: Vec<Option<T>> = items.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// The seed's dedup rules for one pair: does `b` describe the same issue as `a`? (The
/// greedy pass compares each finding with cluster anchors only.)
pub fn same_issue(
    a: &NormalizedFinding,
    b: &NormalizedFinding,
    options: &ConsensusOptions,
) -> bool {
    Rules {
        line_window: options.line_window,
        title_overlap: options.title_overlap,
    }
    .same_issue(a, b)
}

/// The findings a gate should block on: those at `min_level` or above (the seed's default
/// is `ConsensusLevel::Confirmed`).
pub fn must_address(
    consensus: &[ConsensusFinding],
    min_level: ConsensusLevel,
) -> Vec<&ConsensusFinding> {
    consensus.iter().filter(|f| f.level >= min_level).collect()
}
