//! action.yml, docs/CONTRACT.md, README.md, the user workflows in docs/workflows/ and the
//! config parser's input list describe one interface: these tests fail when they drift.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

const OWNER_REPO: &str = "review-consensus/review-consensus";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ActionYml {
    name: String,
    description: String,
    author: String,
    branding: Branding,
    inputs: serde_norway::Mapping,
    outputs: serde_norway::Mapping,
    runs: Runs,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Branding {
    icon: String,
    color: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Input {
    description: String,
    required: bool,
    default: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Output {
    description: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Runs {
    using: String,
    image: String,
}

fn read(path: &str) -> String {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("read {}: {e}", full.display()))
}

fn action() -> ActionYml {
    serde_norway::from_str(&read("action.yml")).expect("action.yml parses")
}

/// Inputs in action.yml order, each validated against the `Input` shape.
fn action_inputs() -> Vec<(String, Input)> {
    action()
        .inputs
        .into_iter()
        .map(|(name, value)| {
            let name = name.as_str().expect("input ids are strings").to_owned();
            let input: Input =
                serde_norway::from_value(value).unwrap_or_else(|e| panic!("input `{name}`: {e}"));
            (name, input)
        })
        .collect()
}

fn action_outputs() -> Vec<(String, Output)> {
    action()
        .outputs
        .into_iter()
        .map(|(name, value)| {
            let name = name.as_str().expect("output ids are strings").to_owned();
            let output: Output =
                serde_norway::from_value(value).unwrap_or_else(|e| panic!("output `{name}`: {e}"));
            (name, output)
        })
        .collect()
}

/// The lines of the markdown section whose heading starts with `heading`, up to the next
/// heading of the same or a higher level.
fn section<'a>(markdown: &'a str, heading: &str) -> Vec<&'a str> {
    let level = heading.chars().take_while(|c| *c == '#').count();
    let mut lines = markdown.lines().skip_while(|l| !l.starts_with(heading));
    assert!(lines.next().is_some(), "no section `{heading}`");
    lines
        .take_while(|l| {
            let hashes = l.chars().take_while(|c| *c == '#').count();
            !(hashes > 0 && hashes <= level && l[hashes..].starts_with(' '))
        })
        .collect()
}

/// The first table in `lines`: each row's cells, trimmed, header and separator dropped.
fn table_rows(lines: &[&str]) -> Vec<Vec<String>> {
    lines
        .iter()
        .skip_while(|l| !l.trim_start().starts_with('|'))
        .take_while(|l| l.trim_start().starts_with('|'))
        .skip(2)
        .map(|row| split_row(row))
        .collect()
}

/// Split a table row on `|`, except inside backticks (a default may contain `|`).
fn split_row(row: &str) -> Vec<String> {
    let mut cells = vec![String::new()];
    let mut in_code = false;
    for c in row.trim().trim_matches('|').chars() {
        match c {
            '`' => {
                in_code = !in_code;
                cells.last_mut().unwrap().push(c);
            }
            '|' if !in_code => cells.push(String::new()),
            _ => cells.last_mut().unwrap().push(c),
        }
    }
    cells.into_iter().map(|c| c.trim().to_owned()).collect()
}

/// `` `name` `` -> `name`; a cell that is not exactly one code span stays as it is.
fn unquote(cell: &str) -> &str {
    cell.strip_prefix('`')
        .and_then(|c| c.strip_suffix('`'))
        .filter(|c| !c.contains('`'))
        .unwrap_or(cell)
}

/// A default cell agrees with action.yml's default: a non-empty default is written as
/// exactly that code span; an empty one (computed by the binary) is described in words
/// or names where it comes from (`$RUNNER_TEMP/...`), never as another literal value.
fn assert_default_agrees(doc: &str, input: &str, cell: &str, action_default: &str) {
    if action_default.is_empty() {
        let literal = unquote(cell) != cell;
        assert!(
            !literal || cell.contains('$'),
            "{doc}: `{input}` shows default {cell}, action.yml's default is empty"
        );
    } else {
        assert_eq!(
            cell,
            format!("`{action_default}`"),
            "{doc}: default of `{input}` differs from action.yml"
        );
    }
}

fn names<T>(items: &[(String, T)]) -> Vec<&str> {
    items.iter().map(|(n, _)| n.as_str()).collect()
}

#[test]
fn action_yml_is_a_complete_docker_action() {
    let action = action();
    assert_eq!(action.name, "review-consensus");
    assert!(!action.description.trim().is_empty());
    assert!(
        action.description.len() <= 125,
        "Marketplace cuts descriptions at 125 chars"
    );
    assert!(!action.author.trim().is_empty());
    let colors = [
        "white",
        "black",
        "yellow",
        "blue",
        "green",
        "orange",
        "red",
        "purple",
        "gray-dark",
    ];
    assert!(
        colors.contains(&action.branding.color.as_str()),
        "branding color"
    );
    assert!(!action.branding.icon.is_empty());

    assert_eq!(action.runs.using, "docker");
    let image = format!("docker://ghcr.io/{OWNER_REPO}:v");
    assert!(
        action.runs.image.starts_with(&image),
        "runs.image `{}` is not the prebuilt {image}<major>",
        action.runs.image
    );

    for (name, input) in action_inputs() {
        assert!(
            !input.description.trim().is_empty(),
            "input `{name}` has no description"
        );
        // The runner does not enforce `required`; the binary validates every input.
        assert!(!input.required, "input `{name}` is required");
    }
    for (name, output) in action_outputs() {
        assert!(
            !output.description.trim().is_empty(),
            "output `{name}` has no description"
        );
    }
    let token = action_inputs()
        .into_iter()
        .find(|(n, _)| n == "github-token");
    assert_eq!(
        token.expect("github-token input").1.default,
        "${{ github.token }}"
    );
}

#[test]
fn contract_inputs_match_action_yml() {
    let contract = read("docs/CONTRACT.md");
    let rows = table_rows(&section(&contract, "## 3. Inputs"));
    let inputs = action_inputs();
    let contract_names: Vec<&str> = rows.iter().map(|r| unquote(&r[0])).collect();
    assert_eq!(
        contract_names,
        names(&inputs),
        "CONTRACT section 3 vs action.yml inputs"
    );
    for (row, (name, input)) in rows.iter().zip(&inputs) {
        assert_default_agrees("CONTRACT", name, &row[1], &input.default);
    }
}

#[test]
fn contract_outputs_match_action_yml() {
    let contract = read("docs/CONTRACT.md");
    let body = section(&contract, "## 4. Outputs").join("\n");
    // "`confirmed`, ..., `gate` (`pass` or `fail`), ...": names are the code spans outside
    // parentheses.
    let mut depth = 0usize;
    let outside: String = body
        .chars()
        .filter(|c| {
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                _ => return depth == 0,
            }
            false
        })
        .collect();
    let listed: Vec<&str> = outside.split('`').skip(1).step_by(2).collect();
    assert_eq!(
        listed,
        names(&action_outputs()),
        "CONTRACT section 4 vs action.yml outputs"
    );
}

#[test]
fn readme_inputs_table_matches_action_yml() {
    let readme = read("README.md");
    let rows = table_rows(&section(&readme, "## Inputs"));
    let inputs = action_inputs();
    let readme_names: Vec<&str> = rows.iter().map(|r| unquote(&r[0])).collect();
    assert_eq!(
        readme_names,
        names(&inputs),
        "README inputs table vs action.yml"
    );
    for (row, (name, input)) in rows.iter().zip(&inputs) {
        assert_eq!(
            row.len(),
            3,
            "README inputs row `{name}`: Name | Description | Default"
        );
        assert!(!row[1].is_empty(), "README: `{name}` has no description");
        assert_default_agrees("README", name, &row[2], &input.default);
    }
}

#[test]
fn readme_outputs_table_matches_action_yml() {
    let readme = read("README.md");
    let rows = table_rows(&section(&readme, "## Outputs"));
    let readme_names: Vec<&str> = rows.iter().map(|r| unquote(&r[0])).collect();
    assert_eq!(
        readme_names,
        names(&action_outputs()),
        "README outputs table vs action.yml"
    );
    assert!(rows.iter().all(|r| r.len() == 2 && !r[1].is_empty()));
}

#[test]
fn config_parser_reads_exactly_the_action_inputs() {
    let parsed: Vec<&str> = review_consensus::config::INPUT_NAMES.to_vec();
    assert_eq!(
        parsed,
        names(&action_inputs()),
        "config::INPUT_NAMES vs action.yml inputs"
    );
}

/// Every `with:` key given to this action in README and docs/workflows is a declared input,
/// and every reference uses the published `owner/repo@v1`.
#[test]
fn example_workflows_use_declared_inputs() {
    let inputs = action_inputs();
    let declared = names(&inputs);
    let mut documents: BTreeMap<String, String> = BTreeMap::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/workflows");
    for entry in std::fs::read_dir(&dir).expect("docs/workflows exists") {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yml") {
            let text = std::fs::read_to_string(&path).unwrap();
            documents.insert(path.display().to_string(), text);
        }
    }
    assert!(
        documents.len() >= 3,
        "recommended, fork and slow-bots workflows"
    );
    // README's ```yaml blocks that are workflows.
    let readme = read("README.md");
    for (i, block) in readme.split("```yaml\n").skip(1).enumerate() {
        let block = block.split("```").next().unwrap_or_default();
        if block.contains("jobs:") {
            documents.insert(format!("README.md yaml block {i}"), block.to_owned());
        }
    }

    let mut uses_seen = 0;
    for (doc, text) in &documents {
        let workflow: serde_norway::Value =
            serde_norway::from_str(text).unwrap_or_else(|e| panic!("{doc}: {e}"));
        let jobs = workflow["jobs"]
            .as_mapping()
            .unwrap_or_else(|| panic!("{doc}: no jobs"));
        for (_, job) in jobs {
            let steps = job["steps"].as_sequence().cloned().unwrap_or_default();
            for step in steps {
                let Some(uses) = step["uses"].as_str() else {
                    continue;
                };
                if !uses.contains("review-consensus") {
                    continue;
                }
                // A step running the image itself (the scorecard's `stats`) runs the one
                // the action runs.
                if uses.starts_with("docker://") {
                    assert_eq!(uses, action().runs.image, "{doc}");
                    continue;
                }
                uses_seen += 1;
                assert_eq!(uses, format!("{OWNER_REPO}@v1"), "{doc}");
                if let Some(with) = step["with"].as_mapping() {
                    for key in with.keys() {
                        let key = key.as_str().unwrap();
                        assert!(declared.contains(&key), "{doc}: `with: {key}` is no input");
                    }
                }
            }
        }
    }
    assert!(
        uses_seen >= 4,
        "the action is used in README and every docs workflow"
    );
}

/// README's supported-bots table lists the registry, in order, with each adapter's logins.
#[test]
fn readme_bots_table_matches_the_registry() {
    let readme = read("README.md");
    let rows = table_rows(&section(&readme, "## Supported bots"));
    let registry = review_consensus::adapters::registry();
    let ids: Vec<&str> = rows.iter().map(|r| unquote(&r[0])).collect();
    let expected: Vec<&str> = registry.iter().map(|a| a.id()).collect();
    assert_eq!(ids, expected, "README bots table vs adapters::registry()");
    for (row, adapter) in rows.iter().zip(registry) {
        let logins: Vec<&str> = row[1].split('`').skip(1).step_by(2).collect();
        assert_eq!(
            logins,
            adapter.default_logins(),
            "README: default logins of `{}`",
            adapter.id()
        );
        assert!(!row[2].is_empty(), "README: what `{}` reads", adapter.id());
    }
}

/// README's example comment is `review-consensus demo`'s real output. After a change to the
/// pipeline or the renderer, refresh it with
/// `UPDATE_README=1 cargo test --test it readme_example`.
#[test]
fn readme_example_is_the_demo_output() {
    let demo = review_consensus::demo::run().expect("demo runs");
    let quoted: Vec<String> = demo
        .comment
        .trim_end()
        .lines()
        .map(|l| {
            if l.is_empty() {
                ">".to_owned()
            } else {
                format!("> {l}")
            }
        })
        .collect();
    let expected = format!(
        "{}\n\n```text\n{}\n```\n",
        quoted.join("\n"),
        demo.verdict.trim_end()
    );
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = read("README.md");
    let (before, rest) = readme
        .split_once("<!-- demo:begin -->\n")
        .expect("README has <!-- demo:begin -->");
    let (current, after) = rest
        .split_once("<!-- demo:end -->")
        .expect("README has <!-- demo:end -->");
    if current == expected {
        return;
    }
    if std::env::var_os("UPDATE_README").is_some() {
        let updated = format!("{before}<!-- demo:begin -->\n{expected}<!-- demo:end -->{after}");
        std::fs::write(&path, updated).unwrap();
        return;
    }
    panic!(
        "README's example is not the output of `review-consensus demo`; refresh it with \
         UPDATE_README=1 cargo test --test it readme_example"
    );
}

/// README's container table (issue 24): `.ci/container-smoke.sh` fails when its byte counts
/// are more than 5% off the built binary and image, and finds them by the rows' first words
/// and their `(N bytes)`; here each of the three rows is there, and the rounded size a reader
/// sees first is the byte count in decimal megabytes.
#[test]
fn readme_container_sizes_are_readable_and_agree_with_their_bytes() {
    let readme = read("README.md");
    let lines = section(&readme, "## The container");
    for label in ["binary (", "image, uncompressed", "image, compressed"] {
        let row = lines
            .iter()
            .find(|l| l.starts_with(&format!("| {label}")))
            .unwrap_or_else(|| panic!("README's container table has no `{label}` row"));
        let cells = split_row(row);
        let size = cells[1].trim();
        let (shown, bytes) = size
            .split_once(" MB (")
            .unwrap_or_else(|| panic!("`{size}`: write `8.1 MB (8,123,456 bytes)`"));
        let bytes: u64 = bytes
            .strip_suffix(" bytes)")
            .unwrap_or_else(|| panic!("`{size}`: no `(N bytes)`"))
            .replace(',', "")
            .parse()
            .unwrap_or_else(|e| panic!("`{size}`: {e}"));
        let shown: f64 = shown.parse().unwrap_or_else(|e| panic!("`{size}`: {e}"));
        assert_eq!(
            format!("{shown:.1}"),
            format!("{:.1}", bytes as f64 / 1_000_000.0),
            "`{size}`: the megabytes and the bytes disagree"
        );
    }
}
