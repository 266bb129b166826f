//! `review-consensus demo`: the whole offline pipeline on a bundled PR with three bots
//! (CodeRabbit, Sourcery, GitHub Advanced Security), through the same adapters, engine and
//! renderer as the action.

use crate::adapters;
use crate::api::PrSnapshot;
use crate::local::{snapshot_from_texts, SnapshotTexts};
use crate::model::{ConsensusLevel, Outcome};
use crate::pipeline::{self, AnalysisOptions};
use crate::render::{self, RenderOptions};

macro_rules! fixture {
    ($file:literal) => {
        include_str!(concat!("../tests/fixtures/pr-101-three-bots/", $file))
    };
}

const DEMO: SnapshotTexts<'static> = SnapshotTexts {
    pull: fixture!("pull.json"),
    review_comments: fixture!("review_comments.json"),
    reviews: fixture!("reviews.json"),
    issue_comments: fixture!("issue_comments.json"),
    code_scanning_alerts: Some(fixture!("code_scanning_alerts.json")),
    review_threads: None,
    signals: crate::local::SignalTexts {
        reactions: None,
        check_runs: None,
        statuses: None,
        head_commit: None,
    },
    viewer: None,
};

/// The bundled PR, parsed like a saved-API-JSON folder.
pub fn snapshot() -> anyhow::Result<PrSnapshot> {
    snapshot_from_texts(&DEMO)
}

/// What the demo prints: the sticky comment and a one-line verdict.
#[derive(Debug, Clone)]
pub struct Demo {
    pub outcome: Outcome,
    pub comment: String,
    pub verdict: String,
}

pub fn run() -> anyhow::Result<Demo> {
    let snapshot = snapshot()?;
    let options = AnalysisOptions::default();
    let outcome = pipeline::analyze(
        Some(&snapshot),
        &adapters::BotSelection::default(),
        Vec::new(),
        &options,
    );
    let comment = render::render_comment(
        &outcome,
        &RenderOptions {
            server_url: Some("https://github.com".to_owned()),
            ..RenderOptions::default()
        },
    );
    let verdict = verdict(&outcome);
    Ok(Demo {
        outcome,
        comment,
        verdict,
    })
}

/// `gate: fail — 2 confirmed, 1 needs-verification, 3 unverified, 4 suppressed (fail-on: confirmed)`.
pub fn verdict(outcome: &Outcome) -> String {
    let pre_existing = outcome.pre_existing().count();
    let counts: Vec<String> = ConsensusLevel::DESCENDING
        .iter()
        .map(|level| format!("{} {level}", outcome.count_at(*level)))
        .chain(std::iter::once(format!(
            "{} suppressed",
            outcome.suppressed().count()
        )))
        // Only when there are any, so the line of a PR without keeps its form.
        .chain((pre_existing > 0).then(|| format!("{pre_existing} pre-existing")))
        .collect();
    let fail_on = serde_json::to_value(outcome.fail_on)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let mut line = format!(
        "gate: {} — {} (fail-on: {fail_on})",
        outcome.gate.as_str(),
        counts.join(", ")
    );
    if let Some(floor) = outcome.fail_on_severity {
        let severe = crate::gate::severity_blocking(&outcome.findings, Some(floor));
        let found = if severe.is_empty() {
            "no finding".to_owned()
        } else {
            render::markdown::severity_phrase(&severe)
        };
        line.push_str(&format!("; {found} (fail-on-severity: {floor})"));
    }
    if !outcome.not_reviewed.is_empty() {
        line.push_str(&format!(
            "; not reviewed: {}",
            outcome.not_reviewed.join(", ")
        ));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_pr_parses_like_its_folder() {
        let snapshot = snapshot().expect("bundled fixture parses");
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/pr-101-three-bots");
        let loaded = crate::local::load_snapshot_dir(&folder).expect("folder loads");
        assert_eq!(snapshot, loaded);
        assert_eq!(snapshot.pull.number, 101);
    }
}
