//! Review threads: which inline comment belongs to which thread, whether the thread is
//! resolved or outdated (GraphQL, plus REST's `line: null`), and the replies in it.

use std::collections::HashMap;

use crate::adapters::common::Identity;
use crate::api::{PrSnapshot, ReviewComment};

/// Phrases in a reply that dispute a finding (matched at a word start, case-insensitive).
const DISPUTE_PHRASES: &[&str] = &[
    "false positive",
    "not an issue",
    "won't fix",
    "wont fix",
    "not a bug",
    "by design",
    "intended",
    "disagree",
];

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

/// The first dispute phrase in a reply, if any ("not intended" / "unintended" do not count).
pub fn dispute_phrase(body: &str) -> Option<&'static str> {
    let text = body.to_lowercase().replace(['\u{2019}', '\u{2018}'], "'");
    DISPUTE_PHRASES.iter().copied().find(|phrase| {
        text.match_indices(phrase).any(|(at, _)| {
            let before = &text[..at];
            let word_start = before
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric());
            word_start && !(*phrase == "intended" && before.trim_end().ends_with("not"))
        })
    })
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
        assert_eq!(dispute_phrase("works as intended"), Some("intended"));
        assert_eq!(dispute_phrase("this was unintended"), None);
        assert_eq!(dispute_phrase("not intended, will fix"), None);
        assert_eq!(dispute_phrase("Good catch, fixing"), None);
    }
}
