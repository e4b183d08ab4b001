//! The one diagnosis engine: typed evidence in, ranked candidate causes out,
//! shared by `probe`, `classify`, `doctor` and the audit view.
//!
//! ```text
//! probe: HTTP answers ──┐
//! classify: any text ───┼─► Case (facts.rs) ─► rules/* ─► Findings ─► merge ─► Diagnosis
//! doctor: all of probe ─┘   the typed facts     one file     (merge.rs)         candidates:
//!                                               per family                      cause, confidence,
//!                                                                               support, next
//! ```
//!
//! - [`cause`]: the registry; every cause is defined once ([`CauseDef`]: code,
//!   summary, explanation, how to confirm, how to fix), beside its rule.
//! - [`facts`]: the typed facts of a case, a leaf beneath extraction and the
//!   rules (it names only the vocabulary, the token and its siblings'
//!   leaves); rules never read raw text.
//! - [`rules`]: one file per cause family.
//! - [`engine`]: every rule, each reading the case alone; [`merge`]: the one
//!   merge and ranking; [`policy`]: every confidence, and what depends on
//!   other causes' findings.
//! - [`next`]: next steps with typed, shell-quoted commands.
//! - [`forbidden`], [`reasons`], [`extract`]: parsers for kube-apiserver's 403
//!   message, its authentication error aggregate, and transport failures, in
//!   every version's and every client's wording.
//! - [`wordings`]: what other components say (kubelet, NodeRestriction, JWT
//!   authenticators, TokenRequest warnings), with versions, and their parsers.

pub mod artefact;
pub mod cause;
pub mod classification;
pub mod engine;
pub mod escalation;
pub mod extract;
pub mod facts;
pub mod forbidden;
pub mod merge;
pub mod next;
pub mod policy;
pub mod reasons;
pub mod rules;
pub mod support;
#[cfg(test)]
pub(crate) mod testing;
pub use crate::vocabulary::wordings;

pub use cause::Cause;
pub use classification::Classification;
pub use engine::{diagnose, findings};
pub use facts::Case;
pub use merge::{Candidate, Confidence, Diagnosis};
pub use next::{Command, NextStep};
pub use policy::Basis;
pub use support::{Support, SupportKind};
