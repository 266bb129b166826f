//! CodeRabbit findings posted in review bodies: the Nitpick / Outside diff range / severity
//! overflow / Duplicate sections, their file groups and items; duplicates merge with the
//! original.

use super::parse::parse_body;
use super::{build, Section};
use crate::adapters::read::markdown;
use crate::adapters::review_provenance;
use crate::adapters::AdapterOutput;
use crate::api::Review;
use crate::model::NormalizedFinding;

/// A finding from a review body, and whether it re-states an earlier one (Duplicate).
pub(super) struct BodyItem {
    finding: NormalizedFinding,
    duplicate: bool,
}

/// The review body's finding items; an item that cannot be read adds a reason to `malformed`.
pub(super) fn review_items(review: &Review, malformed: &mut Vec<String>) -> Vec<BodyItem> {
    let body = markdown::normalize_newlines(review.body.as_deref().unwrap_or(""));
    let text = markdown::unquote_detail_callouts(&body);
    let masked = markdown::mask_code(&text);
    let blocks = markdown::details_blocks(&text, &masked);
    let mut items = Vec::new();
    let mut counter = 0usize;
    let mut taken_until = 0usize;
    let mut groups: Vec<(Section, Vec<GroupItem>)> = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        if block.outer.start < taken_until {
            continue; // inside a section already read
        }
        let Some(section) = Section::from_summary(&block.summary) else {
            continue;
        };
        taken_until = block.outer.end;
        // Blocks are sorted by start: the section's own blocks follow it contiguously.
        let inside = blocks[i + 1..]
            .iter()
            .take_while(|g| g.outer.start < block.outer.end);
        for group in inside.filter(|g| {
            g.depth == block.depth + 1
                && g.outer.start >= block.inner.start
                && g.outer.end <= block.outer.end
        }) {
            groups.push((section, group_items(&text, group)));
        }
    }
    groups.extend(headed_items(&text, &masked, &blocks));
    for (section, group) in groups {
        for GroupItem {
            file,
            range,
            markdown: item_text,
        } in group
        {
            counter += 1;
            let parsed = match parse_body(&item_text) {
                Ok(parsed) => parsed,
                Err(reason) => {
                    malformed.push(format!(
                        "review {} item {counter} ({file}): {reason}",
                        review.id
                    ));
                    continue;
                }
            };
            let stable_id = parsed.hidden_id.clone();
            let id = parsed
                .hidden_id
                .clone()
                .unwrap_or_else(|| format!("review-{}-{counter}", review.id));
            let mut finding = build(parsed, section, &file, id);
            finding.stable_id = stable_id;
            finding.evidence.file = file;
            if let Some((start, end)) = range {
                finding.evidence.line = Some(start);
                finding.evidence.end_line = Some(end);
            }
            let source = finding.provenance.category_source;
            finding.provenance = review_provenance(review, source);
            items.push(BodyItem {
                finding,
                duplicate: section == Section::Duplicate,
            });
        }
    }
    items
}

/// The 2026 layout: a section named by a bold line (`**⚠️ Outside diff range comments
/// (1)**`), then one top-level `<details>` per item whose summary ends with its location,
/// `<em>🟡 Minor</em> · Title · <code>path:295-299</code>`.
fn headed_items(
    text: &str,
    masked: &str,
    blocks: &[markdown::Details],
) -> Vec<(Section, Vec<GroupItem>)> {
    let mut headers: Vec<(usize, Section)> = Vec::new();
    let mut offset = 0;
    for line in masked.split('\n') {
        let t = line.trim();
        if let Some(name) = t.strip_prefix("**").and_then(|t| t.strip_suffix("**")) {
            if let Some(section) = Section::from_summary(name) {
                headers.push((offset, section));
            }
        }
        offset += line.len() + 1;
    }
    if headers.is_empty() {
        return Vec::new();
    }
    blocks
        .iter()
        .filter(|b| b.depth == 0)
        .filter_map(|block| {
            let (_, section) = headers
                .iter()
                .rev()
                .find(|(at, _)| *at < block.outer.start)?;
            let (file, range) = item_location(&block.summary)?;
            let items = group_items(text, block)
                .into_iter()
                .map(|item| GroupItem {
                    file: file.clone(),
                    range: item.range.or(Some(range)),
                    markdown: item.markdown,
                })
                .collect();
            Some((*section, items))
        })
        .collect()
}

/// The location that ends an item summary: `… · path:295-299` (or `path:12`).
fn item_location(summary: &str) -> Option<(String, (u32, u32))> {
    let last = summary.rsplit('·').next()?.trim();
    let (path, lines) = last.rsplit_once(':')?;
    let (start, end) = match lines.split_once('-') {
        Some((s, e)) => (s.trim().parse().ok()?, e.trim().parse().ok()?),
        None => {
            let line: u32 = lines.trim().parse().ok()?;
            (line, line)
        }
    };
    let path = path.trim();
    (!path.is_empty() && !path.contains(' '))
        .then(|| (path.to_owned(), (start.min(end), start.max(end))))
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
pub(super) fn merge_body_items(out: &mut AdapterOutput, items: Vec<BodyItem>) {
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
    use crate::model::Severity;

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
    fn unreadable_items_are_reported() {
        let review = Review {
            id: 12,
            body: Some(
                "<details>\n<summary>🧹 Nitpick comments (2)</summary><blockquote>\n\n\
<details>\n<summary>app/a.py (2)</summary><blockquote>\n\n\
`3-3`: <!-- cr-comment:v1:abc -->\n\n---\n\n`9-9`: **Rename x.**\n\nUnclear.\n\n\
</blockquote></details>\n\n</blockquote></details>"
                    .into(),
            ),
            ..Review::default()
        };
        let mut malformed = Vec::new();
        let items = review_items(&review, &mut malformed);
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].finding.title, "Rename x.");
        assert_eq!(malformed.len(), 1, "the empty item is reported, not lost");
        assert!(
            malformed[0].contains("review 12 item 1 (app/a.py)"),
            "{malformed:?}"
        );
    }
}
