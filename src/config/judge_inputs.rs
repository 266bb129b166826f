//! The judge's inputs (`judge`, `judge-model`, `judge-endpoint`, `judge-token`,
//! `judge-max-pairs`, `judge-keep`), validated together: the endpoint must be https (or a
//! loopback host, for tests), and the workflow's GitHub token only ever goes to a GitHub
//! host.

use secrecy::{ExposeSecret, SecretString};

use super::ConfigError;
use crate::judge::{Provider, Settings, DEFAULT_MAX_PAIRS, GITHUB_MODELS_ENDPOINT};

/// The most pairs one run may ask about.
pub const MAX_PAIRS_LIMIT: usize = 500;

/// The inputs as given (trimmed, empty = unset).
pub(super) struct Raw<'a> {
    pub judge: Option<&'a str>,
    pub model: Option<&'a str>,
    pub endpoint: Option<&'a str>,
    pub token: Option<&'a str>,
    pub max_pairs: Option<&'a str>,
    pub keep: Option<&'a str>,
}

fn error(input: &str, message: impl Into<String>) -> ConfigError {
    ConfigError {
        input: input.to_owned(),
        message: message.into(),
    }
}

/// The token for the judge's endpoint, or why there is none: asked for only when the run
/// calls the endpoint (`render --judge-answers` replays without one).
pub type JudgeToken = Result<SecretString, ConfigError>;

/// The settings and the token for the endpoint. `github_token` is the workflow's token,
/// `github_hosts` the hosts of this run's GitHub (`GITHUB_API_URL`, `GITHUB_SERVER_URL`:
/// GitHub Enterprise Server's, on such a runner). An input that is wrong is an error now;
/// a missing token is an error when the endpoint is called.
pub(super) fn parse(
    raw: &Raw<'_>,
    github_token: Option<&SecretString>,
    github_hosts: &[String],
) -> Result<(Settings, Option<JudgeToken>), ConfigError> {
    let provider = match raw.judge {
        None => Provider::Off,
        Some(text) => Provider::parse(&text.to_ascii_lowercase()).ok_or_else(|| {
            error(
                "judge",
                format!(
                    "`{text}` is not a judge; accepted: {} (default off)",
                    Provider::ACCEPTED
                ),
            )
        })?,
    };
    let mut settings = Settings {
        provider,
        ..Settings::default()
    };
    if let Some(model) = raw.model {
        settings.model = parse_model(model)?;
    }
    if let Some(text) = raw.max_pairs {
        settings.max_pairs = match text.parse::<usize>() {
            Ok(n) if n <= MAX_PAIRS_LIMIT => n,
            _ => {
                return Err(error(
                    "judge-max-pairs",
                    format!(
                        "`{text}` is not a number of pairs; accepted: 0 to {MAX_PAIRS_LIMIT} \
                         (default {DEFAULT_MAX_PAIRS})"
                    ),
                ))
            }
        };
    }
    if let Some(text) = raw.keep {
        settings.keep = match text.parse::<f64>() {
            Ok(x) if x > 0.0 && x <= 1.0 => x,
            _ => {
                return Err(error(
                    "judge-keep",
                    format!(
                        "`{text}` is not a probability; accepted: above 0, at most 1 (default 0.95)"
                    ),
                ))
            }
        };
    }
    settings.endpoint = match (raw.endpoint, provider) {
        (Some(url), _) => parse_endpoint(url)?,
        (None, Provider::OpenAi) => {
            return Err(error(
                "judge-endpoint",
                "required with `judge: openai`: the chat-completions URL, such as \
                 `https://api.openai.com/v1/chat/completions`",
            ))
        }
        (None, _) => GITHUB_MODELS_ENDPOINT.to_owned(),
    };
    if provider == Provider::Off {
        return Ok((settings, None));
    }
    let host = host_of(&settings.endpoint)
        .unwrap_or_default()
        .to_ascii_lowercase();
    let github_host = is_github_host(&host, github_hosts);
    let token = match (raw.token, provider) {
        (Some(token), _) => Ok(SecretString::from(token.to_owned())),
        (None, Provider::GitHubModels) if github_host => github_token.cloned().ok_or_else(|| {
            error(
                "judge-token",
                "no token for GitHub Models: the workflow's `github-token` is empty; pass \
                 `${{ github.token }}` with `permissions: models: read`",
            )
        }),
        (None, Provider::GitHubModels) => {
            return Err(error(
                "judge-endpoint",
                format!(
                    "`{host}` is not a GitHub host, and the workflow's token goes only to \
                     GitHub: pass `judge-token` for it, or use `judge: openai`"
                ),
            ))
        }
        (None, _) => Err(error(
            "judge-token",
            "required with `judge: openai`: pass the endpoint's key from a secret, such \
             as `${{ secrets.OPENAI_API_KEY }}`",
        )),
    };
    if let Ok(token) = &token {
        let same_as_github =
            github_token.is_some_and(|g| g.expose_secret() == token.expose_secret());
        if same_as_github && !github_host {
            return Err(error(
                "judge-token",
                format!(
                    "is the workflow's GitHub token, and `{host}` is not a GitHub host: the \
                     GitHub token never leaves GitHub; pass the endpoint's own key"
                ),
            ));
        }
    }
    Ok((settings, Some(token)))
}

/// `judge-model`: a catalogue name such as `openai/gpt-4.1-mini`, plain characters only.
fn parse_model(text: &str) -> Result<String, ConfigError> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._:-".contains(c);
    if text.len() > 100 || !text.chars().all(plain) {
        return Err(error(
            "judge-model",
            "accepted: a model name of letters, digits and `/._:-`, such as \
             `openai/gpt-4.1-mini`, at most 100 characters",
        ));
    }
    Ok(text.to_owned())
}

/// `judge-endpoint`: an https URL, or http to a loopback host (a local model, a test).
fn parse_endpoint(url: &str) -> Result<String, ConfigError> {
    let accepted = "accepted: an https URL of a chat-completions endpoint (http only to \
                    127.0.0.1, ::1 or localhost)";
    let bad = |why: &str| error("judge-endpoint", format!("`{url}` {why}; {accepted}"));
    let (scheme, _) = url.split_once("://").ok_or_else(|| bad("is not a URL"))?;
    let host = host_of(url)
        .filter(|h| !h.is_empty())
        .ok_or_else(|| bad("has no host"))?;
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) || url.contains('@') {
        return Err(bad("has spaces, control characters or credentials"));
    }
    match scheme.to_ascii_lowercase().as_str() {
        "https" => Ok(url.to_owned()),
        "http" if is_loopback(host) => Ok(url.to_owned()),
        "http" => Err(bad("is not https")),
        _ => Err(bad("is not an http(s) URL")),
    }
}

/// The host of a URL (no scheme, port, path or brackets); `None` without `://`.
pub(super) fn host_of(url: &str) -> Option<&str> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(v6),
        None => authority.rsplit_once(':').map_or(authority, |(h, _)| h),
    };
    Some(host)
}

fn is_loopback(host: &str) -> bool {
    let host = host.to_ascii_lowercase();
    host == "localhost"
        || host == "::1"
        || host
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// GitHub's own hosts, this run's GitHub (Enterprise Server), and loopback (the runner
/// itself, where tests put their fake endpoints).
fn is_github_host(host: &str, github_hosts: &[String]) -> bool {
    let under = |domain: &str| host == domain || host.ends_with(&format!(".{domain}"));
    under("github.com")
        || under("github.ai")
        || under("ghe.com")
        || github_hosts.iter().any(|h| h.eq_ignore_ascii_case(host))
        || is_loopback(host)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw<'a>(judge: &'a str, endpoint: Option<&'a str>, token: Option<&'a str>) -> Raw<'a> {
        Raw {
            judge: Some(judge),
            model: None,
            endpoint,
            token,
            max_pairs: None,
            keep: None,
        }
    }

    fn workflow() -> SecretString {
        SecretString::from("workflow-token-0123456789abcdef".to_owned())
    }

    #[test]
    fn github_models_uses_the_workflow_token_on_githubs_host_only() {
        let (settings, token) =
            parse(&raw("github-models", None, None), Some(&workflow()), &[]).unwrap();
        assert_eq!(settings.endpoint, GITHUB_MODELS_ENDPOINT);
        assert_eq!(
            token.unwrap().unwrap().expose_secret(),
            workflow().expose_secret()
        );
        let (_, none) = parse(&raw("github-models", None, None), None, &[]).unwrap();
        assert_eq!(none.unwrap().unwrap_err().input, "judge-token");
        // Another host: the workflow token is not sent there.
        let err = parse(
            &raw(
                "github-models",
                Some("https://llm.example.com/v1/chat/completions"),
                None,
            ),
            Some(&workflow()),
            &[],
        )
        .unwrap_err();
        assert_eq!(err.input, "judge-endpoint");
        assert!(
            err.message.contains("goes only to GitHub"),
            "{}",
            err.message
        );
        // GitHub Enterprise Server's own host is GitHub's.
        let ghes = ["ghe.corp.example".to_owned()];
        assert!(parse(
            &raw(
                "github-models",
                Some("https://ghe.corp.example/models/chat/completions"),
                None
            ),
            Some(&workflow()),
            &ghes
        )
        .is_ok());
    }

    #[test]
    fn openai_needs_an_endpoint_and_its_own_key() {
        let err = parse(&raw("openai", None, Some("sk-x")), None, &[]).unwrap_err();
        assert_eq!(err.input, "judge-endpoint");
        let url = Some("https://api.openai.com/v1/chat/completions");
        let (_, token) = parse(&raw("openai", url, None), Some(&workflow()), &[]).unwrap();
        assert_eq!(token.unwrap().unwrap_err().input, "judge-token");
        let err = parse(
            &raw("openai", url, Some("workflow-token-0123456789abcdef")),
            Some(&workflow()),
            &[],
        )
        .unwrap_err();
        assert!(
            err.message.contains("never leaves GitHub"),
            "{}",
            err.message
        );
        let (settings, token) =
            parse(&raw("openai", url, Some("sk-key")), Some(&workflow()), &[]).unwrap();
        assert_eq!(settings.provider, Provider::OpenAi);
        assert_eq!(token.unwrap().unwrap().expose_secret(), "sk-key");
    }

    #[test]
    fn endpoints_are_https_except_on_loopback() {
        assert!(parse_endpoint("http://127.0.0.1:8080/v1/chat/completions").is_ok());
        assert!(parse_endpoint("http://[::1]:9/x").is_ok());
        assert!(parse_endpoint("http://localhost/x").is_ok());
        for bad in [
            "http://models.example.com/x",
            "ftp://x/y",
            "models.github.ai",
            "https://user:pw@x.example/y",
        ] {
            let err = parse_endpoint(bad).unwrap_err();
            assert_eq!(err.input, "judge-endpoint", "{bad}");
        }
        assert_eq!(host_of("https://[::1]:8/x"), Some("::1"));
        assert_eq!(
            host_of("https://models.github.ai/inference"),
            Some("models.github.ai")
        );
    }

    #[test]
    fn bad_values_name_their_input() {
        let mut r = raw("maybe", None, None);
        assert_eq!(parse(&r, None, &[]).unwrap_err().input, "judge");
        r.judge = Some("off");
        r.max_pairs = Some("-3");
        assert_eq!(parse(&r, None, &[]).unwrap_err().input, "judge-max-pairs");
        r.max_pairs = None;
        r.keep = Some("1.5");
        assert_eq!(parse(&r, None, &[]).unwrap_err().input, "judge-keep");
        r.keep = None;
        r.model = Some("gpt 4; rm -rf");
        assert_eq!(parse(&r, None, &[]).unwrap_err().input, "judge-model");
        // Off needs no token.
        assert_eq!(
            parse(&raw("off", None, None), None, &[])
                .unwrap()
                .1
                .map(|_| ()),
            None
        );
    }
}
