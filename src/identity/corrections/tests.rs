use super::*;
use crate::api::IssueComment;
use crate::identity::state::STATE_VERSION;
use crate::identity::test_support::{said, snapshot};
use crate::identity::{Access, Prior};
use crate::model::Severity;

const HEAD_A: &str = "aaaaaaaaaa";
const HEAD_B: &str = "bbbbbbbbbb11111111112222222222333333333344";

fn finding(bot: &str, comment: u64, file: &str, line: u32, title: &str) -> NormalizedFinding {
    let mut f = NormalizedFinding::new(bot, comment.to_string(), Severity::High, "security", title)
        .at(file, Some(line));
    f.provenance.comment_id = Some(comment);
    f
}

/// The last run's finding made of `members`: their keys and review comments.
fn entry_of(members: &[&NormalizedFinding]) -> Entry {
    let mut keys = Vec::new();
    for member in members {
        let k = MemberKeys::of(member);
        keys.extend(k.stable);
        keys.push(k.content);
    }
    Entry {
        keys,
        bots: members.iter().map(|m| m.bot.clone()).collect(),
        first: HEAD_A.into(),
        comments: members
            .iter()
            .filter_map(|m| m.provenance.comment_id)
            .collect(),
        ..Entry::default()
    }
}

/// The fingerprint the last run minted for `member`'s finding.
fn fp_of(member: &NormalizedFinding) -> String {
    format!("rc-{}", MemberKeys::of(member).primary())
}

fn state(entries: Vec<(String, Entry)>) -> State {
    State {
        v: STATE_VERSION,
        recipe: RECIPE_VERSION,
        head: HEAD_A.into(),
        seen: entries.into_iter().collect(),
        ..State::default()
    }
}

/// The last run's state, with alice (write) and mallory (read) looked up this run.
fn input(prior: Option<State>) -> IdentityInput {
    let mut input = IdentityInput {
        prior: Prior {
            state: prior,
            note: None,
        },
        today: chrono::NaiveDate::from_ymd_opt(2026, 3, 10),
        ..IdentityInput::default()
    };
    input.permissions.insert(
        "alice".into(),
        Access::Granted {
            role: "write".into(),
        },
    );
    input.permissions.insert(
        "mallory".into(),
        Access::Denied {
            role: "read".into(),
        },
    );
    input
}

fn judge(
    comments: Vec<IssueComment>,
    findings: &[NormalizedFinding],
    input: &IdentityInput,
) -> Corrections {
    Corrections::judge(Some(&snapshot(HEAD_B, comments)), findings, input, true)
}

/// Each command's refusal (`None`: followed, or not a correction).
fn verdicts(corrections: &Corrections) -> Vec<Option<(RefusalKind, String)>> {
    (0..corrections.commands.len())
        .map(|i| match corrections.judged(i) {
            Some(Err(refused)) => Some((refused.kind, refused.why.clone())),
            _ => None,
        })
        .collect()
}

/// CodeRabbit and Sourcery on one SQL injection (merged by the last run), and CodeRabbit on
/// a token logged elsewhere (its own finding).
fn three() -> [NormalizedFinding; 3] {
    [
        finding(
            "coderabbit",
            10,
            "app/db/queries.py",
            39,
            "SQL injection in the lookup",
        ),
        finding(
            "sourcery",
            11,
            "app/db/queries.py",
            40,
            "Order reference reaches the query",
        ),
        finding(
            "coderabbit",
            12,
            "app/auth/tokens.py",
            7,
            "Token is logged in plain text",
        ),
    ]
}

fn merged_state(f: &[NormalizedFinding; 3]) -> State {
    state(vec![
        (fp_of(&f[0]), entry_of(&[&f[0], &f[1]])),
        (fp_of(&f[2]), entry_of(&[&f[2]])),
    ])
}

#[test]
fn a_split_keeps_the_members_of_the_earlier_finding_apart() {
    let f = three();
    let sql = fp_of(&f[0]);
    let input = input(Some(merged_state(&f)));
    let corrections = judge(
        vec![said(
            100,
            "alice",
            "User",
            &format!("/consensus split {sql}"),
        )],
        &f,
        &input,
    );
    assert_eq!(verdicts(&corrections), vec![None]);
    let constraints = corrections.constraints(&f);
    assert_eq!(constraints.apart, vec![(0, 1)]);
    assert!(constraints.together.is_empty());
    // The record names the finding by its members, as the last run knew them.
    let records = corrections.records();
    assert_eq!(records.len(), 1);
    assert_eq!(
        (records[0].kind, records[0].by.as_str(), records[0].id),
        (CorrectionKind::Split, "alice", 100)
    );
    assert_eq!(records[0].of[0].fp, sql);
    assert_eq!(records[0].of[0].keys, entry_of(&[&f[0], &f[1]]).keys);
    assert_eq!(records[0].of[0].comments, vec![10, 11]);
    assert_eq!(corrections.perms()["alice"].role, "write");
}

#[test]
fn a_same_puts_every_member_of_both_together() {
    let f = three();
    let (sql, token) = (fp_of(&f[0]), fp_of(&f[2]));
    let input = input(Some(merged_state(&f)));
    let corrections = judge(
        vec![said(
            100,
            "alice",
            "User",
            &format!("/consensus same {token} {sql}"),
        )],
        &f,
        &input,
    );
    assert_eq!(verdicts(&corrections), vec![None]);
    let constraints = corrections.constraints(&f);
    assert_eq!(constraints.together, vec![(0, 1), (0, 2)]);
    assert!(constraints.apart.is_empty());
    let record = &corrections.records()[0];
    let named: Vec<&str> = record.of.iter().map(|n| n.fp.as_str()).collect();
    assert_eq!(
        named,
        [token.as_str(), sql.as_str()],
        "in the command's order"
    );
}

/// A bot repeating one finding word for word in two places has one key for both: the
/// review comment the earlier finding had tells which is meant. A split never keeps two
/// findings with a key in common apart.
#[test]
fn findings_sharing_a_key_are_told_apart_by_their_review_comments() {
    let f = three();
    let sql = fp_of(&f[0]);
    let mut again = f[0].clone();
    again.evidence.line = Some(140);
    again.provenance.comment_id = Some(13);
    let findings = [f[0].clone(), f[1].clone(), f[2].clone(), again];
    let input = input(Some(merged_state(&f)));
    let split = vec![said(
        100,
        "alice",
        "User",
        &format!("/consensus split {sql}"),
    )];
    let corrections = judge(split.clone(), &findings, &input);
    assert_eq!(corrections.constraints(&findings).apart, vec![(0, 1)]);
    // Both re-posted (new comment ids): either may be meant, so both are taken; the two
    // are never kept apart from each other.
    let mut reposted = findings.clone();
    reposted[0].provenance.comment_id = Some(20);
    reposted[1].provenance.comment_id = Some(21);
    reposted[3].provenance.comment_id = Some(23);
    let corrections = judge(split, &reposted, &input);
    assert_eq!(
        corrections.constraints(&reposted).apart,
        vec![(0, 1), (1, 3)]
    );
}

#[test]
fn refusals_say_which_rule_was_broken() {
    let f = three();
    let (sql, token) = (fp_of(&f[0]), fp_of(&f[2]));
    let mut prior = merged_state(&f);
    // An older name of the token finding (two findings merged into it earlier).
    let alias = "rc-00000000".to_owned();
    prior
        .seen
        .get_mut(&token)
        .unwrap()
        .aliases
        .push(alias.clone());
    let with_state = input(Some(prior));
    let comments = vec![
        said(100, "alice", "User", "/consensus split rc-zzzzzzzz"),
        said(
            101,
            "review-bot[bot]",
            "Bot",
            &format!("/consensus split {sql}"),
        ),
        said(102, "mallory", "User", &format!("/consensus split {sql}")),
        said(103, "carol", "User", &format!("/consensus split {sql}")),
        said(104, "alice", "User", &format!("/consensus split {token}")),
        said(
            105,
            "alice",
            "User",
            &format!("/consensus same {token} {alias}"),
        ),
        said(
            106,
            "alice",
            "User",
            &format!("/consensus ack {sql} not a correction at all"),
        ),
        said(107, "alice", "User", "/consensus split"),
    ];
    let corrections = judge(comments, &f, &with_state);
    let verdicts = verdicts(&corrections);
    let kinds: Vec<Option<RefusalKind>> =
        verdicts.iter().map(|v| v.as_ref().map(|v| v.0)).collect();
    use RefusalKind::*;
    assert_eq!(
        kinds,
        [
            Some(UnknownFingerprint),
            Some(BotAccount),
            Some(NoPermission),
            Some(PermissionUnchecked),
            Some(NothingToCorrect),
            Some(NothingToCorrect),
            None, // an ack: `track` follows it
            None, // malformed: `track` refuses it with the parser's why
        ]
    );
    let why = |i: usize| verdicts[i].as_ref().unwrap().1.as_str();
    assert!(
        why(0).contains("no finding of an earlier run"),
        "{}",
        why(0)
    );
    assert!(why(2).contains("mallory has read permission"), "{}", why(2));
    assert!(why(4).contains("nothing to split"), "{}", why(4));
    assert!(why(5).contains("are one finding already"), "{}", why(5));
    assert!(corrections.records().is_empty());
    assert!(corrections.constraints(&f).apart.is_empty());
    // Refused the same on a first run: there is no earlier finding to name.
    let first = judge(
        vec![said(
            100,
            "alice",
            "User",
            &format!("/consensus split {sql}"),
        )],
        &f,
        &input(None),
    );
    assert!(matches!(
        first.judged(0),
        Some(Err(Refused {
            kind: UnknownFingerprint,
            ..
        }))
    ));
}

#[test]
fn at_most_twenty_corrections_are_followed() {
    let f = three();
    let sql = fp_of(&f[0]);
    let input = input(Some(merged_state(&f)));
    let comments: Vec<IssueComment> = (0..=MAX_CORRECTIONS as u64)
        .map(|i| said(100 + i, "alice", "User", &format!("/consensus split {sql}")))
        .collect();
    let corrections = judge(comments, &f, &input);
    assert_eq!(corrections.records().len(), MAX_CORRECTIONS);
    let last = verdicts(&corrections).pop().unwrap().unwrap();
    assert_eq!(last.0, RefusalKind::TooManyCorrections);
    assert!(RefusalKind::TooManyCorrections
        .rule()
        .contains(&format!("At most {MAX_CORRECTIONS} ")));
}

/// Once followed, a command is resolved through its record, whatever became of the
/// fingerprint: after the split the last state's entry no longer holds the members split
/// off, or is gone altogether.
#[test]
fn a_followed_command_is_resolved_through_its_record() {
    let f = three();
    let sql = fp_of(&f[0]);
    let command = vec![said(
        100,
        "alice",
        "User",
        &format!("/consensus split {sql}"),
    )];
    let followed = judge(command.clone(), &f, &input(Some(merged_state(&f))));
    let mut later = state(vec![]);
    later.corrections = followed.records();
    let again = judge(command, &f, &input(Some(later.clone())));
    assert_eq!(verdicts(&again), vec![None]);
    assert_eq!(again.records(), followed.records());
    assert_eq!(again.constraints(&f).apart, vec![(0, 1)]);
    // An edit that names another fingerprint is a new command: resolved afresh.
    let edited = vec![said(100, "alice", "User", "/consensus split rc-zzzzzzzz")];
    let refused = judge(edited, &f, &input(Some(later.clone())));
    assert_eq!(
        verdicts(&refused)[0].as_ref().unwrap().0,
        RefusalKind::UnknownFingerprint
    );
    // A state of another fingerprint recipe resolves nothing.
    later.recipe = RECIPE_VERSION + 1;
    let other = judge(
        vec![said(
            100,
            "alice",
            "User",
            &format!("/consensus split {sql}"),
        )],
        &f,
        &input(Some(later)),
    );
    assert_eq!(
        verdicts(&other)[0].as_ref().unwrap().0,
        RefusalKind::UnknownFingerprint
    );
}
