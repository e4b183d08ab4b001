//! One entry point per parser of user input (flag values included), shared by the cargo-fuzz targets
//! (`fuzz/fuzz_targets/*.rs`, one line each) and the property tests
//! (`tests/it/props.rs`), so both exercise the same code and neither can drift from
//! the library's API. Each takes arbitrary bytes; errors are fine, panics are not.

use std::io::Cursor;
use std::path::Path;

use chrono::{DateTime, TimeDelta, Utc};

use crate::classify::{self, Context};
use crate::input::{TokenInput, read_tokens};
use crate::report::json::DecodeJson;
use crate::report::{Styles, TableStyle, table};
use crate::skew::sources;
use crate::verify::keys;
use crate::{decode, kubeconfig, token};

/// The instant every entry point judges at: the fixtures' 2026-01-01T00:00:00Z.
fn now() -> DateTime<Utc> {
    DateTime::from_timestamp(1_767_225_600, 0).expect("a valid instant")
}

const LEEWAY: TimeDelta = TimeDelta::seconds(60);

/// Token input detection (raw, Bearer, Authorization header, TokenRequest,
/// ExecCredential and Secret JSON, batches), JWT parsing, the analysis, and both
/// renderers (the table with colour, so the styled paths run too).
pub fn token(data: &[u8]) {
    let Ok(input) = read_tokens(Box::new(Cursor::new(data.to_vec())), "fuzz") else {
        return;
    };
    let shaped: Vec<_> = match input {
        TokenInput::Single(s) => vec![s],
        TokenInput::Many(all) => all,
        TokenInput::Batch(lines) => lines.filter_map(|l| l.ok()?.result.ok()).collect(),
    };
    let mut styles = Styles::default();
    styles.colorize();
    let style = TableStyle {
        styles,
        ..TableStyle::plain(80)
    };
    for shaped in shaped {
        let Ok(token) = token::parse(&shaped.token) else {
            continue;
        };
        let report = decode::analyse(token, &shaped, now(), LEEWAY);
        let mut sink = Vec::new();
        serde_json::to_writer(&mut sink, &DecodeJson::new(&report, Some(1)))
            .expect("serialising to memory cannot fail");
        table::write_decode(&mut sink, &report, &style).expect("writing to memory cannot fail");
    }
}

/// `verify`'s key readers: JWKS, PEM bundles, OpenID discovery documents.
pub fn keys(data: &[u8]) {
    if let Ok(set) = keys::parse_jwks(data) {
        let _ = set.kids();
    }
    if let Ok(set) = keys::parse_pem_keys(data) {
        let _ = set.kids();
    }
    let _ = keys::parse_openid_configuration(data);
}

/// `skew`'s Lease and Node list readers.
pub fn skew_sources(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let apiserver = sources::from_leases(text, "fuzz", now(), LEEWAY)
        .ok()
        .and_then(|o| o.apiserver);
    let _ = sources::from_nodes(text, "fuzz", now(), LEEWAY, apiserver);
}

/// `classify`'s evidence reader: type detection, every format's parser, and the
/// diagnosis of each event. Evidence is read lossily (logs carry stray bytes),
/// as the binary does.
pub fn classify(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let ctx = Context {
        token: None,
        at: None,
        now: now(),
        leeway: LEEWAY,
    };
    let _ = classify::classify(&text, None, ctx);
}

/// `probe`'s kubeconfig reader: YAML parsing, then context resolution (the
/// current context, and `context` when given).
pub fn kubeconfig(data: &[u8], context: Option<&str>) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(file) = kubeconfig::parse_file(Path::new("fuzz.kubeconfig"), text) {
        let _ = kubeconfig::resolve(vec![file], context);
    }
}

/// The flag value parsers and what they feed: `--now`, `--leeway`,
/// `--request-timeout`, `--clock NAME=OFFSET`, `-s URL` and `--path`, through
/// clap as the binary parses them; every accepted instant and duration then
/// goes through the time window with the extreme claims a token may carry
/// (`skew`'s clock offsets included), so no sum of bounded values can panic.
/// Input: up to four values, one per line.
pub fn flags(data: &[u8]) {
    use clap::Parser as _;

    use crate::cli::{Cli, Command};
    use crate::window::{self, TimeClaims};

    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut values = text.splitn(4, '\n');
    let mut next = || values.next().unwrap_or("");
    let (instant, leeway, duration, other) = (next(), next(), next(), next());
    let _ = crate::http::target::parse_server(other);
    let _ = Cli::try_parse_from(["kubectl-satoken", "probe", "--path", other, "-s", other]);
    let clock = sources::parse_clock_spec(other).ok();
    let parsed = Cli::try_parse_from([
        "kubectl-satoken",
        "probe",
        "--now",
        instant,
        "--leeway",
        leeway,
        "--request-timeout",
        duration,
        "--token",
        "x",
    ]);
    let Ok(cli) = parsed else {
        return;
    };
    let Command::Probe(probe) = &cli.command else {
        unreachable!("parsed as probe");
    };
    let _ = probe.tls.timeout.to_std();
    let at = cli.global.now.unwrap_or_else(now);
    let leeway = cli.global.leeway;
    // The claims' extremes (token::claims accepts years 0 to 9999).
    let (min, max) = (-62_167_219_200, 253_402_300_799);
    for (nbf, iat, exp) in [(min, min, max), (max, max, min), (0, 0, 0), (max, min, max)] {
        let claims = TimeClaims {
            not_before: Some(nbf),
            issued_at: Some(iat),
            expires_at: Some(exp),
        };
        let _ = window::judge(claims, at, leeway);
        let _ = window::window(claims, leeway);
        if let Some(sources::ClockSpec {
            value: sources::ClockValue::Offset(offset),
            ..
        }) = &clock
        {
            let _ = window::judge(claims, window::plus(at, *offset), leeway);
        }
    }
}
