//! `classify` arguments. The positional is the evidence, so the token has its own
//! flags here (`--token`, `-f/--token-file`) instead of `TokenArgs`' positional.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use clap::Args;

use super::secret_token;
use crate::classify::SourceType;
use crate::secret::SecretToken;
use crate::timefmt;

pub(super) const EXAMPLES: &str = "\
Evidence (auto-detected; --type forces one): an HTTP status line, code or
Kubernetes Status body; a curl -v transcript; kubectl errors; client-go, fabric8,
Python kubernetes/requests and Ray errors; kube-apiserver log lines
(\"Unable to authenticate the request\") or a TokenReview; audit events (JSON or
JSON lines). A log (over 1,000 lines or 1 MiB, over 100 lines that are mostly
log lines, several files, or --log) is a report: its failing events in groups
with counts and timelines, its successful requests counted.

Examples:
  kubectl logs -n kube-system kube-apiserver-cp1 | kubectl satoken classify
  kubectl satoken classify curl.txt --token-file token.jwt
  kubectl satoken classify 'kube-apiserver-*.log.gz'
  kubectl satoken classify --events apiserver.log | jq -c 'select(.join == \"guess\")'
  kubectl satoken classify --merge shard-*.json     (each: classify --log --shard -o json)
  echo 'error: You must be logged in to the server (Unauthorized)' | kubectl satoken classify

Exit codes: 0 every event is ok or 404, 1 a problem was classified, 2 the evidence
(or the token) could not be read or recognised.";

/// A log platform whose query `--print-query` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Platform {
    /// Grafana Loki's LogQL.
    Loki,
    /// CloudWatch Logs Insights.
    Cloudwatch,
    /// Google Cloud Logging's query language.
    Gcloud,
    /// Elasticsearch and OpenSearch's query DSL.
    Elasticsearch,
}

#[derive(Debug, Args)]
pub struct ClassifyArgs {
    /// The evidence: files (plain or gzip), quoted globs, `-` or nothing for
    /// stdin. Several are read as one log.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Read the evidence as a log whatever its size: each line on its own,
    /// the failing events in groups.
    #[arg(hide_short_help = true, long)]
    pub log: bool,

    /// With a log: one JSON line per failing event instead of the report.
    #[arg(hide_short_help = true, long)]
    pub events: bool,

    /// With a log: threads that look at its lines (default: one per core);
    /// the report is the same whatever their number.
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    pub jobs: Option<u16>,

    /// Read the evidence as a log and write a shard for `--merge` (with -o
    /// json): every source of a group listed (up to 256), not the first 20.
    #[arg(hide_short_help = true, long, conflicts_with_all = ["events", "merge"])]
    pub shard: bool,

    /// Merge `classify --log --shard -o json` documents (one per part of a
    /// log, in the log's order) into one report instead of reading evidence.
    #[arg(
        hide_short_help = true,
        long,
        conflicts_with_all = ["events", "print_query", "source_type", "token", "token_file", "at"]
    )]
    pub merge: bool,

    /// Print the query that has PLATFORM select the lines a log's report
    /// reads (pipe what it returns into `classify --log`), and exit.
    #[arg(hide_short_help = true, long, value_enum, value_name = "PLATFORM")]
    pub print_query: Option<Platform>,

    /// Never print the progress line of a log (printed only when stderr is a
    /// terminal).
    #[arg(hide_short_help = true, long, visible_alias = "quiet")]
    pub no_progress: bool,

    /// Read the evidence as this type instead of detecting it.
    #[arg(short = 't', long = "type", value_enum, value_name = "TYPE")]
    pub source_type: Option<SourceType>,

    /// The token the failing request used: its times are judged at the evidence's
    /// own instant (Date header, log or audit timestamp). Prefer -f.
    #[arg(hide_short_help = true, long = "token", value_name = "TOKEN", value_parser = secret_token, conflicts_with = "token_file")]
    pub token: Option<SecretToken>,

    /// Read that token from a file (`-` for stdin, when the evidence is a FILE).
    #[arg(short = 'f', long, value_name = "PATH")]
    pub token_file: Option<PathBuf>,

    /// When the evidence happened, for evidence without a timestamp (RFC 3339 or
    /// Unix seconds); default: --now.
    #[arg(hide_short_help = true, long, value_name = "TIME", value_parser = timefmt::parse_instant)]
    pub at: Option<DateTime<Utc>>,
}

impl ClassifyArgs {
    /// The token file given with `-f` (not stdin), which next steps name
    /// instead of `TOKEN_FILE`.
    pub fn named_token_file(&self) -> Option<String> {
        self.token_file
            .as_ref()
            .filter(|p| p.as_os_str() != "-")
            .map(|p| p.display().to_string())
    }
}
