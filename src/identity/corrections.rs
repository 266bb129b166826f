//! `/consensus split <fingerprint>` and `/consensus same <fingerprint> <fingerprint>`: a
//! person corrects a merge (CONTRACT section 8, docs/identity.md section 5). Unlike acks,
//! these are decided before the findings are matched, since they change the clusters: each
//! command is judged like an ack (well formed, a person, write access), its fingerprints are
//! resolved through the state block of our previous comment (never through this run's
//! clusters: after a split the fingerprint may name a finding that no longer exists as it
//! was), and it becomes pairs of finding indices the `issue` matching keeps apart or puts
//! together ([`Constraints`]). Pure: the edge has read the comments, the state and the
//! permissions.
//!
//! A fingerprint stands for the members' keys its finding had (`Entry::keys`, stable and
//! content keys, no lines): the findings of this run with one of those keys are its
//! members now. When several findings of this run share a key (a bot raising the same title
//! in several places of a file), the ones whose review comment the finding had are taken,
//! when any is. The first run that follows a command keeps these keys and comments in the
//! state block ([`CorrectionRecord`]); later runs resolve the command through that record,
//! so it names the same findings while its comment exists. Deleting the comment undoes it.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::commands::{read_commands, Command, Refused, Verb};
use super::fingerprint::{MemberKeys, RECIPE_VERSION};
use super::state::{CorrectionRecord, Entry, NamedRecord, PermRecord, State, MAX_COMMENTS};
use super::track::access;
use super::IdentityInput;
use crate::api::PrSnapshot;
use crate::consensus::Constraints;
use crate::model::identity::{Correction, CorrectionKind, RefusalKind};
use crate::model::{NormalizedFinding, SynthesizedFinding};

/// `split` and `same` commands one pull request keeps at most; later ones are refused.
pub const MAX_CORRECTIONS: usize = 20;

/// Findings of this run one named fingerprint stands for at most.
const MAX_MEMBERS: usize = 32;

/// The PR's commands, with the `split` and `same` ones judged before matching.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Corrections {
    /// Every `/consensus` command of the PR, oldest first: `track` follows the acks among
    /// them and reports the refusals of all, in this order.
    pub commands: Vec<Command>,
    /// By command index: what became of each well-formed `split` or `same` (`None` for the
    /// other commands).
    judged: Vec<Option<Result<CorrectionRecord, Refused>>>,
    /// Permission answers used, for the next state's cache.
    perms: BTreeMap<String, PermRecord>,
    /// Whether the matching obeys corrections (`issue`); `seed` matching is exactly the
    /// seed's rule and ignores them.
    pub obeyed: bool,
}

/// One finding's identity keys and review comment, to tell which named finding it belongs
/// to.
struct Keys {
    stable: Option<String>,
    content: String,
    comment: Option<u64>,
}

impl Keys {
    fn of(finding: &NormalizedFinding) -> Keys {
        let MemberKeys { stable, content } = MemberKeys::of(finding);
        Keys {
            stable,
            content,
            comment: finding.provenance.comment_id,
        }
    }

    fn has(&self, key: &str) -> bool {
        self.content == key || self.stable.as_deref() == Some(key)
    }

    /// Two findings with a key in common are the same finding to the fingerprint recipe (a
    /// bot repeating itself word for word): a split does not keep them apart.
    fn shares_with(&self, other: &Keys) -> bool {
        other.has(&self.content) || self.stable.as_deref().is_some_and(|k| other.has(k))
    }
}

/// Every finding's keys, and which findings hold each key.
struct KeyIndex {
    keys: Vec<Keys>,
    holders: HashMap<String, Vec<usize>>,
}

impl KeyIndex {
    fn of<'f>(findings: impl Iterator<Item = &'f NormalizedFinding>) -> KeyIndex {
        let keys: Vec<Keys> = findings.map(Keys::of).collect();
        let mut holders: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, k) in keys.iter().enumerate() {
            for key in k.stable.iter().chain([&k.content]) {
                let list = holders.entry(key.clone()).or_default();
                if list.last() != Some(&i) {
                    list.push(i);
                }
            }
        }
        KeyIndex { keys, holders }
    }

    fn holders(&self, key: &str) -> &[usize] {
        self.holders.get(key).map_or(&[], Vec::as_slice)
    }
}

impl std::ops::Index<usize> for KeyIndex {
    type Output = Keys;

    fn index(&self, i: usize) -> &Keys {
        &self.keys[i]
    }
}

impl Corrections {
    /// Read the PR's commands and judge its `split` and `same` ones against the findings of
    /// this run (before matching), the state of the last run and the permissions in
    /// `input`. `obeyed`: whether the matching will obey them.
    pub fn judge(
        snapshot: Option<&PrSnapshot>,
        findings: &[NormalizedFinding],
        input: &IdentityInput,
        obeyed: bool,
    ) -> Corrections {
        let commands = snapshot.map_or_else(Vec::new, |s| read_commands(&s.issue_comments));
        // A state of another recipe has keys this release does not make: nothing to resolve.
        let empty = State::default();
        let prior = input
            .prior
            .state
            .as_ref()
            .filter(|s| s.recipe == RECIPE_VERSION)
            .unwrap_or(&empty);
        // Keys only when there is a correction to resolve: most runs have none.
        let any = commands
            .iter()
            .any(|c| c.verb.as_ref().is_ok_and(Verb::is_correction));
        let keys = KeyIndex::of(findings.iter().filter(|_| any));
        let mut perms = BTreeMap::new();
        let mut accepted = 0;
        let judged = commands
            .iter()
            .map(|command| {
                let verdict = judge_one(command, prior, &keys, input, &mut perms)?;
                Some(verdict.and_then(|record| {
                    if accepted >= MAX_CORRECTIONS {
                        return Err(Refused::new(
                            RefusalKind::TooManyCorrections,
                            format!(
                                "{MAX_CORRECTIONS} split and same commands are followed \
                                 already on this pull request"
                            ),
                        ));
                    }
                    accepted += 1;
                    Ok(record)
                }))
            })
            .collect();
        Corrections {
            commands,
            judged,
            perms,
            obeyed,
        }
    }

    /// What became of command `i` when it is a well-formed `split` or `same`.
    pub(super) fn judged(&self, i: usize) -> Option<&Result<CorrectionRecord, Refused>> {
        self.judged.get(i).and_then(Option::as_ref)
    }

    /// The corrections followed, in the order they were said, each with its command.
    fn accepted(&self) -> impl Iterator<Item = (&Command, &CorrectionRecord)> {
        self.commands
            .iter()
            .zip(&self.judged)
            .filter_map(|(command, judged)| match judged {
                Some(Ok(record)) => Some((command, record)),
                _ => None,
            })
    }

    /// The records the next state keeps, in order.
    pub(super) fn records(&self) -> Vec<CorrectionRecord> {
        self.accepted().map(|(_, record)| record.clone()).collect()
    }

    /// The permission answers used, for the next state's cache.
    pub(super) fn perms(&self) -> &BTreeMap<String, PermRecord> {
        &self.perms
    }

    /// The pairs of `findings` (indices; the vector the engine is given) the matching
    /// keeps apart (`split`: every two members of the finding that share no key) and puts
    /// together (`same`: every member of both with the first).
    pub fn constraints(&self, findings: &[NormalizedFinding]) -> Constraints {
        let mut constraints = Constraints::default();
        if self.accepted().next().is_none() {
            return constraints;
        }
        let keys = KeyIndex::of(findings.iter());
        for (_, record) in self.accepted() {
            match record.kind {
                CorrectionKind::Split => {
                    let members = select(&record.of[0], &keys);
                    for (n, &a) in members.iter().enumerate() {
                        for &b in &members[n + 1..] {
                            if !keys[a].shares_with(&keys[b]) {
                                constraints.apart.push((a, b));
                            }
                        }
                    }
                }
                CorrectionKind::Same => {
                    let mut members: Vec<usize> = record
                        .of
                        .iter()
                        .flat_map(|named| select(named, &keys))
                        .collect();
                    members.sort_unstable();
                    members.dedup();
                    if let [first, rest @ ..] = &members[..] {
                        constraints
                            .together
                            .extend(rest.iter().map(|&other| (*first, other)));
                    }
                }
            }
        }
        constraints
    }

    /// The corrections in force as this run's findings show them: which findings hold
    /// their members, and whether the findings are as they ask (with why not).
    pub(super) fn outcome(&self, findings: &[SynthesizedFinding]) -> Vec<Correction> {
        if self.accepted().next().is_none() {
            return Vec::new();
        }
        // Every member of every finding, by the finding that holds it.
        let mut holder = Vec::new();
        let mut members = Vec::new();
        for (i, finding) in findings.iter().enumerate() {
            for member in &finding.consensus.members {
                holder.push(i);
                members.push(member);
            }
        }
        let keys = KeyIndex::of(members.iter().copied());
        self.accepted()
            .map(|(command, record)| {
                let groups: Vec<Vec<usize>> =
                    record.of.iter().map(|named| select(named, &keys)).collect();
                let mut held: Vec<usize> = groups.iter().flatten().map(|&m| holder[m]).collect();
                held.sort_unstable();
                held.dedup();
                let applied = match record.kind {
                    CorrectionKind::Split => {
                        let group = &groups[0];
                        group.iter().enumerate().all(|(n, &a)| {
                            group[n + 1..]
                                .iter()
                                .all(|&b| holder[a] != holder[b] || keys[a].shares_with(&keys[b]))
                        })
                    }
                    CorrectionKind::Same => held.len() == 1 && groups.iter().all(|g| !g.is_empty()),
                };
                let note = (!applied || !self.obeyed).then(|| {
                    // Another correction that keeps two of these findings apart.
                    let kept_apart = self.accepted().any(|(_, other)| {
                        other.kind == CorrectionKind::Split && {
                            let split = select(&other.of[0], &keys);
                            groups.iter().flatten().any(|m| split.contains(m))
                        }
                    });
                    self.why_not(record, &groups, kept_apart)
                });
                Correction {
                    kind: record.kind,
                    fingerprints: record.of.iter().map(|n| n.fp.clone()).collect(),
                    by: command.author.clone(),
                    comment_url: command.comment_url.clone(),
                    comment_id: command.comment_id,
                    findings: held
                        .iter()
                        .filter_map(|&i| findings[i].fingerprint().map(str::to_owned))
                        .collect(),
                    applied: applied && self.obeyed,
                    note,
                }
            })
            .collect()
    }

    /// Why a correction in force does not show in this run's findings.
    fn why_not(&self, record: &CorrectionRecord, groups: &[Vec<usize>], split: bool) -> String {
        if !self.obeyed {
            return "not applied: `matching: seed` is exactly the seed's rule and ignores \
                    corrections"
                .to_owned();
        }
        let gone: Vec<&str> = record
            .of
            .iter()
            .zip(groups)
            .filter(|(_, g)| g.is_empty())
            .map(|(n, _)| n.fp.as_str())
            .collect();
        if gone.len() == record.of.len() {
            return "its findings are no longer reported".to_owned();
        }
        if !gone.is_empty() {
            return format!("{} is no longer reported", gone.join(", "));
        }
        if record.kind == CorrectionKind::Split {
            // `issue` matching always keeps a split's pairs apart: not seen in practice.
            return "not applied".to_owned();
        }
        if split {
            return "not applied: a `/consensus split` keeps them apart".to_owned();
        }
        "not applied: some are pre-existing findings, matched apart from the others".to_owned()
    }
}

/// Judge one command: `None` when it is not a well-formed `split` or `same` (acks, and
/// malformed lines, are `track`'s), else the record to follow it by or why not. In the
/// order acks are judged: what it names, who sent it, their permission; then, for a command
/// followed for the first time, whether it changes anything.
fn judge_one(
    command: &Command,
    prior: &State,
    keys: &KeyIndex,
    input: &IdentityInput,
    perms: &mut BTreeMap<String, PermRecord>,
) -> Option<Result<CorrectionRecord, Refused>> {
    let (Ok(verb), Some(first)) = (&command.verb, &command.fingerprint) else {
        return None;
    };
    let (kind, named) = match verb {
        Verb::Split => (CorrectionKind::Split, vec![first.clone()]),
        Verb::Same { other } => (CorrectionKind::Same, vec![first.clone(), other.clone()]),
        Verb::Ack { .. } | Verb::Unack => return None,
    };
    let judged = (|| {
        let (record, kept) = resolve(command, kind, &named, prior)?;
        if command.author_is_bot {
            return Err(Refused::new(
                RefusalKind::BotAccount,
                "bot accounts cannot correct a merge",
            ));
        }
        access(&command.author.trim().to_lowercase(), input, perms)?;
        if !kept {
            changes_something(&record, prior, keys)?;
        }
        Ok(record)
    })();
    Some(judged)
}

/// The record to follow `command` by, and whether the last state kept it: the kept one
/// (same comment, verb and fingerprints), else one made from the last state's findings.
/// Refused when a fingerprint names no finding the last run knew.
fn resolve(
    command: &Command,
    kind: CorrectionKind,
    named: &[String],
    prior: &State,
) -> Result<(CorrectionRecord, bool), Refused> {
    let kept = prior.corrections.iter().find(|r| {
        r.id == command.comment_id && r.kind == kind && r.of.iter().map(|n| &n.fp).eq(named.iter())
    });
    if let Some(record) = kept {
        return Ok((record.clone(), true));
    }
    let mut of = Vec::with_capacity(named.len());
    for fp in named {
        let Some((_, entry)) = earlier(prior, fp) else {
            return Err(Refused::new(
                RefusalKind::UnknownFingerprint,
                format!(
                    "no finding of an earlier run on this pull request has the fingerprint \
                     {fp} (the state block of our comment has no record of it)"
                ),
            ));
        };
        let mut comments = entry.comments.clone();
        comments.truncate(MAX_COMMENTS);
        of.push(NamedRecord {
            fp: fp.clone(),
            keys: entry.keys.clone(),
            comments,
        });
    }
    let record = CorrectionRecord {
        kind,
        by: command.author.clone(),
        id: command.comment_id,
        of,
    };
    Ok((record, false))
}

/// A new `split` must name a finding several findings reported now were merged into, and a
/// new `same` two different findings.
fn changes_something(
    record: &CorrectionRecord,
    prior: &State,
    keys: &KeyIndex,
) -> Result<(), Refused> {
    let nothing = |why: String| Err(Refused::new(RefusalKind::NothingToCorrect, why));
    match (record.kind, &record.of[..]) {
        (CorrectionKind::Same, [a, b]) => {
            let (one, other) = (earlier(prior, &a.fp), earlier(prior, &b.fp));
            match (one, other) {
                (Some((x, _)), Some((y, _))) if x == y => nothing(format!(
                    "{} and {} are one finding already ({x})",
                    a.fp, b.fp
                )),
                _ => Ok(()),
            }
        }
        (CorrectionKind::Split, [named]) if distinct(&select(named, keys), keys) < 2 => {
            nothing(format!(
                "{} is not a merge of several findings reported now: nothing to split",
                named.fp
            ))
        }
        _ => Ok(()),
    }
}

/// The last state's finding `fp` names: its own entry, else the one it is an alias of.
fn earlier<'s>(prior: &'s State, fp: &str) -> Option<(&'s str, &'s Entry)> {
    prior
        .seen
        .get_key_value(fp)
        .or_else(|| {
            prior
                .seen
                .iter()
                .find(|(_, e)| e.aliases.iter().any(|a| a == fp))
        })
        .map(|(name, entry)| (name.as_str(), entry))
}

/// The findings (indices into `keys`) `named` stands for: those with one of its keys; of
/// several sharing a key, those on one of its review comments when any is. At most
/// [`MAX_MEMBERS`], sorted.
fn select(named: &NamedRecord, keys: &KeyIndex) -> Vec<usize> {
    let mut out = BTreeSet::new();
    for key in &named.keys {
        let holders = keys.holders(key);
        let on_its_comments: Vec<usize> = holders
            .iter()
            .copied()
            .filter(|&i| keys[i].comment.is_some_and(|c| named.comments.contains(&c)))
            .collect();
        if holders.len() > 1 && !on_its_comments.is_empty() {
            out.extend(on_its_comments);
        } else {
            out.extend(holders);
        }
    }
    out.into_iter().take(MAX_MEMBERS).collect()
}

/// How many of `members` are distinct findings (no key in common with an earlier one).
fn distinct(members: &[usize], keys: &KeyIndex) -> usize {
    let mut firsts: Vec<usize> = Vec::new();
    for &m in members {
        if !firsts.iter().any(|&f| keys[f].shares_with(&keys[m])) {
            firsts.push(m);
        }
    }
    firsts.len()
}

#[cfg(test)]
mod tests;
