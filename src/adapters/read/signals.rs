//! Completion signals outside a bot's comments: a reaction on the PR (Codex's 👍, Kodus's 🎉), a
//! check run of the bot's app on the head commit (Bugbot, Greptile, Kodus, cubic, Macroscope,
//! Seer), a commit status the bot posted (CodeRabbit). A bot declares the ones it gives (`Adapter::signals`, one line);
//! `extract` reads them into its coverage, and the fetch asks only for the surfaces a
//! configured bot needs (docs/adapters.md, "Completion signals").

use crate::adapters::read::common::{notice_kind, signal, Activity, Identity};
use crate::adapters::read::markdown;
use crate::api::{CheckRun, PrSnapshot, Signals};

/// What a reaction by the bot means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meaning {
    /// It finished (Codex's 👍: "otherwise it will react with 👍").
    Reviewed,
    /// It started (Kodus's 🚀).
    Running,
    /// It will not review (Kodus's 😕 error, 👎 no licence).
    Declined,
}

/// One way a bot shows that it finished, declined or started, besides its comments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// A reaction by the bot on the PR: its `content` (`+1`, `eyes`, `rocket`, ...) and what it
    /// means. Reactions name no commit: one older than the head commit counts for an older one.
    Reaction(&'static str, Meaning),
    /// A check run on the head commit by the bot's own app (the app's slug is one of the bot's
    /// logins without `[bot]`), whose name starts with this, ignoring case (`""`: any name).
    /// `success` = reviewed; queued / in progress = running; any other conclusion = declined
    /// (its title says why: quota, rate limit, ...).
    CheckRun(&'static str),
    /// A check run of the bot's own app, as `CheckRun`, whose conclusion is the bot's verdict
    /// on the code (Macroscope's `N issues identified`, Seer's findings reported as
    /// `neutral`, an analyzer failing on its findings): `success`, `failure`, `neutral` and
    /// `action_required` all mean it reviewed the head, unless its title or summary says it
    /// did not run (quota, rate limit, billing, paused, skipped, sunset: declined, as cubic's
    /// `neutral` "AI review line limit reached"); `skipped`, `cancelled`, `timed_out` and
    /// `stale` are declined; queued / in progress = running.
    CheckRunVerdict(&'static str),
    /// A check run of a shared app (`github-actions` for Copilot's review workflow) named
    /// exactly this: only a failure counts (declined). Anyone's workflow may name a job so,
    /// so its success proves nothing.
    CheckRunFailure {
        app: &'static str,
        name: &'static str,
    },
    /// A commit status the bot posted on the head commit (its `creator` is the bot), context
    /// starting with this, ignoring case (`""`: any). `success` = reviewed, `pending` =
    /// running, `failure` / `error` = declined.
    Status(&'static str),
}

/// The optional surfaces to fetch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Needs {
    pub reactions: bool,
    pub check_runs: bool,
    pub statuses: bool,
}

impl Needs {
    pub fn of(signals: &[Signal]) -> Needs {
        let mut needs = Needs::default();
        for s in signals {
            match s {
                Signal::Reaction(..) => needs.reactions = true,
                Signal::CheckRun(_)
                | Signal::CheckRunVerdict(_)
                | Signal::CheckRunFailure { .. } => needs.check_runs = true,
                Signal::Status(_) => needs.statuses = true,
            }
        }
        needs
    }

    pub fn union(self, other: Needs) -> Needs {
        Needs {
            reactions: self.reactions || other.reactions,
            check_runs: self.check_runs || other.check_runs,
            statuses: self.statuses || other.statuses,
        }
    }

    pub fn any(self) -> bool {
        self.reactions || self.check_runs || self.statuses
    }
}

/// The shared GitHub Actions app: never a bot's own app (a `generic` source mapped to
/// `github-actions[bot]` must not take every CI job for its review).
const ACTIONS_APP: &str = "github-actions";

/// Record what the declared signals show into `activity`.
pub fn observe(
    snapshot: &PrSnapshot,
    identity: &Identity,
    declared: &[Signal],
    activity: &mut Activity,
) {
    let surfaces = &snapshot.signals;
    for declared in declared {
        match *declared {
            Signal::Reaction(content, meaning) => {
                reactions(surfaces, identity, content, meaning, activity)
            }
            Signal::CheckRun(prefix) => {
                for run in own_runs(surfaces, identity, prefix) {
                    check_run(run, Reading::Completion, activity);
                }
            }
            Signal::CheckRunVerdict(prefix) => {
                for run in own_runs(surfaces, identity, prefix) {
                    check_run(run, Reading::Verdict, activity);
                }
            }
            Signal::CheckRunFailure { app, name } => {
                for run in surfaces.check_runs.items() {
                    if app_slug(run).eq_ignore_ascii_case(app)
                        && run.name.trim().eq_ignore_ascii_case(name)
                    {
                        check_run(run, Reading::FailureOnly, activity);
                    }
                }
            }
            Signal::Status(prefix) => statuses(surfaces, identity, prefix, activity),
        }
    }
}

fn reactions(
    surfaces: &Signals,
    identity: &Identity,
    content: &str,
    meaning: Meaning,
    activity: &mut Activity,
) {
    let what = format!("reaction {} on the PR", emoji(content));
    for reaction in surfaces.reactions.items() {
        if reaction.content != content || !identity.matches(reaction.user.as_ref()) {
            continue;
        }
        let at = reaction.created_at.as_deref();
        match meaning {
            Meaning::Reviewed => activity.reviewed_at(at, &what),
            // A start or a refusal from before the head commit says nothing about the head.
            Meaning::Running if !activity.is_older_than_head(at) => activity.running(&what),
            Meaning::Declined if !activity.is_older_than_head(at) => activity.declined_by(&what),
            _ => {}
        }
    }
}

/// The check runs on the head by the bot's own app (never the shared Actions app) whose
/// name starts with `prefix`, ignoring case.
fn own_runs<'a>(
    surfaces: &'a Signals,
    identity: &'a Identity,
    prefix: &'a str,
) -> impl Iterator<Item = &'a CheckRun> {
    surfaces.check_runs.items().iter().filter(move |run| {
        let slug = app_slug(run);
        slug != ACTIONS_APP
            && identity.matches_login(slug)
            && starts_with_ignoring_case(&run.name, prefix)
    })
}

/// How a check run's conclusion reads (`Signal::CheckRun`, `CheckRunVerdict`,
/// `CheckRunFailure`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// `success` = reviewed, any other conclusion = declined.
    Completion,
    /// A finished run is a verdict (reviewed) unless its text says the bot did not run.
    Verdict,
    /// Only a failure counts (declined); the run may be anyone's.
    FailureOnly,
}

/// Unfinished = running (not for `FailureOnly`); then the conclusion as `reading` says, a
/// decline with the notice kind its title and summary give.
fn check_run(run: &CheckRun, reading: Reading, activity: &mut Activity) {
    let name = clean(&run.name);
    let status = run.status.as_deref().unwrap_or("completed");
    if status != "completed" {
        if reading != Reading::FailureOnly {
            activity.running(format!("check run {name}: {}", clean(status)));
        }
        return;
    }
    let conclusion = run.conclusion.as_deref().unwrap_or("");
    let text = format!(
        "{}\n{}",
        run.output.title.as_deref().unwrap_or(""),
        run.output.summary.as_deref().unwrap_or("")
    );
    let what = format!("check run {name}: {}", clean(conclusion));
    let reviewed = match (reading, conclusion) {
        (Reading::Completion, "success") => true,
        (Reading::Verdict, "success" | "failure" | "neutral" | "action_required") => {
            !did_not_run(&text)
        }
        (Reading::FailureOnly, "success" | "neutral" | "skipped" | "cancelled" | "stale") => return,
        _ => false,
    };
    if reviewed {
        activity.reviewed_by(run.head_sha.as_deref(), &what);
    } else {
        activity.declined_by(declined_signal(&what, &text));
    }
}

/// A verdict run's text that says the bot did not review: out of quota or credits, rate
/// limited, paused, skipped, shut down. (A "failed" word is not one: an analyzer's failing
/// run names the failures it found.)
fn did_not_run(text: &str) -> bool {
    matches!(
        notice_kind(text),
        "sunset" | "rate limit" | "quota" | "billing" | "paused" | "skipped"
    )
}

/// The latest status of each matching context (the list is newest first).
fn statuses(surfaces: &Signals, identity: &Identity, prefix: &str, activity: &mut Activity) {
    let mut seen: Vec<&str> = Vec::new();
    for status in surfaces.statuses.items() {
        if !identity.matches(status.creator.as_ref())
            || !starts_with_ignoring_case(&status.context, prefix)
            || seen.contains(&status.context.as_str())
        {
            continue;
        }
        seen.push(&status.context);
        let what = format!(
            "status {}: {}",
            clean(&status.context),
            clean(&status.state)
        );
        match status.state.as_str() {
            // Statuses are read for the head commit only.
            "success" => activity.reviewed_at(None, &what),
            "pending" => activity.running(what),
            _ => activity.declined_by(declined_signal(
                &what,
                status.description.as_deref().unwrap_or(""),
            )),
        }
    }
}

/// `check run X: neutral (quota)`: the notice kind when the text names one.
fn declined_signal(what: &str, text: &str) -> String {
    match notice_kind(text) {
        // `check run X: skipped`, not `skipped (skipped)`.
        kind if kind == signal::NOTICE || what.ends_with(kind) => what.to_owned(),
        kind => format!("{what} ({kind})"),
    }
}

fn app_slug(run: &CheckRun) -> &str {
    run.app
        .as_ref()
        .and_then(|a| a.slug.as_deref())
        .unwrap_or("")
}

fn starts_with_ignoring_case(text: &str, prefix: &str) -> bool {
    text.trim()
        .get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
}

/// Names from the API go into logs and the comment: one line, no control characters, short.
fn clean(text: &str) -> String {
    let printable: String = text.chars().filter(|c| !c.is_control()).collect();
    markdown::shorten(&markdown::collapse_whitespace(&printable), 60)
}

fn emoji(content: &str) -> &str {
    match content {
        "+1" => "👍",
        "-1" => "👎",
        "laugh" => "😄",
        "confused" => "😕",
        "heart" => "❤️",
        "hooray" => "🎉",
        "rocket" => "🚀",
        "eyes" => "👀",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{CheckApp, CheckOutput, CommitStatus, Reaction, Surface, User};
    use crate::model::Coverage;

    const HEAD: &str = "0123456789abcdef0123456789abcdef01234567";

    fn user(login: &str) -> Option<User> {
        Some(User {
            login: login.to_owned(),
            id: 7,
            kind: "Bot".to_owned(),
        })
    }

    fn run(
        name: &str,
        slug: &str,
        status: &str,
        conclusion: Option<&str>,
        title: &str,
    ) -> CheckRun {
        CheckRun {
            id: 1,
            name: name.to_owned(),
            head_sha: Some(HEAD.to_owned()),
            status: Some(status.to_owned()),
            conclusion: conclusion.map(str::to_owned),
            output: CheckOutput {
                title: Some(title.to_owned()),
                ..CheckOutput::default()
            },
            app: Some(CheckApp {
                slug: Some(slug.to_owned()),
                ..CheckApp::default()
            }),
            ..CheckRun::default()
        }
    }

    fn decide(signals: Signals, login: &str, declared: &[Signal]) -> (Coverage, String) {
        let snapshot = PrSnapshot {
            signals,
            ..PrSnapshot::default()
        };
        let identity = Identity::new(&[login.to_owned()], &[]);
        let mut activity =
            Activity::new(HEAD).with_head_time(snapshot.signals.head_committed_at.as_deref());
        observe(&snapshot, &identity, declared, &mut activity);
        (activity.coverage(), activity.signal())
    }

    fn runs(list: Vec<CheckRun>) -> Signals {
        Signals {
            check_runs: Surface::Read(list),
            ..Signals::default()
        }
    }

    #[test]
    fn check_runs_of_the_bots_own_app() {
        let bugbot = [Signal::CheckRun("Cursor Bugbot")];
        let done = runs(vec![run(
            "Cursor Bugbot",
            "cursor",
            "completed",
            Some("success"),
            "",
        )]);
        assert_eq!(
            decide(done, "cursor[bot]", &bugbot),
            (
                Coverage::Reviewed,
                "check run Cursor Bugbot: success on head".to_owned()
            )
        );
        let quota = runs(vec![run(
            "Cursor Bugbot",
            "cursor",
            "completed",
            Some("neutral"),
            "Bugbot couldn't run - usage limit reached",
        )]);
        assert_eq!(
            decide(quota, "cursor[bot]", &bugbot),
            (
                Coverage::Declined,
                "check run Cursor Bugbot: neutral (quota)".to_owned()
            )
        );
        let running = runs(vec![run(
            "Cursor Bugbot",
            "cursor",
            "in_progress",
            None,
            "",
        )]);
        assert_eq!(
            decide(running, "cursor[bot]", &bugbot),
            (
                Coverage::Absent,
                "check run Cursor Bugbot: in_progress".to_owned()
            )
        );
        // The same name from another app (a workflow job named so) is not the bot's.
        let spoofed = runs(vec![
            run(
                "Cursor Bugbot",
                "github-actions",
                "completed",
                Some("success"),
                "",
            ),
            run(
                "Cursor Bugbot",
                "someone-else",
                "completed",
                Some("success"),
                "",
            ),
        ]);
        assert_eq!(decide(spoofed, "cursor[bot]", &bugbot).0, Coverage::Absent);
        // Even mapped to `github-actions[bot]`, CI jobs are nobody's review.
        let ci = runs(vec![run(
            "build",
            "github-actions",
            "completed",
            Some("success"),
            "",
        )]);
        assert_eq!(
            decide(ci, "github-actions[bot]", &[Signal::CheckRun("")]).0,
            Coverage::Absent
        );
    }

    #[test]
    fn a_verdict_run_reviewed_whatever_it_concluded_unless_it_did_not_run() {
        let macroscope = [Signal::CheckRunVerdict("Macroscope - Correctness Check")];
        let bot = "macroscopeapp[bot]";
        let one = |conclusion: Option<&str>, status: &str, title: &str| {
            let list = vec![run(
                "Macroscope - Correctness Check",
                "macroscopeapp",
                status,
                conclusion,
                title,
            )];
            decide(runs(list), bot, &macroscope)
        };
        let found = "2 issues identified (14 code objects reviewed)";
        for conclusion in ["success", "failure", "neutral", "action_required"] {
            assert_eq!(
                one(Some(conclusion), "completed", found),
                (
                    Coverage::Reviewed,
                    format!("check run Macroscope - Correctness Check: {conclusion} on head")
                ),
                "{conclusion}"
            );
        }
        // Its findings failing the run are a verdict, not a decline ("failed" words too).
        assert_eq!(
            one(
                Some("failure"),
                "completed",
                "3 checks failed: errors found"
            )
            .0,
            Coverage::Reviewed
        );
        assert_eq!(
            one(Some("neutral"), "completed", "AI review line limit reached"),
            (
                Coverage::Declined,
                "check run Macroscope - Correctness Check: neutral (quota)".to_owned()
            )
        );
        assert_eq!(
            one(Some("action_required"), "completed", "Out of credits").1,
            "check run Macroscope - Correctness Check: action_required (billing)"
        );
        for conclusion in ["skipped", "cancelled", "timed_out", "stale"] {
            assert_eq!(
                one(Some(conclusion), "completed", "").0,
                Coverage::Declined,
                "{conclusion}"
            );
        }
        assert_eq!(
            one(None, "queued", ""),
            (
                Coverage::Absent,
                "check run Macroscope - Correctness Check: queued".to_owned()
            )
        );
        // Another name of the same app (its business-logic check) is not this signal.
        let other = runs(vec![run(
            "Macroscope - Other",
            "macroscopeapp",
            "completed",
            Some("success"),
            "",
        )]);
        assert_eq!(decide(other, bot, &macroscope).0, Coverage::Absent);
    }

    #[test]
    fn a_shared_apps_run_counts_only_when_it_fails() {
        let copilot = [Signal::CheckRunFailure {
            app: "github-actions",
            name: "copilot-pull-request-reviewer",
        }];
        let failed = runs(vec![run(
            "copilot-pull-request-reviewer",
            "github-actions",
            "completed",
            Some("failure"),
            "HTTP 402: You have no quota left for Copilot code review",
        )]);
        assert_eq!(
            decide(failed, "copilot-pull-request-reviewer[bot]", &copilot),
            (
                Coverage::Declined,
                "check run copilot-pull-request-reviewer: failure (quota)".to_owned()
            )
        );
        let passed = runs(vec![run(
            "copilot-pull-request-reviewer",
            "github-actions",
            "completed",
            Some("success"),
            "",
        )]);
        assert_eq!(
            decide(passed, "copilot-pull-request-reviewer[bot]", &copilot).0,
            Coverage::Absent
        );
    }

    #[test]
    fn reactions_compare_with_the_head_commits_date() {
        let codex = [Signal::Reaction("+1", Meaning::Reviewed)];
        let reaction = |login: &str, content: &str, at: &str| Reaction {
            id: 1,
            user: user(login),
            content: content.to_owned(),
            created_at: Some(at.to_owned()),
        };
        let signals = |list: Vec<Reaction>| Signals {
            reactions: Surface::Read(list),
            head_committed_at: Some("2026-11-02T09:00:00Z".to_owned()),
            ..Signals::default()
        };
        let bot = "chatgpt-codex-connector[bot]";
        assert_eq!(
            decide(
                signals(vec![reaction(bot, "+1", "2026-11-02T09:05:00Z")]),
                bot,
                &codex
            ),
            (Coverage::Reviewed, "reaction 👍 on the PR".to_owned())
        );
        assert_eq!(
            decide(
                signals(vec![reaction(bot, "+1", "2026-11-01T09:05:00Z")]),
                bot,
                &codex
            )
            .0,
            Coverage::Stale
        );
        // Someone else's 👍, or the bot's 👀, is not a verdict.
        assert_eq!(
            decide(
                signals(vec![
                    reaction("alice", "+1", "2026-11-02T09:05:00Z"),
                    reaction(bot, "eyes", "2026-11-02T09:05:00Z")
                ]),
                bot,
                &codex
            )
            .0,
            Coverage::Absent
        );
    }

    #[test]
    fn statuses_by_the_bot_newest_first() {
        let coderabbit = [Signal::Status("CodeRabbit")];
        let status = |login: &str, state: &str, description: &str| CommitStatus {
            id: 1,
            state: state.to_owned(),
            context: "CodeRabbit".to_owned(),
            description: Some(description.to_owned()),
            creator: user(login),
            ..CommitStatus::default()
        };
        let signals = |list| Signals {
            statuses: Surface::Read(list),
            ..Signals::default()
        };
        let bot = "coderabbitai[bot]";
        let limited = signals(vec![
            status(bot, "failure", "Review rate limited"),
            status(bot, "pending", "Review in progress"),
        ]);
        assert_eq!(
            decide(limited, bot, &coderabbit),
            (
                Coverage::Declined,
                "status CodeRabbit: failure (rate limit)".to_owned()
            )
        );
        let done = signals(vec![status(bot, "success", "Review completed")]);
        assert_eq!(decide(done, bot, &coderabbit).0, Coverage::Reviewed);
        // A status with the context but another creator is not the bot's.
        let forged = signals(vec![status("mallory", "success", "Review completed")]);
        assert_eq!(decide(forged, bot, &coderabbit).0, Coverage::Absent);
    }

    #[test]
    fn hostile_names_become_one_short_line() {
        let name = "Cursor Bugbot\n::error::x\u{1b}[31m".to_owned() + &"y".repeat(200);
        let quota = runs(vec![run(&name, "cursor", "queued", None, "")]);
        let (_, signal) = decide(quota, "cursor[bot]", &[Signal::CheckRun("cursor bugbot")]);
        assert!(
            !signal.contains('\n') && !signal.contains('\u{1b}'),
            "{signal}"
        );
        assert!(signal.chars().count() < 100, "{signal}");
    }
}
