//! Pure: TokenReview (`POST /apis/authentication.k8s.io/v1/tokenreviews`), sent
//! with the operator's kubeconfig credentials. Its `status.error` carries the
//! exact aggregate kube-apiserver logs for the token (the request
//! authenticator chain, pkg/registry/authentication/tokenreview/storage.go),
//! parsed with [`crate::diagnosis::reasons::parse_auth_error`], which knows the
//! wordings of every version. The body carries the token under test: it goes
//! only to the same verified server the token is probed against.

use serde_json::{Value, json};

use crate::diagnosis::extract::json::strings;
use crate::diagnosis::reasons::{self, AuthReason};
use crate::http::{Method, Request};
use crate::secret::SecretToken;

/// The request: `spec.token`, and `spec.audiences` when given (empty means the
/// server's API audiences, the same check a normal request gets).
pub fn request(token: &SecretToken, audiences: &[String]) -> Request {
    let mut spec = json!({"token": token.expose()});
    if !audiences.is_empty() {
        spec["audiences"] = json!(audiences);
    }
    post("authentication.k8s.io/v1", "TokenReview", Some(spec))
}

/// A review object POSTed to its collection, `/apis/GROUP/VERSION/PLURAL`
/// (cluster-scoped: a namespace in the URL is a 400).
pub fn post(api_version: &str, kind: &str, spec: Option<Value>) -> Request {
    let mut body = json!({"apiVersion": api_version, "kind": kind});
    if let Some(spec) = spec {
        body["spec"] = spec;
    }
    Request {
        method: Method::Post,
        path: format!("/apis/{api_version}/{}s", kind.to_ascii_lowercase()),
        json_body: Some(body.to_string().into_bytes()),
    }
}

/// A TokenReview asked with `spec.audiences`, as a third-party checker asks
/// it (Vault's Kubernetes auth with a role audience, a cloud's token exchange).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AudienceReview {
    pub audiences: Vec<String>,
    pub outcome: ReviewOutcome,
}

impl AudienceReview {
    /// What the checker sees, in one sentence.
    pub fn checker_sees(&self) -> String {
        let asked = self.audiences.join(", ");
        match &self.outcome {
            ReviewOutcome::Authenticated {
                username,
                audiences,
                ..
            } => format!(
                "a checker asking for audiences [{asked}] sees the token authenticated as {username}, status.audiences [{}]{}",
                audiences.join(", "),
                if audiences.is_empty() {
                    ": an old server that ignores spec.audiences, so the checker must compare aud itself"
                } else {
                    ""
                }
            ),
            ReviewOutcome::Rejected { error, reasons } => {
                let mismatch = reasons
                    .iter()
                    .any(|r| r.kind == reasons::ReasonKind::AudienceInvalid);
                format!(
                    "a checker asking for audiences [{asked}] sees status.authenticated false: {error}{}",
                    if mismatch {
                        " (the token was requested for other audiences: it needs one of the checker's, e.g. a projected volume's audience or kubectl create token --audience)"
                    } else {
                        ""
                    }
                )
            }
            ReviewOutcome::NotAllowed { status, .. } => format!(
                "the TokenReview for audiences [{asked}] was not allowed for the kubeconfig identity (HTTP {status})"
            ),
        }
    }
}

/// What a TokenReview said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReviewOutcome {
    /// `status.authenticated: true`: the server accepts the token.
    Authenticated {
        username: String,
        uid: Option<String>,
        audiences: Vec<String>,
    },
    /// Rejected; `error` verbatim and parsed.
    Rejected {
        error: String,
        reasons: Vec<AuthReason>,
    },
    /// The operator may not create TokenReviews (403), or could not
    /// authenticate (401), or the API answered otherwise.
    NotAllowed { status: u16, message: String },
}

/// Reads a TokenReview answer (`status` HTTP code, JSON body).
pub fn parse(status: u16, body: Option<&Value>) -> ReviewOutcome {
    let at = |pointer: &str| body.and_then(|b| b.pointer(pointer));
    let text = |pointer: &str| at(pointer).and_then(Value::as_str).map(str::to_owned);
    if !(200..300).contains(&status) {
        let message = text("/message").unwrap_or_default();
        return ReviewOutcome::NotAllowed { status, message };
    }
    if at("/status/authenticated").and_then(Value::as_bool) == Some(true) {
        return ReviewOutcome::Authenticated {
            username: text("/status/user/username").unwrap_or_default(),
            uid: text("/status/user/uid"),
            audiences: strings(at("/status/audiences")),
        };
    }
    let error = text("/status/error").unwrap_or_default();
    let reasons = if error.is_empty() {
        Vec::new()
    } else {
        reasons::parse_auth_error(&error)
    };
    ReviewOutcome::Rejected { error, reasons }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::Cause;
    use crate::diagnosis::reasons::ReasonKind;

    #[test]
    fn request_carries_token_and_optional_audiences() {
        let r = request(&SecretToken::new("t.o.k"), &[]);
        let body: Value = serde_json::from_slice(r.json_body.as_ref().unwrap()).unwrap();
        assert_eq!(body["spec"], json!({"token": "t.o.k"}));
        let r = request(&SecretToken::new("t"), &["vault".to_owned()]);
        let body: Value = serde_json::from_slice(r.json_body.as_ref().unwrap()).unwrap();
        assert_eq!(body["spec"]["audiences"], json!(["vault"]));
        assert_eq!(r.path, "/apis/authentication.k8s.io/v1/tokenreviews");
    }

    #[test]
    fn outcomes() {
        let ok = json!({"status": {"authenticated": true, "user": {"username": "u", "uid": "1"}, "audiences": ["a"]}});
        assert!(
            matches!(parse(201, Some(&ok)), ReviewOutcome::Authenticated { username, .. } if username == "u")
        );
        let rejected =
            json!({"status": {"user": {}, "error": "[invalid bearer token, Token has expired.]"}});
        let ReviewOutcome::Rejected { reasons, .. } = parse(201, Some(&rejected)) else {
            panic!()
        };
        let specific = crate::diagnosis::reasons::specific(&reasons);
        assert_eq!(specific[0].kind, ReasonKind::Expired);
        assert_eq!(specific[0].cause, Cause::Expired);
        assert_eq!(specific[0].era, "≤1.22");
        let denied = json!({"kind": "Status", "message": "tokenreviews.authentication.k8s.io is forbidden: User \"x\" cannot create resource"});
        assert!(matches!(
            parse(403, Some(&denied)),
            ReviewOutcome::NotAllowed { status: 403, .. }
        ));
    }
}
