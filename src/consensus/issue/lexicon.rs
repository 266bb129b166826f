//! The defect-class vocabulary: MITRE's CWE weaknesses (view 1000, CWE 4.14) with the
//! phrases that name them, plus the review classes CWE lacks (naming, dead code, docs
//! drift, ...), from `data/defect-classes.tsv` (made by `scripts/defect_classes.py`; CWE
//! (c) The MITRE Corporation, terms in data/CWE-NOTICE). Two bots that name one kind of
//! defect in different words ("SQL injection", a code-scanning rule `py/sql-injection`,
//! "interpolated into the SQL") share a class; a class also stands for its ancestors below
//! the pillars, so "SQL injection" (CWE-89) and "injection" (CWE-74) meet.

use std::sync::OnceLock;

use aho_corasick::AhoCorasick;
use rust_stemmers::{Algorithm, Stemmer};

const TABLE: &str = include_str!("../../../data/defect-classes.tsv");

/// One defect class.
pub(super) struct Class {
    /// `CWE-89`, `review:naming`.
    pub id: &'static str,
    pub label: &'static str,
    /// Itself and its ancestors below the pillars, as indices into the vocabulary.
    pub lineage: Vec<u32>,
}

impl Class {
    /// `SQL injection (CWE-89)`, `CWE-1286`, `naming`.
    pub fn shown(&self) -> String {
        match (self.id.starts_with("CWE-"), self.label.is_empty()) {
            (true, false) => format!("{} ({})", self.label, self.id),
            (true, true) => self.id.to_owned(),
            (false, _) => self.label.to_owned(),
        }
    }
}

pub(super) struct Lexicon {
    pub classes: Vec<Class>,
    /// Every phrase, stemmed and wrapped in spaces (` sql inject `), and its class.
    automaton: AhoCorasick,
    class_of_phrase: Vec<u32>,
}

/// The vocabulary, read once from the compiled-in table.
pub(super) fn lexicon() -> &'static Lexicon {
    static LEXICON: OnceLock<Lexicon> = OnceLock::new();
    LEXICON.get_or_init(|| Lexicon::parse(TABLE))
}

impl Lexicon {
    fn parse(table: &'static str) -> Lexicon {
        struct Row {
            id: &'static str,
            pillar: bool,
            label: &'static str,
            parents: Vec<&'static str>,
            phrases: &'static str,
        }
        let rows: Vec<Row> = table
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|line| {
                let mut cells = line.split('\t');
                let mut next = || cells.next().unwrap_or("");
                let (id, abstraction, label, parents, phrases) =
                    (next(), next(), next(), next(), next());
                Row {
                    id,
                    pillar: abstraction == "Pillar",
                    label,
                    parents: parents.split(',').filter(|p| !p.is_empty()).collect(),
                    phrases,
                }
            })
            .collect();
        let by_id: std::collections::HashMap<&str, usize> =
            rows.iter().enumerate().map(|(k, r)| (r.id, k)).collect();
        let index = |id: &str| by_id.get(id).copied();
        let mut classes = Vec::with_capacity(rows.len());
        for (k, row) in rows.iter().enumerate() {
            // Walk up the ChildOf links, stopping at pillars (too broad to mean anything).
            let mut lineage = vec![k as u32];
            let mut frontier: Vec<usize> = vec![k];
            while let Some(at) = frontier.pop() {
                for parent in rows[at].parents.iter().filter_map(|p| index(p)) {
                    if !rows[parent].pillar && !lineage.contains(&(parent as u32)) {
                        lineage.push(parent as u32);
                        frontier.push(parent);
                    }
                }
            }
            lineage.sort_unstable();
            classes.push(Class {
                id: row.id,
                label: row.label,
                lineage,
            });
        }
        let stemmer = Stemmer::create(Algorithm::English);
        let mut phrases = Vec::new();
        let mut class_of_phrase = Vec::new();
        for (k, row) in rows.iter().enumerate() {
            for phrase in row.phrases.split(';').filter(|p| !p.trim().is_empty()) {
                let mut stemmed = String::from(" ");
                for word in words(phrase) {
                    stemmed.push_str(&stemmer.stem(&word.to_lowercase()));
                    stemmed.push(' ');
                }
                if stemmed.len() > 1 {
                    phrases.push(stemmed);
                    class_of_phrase.push(k as u32);
                }
            }
        }
        let automaton = AhoCorasick::builder()
            .build(&phrases)
            .unwrap_or_else(|e| panic!("data/defect-classes.tsv: phrases do not build: {e}"));
        Lexicon {
            classes,
            automaton,
            class_of_phrase,
        }
    }

    /// The classes a text names, with their lineages: `stems` is the text's words, stemmed
    /// and lowercased, each followed by a space, after a leading space (` the sql inject `).
    pub(super) fn classes_in(&self, stems: &str, out: &mut Vec<u32>) {
        for hit in self.automaton.find_overlapping_iter(stems) {
            let class = self.class_of_phrase[hit.pattern().as_usize()];
            out.extend_from_slice(&self.classes[class as usize].lineage);
        }
    }
}

/// Words for phrase matching: runs of letters and digits (`sql-injection`, `py/sql_injection`
/// and "SQL injection" read alike; `n+1` keeps its plus).
pub(super) fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '+'))
        .filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(text: &str) -> Vec<&'static str> {
        let lexicon = lexicon();
        let stemmer = Stemmer::create(Algorithm::English);
        let mut stems = String::from(" ");
        for word in words(text) {
            stems.push_str(&stemmer.stem(&word.to_lowercase()));
            stems.push(' ');
        }
        let mut found = Vec::new();
        lexicon.classes_in(&stems, &mut found);
        found.sort_unstable();
        found.dedup();
        found
            .into_iter()
            .map(|k| lexicon.classes[k as usize].id)
            .collect()
    }

    #[test]
    fn the_table_parses_with_cwe_and_review_classes() {
        let lexicon = lexicon();
        assert!(lexicon.classes.len() > 900, "{}", lexicon.classes.len());
        assert!(lexicon
            .classes
            .iter()
            .any(|c| c.id == "review:magic-number"));
        let sql = lexicon.classes.iter().find(|c| c.id == "CWE-89").unwrap();
        assert_eq!(sql.shown(), "SQL injection (CWE-89)");
    }

    #[test]
    fn different_words_and_rule_ids_name_one_class_and_its_ancestors() {
        let prose = named(
            "The per-order lookup interpolates `order_ref` into the SQL text: SQL injection.",
        );
        let rule = named("py/sql-injection");
        assert!(
            prose.contains(&"CWE-89") && rule.contains(&"CWE-89"),
            "{prose:?} {rule:?}"
        );
        // CWE-89 is a child of CWE-943 and, above it, CWE-74 (injection).
        assert!(rule.contains(&"CWE-74"), "{rule:?}");
        assert!(named("Two instances race on the temp file").contains(&"CWE-362"));
        assert!(named("Insecure temporary file").contains(&"CWE-377"));
        assert!(named("Extract this magic number into a named constant")
            .contains(&"review:magic-number"));
        // Pillars are never reached through a lineage.
        assert!(!rule.contains(&"CWE-707"), "{rule:?}");
        assert!(named("The tracer runs ahead of the sampler").is_empty());
    }
}
