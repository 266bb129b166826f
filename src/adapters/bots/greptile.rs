//! Greptile (`greptile-apps[bot]`): one finding per inline comment. Current comments open
//! with a priority badge, `<a href="#"><img alt="P1" src="…/badges/p1.svg?v=9"></a> **Title**`
//! (P0 critical, P1 high, P2 medium, P3/P4 low); older ones with a type prefix
//! `**logic:**`, `**style:**`, `**syntax:**`. The summary issue comment (`<h3>Greptile
//! Summary</h3>`, 2026 `<h2>Greptile Overview</h2>` or `<!-- greptile_summary -->`, with its
//! PR-level confidence score) is not a finding: it says the review finished, of the commit
//! its "Last reviewed commit" link names.

use crate::adapters::read::inline::{self, Status};
use crate::adapters::read::taxonomy::{self, NativeCategory};
use crate::adapters::read::{html, markdown};
use crate::adapters::{Adapter, AdapterOutput, Identity, Signal};
use crate::api::PrSnapshot;
use crate::model::{Category, Severity};

/// Notices that mean Greptile did not review.
const DECLINED: &[&str] = &[
    "reviews paused",
    "review limit",
    "usage limit",
    "free trial has ended",
];

/// Markers of the summary comment that a finished review leaves (edited on each review).
const SUMMARY_MARKERS: &[&str] = &[
    "<!-- greptile_summary -->",
    "greptile summary</h",
    "greptile overview</h",
];

pub struct Greptile;

impl Adapter for Greptile {
    fn id(&self) -> &'static str {
        "greptile"
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &["greptile-apps[bot]"]
    }

    /// The `Greptile Review` check run of the `greptile-apps` app.
    fn signals(&self) -> &'static [Signal] {
        &[Signal::CheckRun("Greptile")]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        inline::parse(snapshot, &identity, status, |comment, anchor| {
            let body = markdown::normalize_newlines(&comment.body);
            let (severity, native, title, explanation) = read_body(&body)?;
            Ok(inline::finding(
                self.id(),
                comment,
                anchor,
                severity,
                &title,
                native,
                &explanation,
            ))
        })
    }
}

/// A notice declines; the summary says a review finished, of its last reviewed commit.
fn status(body: &str) -> Status {
    if inline::is_notice(body, DECLINED) {
        return Status::Declined;
    }
    let lower = markdown::mask_code(body).to_ascii_lowercase();
    if !SUMMARY_MARKERS.iter().any(|m| lower.contains(m)) {
        return Status::Other;
    }
    let commit = lower
        .find("last reviewed commit")
        .and_then(|at| inline::commit_after(&lower[at..], "/commit/"));
    Status::Done(commit)
}

/// Severity, weak category, title and explanation of one inline comment.
fn read_body(body: &str) -> Result<(Severity, NativeCategory, String, String), String> {
    if let Some(severity) = read_priority(body) {
        let (first, rest) = markdown::first_visible_line(body);
        let title = markdown::first_bold_span(first)
            .or_else(|| inline::sentence_title(rest))
            .ok_or("priority badge without a title")?;
        return Ok((severity, NativeCategory::none(), title, rest.to_owned()));
    }
    if let Some((category, rest)) = type_prefix(body) {
        let title = inline::sentence_title(rest).ok_or("type prefix without text")?;
        return Ok((
            Severity::Medium,
            NativeCategory::weak(category),
            title,
            rest.to_owned(),
        ));
    }
    let title = markdown::leading_bold_span(body)
        .or_else(|| inline::sentence_title(body))
        .ok_or("no title")?;
    Ok((
        Severity::Medium,
        NativeCategory::none(),
        title,
        body.to_owned(),
    ))
}

/// The priority badge on the first line, from its alt text or its `pN.svg` file name.
pub(crate) fn read_priority(body: &str) -> Option<Severity> {
    let (first_line, _) = markdown::first_visible_line(body);
    html::images(first_line).iter().find_map(|img| {
        taxonomy::priority_severity(&img.alt)
            .or_else(|| taxonomy::priority_severity(html::src_stem(&img.src)))
    })
}

/// The older `**logic:** text` prefix: the weak category it implies and the text after it.
pub(crate) fn type_prefix(body: &str) -> Option<(Category, &str)> {
    let rest = markdown::visible_start(body).strip_prefix("**")?;
    let (label, rest) = rest.split_once(":**")?;
    let category = match label.trim().to_ascii_lowercase().as_str() {
        "logic" | "syntax" => Category::Bug,
        "style" => Category::Style,
        "performance" => Category::Performance,
        "security" => Category::Security,
        _ => return None,
    };
    Some((category, rest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::fixture;
    use crate::model::{CategorySource, Coverage};

    /// Older comments open with prose and then bold section labels: the prose is the claim.
    #[test]
    fn a_section_label_after_the_opening_prose_is_not_the_title() {
        let body = "Around the shell variables `HOOK_CMD` has plain quotes, so the duplicate \
                    check never fires.\n\n**The Problem:**\n- the strings differ\n\n\
                    **The Fix:**\nEscape the quotes.";
        let (_, _, title, _) = read_body(body).expect("a finding");
        assert!(title.starts_with("Around the shell variables"), "{title}");
        let (_, _, title, _) =
            read_body("**Quote mismatch breaks detection**\n\nDetails.").expect("a finding");
        assert_eq!(title, "Quote mismatch breaks detection");
    }

    #[test]
    fn priority_from_alt_or_file_name() {
        let img = |alt: &str, src: &str| {
            format!(r##"<a href="#"><img alt="{alt}" src="{src}" align="top"></a> **T**"##)
        };
        let s3 = "https://greptile-static-assets.s3.amazonaws.com/badges";
        assert_eq!(
            read_priority(&img("P0", &format!("{s3}/p0.svg?v=9"))),
            Some(Severity::Critical)
        );
        assert_eq!(
            read_priority(&img("badge", &format!("{s3}/p2.svg?v=9"))),
            Some(Severity::Medium)
        );
        assert_eq!(read_priority(&img("P4", "x")), Some(Severity::Low));
        assert_eq!(read_priority("**logic:** x"), None);
        assert_eq!(
            read_priority("text\n<img alt=\"P1\" src=\"x\">"),
            None,
            "first line only"
        );
    }

    /// The sample folder (written from the research note's quoted shapes): badge comments,
    /// an older `**logic:**` comment, a reply, a badge with no text, the summary comment.
    #[test]
    fn sample_inline_comments() {
        let out = fixture::parse(&Greptile, "bots/greptile");
        let got = fixture::places_and(&out.findings, |f| f.title.as_str());
        assert_eq!(
            got,
            vec![
                ("app/services/refunds.py", Some(45), Severity::High, "bug", "Refund total ignores partially captured payments"),
                ("app/webhooks/verify.py", Some(12), Severity::Critical, "security", "Webhook secret written to the log"),
                ("app/webhooks/verify.py", Some(30), Severity::Low, "style", "Typo in the log message"),
                ("app/services/fx_rates.py", Some(41), Severity::Medium, "bug", "The loop exits after the first currency because return is inside the for body."),
            ]
        );
        assert_eq!(out.findings[0].evidence.end_line, Some(48));
        assert_eq!(
            out.findings[3].provenance.category_source,
            Some(CategorySource::TypeLabel)
        );
        assert!(!out.findings[0].detail.contains("Fix in Claude Code"));
        assert_eq!(out.malformed.len(), 1, "badge without a title");
        assert!(out.malformed[0].contains("3100000006"));
        assert_eq!(out.coverage, Coverage::Reviewed);
        assert!(out.findings.iter().all(|f| f.bot == "greptile"));
    }

    fn summary_only(body: &str, head: &str) -> AdapterOutput {
        let mut snapshot = PrSnapshot::default();
        snapshot.pull.head.sha = head.to_owned();
        snapshot.issue_comments.push(crate::api::IssueComment {
            id: 9,
            user: Some(crate::api::User {
                login: "greptile-apps[bot]".into(),
                id: 165735046,
                kind: "Bot".into(),
            }),
            body: Some(body.into()),
            ..crate::api::IssueComment::default()
        });
        Greptile.parse(&snapshot, &["greptile-apps[bot]".to_owned()])
    }

    /// A clean pass leaves only the summary: that is a review, never a finding.
    #[test]
    fn the_summary_or_overview_is_a_finished_review_not_a_finding() {
        let head = "c0ffee0000000000000000000000000000000001";
        let overview = "<h2>Greptile Overview</h2>\n\n<h3>Greptile Summary</h3>\n\n**P1** <img alt=\"P1\" src=\"https://greptile-static-assets.s3.amazonaws.com/badges/p1.svg\"> **Refund math is off**\n\n<h3>Confidence Score: 4/5</h3>\n\n<sub>Last reviewed commit: [\"Partial refunds\"](https://github.com/acme/payments-api/commit/c0ffee0)</sub>";
        let out = summary_only(overview, head);
        assert!(out.findings.is_empty(), "{:?}", out.findings);
        assert_eq!(out.coverage, Coverage::Reviewed);
        let older = overview.replace("c0ffee0", "bead123");
        assert_eq!(summary_only(&older, head).coverage, Coverage::Stale);
        let v2 = "<!-- greptile_summary -->\n\n<h2>Confidence Score: 5/5</h2>\n\nSafe to merge.";
        assert_eq!(summary_only(v2, head).coverage, Coverage::Reviewed);
        let ended = "Your Greptile free trial has ended. Upgrade to keep reviewing.";
        assert_eq!(summary_only(ended, head).coverage, Coverage::Declined);
        assert_eq!(
            summary_only("Thanks, noted!", head).coverage,
            Coverage::Absent,
            "a chat reply says nothing about coverage"
        );
    }
}
