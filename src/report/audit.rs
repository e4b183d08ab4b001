//! `audit` output: the JSON wire types (documented in docs/audit.md, schema
//! docs/schema/audit.schema.json), the merge of several shards' documents,
//! and the table (`table`).

use std::collections::BTreeMap;
use std::io::{self, Write};

use comfy_table::{ColumnConstraint, Width};
use owo_colors::OwoColorize as _;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::TableStyle;
use super::diagnosis::{DiagnosisJson, cause_words, wrap, write_item, write_steps};
use super::json::Time;
use super::sanitize::{cell, sanitize};
use super::table::{list_table, write_table as write_list};
use crate::audit::{ApiserverLog, Attribution, AuditReport, Finding, FindingKind, Other, Reasons};
use crate::diagnosis::facts::RequestInfo;
use crate::diagnosis::forbidden::service_account_of;
use crate::diagnosis::{Cause, Confidence, SupportKind};

mod credentials;
mod merge;
pub mod shard;
pub(crate) mod table;

pub use credentials::{CredentialJson, FollowedJson};

pub use merge::merge;
pub use table::write_table;

/// `audit -o json`: every failing, stale or legacy identity in the audit
/// logs, most impact first, with its cause and next steps.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AuditJson {
    /// What was read.
    pub input: AuditInputJson,
    /// `--now` or the clock.
    pub evaluated_at: Time,
    /// The first and last event, or null without dated events.
    pub span: Option<SpanJson>,
    /// Seconds per timeline bucket (an hour, aligned to the hour in UTC).
    pub bucket_seconds: u64,
    /// Requests counted (each once, at `ResponseComplete`; a failed
    /// authentication at `ResponseStarted`).
    pub events: u64,
    /// Requests per HTTP status code.
    pub by_status: BTreeMap<String, u64>,
    /// Counts over the findings.
    pub summary: AuditSummaryJson,
    /// One per failing, stale or legacy identity, most impact first.
    pub findings: Vec<FindingJson>,
    /// TokenRequest events indexed by the credential id they issued.
    #[serde(default)]
    pub minting_events: u64,
    /// Every credential id the findings name, sorted, each with the
    /// TokenRequest event that minted it (null when the log holds none).
    #[serde(default)]
    pub credentials: Vec<CredentialJson>,
    /// With --jti or --token-file: that credential, its minting event and the
    /// requests made with it; null otherwise.
    #[serde(default)]
    pub credential: Option<FollowedJson>,
    /// The failing or stale identities past the 1,000 listed (most impact
    /// first), counted but not listed.
    #[serde(default)]
    pub other: Other,
    /// Limits reached and other facts about the run.
    pub notes: Vec<String>,
}

/// What was read.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct AuditInputJson {
    /// `file PATH` or `stdin`, in order (for a merge: every shard's).
    pub sources: Vec<String>,
    /// Bytes read, after decompression.
    pub bytes: u64,
    /// Lines (or document elements) holding JSON.
    pub lines: u64,
    /// Lines that were not audit events.
    pub not_events: u64,
    /// The API server log given with --apiserver-log, or null.
    pub apiserver_log: Option<ApiserverLog>,
}

/// The first and last event.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SpanJson {
    /// The earliest event.
    pub first: Time,
    /// The latest event.
    pub last: Time,
}

/// Counts over the findings.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AuditSummaryJson {
    /// Findings in all.
    pub findings: u64,
    /// Findings of kind unauthorized, anonymous, forbidden, forbidden-other.
    pub failing: u64,
    /// Stale-token findings.
    pub stale: u64,
    /// Legacy-token findings.
    pub legacy: u64,
    /// Events per finding kind.
    #[schemars(schema_with = "super::classify::counts::<FindingKind>")]
    pub events_by_kind: BTreeMap<String, u64>,
    /// Findings per cause.
    #[schemars(schema_with = "super::classify::counts::<Cause>")]
    pub by_cause: BTreeMap<String, u64>,
}

/// One failing, stale or legacy identity.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct FindingJson {
    /// What kind of problem.
    pub kind: FindingKind,
    /// Stable across runs and shards: `--merge` joins findings on it.
    pub key: String,
    /// Who.
    pub identity: IdentityJson,
    /// The request (403s); null otherwise.
    pub request: Option<RequestInfo>,
    /// Events.
    pub events: u64,
    /// The earliest event.
    pub first_seen: Time,
    /// The latest event.
    pub last_seen: Time,
    /// The audit ID of the earliest event, to look it up.
    pub example_audit_id: String,
    /// The earliest event's response message (401, 403), or null.
    pub example_message: Option<String>,
    /// Events per hour, hours without events left out.
    pub timeline: Vec<BucketJson>,
    /// Stale tokens; null otherwise.
    pub stale: Option<StaleJson>,
    /// Legacy Secret tokens; null otherwise.
    pub legacy: Option<LegacyJson>,
    /// 401s with --apiserver-log: kube-apiserver's reasons, joined by time;
    /// null otherwise.
    pub reasons: Option<Reasons>,
    /// 403s: what a grant of the request would give beyond it (a request for
    /// `*`, impersonation, `nodes/proxy`…); null otherwise.
    #[serde(default)]
    pub escalation: Option<String>,
    /// The cause and what to do, from the diagnosis engine.
    pub diagnosis: DiagnosisJson<'static>,
}

/// Who, and what the events say about the client.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct IdentityJson {
    /// The username; for 401s the attributed one (see `attribution`); null
    /// when unknown.
    pub user: Option<String>,
    /// The ServiceAccount the user is, or null.
    pub service_account: Option<ServiceAccountJson>,
    /// How the user is known.
    pub attribution: AttributionJson,
    /// Pods (`user.extra` pod-name), up to 8.
    pub pods: Vec<String>,
    /// Nodes (`user.extra` node-name), up to 8.
    pub nodes: Vec<String>,
    /// Source IPs, up to 8.
    pub source_ips: Vec<String>,
    /// User agents, up to 8.
    pub user_agents: Vec<String>,
    /// Credential ids (`JTI=…`), up to 8.
    pub credential_ids: Vec<String>,
    /// The lists above that had more values than they show.
    pub truncated: Vec<String>,
}

/// A ServiceAccount.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ServiceAccountJson {
    /// Its namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
}

/// How the identity is known.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AttributionJson {
    /// `exact`: the events name it; `guess`: 401 events name no user, so it is
    /// the identity last accepted from the same source IP and user agent;
    /// `unknown`: nothing was accepted from there.
    #[schemars(regex(pattern = r"^(exact|guess|unknown)$"))]
    pub method: String,
    /// Why this identity, for a guess.
    pub basis: Option<String>,
    /// Other identities accepted from the same source IP and user agent.
    pub others: Vec<String>,
}

/// Events in one hour.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct BucketJson {
    /// The hour's start.
    pub at: Time,
    /// Events in it.
    pub count: u64,
}

/// Events per hour (hours since the epoch) as a timeline.
pub(crate) fn timeline(hours: &BTreeMap<i64, u64>) -> Vec<BucketJson> {
    let bucket = |(h, n): (&i64, &u64)| BucketJson {
        at: Time::new(crate::audit::instant(h * crate::logs::BUCKET)),
        count: *n,
    };
    hours.iter().map(bucket).collect()
}

/// A stale token.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct StaleJson {
    /// The most seconds past `warnafter` seen.
    pub max_seconds_past_warnafter: u64,
    /// When the oldest token seen passed its `warnafter`.
    pub stale_since: Time,
}

/// A legacy Secret token.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct LegacyJson {
    /// The Secret (1.29+ audit annotations), or null.
    pub secret: Option<String>,
}

impl AuditJson {
    pub fn new(r: &AuditReport) -> Self {
        let findings: Vec<FindingJson> = r.findings.iter().map(finding_json).collect();
        AuditJson {
            input: AuditInputJson {
                sources: r.sources.clone(),
                bytes: r.bytes,
                lines: r.lines,
                not_events: r.not_events,
                apiserver_log: r.apiserver,
            },
            evaluated_at: Time::new(r.evaluated_at),
            span: r.span.map(|(f, l)| SpanJson {
                first: Time::new(f),
                last: Time::new(l),
            }),
            bucket_seconds: crate::logs::BUCKET_SECONDS,
            events: r.events,
            by_status: r.by_code.iter().map(|(c, n)| (c.to_string(), *n)).collect(),
            summary: summary(&findings),
            findings,
            minting_events: r.mints,
            credentials: r
                .credentials
                .iter()
                .map(credentials::credential_json)
                .collect(),
            credential: r.followed.as_ref().map(credentials::followed_json),
            other: r.other,
            notes: r.notes.clone(),
        }
    }

    /// Exit 1: anything failing, stale or legacy was found; with --jti, the
    /// credential has no minting event in the log or had a request refused.
    pub fn has_findings(&self) -> bool {
        match &self.credential {
            Some(c) => c.is_problem(),
            None => !self.findings.is_empty(),
        }
    }
}

fn summary(findings: &[FindingJson]) -> AuditSummaryJson {
    let mut events_by_kind = BTreeMap::new();
    let mut by_cause = BTreeMap::new();
    let (mut failing, mut stale, mut legacy) = (0, 0, 0);
    for f in findings {
        *events_by_kind
            .entry(f.kind.as_str().to_owned())
            .or_default() += f.events;
        *by_cause
            .entry(f.diagnosis.cause.as_str().to_owned())
            .or_default() += 1;
        match f.kind {
            FindingKind::StaleToken => stale += 1,
            FindingKind::LegacyToken => legacy += 1,
            _ => failing += 1,
        }
    }
    AuditSummaryJson {
        findings: findings.len() as u64,
        failing,
        stale,
        legacy,
        events_by_kind,
        by_cause,
    }
}

fn finding_json(f: &Finding) -> FindingJson {
    let id = &f.identity;
    let truncated = [
        ("pods", &id.pods),
        ("nodes", &id.nodes),
        ("source_ips", &id.source_ips),
        ("user_agents", &id.user_agents),
        ("credential_ids", &id.credential_ids),
    ]
    .into_iter()
    .filter(|(_, few)| few.more)
    .map(|(name, _)| name.to_owned())
    .collect();
    let (method, basis, others) = match &id.attribution {
        Attribution::Exact => ("exact", None, Vec::new()),
        Attribution::Guess { basis, others } => ("guess", Some(basis.clone()), others.clone()),
        Attribution::Unknown => ("unknown", None, Vec::new()),
    };
    FindingJson {
        kind: f.kind,
        key: f.key.clone(),
        identity: IdentityJson {
            user: id.user.clone(),
            service_account: id.user.as_deref().and_then(|u| {
                let (ns, name) = service_account_of(u)?;
                Some(ServiceAccountJson {
                    namespace: ns.to_owned(),
                    name: name.to_owned(),
                })
            }),
            attribution: AttributionJson {
                method: method.to_owned(),
                basis,
                others,
            },
            pods: id.pods.sorted(),
            nodes: id.nodes.sorted(),
            source_ips: id.source_ips.sorted(),
            user_agents: id.user_agents.sorted(),
            credential_ids: id.credential_ids.sorted(),
            truncated,
        },
        request: f.request.clone(),
        events: f.seen.count,
        first_seen: Time::new(crate::audit::instant(f.seen.first)),
        last_seen: Time::new(crate::audit::instant(f.seen.last)),
        example_audit_id: f.example_audit_id.clone(),
        example_message: f.example_message.clone(),
        timeline: timeline(&f.hours),
        stale: f.stale.map(|(max, since)| StaleJson {
            max_seconds_past_warnafter: max,
            stale_since: Time::new(since),
        }),
        legacy: (f.kind == FindingKind::LegacyToken).then(|| LegacyJson {
            secret: f.secret.clone(),
        }),
        reasons: f.reasons.clone(),
        escalation: f.escalation.clone(),
        diagnosis: DiagnosisJson::brief(&f.diagnosis),
    }
}
