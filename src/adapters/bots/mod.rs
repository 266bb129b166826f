//! Every built-in bot: one file per bot, named after it, and the registry below.
//!
//! Adding a bot: one file here implementing `Adapter`, its `mod` line and one line in
//! `REGISTRY`, and a fixture test (docs/adapters.md).

use crate::adapters::Adapter;

mod coderabbit;
mod codex;
mod copilot;
mod cursor_bugbot;
mod deepsource;
mod gemini;
mod generic;
mod gh_advanced_security;
mod greptile;
mod qodo;
mod sourcery;

/// Every built-in adapter, in the order sources are listed.
pub(crate) static REGISTRY: &[&dyn Adapter] = &[
    &coderabbit::CodeRabbit,
    &sourcery::Sourcery,
    &gh_advanced_security::GhAdvancedSecurity,
    &copilot::Copilot,
    &gemini::Gemini,
    &qodo::Qodo,
    &cursor_bugbot::CursorBugbot,
    &greptile::Greptile,
    &codex::Codex,
    &deepsource::DeepSource,
    &generic::Generic,
];
