//! `verify --jwks URL` against the local test API server: the JWKS directly, and
//! through the discovery document; the token is sent only when the server asks
//! for authentication, only to the origin named, and never across TLS failures.

use chrono::TimeDelta;
use serde_json::Value;

use crate::support::apiserver::{ApiServer, Config};
use crate::support::pki::Pki;
use crate::support::tokens;
use crate::support::{BASE, base};

fn verify(
    dir: &std::path::Path,
    ca: &std::path::Path,
    jwks: &str,
    token: &str,
) -> (i32, Value, String) {
    let token_file = dir.join("token");
    std::fs::write(&token_file, token).unwrap();
    let out = crate::support::satoken_std()
        .env("KUBECTL_SATOKEN_SA_DIR", dir.join("no-sa-dir"))
        .args([
            "verify", "-o", "json", "--now", BASE, "--jwks", jwks, "--cacert",
        ])
        .arg(ca)
        .arg("-f")
        .arg(&token_file)
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (
        out.status.code().unwrap(),
        json,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn codes(json: &Value) -> Vec<String> {
    json["findings"]
        .as_array()
        .map(|f| {
            f.iter()
                .map(|f| f["code"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn jwks_url_and_discovery_verify_a_good_token() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("verify-ca");
    let ca = pki.write_ca(dir.path(), "ca.crt");
    let server = ApiServer::start(Config::new(base()), &pki);
    let token = tokens::sign(&tokens::projected(base() - TimeDelta::minutes(5), 3607));
    for url in [
        format!("{}/openid/v1/jwks", server.url()),
        format!("{}/.well-known/openid-configuration", server.url()),
    ] {
        let (code, json, stderr) = verify(dir.path(), &ca, &url, &token);
        assert_eq!(code, 0, "{url}: {stderr} {json}");
        assert_eq!(json["valid"], true);
        assert_eq!(json["key"]["kid"], tokens::RSA_KID);
        assert!(codes(&json).contains(&"keys-fetched".to_owned()), "{json}");
    }
    // The keys are not anonymous by default: each document was asked for without
    // the token first, then with it.
    let seen = server.seen();
    assert!(
        seen.iter()
            .any(|r| r.path == "/openid/v1/jwks" && r.header("authorization").is_none())
    );
    assert!(
        seen.iter()
            .any(|r| r.path == "/openid/v1/jwks" && r.header("authorization").is_some())
    );
}

#[test]
fn anonymous_discovery_needs_no_token() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("verify-ca");
    let ca = pki.write_ca(dir.path(), "ca.crt");
    let mut config = Config::new(base());
    config.anonymous_discovery = true;
    let server = ApiServer::start(config, &pki);
    let token = tokens::sign(&tokens::projected(base() - TimeDelta::minutes(5), 3607));
    let url = format!("{}/openid/v1/jwks", server.url());
    let (code, _, stderr) = verify(dir.path(), &ca, &url, &token);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        !server.saw_authorization(),
        "readable anonymously: the token stays home"
    );
}

#[test]
fn a_rejected_token_cannot_fetch_the_keys_exit_3_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("verify-ca");
    let ca = pki.write_ca(dir.path(), "ca.crt");
    let server = ApiServer::start(Config::new(base()), &pki);
    // Expired: the server answers 401 to the token too.
    let token = tokens::sign(&tokens::projected(base() - TimeDelta::hours(3), 3600));
    let url = format!("{}/openid/v1/jwks", server.url());
    let (code, _, stderr) = verify(dir.path(), &ca, &url, &token);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("HTTP 401") && stderr.contains("kubectl get --raw /openid/v1/jwks"),
        "{stderr}"
    );
}

#[test]
fn untrusted_server_gets_no_token() {
    let dir = tempfile::tempdir().unwrap();
    let ours = Pki::new("verify-ca");
    let ca = ours.write_ca(dir.path(), "ca.crt");
    let theirs = Pki::new("someone-else");
    let server = ApiServer::start(Config::new(base()), &theirs);
    let token = tokens::sign(&tokens::projected(base(), 3607));
    let url = format!("{}/openid/v1/jwks", server.url());
    let (code, _, stderr) = verify(dir.path(), &ca, &url, &token);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("TLS"), "{stderr}");
    assert!(!server.saw_authorization());
}
