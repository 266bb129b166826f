//! GitHub Advanced Security (`github-advanced-security[bot]`): open code-scanning alerts of
//! the PR ref, joined with the bot's inline comments by the alert number in
//! `[Show more details](…/security/code-scanning/N)`. The alert carries severity, rule and
//! tags; the comment carries the diff anchor. Formats: docs/bot-formats.md section 3.

use std::collections::{HashMap, HashSet};

use crate::adapters::read::markdown;
use crate::adapters::read::taxonomy::{self, NativeCategory};
use crate::adapters::{
    anchor, category_for, detail_from, provenance, Activity, Adapter, AdapterOutput, Identity,
    Signal,
};
use crate::api::{CodeScanning, CodeScanningAlert, PrSnapshot, ReviewComment};
use crate::model::{Category, NormalizedFinding, Provenance, Severity};

pub struct GhAdvancedSecurity;

const ID: &str = "gh-advanced-security";

impl Adapter for GhAdvancedSecurity {
    fn id(&self) -> &'static str {
        ID
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &["github-advanced-security[bot]"]
    }

    fn user_ids(&self) -> &'static [u64] {
        &[62310815]
    }

    fn owned_surfaces(&self) -> &'static [&'static str] {
        &[crate::api::CODE_SCANNING_SURFACE]
    }

    /// The code-scanning check runs of its app (one per tool, `CodeQL`), failing on new
    /// alerts: a verdict.
    fn signals(&self) -> &'static [Signal] {
        &[Signal::CheckRunVerdict("")]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        let mut out = AdapterOutput::default();
        let mut activity = Activity::new(snapshot.head_sha());
        let alerts: Option<HashMap<u64, &CodeScanningAlert>> = match &snapshot.code_scanning {
            CodeScanning::Alerts(list) => {
                // The alerts list of the PR ref exists: an analysis ran on this PR.
                activity.reviewed_by(None, "code-scanning analysis");
                Some(list.iter().map(|a| (a.number, a)).collect())
            }
            CodeScanning::Unavailable(reason) => {
                out.notes
                    .push(format!("code scanning unavailable: {reason}"));
                None
            }
        };

        let mut joined = HashSet::new();
        let (mut closed, mut unknown, mut unlinked) = (0usize, 0usize, 0usize);
        for comment in &snapshot.review_comments {
            if !identity.matches(comment.user.as_ref()) || comment.in_reply_to_id.is_some() {
                continue;
            }
            activity.reviewed(comment.reviewed_commit());
            let number = alert_number(&comment.body);
            let alert = match (&alerts, number) {
                (Some(alerts), Some(n)) => match alerts.get(&n) {
                    Some(alert) if is_open(alert) => Some(*alert),
                    Some(_) => {
                        closed += 1;
                        joined.insert(n);
                        out.readable += 1;
                        continue;
                    }
                    None => {
                        unknown += 1;
                        out.readable += 1;
                        continue;
                    }
                },
                // Alerts are known but this comment points at none (e.g. an Autofix note).
                (Some(_), None) => {
                    unlinked += 1;
                    out.readable += 1;
                    continue;
                }
                (None, _) => None,
            };
            match comment_finding(comment, alert) {
                Ok(finding) => {
                    out.readable += 1;
                    if let Some(alert) = alert {
                        joined.insert(alert.number);
                    }
                    out.findings.push(finding);
                }
                Err(reason) => out
                    .malformed
                    .push(format!("comment {}: {reason}", comment.id)),
            }
        }

        let mut preexisting = 0usize;
        for alert in alerts.iter().flat_map(|m| m.values()) {
            if joined.contains(&alert.number) || !is_open(alert) {
                continue;
            }
            if predates_pull(alert, snapshot.pull.created_at.as_deref()) {
                preexisting += 1;
                continue;
            }
            match alert_finding(alert) {
                Ok(finding) => {
                    out.readable += 1;
                    out.findings.push(finding);
                }
                Err(reason) => out
                    .malformed
                    .push(format!("alert #{}: {reason}", alert.number)),
            }
        }
        out.findings.sort_by(|a, b| a.finding_id.cmp(&b.finding_id));

        for review in &snapshot.reviews {
            if identity.matches(review.user.as_ref()) {
                out.readable += 1;
                activity.reviewed(review.commit_id.as_deref());
            }
        }
        if closed > 0 {
            out.notes
                .push(format!("{closed} comment(s) on fixed or dismissed alerts"));
        }
        if unknown > 0 {
            out.notes.push(format!(
                "{unknown} comment(s) on alerts not open for this PR"
            ));
        }
        if unlinked > 0 {
            out.notes
                .push(format!("{unlinked} comment(s) without an alert link"));
        }
        if preexisting > 0 {
            out.notes.push(format!(
                "{preexisting} open alert(s) older than the PR (pre-existing, not counted)"
            ));
        }
        out.set_coverage(&activity);
        out
    }
}

/// Only an alert GitHub says is open: a null or unknown `state` is not "open".
fn is_open(alert: &CodeScanningAlert) -> bool {
    alert.state.as_deref() == Some("open")
}

/// An alert first seen before the PR was opened is not this PR's (ISO-8601 UTC strings
/// compare in time order). Unknown times: counted.
fn predates_pull(alert: &CodeScanningAlert, pull_created: Option<&str>) -> bool {
    match (alert.created_at.as_deref(), pull_created) {
        (Some(alert_at), Some(pull_at)) if alert_at.len() == pull_at.len() => alert_at < pull_at,
        _ => false,
    }
}

/// The alert number from `…/security/code-scanning/N` outside code.
fn alert_number(body: &str) -> Option<u64> {
    let masked = markdown::mask_code(body);
    let marker = "/code-scanning/";
    let at = masked.rfind(marker)? + marker.len();
    let digits: String = masked[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The security severity when the rule has one; otherwise the rule's own level, read as
/// code scanning shows it (`error` high, `warning` medium, `note` low: the list endpoint
/// no longer promises `security_severity_level`, and an error-level alert is no medium).
fn severity_of(alert: &CodeScanningAlert) -> Severity {
    alert
        .rule
        .security_severity_level
        .as_deref()
        .and_then(taxonomy::security_severity)
        .or_else(|| alert.rule.severity.as_deref().and_then(rule_level_severity))
        .unwrap_or(Severity::Medium)
}

fn rule_level_severity(level: &str) -> Option<Severity> {
    match level.trim().to_ascii_lowercase().as_str() {
        "error" => Some(Severity::High),
        "warning" => Some(Severity::Medium),
        "note" => Some(Severity::Low),
        _ => None,
    }
}

fn native_of(alert: &CodeScanningAlert) -> NativeCategory {
    let from_tags = taxonomy::category_from_tags(alert.rule.tags.iter().map(String::as_str));
    let security_level = alert.rule.security_severity_level.is_some();
    NativeCategory {
        strong: from_tags.or(security_level.then_some(Category::Security)),
        weak: None,
    }
}

/// A human title: the rule's description, unless only an id-like name is known.
fn alert_title(alert: &CodeScanningAlert) -> String {
    let rule = &alert.rule;
    [&rule.description, &rule.name, &rule.id]
        .into_iter()
        .flatten()
        .map(|t| t.trim())
        .find(|t| !t.is_empty())
        .map_or_else(
            || format!("code scanning alert #{}", alert.number),
            str::to_owned,
        )
}

/// `## CodeQL / Rule name` -> `Rule name`; older `## Rule name`.
fn heading_title(body: &str) -> Option<String> {
    let visible = markdown::strip_hidden(&markdown::normalize_newlines(body));
    let masked = markdown::mask_code_blocks(&visible);
    let (line, _) = markdown::first_visible_line(&masked);
    let line = line.trim();
    let heading = line.strip_prefix('#')?.trim_start_matches('#').trim();
    if heading.to_lowercase().contains("show more details") {
        return None;
    }
    let heading = heading.split_once(" / ").map_or(heading, |(_, rule)| rule);
    let title = markdown::inline_plain(heading);
    (!title.is_empty()).then_some(title)
}

/// The comment's message: the body without its heading and the details link.
fn message_of(body: &str) -> String {
    let text = markdown::normalize_newlines(body);
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#') && !l.contains("/code-scanning/"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn comment_finding(
    comment: &ReviewComment,
    alert: Option<&CodeScanningAlert>,
) -> Result<NormalizedFinding, String> {
    let anchor = anchor(comment).ok_or("no `path`")?;
    let message = message_of(&comment.body);
    let (title, severity, native, id) = match alert {
        Some(alert) => (
            heading_title(&comment.body).unwrap_or_else(|| alert_title(alert)),
            severity_of(alert),
            native_of(alert),
            format!("alert-{}", alert.number),
        ),
        None => {
            let title = heading_title(&comment.body)
                .or_else(|| {
                    let first = markdown::paragraphs(&message, true).into_iter().next()?;
                    Some(markdown::first_sentence(&first).to_owned())
                })
                .filter(|t| !t.is_empty())
                .ok_or("no heading and no message")?;
            let id = alert_number(&comment.body)
                .map_or_else(|| comment.id.to_string(), |n| format!("alert-{n}"));
            (title, Severity::Medium, NativeCategory::none(), id)
        }
    };
    let (category, source) = category_for(native, &anchor.file, &title, &message);
    let mut finding = NormalizedFinding::new(ID, id, severity, category.as_str(), title);
    // The alert number, when the comment names one, is stable across pushes.
    finding.stable_id = Some(finding.finding_id.clone()).filter(|id| id.starts_with("alert-"));
    finding.evidence.file = anchor.file.clone();
    finding.evidence.line = anchor.line;
    finding.evidence.end_line = anchor.end_line;
    finding.evidence.symbol = alert.and_then(|a| a.rule.id.clone()).unwrap_or_default();
    finding.detail = alert
        .and_then(|a| a.most_recent_instance.message.text.clone())
        .map(|t| {
            markdown::shorten(
                &markdown::collapse_whitespace(&t),
                crate::adapters::DETAIL_CHARS,
            )
        })
        .unwrap_or_else(|| detail_from(&message));
    finding.provenance = provenance(comment, &anchor, source);
    Ok(finding)
}

fn alert_finding(alert: &CodeScanningAlert) -> Result<NormalizedFinding, String> {
    let instance = &alert.most_recent_instance;
    let path = instance
        .location
        .path
        .clone()
        .filter(|p| !p.trim().is_empty())
        .ok_or("no location path")?;
    let title = alert_title(alert);
    let message = instance.message.text.clone().unwrap_or_default();
    let (category, source) = category_for(native_of(alert), &path, &title, &message);
    let mut finding = NormalizedFinding::new(
        ID,
        format!("alert-{}", alert.number),
        severity_of(alert),
        category.as_str(),
        title,
    );
    finding.stable_id = Some(finding.finding_id.clone());
    let start = instance.location.start_line;
    let end = instance.location.end_line.or(start);
    finding.evidence.file = path;
    finding.evidence.line = start;
    finding.evidence.end_line = end.filter(|_| start.is_some());
    finding.evidence.symbol = alert.rule.id.clone().unwrap_or_default();
    finding.detail = markdown::shorten(
        &markdown::collapse_whitespace(&message),
        crate::adapters::DETAIL_CHARS,
    );
    finding.provenance = Provenance {
        url: alert.html_url.clone(),
        commit: instance.commit_sha.clone(),
        category_source: Some(source),
        ..Provenance::default()
    };
    Ok(finding)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `bots/gh-advanced-security`: code-scanning comments without the alerts endpoint; the
    /// second opens with an HTML comment and a `[//]: # (…)` line before its heading (issue
    /// 24): the heading still titles it.
    #[test]
    fn sample_comments() {
        let out = crate::adapters::fixture::parse(&GhAdvancedSecurity, "bots/gh-advanced-security");
        assert!(out.malformed.is_empty(), "{:?}", out.malformed);
        let got = crate::adapters::fixture::places_and(&out.findings, |f| {
            (f.title.as_str(), f.finding_id.as_str())
        });
        assert_eq!(
            got,
            vec![
                (
                    "app/services/links.py",
                    Some(12),
                    Severity::Medium,
                    "security",
                    ("Incomplete URL substring sanitization", "alert-51")
                ),
                (
                    "app/auth/tokens.py",
                    Some(27),
                    Severity::Medium,
                    "security",
                    (
                        "Use of a broken or weak cryptographic hashing algorithm on sensitive data",
                        "alert-52"
                    )
                ),
            ]
        );
    }

    #[test]
    fn join_key_and_heading() {
        let body = "## CodeQL / SQL query built from user-controlled sources\n\nText [v](1).\n\n[Show more details](https://github.com/a/b/security/code-scanning/41)";
        assert_eq!(alert_number(body), Some(41));
        assert_eq!(
            heading_title(body).as_deref(),
            Some("SQL query built from user-controlled sources")
        );
        assert_eq!(
            heading_title("## Log injection\n\nx").as_deref(),
            Some("Log injection")
        );
        assert_eq!(alert_number("no link"), None);
    }

    #[test]
    fn severity_and_category_from_the_alert() {
        let mut alert = CodeScanningAlert::default();
        alert.rule.severity = Some("warning".into());
        alert.rule.tags = vec!["maintainability".into()];
        // Without a security severity, the rule's level as code scanning shows it.
        assert_eq!(severity_of(&alert), Severity::Medium);
        alert.rule.severity = Some("error".into());
        assert_eq!(severity_of(&alert), Severity::High);
        alert.rule.severity = Some("note".into());
        assert_eq!(severity_of(&alert), Severity::Low);
        alert.rule.severity = None;
        assert_eq!(severity_of(&alert), Severity::Medium, "nothing known");
        assert_eq!(native_of(&alert).strong, Some(Category::Maintainability));
        alert.rule.security_severity_level = Some("critical".into());
        alert.rule.tags.clear();
        assert_eq!(severity_of(&alert), Severity::Critical);
        assert_eq!(native_of(&alert).strong, Some(Category::Security));
    }

    fn ghas_comment(id: u64, body: &str) -> ReviewComment {
        ReviewComment {
            id,
            user: Some(crate::api::User {
                login: "github-advanced-security[bot]".into(),
                id: 62310815,
                kind: "Bot".into(),
            }),
            body: body.into(),
            path: Some("app/a.py".into()),
            line: Some(9),
            commit_id: Some("head".into()),
            ..ReviewComment::default()
        }
    }

    #[test]
    fn alerts_without_comments_and_comments_without_alerts() {
        let logins = vec!["github-advanced-security[bot]".to_owned()];
        let mut snapshot = PrSnapshot::default();
        snapshot.pull.head.sha = "head".into();
        snapshot.pull.created_at = Some("2025-11-03T09:00:00Z".into());
        let mut alert = CodeScanningAlert {
            number: 7,
            state: Some("open".into()),
            created_at: Some("2025-11-03T10:00:00Z".into()),
            ..CodeScanningAlert::default()
        };
        alert.rule.description = Some("Uncontrolled data used in path expression".into());
        alert.rule.severity = Some("error".into());
        alert.rule.tags = vec!["correctness".into()];
        alert.most_recent_instance.location.path = Some("app/b.py".into());
        alert.most_recent_instance.location.start_line = Some(4);
        snapshot.code_scanning = CodeScanning::Alerts(vec![alert]);
        snapshot
            .review_comments
            .push(ghas_comment(1, "Copilot Autofix suggestion, no link"));

        let out = GhAdvancedSecurity.parse(&snapshot, &logins);
        assert_eq!(
            out.findings.len(),
            1,
            "the alert outside the diff is a finding"
        );
        let f = &out.findings[0];
        assert_eq!(
            (
                f.finding_id.as_str(),
                f.evidence.file.as_str(),
                f.evidence.line
            ),
            ("alert-7", "app/b.py", Some(4))
        );
        assert_eq!((f.severity, f.category.as_str()), (Severity::High, "bug"));
        assert!(out
            .notes
            .iter()
            .any(|n| n.contains("without an alert link")));
        assert_eq!(out.coverage, crate::model::Coverage::Reviewed);

        // No code scanning: the comments are read alone, the source stays readable.
        snapshot.code_scanning = CodeScanning::Unavailable("404".into());
        snapshot.review_comments = vec![ghas_comment(
            2,
            "## CodeQL / Log injection\n\nUser input reaches a log.\n\n[Show more details](https://github.com/o/r/security/code-scanning/3)",
        )];
        let out = GhAdvancedSecurity.parse(&snapshot, &logins);
        assert_eq!(out.findings.len(), 1);
        assert_eq!(out.findings[0].title, "Log injection");
        assert_eq!(out.findings[0].finding_id, "alert-3");
        assert!(out.notes[0].contains("unavailable"));
    }

    #[test]
    fn preexisting_alerts() {
        let mut alert = CodeScanningAlert {
            created_at: Some("2025-06-17T14:02:11Z".into()),
            ..CodeScanningAlert::default()
        };
        assert!(predates_pull(&alert, Some("2025-11-03T09:12:44Z")));
        assert!(!predates_pull(&alert, None));
        alert.created_at = Some("2025-11-03T09:18:40Z".into());
        assert!(!predates_pull(&alert, Some("2025-11-03T09:12:44Z")));
    }
}
