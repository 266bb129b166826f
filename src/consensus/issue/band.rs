//! The pairs the fitted model cannot decide, or never sees: what a reader (the model judge,
//! `src/judge/`) may be asked. Two kinds reach the band: pairs of one file whose fitted
//! probability lies between the band's floor and `keep` (both sides of the link threshold),
//! and pairs that name the same distinctive identifier or literal wherever they are, far
//! apart in one file or in two files, which word overlap and line gaps miss.

use super::link::Prepared;
use super::text::Channel;
use super::Model;
use crate::consensus::cluster::{FastMap, FastSet};
use crate::model::NormalizedFinding;

/// Where a pair's uncertainty comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reach {
    /// One file, the fitted probability inside the band.
    Band,
    /// One file, fitted as unlikely, but both name the same distinctive code.
    SharedCode,
    /// Two files (or one PR-wide): the fitted model never compares them; both name the
    /// same distinctive code.
    OtherFile,
    /// One bot, one round, two places (the seed's distinct loci): never linked unless a
    /// reader finds that the text ties them.
    DistinctLoci,
}

/// The probabilities between which the fitted model is not trusted alone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Band {
    /// Below this (and naming no shared code), the fitted model's "apart" stands.
    pub floor: f64,
    /// At or above this, the fitted model's link stands and no reader may split it.
    pub keep: f64,
}

/// One uncertain pair: findings `a < b` (indices), the fitted probability (0 for pairs the
/// model never judged) and why it is uncertain.
#[derive(Debug, Clone, PartialEq)]
pub struct Uncertain {
    pub a: usize,
    pub b: usize,
    pub p: f64,
    pub reach: Reach,
    /// Both name one distinctive identifier or literal.
    pub shares_code: bool,
}

impl Band {
    /// Whether a pair with fitted probability `p` (and shared code or not, in one file or
    /// two) lies in this band.
    pub fn holds(&self, p: f64, shares_code: bool, reach: Reach) -> bool {
        // The fitted model never links distinct loci, whatever their probability.
        (p < self.keep || reach == Reach::DistinctLoci)
            && (p >= self.floor || shares_code || reach == Reach::OtherFile)
    }
}

/// A code term named by at most this many findings of the PR is distinctive: an identifier
/// or literal that points at one place, not `true` or a file every comment names.
const DISTINCT_HOLDERS: usize = 4;

/// The uncertain pairs of `findings` under `model`, in index order.
pub fn uncertain_pairs(
    findings: &[NormalizedFinding],
    model: &Model,
    band: Band,
) -> Vec<Uncertain> {
    let prepared = Prepared::of(findings);
    let sharers = distinctive_sharers(findings, &prepared);
    let mut out = Vec::new();
    let mut judged: FastSet<(u32, u32)> = FastSet::default();
    prepared.each_pair(findings, |a, b, features, gap| {
        judged.insert((a, b));
        let p = model.probability(features);
        let shares_code = sharers.contains(&(a, b));
        let reach = if prepared.distinct_loci(a, b as usize, gap) {
            Reach::DistinctLoci
        } else if p >= band.floor {
            Reach::Band
        } else {
            Reach::SharedCode
        };
        if !band.holds(p, shares_code, reach) {
            return;
        }
        out.push(Uncertain {
            a: a as usize,
            b: b as usize,
            p,
            reach,
            shares_code,
        });
    });
    for &(a, b) in &sharers {
        if !judged.contains(&(a, b)) && prepared.file_of(a) != prepared.file_of(b) {
            out.push(Uncertain {
                a: a as usize,
                b: b as usize,
                p: 0.0,
                reach: Reach::OtherFile,
                shares_code: true,
            });
        }
    }
    out.sort_by_key(|u| (u.a, u.b));
    out
}

/// Pairs `(a, b)`, `a < b`, that name one distinctive code term, across the whole PR.
fn distinctive_sharers(findings: &[NormalizedFinding], prepared: &Prepared) -> FastSet<(u32, u32)> {
    let mut holders: FastMap<u32, Vec<u32>> = FastMap::default();
    for index in 0..findings.len() {
        for term in prepared.corpus.channel_terms(index, Channel::Code) {
            holders.entry(term).or_default().push(index as u32);
        }
    }
    let mut pairs = FastSet::default();
    for list in holders.values() {
        if list.len() < 2 || list.len() > DISTINCT_HOLDERS {
            continue;
        }
        for (k, &a) in list.iter().enumerate() {
            for &b in &list[k + 1..] {
                pairs.insert((a.min(b), a.max(b)));
            }
        }
    }
    pairs
}
