//! Accepted, but stale: a client still sending a token past its `warnafter`
//! (kube-apiserver audits it as `authentication.k8s.io/stale-token`; `doctor`
//! sees it from the mounted token's age), and what audit events say besides
//! the answer (legacy tokens, credential ids, the authorisation decision).

use crate::diagnosis::Cause;
use crate::diagnosis::case::{Case, Degradation};
use crate::diagnosis::cause::CauseDef;
use crate::diagnosis::classification::Classification as C;
use crate::diagnosis::merge::{Confidence, Findings};
use crate::diagnosis::next::NextStep;
use crate::diagnosis::support::{Support, SupportKind};

pub const STALE_TOKEN: CauseDef = CauseDef {
    code: "stale-token",
    title: "Stale token still in use",
    summary: "Accepted, but the client sends a token past its warnafter: it does not re-read the rotated token file",
    explains: &[C::Ok],
    explanation: "\
Projected tokens mounted by the kubelet ask for 3607 s, but kube-apiserver issues them \
with a one-year exp and a warnafter claim one hour after issue (extended expiry, for \
clients that never re-read the file). Until warnafter nothing is noticed; after it, every \
use is accepted but audited with the annotation authentication.k8s.io/stale-token. The \
kubelet rewrites the file at 80 % of the hour; a client that read it once at start keeps \
the old token.

It works today and fails the day extended expiry is turned off (managed clusters and \
--service-account-extend-token-expiration=false do), or when the pod is deleted. Upgrade \
the client library or make it re-read the file (client-go does every minute).",
    confirm: stale_confirm,
    fix: stale_fix,
    sources: &[
        "k8s.io/kubernetes pkg/serviceaccount/claims.go (warnafter, stale-token audit annotation)",
        "KEP-542 (TokenRequest / bound tokens)",
    ],
};

fn stale_confirm(_: &Case<'_>) -> Vec<NextStep> {
    vec![NextStep::run(
        "decode the token the client actually sends: past warnafter it is stale",
        super::commands::decode_token(),
    )]
}

fn stale_fix(_: &Case<'_>) -> Vec<NextStep> {
    vec![NextStep::say(
        "make the client re-read the projected token file periodically (client-go does every minute), or upgrade the client library",
    )]
}

/// Stale tokens, and the audit facts that name no cause by themselves.
pub fn rule(case: &Case<'_>, f: &mut Findings) {
    let accepted = matches!(case.classification(), C::Ok | C::NotFound | C::Forbidden);
    if accepted && let Some(value) = &case.audit.stale_token {
        f.add(
            Cause::StaleToken,
            Confidence::High,
            vec![Support::new(
                SupportKind::Audit,
                format!(
                    "audit annotation authentication.k8s.io/stale-token: \"{value}\": accepted, but the client still sends a token past its warnafter (it does not re-read the projected token file)"
                ),
            )],
        );
    }
    for d in &case.degraded {
        if let (true, Degradation::Stale(text)) = (accepted, d) {
            f.add(
                Cause::StaleToken,
                Confidence::Medium,
                vec![Support::new(SupportKind::Token, text.clone())],
            );
        }
    }
    if let Some(sub) = &case.audit.legacy_token {
        f.note(Support::new(
            SupportKind::Audit,
            format!(
                "audit annotation authentication.k8s.io/legacy-token: {sub} used a token without audiences (a legacy Secret token)"
            ),
        ));
    }
    if let Some(id) = &case.audit.credential_id {
        let origin = if case.audit.credential_id_from_annotation {
            "annotation authentication.k8s.io/credential-id (kube-apiserver does not write this annotation; it records the id in user.extra[\"authentication.kubernetes.io/credential-id\"])"
        } else {
            "user.extra[\"authentication.kubernetes.io/credential-id\"]"
        };
        f.note(Support::new(
            SupportKind::Audit,
            format!("credential id {id} from {origin}"),
        ));
        if let Some(jti) = case.token.and_then(|t| t.claims.jwt_id.as_deref()) {
            let mine = format!("JTI={jti}");
            f.note(Support::new(
                SupportKind::Audit,
                if *id == mine {
                    "the event was made with your token (same credential id)".to_owned()
                } else {
                    format!(
                        "the event was made with another token than yours ({mine}): the client sends a different (older?) token; compare fingerprints with kubectl satoken decode"
                    )
                },
            ));
        }
    }
    if let Some(a) = &case.audit.authorization {
        f.note(Support::new(
            SupportKind::Audit,
            format!("authorization decision {a}"),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::testing::{case, http, run};

    #[test]
    fn accepted_but_stale() {
        let mut c = case(http(200, None), None);
        c.audit.stale_token = Some("subject: x, seconds after warning threshold: 60".into());
        assert_eq!(run(&c), (Cause::StaleToken, Confidence::High));
        let mut c = case(http(200, None), None);
        c.degraded = vec![Degradation::Stale("2h old".into())];
        assert_eq!(run(&c), (Cause::StaleToken, Confidence::Medium));
        let c = case(http(200, None), None);
        assert_eq!(run(&c), (Cause::None, Confidence::High));
    }
}
