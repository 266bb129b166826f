//! Identity across runs (CONTRACT section 8, docs/identity.md), a pure stage after
//! synthesis: a fingerprint per finding that survives pushes, the state block our sticky
//! comment carries from run to run, `/consensus ack` commands, and what changed since the
//! last run. `/consensus split` and `same` ([`corrections`]) are judged before matching,
//! since they change the clusters. No I/O and no clock: the edge reads our comment, looks up the commenters'
//! permissions and passes today's date in.

pub mod commands;
pub mod corrections;
pub mod fingerprint;
pub mod state;
#[cfg(test)]
mod test_support;
mod track;

use std::collections::BTreeMap;

use chrono::NaiveDate;

pub use crate::model::identity::{
    Ack, Correction, CorrectionKind, FindingIdentity, FindingState, Lapsed, Refusal, RefusalKind,
    RunIdentity, Tracked,
};
pub use commands::{read_commands, Command, Refused, Verb};
pub use corrections::Corrections;
pub use state::State;
pub use track::track;

/// Permission lookups one run makes at most; further commenters wait for a later run.
pub const MAX_PERMISSION_LOOKUPS: usize = 20;

/// A commenter's permission on the repository, as the edge found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// `write`, `maintain` or `admin`: may acknowledge and correct merges.
    Granted { role: String },
    /// Any other role (`read`, `triage`, not a collaborator).
    Denied { role: String },
    /// The lookup failed (why).
    Unknown(String),
}

/// The state our own sticky comment carried in, or why none could be read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Prior {
    pub state: Option<State>,
    pub note: Option<String>,
}

impl Prior {
    /// From our own comment's body (never anyone else's: the edge decides which is ours).
    /// A block that cannot be read is a note, and the run goes on as a first run.
    pub fn read(our_body: Option<&str>) -> Prior {
        match our_body.map(state::decode) {
            None | Some(Ok(None)) => Prior::default(),
            Some(Ok(Some(state))) => Prior {
                state: Some(state),
                note: None,
            },
            Some(Err(why)) => Prior {
                state: None,
                note: Some(format!(
                    "the state block of our comment could not be read ({why}); this run starts \
                     afresh, as a first run"
                )),
            },
        }
    }

    /// Whether the cache holds a usable answer for `login` (lowercase): checked today, or
    /// any age offline (it is all there is to know).
    fn cached(&self, login: &str, today: Option<NaiveDate>, offline: bool) -> Option<Access> {
        let record = self.state.as_ref()?.perms.get(login)?;
        let fresh = today.is_some_and(|d| record.on == d.format("%Y-%m-%d").to_string());
        (fresh || offline).then(|| {
            let role = record.role.clone();
            if record.ok {
                Access::Granted { role }
            } else {
                Access::Denied { role }
            }
        })
    }
}

/// What the edge gives the identity stage.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IdentityInput {
    pub prior: Prior,
    /// Permissions looked up this run, by lowercase login.
    pub permissions: BTreeMap<String, Access>,
    /// Today (UTC): an acknowledgement `until` an earlier day has lapsed. `None`: unknown,
    /// so every limited acknowledgement counts as lapsed.
    pub today: Option<NaiveDate>,
    /// No GitHub to ask (`render`): permissions come from the state's cache only.
    pub offline: bool,
    /// The judge's memory to leave for the next run; `None`: the judge did not run, and
    /// what the last run remembered is carried forward unchanged.
    pub judged: Option<crate::judge::memory::Memory>,
}

/// The commenters whose permission this run must look up: authors of well-formed commands
/// (not bots), without a fresh answer in the cache, at most [`MAX_PERMISSION_LOOKUPS`], in
/// the order they first commented. Lowercase.
pub fn logins_to_check(
    commands: &[Command],
    prior: &Prior,
    today: Option<NaiveDate>,
) -> Vec<String> {
    let mut logins: Vec<String> = Vec::new();
    for command in commands {
        let login = command.author.trim().to_lowercase();
        if command.author_is_bot || login.is_empty() || !command.is_well_formed() {
            continue;
        }
        if prior.cached(&login, today, false).is_some() || logins.contains(&login) {
            continue;
        }
        logins.push(login);
    }
    logins.truncate(MAX_PERMISSION_LOOKUPS);
    logins
}

/// Whether GitHub's answer (`permission`, `role_name`) lets a user acknowledge. GitHub maps
/// `maintain` to `write` in `permission`; `role_name` has the role itself, custom ones too.
pub fn access_from_permission(permission: &str, role_name: &str) -> Access {
    let role = if role_name.trim().is_empty() {
        permission.trim()
    } else {
        role_name.trim()
    }
    .to_lowercase();
    let grants = |r: &str| matches!(r, "admin" | "maintain" | "write");
    if grants(&permission.trim().to_lowercase()) || grants(&role) {
        Access::Granted { role }
    } else {
        Access::Denied { role }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn githubs_permission_answer_decides() {
        assert!(
            matches!(access_from_permission("write", "maintain"), Access::Granted { role } if role == "maintain")
        );
        assert!(matches!(
            access_from_permission("admin", "admin"),
            Access::Granted { .. }
        ));
        assert!(matches!(
            access_from_permission("write", "deployer"),
            Access::Granted { .. }
        ));
        assert!(
            matches!(access_from_permission("read", "triage"), Access::Denied { role } if role == "triage")
        );
        assert!(
            matches!(access_from_permission("none", ""), Access::Denied { role } if role == "none")
        );
    }

    #[test]
    fn a_malformed_block_is_a_note_and_a_first_run() {
        let prior = Prior::read(Some(
            "<!-- review-bot-ack -->\n<!-- review-consensus-state {oops -->",
        ));
        assert!(prior.state.is_none());
        assert!(prior.note.as_deref().unwrap().contains("first run"));
        assert_eq!(Prior::read(None), Prior::default());
    }
}
