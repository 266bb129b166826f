//! Korbit (`korbit-ai[bot]`, id 131444098). The service has shut down (2025-11): its old
//! comments on long-lived PRs are still read when `bots` lists `korbit`, but it is not in
//! the default. Its inline comments opened with shields.io badges, a category and a
//! severity (`![category Functionality](…/badge/Functionality-0d9488)
//! ![severity 3](…/badge/Severity-3-f97316)`, or worded `Severity-Major`), then a bold or
//! `<summary>` title and prose; read leniently (no verbatim capture was found): the badges
//! when present, else like the generic adapter. Formats: docs/adapters.md.

use crate::adapters::read::inline;
use crate::adapters::read::taxonomy::{self, NativeCategory};
use crate::adapters::read::{html, markdown, prose};
use crate::adapters::{Adapter, AdapterOutput, Identity};
use crate::api::PrSnapshot;
use crate::model::{Category, Severity};

pub struct Korbit;

const ID: &str = "korbit";

impl Adapter for Korbit {
    fn id(&self) -> &'static str {
        ID
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &["korbit-ai[bot]"]
    }

    fn user_ids(&self) -> &'static [u64] {
        &[131444098]
    }

    fn retired(&self) -> bool {
        true
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        let status = inline::declines(&[]);
        inline::parse(snapshot, &identity, status, |comment, anchor| {
            let body = markdown::normalize_newlines(&comment.body);
            let (severity, native) = badges(&body);
            let prose = prose::read(&body)?;
            // `<details><summary>Title</summary>explanation</details>` when the prose
            // has no bold title of its own.
            let summary_block = markdown::details_blocks(&body, &markdown::mask_code(&body))
                .into_iter()
                .find(|d| d.depth == 0 && !d.summary.is_empty())
                .filter(|_| markdown::leading_bold_span(&body).is_none());
            let (title, explanation) = match summary_block {
                Some(block) => (
                    block.summary,
                    body.get(block.inner).unwrap_or("").to_owned(),
                ),
                None => (prose.title, prose.explanation),
            };
            let mut finding = inline::finding(
                ID,
                comment,
                anchor,
                severity.or(prose.severity).unwrap_or(Severity::Medium),
                &title,
                native,
                &explanation,
            );
            finding.nitpick = prose.nitpick;
            Ok(finding)
        })
    }
}

/// Severity and category badges: `Severity-<word or 1-4>`, and a category badge
/// (`Functionality`, `Security`, `Performance`, `Error Handling`, `Readability`, ...).
fn badges(body: &str) -> (Option<Severity>, NativeCategory) {
    let mut severity = None;
    let mut native = NativeCategory::none();
    for (alt, url) in markdown::images(body) {
        let Some((label, message)) = html::shields_badge(&url) else {
            continue;
        };
        let alt = alt.to_lowercase();
        if label.eq_ignore_ascii_case("severity") || alt.starts_with("severity") {
            severity = severity.or_else(|| severity_badge(&message));
        } else if alt.starts_with("category") || label.is_empty() {
            native.strong = native.strong.or_else(|| category_badge(&message));
        }
    }
    (severity, native)
}

/// `Major`, `Potentially Major`, or a number (1 low … 4 critical).
fn severity_badge(message: &str) -> Option<Severity> {
    match message.trim() {
        "1" => Some(Severity::Low),
        "2" => Some(Severity::Medium),
        "3" => Some(Severity::High),
        "4" => Some(Severity::Critical),
        other => other.split_whitespace().find_map(taxonomy::severity_word),
    }
}

fn category_badge(name: &str) -> Option<Category> {
    let lower = name.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    if has(&["security"]) {
        Some(Category::Security)
    } else if has(&["performance"]) {
        Some(Category::Performance)
    } else if has(&["functionality", "error handling", "logging"]) {
        Some(Category::Bug)
    } else if has(&["readability", "design", "maintainab"]) {
        Some(Category::Maintainability)
    } else if has(&["documentation"]) {
        Some(Category::Docs)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::fixture;
    use crate::model::{CategorySource, Coverage};

    #[test]
    fn badges_and_retirement() {
        let (severity, native) = badges("![category Security](https://img.shields.io/badge/Security-e11d48) ![severity 4](https://img.shields.io/badge/Severity-4-ef4444)");
        assert_eq!(
            (severity, native.strong),
            (Some(Severity::Critical), Some(Category::Security))
        );
        assert_eq!(severity_badge("Potentially Major"), Some(Severity::High));
        assert!(Korbit.retired());
        assert!(!crate::adapters::default_sources()
            .iter()
            .any(|s| s.adapter == ID));
    }

    #[test]
    fn old_comments_are_still_read() {
        let out = fixture::parse(&Korbit, "bots/korbit");
        let got = fixture::places_and(&out.findings, |f| {
            (f.provenance.category_source, f.title.as_str())
        });
        assert_eq!(
            got,
            vec![
                (
                    "app/services/fx_rates.py",
                    Some(33),
                    Severity::High,
                    "bug",
                    (Some(CategorySource::Native), "Missing rate raises KeyError")
                ),
                (
                    "app/services/fx_rates.py",
                    Some(12),
                    Severity::Low,
                    "other",
                    (Some(CategorySource::Fallback), "Unclear helper name.")
                ),
            ]
        );
        assert_eq!(
            out.coverage,
            Coverage::Stale,
            "Korbit's last reviews are old"
        );
        assert_eq!(
            out.coverage_signal.as_deref(),
            Some("review on an older commit")
        );
    }
}
