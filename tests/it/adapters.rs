//! Extraction accuracy on the fixture PRs (tests/fixtures/pr-10*/expected.md), encoded as
//! data: every expected finding of a registered adapter must be extracted with the right
//! file, line(s), severity and category; nothing may come from ignored comments. Adapters
//! that are not registered yet (another branch) are skipped, so the test tightens itself.

use std::collections::BTreeMap;
use std::path::Path;

use review_consensus::adapters::{self, default_sources, extract, is_known, ExtractOptions};
use review_consensus::api::{self, CodeScanning, PrSnapshot};
use review_consensus::consensus::{compute_consensus, ConsensusOptions, Matching};
use review_consensus::model::{ConsensusLevel, Coverage, NormalizedFinding, SourceState};
use serde_json::Value;

/// Load a saved-API-JSON folder (test-only loader; the product has its own).
pub fn load_fixture(name: &str) -> PrSnapshot {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    let read = |file: &str| -> Option<Value> {
        let text = std::fs::read_to_string(dir.join(file)).ok()?;
        Some(serde_json::from_str(&text).expect(file))
    };
    let list = |file: &str| -> Vec<Value> {
        match read(file) {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        }
    };
    let pull: api::PullRequest =
        serde_json::from_value(read("pull.json").expect("pull.json")).expect("pull shape");
    let mut unreadable = Vec::new();
    let (review_comments, bad) = api::parse_list("review_comments", list("review_comments.json"));
    unreadable.extend(bad);
    let (reviews, bad) = api::parse_list("reviews", list("reviews.json"));
    unreadable.extend(bad);
    let (issue_comments, bad) = api::parse_list("issue_comments", list("issue_comments.json"));
    unreadable.extend(bad);
    let code_scanning = match read("code_scanning_alerts.json") {
        Some(Value::Array(items)) => {
            let (alerts, bad) = api::parse_list("code_scanning_alerts", items);
            unreadable.extend(bad);
            CodeScanning::Alerts(alerts)
        }
        _ => CodeScanning::Unavailable("no code scanning in this fixture".to_owned()),
    };
    let review_threads = read("review_threads.json").and_then(|v| api::threads_from_json(&v));
    let repository = pull
        .base
        .repo
        .as_ref()
        .and_then(|r| r.full_name.clone())
        .unwrap_or_default();
    PrSnapshot {
        repository,
        pull,
        review_comments,
        reviews,
        issue_comments,
        code_scanning,
        review_threads,
        unreadable,
        signals: Default::default(),
        viewer: None,
    }
}

/// One row of an expected.md findings table.
struct Expected {
    tag: &'static str,
    bot: &'static str,
    file: &'static str,
    /// (start, end); `None` = no line (file-level / base side).
    lines: Option<(u32, u32)>,
    severity: &'static str,
    /// The expected category first, then any the expected.md also accepts.
    categories: &'static [&'static str],
}

const fn exp(
    tag: &'static str,
    bot: &'static str,
    file: &'static str,
    lines: Option<(u32, u32)>,
    severity: &'static str,
    categories: &'static [&'static str],
) -> Expected {
    Expected {
        tag,
        bot,
        file,
        lines,
        severity,
        categories,
    }
}

const CR: &str = "coderabbit";
const SO: &str = "sourcery";
const GH: &str = "gh-advanced-security";
const GM: &str = "gemini";
const CP: &str = "copilot";
const QO: &str = "qodo";
const BB: &str = "cursor-bugbot";

#[rustfmt::skip]
const PR101: &[Expected] = &[
    exp("CR1", CR, "app/db/queries.py", Some((39, 41)), "critical", &["security"]),
    exp("CR2", CR, "app/auth/tokens.py", Some((22, 23)), "high", &["security"]),
    exp("CR3", CR, "app/services/ledger.py", Some((57, 60)), "high", &["bug"]),
    exp("CR4", CR, "web/src/components/CheckoutForm.tsx", Some((25, 25)), "high", &["bug"]),
    exp("CR5", CR, "app/api/refunds.py", Some((57, 63)), "medium", &["maintainability"]),
    exp("CR6", CR, "app/services/ledger.py", Some((79, 81)), "medium", &["bug"]),
    exp("CR7", CR, "app/api/refunds.py", Some((4, 4)), "low", &["maintainability"]),
    exp("CR8", CR, "web/src/lib/currency.ts", Some((12, 17)), "low", &["maintainability"]),
    exp("S1", SO, "app/db/queries.py", Some((41, 41)), "high", &["security"]),
    exp("S2", SO, "app/db/queries.py", Some((23, 24)), "high", &["security"]),
    exp("S3", SO, "app/services/ledger.py", Some((57, 57)), "medium", &["bug"]),
    exp("S4", SO, "web/src/components/CheckoutForm.tsx", Some((26, 26)), "low", &["bug"]),
    exp("S5", SO, "tests/test_refunds.py", Some((11, 13)), "low", &["test"]),
    exp("S6", SO, "app/api/refunds.py", Some((25, 25)), "low", &["style"]),
    exp("G1", GH, "app/db/queries.py", Some((39, 39)), "high", &["security"]),
    exp("G2", GH, "app/auth/tokens.py", Some((23, 23)), "high", &["security"]),
    exp("G3", GH, "app/api/refunds.py", Some((45, 45)), "medium", &["security"]),
];

#[rustfmt::skip]
const PR102: &[Expected] = &[
    exp("GM1", GM, "app/webhooks/verify.py", Some((20, 20)), "critical", &["security"]),
    exp("GM2", GM, "web/src/lib/currency.ts", Some((21, 21)), "high", &["bug"]),
    exp("GM3", GM, "app/services/fx_rates.py", Some((32, 32)), "medium", &["bug"]),
    exp("GM4", GM, "app/services/fx_rates.py", Some((40, 40)), "medium", &["performance"]),
    exp("GM5", GM, "app/services/fx_rates.py", Some((17, 17)), "low", &["style"]),
    exp("CP1", CP, "app/webhooks/verify.py", Some((20, 21)), "medium", &["security"]),
    exp("CP2", CP, "app/webhooks/verify.py", Some((22, 22)), "medium", &["bug"]),
    exp("CP3", CP, "web/src/lib/currency.ts", Some((22, 22)), "medium", &["bug"]),
    exp("CP4", CP, "tests/test_fx_rates.py", Some((12, 12)), "medium", &["test"]),
    exp("CP5", CP, "app/services/fx_rates.py", Some((3, 3)), "low", &["style"]),
    exp("CP6", CP, "app/services/fx_rates.py", Some((20, 20)), "low", &["performance", "bug", "other"]),
    exp("Q1", QO, "app/webhooks/verify.py", Some((20, 21)), "high", &["security"]),
    exp("Q2", QO, "app/services/fx_rates.py", Some((32, 33)), "medium", &["bug"]),
    exp("Q3", QO, "web/src/lib/currency.ts", Some((27, 27)), "low", &["maintainability"]),
];

#[rustfmt::skip]
const PR103: &[Expected] = &[
    exp("E2", CP, "docs/guía-reembolsos.md", None, "medium", &["docs"]),
    exp("E2'", CR, "docs/guía-reembolsos.md", Some((9, 9)), "low", &["docs"]),
    exp("E3", CR, "app/services/reconcile.py", Some((17, 32)), "high", &["bug"]),
    exp("E3'", GM, "app/services/reconcile.py", Some((22, 22)), "medium", &["performance"]),
    exp("E4", GM, "web/src/i18n/ja.ts", Some((4, 4)), "high", &["bug"]),
    exp("E5a", CR, "app/services/reconcile.py", Some((42, 42)), "medium", &["security"]),
    exp("E6a", SO, "app/api/payouts.py", Some((18, 18)), "medium", &["bug"]),
    exp("E7", CR, "app/services/reconcile.py", Some((46, 48)), "high", &["bug"]),
    exp("E7'", CP, "app/services/reconcile.py", Some((47, 47)), "low", &["bug"]),
    exp("E8", BB, "app/api/payouts.py", Some((55, 58)), "high", &["bug"]),
    exp("E9", CP, "docs/guía-reembolsos.md", Some((15, 15)), "medium", &["docs"]),
    exp("E10", CP, "web/src/components/RefundBanner.tsx", None, "medium", &["other", "bug"]),
];

/// Comments, reviews and issue comments that must yield nothing (ids checked against the
/// finding's comment id, and its review id when it has no comment).
const IGNORED_101: &[u64] = &[
    3478797501, 3478800215, 3478812090, 3412871937, 3412866402, 3412880225, 2502131177,
];
const IGNORED_102: &[u64] = &[3501466120, 3447102953, 3501471833, 3501489001];
const IGNORED_103: &[u64] = &[
    3522871009, 3522900114, 3522955870, 3460011001, 3460015502, 3460037788, 3460014420, 3460013310,
    3460035501, 3460012007, 3460012950, 2561262002, 2561263330, 2561351020, 2561358807, 2561214990,
    2561210412, 2561205503, 2561299314, 2561200101, 2561216001, 2561299313,
];

fn matches(e: &Expected, f: &NormalizedFinding) -> bool {
    let lines_ok = match e.lines {
        None => f.evidence.line.is_none(),
        Some((start, end)) => {
            f.evidence.line == Some(start) && f.evidence.end_line.or(f.evidence.line) == Some(end)
        }
    };
    f.bot == e.bot && f.evidence.file == e.file && lines_ok
}

fn active(bot: &str) -> bool {
    is_known(bot)
}

/// Match expected rows to findings one to one; assert each active bot's rows; return
/// (per-bot (extracted, matched, expected)) for the precision/recall figures.
fn check_scenario(
    name: &str,
    expected: &[Expected],
    findings: &[NormalizedFinding],
    ignored: &[u64],
) -> BTreeMap<String, (usize, usize, usize)> {
    let mut used = vec![false; findings.len()];
    let mut stats: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for e in expected {
        if !active(e.bot) {
            continue;
        }
        stats.entry(e.bot.to_owned()).or_default().2 += 1;
        let hit = findings
            .iter()
            .enumerate()
            .find(|(i, f)| !used[*i] && matches(e, f));
        let Some((i, f)) = hit else {
            failures.push(format!(
                "{name} {}: not extracted ({} {} {:?})",
                e.tag, e.bot, e.file, e.lines
            ));
            continue;
        };
        used[i] = true;
        if f.severity.as_str() != e.severity {
            failures.push(format!(
                "{name} {}: severity {} != {}",
                e.tag, f.severity, e.severity
            ));
            continue;
        }
        if !e.categories.contains(&f.category.as_str()) {
            failures.push(format!(
                "{name} {}: category {} not in {:?}",
                e.tag, f.category, e.categories
            ));
            continue;
        }
        stats.entry(e.bot.to_owned()).or_default().1 += 1;
    }
    for f in findings {
        stats.entry(f.bot.clone()).or_default().0 += 1;
        let id = f.provenance.comment_id.or(f.provenance.review_id);
        if let Some(id) = id {
            assert!(
                !ignored.contains(&id),
                "{name}: finding {:?} extracted from ignored object {id}",
                f.title
            );
        }
    }
    for (i, f) in findings.iter().enumerate() {
        if !used[i] && active(&f.bot) {
            failures.push(format!(
                "{name}: unexpected {} finding {:?} at {}:{:?}",
                f.bot, f.title, f.evidence.file, f.evidence.line
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    stats
}

#[allow(clippy::print_stdout)]
fn report(stats: &BTreeMap<String, (usize, usize, usize)>) {
    for (bot, (extracted, matched, expected)) in stats {
        let precision = if *extracted == 0 {
            1.0
        } else {
            *matched as f64 / *extracted as f64
        };
        let recall = if *expected == 0 {
            1.0
        } else {
            *matched as f64 / *expected as f64
        };
        println!(
            "{bot:<22} extracted {extracted:>2}  expected {expected:>2}  precision {precision:.2}  recall {recall:.2}"
        );
    }
}

fn run(name: &str, options: &ExtractOptions) -> adapters::Extraction {
    extract(&load_fixture(name), &default_sources(), options)
}

#[test]
fn extraction_matches_expected_findings() {
    let mut total: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    let defaults = ExtractOptions::default();
    for (name, expected, ignored) in [
        ("pr-101-three-bots", PR101, IGNORED_101),
        ("pr-102-gemini-copilot", PR102, IGNORED_102),
        ("pr-103-edge-cases", PR103, IGNORED_103),
    ] {
        let extraction = run(name, &defaults);
        let stats = check_scenario(name, expected, &extraction.findings, ignored);
        for (bot, (x, m, e)) in stats {
            let t = total.entry(bot).or_default();
            t.0 += x;
            t.1 += m;
            t.2 += e;
        }
    }
    report(&total);
    for (bot, (extracted, matched, expected)) in &total {
        assert_eq!(matched, expected, "{bot}: recall below 1");
        assert_eq!(matched, extracted, "{bot}: precision below 1");
    }
}

/// Which extracted finding each expected row is (same matching as the accuracy test).
fn assign(expected: &[Expected], findings: &[NormalizedFinding]) -> BTreeMap<&'static str, usize> {
    let mut used = vec![false; findings.len()];
    let mut out = BTreeMap::new();
    for e in expected {
        if let Some(i) = (0..findings.len()).find(|&i| !used[i] && matches(e, &findings[i])) {
            used[i] = true;
            out.insert(e.tag, i);
        }
    }
    out
}

/// An expected.md cluster table: multi-bot groups with their level, single findings with
/// theirs, pairs that must stay apart, and the scenario's `bots_ran`.
struct Clusters {
    groups: &'static [(&'static [&'static str], ConsensusLevel)],
    singles: &'static [(&'static str, ConsensusLevel)],
    apart: &'static [(&'static str, &'static str)],
    bots_ran: usize,
}

use ConsensusLevel::{Confirmed, NeedsVerification, Unverified};

const CLUSTERS_101: Clusters = Clusters {
    groups: &[
        (&["CR1", "S1", "G1"], Confirmed),
        (&["CR2", "G2"], Confirmed),
        (&["CR3", "S3"], Confirmed),
        (&["CR4", "S4"], Confirmed),
    ],
    singles: &[
        ("S2", NeedsVerification),
        ("G3", NeedsVerification),
        ("CR5", NeedsVerification),
        ("CR6", NeedsVerification),
        ("CR7", NeedsVerification),
        ("CR8", NeedsVerification),
        ("S5", NeedsVerification),
        ("S6", NeedsVerification),
    ],
    apart: &[("S2", "CR1"), ("G3", "CR5"), ("G3", "S6"), ("CR7", "CR5")],
    bots_ran: 3,
};

const CLUSTERS_102: Clusters = Clusters {
    groups: &[
        (&["GM1", "CP1", "Q1"], Confirmed),
        (&["GM2", "CP3"], Confirmed),
        (&["GM3", "Q2"], Confirmed),
    ],
    singles: &[
        ("CP2", NeedsVerification),
        ("GM4", NeedsVerification),
        ("GM5", NeedsVerification),
        ("CP4", NeedsVerification),
        ("CP5", NeedsVerification),
        ("CP6", Unverified),
        ("Q3", Unverified),
    ],
    apart: &[
        ("CP2", "CP1"),
        ("Q3", "GM2"),
        ("GM5", "CP6"),
        ("CP5", "GM5"),
    ],
    bots_ran: 3,
};

const CLUSTERS_103: Clusters = Clusters {
    groups: &[
        (&["E2", "E2'"], NeedsVerification),
        (&["E7", "E7'"], NeedsVerification),
    ],
    singles: &[
        ("E3", Unverified),
        ("E3'", Unverified),
        ("E4", Unverified),
        ("E5a", Unverified),
        ("E6a", Unverified),
        ("E8", Unverified),
        ("E9", Unverified),
        ("E10", Unverified),
    ],
    apart: &[("E3", "E3'"), ("E9", "E2"), ("E5a", "E3")],
    bots_ran: 6,
};

/// Run the engine on what the adapters extracted and check the expected.md merges. Rows of
/// unregistered adapters are left out; levels are checked once every bot of the scenario is
/// read (the denominator then matches expected.md).
fn check_clusters(name: &str, expected: &[Expected], clusters: &Clusters, matching: Matching) {
    let name = &format!("{name} ({} matching)", matching.as_str());
    let x = run(
        name.split(' ').next().unwrap_or_default(),
        &ExtractOptions::default(),
    );
    let bots_ran = x.sources.iter().filter(|s| s.coverage.ran()).count().max(1);
    let options = ConsensusOptions {
        bots_ran: Some(bots_ran),
        matching,
        ..ConsensusOptions::default()
    };
    let out = compute_consensus(&x.findings, &options);
    let index = assign(expected, &x.findings);
    let cluster_of = |tag: &str| -> Option<usize> {
        let f = &x.findings[*index.get(tag)?];
        out.iter().position(|c| c.members.iter().any(|m| m == f))
    };
    let levels = bots_ran == clusters.bots_ran;
    for (tags, level) in clusters.groups {
        let present: Vec<&str> = tags
            .iter()
            .copied()
            .filter(|t| index.contains_key(t))
            .collect();
        let Some(first) = present.first() else {
            continue;
        };
        let c = cluster_of(first).expect("clustered");
        for tag in &present {
            assert_eq!(
                cluster_of(tag),
                Some(c),
                "{name}: {tag} should merge with {first}"
            );
        }
        assert_eq!(
            out[c].members.len(),
            present.len(),
            "{name}: cluster of {first} has extra members"
        );
        if levels && present.len() == tags.len() {
            assert_eq!(out[c].level, *level, "{name}: level of {tags:?}");
        }
    }
    for (tag, level) in clusters.singles {
        let Some(c) = cluster_of(tag) else { continue };
        assert_eq!(out[c].members.len(), 1, "{name}: {tag} should stay alone");
        if levels {
            assert_eq!(out[c].level, *level, "{name}: level of {tag}");
        }
    }
    for (a, b) in clusters.apart {
        if let (Some(ca), Some(cb)) = (cluster_of(a), cluster_of(b)) {
            assert_ne!(ca, cb, "{name}: {a} and {b} must not merge");
        }
    }
}

/// Both matching modes give the expected.md merges on the synthetic fixtures.
#[test]
fn cross_bot_merges_happen_in_the_engine() {
    for matching in [Matching::Seed, Matching::Issue] {
        check_clusters("pr-101-three-bots", PR101, &CLUSTERS_101, matching);
        check_clusters("pr-102-gemini-copilot", PR102, &CLUSTERS_102, matching);
        check_clusters("pr-103-edge-cases", PR103, &CLUSTERS_103, matching);
    }
}

fn status<'a>(x: &'a adapters::Extraction, bot: &str) -> &'a review_consensus::model::SourceStatus {
    x.sources
        .iter()
        .find(|s| s.bot == bot)
        .unwrap_or_else(|| panic!("no status for {bot}"))
}

fn by_comment(x: &adapters::Extraction, id: u64) -> Option<&NormalizedFinding> {
    x.findings
        .iter()
        .find(|f| f.provenance.comment_id == Some(id))
}

#[test]
fn source_status_and_coverage() {
    let defaults = ExtractOptions::default();
    let x = run("pr-101-three-bots", &defaults);
    for bot in [CR, SO, GH] {
        let s = status(&x, bot);
        assert_eq!(
            (s.status, s.coverage, s.skipped),
            (SourceState::Ok, Coverage::Reviewed, 0),
            "{bot}"
        );
    }
    assert_eq!(status(&x, CP).coverage, Coverage::Absent);
    assert_eq!(status(&x, CP).status, SourceState::Missing);
    assert!(
        status(&x, GH)
            .notes
            .iter()
            .any(|n| n.contains("pre-existing")),
        "alert #12"
    );

    let x = run("pr-102-gemini-copilot", &defaults);
    let gh = status(&x, GH);
    assert_eq!(
        (gh.status, gh.coverage),
        (SourceState::Missing, Coverage::Absent)
    );
    assert!(gh
        .notes
        .iter()
        .any(|n| n.contains("code scanning unavailable")));
    assert_eq!(status(&x, CP).coverage, Coverage::Reviewed);

    // 103: one unreadable comment each for coderabbit and sourcery; the rest still counts.
    let x = run("pr-103-edge-cases", &defaults);
    let cr = status(&x, CR);
    assert_eq!(
        (cr.status, cr.coverage, cr.skipped),
        (SourceState::Ok, Coverage::Reviewed, 1)
    );
    assert!(cr.notes.iter().any(|n| n.contains("2561299314")));
    assert!(cr.notes.iter().any(|n| n.contains("rate-limit")));
    let so = status(&x, SO);
    assert_eq!((so.status, so.skipped), (SourceState::Ok, 1));
    assert!(so.notes.iter().any(|n| n.contains("2561210412")));
    assert_eq!(
        status(&x, GH).findings,
        0,
        "dismissed alert #57 is not a finding"
    );
    assert_eq!(status(&x, CP).status, SourceState::Ok);
    if is_known(GM) {
        let gm = status(&x, GM);
        assert_eq!(
            (gm.status, gm.coverage, gm.skipped),
            (SourceState::Ok, Coverage::Stale, 1)
        );
    }
}

#[test]
fn outdated_and_resolved_follow_the_options() {
    let x = run("pr-103-edge-cases", &ExtractOptions::default());
    assert!(by_comment(&x, 2561200101).is_none(), "E1 outdated");
    assert!(by_comment(&x, 2561299313).is_none(), "E6b resolved");
    let note = status(&x, CR).notes.join(" | ");
    assert!(
        note.contains("1 resolved") && note.contains("1 outdated"),
        "{note}"
    );

    let x = run(
        "pr-103-edge-cases",
        &ExtractOptions {
            include_outdated: true,
            include_resolved: false,
        },
    );
    let e1 = by_comment(&x, 2561200101).expect("E1 with include-outdated");
    assert_eq!(
        (e1.evidence.line, e1.evidence.end_line),
        (Some(37), Some(40))
    );
    assert_eq!(
        (e1.severity.as_str(), e1.category.as_str()),
        ("high", "bug")
    );
    assert_eq!(
        e1.provenance.commit.as_deref(),
        Some("a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9")
    );
    assert!(by_comment(&x, 2561299313).is_none());

    let x = run(
        "pr-103-edge-cases",
        &ExtractOptions {
            include_outdated: false,
            include_resolved: true,
        },
    );
    let e6b = by_comment(&x, 2561299313).expect("E6b with include-resolved");
    assert_eq!(
        (e6b.severity.as_str(), e6b.category.as_str()),
        ("medium", "performance")
    );
    assert!(!e6b.detail.contains("Addressed"), "{}", e6b.detail);
}

#[test]
fn disputes_come_from_replies_in_the_thread() {
    let x = run("pr-103-edge-cases", &ExtractOptions::default());
    let e6a = by_comment(&x, 2561210411).expect("E6a");
    assert_eq!(e6a.disputes.len(), 1, "{:?}", e6a.disputes);
    assert_eq!(e6a.disputes[0].by, "mkowalski");
    assert_eq!(e6a.disputes[0].reason, "false positive");
    let others = x
        .findings
        .iter()
        .filter(|f| f.provenance.comment_id != Some(2561210411));
    for f in others {
        assert!(f.disputes.is_empty(), "{}: {:?}", f.title, f.disputes);
    }
    // An agreeing human reply (pr-101, S3) is not a dispute.
    let x = run("pr-101-three-bots", &ExtractOptions::default());
    assert!(by_comment(&x, 2502118812).is_some_and(|f| f.disputes.is_empty()));
}

#[test]
fn provenance_ids_and_titles() {
    let x = run("pr-101-three-bots", &ExtractOptions::default());
    for f in x.findings.iter() {
        assert!(f.provenance.category_source.is_some(), "{}", f.title);
        assert!(f.provenance.url.is_some(), "{}", f.title);
        assert!(f.provenance.commit.is_some(), "{}", f.title);
        assert!(f.provenance.comment_id.is_some() || f.provenance.review_id.is_some());
    }
    let cr1 = by_comment(&x, 2502140031).expect("CR1");
    assert_eq!(cr1.finding_id, "cr-comment:v1:5b1e0c7d9a24f36e81c0d2aa");
    assert_eq!(
        cr1.title,
        "Bind `order_ref` as a query parameter; the f-string makes this lookup injectable."
    );
    assert!(cr1
        .detail
        .starts_with("`list_order_refunds` passes the raw path segment"));
    assert!(
        !cr1.detail.contains("diff"),
        "code and details are not detail"
    );
    assert_eq!(
        by_comment(&x, 2502140034).map(|f| f.finding_id.as_str()),
        Some("2502140034")
    );
    let g1 = by_comment(&x, 2502113401).expect("G1");
    assert_eq!(g1.finding_id, "alert-41");
    assert_eq!(g1.title, "SQL query built from user-controlled sources");
    let nitpicks: Vec<_> = x
        .findings
        .iter()
        .filter(|f| f.nitpick)
        .map(|f| f.bot.as_str())
        .collect();
    assert_eq!(
        nitpicks,
        vec![CR, CR, SO],
        "CR7, CR8 (Nitpick section) and S6"
    );

    let x = run("pr-103-edge-cases", &ExtractOptions::default());
    let e7 = by_comment(&x, 2561299312).expect("E7");
    assert_eq!(
        e7.title,
        "Cap the retries in `fetch_statement_line`; a provider outage makes this loop spin forever."
    );
    let e5a = by_comment(&x, 2561299311).expect("E5a");
    assert_eq!(
        e5a.title,
        "URL-encode `provider_ref` before placing it in the request path."
    );
    let e2 = by_comment(&x, 2561301101).expect("E2");
    assert_eq!(
        e2.title,
        "The guide still documents the removed manual finance approval step."
    );
    let e2b = x
        .findings
        .iter()
        .find(|f| f.bot == CR && f.provenance.comment_id.is_none())
        .expect("E2'");
    assert_eq!(e2b.title, e2.title);
    assert!(e2b.finding_id.starts_with("review-3460034877-"));
    let low_confidence: Vec<f64> = x
        .findings
        .iter()
        .filter(|f| f.confidence < 1.0)
        .map(|f| f.confidence)
        .collect();
    assert_eq!(low_confidence, vec![0.5], "E7' only");
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;
    use review_consensus::api::{
        CodeScanningAlert, IssueComment, Review, ReviewComment, ReviewThread, ThreadComment,
        ThreadComments, User,
    };

    /// Pieces of real bot markup mixed with arbitrary text, so structure parsers see
    /// unclosed fences, stray `<details>`, half labels, CRLF and every script.
    fn fragment() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => any::<String>(),
            1 => "[ -~\u{80}-\u{10FFFF}]{0,30}",
            4 => prop::sample::select(vec![
                "```", "````suggestion\n", "~~~markdown\n", "\n```\n", "<details>", "</details>",
                "<summary>🧹 Nitpick comments (2)</summary>", "<summary>app/x.py-3-9 (1)</summary>",
                "<summary>⚠️ Outside diff range comments (1)</summary>", "<summary>♻️ Duplicate comments (1)</summary>",
                "<summary>🟠 Major comments (4)</summary>", "<blockquote>", "</blockquote>",
                "`12-17`: ", "`8`: ", "_⚠️ Potential issue_ | _🟠 Major_", "_🔒 Security & Privacy_ | _🔴 Critical_ | _⚡ Quick win_",
                "**Title.**", "**", "**issue (bug_risk):**", "**suggestion (security):** x", "\r\n", "\r", "\n", "\n\n",
                "> ", "> [!CAUTION]\n", "<!--", "-->", "<!-- cr-comment:v1:abc -->",
                "<!-- <review_comment_addressed> -->", "[Show more details](https://x/security/code-scanning/41)",
                "/code-scanning/99999999999999999999999", "**app/x.py:20**\n* ", "**a.py:9-2**",
                "<summary>Comments suppressed due to low confidence (1)</summary>", "### Suppressed comments (1)\n",
                "## CodeQL / X\n", "[nitpick] ", "P1: ", "P0 (x): ", "`", "日本語 العربية 🙏", "e.g. ", ". ",
                "rate limited by coderabbit.ai", "Sorry @x, this account has used its review budget",
                "<!-- review-bot-ack -->", "Also applies to: 1-2, 5", "![high](https://x/high-priority.svg)",
                "| a | b |\n|---|---|\n", "<table><tr><td>", "    indented code\n", "- item\n", "1. ",
                "## Assessment against linked issues\n\n", "| Objective | Addressed | Explanation |\n|---|---|---|\n", "| x (#1) | ❌ | y |\n",
                "| Issue | Objective | Addressed |\n", "✅ Addressed in commit abc1234", "✅ Confirmed as addressed by @x",
                "<!-- ccr-overview-v2 -->\n", "### 🟡 Changes recommended\n", "**Findings:** 2 ", "<summary><strong>Open (1)</strong></summary>",
                "<summary><strong>Previously missed (1)</strong></summary>", "<summary><strong>Resolved since last review (1)</strong></summary>",
                "(#discussion_r42)", "<img alt=\"High severity\" src=\"x/copilot-code-review/high-v2-light.png\">", "`app/x.py:7`",
                "<h2>Greptile Overview</h2>", "Last reviewed commit: [x](https://x/commit/c0ffee0)",
            ]).prop_map(str::to_owned),
        ]
    }

    fn body() -> impl Strategy<Value = String> {
        prop::collection::vec(fragment(), 0..48).prop_map(|parts| parts.concat())
    }

    fn maybe_line() -> impl Strategy<Value = Option<u32>> {
        prop_oneof![
            Just(None),
            (0u32..80).prop_map(Some),
            any::<u32>().prop_map(Some)
        ]
    }

    #[derive(Debug, Clone)]
    struct Shape {
        body: String,
        path: Option<String>,
        line: Option<u32>,
        start_line: Option<u32>,
        original_line: Option<u32>,
        side_left: bool,
        file_level: bool,
        resolved: bool,
        outdated: bool,
    }

    fn shape() -> impl Strategy<Value = Shape> {
        (
            body(),
            prop_oneof![
                Just(None),
                Just(Some(String::new())),
                "[a-z/._]{1,20}".prop_map(Some)
            ],
            maybe_line(),
            maybe_line(),
            maybe_line(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(
                |(
                    body,
                    path,
                    line,
                    start_line,
                    original_line,
                    side_left,
                    file_level,
                    resolved,
                    outdated,
                )| Shape {
                    body,
                    path,
                    line,
                    start_line,
                    original_line,
                    side_left,
                    file_level,
                    resolved,
                    outdated,
                },
            )
    }

    /// One PR where every registered adapter's every login posted `shape` everywhere.
    fn snapshot(shape: &Shape) -> PrSnapshot {
        let mut snapshot = PrSnapshot::default();
        snapshot.pull.head.sha = "head".to_owned();
        let mut id = 1u64;
        let mut alerts = Vec::new();
        let mut threads = Vec::new();
        for adapter in adapters::registry() {
            for login in adapter.default_logins() {
                let user = User {
                    login: (*login).to_owned(),
                    id: adapter.user_ids().first().copied().unwrap_or(0),
                    kind: "Bot".to_owned(),
                };
                id += 1;
                snapshot.review_comments.push(ReviewComment {
                    id,
                    user: Some(user.clone()),
                    body: shape.body.clone(),
                    path: shape.path.clone(),
                    line: shape.line,
                    start_line: shape.start_line,
                    original_line: shape.original_line,
                    side: Some(if shape.side_left { "LEFT" } else { "RIGHT" }.to_owned()),
                    subject_type: Some(if shape.file_level { "file" } else { "line" }.to_owned()),
                    commit_id: Some(if shape.outdated { "old" } else { "head" }.to_owned()),
                    ..ReviewComment::default()
                });
                threads.push(ReviewThread {
                    is_resolved: shape.resolved,
                    is_outdated: shape.outdated,
                    comments: ThreadComments {
                        nodes: vec![ThreadComment {
                            database_id: Some(id),
                        }],
                    },
                    ..ReviewThread::default()
                });
                snapshot.review_comments.push(ReviewComment {
                    id: id + 1000,
                    in_reply_to_id: Some(id),
                    user: None,
                    body: shape.body.clone(),
                    ..ReviewComment::default()
                });
                snapshot.reviews.push(Review {
                    id,
                    user: Some(user.clone()),
                    body: Some(shape.body.clone()),
                    commit_id: Some("head".to_owned()),
                    ..Review::default()
                });
                snapshot.issue_comments.push(IssueComment {
                    id,
                    user: Some(user),
                    body: Some(shape.body.clone()),
                    ..IssueComment::default()
                });
            }
            let mut alert = CodeScanningAlert {
                number: 41,
                state: Some("open".to_owned()),
                ..CodeScanningAlert::default()
            };
            alert.rule.description = Some(shape.body.clone());
            alert.rule.security_severity_level = Some(shape.body.chars().take(8).collect());
            alert.most_recent_instance.message.text = Some(shape.body.clone());
            alert.most_recent_instance.location.path = shape.path.clone();
            alert.most_recent_instance.location.start_line = shape.line;
            alert.most_recent_instance.location.end_line = shape.start_line;
            alerts.push(alert);
        }
        snapshot.code_scanning = CodeScanning::Alerts(alerts);
        snapshot.review_threads = Some(threads);
        snapshot
    }

    fn check(shape: &Shape) {
        let snapshot = snapshot(shape);
        let sources = adapters::registry()
            .iter()
            .map(|a| adapters::SourceConfig {
                adapter: a.id().to_owned(),
                logins: Vec::new(),
            })
            .collect::<Vec<_>>();
        for options in [
            ExtractOptions::default(),
            ExtractOptions {
                include_outdated: true,
                include_resolved: true,
            },
        ] {
            let x = extract(&snapshot, &sources, &options);
            assert_eq!(x.sources.len(), sources.len());
            for f in &x.findings {
                assert!(!f.title.trim().is_empty(), "{}: empty title", f.bot);
                if [CR, SO, GH, CP].contains(&f.bot.as_str()) {
                    assert!(f.title.chars().count() <= 241, "{}: title too long", f.bot);
                    assert!(
                        f.detail.chars().count() <= 481,
                        "{}: detail too long",
                        f.bot
                    );
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]
        #[test]
        fn arbitrary_bodies_never_panic(shape in shape()) {
            check(&shape);
        }
    }

    #[test]
    fn sixty_kilobyte_bodies() {
        let nasty = "_⚠️ Potential issue_ | _🟠 Major_\r\n<details><summary>🧩 Analysis chain</summary>\r\n```shell\r\nrg x\r\n<details>\r\n**Not a title.**\r\n~~~\r\n日本語 🙏 `x` ";
        let mut body = String::new();
        while body.len() < 60 * 1024 {
            body.push_str(nasty);
        }
        body.push_str("**The real title.**\r\n");
        let section = "> <details><summary>🧹 Nitpick comments (2)</summary><blockquote>\n<details><summary>a.py-1-2 (1)</summary>\n`1-2`: _🔵 Trivial_\n**T.**\n---\n";
        let mut sections = String::new();
        while sections.len() < 60 * 1024 {
            sections.push_str(section);
        }
        for body in [body, sections] {
            let started = std::time::Instant::now();
            for path in [Some("app/x.py".to_owned()), None] {
                check(&Shape {
                    body: body.clone(),
                    path,
                    line: Some(3),
                    start_line: Some(1),
                    original_line: None,
                    side_left: false,
                    file_level: false,
                    resolved: false,
                    outdated: false,
                });
            }
            // Every registered adapter reads it several times; a quadratic pass would not fit.
            assert!(
                started.elapsed().as_secs() < 30,
                "took {:?}",
                started.elapsed()
            );
        }
    }
}

/// A ❌ linked-issue objective is a PR-level finding the comment shows: it carries its
/// issue and explanation as evidence, so it is not suppressed as evidence-free, and it is
/// located "PR-wide".
#[test]
fn unmet_linked_issue_objectives_reach_the_comment() {
    use review_consensus::adapters::BotSelection;
    use review_consensus::api::{IssueComment, ReviewComment, User};
    use review_consensus::pipeline::{analyze, AnalysisOptions};
    use review_consensus::render::{render_comment, RenderOptions};

    let bot = |login: &str| {
        Some(User {
            login: login.to_owned(),
            id: 1,
            kind: "Bot".to_owned(),
        })
    };
    let walkthrough = "<!-- This is an auto-generated comment: summarize by coderabbit.ai -->\n\n\
## Walkthrough\n\nAdds partial refunds.\n\n## Assessment against linked issues\n\n\
| Objective | Addressed | Explanation |\n|---|---|---|\n\
| Refund partial captures (#42) | ✅ |  |\n\
| Email the customer on refund (#42) | ❌ | No notification is sent anywhere in the refund flow. |\n\
| Log refunds for audit (#43) | ❌ |  |\n";
    let mut snapshot = PrSnapshot {
        repository: "acme/payments-api".to_owned(),
        ..PrSnapshot::default()
    };
    snapshot.pull.head.sha = "c0ffee0000000000000000000000000000000001".to_owned();
    snapshot.issue_comments.push(IssueComment {
        id: 70,
        user: bot("coderabbitai[bot]"),
        body: Some(walkthrough.to_owned()),
        ..IssueComment::default()
    });
    snapshot.review_comments.push(ReviewComment {
        id: 71,
        user: bot("sourcery-ai[bot]"),
        body: "**issue (bug_risk):** Off by one in the page size.".to_owned(),
        path: Some("app/api/refunds.py".to_owned()),
        line: Some(3),
        commit_id: Some(snapshot.pull.head.sha.clone()),
        ..ReviewComment::default()
    });
    let outcome = analyze(
        Some(&snapshot),
        &BotSelection::default(),
        Vec::new(),
        &AnalysisOptions::default(),
    );
    let linked: Vec<_> = outcome
        .findings
        .iter()
        .filter(|f| {
            f.consensus
                .title
                .starts_with("Linked-issue objective not met")
        })
        .collect();
    assert_eq!(linked.len(), 2, "{:?}", outcome.findings);
    for f in &linked {
        assert!(f.consensus.file.is_empty());
        assert_eq!(f.consensus.category, "other");
        assert!(!f.suppressed, "{:?}", f.suppression_reason);
    }
    let comment = render_comment(&outcome, &RenderOptions::default());
    assert!(
        comment.contains(
            "Linked-issue objective not met: Email the customer on refund (#42) · PR-wide"
        ),
        "{comment}"
    );
    assert!(comment.contains("Log refunds for audit"), "{comment}");
    assert!(
        !comment.contains("Refund partial captures"),
        "a met objective is not a finding"
    );
}
