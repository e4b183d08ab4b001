//! `kubectl satoken verify` end to end: exit codes, flag plumbing, and the JSON
//! contract, against the fixtures in testdata/ (designed around NOW). JWKS and PEM
//! variants are written to a temporary directory by each test.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

const NOW: &str = "2026-01-01T00:00:00Z";
const NOW_SECS: i64 = 1_767_225_600;
const ISSUER: &str = "https://kubernetes.default.svc.cluster.local";

fn testdata(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(path)
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(testdata(&format!("tokens/{name}")))
        .unwrap()
        .trim()
        .to_owned()
}

fn jwks_path() -> String {
    testdata("jwks.json").display().to_string()
}

/// Runs `verify` with the token on stdin; returns (exit code, stdout, stderr).
fn verify(token: &str, args: &[&str]) -> (i32, String, String) {
    let out = crate::support::satoken()
        .args(["verify", "--now", NOW])
        .args(args)
        .write_stdin(token.to_owned())
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// `verify -o json` with the JWKS fixture and the issuer and audience every
/// fixture was minted with; returns (exit code, JSON).
fn verify_json(token: &str, extra: &[&str]) -> (i32, Value) {
    let jwks = jwks_path();
    let mut args = vec!["-o", "json"];
    if !extra.contains(&"--jwks") && !extra.contains(&"--key") {
        args.extend(["--jwks", jwks.as_str()]);
    }
    args.extend(extra);
    let (code, stdout, stderr) = verify(token, &args);
    let json = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}); stdout {stdout:?} stderr {stderr:?}"));
    (code, json)
}

fn check<'a>(json: &'a Value, name: &str) -> &'a Value {
    json["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no check {name}"))
}

fn codes(json: &Value) -> Vec<String> {
    json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_owned())
        .collect()
}

fn published_kids() -> Vec<String> {
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(testdata("jwks.json")).unwrap()).unwrap();
    doc["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["kid"].as_str().unwrap().to_owned())
        .collect()
}

fn claims() -> Value {
    json!({"aud": [ISSUER], "exp": NOW_SECS + 3570, "iat": NOW_SECS - 30, "nbf": NOW_SECS - 30,
           "iss": ISSUER,
           "kubernetes.io": {"namespace": "shop", "serviceaccount": {"name": "checkout", "uid": "u"}},
           "sub": "system:serviceaccount:shop:checkout"})
}

/// A token signed at test time with testdata/keys/rsa.key.pem under `kid`.
fn sign_rsa(kid: &str) -> String {
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::RS256);
    header.typ = None;
    header.kid = Some(kid.to_owned());
    let pem = std::fs::read(testdata("keys/rsa.key.pem")).unwrap();
    let key = jsonwebtoken::EncodingKey::from_rsa_pem(&pem).unwrap();
    jsonwebtoken::encode(&header, &claims(), &key).unwrap()
}

const EXPECT: [&str; 4] = ["--issuer", ISSUER, "--audience", ISSUER];

#[test]
fn rsa_and_ec_tokens_verify_against_the_jwks() {
    let kids = published_kids();
    for (file, kid, alg) in [
        ("projected.jwt", &kids[0], "RS256"),
        ("projected-es256.jwt", &kids[1], "ES256"),
        ("token-request-es384.jwt", &kids[2], "ES384"),
    ] {
        // projected-es256 carries the custom audience "vault".
        let aud = if alg == "ES256" { "vault" } else { ISSUER };
        let (code, json) = verify_json(&fixture(file), &["--issuer", ISSUER, "--audience", aud]);
        assert_eq!(code, 0, "{file}: {json:#}");
        assert_eq!(json["valid"], true);
        assert_eq!(json["token"]["alg"], alg);
        assert_eq!(json["key"]["kid"], kid.as_str());
        assert_eq!(json["key"]["computed_kid"], kid.as_str());
        assert_eq!(json["key"]["matched_by"], "kid");
        for name in ["signature", "key", "issuer", "audience", "time"] {
            assert_eq!(check(&json, name)["ok"], true, "{file} {name}");
        }
        assert!(json["findings"].as_array().unwrap().is_empty(), "{file}");
    }
}

#[test]
fn computed_key_ids_are_in_the_json() {
    let (_, json) = verify_json(&fixture("projected.jwt"), &[]);
    let computed: Vec<&str> = json["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["computed_kid"].as_str().unwrap())
        .collect();
    assert_eq!(computed, published_kids());
    assert_eq!(json["keys"][0]["outcome"], "verified");
    assert_eq!(json["keys"][1]["outcome"], "not-tried");
}

#[test]
fn tampered_payload_and_signature_are_invalid() {
    let (tampered_payload, tampered_sig) =
        crate::support::tokens::tampered(&fixture("projected.jwt"));
    for token in [tampered_payload, tampered_sig] {
        let (code, json) = verify_json(&token, &EXPECT);
        assert_eq!(code, 1, "{json:#}");
        assert_eq!(json["valid"], false);
        assert_eq!(check(&json, "signature")["ok"], false);
        // The kid was found: the key is right, the bytes are not.
        assert_eq!(check(&json, "key")["ok"], true);
        assert_eq!(json["key"]["matched_by"], Value::Null);
        assert_eq!(codes(&json), ["signature-invalid"]);
    }
}

#[test]
fn unknown_kid_with_the_right_key_in_the_set() {
    let (code, json) = verify_json(&sign_rsa("old-kid-from-an-external-signer"), &EXPECT);
    assert_eq!(code, 1);
    assert_eq!(check(&json, "signature")["ok"], true);
    assert_eq!(check(&json, "key")["ok"], false);
    assert_eq!(json["key"]["matched_by"], "trial");
    assert_eq!(json["key"]["kid"], published_kids()[0].as_str());
    assert_eq!(codes(&json), ["kid-mismatch"]);
    let detail = check(&json, "key")["detail"].as_str().unwrap();
    assert!(detail.contains("right key, kid mismatch"), "{detail}");
    assert!(
        detail.contains("invalid signature, no keys found"),
        "{detail}"
    );
}

#[test]
fn unknown_kid_with_no_usable_key() {
    let (code, json) = verify_json(&fixture("rotated-key.jwt"), &EXPECT);
    assert_eq!(code, 1);
    assert_eq!(json["key"]["matched_by"], Value::Null);
    assert_eq!(json["key"]["kid"], Value::Null);
    assert_eq!(codes(&json), ["signature-invalid", "kid-not-found"]);
    let detail = check(&json, "key")["detail"].as_str().unwrap();
    for kid in published_kids() {
        assert!(
            detail.contains(&kid),
            "kids present must be listed: {detail}"
        );
    }
}

#[test]
fn wrong_issuer_and_no_shared_audience() {
    let (code, json) = verify_json(
        &fixture("projected.jwt"),
        &[
            "--issuer",
            "https://other.example",
            "--issuer",
            "https://third.example",
        ],
    );
    assert_eq!(code, 1);
    assert_eq!(check(&json, "issuer")["ok"], false);
    assert_eq!(check(&json, "audience")["ok"], Value::Null);
    assert_eq!(codes(&json), ["issuer-mismatch"]);

    let (code, json) = verify_json(
        &fixture("projected.jwt"),
        &["--audience", "vault", "--audience", "api"],
    );
    assert_eq!(code, 1);
    assert_eq!(check(&json, "audience")["ok"], false);
    assert_eq!(codes(&json), ["audience-mismatch"]);
    let detail = check(&json, "audience")["detail"].as_str().unwrap();
    assert!(
        detail.starts_with(&format!(
            "token audiences [\"{ISSUER}\"] is invalid for the target audiences [\"vault\" \"api\"]"
        )),
        "{detail}"
    );
    // One shared audience among several is enough.
    let (code, _) = verify_json(
        &fixture("projected.jwt"),
        &["--audience", "vault", "--audience", ISSUER],
    );
    assert_eq!(code, 0);
}

#[test]
fn alg_none_and_hs256_are_refused() {
    for (file, code_text) in [
        ("alg-none.jwt", "alg-none"),
        ("hs256.jwt", "hmac-algorithm"),
    ] {
        let (code, json) = verify_json(&fixture(file), &EXPECT);
        assert_eq!(code, 1, "{file}");
        assert_eq!(codes(&json), [code_text], "{file}");
        assert_eq!(check(&json, "signature")["ok"], false);
        assert_eq!(check(&json, "key")["ok"], Value::Null);
        assert!(
            json["keys"]
                .as_array()
                .unwrap()
                .iter()
                .all(|k| k["outcome"] == "not-tried")
        );
    }
    let (_, stdout, _) = verify(&fixture("hs256.jwt"), &["--jwks", &jwks_path()]);
    assert!(stdout.contains("never HMAC-signed"), "{stdout}");
}

#[test]
fn expired_token_fails_the_time_check() {
    let (code, json) = verify_json(&fixture("expired.jwt"), &EXPECT);
    assert_eq!(code, 1);
    assert_eq!(check(&json, "signature")["ok"], true);
    assert_eq!(check(&json, "time")["ok"], false);
    assert_eq!(codes(&json), ["expired"]);
    // --leeway moves the window (global flag).
    let (code, _) = verify_json(&fixture("expired.jwt"), &["--leeway", "2h"]);
    assert_eq!(code, 0);
}

#[test]
fn unsupported_key_types_are_skipped_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(testdata("jwks.json")).unwrap()).unwrap();
    let keys = doc["keys"].as_array_mut().unwrap();
    keys.insert(
        0,
        json!({"kty": "OKP", "crv": "Ed25519", "kid": "ed-key", "use": "sig",
               "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}),
    );
    keys.push(json!({"kty": "oct", "kid": "shared-secret", "k": "c2VjcmV0"}));
    let path = dir.path().join("mixed.json");
    std::fs::write(&path, doc.to_string()).unwrap();
    let path = path.display().to_string();
    let (code, json) = verify_json(&fixture("projected.jwt"), &["--jwks", &path]);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(codes(&json), ["key-skipped", "key-skipped"]);
    let messages: Vec<&str> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert!(
        messages[0].contains("kty \"OKP\" (kid \"ed-key\")"),
        "{messages:?}"
    );
    assert!(
        messages[1].contains("kty \"oct\" (kid \"shared-secret\")"),
        "{messages:?}"
    );
    assert_eq!(json["findings"][0]["severity"], "info");
    assert_eq!(json["keys"].as_array().unwrap().len(), 3);
}

#[test]
fn malformed_jwks_and_pem_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let cases = [
        (
            "--jwks",
            write("trunc.json", r#"{"keys": [{"kty": "RSA""#),
            "not JSON",
        ),
        (
            "--jwks",
            write("nokeys.json", r#"{"issuer": "x"}"#),
            "no \"keys\"",
        ),
        (
            "--jwks",
            write(
                "badn.json",
                r#"{"keys": [{"kty": "RSA", "kid": "k", "n": "%%", "e": "AQAB"}]}"#,
            ),
            "keys[0] (kid \"k\"): \"n\" is not base64url",
        ),
        (
            "--jwks",
            testdata("openid-configuration.json").display().to_string(),
            "OpenID discovery document",
        ),
        (
            "--jwks",
            dir.path().join("missing.json").display().to_string(),
            "cannot open",
        ),
        (
            "--key",
            write(
                "bad.pem",
                "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOC\n-----END PUBLIC KEY-----\n",
            ),
            "PEM block 1 (PUBLIC KEY)",
        ),
        (
            "--key",
            write(
                "junk.pem",
                "-----BEGIN PUBLIC KEY-----\n@@@@\n-----END PUBLIC KEY-----\n",
            ),
            "bad PEM",
        ),
        ("--key", write("empty.pem", ""), "no PEM block"),
    ];
    for (flag, path, expected) in cases {
        let (code, stdout, stderr) = verify(&fixture("projected.jwt"), &[flag, &path]);
        assert_eq!(code, 2, "{path}: {stderr}");
        assert!(stdout.is_empty());
        assert!(stderr.contains(expected), "{path}: {stderr}");
        assert!(
            !stderr.contains("eyJ"),
            "an error must never show the token"
        );
    }
}

#[test]
fn pem_keys_via_key() {
    let kids = published_kids();
    let mut args: Vec<String> = Vec::new();
    for file in ["rsa", "ec256", "ec384", "rsa-rotated"] {
        args.push("--key".to_owned());
        args.push(
            testdata(&format!("keys/{file}.pub.pem"))
                .display()
                .to_string(),
        );
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    for (file, kid) in [
        ("projected.jwt", &kids[0]),
        ("projected-es256.jwt", &kids[1]),
        ("token-request-es384.jwt", &kids[2]),
    ] {
        let (code, json) = verify_json(&fixture(file), &args);
        assert_eq!(code, 0, "{file}: {json:#}");
        assert_eq!(json["key"]["matched_by"], "kid");
        assert_eq!(json["key"]["computed_kid"], kid.as_str());
        assert_eq!(json["keys"][0]["published_kid"], Value::Null);
        assert_eq!(json["keys"][0]["pem_form"], "public-key");
    }
    // The rotated key is not in the JWKS, but given as PEM it verifies its token.
    let (code, json) = verify_json(&fixture("rotated-key.jwt"), &args);
    assert_eq!(code, 0, "{json:#}");
    assert!(
        json["key"]["source"]
            .as_str()
            .unwrap()
            .ends_with("rsa-rotated.pub.pem block 1")
    );
}

#[test]
fn several_keys_in_one_pem_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for file in ["ec384.pub.pem", "rsa-rotated.pub.pem", "rsa.pub.pem"] {
        text.push_str(&std::fs::read_to_string(testdata(&format!("keys/{file}"))).unwrap());
    }
    let path = dir.path().join("sa.pub");
    std::fs::write(&path, text).unwrap();
    let path = path.display().to_string();
    let (code, json) = verify_json(&fixture("projected.jwt"), &["--key", &path]);
    assert_eq!(code, 0, "{json:#}");
    assert!(json["key"]["source"].as_str().unwrap().ends_with("block 3"));
    assert_eq!(json["keys"].as_array().unwrap().len(), 3);
}

#[test]
fn jwks_on_stdin_with_the_token_from_a_file() {
    let jwks = std::fs::read_to_string(testdata("jwks.json")).unwrap();
    let token = testdata("tokens/projected.jwt").display().to_string();
    let out = crate::support::satoken()
        .args([
            "verify", "--now", NOW, "-o", "json", "--jwks", "-", "-f", &token,
        ])
        .write_stdin(jwks.clone())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        json["key"]["source"]
            .as_str()
            .unwrap()
            .starts_with("stdin keys[0]")
    );
    // Both on stdin cannot work.
    let out = crate::support::satoken()
        .args(["verify", "--now", NOW, "--jwks", "-", "-f", "-"])
        .write_stdin(jwks)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("both want stdin"));
}

#[test]
fn keys_are_required_and_unreachable_urls_exit_3() {
    let (code, _, stderr) = verify(&fixture("projected.jwt"), &[]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--jwks"), "{stderr}");
    // A URL is fetched: nothing listens on port 1, so the keys cannot be had.
    let (code, _, stderr) = verify(
        &fixture("projected.jwt"),
        &[
            "--jwks",
            "https://127.0.0.1:1/openid/v1/jwks",
            "--insecure-skip-tls-verify",
        ],
    );
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("cannot fetch https://127.0.0.1:1/openid/v1/jwks"),
        "{stderr}"
    );
    // Plain http is refused before anything is sent.
    let (code, _, stderr) = verify(
        &fixture("projected.jwt"),
        &[
            "--jwks",
            "http://127.0.0.1:1/openid/v1/jwks",
            "--insecure-skip-tls-verify",
        ],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("refusing plain http://"), "{stderr}");
}

#[test]
fn table_output_names_every_check() {
    let (code, stdout, _) = verify(
        &fixture("rotated-key.jwt"),
        &["--jwks", &jwks_path(), "--issuer", ISSUER],
    );
    assert_eq!(code, 1);
    assert!(
        stdout.contains("Verdict: INVALID: signature, key failed"),
        "{stdout}"
    );
    for name in ["signature", "key", "issuer", "audience", "time"] {
        assert!(
            stdout.lines().any(|l| l.starts_with(&format!("│ {name} "))),
            "{name} row missing:\n{stdout}"
        );
    }
    assert!(stdout.lines().all(|l| l.chars().count() <= 80), "{stdout}");
    let (code, stdout, _) = verify(&fixture("projected.jwt"), &["--jwks", &jwks_path()]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("Verdict: VALID (issuer, audience not checked)"),
        "{stdout}"
    );
    assert!(stdout.lines().all(|l| l.chars().count() <= 80), "{stdout}");
}
