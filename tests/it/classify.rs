//! `classify` end to end: the evidence corpus (testdata/evidence, written by
//! scripts/gen_evidence.py) through the built binary, plus flag plumbing, exit
//! codes and token combination with tokens signed at test time.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use serde_json::{Value, json};

const NOW: &str = "2026-01-01T00:00:00Z";
/// 2026-01-01T00:00:00Z, the `Date` of the corpus responses.
const NOW_SECS: i64 = 1_767_225_600;
const EVIDENCE: &str = "testdata/evidence";

fn bin() -> Command {
    let mut cmd = crate::support::satoken();
    cmd.env_remove("NO_COLOR").env("COLUMNS", "100");
    cmd
}

fn classify(args: &[&str]) -> Command {
    let mut cmd = bin();
    cmd.args(["classify", "--now", NOW]).args(args);
    cmd
}

fn json_of(output: &[u8]) -> Value {
    serde_json::from_slice(output).expect("classify -o json prints one JSON document")
}

/// `classify -o json ARGS` on `stdin`, which must diagnose a problem (exit 1).
fn diagnosed_json(args: &[&str], stdin: &str) -> Value {
    let out = classify(&[args, &["-o", "json"]].concat())
        .write_stdin(stdin.to_owned())
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    json_of(&out)
}

/// (line, classification, cause, confidence) per result.
fn summary_of(doc: &Value) -> Vec<Value> {
    doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            json!({
                "line": r["line"],
                "classification": r["diagnosis"]["classification"],
                "cause": r["diagnosis"]["cause"],
                "confidence": r["diagnosis"]["confidence"],
            })
        })
        .collect()
}

#[test]
fn corpus_matches_its_expected_results() {
    let mut checked = 0;
    let mut types = BTreeSet::new();
    let mut classifications = BTreeSet::new();
    let mut causes = BTreeSet::new();
    let mut entries: Vec<PathBuf> = fs::read_dir(EVIDENCE)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".expected.json"))
        .collect();
    entries.sort();
    let mut failures = Vec::new();
    for expected_path in entries {
        let name = expected_path
            .to_string_lossy()
            .replace(".expected.json", "");
        let expected: Value = serde_json::from_str(&fs::read_to_string(&expected_path).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", expected_path.display()));
        assert!(Path::new(&name).exists(), "{name} is missing");
        let mut cmd = classify(&[&name, "-o", "json"]);
        for arg in expected["args"].as_array().unwrap() {
            cmd.arg(arg.as_str().unwrap());
        }
        if let Some(token) = expected["token_file"].as_str() {
            cmd.args(["-f", &format!("testdata/tokens/{token}")]);
        }
        let output = cmd.write_stdin("").output().unwrap();
        let code = output.status.code().unwrap();
        let want_code = expected["exit"].as_i64().unwrap() as i32;
        if code != want_code {
            failures.push(format!(
                "{name}: exit {code}, want {want_code}; stderr: {}",
                String::from_utf8_lossy(&output.stderr)
            ));
            continue;
        }
        checked += 1;
        if code == 2 {
            assert!(
                output.stdout.is_empty(),
                "{name}: nothing on stdout for exit 2"
            );
            continue;
        }
        let doc = json_of(&output.stdout);
        if doc["input"]["type"] != expected["type"] {
            failures.push(format!(
                "{name}: type {}, want {}",
                doc["input"]["type"], expected["type"]
            ));
        }
        let got = summary_of(&doc);
        if got != *expected["results"].as_array().unwrap() {
            failures.push(format!(
                "{name}:\n  got  {}\n  want {}",
                Value::from(got.clone()),
                expected["results"]
            ));
        }
        // The summary counts what the results say.
        assert_eq!(doc["summary"]["events"], got.len(), "{name}");
        types.insert(expected["type"].as_str().unwrap().to_owned());
        for r in expected["results"].as_array().unwrap() {
            classifications.insert(r["classification"].as_str().unwrap().to_owned());
            causes.insert(r["cause"].as_str().unwrap().to_owned());
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        checked >= 30,
        "the corpus must hold at least 30 pieces of evidence, has {checked}"
    );
    for t in [
        "status",
        "curl",
        "kubectl",
        "client-error",
        "apiserver-log",
        "audit",
    ] {
        assert!(types.contains(t), "no evidence of type {t}");
    }
    for c in [
        "ok",
        "404-not-found",
        "403-forbidden",
        "401-invalid-token",
        "other-status",
        "tls-error",
        "network-error",
    ] {
        assert!(classifications.contains(c), "no evidence classified {c}");
    }
    for c in [
        "clock-skew",
        "expired",
        "key-mismatch",
        "signature-invalid",
        "issuer-mismatch",
        "audience-mismatch",
        "service-account-deleted",
        "service-account-recreated",
        "pod-deleted",
        "secret-deleted",
        "node-recreated",
        "legacy-token-invalidated",
        "stale-token",
        "token-not-sent",
        "rbac-denied",
        "rbac-role-missing",
        "object-not-found",
        "tls-untrusted-ca",
        "tls-name-mismatch",
        "dns-failure",
        "connection-refused",
    ] {
        assert!(causes.contains(c), "no evidence with cause {c}");
    }
}

#[test]
fn evidence_on_stdin_and_table_output() {
    let out = classify(&[])
        .write_stdin("error: You must be logged in to the server (Unauthorized)\n")
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("401-invalid-token"), "{text}");
    assert!(
        text.contains("Summary: 1 event: 1 401-invalid-token"),
        "{text}"
    );
    assert!(
        !text.contains('\x1b'),
        "no colour when stdout is not a terminal"
    );
}

#[test]
fn ok_and_not_found_exit_zero() {
    for file in [
        "status-200.http",
        "kubectl-404.txt",
        "audit-stale-token.jsonl",
    ] {
        classify(&[&format!("{EVIDENCE}/{file}")])
            .write_stdin("")
            .assert()
            .code(0);
    }
}

#[test]
fn unrecognised_and_forced_type_mismatch_exit_two() {
    let out = classify(&[])
        .write_stdin("the deploy went fine\n")
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unrecognised evidence"));
    let out = classify(&["--type", "audit"])
        .write_stdin("error: You must be logged in to the server (Unauthorized)\n")
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no audit event found in the evidence (forced with --type audit)"),
        "{stderr}"
    );
    classify(&[]).write_stdin("  \n").assert().code(2);
}

#[test]
fn forced_type_is_reported() {
    let out = classify(&["--type", "client-error", "-o", "json"])
        .write_stdin("Unauthorized\n")
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let doc = json_of(&out);
    assert_eq!(doc["input"]["detected"], false);
    assert_eq!(
        doc["results"][0]["diagnosis"]["classification"],
        "401-invalid-token"
    );
}

#[test]
fn stdin_cannot_carry_both_evidence_and_token() {
    let out = classify(&["-f", "-"])
        .write_stdin("401\n")
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8_lossy(&out).contains("both the evidence and the token"));
    // A broken token is bad input too.
    classify(&[
        &format!("{EVIDENCE}/kubectl-401.txt"),
        "--token",
        "not-a-jwt",
    ])
    .write_stdin("")
    .assert()
    .code(2);
}

/// Signs a bound token with the fixture RSA key (kid as published in jwks.json).
fn sign(claims: Value) -> String {
    let pem = fs::read("testdata/keys/rsa.key.pem").unwrap();
    let key = EncodingKey::from_rsa_pem(&pem).unwrap();
    let mut header = Header::new(Algorithm::RS256);
    header.typ = None;
    header.kid = Some("mbTcd_bTq-VEyLxWg1fU5YSdvr3TZTXIJULVYeBr_HU".to_owned());
    encode(&header, &claims, &key).unwrap()
}

fn bound_token(nbf: i64, exp: i64) -> String {
    sign(json!({
        "aud": ["https://kubernetes.default.svc.cluster.local"],
        "exp": exp,
        "iat": nbf,
        "iss": "https://kubernetes.default.svc.cluster.local",
        "jti": "3c0a9d1e-7b2f-4e6a-9c8d-1f2e3a4b5c6d",
        "kubernetes.io": {
            "namespace": "shop",
            "serviceaccount": {"name": "checkout", "uid": "3f1c2a4e-8d1b-4c55-9a2e-1b7f5d0c9e41"}
        },
        "nbf": nbf,
        "sub": "system:serviceaccount:shop:checkout"
    }))
}

fn classify_401_with(token: &str) -> Value {
    let out = classify(&[
        &format!("{EVIDENCE}/status-401-generic.http"),
        "--token",
        token,
        "-o",
        "json",
    ])
    .write_stdin("")
    .assert()
    .code(1)
    .get_output()
    .stdout
    .clone();
    json_of(&out)["results"][0].clone()
}

#[test]
fn skew_is_judged_at_the_date_header_with_the_leeway_boundary() {
    // nbf 61 s after the Date header: rejected, clock skew, accepted in 1 s.
    // The server's clock but not its word: strong circumstantial evidence, as
    // probe judges the same Date header.
    let r = classify_401_with(&bound_token(NOW_SECS + 61, NOW_SECS + 3661));
    assert_eq!(r["diagnosis"]["cause"], "clock-skew");
    assert_eq!(r["diagnosis"]["confidence"], "medium");
    assert_eq!(r["token_check"]["verdict"], "not-yet-valid");
    assert_eq!(r["token_check"]["at_source"], "date-header");
    assert_eq!(r["token_check"]["accepted_in_seconds"], 1);
    // nbf exactly 60 s ahead is inside the leeway: not a time problem, so the
    // cause stays unknown and the time families are not candidates.
    let r = classify_401_with(&bound_token(NOW_SECS + 60, NOW_SECS + 3660));
    assert_eq!(r["token_check"]["verdict"], "accept");
    assert_eq!(r["diagnosis"]["cause"], "unknown");
    let candidates: Vec<&str> = r["diagnosis"]["alternatives"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["cause"].as_str().unwrap())
        .collect();
    assert!(!candidates.contains(&"clock-skew"), "{candidates:?}");
    assert!(
        candidates.contains(&"service-account-recreated"),
        "{candidates:?}"
    );
    // exp 61 s before the Date header: expired; 60 s: still accepted.
    let r = classify_401_with(&bound_token(NOW_SECS - 3661, NOW_SECS - 61));
    assert_eq!(r["diagnosis"]["cause"], "expired");
    assert_eq!(r["token_check"]["rejected_for_seconds"], 1);
    let r = classify_401_with(&bound_token(NOW_SECS - 3660, NOW_SECS - 60));
    assert_eq!(r["token_check"]["verdict"], "accept");
}

#[test]
fn without_a_timestamp_the_token_is_judged_at_now_as_a_guess() {
    let token = bound_token(NOW_SECS + 120, NOW_SECS + 3720);
    let out = classify(&["--token", &token, "-o", "json"])
        .write_stdin("error: You must be logged in to the server (Unauthorized)\n")
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    // This machine's clock now is not the server's clock then: clock skew is
    // the first candidate, but no cause is named.
    let r = &json_of(&out)["results"][0];
    assert_eq!(r["diagnosis"]["cause"], "unknown");
    assert_eq!(r["diagnosis"]["alternatives"][0]["cause"], "clock-skew");
    assert_eq!(r["diagnosis"]["alternatives"][0]["confidence"], "low");
    assert_eq!(r["token_check"]["at_source"], "now");
}

#[test]
fn a_log_line_about_another_token_says_so() {
    // The server says "expired", but the token given is fine at that instant.
    let token = bound_token(NOW_SECS - 600, NOW_SECS + 3000);
    let line = r#"2025-12-31T23:59:58.000000000Z stderr F E1231 23:59:58.000000       1 authentication.go:75] "Unable to authenticate the request" err="[invalid bearer token, service account token has expired]""#;
    let r = &diagnosed_json(&["--token", &token], line)["results"][0];
    assert_eq!(r["diagnosis"]["cause"], "expired");
    assert_eq!(r["diagnosis"]["confidence"], "high");
    let evidence = r["diagnosis"].to_string();
    assert!(evidence.contains("another token"), "{evidence}");
}

#[test]
fn a_recreated_service_account_is_matched_against_the_token_uid() {
    let out = classify(&[
        &format!("{EVIDENCE}/apiserver-recreated-with-token.log"),
        "-f",
        "testdata/tokens/token-request.jwt",
        "-o",
        "json",
    ])
    .write_stdin("")
    .assert()
    .code(1)
    .get_output()
    .stdout
    .clone();
    let r = &json_of(&out)["results"][0];
    assert_eq!(r["reasons"][1]["kind"], "service-account-uid-mismatch");
    assert_eq!(
        r["reasons"][1]["values"]["claim_uid"],
        "3f1c2a4e-8d1b-4c55-9a2e-1b7f5d0c9e41"
    );
    assert!(r["diagnosis"].to_string().contains("about your token"));
}

#[test]
fn audit_credential_id_is_compared_with_the_token() {
    let out = classify(&[
        &format!("{EVIDENCE}/audit-stale-token.jsonl"),
        "-f",
        "testdata/tokens/projected-stale.jwt",
        "-o",
        "json",
    ])
    .write_stdin("")
    .assert()
    .code(0)
    .get_output()
    .stdout
    .clone();
    let doc = json_of(&out);
    // Event 1 carries the stale token's JTI, event 2 another one.
    assert!(
        doc["results"][0]["diagnosis"]
            .to_string()
            .contains("made with your token")
    );
    assert!(
        doc["results"][1]["diagnosis"]
            .to_string()
            .contains("another token than yours")
    );
    assert_eq!(doc["token"]["kind"], "projected");
}

#[test]
fn server_strings_are_sanitised_in_tables() {
    let out = classify(&[])
        .write_stdin("Error from server (Forbidden): pods is forbidden: User \"evil\x1b[31m\" cannot list resource \"pods\" in API group \"\" in the namespace \"x\"\n")
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(!text.contains('\x1b'), "{text}");
    assert!(text.contains("\\u{1b}"), "{text}");
}

#[test]
fn a_token_in_the_evidence_is_never_printed() {
    let token = fs::read_to_string("testdata/tokens/expired.jwt").unwrap();
    let token = token.trim();
    let file = format!("{EVIDENCE}/curl-401-expired-token.txt");
    assert!(fs::read_to_string(&file).unwrap().contains(token));
    for format in ["table", "json"] {
        let out = classify(&[&file, "-o", format])
            .write_stdin("")
            .assert()
            .code(1)
            .get_output()
            .stdout
            .clone();
        let text = String::from_utf8(out).unwrap();
        assert!(!text.contains("eyJ"), "{format}: {text}");
    }
    // Also when a client log line quotes it (kubectl -v=9 style).
    let line = format!(
        "I0101 00:00:00.000000 1 round_trippers.go:466] curl -v -XGET -H \"Authorization: Bearer {token}\" 'https://10.96.0.1/api'\nerror: You must be logged in to the server (Unauthorized)\n"
    );
    let out = classify(&["-o", "json"])
        .write_stdin(line)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    assert!(!String::from_utf8(out).unwrap().contains("eyJ"));
}

#[test]
fn the_token_may_come_on_stdin_when_the_evidence_is_a_file() {
    let token = fs::read_to_string("testdata/tokens/expired.jwt").unwrap();
    let out = classify(&[
        &format!("{EVIDENCE}/status-401-generic.http"),
        "-f",
        "-",
        "-o",
        "json",
    ])
    .write_stdin(token)
    .assert()
    .code(1)
    .get_output()
    .stdout
    .clone();
    let doc = json_of(&out);
    assert_eq!(doc["results"][0]["diagnosis"]["cause"], "expired");
    assert_eq!(doc["token"]["kind"], "projected");
}

#[test]
fn a_tls_failure_inside_the_servers_internal_error_is_its_own_call() {
    // The API server answered (its InternalError), so the client's handshake
    // happened: the failed check is the server's call to the webhook.
    let line = r#"Error from server (InternalError): error when creating "app.yaml": Internal error occurred: failed calling webhook "mutate.example.io": Post "https://example-webhook.apps.svc:443/mutate?timeout=10s": x509: certificate signed by unknown authority"#;
    let r = &diagnosed_json(&[], line)["results"][0];
    // The URL in the message is the server's call, not the client's request.
    assert!(r["request"].is_null(), "{r}");
    let d = &r["diagnosis"];
    assert_eq!(d["classification"], "other-status", "{d}");
    assert_eq!(d["cause"], "tls-untrusted-ca", "{d}");
    let text = d.to_string();
    assert!(text.contains("own call failed the check"), "{text}");
    assert!(!text.contains("trust the cluster's CA"), "{text}");
    assert!(!text.contains("token was not sent"), "{text}");
}

#[test]
fn the_api_servers_proxy_error_body_is_its_own_call() {
    // kube-apiserver's proxy answers 503 with a two-line body when its call to
    // the Service or pod fails: the client's handshake happened.
    let body = "Error: 'x509: certificate has expired or is not yet valid'\nTrying to reach: 'https://10.0.0.6:8443/'";
    let r = &diagnosed_json(&[], body)["results"][0];
    assert_eq!(r["status"], 503, "{r}");
    assert!(r["request"].is_null(), "{r}");
    let d = &r["diagnosis"];
    assert_eq!(d["classification"], "other-status", "{d}");
    assert_eq!(d["cause"], "tls-certificate-expired", "{d}");
    let text = d.to_string();
    assert!(text.contains("through its proxy"), "{text}");
    assert!(!text.contains("token was not sent"), "{text}");
}

/// The server's reason names the ServiceAccount (`serviceaccounts "NAME" not
/// found`, `service account NS/NAME has been deleted`): the next steps use it
/// instead of `SERVICE_ACCOUNT` and `NAMESPACE` placeholders.
#[test]
fn the_reasons_name_fills_the_service_account_placeholders() {
    let line = |reason: &str| {
        format!(
            "E1207 01:00:00.000000       1 authentication.go:73] \"Unable to authenticate the request\" err=\"[invalid bearer token, {reason}]\"\n"
        )
    };
    let shells = |doc: &Value| {
        doc["diagnosis"]["next"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|n| n["command"]["shell"].as_str().map(str::to_owned))
            .collect::<Vec<_>>()
    };
    let doc = diagnosed_json(&[], &line(r#"serviceaccounts \"checkout\" not found"#));
    let doc = &doc["results"][0];
    assert!(
        shells(doc).contains(&"kubectl create token checkout -n NAMESPACE".to_owned()),
        "{:?}",
        shells(doc)
    );
    let doc = diagnosed_json(&[], &line("service account shop/checkout has been deleted"));
    let doc = &doc["results"][0];
    assert!(
        shells(doc).contains(&"kubectl create token checkout -n shop".to_owned()),
        "{:?}",
        shells(doc)
    );
}

/// With the token given as `-f FILE`, next steps name that file.
#[test]
fn next_steps_name_the_token_file_given() {
    let dir = tempfile::tempdir().unwrap();
    let evidence = dir.path().join("apiserver.log");
    std::fs::write(
        &evidence,
        "E1207 01:00:00.000000       1 authentication.go:73] \"Unable to authenticate the request\" err=\"[invalid bearer token, token has been invalidated]\"\n",
    )
    .unwrap();
    let out = classify(&[
        evidence.to_str().unwrap(),
        "-f",
        "testdata/tokens/projected.jwt",
    ])
    .output()
    .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("-f testdata/tokens/projected.jwt"), "{text}");
    assert!(!text.contains("TOKEN_FILE"), "{text}");
}
