//! Which pull request a run is about: the `pr-number` input, else the event payload.

use serde_json::Value;

use super::{Config, ConfigError, GitHubEnv, PrTarget};

/// The PR as the event describes it.
#[derive(Debug, Default, PartialEq, Eq)]
struct EventPr {
    number: u64,
    head_sha: Option<String>,
    from_fork: bool,
}

pub(super) fn resolve(
    config: &Config,
    env: &GitHubEnv,
    event: Option<&Value>,
) -> Result<Option<PrTarget>, ConfigError> {
    let from_event = match event {
        Some(payload) => pr_from_event(env.event_name.as_deref(), payload)?,
        None => None,
    };
    let pr = match (config.pr_number, from_event) {
        // The input wins; the event's details only apply when it is about the same PR.
        (Some(number), Some(event_pr)) if event_pr.number == number => event_pr,
        (Some(number), _) => EventPr {
            number,
            ..EventPr::default()
        },
        (None, Some(event_pr)) => event_pr,
        (None, None) => return Ok(None),
    };
    let (owner, repo) = split_repository(env.repository.as_deref())?;
    Ok(Some(PrTarget {
        owner,
        repo,
        number: pr.number,
        head_sha: pr.head_sha,
        from_fork: pr.from_fork,
    }))
}

fn split_repository(repository: Option<&str>) -> Result<(String, String), ConfigError> {
    let text = repository.ok_or_else(|| ConfigError {
        input: "GITHUB_REPOSITORY".to_owned(),
        message: "not set; expected `owner/name` (the runner sets it)".to_owned(),
    })?;
    match text.split_once('/') {
        Some((owner, name)) if !owner.is_empty() && !name.is_empty() && !name.contains('/') => {
            Ok((owner.to_owned(), name.to_owned()))
        }
        _ => Err(ConfigError {
            input: "GITHUB_REPOSITORY".to_owned(),
            message: format!("`{text}` is not `owner/name`"),
        }),
    }
}

fn pr_from_event(name: Option<&str>, payload: &Value) -> Result<Option<EventPr>, ConfigError> {
    match name {
        Some(
            "pull_request"
            | "pull_request_target"
            | "pull_request_review"
            | "pull_request_review_comment",
        ) => match payload.get("pull_request") {
            Some(pr) => from_pull_request(pr).map(Some),
            None => Err(malformed(name, "has no `pull_request` object")),
        },
        Some("issue_comment") => {
            let issue = payload.get("issue");
            if issue.and_then(|i| i.get("pull_request")).is_none() {
                return Ok(None); // a comment on a plain issue
            }
            let number = issue
                .and_then(|i| i.get("number"))
                .and_then(Value::as_u64)
                .ok_or_else(|| malformed(name, "has no `issue.number`"))?;
            // The payload carries neither head SHA nor head repository: both are fetched.
            Ok(Some(EventPr {
                number,
                ..EventPr::default()
            }))
        }
        Some("workflow_run") => {
            let run = payload.get("workflow_run");
            // Empty for PRs from forks (GitHub leaves it empty): then there is no PR to gate.
            let Some(pr) = run
                .and_then(|r| r.get("pull_requests"))
                .and_then(Value::as_array)
                .and_then(|prs| prs.first())
            else {
                return Ok(None);
            };
            let mut found = from_pull_request(pr)?;
            if found.head_sha.is_none() {
                found.head_sha = text(run, "/head_sha");
            }
            Ok(Some(found))
        }
        _ => Ok(None),
    }
}

fn from_pull_request(pr: &Value) -> Result<EventPr, ConfigError> {
    let number = pr
        .get("number")
        .and_then(Value::as_u64)
        .filter(|n| *n > 0)
        .ok_or_else(|| malformed(None, "has a pull request without a `number`"))?;
    Ok(EventPr {
        number,
        head_sha: text(Some(pr), "/head/sha"),
        from_fork: is_fork(pr),
    })
}

/// Head and base repositories differ. A deleted fork leaves `head.repo` null: still a fork.
/// `workflow_run` PR entries only carry repository ids, so those are compared when no
/// names are present.
fn is_fork(pr: &Value) -> bool {
    let base = pr.pointer("/base/repo");
    let head = pr.pointer("/head/repo");
    let Some(base) = base.filter(|b| b.is_object()) else {
        return false;
    };
    let Some(head) = head.filter(|h| h.is_object()) else {
        return true;
    };
    match (
        text(Some(base), "/full_name"),
        text(Some(head), "/full_name"),
    ) {
        (Some(b), Some(h)) => !b.eq_ignore_ascii_case(&h),
        _ => match (
            base.get("id").and_then(Value::as_u64),
            head.get("id").and_then(Value::as_u64),
        ) {
            (Some(b), Some(h)) => b != h,
            _ => false,
        },
    }
}

fn text(value: Option<&Value>, pointer: &str) -> Option<String> {
    value
        .and_then(|v| v.pointer(pointer))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

fn malformed(event: Option<&str>, what: &str) -> ConfigError {
    ConfigError {
        input: "GITHUB_EVENT_PATH".to_owned(),
        message: format!(
            "the `{}` event payload {what}",
            event.unwrap_or("pull request")
        ),
    }
}
