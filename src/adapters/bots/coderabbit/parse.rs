//! One CodeRabbit comment body (inline, or one review-body item) taken apart: the label
//! spans, the bold title, the explanation, the hidden id and the addressed marker.

use crate::adapters::read::markdown;
use crate::model::{Category, Severity};

/// What the `_…_ | _…_` label spans say.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Labels {
    pub(super) pill: Option<Severity>,
    pub(super) category: Option<Category>,
    pub(super) type_severity: Option<Severity>,
    pub(super) type_category: Option<Category>,
    pub(super) nitpick: bool,
}

fn label_spans(line: &str) -> Option<Vec<String>> {
    let line = line.trim();
    if line.is_empty() || line.starts_with("**") || line.starts_with("__") {
        return None;
    }
    let mut spans = Vec::new();
    for part in line.split('|') {
        let part = part.trim();
        let inner = part
            .strip_prefix('_')
            .and_then(|p| p.strip_suffix('_'))
            .or_else(|| part.strip_prefix('*').and_then(|p| p.strip_suffix('*')))?;
        if inner.trim().is_empty() {
            return None;
        }
        spans.push(inner.trim().to_owned());
    }
    (!spans.is_empty()).then_some(spans)
}

fn classify_labels(spans: &[String]) -> Labels {
    let mut labels = Labels::default();
    for span in spans {
        let lower = span.to_lowercase();
        if let Some(severity) = pill_severity(&lower) {
            labels.pill = Some(severity);
        } else if let Some(category) = category_span(&lower) {
            labels.category = Some(category);
        } else if lower.contains("potential issue") {
            labels.type_severity = Some(Severity::Medium);
            labels.type_category = Some(Category::Bug);
        } else if lower.contains("refactor suggestion") {
            labels.type_severity = Some(Severity::Low);
            labels.type_category = Some(Category::Maintainability);
        } else if lower.contains("nitpick") {
            labels.type_severity = Some(Severity::Low);
            labels.type_category = Some(Category::Style);
            labels.nitpick = true;
        } else if lower.contains("verification") || lower.contains("suggestion") {
            labels.type_severity = Some(Severity::Low);
        }
        // Effort tags (Quick win, Heavy lift, ...) and unknown spans say nothing we use.
    }
    labels
}

pub(super) fn pill_severity(lower: &str) -> Option<Severity> {
    let word = lower.trim_matches(|c: char| !c.is_alphanumeric());
    match word {
        "critical" => Some(Severity::Critical),
        "major" => Some(Severity::High),
        "minor" => Some(Severity::Medium),
        "trivial" => Some(Severity::Low),
        _ => None,
    }
}

/// The 2026 category spans (strong).
fn category_span(lower: &str) -> Option<Category> {
    if lower.contains("security") {
        Some(Category::Security)
    } else if lower.contains("functional correctness")
        || lower.contains("stability")
        || lower.contains("data integrity")
    {
        Some(Category::Bug)
    } else if lower.contains("performance") {
        Some(Category::Performance)
    } else if lower.contains("maintainability") {
        Some(Category::Maintainability)
    } else {
        None
    }
}

/// One comment body (inline, or one review-body item) taken apart.
#[derive(Debug, Default)]
pub(super) struct Parsed {
    pub(super) labels: Labels,
    pub(super) title: String,
    /// The visible Markdown after the label and title lines.
    pub(super) explanation: String,
    pub(super) hidden_id: Option<String>,
    pub(super) withdrawn: bool,
    pub(super) also_applies: Vec<String>,
}

pub(super) fn parse_body(body: &str) -> Result<Parsed, String> {
    let text = markdown::normalize_newlines(body);
    let mut parsed = Parsed::default();
    for comment in markdown::html_comments(&text) {
        if let Some(id) = comment.strip_prefix("cr-comment:") {
            parsed.hidden_id = Some(format!("cr-comment:{}", id.trim()));
        }
        if comment.contains("review_comment_addressed")
            || comment.contains("review_comment_withdrawn")
        {
            parsed.withdrawn = true;
        }
    }
    let visible = markdown::strip_hidden(&text);
    let masked = markdown::mask_code_blocks(&visible);

    let mut title_line = None;
    let mut label_lines = Vec::new();
    let mut offset = 0;
    for line in masked.split('\n') {
        let start = offset;
        offset += line.len() + 1;
        let original = visible.get(start..start + line.len()).unwrap_or("");
        if original.trim().is_empty() {
            continue;
        }
        if let Some(spans) = label_spans(original) {
            if title_line.is_none() {
                parsed.labels = classify_labels(&spans);
                label_lines.push(start..start + line.len());
                continue;
            }
        }
        let trimmed = line.trim();
        if title_line.is_none()
            && trimmed.starts_with("**")
            && trimmed.ends_with("**")
            && trimmed.len() > 4
        {
            title_line = Some(start..start + line.len());
            parsed.title = markdown::inline_plain(original.trim());
        }
        if is_addressed_line(trimmed) {
            // 2026 bodies carry the visible line without the hidden marker.
            parsed.withdrawn = true;
        }
        if let Some(rest) = original.trim().strip_prefix("Also applies to:") {
            parsed
                .also_applies
                .push(markdown::collapse_whitespace(rest));
        }
    }
    if title_line.is_none() {
        // Older review-body items: the bold title runs into prose on the same line.
        if let Some(span) = markdown::first_bold_span(&visible) {
            parsed.title = span;
        }
    }
    let mut cuts = label_lines;
    cuts.extend(boilerplate_lines(&visible));
    cuts.extend(title_line);
    parsed.explanation = markdown::cut_ranges(&visible, cuts);
    if parsed.title.is_empty() {
        let first = markdown::paragraphs(&parsed.explanation, true)
            .into_iter()
            .next()
            .unwrap_or_default();
        parsed.title = markdown::first_sentence(&first).to_owned();
    }
    if parsed.title.is_empty() {
        return Err("no title or text".to_owned());
    }
    parsed.title = markdown::shorten(&parsed.title, 240);
    Ok(parsed)
}

/// CodeRabbit's own line saying a later commit fixed the finding: `✅ Addressed in commit
/// abc1234` / `✅ Addressed in commits a to b`, `✅ Confirmed as addressed by @user`.
fn is_addressed_line(line: &str) -> bool {
    let line = line.trim().trim_start_matches('>').trim();
    line.starts_with("✅ Addressed in commit") || line.starts_with("✅ Confirmed as addressed")
}

/// Footer and status lines that are not explanation: `_Source: …_`, `✅ Addressed in …`,
/// `> Committable suggestion skipped: …`.
fn boilerplate_lines(visible: &str) -> Vec<std::ops::Range<usize>> {
    let mut ranges = Vec::new();
    let mut offset = 0;
    for line in visible.split('\n') {
        let start = offset;
        offset += line.len() + 1;
        let t = line.trim().trim_start_matches('>').trim();
        if t.starts_with("_Source:")
            || is_addressed_line(t)
            || t.starts_with("Committable suggestion skipped")
        {
            ranges.push(start..start + line.len());
        }
    }
    ranges
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_of_each_generation() {
        let l = classify_labels(&label_spans("_⚠️ Potential issue_").unwrap());
        assert_eq!(
            (l.pill, l.type_severity, l.type_category),
            (None, Some(Severity::Medium), Some(Category::Bug))
        );
        let l = classify_labels(&label_spans("_🧹 Nitpick_ | _🔵 Trivial_").unwrap());
        assert_eq!((l.pill, l.nitpick), (Some(Severity::Low), true));
        let l = classify_labels(
            &label_spans("_📐 Maintainability & Code Quality_ | _🟡 Minor_ | _⚡ Quick win_")
                .unwrap(),
        );
        assert_eq!(
            (l.pill, l.category),
            (Some(Severity::Medium), Some(Category::Maintainability))
        );
        let l = classify_labels(
            &label_spans(
                "_🎯 Functional Correctness_ | _⚠️ Potential issue_ | _🟠 Major_ | _⚡ Quick win_",
            )
            .unwrap(),
        );
        assert_eq!(
            (l.pill, l.category),
            (Some(Severity::High), Some(Category::Bug))
        );
        assert!(label_spans("**Title.**").is_none());
        assert!(label_spans("plain prose | more").is_none());
    }

    #[test]
    fn addressed_marker_and_hidden_id() {
        let p = parse_body("_⚠️ Potential issue_\n\n**Fix it.**\n\nBecause.\n\n<!-- cr-comment:v1:abc -->\n<!-- <review_comment_addressed> -->").unwrap();
        assert_eq!(p.title, "Fix it.");
        assert!(p.withdrawn);
        assert_eq!(p.hidden_id.as_deref(), Some("cr-comment:v1:abc"));
        assert!(parse_body("<!-- only a marker -->").is_err());
    }

    #[test]
    fn visible_addressed_line_without_the_marker_withdraws() {
        for line in [
            "✅ Addressed in commit c7b2470",
            "✅ Addressed in commits c371cce to ec989ea",
            "✅ Confirmed as addressed by @jdx",
        ] {
            let body = format!("_🟡 Minor_\n\n**Strip the suffix.**\n\nBecause.\n\n<!-- cr-comment:v1:ab -->\n\n<!-- This is an auto-generated reply by CodeRabbit -->\n\n{line}\n\n<!-- This is an auto-generated comment by CodeRabbit -->");
            let p = parse_body(&body).unwrap();
            assert!(p.withdrawn, "{line}");
            assert!(!p.explanation.contains("✅"), "{}", p.explanation);
        }
        // Quoted in code, or mentioned in prose, it is not CodeRabbit's status line.
        let quoted = "_🟡 Minor_\n\n**Match the status line.**\n\n```\n✅ Addressed in commit c7b2470\n```\n\nThe parser misses it when it is addressed.";
        assert!(!parse_body(quoted).unwrap().withdrawn);
    }
}
