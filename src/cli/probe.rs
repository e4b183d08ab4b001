//! `probe` arguments. kubectl's own flag names are accepted as aliases
//! (`--certificate-authority`, `--request-timeout`, `--token`).

use std::path::PathBuf;

use chrono::TimeDelta;
use clap::Args;

use super::TokenArgs;
use crate::timefmt;

pub(super) const EXAMPLES: &str = "\
Requests per server: a token-less GET /version (proves the TLS handshake; no
token is sent unless it succeeds), then with the token a SelfSubjectReview
(v1, falling back to v1beta1/v1alpha1), the access review and the GET if asked,
and with --anonymous the same without the token. After a 401: the server's
JWKS and issuer, and (with credentials that may read them) the token's
ServiceAccount, pod and Secret; with --token-review the server's own reason.

Where to connect: flags > the kubeconfig (--kubeconfig, --context, KUBECONFIG,
~/.kube/config; used outside a pod, or when a kubeconfig flag is given) > the
in-pod defaults.

Examples:
  kubectl satoken probe                        # inside a pod: mounted token, CA, service env
  kubectl create token my-sa | kubectl satoken probe -s https://10.0.0.5:6443 --cacert ca.crt
  kubectl satoken probe -s https://cp-1:6443 -s https://cp-2:6443 --cacert ca.crt -f token
  kubectl satoken probe --verb list --resource pods -n shop
  kubectl satoken probe --path /apis/ray.io/v1/namespaces/ml/rayclusters/raycluster-kuberay
  kubectl create token my-sa | kubectl satoken probe -f - --context kind-kind --token-review
  kubectl satoken probe -f token --all-endpoints --use-kubeconfig-credentials

Exit codes: 0 authenticated (ok, or 404: the object is missing), 1 401 or 403
(or another status, or replicas that disagree), 3 a server could not be reached
or TLS failed.";

/// `probe`.
#[derive(Debug, Args)]
pub struct ProbeArgs {
    #[command(flatten)]
    pub token: TokenArgs,

    /// API server URL; repeat to probe several concurrently. Default in a pod:
    /// https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT.
    #[arg(short = 's', long = "server", value_name = "URL")]
    pub servers: Vec<String>,

    /// CA bundle (PEM) to verify the servers with; the only one trusted.
    /// Default: ca.crt in the ServiceAccount directory.
    #[arg(long, visible_alias = "certificate-authority", value_name = "PATH")]
    pub cacert: Option<PathBuf>,

    /// Also trust the operating system's root certificates.
    #[arg(long)]
    pub system_roots: bool,

    /// Do not verify the server's certificate (the token is still sent: only for
    /// servers you trust by other means).
    #[arg(long, conflicts_with_all = ["cacert", "system_roots"])]
    pub insecure_skip_tls_verify: bool,

    /// Allow http:// server URLs (the token crosses the network unencrypted).
    #[arg(long)]
    pub allow_plain_http: bool,

    /// Also GET this path with the token (e.g. the object the workload needs).
    #[arg(long, value_name = "PATH", value_parser = api_path)]
    pub path: Option<String>,

    /// Ask "can I VERB RESOURCE?" with a SelfSubjectAccessReview.
    #[arg(long, value_name = "VERB", requires = "resource")]
    pub verb: Option<String>,

    /// Resource for --verb (plural, e.g. pods, rayclusters).
    #[arg(long, value_name = "RESOURCE", requires = "verb")]
    pub resource: Option<String>,

    /// Subresource for --verb (e.g. log, status).
    #[arg(long, value_name = "SUBRESOURCE", requires = "verb")]
    pub subresource: Option<String>,

    /// API group for --resource (empty: the core group).
    #[arg(long, value_name = "GROUP", default_value = "", requires = "verb")]
    pub group: String,

    /// Namespace for --verb. Default: the mounted namespace file, else the token's namespace.
    #[arg(short = 'n', long, value_name = "NAMESPACE")]
    pub namespace: Option<String>,

    /// Object name for --verb.
    #[arg(long, value_name = "NAME", requires = "verb")]
    pub name: Option<String>,

    /// Cluster-scoped --verb check (no namespace).
    #[arg(long, requires = "verb", conflicts_with = "namespace")]
    pub cluster_scope: bool,

    /// Repeat the requests without the token, to contrast (anonymous is 403 as
    /// system:anonymous, or 401 when anonymous authentication is off).
    #[arg(long)]
    pub anonymous: bool,

    /// Kubeconfig file (instead of KUBECONFIG's list or ~/.kube/config). Using a
    /// kubeconfig gives the server, CA and tls-server-name; explicit flags win.
    #[arg(long, value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,

    /// Kubeconfig context (default: current-context). -n defaults to its namespace.
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,

    /// Send the kubeconfig user's own credentials (token, tokenFile, client
    /// certificate) for the side requests: TokenReview, JWKS, reading the
    /// token's ServiceAccount/pod/Secret and the Service's endpoints. The token
    /// under test still comes from TOKEN/--token/-f/stdin. exec plugins are not run.
    #[arg(long)]
    pub use_kubeconfig_credentials: bool,

    /// Ask the server why with a TokenReview, as the kubeconfig identity (needs
    /// create tokenreviews; implies --use-kubeconfig-credentials). The review's
    /// body carries the token, to the same verified server only.
    #[arg(long)]
    pub token_review: bool,

    /// Probe every control-plane replica behind the kubernetes Service (its
    /// EndpointSlices in default, falling back to Endpoints), each verified
    /// against the original server's name.
    #[arg(long)]
    pub all_endpoints: bool,

    /// Per-request timeout (5s, 1m30s).
    #[arg(long, visible_alias = "request-timeout", value_name = "DURATION", default_value = "5s", value_parser = positive_duration)]
    pub timeout: TimeDelta,
}

fn api_path(text: &str) -> Result<String, String> {
    if text.starts_with('/') && !text.starts_with("//") && !text.contains(['?', '#', ' ']) {
        Ok(text.to_owned())
    } else {
        Err(format!(
            "{text:?} is not an API path like /api/v1/namespaces/NS/pods"
        ))
    }
}

fn positive_duration(text: &str) -> Result<TimeDelta, String> {
    let d = timefmt::parse_duration(text)?;
    if d <= TimeDelta::zero() {
        return Err("the timeout must be more than 0s".to_owned());
    }
    Ok(d)
}
