//! The identity stage's vocabulary (CONTRACT section 8, docs/identity.md): what it says
//! about each finding and about the run, and what the state block carries from one run to
//! the next. Data only: `crate::identity` computes it and encodes and decodes the block.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A finding's standing across runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FindingState {
    /// First seen at this head commit.
    New,
    /// Seen at an earlier head commit, still reported.
    Open,
    /// A person acknowledged it: it does not fail the gate.
    Acknowledged,
}

/// An acknowledgement in force: who, why, until when, and where it was said.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ack {
    pub by: String,
    pub reason: String,
    /// Last day it holds (YYYY-MM-DD), if limited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment_url: Option<String>,
    #[serde(default)]
    pub comment_id: u64,
}

/// What the identity stage says about one finding (flattened into its report entry).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FindingIdentity {
    pub fingerprint: String,
    pub state: FindingState,
    /// First seen at this head commit (also when acknowledged since).
    pub new: bool,
    /// The head commit (10 hex) at which it was first seen.
    pub first_seen: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acknowledged: Option<Ack>,
    /// Fingerprints of earlier findings that merged into this one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
}

impl FindingIdentity {
    pub fn is_acknowledged(&self) -> bool {
        self.state == FindingState::Acknowledged
    }
}

/// A finding of an earlier run that is not reported now: resolved, or awaiting re-review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tracked {
    pub fingerprint: String,
    pub title: String,
    pub file: String,
    pub bots: Vec<String>,
    /// Why it is resolved, or whose re-review it awaits.
    pub why: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acknowledged: Option<Ack>,
}

/// A command that was not followed: who sent it, the line, the rule it broke and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    pub by: String,
    /// The line as written (clipped; untrusted, escape it before showing).
    pub command: String,
    pub kind: RefusalKind,
    /// What about this command broke the rule (may quote it: untrusted).
    pub why: String,
    /// The rule itself, [`RefusalKind::rule`], for whoever reads the report.
    pub rule: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment_url: Option<String>,
}

impl Refusal {
    pub fn new(kind: RefusalKind, why: String, by: &str, command: &str) -> Refusal {
        Refusal {
            by: by.to_owned(),
            command: command.to_owned(),
            kind,
            why,
            rule: kind.rule().to_owned(),
            comment_url: None,
        }
    }
}

/// Which rule of the commands (CONTRACT section 8) a command broke: the report's `kind`,
/// and the rule the comment shows beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RefusalKind {
    /// Not `/consensus ack <fingerprint> <reason>` or `/consensus unack <fingerprint>`.
    BadCommand,
    /// No reason, one under 12 characters, or a bare label ("false positive").
    BadReason,
    /// `until` followed by something that is not a real day written YYYY-MM-DD.
    BadDate,
    /// No finding of the pull request, now or earlier, has the fingerprint.
    UnknownFingerprint,
    /// Sent by a bot account.
    BotAccount,
    /// The author's permission is below write.
    NoPermission,
    /// The author's permission could not be checked (offline, over the run's lookups, an
    /// error).
    PermissionUnchecked,
    /// `unack` of a finding with no acknowledgement in force.
    NotAcknowledged,
    /// `split` of a finding that is one bot's finding, or `same` of two fingerprints that
    /// already name one finding.
    NothingToCorrect,
    /// A `split` or `same` past the corrections one pull request keeps.
    TooManyCorrections,
}

impl RefusalKind {
    pub const ALL: [RefusalKind; 10] = [
        RefusalKind::BadCommand,
        RefusalKind::BadReason,
        RefusalKind::BadDate,
        RefusalKind::UnknownFingerprint,
        RefusalKind::BotAccount,
        RefusalKind::NoPermission,
        RefusalKind::PermissionUnchecked,
        RefusalKind::NotAcknowledged,
        RefusalKind::NothingToCorrect,
        RefusalKind::TooManyCorrections,
    ];

    /// The code in the report (kebab-case, as serialised).
    pub fn as_str(self) -> &'static str {
        match self {
            RefusalKind::BadCommand => "bad-command",
            RefusalKind::BadReason => "bad-reason",
            RefusalKind::BadDate => "bad-date",
            RefusalKind::UnknownFingerprint => "unknown-fingerprint",
            RefusalKind::BotAccount => "bot-account",
            RefusalKind::NoPermission => "no-permission",
            RefusalKind::PermissionUnchecked => "permission-unchecked",
            RefusalKind::NotAcknowledged => "not-acknowledged",
            RefusalKind::NothingToCorrect => "nothing-to-correct",
            RefusalKind::TooManyCorrections => "too-many-corrections",
        }
    }

    /// The rule, said to the person who typed the command (markdown; our own text).
    pub fn rule(self) -> &'static str {
        match self {
            RefusalKind::BadCommand => {
                "A command is a line of its own in a conversation comment: `/consensus ack \
                 <fingerprint> <reason> [until YYYY-MM-DD]`, `/consensus unack \
                 <fingerprint>`, `/consensus split <fingerprint>` or `/consensus same \
                 <fingerprint> <fingerprint>`, with the fingerprints shown beside the findings \
                 (`rc-` and 8 characters)."
            }
            RefusalKind::BadReason => {
                "The reason must have at least 12 characters and say why the finding does not \
                 apply: a bare label such as “false positive”, “wontfix” or “by design” is not \
                 a reason (“false positive: the id is validated by the router” is)."
            }
            RefusalKind::BadDate => {
                "`until` takes a real day written YYYY-MM-DD; the acknowledgement holds \
                 through that day (UTC)."
            }
            RefusalKind::UnknownFingerprint => {
                "The fingerprint must be one shown beside a finding of this pull request."
            }
            RefusalKind::BotAccount => {
                "Only people can acknowledge findings or correct a merge, not bot accounts."
            }
            RefusalKind::NoPermission => {
                "Acknowledging or correcting a merge needs write, maintain or admin permission \
                 on the repository."
            }
            RefusalKind::PermissionUnchecked => {
                "Acknowledging or correcting a merge needs write, maintain or admin permission \
                 on the repository, checked with GitHub; a command whose author could not be \
                 checked yet is looked at again on the next run."
            }
            RefusalKind::NotAcknowledged => {
                "`/consensus unack` takes back an acknowledgement in force; the finding has \
                 none."
            }
            RefusalKind::NothingToCorrect => {
                "`/consensus split` takes a finding several findings were merged into, and \
                 `/consensus same` two fingerprints of different findings."
            }
            RefusalKind::TooManyCorrections => {
                "At most 20 `split` and `same` commands are followed on one pull request; \
                 delete the ones no longer needed."
            }
        }
    }
}

/// A person's correction of a merge: `/consensus split` or `/consensus same`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CorrectionKind {
    /// `/consensus split <fingerprint>`: the findings merged into it are each their own.
    Split,
    /// `/consensus same <fingerprint> <fingerprint>`: the two are one finding.
    Same,
}

impl CorrectionKind {
    /// The command's word.
    pub fn as_str(self) -> &'static str {
        match self {
            CorrectionKind::Split => "split",
            CorrectionKind::Same => "same",
        }
    }
}

/// A correction in force this run: what it named, who asked where, and the findings of
/// this run it touched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Correction {
    pub kind: CorrectionKind,
    /// The fingerprints the command named (one for `split`, two for `same`), normalised.
    pub fingerprints: Vec<String>,
    pub by: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment_url: Option<String>,
    #[serde(default)]
    pub comment_id: u64,
    /// This run's fingerprints of the findings holding the members it named (for `split`
    /// the pieces, for `same` the one they joined), in rank order.
    #[serde(default)]
    pub findings: Vec<String>,
    /// Whether this run's findings are as it asks: for `split` no two of the members in one
    /// finding, for `same` all of them in one.
    pub applied: bool,
    /// Why it is not applied, when it is not (our own text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// An acknowledgement whose `until` day has passed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lapsed {
    pub fingerprint: String,
    pub ack: Ack,
}

/// The run-level result of the identity stage.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RunIdentity {
    /// No state was carried in: everything is new.
    pub first_run: bool,
    /// The head commit (10 hex) judged before this one, when known: "since the last run".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// Findings resolved at this head commit.
    #[serde(default)]
    pub resolved: Vec<Tracked>,
    /// Findings no longer reported whose bots have not all re-reviewed: still open.
    #[serde(default)]
    pub awaiting: Vec<Tracked>,
    #[serde(default)]
    pub refused: Vec<Refusal>,
    #[serde(default)]
    pub lapsed: Vec<Lapsed>,
    /// `/consensus split` and `same` commands in force, in the order they were said.
    #[serde(default)]
    pub corrections: Vec<Correction>,
    /// About the state itself (a block that could not be read, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// What this run leaves for the next (the block at the end of the comment).
    #[serde(default)]
    pub state: State,
}

fn is_false(b: &bool) -> bool {
    !b
}

/// Everything carried from one run to the next.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct State {
    /// The block's format version (`identity::state::STATE_VERSION`).
    pub v: u32,
    /// The fingerprint recipe that made the keys (`fingerprint::RECIPE_VERSION`).
    pub recipe: u32,
    /// The head commit (10 hex) the writing run judged.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub head: String,
    /// The head commit judged before that one: what "since the last run" compares with.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prev: String,
    /// Every finding seen on this PR, by fingerprint.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub seen: BTreeMap<String, Entry>,
    /// Acknowledgements in force, by fingerprint (a record: each run recomputes them from
    /// the PR's comments).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub acks: BTreeMap<String, AckRecord>,
    /// Commenters' repository permission, by lowercase login.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub perms: BTreeMap<String, PermRecord>,
    /// The `/consensus split` and `same` commands in force, in the order they were said,
    /// each with what resolves its fingerprints again on later runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub corrections: Vec<CorrectionRecord>,
    /// The model judge's verdicts, oldest first (`judge::memory`): a rerun asks nothing,
    /// a push asks only new pairs.
    #[serde(rename = "j", default, skip_serializing_if = "Vec::is_empty")]
    pub judged: Vec<JudgedRecord>,
    /// The head commit (10 hex) at which the judge last finished asking: a rerun there asks
    /// nothing new, even of pairs the budget left out.
    #[serde(rename = "jh", default, skip_serializing_if = "String::is_empty")]
    pub judged_head: String,
}

/// One remembered verdict of the model judge.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct JudgedRecord {
    /// The pair's id (`jp-` and 8 characters).
    #[serde(rename = "p")]
    pub pair: String,
    #[serde(rename = "s")]
    pub same: bool,
    /// The model that answered.
    #[serde(rename = "m", default)]
    pub model: String,
    /// Its reason, clipped.
    #[serde(rename = "w", default, skip_serializing_if = "String::is_empty")]
    pub why: String,
}

/// One finding seen on the PR.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Entry {
    /// Its members' keys (`fingerprint::MemberKeys`): how it is recognised again.
    #[serde(rename = "k", default)]
    pub keys: Vec<String>,
    /// The bots that raised it: all must re-review before it can count as resolved.
    #[serde(rename = "b", default)]
    pub bots: Vec<String>,
    /// The head commit at which it was first seen.
    #[serde(rename = "s", default)]
    pub first: String,
    /// The head commit at which it was resolved; empty while open.
    #[serde(rename = "r", default, skip_serializing_if = "String::is_empty")]
    pub resolved: String,
    #[serde(rename = "t", default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    #[serde(rename = "f", default, skip_serializing_if = "String::is_empty")]
    pub file: String,
    /// Its review comments, to tell when their threads were resolved.
    #[serde(rename = "c", default, skip_serializing_if = "Vec::is_empty")]
    pub comments: Vec<u64>,
    /// Fingerprints of earlier findings that merged into this one.
    #[serde(rename = "a", default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    #[serde(rename = "x", default, skip_serializing_if = "is_false")]
    pub suppressed: bool,
}

impl Entry {
    pub fn is_open(&self) -> bool {
        self.resolved.is_empty()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct AckRecord {
    pub by: String,
    pub why: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    /// The command's comment.
    #[serde(default)]
    pub id: u64,
}

/// An accepted `/consensus split` or `same`, as the state block keeps it: the command's
/// comment and, for each fingerprint it named, that finding's members as they were when it
/// was first followed (its keys and review comments), so that it names the same findings
/// on every later run, whatever became of the fingerprint since.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CorrectionRecord {
    #[serde(rename = "do")]
    pub kind: CorrectionKind,
    pub by: String,
    /// The command's comment.
    pub id: u64,
    /// Each fingerprint named, in the command's order.
    pub of: Vec<NamedRecord>,
}

/// One fingerprint a correction named, and its members' keys and review comments.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NamedRecord {
    pub fp: String,
    #[serde(rename = "k", default)]
    pub keys: Vec<String>,
    #[serde(rename = "c", default, skip_serializing_if = "Vec::is_empty")]
    pub comments: Vec<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PermRecord {
    /// GitHub's `role_name` (or `permission`), e.g. `maintain`, `read`.
    pub role: String,
    /// Whether that role may acknowledge (`write`, `maintain`, `admin`).
    pub ok: bool,
    /// The day it was checked (YYYY-MM-DD, UTC).
    pub on: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each refusal kind is a distinct report code (as serialised) with a rule to show.
    #[test]
    fn refusal_kinds_are_unique_documented_codes() {
        let mut codes = std::collections::BTreeSet::new();
        for kind in RefusalKind::ALL {
            assert!(codes.insert(kind.as_str()), "{kind:?}");
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
            assert!(kind.rule().ends_with('.'), "{kind:?}");
        }
    }
}
