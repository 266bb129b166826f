//! `scorecard.md`: a table with a row per bot, then the overlap matrix. Pure.

use std::fmt::Write;

use super::score::{BotScore, Scorecard};
use crate::render::escape::escape_inline;

/// The precision rule, as the scorecard states it.
pub const PRECISION_RULE: &str = "Precision estimate = addressed / counted findings, where \
    counted leaves out style-only findings (category `style`) and informational ones \
    (severity `info`): nobody is expected to act on those, so they say nothing about whether \
    the bot was right. A finding is addressed when its review thread was resolved, the bot \
    marked it addressed, or the code at its lines changed in a later commit; a finding a \
    person disputed counts against the bot even if its thread was then resolved.";

pub fn render_markdown(card: &Scorecard) -> String {
    let mut out = String::new();
    let seen: Vec<&BotScore> = card.seen_bots().collect();
    let read = card.merged_prs - card.prs_unread.len();
    let _ = writeln!(
        out,
        "## Review bot scorecard: {}\n",
        escape_inline(&card.repository)
    );
    let _ = writeln!(
        out,
        "{} pull requests merged in the last {} days (since {}); {read} read.\n",
        card.merged_prs,
        card.since_days,
        card.since.get(..10).unwrap_or(&card.since),
    );
    if !card.prs_unread.is_empty() {
        let numbers: Vec<String> = card.prs_unread.iter().map(|n| format!("#{n}")).collect();
        let _ = writeln!(
            out,
            "> [!WARNING]\n> {} merged pull requests could not be read and are in no figure \
             below: {}. A later run reads them (the cache keeps the others).\n",
            card.prs_unread.len(),
            numbers.join(", ")
        );
    }
    if card.prs_without_thread_state > 0 {
        let _ = writeln!(
            out,
            "> [!NOTE]\n> Review-thread state could not be read on {} pull requests: resolved \
             threads there do not count as addressed.\n",
            card.prs_without_thread_state
        );
    }
    if seen.is_empty() {
        out.push_str("No configured review bot reviewed any of these pull requests.\n");
        return out;
    }

    out.push_str(
        "| bot | PRs reviewed | declined | absent | findings | addressed | open at merge \
         | disputed | also raised by another bot | precision estimate |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for bot in &seen {
        let precision = match bot.precision_estimate {
            Some(p) => format!(
                "{} ({}/{})",
                percent(p),
                bot.precision_basis.addressed,
                bot.precision_basis.counted
            ),
            None => "—".to_owned(),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {precision} |",
            escape_inline(&bot.bot),
            bot.prs_reviewed,
            bot.prs_declined,
            bot.prs_absent,
            bot.findings_raised,
            bot.findings_addressed,
            bot.findings_open_at_merge,
            bot.findings_disputed,
            share(bot.findings_agreed, bot.findings_raised),
        );
    }
    let unseen: Vec<String> = card
        .bots
        .iter()
        .filter(|b| !b.seen())
        .map(|b| escape_inline(&b.bot))
        .collect();
    if !unseen.is_empty() {
        let _ = writeln!(out, "\nNot seen on any of them: {}.", unseen.join(", "));
    }

    if seen.len() > 1 {
        out.push_str(
            "\n### Overlap\n\nShare of the row bot's findings that the column bot also raised \
             (judged the same issue).\n\n|  |",
        );
        for bot in &seen {
            let _ = write!(out, " {} |", escape_inline(&bot.bot));
        }
        out.push_str("\n|---|");
        out.push_str(&"---:|".repeat(seen.len()));
        out.push('\n');
        for row in &seen {
            let _ = write!(out, "| **{}** |", escape_inline(&row.bot));
            for column in &seen {
                if row.bot == column.bot {
                    out.push_str(" — |");
                } else {
                    let n = row.agreed_with.get(&column.bot).copied().unwrap_or(0);
                    let _ = write!(out, " {} |", share(n, row.findings_raised));
                }
            }
            out.push('\n');
        }
    }
    let _ = writeln!(out, "\n<sub>{PRECISION_RULE}</sub>");
    out
}

fn percent(ratio: f64) -> String {
    format!("{:.0}%", ratio * 100.0)
}

/// `40% (4)`, or `—` when there is nothing to divide.
fn share(n: usize, of: usize) -> String {
    if of == 0 {
        "—".to_owned()
    } else {
        format!("{} ({n})", percent(n as f64 / of as f64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Coverage;
    use crate::stats::record::FindingOutcome::{Addressed, Open};
    use crate::stats::score::score;
    use crate::stats::score::tests::{bot, finding, pr, window};

    #[test]
    fn a_row_per_seen_bot_and_the_overlap_matrix() {
        let records = [pr(
            1,
            vec![
                bot(
                    "alpha",
                    Coverage::Reviewed,
                    vec![
                        finding(Addressed, true, &["beta"]),
                        finding(Open, true, &[]),
                        finding(Open, true, &[]),
                        finding(Open, false, &[]),
                    ],
                ),
                bot(
                    "beta",
                    Coverage::Reviewed,
                    vec![finding(Addressed, true, &["alpha"])],
                ),
                bot("gamma", Coverage::Absent, vec![]),
            ],
        )];
        let names = ["alpha", "beta", "gamma"].map(str::to_owned);
        let md = render_markdown(&score(&window(), &records, &names, &[42]));
        assert!(md.contains("acme/shop"), "{md}");
        assert!(
            md.contains("2 pull requests merged in the last 30 days (since 2026-02-01); 1 read"),
            "{md}"
        );
        assert!(md.contains("#42"), "the unread PR is named: {md}");
        assert!(
            md.contains("| alpha | 1 | 0 | 0 | 4 | 1 | 3 | 0 | 25% (1) | 33% (1/3) |"),
            "{md}"
        );
        assert!(
            md.contains("| beta | 1 | 0 | 0 | 1 | 1 | 0 | 0 | 100% (1) | 100% (1/1) |"),
            "{md}"
        );
        assert!(md.contains("Not seen on any of them: gamma."), "{md}");
        assert!(md.contains("|  | alpha | beta |"), "{md}");
        assert!(md.contains("| **alpha** | — | 25% (1) |"), "{md}");
        assert!(md.contains("| **beta** | 100% (1) | — |"), "{md}");
        assert!(md.contains("style-only"), "the rule is stated: {md}");
    }

    #[test]
    fn bot_names_are_escaped() {
        let records = [pr(1, vec![bot("@evil|bot", Coverage::Reviewed, vec![])])];
        let md = render_markdown(&score(&window(), &records, &[], &[]));
        assert!(!md.contains("@evil"), "no mention: {md}");
        assert!(md.contains("\\|bot"), "no table breakout: {md}");
    }
}
