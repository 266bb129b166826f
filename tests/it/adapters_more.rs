//! Robustness of the Gemini, Qodo, Bugbot, Greptile, Codex, DeepSource, the 2026 bots' (Claude
//! Code Review, Devin, CodeScene, Codecov AI and gitStream among them) and the generic
//! adapters and of the SARIF reader: arbitrary bodies mixed with each bot's real markup never
//! panic, every finding they yield is well-formed, and SARIF input of any shape is an `Ok` or
//! an `Err` naming the problem, never a panic.

use proptest::prelude::*;
use review_consensus::adapters::{self, extract, sarif, ExtractOptions, SourceConfig};
use review_consensus::api::{IssueComment, PrSnapshot, Review, ReviewComment, User};

const MINE: &[&str] = &[
    "gemini",
    "qodo",
    "cursor-bugbot",
    "greptile",
    "codex",
    "deepsource",
    "github-code-quality",
    "cubic",
    "kodus",
    "macroscope",
    "codeant",
    "sentry",
    "codecov-ai",
    "claude",
    "claude-code-review",
    "devin",
    "codescene",
    "gitstream",
    "bito",
    "korbit",
    "amazon-q",
    "codacy",
    "codefactor",
];
const GENERIC_LOGIN: &str = "acme-reviewer[bot]";

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => any::<String>(),
        5 => prop::sample::select(vec![
            "![critical](https://www.gstatic.com/codereviewagent/critical.svg)", "![high](x/high-priority.svg",
            "![", "](", ")", "### ", "### Bug: ", "**High Severity**", "**Severity**", "<!-- DESCRIPTION START -->",
            "<!-- DESCRIPTION END -->", "<!-- BUGBOT_BUG_ID: 7d3c -->", "<!-- BUGBOT_BUG_ID:", "<!-- LOCATIONS START\n",
            "a.py#L3-L9\n", "#L", "-L", "LOCATIONS END -->", "<!--", "-->",
            r##"<a href="#"><img alt="P1" src="https://greptile-static-assets.s3.amazonaws.com/badges/p1.svg?v=9" align="top"></a> "##,
            "<img alt=", "<img src='", "**logic:** ", "**<sub><sub>![P0 Badge](https://img.shields.io/badge/P0-red?style=flat)</sub></sub>  ",
            "Useful? React with 👍 / 👎.", "<!-- DeepSource: id=abc -->", "<h3>", "</h3>", "<div>", "</div>",
            "severity_indicator_major.svg", "category_typecheck.svg", "## PR Code Suggestions ✨", "<!-- b71e4c0 -->",
            "<table>", "<tr>", "</tr>", "<td rowspan=2>", "<td>", "</td>", "<details>", "</details>", "<summary>",
            "</summary>", "Suggestion importance[1-10]: ", "11", "9", "[app/x.py [20-21]](https://x)", "[a.py[R7-", "]](",
            "<h3>Code Review by Qodo</h3>", "<img alt=\"Action required\" src=x>", "<img alt=\"Remediation recommended\">",
            " 1. Title <code>🐞 Bug</code>", "<code>✓ Resolved</code>", "1\\. ", "**Critical:** ", "Severity: ", "Nit: ",
            "```", "\n```\n", "`", "\r\n", "\n\n", "日本語 العربية 🙏", ". ", "&nbsp;", "&lt;", "<",
            "## CodeQL / Unused import\n", "**Warning**", "**Reliability**", "<img alt=\"Note\" src=x>",
            "[Show more details](https://x/rules/py/unused-import)", "`py/x`", "<!-- cubic:v=1 -->",
            "<!-- metadata:{\"confidence\":9} -->", "<!-- metadata:{\"confidence\":1e309} -->", "P0: ", "P3:",
            "![kody code-review](https://x/k.png) ", "![high](https://img.shields.io/badge/severity_level-high-6B6B92)",
            "![Bug](https://img.shields.io/badge/Bug-B71C1C)", "File app/x.py: Line 3 to 1", "Code Review Complete",
            "🟡 **Medium** `a.ts:22`", "Also found in 2 other location(s)\n\n- `b.ts:3`", "<!-- macroscope-meta: {\"kind\":\"code_review\",\"variant\":\"v\"} -->",
            "<!-- macroscope-meta kind=notice -->", "**Suggestion:** ", " [logic error]", "<summary><b>Severity Level:</b> Major ⚠️</summary>",
            "**Bug:** ", "<sub>Severity: HIGH | Confidence: 0.9</sub>", "<!-- BUG_PREDICTION -->", "**Claude finished @a's task**",
            "**Claude encountered an error", "<div id=\"issue\"><b>", "</b></div>", "Code Review Agent Run #f933eb", "Commit Range: a..",
            "![severity 3](https://img.shields.io/badge/Severity-3-f97316)", "https://img.shields.io/badge/--", "CodeAnt AI finished reviewing commit ",
            "🔴 **Important** — ", "🟣 Pre-existing ", "🟡 Nit", "🔴", "🟣", "<!-- bughunter-severity: {\"normal\": 1} -->",
            "Claude Code Review found no issues", "<summary>Why this was flagged</summary>",
            "<!-- devin-review-comment {\"id\": \"BUG_x_0001\", \"file_path\": \"a.py\", \"start_line\": 3, \"end_line\": 1} -->",
            "🚩 **", "📝 **Info: ", "✅ **Resolved**", "Devin Review found 2 Bugs + 1 Flags (0 Vulnerabilities) on this PR:",
            "**Bugs:**\n- T — a.py:3\n", "**Flags:**\n- ", " — a.py:9-2", "<!-- devin-review-badge-begin -->",
            "**Devin Review** found 1 potential issue.", "View 2 additional findings in Devin Review.",
            "❌ New issue: Complex Method\n", "❌ Getting worse: ", "✅ Getting better: ", "[//]: # (cs-code-health)", "**Gates Failed**",
            "### ✨ PR Review\n", "<summary>🐞 Bug - T</summary>", "(Security)</summary>", "/blob/abc/a.py#L3-L9", "`a.py:4`", "Lines 9-",
            "On it! We are reviewing the PR", "No changes requiring review at this time.",
            ":stop_sign: **Logic Error**: ", "⚠️ **Security Vulnerability:** ", "## Review Summary\n",
            "I'm not able to complete the code review", "<sub>:red_circle: HIGH RISK</sub>\n", "<sub>⚪ LOW RISK</sub>",
            "Nitpick: ", "[See Issue in Codacy](https://x/issues#issue-6b35998df0375244)", "#issue-",
            "Try running the following prompt in your IDE agent:\n", "<!-- e34d5167-b092-49eb-b8c8-33859ab00079 -->",
            "### Pull Request Overview\n", "<summary><b><code>2</code> comments outside of the diff</b></summary>",
            "<summary><code>a.py</code></summary>", "> <sub>`line 105` :yellow_circle: MEDIUM RISK</sub>\n> ", "`line ",
            "Field '_x' should not begin with an underscore.", "'", "\"",
        ]).prop_map(str::to_owned),
    ]
}

fn body() -> impl Strategy<Value = String> {
    prop::collection::vec(fragment(), 0..40).prop_map(|parts| parts.concat())
}

fn snapshot(body: &str, path: Option<String>, line: Option<u32>, start: Option<u32>) -> PrSnapshot {
    let mut snapshot = PrSnapshot::default();
    snapshot.pull.head.sha = "head".to_owned();
    let mut logins: Vec<(String, u64)> = Vec::new();
    for adapter in adapters::registry() {
        if MINE.contains(&adapter.id()) {
            let id = adapter.user_ids().first().copied().unwrap_or(0);
            logins.extend(
                adapter
                    .default_logins()
                    .iter()
                    .map(|l| ((*l).to_owned(), id)),
            );
        }
    }
    logins.push((GENERIC_LOGIN.to_owned(), 0));
    for (n, (login, user_id)) in logins.into_iter().enumerate() {
        let id = n as u64 + 1;
        let user = Some(User {
            login,
            id: user_id,
            kind: "Bot".to_owned(),
        });
        snapshot.review_comments.push(ReviewComment {
            id,
            user: user.clone(),
            body: body.to_owned(),
            path: path.clone(),
            line,
            start_line: start,
            original_line: line.or(start),
            commit_id: Some("head".to_owned()),
            ..ReviewComment::default()
        });
        snapshot.reviews.push(Review {
            id,
            user: user.clone(),
            body: Some(body.to_owned()),
            commit_id: Some("head".to_owned()),
            ..Review::default()
        });
        snapshot.issue_comments.push(IssueComment {
            id,
            user,
            body: Some(body.to_owned()),
            ..IssueComment::default()
        });
    }
    snapshot
}

/// Extract with every adapter of this file; returns how many findings came out.
fn check(snapshot: &PrSnapshot) -> usize {
    let mut sources: Vec<SourceConfig> = MINE
        .iter()
        .map(|id| SourceConfig {
            adapter: (*id).to_owned(),
            logins: Vec::new(),
        })
        .collect();
    sources.push(SourceConfig {
        adapter: "generic".to_owned(),
        logins: vec![GENERIC_LOGIN.to_owned()],
    });
    let x = extract(snapshot, &sources, &ExtractOptions::default());
    assert_eq!(x.sources.len(), sources.len());
    for f in &x.findings {
        assert!(!f.title.trim().is_empty(), "{}: empty title", f.bot);
        assert!(!f.bot.is_empty());
        assert!(
            (0.0..=1.0).contains(&f.confidence),
            "{}: {}",
            f.bot,
            f.confidence
        );
        if let (Some(start), Some(end)) = (f.evidence.line, f.evidence.end_line) {
            assert!(end >= start, "{}: range {start}-{end}", f.bot);
        }
        assert!(
            f.provenance.category_source.is_some(),
            "{}: no category source",
            f.bot
        );
    }
    x.findings.len()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bodies_never_panic(
        body in body(),
        path in prop_oneof![Just(None), Just(Some(String::new())), "[a-z/._]{1,16}".prop_map(Some)],
        line in prop_oneof![Just(None), (0u32..60).prop_map(Some), any::<u32>().prop_map(Some)],
        start in prop_oneof![Just(None), (0u32..60).prop_map(Some)],
    ) {
        let _ = check(&snapshot(&body, path, line, start));
    }

    #[test]
    fn arbitrary_text_is_never_a_sarif_panic(text in any::<String>()) {
        let _ = sarif::parse(&text);
    }

    #[test]
    fn arbitrary_json_in_a_sarif_run_is_never_a_panic(
        run in arbitrary_json(),
        result in arbitrary_json(),
    ) {
        let doc = serde_json::json!({
            "version": "2.1.0",
            "runs": [run, {"tool": {"driver": {"name": "X", "rules": [result.clone()]}}, "results": [result]}],
        });
        let _ = sarif::parse(&doc.to_string());
    }
}

fn arbitrary_json() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        prop::sample::select(vec![
            "2.1.0",
            "error",
            "warning",
            "note",
            "fail",
            "pass",
            "absent",
            "accepted",
            "9.8",
            "x",
            "file:///a%2",
            "./a.py",
            "security",
            "external/cwe/cwe-79",
        ])
        .prop_map(Value::from),
        any::<String>().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop::sample::select(vec![
                        "tool",
                        "driver",
                        "name",
                        "rules",
                        "results",
                        "ruleId",
                        "ruleIndex",
                        "rule",
                        "id",
                        "index",
                        "message",
                        "text",
                        "markdown",
                        "level",
                        "kind",
                        "locations",
                        "physicalLocation",
                        "artifactLocation",
                        "uri",
                        "region",
                        "startLine",
                        "endLine",
                        "properties",
                        "tags",
                        "security-severity",
                        "partialFingerprints",
                        "fingerprints",
                        "suppressions",
                        "status",
                        "baselineState",
                        "artifacts",
                        "location",
                        "snippet",
                        "defaultConfiguration",
                    ]),
                    inner,
                ),
                0..5,
            )
            .prop_map(|pairs| {
                Value::Object(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            }),
        ]
    })
}

/// Every prefix of the real-shaped samples: an `Err` naming the JSON problem, never a panic.
#[test]
fn truncated_sarif_is_an_error_not_a_panic() {
    for sample in [
        include_str!("../fixtures/bots/sarif/codeql.sarif"),
        include_str!("../fixtures/bots/sarif/semgrep.sarif"),
    ] {
        let cuts: Vec<usize> = sample.char_indices().map(|(i, _)| i).step_by(7).collect();
        for cut in cuts {
            if let Err(reason) = sarif::parse(&sample[..cut]) {
                assert!(!reason.is_empty());
            }
        }
        assert!(sarif::parse(sample).is_ok());
    }
}

/// Sixty-kilobyte bodies in each bot's markup stay fast (no quadratic pass).
#[test]
fn sixty_kilobyte_bodies_of_every_markup() {
    let pieces = [
        "<tr><td rowspan=1>Security</td><td><details><summary>T</summary>**x** [a.py [1-2]](u) Suggestion importance[1-10]: 9</details></td><td>High</td></tr>\n",
        "<details><summary> 1. Title <code>🐞 Bug</code></summary>[a.py[R1-2]](u)</details>\n",
        "### T\n**High Severity**\n<!-- BUGBOT_BUG_ID: x -->\n",
        "<h3><img src=\"severity_indicator_major.svg\">T</h3><div><img src=\"category_typecheck.svg\"></div>\n",
        "<a><img alt=\"P1\" src=\"p1.svg\"></a> **T** ",
        "Devin Review found 1 Bugs + 0 Flags (0 Vulnerabilities) on this PR:\n**Bugs:**\n- T — a.py:3\n",
        "### ✨ PR Review\n<details><summary>🐞 Bug - T</summary>`a.py:4`</details>\n",
    ];
    for piece in pieces {
        let mut body =
            String::from("## PR Code Suggestions ✨\n<h3>Code Review by Qodo</h3>\n<table>");
        while body.len() < 60 * 1024 {
            body.push_str(piece);
        }
        let started = std::time::Instant::now();
        let found = check(&snapshot(&body, Some("a.py".to_owned()), Some(3), Some(1)));
        assert!(found > 0, "no finding from {piece}");
        assert!(
            started.elapsed().as_secs() < 20,
            "took {:?}",
            started.elapsed()
        );
    }
}
