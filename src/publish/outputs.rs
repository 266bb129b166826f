//! `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`, the JSON report file and the SARIF file.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::Path;

use rand::Rng;
use serde::Serialize;

use crate::model::Outcome;
use crate::render::sarif::{render_sarif, SarifOptions, SarifSummary};

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

/// Write the JSON report (pretty-printed, newline-terminated), creating parent folders.
/// Serialised straight into a buffered file: the report is never held in memory.
pub fn write_report(path: &Path, report: &impl Serialize) -> io::Result<()> {
    write_with(path, |out| {
        serde_json::to_writer_pretty(&mut *out, report).map_err(io::Error::other)?;
        out.write_all(b"\n")
    })
}

/// Write bytes rendered elsewhere (the SARIF log), creating parent folders.
fn write_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_with(path, |out| out.write_all(bytes))
}

/// Render the consensus results as SARIF and write them to `path` (`sarif-output`); what
/// was left out or cut is in the returned summary, for the job log.
pub fn write_sarif(
    path: &Path,
    outcome: &Outcome,
    options: &SarifOptions,
) -> io::Result<SarifSummary> {
    let sarif = render_sarif(outcome, options);
    write_file(path, sarif.json.as_bytes())?;
    Ok(sarif.summary)
}

/// Create `path` (and its folders) and fill it through a buffer.
fn write_with(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent)?;
    }
    let mut out = BufWriter::with_capacity(1 << 16, File::create(path)?);
    fill(&mut out)?;
    out.flush()
}

/// One `write_all` per call, so our block is never interleaved with another writer's.
fn append(path: &Path, text: &str) -> io::Result<()> {
    let mut file = OpenOptions::new().create(true).append(true).open(path)?;
    file.write_all(text.as_bytes())
}
