//! `audit` on logs from scripts/gen_audit.py, whose scenario (its header) is
//! the ground truth: the grouping per identity, the 401 attribution and its
//! "guess" marking, deletions and new uids seen in the log, stale and legacy
//! tokens, and that files, gzip, stdin, an EventList and merged shards read alike.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const NOW: &str = "2026-01-02T00:00:00Z";

/// Runs the generator into `dir/name` with extra arguments.
fn generate(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let path = dir.join(name);
    let status = Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/gen_audit.py"))
        .args(args)
        .arg("-o")
        .arg(&path)
        .status()
        .expect("python3 runs the generator");
    assert!(status.success());
    path
}

fn day(dir: &Path) -> PathBuf {
    generate(dir, "audit.log", &["--events", "20000", "--seed", "7"])
}

/// `audit ARGS -o json`: the exit code and the document.
fn audit_json(args: &[&str]) -> (i32, Value) {
    let out = crate::support::satoken()
        .args(["audit", "-o", "json", "--now", NOW])
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let doc = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{e}: {text} {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap(), doc)
}

fn findings(doc: &Value) -> &Vec<Value> {
    doc["findings"].as_array().unwrap()
}

/// The finding of `kind` for `user` (exactly one).
fn finding<'d>(doc: &'d Value, kind: &str, user: &str) -> &'d Value {
    let found: Vec<&Value> = findings(doc)
        .iter()
        .filter(|f| f["kind"] == kind && f["identity"]["user"] == user)
        .collect();
    assert_eq!(found.len(), 1, "{kind} {user}: {found:?}");
    found[0]
}

/// (kind, key, events) of every finding, sorted.
fn shape(doc: &Value) -> Vec<(String, String, u64)> {
    let mut v: Vec<_> = findings(doc)
        .iter()
        .map(|f| {
            (
                f["kind"].as_str().unwrap().to_owned(),
                f["key"].as_str().unwrap().to_owned(),
                f["events"].as_u64().unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn one_row_per_failing_identity_with_the_grant_it_needs() {
    let dir = tempfile::tempdir().unwrap();
    let log = day(dir.path());
    let (code, doc) = audit_json(&[log.to_str().unwrap()]);
    assert_eq!(code, 1);
    // Every counted event is in by_status; ≥ 97 % accepted.
    let by_status: u64 = doc["by_status"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(by_status, doc["events"].as_u64().unwrap());
    assert!(doc["events"].as_u64().unwrap() > 19_000);
    // The scenario's failing identities, each once, with its cause.
    let ray = finding(&doc, "forbidden", "system:serviceaccount:ml:ray-job");
    assert_eq!(ray["diagnosis"]["cause"], "rbac-denied");
    assert_eq!(ray["request"]["resource"], "rayclusters");
    assert_eq!(ray["request"]["subresource"], "status");
    assert_eq!(ray["request"]["api_group"], "ray.io");
    let steps = ray["diagnosis"]["next"].to_string();
    assert!(
        steps.contains("--resource=rayclusters.ray.io/status"),
        "{steps}"
    );
    let prom = finding(&doc, "forbidden", "system:serviceaccount:monitoring:prom");
    assert_eq!(prom["request"]["resource"], "nodes");
    assert_eq!(prom["request"]["namespace"], Value::Null);
    // Not RBAC: kept apart, each with its own cause.
    for (user, cause) in [
        ("shop:checkout", "quota-exceeded"),
        ("ci:deployer", "webhook-denied"),
    ] {
        let f = finding(
            &doc,
            "forbidden-other",
            &format!("system:serviceaccount:{user}"),
        );
        assert_eq!(f["diagnosis"]["cause"], cause);
    }
    let anon = finding(&doc, "anonymous", "system:anonymous");
    assert_eq!(anon["identity"]["source_ips"][0], "10.244.9.9");
    assert_eq!(anon["diagnosis"]["cause"], "token-not-sent");
    // Failing first, then stale, then legacy; each row's timeline adds up.
    let tiers: Vec<u8> = findings(&doc)
        .iter()
        .map(|f| match f["kind"].as_str().unwrap() {
            "stale-token" => 1,
            "legacy-token" => 2,
            _ => 0,
        })
        .collect();
    assert!(tiers.is_sorted(), "{tiers:?}");
    for f in findings(&doc) {
        let buckets: u64 = f["timeline"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["count"].as_u64().unwrap())
            .sum();
        assert_eq!(buckets, f["events"].as_u64().unwrap(), "{}", f["key"]);
        assert!(!f["example_audit_id"].as_str().unwrap().is_empty());
    }
}

#[test]
fn attributes_401s_as_a_guess_and_reads_deletions_and_new_uids_from_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let log = day(dir.path());
    let (_, doc) = audit_json(&[log.to_str().unwrap()]);
    let ledger = finding(
        &doc,
        "unauthorized",
        "system:serviceaccount:payments:ledger",
    );
    assert_eq!(ledger["identity"]["attribution"]["method"], "guess");
    assert_eq!(ledger["diagnosis"]["cause"], "service-account-recreated");
    let exporter = finding(&doc, "unauthorized", "system:serviceaccount:batch:exporter");
    assert_eq!(exporter["identity"]["attribution"]["method"], "guess");
    assert_eq!(exporter["diagnosis"]["cause"], "pod-deleted");
    assert_eq!(exporter["identity"]["source_ips"][0], "192.0.2.77");
    // Without the API server log the expiry of an external client is not known.
    let reporter = finding(&doc, "unauthorized", "system:serviceaccount:shop:reporter");
    assert_eq!(reporter["identity"]["attribution"]["method"], "guess");
    assert_ne!(reporter["diagnosis"]["confidence"], "high");

    // The table marks the guess and says what it means.
    let out = crate::support::satoken()
        .args(["audit", "--now", NOW, log.to_str().unwrap()])
        .output()
        .unwrap();
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains("~sa payments/ledger"), "{table}");
    assert!(table.contains("a guess"), "{table}");
}

#[test]
fn the_apiserver_log_gives_401s_their_reasons() {
    let dir = tempfile::tempdir().unwrap();
    let api = dir.path().join("apiserver.log");
    let log = generate(
        dir.path(),
        "audit.log",
        &[
            "--events",
            "20000",
            "--seed",
            "7",
            "--apiserver-log",
            api.to_str().unwrap(),
        ],
    );
    let (_, doc) = audit_json(&[
        log.to_str().unwrap(),
        "--apiserver-log",
        api.to_str().unwrap(),
    ]);
    let reporter = finding(&doc, "unauthorized", "system:serviceaccount:shop:reporter");
    assert_eq!(reporter["diagnosis"]["cause"], "expired");
    assert_eq!(reporter["diagnosis"]["confidence"], "high");
    assert_eq!(reporter["reasons"]["unjoined"], 0);
    let ledger = finding(
        &doc,
        "unauthorized",
        "system:serviceaccount:payments:ledger",
    );
    assert_eq!(ledger["diagnosis"]["cause"], "service-account-recreated");
    assert_eq!(ledger["diagnosis"]["confidence"], "high");
    assert_eq!(doc["input"]["apiserver_log"]["failures"], 86);
}

#[test]
fn stale_and_legacy_tokens_name_the_workload_and_the_secret() {
    let dir = tempfile::tempdir().unwrap();
    let log = day(dir.path());
    let (_, doc) = audit_json(&[log.to_str().unwrap()]);
    let stale: Vec<&Value> = findings(&doc)
        .iter()
        .filter(|f| f["kind"] == "stale-token")
        .collect();
    assert_eq!(stale.len(), 8);
    for f in &stale {
        let user = f["identity"]["user"].as_str().unwrap();
        assert!(user.starts_with("system:serviceaccount:analytics:etl-"));
        assert_eq!(f["identity"]["pods"].as_array().unwrap().len(), 1);
        assert!(f["stale"]["max_seconds_past_warnafter"].as_u64().unwrap() > 0);
        assert!(f["stale"]["stale_since"].as_str().unwrap() <= f["first_seen"].as_str().unwrap());
        assert_eq!(f["diagnosis"]["cause"], "stale-token");
    }
    let deployer = finding(&doc, "legacy-token", "system:serviceaccount:ci:deployer");
    assert_eq!(deployer["legacy"]["secret"], "deployer-token-x7k2p");
    assert_eq!(deployer["diagnosis"]["cause"], "legacy-token-in-use");
    assert!(
        deployer["diagnosis"]["next"]
            .to_string()
            .contains("deployer-token-x7k2p")
    );
    finding(&doc, "legacy-token", "system:serviceaccount:legacy:backup");
    assert_eq!(doc["summary"]["stale"], 8);
    assert_eq!(doc["summary"]["legacy"], 2);
}

#[test]
fn gzip_stdin_an_eventlist_and_merged_shards_read_alike() {
    let dir = tempfile::tempdir().unwrap();
    let common = ["--events", "3000", "--seed", "3"];
    let plain = generate(dir.path(), "a.log", &common);
    let gz = generate(dir.path(), "a.log.gz", &[&common[..], &["--gzip"]].concat());
    let list = generate(
        dir.path(),
        "a.json",
        &[&common[..], &["--format", "eventlist"]].concat(),
    );
    let (code, expected) = audit_json(&[plain.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(!findings(&expected).is_empty());
    for path in [&gz, &list] {
        let (_, doc) = audit_json(&[path.to_str().unwrap()]);
        assert_eq!(shape(&doc), shape(&expected), "{}", path.display());
        assert_eq!(doc["events"], expected["events"]);
    }
    let out = crate::support::satoken()
        .args(["audit", "-o", "json", "--now", NOW])
        .pipe_stdin(&gz)
        .unwrap()
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(shape(&doc), shape(&expected));
    // stderr is not a terminal: no progress line.
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Two shards (the halves of the log), each read alone, then merged.
    let text = std::fs::read_to_string(&plain).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let (a, b) = lines.split_at(lines.len() / 2);
    let mut shards = Vec::new();
    for (i, half) in [a, b].iter().enumerate() {
        let part = dir.path().join(format!("part-{i}.log"));
        std::fs::write(&part, half.join("\n") + "\n").unwrap();
        let (_, doc) = audit_json(&[part.to_str().unwrap()]);
        let json = dir.path().join(format!("part-{i}.json"));
        std::fs::write(&json, doc.to_string()).unwrap();
        shards.push(json);
    }
    let (code, merged) = audit_json(&[
        "--merge",
        shards[0].to_str().unwrap(),
        shards[1].to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert_eq!(shape(&merged), shape(&expected));
    assert_eq!(merged["events"], expected["events"]);
}

#[test]
fn a_log_with_nothing_failing_exits_0_and_one_without_events_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let ok = dir.path().join("ok.log");
    std::fs::write(
        &ok,
        concat!(
            r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a1","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/shop/pods","verb":"list","user":{"username":"system:serviceaccount:shop:web","uid":"u-1","groups":["system:serviceaccounts"]},"sourceIPs":["10.0.0.7"],"userAgent":"kubectl/v1.33.0","objectRef":{"resource":"pods","namespace":"shop","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2026-01-01T00:00:00.000000Z","stageTimestamp":"2026-01-01T00:00:00.004213Z","annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":""}}"#,
            "\n"
        ),
    )
    .unwrap();
    let (code, doc) = audit_json(&[ok.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert_eq!(doc["events"], 1);
    assert!(findings(&doc).is_empty());

    let not = dir.path().join("not.log");
    std::fs::write(&not, "hello\n{\"kind\":\"Pod\"}\n").unwrap();
    crate::support::satoken()
        .args(["audit", "--now", NOW, not.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no audit event in file"));
}
