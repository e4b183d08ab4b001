//! `verify`: read the keys -> read and parse the token -> verify -> render.
//! Key files are read here, or fetched (`verify::fetch`), and handed to the pure
//! parsers in `verify::keys` as bytes.

use std::path::Path;

use anyhow::Context as _;

use url::Url;

use super::{Cx, client_config, read_one_token};
use crate::cli::VerifyArgs;
use crate::exit::{Outcome, Unreachable};
use crate::findings::{Code, Finding};
use crate::http::RunClock;
use crate::report::verify::{VerifyJson, write_verify};
use crate::token::Token;
use crate::verify::fetch::{self, FetchError};
use crate::verify::keys::{self, KeySet, MAX_KEY_DOCUMENT_BYTES};
use crate::verify::trust::{self, TrustExpectation};
use crate::verify::{self, Expectations};

/// `verify`: exit 0 valid, 1 invalid, 2 bad input.
pub fn run(args: VerifyArgs, Cx(settings, env, out, _): Cx<'_>) -> anyhow::Result<Outcome> {
    let jwks_on_stdin = args.jwks.as_deref().is_some_and(is_stdin);
    if jwks_on_stdin && args.token.token_file.as_deref().is_some_and(is_stdin) {
        anyhow::bail!(
            "--jwks - and -f - both want stdin: pass the token as TOKEN or -f FILE, or the JWKS as a file"
        );
    }
    let jwks_url = jwks_url(&args)?;
    let config = super::read_authn_config(args.authentication_config.as_deref())?;
    let trust = trust_expectation(&args)?;
    let mut keys = load_keys(&args, jwks_url.is_some())?;
    // With the JWKS on stdin, stdin is not the token: fall back to the in-pod default.
    let token_env = env.without_stdin_if(jwks_on_stdin);
    let (shaped, token) = read_one_token(args.token.source(&token_env))?;
    let mut notes = Vec::new();
    if let Some(url) = &jwks_url {
        let config = client_config(&args.tls, &args.token.sa_dir)?;
        let clock = RunClock::start(settings.clock);
        let fetched = match fetch::fetch(url, &config, clock, &shaped.token) {
            Ok(f) => f,
            Err(e @ FetchError::Config(_)) => return Err(e.into()),
            Err(e) => return Err(Unreachable(e.to_string()).into()),
        };
        let label = fetched.jwks_url.to_string();
        let jwks = keys::parse_jwks(&fetched.jwks)
            .with_context(|| format!("cannot use the JWKS from {label}"))?;
        keys.extend(jwks, &label);
        notes = fetch_notes(&fetched, &token, args.issuers.is_empty());
    }
    let expect = Expectations {
        issuers: args.issuers.clone(),
        audiences: args.audiences.clone(),
    };
    let mut report = verify::verify(
        shaped.token.expose(),
        &token,
        &keys,
        &expect,
        settings.clock.now(),
        settings.leeway,
    );
    report.findings.extend(notes);
    crate::findings::sort(&mut report.findings);
    if let Some(config) = &config {
        if let Ok(bound) = args.tls.timeout.to_std() {
            crate::authconfig::set_time_bound(bound);
        }
        report.add_authn(crate::authconfig::evaluate(config, &token)?);
    }
    if let Some(expect) = trust {
        let (check, findings) = trust::check(&token, &expect);
        report.add_trust(check, findings);
    }
    let json = |r| VerifyJson::new(r, &token);
    super::render(out, settings, &report, json, write_verify)?;
    Ok(Outcome::problem_if(!report.valid))
}

/// `--federated-credential` and `--expect-*`: what a cloud trust policy
/// expects, the flags overriding the file's fields.
fn trust_expectation(args: &VerifyArgs) -> anyhow::Result<Option<TrustExpectation>> {
    let mut expect = match &args.federated_credential {
        Some(path) => {
            let text = super::read_file(path).with_context(|| {
                format!("cannot read --federated-credential {}", path.display())
            })?;
            trust::parse_federated_credential(&text, &path.display().to_string())?
        }
        None => TrustExpectation {
            source: "the expected values (--expect-*)".to_owned(),
            ..TrustExpectation::default()
        },
    };
    expect.issuer = args.expect_issuer.clone().or(expect.issuer);
    expect.subject = args.expect_subject.clone().or(expect.subject);
    if !args.expect_audiences.is_empty() {
        expect.audiences = args.expect_audiences.clone();
    }
    Ok((!expect.is_empty()).then_some(expect))
}

fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

fn jwks_url(args: &VerifyArgs) -> anyhow::Result<Option<Url>> {
    let Some(text) = args.jwks.as_deref().and_then(Path::to_str) else {
        return Ok(None);
    };
    if !(text.starts_with("https://") || text.starts_with("http://")) {
        return Ok(None);
    }
    Url::parse(text)
        .map(Some)
        .with_context(|| format!("--jwks {text:?} is not a valid URL"))
}

/// What fetching taught us: where the keys came from, and the issuer the
/// cluster's discovery document names (only the first of its issuers: others
/// may be accepted too, so a difference is a warning, not a failed check).
fn fetch_notes(fetched: &fetch::Fetched, token: &Token, no_issuer_flag: bool) -> Vec<Finding> {
    let mut notes = vec![Finding::info(
        Code::KeysFetched,
        format!("keys fetched from {}", fetched.jwks_url),
    )];
    let discovered = fetched.discovery.as_ref().and_then(|d| d.issuer.as_deref());
    if let (Some(issuer), true) = (discovered, no_issuer_flag) {
        match token.claims.issuer.as_deref() {
            Some(iss) if iss == issuer => notes.push(Finding::info(
                Code::KeysFetched,
                format!("the token's issuer is the one the cluster's discovery document names ({issuer})"),
            )),
            other => notes.push(Finding::warning(
                Code::IssuerNotDiscovered,
                format!(
                    "the token's issuer {:?} is not the cluster's first --service-account-issuer {issuer:?} (from its discovery document): a token from another cluster, or from before an issuer change (still accepted only if the old issuer is configured too); check with --issuer",
                    other.unwrap_or("")
                ),
            )),
        }
    }
    notes
}

/// The `--jwks` file's keys (unless it is a URL) and each `--key` file's, in that
/// order, labelled with their files.
fn load_keys(args: &VerifyArgs, jwks_is_url: bool) -> anyhow::Result<KeySet> {
    let mut set = KeySet::default();
    if let Some(path) = args.jwks.as_ref().filter(|_| !jwks_is_url) {
        let bytes = read_key_file(path).context("cannot read the JWKS")?;
        let jwks = keys::parse_jwks(&bytes)
            .with_context(|| format!("cannot use the JWKS in {}", label(path)))?;
        set.extend(jwks, &label(path));
    }
    for path in &args.keys {
        let bytes = read_key_file(path).context("cannot read a --key file")?;
        let pem = keys::parse_pem_keys(&bytes)
            .with_context(|| format!("cannot use the keys in {}", label(path)))?;
        set.extend(pem, &label(path));
    }
    Ok(set)
}

/// A file (or stdin for `-`), bounded by [`MAX_KEY_DOCUMENT_BYTES`].
fn read_key_file(path: &Path) -> anyhow::Result<Vec<u8>> {
    let reader = crate::input::file::open(path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    let limit = MAX_KEY_DOCUMENT_BYTES;
    super::read_at_most(reader, limit as u64)
        .with_context(|| format!("cannot read {}", label(path)))?
        .with_context(|| {
            format!(
                "{} is over the {limit}-byte limit for a key document",
                label(path)
            )
        })
}

/// How a key file is named in messages and key sources: as given, or "stdin".
fn label(path: &Path) -> String {
    if is_stdin(path) {
        "stdin".to_owned()
    } else {
        path.display().to_string()
    }
}
