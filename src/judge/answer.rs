//! Reading what the judge answered. An answer is untrusted text: only a verdict on a pair
//! that was asked counts, once; unknown and repeated ids, malformed verdicts, prose,
//! invalid JSON and oversized answers are ignored and counted, and the fitted model's
//! decision stands for every pair left unanswered.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::Answer;
use crate::render::escape;

/// An answer's content longer than this is not read at all.
pub const MAX_ANSWER_CHARS: usize = 64 * 1024;
/// Words of a verdict's reason kept.
pub const WHY_WORDS: usize = 20;
/// Characters of a reason kept, whatever its words.
pub const WHY_CHARS: usize = 200;

/// The verdicts read from one answer, and what was left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Read {
    pub answers: Vec<Answer>,
    /// Verdicts left out: an id never asked or given twice, a verdict without a boolean
    /// `same`.
    pub ignored: usize,
    /// Why nothing could be read (our own text), when nothing could.
    pub problem: Option<String>,
}

impl Read {
    fn problem(text: &str) -> Read {
        Read {
            problem: Some(text.to_owned()),
            ..Read::default()
        }
    }
}

/// The verdicts in a chat-completions response body (`choices[0].message.content`).
pub fn read_completion(body: &str, asked: &[&str], model: &str) -> Read {
    let Ok(value) = serde_json::from_str::<Value>(body) else {
        return Read::problem("the endpoint's answer is not JSON");
    };
    match value
        .pointer("/choices/0/message/content")
        .and_then(Value::as_str)
    {
        Some(content) => read_content(content, asked, model),
        None => Read::problem("the endpoint's answer has no message content"),
    }
}

/// The verdicts in a message's content: one JSON object `{"verdicts": [...]}`, bare or in
/// a ```json fence.
pub fn read_content(content: &str, asked: &[&str], model: &str) -> Read {
    if content.chars().count() > MAX_ANSWER_CHARS {
        return Read::problem("the answer was oversized");
    }
    let Some(document) = json_document(content) else {
        return Read::problem("the answer was prose, not the verdicts' JSON");
    };
    let Ok(value) = serde_json::from_str::<Value>(document) else {
        return Read::problem("the answer was not valid JSON");
    };
    let Some(items) = value.get("verdicts").and_then(Value::as_array) else {
        return Read::problem("the answer had no `verdicts` list");
    };
    let asked: BTreeSet<&str> = asked.iter().copied().collect();
    let mut by_id: BTreeMap<&str, Vec<&Value>> = BTreeMap::new();
    let mut read = Read::default();
    for item in items {
        match item.get("id").and_then(Value::as_str) {
            Some(id) if asked.contains(id) => by_id.entry(id).or_default().push(item),
            _ => read.ignored += 1,
        }
    }
    for (id, given) in by_id {
        // An id given twice may say two things: neither is taken.
        if given.len() > 1 {
            read.ignored += given.len();
            continue;
        }
        let item = given[0];
        let Some(same) = item.get("same").and_then(Value::as_bool) else {
            read.ignored += 1;
            continue;
        };
        let confidence = item
            .get("confidence")
            .and_then(Value::as_f64)
            .filter(|c| (0.0..=1.0).contains(c));
        let why = item.get("why").and_then(Value::as_str).unwrap_or_default();
        read.answers.push(Answer {
            id: id.to_owned(),
            same,
            confidence,
            why: clean_why(why),
            model: model.to_owned(),
        });
    }
    read
}

/// The JSON object in `content`: the whole of it, or the first fenced block.
fn json_document(content: &str) -> Option<&str> {
    let trimmed = content.trim();
    if trimmed.starts_with('{') {
        return Some(trimmed);
    }
    let start = trimmed.find("```")?;
    let after = &trimmed[start + 3..];
    let body_start = after.find('\n')? + 1;
    let body = &after[body_start..];
    let end = body.find("```")?;
    let inner = body[..end].trim();
    inner.starts_with('{').then_some(inner)
}

/// A reason as kept: one line, no control characters, at most [`WHY_WORDS`] words.
pub fn clean_why(why: &str) -> String {
    let words: Vec<&str> = why.split_whitespace().collect();
    let mut line = words[..words.len().min(WHY_WORDS)].join(" ");
    if words.len() > WHY_WORDS {
        line.push('…');
    }
    escape::one_line(&line, WHY_CHARS)
}

/// Recorded verdicts (`render --judge-answers FILE`): one [`Answer`] a line, JSON; blank
/// lines skipped. The error names the line.
pub fn read_recorded(text: &str) -> Result<Vec<Answer>, String> {
    let mut out = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let mut answer: Answer = serde_json::from_str(line)
            .map_err(|e| format!("line {}: not a verdict ({e})", number + 1))?;
        answer.why = clean_why(&answer.why);
        out.push(answer);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ASKED: &[&str] = &["jp-a", "jp-b", "jp-c"];

    fn completion(content: &str) -> String {
        serde_json::json!({"choices": [{"message": {"role": "assistant", "content": content}}]})
            .to_string()
    }

    #[test]
    fn only_verdicts_on_asked_pairs_count_once_each() {
        let content = r#"{"verdicts": [
            {"id": "jp-a", "same": true, "confidence": 0.8, "why": "Both say the regex misses `1)`."},
            {"id": "jp-zz", "same": true, "confidence": 1, "why": "never asked"},
            {"id": "jp-b", "same": false, "confidence": 0.7, "why": "first"},
            {"id": "jp-b", "same": true, "confidence": 0.7, "why": "second"},
            {"id": "jp-c", "same": "yes", "why": "not a boolean"}]}"#;
        let read = read_completion(&completion(content), ASKED, "m");
        assert_eq!(read.problem, None);
        assert_eq!(read.answers.len(), 1);
        assert_eq!(read.answers[0].id, "jp-a");
        assert_eq!(read.answers[0].model, "m");
        assert_eq!(read.answers[0].confidence, Some(0.8));
        assert_eq!(read.ignored, 4, "the unknown id, both jp-b, jp-c");
    }

    #[test]
    fn a_fenced_answer_is_read_and_prose_or_broken_json_is_not() {
        let fenced = "Here you go:\n```json\n{\"verdicts\": [{\"id\": \"jp-c\", \"same\": false, \"confidence\": 0.9, \"why\": \"different\"}]}\n```";
        let read = read_content(fenced, ASKED, "m");
        assert_eq!(read.answers.len(), 1);
        assert!(!read.answers[0].same);
        for (content, says) in [
            ("They are all the same defect.", "prose"),
            ("{\"verdicts\": [", "not valid JSON"),
            ("{\"answers\": []}", "no `verdicts`"),
        ] {
            let read = read_content(content, ASKED, "m");
            assert!(read.answers.is_empty());
            assert!(read.problem.as_deref().unwrap().contains(says), "{read:?}");
        }
        let huge = format!(
            "{{\"verdicts\": [], \"pad\": \"{}\"}}",
            "x".repeat(MAX_ANSWER_CHARS)
        );
        assert!(read_content(&huge, ASKED, "m")
            .problem
            .unwrap()
            .contains("oversized"));
        assert!(read_completion("<html>", ASKED, "m")
            .problem
            .unwrap()
            .contains("not JSON"));
    }

    #[test]
    fn a_reason_is_one_clean_line_of_at_most_twenty_words() {
        let why = clean_why(&format!("line\nbreak\u{1b}[31m {}", "word ".repeat(40)));
        assert!(!why.contains('\n') && !why.contains('\u{1b}'), "{why}");
        assert_eq!(why.split_whitespace().count(), WHY_WORDS);
        assert!(why.ends_with('…'));
    }

    #[test]
    fn recorded_answers_are_one_verdict_a_line() {
        let text = "{\"id\": \"jp-a\", \"same\": true, \"why\": \"x\", \"model\": \"claude\"}\n\n{\"id\": \"jp-b\", \"same\": false}\n";
        let answers = read_recorded(text).unwrap();
        assert_eq!(answers.len(), 2);
        assert_eq!(answers[0].model, "claude");
        let err = read_recorded("{\"id\": \"jp-a\"}\nnot json").unwrap_err();
        assert!(err.starts_with("line 1:"), "{err}");
    }
}
