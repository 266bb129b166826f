//! The engine through its public API: findings in, ranked bucketed synthesised findings,
//! gate and markdown out.

use review_consensus::consensus::{
    bucket_for_score, compute_consensus, must_address, render_consensus_markdown,
    render_provenance, ConsensusOptions, Matching,
};
use review_consensus::gate;
use review_consensus::model::{
    ConsensusFinding, ConsensusLevel, FailOn, Gate, NormalizedFinding, Severity, SuppressionReason,
};
use review_consensus::synthesis::{synthesize, SynthesisOptions};

fn nf(
    bot: &str,
    id: &str,
    severity: Severity,
    category: &str,
    file: &str,
    line: Option<u32>,
    title: &str,
) -> NormalizedFinding {
    NormalizedFinding::new(bot, id, severity, category, title).at(file, line)
}

/// The seed's rules: most tests here pin the seed's behaviour.
fn with_bots(bots_ran: Option<usize>) -> ConsensusOptions {
    ConsensusOptions {
        bots_ran,
        matching: Matching::Seed,
        ..ConsensusOptions::default()
    }
}

/// PR 101 of the fixtures (`tests/fixtures/pr-101-three-bots/expected.md`), as the adapters
/// should normalise it (start line of each range).
fn pr_101() -> Vec<NormalizedFinding> {
    use Severity::*;
    let mut findings = vec![
        nf(
            "coderabbit",
            "CR1",
            Critical,
            "security",
            "app/db/queries.py",
            Some(39),
            "Bind `order_ref` as a parameter; the f-string makes the lookup injectable",
        ),
        nf(
            "coderabbit",
            "CR2",
            High,
            "security",
            "app/auth/tokens.py",
            Some(22),
            "Do not log the approval token",
        ),
        nf(
            "coderabbit",
            "CR3",
            High,
            "bug",
            "app/services/ledger.py",
            Some(57),
            "Parse the amount with `Decimal`; floats lose cents",
        ),
        nf(
            "coderabbit",
            "CR4",
            High,
            "bug",
            "web/src/components/CheckoutForm.tsx",
            Some(25),
            "Missing `await` on `requestRefund`",
        ),
        nf(
            "coderabbit",
            "CR5",
            Medium,
            "maintainability",
            "app/api/refunds.py",
            Some(57),
            "Extract the duplicated amount validation",
        ),
        nf(
            "coderabbit",
            "CR6",
            Medium,
            "bug",
            "app/services/ledger.py",
            Some(79),
            "`close_period` hides DB failures behind a zero balance",
        ),
        nf(
            "coderabbit",
            "CR7",
            Low,
            "maintainability",
            "app/api/refunds.py",
            Some(4),
            "Remove unused `json` import",
        ),
        nf(
            "coderabbit",
            "CR8",
            Low,
            "maintainability",
            "web/src/lib/currency.ts",
            Some(12),
            "Use `Intl.NumberFormat`",
        ),
        nf(
            "sourcery",
            "S1",
            High,
            "security",
            "app/db/queries.py",
            Some(41),
            "Per-order lookup interpolates `order_ref` (SQL injection)",
        ),
        nf(
            "sourcery",
            "S2",
            High,
            "security",
            "app/db/queries.py",
            Some(23),
            "`IN (...)` list built with an f-string",
        ),
        nf(
            "sourcery",
            "S3",
            Medium,
            "bug",
            "app/services/ledger.py",
            Some(57),
            "`float` + `int` truncation refunds a cent too little",
        ),
        nf(
            "sourcery",
            "S4",
            Low,
            "bug",
            "web/src/components/CheckoutForm.tsx",
            Some(26),
            "Status set before the request finishes",
        ),
        nf(
            "sourcery",
            "S5",
            Low,
            "test",
            "tests/test_refunds.py",
            Some(11),
            "Add tests for amounts that do not convert exactly",
        ),
        nf(
            "sourcery",
            "S6",
            Low,
            "style",
            "app/api/refunds.py",
            Some(25),
            "Typo \"recieved\" in docstring",
        ),
        nf(
            "gh-advanced-security",
            "G1",
            High,
            "security",
            "app/db/queries.py",
            Some(39),
            "SQL query built from user-controlled sources",
        ),
        nf(
            "gh-advanced-security",
            "G2",
            High,
            "security",
            "app/auth/tokens.py",
            Some(23),
            "Clear-text logging of sensitive information",
        ),
        nf(
            "gh-advanced-security",
            "G3",
            Medium,
            "security",
            "app/api/refunds.py",
            Some(45),
            "Information exposure through an exception",
        ),
    ];
    for f in &mut findings {
        f.nitpick = matches!(f.finding_id.as_str(), "CR7" | "CR8" | "S6");
    }
    findings
}

fn ids(cluster: &ConsensusFinding) -> Vec<&str> {
    cluster
        .members
        .iter()
        .map(|m| m.finding_id.as_str())
        .collect()
}

/// The seed's rules on PR 101's titles alone (the adapters' tests run both modes on the
/// fixture's full text: `issue` matching reads explanations, which these rows lack).
#[test]
fn pr_101_clusters_as_expected() {
    let clusters = compute_consensus(&pr_101(), &with_bots(Some(3)));
    assert_eq!(clusters.len(), 12);
    let multi: Vec<Vec<&str>> = clusters
        .iter()
        .filter(|c| c.members.len() > 1)
        .map(ids)
        .collect();
    assert_eq!(
        multi,
        vec![
            vec!["CR1", "S1", "G1"],
            vec!["CR2", "G2"],
            vec!["CR3", "S3"],
            vec!["CR4", "S4"]
        ]
    );
    assert_eq!(clusters[0].severity, Severity::Critical);
    assert_eq!(clusters[0].line, Some(39));
    assert_eq!(
        render_provenance(&clusters[0]),
        "[detected by 3/3 bots, agreement 100%]"
    );
    assert_eq!(
        render_provenance(&clusters[1]),
        "[detected by 2/3 bots, agreement 67%]"
    );
    assert!(clusters[..4]
        .iter()
        .all(|c| c.level == ConsensusLevel::Confirmed));
    assert!(clusters[4..]
        .iter()
        .all(|c| c.level == ConsensusLevel::NeedsVerification));
    assert_eq!(must_address(&clusters, ConsensusLevel::Confirmed).len(), 4);
    assert_eq!(
        must_address(&clusters, ConsensusLevel::Unverified).len(),
        12
    );

    let synthesized = synthesize(clusters, &SynthesisOptions::default());
    assert_eq!(synthesized.len(), 12, "nothing dropped");
    let suppressed: Vec<(&str, Option<SuppressionReason>)> = synthesized
        .iter()
        .filter(|f| f.suppressed)
        .map(|f| {
            (
                f.consensus.members[0].finding_id.as_str(),
                f.suppression_reason,
            )
        })
        .collect();
    let style = Some(SuppressionReason::StyleCoveredByLinters);
    let weak = Some(SuppressionReason::BelowEvidenceThreshold);
    // Low, single-bot, not tool-verified: 1 * 3 * 1 = 3 < 4. All rank 3: consensus order
    // (file, line) breaks the tie.
    assert_eq!(
        suppressed,
        vec![("CR7", style), ("S6", style), ("S5", weak), ("CR8", style)]
    );
    assert_eq!(synthesized[0].consensus.members[0].finding_id, "CR1");
    assert_eq!(synthesized[0].verification_score, 3);
    assert_eq!(gate::decide(&synthesized, FailOn::Confirmed), Gate::Fail);
    assert_eq!(gate::decide(&synthesized, FailOn::Never), Gate::Pass);
}

#[test]
fn seed_example_unused_variable_at_10_and_200_stays_two() {
    let findings = vec![
        nf(
            "a",
            "1",
            Severity::Low,
            "maintainability",
            "src/x.py",
            Some(10),
            "unused variable",
        ),
        nf(
            "b",
            "2",
            Severity::Low,
            "maintainability",
            "src/x.py",
            Some(200),
            "unused variable",
        ),
        nf(
            "c",
            "3",
            Severity::Low,
            "maintainability",
            "src/x.py",
            Some(13),
            "something else",
        ),
    ];
    let clusters = compute_consensus(&findings, &with_bots(None));
    assert_eq!(clusters.len(), 2);
    let near = clusters
        .iter()
        .find(|c| c.line == Some(10))
        .expect("line 10");
    assert_eq!(
        ids(near),
        vec!["1", "3"],
        "within the window, titles do not matter"
    );
}

#[test]
fn threshold_edges_exactly() {
    assert_eq!(bucket_for_score(0.66), ConsensusLevel::Confirmed);
    assert_eq!(bucket_for_score(0.33), ConsensusLevel::NeedsVerification);
    assert_eq!(bucket_for_score(0.329_999_999), ConsensusLevel::Unverified);
    assert_eq!(
        bucket_for_score(0.659_999_999),
        ConsensusLevel::NeedsVerification
    );
    // Through the engine: 1 of 3 bots at full confidence is needs-verification, at 0.99 not.
    let mut f = nf("a", "1", Severity::Low, "bug", "x.py", Some(1), "t");
    let clusters = compute_consensus(std::slice::from_ref(&f), &with_bots(Some(3)));
    assert_eq!(clusters[0].level, ConsensusLevel::NeedsVerification);
    f.confidence = 0.66;
    let clusters = compute_consensus(std::slice::from_ref(&f), &with_bots(Some(1)));
    assert_eq!(clusters[0].consensus_score, 0.66);
    assert_eq!(clusters[0].level, ConsensusLevel::Confirmed);
    f.confidence = 0.33;
    let clusters = compute_consensus(std::slice::from_ref(&f), &with_bots(Some(1)));
    assert_eq!(clusters[0].level, ConsensusLevel::NeedsVerification);
}

#[test]
fn confidence_outside_unit_interval_is_clamped() {
    let mut over = nf("a", "1", Severity::Low, "bug", "x.py", Some(1), "t");
    over.confidence = 12.0;
    let mut under = nf("b", "2", Severity::Low, "bug", "y.py", Some(1), "t");
    under.confidence = -0.5;
    let clusters = compute_consensus(&[over, under], &with_bots(Some(2)));
    assert_eq!(clusters[0].max_confidence, 1.0);
    assert_eq!(clusters[0].consensus_score, 0.5);
    assert_eq!(clusters[1].max_confidence, 0.0);
    assert_eq!(clusters[1].level, ConsensusLevel::Unverified);
    assert_eq!(
        clusters[0].members[0].confidence, 12.0,
        "members keep the raw value"
    );
}

#[test]
fn both_global_findings_merge_by_title() {
    let findings = vec![
        nf(
            "a",
            "1",
            Severity::Medium,
            "docs",
            "",
            None,
            "Missing changelog entry for refunds",
        ),
        nf(
            "b",
            "2",
            Severity::High,
            "docs",
            "",
            None,
            "Changelog entry missing (refunds)",
        ),
        nf(
            "c",
            "3",
            Severity::Medium,
            "docs",
            "",
            None,
            "PR description is empty",
        ),
        nf(
            "d",
            "4",
            Severity::Medium,
            "bug",
            "",
            None,
            "Missing changelog entry for refunds",
        ),
    ];
    let clusters = compute_consensus(&findings, &with_bots(None));
    assert_eq!(clusters.len(), 3);
    assert_eq!(ids(&clusters[0]), vec!["1", "2"]);
    assert_eq!(clusters[0].file, "");
    assert_eq!(clusters[0].line, None);
    assert_eq!(clusters[0].title, "Missing changelog entry for refunds");
}

#[test]
fn missing_lines_with_fuzzy_titles() {
    // PR 103's K1: a file-level comment (no line) and a nitpick at line 9, same title.
    let title = "The guide still documents the removed manual finance approval step.";
    let findings = vec![
        nf(
            "copilot",
            "E2",
            Severity::Medium,
            "docs",
            "docs/guía-reembolsos.md",
            None,
            title,
        ),
        nf(
            "coderabbit",
            "E2'",
            Severity::Low,
            "docs",
            "docs/guía-reembolsos.md",
            Some(9),
            title,
        ),
        nf(
            "copilot",
            "E9",
            Severity::Medium,
            "docs",
            "docs/guía-reembolsos.md",
            Some(15),
            "Authorization header example uses a stale token",
        ),
    ];
    let clusters = compute_consensus(&findings, &with_bots(Some(6)));
    assert_eq!(clusters.len(), 2);
    assert_eq!(ids(&clusters[0]), vec!["E2", "E2'"]);
    assert_eq!(clusters[0].line, Some(9), "the smallest known line");
    assert_eq!(
        clusters[0].level,
        ConsensusLevel::NeedsVerification,
        "2/6 = 0.333"
    );
    // Below the title overlap, a missing line keeps them apart.
    let options = ConsensusOptions {
        title_overlap: 1.01,
        ..with_bots(Some(6))
    };
    assert_eq!(compute_consensus(&findings, &options).len(), 3);
}

#[test]
fn bots_ran_smaller_than_detecting_bots_clamps_to_one() {
    let findings = vec![
        nf("a", "1", Severity::High, "bug", "x.py", Some(5), "t"),
        nf("b", "2", Severity::High, "bug", "x.py", Some(6), "t"),
        nf("c", "3", Severity::High, "bug", "x.py", Some(7), "t"),
    ];
    let clusters = compute_consensus(&findings, &with_bots(Some(2)));
    assert_eq!(clusters[0].agreement_ratio, 1.0);
    assert_eq!(
        render_provenance(&clusters[0]),
        "[detected by 3/2 bots, agreement 100%]"
    );
    // Default: the distinct bots of the input.
    let clusters = compute_consensus(&findings[..2], &with_bots(None));
    assert_eq!(clusters[0].bots_ran, 2);
    assert_eq!(compute_consensus(&[], &with_bots(None)), vec![]);
}

#[test]
fn output_order_is_score_severity_file_line_unknown_last() {
    let findings = vec![
        nf("a", "1", Severity::Low, "bug", "b.py", None, "lineless"),
        nf("a", "2", Severity::Low, "bug", "b.py", Some(50), "late"),
        nf("a", "3", Severity::Low, "bug", "b.py", Some(5), "early"),
        nf(
            "a",
            "4",
            Severity::Low,
            "bug",
            "a.py",
            Some(99),
            "other file",
        ),
        nf("a", "5", Severity::High, "bug", "z.py", Some(1), "severe"),
        nf("a", "6", Severity::Low, "bug", "y.py", Some(1), "agreed"),
        nf("b", "7", Severity::Low, "bug", "y.py", Some(1), "agreed"),
    ];
    let clusters = compute_consensus(&findings, &with_bots(None));
    let order: Vec<&str> = clusters
        .iter()
        .map(|c| c.members[0].finding_id.as_str())
        .collect();
    assert_eq!(order, vec!["6", "5", "4", "3", "2", "1"]);
    assert_eq!(compute_consensus(&findings, &with_bots(None)), clusters);
}

#[test]
fn library_user_gets_markdown_out() {
    let clusters = compute_consensus(&pr_101(), &with_bots(Some(3)));
    let markdown = render_consensus_markdown(&clusters);
    assert!(markdown.starts_with("### confirmed (4)\n"));
    assert!(markdown.contains("### needs-verification (8)"));
    assert!(markdown.contains(
        "- **critical** Bind \\`order\\_ref\\` as a parameter; the f-string makes the lookup injectable — app/db/queries.py:39 [detected by 3/3 bots, agreement 100%] — coderabbit, gh-advanced-security, sourcery"
    ));
    insta::assert_snapshot!(markdown);
}
