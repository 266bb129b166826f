//! The reading shared by adapters whose findings are inline review comments (most bots):
//! pick the bot's top-level comments, anchor them, record which commits the bot reviewed,
//! turn each body into a finding or a "skipped" reason, then read what its review bodies and
//! issue comments say about the review. With `parse`, an adapter supplies only its body
//! reader and its `status`; those with more surfaces (Codex's dated verdicts, Qodo,
//! Copilot, Sourcery) compose the pieces (`read_comments`, `note_statuses`).

use crate::adapters::read::prose;
use crate::adapters::read::taxonomy::NativeCategory;
use crate::adapters::{
    anchor, category_for, detail_from, provenance, Activity, AdapterOutput, Anchor, Identity,
};
use crate::api::{IssueComment, PrSnapshot, Review, ReviewComment};
use crate::model::{NormalizedFinding, Severity};

/// The whole `parse` of a bot whose findings are its inline comments: `read` turns each
/// top-level comment into a finding (`read_comments`), `status` says what each review body
/// and issue comment says about the review (`note_statuses`; `declines(DECLINED)` when only
/// its notices say anything), and the coverage follows from both.
pub(crate) fn parse<F>(
    snapshot: &PrSnapshot,
    identity: &Identity,
    status: impl Fn(&str) -> Status,
    read: F,
) -> AdapterOutput
where
    F: FnMut(&ReviewComment, &Anchor) -> Result<NormalizedFinding, String>,
{
    parse_where(snapshot, identity, |_| true, status, read)
}

/// `parse` for the comments `is_review` accepts (`read_comments_where`).
pub(crate) fn parse_where<P, F>(
    snapshot: &PrSnapshot,
    identity: &Identity,
    is_review: P,
    status: impl Fn(&str) -> Status,
    read: F,
) -> AdapterOutput
where
    P: Fn(&ReviewComment) -> bool,
    F: FnMut(&ReviewComment, &Anchor) -> Result<NormalizedFinding, String>,
{
    let mut activity = Activity::new(snapshot.head_sha());
    let mut out = AdapterOutput::default();
    read_comments_where(snapshot, identity, &mut activity, &mut out, is_review, read);
    note_statuses(snapshot, identity, status, &mut activity, &mut out);
    out.set_coverage(&activity);
    out
}

/// Run `read` over the bot's top-level inline comments, collecting findings and malformed
/// reasons into `out` and the reviewed commits into `activity`.
pub(crate) fn read_comments<F>(
    snapshot: &PrSnapshot,
    identity: &Identity,
    activity: &mut Activity,
    out: &mut AdapterOutput,
    read: F,
) where
    F: FnMut(&ReviewComment, &Anchor) -> Result<NormalizedFinding, String>,
{
    read_comments_where(snapshot, identity, activity, out, |_| true, read);
}

/// `read_comments` for the comments `is_review` accepts; the others (a bot's non-review
/// surfaces posted inline) are read but neither findings nor reviews.
pub(crate) fn read_comments_where<P, F>(
    snapshot: &PrSnapshot,
    identity: &Identity,
    activity: &mut Activity,
    out: &mut AdapterOutput,
    is_review: P,
    mut read: F,
) where
    P: Fn(&ReviewComment) -> bool,
    F: FnMut(&ReviewComment, &Anchor) -> Result<NormalizedFinding, String>,
{
    for comment in &snapshot.review_comments {
        if !identity.matches(comment.user.as_ref()) {
            continue;
        }
        if comment.in_reply_to_id.is_some() || !is_review(comment) {
            // A reply ("Thanks for the fix!") or another surface: read, never a finding,
            // and no review of the commit it happens to be posted on.
            out.readable += 1;
            continue;
        }
        activity.reviewed(comment.reviewed_commit());
        let Some(anchor) = anchor(comment) else {
            out.malformed
                .push(format!("review comment #{}: no `path`", comment.id));
            continue;
        };
        if comment.body.trim().is_empty() {
            out.malformed
                .push(format!("review comment #{}: empty body", comment.id));
            continue;
        }
        match read(comment, &anchor) {
            Ok(finding) => {
                out.readable += 1;
                out.findings.push(finding);
            }
            Err(reason) => out
                .malformed
                .push(format!("review comment #{}: {reason}", comment.id)),
        }
    }
}

/// Longest body still read as a rate-limit / quota / skip notice.
pub(crate) const NOTICE_MAX_BYTES: usize = 1200;

/// The `coverage_signal` of a finished-review issue comment (`status comment on head`).
const STATUS_COMMENT: &str = "status comment";

/// What one of the bot's review bodies or issue comments says about its review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Status {
    /// A finished review (a verdict, summary or status comment), of the commit it names
    /// when it names one.
    Done(Option<String>),
    /// A rate-limit, quota, billing, paused, skipped or sunset notice: no review happened.
    Declined,
    /// A status comment saying the review has started ("Claude Code is working…", "CodeAnt
    /// AI is reviewing your PR"): the bot is running, not done.
    Started,
    /// Anything else: a review body is still a review of its commit; an issue comment says
    /// nothing about coverage.
    Other,
}

/// What a retired service posts instead of reviews (Gemini's consumer app since 2026-07):
/// a decline for every bot.
const RETIRED: &[&str] = &[
    "has been sunset",
    "has been shut down",
    "has been discontinued",
];

/// A short notice (`NOTICE_MAX_BYTES`) with one of `phrases` or a retirement phrase,
/// case-insensitive. A long body that merely mentions "rate limit" is a summary, not a
/// notice.
pub(crate) fn is_notice(body: &str, phrases: &[&str]) -> bool {
    body.len() <= NOTICE_MAX_BYTES && (mentions(body, phrases) || mentions(body, RETIRED))
}

/// `body` contains one of `phrases` (lowercase), case-insensitive.
pub(crate) fn mentions(body: &str, phrases: &[&str]) -> bool {
    let lower = body.to_lowercase();
    phrases.iter().any(|phrase| lower.contains(phrase))
}

/// The `status` of a bot whose review bodies and issue comments say nothing about its
/// review but a short notice with one of the `declined` phrases (`is_notice`).
pub(crate) fn declines<'a>(declined: &'a [&'a str]) -> impl Fn(&str) -> Status + 'a {
    move |body| {
        if is_notice(body, declined) {
            Status::Declined
        } else {
            Status::Other
        }
    }
}

/// The bot's reviews and issue comments as signs of activity, `classify` deciding what each
/// body says. An empty review body (the wrapper of inline comments or of a thread reply)
/// is read but says nothing: the inline comments count on their own.
pub(crate) fn note_statuses(
    snapshot: &PrSnapshot,
    identity: &Identity,
    classify: impl Fn(&str) -> Status,
    activity: &mut Activity,
    out: &mut AdapterOutput,
) {
    note_statuses_where(snapshot, identity, |_| true, classify, activity, out);
}

/// A review or issue comment of the bot's login.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Post<'a> {
    Review(&'a Review),
    IssueComment(&'a IssueComment),
}

/// `note_statuses` for the posts `is_ours` accepts; the others belong to another product
/// posting under the same login (Claude Code Review and the Claude GitHub app share
/// `claude[bot]`) and are left to its adapter.
pub(crate) fn note_statuses_where(
    snapshot: &PrSnapshot,
    identity: &Identity,
    is_ours: impl Fn(Post<'_>) -> bool,
    classify: impl Fn(&str) -> Status,
    activity: &mut Activity,
    out: &mut AdapterOutput,
) {
    for review in &snapshot.reviews {
        if !identity.matches(review.user.as_ref()) || !is_ours(Post::Review(review)) {
            continue;
        }
        out.readable += 1;
        let body = review.body.as_deref().unwrap_or("");
        if body.trim().is_empty() {
            continue;
        }
        match classify(body) {
            Status::Declined => activity.declined_notice(body),
            Status::Done(Some(commit)) => activity.reviewed(Some(&commit)),
            Status::Done(None) | Status::Started | Status::Other => {
                activity.reviewed(review.commit_id.as_deref())
            }
        }
    }
    for comment in &snapshot.issue_comments {
        if !identity.matches(comment.user.as_ref()) || !is_ours(Post::IssueComment(comment)) {
            continue;
        }
        out.readable += 1;
        let body = comment.body.as_deref().unwrap_or("");
        match classify(body) {
            Status::Declined => activity.declined_notice(body),
            Status::Done(commit) => activity.reviewed_by(commit.as_deref(), STATUS_COMMENT),
            Status::Started => activity.running(format!("{STATUS_COMMENT}: started")),
            Status::Other => {}
        }
    }
}

/// The hexadecimal commit id (7 to 40 characters) right after `marker` (case-insensitive;
/// spaces, backticks, quotes and `[` skipped): `finished reviewing commit <sha>`,
/// `Commit Range: a..<sha>`, a `/commit/<sha>` link.
pub(crate) fn commit_after(text: &str, marker: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let at = lower.find(&marker.to_ascii_lowercase())? + marker.len();
    let rest = lower[at..].trim_start_matches([' ', '`', '"', '\'', '[', '*']);
    let sha: String = rest.chars().take_while(char::is_ascii_hexdigit).collect();
    (7..=40).contains(&sha.len()).then_some(sha)
}

/// A finding anchored where `comment` points, with the category resolved from `title` and
/// `explanation` (Markdown) and the common provenance; `finding_id` is the comment id.
pub(crate) fn finding(
    bot: &str,
    comment: &ReviewComment,
    anchor: &Anchor,
    severity: Severity,
    title: &str,
    native: NativeCategory,
    explanation: &str,
) -> NormalizedFinding {
    let (category, source) = category_for(native, &anchor.file, title, explanation);
    let mut finding = NormalizedFinding::new(
        bot,
        comment.id.to_string(),
        severity,
        category.as_str(),
        title,
    )
    .at(anchor.file.clone(), anchor.line);
    finding.evidence.end_line = anchor.end_line.filter(|end| Some(*end) != anchor.line);
    finding.detail = detail_from(explanation);
    finding.provenance = provenance(comment, anchor, source);
    finding
}

/// The finding of a bot that gives no title: the first sentence of `claim` titles it and
/// `claim` explains it; medium when the bot states no severity. `None`: no text to title.
pub(crate) fn claim_finding(
    bot: &str,
    comment: &ReviewComment,
    anchor: &Anchor,
    severity: Option<Severity>,
    native: NativeCategory,
    claim: &str,
) -> Option<NormalizedFinding> {
    let title = sentence_title(claim)?;
    let severity = severity.unwrap_or(Severity::Medium);
    Some(finding(
        bot, comment, anchor, severity, &title, native, claim,
    ))
}

/// The finding of a comment in free prose (`prose::read`: the bold span or first sentence
/// titles it, its opening words give the severity and whether it is a nitpick).
pub(crate) fn prose_finding(
    bot: &str,
    comment: &ReviewComment,
    anchor: &Anchor,
) -> Result<NormalizedFinding, String> {
    let prose = prose::read(&comment.body)?;
    let severity = prose.severity.unwrap_or(Severity::Medium);
    let none = NativeCategory::none();
    let mut finding = finding(
        bot,
        comment,
        anchor,
        severity,
        &prose.title,
        none,
        &prose.explanation,
    );
    finding.nitpick = prose.nitpick;
    Ok(finding)
}

/// The title of prose without a title line: its first sentence, plain, at most 120 chars.
pub(crate) fn sentence_title(markdown_text: &str) -> Option<String> {
    use crate::adapters::read::markdown;
    let visible = markdown::strip_hidden(markdown_text);
    let first = markdown::paragraphs(&visible, true).into_iter().next()?;
    let sentence = markdown::first_sentence(&first).replace('`', "");
    let title = markdown::shorten(sentence.trim(), 120);
    (!title.is_empty()).then_some(title)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notices_are_short_and_retirement_always_declines() {
        assert!(is_notice(
            "Usage limit reached for this month.",
            &["usage limit"]
        ));
        assert!(!is_notice(
            &"A summary about the usage limit. ".repeat(60),
            &["usage limit"]
        ));
        assert!(is_notice(
            "The Acme reviewer has been shut down. Thanks for using it!",
            &[]
        ));
        assert!(!is_notice("Looks good to me.", &["usage limit"]));
        let status = declines(&["usage limit"]);
        assert_eq!(status("Usage Limit reached."), Status::Declined);
        assert_eq!(status(&"Usage limit. ".repeat(200)), Status::Other);
        assert_eq!(status("Thanks!"), Status::Other);
        assert!(mentions(
            "CodeAnt AI Is Reviewing",
            &["codeant ai is reviewing"]
        ));
        assert_eq!(
            commit_after(
                "CodeAnt AI finished reviewing commit `c0ffee0`.",
                "reviewing commit"
            ),
            Some("c0ffee0".to_owned())
        );
        assert_eq!(
            commit_after("Commit Range: 3f3f028..c0ffee", ".."),
            None,
            "6 digits name nothing"
        );
    }
}
