//! `doctor` arguments.

use clap::Args;

use super::{AccessArgs, TlsArgs, TokenArgs};

pub(super) const EXAMPLES: &str = "\
Steps: the mounted token (decode), its window on this pod's clock, the API server's
answer (SelfSubjectReview, plus --verb/--resource and --path if given), the API
server's clock, the token against the keys the server publishes, and whether the
kubelet keeps the mounted token fresh. Then one verdict, the root cause with its
evidence, and the fix.

Examples:
  kubectl satoken doctor                                  # inside a pod
  kubectl satoken doctor --verb list --resource pods      # and: may it list pods?
  kubectl satoken doctor -o json                          # for scripts and init containers

Exit codes: 0 healthy (warnings allowed), 1 the API server rejects the token (401)
or RBAC denies it (403), 2 bad input, 3 the API server could not be reached or TLS
failed. As an init container, a non-zero exit stops the pod before the workload
starts, with the reason in its log.";

#[derive(Debug, Args)]
pub struct DoctorArgs {
    #[command(flatten)]
    pub token: TokenArgs,

    /// API server URL. Default in a pod:
    /// https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT.
    #[arg(short = 's', long = "server", value_name = "URL")]
    pub server: Option<String>,

    #[command(flatten)]
    pub tls: TlsArgs,

    #[command(flatten)]
    pub access: AccessArgs,

    /// Do not fetch the server's keys (/openid/v1/jwks) to check the signature.
    #[arg(hide_short_help = true, long)]
    pub no_jwks: bool,
}
