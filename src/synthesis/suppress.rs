//! Which findings are kept in the data but not surfaced, and why (first rule that applies).

use crate::model::{ConsensusFinding, SuppressionReason};

/// No member points anywhere or explains anything: no file, line, snippet, symbol or
/// detail.
pub fn has_no_evidence(cluster: &ConsensusFinding) -> bool {
    cluster.file.is_empty()
        && cluster.members.iter().all(|m| {
            m.evidence.file.is_empty()
                && m.evidence.line.is_none()
                && m.evidence.snippet.trim().is_empty()
                && m.evidence.symbol.trim().is_empty()
                && m.detail.trim().is_empty()
        })
}

/// Category `style`, or every member marked as a nitpick by its bot.
pub fn is_style_only(cluster: &ConsensusFinding) -> bool {
    cluster.category.eq_ignore_ascii_case("style")
        || (!cluster.members.is_empty() && cluster.members.iter().all(|m| m.nitpick))
}

/// The rules in order: no evidence, style covered by linters, below the threshold.
/// `judge` is false under the single-source shortcut, which keeps only the evidence rule.
pub fn suppression(
    cluster: &ConsensusFinding,
    rank_score: u8,
    style_covered_by_linters: bool,
    evidence_threshold: u8,
    judge: bool,
) -> Option<SuppressionReason> {
    if has_no_evidence(cluster) {
        Some(SuppressionReason::NoEvidence)
    } else if !judge {
        None
    } else if style_covered_by_linters && is_style_only(cluster) {
        Some(SuppressionReason::StyleCoveredByLinters)
    } else if rank_score < evidence_threshold {
        Some(SuppressionReason::BelowEvidenceThreshold)
    } else {
        None
    }
}
