//! GitHub Code Quality (`github-code-quality[bot]`, id 223894421): CodeQL quality queries
//! on the PR, one inline comment per finding, labelled by severity (Error, Warning, Note)
//! and by metric (Reliability, Maintainability). The comment opens with the rule name as a
//! heading (`## Unused import`, or `## CodeQL / Unused import`); the severity and metric
//! labels may be bold words, badge images or a `Severity: Warning` line; a rule id such as
//! `py/unused-import` names the rule. Copilot Autofix suggestions and the coverage report
//! comment are not findings. Formats: docs/adapters.md (inferred from GitHub's docs; no
//! verbatim comment was found).

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

use crate::adapters::read::inline;
use crate::adapters::read::taxonomy::{self, NativeCategory};
use crate::adapters::read::{html, markdown};
use crate::adapters::{Adapter, AdapterOutput, Identity, Signal};
use crate::api::PrSnapshot;
use crate::model::{Category, Severity};

pub struct GithubCodeQuality;

const ID: &str = "github-code-quality";

impl Adapter for GithubCodeQuality {
    fn id(&self) -> &'static str {
        ID
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &["github-code-quality[bot]"]
    }

    fn user_ids(&self) -> &'static [u64] {
        &[223894421]
    }

    /// Its app's check run, failing when code quality findings were detected: a verdict.
    fn signals(&self) -> &'static [Signal] {
        &[Signal::CheckRunVerdict("")]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        // Reviews wrap the inline comments; the coverage comment is not a review.
        let status = inline::declines(&[]);
        inline::parse(snapshot, &identity, status, |comment, anchor| {
            let body = markdown::normalize_newlines(&comment.body);
            let read = read_body(&body)?;
            let mut finding = inline::finding(
                ID,
                comment,
                anchor,
                read.severity.unwrap_or(Severity::Medium),
                &read.title,
                NativeCategory {
                    strong: read.metric,
                    weak: None,
                },
                &read.explanation,
            );
            finding.evidence.symbol = read.rule.unwrap_or_default();
            Ok(finding)
        })
    }
}

/// What one comment says.
#[derive(Debug, Default, PartialEq)]
struct Read {
    title: String,
    severity: Option<Severity>,
    /// Reliability -> bug, Maintainability -> maintainability.
    metric: Option<Category>,
    rule: Option<String>,
    explanation: String,
}

/// Label words: `Error`/`Warning`/`Note` (a lint level: error medium, warning low, note
/// info, as for code-scanning alerts), `Reliability`/`Maintainability`.
fn apply_label(read: &mut Read, label: &str) {
    let label = label.trim().trim_matches(|c: char| !c.is_alphanumeric());
    let lower = label.to_lowercase();
    let word = lower.strip_prefix("severity").map_or(lower.as_str(), |r| {
        r.trim_start_matches(|c: char| !c.is_alphanumeric())
    });
    if read.severity.is_none() {
        if let Some(severity) = taxonomy::lint_level_severity(word) {
            read.severity = Some(severity);
            return;
        }
    }
    if read.metric.is_none() {
        read.metric = match word {
            "reliability" => Some(Category::Bug),
            "maintainability" => Some(Category::Maintainability),
            _ => None,
        };
    }
}

/// A CodeQL rule id: `lang/rule-name` (`py/unused-import`, `js/useless-assignment`).
fn rule_id(text: &str) -> Option<String> {
    let text = text.trim().trim_matches(['(', ')', '`']);
    let (lang, name) = text.split_once('/')?;
    let ok = |s: &str, extra: char| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == extra)
    };
    (ok(lang, '-') && ok(name, '-') && !name.contains('/')).then(|| text.to_owned())
}

/// Labels count only in the opening blocks (the heading and the label line), so "**Note:**"
/// in the explanation is not a severity.
const LABEL_BLOCKS: usize = 2;

fn read_body(body: &str) -> Result<Read, String> {
    let visible = markdown::strip_hidden(body);
    let mut read = Read::default();
    let mut title = String::new();
    let mut blocks = 0usize;
    let (mut in_heading, mut label): (bool, Option<String>) = (false, None);
    let mut cuts = Vec::new();
    for (event, range) in Parser::new(&visible).into_offset_iter() {
        let opening = blocks <= LABEL_BLOCKS;
        match event {
            Event::Start(Tag::Heading { .. } | Tag::Paragraph) => {
                blocks += 1;
                if matches!(event, Event::Start(Tag::Heading { .. })) && title.is_empty() {
                    in_heading = true;
                    cuts.push(range);
                }
            }
            Event::End(TagEnd::Heading(_)) => in_heading = false,
            Event::Text(t) | Event::Code(t) if in_heading => title.push_str(&t),
            Event::Start(Tag::Strong | Tag::Image { .. }) if opening => label = Some(String::new()),
            Event::Text(t) if label.is_some() => label.get_or_insert_default().push_str(&t),
            Event::End(TagEnd::Strong | TagEnd::Image) => {
                if let Some(text) = label.take() {
                    apply_label(&mut read, &text);
                }
            }
            Event::Code(code) if read.rule.is_none() => read.rule = rule_id(&code),
            Event::Start(Tag::Link { dest_url, .. }) if read.rule.is_none() => {
                read.rule = dest_url
                    .rsplit_once("/rules/")
                    .and_then(|(_, r)| rule_id(r));
            }
            Event::Html(h) | Event::InlineHtml(h) if opening => {
                for img in html::images(&h) {
                    apply_label(&mut read, &img.alt);
                }
            }
            _ => {}
        }
    }
    for line in visible.lines().filter(|l| !l.trim().is_empty()).take(4) {
        let t = line.trim().trim_matches('*').trim();
        if t.to_lowercase().starts_with("severity") && t.len() < 40 {
            apply_label(&mut read, t);
        }
    }
    let title = markdown::collapse_whitespace(&title);
    read.title = match title.split_once(" / ") {
        // `CodeQL / Unused import`: the tool is not part of the rule name.
        Some((tool, rule)) if !tool.contains(' ') => rule.to_owned(),
        _ => title,
    };
    // Copilot Autofix's offer is not the explanation.
    let mut offset = 0;
    for line in visible.split('\n') {
        if line.contains("Copilot Autofix") {
            cuts.push(offset..offset + line.len());
        }
        offset += line.len() + 1;
    }
    read.explanation = markdown::cut_ranges(&visible, cuts);
    if read.title.is_empty() {
        read.title = inline::sentence_title(&read.explanation).ok_or("no rule name or text")?;
    }
    Ok(read)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::fixture;
    use crate::model::{CategorySource, Coverage};

    #[test]
    fn heading_labels_and_rule() {
        let read = read_body(
            "## CodeQL / Unused import\n\n**Warning** · **Maintainability**\n\nImport of `os` is not used.\n\n[Show more details](https://github.com/acme/x/security/quality/rules/py/unused-import)",
        )
        .unwrap();
        assert_eq!(read.title, "Unused import");
        assert_eq!(read.severity, Some(Severity::Low));
        assert_eq!(read.metric, Some(Category::Maintainability));
        assert_eq!(read.rule.as_deref(), Some("py/unused-import"));
        assert!(read.explanation.contains("Import of `os` is not used."));

        let read = read_body("## Useless assignment\n\nSeverity: Error\n\nReliability issue: the value is overwritten before use.\n\n**Note**: see **Maintainability** docs.").unwrap();
        assert_eq!(read.severity, Some(Severity::Medium));
        assert_eq!(read.metric, None, "prose is not a label");
        let read = read_body(
            "<img alt=\"Note\" src=\"x\"> <img alt=\"Reliability\" src=\"y\">\n\nThe loop never exits.",
        )
        .unwrap();
        assert_eq!(
            (read.title.as_str(), read.severity, read.metric),
            (
                "The loop never exits.",
                Some(Severity::Info),
                Some(Category::Bug)
            )
        );
        assert!(read_body("<!-- only -->").is_err());
    }

    #[test]
    fn sample_inline_comments() {
        let out = fixture::parse(&GithubCodeQuality, "bots/github-code-quality");
        let got = fixture::places_and(&out.findings, |f| {
            (f.title.as_str(), f.evidence.symbol.as_str())
        });
        assert_eq!(
            got,
            vec![
                (
                    "app/services/ledger.py",
                    Some(12),
                    Severity::Low,
                    "maintainability",
                    ("Unused import", "py/unused-import")
                ),
                (
                    "app/services/ledger.py",
                    Some(78),
                    Severity::Medium,
                    "bug",
                    ("Unreachable except block", "py/unreachable-except")
                ),
                (
                    "web/src/components/CheckoutForm.tsx",
                    Some(25),
                    Severity::Info,
                    "maintainability",
                    (
                        "Useless assignment to local variable",
                        "js/useless-assignment-to-local"
                    )
                ),
            ]
        );
        assert!(out
            .findings
            .iter()
            .all(|f| f.provenance.category_source == Some(CategorySource::Native)));
        assert_eq!(out.malformed.len(), 1, "{:?}", out.malformed);
        assert_eq!(out.coverage, Coverage::Reviewed);
        assert!(!out.findings[0].detail.contains("Copilot Autofix"));
    }
}
