//! The JSON report (CONTRACT section 7), version 1: typed views of the `Outcome` that serde
//! writes straight to the file, so a report of 100,000 findings is never held in memory
//! (neither as text nor as a `serde_json::Value` tree).

use serde::Serialize;

use crate::identity::{Correction, Lapsed, Refusal, Tracked};
use crate::model::{
    ConsensusLevel, FailOn, Outcome, Severity, SourceStatus, SynthesizedFinding, UnreadBot,
};

pub const REPORT_VERSION: u32 = 1;

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Every finding (surfaced first, in rank order, then the suppressed, then the pre-existing)
/// with its consensus fields, its synthesis fields, its members (each with its `finding_id`)
/// and its identity (`fingerprint`, `state`, `new`, `first_seen`, `acknowledged`); then what
/// changed since the last run, the commands that were not followed, and the corrections of
/// merges in force.
/// Borrows the outcome: serialise it with `serde_json::to_writer` (`publish::outputs::write_report`).
#[derive(Debug, Serialize)]
pub struct Report<'a> {
    version: u32,
    repository: &'a str,
    pull_request: Option<u64>,
    head_sha: Option<&'a str>,
    bots_ran: usize,
    sources: &'a [SourceStatus],
    /// Bot accounts with review comments no source read: `login`, `comments`, `hint` (the
    /// `bots` entry that reads it).
    unread_bots: &'a [UnreadBot],
    counts: Counts,
    findings: &'a [SynthesizedFinding],
    fail_on: FailOn,
    fail_on_severity: Option<Severity>,
    required_bots: &'a [String],
    not_reviewed: &'a [String],
    gate: &'static str,
    changes: Changes<'a>,
    acknowledgements: Acknowledgements<'a>,
    /// `/consensus split` and `same` commands in force: who, which comment, the findings
    /// they touched and whether they are applied.
    corrections: &'a [Correction],
    identity_notes: &'a [String],
    /// What the model judge did (omitted when it is off): the model, the uncertain pairs,
    /// how many were asked, answered, remembered, joined and kept apart, and a note when
    /// something went wrong.
    #[serde(skip_serializing_if = "Option::is_none")]
    judge: Option<&'a crate::judge::JudgeRun>,
}

#[derive(Debug, Serialize)]
struct Counts {
    confirmed: usize,
    #[serde(rename = "needs-verification")]
    needs_verification: usize,
    unverified: usize,
    /// Kept out for a synthesis reason (style, evidence); the pre-existing are counted apart.
    suppressed: usize,
    /// Findings the bots say the PR did not introduce: `suppressed: true` with the reason
    /// `pre-existing` in `findings`, never gating. Omitted when zero.
    #[serde(skip_serializing_if = "is_zero")]
    pre_existing: usize,
    total: usize,
    acknowledged: usize,
    new: usize,
}

#[derive(Debug, Serialize)]
struct Changes<'a> {
    first_run: bool,
    baseline: Option<&'a str>,
    resolved: &'a [Tracked],
    awaiting_review: &'a [Tracked],
}

#[derive(Debug, Serialize)]
struct Acknowledgements<'a> {
    refused: &'a [Refusal],
    lapsed: &'a [Lapsed],
}

pub fn render_report(outcome: &Outcome) -> Report<'_> {
    let identity = &outcome.identity;
    Report {
        version: REPORT_VERSION,
        repository: &outcome.repository,
        pull_request: outcome.pull_request,
        head_sha: outcome.head_sha.as_deref(),
        bots_ran: outcome.bots_ran,
        sources: &outcome.sources,
        unread_bots: &outcome.unread_bots,
        counts: Counts {
            confirmed: outcome.count_at(ConsensusLevel::Confirmed),
            needs_verification: outcome.count_at(ConsensusLevel::NeedsVerification),
            unverified: outcome.count_at(ConsensusLevel::Unverified),
            suppressed: outcome.suppressed().count(),
            pre_existing: outcome.pre_existing().count(),
            total: outcome.findings.len(),
            acknowledged: outcome.acknowledged().count(),
            new: outcome.new_findings().count(),
        },
        findings: &outcome.findings,
        fail_on: outcome.fail_on,
        fail_on_severity: outcome.fail_on_severity,
        required_bots: &outcome.required_bots,
        not_reviewed: &outcome.not_reviewed,
        gate: outcome.gate.as_str(),
        changes: Changes {
            first_run: identity.first_run,
            baseline: identity.baseline.as_deref(),
            resolved: &identity.resolved,
            awaiting_review: &identity.awaiting,
        },
        acknowledgements: Acknowledgements {
            refused: &identity.refused,
            lapsed: &identity.lapsed,
        },
        corrections: &identity.corrections,
        identity_notes: &identity.notes,
        judge: outcome.judge.as_ref(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consensus::{compute_consensus, ConsensusOptions};
    use crate::gate;
    use crate::model::{
        Coverage, FailOn, NormalizedFinding, Severity, SourceState, SourceStatus,
        SynthesizedFinding,
    };
    use crate::synthesis::{synthesize, SynthesisOptions};

    fn outcome() -> Outcome {
        let findings = vec![
            NormalizedFinding::new(
                "coderabbit",
                "cr-1",
                Severity::Critical,
                "security",
                "SQL injection",
            )
            .at("app/db/queries.py", Some(39)),
            NormalizedFinding::new(
                "sourcery",
                "s-1",
                Severity::High,
                "security",
                "Injectable lookup",
            )
            .at("app/db/queries.py", Some(41)),
            NormalizedFinding::new("sourcery", "s-6", Severity::Low, "style", "Typo")
                .at("app/api/refunds.py", Some(25)),
        ];
        let options = ConsensusOptions {
            bots_ran: Some(3),
            ..ConsensusOptions::default()
        };
        let findings = synthesize(
            compute_consensus(&findings, &options),
            &SynthesisOptions::default(),
        );
        let status = |bot: &str, status, coverage| SourceStatus {
            bot: bot.into(),
            status,
            coverage,
            coverage_signal: String::new(),
            findings: 1,
            skipped: 0,
            notes: Vec::new(),
        };
        Outcome {
            repository: "acme/payments-api".into(),
            pull_request: Some(101),
            head_sha: Some("8c1f0d3".into()),
            bots_ran: 3,
            sources: vec![
                status("coderabbit", SourceState::Ok, Coverage::Reviewed),
                status("sourcery", SourceState::Ok, Coverage::Reviewed),
                status("gemini", SourceState::Missing, Coverage::Absent),
            ],
            gate: gate::decide(&findings, FailOn::Confirmed),
            findings,
            fail_on: FailOn::Confirmed,
            fail_on_severity: None,
            required_bots: Vec::new(),
            not_reviewed: Vec::new(),
            unread_bots: Vec::new(),
            identity: Default::default(),
            judge: None,
        }
    }

    #[test]
    fn report_round_trips_with_contract_fields() {
        let outcome = outcome();
        let text = serde_json::to_string_pretty(&render_report(&outcome)).expect("serialise");
        let report: serde_json::Value = serde_json::from_str(&text).expect("parse back");
        assert_eq!(report["version"], 1);
        assert_eq!(report["repository"], "acme/payments-api");
        assert_eq!(report["pull_request"], 101);
        assert_eq!(report["head_sha"], "8c1f0d3");
        assert_eq!(report["bots_ran"], 3);
        assert_eq!(report["gate"], "fail");
        assert_eq!(report["fail_on"], "confirmed");
        assert_eq!(report["sources"][2]["bot"], "gemini");
        assert_eq!(report["sources"][2]["status"], "missing");
        assert_eq!(report["sources"][0]["findings"], 1);
        assert_eq!(report["counts"]["confirmed"], 1);
        assert_eq!(report["counts"]["suppressed"], 1);
        assert_eq!(report["counts"]["total"], 2);
        assert_eq!(report["unread_bots"], serde_json::json!([]));
        let mut with_unread = outcome.clone();
        with_unread.unread_bots = vec![UnreadBot {
            login: "codacy-production[bot]".into(),
            comments: 2,
            hint: "generic=codacy-production[bot]".into(),
        }];
        let report = serde_json::to_value(render_report(&with_unread)).expect("serialise");
        assert_eq!(
            report["unread_bots"],
            serde_json::json!([{"login": "codacy-production[bot]", "comments": 2,
                "hint": "generic=codacy-production[bot]"}])
        );
        let report: serde_json::Value = serde_json::from_str(&text).expect("parse back");

        let first = &report["findings"][0];
        assert_eq!(
            first["detected_by"],
            serde_json::json!(["coderabbit", "sourcery"])
        );
        assert_eq!(first["level"], "confirmed");
        assert_eq!(first["line"], 39);
        assert!((first["agreement_ratio"].as_f64().expect("ratio") - 2.0 / 3.0).abs() < 1e-12);
        assert!(first["consensus_score"].is_f64());
        assert_eq!(first["members"][0]["finding_id"], "cr-1");
        assert_eq!(first["members"][1]["finding_id"], "s-1");
        assert_eq!(
            first["corroborated_by"],
            serde_json::json!(["coderabbit", "sourcery"])
        );
        assert_eq!(first["contested_by"], serde_json::json!([]));
        assert_eq!(first["merged_confidence"], "high");
        assert_eq!(first["rank_score"], 18);
        assert_eq!(first["suppressed"], false);
        assert!(first["suppression_reason"].is_null());
        let last = &report["findings"][1];
        assert_eq!(last["suppressed"], true);
        assert_eq!(last["suppression_reason"], "style-covered-by-linters");

        // The findings deserialise back into the model unchanged.
        let findings: Vec<SynthesizedFinding> =
            serde_json::from_value(report["findings"].clone()).expect("findings");
        assert_eq!(findings, outcome.findings);
        assert!(
            report["counts"].get("pre_existing").is_none(),
            "no key when there are none"
        );
    }

    /// Pre-existing findings are listed with their reason and counted apart from the
    /// suppressed; their members say which bot marked them.
    #[test]
    fn pre_existing_findings_are_counted_apart() {
        let mut outcome = outcome();
        let mut old = NormalizedFinding::new(
            "claude-code-review",
            "3900000103",
            Severity::Medium,
            "bug",
            "fetch_order swallows database errors",
        )
        .at("app/db/queries.py", Some(88));
        old.pre_existing = true;
        let options = ConsensusOptions {
            bots_ran: Some(3),
            ..ConsensusOptions::default()
        };
        outcome.findings.extend(crate::synthesis::set_apart(
            compute_consensus(&[old], &options),
            &SynthesisOptions::default(),
        ));
        let report = serde_json::to_value(render_report(&outcome)).expect("serialise");
        assert_eq!(report["counts"]["suppressed"], 1);
        assert_eq!(report["counts"]["pre_existing"], 1);
        assert_eq!(report["counts"]["total"], 3);
        let last = &report["findings"][2];
        assert_eq!(last["suppressed"], true);
        assert_eq!(last["suppression_reason"], "pre-existing");
        assert_eq!(last["members"][0]["pre_existing"], true);
        assert!(
            report["findings"][0]["members"][0]
                .get("pre_existing")
                .is_none(),
            "the flag is written only when set"
        );
    }
}
