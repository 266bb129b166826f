//! The one category taxonomy every adapter maps onto (bot-formats.md section 14), and the
//! severity words shared by several bots. Resolution order, strongest first:
//! strong native label -> path rules -> keywords (title + first paragraph, code removed) ->
//! weak type label -> `other`. The engine merges only findings of the same category, so
//! every bot without categories of its own must go through the same rules.

use crate::model::{Category, CategorySource, Severity};

/// What a bot itself says about a finding's category.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NativeCategory {
    /// An explicit category label (CodeRabbit category span, Sourcery `(bug_risk)`, GHAS
    /// tags): wins over everything.
    pub strong: Option<Category>,
    /// A type label (CodeRabbit `⚠️ Potential issue` -> bug): used only when neither path
    /// rules nor keywords decide.
    pub weak: Option<Category>,
}

impl NativeCategory {
    pub fn none() -> Self {
        NativeCategory::default()
    }

    pub fn strong(category: Category) -> Self {
        NativeCategory {
            strong: Some(category),
            weak: None,
        }
    }

    pub fn weak(category: Category) -> Self {
        NativeCategory {
            strong: None,
            weak: Some(category),
        }
    }
}

/// Decide a finding's category and how it was decided. `text` is the title and first
/// paragraph with code removed (see `markdown::keyword_text`); it is lowercased here too.
pub fn resolve(native: NativeCategory, path: &str, text: &str) -> (Category, CategorySource) {
    if let Some(category) = native.strong {
        return (category, CategorySource::Native);
    }
    if let Some(category) = path_category(path) {
        return (category, CategorySource::PathRule);
    }
    if let Some(category) = keyword_category(text) {
        return (category, CategorySource::Keyword);
    }
    if let Some(category) = native.weak {
        return (category, CategorySource::TypeLabel);
    }
    (Category::Other, CategorySource::Fallback)
}

const DOC_EXTENSIONS: &[&str] = &[".md", ".mdx", ".markdown", ".rst", ".adoc"];
const DOC_DIRS: &[&str] = &["docs", "doc"];
const TEST_DIRS: &[&str] = &["tests", "test", "__tests__", "spec", "specs"];
const TEST_INFIXES: &[&str] = &[".test.", ".spec.", "_test.", "_spec."];

/// Path rules: documentation files -> docs, test files -> test.
pub fn path_category(path: &str) -> Option<Category> {
    if path.is_empty() {
        return None;
    }
    let lower = path.to_lowercase();
    let mut segments: Vec<&str> = lower.split('/').filter(|s| !s.is_empty()).collect();
    let file = segments.pop().unwrap_or("");
    if DOC_EXTENSIONS.iter().any(|ext| file.ends_with(ext))
        || segments.iter().any(|s| DOC_DIRS.contains(s))
    {
        return Some(Category::Docs);
    }
    let test_file =
        file.starts_with("test_") || TEST_INFIXES.iter().any(|infix| file.contains(infix));
    if test_file || segments.iter().any(|s| TEST_DIRS.contains(s)) {
        return Some(Category::Test);
    }
    None
}

/// How a keyword must sit in the text.
#[derive(Clone, Copy)]
pub(crate) enum Fit {
    /// Starts a word (`sanitiz` matches "sanitize", "sanitization").
    Prefix,
    /// A whole word, optionally plural (`token` matches "tokens", not "tokenizer").
    Word,
}

use Fit::{Prefix, Word};

/// Keyword lists in priority order: the first category with a hit wins.
const KEYWORDS: &[(Category, &[(&str, Fit)])] = &[
    (
        Category::Security,
        &[
            ("injection", Prefix),
            ("xss", Word),
            ("cross-site", Prefix),
            ("csrf", Word),
            ("ssrf", Word),
            ("secret", Prefix),
            ("token", Word),
            ("password", Prefix),
            ("credential", Prefix),
            ("timing attack", Prefix),
            ("constant-time", Prefix),
            ("constant time", Prefix),
            ("sanitiz", Prefix),
            ("authenticat", Prefix),
            ("authoriz", Prefix),
            ("traversal", Prefix),
            ("deserializ", Prefix),
            ("hmac", Prefix),
            ("signature", Prefix),
        ],
    ),
    (
        Category::Performance,
        &[
            ("n+1", Prefix),
            ("performance", Prefix),
            ("slow", Prefix),
            ("quadratic", Prefix),
            ("allocation", Prefix),
            ("cach", Prefix),
            ("batch", Prefix),
            ("round trip", Prefix),
            ("round-trip", Prefix),
            ("sequential http", Prefix),
            ("faster", Prefix),
        ],
    ),
    (
        Category::Test,
        &[
            ("missing test", Prefix),
            ("add a test", Prefix),
            ("add tests", Prefix),
            ("no test", Prefix),
            ("test coverage", Prefix),
        ],
    ),
    (
        Category::Style,
        &[
            ("[nitpick]", Prefix),
            ("typo", Prefix),
            ("spelling", Prefix),
            ("naming", Prefix),
            ("renam", Prefix),
            ("whitespace", Prefix),
            ("import order", Prefix),
            ("unused import", Prefix),
        ],
    ),
    (
        Category::Docs,
        &[
            ("docstring", Prefix),
            ("readme", Prefix),
            ("documentation", Prefix),
        ],
    ),
    (
        Category::Maintainability,
        &[
            ("refactor", Prefix),
            ("duplicat", Prefix),
            ("extract", Prefix),
            ("magic number", Prefix),
            ("complex", Prefix),
            ("readab", Prefix),
            ("unused variable", Prefix),
            ("never used", Prefix),
            ("dead code", Prefix),
        ],
    ),
    (
        Category::Bug,
        &[
            ("null", Prefix),
            ("none", Word),
            ("undefined", Prefix),
            ("race", Word),
            ("await", Prefix),
            ("exception", Prefix),
            ("off-by-one", Prefix),
            ("overflow", Prefix),
            ("rounding", Prefix),
            ("round", Word),
            ("float", Prefix),
            ("incorrect", Prefix),
            ("wrong", Prefix),
            ("missing", Prefix),
            ("crash", Prefix),
            ("leak", Prefix),
            ("error", Prefix),
            ("raise", Prefix),
        ],
    ),
];

/// The keyword lists, for documentation and tests: (category, keywords in order).
pub fn keyword_lists() -> impl Iterator<Item = (Category, Vec<&'static str>)> {
    KEYWORDS
        .iter()
        .map(|(category, words)| (*category, words.iter().map(|(w, _)| *w).collect()))
}

/// The keyword pass alone: the first category (in priority order) with a hit.
pub fn keyword_category(text: &str) -> Option<Category> {
    let lower = text.to_lowercase();
    KEYWORDS
        .iter()
        .find(|(_, words)| {
            words
                .iter()
                .any(|&(w, fit)| contains_keyword(&lower, w, fit))
        })
        .map(|(category, _)| *category)
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

pub(crate) fn contains_keyword(lower: &str, keyword: &str, fit: Fit) -> bool {
    let mut from = 0;
    while let Some(found) = lower.get(from..).and_then(|rest| rest.find(keyword)) {
        let start = from + found;
        let end = start + keyword.len();
        let starts_word = lower[..start]
            .chars()
            .next_back()
            .is_none_or(|c| !is_word_char(c));
        let rest = &lower[end..];
        let ends_ok = match fit {
            Prefix => true,
            Word => {
                let rest = rest.strip_prefix('s').unwrap_or(rest);
                rest.chars().next().is_none_or(|c| !is_word_char(c))
            }
        };
        if starts_word && ends_ok {
            return true;
        }
        from = start + keyword.len().max(1);
    }
    false
}

/// A severity word used by several bots: `critical`, `high`/`major`, `medium`/`minor`/
/// `moderate`, `low`/`trivial`, `info`/`note`. Case and surrounding punctuation ignored.
pub fn severity_word(word: &str) -> Option<Severity> {
    let word = word
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    match word.as_str() {
        "critical" | "blocker" => Some(Severity::Critical),
        "high" | "major" => Some(Severity::High),
        "medium" | "minor" | "moderate" => Some(Severity::Medium),
        "low" | "trivial" => Some(Severity::Low),
        "info" | "note" | "informational" => Some(Severity::Info),
        _ => None,
    }
}

/// A priority label `P0`..`P4` (Codex, Greptile, Copilot custom instructions):
/// P0 critical, P1 high, P2 medium, P3 and P4 low.
pub fn priority_severity(label: &str) -> Option<Severity> {
    let label = label.trim();
    let digits = label
        .strip_prefix('P')
        .or_else(|| label.strip_prefix('p'))?;
    match digits {
        "0" => Some(Severity::Critical),
        "1" => Some(Severity::High),
        "2" => Some(Severity::Medium),
        "3" | "4" => Some(Severity::Low),
        _ => None,
    }
}

/// The GHAS / SARIF `security_severity_level` (`critical`/`high`/`medium`/`low`).
pub fn security_severity(level: &str) -> Option<Severity> {
    match level.trim().to_lowercase().as_str() {
        "critical" => Some(Severity::Critical),
        "high" => Some(Severity::High),
        "medium" => Some(Severity::Medium),
        "low" => Some(Severity::Low),
        _ => None,
    }
}

/// A lint level (`rule.severity` / SARIF `level`): a lint error is not a high-severity
/// vulnerability, so `error` -> medium, `warning` -> low, `note`/`none` -> info.
pub fn lint_level_severity(level: &str) -> Option<Severity> {
    match level.trim().to_lowercase().as_str() {
        "error" => Some(Severity::Medium),
        "warning" => Some(Severity::Low),
        "note" | "none" | "recommendation" => Some(Severity::Info),
        _ => None,
    }
}

/// Category from rule tags (GHAS, SARIF): `security` -> security,
/// `correctness` -> bug, `performance` -> performance, `maintainability`/`useless-code`/
/// `readability` -> maintainability; a CWE tag with none of those -> security.
pub fn category_from_tags<'a>(tags: impl IntoIterator<Item = &'a str>) -> Option<Category> {
    let tags: Vec<String> = tags.into_iter().map(|t| t.trim().to_lowercase()).collect();
    let has = |names: &[&str]| tags.iter().any(|t| names.contains(&t.as_str()));
    if has(&["security"]) {
        return Some(Category::Security);
    }
    if has(&["correctness", "reliability"]) {
        return Some(Category::Bug);
    }
    if has(&["performance", "efficiency"]) {
        return Some(Category::Performance);
    }
    if has(&[
        "maintainability",
        "useless-code",
        "readability",
        "complexity",
    ]) {
        return Some(Category::Maintainability);
    }
    // CodeQL tags quality queries with CWEs too (CWE-563 on an unused variable), so a CWE
    // means security only when no explicit category tag said otherwise.
    if tags.iter().any(|t| t.starts_with("external/cwe/")) {
        return Some(Category::Security);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_native_path_keyword_weak_other() {
        let native = NativeCategory::strong(Category::Style);
        assert_eq!(
            resolve(native, "docs/x.md", "sql injection"),
            (Category::Style, CategorySource::Native)
        );
        let weak = NativeCategory::weak(Category::Bug);
        assert_eq!(
            resolve(weak, "docs/guide.md", "token"),
            (Category::Docs, CategorySource::PathRule)
        );
        assert_eq!(
            resolve(weak, "app/x.py", "the cache is slow"),
            (Category::Performance, CategorySource::Keyword)
        );
        assert_eq!(
            resolve(weak, "app/x.py", "consider it"),
            (Category::Bug, CategorySource::TypeLabel)
        );
        assert_eq!(
            resolve(NativeCategory::none(), "", "consider it"),
            (Category::Other, CategorySource::Fallback)
        );
    }

    #[test]
    fn path_rules() {
        assert_eq!(
            path_category("docs/guía-reembolsos.md"),
            Some(Category::Docs)
        );
        assert_eq!(path_category("README.rst"), Some(Category::Docs));
        assert_eq!(path_category("tests/test_fx.py"), Some(Category::Test));
        assert_eq!(path_category("app/x_test.go"), Some(Category::Test));
        assert_eq!(path_category("web/a.spec.tsx"), Some(Category::Test));
        assert_eq!(path_category("app/latest.py"), None);
        assert_eq!(path_category("app/contest/x.py"), None);
    }

    #[test]
    fn keywords_respect_word_starts_and_priority() {
        assert_eq!(
            keyword_category("a timing attack on the signature"),
            Some(Category::Security)
        );
        assert_eq!(keyword_category("tokenizer is fine"), None);
        assert_eq!(
            keyword_category("leaks the tokens"),
            Some(Category::Security)
        );
        assert_eq!(keyword_category("stack trace here"), None);
        assert_eq!(keyword_category("a race here"), Some(Category::Bug));
        assert_eq!(
            keyword_category("cached rates never expire"),
            Some(Category::Performance)
        );
        assert_eq!(
            keyword_category("[nitpick] spelling"),
            Some(Category::Style)
        );
        assert_eq!(keyword_category("nonetheless fine"), None);
        assert_eq!(
            keyword_category("name the magic number"),
            Some(Category::Maintainability)
        );
        assert_eq!(keyword_category("it raises keyerror"), Some(Category::Bug));
        assert_eq!(keyword_category("unintended"), None);
    }

    #[test]
    fn severities() {
        assert_eq!(severity_word("🟠 Major"), Some(Severity::High));
        assert_eq!(severity_word("Major"), Some(Severity::High));
        assert_eq!(severity_word("**Trivial**"), Some(Severity::Low));
        assert_eq!(priority_severity("P0"), Some(Severity::Critical));
        assert_eq!(priority_severity("P9"), None);
        assert_eq!(lint_level_severity("warning"), Some(Severity::Low));
        assert_eq!(security_severity("HIGH"), Some(Severity::High));
        assert_eq!(
            category_from_tags(["external/cwe/cwe-089"]),
            Some(Category::Security)
        );
        assert_eq!(category_from_tags(["correctness"]), Some(Category::Bug));
        assert_eq!(
            category_from_tags(["maintainability", "useless-code", "external/cwe/cwe-563"]),
            Some(Category::Maintainability),
            "a CodeQL quality query's CWE tag does not make it a security finding"
        );
        assert_eq!(category_from_tags(Vec::<&str>::new()), None);
    }
}
