//! Local inputs and outputs: saved-API-JSON folders, normalised-findings files, SARIF files.
// An edge module: the environment, files and the clock are its job.
#![allow(clippy::disallowed_methods)]

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context};
use serde::de::IgnoredAny;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::api::{
    self, CodeScanning, ListError, PrSnapshot, PullRequest, RepoRef, Signals, Surface, Unreadable,
    Viewer, CODE_SCANNING_SURFACE, REVIEW_THREADS_SURFACE,
};
use crate::github::comment::find_ours;
use crate::identity::{IdentityInput, Prior};
use crate::model::{Coverage, NormalizedFinding, SourceState, SourceStatus};
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
    /// `viewer.json`: who the saving run was (`PrSnapshot::viewer`).
    pub viewer: Option<&'a str>,
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

/// Parse a saved PR. A bad element of a list is kept as `Unreadable`, not fatal; so is a bad
/// thread node, and an optional file (`code_scanning_alerts.json`, `review_threads.json`)
/// that cannot be read at all: that source is then reported as malformed, the rest goes on.
/// A required file that is not JSON (or not the right kind of JSON) is an error naming it:
/// without it the PR is only partly known, and a partial read never decides the gate.
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
    let broken = |surface: &str, error: anyhow::Error| Unreadable {
        surface: surface.to_owned(),
        id: None,
        login: None,
        reason: crate::render::escape::one_line(&format!("{error:#}"), 300),
    };
    let code_scanning = match texts.code_scanning_alerts {
        Some(text) => match list(CODE_SCANNING_ALERTS, text, &mut unreadable) {
            Ok(alerts) => CodeScanning::Alerts(alerts),
            Err(error) => {
                let lost = broken(CODE_SCANNING_SURFACE, error);
                tracing::warn!("{}; code scanning is reported as malformed", lost.reason);
                unreadable.push(lost);
                CodeScanning::Unavailable(format!("{CODE_SCANNING_ALERTS} is unreadable"))
            }
        },
        None => CodeScanning::Unavailable("not in the saved folder".to_owned()),
    };
    let review_threads = match texts.review_threads.map(threads_from_text) {
        None => None,
        Some(Ok((threads, bad))) => {
            unreadable.extend(bad);
            Some(threads)
        }
        Some(Err(error)) => {
            let lost = broken(REVIEW_THREADS_SURFACE, error);
            tracing::warn!(
                "{}; thread state unknown: every comment counts",
                lost.reason
            );
            unreadable.push(lost);
            None
        }
    };
    let signals = signals_from_texts(&texts.signals, &mut unreadable);
    let viewer = texts.viewer.map(viewer_from_text).transpose()?;
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
        viewer,
    })
}

fn threads_from_text(text: &str) -> anyhow::Result<(Vec<api::ReviewThread>, Vec<Unreadable>)> {
    api::read_threads(text).map_err(|err| anyhow!("{REVIEW_THREADS}: {err}"))
}

/// Review-thread state that could not be read (nodes GitHub could not give, a broken
/// `review_threads.json`, a failed query) as a source of its own, so the comment and the
/// report say it: without it, resolved and outdated comments are counted like the others.
pub fn thread_state_problems(snapshot: &PrSnapshot) -> Option<ExtraSource> {
    let lost: Vec<&Unreadable> = snapshot
        .unreadable
        .iter()
        .filter(|u| u.surface == REVIEW_THREADS_SURFACE)
        .collect();
    if lost.is_empty() {
        return None;
    }
    let mut notes = vec![
        "resolved / outdated state unknown for the comments concerned: they are counted".to_owned(),
    ];
    notes.extend(lost.iter().map(|u| u.reason.clone()));
    let status = SourceStatus {
        bot: "review threads".to_owned(),
        status: SourceState::Malformed,
        coverage: Coverage::Absent,
        coverage_signal: String::new(),
        findings: 0,
        skipped: lost.len(),
        notes,
    };
    Some(ExtraSource {
        status,
        findings: Vec::new(),
        tool_verified: false,
    })
}

/// The completion-signal files, each optional. One that cannot be read at all is a surface
/// not read, with the reason (as when the run could not fetch it): the bots that signal
/// there say so in their notes, the rest goes on.
fn signals_from_texts(texts: &SignalTexts<'_>, unreadable: &mut Vec<Unreadable>) -> Signals {
    fn surface<T>(file: &str, read: Option<anyhow::Result<Vec<T>>>) -> Surface<T> {
        match read {
            Some(Ok(items)) => Surface::Read(items),
            Some(Err(error)) => {
                let reason = crate::render::escape::one_line(&format!("{error:#}"), 300);
                tracing::warn!("{reason}; {file} is taken as not read");
                Surface::Unread(reason)
            }
            // Absent: not fetched (no configured bot needed it), as when the run saved it.
            None => Surface::default(),
        }
    }
    // The check-runs endpoint answers an object; a saved folder may keep it whole.
    let check_runs = texts
        .check_runs
        .map(|text| list_in(CHECK_RUNS, text, &["check_runs"], unreadable));
    let check_runs = surface(CHECK_RUNS, check_runs);
    let head_committed_at = match texts.head_commit.map(|text| json(HEAD_COMMIT, text)) {
        Some(Ok(commit)) => commit
            .pointer("/committer/date")
            .or_else(|| commit.pointer("/commit/committer/date"))
            .and_then(Value::as_str)
            .map(str::to_owned),
        Some(Err(error)) => {
            tracing::warn!(
                "{}; the head commit's date is unknown, reactions count for it",
                crate::render::escape::one_line(&format!("{error:#}"), 300)
            );
            None
        }
        None => None,
    };
    let reactions = texts
        .reactions
        .map(|text| list(REACTIONS, text, unreadable));
    let statuses = texts.statuses.map(|text| list(STATUSES, text, unreadable));
    Signals {
        reactions: surface(REACTIONS, reactions),
        check_runs,
        statuses: surface(STATUSES, statuses),
        head_committed_at,
    }
}

fn json(file: &str, text: &str) -> anyhow::Result<Value> {
    serde_json::from_str(text).with_context(|| format!("{file}: not valid JSON"))
}

/// A JSON array, element by element (`api::read_list`, `api::parse_list`): an element that
/// cannot be read, even one nested too deep to be built at all, is reported and the others
/// kept.
fn list<T: serde::de::DeserializeOwned>(
    file: &str,
    text: &str,
    unreadable: &mut Vec<Unreadable>,
) -> anyhow::Result<Vec<T>> {
    list_in(file, text, &[], unreadable)
}

/// `list`, also accepting an object whose members `path` lead to the array.
fn list_in<T: serde::de::DeserializeOwned>(
    file: &str,
    text: &str,
    path: &[&str],
    unreadable: &mut Vec<Unreadable>,
) -> anyhow::Result<Vec<T>> {
    let items = match api::read_list(text, path) {
        Ok(items) => items,
        Err(ListError::NotJson(err)) => {
            return Err(anyhow::Error::new(err).context(format!("{file}: not valid JSON")))
        }
        Err(ListError::NotList(why)) => {
            bail!("{file}: {why} (the endpoint's list, de-paginated)")
        }
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
    let viewer = optional(VIEWER)?;
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
        viewer: viewer.as_deref(),
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
    if let Some(viewer) = &snapshot.viewer {
        write(VIEWER, Ok(viewer_json(viewer).to_string()))?;
    }
    Ok(())
}

/// `viewer.json` as written: `{"login", "type": "Bot" | "User"}`.
fn viewer_json(viewer: &Viewer) -> Value {
    let kind = if viewer.bot { "Bot" } else { "User" };
    serde_json::json!({"login": viewer.login, "type": kind})
}

/// Who a saved folder was fetched as. A `viewer.json` that does not say is an error: which
/// comment is ours (and whose state block is trusted) is not guessed.
fn viewer_from_text(text: &str) -> anyhow::Result<Viewer> {
    let value = json(VIEWER, text)?;
    let login = value
        .get("login")
        .and_then(Value::as_str)
        .filter(|l| !l.trim().is_empty())
        .ok_or_else(|| {
            anyhow!("{VIEWER}: expected {{\"login\": ..., \"type\": \"Bot\" or \"User\"}}")
        })?;
    Ok(Viewer::from_graphql(
        login,
        value.get("type").and_then(Value::as_str),
    ))
}

/// The identity stage's input for `render`: the state block of the sticky comment that was
/// ours in the saved folder (the oldest with the marker on its first line by the identity the
/// folder records in `viewer.json`, else by `github-actions[bot]`, the Actions token's: a
/// state block is trusted only from a known identity), no permission lookups (only the
/// state's cache answers), and `today`.
pub fn offline_identity(
    snapshot: Option<&PrSnapshot>,
    marker: &str,
    today: chrono::NaiveDate,
) -> IdentityInput {
    let ours = snapshot.and_then(|s| {
        let viewer = s.viewer.clone().unwrap_or_else(Viewer::actions);
        find_ours(&s.issue_comments, marker, &viewer)
    });
    IdentityInput {
        prior: Prior::read(ours.and_then(|c| c.body.as_deref())),
        permissions: Default::default(),
        today: Some(today),
        offline: true,
        judged: None,
    }
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
/// object with `runs` or a SARIF `$schema` is SARIF. The file is looked at without building
/// a tree of it (SARIF logs reach hundreds of MB).
pub fn load_input(path: &Path) -> anyhow::Result<LocalInput> {
    if path.is_dir() {
        return load_snapshot_dir(path).map(|s| LocalInput::Snapshot(Box::new(s)));
    }
    let name = path.display().to_string();
    let text = fs::read_to_string(path).with_context(|| format!("cannot read {name}"))?;
    let not_json = || format!("{name}: not valid JSON");
    match text
        .trim_start_matches('\u{feff}')
        .trim_start()
        .as_bytes()
        .first()
    {
        Some(b'[') => {
            let items: Vec<&RawValue> = serde_json::from_str(&text).with_context(not_json)?;
            findings_sources(&name, items).map(LocalInput::Sources)
        }
        Some(b'{')
            if serde_json::from_str::<Probe>(&text)
                .with_context(not_json)?
                .is_sarif() =>
        {
            sarif_sources(&text)
                .map(LocalInput::Sources)
                .map_err(|e| anyhow!("{name}: {e}"))
        }
        _ => {
            serde_json::from_str::<IgnoredAny>(&text).with_context(not_json)?;
            bail!(
                "{name}: neither a saved-API-JSON folder, a normalised-findings array nor a SARIF log"
            )
        }
    }
}

/// The two members of an object that tell a SARIF log; everything else is skipped unbuilt.
#[derive(serde::Deserialize)]
struct Probe {
    runs: Option<IgnoredAny>,
    #[serde(rename = "$schema")]
    schema: Option<Value>,
}

impl Probe {
    fn is_sarif(&self) -> bool {
        self.runs.is_some()
            || self
                .schema
                .as_ref()
                .and_then(Value::as_str)
                .is_some_and(|s| s.to_ascii_lowercase().contains("sarif"))
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
            Ok(LocalInput::Snapshot(s)) => {
                extra.extend(thread_state_problems(&s));
                snapshot = Some(*s);
            }
            Ok(LocalInput::Sources(sources)) => extra.extend(sources),
            Err(error) if path.is_file() => {
                tracing::warn!(
                    "skipping {}: {}",
                    path.display(),
                    crate::render::escape::one_line(&format!("{error:#}"), 500)
                );
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

/// Normalised findings, one source per bot in order of first appearance. A bad element is
/// an error naming it: this file is written by a tool, not a bot, so it should be exact.
pub fn findings_sources(name: &str, items: Vec<&RawValue>) -> anyhow::Result<Vec<ExtraSource>> {
    // One source per run of consecutive findings of a bot, so that the file's order
    // reaches the engine; `analyze` counts each bot once.
    let mut runs: Vec<(String, Vec<NormalizedFinding>)> = Vec::new();
    for (index, item) in items.into_iter().enumerate() {
        let finding: NormalizedFinding = serde_json::from_str(item.get())
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

/// A hand-labelled real-PR scenario: a saved-API-JSON folder with its `expected.json`
/// (tests/fixtures/LABELLING.md), read as a default run reads it and with every outdated
/// and resolved comment kept.
pub fn load_labelled(dir: &Path) -> anyhow::Result<crate::learn::LabelledPr> {
    use crate::adapters::{extract_selected, BotSelection, ExtractOptions};
    use crate::learn::{Count, Expected, LabelledPr, View};
    let path = dir.join("expected.json");
    let text =
        fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let expected: Expected = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a labelled scenario", path.display()))?;
    let others = other_labellings(dir)?;
    let snapshot = load_snapshot_dir(dir)?;
    let view = |keep: bool, count: Count| {
        let options = ExtractOptions {
            include_outdated: keep,
            include_resolved: keep,
        };
        let findings = extract_selected(&snapshot, &BotSelection::default(), &options).findings;
        View::label(findings, &expected, &others, count)
    };
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(LabelledPr {
        name,
        repository: expected.repository(),
        open: view(false, Count::Open),
        all: view(true, Count::All),
    })
}

/// Other readers' labellings of a scenario: its `labels-*.json` files, by name.
fn other_labellings(dir: &Path) -> anyhow::Result<Vec<crate::learn::Expected>> {
    let mut paths: Vec<PathBuf> = fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            path.file_name()
                .map(|n| n.to_string_lossy())
                .is_some_and(|n| n.starts_with("labels-") && n.ends_with(".json"))
        })
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|path| {
            let text = fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            serde_json::from_str(&text)
                .with_context(|| format!("{} is not a labelling", path.display()))
        })
        .collect()
}

/// Write `items` as JSON Lines: one compact JSON value a line.
pub fn write_jsonl<T: serde::Serialize>(path: &Path, items: &[T]) -> anyhow::Result<()> {
    let mut text = String::new();
    for item in items {
        text.push_str(&serde_json::to_string(item)?);
        text.push('\n');
    }
    fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// The labelled sets under `fixtures`: its folders named `real*`, sorted.
pub fn labelled_sets(fixtures: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut sets = Vec::new();
    for entry in
        fs::read_dir(fixtures).with_context(|| format!("cannot list {}", fixtures.display()))?
    {
        let path = entry?.path();
        let named_real = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("real"));
        if path.is_dir() && named_real {
            sets.push(path);
        }
    }
    sets.sort();
    Ok(sets)
}

/// Every labelled scenario in the given set folders (each holds scenario folders), sorted
/// by name.
pub fn load_labelled_sets(sets: &[PathBuf]) -> anyhow::Result<Vec<crate::learn::LabelledPr>> {
    let mut dirs = Vec::new();
    for set in sets {
        for entry in fs::read_dir(set).with_context(|| format!("cannot list {}", set.display()))? {
            let path = entry?.path();
            if path.join("expected.json").is_file() {
                dirs.push(path);
            }
        }
    }
    dirs.sort_by_key(|d| d.file_name().map(|n| n.to_owned()));
    dirs.iter().map(|d| load_labelled(d)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_viewer_is_saved_with_the_folder_and_read_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut snapshot = load_snapshot_dir(&fixture("pr-101-three-bots")).expect("loads");
        assert_eq!(snapshot.viewer, None, "the fixture does not say");
        for viewer in [
            Viewer::from_graphql("octo-app", Some("Bot")),
            Viewer::from_graphql("alice", Some("User")),
        ] {
            snapshot.viewer = Some(viewer.clone());
            save_snapshot_dir(&snapshot, dir.path()).expect("saved");
            let back = load_snapshot_dir(dir.path()).expect("read");
            assert_eq!(back.viewer, Some(viewer));
        }
        let text = fs::read_to_string(dir.path().join(VIEWER)).expect("written");
        assert_eq!(
            serde_json::from_str::<Value>(&text).expect("JSON"),
            serde_json::json!({"login": "alice", "type": "User"})
        );
        fs::write(dir.path().join(VIEWER), "{\"type\": \"User\"}").expect("written");
        let err = format!("{:#}", load_snapshot_dir(dir.path()).unwrap_err());
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

    /// `{"a": {"a": ... 1 ...}}`, `depth` objects deep: past the JSON reader's limit (128).
    fn deep(depth: usize) -> String {
        format!("{}1{}", "{\"a\": ".repeat(depth), "}".repeat(depth))
    }

    #[test]
    fn an_element_nested_too_deep_loses_only_itself() {
        let comments = format!(
            r#"[{{"id": 1, "body": "ok", "path": "a.rs"}},
                {{"id": 2, "body": "deep", "user": {{"login": "bot[bot]"}}, "x": {}}},
                {{"id": 3, "body": "also ok", "path": "b.rs"}}]"#,
            deep(5_000)
        );
        let runs = format!(
            r#"{{"total_count": 2, "check_runs": [{}, {{"id": 7, "name": "ci", "status": "completed"}}]}}"#,
            deep(500)
        );
        let threads = format!(
            r#"{{"data": {{"repository": {{"pullRequest": {{"reviewThreads": {{"nodes": [
                {{"id": "T1", "isResolved": true, "comments": {{"nodes": [{{"fullDatabaseId": "1"}}]}}}},
                {{"id": "T2", "x": {}}}]}}}}}}}}}}"#,
            deep(300)
        );
        let snapshot = snapshot_from_texts(&SnapshotTexts {
            review_threads: Some(&threads),
            signals: SignalTexts {
                check_runs: Some(&runs),
                ..SignalTexts::default()
            },
            ..texts(&comments)
        })
        .expect("the folder is read");
        let ids: Vec<u64> = snapshot.review_comments.iter().map(|c| c.id).collect();
        assert_eq!(ids, [1, 3], "the rest of the file is kept");
        let lost: Vec<_> = snapshot
            .unreadable
            .iter()
            .map(|u| (u.surface.as_str(), u.id, u.login.as_deref()))
            .collect();
        assert_eq!(
            lost,
            [
                ("review_comments", Some(2), Some("bot[bot]")),
                (REVIEW_THREADS_SURFACE, None, None),
                ("check_runs", None, None),
            ]
        );
        assert!(snapshot.unreadable[0].reason.contains("128 levels"));
        assert!(snapshot.unreadable[1].reason.starts_with("thread node 1:"));
        assert_eq!(snapshot.signals.check_runs.items().len(), 1);
        assert_eq!(snapshot.review_threads.as_ref().map(Vec::len), Some(1));
    }

    #[test]
    fn a_file_of_the_wrong_kind_is_named() {
        let e = snapshot_from_texts(&texts(r#"{"not": "a list"}"#)).expect_err("object");
        assert!(e.to_string().contains(REVIEW_COMMENTS), "{e}");
        let e = snapshot_from_texts(&texts("[1,")).expect_err("truncated");
        assert!(e.to_string().contains(REVIEW_COMMENTS), "{e}");
        let e = snapshot_from_texts(&SnapshotTexts {
            reviews: "nope",
            ..texts("[]")
        })
        .expect_err("a required file");
        assert!(e.to_string().contains(REVIEWS), "{e}");
    }

    #[test]
    fn a_broken_optional_file_is_reported_and_the_rest_goes_on() {
        let comments = r#"[{"id": 1, "body": "ok", "path": "a.rs"}]"#;
        for (threads, alerts) in [
            (Some(r#"{"x": 1}"#), None),
            (Some("[1,"), None),
            (None, Some("{ not json")),
            (None, Some(r#"{"an": "object"}"#)),
        ] {
            let snapshot = snapshot_from_texts(&SnapshotTexts {
                review_threads: threads,
                code_scanning_alerts: alerts,
                ..texts(comments)
            })
            .expect("the folder is still read");
            assert_eq!(snapshot.review_comments.len(), 1);
            assert_eq!(snapshot.unreadable.len(), 1, "{:?}", snapshot.unreadable);
            let named = if threads.is_some() {
                REVIEW_THREADS
            } else {
                CODE_SCANNING_ALERTS
            };
            assert!(
                snapshot.unreadable[0].reason.contains(named),
                "{:?}",
                snapshot.unreadable
            );
            if threads.is_some() {
                assert_eq!(snapshot.review_threads, None);
                let source = thread_state_problems(&snapshot).expect("reported");
                assert_eq!(source.status.status, SourceState::Malformed);
                assert_eq!(source.status.bot, "review threads");
            } else {
                assert_eq!(snapshot.unreadable[0].surface, CODE_SCANNING_SURFACE);
                assert!(matches!(
                    snapshot.code_scanning,
                    CodeScanning::Unavailable(_)
                ));
            }
        }
    }

    #[test]
    fn a_broken_signal_file_is_a_surface_not_read_with_its_reason() {
        let snapshot = snapshot_from_texts(&SnapshotTexts {
            signals: SignalTexts {
                reactions: Some("{ truncated"),
                check_runs: Some(r#"{"total_count": 1, "check_runs": 7}"#),
                statuses: Some(r#"[{"id": 3, "state": "success", "context": "ci"}]"#),
                head_commit: Some("nope"),
            },
            ..texts("[]")
        })
        .expect("the folder is still read");
        let signals = &snapshot.signals;
        let reason = signals.reactions.unread_reason().expect("not read");
        assert!(reason.contains(REACTIONS), "{reason}");
        let reason = signals.check_runs.unread_reason().expect("not read");
        assert!(reason.contains(CHECK_RUNS), "{reason}");
        assert_eq!(signals.statuses.items().len(), 1, "the others are read");
        assert_eq!(signals.head_committed_at, None);
    }

    #[test]
    fn one_bad_thread_node_loses_only_itself() {
        let threads = r#"[
            {"id": "T1", "isResolved": true, "comments": {"nodes": [{"fullDatabaseId": "3000000001"}]}},
            {"id": "T2", "isResolved": "maybe"},
            null
        ]"#;
        let snapshot = snapshot_from_texts(&SnapshotTexts {
            review_threads: Some(threads),
            ..texts("[]")
        })
        .expect("read");
        let kept = snapshot.review_threads.as_ref().expect("threads");
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].comments.nodes[0].database_id, Some(3_000_000_001));
        assert_eq!(snapshot.unreadable.len(), 2);
        let source = thread_state_problems(&snapshot).expect("reported");
        assert_eq!(source.status.skipped, 2);
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
