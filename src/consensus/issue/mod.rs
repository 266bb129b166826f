//! `issue` matching: which findings name one underlying defect, where real bots word, anchor
//! and label the same defect differently (docs/scoring.md, "`issue` matching").
//!
//! - Every pair worth judging in a file gets its evidence in two channels ([`features`]):
//!   WHERE (the line gap, a later round, one bot twice in one review) and WHAT (the claim's
//!   words and title, code, defect class, polarity; [`text`], [`lexicon`]).
//! - A logistic model ([`logistic`]), fitted by `cargo run --release --example
//!   fit_matching` on the labelled real PRs, turns the evidence into a match probability.
//! - Linking is best first ([`link`]): the most probable pair joins first, and two clusters
//!   join only when every pair between them is at least loosely probable (half the link
//!   threshold), so no chain of links joins two defects through a finding that resembles
//!   both. A bot's own repeats (a later round, a second anchor) may join; a person's
//!   `/consensus split` and `same` are obeyed ([`Constraints`]).

mod band;
mod features;
mod lexicon;
mod link;
mod logistic;
mod text;

pub use band::{uncertain_pairs, Band, Reach, Uncertain};
pub use features::{is_where, FEATURES, FEATURE_COUNT};
pub use logistic::{fit, fit_weighted, sigmoid, FittedOn, Model};
pub(crate) use text::without_boilerplate;

use super::cluster::Assignment;
use crate::model::{JudgeSaid, MatchReason, NormalizedFinding};

/// Pairs of findings (indices into the engine's input) a person said are one defect or two,
/// and pairs a reader (the model judge) decided inside the band.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Constraints {
    /// Keep apart: never in one cluster.
    pub apart: Vec<(usize, usize)>,
    /// Put together, whatever the evidence.
    pub together: Vec<(usize, usize)>,
    /// A reader's verdicts: a "same" links the pair, a "different" keeps its two clusters
    /// from joining; a person's `apart` and `together` still win.
    pub judged: Vec<Verdict>,
}

/// A reader's verdict on the pair `(a, b)` (indices into the engine's input).
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub a: usize,
    pub b: usize,
    pub said: JudgeSaid,
}

/// The clusters of `findings`, with the member each takes its category from and why its
/// members were linked.
pub(super) struct Matched {
    pub assignment: Assignment,
    pub category_from: Vec<usize>,
    pub reasons: Vec<Vec<MatchReason>>,
}

pub(super) fn assign_clusters(
    findings: &[NormalizedFinding],
    model: &Model,
    constraints: &Constraints,
) -> Matched {
    link::assign(findings, model, constraints)
}

/// One judged pair: the two findings (indices, `a < b`) and their evidence.
#[derive(Debug, Clone, PartialEq)]
pub struct PairEvidence {
    pub a: usize,
    pub b: usize,
    pub features: [f64; FEATURE_COUNT],
}

/// The pairs the engine judges in a set of findings, with their evidence, computed once:
/// what the model is fitted on, and what any model then links.
pub struct Judgement {
    judged: link::Judged,
}

impl Judgement {
    pub fn of(findings: &[NormalizedFinding]) -> Judgement {
        Judgement {
            judged: link::Judged::of(findings),
        }
    }

    pub fn pairs(&self) -> impl Iterator<Item = PairEvidence> + '_ {
        self.judged.pairs.iter().map(|pair| PairEvidence {
            a: pair.a as usize,
            b: pair.b as usize,
            features: pair.features,
        })
    }

    /// Each finding's cluster under `model` (the findings this judgement was made of).
    pub fn clusters(&self, findings: &[NormalizedFinding], model: &Model) -> Vec<usize> {
        self.clusters_with(findings, model, &Constraints::default())
    }

    /// [`Judgement::clusters`] with what people and readers said.
    pub fn clusters_with(
        &self,
        findings: &[NormalizedFinding],
        model: &Model,
        constraints: &Constraints,
    ) -> Vec<usize> {
        link::link(findings, &self.judged, model, constraints)
            .assignment
            .cluster_of
    }
}

/// Every pair the engine judges in `findings`, with its evidence.
pub fn judged_pairs(findings: &[NormalizedFinding]) -> Vec<PairEvidence> {
    Judgement::of(findings).pairs().collect()
}

#[cfg(test)]
mod tests;
