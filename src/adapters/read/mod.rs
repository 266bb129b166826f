//! Readers the bot adapters share: bot markdown and HTML, inline review comments, reply
//! threads, the common helpers (anchors, identity, provenance) and the one taxonomy.

pub mod common;
pub mod html;
pub mod inline;
pub mod markdown;
pub mod signals;
pub mod taxonomy;
pub(crate) mod threads;
