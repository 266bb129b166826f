//! Readers the bot adapters share: bot markdown and HTML, inline review comments, reply
//! threads, linked-issue assessment tables, the common helpers (anchors, identity,
//! provenance) and the one taxonomy.

pub mod common;
pub mod html;
pub mod inline;
pub mod linked_issues;
pub mod markdown;
pub(crate) mod prose;
pub mod signals;
pub mod taxonomy;
pub(crate) mod threads;
