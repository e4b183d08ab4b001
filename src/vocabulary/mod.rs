//! The producers' words: what the programs that print a token's fate say,
//! each table taken from the producer's upstream source and citing it (file
//! and versions). Detection, the log prefilter and `explain` read these rows;
//! a wording lives nowhere else.
//!
//! Every paste was printed by one of a finite set of programs:
//! kube-apiserver (apimachinery's Status, the authorizers, the
//! authenticators), the client libraries (each renders a Status its own way),
//! curl and the TLS stacks, and the clouds' token exchanges. Their
//! vocabularies are finite and public, so they are enumerated here rather
//! than collected from pastes.
//!
//! - [`apimachinery`]: kube-apiserver's Status reasons, apimachinery's message
//!   templates, client-go's texts for an answer without a body, the
//!   authorizer's sentence, and the HTTP reason phrases.
//! - [`authenticators`]: the authenticators' messages in kube-apiserver's
//!   authentication error aggregate (ServiceAccount, OIDC, x509, go-jose,
//!   Vault's own claim checks).
//! - [`refusals`]: the authorizers' reasons (RBAC, Node, a managed
//!   cluster's) and the admission plugins' refusals.
//! - [`checkers`]: the meshes' identity services and Vault, which review a
//!   token themselves.
//! - [`rbac`]: RBAC's privilege escalation paths, which every suggested
//!   grant is checked against.
//! - [`cues`]: what tells a line apart (a client's name, curl's verbose
//!   lines, a prompt, a Status's kind) and the prefilter's generic anchors.
//! - [`clients`]: how each client library prints an answer.
//! - [`wordings`]: components other than the ServiceAccount authenticator
//!   (TokenRequest warnings, NodeRestriction, the kubelet, JWT
//!   authenticators), Vault's role bindings.
//! - [`transport`]: failures before any HTTP answer: curl's exit codes and
//!   each TLS backend's words, Go, Java, Python, Node.js, .NET, rustls.
//! - [`clouds`]: the clouds' token exchanges (AWS STS, EKS Pod Identity,
//!   Entra ID, Google STS and IAM Credentials).

pub mod apimachinery;
pub mod authenticators;
pub mod cause;
pub mod checkers;
pub mod clients;
pub mod clouds;
pub mod cues;
pub mod rbac;
pub mod refusals;
pub mod row;
pub mod transport;
pub mod wordings;
