//! GitHub workflow commands (`::error::`, `::warning::`, `::group::`), escaped.

/// A workflow command line, e.g. `::error file=a.rs,line=3,title=T::message`.
pub fn command(name: &str, properties: &[(&str, String)], message: &str) -> String {
    let _ = (name, properties, message);
    todo!("edge-config")
}
