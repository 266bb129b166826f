//! Bot adapters: one file per bot, each a pure function from one PR's API JSON to
//! normalised findings. This module holds the trait, the registry and `extract`, which runs
//! the configured adapters and applies what is common to all: thread state (resolved /
//! outdated), disputes in reply threads, unreadable objects and the source's status.
//!
//! Layout: `bots/` holds one file per bot and the registry (`bots/mod.rs`), `read/` the
//! readers they share, `sarif.rs` SARIF files as extra sources. Adding a bot: one file in
//! `bots/`, its registry entry in `bots/mod.rs`, a fixture test (docs/adapters.md).

mod bots;
mod coverage;
#[cfg(test)]
mod fixture;
pub mod read;
pub mod sarif;
mod unread;

pub use coverage::{last_activity, needed_surfaces};
pub use read::common::{
    also_appears, anchor, category_for, detail_after_title, detail_from, is_own_sticky,
    line_ranges, provenance, review_provenance, Activity, Anchor, Identity, DETAIL_CHARS,
    TITLE_CHARS,
};
pub use read::signals::{Meaning, Needs, Signal};
pub use read::{markdown, taxonomy};
pub use unread::{unread_bots, NOT_REVIEWERS};

use std::borrow::Cow;

use crate::api::PrSnapshot;
use crate::model::{Category, Coverage, Dispute, NormalizedFinding, SourceState, SourceStatus};
use read::common::signal;
use read::threads::ThreadIndex;

/// `my-bot[bot]` -> `my-bot`: the name a login's findings and status carry.
pub(crate) fn bot_name(login: &str) -> String {
    let login = login.trim();
    login.strip_suffix("[bot]").unwrap_or(login).to_owned()
}

/// One configured bot source: which adapter reads it and under which logins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceConfig {
    /// Adapter id (`coderabbit`, `sourcery`, ..., `generic`).
    pub adapter: String,
    /// Logins the adapter recognises; empty = the adapter's defaults.
    pub logins: Vec<String>,
}

impl SourceConfig {
    /// The logins this source reads with `adapter`: its own, or the adapter's defaults.
    pub fn logins_for(&self, adapter: &dyn Adapter) -> Vec<String> {
        if self.logins.is_empty() {
            adapter
                .default_logins()
                .iter()
                .map(|l| (*l).to_owned())
                .collect()
        } else {
            self.logins.clone()
        }
    }
}

/// What an adapter needs besides the snapshot.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExtractOptions {
    /// Keep comments whose line is no longer in the diff.
    pub include_outdated: bool,
    /// Keep comments in review threads marked resolved.
    pub include_resolved: bool,
}

/// What one adapter made of one PR.
#[derive(Debug, Clone, PartialEq)]
pub struct AdapterOutput {
    /// Every finding the bot posted, resolved and outdated ones included: `extract` filters
    /// them with the thread state and the options.
    pub findings: Vec<NormalizedFinding>,
    pub coverage: Coverage,
    /// One reason per comment that could not be read and was skipped.
    pub malformed: Vec<String>,
    pub notes: Vec<String>,
    /// `finding_id`s the bot itself marked addressed or withdrawn (CodeRabbit's
    /// `review_comment_addressed`): treated like findings in resolved threads.
    pub withdrawn: Vec<String>,
    /// How many of the bot's objects were read (findings or not: summaries, notices...).
    /// With `malformed`, decides the status: malformed only when nothing could be read.
    pub readable: usize,
    /// What decided `coverage` (`set_coverage` fills it); `None`: a default by coverage.
    pub coverage_signal: Option<String>,
}

impl AdapterOutput {
    /// The coverage and the signal that decided it, from the bot's activity.
    pub fn set_coverage(&mut self, activity: &Activity) {
        self.coverage = activity.coverage();
        self.coverage_signal = Some(activity.signal());
    }
}

impl Default for AdapterOutput {
    fn default() -> Self {
        AdapterOutput {
            findings: Vec::new(),
            coverage: Coverage::Absent,
            malformed: Vec::new(),
            notes: Vec::new(),
            withdrawn: Vec::new(),
            readable: 0,
            coverage_signal: None,
        }
    }
}

/// What every adapter is: an id, the logins it answers to, and a pure parser.
pub trait Adapter: Sync {
    fn id(&self) -> &'static str;
    fn default_logins(&self) -> &'static [&'static str];
    /// GitHub user ids of the bot, matched besides the logins (stable across surfaces).
    fn user_ids(&self) -> &'static [u64] {
        &[]
    }
    /// Snapshot surfaces whose unreadable objects belong to this source whatever their login
    /// (objects without an author, such as code-scanning alerts).
    fn owned_surfaces(&self) -> &'static [&'static str] {
        &[]
    }
    /// Each login is a bot of its own, named after the login (the `generic` adapter: two
    /// unrelated bots mapped to it must count as two in the agreement denominator).
    fn source_per_login(&self) -> bool {
        false
    }
    /// How the bot shows it finished, declined or started besides its comments: a reaction,
    /// its app's check run, a commit status (`Signal`). `extract` reads them; the fetch asks
    /// for those surfaces only when a configured bot declares them.
    fn signals(&self) -> &'static [Signal] {
        &[]
    }
    /// Its `parse` reads its declared surfaces for more than coverage (Claude Code Review's
    /// check run counts the findings GitHub refused inline): they are fetched whenever the
    /// source is configured, even when its comments already show it reviewed the head.
    fn reads_own_signals(&self) -> bool {
        false
    }
    /// The service has shut down (Korbit): its old comments are read only when `bots`
    /// lists it, never by default.
    fn retired(&self) -> bool {
        false
    }
    /// Read the bot's objects of one PR. `logins` is never empty (defaults filled in).
    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput;
}

/// The registered adapters, in registry order.
pub fn registry() -> &'static [&'static dyn Adapter] {
    bots::REGISTRY
}

fn find_adapter(id: &str) -> Option<&'static dyn Adapter> {
    bots::REGISTRY.iter().copied().find(|a| a.id() == id)
}

/// The findings of all configured sources and each source's status.
#[derive(Debug, Clone, PartialEq)]
pub struct Extraction {
    pub findings: Vec<NormalizedFinding>,
    pub sources: Vec<SourceStatus>,
}

/// Every built-in adapter the `bots` default considers, with its default logins: all but
/// the retired ones and those without default logins (`generic` runs only when mapped to a
/// login). The default then keeps those that posted on the PR (`BotSelection::Posted`).
pub fn default_sources() -> Vec<SourceConfig> {
    bots::REGISTRY
        .iter()
        .filter(|a| !a.default_logins().is_empty() && !a.retired())
        .map(|a| SourceConfig {
            adapter: a.id().to_owned(),
            logins: Vec::new(),
        })
        .collect()
}

/// Whether a configured source owns `surface` (`code_scanning_alerts`: code scanning is
/// worth reading).
pub fn owns_surface(sources: &[SourceConfig], surface: &str) -> bool {
    sources
        .iter()
        .any(|s| find_adapter(&s.adapter).is_some_and(|a| a.owned_surfaces().contains(&surface)))
}

/// Whether adapter `id` makes each of its logins a source of its own (`generic`).
pub fn source_per_login(id: &str) -> bool {
    find_adapter(id).is_some_and(|a| a.source_per_login())
}

/// The `bots` input: which sources to read. The action and `render` resolve it the same
/// way, on the PR snapshot (`extract_selected`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BotSelection {
    /// `bots` unset: the built-in bots (`default_sources`) that posted on the PR, on any
    /// surface read (an inline comment, review, issue comment or code-scanning analysis
    /// that counts as a review, a notice or a finding, or an object that could not be
    /// read), plus `also`: ids listed even when silent (the `required-bots`), so that only
    /// those are ever shown as absent.
    Posted { also: Vec<String> },
    /// `bots` set: exactly these sources; a silent one is listed as absent.
    Listed(Vec<SourceConfig>),
}

impl Default for BotSelection {
    fn default() -> Self {
        BotSelection::Posted { also: Vec::new() }
    }
}

impl BotSelection {
    /// The default plus `ids`, which are read and listed even when they did not post.
    pub fn posted_plus<I, S>(ids: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        BotSelection::Posted {
            also: ids.into_iter().map(Into::into).collect(),
        }
    }

    /// Add `ids` to the sources that are always listed (`Posted`), or to the list itself
    /// (`Listed`, with their default logins) when they are not in it yet.
    pub fn require<S: AsRef<str>>(&mut self, ids: &[S]) {
        for id in ids.iter().map(AsRef::as_ref) {
            match self {
                BotSelection::Posted { also } if !also.iter().any(|a| a == id) => {
                    also.push(id.to_owned());
                }
                BotSelection::Listed(sources) if !sources.iter().any(|s| s.adapter == id) => {
                    sources.push(SourceConfig {
                        adapter: id.to_owned(),
                        logins: Vec::new(),
                    });
                }
                _ => {}
            }
        }
    }
}

/// Run the selected adapters over one PR. `Posted` runs every candidate and keeps the
/// sources that posted something (or are in `also`): the others are left out, not shown
/// as absent.
pub fn extract_selected(
    snapshot: &PrSnapshot,
    selection: &BotSelection,
    options: &ExtractOptions,
) -> Extraction {
    let also = match selection {
        BotSelection::Listed(sources) => return extract(snapshot, sources, options),
        BotSelection::Posted { also } => also,
    };
    let wanted = |id: &str| also.iter().any(|a| a == id);
    run_sources(
        snapshot,
        &posted_candidates(also),
        options,
        |source, status| has_posted(status) || wanted(&source.adapter),
    )
}

impl BotSelection {
    /// Every source this selection runs the adapters of: the listed ones, or (unset) every
    /// candidate of the default and `also` (`extract_selected` then keeps those that posted;
    /// the others were read too and found nothing). A bot account none of them recognises
    /// is one nobody reads (`unread_bots`).
    pub fn read_sources(&self) -> Vec<SourceConfig> {
        match self {
            BotSelection::Listed(sources) => sources.clone(),
            BotSelection::Posted { also } => posted_candidates(also),
        }
    }

    /// The sources whose completion a run waits for and reads signals for, on this snapshot:
    /// the listed ones; unset, `also` and the candidates that posted so far (as
    /// `extract_selected` keeps them) or show that they started (a check run in progress, a
    /// "working" comment). A bot that has not shown up yet is unknown: nothing waits for it.
    pub fn active_sources(&self, snapshot: &PrSnapshot) -> Vec<SourceConfig> {
        let also = match self {
            BotSelection::Listed(sources) => return sources.clone(),
            BotSelection::Posted { also } => also,
        };
        let candidates = posted_candidates(also);
        let shown = extract(snapshot, &candidates, &ExtractOptions::default()).sources;
        candidates
            .into_iter()
            .filter(|source| {
                also.contains(&source.adapter)
                    || shown.iter().any(|s| {
                        s.bot == source.adapter
                            && (has_posted(s) || s.coverage_signal != signal::NOTHING)
                    })
            })
            .collect()
    }
}

/// The sources `BotSelection::Posted` tries: every built-in bot with default logins except
/// the retired ones, plus the `also` ids (with their default logins; an unknown id is kept
/// so that it is reported).
fn posted_candidates(also: &[String]) -> Vec<SourceConfig> {
    let wanted = |id: &str| also.iter().any(|a| a == id);
    let mut sources: Vec<SourceConfig> = bots::REGISTRY
        .iter()
        .filter(|a| (!a.default_logins().is_empty() && !a.retired()) || wanted(a.id()))
        .map(|a| SourceConfig {
            adapter: a.id().to_owned(),
            logins: Vec::new(),
        })
        .collect();
    sources.extend(
        also.iter()
            .filter(|id| !is_known(id))
            .map(|id| SourceConfig {
                adapter: id.clone(),
                logins: Vec::new(),
            }),
    );
    sources
}

/// The bot left something on the PR that counts: a review or a notice, a finding or an
/// unreadable object (chit-chat alone, such as a reply, leaves it absent).
fn has_posted(status: &SourceStatus) -> bool {
    status.coverage != Coverage::Absent || status.findings > 0 || status.skipped > 0
}

/// Whether `id` names a built-in adapter (for validating the `bots` input).
pub fn is_known(id: &str) -> bool {
    find_adapter(id).is_some()
}

/// The snapshot as adapters see it:
/// - without our own sticky comment (`is_own_sticky`: the marker on the first line, our
///   identity), which is never a finding even when a `generic` source watches the account
///   that posts it (often `github-actions[bot]`); a bot comment that quotes the marker stays;
/// - without `DISMISSED` reviews: a dismissed review neither shows that its bot reviewed nor
///   raises findings from its body (the one place every adapter's review reading goes
///   through). Its inline comments stay: bots such as Sourcery dismiss their own previous
///   review on each push, which says nothing about those findings (thread state does).
fn adapter_view(snapshot: &PrSnapshot) -> Cow<'_, PrSnapshot> {
    let viewer = snapshot.viewer.as_ref();
    let sticky = |body: Option<&str>, user: Option<&crate::api::User>| {
        body.is_some_and(|b| is_own_sticky(b, user, viewer))
    };
    let any = snapshot.reviews.iter().any(is_dismissed)
        || snapshot
            .issue_comments
            .iter()
            .any(|c| sticky(c.body.as_deref(), c.user.as_ref()))
        || snapshot
            .reviews
            .iter()
            .any(|r| sticky(r.body.as_deref(), r.user.as_ref()));
    if !any {
        return Cow::Borrowed(snapshot);
    }
    let mut filtered = snapshot.clone();
    filtered
        .issue_comments
        .retain(|c| !sticky(c.body.as_deref(), c.user.as_ref()));
    filtered
        .reviews
        .retain(|r| !is_dismissed(r) && !sticky(r.body.as_deref(), r.user.as_ref()));
    Cow::Owned(filtered)
}

fn is_dismissed(review: &crate::api::Review) -> bool {
    review
        .state
        .as_deref()
        .is_some_and(|s| s.eq_ignore_ascii_case("DISMISSED"))
}

/// Run the configured adapters over one PR.
pub fn extract(
    snapshot: &PrSnapshot,
    sources: &[SourceConfig],
    options: &ExtractOptions,
) -> Extraction {
    run_sources(snapshot, sources, options, |_, _| true)
}

/// `extract`, keeping a source only when `keep(source, its status)`.
fn run_sources(
    snapshot: &PrSnapshot,
    sources: &[SourceConfig],
    options: &ExtractOptions,
    keep: impl Fn(&SourceConfig, &SourceStatus) -> bool,
) -> Extraction {
    let snapshot = &*adapter_view(snapshot);
    let threads = ThreadIndex::new(snapshot);
    let mut findings = Vec::new();
    let mut statuses = Vec::new();
    for source in sources {
        let Some(adapter) = find_adapter(&source.adapter) else {
            statuses.push(SourceStatus {
                bot: source.adapter.clone(),
                status: SourceState::Missing,
                coverage: Coverage::Absent,
                coverage_signal: String::new(),
                findings: 0,
                skipped: 0,
                notes: vec![format!("no built-in adapter named `{}`", source.adapter)],
            });
            continue;
        };
        let logins = source.logins_for(adapter);
        let runs: Vec<(String, Vec<String>)> = if adapter.source_per_login() && !logins.is_empty() {
            logins
                .into_iter()
                .map(|login| (bot_name(&login), vec![login]))
                .collect()
        } else {
            vec![(adapter.id().to_owned(), logins)]
        };
        for (name, logins) in runs {
            let identity = Identity::new(&logins, adapter.user_ids());
            let mut output = adapter.parse(snapshot, &logins);
            for finding in &mut output.findings {
                finding.bot.clone_from(&name);
            }
            let owner = Owner {
                identity: &identity,
                surfaces: adapter.owned_surfaces(),
                signals: adapter.signals(),
            };
            let (kept, status) = finish_source(&name, output, snapshot, &threads, &owner, options);
            if !keep(source, &status) {
                continue;
            }
            findings.extend(kept);
            statuses.push(status);
        }
    }
    attach_anchored_code(snapshot, &mut findings);
    Extraction {
        findings,
        sources: statuses,
    }
}

/// Each finding of an inline comment carries the code the comment is anchored on
/// (`evidence.snippet`, from its `diff_hunk`) unless its adapter set one: what matching
/// compares and the judge is shown.
fn attach_anchored_code(snapshot: &PrSnapshot, findings: &mut [NormalizedFinding]) {
    let by_id: std::collections::HashMap<u64, &crate::api::ReviewComment> = snapshot
        .review_comments
        .iter()
        .filter(|c| c.diff_hunk.is_some())
        .map(|c| (c.id, c))
        .collect();
    if by_id.is_empty() {
        return;
    }
    for finding in findings {
        let comment = finding.provenance.comment_id.and_then(|id| by_id.get(&id));
        if let (Some(comment), true) = (comment, finding.evidence.snippet.is_empty()) {
            finding.evidence.snippet = comment.anchored_code();
        }
    }
}

/// Who a source is: its accounts, the surfaces it owns outright, its completion signals.
struct Owner<'a> {
    identity: &'a Identity,
    surfaces: &'static [&'static str],
    signals: &'static [Signal],
}

impl Owner<'_> {
    /// The unreadable object is this source's: by its author, or by the surface it came from.
    fn owns(&self, item: &crate::api::Unreadable) -> bool {
        self.surfaces.contains(&item.surface.as_str())
            || item
                .login
                .as_deref()
                .is_some_and(|l| self.identity.matches_login(l))
    }
}

/// The common part of every source: unreadable objects, thread state, disputes, status.
fn finish_source(
    bot: &str,
    mut output: AdapterOutput,
    snapshot: &PrSnapshot,
    threads: &ThreadIndex<'_>,
    owner: &Owner<'_>,
    options: &ExtractOptions,
) -> (Vec<NormalizedFinding>, SourceStatus) {
    let identity = owner.identity;
    for item in &snapshot.unreadable {
        if owner.owns(item) {
            let id = item.id.map_or_else(|| "?".to_owned(), |id| id.to_string());
            output
                .malformed
                .push(format!("{} #{id}: {}", item.surface, item.reason));
        }
    }
    let readable = output.readable.max(output.findings.len());
    let candidates = output.findings.len();
    let (coverage, coverage_signal) =
        coverage::coverage_of(&output, snapshot, owner.identity, owner.signals);
    output.coverage = coverage;
    if !output.coverage.ran() {
        // Why a declared signal could not be read: a missing permission, an old saved folder.
        for (surface, reason) in coverage::unread_surfaces(snapshot, owner.signals) {
            output.notes.push(format!("{surface} not read: {reason}"));
        }
    }
    let hinted = output.notes.iter().any(|n| n.contains("sunset"));
    if coverage_signal.starts_with("notice: sunset") && !hinted {
        output
            .notes
            .push("its service was sunset: remove it from the bots input".to_owned());
    }

    let (mut resolved, mut outdated) = (0usize, 0usize);
    let mut kept = Vec::with_capacity(candidates);
    for mut finding in std::mem::take(&mut output.findings) {
        // Untrusted text: one line, bounded, whatever the adapter did.
        finding.title =
            markdown::shorten(&markdown::collapse_whitespace(&finding.title), TITLE_CHARS);
        finding.detail = markdown::shorten(&finding.detail, DETAIL_CHARS + 80);
        respect_severity(&mut finding);
        let state = threads.state(finding.provenance.comment_id);
        let is_resolved = state.resolved || output.withdrawn.contains(&finding.finding_id);
        if is_resolved && !options.include_resolved {
            resolved += 1;
            continue;
        }
        if state.outdated && !options.include_outdated {
            outdated += 1;
            continue;
        }
        if let Some(comment_id) = finding.provenance.comment_id {
            for (by, reason) in threads.disputes(comment_id, identity) {
                if !finding
                    .disputes
                    .iter()
                    .any(|d| d.by == by && d.reason == reason)
                {
                    finding.disputes.push(Dispute { by, reason });
                }
            }
        }
        kept.push(finding);
    }

    let mut notes = output.notes;
    if resolved + outdated > 0 {
        notes.push(dropped_note(resolved, outdated));
    }
    let skipped = output.malformed.len();
    notes.extend(output.malformed.iter().map(|r| format!("skipped: {r}")));
    let status = if skipped > 0 && readable == 0 {
        SourceState::Malformed
    } else if !output.coverage.ran() {
        SourceState::Missing
    } else {
        SourceState::Ok
    };
    let status = SourceStatus {
        bot: bot.to_owned(),
        status,
        coverage: output.coverage,
        coverage_signal,
        findings: kept.len(),
        skipped,
        notes,
    };
    (kept, status)
}

/// A bot's own high or critical rating outranks style keywords (taxonomy::respect_severity),
/// for every adapter alike.
fn respect_severity(finding: &mut NormalizedFinding) {
    let (Some(source), true) = (
        finding.provenance.category_source,
        finding.category == Category::Style.as_str(),
    ) else {
        return;
    };
    let text = format!("{}\n{}", finding.title, finding.detail);
    let (category, source) =
        taxonomy::respect_severity(Category::Style, source, finding.severity, &text);
    finding.category = category.as_str().to_owned();
    finding.provenance.category_source = Some(source);
}

fn dropped_note(resolved: usize, outdated: usize) -> String {
    let mut parts = Vec::new();
    if resolved > 0 {
        parts.push(format!("{resolved} resolved (include-resolved keeps them)"));
    }
    if outdated > 0 {
        parts.push(format!("{outdated} outdated (include-outdated keeps them)"));
    }
    format!("not counted: {}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{ReviewComment, Unreadable, User};

    fn bot(login: &str) -> Option<User> {
        Some(User {
            login: login.to_owned(),
            id: 1,
            kind: "Bot".to_owned(),
        })
    }

    fn source(id: &str) -> SourceConfig {
        SourceConfig {
            adapter: id.to_owned(),
            logins: Vec::new(),
        }
    }

    #[test]
    fn registry_and_defaults() {
        for id in ["coderabbit", "sourcery", "gh-advanced-security", "copilot"] {
            assert!(is_known(id), "{id}");
            assert!(default_sources().iter().any(|s| s.adapter == id));
        }
        assert!(!is_known("nope"));
        let x = extract(
            &PrSnapshot::default(),
            &[source("nope")],
            &ExtractOptions::default(),
        );
        assert_eq!(x.sources[0].status, SourceState::Missing);
        assert!(x.sources[0].notes[0].contains("nope"));
    }

    #[test]
    fn malformed_only_when_nothing_was_readable() {
        let mut snapshot = PrSnapshot::default();
        snapshot.unreadable.push(Unreadable {
            surface: "review_comments".into(),
            id: Some(5),
            login: Some("sourcery-ai[bot]".into()),
            reason: "invalid type: string, expected u64".into(),
        });
        let x = extract(&snapshot, &[source("sourcery")], &ExtractOptions::default());
        let s = &x.sources[0];
        assert_eq!((s.status, s.skipped), (SourceState::Malformed, 1));
        assert!(s.notes[0].contains("review_comments #5"));

        snapshot.review_comments.push(ReviewComment {
            id: 6,
            user: bot("sourcery-ai[bot]"),
            body: "**issue (bug_risk):** Off by one.".into(),
            path: Some("a.py".into()),
            line: Some(3),
            ..ReviewComment::default()
        });
        let x = extract(&snapshot, &[source("sourcery")], &ExtractOptions::default());
        let s = &x.sources[0];
        assert_eq!((s.status, s.skipped, s.findings), (SourceState::Ok, 1, 1));
        assert_eq!(s.coverage, Coverage::Reviewed);
    }

    #[test]
    fn null_tags_parse_and_unreadable_alerts_blame_code_scanning() {
        use crate::api::{parse_list, CodeScanning, CodeScanningAlert, CODE_SCANNING_SURFACE};
        // GitHub's schema allows `rule.tags: null`: the alert must still be read.
        let alerts = vec![
            serde_json::json!({"number": 3, "state": "open", "rule": {"id": "py/x", "tags": null},
                "tool": {"name": "CodeQL"}, "most_recent_instance": {"message": null,
                "location": {"path": "a.py", "start_line": 2}}}),
            serde_json::json!({"number": "four"}),
        ];
        let (good, bad) = parse_list::<CodeScanningAlert>(CODE_SCANNING_SURFACE, alerts);
        assert_eq!(good.len(), 1, "{bad:?}");
        assert!(good[0].rule.tags.is_empty());
        assert_eq!(bad.len(), 1);
        assert_eq!(bad[0].login, None, "alerts carry no author");

        // The unreadable alert is counted against code scanning, not lost.
        let snapshot = PrSnapshot {
            code_scanning: CodeScanning::Alerts(good),
            unreadable: bad,
            ..PrSnapshot::default()
        };
        let x = extract(
            &snapshot,
            &[source("gh-advanced-security"), source("sourcery")],
            &ExtractOptions::default(),
        );
        let s = &x.sources[0];
        assert_eq!(
            (s.skipped, s.findings, s.status),
            (1, 1, SourceState::Ok),
            "{s:?}"
        );
        assert!(x.sources[0]
            .notes
            .iter()
            .any(|n| n.contains(CODE_SCANNING_SURFACE)));
        assert_eq!(x.sources[1].skipped, 0, "other sources are not blamed");
    }

    #[test]
    fn own_sticky_is_never_read_by_adapters() {
        use crate::api::{IssueComment, Review, Viewer};
        let sticky =
            "<!-- review-bot-ack -->\n## Review consensus\n\nRate limit exceeded by one bot.";
        let nitpicks = "<details>\n<summary>🧹 Nitpick comments (1)</summary><blockquote>\n\n\
<details>\n<summary>app/a.py (1)</summary><blockquote>\n\n`3-3`: **Rename x.**\n\nUnclear.\n\n\
</blockquote></details>\n\n</blockquote></details>";
        let mut snapshot = PrSnapshot {
            issue_comments: vec![IssueComment {
                id: 1,
                user: bot("github-actions[bot]"),
                body: Some(sticky.into()),
                ..IssueComment::default()
            }],
            reviews: vec![Review {
                id: 2,
                user: bot("coderabbitai[bot]"),
                // A bot body that merely quotes the marker, in a code block, is the bot's.
                body: Some(format!("```\n<!-- review-bot-ack -->\n```\n{nitpicks}")),
                ..Review::default()
            }],
            ..PrSnapshot::default()
        };
        // An inline comment quoting the marker is still a finding.
        snapshot.review_comments.push(ReviewComment {
            id: 6,
            user: bot("sourcery-ai[bot]"),
            body: "**issue (bug_risk):** Do not echo `<!-- review-bot-ack -->`.".into(),
            path: Some("a.py".into()),
            line: Some(3),
            ..ReviewComment::default()
        });
        // A `generic` source watching the account that posts our sticky reads nothing of it.
        let watcher = SourceConfig {
            adapter: "generic".into(),
            logins: vec!["github-actions[bot]".into()],
        };
        let sources = [source("coderabbit"), source("sourcery"), watcher];
        for viewer in [None, Some(Viewer::actions())] {
            snapshot.viewer = viewer.clone();
            let x = extract(&snapshot, &sources, &ExtractOptions::default());
            let cr = &x.sources[0];
            assert_eq!(
                (cr.findings, cr.coverage),
                (1, Coverage::Reviewed),
                "{cr:?}"
            );
            assert_eq!(x.sources[1].findings, 1);
            let generic = &x.sources[2];
            assert_eq!(
                (generic.findings, generic.coverage),
                (0, Coverage::Absent),
                "{viewer:?}: {generic:?}"
            );
        }
    }

    #[test]
    fn only_our_identity_owns_a_marker_on_the_first_line() {
        use crate::api::Viewer;
        let marked = "<!-- review-bot-ack:strict -->\nbody";
        let actions = bot("github-actions[bot]");
        let rabbit = bot("coderabbitai[bot]");
        let person = Some(User {
            login: "dana".into(),
            id: 5,
            kind: "User".into(),
        });
        // Offline: anyone but a built-in bot.
        assert!(is_own_sticky(marked, actions.as_ref(), None));
        assert!(is_own_sticky(marked, person.as_ref(), None));
        assert!(!is_own_sticky(marked, rabbit.as_ref(), None));
        // With the token's identity: only that identity.
        let viewer = Viewer::actions();
        assert!(is_own_sticky(marked, actions.as_ref(), Some(&viewer)));
        assert!(!is_own_sticky(marked, person.as_ref(), Some(&viewer)));
        assert!(!is_own_sticky(marked, rabbit.as_ref(), Some(&viewer)));
        // The marker must be the whole first line.
        for body in [
            "quote:\n<!-- review-bot-ack -->",
            "<!-- review-bot-ack --> and text",
            "```\n<!-- review-bot-ack -->",
        ] {
            assert!(
                !is_own_sticky(body, actions.as_ref(), Some(&viewer)),
                "{body}"
            );
        }
    }

    #[test]
    fn a_dismissed_review_shows_no_coverage_and_its_body_no_findings() {
        use crate::api::Review;
        let mut snapshot = PrSnapshot::default();
        snapshot.pull.head.sha = "head".into();
        snapshot.reviews.push(Review {
            id: 40,
            user: bot("sourcery-ai[bot]"),
            body: Some("Hey - I've reviewed your changes and they look great!".into()),
            state: Some("DISMISSED".into()),
            commit_id: Some("head".into()),
            ..Review::default()
        });
        // Its body alone would show coverage; dismissed, it shows none.
        let x = extract(&snapshot, &[source("sourcery")], &ExtractOptions::default());
        let s = &x.sources[0];
        assert_eq!((s.findings, s.coverage), (0, Coverage::Absent), "{s:?}");
        snapshot.reviews[0].state = Some("COMMENTED".into());
        let x = extract(&snapshot, &[source("sourcery")], &ExtractOptions::default());
        assert_eq!(x.sources[0].coverage, Coverage::Reviewed);

        // Its inline comments stay findings (a push dismisses Sourcery's previous review).
        snapshot.reviews[0].state = Some("DISMISSED".into());
        snapshot.review_comments.push(ReviewComment {
            id: 41,
            pull_request_review_id: Some(40),
            user: bot("sourcery-ai[bot]"),
            body: "**issue (bug_risk):** Off by one.".into(),
            path: Some("a.py".into()),
            line: Some(3),
            commit_id: Some("head".into()),
            ..ReviewComment::default()
        });
        let x = extract(&snapshot, &[source("sourcery")], &ExtractOptions::default());
        assert_eq!(x.sources[0].findings, 1);
    }

    fn comment_by(login: &str, id: u64, body: &str, reply: Option<u64>) -> ReviewComment {
        ReviewComment {
            id,
            in_reply_to_id: reply,
            user: bot(login),
            body: body.into(),
            path: Some("a.py".into()),
            line: Some(3),
            ..ReviewComment::default()
        }
    }

    fn names(x: &Extraction) -> Vec<&str> {
        x.sources.iter().map(|s| s.bot.as_str()).collect()
    }

    #[test]
    fn by_default_only_the_bots_that_posted_are_sources() {
        let mut snapshot = PrSnapshot::default();
        snapshot.review_comments.push(comment_by(
            "sourcery-ai[bot]",
            6,
            "**issue (bug_risk):** Off by one.",
            None,
        ));
        // A reply alone (chit-chat) is not a review: CodeRabbit stays out.
        snapshot
            .review_comments
            .push(comment_by("coderabbitai[bot]", 7, "Thanks!", Some(6)));
        // An object that could not be read is kept, so that it is reported.
        snapshot.unreadable.push(Unreadable {
            surface: "reviews".into(),
            id: Some(8),
            login: Some("gemini-code-assist[bot]".into()),
            reason: "invalid type".into(),
        });
        // Korbit is retired: read only when asked for.
        snapshot.review_comments.push(comment_by(
            "korbit-ai[bot]",
            9,
            "**Typo in the log line.**",
            None,
        ));
        let options = ExtractOptions::default();
        let x = extract_selected(&snapshot, &BotSelection::default(), &options);
        assert_eq!(names(&x), ["sourcery", "gemini"]);
        assert_eq!(x.sources[1].status, SourceState::Malformed);

        // Required ids are listed even when silent; retired ones are read when required.
        let required = BotSelection::posted_plus(["copilot", "korbit"]);
        let x = extract_selected(&snapshot, &required, &options);
        assert_eq!(names(&x), ["sourcery", "copilot", "gemini", "korbit"]);
        assert_eq!(x.sources[1].coverage, Coverage::Absent);
        assert_eq!(x.findings.len(), 2);

        // An explicit list keeps its meaning: every listed source, silent ones absent.
        let listed = BotSelection::Listed(vec![source("coderabbit"), source("qodo")]);
        let x = extract_selected(&snapshot, &listed, &options);
        assert_eq!(names(&x), ["coderabbit", "qodo"]);
        assert!(x.sources.iter().all(|s| s.coverage == Coverage::Absent));
    }

    #[test]
    fn required_ids_extend_either_selection() {
        let mut selection = BotSelection::default();
        selection.require(&["copilot", "copilot", "sourcery"]);
        assert_eq!(
            selection,
            BotSelection::posted_plus(["copilot", "sourcery"])
        );
        let mut listed = BotSelection::Listed(vec![source("copilot")]);
        listed.require(&["copilot", "codex"]);
        assert_eq!(
            listed,
            BotSelection::Listed(vec![source("copilot"), source("codex")])
        );
    }

    #[test]
    fn remapped_logins_replace_the_defaults() {
        let mut snapshot = PrSnapshot::default();
        snapshot.review_comments.push(ReviewComment {
            id: 6,
            user: bot("my-sourcery[bot]"),
            body: "**issue (bug_risk):** Off by one.".into(),
            path: Some("a.py".into()),
            line: Some(3),
            ..ReviewComment::default()
        });
        let default = extract(&snapshot, &[source("sourcery")], &ExtractOptions::default());
        assert!(default.findings.is_empty());
        let mapped = SourceConfig {
            adapter: "sourcery".into(),
            logins: vec!["my-sourcery[bot]".into()],
        };
        let x = extract(&snapshot, &[mapped], &ExtractOptions::default());
        assert_eq!(x.findings.len(), 1);
    }

    /// Issue 24: a line GitHub does not show (an HTML comment, a `[//]: # (…)` link
    /// definition, blank lines) before a bot's text changes nothing any adapter reads, on
    /// every bot fixture: each reads its first *visible* line.
    #[test]
    fn a_hidden_first_line_changes_nothing() {
        use crate::adapters::fixture;
        let summary = |out: &AdapterOutput| {
            let mut rows: Vec<String> = out
                .findings
                .iter()
                .map(|f| {
                    let e = &f.evidence;
                    format!(
                        "{}:{:?} {:?} {} {}",
                        e.file, e.line, f.severity, f.category, f.title
                    )
                })
                .collect();
            rows.push(format!(
                "{:?}, {} skipped",
                out.coverage,
                out.malformed.len()
            ));
            rows
        };
        let mut folders = fixture::bot_folders();
        folders.extend(
            [
                "pr-101-three-bots",
                "pr-102-gemini-copilot",
                "pr-103-edge-cases",
            ]
            .map(String::from),
        );
        let mut compared = 0;
        for folder in &folders {
            let snapshot = fixture::snapshot(folder);
            let mut hidden = snapshot.clone();
            let prefix = "<!-- bot-marker -->\n[//]: # (bot-marker)\n\n";
            for c in hidden
                .review_comments
                .iter_mut()
                .filter(|c| c.in_reply_to_id.is_none())
            {
                c.body = format!("{prefix}{}", c.body);
            }
            for body in hidden
                .issue_comments
                .iter_mut()
                .filter_map(|c| c.body.as_mut())
            {
                *body = format!("{prefix}{body}");
            }
            for adapter in registry().iter().filter(|a| !a.default_logins().is_empty()) {
                let logins: Vec<String> = adapter
                    .default_logins()
                    .iter()
                    .map(|l| (*l).to_owned())
                    .collect();
                let plain = adapter.parse(&snapshot, &logins);
                if plain.findings.is_empty() {
                    continue;
                }
                compared += 1;
                let read = adapter.parse(&hidden, &logins);
                assert_eq!(
                    summary(&read),
                    summary(&plain),
                    "{} on {folder}",
                    adapter.id()
                );
            }
        }
        assert!(
            compared >= 25,
            "only {compared} adapter-fixture pairs compared"
        );
    }
}
