//! `wait-for-bots`, the pure part: who is still pending for the head commit, and what to do
//! next (decide, or sleep how long). Times come in as data; the polling edge is
//! `github::wait`.

use std::time::{Duration, SystemTime};

use crate::model::{Coverage, SourceState, SourceStatus};

/// After the last bot activity, how long nothing must happen before deciding: Copilot posts
/// its overview before its inline comments, CodeRabbit edits its summary after its review.
pub const QUIET: Duration = Duration::from_secs(60);
/// The first pause between polls; it grows by half each poll up to `MAX_POLL`.
pub const FIRST_POLL: Duration = Duration::from_secs(10);
pub const MAX_POLL: Duration = Duration::from_secs(60);

/// A configured bot that has neither finished nor declined for the head commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    pub bot: String,
    pub coverage: Coverage,
    /// What its coverage rests on so far (`review on an older commit`,
    /// `check run Cursor Bugbot: in_progress`, `nothing posted`).
    pub signal: String,
}

/// The sources still to wait for: not `reviewed` (the head) and not `declined`. A source that
/// posted only unreadable objects did post: it is not waited for.
pub fn pending(sources: &[SourceStatus]) -> Vec<Pending> {
    sources
        .iter()
        .filter(|s| s.status != SourceState::Malformed)
        .filter(|s| !matches!(s.coverage, Coverage::Reviewed | Coverage::Declined))
        .map(|s| Pending {
            bot: s.bot.clone(),
            coverage: s.coverage,
            signal: s.coverage_signal.clone(),
        })
        .collect()
}

/// `coderabbit (absent), codex (stale: review on an older commit)` for the job log. Bot names
/// are the configuration's; signals are built by the adapters from cleaned API text.
pub fn describe(pending: &[Pending]) -> String {
    pending
        .iter()
        .map(|p| {
            let state = match p.coverage {
                Coverage::Stale => "stale",
                _ => "absent",
            };
            if p.signal.is_empty() || p.signal == "nothing posted" {
                format!("{} ({state})", p.bot)
            } else {
                format!("{} ({state}: {})", p.bot, p.signal)
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// What the loop does after a poll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Every configured bot finished or declined, and it has been quiet for `QUIET`.
    Decide,
    /// The budget is spent with bots still pending (or still active): decide anyway.
    TimedOut,
    /// Poll again after this long.
    Sleep(Duration),
}

/// The pause after poll number `poll` (1-based) when nothing else bounds it.
pub fn backoff(poll: u32) -> Duration {
    let mut wait = FIRST_POLL;
    for _ in 1..poll {
        wait = (wait + wait / 2).min(MAX_POLL);
    }
    wait
}

/// Decide, give up or sleep. `settled`: no bot is pending; `last_activity`: the latest bot
/// activity seen (never later than `now`). Sleeps never pass the deadline, and once every
/// bot is settled they end where the quiet window does.
pub fn next_step(
    now: SystemTime,
    deadline: SystemTime,
    settled: bool,
    last_activity: Option<SystemTime>,
    poll: u32,
) -> Step {
    let quiet_until = last_activity.map(|t| t + QUIET);
    let quiet = quiet_until.is_none_or(|until| now >= until);
    if settled && quiet {
        return Step::Decide;
    }
    let Ok(left) = deadline.duration_since(now) else {
        return Step::TimedOut;
    };
    if left.is_zero() {
        return Step::TimedOut;
    }
    let mut wait = backoff(poll).min(left);
    if settled {
        if let Some(until) = quiet_until {
            wait = wait.min(until.duration_since(now).unwrap_or(Duration::ZERO));
        }
    }
    Step::Sleep(wait.max(Duration::from_secs(1)).min(left))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(bot: &str, state: SourceState, coverage: Coverage, signal: &str) -> SourceStatus {
        SourceStatus {
            bot: bot.to_owned(),
            status: state,
            coverage,
            coverage_signal: signal.to_owned(),
            findings: 0,
            skipped: 0,
            notes: Vec::new(),
        }
    }

    #[test]
    fn pending_are_those_neither_finished_nor_declined() {
        use Coverage::*;
        let sources = [
            status("coderabbit", SourceState::Ok, Reviewed, "review on head"),
            status("gemini", SourceState::Missing, Declined, "notice: sunset"),
            status("codex", SourceState::Ok, Stale, "review on an older commit"),
            status(
                "cursor-bugbot",
                SourceState::Missing,
                Absent,
                "check run Cursor Bugbot: in_progress",
            ),
            status("sourcery", SourceState::Missing, Absent, "nothing posted"),
            status("qodo", SourceState::Malformed, Absent, "nothing posted"),
        ];
        let waiting = pending(&sources);
        assert_eq!(
            describe(&waiting),
            "codex (stale: review on an older commit), cursor-bugbot (absent: check run \
             Cursor Bugbot: in_progress), sourcery (absent)"
        );
    }

    #[test]
    fn backoff_grows_to_a_minute() {
        let secs: Vec<u64> = (1..=7).map(|p| backoff(p).as_secs()).collect();
        assert_eq!(secs, [10, 15, 22, 33, 50, 60, 60]);
    }

    #[test]
    fn decides_when_settled_and_quiet_sleeps_otherwise_never_past_the_deadline() {
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let at = |s: u64| t0 + Duration::from_secs(s);
        let deadline = at(600);
        // Settled, last activity long ago: decide at once.
        assert_eq!(
            next_step(at(0), deadline, true, Some(at(0) - QUIET * 5), 1),
            Step::Decide
        );
        assert_eq!(next_step(at(0), deadline, true, None, 1), Step::Decide);
        // Settled, activity 20 s ago: sleep out the rest of the quiet window, at most the backoff.
        assert_eq!(
            next_step(at(100), deadline, true, Some(at(80)), 1),
            Step::Sleep(Duration::from_secs(10))
        );
        assert_eq!(
            next_step(at(100), deadline, true, Some(at(95)), 6),
            Step::Sleep(Duration::from_secs(55))
        );
        // Pending: the backoff, cut at the deadline.
        assert_eq!(
            next_step(at(0), deadline, false, None, 2),
            Step::Sleep(Duration::from_secs(15))
        );
        assert_eq!(
            next_step(at(595), deadline, false, None, 6),
            Step::Sleep(Duration::from_secs(5))
        );
        assert_eq!(next_step(at(600), deadline, false, None, 6), Step::TimedOut);
        assert_eq!(
            next_step(at(700), deadline, true, Some(at(690)), 6),
            Step::TimedOut
        );
    }
}
