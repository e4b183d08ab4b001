//! Keys, issuer and audience: is the token one this API server can verify and
//! accepts? kube-apiserver checks, in order (pkg/serviceaccount/jwt.go): the
//! issuer is one of `--service-account-issuer`; the header `kid` names a key
//! (1.31+ fails fast with "invalid signature, no keys found"); a key verifies
//! the signature; an audience is among the API audiences.
//!
//! The server's own JWKS (`/openid/v1/jwks`) settles key questions (`high`);
//! its discovery document shows only the *first* issuer, and the API
//! audiences default to the issuers, so issuer and audience findings from it
//! are `medium`. Without the keys, each stays a guess for a 401.

use super::by_jwt_authenticator;
use super::prelude::*;
use crate::diagnosis::facts::{KeyCheck, ReasonSource};
use crate::diagnosis::reasons::{Authenticator, ReasonKind};
use crate::token::TokenKind;
use crate::token::kind::{FOREIGN_KID_MEANING, is_kubernetes_key_id};

/// The token's kid, or a published one, is not a Kubernetes key id: an
/// external signer (or another issuer) names the keys.
fn external_kid(keys: &KeyCheck) -> bool {
    let mut kids = keys.token_kid.iter().chain(&keys.kids);
    kids.any(|k| !k.is_empty() && !is_kubernetes_key_id(k))
}

pub const KEY_MISMATCH: CauseDef = CauseDef {
    title: "The signing key is not the server's",
    summary: "The token's kid is not among the API server's keys: the key was rotated, or the token is from another cluster",
    explains: &[C::Unauthorized],
    explanation: "\
Every token names its signing key in the header's kid (the base64url SHA-256 of the \
public key's DER). kube-apiserver verifies tokens with the public keys of \
--service-account-key-file (or an external signer); since 1.31 a kid it does not have \
fails at once with \"invalid signature, no keys found\", before that the signature check \
fails (\"crypto/rsa: verification error\", \"error in cryptographic primitive\").

It happens after a key rotation that dropped the old public key while old tokens were \
still in use, when the replicas of the API server have different keys, and with a token \
from another cluster (a copied kubeconfig, a restored backup). Keep old public keys in \
--service-account-key-file until every token signed with them has expired.

With an external signer (ExternalServiceAccountTokenSigner, KEP-740: alpha 1.32, beta \
1.34) the kid is whatever the signer names its key, not a hash; the signer may mark keys \
excludeFromOidcDiscovery, which kube-apiserver still verifies with but does not publish, so \
a kid missing from /openid/v1/jwks is then only a medium-confidence key mismatch. While \
the signer is unreachable kube-apiserver mints no tokens: the kubelet keeps the mounted \
tokens it has until they expire.",
    confirm: KEY_CONFIRM,
    fix: KEY_FIX,
    sources: &[
        "k8s.io/kubernetes pkg/serviceaccount/jwt.go (kid lookup, PR #125177)",
        "k8s.io/kubernetes pkg/serviceaccount/openidmetadata.go",
        "k8s.io/kubernetes pkg/serviceaccount/externaljwt/plugin (ExcludeFromOIDCDiscovery, key ids up to 1 KiB)",
        "KEP-740 keps/sig-auth/740-service-account-external-signing",
    ],
};

pub const SIGNATURE_INVALID: CauseDef = CauseDef {
    title: "No key verifies the signature",
    summary: "No key of the server verifies the signature: the token was altered, or signed by a foreign key",
    explains: &[C::Unauthorized],
    explanation: "\
The signature does not verify with any key the API server has: the token was altered (a \
truncated or re-encoded copy, a tampered payload), or it was signed by a key that reuses \
a kid of this cluster. A token whose kid is simply unknown is key-mismatch.",
    confirm: KEY_CONFIRM,
    fix: KEY_FIX,
    sources: &[
        "k8s.io/kubernetes pkg/serviceaccount/jwt.go",
        "go-jose v2 ErrCryptoFailure",
    ],
};

pub const ISSUER_MISMATCH: CauseDef = CauseDef {
    title: "Issuer not accepted",
    summary: "The token's iss is not one of the API server's --service-account-issuer values",
    explains: &[C::Unauthorized],
    explanation: "\
kube-apiserver's ServiceAccount authenticator handles only tokens whose iss is one of \
its --service-account-issuer values; anything else is passed over, and when no other \
authenticator takes it the request fails with the bare \"invalid bearer token\" (1.31+ \
also logs \"token issuer … is invalid\"). Causes: an issuer change (migrations add the \
new issuer first and keep the old one while tokens rotate), a token from another cluster \
or another identity provider.

The discovery document (/.well-known/openid-configuration) shows only the first issuer; \
all configured issuers are accepted.",
    confirm: Steps::If(
        by_jwt_authenticator,
        &Steps::Run(
            "compare the token's iss with the OIDC authenticator's issuer URL (--oidc-issuer-url, or issuer.url in --authentication-config) character by character: scheme, host, path and trailing slash, as the identity provider's discovery document states it",
            |_| super::commands::decode_token(),
        ),
        &Steps::Run(
            "the first issuer the server accepts (compare with the token's iss: kubectl satoken decode)",
            |_| Command::kubectl().words(&["get", "--raw", "/.well-known/openid-configuration"]),
        ),
    ),
    fix: Steps::If(
        by_jwt_authenticator,
        &Steps::Say(
            "make the authenticator's issuer URL exactly the iss the identity provider puts in its tokens; a token of another identity provider needs a JWT authenticator of its own (--authentication-config lists several)",
        ),
        &Steps::Say(
            "use a token from this cluster; when changing issuers, list the new and the old value in --service-account-issuer until old tokens expire",
        ),
    ),
    sources: &[
        "k8s.io/kubernetes pkg/serviceaccount/jwt.go (issuer pre-check)",
        "k8s.io/kubernetes pkg/kubeapiserver/options/authentication.go",
    ],
};

pub const AUDIENCE_MISMATCH: CauseDef = CauseDef {
    title: "Audience not accepted",
    summary: "None of the token's audiences is among the API server's API audiences",
    explains: &[C::Unauthorized],
    explanation: "\
A token requested for another audience (kubectl create token --audience vault, a projected \
volume with audience: sts.amazonaws.com) is meant for that service, not for the API \
server: kube-apiserver accepts only tokens with one of its API audiences \
(--api-audiences, by default the issuers) and logs \"token audiences [...] is invalid \
for the target audiences [...]\". Use a token without --audience for the API server, and \
the audience-bound one only with its service.",
    confirm: Steps::Or(
        checker_audience_confirm,
        &Steps::If(
            by_jwt_authenticator,
            &Steps::Run(
                "the token's aud, set by the identity provider, must include the OIDC authenticator's client ID (--oidc-client-id, or one of issuer.audiences in --authentication-config)",
                |_| super::commands::decode_token(),
            ),
            &Steps::Run("a fresh token's aud is what the API server expects", |_| {
                Command::kubectl()
                    .words(&["create", "token", "default", "--duration", "10m"])
                    .pipe_into(Command::satoken().word("decode"))
            }),
        ),
    ),
    fix: Steps::Or(
        checker_audience_fix,
        &Steps::If(
            by_jwt_authenticator,
            &Steps::Say(
                "log in with the client ID the authenticator expects (the identity provider then issues the token for it: kubelogin's --oidc-client-id), or add the token's audience to the authenticator (issuer.audiences in --authentication-config; --oidc-client-id holds one)",
            ),
            &Steps::Say(
                "request the token without --audience (or with the API server's audience) for calls to the API server; use an audience-bound token only with its own service",
            ),
        ),
    ),
    sources: &["k8s.io/apiserver pkg/authentication/authenticator/audiences.go"],
};

pub const TOKEN_MALFORMED: CauseDef = CauseDef {
    title: "Not a token this server recognises",
    summary: "No authenticator recognised the token at all: not a complete JWT for this cluster",
    explains: &[C::Unauthorized],
    explanation: "\
\"invalid bearer token\" alone means no authenticator claimed the token: it is not a \
well-formed JWT (cut, wrapped, quoted, a base64 of the token instead of the token), or a \
JWT for another system whose issuer no authenticator handles.",
    confirm: Steps::Run(
        "check it is one complete JWT meant for this cluster",
        |_| super::commands::decode_token(),
    ),
    fix: Steps::Say("send the token exactly as issued: no quotes, line breaks or base64 around it"),
    sources: &["k8s.io/apiserver pkg/authentication/token/union"],
};

/// The token verified against the keys the cluster publishes.
pub(crate) fn verify_against_published_keys() -> Command {
    Command::kubectl()
        .words(&["get", "--raw", "/openid/v1/jwks"])
        .pipe_into(
            Command::satoken()
                .words(&["verify", "-f", "TOKEN_FILE", "--jwks", "-"])
                .with_placeholders(),
        )
}

const KEY_CONFIRM: Steps = Steps::If(
    by_jwt_authenticator,
    &Steps::Run(
        "an OIDC (JWT) authenticator verifies with the identity provider's keys (the jwks_uri of its issuer's discovery document), not the cluster's: the token's kid must be among them",
        issuer_discovery,
    ),
    &Steps::Run(
        "verify the token against the keys the cluster publishes (the kid must be listed)",
        |_| verify_against_published_keys(),
    ),
);

const KEY_FIX: Steps = Steps::If(
    by_jwt_authenticator,
    &Steps::Say(
        "get a fresh ID token from the identity provider (it rotated its signing key, or the token is another provider's or tenant's); check the authenticator's issuer URL (--oidc-issuer-url, or issuer.url in --authentication-config) and allowed algorithms (--oidc-signing-algs)",
    ),
    &Steps::All(&[
        Steps::Run(
            "get a token from this cluster's current key (in a pod: delete the pod)",
            super::commands::create_token,
        ),
        Steps::Say(
            "after a key rotation, keep the old public key in --service-account-key-file until the tokens it signed have expired",
        ),
    ]),
);

/// The issuer's discovery document, from the token's iss when there is one.
fn issuer_discovery(case: &Case<'_>) -> Command {
    let discovery = case
        .token
        .and_then(|t| t.claims.issuer.as_deref())
        .map(|iss| {
            format!(
                "{}/.well-known/openid-configuration",
                iss.trim_end_matches('/')
            )
        });
    Command::satoken()
        .words(&["verify", "-f", "TOKEN_FILE", "--jwks"])
        .value(
            discovery.as_deref(),
            "ISSUER_URL/.well-known/openid-configuration",
        )
        .with_placeholders()
}

/// A checker that reviewed the token for audiences of its own (istiod's
/// istio-ca, Vault's role audience): who, and what it asked for.
/// A TokenReview's target audiences are its caller's spec.audiences; a
/// checker that checks `aud` itself (Vault's role audience) names none.
fn checker_audiences<'c>(case: &'c Case<'_>) -> Option<(&'c str, &'c [String])> {
    let who = match &case.reasons_from {
        Some(ReasonSource::Forwarded(who)) => who.as_str(),
        // probe's own review (a server named) asks for no audiences, so its
        // targets are the API server's; a pasted review is its caller's.
        Some(ReasonSource::TokenReview) if case.server.is_none() => "the TokenReview's caller",
        _ if case.rejected_by() == Some(Authenticator::Checker) => "the checker",
        _ => return None,
    };
    if case.rejected_by() == Some(Authenticator::Checker) {
        return Some((who, &[]));
    }
    case.reasons
        .iter()
        .find(|r| r.kind == ReasonKind::AudienceInvalid && !r.values.target_audiences.is_empty())
        .map(|r| (who, r.values.target_audiences.as_slice()))
}

/// A checker's audience: decode the token the client presents to it.
fn checker_audience_confirm(case: &Case<'_>) -> Option<NextStep> {
    let (who, audiences) = checker_audiences(case)?;
    Some(NextStep::run(
        format!(
            "decode the token the client presents to {who}: its aud must include {}",
            if audiences.is_empty() {
                "the audience it is configured with".to_owned()
            } else {
                audiences.join(" or ")
            }
        ),
        super::commands::decode_token(),
    ))
}

/// A checker's audience: a token requested for it.
fn checker_audience_fix(case: &Case<'_>) -> Option<NextStep> {
    let (who, audiences) = checker_audiences(case)?;
    Some(NextStep::run(
        format!(
            "{who} reviews tokens for the audience it is configured with: give the client a token requested for it (in a pod, a projected serviceAccountToken volume with that audience), not the default token meant for the API server; or, if the client's audience is the intended one, change the audience {who} asks for (a Vault role's audience, istiod's jwtPolicy)"
        ),
        super::commands::create_token(case)
            .word("--audience")
            .value(audiences.first().map(String::as_str), "AUDIENCE"),
    ))
}

/// What the server's keys say about a rejected token.
pub fn rule(case: &Case<'_>, f: &mut Findings) {
    if case.classification() != C::Unauthorized {
        return;
    }
    let Some(keys) = &case.keys else { return };
    let missing = format!(
        "the token's kid {} is not among the keys the server publishes ({}: {})",
        keys.token_kid.as_deref().unwrap_or("(none)"),
        keys.from,
        keys.kids.join(", ")
    );
    match (keys.kid_found, keys.signature_ok) {
        // An external signer may keep a key out of discovery that still
        // verifies: the published list does not settle it.
        (Some(false), _) if external_kid(keys) => f.add(
            Cause::KeyMismatch,
            Basis::Inferred,
            vec![
                Support::new(SupportKind::Keys, missing),
                Support::token(FOREIGN_KID_MEANING),
            ],
        ),
        (Some(false), _) => f.add_fact(
            Cause::KeyMismatch,
            Basis::Observed,
            SupportKind::Keys,
            format!(
                "{missing}: its signing key was rotated away, or the token is from another cluster"
            ),
        ),
        (_, Some(false)) => f.add_fact(
            Cause::SignatureInvalid,
            Basis::Observed,
            SupportKind::Keys,
            format!(
                "no key the server publishes ({}) verifies the token's signature{}: altered, or signed by a key with a reused kid",
                keys.from,
                keys.signature_detail
                    .as_deref()
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default()
            ),
        ),
        (_, Some(true)) => {
            f.rule_out(Cause::KeyMismatch);
            f.rule_out(Cause::SignatureInvalid);
        }
        _ => {}
    }
    match keys.issuer_ok {
        Some(false) => f.add_fact(
            Cause::IssuerMismatch,
            Basis::Inferred,
            SupportKind::Keys,
            format!(
                "the token's issuer {} is not the issuer this server announces ({}); only the first --service-account-issuer is shown, so check the flag's other values",
                case.token
                    .and_then(|t| t.claims.issuer.as_deref())
                    .unwrap_or("(none)"),
                keys.issuer.as_deref().unwrap_or("-")
            ),
        ),
        Some(true) => f.rule_out(Cause::IssuerMismatch),
        None => {}
    }
    if keys.audience_ok == Some(false) {
        f.add_fact(
            Cause::AudienceMismatch,
            Basis::Inferred,
            SupportKind::Keys,
            format!(
                "the token's audiences [{}] do not include this server's issuer {}, its API audience unless --api-audiences says otherwise",
                case.token
                    .map(|t| t.claims.audiences.join(", "))
                    .unwrap_or_default(),
                keys.issuer.as_deref().unwrap_or("-")
            ),
        );
    }
}

/// For a 401 nothing authoritative explains: the key, issuer and audience
/// families, each a guess with the command that checks it.
pub fn guesses(case: &Case<'_>, f: &mut Findings) {
    let Some(token) = case.token else { return };
    if case
        .token_kind()
        .is_some_and(|(k, _)| k == TokenKind::NotKubernetes)
    {
        f.add_fact(
            Cause::IssuerMismatch,
            Basis::Possible,
            SupportKind::Token,
            format!(
                "the token is not a Kubernetes ServiceAccount token (iss {})",
                token.claims.issuer.as_deref().unwrap_or("none")
            ),
        );
        return;
    }
    f.add_fact(
        Cause::KeyMismatch,
        Basis::Possible,
        SupportKind::Token,
        match token.header.kid.as_deref().filter(|k| !k.is_empty()) {
            Some(k) if !is_kubernetes_key_id(k) => format!(
                "the token was signed with key id {k}, which is not a Kubernetes key id: an external signer's key (or another issuer's); if the server cannot verify with it, it is rejected"
            ),
            k => format!(
                "the token was signed with key id {}; if the server no longer has that key (rotated, or another cluster) it is rejected",
                k.unwrap_or("(none)")
            ),
        },
    );
    f.add_fact(
        Cause::IssuerMismatch,
        Basis::Possible,
        SupportKind::Token,
        format!(
            "the token's issuer is {}; it must be one of the server's --service-account-issuer values",
            token.claims.issuer.as_deref().unwrap_or("(none)")
        ),
    );
    f.add_fact(
        Cause::AudienceMismatch,
        Basis::Possible,
        SupportKind::Token,
        format!(
            "the token's audiences are [{}]; at least one must be among the server's API audiences",
            token.claims.audiences.join(", ")
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::facts::KeyCheck;
    use crate::diagnosis::merge::Confidence;
    use crate::diagnosis::testing::{case, diagnosed, has_words, http, pod_bound};

    #[test]
    fn a_checkers_own_audience_asks_for_a_token_of_that_audience() {
        let mut c = case(http(401, None), None);
        c.reasons = crate::diagnosis::reasons::parse_auth_error(
            r#"[invalid bearer token, token audiences ["https://kubernetes.default.svc.cluster.local"] is invalid for the target audiences ["istio-ca"]]"#,
        );
        let asks = |c: &Case<'_>, words: &[&str]| {
            let next = Cause::AudienceMismatch.def().next(c);
            let found = next
                .iter()
                .filter_map(|s| s.command.as_ref())
                .any(|command| has_words(command, words));
            assert!(found, "{words:?} in {next:?}");
        };
        // Said by kube-apiserver for its own audiences: a token for the API server.
        asks(&c, &["kubectl", "create", "token", "default"]);
        // Relayed by the checker that asked for istio-ca: a token for istio-ca.
        c.reasons_from = Some(ReasonSource::Forwarded("istiod".into()));
        asks(&c, &["--audience", "istio-ca"]);
    }

    #[test]
    fn what_the_servers_keys_say() {
        use Confidence::{High, Low, Medium};
        let base = KeyCheck {
            from: "/openid/v1/jwks".into(),
            // Kubernetes key ids (43 characters): no external signer here.
            kids: vec!["JVlzkQ3DJ7rPBaRClvKS2IFvW1ZxBxL8oVxFG4E1b1o".into()],
            token_kid: Some("wZ8pDq3bJ7rPBaRClvKS2IFvW1ZxBxL8oVxFG4E1b1o".into()),
            kid_found: Some(true),
            signature_ok: Some(true),
            issuer_ok: Some(true),
            audience_ok: Some(true),
            ..KeyCheck::default()
        };
        let with = |change: fn(&mut KeyCheck)| {
            let mut keys = base.clone();
            change(&mut keys);
            keys
        };
        let table = [
            (
                with(|k| (k.kid_found, k.signature_ok) = (Some(false), Some(false))),
                Cause::KeyMismatch,
                High,
            ),
            (
                with(|k| k.signature_ok = Some(false)),
                Cause::SignatureInvalid,
                High,
            ),
            (
                with(|k| k.issuer_ok = Some(false)),
                Cause::IssuerMismatch,
                Medium,
            ),
            (
                with(|k| k.audience_ok = Some(false)),
                Cause::AudienceMismatch,
                Medium,
            ),
            // Everything checks out: the key families are ruled out.
            (base.clone(), Cause::Unknown, Low),
        ];
        let token = pod_bound(-60, 3600);
        for (keys, cause, confidence) in table {
            let mut c = case(http(401, None), Some(&token));
            c.keys = Some(keys.clone());
            let d = diagnosed(&c);
            assert_eq!((d.cause(), d.confidence()), (cause, confidence), "{keys:?}");
            if cause == Cause::Unknown {
                assert!(
                    !d.candidates
                        .iter()
                        .any(|c| matches!(c.cause, Cause::KeyMismatch | Cause::IssuerMismatch))
                );
            }
        }
        // An external signer's kid missing from the published keys: medium.
        let mut c = case(http(401, None), Some(&token));
        c.keys = Some(KeyCheck {
            token_kid: Some("signer-key-2".into()),
            kids: vec!["signer-key-1".into()],
            kid_found: Some(false),
            signature_ok: None,
            ..base.clone()
        });
        let d = diagnosed(&c);
        assert_eq!(
            (d.cause(), d.confidence()),
            (Cause::KeyMismatch, Confidence::Medium)
        );
        assert!(
            d.top()
                .support
                .iter()
                .any(|s| s.text.contains("excludeFromOidcDiscovery"))
        );
    }
}
