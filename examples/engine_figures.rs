//! Prints the engine's throughput and peak memory for 1,000 / 10,000 / 100,000 synthetic
//! findings over 2,000 files and 5 bots: `cargo run --release --example engine_figures`.
//! Time is the best wall-clock time of several runs (the machine's load average is printed:
//! a busy shared machine inflates it). Peak RSS is the process's `VmHWM`, reset before each
//! stage through `/proc/self/clear_refs` (Linux); elsewhere it prints `n/a`.
//!
//! `consensus (seed)` and `consensus (issue)` are `consensus_owned` with each matching mode,
//! the way `pipeline::analyze` calls it: the findings move into their clusters; the copy of
//! the input each run needs is made before the clock starts. `consensus (borrowed)` is `compute_consensus(&[..])`, which has to copy
//! every finding into its cluster, for comparison; it runs last, on the same input
//! regenerated, so it does not disturb the other stages' peaks. Synthesis gets a copy of the
//! clusters, made off the clock.
// An edge module: the environment, files and the clock are its job.
#![allow(clippy::disallowed_methods)]
#![allow(clippy::print_stdout)]

use std::time::{Duration, Instant};

use review_consensus::consensus::{compute_consensus, consensus_owned, ConsensusOptions, Matching};
use review_consensus::synthesis::{synthesize, SynthesisOptions};

#[path = "../benches/support/synthetic.rs"]
mod synthetic;

const RUNS: usize = 10;

fn reset_peak() {
    // "5" resets the peak resident set size to the current one (Linux >= 4.0).
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn measure<T>(best: &mut Duration, run: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = run();
    *best = (*best).min(start.elapsed());
    out
}

fn show(stage: &str, n: usize, best: Duration, peak: Option<f64>) {
    let per_second = n as f64 / best.as_secs_f64();
    let peak = peak.map_or("n/a".to_owned(), |mb| format!("{mb:.1} MB"));
    println!(
        "{stage:<20} {n:>7} findings  {:>8.2} ms  {per_second:>10.0} findings/s  peak RSS {peak}",
        best.as_secs_f64() * 1e3
    );
}

fn main() {
    let options = ConsensusOptions {
        bots_ran: Some(synthetic::BOTS.len()),
        matching: Matching::Seed,
        ..ConsensusOptions::default()
    };
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "best of {RUNS} runs, one thread; peak RSS of the whole process during the stage; \
         load average {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!(
        "consensus (owned): consensus_owned as pipeline::analyze calls it, the input copy made \
         before the clock\nconsensus (borrowed): compute_consensus(&[..]), which copies every \
         finding; run last (its peak includes the heap left by the stages before)\n\
         consensus peaks include the example's own copy of the input"
    );
    for n in [1_000, 10_000, 100_000] {
        let findings = synthetic::findings(n);

        // Seed matching first (its clusters feed synthesis), then issue matching.
        let mut clusters = Vec::new();
        for matching in [Matching::Seed, Matching::Issue] {
            let options = ConsensusOptions {
                matching,
                ..options.clone()
            };
            reset_peak();
            let mut best = Duration::MAX;
            let mut out = Vec::new();
            for _ in 0..RUNS {
                drop(std::mem::take(&mut out));
                let input = findings.clone();
                out = measure(&mut best, || consensus_owned(input, &options));
            }
            let stage = format!("consensus ({})", matching.as_str());
            show(&stage, n, best, peak_rss_mb());
            println!("                     {} clusters", out.len());
            if matching == Matching::Seed {
                clusters = out;
            }
        }

        drop(findings);
        let synthesis_options = SynthesisOptions::default();
        reset_peak();
        let mut best = Duration::MAX;
        let mut surfaced = 0;
        for _ in 0..RUNS {
            let input = clusters.clone();
            let out = measure(&mut best, || synthesize(input, &synthesis_options));
            surfaced = out.iter().filter(|f| !f.suppressed).count();
        }
        show("synthesis", n, best, peak_rss_mb());
        println!(
            "                     {} clusters, {surfaced} surfaced",
            clusters.len()
        );

        // The same input again (the generator is deterministic) for the borrowed path.
        let findings = synthetic::findings(n);
        reset_peak();
        let mut best = Duration::MAX;
        let mut borrowed = Vec::new();
        for _ in 0..RUNS {
            drop(std::mem::take(&mut borrowed));
            borrowed = measure(&mut best, || compute_consensus(&findings, &options));
        }
        show("consensus (borrowed)", n, best, peak_rss_mb());
        assert!(borrowed == clusters, "the two entry points disagree");
    }
}
