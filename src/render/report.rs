//! The JSON report (CONTRACT section 7), version 1.

use serde::Serialize;
use serde_json::{json, Value};

use crate::model::{ConsensusLevel, Outcome};

pub const REPORT_VERSION: u32 = 1;

fn to_json<T: Serialize>(value: &T) -> Value {
    // Our model types always serialise (string keys only); a failure would be a bug.
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Every finding (surfaced first, in rank order, then the suppressed) with its consensus
/// fields, its synthesis fields and its members (each with its `finding_id`).
pub fn render_report(outcome: &Outcome) -> Value {
    let suppressed = outcome.suppressed().count();
    json!({
        "version": REPORT_VERSION,
        "repository": outcome.repository,
        "pull_request": outcome.pull_request,
        "head_sha": outcome.head_sha,
        "bots_ran": outcome.bots_ran,
        "sources": to_json(&outcome.sources),
        "counts": {
            "confirmed": outcome.count_at(ConsensusLevel::Confirmed),
            "needs-verification": outcome.count_at(ConsensusLevel::NeedsVerification),
            "unverified": outcome.count_at(ConsensusLevel::Unverified),
            "suppressed": suppressed,
            "total": outcome.findings.len(),
        },
        "findings": to_json(&outcome.findings),
        "fail_on": to_json(&outcome.fail_on),
        "gate": outcome.gate.as_str(),
    })
}
