//! Which pairs the judge is asked, in which order, and each question exactly as sent.
//! Pure: findings and the fitted model in, questions out.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::consensus::{self, bucket_for_score, Band, Constraints, Model, Reach, Uncertain};
use crate::identity::fingerprint;
use crate::model::NormalizedFinding;

/// Characters of a finding's explanation a question carries.
pub const TEXT_CHARS: usize = 1_200;
/// Characters of a title.
pub const TITLE_CHARS: usize = 240;
/// Other findings of a bot in a file shown beside a side ([`Shape::Neighbourhood`]).
pub const NEIGHBOURS: usize = 6;

/// What a question shows of a pair. Both were measured with recorded answers on a third
/// of the corpus (docs/judge.md): the pair alone was as precise on two bots' findings,
/// found more of a bot's own repeats, and costs a third fewer tokens, so it is the default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Shape {
    /// The two findings alone.
    #[default]
    Pair,
    /// The two findings, and each bot's other findings in that file (line and title), so
    /// that "the previously reported gap remains" is read against what it refers to.
    Neighbourhood,
}

/// One side of a pair, as the judge reads it (every string is the bot's text, untrusted:
/// it travels only as a JSON string value).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Side {
    pub bot: String,
    pub file: String,
    /// `12`, or a range `10-14`; absent for a file-level or unanchored finding.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    /// The commit the bot reviewed (its review round), 10 hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// The finding's link, as the sticky comment shows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    pub title: String,
    /// The explanation: boilerplate, hidden markers and code blocks removed, cut.
    pub text: String,
    /// The code line(s) the comment is anchored on, when the API gave them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The bot's other findings in this file (line and title), nearest first.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub nearby: Vec<Neighbour>,
}

/// Another finding of the same bot in the same file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Neighbour {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    pub title: String,
}

/// One pair as sent: `{"id": "...", "a": {...}, "b": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Question {
    pub id: String,
    pub a: Side,
    pub b: Side,
}

/// A pair inside the band, with what orders it.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub id: String,
    pub a: usize,
    pub b: usize,
    /// The fitted probability (0 for a pair the fitted model never judges).
    pub p: f64,
    pub reach: Reach,
    /// Both name one distinctive identifier or literal.
    pub shares_code: bool,
    /// Two bots: the agreement the gate counts.
    pub cross_bot: bool,
    /// Its answer would change a finding's level (and so, maybe, the gate).
    pub consequential: bool,
}

/// How a finding is known across runs: its comment, or its review and id.
fn comment_key(finding: &NormalizedFinding) -> String {
    match finding.provenance.comment_id {
        Some(id) => format!("c{id}"),
        None => format!(
            "r{}|{}|{}",
            finding.provenance.review_id.unwrap_or(0),
            finding.bot,
            finding.finding_id
        ),
    }
}

/// The pair's id: the same for the same two comments on every run, whatever else changes.
pub fn pair_id(x: &NormalizedFinding, y: &NormalizedFinding) -> String {
    let (kx, ky) = (comment_key(x), comment_key(y));
    let (first, second) = if kx <= ky { (kx, ky) } else { (ky, kx) };
    format!("jp-{}", fingerprint::key(&["judge pair", &first, &second]))
}

/// The pairs inside `band`, most consequential first: a cross-bot pair whose answer changes
/// a finding's level, then other cross-bot pairs, then a bot's own pairs; within each, the
/// nearest to the link threshold first. Pairs a person already decided are left out.
pub fn candidates(
    findings: &[NormalizedFinding],
    model: &Model,
    band: Band,
    people: &Constraints,
    bots_ran: usize,
) -> Vec<Candidate> {
    let uncertain = consensus::uncertain_pairs(findings, model, band);
    if uncertain.is_empty() {
        return Vec::new();
    }
    let decided: BTreeSet<(usize, usize)> = people
        .apart
        .iter()
        .chain(&people.together)
        .map(|&(x, y)| (x.min(y), x.max(y)))
        .collect();
    let cluster_of = consensus::issue_clusters(findings, model, people);
    let mut bots: BTreeMap<usize, BTreeSet<&str>> = BTreeMap::new();
    for (finding, &cluster) in findings.iter().zip(&cluster_of) {
        bots.entry(cluster)
            .or_default()
            .insert(finding.bot.as_str());
    }
    let level = |count: usize| bucket_for_score(count as f64 / bots_ran.max(1) as f64);
    let threshold_odds = logit(model.threshold);
    let mut out: Vec<(Candidate, f64)> = uncertain
        .into_iter()
        .filter(|u| !decided.contains(&(u.a, u.b)))
        .map(|u| {
            let consequential = consequential(&u, findings, &cluster_of, &bots, level);
            let (x, y) = (&findings[u.a], &findings[u.b]);
            let distance = (logit(u.p) - threshold_odds).abs();
            let candidate = Candidate {
                id: pair_id(x, y),
                a: u.a,
                b: u.b,
                p: u.p,
                reach: u.reach,
                shares_code: u.shares_code,
                cross_bot: x.bot != y.bot,
                consequential,
            };
            (candidate, distance)
        })
        .collect();
    out.sort_by(|(x, dx), (y, dy)| {
        (!x.consequential, !x.cross_bot)
            .cmp(&(!y.consequential, !y.cross_bot))
            .then(dx.total_cmp(dy))
            .then_with(|| x.id.cmp(&y.id))
    });
    out.into_iter().map(|(c, _)| c).collect()
}

/// Whether the pair's answer changes a finding's level: apart now, joining them would put
/// more bots behind one finding than either has; together now, splitting would take a bot
/// away from it.
fn consequential(
    pair: &Uncertain,
    findings: &[NormalizedFinding],
    cluster_of: &[usize],
    bots: &BTreeMap<usize, BTreeSet<&str>>,
    level: impl Fn(usize) -> crate::model::ConsensusLevel,
) -> bool {
    let (x, y) = (&findings[pair.a], &findings[pair.b]);
    if x.bot == y.bot {
        return false;
    }
    let (cx, cy) = (cluster_of[pair.a], cluster_of[pair.b]);
    let (bx, by) = (&bots[&cx], &bots[&cy]);
    if cx != cy {
        let joined = bx.union(by).count();
        return level(joined) != level(bx.len()) || level(joined) != level(by.len());
    }
    // The same cluster: does either bot have no other member in it?
    let only = |bot: &str, me: usize| {
        !findings
            .iter()
            .enumerate()
            .any(|(k, f)| k != me && cluster_of[k] == cx && f.bot == bot)
    };
    let lost = usize::from(only(&y.bot, pair.b)).max(usize::from(only(&x.bot, pair.a)));
    lost > 0 && level(bx.len() - lost) != level(bx.len())
}

fn logit(p: f64) -> f64 {
    let p = p.clamp(1e-6, 1.0 - 1e-6);
    (p / (1.0 - p)).ln()
}

/// The question for one candidate. `body_of(i)` is finding `i`'s comment body (Markdown)
/// when the snapshot has it; without one, its title and detail are what the judge reads.
pub fn question(
    findings: &[NormalizedFinding],
    candidate: &Candidate,
    shape: Shape,
    body_of: &dyn Fn(usize) -> Option<String>,
) -> Question {
    let side = |me: usize, other: usize| {
        let mut side = side(findings, me, body_of);
        if shape == Shape::Neighbourhood {
            side.nearby = neighbours(findings, me, other);
        }
        side
    };
    Question {
        id: candidate.id.clone(),
        a: side(candidate.a, candidate.b),
        b: side(candidate.b, candidate.a),
    }
}

fn side(
    findings: &[NormalizedFinding],
    index: usize,
    body_of: &dyn Fn(usize) -> Option<String>,
) -> Side {
    let finding = &findings[index];
    let text = match body_of(index) {
        Some(body) => crate::adapters::read::common::explanation(&body, TEXT_CHARS * 2),
        None => finding.detail.clone(),
    };
    let text = consensus::without_boilerplate(&text);
    // The title is shown once: most explanations open with it.
    let title = clip(&finding.title, TITLE_CHARS);
    let text = text.trim();
    let text = text
        .strip_prefix(finding.title.trim_end_matches('…'))
        .filter(|_| !finding.title.ends_with('…'))
        .unwrap_or(text)
        .trim_start();
    Side {
        bot: finding.bot.clone(),
        file: finding.evidence.file.clone(),
        line: lines(finding),
        commit: finding
            .provenance
            .commit
            .as_deref()
            .map(|c| c.chars().take(10).collect()),
        url: finding.provenance.url.clone(),
        title,
        text: clip(text, TEXT_CHARS),
        code: Some(finding.evidence.snippet.trim_end())
            .filter(|c| !c.trim().is_empty())
            .map(str::to_owned),
        nearby: Vec::new(),
    }
}

fn lines(finding: &NormalizedFinding) -> Option<String> {
    let line = finding.evidence.line?;
    Some(match finding.evidence.end_line {
        Some(end) if end != line => format!("{}-{}", line.min(end), line.max(end)),
        _ => line.to_string(),
    })
}

/// The bot's other findings in the file, nearest to `me` first, leaving out the pair.
fn neighbours(findings: &[NormalizedFinding], me: usize, other: usize) -> Vec<Neighbour> {
    let finding = &findings[me];
    let at = finding.evidence.line.unwrap_or(0);
    let mut near: Vec<(u32, usize)> = findings
        .iter()
        .enumerate()
        .filter(|&(k, f)| {
            k != me
                && k != other
                && f.bot == finding.bot
                && f.evidence.file == finding.evidence.file
        })
        .map(|(k, f)| (f.evidence.line.unwrap_or(0).abs_diff(at), k))
        .collect();
    near.sort_unstable();
    near.into_iter()
        .take(NEIGHBOURS)
        .map(|(_, k)| Neighbour {
            line: lines(&findings[k]),
            title: clip(&findings[k].title, TITLE_CHARS),
        })
        .collect()
}

fn clip(text: &str, max: usize) -> String {
    crate::adapters::read::markdown::shorten(text, max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Severity;

    fn finding(bot: &str, comment: u64, line: u32, title: &str) -> NormalizedFinding {
        let mut f = NormalizedFinding::new(bot, comment.to_string(), Severity::High, "bug", title)
            .at("src/parse.rs", Some(line));
        f.provenance.comment_id = Some(comment);
        f.provenance.commit = Some("0123456789abcdef".to_owned());
        f
    }

    #[test]
    fn a_pair_id_is_the_two_comments_whatever_their_order_or_text() {
        let x = finding("copilot", 11, 3, "one");
        let mut y = finding("gemini", 22, 9, "two");
        let id = pair_id(&x, &y);
        assert_eq!(id, pair_id(&y, &x));
        assert!(id.starts_with("jp-") && id.len() == 11, "{id}");
        // A push moves the line and the bot rewords: the same two comments, the same id.
        y.evidence.line = Some(21);
        y.title = "reworded".to_owned();
        assert_eq!(pair_id(&x, &y), id);
        assert_ne!(pair_id(&x, &finding("gemini", 23, 9, "two")), id);
    }

    #[test]
    fn a_question_carries_both_sides_and_the_bots_other_findings_in_the_file() {
        let mut findings = vec![
            finding("copilot", 11, 10, "Regex misses `1)` list items"),
            finding("gemini", 22, 12, "Ordered lists with `)` are not detected"),
            finding("copilot", 33, 40, "Setext headings are not handled"),
        ];
        findings[0].evidence.end_line = Some(14);
        findings[0].evidence.snippet = "let re = Regex::new(r\"^\\d+\\.\")".to_owned();
        let candidate = Candidate {
            id: pair_id(&findings[0], &findings[1]),
            a: 0,
            b: 1,
            p: 0.4,
            reach: Reach::Band,
            shares_code: false,
            cross_bot: true,
            consequential: true,
        };
        let body = |i: usize| {
            (i == 1).then(|| "**Bug**\n\nThe check ignores `1)`.\n\n<!-- hidden -->\nUseful? React with 👍 / 👎.".to_owned())
        };
        let q = question(&findings, &candidate, Shape::Neighbourhood, &body);
        assert_eq!(q.a.line.as_deref(), Some("10-14"));
        assert_eq!(q.a.commit.as_deref(), Some("0123456789"));
        assert_eq!(
            q.a.code.as_deref(),
            Some("let re = Regex::new(r\"^\\d+\\.\")")
        );
        assert_eq!(q.a.nearby.len(), 1, "copilot's other finding in the file");
        assert_eq!(q.a.nearby[0].title, "Setext headings are not handled");
        assert!(q.b.nearby.is_empty());
        assert!(q.b.text.contains("ignores `1)`"), "{}", q.b.text);
        assert!(
            !q.b.text.contains("hidden") && !q.b.text.contains("React"),
            "{}",
            q.b.text
        );
        let alone = question(&findings, &candidate, Shape::Pair, &body);
        assert!(alone.a.nearby.is_empty());
    }
}
