//! The sticky comment's identity parts (CONTRACT section 8): the fingerprint beside each
//! finding, what changed since the last run, acknowledged findings, merges people
//! corrected, commands not followed, and the hidden state block. Text from people and bots goes through `escape_inline`.

use std::fmt::Write as _;

use crate::identity::state::{self, clip};
use crate::identity::{Ack, Correction, CorrectionKind, Refusal, RefusalKind, Tracked};
use crate::model::{Outcome, SynthesizedFinding};
use crate::render::escape::{escape_inline, escape_url};

/// Items of a list shown at most; the JSON report has them all.
const LIST_MAX: usize = 25;

/// `` `rc-1pksm0hp` `` (and `🆕` when first seen at this commit), or nothing before the
/// identity stage ran. Fingerprints are our own `[0-9a-z-]` text, safe in a code span.
pub fn badge(finding: &SynthesizedFinding) -> String {
    match &finding.identity {
        Some(identity) if identity.new => format!("`{}` 🆕 ", identity.fingerprint),
        Some(identity) => format!("`{}` ", identity.fingerprint),
        None => String::new(),
    }
}

fn short(head: &str) -> &str {
    head.get(..7).unwrap_or(head)
}

/// The line the comment opens with, and the resolved / awaiting lists folded below it.
/// Empty before the identity stage ran.
pub fn changes(outcome: &Outcome) -> String {
    changes_with(outcome, true)
}

/// `changes` without the folded lists, for a comment head with no room for them (they stay
/// in the JSON report).
pub fn changes_line(outcome: &Outcome) -> String {
    changes_with(outcome, false)
}

fn changes_with(outcome: &Outcome, lists: bool) -> String {
    let identity = &outcome.identity;
    if identity.state.v == 0 {
        return String::new();
    }
    let new = outcome.new_findings().count();
    let shown = outcome.findings.iter().filter(|f| !f.suppressed).count();
    let open = shown - new + identity.awaiting.len();
    let since = match &identity.baseline {
        Some(head) => format!("Since the last run (`{}`)", short(head)),
        None => "First commit reviewed on this pull request".to_owned(),
    };
    let mut out = format!(
        "\n**{since}:** 🆕 {new} new · {open} still open · ✅ {} resolved\n",
        identity.resolved.len()
    );
    for note in &identity.notes {
        let _ = writeln!(out, "\n⚠️ {}", escape_inline(note));
    }
    if !identity.refused.is_empty() {
        let _ = writeln!(
            out,
            "\n⚠️ {} `/consensus` command(s) not followed: see **{REFUSED_TITLE}** below.",
            identity.refused.len()
        );
    }
    if identity.resolved.is_empty() && identity.awaiting.is_empty() {
        return out;
    }
    if !lists {
        out.push_str("\n_The resolved and awaiting lists are in the JSON report._\n");
        return out;
    }
    let _ = writeln!(
        out,
        "\n<details>\n<summary>Resolved ({}), still open awaiting re-review ({})</summary>\n",
        identity.resolved.len(),
        identity.awaiting.len()
    );
    let items = identity
        .resolved
        .iter()
        .map(|t| ("✅", t))
        .chain(identity.awaiting.iter().map(|t| ("⏳", t)));
    push_capped(&mut out, items, |(mark, t)| tracked_line(mark, t));
    out.push_str("\n</details>\n");
    out
}

fn tracked_line(mark: &str, item: &Tracked) -> String {
    let mut line = format!(
        "- {mark} `{}` {}",
        item.fingerprint,
        escape_inline(&item.title)
    );
    if !item.file.is_empty() {
        let _ = write!(line, " · {}", escape_inline(&item.file));
    }
    let _ = write!(line, " — {}", escape_inline(&item.why));
    if let Some(ack) = &item.acknowledged {
        let _ = write!(line, " · acknowledged by {}", escape_inline(&ack.by));
    }
    line.push('\n');
    line
}

/// Acknowledged findings, folded, each with who, why and until when.
pub fn acknowledged(
    outcome: &Outcome,
    render_finding: &dyn Fn(&SynthesizedFinding) -> String,
) -> String {
    let acked: Vec<&SynthesizedFinding> = outcome.acknowledged().collect();
    if acked.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "\n<details>\n<summary><b>Acknowledged ({})</b>: not counted by the gate</summary>\n\n",
        acked.len()
    );
    push_capped(&mut out, acked.into_iter(), |f| {
        let mut item = render_finding(f);
        if let Some(ack) = f.identity.as_ref().and_then(|i| i.acknowledged.as_ref()) {
            let _ = writeln!(item, "  ✋ {}", ack_text(ack));
        }
        item
    });
    out.push_str("\n</details>\n");
    out
}

/// The lines under a finding that say which `/consensus split` or `same` made it what it
/// is: `  ✂️ split from `rc-…` at the request of alice · [comment](…)`. Empty for most.
pub fn corrections_of(finding: &SynthesizedFinding, outcome: &Outcome) -> String {
    let Some(fp) = finding.fingerprint() else {
        return String::new();
    };
    let mut out = String::new();
    for correction in &outcome.identity.corrections {
        if correction.findings.iter().any(|f| f == fp) {
            let _ = writeln!(out, "  {}", correction_text(correction));
        }
    }
    out
}

/// `✂️ split from `rc-…` at the request of alice · [comment](…)`, or `🔗 joined `rc-…` and
/// `rc-…` at the request of bob`, and why it is not applied when it is not. The login is
/// people's text (escaped); fingerprints are our own alphabet.
fn correction_text(correction: &Correction) -> String {
    let named: Vec<String> = correction
        .fingerprints
        .iter()
        .map(|fp| format!("`{}`", escape_inline(fp)))
        .collect();
    let by = escape_inline(&clip(&correction.by, LOGIN_CHARS));
    let mut text = match correction.kind {
        CorrectionKind::Split => {
            format!("✂️ split from {} at the request of {by}", named.join(", "))
        }
        CorrectionKind::Same => format!("🔗 joined {} at the request of {by}", named.join(" and ")),
    };
    if let Some(url) = correction.comment_url.as_deref().and_then(escape_url) {
        let _ = write!(text, " · [comment]({url})");
    }
    if let Some(note) = &correction.note {
        let _ = write!(text, " — {}", escape_inline(note));
    }
    text
}

fn ack_text(ack: &Ack) -> String {
    let mut text = format!(
        "acknowledged by {}: “{}”",
        escape_inline(&ack.by),
        escape_inline(&ack.reason)
    );
    if let Some(until) = &ack.until {
        let _ = write!(text, " · until {}", escape_inline(until));
    }
    if let Some(url) = ack.comment_url.as_deref().and_then(escape_url) {
        let _ = write!(text, " · [comment]({url})");
    }
    text
}

/// Commands that were not followed, shown unfolded (someone typed each and is waiting for
/// an answer): who, the line and why, then the rule each kind broke, once. Then the
/// acknowledgements that lapsed, folded, and a line on how to acknowledge. Empty when there
/// are no findings and nothing to report.
pub fn commands(outcome: &Outcome) -> String {
    let identity = &outcome.identity;
    let mut out = String::new();
    if !identity.refused.is_empty() {
        let _ = writeln!(
            out,
            "\n### {} ({})\n\nNothing was acknowledged, taken back or corrected by these:\n",
            REFUSED_TITLE,
            identity.refused.len()
        );
        push_capped(&mut out, identity.refused.iter(), refusal_line);
        out.push_str("\nWhat a command needs:\n\n");
        for kind in RefusalKind::ALL {
            if identity.refused.iter().any(|r| r.kind == kind) {
                let _ = writeln!(out, "- {}", kind.rule());
            }
        }
    }
    if !identity.corrections.is_empty() {
        let _ = writeln!(
            out,
            "\n<details>\n<summary>Merges corrected by people ({})</summary>\n",
            identity.corrections.len()
        );
        push_capped(&mut out, identity.corrections.iter(), |c| {
            let now: Vec<String> = c.findings.iter().map(|fp| format!("`{fp}`")).collect();
            let mut line = format!("- {}", correction_text(c));
            if !now.is_empty() {
                let _ = write!(line, " → now {}", now.join(", "));
            }
            line.push('\n');
            line
        });
        out.push_str("\n</details>\n");
    }
    if !identity.lapsed.is_empty() {
        let _ = writeln!(
            out,
            "\n<details>\n<summary>Acknowledgements that lapsed ({})</summary>\n",
            identity.lapsed.len()
        );
        let lapsed = identity.lapsed.iter().map(|l| {
            format!(
                "- `{}` {} — lapsed, it no longer holds\n",
                l.fingerprint,
                ack_text(&l.ack)
            )
        });
        push_capped(&mut out, lapsed, |line| line);
        out.push_str("\n</details>\n");
    }
    let any = outcome.findings.iter().any(|f| !f.suppressed)
        || !identity.refused.is_empty()
        || !identity.corrections.is_empty();
    if (any || !identity.lapsed.is_empty()) && identity.state.v != 0 {
        out.push_str(
            "\n<sub>To acknowledge a finding, comment `/consensus ack <fingerprint> <reason> \
             [until YYYY-MM-DD]` (needs write access; a reason, not just a label); \
             `/consensus unack <fingerprint>` takes it back. To correct a merge, \
             `/consensus split <fingerprint>` or `/consensus same <fingerprint> \
             <fingerprint>`; deleting the comment undoes it.</sub>\n",
        );
    }
    out
}

/// The heading of the commands not followed, which the line at the top points to.
const REFUSED_TITLE: &str = "Commands not followed";

/// Longest login shown (GitHub's are at most 39 characters; a saved folder may hold any).
const LOGIN_CHARS: usize = 40;

/// `- alice: /consensus ack … ([comment](…)) — not followed: why`, escaped: the login, the
/// line and the why are people's text.
fn refusal_line(refusal: &Refusal) -> String {
    let mut line = format!(
        "- {}: {}",
        escape_inline(&clip(&refusal.by, LOGIN_CHARS)),
        escape_inline(&refusal.command)
    );
    if let Some(url) = refusal.comment_url.as_deref().and_then(escape_url) {
        let _ = write!(line, " ([comment]({url}))");
    }
    let _ = writeln!(line, " — not followed: {}", escape_inline(&refusal.why));
    line
}

/// The hidden state block, or nothing before the identity stage ran.
pub fn state_block(outcome: &Outcome) -> String {
    if outcome.identity.state.v == 0 {
        return String::new();
    }
    state::encode(&outcome.identity.state)
}

fn push_capped<T>(out: &mut String, items: impl Iterator<Item = T>, line: impl Fn(T) -> String) {
    let mut rest = 0;
    for (i, item) in items.enumerate() {
        if i < LIST_MAX {
            out.push_str(&line(item));
        } else {
            rest += 1;
        }
    }
    if rest > 0 {
        let _ = writeln!(out, "- … and {rest} more (the JSON report lists them all)");
    }
}

#[cfg(test)]
mod tests {
    use crate::adapters::BotSelection;
    use crate::api::{IssueComment, PrSnapshot, User};
    use crate::identity::{state, Access, IdentityInput};
    use crate::model::{NormalizedFinding, Severity};
    use crate::pipeline::{analyze, AnalysisOptions, ExtraSource};
    use crate::render::{render_comment, RenderOptions};

    fn many(n: usize) -> Vec<ExtraSource> {
        let findings = (0..n)
            .map(|i| {
                let mut f = NormalizedFinding::new(
                    "reviewer",
                    i.to_string(),
                    Severity::High,
                    "bug",
                    format!("A rather long title for finding number {i} that takes some room"),
                )
                .at(format!("src/module_{i:04}/file.rs"), Some(10));
                f.detail = "Explained at length.".into();
                f
            })
            .collect();
        vec![ExtraSource::ok("reviewer", findings)]
    }

    #[test]
    fn the_state_block_always_fits_whole_at_the_end() {
        let outcome = analyze(
            None,
            &BotSelection::Listed(Vec::new()),
            many(600),
            &AnalysisOptions::default(),
        );
        let options = RenderOptions::default();
        let body = render_comment(&outcome, &options);
        assert!(
            body.chars().count() <= options.max_chars,
            "{}",
            body.chars().count()
        );
        assert!(body.contains("cut to fit"), "the findings made room");
        let tail = body.trim_end().lines().last().unwrap();
        assert!(tail.starts_with(state::OPENER));
        assert_eq!(
            state::decode(&body),
            Ok(Some(outcome.identity.state.clone()))
        );
        assert!(
            outcome.identity.state.seen.len() < 600,
            "the block was bounded"
        );
    }

    /// People's text in `body` stayed text: no @mention of bob or carol, no marker but ours,
    /// every `<details>` closed by its own tag.
    fn assert_inert(body: &str) {
        assert!(
            !body.contains("@bob") && !body.contains("@carol"),
            "no mentions"
        );
        assert_eq!(
            body.matches("<!-- review-bot-ack").count(),
            1,
            "only our marker"
        );
        assert_eq!(
            body.matches("</details>").count(),
            body.matches("<details>").count()
        );
    }

    /// Issue 19: every kind of refusal is shown unfolded with why and its rule, once per
    /// kind; people's text is escaped; the list is bounded.
    #[test]
    fn each_refusal_shows_why_and_its_rule_escaped_and_bounded() {
        use crate::identity::{Refusal, RefusalKind};
        let mut outcome = analyze(
            None,
            &BotSelection::Listed(Vec::new()),
            many(1),
            &AnalysisOptions::default(),
        );
        let hostile = "/consensus ack rc-00000000 @bob </details> <!-- review-bot-ack --> `x`";
        outcome.identity.refused = RefusalKind::ALL
            .into_iter()
            .map(|kind| {
                let why = format!("{} said @carol **loud**", kind.as_str());
                Refusal::new(
                    kind,
                    why,
                    &format!("eve-{}-{}", kind.as_str(), "x".repeat(60)),
                    hostile,
                )
            })
            .collect();
        let body = render_comment(&outcome, &RenderOptions::default());
        let top = body.find("### Confirmed").unwrap_or(body.len());
        let n = RefusalKind::ALL.len();
        assert!(
            body[..top].contains(&format!("⚠️ {n} `/consensus` command(s) not followed")),
            "the top of the comment points to them: {body}"
        );
        let at = body
            .find(&format!("### Commands not followed ({n})"))
            .expect("unfolded");
        let section = &body[at..];
        for kind in RefusalKind::ALL {
            assert!(
                section.contains(&format!("not followed: {} said", kind.as_str())),
                "{kind:?}: {section}"
            );
            assert_eq!(section.matches(kind.rule()).count(), 1, "{kind:?} once");
        }
        assert_inert(&body);
        assert!(section.contains("\\*\\*loud\\*\\*"));
        assert!(!section.contains(&"x".repeat(60)), "logins are clipped");

        // Bounded: 25 lines, the rest counted; each rule still once.
        let one = outcome.identity.refused[1].clone();
        outcome.identity.refused = vec![one; 40];
        let body = render_comment(&outcome, &RenderOptions::default());
        assert_eq!(body.matches("— not followed:").count(), 25);
        assert!(body.contains("… and 15 more"), "{body}");
        assert_eq!(body.matches(RefusalKind::BadReason.rule()).count(), 1);
    }

    /// Each correction in force is shown under the findings it made and listed, folded,
    /// with who asked and where; the login is people's text, escaped like the rest.
    #[test]
    fn corrections_are_shown_beside_their_findings_escaped() {
        use crate::identity::{Correction, CorrectionKind};
        let mut outcome = analyze(
            None,
            &BotSelection::Listed(Vec::new()),
            many(2),
            &AnalysisOptions::default(),
        );
        let fps: Vec<String> = outcome
            .findings
            .iter()
            .map(|f| f.fingerprint().unwrap().to_owned())
            .collect();
        // Within the 40 characters of a login shown.
        let hostile = "**x**@bob</details><!-- review-bot-ack";
        outcome.identity.corrections = vec![
            Correction {
                kind: CorrectionKind::Split,
                fingerprints: vec!["rc-00000000".into()],
                by: hostile.into(),
                comment_url: Some("https://github.com/o/r/pull/1#issuecomment-7".into()),
                comment_id: 7,
                findings: fps.clone(),
                applied: true,
                note: None,
            },
            Correction {
                kind: CorrectionKind::Same,
                fingerprints: vec![fps[0].clone(), "rc-11111111".into()],
                by: "carol".into(),
                comment_url: None,
                comment_id: 8,
                findings: vec![fps[0].clone()],
                applied: false,
                note: Some("rc-11111111 is no longer reported".into()),
            },
        ];
        let body = render_comment(&outcome, &RenderOptions::default());
        let split = "✂️ split from `rc-00000000` at the request of ";
        assert_eq!(
            body.matches(split).count(),
            3,
            "two findings and the list: {body}"
        );
        assert!(body.contains(&format!(
            "🔗 joined `{}` and `rc-11111111` at the request of carol — rc-11111111 is no \
             longer reported",
            fps[0]
        )));
        assert!(body.contains("[comment](https://github.com/o/r/pull/1#issuecomment-7)"));
        assert!(body.contains("<summary>Merges corrected by people (2)</summary>"));
        assert!(body.contains(&format!("→ now `{}`, `{}`", fps[0], fps[1])));
        assert_inert(&body);
        assert!(body.contains("\\*\\*x\\*\\*"));
        // The help line at the bottom names all four commands.
        let help = body
            .lines()
            .find(|l| l.starts_with("<sub>To acknowledge"))
            .unwrap();
        for command in [
            "/consensus ack",
            "/consensus unack",
            "/consensus split <fingerprint>",
            "/consensus same <fingerprint> <fingerprint>",
        ] {
            assert!(help.contains(command), "{command}: {help}");
        }
    }

    #[test]
    fn people_text_in_acks_and_refusals_is_escaped() {
        let first = analyze(
            None,
            &BotSelection::Listed(Vec::new()),
            many(1),
            &AnalysisOptions::default(),
        );
        let fp = first.findings[0].fingerprint().unwrap().to_owned();
        let said = |id: u64, login: &str, body: String| IssueComment {
            id,
            user: Some(User {
                login: login.into(),
                id,
                kind: "User".into(),
            }),
            body: Some(body),
            ..IssueComment::default()
        };
        let snapshot = PrSnapshot {
            issue_comments: vec![
                said(
                    1,
                    "alice",
                    format!(
                        "/consensus ack {fp} ping @bob <!-- review-bot-ack --> `x` is fine here"
                    ),
                ),
                said(
                    2,
                    "eve",
                    format!("/consensus ack {fp} @carol </details> **bold** reason"),
                ),
            ],
            ..PrSnapshot::default()
        };
        let mut identity = IdentityInput {
            today: chrono::NaiveDate::from_ymd_opt(2026, 1, 1),
            ..IdentityInput::default()
        };
        identity.permissions.insert(
            "alice".into(),
            Access::Granted {
                role: "write".into(),
            },
        );
        identity.permissions.insert(
            "eve".into(),
            Access::Denied {
                role: "read".into(),
            },
        );
        let options = AnalysisOptions {
            identity,
            ..AnalysisOptions::default()
        };
        let outcome = analyze(
            Some(&snapshot),
            &BotSelection::Listed(Vec::new()),
            many(1),
            &options,
        );
        assert_eq!(outcome.acknowledged().count(), 1);
        let body = render_comment(&outcome, &RenderOptions::default());
        assert_inert(&body);
        assert!(body.contains("\\*\\*bold\\*\\*"));
    }
}
