//! `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY` and the JSON report file.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

use rand::Rng;

use crate::model::{ConsensusLevel, Outcome};

/// The action's outputs (CONTRACT section 4), ready for `write_outputs`. `comment` is the
/// sticky comment's id and URL when one was written.
pub fn action_outputs(
    outcome: &Outcome,
    comment: Option<(u64, &str)>,
    report: &Path,
) -> Vec<(&'static str, String)> {
    let count = |level| outcome.count_at(level).to_string();
    vec![
        ("confirmed", count(ConsensusLevel::Confirmed)),
        (
            "needs-verification",
            count(ConsensusLevel::NeedsVerification),
        ),
        ("unverified", count(ConsensusLevel::Unverified)),
        ("suppressed", outcome.suppressed().count().to_string()),
        ("total", outcome.findings.len().to_string()),
        ("bots-ran", outcome.bots_ran.to_string()),
        ("gate", outcome.gate.as_str().to_owned()),
        (
            "comment-id",
            comment.map(|(id, _)| id.to_string()).unwrap_or_default(),
        ),
        (
            "comment-url",
            comment.map(|(_, url)| url.to_owned()).unwrap_or_default(),
        ),
        ("report", report.display().to_string()),
    ]
}

/// Append `name=value` pairs to the `GITHUB_OUTPUT` file (heredoc with a random delimiter
/// for multi-line values).
pub fn write_outputs(path: &Path, outputs: &[(&str, String)]) -> io::Result<()> {
    let mut text = String::new();
    for (name, value) in outputs {
        if name.is_empty() || name.contains(['=', '<', '\n', '\r']) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("invalid output name `{}`", name.escape_debug()),
            ));
        }
        if value.contains(['\n', '\r']) {
            let delimiter = delimiter_for(value);
            text.push_str(&format!("{name}<<{delimiter}\n{value}\n{delimiter}\n"));
        } else {
            text.push_str(&format!("{name}={value}\n"));
        }
    }
    append(path, &text)
}

/// A heredoc delimiter that does not occur anywhere in `value` (the runner ends the value
/// at the first line equal to it).
fn delimiter_for(value: &str) -> String {
    let mut rng = rand::rng();
    loop {
        let delimiter = format!("ghadelimiter_{:016x}", rng.random::<u64>());
        if !value.contains(&delimiter) {
            return delimiter;
        }
    }
}

/// Append markdown to the job summary.
pub fn append_step_summary(path: &Path, markdown: &str) -> io::Result<()> {
    let mut text = markdown.to_owned();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    append(path, &text)
}

/// Write the JSON report, creating parent folders.
pub fn write_report(path: &Path, report: &serde_json::Value) -> io::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent)?;
    }
    let mut text = serde_json::to_string_pretty(report).map_err(io::Error::other)?;
    text.push('\n');
    fs::write(path, text)
}

/// One `write_all` per call, so our block is never interleaved with another writer's.
fn append(path: &Path, text: &str) -> io::Result<()> {
    let mut file = OpenOptions::new().create(true).append(true).open(path)?;
    file.write_all(text.as_bytes())
}
