//! `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY` and the JSON report file.

use std::io;
use std::path::Path;

/// Append `name=value` pairs to the `GITHUB_OUTPUT` file (heredoc with a random delimiter
/// for multi-line values).
pub fn write_outputs(path: &Path, outputs: &[(&str, String)]) -> io::Result<()> {
    let _ = (path, outputs);
    todo!("edge-config")
}

/// Append markdown to the job summary.
pub fn append_step_summary(path: &Path, markdown: &str) -> io::Result<()> {
    let _ = (path, markdown);
    todo!("edge-config")
}

/// Write the JSON report, creating parent folders.
pub fn write_report(path: &Path, report: &serde_json::Value) -> io::Result<()> {
    let _ = (path, report);
    todo!("edge-config")
}
