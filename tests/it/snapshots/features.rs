//! Snapshots of the 1.29–1.36 token features, on testdata/features/ (made by
//! `cargo run --example gen_features`): `decode` with an authentication
//! configuration (accepted, a failing claim rule, a foreign audience, email not
//! verified, no authenticator), the kubelet's token without its grace and
//! shortened, a shortened TokenRequest, an image pull's CredentialProviderRequest,
//! CSI token maps in the volume context and the secrets field, a legacy Secret
//! marked invalid; `verify` of an external signer's token and against an Azure
//! federated credential; `explain` of the new causes.

use super::{Invocation, NOW, check};

const AREA: &str = "features";
const CONFIG: &str = "testdata/features/authn-config.yaml";

fn decode(file: &str, args: &[&str]) -> Invocation {
    let path = format!("testdata/features/{file}");
    Invocation::new(&["decode", "--now", NOW, "-f", &path]).args(args)
}

#[test]
fn decode_with_an_authentication_configuration() {
    for file in [
        "oidc-ok",
        "oidc-claim-rule",
        "oidc-audience",
        "oidc-email-unverified",
        "oidc-other-issuer",
    ] {
        check(
            AREA,
            &format!("decode-authn-{file}"),
            &decode(&format!("{file}.jwt"), &["--authentication-config", CONFIG]),
        );
    }
}

#[test]
fn decode_lifetimes_documents_and_labels() {
    for file in [
        "projected-no-grace.jwt",
        "projected-capped.jwt",
        "external-signer.jwt",
        "token-request-shortened.json",
        "credential-provider-request.json",
        "csi-volume-context.json",
        "csi-secrets.json",
        "legacy-secret-invalid.json",
    ] {
        check(AREA, &format!("decode-{file}"), &decode(file, &[]));
    }
}

#[test]
fn verify_external_signer_and_trust_policy() {
    let signer = ["-f", "testdata/features/external-signer.jwt"];
    check(
        AREA,
        "verify-external-signer-pem",
        &Invocation::new(&[
            "verify",
            "--now",
            NOW,
            "--key",
            "testdata/features/signer.pub.pem",
        ])
        .args(&signer),
    );
    check(
        AREA,
        "verify-external-signer-cluster-jwks",
        &Invocation::new(&["verify", "--now", NOW, "--jwks", "testdata/jwks.json"]).args(&signer),
    );
    check(
        AREA,
        "verify-federated-credential",
        &Invocation::new(&[
            "verify",
            "--now",
            NOW,
            "--jwks",
            "testdata/jwks.json",
            "-f",
            "testdata/features/azure-workload.jwt",
            "--federated-credential",
            "testdata/features/federated-credential.json",
        ]),
    );
    check(
        AREA,
        "verify-expect-flags",
        &Invocation::new(&[
            "verify",
            "--now",
            NOW,
            "--jwks",
            "testdata/jwks.json",
            "-f",
            "testdata/features/azure-workload.jwt",
            "--expect-subject",
            "system:serviceaccount:shop:checkout",
            "--expect-audience",
            "api://AzureADTokenExchange",
        ]),
    );
    check(
        AREA,
        "verify-authn-config",
        &Invocation::new(&[
            "verify",
            "--now",
            NOW,
            "--jwks",
            "testdata/jwks.json",
            "-f",
            "testdata/features/oidc-claim-rule.jwt",
            "--authentication-config",
            CONFIG,
        ]),
    );
}

#[test]
fn explain_the_new_causes() {
    for cause in ["jwt-authenticator-rejected", "node-audience-not-allowed"] {
        check(
            AREA,
            &format!("explain-{cause}"),
            &Invocation::new(&["explain", cause]),
        );
    }
}
