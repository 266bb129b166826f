//! The sticky comment.

use crate::model::Outcome;

/// The marker every sticky comment's first line carries.
pub const MARKER: &str = "<!-- review-bot-ack -->";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderOptions {
    /// `comment-header` input: the marker becomes `<!-- review-bot-ack:HEADER -->`.
    pub header: Option<String>,
    /// Web base for file links (`https://github.com`); `None` renders loci unlinked.
    pub server_url: Option<String>,
    /// Body budget in characters.
    pub max_chars: usize,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            header: None,
            server_url: None,
            max_chars: 65_536,
        }
    }
}

/// The marker line for a header.
pub fn marker(header: Option<&str>) -> String {
    match header {
        Some(h) if !h.is_empty() => format!("<!-- review-bot-ack:{h} -->"),
        _ => MARKER.to_owned(),
    }
}

pub fn render_comment(outcome: &Outcome, options: &RenderOptions) -> String {
    let _ = (outcome, options);
    todo!("engine")
}
