//! Shared test set-up: the fake GitHub and clients pointed at it.

pub mod fake;
pub mod fake_repo;

use std::time::Duration;

use review_consensus::config::PrTarget;
use review_consensus::github::{GitHub, RetryPolicy};
use secrecy::SecretString;

pub use fake::{FakeBuilder, FakeGitHub, PrData};

/// A token that must never show up in any output.
pub const TOKEN: &str = "fake-test-token-TESTTOKEN0123456789abcdef";

/// The sorted ids of a finding's members: its cluster, compared across runs.
pub fn member_ids(finding: &review_consensus::model::SynthesizedFinding) -> Vec<String> {
    let mut ids: Vec<String> = finding
        .consensus
        .members
        .iter()
        .map(|m| m.finding_id.clone())
        .collect();
    ids.sort();
    ids
}

/// Every finding of `outcome` as [`member_ids`], sorted.
pub fn member_groups(outcome: &review_consensus::model::Outcome) -> Vec<Vec<String>> {
    let mut groups: Vec<Vec<String>> = outcome.findings.iter().map(member_ids).collect();
    groups.sort();
    groups
}

/// An error answer in GitHub's shape: a status and `{"message": ...}`.
pub fn api_error(status: u16, message: &str) -> wiremock::ResponseTemplate {
    wiremock::ResponseTemplate::new(status).set_body_json(serde_json::json!({ "message": message }))
}

/// What GitHub answers a write from a token that cannot write (a fork PR's token).
pub fn read_only() -> wiremock::ResponseTemplate {
    api_error(403, "Resource not accessible by integration")
}

/// GitHub's secondary rate limit: a 403 that says so (add its `retry-after`, if any).
pub fn secondary_rate_limit() -> wiremock::ResponseTemplate {
    api_error(
        403,
        "You have exceeded a secondary rate limit. Please wait a few minutes.",
    )
}

/// Retries with millisecond waits (the waits' logic has unit tests).
pub fn fast_retry() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 4,
        base_delay: Duration::from_millis(5),
        max_wait: Duration::from_millis(50),
    }
}

pub fn client(fake: &FakeGitHub) -> GitHub {
    let token = SecretString::from(TOKEN.to_owned());
    match GitHub::new(&fake.api_url, &fake.graphql_url, Some(&token)) {
        // No pause between writes (the spacing has unit tests and its own test).
        Ok(gh) => gh
            .with_retry(fast_retry())
            .with_write_spacing(Duration::ZERO),
        Err(err) => panic!("client: {err}"),
    }
}

pub fn target(data: &PrData) -> PrTarget {
    PrTarget {
        owner: data.owner.clone(),
        repo: data.repo.clone(),
        number: data.number,
        head_sha: None,
        from_fork: false,
    }
}

/// One run of the real binary as the action, against a fake GitHub.
pub struct ActionRun {
    api_url: String,
    graphql_url: String,
    vars: Vec<(String, String)>,
    event_name: String,
    event: serde_json::Value,
    dir: tempfile::TempDir,
    runs: std::cell::Cell<usize>,
}

/// What a run left behind.
#[derive(Debug)]
pub struct Ran {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub outputs: std::collections::BTreeMap<String, String>,
    pub summary: String,
    pub report: Option<serde_json::Value>,
    pub elapsed: Duration,
}

impl Ran {
    pub fn output(&self, name: &str) -> &str {
        self.outputs.get(name).map_or("", String::as_str)
    }
}

impl ActionRun {
    /// A `pull_request` event for the fake's PR, with the token and fast retries.
    pub fn new(fake: &FakeGitHub, data: &PrData) -> ActionRun {
        let dir = match tempfile::tempdir() {
            Ok(d) => d,
            Err(err) => panic!("tempdir: {err}"),
        };
        ActionRun {
            api_url: fake.api_url.clone(),
            graphql_url: fake.graphql_url.clone(),
            vars: vec![
                (
                    "GITHUB_REPOSITORY".into(),
                    format!("{}/{}", data.owner, data.repo),
                ),
                ("GITHUB_SHA".into(), "f".repeat(40)),
                ("INPUT_GITHUB-TOKEN".into(), TOKEN.into()),
                ("REVIEW_CONSENSUS_RETRY_MAX_WAIT_MS".into(), "30".into()),
                ("REVIEW_CONSENSUS_RETRY_BASE_MS".into(), "2".into()),
                ("REVIEW_CONSENSUS_WRITE_SPACING_MS".into(), "0".into()),
            ],
            event_name: "pull_request".into(),
            event: serde_json::json!({
                "action": "synchronize",
                "number": data.number,
                "pull_request": data.pull,
            }),
            dir,
            runs: std::cell::Cell::new(0),
        }
    }

    /// Point the run at another server (one that misbehaves below HTTP).
    pub fn api(mut self, api_url: &str, graphql_url: &str) -> Self {
        api_url.clone_into(&mut self.api_url);
        graphql_url.clone_into(&mut self.graphql_url);
        self
    }

    /// An action input, by its action.yml name (`fail-on`).
    pub fn input(mut self, name: &str, value: &str) -> Self {
        self.vars
            .push((format!("INPUT_{}", name.to_uppercase()), value.to_owned()));
        self
    }

    pub fn var(mut self, name: &str, value: &str) -> Self {
        self.vars.push((name.to_owned(), value.to_owned()));
        self
    }

    pub fn event(mut self, name: &str, payload: serde_json::Value) -> Self {
        self.event_name = name.to_owned();
        self.event = payload;
        self
    }

    pub fn run(&self) -> Ran {
        let n = self.runs.get() + 1;
        self.runs.set(n);
        let dir = self.dir.path().join(format!("run{n}"));
        let made = std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(dir.join("event.json"), self.event.to_string()));
        if let Err(err) = made {
            panic!("set-up: {err}");
        }
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_review-consensus"));
        cmd.env_clear()
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_API_URL", &self.api_url)
            .env("GITHUB_GRAPHQL_URL", &self.graphql_url)
            .env("GITHUB_SERVER_URL", "https://github.com")
            .env("GITHUB_EVENT_NAME", &self.event_name)
            .env("GITHUB_EVENT_PATH", dir.join("event.json"))
            .env("GITHUB_OUTPUT", dir.join("output"))
            .env("GITHUB_STEP_SUMMARY", dir.join("summary.md"))
            .env("RUNNER_TEMP", &dir)
            .envs(self.vars.iter().map(|(k, v)| (k, v)));
        let started = std::time::Instant::now();
        let out = match cmd.output() {
            Ok(out) => out,
            Err(err) => panic!("cannot run the binary: {err}"),
        };
        let elapsed = started.elapsed();
        let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
        let report_path = self
            .vars
            .iter()
            .rev()
            .find(|(k, _)| k == "INPUT_REPORT-PATH")
            .map_or(dir.join("review-consensus.json"), |(_, v)| v.into());
        Ran {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            outputs: parse_outputs(&read("output")),
            summary: read("summary.md"),
            report: std::fs::read_to_string(report_path)
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok()),
            elapsed,
        }
    }
}

/// `name=value` lines and `name<<DELIM` heredocs, as the runner reads `GITHUB_OUTPUT`.
pub fn parse_outputs(text: &str) -> std::collections::BTreeMap<String, String> {
    let mut map = std::collections::BTreeMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some((name, delim)) = line.split_once("<<") {
            let mut value = Vec::new();
            for inner in lines.by_ref() {
                if inner == delim {
                    break;
                }
                value.push(inner);
            }
            map.insert(name.to_owned(), value.join("\n"));
        } else if let Some((name, value)) = line.split_once('=') {
            map.insert(name.to_owned(), value.to_owned());
        }
    }
    map
}

/// A server on 127.0.0.1 that answers every request with a 200 and its headers at once,
/// then drips the body one byte every `interval`: the read timeout between two bytes never
/// fires, only a deadline on the whole answer does. Returns its base URL. Serves at most
/// `connections` requests; each stops at its client's disconnect or after 64 bytes.
pub fn drip_server(interval: Duration, connections: usize) -> String {
    use std::io::{Read, Write};
    let listener = match std::net::TcpListener::bind("127.0.0.1:0") {
        Ok(l) => l,
        Err(err) => panic!("bind: {err}"),
    };
    let url = match listener.local_addr() {
        Ok(addr) => format!("http://{addr}"),
        Err(err) => panic!("local_addr: {err}"),
    };
    std::thread::spawn(move || {
        for stream in listener.incoming().take(connections) {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let mut request = Vec::new();
                let mut buf = [0u8; 1024];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buf) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n[";
                if stream.write_all(head.as_bytes()).is_err() {
                    return;
                }
                for _ in 0..64 {
                    std::thread::sleep(interval);
                    if stream
                        .write_all(b" ")
                        .and_then(|()| stream.flush())
                        .is_err()
                    {
                        return;
                    }
                }
            });
        }
    });
    url
}
