//! `skew` arguments.

use std::path::PathBuf;

use clap::Args;

use super::{TlsArgs, TokenArgs};
use crate::skew::ClockSpec;
use crate::skew::sources::parse_clock_spec;

pub(super) const EXAMPLES: &str = "\
Clocks: the reference clock (\"local\": this machine, or --now) is always judged; add
others with --clock, --leases, --nodes and --server, in any combination. With none of them, the
issuing API server's clock is estimated from a fresh token's iat.

Only one input can read stdin: the token, --leases - or --nodes -.

Examples:
  # The incident: node-a runs 90 s behind the clock that minted the token
  kubectl create token my-sa > t.jwt
  kubectl satoken skew -f t.jwt --clock node-a=-90s --clock node-b=+0s

  # Every kubelet and every API server, from what the cluster already records
  kubectl get leases -A -o json --show-managed-fields > leases.json
  kubectl satoken skew -f t.jwt --leases leases.json

  # Measure clocks only (no token), leases on stdin
  kubectl get leases -A -o json --show-managed-fields | kubectl satoken skew --leases -

  # Each API server replica's clock, from its HTTP Date header (no token is sent)
  kubectl satoken skew -f t.jwt -s https://10.0.0.11:6443 -s https://10.0.0.12:6443 --cacert ca.crt

  # Coarser: Node heartbeats
  kubectl get nodes -o json --show-managed-fields | kubectl satoken skew -f t.jwt --nodes -

Exit codes: 0 every clock accepts and none is skewed beyond the leeway, 1 a clock
rejects the token or two clocks are further apart than the leeway, 2 bad input,
3 a --server could not be reached (or its TLS verification failed).";

#[derive(Debug, Args)]
pub struct SkewArgs {
    #[command(flatten)]
    pub token: TokenArgs,

    /// Another clock: NAME=RFC3339 (what that clock reads now) or NAME=OFFSET from
    /// the reference clock (+90s, -1m30s). Repeatable.
    #[arg(hide_short_help = true, long = "clock", value_name = "NAME=TIME|OFFSET", value_parser = parse_clock_spec)]
    pub clocks: Vec<ClockSpec>,

    /// `kubectl get leases -n kube-node-lease -o json --show-managed-fields` output
    /// (`-` for stdin): one clock per kubelet, and one per API server when the
    /// kube-system identity Leases are included (`-A`).
    #[arg(hide_short_help = true, long, value_name = "FILE")]
    pub leases: Option<PathBuf>,

    /// `kubectl get nodes -o json --show-managed-fields` output (`-` for stdin): a
    /// coarser clock per kubelet, from condition heartbeats.
    #[arg(hide_short_help = true, long, value_name = "FILE")]
    pub nodes: Option<PathBuf>,

    /// An API server whose HTTP Date header is a clock (GET /version, no token
    /// sent; the round-trip time bounds the reading). Repeat for every replica.
    #[arg(short = 's', long = "server", value_name = "URL")]
    pub servers: Vec<String>,

    #[command(flatten)]
    pub tls: TlsArgs,
}

impl SkewArgs {
    /// Whether any clock source besides the token was given.
    pub fn has_clock_source(&self) -> bool {
        !self.clocks.is_empty()
            || self.leases.is_some()
            || self.nodes.is_some()
            || !self.servers.is_empty()
    }
}
