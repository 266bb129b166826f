//! The fingerprint recipe, version 1 (docs/identity.md). Every member finding of a cluster
//! gets up to two keys: one from the bot's own stable id (when it has one) and one from its
//! content (bot, file, taxonomy class, title terms). Never from line numbers: a push that
//! moves a finding keeps its keys. A cluster's fingerprint is `rc-` followed by one key.

use sha2::{Digest, Sha256};

use crate::model::NormalizedFinding;

/// Bumped whenever a key would come out differently for the same finding.
pub const RECIPE_VERSION: u32 = 1;

pub const PREFIX: &str = "rc-";

/// Characters of a key (40 bits in base32).
pub const KEY_CHARS: usize = 8;

/// Crockford's base32 alphabet, lowercase: no `i`, `l`, `o` or `u` to misread or mistype.
const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

/// Hashed before any key, so that a new recipe cannot reproduce an old one's keys.
const DOMAIN: &[u8] = b"review-consensus fingerprint v1";

/// The identity keys of one member finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberKeys {
    /// From the bot's own stable id: survives rewording and re-posting.
    pub stable: Option<String>,
    /// From the content: survives line moves.
    pub content: String,
}

impl MemberKeys {
    pub fn of(finding: &NormalizedFinding) -> MemberKeys {
        let stable = finding
            .stable_id
            .as_deref()
            .map(str::trim)
            .filter(|id| !id.is_empty())
            .map(|id| key(&["id", &finding.bot, id]));
        let content = key(&[
            "content",
            &finding.bot,
            &normalise_path(&finding.evidence.file),
            &finding.category.trim().to_lowercase(),
            &content_terms(&finding.title, &finding.evidence.symbol),
        ]);
        MemberKeys { stable, content }
    }

    /// The key the fingerprint is minted from when nothing earlier is known: the stable
    /// one when there is one.
    pub fn primary(&self) -> &str {
        self.stable.as_deref().unwrap_or(&self.content)
    }
}

/// `rc-` + a key.
pub fn from_key(key: &str) -> String {
    format!("{PREFIX}{key}")
}

/// The key of `parts` (separated so that `["ab", "c"]` and `["a", "bc"]` differ).
pub fn key(parts: &[&str]) -> String {
    let mut hash = Sha256::new();
    hash.update(DOMAIN);
    for part in parts {
        hash.update([0x1f]);
        hash.update(part.as_bytes());
    }
    let digest = hash.finalize();
    let mut bits = digest[..5]
        .iter()
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
    let mut out = [0u8; KEY_CHARS];
    for slot in out.iter_mut().rev() {
        *slot = ALPHABET[(bits & 31) as usize];
        bits >>= 5;
    }
    out.iter().map(|&b| char::from(b)).collect()
}

/// A fingerprint as a person typed it: case ignored, and Crockford's look-alikes (`o` for
/// zero, `i` or `l` for one) read as what they look like. `None` when it is not one.
pub fn parse(text: &str) -> Option<String> {
    let text = text.trim();
    let (prefix, body) = text.split_at_checked(PREFIX.len())?;
    if !prefix.eq_ignore_ascii_case(PREFIX) || body.chars().count() != KEY_CHARS {
        return None;
    }
    let mut key = String::with_capacity(KEY_CHARS);
    for c in body.chars() {
        let c = match c.to_ascii_lowercase() {
            'o' => '0',
            'i' | 'l' => '1',
            c => c,
        };
        if !ALPHABET.contains(&(c as u8)) || !c.is_ascii() {
            return None;
        }
        key.push(c);
    }
    Some(from_key(&key))
}

/// Repository paths compare without `./`, leading slashes or Windows separators.
fn normalise_path(path: &str) -> String {
    let path = path.trim().replace('\\', "/");
    let mut rest = path.as_str();
    loop {
        let trimmed = rest.trim_start_matches('/');
        let trimmed = trimmed.strip_prefix("./").unwrap_or(trimmed);
        if trimmed == rest {
            return rest.to_owned();
        }
        rest = trimmed;
    }
}

/// Words that say nothing about which issue a title names (sorted for binary search).
const STOP_WORDS: &[&str] = &[
    "about", "after", "all", "also", "and", "any", "are", "been", "before", "being", "but", "can",
    "could", "did", "does", "for", "from", "had", "has", "have", "here", "how", "into", "its",
    "line", "lines", "may", "might", "more", "must", "not", "off", "only", "onto", "other", "our",
    "out", "over", "per", "should", "some", "such", "than", "that", "the", "their", "them", "then",
    "there", "these", "they", "this", "those", "under", "very", "via", "was", "were", "what",
    "when", "where", "which", "while", "who", "why", "will", "with", "within", "without", "would",
    "you", "your",
];

/// The title's terms and the finding's symbol, sorted and distinct: lowercase words that
/// start with a letter, at least 3 characters, minus stop words. Numbers and line anchors
/// (`L42`) quoted in titles, and the word `line`, never count.
pub fn content_terms(title: &str, symbol: &str) -> String {
    let lower = title.to_lowercase();
    let mut terms: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.chars().next().is_some_and(char::is_alphabetic))
        .filter(|w| w.chars().count() >= 3 && STOP_WORDS.binary_search(w).is_err())
        .filter(|w| !is_line_reference(w))
        .collect();
    let symbol = symbol.trim().to_lowercase();
    if !symbol.is_empty() {
        terms.push(&symbol);
    }
    terms.sort_unstable();
    terms.dedup();
    terms.join(" ")
}

/// `l42`: GitHub's line anchors quoted in a title.
fn is_line_reference(word: &str) -> bool {
    word.strip_prefix('l')
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Severity;
    use proptest::prelude::*;

    fn finding(title: &str, line: Option<u32>) -> NormalizedFinding {
        NormalizedFinding::new("coderabbit", "c1", Severity::High, "security", title)
            .at("app/db/queries.py", line)
    }

    #[test]
    fn stop_words_are_sorted() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn keys_are_eight_crockford_characters_and_known_values() {
        let k = key(&["content", "a"]);
        assert_eq!(k.len(), KEY_CHARS);
        assert!(k.bytes().all(|b| ALPHABET.contains(&b)));
        // Pinned: a changed value means the recipe changed and RECIPE_VERSION must move.
        assert_eq!(
            MemberKeys::of(&finding("SQL injection in lookup", Some(39))).content,
            "1pksm0hp"
        );
        assert_ne!(key(&["ab", "c"]), key(&["a", "bc"]));
    }

    #[test]
    fn a_stable_id_is_the_primary_key_and_content_is_kept_beside_it() {
        let mut f = finding("Guard the null row", Some(3));
        assert_eq!(MemberKeys::of(&f).primary(), MemberKeys::of(&f).content);
        f.stable_id = Some("cr-comment:v1:abc".into());
        let keys = MemberKeys::of(&f);
        assert_eq!(keys.primary(), keys.stable.as_deref().unwrap());
        // Rewording keeps the stable key, not the content key.
        f.title = "Guard against a null row".into();
        let reworded = MemberKeys::of(&f);
        assert_eq!(reworded.stable, keys.stable);
        assert_ne!(reworded.content, keys.content);
    }

    #[test]
    fn content_ignores_numbers_case_order_and_path_spelling() {
        assert_eq!(
            content_terms("Unchecked `user_id` at line 42 (L42-50)", ""),
            "unchecked user_id"
        );
        let a = MemberKeys::of(&finding("SQL injection in lookup", Some(39)));
        let mut moved = finding("sql INJECTION in lookup (line 57)", Some(57));
        moved.evidence.file = "./app/db/queries.py".into();
        assert_eq!(a, MemberKeys::of(&moved));
        let mut other_file = finding("SQL injection in lookup", Some(39));
        other_file.evidence.file = "app/db/other.py".into();
        assert_ne!(a.content, MemberKeys::of(&other_file).content);
        let mut other_class = finding("SQL injection in lookup", Some(39));
        other_class.category = "bug".into();
        assert_ne!(a.content, MemberKeys::of(&other_class).content);
    }

    #[test]
    fn typed_fingerprints_are_read_forgivingly() {
        assert_eq!(parse("rc-jvyr5cb6").as_deref(), Some("rc-jvyr5cb6"));
        assert_eq!(parse(" RC-JVYR5CB6 ").as_deref(), Some("rc-jvyr5cb6"));
        assert_eq!(parse("rc-OIl00000").as_deref(), Some("rc-01100000"));
        for bad in [
            "rc-jvyr5cb",
            "rc-jvyr5cb66",
            "1pksm0hp",
            "rc-jvyr5cu6",
            "rc-jvyr5cé6",
            "",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    proptest! {
        /// A push that moves a finding (any line, any range) keeps every key.
        #[test]
        fn keys_survive_line_moves(
            line in proptest::option::of(1u32..100_000),
            moved in proptest::option::of(1u32..100_000),
            span in 0u32..50,
            title in "[A-Za-z `_]{1,40}",
            quoted in (0u32..100_000, 0u32..100_000),
        ) {
            let mut before = finding(&format!("{title} at line {}", quoted.0), line);
            before.evidence.end_line = line.map(|l| l + span);
            let mut after = before.clone();
            after.title = format!("{title} (line {})", quoted.1);
            after.evidence.line = moved;
            after.evidence.end_line = None;
            after.provenance.original_line = line;
            prop_assert_eq!(MemberKeys::of(&before), MemberKeys::of(&after));
        }

        #[test]
        fn minted_fingerprints_parse_back(parts in proptest::collection::vec(".*", 1..4)) {
            let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
            let fp = from_key(&key(&parts));
            prop_assert_eq!(parse(&fp), Some(fp.clone()));
        }
    }
}
