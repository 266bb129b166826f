//! The one integration-test binary: a module per area.

#[allow(dead_code)]
mod support;

mod action;
mod adapters;
mod adapters_more;
mod checks;
mod cli;
mod config;
mod engine;
mod fetch;
mod outputs;
mod sticky;
