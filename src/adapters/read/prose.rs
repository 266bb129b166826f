//! Prose-only inline comments (the generic adapter, Claude, Bito, Korbit): the title is
//! the bold span that opens the comment (a leading `Critical:`-style label removed), else
//! the first sentence; a severity is read only from common words in the comment's opening
//! (a `Severity: high` line, a leading `**Critical:**`, `[major]`, `Nit:`…), never from
//! prose.

use crate::adapters::read::{inline, markdown};
use crate::model::Severity;

/// What a prose comment says.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Prose {
    pub title: String,
    pub severity: Option<Severity>,
    pub nitpick: bool,
    /// The body without its severity label lines (Markdown).
    pub explanation: String,
}

/// Read one prose comment, from its first visible line; `Err` when it has no text for a
/// title.
pub(crate) fn read(body: &str) -> Result<Prose, String> {
    let normalized = markdown::normalize_newlines(body);
    let body = markdown::visible_start(&normalized);
    let mut explanation = without_severity_lines(body);
    let bold = markdown::leading_bold_span(&explanation);
    let title = bold
        .as_deref()
        .map(strip_leading_label)
        .filter(|t| !t.is_empty())
        .or_else(|| inline::sentence_title(&explanation))
        .ok_or("no title")?;
    // A first paragraph that is only the bold title is not explanation too.
    let trimmed = explanation.trim_start();
    let (first, rest) = trimmed.split_once("\n\n").unwrap_or((trimmed, ""));
    if bold.is_some_and(|b| markdown::inline_plain(first) == b) {
        explanation = rest.to_owned();
    }
    Ok(Prose {
        title,
        severity: stated_severity(body),
        nitpick: is_nitpick(body),
        explanation,
    })
}

/// The body without `Severity: high` / `Priority: P1` label lines (they are not the title).
fn without_severity_lines(body: &str) -> String {
    body.lines()
        .filter(|line| {
            let lower = line.trim().trim_matches('*').trim().to_lowercase();
            !(lower.starts_with("severity") || lower.starts_with("priority")) || lower.len() > 30
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `Critical: SQL built …` -> `SQL built …` (the label is the severity, not the title).
fn strip_leading_label(title: &str) -> String {
    match title.split_once(':') {
        Some((label, rest)) if severity_word(&label.trim().to_lowercase()).is_some() => {
            rest.trim().to_owned()
        }
        _ => title.trim().to_owned(),
    }
}

/// How far into the body a leading severity word is looked for: the label area, not prose.
const OPENING_CHARS: usize = 80;

/// A severity stated in the body: `severity:`/`priority:` anywhere, else a severity word
/// as the first word of the body. `nit` also marks a nitpick.
pub(crate) fn stated_severity(body: &str) -> Option<Severity> {
    let lower = body.to_lowercase();
    for key in ["severity:", "priority:", "severity -", "severity ="] {
        if let Some(pos) = lower.find(key) {
            let after = &lower[pos + key.len()..];
            if let Some(word) = words(after).next() {
                if let Some(severity) = severity_word(word) {
                    return Some(severity);
                }
            }
        }
    }
    let opening: String = lower.chars().take(OPENING_CHARS).collect();
    let first_line = opening.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    // only the first word: `Critical: …`, `[major] …`, `🔴 High …`, `Nit: …`
    let found = words(first_line).next().and_then(severity_word);
    found
}

/// Whether the opening marks the comment as a nitpick (`Nit:`, `[nitpick]`).
pub(crate) fn is_nitpick(body: &str) -> bool {
    let opening: String = body.to_lowercase().chars().take(OPENING_CHARS).collect();
    let nit = words(&opening)
        .take(3)
        .any(|w| w == "nit" || w == "nitpick");
    nit
}

fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

fn severity_word(word: &str) -> Option<Severity> {
    match word {
        "critical" | "blocker" | "p0" => Some(Severity::Critical),
        "high" | "major" | "severe" | "p1" => Some(Severity::High),
        "medium" | "moderate" | "p2" => Some(Severity::Medium),
        "low" | "minor" | "nit" | "nitpick" | "trivial" | "p3" => Some(Severity::Low),
        "info" | "note" | "informational" => Some(Severity::Info),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severity_words() {
        assert_eq!(
            stated_severity("**Critical: SQL**"),
            Some(Severity::Critical)
        );
        assert_eq!(stated_severity("Blocker - x"), Some(Severity::Critical));
        assert_eq!(stated_severity("[major] x"), Some(Severity::High));
        assert_eq!(
            stated_severity("Severity: moderate\n\nx"),
            Some(Severity::Medium)
        );
        assert_eq!(stated_severity("Nit: rename"), Some(Severity::Low));
        assert_eq!(stated_severity("minor: typo"), Some(Severity::Low));
        assert_eq!(stated_severity("Note: fine"), Some(Severity::Info));
        assert_eq!(
            stated_severity("This has a high chance of failing later on when a low value arrives"),
            None,
            "prose after the opening words is not a label"
        );
        assert!(is_nitpick("nit: x"));
        assert!(!is_nitpick("a nitty gritty"));
        assert_eq!(strip_leading_label("Critical: SQL built"), "SQL built");
        assert_eq!(strip_leading_label("Note that x: y"), "Note that x: y");
    }

    #[test]
    fn reads_title_severity_and_nitpick() {
        let p = read("**Critical: SQL built from user input.**\n\nUse parameters.").unwrap();
        assert_eq!(
            (p.title.as_str(), p.severity, p.nitpick),
            (
                "SQL built from user input.",
                Some(Severity::Critical),
                false
            )
        );
        let p = read("Severity: low\nNit: rename `tmp2`.").unwrap();
        assert_eq!(p.severity, Some(Severity::Low));
        assert!(p.nitpick);
        assert!(!p.explanation.contains("Severity"));
        assert!(read("<!-- hidden -->").is_err());
    }
}
