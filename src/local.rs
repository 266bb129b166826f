//! Local inputs and outputs: saved-API-JSON folders, normalised-findings files, SARIF files.
// An edge module: the environment, files and the clock are its job.
#![allow(clippy::disallowed_methods)]

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context};
use serde_json::Value;

use crate::api::{
    self, CodeScanning, PrSnapshot, PullRequest, RepoRef, Signals, Surface, Unreadable,
};
use crate::github::comment::find_ours;
use crate::github::threads::Viewer;
use crate::identity::{IdentityInput, Prior};
use crate::model::{NormalizedFinding, SourceState};
use crate::pipeline::ExtraSource;

pub const PULL: &str = "pull.json";
pub const REVIEW_COMMENTS: &str = "review_comments.json";
pub const REVIEWS: &str = "reviews.json";
pub const ISSUE_COMMENTS: &str = "issue_comments.json";
pub const CODE_SCANNING_ALERTS: &str = "code_scanning_alerts.json";
pub const REVIEW_THREADS: &str = "review_threads.json";
pub const REACTIONS: &str = "reactions.json";
pub const CHECK_RUNS: &str = "check_runs.json";
pub const STATUSES: &str = "statuses.json";
pub const HEAD_COMMIT: &str = "head_commit.json";
/// Who the saving run was (`{"login", "type"}`): whose sticky comment is "ours" offline.
pub const VIEWER: &str = "viewer.json";

/// The files of a saved-API-JSON folder as text, so that a folder on disk and the bundled
/// demo go through the same parsing.
#[derive(Debug, Clone, Copy, Default)]
pub struct SnapshotTexts<'a> {
    pub pull: &'a str,
    pub review_comments: &'a str,
    pub reviews: &'a str,
    pub issue_comments: &'a str,
    pub code_scanning_alerts: Option<&'a str>,
    pub review_threads: Option<&'a str>,
    /// The completion-signal surfaces (docs/adapters.md), each optional.
    pub signals: SignalTexts<'a>,
}

/// `reactions.json` (the PR's reactions), `check_runs.json` (the head's check runs: the
/// endpoint's object or its `check_runs` array), `statuses.json` (the head's statuses,
/// newest first) and `head_commit.json` (the head commit: `git/commits/{sha}` or its
/// `pulls/{n}/commits` element, for its committer date).
#[derive(Debug, Clone, Copy, Default)]
pub struct SignalTexts<'a> {
    pub reactions: Option<&'a str>,
    pub check_runs: Option<&'a str>,
    pub statuses: Option<&'a str>,
    pub head_commit: Option<&'a str>,
}

/// Parse a saved PR. A bad element of a list is kept as `Unreadable`, not fatal; a file
/// that is not JSON (or not the right kind of JSON) is an error naming it.
pub fn snapshot_from_texts(texts: &SnapshotTexts<'_>) -> anyhow::Result<PrSnapshot> {
    let pull_value = json(PULL, texts.pull)?;
    if !pull_value.is_object() {
        bail!("{PULL}: expected a JSON object (GET /repos/{{owner}}/{{repo}}/pulls/{{n}})");
    }
    let pull: PullRequest = serde_json::from_value(pull_value)
        .with_context(|| format!("{PULL}: not a pull request"))?;
    let mut unreadable: Vec<Unreadable> = Vec::new();
    let review_comments = list(REVIEW_COMMENTS, texts.review_comments, &mut unreadable)?;
    let reviews = list(REVIEWS, texts.reviews, &mut unreadable)?;
    let issue_comments = list(ISSUE_COMMENTS, texts.issue_comments, &mut unreadable)?;
    let code_scanning = match texts.code_scanning_alerts {
        Some(text) => CodeScanning::Alerts(list(CODE_SCANNING_ALERTS, text, &mut unreadable)?),
        None => CodeScanning::Unavailable("not in the saved folder".to_owned()),
    };
    let review_threads = texts
        .review_threads
        .map(|text| {
            let value = json(REVIEW_THREADS, text)?;
            api::threads_from_json(&value).ok_or_else(|| {
                anyhow!("{REVIEW_THREADS}: expected GraphQL reviewThreads nodes (the whole response or the `nodes` array)")
            })
        })
        .transpose()?;
    let signals = signals_from_texts(&texts.signals, &mut unreadable)?;
    let repository = pull
        .base
        .repo
        .as_ref()
        .and_then(|r| r.full_name.clone())
        .unwrap_or_default();
    Ok(PrSnapshot {
        repository,
        pull,
        review_comments,
        reviews,
        issue_comments,
        code_scanning,
        review_threads,
        unreadable,
        signals,
    })
}

fn signals_from_texts(
    texts: &SignalTexts<'_>,
    unreadable: &mut Vec<Unreadable>,
) -> anyhow::Result<Signals> {
    fn surface<T: serde::de::DeserializeOwned>(
        file: &str,
        text: Option<&str>,
        unreadable: &mut Vec<Unreadable>,
    ) -> anyhow::Result<Surface<T>> {
        match text {
            Some(text) => list(file, text, unreadable).map(Surface::Read),
            // Absent: not fetched (no configured bot needed it), as when the run saved it.
            None => Ok(Surface::default()),
        }
    }
    // The check-runs endpoint answers an object; a saved folder may keep it whole.
    let check_runs = match texts.check_runs {
        Some(text) => match json(CHECK_RUNS, text)? {
            Value::Object(mut object) => {
                let runs = object.remove("check_runs").unwrap_or(Value::Null);
                surface(CHECK_RUNS, Some(&runs.to_string()), unreadable)?
            }
            _ => surface(CHECK_RUNS, Some(text), unreadable)?,
        },
        None => surface(CHECK_RUNS, None, unreadable)?,
    };
    let head_committed_at = texts
        .head_commit
        .map(|text| json(HEAD_COMMIT, text))
        .transpose()?
        .and_then(|commit| {
            commit
                .pointer("/committer/date")
                .or_else(|| commit.pointer("/commit/committer/date"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        });
    Ok(Signals {
        reactions: surface(REACTIONS, texts.reactions, unreadable)?,
        check_runs,
        statuses: surface(STATUSES, texts.statuses, unreadable)?,
        head_committed_at,
    })
}

fn json(file: &str, text: &str) -> anyhow::Result<Value> {
    serde_json::from_str(text).with_context(|| format!("{file}: not valid JSON"))
}

/// A JSON array, element by element (`api::parse_list`).
fn list<T: serde::de::DeserializeOwned>(
    file: &str,
    text: &str,
    unreadable: &mut Vec<Unreadable>,
) -> anyhow::Result<Vec<T>> {
    let Value::Array(items) = json(file, text)? else {
        bail!("{file}: expected a JSON array (the endpoint's list, de-paginated)");
    };
    let surface = file.trim_end_matches(".json");
    let (good, bad) = api::parse_list(surface, items);
    unreadable.extend(bad);
    Ok(good)
}

/// Read a saved-API-JSON folder (`pull.json`, `review_comments.json`, ...).
pub fn load_snapshot_dir(dir: &Path) -> anyhow::Result<PrSnapshot> {
    let read = |name: &str| -> anyhow::Result<String> {
        let path = dir.join(name);
        fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))
    };
    let optional = |name: &str| -> anyhow::Result<Option<String>> {
        let path = dir.join(name);
        if path.exists() {
            read(name).map(Some)
        } else {
            Ok(None)
        }
    };
    let (pull, review_comments, reviews, issue_comments) = (
        read(PULL)?,
        read(REVIEW_COMMENTS)?,
        read(REVIEWS)?,
        read(ISSUE_COMMENTS)?,
    );
    let (alerts, threads) = (optional(CODE_SCANNING_ALERTS)?, optional(REVIEW_THREADS)?);
    let (reactions, check_runs) = (optional(REACTIONS)?, optional(CHECK_RUNS)?);
    let (statuses, head_commit) = (optional(STATUSES)?, optional(HEAD_COMMIT)?);
    snapshot_from_texts(&SnapshotTexts {
        pull: &pull,
        review_comments: &review_comments,
        reviews: &reviews,
        issue_comments: &issue_comments,
        code_scanning_alerts: alerts.as_deref(),
        review_threads: threads.as_deref(),
        signals: SignalTexts {
            reactions: reactions.as_deref(),
            check_runs: check_runs.as_deref(),
            statuses: statuses.as_deref(),
            head_commit: head_commit.as_deref(),
        },
    })
    .with_context(|| format!("saved-API-JSON folder {}", dir.display()))
}

/// Write a snapshot as a saved-API-JSON folder that `load_snapshot_dir` reads back.
/// Objects that could not be read when fetching are not written (they were never kept).
pub fn save_snapshot_dir(snapshot: &PrSnapshot, dir: &Path) -> anyhow::Result<()> {
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut pull = snapshot.pull.clone();
    // The repository is read back from the base repo's name.
    if !snapshot.repository.is_empty() {
        let repo = pull.base.repo.get_or_insert_with(RepoRef::default);
        if repo.full_name.is_none() {
            repo.full_name = Some(snapshot.repository.clone());
        }
    }
    let write = |name: &str, value: serde_json::Result<String>| -> anyhow::Result<()> {
        let path = dir.join(name);
        let mut text = value.with_context(|| format!("cannot serialise {name}"))?;
        text.push('\n');
        fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))
    };
    write(PULL, serde_json::to_string_pretty(&pull))?;
    write(
        REVIEW_COMMENTS,
        serde_json::to_string_pretty(&snapshot.review_comments),
    )?;
    write(REVIEWS, serde_json::to_string_pretty(&snapshot.reviews))?;
    write(
        ISSUE_COMMENTS,
        serde_json::to_string_pretty(&snapshot.issue_comments),
    )?;
    if let CodeScanning::Alerts(alerts) = &snapshot.code_scanning {
        write(CODE_SCANNING_ALERTS, serde_json::to_string_pretty(alerts))?;
    }
    if let Some(threads) = &snapshot.review_threads {
        write(REVIEW_THREADS, serde_json::to_string_pretty(threads))?;
    }
    let signals = &snapshot.signals;
    if let Surface::Read(reactions) = &signals.reactions {
        write(REACTIONS, serde_json::to_string_pretty(reactions))?;
    }
    if let Surface::Read(runs) = &signals.check_runs {
        write(CHECK_RUNS, serde_json::to_string_pretty(runs))?;
    }
    if let Surface::Read(statuses) = &signals.statuses {
        write(STATUSES, serde_json::to_string_pretty(statuses))?;
    }
    if let Some(date) = &signals.head_committed_at {
        let commit = serde_json::json!({"sha": snapshot.head_sha(), "committer": {"date": date}});
        write(HEAD_COMMIT, serde_json::to_string_pretty(&commit))?;
    }
    Ok(())
}

/// Record the token's identity beside a saved folder, so that `render` knows which sticky
/// comment was ours.
pub fn save_viewer(dir: &Path, login: &str, bot: bool) -> anyhow::Result<()> {
    let value = serde_json::json!({"login": login, "type": if bot { "Bot" } else { "User" }});
    let path = dir.join(VIEWER);
    fs::write(&path, format!("{value}\n"))
        .with_context(|| format!("cannot write {}", path.display()))
}

/// The identity a saved folder was fetched with: `(login, is_bot)`, `None` when the folder
/// does not say (an error when it says so unreadably).
pub fn load_viewer(dir: &Path) -> anyhow::Result<Option<(String, bool)>> {
    let path = dir.join(VIEWER);
    if !path.exists() {
        return Ok(None);
    }
    let text =
        fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let value = json(VIEWER, &text)?;
    let login = value
        .get("login")
        .and_then(Value::as_str)
        .filter(|l| !l.trim().is_empty())
        .ok_or_else(|| {
            anyhow!("{VIEWER}: expected {{\"login\": ..., \"type\": \"Bot\" or \"User\"}}")
        })?;
    let bot = value.get("type").and_then(Value::as_str) == Some("Bot") || login.ends_with("[bot]");
    Ok(Some((login.to_owned(), bot)))
}

/// The identity stage's input for `render`: the state block of the sticky comment that was
/// ours in the saved folder (the oldest with the marker on its first line by the identity in
/// `viewer.json`, else by `github-actions[bot]`, the Actions token's), no permission lookups
/// (only the state's cache answers), and `today`.
pub fn offline_identity(
    inputs: &[PathBuf],
    snapshot: Option<&PrSnapshot>,
    marker: &str,
    today: chrono::NaiveDate,
) -> anyhow::Result<IdentityInput> {
    let saved = match inputs.iter().find(|p| p.is_dir()) {
        Some(dir) => load_viewer(dir)?,
        None => None,
    };
    let viewer = saved.map_or_else(Viewer::actions, |(login, bot)| Viewer { login, bot });
    let ours = snapshot.and_then(|s| find_ours(&s.issue_comments, marker, &viewer));
    Ok(IdentityInput {
        prior: Prior::read(ours.and_then(|c| c.body.as_deref())),
        permissions: Default::default(),
        today: Some(today),
        offline: true,
    })
}

/// One `render` INPUT, read.
#[derive(Debug, Clone, PartialEq)]
pub enum LocalInput {
    /// A saved-API-JSON folder.
    Snapshot(Box<PrSnapshot>),
    /// A normalised-findings file or a SARIF log: sources outside the PR's comments.
    Sources(Vec<ExtraSource>),
}

/// Read one INPUT: a folder is a saved PR, a JSON array is normalised findings, a JSON
/// object with `runs` or a SARIF `$schema` is SARIF.
pub fn load_input(path: &Path) -> anyhow::Result<LocalInput> {
    if path.is_dir() {
        return load_snapshot_dir(path).map(|s| LocalInput::Snapshot(Box::new(s)));
    }
    let name = path.display().to_string();
    let text = fs::read_to_string(path).with_context(|| format!("cannot read {name}"))?;
    let value: Value =
        serde_json::from_str(&text).with_context(|| format!("{name}: not valid JSON"))?;
    match value {
        Value::Array(items) => findings_sources(&name, items).map(LocalInput::Sources),
        Value::Object(ref object) if is_sarif(object) => sarif_sources(&text)
            .map(LocalInput::Sources)
            .map_err(|e| anyhow!("{name}: {e}")),
        _ => bail!(
            "{name}: neither a saved-API-JSON folder, a normalised-findings array nor a SARIF log"
        ),
    }
}

/// All INPUTs of `render`: at most one saved PR, any number of extra sources. A file that
/// exists but cannot be read as findings or SARIF is a malformed source, listed with its
/// reason while the others go on (the seed's missing-source rule); a path that does not
/// exist, or a run where nothing at all could be read, is an error.
pub fn load_inputs(paths: &[PathBuf]) -> anyhow::Result<(Option<PrSnapshot>, Vec<ExtraSource>)> {
    let mut snapshot = None;
    let mut extra = Vec::new();
    for path in paths {
        if !path.exists() {
            bail!("{}: no such file or folder", path.display());
        }
        match load_input(path) {
            Ok(LocalInput::Snapshot(_)) if snapshot.is_some() => bail!(
                "{}: only one saved-API-JSON folder per run (a run is about one PR)",
                path.display()
            ),
            Ok(LocalInput::Snapshot(s)) => snapshot = Some(*s),
            Ok(LocalInput::Sources(sources)) => extra.extend(sources),
            Err(error) if path.is_file() => {
                tracing::warn!("skipping {}: {error:#}", path.display());
                extra.push(ExtraSource::malformed(
                    path.display().to_string(),
                    format!("{error:#}"),
                ));
            }
            Err(error) => return Err(error),
        }
    }
    let readable = extra.iter().any(|s| s.status.status == SourceState::Ok);
    if snapshot.is_none() && !readable {
        bail!("none of the inputs could be read");
    }
    Ok((snapshot, extra))
}

fn is_sarif(object: &serde_json::Map<String, Value>) -> bool {
    object.contains_key("runs")
        || object
            .get("$schema")
            .and_then(Value::as_str)
            .is_some_and(|s| s.to_ascii_lowercase().contains("sarif"))
}

/// Normalised findings, one source per bot in order of first appearance. A bad element is
/// an error naming it: this file is written by a tool, not a bot, so it should be exact.
pub fn findings_sources(name: &str, items: Vec<Value>) -> anyhow::Result<Vec<ExtraSource>> {
    // One source per run of consecutive findings of a bot, so that the file's order
    // reaches the engine; `analyze` counts each bot once.
    let mut runs: Vec<(String, Vec<NormalizedFinding>)> = Vec::new();
    for (index, item) in items.into_iter().enumerate() {
        let finding: NormalizedFinding = serde_json::from_value(item)
            .with_context(|| format!("{name}: element {index} is not a normalised finding"))?;
        if finding.bot.trim().is_empty() {
            bail!("{name}: element {index} has an empty `bot`");
        }
        match runs.last_mut() {
            Some((bot, list)) if *bot == finding.bot => list.push(finding),
            _ => runs.push((finding.bot.clone(), vec![finding])),
        }
    }
    Ok(runs
        .into_iter()
        .map(|(bot, findings)| ExtraSource::ok(bot, findings))
        .collect())
}

/// SARIF logs become sources through the SARIF adapter.
pub fn sarif_sources(text: &str) -> Result<Vec<ExtraSource>, String> {
    crate::adapters::sarif::parse(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_viewer_is_saved_beside_the_folder_and_read_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert_eq!(load_viewer(dir.path()).expect("none is fine"), None);
        save_viewer(dir.path(), "octo-app[bot]", true).expect("saved");
        assert_eq!(
            load_viewer(dir.path()).expect("read"),
            Some(("octo-app[bot]".to_owned(), true))
        );
        save_viewer(dir.path(), "alice", false).expect("saved");
        assert_eq!(
            load_viewer(dir.path()).expect("read"),
            Some(("alice".to_owned(), false))
        );
        fs::write(dir.path().join(VIEWER), "{\"type\": \"User\"}").expect("written");
        let err = load_viewer(dir.path()).unwrap_err().to_string();
        assert!(err.contains("viewer.json"), "{err}");
    }

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name)
    }

    #[test]
    fn a_fixture_folder_loads_with_every_file() {
        let snapshot = load_snapshot_dir(&fixture("pr-103-edge-cases")).expect("loads");
        assert_eq!(snapshot.repository, "acme/payments-api");
        assert_eq!(snapshot.pull.number, 103);
        assert!(!snapshot.review_comments.is_empty());
        assert!(!snapshot.reviews.is_empty());
        assert!(!snapshot.issue_comments.is_empty());
        assert!(matches!(&snapshot.code_scanning, CodeScanning::Alerts(a) if !a.is_empty()));
        assert!(snapshot
            .review_threads
            .as_ref()
            .is_some_and(|t| t.iter().any(|t| t.is_resolved)));
    }

    #[test]
    fn optional_files_may_be_absent() {
        let snapshot = load_snapshot_dir(&fixture("pr-102-gemini-copilot")).expect("loads");
        assert_eq!(
            snapshot.code_scanning,
            CodeScanning::Unavailable("not in the saved folder".to_owned())
        );
        assert_eq!(snapshot.review_threads, None);
    }

    #[test]
    fn save_then_load_round_trips() {
        let original = load_snapshot_dir(&fixture("pr-103-edge-cases")).expect("loads");
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("saved");
        save_snapshot_dir(&original, &out).expect("saves");
        let back = load_snapshot_dir(&out).expect("reloads");
        assert_eq!(
            back,
            PrSnapshot {
                unreadable: Vec::new(),
                ..original.clone()
            }
        );

        let mut no_alerts = original;
        no_alerts.code_scanning = CodeScanning::Unavailable("403".to_owned());
        no_alerts.review_threads = None;
        let out = dir.path().join("partial");
        save_snapshot_dir(&no_alerts, &out).expect("saves");
        assert!(!out.join(CODE_SCANNING_ALERTS).exists());
        assert!(!out.join(REVIEW_THREADS).exists());
    }

    #[test]
    fn a_missing_required_file_is_named() {
        let dir = tempfile::tempdir().expect("tempdir");
        fs::write(dir.path().join(PULL), "{}").expect("write");
        let e = load_snapshot_dir(dir.path()).expect_err("incomplete");
        assert!(format!("{e:#}").contains(REVIEW_COMMENTS), "{e:#}");
    }

    fn texts<'a>(comments: &'a str) -> SnapshotTexts<'a> {
        SnapshotTexts {
            pull: r#"{"number": 5, "base": {"repo": {"full_name": "o/r"}}, "head": {"sha": "abc"}}"#,
            review_comments: comments,
            reviews: "[]",
            issue_comments: "[]",
            ..SnapshotTexts::default()
        }
    }

    #[test]
    fn a_bad_list_element_is_reported_not_fatal() {
        let snapshot = snapshot_from_texts(&texts(
            r#"[{"id": 1, "body": "ok", "path": "a.rs"}, {"id": 2, "body": 17, "user": {"login": "bot[bot]"}}]"#,
        ))
        .expect("parses");
        assert_eq!(snapshot.review_comments.len(), 1);
        assert_eq!(snapshot.unreadable.len(), 1);
        assert_eq!(snapshot.unreadable[0].surface, "review_comments");
        assert_eq!(snapshot.unreadable[0].id, Some(2));
        assert_eq!(snapshot.unreadable[0].login.as_deref(), Some("bot[bot]"));
        assert_eq!(snapshot.repository, "o/r");
        assert_eq!(snapshot.head_sha(), "abc");
    }

    #[test]
    fn a_file_of_the_wrong_kind_is_named() {
        let e = snapshot_from_texts(&texts(r#"{"not": "a list"}"#)).expect_err("object");
        assert!(e.to_string().contains(REVIEW_COMMENTS), "{e}");
        let e = snapshot_from_texts(&texts("[1,")).expect_err("truncated");
        assert!(e.to_string().contains(REVIEW_COMMENTS), "{e}");
        let bad_threads = SnapshotTexts {
            review_threads: Some(r#"{"x": 1}"#),
            ..texts("[]")
        };
        let e = snapshot_from_texts(&bad_threads).expect_err("threads");
        assert!(e.to_string().contains(REVIEW_THREADS), "{e}");
    }

    #[test]
    fn normalised_findings_keep_the_files_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("findings.json");
        fs::write(
            &path,
            r#"[
              {"bot": "semgrep", "finding_id": "s1", "severity": "high", "category": "security", "title": "SQL injection",
               "evidence": {"file": "app/db.py", "line": 12}},
              {"bot": "custom", "category": "bug", "title": "Off by one"},
              {"bot": "semgrep", "finding_id": "s2", "severity": "low", "category": "style", "title": "Long line", "confidence": 0.4}
            ]"#,
        )
        .expect("write");
        let LocalInput::Sources(sources) = load_input(&path).expect("loads") else {
            panic!("expected sources");
        };
        let bots: Vec<_> = sources
            .iter()
            .map(|s| (s.status.bot.as_str(), s.findings.len()))
            .collect();
        assert_eq!(bots, [("semgrep", 1), ("custom", 1), ("semgrep", 1)]);
        assert_eq!(sources[1].findings[0].confidence, 1.0, "the seed's default");
        assert_eq!(sources[0].findings[0].evidence.line, Some(12));

        // The engine sees the file's order, and each bot counts once.
        let outcome = crate::pipeline::analyze(
            None,
            &crate::adapters::BotSelection::Listed(Vec::new()),
            sources,
            &crate::pipeline::AnalysisOptions::default(),
        );
        let names: Vec<&str> = outcome.sources.iter().map(|s| s.bot.as_str()).collect();
        assert_eq!(names, ["semgrep", "custom"]);
        assert_eq!(outcome.sources[0].findings, 2);
        assert_eq!(outcome.bots_ran, 2);
    }

    /// The seed's greedy pass depends on order: regrouping by bot would cluster otherwise.
    #[test]
    fn seed_matching_on_a_findings_file_follows_its_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("findings.json");
        let row = |bot: &str, id: &str, line: u32| {
            format!(
                r#"{{"bot": "{bot}", "finding_id": "{id}", "category": "bug", "title": "t {id}", "evidence": {{"file": "a.py", "line": {line}}}}}"#
            )
        };
        let rows = [
            row("a", "a1", 10),
            row("b", "b1", 20),
            row("c", "c1", 23),
            row("a", "a2", 17),
        ];
        fs::write(&path, format!("[{}]", rows.join(","))).expect("write");
        let LocalInput::Sources(sources) = load_input(&path).expect("loads") else {
            panic!("expected sources");
        };
        let mut options = crate::pipeline::AnalysisOptions::default();
        options.consensus.matching = crate::consensus::Matching::Seed;
        let outcome = crate::pipeline::analyze(
            None,
            &crate::adapters::BotSelection::Listed(Vec::new()),
            sources,
            &options,
        );
        let mut clusters: Vec<Vec<&str>> = outcome
            .findings
            .iter()
            .map(|f| {
                f.consensus
                    .members
                    .iter()
                    .map(|m| m.finding_id.as_str())
                    .collect()
            })
            .collect();
        clusters.sort();
        // In file order: a1 alone; b1 anchors c1 (3 lines) and a2 (3 lines).
        assert_eq!(clusters, [vec!["a1"], vec!["b1", "c1", "a2"]]);
    }

    #[test]
    fn a_bad_finding_names_the_file_and_element() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("findings.json");
        fs::write(&path, r#"[{"bot": "a", "category": "bug", "title": "t"}, {"bot": "a", "severity": "urgent", "category": "bug", "title": "t"}]"#).expect("write");
        let e = load_input(&path).expect_err("bad severity");
        let text = format!("{e:#}");
        assert!(
            text.contains("findings.json") && text.contains("element 1"),
            "{text}"
        );
    }

    #[test]
    fn render_skips_an_unreadable_file_and_lists_it_as_malformed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let good = dir.path().join("good.json");
        fs::write(&good, r#"[{"bot": "a", "category": "bug", "title": "t"}]"#).expect("write");
        let bad = dir.path().join("broken.sarif");
        fs::write(&bad, r#"{"runs": [{"tool": {}}]}"#).expect("write");

        let (snapshot, extra) = load_inputs(&[good, bad.clone()]).expect("the good file is read");
        assert!(snapshot.is_none());
        let states: Vec<_> = extra.iter().map(|s| s.status.status).collect();
        assert_eq!(states, [SourceState::Ok, SourceState::Malformed]);
        assert!(extra[1].status.notes[0].contains("tool.driver.name"));

        let e = load_inputs(std::slice::from_ref(&bad)).expect_err("nothing readable");
        assert!(e.to_string().contains("none of the inputs"), "{e}");
        let e = load_inputs(&[dir.path().join("missing.json")]).expect_err("no such file");
        assert!(e.to_string().contains("missing.json"), "{e}");
    }

    #[test]
    fn other_json_is_refused_with_the_accepted_kinds() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("x.json");
        fs::write(&path, r#"{"hello": 1}"#).expect("write");
        let e = load_input(&path).expect_err("not an input");
        assert!(e.to_string().contains("normalised-findings"), "{e}");
        let e = load_inputs(&[
            fixture("pr-101-three-bots"),
            fixture("pr-102-gemini-copilot"),
        ])
        .expect_err("two PRs");
        assert!(e.to_string().contains("only one"), "{e}");
    }
}
