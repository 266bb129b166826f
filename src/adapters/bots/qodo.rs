//! Qodo Merge / PR-Agent and the 2026 "Code Review by Qodo".
//!
//! - `/improve` posts an issue comment `## PR Code Suggestions ✨` holding an HTML table:
//!   a category cell (`<td rowspan=N>`, omitted on the following rows of the same category),
//!   the suggestion cell (title = first `<summary>`, a `[path [start-end]](…)` link, a nested
//!   `Suggestion importance[1-10]: N`) and an Impact cell. Importance gives the severity
//!   (9-10 high, 7-8 medium, else low) and the confidence (importance / 10).
//! - The 2026 reviewer posts an issue comment `Code Review by Qodo` with numbered items
//!   `<details><summary> 1. Title <code>🐞 Bug</code> <code>≡ Correctness</code></summary>`
//!   under `Action required` (high) / `Remediation recommended` (medium) banners, and
//!   inline twins `1\. Title` of the same items; a twin and its item are one finding.
//! - The `PR Reviewer Guide 🔍` has no file paths (only diff hashes): not read as findings.

use crate::adapters::read::inline;
use crate::adapters::read::taxonomy::NativeCategory;
use crate::adapters::read::{html, markdown};
use crate::adapters::{category_for, Activity, Adapter, AdapterOutput, Identity, DETAIL_CHARS};
use crate::api::{IssueComment, PrSnapshot};
use crate::model::{Category, NormalizedFinding, Provenance, Severity};

/// Notices that mean Qodo did not review (quota, plan limits, skipped PRs).
const DECLINED: &[&str] = &[
    "quota",
    "free tier",
    "limit reached",
    "reached the limit",
    "review was skipped",
    "reviews are paused",
];

pub struct Qodo;

impl Adapter for Qodo {
    fn id(&self) -> &'static str {
        "qodo"
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &[
            "qodo-merge-pro[bot]",
            "qodo-merge[bot]",
            "qodo-merge-pro-for-open-source[bot]",
            "qodo-code-review[bot]",
            "codiumai-pr-agent-pro[bot]",
            "codium-pr-agent[bot]",
            "qodo-ai[bot]",
        ]
    }

    /// Qodo Merge Pro, and `qodo-ai[bot]`, Qodo's newest app (2026).
    fn user_ids(&self) -> &'static [u64] {
        &[151058649, 216754087]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        let head = snapshot.head_sha();
        let mut activity = Activity::new(head);
        let mut out = AdapterOutput::default();

        // Inline comments: 2026 twins (`1\. Title` + tags) or plain suggestions.
        let mut twins: Vec<((u32, String), u64)> = Vec::new();
        inline::read_comments(
            snapshot,
            &identity,
            &mut activity,
            &mut out,
            |comment, anchor| {
                let body = markdown::normalize_newlines(&comment.body);
                let (first, explanation) = markdown::first_visible_line(&body);
                let mut importance = None;
                let (title, native) = match (item_header(first), agent_suggestion(first)) {
                    (Some((number, title, tags, _)), _) => {
                        twins.push(((number, title_key(&title)), comment.id));
                        (title, category_of_tags(&tags))
                    }
                    (None, Some(suggestion)) => {
                        importance = suggestion.importance;
                        let native = match suggestion.label.as_deref().map(label) {
                            Some(Label::Strong(category)) => NativeCategory::strong(category),
                            Some(Label::Weak) => NativeCategory::weak(Category::Other),
                            None => NativeCategory::none(),
                        };
                        (suggestion.title, native)
                    }
                    (None, None) => {
                        let title = markdown::leading_bold_span(&body)
                            .or_else(|| inline::sentence_title(&body))
                            .ok_or("no title")?;
                        (title, NativeCategory::none())
                    }
                };
                let severity = importance.map_or(Severity::Medium, importance_severity);
                let mut finding = inline::finding(
                    self.id(),
                    comment,
                    anchor,
                    severity,
                    &title,
                    native,
                    explanation,
                );
                if let Some(n) = importance {
                    finding.confidence = f64::from(n) / 10.0;
                }
                Ok(finding)
            },
        );

        for comment in &snapshot.issue_comments {
            if !identity.matches(comment.user.as_ref()) {
                continue;
            }
            let body = markdown::normalize_newlines(comment.body.as_deref().unwrap_or(""));
            let masked = markdown::mask_code(&body);
            let lower = body.to_lowercase();
            out.readable += 1;
            if is_suggestions(&body) {
                let commit = suggestions_commit(&body).map(|short| {
                    if !head.is_empty() && head.starts_with(&short) {
                        head.to_owned()
                    } else {
                        short
                    }
                });
                activity.reviewed(commit.as_deref());
                for row in suggestions(&body, &masked) {
                    let finding = suggestion_finding(self.id(), comment, &row, commit.as_deref());
                    if row.implemented {
                        // Qodo saw a commit make the change: addressed, like a resolved item.
                        out.withdrawn.push(finding.finding_id.clone());
                    }
                    out.findings.push(finding);
                }
            } else if is_code_review(&body) {
                activity.reviewed(None);
                for item in review_items(&body, &masked) {
                    let key = (item.number, title_key(&item.title));
                    let twin = twins.iter().find(|(k, _)| *k == key).and_then(|(_, id)| {
                        out.findings
                            .iter_mut()
                            .find(|f| f.provenance.comment_id == Some(*id))
                    });
                    let finding = match twin {
                        Some(twin) => {
                            // the inline twin keeps its thread; the item adds its severity
                            if let Some(severity) = item.severity {
                                twin.severity = severity;
                            }
                            twin.finding_id.clone()
                        }
                        None => {
                            let finding = item_finding(self.id(), comment, &item);
                            let id = finding.finding_id.clone();
                            out.findings.push(finding);
                            id
                        }
                    };
                    if item.closed {
                        out.withdrawn.push(finding);
                    }
                }
            } else if lower.contains("pr reviewer guide") {
                activity.reviewed(None);
            } else if body.len() <= inline::NOTICE_MAX_BYTES
                && DECLINED.iter().any(|phrase| lower.contains(phrase))
            {
                activity.declined_notice(&body);
            }
        }
        for review in &snapshot.reviews {
            if identity.matches(review.user.as_ref()) {
                out.readable += 1;
                activity.reviewed(review.commit_id.as_deref());
            }
        }
        out.set_coverage(&activity);
        out
    }
}

/// PR-Agent's inline code suggestion, as its `push_inline_code_suggestions` writes it (Qodo
/// Merge and the free `codiumai-pr-agent-free[bot]` app): `**Suggestion:** {content}
/// [{label}, importance: {score}]`, then a suggestion block. Older versions leave out the
/// score, or the whole bracket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AgentSuggestion {
    pub title: String,
    pub label: Option<String>,
    pub importance: Option<u8>,
}

/// The suggestion a first visible line opens, if it is one.
pub(crate) fn agent_suggestion(line: &str) -> Option<AgentSuggestion> {
    let rest = line.trim().strip_prefix("**Suggestion:**")?.trim();
    if rest.starts_with('[') && rest.ends_with(']') && rest.matches('[').count() == 1 {
        return None; // a label with no claim
    }
    let (content, bracket) = match rest.strip_suffix(']').and_then(|r| r.rsplit_once('[')) {
        // A label follows a space: `list[i]` at the end of the content is not one.
        Some((content, inside))
            if content.ends_with(char::is_whitespace) && !content.trim().is_empty() =>
        {
            (content.trim(), Some(inside))
        }
        _ => (rest, None),
    };
    let mut parts = bracket.into_iter().flat_map(|inside| inside.split(','));
    let label = parts
        .next()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned);
    let importance = parts.find_map(|part| {
        let score = part.trim().strip_prefix("importance:")?.trim();
        score.parse::<u8>().ok().filter(|n| (1..=10).contains(n))
    });
    let title = markdown::inline_plain(content);
    (!title.is_empty()).then_some(AgentSuggestion {
        title,
        label,
        importance,
    })
}

/// Title compared across an item and its inline twin: lowercase words only.
fn title_key(title: &str) -> String {
    title
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn category_of_tags(tags: &[String]) -> NativeCategory {
    match label(&tags.join(" ")) {
        Label::Strong(category) => NativeCategory::strong(category),
        Label::Weak => NativeCategory::weak(Category::Other),
    }
}

/// One `/improve` row as a finding: importance -> severity and confidence.
fn suggestion_finding(
    bot: &str,
    comment: &IssueComment,
    row: &Suggestion,
    commit: Option<&str>,
) -> NormalizedFinding {
    let native = match label(&row.category) {
        Label::Strong(category) => NativeCategory::strong(category),
        Label::Weak => NativeCategory::weak(Category::Other),
    };
    let anchor = row.anchor.clone().unwrap_or_default();
    let (category, source) = category_for(native, &anchor.path, &row.title, &row.detail);
    let severity = row
        .importance
        .map(importance_severity)
        .or(row.impact)
        .unwrap_or(Severity::Medium);
    let mut finding = NormalizedFinding::new(
        bot,
        format!("{}/{}", comment.id, row.index),
        severity,
        category.as_str(),
        markdown::shorten(&row.title, 160),
    )
    .at(anchor.path, anchor.start);
    finding.evidence.end_line = anchor.end;
    finding.confidence = row.importance.map_or(1.0, |n| f64::from(n) / 10.0);
    finding.detail = markdown::shorten(&row.detail, DETAIL_CHARS);
    finding.provenance = Provenance {
        comment_id: Some(comment.id),
        url: comment.html_url.clone(),
        review_id: None,
        commit: commit.map(str::to_owned),
        original_line: anchor.start,
        category_source: Some(source),
    };
    finding
}

/// One numbered `Code Review by Qodo` item with no inline twin.
fn item_finding(bot: &str, comment: &IssueComment, item: &ReviewItem) -> NormalizedFinding {
    let anchor = item.anchor.clone().unwrap_or_default();
    let native = category_of_tags(&item.tags);
    let (category, source) = category_for(native, &anchor.path, &item.title, &item.description);
    let mut finding = NormalizedFinding::new(
        bot,
        format!("{}#{}", comment.id, item.number),
        item.severity.unwrap_or(Severity::Medium),
        category.as_str(),
        markdown::shorten(&item.title, 160),
    )
    .at(anchor.path, anchor.start);
    finding.evidence.end_line = anchor.end;
    finding.detail = markdown::shorten(&item.description, DETAIL_CHARS);
    finding.provenance = Provenance {
        comment_id: Some(comment.id),
        url: comment.html_url.clone(),
        original_line: anchor.start,
        category_source: Some(source),
        ..Provenance::default()
    };
    finding
}

/// A Qodo category label and how much it says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Label {
    /// An explicit category (`Security`, `Possible issue`, `🐞 Bug`, …).
    Strong(Category),
    /// `General`, `Enhancement` or an unknown label: keywords decide first.
    Weak,
}

/// Qodo category cells and 2026 tags -> category (bot-formats §6).
pub(crate) fn label(text: &str) -> Label {
    let lower = text.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    if has(&["security"]) {
        Label::Strong(Category::Security)
    } else if has(&["performance"]) {
        Label::Strong(Category::Performance)
    } else if has(&[
        "possible issue",
        "possible bug",
        "bug",
        "reliability",
        "correctness",
    ]) {
        Label::Strong(Category::Bug)
    } else if has(&[
        "best practice",
        "maintainability",
        "high-level",
        "rule violation",
    ]) {
        Label::Strong(Category::Maintainability)
    } else if has(&["test"]) {
        Label::Strong(Category::Test)
    } else if has(&["documentation"]) {
        Label::Strong(Category::Docs)
    } else {
        Label::Weak
    }
}

/// Importance 1-10 -> severity, with Qodo's own Impact thresholds.
pub(crate) fn importance_severity(importance: u8) -> Severity {
    match importance {
        9.. => Severity::High,
        7..=8 => Severity::Medium,
        _ => Severity::Low,
    }
}

/// A `path [a-b]` / `path[R78-85]` link target: file, first and last head-side line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Anchor {
    pub path: String,
    pub start: Option<u32>,
    pub end: Option<u32>,
}

/// The first `[path [start-end]](url)` link in `text`.
pub(crate) fn anchor(text: &str) -> Option<Anchor> {
    let mut from = 0;
    while let Some(pos) = text[from..].find("]](") {
        let close = from + pos;
        from = close + 3;
        let label_start = text[..close].rfind('\n').map_or(0, |i| i + 1);
        let line = &text[label_start..close];
        let Some(open) = line.find('[') else { continue };
        let label = &line[open + 1..];
        let Some((path, range)) = label.rsplit_once('[') else {
            continue;
        };
        let path = path.trim();
        if path.is_empty() || path.contains(char::is_whitespace) {
            continue;
        }
        return Some(Anchor {
            path: path.to_owned(),
            ..range_of(range)
        });
    }
    None
}

/// `20-21`, `27`, `R78-85` -> lines; `L…` is base-side numbering and gives none.
fn range_of(range: &str) -> Anchor {
    let range = range.trim();
    if range.starts_with('L') {
        return Anchor::default();
    }
    let range = range.trim_start_matches('R');
    let mut parts = range
        .splitn(2, '-')
        .map(|p| p.trim().trim_start_matches('R'));
    let start = parts.next().and_then(|p| p.parse::<u32>().ok());
    let end = parts.next().and_then(|p| p.parse::<u32>().ok());
    Anchor {
        path: String::new(),
        start,
        end: end.filter(|&e| start.is_some_and(|s| e > s)),
    }
}

/// One row of the `/improve` suggestions table.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Suggestion {
    /// Position in the table (0-based), as in `--apply_suggestion=N`.
    pub index: usize,
    pub category: String,
    pub title: String,
    pub detail: String,
    pub anchor: Option<Anchor>,
    pub importance: Option<u8>,
    pub impact: Option<Severity>,
    /// Marked implemented (`<summary>✅ <s>Title</s></summary>`): Qodo strikes out and ticks
    /// a suggestion once a commit makes the change it asked for.
    pub implemented: bool,
}

/// Whether an issue comment is an `/improve` suggestions table.
pub(crate) fn is_suggestions(body: &str) -> bool {
    body.contains("PR Code Suggestions")
}

/// Whether an issue comment is a 2026 `Code Review by Qodo`.
pub(crate) fn is_code_review(body: &str) -> bool {
    body.contains("Code Review by Qodo")
}

/// The short commit sha in the `<!-- b71e4c0 -->` marker of a suggestions comment.
pub(crate) fn suggestions_commit(body: &str) -> Option<String> {
    let mut rest = body;
    while let Some(marker) = html::between(rest, "<!--", "-->") {
        let sha = marker.trim();
        if (7..=40).contains(&sha.len()) && sha.chars().all(|c| c.is_ascii_hexdigit()) {
            return Some(sha.to_ascii_lowercase());
        }
        let Some(next) = rest.find("-->") else { break };
        rest = &rest[next + 3..];
    }
    None
}

/// Rows of the suggestions table. `masked` is the code-masked view of `raw` (same byte
/// offsets) so that a `<tr>` inside a diff block does not split a row. Rows that have a
/// `<summary>` but no title, and the trailing "More" row, are not suggestions.
pub(crate) fn suggestions(raw: &str, masked: &str) -> Vec<Suggestion> {
    let lower = masked.to_ascii_lowercase();
    let mut rows = Vec::new();
    let mut category = String::new();
    let mut from = 0;
    while let Some(pos) = lower[from..].find("<tr") {
        let start = from + pos;
        let end = lower[start + 3..]
            .find("<tr")
            .map_or(lower.len(), |e| start + 3 + e);
        from = start + 3;
        let cells = cells(&raw[start..end], &lower[start..end]);
        let Some(suggestion_at) = cells.iter().position(|c| c.contains("<details")) else {
            continue; // header or "More" row
        };
        if suggestion_at > 0 {
            category = html::strip_tags(cells[0]);
        }
        let cell = cells[suggestion_at];
        let summary = html::between(cell, "<summary>", "</summary>").unwrap_or_default();
        let title = html::strip_tags(summary);
        let implemented = title.starts_with('✅');
        let title = title.trim_start_matches('✅').trim().to_owned();
        if title.is_empty() {
            continue;
        }
        let importance = html::between(cell, "importance[1-10]:", "<")
            .and_then(|n| n.trim().parse::<u8>().ok())
            .filter(|n| (1..=10).contains(n));
        let impact = cells.get(suggestion_at + 1).and_then(|c| {
            match html::strip_tags(c).to_ascii_lowercase().as_str() {
                "high" => Some(Severity::High),
                "medium" => Some(Severity::Medium),
                "low" => Some(Severity::Low),
                _ => None,
            }
        });
        rows.push(Suggestion {
            index: rows.len(),
            category: category.clone(),
            title,
            detail: bold_text(cell),
            anchor: anchor(cell),
            importance,
            impact,
            implemented,
        });
    }
    rows
}

/// The `<td>` cells of one row (raw text), found on the masked view.
fn cells<'a>(raw: &'a str, lower: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(pos) = lower[from..].find("<td") {
        let start = from + pos;
        let Some(open_end) = lower[start..].find('>').map(|e| start + e + 1) else {
            break;
        };
        let end = lower[open_end..]
            .find("</td>")
            .or_else(|| lower[open_end..].find("<td"))
            .map_or(lower.len(), |e| open_end + e);
        // a nested `<td` cannot occur in Qodo's cells; the cell ends at its `</td>`
        out.push(&raw[open_end..end]);
        from = end;
    }
    out
}

/// The first `**…**` paragraph of a suggestion cell, as plain text.
fn bold_text(cell: &str) -> String {
    html::between(cell, "**", "**")
        .map(html::strip_tags)
        .unwrap_or_default()
}

/// One numbered item of a 2026 `Code Review by Qodo` comment or an inline twin.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ReviewItem {
    pub number: u32,
    pub title: String,
    pub tags: Vec<String>,
    pub severity: Option<Severity>,
    pub anchor: Option<Anchor>,
    pub description: String,
    /// Qodo's own `Resolved` / `Dismissed` badge.
    pub closed: bool,
}

/// `1. Title <code>🐞 Bug</code> <code>≡ Correctness</code>` (or the inline `1\. Title`
/// with backticked tags) -> number, title, tags, closed badge.
pub(crate) fn item_header(text: &str) -> Option<(u32, String, Vec<String>, bool)> {
    let text = text.trim().trim_start_matches("**").trim_start();
    let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
    let number = digits.parse::<u32>().ok()?;
    let rest = text[digits.len()..]
        .strip_prefix("\\.")
        .or_else(|| text[digits.len()..].strip_prefix('.'))?;
    let mut tags = Vec::new();
    let mut title_part = rest;
    if let Some(cut) = rest.find(['<', '`']) {
        title_part = &rest[..cut];
        let tail = &rest[cut..];
        let mut scan = tail;
        while let Some(tag) = html::between(scan, "<code>", "</code>") {
            tags.push(html::strip_tags(tag));
            let Some(next) = scan.find("</code>") else {
                break;
            };
            scan = &scan[next + 7..];
        }
        for (i, piece) in tail.split('`').enumerate() {
            if i % 2 == 1 && !piece.trim().is_empty() {
                tags.push(piece.trim().to_owned());
            }
        }
    }
    let title = html::strip_tags(title_part)
        .trim_matches(|c: char| c == '*' || c.is_whitespace())
        .to_owned();
    let closed = tags.iter().any(|t| {
        let t = t.to_lowercase();
        t.contains("resolved") || t.contains("dismissed")
    });
    tags.retain(|t| {
        let t = t.to_lowercase();
        !t.contains("resolved") && !t.contains("dismissed")
    });
    (!title.is_empty()).then_some((number, title, tags, closed))
}

/// The numbered items of a `Code Review by Qodo` issue comment (code-masked view `masked`
/// with the same byte offsets as `raw`).
pub(crate) fn review_items(raw: &str, masked: &str) -> Vec<ReviewItem> {
    // Every `<summary>` and banner `<img>`, in order of appearance.
    let lower = masked.to_ascii_lowercase();
    let mut marks: Vec<(usize, Mark)> = Vec::new();
    let mut from = 0;
    while let Some(pos) = lower[from..].find("<summary>") {
        let start = from + pos;
        let inner = start + "<summary>".len();
        let Some(end) = lower[inner..].find("</summary>").map(|e| inner + e) else {
            break;
        };
        if let Some(header) = item_header(&raw[inner..end]) {
            marks.push((start, Mark::Item(header)));
        }
        from = end;
    }
    let mut from = 0;
    while let Some(pos) = lower[from..].find("<img") {
        let start = from + pos;
        let end = lower[start..].find('>').map_or(lower.len(), |e| start + e);
        let alt = html::attr(&raw[start..end], "alt")
            .unwrap_or_default()
            .to_lowercase();
        if alt.contains("action required") {
            marks.push((start, Mark::Banner(Severity::High)));
        } else if alt.contains("remediation recommended") {
            marks.push((start, Mark::Banner(Severity::Medium)));
        }
        from = end;
    }
    marks.sort_by_key(|(at, _)| *at);

    let mut items = Vec::new();
    let mut severity = None;
    for (i, (at, mark)) in marks.iter().enumerate() {
        match mark {
            Mark::Banner(level) => severity = Some(*level),
            Mark::Item((number, title, tags, closed)) => {
                let end = marks.get(i + 1).map_or(raw.len(), |(next, _)| *next);
                let body = &raw[*at..end];
                items.push(ReviewItem {
                    number: *number,
                    title: title.clone(),
                    tags: tags.clone(),
                    severity,
                    anchor: anchor(body),
                    description: section(body, "Description"),
                    closed: *closed,
                });
            }
        }
    }
    items
}

enum Mark {
    Item((u32, String, Vec<String>, bool)),
    Banner(Severity),
}

/// The plain text of a `<details><summary>NAME</summary> … </details>` sub-section.
fn section(body: &str, name: &str) -> String {
    let open = format!("<summary>{name}</summary>");
    html::between(body, &open, "</details>")
        .map(html::strip_tags)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::{fixture, ExtractOptions};
    use crate::model::{CategorySource, Coverage};

    #[test]
    fn agent_suggestion_lines_in_each_version() {
        let full = agent_suggestion(
            "**Suggestion:** Quote `$COMMITS` so the changelog does not expand it [security, importance: 9]",
        )
        .unwrap();
        assert_eq!(
            full.title,
            "Quote `$COMMITS` so the changelog does not expand it"
        );
        assert_eq!(full.label.as_deref(), Some("security"));
        assert_eq!(full.importance, Some(9));
        let labelled =
            agent_suggestion("**Suggestion:** Guard the empty list [possible issue]").unwrap();
        assert_eq!(labelled.label.as_deref(), Some("possible issue"));
        assert_eq!(labelled.importance, None);
        let bare = agent_suggestion("**Suggestion:** Check the index of list[i]").unwrap();
        assert_eq!(bare.title, "Check the index of list[i]");
        assert_eq!(bare.label, None);
        // Not a suggestion line, or one with nothing to say.
        assert_eq!(agent_suggestion("**Bug:** off by one"), None);
        assert_eq!(agent_suggestion("**Suggestion:** [general]"), None);
    }

    /// The free PR-Agent app's inline suggestion (real PR g-07, mapped with
    /// `bots: qodo=codiumai-pr-agent-free[bot]`): its claim is the title, not `Suggestion:`;
    /// the label and importance give the category, severity and confidence.
    #[test]
    fn an_inline_agent_suggestion_is_read_as_its_claim() {
        let mut snapshot = PrSnapshot::default();
        snapshot.pull.head.sha = "h".into();
        snapshot.review_comments.push(crate::api::ReviewComment {
            id: 2423152538,
            user: Some(crate::api::User {
                login: "codiumai-pr-agent-free[bot]".into(),
                id: 7,
                kind: "Bot".into(),
            }),
            body: "**Suggestion:** Keep the changelog from expanding shell syntax [security, importance: 9]\n```suggestion\n          echo \"${COMMITS}\" >> CHANGELOG_TEMP.md\n```\n\n<!-- manually_applied -->".into(),
            path: Some(".github/workflows/automated-release.yml".into()),
            line: Some(87),
            commit_id: Some("h".into()),
            ..crate::api::ReviewComment::default()
        });
        let out = Qodo.parse(&snapshot, &["codiumai-pr-agent-free[bot]".to_owned()]);
        assert_eq!(out.findings.len(), 1, "{:?}", out.malformed);
        let finding = &out.findings[0];
        assert_eq!(
            finding.title,
            "Keep the changelog from expanding shell syntax"
        );
        assert_eq!(finding.category, "security");
        assert_eq!(finding.severity, Severity::High);
        assert!((finding.confidence - 0.9).abs() < 1e-9);
        assert_eq!(finding.evidence.line, Some(87));
    }

    /// pr-102 expected.md Q1-Q3: file, lines, severity, confidence, category.
    #[test]
    fn pr102_improve_table_rows() {
        let out = fixture::parse(&Qodo, "pr-102-gemini-copilot");
        assert!(out.malformed.is_empty(), "{:?}", out.malformed);
        assert_eq!(
            out.coverage,
            Coverage::Reviewed,
            "`<!-- b71e4c0 -->` is the head"
        );
        let got: Vec<_> = out
            .findings
            .iter()
            .map(|f| {
                (
                    f.evidence.file.as_str(),
                    f.evidence.line,
                    f.evidence.end_line,
                    f.severity,
                    f.confidence,
                    f.category.as_str(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "app/webhooks/verify.py",
                    Some(20),
                    Some(21),
                    Severity::High,
                    0.9,
                    "security"
                ),
                (
                    "app/services/fx_rates.py",
                    Some(32),
                    Some(33),
                    Severity::Medium,
                    0.8,
                    "bug"
                ),
                (
                    "web/src/lib/currency.ts",
                    Some(27),
                    None,
                    Severity::Low,
                    0.5,
                    "maintainability"
                ),
            ]
        );
        let titles: Vec<_> = out.findings.iter().map(|f| f.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "Compare webhook signatures in constant time",
                "Reject unsupported target currencies explicitly",
                "Name the minor-units factor instead of a magic number",
            ]
        );
        let sources: Vec<_> = out
            .findings
            .iter()
            .map(|f| f.provenance.category_source)
            .collect();
        assert_eq!(
            sources,
            [
                Some(CategorySource::Native),
                Some(CategorySource::Native),
                Some(CategorySource::Keyword)
            ]
        );
        let q1 = &out.findings[0];
        assert_eq!(q1.bot, "qodo");
        assert_eq!(q1.finding_id, "3501474490/0");
        assert_eq!(q1.provenance.comment_id, Some(3501474490));
        assert_eq!(
            q1.provenance.commit.as_deref(),
            Some("b71e4c09d2a35f6e8b0c1d2e3f4a5b6c7d8e9f01")
        );
        assert!(q1.detail.contains("hmac.compare_digest"), "{}", q1.detail);
    }

    #[test]
    fn pr102_reviewer_guide_is_not_a_finding() {
        let out = fixture::parse(&Qodo, "pr-102-gemini-copilot");
        assert!(out
            .findings
            .iter()
            .all(|f| f.provenance.comment_id == Some(3501474490)));
    }

    #[test]
    fn importance_thresholds_and_anchor_forms() {
        assert_eq!(importance_severity(10), Severity::High);
        assert_eq!(importance_severity(9), Severity::High);
        assert_eq!(importance_severity(7), Severity::Medium);
        assert_eq!(importance_severity(6), Severity::Low);
        let a = anchor("[app/x.py [20-21]](https://h)").expect("anchor");
        assert_eq!(
            (a.path.as_str(), a.start, a.end),
            ("app/x.py", Some(20), Some(21))
        );
        let a = anchor("see\n[app/x.py[R78-85]](https://h)").expect("anchor");
        assert_eq!((a.start, a.end), (Some(78), Some(85)));
        let a = anchor("[app/x.py[L5-9]](https://h)").expect("anchor");
        assert_eq!(
            (a.path.as_str(), a.start),
            ("app/x.py", None),
            "base side: no line"
        );
        assert_eq!(anchor("[text](https://h) and [a b [1]](x)"), None);
        assert_eq!(label("General"), Label::Weak);
        assert_eq!(label("Enhancement"), Label::Weak);
        assert_eq!(label("Possible issue"), Label::Strong(Category::Bug));
        assert_eq!(
            label("Learned best practice"),
            Label::Strong(Category::Maintainability)
        );
    }

    /// The category cell is omitted on the following rows of the same category (rowspan),
    /// and a `<tr>` inside a diff block does not start a row.
    #[test]
    fn rowspan_carries_the_category_and_code_does_not_split_rows() {
        let body = "## PR Code Suggestions ✨\n\n<table><tbody><tr><td rowspan=2>Performance</td>\n<td>\n\n<details><summary>Batch the rate lookups</summary>\n\n___\n\n**Fetch once.**\n\n[app/a.py [3-4]](https://x)\n\n```diff\n+ html = '<tr><td>x</td></tr>'\n```\n\n<details><summary>Suggestion importance[1-10]: 7</summary>\n\nWhy.\n</details></details></td><td align=center>Medium\n\n</td></tr><tr>\n<td>\n\n<details><summary>Reuse the session</summary>\n\n___\n\n**Keep one session.**\n\n[app/b.py [9]](https://x)\n\n</details></td><td align=center>Low\n\n</td></tr></tbody></table>";
        let masked = markdown::mask_code(body);
        let rows = suggestions(body, &masked);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].category, "Performance");
        assert_eq!(rows[1].category, "Performance");
        assert_eq!(rows[0].importance, Some(7));
        assert_eq!(rows[1].importance, None);
        assert_eq!(rows[1].impact, Some(Severity::Low));
        assert_eq!(
            rows[1].anchor.as_ref().map(|a| a.path.as_str()),
            Some("app/b.py")
        );
    }

    /// A suggestion Qodo ticked and struck out once a commit made the change (real PR g-07's
    /// "Previous suggestions"): its title without the tick, reported as withdrawn.
    #[test]
    fn an_implemented_suggestion_is_withdrawn() {
        let body = "## PR Code Suggestions ✨\n\n<table><tbody><tr><td rowspan=2>Security</td>\n<td>\n\n<details><summary>✅ <s>Strengthen the secret detection override</s></summary>\n\n___\n\n**Require a phrase, not a single 'y'.**\n\n[scripts/hooks/pre-commit [97-110]](https://x)\n\n</details></td><td align=center>Medium\n\n</td></tr><tr>\n<td>\n\n<details><summary>Handle missing secret versions</summary>\n\n___\n\n**Check for an active version.**\n\n[scripts/rotate.sh [12]](https://x)\n\n</details></td><td align=center>Medium\n\n</td></tr></tbody></table>";
        let masked = markdown::mask_code(body);
        let rows = suggestions(body, &masked);
        assert_eq!(rows[0].title, "Strengthen the secret detection override");
        assert!(rows[0].implemented);
        assert!(!rows[1].implemented);
        let mut snapshot = PrSnapshot::default();
        snapshot.pull.head.sha = "h".into();
        snapshot.issue_comments.push(IssueComment {
            id: 3393000003,
            user: Some(crate::api::User {
                login: "qodo-merge-pro[bot]".into(),
                id: 151058649,
                kind: "Bot".into(),
            }),
            body: Some(body.into()),
            ..IssueComment::default()
        });
        let out = Qodo.parse(&snapshot, &["qodo-merge-pro[bot]".to_owned()]);
        assert_eq!(out.findings.len(), 2);
        assert_eq!(out.withdrawn, vec![out.findings[0].finding_id.clone()]);
    }

    /// 2026 `Code Review by Qodo`: three items, one with an inline twin (merged, severity
    /// from its `Action required` section), one self-marked resolved (withdrawn).
    #[test]
    fn code_review_2026_items_and_inline_twin() {
        let out = fixture::parse(&Qodo, "bots/qodo");
        assert!(out.malformed.is_empty(), "{:?}", out.malformed);
        assert_eq!(out.findings.len(), 3, "{:#?}", out.findings);
        let twin = &out.findings[0];
        assert_eq!(
            twin.provenance.comment_id,
            Some(3400000001),
            "the inline twin is kept"
        );
        assert_eq!(twin.title, "Refund retries are not idempotent");
        assert_eq!(twin.severity, Severity::High, "Action required");
        assert_eq!(twin.category, "bug");
        assert_eq!(
            (twin.evidence.line, twin.evidence.end_line),
            (Some(78), Some(85))
        );

        let resolved = &out.findings[1];
        assert_eq!(resolved.title, "Currency code compared case-sensitively");
        assert_eq!(resolved.evidence.file, "app/services/fx_rates.py");
        assert_eq!(out.withdrawn, vec![resolved.finding_id.clone()]);

        let rule = &out.findings[2];
        assert_eq!(rule.severity, Severity::Medium, "Remediation recommended");
        assert_eq!(rule.category, "maintainability");
        assert_eq!(rule.evidence.file, "web/src/lib/currency.ts");
        assert_eq!(rule.evidence.line, Some(27));
        assert_eq!(rule.finding_id, "5400000001#3");

        // the resolved item is dropped by default, kept with include-resolved
        let extraction = fixture::extract_one("qodo", &[], "bots/qodo", &ExtractOptions::default());
        assert_eq!(extraction.findings.len(), 2);
        let options = ExtractOptions {
            include_resolved: true,
            ..ExtractOptions::default()
        };
        let extraction = fixture::extract_one("qodo", &[], "bots/qodo", &options);
        assert_eq!(extraction.findings.len(), 3);
    }

    /// `qodo-ai[bot]`, Qodo's 2026 app, is read like the others: its items are extracted
    /// exactly, and its comment shows the review.
    #[test]
    fn sample_qodo_ai_login() {
        let out = fixture::parse(&Qodo, "bots/qodo-ai");
        assert!(out.malformed.is_empty(), "{:?}", out.malformed);
        let got = fixture::places_and(&out.findings, |f| f.title.as_str());
        assert_eq!(
            got,
            vec![
                (
                    "app/services/payouts.py",
                    Some(52),
                    Severity::High,
                    "bug",
                    "Payout batch skips the last page"
                ),
                (
                    "app/services/payouts.py",
                    Some(12),
                    Severity::Medium,
                    "maintainability",
                    "Hard-coded retry delay"
                ),
            ]
        );
        assert_eq!(out.coverage, Coverage::Reviewed);
        // By its user id alone (a renamed login) too.
        let mut snapshot = fixture::snapshot("bots/qodo-ai");
        for c in &mut snapshot.issue_comments {
            if let Some(user) = c.user.as_mut() {
                user.login = "qodo-renamed[bot]".into();
            }
        }
        let logins: Vec<String> = Qodo.default_logins().iter().map(|l| (*l).into()).collect();
        assert_eq!(Qodo.parse(&snapshot, &logins).findings.len(), 2);
    }

    #[test]
    fn item_headers() {
        let (n, title, tags, closed) =
            item_header(" 1. Title here <code>🐞 Bug</code> <code>≡ Correctness</code>")
                .expect("item");
        assert_eq!((n, title.as_str(), closed), (1, "Title here", false));
        assert_eq!(tags, ["🐞 Bug", "≡ Correctness"]);
        let (n, title, tags, _) =
            item_header("**12\\. Other** `📘 Rule violation`").expect("inline item");
        assert_eq!((n, title.as_str()), (12, "Other"));
        assert_eq!(tags, ["📘 Rule violation"]);
        assert!(item_header("Description").is_none());
        assert!(item_header("1.").is_none());
    }
}
