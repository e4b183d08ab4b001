//! The grants that give more than the request they allow: a `*` that stands
//! for everything of a kind, and the privilege escalations of Kubernetes'
//! "RBAC good practices" page, one table checked against every grant this
//! tool suggests.

use super::facts::RequestInfo;

/// What a grant of a denied request would give beyond the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrantRisk {
    /// The request named `*` (what it stood for): a grant of it is a grant of
    /// everything of the kind, secrets included.
    Wildcard(&'static str),
    /// The grant lets its holder gain privileges it was not given.
    Escalation(Escalation),
}

impl GrantRisk {
    /// What a grant of the request would give, in words.
    pub fn words(self) -> String {
        match self {
            GrantRisk::Wildcard(what) => format!("a request for `*`: {what}"),
            GrantRisk::Escalation(e) => e.words().0.to_owned(),
        }
    }
}

pub use crate::vocabulary::rbac::{ESCALATIONS, Escalation, EscalationPath};
use crate::vocabulary::rbac::{Scope, Verbs};

impl EscalationPath {
    pub(super) fn matches(&self, verb: &str, r: &RequestInfo) -> bool {
        let verbs = match self.verbs {
            Verbs::Any => true,
            Verbs::Writes => !matches!(verb, "get" | "list" | "watch"),
            Verbs::Only(only) => only.contains(&verb),
        };
        let group = self
            .group
            .is_none_or(|g| r.api_group.as_deref().unwrap_or("") == g);
        let resource = self.resources.is_empty()
            || r.resource
                .as_deref()
                .is_some_and(|x| self.resources.contains(&x));
        let subresource = self
            .subresource
            .is_none_or(|want| r.subresource.as_deref() == want);
        let scope = match self.scope {
            Scope::Any => true,
            Scope::Cluster => r.namespace.is_none(),
            // A grant at the cluster scope covers this namespace too.
            Scope::Namespace(ns) => r.namespace.as_deref().is_none_or(|n| n == ns),
        };
        let name = self
            .name
            .is_none_or(|n| r.name.as_deref().is_none_or(|x| x == n));
        verbs && group && resource && subresource && scope && name
    }
}

impl Escalation {
    /// What the grant gives, and the narrower way to the same end.
    pub fn words(self) -> (&'static str, &'static str) {
        ESCALATIONS
            .iter()
            .find(|p| p.escalation == self)
            .map_or(("", ""), |p| (p.gives, p.instead))
    }
}
