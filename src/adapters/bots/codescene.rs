//! CodeScene (`codescene-delta-analysis[bot]`): a code-health review. Each finding is an
//! inline comment whose first line names a code smell the PR introduced or made worse,
//! `❌ New issue: Complex Method` or `❌ Getting worse: **Large Method**`, then the measure
//! (`reconcile_batch has a cyclomatic complexity of 14, threshold = 9`) and a Suppress link;
//! `✅ Getting better: …` and `✅ No longer an issue: …` comments are improvements, not
//! findings. The review body (`[//]: # (cs-code-health)`, **Gates Failed** / **Gates
//! Passed**, "Code Health Improved") is the finished review; its failed quality gates are
//! noted, not read as findings (they repeat the inline comments). Code-health smells are
//! maintainability remarks: low severity unless another bot agrees. Formats:
//! docs/adapters.md, docs/bot-formats.md.

use crate::adapters::read::inline::{self, Status};
use crate::adapters::read::markdown;
use crate::adapters::read::taxonomy::NativeCategory;
use crate::adapters::{Activity, Adapter, AdapterOutput, Identity};
use crate::api::{PrSnapshot, ReviewComment};
use crate::model::{Category, Severity};

/// Notices that mean CodeScene did not analyse the PR (inferred from its docs' wording).
const DECLINED: &[&str] = &[
    "analysis failed",
    "could not analyze",
    "could not analyse",
    "license",
    "quota",
];

/// The hidden marker of its review body.
const REVIEW_MARKER: &str = "cs-code-health";

pub struct CodeScene;

const ID: &str = "codescene";

/// What a comment's first line says about a smell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// `❌ New issue` / `❌ Getting worse`: the PR's doing, a finding.
    Worse,
    /// `✅ Getting better` / `✅ No longer an issue` / `✅ Fixed`: an improvement.
    Better,
}

impl Adapter for CodeScene {
    fn id(&self) -> &'static str {
        ID
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &["codescene-delta-analysis[bot]"]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        let mut activity = Activity::new(snapshot.head_sha());
        let mut out = AdapterOutput::default();
        let is_finding =
            |c: &ReviewComment| !matches!(header(&c.body), Some((Verdict::Better, _, _)));
        inline::read_comments_where(
            snapshot,
            &identity,
            &mut activity,
            &mut out,
            is_finding,
            |comment, anchor| {
                let (_, smell, measure) =
                    header(&comment.body).ok_or("no `❌ New issue:` / `Getting worse:` line")?;
                if smell.is_empty() {
                    return Err("no code smell named".to_owned());
                }
                let sentence = inline::sentence_title(&measure).unwrap_or_default();
                let title = if sentence.is_empty() {
                    smell.clone()
                } else {
                    format!("{smell}: {sentence}")
                };
                let native = NativeCategory::strong(Category::Maintainability);
                let mut finding =
                    inline::finding(ID, comment, anchor, Severity::Low, &title, native, &measure);
                finding.evidence.symbol = smell;
                Ok(finding)
            },
        );
        for review in &snapshot.reviews {
            if !identity.matches(review.user.as_ref()) {
                continue;
            }
            let gates = failed_gates(review.body.as_deref().unwrap_or(""));
            if !gates.is_empty() {
                out.notes.push(format!(
                    "quality gates failed (review {}): {}",
                    review.id,
                    gates.join("; ")
                ));
            }
        }
        inline::note_statuses(snapshot, &identity, status, &mut activity, &mut out);
        out.set_coverage(&activity);
        out
    }
}

/// Its review body is a finished review; a short failure notice declines.
fn status(body: &str) -> Status {
    if inline::is_notice(body, DECLINED) {
        Status::Declined
    } else if body.contains(REVIEW_MARKER) {
        Status::Done(None)
    } else {
        Status::Other
    }
}

/// The first visible line `❌ New issue: Complex Method` (the label or the smell possibly
/// bold, `❌ **New issue:** Primitive Obsession`; a hidden `[//]: # (…)` line before it
/// skipped): the verdict, the smell and the text below (the measure, without the Suppress
/// link).
fn header(body: &str) -> Option<(Verdict, String, String)> {
    let visible = markdown::strip_hidden(&markdown::normalize_newlines(body));
    let (line, below) = markdown::first_visible_line(&visible);
    let line = markdown::inline_plain(line.trim());
    let verdict = if line.starts_with('❌') {
        Verdict::Worse
    } else if line.starts_with('✅') {
        Verdict::Better
    } else {
        return None;
    };
    let (_, smell) = line.split_once(':')?;
    let smell = smell.trim().replace('`', "");
    let measure: Vec<&str> = below.lines().filter(|l| !is_suppress_link(l)).collect();
    Some((verdict, smell, measure.join("\n").trim().to_owned()))
}

/// The `Suppress` link CodeScene puts under each finding.
fn is_suppress_link(line: &str) -> bool {
    let plain = markdown::inline_plain(line.trim());
    plain.eq_ignore_ascii_case("suppress")
}

/// The gates listed under **Gates Failed**, up to **Gates Passed** or the end: the text of
/// each line after its icon (`Enforce advisory code health rules (1 file with Complex
/// Method)`).
fn failed_gates(body: &str) -> Vec<String> {
    if !body.contains(REVIEW_MARKER) {
        return Vec::new();
    }
    let body = markdown::normalize_newlines(body);
    let Some((_, after)) = body.split_once("**Gates Failed**") else {
        return Vec::new();
    };
    after
        .lines()
        .take_while(|l| !l.contains("**Gates Passed**") && !l.contains("<details"))
        .map(|l| markdown::inline_plain(l.trim()).replace('`', ""))
        .filter(|l| !l.is_empty() && !l.to_lowercase().starts_with("our agent"))
        .map(|l| markdown::shorten(&l, 160))
        .take(5)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::fixture;
    use crate::model::Coverage;

    #[test]
    fn headers() {
        let (verdict, smell, measure) = header(
            "❌ Getting worse: **Large Method**\nsettle_refund grows from 74 to 92 lines, threshold = 70\n\n[Suppress](https://codescene.io/x)",
        )
        .unwrap();
        assert_eq!(verdict, Verdict::Worse);
        assert_eq!(smell, "Large Method");
        assert_eq!(
            measure,
            "settle_refund grows from 74 to 92 lines, threshold = 70"
        );
        assert_eq!(
            header("✅ No longer an issue: Complex Conditional").map(|h| h.0),
            Some(Verdict::Better)
        );
        assert_eq!(header("A remark without a verdict"), None);
        // Issue 24: a hidden link-definition line first, the label bold.
        let (verdict, smell, measure) = header(
            "[//]: # (cs-code-health)\n❌ **New issue:** Primitive Obsession\nIn this module, 62.5% of all function arguments are primitive types, threshold = 30.0%",
        )
        .unwrap();
        assert_eq!(
            (verdict, smell.as_str()),
            (Verdict::Worse, "Primitive Obsession")
        );
        assert!(measure.starts_with("In this module, 62.5%"), "{measure}");
    }

    #[test]
    fn sample_review() {
        let out = fixture::parse(&CodeScene, "bots/codescene");
        let got = fixture::places_and(&out.findings, |f| f.title.as_str());
        assert_eq!(
            got,
            vec![
                (
                    "app/services/reconcile.py",
                    Some(17),
                    Severity::Low,
                    "maintainability",
                    "Complex Method: reconcile_batch has a cyclomatic complexity of 14, threshold = 9"
                ),
                (
                    "app/api/refunds.py",
                    Some(40),
                    Severity::Low,
                    "maintainability",
                    "Large Method: settle_refund grows from 74 to 92 lines of code, threshold = 70"
                ),
                (
                    "app/services/payouts.py",
                    Some(12),
                    Severity::Low,
                    "maintainability",
                    "Excess Number of Function Arguments: build_payout has 6 arguments, max arguments = 4"
                ),
                // Opens with `[//]: # (cs-code-health)`, which GitHub does not show (issue 24).
                (
                    "app/services/reconcile.py",
                    Some(1),
                    Severity::Low,
                    "maintainability",
                    "Primitive Obsession: In this module, 62.5% of all function arguments are primitive types, threshold = 30.0%"
                ),
            ]
        );
        assert_eq!(out.findings[0].evidence.symbol, "Complex Method");
        assert!(!out.findings[0].detail.contains("Suppress"));
        assert_eq!(out.malformed.len(), 1, "{:?}", out.malformed);
        assert!(out.malformed[0].contains("no code smell named"));
        assert_eq!(out.coverage, Coverage::Reviewed);
        assert_eq!(
            out.notes,
            ["quality gates failed (review 7300000001): Enforce advisory code health rules (3 files with Complex Method, Large Method, Excess Number of Function Arguments)"]
        );
    }
}
