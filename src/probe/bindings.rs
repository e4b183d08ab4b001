//! Pure: the objects a token is bound to, and a read of each from the API
//! compared with the token's claims as kube-apiserver does
//! (pkg/serviceaccount/claims.go for bound tokens, legacy.go for Secret
//! tokens): existence, uid, `deletionTimestamp`, and for legacy tokens the
//! cleaner's `kubernetes.io/legacy-token-invalid-since` label. What a state
//! means is `diagnosis::rules::bindings`.

use serde_json::Value;

pub use crate::diagnosis::facts::{BindingCheck, BindingKind, BindingState, BindingTarget};
pub use crate::diagnosis::rules::bindings::INVALID_SINCE_LABEL;
use crate::token::Token;

/// The objects the token names, in kube-apiserver's check order. A Node is
/// read only for a node-bound token (a `node` beside a `pod` is informational
/// and never validated).
pub fn targets(token: &Token) -> Vec<BindingTarget> {
    let claims = &token.claims;
    let Some(ns) = claims.namespace().filter(|n| !n.is_empty()) else {
        return Vec::new();
    };
    let legacy = claims.legacy.is_some();
    let k8s = claims.kubernetes.as_ref();
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
    add(BindingKind::Pod, k8s.and_then(|k| k.pod.clone()));
    if k8s.is_some_and(|k| k.pod.is_none()) {
        add(BindingKind::Node, k8s.and_then(|k| k.node.clone()));
    }
    out
}

/// Compares one read with the token's claims.
pub fn check(
    target: &BindingTarget,
    status: Option<u16>,
    body: Option<&Value>,
    via: &str,
) -> BindingCheck {
    let meta = body.and_then(|b| b.get("metadata"));
    let text = |key: &str| meta.and_then(|m| m.get(key)?.as_str()).map(str::to_owned);
    let live_uid = text("uid");
    let deletion_timestamp = text("deletionTimestamp");
    let invalid_since = meta
        .and_then(|m| m.get("labels")?.get(INVALID_SINCE_LABEL)?.as_str())
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
    fn states() {
        use BindingKind::*;
        use BindingState::*;
        let deleting = json!({"deletionTimestamp": "2026-01-01T00:00:00Z"});
        let labelled = json!({"labels": {INVALID_SINCE_LABEL: "2025-12-01"}});
        // (object, legacy, status, the uid and metadata read, state)
        let cases = [
            (
                ServiceAccount,
                false,
                Some(200),
                Some(("uid-old", json!({}))),
                Matches,
            ),
            (
                ServiceAccount,
                false,
                Some(200),
                Some(("uid-new", json!({}))),
                UidDiffers,
            ),
            (ServiceAccount, false, Some(404), None, Missing),
            (ServiceAccount, false, Some(403), None, Unreadable),
            (ServiceAccount, false, None, None, Unreadable),
            (Pod, false, Some(200), Some(("uid-old", deleting)), Deleting),
            (Secret, true, Some(200), Some(("x", labelled)), InvalidSince),
            (
                Node,
                false,
                Some(200),
                Some(("uid-new", json!({}))),
                UidDiffers,
            ),
        ];
        for (kind, legacy, status, read, state) in cases {
            let body = read.map(|(uid, extra)| obj(uid, extra));
            let c = check(&target(kind, legacy), status, body.as_ref(), "a");
            assert_eq!(c.state, state, "{c:?}");
        }
    }
}
