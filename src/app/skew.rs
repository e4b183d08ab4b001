//! `skew`: read the token (optional when another clock source is given) and the
//! Lease/Node documents -> clock readings -> analyse -> render.

use std::path::Path;

use anyhow::Context as _;

use url::Url;

use super::{Cx, client_config, read_one_token};
use crate::cli::SkewArgs;
use crate::env::Env;
use crate::exit::Outcome;
use crate::findings::{Code, Finding};
use crate::http::RunClock;
use crate::input::TokenSource;
use crate::report::skew::json::SkewJson;
use crate::report::skew::write_skew;
use crate::skew::observe::{self, ServerClock};
use crate::skew::{self, TokenTimes, sources};

/// Largest Lease or Node list read: about 3,000 Nodes with images and
/// managedFields. The text is parsed into a `serde_json::Value` tree, which costs
/// several times the text, so this bounds memory too (a 1 GiB stdin is refused
/// after 64 MiB).
const MAX_LIST_BYTES: u64 = 64 * 1024 * 1024;

pub fn run(args: SkewArgs, Cx(settings, env, out, _): Cx<'_>) -> anyhow::Result<Outcome> {
    let is_stdin = |p: Option<&Path>| p.is_some_and(|p| p.as_os_str() == "-");
    let claims: Vec<&str> = [
        (
            is_stdin(args.token.token_file.as_deref()),
            "the token (-f -)",
        ),
        (is_stdin(args.leases.as_deref()), "--leases -"),
        (is_stdin(args.nodes.as_deref()), "--nodes -"),
    ]
    .into_iter()
    .filter_map(|(wants, name)| wants.then_some(name))
    .collect();
    if claims.len() > 1 {
        anyhow::bail!(
            "stdin can feed only one input, but {} {} ask for it: save the others to files",
            claims.join(" and "),
            if claims.len() == 2 { "both" } else { "all" }
        );
    }
    // Leases or Nodes on stdin: the token must come from elsewhere.
    let token_env =
        env.without_stdin_if(is_stdin(args.leases.as_deref()) || is_stdin(args.nodes.as_deref()));
    let token = read_token(&args, &token_env)?;

    // One run clock: `now` and every --server's send/receive instants share it.
    let clock = RunClock::start(settings.clock);
    let now = clock.started_at();
    let leeway = settings.leeway;
    let mut readings = sources::from_specs(&args.clocks, now)?;
    let mut findings = Vec::new();
    let mut apiserver = None;
    if let Some(path) = &args.leases {
        let (text, what) = read_document(path, "--leases")?;
        let obs = sources::from_leases(&text, &what, now, leeway).context("--leases")?;
        readings.extend(obs.readings);
        findings.extend(obs.findings);
        apiserver = obs.apiserver;
    }
    if let Some(path) = &args.nodes {
        let (text, what) = read_document(path, "--nodes")?;
        let obs = sources::from_nodes(&text, &what, now, leeway, apiserver).context("--nodes")?;
        readings.extend(obs.readings);
        findings.extend(obs.findings);
    }
    let mut unreachable = Outcome::Healthy;
    if !args.servers.is_empty() {
        let urls = super::probe::servers(&args.servers, None, env)?;
        let config = client_config(&args.tls, &args.token.sa_dir)?;
        for (url, measured) in observe::measure(&urls, &config, clock)? {
            let name = server_name(&url);
            match measured {
                ServerClock::Measured(interval) => {
                    readings.push(sources::from_date_interval(name, interval));
                }
                ServerClock::NoDate => findings.push(Finding::warning(
                    Code::NoDateHeader,
                    format!("{name} answered without a Date header: its clock is unknown"),
                )),
                ServerClock::BadDate(raw) => findings.push(Finding::warning(
                    Code::NoDateHeader,
                    format!(
                        "{name} answered with a Date header that is not an HTTP date ({raw:?}): its clock is unknown"
                    ),
                )),
                ServerClock::Unreachable(e) => {
                    unreachable = Outcome::Unreachable;
                    findings.push(Finding::error(
                        Code::ServerUnreachable,
                        format!("{name}: {e}; its clock is unknown"),
                    ));
                }
            }
        }
    }
    match &token {
        Some(t) if !args.has_clock_source() => {
            let (reading, finding) = sources::from_token_iat(t, now, leeway);
            readings.extend(reading);
            findings.push(finding);
        }
        Some(_) => {}
        None => findings.push(Finding::info(
            Code::NoToken,
            "no token given (and none mounted): the clocks are measured, but no verdict is given",
        )),
    }

    let report = skew::analyse(token, readings, findings, now, leeway);
    super::render(out, settings, &report, SkewJson::new, write_skew)?;
    Ok(report.outcome().max(unreachable))
}

/// `host:port` of a server URL: short enough for the clock table.
fn server_name(url: &Url) -> String {
    let host = url.host_str().unwrap_or("?");
    match url.port_or_known_default() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    }
}

/// The token, or `None` when no token was given, none is mounted, and another
/// clock source makes the run worthwhile without one.
fn read_token(args: &SkewArgs, env: &Env) -> anyhow::Result<Option<TokenTimes>> {
    let source = args.token.source(env);
    if let TokenSource::InPodDefault(path) = &source
        && args.has_clock_source()
        && !path.exists()
    {
        return Ok(None);
    }
    // Implicit stdin that turns out empty (a CI runner's stdin) is no token either.
    let implicit_stdin = source == TokenSource::Stdin && args.token.token_file.is_none();
    match read_one_token(source) {
        Ok((_, token)) => Ok(Some(TokenTimes::from_token(&token))),
        Err(e) if implicit_stdin && args.has_clock_source() && super::is_empty_input(&e) => {
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// A Lease or Node list from a file or stdin, with a size bound.
fn read_document(path: &Path, flag: &str) -> anyhow::Result<(String, String)> {
    let what = if path.as_os_str() == "-" {
        format!("stdin ({flag} -)")
    } else {
        format!("file {}", path.display())
    };
    let bytes = crate::input::file::open(path)
        .and_then(|reader| super::read_at_most(reader, MAX_LIST_BYTES))
        .with_context(|| format!("{flag}: cannot read {what}"))?
        .with_context(|| {
            format!(
                "{flag}: {what} is over the {} MiB limit",
                MAX_LIST_BYTES >> 20
            )
        })?;
    let text = crate::input::file::utf8_string(bytes).with_context(|| format!("{flag}: {what}"))?;
    Ok((text, what))
}
