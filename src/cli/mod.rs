//! Command-line definition (clap derive) and flag value parsers. Types only: no
//! flag meets the environment here; that happens in `settings.rs`. Each
//! subcommand's arguments live in `cli/<subcommand>.rs`.

mod access;
mod audit;
mod classify;
mod completion;
mod decode;
mod doctor;
mod explain;
mod probe;
mod skew;
mod tls;
mod verify;
mod watch;

pub use access::AccessArgs;
pub use audit::AuditArgs;
pub use classify::{ClassifyArgs, Platform};
pub use completion::{CompleteArgs, CompletionArgs};
pub use decode::DecodeArgs;
pub use doctor::DoctorArgs;
pub use explain::ExplainArgs;
pub use probe::ProbeArgs;
pub use skew::SkewArgs;
pub use tls::TlsArgs;
pub use verify::VerifyArgs;
pub use watch::WatchArgs;

use std::path::PathBuf;

use chrono::{DateTime, TimeDelta, Utc};
use clap::{Args, Parser, Subcommand};

use crate::input::IN_POD_SA_DIR;
use crate::report::OutputFormat;
use crate::secret::SecretToken;
use crate::timefmt;

const ABOUT: &str = "Tells you why a Kubernetes ServiceAccount token is rejected";

const LONG_ABOUT: &str = "\
Tells you why a Kubernetes ServiceAccount token is rejected.

401 Unauthorized means the API server rejected the token itself (expired, not yet
valid on that server's clock, wrong key, issuer or audience, or its ServiceAccount,
pod or Secret is gone). 403 Forbidden means the token was accepted and authorization
(RBAC, another authorizer) or admission said no.

Run inside a pod, every subcommand reads the mounted token by default.";

/// What `-h` ends with: it lists the flags with a one-letter form; `--help`
/// has every flag and the examples.
const MORE_HELP: &str = "More options, and examples: --help";

const EXAMPLES: &str = "\
Examples:
  # Inside a pod: every check, one verdict, the fix
  kubectl satoken doctor

  # From a laptop: decode a fresh token for a ServiceAccount
  kubectl create token my-sa | kubectl satoken decode

  # Ask the API servers who the token is, and why they refuse it
  kubectl satoken probe -f token.jwt --token-review

  # Would this token be accepted at a given instant, or on a clock 90 s behind?
  kubectl satoken decode -f token.jwt --now 2026-01-01T00:00:00Z -o json
  kubectl satoken skew -f token.jwt --clock node-b=-90s

  # What does this error message or log line mean?
  kubectl logs -n kube-system kube-apiserver-cp-1 | kubectl satoken classify

  # Every failing or stale workload in a day of audit logs
  kubectl satoken audit /var/log/kubernetes/audit/audit.log*

Exit codes: 0 nothing wrong, 1 a problem was diagnosed, 2 bad input or usage,
3 could not get an answer (network, DNS, TLS).";

/// `kubectl satoken`: ServiceAccount token diagnostics.
#[derive(Debug, Parser)]
#[command(
    name = "kubectl-satoken",
    bin_name = "kubectl satoken",
    version,
    long_version = env!("SATOKEN_LONG_VERSION"),
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_help = MORE_HELP,
    after_long_help = EXAMPLES,
    propagate_version = true
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// The name kubectl (1.26+) runs for plugin completion; a symlink to this binary
/// under this name answers it.
pub const KUBECTL_COMPLETE_NAME: &str = "kubectl_complete-satoken";

impl Cli {
    /// The process arguments; invoked as `kubectl_complete-satoken`, they are
    /// the words kubectl wants completed.
    pub fn invocation_args() -> Vec<std::ffi::OsString> {
        completion_aware(std::env::args_os().collect())
    }

    /// Parses `args` as [`clap::Parser::try_parse_from`] does, but leaks the
    /// command tree (every subcommand's arguments) instead of freeing it:
    /// freeing it is 3 % of a one-token `decode`'s instructions, and the
    /// process ends soon after.
    pub fn try_parse_args(args: &[std::ffi::OsString]) -> Result<Cli, clap::Error> {
        use clap::{CommandFactory as _, FromArgMatches as _};
        let command = Box::leak(Box::new(Cli::command()));
        let mut matches = command.try_get_matches_from_mut(args)?;
        Cli::from_arg_matches_mut(&mut matches).map_err(|e| e.format(command))
    }

    /// The token given on the command line (`TOKEN` or `--token`), if any.
    pub fn token_argument(&self) -> Option<SecretToken> {
        match &self.command {
            Command::Decode(a) => a.token.argument(),
            Command::Skew(a) => a.token.argument(),
            Command::Verify(a) => a.token.argument(),
            Command::Probe(a) => a.token.argument(),
            Command::Doctor(a) => a.token.argument(),
            Command::Classify(a) => a.token.clone(),
            Command::Audit(_)
            | Command::Watch(_)
            | Command::Explain(_)
            | Command::Completion(_)
            | Command::Complete(_) => None,
        }
    }
}

/// A hint for an error `message` that names a token typed where a path,
/// subcommand or flag value belongs (`decode -f "$(cat token)"`, `--cacert
/// "$TOKEN"`, `kubectl satoken "$TOKEN"`), or a `Bearer <token>` paste split
/// into two arguments. `accepted` is the token the command line gave as
/// `TOKEN`/`--token`, which is where it belongs. The token itself is never
/// repeated (and the output redactor masks it anyway).
pub fn misplaced_token_hint(
    args: &[std::ffi::OsString],
    accepted: Option<&SecretToken>,
    message: &str,
) -> Option<&'static str> {
    let bare_token = |a: &str| {
        let a = value(a);
        message.contains(a)
            && crate::redact::looks_like_token(a)
            && accepted.is_none_or(|t| t.expose().trim() != a.trim())
    };
    let split_bearer = args
        .windows(2)
        .filter_map(|w| Some((w[0].to_str()?, w[1].to_str()?)))
        .any(|(a, b)| {
            a.eq_ignore_ascii_case("bearer")
                && crate::redact::looks_like_token(b)
                && message.contains(b)
        });
    if split_bearer {
        return Some(
            "`Bearer <token>` was split into two arguments: quote it, or better pass the token on stdin or with -f FILE (arguments show in ps and shell history)",
        );
    }
    let mut texts = args.iter().skip(1).filter_map(|a| a.to_str());
    texts.any(bare_token).then_some(
        "this looks like a token, not a path, subcommand or flag value: pass it on stdin or with -f FILE",
    )
}

/// The value of `--flag=value`; any other argument as it is.
fn value(arg: &str) -> &str {
    arg.split_once('=')
        .filter(|_| arg.starts_with("--"))
        .map_or(arg, |(_, v)| v)
}

/// Inserts `__complete` when invoked under [`KUBECTL_COMPLETE_NAME`].
fn completion_aware(mut args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let invoked_as = args
        .first()
        .and_then(|a| std::path::Path::new(a).file_name())
        .and_then(|n| n.to_str());
    if invoked_as == Some(KUBECTL_COMPLETE_NAME) {
        args.insert(1, "__complete".into());
    }
    args
}

// Flags every subcommand takes. No Args struct has a doc comment: clap would
// take it as the about text, and with the deferred build (see `Command`) it
// would replace the subcommand's own.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Output format.
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT", default_value_t = OutputFormat::Table, global = true)]
    pub output: OutputFormat,

    /// Never colour the output (NO_COLOR=1 and TERM=dumb do the same).
    #[arg(hide_short_help = true, long, global = true)]
    pub no_color: bool,

    /// Evaluate every time-based check at this instant instead of the system clock:
    /// RFC 3339 (2026-01-01T00:00:00Z) or Unix seconds.
    #[arg(hide_short_help = true, long, value_name = "TIME", value_parser = timefmt::parse_instant, global = true)]
    pub now: Option<DateTime<Utc>>,

    /// Show times in tables in the local time zone (JSON and YAML stay UTC).
    #[arg(hide_short_help = true, long, global = true)]
    pub local_time: bool,

    /// Clock-skew tolerance, as kube-apiserver applies it to nbf, iat and exp.
    #[arg(hide_short_help = true, long, value_name = "DURATION", default_value = "60s", value_parser = timefmt::parse_duration, global = true)]
    pub leeway: TimeDelta,
}

/// The subcommands.
///
/// `defer`: only the subcommand that runs gets its arguments built. Building all
/// of them costs more than decoding a token (heap and code pages touched at start).
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// The one command to run inside a pod: every check, one verdict, the fix.
    #[command(after_help = MORE_HELP, after_long_help = doctor::EXAMPLES)]
    Doctor(Box<DoctorArgs>),
    /// Decode a token: kind, identity, bindings, times, and what is wrong with it.
    #[command(after_help = MORE_HELP, after_long_help = decode::EXAMPLES)]
    Decode(DecodeArgs),
    /// Judge a token on many clocks (nodes, API servers) and how far apart they are.
    #[command(after_help = MORE_HELP, after_long_help = skew::EXAMPLES)]
    Skew(SkewArgs),
    /// Check signature, key, issuer, audience and time against a JWKS or PEM keys.
    #[command(after_help = MORE_HELP, after_long_help = verify::EXAMPLES)]
    Verify(VerifyArgs),
    /// Ask API servers over verified TLS who the token is: 401, 403 or 404, and why.
    #[command(after_help = MORE_HELP, after_long_help = probe::EXAMPLES)]
    Probe(Box<ProbeArgs>),
    /// Watch the API server replicas' clocks and answers for the token: Prometheus metrics, alerts.
    #[command(after_help = MORE_HELP, after_long_help = watch::EXAMPLES)]
    Watch(Box<WatchArgs>),
    /// Say what an error, a curl -v transcript, an API server log or audit event means.
    #[command(after_help = MORE_HELP, after_long_help = classify::EXAMPLES)]
    Classify(ClassifyArgs),
    /// Every failing or stale identity in audit logs: 401s, 403s with the grant, stale and legacy tokens.
    #[command(after_help = MORE_HELP, after_long_help = audit::EXAMPLES)]
    Audit(AuditArgs),
    /// What a cause means, how to confirm it and how to fix it; every cause without one.
    #[command(after_help = MORE_HELP, after_long_help = explain::EXAMPLES)]
    Explain(ExplainArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    #[command(after_help = MORE_HELP, after_long_help = completion::EXAMPLES)]
    Completion(CompletionArgs),
    /// kubectl's plugin completion protocol (used by `kubectl_complete-satoken`).
    #[command(name = "__complete", hide = true)]
    Complete(CompleteArgs),
}

// Where the token comes from; shared by every subcommand that takes one.
#[derive(Debug, Args)]
pub struct TokenArgs {
    /// The token: a JWT, `Bearer <jwt>` or `Authorization: Bearer <jwt>`. Prefer -f or
    /// stdin, since arguments show in `ps` and shell history.
    #[arg(value_name = "TOKEN", value_parser = secret_token)]
    pub token: Option<SecretToken>,

    /// The token, as kubectl's --token takes it.
    #[arg(hide_short_help = true, long = "token", value_name = "TOKEN", value_parser = secret_token, conflicts_with = "token")]
    pub token_flag: Option<SecretToken>,

    /// Read the token from a file (`-` for stdin).
    #[arg(short = 'f', long, value_name = "PATH")]
    pub token_file: Option<PathBuf>,

    /// The ServiceAccount directory whose `token` is read when no token is given.
    #[arg(hide_short_help = true, long, value_name = "DIR", env = "KUBECTL_SATOKEN_SA_DIR", default_value = IN_POD_SA_DIR)]
    pub sa_dir: PathBuf,
}

impl TokenArgs {
    /// The token given on the command line, either way.
    pub fn argument(&self) -> Option<SecretToken> {
        self.token.clone().or_else(|| self.token_flag.clone())
    }

    /// The token source the flags and environment select.
    pub fn source(&self, env: &crate::env::Env) -> crate::input::TokenSource {
        crate::input::TokenSource::choose(
            self.argument(),
            self.token_file.clone(),
            env.stdin_readable,
            &self.sa_dir,
        )
    }
}

pub(super) fn secret_token(text: &str) -> Result<SecretToken, std::convert::Infallible> {
    Ok(SecretToken::new(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory as _;

    #[test]
    fn completion_helper_name_routes_to_complete() {
        let args = completion_aware(vec!["/x/kubectl_complete-satoken".into(), "de".into()]);
        assert_eq!(args, ["/x/kubectl_complete-satoken", "__complete", "de"]);
        let args = completion_aware(vec!["kubectl-satoken".into(), "decode".into()]);
        assert_eq!(args.len(), 2);
    }

    #[test]
    fn a_token_out_of_place_gets_a_hint() {
        let jwt = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.c2lnbmF0dXJl";
        let args = |a: &[&str]| -> Vec<std::ffi::OsString> {
            std::iter::once("kubectl-satoken")
                .chain(a.iter().copied())
                .map(Into::into)
                .collect()
        };
        let echoed = format!("error: cannot read {jwt}");
        let hint = |a: &[&str], accepted: Option<&str>| {
            misplaced_token_hint(&args(a), accepted.map(SecretToken::new).as_ref(), &echoed)
        };
        assert!(
            hint(&["decode", "-f", jwt], None)
                .unwrap()
                .contains("not a path")
        );
        assert!(hint(&["probe", &format!("--cacert={jwt}")], None).is_some());
        assert!(hint(&[jwt], None).is_some());
        assert!(
            hint(&["decode", "Bearer", jwt], None)
                .unwrap()
                .contains("split")
        );
        assert_eq!(hint(&["decode", jwt], Some(jwt)), None);
        assert_eq!(hint(&["decode", "-f", "token.jwt"], None), None);
        // A token in its place, and an error about something else.
        let other = misplaced_token_hint(&args(&["decode", "--now", "x", jwt]), None, "bad --now");
        assert_eq!(other, None);
    }

    #[test]
    fn cli_is_consistent() {
        Cli::command().debug_assert();
    }

    /// The deferred build must not replace a subcommand's about text (the one
    /// `kubectl satoken --help` lists) with a doc comment of an Args struct.
    #[test]
    fn deferred_subcommands_keep_their_about() {
        let listed: Vec<_> = Cli::command()
            .get_subcommands()
            .map(|s| {
                (
                    s.get_name().to_owned(),
                    s.get_about().map(|a| a.to_string()),
                )
            })
            .collect();
        let mut built = Cli::command();
        built.build();
        for (name, about) in listed {
            let sub = built.find_subcommand(&name).unwrap();
            assert_eq!(sub.get_about().map(|a| a.to_string()), about, "{name}");
            if name != "__complete" {
                assert!(sub.get_arguments().count() > 3, "{name} was built empty");
            }
        }
    }

    #[test]
    fn debug_output_never_shows_a_token() {
        let cli = Cli::parse_from(["kubectl-satoken", "decode", "eyJhbGciOiJub25lIn0.e30."]);
        assert!(!format!("{cli:?}").contains("eyJ"));
    }

    #[test]
    fn global_flags_parse_anywhere() {
        let cli = Cli::parse_from([
            "kubectl-satoken",
            "decode",
            "-o",
            "json",
            "--leeway",
            "1m30s",
        ]);
        assert_eq!(cli.global.output, OutputFormat::Json);
        assert_eq!(cli.global.leeway, TimeDelta::seconds(90));
    }
}
