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
fn clusters(findings: &[NormalizedFinding]) -> Vec<Vec<usize>> {
    let matched = assign_clusters(findings);
    let mut out = vec![Vec::new(); matched.assignment.anchors.len()];
    for (index, &cluster) in matched.assignment.cluster_of.iter().enumerate() {
        out[cluster].push(index);
    }
    out
}

#[test]
fn different_words_on_near_lines_merge_and_say_why() {
    let findings = [
        finding("codex", "c1", 44, "Normalize commit text before matching agent patterns",
            "The agent detector runs case-sensitive `includes` checks while the patterns are lowercase, so capitalised author names fall through."),
        finding("copilot", "p1", 48, "`detectAgent` matches patterns case-sensitively (`includes`)",
            "Commit authors such as Riven are missed because the patterns are lowercase; match case-insensitively."),
        finding("copilot", "p2", 24, "Hard-coded persona names in the tool",
            "Use role-based labels instead of contributor names."),
    ];
    assert_eq!(clusters(&findings), [vec![0, 1], vec![2]]);
    let matched = assign_clusters(&findings);
    let reason = &matched.reasons[0][0];
    assert_eq!(
        reason.between,
        ["codex#c1".to_owned(), "copilot#p1".to_owned()]
    );
    assert_eq!(reason.lines, "lines 44/48");
    assert!(
        reason.shared.iter().any(|s| s == "`includes`"),
        "{reason:?}"
    );
    assert!(
        reason
            .shared
            .iter()
            .any(|s| s.starts_with("case sensitivity")),
        "{reason:?}"
    );
}

#[test]
fn one_bots_findings_never_merge_however_alike() {
    let findings = [
        finding(
            "copilot",
            "a",
            10,
            "`--files` with no paths widens the run",
            "Reject `--files` without operands.",
        ),
        finding(
            "copilot",
            "b",
            11,
            "`--files` with no paths widens the run",
            "Reject `--files` without operands.",
        ),
    ];
    assert_eq!(clusters(&findings), [vec![0], vec![1]]);
}

#[test]
fn lines_alone_never_merge() {
    let findings = [
        finding(
            "codex",
            "a",
            65,
            "Sort merged PRs by merge time",
            "The query is ordered by `updated`.",
        ),
        finding(
            "copilot",
            "b",
            66,
            "The API calls are hard-capped",
            "Counts saturate at `per_page=100`.",
        ),
    ];
    assert_eq!(clusters(&findings), [vec![0], vec![1]]);
}

#[test]
fn two_issues_on_one_line_pair_with_their_own_counterparts() {
    // Each finding joins at most one finding of another bot, best evidence first: the
    // line-window pass would put all four together.
    let findings = [
        finding(
            "a",
            "a1",
            20,
            "SQL built by string interpolation of `order_ref`",
            "`order_ref` reaches the query text unsanitized.",
        ),
        finding(
            "a",
            "a2",
            21,
            "Float rounding of `amount_cents`",
            "Converting `amount_cents` with float loses a cent.",
        ),
        finding(
            "b",
            "b1",
            20,
            "`amount_cents` truncated through float",
            "Rounding `amount_cents` via float is lossy.",
        ),
        finding(
            "b",
            "b2",
            21,
            "Injectable lookup on `order_ref`",
            "Interpolating `order_ref` into SQL allows injection.",
        ),
    ];
    assert_eq!(clusters(&findings), [vec![0, 3], vec![1, 2]]);
}

#[test]
fn far_apart_loci_need_distinctive_identifiers() {
    let cause = finding("codex", "a", 65, "Sort merged PRs by merge time before taking the first one",
        "The query is ordered by `updated`, yet `mergedToday[0]` feeds `last_merge` and `last_merge_ago`.");
    let using = finding("copilot", "b", 163, "`mergedToday[0]` not ordered by merge time",
        "`last_merge` and `last_merge_ago` read `mergedToday[0]`, but the list is sorted by `updated`.");
    assert_eq!(clusters(&[cause.clone(), using]), [vec![0, 1]]);
    let matched = assign_clusters(&[cause.clone(), finding("copilot", "b", 163, "`mergedToday[0]` not ordered by merge time",
        "`last_merge` and `last_merge_ago` read `mergedToday[0]`, but the list is sorted by `updated`.")]);
    assert_eq!(matched.reasons[0][0].distance, Some(98));

    // The same words far apart, without identifiers, stay apart.
    let vague = [
        finding(
            "codex",
            "a",
            65,
            "Sort the merged list by merge time",
            "The list is in the wrong order.",
        ),
        finding(
            "copilot",
            "b",
            163,
            "The merged list is in the wrong order",
            "Sort it by merge time.",
        ),
    ];
    assert_eq!(clusters(&vague), [vec![0], vec![1]]);
}

#[test]
fn strong_native_categories_that_differ_keep_findings_apart() {
    let mut security = finding(
        "gh-advanced-security",
        "g",
        10,
        "SQL injection via `order_ref`",
        "`order_ref` flows into the query.",
    );
    security.category = "security".into();
    security.provenance.category_source = Some(CategorySource::Native);
    let mut nit = finding(
        "coderabbit",
        "c",
        10,
        "Rename `order_ref` in the SQL helper",
        "`order_ref` flows into the query.",
    );
    nit.category = "style".into();
    nit.provenance.category_source = Some(CategorySource::Native);
    assert_eq!(
        clusters(&[security.clone(), nit.clone()]),
        [vec![0], vec![1]]
    );
    // A keyword category is only evidence.
    nit.provenance.category_source = Some(CategorySource::Keyword);
    assert_eq!(clusters(&[security, nit]), [vec![0, 1]]);
}

#[test]
fn lines_on_different_commits_are_not_compared() {
    let mut old = finding(
        "copilot",
        "a",
        246,
        "Requested `--files` paths are dropped silently",
        "Missing files and paths outside the shard tree vanish and the run reports `scanned 0`.",
    );
    old.provenance.commit = Some("9df78b28".into());
    let mut new = finding("codex", "b", 297, "Error out when requested `--files` paths get filtered away",
        "Missing paths or paths outside the shard tree disappear, ending with `scanned 0` and exit 0.");
    new.provenance.commit = Some("882dc622".into());
    let matched = assign_clusters(&[old, new]);
    assert_eq!(matched.assignment.anchors.len(), 1, "linked on content");
    let reason = &matched.reasons[0][0];
    assert_eq!(reason.distance, None);
    assert_eq!(reason.lines, "lines 246/297 on different commits");
}

#[test]
fn also_applies_to_ranges_count_as_loci() {
    let mut ranged = finding(
        "coderabbit",
        "c",
        10,
        "Unvalidated `page_size` reaches the query",
        "Clamp `page_size`.",
    );
    ranged.evidence.also.push(LineRange::new(120, 122));
    let far = finding(
        "sourcery",
        "s",
        121,
        "Clamp `page_size` before querying",
        "An unvalidated `page_size` reaches the query.",
    );
    let matched = assign_clusters(&[ranged, far]);
    assert_eq!(matched.reasons[0][0].distance, Some(0));
}

#[test]
fn the_cluster_takes_its_strongest_members_category() {
    let mut keyword = finding(
        "copilot",
        "p",
        10,
        "Unsanitized `user_id` in the SQL text",
        "`user_id` is interpolated.",
    );
    keyword.category = "bug".into();
    let mut native = finding(
        "sourcery",
        "s",
        10,
        "SQL built from `user_id`",
        "`user_id` is interpolated unsanitized.",
    );
    native.category = "security".into();
    native.provenance.category_source = Some(CategorySource::Native);
    let matched = assign_clusters(&[keyword, native]);
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
        words_detail(),
    )
        .prop_map(|(bot, file, line, words, detail)| {
            let mut f = NormalizedFinding::new(
                ["a", "b", "c", "d"][bot],
                "",
                Severity::Medium,
                "bug",
                words.join(" "),
            )
            .at(["a.ts", "b.ts"][file], line);
            f.detail = detail;
            f
        })
}

fn words_detail() -> impl Strategy<Value = String> {
    prop::sample::subsequence(
        vec![
            "`order_ref`",
            "is",
            "unsanitized",
            "sorted",
            "`mergedToday`",
            "wrong",
        ],
        0..4,
    )
    .prop_map(|w| w.join(" "))
}

proptest! {
    #[test]
    fn clusters_hold_one_file_and_at_most_one_finding_per_bot(
        findings in prop::collection::vec(arb_finding(), 0..40),
    ) {
        let matched = assign_clusters(&findings);
        let a = &matched.assignment;
        let mut members = vec![Vec::new(); a.anchors.len()];
        for (index, &cluster) in a.cluster_of.iter().enumerate() {
            members[cluster].push(index);
        }
        for (cluster, list) in members.iter().enumerate() {
            prop_assert_eq!(list[0], a.anchors[cluster], "numbered by first member");
            let mut bots: Vec<&str> = list.iter().map(|&i| findings[i].bot.as_str()).collect();
            bots.sort_unstable();
            let before = bots.len();
            bots.dedup();
            prop_assert_eq!(bots.len(), before, "one finding per bot");
            prop_assert!(list.iter().all(|&i| findings[i].evidence.file == findings[list[0]].evidence.file));
            prop_assert_eq!(matched.reasons[cluster].len(), list.len() - 1, "a reason per link");
        }
        // Anchors come in input order.
        prop_assert!(a.anchors.windows(2).all(|w| w[0] < w[1]));
    }
}

#[test]
fn rule_descriptions_state_the_constants() {
    assert!(Rule::Near
        .describe()
        .contains(&format!("within {NEAR_LINES} lines")));
    assert!(Rule::Mid
        .describe()
        .contains(&format!("within {FAR_LINES} lines")));
}

/// A flood of alike comments on one line (a bot gone wild, an attacker) stays linear and
/// still keeps one finding per bot per cluster.
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
    let matched = assign_clusters(&findings);
    let mut sizes = vec![0usize; matched.assignment.anchors.len()];
    for &cluster in &matched.assignment.cluster_of {
        sizes[cluster] += 1;
    }
    assert!(
        sizes.iter().all(|&n| n <= 50),
        "at most one finding per bot"
    );
    assert!(
        sizes.iter().any(|&n| n > 1),
        "alike findings of different bots still link"
    );
}

/// A finding that resembles two others does not chain them into one issue: every two
/// members of a cluster must be linked, at least loosely.
#[test]
fn a_finding_between_two_issues_does_not_chain_them() {
    let findings = [
        finding(
            "a",
            "a",
            50,
            "Preserve provenance of `order_ref` lookups",
            "The lookup trusts whatever it finds, with no provenance check.",
        ),
        finding(
            "b",
            "b",
            54,
            "`order_ref` provenance unchecked, and stale entries never evicted",
            "Provenance is not checked, and stale entries are never evicted.",
        ),
        finding(
            "c",
            "c",
            58,
            "Stale entries are never evicted",
            "Entries stay forever: eviction never runs.",
        ),
    ];
    let out = clusters(&findings);
    assert!(
        out.iter().any(|c| c.len() == 2),
        "b joins one of them: {out:?}"
    );
    assert!(
        !out.iter().any(|c| c.contains(&0) && c.contains(&2)),
        "{out:?}"
    );
}
