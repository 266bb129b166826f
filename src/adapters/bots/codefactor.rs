//! CodeFactor (`codefactor-io[bot]`): the linters CodeFactor runs (StyleCop, Pylint, ESLint,
//! …) posted as inline review comments of an empty `COMMENTED` review. Each comment is the
//! rule's message, `Field 'BUILD_TAG' should not contain an underscore.`, often followed
//! by a `suggestion` block with the fix. CodeFactor states no severity or category in the
//! comment: a finding is low, and style unless its words say more (a security or bug
//! keyword wins). The identifier the message quotes (`'BUILD_TAG'`) is its symbol.
//! Formats: docs/adapters.md, docs/bot-formats.md.

use crate::adapters::read::inline;
use crate::adapters::read::markdown;
use crate::adapters::read::taxonomy::NativeCategory;
use crate::adapters::{Adapter, AdapterOutput, Identity};
use crate::api::PrSnapshot;
use crate::model::{Category, Severity};

pub struct CodeFactor;

const ID: &str = "codefactor";

impl Adapter for CodeFactor {
    fn id(&self) -> &'static str {
        ID
    }

    fn default_logins(&self) -> &'static [&'static str] {
        &["codefactor-io[bot]"]
    }

    fn parse(&self, snapshot: &PrSnapshot, logins: &[String]) -> AdapterOutput {
        let identity = Identity::new(logins, self.user_ids());
        // No notice of its own is known: its reviews and comments say nothing but findings.
        let status = inline::declines(&[]);
        inline::parse(snapshot, &identity, status, |comment, anchor| {
            let body = markdown::normalize_newlines(&comment.body);
            let visible = markdown::strip_hidden(&body);
            let message = markdown::visible_start(&visible);
            let style = NativeCategory::weak(Category::Style);
            let mut finding =
                inline::claim_finding(ID, comment, anchor, Some(Severity::Low), style, message)
                    .ok_or("no rule message")?;
            finding.evidence.symbol = quoted_identifier(&finding.title).unwrap_or_default();
            Ok(finding)
        })
    }
}

/// The identifier a rule message quotes: `Field '_proxTagCache' should not …` ->
/// `_proxTagCache` (letters, digits, `_`, `$`, `.` only; else none).
fn quoted_identifier(message: &str) -> Option<String> {
    let (_, rest) = message.split_once(['\'', '"'])?;
    let (name, _) = rest.split_once(['\'', '"'])?;
    let name = name.trim();
    let identifier = !name.is_empty()
        && name.len() <= 80
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '.'));
    identifier.then(|| name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::fixture;
    use crate::model::Coverage;

    #[test]
    fn the_quoted_identifier_is_the_symbol() {
        assert_eq!(
            quoted_identifier("Field '_proxTagCache' should not begin with an underscore."),
            Some("_proxTagCache".into())
        );
        assert_eq!(
            quoted_identifier("Variable name \"RefundTotal\" doesn't conform to snake_case"),
            Some("RefundTotal".into())
        );
        assert_eq!(
            quoted_identifier("Documentation text should end with a period."),
            None
        );
        assert_eq!(quoted_identifier("Don't use 'a b' here"), None);
    }

    #[test]
    fn sample_review() {
        let out = fixture::parse(&CodeFactor, "bots/codefactor");
        assert!(out.malformed.is_empty(), "{:?}", out.malformed);
        let got = fixture::places_and(&out.findings, |f| {
            (f.title.as_str(), f.evidence.symbol.as_str())
        });
        assert_eq!(
            got,
            vec![
                (
                    "app/services/refunds.py",
                    Some(12),
                    Severity::Low,
                    "style",
                    (
                        "Variable name \"RefundTotal\" doesn't conform to snake_case naming style",
                        "RefundTotal"
                    )
                ),
                (
                    "web/Payments/RateCache.cs",
                    Some(8),
                    Severity::Low,
                    "style",
                    (
                        "Field '_cacheLimit' should not begin with an underscore.",
                        "_cacheLimit"
                    )
                ),
                (
                    "web/Payments/RateCache.cs",
                    Some(3),
                    Severity::Low,
                    "docs",
                    ("Documentation text should end with a period.", "")
                ),
            ]
        );
        assert!(!out.findings[1].detail.contains("suggestion"));
        // Its review is the empty wrapper of the comments; the comments show the review.
        assert_eq!(out.coverage, Coverage::Reviewed);
    }
}
