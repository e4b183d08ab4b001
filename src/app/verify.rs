//! `verify`: read the keys -> read and parse the token -> verify -> render.
//! Key files are read here and handed to the pure parsers in `verify::keys` as
//! bytes; fetching `--jwks` from a URL will slot in beside `read_key_file`.

use std::io::{self, Read as _, Write};
use std::path::Path;

use anyhow::Context as _;

use super::read_one_token;
use crate::cli::VerifyArgs;
use crate::env::Env;
use crate::exit::Outcome;
use crate::report::OutputFormat;
use crate::report::json::write_pretty;
use crate::report::verify::{VerifyJson, write_verify};
use crate::settings::Settings;
use crate::verify::keys::{self, KeySet, MAX_KEY_DOCUMENT_BYTES};
use crate::verify::{self, Expectations};

/// `verify`: exit 0 valid, 1 invalid, 2 bad input.
pub fn run(
    args: VerifyArgs,
    settings: &Settings,
    env: &Env,
    out: &mut dyn Write,
    _err: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let jwks_on_stdin = args.jwks.as_deref().is_some_and(is_stdin);
    if jwks_on_stdin && args.token.token_file.as_deref().is_some_and(is_stdin) {
        anyhow::bail!(
            "--jwks - and -f - both want stdin: pass the token as TOKEN or -f FILE, or the JWKS as a file"
        );
    }
    let keys = load_keys(&args)?;
    // With the JWKS on stdin, stdin is not the token: fall back to the in-pod default.
    let token_env = Env {
        stdin_readable: env.stdin_readable && !jwks_on_stdin,
        ..env.clone()
    };
    let (shaped, token) = read_one_token(&args.token, &token_env)?;
    let expect = Expectations {
        issuers: args.issuers,
        audiences: args.audiences,
    };
    let report = verify::verify(
        shaped.token.expose(),
        &token,
        &keys,
        &expect,
        settings.clock.now(),
        settings.leeway,
    );
    match settings.format {
        OutputFormat::Json => write_pretty(out, &VerifyJson::new(&report))?,
        OutputFormat::Table => write_verify(out, &report, &settings.table)?,
    }
    Ok(if report.valid {
        Outcome::Healthy
    } else {
        Outcome::Problem
    })
}

fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Every key from `--jwks` and each `--key`, labelled with its file.
fn load_keys(args: &VerifyArgs) -> anyhow::Result<KeySet> {
    let mut set = KeySet::default();
    if let Some(path) = &args.jwks {
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
    let reader: Box<dyn io::Read> = if is_stdin(path) {
        Box::new(io::stdin().lock())
    } else {
        Box::new(
            std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?,
        )
    };
    let mut bytes = Vec::new();
    reader
        .take(MAX_KEY_DOCUMENT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {}", label(path)))?;
    if bytes.len() > MAX_KEY_DOCUMENT_BYTES {
        anyhow::bail!(
            "{} is over the {MAX_KEY_DOCUMENT_BYTES}-byte limit for a key document",
            label(path)
        );
    }
    Ok(bytes)
}

/// How a key file is named in messages and key sources: as given, or "stdin".
fn label(path: &Path) -> String {
    if is_stdin(path) {
        "stdin".to_owned()
    } else {
        path.display().to_string()
    }
}
