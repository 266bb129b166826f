//! A small vocabulary of defect concepts, mapped to CWE where one fits: two bots that name
//! the same kind of defect in different words ("unsanitized", "injection") share a concept.
//! Generic classes only; a concept is one weighted term among the others, never a match on
//! its own.

use crate::adapters::taxonomy::{contains_keyword, Fit};

pub(super) struct Concept {
    pub name: &'static str,
    pub cwe: Option<u16>,
    triggers: &'static [(&'static str, Fit)],
}

impl Concept {
    /// `race condition (CWE-362)`.
    pub fn label(&self) -> String {
        match self.cwe {
            Some(cwe) => format!("{} (CWE-{cwe})", self.name),
            None => self.name.to_owned(),
        }
    }
}

use Fit::{Prefix, Word};

pub(super) const CONCEPTS: &[Concept] = &[
    Concept {
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
    Concept {
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
    Concept {
        name: "null dereference",
        cwe: Some(476),
        triggers: &[
            ("null", Prefix),
            ("nil", Word),
            ("undefined", Word),
            ("dereferenc", Prefix),
        ],
    },
    Concept {
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
    Concept {
        name: "timing comparison",
        cwe: Some(208),
        triggers: &[
            ("timing attack", Prefix),
            ("timing-safe", Prefix),
            ("constant-time", Prefix),
            ("constant time", Prefix),
        ],
    },
    Concept {
        name: "off-by-one",
        cwe: Some(193),
        triggers: &[
            ("off-by-one", Prefix),
            ("off by one", Prefix),
            ("fencepost", Prefix),
        ],
    },
    Concept {
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
    Concept {
        name: "N+1 queries",
        cwe: Some(1073),
        triggers: &[
            ("n+1", Prefix),
            ("query per", Prefix),
            ("queries per", Prefix),
        ],
    },
    Concept {
        name: "path traversal",
        cwe: Some(22),
        triggers: &[
            ("traversal", Prefix),
            ("zip slip", Prefix),
            ("zip-slip", Prefix),
        ],
    },
    Concept {
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
    Concept {
        name: "error detail exposure",
        cwe: Some(209),
        triggers: &[
            ("stack trace", Prefix),
            ("implementation details", Prefix),
            ("internal details", Prefix),
            ("raw error", Prefix),
        ],
    },
    Concept {
        name: "silent failure",
        cwe: Some(390),
        triggers: &[
            ("silently", Word),
            ("quietly", Word),
            ("without a word", Prefix),
            ("swallow", Prefix),
        ],
    },
    Concept {
        name: "unhandled error",
        cwe: Some(755),
        triggers: &[
            ("unhandled", Word),
            ("not handled", Prefix),
            ("uncaught", Word),
            ("error handling", Prefix),
        ],
    },
    Concept {
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
    Concept {
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
    Concept {
        name: "pagination",
        cwe: None,
        triggers: &[
            ("paginat", Prefix),
            ("per_page", Prefix),
            ("page size", Prefix),
            ("truncated", Word),
        ],
    },
    Concept {
        name: "type safety",
        cwe: None,
        triggers: &[
            ("type safety", Prefix),
            ("type-safe", Prefix),
            ("type annotation", Prefix),
            ("typing", Word),
        ],
    },
    Concept {
        name: "debug output",
        cwe: Some(489),
        triggers: &[
            ("console.log", Prefix),
            ("debug", Prefix),
            ("print statement", Prefix),
        ],
    },
    Concept {
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
    Concept {
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
    Concept {
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

/// The concepts the lowercased text mentions, in vocabulary order.
pub(super) fn found_in(lower: &str) -> impl Iterator<Item = &'static Concept> + '_ {
    CONCEPTS.iter().filter(move |concept| {
        concept
            .triggers
            .iter()
            .any(|&(trigger, fit)| contains_keyword(lower, trigger, fit))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<&'static str> {
        found_in(&text.to_lowercase()).map(|c| c.name).collect()
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
    fn concept_names_are_distinct_and_labelled() {
        let mut seen: Vec<&str> = CONCEPTS.iter().map(|c| c.name).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), CONCEPTS.len());
        assert_eq!(CONCEPTS[1].label(), "race condition (CWE-362)");
    }
}
