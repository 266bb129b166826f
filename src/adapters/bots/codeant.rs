//! CodeAnt (`codeant-ai[bot]`, id 151821869): one finding per inline comment,
//! `**Suggestion:** <claim> [logic error]`, then `<details><summary><b>Severity Level:</b>
//! Major ⚠️</summary>` (also a plain `Severity Level: Major ⚠️` line), "Steps of
//! Reproduction", "Prompt for AI Agent" and 👍 / 👎 feedback. The bracketed tag is the
//! category when it names one. Status issue comments say "CodeAnt AI is reviewing your PR"
//! (started), then "CodeAnt AI finished reviewing your PR." (or "… commit <sha>", "Incremental
//! review completed"). Formats: docs/adapters.md (research captures).

use crate::adapters::read::inline::{self, Status};
use crate::adapters::read::taxonomy::{self, NativeCategory};
use crate::adapters::read::{html, markdown};
use crate::adapters::{Adapter, AdapterOutput, Identity, Signal};
use crate::api::PrSnapshot;
use crate::model::{Category, Severity};

/// Notices that mean CodeAnt did not review.
const DECLINED: &[&str] = &[
    "usage limit",
    "limit reached",
    "out of credits",
    "trial has expired",
    "subscription has expired",
];

/// Status comments of a finished review.
const COMPLETED: &[&str] = &[
    "codeant ai finished reviewing",
    "codeant ai finished running the review",
    "incremental review completed",
];

/// The status comment of a review that has started.
const STARTED: &[&str] = &["codeant ai is reviewing"];

pub struct CodeAnt;

const ID: &str = "codeant";

impl Adapter for CodeAnt {
    fn id(&self) -> &'static str {
        ID
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &["codeant-ai[bot]"]
    }

    fn user_ids(&self) -> &'static [u64] {
        &[151821869]
    }

    /// Its app's check run.
    fn signals(&self) -> &'static [Signal] {
        &[Signal::CheckRunVerdict("")]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        inline::parse(snapshot, &identity, status, |comment, anchor| {
            let body = markdown::normalize_newlines(&comment.body);
            let (claim, tag) = suggestion(&body)?;
            let severity = severity_level(&body);
            let native = tag.as_deref().map_or(NativeCategory::none(), tag_category);
            inline::claim_finding(ID, comment, anchor, severity, native, &claim)
                .ok_or_else(|| "no suggestion text".to_owned())
        })
    }
}

fn status(body: &str) -> Status {
    if inline::is_notice(body, DECLINED) {
        Status::Declined
    } else if inline::mentions(body, COMPLETED) {
        Status::Done(inline::commit_after(body, "reviewing commit"))
    } else if inline::mentions(body, STARTED) {
        Status::Started
    } else {
        Status::Other
    }
}

/// The claim after `**Suggestion:**` (visible prose, the trailing `[tag]` cut off) and the
/// tag; a body without the label is read as prose.
fn suggestion(body: &str) -> Result<(String, Option<String>), String> {
    let visible = markdown::strip_hidden(body);
    let text = markdown::visible_start(&visible);
    let Some(rest) = text
        .strip_prefix("**Suggestion:**")
        .or_else(|| text.strip_prefix("Suggestion:"))
    else {
        return Ok((text.to_owned(), None));
    };
    let (line, after) = rest.split_once('\n').unwrap_or((rest, ""));
    let line = line.trim_end();
    let (claim, tag) = match line.strip_suffix(']').and_then(|l| l.rsplit_once('[')) {
        Some((claim, tag)) if !tag.contains(']') => (claim.trim_end(), Some(tag.trim().to_owned())),
        _ => (line, None),
    };
    if claim.trim().is_empty() {
        return Err("`Suggestion:` without text".to_owned());
    }
    let after_prose: Vec<&str> = after
        .lines()
        .filter(|l| !l.to_lowercase().contains("severity level"))
        .collect();
    Ok((
        format!("{}\n\n{}", claim.trim(), after_prose.join("\n")),
        tag,
    ))
}

/// `Severity Level: Major ⚠️` (in a `<summary>` or on its own line): critical, major -> high,
/// minor -> medium, ...
fn severity_level(body: &str) -> Option<Severity> {
    let plain = html::strip_tags(&markdown::mask_code(body));
    // ASCII lowering keeps byte offsets: `at` slices `plain`.
    let lower = plain.to_ascii_lowercase();
    let at = lower.find("severity level:")? + "severity level:".len();
    let word = plain[at..].split_whitespace().next()?;
    taxonomy::severity_word(word)
}

/// The bracketed tag: `[security]` and `[performance]` are categories, bug-like tags
/// (`logic error`, `type error`, `incomplete implementation`, ...) a weak bug label.
fn tag_category(tag: &str) -> NativeCategory {
    let lower = tag.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    if has(&["security", "vulnerab"]) {
        NativeCategory::strong(Category::Security)
    } else if has(&["performance"]) {
        NativeCategory::strong(Category::Performance)
    } else if has(&["style", "naming", "formatting"]) {
        NativeCategory::strong(Category::Style)
    } else if has(&["documentation"]) {
        NativeCategory::strong(Category::Docs)
    } else if has(&[
        "error",
        "bug",
        "incomplete",
        "race",
        "null",
        "leak",
        "crash",
        "incorrect",
    ]) {
        NativeCategory::weak(Category::Bug)
    } else {
        NativeCategory::none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::fixture;
    use crate::model::{CategorySource, Coverage};

    #[test]
    fn label_tag_and_severity() {
        let body = "**Suggestion:** The hourly counter resets on every call. [logic error]\n\n<details>\n<summary><b>Severity Level:</b> Major ⚠️</summary>\n\n- ⚠️ Budget never enforced.\n\n</details>";
        let (claim, tag) = suggestion(body).unwrap();
        assert_eq!(tag.as_deref(), Some("logic error"));
        assert!(claim.starts_with("The hourly counter resets on every call."));
        assert_eq!(severity_level(body), Some(Severity::High));
        assert_eq!(
            severity_level("Severity Level: Critical 🚨"),
            Some(Severity::Critical)
        );
        assert_eq!(
            severity_level("`Severity Level: Minor`"),
            None,
            "code is not a label"
        );
        assert_eq!(
            severity_level("İİİ \u{212A}\u{212A} Severity Level: Minor"),
            Some(Severity::Medium),
            "case changes that resize characters do not shift the label"
        );
        assert!(suggestion("**Suggestion:**  [tag]").is_err());
        assert_eq!(tag_category("type error").weak, Some(Category::Bug));
        assert_eq!(tag_category("security").strong, Some(Category::Security));
    }

    #[test]
    fn status_comments_start_then_finish() {
        assert_eq!(status("CodeAnt AI is reviewing your PR."), Status::Started);
        assert_eq!(
            status("CodeAnt AI finished reviewing commit 3f3f028a9c"),
            Status::Done(Some("3f3f028a9c".to_owned()))
        );
        assert_eq!(status("Thanks for the context!"), Status::Other);
    }

    #[test]
    fn sample_comments() {
        let out = fixture::parse(&CodeAnt, "bots/codeant");
        let got = fixture::places_and(&out.findings, |f| f.provenance.category_source);
        assert_eq!(
            got,
            vec![
                (
                    "app/services/discovery.py",
                    Some(220),
                    Severity::High,
                    "bug",
                    Some(CategorySource::TypeLabel)
                ),
                (
                    "app/db/queries.py",
                    Some(39),
                    Severity::Critical,
                    "security",
                    Some(CategorySource::Native)
                ),
            ]
        );
        assert!(out.findings[0].title.starts_with(
            "The hourly budget counter resets before it can reach the configured cap"
        ));
        assert!(!out.findings[0].detail.contains("Severity Level"));
        assert!(!out.findings[0].detail.contains("logic error"));
        assert_eq!(out.coverage, Coverage::Reviewed);
    }
}
