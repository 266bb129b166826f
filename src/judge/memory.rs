//! The judge's verdicts across runs, kept in the sticky comment's state block (bounded,
//! oldest dropped): a rerun at the same head asks nothing and gives the same clusters; after
//! a push only new pairs are asked.

use super::answer::clean_why;
use super::Answer;
use crate::identity::fingerprint;
use crate::model::identity::{JudgedRecord, State};

/// Verdicts the block keeps at most (the newest).
pub const MAX_REMEMBERED: usize = 120;
/// Characters of a remembered reason.
pub const REMEMBERED_WHY_CHARS: usize = 60;
/// Characters of a model name.
pub const MODEL_CHARS: usize = 60;

/// What the judge remembers going into a run, and what it leaves for the next.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Memory {
    pub records: Vec<JudgedRecord>,
    /// The head at which asking last finished (empty: never).
    pub head: String,
}

impl Memory {
    /// The memory a state block carries, well-formed records only (someone with admin
    /// rights can edit our comment).
    pub fn of(state: Option<&State>) -> Memory {
        let Some(state) = state else {
            return Memory::default();
        };
        Memory {
            records: state
                .judged
                .iter()
                .filter_map(|r| well_formed(r.clone()))
                .collect(),
            head: state.judged_head.clone(),
        }
    }

    /// The remembered verdicts, as answers.
    pub fn answers(&self) -> Vec<Answer> {
        self.records
            .iter()
            .map(|r| Answer {
                id: r.pair.clone(),
                same: r.same,
                confidence: None,
                why: r.why.clone(),
                model: r.model.clone(),
            })
            .collect()
    }

    /// Remember `answers` (this run's, in the order they were given): a pair answered again
    /// moves to the newest place; the oldest beyond [`MAX_REMEMBERED`] are dropped.
    pub fn remember(&mut self, answers: &[Answer]) {
        for answer in answers {
            let record = JudgedRecord {
                pair: answer.id.clone(),
                same: answer.same,
                model: answer.model.chars().take(MODEL_CHARS).collect(),
                why: clip(&clean_why(&answer.why), REMEMBERED_WHY_CHARS),
            };
            let Some(record) = well_formed(record) else {
                continue;
            };
            self.records.retain(|r| r.pair != record.pair);
            self.records.push(record);
        }
        let excess = self.records.len().saturating_sub(MAX_REMEMBERED);
        self.records.drain(..excess);
    }
}

/// A record with a pair id of our alphabet and a model name of plain characters.
fn well_formed(mut record: JudgedRecord) -> Option<JudgedRecord> {
    let key = record.pair.strip_prefix("jp-")?;
    let as_fingerprint = fingerprint::from_key(key);
    if fingerprint::parse(&as_fingerprint).as_deref() != Some(as_fingerprint.as_str()) {
        return None;
    }
    record.model = record
        .model
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || "/._:-".contains(*c))
        .take(MODEL_CHARS)
        .collect();
    record.why = clip(&clean_why(&record.why), REMEMBERED_WHY_CHARS);
    Some(record)
}

fn clip(text: &str, max: usize) -> String {
    crate::identity::state::clip(text, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(id: &str, same: bool) -> Answer {
        Answer {
            id: id.to_owned(),
            same,
            confidence: Some(0.9),
            why: "Both name the unbounded `multi_query_count`.".to_owned(),
            model: "openai/gpt-4.1-mini".to_owned(),
        }
    }

    #[test]
    fn the_newest_verdicts_are_kept_and_a_repeated_pair_moves_last() {
        let mut memory = Memory::default();
        memory.remember(&[answer("jp-aaaaaaaa", true), answer("jp-bbbbbbbb", false)]);
        memory.remember(&[answer("jp-aaaaaaaa", false)]);
        let ids: Vec<&str> = memory.records.iter().map(|r| r.pair.as_str()).collect();
        assert_eq!(ids, ["jp-bbbbbbbb", "jp-aaaaaaaa"]);
        assert!(!memory.records[1].same, "the later verdict wins");
        let many: Vec<Answer> = (0..MAX_REMEMBERED + 5)
            .map(|k| answer(&format!("jp-{}", fingerprint::key(&[&k.to_string()])), true))
            .collect();
        memory.remember(&many);
        assert_eq!(memory.records.len(), MAX_REMEMBERED);
        assert_eq!(memory.records.last().unwrap().pair, many.last().unwrap().id);
    }

    #[test]
    fn a_forged_record_is_dropped_and_text_is_cleaned() {
        let state = State {
            judged: vec![
                JudgedRecord {
                    pair: "jp-aaaaaaaa".into(),
                    same: true,
                    model: "gpt<script>@x".into(),
                    why: "line\nbreak".into(),
                },
                JudgedRecord {
                    pair: "rc-aaaaaaaa".into(),
                    ..JudgedRecord::default()
                },
                JudgedRecord {
                    pair: "jp-AAAA<>AA".into(),
                    ..JudgedRecord::default()
                },
            ],
            judged_head: "8c1f0d3b6a".into(),
            ..State::default()
        };
        let memory = Memory::of(Some(&state));
        assert_eq!(memory.records.len(), 1);
        assert_eq!(memory.records[0].model, "gptscriptx");
        assert_eq!(memory.records[0].why, "line break");
        assert_eq!(memory.head, "8c1f0d3b6a");
        assert_eq!(memory.answers()[0].id, "jp-aaaaaaaa");
    }
}
