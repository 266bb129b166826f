//! The gate: does any surfaced finding reach the `fail-on` level? Pure.

use crate::model::{FailOn, Gate, SynthesizedFinding};

pub fn decide(findings: &[SynthesizedFinding], fail_on: FailOn) -> Gate {
    let _ = (findings, fail_on);
    todo!("engine")
}
