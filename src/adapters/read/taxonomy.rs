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

/// One keyword signal: the keyword, how it must sit, what it is worth, and context words
/// that cancel it when they appear in the same sentence (a "typo" in the caller's input is
/// a parsing problem, not a spelling nit).
#[derive(Clone, Copy)]
struct Signal {
    keyword: &'static str,
    fit: Fit,
    weight: u8,
    unless: &'static [&'static str],
}

const fn s(keyword: &'static str, fit: Fit) -> Signal {
    Signal {
        keyword,
        fit,
        weight: 1,
        unless: &[],
    }
}

/// A signal worth two: it names the kind of defect outright.
const fn strong(keyword: &'static str, fit: Fit) -> Signal {
    Signal {
        weight: 2,
        ..s(keyword, fit)
    }
}

/// Runtime input and parsing: a style word next to these describes behaviour.
const RUNTIME_CONTEXT: &[&str] = &[
    "caller", "input", "argument", "operand", "flag", "parse", "split", "trim", "user",
];

const fn style(keyword: &'static str) -> Signal {
    Signal {
        unless: RUNTIME_CONTEXT,
        ..s(keyword, Prefix)
    }
}

/// Keyword signals per category, in priority order (it breaks ties, except that style,
/// the weakest claim, loses every tie).
const KEYWORDS: &[(Category, &[Signal])] = &[
    (
        Category::Security,
        &[
            strong("injection", Prefix),
            strong("xss", Word),
            strong("cross-site", Prefix),
            strong("csrf", Word),
            strong("ssrf", Word),
            s("secret", Prefix),
            s("token", Word),
            s("password", Prefix),
            s("credential", Prefix),
            strong("timing attack", Prefix),
            s("constant-time", Prefix),
            s("constant time", Prefix),
            s("sanitiz", Prefix),
            s("authenticat", Prefix),
            s("authoriz", Prefix),
            strong("traversal", Prefix),
            strong("deserializ", Prefix),
            s("hmac", Prefix),
            s("signature", Prefix),
        ],
    ),
    (
        Category::Performance,
        &[
            strong("n+1", Prefix),
            s("performance", Prefix),
            s("slow", Prefix),
            strong("quadratic", Prefix),
            s("allocation", Prefix),
            s("cach", Prefix),
            s("batch", Prefix),
            s("round trip", Prefix),
            s("round-trip", Prefix),
            s("sequential http", Prefix),
            s("faster", Prefix),
        ],
    ),
    (
        Category::Test,
        &[
            strong("missing test", Prefix),
            strong("add a test", Prefix),
            strong("add tests", Prefix),
            strong("no test", Prefix),
            strong("test coverage", Prefix),
        ],
    ),
    (
        Category::Style,
        &[
            Signal {
                weight: 3,
                ..s("[nitpick]", Prefix)
            },
            style("typo"),
            style("spelling"),
            style("naming"),
            style("renam"),
            style("whitespace"),
            s("import order", Prefix),
            s("unused import", Prefix),
        ],
    ),
    (
        Category::Docs,
        &[
            s("docstring", Prefix),
            s("readme", Prefix),
            s("documentation", Prefix),
        ],
    ),
    (
        Category::Maintainability,
        &[
            s("refactor", Prefix),
            s("duplicat", Prefix),
            s("extract", Prefix),
            s("magic number", Prefix),
            s("complex", Prefix),
            s("readab", Prefix),
            s("unused variable", Prefix),
            s("never used", Prefix),
            s("dead code", Prefix),
        ],
    ),
    (
        Category::Bug,
        &[
            strong("null", Prefix),
            s("none", Word),
            strong("undefined", Prefix),
            strong("race", Word),
            s("await", Prefix),
            strong("exception", Prefix),
            strong("off-by-one", Prefix),
            strong("overflow", Prefix),
            s("rounding", Prefix),
            s("round", Word),
            s("float", Prefix),
            s("incorrect", Prefix),
            s("wrong", Prefix),
            s("missing", Prefix),
            strong("crash", Prefix),
            s("leak", Prefix),
            s("error", Prefix),
            s("raise", Prefix),
            strong("deadlock", Prefix),
        ],
    ),
];

/// The keyword lists, for documentation and tests: (category, keywords in order).
pub fn keyword_lists() -> impl Iterator<Item = (Category, Vec<&'static str>)> {
    KEYWORDS
        .iter()
        .map(|(category, signals)| (*category, signals.iter().map(|s| s.keyword).collect()))
}

/// Each category's keyword score on `text` (lowercased here): the weights of the signals
/// found, each once, unless its sentence holds one of its cancelling words.
pub fn keyword_scores(text: &str) -> Vec<(Category, u32)> {
    let lower = text.to_lowercase();
    let sentences: Vec<&str> = lower.split(['.', '!', '?', ';', '\n']).collect();
    KEYWORDS
        .iter()
        .map(|(category, signals)| {
            let score = signals
                .iter()
                .filter(|signal| {
                    sentences.iter().any(|sentence| {
                        contains_keyword(sentence, signal.keyword, signal.fit)
                            && !signal
                                .unless
                                .iter()
                                .any(|word| contains_keyword(sentence, word, Prefix))
                    })
                })
                .map(|signal| u32::from(signal.weight))
                .sum();
            (*category, score)
        })
        .collect()
}

/// The keyword pass alone: the category with the highest score (ties by priority, style
/// losing every tie), or `None` when no signal fired.
pub fn keyword_category(text: &str) -> Option<Category> {
    best(keyword_scores(text), false)
}

/// The best-scoring category; `without_style` leaves style out (a finding the bot itself
/// rates high is not a style nit, whatever its wording).
fn best(scores: Vec<(Category, u32)>, without_style: bool) -> Option<Category> {
    let mut winner: Option<(Category, u32)> = None;
    for (category, score) in scores {
        if score == 0 || (without_style && category == Category::Style) {
            continue;
        }
        let beats = match winner {
            None => true,
            Some((Category::Style, top)) => score >= top,
            Some((_, top)) => score > top,
        };
        if beats {
            winner = Some((category, score));
        }
    }
    winner.map(|(category, _)| category)
}

/// How strongly the text reads as style: its style keyword score.
pub fn style_score(text: &str) -> u32 {
    keyword_scores(text)
        .into_iter()
        .find(|(category, _)| *category == Category::Style)
        .map_or(0, |(_, score)| score)
}

/// A bot's own severity outranks style keywords: a keyword-derived `style` on a finding
/// the bot rates high or critical becomes its best other keyword category, else `other`.
pub fn respect_severity(
    category: Category,
    source: CategorySource,
    severity: Severity,
    text: &str,
) -> (Category, CategorySource) {
    if category != Category::Style || source != CategorySource::Keyword || severity < Severity::High
    {
        return (category, source);
    }
    match best(keyword_scores(text), true) {
        Some(other) => (other, CategorySource::Keyword),
        None => (Category::Other, CategorySource::Fallback),
    }
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

/// Severity icons a bot opens a comment with, as GitHub shortcodes (what the API returns
/// when the bot wrote them so) or as the emoji: Amazon Q's `:stop_sign:`, Codacy's
/// `:red_circle:` / `:yellow_circle:` / `:white_circle:` risk circles. Never critical: an
/// icon is a bot's coarse mark, not a rating.
const SEVERITY_ICONS: &[(&str, &str, Severity)] = &[
    (":stop_sign:", "🛑", Severity::High),
    (":red_circle:", "🔴", Severity::High),
    (":warning:", "⚠", Severity::Medium),
    (":orange_circle:", "🟠", Severity::Medium),
    (":yellow_circle:", "🟡", Severity::Medium),
    (":large_blue_circle:", "🔵", Severity::Low),
    (":blue_circle:", "🔵", Severity::Low),
    (":white_circle:", "⚪", Severity::Low),
    (":information_source:", "ℹ", Severity::Low),
    (":bulb:", "💡", Severity::Low),
];

/// The severity icon that opens `text` (whitespace before it, an emoji variation selector
/// after it skipped) and the text after it; `None` when `text` opens with none.
pub fn leading_severity_icon(text: &str) -> Option<(Severity, &str)> {
    let text = text.trim_start();
    SEVERITY_ICONS.iter().find_map(|(code, emoji, severity)| {
        let rest = text
            .strip_prefix(code)
            .or_else(|| text.strip_prefix(emoji))?;
        Some((*severity, rest.trim_start_matches('\u{fe0f}')))
    })
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
    fn severity_icons_as_shortcodes_or_emoji() {
        let cases = [
            (
                ":stop_sign: **Logic Error**: x",
                Some((Severity::High, " **Logic Error**: x")),
            ),
            ("🛑 x", Some((Severity::High, " x"))),
            (" ⚠️ x", Some((Severity::Medium, " x"))),
            (
                ":yellow_circle: MEDIUM RISK",
                Some((Severity::Medium, " MEDIUM RISK")),
            ),
            ("⚪ LOW RISK", Some((Severity::Low, " LOW RISK"))),
            ("No icon :stop_sign:", None),
            ("", None),
        ];
        for (text, expected) in cases {
            assert_eq!(leading_severity_icon(text), expected, "{text}");
        }
    }

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

    /// Comments of the real multi-bot PRs (tests/fixtures/real) that first-match keywords
    /// filed as style.
    #[test]
    fn real_comments_are_not_style_nits() {
        let cases = [
            // dev-01, Codex P1: a typo *by the caller* is input, not spelling.
            (
                "Error out when --files is given without any paths. In write mode a typo by the \
              caller, or a list that comes out empty, would prepend headers to every shard.",
                Category::Bug,
            ),
            // dev-05, Copilot P1: splitting on whitespace is parsing.
            (
                "P1: parseContextCmd splits on whitespace with no handling of quotes or escapes, \
              so commands with quoted arguments get parsed wrongly.",
                Category::Bug,
            ),
            // A race that also says "rename": the race is what matters.
            (
                "Race: flush and close both rename the temp file, so a crash loses data.",
                Category::Bug,
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(keyword_category(text), Some(expected), "{text}");
        }
        // Real style stays style.
        assert_eq!(
            keyword_category("Typo: recieved, not received"),
            Some(Category::Style)
        );
        // On a tie style, the weakest claim, gives way.
        assert_eq!(
            keyword_category("Typo in the docstring"),
            Some(Category::Docs)
        );
        assert_eq!(
            keyword_category("Rename `x` to something clearer; naming matters"),
            Some(Category::Style)
        );
        assert!(style_score("Rename `x`; naming matters") >= 2);
        assert_eq!(style_score("a typo by the caller"), 0);
    }

    #[test]
    fn a_bots_high_rating_outranks_style_keywords() {
        let text = "Rename the lock and fix the race between writers";
        assert_eq!(keyword_category("Rename the lock"), Some(Category::Style));
        assert_eq!(
            respect_severity(
                Category::Style,
                CategorySource::Keyword,
                Severity::High,
                text
            ),
            (Category::Bug, CategorySource::Keyword)
        );
        assert_eq!(
            respect_severity(
                Category::Style,
                CategorySource::Keyword,
                Severity::Critical,
                "rename it"
            ),
            (Category::Other, CategorySource::Fallback)
        );
        // The bot's own style label, or a low rating, stays.
        for (source, severity) in [
            (CategorySource::Native, Severity::High),
            (CategorySource::Keyword, Severity::Medium),
        ] {
            assert_eq!(
                respect_severity(Category::Style, source, severity, text),
                (Category::Style, source)
            );
        }
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
