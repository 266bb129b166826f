//! What a finding says, as weighted terms: the identifiers and code it names, the defect
//! concepts it mentions, its words (stemmed) and its category. Each term is weighted by how
//! distinctive it is within this PR (inverse document frequency over its findings) and by
//! its kind: naming the same identifier is stronger evidence than sharing a word.

use rust_stemmers::{Algorithm, Stemmer};

use super::concepts;
use crate::consensus::cluster::FastMap;
use crate::model::{CategorySource, NormalizedFinding};

/// What a term is, which decides its weight and how a reason shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// An identifier, flag or other code token (`close_rate`, `--files`, `MD032`).
    Identifier,
    /// A whole inline code span of several tokens (`(v: any)`, `?.length > 0`).
    Code,
    /// A file name mentioned in the text: it says where, not what is wrong.
    File,
    /// A defect concept from the vocabulary (race condition, injection, ...).
    Concept,
    /// A stemmed word of the title or explanation.
    Word,
    /// The finding's category, when something decided it.
    Category,
}

impl Kind {
    fn weight(self) -> f64 {
        match self {
            Kind::Identifier | Kind::Code => 2.0,
            Kind::Concept => 1.5,
            Kind::File | Kind::Word => 1.0,
            Kind::Category => 0.5,
        }
    }

    fn tag(self) -> char {
        match self {
            Kind::Identifier => 'i',
            Kind::Code => 'c',
            Kind::File => 'f',
            Kind::Concept => 'k',
            Kind::Word => 'w',
            Kind::Category => 'g',
        }
    }

    /// Names what is wrong by name: the evidence far-apart loci need.
    pub(super) fn is_code(self) -> bool {
        matches!(self, Kind::Identifier | Kind::Code)
    }
}

/// Words that say nothing about which issue a finding names.
const STOP_WORDS: &[&str] = &[
    "about", "above", "after", "again", "all", "already", "also", "and", "another", "any", "are",
    "because", "been", "before", "being", "both", "but", "can", "cannot", "could", "did", "does",
    "doing", "done", "each", "either", "else", "etc", "even", "every", "for", "from", "had", "has",
    "have", "having", "her", "here", "him", "his", "how", "into", "its", "itself", "just", "may",
    "might", "more", "most", "much", "must", "not", "now", "off", "once", "one", "only", "onto",
    "other", "our", "out", "over", "own", "per", "same", "shall", "she", "should", "since", "some",
    "still", "such", "than", "that", "the", "their", "them", "then", "there", "these", "they",
    "this", "those", "though", "thus", "too", "two", "under", "until", "upon", "very", "via",
    "was", "were", "what", "when", "where", "whether", "which", "while", "who", "whom", "why",
    "will", "with", "within", "without", "would", "yet", "you", "your",
];

/// Findings that may name a distinctive term: more, and it is common in this PR.
const MAX_DISTINCTIVE_FINDINGS: usize = 16;

/// Every finding's terms, weighted within the PR.
pub(super) struct Corpus {
    /// Per term: its kind, how a reason shows it, its weight.
    kinds: Vec<Kind>,
    display: Vec<Box<str>>,
    weights: Vec<f64>,
    /// Per term: no bot names it in two different findings (a bot does not report one
    /// issue twice, so a term one bot repeats belongs to the code around, not to an issue).
    distinctive: Vec<bool>,
    /// Per finding: its distinct terms, sorted, as a range of `terms`.
    spans: Vec<(u32, u32)>,
    terms: Vec<u32>,
    /// Per finding: the sum of its terms' weights.
    norms: Vec<f64>,
}

/// What two findings share.
pub(super) struct Overlap {
    /// Weighted cosine of the two term sets, in [0, 1].
    pub similarity: f64,
    /// Shared identifiers or code that no bot repeats elsewhere.
    pub distinctive_code: usize,
}

impl Corpus {
    pub(super) fn build(findings: &[NormalizedFinding], bots: &[u32]) -> Corpus {
        let mut builder = Builder::default();
        let mut spans = Vec::with_capacity(findings.len());
        let mut terms: Vec<u32> = Vec::new();
        for finding in findings {
            let start = terms.len();
            builder.extract(finding, &mut terms);
            let own = &mut terms[start..];
            own.sort_unstable();
            let distinct = dedup_sorted(own);
            terms.truncate(start + distinct);
            spans.push((start as u32, terms.len() as u32));
        }
        let Builder { kinds, display, .. } = builder;

        let mut document_frequency = vec![0u32; kinds.len()];
        for &term in &terms {
            document_frequency[term as usize] += 1;
        }
        let count = findings.len().max(1) as f64;
        let weights: Vec<f64> = kinds
            .iter()
            .zip(&document_frequency)
            .map(|(kind, &df)| (1.0 + count / f64::from(df.max(1))).ln() * kind.weight())
            .collect();

        // Which bots name each code term (code terms only: the rule reads no others). A
        // term many findings name is not distinctive either, whoever names it.
        let mut distinctive: Vec<bool> = document_frequency
            .iter()
            .map(|&df| df as usize <= MAX_DISTINCTIVE_FINDINGS)
            .collect();
        let mut named: FastMap<(u32, u32), ()> = FastMap::default();
        for (&(start, end), &bot) in spans.iter().zip(bots) {
            for &term in &terms[start as usize..end as usize] {
                if kinds[term as usize].is_code() && named.insert((term, bot), ()).is_some() {
                    distinctive[term as usize] = false;
                }
            }
        }

        let norms = spans
            .iter()
            .map(|&(start, end)| {
                terms[start as usize..end as usize]
                    .iter()
                    .map(|&t| weights[t as usize])
                    .sum()
            })
            .collect();
        Corpus {
            kinds,
            display,
            weights,
            distinctive,
            spans,
            terms,
            norms,
        }
    }

    fn terms_of(&self, finding: usize) -> &[u32] {
        let (start, end) = self.spans[finding];
        &self.terms[start as usize..end as usize]
    }

    /// The finding's distinctive identifiers and code: the keys of the far-match index.
    pub(super) fn distinctive_code(&self, finding: usize) -> impl Iterator<Item = u32> + '_ {
        self.terms_of(finding)
            .iter()
            .copied()
            .filter(|&t| self.kinds[t as usize].is_code() && self.distinctive[t as usize])
    }

    /// Both findings' terms, in order, calling `shared` for each term they share.
    fn each_shared(&self, a: usize, b: usize, mut shared: impl FnMut(u32)) {
        let (ta, tb) = (self.terms_of(a), self.terms_of(b));
        let (mut i, mut j) = (0, 0);
        while i < ta.len() && j < tb.len() {
            match ta[i].cmp(&tb[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    shared(ta[i]);
                    i += 1;
                    j += 1;
                }
            }
        }
    }

    pub(super) fn overlap(&self, a: usize, b: usize) -> Overlap {
        let (mut weight, mut distinctive_code) = (0.0, 0);
        self.each_shared(a, b, |t| {
            let t = t as usize;
            weight += self.weights[t];
            if self.kinds[t].is_code() && self.distinctive[t] {
                distinctive_code += 1;
            }
        });
        let norm = (self.norms[a] * self.norms[b]).sqrt();
        Overlap {
            similarity: if norm > 0.0 { weight / norm } else { 0.0 },
            distinctive_code,
        }
    }

    /// The terms two findings share, heaviest first.
    pub(super) fn shared_terms(&self, a: usize, b: usize) -> Vec<u32> {
        let mut shared = Vec::new();
        self.each_shared(a, b, |t| shared.push(t));
        shared.sort_by(|&x, &y| {
            self.weights[y as usize]
                .total_cmp(&self.weights[x as usize])
                .then(x.cmp(&y))
        });
        shared
    }

    /// How a reason shows the term: code in backticks, concepts and words as they are.
    pub(super) fn show(&self, term: u32) -> String {
        self.display[term as usize].to_string()
    }
}

/// How a reason shows a term of this kind: code in backticks, concepts and words as they
/// are (made once per term, when it is first seen).
fn shown(kind: Kind, text: &str) -> Box<str> {
    match kind {
        Kind::Identifier | Kind::Code | Kind::File => format!("`{text}`").into(),
        Kind::Category => format!("category {text}").into(),
        Kind::Concept | Kind::Word => text.into(),
    }
}

/// Drop repeats from a sorted slice in place; returns how many distinct values lead it.
fn dedup_sorted(values: &mut [u32]) -> usize {
    let mut kept = 0;
    for index in 0..values.len() {
        if index == 0 || values[index] != values[kept - 1] {
            values[kept] = values[index];
            kept += 1;
        }
    }
    kept
}

/// Interns terms and stems words, once per distinct word.
struct Builder {
    stemmer: Stemmer,
    ids: FastMap<Box<str>, u32>,
    /// Lowercase word -> its stemmed word term (or `u32::MAX`: not a term).
    words: FastMap<Box<str>, u32>,
    kinds: Vec<Kind>,
    display: Vec<Box<str>>,
    key: String,
    lower: String,
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            stemmer: Stemmer::create(Algorithm::English),
            ids: FastMap::default(),
            words: FastMap::default(),
            kinds: Vec::new(),
            display: Vec::new(),
            key: String::new(),
            lower: String::new(),
        }
    }
}

impl Builder {
    fn id(&mut self, kind: Kind, text: &str, display: &str) -> u32 {
        self.key.clear();
        self.key.push(kind.tag());
        self.key.push(':');
        self.key.push_str(text);
        if let Some(&id) = self.ids.get(self.key.as_str()) {
            return id;
        }
        let id = self.kinds.len() as u32;
        self.ids.insert(self.key.as_str().into(), id);
        self.kinds.push(kind);
        self.display.push(shown(kind, display));
        id
    }

    fn extract(&mut self, finding: &NormalizedFinding, out: &mut Vec<u32>) {
        for text in [finding.title.as_str(), finding.detail.as_str()] {
            for piece in split_code(text) {
                match piece {
                    Piece::Code(span) => self.code_span(span, out),
                    Piece::Prose(prose) => self.prose(prose, out),
                }
            }
        }
        let found = concepts::found_in(&finding.title) | concepts::found_in(&finding.detail);
        for concept in concepts::concepts_of(found) {
            out.push(self.concept(concept));
        }
        let decided = finding
            .provenance
            .category_source
            .is_none_or(|source| source != CategorySource::Fallback);
        if decided && !finding.category.is_empty() {
            let category = finding.category.to_ascii_lowercase();
            out.push(self.id(Kind::Category, &category, &category));
        }
    }

    fn concept(&mut self, concept: &concepts::Concept) -> u32 {
        self.key.clear();
        self.key.push(Kind::Concept.tag());
        self.key.push(':');
        self.key.push_str(concept.name);
        match self.ids.get(self.key.as_str()) {
            Some(&id) => id,
            None => self.id(Kind::Concept, concept.name, &concept.label()),
        }
    }

    /// The term of `text` lowercased (through a reused buffer: most lookups find it).
    fn lowered_id(&mut self, kind: Kind, text: &str) -> u32 {
        let mut lower = std::mem::take(&mut self.lower);
        lowercase_into(text, &mut lower);
        let id = self.id(kind, &lower, text);
        self.lower = lower;
        id
    }

    /// A code span: a file name, or its code tokens and (when it has several) the whole.
    fn code_span(&mut self, span: &str, out: &mut Vec<u32>) {
        let span = span.trim();
        let base = match span.rsplit_once('/') {
            Some((_, base)) if !span.contains(char::is_whitespace) && !base.is_empty() => base,
            _ => span,
        };
        if is_file_name(base) {
            out.push(self.lowered_id(Kind::File, base));
            return;
        }
        let mut tokens = 0;
        for token in code_tokens(span) {
            tokens += 1;
            if token.len() >= 2 {
                out.push(self.lowered_id(Kind::Identifier, token));
            }
            // `float` is also the word "floats" of another bot's prose.
            if token.chars().all(|c| c.is_ascii_lowercase()) {
                out.extend(self.word(token));
            }
        }
        if tokens > 1 && span.chars().count() <= 40 {
            let normal = span
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .to_lowercase();
            out.push(self.id(Kind::Code, &normal, span));
        }
    }

    /// Prose: identifier-shaped words are identifiers, file names are files, the rest are
    /// stemmed words (stop words, priorities and short words dropped).
    fn prose(&mut self, prose: &str, out: &mut Vec<u32>) {
        for token in prose_words(prose) {
            if is_file_name(token) {
                out.push(self.lowered_id(Kind::File, token));
                continue;
            }
            for word in token.split('.').filter(|w| !w.is_empty()) {
                if looks_like_identifier(word) {
                    out.push(self.lowered_id(Kind::Identifier, word));
                } else if let Some(term) = self.word(word) {
                    out.push(term);
                }
            }
        }
    }

    fn word(&mut self, word: &str) -> Option<u32> {
        let mut lower = std::mem::take(&mut self.lower);
        lowercase_into(word, &mut lower);
        let term = match self.words.get(lower.as_str()) {
            Some(&term) => term,
            None => {
                let keep = lower.chars().count() >= 3
                    && STOP_WORDS.binary_search(&lower.as_str()).is_err()
                    && !is_priority(&lower);
                let term = if keep {
                    let stem = self.stemmer.stem(&lower).into_owned();
                    self.id(Kind::Word, &stem, &lower)
                } else {
                    u32::MAX
                };
                self.words.insert(lower.as_str().into(), term);
                term
            }
        };
        self.lower = lower;
        (term != u32::MAX).then_some(term)
    }
}

fn lowercase_into(text: &str, out: &mut String) {
    out.clear();
    if text.is_ascii() {
        out.push_str(text);
        out.make_ascii_lowercase();
    } else {
        out.extend(text.chars().flat_map(char::to_lowercase));
    }
}

/// A piece of a finding's text: inline code or prose.
enum Piece<'a> {
    Code(&'a str),
    Prose(&'a str),
}

/// Split text at inline code spans (backticks on one line; an unclosed one is prose).
fn split_code(text: &str) -> impl Iterator<Item = Piece<'_>> {
    let mut rest = text;
    let mut pending: Option<&str> = None;
    std::iter::from_fn(move || {
        if let Some(code) = pending.take() {
            return Some(Piece::Code(code));
        }
        if rest.is_empty() {
            return None;
        }
        let Some(open) = rest.find('`') else {
            return Some(Piece::Prose(std::mem::take(&mut rest)));
        };
        let after = &rest[open + 1..];
        match after.find(['`', '\n']) {
            Some(close) if after.as_bytes()[close] == b'`' => {
                let prose = &rest[..open];
                pending = Some(&after[..close]);
                rest = &after[close + 1..];
                Some(Piece::Prose(prose))
            }
            _ => {
                let prose = &rest[..open + 1];
                rest = after;
                Some(Piece::Prose(prose))
            }
        }
    })
}

fn is_code_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '$' | '.' | '-')
}

/// Tokens of code: runs of word characters, `.`, `$` and `-` that start with a letter, `_`,
/// `$` or `-` (flags), trimmed of trailing dots and dashes.
fn code_tokens(span: &str) -> impl Iterator<Item = &str> {
    span.split(|c: char| !is_code_char(c))
        .map(|t| t.trim_end_matches(['.', '-']))
        .filter(|t| {
            t.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || matches!(c, '_' | '$' | '-'))
        })
}

/// Words of prose: runs of word characters with inner `-`, `'`, `.` (file names) kept.
fn prose_words(prose: &str) -> impl Iterator<Item = &str> {
    prose
        .split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '\'' | '.')))
        .map(|w| w.trim_matches(|c: char| matches!(c, '-' | '\'' | '.')))
        .filter(|w| w.chars().next().is_some_and(char::is_alphabetic))
}

/// `close_rate`, `detectAgent`, `MD032`, `x86`: written like code even without backticks.
fn looks_like_identifier(word: &str) -> bool {
    let mut pairs = word.chars().zip(word.chars().skip(1));
    let shaped = word.contains('_')
        || pairs.any(|(a, b)| {
            (a.is_lowercase() && b.is_uppercase()) || (a.is_alphabetic() && b.is_ascii_digit())
        });
    shaped && !is_priority(word)
}

/// `P0`..`P4`: a priority, said by the bot about itself, not about the code.
fn is_priority(word: &str) -> bool {
    let bytes = word.as_bytes();
    bytes.len() == 2 && matches!(bytes[0], b'p' | b'P') && bytes[1].is_ascii_digit()
}

/// Extensions of the files reviews talk about (a list, so that `process.cwd` is no file).
const FILE_EXTENSIONS: &[&str] = &[
    "c", "cc", "cfg", "cjs", "conf", "cpp", "cs", "css", "csv", "env", "go", "gradle", "h", "hpp",
    "html", "ini", "java", "js", "json", "jsx", "kt", "lock", "md", "mdx", "mjs", "php", "py",
    "rb", "rs", "scss", "sh", "sql", "svelte", "swift", "toml", "ts", "tsx", "txt", "vue", "xml",
    "yaml", "yml",
];

/// `grok-build.ts`, `MEMORY.md`: a name with a known file extension.
fn is_file_name(text: &str) -> bool {
    let Some((stem, extension)) = text.rsplit_once('.') else {
        return false;
    };
    !stem.is_empty()
        && stem
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
        && FILE_EXTENSIONS.contains(&extension.to_ascii_lowercase().as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(text: &str) -> Vec<String> {
        split_code(text)
            .map(|p| match p {
                Piece::Code(c) => format!("[{c}]"),
                Piece::Prose(p) => p.to_owned(),
            })
            .collect()
    }

    #[test]
    fn code_spans_split_from_prose() {
        assert_eq!(pieces("use `a_b` here"), ["use ", "[a_b]", " here"]);
        assert_eq!(pieces("unclosed `tick"), ["unclosed `", "tick"]);
        assert_eq!(pieces("`x`"), ["", "[x]"]);
    }

    #[test]
    fn identifiers_files_and_priorities() {
        for word in ["close_rate", "detectAgent", "MD032", "get_desired_shims"] {
            assert!(looks_like_identifier(word), "{word}");
        }
        for word in ["race", "Zeta", "P1", "p2"] {
            assert!(!looks_like_identifier(word), "{word}");
        }
        assert!(is_file_name("grok-build.ts") && is_file_name("MEMORY.md"));
        for text in ["e.g", "process.cwd", "3.14", "path.", "a b.ts"] {
            assert!(!is_file_name(text), "{text}");
        }
        let tokens: Vec<&str> = code_tokens("process.env.CLAUDE_PROJECT_DIR ?? --files").collect();
        assert_eq!(tokens, ["process.env.CLAUDE_PROJECT_DIR", "--files"]);
    }

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    fn finding(bot: &str, title: &str, detail: &str) -> NormalizedFinding {
        let mut f = NormalizedFinding::new(bot, "", crate::model::Severity::Medium, "bug", title);
        f.detail = detail.to_owned();
        f
    }

    #[test]
    fn the_same_identifier_in_other_words_overlaps_more_than_shared_filler() {
        let findings = [
            finding(
                "a",
                "Sort merged PRs by merge time",
                "`mergedToday[0]` feeds `last_merge` but the list is sorted by `updated`.",
            ),
            finding(
                "b",
                "mergedToday[0] not ordered by merged_at",
                "So `last_merge` can be wrong: sort by `merged_at` first.",
            ),
            finding(
                "b",
                "Counts saturate at the page cap",
                "The list is capped at 100 items per page.",
            ),
        ];
        let corpus = Corpus::build(&findings, &[0, 1, 1]);
        let same = corpus.overlap(0, 1);
        let other = corpus.overlap(0, 2);
        assert!(
            same.similarity > other.similarity,
            "{} vs {}",
            same.similarity,
            other.similarity
        );
        assert!(same.distinctive_code >= 2, "{}", same.distinctive_code);
        assert_eq!(other.distinctive_code, 0);
        let shown: Vec<String> = corpus
            .shared_terms(0, 1)
            .into_iter()
            .map(|t| corpus.show(t))
            .collect();
        assert!(shown.contains(&"`last_merge`".to_owned()), "{shown:?}");
    }

    #[test]
    fn a_term_one_bot_repeats_is_not_distinctive() {
        let findings = [
            finding("a", "`--files` without paths", ""),
            finding("b", "`--files` with no operands", ""),
            finding("b", "`--files` drops missing paths", ""),
        ];
        let corpus = Corpus::build(&findings, &[0, 1, 1]);
        assert_eq!(corpus.overlap(0, 1).distinctive_code, 0);
        assert_eq!(corpus.distinctive_code(0).count(), 0);
    }
}
