//! Unit tests of `crate::verify`.

use super::*;
use crate::secret::SecretToken;
use crate::window::at_seconds;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

const NOW: i64 = 1_767_225_600; // 2026-01-01T00:00:00Z
const TESTDATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata");
const ISSUER: &str = "https://kubernetes.default.svc.cluster.local";
const LEEWAY: TimeDelta = TimeDelta::seconds(60);

/// A file of testdata/ (also read by the key parsers' tests).
pub(super) fn read(path: &str) -> Vec<u8> {
    std::fs::read(format!("{TESTDATA}/{path}")).unwrap()
}

fn jwks() -> KeySet {
    keys::parse_jwks(&read("jwks.json")).unwrap()
}

fn run(raw: &str, keys: &KeySet, expect: &Expectations) -> VerifyReport {
    let token = token::parse(&SecretToken::new(raw)).unwrap();
    verify(raw, &token, keys, expect, at_seconds(NOW), LEEWAY)
}

/// `run` expecting no issuer or audience in particular.
fn run_any(raw: &str, keys: &KeySet) -> VerifyReport {
    run(raw, keys, &Expectations::default())
}

fn fixture(name: &str) -> String {
    String::from_utf8(read(&format!("tokens/{name}")))
        .unwrap()
        .trim()
        .to_owned()
}

fn codes(r: &VerifyReport) -> Vec<&'static str> {
    r.findings.iter().map(|f| f.code.as_str()).collect()
}

fn claims(offset: i64) -> Value {
    json!({"aud": [ISSUER], "exp": NOW + offset + 3600, "iat": NOW + offset,
               "nbf": NOW + offset, "iss": ISSUER,
               "kubernetes.io": {"namespace": "ns", "serviceaccount": {"name": "sa", "uid": "u"}},
               "sub": "system:serviceaccount:ns:sa"})
}

fn sign_rsa(kid: Option<&str>, claims: &Value) -> String {
    let mut header = Header::new(Algorithm::RS256);
    header.typ = None;
    header.kid = kid.map(str::to_owned);
    let key = EncodingKey::from_rsa_pem(&read("keys/rsa.key.pem")).unwrap();
    jsonwebtoken::encode(&header, claims, &key).unwrap()
}

fn expected() -> Expectations {
    Expectations {
        issuers: vec![ISSUER.to_owned()],
        audiences: vec![ISSUER.to_owned()],
    }
}

#[test]
fn no_kid_tries_every_key_as_kube_apiserver_does() {
    let raw = sign_rsa(None, &claims(0));
    let r = run(&raw, &jwks(), &expected());
    assert!(r.valid, "{:?}", r.checks);
    assert_eq!(r.matched_by, Some(MatchedBy::Trial));
}

#[test]
fn unsigned_and_unusual_algorithms_are_refused() {
    // alg none and HS256: it::verify::alg_none_and_hs256_are_refused.
    let r = run_any(&fixture("unsigned.jwt"), &jwks());
    assert_eq!(codes(&r), ["unsigned"]);
    // A real algorithm, just not one kube-apiserver signs with.
    let parts: Vec<String> = fixture("projected.jwt")
        .split('.')
        .map(str::to_owned)
        .collect();
    let header = URL_SAFE_NO_PAD.encode(r#"{"alg":"PS256","kid":"x"}"#);
    let raw = format!("{header}.{}.{}", parts[1], parts[2]);
    let r = run_any(&raw, &jwks());
    assert_eq!(codes(&r), ["unusual-algorithm"]);
}

#[test]
fn kid_naming_a_key_of_another_type() {
    // RS256, signed with the RSA key, but the kid names the P-256 key.
    let ec_kid = jwks().keys[1].computed_kid.clone();
    let r = run(&sign_rsa(Some(&ec_kid), &claims(0)), &jwks(), &expected());
    assert!(!r.valid);
    assert_eq!(r.check(CheckName::Signature).ok, Some(true));
    assert_eq!(r.matched_by, Some(MatchedBy::Trial));
    assert_eq!(codes(&r), ["kid-mismatch"]);
    let detail = &r.check(CheckName::Key).detail;
    assert!(detail.contains("names the wrong key"), "{detail}");
    // With only the EC key there is nothing to fall back on.
    let ec_only = keys::parse_pem_keys(&read("keys/ec256.pub.pem")).unwrap();
    let r = run(&sign_rsa(Some(&ec_kid), &claims(0)), &ec_only, &expected());
    assert_eq!(codes(&r), ["no-usable-key", "kid-mismatch"]);
}

#[test]
fn no_key_of_the_right_type() {
    let ec_only = keys::parse_pem_keys(&read("keys/ec256.pub.pem")).unwrap();
    let r = run_any(&fixture("projected.jwt"), &ec_only);
    assert_eq!(codes(&r), ["no-usable-key", "kid-not-found"]);
}

#[test]
fn es512_verifies_through_aws_lc() {
    use aws_lc_rs::signature::{ECDSA_P521_SHA512_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};
    let rng = aws_lc_rs::rand::SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P521_SHA512_FIXED_SIGNING, &rng).unwrap();
    let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P521_SHA512_FIXED_SIGNING, pkcs8.as_ref()).unwrap();
    let spki = {
        use aws_lc_rs::encoding::AsDer as _;
        pair.public_key().as_der().unwrap()
    };
    let pem = pem::encode(&pem::Pem::new("PUBLIC KEY", spki.as_ref().to_vec()));
    let set = keys::parse_pem_keys(pem.as_bytes()).unwrap();
    let kid = set.keys[0].computed_kid.clone();
    let header = URL_SAFE_NO_PAD.encode(json!({"alg": "ES512", "kid": kid}).to_string());
    let payload = URL_SAFE_NO_PAD.encode(claims(0).to_string());
    let input = format!("{header}.{payload}");
    let sig = pair.sign(&rng, input.as_bytes()).unwrap();
    let raw = format!("{input}.{}", URL_SAFE_NO_PAD.encode(sig.as_ref()));
    let r = run(&raw, &set, &expected());
    assert!(r.valid, "{:?}", r.checks);
    assert_eq!(r.matched().unwrap().kind.to_string(), "EC P-521");
    // Same key set, a P-256 token: no key of that curve.
    let r = run_any(&fixture("projected-es256.jwt"), &set);
    assert!(codes(&r).contains(&"no-usable-key"));
}

#[test]
fn time_is_judged_at_now_with_the_leeway() {
    for (offset, ok, code) in [
        (0, Some(true), None),
        (61, Some(false), Some("not-yet-valid")),
        // Accepted, with decode's warning that only the leeway saves it.
        (60, Some(true), Some("not-yet-valid")),
        (-3600 - 61, Some(false), Some("expired")),
    ] {
        let raw = sign_rsa(None, &claims(offset));
        let r = run(&raw, &jwks(), &expected());
        assert_eq!(r.check(CheckName::Time).ok, ok, "{offset}");
        assert_eq!(codes(&r).first().copied(), code, "{offset}");
    }
}

#[test]
fn legacy_token_issuer_and_time() {
    let r = run(&fixture("legacy-secret.jwt"), &jwks(), &expected());
    assert!(r.valid, "{:?}", r.checks);
    assert_eq!(r.check(CheckName::Issuer).ok, Some(true));
    assert_eq!(r.check(CheckName::Time).ok, Some(true));
    // kid "" counts as no kid: every RSA key is tried.
    assert_eq!(r.matched_by, Some(MatchedBy::Trial));
}

#[test]
fn key_set_remarks() {
    let mut doc: Value = serde_json::from_slice(&read("jwks.json")).unwrap();
    doc["keys"][1]["kid"] = json!("custom");
    doc["keys"][2]["kid"] = json!("custom");
    doc["keys"]
        .as_array_mut()
        .unwrap()
        .push(json!({"kty": "OKP", "crv": "Ed25519", "x": "AA"}));
    let set = keys::parse_jwks(doc.to_string().as_bytes()).unwrap();
    let r = run_any(&fixture("projected.jwt"), &set);
    assert!(r.valid);
    assert_eq!(
        codes(&r),
        [
            "duplicate-kid",
            "key-skipped",
            "kid-not-kubernetes",
            "kid-not-kubernetes"
        ]
    );
    // The same key from a JWKS and a PEM file is no ambiguity.
    let mut both = jwks();
    both.extend(
        keys::parse_pem_keys(&read("keys/rsa.pub.pem")).unwrap(),
        "rsa.pub.pem",
    );
    let r2 = run_any(&fixture("projected.jwt"), &both);
    assert!(codes(&r2).is_empty(), "{:?}", r2.findings);
    // A token whose kid is the Kubernetes key id still finds a renamed key.
    let r = run_any(&fixture("projected-es256.jwt"), &set);
    assert_eq!(r.matched_by, Some(MatchedBy::Kid));
}

#[test]
fn time_findings_read_as_decode_words_them() {
    let time = |findings: &[Finding]| -> Vec<(Code, String)> {
        let codes = [Code::NotYetValid, Code::Expired, Code::ExpiresSoon];
        let time = findings.iter().filter(|f| codes.contains(&f.code));
        time.map(|f| (f.code, f.message.clone())).collect()
    };
    // Rejected, ahead within the leeway, expired, past exp within it, expiring soon.
    for offset in [61, 60, -3600 - 61, -3600 - 30, -3500] {
        let raw = sign_rsa(None, &claims(offset));
        let verified = run(&raw, &jwks(), &expected());
        let shaped = crate::input::shape::detect_line(&raw);
        let token = token::parse(&SecretToken::new(raw.as_str())).unwrap();
        let decoded = crate::decode::analyse(token, &shaped, at_seconds(NOW), LEEWAY);
        let found = time(&verified.findings);
        assert_eq!(found.len(), 1, "{offset}: {found:?}");
        assert_eq!(found, time(&decoded.findings), "{offset}");
    }
}
