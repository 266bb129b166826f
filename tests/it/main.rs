//! The one integration-test binary: one module per area.

mod cli;
mod config;
mod outputs;
