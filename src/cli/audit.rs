//! `audit` arguments: audit log files (or stdin), optional API server logs,
//! or `--merge` of several `audit -o json` documents.

use std::path::PathBuf;

use clap::Args;

pub(super) const EXAMPLES: &str = "\
Reads audit.k8s.io events as JSON Lines (the log backend; a prefix before the
`{` is skipped) or as one EventList or array, plain or gzip, from files, quoted
globs or stdin, and lists every identity that failed (401, 403) or depends on
something that will break (stale tokens past warnafter, legacy Secret tokens),
most impact first, with the cause and the next steps.

Examples:
  kubectl satoken audit /var/log/kubernetes/audit/audit.log*
  kubectl satoken audit 'audit-*.log.gz' --apiserver-log kube-apiserver.log
  aws logs tail /aws/eks/prod/cluster --log-stream-names kube-apiserver-audit-x --since 1d \\
    | kubectl satoken audit -o json > shard-1.json
  kubectl satoken audit --merge shard-*.json
  kubectl satoken audit --token-file token.jwt audit.log   # who minted it, what it did

Exit codes: 0 nothing failing, stale or legacy; 1 something was found; 2 the input
could not be read (or holds no audit event). With --jti or --token-file: 0 its
minting event is in the log and no request made with it was refused; 1 otherwise.";

#[derive(Debug, Args)]
pub struct AuditArgs {
    /// Audit logs (`-` or nothing: stdin); gzip is read as is, quoted globs are expanded.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// kube-apiserver logs: their "Unable to authenticate the request" lines give the
    /// 401s their reasons (joined by time, within 1 s).
    #[arg(hide_short_help = true, long, value_name = "FILE")]
    pub apiserver_log: Vec<PathBuf>,

    /// Merge `audit -o json` documents (one per shard) into one report instead of
    /// reading audit logs.
    #[arg(hide_short_help = true, long)]
    pub merge: bool,

    /// Show the details (evidence, next steps) of the first N findings in the table.
    #[arg(hide_short_help = true, long, value_name = "N", default_value_t = 20)]
    pub details: usize,

    /// Worker threads (default: one per core).
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    pub jobs: Option<u16>,

    /// Never print the progress line (it is printed only when stderr is a terminal).
    #[arg(hide_short_help = true, long, visible_alias = "quiet")]
    pub no_progress: bool,

    /// One credential: its minting TokenRequest event (who, when, for which pod or
    /// node, the lifetime asked and issued) and the requests made with it.
    #[arg(long, value_name = "JTI", conflicts_with_all = ["token_file", "merge"])]
    pub jti: Option<String>,

    /// As --jti, with the jti read from this token (`-` for stdin; the token is
    /// never printed).
    #[arg(
        hide_short_help = true,
        long,
        value_name = "PATH",
        conflicts_with = "merge"
    )]
    pub token_file: Option<PathBuf>,
}
