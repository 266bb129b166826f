//! Prints what `render` costs at scale: wall time and peak RSS of the release binary on
//! 100,000 normalised findings (without a report, with `--report`, with `--sarif-output`
//! too) and on a SARIF input of about 200 MB.
//!
//! ```text
//! cargo build --release && cargo run --release --example report_figures
//! ```
//!
//! Flags: `--bin PATH` (default `target/release/review-consensus`), `--runs N` (default 3:
//! the best wall time and the highest peak of N runs), `--findings N` (default 100,000),
//! `--sarif-mb N` (default 200), `--keep DIR` (leave the inputs and outputs there). Peak RSS
//! is measured as the other example benches do (`benches/support/measure.rs`). The inputs
//! are generated deterministically (the SARIF one result at a time, never held in memory). Targets (issue 14): `render --report` on 100,000 findings under 1 s and 300 MB;
//! the 200 MB SARIF input under 1 GB.
// An edge module: the environment, files and the clock are its job.
#![allow(clippy::disallowed_methods)]

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use clap::Parser;

#[allow(dead_code)]
#[path = "../benches/support/measure.rs"]
mod measure;
#[path = "../benches/support/synthetic.rs"]
mod synthetic;

#[derive(Parser)]
struct Args {
    #[arg(long, default_value = "target/release/review-consensus")]
    bin: PathBuf,
    #[arg(long, default_value_t = 3)]
    runs: usize,
    #[arg(long, default_value_t = 100_000)]
    findings: usize,
    #[arg(long, default_value_t = 200)]
    sarif_mb: u64,
    /// Keep the generated inputs and outputs in this folder (default: a temporary one).
    #[arg(long)]
    keep: Option<PathBuf>,
}

/// One measured case: a label and the `render` arguments.
struct Case {
    label: String,
    args: Vec<String>,
}

fn main() -> Result<(), String> {
    let args = Args::parse();
    measure::check_built(&args.bin)?;
    let work = args.keep.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("report-figures-{}", std::process::id()))
    });
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    let result = run(&args, &work);
    if args.keep.is_none() {
        let _ = std::fs::remove_dir_all(&work);
    }
    result
}

fn run(args: &Args, work: &Path) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    let findings = work.join("findings.json");
    write_findings(&findings, args.findings)?;
    let sarif = work.join("big.sarif");
    let results = write_sarif(&sarif, args.sarif_mb * 1_000_000)?;
    let size_mb = |path: &Path| std::fs::metadata(path).map_or(0.0, |m| m.len() as f64 / 1e6);
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let _ = writeln!(
        out,
        "{}: best wall of {} runs, highest peak RSS; load average {}",
        args.bin.display(),
        args.runs,
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    let _ = writeln!(
        out,
        "inputs: {} normalised findings ({:.1} MB), SARIF with {results} results ({:.1} MB)",
        args.findings,
        size_mb(&findings),
        size_mb(&sarif)
    );

    let path = |p: &Path| p.display().to_string();
    let report = work.join("report.json");
    let sarif_out = work.join("out.sarif");
    let mut cases = vec![
        Case {
            label: format!("render, {} findings", args.findings),
            args: vec![path(&findings)],
        },
        Case {
            label: format!("render --report, {} findings", args.findings),
            args: vec!["--report".into(), path(&report), path(&findings)],
        },
    ];
    if supports(&args.bin, "--sarif-output") {
        cases.push(Case {
            label: format!("render --report --sarif-output, {}", args.findings),
            args: vec![
                "--report".into(),
                path(&report),
                "--sarif-output".into(),
                path(&sarif_out),
                path(&findings),
            ],
        });
    }
    cases.push(Case {
        label: format!("render, SARIF input {:.0} MB", size_mb(&sarif)),
        args: vec![path(&sarif)],
    });

    let _ = writeln!(
        out,
        "{:<44} {:>9} {:>12} {:>12}",
        "case", "wall", "peak RSS", "output"
    );
    for case in &cases {
        let mut best = Duration::MAX;
        let mut peak = 0;
        for _ in 0..args.runs {
            let _ = std::fs::remove_file(&report);
            let _ = std::fs::remove_file(&sarif_out);
            let (wall, kb) = run_once(&args.bin, &case.args, work)?;
            best = best.min(wall);
            peak = peak.max(kb.unwrap_or(0));
        }
        let written: Vec<String> = [&report, &sarif_out]
            .into_iter()
            .filter(|p| p.exists())
            .map(|p| format!("{:.1} MB", size_mb(p)))
            .collect();
        let _ = writeln!(
            out,
            "{:<44} {:>7.2} s {:>9.0} MB {:>12}",
            case.label,
            best.as_secs_f64(),
            peak as f64 / 1024.0,
            if written.is_empty() {
                "-".to_owned()
            } else {
                written.join(" + ")
            }
        );
    }
    Ok(())
}

/// Whether `render --help` lists the flag (an older binary measured for "before").
fn supports(bin: &Path, flag: &str) -> bool {
    Command::new(bin)
        .args(["render", "--help"])
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains(flag))
}

fn write_findings(path: &Path, n: usize) -> Result<(), String> {
    let file = File::create(path).map_err(|e| e.to_string())?;
    let mut writer = BufWriter::new(file);
    serde_json::to_writer(&mut writer, &synthetic::findings(n)).map_err(|e| e.to_string())?;
    writer.flush().map_err(|e| e.to_string())
}

/// A CodeQL-like SARIF log of at least `bytes` bytes: 200 rules over 2,000 files, each
/// result about 1.3 KB with a code flow of three steps, written one result at a time.
/// Returns the number of results.
fn write_sarif(path: &Path, bytes: u64) -> Result<usize, String> {
    let file = File::create(path).map_err(|e| e.to_string())?;
    let mut w = BufWriter::new(file);
    let io = |e: std::io::Error| e.to_string();
    const RULES: usize = 200;
    let rules: Vec<String> = (0..RULES)
        .map(|r| {
            let (tag, score) = match r % 4 {
                0 => ("security", r#","security-severity":"7.5""#),
                1 => ("correctness", ""),
                2 => ("maintainability", ""),
                _ => ("reliability", ""),
            };
            format!(
                r#"{{"id":"js/rule-{r}","name":"js/rule-{r}","shortDescription":{{"text":"Rule {r}"}},"defaultConfiguration":{{"level":"warning"}},"properties":{{"tags":["{tag}","external/cwe/cwe-{r:03}"],"precision":"high"{score}}}}}"#
            )
        })
        .collect();
    write!(
        w,
        r#"{{"$schema":"https://json.schemastore.org/sarif-2.1.0.json","version":"2.1.0","runs":[{{"tool":{{"driver":{{"name":"CodeQL","semanticVersion":"2.19.3","rules":[{}]}}}},"results":["#,
        rules.join(",")
    )
    .map_err(io)?;
    let mut written = 0u64;
    let mut n = 0usize;
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    while written < bytes {
        let rule = (next() % RULES as u64) as usize;
        let file = next() % synthetic::FILES;
        let line = 1 + next() % 1_500;
        let uri = format!("src/module_{}/file_{file}.js", file % 40);
        let step = |k: u64, text: &str| {
            format!(
                r#"{{"location":{{"physicalLocation":{{"artifactLocation":{{"uri":"{uri}","uriBaseId":"%SRCROOT%"}},"region":{{"startLine":{},"startColumn":9,"endColumn":31}}}},"message":{{"text":"{text}"}}}}}}"#,
                line.saturating_sub(k).max(1)
            )
        };
        let result = format!(
            r#"{}{{"ruleId":"js/rule-{rule}","ruleIndex":{rule},"message":{{"text":"This value flows from a [user-provided value](1) to a sensitive sink in handler {}."}},"locations":[{{"physicalLocation":{{"artifactLocation":{{"uri":"{uri}","uriBaseId":"%SRCROOT%"}},"region":{{"startLine":{line},"startColumn":9,"endColumn":31}}}}}}],"partialFingerprints":{{"primaryLocationLineHash":"{:016x}:1","primaryLocationStartColumnFingerprint":"4"}},"codeFlows":[{{"threadFlows":[{{"locations":[{},{},{}]}}]}}],"relatedLocations":[{{"id":1,"physicalLocation":{{"artifactLocation":{{"uri":"{uri}","uriBaseId":"%SRCROOT%"}},"region":{{"startLine":{line},"startColumn":3,"endColumn":12}}}},"message":{{"text":"user-provided value"}}}}]}}"#,
            if n == 0 { "" } else { "," },
            n % 97,
            next(),
            step(6, "request.query"),
            step(3, "value"),
            step(0, "sink"),
        );
        w.write_all(result.as_bytes()).map_err(io)?;
        written += result.len() as u64;
        n += 1;
    }
    w.write_all(b"]}]}\n").map_err(io)?;
    w.flush().map_err(io)?;
    Ok(n)
}

fn run_once(bin: &Path, args: &[String], work: &Path) -> Result<(Duration, Option<u64>), String> {
    let time_out = work.join("time.txt");
    let mut cmd = measure::timed(bin, &time_out);
    cmd.arg("render")
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let run = measure::measure(cmd, &time_out)?;
    // 0 and 1 are the gate's verdicts; anything else is a failure of the run.
    if !matches!(run.code, 0 | 1) {
        return Err(format!("render {args:?} exited with {}", run.code));
    }
    Ok((run.wall, run.peak_kb))
}
