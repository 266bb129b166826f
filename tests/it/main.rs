//! The one integration-test binary: a module per area.

mod adapters;
mod adapters_more;
mod cli;
mod config;
mod engine;
mod outputs;
