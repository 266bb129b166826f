//! A JSON list read element by element from its text, so that one element that cannot be
//! built into a value loses only itself, never the list.
//!
//! `serde_json` refuses to build a value nested deeper than 128 levels (its recursion limit:
//! the guard against a stack overflow), and a whole-page `from_str::<Value>` then fails the
//! whole page. Here the page is first split into its elements' raw text, which `serde_json`
//! scans without recursion whatever the depth; each element is then built on its own, and one
//! that cannot be is an [`Element::Unbuilt`] that `parse_list` reports like any other bad
//! element. The limit itself stays: nothing here recurses deeper than it.

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

/// One element of a JSON list.
#[derive(Debug, Clone, PartialEq)]
pub enum Element {
    /// Built into a value; whether it has the expected shape is `parse_list`'s question.
    Value(Value),
    /// Valid JSON that could not be built into a value (nested deeper than the JSON reader's
    /// limit, a number out of range), with what a shallow look could read of it.
    Unbuilt {
        id: Option<u64>,
        login: Option<String>,
        reason: String,
    },
}

impl From<Value> for Element {
    fn from(value: Value) -> Element {
        Element::Value(value)
    }
}

impl Element {
    /// Its `id` (`number` for code-scanning alerts), when one can be read.
    pub fn id(&self) -> Option<u64> {
        match self {
            Element::Value(value) => value
                .get("id")
                .or_else(|| value.get("number"))
                .and_then(Value::as_u64),
            Element::Unbuilt { id, .. } => *id,
        }
    }
}

/// Why a list could not be read at all.
#[derive(Debug)]
pub enum ListError {
    /// The text is not JSON.
    NotJson(serde_json::Error),
    /// JSON, but not a list (`expected a JSON array, got an object`).
    NotList(String),
}

impl fmt::Display for ListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ListError::NotJson(err) => write!(f, "not valid JSON: {err}"),
            ListError::NotList(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for ListError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ListError::NotJson(err) => Some(err),
            ListError::NotList(_) => None,
        }
    }
}

/// The elements of the JSON array `text`; when `text` is an object, of the array reached by
/// following the members `path` (the check-runs endpoint answers `{"total_count",
/// "check_runs": [...]}`, GraphQL `{"data": {...}}`).
pub fn read_list(text: &str, path: &[&str]) -> Result<Vec<Element>, ListError> {
    let whole: &RawValue = serde_json::from_str(text).map_err(ListError::NotJson)?;
    let list = locate(whole, path)?;
    let raw: Vec<&RawValue> = serde_json::from_str(list.get()).map_err(ListError::NotJson)?;
    Ok(raw.into_iter().map(element).collect())
}

/// `whole` when it is an array, else the value at `path` when that is one.
fn locate<'a>(whole: &'a RawValue, path: &[&str]) -> Result<&'a RawValue, ListError> {
    if kind(whole) == "an array" {
        return Ok(whole);
    }
    let mut here = whole;
    for (depth, key) in path.iter().enumerate() {
        if kind(here) != "an object" {
            break;
        }
        let members: BTreeMap<String, &'a RawValue> =
            serde_json::from_str(here.get()).map_err(ListError::NotJson)?;
        here = *members.get(*key).ok_or_else(|| {
            ListError::NotList(format!(
                "expected a JSON array, got an object without `{}`",
                path[..=depth].join(".")
            ))
        })?;
    }
    match kind(here) {
        "an array" => Ok(here),
        other if path.is_empty() => Err(ListError::NotList(format!(
            "expected a JSON array, got {other}"
        ))),
        other => Err(ListError::NotList(format!(
            "expected a JSON array at `{}`, got {other}",
            path.join(".")
        ))),
    }
}

/// One element built on its own.
fn element(raw: &RawValue) -> Element {
    match serde_json::from_str::<Value>(raw.get()) {
        Ok(value) => Element::Value(value),
        Err(err) => {
            let reason = if err.to_string().contains("recursion limit") {
                "nested deeper than the JSON reader's limit of 128 levels".to_owned()
            } else {
                format!("cannot be read: {err}")
            };
            let (id, login) = shallow(raw);
            Element::Unbuilt { id, login, reason }
        }
    }
}

/// The `id` (or `number`) and `user.login` of an element that cannot be built whole, read
/// without building its other members (their depth does not matter), so that it is
/// reported against the right source.
fn shallow(raw: &RawValue) -> (Option<u64>, Option<String>) {
    #[derive(Deserialize)]
    struct Top<'a> {
        #[serde(borrow)]
        id: Option<&'a RawValue>,
        #[serde(borrow)]
        number: Option<&'a RawValue>,
        #[serde(borrow)]
        user: Option<&'a RawValue>,
    }
    #[derive(Deserialize)]
    struct User {
        login: Option<String>,
    }
    let Ok(top) = serde_json::from_str::<Top<'_>>(raw.get()) else {
        return (None, None);
    };
    let id = top
        .id
        .or(top.number)
        .and_then(|id| serde_json::from_str::<u64>(id.get()).ok());
    let login = top
        .user
        .and_then(|user| serde_json::from_str::<User>(user.get()).ok())
        .and_then(|user| user.login);
    (id, login)
}

/// What kind of JSON value `raw` is, from its first character (it is valid JSON).
fn kind(raw: &RawValue) -> &'static str {
    match raw.get().trim_start().as_bytes().first() {
        Some(b'[') => "an array",
        Some(b'{') => "an object",
        Some(b'"') => "a string",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        _ => "a number",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `{"a": {"a": ... 1 ...}}`, `depth` objects deep.
    fn deep(depth: usize) -> String {
        format!("{}1{}", "{\"a\": ".repeat(depth), "}".repeat(depth))
    }

    #[test]
    fn a_deep_element_is_unbuilt_and_the_others_are_kept() {
        for depth in [200, 100_000] {
            let text = format!(
                r#"[{{"id": 1}}, {{"id": 2, "user": {{"login": "bot[bot]"}}, "x": {}}}, [{}], {{"id": 3}}]"#,
                deep(depth),
                "[".repeat(depth) + &"]".repeat(depth),
            );
            let elements = read_list(&text, &[]).expect("a list");
            assert_eq!(elements.len(), 4);
            assert!(matches!(&elements[0], Element::Value(v) if v["id"] == 1));
            let Element::Unbuilt { id, login, reason } = &elements[1] else {
                panic!("{:?}", elements[1]);
            };
            assert_eq!((*id, login.as_deref()), (Some(2), Some("bot[bot]")));
            assert!(reason.contains("128 levels"), "{reason}");
            assert!(matches!(
                &elements[2],
                Element::Unbuilt {
                    id: None,
                    login: None,
                    ..
                }
            ));
            assert_eq!(elements[3].id(), Some(3));
        }
    }

    #[test]
    fn an_element_just_within_the_limit_is_built() {
        let text = format!("[{}]", deep(127));
        assert!(matches!(
            &read_list(&text, &[]).unwrap()[0],
            Element::Value(_)
        ));
    }

    #[test]
    fn a_list_inside_an_object_is_read_by_its_field() {
        let text = format!(
            r#"{{"total_count": 2, "extra": {}, "check_runs": [{{"id": 1}}, {}]}}"#,
            deep(300),
            deep(300)
        );
        let elements = read_list(&text, &["check_runs"]).expect("the field");
        assert_eq!(elements.len(), 2);
        assert!(matches!(elements[1], Element::Unbuilt { .. }));
        let err = read_list(r#"{"total_count": 0}"#, &["check_runs"]).unwrap_err();
        assert!(err.to_string().contains("without `check_runs`"), "{err}");
        let err = read_list(r#"{"check_runs": 7}"#, &["check_runs"]).unwrap_err();
        assert!(
            err.to_string().contains("at `check_runs`, got a number"),
            "{err}"
        );
    }

    #[test]
    fn what_is_not_a_list_is_named() {
        let err = read_list(r#"{"message": "Not Found"}"#, &[]).unwrap_err();
        assert_eq!(err.to_string(), "expected a JSON array, got an object");
        assert!(matches!(read_list("[1,", &[]), Err(ListError::NotJson(_))));
        assert!(matches!(read_list("7", &[]), Err(ListError::NotList(_))));
    }
}
