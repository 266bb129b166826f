//! Kodus / Kody (`kody-ai[bot]`, id 148880201; self-hosted installs post under their own
//! app, mapped with `bots: kodus=<slug>[bot]`). An inline comment opens with shields.io
//! badges, `![kody code-review](…) ![Bug](…/badge/Bug-B71C1C) ![high](…/badge/severity_level-high-6B6B92)`:
//! the `severity_level-*` badge is the severity, the other badge the category. Then the
//! prose, and a "Prompt for LLM" `<details>` (`File <path>: Line X to Y`). PR-level
//! suggestions are issue comments carrying the same badges. The status comment (edited in
//! place) says "Code Review Complete" or "Code Review Could Not Complete" (`**Reason:**`).
//! Formats: docs/adapters.md (research captures).

use crate::adapters::read::inline::{self, Status};
use crate::adapters::read::taxonomy::{self, NativeCategory};
use crate::adapters::read::{html, markdown};
use crate::adapters::{
    category_for, detail_from, Adapter, AdapterOutput, Identity, Meaning, Signal,
};
use crate::api::{IssueComment, PrSnapshot};
use crate::model::{Category, NormalizedFinding, Provenance, Severity};

/// Notices that mean Kody did not review.
const DECLINED: &[&str] = &[
    "could not complete",
    "rate limit reached",
    "no license",
    "license has expired",
    "trial has expired",
];

/// The status comment of a finished review.
const COMPLETED: &[&str] = &["code review complete", "kody review complete"];

pub struct Kodus;

const ID: &str = "kodus";

impl Adapter for Kodus {
    fn id(&self) -> &'static str {
        ID
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &["kody-ai[bot]"]
    }

    fn user_ids(&self) -> &'static [u64] {
        &[148880201]
    }

    /// Its `Kody Code Review` check run (`neutral` when an auxiliary stage failed: the
    /// comments were still posted) and, on an automatic review, its reactions on the PR: 🚀
    /// started, 🎉 done, 👀 skipped, 😕 error, 👎 no licence. (On a review asked for with
    /// `@kody start-review` they go on that comment, which is not read.)
    fn signals(&self) -> &'static [Signal] {
        &[
            Signal::CheckRunVerdict("Kody Code Review"),
            Signal::Reaction("hooray", Meaning::Reviewed),
            Signal::Reaction("rocket", Meaning::Running),
            Signal::Reaction("eyes", Meaning::Declined),
            Signal::Reaction("confused", Meaning::Declined),
            Signal::Reaction("-1", Meaning::Declined),
        ]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        let mut out = inline::parse(snapshot, &identity, status, |comment, anchor| {
            let read = read_body(&comment.body)?;
            Ok(inline::finding(
                ID,
                comment,
                anchor,
                read.severity.unwrap_or(Severity::Medium),
                &read.title,
                read.native,
                &read.explanation,
            ))
        });
        for comment in &snapshot.issue_comments {
            if !identity.matches(comment.user.as_ref()) {
                continue;
            }
            let body = comment.body.as_deref().unwrap_or("");
            if !has_kody_badge(body) {
                continue; // the status comment: read below
            }
            match pr_level_finding(comment, body) {
                Ok(finding) => out.findings.push(finding),
                Err(reason) => out
                    .malformed
                    .push(format!("issue comment {}: {reason}", comment.id)),
            }
        }
        out
    }
}

/// A failure or quota notice declines; the "Code Review Complete" status comment, or a
/// PR-level suggestion, is a finished review.
fn status(body: &str) -> Status {
    let completed = body.len() <= inline::NOTICE_MAX_BYTES && inline::mentions(body, COMPLETED);
    if inline::is_notice(body, DECLINED) {
        Status::Declined
    } else if completed || has_kody_badge(body) {
        Status::Done(None)
    } else {
        Status::Other
    }
}

/// The `kody code-review` badge that every suggestion (inline or PR-level) carries.
fn has_kody_badge(body: &str) -> bool {
    markdown::images(body)
        .iter()
        .any(|(alt, url)| alt.to_lowercase().contains("kody") || url.contains("kody-code--review"))
}

struct Read {
    title: String,
    severity: Option<Severity>,
    native: NativeCategory,
    explanation: String,
}

/// The badge line (severity, category), then the prose.
fn read_body(body: &str) -> Result<Read, String> {
    let text = markdown::normalize_newlines(body);
    let trimmed = markdown::visible_start(&text);
    let (first, rest) = trimmed.split_once('\n').unwrap_or((trimmed, ""));
    let badges = markdown::images(first);
    if badges.is_empty() {
        let title = inline::sentence_title(trimmed).ok_or("no text")?;
        return Ok(Read {
            title,
            severity: None,
            native: NativeCategory::none(),
            explanation: trimmed.to_owned(),
        });
    }
    let mut severity = None;
    let mut native = NativeCategory::none();
    for (alt, url) in &badges {
        let (label, message) = html::shields_badge(url).unwrap_or_default();
        if label.to_lowercase().starts_with("severity") {
            severity = taxonomy::severity_word(&message).or(severity);
        } else if !alt.to_lowercase().contains("kody") && native.strong.is_none() {
            let name = if message.is_empty() {
                alt.as_str()
            } else {
                &message
            };
            native.strong = badge_category(name);
        }
    }
    let title = markdown::first_bold_line(rest)
        .or_else(|| inline::sentence_title(rest))
        .ok_or("badges without text")?;
    Ok(Read {
        title,
        severity,
        native,
        explanation: rest.to_owned(),
    })
}

/// Kody's category badges; an unknown one leaves the taxonomy to decide.
fn badge_category(name: &str) -> Option<Category> {
    let lower = name.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    if has(&["security"]) {
        Some(Category::Security)
    } else if has(&["performance"]) {
        Some(Category::Performance)
    } else if has(&["bug", "error handling", "potential issue", "breaking"]) {
        Some(Category::Bug)
    } else if has(&["style"]) {
        Some(Category::Style)
    } else if has(&["documentation"]) {
        Some(Category::Docs)
    } else if has(&["test"]) {
        Some(Category::Test)
    } else if has(&["maintainab", "refactor", "best practice", "complexity"]) {
        Some(Category::Maintainability)
    } else {
        None
    }
}

/// `File <path>: Line X to Y` in the prompt block: the finding's location, if any.
fn prompt_location(body: &str) -> Option<(String, u32, u32)> {
    let at = body.find("File ")? + "File ".len();
    let (path, rest) = body[at..].split_once(':')?;
    let path = path.trim().trim_matches('`');
    if path.is_empty() || path.contains(char::is_whitespace) {
        return None;
    }
    let rest = rest.trim_start().strip_prefix("Line")?.trim_start();
    let number = |s: &str| -> Option<u32> {
        s.chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .ok()
    };
    let start = number(rest)?;
    let end = rest
        .split_once(" to ")
        .and_then(|(_, e)| number(e.trim_start()))
        .unwrap_or(start);
    Some((path.to_owned(), start, end.max(start)))
}

/// A PR-level suggestion (an issue comment with the badges): anchored where its prompt
/// says, else PR-wide.
fn pr_level_finding(comment: &IssueComment, body: &str) -> Result<NormalizedFinding, String> {
    let read = read_body(body)?;
    let (file, lines) = match prompt_location(body) {
        Some((file, start, end)) => (file, Some((start, end))),
        None => (String::new(), None),
    };
    let (category, source) = category_for(read.native, &file, &read.title, &read.explanation);
    let mut finding = NormalizedFinding::new(
        ID,
        format!("issue-comment-{}", comment.id),
        read.severity.unwrap_or(Severity::Medium),
        category.as_str(),
        read.title,
    );
    finding.evidence.file = file;
    if let Some((start, end)) = lines {
        finding.evidence.line = Some(start);
        finding.evidence.end_line = (end != start).then_some(end);
    }
    finding.detail = detail_from(&read.explanation);
    finding.provenance = Provenance {
        url: comment.html_url.clone(),
        category_source: Some(source),
        ..Provenance::default()
    };
    Ok(finding)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::fixture;
    use crate::model::{CategorySource, Coverage};

    #[test]
    fn badges_give_severity_and_category() {
        let read = read_body("![kody code-review](https://kodus.io/k.png) ![Security](https://img.shields.io/badge/Security-B71C1C) ![critical](https://img.shields.io/badge/severity_level-critical-6B6B92)\n\nThe token is logged in clear text.").unwrap();
        assert_eq!(read.severity, Some(Severity::Critical));
        assert_eq!(read.native.strong, Some(Category::Security));
        assert_eq!(read.title, "The token is logged in clear text.");
        assert_eq!(
            prompt_location("Prompt: File app/x.py: Line 12 to 18: fix it"),
            Some(("app/x.py".into(), 12, 18))
        );
        assert_eq!(prompt_location("File notes: nothing"), None);
        assert!(read_body("![kody code-review](x)").is_err());
    }

    #[test]
    fn sample_comments() {
        let out = fixture::parse(&Kodus, "bots/kodus");
        let got = fixture::places_and(&out.findings, |f| f.provenance.category_source);
        assert_eq!(
            got,
            vec![
                (
                    "app/services/refunds.py",
                    Some(45),
                    Severity::High,
                    "bug",
                    Some(CategorySource::Native)
                ),
                (
                    "app/api/refunds.py",
                    Some(27),
                    Severity::Medium,
                    "performance",
                    Some(CategorySource::Native)
                ),
                (
                    "app/services/ledger.py",
                    Some(57),
                    Severity::Low,
                    "maintainability",
                    Some(CategorySource::Native)
                ),
            ]
        );
        assert_eq!(
            out.findings[0].title,
            "The refund total ignores partial captures."
        );
        assert!(!out.findings[0].detail.contains("Prompt for LLM"));
        assert_eq!(out.coverage, Coverage::Reviewed);
    }

    #[test]
    fn a_failed_status_alone_is_declined() {
        assert_eq!(
            status("## Code Review Could Not Complete\n\n**Reason:** Rate limit reached on the provider."),
            Status::Declined
        );
        assert_eq!(status("✅ **Code Review Complete**"), Status::Done(None));
        assert_eq!(status("Thanks for the update!"), Status::Other);
    }
}
