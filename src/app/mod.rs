//! The edge of every subcommand: one file each (`app/<subcommand>.rs`), each the
//! same pipeline: read -> shape -> parse -> (observe) -> analyse -> render.
//! anyhow lives here and in main.rs; the modules below return typed errors.

mod audit;
mod classify;
mod classify_log;
mod completion;
mod decode;
mod doctor;
mod explain;
mod probe;
mod skew;
mod verify;
mod watch;

use std::io::{self, BufRead, Read, Write};
use std::path::Path;

use anyhow::Context as _;
use serde::Serialize;

use crate::authconfig::{self, AuthnConfig};
use crate::cli::{AccessArgs, Cli, Command, TlsArgs, TokenArgs};
use crate::env::Env;
use crate::error::{InputError, TokenError};
use crate::exit::Outcome;
use crate::http::{self, ClientConfig, Trust};
use crate::input::{self, ShapedToken, TokenInput, TokenSource};
use crate::probe::AccessQuery;
use crate::report::{TableStyle, write_data};
use crate::settings::Settings;
use crate::token;

pub fn run(
    cli: Cli,
    env: &Env,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let settings = &Settings::new(&cli.global, env);
    let cx = Cx(settings, env, out, err);
    match cli.command {
        Command::Decode(args) => decode::run(args, cx),
        Command::Skew(args) => skew::run(args, cx),
        Command::Verify(args) => verify::run(args, cx),
        Command::Probe(args) => probe::run(*args, cx),
        Command::Classify(args) => classify::run(args, cx),
        Command::Audit(args) => audit::run(args, cx),
        Command::Doctor(args) => doctor::run(*args, cx),
        Command::Explain(args) => explain::run(args, settings, out),
        Command::Watch(args) => watch::run(*args, cx),
        Command::Completion(args) => completion::completion(args, out),
        Command::Complete(args) => completion::complete(args, out),
    }
}

/// What every subcommand runs with: the settings, the environment, stdout
/// and stderr.
struct Cx<'a>(&'a Settings, &'a Env, &'a mut dyn Write, &'a mut dyn Write);

/// Writes `report` as `-o` asks: the wire document `json` makes of it, as
/// JSON or YAML, or `table`'s tables.
fn render<'a, R, J: Serialize>(
    out: &mut dyn Write,
    settings: &Settings,
    report: &'a R,
    json: impl FnOnce(&'a R) -> J,
    table: impl FnOnce(&mut dyn Write, &'a R, &TableStyle) -> io::Result<()>,
) -> io::Result<()> {
    match settings.format.data() {
        Some(data) => write_data(out, data, &json(report)),
        None => table(out, report, &settings.table),
    }
}

/// Opens `source` and reads it far enough to tell one token from several;
/// with the source as messages name it.
fn read_tokens(source: TokenSource) -> anyhow::Result<(TokenInput, String)> {
    let what = source.describe();
    let reader = source
        .open(|| Box::new(io::stdin().lock()) as Box<dyn BufRead>)
        .with_context(|| format!("cannot read a token from {what}"))?;
    let input = input::read_tokens(reader, &what)
        .with_context(|| format!("cannot read a token from {what}"))?;
    Ok((input, what))
}

/// Like [`read_one_token`], but an implicit stdin (a pipe nobody wrote to, as
/// some runtimes give init containers) that turns out empty falls back to the
/// mounted token: for commands whose natural input is the in-pod token.
pub fn read_one_token_or_mounted(
    args: &TokenArgs,
    env: &Env,
) -> anyhow::Result<(ShapedToken, token::Token)> {
    let source = args.source(env);
    let implicit_stdin = source == TokenSource::Stdin && args.token_file.is_none();
    match read_one_token(source) {
        Err(e) if implicit_stdin && is_empty_input(&e) => {
            read_one_token(TokenSource::InPodDefault(args.sa_dir.join("token")))
        }
        result => result,
    }
}

fn is_empty_input(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        matches!(cause.downcast_ref::<TokenError>(), Some(TokenError::Empty))
            || matches!(
                cause.downcast_ref::<InputError>(),
                Some(InputError::Token(TokenError::Empty))
            )
    })
}

/// Reads exactly one token (a batch is refused) and parses it.
pub fn read_one_token(source: TokenSource) -> anyhow::Result<(ShapedToken, token::Token)> {
    let (shaped, what) = read_one_shaped(source)?;
    let token = token::parse(&shaped.token)
        .with_context(|| format!("cannot decode the token from {what}"))?;
    Ok((shaped, token))
}

/// Reads exactly one bearer token; a JWT is parsed, and any other one word
/// (a bootstrap token, an opaque OIDC access token, a wrong value) is kept
/// opaque: the server is the judge of those.
pub fn read_one_bearer(source: TokenSource) -> anyhow::Result<(ShapedToken, Option<token::Token>)> {
    let (shaped, what) = read_one_shaped(source)?;
    bearer(shaped, &what)
}

/// A token read from `what`, parsed unless it is opaque (one segment).
pub(crate) fn bearer(
    shaped: ShapedToken,
    what: &str,
) -> anyhow::Result<(ShapedToken, Option<token::Token>)> {
    match token::parse(&shaped.token) {
        Ok(token) => Ok((shaped, Some(token))),
        Err(TokenError::SegmentCount { found: 1 }) => Ok((shaped, None)),
        Err(e) => Err(e).with_context(|| format!("cannot decode the token from {what}")),
    }
}

/// The one token a subcommand other than decode takes, or why not; with the
/// source as messages name it.
fn read_one_shaped(source: TokenSource) -> anyhow::Result<(ShapedToken, String)> {
    let (input, what) = read_tokens(source)?;
    match input {
        TokenInput::Single(shaped) => Ok((shaped, what)),
        TokenInput::Many(tokens) => anyhow::bail!(
            "{what} holds {} tokens (CSI audiences {}); this subcommand takes one token (decode takes many)",
            tokens.len(),
            tokens
                .iter()
                .filter_map(|t| t.context.csi_audience.as_deref())
                .map(crate::sanitize::sanitize)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        TokenInput::Batch(_) => anyhow::bail!(
            "{what} holds several lines; this subcommand takes one token (decode takes many)"
        ),
    }
}

/// Trust as the connection flags select it: `--insecure-skip-tls-verify`, else
/// `--cacert`, else `ca.crt` in the ServiceAccount directory, plus the OS roots
/// with `--system-roots`.
pub(crate) fn trust_from_flags(tls: &TlsArgs, sa_dir: &Path) -> anyhow::Result<Trust> {
    if tls.insecure_skip_tls_verify {
        return Ok(Trust::InsecureSkipVerify);
    }
    let in_pod_ca = sa_dir.join("ca.crt");
    let ca_pem = match &tls.cacert {
        Some(path) => Some(
            read_file(path)
                .with_context(|| format!("cannot read CA bundle {}", path.display()))?
                .into_bytes(),
        ),
        None => read_if_present(&in_pod_ca)?.map(String::into_bytes),
    };
    if ca_pem.is_none() && !tls.system_roots {
        if tls.allow_plain_http {
            // An https:// URL is refused when its client is built.
            return Ok(Trust::PlainHttpOnly);
        }
        anyhow::bail!(
            "no CA to verify the server with: {} does not exist; pass --cacert PATH (or --system-roots, or --insecure-skip-tls-verify)",
            in_pod_ca.display()
        );
    }
    Ok(Trust::Roots {
        ca_pem,
        system: tls.system_roots,
    })
}

/// The client configuration: `trust`, plus the flags' timeout and plain-HTTP
/// choice, and the command's overall deadline (counted from now).
pub(crate) fn client_config_with(tls: &TlsArgs, trust: Trust) -> ClientConfig {
    let timeout = tls.timeout.to_std().unwrap_or(http::DEFAULT_TIMEOUT);
    ClientConfig {
        timeout,
        deadline: Some(http::overall_deadline(timeout)),
        allow_plain_http: tls.allow_plain_http,
        ..ClientConfig::new(trust)
    }
}

/// The client configuration the connection flags select (no kubeconfig).
pub(crate) fn client_config(tls: &TlsArgs, sa_dir: &Path) -> anyhow::Result<ClientConfig> {
    Ok(client_config_with(tls, trust_from_flags(tls, sa_dir)?))
}

/// All of `reader`, or `None` past `limit` bytes.
fn read_at_most(reader: impl Read, limit: u64) -> io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    reader.take(limit + 1).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= limit).then_some(bytes))
}

/// Largest CA bundle, kubeconfig, token or namespace file read whole (a system CA
/// bundle is ~200 KiB; a kubeconfig with hundreds of contexts a few MiB).
pub(crate) const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// A whole file as text ([`input::file`]), refused past [`MAX_FILE_BYTES`]:
/// `--cacert /dev/zero` must not exhaust memory. Errors keep their kind
/// (`NotFound` stays `NotFound`).
pub(crate) fn read_file(path: &Path) -> io::Result<String> {
    input::file::read_to_string(path, MAX_FILE_BYTES)
}

/// `--authentication-config FILE`, read and parsed (bounded, YAML or JSON).
pub(crate) fn read_authn_config(path: Option<&Path>) -> anyhow::Result<Option<AuthnConfig>> {
    let Some(path) = path else { return Ok(None) };
    let text = read_file(path)
        .with_context(|| format!("cannot read --authentication-config {}", path.display()))?;
    Ok(Some(authconfig::parse(&text, &path.display().to_string())?))
}

pub(crate) fn read_if_present(path: &Path) -> anyhow::Result<Option<String>> {
    match read_file(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// The access review the flags ask for. Its namespace defaults to the
/// kubeconfig context's (`probe`), then the mounted `namespace` file, then
/// the token's namespace, then `default`.
pub(crate) fn access_query(
    access: &AccessArgs,
    kube_namespace: Option<&str>,
    sa_dir: &Path,
    token: Option<&token::Token>,
) -> anyhow::Result<Option<AccessQuery>> {
    let namespace = match (&access.namespace, kube_namespace) {
        (Some(ns), _) => Some(ns.clone()),
        (None, Some(ns)) => Some(ns.to_owned()),
        (None, None) => read_if_present(&sa_dir.join("namespace"))?
            .map(|ns| ns.trim().to_owned())
            .filter(|ns| !ns.is_empty())
            .or_else(|| token?.claims.namespace().map(str::to_owned)),
    };
    Ok(access.verb.as_ref().map(|verb| AccessQuery {
        verb: verb.clone(),
        resource: access.resource.clone().unwrap_or_default(),
        subresource: access.subresource.clone(),
        group: access.group.clone(),
        namespace: (!access.cluster_scope).then(|| namespace.unwrap_or_else(|| "default".into())),
        name: access.name.clone(),
    }))
}

const MAX_MERGE_BYTES: u64 = 512 * 1024 * 1024;

/// `--merge`'s documents (two or more, written by `command`; gzip is read as
/// is), each parsed as JSON and read by `read` with its name.
fn documents<T, E: std::error::Error + Send + Sync + 'static>(
    files: &[std::path::PathBuf],
    command: &str,
    read: impl Fn(serde_json::Value, &str) -> Result<T, E>,
) -> anyhow::Result<Vec<T>> {
    if files.len() < 2 {
        anyhow::bail!("--merge takes two or more `{command}` documents");
    }
    let mut docs = Vec::new();
    for path in files {
        let what = format!("file {}", path.display());
        let file = std::fs::File::open(path).with_context(|| format!("cannot open {what}"))?;
        if file.metadata().map(|m| m.len()).unwrap_or(0) > MAX_MERGE_BYTES {
            anyhow::bail!(
                "{what} is over the {} MiB limit for a document to merge",
                MAX_MERGE_BYTES >> 20
            );
        }
        let reader = crate::input::file::text(Box::new(file))
            .with_context(|| format!("cannot read {what}"))?;
        let value: serde_json::Value = serde_json::from_reader(reader.take(MAX_MERGE_BYTES))
            .with_context(|| format!("{what} is not a `{command}` document"))?;
        docs.push(read(value, &what)?);
    }
    Ok(docs)
}
