//! Every built-in bot: one file per bot, named after it, and the registry below.
//!
//! Adding a bot: one file here implementing `Adapter`, one line in `registry!` below (it
//! declares the module and registers the adapter), a fixture test (docs/adapters.md).

use crate::adapters::Adapter;

/// `module::Adapter` lines: each declares `mod module;` and lists the adapter in
/// `REGISTRY`, in the order sources are listed.
macro_rules! registry {
    ($($module:ident :: $adapter:ident),* $(,)?) => {
        $(mod $module;)*

        /// Every built-in adapter, in the order sources are listed.
        pub(crate) static REGISTRY: &[&dyn Adapter] = &[$(&$module::$adapter),*];
    };
}

registry! {
    coderabbit::CodeRabbit,
    sourcery::Sourcery,
    gh_advanced_security::GhAdvancedSecurity,
    github_code_quality::GithubCodeQuality,
    copilot::Copilot,
    gemini::Gemini,
    qodo::Qodo,
    cursor_bugbot::CursorBugbot,
    greptile::Greptile,
    codex::Codex,
    deepsource::DeepSource,
    cubic::Cubic,
    kodus::Kodus,
    macroscope::Macroscope,
    codeant::CodeAnt,
    sentry::Sentry,
    claude::Claude,
    bito::Bito,
    korbit::Korbit,
    generic::Generic,
}
