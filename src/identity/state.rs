//! The state block: what one run leaves for the next, as JSON in an HTML comment at the end
//! of our own sticky comment (docs/identity.md). Versioned, size-bounded, inert: the JSON
//! carries no `<`, `>`, `&` or `@` (they are `\u003c`-style escapes), so nothing in it can
//! end the comment early, render or mention anyone.

use std::collections::BTreeSet;

use serde::Serialize;

use super::corrections::MAX_CORRECTIONS;
use super::fingerprint;
use crate::model::identity::CorrectionKind;
pub use crate::model::identity::{
    AckRecord, CorrectionRecord, Entry, NamedRecord, PermRecord, State,
};
use crate::render::escape::json_for_html_comment;

/// The block's format version.
pub const STATE_VERSION: u32 = 1;

/// How the block opens; it ends at the next `-->`.
pub const OPENER: &str = "<!-- review-consensus-state ";
const CLOSER: &str = " -->";

/// The block never grows past this many characters, so it always fits beside the findings
/// in GitHub's 65,536-character comment.
pub const MAX_CHARS: usize = 24_000;

/// Field caps that keep one entry small.
pub const MAX_KEYS: usize = 8;
pub const MAX_BOTS: usize = 8;
pub const MAX_COMMENTS: usize = 8;
pub const MAX_ALIASES: usize = 4;
pub const TITLE_CHARS: usize = 60;
pub const FILE_CHARS: usize = 160;
pub const REASON_CHARS: usize = 300;
/// Entries beyond this are not kept, whatever their size.
pub const MAX_ENTRIES: usize = 1_000;

/// The state block for `state`, within [`MAX_CHARS`] (trim it with [`bound`] first).
pub fn encode(state: &State) -> String {
    // Our own types always serialise (string keys only).
    let json = serde_json::to_string(state).unwrap_or_default();
    format!("{OPENER}{}{CLOSER}", json_for_html_comment(&json))
}

/// The state carried by a comment body: `Ok(None)` when it has no block, `Err` (why) when
/// the block cannot be read. Only ever call it on our own comment.
pub fn decode(body: &str) -> Result<Option<State>, String> {
    let Some(start) = body.rfind(OPENER) else {
        return Ok(None);
    };
    let rest = &body[start + OPENER.len()..];
    let Some(end) = rest.find("-->") else {
        return Err("the state block is not closed".to_owned());
    };
    let json = rest[..end].trim();
    let value: serde_json::Value = serde_json::from_str(json)
        .map_err(|err| format!("the state block is not valid JSON: {err}"))?;
    let version = value.get("v").and_then(serde_json::Value::as_u64);
    if version != Some(u64::from(STATE_VERSION)) {
        return Err(match version {
            Some(v) => format!(
                "the state block is version {v}; this release reads version {STATE_VERSION}"
            ),
            None => "the state block has no version".to_owned(),
        });
    }
    let mut state: State = serde_json::from_value(value)
        .map_err(|err| format!("the state block is not valid: {err}"))?;
    state.sanitise();
    Ok(Some(state))
}

impl State {
    /// Keep only well-formed names: fingerprints and keys in the recipe's alphabet, heads in
    /// hex. They are rendered in code spans, so nothing else may get through, even from a
    /// comment someone with admin rights edited.
    fn sanitise(&mut self) {
        let fingerprint = |fp: &str| fingerprint::parse(fp).as_deref() == Some(fp);
        let key = |k: &str| fingerprint(&fingerprint::from_key(k));
        let head = |h: &str| h.len() <= 40 && h.bytes().all(|b| b.is_ascii_hexdigit());
        for field in [&mut self.head, &mut self.prev] {
            if !head(field) {
                field.clear();
            }
        }
        self.seen.retain(|fp, _| fingerprint(fp));
        for entry in self.seen.values_mut() {
            entry.keys.retain(|k| key(k));
            entry.aliases.retain(|a| fingerprint(a));
            for field in [&mut entry.first, &mut entry.resolved] {
                if !head(field) {
                    field.clear();
                }
            }
        }
        self.acks.retain(|fp, _| fingerprint(fp));
        // A correction names one finding (`split`) or two (`same`), each well formed.
        self.corrections.retain(|r| {
            let arity = match r.kind {
                CorrectionKind::Split => 1,
                CorrectionKind::Same => 2,
            };
            r.of.len() == arity && r.of.iter().all(|n| fingerprint(&n.fp))
        });
        self.corrections.truncate(MAX_CORRECTIONS);
        for named in self.corrections.iter_mut().flat_map(|r| r.of.iter_mut()) {
            named.keys.retain(|k| key(k));
            named.keys.truncate(MAX_KEYS);
            named.comments.truncate(MAX_COMMENTS);
        }
    }
}

/// The first `max` characters of `text`, with `…` when cut.
pub fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Drop what matters least until the encoded block fits in `max_chars`: findings resolved
/// before this head, then suppressed ones, then the permission cache, the acknowledgement
/// records, findings resolved at this head, findings no longer reported, the findings of
/// this run, and last the corrections (the latest first; at most [`MAX_CORRECTIONS`], they
/// fit long before). Within a class, in fingerprint order (deterministic).
pub fn bound(state: &mut State, current: &BTreeSet<String>, max_chars: usize) {
    let excess = state.seen.len().saturating_sub(MAX_ENTRIES);
    if excess > 0 {
        let drop: Vec<String> = victims(state, current)
            .into_iter()
            .filter_map(|v| match v {
                Victim::Seen(fp) => Some(fp),
                Victim::Perm(_) | Victim::Ack(_) | Victim::Correction(_) | Victim::Judged => None,
            })
            .take(excess)
            .collect();
        // Dropped by count, not by size: no saving to estimate.
        for fp in drop {
            state.seen.remove(&fp);
        }
    }
    let exact = |state: &State| encode(state).chars().count();
    // Estimate each removal's saving, drop until the estimate fits, then check exactly.
    let mut size = exact(state);
    for victim in victims(state, current) {
        if size <= max_chars {
            size = exact(state);
            if size <= max_chars {
                return;
            }
        }
        size = size.saturating_sub(victim.remove(state));
    }
    // Nothing left to drop but the frame.
}

enum Victim {
    Seen(String),
    Perm(String),
    Ack(String),
    /// By index: listed from the last, so that removing one leaves the others' in place.
    Correction(usize),
    /// The judge's oldest remembered verdict (always the first left).
    Judged,
}

impl Victim {
    /// Remove it; the characters that saves (approximately: the key, value and a comma).
    fn remove(&self, state: &mut State) -> usize {
        fn cost<T: Serialize>(key: &str, value: Option<T>) -> usize {
            value.map_or(0, |v| {
                key.len()
                    + json_for_html_comment(&serde_json::to_string(&v).unwrap_or_default()).len()
                    + 4
            })
        }
        match self {
            Victim::Seen(fp) => cost(fp, state.seen.remove(fp)),
            Victim::Perm(login) => cost(login, state.perms.remove(login)),
            Victim::Ack(fp) => cost(fp, state.acks.remove(fp)),
            Victim::Correction(i) => {
                let record = (*i < state.corrections.len()).then(|| state.corrections.remove(*i));
                cost("", record)
            }
            Victim::Judged => {
                let record = (!state.judged.is_empty()).then(|| state.judged.remove(0));
                cost("", record)
            }
        }
    }
}

fn victims(state: &State, current: &BTreeSet<String>) -> Vec<Victim> {
    let seen = |pick: &dyn Fn(&str, &Entry) -> bool| -> Vec<Victim> {
        state
            .seen
            .iter()
            .filter(|(fp, e)| pick(fp, e))
            .map(|(fp, _)| Victim::Seen(fp.clone()))
            .collect()
    };
    let head = state.head.as_str();
    let mut out = Vec::new();
    out.extend(seen(&|_, e| !e.is_open() && e.resolved != head));
    out.extend(seen(&|_, e| e.is_open() && e.suppressed));
    out.extend(state.perms.keys().map(|l| Victim::Perm(l.clone())));
    // Verdicts cost a question to ask again, which findings' identities cannot be.
    out.extend(state.judged.iter().map(|_| Victim::Judged));
    out.extend(state.acks.keys().map(|fp| Victim::Ack(fp.clone())));
    out.extend(seen(&|_, e| !e.is_open() && e.resolved == head));
    out.extend(seen(&|fp, e| {
        e.is_open() && !e.suppressed && !current.contains(fp)
    }));
    out.extend(seen(&|fp, e| {
        e.is_open() && !e.suppressed && current.contains(fp)
    }));
    out.extend((0..state.corrections.len()).rev().map(Victim::Correction));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn entry(title: &str) -> Entry {
        Entry {
            keys: vec!["abcdefgh".into()],
            bots: vec!["coderabbit".into()],
            first: "8c1f0d3b6a".into(),
            title: title.into(),
            file: "app/db/queries.py".into(),
            comments: vec![2_561_302_207],
            ..Entry::default()
        }
    }

    fn state() -> State {
        let mut s = State {
            v: STATE_VERSION,
            recipe: 1,
            head: "8c1f0d3b6a".into(),
            ..State::default()
        };
        s.seen.insert(
            "rc-abcdefgh".into(),
            entry("SQL injection --> <b>x</b> & @more \u{202E}\u{1b}\u{7f}\u{85}"),
        );
        s.acks.insert(
            "rc-abcdefgh".into(),
            AckRecord {
                by: "alice".into(),
                why: "validated upstream --> really".into(),
                until: Some("2026-05-01".into()),
                id: 7,
            },
        );
        s.perms.insert(
            "alice".into(),
            PermRecord {
                role: "maintain".into(),
                ok: true,
                on: "2026-01-02".into(),
            },
        );
        s
    }

    #[test]
    fn round_trips_inertly_at_the_end_of_a_body() {
        let s = state();
        let block = encode(&s);
        assert!(block.starts_with(OPENER) && block.ends_with(" -->"));
        let inner = &block[OPENER.len()..block.len() - CLOSER.len()];
        assert!(!inner.contains(['>', '<', '&', '@']));
        assert!(
            !inner.chars().any(crate::render::escape::is_hazard),
            "{inner}"
        );
        let body = format!("<!-- review-bot-ack -->\n## verdict\n\n{block}\n");
        assert_eq!(decode(&body), Ok(Some(s)));
        assert_eq!(decode("<!-- review-bot-ack -->\nno block"), Ok(None));
    }

    /// The corrections in force round-trip; on reading, one naming a malformed fingerprint
    /// or the wrong number of them is dropped, and keys not in the recipe's alphabet go.
    #[test]
    fn corrections_round_trip_and_malformed_ones_are_dropped() {
        let named = |fp: &str| NamedRecord {
            fp: fp.into(),
            keys: vec!["abcdefgh".into(), "`oops`".into()],
            comments: vec![2_561_302_207],
        };
        let record = |kind, of: Vec<NamedRecord>| CorrectionRecord {
            kind,
            by: "@alice".into(),
            id: 9,
            of,
        };
        let mut s = state();
        s.corrections = vec![
            record(CorrectionKind::Split, vec![named("rc-abcdefgh")]),
            record(CorrectionKind::Same, vec![named("rc-abcdefgh")]),
            record(CorrectionKind::Split, vec![named("rc-`evil`")]),
            record(
                CorrectionKind::Same,
                vec![named("rc-abcdefgh"), named("rc-00000000")],
            ),
        ];
        let block = encode(&s);
        assert!(block.contains(r#""corrections":[{"do":"split","by":"\u0040alice","id":9"#));
        let read = decode(&block).unwrap().unwrap();
        assert_eq!(read.corrections.len(), 2);
        assert_eq!(read.corrections[0].kind, CorrectionKind::Split);
        assert_eq!(read.corrections[1].of[1].fp, "rc-00000000");
        assert!(read
            .corrections
            .iter()
            .flat_map(|r| &r.of)
            .all(|n| n.keys == ["abcdefgh"] && n.comments == [2_561_302_207]));
        let mut clean = read.clone();
        clean.sanitise();
        assert_eq!(decode(&encode(&clean)), Ok(Some(clean)));
    }

    #[test]
    fn names_that_are_not_ours_are_dropped_on_reading() {
        let block = format!(
            "{OPENER}{{\"v\":1,\"recipe\":1,\"prev\":\"`x`\",\"seen\":{{\"rc-1pksm0hp\":{{\"k\":[\"1pksm0hp\",\"`oops`\"],\"a\":[\"rc-`x`\"],\"s\":\"abc\"}},\"rc-`evil`\":{{}}}}}} -->"
        );
        let state = decode(&block).unwrap().unwrap();
        assert_eq!(state.prev, "");
        assert_eq!(state.seen.keys().collect::<Vec<_>>(), ["rc-1pksm0hp"]);
        let entry = &state.seen["rc-1pksm0hp"];
        assert_eq!(
            (entry.keys.len(), entry.aliases.len(), entry.first.as_str()),
            (1, 0, "abc")
        );
    }

    #[test]
    fn a_broken_block_is_an_error_saying_why() {
        let err = decode(&format!("{OPENER}{{\"v\":1,")).unwrap_err();
        assert!(err.contains("not closed"), "{err}");
        let err = decode(&format!("{OPENER}{{nope -->")).unwrap_err();
        assert!(err.contains("not valid JSON"), "{err}");
        let err = decode(&format!("{OPENER}{{\"v\":2}} -->")).unwrap_err();
        assert!(err.contains("version 2"), "{err}");
        let err = decode(&format!("{OPENER}{{\"v\":1,\"recipe\":\"x\"}} -->")).unwrap_err();
        assert!(err.contains("not valid"), "{err}");
    }

    #[test]
    fn bound_drops_old_news_first_and_keeps_this_runs_findings_longest() {
        let mut s = state();
        for i in 0..400 {
            let mut e = entry(&format!(
                "finding number {i} with a long enough title to weigh"
            ));
            if i % 4 == 0 {
                e.resolved = "0000000000".into(); // resolved on an earlier head
            }
            s.seen.insert(format!("rc-{i:08}"), e);
        }
        let current: BTreeSet<String> = (0..400)
            .filter(|i| i % 4 == 1)
            .map(|i| format!("rc-{i:08}"))
            .collect();
        bound(&mut s, &current, MAX_CHARS);
        let size = encode(&s).chars().count();
        assert!(size <= MAX_CHARS, "{size}");
        assert!(
            s.seen.values().all(Entry::is_open),
            "old resolved ones went first"
        );
        assert!(
            current.iter().all(|fp| s.seen.contains_key(fp)),
            "this run's stay"
        );
        assert!(
            s.seen.len() > 100,
            "only what was needed was dropped: {}",
            s.seen.len()
        );
    }

    fn arb_text() -> impl Strategy<Value = String> {
        prop_oneof![".{0,80}", "[-<>&!a-z ]{0,40}", Just("-->".to_owned())]
    }

    fn arb_entry() -> impl Strategy<Value = Entry> {
        (
            proptest::collection::vec("[0-9a-hjkmnp-tv-z]{8}", 0..4),
            proptest::collection::vec(arb_text(), 0..3),
            arb_text(),
            arb_text(),
            proptest::collection::vec(any::<u64>(), 0..3),
            any::<bool>(),
        )
            .prop_map(|(keys, bots, title, file, comments, suppressed)| Entry {
                keys,
                bots,
                first: "8c1f0d3b6a".into(),
                resolved: if suppressed {
                    String::new()
                } else {
                    "abc".into()
                },
                title,
                file,
                comments,
                aliases: Vec::new(),
                suppressed,
            })
    }

    proptest! {
        #[test]
        fn any_state_round_trips_and_its_block_cannot_end_early(
            seen in proptest::collection::btree_map("rc-[0-9a-hjkmnp-tv-z]{8}", arb_entry(), 0..6),
            why in arb_text(),
            login in arb_text(),
        ) {
            let mut s = State { v: STATE_VERSION, recipe: 1, seen, ..State::default() };
            s.acks.insert("rc-00000000".into(), AckRecord { by: login.clone(), why, until: None, id: 1 });
            s.perms.insert(login, PermRecord { role: "write".into(), ok: true, on: "2026-01-02".into() });
            let block = encode(&s);
            prop_assert_eq!(block.matches("-->").count(), 1);
            prop_assert!(block.ends_with("-->"));
            let body = format!("<!-- review-bot-ack -->\ntext\n{block}");
            prop_assert_eq!(decode(&body), Ok(Some(s)));
        }

        #[test]
        fn bound_always_fits(n in 0usize..300, max in 200usize..4_000) {
            let mut s = state();
            for i in 0..n {
                s.seen.insert(format!("rc-{i:08}"), entry("a title that takes some room"));
            }
            bound(&mut s, &BTreeSet::new(), max);
            let size = encode(&s).chars().count();
            // The frame and the version fields are all that cannot go.
            let frame = State { v: 1, recipe: 1, head: s.head.clone(), ..State::default() };
            let floor = encode(&frame).chars().count();
            prop_assert!(size <= max.max(floor), "{} > {}", size, max);
            prop_assert_eq!(decode(&encode(&s)), Ok(Some(s)));
        }
    }
}
