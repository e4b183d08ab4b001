//! `verify` rendering: the JSON wire types (the documented schema, docs/verify.md)
//! and the table. Pure over a `Write`; decides nothing.

use std::io::{self, Write};

use comfy_table::{ColumnConstraint, ContentArrangement, Table, Width, presets};
use owo_colors::OwoColorize as _;
use serde::Serialize;

use super::TableStyle;
use super::json::TokenSummaryJson;
use super::sanitize::sanitize;
use super::table::{key_value_table, write_findings, write_table};
use crate::findings::Finding;
use crate::timefmt::rfc3339;
use crate::token::Token;
use crate::verify::keys::{KeyKind, PemForm};
use crate::verify::{KeyOutcome, VerifyReport};

/// `verify -o json`.
#[derive(Debug, Serialize)]
pub struct VerifyJson<'a> {
    /// Every check passed or was not asked for (`ok` true or null).
    pub valid: bool,
    pub token: TokenSummaryJson<'a>,
    /// The key the signature verifies with; all null when none does.
    pub key: MatchedKeyJson<'a>,
    /// signature, key, issuer, audience, time, in that order.
    pub checks: Vec<CheckJson<'a>>,
    /// Every key loaded, with its Kubernetes key id and what happened to it.
    pub keys: Vec<KeyJson<'a>>,
    pub evaluated_at: String,
    pub leeway_seconds: i64,
    pub findings: &'a [Finding],
}

/// `key`: `{kid, matched_by, computed_kid, source}`.
#[derive(Debug, Serialize)]
pub struct MatchedKeyJson<'a> {
    /// The id the key answers to: its published kid, else its Kubernetes key id.
    pub kid: Option<&'a str>,
    /// "kid" | "trial" | null.
    pub matched_by: Option<&'static str>,
    pub computed_kid: Option<&'a str>,
    pub source: Option<&'a str>,
}

/// One check.
#[derive(Debug, Serialize)]
pub struct CheckJson<'a> {
    pub name: &'static str,
    /// true pass, false fail, null not checked.
    pub ok: Option<bool>,
    pub detail: &'a str,
}

/// One loaded key.
#[derive(Debug, Serialize)]
pub struct KeyJson<'a> {
    pub source: &'a str,
    /// The kid the JWKS publishes (null for PEM keys).
    pub published_kid: Option<&'a str>,
    /// base64url(SHA-256(DER SubjectPublicKeyInfo)), as kube-apiserver computes it.
    pub computed_kid: &'a str,
    /// "RSA" | "EC".
    pub kty: &'static str,
    /// EC curve, else null.
    pub crv: Option<&'static str>,
    /// RSA modulus size, else null.
    pub bits: Option<usize>,
    /// The algorithm kube-apiserver signs with using this key.
    pub alg: &'static str,
    /// PEM keys: "public-key" | "rsa-public-key" | "certificate" | "private-key"; JWKS: null.
    pub pem_form: Option<&'static str>,
    /// "verified" | "failed" | "not-tried".
    pub outcome: &'static str,
}

impl<'a> VerifyJson<'a> {
    /// The wire form of a report.
    pub fn new(report: &'a VerifyReport, token: &'a Token) -> Self {
        let matched = report.matched();
        VerifyJson {
            valid: report.valid,
            token: TokenSummaryJson::new(token),
            key: MatchedKeyJson {
                kid: matched.map(|k| k.kid()),
                matched_by: report.matched_by.map(|m| m.as_str()),
                computed_kid: matched.map(|k| k.computed_kid.as_str()),
                source: matched.map(|k| k.source.as_str()),
            },
            checks: report
                .checks
                .iter()
                .map(|c| CheckJson {
                    name: c.name.as_str(),
                    ok: c.ok,
                    detail: &c.detail,
                })
                .collect(),
            keys: report
                .keys
                .iter()
                .map(|(key, outcome)| KeyJson {
                    source: &key.source,
                    published_kid: key.published_kid.as_deref(),
                    computed_kid: &key.computed_kid,
                    kty: key.kind.kty(),
                    crv: match key.kind {
                        KeyKind::Ec(curve) => Some(curve.as_str()),
                        KeyKind::Rsa { .. } => None,
                    },
                    bits: match key.kind {
                        KeyKind::Rsa { bits } => Some(bits),
                        KeyKind::Ec(_) => None,
                    },
                    alg: key.kind.algorithm(),
                    pem_form: key.pem_form.map(|f| match f {
                        PemForm::PublicKey => "public-key",
                        PemForm::RsaPublicKey => "rsa-public-key",
                        PemForm::Certificate => "certificate",
                        PemForm::PrivateKey => "private-key",
                    }),
                    outcome: outcome_str(*outcome),
                })
                .collect(),
            evaluated_at: rfc3339(report.evaluated_at),
            leeway_seconds: report.leeway.num_seconds(),
            findings: &report.findings,
        }
    }
}

fn outcome_str(outcome: KeyOutcome) -> &'static str {
    match outcome {
        KeyOutcome::Verified => "verified",
        KeyOutcome::Failed => "failed",
        KeyOutcome::NotTried => "not-tried",
    }
}

/// `verify` as tables: the token, the verdict, the checks, the keys, the findings.
pub fn write_verify(
    out: &mut dyn Write,
    report: &VerifyReport,
    style: &TableStyle,
) -> io::Result<()> {
    let s = &style.styles;
    let text = |v: Option<&str>| {
        v.map(|v| sanitize(v).into_owned())
            .unwrap_or_else(|| "-".to_owned())
    };
    let mut head = key_value_table(style);
    let mut row = |key: &str, value: String| {
        head.add_row([format!("{key}:").style(s.bold).to_string(), value]);
    };
    let mut alg = text(report.alg.as_deref());
    if let Some(kid) = report.token_kid.as_deref() {
        alg.push_str(&format!("  kid {}", sanitize(kid)));
    }
    row("Algorithm", alg);
    row("Kind", report.kind.as_str().to_owned());
    row("Issuer", text(report.issuer.as_deref()));
    row(
        "Audiences",
        if report.audiences.is_empty() {
            "-".to_owned()
        } else {
            sanitize(&report.audiences.join(", ")).into_owned()
        },
    );
    row(
        "Evaluated",
        format!(
            "at {} (leeway {}s)",
            style.time(report.evaluated_at),
            report.leeway.num_seconds()
        ),
    );
    write_table(out, &head)?;
    writeln!(out)?;

    let skipped: Vec<&str> = report
        .checks
        .iter()
        .filter(|c| c.ok.is_none())
        .map(|c| c.name.as_str())
        .collect();
    let verdict = if report.valid {
        let mut text = "VALID".to_owned();
        if !skipped.is_empty() {
            text.push_str(&format!(" ({} not checked)", skipped.join(", ")));
        }
        text.style(s.ok).to_string()
    } else {
        let failed: Vec<&str> = report
            .checks
            .iter()
            .filter(|c| c.ok == Some(false))
            .map(|c| c.name.as_str())
            .collect();
        format!("INVALID: {} failed", failed.join(", "))
            .style(s.error)
            .to_string()
    };
    writeln!(out, "Verdict: {verdict}")?;

    let mut checks = bordered(style, ["CHECK", "RESULT", "DETAIL"]);
    for check in &report.checks {
        let result = match check.ok {
            Some(true) => "pass".style(s.ok).to_string(),
            Some(false) => "FAIL".style(s.error).to_string(),
            None => "skip".style(s.dim).to_string(),
        };
        checks.add_row([
            check.name.as_str().to_owned(),
            result,
            sanitize(&check.detail).into_owned(),
        ]);
    }
    write_table(out, &checks)?;

    if !report.keys.is_empty() {
        let mut keys = bordered(style, ["KEY", "KID (* = its Kubernetes key id)", "TRIED"]);
        if style.width >= 72
            && let Some(column) = keys.column_mut(1)
        {
            // A kid is 43 characters; keep it on one line so it can be compared.
            column.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(46)));
        }
        for (key, outcome) in &report.keys {
            let kid = if key.published_kid.is_none() || key.kid() == key.computed_kid {
                format!("{}*", sanitize(key.kid()))
            } else {
                format!("{}\n{}*", sanitize(key.kid()), key.computed_kid)
            };
            let outcome = match outcome {
                KeyOutcome::Verified => "verified".style(s.ok).to_string(),
                KeyOutcome::Failed => "failed".style(s.error).to_string(),
                KeyOutcome::NotTried => "-".to_owned(),
            };
            keys.add_row([
                format!(
                    "{}\n{}",
                    sanitize(&key.source),
                    key.kind.to_string().style(s.dim)
                ),
                kid,
                outcome,
            ]);
        }
        write_table(out, &keys)?;
    }
    // Failed checks already show their reason above; list only the other findings.
    let failed: Vec<&str> = report
        .checks
        .iter()
        .filter(|c| c.ok == Some(false))
        .map(|c| c.detail.as_str())
        .collect();
    let rest: Vec<Finding> = report
        .findings
        .iter()
        .filter(|f| !failed.contains(&f.message.as_str()))
        .cloned()
        .collect();
    write_findings(out, &rest, style)
}

fn bordered<const N: usize>(style: &TableStyle, header: [&str; N]) -> Table {
    let mut table = Table::new();
    table
        .load_preset(presets::UTF8_FULL_CONDENSED)
        .force_no_tty()
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(style.width)
        .set_header(header.map(|h| h.style(style.styles.bold).to_string()));
    table
}
