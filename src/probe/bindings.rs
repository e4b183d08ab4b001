//! Pure: the objects a token is bound to, and a read of each from the API
//! compared with the token's claims as kube-apiserver does
//! (pkg/serviceaccount/claims.go for bound tokens, legacy.go for Secret
//! tokens): existence, uid, `deletionTimestamp`, and for legacy tokens the
//! cleaner's `kubernetes.io/legacy-token-invalid-since` label. What a state
//! means is `diagnosis::rules::bindings`.

use serde_json::Value;

pub use crate::diagnosis::case::{BindingCheck, BindingKind, BindingState, BindingTarget};
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
        let sa = target(BindingKind::ServiceAccount, false);
        let deleting = json!({"deletionTimestamp": "2026-01-01T00:00:00Z"});
        let labelled = json!({"labels": {INVALID_SINCE_LABEL: "2025-12-01"}});
        let cases = [
            (
                check(&sa, Some(200), Some(&obj("uid-old", json!({}))), "a"),
                BindingState::Matches,
            ),
            (
                check(&sa, Some(200), Some(&obj("uid-new", json!({}))), "a"),
                BindingState::UidDiffers,
            ),
            (check(&sa, Some(404), None, "a"), BindingState::Missing),
            (check(&sa, Some(403), None, "a"), BindingState::Unreadable),
            (check(&sa, None, None, "a"), BindingState::Unreadable),
            (
                check(
                    &target(BindingKind::Pod, false),
                    Some(200),
                    Some(&obj("uid-old", deleting)),
                    "a",
                ),
                BindingState::Deleting,
            ),
            (
                check(
                    &target(BindingKind::Secret, true),
                    Some(200),
                    Some(&obj("x", labelled)),
                    "a",
                ),
                BindingState::InvalidSince,
            ),
            (
                check(
                    &target(BindingKind::Node, false),
                    Some(200),
                    Some(&obj("uid-new", json!({}))),
                    "a",
                ),
                BindingState::UidDiffers,
            ),
        ];
        for (c, state) in cases {
            assert_eq!(c.state, state, "{c:?}");
        }
    }

    #[test]
    fn node_paths_are_cluster_scoped() {
        let node = target(BindingKind::Node, false);
        assert_eq!(node.path(), "/api/v1/nodes/web");
        assert_eq!(
            target(BindingKind::Pod, false).path(),
            "/api/v1/namespaces/shop/pods/web"
        );
    }
}
