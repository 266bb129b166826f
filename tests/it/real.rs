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
use review_consensus::learn::{self, CrossValidation, LabelledPr, Score};
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
const OPEN: Levels = Levels {
    precision: 0.73,
    recall: 0.48,
    cross_bot_recall: 0.72,
    must_not_merge: 8,
};
const ALL: Levels = Levels {
    precision: 0.80,
    recall: 0.48,
    cross_bot_recall: 0.58,
    must_not_merge: 14,
};

struct Levels {
    precision: f64,
    recall: f64,
    cross_bot_recall: f64,
    must_not_merge: usize,
}

fn check(view: &str, score: &Score, levels: &Levels, report: &str) {
    assert!(
        score.precision() >= levels.precision
            && score.recall() >= levels.recall
            && score.cross_bot_recall() >= levels.cross_bot_recall
            && score.violations.len() <= levels.must_not_merge,
        "{view}: held-out figures fell below the measured level: {}\n{report}",
        score.summary()
    );
}

fn row(name: &str, s: &Score) -> String {
    format!(
        "| {name} | {:.2} | {:.2} ({}/{}) | {:.2} ({}/{}) | {} |\n",
        s.precision(),
        s.recall(),
        s.merged_true,
        s.true_pairs,
        s.cross_bot_recall(),
        s.merged_cross_bot,
        s.cross_bot_pairs,
        s.violations.len()
    )
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

fn report(prs: &[LabelledPr], cv: &CrossValidation) -> String {
    let repositories: BTreeSet<&str> = prs.iter().map(|pr| pr.repository.as_str()).collect();
    let (seed_open, seed_all) = seed_scores(prs);
    let mut out = format!(
        "{} real PRs from {} repositories ({} sets under `tests/fixtures/real*`), every \
         comment labelled by hand. `issue` figures are held out: leave-one-repository-out \
         cross-validation, each repository scored by a model fitted on the others.\n\n\
         | matching, members counted | precision | recall (true pairs merged) | cross-bot recall | must-not-merge merged |\n\
         |---|---:|---:|---:|---:|\n",
        prs.len(),
        repositories.len(),
        sets().len()
    );
    out.push_str(&row("`issue`, open members, default inputs", &cv.open));
    out.push_str(&row(
        "`issue`, every member (`--include-outdated --include-resolved`)",
        &cv.all,
    ));
    out.push_str(&row("`seed`, open members", &seed_open));
    out.push_str(&row("`seed`, every member", &seed_all));
    let _ = writeln!(
        out,
        "\nHeld-out pairs of one file: AUC {:.3}, log loss {:.3} ({} pairs). Targets: \
         precision 0.95, recall 0.85, cross-bot recall 0.90, no must-not-merge pair merged \
         (not met; docs/scoring.md says where the misses are).",
        cv.auc(),
        cv.log_loss(),
        cv.pairs.len()
    );
    out
}

/// The product's promise on real PRs, measured on PRs the model never saw.
#[test]
#[allow(clippy::print_stdout)] // the figures are what this test reports
fn real_prs_merge_what_bots_raised_together_and_nothing_else() {
    let prs = corpus();
    assert!(prs.len() >= 40, "the corpus holds {} PRs", prs.len());
    let cv = learn::cross_validate(&prs, &[true; FEATURE_COUNT]);
    let report = report(&prs, &cv);
    println!("{report}");
    check("open members", &cv.open, &OPEN, &report);
    check("every member", &cv.all, &ALL, &report);

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
