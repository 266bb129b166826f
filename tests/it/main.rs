//! The integration tests: one binary, one module per area.

#[allow(dead_code)]
mod support;

mod checks;
mod fetch;
mod sticky;
