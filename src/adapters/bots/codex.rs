//! OpenAI Codex (`chatgpt-codex-connector[bot]`): one finding per inline comment, a bold
//! first line carrying a shields.io priority badge and the title,
//! `**<sub><sub>![P1 Badge](https://img.shields.io/badge/P1-orange?style=flat)</sub></sub>  Title**`
//! (P0 critical … P3 low), then prose and the `Useful? React with 👍 / 👎.` footer.

use crate::adapters::read::inline;
use crate::adapters::read::taxonomy::{self, NativeCategory};
use crate::adapters::read::{html, markdown};
use crate::adapters::{Activity, Adapter, AdapterOutput, Identity, Meaning, Signal};
use crate::api::PrSnapshot;
use crate::model::Severity;

/// Notices that mean Codex did not review (usage limits; a repository without a Codex
/// environment: "create a Codex account / environment").
const DECLINED: &[&str] = &[
    "usage limit",
    "codex couldn't",
    "unable to review",
    "create a codex account",
    "create an environment",
];

/// Codex's clean verdict, in a review body or only an issue comment ("Codex Review: Didn't
/// find any major issues. Keep it up!").
const CLEAN: &[&str] = &[
    "didn't find any major issues",
    "did not find any major issues",
];

pub struct Codex;

impl Adapter for Codex {
    fn id(&self) -> &'static str {
        "codex"
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &["chatgpt-codex-connector[bot]"]
    }

    /// "If Codex has suggestions, it will comment; otherwise it will react with 👍."
    fn signals(&self) -> &'static [Signal] {
        &[Signal::Reaction("+1", Meaning::Reviewed)]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        let mut activity = Activity::new(snapshot.head_sha())
            .with_head_time(snapshot.signals.head_committed_at.as_deref());
        let mut out = AdapterOutput::default();
        inline::read_comments(
            snapshot,
            &identity,
            &mut activity,
            &mut out,
            |comment, anchor| {
                let body = markdown::normalize_newlines(&comment.body);
                let (severity, title, explanation) = match read_header(&body) {
                    Some((severity, title)) if !title.is_empty() => {
                        (severity, title, explanation(&body))
                    }
                    // no badge: read it as plain prose at the default severity
                    _ => {
                        let title = inline::sentence_title(&body).ok_or("no title")?;
                        (Severity::Medium, title, body.clone())
                    }
                };
                Ok(inline::finding(
                    self.id(),
                    comment,
                    anchor,
                    severity,
                    &title,
                    NativeCategory::none(),
                    &explanation,
                ))
            },
        );
        clean_verdicts(snapshot, &identity, &mut activity);
        let status = inline::declines(DECLINED);
        inline::note_statuses(snapshot, &identity, status, &mut activity, &mut out);
        out.set_coverage(&activity);
        out
    }
}

/// A clean verdict is a finished review of the commit it names (`**Reviewed commit:**
/// \`339ce6e7c4\``), else of the commit that was the head when it was posted.
fn clean_verdicts(snapshot: &PrSnapshot, identity: &Identity, activity: &mut Activity) {
    const WHAT: &str = "comment \"no major issues\"";
    let is_clean = |body: &str| inline::mentions(&body.replace('\u{2019}', "'"), CLEAN);
    for comment in &snapshot.issue_comments {
        let body = comment.body.as_deref().unwrap_or("");
        if !identity.matches(comment.user.as_ref()) || !is_clean(body) {
            continue;
        }
        match reviewed_commit(body) {
            Some(commit) => activity.reviewed_by(Some(commit), WHAT),
            None => activity.reviewed_at(comment.created_at.as_deref(), WHAT),
        }
    }
}

/// The hex digits after `Reviewed commit:` (bold and backticks around them or not).
pub(crate) fn reviewed_commit(body: &str) -> Option<&str> {
    let at = body.find("Reviewed commit:")? + "Reviewed commit:".len();
    let rest = body[at..].trim_start_matches(|c: char| c == '*' || c == '`' || c.is_whitespace());
    let end = rest
        .find(|c: char| !c.is_ascii_hexdigit())
        .unwrap_or(rest.len());
    (end >= 7).then(|| &rest[..end])
}

/// The badge's priority and the title that follows it on the bold first line.
pub(crate) fn read_header(body: &str) -> Option<(Severity, String)> {
    let (first, _) = markdown::first_visible_line(body);
    let start = first.find("![")?;
    let (alt, rest) = first[start + 2..].split_once("](")?;
    let (url, after) = rest.split_once(')')?;
    let severity = taxonomy::priority_severity(alt.split_whitespace().next().unwrap_or(""))
        .or_else(|| {
            let badge = url.split("/badge/").nth(1)?;
            taxonomy::priority_severity(badge.split('-').next()?)
        })?;
    let title = html::strip_tags(after)
        .trim_matches(|c: char| c == '*' || c.is_whitespace())
        .to_owned();
    Some((severity, title))
}

/// The prose after the header line, without the feedback footer.
pub(crate) fn explanation(body: &str) -> String {
    let (_, rest) = markdown::first_visible_line(body);
    rest.lines()
        .filter(|line| !line.trim_start().starts_with("Useful? React with"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::fixture;

    #[test]
    fn header_badge_and_title() {
        let body = "**<sub><sub>![P1 Badge](https://img.shields.io/badge/P1-orange?style=flat)</sub></sub>  Guard the rate**\n\nWhy.\n\nUseful? React with 👍 / 👎.";
        assert_eq!(
            read_header(body),
            Some((Severity::High, "Guard the rate".to_owned()))
        );
        assert_eq!(explanation(body).trim(), "Why.");
        let by_url = "**![badge](https://img.shields.io/badge/P3-green?style=flat) T**";
        assert_eq!(read_header(by_url), Some((Severity::Low, "T".to_owned())));
        assert_eq!(read_header("no badge"), None);
    }

    #[test]
    fn sample_inline_comments() {
        let out = fixture::parse(&Codex, "bots/codex");
        assert!(out.malformed.is_empty(), "{:?}", out.malformed);
        let got = fixture::places(&out.findings);
        assert_eq!(
            got,
            vec![
                ("app/services/fx_rates.py", Some(31), Severity::High, "bug"),
                (
                    "app/services/fx_rates.py",
                    Some(40),
                    Severity::Medium,
                    "performance"
                ),
                (
                    "app/api/refunds.py",
                    Some(27),
                    Severity::Critical,
                    "security"
                ),
                ("app/api/refunds.py", Some(30), Severity::Medium, "other"),
            ]
        );
        assert_eq!(
            out.findings[0].title,
            "Guard against missing exchange rates"
        );
        assert!(!out.findings[0].detail.contains("Useful?"));
        assert_eq!(
            out.findings[3].title,
            "Just some text with no badge at all."
        );
    }
}
