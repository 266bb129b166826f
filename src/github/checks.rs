//! The optional check run on the PR head commit, its annotations sent 50 per request (the
//! API rejects more): created with the first 50, the rest appended by PATCH. A write a rate
//! limit refused is sent again after the wait GitHub asks for.

use http::Method;
use serde_json::{json, Value};

use super::{routes, GitHub, GitHubError};
use crate::api;
use crate::config::PrTarget;

/// The Checks API's limit per request.
pub const ANNOTATIONS_PER_REQUEST: usize = 50;
/// `output.summary` limit.
const MAX_SUMMARY: usize = 65_535;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckRun {
    pub id: u64,
    pub html_url: String,
    /// Requests sent: one create plus one PATCH per further batch.
    pub requests: usize,
}

#[derive(Debug, Clone)]
pub struct CheckRunSpec<'a> {
    pub name: &'a str,
    pub head_sha: &'a str,
    /// `success` or `failure`.
    pub conclusion: &'a str,
    pub title: &'a str,
    pub summary: &'a str,
    pub annotations: Vec<Value>,
}

pub async fn publish_check_run(
    gh: &GitHub,
    target: &PrTarget,
    spec: CheckRunSpec<'_>,
) -> Result<CheckRun, GitHubError> {
    let summary = truncate(spec.summary, MAX_SUMMARY);
    let mut batches = spec.annotations.chunks(ANNOTATIONS_PER_REQUEST);
    let output = |batch: Option<&[Value]>| {
        json!({
            "title": spec.title,
            "summary": summary,
            "annotations": batch.unwrap_or(&[]),
        })
    };
    let create_path = routes::CREATE_CHECK_RUN.fill(&[&target.owner, &target.repo]);
    let body = json!({
        "name": spec.name,
        "head_sha": spec.head_sha,
        "status": "completed",
        "conclusion": spec.conclusion,
        "output": output(batches.next()),
    });
    let reply = gh
        .write_patiently(Method::POST, &create_path, Some(&body))
        .await?;
    let endpoint = format!("POST {create_path}");
    let created: api::CheckRun = serde_json::from_value(gh.json(&reply, &endpoint)?)
        .map_err(|err| gh.decode_error(&endpoint, &err))?;
    if created.id == 0 {
        return Err(GitHubError::Decode {
            endpoint,
            message: "the created check run has no `id`".to_owned(),
        });
    }
    let (id, html_url) = (created.id, created.html_url.unwrap_or_default());
    let mut requests = 1;
    let update_path =
        routes::UPDATE_CHECK_RUN.fill(&[&target.owner, &target.repo, &id.to_string()]);
    for batch in batches {
        // Annotations are appended by each update.
        let body = json!({ "output": output(Some(batch)) });
        gh.write_patiently(Method::PATCH, &update_path, Some(&body))
            .await?;
        requests += 1;
    }
    Ok(CheckRun {
        id,
        html_url,
        requests,
    })
}

fn truncate(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let note = "\n\n… (truncated; the full report is in the job summary)";
    let keep = max_chars - note.chars().count();
    let mut out: String = text.chars().take(keep).collect();
    out.push_str(note);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_summaries_are_cut_within_the_limit() {
        let long = "x".repeat(70_000);
        let cut = truncate(&long, MAX_SUMMARY);
        assert!(cut.chars().count() <= MAX_SUMMARY);
        assert!(cut.ends_with("job summary)"));
        assert_eq!(truncate("short", MAX_SUMMARY), "short");
    }
}
