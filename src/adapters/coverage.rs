//! Coverage beyond a bot's comments: its verdict merged with the completion signals it
//! declares, which optional surfaces a run must fetch for the configured bots, and when they
//! were last active (for `wait-for-bots`). Pure.

use super::read::common::{timestamp, Activity, Identity};
use super::read::signals::{self, Needs, Signal};
use super::{bot_name, extract, find_adapter, AdapterOutput, ExtractOptions, SourceConfig};
use crate::api::{PrSnapshot, User};
use crate::model::Coverage;

/// The adapter's verdict merged with the source's declared signals (reactions, check runs,
/// statuses); a source with findings reviewed at least something.
pub(super) fn coverage_of(
    output: &AdapterOutput,
    snapshot: &PrSnapshot,
    identity: &Identity,
    declared: &[Signal],
) -> (Coverage, String) {
    let mut activity = Activity::new(snapshot.head_sha())
        .with_head_time(snapshot.signals.head_committed_at.as_deref());
    match (output.coverage, &output.coverage_signal) {
        (coverage, Some(signal)) => activity.record(coverage, signal.clone()),
        (Coverage::Reviewed, None) => activity.reviewed(None),
        (Coverage::Stale, None) => {
            activity.record(Coverage::Stale, "review on an older commit".to_owned())
        }
        (Coverage::Declined, None) => activity.declined(),
        (Coverage::Absent, None) => {}
    }
    signals::observe(snapshot, identity, declared, &mut activity);
    if !output.findings.is_empty() && activity.coverage() == Coverage::Absent {
        activity.record(Coverage::Reviewed, "findings".to_owned());
    }
    (activity.coverage(), activity.signal())
}

/// The declared surfaces that were asked for and could not be read, with the reason.
pub(super) fn unread_surfaces(
    snapshot: &PrSnapshot,
    signals: &[Signal],
) -> Vec<(&'static str, String)> {
    let needs = Needs::of(signals);
    let surfaces = &snapshot.signals;
    [
        (
            needs.reactions,
            "reactions",
            surfaces.reactions.unread_reason(),
        ),
        (
            needs.check_runs,
            "check runs",
            surfaces.check_runs.unread_reason(),
        ),
        (
            needs.statuses,
            "commit statuses",
            surfaces.statuses.unread_reason(),
        ),
    ]
    .into_iter()
    .filter_map(|(needed, name, reason)| Some((name, reason.filter(|_| needed)?.to_owned())))
    .collect()
}

/// The surfaces to fetch for the configured sources: those declared by a source that its
/// comments alone do not show as having reviewed the head (one that did needs nothing more),
/// and those of a source whose adapter reads them for more than coverage.
pub fn needed_surfaces(snapshot: &PrSnapshot, sources: &[SourceConfig]) -> Needs {
    let extraction = extract(snapshot, sources, &ExtractOptions::default());
    let mut needs = Needs::default();
    for source in sources {
        let Some(adapter) = find_adapter(&source.adapter) else {
            continue;
        };
        let declared = Needs::of(adapter.signals());
        if !declared.any() {
            continue;
        }
        let names: Vec<String> = if adapter.source_per_login() {
            source.logins.iter().map(|l| bot_name(l)).collect()
        } else {
            vec![adapter.id().to_owned()]
        };
        let settled = extraction
            .sources
            .iter()
            .filter(|s| names.contains(&s.bot))
            .all(|s| s.coverage == Coverage::Reviewed);
        if (!settled || adapter.reads_own_signals()) && !names.is_empty() {
            needs = needs.union(declared);
        }
    }
    needs
}

/// The latest time (seconds since the epoch) the configured sources' objects show: comments
/// created or edited, reviews submitted, their reactions, statuses and their apps' check runs.
/// `wait-for-bots` starts its quiet window there.
pub fn last_activity(snapshot: &PrSnapshot, sources: &[SourceConfig]) -> Option<i64> {
    let mut identities = Vec::new();
    for source in sources {
        let Some(adapter) = find_adapter(&source.adapter) else {
            continue;
        };
        let logins = source.logins_for(adapter);
        identities.push(Identity::new(&logins, adapter.user_ids()));
    }
    let by_bot = |user: Option<&User>| identities.iter().any(|i| i.matches(user));
    let mut times: Vec<&Option<String>> = Vec::new();
    for c in &snapshot.review_comments {
        if by_bot(c.user.as_ref()) {
            times.extend([&c.created_at, &c.updated_at]);
        }
    }
    for r in &snapshot.reviews {
        if by_bot(r.user.as_ref()) {
            times.push(&r.submitted_at);
        }
    }
    for c in &snapshot.issue_comments {
        if by_bot(c.user.as_ref()) {
            times.extend([&c.created_at, &c.updated_at]);
        }
    }
    let signals = &snapshot.signals;
    for r in signals.reactions.items() {
        if by_bot(r.user.as_ref()) {
            times.push(&r.created_at);
        }
    }
    for s in signals.statuses.items() {
        if by_bot(s.creator.as_ref()) {
            times.push(&s.updated_at);
        }
    }
    for run in signals.check_runs.items() {
        let slug = run
            .app
            .as_ref()
            .and_then(|a| a.slug.as_deref())
            .unwrap_or("");
        if slug != "github-actions" && identities.iter().any(|i| i.matches_login(slug)) {
            times.extend([&run.started_at, &run.completed_at]);
        }
    }
    times
        .into_iter()
        .filter_map(|t| t.as_deref().and_then(timestamp))
        .max()
}
