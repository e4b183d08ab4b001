//! Pure: the objects a token is bound to, read from the API and compared with
//! the token's claims as kube-apiserver does (pkg/serviceaccount/claims.go for
//! bound tokens, legacy.go for Secret tokens): existence, uid, and
//! `deletionTimestamp`, and for legacy tokens the cleaner's
//! `kubernetes.io/legacy-token-invalid-since` label.
//!
//! A read is the API's own answer, so a finding here is `high` confidence
//! (a terminating pod or bound Secret is `medium`: the token stays valid until
//! the object is gone or its deletion is older than the 60 s leeway).

use serde::Serialize;
use serde_json::Value;

use crate::diagnosis::{Cause, CauseCandidate, Confidence};
use crate::token::Token;

/// The label the legacy token cleaner (1.29+) puts on a Secret it invalidated.
pub const INVALID_SINCE_LABEL: &str = "kubernetes.io/legacy-token-invalid-since";

/// Which kind of object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BindingKind {
    #[serde(rename = "serviceaccount")]
    ServiceAccount,
    Pod,
    Secret,
}

impl BindingKind {
    /// Plural resource (API path, kubectl).
    pub fn resource(self) -> &'static str {
        match self {
            BindingKind::ServiceAccount => "serviceaccounts",
            BindingKind::Pod => "pods",
            BindingKind::Secret => "secrets",
        }
    }

    /// As kubectl and people name it.
    pub fn as_str(self) -> &'static str {
        match self {
            BindingKind::ServiceAccount => "serviceaccount",
            BindingKind::Pod => "pod",
            BindingKind::Secret => "secret",
        }
    }
}

/// An object the token names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindingTarget {
    pub kind: BindingKind,
    pub namespace: String,
    pub name: String,
    /// The uid in the token (legacy Secrets carry none).
    pub claim_uid: Option<String>,
    /// A legacy Secret token (deletion without leeway; the invalid-since label).
    pub legacy: bool,
}

impl BindingTarget {
    /// The API path that reads it.
    pub fn path(&self) -> String {
        format!(
            "/api/v1/namespaces/{}/{}/{}",
            self.namespace,
            self.kind.resource(),
            self.name
        )
    }

    /// The kubectl command that settles it.
    pub fn kubectl(&self) -> String {
        let base = format!(
            "kubectl get {} {} -n {}",
            self.kind.as_str(),
            self.name,
            self.namespace
        );
        if self.kind == BindingKind::Secret && self.legacy {
            return format!(
                "{base} -o jsonpath='{{.metadata.uid}} {{.metadata.deletionTimestamp}} {{.metadata.labels.kubernetes\\.io/legacy-token-invalid-since}}'"
            );
        }
        match &self.claim_uid {
            Some(uid) => format!(
                "{base} -o jsonpath='{{.metadata.uid}} {{.metadata.deletionTimestamp}}'   # the uid must be {uid}"
            ),
            None => base,
        }
    }
}

/// The objects the token names, in kube-apiserver's check order.
pub fn targets(token: &Token) -> Vec<BindingTarget> {
    let claims = &token.claims;
    let Some(ns) = claims.namespace().filter(|n| !n.is_empty()) else {
        return Vec::new();
    };
    let legacy = claims.legacy.is_some();
    let mut out = Vec::new();
    let mut add = |kind, r: Option<crate::token::claims::ObjectRef>| {
        if let Some(r) = r
            && let Some(name) = r.name.filter(|n| !n.is_empty())
        {
            out.push(BindingTarget {
                kind,
                namespace: ns.to_owned(),
                name,
                claim_uid: r.uid.filter(|u| !u.is_empty()),
                legacy,
            });
        }
    };
    add(BindingKind::ServiceAccount, claims.service_account());
    add(BindingKind::Secret, claims.secret());
    add(
        BindingKind::Pod,
        claims.kubernetes.as_ref().and_then(|k| k.pod.clone()),
    );
    out
}

/// What the read showed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BindingState {
    /// Exists, same uid, not being deleted: not the cause.
    Matches,
    /// 404.
    Missing,
    /// Same name, another uid: deleted and recreated.
    UidDiffers,
    /// `deletionTimestamp` is set.
    Deleting,
    /// A legacy Secret labelled `kubernetes.io/legacy-token-invalid-since`.
    InvalidSince,
    /// The caller may not read it (401/403) or the read failed.
    Unreadable,
}

impl BindingState {
    /// Stable kebab-case name.
    pub fn as_str(&self) -> &'static str {
        match self {
            BindingState::Matches => "matches",
            BindingState::Missing => "missing",
            BindingState::UidDiffers => "uid-differs",
            BindingState::Deleting => "deleting",
            BindingState::InvalidSince => "invalid-since",
            BindingState::Unreadable => "unreadable",
        }
    }
}

/// One object compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindingCheck {
    pub target: BindingTarget,
    pub state: BindingState,
    pub live_uid: Option<String>,
    pub deletion_timestamp: Option<String>,
    pub invalid_since: Option<String>,
    /// HTTP status of the read (None: not sent / transport failure).
    pub status: Option<u16>,
    /// Which server answered, and as whom (`kubeconfig credentials`, `the token`).
    pub via: String,
}

/// Compares one read with the token's claims.
pub fn check(
    target: &BindingTarget,
    status: Option<u16>,
    body: Option<&Value>,
    via: &str,
) -> BindingCheck {
    let meta = body.and_then(|b| b.get("metadata"));
    let text = |key: &str| {
        meta.and_then(|m| m.get(key))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let live_uid = text("uid");
    let deletion_timestamp = text("deletionTimestamp");
    let invalid_since = meta
        .and_then(|m| m.get("labels"))
        .and_then(|l| l.get(INVALID_SINCE_LABEL))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let state = match status {
        Some(404) => BindingState::Missing,
        Some(s) if (200..300).contains(&s) && meta.is_some() => {
            if target.claim_uid.is_some() && live_uid != target.claim_uid {
                BindingState::UidDiffers
            } else if deletion_timestamp.is_some() {
                BindingState::Deleting
            } else if target.kind == BindingKind::Secret && target.legacy && invalid_since.is_some()
            {
                BindingState::InvalidSince
            } else {
                BindingState::Matches
            }
        }
        _ => BindingState::Unreadable,
    };
    BindingCheck {
        target: target.clone(),
        state,
        live_uid,
        deletion_timestamp,
        invalid_since,
        status,
        via: via.to_owned(),
    }
}

/// Causes the reads establish, and the causes they rule out.
pub fn candidates(checks: &[BindingCheck]) -> (Vec<CauseCandidate>, Vec<Cause>) {
    let mut found = Vec::new();
    let mut ruled_out = Vec::new();
    for c in checks {
        let t = &c.target;
        let what = format!("{} {}/{}", t.kind.as_str(), t.namespace, t.name);
        let read = format!("read from {}", c.via);
        let claim = t.claim_uid.as_deref().unwrap_or("(none in the token)");
        let live = c.live_uid.as_deref().unwrap_or("-");
        let (cause, confidence, evidence) = match (&c.state, t.kind) {
            (BindingState::Matches, kind) => {
                ruled_out.extend(match kind {
                    BindingKind::ServiceAccount => {
                        vec![Cause::ServiceAccountRecreated, Cause::ServiceAccountDeleted]
                    }
                    BindingKind::Pod => vec![Cause::PodDeleted],
                    BindingKind::Secret if t.legacy => {
                        vec![Cause::SecretDeleted, Cause::LegacyTokenInvalidated]
                    }
                    BindingKind::Secret => vec![Cause::SecretDeleted],
                });
                continue;
            }
            (BindingState::Unreadable, _) => continue,
            // Exists under a new uid: not "deleted"; gone: not "recreated".
            (BindingState::UidDiffers, BindingKind::ServiceAccount) => {
                ruled_out.push(Cause::ServiceAccountDeleted);
                (
                    Cause::ServiceAccountRecreated,
                    Confidence::High,
                    format!(
                        "{what} was deleted and recreated: the token names uid {claim}, the live object has uid {live} ({read}); kube-apiserver logs \"service account UID ({live}) does not match claim ({claim})\""
                    ),
                )
            }
            (BindingState::Missing, BindingKind::ServiceAccount) => {
                ruled_out.push(Cause::ServiceAccountRecreated);
                (
                    Cause::ServiceAccountDeleted,
                    Confidence::High,
                    format!(
                        "{what} does not exist ({read}: 404): every token for it is rejected with serviceaccounts \"{}\" not found",
                        t.name
                    ),
                )
            }
            (BindingState::Deleting, BindingKind::ServiceAccount) => (
                Cause::ServiceAccountDeleted,
                Confidence::High,
                format!(
                    "{what} is being deleted (deletionTimestamp {}, {read}); tokens fail once that is more than 60 s ago",
                    c.deletion_timestamp.as_deref().unwrap_or("-")
                ),
            ),
            (BindingState::Missing, BindingKind::Pod) => (
                Cause::PodDeleted,
                Confidence::High,
                format!(
                    "the token is bound to {what} uid {claim}, which no longer exists ({read}: 404): \"service account token has been invalidated\""
                ),
            ),
            (BindingState::UidDiffers, BindingKind::Pod) => (
                Cause::PodDeleted,
                Confidence::High,
                format!(
                    "the token is bound to {what} uid {claim}; the pod of that name now has uid {live} ({read}): it was recreated, and the old pod's tokens died with it"
                ),
            ),
            (BindingState::Deleting, BindingKind::Pod) => (
                Cause::PodDeleted,
                Confidence::Medium,
                format!(
                    "{what} is terminating (deletionTimestamp {}, {read}); its tokens fail 60 s after that instant or when the pod is gone",
                    c.deletion_timestamp.as_deref().unwrap_or("-")
                ),
            ),
            (BindingState::Missing, BindingKind::Secret) => (
                Cause::SecretDeleted,
                Confidence::High,
                if t.legacy {
                    format!(
                        "the legacy token's {what} no longer exists ({read}: 404): \"Token has been invalidated\""
                    )
                } else {
                    format!(
                        "the token is bound to {what} uid {claim}, which no longer exists ({read}: 404)"
                    )
                },
            ),
            (BindingState::UidDiffers, BindingKind::Secret) => (
                Cause::SecretDeleted,
                Confidence::High,
                format!(
                    "the token is bound to {what} uid {claim}; the Secret of that name now has uid {live} ({read})"
                ),
            ),
            (BindingState::Deleting, BindingKind::Secret) => (
                Cause::SecretDeleted,
                if t.legacy {
                    Confidence::High
                } else {
                    Confidence::Medium
                },
                format!(
                    "{what} is being deleted (deletionTimestamp {}, {read}){}",
                    c.deletion_timestamp.as_deref().unwrap_or("-"),
                    if t.legacy {
                        ": a legacy token dies as soon as its Secret has a deletionTimestamp"
                    } else {
                        ""
                    }
                ),
            ),
            (BindingState::InvalidSince, _) => (
                Cause::LegacyTokenInvalidated,
                Confidence::High,
                format!(
                    "{what} carries the label {INVALID_SINCE_LABEL}={} ({read}): the legacy token cleaner invalidated this unused token",
                    c.invalid_since.as_deref().unwrap_or("-")
                ),
            ),
        };
        let mut candidate = CauseCandidate {
            cause,
            confidence,
            evidence: vec![evidence],
            next_steps: Vec::new(),
        };
        candidate.next_steps.push(match (cause, t.kind) {
            (Cause::ServiceAccountRecreated | Cause::ServiceAccountDeleted, _) => format!(
                "get a token for the current ServiceAccount: restart the workload (new pods get new tokens), or kubectl create token {} -n {}",
                t.name, t.namespace
            ),
            (Cause::PodDeleted, _) => {
                "the token belongs to a pod that is gone: use the token mounted in the running pod (a copied token dies with its pod)".to_owned()
            }
            (Cause::LegacyTokenInvalidated, _) => format!(
                "move to a TokenRequest token (kubectl create token {sa} -n {ns}), or to allow it for now: kubectl label secret {} -n {ns} {INVALID_SINCE_LABEL}-",
                t.name,
                sa = checks.iter().find(|c| c.target.kind == BindingKind::ServiceAccount).map_or("NAME", |c| c.target.name.as_str()),
                ns = t.namespace
            ),
            _ => format!(
                "the Secret is gone: create a new token (kubectl create token NAME -n {})",
                t.namespace
            ),
        });
        found.push(candidate);
    }
    (found, ruled_out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn target(kind: BindingKind, legacy: bool) -> BindingTarget {
        BindingTarget {
            kind,
            namespace: "shop".into(),
            name: "web".into(),
            claim_uid: (!legacy).then(|| "uid-old".to_owned()),
            legacy,
        }
    }

    fn obj(uid: &str, extra: Value) -> Value {
        let mut meta = json!({"name": "web", "namespace": "shop", "uid": uid});
        if let (Some(m), Some(e)) = (meta.as_object_mut(), extra.as_object()) {
            m.extend(e.clone());
        }
        json!({"metadata": meta})
    }

    #[test]
    fn states_and_causes() {
        let sa = target(BindingKind::ServiceAccount, false);
        let cases = [
            (
                check(&sa, Some(200), Some(&obj("uid-old", json!({}))), "a"),
                BindingState::Matches,
                None,
            ),
            (
                check(&sa, Some(200), Some(&obj("uid-new", json!({}))), "a"),
                BindingState::UidDiffers,
                Some((Cause::ServiceAccountRecreated, Confidence::High)),
            ),
            (
                check(&sa, Some(404), None, "a"),
                BindingState::Missing,
                Some((Cause::ServiceAccountDeleted, Confidence::High)),
            ),
            (
                check(&sa, Some(403), None, "a"),
                BindingState::Unreadable,
                None,
            ),
            (
                check(
                    &target(BindingKind::Pod, false),
                    Some(200),
                    Some(&obj(
                        "uid-old",
                        json!({"deletionTimestamp": "2026-01-01T00:00:00Z"}),
                    )),
                    "a",
                ),
                BindingState::Deleting,
                Some((Cause::PodDeleted, Confidence::Medium)),
            ),
            (
                check(
                    &target(BindingKind::Secret, true),
                    Some(200),
                    Some(&obj(
                        "x",
                        json!({"labels": {INVALID_SINCE_LABEL: "2025-12-01"}}),
                    )),
                    "a",
                ),
                BindingState::InvalidSince,
                Some((Cause::LegacyTokenInvalidated, Confidence::High)),
            ),
            (
                check(&target(BindingKind::Secret, true), Some(404), None, "a"),
                BindingState::Missing,
                Some((Cause::SecretDeleted, Confidence::High)),
            ),
        ];
        for (c, state, expected) in cases {
            assert_eq!(c.state, state, "{c:?}");
            let (found, _) = candidates(std::slice::from_ref(&c));
            assert_eq!(
                found.first().map(|f| (f.cause, f.confidence)),
                expected,
                "{c:?}"
            );
        }
        let (found, ruled) =
            candidates(&[check(&sa, Some(200), Some(&obj("uid-old", json!({}))), "a")]);
        assert!(found.is_empty());
        assert!(ruled.contains(&Cause::ServiceAccountRecreated));
        let c = check(&sa, Some(200), Some(&obj("uid-new", json!({}))), "a");
        let (found, _) = candidates(&[c]);
        let text = found[0].evidence.join(" ");
        assert!(
            text.contains("uid-old") && text.contains("uid-new"),
            "{text}"
        );
    }
}
