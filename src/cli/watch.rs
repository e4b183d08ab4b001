//! `watch` arguments: probe's connection flags, the token file, where to
//! serve the metrics and how often to measure.

use std::net::SocketAddr;
use std::path::PathBuf;

use chrono::TimeDelta;
use clap::Args;

use super::TlsArgs;
use crate::input::IN_POD_SA_DIR;

pub(super) const EXAMPLES: &str = "\
Every --interval (jittered by 10 %) it re-reads the token file and, for every
API server replica (the kubernetes Service's EndpointSlices, as probe
--all-endpoints finds them, at most 32), measures the replica's clock offset
from its Date headers (with the uncertainty stated) and sends a
SelfSubjectReview with the token (verified TLS only, never a redirect). It
exports what it found at http://LISTEN/metrics (Prometheus; /healthz beside it)
and writes a line per change of state (JSON lines; text on a terminal):
nothing while all is well. The metrics and deploy/'s alert rules: docs/watch.md.

Examples:
  kubectl satoken watch                                 # in a pod: mounted token, CA, service env
  kubectl satoken watch -f token --context kind-kind --listen 127.0.0.1:9479
  kubectl satoken watch -s https://10.0.0.5:6443 --cacert ca.crt -f token --no-discovery

Exit codes: 2 for a bad flag, an unreadable token file or a listen address in
use, at start; after that it runs until SIGTERM or SIGINT (exit 0): failures are
metrics and log lines.";

#[derive(Debug, Args)]
pub struct WatchArgs {
    /// The token file, re-read every cycle. Default: token in the
    /// ServiceAccount directory (the pod's projected token).
    #[arg(short = 'f', long, value_name = "PATH")]
    pub token_file: Option<PathBuf>,

    /// The ServiceAccount directory (token, ca.crt).
    #[arg(hide_short_help = true, long, value_name = "DIR", env = "KUBECTL_SATOKEN_SA_DIR", default_value = IN_POD_SA_DIR)]
    pub sa_dir: PathBuf,

    /// API server URL; repeat for several. Default in a pod:
    /// https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT.
    #[arg(short = 's', long = "server", value_name = "URL")]
    pub servers: Vec<String>,

    #[command(flatten)]
    pub tls: TlsArgs,

    /// Kubeconfig file (instead of KUBECONFIG's list or ~/.kube/config).
    #[arg(long, value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,

    /// Kubeconfig context (default: current-context).
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,

    /// Read the kubernetes Service's endpoints with the kubeconfig user's
    /// credentials rather than the token's.
    #[arg(hide_short_help = true, long)]
    pub use_kubeconfig_credentials: bool,

    /// Measure the servers as given only: no replica discovery.
    #[arg(hide_short_help = true, long)]
    pub no_discovery: bool,

    /// Where to serve /metrics and /healthz.
    #[arg(long, value_name = "ADDR:PORT", default_value = "0.0.0.0:9479")]
    pub listen: SocketAddr,

    /// Time between cycles (jittered by 10 %).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = interval)]
    pub interval: TimeDelta,

    /// Date readings per replica and cycle (2 to 8): each beyond the first two
    /// is timed to straddle the server's next second, halving the offset's
    /// uncertainty, at the cost of up to a second's wait.
    #[arg(hide_short_help = true, long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u8).range(2..=8))]
    pub clock_samples: u8,
}

/// An interval between 10 ms and a day.
fn interval(text: &str) -> Result<TimeDelta, String> {
    let d = crate::timefmt::parse_duration(text)?;
    if d < TimeDelta::milliseconds(10) || d > TimeDelta::days(1) {
        return Err("the interval must be between 10ms and 24h".to_owned());
    }
    Ok(d)
}
