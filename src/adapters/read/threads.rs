//! Review threads: which inline comment belongs to which thread, whether the thread is
//! resolved or outdated (GraphQL, plus REST's `line: null`), and the replies in it.

use std::collections::HashMap;

use crate::adapters::read::common::Identity;
use crate::adapters::read::markdown;
use crate::api::{PrSnapshot, ReviewComment};

/// Phrases in a reply that dispute a finding wherever they stand (matched at a word start,
/// case-insensitive, in the author's own prose: quotes and code are masked first). Bare
/// "intended" is too loose ("the intended fix is..."): only phrases that say the code does
/// what was meant.
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

/// Phrases that say the bot is mistaken in other words. They can also agree ("Good catch,
/// this is wrong"), so they count only when the reply does not open by agreeing
/// (`AGREEMENT`).
const CONTESTING_PHRASES: &[&str] = &[
    "this is wrong",
    "that is wrong",
    "that's wrong",
    "this is incorrect",
    "that is incorrect",
    "that's incorrect",
    "this is not correct",
    "that's not correct",
    "that's not true",
    "that is not true",
    "incorrect, because",
    "incorrect because",
    "wrong, because",
    "premise is wrong",
    "premise is incorrect",
    "suggestion is wrong",
    "suggestion is incorrect",
    "claim is wrong",
    "claim is incorrect",
    "finding is wrong",
    "finding is incorrect",
    "analysis is wrong",
    "comment is wrong",
    "you're wrong",
    "you are wrong",
    "you're mistaken",
    "you are mistaken",
    "is mistaken",
    "not applicable",
    "doesn't apply",
    "does not apply",
    "not relevant here",
    "intentional",
    "on purpose",
    "not changing this",
    "won't change",
    "will not change",
];

/// Words that contest a finding when they open a sentence and a comma, colon, dash or
/// "because" follows ("Incorrect, because ...", "Wrong: the lock is held").
const CONTESTING_OPENERS: &[&str] = &[
    "wrong",
    "incorrect",
    "not applicable",
    "not true",
    "not correct",
    "nope",
];

/// Whole words that, in the reply's first sentence, say it agrees with the bot.
const AGREEMENT: &[&str] = &[
    "good catch",
    "nice catch",
    "great catch",
    "fixed",
    "fixing",
    "will fix",
    "done",
    "agreed",
    "agree",
    "confirmed",
    "right",
    "thanks",
    "thank you",
    "yes",
    "indeed",
    "addressed",
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
/// design") does not count, nor does a contesting phrase in a reply that opens by agreeing.
/// The reply opens at its first visible line: a hidden line (an HTML comment, a link
/// reference definition) before "Good catch" does not hide the agreement.
pub fn dispute_phrase(body: &str) -> Option<&'static str> {
    let body = markdown::normalize_newlines(body);
    let prose = markdown::mask_quotes_and_code(markdown::visible_start(&body));
    // Every offset below indexes `text` itself.
    let text = prose.to_lowercase().replace(['\u{2019}', '\u{2018}'], "'");
    let asserted = |at: usize, end: usize| !in_question(&text, end) && !negated(&text, at);
    let found = |phrases: &[&'static str]| {
        phrases.iter().copied().find(|phrase| {
            word_occurrences(&text, phrase, false).any(|(at, end)| asserted(at, end))
        })
    };
    if let Some(phrase) = found(DISPUTE_PHRASES) {
        return Some(phrase);
    }
    if opens_by_agreeing(&text) {
        return None;
    }
    found(CONTESTING_PHRASES).or_else(|| {
        CONTESTING_OPENERS.iter().copied().find(|opener| {
            word_occurrences(&text, opener, true).any(|(at, end)| {
                opens_sentence(&text, at) && contest_follows(&text[end..]) && asserted(at, end)
            })
        })
    })
}

/// Where `phrase` occurs at a word start (and, with `whole`, ending a word too).
fn word_occurrences<'t>(
    text: &'t str,
    phrase: &'t str,
    whole: bool,
) -> impl Iterator<Item = (usize, usize)> + 't {
    text.match_indices(phrase).filter_map(move |(at, _)| {
        let end = at + phrase.len();
        let starts = text[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric());
        let ends = !whole
            || text[end..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric());
        (starts && ends).then_some((at, end))
    })
}

/// The reply's first sentence agrees ("Good catch, this is wrong", "Fixed: ...").
fn opens_by_agreeing(text: &str) -> bool {
    let start = text.len() - text.trim_start().len();
    let first = &text[start..];
    let end = first
        .char_indices()
        .find(|(_, c)| is_terminator(*c))
        .map_or(first.len(), |(i, _)| i);
    let sentence = &first[..end];
    AGREEMENT
        .iter()
        .any(|word| word_occurrences(sentence, word, true).any(|(at, _)| !negated(sentence, at)))
}

/// Only whitespace and punctuation stand between the sentence start and `at`.
fn opens_sentence(text: &str, at: usize) -> bool {
    text[..at]
        .chars()
        .rev()
        .take_while(|c| !is_terminator(*c))
        .all(|c| !c.is_alphanumeric())
}

/// After an opener: the end of the sentence, a comma, colon, semicolon or dash, or
/// "because" ("Wrong.", "Incorrect, because ...", not "Wrong file, moved it").
fn contest_follows(rest: &str) -> bool {
    let rest = rest.trim_start_matches(' ');
    rest.is_empty()
        || rest.starts_with(['.', '!', '\n', ',', ':', ';', '-', '\u{2014}', '\u{2013}'])
        || rest.starts_with("because")
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

/// One of the three words before `at`, within its clause, is a negation ("doesn't work as
/// intended"; not the interjection in "No, this is wrong").
fn negated(text: &str, at: usize) -> bool {
    let clause_start = text[..at]
        .char_indices()
        .rev()
        .find(|(_, c)| is_terminator(*c) || matches!(c, ',' | ';' | ':' | '\u{2014}'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    text[clause_start..at]
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
    fn a_hidden_first_line_does_not_hide_the_agreement() {
        for hidden in [
            "[//]: # (reply-helper)",
            "<!-- reply-helper -->",
            "\n[x]: #",
        ] {
            let reply = format!("{hidden}\nGood catch, this is wrong; fixed in abc123.");
            assert_eq!(dispute_phrase(&reply), None, "{reply:?}");
            let contest = format!("{hidden}\nThis is wrong: the range is inclusive.");
            assert_eq!(
                dispute_phrase(&contest),
                Some("this is wrong"),
                "{contest:?}"
            );
        }
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
    fn other_words_for_mistaken_contest() {
        for (reply, phrase) in [
            ("This is wrong: the lock is held by the caller.", "this is wrong"),
            ("Incorrect, because `parse` never returns None here.", "incorrect, because"),
            ("Incorrect: the loop exits first.", "incorrect"),
            ("incorrect because the cache is per request", "incorrect because"),
            ("Not applicable here: this module only runs in tests.", "not applicable"),
            ("Wrong.", "wrong"),
            ("No, this is wrong. The value is clamped upstream.", "this is wrong"),
            ("This is intentional; the retry is idempotent.", "intentional"),
            (
                "I'm not changing this one \u{2014} the premise is wrong, and the suggested direction would bring back a hole.",
                "premise is wrong",
            ),
            ("The suggestion doesn't apply to generated code.", "doesn't apply"),
        ] {
            assert_eq!(dispute_phrase(reply), Some(phrase), "{reply}");
        }
    }

    #[test]
    fn agreeing_quoting_or_asking_in_those_words_does_not_contest() {
        for reply in [
            "Good catch, this is wrong. Fixing.",
            "Fixed. The old check was wrong, because it ignored the sign.",
            "Right, and my earlier guard did not really work either; that's wrong too.",
            "Yes, this is incorrect; updated in abc123.",
            "Is this wrong? Looking.",
            "Isn't this intentional?",
            "> This is wrong: `amount` can be negative.\n\nFixed in 3f2a.",
            "It's not intentional, will fix.",
            "Wrong file, moved the helper.",
            "`incorrect, because` is the log message we match on.",
            "The wrong branch was merged; rebased.",
        ] {
            assert_eq!(dispute_phrase(reply), None, "{reply}");
        }
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
