//! Which findings are kept in the data but not surfaced, and why (first rule that applies).

use crate::adapters::taxonomy;
use crate::model::{
    CategorySource, ConsensusFinding, NormalizedFinding, Severity, SuppressionReason,
};

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

/// Style-only, strongly: low or info, and every member a nitpick by its bot's own mark, a
/// style category the bot (or a findings file) gave, or prose that reads strongly as style.
/// A finding the bots rate medium or above is never hidden as style, whatever its words.
pub fn is_style_only(cluster: &ConsensusFinding) -> bool {
    cluster.severity <= Severity::Low
        && !cluster.members.is_empty()
        && cluster.members.iter().all(strong_style)
}

/// The finding's style signal is strong (see `is_style_only`).
fn strong_style(member: &NormalizedFinding) -> bool {
    if member.nitpick {
        return true;
    }
    if !member.category.eq_ignore_ascii_case("style") {
        return false;
    }
    match member.provenance.category_source {
        None | Some(CategorySource::Native) => true,
        Some(_) => {
            let text = format!("{}\n{}", member.title, member.detail);
            taxonomy::style_score(&text) >= STRONG_STYLE_SCORE
        }
    }
}

/// Keyword score from which prose reads strongly as style (two style signals, or an
/// explicit `[nitpick]`).
pub const STRONG_STYLE_SCORE: u32 = 2;

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
