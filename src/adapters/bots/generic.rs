//! The generic adapter: any bot login the user maps to it (`bots: generic=my-bot[bot]`).
//! One finding per inline comment; the bot's name is its login without `[bot]`; the title
//! is the first bold span, else the first sentence; severity comes from common words in the
//! comment's opening (a `Severity: high` line, a leading `**Critical:**`, `Nit:`…), else
//! medium (`read/prose.rs`); the category from the taxonomy (path rules, then keywords).

use crate::adapters::read::inline;
use crate::adapters::{bot_name, Adapter, AdapterOutput, Identity, Signal};
use crate::api::PrSnapshot;

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
        let status = inline::declines(&[]);
        inline::parse(snapshot, &identity, status, |comment, anchor| {
            let login = comment.user.as_ref().map_or("", |u| u.login.as_str());
            inline::prose_finding(&bot_name(login), comment, anchor)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::{fixture, ExtractOptions};
    use crate::model::{Coverage, Severity, SourceState};

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
        let got = fixture::places_and(&extraction.findings, |f| (f.bot.as_str(), f.title.as_str()));
        assert_eq!(
            got,
            vec![
                ("app/api/payouts.py", Some(31), Severity::Critical, "security", ("acme-reviewer", "SQL injection through string formatting.")),
                ("app/api/payouts.py", Some(40), Severity::Low, "style", ("acme-reviewer", "Nit: the variable name tmp2 says nothing about what it holds.")),
                ("app/services/reconcile.py", Some(47), Severity::High, "other", ("acme-reviewer", "The retry loop never sleeps, so an outage makes it spin and hammer the provider.")),
                ("app/services/reconcile.py", Some(12), Severity::Medium, "docs", ("acme-reviewer", "This docstring still describes the old return value.")),
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
