//! Findings as annotations: workflow-command lines and check-run annotation objects.

use crate::model::Outcome;

/// `::error`/`::warning` lines for the job log: confirmed findings as errors, at most 10
/// errors and 10 warnings (what the runner shows), then a notice counting the rest.
pub fn workflow_annotations(outcome: &Outcome) -> Vec<String> {
    let _ = outcome;
    todo!("edge-config")
}

/// Check-run annotation objects (`path`, `start_line`, `end_line`, `annotation_level`,
/// `title`, `message`), one per surfaced finding with a file.
pub fn check_annotations(outcome: &Outcome) -> Vec<serde_json::Value> {
    let _ = outcome;
    todo!("edge-config")
}
