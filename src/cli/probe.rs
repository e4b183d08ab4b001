//! `probe` arguments. kubectl's own flag names are accepted as aliases
//! (`--certificate-authority`, `--request-timeout`, `--token`).

use std::path::PathBuf;

use clap::Args;

use super::{AccessArgs, TlsArgs, TokenArgs};

pub(super) const EXAMPLES: &str = "\
Requests per server: a token-less GET /version (proves the TLS handshake; no
token is sent unless it succeeds), then with the token a SelfSubjectReview
(v1, falling back to v1beta1/v1alpha1), the access review and the GET if asked,
and with --anonymous the same without the token. After a 401: the server's
JWKS and issuer, and (with credentials that may read them) the token's
ServiceAccount, pod and Secret; with --token-review the server's own reason.
--anonymous with no token anywhere (no TOKEN, --token or -f, no stdin, no
mounted token) reads none and asks only without credentials: what an
anonymous request gets (403 as system:anonymous, or 401: anonymous refused).

Where to connect: flags > the kubeconfig (--kubeconfig, --context, KUBECONFIG,
~/.kube/config; used outside a pod, or when a kubeconfig flag is given) > the
in-pod defaults. Outside a pod with no token given, the token under test is
the kubeconfig user's own (token or tokenFile), sent only to its server.

Examples:
  kubectl satoken probe                        # inside a pod: mounted token, CA, service env
  kubectl satoken probe --context prod         # a laptop: the context's server, CA and token
  kubectl create token my-sa | kubectl satoken probe -s https://10.0.0.5:6443 --cacert ca.crt
  kubectl satoken probe -s https://cp-1:6443 -s https://cp-2:6443 --cacert ca.crt -f token
  kubectl satoken probe --verb list --resource pods -n shop
  kubectl satoken probe --path /apis/ray.io/v1/namespaces/ml/rayclusters/raycluster-kuberay
  kubectl create token my-sa | kubectl satoken probe -f - --context kind-kind --token-review
  kubectl satoken probe -f token --all-endpoints --use-kubeconfig-credentials
  kubectl satoken probe --anonymous -s https://10.0.0.5:6443 --cacert ca.crt

Exit codes: 0 authenticated (ok, or 404: the object is missing), 1 401 or 403
(or another status, or replicas that disagree), 3 a server could not be reached
or TLS failed. With --anonymous and no token the same codes judge the anonymous
answers: 0 anonymous requests may do this, 1 401 or 403.";

#[derive(Debug, Args)]
pub struct ProbeArgs {
    #[command(flatten)]
    pub token: TokenArgs,

    /// API server URL; repeat to probe several concurrently. Default in a pod:
    /// https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT.
    #[arg(short = 's', long = "server", value_name = "URL")]
    pub servers: Vec<String>,

    #[command(flatten)]
    pub tls: TlsArgs,

    #[command(flatten)]
    pub access: AccessArgs,

    /// Repeat the requests without the token, to contrast (anonymous is 403 as
    /// system:anonymous, or 401 when anonymous authentication is off). With no
    /// token anywhere, send only those: what an anonymous request gets.
    #[arg(hide_short_help = true, long)]
    pub anonymous: bool,

    /// Kubeconfig file (instead of KUBECONFIG's list or ~/.kube/config). Using a
    /// kubeconfig gives the server, CA and tls-server-name; explicit flags win.
    #[arg(hide_short_help = true, long, value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,

    /// Kubeconfig context (default: current-context). -n defaults to its namespace.
    #[arg(hide_short_help = true, long, value_name = "NAME")]
    pub context: Option<String>,

    /// Send the kubeconfig user's own credentials (token, tokenFile, client
    /// certificate) for the side requests: TokenReview, JWKS, reading the
    /// token's ServiceAccount/pod/Secret and the Service's endpoints. The token
    /// under test still comes from TOKEN/--token/-f/stdin. exec plugins are not run.
    #[arg(hide_short_help = true, long)]
    pub use_kubeconfig_credentials: bool,

    /// Ask the server why with a TokenReview, as the kubeconfig identity (needs
    /// create tokenreviews; implies --use-kubeconfig-credentials). The review's
    /// body carries the token, to the same verified server only.
    #[arg(hide_short_help = true, long)]
    pub token_review: bool,

    /// With --token-review: ask a second TokenReview with these audiences
    /// (spec.audiences), as a third-party checker does (Vault's Kubernetes auth
    /// with a role audience, a cloud's token exchange), and say what it sees.
    /// Repeat for several.
    #[arg(
        hide_short_help = true,
        long = "audience",
        value_name = "AUD",
        requires = "token_review"
    )]
    pub audiences: Vec<String>,

    /// Probe every control-plane replica behind the kubernetes Service (its
    /// EndpointSlices in default, falling back to Endpoints), each verified
    /// against the original server's name.
    #[arg(hide_short_help = true, long)]
    pub all_endpoints: bool,
}
