//! Scoring one cluster (the seed's formulas) and the deterministic output order.

use std::cmp::Ordering;

use crate::model::{ConsensusLevel, NormalizedFinding, Severity};

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

/// A cluster's running scores, fed its members in input order (the anchor first).
pub struct Aggregate {
    /// Smallest known line.
    pub line: Option<u32>,
    /// Input index of the member with the longest title (the first on ties).
    pub title: usize,
    title_chars: usize,
    pub severity: Severity,
    /// Highest clamped confidence.
    pub max_confidence: f64,
    /// Distinct bots, as ids the caller assigns: ids below 64 in a bit set (no allocation
    /// for the usual handful of bots), the rest in a list.
    low_bots: u64,
    high_bots: Vec<usize>,
}

impl Aggregate {
    pub fn new(index: usize, anchor: &NormalizedFinding, bot: usize) -> Aggregate {
        Aggregate {
            line: anchor.evidence.line,
            title: index,
            title_chars: anchor.title.chars().count(),
            severity: anchor.severity,
            max_confidence: clamp_confidence(anchor.confidence),
            low_bots: 0,
            high_bots: Vec::new(),
        }
        .with_bot(bot)
    }

    fn with_bot(mut self, bot: usize) -> Self {
        self.add_bot(bot);
        self
    }

    fn add_bot(&mut self, bot: usize) {
        if bot < 64 {
            self.low_bots |= 1 << bot;
        } else if !self.high_bots.contains(&bot) {
            self.high_bots.push(bot);
        }
    }

    /// The distinct bot ids, ascending.
    pub fn bots(&self) -> Vec<usize> {
        let mut bots: Vec<usize> = (0..64).filter(|b| self.low_bots & (1 << b) != 0).collect();
        let mut high = self.high_bots.clone();
        high.sort_unstable();
        bots.extend(high);
        bots
    }

    fn bot_count(&self) -> usize {
        self.low_bots.count_ones() as usize + self.high_bots.len()
    }

    pub fn add(&mut self, index: usize, member: &NormalizedFinding, bot: usize) {
        self.add_bot(bot);
        if let Some(l) = member.evidence.line {
            self.line = Some(self.line.map_or(l, |known| known.min(l)));
        }
        // Byte length >= character count: only then can it be longer in characters.
        if member.title.len() > self.title_chars {
            let chars = member.title.chars().count();
            if chars > self.title_chars {
                self.title = index;
                self.title_chars = chars;
            }
        }
        self.severity = self.severity.max(member.severity);
        self.max_confidence = self.max_confidence.max(clamp_confidence(member.confidence));
    }

    /// `min(len(detected_by) / bots_ran, 1)`, `bots_ran` at least 1.
    pub fn agreement_ratio(&self, bots_ran: usize) -> f64 {
        (self.bot_count() as f64 / bots_ran.max(1) as f64).min(1.0)
    }
}

/// The output order's key: score descending, severity descending, file (as a rank),
/// line with unknown last. Ties keep creation order under a stable sort.
pub struct OrderKey {
    pub score: f64,
    pub severity: Severity,
    pub file_rank: usize,
    pub line: Option<u32>,
}

impl OrderKey {
    pub fn cmp(&self, other: &OrderKey) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then_with(|| other.severity.cmp(&self.severity))
            .then_with(|| self.file_rank.cmp(&other.file_rank))
            .then_with(|| match (self.line, other.line) {
                (Some(x), Some(y)) => x.cmp(&y),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consensus::{compute_consensus, ConsensusOptions};
    use crate::model::ConsensusFinding;

    fn member(bot: &str, severity: Severity, line: Option<u32>, title: &str) -> NormalizedFinding {
        NormalizedFinding::new(bot, "", severity, "bug", title).at("a.py", line)
    }

    fn one_cluster(members: Vec<NormalizedFinding>, bots_ran: usize) -> ConsensusFinding {
        let options = ConsensusOptions {
            bots_ran: Some(bots_ran),
            title_overlap: 0.0,
            matching: crate::consensus::Matching::Seed,
            ..ConsensusOptions::default()
        };
        let mut clusters = compute_consensus(&members, &options);
        assert_eq!(clusters.len(), 1);
        clusters.remove(0)
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
        let cluster = one_cluster(
            vec![
                member("sourcery", Severity::Low, Some(41), "short"),
                member("coderabbit", Severity::Critical, None, "the longest title"),
                member("sourcery", Severity::High, Some(39), "mid title"),
                member("gemini", Severity::High, Some(40), "same length title"),
            ],
            4,
        );
        assert_eq!(cluster.line, Some(39));
        assert_eq!(cluster.title, "the longest title", "first of the longest");
        assert_eq!(cluster.severity, Severity::Critical);
        assert_eq!(
            cluster.detected_by,
            vec!["coderabbit", "gemini", "sourcery"]
        );
        assert_eq!(cluster.agreement_ratio, 0.75);
        assert_eq!(cluster.level, ConsensusLevel::Confirmed);
        assert_eq!(cluster.members.len(), 4);
        assert_eq!(
            cluster.members[1].bot, "coderabbit",
            "members keep input order"
        );
    }

    #[test]
    fn many_bots_beyond_the_bit_set() {
        let members: Vec<NormalizedFinding> = (0..70)
            .rev()
            .map(|i| member(&format!("bot{i:02}"), Severity::Low, Some(1), "x"))
            .chain([member("bot69", Severity::Low, Some(2), "x")])
            .collect();
        let cluster = one_cluster(members, 100);
        assert_eq!(cluster.detected_by.len(), 70);
        assert_eq!(cluster.detected_by[0], "bot00");
        assert_eq!(cluster.detected_by[69], "bot69");
        assert_eq!(cluster.agreement_ratio, 0.7);
    }

    #[test]
    fn confidence_is_clamped_before_the_max() {
        let mut high = member("a", Severity::Low, Some(1), "x");
        high.confidence = 7.5;
        let cluster = one_cluster(vec![high], 1);
        assert_eq!(cluster.max_confidence, 1.0);
        assert_eq!(cluster.consensus_score, 1.0);

        let mut negative = member("a", Severity::Low, Some(1), "x");
        negative.confidence = -3.0;
        let mut nan = member("b", Severity::Low, Some(1), "x");
        nan.confidence = f64::NAN;
        let cluster = one_cluster(vec![negative, nan], 2);
        assert_eq!(cluster.max_confidence, 0.0);
        assert_eq!(cluster.level, ConsensusLevel::Unverified);
    }

    #[test]
    fn agreement_clamps_when_bots_ran_is_too_small() {
        let cluster = one_cluster(
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
            one_cluster(vec![member("a", Severity::Low, None, "x")], 0).bots_ran,
            1
        );
    }
}
