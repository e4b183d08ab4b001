//! `--authentication-config` in `decode` and `verify`: the JSON wire type of an
//! [`AuthnConfigReport`] and its table section. Pure over a `Write`.

use std::collections::BTreeMap;
use std::io::{self, Write};

use owo_colors::OwoColorize as _;
use schemars::JsonSchema;
use serde::Serialize;

use super::TableStyle;
use super::sanitize::sanitize;
use crate::authconfig::{AuthnConfigReport, CheckOutcome, Stage, kube_wording};

/// What the configuration's JWT authenticators make of the token.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AuthnConfigJson<'a> {
    /// The file read.
    pub file: &'a str,
    /// Its apiVersion (`apiserver.config.k8s.io/v1`…).
    pub api_version: &'a str,
    /// How many JWT authenticators it has.
    pub authenticators: usize,
    /// The authenticator the token's `iss` routes to, or null (then only the
    /// ServiceAccount authenticator, or none, takes the token).
    pub routed: Option<RoutedJson<'a>>,
    /// The first failure in kube-apiserver's words, or null when the
    /// authenticator takes the token (as far as evaluated).
    pub rejection: Option<String>,
}

/// The routed authenticator.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RoutedJson<'a> {
    /// Its index in `jwt`.
    pub index: usize,
    /// `issuer.url`.
    pub issuer: &'a str,
    /// `issuer.audiences`.
    pub audiences: &'a [String],
    /// Every check, in kube-apiserver's order.
    pub checks: Vec<RuleCheckJson<'a>>,
    /// The user the mappings build.
    pub user: MappedUserJson<'a>,
}

/// One check.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RuleCheckJson<'a> {
    /// Which step.
    pub stage: Stage,
    /// The rule as written.
    pub rule: &'a str,
    /// pass, fail or not-evaluated.
    pub outcome: CheckOutcome,
    /// What came of it.
    pub detail: &'a str,
    /// The rule's own message, or null.
    pub message: Option<&'a str>,
}

/// The mapped user.
#[derive(Debug, Serialize, JsonSchema)]
pub struct MappedUserJson<'a> {
    /// Username, or null when its mapping failed.
    pub username: Option<&'a str>,
    /// Uid, or null.
    pub uid: Option<&'a str>,
    /// Groups.
    pub groups: &'a [String],
    /// Extra.
    pub extra: &'a BTreeMap<String, Vec<String>>,
}

impl<'a> AuthnConfigJson<'a> {
    pub fn new(r: &'a AuthnConfigReport) -> Self {
        AuthnConfigJson {
            file: &r.source,
            api_version: &r.api_version,
            authenticators: r.authenticators,
            routed: r.routed.as_ref().map(|x| RoutedJson {
                index: x.index,
                issuer: &x.issuer,
                audiences: &x.audiences,
                checks: x
                    .checks
                    .iter()
                    .map(|c| RuleCheckJson {
                        stage: c.stage,
                        rule: &c.rule,
                        outcome: c.outcome,
                        detail: &c.detail,
                        message: c.message.as_deref(),
                    })
                    .collect(),
                user: MappedUserJson {
                    username: x.user.username.as_deref(),
                    uid: x.user.uid.as_deref(),
                    groups: &x.user.groups,
                    extra: &x.user.extra,
                },
            }),
            rejection: r.rejection.as_ref().map(kube_wording),
        }
    }
}

/// The table section: the routed authenticator and each check, one line each.
pub fn write_authn(
    out: &mut dyn Write,
    r: &AuthnConfigReport,
    style: &TableStyle,
) -> io::Result<()> {
    let s = &style.styles;
    writeln!(
        out,
        "{} {} ({}, {} JWT authenticator{})",
        "Authentication config:".style(s.bold),
        sanitize(&r.source),
        r.api_version,
        r.authenticators,
        if r.authenticators == 1 { "" } else { "s" }
    )?;
    let Some(routed) = &r.routed else {
        writeln!(out, "  no authenticator has the token's issuer")?;
        return writeln!(out);
    };
    writeln!(
        out,
        "  routes to jwt[{}] {} (audiences {})",
        routed.index,
        sanitize(&routed.issuer),
        sanitize(&routed.audiences.join(", "))
    )?;
    for c in &routed.checks {
        let mark = match c.outcome {
            CheckOutcome::Pass => "pass".style(s.ok).to_string(),
            CheckOutcome::Fail => "FAIL".style(s.error).to_string(),
            CheckOutcome::NotEvaluated => "skip".style(s.warning).to_string(),
        };
        writeln!(
            out,
            "  {mark}  {:<14} {}  {}",
            c.stage.as_str(),
            sanitize(&c.rule),
            sanitize(&c.detail).style(s.dim)
        )?;
    }
    let user = &routed.user;
    writeln!(
        out,
        "  user {}  groups [{}]{}",
        sanitize(user.username.as_deref().unwrap_or("-")),
        sanitize(&user.groups.join(", ")),
        user.uid
            .as_deref()
            .map(|u| format!("  uid {}", sanitize(u)))
            .unwrap_or_default()
    )?;
    writeln!(out)
}
