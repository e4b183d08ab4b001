//! Generates everything under `testdata/`: signing keys (RSA 2048, P-256,
//! P-384, plus a "rotated" RSA key that the cluster no longer publishes), the
//! cluster's JWKS and discovery document, and tokens of every kind and flaw.
//!
//! Run: `cargo run --example gen_fixtures` (rewrites testdata/keys and
//! testdata/tokens). Tests pass `--now 2026-01-01T00:00:00Z` (`NOW` below), so the
//! fixtures never expire in CI. Keys are random: regenerating changes every
//! token, which is fine because nothing else embeds them.

use std::fs;
use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE, URL_SAFE_NO_PAD};
use jsonwebtoken::{Algorithm, EncodingKey, Header, encode, jwk::Jwk};
use rcgen::KeyPair;
use serde_json::{Value, json};

mod common;
use common::*;

const SECRET_UID: &str = "c81e728d-9d4c-4f63-8b1a-5e2d7f0a3b96";

struct Key {
    name: &'static str,
    pair: KeyPair,
    alg: Algorithm,
    kid: String,
}

impl Key {
    fn generate(name: &'static str, alg: Algorithm) -> Key {
        let rcgen_alg = match alg {
            Algorithm::RS256 => &rcgen::PKCS_RSA_SHA256,
            Algorithm::ES256 => &rcgen::PKCS_ECDSA_P256_SHA256,
            Algorithm::ES384 => &rcgen::PKCS_ECDSA_P384_SHA384,
            other => panic!("no generator for {other:?}"),
        };
        let pair = KeyPair::generate_for(rcgen_alg).expect("key generation");
        let kid = kubernetes_kid(&pair);
        Key {
            name,
            pair,
            alg,
            kid,
        }
    }

    fn encoding_key(&self) -> EncodingKey {
        let pem = self.pair.serialize_pem();
        match self.alg {
            Algorithm::RS256 => EncodingKey::from_rsa_pem(pem.as_bytes()),
            _ => EncodingKey::from_ec_pem(pem.as_bytes()),
        }
        .expect("encoding key")
    }

    fn jwk(&self) -> Value {
        let mut jwk = serde_json::to_value(
            Jwk::from_encoding_key(&self.encoding_key(), self.alg).expect("jwk"),
        )
        .expect("jwk json");
        let obj = jwk.as_object_mut().expect("object");
        obj.insert("kid".into(), json!(self.kid));
        obj.insert("use".into(), json!("sig"));
        obj.insert("alg".into(), json!(format!("{:?}", self.alg)));
        obj.retain(|k, v| {
            !v.is_null() && k != "key_ops" && k != "x5c" && k != "x5t" && k != "x5t#S256"
        });
        jwk
    }

    fn sign(&self, claims: &Value) -> String {
        let mut header = Header::new(self.alg);
        header.typ = None; // kube-apiserver writes only alg and kid
        header.kid = Some(self.kid.clone());
        encode(&header, claims, &self.encoding_key()).expect("sign")
    }
}

fn b64(value: &Value) -> String {
    URL_SAFE_NO_PAD.encode(value.to_string())
}

fn bound(iat: i64, exp: i64, pod: bool, extra: Value) -> Value {
    let mut k8s = json!({"namespace": NAMESPACE, "serviceaccount": {"name": SA, "uid": SA_UID}});
    if pod {
        k8s["pod"] = json!({"name": POD, "uid": POD_UID});
        k8s["node"] = json!({"name": NODE, "uid": NODE_UID});
    }
    let mut claims = json!({
        "aud": [ISSUER], "exp": exp, "iat": iat, "nbf": iat, "iss": ISSUER,
        "jti": format!("{:08x}-5f3c-4b2a-9e1d-7a6b5c4d3e2f", (iat - NOW).unsigned_abs()),
        "kubernetes.io": k8s,
        "sub": format!("system:serviceaccount:{NAMESPACE}:{SA}"),
    });
    merge(&mut claims, extra);
    claims
}

fn merge(target: &mut Value, patch: Value) {
    match (target, patch) {
        (Value::Object(t), Value::Object(p)) => {
            for (k, v) in p {
                if v.is_null() {
                    t.remove(&k);
                } else {
                    merge(t.entry(k).or_insert(Value::Null), v);
                }
            }
        }
        (t, p) => *t = p,
    }
}

fn legacy_claims() -> Value {
    json!({
        "iss": "kubernetes/serviceaccount",
        "kubernetes.io/serviceaccount/namespace": NAMESPACE,
        "kubernetes.io/serviceaccount/secret.name": format!("{SA}-token-7xk2p"),
        "kubernetes.io/serviceaccount/service-account.name": SA,
        "kubernetes.io/serviceaccount/service-account.uid": SA_UID,
        "sub": format!("system:serviceaccount:{NAMESPACE}:{SA}"),
    })
}

#[expect(
    clippy::too_many_lines,
    reason = "the list of token fixtures, one after another, read top to bottom"
)]
fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let keys_dir = root.join("keys");
    let tokens_dir = root.join("tokens");
    for dir in [&keys_dir, &tokens_dir] {
        fs::create_dir_all(dir).expect("mkdir");
    }
    let rsa = Key::generate("rsa", Algorithm::RS256);
    let ec256 = Key::generate("ec256", Algorithm::ES256);
    let ec384 = Key::generate("ec384", Algorithm::ES384);
    let rotated = Key::generate("rsa-rotated", Algorithm::RS256);
    for key in [&rsa, &ec256, &ec384, &rotated] {
        fs::write(
            keys_dir.join(format!("{}.key.pem", key.name)),
            key.pair.serialize_pem(),
        )
        .unwrap();
        fs::write(
            keys_dir.join(format!("{}.pub.pem", key.name)),
            key.pair.public_key_pem(),
        )
        .unwrap();
    }
    // What `kubectl get --raw /openid/v1/jwks` returns: the keys the cluster verifies with.
    let jwks = json!({"keys": [rsa.jwk(), ec256.jwk(), ec384.jwk()]});
    write_json(&root.join("jwks.json"), &jwks);
    write_json(
        &root.join("openid-configuration.json"),
        &json!({
            "issuer": ISSUER,
            "jwks_uri": "https://172.18.0.2:6443/openid/v1/jwks",
            "response_types_supported": ["id_token"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["ES256", "ES384", "RS256"],
        }),
    );

    let extended = |iat: i64| {
        bound(
            iat,
            iat + 31_536_000,
            true,
            json!({"kubernetes.io": {"warnafter": iat + 3607}}),
        )
    };
    let mut tokens: Vec<(&str, String, &str)> = vec![
        ("projected", rsa.sign(&extended(NOW - 600)), "kubelet-mounted, extended expiry, 10 min old"),
        ("projected-stale", rsa.sign(&extended(NOW - 7200)), "kubelet-mounted, past warnafter"),
        (
            "projected-es256",
            ec256.sign(&bound(NOW - 600, NOW - 600 + 3607, true, json!({"aud": ["vault"]}))),
            "pod-bound with a custom audience, ES256",
        ),
        ("token-request", rsa.sign(&bound(NOW - 30, NOW + 3570, false, json!({}))), "kubectl create token"),
        (
            "token-request-es384",
            ec384.sign(&bound(NOW - 30, NOW + 3570, false, json!({}))),
            "kubectl create token, ES384",
        ),
        (
            "token-request-secret-bound",
            rsa.sign(&bound(NOW - 30, NOW + 3570, false,
                json!({"kubernetes.io": {"secret": {"name": format!("{SA}-bound"), "uid": SECRET_UID}}}))),
            "kubectl create token --bound-object-kind Secret",
        ),
        (
            "token-request-node-bound",
            rsa.sign(&bound(NOW - 30, NOW + 3570, false,
                json!({"kubernetes.io": {"node": {"name": NODE, "uid": NODE_UID}}}))),
            "kubectl create token --bound-object-kind Node",
        ),
        ("legacy-secret", sign_with_kid(&rsa, "", &legacy_claims()), "legacy Secret token, kid \"\""),
        ("expired", rsa.sign(&bound(NOW - 7200, NOW - 3593, true, json!({}))), "expired an hour ago"),
        (
            "not-yet-valid",
            rsa.sign(&bound(NOW + 90, NOW + 90 + 3607, true, json!({}))),
            "minted by an API server whose clock runs 90 s ahead",
        ),
        (
            "issued-in-future",
            rsa.sign(&bound(NOW + 120, NOW + 3720, false, json!({"nbf": null}))),
            "iat 120 s ahead and no nbf",
        ),
        ("expires-soon", rsa.sign(&bound(NOW - 3300, NOW + 300, false, json!({}))), "5 minutes left"),
        (
            "fractional-times",
            rsa.sign(&bound(NOW - 30, NOW + 3570, false, json!({"exp": (NOW + 3570) as f64 + 0.75}))),
            "exp with a fraction",
        ),
        (
            "newer-format",
            rsa.sign(&bound(NOW - 30, NOW + 3570, false,
                json!({"kubernetes.io": {"validatingwebhookconfiguration": {"name": "w", "uid": "u"}}}))),
            "unknown kubernetes.io key (1.37 webhook binding)",
        ),
        (
            "no-audience",
            rsa.sign(&bound(NOW - 30, NOW + 3570, false, json!({"aud": null}))),
            "bound token without aud",
        ),
        (
            "subject-mismatch",
            sign_with_kid(&rsa, "", &{
                let mut c = legacy_claims();
                c["sub"] = json!("system:serviceaccount:shop:admin");
                c
            }),
            "legacy token whose sub names another account",
        ),
        (
            "rotated-key",
            rotated.sign(&bound(NOW - 30, NOW + 3570, false, json!({}))),
            "signed by a key the cluster no longer publishes",
        ),
        (
            "oidc",
            rsa.sign(&json!({"iss": "https://accounts.example.com", "sub": "alice@example.com",
                "aud": "kubernetes", "iat": NOW - 60, "exp": NOW + 3540, "email": "alice@example.com"})),
            "an OIDC id token: not a ServiceAccount token",
        ),
    ];
    // Hand-built flaws that no signing library produces.
    let plain = bound(NOW - 30, NOW + 3570, false, json!({}));
    tokens.push((
        "alg-none",
        format!("{}.{}.", b64(&json!({"alg": "none"})), b64(&plain)),
        "alg none",
    ));
    tokens.push((
        "unsigned",
        format!(
            "{}.{}.",
            b64(&json!({"alg": "RS256", "kid": rsa.kid})),
            b64(&plain)
        ),
        "RS256 header, empty signature",
    ));
    let hs = encode(
        &Header {
            typ: None,
            ..Header::new(Algorithm::HS256)
        },
        &plain,
        &EncodingKey::from_secret(b"not-a-kubernetes-key"),
    )
    .unwrap();
    tokens.push(("hs256", hs, "HMAC-signed"));
    let signed = rsa.sign(&plain);
    let mut parts = signed.split('.');
    let (h, p, s) = (
        parts.next().unwrap(),
        parts.next().unwrap(),
        parts.next().unwrap(),
    );
    let repad = |seg: &str| URL_SAFE.encode(URL_SAFE_NO_PAD.decode(seg).unwrap());
    tokens.push((
        "padded",
        format!("{}.{}.{}", repad(h), repad(p), repad(s)),
        "base64 with = padding",
    ));

    let mut index = String::from(
        "# Fixture tokens\n\nGenerated by `cargo run --example gen_fixtures`; designed around\n\
         `--now 2026-01-01T00:00:00Z`. Keys in `keys/`; `../jwks.json` publishes rsa, ec256 and ec384\n\
         (not rsa-rotated).\n\n| file | what |\n|---|---|\n",
    );
    for (name, token, what) in &tokens {
        fs::write(tokens_dir.join(format!("{name}.jwt")), format!("{token}\n")).unwrap();
        index.push_str(&format!("| `{name}.jwt` | {what} |\n"));
    }
    let token = |name: &str| tokens.iter().find(|t| t.0 == name).unwrap().1.clone();

    // Other input shapes wrapping real tokens.
    fs::write(
        tokens_dir.join("bearer.txt"),
        format!("Bearer {}\n", token("token-request")),
    )
    .unwrap();
    fs::write(
        tokens_dir.join("authorization-header.txt"),
        format!("Authorization: Bearer {}\n", token("projected")),
    )
    .unwrap();
    fs::write(
        tokens_dir.join("authorization-extra-space.txt"),
        format!("Authorization: Bearer  {}\n", token("projected")),
    )
    .unwrap();
    write_json(
        &tokens_dir.join("token-request.json"),
        &json!({
            "kind": "TokenRequest", "apiVersion": "authentication.k8s.io/v1",
            "metadata": {"name": SA, "namespace": NAMESPACE, "creationTimestamp": null},
            "spec": {"audiences": [ISSUER], "expirationSeconds": 3600, "boundObjectRef": null},
            "status": {"token": token("token-request"), "expirationTimestamp": "2026-01-01T00:59:30Z"},
        }),
    );
    write_json(
        &tokens_dir.join("legacy-secret.json"),
        &json!({
            "apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/service-account-token",
            "metadata": {
                "name": format!("{SA}-token-7xk2p"), "namespace": NAMESPACE,
                "annotations": {"kubernetes.io/service-account.name": SA, "kubernetes.io/service-account.uid": SA_UID},
                "labels": {"kubernetes.io/legacy-token-last-used": "2025-12-30"},
            },
            "data": {
                "ca.crt": STANDARD.encode("-----BEGIN CERTIFICATE-----\n(test CA)\n-----END CERTIFICATE-----\n"),
                "namespace": STANDARD.encode(NAMESPACE),
                "token": STANDARD.encode(token("legacy-secret")),
            },
        }),
    );
    // A batch: one token per line, line 4 is not a token.
    let batch = [
        token("projected"),
        token("token-request"),
        token("expired"),
        "this-is-not-a-token".to_owned(),
        String::new(),
        format!("Bearer {}", token("legacy-secret")),
    ];
    fs::write(tokens_dir.join("batch.txt"), batch.join("\n") + "\n").unwrap();
    index.push_str(
        "\nOther shapes: `bearer.txt`, `authorization-header.txt`, `authorization-extra-space.txt`,\n\
         `token-request.json` (TokenRequest response), `legacy-secret.json` (Secret), `batch.txt`\n\
         (six lines; line 4 is not a token, line 5 is blank).\n",
    );
    fs::write(tokens_dir.join("README.md"), index).unwrap();
    println!(
        "wrote {} tokens and 4 keys under {}",
        tokens.len(),
        root.display()
    );
}

fn sign_with_kid(key: &Key, kid: &str, claims: &Value) -> String {
    let mut header = Header::new(key.alg);
    header.typ = None;
    header.kid = Some(kid.to_owned());
    encode(&header, claims, &key.encoding_key()).unwrap()
}
