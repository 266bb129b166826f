//! Consensus and synthesis on 1,000 / 10,000 / 100,000 synthetic findings (2,000 files,
//! 5 bots). `cargo bench --bench engine`.
//!
//! `consensus-seed` and `consensus-issue` are `consensus_owned` with each matching mode, as
//! `pipeline::analyze` calls it (the findings move into their clusters; the input copy each
//! iteration needs is made off the clock);
//! `consensus-borrowed` is `compute_consensus(&[..])`, which copies every finding.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use review_consensus::consensus::{compute_consensus, consensus_owned, ConsensusOptions, Matching};
use review_consensus::synthesis::{synthesize, SynthesisOptions};

#[path = "support/synthetic.rs"]
mod synthetic;

fn engine(c: &mut Criterion) {
    let options = ConsensusOptions {
        bots_ran: Some(synthetic::BOTS.len()),
        matching: Matching::Seed,
        ..ConsensusOptions::default()
    };
    let mut group = c.benchmark_group("engine");
    group.sample_size(10);
    for n in [1_000, 10_000, 100_000] {
        let findings = synthetic::findings(n);
        group.throughput(Throughput::Elements(n as u64));
        for matching in [Matching::Seed, Matching::Issue] {
            let options = ConsensusOptions {
                matching,
                ..options.clone()
            };
            let name = format!("consensus-{}", matching.as_str());
            group.bench_with_input(BenchmarkId::new(name, n), &findings, |b, f| {
                // Input copies and output drops stay out of the measurement.
                b.iter_batched(
                    || f.clone(),
                    |f| consensus_owned(f, &options),
                    criterion::BatchSize::LargeInput,
                )
            });
        }
        group.bench_with_input(
            BenchmarkId::new("consensus-borrowed", n),
            &findings,
            |b, f| b.iter_with_large_drop(|| compute_consensus(f, &options)),
        );
        let clusters = compute_consensus(&findings, &options);
        group.bench_with_input(BenchmarkId::new("synthesis", n), &clusters, |b, c| {
            // Input copies and output drops stay out of the measurement.
            b.iter_batched(
                || c.clone(),
                |c| synthesize(c, &SynthesisOptions::default()),
                criterion::BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, engine);
criterion_main!(benches);
