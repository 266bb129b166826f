//! Every built-in bot: one file per bot, named after it, and the registry below.
//!
//! Adding a bot: one file here implementing `Adapter`, and its entry in the registry: a
//! `mod` line and a `REGISTRY` line, side by side below (plain `mod` items, not a macro, so
//! that `cargo fmt` reaches every bot file); then a fixture test (docs/adapters.md).

use crate::adapters::Adapter;

mod amazon_q;
mod bito;
mod claude;
mod claude_code_review;
mod codacy;
mod codeant;
mod codecov_ai;
mod codefactor;
mod coderabbit;
mod codescene;
mod codex;
mod copilot;
mod cubic;
mod cursor_bugbot;
mod deepsource;
mod devin;
mod gemini;
mod generic;
mod gh_advanced_security;
mod github_code_quality;
mod gitstream;
mod greptile;
mod kodus;
mod korbit;
mod macroscope;
mod qodo;
mod sentry;
mod sourcery;

/// Every built-in adapter, in the order sources are listed.
pub(crate) static REGISTRY: &[&dyn Adapter] = &[
    &coderabbit::CodeRabbit,
    &sourcery::Sourcery,
    &gh_advanced_security::GhAdvancedSecurity,
    &github_code_quality::GithubCodeQuality,
    &copilot::Copilot,
    &gemini::Gemini,
    &qodo::Qodo,
    &cursor_bugbot::CursorBugbot,
    &greptile::Greptile,
    &codex::Codex,
    &deepsource::DeepSource,
    &cubic::Cubic,
    &kodus::Kodus,
    &macroscope::Macroscope,
    &codeant::CodeAnt,
    &sentry::Sentry,
    &codecov_ai::CodecovAi,
    &claude::Claude,
    &claude_code_review::ClaudeCodeReview,
    &devin::Devin,
    &codescene::CodeScene,
    &gitstream::GitStream,
    &bito::Bito,
    &amazon_q::AmazonQ,
    &codacy::Codacy,
    &codefactor::CodeFactor,
    &korbit::Korbit,
    &generic::Generic,
];
