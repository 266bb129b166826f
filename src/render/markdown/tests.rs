use super::*;
use crate::consensus::{compute_consensus, ConsensusOptions};
use crate::gate;
use crate::model::{Dispute, NormalizedFinding, Provenance, Severity, SourceState, SourceStatus};
use crate::synthesis::{synthesize, SynthesisOptions};

fn source(bot: &str, status: SourceState, coverage: Coverage, notes: &[&str]) -> SourceStatus {
    SourceStatus {
        bot: bot.into(),
        status,
        coverage,
        coverage_signal: String::new(),
        findings: 0,
        skipped: 0,
        notes: notes.iter().map(|n| n.to_string()).collect(),
    }
}

fn finding(
    bot: &str,
    id: u64,
    severity: Severity,
    category: &str,
    file: &str,
    line: u32,
    title: &str,
) -> NormalizedFinding {
    let mut f =
        NormalizedFinding::new(bot, id.to_string(), severity, category, title).at(file, Some(line));
    f.provenance = Provenance {
        comment_id: Some(id),
        url: Some(format!(
            "https://github.com/acme/payments-api/pull/101#discussion_r{id}"
        )),
        ..Provenance::default()
    };
    f
}

fn outcome_of(
    findings: Vec<NormalizedFinding>,
    sources: Vec<SourceStatus>,
    fail_on: FailOn,
) -> Outcome {
    let bots_ran = sources.iter().filter(|s| s.coverage.ran()).count().max(1);
    // The seed's line rule: these findings are built for rendering, not for matching.
    let options = ConsensusOptions {
        bots_ran: Some(bots_ran),
        matching: crate::consensus::Matching::Seed,
        ..ConsensusOptions::default()
    };
    let findings = synthesize(
        compute_consensus(&findings, &options),
        &SynthesisOptions::default(),
    );
    Outcome {
        repository: "acme/payments-api".into(),
        pull_request: Some(101),
        head_sha: Some("8c1f0d3b".into()),
        bots_ran,
        sources,
        gate: gate::decide(&findings, fail_on),
        findings,
        fail_on,
        fail_on_severity: None,
        required_bots: Vec::new(),
        not_reviewed: Vec::new(),
        unread_bots: Vec::new(),
        identity: Default::default(),
        judge: None,
    }
}

fn three_bots() -> Outcome {
    let mut disputed = finding(
        "sourcery",
        7,
        Severity::Medium,
        "bug",
        "app/api/payouts.py",
        18,
        "Payout id is not validated",
    );
    disputed.disputes = vec![Dispute {
        by: "mkowalski".into(),
        reason: "false positive".into(),
    }];
    let mut nit = finding(
        "coderabbit",
        8,
        Severity::Low,
        "maintainability",
        "app/api/refunds.py",
        4,
        "Remove unused `json` import",
    );
    nit.nitpick = true;
    let findings = vec![
        finding(
            "coderabbit",
            1,
            Severity::Critical,
            "security",
            "app/db/queries.py",
            39,
            "Bind `order_ref` as a parameter; the f-string makes the lookup injectable",
        ),
        finding(
            "sourcery",
            2,
            Severity::High,
            "security",
            "app/db/queries.py",
            41,
            "SQL injection in per-order lookup",
        ),
        finding(
            "gh-advanced-security",
            3,
            Severity::High,
            "security",
            "app/db/queries.py",
            39,
            "SQL query built from user-controlled sources",
        ),
        finding(
            "coderabbit",
            4,
            Severity::High,
            "bug",
            "app/services/ledger.py",
            57,
            "Parse the amount with Decimal",
        ),
        finding(
            "sourcery",
            5,
            Severity::Medium,
            "bug",
            "app/services/ledger.py",
            57,
            "float truncation refunds a cent too little",
        ),
        finding(
            "gh-advanced-security",
            6,
            Severity::Medium,
            "security",
            "app/api/refunds.py",
            45,
            "Information exposure through an exception",
        ),
        disputed,
        nit,
        finding(
            "sourcery",
            9,
            Severity::Low,
            "style",
            "app/api/refunds.py",
            25,
            "Typo \"recieved\" in docstring",
        ),
    ];
    let mut sourcery = source("sourcery", SourceState::Ok, Coverage::Stale, &[]);
    sourcery.skipped = 1;
    sourcery.notes = vec!["comment 2561210412: no title".into()];
    let sources = vec![
        source("coderabbit", SourceState::Ok, Coverage::Reviewed, &[]),
        sourcery,
        source(
            "gh-advanced-security",
            SourceState::Ok,
            Coverage::Reviewed,
            &[],
        ),
        source(
            "gemini",
            SourceState::Missing,
            Coverage::Declined,
            &["posted only a rate-limit notice"],
        ),
        source(
            "extra.sarif",
            SourceState::Malformed,
            Coverage::Absent,
            &["not JSON: expected value at line 1"],
        ),
        source("copilot", SourceState::Missing, Coverage::Absent, &[]),
        source("qodo", SourceState::Missing, Coverage::Absent, &[]),
    ];
    outcome_of(findings, sources, FailOn::Confirmed)
}

fn linked() -> RenderOptions {
    RenderOptions {
        server_url: Some("https://github.com/".into()),
        ..RenderOptions::default()
    }
}

#[test]
fn comment_for_three_bots() {
    let outcome = three_bots();
    let body = render_comment(&outcome, &linked());
    assert!(body.starts_with("<!-- review-bot-ack -->\n"));
    assert!(body.contains(
        "[app/db/queries.py:39](https://github.com/acme/payments-api/blob/8c1f0d3b/app/db/queries.py#L39)"
    ));
    assert!(body.contains("[detected by 3/3 bots, agreement 100%]"));
    assert!(body.contains("**contested**"));
    assert!(body.contains("; absent: copilot, qodo."));
    insta::assert_snapshot!(body);
}

/// Issue 24: bots whose review comments no source read are named with their counts and the
/// `bots` entry that reads them; a hostile login stays inert; a long list is bounded; when
/// the head must shrink only their number is left.
#[test]
fn bots_nobody_reads_are_named_with_a_hint() {
    use crate::model::UnreadBot;
    let bot = |login: &str, comments, hint: &str| UnreadBot {
        login: login.into(),
        comments,
        hint: hint.into(),
    };
    let mut outcome = three_bots();
    outcome.unread_bots = vec![
        bot("codefactor-io[bot]", 3, "generic=codefactor-io[bot]"),
        bot("sourcery-ai[bot]", 1, "sourcery"),
        bot(
            "@org/team`<!-- review-bot-ack -->[bot]",
            1,
            "generic=@org/team`<!-- review-bot-ack -->[bot]",
        ),
    ];
    let body = render_comment(&outcome, &linked());
    let line = body
        .lines()
        .find(|l| l.starts_with("**Bots not read:**"))
        .expect(&body);
    assert!(line.starts_with(
        "**Bots not read:** `codefactor-io[bot]` (3 review comments; \
         `bots: generic=codefactor-io[bot]`), `sourcery-ai[bot]` (1 review comment; \
         `bots: sourcery`), "
    ));
    assert!(line.contains("a `bots` input that is set reads only what it lists"));
    assert_eq!(
        body.matches("<!-- review-bot-ack").count(),
        1,
        "only our marker"
    );
    assert!(!body.contains("@org"), "no mention: {line}");

    outcome.unread_bots = (0..12)
        .map(|i| {
            bot(
                &format!("bot-{i}[bot]"),
                1,
                &format!("generic=bot-{i}[bot]"),
            )
        })
        .collect();
    let body = render_comment(&outcome, &linked());
    assert!(body.contains("`bot-7[bot]`") && !body.contains("`bot-8[bot]`"));
    assert!(body.contains("4 more in the JSON report"));

    let head = render_head_with(&outcome, &linked(), Notes::Counts, true);
    assert!(
        head.contains("**Bots not read:** 12 (the JSON report names them)."),
        "{head}"
    );
}

/// Issue 24: the 1-27 number is each finding's score (severity x confidence x support), not
/// its rank; the rank is the order findings are listed in (within a level, highest score
/// first).
#[test]
fn each_finding_shows_its_score_and_the_list_is_the_rank() {
    let outcome = three_bots();
    let body = render_comment(&outcome, &linked());
    let scores: Vec<u8> = body
        .lines()
        .filter_map(|line| line.split(" · score ").nth(1))
        .map(|rest| rest.split('/').next().unwrap().parse().unwrap())
        .collect();
    let surfaced: Vec<u8> = outcome
        .findings
        .iter()
        .filter(|f| !f.suppressed)
        .map(|f| f.rank_score)
        .collect();
    assert!(!scores.is_empty());
    assert_eq!(scores, surfaced[..scores.len()], "{body}");
    assert!(!body.contains(" · rank "), "{body}");
}

#[test]
fn loci_unlinked_without_server_url_or_sha() {
    let mut outcome = three_bots();
    let body = render_comment(&outcome, &RenderOptions::default());
    assert!(!body.contains("/blob/"));
    assert!(body.contains(" · app/db/queries.py:39 · "));
    outcome.head_sha = None;
    assert!(!render_comment(&outcome, &linked()).contains("/blob/"));
}

#[test]
fn header_changes_the_marker() {
    let options = RenderOptions {
        header: Some("strict".into()),
        ..RenderOptions::default()
    };
    let body = render_comment(&three_bots(), &options);
    assert!(body.starts_with("<!-- review-bot-ack:strict -->\n"));
}

#[test]
fn hostile_bot_text_is_inert() {
    let hostile = [
        "@org/team please look <!-- review-bot-ack -->",
        "</details><details><summary>x",
        "a | b | `c` [link](https://evil.example) @dana-ortiz",
        "# heading\r\n\r\n- list\n<script>alert(1)</script>",
    ];
    let mut findings: Vec<NormalizedFinding> = hostile
        .iter()
        .enumerate()
        .map(|(i, t)| {
            finding(
                "evil[bot]",
                i as u64,
                Severity::High,
                "bug",
                &format!("f{i}.py"),
                1,
                t,
            )
        })
        .collect();
    findings[0].provenance.url = Some("javascript:alert(1)".into());
    findings[1].provenance.url = Some("https://github.com/x)](https://evil".into());
    let sources = vec![
        source(
            "evil[bot]",
            SourceState::Ok,
            Coverage::Reviewed,
            &["@admin <!-- review-bot-ack -->"],
        ),
        source(
            "@someone",
            SourceState::Malformed,
            Coverage::Absent,
            &["</details>"],
        ),
    ];
    let mut outcome = outcome_of(findings, sources, FailOn::Confirmed);
    outcome.findings[0].contested_by = vec!["@mallory".into()];
    outcome.findings[0].contest_reasons = vec!["</details> @org/team".into()];
    let body = render_comment(&outcome, &linked());
    assert_eq!(
        body.matches("review-bot-ack").count(),
        1 + body.matches("&lt;!-- review-bot-ack").count()
    );
    assert_eq!(
        body.matches("<!--").count(),
        1,
        "only our marker is an HTML comment"
    );
    assert_eq!(
        body.matches("</details>").count(),
        body.matches("<details>").count()
    );
    assert!(!body.contains("<script"));
    assert!(!body.contains("javascript:"));
    assert!(
        body.contains("\\[link\\](https://evil.example)"),
        "link syntax escaped"
    );
    assert!(
        body.contains("(https://github.com/x%29%5D%28https://evil)"),
        "url cannot end the link"
    );
    let chars: Vec<char> = body.chars().collect();
    for pair in chars.windows(2) {
        assert!(
            !(pair[0] == '@' && pair[1].is_alphanumeric()),
            "live mention in {body}"
        );
    }
    insta::assert_snapshot!(body);
}

#[test]
fn gate_verdicts() {
    let mut outcome = three_bots();
    assert!(render_comment(&outcome, &linked()).contains("gate failed"));
    outcome.fail_on = FailOn::Never;
    outcome.gate = Gate::Pass;
    assert!(render_comment(&outcome, &linked()).contains("The gate is off"));
    outcome.fail_on = FailOn::Confirmed;
    outcome
        .findings
        .retain(|f| f.consensus.level != ConsensusLevel::Confirmed);
    let body = render_comment(&outcome, &linked());
    assert!(
        body.contains("gate passed")
            && body.contains("No surfaced finding at or above `confirmed`")
    );
}

#[test]
fn budget_cuts_lowest_tiers_first() {
    let mut findings = Vec::new();
    // 3 bots ran; 20 confirmed pairs, 200 single-bot needs-verification findings.
    for i in 0..20u32 {
        findings.push(finding(
            "a",
            u64::from(i),
            Severity::High,
            "bug",
            &format!("c{i}.rs"),
            1,
            "Confirmed issue with a reasonably long title",
        ));
        findings.push(finding(
            "b",
            u64::from(i) + 1000,
            Severity::High,
            "bug",
            &format!("c{i}.rs"),
            1,
            "Same issue",
        ));
    }
    for i in 0..200u32 {
        findings.push(finding(
            "c",
            u64::from(i) + 2000,
            Severity::Medium,
            "bug",
            &format!("n{i}.rs"),
            1,
            "A finding only one bot raised",
        ));
    }
    findings.push(finding(
        "c",
        9999,
        Severity::Low,
        "style",
        "s.rs",
        1,
        "Style nit",
    ));
    let sources = ["a", "b", "c"]
        .map(|b| source(b, SourceState::Ok, Coverage::Reviewed, &[]))
        .to_vec();
    let outcome = outcome_of(findings, sources, FailOn::Confirmed);
    let full = render_comment(&outcome, &linked());
    assert!(!full.contains("cut to fit"));

    let max_chars = full.chars().count() / 2;
    let options = RenderOptions {
        max_chars,
        ..linked()
    };
    let body = render_comment(&outcome, &options);
    assert!(body.chars().count() <= max_chars);
    assert!(!body.contains("Style nit"), "suppressed list goes first");
    assert_eq!(
        body.matches("c1.rs:1").count() + body.matches("c19.rs:1").count(),
        2,
        "confirmed kept"
    );
    assert!(body.contains("n0.rs:1"), "the top of the lower tier stays");
    assert!(!body.contains("n199.rs:1"), "its bottom is cut");
    let cut_line = body
        .lines()
        .find(|l| l.contains("cut to fit"))
        .expect("cut line");
    assert!(cut_line.contains("1 suppressed"), "{cut_line}");
    // Only the items that can fit are rendered; the counts are still of every finding.
    let kept = (0..200)
        .filter(|i| body.contains(&format!("n{i}.rs:1")))
        .count();
    assert!(
        cut_line.contains(&format!("{} needs-verification", 200 - kept)),
        "{cut_line}"
    );
    assert!(
        cut_line.contains(&format!("{} finding(s) cut", 200 - kept + 1)),
        "{cut_line}"
    );
    assert!(
        body.contains("Needs verification (200)"),
        "the tier's full count"
    );
    assert!(body.contains("Suppressed (1)"), "the suppressed count");
    assert!(body.ends_with("_\n"));

    // A budget smaller than the head still returns a bounded body starting with the marker.
    let tiny = render_comment(
        &outcome,
        &RenderOptions {
            max_chars: 40,
            ..linked()
        },
    );
    assert!(tiny.chars().count() <= 40 && tiny.starts_with(MARKER));
}

#[test]
fn unreadable_notes_are_summarised_by_reason_with_a_few_ids() {
    let mut notes: Vec<String> = (0..5000)
        .map(|i| {
            format!("skipped: review_comments #{i}: invalid type: integer `{i}`, expected a string")
        })
        .collect();
    notes.push("skipped: review_comments #9: missing field `path`".into());
    notes.push("rate-limit notice".into());
    notes.push("rate-limit notice".into());
    let shown = summarise_notes(&notes);
    assert_eq!(shown.len(), 3, "{shown:?}");
    assert_eq!(
        shown[0],
        "skipped: review\\_comments — invalid type: integer \\`…\\`, expected a string (×5000: ids 0, 1, 2, …)"
    );
    assert_eq!(
        shown[1],
        "skipped: review\\_comments — missing field \\`path\\` (id 9)"
    );
    assert_eq!(shown[2], "rate-limit notice (×2)");
    let many: Vec<String> = (0..9).map(|i| format!("note {i}")).collect();
    let shown = summarise_notes(&many);
    assert_eq!(shown.len(), NOTE_KINDS + 1);
    assert_eq!(shown[NOTE_KINDS], "4 more note(s) in the JSON report");
}

#[test]
fn a_notes_flood_never_pushes_the_findings_out() {
    let mut outcome = three_bots();
    // Every source drowning in distinct notes: the head is budgeted like the tiers.
    for (k, source) in outcome.sources.iter_mut().enumerate() {
        source.skipped = 20_000;
        source.notes = (0..20_000)
            .map(|i| format!("note {k}-{i}: {}", "x".repeat(150)))
            .collect();
    }
    for i in 0..60 {
        outcome.sources.push(source(
            &format!("extra-{i}-{}", "y".repeat(1200)),
            SourceState::Malformed,
            Coverage::Absent,
            &["unreadable"],
        ));
    }
    let options = linked();
    let body = render_comment(&outcome, &options);
    assert!(body.chars().count() <= options.max_chars);
    assert!(body.starts_with(MARKER));
    assert!(body.contains("### Confirmed"), "findings pushed out");
    assert!(body.contains("list of sources was cut"), "the cut is said");
    let head_end = body.find("### Confirmed").unwrap();
    assert!(body[..head_end].chars().count() <= options.max_chars / 4 + 2);
}

/// The head's budget holds with everything the head carries: the gate's reasons (the
/// severity floor, bots that did not review), what changed since the last run and the
/// sources' notes. The resolved / awaiting lists give way before the cut, so no folded
/// block is left open above the findings.
#[test]
fn the_head_budget_holds_with_the_changes_and_the_gate_reasons() {
    use crate::identity::{state, Tracked};
    let mut outcome = three_bots();
    outcome.fail_on_severity = Some(Severity::Low);
    outcome.required_bots = (0..40).map(|i| format!("required-bot-{i}")).collect();
    outcome.not_reviewed = outcome.required_bots.clone();
    outcome.gate = Gate::Fail;
    outcome.identity.state.v = state::STATE_VERSION;
    outcome.identity.baseline = Some("0a1b2c3d4e".into());
    let tracked = |i: usize| Tracked {
        fingerprint: format!("rc-{i:08}"),
        title: format!("A resolved finding with a long title {}", "t".repeat(100)),
        file: format!("src/{}/file_{i}.rs", "d".repeat(60)),
        bots: vec!["coderabbit".into()],
        why: "the line is gone at this commit".into(),
        acknowledged: None,
    };
    outcome.identity.resolved = (0..300).map(tracked).collect();
    outcome.identity.awaiting = (300..320).map(tracked).collect();
    let options = RenderOptions {
        max_chars: 24_000,
        ..linked()
    };
    let full = render_head_with(&outcome, &options, Notes::Summary, true);
    assert!(
        full.chars().count() > options.max_chars / 4,
        "the lists alone overflow the head"
    );
    let body = render_comment(&outcome, &options);
    let head_end = body.find("### Confirmed").expect("findings still shown");
    let head = &body[..head_end];
    assert!(
        head.chars().count() <= options.max_chars / 4,
        "{}",
        head.len()
    );
    assert!(
        head.contains("## ❌ review-consensus: gate failed"),
        "{head}"
    );
    assert!(head.contains("(`fail-on-severity: low`)"), "{head}");
    assert!(head.contains("not reviewed: required-bot-0"), "{head}");
    assert!(
        head.contains("**Since the last run (`0a1b2c3`):**"),
        "{head}"
    );
    assert!(head.contains("✅ 300 resolved"), "{head}");
    assert!(head.contains("lists are in the JSON report"), "{head}");
    assert_eq!(
        head.matches("<details>").count(),
        head.matches("</details>").count()
    );
    assert!(body.chars().count() <= options.max_chars);

    // With room enough, the lists are folded in the head.
    outcome.identity.resolved.truncate(3);
    outcome.identity.awaiting.clear();
    let body = render_comment(&outcome, &options);
    assert!(body.contains("<summary>Resolved (3)"), "{body}");
}

/// Pre-existing findings (not the PR's) get their own folded section and a column of the
/// counts table; their untrusted text is escaped like any other; they are cut first.
#[test]
fn pre_existing_findings_are_shown_apart() {
    let plain = render_comment(&three_bots(), &linked());
    assert!(!plain.contains("Pre-existing"), "no column, no section");

    let mut outcome = three_bots();
    let mut old = finding(
        "claude-code-review",
        20,
        Severity::Critical,
        "bug",
        "app/db/queries.py",
        88,
        "fetch_order swallows errors @octocat </details><!-- review-bot-ack -->",
    );
    old.pre_existing = true;
    let options = ConsensusOptions {
        bots_ran: Some(outcome.bots_ran),
        ..ConsensusOptions::default()
    };
    let apart = crate::synthesis::set_apart(
        compute_consensus(&[old], &options),
        &SynthesisOptions::default(),
    );
    outcome.findings.extend(apart);
    let body = render_comment(&outcome, &linked());
    assert!(body.contains(
        "| Confirmed | Needs verification | Unverified | Suppressed | Pre-existing |\n\
         |---:|---:|---:|---:|---:|\n| 2 | 2 | 0 | 2 | 1 |"
    ));
    let section = body
        .split("<summary>Pre-existing (1): not introduced by this PR, not counted by the gate</summary>")
        .nth(1)
        .expect("a section of its own");
    let section = section.split("</details>").next().unwrap();
    assert!(
        section.contains("**critical** · fetch\\_order swallows errors"),
        "{section}"
    );
    assert!(section.contains(
        "[app/db/queries.py:88](https://github.com/acme/payments-api/blob/8c1f0d3b/app/db/queries.py#L88)"
    ));
    assert!(section.contains(
        "by [claude-code-review](https://github.com/acme/payments-api/pull/101#discussion_r20)"
    ));
    assert_eq!(body.matches("<!--").count(), 1, "only our marker");
    assert_eq!(
        body.matches("</details>").count(),
        body.matches("<details>").count()
    );
    assert!(!body.contains("@octocat"), "no live mention");
    // Not a suppressed finding, not surfaced: the gate's numbers are unchanged.
    assert!(!plain.contains("fetch\\_order") && body.matches("fetch\\_order").count() == 1);
    assert!(body.starts_with(&plain[..plain.find("| Confirmed").unwrap()]));

    // Short of room, the pre-existing list goes first.
    let tight = RenderOptions {
        max_chars: body.chars().count() - 40,
        ..linked()
    };
    let cut = render_comment(&outcome, &tight);
    assert!(cut.contains("1 pre-existing)"), "{cut}");
    assert!(cut.contains("### Confirmed (2)"));
}
