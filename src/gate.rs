//! The gate: does any surfaced finding reach the `fail-on` level, does one reach the
//! `fail-on-severity` floor, and did every `required-bots` group review the head? Pure.
//!
//! Surfaced means neither suppressed nor acknowledged (CONTRACT section 6): a finding a
//! person acknowledged with a reason (section 8) fails neither the level rule nor the
//! severity floor until its acknowledgement is taken back or lapses.

use serde::{Deserialize, Serialize};

use crate::model::{Coverage, FailOn, Gate, Severity, SourceStatus, SynthesizedFinding};

/// Fail when at least one surfaced (not suppressed, not acknowledged) finding's level is at
/// or above the `fail_on` threshold; `never` always passes.
pub fn decide(findings: &[SynthesizedFinding], fail_on: FailOn) -> Gate {
    let Some(threshold) = fail_on.threshold() else {
        return Gate::Pass;
    };
    let blocking = findings
        .iter()
        .any(|f| !f.suppressed && !f.is_acknowledged() && f.consensus.level >= threshold);
    if blocking {
        Gate::Fail
    } else {
        Gate::Pass
    }
}

/// One `required-bots` item: sources of which one reviewing the head commit suffices
/// (`coderabbit|sourcery`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequiredGroup(pub Vec<String>);

impl RequiredGroup {
    /// As written in the input: `coderabbit|sourcery`.
    pub fn label(&self) -> String {
        self.0.join("|")
    }
}

/// Whether a finding counts for the severity rule: surfaced (not suppressed, not
/// acknowledged).
fn counts(finding: &SynthesizedFinding) -> bool {
    !finding.suppressed && !finding.is_acknowledged()
}

/// The surfaced findings at or above `floor`, counted per severity, highest first (empty
/// when the rule is off). Agreement plays no part: a lone critical finding counts.
pub fn severity_blocking(
    findings: &[SynthesizedFinding],
    floor: Option<Severity>,
) -> Vec<(Severity, usize)> {
    let Some(floor) = floor else {
        return Vec::new();
    };
    Severity::ALL
        .iter()
        .rev()
        .filter(|s| **s >= floor)
        .map(|s| {
            let n = findings
                .iter()
                .filter(|f| counts(f) && f.consensus.severity == *s)
                .count();
            (*s, n)
        })
        .filter(|(_, n)| *n > 0)
        .collect()
}

/// The required groups none of whose members reviewed the head commit (a stale, declined,
/// absent or unconfigured member does not count: a reviewer that did not run is not a clean
/// result), as their labels.
pub fn not_reviewed(sources: &[SourceStatus], required: &[RequiredGroup]) -> Vec<String> {
    required
        .iter()
        .filter(|group| {
            !group.0.iter().any(|member| {
                sources
                    .iter()
                    .any(|s| s.bot == *member && s.coverage == Coverage::Reviewed)
            })
        })
        .map(RequiredGroup::label)
        .collect()
}

/// All three rules: the level rule (`decide`), the severity floor, the required bots.
pub fn decide_all(
    findings: &[SynthesizedFinding],
    fail_on: FailOn,
    fail_on_severity: Option<Severity>,
    not_reviewed: &[String],
) -> Gate {
    let by_severity = !severity_blocking(findings, fail_on_severity).is_empty();
    if decide(findings, fail_on) == Gate::Fail || by_severity || !not_reviewed.is_empty() {
        Gate::Fail
    } else {
        Gate::Pass
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consensus::{compute_consensus, ConsensusOptions};
    use crate::model::{ConsensusLevel, NormalizedFinding, Severity};
    use crate::synthesis::{synthesize, SynthesisOptions};

    fn one_at(level: ConsensusLevel, suppressed: bool) -> Vec<SynthesizedFinding> {
        let finding = NormalizedFinding::new("a", "1", Severity::High, "bug", "Null deref")
            .at("src/x.rs", Some(3));
        let options = ConsensusOptions {
            bots_ran: Some(1),
            ..ConsensusOptions::default()
        };
        let mut synthesized = synthesize(
            compute_consensus(&[finding], &options),
            &SynthesisOptions::default(),
        );
        synthesized[0].consensus.level = level;
        synthesized[0].suppressed = suppressed;
        synthesized
    }

    #[test]
    fn fails_at_or_above_the_threshold() {
        use ConsensusLevel::*;
        let cases = [
            (Confirmed, FailOn::Confirmed, Gate::Fail),
            (NeedsVerification, FailOn::Confirmed, Gate::Pass),
            (NeedsVerification, FailOn::NeedsVerification, Gate::Fail),
            (Confirmed, FailOn::NeedsVerification, Gate::Fail),
            (Unverified, FailOn::NeedsVerification, Gate::Pass),
            (Unverified, FailOn::Unverified, Gate::Fail),
            (Confirmed, FailOn::Never, Gate::Pass),
        ];
        for (level, fail_on, expected) in cases {
            assert_eq!(
                decide(&one_at(level, false), fail_on),
                expected,
                "{level:?} {fail_on:?}"
            );
        }
    }

    #[test]
    fn a_single_bot_finding_at_the_severity_floor_fails() {
        let lone = one_at(ConsensusLevel::Unverified, false);
        assert_eq!(lone[0].consensus.severity, Severity::High);
        let gate = |floor| decide_all(&lone, FailOn::Confirmed, floor, &[]);
        assert_eq!(gate(None), Gate::Pass, "the level rule alone passes it");
        assert_eq!(gate(Some(Severity::High)), Gate::Fail);
        assert_eq!(gate(Some(Severity::Medium)), Gate::Fail);
        assert_eq!(gate(Some(Severity::Critical)), Gate::Pass);
        assert_eq!(
            severity_blocking(&lone, Some(Severity::Low)),
            [(Severity::High, 1)]
        );
        let suppressed = one_at(ConsensusLevel::Unverified, true);
        assert!(severity_blocking(&suppressed, Some(Severity::Low)).is_empty());
    }

    #[test]
    fn required_groups_need_one_member_on_the_head() {
        let status = |bot: &str, coverage| SourceStatus {
            bot: bot.to_owned(),
            status: crate::model::SourceState::Ok,
            coverage,
            coverage_signal: String::new(),
            findings: 0,
            skipped: 0,
            notes: Vec::new(),
        };
        let sources = [
            status("coderabbit", Coverage::Declined),
            status("sourcery", Coverage::Reviewed),
            status("codex", Coverage::Stale),
        ];
        let group =
            |members: &[&str]| RequiredGroup(members.iter().map(|m| m.to_string()).collect());
        let required = [
            group(&["coderabbit", "sourcery"]),
            group(&["codex"]),
            group(&["coderabbit"]),
            group(&["gemini"]),
        ];
        assert_eq!(
            not_reviewed(&sources, &required),
            ["codex", "coderabbit", "gemini"],
            "satisfied by its second member; stale, declined and unconfigured do not count"
        );
        let missing = not_reviewed(&sources, &required[2..3]);
        assert_eq!(decide_all(&[], FailOn::Never, None, &missing), Gate::Fail);
        assert_eq!(decide_all(&[], FailOn::Never, None, &[]), Gate::Pass);
    }

    #[test]
    fn suppressed_findings_never_fail() {
        assert_eq!(
            decide(&one_at(ConsensusLevel::Confirmed, true), FailOn::Unverified),
            Gate::Pass
        );
        assert_eq!(decide(&[], FailOn::Unverified), Gate::Pass);
    }
}
