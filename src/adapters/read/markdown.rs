//! Markdown helpers shared by the adapters. Structure (`<details>` blocks, HTML comments,
//! bold title lines) is always found on a *code-masked* view: the same text with every code
//! block and inline code span blanked out byte for byte, so offsets carry over to the real
//! text and a `<details>` or `**` quoted inside code never confuses the structure. Plain text
//! comes from pulldown-cmark events, never from regexes over raw Markdown.

use std::ops::Range;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// `\r\n` and lone `\r` become `\n`.
pub fn normalize_newlines(text: &str) -> String {
    if !text.contains('\r') {
        return text.to_owned();
    }
    text.replace("\r\n", "\n").replace('\r', "\n")
}

fn parser_options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// Byte ranges of code: fenced/indented blocks (always) and inline spans (when asked).
fn code_ranges(text: &str, inline: bool) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    for (event, range) in Parser::new_ext(text, parser_options()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(_)) => ranges.push(range),
            Event::Code(_) if inline => ranges.push(range),
            _ => {}
        }
    }
    ranges
}

fn blank_ranges(text: &str, ranges: &[Range<usize>]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for range in ranges {
        let end = range.end.min(bytes.len());
        for byte in bytes.iter_mut().take(end).skip(range.start) {
            if *byte != b'\n' {
                *byte = b' ';
            }
        }
    }
    // Whole multi-byte characters are blanked (parser ranges fall on char boundaries), so
    // this cannot fail; fall back to the original rather than panic if it ever did.
    String::from_utf8(bytes).unwrap_or_else(|_| text.to_owned())
}

/// `text` with code blocks and inline code spans replaced by spaces (newlines kept).
pub fn mask_code(text: &str) -> String {
    blank_ranges(text, &code_ranges(text, true))
}

/// `text` with code blocks (not inline spans) replaced by spaces (newlines kept).
pub fn mask_code_blocks(text: &str) -> String {
    blank_ranges(text, &code_ranges(text, false))
}

/// `text` with block quotes (lazy continuation lines included), code blocks and inline code
/// spans replaced by spaces (newlines kept): what the author wrote themselves, in prose.
pub fn mask_quotes_and_code(text: &str) -> String {
    let ranges: Vec<Range<usize>> = Parser::new_ext(text, parser_options())
        .into_offset_iter()
        .filter_map(|(event, range)| match event {
            Event::Start(Tag::CodeBlock(_) | Tag::BlockQuote(_)) | Event::Code(_) => Some(range),
            _ => None,
        })
        .collect();
    blank_ranges(text, &ranges)
}

/// One `<details>` block found on the masked view. Offsets index the original text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Details {
    /// From `<details` to after `</details>` (or the end of the text when unclosed).
    pub outer: Range<usize>,
    /// Between `</summary>` (or the `<details>` tag) and `</details>`.
    pub inner: Range<usize>,
    /// The summary as plain text (`""` when there is none).
    pub summary: String,
    /// 0 for top-level blocks.
    pub depth: usize,
}

fn find_ci(lower: &str, needle: &str, from: usize) -> Option<usize> {
    lower.get(from..)?.find(needle).map(|i| i + from)
}

/// After the `>` closing a tag that starts at `from` (a tag is short: give up after a
/// window, so hostile input stays linear).
fn tag_end(lower: &str, from: usize) -> usize {
    let window_end = floor_boundary(lower, from + SUMMARY_WINDOW);
    lower
        .get(from..window_end)
        .and_then(|w| w.find('>'))
        .map_or(window_end, |i| from + i + 1)
}

/// Every `<details>` block of `text`, outermost first in document order. `masked` must be
/// `mask_code(text)` (or another same-length mask).
pub fn details_blocks(text: &str, masked: &str) -> Vec<Details> {
    let lower = masked.to_ascii_lowercase();
    // Every tag position up front, then one merge walk: linear on hostile input.
    let mut tags: Vec<(usize, bool)> = lower
        .match_indices("<details")
        .map(|(i, _)| (i, true))
        .chain(lower.match_indices("</details>").map(|(i, _)| (i, false)))
        .collect();
    tags.sort_unstable();
    let mut found = Vec::new();
    let mut open: Vec<(usize, usize, String)> = Vec::new(); // (outer start, inner start, summary)
    let mut pos = 0;
    for (at, opening) in tags {
        if at < pos {
            continue; // inside a summary already read
        }
        if opening {
            let after_tag = tag_end(&lower, at);
            let (inner_start, summary) = read_summary(text, &lower, after_tag);
            open.push((at, inner_start, summary));
            pos = inner_start.max(at + 1);
        } else {
            let after = at + "</details>".len();
            if let Some((start, inner_start, summary)) = open.pop() {
                found.push(Details {
                    outer: start..after,
                    inner: inner_start..at.max(inner_start),
                    summary,
                    depth: open.len(),
                });
            }
            pos = after;
        }
    }
    while let Some((start, inner_start, summary)) = open.pop() {
        found.push(Details {
            outer: start..text.len(),
            inner: inner_start..text.len(),
            summary,
            depth: open.len(),
        });
    }
    found.sort_by_key(|d| d.outer.start);
    found
}

/// The largest char boundary of `text` at or below `at`.
fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Longest `<summary>` looked at: keeps the scan linear on hostile input.
const SUMMARY_WINDOW: usize = 4096;

/// The `<summary>` right after a `<details>` tag (only whitespace between):
/// (where the content starts, summary text).
fn read_summary(text: &str, lower: &str, from: usize) -> (usize, String) {
    let rest = lower.get(from..).unwrap_or("");
    let gap = rest.len() - rest.trim_start().len();
    let s = from + gap;
    if !rest.trim_start().starts_with("<summary") {
        return (from, String::new());
    }
    let content = tag_end(lower, s);
    let window_end = floor_boundary(lower, content + SUMMARY_WINDOW);
    let close = lower
        .get(content..window_end)
        .and_then(|w| w.find("</summary>"))
        .map(|i| i + content);
    let Some(e) = close else {
        return (from, String::new());
    };
    let summary = text.get(content..e).map(inline_plain).unwrap_or_default();
    (e + "</summary>".len(), summary)
}

/// Ranges of HTML comments (`<!-- ... -->`, unclosed = to the end) on the masked view.
pub fn comment_ranges(masked: &str) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    let mut pos = 0;
    while let Some(start) = find_ci(masked, "<!--", pos) {
        let end = find_ci(masked, "-->", start + 4).map_or(masked.len(), |e| e + 3);
        ranges.push(start..end);
        pos = end;
    }
    ranges
}

/// The inner texts of the HTML comments outside code (hidden markers such as
/// `cr-comment:v1:...`).
pub fn html_comments(text: &str) -> Vec<String> {
    let masked = mask_code(text);
    comment_ranges(&masked)
        .into_iter()
        .filter_map(|r| text.get(r))
        .map(|c| {
            let c = c.strip_prefix("<!--").unwrap_or(c);
            c.strip_suffix("-->").unwrap_or(c).trim().to_owned()
        })
        .collect()
}

/// `text` without its `<details>` blocks and HTML comments (each replaced by a paragraph
/// break), found on the code-masked view.
pub fn strip_hidden(text: &str) -> String {
    let masked = mask_code(text);
    let mut cuts: Vec<Range<usize>> = details_blocks(text, &masked)
        .into_iter()
        .filter(|d| d.depth == 0)
        .map(|d| d.outer)
        .collect();
    cuts.extend(comment_ranges(&masked));
    cut_ranges(text, cuts)
}

/// `text` from its first visible line on: the leading blank lines, HTML comments
/// (`<!-- … -->`; an unclosed one hides the rest) and link reference definitions skipped.
/// A definition renders as nothing, so bots use one as a comment: CodeScene opens with
/// `[//]: # (cs-code-health)`. What follows the first visible line is left as it is, and
/// the result is a slice of `text`, so offsets into it carry over. Every reader of a
/// comment's "first line" starts here.
pub fn visible_start(text: &str) -> &str {
    let mut rest = text;
    loop {
        let trimmed = rest.trim_start();
        if let Some(after) = trimmed.strip_prefix("<!--") {
            rest = after.find("-->").map_or("", |end| &after[end + 3..]);
            continue;
        }
        let (line, after) = trimmed.split_once('\n').unwrap_or((trimmed, ""));
        if !is_link_definition(line) {
            return trimmed;
        }
        rest = after;
    }
}

/// The first visible line of `text` (`visible_start`) and the text after it.
pub fn first_visible_line(text: &str) -> (&str, &str) {
    let start = visible_start(text);
    start.split_once('\n').unwrap_or((start, ""))
}

/// `line` is a whole link reference definition (`[label]: destination "title"`): Markdown
/// that renders as nothing, which the parser reads without emitting an event.
fn is_link_definition(line: &str) -> bool {
    let line = line.trim();
    line.starts_with('[')
        && line.contains("]:")
        && Parser::new_ext(line, parser_options()).next().is_none()
}

/// `text` with `cuts` (possibly overlapping) removed, each replaced by a blank line.
pub fn cut_ranges(text: &str, mut cuts: Vec<Range<usize>>) -> String {
    cuts.sort_by_key(|r| r.start);
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    for cut in cuts {
        if cut.start < pos {
            pos = pos.max(cut.end);
            continue;
        }
        out.push_str(text.get(pos..cut.start).unwrap_or(""));
        out.push_str("\n\n");
        pos = cut.end;
    }
    out.push_str(text.get(pos..).unwrap_or(""));
    out
}

/// The text of the first line that is entirely bold (`**Title.**` / `__Title.__`), outside
/// code, `<details>` and comments, as plain inline text (inline code kept).
pub fn first_bold_line(text: &str) -> Option<String> {
    let visible = strip_hidden(text);
    let masked = mask_code_blocks(&visible);
    let mut offset = 0;
    for masked_line in masked.split('\n') {
        let start = offset;
        offset += masked_line.len() + 1;
        let trimmed = masked_line.trim();
        let bold = (trimmed.starts_with("**") && trimmed.ends_with("**"))
            || (trimmed.starts_with("__") && trimmed.ends_with("__"));
        if !bold || trimmed.len() <= 4 {
            continue;
        }
        let line = visible.get(start..start + masked_line.len()).unwrap_or("");
        let title = inline_plain(line.trim());
        if !title.is_empty() {
            return Some(title);
        }
    }
    None
}

/// The `**bold**` span that opens `text`, as plain inline text: a title. Before it may come
/// markup, badges, inline code, punctuation or a short label (`Nit:`); a bold span after
/// opening prose is a section label ("**The Problem:**"), not what the comment is about.
pub fn leading_bold_span(text: &str) -> Option<String> {
    let masked = mask_code(text);
    let start = masked.find("**")?;
    // The same offsets in the text (masking keeps them); inline code dropped.
    let before = paragraphs(text.get(..start)?, false).join(" ");
    let label = before
        .strip_suffix(':')
        .is_some_and(|label| label.split_whitespace().count() <= 3);
    let words = before.chars().any(char::is_alphanumeric);
    (!words || label).then(|| first_bold_span(text)).flatten()
}

/// The first `**bold**` span of `text` outside code, as plain inline text.
pub fn first_bold_span(text: &str) -> Option<String> {
    let masked = mask_code(text);
    let start = masked.find("**")?;
    let end = masked.get(start + 2..)?.find("**")? + start + 2;
    let inner = text.get(start + 2..end)?;
    let title = inline_plain(inner);
    (!title.is_empty()).then_some(title)
}

/// Plain text of an inline Markdown fragment (a title): emphasis, links and HTML tags
/// removed, inline code kept as its text, whitespace collapsed.
pub fn inline_plain(fragment: &str) -> String {
    paragraphs(fragment, true).join(" ")
}

/// The plain text of each block (paragraph, heading, list item, table row) of `markdown`:
/// code blocks, raw HTML and image alt text dropped; inline code kept only when
/// `keep_inline_code`. Whitespace is collapsed; empty blocks are skipped.
pub fn paragraphs(markdown: &str, keep_inline_code: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut skip_depth = 0usize; // inside code blocks / images
    let flush = |current: &mut String, out: &mut Vec<String>| {
        let text = collapse_whitespace(current);
        if !text.is_empty() {
            out.push(text);
        }
        current.clear();
    };
    for event in Parser::new_ext(markdown, parser_options()) {
        match event {
            Event::Start(Tag::CodeBlock(_)) | Event::Start(Tag::Image { .. }) => {
                skip_depth += 1;
            }
            Event::End(TagEnd::CodeBlock) | Event::End(TagEnd::Image) => {
                skip_depth = skip_depth.saturating_sub(1);
            }
            _ if skip_depth > 0 => {}
            Event::Start(Tag::Paragraph)
            | Event::Start(Tag::Heading { .. })
            | Event::Start(Tag::Item)
            | Event::Start(Tag::TableRow)
            | Event::Start(Tag::BlockQuote(_)) => flush(&mut current, &mut out),
            Event::End(TagEnd::Paragraph)
            | Event::End(TagEnd::Heading(_))
            | Event::End(TagEnd::Item)
            | Event::End(TagEnd::TableRow)
            | Event::End(TagEnd::TableHead)
            | Event::End(TagEnd::BlockQuote(_))
            | Event::Rule => flush(&mut current, &mut out),
            Event::End(TagEnd::TableCell) => current.push(' '),
            Event::Text(t) => current.push_str(&t),
            Event::Code(c) if keep_inline_code => {
                current.push('`');
                current.push_str(&c);
                current.push('`');
            }
            Event::SoftBreak | Event::HardBreak => current.push(' '),
            Event::TaskListMarker(_) => {}
            _ => {}
        }
    }
    flush(&mut current, &mut out);
    out
}

/// Every Markdown image (`![alt](url)`) of `text` outside code: (alt text, URL). Badges
/// (Codex, Kodus, Korbit) are images; raw `<img>` tags are `html::images`.
pub fn images(text: &str) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = Vec::new();
    let mut in_image = false;
    for event in Parser::new_ext(text, parser_options()) {
        match event {
            Event::Start(Tag::Image { dest_url, .. }) => {
                found.push((String::new(), dest_url.into_string()));
                in_image = true;
            }
            Event::End(TagEnd::Image) => in_image = false,
            Event::Text(t) | Event::Code(t) if in_image => {
                if let Some((alt, _)) = found.last_mut() {
                    alt.push_str(&t);
                }
            }
            _ => {}
        }
    }
    found
}

/// Runs of whitespace become one space; leading/trailing whitespace removed.
pub fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first sentence of plain text: up to the first `.`, `!` or `?` that ends a word and
/// is followed by whitespace (or the end). Common abbreviations do not end a sentence.
pub fn first_sentence(text: &str) -> &str {
    let text = text.trim();
    let mut chars = text.char_indices().peekable();
    let mut prev: Option<char> = None;
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        if matches!(c, '.' | '!' | '?' | '。' | '！' | '？')
            && prev.is_some_and(|p| !p.is_whitespace())
            && next.is_none_or(char::is_whitespace)
        {
            let end = i + c.len_utf8();
            let candidate = &text[..end];
            if !ends_with_abbreviation(candidate) {
                return candidate;
            }
        }
        prev = Some(c);
    }
    text
}

fn ends_with_abbreviation(sentence: &str) -> bool {
    let lower = sentence.to_lowercase();
    ["e.g.", "i.e.", "etc.", "vs.", "cf.", "approx."]
        .iter()
        .any(|a| lower.ends_with(a))
}

/// `text` cut to at most `max_chars` characters on a char boundary (and preferably a word
/// boundary), with `…` appended when something was cut.
pub fn shorten(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let keep = max_chars.saturating_sub(1);
    let cut = text.char_indices().nth(keep).map_or(text.len(), |(i, _)| i);
    let head = &text[..cut];
    let head = match head.rfind(char::is_whitespace) {
        Some(space) if space > cut / 2 => &head[..space],
        _ => head,
    };
    format!("{}…", head.trim_end())
}

/// Strip one level of `> ` quoting from every run of quoted lines that contains a
/// `<details>` block (CodeRabbit wraps its outside-diff section in a callout); other quotes
/// (e.g. a `> ‼️ IMPORTANT` note) are left alone.
pub fn unquote_detail_callouts(text: &str) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        if !lines[i].trim_start().starts_with('>') {
            out.push(lines[i].to_owned());
            i += 1;
            continue;
        }
        let start = i;
        while i < lines.len() && lines[i].trim_start().starts_with('>') {
            i += 1;
        }
        let run = &lines[start..i];
        let has_details = run
            .iter()
            .any(|l| l.to_ascii_lowercase().contains("<details"));
        for line in run {
            if has_details {
                let rest = line.trim_start().strip_prefix('>').unwrap_or(line);
                out.push(rest.strip_prefix(' ').unwrap_or(rest).to_owned());
            } else {
                out.push((*line).to_owned());
            }
        }
    }
    out.join("\n")
}

/// Text prepared for keyword matching: the title and the first paragraph of `body`'s
/// visible prose, code (blocks and inline) removed, lowercase.
pub fn keyword_text(title: &str, first_paragraph_markdown: &str) -> String {
    let mut text = paragraphs(title, false).join(" ");
    text.push(' ');
    text.push_str(&paragraphs(first_paragraph_markdown, false).join(" "));
    collapse_whitespace(&text).to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masking_keeps_offsets_and_hides_code() {
        let text = "a `<details>` b\n```\n<details>\n```\nc é";
        let masked = mask_code(text);
        assert_eq!(masked.len(), text.len());
        assert!(!masked.contains("<details>"));
        assert!(masked.ends_with("c é"));
    }

    #[test]
    fn details_nested_and_unclosed() {
        let text = "<details>\n<summary>Outer (2)</summary>\n\n<details><summary>in</summary>x</details>\n</details>\n<details><summary>open</summary>tail";
        let masked = mask_code(text);
        let blocks = details_blocks(text, &masked);
        assert_eq!(blocks.len(), 3);
        assert_eq!(blocks[0].summary, "Outer (2)");
        assert_eq!(blocks[0].depth, 0);
        assert_eq!(blocks[1].summary, "in");
        assert_eq!(blocks[1].depth, 1);
        assert_eq!(&text[blocks[1].inner.clone()], "x");
        assert_eq!(blocks[2].summary, "open");
        assert_eq!(&text[blocks[2].inner.clone()], "tail");
    }

    #[test]
    fn details_in_code_is_not_structure() {
        let text = "```\n<details><summary>no</summary>\n```\n**Title.**";
        assert!(details_blocks(text, &mask_code(text)).is_empty());
        assert_eq!(first_bold_line(text).as_deref(), Some("Title."));
    }

    #[test]
    fn bold_line_skips_details_and_keeps_inline_code() {
        let text = "_x_\n\n<details><summary>chain</summary>\n**Not this.**\n</details>\n\n**Bind `order_ref` as a parameter.**\n\nprose";
        assert_eq!(
            first_bold_line(text).as_deref(),
            Some("Bind `order_ref` as a parameter.")
        );
    }

    #[test]
    fn a_bold_label_after_opening_prose_is_no_title() {
        let text = "`HOOK_CMD` has plain quotes.\n\n**The Problem:**\n- they differ";
        assert_eq!(leading_bold_span(text), None);
        let badge = "<img alt=\"P1\" src=\"p1.svg\"> ⚠️ **Quote mismatch** breaks the check";
        assert_eq!(leading_bold_span(badge).as_deref(), Some("Quote mismatch"));
        let label = "Nit: **Unclear helper name.** `h2` says nothing.";
        assert_eq!(
            leading_bold_span(label).as_deref(),
            Some("Unclear helper name.")
        );
        let sentence = "The cleanup is too loose: **any** hook matches.";
        assert_eq!(leading_bold_span(sentence), None);
        assert_eq!(
            leading_bold_span("`36-41`: **Make `x` idempotent.** More").as_deref(),
            Some("Make `x` idempotent.")
        );
    }

    #[test]
    fn bold_span_in_prose() {
        let text = "`36-41`: **Make `x` idempotent.** More text";
        assert_eq!(
            first_bold_span(text).as_deref(),
            Some("Make `x` idempotent.")
        );
    }

    #[test]
    fn sentences() {
        assert_eq!(
            first_sentence("Use `hmac.compare_digest` here. It is constant-time."),
            "Use `hmac.compare_digest` here."
        );
        assert_eq!(
            first_sentence("Rounds .5 up, e.g. 2.5 to 3. Next."),
            "Rounds .5 up, e.g. 2.5 to 3."
        );
        assert_eq!(first_sentence("no end"), "no end");
    }

    #[test]
    fn paragraphs_drop_code_and_html() {
        let md = "First `code` para\nline two.\n\n```\nblock\n```\n\n<sub>x</sub> second ![alt](u)";
        assert_eq!(
            paragraphs(md, false),
            vec!["First para line two.", "x second"]
        );
        assert_eq!(paragraphs(md, true)[0], "First `code` para line two.");
        assert_eq!(
            paragraphs("(`a`)'s `b`-based", true)[0],
            "(`a`)'s `b`-based"
        );
    }

    #[test]
    fn shorten_on_char_boundary() {
        let s = "日本語のテキストです";
        let short = shorten(s, 5);
        assert_eq!(short.chars().count(), 5);
        assert!(short.ends_with('…'));
        assert_eq!(shorten("short", 10), "short");
    }

    #[test]
    fn crlf_and_callouts() {
        assert_eq!(normalize_newlines("a\r\nb\rc"), "a\nb\nc");
        let text = "> [!CAUTION]\n> <details>\n> x\n\n> quote";
        assert_eq!(
            unquote_detail_callouts(text),
            "[!CAUTION]\n<details>\nx\n\n> quote"
        );
    }

    #[test]
    #[allow(clippy::disallowed_methods)] // times the scan: a test, not the engine
    fn hostile_structure_stays_fast() {
        let many = "<details><summary>x".repeat(20_000) + &"é<!--".repeat(5_000);
        let start = std::time::Instant::now();
        let masked = mask_code(&many);
        assert_eq!(details_blocks(&many, &masked).len(), 20_000);
        let _ = strip_hidden(&many);
        // Quadratic scanning took ~50 s here in a debug build; linear takes ~2 s.
        assert!(start.elapsed().as_secs() < 20, "took {:?}", start.elapsed());
    }

    #[test]
    fn markdown_images_outside_code() {
        let text = "![kody code-review](https://x/k.svg) ![high](https://img.shields.io/badge/severity_level-high-6B6B92)\n\n`![no](x)`";
        assert_eq!(
            images(text),
            vec![
                ("kody code-review".to_owned(), "https://x/k.svg".to_owned()),
                (
                    "high".to_owned(),
                    "https://img.shields.io/badge/severity_level-high-6B6B92".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn the_first_visible_line_skips_comments_definitions_and_blank_lines() {
        let cases = [
            (
                "[//]: # (cs-code-health)\n❌ New issue: X\nmore",
                "❌ New issue: X",
            ),
            (
                "\n\n<!-- a -->\n\n[//]: # \"b\"\n[comment]: <> (c)\n\n**T**\n",
                "**T**",
            ),
            ("<!-- multi\nline --> 🔴 **Title**\nbelow", "🔴 **Title**"),
            (
                "[1]: https://example.com/x\n![high](u) text",
                "![high](u) text",
            ),
            // Not definitions: a reference link, a label without a destination, prose.
            (
                "[x][1] is visible\n\n[1]: https://e.com",
                "[x][1] is visible",
            ),
            ("[note]: \nvisible", "[note]: "),
            ("plain\n[//]: # (x)", "plain"),
            ("<!-- unclosed\nall hidden", ""),
            ("", ""),
        ];
        for (text, first) in cases {
            assert_eq!(first_visible_line(text).0, first, "{text:?}");
        }
        let text = "<!-- id -->\n[//]: # (x)\nline one\nline two";
        assert_eq!(visible_start(text), "line one\nline two");
        assert_eq!(first_visible_line(text), ("line one", "line two"));
    }

    #[test]
    fn comments_and_strip_hidden() {
        let text = "keep <!-- cr-comment:v1:ab --> this\n```\n<!-- not -->\n```";
        assert_eq!(html_comments(text), vec!["cr-comment:v1:ab"]);
        assert!(!strip_hidden(text).contains("cr-comment"));
    }
}
