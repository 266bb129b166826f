//! The identity stage proper: fingerprints against what the last run knew, what changed,
//! which acknowledgements hold, and the state for the next run.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use chrono::NaiveDate;

use super::commands::{Command, Refused, Verb};
use super::corrections::Corrections;
use super::fingerprint::{self, MemberKeys, RECIPE_VERSION};
use super::state::{
    self, clip, AckRecord, Entry, PermRecord, State, FILE_CHARS, MAX_ALIASES, MAX_BOTS,
    MAX_COMMENTS, MAX_KEYS, STATE_VERSION, TITLE_CHARS,
};
use super::{
    Access, Ack, FindingIdentity, FindingState, IdentityInput, Lapsed, Refusal, RefusalKind,
    RunIdentity, Tracked, MAX_PERMISSION_LOOKUPS,
};
use crate::api::PrSnapshot;
use crate::model::{Coverage, SourceStatus, SynthesizedFinding};

/// Head commits are kept to this many hex digits.
const HEAD_CHARS: usize = 10;

/// Fingerprint every finding, classify what changed since the last run, apply the
/// acknowledgements in the PR's comments, and return the state for the next run.
/// `corrections` holds the PR's commands, with the `split` and `same` ones judged before
/// the findings were matched.
pub fn track(
    findings: &mut [SynthesizedFinding],
    sources: &[SourceStatus],
    snapshot: Option<&PrSnapshot>,
    input: &IdentityInput,
    corrections: &Corrections,
) -> RunIdentity {
    let head: String = snapshot
        .map(|s| s.head_sha().chars().take(HEAD_CHARS).collect())
        .unwrap_or_default();
    let (prior, notes) = carried_in(input);
    let keys: Vec<ClusterKeys> = findings.iter().map(ClusterKeys::of).collect();
    let matched = assign(&keys, &prior);
    let Named { mut seen, alias_of } = name(findings, &keys, &matched, &prior, &head);
    let (resolved, mut awaiting) =
        follow_the_missing(&prior, &matched, sources, snapshot, &head, &mut seen);
    let Judged {
        mut acks,
        refused,
        mut perms,
    } = judge_commands(corrections, &seen, &alias_of, input);
    for (login, record) in corrections.perms() {
        perms.entry(login.clone()).or_insert_with(|| record.clone());
    }
    let lapsed = lapse(&mut acks, input.today);
    mark_acknowledged(findings, &mut awaiting, &acks);
    let current: BTreeSet<String> = matched.fingerprints.iter().cloned().collect();
    let next = next_state(input, head, seen, &acks, perms, corrections, &current);
    RunIdentity {
        first_run: input.prior.state.is_none(),
        baseline: Some(next.prev.clone()).filter(|p| !p.is_empty()),
        resolved,
        awaiting,
        refused,
        lapsed,
        corrections: corrections.outcome(findings),
        notes,
        state: next,
    }
}

/// The state the last run left, and notes about it. A state of another fingerprint recipe
/// keeps only its heads and permission cache: every finding is fingerprinted afresh.
fn carried_in(input: &IdentityInput) -> (State, Vec<String>) {
    let mut notes: Vec<String> = input.prior.note.iter().cloned().collect();
    let mut prior = input.prior.state.clone().unwrap_or_default();
    if input.prior.state.is_some() && prior.recipe != RECIPE_VERSION {
        notes.push(format!(
            "the state block was written with fingerprint recipe {}; this release uses {}, so \
             every finding is fingerprinted afresh",
            prior.recipe, RECIPE_VERSION
        ));
        prior.seen.clear();
        prior.acks.clear();
    }
    (prior, notes)
}

/// This run's findings named: their entries for the next state, and which fingerprint each
/// alias now stands for.
struct Named {
    seen: BTreeMap<String, Entry>,
    alias_of: HashMap<String, String>,
}

/// Give each finding its identity (fingerprint, first sighting, aliases of the findings
/// that merged into it) and its entry for the next state.
fn name(
    findings: &mut [SynthesizedFinding],
    keys: &[ClusterKeys],
    matched: &Matched,
    prior: &State,
    head: &str,
) -> Named {
    let mut seen: BTreeMap<String, Entry> = BTreeMap::new();
    let mut alias_of: HashMap<String, String> = HashMap::new();
    let current: HashSet<&str> = matched.fingerprints.iter().map(String::as_str).collect();
    for (i, finding) in findings.iter_mut().enumerate() {
        let fp = matched.fingerprints[i].clone();
        let earlier = matched.claimed.get(&fp).and_then(|_| prior.seen.get(&fp));
        let first = earlier
            .map(|e| e.first.clone())
            .or_else(|| matched.inherited[i].clone())
            .unwrap_or_else(|| head.to_owned());
        // A fingerprint of this run is no other finding's alias (a `same` taken back: the
        // finding that had joined is its own again).
        let mut aliases = aliases_of(i, earlier, matched, prior);
        aliases.retain(|a| !current.contains(a.as_str()));
        for alias in &aliases {
            alias_of.insert(alias.clone(), fp.clone());
        }
        let new = first == head;
        seen.insert(
            fp.clone(),
            entry_for(finding, &keys[i], earlier, &first, &aliases),
        );
        finding.identity = Some(FindingIdentity {
            fingerprint: fp,
            state: if new {
                FindingState::New
            } else {
                FindingState::Open
            },
            new,
            first_seen: first,
            acknowledged: None,
            aliases,
        });
    }
    Named { seen, alias_of }
}

/// Cluster `i`'s aliases: its earlier finding's, and the earlier findings that merged into
/// it with theirs (sorted, at most `MAX_ALIASES`).
fn aliases_of(i: usize, earlier: Option<&Entry>, matched: &Matched, prior: &State) -> Vec<String> {
    let mut aliases: Vec<String> = earlier.map(|e| e.aliases.clone()).unwrap_or_default();
    for absorbed in matched.absorbed.iter().filter(|(_, into)| **into == i) {
        aliases.push(absorbed.0.clone());
        if let Some(e) = prior.seen.get(absorbed.0) {
            aliases.extend(e.aliases.iter().cloned());
        }
    }
    aliases.sort();
    aliases.dedup();
    aliases.truncate(MAX_ALIASES);
    aliases
}

/// Earlier findings not reported now: resolved (their threads resolved, or every bot that
/// raised them re-reviewed), or still open awaiting a re-review. Their entries go on into
/// `seen`; those whose bots are all no longer configured are forgotten.
fn follow_the_missing(
    prior: &State,
    matched: &Matched,
    sources: &[SourceStatus],
    snapshot: Option<&PrSnapshot>,
    head: &str,
    seen: &mut BTreeMap<String, Entry>,
) -> (Vec<Tracked>, Vec<Tracked>) {
    let coverage: HashMap<&str, Coverage> = sources
        .iter()
        .map(|s| (s.bot.as_str(), s.coverage))
        .collect();
    let threads = ThreadState::of(snapshot);
    let mut resolved = Vec::new();
    let mut awaiting = Vec::new();
    for (fp, entry) in &prior.seen {
        if matched.claimed.contains_key(fp) || matched.absorbed.contains_key(fp) {
            continue;
        }
        let mut entry = entry.clone();
        if entry.is_open() {
            // Bots no longer configured are not waited for; with none left it is forgotten.
            let configured: Vec<&String> = entry
                .bots
                .iter()
                .filter(|b| coverage.contains_key(b.as_str()))
                .collect();
            if configured.is_empty() && !entry.bots.is_empty() {
                continue;
            }
            let pending: Vec<&String> = configured
                .iter()
                .copied()
                .filter(|b| coverage.get(b.as_str()) != Some(&Coverage::Reviewed))
                .collect();
            if threads.all_resolved(&entry.comments) {
                entry.resolved = head.to_owned();
                if !entry.suppressed {
                    resolved.push(tracked(
                        fp,
                        &entry,
                        "its review thread was resolved".to_owned(),
                    ));
                }
            } else if pending.is_empty() {
                entry.resolved = head.to_owned();
                if !entry.suppressed {
                    let why = format!("no longer reported: {} re-reviewed", list(&configured));
                    resolved.push(tracked(fp, &entry, why));
                }
            } else if !entry.suppressed {
                let why = format!("awaiting a re-review by {}", list(&pending));
                awaiting.push(tracked(fp, &entry, why));
            }
        } else if entry.resolved == head && !entry.suppressed {
            // Resolved earlier at this same head: still news on this commit.
            resolved.push(tracked(fp, &entry, "resolved at this commit".to_owned()));
        }
        seen.insert(fp.clone(), entry);
    }
    (resolved, awaiting)
}

/// What the commands decided: the acknowledgements in force by fingerprint, the commands
/// not followed, and the permission answers used (the next state's cache).
#[derive(Default)]
struct Judged {
    acks: BTreeMap<String, Ack>,
    refused: Vec<Refusal>,
    perms: BTreeMap<String, PermRecord>,
}

/// Follow the commands in order (recomputed from the comments every run): each names a
/// finding of the PR (or an alias of one) and comes from a person allowed to acknowledge,
/// or it is refused with why. `split` and `same` were judged before matching: only their
/// refusals are taken, in their place among the others.
fn judge_commands(
    corrections: &Corrections,
    seen: &BTreeMap<String, Entry>,
    alias_of: &HashMap<String, String>,
    input: &IdentityInput,
) -> Judged {
    let known = |fp: &str| -> Option<String> {
        if seen.contains_key(fp) {
            return Some(fp.to_owned());
        }
        alias_of.get(fp).cloned().or_else(|| {
            seen.iter()
                .find(|(_, e)| e.aliases.iter().any(|a| a == fp))
                .map(|(k, _)| k.clone())
        })
    };
    let mut judged = Judged::default();
    for (i, command) in corrections.commands.iter().enumerate() {
        let refused = match corrections.judged(i) {
            Some(Ok(_)) => None,
            Some(Err(refused)) => Some(refused.clone()),
            None => match admissible(command, &known, input, &mut judged.perms) {
                Ok(None) => None,
                Ok(Some((verb, target))) => judged.follow(command, verb, target).err(),
                Err(refused) => Some(refused),
            },
        };
        if let Some(Refused { kind, why }) = refused {
            judged.refused.push(Refusal {
                comment_url: command.comment_url.clone(),
                ..Refusal::new(kind, why, &command.author, &command.line)
            });
        }
    }
    judged
}

/// What `command` asks and the fingerprint it names, when it may be followed: well formed,
/// naming a finding of the PR, from a person allowed to acknowledge. Else why not.
fn admissible<'c>(
    command: &'c Command,
    known: &dyn Fn(&str) -> Option<String>,
    input: &IdentityInput,
    perms: &mut BTreeMap<String, PermRecord>,
) -> Result<Option<(&'c Verb, String)>, Refused> {
    let (verb, target) = match (&command.verb, &command.fingerprint) {
        (Err(refused), _) => return Err(refused.clone()),
        (Ok(verb), Some(fp)) => match known(fp) {
            Some(target) => (verb, target),
            None => {
                return Err(Refused::new(
                    RefusalKind::UnknownFingerprint,
                    format!("no finding on this pull request has the fingerprint {fp}"),
                ))
            }
        },
        (Ok(_), None) => return Ok(None), // parse_line never yields this
    };
    if command.author_is_bot {
        return Err(Refused::new(
            RefusalKind::BotAccount,
            "bot accounts cannot acknowledge findings",
        ));
    }
    access(&command.author.trim().to_lowercase(), input, perms)?;
    Ok(Some((verb, target)))
}

impl Judged {
    /// Carry out an admissible command: an ack replaces any earlier one of the finding, an
    /// unack takes back the one in force (refused when there is none).
    fn follow(&mut self, command: &Command, verb: &Verb, target: String) -> Result<(), Refused> {
        match verb {
            Verb::Ack { reason, until } => {
                let ack = Ack {
                    by: command.author.clone(),
                    reason: reason.clone(),
                    until: until.map(|d| d.format("%Y-%m-%d").to_string()),
                    comment_url: command.comment_url.clone(),
                    comment_id: command.comment_id,
                };
                self.acks.insert(target, ack);
                Ok(())
            }
            Verb::Unack => match self.acks.remove(&target) {
                Some(_) => Ok(()),
                None => Err(Refused::new(
                    RefusalKind::NotAcknowledged,
                    format!("{target} is not acknowledged: nothing to take back"),
                )),
            },
            // Judged before matching (`Corrections`); never reaches here.
            Verb::Split | Verb::Same { .. } => Ok(()),
        }
    }
}

/// Take out the acknowledgements whose `until` day has passed, and return them.
fn lapse(acks: &mut BTreeMap<String, Ack>, today: Option<NaiveDate>) -> Vec<Lapsed> {
    let mut lapsed = Vec::new();
    acks.retain(|fp, ack| {
        let holds = ack
            .until
            .as_deref()
            .is_none_or(|until| still_holds(until, today));
        if !holds {
            lapsed.push(Lapsed {
                fingerprint: fp.clone(),
                ack: ack.clone(),
            });
        }
        holds
    });
    lapsed
}

/// Findings with an acknowledgement in force become `Acknowledged`; findings awaiting a
/// re-review carry theirs too.
fn mark_acknowledged(
    findings: &mut [SynthesizedFinding],
    awaiting: &mut [Tracked],
    acks: &BTreeMap<String, Ack>,
) {
    for finding in findings.iter_mut() {
        if let Some(identity) = finding.identity.as_mut() {
            if let Some(ack) = acks.get(&identity.fingerprint) {
                identity.state = FindingState::Acknowledged;
                identity.acknowledged = Some(ack.clone());
            }
        }
    }
    for item in awaiting {
        item.acknowledged = acks.get(&item.fingerprint).cloned();
    }
}

/// The state for the next run, bounded (`state::bound`): `current` are this run's
/// fingerprints, the last to be dropped.
fn next_state(
    input: &IdentityInput,
    head: String,
    seen: BTreeMap<String, Entry>,
    acks: &BTreeMap<String, Ack>,
    perms: BTreeMap<String, PermRecord>,
    corrections: &Corrections,
    current: &BTreeSet<String>,
) -> State {
    let mut next = State {
        v: STATE_VERSION,
        recipe: RECIPE_VERSION,
        prev: match input.prior.state.as_ref() {
            Some(p) if p.head == head => p.prev.clone(),
            Some(p) => p.head.clone(),
            None => String::new(),
        },
        head,
        seen,
        acks: acks
            .iter()
            .map(|(fp, a)| {
                let record = AckRecord {
                    by: a.by.clone(),
                    why: a.reason.clone(),
                    until: a.until.clone(),
                    id: a.comment_id,
                };
                (fp.clone(), record)
            })
            .collect(),
        perms,
        corrections: corrections.records(),
        judged: Vec::new(),
        judged_head: String::new(),
    };
    let memory = match &input.judged {
        Some(memory) => memory.clone(),
        None => crate::judge::memory::Memory::of(input.prior.state.as_ref()),
    };
    next.judged = memory.records;
    next.judged_head = memory.head;
    state::bound(&mut next, current, state::MAX_CHARS);
    next
}

/// Whether `login` may acknowledge or correct a merge: this run's lookup, else the cache
/// (fresh, or any age offline). Records what was used for the next state's cache.
pub(super) fn access(
    login: &str,
    input: &IdentityInput,
    perms: &mut BTreeMap<String, PermRecord>,
) -> Result<(), Refused> {
    let unchecked = |why: String| Err(Refused::new(RefusalKind::PermissionUnchecked, why));
    let today = input
        .today
        .map(|d| d.format("%Y-%m-%d").to_string())
        .unwrap_or_default();
    let found = match input.permissions.get(login) {
        Some(found) => {
            if let Access::Granted { role } | Access::Denied { role } = found {
                let ok = matches!(found, Access::Granted { .. });
                perms.insert(
                    login.to_owned(),
                    PermRecord {
                        role: role.clone(),
                        ok,
                        on: today,
                    },
                );
            }
            found.clone()
        }
        None => match input.prior.cached(login, input.today, input.offline) {
            Some(found) => {
                if let Some(record) = input.prior.state.as_ref().and_then(|s| s.perms.get(login)) {
                    perms.insert(login.to_owned(), record.clone());
                }
                found
            }
            None if input.offline => {
                return unchecked(format!(
                    "permission unknown offline: the state block has no record of {login} \
                     (the action checks it on GitHub)"
                ))
            }
            None => {
                return unchecked(format!(
                    "permission not checked yet (a run checks at most \
                     {MAX_PERMISSION_LOOKUPS} commenters); a later run will"
                ))
            }
        },
    };
    match found {
        Access::Granted { .. } => Ok(()),
        Access::Denied { role } => Err(Refused::new(
            RefusalKind::NoPermission,
            format!(
                "{login} has {role} permission; acknowledging or correcting a merge needs \
                 write, maintain or admin"
            ),
        )),
        Access::Unknown(why) => unchecked(format!("permission could not be checked: {why}")),
    }
}

/// An ack `until` a day holds through that day (UTC); with no date known it has lapsed.
fn still_holds(until: &str, today: Option<NaiveDate>) -> bool {
    match (super::commands::parse_date(until), today) {
        (Some(until), Some(today)) => today <= until,
        _ => false,
    }
}

fn list<S: AsRef<str>>(items: &[S]) -> String {
    items
        .iter()
        .map(AsRef::as_ref)
        .collect::<Vec<_>>()
        .join(", ")
}

fn tracked(fp: &str, entry: &Entry, why: String) -> Tracked {
    Tracked {
        fingerprint: fp.to_owned(),
        title: entry.title.clone(),
        file: entry.file.clone(),
        bots: entry.bots.clone(),
        why,
        acknowledged: None,
    }
}

fn entry_for(
    finding: &SynthesizedFinding,
    keys: &ClusterKeys,
    earlier: Option<&Entry>,
    first: &str,
    aliases: &[String],
) -> Entry {
    let c = &finding.consensus;
    // This run's keys first; earlier ones after, as long as there is room.
    let mut all: Vec<String> = keys.all().cloned().collect();
    for key in earlier.into_iter().flat_map(|e| e.keys.iter()) {
        if !all.contains(key) {
            all.push(key.clone());
        }
    }
    all.truncate(MAX_KEYS);
    let mut bots = c.detected_by.clone();
    bots.truncate(MAX_BOTS);
    let mut comments: Vec<u64> = c
        .members
        .iter()
        .filter_map(|m| m.provenance.comment_id)
        .collect();
    comments.sort_unstable();
    comments.dedup();
    comments.truncate(MAX_COMMENTS);
    Entry {
        keys: all,
        bots,
        first: first.to_owned(),
        resolved: String::new(),
        title: clip(&c.title, TITLE_CHARS),
        file: clip(&c.file, FILE_CHARS),
        comments,
        aliases: aliases.to_vec(),
        suppressed: finding.suppressed,
    }
}

/// A cluster's keys: the stable ones, the content ones, and the one it would be minted from.
struct ClusterKeys {
    stable: Vec<String>,
    content: Vec<String>,
    primary: String,
}

impl ClusterKeys {
    fn of(finding: &SynthesizedFinding) -> ClusterKeys {
        let members: Vec<(MemberKeys, Option<u64>)> = finding
            .consensus
            .members
            .iter()
            .map(|m| (MemberKeys::of(m), m.provenance.comment_id))
            .collect();
        // Minted from the member with a stable id, else the one posted first, so that a bot
        // joining later does not change it.
        let primary = members
            .iter()
            .min_by(|(a, ac), (b, bc)| {
                (a.stable.is_none(), ac.unwrap_or(u64::MAX), a.primary()).cmp(&(
                    b.stable.is_none(),
                    bc.unwrap_or(u64::MAX),
                    b.primary(),
                ))
            })
            .map(|(k, _)| k.primary().to_owned())
            .unwrap_or_else(|| fingerprint::key(&["empty", &finding.consensus.title]));
        let mut stable: Vec<String> = members
            .iter()
            .filter_map(|(k, _)| k.stable.clone())
            .collect();
        let mut content: Vec<String> = members.iter().map(|(k, _)| k.content.clone()).collect();
        stable.sort();
        stable.dedup();
        content.sort();
        content.dedup();
        ClusterKeys {
            stable,
            content,
            primary,
        }
    }

    fn all(&self) -> impl Iterator<Item = &String> {
        self.stable.iter().chain(self.content.iter())
    }
}

/// How the clusters of this run map onto the fingerprints of the last.
struct Matched {
    fingerprints: Vec<String>,
    /// Earlier fingerprints taken over, by the cluster that took each.
    claimed: HashMap<String, usize>,
    /// Earlier fingerprints whose keys now sit in a cluster that kept another fingerprint
    /// (two findings merged), by that cluster.
    absorbed: HashMap<String, usize>,
    /// For a cluster that matched an earlier finding already taken (a split): that
    /// finding's first sighting.
    inherited: Vec<Option<String>>,
}

/// A fingerprint minted from one of its own keys first, then stable keys, then content
/// keys: each cluster takes over the earlier fingerprint its keys match best (more keys in
/// common, open before resolved, then fingerprint order); an earlier fingerprint goes to one
/// cluster only. The rest are minted from their primary
/// key, with a counter when two would collide.
fn assign(keys: &[ClusterKeys], prior: &State) -> Matched {
    let mut index: HashMap<&str, Vec<&str>> = HashMap::new();
    for (fp, entry) in &prior.seen {
        for key in &entry.keys {
            index.entry(key.as_str()).or_default().push(fp.as_str());
        }
    }
    let n = keys.len();
    let mut fingerprints: Vec<Option<String>> = vec![None; n];
    let mut claimed: HashMap<String, usize> = HashMap::new();
    let mut inherited: Vec<Option<String>> = vec![None; n];
    let candidates = |cluster_keys: &[String]| -> Vec<String> {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for key in cluster_keys {
            for fp in index.get(key.as_str()).into_iter().flatten() {
                *counts.entry(fp).or_default() += 1;
            }
        }
        let mut ranked: Vec<(&str, usize)> = counts.into_iter().collect();
        ranked.sort_by_key(|(fp, count)| {
            let open = prior.seen.get(*fp).is_some_and(Entry::is_open);
            (std::cmp::Reverse(*count), !open, *fp)
        });
        ranked.into_iter().map(|(fp, _)| fp.to_owned()).collect()
    };
    for pass in [Pass::Own, Pass::Stable, Pass::Content] {
        for (i, cluster) in keys.iter().enumerate() {
            if fingerprints[i].is_some() {
                continue;
            }
            let ranked = match pass {
                // An earlier fingerprint minted from one of the cluster's own keys: after a
                // split, the fingerprint stays with the piece holding the finding it was
                // minted from, whatever the order of the pieces.
                Pass::Own => {
                    let all: Vec<String> = cluster.all().cloned().collect();
                    let mut owned = candidates(&all);
                    owned.retain(|fp| {
                        fp.strip_prefix(fingerprint::PREFIX)
                            .is_some_and(|key| all.iter().any(|k| k == key))
                    });
                    owned
                }
                Pass::Stable => candidates(&cluster.stable),
                Pass::Content => candidates(&cluster.content),
            };
            match ranked.iter().find(|fp| !claimed.contains_key(*fp)) {
                Some(fp) => {
                    claimed.insert(fp.clone(), i);
                    fingerprints[i] = Some(fp.clone());
                }
                None if matches!(pass, Pass::Own) => {}
                None => {
                    if inherited[i].is_none() {
                        inherited[i] = ranked
                            .first()
                            .and_then(|fp| prior.seen.get(fp))
                            .map(|e| e.first.clone());
                    }
                }
            }
        }
    }
    let mut used: HashSet<String> = claimed.keys().cloned().collect();
    for (i, cluster) in keys.iter().enumerate() {
        if fingerprints[i].is_some() {
            continue;
        }
        let mut fp = fingerprint::from_key(&cluster.primary);
        let mut counter = 2u32;
        while used.contains(&fp) {
            fp = fingerprint::from_key(&fingerprint::key(&[
                "again",
                &cluster.primary,
                &counter.to_string(),
            ]));
            counter += 1;
        }
        if prior.seen.contains_key(&fp) {
            // Its keys were trimmed from the state, or a 40-bit collision: the same name.
            claimed.insert(fp.clone(), i);
        }
        used.insert(fp.clone());
        fingerprints[i] = Some(fp);
    }
    let mut cluster_of: HashMap<&str, usize> = HashMap::new();
    for (i, cluster) in keys.iter().enumerate() {
        for key in cluster.all() {
            cluster_of.entry(key.as_str()).or_insert(i);
        }
    }
    // An earlier finding merged into a cluster when one of its keys, which the cluster's
    // own earlier finding did not have, is now in the cluster. (A duplicate with the same
    // keys as the one kept has not merged: it is gone.) A key another earlier finding's
    // fingerprint was minted from is that finding's, even when the kept one still lists it
    // (a piece split off and joined again: its fingerprint becomes an alias, it is not
    // resolved).
    let kept_keys = |i: usize| -> HashSet<&str> {
        claimed
            .iter()
            .filter(|(_, c)| **c == i)
            .filter_map(|(fp, _)| prior.seen.get(fp).map(|e| (fp, e)))
            .flat_map(|(fp, e)| {
                e.keys.iter().map(String::as_str).filter(move |k| {
                    let owner = fingerprint::from_key(k);
                    owner == *fp || !prior.seen.contains_key(&owner)
                })
            })
            .collect()
    };
    let mut absorbed = HashMap::new();
    for (fp, entry) in &prior.seen {
        if claimed.contains_key(fp) {
            continue;
        }
        let merged_into = entry
            .keys
            .iter()
            .filter_map(|k| cluster_of.get(k.as_str()).map(|i| (*i, k.as_str())))
            .filter(|(i, k)| !kept_keys(*i).contains(k))
            .map(|(i, _)| i)
            .min();
        if let Some(i) = merged_into {
            absorbed.insert(fp.clone(), i);
        }
    }
    Matched {
        fingerprints: fingerprints
            .into_iter()
            .map(Option::unwrap_or_default)
            .collect(),
        claimed,
        absorbed,
        inherited,
    }
}

#[derive(Clone, Copy)]
enum Pass {
    Own,
    Stable,
    Content,
}

/// Which review comments sit in resolved threads (GraphQL's `isResolved`).
struct ThreadState {
    resolved: HashSet<u64>,
    known: HashSet<u64>,
}

impl ThreadState {
    fn of(snapshot: Option<&PrSnapshot>) -> ThreadState {
        let mut resolved = HashSet::new();
        let mut known = HashSet::new();
        for thread in snapshot
            .and_then(|s| s.review_threads.as_ref())
            .into_iter()
            .flatten()
        {
            for id in thread.comments.nodes.iter().filter_map(|c| c.database_id) {
                known.insert(id);
                if thread.is_resolved {
                    resolved.insert(id);
                }
            }
        }
        ThreadState { resolved, known }
    }

    /// Some of `comments` are in threads, and every one of those is resolved.
    fn all_resolved(&self, comments: &[u64]) -> bool {
        let in_threads: Vec<&u64> = comments.iter().filter(|c| self.known.contains(c)).collect();
        !in_threads.is_empty() && in_threads.iter().all(|c| self.resolved.contains(c))
    }
}

#[cfg(test)]
mod tests;
