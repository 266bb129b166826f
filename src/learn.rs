//! Learning and measuring `issue` matching on hand-labelled real PRs (tests/fixtures/real*,
//! labelled under tests/fixtures/LABELLING.md): which findings a label names, pairwise
//! precision and recall of merges (as `score_real.py` counts them), the rows the match model
//! is fitted on, and leave-one-repository-out cross-validation, so that every figure we
//! publish comes from PRs the weights never saw. Pure: the scenarios are read by
//! `local::load_labelled`.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::consensus::{self, Judgement, Model, FEATURE_COUNT};
use crate::model::NormalizedFinding;

/// The L2 penalties a fit chooses from.
pub const PENALTIES: &[f64] = &[0.1, 0.3, 1.0, 3.0, 10.0];
/// The link thresholds a fit chooses from.
pub const THRESHOLDS: &[f64] = &[0.3, 0.4, 0.5, 0.6, 0.7, 0.8];
/// How a fit weighs recall against precision when it chooses (F-beta): a wrong merge hides
/// a finding behind another, a missed one only repeats it, so precision counts double.
pub const BETA: f64 = 0.5;

/// One labelled PR, read twice: as a default run sees it (open members) and with every
/// member (outdated and resolved comments kept).
pub struct LabelledPr {
    pub name: String,
    /// `owner/name` of the PR's repository: the unit of cross-validation.
    pub repository: String,
    pub open: View,
    pub all: View,
}

/// Which members a view counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Count {
    /// Members a default run sees: outdated and resolved left out.
    Open,
    /// Every member.
    All,
}

/// The findings a run extracts and the labelled members they answer to.
pub struct View {
    pub findings: Vec<NormalizedFinding>,
    pub members: Vec<Member>,
    /// Pairs of clusters that must stay apart (different defects close together).
    pub must_not_merge: Vec<(String, String)>,
    /// The engine's judgement of the findings' pairs (made once; any model links them).
    pub judgement: Judgement,
    /// The inline members every labelling labels, for the lenient count by kind.
    pub readings: Vec<Reading>,
}

/// One inline comment as every labelling reads it (`expected.json` first, then each
/// `labels-*.json`): the finding it was located at, its bot, and its cluster in each.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    pub finding: usize,
    pub bot: String,
    pub clusters: Vec<String>,
}

/// One labelled member: its cluster, its bot, and the finding it was located at.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub cluster: String,
    pub bot: String,
    pub finding: Option<usize>,
}

/// `expected.json`, as far as scoring reads it.
#[derive(Debug, Clone, Deserialize)]
pub struct Expected {
    #[serde(default)]
    pub source_url: String,
    pub clusters: Vec<ExpectedCluster>,
    #[serde(default)]
    pub must_not_merge: Vec<(String, String)>,
}

impl Expected {
    /// Each inline member's comment id with its cluster, bot and whether it counts as open.
    fn inline_members(&self) -> BTreeMap<u64, (&str, String, bool)> {
        let mut out = BTreeMap::new();
        for cluster in &self.clusters {
            for member in &cluster.members {
                if let Some(id) = member.comment_id {
                    let open = is_open(&cluster.status) && is_open(&member.status);
                    let bot = member.bot.to_lowercase();
                    out.insert(id, (cluster.cluster_id.as_str(), bot, open));
                }
            }
        }
        out
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct ExpectedCluster {
    pub cluster_id: String,
    #[serde(default)]
    pub file: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
    pub members: Vec<ExpectedMember>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ExpectedMember {
    pub bot: String,
    #[serde(default)]
    pub comment_id: Option<u64>,
    #[serde(default)]
    pub review_id: Option<u64>,
    #[serde(default)]
    pub line: Option<u32>,
    #[serde(default)]
    pub status: Option<String>,
}

fn is_open(status: &Option<String>) -> bool {
    status.as_deref().is_none_or(|s| s == "open")
}

impl Expected {
    /// `owner/name` from the source URL (`https://github.com/owner/name/pull/N`).
    pub fn repository(&self) -> String {
        let path = self
            .source_url
            .split("github.com/")
            .nth(1)
            .unwrap_or(&self.source_url);
        let mut parts = path.split('/');
        match (parts.next(), parts.next()) {
            (Some(owner), Some(name)) => format!("{owner}/{name}").to_ascii_lowercase(),
            _ => self.source_url.clone(),
        }
    }
}

/// The ids a finding answers to: its comment, its review, numbers in its id and URL.
fn finding_ids(finding: &NormalizedFinding) -> BTreeSet<u64> {
    let mut ids: BTreeSet<u64> = [finding.provenance.comment_id, finding.provenance.review_id]
        .into_iter()
        .flatten()
        .collect();
    for text in [
        finding.finding_id.as_str(),
        finding.provenance.url.as_deref().unwrap_or(""),
    ] {
        ids.extend(
            text.split(|c: char| !c.is_ascii_digit())
                .filter(|d| d.len() >= 5)
                .filter_map(|d| d.parse::<u64>().ok()),
        );
    }
    ids
}

impl View {
    /// Label `findings` with `expected`: each counted member is located at the finding
    /// that answers to its comment id (or review id, nearest line), as `score_real.py`
    /// locates it.
    /// `others` are other readers' labellings of the same PR (`labels-*.json`): the lenient
    /// count by kind ([`View::score_by_kind`]) reads them beside `expected`.
    pub fn label(
        findings: Vec<NormalizedFinding>,
        expected: &Expected,
        others: &[Expected],
        count: Count,
    ) -> View {
        let ids: Vec<BTreeSet<u64>> = findings.iter().map(finding_ids).collect();
        let mut members = Vec::new();
        for cluster in &expected.clusters {
            if count == Count::Open && !is_open(&cluster.status) {
                continue;
            }
            for member in &cluster.members {
                if count == Count::Open && !is_open(&member.status) {
                    continue;
                }
                let want: Vec<u64> = [member.comment_id, member.review_id]
                    .into_iter()
                    .flatten()
                    .collect();
                let located = (0..findings.len())
                    .filter(|&i| want.iter().any(|id| ids[i].contains(id)))
                    .min_by_key(|&i| {
                        let f = &findings[i];
                        let primary = member.comment_id.is_some_and(|id| ids[i].contains(&id));
                        let same_file = cluster.file.as_deref() == Some(f.evidence.file.as_str());
                        let distance = match (member.line, f.evidence.line) {
                            (Some(want), Some(line)) => want.abs_diff(line),
                            (Some(_), None) => u32::MAX,
                            (None, _) => 0,
                        };
                        (!primary, !same_file, distance)
                    });
                members.push(Member {
                    cluster: cluster.cluster_id.clone(),
                    bot: member.bot.clone(),
                    finding: located,
                });
            }
        }
        let readings = readings(&findings, expected, others, count);
        View {
            judgement: Judgement::of(&findings),
            findings,
            members,
            must_not_merge: expected.must_not_merge.clone(),
            readings,
        }
    }

    /// Pairs of inline members counted by kind (two bots, or one bot's repeats), lenient
    /// over every labelling as `score_real.py` counts them: a merge is wrong only if every
    /// labelling keeps the pair apart, a miss only if every labelling joins it.
    pub fn score_by_kind(&self, cluster_of: &[usize]) -> ByKind {
        let mut out = ByKind::default();
        for (k, x) in self.readings.iter().enumerate() {
            for y in &self.readings[k + 1..] {
                let kind = if x.bot == y.bot {
                    &mut out.same_bot
                } else {
                    &mut out.cross_bot
                };
                let merged = cluster_of[x.finding] == cluster_of[y.finding];
                let joined = x.clusters.iter().zip(&y.clusters).map(|(a, b)| a == b);
                let (any, all) = joined.fold((false, true), |(any, all), j| (any || j, all && j));
                kind.merged += usize::from(merged);
                kind.wrong += usize::from(merged && !any);
                kind.truth += usize::from(all);
                kind.found += usize::from(all && merged);
            }
        }
        out
    }

    /// Each finding's labelled cluster, when the members located at it agree on one.
    pub fn cluster_of_findings(&self) -> Vec<Option<&str>> {
        let mut of: Vec<Option<Option<&str>>> = vec![None; self.findings.len()];
        for member in &self.members {
            let Some(i) = member.finding else { continue };
            of[i] = match of[i] {
                None => Some(Some(member.cluster.as_str())),
                Some(Some(c)) if c == member.cluster => Some(Some(c)),
                Some(_) => Some(None),
            };
        }
        of.into_iter().map(Option::flatten).collect()
    }

    /// The pairs the engine judges, labelled: `(features, one defect?)` for every pair
    /// whose two findings carry a label.
    pub fn rows(&self) -> Vec<([f64; FEATURE_COUNT], bool)> {
        let labels = self.cluster_of_findings();
        self.judgement
            .pairs()
            .filter_map(|pair| match (labels[pair.a], labels[pair.b]) {
                (Some(x), Some(y)) => Some((pair.features, x == y)),
                _ => None,
            })
            .collect()
    }

    /// Score a clustering of this view's findings (`cluster_of[i]`: finding `i`'s cluster).
    pub fn score(&self, cluster_of: &[usize]) -> Score {
        let mut score = Score::default();
        let at = |m: &Member| m.finding.map(|i| cluster_of[i]);
        for (i, x) in self.members.iter().enumerate() {
            if x.finding.is_none() {
                score.missing += 1;
            }
            for y in &self.members[i + 1..] {
                let merged = at(x).is_some() && at(x) == at(y);
                let true_pair = x.cluster == y.cluster;
                let cross = true_pair && x.bot != y.bot;
                score.true_pairs += usize::from(true_pair);
                score.cross_bot_pairs += usize::from(cross);
                score.merged_pairs += usize::from(merged);
                score.merged_true += usize::from(merged && true_pair);
                score.merged_cross_bot += usize::from(merged && cross);
            }
        }
        let clusters_of = |id: &str| -> BTreeSet<usize> {
            self.members
                .iter()
                .filter(|m| m.cluster == id)
                .filter_map(at)
                .collect()
        };
        for (a, b) in &self.must_not_merge {
            if !clusters_of(a).is_disjoint(&clusters_of(b)) {
                score.violations.push(format!("{a}+{b}"));
            }
        }
        score
    }
}

/// The inline members labelled by every labelling, located at their findings (the first
/// finding that answers to the comment id), in comment-id order.
fn readings(
    findings: &[NormalizedFinding],
    expected: &Expected,
    others: &[Expected],
    count: Count,
) -> Vec<Reading> {
    let labellings: Vec<_> = std::iter::once(expected)
        .chain(others)
        .map(Expected::inline_members)
        .collect();
    let located = |id: u64| {
        findings
            .iter()
            .position(|f| f.provenance.comment_id == Some(id))
    };
    labellings[0]
        .iter()
        .filter(|(_, (_, _, open))| count == Count::All || *open)
        .filter(|(id, _)| labellings.iter().all(|l| l.contains_key(id)))
        .filter_map(|(&id, (_, bot, _))| {
            Some(Reading {
                finding: located(id)?,
                bot: bot.clone(),
                clusters: labellings.iter().map(|l| l[&id].0.to_owned()).collect(),
            })
        })
        .collect()
}

/// Lenient pair counts of one kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KindCounts {
    /// Pairs the clustering merged.
    pub merged: usize,
    /// Merged pairs that every labelling keeps apart.
    pub wrong: usize,
    /// Pairs every labelling joins.
    pub truth: usize,
    /// Of those, the ones the clustering merged.
    pub found: usize,
}

impl KindCounts {
    pub fn add(&mut self, other: &KindCounts) {
        self.merged += other.merged;
        self.wrong += other.wrong;
        self.truth += other.truth;
        self.found += other.found;
    }

    pub fn precision(&self) -> f64 {
        ratio(self.merged - self.wrong, self.merged)
    }

    pub fn recall(&self) -> f64 {
        ratio(self.found, self.truth)
    }

    /// `P 0.95 R 0.90 (18/20, 1 of 19 merged wrong)`.
    pub fn summary(&self) -> String {
        format!(
            "P {:.2} R {:.2} ({}/{}, {} of {} merged wrong)",
            self.precision(),
            self.recall(),
            self.found,
            self.truth,
            self.wrong,
            self.merged
        )
    }
}

/// Inline pairs by kind: two bots' findings (the agreement the gate counts) and one bot's
/// own repeats (which readers dispute most), lenient over every labelling.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ByKind {
    pub cross_bot: KindCounts,
    pub same_bot: KindCounts,
}

impl ByKind {
    pub fn add(&mut self, other: &ByKind) {
        self.cross_bot.add(&other.cross_bot);
        self.same_bot.add(&other.same_bot);
    }

    pub fn summary(&self) -> String {
        format!(
            "cross-bot {}; same-bot {}",
            self.cross_bot.summary(),
            self.same_bot.summary()
        )
    }
}

/// Pairwise merge quality, pooled by adding.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Score {
    pub true_pairs: usize,
    pub cross_bot_pairs: usize,
    pub merged_pairs: usize,
    pub merged_true: usize,
    pub merged_cross_bot: usize,
    pub missing: usize,
    /// `must_not_merge` pairs merged, as `A+B`.
    pub violations: Vec<String>,
}

impl Score {
    pub fn add(&mut self, other: &Score) {
        self.true_pairs += other.true_pairs;
        self.cross_bot_pairs += other.cross_bot_pairs;
        self.merged_pairs += other.merged_pairs;
        self.merged_true += other.merged_true;
        self.merged_cross_bot += other.merged_cross_bot;
        self.missing += other.missing;
        self.violations.extend(other.violations.iter().cloned());
    }

    pub fn precision(&self) -> f64 {
        ratio(self.merged_true, self.merged_pairs)
    }

    pub fn recall(&self) -> f64 {
        ratio(self.merged_true, self.true_pairs)
    }

    pub fn cross_bot_recall(&self) -> f64 {
        ratio(self.merged_cross_bot, self.cross_bot_pairs)
    }

    pub fn f1(&self) -> f64 {
        self.f_beta(1.0)
    }

    /// The weighted harmonic mean of precision and recall (`beta` < 1 favours precision).
    pub fn f_beta(&self, beta: f64) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        let b2 = beta * beta;
        if p + r == 0.0 {
            0.0
        } else {
            (1.0 + b2) * p * r / (b2 * p + r)
        }
    }

    /// `precision 0.95 recall 0.85 (17/20), cross-bot 0.90 (9/10), 0 must-not-merge`.
    pub fn summary(&self) -> String {
        format!(
            "precision {:.2} recall {:.2} ({}/{} true pairs, {} merged), cross-bot recall {:.2} \
             ({}/{}), must-not-merge merged {}",
            self.precision(),
            self.recall(),
            self.merged_true,
            self.true_pairs,
            self.merged_pairs,
            self.cross_bot_recall(),
            self.merged_cross_bot,
            self.cross_bot_pairs,
            self.violations.len()
        )
    }
}

fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        1.0
    } else {
        part as f64 / whole as f64
    }
}

/// Cluster a view's findings with `model`: each finding's cluster.
pub fn clusters_with(view: &View, model: &Model) -> Vec<usize> {
    view.judgement.clusters(&view.findings, model)
}

/// Fit the match model on every PR given (rows from the every-member view), with a given
/// penalty and threshold.
pub fn fit_with(
    prs: &[&LabelledPr],
    used: &[bool; FEATURE_COUNT],
    l2: f64,
    threshold: f64,
) -> Model {
    let mut rows = Vec::new();
    let mut repository_of = Vec::new();
    for pr in prs {
        let own = pr.all.rows();
        repository_of.extend(std::iter::repeat_n(pr.repository.as_str(), own.len()));
        rows.extend(own);
    }
    let weights = repository_weights(&repository_of);
    let mut model = consensus::fit_weighted(&rows, &weights, l2, used);
    model.threshold = threshold;
    let repositories: BTreeSet<&str> = prs.iter().map(|pr| pr.repository.as_str()).collect();
    model.fitted_on.repositories = repositories.len();
    model.fitted_on.prs = prs.len();
    model
}

/// No repository decides more than this share of the fit: a repository holding more of the
/// labelled pairs has its rows weighed down to it.
pub const MAX_REPOSITORY_SHARE: f64 = 0.2;

/// Each row's weight: 1, or less for the rows of a repository that holds more than
/// [`MAX_REPOSITORY_SHARE`] of them (then its rows weigh that share together).
fn repository_weights(repository_of: &[&str]) -> Vec<f64> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for &r in repository_of {
        *counts.entry(r).or_default() += 1;
    }
    let total = repository_of.len() as f64;
    repository_of
        .iter()
        .map(|r| (MAX_REPOSITORY_SHARE * total / counts[r] as f64).min(1.0))
        .collect()
}

/// Fit the match model on every PR given, choosing the penalty and the link threshold by
/// leave-one-repository-out cross-validation inside them: the penalty whose held-out pairs
/// are predicted best (log loss), then, with it, the threshold whose held-out clusters score
/// best (F-beta over every member, [`BETA`]; ties: the threshold nearest 0.5). No PR outside
/// `prs` is looked at, so a figure measured on other PRs stays held out.
pub fn fit_on(prs: &[&LabelledPr], used: &[bool; FEATURE_COUNT]) -> Model {
    let repositories: BTreeSet<&str> = prs.iter().map(|pr| pr.repository.as_str()).collect();
    if repositories.len() < 2 {
        return fit_with(prs, used, PENALTIES[PENALTIES.len() - 1], 0.5);
    }
    // The inner folds' models, per penalty.
    let folds: Vec<Vec<(&str, Model)>> = PENALTIES
        .iter()
        .map(|&l2| {
            repositories
                .iter()
                .map(|&held_out| {
                    let training: Vec<&LabelledPr> = prs
                        .iter()
                        .copied()
                        .filter(|pr| pr.repository != held_out)
                        .collect();
                    (held_out, fit_with(&training, used, l2, 0.5))
                })
                .collect()
        })
        .collect();
    let loss = |models: &Vec<(&str, Model)>| -> f64 {
        let (mut total, mut count) = (0.0, 0usize);
        for (held_out, model) in models {
            for pr in prs.iter().filter(|pr| pr.repository == *held_out) {
                for (x, same) in pr.all.rows() {
                    let p = model.probability(&x);
                    total -= (if same { p } else { 1.0 - p }).clamp(1e-9, 1.0).ln();
                    count += 1;
                }
            }
        }
        total / count.max(1) as f64
    };
    let best = (0..PENALTIES.len())
        .min_by(|&i, &j| loss(&folds[i]).total_cmp(&loss(&folds[j])))
        .unwrap_or(0);
    let mut scores = vec![Score::default(); THRESHOLDS.len()];
    for (held_out, model) in &folds[best] {
        let mut model = model.clone();
        for pr in prs.iter().filter(|pr| pr.repository == *held_out) {
            for (k, &threshold) in THRESHOLDS.iter().enumerate() {
                model.threshold = threshold;
                scores[k].add(&pr.all.score(&clusters_with(&pr.all, &model)));
            }
        }
    }
    let mut threshold: f64 = 0.5;
    let mut best_score = f64::NEG_INFINITY;
    for (score, &t) in scores.iter().zip(THRESHOLDS) {
        let f = score.f_beta(BETA);
        if f > best_score + 1e-9
            || ((f - best_score).abs() <= 1e-9 && (t - 0.5).abs() < (threshold - 0.5).abs())
        {
            best_score = f;
            threshold = t;
        }
    }
    fit_with(prs, used, PENALTIES[best], threshold)
}

/// Held-out figures: per PR, both views, scored with a model fitted on other repositories.
#[derive(Debug, Clone, Default)]
pub struct CrossValidation {
    pub open: Score,
    pub all: Score,
    /// The same clusterings counted by kind, lenient over every labelling.
    pub open_kinds: ByKind,
    pub all_kinds: ByKind,
    /// Every labelled pair of the every-member views with its held-out probability: the
    /// steadier, pair-level view of the same model ([`CrossValidation::auc`]).
    pub pairs: Vec<(f64, bool)>,
    /// Per PR name: (open, all).
    pub per_pr: BTreeMap<String, (Score, Score)>,
    /// Each repository's held-out model.
    pub folds: BTreeMap<String, Model>,
}

impl CrossValidation {
    /// The probability that a same-defect pair scores above a different-defect pair of the
    /// held-out PRs (ties count half).
    pub fn auc(&self) -> f64 {
        let mut sorted: Vec<(f64, bool)> = self.pairs.clone();
        sorted.sort_by(|x, y| x.0.total_cmp(&y.0));
        let positives = sorted.iter().filter(|(_, same)| *same).count() as f64;
        let negatives = sorted.len() as f64 - positives;
        if positives == 0.0 || negatives == 0.0 {
            return 1.0;
        }
        // Rank-sum with average ranks for ties.
        let mut rank_sum = 0.0;
        let mut i = 0;
        while i < sorted.len() {
            let mut j = i;
            while j < sorted.len() && sorted[j].0 == sorted[i].0 {
                j += 1;
            }
            let average_rank = (i + j + 1) as f64 / 2.0;
            rank_sum += average_rank * sorted[i..j].iter().filter(|(_, s)| *s).count() as f64;
            i = j;
        }
        (rank_sum - positives * (positives + 1.0) / 2.0) / (positives * negatives)
    }

    /// Mean negative log-likelihood of the held-out pairs' labels (lower is better).
    pub fn log_loss(&self) -> f64 {
        let total: f64 = self
            .pairs
            .iter()
            .map(|&(p, same)| -(if same { p } else { 1.0 - p }).clamp(1e-9, 1.0).ln())
            .sum();
        total / self.pairs.len().max(1) as f64
    }
}

/// Leave-one-repository-out cross-validation: for each repository, fit on every other
/// one and score its PRs; pooled.
pub fn cross_validate(prs: &[LabelledPr], used: &[bool; FEATURE_COUNT]) -> CrossValidation {
    let mut out = CrossValidation {
        folds: fold_models(prs, used),
        ..CrossValidation::default()
    };
    for (held_out, model) in &out.folds {
        for pr in prs.iter().filter(|pr| &pr.repository == held_out) {
            let (open_clusters, all_clusters) = (
                clusters_with(&pr.open, model),
                clusters_with(&pr.all, model),
            );
            out.open_kinds.add(&pr.open.score_by_kind(&open_clusters));
            out.all_kinds.add(&pr.all.score_by_kind(&all_clusters));
            let open = pr.open.score(&open_clusters);
            let all = pr.all.score(&all_clusters);
            out.pairs.extend(
                pr.all
                    .rows()
                    .into_iter()
                    .map(|(x, same)| (model.probability(&x), same)),
            );
            out.open.add(&open);
            out.all.add(&all);
            out.per_pr.insert(pr.name.clone(), (open, all));
        }
    }
    out
}

/// Each repository's held-out model: fitted (with [`fit_on`]) on every other repository.
pub fn fold_models(prs: &[LabelledPr], used: &[bool; FEATURE_COUNT]) -> BTreeMap<String, Model> {
    let repositories: BTreeSet<&str> = prs.iter().map(|pr| pr.repository.as_str()).collect();
    repositories
        .into_iter()
        .map(|held_out| {
            let training: Vec<&LabelledPr> =
                prs.iter().filter(|pr| pr.repository != held_out).collect();
            (held_out.to_owned(), fit_on(&training, used))
        })
        .collect()
}

/// The judge settings a held-out measurement chooses from (on the training repositories).
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeGrid {
    pub floors: Vec<f64>,
    pub keeps: Vec<f64>,
    pub max_pairs: usize,
}

impl Default for JudgeGrid {
    fn default() -> Self {
        JudgeGrid {
            floors: vec![0.01, 0.02, 0.05, 0.1, 0.2],
            keeps: vec![0.9, 0.95],
            max_pairs: crate::judge::DEFAULT_MAX_PAIRS,
        }
    }
}

/// A view's pairs inside the widest band of `grid` under `model`, in the order the judge is
/// asked them.
fn judge_candidates(
    view: &View,
    model: &Model,
    grid: &JudgeGrid,
) -> Vec<crate::judge::plan::Candidate> {
    let floor = grid.floors.iter().copied().fold(1.0, f64::min);
    let keep = grid.keeps.iter().copied().fold(0.0, f64::max);
    let bots: BTreeSet<&str> = view.findings.iter().map(|f| f.bot.as_str()).collect();
    crate::judge::plan::candidates(
        &view.findings,
        model,
        consensus::Band { floor, keep },
        &consensus::Constraints::default(),
        bots.len(),
    )
}

/// A view's clusters when the judge decides the first `max_pairs` candidates inside `band`
/// that `answers` answer; also how many pairs were asked and answered.
fn judged_clusters(
    view: &View,
    model: &Model,
    candidates: &[crate::judge::plan::Candidate],
    band: consensus::Band,
    max_pairs: usize,
    answers: &BTreeMap<String, crate::judge::Answer>,
) -> (Vec<usize>, usize, usize) {
    let asked: Vec<_> = candidates
        .iter()
        .filter(|c| band.holds(c.p, c.shares_code, c.reach))
        .take(max_pairs)
        .collect();
    let judged: Vec<consensus::Verdict> = asked
        .iter()
        .filter_map(|c| {
            answers.get(&c.id).map(|a| consensus::Verdict {
                a: c.a,
                b: c.b,
                said: a.said(),
            })
        })
        .collect();
    let answered = judged.len();
    let constraints = consensus::Constraints {
        judged,
        ..consensus::Constraints::default()
    };
    let clusters = view
        .judgement
        .clusters_with(&view.findings, model, &constraints);
    (clusters, asked.len(), answered)
}

/// One view's figures: pairwise over every labelled member, and by kind (lenient).
#[derive(Debug, Clone, Default)]
pub struct ViewFigures {
    pub score: Score,
    pub kinds: ByKind,
}

impl ViewFigures {
    fn add(&mut self, view: &View, clusters: &[usize]) {
        self.score.add(&view.score(clusters));
        self.kinds.add(&view.score_by_kind(clusters));
    }
}

/// Held-out figures with and without the judge's recorded answers.
#[derive(Debug, Clone, Default)]
pub struct JudgedFigures {
    pub fitted_open: ViewFigures,
    pub fitted_all: ViewFigures,
    pub judged_open: ViewFigures,
    pub judged_all: ViewFigures,
    /// The band each held-out repository was judged with (chosen on the others).
    pub chosen: BTreeMap<String, consensus::Band>,
    /// Pairs asked and answered (every-member views).
    pub asked: usize,
    pub answered: usize,
    /// Per PR, every member: by kind without and with the judge.
    pub per_pr: BTreeMap<String, (ByKind, ByKind)>,
    /// Per PR: the must-not-merge pairs merged with the judge (open, every member).
    pub violations: BTreeMap<String, [Vec<String>; 2]>,
}

impl JudgedFigures {
    /// A markdown table of the four rows.
    pub fn table(&self) -> String {
        let row = |name: &str, v: &ViewFigures| {
            let (x, s) = (&v.kinds.cross_bot, &v.kinds.same_bot);
            format!(
                "| {name} | {:.2} | {:.2} ({}/{}) | {:.2} | {:.2} ({}/{}) | {:.2} | {:.2} | {} |\n",
                x.precision(),
                x.recall(),
                x.found,
                x.truth,
                s.precision(),
                s.recall(),
                s.found,
                s.truth,
                v.score.precision(),
                v.score.recall(),
                v.score.violations.len()
            )
        };
        let mut out = String::from(
            "| members, matching | cross-bot P | cross-bot R | same-bot P | same-bot R | P (all pairs) | R (all pairs) | must-not-merge merged |\n|---|---:|---:|---:|---:|---:|---:|---:|\n",
        );
        out.push_str(&row("open, fitted model", &self.fitted_open));
        out.push_str(&row("open, with the judge", &self.judged_open));
        out.push_str(&row("every member, fitted model", &self.fitted_all));
        out.push_str(&row("every member, with the judge", &self.judged_all));
        let mut bands: BTreeMap<String, usize> = BTreeMap::new();
        for band in self.chosen.values() {
            *bands
                .entry(format!("floor {} keep {}", band.floor, band.keep))
                .or_default() += 1;
        }
        out.push_str(&format!(
            "\n{} pairs asked, {} answered (every member); bands chosen per held-out repository: {:?}\n",
            self.asked, self.answered, bands
        ));
        out
    }
}

/// Leave-one-repository-out with the judge: each repository's PRs are clustered by the
/// model fitted on the others, then the judge's recorded `answers` decide the pairs of the
/// band chosen on the other repositories' PRs (each scored by its own held-out model; the
/// best F-beta, [`BETA`], of every member's lenient pairs).
pub fn cross_validate_judged(
    prs: &[LabelledPr],
    folds: &BTreeMap<String, Model>,
    answers: &BTreeMap<String, crate::judge::Answer>,
    grid: &JudgeGrid,
) -> JudgedFigures {
    let bands: Vec<consensus::Band> = grid
        .floors
        .iter()
        .flat_map(|&floor| {
            grid.keeps
                .iter()
                .map(move |&keep| consensus::Band { floor, keep })
        })
        .collect();
    // Per PR, under its held-out model: the fitted clusters, and per band the judged ones.
    struct Scored {
        fitted: [Vec<usize>; 2],
        judged: Vec<[Vec<usize>; 2]>,
        asked: Vec<(usize, usize)>,
    }
    let scored: Vec<Scored> = prs
        .iter()
        .map(|pr| {
            let model = &folds[&pr.repository];
            let views = [&pr.open, &pr.all];
            let candidates = views.map(|v| judge_candidates(v, model, grid));
            let mut asked = Vec::new();
            let judged = bands
                .iter()
                .map(|&band| {
                    let mut both = [Vec::new(), Vec::new()];
                    for (k, view) in views.iter().enumerate() {
                        let (clusters, n_asked, n_answered) = judged_clusters(
                            view,
                            model,
                            &candidates[k],
                            band,
                            grid.max_pairs,
                            answers,
                        );
                        if k == 1 {
                            asked.push((n_asked, n_answered));
                        }
                        both[k] = clusters;
                    }
                    both
                })
                .collect();
            Scored {
                fitted: views.map(|v| clusters_with(v, model)),
                judged,
                asked,
            }
        })
        .collect();
    let mut figures = JudgedFigures::default();
    for held_out in folds.keys() {
        let choose = |band: usize| {
            let mut pooled = KindCounts::default();
            for (pr, scored) in prs.iter().zip(&scored) {
                if &pr.repository != held_out {
                    let kinds = pr.all.score_by_kind(&scored.judged[band][1]);
                    pooled.add(&kinds.cross_bot);
                    pooled.add(&kinds.same_bot);
                }
            }
            f_beta(pooled.precision(), pooled.recall(), BETA)
        };
        let mut best = 0;
        let mut best_f = f64::NEG_INFINITY;
        for k in 0..bands.len() {
            let f = choose(k);
            if f > best_f + 1e-9 {
                (best, best_f) = (k, f);
            }
        }
        figures.chosen.insert(held_out.clone(), bands[best]);
        for (pr, scored) in prs.iter().zip(&scored) {
            if &pr.repository != held_out {
                continue;
            }
            figures.fitted_open.add(&pr.open, &scored.fitted[0]);
            figures.fitted_all.add(&pr.all, &scored.fitted[1]);
            figures.judged_open.add(&pr.open, &scored.judged[best][0]);
            figures.judged_all.add(&pr.all, &scored.judged[best][1]);
            figures.asked += scored.asked[best].0;
            figures.answered += scored.asked[best].1;
            figures.violations.insert(
                pr.name.clone(),
                [
                    pr.open.score(&scored.judged[best][0]).violations,
                    pr.all.score(&scored.judged[best][1]).violations,
                ],
            );
            figures.per_pr.insert(
                pr.name.clone(),
                (
                    pr.all.score_by_kind(&scored.fitted[1]),
                    pr.all.score_by_kind(&scored.judged[best][1]),
                ),
            );
        }
    }
    figures
}

fn f_beta(p: f64, r: f64, beta: f64) -> f64 {
    let b2 = beta * beta;
    if p + r == 0.0 {
        0.0
    } else {
        (1.0 + b2) * p * r / (b2 * p + r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Severity;

    fn finding(bot: &str, comment: u64, line: u32) -> NormalizedFinding {
        let mut f =
            NormalizedFinding::new(bot, "", Severity::Medium, "bug", "t").at("a.rs", Some(line));
        f.provenance.comment_id = Some(comment);
        f
    }

    fn expected() -> Expected {
        serde_json::from_str(
            r#"{"source_url": "https://github.com/Owner/Repo/pull/7",
                "clusters": [
                  {"cluster_id": "C01", "file": "a.rs", "members": [
                     {"bot": "x", "comment_id": 10001, "line": 1},
                     {"bot": "y", "comment_id": 10002, "line": 2},
                     {"bot": "y", "comment_id": 10003, "line": 3, "status": "outdated"}]},
                  {"cluster_id": "C02", "file": "a.rs", "members": [
                     {"bot": "x", "comment_id": 10004, "line": 9}]}],
                "must_not_merge": [["C01", "C02"]]}"#,
        )
        .unwrap()
    }

    fn findings() -> Vec<NormalizedFinding> {
        vec![
            finding("x", 10001, 1),
            finding("y", 10002, 2),
            finding("y", 10003, 3),
            finding("x", 10004, 9),
        ]
    }

    #[test]
    fn pairs_are_counted_as_the_scorer_counts_them() {
        let expected = expected();
        assert_eq!(expected.repository(), "owner/repo");
        let all = View::label(findings(), &expected, &[], Count::All);
        // Everything merged: 3 true pairs (2 cross-bot), 6 merged, C01+C02 violated.
        let score = all.score(&[0, 0, 0, 0]);
        assert_eq!((score.true_pairs, score.cross_bot_pairs), (3, 2));
        assert_eq!((score.merged_pairs, score.merged_true), (6, 3));
        assert_eq!(score.violations, ["C01+C02"]);
        assert!((score.precision() - 0.5).abs() < 1e-9);
        // Exactly the labels: perfect, nothing violated.
        let score = all.score(&[0, 0, 0, 1]);
        assert_eq!((score.precision(), score.recall()), (1.0, 1.0));
        assert!(score.violations.is_empty());
        // The open view leaves the outdated member out.
        let open = View::label(findings(), &expected, &[], Count::Open);
        let score = open.score(&[0, 0, 1, 2]);
        assert_eq!((score.true_pairs, score.merged_true), (1, 1));
    }

    #[test]
    fn pairs_by_kind_are_lenient_over_every_labelling() {
        // A second reader keeps 10002 apart from 10001 (the cross-bot pair) but joins the
        // two C01 findings of bot y with each other, and 10004 to them.
        let second: Expected = serde_json::from_str(
            r#"{"clusters": [
                  {"cluster_id": "A", "members": [{"bot": "x", "comment_id": 10001}]},
                  {"cluster_id": "B", "members": [
                     {"bot": "y", "comment_id": 10002}, {"bot": "Y", "comment_id": 10003},
                     {"bot": "x", "comment_id": 10004}]}]}"#,
        )
        .unwrap();
        let view = View::label(findings(), &expected(), &[second], Count::All);
        assert_eq!(view.readings.len(), 4);
        // Everything in one cluster: every cross-bot pair is joined by some reader, so none
        // is wrong, and none is joined by both; of bot x's two findings (apart in both) the
        // merge is wrong, and bot y's two (joined in both) are found.
        let all = view.score_by_kind(&[0, 0, 0, 0]);
        assert_eq!((all.cross_bot.merged, all.cross_bot.wrong), (4, 0));
        assert_eq!((all.cross_bot.truth, all.cross_bot.found), (0, 0));
        assert_eq!((all.same_bot.merged, all.same_bot.wrong), (2, 1));
        assert_eq!((all.same_bot.truth, all.same_bot.found), (1, 1));
        // Exactly the first labelling: nothing wrong, the one pair both join found.
        let first = view.score_by_kind(&[0, 0, 0, 1]);
        assert_eq!((first.cross_bot.wrong, first.same_bot.found), (0, 1));
        // The open view leaves out what the first labelling marks outdated.
        let open = View::label(findings(), &expected(), &[], Count::Open);
        assert_eq!(open.readings.len(), 3);
    }

    #[test]
    fn a_member_without_its_finding_is_missing_and_never_merged() {
        let mut some = findings();
        some.remove(1);
        let view = View::label(some, &expected(), &[], Count::All);
        let score = view.score(&[0, 0, 0]);
        assert_eq!(score.missing, 1);
        assert_eq!(score.merged_true, 1, "only the two located C01 members");
        let labels = view.cluster_of_findings();
        assert_eq!(labels, [Some("C01"), Some("C01"), Some("C02")]);
    }
}
