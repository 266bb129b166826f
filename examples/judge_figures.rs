//! The model judge on the labelled real PRs, held out, with recorded answers:
//!
//! ```sh
//! # the questions a judge is asked on every PR, under each repository's held-out model, in a
//! # wide band (so that the band can be chosen afterwards), as JSONL and as request bodies:
//! cargo run --release --example judge_figures -- questions OUT_DIR [neighbourhood]
//! # held-out figures with and without the recorded answers (one verdict a line):
//! cargo run --release --example judge_figures -- measure ANSWERS.jsonl [ANSWERS.jsonl ...]
//! ```
//!
//! A recorded answer is what a model (or a reader) said when shown exactly the request body
//! the program writes (`batches/*.json`); its `model` field names who answered.
// An edge program: files are its job.
#![allow(clippy::disallowed_methods, clippy::print_stdout)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use review_consensus::adapters::{extract_selected, BotSelection, ExtractOptions};
use review_consensus::consensus::{Band, Constraints, Model, FEATURE_COUNT};
use review_consensus::judge::{answer, plan, prompt, Answer};
use review_consensus::learn::{self, JudgeGrid, LabelledPr};
use review_consensus::local::{labelled_sets, load_labelled_sets, load_snapshot_dir, write_jsonl};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sets = labelled_sets(&root.join("tests/fixtures"))?;
    let prs = load_labelled_sets(&sets)?;
    match args.first().map(String::as_str) {
        Some("questions") => {
            let out = PathBuf::from(args.get(1).map_or("judge-questions", String::as_str));
            let shape = if args.iter().any(|a| a == "neighbourhood") {
                plan::Shape::Neighbourhood
            } else {
                plan::Shape::Pair
            };
            // `--skip FILE`: questions already answered there get no request file.
            let skip: BTreeSet<String> = match args.iter().position(|a| a == "--skip") {
                Some(k) => {
                    let text = std::fs::read_to_string(&args[k + 1])?;
                    answer::read_recorded(&text)
                        .map_err(|e| anyhow::anyhow!("{e}"))?
                        .into_iter()
                        .map(|a| a.id)
                        .collect()
                }
                None => BTreeSet::new(),
            };
            questions(&sets, &prs, &out, shape, &skip)
        }
        Some("measure") => {
            let mut answers: BTreeMap<String, Answer> = BTreeMap::new();
            for path in args[1..].iter().filter(|a| !a.starts_with("--")) {
                let text = std::fs::read_to_string(path)?;
                for a in answer::read_recorded(&text).map_err(|e| anyhow::anyhow!("{path}: {e}"))? {
                    answers.insert(a.id.clone(), a);
                }
            }
            println!("{} recorded verdicts", answers.len());
            let folds = learn::fold_models(&prs, &[true; FEATURE_COUNT]);
            let figures =
                learn::cross_validate_judged(&prs, &folds, &answers, &JudgeGrid::default());
            println!("{}", figures.table());
            if args.iter().any(|a| a == "--per-pr") {
                for (name, (fitted, judged)) in &figures.per_pr {
                    println!(
                        "{name}\n  fitted: {}\n  judged: {}",
                        fitted.summary(),
                        judged.summary()
                    );
                }
            }
            Ok(())
        }
        _ => {
            println!("usage: judge_figures questions OUT_DIR [neighbourhood] | measure ANSWERS...");
            Ok(())
        }
    }
}

/// Every PR's questions under its repository's held-out model, both views, deduplicated.
fn questions(
    sets: &[PathBuf],
    prs: &[LabelledPr],
    out: &Path,
    shape: plan::Shape,
    skip: &BTreeSet<String>,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(out.join("batches"))?;
    let folds = learn::fold_models(prs, &[true; FEATURE_COUNT]);
    let mut dirs: BTreeMap<String, PathBuf> = BTreeMap::new();
    for set in sets {
        for entry in std::fs::read_dir(set)? {
            let path = entry?.path();
            if path.join("expected.json").is_file() {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                dirs.insert(name, path);
            }
        }
    }
    let mut total = 0;
    let mut requests = 0;
    for pr in prs {
        let model: &Model = &folds[&pr.repository];
        let snapshot = load_snapshot_dir(&dirs[&pr.name])?;
        let bodies: BTreeMap<u64, String> = snapshot
            .review_comments
            .iter()
            .map(|c| (c.id, c.body.clone()))
            .collect();
        let mut seen = BTreeSet::new();
        let mut questions = Vec::new();
        for keep in [false, true] {
            let options = ExtractOptions {
                include_outdated: keep,
                include_resolved: keep,
            };
            let findings = extract_selected(&snapshot, &BotSelection::default(), &options).findings;
            let findings: Vec<_> = findings.into_iter().filter(|f| !f.pre_existing).collect();
            let bots: BTreeSet<&str> = findings.iter().map(|f| f.bot.as_str()).collect();
            let body_of = |i: usize| {
                let id = findings[i].provenance.comment_id?;
                bodies.get(&id).cloned()
            };
            // The pairs any band of the grid would ask, within its budget.
            let grid = JudgeGrid::default();
            let widest = Band {
                floor: grid.floors.iter().copied().fold(1.0, f64::min),
                keep: grid.keeps.iter().copied().fold(0.0, f64::max),
            };
            let candidates = plan::candidates(
                &findings,
                model,
                widest,
                &Constraints::default(),
                bots.len(),
            );
            for &floor in &grid.floors {
                for &keep in &grid.keeps {
                    let band = Band { floor, keep };
                    let asked = candidates
                        .iter()
                        .filter(|c| band.holds(c.p, c.shares_code, c.reach))
                        .take(grid.max_pairs);
                    for candidate in asked {
                        if seen.insert(candidate.id.clone()) {
                            questions.push(plan::question(&findings, candidate, shape, &body_of));
                        }
                    }
                }
            }
        }
        total += questions.len();
        write_jsonl(&out.join(format!("{}.jsonl", pr.name)), &questions)?;
        let unanswered: Vec<plan::Question> = questions
            .iter()
            .filter(|q| !skip.contains(&q.id))
            .cloned()
            .collect();
        for (k, batch) in prompt::batches(&unanswered).iter().enumerate() {
            let body = prompt::request_body("recorded", batch, true);
            let path = out
                .join("batches")
                .join(format!("{}-{:02}.json", pr.name, k + 1));
            std::fs::write(path, serde_json::to_string_pretty(&body)? + "\n")?;
            requests += 1;
        }
        println!("{}: {} questions", pr.name, questions.len());
    }
    std::fs::write(out.join("SYSTEM.txt"), prompt::SYSTEM)?;
    println!(
        "{total} questions in {requests} requests under {}",
        out.display()
    );
    Ok(())
}
