//! Pieces every adapter uses: who a bot is, where an inline comment points, provenance,
//! coverage bookkeeping and category resolution on prose.

use crate::adapters::read::markdown;
use crate::adapters::read::taxonomy::{self, NativeCategory};
use crate::api::{ReviewComment, User};
use crate::model::{Category, CategorySource, Coverage, LineRange, Provenance};

/// Longest `detail` kept on a finding (characters).
pub const DETAIL_CHARS: usize = 400;

/// Longest title kept on a finding (characters); `extract` enforces it for every adapter.
pub const TITLE_CHARS: usize = 240;

/// The accounts of one source: logins (compared case-insensitively, with or without the
/// `[bot]` suffix, so the GraphQL form matches too) and known user ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    logins: Vec<String>,
    ids: Vec<u64>,
}

fn bare_login(login: &str) -> String {
    let lower = login.trim().to_lowercase();
    lower.strip_suffix("[bot]").unwrap_or(&lower).to_owned()
}

impl Identity {
    pub fn new(logins: &[String], ids: &[u64]) -> Self {
        Identity {
            logins: logins.iter().map(|l| bare_login(l)).collect(),
            ids: ids.to_vec(),
        }
    }

    /// The login names this source (for attributing unreadable objects).
    pub fn matches_login(&self, login: &str) -> bool {
        let login = bare_login(login);
        self.logins.contains(&login)
    }

    /// The account is this bot: a `Bot` account with one of the logins or ids. A human
    /// account with a bot's login never matches.
    pub fn matches(&self, user: Option<&User>) -> bool {
        user.is_some_and(|u| {
            u.is_bot() && (self.ids.contains(&u.id) || self.matches_login(&u.login))
        })
    }

    /// The account is this bot, whatever its type (to tell the bot's own replies apart).
    pub fn is_same_account(&self, user: Option<&User>) -> bool {
        user.is_some_and(|u| {
            (u.id != 0 && self.ids.contains(&u.id)) || self.matches_login(&u.login)
        })
    }
}

/// Our own sticky comment (never a finding, whoever posted it).
pub fn is_own_sticky(body: &str) -> bool {
    body.contains("<!-- review-bot-ack")
}

/// Where an inline review comment points on the head side.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Anchor {
    pub file: String,
    /// Start of the range (`start_line` or `line`); `None` for file-level, base-side or
    /// unanchored comments.
    pub line: Option<u32>,
    pub end_line: Option<u32>,
    /// `line` is null but `original_line` is set: the lines are the original ones, on
    /// `commit` (usually outdated; `extract` decides with the thread state and the head).
    pub outdated: bool,
    pub commit: Option<String>,
    pub original_line: Option<u32>,
}

/// The anchor of an inline comment. Returns `None` when the comment has no path (unreadable).
pub fn anchor(comment: &ReviewComment) -> Option<Anchor> {
    let file = comment
        .path
        .as_deref()
        .filter(|p| !p.trim().is_empty())?
        .to_owned();
    let file_level = comment.subject_type.as_deref() == Some("file");
    let left = |side: &Option<String>| side.as_deref() == Some("LEFT");
    let mut anchor = Anchor {
        file,
        original_line: comment.original_line,
        commit: comment.commit_id.clone(),
        ..Anchor::default()
    };
    if file_level {
        return Some(anchor);
    }
    match (comment.line, comment.original_line) {
        (Some(line), _) => {
            // A base-side (LEFT) line numbers the old file, not the head: keep the path only.
            if !left(&comment.side) {
                let start = comment.start_line.filter(|_| !left(&comment.start_side));
                anchor.line = Some(start.filter(|s| *s <= line).unwrap_or(line));
                anchor.end_line = Some(line);
            }
        }
        (None, Some(original)) => {
            anchor.outdated = true;
            anchor.commit = comment
                .original_commit_id
                .clone()
                .or_else(|| comment.commit_id.clone());
            if !left(&comment.side) {
                let start = comment.original_start_line.filter(|s| *s <= original);
                anchor.line = Some(start.unwrap_or(original));
                anchor.end_line = Some(original);
            }
        }
        (None, None) => {}
    }
    Some(anchor)
}

/// Provenance of a finding taken from an inline comment.
pub fn provenance(
    comment: &ReviewComment,
    anchor: &Anchor,
    category_source: CategorySource,
) -> Provenance {
    Provenance {
        comment_id: Some(comment.id),
        url: comment.html_url.clone(),
        review_id: comment.pull_request_review_id,
        commit: anchor.commit.clone(),
        original_line: comment.original_line,
        category_source: Some(category_source),
    }
}

/// Resolve a category from a finding's title and its explanation (Markdown; code, HTML and
/// `<details>` are removed before the keyword pass).
pub fn category_for(
    native: NativeCategory,
    path: &str,
    title: &str,
    explanation_markdown: &str,
) -> (Category, CategorySource) {
    let visible = markdown::strip_hidden(explanation_markdown);
    let first = markdown::paragraphs(&visible, false)
        .into_iter()
        .next()
        .unwrap_or_default();
    let text = markdown::keyword_text(title, &first);
    taxonomy::resolve(native, path, &text)
}

/// `detail` of a finding: the first paragraphs of visible prose (code, HTML and
/// `<details>` removed) as plain text, shortened to `DETAIL_CHARS`.
pub fn detail_from(explanation_markdown: &str) -> String {
    let visible = markdown::strip_hidden(explanation_markdown);
    let mut detail = String::new();
    for paragraph in markdown::paragraphs(&visible, true) {
        if detail.chars().count() >= DETAIL_CHARS / 2 {
            break;
        }
        if !detail.is_empty() {
            detail.push(' ');
        }
        detail.push_str(&paragraph);
    }
    markdown::shorten(&detail, DETAIL_CHARS)
}

/// `detail` when the title is the explanation's first sentence (prose-only bots): the
/// explanation without that sentence repeated.
pub fn detail_after_title(explanation_markdown: &str, title: &str) -> String {
    let detail = detail_from(explanation_markdown);
    match detail.strip_prefix(title.trim_end_matches('…')) {
        Some(rest) if !title.ends_with('…') => rest.trim_start().to_owned(),
        _ => detail,
    }
}

/// Which commits a bot reviewed, and whether it only declined: its coverage of the head.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Activity {
    head: String,
    reviewed_head: bool,
    reviewed_older: bool,
    declined: bool,
}

impl Activity {
    pub fn new(head_sha: &str) -> Self {
        Activity {
            head: head_sha.to_owned(),
            ..Activity::default()
        }
    }

    /// The bot reviewed `commit` (a review, an inline comment, an analysis). An unknown
    /// commit or unknown head counts as the head, and so does an abbreviated SHA (at least 7
    /// characters) of the head: bots name commits by short SHA in their bodies.
    pub fn reviewed(&mut self, commit: Option<&str>) {
        match commit {
            Some(c) if !self.head.is_empty() && !c.is_empty() && !is_sha_of(c, &self.head) => {
                self.reviewed_older = true;
            }
            _ => self.reviewed_head = true,
        }
    }

    /// The bot posted a rate-limit, budget, paused or skip notice.
    pub fn declined(&mut self) {
        self.declined = true;
    }

    /// Reviewed (head) > stale (older commits only) > declined (notices only) > absent.
    pub fn coverage(&self) -> Coverage {
        if self.reviewed_head {
            Coverage::Reviewed
        } else if self.reviewed_older {
            Coverage::Stale
        } else if self.declined {
            Coverage::Declined
        } else {
            Coverage::Absent
        }
    }
}

/// `commit` names `full`: the same SHA, or an abbreviation of it (7+ characters).
fn is_sha_of(commit: &str, full: &str) -> bool {
    commit == full || (commit.len() >= 7 && full.len() > commit.len() && full.starts_with(commit))
}

/// Line ranges written as `812-858, 860-914` or `241` (CodeRabbit's "Also applies to:"):
/// every number or `start-end` pair, in order; anything else is skipped.
pub fn line_ranges(text: &str) -> Vec<LineRange> {
    text.split([',', ' ', ';'])
        .filter_map(|part| {
            let part = part.trim().trim_matches(|c: char| !c.is_ascii_digit());
            let (start, end) = part.split_once(['-', '–']).unwrap_or((part, part));
            Some(LineRange::new(
                start.trim().parse().ok()?,
                end.trim().parse().ok()?,
            ))
        })
        .collect()
}

/// Other lines of the same file that a bot says the issue also appears on: Copilot's "This
/// issue also appears on line 241 of the same file." and "... in the following locations
/// of the same file:" followed by `- line 82` items.
pub fn also_appears(text: &str) -> Vec<LineRange> {
    let lower = text.to_ascii_lowercase();
    let Some(at) = lower.find("this issue also appears") else {
        return Vec::new();
    };
    let rest = &lower[at..];
    if !rest.lines().next().is_some_and(|l| l.contains("same file")) {
        return Vec::new();
    }
    let mut ranges = Vec::new();
    for (index, line) in rest.lines().enumerate() {
        let line = line.trim();
        let item = line.strip_prefix(['-', '*']).map(str::trim);
        let numbers = match (index, item) {
            (0, _) => line.split_once("on line").map(|(_, n)| n),
            (_, Some(item)) => item
                .strip_prefix("lines")
                .or_else(|| item.strip_prefix("line")),
            (_, None) if line.is_empty() => continue,
            _ => break,
        };
        if let Some(numbers) = numbers {
            ranges.extend(line_ranges(numbers.split(" of ").next().unwrap_or(numbers)));
        }
    }
    ranges
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn also_lines_of_coderabbit_and_copilot() {
        let r = LineRange::new;
        assert_eq!(line_ranges(" 812-858, 860-914"), [r(812, 858), r(860, 914)]);
        assert_eq!(line_ranges("`241`"), [r(241, 241)]);
        assert_eq!(line_ranges("see above"), []);
        assert_eq!(
            also_appears("Fix it.\n\nThis issue also appears on line 241 of the same file."),
            [r(241, 241)]
        );
        let list = "Fix.\n\nThis issue also appears in the following locations of the same file:\n\n- line 156\n- lines 300-302\n\nMore prose on 9.";
        assert_eq!(also_appears(list), [r(156, 156), r(300, 302)]);
        assert_eq!(also_appears("This issue also appears in `other.ts`."), []);
    }

    fn user(login: &str, id: u64, kind: &str) -> User {
        User {
            login: login.to_owned(),
            id,
            kind: kind.to_owned(),
        }
    }

    #[test]
    fn identity_matches_bots_only() {
        let id = Identity::new(&["coderabbitai[bot]".to_owned()], &[136622811]);
        assert!(id.matches(Some(&user("coderabbitai[bot]", 1, "Bot"))));
        assert!(id.matches(Some(&user("CodeRabbitAI", 1, "Bot"))));
        assert!(id.matches(Some(&user("renamed", 136622811, "Bot"))));
        assert!(!id.matches(Some(&user("coderabbitai", 5, "User"))));
        assert!(!id.matches(None));
    }

    #[test]
    fn anchors() {
        let mut c = ReviewComment {
            id: 1,
            path: Some("a.py".into()),
            start_line: Some(3),
            line: Some(5),
            original_line: Some(5),
            side: Some("RIGHT".into()),
            commit_id: Some("head".into()),
            ..ReviewComment::default()
        };
        let a = anchor(&c).unwrap();
        assert_eq!((a.line, a.end_line, a.outdated), (Some(3), Some(5), false));

        c.line = None;
        c.original_start_line = Some(37);
        c.original_line = Some(40);
        c.original_commit_id = Some("old".into());
        let a = anchor(&c).unwrap();
        assert_eq!((a.line, a.end_line, a.outdated), (Some(37), Some(40), true));
        assert_eq!(a.commit.as_deref(), Some("old"));

        c.subject_type = Some("file".into());
        assert_eq!(anchor(&c).unwrap().line, None);

        c.subject_type = Some("line".into());
        c.line = Some(6);
        c.start_line = None;
        c.side = Some("LEFT".into());
        assert_eq!(anchor(&c).unwrap().line, None);

        c.path = None;
        assert!(anchor(&c).is_none());
    }

    #[test]
    fn coverage_order() {
        let mut a = Activity::new("head");
        assert_eq!(a.coverage(), Coverage::Absent);
        a.declined();
        assert_eq!(a.coverage(), Coverage::Declined);
        a.reviewed(Some("old"));
        assert_eq!(a.coverage(), Coverage::Stale);
        a.reviewed(Some("head"));
        assert_eq!(a.coverage(), Coverage::Reviewed);

        let full = "3f3f028a9c1d2e4b5a6978877665544332211000";
        let mut a = Activity::new(full);
        a.reviewed(Some("3f3f02"));
        assert_eq!(a.coverage(), Coverage::Stale, "6 characters name nothing");
        a.reviewed(Some("3f3f028"));
        assert_eq!(a.coverage(), Coverage::Reviewed, "a short SHA of the head");
    }

    #[test]
    fn detail_is_plain_and_short() {
        let md = "First `x` para.\n\n<details><summary>s</summary>hidden</details>\n\n```\ncode\n```\n\nSecond.";
        assert_eq!(detail_from(md), "First `x` para. Second.");
        let long = "word ".repeat(500);
        assert!(detail_from(&long).chars().count() <= DETAIL_CHARS);
        assert_eq!(
            detail_after_title("Title here. Then more.", "Title here."),
            "Then more."
        );
    }
}
