use super::*;
use crate::api::{IssueComment, ReviewThread, ThreadComment, ThreadComments};
use crate::consensus::{compute_consensus, ConsensusOptions, Constraints, Matching};
use crate::identity::test_support::{said, snapshot};
use crate::identity::{read_commands, CorrectionKind, Prior};
use crate::model::{NormalizedFinding, Severity, SourceState};
use crate::synthesis::{synthesize, SynthesisOptions};

const HEAD_A: &str = "aaaaaaaaaa11111111112222222222333333333344";
const HEAD_B: &str = "bbbbbbbbbb11111111112222222222333333333344";

/// The title most findings here carry.
const SQL: &str = "SQL injection in the order lookup";

fn member(bot: &str, comment: u64, line: u32, title: &str) -> NormalizedFinding {
    let mut f = NormalizedFinding::new(bot, comment.to_string(), Severity::High, "security", title)
        .at("app/db/queries.py", Some(line));
    f.provenance.comment_id = Some(comment);
    f.detail = "The value reaches the query unchecked.".into();
    f
}

fn synthesized(
    members: &[NormalizedFinding],
    bots_ran: usize,
    constraints: Constraints,
    matching: Matching,
) -> Vec<SynthesizedFinding> {
    let options = ConsensusOptions {
        bots_ran: Some(bots_ran),
        constraints,
        matching,
        ..ConsensusOptions::default()
    };
    synthesize(
        compute_consensus(members, &options),
        &SynthesisOptions::default(),
    )
}

fn sources(reviewed: &[&str], stale: &[&str]) -> Vec<SourceStatus> {
    let status = |bot: &&str, coverage| SourceStatus {
        bot: (*bot).to_owned(),
        status: SourceState::Ok,
        coverage,
        coverage_signal: String::new(),
        findings: 0,
        skipped: 0,
        notes: Vec::new(),
    };
    reviewed
        .iter()
        .map(|b| status(b, Coverage::Reviewed))
        .chain(stale.iter().map(|b| status(b, Coverage::Stale)))
        .collect()
}

/// CodeRabbit and Sourcery on the same SQL injection: one cluster (when linked, [`LINKED`]).
fn sql_by_both() -> [NormalizedFinding; 2] {
    [
        member("coderabbit", 10, 39, SQL),
        member(
            "sourcery",
            11,
            40,
            "SQL injection in the order lookup query",
        ),
    ]
}

/// Alice's acknowledgement of `fp` (comment 100), with a reason.
fn alice_acks(fp: &str) -> IssueComment {
    said(
        100,
        "alice",
        "User",
        &format!("/consensus ack {fp} validated by the router upstream"),
    )
}

fn today() -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(2026, 3, 10)
}

fn input(prior: Option<&State>) -> IdentityInput {
    IdentityInput {
        prior: Prior {
            state: prior.cloned(),
            note: None,
        },
        today: today(),
        ..IdentityInput::default()
    }
}

fn granted(mut input: IdentityInput, login: &str, role: &str) -> IdentityInput {
    input
        .permissions
        .insert(login.into(), Access::Granted { role: role.into() });
    input
}

fn fps(findings: &[SynthesizedFinding]) -> Vec<String> {
    findings
        .iter()
        .map(|f| f.fingerprint().unwrap().to_owned())
        .collect()
}

struct Run {
    findings: Vec<SynthesizedFinding>,
    identity: RunIdentity,
}

/// The pair the matcher links in the tests that need one cluster of two members: what the
/// model decides, made independent of its fitted weights.
const LINKED: &[(usize, usize)] = &[(0, 1)];

fn run(
    members: &[NormalizedFinding],
    sources: &[SourceStatus],
    snap: &PrSnapshot,
    input: &IdentityInput,
) -> Run {
    run_linked(members, sources, snap, input, &[])
}

/// `run`, where `issue` matching also links the pairs `linked` (indices into `members`),
/// unless a correction keeps them apart: what the model decides, made independent of its
/// weights.
fn run_linked(
    members: &[NormalizedFinding],
    sources: &[SourceStatus],
    snap: &PrSnapshot,
    input: &IdentityInput,
    linked: &[(usize, usize)],
) -> Run {
    run_matching(members, sources, snap, input, linked, Matching::Issue)
}

/// With `Matching::Seed` the seed's rule decides, and corrections are ignored.
fn run_matching(
    members: &[NormalizedFinding],
    sources: &[SourceStatus],
    snap: &PrSnapshot,
    input: &IdentityInput,
    linked: &[(usize, usize)],
    matching: Matching,
) -> Run {
    // As the pipeline does: `split` and `same` judged first, then matching, then identity.
    let obeyed = matching == Matching::Issue;
    let corrections = Corrections::judge(Some(snap), members, input, obeyed);
    let mut constraints = corrections.constraints(members);
    constraints.together.extend_from_slice(linked);
    let mut findings = synthesized(members, sources.len().max(1), constraints, matching);
    let identity = track(&mut findings, sources, Some(snap), input, &corrections);
    Run { findings, identity }
}

/// `run` on the PR at `head`, without comments.
fn run_at(
    head: &str,
    members: &[NormalizedFinding],
    sources: &[SourceStatus],
    input: &IdentityInput,
) -> Run {
    run(members, sources, &snapshot(head, vec![]), input)
}

/// The first run (no state before it), on `HEAD_A`.
fn first_run(members: &[NormalizedFinding], sources: &[SourceStatus]) -> Run {
    run_at(HEAD_A, members, sources, &input(None))
}

#[test]
fn a_first_run_names_everything_new_from_its_members_keys() {
    let members = [member("coderabbit", 10, 39, SQL)];
    let first = first_run(&members, &sources(&["coderabbit"], &[]));
    let f = &first.findings[0];
    let identity = f.identity.as_ref().unwrap();
    assert_eq!(identity.state, FindingState::New);
    assert!(identity.new && identity.first_seen == "aaaaaaaaaa");
    let key = MemberKeys::of(&members[0]).content;
    assert_eq!(identity.fingerprint, format!("rc-{key}"));
    assert!(first.identity.first_run && first.identity.baseline.is_none());
    let entry = &first.identity.state.seen[&identity.fingerprint];
    assert_eq!(entry.keys, vec![key]);
    assert_eq!(
        (entry.first.as_str(), entry.comments.as_slice()),
        ("aaaaaaaaaa", &[10][..])
    );
    assert_eq!(first.identity.state.head, "aaaaaaaaaa");
}

#[test]
fn a_push_that_moves_lines_keeps_fingerprints_and_is_not_news() {
    let before = [
        member("coderabbit", 10, 39, SQL),
        member(
            "sourcery",
            11,
            41,
            "SQL injection in the order lookup query",
        ),
        member("coderabbit", 12, 120, "Token is logged in plain text"),
    ];
    let both = sources(&["coderabbit", "sourcery"], &[]);
    let first = first_run(&before, &both);
    // The push moved everything down 30 lines; the bots re-posted with new comment ids.
    let after: Vec<NormalizedFinding> = before
        .iter()
        .map(|m| {
            let mut m = m.clone();
            m.evidence.line = m.evidence.line.map(|l| l + 30);
            m.provenance.comment_id = m.provenance.comment_id.map(|c| c + 100);
            m
        })
        .collect();
    let second = run_at(HEAD_B, &after, &both, &input(Some(&first.identity.state)));
    let mut a = fps(&first.findings);
    let mut b = fps(&second.findings);
    a.sort();
    b.sort();
    assert_eq!(a, b);
    assert!(second
        .findings
        .iter()
        .all(|f| f.identity.as_ref().unwrap().state == FindingState::Open));
    assert!(second.identity.resolved.is_empty() && second.identity.awaiting.is_empty());
    assert_eq!(second.identity.baseline.as_deref(), Some("aaaaaaaaaa"));
    assert!(!second.identity.first_run);
}

#[test]
fn the_same_head_again_gives_the_same_answer_and_state() {
    let members = [member("coderabbit", 10, 39, SQL)];
    let src = sources(&["coderabbit"], &[]);
    let snap = snapshot(HEAD_A, vec![]);
    let first = run(&members, &src, &snap, &input(None));
    let again = run(&members, &src, &snap, &input(Some(&first.identity.state)));
    assert_eq!(first.findings, again.findings);
    assert_eq!(first.identity.state, again.identity.state);
    assert_eq!(
        again.identity.baseline, None,
        "still measured from before this head"
    );
}

#[test]
fn a_cluster_keeps_its_fingerprint_when_a_bot_joins_or_leaves() {
    let alone = [member("coderabbit", 10, 39, SQL)];
    let src = sources(&["coderabbit", "sourcery"], &[]);
    let first = first_run(&alone, &src);
    let fp = fps(&first.findings)[0].clone();
    // Sourcery joins (posting later, a larger id, a differently worded title).
    let joined = [
        alone[0].clone(),
        member("sourcery", 5, 40, "Injectable SQL in order lookup"),
    ];
    let second = run_linked(
        &joined,
        &src,
        &snapshot(HEAD_B, vec![]),
        &input(Some(&first.identity.state)),
        LINKED,
    );
    assert_eq!(second.findings.len(), 1);
    assert_eq!(fps(&second.findings), vec![fp.clone()]);
    // CodeRabbit leaves; Sourcery's key is known now.
    let left = [joined[1].clone()];
    let third = run_at(HEAD_B, &left, &src, &input(Some(&second.identity.state)));
    assert_eq!(fps(&third.findings), vec![fp]);
    assert_eq!(
        third.findings[0].identity.as_ref().unwrap().first_seen,
        "aaaaaaaaaa"
    );
}

#[test]
fn a_stable_id_survives_rewording() {
    let mut m = member(
        "cursor",
        10,
        39,
        "Upgrade replaces provider-satisfied packages",
    );
    m.stable_id = Some("f5760c56-f895".into());
    let src = sources(&["cursor"], &[]);
    let first = first_run(&[m.clone()], &src);
    let mut reworded = m.clone();
    reworded.title = "Upgrading drops packages a provider satisfies".into();
    reworded.evidence.file = "src/system/packages/mod.rs".into();
    let second = run_at(
        HEAD_B,
        &[reworded],
        &src,
        &input(Some(&first.identity.state)),
    );
    assert_eq!(fps(&first.findings), fps(&second.findings));
    assert_eq!(
        fps(&first.findings)[0],
        format!("rc-{}", MemberKeys::of(&m).stable.unwrap())
    );
}

#[test]
fn gone_is_resolved_only_once_every_bot_re_reviewed() {
    let members = sql_by_both();
    let both = sources(&["coderabbit", "sourcery"], &[]);
    let first = run_linked(
        &members,
        &both,
        &snapshot(HEAD_A, vec![]),
        &input(None),
        LINKED,
    );
    assert_eq!(first.findings.len(), 1);
    let fp = fps(&first.findings)[0].clone();
    let prior = input(Some(&first.identity.state));

    // Both comments went outdated after a push; Sourcery has not reviewed the new head.
    let pending = run_at(
        HEAD_B,
        &[],
        &sources(&["coderabbit"], &["sourcery"]),
        &prior,
    );
    assert!(pending.identity.resolved.is_empty());
    assert_eq!(pending.identity.awaiting.len(), 1);
    assert_eq!(pending.identity.awaiting[0].fingerprint, fp);
    assert!(pending.identity.awaiting[0].why.contains("sourcery"));
    assert!(pending.identity.state.seen[&fp].is_open());

    // Both re-reviewed and neither reports it: resolved, and listed again on a re-run.
    let fixed = run_at(HEAD_B, &[], &both, &prior);
    assert_eq!(fixed.identity.resolved.len(), 1);
    assert_eq!(fixed.identity.resolved[0].fingerprint, fp);
    assert_eq!(fixed.identity.state.seen[&fp].resolved, "bbbbbbbbbb");
    let rerun = run_at(HEAD_B, &[], &both, &input(Some(&fixed.identity.state)));
    assert_eq!(rerun.identity.resolved.len(), 1);
    let later = run_at(
        HEAD_A.replace('a', "c").as_str(),
        &[],
        &both,
        &input(Some(&rerun.identity.state)),
    );
    assert!(
        later.identity.resolved.is_empty(),
        "old news on the next commit"
    );

    // It comes back: not new, it was seen before.
    let back = run_linked(
        &members,
        &both,
        &snapshot(HEAD_B, vec![]),
        &input(Some(&fixed.identity.state)),
        LINKED,
    );
    assert_eq!(fps(&back.findings), vec![fp.clone()]);
    assert_eq!(
        back.findings[0].identity.as_ref().unwrap().state,
        FindingState::Open
    );
    assert!(back.identity.state.seen[&fp].is_open());
}

#[test]
fn a_bot_no_longer_configured_is_not_waited_for() {
    let members = sql_by_both();
    let both = sources(&["coderabbit", "sourcery"], &[]);
    let first = first_run(&members, &both);
    let fp = fps(&first.findings)[0].clone();
    let prior = input(Some(&first.identity.state));
    // Sourcery was removed from `bots`; CodeRabbit re-reviewed: resolved, by CodeRabbit.
    let out = run_at(HEAD_B, &[], &sources(&["coderabbit"], &[]), &prior);
    assert_eq!(out.identity.resolved.len(), 1);
    assert_eq!(
        out.identity.resolved[0].why,
        "no longer reported: coderabbit re-reviewed"
    );
    // Neither is configured any more: forgotten, neither resolved nor awaiting.
    let gone = run_at(HEAD_B, &[], &sources(&["copilot"], &[]), &prior);
    assert!(gone.identity.resolved.is_empty() && gone.identity.awaiting.is_empty());
    assert!(!gone.identity.state.seen.contains_key(&fp));
}

#[test]
fn a_resolved_thread_resolves_without_a_re_review() {
    let members = [member("coderabbit", 10, 39, SQL)];
    let first = first_run(&members, &sources(&["coderabbit"], &[]));
    let mut snap = snapshot(HEAD_B, vec![]);
    snap.review_threads = Some(vec![ReviewThread {
        is_resolved: true,
        comments: ThreadComments {
            nodes: vec![ThreadComment {
                database_id: Some(10),
            }],
        },
        ..ReviewThread::default()
    }]);
    let out = run(
        &[],
        &sources(&[], &["coderabbit"]),
        &snap,
        &input(Some(&first.identity.state)),
    );
    assert_eq!(out.identity.resolved.len(), 1);
    assert!(out.identity.resolved[0].why.contains("thread"));
}

#[test]
fn identical_duplicates_get_distinct_stable_fingerprints() {
    // One bot, one title, in two files: two findings whatever the matching.
    let members = [
        member("coderabbit", 10, 10, "Add a null check"),
        member("coderabbit", 11, 200, "Add a null check").at("app/db/other.py", Some(200)),
    ];
    let src = sources(&["coderabbit"], &[]);
    let first = first_run(&members, &src);
    let names = fps(&first.findings);
    assert_eq!(names.len(), 2);
    assert_ne!(names[0], names[1]);
    let second = run_at(HEAD_B, &members, &src, &input(Some(&first.identity.state)));
    let mut again = fps(&second.findings);
    let mut names = names;
    again.sort();
    names.sort();
    assert_eq!(names, again);
    // One of them is fixed: the other keeps a name, one is resolved (not merged away).
    let one = run_at(
        HEAD_B,
        &members[..1],
        &src,
        &input(Some(&second.identity.state)),
    );
    assert_eq!(one.identity.resolved.len(), 1);
    assert!(one.findings[0]
        .identity
        .as_ref()
        .unwrap()
        .aliases
        .is_empty());
}

#[test]
fn two_findings_that_merge_keep_one_name_and_the_other_as_an_alias() {
    let apart = [
        member("coderabbit", 10, 10, SQL),
        member("sourcery", 11, 90, "Query built from user input"),
    ];
    let src = sources(&["coderabbit", "sourcery"], &[]);
    let first = first_run(&apart, &src);
    assert_eq!(first.findings.len(), 2);
    let names = fps(&first.findings);
    // After a push both bots point at the same lines: one cluster. An ack said for the
    // name that is not kept still holds.
    let mut together = apart.clone();
    together[1].evidence.line = Some(11);
    let mut comments = Vec::new();
    for (i, fp) in names.iter().enumerate() {
        comments.push(said(
            100 + i as u64,
            "alice",
            "User",
            &format!("/consensus ack {fp} the router validates this value"),
        ));
    }
    let inp = granted(input(Some(&first.identity.state)), "alice", "write");
    let second = run_linked(
        &together,
        &src,
        &snapshot(HEAD_B, comments[1..].to_vec()),
        &inp,
        LINKED,
    );
    assert_eq!(second.findings.len(), 1, "{:?}", second.findings);
    let kept = second.findings[0].identity.as_ref().unwrap();
    assert!(names.contains(&kept.fingerprint));
    let other: Vec<String> = names
        .iter()
        .filter(|n| **n != kept.fingerprint)
        .cloned()
        .collect();
    assert_eq!(kept.aliases, other);
    assert!(second.identity.resolved.is_empty() && second.identity.awaiting.is_empty());
    // The ack named `names[1]`, kept or merged away: it holds either way.
    assert!(second.findings[0].is_acknowledged());
    assert!(
        second.identity.refused.is_empty(),
        "{:?}",
        second.identity.refused
    );
}

#[test]
fn acknowledgements_need_write_access_a_reason_and_a_date_to_come() {
    let members = [
        member("coderabbit", 10, 39, SQL),
        member("coderabbit", 12, 120, "Token is logged in plain text"),
    ];
    let src = sources(&["coderabbit"], &[]);
    let first = first_run(&members, &src);
    let names = fps(&first.findings);
    let (sql, token) = (names[0].clone(), names[1].clone());
    let comments = vec![
        said(
            100,
            "alice",
            "User",
            &format!("/consensus ack {sql} the value is validated by the router"),
        ),
        said(
            101,
            "reader",
            "User",
            &format!("/consensus ack {token} we log it only in debug builds"),
        ),
        said(
            102,
            "alice",
            "User",
            &format!("/consensus ack {token} false positive"),
        ),
        said(
            103,
            "renovate[bot]",
            "Bot",
            &format!("/consensus ack {token} automated acknowledgement text"),
        ),
        said(
            104,
            "alice",
            "User",
            "/consensus ack rc-zzzzzzzz this fingerprint names nothing here",
        ),
        said(
            105,
            "alice",
            "User",
            &format!("/consensus ack {token} debug logging only, removed in v2 until 2026-03-01"),
        ),
    ];
    let mut inp = granted(input(Some(&first.identity.state)), "alice", "maintain");
    inp.permissions.insert(
        "reader".into(),
        Access::Denied {
            role: "read".into(),
        },
    );
    let out = run(&members, &src, &snapshot(HEAD_A, comments), &inp);

    let by_fp = |fp: &str| {
        out.findings
            .iter()
            .find(|f| f.fingerprint() == Some(fp))
            .unwrap()
    };
    let sql_id = by_fp(&sql).identity.as_ref().unwrap();
    assert_eq!(sql_id.state, FindingState::Acknowledged);
    let ack = sql_id.acknowledged.as_ref().unwrap();
    assert_eq!(
        (ack.by.as_str(), ack.reason.as_str()),
        ("alice", "the value is validated by the router")
    );
    assert!(
        !by_fp(&token).is_acknowledged(),
        "its only valid ack lapsed on 2026-03-01"
    );
    assert_eq!(out.identity.lapsed.len(), 1);
    assert_eq!(out.identity.lapsed[0].fingerprint, token);

    let why: Vec<&str> = out
        .identity
        .refused
        .iter()
        .map(|r| r.why.as_str())
        .collect();
    assert_eq!(why.len(), 4, "{why:?}");
    assert!(why[0].contains("read permission"), "{why:?}");
    assert!(why[1].contains("a label"), "{why:?}");
    assert!(why[2].contains("bot accounts"), "{why:?}");
    assert!(why[3].contains("no finding"), "{why:?}");
    assert_eq!(out.identity.refused[0].by, "reader");
    // Looked-up permissions are cached for the rest of the day.
    assert_eq!(out.identity.state.perms["alice"].on, "2026-03-10");
    assert!(!out.identity.state.perms["reader"].ok);
    assert_eq!(out.identity.state.acks[&sql].by, "alice");
}

#[test]
fn the_cache_answers_today_and_offline_but_not_tomorrow() {
    let members = [member("coderabbit", 10, 39, SQL)];
    let src = sources(&["coderabbit"], &[]);
    let first = first_run(&members, &src);
    let fp = fps(&first.findings)[0].clone();
    let comments = vec![alice_acks(&fp)];
    let snap = snapshot(HEAD_A, comments);
    let looked = run(
        &members,
        &src,
        &snap,
        &granted(input(Some(&first.identity.state)), "alice", "write"),
    );
    assert!(looked.findings[0].is_acknowledged());
    let state = looked.identity.state.clone();

    // Same day: the cache answers, nothing to look up.
    let prior = Prior {
        state: Some(state.clone()),
        note: None,
    };
    let commands = read_commands(&snap.issue_comments);
    assert!(crate::identity::logins_to_check(&commands, &prior, today()).is_empty());
    let cached = run(&members, &src, &snap, &input(Some(&state)));
    assert!(cached.findings[0].is_acknowledged());
    // Tomorrow: it must be asked again.
    let tomorrow = NaiveDate::from_ymd_opt(2026, 3, 11);
    assert_eq!(
        crate::identity::logins_to_check(&commands, &prior, tomorrow),
        vec!["alice"]
    );
    let mut stale = input(Some(&state));
    stale.today = tomorrow;
    let unasked = run(&members, &src, &snap, &stale);
    assert!(!unasked.findings[0].is_acknowledged());
    // Offline any age will do; without a record it is refused as unknown.
    stale.offline = true;
    assert!(run(&members, &src, &snap, &stale).findings[0].is_acknowledged());
    let mut bare = input(Some(&first.identity.state));
    bare.offline = true;
    let refused = run(&members, &src, &snap, &bare);
    assert!(!refused.findings[0].is_acknowledged());
    assert!(refused.identity.refused[0].why.contains("unknown offline"));
}

#[test]
fn unack_takes_back_and_a_deleted_command_is_forgotten() {
    let members = [member("coderabbit", 10, 39, SQL)];
    let src = sources(&["coderabbit"], &[]);
    let first = first_run(&members, &src);
    let fp = fps(&first.findings)[0].clone();
    let ack = alice_acks(&fp);
    let unack = said(101, "bob", "User", &format!("/consensus unack {fp}"));
    let mut inp = granted(input(Some(&first.identity.state)), "alice", "write");
    inp.permissions.insert(
        "bob".into(),
        Access::Granted {
            role: "admin".into(),
        },
    );
    let taken = run(
        &members,
        &src,
        &snapshot(HEAD_A, vec![ack.clone(), unack]),
        &inp,
    );
    assert!(!taken.findings[0].is_acknowledged());
    assert!(taken.identity.refused.is_empty());
    let acked = run(&members, &src, &snapshot(HEAD_A, vec![ack]), &inp);
    assert!(acked.findings[0].is_acknowledged());
    // The command comment was deleted: the next run has no ack, whatever the state says.
    let deleted = run_at(HEAD_A, &members, &src, &input(Some(&acked.identity.state)));
    assert!(!deleted.findings[0].is_acknowledged());
    assert!(deleted.identity.state.acks.is_empty());
}

#[test]
fn an_ack_holds_across_a_push_that_moves_the_finding() {
    let members = [member("coderabbit", 10, 39, SQL)];
    let src = sources(&["coderabbit"], &[]);
    let first = first_run(&members, &src);
    let fp = fps(&first.findings)[0].clone();
    let ack = alice_acks(&fp);
    let acked = run(
        &members,
        &src,
        &snapshot(HEAD_A, vec![ack.clone()]),
        &granted(input(Some(&first.identity.state)), "alice", "write"),
    );
    let mut moved = members[0].clone();
    moved.evidence.line = Some(80);
    let pushed = run(
        &[moved],
        &src,
        &snapshot(HEAD_B, vec![ack]),
        &input(Some(&acked.identity.state)),
    );
    assert!(
        pushed.findings[0].is_acknowledged(),
        "cached permission, same fingerprint"
    );
}

/// CodeRabbit and Sourcery on one SQL injection at one line, which the matcher links
/// ([`LINKED`]). The fingerprint is minted from CodeRabbit's (posted first); Sourcery's ranks
/// first (critical).
fn one_defect_by_two() -> [NormalizedFinding; 2] {
    let mut sourcery = member("sourcery", 11, 39, SQL);
    sourcery.severity = Severity::Critical;
    [member("coderabbit", 10, 39, SQL), sourcery]
}

fn bob_says(id: u64, line: &str) -> IssueComment {
    said(id, "bob", "User", line)
}

/// Alice (write) and bob (maintain) may send commands.
fn both_granted(prior: &State) -> IdentityInput {
    granted(
        granted(input(Some(prior)), "alice", "write"),
        "bob",
        "maintain",
    )
}

#[test]
fn a_split_gives_each_member_its_own_finding_until_the_command_is_deleted() {
    let members = one_defect_by_two();
    let src = sources(&["coderabbit", "sourcery"], &[]);
    let first = run_linked(
        &members,
        &src,
        &snapshot(HEAD_A, vec![]),
        &input(None),
        LINKED,
    );
    assert_eq!(first.findings.len(), 1, "the matcher merges them");
    let fp = fps(&first.findings)[0].clone();
    assert_eq!(fp, format!("rc-{}", MemberKeys::of(&members[0]).content));
    let ack = alice_acks(&fp);
    let split = bob_says(200, &format!("/consensus split {fp}"));

    let second = run_linked(
        &members,
        &src,
        &snapshot(HEAD_B, vec![ack.clone(), split.clone()]),
        &both_granted(&first.identity.state),
        LINKED,
    );
    assert_eq!(second.findings.len(), 2, "{:?}", second.identity.refused);
    assert!(second.identity.refused.is_empty());
    // Sourcery's piece ranks first, yet CodeRabbit's, which the fingerprint was minted
    // from, keeps it, and the acknowledgement with it.
    assert_eq!(second.findings[0].consensus.detected_by, ["sourcery"]);
    let kept = &second.findings[1];
    assert_eq!(kept.fingerprint(), Some(fp.as_str()));
    assert_eq!(kept.consensus.detected_by, ["coderabbit"]);
    assert!(kept.is_acknowledged());
    // The piece split off is named from its own key, as any finding, and is not news.
    let off = second.findings[0].identity.as_ref().unwrap();
    let off_fp = format!("rc-{}", MemberKeys::of(&members[1]).content);
    assert_eq!(off.fingerprint, off_fp);
    assert_eq!(
        (off.state, off.first_seen.as_str()),
        (FindingState::Open, "aaaaaaaaaa")
    );
    assert!(off.acknowledged.is_none());
    let corrections = &second.identity.corrections;
    assert_eq!(corrections.len(), 1);
    let c = &corrections[0];
    assert_eq!(
        (c.kind, c.by.as_str(), c.comment_id, c.applied),
        (CorrectionKind::Split, "bob", 200, true)
    );
    assert_eq!(c.fingerprints, vec![fp.clone()]);
    assert_eq!(c.findings, vec![off_fp.clone(), fp.clone()]);
    let record = &second.identity.state.corrections;
    assert_eq!(record.len(), 1);
    assert_eq!(record[0].of[0].keys, first.identity.state.seen[&fp].keys);
    assert!(second.identity.state.perms.contains_key("bob"));

    // Later runs resolve it through the record: the same two findings, the same names.
    let third = run_linked(
        &members,
        &src,
        &snapshot(HEAD_B, vec![ack.clone(), split]),
        &input(Some(&second.identity.state)),
        LINKED,
    );
    assert_eq!(fps(&third.findings), fps(&second.findings));
    assert_eq!(third.identity.state, second.identity.state);

    // The command deleted: one finding again, under its first name, still acknowledged;
    // the name of the piece is an alias, not a resolved finding.
    let undone = run_linked(
        &members,
        &src,
        &snapshot(HEAD_B, vec![ack]),
        &input(Some(&third.identity.state)),
        LINKED,
    );
    assert_eq!(fps(&undone.findings), vec![fp.clone()]);
    assert!(undone.findings[0].is_acknowledged());
    let identity = undone.findings[0].identity.as_ref().unwrap();
    assert_eq!(identity.aliases, vec![off_fp]);
    assert!(undone.identity.resolved.is_empty() && undone.identity.awaiting.is_empty());
    assert!(undone.identity.corrections.is_empty());
    assert!(undone.identity.state.corrections.is_empty());
}

#[test]
fn a_same_joins_two_findings_until_the_command_is_deleted() {
    let sql = member("coderabbit", 10, 39, SQL);
    let mut caller = member("sourcery", 11, 12, "Order reference is never validated");
    caller.evidence.file = "app/api/orders.py".into();
    let members = [sql, caller];
    let src = sources(&["coderabbit", "sourcery"], &[]);
    let first = first_run(&members, &src);
    assert_eq!(
        first.findings.len(),
        2,
        "two files: never merged by the matcher"
    );
    let names = fps(&first.findings);
    let same = bob_says(200, &format!("/consensus same {} {}", names[0], names[1]));
    // An ack said for either name holds for the finding they make.
    let ack = alice_acks(&names[1]);

    let joined = run(
        &members,
        &src,
        &snapshot(HEAD_B, vec![ack.clone(), same.clone()]),
        &both_granted(&first.identity.state),
    );
    assert_eq!(joined.findings.len(), 1, "{:?}", joined.identity.refused);
    let finding = &joined.findings[0];
    assert_eq!(finding.consensus.detected_by, ["coderabbit", "sourcery"]);
    let identity = finding.identity.as_ref().unwrap();
    assert!(names.contains(&identity.fingerprint));
    let other: Vec<String> = names
        .iter()
        .filter(|n| **n != identity.fingerprint)
        .cloned()
        .collect();
    assert_eq!(identity.aliases, other, "the other name is an alias");
    assert!(finding.is_acknowledged());
    assert!(!identity.new);
    let c = &joined.identity.corrections[0];
    assert_eq!(
        (c.kind, c.applied, c.findings.clone()),
        (
            CorrectionKind::Same,
            true,
            vec![identity.fingerprint.clone()]
        )
    );
    assert_eq!(c.fingerprints, names);
    assert!(joined.identity.resolved.is_empty());

    // Again: the record names both, though one name is only an alias now.
    let again = run(
        &members,
        &src,
        &snapshot(HEAD_B, vec![ack.clone(), same]),
        &input(Some(&joined.identity.state)),
    );
    assert_eq!(fps(&again.findings), fps(&joined.findings));
    assert!(again.identity.refused.is_empty());

    // Deleted: two findings again, each under its first name, and no alias left.
    let undone = run(
        &members,
        &src,
        &snapshot(HEAD_B, vec![ack]),
        &input(Some(&again.identity.state)),
    );
    let mut after = fps(&undone.findings);
    after.sort();
    let mut before = names.clone();
    before.sort();
    assert_eq!(after, before);
    assert!(undone
        .findings
        .iter()
        .all(|f| f.identity.as_ref().unwrap().aliases.is_empty()));
    let acked: Vec<&str> = undone
        .findings
        .iter()
        .filter(|f| f.is_acknowledged())
        .filter_map(|f| f.fingerprint())
        .collect();
    assert_eq!(
        acked,
        [names[1].as_str()],
        "the ack is back with the name it said"
    );
    assert!(undone.identity.resolved.is_empty());
}

/// `seed` matching is exactly the seed's rule: a correction is kept and shown, but not
/// applied, and the comment can say so.
#[test]
fn seed_matching_keeps_corrections_without_applying_them() {
    let members = one_defect_by_two();
    let src = sources(&["coderabbit", "sourcery"], &[]);
    let seed = |snap: &PrSnapshot, input: &IdentityInput| {
        run_matching(&members, &src, snap, input, &[], Matching::Seed)
    };
    let first = seed(&snapshot(HEAD_A, vec![]), &input(None));
    assert_eq!(first.findings.len(), 1, "the seed's rule merges them");
    let fp = fps(&first.findings)[0].clone();
    let seed = seed(
        &snapshot(
            HEAD_B,
            vec![bob_says(200, &format!("/consensus split {fp}"))],
        ),
        &both_granted(&first.identity.state),
    );
    assert_eq!(seed.findings.len(), 1);
    let c = &seed.identity.corrections[0];
    assert!(!c.applied);
    assert!(
        c.note.as_deref().unwrap().contains("matching: seed"),
        "{c:?}"
    );
    assert_eq!(seed.identity.state.corrections.len(), 1, "kept for `issue`");
}
