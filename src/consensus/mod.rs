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

    // Members grouped by cluster in one flat list (counting sort, input order kept).
    let mut starts = vec![0usize; count + 1];
    for &cluster in &cluster_of {
        starts[cluster + 1] += 1;
    }
    for i in 0..count {
        starts[i + 1] += starts[i];
    }
    let mut next = starts.clone();
    let mut flat: Vec<usize> = vec![0; findings.len()];
    for (index, &cluster) in cluster_of.iter().enumerate() {
        flat[next[cluster]] = index;
        next[cluster] += 1;
    }
    let members = |c: usize| flat[starts[c]..starts[c + 1]].iter().map(|&i| &findings[i]);

    // Score and order on borrowed members; copy each member once, straight into place.
    let summaries: Vec<score::Summary<'_>> = (0..count)
        .filter_map(|c| score::summarize(members(c), bots_ran))
        .collect();
    let mut order: Vec<usize> = (0..summaries.len()).collect();
    order.sort_by(|&a, &b| summaries[a].output_order(&summaries[b]));
    let mut summaries: Vec<Option<score::Summary<'_>>> = summaries.into_iter().map(Some).collect();
    order
        .into_iter()
        .filter_map(|c| {
            let summary = summaries[c].take()?;
            let owned = members(c).cloned().collect();
            Some(summary.into_finding(owned))
        })
        .collect()
}

/// A stable sort for large elements: sort indices, then apply the permutation in place by
/// following its cycles (each element moves once, no second buffer).
pub(crate) fn sort_stable<T>(
    mut items: Vec<T>,
    compare: impl Fn(&T, &T) -> std::cmp::Ordering,
) -> Vec<T> {
    // order[k] = the index of the element that belongs at position k.
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| compare(&items[a], &items[b]));
    for start in 0..items.len() {
        let mut current = start;
        loop {
            let next = order[current];
            order[current] = current;
            if next == start {
                break;
            }
            items.swap(current, next);
            current = next;
        }
    }
    items
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

#[cfg(test)]
mod tests {
    use super::sort_stable;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn sort_stable_matches_std_stable_sort(items in prop::collection::vec((0..5u8, 0..1000u32), 0..80)) {
            let mut expected = items.clone();
            expected.sort_by_key(|&(key, _)| key);
            prop_assert_eq!(sort_stable(items, |a, b| a.0.cmp(&b.0)), expected);
        }
    }
}
