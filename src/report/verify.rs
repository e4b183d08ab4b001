//! `verify` rendering: the JSON wire types (the documented schema, docs/verify.md)
//! and the table. Pure over a `Write`; decides nothing.

use std::io::{self, Write};

use comfy_table::{ColumnConstraint, Width};
use owo_colors::OwoColorize as _;
use schemars::JsonSchema;
use serde::Serialize;

use super::TableStyle;
use super::json::{Time, TokenSummaryJson};
use super::sanitize::{cell, or_dash, sanitize};
use super::table::{bordered_table, key_value_table, write_findings, write_table};
use crate::findings::Finding;
use crate::token::Token;
use crate::verify::keys::{Curve, KeyKind, PemForm};
use crate::verify::{Check, KeyOutcome, MatchedBy, VerifyReport};

/// `verify -o json`: the signature checked against the keys given, and the
/// issuer, audience and time checks.
#[derive(Debug, Serialize, JsonSchema)]
pub struct VerifyJson<'a> {
    /// Every check passed or was not asked for (`ok` true or null).
    pub valid: bool,
    /// The token checked (identified, never shown).
    pub token: TokenSummaryJson<'a>,
    /// The key the signature verifies with; all null when none does.
    pub key: MatchedKeyJson<'a>,
    /// signature, key, issuer, audience, time, in that order; then
    /// authn-config (with --authentication-config) and trust-policy (with
    /// --expect-* or --federated-credential).
    pub checks: &'a [Check],
    /// Every key loaded, with its Kubernetes key id and what happened to it.
    pub keys: Vec<KeyJson<'a>>,
    /// The instant the time check used.
    pub evaluated_at: Time,
    /// The leeway applied.
    #[schemars(range(min = 0))]
    pub leeway_seconds: i64,
    /// What verify noticed.
    pub findings: &'a [Finding],
    /// `--authentication-config`: what its JWT authenticators make of the
    /// token (absent without the flag).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub authentication_config: Option<&'a crate::authconfig::AuthnConfigReport>,
}

/// `key`: `{kid, matched_by, computed_kid, source}`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct MatchedKeyJson<'a> {
    /// The id the key answers to: its published kid, else its Kubernetes key id.
    pub kid: Option<&'a str>,
    /// How the key was found: by the token's kid, or by trying every key.
    pub matched_by: Option<MatchedBy>,
    /// The key's Kubernetes key id.
    pub computed_kid: Option<&'a str>,
    /// Where the key was loaded from.
    pub source: Option<&'a str>,
}

/// One loaded key.
#[derive(Debug, Serialize, JsonSchema)]
pub struct KeyJson<'a> {
    /// Where the key was loaded from (file, URL, JWKS entry).
    pub source: &'a str,
    /// The kid the JWKS publishes (null for PEM keys).
    pub published_kid: Option<&'a str>,
    /// base64url(SHA-256(DER SubjectPublicKeyInfo)), as kube-apiserver computes it.
    pub computed_kid: &'a str,
    /// JWK key type: "RSA" | "EC".
    pub kty: &'static str,
    /// EC curve, else null.
    pub crv: Option<Curve>,
    /// RSA modulus size, else null.
    pub bits: Option<usize>,
    /// The algorithm kube-apiserver signs with using this key (RS256, ES256…).
    pub alg: &'static str,
    /// PEM keys: the block's form; JWKS keys: null.
    pub pem_form: Option<PemForm>,
    /// Whether the signature verifies with this key.
    pub outcome: KeyOutcome,
}

impl<'a> VerifyJson<'a> {
    pub fn new(report: &'a VerifyReport, token: &'a Token) -> Self {
        let matched = report.matched();
        VerifyJson {
            valid: report.valid,
            token: TokenSummaryJson::new(token),
            key: MatchedKeyJson {
                kid: matched.map(|k| k.kid()),
                matched_by: report.matched_by,
                computed_kid: matched.map(|k| k.computed_kid.as_str()),
                source: matched.map(|k| k.source.as_str()),
            },
            checks: &report.checks,
            keys: report
                .keys
                .iter()
                .map(|(key, outcome)| KeyJson {
                    source: &key.source,
                    published_kid: key.published_kid.as_deref(),
                    computed_kid: &key.computed_kid,
                    kty: key.kind.kty(),
                    crv: match key.kind {
                        KeyKind::Ec(curve) => Some(curve),
                        KeyKind::Rsa { .. } => None,
                    },
                    bits: match key.kind {
                        KeyKind::Rsa { bits } => Some(bits),
                        KeyKind::Ec(_) => None,
                    },
                    alg: key.kind.algorithm(),
                    pem_form: key.pem_form,
                    outcome: *outcome,
                })
                .collect(),
            evaluated_at: Time::new(report.time.at),
            leeway_seconds: report.time.leeway.num_seconds(),
            findings: &report.findings,
            authentication_config: report.authn.as_ref(),
        }
    }
}

/// `verify` as tables: the token, the verdict, the checks, the keys, the findings.
pub fn write_verify(
    out: &mut dyn Write,
    report: &VerifyReport,
    style: &TableStyle,
) -> io::Result<()> {
    let s = &style.styles;
    let mut alg = or_dash(report.alg.as_deref());
    if let Some(kid) = report.token_kid.as_deref() {
        alg.push_str(&format!("  kid {}", sanitize(kid)));
    }
    let audiences = (!report.audiences.is_empty()).then(|| report.audiences.join(", "));
    let evaluated = style.judged_at(report.time.at, report.time.leeway);
    let head = [
        ("Algorithm", Some(alg)),
        ("Kind", Some(report.kind.as_str().to_owned())),
        ("Issuer", Some(or_dash(report.issuer.as_deref()))),
        ("Audiences", Some(or_dash(audiences.as_deref()))),
        ("Evaluated", Some(evaluated)),
    ];
    write_table(out, &key_value_table(style, head))?;
    writeln!(out)?;

    let names = |ok: Option<bool>| -> Vec<&str> {
        report
            .checks
            .iter()
            .filter(|c| c.ok == ok)
            .map(|c| c.name.as_str())
            .collect()
    };
    let verdict = if report.valid {
        let mut text = "VALID".to_owned();
        let skipped = names(None);
        if !skipped.is_empty() {
            text.push_str(&format!(" ({} not checked)", skipped.join(", ")));
        }
        text.style(s.ok).to_string()
    } else {
        format!("INVALID: {} failed", names(Some(false)).join(", "))
            .style(s.error)
            .to_string()
    };
    writeln!(out, "Verdict: {verdict}")?;

    let mut checks = bordered_table(style, &["CHECK", "RESULT", "DETAIL"]);
    for check in &report.checks {
        let result = match check.ok {
            Some(true) => "pass".style(s.ok).to_string(),
            Some(false) => "FAIL".style(s.error).to_string(),
            None => "skip".style(s.dim).to_string(),
        };
        checks.add_row([check.name.as_str().to_owned(), result, cell(&check.detail)]);
    }
    write_table(out, &checks)?;
    if let Some(authn) = &report.authn {
        writeln!(out)?;
        super::authconfig::write_authn(out, authn, style)?;
    }

    if !report.keys.is_empty() {
        let mut keys = bordered_table(style, &["KEY", "KID (* = its Kubernetes key id)", "TRIED"]);
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
    let failed = |f: &Finding| {
        report
            .checks
            .iter()
            .any(|c| c.ok == Some(false) && c.detail == f.message)
    };
    let rest: Vec<Finding> = report
        .findings
        .iter()
        .filter(|f| !failed(f))
        .cloned()
        .collect();
    write_findings(out, &rest, style)
}
