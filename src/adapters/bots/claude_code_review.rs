//! Claude Code Review (the managed review, research preview since 2026-03-09): posts as the
//! Claude GitHub app (`claude[bot]`, id 209825114), like the Claude Code action that the
//! `claude` adapter reads, and is told apart from it by its markup. Each finding is an inline
//! comment opening with a severity marker, `🔴 Important` (a bug to fix before merging),
//! `🟡 Nit` (minor) or `🟣 Pre-existing` (a bug in the code the PR starts from, not
//! introduced by it), with a folded "Why this was flagged"; a summary sits in the review body
//! and a `Claude Code Review` check run, which never fails (neutral), ends its details with
//! `<!-- bughunter-severity: {"normal": N, "nit": N, "pre_existing": N} -->`.
//!
//! 🟣 findings are marked `pre_existing`: the pipeline sets them apart (never gating). Only
//! the marker that opens a comment of this bot counts: a 🟣 quoted further down, or in
//! another bot's or a person's comment, makes nothing pre-existing. Formats:
//! docs/adapters.md, docs/bot-formats.md (no verbatim inline capture: read leniently).

use crate::adapters::read::inline::{self, Post, Status};
use crate::adapters::read::markdown;
use crate::adapters::read::taxonomy::NativeCategory;
use crate::adapters::{Adapter, AdapterOutput, Identity, Signal};
use crate::api::{PrSnapshot, Review};
use crate::model::{Category, Severity};

/// Notices that mean Code Review did not run (it is billed per review, with a spend cap).
const DECLINED: &[&str] = &[
    "spend limit",
    "spend cap",
    "usage limit",
    "credit balance",
    "rate limit",
];

/// Name of its check run (and the prefix its annotations' runs share).
const CHECK_RUN: &str = "Claude Code Review";

/// The machine-readable counts at the end of the check run's details.
const COUNTS_MARKER: &str = "bughunter-severity:";

pub struct ClaudeCodeReview;

const ID: &str = "claude-code-review";

/// The severity a comment opens with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Marker {
    /// 🔴 Important: a bug that should be fixed before merging.
    Important,
    /// 🟡 Nit: minor, worth fixing, not blocking.
    Nit,
    /// 🟣 Pre-existing: a bug that is in the code already, not introduced by this PR.
    PreExisting,
}

impl Marker {
    const ALL: [(Marker, char, &'static str); 3] = [
        (Marker::Important, '🔴', "important"),
        (Marker::Nit, '🟡', "nit"),
        (Marker::PreExisting, '🟣', "pre-existing"),
    ];

    fn severity(self) -> Severity {
        match self {
            Marker::Important => Severity::High,
            Marker::Nit => Severity::Low,
            Marker::PreExisting => Severity::Medium,
        }
    }
}

impl Adapter for ClaudeCodeReview {
    fn id(&self) -> &'static str {
        ID
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &["claude[bot]"]
    }

    fn user_ids(&self) -> &'static [u64] {
        &[209825114]
    }

    /// The `Claude Code Review` check run of the `claude` app: it concludes `neutral` whatever
    /// it found, so it is a verdict (reviewed) unless skipped or cancelled.
    fn signals(&self) -> &'static [Signal] {
        &[Signal::CheckRunVerdict(CHECK_RUN)]
    }

    /// The check run's counts tell findings GitHub refused inline: read whenever it ran.
    fn reads_own_signals(&self) -> bool {
        true
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        let mut activity = crate::adapters::Activity::new(snapshot.head_sha());
        let mut out = AdapterOutput::default();
        let mut inline_counts = Counts::default();
        let head = snapshot.head_sha();
        inline::read_comments_where(
            snapshot,
            &identity,
            &mut activity,
            &mut out,
            |c| opening_marker(&c.body).is_some(),
            |comment, anchor| {
                let body = markdown::normalize_newlines(&comment.body);
                let (marker, rest) = opening_marker(&body).ok_or("no severity marker")?;
                let (title, explanation) = title_and_explanation(&rest)
                    .ok_or_else(|| format!("no title after the {} marker", marker_word(marker)))?;
                let bug = NativeCategory::weak(Category::Bug);
                let severity = marker.severity();
                let mut finding =
                    inline::finding(ID, comment, anchor, severity, &title, bug, &explanation);
                finding.nitpick = marker == Marker::Nit;
                finding.pre_existing = marker == Marker::PreExisting;
                if comment.reviewed_commit().is_none_or(|c| c == head) {
                    inline_counts.add(marker);
                }
                Ok(finding)
            },
        );
        inline::note_statuses_where(
            snapshot,
            &identity,
            |post| is_code_review_post(post, snapshot),
            status,
            &mut activity,
            &mut out,
        );
        if let Some(note) = check_run_note(snapshot, &identity, inline_counts) {
            out.notes.push(note);
        }
        out.set_coverage(&activity);
        out
    }
}

/// What one of its reviews or issue comments says: a summary review is a finished review of
/// its commit; a short "no issues" confirmation comment (a clean run) finished the head.
fn status(body: &str) -> Status {
    if inline::is_notice(body, DECLINED) {
        Status::Declined
    } else if is_clean_confirmation(body) {
        Status::Done(None)
    } else {
        Status::Other
    }
}

/// `🔴 Important`, `🟡 Nit` or `🟣 Pre-existing` opening the comment's first visible line
/// (hidden HTML comments and folded blocks skipped; the word may be bold and followed by
/// `:`, `-`, `—` or `|`), and the comment after it. The emoji decides; a word alone is not a
/// marker (a Copilot comment may open with "Nit:").
pub(crate) fn opening_marker(body: &str) -> Option<(Marker, String)> {
    let visible = markdown::strip_hidden(&markdown::normalize_newlines(body));
    let text = markdown::visible_start(&visible);
    let first = text.chars().next()?;
    let (marker, _, word) = Marker::ALL.into_iter().find(|(_, c, _)| *c == first)?;
    let mut rest = text[first.len_utf8()..].trim_start_matches(['\u{fe0f}', ' ']);
    // The severity word, possibly bold: `**Important**`, `Important:`.
    let bare = rest.trim_start_matches('*');
    if bare.len() >= word.len()
        && bare.is_char_boundary(word.len())
        && bare[..word.len()].eq_ignore_ascii_case(word)
    {
        rest = bare[word.len()..].trim_start_matches('*');
        rest = rest.trim_start_matches([' ', ':', '-', '—', '–', '|', '·']);
    }
    Some((marker, rest.to_owned()))
}

fn marker_word(marker: Marker) -> &'static str {
    match marker {
        Marker::Important => "🔴 Important",
        Marker::Nit => "🟡 Nit",
        Marker::PreExisting => "🟣 Pre-existing",
    }
}

/// The title (the bold span on the marker's line, else the rest of that line, else the
/// first bold span or sentence below) and the explanation after it.
fn title_and_explanation(rest: &str) -> Option<(String, String)> {
    let (line, below) = rest.split_once('\n').unwrap_or((rest, ""));
    let on_line = markdown::first_bold_span(line).or_else(|| inline::sentence_title(line));
    let title = match on_line {
        Some(title) => title,
        None => markdown::first_bold_span(below).or_else(|| inline::sentence_title(below))?,
    };
    let title = title.trim().trim_end_matches(['.', ':']).trim().to_owned();
    (!title.is_empty()).then(|| (title, below.trim().to_owned()))
}

/// Code Review's own review bodies and issue comments. The Claude app's tracking comment
/// (`Claude finished …`, `Claude Code is working…`) is never one; a review is when its
/// inline comments or its body carry a severity marker, or it names Code Review; an issue
/// comment when it is Code Review's clean-run confirmation or a notice of it.
pub(crate) fn is_code_review_post(post: Post<'_>, snapshot: &PrSnapshot) -> bool {
    match post {
        Post::Review(review) => is_code_review_review(review, snapshot),
        Post::IssueComment(comment) => {
            let body = comment.body.as_deref().unwrap_or("");
            !is_tracking_comment(body) && (is_clean_confirmation(body) || names_code_review(body))
        }
    }
}

fn is_code_review_review(review: &Review, snapshot: &PrSnapshot) -> bool {
    let body = review.body.as_deref().unwrap_or("");
    if is_tracking_comment(body) {
        return false;
    }
    let marked_comment = snapshot.review_comments.iter().any(|c| {
        c.pull_request_review_id == Some(review.id)
            && c.in_reply_to_id.is_none()
            && opening_marker(&c.body).is_some()
    });
    marked_comment || names_code_review(body) || lists_markers(body)
}

/// The Claude app's tracking comment header (the `claude` adapter's status comment).
pub(crate) fn is_tracking_comment(body: &str) -> bool {
    let head = markdown::visible_start(body)
        .trim_start_matches('*')
        .to_lowercase();
    [
        "claude finished",
        "claude code is working",
        "claude encountered an error",
    ]
    .iter()
    .any(|h| head.starts_with(h))
}

/// The body names the product (outside code): `Claude Code Review`.
fn names_code_review(body: &str) -> bool {
    markdown::mask_code(body)
        .to_lowercase()
        .contains("claude code review")
}

/// The body (outside code) names a severity marker with its word, `🔴 Important`: the
/// summary's account of its findings.
fn lists_markers(body: &str) -> bool {
    let masked = markdown::mask_code(&markdown::normalize_newlines(body)).to_lowercase();
    Marker::ALL.iter().any(|(_, emoji, word)| {
        masked.match_indices(*emoji).any(|(at, found)| {
            masked[at + found.len()..]
                .trim_start_matches(['\u{fe0f}', ' ', '*'])
                .starts_with(word)
        })
    })
}

/// A short confirmation that a run found nothing (no verbatim capture: read leniently).
fn is_clean_confirmation(body: &str) -> bool {
    const CLEAN: &[&str] = &[
        "no issues",
        "no bugs",
        "found no",
        "didn't find",
        "did not find",
        "nothing to flag",
    ];
    body.len() <= inline::NOTICE_MAX_BYTES
        && !is_tracking_comment(body)
        && names_code_review(body)
        && inline::mentions(&markdown::mask_code(body), CLEAN)
}

/// Findings per marker.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Counts {
    normal: u64,
    nit: u64,
    pre_existing: u64,
}

impl Counts {
    fn add(&mut self, marker: Marker) {
        match marker {
            Marker::Important => self.normal += 1,
            Marker::Nit => self.nit += 1,
            Marker::PreExisting => self.pre_existing += 1,
        }
    }
}

/// The counts of `<!-- bughunter-severity: {"normal": 2, "nit": 1, "pre_existing": 0} -->`
/// (the check run's last line); `None` when absent or unreadable.
fn severity_counts(text: &str) -> Option<Counts> {
    let at = text.rfind(COUNTS_MARKER)? + COUNTS_MARKER.len();
    let rest = &text[at..];
    let json = &rest[..rest.find("-->")?];
    let value: serde_json::Value = serde_json::from_str(json.trim()).ok()?;
    let field = |key: &str| value.get(key).and_then(serde_json::Value::as_u64);
    Some(Counts {
        normal: field("normal")?,
        nit: field("nit").unwrap_or(0),
        pre_existing: field("pre_existing").unwrap_or(0),
    })
}

/// When its check run on the head counts more findings than were posted inline (GitHub
/// refuses an inline comment on a line that moved; the check run keeps it), say how many
/// are only in the check run: they are not read.
fn check_run_note(snapshot: &PrSnapshot, identity: &Identity, inline: Counts) -> Option<String> {
    let head = snapshot.head_sha();
    let run = snapshot.signals.check_runs.items().iter().find(|run| {
        run.name.starts_with(CHECK_RUN)
            && run.head_sha.as_deref().is_none_or(|sha| sha == head)
            && run
                .app
                .as_ref()
                .and_then(|app| app.slug.as_deref())
                .is_some_and(|slug| identity.matches_login(slug))
    })?;
    let counted = severity_counts(run.output.text.as_deref()?)?;
    let missing = [
        (counted.normal.saturating_sub(inline.normal), "🔴 Important"),
        (counted.nit.saturating_sub(inline.nit), "🟡 Nit"),
        (
            counted.pre_existing.saturating_sub(inline.pre_existing),
            "🟣 Pre-existing",
        ),
    ];
    let total: u64 = missing.iter().map(|(n, _)| n).sum();
    let parts: Vec<String> = missing
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, word)| format!("{n} {word}"))
        .collect();
    (total > 0).then(|| {
        format!(
            "its check run counts {total} more finding(s) than its inline comments ({}): \
             those are only in the check run and not read",
            parts.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::fixture;
    use crate::model::Coverage;

    #[test]
    fn opening_markers() {
        let cases = [
            (
                "🔴 **Important** — **Title here**\n\nWhy.",
                Some(Marker::Important),
            ),
            ("🟡 Nit: Unused import", Some(Marker::Nit)),
            (
                "<!-- x -->\n🟣 **Pre-existing** Old bug",
                Some(Marker::PreExisting),
            ),
            ("🟣 Old bug without the word", Some(Marker::PreExisting)),
            ("Nit: a word alone is no marker", None),
            ("A comment that quotes 🟣 Pre-existing later", None),
            ("```\n🟣 Pre-existing\n```\nin code", None),
            ("", None),
        ];
        for (body, want) in cases {
            assert_eq!(opening_marker(body).map(|(m, _)| m), want, "{body:?}");
        }
        let (_, rest) = opening_marker("🔴 **Important** — **Title here**\n\nWhy.").unwrap();
        assert_eq!(
            title_and_explanation(&rest),
            Some(("Title here".to_owned(), "Why.".to_owned()))
        );
        let (_, rest) =
            opening_marker("🟡 Nit\n\nThe import of `os` is unused. Remove it.").unwrap();
        assert_eq!(
            title_and_explanation(&rest).map(|(t, _)| t),
            Some("The import of os is unused".to_owned())
        );
        let (_, rest) = opening_marker("🔴 Important").unwrap();
        assert_eq!(
            title_and_explanation(&rest),
            None,
            "a marker alone has no title"
        );
    }

    #[test]
    fn check_run_counts() {
        let text = "| Severity | File |\n|---|---|\n\n<!-- bughunter-severity: {\"normal\": 2, \"nit\": 1, \"pre_existing\": 0} -->";
        assert_eq!(
            severity_counts(text),
            Some(Counts {
                normal: 2,
                nit: 1,
                pre_existing: 0
            })
        );
        for bad in [
            "<!-- bughunter-severity: {\"normal\": -1} -->",
            "<!-- bughunter-severity: not json -->",
            "<!-- bughunter-severity: {\"normal\": 2}",
            "no counts",
        ] {
            assert_eq!(severity_counts(bad), None, "{bad}");
        }
    }

    #[test]
    fn tracking_comments_stay_the_apps() {
        assert!(is_tracking_comment(
            "**Claude finished @dana's task in 1m** —— [View job](x)\n\nNo issues found by Claude Code Review."
        ));
        assert!(!is_clean_confirmation(
            "**Claude finished @dana's task in 1m**\n\nClaude Code Review found no issues."
        ));
        assert!(is_clean_confirmation(
            "Claude Code Review found no issues in this pull request."
        ));
        assert!(
            !is_clean_confirmation("No issues, thanks!"),
            "names the product"
        );
    }

    /// Its check run is fetched even when its review already shows the head reviewed (the
    /// counts are read); the Claude app's is not, once its comments settle it.
    #[test]
    fn its_check_runs_are_fetched_even_when_reviewed() {
        use crate::adapters::{needed_surfaces, SourceConfig};
        let snapshot = fixture::snapshot("bots/claude-code-review");
        let source = |id: &str| SourceConfig {
            adapter: id.to_owned(),
            logins: Vec::new(),
        };
        assert!(needed_surfaces(&snapshot, &[source(ID)]).check_runs);
        assert!(!needed_surfaces(&snapshot, &[source("claude")]).check_runs);
    }

    #[test]
    fn sample_review() {
        let out = fixture::parse(&ClaudeCodeReview, "bots/claude-code-review");
        let got = fixture::places_and(&out.findings, |f| {
            (f.title.as_str(), f.nitpick, f.pre_existing)
        });
        assert_eq!(
            got,
            vec![
                (
                    "app/api/refunds.py",
                    Some(41),
                    Severity::High,
                    "bug",
                    (
                        "A refund larger than the remaining balance is accepted",
                        false,
                        false
                    )
                ),
                (
                    "app/services/ledger.py",
                    Some(12),
                    Severity::Low,
                    "maintainability",
                    ("math is imported but never used", true, false)
                ),
                (
                    "app/db/queries.py",
                    Some(88),
                    Severity::Medium,
                    "bug",
                    (
                        "fetch_order swallows database errors and returns None",
                        false,
                        true
                    )
                ),
            ]
        );
        // The folded reasoning is not the explanation.
        assert!(!out.findings[0].detail.contains("Why this was flagged"));
        assert!(
            out.findings[0].detail.contains("left to refund"),
            "{}",
            out.findings[0].detail
        );
        assert_eq!(out.findings[0].evidence.end_line, Some(44));
        // A marker with nothing after it is skipped and reported.
        assert_eq!(out.malformed.len(), 1, "{:?}", out.malformed);
        assert!(out.malformed[0].contains("no title after the 🔴 Important marker"));
        // The Claude app's prose comment and tracking comment are not Code Review's.
        assert!(out
            .findings
            .iter()
            .all(|f| f.provenance.comment_id != Some(3900000106)));
        assert_eq!(out.coverage, Coverage::Reviewed);
        assert_eq!(out.coverage_signal.as_deref(), Some("review on head"));
        // The check run counts one more 🔴 than was posted inline.
        assert_eq!(
            out.notes,
            ["its check run counts 1 more finding(s) than its inline comments (1 🔴 Important): \
              those are only in the check run and not read"]
        );
    }
}
