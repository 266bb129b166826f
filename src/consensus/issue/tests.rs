use super::features::at;
use super::*;
use crate::model::{CategorySource, Severity};
use proptest::prelude::*;

fn finding(bot: &str, id: &str, line: u32, title: &str, detail: &str) -> NormalizedFinding {
    let mut f = NormalizedFinding::new(bot, id, Severity::Medium, "bug", title)
        .at("src/app.ts", Some(line));
    f.detail = detail.to_owned();
    f.provenance.category_source = Some(CategorySource::Keyword);
    f
}

/// Member indices per cluster, clusters by first member.
fn clusters_by(
    findings: &[NormalizedFinding],
    model: &Model,
    constraints: &Constraints,
) -> Vec<Vec<usize>> {
    let matched = assign_clusters(findings, model, constraints);
    let mut out = vec![Vec::new(); matched.assignment.anchors.len()];
    for (index, &cluster) in matched.assignment.cluster_of.iter().enumerate() {
        out[cluster].push(index);
    }
    out
}

fn clusters(findings: &[NormalizedFinding]) -> Vec<Vec<usize>> {
    clusters_by(findings, Model::builtin(), &Constraints::default())
}

/// A model that links on two-bot text alone: `p = sigmoid(10 × (words − 0.3))`.
fn words_only() -> Model {
    let mut weights = vec![0.0; FEATURE_COUNT];
    weights[at::WORDS] = 10.0;
    weights[at::REPEAT_TITLE_WORDS] = 10.0;
    Model {
        features: FEATURES.iter().map(|f| (*f).to_owned()).collect(),
        weights,
        intercept: -3.0,
        threshold: 0.5,
        l2: 0.0,
        fitted_on: FittedOn::default(),
    }
}

#[test]
fn two_bots_on_one_line_naming_the_same_code_merge_and_say_why() {
    let findings = [
        finding("codex", "c1", 44, "`detectAgent` matches author names case-sensitively",
            "The agent detector runs case-sensitive `includes` checks while the patterns are lowercase, so capitalised author names fall through."),
        finding("copilot", "p1", 44, "`detectAgent` is case-sensitive (`includes`)",
            "Commit authors such as Riven are missed because `includes` compares case-sensitively; lowercase both sides."),
        finding("copilot", "p2", 90, "Hard-coded persona names in the tool",
            "Use role-based labels instead of contributor names."),
    ];
    assert_eq!(clusters(&findings), [vec![0, 1], vec![2]]);
    let matched = assign_clusters(&findings, Model::builtin(), &Constraints::default());
    let reason = &matched.reasons[0][0];
    assert_eq!(
        reason.between,
        ["codex#c1".to_owned(), "copilot#p1".to_owned()]
    );
    assert_eq!(reason.lines, "same lines");
    let p = reason.probability.expect("the model's probability");
    assert!((0.5..=1.0).contains(&p), "{reason:?}");
    assert!(
        reason
            .shared
            .iter()
            .any(|s| s == "`detectagent`" || s == "`includes`"),
        "{reason:?}"
    );
}

#[test]
fn findings_of_different_files_never_merge() {
    let mut other = finding(
        "b",
        "b",
        10,
        "Unchecked `order_ref`",
        "`order_ref` is unchecked.",
    );
    other.evidence.file = "src/other.ts".into();
    let findings = [
        finding(
            "a",
            "a",
            10,
            "Unchecked `order_ref`",
            "`order_ref` is unchecked.",
        ),
        other,
    ];
    assert_eq!(clusters(&findings), [vec![0], vec![1]]);
}

/// A pair's evidence lands in the features of its regime: two bots, a bot and a later
/// round of itself, a bot twice in one round.
#[test]
fn features_follow_who_said_it_and_when() {
    let text = (
        "`lemma1_toy` puts `sorry` in the type",
        "State a `Prop` instead.",
    );
    let with = |bot: &str, commit: &str, line: u32| {
        let mut f = finding(bot, "", line, text.0, text.1);
        f.provenance.commit = Some(commit.into());
        f
    };
    let findings = [
        with("codex", "c1", 10),
        with("copilot", "c1", 10),
        with("copilot", "c2", 10),
        with("copilot", "c1", 60),
    ];
    let pairs: Vec<PairEvidence> = judged_pairs(&findings);
    let of = |a: usize, b: usize| {
        &pairs
            .iter()
            .find(|p| (p.a, p.b) == (a, b))
            .unwrap()
            .features
    };
    let two_bots = of(0, 1);
    assert!(two_bots[at::WORDS] > 0.9 && two_bots[at::CODE] > 0.9);
    assert_eq!(two_bots[at::SAME_BOT_ROUND_ELSEWHERE], 0.0);
    let later = of(1, 2);
    assert_eq!(
        (later[at::REPEAT_LINE_GAP], later[at::SAME_ROUND_WORDS]),
        (0.0, 0.0)
    );
    assert_eq!((later[at::WORDS], later[at::OTHER_COMMIT]), (0.0, 1.0));
    assert!(later[at::REPEAT_TITLE_WORDS] > 0.9 && later[at::REPEAT_CODE] > 0.9);
    let same_round = of(1, 3);
    assert_eq!(same_round[at::SAME_BOT_ROUND_ELSEWHERE], 1.0);
    assert!(same_round[at::SAME_ROUND_WORDS] > 0.9 && same_round[at::LINE_GAP] == 0.0);
    assert_eq!(same_round[at::REPEAT_TITLE_WORDS], 0.0);
}

#[test]
fn a_later_round_repeat_joins_and_counts_as_one_bot() {
    let round = |commit: &str, id: &str| {
        let mut f = finding(
            "copilot",
            id,
            142,
            "`lemma1_toy` puts `sorry` in the theorem type",
            "The statement is `: sorry`, so no proposition is stated; write an explicit `Prop`.",
        );
        f.provenance.commit = Some(commit.into());
        f
    };
    let findings = [round("aaa111", "r1"), round("bbb222", "r2")];
    assert_eq!(clusters(&findings), [vec![0, 1]]);
}

#[test]
fn people_split_and_join_whatever_the_model_says() {
    let findings = [
        finding(
            "a",
            "a",
            10,
            "`order_ref` unchecked",
            "`order_ref` reaches the query.",
        ),
        finding(
            "b",
            "b",
            10,
            "`order_ref` unchecked",
            "`order_ref` reaches the query.",
        ),
        finding(
            "c",
            "c",
            400,
            "Rename the helper",
            "The name hides what it does.",
        ),
    ];
    let model = words_only();
    let none = Constraints::default();
    assert_eq!(clusters_by(&findings, &model, &none), [vec![0, 1], vec![2]]);
    let split = Constraints {
        apart: vec![(1, 0)],
        together: Vec::new(),
        judged: Vec::new(),
    };
    assert_eq!(
        clusters_by(&findings, &model, &split),
        [vec![0], vec![1], vec![2]]
    );
    let joined = Constraints {
        apart: Vec::new(),
        together: vec![(0, 2)],
        judged: Vec::new(),
    };
    let matched = assign_clusters(&findings, &model, &joined);
    assert_eq!(matched.assignment.cluster_of, [0, 0, 0]);
    assert!(matched.reasons[0]
        .iter()
        .any(|r| r.rule.contains("/consensus same") && r.probability.is_none()));
    // Out-of-range indices (a stale command) are ignored, never a panic.
    let stale = Constraints {
        apart: vec![(0, 99)],
        together: vec![(5, 99)],
        judged: Vec::new(),
    };
    assert_eq!(clusters_by(&findings, &model, &stale).len(), 2);
}

/// A finding that resembles two others does not chain them into one issue: two clusters
/// join only when every pair between them is at least loosely probable.
#[test]
fn a_finding_between_two_issues_does_not_chain_them() {
    let findings = [
        finding(
            "a",
            "a",
            50,
            "alpha beta gamma delta",
            "alpha beta gamma delta",
        ),
        finding(
            "b",
            "b",
            50,
            "alpha beta gamma delta epsilon zeta eta theta",
            "alpha beta gamma delta epsilon zeta eta theta",
        ),
        finding(
            "c",
            "c",
            50,
            "epsilon zeta eta theta",
            "epsilon zeta eta theta",
        ),
    ];
    let out = clusters_by(&findings, &words_only(), &Constraints::default());
    assert!(out.iter().any(|c| c.len() == 2), "b joins one: {out:?}");
    assert!(
        !out.iter().any(|c| c.contains(&0) && c.contains(&2)),
        "{out:?}"
    );
}

#[test]
fn the_cluster_takes_its_strongest_members_category() {
    let keyword = finding(
        "a",
        "a",
        5,
        "`token` logged",
        "The `token` is logged in clear.",
    );
    let mut native = finding(
        "b",
        "b",
        5,
        "`token` logged",
        "The `token` is logged in clear.",
    );
    native.category = "security".into();
    native.provenance.category_source = Some(CategorySource::Native);
    let matched = assign_clusters(&[keyword, native], &words_only(), &Constraints::default());
    assert_eq!(matched.category_from, [1]);
}

fn arb_finding() -> impl Strategy<Value = NormalizedFinding> {
    let words = prop::sample::subsequence(
        vec![
            "`order_ref`",
            "null",
            "race",
            "sorted",
            "`page_size`",
            "leak",
            "the",
            "query",
            "rename",
        ],
        0..5,
    );
    (
        0..4usize,
        0..2usize,
        prop::option::weighted(0.8, 0..80u32),
        words,
        0..3usize,
    )
        .prop_map(|(bot, file, line, words, commit)| {
            let mut f = NormalizedFinding::new(
                ["a", "b", "c", "d"][bot],
                "",
                Severity::Medium,
                "bug",
                words.join(" "),
            )
            .at(["a.ts", "b.ts"][file], line);
            f.provenance.commit = Some(["x", "y", "z"][commit].to_owned());
            f
        })
}

proptest! {
    #[test]
    fn clusters_hold_one_file_and_a_reason_per_link(
        findings in prop::collection::vec(arb_finding(), 0..40),
    ) {
        let matched = assign_clusters(&findings, Model::builtin(), &Constraints::default());
        let a = &matched.assignment;
        let mut members = vec![Vec::new(); a.anchors.len()];
        for (index, &cluster) in a.cluster_of.iter().enumerate() {
            members[cluster].push(index);
        }
        for (cluster, list) in members.iter().enumerate() {
            prop_assert_eq!(list[0], a.anchors[cluster], "numbered by first member");
            prop_assert!(list.iter().all(|&i| findings[i].evidence.file == findings[list[0]].evidence.file));
            prop_assert_eq!(matched.reasons[cluster].len(), list.len() - 1, "a reason per link");
            for reason in &matched.reasons[cluster] {
                let p = reason.probability.expect("model links carry p");
                prop_assert!(p >= Model::builtin().threshold - 0.005);
            }
        }
        // Anchors come in input order.
        prop_assert!(a.anchors.windows(2).all(|w| w[0] < w[1]));
    }
}

/// A flood of alike comments on one line (a bot gone wild, an attacker) stays bounded.
#[test]
fn a_flood_on_one_line_is_bounded() {
    let findings: Vec<NormalizedFinding> = (0..20_000)
        .map(|i| {
            finding(
                &format!("bot{}", i % 50),
                &i.to_string(),
                7,
                "Unchecked `order_ref` reaches the query",
                "The `order_ref` value is unsanitized.",
            )
        })
        .collect();
    let matched = assign_clusters(&findings, Model::builtin(), &Constraints::default());
    assert_eq!(matched.assignment.cluster_of.len(), 20_000);
}
