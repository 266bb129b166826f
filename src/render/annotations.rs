//! Findings as annotations: workflow-command lines and check-run annotation objects.

use serde_json::json;

use crate::model::{ConsensusLevel, Outcome, SynthesizedFinding};
use crate::publish::commands::command;

/// The runner keeps this many annotations per type and step; the rest only clutter the log.
const MAX_PER_TYPE: usize = 10;
/// The runner truncates annotation messages to this many characters.
const MAX_LOG_MESSAGE: usize = 4096;
/// Check-run annotation limits (bytes for the message, characters for the title).
const MAX_CHECK_MESSAGE: usize = 64 * 1024;
const MAX_CHECK_TITLE: usize = 255;

/// `::error`/`::warning` lines for the job log: confirmed findings as errors, at most 10
/// errors and 10 warnings (what the runner shows), then a notice counting the rest.
pub fn workflow_annotations(outcome: &Outcome) -> Vec<String> {
    let mut lines = Vec::new();
    let mut left_out = 0;
    for (level, kind) in [
        (ConsensusLevel::Confirmed, "error"),
        (ConsensusLevel::NeedsVerification, "warning"),
    ] {
        let at_level = outcome.surfaced().filter(|f| f.consensus.level == level);
        for (i, finding) in at_level.enumerate() {
            if i >= MAX_PER_TYPE {
                left_out += 1;
                continue;
            }
            lines.push(command(
                kind,
                &log_properties(finding),
                &log_message(finding),
            ));
        }
    }
    if left_out > 0 {
        lines.push(command(
            "notice",
            &[],
            &format!(
                "{left_out} more finding(s) not annotated (the runner shows {MAX_PER_TYPE} errors and {MAX_PER_TYPE} warnings per step); see the job summary or the report"
            ),
        ));
    }
    lines
}

fn log_properties(finding: &SynthesizedFinding) -> Vec<(&'static str, String)> {
    let c = &finding.consensus;
    let mut properties = Vec::new();
    if !c.file.is_empty() {
        properties.push(("file", c.file.clone()));
        if let Some(line) = c.line {
            properties.push(("line", line.to_string()));
            if let Some(end) = end_line(finding).filter(|end| *end > line) {
                properties.push(("endLine", end.to_string()));
            }
        }
    }
    properties.push(("title", title(finding)));
    properties
}

fn log_message(finding: &SynthesizedFinding) -> String {
    truncate_chars(&message(finding), MAX_LOG_MESSAGE)
}

/// `[high] Title` — the severity first, as it decides how urgently to read on.
fn title(finding: &SynthesizedFinding) -> String {
    format!(
        "[{}] {}",
        finding.consensus.severity,
        single_line(&finding.consensus.title)
    )
}

/// Who found it, how many agree, and the first explanation a bot gave.
fn message(finding: &SynthesizedFinding) -> String {
    let c = &finding.consensus;
    let mut text = format!(
        "{} ({} {}): detected by {}/{} bots ({}), agreement {:.0}%",
        single_line(&c.title),
        c.severity,
        c.category,
        c.detected_by.len(),
        c.bots_ran,
        c.detected_by.join(", "),
        c.agreement_ratio * 100.0
    );
    if finding.is_contested() {
        text.push_str(&format!(
            "; contested by {}",
            finding.contested_by.join(", ")
        ));
    }
    if let Some(detail) = c
        .members
        .iter()
        .map(|m| m.detail.trim())
        .find(|d| !d.is_empty())
    {
        text.push_str("\n\n");
        text.push_str(detail);
    }
    text
}

/// The end of the range the members point at, when one is known.
fn end_line(finding: &SynthesizedFinding) -> Option<u32> {
    finding
        .consensus
        .members
        .iter()
        .filter_map(|m| m.evidence.end_line)
        .max()
}

/// Check-run annotation objects (`path`, `start_line`, `end_line`, `annotation_level`,
/// `title`, `message`), one per surfaced finding with a file.
pub fn check_annotations(outcome: &Outcome) -> Vec<serde_json::Value> {
    outcome
        .surfaced()
        .filter(|f| !f.consensus.file.is_empty())
        .map(|finding| {
            // The API requires a line; a file-level finding points at the file's start.
            let start = finding.consensus.line.unwrap_or(1).max(1);
            let end = end_line(finding).filter(|e| *e >= start).unwrap_or(start);
            let level = match finding.consensus.level {
                ConsensusLevel::Confirmed => "failure",
                ConsensusLevel::NeedsVerification => "warning",
                ConsensusLevel::Unverified => "notice",
            };
            json!({
                "path": finding.consensus.file,
                "start_line": start,
                "end_line": end,
                "annotation_level": level,
                "title": truncate_chars(&plain(&title(finding)), MAX_CHECK_TITLE),
                "message": truncate_bytes(&plain(&message(finding)), MAX_CHECK_MESSAGE),
            })
        })
        .collect()
}

/// Annotation text is shown as plain text: keep line breaks and tabs, drop other control
/// and bidirectional characters (bot text is untrusted and may carry terminal escapes).
fn plain(text: &str) -> String {
    text.chars()
        .filter(|c| !crate::render::escape::is_hazard(*c) || matches!(c, '\n' | '\t'))
        .collect()
}

fn single_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn truncate_chars(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let keep: String = text.chars().take(max.saturating_sub(1)).collect();
    format!("{keep}…")
}

fn truncate_bytes(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut cut = max - '…'.len_utf8();
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…", &text[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{
        ConsensusFinding, FailOn, Gate, MergedConfidence, NormalizedFinding, Severity,
    };

    fn finding(
        level: ConsensusLevel,
        file: &str,
        line: Option<u32>,
        title: &str,
    ) -> SynthesizedFinding {
        let member =
            NormalizedFinding::new("coderabbit", "c1", Severity::High, "bug", title).at(file, line);
        SynthesizedFinding {
            consensus: ConsensusFinding {
                file: file.to_owned(),
                line,
                category: "bug".to_owned(),
                title: title.to_owned(),
                severity: Severity::High,
                detected_by: vec!["coderabbit".to_owned(), "sourcery".to_owned()],
                bots_ran: 3,
                agreement_ratio: 2.0 / 3.0,
                max_confidence: 1.0,
                consensus_score: 0.8,
                level,
                members: vec![member],
                match_reasons: Vec::new(),
            },
            corroborated_by: Vec::new(),
            contested_by: Vec::new(),
            contest_reasons: Vec::new(),
            merged_confidence: MergedConfidence::High,
            severity_score: 3,
            confidence_score: 3,
            verification_score: 3,
            rank_score: 27,
            suppressed: false,
            suppression_reason: None,
            identity: None,
        }
    }

    fn outcome(findings: Vec<SynthesizedFinding>) -> Outcome {
        Outcome {
            repository: "acme/api".to_owned(),
            pull_request: Some(1),
            head_sha: None,
            bots_ran: 3,
            sources: Vec::new(),
            findings,
            fail_on: FailOn::Confirmed,
            fail_on_severity: None,
            required_bots: Vec::new(),
            not_reviewed: Vec::new(),
            unread_bots: Vec::new(),
            gate: Gate::Fail,
            identity: Default::default(),
            judge: None,
        }
    }

    #[test]
    fn confirmed_become_errors_and_needs_verification_warnings() {
        let lines = workflow_annotations(&outcome(vec![
            finding(
                ConsensusLevel::Confirmed,
                "src/a.rs",
                Some(12),
                "Null deref",
            ),
            finding(
                ConsensusLevel::NeedsVerification,
                "src/b.rs",
                Some(3),
                "Leak",
            ),
            finding(ConsensusLevel::Unverified, "src/c.rs", Some(1), "Style"),
        ]));
        assert_eq!(lines.len(), 2);
        assert!(lines[0]
            .starts_with("::error file=src/a.rs,line=12,title=[high] Null deref::Null deref"));
        assert!(lines[0].contains("detected by 2/3 bots (coderabbit, sourcery), agreement 67%"));
        assert!(lines[1].starts_with("::warning file=src/b.rs,line=3,"));
    }

    #[test]
    fn a_finding_without_a_file_has_no_file_property() {
        let lines = workflow_annotations(&outcome(vec![finding(
            ConsensusLevel::Confirmed,
            "",
            None,
            "PR-wide: missing tests",
        )]));
        assert!(lines[0].starts_with("::error title=[high] PR-wide%3A missing tests::"));
    }

    #[test]
    fn at_most_ten_per_type_then_a_notice_counts_the_rest() {
        let mut findings = Vec::new();
        for i in 0..13 {
            findings.push(finding(ConsensusLevel::Confirmed, "a.rs", Some(i + 1), "E"));
        }
        for i in 0..11 {
            findings.push(finding(
                ConsensusLevel::NeedsVerification,
                "b.rs",
                Some(i + 1),
                "W",
            ));
        }
        let mut suppressed = finding(ConsensusLevel::Confirmed, "c.rs", Some(1), "S");
        suppressed.suppressed = true;
        findings.push(suppressed);
        let lines = workflow_annotations(&outcome(findings));
        assert_eq!(
            lines.iter().filter(|l| l.starts_with("::error ")).count(),
            10
        );
        assert_eq!(
            lines.iter().filter(|l| l.starts_with("::warning ")).count(),
            10
        );
        assert_eq!(lines.last().map(String::as_str), Some(
            "::notice::4 more finding(s) not annotated (the runner shows 10 errors and 10 warnings per step); see the job summary or the report"
        ));
        assert!(
            !lines.iter().any(|l| l.contains("file=c.rs")),
            "suppressed findings are not annotated"
        );
    }

    #[test]
    fn bot_text_cannot_break_out_of_the_command_line() {
        let mut f = finding(
            ConsensusLevel::Confirmed,
            "x.rs",
            Some(2),
            "a,b: 100%\n::error::forged",
        );
        f.consensus.members[0].detail = "line one\r\n::warning::forged".to_owned();
        let lines = workflow_annotations(&outcome(vec![f]));
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].lines().count(), 1);
        assert!(lines[0].contains("title=[high] a%2Cb%3A 100%25 %3A%3Aerror%3A%3Aforged::"));
        assert!(lines[0].ends_with("%0A%0Aline one%0D%0A::warning::forged"));
    }

    #[test]
    fn long_messages_are_cut_to_the_runner_limit() {
        let mut f = finding(ConsensusLevel::Confirmed, "x.rs", Some(2), "T");
        f.consensus.members[0].detail = "é".repeat(10_000);
        assert_eq!(log_message(&f).chars().count(), MAX_LOG_MESSAGE);
        assert!(log_message(&f).ends_with('…'));
    }

    #[test]
    fn check_annotations_map_levels_ranges_and_skip_fileless() {
        let mut ranged = finding(ConsensusLevel::Confirmed, "src/a.rs", Some(10), "Range");
        ranged.consensus.members[0].evidence.end_line = Some(14);
        let file_level = finding(ConsensusLevel::NeedsVerification, "README.md", None, "Docs");
        let notice = finding(ConsensusLevel::Unverified, "src/c.rs", Some(5), "Maybe");
        let global = finding(ConsensusLevel::Confirmed, "", None, "Global");
        let annotations = check_annotations(&outcome(vec![ranged, file_level, notice, global]));
        assert_eq!(annotations.len(), 3);
        assert_eq!(annotations[0]["path"], "src/a.rs");
        assert_eq!(annotations[0]["start_line"], 10);
        assert_eq!(annotations[0]["end_line"], 14);
        assert_eq!(annotations[0]["annotation_level"], "failure");
        assert_eq!(annotations[0]["title"], "[high] Range");
        assert_eq!(annotations[1]["start_line"], 1);
        assert_eq!(annotations[1]["end_line"], 1);
        assert_eq!(annotations[1]["annotation_level"], "warning");
        assert_eq!(annotations[2]["annotation_level"], "notice");
        assert_eq!(annotations[2]["end_line"], 5);
    }

    #[test]
    fn check_messages_are_plain_and_at_most_64_kb() {
        let mut f = finding(ConsensusLevel::Confirmed, "x.rs", Some(2), "T\u{1b}[31m");
        f.consensus.members[0].detail = format!("\u{1b}[2Jred{}", "ü".repeat(40_000));
        let annotation = &check_annotations(&outcome(vec![f]))[0];
        let message = annotation["message"].as_str().unwrap_or_default();
        assert!(message.len() <= MAX_CHECK_MESSAGE);
        assert!(message.ends_with('…'));
        assert!(!message.contains('\u{1b}'));
        assert_eq!(annotation["title"], "[high] T[31m");
    }
}
