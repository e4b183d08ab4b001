//! `verify` snapshots: the outcomes tests/it/verify.rs exercises, against
//! testdata/jwks.json and the PEM keys in testdata/keys/ (good RSA/ES256/ES384,
//! expired, unknown kid with and without the right key, tampered payload and
//! signature, wrong issuer and audience, alg none and HS256, skipped key types,
//! several keys in one PEM file, and the usage errors).

use serde_json::{Value, json};

use super::{Invocation, NOW, Redact, check, crate_dir};
use crate::support::tokens::{self, ISSUER};

const AREA: &str = "verify";
const JWKS: &str = "testdata/jwks.json";

fn fixture(name: &str) -> String {
    std::fs::read_to_string(crate_dir().join("testdata/tokens").join(name))
        .unwrap()
        .trim()
        .to_owned()
}

/// `verify --now NOW --jwks testdata/jwks.json -f testdata/tokens/FILE ARGS`.
fn with_jwks(file: &str, args: &[&str]) -> Invocation {
    let path = format!("testdata/tokens/{file}");
    Invocation::new(&["verify", "--now", NOW, "--jwks", JWKS, "-f", &path]).args(args)
}

const EXPECT: [&str; 4] = ["--issuer", ISSUER, "--audience", ISSUER];

#[test]
fn good_tokens_against_the_jwks() {
    check(
        AREA,
        "projected-rs256",
        &with_jwks("projected.jwt", &EXPECT),
    );
    check(
        AREA,
        "projected-es256-audience-vault",
        &with_jwks(
            "projected-es256.jwt",
            &["--issuer", ISSUER, "--audience", "vault"],
        ),
    );
    check(
        AREA,
        "token-request-es384",
        &with_jwks("token-request-es384.jwt", &EXPECT),
    );
    // No --issuer/--audience: valid, with those two not checked.
    check(
        AREA,
        "projected-unchecked",
        &with_jwks("projected.jwt", &[]),
    );
}

#[test]
fn pem_keys() {
    let keys: Vec<String> = ["rsa", "ec256", "ec384", "rsa-rotated"]
        .iter()
        .flat_map(|k| ["--key".to_owned(), format!("testdata/keys/{k}.pub.pem")])
        .collect();
    for file in ["projected.jwt", "rotated-key.jwt"] {
        let name = format!("pem-{}", file.trim_end_matches(".jwt"));
        let path = format!("testdata/tokens/{file}");
        check(
            AREA,
            &name,
            &Invocation::new(&["verify", "--now", NOW, "-f", &path]).args(&keys),
        );
    }
    // Three keys in one file: the third verifies.
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for file in ["ec384.pub.pem", "rsa-rotated.pub.pem", "rsa.pub.pem"] {
        text.push_str(
            &std::fs::read_to_string(crate_dir().join("testdata/keys").join(file)).unwrap(),
        );
    }
    let pem = dir.path().join("sa.pub");
    std::fs::write(&pem, text).unwrap();
    check(
        AREA,
        "pem-three-keys-in-one-file",
        &Invocation::new(&[
            "verify",
            "--now",
            NOW,
            "-f",
            "testdata/tokens/projected.jwt",
        ])
        .args(&["--key", &pem.display().to_string()])
        .redact(Redact::default().temp(dir.path())),
    );
}

#[test]
fn failures() {
    check(AREA, "expired", &with_jwks("expired.jwt", &EXPECT));
    check(
        AREA,
        "unknown-kid-no-usable-key",
        &with_jwks("rotated-key.jwt", &EXPECT),
    );
    check(
        AREA,
        "wrong-issuer",
        &with_jwks(
            "projected.jwt",
            &[
                "--issuer",
                "https://other.example",
                "--issuer",
                "https://third.example",
            ],
        ),
    );
    check(
        AREA,
        "no-shared-audience",
        &with_jwks(
            "projected.jwt",
            &["--audience", "vault", "--audience", "api"],
        ),
    );
    check(AREA, "alg-none", &with_jwks("alg-none.jwt", &EXPECT));
    check(AREA, "hs256", &with_jwks("hs256.jwt", &EXPECT));
}

/// Claims valid at NOW, in the shape tests/it/verify.rs signs.
fn claims() -> Value {
    let now = crate::support::base().timestamp();
    json!({"aud": [ISSUER], "exp": now + 3570, "iat": now - 30, "nbf": now - 30,
           "iss": ISSUER,
           "kubernetes.io": {"namespace": "shop", "serviceaccount": {"name": "checkout", "uid": "u"}},
           "sub": "system:serviceaccount:shop:checkout"})
}

#[test]
fn unknown_kid_with_the_right_key_in_the_set() {
    let token = tokens::sign_with_kid(&claims(), "old-kid-from-an-external-signer");
    check(
        AREA,
        "unknown-kid-right-key",
        &Invocation::new(&["verify", "--now", NOW, "--jwks", JWKS])
            .args(&EXPECT)
            .stdin("token-with-kid-old-kid-from-an-external-signer.jwt", token),
    );
}

#[test]
fn tampered_payload_and_signature() {
    let (payload, signature) = tokens::tampered(&fixture("projected.jwt"));
    for (name, token) in [
        ("tampered-payload", payload),
        ("tampered-signature", signature),
    ] {
        check(
            AREA,
            name,
            &Invocation::new(&["verify", "--now", NOW, "--jwks", JWKS])
                .args(&EXPECT)
                .stdin(&format!("{name}.jwt"), token),
        );
    }
}

#[test]
fn skipped_key_types_and_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(crate_dir().join(JWKS)).unwrap()).unwrap();
    let keys = doc["keys"].as_array_mut().unwrap();
    keys.insert(
        0,
        json!({"kty": "OKP", "crv": "Ed25519", "kid": "ed-key", "use": "sig",
               "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}),
    );
    keys.push(json!({"kty": "oct", "kid": "shared-secret", "k": "c2VjcmV0"}));
    let mixed = dir.path().join("mixed.json");
    std::fs::write(&mixed, doc.to_string()).unwrap();
    let temp = Redact::default().temp(dir.path());
    let projected = [
        "verify",
        "--now",
        NOW,
        "-f",
        "testdata/tokens/projected.jwt",
    ];
    check(
        AREA,
        "jwks-with-okp-and-oct-keys",
        &Invocation::new(&projected)
            .args(&["--jwks", &mixed.display().to_string()])
            .redact(temp.clone()),
    );
    let truncated = dir.path().join("trunc.json");
    std::fs::write(&truncated, r#"{"keys": [{"kty": "RSA""#).unwrap();
    check(
        AREA,
        "jwks-not-json",
        &Invocation::new(&projected)
            .args(&["--jwks", &truncated.display().to_string()])
            .redact(temp),
    );
    check(
        AREA,
        "jwks-is-a-discovery-document",
        &Invocation::new(&projected).args(&["--jwks", "testdata/openid-configuration.json"]),
    );
    check(AREA, "no-keys-given", &Invocation::new(&projected));
}
