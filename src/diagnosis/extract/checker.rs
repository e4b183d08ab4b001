//! What token checkers print: Vault's API errors (`URL: PUT …/login`,
//! `Code: 500. Errors:`, `* claim "iss" is invalid`) and its own review
//! failures (`service account unauthorized; this could mean …`, a TokenReview
//! POST that timed out), webhook token authenticators (`Failed to make
//! webhook authenticator request: …`), Linkerd's identity client.
//!
//! A checker's *own* failure (its TokenReview refused, or unanswered) is not
//! the caller's 401: the token under review was never judged.

use super::super::facts::{CheckerCall, CheckerFailure, HttpAnswer};
use super::super::reasons::parse_auth_error;
use super::clients::ClientLine;
use super::transport;
use crate::vocabulary::cause::Cause;
use crate::vocabulary::checkers::{
    CHECKER_NAMES, LINKERD_UNCERTIFIED, UNANSWERED, VAULT_API_ERROR, VAULT_CLAIMS,
    VAULT_NOT_AUTHENTICATED, VAULT_REQUEST_ERRORS, VAULT_REVIEW_REFUSED, WEBHOOK_REVIEW_FAILED,
};
use crate::vocabulary::wordings::SERVICES;

/// How a checker's own call failed, from what it printed about it: a status
/// word is a refusal, client-go's 404 text an API not served, a transport
/// failure's words the transport failure.
pub fn call(detail: &str) -> CheckerCall {
    if super::status::api_not_served(detail) {
        CheckerCall::NotServed
    } else if let Some(cause) = transport::detect_line(detail) {
        CheckerCall::Unanswered(Some(cause))
    } else if super::status::generic_text(detail).is_some_and(|(code, _)| code >= 500) {
        CheckerCall::ServerError
    } else {
        CheckerCall::Refused
    }
}

/// The checker a line names.
pub fn name(line: &str) -> Option<&'static str> {
    CHECKER_NAMES
        .iter()
        .find_map(|&(needle, who)| line.contains(needle).then_some(who))
}

pub fn find(line: &str) -> Option<ClientLine> {
    let t = line.trim();
    let mut found = ClientLine {
        format: "vault",
        ..ClientLine::default()
    };
    // Vault's API error block (also inside an escaped log field).
    if let Some(rest) = t.strip_prefix("URL: ") {
        let mut words = rest.split_whitespace();
        if let (Some(method), Some(url)) = (words.next(), words.next())
            && method.chars().all(|c| c.is_ascii_uppercase())
        {
            let url = url.trim_end_matches('"');
            found.request = Some(super::url::request_from_url(Some(method), url));
            return Some(found);
        }
    }
    if let Some((head, tail)) = VAULT_API_ERROR.text.split_once("CODE")
        && let Some(rest) = t.find(head).map(|i| &t[i + head.len()..])
        && let Some(code) = rest.get(..3).and_then(|c| c.parse::<u16>().ok())
        && rest[3..].starts_with(tail)
    {
        found.http = Some(HttpAnswer::relayed("Vault", Some(code), 2));
        return Some(found);
    }
    if let Some((_, reason)) = VAULT_CLAIMS.iter().find(|(needle, _)| t.contains(needle)) {
        found.reasons = parse_auth_error(reason);
        // Vault's own check: it answered its caller, not kube-apiserver.
        found.http = Some(HttpAnswer::relayed("Vault", None, 0));
        return Some(found);
    }
    // An item of Vault's error list (`Code: N. Errors:` above it, or its
    // JSON body's `errors`), when the message is one of Vault's.
    if let Some(item) = t.strip_prefix("* ") {
        let item = item.trim_end_matches(['"', '}', ' ']);
        let binding = SERVICES.iter().any(|w| {
            w.printed_by == "Vault" && w.text == item && w.cause == Some(Cause::CheckerPolicyDenied)
        });
        let request = VAULT_REQUEST_ERRORS
            .iter()
            .find(|(text, ..)| item.starts_with(text));
        if binding || request.is_some() {
            found.http = Some(HttpAnswer {
                message: Some(item.to_owned()),
                ..HttpAnswer::relayed("Vault", None, 0)
            });
            found.note = if binding {
                Some(format!(
                    "Vault's role does not admit this ServiceAccount (\"{item}\": bound_service_account_names / bound_service_account_namespaces); the token itself was accepted"
                ))
            } else {
                request.map(|(_, meaning, _)| (*meaning).to_owned())
            };
            return Some(found);
        }
    }
    if t.contains(VAULT_REVIEW_REFUSED.text) {
        found.failure = Some(CheckerFailure {
            call: CheckerCall::Refused,
            checker: Some("Vault"),
            detail: "Vault's TokenReview request got 401: \"service account unauthorized; this could mean it has been deleted or recreated with a new token\"".to_owned(),
            certain: false,
        });
        return Some(found);
    }
    // The review was answered: `authenticated: false` with no error. The
    // caller's token was rejected, and kube-apiserver gave Vault no reason.
    if t.contains(VAULT_NOT_AUTHENTICATED.text) {
        let message = "Vault's TokenReview: the token is not authenticated (no reason given)";
        found.http = Some(super::status::unauthorized(message.to_owned(), 1));
        return Some(found);
    }
    let open = WEBHOOK_REVIEW_FAILED.text.trim_end_matches("ERROR");
    if let Some(i) = t.find(open) {
        let err = t[i + open.len()..].trim();
        found.failure = Some(CheckerFailure {
            call: call(err),
            checker: name(t).or(Some("a webhook token authenticator")),
            detail: format!("its TokenReview request failed: {err}"),
            certain: true,
        });
        return Some(found);
    }
    // A review that got no answer: a transport failure on a tokenreviews URL,
    // or an identity service that is not there.
    if (t.contains("/tokenreviews") || t.contains(LINKERD_UNCERTIFIED.text))
        && let Some(cause) = transport::detect_line(t).or_else(|| {
            UNANSWERED
                .iter()
                .any(|w| t.contains(w))
                .then_some(Cause::Unknown)
        })
    {
        found.failure = Some(CheckerFailure {
            call: CheckerCall::Unanswered((cause != Cause::Unknown).then_some(cause)),
            checker: name(t),
            detail: if cause == Cause::Unknown {
                t.to_owned()
            } else {
                format!("{} on its own request: {t}", cause.as_str())
            },
            certain: true,
        });
        return Some(found);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a line gives; it must give something.
    fn found(line: &str) -> ClientLine {
        find(line).unwrap()
    }

    #[test]
    fn vault_and_proxies() {
        assert_eq!(
            found("URL: PUT https://vault:8200/v1/auth/kubernetes/login").request,
            Some(super::super::url::request_from_url(
                Some("PUT"),
                "https://vault:8200/v1/auth/kubernetes/login"
            ))
        );
        let h = found("Code: 500. Errors:").http.unwrap();
        assert_eq!(h.relay_status, Some(500));
        assert_eq!(
            found("* claim \"iss\" is invalid\" backoff=2.16").reasons[0].cause,
            Cause::IssuerMismatch
        );
        let f = found(
            "login unauthorized due to: lookup failed: service account unauthorized; this could mean it has been deleted or recreated with a new token",
        );
        assert!(!f.failure.unwrap().certain);
        let f = found(
            "* invalid audience (aud) claim: audience claim does not match any expected audience",
        );
        assert_eq!(f.reasons[0].cause, Cause::AudienceMismatch);
        // Vault's own request errors, with what each means.
        let f = found("* invalid role name \"app\"");
        assert_eq!(f.http.unwrap().relay.as_deref(), Some("Vault"));
        assert!(f.note.unwrap().contains("never looked at"));
        let f = found("* lookup failed: service account jwt not valid");
        assert_eq!(f.http.unwrap().status, Some(401));
        for line in [
            r#"login unauthorized: err="Post "https://10.0.0.1:57741/apis/authentication.k8s.io/v1/tokenreviews": dial tcp 10.0.0.1:57741: i/o timeout""#,
            "warn\tAuthentication failed: failed to validate the JWT: failed to get a token review response: failed to send the HTTP request: Post https://kubernetes.default.svc/apis/authentication.k8s.io/v1/tokenreviews: dial tcp 10.39.240.1:443: connect: cannot assign requested address",
        ] {
            let call = found(line).failure.unwrap().call;
            assert!(matches!(call, CheckerCall::Unanswered(_)), "{line}");
        }
        let f = found(
            "E0705 webhook.go:154] Failed to make webhook authenticator request: Unauthorized",
        );
        assert_eq!(f.failure.unwrap().call, CheckerCall::Refused);
        // client-go's texts for a 5xx without a Status: the server failed.
        for line in [
            r#"E1207 webhook.go:154] Failed to make webhook authenticator request: an error on the server ("") has prevented the request from succeeding"#,
            "E1207 webhook.go:154] Failed to make webhook authenticator request: the server is currently unable to handle the request",
        ] {
            assert_eq!(
                found(line).failure.unwrap().call,
                CheckerCall::ServerError,
                "{line}"
            );
        }
        let f = found(
            r#"linkerd_proxy_identity_client::certify: Failed to obtain identity error=status: Unknown, message: "controller linkerd-identity-headless.linkerd.svc.cluster.local:8080: service in fail-fast""#,
        );
        assert_eq!(f.failure.unwrap().checker, Some("Linkerd"));
        assert!(find("all good").is_none());
    }
}
