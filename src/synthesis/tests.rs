use super::*;
use crate::consensus::{compute_consensus, ConsensusOptions, Matching};
use crate::model::{Dispute, MergedConfidence, NormalizedFinding, Severity, SuppressionReason};

fn f(bot: &str, severity: Severity, category: &str, file: &str, line: u32) -> NormalizedFinding {
    NormalizedFinding::new(
        bot,
        format!("{bot}-{line}"),
        severity,
        category,
        "Some issue",
    )
    .at(file, Some(line))
}

/// The seed's matching: these tests are about synthesis, and its rules are exact.
fn run(findings: &[NormalizedFinding], bots_ran: usize) -> Vec<SynthesizedFinding> {
    let options = ConsensusOptions {
        bots_ran: Some(bots_ran),
        matching: Matching::Seed,
        ..ConsensusOptions::default()
    };
    synthesize(
        compute_consensus(findings, &options),
        &SynthesisOptions::default(),
    )
}

/// Six findings from three bots, enough that the shortcut never applies.
fn background() -> Vec<NormalizedFinding> {
    (0..6u32)
        .map(|i| {
            f(
                ["x", "y", "z"][i as usize % 3],
                Severity::High,
                "bug",
                "bg.rs",
                i * 100,
            )
        })
        .collect()
}

fn find<'a>(findings: &'a [SynthesizedFinding], file: &str) -> &'a SynthesizedFinding {
    findings
        .iter()
        .find(|f| f.consensus.file == file)
        .expect("finding for file")
}

#[test]
fn score_mappings() {
    assert_eq!(severity_score(Severity::Critical), 3);
    assert_eq!(severity_score(Severity::High), 3);
    assert_eq!(severity_score(Severity::Medium), 2);
    assert_eq!(severity_score(Severity::Low), 1);
    assert_eq!(severity_score(Severity::Info), 1);
    assert_eq!(confidence_score(0.8), 3);
    assert_eq!(confidence_score(0.79), 2);
    assert_eq!(confidence_score(0.5), 2);
    assert_eq!(confidence_score(0.49), 1);
    assert_eq!(verification_score(1, false), 1);
    assert_eq!(verification_score(1, true), 2);
    assert_eq!(verification_score(2, false), 2);
    assert_eq!(verification_score(2, true), 3);
    assert_eq!(verification_score(5, false), 3);
    assert_eq!(merged_confidence(3, 2, false), MergedConfidence::High);
    assert_eq!(merged_confidence(3, 1, false), MergedConfidence::Medium);
    assert_eq!(merged_confidence(2, 1, false), MergedConfidence::Low);
    assert_eq!(merged_confidence(3, 3, true), MergedConfidence::Medium);
    assert_eq!(merged_confidence(3, 1, true), MergedConfidence::Low);
}

#[test]
fn corroboration_and_tool_verification_raise_rank() {
    let mut input = background();
    input.push(f("coderabbit", Severity::Critical, "security", "q.py", 39));
    input.push(f("sourcery", Severity::High, "security", "q.py", 41));
    input.push(f(
        "gh-advanced-security",
        Severity::High,
        "security",
        "q.py",
        39,
    ));
    input.push(f(
        "gh-advanced-security",
        Severity::Medium,
        "security",
        "solo.py",
        1,
    ));
    let out = run(&input, 3);
    let k1 = find(&out, "q.py");
    assert_eq!(
        k1.corroborated_by,
        vec!["coderabbit", "gh-advanced-security", "sourcery"]
    );
    assert_eq!(k1.rank_score, 27);
    assert_eq!(k1.merged_confidence, MergedConfidence::High);
    let solo = find(&out, "solo.py");
    assert_eq!(solo.verification_score, 2, "a tool-verified single source");
    assert_eq!(solo.rank_score, 2 * 3 * 2);
    // The same single finding from a bot that is not tool-verified ranks lower...
    let plain = run(
        &[
            background(),
            vec![f("other", Severity::Medium, "security", "solo.py", 1)],
        ]
        .concat(),
        3,
    );
    assert_eq!(find(&plain, "solo.py").verification_score, 1);
    // ...unless the options name it as verified.
    let options = SynthesisOptions {
        verified_sources: vec!["other".into()],
        ..SynthesisOptions::default()
    };
    let input = [
        background(),
        vec![f("other", Severity::Medium, "security", "solo.py", 1)],
    ]
    .concat();
    let clusters = compute_consensus(&input, &ConsensusOptions::default());
    assert_eq!(
        find(&synthesize(clusters, &options), "solo.py").verification_score,
        2
    );
}

#[test]
fn severity_two_steps_apart_contests() {
    let mut input = background();
    input.push(f("a", Severity::Critical, "bug", "s.py", 10));
    input.push(f("b", Severity::Medium, "bug", "s.py", 11));
    input.push(f("c", Severity::High, "bug", "s.py", 12));
    input.push(f("a", Severity::High, "bug", "t.py", 10));
    input.push(f("b", Severity::Medium, "bug", "t.py", 10));
    let out = run(&input, 3);
    let s = find(&out, "s.py");
    assert_eq!(s.contested_by, vec!["b"]);
    assert_eq!(
        s.contest_reasons,
        vec!["rates it medium, the highest rating is critical"]
    );
    assert!(s.is_contested());
    assert_eq!(s.merged_confidence, MergedConfidence::Medium);
    assert!(
        !find(&out, "t.py").is_contested(),
        "one step apart is not a contest"
    );
}

#[test]
fn one_bot_two_steps_apart_from_itself_contests() {
    // Any two members two steps apart contest, also when one bot rated the issue twice
    // (say inline as critical and again in its review body as medium).
    let mut input = background();
    input.push(f("a", Severity::Critical, "bug", "u.py", 10));
    input.push(f("a", Severity::Medium, "bug", "u.py", 11));
    input.push(f("b", Severity::Critical, "bug", "u.py", 12));
    let out = run(&input, 3);
    let u = find(&out, "u.py");
    assert_eq!(u.contested_by, vec!["a"]);
    assert_eq!(
        u.contest_reasons,
        vec!["rates it medium, the highest rating is critical"]
    );
}

#[test]
fn disputes_contest_and_keep_the_finding() {
    let mut disputed = f("sourcery", Severity::Medium, "bug", "p.py", 18);
    disputed.disputes = vec![
        Dispute {
            by: "mkowalski".into(),
            reason: "false positive".into(),
        },
        Dispute {
            by: "mkowalski".into(),
            reason: "won't fix".into(),
        },
        Dispute {
            by: " ".into(),
            reason: "not an issue".into(),
        },
    ];
    let mut input = background();
    input.push(disputed);
    let out = run(&input, 3);
    let p = find(&out, "p.py");
    assert_eq!(p.contested_by, vec!["mkowalski", "unknown"]);
    assert_eq!(
        p.contest_reasons,
        vec![
            "disputes sourcery's comment: false positive; disputes sourcery's comment: won't fix",
            "disputes sourcery's comment: not an issue",
        ]
    );
    assert!(!p.suppressed, "rank 2*3*1 = 6 clears the threshold");
    assert_eq!(p.merged_confidence, MergedConfidence::Low);
}

#[test]
fn suppression_rules_and_reasons() {
    let mut input = background();
    input.push(f("a", Severity::Low, "style", "style.py", 1));
    input.push(f("a", Severity::Medium, "style", "medium-style.py", 1));
    let mut nit = f("a", Severity::Low, "maintainability", "nit.py", 1);
    nit.nitpick = true;
    input.push(nit);
    let mut mixed = f("a", Severity::Low, "maintainability", "mixed.py", 1);
    mixed.nitpick = true;
    input.push(mixed);
    input.push(f("b", Severity::Low, "maintainability", "mixed.py", 2));
    input.push(f("a", Severity::Low, "bug", "low.py", 1));
    let mut weak = f("a", Severity::Medium, "bug", "weak.py", 1);
    weak.confidence = 0.4;
    input.push(weak);
    input.push(NormalizedFinding::new(
        "a",
        "g",
        Severity::Critical,
        "bug",
        "Vague worry",
    ));
    let mut explained = NormalizedFinding::new("a", "e", Severity::High, "bug", "Lock order");
    explained.detail = "Acquires b before a in two places".into();
    input.push(explained);
    let out = run(&input, 3);

    let reason = |file: &str| find(&out, file).suppression_reason;
    assert_eq!(
        reason("style.py"),
        Some(SuppressionReason::StyleCoveredByLinters)
    );
    assert_eq!(
        reason("nit.py"),
        Some(SuppressionReason::StyleCoveredByLinters)
    );
    assert_eq!(
        reason("medium-style.py"),
        None,
        "medium and above are never hidden as style"
    );
    assert_eq!(reason("mixed.py"), None, "one member is not a nitpick");
    assert_eq!(
        reason("low.py"),
        Some(SuppressionReason::BelowEvidenceThreshold),
        "1*3*1"
    );
    assert_eq!(
        reason("weak.py"),
        Some(SuppressionReason::BelowEvidenceThreshold),
        "2*1*1"
    );
    let global: Vec<_> = out.iter().filter(|f| f.consensus.file.is_empty()).collect();
    assert_eq!(global.len(), 2);
    for g in global {
        let expected =
            (g.consensus.title == "Vague worry").then_some(SuppressionReason::NoEvidence);
        assert_eq!(g.suppression_reason, expected, "{}", g.consensus.title);
        assert_eq!(g.suppressed, expected.is_some());
    }

    // Style is surfaced when not covered by linters; the threshold is configurable.
    let options = SynthesisOptions {
        style_covered_by_linters: false,
        evidence_threshold: 1,
        ..SynthesisOptions::default()
    };
    let out = synthesize(
        compute_consensus(&input, &ConsensusOptions::default()),
        &options,
    );
    assert_eq!(
        out.iter().filter(|f| f.suppressed).count(),
        1,
        "only no-evidence stays"
    );
}

#[test]
fn surfaced_first_in_rank_order_then_suppressed_nothing_dropped() {
    let mut input = background();
    input.push(f("a", Severity::Low, "bug", "low.py", 1));
    input.push(f("a", Severity::Medium, "bug", "mid.py", 1));
    input.push(f("a", Severity::Low, "style", "style.py", 1));
    let out = run(&input, 3);
    assert_eq!(out.len(), 9, "every cluster is kept");
    let first_suppressed = out.iter().position(|f| f.suppressed).expect("suppressed");
    assert!(out[first_suppressed..].iter().all(|f| f.suppressed));
    assert!(out[..first_suppressed]
        .windows(2)
        .all(|w| w[0].rank_score >= w[1].rank_score));
    assert_eq!(out[first_suppressed - 1].consensus.file, "mid.py");
    // Deterministic: the same input gives the same output.
    assert_eq!(run(&input, 3), out);
}

#[test]
fn single_source_shortcut_skips_judgement_not_scores() {
    let input = vec![
        f("copilot", Severity::Low, "bug", "low.py", 1),
        f("copilot", Severity::Medium, "style", "style.py", 1),
        NormalizedFinding::new("copilot", "g", Severity::High, "bug", "Vague"),
    ];
    let out = run(&input, 1);
    assert_eq!(out.len(), 3);
    assert_eq!(find(&out, "low.py").rank_score, 3);
    assert!(!find(&out, "low.py").suppressed);
    assert!(!find(&out, "style.py").suppressed);
    assert_eq!(
        find(&out, "").suppression_reason,
        Some(SuppressionReason::NoEvidence),
        "zero findings surfaced without evidence, shortcut or not"
    );

    // Five findings from the one source: synthesis runs in full.
    let mut five = input.clone();
    five.push(f("copilot", Severity::High, "bug", "a.py", 1));
    five.push(f("copilot", Severity::High, "bug", "b.py", 1));
    assert!(run(&five, 1)
        .iter()
        .find(|f| f.consensus.file == "low.py")
        .is_some_and(|f| f.suppressed));

    // Two sources: no shortcut either.
    let mut two = input;
    two.push(f("gemini", Severity::High, "bug", "a.py", 1));
    assert!(find(&run(&two, 2), "low.py").suppressed);
}
