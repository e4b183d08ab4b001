//! Who said no: a 403 (or another refusal) read into the part of
//! kube-apiserver that refused. Authorization (`User "U" cannot VERB …`, with
//! the authorizer's reason, if any) is only one of them; admission plugins
//! and quota refuse with texts of their own, and each has its own fix.
//!
//! The authorizers' reasons and the admission plugins' and webhooks' texts
//! are [`crate::vocabulary::refusals`].

use super::super::forbidden::Forbidden;
use crate::vocabulary::refusals::{
    NO_OPINION_REASONS, NODE_AUTHORIZER_REASONS, NODE_RESTRICTION, QUOTA_EXCEEDED, RBAC_REASONS,
    SERVICE_ACCOUNT_MISSING, SERVICE_ACCOUNT_NO_TOKEN, SERVICE_ACCOUNT_NOT_FOUND_RETRY,
    pod_security_open, webhook_words,
};
use crate::vocabulary::row::Wording;

pub use crate::diagnosis::facts::{Authorizer, Denial};

/// Reads a refusal message whose 403 parts (`forbidden`) are already read;
/// `None` when it is none of the above.
pub fn read(message: &str, forbidden: Option<Forbidden>) -> Option<Denial> {
    let m = message.trim();
    let (open, denied) = webhook_words();
    if let Some(i) = m.find(open) {
        let rest = &m[i + open.len()..];
        let (webhook, tail) = rest.split_once('"')?;
        if tail.starts_with(&denied[1..]) {
            return Some(Denial::Webhook {
                webhook: webhook.to_owned(),
                message: m.to_owned(),
            });
        }
    }
    if QUOTA_EXCEEDED.iter().any(|w| m.contains(w.text)) {
        return Some(Denial::Quota {
            message: m.to_owned(),
        });
    }
    let open = pod_security_open();
    if let Some(i) = m.find(open) {
        let rest = &m[i + open.len()..];
        let policy = rest.split('"').next().unwrap_or("").to_owned();
        return Some(Denial::PodSecurity {
            policy,
            message: m.to_owned(),
        });
    }
    if let Some(d) = service_account(m) {
        return Some(d);
    }
    // NodeRestriction admission: a kubelet's own request. Admission sees only
    // what authorization allowed, and never refuses in the authorizers'
    // `User "U" cannot …`: a reason after that sentence is an authorizer's.
    if forbidden.is_none() && NODE_RESTRICTION.iter().any(|w| m.contains(w.text)) {
        return Some(Denial::NodeRestriction {
            message: m.to_owned(),
        });
    }
    if let Some(forbidden) = forbidden {
        return Some(by_authorizer(forbidden));
    }
    let i = m.find(" is forbidden: ")?;
    Some(Denial::Other {
        message: m[i + 15..].trim().to_owned(),
    })
}

/// An authorizer's refusal, whose reason names the authorizer.
pub fn by_authorizer(forbidden: Forbidden) -> Denial {
    let by = forbidden
        .reason
        .as_deref()
        .map_or(Authorizer::Unnamed, authorizer);
    Denial::Authorizer { forbidden, by }
}

/// The authorizer a 403's reason names.
fn authorizer(r: &str) -> Authorizer {
    let said = |table: &[Wording]| table.iter().any(|w| r.starts_with(w.text));
    let by = if said(RBAC_REASONS) && r.ends_with("\" not found") {
        Authorizer::RoleMissing
    } else if said(RBAC_REASONS) {
        Authorizer::Rbac
    } else if said(NODE_AUTHORIZER_REASONS) {
        Authorizer::Node
    } else if said(NO_OPINION_REASONS) {
        Authorizer::NoOpinion
    } else if r.contains(" cannot ") && r.contains(" in project \"") {
        // OpenShift 3's authorizer restates the sentence with its projects.
        Authorizer::Rbac
    } else {
        Authorizer::Other
    };
    by(r.to_owned())
}

/// The ServiceAccount admission plugin's wordings.
fn service_account(m: &str) -> Option<Denial> {
    let opened = SERVICE_ACCOUNT_NO_TOKEN
        .iter()
        .map(|w| (w.text, true))
        .chain(SERVICE_ACCOUNT_MISSING.iter().map(|w| (w.text, false)))
        .find_map(|(open, no_token)| Some((&m[m.find(open)? + open.len()..], no_token)));
    // ≤1.8: `service account NS/NAME was not found, retry after the service account is created`.
    let (rest, no_token) = opened.or_else(|| {
        let rest = &m[m.find("service account ")? + 16..];
        rest.contains(SERVICE_ACCOUNT_NOT_FOUND_RETRY.text)
            .then_some((rest, false))
    })?;
    // `NS/NAME` or `"NAME"`, up to the punctuation after it.
    let word = rest.split([':', ',', ' ']).next().unwrap_or("");
    let word = word.trim_matches('"');
    let (namespace, name) = match word.split_once('/') {
        Some((ns, name)) => (Some(ns.to_owned()), Some(name.to_owned())),
        None => (None, Some(word.to_owned()).filter(|w| !w.is_empty())),
    };
    Some(Denial::ServiceAccount {
        namespace,
        name,
        no_token,
        message: m.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(message: &str) -> Option<Denial> {
        read(message, Forbidden::parse(message))
    }

    #[test]
    fn every_kind_of_refusal() {
        let d = parse(r#"pods "bivac-agent-" is forbidden: error looking up service account bivac/bivac-x: serviceaccount "bivac-x" not found"#).unwrap();
        assert_eq!(
            d,
            Denial::ServiceAccount {
                namespace: Some("bivac".into()),
                name: Some("bivac-x".into()),
                no_token: false,
                message: r#"pods "bivac-agent-" is forbidden: error looking up service account bivac/bivac-x: serviceaccount "bivac-x" not found"#.into(),
            }
        );
        let Some(Denial::ServiceAccount { name, no_token, .. }) = parse(
            r#"error when creating "p.yaml": No API token found for service account "default", retry after the token is automatically created"#,
        ) else {
            panic!()
        };
        assert_eq!((name.as_deref(), no_token), (Some("default"), true));
        type IsKind = fn(&Denial) -> bool;
        let kinds: &[(&str, IsKind)] = &[
            (
                r#"Pod "busybox" is forbidden: service account default/default was not found, retry after the service account is created"#,
                |d| matches!(d, Denial::ServiceAccount { .. }),
            ),
            (
                r#"pods "x" is forbidden: violates PodSecurity "restricted:latest": privileged"#,
                |d| matches!(d, Denial::PodSecurity { policy, .. } if policy == "restricted:latest"),
            ),
            (
                r#"nodes "w1" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/worker"#,
                |d| matches!(d, Denial::NodeRestriction { .. }),
            ),
            // An authorizer's sentence with the Node authorizer's reason:
            // authorization refused, before any admission plugin ran.
            (
                r#"serviceaccounts is forbidden: User "system:node:n1" cannot list resource "serviceaccounts" in API group "" in the namespace "default": can only create tokens for individual service accounts"#,
                |d| {
                    matches!(
                        d,
                        Denial::Authorizer {
                            by: Authorizer::Node(_),
                            ..
                        }
                    )
                },
            ),
            (
                r#"leases.coordination.k8s.io "n2" is forbidden: User "system:node:n1" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "kube-node-lease": can only access node lease with the same name as the requesting node"#,
                |d| {
                    matches!(
                        d,
                        Denial::Authorizer {
                            by: Authorizer::Node(_),
                            ..
                        }
                    )
                },
            ),
            (
                r#"admission webhook "my.app" denied the request: phone-number not in labels"#,
                |d| matches!(d, Denial::Webhook { webhook, .. } if webhook == "my.app"),
            ),
            (
                r#"pods "nb" is forbidden: exceeded quota: q, requested: limits.cpu=3"#,
                |d| matches!(d, Denial::Quota { .. }),
            ),
            (
                r#"pods "p0" is forbidden: Failed quota: default: must specify cpu,memory"#,
                |d| matches!(d, Denial::Quota { .. }),
            ),
            (
                r#"configmaps "kube-proxy" is forbidden: User "system:node:m" cannot list resource "configmaps" in API group "" in the namespace "kube-system": no relationship found between node 'm' and this object"#,
                |d| matches!(d, Denial::Authorizer { by, .. } if matches!(by, Authorizer::Node(_))),
            ),
            (
                r#"pods is forbidden: User "system:serviceaccount:a:b" cannot list resource "pods" in API group "" in the namespace "a""#,
                |d| matches!(d, Denial::Authorizer { by, .. } if matches!(by, Authorizer::Unnamed)),
            ),
            (r#"pods "x" is forbidden: some plugin said no"#, |d| {
                matches!(d, Denial::Other { .. })
            }),
        ];
        for (message, kind) in kinds {
            let d = parse(message);
            assert!(d.as_ref().is_some_and(kind), "{message}: {d:?}");
        }
        assert_eq!(parse("Unauthorized"), None);
    }
}
