//! The one integration-test binary: a module per area.
// Tests read fixtures and set up environments: the purity lints are for src/ only.
#![allow(clippy::disallowed_methods)]

#[allow(dead_code)]
mod support;

mod action;
mod action_yml;
mod adapters;
mod adapters_more;
mod checks;
mod cli;
mod config;
mod engine;
mod fetch;
mod github_descriptions;
mod hostile;
mod identity;
mod judge;
mod outputs;
mod real;
mod sarif;
mod signals;
mod stats;
mod sticky;
