//! `decode` arguments.

use std::path::PathBuf;

use clap::Args;

use super::TokenArgs;

pub(super) const EXAMPLES: &str = "\
Input: a JWT, `Bearer <jwt>`, an `Authorization: Bearer <jwt>` line, TokenRequest
JSON (status.token; spec.expirationSeconds is compared with the lifetime issued),
a Secret as JSON (data.token, and its legacy-token tracking labels), a kubelet
CredentialProviderRequest (serviceAccountToken), or a CSI driver's
csi.storage.k8s.io/serviceAccount.tokens map (one token per audience). Several
tokens, one per line, are decoded one by one (JSON Lines with -o json).

Examples:
  kubectl satoken decode                      # the mounted token, inside a pod
  kubectl create token my-sa | kubectl satoken decode
  kubectl get secret my-sa-token -o json | kubectl satoken decode
  kubectl satoken decode -f tokens.txt -o json  # one token per line
  kubectl satoken decode -f id-token.jwt --authentication-config /etc/kubernetes/authn.yaml";

#[derive(Debug, Args)]
pub struct DecodeArgs {
    #[command(flatten)]
    pub token: TokenArgs,

    /// kube-apiserver's --authentication-config file (AuthenticationConfiguration,
    /// YAML or JSON): which JWT authenticator the token's issuer routes to, its
    /// audiences, claim mappings and CEL validation rules, evaluated offline.
    #[arg(hide_short_help = true, long, value_name = "FILE")]
    pub authentication_config: Option<PathBuf>,
}
