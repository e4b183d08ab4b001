//! Test tokens, signed at test time with testdata/keys/rsa.key.pem (published in
//! testdata/jwks.json), shaped like kube-apiserver's (no `typ`, claims as
//! pkg/serviceaccount/claims.go writes them).

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

/// `kid` of testdata/keys/rsa.key.pem, as published in testdata/jwks.json.
pub const RSA_KID: &str = "mbTcd_bTq-VEyLxWg1fU5YSdvr3TZTXIJULVYeBr_HU";
pub const ISSUER: &str = "https://kubernetes.default.svc.cluster.local";
pub const NAMESPACE: &str = "debug-lab";
pub const SA: &str = "reporter";
/// The uid of shop/checkout, the ServiceAccount of the bound fixtures in testdata/tokens.
pub const CHECKOUT_UID: &str = "3f1c2a4e-8d1b-4c55-9a2e-1b7f5d0c9e41";
/// The kid of testdata/jwks.json's P-256 key (a server that kept only it has
/// rotated the RSA key the test tokens are signed with away).
pub const ES256_KID: &str = "r9PKEiAR4r_Mo3LBhbOL3uGRffuMnGZ8HH5lCkYSJHU";
pub const SA_UID: &str = "0b7c1d52-6a3e-4f1b-9d2c-8e5f7a1b3c4d";
/// The uid of the ServiceAccount recreated under the same name ([`crate::support::apiserver::Config::recreate_service_account`]).
pub const RECREATED_SA_UID: &str = "9c4e7a10-0d2b-4b8e-a6f3-5e1d2c3b4a59";
pub const POD: &str = "reporter-6c9d7b8f5-q7x2m";
pub const POD_UID: &str = "7e4a2c91-1f3b-4d6e-8a5c-2b9d0e6f1a73";

/// Path under the crate root.
pub fn testdata(path: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(path)
}

/// A pod-bound projected token valid `[iat, iat + lifetime]`.
pub fn projected(iat: DateTime<Utc>, lifetime_s: i64) -> Value {
    let iat = iat.timestamp();
    json!({
        "aud": [ISSUER],
        "exp": iat + lifetime_s,
        "iat": iat,
        "iss": ISSUER,
        "jti": "5d0d7b43-5c1e-4d4a-9a7e-3c2b1a0f9e8d",
        "kubernetes.io": {
            "namespace": NAMESPACE,
            "pod": {"name": POD, "uid": POD_UID},
            "serviceaccount": {"name": SA, "uid": SA_UID}
        },
        "nbf": iat,
        "sub": format!("system:serviceaccount:{NAMESPACE}:{SA}")
    })
}

/// Signs claims with the published RSA key (RS256, kid set, no typ).
pub fn sign(claims: &Value) -> String {
    sign_with_kid(claims, RSA_KID)
}

/// Signs claims with the published RSA key under another `kid` (a token whose
/// key the JWKS has, but not under that name).
pub fn sign_with_kid(claims: &Value, kid: &str) -> String {
    let pem = std::fs::read(testdata("keys/rsa.key.pem")).expect("rsa key");
    let key = jsonwebtoken::EncodingKey::from_rsa_pem(&pem).expect("rsa key pem");
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::RS256);
    header.typ = None;
    header.kid = Some(kid.to_owned());
    jsonwebtoken::encode(&header, claims, &key).expect("sign")
}

/// A legacy Secret-based token (no time claims, `kubernetes/serviceaccount`
/// issuer) for the test ServiceAccount, naming Secret `reporter-token-x7k2p`.
pub fn legacy() -> String {
    sign(&json!({
        "iss": "kubernetes/serviceaccount",
        "kubernetes.io/serviceaccount/namespace": NAMESPACE,
        "kubernetes.io/serviceaccount/secret.name": "reporter-token-x7k2p",
        "kubernetes.io/serviceaccount/service-account.name": SA,
        "kubernetes.io/serviceaccount/service-account.uid": SA_UID,
        "sub": format!("system:serviceaccount:{NAMESPACE}:{SA}")
    }))
}

/// A token's claims, its signature unchecked; `None` if it has none to read.
pub fn unverified_claims(token: &str) -> Option<Value> {
    use base64::Engine as _;
    let payload = token.trim().split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// `raw` twice broken: (its payload's namespace rewritten to kube-system, the
/// signature kept; the last signature byte flipped, the payload kept).
pub fn tampered(raw: &str) -> (String, String) {
    use base64::Engine as _;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let parts: Vec<&str> = raw.trim().split('.').collect();
    let mut payload: Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
    payload["kubernetes.io"]["namespace"] = json!("kube-system");
    let payload = format!(
        "{}.{}.{}",
        parts[0],
        URL_SAFE_NO_PAD.encode(payload.to_string()),
        parts[2]
    );
    let mut sig = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
    let last = sig.len() - 1;
    sig[last] ^= 0x01;
    let signature = format!("{}.{}.{}", parts[0], parts[1], URL_SAFE_NO_PAD.encode(sig));
    (payload, signature)
}
