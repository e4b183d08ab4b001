//! `decode`: read -> parse -> analyse -> render, for one token or a batch.

use std::io::Write;

use anyhow::Context as _;

use super::{Cx, read_tokens};
use crate::authconfig;
use crate::cli::DecodeArgs;
use crate::decode::{self, DecodeReport};
use crate::exit::Outcome;
use crate::findings::{self, Severity};
use crate::input::{BatchReader, ShapedToken, TokenInput};
use crate::report::json::{DecodeJson, LineErrorJson};
use crate::report::{table, write_record};
use crate::settings::Settings;
use crate::token;

/// `decode`: one token in detail, or a batch streamed line by line.
pub fn run(args: DecodeArgs, Cx(settings, env, out, err): Cx<'_>) -> anyhow::Result<Outcome> {
    let config = super::read_authn_config(args.authentication_config.as_deref())?;
    let (input, what) = read_tokens(args.token.source(env))?;
    let now = settings.clock.now();
    let analyse = |token, shaped: &ShapedToken| {
        let mut report = decode::analyse(token, shaped, now, settings.leeway);
        if let Some(config) = &config {
            let authn = authconfig::evaluate(config, &report.token)?;
            report.findings.extend(authn.findings.iter().cloned());
            crate::findings::sort(&mut report.findings);
            report.authn = Some(authn);
        }
        Ok::<_, authconfig::AuthnConfigError>(report)
    };
    match input {
        TokenInput::Single(shaped) => {
            let token = token::parse(&shaped.token)
                .with_context(|| format!("cannot decode the token from {what}"))?;
            let report = analyse(token, &shaped)?;
            let json = |r| DecodeJson::new(r, None);
            super::render(out, settings, &report, json, table::write_decode)?;
            Ok(decode_outcome(&report))
        }
        TokenInput::Many(tokens) => decode_many(tokens, &what, &analyse, settings, out),
        TokenInput::Batch(lines) => decode_batch(lines, settings, &analyse, out, err),
    }
}

/// Decodes one token, and evaluates it against `--authentication-config` if given.
type Analyse<'a> =
    dyn Fn(token::Token, &ShapedToken) -> Result<DecodeReport, authconfig::AuthnConfigError> + 'a;

/// One document with several tokens (a CSI map): each decoded in full, one
/// after another (JSON Lines with `-o json`, numbered from 1).
fn decode_many(
    tokens: Vec<ShapedToken>,
    what: &str,
    analyse: &Analyse,
    settings: &Settings,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let mut outcome = Outcome::Healthy;
    for (i, shaped) in tokens.iter().enumerate() {
        let audience = shaped.context.csi_audience.as_deref().unwrap_or("?");
        let token = token::parse(&shaped.token).with_context(|| {
            format!(
                "cannot decode the token for audience {} from {what}",
                crate::sanitize::sanitize(audience)
            )
        })?;
        let report = analyse(token, shaped)?;
        outcome = outcome.max(decode_outcome(&report));
        match settings.format.data() {
            Some(data) => write_record(out, data, &DecodeJson::new(&report, Some(i + 1)))?,
            None => {
                if i > 0 {
                    writeln!(out)?;
                }
                table::write_csi_heading(out, i + 1, tokens.len(), audience, &settings.table)?;
                table::write_decode(out, &report, &settings.table)?;
            }
        }
    }
    Ok(outcome)
}

fn decode_outcome(report: &DecodeReport) -> Outcome {
    Outcome::problem_if(findings::worst(&report.findings) == Some(Severity::Error))
}

/// Unreadable lines a batch reports one by one; past this they are counted
/// only (a text file that is not a token list would otherwise print a line of
/// error per line of input).
pub const MAX_ERROR_LINES: usize = 100;

/// Streams a batch: one output line per input line, errors inline (the first
/// [`MAX_ERROR_LINES`]), then a summary on stderr. Binary input ends the batch
/// with an error. Exit 1 if any token had an error-level finding, else 2 if
/// any line could not be parsed.
fn decode_batch(
    lines: BatchReader,
    settings: &Settings,
    analyse: &Analyse,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let mut outcome = Outcome::Healthy;
    let (mut total, mut bad_lines, mut with_errors) = (0usize, Vec::new(), 0usize);
    let mut unreadable = 0usize;
    if settings.format.data().is_none() {
        table::write_batch_header(out, &settings.table)?;
    }
    for item in lines {
        let item = item?;
        total += 1;
        let parsed = item
            .result
            .map_err(anyhow::Error::from)
            .and_then(|shaped| Ok((token::parse(&shaped.token)?, shaped)));
        match parsed {
            Ok((token, shaped)) => {
                let report = analyse(token, &shaped)?;
                let line_outcome = decode_outcome(&report);
                with_errors += usize::from(line_outcome == Outcome::Problem);
                outcome = outcome.max(line_outcome);
                match settings.format.data() {
                    Some(data) => {
                        write_record(out, data, &DecodeJson::new(&report, Some(item.line)))?
                    }
                    None => table::write_batch_row(out, item.line, &report, &settings.table)?,
                }
            }
            Err(e) => {
                let message = format!("{e:#}");
                unreadable += 1;
                if bad_lines.len() < 10 {
                    bad_lines.push(item.line);
                }
                if unreadable > MAX_ERROR_LINES {
                    continue;
                }
                let error = LineErrorJson {
                    line: item.line,
                    error: &message,
                };
                match settings.format.data() {
                    Some(data) => write_record(out, data, &error)?,
                    None => table::write_batch_error(out, item.line, &message, &settings.table)?,
                }
            }
        }
    }
    out.flush()?;
    if !bad_lines.is_empty() || with_errors > 0 {
        let mut summary = format!("{total} tokens: {with_errors} with errors");
        if !bad_lines.is_empty() {
            let lines: Vec<String> = bad_lines.iter().map(ToString::to_string).collect();
            summary.push_str(&format!(", unreadable lines: {}", lines.join(", ")));
            if unreadable > bad_lines.len() {
                summary.push_str(&format!(" and {} more", unreadable - bad_lines.len()));
            }
        }
        if unreadable > MAX_ERROR_LINES {
            summary.push_str(&format!(
                " (the first {MAX_ERROR_LINES} are shown above; is this a list of tokens?)"
            ));
        }
        writeln!(err, "kubectl-satoken: {summary}")?;
    }
    // A diagnosed problem outranks an unreadable line: exit 2 would hide an
    // expired token among readable ones.
    if unreadable > 0 && outcome == Outcome::Healthy {
        outcome = Outcome::Usage;
    }
    Ok(outcome)
}
