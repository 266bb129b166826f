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
//! `measure` also takes `--per-pr` (each PR's figures), `--violations` (each must-not-merge
//! pair merged with the judge, its clusters and what was asked), `--misses` (the true pairs
//! left apart, counted by cause: over the budget, judged different, a join refused, ...) and
//! `--unlabelled` (answered pairs the fit has no label for), and `--closure` (a second round
//! measured: the pairs keeping apart two clusters the judge called one defect, within what
//! the first left of the budget, or `--closure-own-budget`, or with `--closure-reserve N`
//! kept from the first; `--closure-questions DIR` writes the unanswered ones as requests). Both modes take `--max-pairs N`,
//! `--keeps A,B` and `--floors A,B` to measure other settings than the default grid.
//!
//! A recorded answer is what a model (or a reader) said when shown exactly the request body
//! the program writes (`batches/*.json`); its `model` field names who answered.
// An edge program: files are its job.
#![allow(clippy::disallowed_methods, clippy::print_stdout)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use review_consensus::adapters::{extract_selected, BotSelection, ExtractOptions};
use review_consensus::consensus::{Band, Constraints, Model, Reach, Verdict, FEATURE_COUNT};
use review_consensus::judge::{answer, plan, prompt, Answer};
use review_consensus::learn::{self, ByKind, JudgeGrid, LabelledPr};
use review_consensus::local::{labelled_sets, load_labelled_sets, load_snapshot_dir, write_jsonl};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sets = labelled_sets(&root.join("tests/fixtures"))?;
    let prs = load_labelled_sets(&sets)?;
    let grid = grid_of(&args);
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
            questions(&sets, &prs, &out, shape, &skip, &grid)
        }
        Some("measure") => {
            let mut answers: BTreeMap<String, Answer> = BTreeMap::new();
            for path in args[1..].iter().filter(|a| a.ends_with(".jsonl")) {
                let text = std::fs::read_to_string(path)?;
                for a in answer::read_recorded(&text).map_err(|e| anyhow::anyhow!("{path}: {e}"))? {
                    answers.insert(a.id.clone(), a);
                }
            }
            println!("{} recorded verdicts", answers.len());
            let folds = learn::fold_models(&prs, &[true; FEATURE_COUNT]);
            let figures = learn::cross_validate_judged(&prs, &folds, &answers, &grid);
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
            if args.iter().any(|a| a == "--closure") {
                let out = args
                    .iter()
                    .position(|a| a == "--closure-questions")
                    .map(|k| PathBuf::from(&args[k + 1]));
                closure(
                    &sets,
                    &prs,
                    &folds,
                    &figures.chosen,
                    &grid,
                    &answers,
                    out.as_deref(),
                )?;
            }
            if args.iter().any(|a| a == "--unlabelled") {
                // Answers the labelled rows do not already hold: what they could add to a fit.
                let (mut labelled, mut extra, mut extra_same) = (0, 0, 0);
                for pr in &prs {
                    let view = &pr.all;
                    let labels = view.cluster_of_findings();
                    for pair in view.judgement.pairs() {
                        let id = plan::pair_id(&view.findings[pair.a], &view.findings[pair.b]);
                        let Some(answer) = answers.get(&id) else {
                            continue;
                        };
                        if labels[pair.a].is_some() && labels[pair.b].is_some() {
                            labelled += 1;
                        } else {
                            extra += 1;
                            extra_same += usize::from(answer.same);
                        }
                    }
                }
                println!(
                    "answered pairs the fit reads: {labelled} labelled, {extra} not ({extra_same} same)"
                );
            }
            if args.iter().any(|a| a == "--misses") {
                let mut why: BTreeMap<String, usize> = BTreeMap::new();
                for pr in &prs {
                    let band = figures.chosen[&pr.repository];
                    misses(
                        pr,
                        &folds[&pr.repository],
                        band,
                        grid.max_pairs,
                        &answers,
                        &mut why,
                    );
                }
                println!("misses by cause: {why:?}");
            }
            if args.iter().any(|a| a == "--violations") {
                for (name, [open, all]) in &figures.violations {
                    if !open.is_empty() || !all.is_empty() {
                        println!("{name}: open {open:?} every {all:?}");
                        let pr = prs.iter().find(|pr| &pr.name == name).unwrap();
                        let band = figures.chosen[&pr.repository];
                        for pair in all {
                            explain(
                                pr,
                                &folds[&pr.repository],
                                band,
                                grid.max_pairs,
                                &answers,
                                pair,
                            );
                        }
                    }
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

/// The grid of judge settings: the default, or `--max-pairs N`, `--keeps A,B`, `--floors A,B`.
fn grid_of(args: &[String]) -> JudgeGrid {
    let value = |flag: &str| {
        let k = args.iter().position(|a| a == flag)?;
        args.get(k + 1).cloned()
    };
    let list = |text: String| -> Vec<f64> {
        text.split(',')
            .map(|x| x.parse().expect("a number"))
            .collect()
    };
    let mut grid = JudgeGrid::default();
    if let Some(n) = value("--max-pairs") {
        grid.max_pairs = n.parse().expect("--max-pairs N");
    }
    if let Some(keeps) = value("--keeps") {
        grid.keeps = list(keeps);
    }
    if let Some(floors) = value("--floors") {
        grid.floors = list(floors);
    }
    grid
}

/// A second round, measured: after the first answers, the judge is asked the pairs between
/// two clusters it called one defect that the join refused (at most `max_pairs` more a
/// view), and the clusters are made again with both rounds' answers. Prints both rounds'
/// figures and how many second-round questions have a recorded answer; with `out`, writes
/// the unanswered ones as request bodies (`out/batches`).
fn closure(
    sets: &[PathBuf],
    prs: &[LabelledPr],
    folds: &BTreeMap<String, Model>,
    chosen: &BTreeMap<String, Band>,
    grid: &JudgeGrid,
    answers: &BTreeMap<String, Answer>,
    out: Option<&Path>,
) -> anyhow::Result<()> {
    let dirs = pr_dirs(sets)?;
    let (mut first, mut second) = (
        [ByKind::default(), ByKind::default()],
        [ByKind::default(), ByKind::default()],
    );
    let (mut violations, mut asked_again, mut answered_again) = ([0, 0, 0, 0], 0, 0);
    let mut requests = 0;
    for pr in prs {
        let model = &folds[&pr.repository];
        let band = chosen[&pr.repository];
        let mut unanswered: Vec<plan::Question> = Vec::new();
        let mut seen = BTreeSet::new();
        // Read only when a question must be written (its comments' bodies).
        let mut snapshot = None;
        // `--closure-reserve N`: the first round asks N fewer, kept for the second.
        let reserve: usize = std::env::args()
            .skip_while(|a| a != "--closure-reserve")
            .nth(1)
            .map_or(0, |n| n.parse().expect("--closure-reserve N"));
        for (k, view) in [&pr.open, &pr.all].into_iter().enumerate() {
            let first_round = grid.max_pairs.saturating_sub(reserve);
            let judged = JudgedView::of(view, model, band, first_round, answers);
            let clusters = &judged.clusters;
            let members = |c: usize| -> Vec<usize> {
                (0..clusters.len()).filter(|&i| clusters[i] == c).collect()
            };
            let mut verdicts: Vec<Verdict> = judged
                .candidates
                .iter()
                .filter(|c| judged.asked.contains(&c.id))
                .filter_map(|c| {
                    Some(Verdict {
                        a: c.a,
                        b: c.b,
                        said: answers.get(&c.id)?.said(),
                    })
                })
                .collect();
            let mut extra: Vec<plan::Candidate> = Vec::new();
            let mut known: BTreeSet<String> = judged.asked.clone();
            // The second round asks within what the first left of the budget, or (with
            // `--closure-own-budget`) a budget of its own.
            let room = if std::env::args().any(|a| a == "--closure-own-budget") {
                grid.max_pairs
            } else {
                grid.max_pairs.saturating_sub(judged.asked.len())
            };
            for c in judged
                .candidates
                .iter()
                .filter(|c| judged.asked.contains(&c.id))
            {
                let said_same = answers.get(&c.id).is_some_and(|a| a.same);
                if !said_same || clusters[c.a] == clusters[c.b] {
                    continue;
                }
                for x in members(clusters[c.a]) {
                    for y in members(clusters[c.b]) {
                        let (a, b) = (x.min(y), x.max(y));
                        let id = plan::pair_id(&view.findings[a], &view.findings[b]);
                        if extra.len() < room && known.insert(id.clone()) {
                            extra.push(plan::Candidate {
                                id,
                                a,
                                b,
                                p: judged.p.get(&(a, b)).copied().unwrap_or(0.0),
                                reach: Reach::Band,
                                shares_code: false,
                                cross_bot: view.findings[a].bot != view.findings[b].bot,
                                consequential: false,
                            });
                        }
                    }
                }
            }
            asked_again += extra.len();
            for c in &extra {
                match answers.get(&c.id) {
                    Some(answer) => {
                        answered_again += 1;
                        verdicts.push(Verdict {
                            a: c.a,
                            b: c.b,
                            said: answer.said(),
                        });
                    }
                    None if out.is_some() && seen.insert(c.id.clone()) => {
                        if snapshot.is_none() {
                            snapshot = Some(load_snapshot_dir(&dirs[&pr.name])?);
                        }
                        let snapshot = snapshot.as_ref().expect("loaded above");
                        let body_of = |i: usize| {
                            let id = view.findings[i].provenance.comment_id?;
                            snapshot
                                .review_comments
                                .iter()
                                .find(|c| c.id == id)
                                .map(|c| c.body.clone())
                        };
                        unanswered.push(plan::question(
                            &view.findings,
                            c,
                            plan::Shape::Pair,
                            &body_of,
                        ));
                    }
                    None => {}
                }
            }
            let constraints = Constraints {
                judged: verdicts,
                ..Constraints::default()
            };
            let again = view
                .judgement
                .clusters_with(&view.findings, model, &constraints);
            let (before, after) = (view.score_by_kind(clusters), view.score_by_kind(&again));
            if before != after {
                println!(
                    "{} ({}): {} -> {}",
                    pr.name,
                    ["open", "every member"][k],
                    before.summary(),
                    after.summary()
                );
            }
            first[k].add(&before);
            second[k].add(&after);
            violations[k] += view.score(clusters).violations.len();
            violations[2 + k] += view.score(&again).violations.len();
        }
        if let Some(out) = out {
            requests += write_batches(out, &pr.name, &unanswered)?;
        }
    }
    for (k, name) in ["open", "every member"].iter().enumerate() {
        for (round, kinds, v) in [
            ("first round", &first[k], violations[k]),
            ("with a second", &second[k], violations[2 + k]),
        ] {
            println!(
                "{name}, {round}: two bots {} | repeats {} | must-not-merge {v}",
                kinds.cross_bot.summary(),
                kinds.same_bot.summary()
            );
        }
    }
    println!("second-round questions: {asked_again}, {answered_again} with a recorded answer; {requests} requests written");
    Ok(())
}

/// `questions` as request bodies a reader answers, `out/batches/<pr>-NN.json`; how many.
fn write_batches(out: &Path, pr: &str, questions: &[plan::Question]) -> anyhow::Result<usize> {
    std::fs::create_dir_all(out.join("batches"))?;
    let batches = prompt::batches(questions);
    for (k, batch) in batches.iter().enumerate() {
        let body = prompt::request_body("recorded", batch, true);
        let path = out.join("batches").join(format!("{pr}-{:02}.json", k + 1));
        std::fs::write(path, serde_json::to_string_pretty(&body)? + "\n")?;
    }
    Ok(batches.len())
}

/// Each labelled PR's directory, by name.
fn pr_dirs(sets: &[PathBuf]) -> anyhow::Result<BTreeMap<String, PathBuf>> {
    let mut dirs = BTreeMap::new();
    for set in sets {
        for entry in std::fs::read_dir(set)? {
            let path = entry?.path();
            if path.join("expected.json").is_file() {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                dirs.insert(name, path);
            }
        }
    }
    Ok(dirs)
}

/// One PR's every-member view as the judge leaves it under `model` and `band`: the
/// candidates in the band, those asked (within `max_pairs`), the clusters the answers give,
/// and each judged pair's held-out probability.
struct JudgedView {
    candidates: Vec<plan::Candidate>,
    asked: BTreeSet<String>,
    clusters: Vec<usize>,
    p: BTreeMap<(usize, usize), f64>,
}

impl JudgedView {
    fn of(
        view: &learn::View,
        model: &Model,
        band: Band,
        max_pairs: usize,
        answers: &BTreeMap<String, Answer>,
    ) -> JudgedView {
        let bots: BTreeSet<&str> = view.findings.iter().map(|f| f.bot.as_str()).collect();
        let candidates = plan::candidates(
            &view.findings,
            model,
            band,
            &Constraints::default(),
            bots.len(),
        );
        let asked: Vec<&plan::Candidate> = candidates.iter().take(max_pairs).collect();
        let judged = asked
            .iter()
            .filter_map(|c| {
                let answer = answers.get(&c.id)?;
                Some(Verdict {
                    a: c.a,
                    b: c.b,
                    said: answer.said(),
                })
            })
            .collect();
        let constraints = Constraints {
            judged,
            ..Constraints::default()
        };
        let clusters = view
            .judgement
            .clusters_with(&view.findings, model, &constraints);
        let p = view
            .judgement
            .pairs()
            .map(|pair| ((pair.a, pair.b), model.probability(&pair.features)))
            .collect();
        let asked = asked.iter().map(|c| c.id.clone()).collect();
        JudgedView {
            candidates,
            asked,
            clusters,
            p,
        }
    }
}

/// Why two labelled clusters kept apart met: each pair of their members, every member view,
/// with its held-out probability and what the judge said of it.
fn explain(
    pr: &LabelledPr,
    model: &Model,
    band: Band,
    max_pairs: usize,
    answers: &BTreeMap<String, Answer>,
    violation: &str,
) {
    let view = &pr.all;
    let (x, y) = violation.split_once('+').unwrap();
    let judged = JudgedView::of(view, model, band, max_pairs, answers);
    let (clusters, p) = (&judged.clusters, &judged.p);
    let members = |c: &str| -> Vec<usize> {
        view.members
            .iter()
            .filter(|m| m.cluster == c)
            .filter_map(|m| m.finding)
            .collect()
    };
    let labels = view.cluster_of_findings();
    for &i in members(x).iter().chain(&members(y)) {
        println!("  member {i} of cluster {}", clusters[i]);
    }
    let shown: BTreeSet<usize> = members(x).iter().map(|&i| clusters[i]).collect();
    for (k, f) in view.findings.iter().enumerate() {
        if shown.contains(&clusters[k]) {
            println!(
                "    [{k}] cl {} label {:?} {}@{}:{:?} c{:?} {:?}",
                clusters[k],
                labels[k],
                f.bot,
                f.evidence.file,
                f.evidence.line,
                f.provenance.comment_id,
                f.title.chars().take(60).collect::<String>()
            );
        }
    }
    for &i in &members(x) {
        for &j in &members(y) {
            let (a, b) = (i.min(j), i.max(j));
            let id = plan::pair_id(&view.findings[a], &view.findings[b]);
            let asked = judged.asked.contains(&id);
            let said = answers.get(&id).map(|a| (a.same, a.why.clone()));
            let f = |k: usize| {
                let f = &view.findings[k];
                format!(
                    "{}@{}:{:?} {:?}",
                    f.bot, f.evidence.file, f.evidence.line, f.title
                )
            };
            println!(
                "  {x}/{y}: p {:.3} asked {asked} said {said:?}\n    {}\n    {}",
                p.get(&(a, b)).copied().unwrap_or(0.0),
                f(a),
                f(b)
            );
        }
    }
}

/// The true pairs (every labelling joins them) the judged clustering leaves apart, every
/// member view, each counted under its cause.
fn misses(
    pr: &LabelledPr,
    model: &Model,
    band: Band,
    max_pairs: usize,
    answers: &BTreeMap<String, Answer>,
    why: &mut BTreeMap<String, usize>,
) {
    let view = &pr.all;
    let judged = JudgedView::of(view, model, band, max_pairs, answers);
    // Every pair the judge could be asked at all (any probability), to tell "never a
    // candidate" from "outside this band".
    let wide = Band {
        floor: 0.0,
        keep: 1.0,
    };
    let everything = JudgedView::of(view, model, wide, usize::MAX, &BTreeMap::new()).candidates;
    let (clusters, p, candidates) = (&judged.clusters, &judged.p, &judged.candidates);
    for (k, x) in view.readings.iter().enumerate() {
        for y in &view.readings[k + 1..] {
            let joined = x.clusters.iter().zip(&y.clusters).all(|(a, b)| a == b);
            if !joined || clusters[x.finding] == clusters[y.finding] {
                continue;
            }
            let (a, b) = (x.finding.min(y.finding), x.finding.max(y.finding));
            let kind = if x.bot == y.bot {
                "same-bot"
            } else {
                "cross-bot"
            };
            let id = plan::pair_id(&view.findings[a], &view.findings[b]);
            let pa = p.get(&(a, b)).copied();
            let cause = if a == b {
                "one finding".to_owned()
            } else if let Some(answer) = answers.get(&id).filter(|_| judged.asked.contains(&id)) {
                if answer.same {
                    "judged same, join refused".to_owned()
                } else {
                    "judged different".to_owned()
                }
            } else if judged.asked.contains(&id) {
                "asked, no recorded answer".to_owned()
            } else if candidates.iter().any(|c| c.id == id) {
                "in band, over budget".to_owned()
            } else if everything.iter().any(|c| c.id == id) {
                match pa {
                    Some(p) if p >= band.keep => {
                        "strong link (at or above keep), join refused".to_owned()
                    }
                    Some(p) if p >= model.threshold => "linked but join refused".to_owned(),
                    Some(_) => "below floor".to_owned(),
                    None => "two files, no shared code".to_owned(),
                }
            } else {
                "never a candidate (distinct loci or pruned)".to_owned()
            };
            *why.entry(format!("{kind}: {cause}")).or_default() += 1;
            if std::env::var_os("SHOW_MISSES").is_some() {
                let f = |k: usize| {
                    let f = &view.findings[k];
                    format!(
                        "{}@{}:{:?} {:?}",
                        f.bot,
                        f.evidence.file,
                        f.evidence.line,
                        f.title.chars().take(70).collect::<String>()
                    )
                };
                println!(
                    "{} {kind} {cause} p {pa:?}\n    {}\n    {}",
                    pr.name,
                    f(a),
                    f(b)
                );
            }
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
    grid: &JudgeGrid,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(out.join("batches"))?;
    let folds = learn::fold_models(prs, &[true; FEATURE_COUNT]);
    let dirs = pr_dirs(sets)?;
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
        requests += write_batches(out, &pr.name, &unanswered)?;
        println!("{}: {} questions", pr.name, questions.len());
    }
    std::fs::write(out.join("SYSTEM.txt"), prompt::SYSTEM)?;
    println!(
        "{total} questions in {requests} requests under {}",
        out.display()
    );
    Ok(())
}
