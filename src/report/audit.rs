//! `audit` output: the JSON wire types (documented in docs/audit.md, schema
//! docs/schema/audit.schema.json), the merge of several shards' documents,
//! and the table. The table is drawn from the wire document, so a merged
//! document prints the same way as a single run's.
//!
//! Every string in the table comes from audit events (users, agents, messages)
//! and goes through `sanitize`.

use std::collections::BTreeMap;
use std::io::{self, Write};

use comfy_table::{ColumnConstraint, Width};
use owo_colors::OwoColorize as _;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::TableStyle;
use super::diagnosis::{wrap, write_item};
use super::sanitize::sanitize;
use super::table::{list_table, write_table as write_list};
use crate::audit::{Attribution, AuditReport, Few, Finding, FindingKind};
use crate::diagnosis::{Cause, Confidence, SupportKind};
use crate::timefmt::rfc3339;

/// `audit -o json`: every failing, stale or legacy identity in the audit
/// logs, most impact first, with its cause and next steps.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AuditJson {
    /// What was read.
    pub input: AuditInputJson,
    /// `--now` or the clock.
    #[schemars(with = "super::json::Time")]
    pub evaluated_at: String,
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
    /// Limits reached and other facts about the run.
    pub notes: Vec<String>,
}

/// What was read.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
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
    pub apiserver_log: Option<ApiserverLogJson>,
}

/// The API server log read for the 401 join.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ApiserverLogJson {
    /// Lines read.
    pub lines: u64,
    /// "Unable to authenticate the request" lines among them.
    pub failures: u64,
}

/// The first and last event.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SpanJson {
    /// The earliest event.
    #[schemars(with = "super::json::Time")]
    pub first: String,
    /// The latest event.
    #[schemars(with = "super::json::Time")]
    pub last: String,
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
    #[schemars(with = "FindingKind")]
    pub kind: String,
    /// Stable across runs and shards: `--merge` joins findings on it.
    pub key: String,
    /// Who.
    pub identity: IdentityJson,
    /// The request (403s); null otherwise.
    pub request: Option<AuditRequestJson>,
    /// Events.
    pub events: u64,
    /// The earliest event.
    #[schemars(with = "super::json::Time")]
    pub first_seen: String,
    /// The latest event.
    #[schemars(with = "super::json::Time")]
    pub last_seen: String,
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
    pub reasons: Option<ReasonsJson>,
    /// The cause and what to do, from the diagnosis engine.
    pub diagnosis: FindingDiagnosisJson,
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

/// A request.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AuditRequestJson {
    /// The verb (`get`, `list`, `create`…).
    pub verb: Option<String>,
    /// The resource, without its subresource; null for a non-resource path.
    pub resource: Option<String>,
    /// The subresource (`status`, `log`…), or null.
    pub subresource: Option<String>,
    /// `""` is the core group.
    pub api_group: Option<String>,
    /// Null at the cluster scope.
    pub namespace: Option<String>,
    /// The object, when every event named the same one.
    pub name: Option<String>,
    /// A non-resource path.
    pub path: Option<String>,
}

/// Events in one hour.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct BucketJson {
    /// The hour's start.
    #[schemars(with = "super::json::Time")]
    pub at: String,
    /// Events in it.
    pub count: u64,
}

/// A stale token.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct StaleJson {
    /// The most seconds past `warnafter` seen.
    pub max_seconds_past_warnafter: u64,
    /// When the oldest token seen passed its `warnafter`.
    #[schemars(with = "super::json::Time")]
    pub stale_since: String,
}

/// A legacy Secret token.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct LegacyJson {
    /// The Secret (1.29+ audit annotations), or null.
    pub secret: Option<String>,
}

/// kube-apiserver's reasons for a group of 401s.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ReasonsJson {
    /// Each reason set with the events it was joined to.
    pub joined: Vec<JoinedJson>,
    /// Events with failure lines in reach that disagree.
    pub ambiguous: u64,
    /// Events with no failure line in reach.
    pub unjoined: u64,
}

/// One reason set.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct JoinedJson {
    /// The cause the reasons name.
    #[schemars(with = "Cause")]
    pub cause: String,
    /// The error aggregate as logged.
    pub error: String,
    /// 401s joined to it.
    pub events: u64,
}

/// The engine's diagnosis of a finding.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct FindingDiagnosisJson {
    /// The most likely cause (`kubectl satoken explain CAUSE`).
    #[schemars(with = "Cause")]
    pub cause: String,
    /// How sure.
    #[schemars(with = "Confidence")]
    pub confidence: String,
    /// The cause's one-line summary.
    pub summary: String,
    /// The facts behind it.
    pub support: Vec<FactJson>,
    /// What to do: confirm, then fix.
    pub next: Vec<StepJson>,
    /// Other causes the evidence allows.
    pub alternatives: Vec<AlternativeJson>,
    /// Facts that support no cause in particular.
    pub notes: Vec<FactJson>,
}

/// One fact.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct FactJson {
    /// Where the fact comes from.
    #[schemars(with = "SupportKind")]
    pub kind: String,
    /// The fact, in words.
    pub text: String,
}

/// One next step.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct StepJson {
    /// What it is for.
    pub why: String,
    /// The command, or null for a step in words.
    pub command: Option<StepCommandJson>,
}

/// A command: its words and the line to paste.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct StepCommandJson {
    /// The words, unquoted.
    pub argv: Vec<String>,
    /// Commands the output is piped into.
    pub pipe: Vec<Vec<String>>,
    /// The file the output is written to, or null.
    pub output: Option<String>,
    /// The whole line for a POSIX shell.
    pub shell: String,
    /// What the output must be, when known.
    pub expect: Option<String>,
    /// Some words are UPPERCASE placeholders to fill in.
    pub placeholders: bool,
}

/// Another candidate cause.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AlternativeJson {
    /// The cause.
    #[schemars(with = "Cause")]
    pub cause: String,
    /// How sure.
    #[schemars(with = "Confidence")]
    pub confidence: String,
    /// The cause in one line.
    pub summary: String,
}

fn list(f: &Few) -> Vec<String> {
    f.sorted()
}

fn time(at: chrono::DateTime<chrono::Utc>) -> String {
    rfc3339(at)
}

impl AuditJson {
    /// The wire form of a report.
    pub fn new(r: &AuditReport) -> Self {
        let findings: Vec<FindingJson> = r.findings.iter().map(finding_json).collect();
        AuditJson {
            input: AuditInputJson {
                sources: r.sources.clone(),
                bytes: r.bytes,
                lines: r.totals.lines,
                not_events: r.totals.not_events,
                apiserver_log: r.apiserver.map(|a| ApiserverLogJson {
                    lines: a.lines,
                    failures: a.failures,
                }),
            },
            evaluated_at: time(r.evaluated_at),
            span: r.totals.first.zip(r.totals.last).map(|(f, l)| SpanJson {
                first: time(f),
                last: time(l),
            }),
            bucket_seconds: 3600,
            events: r.totals.events,
            by_status: r
                .totals
                .by_code
                .iter()
                .map(|(c, n)| (c.to_string(), *n))
                .collect(),
            summary: summary(&findings),
            findings,
            notes: r.notes.clone(),
        }
    }

    /// Whether anything failing, stale or legacy was found (exit 1).
    pub fn has_findings(&self) -> bool {
        !self.findings.is_empty()
    }
}

fn summary(findings: &[FindingJson]) -> AuditSummaryJson {
    let mut events_by_kind = BTreeMap::new();
    let mut by_cause = BTreeMap::new();
    let (mut failing, mut stale, mut legacy) = (0, 0, 0);
    for f in findings {
        *events_by_kind.entry(f.kind.clone()).or_default() += f.events;
        *by_cause.entry(f.diagnosis.cause.clone()).or_default() += 1;
        match f.kind.as_str() {
            "stale-token" => stale += 1,
            "legacy-token" => legacy += 1,
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
    let mut truncated = Vec::new();
    for (name, few) in [
        ("pods", &id.pods),
        ("nodes", &id.nodes),
        ("source_ips", &id.source_ips),
        ("user_agents", &id.user_agents),
        ("credential_ids", &id.credential_ids),
    ] {
        if few.more {
            truncated.push(name.to_owned());
        }
    }
    let (method, basis, others) = match &id.attribution {
        Attribution::Exact => ("exact", None, Vec::new()),
        Attribution::Guess { basis, others } => ("guess", Some(basis.clone()), others.clone()),
        Attribution::Unknown => ("unknown", None, Vec::new()),
    };
    let d = &f.diagnosis;
    let top = d.top();
    let fact = |s: &crate::diagnosis::Support| FactJson {
        kind: s.kind.as_str().to_owned(),
        text: match &s.server {
            Some(server) => format!("{server}: {}", s.text),
            None => s.text.clone(),
        },
    };
    FindingJson {
        kind: f.kind.as_str().to_owned(),
        key: f.key.clone(),
        identity: IdentityJson {
            user: id.user.clone(),
            service_account: id.user.as_deref().and_then(|u| {
                let (ns, name) = u.strip_prefix("system:serviceaccount:")?.split_once(':')?;
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
            pods: list(&id.pods),
            nodes: list(&id.nodes),
            source_ips: list(&id.source_ips),
            user_agents: list(&id.user_agents),
            credential_ids: list(&id.credential_ids),
            truncated,
        },
        request: f.request.as_ref().map(|r| AuditRequestJson {
            verb: r.verb.clone(),
            resource: r.resource.clone(),
            subresource: r.subresource.clone(),
            api_group: r.api_group.clone(),
            namespace: r.namespace.clone(),
            name: r.name.clone(),
            path: r.path.clone(),
        }),
        events: f.seen.count,
        first_seen: time(crate::audit::instant(f.seen.first)),
        last_seen: time(crate::audit::instant(f.seen.last)),
        example_audit_id: f.example_audit_id.clone(),
        example_message: f.example_message.clone(),
        timeline: f
            .hours
            .iter()
            .map(|(h, n)| BucketJson {
                at: time(crate::audit::instant(h * crate::audit::aggregate::BUCKET)),
                count: *n,
            })
            .collect(),
        stale: f.stale.map(|(max, since)| StaleJson {
            max_seconds_past_warnafter: max,
            stale_since: time(since),
        }),
        legacy: (f.kind == FindingKind::LegacyToken).then(|| LegacyJson {
            secret: f.secret.clone(),
        }),
        reasons: f.reasons.as_ref().map(|r| ReasonsJson {
            joined: r
                .joined
                .iter()
                .map(|(cause, error, n)| JoinedJson {
                    cause: cause.as_str().to_owned(),
                    error: error.clone(),
                    events: *n,
                })
                .collect(),
            ambiguous: r.ambiguous,
            unjoined: r.unjoined,
        }),
        diagnosis: FindingDiagnosisJson {
            cause: top.cause.as_str().to_owned(),
            confidence: top.confidence.as_str().to_owned(),
            summary: top.cause.summary().to_owned(),
            support: top.support.iter().map(fact).collect(),
            next: top
                .next
                .iter()
                .map(|n| StepJson {
                    why: n.why.clone(),
                    command: n.command.as_ref().map(|c| StepCommandJson {
                        argv: c.argv.clone(),
                        pipe: c.pipe.clone(),
                        output: c.output.clone(),
                        shell: c.shell(),
                        expect: c.expect.clone(),
                        placeholders: c.placeholders,
                    }),
                })
                .collect(),
            alternatives: d
                .alternatives()
                .iter()
                .filter(|c| c.cause != Cause::None)
                .map(|c| AlternativeJson {
                    cause: c.cause.as_str().to_owned(),
                    confidence: c.confidence.as_str().to_owned(),
                    summary: c.cause.summary().to_owned(),
                })
                .collect(),
            notes: d.notes.iter().map(fact).collect(),
        },
    }
}

/// Several shards' documents as one: sources and counts added up, findings
/// with the same key joined (events added, first and last widened, timelines
/// added, lists united; the diagnosis of the more confident side, else of the
/// side with more events), then ranked again.
pub fn merge(docs: Vec<AuditJson>, evaluated_at: String) -> AuditJson {
    let mut input = AuditInputJson {
        sources: Vec::new(),
        bytes: 0,
        lines: 0,
        not_events: 0,
        apiserver_log: None,
    };
    let mut span: Option<SpanJson> = None;
    let mut events = 0;
    let mut by_status: BTreeMap<String, u64> = BTreeMap::new();
    let mut findings: BTreeMap<String, FindingJson> = BTreeMap::new();
    let mut notes = Vec::new();
    for d in docs {
        input.sources.extend(d.input.sources);
        input.bytes += d.input.bytes;
        input.lines += d.input.lines;
        input.not_events += d.input.not_events;
        if let Some(a) = d.input.apiserver_log {
            let m = input.apiserver_log.get_or_insert(ApiserverLogJson {
                lines: 0,
                failures: 0,
            });
            m.lines += a.lines;
            m.failures += a.failures;
        }
        span = match (span, d.span) {
            (Some(a), Some(b)) => Some(SpanJson {
                first: a.first.min(b.first),
                last: a.last.max(b.last),
            }),
            (a, b) => a.or(b),
        };
        events += d.events;
        for (code, n) in d.by_status {
            *by_status.entry(code).or_default() += n;
        }
        for f in d.findings {
            match findings.remove(&f.key) {
                Some(mine) => {
                    findings.insert(f.key.clone(), merge_finding(mine, f));
                }
                None => {
                    findings.insert(f.key.clone(), f);
                }
            }
        }
        for n in d.notes {
            if !notes.contains(&n) {
                notes.push(n);
            }
        }
    }
    let mut findings: Vec<FindingJson> = findings.into_values().collect();
    findings.sort_by(|a, b| {
        (tier(&a.kind), std::cmp::Reverse(a.events), &a.key).cmp(&(
            tier(&b.kind),
            std::cmp::Reverse(b.events),
            &b.key,
        ))
    });
    AuditJson {
        input,
        evaluated_at,
        span,
        bucket_seconds: 3600,
        events,
        by_status,
        summary: summary(&findings),
        findings,
        notes,
    }
}

fn tier(kind: &str) -> u8 {
    match kind {
        "stale-token" => 1,
        "legacy-token" => 2,
        _ => 0,
    }
}

fn confidence_rank(c: &str) -> u8 {
    match c {
        "high" => 2,
        "medium" => 1,
        _ => 0,
    }
}

fn unite(a: &mut Vec<String>, b: Vec<String>, truncated: &mut bool) {
    for v in b {
        if !a.contains(&v) {
            if a.len() < crate::audit::aggregate::FEW {
                a.push(v);
            } else {
                *truncated = true;
            }
        }
    }
    a.sort();
}

fn merge_finding(a: FindingJson, b: FindingJson) -> FindingJson {
    let b_wins = (confidence_rank(&b.diagnosis.confidence), b.events)
        > (confidence_rank(&a.diagnosis.confidence), a.events);
    let (mut keep, other) = if b_wins { (b, a) } else { (a, b) };
    let first_is_other = other.first_seen < keep.first_seen;
    keep.events += other.events;
    if first_is_other {
        keep.first_seen = other.first_seen.clone();
        keep.example_audit_id = other.example_audit_id.clone();
        keep.example_message = other.example_message.clone().or(keep.example_message);
    }
    keep.last_seen = keep.last_seen.max(other.last_seen);
    let mut hours: BTreeMap<String, u64> =
        keep.timeline.drain(..).map(|b| (b.at, b.count)).collect();
    for b in other.timeline {
        *hours.entry(b.at).or_default() += b.count;
    }
    keep.timeline = hours
        .into_iter()
        .map(|(at, count)| BucketJson { at, count })
        .collect();
    let id = &mut keep.identity;
    let o = other.identity;
    for (name, mine, theirs) in [
        ("pods", &mut id.pods, o.pods),
        ("nodes", &mut id.nodes, o.nodes),
        ("source_ips", &mut id.source_ips, o.source_ips),
        ("user_agents", &mut id.user_agents, o.user_agents),
        ("credential_ids", &mut id.credential_ids, o.credential_ids),
    ] {
        let mut more = false;
        unite(mine, theirs, &mut more);
        if more && !id.truncated.iter().any(|t| t == name) {
            id.truncated.push(name.to_owned());
        }
    }
    for t in o.truncated {
        if !id.truncated.contains(&t) {
            id.truncated.push(t);
        }
    }
    id.truncated.sort();
    if let (Some(s), Some(os)) = (&mut keep.stale, other.stale) {
        s.max_seconds_past_warnafter = s
            .max_seconds_past_warnafter
            .max(os.max_seconds_past_warnafter);
        s.stale_since = s.stale_since.clone().min(os.stale_since);
    }
    match (&mut keep.reasons, other.reasons) {
        (Some(r), Some(or)) => {
            r.ambiguous += or.ambiguous;
            r.unjoined += or.unjoined;
            for j in or.joined {
                match r.joined.iter_mut().find(|x| x.error == j.error) {
                    Some(x) => x.events += j.events,
                    None => r.joined.push(j),
                }
            }
            r.joined
                .sort_by(|a, b| b.events.cmp(&a.events).then_with(|| a.error.cmp(&b.error)));
        }
        (None, Some(or)) => keep.reasons = Some(or),
        _ => {}
    }
    keep
}

const SPARKS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// The hours of the span, grouped into at most `width` cells.
struct Axis {
    start: i64,
    hours_per_cell: i64,
    cells: usize,
}

impl Axis {
    fn new(span: Option<&SpanJson>, width: usize) -> Option<Axis> {
        let span = span?;
        let hour = |t: &str| {
            crate::audit::event::parse_time(t.as_bytes())
                .map(|m| m.div_euclid(crate::audit::aggregate::BUCKET))
        };
        let (start, end) = (hour(&span.first)?, hour(&span.last)?);
        let hours = (end - start + 1).max(1);
        let hours_per_cell = (hours + width as i64 - 1) / width as i64;
        Some(Axis {
            start,
            hours_per_cell,
            cells: ((hours + hours_per_cell - 1) / hours_per_cell) as usize,
        })
    }

    fn sparkline(&self, timeline: &[BucketJson]) -> String {
        let mut cells = vec![0u64; self.cells];
        for b in timeline {
            let Some(m) = crate::audit::event::parse_time(b.at.as_bytes()) else {
                continue;
            };
            let i =
                (m.div_euclid(crate::audit::aggregate::BUCKET) - self.start) / self.hours_per_cell;
            if let Some(c) = usize::try_from(i).ok().and_then(|i| cells.get_mut(i)) {
                *c += b.count;
            }
        }
        let max = cells.iter().copied().max().unwrap_or(0).max(1);
        cells
            .iter()
            .map(|&n| {
                if n == 0 {
                    ' '
                } else {
                    SPARKS[((n * 7) / max) as usize]
                }
            })
            .collect()
    }
}

/// `sa shop/checkout`, `node worker-1`, or the user as it is.
fn short_user(user: Option<&str>) -> String {
    let Some(user) = user else {
        return "(unknown)".to_owned();
    };
    if let Some((ns, name)) = user
        .strip_prefix("system:serviceaccount:")
        .and_then(|r| r.split_once(':'))
    {
        return format!("sa {ns}/{name}");
    }
    if let Some(node) = user.strip_prefix("system:node:") {
        return format!("node {node}");
    }
    user.to_owned()
}

fn kind_words(kind: &str) -> &'static str {
    match kind {
        "unauthorized" => "401",
        "anonymous" => "403 anonymous",
        "forbidden" => "403 rbac",
        "forbidden-other" => "403 other",
        "stale-token" => "stale token",
        "legacy-token" => "legacy token",
        _ => "?",
    }
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn bytes_words(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit < UNITS.len() - 1 {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

/// What a finding is about, in a few words.
fn what(f: &FindingJson) -> String {
    match &f.request {
        Some(r) => {
            let mut target = r.resource.clone().unwrap_or_default();
            if let Some(g) = r.api_group.as_deref().filter(|g| !g.is_empty()) {
                target = format!("{target}.{g}");
            }
            if let Some(s) = &r.subresource {
                target = format!("{target}/{s}");
            }
            if let Some(p) = &r.path {
                target = p.clone();
            }
            let scope = r
                .namespace
                .as_deref()
                .map_or(String::new(), |ns| format!(" in {ns}"));
            format!("{} {target}{scope}", r.verb.as_deref().unwrap_or("?"))
        }
        None => match f.kind.as_str() {
            "unauthorized" | "anonymous" => format!(
                "from {}",
                f.identity.source_ips.first().map_or("?", String::as_str)
            ),
            "stale-token" => f
                .stale
                .as_ref()
                .map(|s| format!("{} past warnafter", human(s.max_seconds_past_warnafter)))
                .unwrap_or_default(),
            "legacy-token" => f
                .legacy
                .as_ref()
                .and_then(|l| l.secret.clone())
                .map_or("Secret token".to_owned(), |s| format!("Secret {s}")),
            _ => String::new(),
        },
    }
}

fn human(seconds: u64) -> String {
    crate::timefmt::human_seconds(i64::try_from(seconds).unwrap_or(i64::MAX))
}

/// The table: a header, one row per finding, then each finding's details
/// (at most `details`; the rest are in -o json).
pub fn write_table(
    out: &mut dyn Write,
    doc: &AuditJson,
    style: &TableStyle,
    details: usize,
) -> io::Result<()> {
    let s = &style.styles;
    let span = doc
        .span
        .as_ref()
        .map(|sp| format!(", {} to {}", sp.first, sp.last))
        .unwrap_or_default();
    writeln!(
        out,
        "{} {} events in {} source{} ({}){span}",
        "Audit:".style(s.bold),
        thousands(doc.events),
        doc.input.sources.len(),
        if doc.input.sources.len() == 1 {
            ""
        } else {
            "s"
        },
        bytes_words(doc.input.bytes)
    )?;
    let mut classes: BTreeMap<&str, u64> = BTreeMap::new();
    for (code, n) in &doc.by_status {
        let class = match code.as_str() {
            "401" => "401",
            "403" => "403",
            c if c.starts_with('2') => "2xx",
            _ => "other",
        };
        *classes.entry(class).or_default() += n;
    }
    let pct = |n: u64| {
        if doc.events == 0 {
            0.0
        } else {
            n as f64 * 100.0 / doc.events as f64
        }
    };
    let mut line = String::from("       ");
    for class in ["2xx", "401", "403", "other"] {
        if let Some(&n) = classes.get(class) {
            line.push_str(&format!("{class} {} ({:.1} %)  ", thousands(n), pct(n)));
        }
    }
    writeln!(out, "{}", line.trim_end())?;
    if let Some(a) = &doc.input.apiserver_log {
        writeln!(
            out,
            "       API server log: {} lines, {} authentication failures",
            thousands(a.lines),
            thousands(a.failures)
        )?;
    }
    let sum = &doc.summary;
    if doc.findings.is_empty() {
        writeln!(
            out,
            "{} nothing failing, stale or legacy",
            "Found:".style(s.bold)
        )?;
    } else {
        writeln!(
            out,
            "{} {} failing, {} stale token{}, {} legacy Secret token{}",
            "Found:".style(s.bold),
            sum.failing,
            sum.stale,
            if sum.stale == 1 { "" } else { "s" },
            sum.legacy,
            if sum.legacy == 1 { "" } else { "s" }
        )?;
    }
    for n in &doc.notes {
        writeln!(out, "{} {}", "Note:".style(s.dim), sanitize(n))?;
    }
    if doc.findings.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    // A day in 24 cells on a wide terminal, in 12 on 80 columns.
    let axis = Axis::new(doc.span.as_ref(), if style.width >= 110 { 24 } else { 12 });
    let timeline_header = match &axis {
        Some(a) if a.hours_per_cell == 1 => "PER HOUR".to_owned(),
        Some(a) => format!("PER {}h", a.hours_per_cell),
        None => "TIMELINE".to_owned(),
    };
    let mut table = list_table(
        style,
        &["#", "EVENTS", &timeline_header, "PROBLEM", "CAUSE"],
    );
    for (i, f) in doc.findings.iter().enumerate() {
        let guess = if f.identity.attribution.method == "guess" {
            "~"
        } else {
            ""
        };
        let problem = format!(
            "{} {guess}{}: {}",
            kind_words(&f.kind),
            short_user(f.identity.user.as_deref()),
            what(f)
        );
        let cause = match f.diagnosis.confidence.as_str() {
            "high" => f.diagnosis.cause.clone(),
            c => format!("{} ({c})", f.diagnosis.cause),
        };
        table.add_row(vec![
            (i + 1).to_string(),
            thousands(f.events),
            axis.as_ref()
                .map_or(String::new(), |a| a.sparkline(&f.timeline)),
            sanitize(problem.trim_end_matches([' ', ':'])).into_owned(),
            cause,
        ]);
    }
    if let Some(c) = table.column_mut(2) {
        c.set_constraint(ColumnConstraint::Absolute(Width::Fixed(
            axis.as_ref()
                .map_or(8, |a| a.cells.max(timeline_header.len())) as u16
                + 2,
        )));
    }
    write_list(out, &table)?;
    if doc
        .findings
        .iter()
        .any(|f| f.identity.attribution.method == "guess")
    {
        writeln!(
            out,
            "{}",
            "~ a guess: 401 events name no user; the identity is the one last accepted from the same source IP and user agent".style(s.dim)
        )?;
    }
    let width = usize::from(style.width).saturating_sub(4).max(30);
    for (i, f) in doc.findings.iter().enumerate().take(details) {
        writeln!(out)?;
        write_details(out, i + 1, f, style, width)?;
    }
    if doc.findings.len() > details {
        writeln!(
            out,
            "\n{} more finding{} in the list above: -o json has every one, or raise --details",
            doc.findings.len() - details,
            if doc.findings.len() - details == 1 {
                ""
            } else {
                "s"
            }
        )?;
    }
    Ok(())
}

fn write_details(
    out: &mut dyn Write,
    n: usize,
    f: &FindingJson,
    style: &TableStyle,
    width: usize,
) -> io::Result<()> {
    let s = &style.styles;
    let heading = format!(
        "{n}. {} {} {}",
        kind_words(&f.kind),
        short_user(f.identity.user.as_deref()),
        what(f)
    );
    writeln!(out, "{}", sanitize(heading.trim_end()).style(s.bold))?;
    let id = &f.identity;
    let mut facts: Vec<String> = Vec::new();
    if let Some(u) = &id.user {
        facts.push(format!("user {u}"));
    }
    if let Some(basis) = &id.attribution.basis {
        let mut text = format!("a guess: {basis}");
        if !id.attribution.others.is_empty() {
            text.push_str(&format!(" (others: {})", id.attribution.others.join(", ")));
        }
        facts.push(text);
    } else if id.attribution.method == "unknown" {
        facts.push(
            "identity unknown: nothing was accepted from this source IP and user agent".to_owned(),
        );
    }
    facts.push(format!(
        "{} events from {} to {}; example audit ID {}",
        thousands(f.events),
        f.first_seen,
        f.last_seen,
        f.example_audit_id
    ));
    let mut client = Vec::new();
    for (label, values) in [
        ("from", &id.source_ips),
        ("agent", &id.user_agents),
        ("pod", &id.pods),
        ("node", &id.nodes),
        ("credential", &id.credential_ids),
    ] {
        if !values.is_empty() {
            client.push(format!("{label} {}", values.join(", ")));
        }
    }
    if !client.is_empty() {
        facts.push(client.join("; "));
    }
    if let Some(st) = &f.stale {
        facts.push(format!(
            "stale since {} (up to {} past warnafter): breaks when extended expiry is off",
            st.stale_since,
            human(st.max_seconds_past_warnafter)
        ));
    }
    if let Some(m) = &f.example_message {
        facts.push(format!("message: {m}"));
    }
    if let Some(r) = &f.reasons {
        for j in &r.joined {
            facts.push(format!(
                "{} events: kube-apiserver said {} ({})",
                thousands(j.events),
                j.error,
                j.cause
            ));
        }
        if r.unjoined > 0 {
            facts.push(format!(
                "{} events: no API server log line within 1 s",
                thousands(r.unjoined)
            ));
        }
    }
    for fact in facts {
        write_item(out, &fact, width)?;
    }
    let d = &f.diagnosis;
    writeln!(
        out,
        "{} {} ({} confidence)",
        "Cause:".style(s.bold),
        d.cause,
        d.confidence
    )?;
    for line in wrap(&d.summary, width + 2) {
        writeln!(out, "  {}", line.style(s.dim))?;
    }
    for fact in d.support.iter().filter(|x| x.kind != "answer") {
        write_item(out, &fact.text, width)?;
    }
    if !d.next.is_empty() {
        writeln!(out, "{}", "Next steps:".style(s.bold))?;
        for step in &d.next {
            write_item(out, &step.why, width)?;
            if let Some(c) = &step.command {
                let expect = c
                    .expect
                    .as_deref()
                    .map(|e| format!("   # {e}"))
                    .unwrap_or_default();
                writeln!(out, "    $ {}{}", sanitize(&c.shell), sanitize(&expect))?;
            }
        }
    }
    if !d.alternatives.is_empty() {
        let alts: Vec<String> = d
            .alternatives
            .iter()
            .map(|a| format!("{} ({})", a.cause, a.confidence))
            .collect();
        write_item(
            out,
            &format!("other candidates: {}", alts.join(", ")),
            width,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparklines_scale_to_the_busiest_hour() {
        let span = SpanJson {
            first: "2026-01-01T00:00:00Z".into(),
            last: "2026-01-01T03:59:59Z".into(),
        };
        let axis = Axis::new(Some(&span), 24).unwrap();
        assert_eq!((axis.cells, axis.hours_per_cell), (4, 1));
        let b = |at: &str, count| BucketJson {
            at: at.into(),
            count,
        };
        let line = axis.sparkline(&[b("2026-01-01T00:00:00Z", 1), b("2026-01-01T03:00:00Z", 8)]);
        assert_eq!(line, "▁  █");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
