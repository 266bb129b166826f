//! The consensus engine (seed `consensus-scoring.md`): cluster duplicate findings across
//! bots, score agreement, bucket. Two ways to judge "the same issue": `seed`, exactly the
//! seed's dedup rule, and `issue` (the default), refined for real bots (`issue` module).
//! Pure: no I/O, no async, no clock.

mod cluster;
mod issue;
mod reason;
mod render;
mod score;

pub use cluster::{jaccard, title_tokens};
pub use render::{locus, render_consensus_markdown, render_provenance};
pub use score::{bucket_for_score, clamp_confidence};

use crate::model::{ConsensusFinding, ConsensusLevel, MatchReason, NormalizedFinding};
use cluster::{FastMap, Rules};

pub(crate) use issue::without_boilerplate;
pub use issue::{
    fit, fit_weighted, is_where, judged_pairs, sigmoid, uncertain_pairs, Band, Constraints,
    FittedOn, Judgement, Model, PairEvidence, Reach, Uncertain, Verdict, FEATURES, FEATURE_COUNT,
};

/// How findings are judged the same issue (the `matching` input).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Matching {
    /// A match model fitted on labelled real PRs: for real bots (docs/scoring.md).
    #[default]
    Issue,
    /// Exactly the seed's dedup rule, for parity with other implementations.
    Seed,
}

impl Matching {
    pub const ACCEPTED: &'static str = "issue, seed";

    pub fn parse(text: &str) -> Option<Matching> {
        match text.trim() {
            "issue" => Some(Matching::Issue),
            "seed" => Some(Matching::Seed),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Matching::Issue => "issue",
            Matching::Seed => "seed",
        }
    }
}

/// The engine's knobs: the seed's, and the matching mode (`line_window` and
/// `title_overlap` are the seed rule's; `issue` matching has its fitted model).
#[derive(Debug, Clone, PartialEq)]
pub struct ConsensusOptions {
    /// Agreement denominator; `None` = distinct bots in the input (at least 1).
    pub bots_ran: Option<usize>,
    pub line_window: u32,
    pub title_overlap: f64,
    pub matching: Matching,
    /// What people said with `/consensus split` and `/consensus same` (issue matching).
    pub constraints: Constraints,
}

impl Default for ConsensusOptions {
    fn default() -> Self {
        ConsensusOptions {
            bots_ran: None,
            line_window: 3,
            title_overlap: 0.5,
            matching: Matching::default(),
            constraints: Constraints::default(),
        }
    }
}

/// Merge findings that the seed's rules call the same issue, score and bucket each cluster,
/// and return them in output order (score, severity, file, line; deterministic).
///
/// Each cluster owns copies of its members; a caller that owns the findings and has no
/// further use for them should call [`consensus_owned`], which moves them instead.
pub fn compute_consensus(
    findings: &[NormalizedFinding],
    options: &ConsensusOptions,
) -> Vec<ConsensusFinding> {
    consensus_owned(findings.to_vec(), options)
}

/// [`compute_consensus`] for a caller that owns the findings: the same clusters, with each
/// finding moved into its cluster's `members` rather than copied.
pub fn consensus_owned(
    findings: Vec<NormalizedFinding>,
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
    let (assignment, category_from, mut reasons) = match options.matching {
        Matching::Seed => {
            let assignment = cluster::assign_clusters(&findings, rules);
            let reasons = seed_reasons(&findings, &assignment, rules);
            let category_from = assignment.anchors.clone();
            (assignment, category_from, reasons)
        }
        Matching::Issue => {
            let matched = issue::assign_clusters(&findings, Model::builtin(), &options.constraints);
            (matched.assignment, matched.category_from, matched.reasons)
        }
    };
    let count = assignment.anchors.len();

    // Everything that reads the findings comes first, while they are borrowed: one
    // sequential pass updates each cluster's scores. Bots become small ids.
    let mut sizes = vec![0usize; count];
    let mut bot_ids: FastMap<&str, usize> = FastMap::default();
    let mut bot_names: Vec<&str> = Vec::new();
    let mut last_bot: Option<usize> = None;
    let mut aggregates: Vec<score::Aggregate> = Vec::with_capacity(count);
    for (index, (finding, &cluster)) in findings.iter().zip(&assignment.cluster_of).enumerate() {
        // Inputs come bot by bot: the previous finding's bot is the usual answer.
        let bot = match last_bot {
            Some(b) if bot_names[b] == finding.bot => b,
            _ => *bot_ids.entry(finding.bot.as_str()).or_insert_with(|| {
                bot_names.push(finding.bot.as_str());
                bot_names.len() - 1
            }),
        };
        last_bot = Some(bot);
        // Clusters are numbered by their anchor's position, so a cluster's first member
        // arrives after every earlier cluster's.
        if cluster == aggregates.len() {
            aggregates.push(score::Aggregate::new(index, finding, bot));
        } else {
            aggregates[cluster].add(index, finding, bot);
        }
        sizes[cluster] += 1;
    }

    let bot_rank = dense_ranks(&bot_names);
    let file_rank = dense_ranks(&assignment.files);
    let keys: Vec<score::OrderKey> = aggregates
        .iter()
        .enumerate()
        .map(|(cluster, aggregate)| score::OrderKey {
            score: aggregate.agreement_ratio(bots_ran) * aggregate.max_confidence,
            severity: aggregate.severity,
            file_rank: file_rank[assignment.file_of[cluster]],
            line: aggregate.line,
        })
        .collect();
    let mut order: Vec<usize> = (0..count).collect();
    order.sort_by(|&a, &b| keys[a].cmp(&keys[b]));

    // The rest of what a cluster copies out of the findings, in creation order: anchors
    // come in input order, so this reads the input front to back.
    let mut heads: Vec<Head> = aggregates
        .iter()
        .zip(assignment.anchors.iter().zip(&category_from))
        .map(|(aggregate, (&anchor, &category_from))| {
            let anchor = &findings[anchor];
            let mut bots = aggregate.bots();
            bots.sort_unstable_by_key(|&b| bot_rank[b]);
            Head {
                file: anchor.evidence.file.clone(),
                category: findings[category_from].category.clone(),
                title: findings[aggregate.title].title.clone(),
                detected_by: bots.into_iter().map(|b| bot_names[b].to_owned()).collect(),
            }
        })
        .collect();

    // The findings are no longer read: move each into its cluster, in input order so
    // members keep it. The member lists are allocated together, sized up front.
    let mut members: Vec<Vec<NormalizedFinding>> =
        sizes.into_iter().map(Vec::with_capacity).collect();
    for (finding, cluster) in findings.into_iter().zip(assignment.cluster_of) {
        members[cluster].push(finding);
    }

    order
        .into_iter()
        .map(|cluster| {
            let aggregate = &aggregates[cluster];
            let head = std::mem::take(&mut heads[cluster]);
            let agreement_ratio = aggregate.agreement_ratio(bots_ran);
            let consensus_score = agreement_ratio * aggregate.max_confidence;
            ConsensusFinding {
                file: head.file,
                line: aggregate.line,
                category: head.category,
                title: head.title,
                severity: aggregate.severity,
                detected_by: head.detected_by,
                bots_ran,
                agreement_ratio,
                max_confidence: aggregate.max_confidence,
                consensus_score,
                level: bucket_for_score(consensus_score),
                members: std::mem::take(&mut members[cluster]),
                match_reasons: std::mem::take(&mut reasons[cluster]),
            }
        })
        .collect()
}

/// `issue` matching with a given model: each finding's cluster (numbered by first member).
/// For fitting and measuring the model; the engine uses the built-in one.
pub fn issue_clusters(
    findings: &[NormalizedFinding],
    model: &Model,
    constraints: &Constraints,
) -> Vec<usize> {
    issue::assign_clusters(findings, model, constraints)
        .assignment
        .cluster_of
}

/// `seed` matching: each finding's cluster (numbered by first member).
pub fn seed_clusters(findings: &[NormalizedFinding], options: &ConsensusOptions) -> Vec<usize> {
    let rules = Rules {
        line_window: options.line_window,
        title_overlap: options.title_overlap,
    };
    cluster::assign_clusters(findings, rules).cluster_of
}

/// Per cluster: why each member after the anchor joined it under the seed's rules.
fn seed_reasons(
    findings: &[NormalizedFinding],
    assignment: &cluster::Assignment,
    rules: Rules,
) -> Vec<Vec<MatchReason>> {
    let seed = reason::SeedReasons::new(rules);
    let mut reasons = vec![Vec::new(); assignment.anchors.len()];
    for (index, &cluster) in assignment.cluster_of.iter().enumerate() {
        let anchor = assignment.anchors[cluster];
        if index != anchor {
            reasons[cluster].push(seed.of(&findings[anchor], &findings[index]));
        }
    }
    reasons
}

/// A cluster's fields copied from its members: the anchor's file and category, the longest
/// title, the bots' names.
#[derive(Default)]
struct Head {
    file: String,
    category: String,
    title: String,
    detected_by: Vec<String>,
}

/// The rank of each item in sorted order; equal items share a rank.
fn dense_ranks<T: Ord>(items: &[T]) -> Vec<usize> {
    let mut sorted: Vec<usize> = (0..items.len()).collect();
    sorted.sort_by(|&a, &b| items[a].cmp(&items[b]));
    let mut ranks = vec![0; items.len()];
    let mut rank = 0;
    for (position, &item) in sorted.iter().enumerate() {
        if position > 0 && items[sorted[position - 1]] != items[item] {
            rank += 1;
        }
        ranks[item] = rank;
    }
    ranks
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
    use super::*;
    use crate::model::Severity;
    use proptest::prelude::*;

    /// The seed, written plainly: greedy pass against every anchor, then the formulas.
    fn naive(findings: &[NormalizedFinding], options: &ConsensusOptions) -> Vec<ConsensusFinding> {
        let mut groups: Vec<Vec<&NormalizedFinding>> = Vec::new();
        for finding in findings {
            match groups
                .iter_mut()
                .find(|g| same_issue(g[0], finding, options))
            {
                Some(group) => group.push(finding),
                None => groups.push(vec![finding]),
            }
        }
        let mut bots: Vec<&str> = findings.iter().map(|f| f.bot.as_str()).collect();
        bots.sort_unstable();
        bots.dedup();
        let bots_ran = options.bots_ran.unwrap_or(bots.len()).max(1);
        let mut clusters: Vec<ConsensusFinding> = groups
            .into_iter()
            .map(|members| {
                let mut detected_by: Vec<String> = members.iter().map(|m| m.bot.clone()).collect();
                detected_by.sort();
                detected_by.dedup();
                let line = members.iter().filter_map(|m| m.evidence.line).min();
                let mut title = members[0].title.clone();
                for m in &members {
                    if m.title.chars().count() > title.chars().count() {
                        title = m.title.clone();
                    }
                }
                let severity = members.iter().map(|m| m.severity).max().unwrap_or_default();
                let max_confidence = members
                    .iter()
                    .map(|m| clamp_confidence(m.confidence))
                    .fold(0.0, f64::max);
                let agreement_ratio = (detected_by.len() as f64 / bots_ran as f64).min(1.0);
                let consensus_score = agreement_ratio * max_confidence;
                let rules = Rules {
                    line_window: options.line_window,
                    title_overlap: options.title_overlap,
                };
                let reasons = reason::SeedReasons::new(rules);
                let match_reasons = members[1..]
                    .iter()
                    .map(|m| reasons.of(members[0], m))
                    .collect();
                ConsensusFinding {
                    file: members[0].evidence.file.clone(),
                    line,
                    category: members[0].category.clone(),
                    title,
                    severity,
                    detected_by,
                    bots_ran,
                    agreement_ratio,
                    max_confidence,
                    consensus_score,
                    level: bucket_for_score(consensus_score),
                    members: members.into_iter().cloned().collect(),
                    match_reasons,
                }
            })
            .collect();
        clusters.sort_by(|a, b| {
            b.consensus_score
                .total_cmp(&a.consensus_score)
                .then(b.severity.cmp(&a.severity))
                .then(a.file.cmp(&b.file))
                .then(match (a.line, b.line) {
                    (Some(x), Some(y)) => x.cmp(&y),
                    (Some(_), None) => std::cmp::Ordering::Less,
                    (None, Some(_)) => std::cmp::Ordering::Greater,
                    (None, None) => std::cmp::Ordering::Equal,
                })
        });
        clusters
    }

    fn arb_finding() -> impl Strategy<Value = NormalizedFinding> {
        let words = prop::sample::subsequence(
            vec![
                "null", "pointer", "unused", "variable", "leak", "the", "sql", "ünï",
            ],
            0..4,
        );
        (
            0..4usize,
            0..3usize,
            0..2usize,
            prop::option::weighted(0.7, 0..25u32),
            words,
            0..5usize,
            prop::sample::select(vec![1.0, 0.5, 0.9, -1.0, 3.0]),
        )
            .prop_map(|(bot, file, category, line, words, severity, confidence)| {
                let mut f = NormalizedFinding::new(
                    ["a", "b", "c", "d"][bot],
                    "",
                    Severity::ALL[severity],
                    ["bug", "security"][category],
                    words.join(" "),
                )
                .at(["", "a.py", "b.rs"][file], line);
                f.confidence = confidence;
                f
            })
    }

    proptest! {
        #[test]
        fn compute_consensus_equals_the_plain_seed(
            findings in prop::collection::vec(arb_finding(), 0..50),
            bots_ran in prop::option::of(0..6usize),
            line_window in 0..4u32,
            title_overlap in prop::sample::select(vec![0.0, 0.34, 0.5, 1.0]),
        ) {
            let options = ConsensusOptions { bots_ran, line_window, title_overlap, matching: Matching::Seed, constraints: Constraints::default() };
            let expected = naive(&findings, &options);
            prop_assert_eq!(compute_consensus(&findings, &options), expected.clone());
            // The owned entry point is the implementation; the borrowed one only copies.
            prop_assert_eq!(consensus_owned(findings, &options), expected);
        }

        #[test]
        fn sort_stable_matches_std_stable_sort(items in prop::collection::vec((0..5u8, 0..1000u32), 0..80)) {
            let mut expected = items.clone();
            expected.sort_by_key(|&(key, _)| key);
            prop_assert_eq!(sort_stable(items, |a, b| a.0.cmp(&b.0)), expected);
        }
    }
}
