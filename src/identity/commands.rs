//! `/consensus ack <fingerprint> <reason> [until YYYY-MM-DD]`, `/consensus unack
//! <fingerprint>`, `/consensus split <fingerprint>` and `/consensus same <fingerprint>
//! <fingerprint>` lines in the PR's conversation comments (CONTRACT section 8). Parsing and
//! the reason rules only; who may send them is decided with the permissions in `track`,
//! and what `split` and `same` name in `corrections`.

use chrono::NaiveDate;

use super::fingerprint;
use super::state::{clip, REASON_CHARS};
use crate::api::IssueComment;
use crate::model::identity::RefusalKind;

/// A reason shorter than this is refused.
pub const MIN_REASON_CHARS: usize = 12;

/// What a command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verb {
    Ack {
        reason: String,
        until: Option<NaiveDate>,
    },
    Unack,
    /// The findings merged into the fingerprint are each their own.
    Split,
    /// The fingerprint and `other` (normalised, not the same text) are one finding.
    Same {
        other: String,
    },
}

impl Verb {
    /// `split` or `same`: decided before the findings are matched (`corrections`).
    pub fn is_correction(&self) -> bool {
        matches!(self, Verb::Split | Verb::Same { .. })
    }
}

/// Why a command cannot be followed: the rule it breaks, and what about it breaks it (may
/// quote the command: untrusted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub kind: RefusalKind,
    pub why: String,
}

impl Refused {
    pub fn new(kind: RefusalKind, why: impl Into<String>) -> Refused {
        Refused {
            kind,
            why: why.into(),
        }
    }
}

/// One command line, read from one comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    pub author: String,
    pub author_is_bot: bool,
    pub comment_id: u64,
    pub comment_url: Option<String>,
    /// The line as written (clipped), for the list of refused commands.
    pub line: String,
    /// The (first) fingerprint it names, normalised; `None` when it names none. `same`
    /// names a second one in its verb.
    pub fingerprint: Option<String>,
    /// The request, or why it cannot be one (a malformed line, a bare-label reason).
    pub verb: Result<Verb, Refused>,
}

impl Command {
    /// Whether only the author's permission is left to check.
    pub fn is_well_formed(&self) -> bool {
        self.fingerprint.is_some() && self.verb.is_ok()
    }
}

/// Every command in `comments`, oldest comment first (GitHub's ids grow with time), lines in
/// order. A comment whose body starts with our marker (ours, or a copy) carries none; lines
/// in code blocks and quotes are not commands.
pub fn read_commands(comments: &[IssueComment]) -> Vec<Command> {
    let mut ordered: Vec<&IssueComment> = comments.iter().collect();
    ordered.sort_by_key(|c| c.id);
    let mut out = Vec::new();
    for comment in ordered {
        let body = comment.body.as_deref().unwrap_or("");
        if body.trim_start().starts_with("<!-- review-bot-ack") {
            continue;
        }
        let (author, author_is_bot) = comment
            .user
            .as_ref()
            .map_or((String::new(), false), |u| (u.login.clone(), u.is_bot()));
        for line in command_lines(body) {
            let (fingerprint, verb) = parse_line(line);
            out.push(Command {
                author: author.clone(),
                author_is_bot,
                comment_id: comment.id,
                comment_url: comment.html_url.clone(),
                line: clip(line, 200),
                fingerprint,
                verb,
            });
        }
    }
    out
}

/// Lines that start with `/consensus`, outside fenced code blocks and block quotes.
fn command_lines(body: &str) -> Vec<&str> {
    let mut fence: Option<(char, usize)> = None;
    let mut lines = Vec::new();
    for raw in body.lines() {
        let line = raw.trim();
        let marker = line.chars().next().filter(|c| *c == '`' || *c == '~');
        if let Some(c) = marker {
            let run = line.chars().take_while(|x| *x == c).count();
            if run >= 3 {
                fence = match fence {
                    None => Some((c, run)),
                    Some((open, len)) if open == c && run >= len => None,
                    still => still,
                };
                continue;
            }
        }
        if fence.is_some() {
            continue;
        }
        let head = line.split_whitespace().next().unwrap_or("");
        if head.eq_ignore_ascii_case("/consensus") {
            lines.push(line);
        }
    }
    lines
}

/// `(fingerprint, verb)` of a `/consensus ...` line.
fn parse_line(line: &str) -> (Option<String>, Result<Verb, Refused>) {
    let mut words = line.split_whitespace().skip(1);
    let verb = words.next().unwrap_or("").to_ascii_lowercase();
    let target = words.next();
    let fingerprint = target.and_then(fingerprint::parse);
    let bad = |why: String| Err(Refused::new(RefusalKind::BadCommand, why));
    if verb.is_empty() {
        return (fingerprint, bad("nothing after /consensus".to_owned()));
    }
    if !matches!(verb.as_str(), "ack" | "unack" | "split" | "same") {
        let why = format!(
            "unknown command “{}”: ack, unack, split or same",
            clip(&verb, 20)
        );
        return (fingerprint, bad(why));
    }
    let Some(target) = target else {
        return (None, bad(format!("no fingerprint after {verb}")));
    };
    let Some(fingerprint) = fingerprint else {
        return (None, bad(not_a_fingerprint(target)));
    };
    let rest: Vec<&str> = words.collect();
    let verb = match verb.as_str() {
        "unack" => Ok(Verb::Unack),
        "split" => match rest[..] {
            [] => Ok(Verb::Split),
            _ => bad(format!(
                "split takes one fingerprint and nothing after it, not “{}”",
                clip(&rest.join(" "), 40)
            )),
        },
        "same" => same(&fingerprint, &rest),
        _ => ack_reason(&rest),
    };
    (Some(fingerprint), verb)
}

/// Why `word` is not a fingerprint; a bare key (`1pksm0hp`) is told how to write it.
fn not_a_fingerprint(word: &str) -> String {
    match fingerprint::parse(&format!("{}{word}", fingerprint::PREFIX)) {
        Some(fp) => format!(
            "“{}” is not a fingerprint: write it as shown, {fp}",
            clip(word, 40)
        ),
        None => format!("“{}” is not a fingerprint", clip(word, 40)),
    }
}

/// The second fingerprint of `/consensus same <fingerprint> <fingerprint>`, and nothing
/// after it.
fn same(first: &str, rest: &[&str]) -> Result<Verb, Refused> {
    let bad = |why: String| Err(Refused::new(RefusalKind::BadCommand, why));
    let [word, after @ ..] = rest else {
        return bad("same takes two fingerprints: the findings that are one".to_owned());
    };
    let Some(other) = fingerprint::parse(word) else {
        return bad(not_a_fingerprint(word));
    };
    if !after.is_empty() {
        return bad(format!(
            "same takes two fingerprints and nothing after them, not “{}”",
            clip(&after.join(" "), 40)
        ));
    }
    if other == first {
        return bad(format!("same names {first} twice: it takes two findings"));
    }
    Ok(Verb::Same { other })
}

/// The reason and the optional `until` date of an ack.
fn ack_reason(words: &[&str]) -> Result<Verb, Refused> {
    let mut words = words.to_vec();
    let mut until = None;
    if let [.., word, date] = words[..] {
        if word.eq_ignore_ascii_case("until") && looks_like_date(date) {
            until = Some(parse_date(date).ok_or_else(|| {
                let why = format!(
                    "“until {}”: the date must be a real day written YYYY-MM-DD",
                    clip(date, 20)
                );
                Refused::new(RefusalKind::BadDate, why)
            })?);
            words.truncate(words.len() - 2);
        }
    }
    let reason = words.join(" ");
    check_reason(&reason).map_err(|why| Refused::new(RefusalKind::BadReason, why))?;
    Ok(Verb::Ack {
        reason: clip(&reason, REASON_CHARS),
        until,
    })
}

/// Digits and date separators only, with a digit: meant as a date, even if a bad one.
fn looks_like_date(word: &str) -> bool {
    word.chars().any(|c| c.is_ascii_digit())
        && word
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '-' | '/' | '.'))
}

/// `YYYY-MM-DD`, exactly, naming a real day.
pub fn parse_date(text: &str) -> Option<NaiveDate> {
    let shaped = text.len() == 10
        && text.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'-',
            _ => b.is_ascii_digit(),
        });
    if !shaped {
        return None;
    }
    NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()
}

/// Labels that are not reasons on their own (lowercase, punctuation dropped).
const BARE_LABELS: &[&str] = &[
    "accepted risk",
    "ack",
    "acknowledged",
    "as designed",
    "as intended",
    "by design",
    "done",
    "dup",
    "duplicate",
    "expected",
    "expected behavior",
    "expected behaviour",
    "false alarm",
    "false positive",
    "fine",
    "fixed",
    "fp",
    "ignore",
    "ignored",
    "intended",
    "intentional",
    "invalid",
    "irrelevant",
    "known",
    "known issue",
    "later",
    "lgtm",
    "n a",
    "na",
    "nit",
    "nitpick",
    "no issue",
    "noise",
    "not a bug",
    "not an issue",
    "not applicable",
    "ok",
    "okay",
    "out of scope",
    "risk accepted",
    "skip",
    "todo",
    "will not fix",
    "wont fix",
    "wontfix",
    "working as intended",
    "works as intended",
];

/// Words that carry no reason ("this is a false positive" is still only a label).
const FILLER: &[&str] = &[
    "a",
    "all",
    "an",
    "and",
    "as",
    "be",
    "because",
    "but",
    "clearly",
    "comment",
    "definitely",
    "finding",
    "for",
    "here",
    "i",
    "in",
    "is",
    "it",
    "its",
    "just",
    "no",
    "not",
    "now",
    "obviously",
    "of",
    "on",
    "one",
    "or",
    "our",
    "please",
    "really",
    "simply",
    "so",
    "thanks",
    "that",
    "the",
    "there",
    "this",
    "to",
    "totally",
    "very",
    "we",
    "yes",
];

/// At least [`MIN_REASON_CHARS`] characters, and words beyond a label: two or more that are
/// neither a bare label nor filler.
pub fn check_reason(reason: &str) -> Result<(), String> {
    let reason = reason.trim();
    let chars = reason.chars().count();
    if chars == 0 {
        return Err("no reason; say why the finding does not apply".to_owned());
    }
    if chars < MIN_REASON_CHARS {
        return Err(format!(
            "the reason has {chars} characters; at least {MIN_REASON_CHARS} are needed"
        ));
    }
    let normalised: String = reason
        .to_lowercase()
        .chars()
        .filter(|c| *c != '\'' && *c != '’')
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    let mut words: Vec<&str> = normalised.split_whitespace().collect();
    // Longest labels first, so that "not a bug" goes before "not".
    let mut labels: Vec<Vec<&str>> = BARE_LABELS.iter().map(|l| l.split(' ').collect()).collect();
    labels.sort_by_key(|l| std::cmp::Reverse(l.len()));
    let mut content = Vec::new();
    let mut i = 0;
    'words: while i < words.len() {
        for label in &labels {
            if words[i..].starts_with(label) {
                i += label.len();
                continue 'words;
            }
        }
        if !FILLER.contains(&words[i]) {
            content.push(words[i]);
        }
        i += 1;
    }
    words.clear();
    if content.len() < 2 {
        return Err(format!(
            "“{}” is a label, not a reason; say why the finding does not apply",
            clip(reason, 60)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::User;

    fn comment(id: u64, login: &str, body: &str) -> IssueComment {
        IssueComment {
            id,
            user: Some(User {
                login: login.into(),
                id: 1,
                kind: "User".into(),
            }),
            body: Some(body.into()),
            html_url: Some(format!("https://github.com/o/r/pull/1#issuecomment-{id}")),
            ..IssueComment::default()
        }
    }

    #[test]
    fn labels_alone_are_refused_and_real_reasons_pass() {
        for bare in [
            "false positive",
            "False positive!!!",
            "wontfix",
            "won't fix",
            "This is a false positive",
            "not a bug, by design",
            "works as intended, ok",
        ] {
            assert!(check_reason(bare).is_err(), "{bare}");
        }
        assert!(check_reason("too short")
            .unwrap_err()
            .contains("9 characters"));
        for reason in [
            "false positive: the id is validated by the router",
            "Intended: the legacy API needs the raw string",
            "tracked in #123, fixed with the parser rewrite",
        ] {
            assert_eq!(check_reason(reason), Ok(()), "{reason}");
        }
    }

    #[test]
    fn commands_are_read_in_order_outside_code_and_quotes() {
        let comments = vec![
            comment(
                20,
                "bob",
                "/consensus unack rc-jvyr5cb6\n> /consensus ack rc-00000000 quoted reply here\n",
            ),
            comment(
                10,
                "alice",
                "Looked at it.\n/consensus ack RC-JVYR5CB6 validated by the router upstream until 2026-05-01\n\
                 ```\n/consensus ack rc-11111111 only an example in a code block\n```",
            ),
            comment(30, "github-actions[bot]", "<!-- review-bot-ack -->\n/consensus ack rc-22222222 in our own comment"),
        ];
        let commands = read_commands(&comments);
        assert_eq!(commands.len(), 2, "{commands:?}");
        assert_eq!(
            (commands[0].author.as_str(), commands[0].comment_id),
            ("alice", 10)
        );
        assert_eq!(commands[0].fingerprint.as_deref(), Some("rc-jvyr5cb6"));
        assert_eq!(
            commands[0].verb,
            Ok(Verb::Ack {
                reason: "validated by the router upstream".into(),
                until: NaiveDate::from_ymd_opt(2026, 5, 1),
            })
        );
        assert_eq!(commands[1].verb, Ok(Verb::Unack));
        assert!(commands.iter().all(Command::is_well_formed));
    }

    #[test]
    fn malformed_lines_say_why() {
        let read = |line: &str| read_commands(&[comment(1, "a", line)]).remove(0);
        use RefusalKind::{BadCommand, BadDate, BadReason};
        let cases = [
            ("/consensus", "nothing after", BadCommand),
            ("/consensus ack", "no fingerprint", BadCommand),
            (
                "/consensus ack rc-123 the reason is long enough",
                "not a fingerprint",
                BadCommand,
            ),
            (
                "/consensus dismiss rc-jvyr5cb6 because of reasons",
                "unknown command “dismiss”",
                BadCommand,
            ),
            ("/consensus ack rc-jvyr5cb6", "no reason", BadReason),
            (
                "/consensus ack rc-jvyr5cb6 too short",
                "9 characters",
                BadReason,
            ),
            (
                "/consensus ack rc-jvyr5cb6 false positive",
                "a label",
                BadReason,
            ),
            (
                "/consensus ack rc-jvyr5cb6 validated by the router until 2026-02-30",
                "real day",
                BadDate,
            ),
            (
                "/consensus ack rc-jvyr5cb6 validated by the router until 01/05/2026",
                "YYYY-MM-DD",
                BadDate,
            ),
        ];
        for (line, why, kind) in cases {
            let command = read(line);
            let err = command.verb.clone().unwrap_err();
            assert!(err.why.contains(why), "{line}: {err:?}");
            assert_eq!(err.kind, kind, "{line}");
            assert!(!command.is_well_formed());
        }
        // `until` followed by words is part of the reason.
        let command = read("/consensus ack rc-jvyr5cb6 kept until the parser is replaced");
        assert!(matches!(command.verb, Ok(Verb::Ack { until: None, .. })));
    }

    #[test]
    fn split_and_same_are_read_with_their_fingerprints() {
        let comments = vec![comment(
            10,
            "alice",
            "These two are different bugs.\n/consensus split RC-JVYR5CB6\n\
             /consensus same rc-jvyr5cb6 rc-1pksm0hp\n/consensus SAME rc-0o0o0o0o Rc-1I1L1i1l",
        )];
        let commands = read_commands(&comments);
        assert_eq!(commands.len(), 3, "{commands:?}");
        assert!(commands.iter().all(Command::is_well_formed));
        assert_eq!(commands[0].fingerprint.as_deref(), Some("rc-jvyr5cb6"));
        assert_eq!(commands[0].verb, Ok(Verb::Split));
        assert_eq!(
            commands[1].verb,
            Ok(Verb::Same {
                other: "rc-1pksm0hp".into()
            })
        );
        // Case and Crockford's look-alikes, as for acks.
        assert_eq!(commands[2].fingerprint.as_deref(), Some("rc-00000000"));
        assert_eq!(
            commands[2].verb,
            Ok(Verb::Same {
                other: "rc-11111111".into()
            })
        );
        assert!(commands
            .iter()
            .all(|c| c.verb.as_ref().unwrap().is_correction()));
        assert_eq!(commands[0].line, "/consensus split RC-JVYR5CB6");
    }

    #[test]
    fn malformed_splits_and_sames_say_why() {
        let read = |line: &str| read_commands(&[comment(1, "a", line)]).remove(0);
        let cases = [
            ("/consensus split", "no fingerprint after split"),
            ("/consensus same", "no fingerprint after same"),
            ("/consensus same rc-jvyr5cb6", "two fingerprints"),
            (
                "/consensus split rc-jvyr5cb6 these are two bugs",
                "nothing after it, not “these are two bugs”",
            ),
            (
                "/consensus same rc-jvyr5cb6 rc-1pksm0hp and rc-00000000",
                "nothing after them",
            ),
            (
                "/consensus same rc-jvyr5cb6 RC-JVYR5CB6",
                "names rc-jvyr5cb6 twice",
            ),
            (
                "/consensus same rc-jvyr5cb6 the-other",
                "“the-other” is not a fingerprint",
            ),
            (
                "/consensus split rc-jvyr5cb",
                "“rc-jvyr5cb” is not a fingerprint",
            ),
            ("/consensus merge rc-jvyr5cb6", "ack, unack, split or same"),
        ];
        for (line, why) in cases {
            let command = read(line);
            let err = command.verb.clone().unwrap_err();
            assert_eq!(err.kind, RefusalKind::BadCommand, "{line}");
            assert!(err.why.contains(why), "{line}: {err:?}");
            assert!(!command.is_well_formed(), "{line}");
        }
    }

    /// A key written without `rc-` (copied from the state block, or typed from memory) is
    /// refused with the fingerprint to write instead, in every command.
    #[test]
    fn a_bare_fingerprint_is_refused_with_how_to_write_it() {
        let read = |line: &str| read_commands(&[comment(1, "a", line)]).remove(0);
        for line in [
            "/consensus split jvyr5cb6",
            "/consensus ack JVYR5CB6 validated by the router upstream",
            "/consensus unack jvyr5cb6",
        ] {
            let err = read(line).verb.unwrap_err();
            assert_eq!(err.kind, RefusalKind::BadCommand, "{line}");
            assert!(
                err.why
                    .contains("not a fingerprint: write it as shown, rc-jvyr5cb6"),
                "{line}: {err:?}"
            );
        }
        let err = read("/consensus same rc-1pksm0hp jvyr5cb6")
            .verb
            .unwrap_err();
        assert!(
            err.why.contains("write it as shown, rc-jvyr5cb6"),
            "{err:?}"
        );
        // Not a key either: no suggestion.
        let err = read("/consensus split jvyr").verb.unwrap_err();
        assert_eq!(err.why, "“jvyr” is not a fingerprint");
    }

    /// The rules the comment shows say what the parser does.
    #[test]
    fn the_reason_rule_names_the_minimum_and_the_labels() {
        let rule = RefusalKind::BadReason.rule();
        assert!(rule.contains(&format!("at least {MIN_REASON_CHARS} characters")));
        for label in ["false positive", "wontfix", "by design"] {
            assert!(BARE_LABELS.contains(&label), "{label}");
            assert!(rule.contains(label), "{label}");
        }
        let example = "false positive: the id is validated by the router";
        assert!(rule.contains(example) && check_reason(example).is_ok());
    }

    #[test]
    fn dates_are_exact() {
        assert_eq!(
            parse_date("2024-02-29"),
            NaiveDate::from_ymd_opt(2024, 2, 29)
        );
        for bad in [
            "2023-02-29",
            "2026-1-05",
            "2026-01-5",
            "20260105",
            "2026-13-01",
            "x",
        ] {
            assert_eq!(parse_date(bad), None, "{bad}");
        }
    }
}
