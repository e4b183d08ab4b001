//! A server's own log lines (an authorizer's trace, an authenticator that could
//! not start, `KIND "NAME" not found`): clues beside an answer, never answers;
//! a part of the server's own setup that failed is a result of its own.

use super::excerpt;
use crate::diagnosis::case::{BindingKind, ServerFailure};
use crate::diagnosis::cause::Cause;

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
    None
}

/// kube-apiserver's OIDC authenticator retrying its issuer's discovery (every
/// 10 s, in every version since 1.10).
const OIDC_INIT: &str = "oidc authenticator: initializing plugin:";
/// The kubelet refusing its image credential providers (then it exits).
const CRI_AUTH: &str = "ailed to register CRI auth plugins";

/// A server's log line saying a part of its own setup failed: the cause,
/// who logged it and what it said.
pub(super) fn server_failure(line: &str) -> Option<ServerFailure> {
    let (cause, component, detail) = if let Some(i) = line.find(OIDC_INIT) {
        let detail = line[i + OIDC_INIT.len()..].trim();
        (Cause::JwtIssuerUnreachable, "kube-apiserver", detail)
    } else {
        let i = line.find(CRI_AUTH)?;
        let rest = &line[i + CRI_AUTH.len()..];
        // klog's structured `"…" err="…"`, or a wrapper's `…: <error>`.
        let detail = match rest.find("err=") {
            Some(j) => rest[j + 4..].trim().trim_matches('"'),
            None => rest.trim_start_matches(['"', ':', ' ']),
        };
        (Cause::CredentialProviderConfigInvalid, "kubelet", detail)
    };
    Some(ServerFailure {
        cause,
        component,
        detail: excerpt(if detail.is_empty() {
            "(no error text)"
        } else {
            detail
        }),
    })
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
