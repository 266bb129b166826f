//! A small vocabulary of defect concepts, mapped to CWE where one fits: two bots that name
//! the same kind of defect in different words ("unsanitized", "injection") share a concept.
//! Generic classes only; a concept is one weighted term among the others, never a match on
//! its own.

use std::sync::OnceLock;

use aho_corasick::AhoCorasick;

use crate::adapters::taxonomy::Fit;

pub(super) struct Class {
    pub name: &'static str,
    pub cwe: Option<u16>,
    triggers: &'static [(&'static str, Fit)],
}

impl Class {
    /// `race condition (CWE-362)`.
    pub fn label(&self) -> String {
        match self.cwe {
            Some(cwe) => format!("{} (CWE-{cwe})", self.name),
            None => self.name.to_owned(),
        }
    }
}

use Fit::{Prefix, Word};

pub(super) const CLASSES: &[Class] = &[
    Class {
        name: "injection",
        cwe: Some(74),
        triggers: &[
            ("injection", Prefix),
            ("injectable", Prefix),
            ("unsanitized", Prefix),
            ("unsanitised", Prefix),
            ("shell metachar", Prefix),
        ],
    },
    Class {
        name: "race condition",
        cwe: Some(362),
        triggers: &[
            ("race", Word),
            ("racy", Word),
            ("toctou", Word),
            ("concurrent", Prefix),
            ("concurrency", Prefix),
            ("atomic", Prefix),
        ],
    },
    Class {
        name: "null dereference",
        cwe: Some(476),
        triggers: &[
            ("null", Prefix),
            ("nil", Word),
            ("undefined", Word),
            ("dereferenc", Prefix),
        ],
    },
    Class {
        name: "resource leak",
        cwe: Some(772),
        triggers: &[
            ("resource leak", Prefix),
            ("memory leak", Prefix),
            ("file descriptor", Prefix),
            ("unclosed", Word),
            ("never closed", Prefix),
            ("not closed", Prefix),
        ],
    },
    Class {
        name: "timing comparison",
        cwe: Some(208),
        triggers: &[
            ("timing attack", Prefix),
            ("timing-safe", Prefix),
            ("constant-time", Prefix),
            ("constant time", Prefix),
        ],
    },
    Class {
        name: "off-by-one",
        cwe: Some(193),
        triggers: &[
            ("off-by-one", Prefix),
            ("off by one", Prefix),
            ("fencepost", Prefix),
        ],
    },
    Class {
        name: "unbounded retry",
        cwe: Some(834),
        triggers: &[
            ("retry", Prefix),
            ("retries", Word),
            ("backoff", Prefix),
            ("infinite loop", Prefix),
            ("unbounded", Word),
        ],
    },
    Class {
        name: "N+1 queries",
        cwe: Some(1073),
        triggers: &[
            ("n+1", Prefix),
            ("query per", Prefix),
            ("queries per", Prefix),
        ],
    },
    Class {
        name: "path traversal",
        cwe: Some(22),
        triggers: &[
            ("traversal", Prefix),
            ("zip slip", Prefix),
            ("zip-slip", Prefix),
        ],
    },
    Class {
        name: "secret exposure",
        cwe: Some(200),
        triggers: &[
            ("secret", Prefix),
            ("credential", Prefix),
            ("password", Prefix),
            ("api key", Prefix),
            ("token", Word),
        ],
    },
    Class {
        name: "error detail exposure",
        cwe: Some(209),
        triggers: &[
            ("stack trace", Prefix),
            ("implementation details", Prefix),
            ("internal details", Prefix),
            ("raw error", Prefix),
        ],
    },
    Class {
        name: "silent failure",
        cwe: Some(390),
        triggers: &[
            ("silently", Word),
            ("quietly", Word),
            ("without a word", Prefix),
            ("swallow", Prefix),
        ],
    },
    Class {
        name: "unhandled error",
        cwe: Some(755),
        triggers: &[
            ("unhandled", Word),
            ("not handled", Prefix),
            ("uncaught", Word),
            ("error handling", Prefix),
        ],
    },
    Class {
        name: "case sensitivity",
        cwe: Some(178),
        triggers: &[
            ("case-sensitive", Prefix),
            ("case sensitive", Prefix),
            ("case-insensitive", Prefix),
            ("case insensitive", Prefix),
            ("lowercase", Prefix),
            ("uppercase", Prefix),
            ("capitalis", Prefix),
            ("capitaliz", Prefix),
        ],
    },
    Class {
        name: "ordering",
        cwe: None,
        triggers: &[
            ("sort", Word),
            ("sorted", Word),
            ("sorting", Word),
            ("ordered by", Prefix),
            ("out of order", Prefix),
        ],
    },
    Class {
        name: "pagination",
        cwe: None,
        triggers: &[
            ("paginat", Prefix),
            ("per_page", Prefix),
            ("page size", Prefix),
            ("truncated", Word),
        ],
    },
    Class {
        name: "type safety",
        cwe: None,
        triggers: &[
            ("type safety", Prefix),
            ("type-safe", Prefix),
            ("type annotation", Prefix),
            ("typing", Word),
        ],
    },
    Class {
        name: "debug output",
        cwe: Some(489),
        triggers: &[
            ("console.log", Prefix),
            ("debug", Prefix),
            ("print statement", Prefix),
        ],
    },
    Class {
        name: "missing tests",
        cwe: None,
        triggers: &[
            ("untested", Word),
            ("test coverage", Prefix),
            ("add tests", Prefix),
            ("add a test", Prefix),
            ("without tests", Prefix),
            ("no tests", Prefix),
        ],
    },
    Class {
        name: "documentation mismatch",
        cwe: None,
        triggers: &[
            ("contradict", Prefix),
            ("documentation", Prefix),
            ("docstring", Prefix),
            ("docs", Word),
            ("out of date", Prefix),
            ("stale comment", Prefix),
        ],
    },
    Class {
        name: "localization",
        cwe: None,
        triggers: &[
            ("locale", Word),
            ("i18n", Word),
            ("locali", Prefix),
            ("translation", Prefix),
        ],
    },
];

/// Every trigger of every concept in one automaton (ASCII case folded), and the concept
/// and fit of each pattern: one pass over a finding's text finds them all.
struct Triggers {
    automaton: AhoCorasick,
    patterns: Vec<(usize, Fit)>,
}

fn triggers() -> &'static Triggers {
    static TRIGGERS: OnceLock<Triggers> = OnceLock::new();
    TRIGGERS.get_or_init(|| {
        let mut words = Vec::new();
        let mut patterns = Vec::new();
        for (index, concept) in CLASSES.iter().enumerate() {
            for &(trigger, fit) in concept.triggers {
                words.push(trigger);
                patterns.push((index, fit));
            }
        }
        let automaton = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(words)
            .expect("the concept triggers are a small fixed list");
        Triggers {
            automaton,
            patterns,
        }
    })
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Which concepts `text` mentions (any case), as a bit per entry of `CLASSES`.
pub(super) fn found_in(text: &str) -> u64 {
    let triggers = triggers();
    let mut found = 0u64;
    for hit in triggers.automaton.find_overlapping_iter(text) {
        let (concept, fit) = triggers.patterns[hit.pattern().as_usize()];
        let starts_word = text[..hit.start()]
            .chars()
            .next_back()
            .is_none_or(|c| !is_word_char(c));
        let rest = &text[hit.end()..];
        let ends_right = match fit {
            Prefix => true,
            Word => {
                let rest = rest.strip_prefix(['s', 'S']).unwrap_or(rest);
                rest.chars().next().is_none_or(|c| !is_word_char(c))
            }
        };
        if starts_word && ends_right {
            found |= 1 << concept;
        }
    }
    found
}

/// The classes `text` mentions, in vocabulary order.
pub(super) fn classes_in(text: &str) -> impl Iterator<Item = &'static Class> {
    classes_of(found_in(text))
}

/// The classes of a bit set from `found_in`, in vocabulary order.
pub(super) fn classes_of(found: u64) -> impl Iterator<Item = &'static Class> {
    CLASSES
        .iter()
        .enumerate()
        .filter(move |(index, _)| found & (1 << index) != 0)
        .map(|(_, concept)| concept)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<&'static str> {
        classes_of(found_in(text)).map(|c| c.name).collect()
    }

    #[test]
    fn different_words_name_one_concept() {
        assert_eq!(names("The query is injectable"), ["injection"]);
        assert_eq!(names("Unsanitized input reaches the shell"), ["injection"]);
        assert_eq!(names("A TOCTOU window"), ["race condition"]);
        assert_eq!(names("matches case-sensitively"), ["case sensitivity"]);
        assert!(
            names("The tracer runs ahead").is_empty(),
            "`race` starts a word"
        );
        assert!(names("in order to keep it").is_empty());
    }

    #[test]
    fn the_vocabulary_fits_the_bit_set() {
        assert!(CLASSES.len() <= 64);
    }

    #[test]
    fn concept_names_are_distinct_and_labelled() {
        let mut seen: Vec<&str> = CLASSES.iter().map(|c| c.name).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), CLASSES.len());
        assert_eq!(CLASSES[1].label(), "race condition (CWE-362)");
    }
}
