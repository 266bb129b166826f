//! One merged PR, measured: per bot, whether it reviewed, and what became of each finding
//! it raised. Pure. This compact record is what the cache keeps, so a later run can score
//! the PR again without reading it from GitHub.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::adapters::{self, BotSelection, ExtractOptions, SourceConfig};
use crate::api::PrSnapshot;
use crate::model::{Coverage, NormalizedFinding, Severity};
use crate::pipeline::{self, AnalysisOptions};

/// What became of a finding by the time its PR was merged. Exactly one applies, in this
/// order: a person disputed it; else it was addressed; else it was still open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingOutcome {
    /// A person replied in its thread that it is wrong ("false positive", "by design"...).
    /// Before `Addressed`: a thread resolved after such a reply was dismissed, not fixed.
    Disputed,
    /// Its review thread was resolved, the bot marked it addressed, or the code at its
    /// lines changed in a later commit (GitHub shows the comment as outdated).
    Addressed,
    /// None of that: still open when the PR was merged.
    Open,
}

/// One finding of one bot on one PR.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FindingRecord {
    pub outcome: FindingOutcome,
    /// In the precision estimate's denominator: neither style-only nor informational.
    pub counted: bool,
    /// The other bots whose findings were judged the same issue.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also_raised_by: Vec<String>,
}

/// One configured bot on one PR.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotRecord {
    pub bot: String,
    /// Reviewed (or stale), declined (only a quota or skip notice) or absent.
    pub coverage: Coverage,
    /// Its comments that could not be read and were skipped.
    #[serde(default)]
    pub skipped: usize,
    #[serde(default)]
    pub findings: Vec<FindingRecord>,
}

/// One merged PR.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrRecord {
    pub number: u64,
    /// RFC 3339.
    pub merged_at: String,
    /// Whether review-thread state (resolved / outdated) could be read; without it fewer
    /// findings show as addressed.
    pub threads_known: bool,
    pub bots: Vec<BotRecord>,
}

/// The default analysis, except that resolved and outdated findings are kept: the
/// scorecard must see them to count them as addressed.
pub fn analysis_options() -> AnalysisOptions {
    AnalysisOptions {
        extract: ExtractOptions {
            include_outdated: true,
            include_resolved: true,
        },
        ..AnalysisOptions::default()
    }
}

/// Measure one merged PR: the whole pipeline over every finding (resolved and outdated
/// ones included), and the default extraction to tell which findings were still open.
pub fn record_pr(snapshot: &PrSnapshot, sources: &[SourceConfig], merged_at: &str) -> PrRecord {
    // A fixed list of bots for every PR, so that absent means absent across the window.
    let listed = BotSelection::Listed(sources.to_vec());
    let all = pipeline::analyze(Some(snapshot), &listed, Vec::new(), &analysis_options());
    // What the action would still show: every other finding was resolved, withdrawn by
    // its bot or outdated.
    let mut still_open: HashMap<FindingKey, usize> = HashMap::new();
    for finding in adapters::extract(snapshot, sources, &ExtractOptions::default()).findings {
        *still_open.entry(FindingKey::of(&finding)).or_default() += 1;
    }
    let mut bots: Vec<BotRecord> = all
        .sources
        .iter()
        .map(|source| BotRecord {
            bot: source.bot.clone(),
            coverage: source.coverage,
            skipped: source.skipped,
            findings: Vec::new(),
        })
        .collect();
    for cluster in &all.findings {
        for member in &cluster.consensus.members {
            let open = match still_open.get_mut(&FindingKey::of(member)) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    true
                }
                _ => false,
            };
            let outcome = if disputed_by_a_person(member) {
                FindingOutcome::Disputed
            } else if open {
                FindingOutcome::Open
            } else {
                FindingOutcome::Addressed
            };
            let mut also_raised_by: Vec<String> = cluster
                .consensus
                .detected_by
                .iter()
                .filter(|bot| **bot != member.bot)
                .cloned()
                .collect();
            also_raised_by.sort();
            also_raised_by.dedup();
            let record = FindingRecord {
                outcome,
                counted: counts_for_precision(member),
                also_raised_by,
            };
            match bots.iter_mut().find(|b| b.bot == member.bot) {
                Some(bot) => bot.findings.push(record),
                None => bots.push(BotRecord {
                    bot: member.bot.clone(),
                    coverage: Coverage::Reviewed,
                    skipped: 0,
                    findings: vec![record],
                }),
            }
        }
    }
    PrRecord {
        number: snapshot.pull.number,
        merged_at: merged_at.to_owned(),
        threads_known: snapshot.review_threads.is_some(),
        bots,
    }
}

/// The names the configured sources report under (a `generic` source is one per login), in
/// configuration order: read off an extraction of an empty PR, so they are the adapters' own.
pub fn source_names(sources: &[SourceConfig]) -> Vec<String> {
    adapters::extract(&PrSnapshot::default(), sources, &ExtractOptions::default())
        .sources
        .into_iter()
        .map(|s| s.bot)
        .collect()
}

/// The precision rule: style-only findings (category `style`), informational ones (severity
/// `info`) and pre-existing ones (not the PR's) are left out, since nobody is expected to act
/// on them in the PR.
pub fn counts_for_precision(finding: &NormalizedFinding) -> bool {
    finding.severity != Severity::Info
        && !finding.category.eq_ignore_ascii_case("style")
        && !finding.pre_existing
}

/// A dispute by a person: an app's login ends in `[bot]`.
fn disputed_by_a_person(finding: &NormalizedFinding) -> bool {
    finding
        .disputes
        .iter()
        .any(|d| !d.by.to_ascii_lowercase().ends_with("[bot]"))
}

/// What identifies a finding between two extractions of the same snapshot.
#[derive(Debug, PartialEq, Eq, Hash)]
struct FindingKey {
    bot: String,
    finding_id: String,
    comment_id: Option<u64>,
    file: String,
    line: Option<u32>,
    title: String,
}

impl FindingKey {
    fn of(finding: &NormalizedFinding) -> FindingKey {
        FindingKey {
            bot: finding.bot.clone(),
            finding_id: finding.finding_id.clone(),
            comment_id: finding.provenance.comment_id,
            file: finding.evidence.file.clone(),
            line: finding.evidence.line,
            title: finding.title.clone(),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::api::{
        Branch, PullRequest, Review, ReviewComment, ReviewThread, ThreadComment, ThreadComments,
        User,
    };

    pub(crate) const HEAD: &str = "1111111111111111111111111111111111111111";
    const OLD: &str = "0000000000000000000000000000000000000000";

    pub(crate) fn user(login: &str, kind: &str) -> Option<User> {
        Some(User {
            login: login.to_owned(),
            id: 7,
            kind: kind.to_owned(),
        })
    }

    pub(crate) fn generic(logins: &[&str]) -> Vec<SourceConfig> {
        vec![SourceConfig {
            adapter: "generic".to_owned(),
            logins: logins.iter().map(|l| (*l).to_owned()).collect(),
        }]
    }

    pub(crate) fn comment(
        id: u64,
        login: &str,
        body: &str,
        file: &str,
        line: u32,
    ) -> ReviewComment {
        ReviewComment {
            id,
            user: user(login, "Bot"),
            body: body.to_owned(),
            path: Some(file.to_owned()),
            line: Some(line),
            original_line: Some(line),
            commit_id: Some(HEAD.to_owned()),
            original_commit_id: Some(HEAD.to_owned()),
            ..ReviewComment::default()
        }
    }

    fn reply(id: u64, to: u64, login: &str, kind: &str, body: &str) -> ReviewComment {
        ReviewComment {
            in_reply_to_id: Some(to),
            user: user(login, kind),
            ..comment(id, login, body, "src/db.rs", 10)
        }
    }

    fn thread(ids: &[u64], resolved: bool) -> ReviewThread {
        ReviewThread {
            id: format!("T{}", ids[0]),
            is_resolved: resolved,
            is_outdated: false,
            path: None,
            comments: ThreadComments {
                nodes: ids
                    .iter()
                    .map(|id| ThreadComment {
                        database_id: Some(*id),
                    })
                    .collect(),
            },
        }
    }

    pub(crate) fn snapshot(number: u64, comments: Vec<ReviewComment>) -> PrSnapshot {
        PrSnapshot {
            repository: "acme/shop".to_owned(),
            pull: PullRequest {
                number,
                head: Branch {
                    sha: HEAD.to_owned(),
                    ..Branch::default()
                },
                ..PullRequest::default()
            },
            review_comments: comments,
            review_threads: Some(Vec::new()),
            ..PrSnapshot::default()
        }
    }

    fn outcomes(record: &PrRecord, bot: &str) -> Vec<(FindingOutcome, bool, Vec<String>)> {
        let bot = record
            .bots
            .iter()
            .find(|b| b.bot == bot)
            .expect("bot listed");
        let mut out: Vec<_> = bot
            .findings
            .iter()
            .map(|f| (f.outcome, f.counted, f.also_raised_by.clone()))
            .collect();
        out.sort_by_key(|(o, c, a)| (format!("{o:?}"), *c, a.clone()));
        out
    }

    #[test]
    fn each_finding_gets_one_outcome() {
        let mut outdated = comment(
            3,
            "alpha[bot]",
            "**Off-by-one in the page loop**",
            "src/page.rs",
            40,
        );
        // GitHub's sign of an outdated inline comment: no current line, on an old commit.
        outdated.line = None;
        outdated.commit_id = Some(OLD.to_owned());
        let mut snap = snapshot(
            9,
            vec![
                comment(
                    1,
                    "alpha[bot]",
                    "**SQL injection in the query builder**",
                    "src/db.rs",
                    10,
                ),
                comment(2, "alpha[bot]", "**Unbounded retry loop**", "src/net.rs", 5),
                outdated,
                comment(
                    4,
                    "alpha[bot]",
                    "**Token logged in plain text**",
                    "src/log.rs",
                    7,
                ),
                comment(
                    5,
                    "alpha[bot]",
                    "**Missing null check on user**",
                    "src/user.rs",
                    3,
                ),
                reply(
                    6,
                    4,
                    "carol",
                    "User",
                    "False positive: this is a redacted copy.",
                ),
                // Another bot's disagreement is not a person's.
                reply(
                    7,
                    5,
                    "beta[bot]",
                    "Bot",
                    "False positive, the caller checks it.",
                ),
            ],
        );
        snap.review_threads = Some(vec![thread(&[2], true), thread(&[4, 6], true)]);
        let record = record_pr(&snap, &generic(&["alpha[bot]"]), "2026-03-01T10:00:00Z");
        assert_eq!(record.number, 9);
        assert!(record.threads_known);
        let alpha = &record.bots[0];
        assert_eq!(
            (alpha.bot.as_str(), alpha.coverage),
            ("alpha", Coverage::Reviewed)
        );
        let got: Vec<FindingOutcome> = outcomes(&record, "alpha").iter().map(|o| o.0).collect();
        use FindingOutcome::*;
        // resolved (2), outdated (3); disputed then resolved (4); open (1, 5).
        assert_eq!(got, [Addressed, Addressed, Disputed, Open, Open]);
    }

    #[test]
    fn agreement_names_the_other_bots_and_precision_leaves_out_style_and_info() {
        let snap = snapshot(
            10,
            vec![
                comment(
                    1,
                    "alpha[bot]",
                    "**SQL injection in the query builder**",
                    "src/db.rs",
                    10,
                ),
                comment(
                    2,
                    "beta[bot]",
                    "**SQL injection in the query builder**",
                    "src/db.rs",
                    11,
                ),
                comment(
                    3,
                    "alpha[bot]",
                    "Nit: **Rename the variable for style consistency**",
                    "src/db.rs",
                    80,
                ),
                comment(
                    4,
                    "beta[bot]",
                    "Severity: info\n\n**Consider caching the parsed config**",
                    "src/cfg.rs",
                    2,
                ),
            ],
        );
        let record = record_pr(
            &snap,
            &generic(&["alpha[bot]", "beta[bot]"]),
            "2026-03-01T10:00:00Z",
        );
        let alpha = outcomes(&record, "alpha");
        let beta = outcomes(&record, "beta");
        assert!(
            alpha.contains(&(FindingOutcome::Open, true, vec!["beta".to_owned()])),
            "{alpha:?}"
        );
        assert!(
            beta.contains(&(FindingOutcome::Open, true, vec!["alpha".to_owned()])),
            "{beta:?}"
        );
        assert!(
            alpha.contains(&(FindingOutcome::Open, false, vec![])),
            "style: {alpha:?}"
        );
        assert!(
            beta.contains(&(FindingOutcome::Open, false, vec![])),
            "info: {beta:?}"
        );
    }

    #[test]
    fn bots_that_did_not_review_are_listed_with_their_coverage() {
        let mut snap = snapshot(
            11,
            vec![comment(
                1,
                "alpha[bot]",
                "**Unbounded retry loop**",
                "src/net.rs",
                5,
            )],
        );
        snap.reviews.push(Review {
            id: 50,
            user: user("alpha[bot]", "Bot"),
            body: Some(String::new()),
            state: Some("COMMENTED".to_owned()),
            commit_id: Some(HEAD.to_owned()),
            ..Review::default()
        });
        let record = record_pr(
            &snap,
            &generic(&["alpha[bot]", "gamma[bot]"]),
            "2026-03-01T10:00:00Z",
        );
        let coverage: Vec<(&str, Coverage, usize)> = record
            .bots
            .iter()
            .map(|b| (b.bot.as_str(), b.coverage, b.findings.len()))
            .collect();
        assert_eq!(
            coverage,
            [
                ("alpha", Coverage::Reviewed, 1),
                ("gamma", Coverage::Absent, 0)
            ]
        );
    }

    #[test]
    fn the_record_round_trips_through_json() {
        let snap = snapshot(
            12,
            vec![comment(
                1,
                "alpha[bot]",
                "**Unbounded retry loop**",
                "src/net.rs",
                5,
            )],
        );
        let record = record_pr(&snap, &generic(&["alpha[bot]"]), "2026-03-01T10:00:00Z");
        let text = serde_json::to_string(&record).unwrap();
        assert!(text.contains(r#""outcome":"open""#), "{text}");
        assert_eq!(serde_json::from_str::<PrRecord>(&text).unwrap(), record);
    }
}
