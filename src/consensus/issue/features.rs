//! A pair's evidence, in two channels: WHERE the two findings point (the gap between their
//! lines, the commit each was written on, one bot twice in one review) and WHAT they say
//! (the claim's words and title, the code each names, defect classes, polarity), each
//! counted apart for two bots, a bot and its later round, and a bot twice in one round.
//! Each feature is a number the match model weighs; none decides alone.

use super::text::{Channel, Corpus};
use crate::consensus::cluster::Interner;
use crate::model::NormalizedFinding;

/// The features, in the model's order (`data/matching-model.json` lists the same names;
/// docs/scoring.md shows the drop-one ablation each had to pass). Two findings of one bot
/// are judged apart from two bots: a bot words its own findings alike, a bot that comments
/// twice in one review usually means two places, and a later round near the same line is
/// usually a repeat.
pub const FEATURES: &[&str] = &[
    // WHERE
    "line_gap",
    "other_commit",
    "same_bot_round_elsewhere",
    "repeat_line_gap",
    // WHAT, two bots
    "words",
    "title_words",
    "code",
    // WHAT, a bot and its later round
    "repeat_title_words",
    "repeat_code",
    // WHAT, a bot twice in one round
    "same_round_words",
    "same_round_code",
    // WHAT, any pair
    "defect_class",
    "polarity",
];

pub const FEATURE_COUNT: usize = 13;

/// Feature indices, for code that reads one.
pub(super) mod at {
    pub const LINE_GAP: usize = 0;
    pub const OTHER_COMMIT: usize = 1;
    pub const SAME_BOT_ROUND_ELSEWHERE: usize = 2;
    pub const REPEAT_LINE_GAP: usize = 3;
    pub const WORDS: usize = 4;
    pub const TITLE_WORDS: usize = 5;
    pub const CODE: usize = 6;
    pub const REPEAT_TITLE_WORDS: usize = 7;
    pub const REPEAT_CODE: usize = 8;
    pub const SAME_ROUND_WORDS: usize = 9;
    pub const SAME_ROUND_CODE: usize = 10;
    pub const DEFECT_CLASS: usize = 11;
    pub const POLARITY: usize = 12;
}

/// Whether a feature says where (else what), for reasons and the ablation table.
pub fn is_where(feature: usize) -> bool {
    feature <= at::REPEAT_LINE_GAP
}

/// How a WHAT feature reads in a reason: what the two findings have in common.
pub(super) fn reads_as(feature: usize) -> &'static str {
    match feature {
        at::WORDS | at::SAME_ROUND_WORDS | at::POLARITY => "alike words",
        at::TITLE_WORDS | at::REPEAT_TITLE_WORDS => "alike titles",
        at::CODE | at::REPEAT_CODE | at::SAME_ROUND_CODE => "the same code",
        at::DEFECT_CLASS => "the same defect class",
        _ => FEATURES[feature],
    }
}

/// Lines at which a gap feature reaches 1 (it grows with the log of the gap beyond).
const GAP_SCALE: f64 = 100.0;

/// What a pair's features are computed from, read once per finding: its bot, commit and
/// review as small ids (`NONE` when absent).
pub(super) struct Facts {
    pub bot: Vec<u32>,
    commit: Vec<u32>,
    review: Vec<u64>,
    /// The finding says it is the same as another of its bot's ("same as above").
    ties: Vec<bool>,
}

pub(super) const NONE: u32 = u32::MAX;

impl Facts {
    pub(super) fn of(findings: &[NormalizedFinding]) -> Facts {
        let (mut bots, mut commits) = (Interner::default(), Interner::default());
        Facts {
            bot: findings.iter().map(|f| bots.id(&f.bot) as u32).collect(),
            commit: findings
                .iter()
                .map(|f| {
                    let commit = f.provenance.commit.as_deref();
                    commit.map_or(NONE, |c| commits.id(c) as u32)
                })
                .collect(),
            review: findings
                .iter()
                .map(|f| f.provenance.review_id.unwrap_or(u64::MAX))
                .collect(),
            ties: findings.iter().map(ties).collect(),
        }
    }

    /// The two findings come from one review round of one bot: one review, or one
    /// commit, or neither says (a findings file, SARIF): nothing shows a later round.
    pub(super) fn same_round(&self, a: usize, b: usize) -> bool {
        (self.review[a] != u64::MAX && self.review[a] == self.review[b])
            || self.commit[a] == self.commit[b]
    }
}

/// Lines within which one bot's two findings of one round may be one place (the seed's
/// line window).
const SAME_PLACE_LINES: u32 = 3;

/// Phrases with which a bot ties a finding to another of its own ("Same as above").
const TIES: &[&str] = &[
    "same as above",
    "same as the",
    "same issue",
    "same problem",
    "same bug",
    "similar to",
    "similarly",
    "as above",
    "as noted above",
    "as mentioned",
    "also applies",
    "here too",
    "here as well",
    "same here",
    "likewise",
];

/// The seed's distinct loci: one bot's two findings of one round at lines further apart
/// than the line window are two places, unless the bot ties them (an "also applies to"
/// range it names, or a phrase such as "same as above"). Such a pair is never linked.
pub(super) fn distinct_loci(facts: &Facts, a: usize, b: usize, gap: Option<u32>) -> bool {
    if facts.bot[a] != facts.bot[b] || !facts.same_round(a, b) {
        return false;
    }
    let Some(gap) = gap else {
        return false;
    };
    gap > SAME_PLACE_LINES && !facts.ties[a] && !facts.ties[b]
}

/// Whether a finding says it is the same as another of its bot's (one scan of each text).
fn ties(finding: &NormalizedFinding) -> bool {
    static PHRASES: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    let phrases = PHRASES.get_or_init(|| {
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .kind(Some(aho_corasick::AhoCorasickKind::DFA))
            .build(TIES)
            .expect("a small fixed list of phrases")
    });
    phrases.is_match(&finding.title) || phrases.is_match(&finding.detail)
}

/// Lines between the two findings' nearest ranges; `None` without lines on both.
pub(super) fn gap(a: &NormalizedFinding, b: &NormalizedFinding) -> Option<u32> {
    let (x, y) = (&a.evidence, &b.evidence);
    x.ranges()
        .flat_map(|r| y.ranges().map(move |s| r.gap(s)))
        .min()
}

/// The features of the pair `(a, b)` of one file.
/// Without lines on both, the gap features are 0: only what the findings say links them.
pub(super) fn features(
    findings: &[NormalizedFinding],
    facts: &Facts,
    corpus: &Corpus,
    a: usize,
    b: usize,
) -> ([f64; FEATURE_COUNT], Option<u32>) {
    features_with(findings, facts, corpus, a, b, &corpus.similarity(a, b))
}

/// [`features`] with the pair's channel similarities already measured.
pub(super) fn features_with(
    findings: &[NormalizedFinding],
    facts: &Facts,
    corpus: &Corpus,
    a: usize,
    b: usize,
    similarity: &[f64; super::text::CHANNELS],
) -> ([f64; FEATURE_COUNT], Option<u32>) {
    let flag = |on: bool| f64::from(u8::from(on));
    let mut x = [0.0; FEATURE_COUNT];
    let gap = gap(&findings[a], &findings[b]);
    let line_gap = gap.map_or(0.0, |g| (1.0 + f64::from(g)).ln() / (1.0 + GAP_SCALE).ln());
    let (ca, cb) = (facts.commit[a], facts.commit[b]);
    x[at::OTHER_COMMIT] = flag(ca != NONE && cb != NONE && ca != cb);

    let (words, title, code) = (
        similarity[Channel::Word as usize],
        similarity[Channel::Title as usize],
        similarity[Channel::Code as usize],
    );
    if facts.bot[a] != facts.bot[b] {
        x[at::LINE_GAP] = line_gap;
        x[at::WORDS] = words;
        x[at::TITLE_WORDS] = title;
        x[at::CODE] = code;
    } else if facts.same_round(a, b) {
        x[at::SAME_BOT_ROUND_ELSEWHERE] = flag(gap != Some(0));
        x[at::SAME_ROUND_WORDS] = words;
        x[at::SAME_ROUND_CODE] = code;
    } else {
        x[at::REPEAT_LINE_GAP] = line_gap;
        x[at::REPEAT_TITLE_WORDS] = title;
        x[at::REPEAT_CODE] = code;
    }
    x[at::DEFECT_CLASS] = similarity[Channel::Class as usize];
    // One side says something is missing or does not happen, the other does not, about
    // alike words: "null guard missing" vs "null guard redundant".
    if corpus.negated[a] != corpus.negated[b] {
        x[at::POLARITY] = words;
    }
    (x, gap)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_indices_agree() {
        assert_eq!(FEATURES.len(), FEATURE_COUNT);
        assert_eq!(FEATURES[at::REPEAT_LINE_GAP], "repeat_line_gap");
        assert_eq!(FEATURES[at::SAME_ROUND_CODE], "same_round_code");
        assert_eq!(FEATURES[at::POLARITY], "polarity");
        assert!(is_where(at::REPEAT_LINE_GAP) && !is_where(at::WORDS));
    }
}
