//! Generates `testdata/features/`: inputs for the Kubernetes 1.29–1.36 token
//! features — structured authentication configuration (with CEL rules), an
//! external signer's key and token, lifetime caps and the kubelet token without
//! its one-year grace, image-pull and CSI token documents, legacy-token labels,
//! an Azure federated credential, and the texts each component prints, in its
//! exact wording.
//!
//! Run: `cargo run --example gen_features`. Tokens are signed with
//! `testdata/keys/rsa.key.pem` (made by gen_fixtures) and with
//! `testdata/features/signer.key.pem`, an external signer's key created once and
//! then reused, so that regenerating gives the same RSA tokens. Tests pass
//! `--now 2026-01-01T00:00:00Z` (`NOW`).

use std::fs;
use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use jsonwebtoken::{Algorithm, EncodingKey, Header, encode, jwk::Jwk};
use rcgen::KeyPair;
use serde_json::{Value, json};

mod common;
use common::*;

const IDP: &str = "https://idp.example.com";
/// The external signer names its keys itself.
const SIGNER_KID: &str = "signer-key-2026-01";

struct Key {
    pem: String,
    kid: String,
}

impl Key {
    fn load(path: &Path) -> Key {
        let pem = fs::read_to_string(path).expect("run gen_fixtures first");
        let pair = KeyPair::from_pem(&pem).expect("key");
        Key {
            kid: kubernetes_kid(&pair),
            pem,
        }
    }

    fn sign_with(&self, kid: &str, claims: &Value) -> String {
        let mut header = Header::new(Algorithm::RS256);
        header.typ = None;
        header.kid = Some(kid.to_owned());
        let key = EncodingKey::from_rsa_pem(self.pem.as_bytes()).expect("rsa key");
        encode(&header, claims, &key).expect("sign")
    }

    fn sign(&self, claims: &Value) -> String {
        self.sign_with(&self.kid, claims)
    }
}

fn bound(iat: i64, exp: i64, pod: bool) -> Value {
    let mut k8s = json!({"namespace": NAMESPACE, "serviceaccount": {"name": SA, "uid": SA_UID}});
    if pod {
        k8s["pod"] = json!({"name": POD, "uid": POD_UID});
        k8s["node"] = json!({"name": NODE, "uid": NODE_UID});
    }
    json!({
        "aud": [ISSUER], "exp": exp, "iat": iat, "nbf": iat, "iss": ISSUER,
        "jti": format!("{:08x}-6a4d-4c3b-8f2e-1b0c9d8e7f6a", (iat - NOW).unsigned_abs()),
        "kubernetes.io": k8s,
        "sub": format!("system:serviceaccount:{NAMESPACE}:{SA}"),
    })
}

fn with(mut claims: Value, patch: Value) -> Value {
    for (k, v) in patch.as_object().expect("object") {
        claims[k] = v.clone();
    }
    claims
}

#[expect(
    clippy::too_many_lines,
    reason = "the list of feature fixtures, one after another, read top to bottom"
)]
fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let dir = root.join("features");
    fs::create_dir_all(dir.join("texts")).expect("mkdir");
    let rsa = Key::load(&root.join("keys/rsa.key.pem"));
    let signer_path = dir.join("signer.key.pem");
    if !signer_path.exists() {
        let pair = KeyPair::generate_for(&rcgen::PKCS_RSA_SHA256).expect("signer key");
        fs::write(&signer_path, pair.serialize_pem()).unwrap();
        fs::write(dir.join("signer.pub.pem"), pair.public_key_pem()).unwrap();
    }
    let signer = Key::load(&signer_path);
    let signer_jwk = {
        let key = EncodingKey::from_rsa_pem(signer.pem.as_bytes()).unwrap();
        let mut jwk =
            serde_json::to_value(Jwk::from_encoding_key(&key, Algorithm::RS256).unwrap()).unwrap();
        let obj = jwk.as_object_mut().unwrap();
        obj.insert("kid".into(), json!(SIGNER_KID));
        obj.insert("use".into(), json!("sig"));
        obj.insert("alg".into(), json!("RS256"));
        obj.retain(|k, v| !v.is_null() && k != "key_ops");
        jwk
    };
    // The signer publishes this key; an older one it keeps out of discovery.
    write_json(
        &dir.join("signer-jwks.json"),
        &json!({"keys": [signer_jwk]}),
    );

    let oidc = |patch: Value| {
        with(
            json!({"iss": IDP, "sub": "u-1042", "aud": ["kubernetes"], "iat": NOW - 60,
                "nbf": NOW - 60, "exp": NOW + 3540, "email": "alice@example.com",
                "email_verified": true, "hd": "example.com", "groups": ["dev", "oncall"],
                "jti": "4f1d2c3b-idp"}),
            patch,
        )
    };
    let tokens: Vec<(&str, String, &str)> = vec![
        (
            "oidc-ok",
            rsa.sign(&oidc(json!({}))),
            "an IdP token every rule of authn-config.yaml accepts",
        ),
        (
            "oidc-claim-rule",
            rsa.sign(&oidc(json!({"hd": "contractor.example.net"}))),
            "fails the claim validation rule on hd",
        ),
        (
            "oidc-audience",
            rsa.sign(&oidc(json!({"aud": ["vault"]}))),
            "an audience none of the authenticator's",
        ),
        (
            "oidc-email-unverified",
            rsa.sign(&oidc(json!({"email_verified": false}))),
            "email_verified false",
        ),
        (
            "oidc-other-issuer",
            rsa.sign(&oidc(json!({"iss": "https://login.other.example"}))),
            "an issuer no authenticator has",
        ),
        (
            "external-signer",
            signer.sign_with(SIGNER_KID, &bound(NOW - 30, NOW + 3570, false)),
            "signed by an external signer that names its key signer-key-2026-01",
        ),
        (
            "projected-no-grace",
            rsa.sign(&bound(NOW - 600, NOW - 600 + 3607, true)),
            "the kubelet's token with extended expiry off (3607 s, no warnafter)",
        ),
        (
            "projected-capped",
            rsa.sign(&bound(NOW - 600, NOW - 600 + 3600, true)),
            "the kubelet's token shortened to a 3600 s cap",
        ),
        (
            "azure-workload",
            rsa.sign(&with(
                bound(NOW - 30, NOW + 3570, true),
                json!({"aud": ["api://AzureADTokenExchange"]}),
            )),
            "projected for Azure workload identity",
        ),
    ];
    let mut index = String::from(
        "# Feature fixtures\n\nGenerated by `cargo run --example gen_features`; designed around\n\
         `--now 2026-01-01T00:00:00Z`. RSA tokens use `../keys/rsa.key.pem` (published in\n\
         `../jwks.json`); `external-signer.jwt` uses `signer.key.pem`, published in\n\
         `signer-jwks.json` under kid `signer-key-2026-01`.\n\n| file | what |\n|---|---|\n",
    );
    for (name, token, what) in &tokens {
        fs::write(dir.join(format!("{name}.jwt")), format!("{token}\n")).unwrap();
        index.push_str(&format!("| `{name}.jwt` | {what} |\n"));
    }
    let token = |name: &str| tokens.iter().find(|t| t.0 == name).unwrap().1.clone();

    // Structured authentication configuration: two JWT authenticators.
    fs::write(
        dir.join("authn-config.yaml"),
        format!(
            r#"apiVersion: apiserver.config.k8s.io/v1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: {IDP}
    audiences: [kubernetes, kubectl]
    audienceMatchPolicy: MatchAny
  claimValidationRules:
  - claim: hd
    requiredValue: example.com
  - expression: "claims.email_verified == true"
    message: "the email address must be verified"
  - expression: "!claims.sub.startsWith('system:')"
    message: "subjects may not look like Kubernetes users"
  claimMappings:
    username:
      expression: "'idp:' + claims.email"
    groups:
      claim: groups
      prefix: "idp:"
    uid:
      claim: sub
    extra:
    - key: example.com/tenant
      valueExpression: "claims.hd"
  userValidationRules:
  - expression: "!user.username.startsWith('system:')"
    message: "usernames may not start with system:"
- issuer:
    url: https://token.actions.githubusercontent.com
    audiences: [https://kubernetes.example.com]
  claimValidationRules:
  - expression: "sets.equivalent(claims.aud, ['https://kubernetes.example.com'])"
    message: "exactly one audience"
  claimMappings:
    username:
      claim: sub
      prefix: "github:"
"#
        ),
    )
    .unwrap();

    // Lifetime caps: a TokenRequest asked for a year, issued for 48 hours.
    let capped = rsa.sign(&bound(NOW - 30, NOW - 30 + 172_800, false));
    write_json(
        &dir.join("token-request-shortened.json"),
        &json!({
            "kind": "TokenRequest", "apiVersion": "authentication.k8s.io/v1",
            "metadata": {"name": SA, "namespace": NAMESPACE, "creationTimestamp": null},
            "spec": {"audiences": null, "expirationSeconds": 31_536_000, "boundObjectRef": null},
            "status": {"token": capped, "expirationTimestamp": "2026-01-02T23:59:30Z"},
        }),
    );
    // Image pull with a ServiceAccount token (KEP-4412).
    let registry = rsa.sign(&with(
        bound(NOW - 5, NOW + 3595, true),
        json!({"aud": ["registry.example.com"]}),
    ));
    write_json(
        &dir.join("credential-provider-request.json"),
        &json!({
            "apiVersion": "credentialprovider.kubelet.k8s.io/v1",
            "kind": "CredentialProviderRequest",
            "image": "registry.example.com/shop/checkout:1.4.2",
            "serviceAccountToken": registry,
            "serviceAccountAnnotations": {"registry.example.com/role": "pull-shop"},
        }),
    );
    // CSI: one token per audience, in the volume context (a JSON string) and
    // in the secrets field (1.35+).
    let vault = rsa.sign(&with(
        bound(NOW - 5, NOW + 3595, true),
        json!({"aud": ["vault"]}),
    ));
    let azure = token("azure-workload");
    let csi = json!({
        "vault": {"token": vault, "expirationTimestamp": "2026-01-01T00:59:55Z"},
        "api://AzureADTokenExchange": {"token": azure, "expirationTimestamp": "2026-01-01T00:59:30Z"},
    });
    write_json(
        &dir.join("csi-volume-context.json"),
        &json!({"volume_context": {
            "csi.storage.k8s.io/pod.name": POD,
            "csi.storage.k8s.io/pod.namespace": NAMESPACE,
            "csi.storage.k8s.io/serviceAccount.name": SA,
            "csi.storage.k8s.io/serviceAccount.tokens": csi.to_string(),
        }}),
    );
    write_json(
        &dir.join("csi-secrets.json"),
        &json!({"secrets": {"csi.storage.k8s.io/serviceAccount.tokens": csi.to_string()}}),
    );
    // A legacy token the cleaner marked invalid.
    let legacy = rsa.sign_with(
        "",
        &json!({
            "iss": "kubernetes/serviceaccount",
            "kubernetes.io/serviceaccount/namespace": NAMESPACE,
            "kubernetes.io/serviceaccount/secret.name": format!("{SA}-token-q8z4m"),
            "kubernetes.io/serviceaccount/service-account.name": SA,
            "kubernetes.io/serviceaccount/service-account.uid": SA_UID,
            "sub": format!("system:serviceaccount:{NAMESPACE}:{SA}"),
        }),
    );
    write_json(
        &dir.join("legacy-secret-invalid.json"),
        &json!({
            "apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/service-account-token",
            "metadata": {
                "name": format!("{SA}-token-q8z4m"), "namespace": NAMESPACE,
                "annotations": {"kubernetes.io/service-account.name": SA},
                "labels": {
                    "kubernetes.io/legacy-token-last-used": "2024-05-30",
                    "kubernetes.io/legacy-token-invalid-since": "2025-06-01",
                },
            },
            "data": {"namespace": STANDARD.encode(NAMESPACE), "token": STANDARD.encode(legacy)},
        }),
    );
    // An Azure federated identity credential (az identity federated-credential show).
    write_json(
        &dir.join("federated-credential.json"),
        &json!({
            "name": "checkout-prod",
            "issuer": ISSUER,
            "subject": "system:serviceaccount:prod:checkout",
            "audiences": ["api://AzureADTokenExchange"],
            "type": "Microsoft.ManagedIdentity/userAssignedIdentities/federatedIdentityCredentials",
        }),
    );

    // What each component prints, in its exact words.
    let refusal = format!(
        "serviceaccounts \"{SA}\" is forbidden: audience \"registry.example.com\" not found in pod spec volume, system:node:{NODE} is not authorized to request tokens for this audience"
    );
    let texts: Vec<(&str, String)> = vec![
        (
            "node-audience-403.json",
            json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": refusal, "reason": "Forbidden",
                "details": {"name": SA, "kind": "serviceaccounts"}, "code": 403})
            .to_string()
                + "\n",
        ),
        (
            "kubelet-image-pull.log",
            format!(
                "E0101 00:00:05.123456    2317 plugin.go:312] \"Error getting service account token {NAMESPACE}/{SA}: {refusal}\"\n"
            ),
        ),
        (
            "node-audiences-several.txt",
            format!("serviceaccounts \"{SA}\" is forbidden: node may only request 0 or 1 audiences\n"),
        ),
        (
            "kubectl-shortened.txt",
            "Warning: requested expiration of 31536000 seconds shortened to 172800 seconds\n".to_owned(),
        ),
        (
            "client-go-shortened.log",
            "W0101 00:00:00.000000   96628 warnings.go:70] requested expiration of 31536000 seconds shortened to 172800 seconds\n".to_owned(),
        ),
        (
            "apiserver-oidc-claim-rule.log",
            "E0101 00:00:01.000000       1 authentication.go:75] \"Unable to authenticate the request\" err=\"[invalid bearer token, oidc: error evaluating claim validation expression: validation expression 'claims.email_verified == true' failed: the email address must be verified]\"\n".to_owned(),
        ),
        (
            "apiserver-oidc-audience.log",
            "E0101 00:00:01.000000       1 authentication.go:75] \"Unable to authenticate the request\" err=\"[invalid bearer token, oidc: verify token: oidc: expected audience in [\\\"kubectl\\\" \\\"kubernetes\\\"] got [\\\"vault\\\"]]\"\n".to_owned(),
        ),
        (
            "external-signer-excluded.txt",
            format!("failed to generate token: while validating header: key used for signing JWT (kid: {SIGNER_KID}) is excluded from OIDC discovery docs\n"),
        ),
    ];
    for (name, text) in &texts {
        fs::write(dir.join("texts").join(name), text).unwrap();
    }
    index.push_str(
        "\nDocuments: `authn-config.yaml` (two JWT authenticators, CEL rules; the second uses\n\
         `sets.equivalent`, which this tool does not evaluate), `token-request-shortened.json`\n\
         (asked a year, issued 48 h), `credential-provider-request.json` (KEP-4412),\n\
         `csi-volume-context.json` and `csi-secrets.json` (two audiences), `legacy-secret-invalid.json`\n\
         (invalid-since label), `federated-credential.json` (Azure; expects namespace prod),\n\
         `signer-jwks.json`, `signer.pub.pem`. Texts in `texts/`: each component's wording.\n",
    );
    fs::write(dir.join("README.md"), index).unwrap();
    println!(
        "wrote {} tokens and {} texts under {}",
        tokens.len(),
        texts.len(),
        dir.display()
    );
}
