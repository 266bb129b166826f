//! The seed's text outputs: the provenance tag and a plain markdown listing by level.

use std::fmt::Write as _;

use crate::model::{ConsensusFinding, ConsensusLevel};
use crate::render::escape::escape_inline;

/// `[detected by 2/4 bots, agreement 50%]`, percent rounded to the nearest integer (halves
/// away from zero).
pub fn render_provenance(finding: &ConsensusFinding) -> String {
    format!(
        "[detected by {}/{} bots, agreement {}%]",
        finding.detected_by.len(),
        finding.bots_ran,
        (finding.agreement_ratio * 100.0).round()
    )
}

/// `path:line`, `path` when the line is unknown, `PR-wide` for a global finding. Raw text:
/// escape it before putting it into markdown.
pub fn locus(file: &str, line: Option<u32>) -> String {
    match (file.is_empty(), line) {
        (true, _) => "PR-wide".to_owned(),
        (false, Some(line)) => format!("{file}:{line}"),
        (false, None) => file.to_owned(),
    }
}

/// Findings grouped by level (confirmed first), each line with severity, title, locus,
/// provenance tag and the bots that detected it. Levels with no finding are left out.
pub fn render_consensus_markdown(consensus: &[ConsensusFinding]) -> String {
    let mut out = String::new();
    for level in ConsensusLevel::DESCENDING {
        let at_level: Vec<&ConsensusFinding> =
            consensus.iter().filter(|f| f.level == level).collect();
        if at_level.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        let _ = writeln!(out, "### {} ({})\n", level, at_level.len());
        for finding in at_level {
            let bots: Vec<String> = finding
                .detected_by
                .iter()
                .map(|b| escape_inline(b))
                .collect();
            let _ = writeln!(
                out,
                "- **{}** {} — {} {} — {}",
                finding.severity,
                escape_inline(&finding.title),
                escape_inline(&locus(&finding.file, finding.line)),
                render_provenance(finding),
                bots.join(", ")
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consensus::{compute_consensus, ConsensusOptions, Matching};
    use crate::model::{NormalizedFinding, Severity};

    #[test]
    fn provenance_tag_is_exact() {
        let findings = vec![
            NormalizedFinding::new("a", "1", Severity::High, "bug", "x").at("f.rs", Some(1)),
            NormalizedFinding::new("b", "2", Severity::High, "bug", "y").at("f.rs", Some(2)),
        ];
        // The seed's line rule merges the two: this is about the tag, not the matching.
        let options = ConsensusOptions {
            bots_ran: Some(4),
            matching: Matching::Seed,
            ..ConsensusOptions::default()
        };
        let consensus = compute_consensus(&findings, &options);
        assert_eq!(
            render_provenance(&consensus[0]),
            "[detected by 2/4 bots, agreement 50%]"
        );
        let options = ConsensusOptions {
            bots_ran: Some(3),
            matching: Matching::Seed,
            ..ConsensusOptions::default()
        };
        let consensus = compute_consensus(&findings, &options);
        assert_eq!(
            render_provenance(&consensus[0]),
            "[detected by 2/3 bots, agreement 67%]"
        );
    }

    #[test]
    fn markdown_groups_by_level() {
        let findings = vec![
            NormalizedFinding::new("a", "1", Severity::High, "bug", "Null @deref")
                .at("f.rs", Some(1)),
            NormalizedFinding::new("b", "2", Severity::High, "bug", "null").at("f.rs", Some(2)),
            NormalizedFinding::new("a", "3", Severity::Low, "docs", "Typo").at("", None),
        ];
        let options = ConsensusOptions {
            bots_ran: Some(3),
            ..ConsensusOptions::default()
        };
        let markdown = render_consensus_markdown(&compute_consensus(&findings, &options));
        let expected = "### confirmed (1)\n\n\
            - **high** Null @\u{200B}deref — f.rs:1 [detected by 2/3 bots, agreement 67%] — a, b\n\n\
            ### needs-verification (1)\n\n\
            - **low** Typo — PR-wide [detected by 1/3 bots, agreement 33%] — a\n";
        assert_eq!(markdown, expected);
    }
}
