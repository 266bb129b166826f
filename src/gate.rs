//! The gate: does any surfaced finding reach the `fail-on` level? Pure.
//!
//! Surfaced means neither suppressed nor acknowledged (CONTRACT section 6): a finding a
//! person acknowledged with a reason (section 8) does not fail the gate until its
//! acknowledgement is taken back or lapses.

use crate::model::{FailOn, Gate, SynthesizedFinding};

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
    fn suppressed_findings_never_fail() {
        assert_eq!(
            decide(&one_at(ConsensusLevel::Confirmed, true), FailOn::Unverified),
            Gate::Pass
        );
        assert_eq!(decide(&[], FailOn::Unverified), Gate::Pass);
    }
}
