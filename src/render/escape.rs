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

/// A character that must never reach a log line, a workflow command or an annotation as
/// itself: C0/C1 controls (ESC, NUL, DEL, ...), bidirectional controls and marks, line and
/// paragraph separators, the byte-order mark.
pub fn is_hazard(c: char) -> bool {
    c.is_control()
        || is_bidi_control(c)
        || matches!(
            c,
            '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{2028}' | '\u{2029}' | '\u{FEFF}'
        )
}

/// Text from a server or a bot for one log line: every hazard shown escaped (`\n`,
/// `\u{1b}`), so it can neither start a line of its own (a `::set-output` workflow
/// command) nor move the terminal; at most `max_chars` characters (escapes included),
/// then `…`.
pub fn one_line(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars + 8));
    let mut count = 0;
    for c in text.chars() {
        let piece: String = if matches!(c, '\n' | '\r' | '\t' | '\0') {
            c.escape_debug().collect()
        } else if is_hazard(c) {
            c.escape_unicode().collect()
        } else {
            c.to_string()
        };
        let len = piece.chars().count();
        if count + len > max_chars {
            out.push('…');
            break;
        }
        out.push_str(&piece);
        count += len;
    }
    out
}

/// GitHub's token formats (`ghp_`, `ghs_`, `gho_`, `ghu_`, `ghr_`, `github_pat_`).
fn token_pattern() -> &'static regex::Regex {
    static PATTERN: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    PATTERN.get_or_init(|| {
        regex::Regex::new(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})")
            .unwrap_or_else(|err| unreachable!("a fixed pattern: {err}"))
    })
}

/// Text with every `secret` (a token we were given) and anything shaped like a GitHub
/// token replaced by `***`: an API message that echoes the token reaches no log, comment,
/// summary or report.
pub fn redact(text: &str, secrets: &[&str]) -> String {
    let mut out = text.to_owned();
    for secret in secrets.iter().filter(|s| s.len() >= 8) {
        if out.contains(*secret) {
            out = out.replace(*secret, "***");
        }
    }
    match token_pattern().replace_all(&out, "***") {
        std::borrow::Cow::Borrowed(_) => out,
        std::borrow::Cow::Owned(replaced) => replaced,
    }
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

/// `text` as an inline code span, when it is made only of ASCII letters, digits, spaces
/// and `-_=.,:[]` (a login such as `codacy-production[bot]`, a `bots: generic=<login>`
/// hint): such text can close no span, hold no markup and mention no one. Anything else is
/// `None`: put it through `escape_inline` instead.
pub fn plain_code_span(text: &str) -> Option<String> {
    let plain = !text.trim().is_empty()
        && text.len() <= 400
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || " -_=.,:[]".contains(c));
    plain.then(|| format!("`{text}`"))
}

/// Serialised JSON made inert inside an HTML comment (the state block): `<`, `>`, `&` and
/// `@` become JSON's own `\u003c`, `\u003e`, `\u0026`, `\u0040` escapes, so the text can
/// hold no `-->` (nor `--!>`) to end the comment early, no markup and no `@mention`; so do
/// the hazards JSON leaves as they are (bidirectional controls, DEL, C1 controls), so the
/// comment carries none into a check run or a job summary. It still parses back to the same
/// value. Outside strings JSON never uses these characters.
pub fn json_for_html_comment(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '@' => out.push_str("\\u0040"),
            // Every hazard is in the basic plane: four hex digits.
            c if is_hazard(c) => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            _ => out.push(c),
        }
    }
    out
}

/// Make bot text safe in a SARIF message (`message.text`, plain text): one line, no control
/// characters or bidirectional overrides, no `@mention`, and no embedded link: SARIF reads
/// `[text](id)` as a link to a related location, so a `]` before `(` is escaped as `\]`, and
/// backslashes before a bracket are doubled (the spec's escapes, shown as the plain text).
pub fn sarif_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 4);
    let mut pending_space = false;
    let chars: Vec<char> = text
        .chars()
        .filter(|&c| is_line_break_or_space(c) || !(c.is_control() || is_bidi_control(c)))
        .collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if is_line_break_or_space(c) {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        match c {
            '@' => {
                out.push('@');
                out.push(MENTION_BREAK);
            }
            '\\' => {
                let run = 1 + chars[i..].iter().take_while(|&&b| b == '\\').count();
                i += run - 1;
                let before_bracket = matches!(chars.get(i), Some('[' | ']'));
                let copies = if before_bracket { 2 * run } else { run };
                out.extend(std::iter::repeat_n('\\', copies));
            }
            ']' if chars.get(i) == Some(&'(') => out.push_str("\\]"),
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
    fn one_line_escapes_every_hazard_and_caps_the_length() {
        let text = "a\n::set-output name=gate::pass\r\u{1b}[31mred\u{0}\u{202E}x\ty";
        let line = one_line(text, 200);
        assert_eq!(
            line,
            "a\\n::set-output name=gate::pass\\r\\u{1b}[31mred\\0\\u{202e}x\\ty"
        );
        assert!(!line.chars().any(is_hazard));
        assert_eq!(one_line("日本語 text", 3), "日本語…");
        assert_eq!(one_line("\u{1b}\u{1b}", 9), "\\u{1b}…", "escapes count");
        assert_eq!(one_line("short", 5), "short");
    }

    #[test]
    fn redact_hides_the_token_and_githubs_token_shapes() {
        let token = "fake-test-token-TESTTOKEN0123456789abcdef";
        let echoed = format!("Bad credentials: {token} (also ghs_{})", "A".repeat(36));
        assert_eq!(redact(&echoed, &[token]), "Bad credentials: *** (also ***)");
        assert_eq!(redact("nothing secret", &[token, ""]), "nothing secret");
        assert_eq!(redact("ghp_short", &[]), "ghp_short");
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

    #[test]
    fn only_plain_text_becomes_a_code_span() {
        assert_eq!(
            plain_code_span("bots: generic=codacy-production[bot]").as_deref(),
            Some("`bots: generic=codacy-production[bot]`")
        );
        for hostile in ["a`b", "@team", "x<!-- review-bot-ack -->", "a\nb", "", "é"] {
            assert_eq!(plain_code_span(hostile), None, "{hostile:?}");
        }
    }

    #[test]
    fn sarif_text_makes_no_link_and_no_mention() {
        assert_eq!(sarif_text("see [x](1) now"), "see [x\\](1) now");
        assert_eq!(sarif_text("[nitpick] a [b]"), "[nitpick] a [b]");
        assert_eq!(sarif_text("a\\](2)"), "a\\\\\\](2)");
        assert_eq!(sarif_text("C:\\dir\\x"), "C:\\dir\\x");
        assert_eq!(
            sarif_text("hi @bob\n\tbye\u{0}\u{202E}"),
            "hi @\u{200B}bob bye"
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

        #[test]
        fn sarif_text_is_inert(text in "[a-z@\\\\\\[\\]() \n\u{0}]*") {
            let escaped = sarif_text(&text);
            let chars: Vec<char> = escaped.chars().collect();
            prop_assert!(!chars.iter().any(|c| c.is_control()));
            for pair in chars.windows(2) {
                prop_assert!(!(pair[0] == '@' && pair[1].is_alphanumeric()));
            }
            for (i, pair) in chars.windows(2).enumerate() {
                if pair == [']', '('] {
                    // Escaped: preceded by an odd run of backslashes.
                    let run = chars[..i].iter().rev().take_while(|&&b| b == '\\').count();
                    prop_assert!(run % 2 == 1, "a link in {escaped:?}");
                }
            }
        }
    }
}
