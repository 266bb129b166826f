//! Pieces every adapter uses: who a bot is, where an inline comment points, provenance,
//! coverage bookkeeping and category resolution on prose.

use crate::adapters::read::markdown;
use crate::adapters::read::taxonomy::{self, NativeCategory};
use crate::api::{Review, ReviewComment, User, Viewer};
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

/// `My-Bot[bot]` -> `my-bot`: a login as compared (case-insensitive, `[bot]` optional).
pub(crate) fn bare_login(login: &str) -> String {
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

/// Our own sticky comment (never a finding): the marker, of any `comment-header`, alone on
/// the body's first line, posted by our identity. Offline there is no identity: a comment
/// by a built-in bot's login is never ours. A bot body that merely quotes the marker (in a
/// code block, further down) is the bot's and is read.
pub fn is_own_sticky(body: &str, author: Option<&User>, viewer: Option<&Viewer>) -> bool {
    let first = body.lines().next().unwrap_or("").trim();
    let marker = first == "<!-- review-bot-ack -->"
        || (first.starts_with("<!-- review-bot-ack:") && first.ends_with("-->"));
    if !marker {
        return false;
    }
    match (viewer, author) {
        (Some(viewer), Some(author)) => viewer.is(author),
        (Some(_), None) => false,
        (None, author) => !author.is_some_and(|a| is_built_in_bot(&a.login)),
    }
}

/// The login is one a built-in adapter reads by default.
fn is_built_in_bot(login: &str) -> bool {
    let login = bare_login(login);
    crate::adapters::registry()
        .iter()
        .flat_map(|adapter| adapter.default_logins())
        .any(|default| bare_login(default) == login)
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

/// Provenance of a finding taken from a review's body: the review, its link and commit.
pub fn review_provenance(review: &Review, category_source: Option<CategorySource>) -> Provenance {
    Provenance {
        review_id: Some(review.id),
        url: review.html_url.clone(),
        commit: review.commit_id.clone(),
        category_source,
        ..Provenance::default()
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
    explanation(explanation_markdown, DETAIL_CHARS)
}

/// The plain text of a comment's explanation, at most `max_chars`: its visible paragraphs
/// (hidden blocks, HTML comments and code blocks dropped, inline code kept), taken whole
/// until half the budget is used, then cut.
pub fn explanation(markdown_text: &str, max_chars: usize) -> String {
    let visible = markdown::strip_hidden(markdown_text);
    let mut text = String::new();
    for paragraph in markdown::paragraphs(&visible, true) {
        if text.chars().count() >= max_chars / 2 {
            break;
        }
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(&paragraph);
    }
    markdown::shorten(&text, max_chars)
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

/// RFC 3339 (GitHub's timestamps, git dates with an offset) as seconds since the epoch.
pub fn timestamp(text: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(text.trim())
        .ok()
        .map(|t| t.timestamp())
}

/// The words `coverage_signal` uses when an adapter gives none.
pub mod signal {
    pub const REVIEW: &str = "review";
    pub const NOTICE: &str = "notice";
    pub const NOTHING: &str = "nothing posted";
}

/// What a short notice is about, for `notice: <kind>` (the order matters: a "rate limit"
/// notice often also says "limit reached").
pub fn notice_kind(text: &str) -> &'static str {
    let lower = text.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    if has(&[
        "sunset",
        "shut down",
        "has been retired",
        "no longer available",
    ]) {
        "sunset"
    } else if has(&["rate limit", "rate-limit"]) {
        "rate limit"
    } else if has(&[
        "quota",
        "usage limit",
        "limit reached",
        "review limit",
        "line limit",
    ]) {
        "quota"
    } else if has(&[
        "billing",
        "payment",
        "trial",
        "402",
        "credits",
        "subscription",
        "licen",
    ]) {
        "billing"
    } else if has(&["paused"]) {
        "paused"
    } else if has(&["skip"]) {
        "skipped"
    } else if has(&[
        "fail",
        "error",
        "unable",
        "couldn't",
        "could not",
        "wasn't able",
    ]) {
        "failed"
    } else {
        signal::NOTICE
    }
}

/// Which commits a bot reviewed, whether it only declined or is still running: its coverage
/// of the head, and the signal that decided it (`coverage_signal` in the report).
///
/// Each level keeps the first signal recorded for it; the coverage is the best level seen.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Activity {
    head: String,
    /// The head commit's date (seconds), for signals that name no commit.
    head_time: Option<i64>,
    reviewed_head: Option<String>,
    reviewed_older: Option<String>,
    declined: Option<String>,
    running: Option<String>,
}

impl Activity {
    pub fn new(head_sha: &str) -> Self {
        Activity {
            head: head_sha.to_owned(),
            ..Activity::default()
        }
    }

    /// The head commit's date (RFC 3339), when known (`snapshot.signals.head_committed_at`).
    pub fn with_head_time(mut self, committed_at: Option<&str>) -> Self {
        self.head_time = committed_at.and_then(timestamp);
        self
    }

    /// `commit` names the head: equal, or an abbreviation of it (7+ hex digits, as in
    /// Codex's `Reviewed commit: 339ce6e7c4`). An unknown commit or unknown head counts as it.
    fn is_head(&self, commit: Option<&str>) -> bool {
        match commit.map(str::trim) {
            Some(c) if !self.head.is_empty() && !c.is_empty() => is_sha_of(c, &self.head),
            _ => true,
        }
    }

    /// The bot reviewed `commit` (a review, an inline comment, an analysis).
    pub fn reviewed(&mut self, commit: Option<&str>) {
        self.reviewed_by(commit, signal::REVIEW);
    }

    /// The bot reviewed `commit`, shown by `what` (`"review"`, `"comment \"no issues\""`):
    /// the signal reads `<what> on head` or `<what> on an older commit`.
    pub fn reviewed_by(&mut self, commit: Option<&str>, what: &str) {
        if self.is_head(commit) {
            set_first(&mut self.reviewed_head, || format!("{what} on head"));
        } else {
            set_first(&mut self.reviewed_older, || {
                format!("{what} on an older commit")
            });
        }
    }

    /// The bot finished at `time` (a reaction: no commit named). It counts for the head when
    /// it is not older than the head commit, or when either time is unknown.
    pub fn reviewed_at(&mut self, time: Option<&str>, what: &str) {
        if self.is_older_than_head(time) {
            set_first(&mut self.reviewed_older, || {
                format!("{what}, older than the head commit")
            });
        } else {
            set_first(&mut self.reviewed_head, || what.to_owned());
        }
    }

    /// `time` is known to be before the head commit was made.
    pub fn is_older_than_head(&self, time: Option<&str>) -> bool {
        match (time.and_then(timestamp), self.head_time) {
            (Some(at), Some(head)) => at < head,
            _ => false,
        }
    }

    /// The bot posted a rate-limit, budget, paused or skip notice.
    pub fn declined(&mut self) {
        self.declined_by(signal::NOTICE);
    }

    /// The bot posted this notice instead of a review: the signal is `notice: <kind>`
    /// (`quota`, `rate limit`, `billing`, `sunset`, `paused`, `skipped`, `failed`).
    pub fn declined_notice(&mut self, text: &str) {
        match notice_kind(text) {
            signal::NOTICE => self.declined(),
            kind => self.declined_by(format!("notice: {kind}")),
        }
    }

    /// The bot declined, shown by `signal` (`"notice: quota"`, `"check run X: neutral"`).
    pub fn declined_by(&mut self, signal: impl Into<String>) {
        set_first(&mut self.declined, || signal.into());
    }

    /// The bot started on the head but has not finished (a check run in progress).
    pub fn running(&mut self, signal: impl Into<String>) {
        set_first(&mut self.running, || signal.into());
    }

    /// Merge another verdict (an adapter's, read back from its output). An absent one
    /// carries a signal only when it shows a start.
    pub fn record(&mut self, coverage: Coverage, signal: String) {
        let slot = match coverage {
            Coverage::Reviewed => &mut self.reviewed_head,
            Coverage::Stale => &mut self.reviewed_older,
            Coverage::Declined => &mut self.declined,
            Coverage::Absent if signal == signal::NOTHING => return,
            Coverage::Absent => &mut self.running,
        };
        set_first(slot, || signal);
    }

    /// Reviewed (head) > stale (older commits only) > declined (notices only) > absent.
    pub fn coverage(&self) -> Coverage {
        if self.reviewed_head.is_some() {
            Coverage::Reviewed
        } else if self.reviewed_older.is_some() {
            Coverage::Stale
        } else if self.declined.is_some() {
            Coverage::Declined
        } else {
            Coverage::Absent
        }
    }

    /// The signal behind `coverage()`; for an absent bot what shows it started, if anything.
    pub fn signal(&self) -> String {
        [
            &self.reviewed_head,
            &self.reviewed_older,
            &self.declined,
            &self.running,
        ]
        .into_iter()
        .find_map(Clone::clone)
        .unwrap_or_else(|| signal::NOTHING.to_owned())
    }
}

fn set_first(slot: &mut Option<String>, value: impl FnOnce() -> String) {
    if slot.is_none() {
        *slot = Some(value());
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
    fn signals_say_what_decided_the_coverage() {
        let head = "339ce6e7c4aa0b1c2d3e4f5a6b7c8d9e0f1a2b3c";
        let mut a = Activity::new(head).with_head_time(Some("2026-11-02T10:00:00+01:00"));
        assert_eq!(a.signal(), "nothing posted");
        a.running("check run Cursor Bugbot: in_progress");
        assert_eq!(
            (a.coverage(), a.signal().as_str()),
            (Coverage::Absent, "check run Cursor Bugbot: in_progress")
        );
        a.declined_by("notice: quota");
        a.declined();
        assert_eq!(
            a.signal(),
            "notice: quota",
            "the first signal of a level stays"
        );
        // 08:59Z is before the head's 09:00Z: an older pass.
        a.reviewed_at(Some("2026-11-02T08:59:00Z"), "reaction 👍 on the PR");
        assert_eq!(
            (a.coverage(), a.signal().as_str()),
            (
                Coverage::Stale,
                "reaction 👍 on the PR, older than the head commit"
            )
        );
        // An abbreviated head (Codex's 10 hex digits) is the head; 6 digits are too few.
        let mut short = a.clone();
        short.reviewed_by(Some("339ce6"), "comment");
        assert_eq!(short.coverage(), Coverage::Stale);
        short.reviewed_by(Some("339ce6e7c4"), "comment \"no major issues\"");
        assert_eq!(
            (short.coverage(), short.signal().as_str()),
            (Coverage::Reviewed, "comment \"no major issues\" on head")
        );
        a.reviewed_at(Some("2026-11-02T09:00:00Z"), "reaction 👍 on the PR");
        assert_eq!(a.signal(), "reaction 👍 on the PR");
        // Unknown head time: a reaction counts for the head.
        let mut b = Activity::new(head);
        b.reviewed_at(Some("2020-01-01T00:00:00Z"), "reaction");
        assert_eq!(b.coverage(), Coverage::Reviewed);
    }

    #[test]
    fn notice_kinds() {
        for (text, kind) in [
            ("> [!CAUTION]\n> The consumer version of Gemini Code Assist on GitHub has been sunset.", "sunset"),
            ("Rate limited by coderabbit.ai", "rate limit"),
            ("### Bugbot couldn't run - usage limit reached", "quota"),
            ("AI review line limit reached", "quota"),
            ("Your free trial has ended", "billing"),
            ("HTTP 402: quota exceeded", "quota"),
            ("HTTP 402 Payment Required", "billing"),
            ("Bugbot couldn't run - usage limit reached. Limited PRs each billing cycle.", "quota"),
            ("Reviews paused", "paused"),
            ("Review skipped: Bot user detected", "skipped"),
            ("Copilot wasn't able to review this pull request", "failed"),
            ("Hello", "notice"),
        ] {
            assert_eq!(notice_kind(text), kind, "{text}");
        }
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
