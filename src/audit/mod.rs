//! The fleet view (`kubectl satoken audit`): every failing or stale workload in
//! a day of audit logs, one row per identity, with the cause and next steps
//! from the one diagnosis engine.
//!
//! ```text
//! read.rs       files, globs, stdin, gzip; JSON Lines in blocks to one worker per core
//! event.rs      one line: a byte-level look for accepted requests, else a full parse
//! aggregate.rs  per-worker tallies: groups (identity × what failed), clients, deletions
//! mint.rs       TokenRequest events: who minted which credential id, for how long
//! analyse.rs    aggregate -> findings: attribution, one engine Case per group, ranking
//! ```
//!
//! The report ranks by impact: failing identities first (401, anonymous 403,
//! 403), then stale tokens, then legacy Secret tokens, each by event count.

pub mod aggregate;
pub mod analyse;
pub mod event;
pub mod mint;
pub mod read;

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

pub use crate::logs::ReasonIndex;
pub use aggregate::{Few, Followed, Seen};
pub use analyse::analyse;
pub use read::Source;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use strum::{IntoStaticStr, VariantArray};

use crate::diagnosis::facts::RequestInfo;
use crate::diagnosis::{Cause, Diagnosis};
use crate::wire::string_codes;

pub use crate::logs::tally::Other;
pub use crate::logs::time::instant;

/// What kind of problem a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum FindingKind {
    /// 401: the token was rejected.
    Unauthorized,
    /// 403 as `system:anonymous`: the client sent no token.
    Anonymous,
    /// 403 from RBAC.
    Forbidden,
    /// 403 from something else (admission, a webhook, quota, another authorizer).
    ForbiddenOther,
    /// Accepted past `warnafter`: breaks when extended expiry is off.
    StaleToken,
    /// Accepted with a legacy Secret token: never expires, invalidated once unused for a year.
    LegacyToken,
}

string_codes!(FindingKind);

impl FindingKind {
    /// Ranking tier: failing first, then stale, then legacy.
    pub fn tier(self) -> u8 {
        match self {
            FindingKind::Unauthorized
            | FindingKind::Anonymous
            | FindingKind::Forbidden
            | FindingKind::ForbiddenOther => 0,
            FindingKind::StaleToken => 1,
            FindingKind::LegacyToken => 2,
        }
    }
}

/// How the identity of a finding is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attribution {
    /// The events name it.
    Exact,
    /// 401 events name no user: this is the identity last accepted from the
    /// same source IP and user agent before the failures.
    Guess {
        /// Why this identity (in words).
        basis: String,
        /// Other identities accepted from there.
        others: Vec<String>,
    },
    /// Nothing accepted came from there.
    Unknown,
}

/// Who: the user and what the events tell about the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub user: Option<String>,
    pub attribution: Attribution,
    pub pods: Few,
    pub nodes: Few,
    pub source_ips: Few,
    pub user_agents: Few,
    pub credential_ids: Few,
}

/// kube-apiserver's reasons for a group of 401s.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Reasons {
    /// Each reason set with the events it was joined to.
    pub joined: Vec<Joined>,
    /// Events with failure lines in reach that disagree.
    pub ambiguous: u64,
    /// Events with no failure line in reach.
    pub unjoined: u64,
}

/// One reason set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Joined {
    /// The cause the reasons name.
    pub cause: Cause,
    /// The error aggregate as logged.
    pub error: String,
    /// 401s joined to it.
    pub events: u64,
}

/// One failing or stale identity.
#[derive(Debug, Clone)]
pub struct Finding {
    pub kind: FindingKind,
    /// Stable across runs and shards: what `--merge` joins on.
    pub key: String,
    pub identity: Identity,
    pub request: Option<RequestInfo>,
    pub seen: Seen,
    pub example_audit_id: String,
    /// The earliest event's message (403s, 401s), tokens redacted.
    pub example_message: Option<String>,
    /// Events per hour (hours since the epoch).
    pub hours: BTreeMap<i64, u64>,
    /// Stale tokens: the most seconds past `warnafter`, and since when.
    pub stale: Option<(u64, DateTime<Utc>)>,
    /// Legacy tokens: the Secret, when the events name it.
    pub secret: Option<String>,
    pub reasons: Option<Reasons>,
    /// 403s: what a grant of the request would give beyond it.
    pub escalation: Option<String>,
    pub diagnosis: Diagnosis,
}

/// The API server log read for the 401 join.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, JsonSchema)]
pub struct ApiserverLog {
    /// Lines read.
    pub lines: u64,
    /// "Unable to authenticate the request" lines among them.
    pub failures: u64,
}

/// A credential id seen on findings, with the TokenRequest event that minted
/// it when the log holds one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credential {
    /// `JTI=<jti>`.
    pub id: String,
    pub mint: Option<mint::Mint>,
    /// The keys of the findings it was seen on.
    pub findings: Vec<String>,
}

/// Findings listed at most, most impact first: a report is read by people.
pub const MAX_FINDINGS: usize = 1_000;

#[derive(Debug, Clone)]
pub struct AuditReport {
    pub evaluated_at: DateTime<Utc>,
    pub sources: Vec<String>,
    pub bytes: u64,
    pub lines: u64,
    pub events: u64,
    pub not_events: u64,
    pub by_code: BTreeMap<u16, u64>,
    pub span: Option<(DateTime<Utc>, DateTime<Utc>)>,
    pub findings: Vec<Finding>,
    pub apiserver: Option<ApiserverLog>,
    /// TokenRequest events indexed by the credential id they issued.
    pub mints: u64,
    /// Credential ids seen on findings, sorted, each with its minting event.
    pub credentials: Vec<Credential>,
    /// The one credential asked about, when one was.
    pub followed: Option<Followed>,
    /// The identities past [`MAX_FINDINGS`], counted but not listed.
    pub other: Other,
    /// Limits reached and other facts about the run.
    pub notes: Vec<String>,
}
