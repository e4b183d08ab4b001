//! `--authentication-config` in `decode` and `verify`: the table section of an
//! [`AuthnConfigReport`]. Pure over a `Write`.

use std::io::{self, Write};

use owo_colors::OwoColorize as _;

use super::TableStyle;
use super::sanitize::sanitize;
use crate::authconfig::{AuthnConfigReport, CheckOutcome};

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
