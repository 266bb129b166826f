//! CodeRabbit (`coderabbitai[bot]`): inline comments (three label generations), findings in
//! review bodies (Nitpick / Outside diff range / severity overflow / Duplicate sections),
//! addressed/withdrawn markers. Walkthroughs, notices, AI-prompt digests, review info and
//! "Additional comments" are not findings. Formats: docs/bot-formats.md section 1.

use crate::adapters::markdown;
use crate::adapters::taxonomy::NativeCategory;
use crate::adapters::{
    anchor, category_for, detail_from, provenance, Activity, Adapter, AdapterOutput, Identity,
};
use crate::api::{PrSnapshot, Review, ReviewComment};
use crate::model::{Category, NormalizedFinding, Provenance, Severity};

pub struct CodeRabbit;

const ID: &str = "coderabbit";

impl Adapter for CodeRabbit {
    fn id(&self) -> &'static str {
        ID
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &["coderabbitai[bot]"]
    }

    fn user_ids(&self) -> &'static [u64] {
        &[136622811]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        let mut out = AdapterOutput::default();
        let mut activity = Activity::new(snapshot.head_sha());

        for comment in &snapshot.review_comments {
            if !identity.matches(comment.user.as_ref()) || comment.in_reply_to_id.is_some() {
                continue;
            }
            activity.reviewed(comment.commit_id.as_deref());
            match inline_finding(comment) {
                Ok((finding, withdrawn)) => {
                    out.readable += 1;
                    if withdrawn {
                        out.withdrawn.push(finding.finding_id.clone());
                    }
                    out.findings.push(finding);
                }
                Err(reason) => out
                    .malformed
                    .push(format!("comment {}: {reason}", comment.id)),
            }
        }

        let mut body_items = Vec::new();
        for review in &snapshot.reviews {
            if !identity.matches(review.user.as_ref()) {
                continue;
            }
            let body = review.body.as_deref().unwrap_or("");
            if body.trim().is_empty() {
                continue; // the review wrapping a thread reply
            }
            out.readable += 1;
            if let Some(notice) = notice_kind(body) {
                activity.declined();
                out.notes
                    .push(format!("review {}: {notice} notice", review.id));
                continue;
            }
            activity.reviewed(review.commit_id.as_deref());
            body_items.extend(review_items(review));
        }

        for comment in &snapshot.issue_comments {
            if !identity.matches(comment.user.as_ref()) {
                continue;
            }
            out.readable += 1;
            // Notices carry the walkthrough marker too: classify them first.
            if let Some(notice) = notice_kind(comment.body.as_deref().unwrap_or("")) {
                activity.declined();
                out.notes
                    .push(format!("issue comment {}: {notice} notice", comment.id));
            }
        }

        merge_body_items(&mut out, body_items);
        out.coverage = activity.coverage();
        out
    }
}

/// A rate-limit / skip / pause / failure notice (no review happened).
fn notice_kind(body: &str) -> Option<&'static str> {
    let lower = body.to_lowercase();
    if lower.contains("rate limited by coderabbit.ai") || lower.contains("rate limit exceeded") {
        Some("rate-limit")
    } else if lower.contains("review skipped") || lower.contains("skip review by coderabbit.ai") {
        Some("review skipped")
    } else if lower.contains("reviews paused") || lower.contains("review paused") {
        Some("reviews paused")
    } else if lower.contains("review failed") {
        Some("review failed")
    } else {
        None
    }
}

/// What the `_…_ | _…_` label spans say.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Labels {
    pill: Option<Severity>,
    category: Option<Category>,
    type_severity: Option<Severity>,
    type_category: Option<Category>,
    nitpick: bool,
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

fn pill_severity(lower: &str) -> Option<Severity> {
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
struct Parsed {
    labels: Labels,
    title: String,
    /// The visible Markdown after the label and title lines.
    explanation: String,
    hidden_id: Option<String>,
    withdrawn: bool,
    also_applies: Vec<String>,
}

fn parse_body(body: &str) -> Result<Parsed, String> {
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
            || t.starts_with("✅ Addressed in commit")
            || t.starts_with("Committable suggestion skipped")
        {
            ranges.push(start..start + line.len());
        }
    }
    ranges
}

/// Defaults when a label is missing, by where the item was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Inline,
    Nitpick,
    OutsideDiff,
    Duplicate,
    Overflow(Severity),
}

impl Section {
    fn default_severity(self) -> Severity {
        match self {
            Section::Nitpick => Severity::Low,
            Section::Overflow(severity) => severity,
            Section::Inline | Section::OutsideDiff | Section::Duplicate => Severity::Medium,
        }
    }

    fn from_summary(summary: &str) -> Option<Section> {
        let lower = summary.to_lowercase();
        if lower.contains("nitpick") {
            return Some(Section::Nitpick);
        }
        if lower.contains("outside diff") {
            return Some(Section::OutsideDiff);
        }
        if lower.contains("duplicate comments") {
            return Some(Section::Duplicate);
        }
        // Overflow sections: "🟠 Major comments (43)".
        let head = lower.split("comments").next().unwrap_or("");
        if lower.contains("comments") {
            let word = head.split_whitespace().last().unwrap_or("");
            if let Some(severity) = pill_severity(word) {
                return Some(Section::Overflow(severity));
            }
        }
        None
    }
}

fn build(parsed: Parsed, section: Section, file: &str, finding_id: String) -> NormalizedFinding {
    let labels = parsed.labels;
    let severity = labels
        .pill
        .or(labels.type_severity)
        .unwrap_or(section.default_severity());
    let native = NativeCategory {
        strong: labels.category,
        weak: labels
            .type_category
            .or((section == Section::Nitpick).then_some(Category::Style)),
    };
    let (category, source) = category_for(native, file, &parsed.title, &parsed.explanation);
    let mut finding =
        NormalizedFinding::new(ID, finding_id, severity, category.as_str(), parsed.title);
    finding.detail = detail_from(&parsed.explanation);
    if !parsed.also_applies.is_empty() {
        let extra = format!("(also applies to: {})", parsed.also_applies.join(", "));
        finding.detail = markdown::shorten(format!("{} {extra}", finding.detail).trim(), 480);
    }
    finding.nitpick = labels.nitpick || section == Section::Nitpick;
    finding.provenance.category_source = Some(source);
    finding
}

fn inline_finding(comment: &ReviewComment) -> Result<(NormalizedFinding, bool), String> {
    let anchor = anchor(comment).ok_or("no `path`")?;
    let parsed = parse_body(&comment.body)?;
    let withdrawn = parsed.withdrawn;
    let id = parsed
        .hidden_id
        .clone()
        .unwrap_or_else(|| comment.id.to_string());
    let mut finding = build(parsed, Section::Inline, &anchor.file, id);
    let source = finding
        .provenance
        .category_source
        .unwrap_or(crate::model::CategorySource::Fallback);
    finding.evidence.file = anchor.file.clone();
    finding.evidence.line = anchor.line;
    finding.evidence.end_line = anchor.end_line;
    finding.provenance = provenance(comment, &anchor, source);
    Ok((finding, withdrawn))
}

/// A finding from a review body, and whether it re-states an earlier one (Duplicate).
struct BodyItem {
    finding: NormalizedFinding,
    duplicate: bool,
}

fn review_items(review: &Review) -> Vec<BodyItem> {
    let body = markdown::normalize_newlines(review.body.as_deref().unwrap_or(""));
    let text = markdown::unquote_detail_callouts(&body);
    let masked = markdown::mask_code(&text);
    let blocks = markdown::details_blocks(&text, &masked);
    let mut items = Vec::new();
    let mut counter = 0usize;
    let mut taken_until = 0usize;
    for (i, block) in blocks.iter().enumerate() {
        if block.outer.start < taken_until {
            continue; // inside a section already read
        }
        let Some(section) = Section::from_summary(&block.summary) else {
            continue;
        };
        taken_until = block.outer.end;
        for group in blocks[i + 1..].iter().filter(|g| {
            g.depth == block.depth + 1
                && g.outer.start >= block.inner.start
                && g.outer.end <= block.outer.end
        }) {
            for GroupItem {
                file,
                range,
                markdown: item_text,
            } in group_items(&text, group)
            {
                counter += 1;
                let Ok(parsed) = parse_body(&item_text) else {
                    continue;
                };
                let id = parsed
                    .hidden_id
                    .clone()
                    .unwrap_or_else(|| format!("review-{}-{counter}", review.id));
                let mut finding = build(parsed, section, &file, id);
                finding.evidence.file = file;
                if let Some((start, end)) = range {
                    finding.evidence.line = Some(start);
                    finding.evidence.end_line = Some(end);
                }
                let source = finding.provenance.category_source;
                finding.provenance = Provenance {
                    review_id: Some(review.id),
                    url: review.html_url.clone(),
                    commit: review.commit_id.clone(),
                    category_source: source,
                    ..Provenance::default()
                };
                items.push(BodyItem {
                    finding,
                    duplicate: section == Section::Duplicate,
                });
            }
        }
    }
    items
}

/// `path (N)` or the overflow form `path-32-68 (N)`: the path and an optional range.
fn group_summary(summary: &str) -> (String, Option<(u32, u32)>) {
    let mut name = summary.trim();
    if let Some(open) = name.rfind(" (") {
        if name.ends_with(')') {
            name = &name[..open];
        }
    }
    let parts: Vec<&str> = name.rsplitn(3, '-').collect();
    if let [end, start, path] = parts.as_slice() {
        if let (Ok(start), Ok(end)) = (start.parse::<u32>(), end.parse::<u32>()) {
            if !path.is_empty() {
                return ((*path).to_owned(), Some((start.min(end), start.max(end))));
            }
        }
    }
    (name.to_owned(), None)
}

/// `` `12-17`: `` at the start of a line: the item's range.
fn item_header(line: &str) -> Option<((u32, u32), &str)> {
    let rest = line.trim_start().strip_prefix('`')?;
    let close = rest.find('`')?;
    let range = &rest[..close];
    let after = rest[close + 1..].strip_prefix(':')?;
    let (start, end) = match range.split_once('-') {
        Some((s, e)) => (s.trim().parse().ok()?, e.trim().parse().ok()?),
        None => {
            let line: u32 = range.trim().parse().ok()?;
            (line, line)
        }
    };
    Some(((start.min(end), start.max(end)), after))
}

/// One item of a review-body file group.
struct GroupItem {
    file: String,
    range: Option<(u32, u32)>,
    markdown: String,
}

/// The items of one file group.
fn group_items(text: &str, group: &markdown::Details) -> Vec<GroupItem> {
    let (file, summary_range) = group_summary(&group.summary);
    let inner = text.get(group.inner.clone()).unwrap_or("");
    let inner = inner.trim_end();
    let inner = inner.strip_suffix("</blockquote>").unwrap_or(inner);
    let inner = inner
        .trim_start()
        .strip_prefix("<blockquote>")
        .unwrap_or(inner);
    let masked = markdown::mask_code_blocks(inner);
    let mut items: Vec<(Option<(u32, u32)>, String)> = Vec::new();
    let mut offset = 0;
    for line in masked.split('\n') {
        let start = offset;
        offset += line.len() + 1;
        let original = inner.get(start..start + line.len()).unwrap_or("");
        match item_header(line).and_then(|(range, _)| {
            let rest = item_header(original).map(|(_, rest)| rest)?;
            Some((range, rest))
        }) {
            Some((range, rest)) => items.push((Some(range), format!("{rest}\n"))),
            None => {
                if let Some((_, body)) = items.last_mut() {
                    body.push_str(original);
                    body.push('\n');
                } else if !original.trim().is_empty() {
                    items.push((None, format!("{original}\n")));
                }
            }
        }
    }
    items
        .into_iter()
        .filter(|(_, body)| !body.trim().is_empty() && body.trim() != "---")
        .map(|(range, body)| GroupItem {
            file: file.clone(),
            range: range.or(summary_range),
            markdown: body,
        })
        .collect()
}

fn same_item(a: &NormalizedFinding, b: &NormalizedFinding) -> bool {
    if a.finding_id.starts_with("cr-comment:") && a.finding_id == b.finding_id {
        return true;
    }
    let near = match (a.evidence.line, b.evidence.line) {
        (Some(x), Some(y)) => x.abs_diff(y) <= 3,
        (None, None) => true,
        _ => false,
    };
    a.evidence.file == b.evidence.file
        && near
        && markdown::collapse_whitespace(&a.title).to_lowercase()
            == markdown::collapse_whitespace(&b.title).to_lowercase()
}

/// Add review-body items: a Duplicate item merges with its original (never counted twice),
/// an item repeated by a later review is kept once (the later copy).
fn merge_body_items(out: &mut AdapterOutput, items: Vec<BodyItem>) {
    let mut merged = 0;
    let mut kept: Vec<NormalizedFinding> = Vec::new();
    let mut duplicates = Vec::new();
    for item in items {
        if item.duplicate {
            duplicates.push(item.finding);
            continue;
        }
        kept.retain(|k| !same_item(k, &item.finding));
        if out.findings.iter().any(|f| same_item(f, &item.finding)) {
            continue;
        }
        kept.push(item.finding);
    }
    for duplicate in duplicates {
        let original = out
            .findings
            .iter()
            .chain(kept.iter())
            .any(|f| same_item(f, &duplicate));
        if original {
            merged += 1;
        } else if !kept.iter().any(|k| same_item(k, &duplicate)) {
            kept.push(duplicate); // its original is gone: the re-statement is the finding
        }
    }
    if merged > 0 {
        out.notes.push(format!(
            "{merged} duplicate comment(s) merged with the original finding"
        ));
    }
    out.findings.extend(kept);
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
    fn summaries_and_headers() {
        assert_eq!(
            Section::from_summary("🧹 Nitpick comments (2)"),
            Some(Section::Nitpick)
        );
        assert_eq!(
            Section::from_summary("🟠 Major comments (43)"),
            Some(Section::Overflow(Severity::High))
        );
        assert_eq!(Section::from_summary("🔇 Additional comments (3)"), None);
        assert_eq!(
            Section::from_summary("🤖 Prompt for all review comments with AI agents"),
            None
        );
        assert_eq!(
            group_summary("src/components/x.tsx-32-68 (1)"),
            ("src/components/x.tsx".to_owned(), Some((32, 68)))
        );
        assert_eq!(
            group_summary("app/api/refunds.py (1)"),
            ("app/api/refunds.py".to_owned(), None)
        );
        assert_eq!(item_header("`8-8`: **T.**"), Some(((8, 8), " **T.**")));
        assert_eq!(item_header("`notes`: x"), None);
    }

    #[test]
    fn addressed_marker_and_hidden_id() {
        let p = parse_body("_⚠️ Potential issue_\n\n**Fix it.**\n\nBecause.\n\n<!-- cr-comment:v1:abc -->\n<!-- <review_comment_addressed> -->").unwrap();
        assert_eq!(p.title, "Fix it.");
        assert!(p.withdrawn);
        assert_eq!(p.hidden_id.as_deref(), Some("cr-comment:v1:abc"));
        assert!(parse_body("<!-- only a marker -->").is_err());
    }
}
