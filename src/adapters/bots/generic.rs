//! The generic adapter: any bot login the user maps to it (`bots: generic=my-bot[bot]`).
//! One finding per inline comment; the bot's name is its login without `[bot]`; the title
//! is the first bold span, else the first sentence; severity comes from common words in the
//! comment's opening (a `Severity: high` line, a leading `**Critical:**`, `Nit:`…), else
//! medium; the category from the taxonomy (path rules, then keywords).

use crate::adapters::read::inline;
use crate::adapters::read::markdown;
use crate::adapters::read::taxonomy::NativeCategory;
use crate::adapters::{bot_name, Activity, Adapter, AdapterOutput, Identity, Signal};
use crate::api::PrSnapshot;
use crate::model::Severity;

pub struct Generic;

impl Adapter for Generic {
    fn id(&self) -> &'static str {
        "generic"
    }

    /// None: the generic adapter reads only the logins the user maps to it.
    fn default_logins(&self) -> &'static [&'static str] {
        &[]
    }

    fn source_per_login(&self) -> bool {
        true
    }

    /// Any check run of the mapped bot's own app (Baz's `Baz Reviewer` is its only signal on
    /// a clean pass) and any commit status it posts.
    fn signals(&self) -> &'static [Signal] {
        &[Signal::CheckRun(""), Signal::Status("")]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        let mut activity = Activity::new(snapshot.head_sha());
        let mut out = AdapterOutput::default();
        inline::read_comments(
            snapshot,
            &identity,
            &mut activity,
            &mut out,
            |comment, anchor| {
                let body = markdown::normalize_newlines(&comment.body);
                let prose = without_severity_lines(&body);
                let title = markdown::first_bold_span(&prose)
                    .map(|bold| strip_leading_label(&bold))
                    .filter(|t| !t.is_empty())
                    .or_else(|| inline::sentence_title(&prose))
                    .ok_or("no title")?;
                let login = comment.user.as_ref().map_or("", |u| u.login.as_str());
                let bot = bot_name(login);
                let mut finding = inline::finding(
                    &bot,
                    comment,
                    anchor,
                    stated_severity(&body).unwrap_or(Severity::Medium),
                    &title,
                    NativeCategory::none(),
                    &prose,
                );
                finding.nitpick = is_nitpick(&body);
                Ok(finding)
            },
        );
        inline::note_activity(snapshot, &identity, &[], &mut activity, &mut out);
        out.set_coverage(&activity);
        out
    }
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
    use crate::adapters::{fixture, ExtractOptions};
    use crate::model::{Coverage, SourceState};

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

    /// A user-mapped login: findings named after the login without `[bot]`; human comments
    /// and other bots ignored; the empty body reported as malformed.
    #[test]
    fn mapped_login_sample() {
        let extraction = fixture::extract_one(
            "generic",
            &["acme-reviewer[bot]"],
            "bots/generic",
            &ExtractOptions::default(),
        );
        let got: Vec<_> = extraction
            .findings
            .iter()
            .map(|f| {
                (
                    f.bot.as_str(),
                    f.evidence.line,
                    f.severity,
                    f.category.as_str(),
                    f.title.as_str(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("acme-reviewer", Some(31), Severity::Critical, "security", "SQL injection through string formatting."),
                ("acme-reviewer", Some(40), Severity::Low, "style", "Nit: the variable name tmp2 says nothing about what it holds."),
                ("acme-reviewer", Some(47), Severity::High, "other", "The retry loop never sleeps, so an outage makes it spin and hammer the provider."),
                ("acme-reviewer", Some(12), Severity::Medium, "docs", "This docstring still describes the old return value."),
            ]
        );
        assert!(extraction.findings[1].nitpick);
        let status = &extraction.sources[0];
        assert_eq!(status.bot, "acme-reviewer");
        assert_eq!(status.status, SourceState::Ok);
        assert_eq!(status.coverage, Coverage::Reviewed);
        assert_eq!(status.skipped, 1);
    }

    /// Two unrelated bots mapped to `generic` are two sources, so agreement between them
    /// is measured against a denominator that counts both.
    #[test]
    fn each_mapped_login_is_a_source_of_its_own() {
        let extraction = fixture::extract_one(
            "generic",
            &["acme-reviewer[bot]", "other-reviewer[bot]"],
            "bots/generic",
            &ExtractOptions::default(),
        );
        let sources: Vec<_> = extraction
            .sources
            .iter()
            .map(|s| (s.bot.as_str(), s.coverage))
            .collect();
        assert_eq!(
            sources,
            [
                ("acme-reviewer", Coverage::Reviewed),
                ("other-reviewer", Coverage::Absent)
            ]
        );
        assert!(extraction.findings.iter().all(|f| f.bot == "acme-reviewer"));
    }

    #[test]
    fn not_a_default_source() {
        assert!(Generic.default_logins().is_empty());
        assert!(!crate::adapters::default_sources()
            .iter()
            .any(|s| s.adapter == "generic"));
    }
}
