//! The 1-3 scores, their product and the merged confidence.

use crate::model::{MergedConfidence, Severity};

/// critical/high 3, medium 2, low/info 1.
pub fn severity_score(severity: Severity) -> u8 {
    match severity {
        Severity::Critical | Severity::High => 3,
        Severity::Medium => 2,
        Severity::Low | Severity::Info => 1,
    }
}

/// From the highest member confidence (already clamped to [0, 1]): >= 0.8 3, >= 0.5 2,
/// else 1.
pub fn confidence_score(max_confidence: f64) -> u8 {
    if max_confidence >= 0.8 {
        3
    } else if max_confidence >= 0.5 {
        2
    } else {
        1
    }
}

/// One point per independent source that raised it, one more when a tool-verified source
/// (code scanning) is among them; 1..=3.
pub fn verification_score(independent_sources: usize, tool_verified: bool) -> u8 {
    let points = independent_sources.max(1) + usize::from(tool_verified);
    points.min(3) as u8
}

/// confidence + verification: 5-6 high, 4 medium, 2-3 low; a contested finding one lower.
pub fn merged_confidence(confidence: u8, verification: u8, contested: bool) -> MergedConfidence {
    let level = match confidence + verification {
        5.. => MergedConfidence::High,
        4 => MergedConfidence::Medium,
        _ => MergedConfidence::Low,
    };
    match (contested, level) {
        (true, MergedConfidence::High) => MergedConfidence::Medium,
        (true, _) => MergedConfidence::Low,
        (false, level) => level,
    }
}
