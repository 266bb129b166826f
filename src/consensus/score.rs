//! Scoring one cluster (the seed's formulas) and the deterministic output order.

use std::cmp::Ordering;

use crate::model::{ConsensusFinding, ConsensusLevel, NormalizedFinding, Severity};

/// A bot's self-reported confidence forced into [0, 1]; NaN counts as 0.
pub fn clamp_confidence(confidence: f64) -> f64 {
    if confidence.is_nan() {
        0.0
    } else {
        confidence.clamp(0.0, 1.0)
    }
}

/// The seed's buckets, lower edges inclusive.
pub fn bucket_for_score(score: f64) -> ConsensusLevel {
    if score >= 0.66 {
        ConsensusLevel::Confirmed
    } else if score >= 0.33 {
        ConsensusLevel::NeedsVerification
    } else {
        ConsensusLevel::Unverified
    }
}

/// A cluster's scores, computed from borrowed members before anything is copied.
pub struct Summary<'a> {
    anchor: &'a NormalizedFinding,
    detected_by: Vec<&'a str>,
    line: Option<u32>,
    title: &'a str,
    severity: Severity,
    bots_ran: usize,
    agreement_ratio: f64,
    max_confidence: f64,
    consensus_score: f64,
}

/// Score a cluster from its members (input order, `members[0]` the anchor); `None` when
/// empty. `bots_ran` 0 counts as 1.
pub fn summarize<'a>(
    members: impl IntoIterator<Item = &'a NormalizedFinding>,
    bots_ran: usize,
) -> Option<Summary<'a>> {
    let mut members = members.into_iter();
    let anchor = members.next()?;
    let mut detected_by: Vec<&str> = vec![anchor.bot.as_str()];
    let mut line: Option<u32> = anchor.evidence.line;
    let mut title = anchor.title.as_str();
    let mut title_chars = title.chars().count();
    let mut severity = anchor.severity;
    let mut max_confidence = clamp_confidence(anchor.confidence);
    for member in members {
        if !detected_by.contains(&member.bot.as_str()) {
            detected_by.push(&member.bot);
        }
        if let Some(l) = member.evidence.line {
            line = Some(line.map_or(l, |known| known.min(l)));
        }
        if member.title.len() > title_chars {
            // Byte length >= character count: only then can it be longer in characters.
            let chars = member.title.chars().count();
            if chars > title_chars {
                title = &member.title;
                title_chars = chars;
            }
        }
        severity = severity.max(member.severity);
        max_confidence = max_confidence.max(clamp_confidence(member.confidence));
    }
    detected_by.sort_unstable();

    let bots_ran = bots_ran.max(1);
    let agreement_ratio = (detected_by.len() as f64 / bots_ran as f64).min(1.0);
    Some(Summary {
        anchor,
        detected_by,
        line,
        title,
        severity,
        bots_ran,
        agreement_ratio,
        max_confidence,
        consensus_score: agreement_ratio * max_confidence,
    })
}

impl Summary<'_> {
    /// Score descending, severity descending, file, line (unknown last). Ties keep creation
    /// order when used with a stable sort.
    pub fn output_order(&self, other: &Summary<'_>) -> Ordering {
        other
            .consensus_score
            .total_cmp(&self.consensus_score)
            .then_with(|| other.severity.cmp(&self.severity))
            .then_with(|| self.anchor.evidence.file.cmp(&other.anchor.evidence.file))
            .then_with(|| match (self.line, other.line) {
                (Some(x), Some(y)) => x.cmp(&y),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            })
    }

    /// The merged finding, owning copies of its members.
    pub fn into_finding(self, members: Vec<NormalizedFinding>) -> ConsensusFinding {
        ConsensusFinding {
            file: self.anchor.evidence.file.clone(),
            line: self.line,
            category: self.anchor.category.clone(),
            title: self.title.to_owned(),
            severity: self.severity,
            detected_by: self.detected_by.into_iter().map(str::to_owned).collect(),
            bots_ran: self.bots_ran,
            agreement_ratio: self.agreement_ratio,
            max_confidence: self.max_confidence,
            consensus_score: self.consensus_score,
            level: bucket_for_score(self.consensus_score),
            members,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score_cluster(members: Vec<NormalizedFinding>, bots_ran: usize) -> ConsensusFinding {
        let summary = summarize(&members, bots_ran).expect("members");
        let cluster = summary.into_finding(Vec::new());
        ConsensusFinding { members, ..cluster }
    }

    fn member(bot: &str, severity: Severity, line: Option<u32>, title: &str) -> NormalizedFinding {
        NormalizedFinding::new(bot, "", severity, "bug", title).at("a.py", line)
    }

    #[test]
    fn thresholds_are_inclusive_lower_edges() {
        assert_eq!(bucket_for_score(0.66), ConsensusLevel::Confirmed);
        assert_eq!(
            bucket_for_score(0.659_999),
            ConsensusLevel::NeedsVerification
        );
        assert_eq!(bucket_for_score(0.33), ConsensusLevel::NeedsVerification);
        assert_eq!(bucket_for_score(0.329_999), ConsensusLevel::Unverified);
        assert_eq!(bucket_for_score(1.0), ConsensusLevel::Confirmed);
        assert_eq!(bucket_for_score(0.0), ConsensusLevel::Unverified);
        // 1 of 3 bots and 2 of 3 bots land on the intended sides of the edges.
        assert_eq!(
            bucket_for_score(1.0 / 3.0),
            ConsensusLevel::NeedsVerification
        );
        assert_eq!(bucket_for_score(2.0 / 3.0), ConsensusLevel::Confirmed);
    }

    #[test]
    fn cluster_takes_smallest_line_longest_title_highest_severity() {
        let cluster = score_cluster(
            vec![
                member("sourcery", Severity::Low, Some(41), "short"),
                member("coderabbit", Severity::Critical, None, "the longest title"),
                member("sourcery", Severity::High, Some(39), "mid title"),
            ],
            4,
        );
        assert_eq!(cluster.line, Some(39));
        assert_eq!(cluster.title, "the longest title");
        assert_eq!(cluster.severity, Severity::Critical);
        assert_eq!(cluster.detected_by, vec!["coderabbit", "sourcery"]);
        assert_eq!(cluster.agreement_ratio, 0.5);
        assert_eq!(cluster.level, ConsensusLevel::NeedsVerification);
        assert_eq!(cluster.members.len(), 3);
    }

    #[test]
    fn confidence_is_clamped_before_the_max() {
        let mut high = member("a", Severity::Low, Some(1), "x");
        high.confidence = 7.5;
        let cluster = score_cluster(vec![high], 1);
        assert_eq!(cluster.max_confidence, 1.0);
        assert_eq!(cluster.consensus_score, 1.0);

        let mut negative = member("a", Severity::Low, Some(1), "x");
        negative.confidence = -3.0;
        let mut nan = member("b", Severity::Low, Some(1), "x");
        nan.confidence = f64::NAN;
        let cluster = score_cluster(vec![negative, nan], 2);
        assert_eq!(cluster.max_confidence, 0.0);
        assert_eq!(cluster.level, ConsensusLevel::Unverified);
    }

    #[test]
    fn agreement_clamps_when_bots_ran_is_too_small() {
        let cluster = score_cluster(
            vec![
                member("a", Severity::Low, Some(1), "x"),
                member("b", Severity::Low, Some(1), "x"),
                member("c", Severity::Low, Some(1), "x"),
            ],
            2,
        );
        assert_eq!(cluster.agreement_ratio, 1.0);
        assert_eq!(cluster.bots_ran, 2);
        // Zero bots is treated as one, never a division by zero.
        assert_eq!(
            score_cluster(vec![member("a", Severity::Low, None, "x")], 0).bots_ran,
            1
        );
    }
}
