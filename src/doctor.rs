//! `review-consensus doctor` (hidden): checks what a `FROM scratch` image could lack.
//!
//! It builds the HTTPS clients the action uses, for the environment's REST and GraphQL URLs
//! (GitHub.com by default). octocrab takes the TLS roots compiled into the binary (webpki
//! roots, feature `rustls-webpki-tokio`); set to the system's roots instead, building would
//! fail in the image, which has no CA store. No request is sent and no token is needed.

use crate::config::GitHubEnv;
use crate::github::GitHub;

/// Build the clients; `Ok` carries the one line to print.
pub fn check(env: &GitHubEnv) -> anyhow::Result<String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async { GitHub::new(&env.api_url, &env.graphql_url, None) })?;
    Ok(format!(
        "OK: HTTPS clients for {} and {} built with the bundled TLS roots",
        env.api_url, env.graphql_url
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_the_clients_for_github_com_by_default() {
        let env = GitHubEnv::from_vars(Vec::<(String, String)>::new());
        let line = check(&env).unwrap();
        assert!(line.starts_with("OK: "), "{line}");
        assert!(line.contains("https://api.github.com/graphql"), "{line}");
    }

    #[test]
    fn reports_a_url_it_cannot_use() {
        let env = GitHubEnv {
            api_url: "not a url".to_owned(),
            ..GitHubEnv::from_vars(Vec::<(String, String)>::new())
        };
        let err = check(&env).unwrap_err();
        assert!(format!("{err:#}").contains("not a url"), "{err:#}");
    }
}
