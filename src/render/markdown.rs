//! The sticky comment (CONTRACT section 5). Every piece of bot text goes through
//! `escape`; links are built only from data that passes `escape_url`/`encode_path`.

use std::fmt::Write as _;

use crate::consensus::{locus, render_provenance};
use crate::gate;
use crate::model::{
    ConsensusLevel, Coverage, FailOn, Gate, Outcome, Severity, SourceState, SourceStatus,
    SuppressionReason, SynthesizedFinding,
};
use crate::render::escape::{encode_path, escape_inline, escape_url, plain_code_span};
use crate::render::identity;

/// The marker every sticky comment's first line carries.
pub const MARKER: &str = "<!-- review-bot-ack -->";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderOptions {
    /// `comment-header` input: the marker becomes `<!-- review-bot-ack:HEADER -->`.
    pub header: Option<String>,
    /// Web base for file links (`https://github.com`); `None` renders loci unlinked.
    pub server_url: Option<String>,
    /// Body budget in characters.
    pub max_chars: usize,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            header: None,
            server_url: None,
            max_chars: 65_536,
        }
    }
}

/// The marker line for a header.
pub fn marker(header: Option<&str>) -> String {
    match header {
        Some(h) if !h.is_empty() => format!("<!-- review-bot-ack:{h} -->"),
        _ => MARKER.to_owned(),
    }
}

fn level_title(level: ConsensusLevel) -> &'static str {
    match level {
        ConsensusLevel::Confirmed => "Confirmed",
        ConsensusLevel::NeedsVerification => "Needs verification",
        ConsensusLevel::Unverified => "Unverified",
    }
}

/// How much of the sources' notes the head shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Notes {
    /// Each kind of note once with its count, a few examples of each.
    Summary,
    /// Only how many notes each source has (when the summary would not fit).
    Counts,
}

/// Distinct notes shown per source; the rest are counted.
const NOTE_KINDS: usize = 5;
/// Example object ids shown per kind of unreadable object.
const NOTE_EXAMPLES: usize = 3;
/// Longest note shown (characters, before escaping).
const NOTE_CHARS: usize = 200;

/// Marker, verdict, what changed since the last run, counts and the sources. Never more than
/// a quarter of the body: with too many notes to summarise only their counts are shown, then
/// the resolved / awaiting lists give way to their counts, and a head still too long is cut
/// with a line saying so (the JSON report has every note and every list).
fn render_head(outcome: &Outcome, options: &RenderOptions) -> String {
    let budget = options.max_chars / 4;
    for (notes, lists) in [
        (Notes::Summary, true),
        (Notes::Counts, true),
        (Notes::Counts, false),
    ] {
        let head = render_head_with(outcome, options, notes, lists);
        if head.chars().count() <= budget {
            return head;
        }
    }
    let head = render_head_with(outcome, options, Notes::Counts, false);
    let cut_line = "\n_✂️ The list of sources was cut to fit the comment; the JSON report \
                    lists them all._\n";
    let keep = budget.saturating_sub(cut_line.chars().count());
    let mut cut: String = head.chars().take(keep).collect();
    // End on a whole line, so no markup is left open mid-line; the marker line always stays.
    let marker_line = marker(options.header.as_deref()).len() + 1;
    match cut.rfind('\n') {
        Some(end) if end + 1 >= marker_line => cut.truncate(end + 1),
        _ => cut = head[..marker_line].to_owned(),
    }
    cut.push_str(cut_line);
    cut
}

/// The head with the sources' `notes` at that detail, and the resolved / awaiting lists
/// folded in or only counted.
fn render_head_with(
    outcome: &Outcome,
    options: &RenderOptions,
    notes: Notes,
    lists: bool,
) -> String {
    let mut out = marker(options.header.as_deref());
    out.push('\n');
    let blocking = outcome
        .fail_on
        .threshold()
        .map(|t| {
            outcome
                .surfaced()
                .filter(|f| f.consensus.level >= t)
                .count()
        })
        .unwrap_or(0);
    let fail_on = match outcome.fail_on {
        FailOn::Confirmed => "confirmed",
        FailOn::NeedsVerification => "needs-verification",
        FailOn::Unverified => "unverified",
        FailOn::Never => "never",
    };
    let severe = gate::severity_blocking(&outcome.findings, outcome.fail_on_severity);
    let _ = match (outcome.gate, outcome.fail_on) {
        (Gate::Fail, _) => {
            // Each rule that failed, in the order the gate applies them.
            let mut reasons = Vec::new();
            if blocking > 0 {
                reasons.push(format!(
                    "**{blocking}** surfaced finding(s) at or above `{fail_on}`"
                ));
            }
            if let (Some(floor), false) = (outcome.fail_on_severity, severe.is_empty()) {
                reasons.push(format!(
                    "**{}** (`fail-on-severity: {floor}`)",
                    severity_phrase(&severe)
                ));
            }
            if !outcome.not_reviewed.is_empty() {
                reasons.push(format!("not reviewed: {}", not_reviewed_list(outcome)));
            }
            writeln!(
                out,
                "## ❌ review-consensus: gate failed\n\n{}.",
                reasons.join("; ")
            )
        }
        (Gate::Pass, FailOn::Never)
            if outcome.fail_on_severity.is_none() && outcome.required_bots.is_empty() =>
        {
            writeln!(
                out,
                "## ✅ review-consensus: gate passed\n\nThe gate is off (`fail-on: never`)."
            )
        }
        (Gate::Pass, _) => {
            let mut passed = Vec::new();
            if outcome.fail_on != FailOn::Never {
                passed.push(format!("No surfaced finding at or above `{fail_on}`"));
            }
            if let Some(floor) = outcome.fail_on_severity {
                passed.push(format!("none at or above severity `{floor}`"));
            }
            if !outcome.required_bots.is_empty() {
                passed.push("every required bot reviewed the head commit".to_owned());
            }
            let mut line = passed.join("; ");
            if let Some(first) = line.get(..1) {
                line = first.to_uppercase() + &line[1..];
            }
            writeln!(out, "## ✅ review-consensus: gate passed\n\n{line}.")
        }
    };
    out.push_str(&if lists {
        identity::changes(outcome)
    } else {
        identity::changes_line(outcome)
    });
    let counts = [
        outcome.count_at(ConsensusLevel::Confirmed),
        outcome.count_at(ConsensusLevel::NeedsVerification),
        outcome.count_at(ConsensusLevel::Unverified),
        outcome.suppressed().count(),
    ];
    // A Pre-existing column only when there are any: a PR without keeps its table.
    let pre_existing = outcome.pre_existing().count();
    let (extra_head, extra_rule, extra_count) = if pre_existing > 0 {
        (" Pre-existing |", "---:|", format!(" {pre_existing} |"))
    } else {
        ("", "", String::new())
    };
    let _ = writeln!(
        out,
        "\n| Confirmed | Needs verification | Unverified | Suppressed |{extra_head}\n\
         |---:|---:|---:|---:|{extra_rule}\n\
         | {} | {} | {} | {} |{extra_count}",
        counts[0], counts[1], counts[2], counts[3]
    );
    render_sources(&mut out, outcome, notes);
    out
}

/// `1 critical finding`, `1 critical and 2 high findings`, `3 high findings`.
pub fn severity_phrase(counts: &[(Severity, usize)]) -> String {
    let total: usize = counts.iter().map(|(_, n)| n).sum();
    let parts: Vec<String> = counts.iter().map(|(s, n)| format!("{n} {s}")).collect();
    let joined = match parts.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => "0".to_owned(),
    };
    let noun = if total == 1 { "finding" } else { "findings" };
    format!("{joined} {noun}")
}

/// `coderabbit|sourcery, codex` (names from the configuration, escaped anyway).
fn not_reviewed_list(outcome: &Outcome) -> String {
    outcome
        .not_reviewed
        .iter()
        .map(|g| escape_inline(g))
        .collect::<Vec<_>>()
        .join(", ")
}

fn render_sources(out: &mut String, outcome: &Outcome, detail: Notes) {
    let ran: Vec<String> = outcome
        .sources
        .iter()
        .filter(|s| s.coverage.ran())
        .map(|s| match s.coverage {
            Coverage::Stale => format!("{} (stale)", escape_inline(&s.bot)),
            _ => escape_inline(&s.bot),
        })
        .collect();
    let _ = write!(
        out,
        "\nAgreement is out of **{}** bot(s) that ran",
        outcome.bots_ran
    );
    if ran.is_empty() {
        out.push_str(".\n");
    } else {
        let _ = writeln!(out, ": {}.", ran.join(", "));
    }
    // Sources with notes one by one; the others grouped by state ("absent: a, b").
    let mut missing: Vec<String> = Vec::new();
    let mut quiet: Vec<(String, Vec<String>)> = Vec::new();
    for source in outcome
        .sources
        .iter()
        .filter(|s| s.status != SourceState::Ok || !s.coverage.ran())
    {
        let state = missing_state(source);
        // Plain states group ("absent: a, b"); one with a signal or notes stands alone.
        if source.notes.is_empty() && !state.contains(':') {
            match quiet.iter_mut().find(|(s, _)| *s == state) {
                Some((_, bots)) => bots.push(escape_inline(&source.bot)),
                None => quiet.push((state, vec![escape_inline(&source.bot)])),
            }
        } else {
            missing.push(describe_missing(source, detail));
        }
    }
    missing.extend(
        quiet
            .into_iter()
            .map(|(state, bots)| format!("{state}: {}", bots.join(", "))),
    );
    if !missing.is_empty() {
        let _ = writeln!(
            out,
            "\n**Sources missing or malformed:** {}.",
            missing.join("; ")
        );
    }
    // Sources that ran but left something out: unreadable comments, notices, filtered threads.
    let noted: Vec<String> = outcome
        .sources
        .iter()
        .filter(|s| s.status == SourceState::Ok && s.coverage.ran())
        .filter(|s| s.skipped > 0 || !s.notes.is_empty())
        .map(|s| {
            let mut text = escape_inline(&s.bot);
            if s.skipped > 0 {
                let _ = write!(text, " ({} skipped as unreadable)", s.skipped);
            }
            append_notes(&mut text, s, detail);
            text
        })
        .collect();
    if !noted.is_empty() {
        let _ = writeln!(out, "\n**Notes on sources:** {}.", noted.join("; "));
    }
    render_unread(out, outcome, detail);
    if let Some(judge) = &outcome.judge {
        // Our own text, but the model name is the user's input: escaped like any other.
        let _ = writeln!(out, "\n**Model judge:** {}.", escape_inline(&judge.line()));
    }
}

/// Bots named one by one under "Bots not read"; the rest are counted.
const UNREAD_SHOWN: usize = 8;

/// The bot accounts whose review comments no source read (issue 24), each with how many and
/// the `bots` entry that would read it.
fn render_unread(out: &mut String, outcome: &Outcome, detail: Notes) {
    let unread = &outcome.unread_bots;
    if unread.is_empty() {
        return;
    }
    if detail == Notes::Counts {
        let _ = writeln!(
            out,
            "\n**Bots not read:** {} (the JSON report names them).",
            unread.len()
        );
        return;
    }
    let code = |text: &str| plain_code_span(text).unwrap_or_else(|| escape_inline(text));
    let mut named: Vec<String> = unread
        .iter()
        .take(UNREAD_SHOWN)
        .map(|bot| {
            let noun = if bot.comments == 1 {
                "review comment"
            } else {
                "review comments"
            };
            let hint = code(&format!("bots: {}", bot.hint));
            format!("{} ({} {noun}; {hint})", code(&bot.login), bot.comments)
        })
        .collect();
    if unread.len() > UNREAD_SHOWN {
        named.push(format!(
            "{} more in the JSON report",
            unread.len() - UNREAD_SHOWN
        ));
    }
    let _ = writeln!(
        out,
        "\n**Bots not read:** {}. No source reads them, so their comments count toward no \
         agreement; a `bots` input that is set reads only what it lists, so list the bots you \
         read beside them.",
        named.join(", ")
    );
}

/// `declined (notice: quota)`, `absent (check run X: in_progress)`, `absent`.
fn missing_state(source: &SourceStatus) -> String {
    let state = match (source.status, source.coverage) {
        (SourceState::Malformed, _) => "malformed",
        (_, Coverage::Declined) => "declined",
        (_, Coverage::Absent) => "absent",
        _ => "missing",
    };
    let signal = source.coverage_signal.as_str();
    let says_more = !signal.is_empty() && signal != "nothing posted" && signal != "notice";
    if says_more && matches!(source.coverage, Coverage::Declined | Coverage::Absent) {
        format!("{state}: {}", escape_inline(signal))
    } else {
        state.to_owned()
    }
}

fn describe_missing(source: &SourceStatus, detail: Notes) -> String {
    let mut text = format!("{} ({})", escape_inline(&source.bot), missing_state(source));
    append_notes(&mut text, source, detail);
    text
}

fn append_notes(text: &mut String, source: &SourceStatus, detail: Notes) {
    if source.notes.is_empty() {
        return;
    }
    match detail {
        Notes::Summary => {
            let _ = write!(text, ": {}", summarise_notes(&source.notes).join(", "));
        }
        Notes::Counts => {
            let _ = write!(text, ": {} note(s) in the JSON report", source.notes.len());
        }
    }
}

/// One kind of note: an unreadable object's (`skipped: SURFACE #ID: REASON`, grouped by
/// surface and reason with the ids as examples) or any other note (grouped when equal).
#[derive(Debug)]
struct NoteKind<'a> {
    surface: Option<&'a str>,
    /// The reason with quoted values masked (the grouping key).
    text: String,
    /// The first note's own reason, shown when it is the only one of its kind.
    first: &'a str,
    ids: Vec<&'a str>,
    count: usize,
}

/// A reason with the values it quotes masked (`` invalid type: integer `17` `` and `` `18` ``
/// are one reason): serde quotes the offending value.
fn reason_kind(reason: &str) -> String {
    let mut out = String::with_capacity(reason.len());
    let mut quote: Option<char> = None;
    for c in reason.chars() {
        match quote {
            Some(q) if c == q => {
                out.push('…');
                out.push(c);
                quote = None;
            }
            Some(_) => {}
            None => {
                out.push(c);
                if c == '`' || c == '"' {
                    quote = Some(c);
                }
            }
        }
    }
    if quote.is_some() {
        // An unclosed quote: keep the text as it was.
        return reason.to_owned();
    }
    out
}

/// `skipped: review_comments #5: invalid type` -> (`review_comments`, `5`, `invalid type`).
fn unreadable_note(note: &str) -> Option<(&str, &str, &str)> {
    let rest = note.strip_prefix("skipped: ")?;
    let (surface, rest) = rest.split_once(" #")?;
    let (id, reason) = rest.split_once(": ")?;
    (!id.contains(' ')).then_some((surface, id, reason))
}

/// The notes of one source, each kind once with its count and a few example ids, at most
/// `NOTE_KINDS` kinds and then how many more: 20,000 unreadable comments make one line.
fn summarise_notes(notes: &[String]) -> Vec<String> {
    let mut kinds: Vec<NoteKind<'_>> = Vec::new();
    let mut index: std::collections::HashMap<(Option<&str>, String), usize> =
        std::collections::HashMap::new();
    for note in notes {
        let (surface, id, first, text) = match unreadable_note(note) {
            Some((surface, id, reason)) => (
                Some(surface),
                Some(id).filter(|id| *id != "?"),
                reason,
                reason_kind(reason),
            ),
            None => (None, None, note.as_str(), note.clone()),
        };
        match index.get(&(surface, text.clone())) {
            Some(&at) => {
                let kind = &mut kinds[at];
                kind.count += 1;
                if let Some(id) = id.filter(|_| kind.ids.len() < NOTE_EXAMPLES) {
                    kind.ids.push(id);
                }
            }
            None => {
                index.insert((surface, text.clone()), kinds.len());
                kinds.push(NoteKind {
                    surface,
                    text,
                    first,
                    ids: id.into_iter().collect(),
                    count: 1,
                });
            }
        }
    }
    let shown = kinds.len().min(NOTE_KINDS);
    let mut out: Vec<String> = kinds[..shown]
        .iter()
        .map(|kind| {
            let shown = if kind.count == 1 {
                kind.first
            } else {
                &kind.text
            };
            let text = escape_inline(&crate::adapters::markdown::shorten(shown, NOTE_CHARS));
            let mut line = match kind.surface {
                Some(surface) => format!("skipped: {} — {text}", escape_inline(surface)),
                None => text,
            };
            // Plain ids: `#123` would link to issue 123.
            let ids: Vec<String> = kind.ids.iter().map(|id| escape_inline(id)).collect();
            let more = if kind.count > kind.ids.len() {
                ", …"
            } else {
                ""
            };
            match (kind.count, ids.is_empty()) {
                (1, true) => {}
                (1, false) => {
                    let _ = write!(line, " (id {})", ids.join(", "));
                }
                (n, true) => {
                    let _ = write!(line, " (×{n})");
                }
                (n, false) => {
                    let _ = write!(line, " (×{n}: ids {}{more})", ids.join(", "));
                }
            }
            line
        })
        .collect();
    let hidden: usize = kinds[shown..].iter().map(|k| k.count).sum();
    if hidden > 0 {
        out.push(format!("{hidden} more note(s) in the JSON report"));
    }
    out
}

/// The locus, linked to the file at the head commit when everything needed is known.
fn render_locus(
    finding: &SynthesizedFinding,
    outcome: &Outcome,
    options: &RenderOptions,
) -> String {
    let c = &finding.consensus;
    let text = escape_inline(&locus(&c.file, c.line));
    let base = options
        .server_url
        .as_deref()
        .and_then(escape_url)
        .map(|s| s.trim_end_matches('/').to_owned());
    match (base, outcome.head_sha.as_deref()) {
        (Some(base), Some(sha)) if !c.file.is_empty() && !outcome.repository.is_empty() => {
            let anchor = c.line.map(|l| format!("#L{l}")).unwrap_or_default();
            format!(
                "[{text}]({base}/{}/blob/{}/{}{anchor})",
                encode_path(&outcome.repository),
                encode_path(sha),
                encode_path(&c.file)
            )
        }
        _ => text,
    }
}

/// Each detecting bot, linked to its first comment on the finding; more comments by the
/// same bot as `[2]`, `[3]`.
fn render_bots(finding: &SynthesizedFinding) -> String {
    let c = &finding.consensus;
    let mut parts = Vec::with_capacity(c.detected_by.len());
    for bot in &c.detected_by {
        let mut urls: Vec<String> = Vec::new();
        for member in c.members.iter().filter(|m| &m.bot == bot) {
            if let Some(url) = member.provenance.url.as_deref().and_then(escape_url) {
                if !urls.contains(&url) {
                    urls.push(url);
                }
            }
        }
        let name = escape_inline(bot);
        let mut part = match urls.first() {
            Some(url) => format!("[{name}]({url})"),
            None => name.clone(),
        };
        for (i, url) in urls.iter().enumerate().skip(1) {
            let _ = write!(part, " [\\[{}\\]]({url})", i + 1);
        }
        // A bot repeating itself (a later round, a second anchor) counts once for agreement.
        let times = c.members.iter().filter(|m| &m.bot == bot).count();
        if times > 1 {
            let _ = write!(part, " (raised {times} times by {name})");
        }
        parts.push(part);
    }
    parts.join(", ")
}

fn render_finding(
    finding: &SynthesizedFinding,
    outcome: &Outcome,
    options: &RenderOptions,
) -> String {
    let c = &finding.consensus;
    let mut out = format!(
        "- {}**{}** · {} · {} · {}\n  by {} · score {}/27 · confidence {}\n",
        identity::badge(finding),
        c.severity,
        escape_inline(&c.title),
        render_locus(finding, outcome, options),
        render_provenance(c),
        render_bots(finding),
        finding.rank_score,
        merged_confidence_name(finding),
    );
    if let Some(why) = render_match_reasons(c) {
        let _ = writeln!(out, "  matched on: {why}");
    }
    out.push_str(&identity::corrections_of(finding, outcome));
    if finding.is_contested() {
        let reasons: Vec<String> = finding
            .contested_by
            .iter()
            .zip(
                finding
                    .contest_reasons
                    .iter()
                    .map(Some)
                    .chain(std::iter::repeat(None)),
            )
            .map(|(who, reason)| match reason {
                Some(reason) => format!("{}: {}", escape_inline(who), escape_inline(reason)),
                None => escape_inline(who),
            })
            .collect();
        let _ = writeln!(
            out,
            "  ⚠️ **contested**, needs human judgement — {}",
            reasons.join("; ")
        );
    }
    out
}

/// Shared terms a link shows in the comment (the report has them all).
const SHOWN_TERMS: usize = 3;

/// Why the members were judged one issue, one link after the other:
/// `lines 44/48 · same line, nearest to each other · both: \`includes\`, case · p=0.94`.
fn render_match_reasons(c: &crate::model::ConsensusFinding) -> Option<String> {
    let links: Vec<String> = c
        .match_reasons
        .iter()
        .map(|reason| {
            if let Some(judge) = &reason.judge {
                return judged_reason(reason, judge);
            }
            let mut parts = vec![escape_inline(&reason.lines)];
            if reason.probability.is_some() && !reason.rule.is_empty() {
                parts.push(escape_inline(&reason.rule));
            }
            let shared: Vec<String> = reason
                .shared
                .iter()
                .take(SHOWN_TERMS)
                .map(|t| escape_inline(t))
                .collect();
            if !shared.is_empty() {
                parts.push(format!("both: {}", shared.join(", ")));
            }
            if let Some(p) = reason.probability {
                parts.push(format!("p={p:.2}"));
            } else if reason.rule.starts_with("a person") {
                parts.push(escape_inline(&reason.rule));
            }
            parts.join(" · ")
        })
        .collect();
    (!links.is_empty()).then(|| links.join("; "))
}

/// A link the model judge made or refused: `lines 12/14 · judged the same by MODEL: WHY ·
/// p=0.41` (the fitted probability it overruled), or `kept apart from copilot#12: judged
/// different by MODEL: WHY · p=0.63`. The model's reason is untrusted text: escaped.
fn judged_reason(reason: &crate::model::MatchReason, judge: &crate::model::JudgeSaid) -> String {
    let model = escape_inline(&judge.model);
    let why = escape_inline(&judge.why);
    let mut text = if judge.same {
        format!(
            "{} · judged the same by {model}: {why}",
            escape_inline(&reason.lines)
        )
    } else {
        format!(
            "kept apart from {}: judged different by {model}: {why}",
            escape_inline(&reason.between[1])
        )
    };
    if let Some(p) = reason.probability {
        let _ = write!(text, " · p={p:.2}");
    }
    text
}

fn merged_confidence_name(finding: &SynthesizedFinding) -> &'static str {
    match finding.merged_confidence {
        crate::model::MergedConfidence::High => "high",
        crate::model::MergedConfidence::Medium => "medium",
        crate::model::MergedConfidence::Low => "low",
    }
}

fn render_suppressed(finding: &SynthesizedFinding) -> String {
    let c = &finding.consensus;
    let reason = finding
        .suppression_reason
        .map(SuppressionReason::description)
        .unwrap_or("suppressed");
    let bots: Vec<String> = c.detected_by.iter().map(|b| escape_inline(b)).collect();
    let contested = if finding.is_contested() {
        " · ⚠️ contested"
    } else {
        ""
    };
    format!(
        "- {reason}: **{}** · {} · {} · {}{contested}\n",
        c.severity,
        escape_inline(&c.title),
        escape_inline(&locus(&c.file, c.line)),
        bots.join(", ")
    )
}

/// A finding the bots say the PR did not introduce: fingerprint, severity, title, locus
/// (linked) and the bots (linked to their comments); it fails nothing.
fn render_pre_existing(
    finding: &SynthesizedFinding,
    outcome: &Outcome,
    options: &RenderOptions,
) -> String {
    let c = &finding.consensus;
    // The fingerprint without the 🆕 badge: "new" would read as "introduced here".
    let fingerprint = finding
        .fingerprint()
        .map(|fp| format!("`{fp}` "))
        .unwrap_or_default();
    format!(
        "- {fingerprint}**{}** · {} · {} · by {}\n",
        c.severity,
        escape_inline(&c.title),
        render_locus(finding, outcome, options),
        render_bots(finding),
    )
}

/// Tiers of listed findings: confirmed, needs-verification, unverified, suppressed,
/// pre-existing (cut in reverse order when the comment is too long).
const TIERS: usize = 5;

/// Index of the suppressed tier.
const SUPPRESSED: usize = 3;

/// Index of the pre-existing tier.
const PRE_EXISTING: usize = 4;

/// Rendered pieces; `render` assembles them keeping the first `keep[i]` items of each.
struct Sections {
    head: String,
    /// Confirmed, needs-verification, unverified, suppressed, pre-existing: each tier's first
    /// items, rendered (only those that can fit, see [`render_items`]), and how many it has.
    items: [Vec<String>; TIERS],
    totals: [usize; TIERS],
    suppressed_summary: String,
    /// Acknowledged findings (before the suppressed ones), commands not followed (after).
    acknowledged: String,
    commands: String,
}

const SECTION_NAMES: [&str; TIERS] = [
    "confirmed",
    "needs-verification",
    "unverified",
    "suppressed",
    "pre-existing",
];

impl Sections {
    fn assemble(&self, keep: [usize; TIERS], max_chars: usize) -> String {
        let mut out = self.head.clone();
        for (i, level) in ConsensusLevel::DESCENDING.into_iter().enumerate() {
            let items = &self.items[i][..keep[i]];
            if items.is_empty() {
                continue;
            }
            let total = self.totals[i];
            if level == ConsensusLevel::Confirmed {
                let _ = writeln!(out, "\n### {} ({total})\n", level_title(level));
                out.extend(items.iter().map(String::as_str));
            } else {
                let _ = writeln!(
                    out,
                    "\n<details>\n<summary><b>{} ({total})</b></summary>\n",
                    level_title(level)
                );
                out.extend(items.iter().map(String::as_str));
                out.push_str("\n</details>\n");
            }
        }
        out.push_str(&self.acknowledged);
        for (tier, summary) in [
            (
                SUPPRESSED,
                format!(
                    "Suppressed ({}): {}",
                    self.totals[SUPPRESSED], self.suppressed_summary
                ),
            ),
            (
                PRE_EXISTING,
                format!(
                    "Pre-existing ({}): not introduced by this PR, not counted by the gate",
                    self.totals[PRE_EXISTING]
                ),
            ),
        ] {
            if self.totals[tier] == 0 {
                continue;
            }
            let _ = writeln!(out, "\n<details>\n<summary>{summary}</summary>\n");
            out.extend(self.items[tier][..keep[tier]].iter().map(String::as_str));
            if keep[tier] < self.totals[tier] && keep[tier] == 0 {
                out.push_str("The list did not fit; see the JSON report.\n");
            }
            out.push_str("\n</details>\n");
        }
        out.push_str(&self.commands);
        let cut: Vec<String> = (0..TIERS)
            .filter(|&i| keep[i] < self.totals[i])
            .map(|i| format!("{} {}", self.totals[i] - keep[i], SECTION_NAMES[i]))
            .collect();
        if !cut.is_empty() {
            let total: usize = (0..TIERS).map(|i| self.totals[i] - keep[i]).sum();
            let _ = writeln!(
                out,
                "\n_✂️ {total} finding(s) cut to fit the comment size limit of {max_chars} \
                 characters ({}); the JSON report lists them all._",
                cut.join(", ")
            );
        }
        out
    }
}

/// `keep` after cutting `n` items, lowest tier first (pre-existing, suppressed list,
/// unverified, ...).
fn keep_after_cutting(lens: [usize; TIERS], mut n: usize) -> [usize; TIERS] {
    let mut keep = lens;
    for i in (0..TIERS).rev() {
        let cut = n.min(keep[i]);
        keep[i] -= cut;
        n -= cut;
    }
    keep
}

/// Each tier's items rendered in order (confirmed, needs-verification, unverified,
/// suppressed, pre-existing) until their length alone passes `budget`, and how many each
/// tier has. The
/// items kept are always the first ones in that order (the lowest tiers are cut first), so
/// an item after that point could never be kept: a large PR renders what can show, not
/// every finding.
fn render_items(
    outcome: &Outcome,
    options: &RenderOptions,
    budget: usize,
) -> ([Vec<String>; TIERS], [usize; TIERS]) {
    let mut items: [Vec<String>; TIERS] = Default::default();
    let mut totals = [0; TIERS];
    let mut spent = 0;
    let mut add = |tier: usize, render: &dyn Fn() -> String| {
        totals[tier] += 1;
        if spent <= budget {
            let item = render();
            spent += item.chars().count();
            items[tier].push(item);
        }
    };
    for (tier, level) in ConsensusLevel::DESCENDING.into_iter().enumerate() {
        for finding in outcome.surfaced().filter(|f| f.consensus.level == level) {
            add(tier, &|| render_finding(finding, outcome, options));
        }
    }
    for finding in outcome.suppressed() {
        add(SUPPRESSED, &|| render_suppressed(finding));
    }
    for finding in outcome.pre_existing() {
        add(PRE_EXISTING, &|| {
            render_pre_existing(finding, outcome, options)
        });
    }
    (items, totals)
}

pub fn render_comment(outcome: &Outcome, options: &RenderOptions) -> String {
    // The state block goes last and always whole: the findings make room for it.
    let state = identity::state_block(outcome);
    let with_state = |body: String| {
        if state.is_empty() {
            body
        } else {
            format!("{body}\n{state}\n")
        }
    };
    let budget = match state.chars().count() {
        0 => options.max_chars,
        n => options.max_chars.saturating_sub(n + 2),
    };

    let (items, totals) = render_items(outcome, options, budget);
    let mut reasons: Vec<(SuppressionReason, usize)> = Vec::new();
    for reason in outcome.suppressed().filter_map(|f| f.suppression_reason) {
        match reasons.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, n)) => *n += 1,
            None => reasons.push((reason, 1)),
        }
    }
    let suppressed_summary = reasons
        .iter()
        .map(|(r, n)| format!("{n} {}", r.description()))
        .collect::<Vec<_>>()
        .join("; ");
    let sections = Sections {
        head: render_head(outcome, options),
        items,
        totals,
        suppressed_summary,
        acknowledged: identity::acknowledged(outcome, &|f| render_finding(f, outcome, options)),
        commands: identity::commands(outcome),
    };

    let lens = sections.totals;
    let total: usize = lens.iter().sum();
    let fits = |cut: usize| {
        let keep = keep_after_cutting(lens, cut);
        // Keeping an item not rendered would already pass the budget.
        let rendered = (0..TIERS).all(|i| keep[i] <= sections.items[i].len());
        let body = rendered.then(|| sections.assemble(keep, options.max_chars))?;
        (body.chars().count() <= budget).then_some(body)
    };
    if let Some(body) = fits(0) {
        return with_state(body);
    }
    // The fewest cuts that fit: more cuts never make the body longer once the cut line shows.
    let (mut low, mut high) = (1, total);
    while low < high {
        let mid = low + (high - low) / 2;
        if fits(mid).is_some() {
            high = mid;
        } else {
            low = mid + 1;
        }
    }
    match fits(low) {
        Some(body) => with_state(body),
        // Even the head alone is over budget: cut at a character boundary (the state block
        // too, when even it does not fit: a cut block reads back as malformed, never wrong).
        None => {
            let head: String = sections
                .assemble(keep_after_cutting(lens, total), options.max_chars)
                .chars()
                .take(budget)
                .collect();
            with_state(head).chars().take(options.max_chars).collect()
        }
    }
}

#[cfg(test)]
mod tests;
