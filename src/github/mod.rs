//! Every GitHub API call lives under this module; nothing else imports octocrab.
