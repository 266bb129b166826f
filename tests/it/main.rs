//! One integration-test binary: one module per area.
// Tests read fixtures and set up environments: the purity lints are for src/ only.
#![allow(clippy::disallowed_methods)]

mod action_yml;
