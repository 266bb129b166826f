//! The scorecard: per-PR records summed per bot (CONTRACT section 9). Pure.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::record::{FindingOutcome, PrRecord};
use crate::model::Coverage;

pub const SCORECARD_VERSION: u32 = 1;

/// The window a scorecard covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// `owner/name`.
    pub repository: String,
    pub since_days: u32,
    /// The window's start, RFC 3339.
    pub since: String,
}

/// The precision estimate's two terms, so the figure can be checked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrecisionBasis {
    /// Counted findings that were addressed.
    pub addressed: usize,
    /// Findings raised, less style-only and informational ones.
    pub counted: usize,
}

/// One bot over the window.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BotScore {
    pub bot: String,
    pub prs_reviewed: usize,
    pub prs_declined: usize,
    pub prs_absent: usize,
    pub findings_raised: usize,
    pub findings_addressed: usize,
    pub findings_open_at_merge: usize,
    pub findings_disputed: usize,
    /// Findings that another bot also raised.
    pub findings_agreed: usize,
    /// `precision_basis.addressed / precision_basis.counted`; `None` with nothing counted.
    pub precision_estimate: Option<f64>,
    pub precision_basis: PrecisionBasis,
    /// Per other bot: how many of this bot's findings it also raised.
    pub agreed_with: BTreeMap<String, usize>,
    /// Comments of the bot that could not be read and were skipped.
    pub comments_skipped: usize,
}

impl BotScore {
    /// Whether the bot showed up at all (reviewed or declined on some PR).
    pub fn seen(&self) -> bool {
        self.prs_reviewed + self.prs_declined > 0
    }

    /// The share of this bot's findings that `other` also raised, 0 to 1.
    pub fn overlap_with(&self, other: &str) -> Option<f64> {
        (self.findings_raised > 0).then(|| {
            self.agreed_with.get(other).copied().unwrap_or(0) as f64 / self.findings_raised as f64
        })
    }
}

/// The whole scorecard (`scorecard.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scorecard {
    pub version: u32,
    pub repository: String,
    pub since_days: u32,
    pub since: String,
    /// PRs merged in the window.
    pub merged_prs: usize,
    /// Merged PRs that could not be read: they are in no bot's figures.
    pub prs_unread: Vec<u64>,
    /// PRs whose review-thread state could not be read (fewer findings show as addressed).
    pub prs_without_thread_state: usize,
    pub bots: Vec<BotScore>,
}

impl Scorecard {
    /// Bots that showed up on some PR, in scorecard order.
    pub fn seen_bots(&self) -> impl Iterator<Item = &BotScore> {
        self.bots.iter().filter(|b| b.seen())
    }
}

/// Sum the records of the PRs read. `bots` are the configured sources' names (each gets a
/// row even if it never showed up); bots found only in the records follow them.
pub fn score(window: &Window, records: &[PrRecord], bots: &[String], unread: &[u64]) -> Scorecard {
    let mut order: Vec<String> = bots.to_vec();
    for record in records {
        for bot in &record.bots {
            if !order.contains(&bot.bot) {
                order.push(bot.bot.clone());
            }
        }
    }
    let mut scores: Vec<BotScore> = order
        .into_iter()
        .map(|bot| BotScore {
            bot,
            ..BotScore::default()
        })
        .collect();
    for record in records {
        for score in &mut scores {
            let Some(bot) = record.bots.iter().find(|b| b.bot == score.bot) else {
                score.prs_absent += 1;
                continue;
            };
            match bot.coverage {
                Coverage::Reviewed | Coverage::Stale => score.prs_reviewed += 1,
                Coverage::Declined => score.prs_declined += 1,
                Coverage::Absent => score.prs_absent += 1,
            }
            score.comments_skipped += bot.skipped;
            for finding in &bot.findings {
                score.findings_raised += 1;
                match finding.outcome {
                    FindingOutcome::Addressed => score.findings_addressed += 1,
                    FindingOutcome::Open => score.findings_open_at_merge += 1,
                    FindingOutcome::Disputed => score.findings_disputed += 1,
                }
                if finding.counted {
                    score.precision_basis.counted += 1;
                    if finding.outcome == FindingOutcome::Addressed {
                        score.precision_basis.addressed += 1;
                    }
                }
                if !finding.also_raised_by.is_empty() {
                    score.findings_agreed += 1;
                }
                for other in &finding.also_raised_by {
                    *score.agreed_with.entry(other.clone()).or_default() += 1;
                }
            }
        }
    }
    for score in &mut scores {
        let basis = score.precision_basis;
        score.precision_estimate =
            (basis.counted > 0).then(|| basis.addressed as f64 / basis.counted as f64);
    }
    Scorecard {
        version: SCORECARD_VERSION,
        repository: window.repository.clone(),
        since_days: window.since_days,
        since: window.since.clone(),
        merged_prs: records.len() + unread.len(),
        prs_unread: unread.to_vec(),
        prs_without_thread_state: records.iter().filter(|r| !r.threads_known).count(),
        bots: scores,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::stats::record::{BotRecord, FindingRecord};

    pub(crate) fn finding(outcome: FindingOutcome, counted: bool, also: &[&str]) -> FindingRecord {
        FindingRecord {
            outcome,
            counted,
            also_raised_by: also.iter().map(|b| (*b).to_owned()).collect(),
        }
    }

    pub(crate) fn bot(name: &str, coverage: Coverage, findings: Vec<FindingRecord>) -> BotRecord {
        BotRecord {
            bot: name.to_owned(),
            coverage,
            skipped: 0,
            findings,
        }
    }

    pub(crate) fn pr(number: u64, bots: Vec<BotRecord>) -> PrRecord {
        PrRecord {
            number,
            merged_at: "2026-03-01T10:00:00Z".to_owned(),
            threads_known: true,
            bots,
        }
    }

    pub(crate) fn window() -> Window {
        Window {
            repository: "acme/shop".to_owned(),
            since_days: 30,
            since: "2026-02-01T00:00:00Z".to_owned(),
        }
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|b| (*b).to_owned()).collect()
    }

    use FindingOutcome::{Addressed, Disputed, Open};

    #[test]
    fn sums_coverage_and_outcomes_per_bot() {
        let records = [
            pr(
                1,
                vec![
                    bot(
                        "alpha",
                        Coverage::Reviewed,
                        vec![
                            finding(Addressed, true, &["beta"]),
                            finding(Open, true, &[]),
                            finding(Disputed, true, &[]),
                        ],
                    ),
                    bot(
                        "beta",
                        Coverage::Reviewed,
                        vec![finding(Addressed, true, &["alpha"])],
                    ),
                ],
            ),
            pr(
                2,
                vec![
                    bot(
                        "alpha",
                        Coverage::Stale,
                        vec![finding(Addressed, true, &[])],
                    ),
                    bot("beta", Coverage::Declined, vec![]),
                ],
            ),
            // A record without beta (say, an older configuration): beta was absent there.
            pr(3, vec![bot("alpha", Coverage::Absent, vec![])]),
        ];
        let card = score(
            &window(),
            &records,
            &names(&["alpha", "beta", "gamma"]),
            &[7],
        );
        assert_eq!((card.merged_prs, card.prs_unread.clone()), (4, vec![7]));
        let alpha = &card.bots[0];
        assert_eq!(
            (alpha.prs_reviewed, alpha.prs_declined, alpha.prs_absent),
            (2, 0, 1)
        );
        assert_eq!(
            (
                alpha.findings_raised,
                alpha.findings_addressed,
                alpha.findings_open_at_merge,
                alpha.findings_disputed,
                alpha.findings_agreed
            ),
            (4, 2, 1, 1, 1)
        );
        assert_eq!(alpha.agreed_with, BTreeMap::from([("beta".to_owned(), 1)]));
        assert_eq!(alpha.precision_estimate, Some(0.5));
        let beta = &card.bots[1];
        assert_eq!(
            (beta.prs_reviewed, beta.prs_declined, beta.prs_absent),
            (1, 1, 1)
        );
        assert_eq!(beta.overlap_with("alpha"), Some(1.0));
        let gamma = &card.bots[2];
        assert_eq!((gamma.prs_absent, gamma.seen()), (3, false));
        assert_eq!(gamma.precision_estimate, None, "nothing to estimate from");
        assert_eq!(card.seen_bots().count(), 2);
    }

    #[test]
    fn precision_leaves_out_uncounted_findings_whatever_became_of_them() {
        let records = [pr(
            1,
            vec![bot(
                "alpha",
                Coverage::Reviewed,
                vec![
                    finding(Addressed, true, &[]),
                    finding(Open, true, &[]),
                    finding(Open, true, &[]),
                    finding(Open, true, &[]),
                    // Style nits and info notes left open do not drag precision down...
                    finding(Open, false, &[]),
                    finding(Open, false, &[]),
                    // ...and addressed ones do not lift it.
                    finding(Addressed, false, &[]),
                ],
            )],
        )];
        let card = score(&window(), &records, &names(&["alpha"]), &[]);
        let alpha = &card.bots[0];
        assert_eq!(alpha.findings_raised, 7);
        assert_eq!(
            alpha.precision_basis,
            PrecisionBasis {
                addressed: 1,
                counted: 4
            }
        );
        assert_eq!(alpha.precision_estimate, Some(0.25));
    }

    #[test]
    fn bots_only_in_records_follow_the_configured_ones() {
        let records = [pr(1, vec![bot("zeta", Coverage::Reviewed, vec![])])];
        let card = score(&window(), &records, &names(&["alpha"]), &[]);
        let order: Vec<&str> = card.bots.iter().map(|b| b.bot.as_str()).collect();
        assert_eq!(order, ["alpha", "zeta"]);
    }

    #[test]
    fn the_json_has_the_contract_fields() {
        let records = [pr(
            1,
            vec![bot(
                "alpha",
                Coverage::Reviewed,
                vec![finding(Open, true, &[])],
            )],
        )];
        let card = score(&window(), &records, &names(&["alpha"]), &[]);
        let json = serde_json::to_value(&card).unwrap();
        for key in ["version", "repository", "since_days", "merged_prs", "bots"] {
            assert!(json.get(key).is_some(), "{key}");
        }
        let bot = &json["bots"][0];
        for key in [
            "bot",
            "prs_reviewed",
            "prs_declined",
            "prs_absent",
            "findings_raised",
            "findings_addressed",
            "findings_open_at_merge",
            "findings_disputed",
            "findings_agreed",
            "precision_estimate",
            "agreed_with",
        ] {
            assert!(bot.get(key).is_some(), "{key}");
        }
        assert_eq!(bot["precision_estimate"], 0.0);
    }
}
