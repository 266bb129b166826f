//! Who disagrees with a merged finding, and why.
//!
//! A source contests a cluster when
//! - it is a detecting bot with a member two or more severity steps below the cluster's
//!   severity (the highest any member gave): so any two members two steps apart contest, or
//! - it replied in a member's review thread disputing it ("false positive", "won't fix":
//!   the adapters fill `disputes`).

use crate::model::ConsensusFinding;

/// `contested_by` and, in the same order, one reason per contesting source.
pub fn contesters(cluster: &ConsensusFinding) -> (Vec<String>, Vec<String>) {
    let mut by: Vec<String> = Vec::new();
    let mut reasons: Vec<String> = Vec::new();
    let mut add = |who: &str, reason: String| match by.iter().position(|b| b == who) {
        Some(i) => {
            reasons[i].push_str("; ");
            reasons[i].push_str(&reason);
        }
        None => {
            by.push(who.to_owned());
            reasons.push(reason);
        }
    };

    for bot in &cluster.detected_by {
        let own = cluster
            .members
            .iter()
            .filter(|m| &m.bot == bot)
            .map(|m| m.severity)
            .min();
        if let Some(own) = own {
            if cluster.severity.rank() >= own.rank() + 2 {
                add(
                    bot,
                    format!("rates it {own}, the highest rating is {}", cluster.severity),
                );
            }
        }
    }
    for member in &cluster.members {
        for dispute in &member.disputes {
            let who = if dispute.by.trim().is_empty() {
                "unknown"
            } else {
                dispute.by.trim()
            };
            add(
                who,
                format!("disputes {}'s comment: {}", member.bot, dispute.reason),
            );
        }
    }
    (by, reasons)
}
