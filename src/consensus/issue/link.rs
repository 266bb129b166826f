//! Which pairs are judged, and how judged pairs become clusters: the most probable pair
//! first, two clusters joined only when every pair between them is at least loosely
//! probable.

use super::features::{self, Facts, FEATURE_COUNT};
use super::text::{Channel, Corpus};
use super::{Constraints, Matched, Model};
use crate::consensus::cluster::{Assignment, FastMap, FastSet, Interner};
use crate::consensus::reason::{describe_lines, member_name};
use crate::model::{CategorySource, LineRange, MatchReason, NormalizedFinding};

/// A file with at most this many findings has every pair judged (the labelled corpus's
/// busiest file has 34); beyond, the pairs would grow with the square of the findings, so
/// a finding is judged against its nearest neighbours by line and the findings that share
/// an identifier with it.
const ALL_PAIRS_LIMIT: usize = 40;
/// Neighbours by line a finding is judged against in a larger file: at most this many...
const NEAR_CANDIDATES: usize = 16;
/// ...and no further than this many lines away (farther, only what the text ties: a shared
/// identifier, or the same title).
const NEAR_LINES: u32 = 40;
/// Shared terms a reason lists.
const REASON_TERMS: usize = 5;
/// Members of each side a join weighs: a flood of alike comments must not make joining
/// quadratic in a cluster's size.
const LINKAGE_MEMBERS: usize = 64;
/// Two clusters join when their most probable pair reaches the model's threshold and every
/// pair between them reaches this share of it: each member must at least loosely belong,
/// so no chain of links joins two defects through a finding that resembles both.
const LOOSE_LINK: f64 = 0.5;

/// One judged pair and its evidence (kept for fitting the model).
pub(super) struct Pair {
    pub a: u32,
    pub b: u32,
    pub features: [f64; FEATURE_COUNT],
}

/// A pair probable enough to matter when linking: at least the loose floor.
#[derive(Clone, Copy)]
struct Link {
    a: u32,
    b: u32,
    /// The probability linking goes by: the fitted one, or a reader's "same".
    p: f64,
    /// The fitted model's probability (0 for a pair it never judged).
    fitted: f64,
    gap: Option<u32>,
    /// The reader's verdict that made it, an index into `Constraints::judged`.
    judged: Option<u32>,
}

/// The probability a pair a reader judged one defect links with: above any band's `keep`,
/// so it links first, whatever the fitted model said.
const JUDGED_SAME: f64 = 0.99;

/// What pairs are judged on, read once per PR: each finding's facts and terms, and the
/// findings of each file.
pub(super) struct Prepared {
    pub facts: Facts,
    pub corpus: Corpus,
    files: Interner,
    file_of: Vec<usize>,
    groups: Vec<Vec<u32>>,
}

impl Prepared {
    pub(super) fn of(findings: &[NormalizedFinding]) -> Prepared {
        let mut files = Interner::default();
        let paths: Vec<usize> = findings
            .iter()
            .map(|f| files.id(&f.evidence.file))
            .collect();
        let moved = moves(findings, &paths, &files.names());
        let mut groups: Vec<Vec<u32>> = vec![Vec::new(); files.names().len()];
        let file_of: Vec<usize> = paths
            .iter()
            .enumerate()
            .map(|(index, &path)| {
                let file = moved[path];
                groups[file].push(index as u32);
                file
            })
            .collect();
        Prepared {
            facts: Facts::of(findings),
            corpus: Corpus::build(findings),
            files,
            file_of,
            groups,
        }
    }

    /// The seed's distinct loci ([`features::distinct_loci`]): never linked.
    pub(super) fn distinct_loci(&self, a: u32, b: usize, gap: Option<u32>) -> bool {
        features::distinct_loci(&self.facts, a as usize, b, gap)
    }

    /// The file (an index) a finding belongs to.
    pub(super) fn file_of(&self, finding: u32) -> usize {
        self.file_of[finding as usize]
    }

    /// Every pair worth judging, with its evidence and the gap between its lines.
    pub(super) fn each_pair(
        &self,
        findings: &[NormalizedFinding],
        mut visit: impl FnMut(u32, u32, &[f64; FEATURE_COUNT], Option<u32>),
    ) {
        let mut candidates = Vec::new();
        for group in &self.groups {
            candidates.clear();
            candidate_pairs(group, findings, &self.corpus, &mut candidates);
            for &(a, b) in &candidates {
                let (features, gap) =
                    features::features(findings, &self.facts, &self.corpus, a as usize, b as usize);
                visit(a, b, &features, gap);
            }
        }
    }
}

/// Each path's file for matching: itself, or the path it moved to. A path moved when a bot
/// that raised findings on it raised findings on another path of the same file name only
/// later (after all of its findings on the first, in the API's order), on other commits,
/// and nobody raised any on the first path after that: a folder renamed between two review
/// rounds. Matching then compares the two as one file.
fn moves(findings: &[NormalizedFinding], paths: &[usize], names: &[Box<str>]) -> Vec<usize> {
    let base = |path: usize| names[path].rsplit('/').next().unwrap_or(&names[path]);
    let mut by_base: FastMap<&str, Vec<usize>> = FastMap::default();
    for path in 0..names.len() {
        if !base(path).is_empty() {
            by_base.entry(base(path)).or_default().push(path);
        }
    }
    let mut into: Vec<usize> = (0..names.len()).collect();
    let same_named: Vec<&Vec<usize>> = by_base.values().filter(|p| p.len() > 1).collect();
    if same_named.is_empty() {
        return into;
    }
    let mut shares_a_name = vec![false; names.len()];
    for &path in same_named.iter().copied().flatten() {
        shares_a_name[path] = true;
    }
    // One pass: how each such path was used, in the API's order.
    let mut uses: FastMap<usize, PathUse<'_>> = FastMap::default();
    for (index, (finding, &path)) in findings.iter().zip(paths).enumerate() {
        if shares_a_name[path] {
            uses.entry(path)
                .or_insert_with(|| PathUse::new(index))
                .add(index, finding);
        }
    }
    for group in same_named {
        for &old in group {
            for &new in group.iter().filter(|&&new| new != old) {
                let (Some(o), Some(n)) = (uses.get(&old), uses.get(&new)) else {
                    continue;
                };
                let moved_by_a_bot = o.bots.iter().any(|(bot, &(_, last))| {
                    n.bots.get(bot).is_some_and(|&(first, _)| last < first)
                });
                let written_apart = !o.commits.is_empty()
                    && !n.commits.is_empty()
                    && o.commits.is_disjoint(&n.commits);
                if moved_by_a_bot && o.last < n.first && written_apart {
                    into[old] = new;
                }
            }
        }
    }
    // Follow chains of moves to their last path (a path moves at most once a pass).
    (0..names.len())
        .map(|mut path| {
            let mut steps = 0;
            while into[path] != path && steps < names.len() {
                path = into[path];
                steps += 1;
            }
            path
        })
        .collect()
}

/// How one path was used: each bot's first and last finding on it (indices in the API's
/// order), anyone's first and last, and the commits its findings were written on.
struct PathUse<'a> {
    bots: FastMap<&'a str, (usize, usize)>,
    first: usize,
    last: usize,
    commits: FastSet<&'a str>,
}

impl<'a> PathUse<'a> {
    fn new(first: usize) -> Self {
        PathUse {
            bots: FastMap::default(),
            first,
            last: first,
            commits: FastSet::default(),
        }
    }

    fn add(&mut self, index: usize, finding: &'a NormalizedFinding) {
        self.bots
            .entry(finding.bot.as_str())
            .or_insert((index, index))
            .1 = index;
        self.last = index;
        if let Some(commit) = finding.provenance.commit.as_deref() {
            self.commits.insert(commit);
        }
    }
}

/// Every judged pair of a PR with its evidence, for fitting and measuring models.
pub(super) struct Judged {
    pub prepared: Prepared,
    pub pairs: Vec<Pair>,
    gaps: Vec<Option<u32>>,
}

impl Judged {
    pub(super) fn of(findings: &[NormalizedFinding]) -> Judged {
        let prepared = Prepared::of(findings);
        let (mut pairs, mut gaps) = (Vec::new(), Vec::new());
        prepared.each_pair(findings, |a, b, features, gap| {
            pairs.push(Pair {
                a,
                b,
                features: *features,
            });
            gaps.push(gap);
        });
        Judged {
            prepared,
            pairs,
            gaps,
        }
    }
}

/// Pairs worth judging in one file: every pair of a small file; in a larger one, near
/// ranges (a sweep by first line), pairs that share an identifier, and lineless findings
/// against the rest.
fn candidate_pairs(
    group: &[u32],
    findings: &[NormalizedFinding],
    corpus: &Corpus,
    pairs: &mut Vec<(u32, u32)>,
) {
    if group.len() <= ALL_PAIRS_LIMIT {
        for (k, &a) in group.iter().enumerate() {
            pairs.extend(group[k + 1..].iter().map(|&b| (a, b)));
        }
        return;
    }
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
        let near = ranges[k + 1..]
            .iter()
            .take(NEAR_CANDIDATES)
            .take_while(|(other, _)| other.start <= range.end.saturating_add(NEAR_LINES));
        for &(_, b) in near {
            if a != b {
                pairs.push((a.min(b), a.max(b)));
            }
        }
    }
    // The same claim again after a push moved it far: one title, word for word.
    let mut by_title: FastMap<&str, Vec<u32>> = FastMap::default();
    for &i in group {
        by_title
            .entry(findings[i as usize].title.as_str())
            .or_default()
            .push(i);
    }
    for holders in by_title.values().filter(|h| h.len() <= NEAR_CANDIDATES) {
        for (k, &a) in holders.iter().enumerate() {
            pairs.extend(holders[k + 1..].iter().map(|&b| (a.min(b), a.max(b))));
        }
    }
    let mut by_term: FastMap<u32, Vec<u32>> = FastMap::default();
    for &i in group {
        for term in corpus.channel_terms(i as usize, Channel::Code) {
            by_term.entry(term).or_default().push(i);
        }
    }
    for holders in by_term.values() {
        if holders.len() > NEAR_CANDIDATES {
            continue;
        }
        for (k, &a) in holders.iter().enumerate() {
            pairs.extend(holders[k + 1..].iter().map(|&b| (a.min(b), a.max(b))));
        }
    }
    for &a in group {
        if findings[a as usize].evidence.line.is_none() {
            pairs.extend(
                group
                    .iter()
                    .filter(|&&b| b != a)
                    .take(ALL_PAIRS_LIMIT)
                    .map(|&b| (a.min(b), a.max(b))),
            );
        }
    }
    sort_pairs(pairs);
}

/// Sort `pairs` and drop repeats: as one `u64` key each (`a` above `b`), which sorts in the
/// same order as the tuples and compares in one instruction (a busy file has thousands).
fn sort_pairs(pairs: &mut Vec<(u32, u32)>) {
    let mut keys: Vec<u64> = pairs
        .iter()
        .map(|&(a, b)| (u64::from(a) << 32) | u64::from(b))
        .collect();
    keys.sort_unstable();
    keys.dedup();
    pairs.clear();
    pairs.extend(keys.into_iter().map(|key| ((key >> 32) as u32, key as u32)));
}

/// Cluster the findings: judge the pairs, then link best first. Only pairs at least at the
/// loose floor are kept: the others can neither link nor let two clusters join.
pub(super) fn assign(
    findings: &[NormalizedFinding],
    model: &Model,
    constraints: &Constraints,
) -> Matched {
    let prepared = Prepared::of(findings);
    let floor = model.threshold * LOOSE_LINK;
    // Compared in log-odds: most pairs fall below the floor and need no exponential.
    let floor_odds = (floor / (1.0 - floor)).ln();
    let verdicts = verdict_index(constraints);
    let mut links = Vec::new();
    let mut refused = Vec::new();
    prepared.each_pair(findings, |a, b, features, gap| {
        if two_places(&prepared, &verdicts, constraints, a, b, gap) {
            return;
        }
        let odds = model.log_odds(features);
        if odds >= floor_odds || verdicts.contains_key(&(a, b)) {
            let p = super::sigmoid(odds);
            let link = Link::fitted(a, b, p, gap);
            judge(link, &verdicts, constraints, &mut links, &mut refused);
        }
    });
    add_judged_elsewhere(findings, &mut links, &verdicts, constraints);
    join(findings, &prepared, links, refused, model, constraints)
}

impl Link {
    fn fitted(a: u32, b: u32, p: f64, gap: Option<u32>) -> Link {
        Link {
            a,
            b,
            p,
            fitted: p,
            gap,
            judged: None,
        }
    }
}

/// The seed's distinct loci, never linked, unless a reader judged the pair one defect (the
/// reader found what ties them).
fn two_places(
    prepared: &Prepared,
    verdicts: &FastMap<(u32, u32), u32>,
    constraints: &Constraints,
    a: u32,
    b: u32,
    gap: Option<u32>,
) -> bool {
    let judged_same = verdicts
        .get(&(a, b))
        .is_some_and(|&k| constraints.judged[k as usize].said.same);
    prepared.distinct_loci(a, b as usize, gap) && !judged_same
}

/// Each reader's verdict by its pair `(a, b)`, `a < b`.
fn verdict_index(constraints: &Constraints) -> FastMap<(u32, u32), u32> {
    constraints
        .judged
        .iter()
        .enumerate()
        .map(|(k, v)| {
            let (a, b) = (v.a.min(v.b) as u32, v.a.max(v.b) as u32);
            ((a, b), k as u32)
        })
        .collect()
}

/// A fitted link as a reader's verdict leaves it: raised to [`JUDGED_SAME`] when the reader
/// said one defect, dropped (below the floor, so its two clusters cannot join either) when
/// two; untouched when nobody asked.
fn judge(
    mut link: Link,
    verdicts: &FastMap<(u32, u32), u32>,
    constraints: &Constraints,
    links: &mut Vec<Link>,
    refused: &mut Vec<Link>,
) {
    match verdicts.get(&(link.a, link.b)) {
        None => links.push(link),
        Some(&k) => {
            link.judged = Some(k);
            if constraints.judged[k as usize].said.same {
                link.p = link.p.max(JUDGED_SAME);
                links.push(link);
            } else {
                refused.push(link);
            }
        }
    }
}

/// Pairs a reader judged one defect that the fitted model never compares (two files):
/// links of their own.
fn add_judged_elsewhere(
    findings: &[NormalizedFinding],
    links: &mut Vec<Link>,
    verdicts: &FastMap<(u32, u32), u32>,
    constraints: &Constraints,
) {
    let seen: FastSet<(u32, u32)> = links.iter().map(|l| (l.a, l.b)).collect();
    for (&(a, b), &k) in verdicts {
        let inside = (b as usize) < findings.len();
        if inside && !seen.contains(&(a, b)) && constraints.judged[k as usize].said.same {
            let gap = features::gap(&findings[a as usize], &findings[b as usize]);
            links.push(Link {
                p: JUDGED_SAME,
                judged: Some(k),
                ..Link::fitted(a, b, 0.0, gap)
            });
        }
    }
}

/// Link judged pairs best first with `model`'s probabilities.
pub(super) fn link(
    findings: &[NormalizedFinding],
    judged: &Judged,
    model: &Model,
    constraints: &Constraints,
) -> Matched {
    let floor = model.threshold * LOOSE_LINK;
    let verdicts = verdict_index(constraints);
    let (mut links, mut refused) = (Vec::new(), Vec::new());
    for (pair, &gap) in judged.pairs.iter().zip(&judged.gaps) {
        if two_places(
            &judged.prepared,
            &verdicts,
            constraints,
            pair.a,
            pair.b,
            gap,
        ) {
            continue;
        }
        let p = model.probability(&pair.features);
        if p >= floor || verdicts.contains_key(&(pair.a, pair.b)) {
            let link = Link::fitted(pair.a, pair.b, p, gap);
            judge(link, &verdicts, constraints, &mut links, &mut refused);
        }
    }
    add_judged_elsewhere(findings, &mut links, &verdicts, constraints);
    join(
        findings,
        &judged.prepared,
        links,
        refused,
        model,
        constraints,
    )
}

/// Join clusters best link first: a link at the threshold joins two clusters when every
/// pair between them reaches the loose floor and no person keeps them apart; then what
/// people joined.
fn join(
    findings: &[NormalizedFinding],
    prepared: &Prepared,
    mut links: Vec<Link>,
    judged_apart: Vec<Link>,
    model: &Model,
    constraints: &Constraints,
) -> Matched {
    let floor = model.threshold * LOOSE_LINK;
    // Each finding's links to later findings, as a row of `links` sorted by partner: pairs
    // come file by file in (a, b) order, so each row is already one run.
    let rows = rows_of(&links, findings.len()).unwrap_or_else(|| {
        links.sort_unstable_by_key(|l| (l.a, l.b));
        rows_of(&links, findings.len()).unwrap_or_default()
    });
    let p_of = |x: usize, y: usize| -> f64 {
        let (x, y) = (x.min(y), x.max(y) as u32);
        let Some(&(start, end)) = rows.get(x) else {
            return 0.0;
        };
        let row = &links[start as usize..end as usize];
        row.binary_search_by_key(&y, |l| l.b)
            .map_or(0.0, |k| row[k].p)
    };
    let apart: Vec<(usize, usize)> = constraints
        .apart
        .iter()
        .copied()
        .filter(|&(x, y)| x < findings.len() && y < findings.len())
        .collect();
    // Whether joining the sets of roots `ra` and `rb` would put a kept-apart pair together.
    let kept_apart = |sets: &Sets, ra: usize, rb: usize| {
        apart.iter().any(|&(x, y)| {
            let (rx, ry) = (sets.root(x), sets.root(y));
            (rx, ry) == (ra, rb) || (rx, ry) == (rb, ra)
        })
    };

    let mut sets = Sets::new(findings.len());
    let mut reasons: Vec<Vec<MatchReason>> = vec![Vec::new(); findings.len()];
    let order = best_first(&links, prepared, model.threshold);
    // Two clusters that could not join never can while both stay roots: a set only grows,
    // keeping its first members, so the pair that kept them apart stays between them.
    let mut refused: FastSet<(usize, usize)> = FastSet::default();
    for link in &order {
        let (a, b) = (link.a as usize, link.b as usize);
        let (ra, rb) = (sets.find(a), sets.find(b));
        if ra == rb || kept_apart(&sets, ra, rb) {
            continue;
        }
        let key = (ra.min(rb), ra.max(rb));
        if refused.contains(&key) {
            continue;
        }
        let (xs, ys) = (sets.members_of(ra), sets.members_of(rb));
        let (xs, ys) = (
            &xs[..xs.len().min(LINKAGE_MEMBERS)],
            &ys[..ys.len().min(LINKAGE_MEMBERS)],
        );
        if xs.iter().any(|&x| ys.iter().any(|&y| p_of(x, y) < floor)) {
            refused.insert(key);
            continue;
        }
        let (root, absorbed) = sets.union(ra, rb);
        let moved = std::mem::take(&mut reasons[absorbed]);
        reasons[root].extend(moved);
        reasons[root].push(reason(link, findings, prepared, model, constraints));
    }

    // What people joined with `/consensus same`, after the model: their word, whatever the
    // evidence (but never a pair a person split).
    for &(x, y) in &constraints.together {
        if x >= findings.len() || y >= findings.len() {
            continue;
        }
        let (rx, ry) = (sets.find(x), sets.find(y));
        if rx != ry && !kept_apart(&sets, rx, ry) {
            let (root, absorbed) = sets.union(rx, ry);
            let moved = std::mem::take(&mut reasons[absorbed]);
            reasons[root].extend(moved);
            reasons[root].push(person_said(&findings[x], &findings[y]));
        }
    }

    // A link the fitted model would have made and a reader refused is shown where its
    // first finding ended up: why the two stayed apart.
    for link in judged_apart.iter().filter(|l| l.fitted >= model.threshold) {
        let root = sets.find(link.a as usize);
        reasons[root].push(reason(link, findings, prepared, model, constraints));
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
            assignment.file_of.push(prepared.file_of[index]);
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
    assignment.files = prepared.files.names();
    Matched {
        assignment,
        category_from,
        reasons: cluster_reasons,
    }
}

/// The links at or above `threshold`, file by file, each file's most probable first (ties:
/// nearer, then input order). Links never cross files, so each file is ordered apart: small
/// sorts instead of one large one.
fn best_first(links: &[Link], prepared: &Prepared, threshold: f64) -> Vec<Link> {
    let file_of = |link: &Link| prepared.file_of[link.a as usize];
    let linking = || links.iter().filter(|l| l.p >= threshold);
    let mut start = vec![0usize; prepared.groups.len() + 1];
    for link in linking() {
        start[file_of(link) + 1] += 1;
    }
    for k in 1..start.len() {
        start[k] += start[k - 1];
    }
    let mut next = start.clone();
    let mut order = vec![Link::fitted(0, 0, 0.0, None); start[start.len() - 1]];
    for link in linking() {
        let slot = &mut next[file_of(link)];
        order[*slot] = *link;
        *slot += 1;
    }
    for file in start.windows(2) {
        // A total order (pairs are distinct), so an unstable sort gives one answer.
        order[file[0]..file[1]].sort_unstable_by(|x, y| {
            y.p.total_cmp(&x.p)
                .then(x.gap.unwrap_or(u32::MAX).cmp(&y.gap.unwrap_or(u32::MAX)))
                .then((x.a, x.b).cmp(&(y.a, y.b)))
        });
    }
    order
}

/// Each finding's links to later findings as a range of `links`, when each finding's links
/// are one run sorted by partner; `None` otherwise.
fn rows_of(links: &[Link], count: usize) -> Option<Vec<(u32, u32)>> {
    let mut rows = vec![(0u32, 0u32); count];
    let mut start = 0;
    for (k, link) in links.iter().enumerate() {
        let next = links.get(k + 1);
        if next.is_some_and(|n| n.a == link.a) {
            if next.is_some_and(|n| n.b <= link.b) {
                return None;
            }
            continue;
        }
        let row = rows.get_mut(link.a as usize)?;
        if row.1 != 0 {
            return None;
        }
        *row = (start as u32, k as u32 + 1);
        start = k + 1;
    }
    Some(rows)
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

/// Why a link was made: the lines, where they point, what weighed most, what both say, and
/// the probability.
fn reason(
    link: &Link,
    findings: &[NormalizedFinding],
    prepared: &Prepared,
    model: &Model,
    constraints: &Constraints,
) -> MatchReason {
    let (a, b) = (link.a as usize, link.b as usize);
    let (x, y) = (&findings[a], &findings[b]);
    let corpus = &prepared.corpus;
    let similarity = corpus.similarity(a, b);
    let (features, _) =
        features::features_with(findings, &prepared.facts, corpus, a, b, &similarity);
    let contributions = model.contributions(&features);
    let mut rule: Vec<&str> = Vec::new();
    if link.gap == Some(0) {
        rule.push("same line");
    }
    let (ra, rb) = (&x.provenance, &y.provenance);
    if x.bot == y.bot && ra.commit.is_some() && ra.commit != rb.commit {
        rule.push("raised again in a later round");
    }
    let said = link
        .judged
        .map(|k| constraints.judged[k as usize].said.clone());
    let judged = said.as_ref().map(|said| {
        let verb = if said.same {
            "judged the same"
        } else {
            "kept apart: judged different"
        };
        format!("{verb} by {}", said.model)
    });
    if let Some(judged) = &judged {
        rule.push(judged);
    }
    let what = contributions
        .iter()
        .enumerate()
        .filter(|&(k, &c)| !features::is_where(k) && c > 0.0)
        .max_by(|p, q| p.1.total_cmp(q.1))
        .map(|(k, _)| features::reads_as(k));
    if let Some(what) = what {
        rule.push(what);
    }
    let shared = corpus
        .shared_terms(a, b)
        .into_iter()
        .take(REASON_TERMS)
        .map(str::to_owned)
        .collect();
    MatchReason {
        between: [member_name(x), member_name(y)],
        lines: describe_lines(x, y, link.gap),
        distance: link.gap,
        similarity: (similarity[Channel::Word as usize] * 100.0).round() / 100.0,
        shared,
        rule: rule.join(", "),
        probability: Some((link.fitted * 100.0).round() / 100.0),
        judge: said,
    }
}

/// A link a person asked for with `/consensus same`.
fn person_said(x: &NormalizedFinding, y: &NormalizedFinding) -> MatchReason {
    MatchReason {
        between: [member_name(x), member_name(y)],
        lines: describe_lines(x, y, features::gap(x, y)),
        distance: features::gap(x, y),
        similarity: 0.0,
        shared: Vec::new(),
        rule: "a person said they are the same (/consensus same)".to_owned(),
        probability: None,
        judge: None,
    }
}

/// Disjoint sets of findings, with each root's member list.
struct Sets {
    parent: Vec<usize>,
    /// Per root of a set of several: its members (a single finding's list is itself).
    members: Vec<Vec<usize>>,
    own: Vec<usize>,
}

impl Sets {
    fn new(count: usize) -> Sets {
        Sets {
            parent: (0..count).collect(),
            members: vec![Vec::new(); count],
            own: (0..count).collect(),
        }
    }

    fn members_of(&self, root: usize) -> &[usize] {
        if self.members[root].is_empty() {
            std::slice::from_ref(&self.own[root])
        } else {
            &self.members[root]
        }
    }

    /// The root of `item`'s set, without shortening the path.
    fn root(&self, mut item: usize) -> usize {
        while self.parent[item] != item {
            item = self.parent[item];
        }
        item
    }

    fn find(&mut self, mut item: usize) -> usize {
        while self.parent[item] != item {
            self.parent[item] = self.parent[self.parent[item]];
            item = self.parent[item];
        }
        item
    }

    /// Join two roots: `(root, absorbed root)`, the lower index staying root.
    fn union(&mut self, ra: usize, rb: usize) -> (usize, usize) {
        let (root, absorbed) = if ra < rb { (ra, rb) } else { (rb, ra) };
        let moved = std::mem::take(&mut self.members[absorbed]);
        let own = &self.own;
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
        (root, absorbed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links(pairs: &[(u32, u32)]) -> Vec<Link> {
        pairs
            .iter()
            .map(|&(a, b)| Link::fitted(a, b, 0.5, None))
            .collect()
    }

    fn at(bot: &str, path: &str, commit: &str) -> NormalizedFinding {
        let mut f = NormalizedFinding::new(bot, "", crate::model::Severity::Medium, "bug", "t")
            .at(path, Some(3));
        f.provenance.commit = Some(commit.to_owned());
        f
    }

    fn moved(findings: &[NormalizedFinding]) -> Vec<usize> {
        let mut files = Interner::default();
        let paths: Vec<usize> = findings
            .iter()
            .map(|f| files.id(&f.evidence.file))
            .collect();
        moves(findings, &paths, &files.names())
    }

    #[test]
    fn a_folder_renamed_between_rounds_is_one_file() {
        // Round 1 on src/old/x.rs, round 2 (another commit) on src/new/x.rs: moved.
        let renamed = [
            at("coderabbit", "src/old/x.rs", "c1"),
            at("coderabbit", "src/old/x.rs", "c1"),
            at("coderabbit", "src/new/x.rs", "c2"),
            at("copilot", "src/other.rs", "c2"),
        ];
        assert_eq!(moved(&renamed), [1, 1, 2]);
        // Both paths still in use after each other, or one commit for both: two files.
        let interleaved = [
            at("coderabbit", "src/old/x.rs", "c1"),
            at("coderabbit", "src/new/x.rs", "c2"),
            at("copilot", "src/old/x.rs", "c3"),
        ];
        assert_eq!(moved(&interleaved), [0, 1]);
        let one_commit = [
            at("coderabbit", "src/old/x.rs", "c1"),
            at("coderabbit", "src/new/x.rs", "c1"),
        ];
        assert_eq!(moved(&one_commit), [0, 1]);
    }

    #[test]
    fn rows_are_runs_of_one_finding_sorted_by_partner() {
        // File by file: findings 1 and 2 in one file, then 0, 3 and 5 in another.
        let rows = rows_of(&links(&[(1, 2), (0, 3), (0, 5)]), 6);
        assert_eq!(
            rows,
            Some(vec![(1, 3), (0, 1), (0, 0), (0, 0), (0, 0), (0, 0)])
        );
        // A finding's links split in two runs, or out of order: not rows.
        assert_eq!(rows_of(&links(&[(0, 3), (1, 2), (0, 5)]), 6), None);
        assert_eq!(rows_of(&links(&[(0, 5), (0, 3)]), 6), None);
    }
}
