//! `doctor` end to end, the way a pod runs it: a ServiceAccount directory (token,
//! ca.crt, namespace) and KUBERNETES_SERVICE_HOST/PORT pointing at the local test
//! API server (tests/it/support). Cases: ok, 401 (clock skew, expired, recreated
//! ServiceAccount), 403, unreachable.

use std::path::Path;
use std::process::Stdio;

use chrono::TimeDelta;
use serde_json::Value;

use crate::support::apiserver::{ApiServer, Config};
use crate::support::pki::Pki;
use crate::support::tokens::{self, NAMESPACE};
use crate::support::{BASE, base, fresh_token, sa_dir};

struct Run {
    code: i32,
    json: Value,
    stdout: String,
}

/// Runs doctor as a pod runs it: stdin is /dev/null.
fn doctor(sa: &Path, port: u16, format: &str, extra: &[&str]) -> Run {
    doctor_with_stdin(sa, port, format, extra, Stdio::null())
}

fn doctor_with_stdin(sa: &Path, port: u16, format: &str, extra: &[&str], stdin: Stdio) -> Run {
    let out = crate::support::satoken_std()
        .stdin(stdin)
        .env("KUBECTL_SATOKEN_SA_DIR", sa)
        .env("KUBERNETES_SERVICE_HOST", "127.0.0.1")
        .env("KUBERNETES_SERVICE_PORT", port.to_string())
        .env("NO_COLOR", "1")
        .args(["doctor", "-o", format, "--now", BASE])
        .args(extra)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    Run {
        code: out.status.code().unwrap_or(-1),
        json: serde_json::from_str(&stdout).unwrap_or(Value::Null),
        stdout: format!("{stdout}{}", String::from_utf8_lossy(&out.stderr)),
    }
}

fn step<'a>(json: &'a Value, name: &str) -> &'a Value {
    json["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no step {name}: {json}"))
}

#[test]
fn healthy_pod() {
    let pki = Pki::new("doctor-ca");
    let server = ApiServer::start(Config::new(base()), &pki);
    let sa = sa_dir(&pki, &fresh_token());
    let run = doctor(sa.path(), server.port(), "json", &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json["verdict"], "healthy", "{}", run.json["steps"]);
    assert_eq!(run.json["exit_code"], 0);
    for name in [
        "token",
        "pod-clock",
        "api-server",
        "server-clock",
        "freshness",
    ] {
        assert_eq!(
            step(&run.json, name)["status"],
            "pass",
            "{name}: {}",
            run.json["steps"]
        );
    }
    assert_eq!(run.json["diagnosis"]["classification"], "ok");
    // The sub-reports are embedded whole.
    assert_eq!(run.json["token"]["kind"], "projected");
    assert_eq!(run.json["probe"]["servers"][0]["classification"], "ok");

    // An empty stdin pipe (some runtimes give one) is not a token: the mounted one is used.
    let run = doctor_with_stdin(sa.path(), server.port(), "json", &[], Stdio::piped());
    assert_eq!(run.code, 0, "{}", run.stdout);

    // The same run as a step list: one line per step, then the verdict.
    let run = doctor(sa.path(), server.port(), "table", &[]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.starts_with("[PASS] token"), "{}", run.stdout);
    assert!(run.stdout.contains("Verdict: HEALTHY"), "{}", run.stdout);
    assert!(
        run.stdout.lines().all(|l| l.chars().count() <= 80),
        "{}",
        run.stdout
    );
}

#[test]
fn api_server_90s_behind_rejects_a_fresh_token_clock_skew() {
    let pki = Pki::new("doctor-ca");
    let mut config = Config::new(base());
    config.offset = TimeDelta::seconds(-90);
    let server = ApiServer::start(config, &pki);
    // Minted just now by another API server whose clock is right (= this pod's).
    let sa = sa_dir(&pki, &tokens::sign(&tokens::projected(base(), 3607)));
    let run = doctor(sa.path(), server.port(), "json", &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(run.json["verdict"], "broken");
    assert_eq!(step(&run.json, "pod-clock")["status"], "pass");
    assert_eq!(step(&run.json, "api-server")["status"], "fail");
    let clock = step(&run.json, "server-clock");
    assert_eq!(clock["status"], "fail");
    assert!(
        clock["summary"].as_str().unwrap().contains("not valid yet"),
        "{clock}"
    );
    let d = &run.json["diagnosis"];
    assert_eq!(d["classification"], "401-invalid-token");
    assert_eq!(d["cause"], "clock-skew");
}

#[test]
fn expired_token_is_broken_expired() {
    let pki = Pki::new("doctor-ca");
    let server = ApiServer::start(Config::new(base()), &pki);
    let token = tokens::sign(&tokens::projected(base() - TimeDelta::hours(2), 3600));
    let sa = sa_dir(&pki, &token);
    let run = doctor(sa.path(), server.port(), "json", &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(run.json["verdict"], "broken");
    assert_eq!(step(&run.json, "pod-clock")["status"], "fail");
    assert_eq!(run.json["diagnosis"]["cause"], "expired");
    // The kubelet should have replaced a token this old.
    assert_eq!(step(&run.json, "freshness")["status"], "warn");
}

#[test]
fn recreated_service_account_is_named_with_its_uids() {
    let pki = Pki::new("doctor-ca");
    let mut config = Config::new(base());
    config.recreate_service_account();
    let server = ApiServer::start(config, &pki);
    let sa = sa_dir(&pki, &fresh_token());
    let run = doctor(sa.path(), server.port(), "json", &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(run.json["verdict"], "broken");
    let d = &run.json["diagnosis"];
    assert_eq!(d["classification"], "401-invalid-token");
    let causes = crate::support::diagnosis::causes(d);
    assert!(
        causes.iter().any(|c| c == "service-account-recreated"),
        "{causes:?}"
    );
    assert!(
        d.to_string().contains(tokens::SA_UID),
        "the token's uid to compare: {d}"
    );
}

#[test]
fn rbac_denied_is_broken_with_the_grant() {
    let pki = Pki::new("doctor-ca");
    let server = ApiServer::start(Config::new(base()), &pki);
    let sa = sa_dir(&pki, &fresh_token());
    let path = format!("/api/v1/namespaces/{NAMESPACE}/pods");
    let run = doctor(sa.path(), server.port(), "table", &["--path", &path]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stdout.contains("Verdict: BROKEN"), "{}", run.stdout);
    assert!(run.stdout.contains("403 Forbidden"), "{}", run.stdout);
    assert!(run.stdout.contains("kubectl create role"), "{}", run.stdout);
    assert!(run.stdout.contains("rbac-denied"), "{}", run.stdout);
}

#[test]
fn unreachable_api_server_exits_3() {
    let pki = Pki::new("doctor-ca");
    let sa = sa_dir(&pki, &fresh_token());
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let run = doctor(sa.path(), port, "json", &[]);
    assert_eq!(run.code, 3, "{}", run.stdout);
    assert_eq!(run.json["verdict"], "unreachable");
    assert_eq!(step(&run.json, "keys")["status"], "skip");
    assert_eq!(run.json["diagnosis"]["cause"], "connection-refused");
}

/// Prints what a user sees (for docs): `cargo test --test it doctor::show -- --ignored --nocapture`.
#[test]
#[ignore]
fn show() {
    let pki = Pki::new("doctor-ca");
    let mut config = Config::new(base());
    config.offset = TimeDelta::seconds(-90);
    let behind = ApiServer::start(config, &pki);
    let sa = sa_dir(&pki, &tokens::sign(&tokens::projected(base(), 3607)));
    println!("{}", doctor(sa.path(), behind.port(), "table", &[]).stdout);
    let server = ApiServer::start(Config::new(base()), &pki);
    let sa = sa_dir(&pki, &fresh_token());
    let path = format!("/api/v1/namespaces/{NAMESPACE}/pods");
    println!(
        "{}",
        doctor(sa.path(), server.port(), "table", &["--path", &path]).stdout
    );
    println!("{}", doctor(sa.path(), server.port(), "table", &[]).stdout);
}

/// From a laptop (no token, none mounted): one line that says doctor is for
/// pods and what to run instead, the path named once.
#[test]
fn outside_a_pod_doctor_says_what_to_run_instead() {
    let out = crate::support::satoken_std()
        .env("KUBECTL_SATOKEN_SA_DIR", "/nonexistent/satoken-laptop")
        .stdin(std::process::Stdio::null())
        .arg("doctor")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("kubectl exec") && stderr.contains("satoken probe"),
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("/nonexistent/satoken-laptop").count(),
        1,
        "{stderr}"
    );
}
