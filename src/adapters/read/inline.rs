//! The loop shared by adapters whose findings are inline review comments (Gemini, Bugbot,
//! Greptile, Codex, DeepSource, Qodo's inline twins, generic): pick the bot's top-level
//! comments, anchor them, record which commits the bot reviewed, and turn each body into a
//! finding or a "skipped" reason. Each adapter supplies only the body reader.

use crate::adapters::read::taxonomy::NativeCategory;
use crate::adapters::{
    anchor, category_for, detail_from, provenance, Activity, AdapterOutput, Anchor, Identity,
};
use crate::api::{PrSnapshot, ReviewComment};
use crate::model::{NormalizedFinding, Severity};

/// Run `read` over the bot's top-level inline comments, collecting findings and malformed
/// reasons into `out` and the reviewed commits into `activity`.
pub(crate) fn read_comments<F>(
    snapshot: &PrSnapshot,
    identity: &Identity,
    activity: &mut Activity,
    out: &mut AdapterOutput,
    mut read: F,
) where
    F: FnMut(&ReviewComment, &Anchor) -> Result<NormalizedFinding, String>,
{
    for comment in &snapshot.review_comments {
        if !identity.matches(comment.user.as_ref()) {
            continue;
        }
        activity.reviewed(comment.commit_id.as_deref());
        if comment.in_reply_to_id.is_some() {
            out.readable += 1; // a reply: read, never a finding
            continue;
        }
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

/// The bot's reviews and issue comments: each is a sign of activity (a review on its commit;
/// a notice matching `declined` = declined). None of them is read for findings here.
pub(crate) fn note_activity(
    snapshot: &PrSnapshot,
    identity: &Identity,
    declined: &[&str],
    activity: &mut Activity,
    out: &mut AdapterOutput,
) {
    // Notices are short; a summary that merely mentions "rate limit" is not one.
    let is_notice = |body: &str| {
        let lower = body.to_lowercase();
        body.len() <= NOTICE_MAX_BYTES && declined.iter().any(|phrase| lower.contains(phrase))
    };
    for review in &snapshot.reviews {
        if !identity.matches(review.user.as_ref()) {
            continue;
        }
        out.readable += 1;
        if is_notice(review.body.as_deref().unwrap_or("")) {
            activity.declined_notice(review.body.as_deref().unwrap_or(""));
        } else {
            activity.reviewed(review.commit_id.as_deref());
        }
    }
    for comment in &snapshot.issue_comments {
        if !identity.matches(comment.user.as_ref()) {
            continue;
        }
        out.readable += 1;
        if is_notice(comment.body.as_deref().unwrap_or("")) {
            activity.declined_notice(comment.body.as_deref().unwrap_or(""));
        }
    }
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

/// The title of prose without a title line: its first sentence, plain, at most 120 chars.
pub(crate) fn sentence_title(markdown_text: &str) -> Option<String> {
    use crate::adapters::read::markdown;
    let visible = markdown::strip_hidden(markdown_text);
    let first = markdown::paragraphs(&visible, true).into_iter().next()?;
    let sentence = markdown::first_sentence(&first).replace('`', "");
    let title = markdown::shorten(sentence.trim(), 120);
    (!title.is_empty()).then_some(title)
}
