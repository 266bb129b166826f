//! Which pull request a run is about: the `pr-number` input, else the event payload
//! (CONTRACT section 2).

use serde_json::Value;

use super::{Config, ConfigError, GitHubEnv, HeadLookup, PrTarget};

/// Events whose payload carries the PR as `pull_request`; on a fork PR their token is
/// read-only (except `pull_request_target`'s).
const PULL_REQUEST_EVENTS: [&str; 5] = [
    "pull_request",
    "pull_request_target",
    "pull_request_review",
    "pull_request_review_comment",
    "pull_request_review_thread",
];

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
        Some(payload) => pr_from_event(env.event_name.as_deref(), payload, env)?,
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

/// A `workflow_run` event for a PR run that lists no PR of this repository (GitHub leaves
/// `pull_requests` empty for a fork's PR): the open PR whose head is `head_sha` is to be
/// looked up. `None` for every other event, when `pr-number` is set, or when the event
/// already names the PR.
pub(super) fn head_lookup(
    config: &Config,
    env: &GitHubEnv,
    event: Option<&Value>,
) -> Result<Option<HeadLookup>, ConfigError> {
    let (Some(payload), None, Some("workflow_run")) =
        (event, config.pr_number, env.event_name.as_deref())
    else {
        return Ok(None);
    };
    let (owner, repo) = split_repository(env.repository.as_deref())?;
    let Some(run) = payload.get("workflow_run") else {
        return Ok(None);
    };
    let for_a_pr =
        text(Some(run), "/event").is_some_and(|e| PULL_REQUEST_EVENTS.contains(&e.as_str()));
    let Some(head_sha) = text(Some(run), "/head_sha").filter(|_| for_a_pr) else {
        return Ok(None);
    };
    if own_pull_request(run, payload, &owner, &repo).is_some() {
        return Ok(None);
    }
    let head = match (
        text(Some(run), "/head_repository/owner/login"),
        text(Some(run), "/head_branch"),
    ) {
        (Some(head_owner), Some(branch)) => Some(format!("{head_owner}:{branch}")),
        _ => None,
    };
    Ok(Some(HeadLookup {
        owner,
        repo,
        head_sha,
        head,
    }))
}

/// The entry of `workflow_run.pull_requests` whose base is this repository: GitHub lists
/// there every PR whose head is the run's branch, other repositories' too. Compared by
/// repository id with the payload's `repository`, else by the base repository's API URL.
fn own_pull_request<'a>(
    run: &'a Value,
    payload: &Value,
    owner: &str,
    repo: &str,
) -> Option<&'a Value> {
    let this_id = payload.pointer("/repository/id").and_then(Value::as_u64);
    let this_url = format!("/repos/{owner}/{repo}").to_ascii_lowercase();
    run.get("pull_requests")?.as_array()?.iter().find(|pr| {
        let base = pr.pointer("/base/repo");
        let base_id = base.and_then(|b| b.get("id")).and_then(Value::as_u64);
        let base_url = text(base, "/url").map(|u| u.to_ascii_lowercase());
        match (this_id, base_id) {
            (Some(this), Some(base)) => this == base,
            _ => base_url.is_some_and(|u| u.ends_with(&this_url)),
        }
    })
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

fn pr_from_event(
    name: Option<&str>,
    payload: &Value,
    env: &GitHubEnv,
) -> Result<Option<EventPr>, ConfigError> {
    match name {
        Some(event) if PULL_REQUEST_EVENTS.contains(&event) => match payload.get("pull_request") {
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
            let Some(run) = payload.get("workflow_run") else {
                return Ok(None);
            };
            let (owner, repo) = split_repository(env.repository.as_deref())?;
            // None of this repository's (a fork's PR lists none): `head_lookup` finds it.
            let Some(pr) = own_pull_request(run, payload, &owner, &repo) else {
                return Ok(None);
            };
            let mut found = from_pull_request(pr)?;
            if found.head_sha.is_none() {
                found.head_sha = text(Some(run), "/head_sha");
            }
            // A `workflow_run` job runs on the default branch with its own (write) token.
            found.from_fork = false;
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
