//! What the authenticator itself said: the reasons kube-apiserver writes to its
//! log (`"Unable to authenticate the request" err="[…]"`) and into a
//! TokenReview's `status.error`, read by `diagnosis::reasons` in every wording
//! from 1.10 to today. The most authoritative evidence there is: `high`,
//! except where a wording covers several causes.
//!
//! - "has been invalidated" names no object: the token's binding says which
//!   (pod, Secret, node); without the token, before 1.23 the same words also
//!   meant a deleted pod, so the candidates tie and `kubectl satoken decode`
//!   tells them apart.
//! - "invalid bearer token" alone: no authenticator recognised the token.
//! - Before 1.31 an unknown kid reads as a failed signature; with the server's
//!   keys in the case, that is a key mismatch.

use super::prelude::*;
use crate::diagnosis::facts::{BindingKind, ReasonSource, ReviewSeen};
use crate::diagnosis::reasons::{self, AuthReason, Authenticator, ReasonKind};
use crate::token::{Binding, TokenKind};

/// Who said it, for the evidence line.
fn speaker(case: &Case<'_>) -> String {
    match &case.reasons_from {
        Some(ReasonSource::TokenReview) => match &case.server {
            Some(url) => format!("TokenReview on {url} said"),
            None => "TokenReview said".to_owned(),
        },
        Some(ReasonSource::Forwarded(who)) => format!("{who} passed on kube-apiserver's reason"),
        Some(ReasonSource::ApiserverLog) | None => "kube-apiserver said".to_owned(),
    }
}

/// The server's reasons for rejecting the token.
pub fn rule(case: &Case<'_>, f: &mut Findings) {
    // Reasons are about this answer whatever its class: a checker relays
    // them with a status of its own (Vault's 500 for a claim it checked).
    if case.reasons.is_empty()
        && case.classification() != C::Unauthorized
        && !matches!(case.answer, Answer::Rejected)
    {
        review_notes(case, f);
        return;
    }
    let specific = reasons::specific(&case.reasons);
    let who = speaker(case);
    let kid_unknown = case
        .keys
        .as_ref()
        .is_some_and(|k| k.kid_found == Some(false));
    for r in &specific {
        if r.kind == ReasonKind::Unrecognised {
            f.add_fact(
                Cause::Unknown,
                Basis::Possible,
                SupportKind::ServerReason,
                format!(
                    "an authenticator said: {} (not a message this tool knows)",
                    r.message
                ),
            );
            continue;
        }
        if r.is_generic() {
            generic(case, f, &who);
            continue;
        }
        // A JWT authenticator's own reason, read in full by its rule.
        if r.jwt.is_some() && case.jwt_rejection.is_some() {
            continue;
        }
        let era = r.era_words();
        let said = if r.kind == ReasonKind::CheckerClaimInvalid {
            let checker = match &case.reasons_from {
                Some(ReasonSource::Forwarded(w)) => w.as_str(),
                _ => "the checker",
            };
            format!(
                "{checker} checked the token's claims itself (not kube-apiserver): \"{}\"",
                r.message
            )
        } else {
            format!("{who} \"{}\" (wording of {era})", r.message)
        };
        let mut support = vec![Support::server_reason(said)];
        support.extend(detail(r, case).into_iter().map(Support::server_reason));
        // The causes the ServiceAccount authenticator shares names with.
        if r.authenticator == Authenticator::Jwt
            && matches!(
                r.cause,
                Cause::KeyMismatch
                    | Cause::SignatureInvalid
                    | Cause::IssuerMismatch
                    | Cause::AudienceMismatch
            )
        {
            support.push(Support::server_reason(
                "an OIDC (JWT) authenticator answered: the keys, issuer and audiences it checks are the identity provider's and its own configuration's, not the ServiceAccount authenticator's",
            ));
        }
        // In an aggregate every authenticator reports. A reason only the
        // token's own authenticator gives outranks what the others say of any
        // token they try (a signature they cannot verify, a legacy token's
        // claims, an issuer that is not theirs).
        let confidence = if r.cut {
            support.push(Support::server_reason(
                "the message is cut short in the evidence: its end, which says more, is missing",
            ));
            Basis::Possible
        } else if owned_elsewhere(r, &specific) {
            support.push(Support::server_reason(
                "another authenticator's reason is specific to this token: this one is what an authenticator says of any token it tries",
            ));
            Basis::Possible
        } else {
            Basis::Said
        };
        if r.kind == ReasonKind::CryptographicPrimitive && kid_unknown {
            support.push(Support::server_reason(
                "servers before 1.31 try every key, so an unknown kid reads as a failed signature",
            ));
            f.add(Cause::KeyMismatch, confidence, support);
            continue;
        }
        if matches!(
            r.kind,
            ReasonKind::TokenInvalidated | ReasonKind::TokenInvalidatedOldWording
        ) {
            invalidated(r, case, f, support, confidence);
            continue;
        }
        // Before 1.31 (and before go-jose) every key was tried: an unknown kid
        // and a bad signature read the same.
        if r.tries_every_key() && case.keys.as_ref().is_none_or(|k| k.kid_found != Some(true)) {
            every_key_tried(r, f, support, confidence);
            continue;
        }
        // The x509 authenticator speaks only of a client certificate; beside
        // a bearer token's reasons the same words are another
        // authenticator's own TLS call (fetching an issuer's keys).
        if r.authenticator == Authenticator::ClientCertificate
            && case.reasons.iter().any(AuthReason::is_generic)
        {
            support.push(Support::server_reason(
                "the request carried a bearer token (\"invalid bearer token\" beside it): these x509 words may be another authenticator's own TLS call, not a client certificate",
            ));
            f.add(r.cause, Basis::Possible, support);
            continue;
        }
        if matches!(
            r.kind,
            ReasonKind::ClientCertificateInvalid
                | ReasonKind::ClientCertificateExpired
                | ReasonKind::ClientCertificateNotYetValid
        ) {
            client_certificate(r, f, support);
            continue;
        }
        f.add(r.cause, confidence, support);
    }
    if let Some(secret) = &case.audit.legacy_token_invalidated {
        f.add_fact(
            Cause::LegacyTokenInvalidated,
            Basis::Said,
            SupportKind::Audit,
            format!("audit annotation authentication.k8s.io/legacy-token-invalidated: {secret}"),
        );
    }
    review_notes(case, f);
}

/// A signature failure from a server that tries every key (before 1.31): a
/// bad signature and a key the server does not have read the same.
fn every_key_tried(r: &AuthReason, f: &mut Findings, mut support: Vec<Support>, confidence: Basis) {
    support.push(Support::server_reason(
        "servers before 1.31 try every key: a token signed by a key they do not have (another cluster, a rotated key) reads the same as a bad signature",
    ));
    let basis = confidence.min(Basis::Inferred);
    f.add(Cause::SignatureInvalid, basis, support);
    f.add_fact(
        Cause::KeyMismatch,
        basis,
        SupportKind::ServerReason,
        format!(
            "\"{}\" is also what a token signed by a key the server does not have gets",
            r.message
        ),
    );
    f.tell_apart(
        &[Cause::SignatureInvalid, Cause::KeyMismatch],
        NextStep::run(
            "is the token's kid among the server's keys? (no: key mismatch; yes: the signature itself is bad)",
            super::keys::verify_against_published_keys(),
        ),
    );
}

/// Whether `r` is what an authenticator says of any token it tries while
/// another reason of the same aggregate could only come from the token's own
/// authenticator (its issuer matched): then `r` is noise.
fn owned_elsewhere(r: &AuthReason, specific: &[&AuthReason]) -> bool {
    let tries_any = |r: &AuthReason| {
        matches!(
            r.kind,
            ReasonKind::CryptographicPrimitive
                | ReasonKind::RsaVerification
                | ReasonKind::JoseError
                | ReasonKind::LegacyClaimInvalid
        ) || (r.authenticator == Authenticator::Jwt && r.kind == ReasonKind::IssuerInvalid)
    };
    tries_any(r)
        && specific
            .iter()
            .any(|o| !tries_any(o) && o.kind != ReasonKind::Unrecognised)
}

/// `x509: certificate has expired or is not yet valid[: current time X is
/// after|before Y]`: which one, when Go said.
fn client_certificate(r: &AuthReason, f: &mut Findings, mut support: Vec<Support>) {
    if r.kind == ReasonKind::ClientCertificateExpired {
        f.add(Cause::ClientCertificateExpired, Basis::Said, support);
    } else if r.kind == ReasonKind::ClientCertificateNotYetValid {
        support.push(Support::server_reason(
            "the client certificate is not valid yet on the API server's clock: a clock is off",
        ));
        f.add(Cause::ClockSkew, Basis::Said, support);
    } else {
        f.add(Cause::ClientCertificateExpired, Basis::Inferred, support);
        f.add_fact(
            Cause::ClockSkew,
            Basis::Possible,
            SupportKind::ServerReason,
            "the same words fit a certificate not yet valid on the server's clock (a clock off)",
        );
    }
}

/// "has been invalidated": which object, from the token's binding.
fn invalidated(
    r: &AuthReason,
    case: &Case<'_>,
    f: &mut Findings,
    mut support: Vec<Support>,
    confidence: Basis,
) {
    let cause = match case.token_kind() {
        Some((TokenKind::LegacySecret, _) | (_, Binding::Secret)) => Some(Cause::SecretDeleted),
        Some((_, Binding::Pod)) => Some(Cause::PodDeleted),
        Some((_, Binding::Node)) => Some(Cause::NodeDeleted),
        _ => None,
    };
    if let Some(cause) = cause {
        f.add(cause, confidence, support);
        return;
    }
    // A server logged which object is missing.
    let missing = case.missing.iter().find_map(|(kind, name)| match kind {
        BindingKind::Secret => Some((Cause::SecretDeleted, "Secret", name)),
        BindingKind::Pod => Some((Cause::PodDeleted, "pod", name)),
        BindingKind::Node => Some((Cause::NodeDeleted, "node", name)),
        BindingKind::ServiceAccount => None,
    });
    if let Some((cause, what, name)) = missing {
        support.push(Support::server_reason(format!(
            "a server logged {what} \"{name}\" as not found next to it: the token was bound to it"
        )));
        f.add(cause, Basis::Inferred, support);
        return;
    }
    // Without the token the wording allows several objects: 1.23+ "service
    // account token has been invalidated" is a bound pod, Secret or node gone;
    // "Token has been invalidated" is a legacy Secret gone, or before 1.23 any
    // bound object.
    let legacy_wording = r.kind == ReasonKind::TokenInvalidatedOldWording;
    let causes: &[Cause] = if legacy_wording {
        &[Cause::SecretDeleted, Cause::PodDeleted]
    } else {
        &[Cause::PodDeleted, Cause::SecretDeleted, Cause::NodeDeleted]
    };
    for (i, cause) in causes.iter().enumerate() {
        let mut s = if i == 0 { support.clone() } else { Vec::new() };
        s.push(Support::server_reason(format!(
            "\"{}\" names no object: {}",
            r.message,
            if legacy_wording {
                "a legacy token whose Secret is gone, or (before 1.23) a bound token whose pod or Secret is gone"
            } else {
                "the pod, Secret or node the token is bound to is gone"
            }
        )));
        f.add(*cause, Basis::Inferred, s);
    }
    f.tell_apart(
        causes,
        NextStep::run(
            "the token's binding says which object it died with (pod, Secret or node)",
            super::commands::decode_token(),
        ),
    );
}

/// "invalid bearer token" alone: no authenticator recognised the token.
fn generic(case: &Case<'_>, f: &mut Findings, who: &str) {
    let mut support = vec![Support::server_reason(format!(
        "{who} \"invalid bearer token\" and nothing else: no authenticator recognised the token (unknown issuer, not a JWT, or a token for another system)"
    ))];
    if let Some(t) = case.token {
        support.push(Support::token(format!(
            "your token's iss is {}",
            t.claims.issuer.as_deref().unwrap_or("(none)")
        )));
    }
    // The union answers this only when every token authenticator declined
    // without an error (bearertoken.go's default): an issuer none claims, a
    // text that is no JWT, a webhook's or a JWT authenticator's bare "no"
    // (vcluster 1.34 logs an OIDC claim rule's rejection so). None is named.
    let not_k8s = case
        .token_kind()
        .is_some_and(|(k, _)| k == TokenKind::NotKubernetes);
    let (first, second) = if not_k8s {
        (Cause::TokenMalformed, Cause::IssuerMismatch)
    } else {
        (Cause::IssuerMismatch, Cause::TokenMalformed)
    };
    f.add(first, Basis::Possible, support);
    f.add_fact(
        second,
        Basis::Possible,
        SupportKind::ServerReason,
        if second == Cause::TokenMalformed {
            "a token that is cut, wrapped, quoted or base64-encoded once more also gets only \"invalid bearer token\""
        } else {
            "a JWT whose issuer no authenticator accepts also gets only \"invalid bearer token\""
        },
    );
    f.add_fact(
        Cause::JwtAuthenticatorRejected,
        Basis::Possible,
        SupportKind::ServerReason,
        "a JWT authenticator (--authentication-config, --oidc-*) or a webhook that declines without an error also leaves only \"invalid bearer token\"",
    );
}

/// What a TokenReview said besides reasons: accepted now, or not allowed.
fn review_notes(case: &Case<'_>, f: &mut Findings) {
    match &case.review {
        Some(ReviewSeen::Authenticated { username })
            if case.classification() == C::Unauthorized =>
        {
            f.note(Support::server_reason(format!(
                "yet a TokenReview on the same server accepts the token now (as {username}): the state changed between the two requests (a binding deleted or restored, a clock step), so repeat the probe"
            )));
        }
        Some(ReviewSeen::NotAllowed { status, message }) => {
            f.note(Support::server_reason(format!(
                "TokenReview not possible with the kubeconfig credentials (HTTP {status}{}): they need create tokenreviews (e.g. the system:auth-delegator ClusterRole); continuing without it",
                if message.is_empty() {
                    String::new()
                } else {
                    format!(": {message}")
                }
            )));
        }
        _ => {}
    }
}

/// Plain-words detail for a reason, compared with the token when there is one.
fn detail(r: &AuthReason, case: &Case<'_>) -> Vec<String> {
    let v = &r.values;
    let mut out = Vec::new();
    match r.kind {
        ReasonKind::ServiceAccountUidMismatch
        | ReasonKind::PodUidMismatch
        | ReasonKind::SecretUidMismatch
        | ReasonKind::NodeUidMismatch => {
            let (what, kind) = match r.kind {
                ReasonKind::ServiceAccountUidMismatch => {
                    ("ServiceAccount", BindingKind::ServiceAccount)
                }
                ReasonKind::PodUidMismatch => ("pod", BindingKind::Pod),
                ReasonKind::SecretUidMismatch => ("Secret", BindingKind::Secret),
                _ => ("node", BindingKind::Node),
            };
            out.push(format!(
                "the {what} was deleted and recreated: the token names uid {}, the live object has uid {}",
                v.claim_uid.as_deref().unwrap_or("?"),
                v.live_uid.as_deref().unwrap_or("?")
            ));
            if let Some(t) = case.token {
                let mine = super::bindings::claimed(&t.claims, kind).and_then(|o| o.uid);
                out.push(match mine {
                    Some(uid) if Some(&uid) == v.claim_uid.as_ref() => {
                        format!("your token's {what} uid is {uid}: this reason is about your token")
                    }
                    Some(uid) => format!(
                        "your token's {what} uid is {uid}, not {}: this reason is about another token",
                        v.claim_uid.as_deref().unwrap_or("?")
                    ),
                    None => format!("your token carries no {what} uid"),
                });
            }
        }
        ReasonKind::ServiceAccountNotFound | ReasonKind::ServiceAccountDeleted => {
            out.push(format!(
                "the ServiceAccount {}{} no longer exists (or is being deleted)",
                v.namespace.as_deref().map(|n| format!("{n}/")).unwrap_or_default(),
                v.name.as_deref().unwrap_or("?")
            ));
        }
        ReasonKind::AudienceInvalid => {
            // The target audiences are what the request asked for: a
            // TokenReview's spec.audiences, else the API server's own.
            let list = |a: &[String]| format!("[{}]", a.join(", "));
            let (token, target) = (list(&v.token_audiences), list(&v.target_audiences));
            out.push(match &case.reasons_from {
                Some(ReasonSource::Forwarded(who)) => {
                    format!("the token is for {token}; {who}'s TokenReview asked for {target}")
                }
                Some(ReasonSource::TokenReview) => format!(
                    "the token is for {token}; the review checked it against {target} (its spec.audiences, or the API server's own when it names none)"
                ),
                _ => format!("the token is for {token}; the API server accepts {target}"),
            });
        }
        ReasonKind::LegacyTokenMarkedInvalid => out.push(format!(
            "Secret {}/{} is labelled kubernetes.io/legacy-token-invalid-since by the legacy token cleaner",
            v.namespace.as_deref().unwrap_or("?"),
            v.secret.as_deref().unwrap_or("?")
        )),
        ReasonKind::NodeBindingValidationDisabled => out.push(
            "a node-bound token on a server with ServiceAccountTokenNodeBindingValidation off (1.29–1.31): enable the gate or use a pod-bound token"
                .to_owned(),
        ),
        ReasonKind::CouldNotBeValidated => out.push(
            "≤1.22 wording for a token not yet valid (nbf or iat ahead of the server's clock)".to_owned(),
        ),
        ReasonKind::UnexpectedValidationError => out.push(
            "1.23–1.26 wording for a token issued in the future (iat ahead of the server's clock, no nbf)"
                .to_owned(),
        ),
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::merge::Confidence;
    use crate::diagnosis::testing::{bound_to, case, diagnosed, legacy, pod_bound, run};

    fn rejected<'t>(text: &str, token: Option<&'t crate::token::Token>) -> Case<'t> {
        let mut c = case(Answer::Rejected, token);
        c.reasons = reasons::parse_auth_error(text);
        c.reasons_from = Some(ReasonSource::ApiserverLog);
        c
    }

    #[test]
    fn the_servers_word() {
        let pod = pod_bound(-60, 3600);
        let secret = bound_to("secret");
        let node = bound_to("node");
        let old = legacy();
        use Confidence::{High, Low, Medium};
        const INVALIDATED: &str =
            "[invalid bearer token, service account token has been invalidated]";
        let table: [(&str, Option<&crate::token::Token>, Cause, Confidence); 11] = [
            (
                "[invalid bearer token, service account token has expired]",
                None,
                Cause::Expired,
                High,
            ),
            (
                "[invalid bearer token, Token could not be validated.]",
                None,
                Cause::ClockSkew,
                High,
            ),
            (
                "[invalid bearer token, service account UID (b) does not match claim (a)]",
                None,
                Cause::ServiceAccountRecreated,
                High,
            ),
            (INVALIDATED, Some(&pod), Cause::PodDeleted, High),
            (INVALIDATED, Some(&secret), Cause::SecretDeleted, High),
            (INVALIDATED, Some(&node), Cause::NodeDeleted, High),
            // Without the token the wording names no object: a tie, told apart.
            (INVALIDATED, None, Cause::PodDeleted, Medium),
            (
                "[invalid bearer token, Token has been invalidated]",
                Some(&old),
                Cause::SecretDeleted,
                High,
            ),
            // Every authenticator declined without an error: no cause is named.
            ("invalid bearer token", None, Cause::Unknown, Low),
            (
                "[invalid bearer token, something new]",
                None,
                Cause::Unknown,
                Low,
            ),
            // Two authoritative reasons that disagree: neither is certain.
            (
                "[invalid bearer token, service account token has expired, Token does not match server's copy]",
                None,
                Cause::Expired,
                Medium,
            ),
        ];
        for (text, token, cause, confidence) in table {
            assert_eq!(
                run(&rejected(text, token)),
                (cause, confidence),
                "{text} {:?}",
                token.map(|t| &t.claims.subject)
            );
        }
    }

    #[test]
    fn a_bare_invalid_bearer_token_names_no_cause_but_every_one_it_allows() {
        let d = diagnosed(&rejected("invalid bearer token", None));
        let listed: Vec<(Cause, Confidence)> = d
            .candidates
            .iter()
            .map(|c| (c.cause, c.confidence))
            .collect();
        // The three this answer allows lead the 401's usual suspects.
        assert_eq!(
            listed[..4],
            [
                (Cause::Unknown, Confidence::Low),
                (Cause::IssuerMismatch, Confidence::Low),
                (Cause::TokenMalformed, Confidence::Low),
                (Cause::JwtAuthenticatorRejected, Confidence::Low),
            ]
        );
    }

    #[test]
    fn a_tie_comes_with_the_command_that_settles_it() {
        let d = diagnosed(&rejected(
            "[invalid bearer token, Token has been invalidated]",
            None,
        ));
        let first = d.top().next[0].command.as_ref().unwrap().shell();
        assert_eq!(first, "kubectl satoken decode -f TOKEN_FILE");
        let causes: Vec<Cause> = d.candidates.iter().map(|c| c.cause).collect();
        assert_eq!(causes, [Cause::SecretDeleted, Cause::PodDeleted]);
    }
}
