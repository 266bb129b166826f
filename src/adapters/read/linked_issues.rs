//! "Assessment against linked issues" tables (CodeRabbit's walkthrough, Sourcery's
//! Reviewer's Guide): one row per objective of an issue the PR links, marked ✅ addressed or
//! ❌ not. A ❌ row is a PR-level finding (no file, category `other`); ✅ and ❓ (unclear)
//! rows are not findings, nor is the "Out-of-scope changes" table that may follow.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use crate::adapters::read::markdown;
use crate::model::{Category, CategorySource, NormalizedFinding, Provenance, Severity};

/// The heading (or `<summary>`) that introduces the table.
const HEADING: &str = "assessment against linked issues";

/// One ❌ row: an objective of a linked issue the bot judged not met.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnmetObjective {
    /// 1-based row number in the table (✅ rows counted too), for a stable id.
    pub row: usize,
    /// `#123` when the issue is known (Sourcery's Issue column, CodeRabbit's `(#123)`).
    pub issue: Option<String>,
    pub objective: String,
    pub explanation: String,
}

/// The ❌ rows of the first assessment table in `body` (code-masked: a table quoted in code
/// is not one).
pub fn unmet_objectives(body: &str) -> Vec<UnmetObjective> {
    let text = markdown::normalize_newlines(body);
    let lower = markdown::mask_code(&text).to_ascii_lowercase();
    let Some(start) = lower.match_indices(HEADING).map(|(at, _)| at).find(|at| {
        !lower[at + HEADING.len()..]
            .trim_start()
            .starts_with(": out-of-scope")
    }) else {
        return Vec::new();
    };
    // The table starts on a later line: parse from the line after the heading.
    let after = lower[start..]
        .find('\n')
        .map_or(text.len(), |i| start + i + 1);
    let Some(rows) = text.get(after..).and_then(first_table) else {
        return Vec::new();
    };
    let (header, rows) = match rows.split_first() {
        Some((header, rows)) => (header, rows),
        None => return Vec::new(),
    };
    let column = |name: &str| header.iter().position(|h| h.to_lowercase().contains(name));
    let (Some(objective), Some(addressed)) = (column("objective"), column("addressed")) else {
        return Vec::new();
    };
    let (issue, explanation) = (column("issue"), column("explanation"));
    let cell = |row: &[String], i: Option<usize>| {
        i.and_then(|i| row.get(i))
            .map_or("", |c| c.trim())
            .to_owned()
    };
    rows.iter()
        .enumerate()
        .filter(|(_, row)| cell(row, Some(addressed)).contains('❌'))
        .filter_map(|(n, row)| {
            let objective = cell(row, Some(objective));
            (!objective.is_empty()).then(|| UnmetObjective {
                row: n + 1,
                issue: issue_ref(&cell(row, issue)).or_else(|| issue_ref(&objective)),
                objective,
                explanation: cell(row, explanation),
            })
        })
        .collect()
}

/// The first Markdown table of `text` as rows of plain cell text (header first); `None`
/// when a heading comes first (the section has no table).
fn first_table(text: &str) -> Option<Vec<Vec<String>>> {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut in_table = false;
    for event in Parser::new_ext(text, options) {
        match event {
            Event::Start(Tag::Heading { .. }) if !in_table => return None,
            Event::Start(Tag::Table(_)) => in_table = true,
            Event::End(TagEnd::Table) => return Some(rows),
            Event::Start(Tag::TableHead | Tag::TableRow) if in_table => rows.push(Vec::new()),
            Event::Start(Tag::TableCell) if in_table => {
                if let Some(row) = rows.last_mut() {
                    row.push(String::new());
                }
            }
            Event::Text(t) | Event::Code(t) if in_table => {
                if let Some(cell) = rows.last_mut().and_then(|r| r.last_mut()) {
                    cell.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak if in_table => {
                if let Some(cell) = rows.last_mut().and_then(|r| r.last_mut()) {
                    cell.push(' ');
                }
            }
            _ => {}
        }
    }
    in_table.then_some(rows)
}

/// `#123` from an issue URL (`…/issues/123`) or a `#123` reference in the text.
fn issue_ref(text: &str) -> Option<String> {
    let digits_after = |at: usize| -> Option<String> {
        let digits: String = text[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        (!digits.is_empty()).then(|| format!("#{digits}"))
    };
    if let Some(at) = text.rfind("/issues/") {
        return digits_after(at + "/issues/".len());
    }
    text.match_indices('#')
        .find_map(|(at, _)| digits_after(at + 1))
}

/// The finding of one unmet objective, posted by `bot` in the object at `url`. PR-wide (no
/// file), category `other` from the bot itself; the issue and the bot's explanation are the
/// evidence, so it is never dropped as evidence-free.
pub fn finding(
    bot: &str,
    object_id: u64,
    url: Option<&str>,
    unmet: &UnmetObjective,
) -> NormalizedFinding {
    let title = format!("Linked-issue objective not met: {}", unmet.objective);
    let mut finding = NormalizedFinding::new(
        bot,
        format!("linked-issue-{object_id}-{}", unmet.row),
        Severity::Medium,
        Category::Other.as_str(),
        markdown::shorten(&markdown::collapse_whitespace(&title), 240),
    );
    let issue = unmet.issue.as_deref().unwrap_or("a linked issue");
    finding.detail = if unmet.explanation.is_empty() {
        format!("{issue}: marked not addressed by the bot's linked-issue assessment.")
    } else {
        format!("{issue}: {}", unmet.explanation)
    };
    finding.evidence.symbol = unmet.issue.clone().unwrap_or_default();
    finding.provenance = Provenance {
        url: url.map(str::to_owned),
        category_source: Some(CategorySource::Native),
        ..Provenance::default()
    };
    finding
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCERY: &str = "## Reviewer's Guide\n\nAdds an FPS toggle.\n\n\
### Assessment against linked issues\n\n\
| Issue | Objective | Addressed | Explanation |\n\
|-------|-----------|-----------|-------------|\n\
| https://github.com/acme/game/issues/518 | Add a `show_fps` setting defaulting to false. | ✅ | |\n\
| https://github.com/acme/game/issues/519 | Persist the setting across sessions. | ❌ | The setting is never saved. |\n\n\
### Possibly linked issues\n\n- **#520**: related.\n";

    #[test]
    fn sourcery_rows_with_a_cross_are_unmet() {
        let unmet = unmet_objectives(SOURCERY);
        assert_eq!(
            unmet,
            vec![UnmetObjective {
                row: 2,
                issue: Some("#519".into()),
                objective: "Persist the setting across sessions.".into(),
                explanation: "The setting is never saved.".into(),
            }]
        );
        let f = finding("sourcery", 7, Some("https://x/7"), &unmet[0]);
        assert_eq!(
            (f.evidence.file.as_str(), f.category.as_str(), f.severity),
            ("", "other", Severity::Medium)
        );
        assert_eq!(
            f.title,
            "Linked-issue objective not met: Persist the setting across sessions."
        );
        assert_eq!(f.detail, "#519: The setting is never saved.");
        assert_eq!(f.finding_id, "linked-issue-7-2");
    }

    #[test]
    fn coderabbit_table_inside_details_and_out_of_scope_ignored() {
        let body = "<details>\n<summary>📋 Assessment against linked issues</summary>\n\n\
| Objective | Addressed | Explanation |\n|---|---|---|\n\
| Retry failed uploads (#42) | ❌ | No retry logic was added to `upload`. |\n\
| Log upload failures (#42) | ✅ |  |\n\
| Document the retry policy (#43) | ❓ | Unclear whether the README counts. |\n\n\
</details>\n\n<details>\n<summary>Assessment against linked issues: Out-of-scope changes</summary>\n\n\
| Code Change | Explanation |\n|---|---|\n| Rename in `a.py` | unrelated ❌ |\n\n</details>";
        let unmet = unmet_objectives(body);
        assert_eq!(unmet.len(), 1, "{unmet:?}");
        assert_eq!(unmet[0].issue.as_deref(), Some("#42"));
        assert_eq!(unmet[0].objective, "Retry failed uploads (#42)");
        let f = finding("coderabbit", 9, None, &unmet[0]);
        assert_eq!(f.evidence.symbol, "#42");
    }

    #[test]
    fn no_table_a_quoted_table_or_other_columns_are_nothing() {
        assert!(unmet_objectives("## Assessment against linked issues\n\n## Next\n| Objective | Addressed |\n|---|---|\n| x | ❌ |").is_empty());
        assert!(unmet_objectives("```\n## Assessment against linked issues\n| Objective | Addressed |\n|---|---|\n| x | ❌ |\n```").is_empty());
        assert!(unmet_objectives(
            "## Assessment against linked issues\n\n| File | Change |\n|---|---|\n| x | ❌ |"
        )
        .is_empty());
        let empty_explanation = unmet_objectives("### Assessment against linked issues\n\n| Objective | Addressed |\n|---|---|\n| Ship it | ❌ |");
        let f = finding("coderabbit", 1, None, &empty_explanation[0]);
        assert!(f.detail.contains("not addressed"), "{}", f.detail);
    }
}
