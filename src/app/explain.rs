//! `explain [CODE]`: the cause registry read back to the user, and every other
//! code the tool prints (an answer, a finding, a token kind) named with the
//! causes behind it.

use std::io::Write;

use crate::cli::ExplainArgs;
use crate::diagnosis::Cause;
use crate::exit::Outcome;
use crate::findings::Code;
use crate::report::explain::{
    CauseListJson, CodeJson, ExplainJson, Explained, WordingListJson, write_code_page, write_list,
    write_page, write_wordings,
};
use crate::report::write_data;
use crate::settings::Settings;

/// The findings a cause accounts for when the server judges the token.
const FINDING_CAUSES: &[(Code, Cause)] = &[
    (Code::Expired, Cause::Expired),
    (Code::NotYetValid, Cause::ClockSkew),
    (Code::IssuedInFuture, Cause::ClockSkew),
    (Code::NoExtendedExpiry, Cause::Expired),
    (Code::StaleToken, Cause::StaleToken),
    (Code::LegacyToken, Cause::LegacyTokenInUse),
];

pub fn run(args: ExplainArgs, settings: &Settings, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    if args.wordings {
        match settings.format.data() {
            Some(data) => write_data(out, data, &WordingListJson::all())?,
            None => write_wordings(out, &settings.table)?,
        }
        return Ok(Outcome::Healthy);
    }
    let Some(wanted) = args.cause.as_deref() else {
        match settings.format.data() {
            Some(data) => write_data(out, data, &CauseListJson::all())?,
            None => write_list(out, &settings.table)?,
        }
        return Ok(Outcome::Healthy);
    };
    let Some(explained) = lookup(wanted) else {
        let shown =
            crate::sanitize::sanitize(&wanted.chars().take(64).collect::<String>()).into_owned();
        let hint = did_you_mean(wanted)
            .map(|code| format!("did you mean {code}? "))
            .unwrap_or_default();
        anyhow::bail!(
            "no code is called {shown:?}: {hint}kubectl satoken explain lists the causes"
        );
    };
    match (explained, settings.format.data()) {
        (Explained::Cause(c), Some(data)) => write_data(out, data, &ExplainJson::new(c))?,
        (Explained::Cause(c), None) => write_page(out, c, &settings.table)?,
        (other, Some(data)) => write_data(out, data, &CodeJson::new(other, &causes_of(other)))?,
        (other, None) => write_code_page(
            out,
            &CodeJson::new(other, &causes_of(other)),
            &settings.table,
        )?,
    }
    Ok(Outcome::Healthy)
}

/// Every code the tool prints, as what it is; a cause first (`expired` is a
/// cause and a finding).
fn lookup(wanted: &str) -> Option<Explained> {
    let wanted = wanted.trim().to_ascii_lowercase();
    Explained::all()
        .find(|(code, _)| *code == wanted)
        .map(|(_, explained)| explained)
}

/// The nearest code to a mistyped one, when it is near enough to be meant.
fn did_you_mean(wanted: &str) -> Option<&'static str> {
    let wanted = wanted.trim().to_ascii_lowercase();
    Explained::all()
        .map(|(code, _)| (strsim::jaro_winkler(&wanted, code), code))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, code)| code)
}

/// The causes behind an answer or a finding.
fn causes_of(explained: Explained) -> Vec<Cause> {
    match explained {
        Explained::Answer(answer) => Cause::ALL
            .iter()
            .copied()
            .filter(|c| c.def().explains.contains(&answer))
            .collect(),
        Explained::Finding(code) => FINDING_CAUSES
            .iter()
            .filter(|(c, _)| *c == code)
            .map(|(_, cause)| *cause)
            .collect(),
        Explained::Cause(_) | Explained::TokenKind(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_the_tool_prints_is_explained() {
        for (code, _) in Explained::all() {
            assert!(lookup(code).is_some(), "{code}");
        }
        assert!(matches!(
            lookup("401-invalid-token"),
            Some(Explained::Answer(_))
        ));
        assert!(matches!(lookup("expired"), Some(Explained::Cause(_))));
    }

    #[test]
    fn a_mistyped_code_gets_the_nearest() {
        assert_eq!(did_you_mean("clock-skw"), Some("clock-skew"));
        assert_eq!(did_you_mean("not-yet-vaild"), Some("not-yet-valid"));
        assert_eq!(did_you_mean("zzzz"), None);
    }
}
