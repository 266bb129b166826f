//! The JSON report (CONTRACT section 7).

use crate::model::Outcome;

pub fn render_report(outcome: &Outcome) -> serde_json::Value {
    let _ = outcome;
    todo!("engine")
}
