//! What service meshes' identity services print about the tokens their
//! sidecars present: istiod's KubeJWTAuthenticator (and the TokenReview
//! client of older releases) and Linkerd's identity controller, with what the
//! sidecars relay of it (`status: FailedPrecondition, message: "…"`).
//!
//! Both judge the sidecar's token with a TokenReview of their own. Three
//! outcomes matter: the review answered "not authenticated" without a reason
//! (the caller's token was rejected, kube-apiserver's log line says why), the
//! review answered with a reason (an aggregate, read by [`super::aggregate`]),
//! or the review itself was refused (the mesh's own credentials: a checker
//! failure, certain because both review with their own ServiceAccount).

use super::super::facts::{CheckerCall, CheckerFailure};
use super::clients::ClientLine;
use crate::vocabulary::checkers::{MESH_MARKS, MESH_REVIEW_REFUSED, NOT_AUTHENTICATED};

/// What istiod's audience means for the sidecar's token.
const ISTIO_CA: &str = "istiod reviews sidecar tokens for the audience istio-ca (jwtPolicy third-party-jwt): the sidecar must present its projected istio-token (audience istio-ca), not the pod's default token for the API server; check values.global.jwtPolicy against the istio-token volume the injector mounts";

pub fn find(line: &str) -> Option<ClientLine> {
    let t = line.trim();
    if let Some(who) = NOT_AUTHENTICATED
        .iter()
        .find(|n| t.contains(n.text))
        .map(|n| n.printed_by)
    {
        return Some(ClientLine {
            format: "mesh",
            http: Some(super::status::unauthorized(
                format!(
                    "{who}'s TokenReview: the sidecar's token is not authenticated (kube-apiserver gave the mesh no reason)"
                ),
                1,
            )),
            note: Some(format!(
                "{who} reviewed the sidecar's ServiceAccount token and kube-apiserver rejected it; its own log line \"Unable to authenticate the request\" at that instant says why (an expired or unbound projected token, a deleted pod or ServiceAccount, a key the server no longer has)"
            )),
            ..ClientLine::default()
        });
    }
    if t.contains("is invalid for the target audiences [") && t.contains("istio-ca") {
        return Some(ClientLine {
            format: "mesh",
            note: Some(ISTIO_CA.to_owned()),
            ..ClientLine::default()
        });
    }
    let refused = MESH_REVIEW_REFUSED.iter().find(|w| t.contains(w.text))?;
    let (needle, who) = (refused.text, refused.printed_by);
    if !MESH_MARKS.iter().any(|m| t.contains(m)) {
        return None;
    }
    let err = t[t.find(needle)? + needle.len()..]
        .trim()
        .trim_end_matches(['"', '\\']);
    // Linkerd's wording carries any error of the review call: only an
    // answer that refused the mesh's credentials is one of these.
    if refused.printed_by == "Linkerd identity"
        && !(err.ends_with(": Unauthorized") || err.contains(" is forbidden: "))
    {
        return None;
    }
    Some(ClientLine {
        format: "mesh",
        failure: Some(CheckerFailure {
            call: CheckerCall::Refused,
            checker: Some(who),
            detail: format!(
                "{who}'s own TokenReview request was refused ({}): the mesh reviews with its own ServiceAccount token",
                needle.trim_matches(['"', ':', ' '])
            ),
            certain: true,
        }),
        ..ClientLine::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reviews_that_rejected_the_sidecar_token() {
        let f = find(r#"2021-09-09T09:13:00Z error ads Authenticator KubeJWTAuthenticator: failed to validate the JWT from cluster "Kubernetes": the token is not authenticated"#).unwrap();
        assert_eq!(f.http.unwrap().status, Some(401));
        let f = find(r#"[ 3.1s] WARN ThreadId(01) identity: linkerd_app_core::control: Failed to resolve control-plane component error=status: FailedPrecondition, message: "authentication token could not be authenticated""#).unwrap();
        assert!(f.note.unwrap().contains("Linkerd identity"));
    }

    #[test]
    fn istio_ca_audience_is_explained() {
        let f = find(r#"failed to validate the JWT from cluster "c1": the service account authentication returns an error: [invalid bearer token, token audiences ["https://kubernetes.default.svc.cluster.local"] is invalid for the target audiences ["istio-ca"]]."#).unwrap();
        assert!(f.note.unwrap().contains("istio-token"));
        assert!(f.http.is_none() && f.failure.is_none());
    }

    #[test]
    fn reviews_the_mesh_could_not_make() {
        let f = find("Authentication failed for 10.0.0.1:1234: Authenticator KubeJWTAuthenticator at index 1 got error: failed to validate the JWT from cluster \"Kubernetes\": invalid review response status code 401").unwrap();
        let failure = f.failure.unwrap();
        assert_eq!(failure.call, CheckerCall::Refused);
        assert!(failure.certain);
        for line in [
            r#"Authenticator KubeJWTAuthenticator: failed to validate the JWT from cluster "c1": Unauthorized"#,
            // Linkerd's identity controller.
            "time=\"2022-01-01T00:00:00Z\" level=error msg=\"error validating token for web.emojivoto.serviceaccount.identity.linkerd.cluster.local: Unauthorized\"",
        ] {
            assert!(find(line).unwrap().failure.is_some(), "{line}");
        }
        // Another error of the review call is not a refusal.
        assert!(find("error validating token for web.emojivoto.serviceaccount.identity.linkerd.cluster.local: context deadline exceeded").is_none());
        assert!(find("an ordinary line: Unauthorized").is_none());
    }
}
