//! Gemini Code Assist (`gemini-code-assist[bot]`): one finding per inline comment, severity
//! from the badge image on the first line (`![high](…/high-priority.svg)`; the critical
//! asset is `critical.svg`, older bodies link `critical-priority.svg`), no title of its own:
//! the first sentence of the prose is the title. The summary (issue comment or review) and the
//! `## Code Review` overview review carry no per-line findings and are never read.

use crate::adapters::read::taxonomy::NativeCategory;
use crate::adapters::read::{html, inline, markdown};
use crate::adapters::{Adapter, AdapterOutput, Identity};
use crate::api::PrSnapshot;
use crate::model::Severity;

/// Notices that mean Gemini did not review (quota, unsupported files, the 2026-07 sunset of
/// the consumer app).
const DECLINED: &[&str] = &[
    "unable to generate a review",
    "daily quota limit",
    "rate limit",
    SUNSET,
];

/// The banner the consumer app posts on every PR since it shut down (2026-07-17).
const SUNSET: &str = "has been sunset";

pub struct Gemini;

impl Adapter for Gemini {
    fn id(&self) -> &'static str {
        "gemini"
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &["gemini-code-assist[bot]"]
    }

    fn user_ids(&self) -> &'static [u64] {
        &[176961590]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        let status = inline::declines(DECLINED);
        let mut out = inline::parse(snapshot, &identity, status, |comment, anchor| {
            let body = markdown::normalize_newlines(&comment.body);
            let (severity, rest) = read_badge(&body);
            let none = NativeCategory::none();
            inline::claim_finding(self.id(), comment, anchor, severity, none, rest)
                .ok_or_else(|| "no text after the severity badge".to_owned())
        });
        let sunset = snapshot.issue_comments.iter().any(|c| {
            identity.matches(c.user.as_ref())
                && inline::is_notice(c.body.as_deref().unwrap_or(""), &[SUNSET])
        });
        if sunset {
            out.notes.push(
                "the consumer Gemini Code Assist app has been sunset: drop `gemini` from `bots`"
                    .to_owned(),
            );
        }
        out
    }
}

/// The severity badge at the start of the body and the text after it.
pub(crate) fn read_badge(body: &str) -> (Option<Severity>, &str) {
    let Some(rest) = markdown::visible_start(body).strip_prefix("![") else {
        return (None, body);
    };
    let Some((alt, rest)) = rest.split_once("](") else {
        return (None, body);
    };
    let Some((url, rest)) = rest.split_once(')') else {
        return (None, body);
    };
    let severity = severity_word(alt).or_else(|| severity_word(html::src_stem(url)));
    match severity {
        Some(severity) => (Some(severity), rest),
        None => (None, body),
    }
}

/// `critical`, `high-priority`, `Medium`, … -> the severity.
fn severity_word(word: &str) -> Option<Severity> {
    let word = word.trim().to_ascii_lowercase();
    let word = word.strip_suffix("-priority").unwrap_or(&word);
    match word {
        "critical" => Some(Severity::Critical),
        "high" => Some(Severity::High),
        "medium" => Some(Severity::Medium),
        "low" => Some(Severity::Low),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::{fixture, ExtractOptions};
    use crate::model::{CategorySource, Coverage, SourceState};

    /// `bots/gemini`: the second comment opens with an HTML comment and a `[//]: # (…)` line
    /// before its badge (issue 24): the badge still gives its severity.
    #[test]
    fn sample_comments() {
        let out = fixture::parse(&Gemini, "bots/gemini");
        assert!(out.malformed.is_empty(), "{:?}", out.malformed);
        let got = fixture::places_and(&out.findings, |f| f.title.as_str());
        assert_eq!(
            got,
            vec![
                (
                    "app/services/fx_rates.py",
                    Some(44),
                    Severity::Medium,
                    "performance",
                    "The rate table is fetched again for every payout in the batch."
                ),
                (
                    "app/services/fx_rates.py",
                    Some(61),
                    Severity::High,
                    "bug",
                    "Rounding with round() on a float product can pay out one cent too much."
                ),
            ]
        );
        assert_eq!(out.coverage, Coverage::Reviewed);
    }

    #[test]
    fn badge_from_alt_text_or_url_in_both_critical_spellings() {
        let cases = [
            (
                "![critical](https://www.gstatic.com/codereviewagent/critical.svg)\n\nx",
                Some(Severity::Critical),
            ),
            (
                "![critical](https://www.gstatic.com/codereviewagent/critical-priority.svg) x",
                Some(Severity::Critical),
            ),
            (
                "![badge](https://www.gstatic.com/codereviewagent/critical-priority.svg?v=2) x",
                Some(Severity::Critical),
            ),
            (
                "![High](https://www.gstatic.com/codereviewagent/high-priority.svg) x",
                Some(Severity::High),
            ),
            (
                "  ![medium](https://x/medium-priority.svg) x",
                Some(Severity::Medium),
            ),
            ("![low](https://x/low-priority.svg) x", Some(Severity::Low)),
            ("![logo](https://x/logo.svg) x", None),
            ("![unclosed](https://x/high", None),
            ("no badge at all", None),
        ];
        for (body, expected) in cases {
            assert_eq!(read_badge(body).0, expected, "{body}");
        }
        assert_eq!(read_badge("![low](u)\n\nRest.").1, "\n\nRest.");
    }

    /// pr-102 expected.md, GM1-GM5: file, line, severity, category.
    #[test]
    fn pr102_five_inline_findings_as_expected() {
        let out = fixture::parse(&Gemini, "pr-102-gemini-copilot");
        assert!(out.malformed.is_empty(), "{:?}", out.malformed);
        assert_eq!(out.coverage, Coverage::Reviewed);
        let got: Vec<_> = out
            .findings
            .iter()
            .map(|f| {
                (
                    f.provenance.comment_id.unwrap_or(0),
                    f.evidence.file.as_str(),
                    f.evidence.line,
                    f.severity,
                    f.category.as_str(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    2529904410,
                    "app/webhooks/verify.py",
                    Some(20),
                    Severity::Critical,
                    "security"
                ),
                (
                    2529904411,
                    "web/src/lib/currency.ts",
                    Some(21),
                    Severity::High,
                    "bug"
                ),
                (
                    2529904412,
                    "app/services/fx_rates.py",
                    Some(32),
                    Severity::Medium,
                    "bug"
                ),
                (
                    2529904413,
                    "app/services/fx_rates.py",
                    Some(40),
                    Severity::Medium,
                    "performance"
                ),
                (
                    2529904414,
                    "app/services/fx_rates.py",
                    Some(17),
                    Severity::Low,
                    "style"
                ),
            ]
        );
        let gm1 = &out.findings[0];
        assert!(
            gm1.title.starts_with("Comparing the signatures with !="),
            "{}",
            gm1.title
        );
        assert!(
            gm1.title.chars().count() <= 120,
            "long first sentence shortened"
        );
        let gm5 = &out.findings[4].title;
        assert!(gm5.starts_with(
            "Per PEP 8, function names should be snake_case; consider renaming getRates"
        ));
        assert!(gm5.ends_with('…'), "cut at a word boundary: {gm5}");
        assert_eq!(gm1.provenance.review_id, Some(3447102953));
        assert_eq!(
            gm1.provenance.commit.as_deref(),
            Some("b71e4c09d2a35f6e8b0c1d2e3f4a5b6c7d8e9f01")
        );
        assert_eq!(
            gm1.provenance.url.as_deref(),
            Some("https://github.com/acme/payments-api/pull/102#discussion_r2529904410")
        );
        assert_eq!(
            gm1.provenance.category_source,
            Some(CategorySource::Keyword)
        );
        assert!(
            !gm1.detail.contains("```"),
            "suggestion block not in detail"
        );
        assert!(out
            .findings
            .iter()
            .all(|f| f.bot == "gemini" && f.confidence == 1.0));
    }

    /// Summary issue comment, `## Code Review` review and the human `/gemini review` never
    /// become findings: only the five inline comments do.
    #[test]
    fn pr102_summary_and_overview_are_ignored() {
        let out = fixture::parse(&Gemini, "pr-102-gemini-copilot");
        assert_eq!(out.findings.len(), 5);
        assert!(out
            .findings
            .iter()
            .all(|f| f.provenance.comment_id.is_some_and(|id| id < 2_600_000_000)));
        assert!(out.findings.iter().all(|f| !f.title.contains("Summary")));
    }

    /// pr-103: E3' (performance, inside CodeRabbit's range), E4 (CRLF + unicode + a forged
    /// marker, high/bug), E5c (empty body: malformed), summary and overview reviews ignored,
    /// coverage stale (Gemini reviewed only the earlier head).
    #[test]
    fn pr103_edge_cases() {
        let extraction = fixture::extract_one(
            "gemini",
            &[],
            "pr-103-edge-cases",
            &ExtractOptions::default(),
        );
        let status = &extraction.sources[0];
        assert_eq!(status.status, SourceState::Ok);
        assert_eq!(status.coverage, Coverage::Stale);
        assert_eq!(status.skipped, 1, "{:?}", status.notes);
        assert!(status
            .notes
            .iter()
            .any(|n| n.contains("2561205503") && n.contains("empty")));
        let got = fixture::places(&extraction.findings);
        assert_eq!(
            got,
            vec![
                ("web/src/i18n/ja.ts", Some(4), Severity::High, "bug"),
                (
                    "app/services/reconcile.py",
                    Some(22),
                    Severity::Medium,
                    "performance"
                ),
            ]
        );
        let e4 = &extraction.findings[0];
        assert!(!e4.title.contains('\r'));
        assert!(
            e4.title
                .starts_with("The placeholder {amount} uses single braces"),
            "{}",
            e4.title
        );
    }

    #[test]
    fn badge_without_text_is_malformed_and_no_badge_is_medium() {
        use crate::api::{ReviewComment, User};
        let comment = |id: u64, body: &str| ReviewComment {
            id,
            user: Some(User {
                login: "gemini-code-assist[bot]".into(),
                id: 176961590,
                kind: "Bot".into(),
            }),
            body: body.into(),
            path: Some("a.py".into()),
            line: Some(3),
            original_line: Some(3),
            ..ReviewComment::default()
        };
        let snapshot = PrSnapshot {
            review_comments: vec![
                comment(1, "![high](https://x/high-priority.svg)\n\n"),
                comment(2, "Plain prose without a badge. More."),
            ],
            ..PrSnapshot::default()
        };
        let out = Gemini.parse(&snapshot, &["gemini-code-assist[bot]".to_owned()]);
        assert_eq!(out.malformed.len(), 1);
        assert_eq!(out.findings.len(), 1);
        assert_eq!(out.findings[0].severity, Severity::Medium);
        assert_eq!(out.findings[0].title, "Plain prose without a badge.");
    }
}

#[cfg(test)]
mod coverage_tests {
    use super::*;
    use crate::api::{IssueComment, Review, User};
    use crate::model::Coverage;

    fn bot() -> Option<User> {
        Some(User {
            login: "gemini-code-assist[bot]".into(),
            id: 176961590,
            kind: "Bot".into(),
        })
    }

    #[test]
    fn quota_notice_alone_is_declined_and_a_summary_is_not_a_notice() {
        let notice = IssueComment {
            id: 1,
            user: bot(),
            body: Some(
                "You have reached your daily quota limit. Please wait up to 24 hours.".into(),
            ),
            ..IssueComment::default()
        };
        let mut snapshot = PrSnapshot {
            issue_comments: vec![notice],
            ..PrSnapshot::default()
        };
        snapshot.pull.head.sha = "head".into();
        let logins = ["gemini-code-assist[bot]".to_owned()];
        let out = Gemini.parse(&snapshot, &logins);
        assert_eq!(out.coverage, Coverage::Declined);
        assert!(out.findings.is_empty());

        let long_summary = format!(
            "## Code Review\n\nAdds a rate limit to the API. {}",
            "More. ".repeat(300)
        );
        snapshot.reviews.push(Review {
            id: 2,
            user: bot(),
            body: Some(long_summary),
            commit_id: Some("head".into()),
            ..Review::default()
        });
        assert_eq!(
            Gemini.parse(&snapshot, &logins).coverage,
            Coverage::Reviewed
        );
        assert!(Gemini.parse(&PrSnapshot::default(), &logins).coverage == Coverage::Absent);
    }

    #[test]
    fn the_sunset_banner_is_declined_with_a_hint() {
        let banner = IssueComment {
            id: 3,
            user: bot(),
            body: Some("> [!CAUTION]\n> The consumer version of Gemini Code Assist on GitHub has been sunset. All code review activity has officially ceased.".into()),
            ..IssueComment::default()
        };
        let snapshot = PrSnapshot {
            issue_comments: vec![banner],
            ..PrSnapshot::default()
        };
        let out = Gemini.parse(&snapshot, &["gemini-code-assist[bot]".to_owned()]);
        assert_eq!(out.coverage, Coverage::Declined);
        assert!(
            out.notes.iter().any(|n| n.contains("sunset")),
            "{:?}",
            out.notes
        );
    }
}
