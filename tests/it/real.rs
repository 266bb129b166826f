//! The yardstick: real multi-bot pull requests (tests/fixtures/real, labelled by hand in
//! each `expected.json`). Pairwise precision and recall of merges, pooled over scenarios,
//! counted as `score_real.py` counts them: a true pair is two open members of one expected
//! cluster, a merged pair two members the engine put in one finding. README's accuracy
//! section is this test's output (`UPDATE_README=1 cargo test --test it real_prs`).

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use review_consensus::adapters::BotSelection;
use review_consensus::consensus::Matching;
use review_consensus::local::load_snapshot_dir;
use review_consensus::model::{NormalizedFinding, Outcome, Severity, SuppressionReason};
use review_consensus::pipeline::{analyze, AnalysisOptions};
use serde_json::Value;

/// The development set (labelled by the planners) and a second set labelled independently
/// after the matching was designed.
const DEV: &str = "tests/fixtures/real";
const SECOND: &str = "tests/fixtures/real-extra";

fn scenarios(set: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(set);
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .expect("a folder of scenarios")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("expected.json").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// What one scenario scored.
#[derive(Default)]
struct Score {
    true_pairs: usize,
    /// True pairs of two different bots (two findings of one bot never merge).
    cross_bot_pairs: usize,
    merged_cross_bot: usize,
    merged_pairs: usize,
    merged_true: usize,
    missing: usize,
    violations: Vec<String>,
    hidden_as_style: Vec<String>,
}

impl Score {
    fn add(&mut self, other: &Score) {
        self.true_pairs += other.true_pairs;
        self.cross_bot_pairs += other.cross_bot_pairs;
        self.merged_cross_bot += other.merged_cross_bot;
        self.merged_pairs += other.merged_pairs;
        self.merged_true += other.merged_true;
        self.missing += other.missing;
        self.violations.extend(other.violations.iter().cloned());
        self.hidden_as_style
            .extend(other.hidden_as_style.iter().cloned());
    }

    fn precision(&self) -> f64 {
        if self.merged_pairs == 0 {
            1.0
        } else {
            self.merged_true as f64 / self.merged_pairs as f64
        }
    }

    fn recall(&self) -> f64 {
        if self.true_pairs == 0 {
            1.0
        } else {
            self.merged_true as f64 / self.true_pairs as f64
        }
    }
}

/// The ids a report member answers to: its comment, its review, numbers in its id.
fn member_ids(member: &NormalizedFinding) -> BTreeSet<u64> {
    let mut ids: BTreeSet<u64> = [member.provenance.comment_id, member.provenance.review_id]
        .into_iter()
        .flatten()
        .collect();
    ids.extend(
        member
            .finding_id
            .split(|c: char| !c.is_ascii_digit())
            .filter(|d| d.len() >= 5)
            .filter_map(|d| d.parse::<u64>().ok()),
    );
    ids
}

fn score(dir: &Path, outcome: &Outcome) -> Score {
    let text = std::fs::read_to_string(dir.join("expected.json")).expect("expected.json");
    let expected: Value = serde_json::from_str(&text).expect("expected.json parses");
    // Every report member: (finding index, ids, file, line).
    let members: Vec<(usize, BTreeSet<u64>, &str, Option<u32>)> = outcome
        .findings
        .iter()
        .enumerate()
        .flat_map(|(index, f)| {
            f.consensus.members.iter().map(move |m| {
                (
                    index,
                    member_ids(m),
                    m.evidence.file.as_str(),
                    m.evidence.line,
                )
            })
        })
        .collect();
    let mut items: Vec<(String, Option<usize>, String)> = Vec::new();
    let mut where_found: HashMap<String, BTreeSet<usize>> = HashMap::new();
    for cluster in expected["clusters"].as_array().expect("clusters") {
        if cluster["status"].as_str().unwrap_or("open") != "open" {
            continue;
        }
        let id = cluster["cluster_id"]
            .as_str()
            .expect("cluster_id")
            .to_owned();
        let file = cluster["file"].as_str().unwrap_or("");
        for member in cluster["members"].as_array().expect("members") {
            if member["status"].as_str().unwrap_or("open") != "open" {
                continue;
            }
            let comment = member["comment_id"].as_u64();
            let want: BTreeSet<u64> = [comment, member["review_id"].as_u64()]
                .into_iter()
                .flatten()
                .collect();
            let line = member["line"].as_u64().map(|l| l as u32);
            // The report member holding it: its own comment first, then same file, nearest.
            let found = members
                .iter()
                .filter(|m| !m.1.is_disjoint(&want))
                .min_by_key(|m| {
                    let primary = comment.is_some_and(|c| m.1.contains(&c));
                    let distance = match (m.3, line) {
                        (Some(a), Some(b)) => a.abs_diff(b),
                        (None, Some(_)) => u32::MAX,
                        _ => 0,
                    };
                    (!primary, m.2 != file, distance)
                })
                .map(|m| m.0);
            if let Some(index) = found {
                where_found.entry(id.clone()).or_default().insert(index);
            }
            let bot = member["bot"].as_str().unwrap_or("").to_owned();
            items.push((id.clone(), found, bot));
        }
    }
    let mut score = Score::default();
    for (i, (a, at, abot)) in items.iter().enumerate() {
        for (b, bt, bbot) in &items[i + 1..] {
            let same_cluster = a == b;
            let merged = at.is_some() && at == bt;
            let cross_bot = same_cluster && abot != bbot;
            score.true_pairs += usize::from(same_cluster);
            score.merged_pairs += usize::from(merged);
            score.merged_true += usize::from(same_cluster && merged);
            score.cross_bot_pairs += usize::from(cross_bot);
            score.merged_cross_bot += usize::from(cross_bot && merged);
        }
    }
    score.missing = items.iter().filter(|(_, at, _)| at.is_none()).count();
    for pair in expected["must_not_merge"].as_array().into_iter().flatten() {
        let (a, b) = (
            pair[0].as_str().unwrap_or(""),
            pair[1].as_str().unwrap_or(""),
        );
        let (wa, wb) = (where_found.get(a), where_found.get(b));
        if wa.zip(wb).is_some_and(|(x, y)| !x.is_disjoint(y)) {
            score.violations.push(format!("{a}+{b}"));
        }
    }
    score.hidden_as_style = outcome
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
    score
}

fn run(set: &str, matching: Matching) -> (Vec<(String, Score)>, Score) {
    let mut options = AnalysisOptions::default();
    options.consensus.matching = matching;
    let mut pooled = Score::default();
    let mut rows = Vec::new();
    for dir in scenarios(set) {
        let snapshot = load_snapshot_dir(&dir).expect("scenario loads");
        let outcome = analyze(
            Some(&snapshot),
            &BotSelection::default(),
            Vec::new(),
            &options,
        );
        let score = score(&dir, &outcome);
        pooled.add(&score);
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        rows.push((name, score));
    }
    (rows, pooled)
}

fn table(matching: Matching, rows: &[(String, Score)], pooled: &Score) -> String {
    let mut out = format!(
        "`{}` matching:\n\n| scenario | true pairs merged | merged pairs | must-not-merge violated |\n|---|---:|---:|---|\n",
        matching.as_str()
    );
    for (name, s) in rows {
        let violated = if s.violations.is_empty() {
            "–".to_owned()
        } else {
            s.violations.join(", ")
        };
        let _ = writeln!(
            out,
            "| {name} | {}/{} | {} | {violated} |",
            s.merged_true, s.true_pairs, s.merged_pairs
        );
    }
    let _ = writeln!(
        out,
        "\nPooled: precision **{:.2}**, recall **{:.2}** ({} of {} true pairs merged, {} merged \
         pairs; {} of {} true pairs of two different bots), {} must-not-merge violations, {} \
         high/critical findings hidden as style, {} expected members not extracted.",
        pooled.precision(),
        pooled.recall(),
        pooled.merged_true,
        pooled.true_pairs,
        pooled.merged_pairs,
        pooled.merged_cross_bot,
        pooled.cross_bot_pairs,
        pooled.violations.len(),
        pooled.hidden_as_style.len(),
        pooled.missing,
    );
    out
}

/// The product's promise on real PRs, with the default `issue` matching; `seed` matching is
/// measured beside it for the README.
#[test]
#[allow(clippy::print_stdout)] // the figures are what this test reports
fn real_prs_merge_what_bots_raised_together_and_nothing_else() {
    let (issue_rows, issue) = run(DEV, Matching::Issue);
    let (seed_rows, seed) = run(DEV, Matching::Seed);
    let (second_rows, second) = run(SECOND, Matching::Issue);
    let (second_seed_rows, second_seed) = run(SECOND, Matching::Seed);
    let report = format!(
        "The development set, `{DEV}`:\n\n{}\n{}\nThe second set, `{SECOND}`:\n\n{}\n{}",
        table(Matching::Issue, &issue_rows, &issue),
        table(Matching::Seed, &seed_rows, &seed),
        table(Matching::Issue, &second_rows, &second),
        table(Matching::Seed, &second_seed_rows, &second_seed),
    );
    println!("{report}");

    assert!(
        issue.recall() >= 0.85,
        "recall {:.2}\n{report}",
        issue.recall()
    );
    assert!(
        issue.precision() >= 0.95,
        "precision {:.2}\n{report}",
        issue.precision()
    );
    assert!(issue.violations.is_empty(), "{:?}", issue.violations);
    assert!(
        issue.hidden_as_style.is_empty() && seed.hidden_as_style.is_empty(),
        "high findings hidden as style: {:?} {:?}",
        issue.hidden_as_style,
        seed.hidden_as_style
    );
    assert_eq!(issue.missing, 0, "every labelled member is extracted");
    // The second set was not tuned on: a guard against regressions, at the measured level.
    assert!(second.precision() >= 0.85, "second set\n{report}");
    assert!(
        second.merged_cross_bot * 10 >= second.cross_bot_pairs * 7,
        "second set\n{report}"
    );

    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
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
