//! Copilot's 2026 review body (`<!-- ccr-overview-v2 -->`, also the older variant without
//! the `## Copilot review overview` heading): a verdict heading (`### 🟡 Changes
//! recommended`), `**Findings:** 2 <High severity picture> · 1 <Low…>`, and `<details>`
//! sections. `Open (N)` (or `N open findings`) lists the inline findings with their
//! severity and a `#discussion_r<comment id>` link; `Resolved since last review (N)` lists
//! findings no longer open; `Previously missed (N)` holds real findings that exist only here,
//! each a `<details>` whose summary is a severity picture and the title, then `` `path:line` ``
//! and the explanation.

use crate::adapters::review_provenance;
use std::collections::HashMap;

use crate::adapters::read::taxonomy::{self, NativeCategory};
use crate::adapters::read::{html, markdown};
use crate::adapters::{category_for, detail_from};
use crate::api::Review;
use crate::model::{NormalizedFinding, Severity};

use super::{entry_location, ID};

/// One review's overview, as far as the findings go.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Overview {
    /// The verdict heading (`🟢 Looks good`, `🟡 Changes recommended`, ...).
    pub(super) verdict: Option<String>,
    /// The `**Findings:**` counts (`None` = 0); `None` when the line is absent.
    pub(super) counted: Option<u32>,
    /// Open inline findings: (review comment id, severity).
    pub(super) open: Vec<(u64, Option<Severity>)>,
    /// Resolved since the last review: inline comment ids, and titles of body-only items.
    pub(super) resolved_ids: Vec<u64>,
    pub(super) resolved_titles: Vec<String>,
    pub(super) missed: Vec<NormalizedFinding>,
}

/// A 2026 overview body: the v2 marker or one of its section summaries.
fn is_overview(masked_lower: &str) -> bool {
    masked_lower.contains("<!-- ccr-overview-v2 -->")
        || masked_lower.contains("## copilot review overview")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Open,
    Resolved,
    Missed,
}

fn section(summary: &str) -> Option<Section> {
    let lower = summary.trim().to_lowercase();
    let counted = |name: &str| {
        lower.starts_with(&format!("{name} (")) || {
            // `2 open findings`, `1 resolved since last review`
            let rest = lower
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .trim_start();
            rest.len() < lower.len() && rest.starts_with(name)
        }
    };
    if counted("open") {
        Some(Section::Open)
    } else if counted("resolved since last review") {
        Some(Section::Resolved)
    } else if counted("previously missed") {
        Some(Section::Missed)
    } else {
        None
    }
}

/// A severity picture: `alt="High severity"` (or a bare `alt="High"`), else the icon file
/// `…/copilot-code-review/high-v2-light.png`.
pub(super) fn picture_severity(raw_html: &str) -> Option<Severity> {
    html::images(raw_html).iter().find_map(|img| {
        let alt = img.alt.split_whitespace().next().unwrap_or("");
        taxonomy::severity_word(alt).or_else(|| {
            let path = img.src.split(['?', '#']).next().unwrap_or("");
            let file = path.rsplit('/').next().unwrap_or("");
            path.contains("copilot-code-review")
                .then(|| taxonomy::severity_word(file.split('-').next().unwrap_or("")))
                .flatten()
        })
    })
}

/// The review comment id of a `[title](#discussion_r123)` link on `line`.
fn discussion_id(line: &str) -> Option<u64> {
    let at = line.find("#discussion_r")? + "#discussion_r".len();
    let digits: String = line[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

impl Overview {
    /// The overview of one review body, `None` when it is not a 2026 overview.
    pub(super) fn read(review: &Review, malformed: &mut Vec<String>) -> Option<Overview> {
        let text = markdown::normalize_newlines(review.body.as_deref().unwrap_or(""));
        let masked = markdown::mask_code(&text);
        let lower = masked.to_ascii_lowercase();
        let blocks = markdown::details_blocks(&text, &masked);
        let sections: Vec<_> = blocks
            .iter()
            .filter_map(|b| section(&b.summary).map(|s| (s, b)))
            .collect();
        if !is_overview(&lower) && sections.is_empty() {
            return None;
        }
        let mut overview = Overview {
            verdict: verdict(&text, &masked),
            counted: counted_findings(&text, &masked),
            ..Overview::default()
        };
        for (kind, block) in &sections {
            let inner = text.get(block.inner.clone()).unwrap_or("");
            match kind {
                Section::Open => {
                    for line in inner.lines() {
                        if let Some(id) = discussion_id(line) {
                            overview.open.push((id, picture_severity(line)));
                        }
                    }
                }
                Section::Resolved => {
                    for line in inner.lines().filter(|l| !l.trim().is_empty()) {
                        match discussion_id(line) {
                            Some(id) => overview.resolved_ids.push(id),
                            None => {
                                let title = markdown::inline_plain(line);
                                let title = title.trim_start_matches(['-', '*', ' ']).trim();
                                if !title.is_empty() {
                                    overview.resolved_titles.push(title.to_owned());
                                }
                            }
                        }
                    }
                }
                Section::Missed => {
                    let items = blocks.iter().filter(|b| {
                        b.depth == block.depth + 1
                            && b.outer.start >= block.inner.start
                            && b.outer.end <= block.inner.end
                    });
                    for item in items {
                        let n = overview.missed.len() + 1;
                        match missed_finding(review, &text, item, n) {
                            Ok(finding) => overview.missed.push(finding),
                            Err(reason) => malformed.push(format!(
                                "review {} previously missed item {n}: {reason}",
                                review.id
                            )),
                        }
                    }
                }
            }
        }
        Some(overview)
    }
}

/// The first heading with a verdict emoji (`### 🟢 Approval recommended`), as plain text.
fn verdict(text: &str, masked: &str) -> Option<String> {
    masked.lines().zip(text.lines()).find_map(|(masked, line)| {
        let heading = masked.trim_start().starts_with('#');
        let emoji = ["🟢", "🟡", "🔵", "🔴", "🟠"]
            .iter()
            .any(|e| line.contains(e));
        (heading && emoji).then(|| markdown::inline_plain(line.trim_start_matches(['#', ' '])))
    })
}

/// `**Findings:** None` -> 0; `**Findings:** 4 <pic> · 1 <pic>` -> 5.
fn counted_findings(text: &str, masked: &str) -> Option<u32> {
    let at = masked.find("**Findings:**")? + "**Findings:**".len();
    let line = text.get(at..)?.lines().next().unwrap_or("");
    let plain = html::strip_tags(line);
    if plain.trim().to_lowercase().starts_with("none") {
        return Some(0);
    }
    // Counts are the numbers that stand alone (`4`, `1`), not digits inside the pictures.
    Some(
        plain
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|n| n.parse::<u32>().ok())
            .sum(),
    )
}

/// A `Previously missed` item: `<details><summary><picture…> Title</summary>`, then
/// `` `path:line` `` (or `**path:line**`) and the explanation.
fn missed_finding(
    review: &Review,
    text: &str,
    item: &markdown::Details,
    n: usize,
) -> Result<NormalizedFinding, String> {
    let raw_summary = text.get(item.outer.start..item.inner.start).unwrap_or("");
    let title = markdown::shorten(&item.summary, 240);
    if title.is_empty() {
        return Err("no title".to_owned());
    }
    let body = text.get(item.inner.clone()).unwrap_or("");
    let (location, explanation) = location_and_rest(body).ok_or("no `path:line`")?;
    let (file, start, end) = location;
    let (category, source) = category_for(NativeCategory::none(), &file, &title, &explanation);
    let mut finding = NormalizedFinding::new(
        ID,
        format!("review-{}-missed-{n}", review.id),
        picture_severity(raw_summary).unwrap_or(Severity::Medium),
        category.as_str(),
        title,
    );
    finding.evidence.file = file;
    finding.evidence.line = Some(start);
    finding.evidence.end_line = (end != start).then_some(end);
    finding.detail = detail_from(&explanation);
    finding.provenance = review_provenance(review, Some(source));
    Ok(finding)
}

/// The first `path:line` code span (or bold span) of an item and the text without it.
fn location_and_rest(body: &str) -> Option<((String, u32, u32), String)> {
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};
    let visible = markdown::strip_hidden(body);
    let mut bold: Option<(usize, String)> = None;
    for (event, range) in Parser::new(&visible).into_offset_iter() {
        let found = match event {
            Event::Code(code) => entry_location(&code).map(|l| (l, range)),
            Event::Start(Tag::Strong) => {
                bold = Some((range.start, String::new()));
                None
            }
            Event::Text(t) => {
                if let Some((_, b)) = bold.as_mut() {
                    b.push_str(&t);
                }
                None
            }
            Event::End(TagEnd::Strong) => bold
                .take()
                .and_then(|(start, b)| entry_location(&b).map(|l| (l, start..range.end))),
            _ => None,
        };
        if let Some((location, range)) = found {
            let rest = markdown::cut_ranges(&visible, vec![range]);
            return Some((location, rest));
        }
    }
    None
}

/// Severity of each open inline finding by comment id, and which findings are no longer
/// open, across all reviews in order: the latest review that mentions a finding decides.
#[derive(Debug, Default)]
pub(super) struct Tracker {
    open: HashMap<u64, Option<Severity>>,
    resolved: HashMap<u64, bool>,
    missed: Vec<NormalizedFinding>,
    resolved_titles: Vec<String>,
}

impl Tracker {
    /// Add the overview of the next review (chronological order).
    pub(super) fn add(&mut self, overview: Overview, notes: &mut Vec<String>, review_id: u64) {
        if let Some(counted) = overview.counted {
            let listed = overview.open.len() as u32;
            if counted > listed {
                notes.push(format!(
                    "review {review_id}: the overview counts {counted} finding(s) but lists {listed} open"
                ));
            }
        }
        for (id, severity) in overview.open {
            self.open.insert(id, severity);
            self.resolved.insert(id, false);
        }
        for id in overview.resolved_ids {
            self.resolved.insert(id, true);
        }
        for finding in overview.missed {
            // A later overview repeating the item replaces the earlier copy.
            self.missed.retain(|m| {
                !(m.evidence.file == finding.evidence.file
                    && m.evidence.line == finding.evidence.line
                    && m.title == finding.title)
            });
            self.missed.push(finding);
        }
        self.resolved_titles.extend(overview.resolved_titles);
    }

    /// The severity an overview gives the inline comment `id`.
    pub(super) fn severity_of(&self, id: u64) -> Option<Severity> {
        self.open.get(&id).copied().flatten()
    }

    /// The previously-missed findings, and the finding ids the overviews say are resolved
    /// (inline comment ids, and missed items a later overview lists as resolved).
    pub(super) fn finish(self) -> (Vec<NormalizedFinding>, Vec<String>) {
        let mut withdrawn: Vec<String> = self
            .resolved
            .iter()
            .filter(|(_, resolved)| **resolved)
            .map(|(id, _)| id.to_string())
            .collect();
        withdrawn.sort();
        for finding in &self.missed {
            if self.resolved_titles.iter().any(|t| t == &finding.title) {
                withdrawn.push(finding.finding_id.clone());
            }
        }
        (self.missed, withdrawn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picture(level: &str) -> String {
        format!(
            "<picture><source media=\"(prefers-color-scheme: dark)\" srcset=\"https://github.githubassets.com/static/images/icons/copilot-code-review/{l}-v2-dark.svg\"><img src=\"https://github.githubassets.com/static/images/icons/copilot-code-review/{l}-v2-light.png\" alt=\"{L} severity\" width=\"62\" height=\"18\" align=\"texttop\"></picture>",
            l = level.to_lowercase(),
            L = level
        )
    }

    pub(crate) fn v2_body() -> String {
        format!(
            "<!-- ccr-overview-v2 -->\n\n## Copilot review overview\n\n### 🟡 Changes recommended\n\nThe retry path can lose writes.\n\n\
**Review effort:** Balanced  \n**Findings:** 1 {high} · 1 {low}\n\n\
<details open>\n<summary><strong>Open (2)</strong></summary>\n\n\
- {high} [Retries drop the last batch](#discussion_r701) · New\n\
- {low} [Typo in the log message](#discussion_r702)\n\n</details>\n\n\
<details>\n<summary><strong>Resolved since last review (2)</strong></summary>\n\n\
- {medium} [Unbounded queue](#discussion_r650)\n\
- {low} Cache key ignores the locale\n\n</details>\n\n\
<details>\n<summary><strong>Previously missed (2)</strong></summary>\n\n\
In code that hasn't changed since last review\n\n\
<details>\n<summary>{high} Token compared with ==</summary>\n\n`app/auth.py:41`\n\n\
The comparison is not constant-time, so the token leaks through timing.\n\n\
<details><summary>Reproduction</summary>Time 1000 requests.</details>\n</details>\n\n\
<details>\n<summary>{medium} Missing location</summary>\n\nNo file is named here.\n</details>\n\n\
</details>\n\n---\n\n💡 <a href=\"/x/new/main?filename=.github/skills/code-review/SKILL.md\">Add a `code-review` agent skill</a>\n",
            high = picture("High"),
            medium = picture("Medium"),
            low = picture("Low"),
        )
    }

    #[test]
    fn reads_every_section_of_a_v2_overview() {
        let review = Review {
            id: 90,
            body: Some(v2_body()),
            commit_id: Some("h".into()),
            ..Review::default()
        };
        let mut malformed = Vec::new();
        let overview = Overview::read(&review, &mut malformed).expect("a v2 overview");
        assert_eq!(overview.verdict.as_deref(), Some("🟡 Changes recommended"));
        assert_eq!(overview.counted, Some(2));
        assert_eq!(
            overview.open,
            vec![(701, Some(Severity::High)), (702, Some(Severity::Low))]
        );
        assert_eq!(overview.resolved_ids, vec![650]);
        assert_eq!(
            overview.resolved_titles,
            vec!["Cache key ignores the locale"]
        );
        assert_eq!(overview.missed.len(), 1, "{:?}", overview.missed);
        let m = &overview.missed[0];
        assert_eq!(
            (m.evidence.file.as_str(), m.evidence.line, m.severity),
            ("app/auth.py", Some(41), Severity::High)
        );
        assert_eq!(m.title, "Token compared with ==");
        assert_eq!(m.category, "security", "constant-time / token");
        assert_eq!(
            m.detail,
            "The comparison is not constant-time, so the token leaks through timing."
        );
        assert_eq!(m.provenance.review_id, Some(90));
        assert_eq!(
            malformed,
            vec!["review 90 previously missed item 2: no `path:line`".to_owned()]
        );
    }

    #[test]
    fn older_variant_and_none() {
        let body = "<!-- ccr-overview-v2 -->\n\n### 🟢 Approved\n\nLooks right.\n\n**0 open findings**\n\n<details>\n<summary><strong>1 resolved since last review</strong></summary>\n\n- [Off by one](#discussion_r5)\n</details>";
        let review = Review {
            id: 1,
            body: Some(body.into()),
            ..Review::default()
        };
        let o = Overview::read(&review, &mut Vec::new()).unwrap();
        assert_eq!(o.resolved_ids, vec![5]);
        assert!(o.open.is_empty() && o.missed.is_empty());
        let none = Review {
            id: 2,
            body: Some("<!-- ccr-overview-v2 -->\n\n## Copilot review overview\n\n### 🟢 Looks good\n\n**Review effort:** Lite  \n**Findings:** None\n".into()),
            ..Review::default()
        };
        let o = Overview::read(&none, &mut Vec::new()).unwrap();
        assert_eq!(
            (o.counted, o.verdict.as_deref()),
            (Some(0), Some("🟢 Looks good"))
        );
        let legacy = Review {
            id: 3,
            body: Some(
                "## Pull request overview\n\nCopilot reviewed 2 out of 2 changed files.".into(),
            ),
            ..Review::default()
        };
        assert!(Overview::read(&legacy, &mut Vec::new()).is_none());
    }

    #[test]
    fn the_latest_overview_decides() {
        let mut tracker = Tracker::default();
        let mut notes = Vec::new();
        let first = Overview {
            open: vec![(7, Some(Severity::High)), (8, None)],
            ..Overview::default()
        };
        tracker.add(first, &mut notes, 1);
        let second = Overview {
            resolved_ids: vec![7],
            counted: Some(3),
            ..Overview::default()
        };
        tracker.add(second, &mut notes, 2);
        assert_eq!(tracker.severity_of(7), Some(Severity::High));
        assert_eq!(tracker.severity_of(8), None);
        let (_, withdrawn) = tracker.finish();
        assert_eq!(withdrawn, vec!["7".to_owned()]);
        assert_eq!(
            notes,
            vec!["review 2: the overview counts 3 finding(s) but lists 0 open".to_owned()]
        );
    }
}
