//! The seed's dedup rules and the greedy single pass that applies them.
//!
//! Each finding joins the first cluster, in creation order, whose anchor (first member) it
//! matches. Clusters are indexed by (file, category), the rules' hard prerequisite, and
//! line-anchored clusters by line inside each group, so a lookup touches only the clusters
//! that could match; the result is the plain pass's (`reference` in the tests).

use std::collections::{BTreeMap, HashMap};

use crate::model::NormalizedFinding;

/// Short function words that say nothing about which issue a title names.
const STOP_WORDS: &[&str] = &[
    "about", "after", "all", "also", "and", "any", "are", "been", "before", "being", "but", "can",
    "could", "did", "does", "doing", "for", "from", "had", "has", "have", "her", "here", "him",
    "his", "how", "into", "its", "may", "might", "more", "most", "must", "not", "off", "only",
    "onto", "other", "our", "out", "over", "per", "shall", "she", "should", "some", "such", "than",
    "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "under",
    "very", "via", "was", "were", "what", "when", "where", "which", "while", "who", "whom", "why",
    "will", "with", "within", "without", "would", "you", "your",
];

/// Title tokens for fuzzy matching: lowercase words that start with a letter followed by
/// word characters, minus stop words and tokens shorter than 3 characters; sorted, distinct.
pub fn title_tokens(title: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut current = String::new();
    let mut flush = |current: &mut String| {
        if current.chars().count() >= 3 && !STOP_WORDS.contains(&current.as_str()) {
            tokens.push(std::mem::take(current));
        } else {
            current.clear();
        }
    };
    for c in title.chars().flat_map(char::to_lowercase) {
        let word_char = c.is_alphanumeric() || c == '_';
        if !current.is_empty() && word_char {
            current.push(c);
        } else if current.is_empty() && c.is_alphabetic() {
            current.push(c);
        } else if !current.is_empty() {
            flush(&mut current);
        }
    }
    flush(&mut current);
    tokens.sort_unstable();
    tokens.dedup();
    tokens
}

/// Jaccard similarity of two sorted, distinct token lists; two empty sets give 0.
pub fn jaccard(a: &[String], b: &[String]) -> f64 {
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = a.len() + b.len() - common;
    if union == 0 {
        0.0
    } else {
        common as f64 / union as f64
    }
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
#[derive(Default)]
struct Group {
    /// Every cluster of the group, creation order.
    clusters: Vec<usize>,
    /// Anchors with a line, by line. Two such anchors are always more than the window apart
    /// (a finding within the window would have joined), so a line holds one cluster.
    by_line: BTreeMap<u32, usize>,
    /// Anchors without a line, creation order.
    lineless: Vec<usize>,
}

/// Cluster `findings` with the greedy single pass: indices of each cluster's members, in
/// input order, clusters in creation order.
pub fn cluster_indices(findings: &[NormalizedFinding], rules: Rules) -> Vec<Vec<usize>> {
    let mut clusters: Vec<Vec<usize>> = Vec::new();
    // Anchor tokens, computed on first use: most line-anchored clusters never need them.
    let mut anchor_tokens: Vec<Option<Vec<String>>> = Vec::new();
    let mut groups: HashMap<(&str, &str), Group> = HashMap::new();

    for (index, finding) in findings.iter().enumerate() {
        let group = groups
            .entry((finding.evidence.file.as_str(), finding.category.as_str()))
            .or_default();
        let mut own_tokens: Option<Vec<String>> = None;
        let mut title_matches = |cluster: usize| {
            let anchor = &findings[clusters[cluster][0]];
            let theirs = anchor_tokens[cluster].get_or_insert_with(|| title_tokens(&anchor.title));
            let mine = own_tokens.get_or_insert_with(|| title_tokens(&finding.title));
            jaccard(mine, theirs) >= rules.title_overlap
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
            Some(cluster) => clusters[cluster].push(index),
            None => {
                let cluster = clusters.len();
                clusters.push(vec![index]);
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
    fn jaccard_of_two_empty_sets_is_zero() {
        assert_eq!(jaccard(&[], &[]), 0.0);
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
