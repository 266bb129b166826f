//! The seed's dedup rules and the greedy single pass that applies them.
//!
//! Each finding joins the first cluster, in creation order, whose anchor (first member) it
//! matches. Clusters are indexed by (file, category), the rules' hard prerequisite, and
//! line-anchored clusters by line inside each group, so a lookup touches only the clusters
//! that could match; the result is the plain pass's (`reference` in the tests).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use crate::model::NormalizedFinding;

/// Short function words that say nothing about which issue a title names (sorted, for
/// binary search).
const STOP_WORDS: &[&str] = &[
    "about", "after", "all", "also", "and", "any", "are", "been", "before", "being", "but", "can",
    "could", "did", "does", "doing", "for", "from", "had", "has", "have", "her", "here", "him",
    "his", "how", "into", "its", "may", "might", "more", "most", "must", "not", "off", "only",
    "onto", "other", "our", "out", "over", "per", "shall", "she", "should", "some", "such", "than",
    "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "under",
    "very", "via", "was", "were", "what", "when", "where", "which", "while", "who", "whom", "why",
    "will", "with", "within", "without", "would", "you", "your",
];

/// A title's tokens in one buffer: one allocation for the text, one for the spans.
pub(crate) struct Tokens {
    text: String,
    /// Byte ranges into `text`, sorted by content, distinct.
    spans: Vec<(u32, u32)>,
}

impl Tokens {
    /// Lowercase words that start with a letter followed by word characters, minus stop
    /// words and tokens shorter than 3 characters.
    pub(crate) fn new(title: &str) -> Tokens {
        let mut scan = Scan {
            text: String::with_capacity(title.len()),
            spans: Vec::new(),
            start: None,
            chars: 0,
        };
        for c in title.chars() {
            if c.is_ascii() {
                scan.push(c.to_ascii_lowercase());
            } else {
                c.to_lowercase().for_each(|l| scan.push(l));
            }
        }
        scan.flush();
        let Scan {
            text, mut spans, ..
        } = scan;
        let slice = |&(a, b): &(u32, u32)| &text[a as usize..b as usize];
        spans.sort_unstable_by(|a, b| slice(a).cmp(slice(b)));
        spans.dedup_by(|a, b| slice(a) == slice(b));
        Tokens { text, spans }
    }

    fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        self.spans
            .iter()
            .map(|&(a, b)| &self.text[a as usize..b as usize])
    }
}

/// The tokenizer's state over the lowercased characters of a title.
struct Scan {
    text: String,
    spans: Vec<(u32, u32)>,
    /// Byte offset in `text` of the word being read.
    start: Option<usize>,
    /// Characters in the word being read.
    chars: usize,
}

impl Scan {
    fn push(&mut self, c: char) {
        if self.start.is_some() && (c.is_alphanumeric() || c == '_') {
            self.text.push(c);
            self.chars += 1;
        } else if self.start.is_none() && c.is_alphabetic() {
            self.start = Some(self.text.len());
            self.text.push(c);
            self.chars = 1;
        } else {
            self.flush();
        }
    }

    /// End the current word: keep it as a token, or drop it (short or a stop word).
    fn flush(&mut self) {
        if let Some(begin) = self.start.take() {
            let word = &self.text[begin..];
            // Stop words are 3 to 7 bytes long: longer words skip the search.
            if self.chars >= 3 && (word.len() > 7 || STOP_WORDS.binary_search(&word).is_err()) {
                self.spans.push((begin as u32, self.text.len() as u32));
            } else {
                self.text.truncate(begin);
            }
        }
    }
}

/// Title tokens for fuzzy matching, sorted and distinct (see `Tokens::new` for the rule).
pub fn title_tokens(title: &str) -> Vec<String> {
    Tokens::new(title).iter().map(str::to_owned).collect()
}

/// Jaccard similarity of two sorted, distinct token lists; two empty sets give 0.
pub fn jaccard<S: AsRef<str>>(a: &[S], b: &[S]) -> f64 {
    jaccard_sorted(a.iter().map(AsRef::as_ref), b.iter().map(AsRef::as_ref))
}

fn jaccard_sorted<'a>(a: impl Iterator<Item = &'a str>, b: impl Iterator<Item = &'a str>) -> f64 {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    let (mut common, mut total) = (0usize, 0usize);
    loop {
        match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => {
                total += 1;
                match x.cmp(y) {
                    std::cmp::Ordering::Less => {
                        a.next();
                    }
                    std::cmp::Ordering::Greater => {
                        b.next();
                    }
                    std::cmp::Ordering::Equal => {
                        common += 1;
                        a.next();
                        b.next();
                    }
                }
            }
            (Some(_), None) => {
                total += 1;
                a.next();
            }
            (None, Some(_)) => {
                total += 1;
                b.next();
            }
            (None, None) => break,
        }
    }
    if total == 0 {
        0.0
    } else {
        common as f64 / total as f64
    }
}

fn token_jaccard(a: &Tokens, b: &Tokens) -> f64 {
    jaccard_sorted(a.iter(), b.iter())
}

/// The dedup knobs the rules read.
#[derive(Debug, Clone, Copy)]
pub struct Rules {
    pub line_window: u32,
    pub title_overlap: f64,
}

impl Rules {
    /// The seed's three rules: does `b` describe the same issue as `a`?
    pub fn same_issue(&self, a: &NormalizedFinding, b: &NormalizedFinding) -> bool {
        a.evidence.file == b.evidence.file
            && a.category == b.category
            && match (a.evidence.line, b.evidence.line) {
                (Some(x), Some(y)) => x.abs_diff(y) <= self.line_window,
                _ => {
                    jaccard(&title_tokens(&a.title), &title_tokens(&b.title)) >= self.title_overlap
                }
            }
    }
}

/// The clusters of one (file, category).
struct Group {
    /// Every cluster of the group, creation order.
    clusters: Vec<usize>,
    /// Anchors with a line, by line. Two such anchors are always more than the window apart
    /// (a finding within the window would have joined), so a line holds one cluster.
    by_line: BTreeMap<u32, usize>,
    /// Anchors without a line, creation order.
    lineless: Vec<usize>,
}

/// FxHash-style hasher for the engine's own indexes (file and category names, ids): not
/// worth SipHash's cost, since the keys are names from review comments, not an attacker's
/// choice of hash-flooding input.
#[derive(Default)]
pub(crate) struct FastHasher(u64);

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(word))
                .wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
}

pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;
pub(crate) type FastSet<K> = HashSet<K, BuildHasherDefault<FastHasher>>;

/// Distinct strings as dense ids, in first-seen order. It owns one copy of each: a lookup
/// compares against this table (one entry per distinct file or category, far fewer than
/// findings or groups, so it tends to stay in cache) instead of reaching back into the
/// scattered input strings of earlier findings.
#[derive(Default)]
pub(crate) struct Interner {
    ids: FastMap<Box<str>, usize>,
}

impl Interner {
    pub(crate) fn id(&mut self, name: &str) -> usize {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.ids.len();
        self.ids.insert(name.into(), id);
        id
    }

    /// The names, indexed by id.
    pub(crate) fn names(&self) -> Vec<Box<str>> {
        let mut names: Vec<Box<str>> = vec![Box::default(); self.ids.len()];
        for (name, &id) in &self.ids {
            names[id] = name.clone();
        }
        names
    }

    /// The names, indexed by id.
    pub(crate) fn into_names(self) -> Vec<Box<str>> {
        let mut names: Vec<Box<str>> = vec![Box::default(); self.ids.len()];
        for (name, id) in self.ids {
            names[id] = name;
        }
        names
    }
}

/// The greedy pass's result.
pub struct Assignment {
    /// The cluster of each finding; clusters are numbered in creation order.
    pub cluster_of: Vec<usize>,
    /// Per cluster: the index of its anchor (first member).
    pub anchors: Vec<usize>,
    /// Per cluster: its file, as an index into `files`.
    pub file_of: Vec<usize>,
    /// The distinct files, owned.
    pub files: Vec<Box<str>>,
}

/// Cluster `findings` with the greedy single pass.
pub fn assign_clusters(findings: &[NormalizedFinding], rules: Rules) -> Assignment {
    let mut cluster_of: Vec<usize> = Vec::with_capacity(findings.len());
    // Per cluster: its anchor, its file, and the anchor's tokens once a comparison needed
    // them.
    let mut anchors: Vec<usize> = Vec::new();
    let mut file_of: Vec<usize> = Vec::new();
    let mut anchor_tokens: Vec<Option<Tokens>> = Vec::new();
    // Groups are found by (file id, category id): the strings are compared once, against
    // the interners' compact copies, never against another group's.
    let mut files = Interner::default();
    let mut categories = Interner::default();
    let mut groups: Vec<Group> = Vec::new();
    let mut by_key: FastMap<(usize, usize), usize> = FastMap::default();

    for (index, finding) in findings.iter().enumerate() {
        let file = files.id(&finding.evidence.file);
        let category = categories.id(&finding.category);
        let group_index = *by_key.entry((file, category)).or_insert_with(|| {
            groups.push(Group {
                clusters: Vec::new(),
                by_line: BTreeMap::new(),
                lineless: Vec::new(),
            });
            groups.len() - 1
        });
        let group = &mut groups[group_index];

        let mut own_tokens: Option<Tokens> = None;
        let mut title_matches = |cluster: usize| {
            let anchor = &findings[anchors[cluster]];
            let theirs = anchor_tokens[cluster].get_or_insert_with(|| Tokens::new(&anchor.title));
            let mine = own_tokens.get_or_insert_with(|| Tokens::new(&finding.title));
            token_jaccard(mine, theirs) >= rules.title_overlap
        };

        let joined = match finding.evidence.line {
            Some(line) => {
                let low = line.saturating_sub(rules.line_window);
                let high = line.saturating_add(rules.line_window);
                let by_line = group.by_line.range(low..=high).map(|(_, &c)| c).min();
                let earlier = by_line.unwrap_or(usize::MAX);
                group
                    .lineless
                    .iter()
                    .copied()
                    .take_while(|&c| c < earlier)
                    .find(|&c| title_matches(c))
                    .or(by_line)
            }
            None => group.clusters.iter().copied().find(|&c| title_matches(c)),
        };

        match joined {
            Some(cluster) => cluster_of.push(cluster),
            None => {
                let cluster = anchors.len();
                cluster_of.push(cluster);
                anchors.push(index);
                file_of.push(file);
                anchor_tokens.push(own_tokens);
                group.clusters.push(cluster);
                match finding.evidence.line {
                    Some(line) => {
                        group.by_line.entry(line).or_insert(cluster);
                    }
                    None => group.lineless.push(cluster),
                }
            }
        }
    }
    Assignment {
        cluster_of,
        anchors,
        file_of,
        files: files.into_names(),
    }
}

/// Member indices of each cluster, input order, clusters in creation order.
#[cfg(test)]
pub fn cluster_indices(findings: &[NormalizedFinding], rules: Rules) -> Vec<Vec<usize>> {
    let assignment = assign_clusters(findings, rules);
    let mut clusters = vec![Vec::new(); assignment.anchors.len()];
    for (index, cluster) in assignment.cluster_of.into_iter().enumerate() {
        clusters[cluster].push(index);
    }
    clusters
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Severity;
    use proptest::prelude::*;

    /// The plain greedy pass, straight from the seed: compare with every anchor in order.
    fn reference(findings: &[NormalizedFinding], rules: Rules) -> Vec<Vec<usize>> {
        let mut clusters: Vec<Vec<usize>> = Vec::new();
        for (index, finding) in findings.iter().enumerate() {
            match clusters
                .iter_mut()
                .find(|c| rules.same_issue(&findings[c[0]], finding))
            {
                Some(cluster) => cluster.push(index),
                None => clusters.push(vec![index]),
            }
        }
        clusters
    }

    const RULES: Rules = Rules {
        line_window: 3,
        title_overlap: 0.5,
    };

    fn f(file: &str, category: &str, line: Option<u32>, title: &str) -> NormalizedFinding {
        NormalizedFinding::new("bot", "", Severity::Medium, category, title).at(file, line)
    }

    #[test]
    fn tokens_lowercase_drop_short_and_stop_words() {
        assert_eq!(
            title_tokens("The `user_id` IS unused in 2fa x9 handler; of it"),
            vec!["handler", "unused", "user_id"]
        );
        // A word may not start with a digit or underscore; the scan starts at the letter.
        assert_eq!(title_tokens("2fab _abc"), vec!["abc", "fab"]);
        assert_eq!(title_tokens("Ünïcode naïve"), vec!["naïve", "ünïcode"]);
    }

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
        // `Scan::flush` skips the search for words longer than 7 bytes.
        assert!(STOP_WORDS.iter().all(|w| w.len() <= 7));
    }

    #[test]
    fn jaccard_of_two_empty_sets_is_zero() {
        assert_eq!(jaccard::<&str>(&[], &[]), 0.0);
        let a = title_tokens("unused variable count");
        let b = title_tokens("variable count unused loop");
        assert_eq!(jaccard(&a, &b), 0.75);
    }

    #[test]
    fn same_line_window_merges_regardless_of_title() {
        let a = f("a.py", "bug", Some(10), "unused variable");
        assert!(RULES.same_issue(&a, &f("a.py", "bug", Some(13), "totally different")));
        assert!(!RULES.same_issue(&a, &f("a.py", "bug", Some(14), "unused variable")));
        // The seed's example: the same title at line 10 and line 200 stays two findings.
        assert!(!RULES.same_issue(&a, &f("a.py", "bug", Some(200), "unused variable")));
    }

    #[test]
    fn file_and_category_are_hard_prerequisites() {
        let a = f("a.py", "bug", Some(10), "unused variable");
        assert!(!RULES.same_issue(&a, &f("b.py", "bug", Some(10), "unused variable")));
        assert!(!RULES.same_issue(&a, &f("a.py", "style", Some(10), "unused variable")));
    }

    #[test]
    fn missing_line_needs_fuzzy_titles() {
        let a = f("a.py", "bug", None, "Unused variable `count` in loop");
        assert!(RULES.same_issue(&a, &f("a.py", "bug", Some(99), "count variable unused")));
        assert!(!RULES.same_issue(&a, &f("a.py", "bug", Some(99), "loop never ends")));
        // Both global: same empty file, so titles decide.
        let g = f("", "bug", None, "Missing changelog entry");
        assert!(RULES.same_issue(&g, &f("", "bug", None, "changelog entry missing")));
        assert!(!RULES.same_issue(&g, &f("", "bug", None, "The PR is too large")));
        // Titles with no tokens at all never fuzzy-match (Jaccard 0 < 0.5).
        assert!(!RULES.same_issue(&f("", "bug", None, "a b"), &f("", "bug", None, "a b")));
    }

    #[test]
    fn joins_first_matching_cluster_in_creation_order() {
        let findings = vec![
            f("a.py", "bug", Some(10), "one"),
            f("a.py", "bug", None, "null pointer dereference"),
            f("a.py", "bug", Some(20), "null pointer dereference"),
            f("a.py", "bug", Some(12), "null pointer dereference"),
        ];
        // Line 20 only matches the lineless anchor by title; line 12 matches the line-10
        // anchor (created first) and the lineless one: the earlier cluster wins.
        assert_eq!(
            cluster_indices(&findings, RULES),
            vec![vec![0, 3], vec![1, 2]]
        );
        assert_eq!(
            cluster_indices(&findings, RULES),
            reference(&findings, RULES)
        );
    }

    fn arb_finding() -> impl Strategy<Value = NormalizedFinding> {
        let words = prop::sample::subsequence(
            vec![
                "null", "pointer", "unused", "variable", "loop", "leak", "the", "sql",
            ],
            0..4,
        );
        (
            0..3usize,
            0..2usize,
            prop::option::weighted(0.7, 0..30u32),
            words,
        )
            .prop_map(|(file, category, line, words)| {
                let files = ["", "a.py", "b.rs"];
                let categories = ["bug", "security"];
                f(files[file], categories[category], line, &words.join(" "))
            })
    }

    proptest! {
        #[test]
        fn indexed_pass_equals_plain_greedy_pass(
            findings in prop::collection::vec(arb_finding(), 0..60),
            line_window in 0..5u32,
            title_overlap in prop::sample::select(vec![0.0, 0.25, 0.5, 1.0]),
        ) {
            let rules = Rules { line_window, title_overlap };
            prop_assert_eq!(cluster_indices(&findings, rules), reference(&findings, rules));
        }
    }
}
