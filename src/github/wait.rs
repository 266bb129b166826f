//! `wait-for-bots`, the polling edge: poll the PR with conditional requests (one round per
//! poll, each list with its `ETag`, so an unchanged list costs a 304 that does not count
//! against the primary rate limit) until every configured bot finished or declined for the
//! head commit and it has been quiet for a minute, or the budget is spent. Who is pending
//! and what to do next is decided by the pure `crate::wait`; the clock is injected so tests
//! never sleep.

use std::future::Future;
use std::time::{Duration, SystemTime};

use super::fetch::{fetch_signals, ConditionalList, ConditionalObject, Cost, SignalCache};
use super::routes::{self, Route};
use super::{GitHub, GitHubError};
use crate::adapters::{self, BotSelection, ExtractOptions, SourceConfig};
use crate::api::{
    self, CodeScanning, Element, PrSnapshot, PullRequest, Signals, CODE_SCANNING_SURFACE,
};
use crate::config::PrTarget;
use crate::model::SourceStatus;
use crate::wait::{self, Pending, Step};

/// Where the wait reads the time and how it sleeps.
pub trait Clock {
    fn now(&self) -> SystemTime;
    fn sleep(&self, duration: Duration) -> impl Future<Output = ()>;
}

/// The real clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }

    fn sleep(&self, duration: Duration) -> impl Future<Output = ()> {
        tokio::time::sleep(duration)
    }
}

/// What the wait did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waited {
    pub polls: u32,
    /// The requests of each poll, in order.
    pub costs: Vec<Cost>,
    /// Bots still pending when it stopped (empty: every bot finished or declined).
    pub pending: Vec<Pending>,
    pub timed_out: bool,
    pub waited: Duration,
}

/// Poll until the configured bots are done for the head commit or `budget` is spent. Each
/// poll logs one line through `log` (who is still pending, when the next poll is).
///
/// Who is waited for is decided on each poll (`BotSelection::active_sources`): the listed
/// bots, or with `bots` unset the required ones and every bot that has posted or started on
/// the PR so far. Since a bot that has not shown up yet is unknown then, the wait lasts at
/// least a quiet minute from its start, so that bots still queued get to show up.
pub async fn wait_for_bots<C: Clock>(
    gh: &GitHub,
    target: &PrTarget,
    selection: &BotSelection,
    budget: Duration,
    clock: &C,
    mut log: impl FnMut(&str),
) -> Result<Waited, GitHubError> {
    let started = clock.now();
    let deadline = started + budget;
    let mut poller = Poller::default();
    let mut costs = Vec::new();
    let mut seen: Option<Vec<(String, String, usize)>> = None;
    let mut changed_at: Option<SystemTime> = None;
    let mut poll = 0u32;
    loop {
        poll += 1;
        let mut cost = Cost::default();
        let (snapshot, sources) = poller.round(gh, target, selection, &mut cost).await?;
        costs.push(cost);
        let statuses = adapters::extract(&snapshot, &sources, &ExtractOptions::default()).sources;
        let pending = wait::pending(&statuses);
        let now = clock.now();
        // What the bots showed: when it changes between polls, they are still active.
        let state = fingerprint(&statuses);
        if seen.as_ref().is_some_and(|s| *s != state) {
            changed_at = Some(now);
        }
        seen = Some(state);
        let posted = adapters::last_activity(&snapshot, &sources)
            .and_then(|secs| u64::try_from(secs).ok())
            .map(|secs| (SystemTime::UNIX_EPOCH + Duration::from_secs(secs)).min(now));
        // Unset `bots`: the bots are known only once they post, so the quiet window starts no
        // earlier than the wait does.
        let floor = matches!(selection, BotSelection::Posted { .. }).then_some(started);
        let last_activity = posted.max(changed_at).max(floor);
        let head = short(snapshot.head_sha());
        let waited = now.duration_since(started).unwrap_or_default();
        match wait::next_step(now, deadline, pending.is_empty(), last_activity, poll) {
            Step::Decide => {
                let what = if sources.is_empty() {
                    "no bot posted"
                } else {
                    "every configured bot finished or declined"
                };
                log(&format!(
                    "{what} for {head} (poll {poll}, {} waited)",
                    minutes(waited)
                ));
                return Ok(done(poll, costs, pending, false, waited));
            }
            Step::TimedOut => {
                return Ok(done(poll, costs, pending, true, waited));
            }
            Step::Sleep(pause) => {
                let what = if sources.is_empty() {
                    "no bot has posted yet; waiting a quiet minute for one to start".to_owned()
                } else if pending.is_empty() {
                    "every bot is done; waiting for a quiet minute after the last activity"
                        .to_owned()
                } else {
                    format!("still pending for {head}: {}", wait::describe(&pending))
                };
                log(&format!(
                    "poll {poll}: {what}; next poll in {}s ({} left)",
                    pause.as_secs(),
                    minutes(deadline.duration_since(now).unwrap_or_default())
                ));
                clock.sleep(pause).await;
            }
        }
    }
}

fn done(
    polls: u32,
    costs: Vec<Cost>,
    pending: Vec<Pending>,
    timed_out: bool,
    waited: Duration,
) -> Waited {
    Waited {
        polls,
        costs,
        pending,
        timed_out,
        waited,
    }
}

fn fingerprint(statuses: &[SourceStatus]) -> Vec<(String, String, usize)> {
    statuses
        .iter()
        .map(|s| {
            (
                s.bot.clone(),
                s.coverage_signal.clone(),
                s.findings + s.skipped,
            )
        })
        .collect()
}

fn short(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}

fn minutes(d: Duration) -> String {
    let secs = d.as_secs();
    if secs >= 60 {
        format!("{}m{:02}s", secs / 60, secs % 60)
    } else {
        format!("{secs}s")
    }
}

/// The conditional caches of one wait.
#[derive(Debug, Default)]
struct Poller {
    pull: ConditionalObject,
    review_comments: ConditionalList,
    reviews: ConditionalList,
    issue_comments: ConditionalList,
    code_scanning: ConditionalList,
    signals: SignalCache,
    /// The surfaces as last read, and for which head: a bot they showed as done needs no
    /// more reading.
    last_signals: Option<(String, Signals)>,
}

impl Poller {
    /// One round: the pull (its head may move), the three comment lists, code scanning when
    /// a configured source reads it, then the completion surfaces the pending bots need.
    /// Review threads are not read: they do not change whether a bot finished.
    async fn round(
        &mut self,
        gh: &GitHub,
        target: &PrTarget,
        selection: &BotSelection,
        cost: &mut Cost,
    ) -> Result<(PrSnapshot, Vec<SourceConfig>), GitHubError> {
        let n = target.number.to_string();
        let params = [target.owner.as_str(), target.repo.as_str(), n.as_str()];
        let listed = |route: Route| format!("{}?per_page=100", route.fill(&params));
        let pull_path = routes::PULL.fill(&params);
        let review_comments_path = listed(routes::REVIEW_COMMENTS);
        let reviews_path = listed(routes::REVIEWS);
        let issue_comments_path = listed(routes::ISSUE_COMMENTS);
        let alerts_path = format!(
            "{}?ref=refs/pull/{n}/merge&per_page=100",
            routes::CODE_SCANNING_ALERTS.fill(&params[..2])
        );
        let wants_alerts = match selection {
            BotSelection::Listed(sources) => adapters::owns_surface(sources, CODE_SCANNING_SURFACE),
            // Code scanning's bot may be among those that post.
            BotSelection::Posted { .. } => true,
        };
        let mut costs = [Cost::default(); 5];
        let [c1, c2, c3, c4, c5] = &mut costs;
        let Poller {
            pull,
            review_comments,
            reviews,
            issue_comments,
            code_scanning,
            signals,
            last_signals,
        } = self;
        let (pull, review_comments, reviews, issue_comments, alerts) = tokio::join!(
            pull.read(gh, &pull_path, c1),
            review_comments.read(gh, &review_comments_path, None, c2),
            reviews.read(gh, &reviews_path, None, c3),
            issue_comments.read(gh, &issue_comments_path, None, c4),
            async {
                if wants_alerts {
                    Some(code_scanning.read(gh, &alerts_path, None, c5).await)
                } else {
                    None
                }
            },
        );
        for c in costs {
            cost.add(c);
        }
        let pull: PullRequest = serde_json::from_value(pull?).map_err(|err| {
            gh.decode_error(&super::endpoint_name(&http::Method::GET, &pull_path), &err)
        })?;
        let mut snapshot = PrSnapshot {
            repository: target.full_name(),
            review_comments: parse("review_comments", review_comments?),
            reviews: parse("reviews", reviews?),
            issue_comments: parse("issue_comments", issue_comments?),
            code_scanning: match alerts {
                Some(Ok(items)) => CodeScanning::Alerts(parse(CODE_SCANNING_SURFACE, items)),
                Some(Err(err)) => CodeScanning::Unavailable(err.to_string()),
                None => CodeScanning::default(),
            },
            pull,
            ..PrSnapshot::default()
        };
        // A bot the last read showed as done (its check run succeeded) stays done for this
        // head: only the surfaces of bots still unsettled are read again.
        let head = snapshot.head_sha().to_owned();
        if let Some((_, last)) = last_signals.as_ref().filter(|(sha, _)| *sha == head) {
            snapshot.signals = last.clone();
        }
        let sources = selection.active_sources(&snapshot);
        let needs = adapters::needed_surfaces(&snapshot, &sources);
        if needs.any() {
            snapshot.signals = fetch_signals(gh, target, &head, needs, signals, cost).await;
            *last_signals = Some((head, snapshot.signals.clone()));
        }
        Ok((snapshot, sources))
    }
}

/// The readable elements (the final fetch reports the unreadable ones).
fn parse<T: serde::de::DeserializeOwned>(surface: &str, items: Vec<Element>) -> Vec<T> {
    api::parse_list(surface, items).0
}
