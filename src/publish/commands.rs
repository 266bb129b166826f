//! GitHub workflow commands (`::error::`, `::warning::`, `::group::`), escaped.
//!
//! Escaping follows the runner's `ActionCommand`: in the message `%`, CR and LF; in property
//! values also `:` and `,`. A message can therefore never start a second command line. Other
//! control characters (ESC, NUL, ...) and bidirectional controls never reach the log: they
//! are written as `\u{1b}`.

use crate::render::escape::is_hazard;

/// A workflow command line, e.g. `::error file=a.rs,line=3,title=T::message`.
pub fn command(name: &str, properties: &[(&str, String)], message: &str) -> String {
    let mut line = format!("::{name}");
    for (i, (key, value)) in properties.iter().enumerate() {
        line.push(if i == 0 { ' ' } else { ',' });
        line.push_str(key);
        line.push('=');
        line.push_str(&escape_property(value));
    }
    line.push_str("::");
    line.push_str(&escape_data(message));
    line
}

/// Escape a command's message.
pub fn escape_data(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c if is_hazard(c) => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    out
}

/// Escape a property value.
pub fn escape_property(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            ':' => out.push_str("%3A"),
            ',' => out.push_str("%2C"),
            c if is_hazard(c) => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    out
}

pub fn error(message: &str) -> String {
    command("error", &[], message)
}

pub fn warning(message: &str) -> String {
    command("warning", &[], message)
}

pub fn notice(message: &str) -> String {
    command("notice", &[], message)
}

/// Start a folded log section.
pub fn group(title: &str) -> String {
    command("group", &[], title)
}

pub fn endgroup() -> String {
    "::endgroup::".to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_escapes_percent_and_line_breaks_only() {
        let line = command("error", &[], "50% done\r\nnext: a,b");
        assert_eq!(line, "::error::50%25 done%0D%0Anext: a,b");
    }

    #[test]
    fn properties_also_escape_colon_and_comma() {
        let line = command(
            "warning",
            &[
                ("file", "src/a,b.rs".to_owned()),
                ("line", "7".to_owned()),
                ("title", "x: 1%\ny".to_owned()),
            ],
            "m",
        );
        assert_eq!(
            line,
            "::warning file=src/a%2Cb.rs,line=7,title=x%3A 1%25%0Ay::m"
        );
    }

    #[test]
    fn a_message_cannot_inject_a_second_command() {
        let line = error("oops\n::add-mask::secret");
        assert_eq!(line.lines().count(), 1);
        assert!(line.starts_with("::error::"));
    }

    #[test]
    fn control_and_bidi_characters_never_reach_the_log() {
        let line = command(
            "error",
            &[("title", "t\u{1b}[2J\u{202E}".to_owned())],
            "x\u{0}\u{1b}]0;owned\u{7}\u{2066}y",
        );
        assert!(!line.chars().any(is_hazard), "{line:?}");
        assert_eq!(
            line,
            "::error title=t\\u{1b}[2J\\u{202e}::x\\u{0}\\u{1b}]0;owned\\u{7}\\u{2066}y"
        );
    }

    #[test]
    fn helpers_produce_the_plain_commands() {
        assert_eq!(notice("hi"), "::notice::hi");
        assert_eq!(warning("w"), "::warning::w");
        assert_eq!(group("Fetch"), "::group::Fetch");
        assert_eq!(endgroup(), "::endgroup::");
    }
}
