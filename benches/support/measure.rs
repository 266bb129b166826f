//! What the example benchmarks (`action_bench`, `stats_bench`) measure of one run of the
//! release binary: wall time, peak RSS and exit code, and its requests to the fake GitHub
//! folded into kinds. Peak RSS comes from `/usr/bin/time -v` when present, else from
//! polling `VmHWM` in `/proc/<pid>/status`.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const TIME: &str = "/usr/bin/time";

/// One finished run.
pub struct Measured {
    pub wall: Duration,
    pub peak_kb: Option<u64>,
    pub code: i32,
}

impl Measured {
    /// `12.3 MB`, or `unknown` when neither source told.
    pub fn peak(&self) -> String {
        self.peak_kb.map_or("unknown".to_owned(), |kb| {
            format!("{:.1} MB", kb as f64 / 1024.0)
        })
    }
}

/// The bench needs the release build: say so rather than time a missing file.
pub fn check_built(bin: &Path) -> Result<(), String> {
    if bin.exists() {
        Ok(())
    } else {
        Err(format!(
            "{} not found: run `cargo build --release` first",
            bin.display()
        ))
    }
}

/// A command running `bin`, under `/usr/bin/time -v` writing to `time_out` when present.
pub fn timed(bin: &Path, time_out: &Path) -> Command {
    if Path::new(TIME).exists() {
        let mut c = Command::new(TIME);
        c.arg("-v").arg("-o").arg(time_out).arg(bin);
        c
    } else {
        Command::new(bin)
    }
}

/// Run `cmd` (made by `timed` with the same `time_out`) to its end.
pub fn measure(mut cmd: Command, time_out: &Path) -> Result<Measured, String> {
    let use_time = Path::new(TIME).exists();
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("{}: {e}", cmd.get_program().to_string_lossy()))?;
    let mut polled = None;
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if !use_time {
            polled = vm_hwm(child.id()).or(polled);
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    let wall = started.elapsed();
    let peak_kb = if use_time {
        std::fs::read_to_string(time_out).ok().and_then(|t| {
            t.lines()
                .find_map(|l| {
                    l.trim()
                        .strip_prefix("Maximum resident set size (kbytes): ")
                })
                .and_then(|v| v.trim().parse().ok())
        })
    } else {
        polled
    };
    Ok(Measured {
        wall,
        peak_kb,
        code: status.code().unwrap_or(-1),
    })
}

fn vm_hwm(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// `GET pulls/{n}/comments`, `POST graphql`, ...: the method and the path after the
/// repository, ids folded, the query left out.
pub fn request_kind(request: &str) -> String {
    let (method, rest) = request.split_once(' ').unwrap_or(("?", request));
    let path = rest.split('?').next().unwrap_or(rest);
    if path.ends_with("graphql") {
        return format!("{method} graphql");
    }
    let tail: Vec<&str> = path
        .split('/')
        .skip(4) // "", "repos", owner, repo
        .map(|seg| {
            if seg.chars().all(|c| c.is_ascii_digit()) {
                "{n}"
            } else {
                seg
            }
        })
        .collect();
    format!("{method} {}", tail.join("/"))
}
