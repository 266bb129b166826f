//! Review threads: which inline comment belongs to which thread, whether the thread is
//! resolved or outdated (GraphQL, plus REST's `line: null`), and the replies in it.

use std::collections::HashMap;

use crate::adapters::read::common::Identity;
use crate::adapters::read::markdown;
use crate::api::{PrSnapshot, ReviewComment};

/// Phrases in a reply that dispute a finding (matched at a word start, case-insensitive,
/// in the author's own prose: quotes and code are masked first). Bare "intended" is too
/// loose ("the intended fix is..."): only phrases that say the code does what was meant.
const DISPUTE_PHRASES: &[&str] = &[
    "false positive",
    "not an issue",
    "won't fix",
    "wont fix",
    "not a bug",
    "by design",
    "as intended",
    "intended behavior",
    "intended behaviour",
    "this is intended",
    "that is intended",
    "that's intended",
    "it's intended",
    "disagree",
];

/// Words that, shortly before a phrase, turn it around ("doesn't work as intended").
const NEGATIONS: &[&str] = &["not", "never", "no"];

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ThreadState {
    pub resolved: bool,
    pub outdated: bool,
}

pub struct ThreadIndex<'a> {
    head: &'a str,
    comments: HashMap<u64, &'a ReviewComment>,
    /// GraphQL state per REST comment id.
    graphql: HashMap<u64, ThreadState>,
    /// Root comment id -> replies.
    replies: HashMap<u64, Vec<&'a ReviewComment>>,
}

impl<'a> ThreadIndex<'a> {
    pub fn new(snapshot: &'a PrSnapshot) -> Self {
        let comments: HashMap<u64, &ReviewComment> =
            snapshot.review_comments.iter().map(|c| (c.id, c)).collect();
        let mut graphql = HashMap::new();
        let mut graphql_root: HashMap<u64, u64> = HashMap::new();
        for thread in snapshot.review_threads.iter().flatten() {
            let state = ThreadState {
                resolved: thread.is_resolved,
                outdated: thread.is_outdated,
            };
            let ids: Vec<u64> = thread
                .comments
                .nodes
                .iter()
                .filter_map(|n| n.database_id)
                .collect();
            for id in &ids {
                graphql.insert(*id, state);
                if let Some(first) = ids.first() {
                    graphql_root.insert(*id, *first);
                }
            }
        }
        let mut index = ThreadIndex {
            head: snapshot.head_sha(),
            comments,
            graphql,
            replies: HashMap::new(),
        };
        for comment in &snapshot.review_comments {
            let root = index.root_of(comment).or_else(|| {
                graphql_root
                    .get(&comment.id)
                    .copied()
                    .filter(|r| *r != comment.id)
            });
            if let Some(root) = root {
                index.replies.entry(root).or_default().push(comment);
            }
        }
        index
    }

    /// The top-level comment a reply answers (REST replies point at the root; follow a few
    /// hops in case one points at another reply).
    fn root_of(&self, comment: &ReviewComment) -> Option<u64> {
        let mut current = comment.in_reply_to_id?;
        for _ in 0..16 {
            match self.comments.get(&current).and_then(|c| c.in_reply_to_id) {
                Some(parent) if parent != current => current = parent,
                _ => break,
            }
        }
        Some(current)
    }

    /// Thread state of the comment a finding came from (default: open and current).
    /// GraphQL's `isOutdated` decides when the thread is known; otherwise REST's sign of an
    /// outdated comment: `line: null` with `original_line` set, on a commit other than the
    /// head (Sourcery often sends `line: null` on the head commit itself).
    pub fn state(&self, comment_id: Option<u64>) -> ThreadState {
        let Some(id) = comment_id else {
            return ThreadState::default();
        };
        if let Some(state) = self.graphql.get(&id) {
            return *state;
        }
        let mut state = ThreadState::default();
        if let Some(comment) = self.comments.get(&id) {
            let file_level = comment.subject_type.as_deref() == Some("file");
            let on_head = !self.head.is_empty() && comment.commit_id.as_deref() == Some(self.head);
            if !file_level && comment.line.is_none() && comment.original_line.is_some() && !on_head
            {
                state.outdated = true;
            }
        }
        state
    }

    /// Replies to `comment_id` by anyone but the bot itself that dispute it:
    /// (who, the phrase recognised).
    pub fn disputes(&self, comment_id: u64, bot: &Identity) -> Vec<(String, String)> {
        let Some(replies) = self.replies.get(&comment_id) else {
            return Vec::new();
        };
        replies
            .iter()
            .filter(|r| !bot.is_same_account(r.user.as_ref()))
            .filter_map(|r| {
                let phrase = dispute_phrase(&r.body)?;
                let by = r
                    .user
                    .as_ref()
                    .map(|u| u.login.clone())
                    .filter(|l| !l.is_empty())
                    .unwrap_or_else(|| "ghost".to_owned());
                Some((by, phrase.to_owned()))
            })
            .collect()
    }
}

/// The first dispute phrase in a reply, if any. Only the replier's own prose counts: `>`
/// quoted text (often the bot's finding) and code are masked; a phrase in a question ("is
/// this a false positive?") or after a negation ("doesn't work as intended", "not by
/// design") does not count.
pub fn dispute_phrase(body: &str) -> Option<&'static str> {
    let prose = markdown::mask_quotes_and_code(&markdown::normalize_newlines(body));
    // Every offset below indexes `text` itself.
    let text = prose.to_lowercase().replace(['\u{2019}', '\u{2018}'], "'");
    DISPUTE_PHRASES.iter().copied().find(|phrase| {
        text.match_indices(phrase).any(|(at, _)| {
            let end = at + phrase.len();
            let word_start = text[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric());
            word_start && !in_question(&text, end) && !negated(&text, at)
        })
    })
}

/// Sentence terminators (a line break ends a sentence too: replies are often terse lines).
fn is_terminator(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '\n')
}

/// The sentence running on from `end` ends with a question mark (a '.' ends a sentence
/// only before whitespace or the end: "v1.2" does not).
fn in_question(text: &str, end: usize) -> bool {
    let rest = &text[end..];
    let mut chars = rest.chars().peekable();
    while let Some(c) = chars.next() {
        let ends = match c {
            '.' => chars.peek().is_none_or(|n| n.is_whitespace()),
            c => is_terminator(c),
        };
        if ends {
            return c == '?';
        }
    }
    false
}

/// One of the three words before `at`, within its sentence, is a negation.
fn negated(text: &str, at: usize) -> bool {
    let sentence_start = text[..at]
        .char_indices()
        .rev()
        .find(|(_, c)| is_terminator(*c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    text[sentence_start..at]
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .rev()
        .take(3)
        .any(|w| NEGATIONS.contains(&w) || w.ends_with("n't"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases() {
        assert_eq!(
            dispute_phrase("This is a False Positive: validated."),
            Some("false positive")
        );
        assert_eq!(
            dispute_phrase("Won’t fix, tracked in #9"),
            Some("won't fix")
        );
        assert_eq!(dispute_phrase("works as intended"), Some("as intended"));
        assert_eq!(
            dispute_phrase("This is intended."),
            Some("this is intended")
        );
        assert_eq!(
            dispute_phrase("That's the intended behaviour here"),
            Some("intended behaviour")
        );
        assert_eq!(dispute_phrase("this was unintended"), None);
        assert_eq!(dispute_phrase("not intended, will fix"), None);
        assert_eq!(dispute_phrase("Good catch, fixing"), None);
    }

    #[test]
    fn bare_intended_is_not_a_dispute() {
        assert_eq!(
            dispute_phrase("The intended fix is to clamp the value; doing it now."),
            None
        );
        assert_eq!(dispute_phrase("It doesn't work as intended, fixing."), None);
        assert_eq!(dispute_phrase("Agreed, not by design. Fixing."), None);
    }

    #[test]
    fn quoted_bot_text_and_code_do_not_count() {
        let quoted = "> This may be a false positive in the linter, but the intended behavior \
is unclear and I disagree with the cast.\n\nGood catch, fixed in abc123.";
        assert_eq!(dispute_phrase(quoted), None);
        let lazy = "> Possibly by design, but\nthe cast truncates.\n\nFixed.";
        assert_eq!(
            dispute_phrase(lazy),
            None,
            "a lazy continuation stays quoted"
        );
        let code = "Fixed:\n\n```py\nassert ok, \"false positive\"\n```\nand `# disagree` removed.";
        assert_eq!(dispute_phrase(code), None);
        assert_eq!(
            dispute_phrase("> Off by one.\n\nFalse positive: the range is inclusive."),
            Some("false positive")
        );
    }

    #[test]
    fn questions_do_not_count() {
        assert_eq!(dispute_phrase("Is this a false positive?"), None);
        assert_eq!(dispute_phrase("Hmm, is this by design? Checking."), None);
        assert_eq!(
            dispute_phrase("Is this a false positive? No: fixing it."),
            None
        );
        assert_eq!(dispute_phrase("A false positive since v1.2?"), None);
        assert_eq!(
            dispute_phrase("Why flag this? It is by design."),
            Some("by design")
        );
    }
}
