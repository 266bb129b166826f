//! DeepSource (`deepsource-io[bot]`): one finding per inline comment, an HTML header with
//! a hidden id, a severity indicator and category images:
//! `<!-- DeepSource: id=… -->`, `<h3>…severity_indicator_major.svg…Title</h3>`,
//! `<div>…severity_major.svg…category_typecheck.svg…</div>`. Severity critical/major/minor
//! -> critical/high/low; the category image is a strong native category. "Found N issues"
//! summary comments are not findings.

use crate::adapters::inline;
use crate::adapters::taxonomy::NativeCategory;
use crate::adapters::{html, markdown, Activity, Adapter, AdapterOutput, Identity};
use crate::api::PrSnapshot;
use crate::model::{Category, Severity};

pub struct DeepSource;

impl Adapter for DeepSource {
    fn id(&self) -> &'static str {
        "deepsource"
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &["deepsource-io[bot]"]
    }

    fn user_ids(&self) -> &'static [u64] {
        &[42547082]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        let mut activity = Activity::new(snapshot.head_sha());
        let mut out = AdapterOutput::default();
        inline::read_comments(
            snapshot,
            &identity,
            &mut activity,
            &mut out,
            |comment, anchor| {
                let body = markdown::normalize_newlines(&comment.body);
                let header = read_header(&body).ok_or("no DeepSource `<h3>` title")?;
                if header.title.is_empty() {
                    return Err("empty DeepSource title".to_owned());
                }
                let native = header
                    .category
                    .map_or_else(NativeCategory::none, NativeCategory::strong);
                let mut finding = inline::finding(
                    self.id(),
                    comment,
                    anchor,
                    header.severity.unwrap_or(Severity::Medium),
                    &header.title,
                    native,
                    &header.explanation,
                );
                if let Some(id) = header.id.filter(|id| !id.is_empty()) {
                    finding.finding_id = id;
                }
                Ok(finding)
            },
        );
        inline::note_activity(snapshot, &identity, &[], &mut activity, &mut out);
        out.coverage = activity.coverage();
        out
    }
}

/// What the header of one DeepSource comment says.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DeepSourceHeader {
    pub id: Option<String>,
    pub title: String,
    pub severity: Option<Severity>,
    pub category: Option<Category>,
    /// The text after the header block.
    pub explanation: String,
}

pub(crate) fn read_header(body: &str) -> Option<DeepSourceHeader> {
    let lower = body.to_ascii_lowercase();
    let h3_start = lower.find("<h3")?;
    let h3_end = lower[h3_start..].find("</h3>")? + h3_start;
    let title = html::strip_tags(&body[h3_start..h3_end]);
    let header_end = lower[h3_end..]
        .find("</div>")
        .map_or(h3_end + 5, |i| h3_end + i + 6);
    let header = &body[..header_end];
    let srcs: Vec<String> = html::images(header)
        .into_iter()
        .map(|img| img.src)
        .collect();
    let severity = srcs.iter().find_map(|src| {
        let name = file_stem(src);
        let level = name
            .strip_prefix("severity_indicator_")
            .or_else(|| name.strip_prefix("severity_"))?;
        match level {
            "critical" => Some(Severity::Critical),
            "major" => Some(Severity::High),
            "minor" => Some(Severity::Low),
            _ => None,
        }
    });
    let category = srcs
        .iter()
        .find_map(|src| category(file_stem(src).strip_prefix("category_")?));
    Some(DeepSourceHeader {
        id: html::between(body, "<!-- DeepSource: id=", "-->").map(|id| id.trim().to_owned()),
        title,
        severity,
        category,
        explanation: body[header_end..]
            .trim_start()
            .trim_start_matches("<br/>")
            .trim_start_matches("<br>")
            .trim()
            .to_owned(),
    })
}

fn file_stem(src: &str) -> &str {
    let path = src.split(['?', '#']).next().unwrap_or(src);
    let file = path.rsplit('/').next().unwrap_or(path);
    file.strip_suffix(".svg").unwrap_or(file)
}

/// DeepSource's issue categories (only `typecheck` is confirmed in a capture).
fn category(name: &str) -> Option<Category> {
    match name.replace('_', "-").as_str() {
        "typecheck" | "bug-risk" => Some(Category::Bug),
        "antipattern" => Some(Category::Maintainability),
        "security" => Some(Category::Security),
        "performance" => Some(Category::Performance),
        "style" => Some(Category::Style),
        "doc" | "documentation" => Some(Category::Docs),
        "coverage" => Some(Category::Test),
        _ => None,
    }
}
