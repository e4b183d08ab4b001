//! Real clients, live: kubectl, `curl -v`, Python's `requests` and
//! `kubernetes` clients, the JavaScript `@kubernetes/client-node`, the Rust
//! `kube` client and the Ruby `kubeclient` are run against the test API
//! server in each failure scenario, and boto3 and the AWS CLI against its STS
//! stand-in in each STS refusal (clients/aws.rs); `classify` must diagnose
//! what each of them really printed. How each client runs: clients/run.rs.
//!
//! A client that is not installed is skipped with a note, except in CI
//! (`CI`, or `SATOKEN_REQUIRE_CLIENTS`): `.ci/run` installs them all, so there
//! a missing client fails instead.
//!
//! A miss `classify` is known for is listed in [`KNOWN_MISSES`] with its
//! reason, and what the client printed is kept in testdata/evidence/live/
//! (CLIENT/SCENARIO.txt, as printed, with a .json beside it: the token, the
//! instant, what was wanted and what classify said), written by a run with
//! `SATOKEN_UPDATE_LIVE=1`.

mod aws;
mod run;

use std::path::{Path, PathBuf};

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::{Value, json};

use crate::support::apiserver::{ApiServer, Config};
use crate::support::pki::Pki;
use crate::support::tokens;

/// (client, scenario, reason) `classify` does not yet get right; the test
/// fails on any other miss, and when one of these starts passing (then take
/// it off the list, and its files off testdata/evidence/live).
const KNOWN_MISSES: &[(&str, &str, &str)] = &[
    // `403 Client Error: Forbidden` shows no body: anonymous cannot be told.
    (
        "python requests",
        "anonymous 403",
        "no body: the text cannot carry the cause",
    ),
];

/// One failure scenario: the server, the token, the request and the answer
/// `classify` must find.
struct Scenario {
    name: &'static str,
    config: Config,
    /// `None`: no credentials at all.
    token: Option<String>,
    path: String,
    /// Whether the client trusts the server's CA.
    trusted: bool,
    class: &'static str,
    /// The cause `classify` must name first (with the token, for a 401);
    /// `None`: only the class is asserted, and no cause at high confidence.
    cause: Option<&'static str>,
    /// The cause is a matter of the token's times on the server's clock.
    timed: bool,
}

fn scenarios(now: DateTime<Utc>) -> Vec<Scenario> {
    let fresh = || tokens::projected(now - TimeDelta::minutes(5), 3607);
    let sub = format!("system:serviceaccount:{}:{}", tokens::NAMESPACE, tokens::SA);
    let pods = format!("/api/v1/namespaces/{}/pods", tokens::NAMESPACE);
    let scenario = |name, config, token, class, cause| Scenario {
        name,
        config,
        token,
        path: pods.clone(),
        trusted: true,
        class,
        cause,
        timed: false,
    };
    let mut wrong_audience = fresh();
    wrong_audience["aud"] = serde_json::json!(["vault"]);
    let mut recreated = Config::new(now);
    recreated.recreate_service_account();
    let mut pod_deleted = Config::new(now);
    pod_deleted.objects.retain(|o| o.resource != "pods");
    let mut list = vec![
        scenario(
            "expired",
            Config::new(now),
            Some(tokens::sign(&tokens::projected(
                now - TimeDelta::hours(3),
                3600,
            ))),
            "401-invalid-token",
            Some("expired"),
        ),
        scenario(
            "not yet valid",
            Config::new(now),
            Some(tokens::sign(&tokens::projected(
                now + TimeDelta::minutes(10),
                3600,
            ))),
            "401-invalid-token",
            Some("clock-skew"),
        ),
        scenario(
            "recreated ServiceAccount",
            recreated,
            Some(tokens::sign(&fresh())),
            "401-invalid-token",
            None,
        ),
        scenario(
            "deleted pod",
            pod_deleted,
            Some(tokens::sign(&fresh())),
            "401-invalid-token",
            None,
        ),
        scenario(
            "rotated key",
            Config::new(now),
            Some(tokens::sign_with_kid(&fresh(), "rotated-away")),
            "401-invalid-token",
            None,
        ),
        scenario(
            "wrong audience",
            Config::new(now),
            Some(tokens::sign(&wrong_audience)),
            "401-invalid-token",
            None,
        ),
        scenario(
            "RBAC 403",
            Config::new(now),
            Some(tokens::sign(&fresh())),
            "403-forbidden",
            Some("rbac-denied"),
        ),
        scenario(
            "anonymous 403",
            Config::new(now),
            None,
            "403-forbidden",
            Some("token-not-sent"),
        ),
        scenario(
            "404",
            Config::new(now).allow(&sub, &["get"], &["pods"], Some(tokens::NAMESPACE)),
            Some(tokens::sign(&fresh())),
            "404-not-found",
            Some("object-not-found"),
        ),
        scenario(
            "TLS failure",
            Config::new(now),
            Some(tokens::sign(&fresh())),
            "tls-error",
            Some("tls-untrusted-ca"),
        ),
    ];
    list[0].timed = true;
    list[1].timed = true;
    list[8].path = format!("{pods}/no-such-pod");
    list[9].trusted = false;
    list
}

/// A client: its name, whether it is installed, and how it makes one request
/// (scratch dir, URL, CA file or none, token or none) -> what it printed.
struct Client {
    name: &'static str,
    available: fn() -> bool,
    /// Whether it can send a request with no credentials at all (kubectl
    /// with none asks for a user name instead).
    anonymous: bool,
    /// Whether what it prints shows the server's `Date` (the server's clock).
    shows_date: bool,
    run: fn(&Path, &str, Option<&Path>, Option<&str>) -> String,
}

/// The clients of the API server's scenarios.
fn clients() -> Vec<Client> {
    let client = |name, available, anonymous, shows_date, run| Client {
        name,
        available,
        anonymous,
        shows_date,
        run,
    };
    vec![
        client(
            "kubectl",
            || run::succeeds("kubectl", &["version", "--client"]),
            false,
            false,
            run::kubectl,
        ),
        client(
            "curl -v",
            || run::succeeds("curl", &["--version"]),
            true,
            true,
            run::curl,
        ),
        client(
            "python requests",
            || run::succeeds("python3", &["-c", "import requests"]),
            true,
            false,
            run::requests,
        ),
        client(
            "python kubernetes",
            || run::succeeds("python3", &["-c", "import kubernetes"]),
            true,
            true,
            run::python_kubernetes,
        ),
        client(
            "client-node",
            run::client_node_installed,
            true,
            true,
            run::client_node,
        ),
        client("kube-rs", run::kube_rs_installed, true, false, run::kube_rs),
        client(
            "kubeclient",
            || run::succeeds("ruby", &["-e", "require 'kubeclient'"]),
            true,
            false,
            run::kubeclient,
        ),
    ]
}

/// The clients of the STS scenarios: what they print never shows a `Date`.
fn sts_clients() -> Vec<Client> {
    vec![
        Client {
            name: "boto3",
            available: aws::boto3_installed,
            anonymous: false,
            shows_date: false,
            run: aws::boto3,
        },
        Client {
            name: "aws cli",
            available: aws::aws_cli_installed,
            anonymous: false,
            shows_date: false,
            run: aws::aws_cli,
        },
    ]
}

/// `classify` on what a client printed, with the token when there was one;
/// `Err`: its complaint, when it found nothing to classify.
fn classify(
    dir: &Path,
    text: &str,
    token: Option<&str>,
    now: DateTime<Utc>,
) -> Result<Value, String> {
    let mut cmd = crate::support::satoken();
    cmd.args(["classify", "-o", "json", "--now", &now.to_rfc3339()]);
    if let Some(t) = token {
        let file = dir.join("token");
        std::fs::write(&file, t).unwrap();
        cmd.arg("-f").arg(file);
    }
    let out = cmd.write_stdin(text.to_owned()).output().unwrap();
    serde_json::from_slice(&out.stdout).map_err(|_| {
        format!(
            "classify did not answer: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )
    })
}

/// "classification cause (confidence)" per result of `doc`.
fn said(doc: &Value) -> Vec<String> {
    doc["results"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            let d = &r["diagnosis"];
            format!(
                "{} {} ({})",
                d["classification"], d["cause"], d["confidence"]
            )
        })
        .collect()
}

/// What is wrong with `doc` for `s`, if anything. Without the server's
/// `Date` a bare 401 cannot be judged at the server's time: the right answer
/// then claims no cause above low, names the scenario's cause among the
/// candidates and has a step that checks the token's times.
fn judge(s: &Scenario, doc: &Value, dated: bool) -> Option<String> {
    let results = doc["results"].as_array()?;
    let said = said(doc);
    let Some(r) = results
        .iter()
        .find(|r| r["diagnosis"]["classification"] == s.class)
    else {
        return Some(format!("no {} among {said:?}", s.class));
    };
    let d = &r["diagnosis"];
    if s.timed && !dated {
        return undated(s, d).map(|why| format!("{why}: {said:?}"));
    }
    if let Some(cause) = s.cause
        && d["cause"] != cause
    {
        return Some(format!("want {cause}, got {said:?}"));
    }
    let wrong_high = results.iter().any(|r| {
        let d = &r["diagnosis"];
        d["confidence"] == "high"
            && d["cause"] != "unknown"
            && s.cause.is_none_or(|c| d["cause"] != c)
    });
    wrong_high.then(|| format!("a wrong cause at high confidence: {said:?}"))
}

/// What is wrong with the diagnosis `d` of an undated 401 for `s`.
fn undated(s: &Scenario, d: &Value) -> Option<String> {
    if d["confidence"] != "low" {
        return Some("a cause above low without the server's clock".to_owned());
    }
    let candidates: Vec<&Value> = std::iter::once(d)
        .chain(d["alternatives"].as_array().into_iter().flatten())
        .collect();
    let Some(named) = candidates.iter().find(|c| s.cause == c["cause"].as_str()) else {
        return Some(format!("{:?} not among the candidates", s.cause));
    };
    let checks_times = [d, *named]
        .iter()
        .flat_map(|c| c["next"].as_array().into_iter().flatten())
        .filter_map(|step| step["command"]["shell"].as_str())
        .any(|cmd| cmd.contains("satoken decode") || cmd.contains("satoken skew"));
    (!checks_times).then(|| "no step checks the token's times".to_owned())
}

/// The clients that are there to run; with `SATOKEN_REQUIRE_CLIENTS` set,
/// every one must be.
fn installed(clients: &[Client]) -> Vec<&Client> {
    clients
        .iter()
        .filter(|c| crate::support::tool_available(c.name, (c.available)()))
        .collect()
}

/// The known miss for (client, scenario), if listed: its reason.
fn known_miss(client: &str, scenario: &str) -> Option<&'static str> {
    KNOWN_MISSES
        .iter()
        .find(|(c, s, _)| *c == client && *s == scenario)
        .map(|(.., why)| *why)
}

/// `python requests` -> `python-requests`: a name as a file name.
fn slug(name: &str) -> String {
    name.to_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

/// testdata/evidence/live/CLIENT/SCENARIO (without its extension).
fn evidence_path(client: &str, scenario: &str) -> PathBuf {
    tokens::testdata("evidence/live")
        .join(slug(client))
        .join(slug(scenario))
}

/// One run of a client in a scenario, for the record of a known miss.
struct Run<'a> {
    client: &'a Client,
    scenario: &'a Scenario,
    text: &'a str,
    /// `classify`'s answer, or its complaint when it found nothing.
    doc: Result<&'a Value, &'a str>,
    now: DateTime<Utc>,
}

/// Keeps a known miss's output (as printed) and its facts for the lead.
fn save_evidence(run: &Run, why: &str) {
    let path = evidence_path(run.client.name, run.scenario.name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path.with_extension("txt"), run.text).unwrap();
    let facts = json!({
        "client": run.client.name,
        "scenario": run.scenario.name,
        "now": run.now.to_rfc3339(),
        "token": run.scenario.token,
        "want": {"classification": run.scenario.class, "cause": run.scenario.cause},
        // null: classify found nothing (its complaint is the miss).
        "classify_said": run.doc.ok().map(said),
        "miss": why,
        "known_because": known_miss(run.client.name, run.scenario.name),
    });
    let text = serde_json::to_string_pretty(&facts).unwrap() + "\n";
    std::fs::write(path.with_extension("json"), text).unwrap();
}

/// Failures, known misses and the number of runs of `clients` in `scenarios`.
#[derive(Default)]
struct Tally {
    failures: Vec<String>,
    known: Vec<String>,
    runs: usize,
}

impl Tally {
    /// Judges one run and files the verdict.
    fn file(&mut self, run: &Run) {
        let verdict = match run.doc {
            Ok(doc) => judge(run.scenario, doc, run.client.shows_date),
            Err(why) => Some(why.to_owned()),
        };
        self.runs += 1;
        let (client, scenario) = (run.client.name, run.scenario.name);
        match (verdict, known_miss(client, scenario)) {
            (Some(why), None) => self.failures.push(format!(
                "{client} / {scenario}: {why}\n--- printed:\n{}",
                run.text
            )),
            (Some(why), Some(_)) => {
                if crate::support::rewrite_requested("SATOKEN_UPDATE_LIVE") {
                    save_evidence(run, &why);
                }
                self.known.push(format!("{client} / {scenario}: {why}"));
            }
            (None, Some(_)) => self.failures.push(format!(
                "{client} / {scenario}: right now, take it off KNOWN_MISSES"
            )),
            (None, None) => {}
        }
    }
}

/// Runs every installed client in every scenario it applies to, each
/// scenario on a server of its own, and asserts `classify` on what they
/// printed.
fn run_all(scenarios: Vec<Scenario>, clients: &[Client], now: DateTime<Utc>) {
    let installed = installed(clients);
    if installed.is_empty() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("satoken-test-ca");
    let ca = pki.write_ca(dir.path(), "ca.crt");
    let mut tally = Tally::default();
    for s in scenarios {
        let server = ApiServer::start(s.config.clone(), &pki);
        let url = format!("{}{}", server.url(), s.path);
        for c in installed
            .iter()
            .filter(|c| c.anonymous || s.token.is_some())
        {
            let before = server.seen().len();
            let text = (c.run)(
                dir.path(),
                &url,
                s.trusted.then_some(ca.as_path()),
                s.token.as_deref(),
            );
            // What it printed is about this server only if it asked it.
            if s.trusted && server.seen().len() == before {
                tally.failures.push(format!(
                    "{} / {}: never reached the test server\n--- printed:\n{text}",
                    c.name, s.name
                ));
            }
            let doc = classify(dir.path(), &text, s.token.as_deref(), now);
            tally.file(&Run {
                client: c,
                scenario: &s,
                text: &text,
                doc: doc.as_ref().map_err(String::as_str),
                now,
            });
        }
    }
    assert!(tally.runs > 0);
    eprintln!(
        "{} runs; known misses:\n  {}",
        tally.runs,
        tally.known.join("\n  ")
    );
    assert!(tally.failures.is_empty(), "{}", tally.failures.join("\n\n"));
}

/// The instant the clients run at: they cannot be given `--now`, so the
/// servers' base is the real clock.
fn real_now() -> DateTime<Utc> {
    #[expect(
        clippy::disallowed_methods,
        reason = "real clients cannot be given --now"
    )]
    Utc::now()
}

#[test]
fn every_client_s_real_output_is_diagnosed() {
    let now = real_now();
    run_all(scenarios(now), &clients(), now);
}

#[test]
fn every_aws_client_s_real_output_of_an_sts_refusal_is_diagnosed() {
    let now = real_now();
    run_all(aws::scenarios(now), &sts_clients(), now);
}

/// Every known miss has its output kept, and every output kept is a known
/// miss's.
#[test]
fn known_misses_and_their_kept_output_agree() {
    let names: Vec<&str> = clients()
        .iter()
        .chain(sts_clients().iter())
        .map(|c| c.name)
        .collect();
    for (client, scenario, why) in KNOWN_MISSES {
        assert!(names.contains(client), "{client}: no such client");
        assert!(!why.is_empty(), "{client} / {scenario}: no reason");
        let path = evidence_path(client, scenario);
        for ext in ["txt", "json"] {
            assert!(
                path.with_extension(ext).is_file(),
                "{client} / {scenario}: no {}.{ext} (SATOKEN_UPDATE_LIVE=1)",
                path.display()
            );
        }
    }
    let live = tokens::testdata("evidence/live");
    for entry in walk(&live) {
        let rel = entry.strip_prefix(&live).unwrap();
        if rel == Path::new("README.md") {
            continue;
        }
        let listed = KNOWN_MISSES.iter().any(|(c, s, _)| {
            let p = evidence_path(c, s);
            entry == p.with_extension("txt") || entry == p.with_extension("json")
        });
        assert!(listed, "{}: no known miss of that name", rel.display());
    }
}

/// The files under `dir`, at any depth.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .map(|e| e.unwrap().path())
        .flat_map(|p| if p.is_dir() { walk(&p) } else { vec![p] })
        .collect()
}
