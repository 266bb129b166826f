//! Codacy (`codacy-production[bot]`): Codacy's AI Reviewer. Each inline comment opens with
//! its risk, `<sub>:red_circle: HIGH RISK</sub>` (`:yellow_circle: MEDIUM RISK`,
//! `:white_circle: LOW RISK`, the latter often a `Nitpick:`), then the claim, sometimes a
//! `suggestion` block, a "Try running the following prompt in your IDE agent" section and a
//! `[See Issue in Codacy](…/issues#issue-<hash>)` link, and ends with a hidden
//! `<!-- e34d5167-… -->` comment that is the same on every comment of every PR seen (a
//! product marker, not an id: the issue hash of the link is the id). Its review body
//! (`### Pull Request Overview`) is the finished review; its folded "N comments outside of
//! the diff" list holds findings Codacy could not post inline, one quoted
//! `` <sub>`line 105` :red_circle: HIGH RISK</sub> `` entry each under a `<code>path</code>`
//! summary. Formats: docs/adapters.md, docs/bot-formats.md.

use crate::adapters::read::inline::{self, Status};
use crate::adapters::read::taxonomy::{self, NativeCategory};
use crate::adapters::read::{html, markdown};
use crate::adapters::review_provenance;
use crate::adapters::{category_for, detail_from, Adapter, AdapterOutput, Identity};
use crate::api::{PrSnapshot, Review};
use crate::model::{NormalizedFinding, Severity};

/// Notices that mean Codacy did not analyse the PR (inferred from its docs' wording).
const DECLINED: &[&str] = &[
    "unable to analyze",
    "could not analyze",
    "analysis failed",
    "usage limit",
    "quota",
];

/// The heading of its review body.
const OVERVIEW: &str = "pull request overview";

/// What ends a comment's claim: the IDE-agent prompt and the link to Codacy.
const CLAIM_ENDS: &[&str] = &["try running the following prompt", "see issue in codacy"];

pub struct Codacy;

const ID: &str = "codacy";

impl Adapter for Codacy {
    fn id(&self) -> &'static str {
        ID
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &["codacy-production[bot]"]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        let mut out = inline::parse(snapshot, &identity, status, |comment, anchor| {
            let body = markdown::normalize_newlines(&comment.body);
            let (severity, rest) = risk_line(&body).ok_or("no `RISK` line")?;
            let claim = Claim::read(rest);
            let mut finding = inline::claim_finding(
                ID,
                comment,
                anchor,
                Some(severity),
                NativeCategory::none(),
                &claim.text,
            )
            .ok_or("a risk line without a claim")?;
            finding.nitpick = claim.nitpick;
            if let Some(issue) = issue_id(&body) {
                finding.finding_id = format!("codacy:{issue}");
            }
            Ok(finding)
        });
        for review in &snapshot.reviews {
            if identity.matches(review.user.as_ref()) {
                outside_the_diff(review, &mut out);
            }
        }
        out
    }
}

/// Its review overview finishes a review; a short analysis-failed notice declines.
fn status(body: &str) -> Status {
    if inline::is_notice(body, DECLINED) {
        Status::Declined
    } else if markdown::mask_code(body).to_lowercase().contains(OVERVIEW) {
        Status::Done(None)
    } else {
        Status::Other
    }
}

/// `<sub>:red_circle: HIGH RISK</sub>` (or the emoji): the severity the word gives (the
/// icon's when the word is unknown) and the text after the line. `None` without `RISK`.
fn risk_line(body: &str) -> Option<(Severity, &str)> {
    let (line, rest) = markdown::first_visible_line(body);
    Some((risk(line)?, rest))
}

/// The severity of a risk label: `HIGH RISK` high, `MEDIUM RISK` medium, `LOW RISK` low,
/// `CRITICAL RISK` critical (inferred), else the icon's.
fn risk(line: &str) -> Option<Severity> {
    let plain = html::strip_tags(line).replace('`', " ");
    // ASCII upper-casing keeps byte offsets: `at` slices `plain`.
    let upper = plain.to_ascii_uppercase();
    let at = upper.find("RISK")?;
    let word = plain[..at].split_whitespace().last().unwrap_or("");
    taxonomy::severity_word(word).or_else(|| {
        let icon_start = plain
            .find(':')
            .or_else(|| plain.find(|c: char| !c.is_ascii()))?;
        taxonomy::leading_severity_icon(&plain[icon_start..]).map(|(s, _)| s)
    })
}

/// A comment's claim: the text up to the IDE-agent prompt or the Codacy link, without the
/// `Nitpick:` / `Suggestion:` label (a nitpick is marked as one).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Claim {
    text: String,
    nitpick: bool,
}

impl Claim {
    fn read(markdown_text: &str) -> Claim {
        // ASCII lowering keeps byte offsets: `end` slices `markdown_text`.
        let masked = markdown::mask_code_blocks(markdown_text).to_ascii_lowercase();
        let end = CLAIM_ENDS
            .iter()
            .filter_map(|marker| masked.find(marker))
            .min()
            .unwrap_or(markdown_text.len());
        // Back to the start of the line the marker is on (`[See Issue …` opens with `[`).
        let end = masked[..end].rfind('\n').map_or(0, |i| i + 1).min(end);
        let text = markdown_text.get(..end).unwrap_or(markdown_text);
        // The `##` rule Codacy puts before the link.
        let text = text.trim_end().trim_end_matches('#').trim();
        let (nitpick, text) = match strip_label(text, "nitpick:") {
            Some(rest) => (true, rest),
            None => (false, strip_label(text, "suggestion:").unwrap_or(text)),
        };
        Claim {
            text: text.trim().to_owned(),
            nitpick,
        }
    }
}

/// `text` without the leading `label` (case-insensitive).
fn strip_label<'a>(text: &'a str, label: &str) -> Option<&'a str> {
    let head = text.get(..label.len())?;
    head.eq_ignore_ascii_case(label)
        .then(|| text[label.len()..].trim_start())
}

/// The issue hash of the `See Issue in Codacy` link (`…/issues#issue-6b35…`).
fn issue_id(body: &str) -> Option<String> {
    let at = body.find("#issue-")? + "#issue-".len();
    let id: String = body[at..]
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .take(64)
        .collect();
    (id.len() >= 8).then_some(id)
}

/// The review body's "N comments outside of the diff": each quoted entry under a file's
/// `<summary>` is a finding of that file and line, of the review's commit.
fn outside_the_diff(review: &Review, out: &mut AdapterOutput) {
    let body = markdown::normalize_newlines(review.body.as_deref().unwrap_or(""));
    let masked = markdown::mask_code(&body);
    let blocks = markdown::details_blocks(&body, &masked);
    let Some(outer) = blocks
        .iter()
        .find(|d| d.summary.to_lowercase().contains("outside of the diff"))
    else {
        return;
    };
    let mut n = 0;
    for file in blocks
        .iter()
        .filter(|d| d.depth == outer.depth + 1 && outer.outer.contains(&d.outer.start))
    {
        let path = file.summary.trim().trim_matches('`').trim();
        let inner = body.get(file.inner.clone()).unwrap_or("");
        for entry in quoted_entries(inner) {
            n += 1;
            match entry_finding(review, n, path, &entry) {
                Ok(finding) => {
                    out.readable += 1;
                    out.findings.push(finding);
                }
                Err(reason) => out.malformed.push(format!(
                    "review #{}: outside-diff entry {n}: {reason}",
                    review.id
                )),
            }
        }
    }
}

/// The blockquotes of `text`, each unquoted (`> ` dropped), in order.
fn quoted_entries(text: &str) -> Vec<String> {
    let mut entries: Vec<String> = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match line.trim_start().strip_prefix('>') {
            Some(rest) => {
                let entry = current.get_or_insert_with(String::new);
                entry.push_str(rest.strip_prefix(' ').unwrap_or(rest));
                entry.push('\n');
            }
            None => entries.extend(current.take()),
        }
    }
    entries.extend(current);
    entries
}

/// One outside-diff entry: `` <sub>`line 105` :red_circle: HIGH RISK</sub> `` then the
/// claim.
fn entry_finding(
    review: &Review,
    n: usize,
    path: &str,
    entry: &str,
) -> Result<NormalizedFinding, String> {
    if path.is_empty() || path.contains(char::is_whitespace) {
        return Err("no file in its summary".to_owned());
    }
    let (line, rest) = markdown::first_visible_line(entry);
    let severity = risk(line).ok_or("no `RISK` label")?;
    let number = line_number(line).ok_or("no `line N`")?;
    let claim = Claim::read(rest);
    let title = inline::sentence_title(&claim.text).ok_or("no claim")?;
    let (category, source) = category_for(NativeCategory::none(), path, &title, &claim.text);
    let mut finding = NormalizedFinding::new(
        ID,
        format!("review-{}-{n}", review.id),
        severity,
        category.as_str(),
        title,
    )
    .at(path, Some(number));
    finding.detail = detail_from(&claim.text);
    finding.nitpick = claim.nitpick;
    finding.provenance = review_provenance(review, Some(source));
    Ok(finding)
}

/// `` `line 105` `` -> 105.
fn line_number(text: &str) -> Option<u32> {
    let lower = text.to_ascii_lowercase();
    let at = lower.find("line ")? + "line ".len();
    let digits: String = lower[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok().filter(|n| *n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::fixture;
    use crate::model::Coverage;

    #[test]
    fn risk_lines_and_claims() {
        let (severity, rest) =
            risk_line("<sub>:red_circle: HIGH RISK</sub>\n\nThe set is not thread-safe.").unwrap();
        assert_eq!(
            (severity, rest.trim()),
            (Severity::High, "The set is not thread-safe.")
        );
        assert_eq!(risk("<sub>⚪ LOW RISK</sub>"), Some(Severity::Low));
        assert_eq!(
            risk("<sub>:yellow_circle: MEDIUM RISK</sub>"),
            Some(Severity::Medium)
        );
        assert_eq!(
            risk("<sub>`line 105` :red_circle: HIGH RISK</sub>"),
            Some(Severity::High)
        );
        assert_eq!(
            risk("<sub>:yellow_circle: ELEVATED RISK</sub>"),
            Some(Severity::Medium)
        );
        assert_eq!(risk("No label here"), None);
        assert_eq!(
            risk_line("[//]: # (x)\n<sub>:white_circle: LOW RISK</sub>\nx").map(|r| r.0),
            Some(Severity::Low)
        );

        let claim = Claim::read(
            "\nNitpick: The variable `retries` is unused.\n\nTry running the following prompt in your IDE agent:\n\n> Remove it.\n\n[See Issue in Codacy](https://app.codacy.com/x#issue-abc)\n",
        );
        assert_eq!(
            claim,
            Claim {
                text: "The variable `retries` is unused.".into(),
                nitpick: true
            }
        );
        let claim = Claim::read("Make it static.\n\n```suggestion\nx\n```\n\n##\n\n[See Issue in Codacy](u)\n<!-- e34d5167-b092-49eb-b8c8-33859ab00079 -->");
        assert_eq!(claim.text, "Make it static.\n\n```suggestion\nx\n```");
        assert!(!claim.nitpick);
        assert_eq!(
            issue_id("[See Issue in Codacy](https://app.codacy.com/gh/a/b/pull-requests/8/issues#issue-6b35998df03752443f87659f333fe135)"),
            Some("6b35998df03752443f87659f333fe135".into())
        );
        assert_eq!(issue_id("#issue-12"), None);
        assert_eq!(line_number("`line 118` :yellow_circle:"), Some(118));
    }

    #[test]
    fn sample_review() {
        let out = fixture::parse(&Codacy, "bots/codacy");
        assert!(out.malformed.is_empty(), "{:?}", out.malformed);
        let got = fixture::places_and(&out.findings, |f| (f.title.as_str(), f.nitpick));
        assert_eq!(
            got,
            vec![
                (
                    "app/api/refunds.py",
                    Some(31),
                    Severity::High,
                    "other",
                    ("The refund amount is taken from the request body without checking it against the captured amount.", false)
                ),
                (
                    "app/version.py",
                    Some(5),
                    Severity::Medium,
                    "other",
                    ("Make this constant a module attribute read at runtime, so that tools importing it see the deployed version.", false)
                ),
                (
                    "app/services/retry.py",
                    Some(9),
                    Severity::Low,
                    "other",
                    ("The variable retries is unused and can be removed.", true)
                ),
                (
                    "app/services/ledger.py",
                    Some(44),
                    Severity::Medium,
                    "maintainability",
                    ("The parameter 'order' is not used within the body of 'settle'.", false)
                ),
                // The two entries of the review's "comments outside of the diff".
                (
                    "app/services/payouts.py",
                    Some(105),
                    Severity::High,
                    "performance",
                    ("The payout batch is committed before the provider confirms it, so a timeout leaves paid rows unpaid.", false)
                ),
                (
                    "app/services/payouts.py",
                    Some(118),
                    Severity::Medium,
                    "other",
                    ("The retry path silently skips payouts whose currency has no rate.", false)
                ),
            ]
        );
        assert_eq!(
            out.findings[1].finding_id,
            "codacy:6b35998df03752443f87659f333fe135"
        );
        assert_eq!(out.findings[0].finding_id, "3280000001");
        assert!(
            !out.findings[3].detail.contains("IDE agent"),
            "{}",
            out.findings[3].detail
        );
        assert!(!out.findings[1].detail.contains("See Issue"));
        assert_eq!(out.findings[4].provenance.review_id, Some(7280000001));
        assert_eq!(out.findings[4].finding_id, "review-7280000001-1");
        assert_eq!(out.coverage, Coverage::Reviewed);
    }
}
