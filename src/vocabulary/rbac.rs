//! RBAC's privilege escalation paths: the grants that give more than the
//! request they allow, one row each, checked by `diagnosis::escalation`
//! against every grant the tool suggests. From Kubernetes' "Role Based Access
//! Control Good Practices" page and the upstream RBAC code (cited on
//! [`ESCALATIONS`]).

/// The grants that let their holder gain privileges it was not given: one
/// row each of [`ESCALATIONS`] (their words: `diagnosis::escalation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Escalation {
    Impersonate,
    EscalateOrBind,
    Approve,
    ApproveRequests,
    Sign,
    NodesProxy,
    NodeWrites,
    MintTokens,
    SecretsEverywhere,
    SecretsKubeSystem,
    WatchSecrets,
    WritesRbac,
    AdmissionWebhooks,
    AdmissionPolicies,
    ApiServices,
    Exec,
    Attach,
    EphemeralContainers,
    AwsAuth,
    KubeSystemWorkloads,
    PersistentVolumes,
    NamespaceWrites,
}

/// Which verbs a row is about.
#[derive(Clone, Copy)]
pub enum Verbs {
    Any,
    /// Anything but `get`, `list` and `watch`.
    Writes,
    Only(&'static [&'static str]),
}

/// Where a row applies.
#[derive(Clone, Copy)]
pub enum Scope {
    Any,
    /// At the cluster scope (every namespace).
    Cluster,
    /// In this namespace.
    Namespace(&'static str),
}

/// One path to privilege escalation: the requests whose exact grant takes
/// it, what the grant gives, and the narrower way to the same end.
pub struct EscalationPath {
    pub escalation: Escalation,
    pub verbs: Verbs,
    /// API group; `None`: any.
    pub group: Option<&'static str>,
    /// Resources; empty: any.
    pub resources: &'static [&'static str],
    /// Subresource: `None` any, `Some(None)` the resource itself.
    pub subresource: Option<Option<&'static str>>,
    pub scope: Scope,
    /// Object name; `None`: any.
    pub name: Option<&'static str>,
    pub gives: &'static str,
    pub instead: &'static str,
}

const WORKLOADS: &[&str] = &[
    "pods",
    "daemonsets",
    "deployments",
    "replicasets",
    "statefulsets",
    "jobs",
    "cronjobs",
    "replicationcontrollers",
];

/// Every path to privilege escalation a suggested grant is checked against,
/// the first matching row naming it. From Kubernetes' "Role Based Access
/// Control Good Practices" (kubernetes.io/docs/concepts/security/
/// rbac-good-practices, "Kubernetes RBAC - privilege escalation risks":
/// listing Secrets, workload creation, persistent volume creation, nodes/proxy,
/// escalate, bind, impersonate, CSRs and certificate issuing, token request,
/// control admission webhooks, namespace modification) and the upstream RBAC
/// code (kubernetes pkg/registry/rbac/escalation_check.go: `escalate`,
/// `bind`, `impersonate`; plugin/pkg/admission/certificates: `approve` and
/// `sign` on `signers`), plus what EKS's `aws-auth` ConfigMap maps (IAM
/// identities to Kubernetes users and groups, system:masters among them).
pub const ESCALATIONS: &[EscalationPath] = &[
    EscalationPath {
        escalation: Escalation::Impersonate,
        verbs: Verbs::Only(&["impersonate"]),
        group: None,
        resources: &[],
        subresource: None,
        scope: Scope::Any,
        name: None,
        gives: "impersonate lets the holder act as that user, group or ServiceAccount, with every permission it has",
        instead: "grant the identity the permissions it needs itself; if it must impersonate, limit the grant to one name with --resource-name",
    },
    EscalationPath {
        escalation: Escalation::EscalateOrBind,
        verbs: Verbs::Only(&["escalate", "bind"]),
        group: None,
        resources: &[],
        subresource: None,
        scope: Scope::Any,
        name: None,
        gives: "escalate and bind let the holder create or bind roles with permissions it does not have",
        instead: "bind the roles it needs yourself; if it must bind, limit the grant to those roles with --resource-name",
    },
    EscalationPath {
        escalation: Escalation::Approve,
        verbs: Verbs::Only(&["approve"]),
        group: None,
        resources: &[],
        subresource: None,
        scope: Scope::Any,
        name: None,
        gives: "approving certificate signing requests issues client certificates for any identity, system:masters included",
        instead: "approve the requests by hand (kubectl certificate approve), or limit the grant to one signer with --resource-name",
    },
    EscalationPath {
        escalation: Escalation::ApproveRequests,
        verbs: Verbs::Writes,
        group: Some("certificates.k8s.io"),
        resources: &["certificatesigningrequests"],
        subresource: Some(Some("approval")),
        scope: Scope::Any,
        name: None,
        gives: "writing certificatesigningrequests/approval approves requests, and with approve on a signer issues client certificates for any identity",
        instead: "approve the requests by hand (kubectl certificate approve)",
    },
    EscalationPath {
        escalation: Escalation::Sign,
        verbs: Verbs::Only(&["sign"]),
        group: None,
        resources: &[],
        subresource: None,
        scope: Scope::Any,
        name: None,
        gives: "sign on a signer issues certificates under it, client certificates for any identity with kubernetes.io/kube-apiserver-client",
        instead: "limit the grant to the one signer the controller runs with --resource-name, never a kubernetes.io signer",
    },
    EscalationPath {
        escalation: Escalation::NodesProxy,
        verbs: Verbs::Any,
        group: Some(""),
        resources: &["nodes"],
        subresource: Some(Some("proxy")),
        scope: Scope::Any,
        name: None,
        gives: "nodes/proxy reaches the kubelet's whole API: exec into any pod on the node, past admission and audit",
        instead: "for metrics and stats grant get on nodes/metrics or nodes/stats instead",
    },
    EscalationPath {
        escalation: Escalation::NodeWrites,
        verbs: Verbs::Writes,
        group: Some(""),
        resources: &["nodes"],
        subresource: None,
        scope: Scope::Any,
        name: None,
        gives: "patching nodes (labels, taints, status) draws chosen pods onto a node the holder controls, or away from the rest",
        instead: "label and taint nodes yourself, or through the node's own kubelet",
    },
    EscalationPath {
        escalation: Escalation::MintTokens,
        verbs: Verbs::Any,
        group: Some(""),
        resources: &["serviceaccounts"],
        subresource: Some(Some("token")),
        scope: Scope::Any,
        name: None,
        gives: "serviceaccounts/token mints tokens for ServiceAccounts, and with them their permissions",
        instead: "limit the grant to the one ServiceAccount with --resource-name",
    },
    EscalationPath {
        escalation: Escalation::SecretsEverywhere,
        verbs: Verbs::Any,
        group: Some(""),
        resources: &["secrets"],
        subresource: None,
        scope: Scope::Cluster,
        name: None,
        gives: "secrets at the cluster scope are every Secret in every namespace, ServiceAccount tokens and credentials among them",
        instead: "grant it with a Role in the namespace that holds the Secret, with --resource-name for the one it reads",
    },
    EscalationPath {
        escalation: Escalation::SecretsKubeSystem,
        verbs: Verbs::Any,
        group: Some(""),
        resources: &["secrets"],
        subresource: None,
        scope: Scope::Namespace("kube-system"),
        name: None,
        gives: "Secrets in kube-system hold the control plane's and its controllers' credentials",
        instead: "keep the workload's Secret in its own namespace, and grant get on it there with --resource-name",
    },
    EscalationPath {
        escalation: Escalation::WatchSecrets,
        verbs: Verbs::Only(&["watch"]),
        group: Some(""),
        resources: &["secrets"],
        subresource: None,
        scope: Scope::Any,
        name: None,
        gives: "watch on Secrets streams every Secret of the namespace, contents included, as it is written",
        instead: "grant get on the one Secret it reads, with --resource-name",
    },
    EscalationPath {
        escalation: Escalation::WritesRbac,
        verbs: Verbs::Writes,
        group: Some("rbac.authorization.k8s.io"),
        resources: &[],
        subresource: None,
        scope: Scope::Any,
        name: None,
        gives: "writing RBAC objects lets the holder grant itself anything",
        instead: "create the roles and bindings it needs yourself, ahead of time",
    },
    EscalationPath {
        escalation: Escalation::AdmissionWebhooks,
        verbs: Verbs::Writes,
        group: Some("admissionregistration.k8s.io"),
        resources: &[
            "mutatingwebhookconfigurations",
            "validatingwebhookconfigurations",
        ],
        subresource: None,
        scope: Scope::Any,
        name: None,
        gives: "an admission webhook configuration sends every matching object, Secrets included, to a server the holder names, which may change it",
        instead: "install the webhook configuration yourself, once",
    },
    EscalationPath {
        escalation: Escalation::AdmissionPolicies,
        verbs: Verbs::Writes,
        group: Some("admissionregistration.k8s.io"),
        resources: &[
            "validatingadmissionpolicies",
            "validatingadmissionpolicybindings",
            "mutatingadmissionpolicies",
            "mutatingadmissionpolicybindings",
        ],
        subresource: None,
        scope: Scope::Any,
        name: None,
        gives: "admission policies and their bindings decide what every other request may write: the holder can switch the cluster's guards off or change objects as they are written",
        instead: "install the policies and bindings yourself, once",
    },
    EscalationPath {
        escalation: Escalation::ApiServices,
        verbs: Verbs::Writes,
        group: Some("apiregistration.k8s.io"),
        resources: &["apiservices"],
        subresource: None,
        scope: Scope::Any,
        name: None,
        gives: "an APIService routes a whole API group, with the requests' credentials, to a service the holder names",
        instead: "register the APIService yourself, once",
    },
    EscalationPath {
        escalation: Escalation::Exec,
        verbs: Verbs::Any,
        group: Some(""),
        resources: &["pods"],
        subresource: Some(Some("exec")),
        scope: Scope::Any,
        name: None,
        gives: "pods/exec runs commands in the namespace's pods, with their ServiceAccounts' tokens and their mounts",
        instead: "limit the grant to the one pod with --resource-name, or debug with kubectl logs",
    },
    EscalationPath {
        escalation: Escalation::Attach,
        verbs: Verbs::Any,
        group: Some(""),
        resources: &["pods"],
        subresource: Some(Some("attach")),
        scope: Scope::Any,
        name: None,
        gives: "pods/attach reaches the namespace's pods' consoles, with whatever runs there",
        instead: "limit the grant to the one pod with --resource-name, or debug with kubectl logs",
    },
    EscalationPath {
        escalation: Escalation::EphemeralContainers,
        verbs: Verbs::Any,
        group: Some(""),
        resources: &["pods"],
        subresource: Some(Some("ephemeralcontainers")),
        scope: Scope::Any,
        name: None,
        gives: "pods/ephemeralcontainers adds containers of the holder's choosing to running pods, with their ServiceAccounts and volumes",
        instead: "limit the grant to the one pod with --resource-name, and keep Pod Security admission on the namespace",
    },
    EscalationPath {
        escalation: Escalation::AwsAuth,
        verbs: Verbs::Writes,
        group: Some(""),
        resources: &["configmaps"],
        subresource: None,
        scope: Scope::Namespace("kube-system"),
        name: Some("aws-auth"),
        gives: "the aws-auth ConfigMap maps IAM identities to Kubernetes users and groups, system:masters included",
        instead: "change aws-auth yourself, or move to EKS access entries",
    },
    EscalationPath {
        escalation: Escalation::KubeSystemWorkloads,
        verbs: Verbs::Writes,
        group: None,
        resources: WORKLOADS,
        subresource: Some(None),
        scope: Scope::Namespace("kube-system"),
        name: None,
        gives: "workloads in kube-system run with its ServiceAccounts and Secrets, the control plane's credentials",
        instead: "run the workload in its own namespace",
    },
    EscalationPath {
        escalation: Escalation::PersistentVolumes,
        verbs: Verbs::Writes,
        group: Some(""),
        resources: &["persistentvolumes"],
        subresource: None,
        scope: Scope::Any,
        name: None,
        gives: "a PersistentVolume may be a hostPath: any node's file system, mounted into a pod",
        instead: "grant create on persistentvolumeclaims in the namespace, and let a StorageClass make the volume",
    },
    EscalationPath {
        escalation: Escalation::NamespaceWrites,
        verbs: Verbs::Writes,
        group: Some(""),
        resources: &["namespaces"],
        subresource: None,
        scope: Scope::Any,
        name: None,
        gives: "changing a namespace's labels changes its Pod Security level and which NetworkPolicies and webhooks apply to it",
        instead: "label namespaces yourself",
    },
];
