//! Macroscope (`macroscopeapp[bot]`, also seen as `macroscope-app[bot]` and
//! `prassoai[bot]` id 177048263, which leaderboards list as Macroscope's): one finding per
//! inline thread. The body opens with a severity badge, the severity and the location,
//! `🟡 **Medium** \`led-wall/static.ts:22\``, then the claim, an `Also found in N other
//! location(s)` block naming the same defect's other sites, an `AI Prompt` block and
//! `<!-- macroscope-meta: {"kind":"code_review","variant":"<hash>"} -->` (older form
//! `<!-- macroscope-meta kind=code_review -->`). Only `kind` `code_review` is a finding:
//! `check_run`, `pr_assistant`, `approvability` and `notice` comments are other surfaces.
//! The other sites are recorded in `detail`, not as more findings (one remark, one vote).
//! Formats: docs/adapters.md (research captures).

use crate::adapters::read::inline::{self, Status};
use crate::adapters::read::markdown;
use crate::adapters::read::taxonomy::{self, NativeCategory};
use crate::adapters::{line_ranges, Adapter, AdapterOutput, Identity, Signal};
use crate::api::{PrSnapshot, ReviewComment};
use crate::model::Severity;

/// Notices that mean Macroscope did not review (it is billed per run).
const DECLINED: &[&str] = &[
    "spend limit",
    "usage limit",
    "out of credits",
    "insufficient credits",
    "trial has ended",
];

pub struct Macroscope;

const ID: &str = "macroscope";

impl Adapter for Macroscope {
    fn id(&self) -> &'static str {
        ID
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &["macroscopeapp[bot]", "macroscope-app[bot]", "prassoai[bot]"]
    }

    /// `prassoai[bot]`'s id (the other apps' ids are not known).
    fn user_ids(&self) -> &'static [u64] {
        &[177048263]
    }

    /// "Macroscope - Correctness Check" (`N issues identified`) and "Approvability Check":
    /// verdicts, whatever they concluded.
    fn signals(&self) -> &'static [Signal] {
        &[
            Signal::CheckRunVerdict("Macroscope - Correctness Check"),
            Signal::CheckRunVerdict("Approvability Check"),
        ]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        // Only `code_review` comments are findings; other surfaces are read and skipped.
        let is_review =
            |c: &ReviewComment| meta_kind(&c.body).is_none_or(|kind| kind == "code_review");
        inline::parse_where(snapshot, &identity, is_review, status, |comment, anchor| {
            let body = markdown::normalize_newlines(&comment.body);
            let visible = markdown::strip_hidden(&body);
            let (severity, claim) = header(&visible);
            let (claim, also) = split_also_found(claim);
            let none = NativeCategory::none();
            let mut finding = inline::claim_finding(ID, comment, anchor, severity, none, &claim)
                .ok_or("no claim after the header")?;
            // Other sites in the same file are more loci of this finding.
            finding.evidence.also = also
                .iter()
                .filter_map(|site| site.rsplit_once(':'))
                .filter(|(path, _)| *path == anchor.file)
                .flat_map(|(_, lines)| line_ranges(lines))
                .collect();
            if !also.is_empty() {
                let extra = format!("(also found in: {})", also.join(", "));
                finding.detail =
                    markdown::shorten(format!("{} {extra}", finding.detail).trim(), 480);
            }
            if let Some(variant) = meta_field(&body, "variant") {
                finding.finding_id = format!("macroscope:{variant}");
            }
            Ok(finding)
        })
    }
}

/// A notice declines; the manual-review breadcrumb names the reviewed commit; the
/// Approvability verdict is a finished review.
fn status(body: &str) -> Status {
    if inline::is_notice(body, DECLINED) {
        return Status::Declined;
    }
    let lower = body.to_lowercase();
    if lower.contains("macroscope-manual-breadcrumb") {
        return Status::Done(inline::commit_after(body, "commit `"));
    }
    if lower.contains("#### approvability") || meta_kind(body).as_deref() == Some("approvability") {
        return Status::Done(None);
    }
    Status::Other
}

/// The `macroscope-meta` marker's `kind`.
fn meta_kind(body: &str) -> Option<String> {
    meta_field(body, "kind")
}

/// A field of the `macroscope-meta` marker, in its JSON form (`{"kind":"code_review"}`) or
/// its `key=value` form.
fn meta_field(body: &str, key: &str) -> Option<String> {
    let marker = markdown::html_comments(body)
        .into_iter()
        .find_map(|c| c.strip_prefix("macroscope-meta").map(str::to_owned))?;
    let marker = marker.trim_start_matches(':').trim();
    if let Ok(serde_json::Value::Object(map)) = serde_json::from_str(marker) {
        return map.get(key)?.as_str().map(str::to_owned);
    }
    marker
        .split_whitespace()
        .find_map(|pair| pair.strip_prefix(key)?.strip_prefix('='))
        .map(|v| v.trim_matches('"').to_owned())
}

/// The first line `🟡 **Medium** \`path:line\``: (severity, the text after it).
fn header(visible: &str) -> (Option<Severity>, &str) {
    let trimmed = markdown::visible_start(visible);
    let (first, rest) = trimmed.split_once('\n').unwrap_or((trimmed, ""));
    match markdown::first_bold_span(first).and_then(|b| taxonomy::severity_word(&b)) {
        Some(severity) => (Some(severity), rest),
        None => (None, trimmed),
    }
}

/// The claim without its `Also found in N other location(s)` block, and the sites that
/// block names (`path:line`).
fn split_also_found(claim: &str) -> (String, Vec<String>) {
    let lower = claim.to_ascii_lowercase();
    let Some(at) = lower.find("also found in") else {
        return (claim.to_owned(), Vec::new());
    };
    let (before, block) = claim.split_at(at);
    // The block runs to the next blank line after its list (or the end).
    let end = block
        .match_indices("\n\n")
        .map(|(i, _)| i)
        .find(|i| !block[i + 2..].trim_start().starts_with(['-', '*', '`']))
        .unwrap_or(block.len());
    let sites = block[..end]
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|s| s.contains(':') && !s.contains(' '))
        .map(str::to_owned)
        .collect();
    (format!("{before}\n\n{}", &block[end..]), sites)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::fixture;
    use crate::model::Coverage;

    #[test]
    fn header_meta_and_other_sites() {
        let (severity, rest) = header("🟡 **Medium** `led-wall/static.ts:22`\n\nThe claim.");
        assert_eq!(
            (severity, rest.trim()),
            (Some(Severity::Medium), "The claim.")
        );
        assert_eq!(
            meta_field(
                "x <!-- macroscope-meta: {\"kind\":\"code_review\",\"variant\":\"v1\"} -->",
                "variant"
            )
            .as_deref(),
            Some("v1")
        );
        assert_eq!(
            meta_kind("<!-- macroscope-meta kind=check_run -->").as_deref(),
            Some("check_run")
        );
        let (claim, sites) = split_also_found(
            "The cache is never cleared.\n\nAlso found in 2 other location(s)\n\n- `a.ts:3`\n- `b/c.ts:40`\n\nClear it on logout.",
        );
        assert_eq!(sites, vec!["a.ts:3", "b/c.ts:40"]);
        assert!(claim.contains("Clear it on logout.") && !claim.contains("a.ts"));
    }

    #[test]
    fn sample_comments() {
        let out = fixture::parse(&Macroscope, "bots/macroscope");
        let got = fixture::places(&out.findings);
        assert_eq!(
            got,
            vec![
                (
                    "web/src/components/CheckoutForm.tsx",
                    Some(25),
                    Severity::High,
                    "bug"
                ),
                (
                    "app/services/fx_rates.py",
                    Some(41),
                    Severity::Low,
                    "performance"
                ),
            ]
        );
        let first = &out.findings[0];
        assert_eq!(first.finding_id, "macroscope:8f1c2e");
        assert!(
            first.detail.contains("(also found in: web/src/components/RefundForm.tsx:31, web/src/components/PayoutForm.tsx:18)"),
            "{}",
            first.detail
        );
        assert!(!first.detail.contains("AI Prompt"));
        assert_eq!(out.coverage, Coverage::Reviewed);
        assert!(out.malformed.is_empty(), "{:?}", out.malformed);
    }

    /// `prassoai[bot]` is Macroscope under another app name: read alike.
    #[test]
    fn sample_prassoai_login() {
        let out = fixture::parse(&Macroscope, "bots/macroscope-prassoai");
        let got = fixture::places_and(&out.findings, |f| f.finding_id.as_str());
        assert_eq!(
            got,
            vec![(
                "web/src/components/RefundForm.tsx",
                Some(44),
                Severity::High,
                "other",
                "macroscope:c4d2e1"
            )]
        );
        assert_eq!(out.coverage, Coverage::Reviewed);
        assert!(out.malformed.is_empty(), "{:?}", out.malformed);
    }
}
