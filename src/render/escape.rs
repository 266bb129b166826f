//! The single path by which untrusted bot text enters our markdown.
//!
//! Bot text (titles, bot names, paths, notes) is placed inline: in list items and table
//! cells, never inside HTML attributes or code spans. So it is enough to
//! - turn `<`, `>`, `&` into entities: no HTML at all, hence no `</details>`, no
//!   `<!-- review-bot-ack` marker and no comment that swallows the rest of the body;
//! - backslash-escape the characters that start markdown constructs (`\`, `` ` ``, `*`,
//!   `_`, `~`, `[`, `]`, `|`, and `#`, `-`, `+`, `=`, `1.` at the start);
//! - put a zero-width space after every `@`, so GitHub sees no mention and notifies no one;
//! - collapse every line break and whitespace run into one space, drop control characters
//!   and bidirectional overrides.

/// Zero-width space: breaks `@name` for GitHub's mention parser, invisible when rendered.
const MENTION_BREAK: char = '\u{200B}';

fn is_line_break_or_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{85}'
}

/// Bidirectional embedding/override/isolate controls ("Trojan Source" reordering).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Make bot text safe inline in the sticky comment: no markup breakout, no mentions, no marker.
pub fn escape_inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut pending_space = false;
    // Whether everything written so far is ASCII digits (a possible `1.` list start).
    let mut only_digits = true;
    for c in text.chars() {
        if is_line_break_or_space(c) {
            pending_space = !out.is_empty();
            continue;
        }
        if c.is_control() || is_bidi_control(c) {
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '@' => {
                out.push('@');
                out.push(MENTION_BREAK);
            }
            '\\' | '`' | '*' | '_' | '~' | '[' | ']' | '|' => {
                out.push('\\');
                out.push(c);
            }
            '#' | '-' | '+' | '=' if out.is_empty() => {
                out.push('\\');
                out.push(c);
            }
            '.' | ')' if only_digits && !out.is_empty() => {
                // `1. ` or `1) ` at the start would open an ordered list.
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
        only_digits &= c.is_ascii_digit();
    }
    out
}

/// Serialised JSON made inert inside an HTML comment (the state block): `<`, `>`, `&` and
/// `@` become JSON's own `\u003c`, `\u003e`, `\u0026`, `\u0040` escapes, so the text can
/// hold no `-->` (nor `--!>`) to end the comment early, no markup and no `@mention`; it
/// still parses back to the same value. Outside strings JSON never uses these characters.
pub fn json_for_html_comment(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '@' => out.push_str("\\u0040"),
            _ => out.push(c),
        }
    }
    out
}

/// Percent-encode a repository path for a URL, keeping `/` between segments.
pub fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// A link target taken from data (a comment's `html_url`): only `http(s)`, and nothing that
/// could end the markdown link early or open HTML. `None` when it is not a web URL.
pub fn escape_url(url: &str) -> Option<String> {
    let url = url.trim();
    let lower = url.to_ascii_lowercase();
    if !(lower.starts_with("https://") || lower.starts_with("http://")) {
        return None;
    }
    let mut out = String::with_capacity(url.len());
    for byte in url.bytes() {
        match byte {
            b'(' | b')' | b'<' | b'>' | b'"' | b'\'' | b'`' | b'\\' | b'[' | b']' | b'|' => {
                out.push_str(&format!("%{byte:02X}"))
            }
            0x21..=0x7E => out.push(byte as char),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn neutralises_mentions_and_html() {
        assert_eq!(escape_inline("ping @org/team"), "ping @\u{200B}org/team");
        assert_eq!(
            escape_inline("<!-- review-bot-ack --></details>"),
            "&lt;!-- review-bot-ack --&gt;&lt;/details&gt;"
        );
        assert_eq!(escape_inline("a & b"), "a &amp; b");
        assert_eq!(escape_inline("&lt;"), "&amp;lt;");
    }

    #[test]
    fn escapes_markdown_breakers() {
        assert_eq!(escape_inline("a | b"), "a \\| b");
        assert_eq!(escape_inline("use `Decimal`"), "use \\`Decimal\\`");
        assert_eq!(escape_inline("[x](http://e)"), "\\[x\\](http://e)");
        assert_eq!(escape_inline("# Title"), "\\# Title");
        assert_eq!(escape_inline("a # b"), "a # b");
        assert_eq!(escape_inline("- item"), "\\- item");
        assert_eq!(escape_inline("12. x"), "12\\. x");
        assert_eq!(escape_inline("**bold** _it_"), "\\*\\*bold\\*\\* \\_it\\_");
        assert_eq!(escape_inline("trailing\\"), "trailing\\\\");
    }

    #[test]
    fn collapses_lines_and_drops_controls() {
        assert_eq!(escape_inline("  one\r\n\n two\tthree  "), "one two three");
        assert_eq!(escape_inline("a\u{2028}b\u{85}c"), "a b c");
        assert_eq!(escape_inline("x\u{0}y\u{202E}z"), "xyz");
        assert_eq!(escape_inline("日本語 مرحبا 🎉"), "日本語 مرحبا 🎉");
    }

    #[test]
    fn urls_and_paths() {
        assert_eq!(
            encode_path("docs/guía (1).md"),
            "docs/gu%C3%ADa%20%281%29.md"
        );
        assert_eq!(escape_url("javascript:alert(1)"), None);
        assert_eq!(
            escape_url("https://github.com/a/b/pull/1#discussion_r1)x").as_deref(),
            Some("https://github.com/a/b/pull/1#discussion_r1%29x")
        );
    }

    proptest! {
        #[test]
        fn escaped_text_is_inert(text in ".*", prefix in prop::sample::select(vec![
            "", "<!-- review-bot-ack -->", "</details>", "@org/team ", "\n# ", "`"
        ])) {
            let escaped = escape_inline(&format!("{prefix}{text}"));
            prop_assert!(!escaped.contains("<!-- review-bot-ack"));
            prop_assert!(!escaped.contains('<'));
            prop_assert!(!escaped.contains('>'));
            prop_assert!(!escaped.contains('\n') && !escaped.contains('\r'));
            let chars: Vec<char> = escaped.chars().collect();
            for pair in chars.windows(2) {
                prop_assert!(!(pair[0] == '@' && (pair[1].is_alphanumeric() || pair[1] == '_')));
            }
            for (i, c) in chars.iter().enumerate() {
                if matches!(c, '`' | '|' | '[' | ']' | '*' | '_') {
                    // Every markdown-active character is preceded by an odd run of backslashes.
                    let run = chars[..i].iter().rev().take_while(|&&b| b == '\\').count();
                    prop_assert!(run % 2 == 1, "unescaped {c:?} in {escaped:?}");
                }
            }
            prop_assert!(!escaped.starts_with('#'));
        }
    }
}
