//! The yardstick: real multi-bot pull requests, labelled by hand (tests/fixtures/real*/,
//! rules in tests/fixtures/LABELLING.md). `issue` matching's model is fitted on them
//! (`cargo run --release --example fit_matching`), so the figures that count are
//! cross-validated: fit on every repository but one, score that one's PRs, pooled. Pairwise
//! precision and recall of merges are counted as `score_real.py` counts them. README's
//! accuracy section is this test's output (`UPDATE_README=1 cargo test --test it real_prs`).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use review_consensus::adapters::{BotSelection, ExtractOptions};
use review_consensus::consensus::{
    seed_clusters, ConsensusOptions, Matching, Model, FEATURE_COUNT,
};
use review_consensus::judge::{answer, Answer};
use review_consensus::learn::{
    self, ByKind, CrossValidation, JudgeGrid, JudgedFigures, KindCounts, LabelledPr, Score,
};
use review_consensus::local::{labelled_sets, load_labelled_sets, load_snapshot_dir};
use review_consensus::model::{Severity, SuppressionReason};
use review_consensus::pipeline::{analyze, AnalysisOptions};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every labelled set: the folders `tests/fixtures/real*`.
fn sets() -> Vec<PathBuf> {
    labelled_sets(&root().join("tests/fixtures")).expect("tests/fixtures lists")
}

fn corpus() -> Vec<LabelledPr> {
    load_labelled_sets(&sets()).expect("the labelled scenarios load")
}

/// The held-out figures this test guards, as measured (README and docs/scoring.md show
/// them): a change that lowers one fails here; one that raises it should raise these.
/// Pairwise over every labelled member (the first labelling), and by kind, lenient over
/// every labelling (inline members).
const OPEN: Levels = Levels {
    precision: 0.80,
    recall: 0.52,
    cross_bot: (0.77, 0.67),
    same_bot: (0.81, 0.39),
    must_not_merge: 18,
};
const ALL: Levels = Levels {
    precision: 0.79,
    recall: 0.51,
    cross_bot: (0.82, 0.67),
    same_bot: (0.84, 0.43),
    must_not_merge: 28,
};
/// The same with the judge's recorded answers (tests/fixtures/judge/README.md).
const JUDGED_OPEN: Levels = Levels {
    precision: 0.94,
    recall: 0.76,
    cross_bot: (0.97, 0.92),
    same_bot: (0.96, 0.86),
    must_not_merge: 4,
};
const JUDGED_ALL: Levels = Levels {
    precision: 0.92,
    recall: 0.70,
    cross_bot: (0.96, 0.87),
    same_bot: (0.93, 0.73),
    must_not_merge: 10,
};

struct Levels {
    precision: f64,
    recall: f64,
    /// Precision and recall of two bots' pairs, and of a bot's own repeats.
    cross_bot: (f64, f64),
    same_bot: (f64, f64),
    must_not_merge: usize,
}

fn check(view: &str, score: &Score, kinds: &ByKind, levels: &Levels, report: &str) {
    let at_least = |k: &KindCounts, (p, r): (f64, f64)| k.precision() >= p && k.recall() >= r;
    assert!(
        score.precision() >= levels.precision
            && score.recall() >= levels.recall
            && at_least(&kinds.cross_bot, levels.cross_bot)
            && at_least(&kinds.same_bot, levels.same_bot)
            && score.violations.len() <= levels.must_not_merge,
        "{view}: held-out figures fell below the measured level: {}; {}\n{report}",
        score.summary(),
        kinds.summary()
    );
}

/// `seed` matching on the same PRs (it is not fitted: every PR counts as held out).
fn seed_scores(prs: &[LabelledPr]) -> (Score, Score) {
    let options = ConsensusOptions {
        matching: Matching::Seed,
        ..ConsensusOptions::default()
    };
    let (mut open, mut all) = (Score::default(), Score::default());
    for pr in prs {
        open.add(&pr.open.score(&seed_clusters(&pr.open.findings, &options)));
        all.add(&pr.all.score(&seed_clusters(&pr.all.findings, &options)));
    }
    (open, all)
}

/// The recorded judge's verdicts (tests/fixtures/judge/README.md).
fn recorded_answers() -> std::collections::BTreeMap<String, Answer> {
    let path = root().join("tests/fixtures/judge/recorded-pair.jsonl");
    let text = std::fs::read_to_string(&path).expect("recorded answers");
    answer::read_recorded(&text)
        .expect("recorded answers read")
        .into_iter()
        .map(|a| (a.id.clone(), a))
        .collect()
}

fn kind_cells(k: &KindCounts) -> String {
    format!(
        "{:.2} | {:.2} ({}/{})",
        k.precision(),
        k.recall(),
        k.found,
        k.truth
    )
}

fn kind_row(name: &str, s: &Score, kinds: &ByKind) -> String {
    format!(
        "| {name} | {} | {} | {:.2} | {:.2} | {} |\n",
        kind_cells(&kinds.cross_bot),
        kind_cells(&kinds.same_bot),
        s.precision(),
        s.recall(),
        s.violations.len()
    )
}

fn report(prs: &[LabelledPr], cv: &CrossValidation, judged: &JudgedFigures) -> String {
    let repositories: BTreeSet<&str> = prs.iter().map(|pr| pr.repository.as_str()).collect();
    let (seed_open, seed_all) = seed_scores(prs);
    let mut out = format!(
        "{} real PRs from {} repositories ({} sets under `tests/fixtures/real*`), every \
         comment labelled by hand, each PR read twice. `issue` figures are held out: \
         leave-one-repository-out cross-validation, each repository scored by a model fitted \
         on the others. Two bots' pairs and a bot's own repeats are counted apart, lenient \
         over both readings (a merge is wrong only if every reading keeps the pair apart, a \
         miss only if every reading joins it); the last two columns count every pair of the \
         first reading.\n\n\
         | matching, members counted | cross-bot precision | cross-bot recall | same-bot precision | same-bot recall | precision (all pairs) | recall (all pairs) | must-not-merge merged |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|\n",
        prs.len(),
        repositories.len(),
        sets().len()
    );
    out.push_str(&kind_row(
        "`issue`, open members, default inputs",
        &cv.open,
        &cv.open_kinds,
    ));
    out.push_str(&kind_row(
        "`issue` with the judge's recorded answers, open members",
        &judged.judged_open.score,
        &judged.judged_open.kinds,
    ));
    out.push_str(&kind_row(
        "`issue`, every member (`--include-outdated --include-resolved`)",
        &cv.all,
        &cv.all_kinds,
    ));
    out.push_str(&kind_row(
        "`issue` with the judge's recorded answers, every member",
        &judged.judged_all.score,
        &judged.judged_all.kinds,
    ));
    let seed_kinds = |view: fn(&LabelledPr) -> &learn::View| {
        let options = ConsensusOptions {
            matching: Matching::Seed,
            ..ConsensusOptions::default()
        };
        let mut kinds = ByKind::default();
        for pr in prs {
            let v = view(pr);
            kinds.add(&v.score_by_kind(&seed_clusters(&v.findings, &options)));
        }
        kinds
    };
    out.push_str(&kind_row(
        "`seed`, open members",
        &seed_open,
        &seed_kinds(|pr| &pr.open),
    ));
    out.push_str(&kind_row(
        "`seed`, every member",
        &seed_all,
        &seed_kinds(|pr| &pr.all),
    ));
    let _ = writeln!(
        out,
        "\nHeld-out pairs of one file: AUC {:.3}, log loss {:.3} ({} pairs). The judge's rows \
         replay verdicts a capable model wrote reading exactly the prompts the program sends \
         ({} pairs asked, {} answered); a small production model may do worse. Targets: \
         cross-bot precision 0.95 and recall 0.90, same-bot 0.90 and 0.75 (offline); with the \
         recorded judge 0.97 / 0.95 and 0.95 / 0.85; no must-not-merge pair merged. Not all \
         met: docs/scoring.md and docs/judge.md say where the misses are.",
        cv.auc(),
        cv.log_loss(),
        cv.pairs.len(),
        judged.asked,
        judged.answered
    );
    out
}

/// The product's promise on real PRs, measured on PRs the model never saw: the fitted model
/// alone, and with the model judge's recorded answers.
#[test]
#[allow(clippy::print_stdout)] // the figures are what this test reports
fn real_prs_merge_what_bots_raised_together_and_nothing_else() {
    let prs = corpus();
    assert!(prs.len() >= 40, "the corpus holds {} PRs", prs.len());
    let cv = learn::cross_validate(&prs, &[true; FEATURE_COUNT]);
    let judged =
        learn::cross_validate_judged(&prs, &cv.folds, &recorded_answers(), &JudgeGrid::default());
    let report = report(&prs, &cv, &judged);
    println!("{report}");
    check("open members", &cv.open, &cv.open_kinds, &OPEN, &report);
    check("every member", &cv.all, &cv.all_kinds, &ALL, &report);
    let j = &judged;
    check(
        "open, judged",
        &j.judged_open.score,
        &j.judged_open.kinds,
        &JUDGED_OPEN,
        &report,
    );
    check(
        "every, judged",
        &j.judged_all.score,
        &j.judged_all.kinds,
        &JUDGED_ALL,
        &report,
    );

    let path = root().join("README.md");
    let readme = std::fs::read_to_string(&path).expect("README.md");
    let (before, rest) = readme
        .split_once("<!-- accuracy:begin -->\n")
        .expect("README has <!-- accuracy:begin -->");
    let (current, after) = rest
        .split_once("<!-- accuracy:end -->")
        .expect("README has <!-- accuracy:end -->");
    if current == report {
        return;
    }
    if std::env::var_os("UPDATE_README").is_some() {
        let updated =
            format!("{before}<!-- accuracy:begin -->\n{report}<!-- accuracy:end -->{after}");
        std::fs::write(&path, updated).expect("README.md written");
        return;
    }
    panic!(
        "README's accuracy section is not this test's output; refresh it with \
         UPDATE_README=1 cargo test --test it real_prs\n{report}"
    );
}

/// `data/matching-model.json` is what `fit_matching` makes of this corpus and this code:
/// a change to either without a refit fails here.
#[test]
fn the_shipped_model_is_the_fit_of_the_labelled_corpus() {
    let prs = corpus();
    let all: Vec<&LabelledPr> = prs.iter().collect();
    let fitted = learn::fit_on(&all, &[true; FEATURE_COUNT]);
    let shipped = Model::builtin();
    let close = |a: f64, b: f64| (a - b).abs() < 1e-6;
    assert!(
        shipped.features == fitted.features
            && close(shipped.intercept, fitted.intercept)
            && close(shipped.threshold, fitted.threshold)
            && close(shipped.l2, fitted.l2)
            && shipped
                .weights
                .iter()
                .zip(&fitted.weights)
                .all(|(a, b)| close(*a, *b))
            && shipped.fitted_on == fitted.fitted_on,
        "data/matching-model.json is stale: run `cargo run --release --example fit_matching`\n\
         shipped {shipped:?}\nfitted {fitted:?}"
    );
}

/// Whatever the matching, the real PRs lose nothing: every labelled member is extracted
/// (but code-scanning alerts GitHub had already closed), and no high or critical finding
/// is hidden as a style nit.
#[test]
fn every_member_is_read_and_no_high_finding_is_hidden_as_style() {
    for dir in sets()
        .iter()
        .flat_map(|set| std::fs::read_dir(set).expect("set"))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("expected.json").is_file())
    {
        let snapshot = load_snapshot_dir(&dir).expect("scenario loads");
        let options = AnalysisOptions {
            extract: ExtractOptions {
                include_outdated: true,
                include_resolved: true,
            },
            ..AnalysisOptions::default()
        };
        let outcome = analyze(
            Some(&snapshot),
            &BotSelection::default(),
            Vec::new(),
            &options,
        );
        let hidden: Vec<String> = outcome
            .findings
            .iter()
            .filter(|f| f.suppression_reason == Some(SuppressionReason::StyleCoveredByLinters))
            .filter(|f| {
                f.consensus
                    .members
                    .iter()
                    .any(|m| m.severity >= Severity::High)
            })
            .map(|f| format!("{}:{:?}", f.consensus.file, f.consensus.line))
            .collect();
        assert!(hidden.is_empty(), "{}: {hidden:?}", dir.display());
    }
    let fixed_alerts = ["dev-05-zeta-5110-grok-build-wrapper"];
    for pr in corpus() {
        let missing = pr
            .all
            .members
            .iter()
            .filter(|m| m.finding.is_none())
            .count();
        if fixed_alerts.contains(&pr.name.as_str()) {
            assert_eq!(missing, 2, "{}: the two fixed CodeQL alerts", pr.name);
        } else {
            assert_eq!(missing, 0, "{}: labelled members not extracted", pr.name);
        }
    }
}

/// Issue 24 on the real PR that raised it (f-06): read by default, Amazon Q, Codacy and
/// CodeFactor are sources and nobody is left unread; with a `bots` list that leaves them
/// out, the comment and the report name them, with how many comments and the id that reads
/// each, and Amazon Q's `-SimpleMatch` comment is a third bot on that defect.
#[test]
fn issue_24_the_bots_of_f06_are_read_or_named() {
    use review_consensus::adapters::SourceConfig;
    use review_consensus::render::markdown::{render_comment, RenderOptions};
    use review_consensus::render::report::render_report;
    let dir = root().join("tests/fixtures/real-f/f-06-uos-8-epic6-ci-docs");
    let snapshot = load_snapshot_dir(&dir).expect("f-06 loads");
    let options = AnalysisOptions {
        extract: ExtractOptions {
            include_outdated: true,
            include_resolved: false,
        },
        ..AnalysisOptions::default()
    };
    let outcome = analyze(
        Some(&snapshot),
        &BotSelection::default(),
        Vec::new(),
        &options,
    );
    assert!(outcome.unread_bots.is_empty(), "{:?}", outcome.unread_bots);
    for bot in ["amazon-q", "codacy", "codefactor"] {
        assert!(
            outcome
                .sources
                .iter()
                .any(|s| s.bot == bot && s.findings > 0),
            "{bot}: {:?}",
            outcome.sources
        );
    }
    let simple_match = outcome
        .findings
        .iter()
        .find(|f| {
            f.consensus
                .members
                .iter()
                .any(|m| m.provenance.comment_id == Some(3360000068))
        })
        .expect("Amazon Q's -SimpleMatch finding");
    assert!(
        simple_match.consensus.detected_by.len() >= 2,
        "{:?}",
        simple_match.consensus.detected_by
    );

    let four = ["coderabbit", "sourcery", "gemini", "greptile"]
        .map(|id| SourceConfig {
            adapter: id.to_owned(),
            logins: Vec::new(),
        })
        .to_vec();
    let listed = BotSelection::Listed(four);
    let outcome = analyze(Some(&snapshot), &listed, Vec::new(), &options);
    let named: Vec<(&str, usize, &str)> = outcome
        .unread_bots
        .iter()
        .map(|b| (b.login.as_str(), b.comments, b.hint.as_str()))
        .collect();
    assert_eq!(
        named,
        [
            ("codefactor-io[bot]", 3, "codefactor"),
            ("codacy-production[bot]", 2, "codacy"),
            ("amazon-q-developer[bot]", 1, "amazon-q"),
        ]
    );
    let comment = render_comment(&outcome, &RenderOptions::default());
    assert!(
        comment.contains(
            "**Bots not read:** `codefactor-io[bot]` (3 review comments; `bots: codefactor`)"
        ),
        "{comment}"
    );
    let report = serde_json::to_value(render_report(&outcome)).expect("report");
    assert_eq!(report["unread_bots"][2]["login"], "amazon-q-developer[bot]");
    assert_eq!(report["unread_bots"][2]["comments"], 1);
}
