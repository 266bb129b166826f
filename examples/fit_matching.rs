//! Fit `issue` matching's model on the labelled real PRs and measure it on PRs it never saw:
//!
//! ```sh
//! cargo run --release --example fit_matching              # cross-validate, fit, write the model
//! cargo run --release --example fit_matching -- --ablation  # also drop each feature in turn
//! cargo run --release --example fit_matching -- --dry-run   # do not write data/matching-model.json
//! cargo run --release --example fit_matching -- --per-pr    # held-out figures per PR
//! cargo run --release --example fit_matching -- --dump pairs.jsonl          # every judged pair
//! cargo run --release --example fit_matching -- --dump-findings found.json  # every finding
//! ```
//!
//! Reads every scenario of `tests/fixtures/real*/` (a saved-API-JSON folder with
//! `expected.json`). Prints leave-one-repository-out cross-validation (fit on every
//! repository but one, score that one, pooled) for open members with default inputs and
//! for every member; then fits on everything and writes `data/matching-model.json`, which
//! the engine compiles in.
// An edge program: files are its job.
#![allow(clippy::disallowed_methods, clippy::print_stdout)]

use std::path::Path;

use review_consensus::consensus::{FEATURES, FEATURE_COUNT};
use review_consensus::learn::{self, CrossValidation, LabelledPr};
use review_consensus::local::{labelled_sets, load_labelled_sets};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sets = labelled_sets(&root.join("tests/fixtures"))?;
    let prs = load_labelled_sets(&sets)?;
    let repositories: std::collections::BTreeSet<&str> =
        prs.iter().map(|pr| pr.repository.as_str()).collect();
    println!(
        "corpus: {} PRs from {} repositories ({}); sets: {}",
        prs.len(),
        repositories.len(),
        repositories.iter().copied().collect::<Vec<_>>().join(", "),
        sets.iter()
            .filter_map(|s| s.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(", ")
    );

    if let Some(k) = args.iter().position(|a| a == "--dump-findings") {
        let path = args
            .get(k + 1)
            .map(String::as_str)
            .unwrap_or("findings.json");
        dump_findings(&prs, Path::new(path))?;
    }
    if let Some(k) = args.iter().position(|a| a == "--dump") {
        let path = args.get(k + 1).map(String::as_str).unwrap_or("pairs.jsonl");
        dump(&prs, Path::new(path))?;
    }

    let all = [true; FEATURE_COUNT];
    let cv = learn::cross_validate(&prs, &all);
    println!("\nleave-one-repository-out cross-validation, every feature:");
    print_cv(&cv);
    if args.iter().any(|a| a == "--per-pr") {
        for (name, (open, every)) in &cv.per_pr {
            println!(
                "  {name}\n    open: {}\n    all:  {}",
                open.summary(),
                every.summary()
            );
        }
    }

    if args.iter().any(|a| a == "--ablation") {
        println!("\ndrop-one ablation (cross-validated; F1 over every member, then open):");
        println!(
            "| dropped | channel | pair AUC | log loss | precision | recall | cross-bot recall | F1 | must-not-merge | open F1 |"
        );
        println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        row("(none)", "", &cv);
        for (k, name) in FEATURES.iter().enumerate() {
            let mut used = all;
            used[k] = false;
            let dropped = learn::cross_validate(&prs, &used);
            let channel = if review_consensus::consensus::is_where(k) {
                "WHERE"
            } else {
                "WHAT"
            };
            row(name, channel, &dropped);
        }
    }

    let everything: Vec<&LabelledPr> = prs.iter().collect();
    let model = learn::fit_on(&everything, &all);
    println!(
        "\nfitted on all {} PRs ({} pairs, {} positive); intercept {:+.3}",
        model.fitted_on.prs, model.fitted_on.pairs, model.fitted_on.positives, model.intercept
    );
    for (name, weight) in FEATURES.iter().zip(&model.weights) {
        println!("  {name:<16} {weight:+.3}");
    }
    if !args.iter().any(|a| a == "--dry-run") {
        let path = root.join("data/matching-model.json");
        std::fs::write(&path, serde_json::to_string_pretty(&model)? + "\n")?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

fn print_cv(cv: &CrossValidation) {
    println!("  open members, default inputs: {}", cv.open.summary());
    println!("  every member:                 {}", cv.all.summary());
    println!("  by kind, lenient over every labelling (inline members):");
    println!("    open:  {}", cv.open_kinds.summary());
    println!("    every: {}", cv.all_kinds.summary());
    println!(
        "  held-out pairs: AUC {:.3}, log loss {:.3} ({} pairs)",
        cv.auc(),
        cv.log_loss(),
        cv.pairs.len()
    );
    for (name, (_, all)) in &cv.per_pr {
        for violation in &all.violations {
            println!("    must-not-merge merged: {name} {violation}");
        }
    }
}

fn row(name: &str, channel: &str, cv: &CrossValidation) {
    let s = &cv.all;
    println!(
        "| {name} | {channel} | {:.3} | {:.3} | {:.2} | {:.2} | {:.2} | {:.3} | {} | {:.3} |",
        cv.auc(),
        cv.log_loss(),
        s.precision(),
        s.recall(),
        s.cross_bot_recall(),
        s.f1(),
        s.violations.len(),
        cv.open.f1()
    );
}

/// Every judged pair of the every-member views with its label and both findings' text, one
/// JSON object per line, for looking at the data.
fn dump(prs: &[LabelledPr], path: &Path) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    for pr in prs {
        let view = &pr.all;
        let labels = view.cluster_of_findings();
        for pair in review_consensus::consensus::judged_pairs(&view.findings) {
            let (x, y) = (&view.findings[pair.a], &view.findings[pair.b]);
            let row = serde_json::json!({
                "pr": pr.name, "repo": pr.repository,
                "label": match (labels[pair.a], labels[pair.b]) {
                    (Some(p), Some(q)) => serde_json::json!(p == q),
                    _ => serde_json::Value::Null,
                },
                "clusters": [labels[pair.a], labels[pair.b]],
                "features": pair.features.to_vec(),
                "a": {"bot": x.bot, "line": x.evidence.line, "commit": x.provenance.commit, "title": x.title, "detail": x.detail},
                "b": {"bot": y.bot, "line": y.evidence.line, "commit": y.provenance.commit, "title": y.title, "detail": y.detail},
            });
            writeln!(out, "{row}")?;
        }
    }
    Ok(())
}

/// Both views of every PR: findings, their labels, must-not-merge pairs (for looking at
/// the data outside the engine).
fn dump_findings(prs: &[LabelledPr], path: &Path) -> anyhow::Result<()> {
    let view = |v: &learn::View| {
        serde_json::json!({
            "findings": v.findings,
            "labels": v.cluster_of_findings(),
            "members": v.members.iter().map(|m| serde_json::json!({"cluster": m.cluster, "bot": m.bot, "finding": m.finding})).collect::<Vec<_>>(),
            "must_not_merge": v.must_not_merge,
        })
    };
    let out: Vec<_> = prs
        .iter()
        .map(|pr| serde_json::json!({"name": pr.name, "repo": pr.repository, "open": view(&pr.open), "all": view(&pr.all)}))
        .collect();
    std::fs::write(path, serde_json::to_string(&out)?)?;
    Ok(())
}
