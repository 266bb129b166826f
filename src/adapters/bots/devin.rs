//! Devin Review (`devin-ai-integration[bot]`, id 158243242). It always submits its review as
//! `COMMENTED`, even when it reports bugs: the state says nothing, the findings do. Two forms:
//!
//! - **inline**: each finding an inline comment carrying hidden metadata,
//!   `<!-- devin-review-comment {"id": "BUG_pr-review-job-…_0001", "file_path": …,
//!   "start_line": …, "end_line": …, "side": "RIGHT"} -->`, then `🔴 **Title**` (a severe
//!   bug), `🟡` (a bug), `🚩` (a flag to investigate) or `📝 **Info: …**` (an informational
//!   flag; its id starts `ANALYSIS_`), the explanation, the "Open in Devin Review" badge. The
//!   review body says `**Devin Review** found N potential issues.` (and how many more are only
//!   in Devin Review); `## ✅ Devin Review: No Issues Found` is a clean pass. A later reply
//!   `✅ **Resolved**: …` in the thread withdraws the finding;
//! - **summary**: the body alone, `Devin Review found 4 Bugs + 3 Flags (0 Vulnerabilities) on
//!   this PR:`, then `**Bugs:**` and `**Flags:**` lists of `title — file:line`.
//!
//! Bugs read above flags (flags lower). Formats: docs/adapters.md, docs/bot-formats.md.

use crate::adapters::read::inline::{self, Status};
use crate::adapters::read::markdown;
use crate::adapters::read::taxonomy::NativeCategory;
use crate::adapters::review_provenance;
use crate::adapters::{category_for, Activity, Adapter, AdapterOutput, Identity};
use crate::api::{PrSnapshot, Review, ReviewComment};
use crate::model::{Category, NormalizedFinding, Severity};

/// Notices that mean Devin did not review (inferred: it is billed in ACUs).
const DECLINED: &[&str] = &[
    "out of acus",
    "acu limit",
    "usage limit",
    "review limit",
    "quota",
];

/// The hidden metadata of an inline finding.
const META: &str = "devin-review-comment";

/// Where the badge (and the feedback footer after it) begins.
const BADGE: &str = "<!-- devin-review-badge-begin";

/// A reply that marks the finding resolved.
const RESOLVED: &str = "✅ **Resolved**";

pub struct Devin;

const ID: &str = "devin";

/// What kind of finding a marker or id names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    SevereBug,
    Bug,
    Investigate,
    Info,
}

impl Kind {
    fn severity(self) -> Severity {
        match self {
            Kind::SevereBug => Severity::High,
            Kind::Bug => Severity::Medium,
            Kind::Investigate => Severity::Low,
            Kind::Info => Severity::Info,
        }
    }

    fn is_bug(self) -> bool {
        matches!(self, Kind::SevereBug | Kind::Bug)
    }

    fn native(self) -> NativeCategory {
        if self.is_bug() {
            NativeCategory::weak(Category::Bug)
        } else {
            NativeCategory::none()
        }
    }
}

impl Adapter for Devin {
    fn id(&self) -> &'static str {
        ID
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &["devin-ai-integration[bot]"]
    }

    fn user_ids(&self) -> &'static [u64] {
        &[158243242]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        let mut activity = Activity::new(snapshot.head_sha());
        let mut out = AdapterOutput::default();
        // A top-level `✅ Resolved` note is not a finding.
        let is_finding =
            |c: &ReviewComment| !markdown::visible_start(&c.body).starts_with(RESOLVED);
        inline::read_comments_where(
            snapshot,
            &identity,
            &mut activity,
            &mut out,
            is_finding,
            read_inline,
        );
        withdraw_resolved(snapshot, &identity, &mut out);
        for review in &snapshot.reviews {
            if identity.matches(review.user.as_ref()) {
                read_summary(review, &mut out);
            }
        }
        inline::note_statuses(snapshot, &identity, status, &mut activity, &mut out);
        out.set_coverage(&activity);
        out
    }
}

/// One inline comment: marker, title, explanation (the badge and footer dropped), the
/// metadata's id and, for a comment GitHub gives no line, the metadata's lines.
fn read_inline(
    comment: &ReviewComment,
    anchor: &crate::adapters::Anchor,
) -> Result<NormalizedFinding, String> {
    let body = markdown::normalize_newlines(&comment.body);
    let meta = metadata(&body);
    let body = match body.find(BADGE) {
        Some(at) => &body[..at],
        None => body.as_str(),
    };
    let visible = markdown::strip_hidden(body);
    let text = markdown::visible_start(&visible);
    let (marker, rest) = opening_kind(text);
    let id_kind = meta.as_ref().and_then(|m| kind_of_id(&m.id));
    let kind = marker.or(id_kind).unwrap_or(Kind::Bug);
    let (line, below) = rest.split_once('\n').unwrap_or((rest, ""));
    let title = markdown::first_bold_span(line)
        .or_else(|| inline::sentence_title(line))
        .or_else(|| inline::sentence_title(below))
        .map(|t| strip_label(&t))
        .filter(|t| !t.is_empty())
        .ok_or("no title")?;
    let mut anchor = anchor.clone();
    if let Some(meta) = &meta {
        if anchor.line.is_none() && !anchor.outdated && meta.file_path == anchor.file {
            anchor.line = meta.start_line;
            anchor.end_line = meta.end_line.or(meta.start_line);
        }
    }
    let mut finding = inline::finding(
        ID,
        comment,
        &anchor,
        kind.severity(),
        &title,
        kind.native(),
        below,
    );
    if let Some(meta) = meta {
        finding.finding_id = meta.id;
    }
    Ok(finding)
}

/// The hidden `devin-review-comment` metadata.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Meta {
    id: String,
    file_path: String,
    start_line: Option<u32>,
    end_line: Option<u32>,
}

fn metadata(body: &str) -> Option<Meta> {
    let json = markdown::html_comments(body)
        .into_iter()
        .find_map(|c| c.strip_prefix(META).map(str::to_owned))?;
    let value: serde_json::Value = serde_json::from_str(json.trim()).ok()?;
    let text = |key: &str| value.get(key).and_then(serde_json::Value::as_str);
    let line = |key: &str| {
        value
            .get(key)
            .and_then(serde_json::Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| *n > 0)
    };
    let id = text("id").filter(|id| !id.trim().is_empty())?;
    Some(Meta {
        id: markdown::shorten(id.trim(), 120),
        file_path: text("file_path").unwrap_or("").to_owned(),
        start_line: line("start_line"),
        end_line: line("end_line"),
    })
}

/// `BUG_…` is a bug, `ANALYSIS_…` a flag.
fn kind_of_id(id: &str) -> Option<Kind> {
    if id.starts_with("BUG_") {
        Some(Kind::Bug)
    } else if id.starts_with("ANALYSIS_") {
        Some(Kind::Investigate)
    } else {
        None
    }
}

/// The emoji the visible text opens with, and the text after it.
fn opening_kind(text: &str) -> (Option<Kind>, &str) {
    const MARKERS: [(char, Kind); 4] = [
        ('🔴', Kind::SevereBug),
        ('🟡', Kind::Bug),
        ('🚩', Kind::Investigate),
        ('📝', Kind::Info),
    ];
    let Some(first) = text.chars().next() else {
        return (None, text);
    };
    match MARKERS.iter().find(|(c, _)| *c == first) {
        Some((c, kind)) => (
            Some(*kind),
            text[c.len_utf8()..].trim_start_matches(['\u{fe0f}', ' ']),
        ),
        None => (None, text),
    }
}

/// `Info: Scope selection …` -> `Scope selection …`.
fn strip_label(title: &str) -> String {
    let title = title.trim();
    for label in ["Info:", "Investigate:", "Flag:", "Bug:"] {
        if let Some(rest) = title.strip_prefix(label) {
            return rest.trim().to_owned();
        }
    }
    title.to_owned()
}

/// A reply `✅ **Resolved**` by Devin in a finding's thread withdraws that finding.
fn withdraw_resolved(snapshot: &PrSnapshot, identity: &Identity, out: &mut AdapterOutput) {
    for reply in &snapshot.review_comments {
        let Some(parent) = reply.in_reply_to_id else {
            continue;
        };
        if !identity.matches(reply.user.as_ref())
            || !markdown::visible_start(&reply.body).starts_with(RESOLVED)
        {
            continue;
        }
        let ids: Vec<String> = out
            .findings
            .iter()
            .filter(|f| f.provenance.comment_id == Some(parent))
            .map(|f| f.finding_id.clone())
            .collect();
        out.withdrawn.extend(ids);
    }
}

/// What a review body or issue comment says: the header of a review with findings, a clean
/// pass, or the summary form; a short notice declines.
fn status(body: &str) -> Status {
    if inline::is_notice(body, DECLINED) {
        Status::Declined
    } else if is_review_header(body) {
        Status::Done(None)
    } else {
        Status::Other
    }
}

fn is_review_header(body: &str) -> bool {
    let lower = markdown::mask_code(body).to_lowercase();
    lower.contains("devin review: no issues found")
        || lower.contains("**devin review** found")
        || summary_header(body).is_some()
}

/// `Devin Review found 4 Bugs + 3 Flags (0 Vulnerabilities) on this PR:` -> (4, 3).
fn summary_header(body: &str) -> Option<(usize, usize)> {
    let masked = markdown::mask_code(body);
    let line = masked
        .lines()
        .map(|l| l.trim().trim_matches('*').trim())
        .find(|l| l.starts_with("Devin Review found") && l.contains("Bug"))?;
    let count_before = |word: &str| -> Option<usize> {
        let at = line.find(word)?;
        line[..at].split_whitespace().last()?.parse().ok()
    };
    Some((count_before("Bug")?, count_before("Flag").unwrap_or(0)))
}

/// The review body of Devin's review: the `found N potential issues` header's note about
/// findings only in Devin Review, or the summary form's lists, each entry a finding.
fn read_summary(review: &Review, out: &mut AdapterOutput) {
    let body = markdown::normalize_newlines(review.body.as_deref().unwrap_or(""));
    if let Some(more) = additional_findings(&body) {
        out.notes.push(format!(
            "{more} more finding(s) only in Devin Review (review {}), not posted on GitHub: not read",
            review.id
        ));
    }
    let Some((bugs, flags)) = summary_header(&body) else {
        return;
    };
    let masked = markdown::mask_code(&body);
    let mut section: Option<Kind> = None;
    let mut read = (0usize, 0usize);
    for (line, masked_line) in body.lines().zip(masked.lines()) {
        let heading = masked_line.trim().trim_matches('*').trim().to_lowercase();
        if heading.starts_with("bugs:") || heading == "bugs" {
            section = Some(Kind::Bug);
            continue;
        }
        if heading.starts_with("flags:") || heading == "flags" {
            section = Some(Kind::Investigate);
            continue;
        }
        let Some(kind) = section else { continue };
        // The masked line keeps the original's byte offsets: the entry starts after its
        // `- ` there too.
        let lead = masked_line.len() - masked_line.trim_start().len();
        let is_item = ["- ", "* "]
            .iter()
            .any(|m| masked_line[lead..].starts_with(m));
        let Some(entry) = is_item
            .then(|| line.get(lead + 2..))
            .flatten()
            .map(str::trim)
        else {
            if !masked_line.trim().is_empty() {
                section = None;
            }
            continue;
        };
        let n = if kind.is_bug() {
            read.0 += 1;
            read.0
        } else {
            read.1 += 1;
            read.1
        };
        let label = if kind.is_bug() { "bug" } else { "flag" };
        match list_entry(entry) {
            Some((title, file, lines)) => {
                let duplicate = out
                    .findings
                    .iter()
                    .any(|f| f.evidence.file == file && f.title.eq_ignore_ascii_case(&title));
                if !duplicate {
                    out.findings
                        .push(entry_finding(review, kind, n, label, &title, &file, lines));
                }
            }
            None => out.malformed.push(format!(
                "review #{}: {label} {n} has no `file:line`",
                review.id
            )),
        }
    }
    if read != (bugs, flags) {
        out.notes.push(format!(
            "review {} announces {bugs} bug(s) and {flags} flag(s), its lists hold {} and {}",
            review.id, read.0, read.1
        ));
    }
}

/// `View 3 additional findings in Devin Review.` / `View in Devin Review to see 3 additional
/// findings`: how many.
fn additional_findings(body: &str) -> Option<usize> {
    let lower = markdown::mask_code(body).to_lowercase();
    let at = lower.find(" additional finding")?;
    lower[..at].split_whitespace().last()?.parse().ok()
}

/// `Title — path/to/file.py:12` (or `:12-15`, `#L12-L15`): the title and the location.
fn list_entry(entry: &str) -> Option<(String, String, (u32, u32))> {
    let (title, location) = ["—", "–", " -- ", " - "]
        .iter()
        .find_map(|sep| entry.rsplit_once(sep))?;
    let location = location.trim().trim_matches('`');
    let (file, lines) = location
        .rsplit_once(':')
        .or_else(|| location.rsplit_once("#L"))?;
    let lines = lines.replace('L', "");
    let (start, end) = match lines.split_once('-') {
        Some((a, b)) => (a.trim().parse::<u32>().ok()?, b.trim().parse::<u32>().ok()?),
        None => {
            let line: u32 = lines.trim().parse().ok()?;
            (line, line)
        }
    };
    let title = markdown::inline_plain(title.trim().trim_end_matches([':', '.'])).replace('`', "");
    let file = file.trim().trim_start_matches("./");
    (!title.is_empty() && !file.is_empty() && !file.contains(' ') && start > 0)
        .then(|| (title, file.to_owned(), (start.min(end), start.max(end))))
}

fn entry_finding(
    review: &Review,
    kind: Kind,
    n: usize,
    label: &str,
    title: &str,
    file: &str,
    (start, end): (u32, u32),
) -> NormalizedFinding {
    let (category, source) = category_for(kind.native(), file, title, "");
    let mut finding = NormalizedFinding::new(
        ID,
        format!("review-{}-{label}-{n}", review.id),
        kind.severity(),
        category.as_str(),
        title,
    )
    .at(file, Some(start));
    finding.evidence.end_line = (end != start).then_some(end);
    finding.provenance = review_provenance(review, Some(source));
    finding
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::fixture;
    use crate::model::Coverage;

    #[test]
    fn markers_ids_and_entries() {
        assert_eq!(opening_kind("🔴 **T**").0, Some(Kind::SevereBug));
        assert_eq!(opening_kind("📝 **Info: T**").0, Some(Kind::Info));
        assert_eq!(opening_kind("plain").0, None);
        assert_eq!(
            kind_of_id("ANALYSIS_pr-review-job-1_0001"),
            Some(Kind::Investigate)
        );
        assert_eq!(strip_label("Info: Scope kept"), "Scope kept");
        assert_eq!(
            metadata("<!-- devin-review-comment {\"id\": \"BUG_x_0001\", \"file_path\": \"a.py\", \"start_line\": 3, \"end_line\": 4, \"side\": \"RIGHT\"} -->"),
            Some(Meta {
                id: "BUG_x_0001".into(),
                file_path: "a.py".into(),
                start_line: Some(3),
                end_line: Some(4)
            })
        );
        assert_eq!(metadata("<!-- devin-review-comment {not json} -->"), None);
        assert_eq!(
            list_entry("Webhook signature compared with `==` — app/webhooks/verify.py:20"),
            Some((
                "Webhook signature compared with ==".into(),
                "app/webhooks/verify.py".into(),
                (20, 20)
            ))
        );
        assert_eq!(
            list_entry("Export loads every row — app/api/refunds.py:63-57").map(|e| e.2),
            Some((57, 63))
        );
        assert_eq!(list_entry("No location here"), None);
        assert_eq!(
            summary_header("Devin Review found 4 Bugs + 3 Flags (0 Vulnerabilities) on this PR:"),
            Some((4, 3))
        );
        assert_eq!(
            additional_findings("**Devin Review** found 2 potential issues.\n\nView 3 additional findings in Devin Review."),
            Some(3)
        );
    }

    /// When a review carries both forms, a list entry that an inline comment already
    /// raised (same file, same title) is not counted twice.
    #[test]
    fn a_listed_entry_posted_inline_too_counts_once() {
        let mut out = AdapterOutput::default();
        out.findings.push(
            NormalizedFinding::new(
                ID,
                "BUG_x_0001",
                Severity::High,
                "bug",
                "Retries reuse the key",
            )
            .at("app/p.py", Some(31)),
        );
        let review = Review {
            id: 9,
            body: Some(
                "Devin Review found 2 Bugs + 0 Flags (0 Vulnerabilities) on this PR:\n\n**Bugs:**\n\
                 - Retries reuse the key — app/p.py:31\n- Totals drift — app/q.py:4\n"
                    .into(),
            ),
            ..Review::default()
        };
        read_summary(&review, &mut out);
        let ids: Vec<&str> = out.findings.iter().map(|f| f.finding_id.as_str()).collect();
        assert_eq!(ids, ["BUG_x_0001", "review-9-bug-2"]);
        assert!(out.notes.is_empty(), "{:?}", out.notes);
    }

    /// A list line after a code span of multibyte text is read without slicing into it.
    #[test]
    fn list_lines_with_multibyte_code_are_read_safely() {
        let mut out = AdapterOutput::default();
        let review = Review {
            id: 3,
            body: Some(
                "Devin Review found 1 Bugs + 0 Flags (0 Vulnerabilities) on this PR:\n**Bugs:**\n\
                 `é`- x — a.py:3\n- `日本` — b.py:4\n"
                    .into(),
            ),
            ..Review::default()
        };
        read_summary(&review, &mut out);
        let files: Vec<&str> = out
            .findings
            .iter()
            .map(|f| f.evidence.file.as_str())
            .collect();
        assert_eq!(files, ["a.py", "b.py"]);
    }

    #[test]
    fn sample_inline_review() {
        let out = fixture::parse(&Devin, "bots/devin");
        let got = fixture::places_and(&out.findings, |f| f.finding_id.as_str());
        assert_eq!(
            got,
            vec![
                (
                    "app/services/payouts.py",
                    Some(30),
                    Severity::High,
                    "bug",
                    "BUG_pr-review-job-4be1c7a09e2d4f6a8b3c5d7e9f102a3b_0001"
                ),
                (
                    "app/services/ledger.py",
                    Some(79),
                    Severity::Medium,
                    "bug",
                    "BUG_pr-review-job-4be1c7a09e2d4f6a8b3c5d7e9f102a3b_0002"
                ),
                (
                    "app/api/refunds.py",
                    Some(57),
                    Severity::Low,
                    "performance",
                    "ANALYSIS_pr-review-job-4be1c7a09e2d4f6a8b3c5d7e9f102a3b_0003"
                ),
                (
                    "app/services/fx_rates.py",
                    Some(52),
                    Severity::Info,
                    "bug",
                    "ANALYSIS_pr-review-job-4be1c7a09e2d4f6a8b3c5d7e9f102a3b_0004"
                ),
            ]
        );
        assert_eq!(
            out.findings[0].title,
            "Payout retries reuse the idempotency key of the failed capture"
        );
        // A `[//]: # (…)` line GitHub does not show comes before its marker (issue 24).
        assert_eq!(
            out.findings[1].title,
            "Balance check ignores pending debits"
        );
        assert_eq!(
            out.findings[3].title,
            "Rounding now happens before conversion"
        );
        assert_eq!(out.findings[0].evidence.end_line, Some(34));
        assert!(
            !out.findings[0].detail.contains("Devin Review"),
            "badge dropped"
        );
        assert!(
            !out.findings[0].detail.contains("helpful"),
            "footer dropped"
        );
        // The resolved reply withdraws the second finding.
        assert_eq!(
            out.withdrawn,
            ["BUG_pr-review-job-4be1c7a09e2d4f6a8b3c5d7e9f102a3b_0002"]
        );
        // A metadata comment with no visible text is skipped and reported.
        assert_eq!(out.malformed.len(), 1, "{:?}", out.malformed);
        assert!(out.malformed[0].contains("no title"));
        assert_eq!(out.coverage, Coverage::Reviewed);
        assert_eq!(
            out.notes,
            ["1 more finding(s) only in Devin Review (review 7200000001), not posted on GitHub: not read"]
        );
    }

    #[test]
    fn sample_summary_review() {
        let out = fixture::parse(&Devin, "bots/devin-summary");
        let got = fixture::places_and(&out.findings, |f| f.finding_id.as_str());
        assert_eq!(
            got,
            vec![
                (
                    "app/webhooks/verify.py",
                    Some(20),
                    Severity::Medium,
                    "security",
                    "review-7200000101-bug-1"
                ),
                (
                    "app/services/payouts.py",
                    Some(31),
                    Severity::Medium,
                    "bug",
                    "review-7200000101-bug-2"
                ),
                (
                    "app/api/refunds.py",
                    Some(57),
                    Severity::Low,
                    "other",
                    "review-7200000101-flag-1"
                ),
            ]
        );
        assert_eq!(out.findings[2].evidence.end_line, Some(63));
        assert_eq!(out.findings[0].provenance.review_id, Some(7200000101));
        // The review is COMMENTED, yet it reports bugs: they are findings all the same.
        assert_eq!(out.coverage, Coverage::Reviewed);
        // An entry without a location is skipped; the counts disagree and say so.
        assert_eq!(
            out.malformed,
            ["review #7200000101: bug 3 has no `file:line`"]
        );
        assert!(
            out.notes
                .iter()
                .any(|n| n.contains("announces 4 bug(s) and 1 flag(s), its lists hold 3 and 1")),
            "{:?}",
            out.notes
        );
    }
}
