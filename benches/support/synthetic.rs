//! Synthetic findings for the engine benchmark and the figures example: `n` findings over
//! 2,000 files and 5 bots, about 2.5 bots per issue, 10% without a line, deterministic.

use review_consensus::model::{NormalizedFinding, Severity};

pub const FILES: u64 = 2_000;
pub const BOTS: [&str; 5] = [
    "coderabbit",
    "sourcery",
    "gh-advanced-security",
    "copilot",
    "gemini",
];
const CATEGORIES: [&str; 8] = [
    "security",
    "bug",
    "performance",
    "maintainability",
    "style",
    "docs",
    "test",
    "other",
];
const WORDS: [&str; 16] = [
    "unused",
    "variable",
    "null",
    "pointer",
    "dereference",
    "sql",
    "injection",
    "missing",
    "await",
    "unchecked",
    "error",
    "handling",
    "race",
    "condition",
    "leak",
    "overflow",
];

/// SplitMix64: tiny, deterministic, good enough to spread findings.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

pub fn findings(n: usize) -> Vec<NormalizedFinding> {
    let issues = (n as u64 * 2 / 5).max(1);
    let mut rng = Rng(42);
    (0..n)
        .map(|i| {
            let issue = rng.next() % issues;
            let mut per_issue = Rng(issue);
            let file = per_issue.next() % FILES;
            let category = CATEGORIES[(per_issue.next() % 8) as usize];
            let base_line = 1 + (per_issue.next() % 1_500) as u32;
            let title: Vec<&str> = (0..4)
                .map(|_| WORDS[(per_issue.next() % 16) as usize])
                .collect();
            let bot = BOTS[(rng.next() % 5) as usize];
            let severity = Severity::ALL[(rng.next() % 5) as usize];
            let line =
                (!rng.next().is_multiple_of(10)).then(|| base_line + (rng.next() % 3) as u32);
            let mut finding = NormalizedFinding::new(
                bot,
                format!("{bot}-{i}"),
                severity,
                category,
                format!("{} in handler {}", title.join(" "), issue % 97),
            )
            .at(format!("src/module_{}/file_{file}.rs", file % 40), line);
            finding.confidence = 0.5 + (rng.next() % 50) as f64 / 100.0;
            finding.nitpick = rng.next().is_multiple_of(20);
            finding
        })
        .collect()
}
