//! Who may acknowledge a finding: the commenter's permission on the repository
//! (`GET /repos/{owner}/{repo}/collaborators/{username}/permission`), one request per
//! distinct commenter and run; the identity stage caches the answers in the state block.

use serde_json::Value;

use super::{endpoint_name, routes, GitHub};
use crate::config::PrTarget;
use crate::identity::{access_from_permission, Access};

/// Each login's access, in the order given. A 404 (not a collaborator) is a denial; any
/// other failure leaves the login unknown (its commands are refused, saying why).
pub async fn lookup_all(
    gh: &GitHub,
    target: &PrTarget,
    logins: &[String],
) -> Vec<(String, Access)> {
    let mut found = Vec::with_capacity(logins.len());
    for login in logins {
        found.push((login.clone(), lookup(gh, target, login).await));
    }
    found
}

pub async fn lookup(gh: &GitHub, target: &PrTarget, login: &str) -> Access {
    // Logins are `[A-Za-z0-9-]` (apps add `[bot]`); anything else is not a login to ask about.
    if login.is_empty() || !login.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        return Access::Denied {
            role: "none".to_owned(),
        };
    }
    let path = routes::COLLABORATOR_PERMISSION.fill(&[&target.owner, &target.repo, login]);
    let reply = match gh.read(&path).await {
        Ok(reply) => reply,
        Err(err) if err.status() == Some(404) => {
            return Access::Denied {
                role: "none (not a collaborator)".to_owned(),
            }
        }
        Err(err) => {
            tracing::warn!("cannot check the permission of {login}: {err}");
            return Access::Unknown(err.to_string());
        }
    };
    let endpoint = endpoint_name(&http::Method::GET, &path);
    match gh.json(&reply, &endpoint) {
        Ok(value) => {
            let field = |name: &str| value.get(name).and_then(Value::as_str).unwrap_or("");
            if field("permission").is_empty() && field("role_name").is_empty() {
                return Access::Unknown(format!("{endpoint}: no `permission` in the answer"));
            }
            access_from_permission(field("permission"), field("role_name"))
        }
        Err(err) => Access::Unknown(err.to_string()),
    }
}
