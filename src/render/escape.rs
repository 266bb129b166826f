//! The single path by which untrusted bot text enters our markdown.

/// Make bot text safe inline in the sticky comment: no markup breakout, no mentions, no marker.
pub fn escape_inline(text: &str) -> String {
    let _ = text;
    todo!("engine")
}
