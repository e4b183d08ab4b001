//! JWT authenticators beside the ServiceAccount one: a structured
//! authentication configuration (`--authentication-config`,
//! AuthenticationConfiguration apiserver.config.k8s.io v1alpha1 1.29, v1beta1
//! 1.30, v1 1.34) lists issuers whose tokens kube-apiserver accepts, each with
//! audiences, claim mappings and CEL validation rules. A token whose `iss` is
//! such an issuer goes to that authenticator only; its rejection is the cause.
//!
//! The evidence is a typed [`JwtRejectionSeen`](crate::diagnosis::facts::JwtRejectionSeen):
//! the authenticator's reason as kube-apiserver logged it or a TokenReview
//! returned it (parsed by `diagnosis::wordings::JwtRejection::parse`).
//! `decode`/`verify --authentication-config` evaluate the configuration
//! offline and report it themselves.

use super::prelude::*;
use crate::diagnosis::wordings::JwtRejection;

pub const JWT_AUTHENTICATOR_REJECTED: CauseDef = CauseDef {
    title: "A JWT authenticator's rule rejected the token",
    summary: "The issuer is one of --authentication-config's JWT authenticators, and its audiences, claim mappings or CEL validation rules reject the token",
    explains: &[C::Unauthorized],
    explanation: "\
A structured authentication configuration (--authentication-config, kind \
AuthenticationConfiguration; v1alpha1 in 1.29, v1beta1 in 1.30, v1 and GA in 1.34) lists \
JWT authenticators beside the ServiceAccount authenticator. A token goes to the \
authenticator whose issuer.url equals its iss exactly; tokens of no listed issuer are left \
to the ServiceAccount authenticator (or nothing). That authenticator then checks the \
signature against the issuer's keys, an audience among issuer.audiences \
(audienceMatchPolicy MatchAny), the claimValidationRules (claim and requiredValue, or a CEL \
expression over claims), builds the user from claimMappings (username, groups, uid, extra: \
a claim with a prefix, or a CEL expression) and last evaluates the userValidationRules (CEL \
over user). The first failure rejects the token and its message is logged with the \
rule's own message.

kubectl satoken decode --authentication-config FILE evaluates all of it offline on the \
token's claims (CEL included) and quotes the failing rule; the fix is in the token (ask \
the identity provider for the claim) or in the configuration, which kube-apiserver \
reloads on its own when the file changes.",
    confirm: Steps::Run(
        "evaluate the configuration on the token offline: which authenticator takes it, and which rule fails",
        |_| {
            Command::satoken()
                .words(&[
                    "decode",
                    "-f",
                    "TOKEN_FILE",
                    "--authentication-config",
                    "AUTHENTICATION_CONFIG_FILE",
                ])
                .with_placeholders()
        },
    ),
    fix: Steps::Say(
        "get a token that satisfies the rule (the claim, audience or email_verified the rule wants), or change the rule in --authentication-config; kube-apiserver reloads the file by itself",
    ),
    sources: &[
        "k8s.io/apiserver plugin/pkg/authenticator/token/oidc/oidc.go (AuthenticateToken, checkValidationRulesEvaluation)",
        "k8s.io/apiserver pkg/apis/apiserver/v1/types.go (AuthenticationConfiguration)",
        "k8s.io/apiserver pkg/authentication/cel (claims and user in CEL)",
        "KEP-3331 keps/sig-auth/3331-structured-authentication-configuration",
    ],
};

/// A JWT authenticator rejected the token.
pub fn rule(case: &Case<'_>, f: &mut Findings) {
    let Some(seen) = &case.jwt_rejection else {
        return;
    };
    // The server's own reason, and the token was refused: nothing else fits.
    if case.classification() != C::Unauthorized {
        return;
    }
    let mut support = vec![Support::server_reason(format!(
        "{}: the JWT authenticator{} rejects it: {}",
        seen.from,
        seen.issuer
            .as_deref()
            .map(|i| format!(" for issuer {i}"))
            .unwrap_or_default(),
        seen.rejection.describe()
    ))];
    if let JwtRejection::Audience { .. } = seen.rejection {
        support.push(Support::token(
            "a JWT authenticator matches audiences itself (MatchAny over issuer.audiences), not the API server's --api-audiences",
        ));
    }
    f.add(Cause::JwtAuthenticatorRejected, Basis::Said, support);
    // The ServiceAccount authenticator never saw the token: its causes go.
    for other in [
        Cause::IssuerMismatch,
        Cause::KeyMismatch,
        Cause::AudienceMismatch,
    ] {
        f.rule_out(other);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::facts::JwtRejectionSeen;
    use crate::diagnosis::merge::Confidence;
    use crate::diagnosis::testing::{case, diagnosed, http, token};
    use serde_json::json;

    #[test]
    fn the_authenticators_reason_is_the_cause() {
        let t = token(json!({"iss": "https://idp.example", "sub": "alice", "aud": "k8s"}));
        let mut c = case(http(401, None), Some(&t));
        let reason = "oidc: error evaluating claim validation expression: validation expression 'claims.email_verified' failed: verify your email";
        c.jwt_rejection = Some(JwtRejectionSeen {
            issuer: Some("https://idp.example".into()),
            rejection: JwtRejection::parse(reason).unwrap(),
            from: "kube-apiserver said".into(),
        });
        let d = diagnosed(&c);
        assert_eq!(
            (d.cause(), d.confidence()),
            (Cause::JwtAuthenticatorRejected, Confidence::High)
        );
        assert!(
            d.top().support[0].text.contains("verify your email"),
            "{:?}",
            d.top().support
        );
        assert!(
            !d.candidates
                .iter()
                .any(|c| c.cause == Cause::IssuerMismatch),
            "the guesses about the ServiceAccount authenticator go"
        );
    }
}
