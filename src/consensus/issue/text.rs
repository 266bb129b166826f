//! What a finding says, as terms in channels: the words of its claim (stemmed), the words
//! of its title alone, the identifiers and code it names, and the defect classes it
//! mentions. Each term is weighted by
//! how distinctive it is within this PR (inverse document frequency over its findings);
//! how much two findings share is measured per channel, and the match model weighs the
//! channels (a feature each), not a constant per kind.

use rust_stemmers::{Algorithm, Stemmer};

use super::lexicon;
use crate::consensus::cluster::FastMap;
use crate::model::NormalizedFinding;

/// What a term is: the channel it counts in and how a reason shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Channel {
    /// A stemmed word of the title or explanation (bot boilerplate removed).
    Word,
    /// A stemmed word of the title alone: the claim, without the context around it.
    Title,
    /// An identifier, flag, file name or inline code span (`close_rate`, `--files`).
    Code,
    /// A defect class from the vocabulary (race condition, CWE-362; magic number).
    Class,
}

pub(super) const CHANNELS: usize = 4;

impl Channel {
    fn tag(self) -> char {
        match self {
            Channel::Word => 'w',
            Channel::Title => 't',
            Channel::Code => 'c',
            Channel::Class => 'k',
        }
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

/// Bot boilerplate that survives into the explanation: the same words on every finding of a
/// bot say nothing about which defect it names.
const BOILERPLATE: &[&str] = &[
    "Useful? React with 👍 / 👎.",
    "React with 👍 or 👎",
    "Prompt for AI Agents",
    "Fix in Cursor",
    "Fix in Web",
    "Fix in Claude Code",
    "Committable suggestion",
    "Analysis chain",
];

/// Every finding's terms, weighted within the PR.
pub(super) struct Corpus {
    channels: Vec<Channel>,
    display: Vec<Box<str>>,
    /// Per term: how specific a defect class is (its lineage's length; 0 for other terms).
    depth: Vec<u8>,
    /// Per term: inverse document frequency within the PR.
    weights: Vec<f64>,
    /// Per finding: its distinct terms, sorted (by channel, then id), as a range of `terms`.
    spans: Vec<(u32, u32)>,
    terms: Vec<u32>,
    /// Per finding and channel: the sum of its terms' weights.
    norms: Vec<[f64; CHANNELS]>,
    /// Per finding: its claim is negated ("does not", "missing", "never").
    pub negated: Vec<bool>,
}

impl Corpus {
    pub(super) fn build(findings: &[NormalizedFinding]) -> Corpus {
        let mut builder = Builder::default();
        let mut spans = Vec::with_capacity(findings.len());
        let mut terms: Vec<u32> = Vec::new();
        let mut negated = Vec::with_capacity(findings.len());
        for finding in findings {
            let start = terms.len();
            builder.extract(finding, &mut terms);
            let own = &mut terms[start..];
            own.sort_unstable();
            let distinct = dedup_sorted(own);
            terms.truncate(start + distinct);
            spans.push((start as u32, terms.len() as u32));
            negated.push(is_negated(&finding.title));
        }
        let Builder {
            channels,
            display,
            depth,
            ..
        } = builder;

        let mut document_frequency = vec![0u32; channels.len()];
        for &term in &terms {
            document_frequency[term as usize] += 1;
        }
        let count = findings.len().max(1) as f64;
        let weights: Vec<f64> = document_frequency
            .iter()
            .map(|&df| (1.0 + count / f64::from(df.max(1))).ln())
            .collect();
        let norms = spans
            .iter()
            .map(|&(start, end)| {
                let mut norm = [0.0; CHANNELS];
                for &t in &terms[start as usize..end as usize] {
                    norm[channels[t as usize] as usize] += weights[t as usize];
                }
                norm
            })
            .collect();
        Corpus {
            channels,
            display,
            depth,
            weights,
            spans,
            terms,
            norms,
            negated,
        }
    }

    fn terms_of(&self, finding: usize) -> &[u32] {
        let (start, end) = self.spans[finding];
        &self.terms[start as usize..end as usize]
    }

    /// The finding's terms of one channel.
    pub(super) fn channel_terms(
        &self,
        finding: usize,
        channel: Channel,
    ) -> impl Iterator<Item = u32> + '_ {
        self.terms_of(finding)
            .iter()
            .copied()
            .filter(move |&t| self.channels[t as usize] == channel)
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

    /// Per channel, the weighted cosine of the two findings' term sets, in [0, 1]: the
    /// weight of what they share over the geometric mean of what each says.
    pub(super) fn similarity(&self, a: usize, b: usize) -> [f64; CHANNELS] {
        let mut shared = [0.0; CHANNELS];
        self.each_shared(a, b, |t| {
            shared[self.channels[t as usize] as usize] += self.weights[t as usize];
        });
        let mut out = [0.0; CHANNELS];
        for k in 0..CHANNELS {
            let norm = (self.norms[a][k] * self.norms[b][k]).sqrt();
            if norm > 0.0 {
                out[k] = shared[k] / norm;
            }
        }
        out
    }

    /// What two findings share, for a reason: code before
    /// classes and words, heaviest first within each, each shown once.
    pub(super) fn shared_terms(&self, a: usize, b: usize) -> Vec<&str> {
        let mut shared = Vec::new();
        self.each_shared(a, b, |t| {
            if self.channels[t as usize] != Channel::Title {
                shared.push(t);
            }
        });
        let rank = |t: u32| match self.channels[t as usize] {
            Channel::Code => 0,
            Channel::Class => 1,
            Channel::Word | Channel::Title => 2,
        };
        shared.sort_by(|&x, &y| {
            rank(x)
                .cmp(&rank(y))
                .then(self.weights[y as usize].total_cmp(&self.weights[x as usize]))
                .then(self.depth[y as usize].cmp(&self.depth[x as usize]))
                .then(x.cmp(&y))
        });
        let mut shown: Vec<&str> = Vec::with_capacity(shared.len());
        let mut classes = 0;
        for t in shared {
            // The most distinctive class only: the others are mostly its ancestors.
            if self.channels[t as usize] == Channel::Class {
                classes += 1;
                if classes > 1 {
                    continue;
                }
            }
            let text = self.show(t);
            let bare = text.trim_matches('`');
            if !shown
                .iter()
                .any(|s| s.trim_matches('`').eq_ignore_ascii_case(bare))
            {
                shown.push(text);
            }
        }
        shown
    }

    /// How a reason shows the term: code in backticks, classes and words as they are.
    pub(super) fn show(&self, term: u32) -> &str {
        &self.display[term as usize]
    }
}

/// How a reason shows a term of this channel (made once per term, when first seen).
fn shown(channel: Channel, text: &str) -> Box<str> {
    match channel {
        Channel::Code => format!("`{text}`").into(),
        Channel::Class | Channel::Word | Channel::Title => text.into(),
    }
}

/// A claim that something is absent or does not happen.
fn is_negated(title: &str) -> bool {
    const NEGATIONS: &[&str] = &[
        "not", "no", "never", "missing", "without", "lacks", "cannot", "isn't", "doesn't", "don't",
        "won't", "aren't", "fails",
    ];
    prose_words(title).any(|w| {
        NEGATIONS.iter().any(|n| n.eq_ignore_ascii_case(w))
            || (w.len() > 3
                && w.is_char_boundary(w.len() - 3)
                && w[w.len() - 3..].eq_ignore_ascii_case("n't"))
    })
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

/// What one lowercase word stands for, worked out once per distinct word: its word term
/// and title term (`NO_TERM` for stop words, priorities and short words), and its stem
/// (every word has one: defect-class phrases keep their stop words).
struct WordTerms {
    word: u32,
    title: u32,
    stem: Box<str>,
}

const NO_TERM: u32 = u32::MAX;

/// Interns terms and stems words, once per distinct word.
struct Builder {
    stemmer: Stemmer,
    ids: FastMap<Box<str>, u32>,
    words: FastMap<Box<str>, WordTerms>,
    /// Defect class (vocabulary index) -> its term.
    classes: FastMap<u32, u32>,
    channels: Vec<Channel>,
    display: Vec<Box<str>>,
    depth: Vec<u8>,
    key: String,
    lower: String,
    /// The finding's words stemmed, for the defect-class phrases; the classes found.
    stemmed: String,
    found: Vec<u32>,
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            stemmer: Stemmer::create(Algorithm::English),
            ids: FastMap::default(),
            words: FastMap::default(),
            classes: FastMap::default(),
            channels: Vec::new(),
            display: Vec::new(),
            depth: Vec::new(),
            key: String::new(),
            lower: String::new(),
            stemmed: String::new(),
            found: Vec::new(),
        }
    }
}

impl Builder {
    fn id(&mut self, channel: Channel, text: &str, display: &str) -> u32 {
        self.key.clear();
        self.key.push(channel.tag());
        self.key.push(':');
        self.key.push_str(text);
        if let Some(&id) = self.ids.get(self.key.as_str()) {
            return id;
        }
        let id = self.channels.len() as u32;
        self.ids.insert(self.key.as_str().into(), id);
        self.channels.push(channel);
        self.display.push(shown(channel, display));
        self.depth.push(0);
        id
    }

    fn extract(&mut self, finding: &NormalizedFinding, out: &mut Vec<u32>) {
        self.stemmed.clear();
        self.stemmed.push(' ');
        for (text, title) in [
            (finding.title.as_str(), true),
            (finding.detail.as_str(), false),
        ] {
            let text = without_boilerplate(text);
            for piece in split_code(&text) {
                match piece {
                    Piece::Code(span) => self.code_span(span, out),
                    Piece::Prose(prose) => self.prose(prose, title, out),
                }
            }
        }
        // A rule id names its class too (`py/sql-injection`).
        for word in lexicon::words(&finding.evidence.symbol) {
            self.stem_of(word);
        }
        self.defect_classes(out);
    }

    /// The word's terms, read from the cache (lowercased through a reused buffer).
    fn terms_of(&mut self, word: &str) -> &WordTerms {
        lowercase_into(word, &mut self.lower);
        if !self.words.contains_key(self.lower.as_str()) {
            let plain = self.lower.as_str();
            // Two CJK characters say as much as a short English word.
            let letters = plain.chars().count();
            let keep = (letters >= 3 || (letters == 2 && plain.chars().all(is_cjk)))
                && STOP_WORDS.binary_search(&plain).is_err()
                && !is_priority(plain);
            let stem: Box<str> = self.stemmer.stem(plain).into();
            let shown = plain.to_owned();
            let (word, title) = if keep {
                (
                    self.id(Channel::Word, &stem, &shown),
                    self.id(Channel::Title, &stem, &shown),
                )
            } else {
                (NO_TERM, NO_TERM)
            };
            self.words
                .insert(shown.into(), WordTerms { word, title, stem });
        }
        &self.words[self.lower.as_str()]
    }

    /// Adds the word's stem to the text scanned for defect classes.
    fn stem_of(&mut self, word: &str) {
        let stem = std::mem::take(&mut self.stemmed);
        let mut stemmed = stem;
        stemmed.push_str(&self.terms_of(word).stem);
        stemmed.push(' ');
        self.stemmed = stemmed;
    }

    /// The defect classes the stemmed text names, with their lineages.
    fn defect_classes(&mut self, out: &mut Vec<u32>) {
        let lexicon = lexicon::lexicon();
        self.found.clear();
        lexicon.classes_in(&self.stemmed, &mut self.found);
        self.found.sort_unstable();
        self.found.dedup();
        for index in 0..self.found.len() {
            let k = self.found[index];
            let term = match self.classes.get(&k) {
                Some(&term) => term,
                None => {
                    let class = &lexicon.classes[k as usize];
                    let term = self.id(Channel::Class, class.id, &class.shown());
                    self.depth[term as usize] = class.lineage.len().min(255) as u8;
                    self.classes.insert(k, term);
                    term
                }
            };
            out.push(term);
        }
    }

    /// The term of `text` lowercased (through a reused buffer: most lookups find it).
    fn lowered_id(&mut self, channel: Channel, text: &str) -> u32 {
        let mut lower = std::mem::take(&mut self.lower);
        lowercase_into(text, &mut lower);
        let id = self.id(channel, &lower, text);
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
            out.push(self.lowered_id(Channel::Code, base));
            return;
        }
        let mut tokens = 0;
        for token in code_tokens(span) {
            tokens += 1;
            if token.len() >= 2 {
                out.push(self.lowered_id(Channel::Code, token));
            }
            for word in lexicon::words(token) {
                self.stem_of(word);
            }
            // `float` is also the word "floats" of another bot's prose.
            if token.chars().all(|c| c.is_ascii_lowercase()) {
                let term = self.terms_of(token).word;
                if term != NO_TERM {
                    out.push(term);
                }
            }
        }
        if tokens > 1 && span.chars().count() <= 40 {
            let normal = span
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .to_lowercase();
            out.push(self.id(Channel::Code, &normal, span));
        }
    }

    /// Prose: identifier-shaped words and file names are code, the rest are stemmed words
    /// (stop words, priorities and short words dropped), of the title too when `title`.
    fn prose(&mut self, prose: &str, title: bool, out: &mut Vec<u32>) {
        for token in prose_words(prose) {
            if is_file_name(token) {
                out.push(self.lowered_id(Channel::Code, token));
                continue;
            }
            for word in token.split('.').filter(|w| !w.is_empty()) {
                if looks_like_identifier(word) {
                    out.push(self.lowered_id(Channel::Code, word));
                    for part in lexicon::words(word) {
                        self.stem_of(part);
                    }
                    continue;
                }
                if word.chars().any(is_cjk) {
                    for piece in cjk_pieces(word) {
                        self.word(piece, title, out);
                    }
                } else {
                    self.word(word, title, out);
                }
            }
        }
    }

    /// A prose word: its stem for the defect-class scan, its word (and title) term.
    fn word(&mut self, word: &str, title: bool, out: &mut Vec<u32>) {
        let terms = self.terms_of(word);
        let (word_term, title_term) = (terms.word, terms.title);
        self.stemmed.push_str(&self.words[self.lower.as_str()].stem);
        self.stemmed.push(' ');
        if word_term != NO_TERM {
            out.push(word_term);
            if title {
                out.push(title_term);
            }
        }
    }
}

/// Han, kana and Hangul: scripts written without spaces between words (Korean spaces
/// phrases, not words), where a "word" of prose is a whole clause.
fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30ff}' // hiragana, katakana
        | '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}' // CJK ideographs
        | '\u{ac00}'..='\u{d7af}') // Hangul syllables
}

/// A word with CJK in it as terms: each run of CJK characters as its overlapping character
/// pairs (the usual unit for matching text without word breaks), a lone character as
/// itself, and the runs of other characters between them whole.
fn cjk_pieces(word: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let end_of = |k: usize| chars.get(k).map_or(word.len(), |&(at, _)| at);
    let mut pieces = Vec::new();
    let mut k = 0;
    while k < chars.len() {
        let cjk = is_cjk(chars[k].1);
        let run_end = (k..chars.len())
            .find(|&j| is_cjk(chars[j].1) != cjk)
            .unwrap_or(chars.len());
        if !cjk || run_end - k == 1 {
            pieces.push(&word[chars[k].0..end_of(run_end)]);
        } else {
            for j in k..run_end - 1 {
                pieces.push(&word[chars[j].0..end_of(j + 2)]);
            }
        }
        k = run_end;
    }
    pieces
}

/// `text` without the bots' boilerplate phrases (borrowed when it has none: one scan).
pub(crate) fn without_boilerplate(text: &str) -> std::borrow::Cow<'_, str> {
    static PHRASES: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    let phrases = PHRASES.get_or_init(|| {
        aho_corasick::AhoCorasick::builder()
            .kind(Some(aho_corasick::AhoCorasickKind::DFA))
            .build(BOILERPLATE)
            .expect("a small fixed list of phrases")
    });
    if phrases.find(text).is_none() {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(phrases.replace_all(text, &[" "; BOILERPLATE.len()]))
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
        && extension.len() <= 6
        && FILE_EXTENSIONS
            .iter()
            .any(|known| known.eq_ignore_ascii_case(extension))
        && stem
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

#[cfg(test)]
mod tests;
