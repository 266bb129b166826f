//! `issue` matching: which findings of different bots name one underlying issue, where real
//! bots word, anchor and label the same defect differently (docs/scoring.md, "Matching").
//!
//! - Evidence is content: identifiers and code, defect concepts, stemmed words and the
//!   category, each weighted by how distinctive it is within this PR ([`terms`]).
//! - Loci are ranges (`start_line..line` and "also applies to" lines), compared by the gap
//!   between them, and only when both point at the same commit. Lines alone never merge:
//!   the farther apart two loci are, the more (and more distinctive) shared content a link
//!   needs.
//! - Two findings of one bot are never one issue. Two strong native categories that differ
//!   (a code-scanning `security` rule, a `style` label) keep findings apart; a category from
//!   keywords or a weak label is evidence like any other term.
//! - Linking is an assignment, best evidence first: a cluster holds at most one finding per
//!   bot, so two issues on one line each pair with their own counterpart; and every two
//!   members of a cluster must be linked at least loosely, so no chain of links joins two
//!   different issues through a finding that resembles both.

mod concepts;
mod terms;

use super::cluster::{Assignment, FastMap, Interner};
use super::reason::{describe_lines, member_name};
use crate::model::{CategorySource, LineRange, MatchReason, NormalizedFinding};
use terms::Corpus;

/// Loci at most this many lines apart are near: similar content suffices.
pub const NEAR_LINES: u32 = 10;
/// Beyond this, loci are far: two distinctive identifiers are needed.
pub const FAR_LINES: u32 = 60;
/// Least similarity for near loci.
pub const NEAR_SIMILARITY: f64 = 0.15;
/// Least similarity for loci between near and far, or not comparable, with one distinctive
/// identifier.
pub const MID_SIMILARITY: f64 = 0.20;
/// Least similarity for far loci, with two distinctive identifiers.
pub const FAR_SIMILARITY: f64 = 0.25;
/// Content so alike that it links findings whose lines cannot be compared.
pub const STRONG_SIMILARITY: f64 = 0.5;
/// Every two members of a cluster must be linked at least loosely: by the same rule, with
/// the similarity thresholds scaled by this. One strong link each way cannot chain two
/// different issues through a finding that resembles both.
pub const LOOSE_LINK: f64 = 0.75;
/// A file with more findings than this compares its lineless findings only through shared
/// identifiers (all pairs would grow quadratically).
const ALL_PAIRS_LIMIT: usize = 400;
/// Shared terms a reason lists.
const REASON_TERMS: usize = 5;
/// Ranges a range is compared with in the sweep, nearest first: a flood of comments on one
/// line must not make the pass quadratic, and a finding links to one finding per bot.
const NEAR_CANDIDATES: usize = 64;

/// Why a link was accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    Near,
    Mid,
    Far,
    Unanchored,
    Strong,
}

impl Rule {
    /// What the report says (the numbers are `NEAR_LINES` and `FAR_LINES`, checked by a
    /// test).
    fn describe(self) -> &'static str {
        match self {
            Rule::Near => "similar content within 10 lines",
            Rule::Mid => "a distinctive shared identifier within 60 lines",
            Rule::Far => "two distinctive shared identifiers, far apart",
            Rule::Unanchored => "a distinctive shared identifier, lines not comparable",
            Rule::Strong => "strongly similar content, lines not comparable",
        }
    }
}

/// The clusters of `findings`, with the member each takes its category from and why its
/// members were linked.
pub(super) struct Matched {
    pub assignment: Assignment,
    pub category_from: Vec<usize>,
    pub reasons: Vec<Vec<MatchReason>>,
}

struct Edge {
    a: u32,
    b: u32,
    similarity: f64,
    distance: Option<u32>,
    rule: Rule,
}

pub(super) fn assign_clusters(findings: &[NormalizedFinding]) -> Matched {
    let facts = Facts::of(findings);
    let corpus = Corpus::build(findings, &facts.bot);
    let judge = Judge {
        findings,
        corpus: &corpus,
        facts: &facts,
    };

    let mut files = Interner::default();
    let mut groups: Vec<Vec<u32>> = Vec::new();
    let file_of_finding: Vec<usize> = findings
        .iter()
        .enumerate()
        .map(|(index, f)| {
            let file = files.id(&f.evidence.file);
            if file == groups.len() {
                groups.push(Vec::new());
            }
            groups[file].push(index as u32);
            file
        })
        .collect();

    let mut edges = Vec::new();
    let mut pairs = Vec::new();
    for group in &groups {
        pairs.clear();
        candidate_pairs(group, findings, &corpus, &mut pairs);
        for &(a, b) in &pairs {
            if let Some(edge) = judge.link(a as usize, b as usize, 1.0) {
                edges.push(edge);
            }
        }
    }
    // Best evidence first; ties: nearer, then input order.
    edges.sort_by(|x, y| {
        y.similarity
            .total_cmp(&x.similarity)
            .then(
                x.distance
                    .unwrap_or(u32::MAX)
                    .cmp(&y.distance.unwrap_or(u32::MAX)),
            )
            .then((x.a, x.b).cmp(&(y.a, y.b)))
    });

    let mut sets = Sets::new(&facts.bot);
    let mut reasons: Vec<Vec<MatchReason>> = vec![Vec::new(); findings.len()];
    for edge in &edges {
        let (a, b) = (edge.a as usize, edge.b as usize);
        let loosely_linked = |x: usize, y: usize| {
            (x, y) == (a, b)
                || (x, y) == (b, a)
                || judge.link(x.min(y), x.max(y), LOOSE_LINK).is_some()
        };
        let (ra, rb) = (sets.find(a), sets.find(b));
        if ra == rb
            || !sets
                .members_of(ra)
                .iter()
                .all(|&x| sets.members_of(rb).iter().all(|&y| loosely_linked(x, y)))
        {
            continue;
        }
        if let Some((root, absorbed)) = sets.union(a, b) {
            let moved = std::mem::take(&mut reasons[absorbed]);
            reasons[root].extend(moved);
            reasons[root].push(reason(edge, findings, &corpus));
        }
    }

    // Clusters numbered by their first member, as the seed's pass numbers them.
    let mut cluster_of_root: Vec<usize> = vec![usize::MAX; findings.len()];
    let mut assignment = Assignment {
        cluster_of: Vec::with_capacity(findings.len()),
        anchors: Vec::new(),
        file_of: Vec::new(),
        files: Vec::new(),
    };
    let mut category_from: Vec<usize> = Vec::new();
    let mut cluster_reasons = Vec::new();
    for (index, finding) in findings.iter().enumerate() {
        let root = sets.find(index);
        if cluster_of_root[root] == usize::MAX {
            cluster_of_root[root] = assignment.anchors.len();
            assignment.anchors.push(index);
            assignment.file_of.push(file_of_finding[index]);
            category_from.push(index);
            cluster_reasons.push(std::mem::take(&mut reasons[root]));
        }
        let cluster = cluster_of_root[root];
        assignment.cluster_of.push(cluster);
        let current = &findings[category_from[cluster]];
        if category_strength(finding) < category_strength(current) {
            category_from[cluster] = index;
        }
    }
    assignment.files = files.into_names();
    Matched {
        assignment,
        category_from,
        reasons: cluster_reasons,
    }
}

/// Pairs worth judging in one file: near ranges (a sweep by first line), pairs that share
/// a distinctive identifier, and lineless findings against the rest.
fn candidate_pairs(
    group: &[u32],
    findings: &[NormalizedFinding],
    corpus: &Corpus,
    pairs: &mut Vec<(u32, u32)>,
) {
    let mut ranges: Vec<(LineRange, u32)> = group
        .iter()
        .flat_map(|&i| {
            findings[i as usize]
                .evidence
                .ranges()
                .map(move |range| (range, i))
        })
        .collect();
    ranges.sort_unstable();
    for (k, &(range, a)) in ranges.iter().enumerate() {
        let reach = range.end.saturating_add(NEAR_LINES);
        let following = ranges[k + 1..].iter().take(NEAR_CANDIDATES);
        for &(_, b) in following.take_while(|(o, _)| o.start <= reach) {
            if a != b {
                pairs.push((a.min(b), a.max(b)));
            }
        }
    }

    let mut by_term: FastMap<u32, Vec<u32>> = FastMap::default();
    for &i in group {
        for term in corpus.distinctive_code(i as usize) {
            by_term.entry(term).or_default().push(i);
        }
    }
    for holders in by_term.values() {
        for (k, &a) in holders.iter().enumerate() {
            pairs.extend(holders[k + 1..].iter().map(|&b| (a.min(b), a.max(b))));
        }
    }

    if group.len() <= ALL_PAIRS_LIMIT {
        for &a in group {
            if findings[a as usize].evidence.line.is_none() {
                pairs.extend(
                    group
                        .iter()
                        .filter(|&&b| b != a)
                        .map(|&b| (a.min(b), a.max(b))),
                );
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
}

/// What a link compares besides content, read once per finding: its bot, its native
/// category and its commit as small ids (`NONE` when absent).
struct Facts {
    bot: Vec<u32>,
    native_category: Vec<u32>,
    commit: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl Facts {
    fn of(findings: &[NormalizedFinding]) -> Facts {
        let mut bots = Interner::default();
        let mut categories = Interner::default();
        let mut commits = Interner::default();
        let mut facts = Facts {
            bot: Vec::with_capacity(findings.len()),
            native_category: Vec::with_capacity(findings.len()),
            commit: Vec::with_capacity(findings.len()),
        };
        let mut lower = String::new();
        for finding in findings {
            facts.bot.push(bots.id(&finding.bot) as u32);
            let native = if is_native(finding) {
                lower.clear();
                lower.push_str(&finding.category);
                lower.make_ascii_lowercase();
                categories.id(&lower) as u32
            } else {
                NONE
            };
            facts.native_category.push(native);
            let commit = finding.provenance.commit.as_deref();
            facts
                .commit
                .push(commit.map_or(NONE, |c| commits.id(c) as u32));
        }
        facts
    }
}

/// Everything a link is judged on.
struct Judge<'a> {
    findings: &'a [NormalizedFinding],
    corpus: &'a Corpus,
    facts: &'a Facts,
}

impl Judge<'_> {
    /// The link between two findings of one file, if the evidence is enough; `scale`
    /// multiplies the similarity thresholds (1 for a link, `LOOSE_LINK` for the check that
    /// a cluster's members all belong together).
    fn link(&self, a: usize, b: usize, scale: f64) -> Option<Edge> {
        let facts = self.facts;
        let (ca, cb) = (facts.native_category[a], facts.native_category[b]);
        if facts.bot[a] == facts.bot[b] || (ca != NONE && cb != NONE && ca != cb) {
            return None;
        }
        let distance = self.distance(a, b);
        let overlap = self.corpus.overlap(a, b);
        let (similarity, code) = (overlap.similarity, overlap.distinctive_code);
        let at_least = |threshold: f64| similarity >= threshold * scale;
        let rule = match distance {
            Some(d) if d <= NEAR_LINES => at_least(NEAR_SIMILARITY).then_some(Rule::Near),
            Some(d) if d <= FAR_LINES => {
                (at_least(MID_SIMILARITY) && code >= 1).then_some(Rule::Mid)
            }
            Some(_) => (at_least(FAR_SIMILARITY) && code >= 2).then_some(Rule::Far),
            None if at_least(MID_SIMILARITY) && code >= 1 => Some(Rule::Unanchored),
            None => at_least(STRONG_SIMILARITY).then_some(Rule::Strong),
        }?;
        Some(Edge {
            a: a as u32,
            b: b as u32,
            similarity,
            distance,
            rule,
        })
    }

    /// Lines between the two findings' nearest ranges; `None` without lines on both, or
    /// when they point at different commits (their numbers then do not compare).
    fn distance(&self, a: usize, b: usize) -> Option<u32> {
        let (ca, cb) = (self.facts.commit[a], self.facts.commit[b]);
        if ca != NONE && cb != NONE && ca != cb {
            return None;
        }
        let (x, y) = (&self.findings[a].evidence, &self.findings[b].evidence);
        x.ranges()
            .flat_map(|r| y.ranges().map(move |s| r.gap(s)))
            .min()
    }
}

/// A category the bot itself gave (or a findings file stated) is strong; others are
/// evidence.
fn is_native(finding: &NormalizedFinding) -> bool {
    finding
        .provenance
        .category_source
        .is_none_or(|source| source == CategorySource::Native)
}

/// Lower is stronger: the cluster takes the strongest member's category.
fn category_strength(finding: &NormalizedFinding) -> u8 {
    match finding.provenance.category_source {
        None | Some(CategorySource::Native) => 0,
        Some(CategorySource::PathRule) => 1,
        Some(CategorySource::Keyword) => 2,
        Some(CategorySource::TypeLabel) => 3,
        Some(CategorySource::Fallback) => 4,
    }
}

fn reason(edge: &Edge, findings: &[NormalizedFinding], corpus: &Corpus) -> MatchReason {
    let (x, y) = (&findings[edge.a as usize], &findings[edge.b as usize]);
    let shared = corpus
        .shared_terms(edge.a as usize, edge.b as usize)
        .into_iter()
        .take(REASON_TERMS)
        .map(|t| corpus.show(t))
        .collect();
    MatchReason {
        between: [member_name(x), member_name(y)],
        lines: describe_lines(x, y, edge.distance),
        distance: edge.distance,
        similarity: (edge.similarity * 100.0).round() / 100.0,
        shared,
        rule: edge.rule.describe().to_owned(),
    }
}

/// Disjoint sets of findings where no set holds two findings of one bot.
struct Sets<'a> {
    parent: Vec<usize>,
    /// Each finding's bot.
    bot_of: &'a [u32],
    /// Per root of a set of several: the bots of its members and the members (a single
    /// finding's set is itself and its own bot, with no allocation).
    bots: Vec<Vec<u32>>,
    members: Vec<Vec<usize>>,
    /// `own[i] == i`: the member list of a single finding.
    own: Vec<usize>,
}

impl<'a> Sets<'a> {
    fn new(bot_of: &'a [u32]) -> Sets<'a> {
        Sets {
            parent: (0..bot_of.len()).collect(),
            bot_of,
            bots: vec![Vec::new(); bot_of.len()],
            members: vec![Vec::new(); bot_of.len()],
            own: (0..bot_of.len()).collect(),
        }
    }

    fn members_of(&self, root: usize) -> &[usize] {
        if self.members[root].is_empty() {
            std::slice::from_ref(&self.own[root])
        } else {
            &self.members[root]
        }
    }

    fn bots_of(&self, root: usize) -> &[u32] {
        if self.bots[root].is_empty() {
            std::slice::from_ref(&self.bot_of[root])
        } else {
            &self.bots[root]
        }
    }

    fn find(&mut self, mut item: usize) -> usize {
        while self.parent[item] != item {
            self.parent[item] = self.parent[self.parent[item]];
            item = self.parent[item];
        }
        item
    }

    /// Join the sets of `a` and `b` unless they share a bot: `(root, absorbed root)`.
    fn union(&mut self, a: usize, b: usize) -> Option<(usize, usize)> {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb
            || self
                .bots_of(ra)
                .iter()
                .any(|bot| self.bots_of(rb).contains(bot))
        {
            return None;
        }
        let (root, absorbed) = if ra < rb { (ra, rb) } else { (rb, ra) };
        let (bot_of, own) = (self.bot_of, &self.own);
        let moved = std::mem::take(&mut self.bots[absorbed]);
        let bots = &mut self.bots[root];
        if bots.is_empty() {
            bots.push(bot_of[root]);
        }
        if moved.is_empty() {
            bots.push(bot_of[absorbed]);
        } else {
            bots.extend(moved);
        }
        let moved = std::mem::take(&mut self.members[absorbed]);
        let members = &mut self.members[root];
        if members.is_empty() {
            members.push(own[root]);
        }
        if moved.is_empty() {
            members.push(own[absorbed]);
        } else {
            members.extend(moved);
        }
        self.parent[absorbed] = root;
        Some((root, absorbed))
    }
}

#[cfg(test)]
mod tests;
