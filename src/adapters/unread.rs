//! Bots nobody reads: the bot accounts that left review comments on the PR (inline comments,
//! review bodies with text) that no source of this run read. They are named, with how many
//! comments, so that a bot is never dropped without a word: the agreement the gate counts
//! leaves them out, and a reader of the PR sees them.

use crate::adapters::read::common::bare_login;
use crate::adapters::read::common::Identity;
use crate::adapters::{find_adapter, SourceConfig};
use crate::api::{PrSnapshot, User};
use crate::model::UnreadBot;

/// Bot accounts whose comments on a PR are not reviews of its code, never listed (issue 24).
/// Short on purpose: only accounts that often leave a review or review comment on PRs they
/// do not review. Each with why.
pub const NOT_REVIEWERS: &[(&str, &str)] = &[
    (
        "github-actions[bot]",
        "every workflow's token posts as it, ours included (the sticky comment)",
    ),
    (
        "dependabot[bot]",
        "it opens dependency updates; its comments are about its own PRs",
    ),
    (
        "renovate[bot]",
        "the same, for Renovate's dependency updates",
    ),
    ("vercel[bot]", "deploy previews"),
    ("netlify[bot]", "deploy previews"),
    ("cloudflare-workers-and-pages[bot]", "deploy previews"),
    ("changeset-bot[bot]", "whether the PR carries a changeset"),
    ("codecov[bot]", "coverage reports"),
    ("mergify[bot]", "merge-queue status"),
];

/// Whether `login` is one of `NOT_REVIEWERS`.
fn is_not_reviewer(login: &str) -> bool {
    let login = bare_login(login);
    NOT_REVIEWERS
        .iter()
        .any(|(name, _)| bare_login(name) == login)
}

/// A bot account: GitHub's type `Bot`, or a login ending in `[bot]` (an app, whatever a
/// saved folder says its type is).
fn is_bot_account(user: &User) -> bool {
    user.is_bot() || user.login.trim().to_lowercase().ends_with("[bot]")
}

/// The bot accounts with review comments that none of `sources` (the sources this run
/// read) recognises, most comments first. Not listed: our own identity (`snapshot.viewer`),
/// the accounts of `NOT_REVIEWERS`, replies (chit-chat) and empty review bodies (the
/// wrappers of inline comments).
pub fn unread_bots(snapshot: &PrSnapshot, sources: &[SourceConfig]) -> Vec<UnreadBot> {
    let readers: Vec<Identity> = sources
        .iter()
        .filter_map(|source| {
            let adapter = find_adapter(&source.adapter)?;
            let logins = source.logins_for(adapter);
            Some(Identity::new(&logins, adapter.user_ids()))
        })
        .collect();
    let inline = snapshot
        .review_comments
        .iter()
        .filter(|c| c.in_reply_to_id.is_none())
        .filter_map(|c| c.user.as_ref());
    let reviews = snapshot
        .reviews
        .iter()
        .filter(|r| r.body.as_deref().is_some_and(|b| !b.trim().is_empty()))
        .filter_map(|r| r.user.as_ref());
    let mut found: Vec<UnreadBot> = Vec::new();
    for user in inline.chain(reviews) {
        let ours = snapshot.viewer.as_ref().is_some_and(|v| v.is(user));
        if !is_bot_account(user)
            || ours
            || is_not_reviewer(&user.login)
            || user.login.trim().is_empty()
            || readers.iter().any(|r| r.is_same_account(Some(user)))
        {
            continue;
        }
        let key = bare_login(&user.login);
        match found.iter_mut().find(|b| bare_login(&b.login) == key) {
            Some(bot) => bot.comments += 1,
            None => found.push(UnreadBot {
                login: user.login.trim().to_owned(),
                comments: 1,
                hint: hint(&user.login),
            }),
        }
    }
    found.sort_by(|a, b| b.comments.cmp(&a.comments).then(a.login.cmp(&b.login)));
    found
}

/// Words of bot logins that name no vendor (`pull`, `agent`, `security`, ...): a login
/// sharing only these with a built-in adapter's logins is not that adapter's.
const GENERIC_LOGIN_WORDS: &[&str] = &[
    "advanced",
    "agent",
    "analysis",
    "apps",
    "assist",
    "check",
    "code",
    "connector",
    "delta",
    "developer",
    "free",
    "integration",
    "merge",
    "open",
    "production",
    "pull",
    "quality",
    "request",
    "review",
    "reviewer",
    "security",
    "source",
];

/// The `bots` entry that reads `login`: the built-in adapter whose default login it is;
/// else `<id>=<login>` when the login names one adapter's vendor as its default logins do
/// (`codiumai-pr-agent-free[bot]`: Qodo's PR-Agent, like `codiumai-pr-agent-pro[bot]`);
/// else `generic=<login>`.
fn hint(login: &str) -> String {
    let bare = bare_login(login);
    let registry = crate::adapters::registry();
    if let Some(adapter) = registry
        .iter()
        .find(|a| a.default_logins().iter().any(|l| bare_login(l) == bare))
    {
        return adapter.id().to_owned();
    }
    let words = |login: &str| -> Vec<String> {
        bare_login(login)
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| w.len() >= 4 && !GENERIC_LOGIN_WORDS.contains(w))
            .map(str::to_owned)
            .collect()
    };
    let own = words(login);
    let mut family = registry.iter().filter(|a| {
        a.default_logins()
            .iter()
            .any(|l| words(l).iter().any(|w| own.contains(w)))
    });
    match (family.next(), family.next()) {
        (Some(adapter), None) => format!("{}={}", adapter.id(), login.trim()),
        _ => format!("generic={}", login.trim()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{Review, ReviewComment, Viewer};

    fn user(login: &str, kind: &str) -> Option<User> {
        Some(User {
            login: login.to_owned(),
            id: 7,
            kind: kind.to_owned(),
        })
    }

    fn inline(id: u64, login: &str, kind: &str, reply: Option<u64>) -> ReviewComment {
        ReviewComment {
            id,
            user: user(login, kind),
            body: "A remark.".into(),
            path: Some("a.py".into()),
            line: Some(3),
            in_reply_to_id: reply,
            ..ReviewComment::default()
        }
    }

    fn review(id: u64, login: &str, body: &str) -> Review {
        Review {
            id,
            user: user(login, "Bot"),
            body: Some(body.into()),
            ..Review::default()
        }
    }

    fn source(id: &str, logins: &[&str]) -> SourceConfig {
        SourceConfig {
            adapter: id.to_owned(),
            logins: logins.iter().map(|l| (*l).to_owned()).collect(),
        }
    }

    #[test]
    fn names_bots_no_source_reads_with_their_counts_and_a_hint() {
        let snapshot = PrSnapshot {
            review_comments: vec![
                inline(1, "style-lint-io[bot]", "Bot", None),
                inline(2, "style-lint-io[bot]", "Bot", None),
                // A reply is chit-chat, not a review comment.
                inline(3, "style-lint-io[bot]", "Bot", Some(1)),
                inline(4, "sourcery-ai[bot]", "Bot", None),
                inline(5, "deepcode-ci[bot]", "Bot", None),
                // A login with `[bot]` is an app whatever the saved type says.
                inline(6, "lintly[bot]", "User", None),
                // People, read sources, our own identity and non-reviewers are never listed.
                inline(7, "dana", "User", None),
                inline(8, "coderabbitai[bot]", "Bot", None),
                inline(9, "review-buddy[bot]", "Bot", None),
                inline(10, "dependabot[bot]", "Bot", None),
                inline(11, "github-actions[bot]", "Bot", None),
            ],
            reviews: vec![
                review(20, "deepcode-ci[bot]", "Found 2 issues."),
                // The empty wrapper of inline comments does not count.
                review(21, "deepcode-ci[bot]", "  "),
                review(22, "vercel[bot]", "Deployed a preview."),
            ],
            viewer: Some(Viewer {
                login: "review-buddy".into(),
                bot: true,
            }),
            ..PrSnapshot::default()
        };
        let sources = [source("coderabbit", &[]), source("gemini", &[])];
        let unread = unread_bots(&snapshot, &sources);
        let got: Vec<(&str, usize, &str)> = unread
            .iter()
            .map(|b| (b.login.as_str(), b.comments, b.hint.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                // Most comments first, then by login.
                ("deepcode-ci[bot]", 2, "generic=deepcode-ci[bot]"),
                ("style-lint-io[bot]", 2, "generic=style-lint-io[bot]"),
                ("lintly[bot]", 1, "generic=lintly[bot]"),
                // A built-in bot that `bots` left out: its adapter id is the hint.
                ("sourcery-ai[bot]", 1, "sourcery"),
            ]
        );

        // Mapped to `generic`, or read by its adapter: no longer listed.
        let sources = [
            source("coderabbit", &[]),
            source("sourcery", &[]),
            source("generic", &["style-lint-io[bot]", "deepcode-ci"]),
        ];
        let unread = unread_bots(&snapshot, &sources);
        let names: Vec<&str> = unread.iter().map(|b| b.login.as_str()).collect();
        assert_eq!(names, ["lintly[bot]"]);
    }

    #[test]
    fn a_login_of_a_known_vendor_is_hinted_to_its_adapter() {
        // Qodo's free PR-Agent app (real PR g-07), beside the Pro app the adapter knows.
        assert_eq!(
            hint("codiumai-pr-agent-free[bot]"),
            "qodo=codiumai-pr-agent-free[bot]"
        );
        assert_eq!(
            hint("gemini-code-assist-enterprise[bot]"),
            "gemini=gemini-code-assist-enterprise[bot]"
        );
        // A vendor word two adapters share, or only generic words: no guess.
        assert_eq!(
            hint("github-security-review[bot]"),
            "generic=github-security-review[bot]"
        );
        assert_eq!(
            hint("acme-code-review-agent[bot]"),
            "generic=acme-code-review-agent[bot]"
        );
        // Naming two vendors: no guess either.
        assert_eq!(
            hint("sourcery-greptile-bridge[bot]"),
            "generic=sourcery-greptile-bridge[bot]"
        );
    }

    #[test]
    fn nothing_unread_on_a_pr_without_bots() {
        assert!(unread_bots(&PrSnapshot::default(), &[]).is_empty());
        let snapshot = PrSnapshot {
            review_comments: vec![inline(1, "dana", "User", None)],
            ..PrSnapshot::default()
        };
        assert!(unread_bots(&snapshot, &[]).is_empty());
    }
}
