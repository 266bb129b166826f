//! SARIF 2.1.0 files (CodeQL, Semgrep, any static analyser) as extra sources: one source per
//! tool, named after `tool.driver.name` lowercased, one finding per failing result.
//!
//! Severity follows the code-scanning alerts adapter so that the same SARIF read here and
//! uploaded to GitHub lands on the same scale: a `security-severity` CVSS score wins
//! (>= 9 critical, >= 7 high, >= 4 medium, > 0 low, GitHub's bands), else the result's (or
//! the rule's default) `level`: error -> medium, warning -> low, note / none -> info.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::adapters::read::markdown;
use crate::adapters::read::taxonomy::{self, NativeCategory};
use crate::adapters::DETAIL_CHARS;
#[cfg(test)]
use crate::model::CategorySource;
use crate::model::{Category, NormalizedFinding, Provenance, Severity};
use crate::pipeline::ExtraSource;

/// Parse one SARIF document into one source per tool (runs of the same tool are merged, so
/// that CodeQL's per-language runs count as one bot in the agreement denominator).
pub fn parse(text: &str) -> Result<Vec<ExtraSource>, String> {
    let doc: Value =
        serde_json::from_str(text).map_err(|err| format!("SARIF is not valid JSON: {err}"))?;
    let root = doc
        .as_object()
        .ok_or("SARIF top level is not a JSON object")?;
    match root.get("version").and_then(Value::as_str) {
        Some("2.1.0") | None => {}
        Some(other) => {
            return Err(format!(
                "SARIF version {other} is not supported (need 2.1.0)"
            ))
        }
    }
    let runs = root
        .get("runs")
        .and_then(Value::as_array)
        .ok_or("SARIF has no `runs` array")?;

    // BTreeMap keeps the output order stable (by tool name).
    let mut by_tool: BTreeMap<String, ToolOutput> = BTreeMap::new();
    for (index, run) in runs.iter().enumerate() {
        let run = run
            .as_object()
            .ok_or_else(|| format!("SARIF run {index} is not an object"))?;
        let name = run
            .get("tool")
            .and_then(|tool| tool.pointer("/driver/name"))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .ok_or_else(|| format!("SARIF run {index} has no `tool.driver.name`"))?;
        let bot = source_name(name);
        let out = by_tool.entry(bot.clone()).or_default();
        read_run(&bot, run, out);
    }
    Ok(by_tool
        .into_iter()
        .map(|(bot, out)| {
            let mut source = ExtraSource::ok(bot, out.findings);
            source.tool_verified = true;
            source.status.skipped = out.skipped.len();
            source.status.notes = out.skipped;
            source
        })
        .collect())
}

/// `CodeQL` -> `codeql`, `Semgrep OSS` -> `semgrep-oss`: a name usable as a bot id.
fn source_name(tool: &str) -> String {
    tool.split_whitespace()
        .collect::<Vec<_>>()
        .join("-")
        .to_lowercase()
}

#[derive(Default)]
struct ToolOutput {
    findings: Vec<NormalizedFinding>,
    /// One reason per result that could not be read.
    skipped: Vec<String>,
}

fn read_run(bot: &str, run: &Map<String, Value>, out: &mut ToolOutput) {
    let rules = Rules::of_run(run);
    let artifacts = run
        .get("artifacts")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let Some(results) = run.get("results") else {
        return; // a run that produced no results section simply found nothing
    };
    let Some(results) = results.as_array() else {
        out.skipped
            .push("`results` is not an array; the run was skipped".to_owned());
        return;
    };
    for (index, result) in results.iter().enumerate() {
        let Some(result) = result.as_object() else {
            out.skipped.push(format!("result {index} is not an object"));
            continue;
        };
        if !is_open_failure(result) {
            continue;
        }
        match read_result(bot, result, &rules, artifacts) {
            Ok(finding) => out.findings.push(finding),
            Err(reason) => out.skipped.push(format!("result {index}: {reason}")),
        }
    }
}

/// Only failing, unsuppressed results that still exist are findings (`kind` defaults to
/// `fail`; `baselineState: absent` means fixed; an accepted suppression means dismissed).
fn is_open_failure(result: &Map<String, Value>) -> bool {
    let kind = result.get("kind").and_then(Value::as_str).unwrap_or("fail");
    if kind != "fail" {
        return false;
    }
    if result.get("baselineState").and_then(Value::as_str) == Some("absent") {
        return false;
    }
    let suppressed = result
        .get("suppressions")
        .and_then(Value::as_array)
        .is_some_and(|list| {
            list.iter().any(|s| {
                matches!(
                    s.get("status").and_then(Value::as_str),
                    None | Some("accepted")
                )
            })
        });
    !suppressed
}

/// The rule metadata a result refers to. CodeQL with query packs puts rules in
/// `tool.extensions[n].rules` and points at them with `rule.toolComponent.index`; others use
/// `tool.driver.rules` and `ruleIndex`. Looked up by component and index first, then by id
/// in every component.
struct Rules<'a> {
    driver: &'a [Value],
    extensions: Vec<&'a [Value]>,
}

fn rule_list(component: Option<&Value>) -> &[Value] {
    component
        .and_then(|c| c.get("rules"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

impl<'a> Rules<'a> {
    fn of_run(run: &'a Map<String, Value>) -> Self {
        let tool = run.get("tool");
        let extensions = tool
            .and_then(|t| t.get("extensions"))
            .and_then(Value::as_array)
            .map(|list| list.iter().map(|e| rule_list(Some(e))).collect())
            .unwrap_or_default();
        Rules {
            driver: rule_list(tool.and_then(|t| t.get("driver"))),
            extensions,
        }
    }

    fn find(
        &self,
        id: Option<&str>,
        index: Option<u64>,
        component: Option<u64>,
    ) -> Option<&'a Map<String, Value>> {
        let list = match component.and_then(|c| usize::try_from(c).ok()) {
            Some(c) => self.extensions.get(c).copied().unwrap_or_default(),
            None => self.driver,
        };
        let by_index = index
            .and_then(|i| usize::try_from(i).ok())
            .and_then(|i| list.get(i))
            .and_then(Value::as_object)
            .filter(|rule| id.is_none() || rule.get("id").and_then(Value::as_str) == id);
        by_index.or_else(|| {
            let id = id?;
            std::iter::once(self.driver)
                .chain(self.extensions.iter().copied())
                .flatten()
                .filter_map(Value::as_object)
                .find(|rule| rule.get("id").and_then(Value::as_str) == Some(id))
        })
    }
}

fn read_result(
    bot: &str,
    result: &Map<String, Value>,
    rules: &Rules<'_>,
    artifacts: &[Value],
) -> Result<NormalizedFinding, String> {
    let rule_id = result
        .get("ruleId")
        .and_then(Value::as_str)
        .or_else(|| result.get("rule")?.get("id")?.as_str());
    let rule_index = result
        .get("ruleIndex")
        .or_else(|| result.get("rule")?.get("index"))
        .and_then(Value::as_u64);
    let component = result
        .get("rule")
        .and_then(|r| r.get("toolComponent"))
        .and_then(|c| c.get("index"))
        .and_then(Value::as_u64);
    let rule = rules.find(rule_id, rule_index, component);
    let rule_id = rule_id
        .or_else(|| rule.and_then(|r| r.get("id")).and_then(Value::as_str))
        .unwrap_or("");

    let message = message_text(result.get("message"))
        .or_else(|| rule.and_then(|r| message_text(r.get("shortDescription"))))
        .ok_or("no `message.text`")?;
    let plain = markdown::collapse_whitespace(&strip_sarif_links(&message));
    let sentence = markdown::first_sentence(&plain);
    let title = if sentence.is_empty() {
        rule_id.to_owned()
    } else {
        markdown::shorten(sentence, 160)
    };
    if title.trim().is_empty() {
        return Err("empty message and no rule id".to_owned());
    }

    let location = primary_location(result, artifacts);
    let severity = severity_of(result, rule);
    let tags = tags_of(result, rule);
    let has_security_score = security_score(result, rule).is_some();
    let native = match native_category(&tags, has_security_score) {
        Some(category) => NativeCategory::strong(category),
        None => NativeCategory::none(),
    };
    let (category, category_source) = taxonomy::resolve(
        native,
        &location.file,
        &markdown::keyword_text(&title, &plain),
    );

    let stable_id = fingerprint(result).map(|fp| format!("{rule_id}@{fp}"));
    let finding_id = stable_id.clone().unwrap_or_else(|| match location.line {
        Some(line) => format!("{rule_id}@{}:{line}", location.file),
        None => format!("{rule_id}@{}", location.file),
    });

    let mut finding = NormalizedFinding::new(bot, finding_id, severity, category.as_str(), title)
        .at(location.file, location.line);
    finding.stable_id = stable_id;
    finding.evidence.end_line = location.end_line;
    finding.evidence.snippet = location.snippet;
    finding.evidence.symbol = rule_id.to_owned();
    finding.detail = markdown::shorten(&plain, DETAIL_CHARS);
    finding.provenance = Provenance {
        category_source: Some(category_source),
        original_line: location.line,
        ..Provenance::default()
    };
    Ok(finding)
}

/// `message.text`, else `message.markdown` (a `message` may also be a bare string in
/// hand-written files).
fn message_text(message: Option<&Value>) -> Option<String> {
    let message = message?;
    let text = message
        .as_str()
        .or_else(|| message.get("text").and_then(Value::as_str))
        .or_else(|| message.get("markdown").and_then(Value::as_str))?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

/// CodeQL messages link related locations as `[label](1)`: keep the label only.
fn strip_sarif_links(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find("](").map(|i| open + i) else {
            break;
        };
        let after = &rest[close + 2..];
        let Some(end) = after.find(')') else { break };
        if after[..end].chars().all(|c| c.is_ascii_digit()) && end > 0 {
            out.push_str(&rest[..open]);
            out.push_str(&rest[open + 1..close]);
            rest = &after[end + 1..];
        } else {
            out.push_str(&rest[..close + 2]);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

#[derive(Debug, Default, PartialEq)]
struct Location {
    file: String,
    line: Option<u32>,
    end_line: Option<u32>,
    snippet: String,
}

fn primary_location(result: &Map<String, Value>, artifacts: &[Value]) -> Location {
    let Some(physical) = result
        .get("locations")
        .and_then(Value::as_array)
        .and_then(|list| list.first())
        .and_then(|loc| loc.get("physicalLocation"))
    else {
        return Location::default();
    };
    let artifact = physical.get("artifactLocation");
    let uri = artifact
        .and_then(|a| a.get("uri"))
        .and_then(Value::as_str)
        .or_else(|| {
            let index = artifact?.get("index")?.as_u64()?;
            let artifact = artifacts.get(usize::try_from(index).ok()?)?;
            artifact.pointer("/location/uri")?.as_str()
        })
        .unwrap_or("");
    let region = physical.get("region");
    let line_of = |key: &str| {
        region
            .and_then(|r| r.get(key))
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .filter(|&n| n > 0)
    };
    let line = line_of("startLine");
    let end_line = line_of("endLine").filter(|&end| line.is_some_and(|start| end > start));
    let snippet = region
        .and_then(|r| r.pointer("/snippet/text"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim_end()
        .to_owned();
    Location {
        file: clean_uri(uri),
        line,
        end_line,
        snippet,
    }
}

/// `file:///src/x.py` -> `/src/x.py`, `./src/x.py` -> `src/x.py`, `%20` -> space.
fn clean_uri(uri: &str) -> String {
    let uri = uri.strip_prefix("file://").unwrap_or(uri);
    let mut uri = percent_decode(uri);
    while let Some(rest) = uri.strip_prefix("./") {
        uri = rest.to_owned();
    }
    uri
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

/// `security-severity` from the result's or the rule's properties (a string in CodeQL's
/// output, a number in some generators).
fn security_score(result: &Map<String, Value>, rule: Option<&Map<String, Value>>) -> Option<f64> {
    let read = |props: Option<&Value>| {
        let value = props?.get("security-severity")?;
        value
            .as_f64()
            .or_else(|| value.as_str().and_then(|s| s.trim().parse::<f64>().ok()))
            .filter(|score| score.is_finite())
    };
    read(result.get("properties")).or_else(|| read(rule.and_then(|r| r.get("properties"))))
}

fn severity_of(result: &Map<String, Value>, rule: Option<&Map<String, Value>>) -> Severity {
    if let Some(score) = security_score(result, rule) {
        return match score {
            s if s >= 9.0 => Severity::Critical,
            s if s >= 7.0 => Severity::High,
            s if s >= 4.0 => Severity::Medium,
            s if s > 0.0 => Severity::Low,
            _ => Severity::Info,
        };
    }
    let level = result
        .get("level")
        .and_then(Value::as_str)
        .or_else(|| rule.and_then(|r| r.get("defaultConfiguration")?.get("level")?.as_str()));
    // SARIF's default level is `warning`; an unknown level reads as a note.
    taxonomy::lint_level_severity(level.unwrap_or("warning")).unwrap_or(Severity::Info)
}

fn tags_of(result: &Map<String, Value>, rule: Option<&Map<String, Value>>) -> Vec<String> {
    let read = |props: Option<&Value>| -> Vec<String> {
        props
            .and_then(|p| p.get("tags"))
            .and_then(Value::as_array)
            .map(|tags| {
                tags.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_lowercase)
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut tags = read(result.get("properties"));
    tags.extend(read(rule.and_then(|r| r.get("properties"))));
    tags
}

/// Rule tags are the tool's own classification: a strong native category. The shared tag
/// rules apply, except that a CWE tag alone does not make a finding security: CodeQL tags
/// quality queries with CWEs too (`py/unused-local-variable` carries CWE-563). Semgrep's
/// `OWASP-…`, `best-practice` and `style` tags are read as well.
fn native_category(tags: &[String], has_security_score: bool) -> Option<Category> {
    if has_security_score || tags.iter().any(|t| t.starts_with("owasp")) {
        return Some(Category::Security);
    }
    let shared = tags
        .iter()
        .map(String::as_str)
        .filter(|t| !t.starts_with("external/cwe/"));
    taxonomy::category_from_tags(shared).or_else(|| {
        let has = |name: &str| tags.iter().any(|t| t == name);
        if has("best-practice") {
            Some(Category::Maintainability)
        } else if has("style") || has("naming") {
            Some(Category::Style)
        } else if has("documentation") {
            Some(Category::Docs)
        } else {
            None
        }
    })
}

/// A stable id across runs: the first partial fingerprint (CodeQL's
/// `primaryLocationLineHash` preferred), else a full fingerprint.
fn fingerprint(result: &Map<String, Value>) -> Option<String> {
    let pick = |key: &str| -> Option<String> {
        let map = result.get(key)?.as_object()?;
        let preferred = map.get("primaryLocationLineHash").and_then(Value::as_str);
        let first = || {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            entries.into_iter().find_map(|(_, v)| v.as_str())
        };
        preferred.or_else(first).map(str::to_owned)
    };
    pick("partialFingerprints").or_else(|| pick("fingerprints"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CODEQL: &str = include_str!("../../tests/fixtures/bots/sarif/codeql.sarif");
    const SEMGREP: &str = include_str!("../../tests/fixtures/bots/sarif/semgrep.sarif");

    fn by_symbol<'a>(source: &'a ExtraSource, rule: &str) -> Vec<&'a NormalizedFinding> {
        source
            .findings
            .iter()
            .filter(|f| f.evidence.symbol == rule)
            .collect()
    }

    #[test]
    fn codeql_runs_merge_into_one_source_with_open_results_only() {
        let sources = parse(CODEQL).expect("valid SARIF");
        assert_eq!(sources.len(), 1, "both CodeQL runs are one tool");
        let codeql = &sources[0];
        assert_eq!(codeql.status.bot, "codeql");
        // the suppressed clear-text-logging result is dismissed, not a finding
        assert_eq!(codeql.findings.len(), 5);
        assert_eq!(codeql.status.findings, 5);
        assert!(by_symbol(codeql, "py/clear-text-logging-sensitive-data").is_empty());
    }

    #[test]
    fn codeql_security_result_uses_the_cvss_score_and_tags() {
        let sources = parse(CODEQL).expect("valid SARIF");
        let sqli = by_symbol(&sources[0], "py/sql-injection")[0];
        assert_eq!(sqli.bot, "codeql");
        assert_eq!(sqli.severity, Severity::High, "security-severity 8.8");
        assert_eq!(sqli.category, "security");
        assert_eq!(sqli.evidence.file, "app/api/refunds.py");
        assert_eq!(sqli.evidence.line, Some(42));
        assert_eq!(sqli.evidence.end_line, None);
        assert_eq!(
            sqli.title,
            "This SQL query depends on a user-provided value."
        );
        assert_eq!(sqli.finding_id, "py/sql-injection@5f1e4c9a0b2d7e31:1");
        assert_eq!(
            sqli.provenance.category_source,
            Some(CategorySource::Native)
        );
    }

    #[test]
    fn codeql_note_level_and_artifact_index_location() {
        let sources = parse(CODEQL).expect("valid SARIF");
        let unused = by_symbol(&sources[0], "py/unused-local-variable")[0];
        assert_eq!(unused.severity, Severity::Info, "rule default level note");
        // a CWE tag on a quality query does not make it security
        assert_eq!(unused.category, "maintainability");
        assert_eq!(unused.evidence.file, "app/services/ledger.py");
        assert_eq!(unused.evidence.line, Some(17));
        assert_eq!(unused.evidence.end_line, Some(18));
    }

    /// Query-pack rules live in `tool.extensions[n].rules`, referenced by `toolComponent`.
    #[test]
    fn rules_in_tool_extensions() {
        let sources = parse(CODEQL).expect("valid SARIF");
        let rate = by_symbol(&sources[0], "js/missing-rate-limiting")[0];
        assert_eq!(
            rate.severity,
            Severity::High,
            "security-severity 7.5 from the pack rule"
        );
        assert_eq!(rate.category, "security");
        assert_eq!(
            (rate.evidence.line, rate.evidence.end_line),
            (Some(14), Some(20))
        );
        assert_eq!(
            rate.title,
            "This route handler performs a database access, but is not rate-limited."
        );
        let unused = by_symbol(&sources[0], "js/unused-local-variable")[0];
        assert_eq!(
            unused.severity,
            Severity::Info,
            "pack rule default level note"
        );
        assert_eq!(unused.category, "maintainability");
    }

    #[test]
    fn critical_cvss_and_dot_slash_uri() {
        let sources = parse(CODEQL).expect("valid SARIF");
        let xss = by_symbol(&sources[0], "js/xss")[0];
        assert_eq!(xss.severity, Severity::Critical, "security-severity 9.6");
        assert_eq!(xss.evidence.file, "web/src/components/RefundBanner.tsx");
        assert_eq!(xss.evidence.end_line, None, "endLine == startLine");
        assert_eq!(
            xss.title,
            "Cross-site scripting vulnerability due to a user-provided value."
        );
        assert_eq!(
            xss.finding_id,
            "js/xss@web/src/components/RefundBanner.tsx:12"
        );
    }

    #[test]
    fn semgrep_levels_tags_and_keyword_fallback() {
        let sources = parse(SEMGREP).expect("valid SARIF");
        assert_eq!(sources.len(), 1);
        let semgrep = &sources[0];
        assert_eq!(semgrep.status.bot, "semgrep-oss");
        assert_eq!(
            semgrep.findings.len(),
            3,
            "the `pass` result is not a finding"
        );
        assert_eq!(semgrep.status.skipped, 1, "the non-object result");
        assert!(semgrep.status.notes[0].contains("result 4"));

        let debug = by_symbol(
            semgrep,
            "python.flask.security.audit.debug-enabled.debug-enabled",
        )[0];
        assert_eq!(debug.severity, Severity::Low, "rule default level warning");
        assert_eq!(debug.category, "security");
        assert_eq!(debug.title, "Detected Flask app with debug=True.");
        assert_eq!(debug.evidence.snippet, "    app.run(debug=True)");
        assert!(debug
            .finding_id
            .ends_with("@0c6f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f_0"));

        let cmp = by_symbol(
            semgrep,
            "python.lang.correctness.useless-comparison.no-effect-comparison",
        )[0];
        assert_eq!(cmp.severity, Severity::Medium, "level error");
        assert_eq!(cmp.category, "bug");
        assert_eq!(cmp.evidence.file, "/app/services/fx rates.py");
        assert_eq!(
            (cmp.evidence.line, cmp.evidence.end_line),
            (Some(30), Some(31))
        );

        let props = by_symbol(
            semgrep,
            "typescript.react.best-practice.react-props-in-state",
        )[0];
        assert_eq!(props.severity, Severity::Info);
        assert_eq!(props.category, "maintainability", "keyword `readab`");
        assert_eq!(
            props.provenance.category_source,
            Some(CategorySource::Keyword)
        );
    }

    #[test]
    fn malformed_documents_are_errors_that_name_the_problem() {
        let cases = [
            ("{", "not valid JSON"),
            ("[]", "not a JSON object"),
            (r#"{"version":"2.0.0","runs":[]}"#, "version 2.0.0"),
            (r#"{"version":"2.1.0"}"#, "no `runs` array"),
            (
                r#"{"version":"2.1.0","runs":[1]}"#,
                "run 0 is not an object",
            ),
            (
                r#"{"version":"2.1.0","runs":[{"tool":{}}]}"#,
                "tool.driver.name",
            ),
        ];
        for (text, needle) in cases {
            let err = parse(text).expect_err(text);
            assert!(err.contains(needle), "{text}: {err}");
        }
    }

    #[test]
    fn a_run_without_results_is_an_ok_empty_source() {
        let sources = parse(r#"{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"Trivy"}}}]}"#)
            .expect("valid");
        assert_eq!(sources[0].status.bot, "trivy");
        assert!(sources[0].findings.is_empty());
    }

    #[test]
    fn results_without_message_are_skipped_and_reported() {
        let text = r#"{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},
            "results":[{"locations":[]},{"ruleId":"r","message":{"text":"Fine."}}]}]}"#;
        let sources = parse(text).expect("valid");
        assert_eq!(sources[0].findings.len(), 1);
        assert_eq!(sources[0].status.skipped, 1);
        assert_eq!(
            sources[0].findings[0].evidence.file, "",
            "no location: global"
        );
    }

    #[test]
    fn cvss_bands_and_uri_cleaning() {
        let sev = |score: &str| {
            let result: Map<String, Value> = serde_json::from_str(&format!(
                r#"{{"properties":{{"security-severity":"{score}"}}}}"#
            ))
            .expect("json");
            severity_of(&result, None)
        };
        assert_eq!(sev("9.0"), Severity::Critical);
        assert_eq!(sev("7.0"), Severity::High);
        assert_eq!(sev("6.9"), Severity::Medium);
        assert_eq!(sev("0.1"), Severity::Low);
        assert_eq!(sev("0"), Severity::Info);
        assert_eq!(clean_uri("././src/a%2Bb.rs"), "src/a+b.rs");
        assert_eq!(clean_uri("src/%zz"), "src/%zz");
        assert_eq!(
            strip_sarif_links("a [b](1) [c](http://x) [d]"),
            "a b [c](http://x) [d]"
        );
    }
}
