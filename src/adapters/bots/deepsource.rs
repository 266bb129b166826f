//! DeepSource (`deepsource-io[bot]`): one finding per inline comment, an HTML header with
//! a hidden id, a severity indicator and category images:
//! `<!-- DeepSource: id=… -->`, `<h3>…severity_indicator_major.svg…Title</h3>`,
//! `<div>…severity_major.svg…category_typecheck.svg…</div>`. Severity critical/major/minor
//! -> critical/high/low; the category image is a strong native category. "Found N issues"
//! summary comments are not findings.

use crate::adapters::read::inline;
use crate::adapters::read::taxonomy::NativeCategory;
use crate::adapters::read::{html, markdown};
use crate::adapters::{Adapter, AdapterOutput, Identity, Signal};
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

    /// Its analyzer check runs (`DeepSource: Python`, ...), failing on the issues found.
    fn signals(&self) -> &'static [Signal] {
        &[Signal::CheckRunVerdict("")]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        let status = inline::declines(&[]);
        inline::parse(snapshot, &identity, status, |comment, anchor| {
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
        })
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
        let name = html::src_stem(src);
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
        .find_map(|src| category(html::src_stem(src).strip_prefix("category_")?));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::fixture;
    use crate::model::CategorySource;

    #[test]
    fn sample_inline_comments() {
        let out = fixture::parse(&DeepSource, "bots/deepsource");
        let got = fixture::places_and(&out.findings, |f| f.title.as_str());
        assert_eq!(
            got,
            vec![
                (
                    "app/api/payouts.py",
                    Some(22),
                    Severity::High,
                    "bug",
                    "Argument of type \"str | None\" cannot be assigned to parameter \"currency\""
                ),
                (
                    "scripts/export.py",
                    Some(14),
                    Severity::Critical,
                    "security",
                    "Audit: subprocess call with shell=True"
                ),
                (
                    "app/services/fx_rates.py",
                    Some(36),
                    Severity::Low,
                    "maintainability",
                    "Unnecessary else after return"
                ),
            ]
        );
        assert_eq!(out.findings[0].finding_id, "Q2hlY2tJc3N1ZTp2dm13cG9weHI=");
        assert!(out
            .findings
            .iter()
            .all(|f| f.provenance.category_source == Some(CategorySource::Native)));
        assert_eq!(
            out.findings[0].detail,
            "request.args.get may return None, but convert expects a str."
                .replace("request.args.get", "`request.args.get`")
                .replace("None,", "`None`,")
                .replace("convert", "`convert`")
                .replace("a str.", "a `str`.")
        );
        assert_eq!(out.malformed.len(), 1, "{:?}", out.malformed);
        assert!(out.malformed[0].contains("3300000004"));
    }

    #[test]
    fn categories_and_severities_from_image_names() {
        let body = r#"<h3><img src="https://static.deepsource.com/x/severity_indicator_minor.svg?v=2"/>T</h3><div><img src="https://static.deepsource.com/x/category_bug-risk.svg"/></div>"#;
        let header = read_header(body).expect("header");
        assert_eq!(header.severity, Some(Severity::Low));
        assert_eq!(header.category, Some(Category::Bug));
        assert_eq!(category("coverage"), Some(Category::Test));
        assert_eq!(category("doc"), Some(Category::Docs));
        assert_eq!(category("unknown"), None);
    }
}
