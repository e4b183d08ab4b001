//! Bindings: a token is tied to its ServiceAccount's uid, and a bound token also
//! to its pod's, Secret's or Node's uid (pkg/serviceaccount/claims.go; legacy
//! Secret tokens to their Secret, legacy.go). Delete and recreate one under the
//! same name and the token dies, although names and RBAC look right.
//!
//! An object read from the API settles it (`high`; a terminating pod or bound
//! Secret is `medium`: the token lives until the deletion is 60 s old or the
//! object is gone). Without a read, each binding the token names is a guess
//! for a 401, with the command that reads its live uid.

use super::prelude::*;
use crate::diagnosis::facts::{BindingCheck, BindingKind, BindingState, ObjectChange, ObjectSeen};
use crate::token::claims::{Claims, ObjectRef};
use crate::token::{Binding, TokenKind};

/// The label the legacy token cleaner (1.29+) puts on a Secret it invalidated.
pub const INVALID_SINCE_LABEL: &str = "kubernetes.io/legacy-token-invalid-since";

const SA_CONFIRM: Steps = Steps::Run("read the live ServiceAccount", |case| {
    uid_command(case, BindingKind::ServiceAccount, "SERVICE_ACCOUNT")
});

const NODE_CONFIRM: Steps = Steps::Run("read the live Node", |case| {
    uid_command(case, BindingKind::Node, "NODE")
});

pub const SERVICE_ACCOUNT_DELETED: CauseDef = CauseDef {
    title: "ServiceAccount deleted",
    summary: "The token's ServiceAccount no longer exists (or is being deleted)",
    explains: &[C::Unauthorized],
    explanation: "\
Every ServiceAccount token names its ServiceAccount; kube-apiserver looks it up on each \
request and rejects the token when it is gone (serviceaccounts \"NAME\" not found) or has \
been terminating for more than 60 s (\"service account NAMESPACE/NAME has been \
deleted\"). Typical causes: a namespace or Helm release deleted and redeployed, GitOps \
pruning, a cleanup job.",
    confirm: SA_CONFIRM,
    fix: SA_FIX,
    sources: &[
        "k8s.io/kubernetes pkg/serviceaccount/claims.go",
        "pkg/serviceaccount/legacy.go",
    ],
};

pub const SERVICE_ACCOUNT_RECREATED: CauseDef = CauseDef {
    title: "ServiceAccount recreated",
    summary: "The ServiceAccount was deleted and recreated under the same name: new uid, and every old token dies",
    explains: &[C::Unauthorized],
    explanation: "\
A ServiceAccount deleted and created again under the same name is a new object with a \
new uid. Bound tokens carry the uid of the ServiceAccount they were minted for, and \
kube-apiserver compares it on every request: \"service account UID (NEW) does not match \
claim (OLD)\". Names and RBAC all look right, yet every token minted before the deletion \
is rejected, including the ones mounted in running pods until the kubelet refreshes \
them against the new object (it may keep failing until the pod is restarted).

Find what deleted it (GitOps prune, a Helm upgrade with replace, namespace cleanup) so it \
does not happen again.",
    confirm: SA_CONFIRM,
    fix: SA_FIX,
    sources: &["k8s.io/kubernetes pkg/serviceaccount/claims.go (UID check)"],
};

pub const POD_DELETED: CauseDef = CauseDef {
    title: "Bound pod gone",
    summary: "The pod the token is bound to is gone (deleted, or recreated under the same name)",
    explains: &[C::Unauthorized],
    explanation: "\
Projected tokens are bound to the pod they were minted for: kube-apiserver checks that a \
pod with that name and uid still exists, and rejects the token once the pod is gone or \
its deletion is more than 60 s old (\"service account token has been invalidated\"; \
\"pod UID (NEW) does not match service account pod ref claim (OLD)\" for a pod recreated \
under the same name, as StatefulSets do). A token copied out of a pod (into a CI \
variable, another pod, a laptop) dies with that pod.",
    confirm: Steps::Run("read the live pod", |case| {
        uid_command(case, BindingKind::Pod, "POD")
    }),
    fix: Steps::Say(
        "use the token mounted in the running pod; a client that copied a token out of a pod must read it again from the current pod",
    ),
    sources: &["k8s.io/kubernetes pkg/serviceaccount/claims.go (pod ref)"],
};

pub const SECRET_DELETED: CauseDef = CauseDef {
    title: "Bound Secret gone",
    summary: "The Secret the token is bound to (or a legacy token's Secret) is gone",
    explains: &[C::Unauthorized],
    explanation: "\
A legacy token lives in a kubernetes.io/service-account-token Secret and dies when that \
Secret is deleted (\"Token has been invalidated\"; a regenerated Secret gives \"Token does \
not match server's copy\"). A TokenRequest token bound to a Secret (kubectl create token \
--bound-object-kind Secret) dies with that Secret's name and uid.",
    confirm: Steps::Run("read the live Secret", |case| {
        uid_command(case, BindingKind::Secret, "SECRET")
    }),
    fix: Steps::Run(
        "mint a new token (or create a new kubernetes.io/service-account-token Secret)",
        super::commands::create_token,
    ),
    sources: &[
        "k8s.io/kubernetes pkg/serviceaccount/legacy.go",
        "pkg/serviceaccount/claims.go",
    ],
};

pub const NODE_DELETED: CauseDef = CauseDef {
    title: "Bound Node gone",
    summary: "The Node the token is bound to no longer exists",
    explains: &[C::Unauthorized],
    explanation: "\
Tokens bound to a Node object (kubectl create token --bound-object-kind Node, 1.30+) are \
checked against that Node: when it is deleted, the token is rejected (\"service account \
token has been invalidated\"). Autoscalers delete and create nodes all the time, so a \
node-bound token has the lifetime of its node.",
    confirm: NODE_CONFIRM,
    fix: NODE_FIX,
    sources: &[
        "k8s.io/kubernetes pkg/serviceaccount/claims.go (node ref, ServiceAccountTokenNodeBinding)",
    ],
};

pub const NODE_RECREATED: CauseDef = CauseDef {
    title: "Bound Node recreated",
    summary: "A Node of the same name exists, but with another uid: the token's node was deleted and recreated",
    explains: &[C::Unauthorized],
    explanation: "\
A node that leaves and joins again under the same name is a new Node object with a new \
uid; tokens bound to the old one fail with \"node UID (NEW) does not match service account \
node ref claim (OLD)\" on servers that validate node bindings \
(ServiceAccountTokenNodeBindingValidation, on by default since 1.32).",
    confirm: NODE_CONFIRM,
    fix: NODE_FIX,
    sources: &["k8s.io/kubernetes pkg/serviceaccount/claims.go (node ref)"],
};

pub const LEGACY_TOKEN_INVALIDATED: CauseDef = CauseDef {
    title: "Legacy token invalidated",
    summary: "The legacy Secret token was invalidated by the cleaner (unused for a year) or no longer matches its Secret",
    explains: &[C::Unauthorized],
    explanation: "\
Since 1.29 the legacy token cleaner labels Secret-based tokens unused for a year with \
kubernetes.io/legacy-token-invalid-since; from then on kube-apiserver rejects them \
(\"the token in secret NAMESPACE/NAME for service account … has been marked invalid\"), \
and a year later the Secret is deleted. A Secret whose data.token was regenerated gives \
\"Token does not match server's copy\". Legacy tokens never expire otherwise, so old \
automation is what hits this.",
    confirm: Steps::Run(
        "whether the Secret carries the cleaner's label (and since when)",
        |case| {
            on_secret(case, "get").words(&[
                "-o",
                "jsonpath={.metadata.labels.kubernetes\\.io/legacy-token-invalid-since}",
            ])
        },
    ),
    fix: Steps::All(&[
        Steps::Run(
            "move the client to a TokenRequest token (projected volume, or kubectl create token)",
            super::commands::create_token,
        ),
        Steps::Run(
            "or, to allow the old token for now, remove the label",
            |case| on_secret(case, "label").word(&format!("{INVALID_SINCE_LABEL}-")),
        ),
    ]),
    sources: &[
        "k8s.io/kubernetes pkg/controller/serviceaccount/legacy_serviceaccount_token_cleaner.go",
        "k8s.io/kubernetes pkg/serviceaccount/legacy.go",
    ],
};

/// `kubectl VERB secret NAME -n NAMESPACE` for the token's Secret.
fn on_secret(case: &Case<'_>, verb: &str) -> Command {
    Command::kubectl()
        .words(&[verb, "secret"])
        .value(named(case, BindingKind::Secret).0.as_deref(), "SECRET")
        .namespace(case.namespace())
}

/// The object named in the token (or the read) of this kind.
fn named(case: &Case<'_>, kind: BindingKind) -> (Option<String>, Option<String>) {
    let read = case.bindings.iter().map(|b| &b.target);
    let audited = case.audit.objects.iter().map(|o| &o.target);
    if let Some(t) = read.chain(audited).find(|t| t.kind == kind) {
        return (Some(t.name.clone()), t.claim_uid.clone());
    }
    if kind == BindingKind::Secret
        && let Some(secret) = case
            .audit
            .legacy_secret
            .clone()
            .or_else(|| case.audit.invalidated_secret().map(str::to_owned))
    {
        return (Some(secret), None);
    }
    match case.token.and_then(|t| claimed(&t.claims, kind)) {
        Some(r) => (r.name, r.uid),
        // Without a token, the server's reasons may name the ServiceAccount.
        None if kind == BindingKind::ServiceAccount => (case.service_account(), None),
        None => (None, None),
    }
}

/// The object of this kind the token's claims name.
pub fn claimed(claims: &Claims, kind: BindingKind) -> Option<ObjectRef> {
    let k8s = claims.kubernetes.as_ref();
    match kind {
        BindingKind::ServiceAccount => claims.service_account(),
        BindingKind::Pod => k8s.and_then(|k| k.pod.clone()),
        BindingKind::Secret => claims.secret(),
        BindingKind::Node => k8s.and_then(|k| k.node.clone()),
    }
}

/// `kubectl get KIND NAME [-n NS] -o jsonpath={.metadata.uid}`, and what its
/// output means against the token's claim: each binding's confirming read
/// (kept even when a read settled it: the same failure gets the same steps
/// whichever subcommand saw it, and this one is the check a person repeats
/// after the fix).
fn uid_command(case: &Case<'_>, kind: BindingKind, placeholder: &str) -> Command {
    let (name, uid) = named(case, kind);
    let mut c = Command::kubectl()
        .words(&["get", kind.as_str()])
        .value(name.as_deref(), placeholder);
    if kind.namespaced() {
        c = c.namespace(case.namespace());
    }
    let c = c.words(&[
        "-o",
        "jsonpath={.metadata.uid} {.metadata.deletionTimestamp}",
    ]);
    match uid {
        Some(uid) => c.expecting(format!(
            "the token names uid {uid}: another uid means recreated, NotFound deleted"
        )),
        None => c.expecting("NotFound means deleted"),
    }
}

const SA_FIX: Steps = Steps::All(&[
    Steps::Say(
        "restart the workloads that use it, so the kubelet mints tokens for the current ServiceAccount (recreate the ServiceAccount first if it is gone)",
    ),
    Steps::Run("or mint a token for the current ServiceAccount", |case| {
        super::commands::create_token_for(
            case,
            named(case, BindingKind::ServiceAccount).0.as_deref(),
        )
    }),
    Steps::Say(
        "find what deleted it (GitOps prune, Helm, namespace cleanup) so it does not happen again",
    ),
]);
const NODE_FIX: Steps = Steps::Run(
    "mint a new token bound to a current node (or to a pod, which outlives no node either)",
    |case| {
        super::commands::create_token(case)
            .words(&["--bound-object-kind", "Node", "--bound-object-name"])
            .value(None, "NODE")
    },
);

/// The causes a binding of this kind can be.
fn causes_of(kind: BindingKind, legacy: bool) -> &'static [Cause] {
    match kind {
        BindingKind::ServiceAccount => {
            &[Cause::ServiceAccountRecreated, Cause::ServiceAccountDeleted]
        }
        BindingKind::Pod => &[Cause::PodDeleted],
        BindingKind::Secret if legacy => &[Cause::SecretDeleted, Cause::LegacyTokenInvalidated],
        BindingKind::Secret => &[Cause::SecretDeleted],
        BindingKind::Node => &[Cause::NodeRecreated, Cause::NodeDeleted],
    }
}

/// What reads of the bound objects establish and rule out.
pub fn rule(case: &Case<'_>, f: &mut Findings) {
    if case.classification() != C::Unauthorized {
        return;
    }
    for check in &case.bindings {
        read(check, f);
    }
    for seen in &case.audit.objects {
        from_audit_log(seen, f);
    }
}

/// A deletion or a new uid the audit log shows, before the client's 401s:
/// `medium` (the log shows it, no read confirms it now), `low` when several
/// identities were accepted from the 401s' source IP and user agent.
fn from_audit_log(seen: &ObjectSeen, f: &mut Findings) {
    let t = &seen.target;
    let cause = match (t.kind, &seen.change) {
        (BindingKind::ServiceAccount, ObjectChange::Deleted { .. }) => Cause::ServiceAccountDeleted,
        (BindingKind::ServiceAccount, ObjectChange::Recreated { .. }) => {
            Cause::ServiceAccountRecreated
        }
        (BindingKind::Pod, _) => Cause::PodDeleted,
        (BindingKind::Secret, _) => Cause::SecretDeleted,
        (BindingKind::Node, ObjectChange::Deleted { .. }) => Cause::NodeDeleted,
        (BindingKind::Node, ObjectChange::Recreated { .. }) => Cause::NodeRecreated,
    };
    let what = match &seen.change {
        ObjectChange::Deleted { at } => {
            format!("the audit log shows {} deleted at {at}", t.describe())
        }
        ObjectChange::Recreated { new_uid, at } => format!(
            "the audit log shows {} under a new uid {new_uid} from {at} (the client's token carries {})",
            t.describe(),
            t.claim_uid.as_deref().unwrap_or("the old one")
        ),
    };
    let (basis, who) = if seen.guessed {
        (Basis::Possible, "one of several identities")
    } else {
        (Basis::Inferred, "the only identity")
    };
    f.add_fact(
        cause,
        basis,
        SupportKind::Audit,
        format!(
            "{what}; the client these 401s are attributed to ({who} accepted from their source IP and user agent) was last accepted with it at {}",
            seen.last_accepted
        ),
    );
}

fn read(c: &BindingCheck, f: &mut Findings) {
    let t = &c.target;
    let what = t.describe();
    let from = format!("read from {}", c.via);
    let claim = t.claim_uid.as_deref().unwrap_or("(none in the token)");
    let live = c.live_uid.as_deref().unwrap_or("-");
    let deletion = c.deletion_timestamp.as_deref().unwrap_or("-");
    let (cause, confidence, text) = match (c.state, t.kind) {
        (BindingState::Matches, kind) => {
            for cause in causes_of(kind, t.legacy) {
                f.rule_out(*cause);
            }
            return;
        }
        (BindingState::Unreadable, _) => return,
        // Exists under a new uid: not "deleted"; gone: not "recreated".
        (BindingState::UidDiffers, BindingKind::ServiceAccount) => {
            f.rule_out(Cause::ServiceAccountDeleted);
            (
                Cause::ServiceAccountRecreated,
                Basis::Observed,
                format!(
                    "{what} was deleted and recreated: the token names uid {claim}, the live object has uid {live} ({from}); kube-apiserver logs \"service account UID ({live}) does not match claim ({claim})\""
                ),
            )
        }
        (BindingState::Missing, BindingKind::ServiceAccount) => {
            f.rule_out(Cause::ServiceAccountRecreated);
            (
                Cause::ServiceAccountDeleted,
                Basis::Observed,
                format!(
                    "{what} does not exist ({from}: 404): every token for it is rejected with serviceaccounts \"{}\" not found",
                    t.name
                ),
            )
        }
        (BindingState::Deleting, BindingKind::ServiceAccount) => (
            Cause::ServiceAccountDeleted,
            Basis::Observed,
            format!(
                "{what} is being deleted (deletionTimestamp {deletion}, {from}); tokens fail once that is more than 60 s ago"
            ),
        ),
        (BindingState::Missing, kind @ (BindingKind::Pod | BindingKind::Node)) => {
            let cause = if kind == BindingKind::Pod {
                Cause::PodDeleted
            } else {
                f.rule_out(Cause::NodeRecreated);
                Cause::NodeDeleted
            };
            (
                cause,
                Basis::Observed,
                format!(
                    "the token is bound to {what} uid {claim}, which no longer exists ({from}: 404): \"service account token has been invalidated\""
                ),
            )
        }
        (BindingState::UidDiffers, BindingKind::Pod) => (
            Cause::PodDeleted,
            Basis::Observed,
            format!(
                "the token is bound to {what} uid {claim}; the pod of that name now has uid {live} ({from}): it was recreated, and the old pod's tokens died with it"
            ),
        ),
        (BindingState::Deleting, BindingKind::Pod) => (
            Cause::PodDeleted,
            Basis::Inferred,
            format!(
                "{what} is terminating (deletionTimestamp {deletion}, {from}); its tokens fail 60 s after that instant or when the pod is gone"
            ),
        ),
        (BindingState::Missing, BindingKind::Secret) => (
            Cause::SecretDeleted,
            Basis::Observed,
            if t.legacy {
                format!(
                    "the legacy token's {what} no longer exists ({from}: 404): \"Token has been invalidated\""
                )
            } else {
                format!(
                    "the token is bound to {what} uid {claim}, which no longer exists ({from}: 404)"
                )
            },
        ),
        (BindingState::UidDiffers, BindingKind::Secret) => (
            Cause::SecretDeleted,
            Basis::Observed,
            format!(
                "the token is bound to {what} uid {claim}; the Secret of that name now has uid {live} ({from})"
            ),
        ),
        (BindingState::Deleting, BindingKind::Secret) => {
            let (basis, legacy) = if t.legacy {
                let dies = ": a legacy token dies as soon as its Secret has a deletionTimestamp";
                (Basis::Observed, dies)
            } else {
                (Basis::Inferred, "")
            };
            let text =
                format!("{what} is being deleted (deletionTimestamp {deletion}, {from}){legacy}");
            (Cause::SecretDeleted, basis, text)
        }
        (BindingState::UidDiffers, BindingKind::Node) => {
            f.rule_out(Cause::NodeDeleted);
            (
                Cause::NodeRecreated,
                Basis::Observed,
                format!(
                    "{what} was deleted and recreated: the token names uid {claim}, the live Node has uid {live} ({from}); servers that validate node bindings log \"node UID ({live}) does not match service account node ref claim ({claim})\""
                ),
            )
        }
        (BindingState::Deleting, BindingKind::Node) => (
            Cause::NodeDeleted,
            Basis::Inferred,
            format!("{what} is being deleted (deletionTimestamp {deletion}, {from})"),
        ),
        (BindingState::InvalidSince, _) => (
            Cause::LegacyTokenInvalidated,
            Basis::Observed,
            format!(
                "{what} carries the label {INVALID_SINCE_LABEL}={} ({from}): the legacy token cleaner invalidated this unused token",
                c.invalid_since.as_deref().unwrap_or("-")
            ),
        ),
    };
    f.add_fact(cause, confidence, SupportKind::Binding, text);
}

/// For a 401 nothing authoritative explains: every binding the token names is
/// a guess, with the command that reads the live object.
pub fn guesses(case: &Case<'_>, f: &mut Findings) {
    let Some(token) = case.token else { return };
    let Some((kind, binding)) = case.token_kind() else {
        return;
    };
    if kind == TokenKind::NotKubernetes {
        return;
    }
    let claims = &token.claims;
    let ns = claims.namespace().unwrap_or("NAMESPACE");
    let unreadable = |k: BindingKind| {
        case.bindings
            .iter()
            .find(|b| b.target.kind == k && b.state == BindingState::Unreadable)
            .map(|b| {
                Support::new(
                    SupportKind::Binding,
                    format!(
                        "{} could not be read ({}): the command below settles it",
                        b.target.describe(),
                        b.status
                            .map_or("no answer".to_owned(), |s| format!("HTTP {s}"))
                    ),
                )
            })
    };
    let add = |f: &mut Findings, cause: Cause, kind: BindingKind, text: String| {
        let mut support = vec![Support::token(text)];
        support.extend(unreadable(kind));
        f.add(cause, Basis::Possible, support);
    };
    if kind == TokenKind::LegacySecret {
        for kind in [BindingKind::Secret, BindingKind::ServiceAccount] {
            for &cause in causes_of(kind, true) {
                let text = "your token is a legacy Secret token: never time-checked; it dies with its Secret or ServiceAccount";
                add(f, cause, kind, text.to_owned());
            }
        }
        return;
    }
    let none = "(none in the token)";
    // The object the token is bound to first: it is the likelier loss.
    let bound: Option<(_, _, _, &[Cause])> = match binding {
        Binding::Pod => Some((
            BindingKind::Pod,
            format!("pod {ns}/"),
            "that pod (deleted, or recreated under the same name)",
            &[Cause::PodDeleted],
        )),
        Binding::Secret => Some((
            BindingKind::Secret,
            format!("Secret {ns}/"),
            "that Secret",
            &[Cause::SecretDeleted],
        )),
        Binding::Node => Some((
            BindingKind::Node,
            "node ".to_owned(),
            "that Node object",
            &[Cause::NodeDeleted, Cause::NodeRecreated],
        )),
        Binding::None => None,
    };
    if let Some((kind, what, dies_with, causes)) = bound {
        let object = claimed(claims, kind).unwrap_or_default();
        let text = format!(
            "the token is bound to {what}{} uid {}: it dies with {dies_with}",
            object.name.as_deref().unwrap_or("?"),
            object.uid.as_deref().unwrap_or(none)
        );
        for &cause in causes {
            add(f, cause, kind, text.clone());
        }
    }
    if let Some(sa) = claims.service_account() {
        let name = sa.name.as_deref().unwrap_or("?");
        let uid = sa.uid.as_deref().unwrap_or(none);
        add(
            f,
            Cause::ServiceAccountRecreated,
            BindingKind::ServiceAccount,
            format!(
                "the token names ServiceAccount {ns}/{name} with uid {uid}; a ServiceAccount deleted and recreated under the same name gets a new uid, and the old tokens fail with \"service account UID (NEW) does not match claim (OLD)\""
            ),
        );
        add(
            f,
            Cause::ServiceAccountDeleted,
            BindingKind::ServiceAccount,
            format!(
                "if ServiceAccount {ns}/{name} no longer exists, every token for it is rejected (serviceaccounts \"{name}\" not found)"
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::facts::BindingTarget;
    use crate::diagnosis::merge::Confidence;
    use crate::diagnosis::testing::{case, diagnosed, http, pod_bound, run};

    fn check(kind: BindingKind, state: BindingState, legacy: bool) -> BindingCheck {
        BindingCheck {
            target: BindingTarget {
                kind,
                namespace: "shop".into(),
                name: "web".into(),
                claim_uid: (!legacy).then(|| "old".to_owned()),
                legacy,
            },
            state,
            live_uid: Some("new".into()),
            deletion_timestamp: Some("2026-01-01T00:00:00Z".into()),
            invalid_since: Some("2025-12-01".into()),
            status: Some(200),
            via: "https://a with the kubeconfig credentials".into(),
        }
    }

    #[test]
    fn what_a_read_establishes() {
        use BindingKind as K;
        use BindingState as S;
        use Confidence::{High, Medium};
        let table = [
            (
                K::ServiceAccount,
                S::UidDiffers,
                false,
                Cause::ServiceAccountRecreated,
                High,
            ),
            (
                K::ServiceAccount,
                S::Missing,
                false,
                Cause::ServiceAccountDeleted,
                High,
            ),
            (
                K::ServiceAccount,
                S::Deleting,
                false,
                Cause::ServiceAccountDeleted,
                High,
            ),
            (K::Pod, S::Missing, false, Cause::PodDeleted, High),
            (K::Pod, S::UidDiffers, false, Cause::PodDeleted, High),
            (K::Pod, S::Deleting, false, Cause::PodDeleted, Medium),
            (K::Secret, S::Missing, true, Cause::SecretDeleted, High),
            (K::Secret, S::Deleting, true, Cause::SecretDeleted, High),
            (K::Secret, S::Deleting, false, Cause::SecretDeleted, Medium),
            (
                K::Secret,
                S::InvalidSince,
                true,
                Cause::LegacyTokenInvalidated,
                High,
            ),
            (K::Node, S::Missing, false, Cause::NodeDeleted, High),
            (K::Node, S::UidDiffers, false, Cause::NodeRecreated, High),
        ];
        let token = pod_bound(-60, 3600);
        for (kind, state, legacy, cause, confidence) in table {
            let mut c = case(http(401, None), Some(&token));
            c.bindings = vec![check(kind, state, legacy)];
            assert_eq!(run(&c), (cause, confidence), "{kind:?} {state:?}");
        }
    }

    #[test]
    fn reads_rule_guesses_out_and_guesses_carry_their_command() {
        let token = pod_bound(-60, 3600);
        let mut c = case(http(401, None), Some(&token));
        let d = diagnosed(&c);
        assert_eq!(d.cause(), Cause::Unknown);
        let pod = d
            .candidates
            .iter()
            .find(|c| c.cause == Cause::PodDeleted)
            .unwrap();
        let confirm = pod.next[0].command.as_ref().unwrap();
        assert_eq!(
            confirm.expect.as_deref(),
            Some("the token names uid pod-uid: another uid means recreated, NotFound deleted")
        );
        c.bindings = vec![check(BindingKind::Pod, BindingState::Matches, false)];
        let d = diagnosed(&c);
        assert!(!d.candidates.iter().any(|c| c.cause == Cause::PodDeleted));
    }
}
