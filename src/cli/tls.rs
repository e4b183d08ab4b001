//! Connection flags shared by every subcommand that talks to an API server
//! (`skew --server`, `verify --jwks URL`), with kubectl's names as aliases.

use std::path::PathBuf;

use chrono::TimeDelta;
use clap::Args;

use crate::timefmt;

// How to reach and trust a server.
#[derive(Debug, Clone, Args)]
pub struct TlsArgs {
    /// CA bundle (PEM) to verify servers with; the only one trusted.
    /// Default: ca.crt in the ServiceAccount directory.
    #[arg(
        hide_short_help = true,
        long,
        visible_alias = "certificate-authority",
        value_name = "PATH"
    )]
    pub cacert: Option<PathBuf>,

    /// Also trust the operating system's root certificates (on macOS,
    /// Mozilla's root list built into the binary, not the Keychain).
    #[arg(hide_short_help = true, long)]
    pub system_roots: bool,

    /// Do not verify the server's certificate.
    #[arg(long, conflicts_with_all = ["cacert", "system_roots"])]
    pub insecure_skip_tls_verify: bool,

    /// Allow http:// URLs (anything sent crosses the network unencrypted).
    #[arg(hide_short_help = true, long)]
    pub allow_plain_http: bool,

    /// Per-request timeout (5s, 1m30s).
    #[arg(hide_short_help = true, long, visible_alias = "request-timeout", value_name = "DURATION", default_value = "5s", value_parser = positive_duration)]
    pub timeout: TimeDelta,
}

/// A duration above zero.
pub fn positive_duration(text: &str) -> Result<TimeDelta, String> {
    let d = timefmt::parse_duration(text)?;
    if d <= TimeDelta::zero() {
        return Err("the timeout must be more than 0s".to_owned());
    }
    Ok(d)
}
