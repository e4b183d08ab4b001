//! `verify` arguments.

use std::path::PathBuf;

use clap::Args;

use super::{TlsArgs, TokenArgs};

pub(super) const EXAMPLES: &str = "\
Keys: a JWKS as the cluster publishes it, and/or PEM files as kube-apiserver's
--service-account-key-file takes them (public keys, certificates, or private keys,
of which only the public half is used). Each key's Kubernetes key id
(base64url(SHA-256(DER SubjectPublicKeyInfo))) is shown so it can be matched with
the token's kid.

Examples:
  kubectl get --raw /openid/v1/jwks > jwks.json
  kubectl satoken verify -f token.jwt --jwks jwks.json \\
      --issuer https://kubernetes.default.svc.cluster.local \\
      --audience https://kubernetes.default.svc.cluster.local
  kubectl get --raw /openid/v1/jwks | kubectl satoken verify --jwks -   # in a pod
  kubectl satoken verify -f token.jwt --key /etc/kubernetes/pki/sa.pub -o json
  # what an Azure workload identity trust expects of the token
  kubectl satoken verify -f token.jwt --jwks jwks.json --federated-credential fc.json
  kubectl satoken verify -f id.jwt --jwks idp-jwks.json --authentication-config authn.yaml
  # in a pod: the cluster's own keys, over the mounted CA
  kubectl satoken verify --jwks https://kubernetes.default.svc/.well-known/openid-configuration

Exit codes: 0 valid, 1 invalid (a check failed), 2 bad input (unreadable or
malformed token, JWKS or PEM), 3 the keys could not be fetched from the URL.";

#[derive(Debug, Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub token: TokenArgs,

    /// A JWKS file (`kubectl get --raw /openid/v1/jwks`), `-` for stdin (the token
    /// must then come from TOKEN, -f FILE or the in-pod default), or an https:// URL:
    /// the cluster's /openid/v1/jwks, or its /.well-known/openid-configuration,
    /// followed to jwks_uri. URLs are fetched without the token first, and with it
    /// (same origin, verified TLS) only if the server asks for authentication.
    #[arg(
        hide_short_help = true,
        long,
        value_name = "FILE|URL",
        required_unless_present = "keys"
    )]
    pub jwks: Option<PathBuf>,

    /// A PEM file of public keys (RSA or EC), certificates or private keys, as
    /// kube-apiserver's --service-account-key-file; repeat for several files.
    #[arg(hide_short_help = true, long = "key", value_name = "PEM_FILE")]
    pub keys: Vec<PathBuf>,

    /// An issuer the token may carry (kube-apiserver --service-account-issuer);
    /// repeat for several. Without it the issuer is not checked.
    #[arg(hide_short_help = true, long = "issuer", value_name = "ISS")]
    pub issuers: Vec<String>,

    /// An audience the API server accepts (--api-audiences); the token must share
    /// at least one. Repeat for several. Without it the audience is not checked.
    #[arg(hide_short_help = true, long = "audience", value_name = "AUD")]
    pub audiences: Vec<String>,

    /// kube-apiserver's --authentication-config file: the JWT authenticator the
    /// token's issuer routes to, its audiences, claim mappings and CEL rules,
    /// evaluated offline (an added check, authn-config).
    #[arg(hide_short_help = true, long, value_name = "FILE")]
    pub authentication_config: Option<PathBuf>,

    /// The issuer a cloud trust policy expects (exact match).
    #[arg(hide_short_help = true, long, value_name = "ISS")]
    pub expect_issuer: Option<String>,

    /// The subject a cloud trust policy expects
    /// (system:serviceaccount:NAMESPACE:NAME, exact match).
    #[arg(hide_short_help = true, long, value_name = "SUB")]
    pub expect_subject: Option<String>,

    /// An audience a cloud trust policy expects (the token must carry one);
    /// repeat for several.
    #[arg(hide_short_help = true, long = "expect-audience", value_name = "AUD")]
    pub expect_audiences: Vec<String>,

    /// An Azure federated identity credential as JSON (az identity
    /// federated-credential show): its issuer, subject and audiences are the
    /// expectations. --expect-* flags override its fields.
    #[arg(hide_short_help = true, long, value_name = "FILE")]
    pub federated_credential: Option<PathBuf>,

    #[command(flatten)]
    pub tls: TlsArgs,
}
