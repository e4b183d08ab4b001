//! `skew --server`: each API server's clock from its `Date` header, against the
//! local test API servers (tests/it/support) with per-server clock offsets. No token
//! is ever sent to measure a clock.

use std::time::Duration;

use chrono::TimeDelta;
use serde_json::Value;

use crate::support::apiserver::{ApiServer, Config};
use crate::support::pki::Pki;
use crate::support::tokens;
use crate::support::{BASE, base};

fn skew(dir: &std::path::Path, args: &[String], token: &str) -> (i32, Value) {
    let out = crate::support::satoken()
        .env("KUBECTL_SATOKEN_SA_DIR", dir.join("no-sa-dir"))
        .args(["skew", "-o", "json", "--now", BASE, "-f", "-"])
        .args(args)
        .write_stdin(token)
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap(), json)
}

fn clock(json: &Value, port: u16) -> &Value {
    json["clocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == format!("127.0.0.1:{port}"))
        .unwrap_or_else(|| panic!("no clock for port {port}: {json}"))
}

#[test]
fn a_server_90s_behind_rejects_a_token_minted_on_the_other() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("skew-ca");
    let ca = pki.write_ca(dir.path(), "ca.crt");
    let in_step = ApiServer::start(Config::new(base()), &pki);
    let mut behind = Config::new(base());
    behind.offset = TimeDelta::seconds(-90);
    let behind = ApiServer::start(behind, &pki);
    // Minted just now by the server whose clock is right.
    let token = tokens::sign(&tokens::projected(base(), 3607));
    let args = vec![
        "-s".to_owned(),
        in_step.url(),
        "-s".to_owned(),
        behind.url(),
        "--cacert".to_owned(),
        ca.display().to_string(),
    ];
    let (code, json) = skew(dir.path(), &args, &token);
    assert_eq!(code, 1, "{json}");
    let good = clock(&json, in_step.port());
    assert_eq!(good["verdict"], "accept", "{good}");
    assert_eq!(good["source"], "http-date");
    let bad = clock(&json, behind.port());
    assert_eq!(bad["verdict"], "not-yet-valid", "{bad}");
    let offset = bad["offset_seconds"].as_f64().unwrap();
    assert!((-91.0..=-89.0).contains(&offset), "{offset}");
    assert!(bad["offset_uncertainty_seconds"].as_f64().unwrap() <= 1.5);
    let wait = bad["accepted_in_seconds"].as_f64().unwrap();
    assert!((29.0..=32.0).contains(&wait), "{wait}");
    // Measuring a clock never sends the token.
    assert!(!in_step.saw_authorization() && !behind.saw_authorization());
}

#[test]
fn unreachable_or_untrusted_servers_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("skew-ca");
    let ca = pki.write_ca(dir.path(), "ca.crt");
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let token = tokens::sign(&tokens::projected(base(), 3607));
    let args = vec![
        "-s".to_owned(),
        format!("https://127.0.0.1:{port}"),
        "--cacert".to_owned(),
        ca.display().to_string(),
    ];
    let (code, json) = skew(dir.path(), &args, &token);
    assert_eq!(code, 3, "{json}");
    let codes: Vec<&str> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"server-unreachable"), "{codes:?}");

    // A server whose certificate our CA did not sign: a TLS failure, exit 3.
    let other = Pki::new("someone-else");
    let server = ApiServer::start(Config::new(base()), &other);
    let args = vec![
        "-s".to_owned(),
        server.url(),
        "--cacert".to_owned(),
        ca.display().to_string(),
    ];
    let (code, json) = skew(dir.path(), &args, &token);
    assert_eq!(code, 3, "{json}");
    assert!(json.to_string().contains("TLS"), "{json}");
    assert!(!server.saw_authorization());
}

#[test]
fn plain_http_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let token = tokens::sign(&tokens::projected(base(), 3607));
    let out = crate::support::satoken()
        .env("KUBECTL_SATOKEN_SA_DIR", dir.path())
        .args([
            "skew",
            "--now",
            BASE,
            "-f",
            "-",
            "-s",
            "http://127.0.0.1:1",
            "--insecure-skip-tls-verify",
        ])
        .write_stdin(token)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("refusing plain http://"));
}
