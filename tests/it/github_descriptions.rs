//! The program's GitHub calls checked against GitHub's own published descriptions, not
//! against our fake: the npm packages `@octokit/graphql-schema` (the GraphQL schema),
//! `@octokit/openapi` (REST, api.github.com and the newest GHES) and
//! `@octokit/webhooks-examples` (event payloads), pinned in `.ci/octokit-descriptions.sh`.
//!
//! The parts used are kept in `tests/fixtures/github/`. With the packages unpacked in
//! `.ci/octokit/` (`.ci/run` does it), the kept parts must equal a fresh extraction;
//! `REVIEW_CONSENSUS_BLESS_GITHUB=1` rewrites them instead. In CI (`CI` set) the packages
//! must be there: a check that cannot run fails.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use apollo_compiler::executable::{Selection, SelectionSet};
use apollo_compiler::validation::Valid;
use apollo_compiler::{ExecutableDocument, Schema};
use review_consensus::api;
use review_consensus::config::{head_lookup, resolve_pr, Config, GitHubEnv};
use review_consensus::github::routes::{self, Route};
use review_consensus::github::threads::DOCUMENTS;
use serde_json::{json, Map, Value};
use serde_reflection::{ContainerFormat, Format, Registry, Tracer, TracerConfig};

use crate::support::{FakeBuilder, PrData};

/// The REST descriptions checked: github.com and the newest GitHub Enterprise Server.
const OPENAPI: [&str; 2] = ["api.github.com", "ghes-3.19"];

/// The events of CONTRACT section 2 with a payload of their own (`pull_request_target`
/// carries `pull_request`'s).
const EVENTS: [&str; 6] = [
    "pull_request",
    "pull_request_review",
    "pull_request_review_comment",
    "pull_request_review_thread",
    "issue_comment",
    "workflow_run",
];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/github")
}

/// Where `.ci/octokit-descriptions.sh` unpacks the packages.
fn packages() -> PathBuf {
    std::env::var_os("OCTOKIT_DESCRIPTIONS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/octokit"))
}

fn read(path: &Path) -> String {
    match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) => panic!(
            "{}: {err} (run .ci/octokit-descriptions.sh, then bless)",
            path.display()
        ),
    }
}

fn read_json(path: &Path) -> Value {
    match serde_json::from_str(&read(path)) {
        Ok(value) => value,
        Err(err) => panic!("{}: {err}", path.display()),
    }
}

// ---------------------------------------------------------------------------------------
// Extraction: the parts of the packages the tests use.

/// Schema keys that matter for types and nullability; descriptions and examples go.
const SCHEMA_KEYS: [&str; 10] = [
    "type",
    "format",
    "nullable",
    "required",
    "enum",
    "properties",
    "items",
    "anyOf",
    "oneOf",
    "allOf",
];

/// `#/components/...` of the description.
fn target<'a>(root: &'a Value, reference: &str) -> &'a Value {
    let pointer = reference.trim_start_matches('#');
    match root.pointer(pointer) {
        Some(value) => value,
        None => panic!("dangling $ref {reference}"),
    }
}

/// A schema with every `$ref` inlined (a ref to a schema being inlined stays a `$ref`: the
/// description has recursive schemas) and only `SCHEMA_KEYS` kept.
fn schema(root: &Value, value: &Value, stack: &mut Vec<String>) -> Value {
    if let Some(reference) = value.get("$ref").and_then(Value::as_str) {
        if stack.iter().any(|r| r == reference) {
            return json!({ "$ref": reference });
        }
        stack.push(reference.to_owned());
        let inlined = schema(root, target(root, reference), stack);
        stack.pop();
        return inlined;
    }
    let Value::Object(object) = value else {
        return value.clone();
    };
    let mut out = Map::new();
    for key in SCHEMA_KEYS {
        let Some(v) = object.get(key) else { continue };
        let kept = match key {
            "properties" => Value::Object(
                v.as_object()
                    .into_iter()
                    .flatten()
                    .map(|(name, s)| (name.clone(), schema(root, s, stack)))
                    .collect(),
            ),
            "items" => schema(root, v, stack),
            "anyOf" | "oneOf" | "allOf" => Value::Array(
                v.as_array()
                    .into_iter()
                    .flatten()
                    .map(|s| schema(root, s, stack))
                    .collect(),
            ),
            _ => v.clone(),
        };
        out.insert(key.to_owned(), kept);
    }
    Value::Object(out)
}

fn follow<'a>(root: &'a Value, value: &'a Value) -> &'a Value {
    match value.get("$ref").and_then(Value::as_str) {
        Some(reference) => target(root, reference),
        None => value,
    }
}

/// One operation: its parameters (name, where, required), its JSON request body and the
/// JSON body of each 2xx answer (`null` when it has none).
fn operation(root: &Value, route: &Route) -> Value {
    let method = route.method.to_ascii_lowercase();
    let Some(op) = root.pointer(&format!(
        "/paths/{}/{method}",
        route.path.replace('~', "~0").replace('/', "~1")
    )) else {
        return Value::Null;
    };
    let parameters: Vec<Value> = op
        .get("parameters")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|p| {
            let p = follow(root, p);
            json!({"name": p["name"], "in": p["in"], "required": p.get("required").cloned().unwrap_or(json!(false))})
        })
        .collect();
    let body = op
        .get("requestBody")
        .map(|b| follow(root, b))
        .and_then(|b| b.pointer("/content/application~1json/schema"))
        .map(|s| schema(root, s, &mut Vec::new()));
    let mut responses = Map::new();
    for (code, answer) in op
        .get("responses")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if !code.starts_with('2') {
            continue;
        }
        let answer = follow(root, answer);
        let body = answer
            .pointer("/content/application~1json/schema")
            .map_or(Value::Null, |s| schema(root, s, &mut Vec::new()));
        responses.insert(code.clone(), body);
    }
    let mut out = json!({"parameters": parameters, "responses": responses});
    if let Some(body) = body {
        out["requestBody"] = body;
    }
    out
}

/// Every operation in `routes::ALL` (missing ones as `null`, for the checks to name).
fn extract_openapi(root: &Value) -> Value {
    let mut paths: BTreeMap<String, Map<String, Value>> = BTreeMap::new();
    for route in routes::ALL {
        paths
            .entry(route.path.to_owned())
            .or_default()
            .insert(route.method.to_owned(), operation(root, &route));
    }
    json!({ "version": root.pointer("/info/version"), "paths": paths })
}

/// The examples of our events.
fn extract_webhooks(index: &Value) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for entry in index.as_array().into_iter().flatten() {
        let name = entry["name"].as_str().unwrap_or("");
        if EVENTS.contains(&name) {
            out.insert(name.to_owned(), entry["examples"].clone());
        }
    }
    out
}

/// Every kept file and its fresh content from the packages.
fn fresh_extracts(dir: &Path) -> Vec<(PathBuf, String)> {
    let pretty = |v: &Value| format!("{}\n", serde_json::to_string_pretty(v).unwrap_or_default());
    let mut files = vec![(
        fixtures().join("schema.graphql"),
        read(&dir.join("graphql-schema/schema.graphql")),
    )];
    for name in OPENAPI {
        let full = read_json(&dir.join(format!("openapi/generated/{name}.json")));
        files.push((
            fixtures().join(format!("openapi/{name}.json")),
            pretty(&extract_openapi(&full)),
        ));
    }
    let index = read_json(&dir.join("webhooks-examples/api.github.com/index.json"));
    for (event, examples) in extract_webhooks(&index) {
        files.push((
            fixtures().join(format!("webhooks/{event}.json")),
            pretty(&examples),
        ));
    }
    files
}

#[test]
fn kept_descriptions_equal_a_fresh_extraction_from_the_pinned_packages() {
    let dir = packages();
    if !dir.join("openapi/.version").exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must check the kept descriptions: {} is missing (.ci/octokit-descriptions.sh)",
            dir.display()
        );
        let note = format!(
            "note: {} missing; the kept descriptions are not compared with the packages",
            dir.display()
        );
        let _ = writeln!(std::io::stderr(), "{note}");
        return;
    }
    let bless = std::env::var_os("REVIEW_CONSENSUS_BLESS_GITHUB").is_some();
    let mut stale = Vec::new();
    for (path, fresh) in fresh_extracts(&dir) {
        if bless {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).unwrap();
            }
            std::fs::write(&path, &fresh).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(fresh.as_str()) {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "kept descriptions differ from the pinned packages (REVIEW_CONSENSUS_BLESS_GITHUB=1 \
         rewrites them): {stale:?}"
    );
}

// ---------------------------------------------------------------------------------------
// GraphQL: every document against the schema, no deprecated field.

fn graphql_schema() -> Valid<Schema> {
    let sdl = read(&fixtures().join("schema.graphql"));
    // GitHub's SDL defines two fields of `EnterpriseOwnerInfo` twice; nothing we query.
    let schema = match Schema::parse(sdl, "schema.graphql") {
        Ok(schema) => schema,
        Err(with_errors) => {
            let errors = with_errors.errors.to_string();
            assert!(
                errors.matches("Error:").count()
                    == errors
                        .matches("duplicate definitions for the `repositoryDeployKey")
                        .count(),
                "unexpected schema errors: {errors}"
            );
            with_errors.partial
        }
    };
    Valid::assume_valid(schema)
}

/// `Type.field` of every deprecated field a selection set reaches.
fn deprecated(set: &SelectionSet, out: &mut Vec<String>) {
    for selection in &set.selections {
        match selection {
            Selection::Field(field) => {
                if field.definition.directives.get("deprecated").is_some() {
                    out.push(format!("{}.{}", set.ty, field.name));
                }
                deprecated(&field.selection_set, out);
            }
            Selection::InlineFragment(fragment) => deprecated(&fragment.selection_set, out),
            Selection::FragmentSpread(_) => {}
        }
    }
}

#[test]
fn every_graphql_document_is_valid_against_githubs_schema_without_deprecated_fields() {
    let schema = graphql_schema();
    for (name, document) in DOCUMENTS {
        let valid = match ExecutableDocument::parse_and_validate(&schema, document, name) {
            Ok(doc) => doc,
            Err(err) => panic!("{name}: {}", err.errors),
        };
        let mut found = Vec::new();
        for op in valid.operations.iter() {
            deprecated(&op.selection_set, &mut found);
        }
        assert!(found.is_empty(), "{name} uses deprecated fields: {found:?}");
    }
    // The check has teeth: the query sent before (`databaseId`) fails it.
    let old = "query($id: ID!) { node(id: $id) { ... on PullRequestReviewThread { comments(first: 1) { nodes { databaseId } } } } }";
    let doc = ExecutableDocument::parse_and_validate(&schema, old, "old").expect("valid");
    let mut found = Vec::new();
    for op in doc.operations.iter() {
        deprecated(&op.selection_set, &mut found);
    }
    assert_eq!(found, ["PullRequestReviewComment.databaseId"]);
}

// ---------------------------------------------------------------------------------------
// REST: every call, the parameters we send and the fields we read.

fn descriptions() -> Vec<(&'static str, Value)> {
    OPENAPI
        .iter()
        .map(|name| {
            (
                *name,
                read_json(&fixtures().join(format!("openapi/{name}.json"))),
            )
        })
        .collect()
}

fn described<'a>(description: &'a Value, route: &Route) -> &'a Value {
    &description["paths"][route.path][route.method]
}

/// Query parameters each call sends.
const QUERIES: [(Route, &[&str]); 9] = [
    (routes::REVIEW_COMMENTS, &["per_page", "page"]),
    (routes::REVIEWS, &["per_page", "page"]),
    (routes::ISSUE_COMMENTS, &["per_page", "page"]),
    (routes::CODE_SCANNING_ALERTS, &["ref", "per_page", "page"]),
    // `head` to find a fork's PR; `sort` and `direction` for `stats`' merged PRs.
    (
        routes::PULLS,
        &["state", "head", "sort", "direction", "per_page", "page"],
    ),
    (routes::ISSUE_REACTIONS, &["per_page", "page"]),
    (routes::COMMIT_CHECK_RUNS, &["per_page", "page"]),
    (routes::COMMIT_STATUSES, &["per_page", "page"]),
    (routes::PULL_COMMITS, &["per_page", "page"]),
];

/// Paged lists whose answer is an object holding the array (`{"total_count", "check_runs"}`).
const LISTS_IN_A_FIELD: [(Route, &str); 1] = [(routes::COMMIT_CHECK_RUNS, "check_runs")];

#[test]
fn every_rest_call_exists_with_its_parameters_in_api_github_com_and_ghes() {
    for (name, description) in descriptions() {
        for route in routes::ALL {
            let op = described(&description, &route);
            assert!(
                op.is_object(),
                "{name}: {} {} is not described",
                route.method,
                route.path
            );
            let params: Vec<(&str, &str)> = op["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| {
                    (
                        p["name"].as_str().unwrap_or(""),
                        p["in"].as_str().unwrap_or(""),
                    )
                })
                .collect();
            for segment in route.path.split('/').filter(|s| s.starts_with('{')) {
                let param = segment.trim_matches(['{', '}']);
                assert!(
                    params.contains(&(param, "path")),
                    "{name}: {} has no path {param}",
                    route.path
                );
            }
            let sent = QUERIES
                .iter()
                .find(|(r, _)| *r == route)
                .map_or(&[][..], |(_, q)| *q);
            for query in sent {
                assert!(
                    params.contains(&(query, "query")),
                    "{name}: {} {} takes no `{query}`",
                    route.method,
                    route.path
                );
            }
            // A paged list's answer is an array, or an object with the array in a field.
            if !sent.is_empty() {
                let answer = &op["responses"]["200"];
                let list = match LISTS_IN_A_FIELD.iter().find(|(r, _)| *r == route) {
                    Some((_, field)) => &answer["properties"][*field],
                    None => answer,
                };
                assert_eq!(list["type"], "array", "{name}: {}", route.path);
            }
        }
    }
}

#[test]
fn the_bodies_we_send_use_only_described_fields_and_values() {
    let comment = json!({"body": "x"});
    let check_run = json!({
        "name": "n", "head_sha": "s", "status": "completed", "conclusion": "failure",
        "output": {"title": "t", "summary": "s", "annotations": [{"path": "a", "start_line": 1,
            "end_line": 1, "annotation_level": "failure", "title": "t", "message": "m"}]},
    });
    let update = json!({"output": check_run["output"]});
    let conclusions = ["success", "failure"];
    let levels = ["failure", "warning", "notice"];
    for (name, description) in descriptions() {
        for (route, body) in [
            (routes::CREATE_ISSUE_COMMENT, &comment),
            (routes::UPDATE_ISSUE_COMMENT, &comment),
            (routes::CREATE_CHECK_RUN, &check_run),
            (routes::UPDATE_CHECK_RUN, &update),
        ] {
            let schema = &described(&description, &route)["requestBody"];
            let mut errors = Vec::new();
            check_value(schema, body, route.path, &mut errors);
            assert!(errors.is_empty(), "{name}: {errors:?}");
        }
        let create = &described(&description, &routes::CREATE_CHECK_RUN)["requestBody"];
        for conclusion in conclusions {
            let mut errors = Vec::new();
            check_value(
                create,
                &json!({"conclusion": conclusion}),
                "conclusion",
                &mut errors,
            );
            assert!(errors.is_empty(), "{name}: {errors:?}");
        }
        for level in levels {
            let annotation = json!({"output": {"annotations": [{"annotation_level": level}]}});
            let mut errors = Vec::new();
            check_value(create, &annotation, "annotation", &mut errors);
            assert!(errors.is_empty(), "{name}: {errors:?}");
        }
    }
}

/// Each field of `value` is a property of `schema`, with an allowed `enum` value.
fn check_value(schema: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
    match value {
        Value::Object(fields) => {
            let properties = properties(schema);
            for (name, v) in fields {
                match properties.get(name.as_str()) {
                    Some(s) => check_value(s, v, &format!("{at}.{name}"), errors),
                    None => errors.push(format!("{at}.{name} is not described")),
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                check_value(&items_of(schema), item, &format!("{at}[]"), errors);
            }
        }
        Value::String(text) => {
            let allowed = enums(schema);
            if !allowed.is_empty() && !allowed.iter().any(|a| a == text) {
                errors.push(format!("{at}: `{text}` is not one of {allowed:?}"));
            }
        }
        _ => {}
    }
}

/// The schema and the branches of its `allOf`/`anyOf`/`oneOf`.
fn branches(schema: &Value) -> Vec<&Value> {
    let mut out = vec![schema];
    for key in ["allOf", "anyOf", "oneOf"] {
        for branch in schema[key].as_array().into_iter().flatten() {
            out.extend(branches(branch));
        }
    }
    out
}

fn properties(schema: &Value) -> BTreeMap<&str, &Value> {
    branches(schema)
        .into_iter()
        .flat_map(|b| b["properties"].as_object().into_iter().flatten())
        .map(|(k, v)| (k.as_str(), v))
        .collect()
}

fn items_of(schema: &Value) -> Value {
    branches(schema)
        .into_iter()
        .find_map(|b| b.get("items").cloned())
        .unwrap_or(Value::Null)
}

fn enums(schema: &Value) -> Vec<String> {
    branches(schema)
        .into_iter()
        .flat_map(|b| b["enum"].as_array().into_iter().flatten())
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect()
}

fn types(schema: &Value) -> Vec<&str> {
    branches(schema)
        .into_iter()
        .filter_map(|b| b["type"].as_str())
        .collect()
}

/// GitHub may send `null` here.
fn nullable(schema: &Value) -> bool {
    branches(schema)
        .into_iter()
        .any(|b| b["nullable"] == true || b["type"] == "null")
}

/// The serde shapes of the lean structs, by Rust type name.
fn lean_structs() -> Registry {
    let mut tracer = Tracer::new(TracerConfig::default());
    let traced = [
        tracer.trace_simple_type::<api::PullRequest>().map(|_| ()),
        tracer.trace_simple_type::<api::ReviewComment>().map(|_| ()),
        tracer.trace_simple_type::<api::Review>().map(|_| ()),
        tracer.trace_simple_type::<api::IssueComment>().map(|_| ()),
        tracer
            .trace_simple_type::<api::CodeScanningAlert>()
            .map(|_| ()),
        tracer.trace_simple_type::<api::CheckRun>().map(|_| ()),
        tracer.trace_simple_type::<api::Reaction>().map(|_| ()),
        tracer.trace_simple_type::<api::CommitStatus>().map(|_| ()),
    ];
    for result in traced {
        if let Err(err) = result {
            panic!("tracing the lean structs: {err}");
        }
    }
    match tracer.registry() {
        Ok(registry) => registry,
        Err(err) => panic!("registry: {err}"),
    }
}

/// Compare what we read (`format`) with what GitHub describes (`schema`) at `at`.
fn check_field(
    registry: &Registry,
    format: &Format,
    schema: &Value,
    at: &str,
    errors: &mut Vec<String>,
) {
    let (format, optional) = match format {
        Format::Option(inner) => (inner.as_ref(), true),
        other => (other, false),
    };
    if nullable(schema) && !optional {
        errors.push(format!(
            "{at}: GitHub may send null, the field must be optional"
        ));
    }
    let kinds = types(schema);
    let expect = |kind: &str, errors: &mut Vec<String>| {
        // No type (an untyped or recursive schema) promises nothing to compare.
        if !kinds.is_empty() && !kinds.contains(&kind) {
            errors.push(format!("{at}: we read {kind}, GitHub describes {kinds:?}"));
        }
    };
    match format {
        Format::Bool => expect("boolean", errors),
        Format::U8 | Format::U16 | Format::U32 | Format::U64 | Format::I32 | Format::I64 => {
            expect("integer", errors)
        }
        Format::Str => expect("string", errors),
        Format::Seq(inner) => {
            expect("array", errors);
            check_field(
                registry,
                inner,
                &items_of(schema),
                &format!("{at}[]"),
                errors,
            );
        }
        Format::TypeName(name) => {
            expect("object", errors);
            let Some(ContainerFormat::Struct(fields)) = registry.get(name) else {
                errors.push(format!("{at}: {name} is not a struct"));
                return;
            };
            let described = properties(schema);
            for field in fields {
                let path = format!("{at}.{}", field.name);
                match described.get(field.name.as_str()) {
                    Some(s) => check_field(registry, &field.value, s, &path, errors),
                    None => errors.push(format!("{path} is not in the description")),
                }
            }
        }
        other => errors.push(format!("{at}: unexpected shape {other:?}")),
    }
}

/// Fields read from an answer's raw JSON (the head commit's date, a commenter's permission,
/// the dates `stats` windows the merged PRs by).
const RAW_FIELDS: [(Route, &str); 6] = [
    (routes::PULLS, "updated_at"),
    (routes::PULLS, "merged_at"),
    (routes::PULL_COMMITS, "sha"),
    (routes::PULL_COMMITS, "commit/committer/date"),
    (routes::COLLABORATOR_PERMISSION, "permission"),
    (routes::COLLABORATOR_PERMISSION, "role_name"),
];

#[test]
fn every_field_the_lean_structs_read_is_described_with_its_type_and_nullability() {
    let registry = lean_structs();
    let answers: [(Route, &str, bool, &str); 8] = [
        (routes::PULL, "200", false, "PullRequest"),
        (routes::PULLS, "200", true, "PullRequest"),
        (routes::REVIEW_COMMENTS, "200", true, "ReviewComment"),
        (routes::REVIEWS, "200", true, "Review"),
        (routes::ISSUE_COMMENTS, "200", true, "IssueComment"),
        (routes::CREATE_ISSUE_COMMENT, "201", false, "IssueComment"),
        (routes::UPDATE_ISSUE_COMMENT, "200", false, "IssueComment"),
        (
            routes::CODE_SCANNING_ALERTS,
            "200",
            true,
            "CodeScanningAlert",
        ),
    ];
    let signals: [(Route, &str, bool, &str); 3] = [
        (routes::CREATE_CHECK_RUN, "201", false, "CheckRun"),
        (routes::ISSUE_REACTIONS, "200", true, "Reaction"),
        (routes::COMMIT_STATUSES, "200", true, "CommitStatus"),
    ];
    let mut errors = Vec::new();
    for (name, description) in descriptions() {
        for (route, status, list, rust) in answers.iter().chain(&signals) {
            let answer = &described(&description, route)["responses"][*status];
            let schema = if *list {
                items_of(answer)
            } else {
                answer.clone()
            };
            let at = format!("{name}: {} {} {status} {rust}", route.method, route.path);
            check_field(
                &registry,
                &Format::TypeName((*rust).to_owned()),
                &schema,
                &at,
                &mut errors,
            );
        }
        // The check runs of a commit: `check_runs[]` of the answer.
        let answer = &described(&description, &routes::COMMIT_CHECK_RUNS)["responses"]["200"];
        check_field(
            &registry,
            &Format::Seq(Box::new(Format::TypeName("CheckRun".to_owned()))),
            &answer["properties"]["check_runs"],
            &format!("{name}: {} check_runs", routes::COMMIT_CHECK_RUNS.path),
            &mut errors,
        );
        // Fields read from raw JSON, without a lean struct.
        for (route, pointer) in RAW_FIELDS {
            let answer = &described(&description, &route)["responses"]["200"];
            let mut schema = answer.clone();
            if schema["type"] == "array" {
                schema = items_of(&schema);
            }
            for field in pointer.split('/') {
                schema = properties(&schema)
                    .get(field)
                    .map_or(Value::Null, |s| (*s).clone());
            }
            if types(&schema) != ["string"] {
                errors.push(format!(
                    "{name}: {} {pointer} is not a described string",
                    route.path
                ));
            }
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn the_field_check_has_teeth() {
    // A struct reading a nullable field as required, and one GitHub does not describe.
    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Strict {
        pull_request_review_id: u64,
        not_a_field: Option<String>,
    }
    let mut tracer = Tracer::new(TracerConfig::default());
    tracer.trace_simple_type::<Strict>().expect("traced");
    let registry = tracer.registry().expect("registry");
    let description = &descriptions()[0].1;
    let schema = items_of(&described(description, &routes::REVIEW_COMMENTS)["responses"]["200"]);
    let mut errors = Vec::new();
    check_field(
        &registry,
        &Format::TypeName("Strict".into()),
        &schema,
        "x",
        &mut errors,
    );
    assert_eq!(
        errors,
        [
            "x.pull_request_review_id: GitHub may send null, the field must be optional",
            "x.not_a_field is not in the description"
        ]
    );
}

// ---------------------------------------------------------------------------------------
// Webhooks: every example of our events resolves its PR and head, or is a clean no-op.

fn env_of(event: &str, payload: &Value) -> GitHubEnv {
    let repository = payload
        .pointer("/repository/full_name")
        .and_then(Value::as_str)
        .unwrap_or("octo-org/octo-repo");
    GitHubEnv::from_vars([
        ("GITHUB_REPOSITORY".to_owned(), repository.to_owned()),
        ("GITHUB_EVENT_NAME".to_owned(), event.to_owned()),
    ])
}

fn examples(event: &str) -> Vec<Value> {
    match read_json(&fixtures().join(format!("webhooks/{event}.json"))) {
        Value::Array(items) if !items.is_empty() => items,
        other => panic!("{event}: no examples ({other})"),
    }
}

#[test]
fn every_webhook_example_of_our_events_resolves_its_pr_or_is_a_clean_no_op() {
    let config = Config::from_inputs(Vec::new()).expect("defaults");
    let text = |v: &Value, p: &str| v.pointer(p).and_then(Value::as_str).map(str::to_owned);
    let mut resolved = 0;
    for event in EVENTS.iter().copied().chain(["pull_request_target"]) {
        let source = if event == "pull_request_target" {
            "pull_request"
        } else {
            event
        };
        for (i, payload) in examples(source).iter().enumerate() {
            let env = env_of(event, payload);
            let what = format!("{event} example {i} ({})", payload["action"]);
            let found =
                resolve_pr(&config, &env, Some(payload)).unwrap_or_else(|e| panic!("{what}: {e}"));
            let lookup =
                head_lookup(&config, &env, Some(payload)).unwrap_or_else(|e| panic!("{what}: {e}"));
            match event {
                "issue_comment" => {
                    let on_pr = payload.pointer("/issue/pull_request").is_some();
                    assert_eq!(
                        found.as_ref().map(|t| t.number),
                        on_pr.then(|| payload["issue"]["number"].as_u64().unwrap()),
                        "{what}"
                    );
                    assert!(lookup.is_none(), "{what}");
                }
                "workflow_run" => {
                    let run = &payload["workflow_run"];
                    let this = payload.pointer("/repository/id");
                    let own = run["pull_requests"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .find(|p| p.pointer("/base/repo/id") == this);
                    assert_eq!(
                        found.as_ref().map(|t| t.number),
                        own.and_then(|p| p["number"].as_u64()),
                        "{what}"
                    );
                    // None of these runs was for a PR: nothing to look up.
                    assert!(run["event"]
                        .as_str()
                        .is_some_and(|e| !e.starts_with("pull_request")));
                    assert!(lookup.is_none(), "{what}");
                }
                _ => {
                    let pr = &payload["pull_request"];
                    let target = found.unwrap_or_else(|| panic!("{what}: no PR"));
                    assert_eq!(Some(target.number), pr["number"].as_u64(), "{what}");
                    assert_eq!(target.head_sha, text(pr, "/head/sha"), "{what}");
                    let fork = text(pr, "/head/repo/full_name") != text(pr, "/base/repo/full_name");
                    assert_eq!(target.from_fork, fork, "{what}");
                    assert!(lookup.is_none(), "{what}");
                    resolved += 1;
                }
            }
        }
    }
    assert!(resolved > 60, "{resolved}");
    // The example whose only PR is another repository's is not taken for ours.
    let foreign = examples("workflow_run")
        .into_iter()
        .find(|p| {
            !p["workflow_run"]["pull_requests"]
                .as_array()
                .unwrap()
                .is_empty()
        })
        .expect("an example listing a PR");
    assert_eq!(
        resolve_pr(&config, &env_of("workflow_run", &foreign), Some(&foreign)).unwrap(),
        None
    );
}

#[tokio::test]
async fn every_workflow_run_example_after_a_pr_run_finds_the_pr_by_its_head() {
    let config = Config::from_inputs(Vec::new()).expect("defaults");
    for (i, mut payload) in examples("workflow_run").into_iter().enumerate() {
        // The same run, had it been a PR's: GitHub lists no PR for a fork's.
        payload["workflow_run"]["event"] = json!("pull_request");
        payload["workflow_run"]["pull_requests"] = json!([]);
        let env = env_of("workflow_run", &payload);
        assert_eq!(resolve_pr(&config, &env, Some(&payload)).unwrap(), None);
        let lookup = head_lookup(&config, &env, Some(&payload))
            .unwrap()
            .unwrap_or_else(|| panic!("example {i}: no lookup"));
        let run = &payload["workflow_run"];
        assert_eq!(Some(lookup.head_sha.as_str()), run["head_sha"].as_str());
        let owner = run
            .pointer("/head_repository/owner/login")
            .and_then(Value::as_str)
            .unwrap();
        let branch = run["head_branch"].as_str().unwrap();
        assert_eq!(
            lookup.head.as_deref(),
            Some(format!("{owner}:{branch}").as_str())
        );

        // Against a fake holding the open PR with that head.
        let mut data = PrData::empty(&lookup.owner, &lookup.repo, 40 + i as u64, &lookup.head_sha);
        data.pull["head"]["ref"] = json!(branch);
        data.pull["head"]["repo"]["owner"] = json!({"login": owner});
        let fake = FakeBuilder::new(data.clone()).start().await;
        let env = GitHubEnv::from_vars([
            (
                "GITHUB_REPOSITORY".to_owned(),
                format!("{}/{}", lookup.owner, lookup.repo),
            ),
            ("GITHUB_API_URL".to_owned(), fake.api_url.clone()),
            ("GITHUB_GRAPHQL_URL".to_owned(), fake.graphql_url.clone()),
        ]);
        let target = review_consensus::action::find_pull(&config, &env, &lookup)
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("example {i}: not found"));
        assert_eq!(
            (target.number, target.head_sha.as_deref()),
            (data.number, Some(lookup.head_sha.as_str()))
        );
        assert!(fake.state().unexpected.is_empty());
    }
}
