//! `probe`: resolve targets and trust -> observe (network) -> analyse -> render.

use std::io::Write;
use std::path::Path;

use anyhow::Context as _;

use super::read_one_token;
use crate::cli::ProbeArgs;
use crate::env::Env;
use crate::exit::Outcome;
use crate::http::{ClientConfig, RunClock, Trust};
use crate::probe::observe::{self, Plan};
use crate::probe::{self, AccessQuery, target};
use crate::report::OutputFormat;
use crate::report::json::write_pretty;
use crate::report::probe::{ProbeJson, write_probe};
use crate::settings::Settings;

/// `probe`.
pub fn run(
    args: ProbeArgs,
    settings: &Settings,
    env: &Env,
    out: &mut dyn Write,
    _err: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let (shaped, token) = read_one_token(&args.token, env)?;
    let sa_dir = &args.token.sa_dir;
    let servers = if args.servers.is_empty() {
        vec![target::in_pod_server(
            env.kubernetes_service_host.as_deref(),
            env.kubernetes_service_port.as_deref(),
        )?]
    } else {
        args.servers
            .iter()
            .map(|s| target::parse_server(s))
            .collect::<Result<_, _>>()?
    };
    let trust = if args.insecure_skip_tls_verify {
        Trust::InsecureSkipVerify
    } else {
        let ca_pem = match &args.cacert {
            Some(path) => Some(
                read_bounded(path)
                    .with_context(|| format!("cannot read CA bundle {}", path.display()))?,
            ),
            None => read_if_present(&sa_dir.join("ca.crt"))?,
        };
        if ca_pem.is_none() && !args.system_roots {
            anyhow::bail!(
                "no CA to verify the server with: {} does not exist; pass --cacert PATH (or --system-roots, or --insecure-skip-tls-verify)",
                sa_dir.join("ca.crt").display()
            );
        }
        Trust::Roots {
            ca_pem,
            system: args.system_roots,
        }
    };
    let namespace = match &args.namespace {
        Some(ns) => Some(ns.clone()),
        None => read_if_present(&sa_dir.join("namespace"))?
            .map(|b| String::from_utf8_lossy(&b).trim().to_owned())
            .filter(|ns| !ns.is_empty())
            .or_else(|| token.claims.namespace().map(str::to_owned)),
    };
    let access = args.verb.as_ref().map(|verb| AccessQuery {
        verb: verb.clone(),
        resource: args.resource.clone().unwrap_or_default(),
        subresource: args.subresource.clone(),
        group: args.group.clone(),
        namespace: if args.cluster_scope {
            None
        } else {
            Some(namespace.clone().unwrap_or_else(|| "default".to_owned()))
        },
        name: args.name.clone(),
    });
    let plan = Plan {
        servers,
        client: ClientConfig {
            timeout: args
                .timeout
                .to_std()
                .unwrap_or(crate::http::DEFAULT_TIMEOUT),
            allow_plain_http: args.allow_plain_http,
            ..ClientConfig::new(trust)
        },
        access,
        path: args.path.clone(),
        anonymous: args.anonymous,
    };
    // The clock starts before the clients so their timestamps share its origin.
    let clock = RunClock::start(settings.clock);
    let clients = observe::clients(&plan, clock)?;
    let observations = observe::observe(&plan, &clients, &shaped.token);
    let report = probe::analyse(observations, &token, clock.started_at(), settings.leeway);
    match settings.format {
        OutputFormat::Json => write_pretty(out, &ProbeJson::new(&report))?,
        OutputFormat::Table => write_probe(out, &report, &settings.table)?,
    }
    Ok(probe::outcome(&report))
}

/// A file's bytes, or `None` if it does not exist.
fn read_if_present(path: &Path) -> anyhow::Result<Option<Vec<u8>>> {
    match read_bounded(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// Largest CA bundle or namespace file read (a system CA bundle is ~200 KiB).
const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// A whole file, refused past [`MAX_FILE_BYTES`] (`--cacert /dev/zero` must not
/// exhaust memory).
fn read_bounded(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(std::io::Error::other(format!(
            "over the {MAX_FILE_BYTES}-byte limit"
        )));
    }
    Ok(bytes)
}
