//! Small readers for the raw HTML that bots embed in Markdown (badge `<img>`s, `<h3>`
//! titles, `<td>` cells, hidden `<!-- … -->` markers). pulldown-cmark hands HTML through
//! as opaque text, so these work on that text; callers run them on a code-masked view when
//! fenced code could contain look-alike tags.

/// The text between the first `start` and the next `end` after it.
pub(crate) fn between<'a>(text: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = text.find(start)? + start.len();
    let to = text[from..].find(end)? + from;
    Some(&text[from..to])
}

/// An `<img>` tag's `alt` and `src`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Img {
    pub alt: String,
    pub src: String,
}

/// Every `<img …>` tag in `text`, in order.
pub(crate) fn images(text: &str) -> Vec<Img> {
    let lower = text.to_ascii_lowercase();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(pos) = lower[from..].find("<img") {
        let start = from + pos;
        let end = lower[start..].find('>').map_or(text.len(), |e| start + e);
        let tag = &text[start..end];
        out.push(Img {
            alt: attr(tag, "alt").unwrap_or_default(),
            src: attr(tag, "src").unwrap_or_default(),
        });
        from = end;
    }
    out
}

/// An image's file name without its query, fragment and extension, where bots encode a
/// badge's meaning: `https://…/high-priority.svg?v=2` -> `high-priority`.
pub(crate) fn src_stem(src: &str) -> &str {
    let path = src.split(['?', '#']).next().unwrap_or(src);
    let file = path.rsplit('/').next().unwrap_or(path);
    file.rsplit_once('.').map_or(file, |(stem, _)| stem)
}

/// The value of attribute `name` in one tag's text (`name="v"`, `name='v'` or `name=v`).
pub(crate) fn attr(tag: &str, name: &str) -> Option<String> {
    let lower = tag.to_ascii_lowercase();
    let mut from = 0;
    while let Some(pos) = lower[from..].find(name) {
        let at = from + pos;
        from = at + name.len();
        let preceded_by_space = at > 0 && lower.as_bytes()[at - 1].is_ascii_whitespace();
        let rest = tag[from..].trim_start();
        let Some(rest) = rest.strip_prefix('=').filter(|_| preceded_by_space) else {
            continue;
        };
        let rest = rest.trim_start();
        let value = match rest.chars().next() {
            Some(q @ ('"' | '\'')) => rest[1..].split(q).next().unwrap_or(""),
            _ => rest
                .split(|c: char| c.is_whitespace() || c == '>' || c == '/')
                .next()
                .unwrap_or(""),
        };
        return Some(value.to_owned());
    }
    None
}

/// A shields.io static badge URL (`https://img.shields.io/badge/<label>-<message>-<color>`,
/// or `<message>-<color>` without a label) as (label, message), decoded: `--` is a dash,
/// `__` an underscore, `_` and `%20` spaces. `None` for any other URL.
pub(crate) fn shields_badge(url: &str) -> Option<(String, String)> {
    let path = url.split(['?', '#']).next()?;
    let badge = path.split_once("img.shields.io/badge/")?.1;
    // Split on single dashes only (`--` is an escaped dash).
    let marked = badge.replace("--", "\u{1}");
    let parts: Vec<String> = marked
        .split('-')
        .map(|p| {
            p.replace('\u{1}', "-")
                .replace("__", "\u{2}")
                .replace('_', " ")
                .replace('\u{2}', "_")
                .replace("%20", " ")
                .trim()
                .to_owned()
        })
        .collect();
    match parts.as_slice() {
        [label, message, _color] => Some((label.clone(), message.clone())),
        [message, _color] => Some((String::new(), message.clone())),
        _ => None,
    }
}

/// Text with tags and HTML comments removed and the common entities decoded, whitespace
/// collapsed: what a reader sees of a cell or heading.
pub(crate) fn strip_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let after = &rest[open..];
        let close = if after.starts_with("<!--") {
            after.find("-->").map(|i| i + 3)
        } else {
            after.find('>').map(|i| i + 1)
        };
        match close {
            Some(close) => {
                out.push(' ');
                rest = &after[close..];
            }
            None => {
                // an unclosed `<` is text (`a < b`)
                out.push('<');
                rest = &after[1..];
            }
        }
    }
    out.push_str(rest);
    let decoded = out
        .replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    decoded.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_image_stem_is_its_file_name_without_query_or_extension() {
        assert_eq!(
            src_stem("https://x/badges/high-priority.svg?v=2#a"),
            "high-priority"
        );
        assert_eq!(src_stem("severity_major.svg"), "severity_major");
        assert_eq!(src_stem("https://x/badge/p1"), "p1");
    }

    #[test]
    fn reads_img_attributes_in_any_quoting() {
        let imgs =
            images(r#"<a><IMG alt="P1" src='https://x/p1.svg?v=9' align=top></a><img src=y.svg/>"#);
        assert_eq!(
            imgs,
            vec![
                Img {
                    alt: "P1".into(),
                    src: "https://x/p1.svg?v=9".into()
                },
                Img {
                    alt: String::new(),
                    src: "y.svg".into()
                }
            ]
        );
        assert_eq!(
            attr(r#"<img data-alt="no" alt="yes">"#, "alt").as_deref(),
            Some("yes")
        );
    }

    #[test]
    fn shields_badges() {
        assert_eq!(
            shields_badge("https://img.shields.io/badge/severity_level-high-6B6B92"),
            Some(("severity level".into(), "high".into()))
        );
        assert_eq!(
            shields_badge("https://img.shields.io/badge/Bug-B71C1C"),
            Some((String::new(), "Bug".into()))
        );
        assert_eq!(
            shields_badge("https://img.shields.io/badge/Error%20Handling-db2777?style=flat"),
            Some((String::new(), "Error Handling".into()))
        );
        assert_eq!(
            shields_badge("https://img.shields.io/badge/kody-code--review-blue"),
            Some(("kody".into(), "code-review".into()))
        );
        assert_eq!(shields_badge("https://example.com/badge/P1-orange"), None);
    }

    #[test]
    fn strips_tags_comments_and_entities() {
        assert_eq!(
            strip_tags("<h3><picture><img src=x></picture>Fix&nbsp;the <code>a &lt; b</code> case<!-- id --></h3>"),
            "Fix the a < b case"
        );
        assert_eq!(strip_tags("a < b and <unclosed"), "a < b and <unclosed");
        assert_eq!(between("x<!-- A: 1 -->y", "<!-- A:", "-->"), Some(" 1 "));
    }
}
