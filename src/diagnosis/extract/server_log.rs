//! A server's own log lines (an authorizer's trace, an authenticator that could
//! not start, `KIND "NAME" not found`): clues beside an answer, never answers.

use super::excerpt;
use crate::diagnosis::case::BindingKind;

/// A server's log line about its own work (an authorizer's trace, an
/// authenticator that could not start): context, never an answer.
pub(super) fn server_note(line: &str) -> Option<String> {
    if let Some(i) = line.find("RBAC DENY: ") {
        return Some(format!(
            "the RBAC authorizer logged a denial (another authorizer may still allow the request): {}",
            excerpt(&line[i + 11..])
        ));
    }
    if let Some(i) = line.find("Failed calling webhook, failing ") {
        return Some(format!(
            "kube-apiserver logged a failed call to an admission webhook (its own call, not a client's answer): {}",
            excerpt(&line[i..])
        ));
    }
    if let Some(i) = line.find("oidc authenticator: ") {
        return Some(format!(
            "kube-apiserver's OIDC authenticator could not start ({}): tokens of that issuer are rejected until it does",
            excerpt(&line[i + 20..])
        ));
    }
    None
}

/// `KIND "NAME" not found` in a server's log line: a clue, not an answer.
pub(super) fn missing(line: &str) -> Option<(BindingKind, String)> {
    let at = line.find("\" not found")?;
    let before = &line[..at];
    let open = before.rfind('"')?;
    let name = &before[open + 1..];
    let kind_word = before[..open].trim_end().rsplit([' ', ':', '"']).next()?;
    let kind = match kind_word {
        "secrets" | "secret" => BindingKind::Secret,
        "pods" | "pod" => BindingKind::Pod,
        "serviceaccounts" | "serviceaccount" => BindingKind::ServiceAccount,
        "nodes" | "node" => BindingKind::Node,
        _ => return None,
    };
    (!name.is_empty()).then(|| (kind, name.to_owned()))
}
