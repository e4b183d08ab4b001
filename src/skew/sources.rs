//! Pure: clock readings from what the user says and what the cluster already
//! records. Every function takes the reference instant `now` as a parameter and
//! returns [`ClockReading`]s (offset from `now` ± uncertainty) plus findings.
//!
//! Which clock writes what (docs/skew.md has the full story):
//! * `Lease.spec.renewTime` is written by the lease holder from *its own* clock,
//!   as a MicroTime (component-helpers `apimachinery/lease/controller.go`).
//! * `metadata.managedFields[].time` is stamped by the API server that stores the
//!   update, from *its* clock, truncated to whole seconds
//!   (apimachinery `pkg/util/managedfields/internal/managedfieldsupdater.go`).
//! * Node `status.conditions[].lastHeartbeatTime` is the kubelet's clock, whole
//!   seconds (pkg/kubelet/nodestatus/setters.go).
//! * An HTTP `Date` header is the server's clock truncated to the second when the
//!   response headers are written (Go net/http).
//!
//! Over 800 lines: one small reader per clock source (flags, node and API
//! server Leases, Node heartbeats, a token's iat), kept together because they
//! share one reading-and-uncertainty model.

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::Value;

use super::{ClockReading, ClockSource, TokenTimes, offset_text, plus_minus, seconds_text};
use crate::findings::{Code, Finding};
use crate::input::shape::json_type_name;
use crate::probe::offset::OffsetInterval;
use crate::timefmt::{parse_offset, rfc3339};
use crate::window::at_seconds;

/// The kubelet renews its Lease every `leaseDurationSeconds × 0.25`
/// (`nodeLeaseRenewIntervalFraction`, pkg/kubelet/kubelet.go); the duration
/// defaults to 40 s (`nodeLeaseDurationSeconds`), so every 10 s.
const NODE_LEASE_RENEW_FRACTION: i32 = 4;
const DEFAULT_NODE_LEASE_SECONDS: i64 = 40;

/// kube-apiserver renews its identity Lease every 10 s
/// (`IdentityLeaseRenewIntervalPeriod`) for 3600 s (`IdentityLeaseDurationSeconds`),
/// pkg/controlplane/instance.go.
const APISERVER_RENEW: TimeDelta = TimeDelta::seconds(10);
const DEFAULT_APISERVER_LEASE_SECONDS: i64 = 3600;

/// The identity Lease label and value (pkg/controlplane/instance.go, 1.26+).
pub const IDENTITY_LABEL: &str = "apiserver.kubernetes.io/identity";
const IDENTITY_VALUE: &str = "kube-apiserver";
const HOSTNAME_LABEL: &str = "kubernetes.io/hostname";
const NODE_LEASE_NAMESPACE: &str = "kube-node-lease";

/// A Lease or Node older than its duration plus this is a dead holder, not a
/// skewed clock.
pub const STALE_GRACE: TimeDelta = TimeDelta::seconds(40);

/// The kubelet posts Node status only when it changes or every
/// `nodeStatusReportFrequency` (5 min by default since 1.13, when Leases took
/// over heartbeats: pkg/kubelet/apis/config/v1beta1/defaults.go).
const NODE_STATUS_REPORT: TimeDelta = TimeDelta::minutes(5);

/// No real clock is further off than this; bigger offsets are typing errors (and
/// would overflow date arithmetic).
const MAX_CLOCK_OFFSET: TimeDelta = TimeDelta::days(36_525);

/// Half of the whole second managedFields and Date truncate to.
const HALF_SECOND: TimeDelta = TimeDelta::milliseconds(500);

/// Slack for the time between `kubectl get` listing and this tool reading the
/// list, when piped.
const LISTING_SLACK: TimeDelta = TimeDelta::milliseconds(500);

/// A clock source's input could not be used at all (exit code 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    #[error("{what} is not JSON ({detail}): give the output of `{expected}`")]
    Json {
        what: String,
        expected: &'static str,
        detail: String,
    },
    #[error("{what} is not `{expected}` output: {detail}")]
    Shape {
        what: String,
        expected: &'static str,
        detail: String,
    },
    #[error("--clock {0:?} is given twice")]
    DuplicateClock(String),
    #[error("--clock name {0:?} is reserved for the reference clock; choose another name")]
    ReservedClockName(String),
    #[error("--clock {0:?} is more than 100 years from the reference clock")]
    OffsetOutOfRange(String),
}

/// `--clock NAME=VALUE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClockSpec {
    pub name: String,
    pub value: ClockValue,
}

/// What a `--clock` says about its clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockValue {
    /// That clock's reading at the reference instant.
    At(DateTime<Utc>),
    /// That clock minus the reference clock.
    Offset(TimeDelta),
}

/// The clap value parser for `--clock`: `NAME=RFC3339` or `NAME=±DURATION`.
pub fn parse_clock_spec(text: &str) -> Result<ClockSpec, String> {
    // An error quotes the value or a part of it; a part of a token is not
    // recognisable as one, so a value that holds a token is quoted by none.
    clock_spec(text).map_err(|e| match crate::redact::redact(text) {
        std::borrow::Cow::Owned(_) => "the value holds what looks like a token, and is not NAME=TIME or NAME=OFFSET (node-a=2026-01-01T00:01:30Z, node-a=+90s, node-a=-1m30s)".to_owned(),
        std::borrow::Cow::Borrowed(_) => e,
    })
}

fn clock_spec(text: &str) -> Result<ClockSpec, String> {
    let usage = || {
        format!(
            "{text:?} is not NAME=TIME or NAME=OFFSET (node-a=2026-01-01T00:01:30Z, node-a=+90s, node-a=-1m30s)"
        )
    };
    let (name, value) = text.split_once('=').ok_or_else(usage)?;
    let (name, value) = (name.trim(), value.trim());
    if name.is_empty() || value.is_empty() {
        return Err(usage());
    }
    let value = if value.starts_with(['+', '-']) || !value.contains([':', 'T']) {
        ClockValue::Offset(parse_offset(value)?)
    } else {
        ClockValue::At(
            DateTime::parse_from_rfc3339(value)
                .map_err(|e| format!("{value:?} is not an RFC 3339 time: {e}"))?
                .with_timezone(&Utc),
        )
    };
    Ok(ClockSpec {
        name: name.to_owned(),
        value,
    })
}

/// Readings for `--clock` flags, against the reference instant `now`.
pub fn from_specs(
    specs: &[ClockSpec],
    now: DateTime<Utc>,
) -> Result<Vec<ClockReading>, SourceError> {
    let mut readings: Vec<ClockReading> = Vec::with_capacity(specs.len());
    for spec in specs {
        if spec.name == super::REFERENCE_NAME {
            return Err(SourceError::ReservedClockName(spec.name.clone()));
        }
        if readings.iter().any(|r| r.name == spec.name) {
            return Err(SourceError::DuplicateClock(spec.name.clone()));
        }
        let offset = match spec.value {
            ClockValue::At(at) => at - now,
            ClockValue::Offset(offset) => offset,
        };
        if offset.abs() > MAX_CLOCK_OFFSET {
            return Err(SourceError::OffsetOutOfRange(spec.name.clone()));
        }
        readings.push(ClockReading::exact(
            spec.name.clone(),
            ClockSource::Flag,
            offset,
        ));
    }
    Ok(readings)
}

/// An offset with its uncertainty, for a clock that is not itself a row.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Estimate {
    /// That clock minus the reference clock.
    pub offset: TimeDelta,
    /// Half-width of the interval around `offset`.
    pub uncertainty: TimeDelta,
}

/// What one source yielded.
#[derive(Debug, Clone, Default)]
pub struct Observation {
    /// One reading per live node or API server.
    pub readings: Vec<ClockReading>,
    /// Skipped items, stale holders, precision notes.
    pub findings: Vec<Finding>,
    /// The API server(s) that stored the node Leases, against the reference clock
    /// (from the age of their managedFields stamps). `--nodes` reuses it.
    pub apiserver: Option<Estimate>,
}

/// Readings from `kubectl get leases -n kube-node-lease -o json` (node Leases),
/// which may also hold the API server identity Leases of `kube-system`.
pub fn from_leases(
    text: &str,
    what: &str,
    now: DateTime<Utc>,
    leeway: TimeDelta,
) -> Result<Observation, SourceError> {
    let expected = "kubectl get leases -n kube-node-lease -o json";
    let items = list_items(text, "Lease", what, expected)?;
    let mut obs = Observation::default();
    let mut nodes: Vec<LeaseItem> = Vec::new();
    let (mut total, mut stale, mut others, mut without_fields) = (0, 0, Vec::new(), 0);
    for (index, item) in items.iter().enumerate() {
        let Ok(lease) = read_lease(item, index + 1).inspect_err(|r| obs.findings.push(skipped(r)))
        else {
            continue;
        };
        let Some(lease) = lease else {
            others.push(item_label(item, index + 1));
            continue;
        };
        total += 1;
        let last = lease
            .kubelet_stamp
            .map_or(lease.renew, |m| m.max(lease.renew));
        let age = now - last;
        if age > lease.duration + STALE_GRACE {
            stale += 1;
            obs.findings.push(Finding::warning(
                Code::NodeDown,
                format!(
                    "{} {}: its Lease was last renewed {} ago (renewTime {}), more than its {}s duration + {}s: {}; not counted as a clock",
                    if lease.apiserver { "API server" } else { "node" },
                    lease.name,
                    seconds_text(age),
                    rfc3339(lease.renew),
                    lease.duration.num_seconds(),
                    STALE_GRACE.num_seconds(),
                    if lease.apiserver {
                        "that API server has stopped (its Lease is garbage-collected later)"
                    } else {
                        "the node or its kubelet is down (or cannot reach the API server), which is not clock skew"
                    },
                ),
            ));
            continue;
        }
        if lease.apiserver {
            // Self-stamped through the loopback client, so managedFields says
            // nothing new: only renewTime's age places this clock.
            obs.readings
                .push(age_reading(&lease, ClockSource::ApiserverLease, now));
        } else {
            without_fields += usize::from(lease.kubelet_stamp.is_none());
            nodes.push(lease);
        }
    }

    // The stamping API server against the reference: each stamp s ∈ [M, M+1)
    // was taken at a reference instant within the last renew interval.
    let per_lease: Vec<Estimate> = nodes
        .iter()
        .filter_map(|n| {
            let m = n.kubelet_stamp?;
            let half = (TimeDelta::seconds(1) + n.renew_interval()) / 2;
            Some(Estimate {
                offset: m + half - now,
                uncertainty: half + LISTING_SLACK,
            })
        })
        .collect();
    obs.apiserver = median(per_lease);

    let mut kubelets = Vec::new();
    for node in &nodes {
        let reading = match (node.kubelet_stamp, obs.apiserver) {
            (Some(m), Some(apiserver)) => {
                // kubelet − API server ≈ renewTime − (M + 0.5 s), ±1 s: 0.5 s of
                // truncation plus the request's trip from kubelet to API server.
                let kubelet = node.renew - (m + HALF_SECOND);
                kubelets.push((node.name.clone(), kubelet));
                if kubelet.abs() > leeway {
                    obs.findings.push(kubelet_skew(
                        &node.name,
                        kubelet,
                        TimeDelta::seconds(1),
                        "spec.renewTime",
                        node.renew,
                        m,
                    ));
                }
                ClockReading {
                    name: node.name.clone(),
                    source: ClockSource::NodeLease,
                    offset: kubelet + apiserver.offset,
                    uncertainty: TimeDelta::seconds(1) + apiserver.uncertainty,
                }
            }
            _ => age_reading(node, ClockSource::NodeLease, now),
        };
        obs.readings.push(reading);
    }

    let offsets = kubelet_offsets(kubelets, "spec.renewTime", TimeDelta::seconds(1));
    obs.findings.extend(offsets);
    if without_fields > 0 {
        obs.findings.push(Finding::info(
            Code::NoManagedFields,
            format!(
                "{without_fields} node Lease(s) carry no managedFields (kubectl hides them unless --show-managed-fields): those kubelets are placed from renewTime's age alone, to about {}, instead of against the API server to ± 1 s",
                plus_minus(
                    TimeDelta::seconds(DEFAULT_NODE_LEASE_SECONDS) / NODE_LEASE_RENEW_FRACTION / 2
                        + LISTING_SLACK
                )
            ),
        ));
    }
    if !others.is_empty() {
        obs.findings.push(Finding::info(
            Code::ItemSkipped,
            format!(
                "skipped {} Lease(s) that are neither node Leases (kube-node-lease) nor API server identity Leases ({IDENTITY_LABEL}={IDENTITY_VALUE}): {}",
                others.len(),
                list_some(&others)
            ),
        ));
    }
    if total > 0 && stale == total {
        obs.findings.push(Finding::warning(
            Code::SnapshotOld,
            format!(
                "every Lease in {what} is stale at the reference time {}: if the file was saved earlier, pass --now with the time it was captured",
                rfc3339(now)
            ),
        ));
    }
    Ok(obs)
}

/// Readings from `kubectl get nodes -o json`: each kubelet's condition heartbeat
/// against the API server's managedFields stamp of the same status update.
/// `apiserver` (from `--leases`) places those API servers against the reference;
/// without it they are assumed to agree with it, and a finding says so.
pub fn from_nodes(
    text: &str,
    what: &str,
    now: DateTime<Utc>,
    leeway: TimeDelta,
    apiserver: Option<Estimate>,
) -> Result<Observation, SourceError> {
    let items = list_items(text, "Node", what, "kubectl get nodes -o json")?;
    let mut obs = Observation::default();
    let mut without_fields = Vec::new();
    let mut kubelets = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let Ok(node) = read_node(item, index + 1).inspect_err(|r| obs.findings.push(skipped(r)))
        else {
            continue;
        };
        let Some(stamp) = node.kubelet_stamp else {
            without_fields.push(node.name);
            continue;
        };
        let age = now - stamp.max(node.heartbeat);
        if node.ready_unknown || age > NODE_STATUS_REPORT + STALE_GRACE {
            obs.findings.push(Finding::warning(
                Code::NodeDown,
                format!(
                    "node {}: {}last heartbeat {} ago ({}): the node or its kubelet is down, which is not clock skew; not counted as a clock",
                    node.name,
                    if node.ready_unknown { "Ready is Unknown, " } else { "" },
                    seconds_text(age),
                    rfc3339(node.heartbeat),
                ),
            ));
            continue;
        }
        // Both stamps are whole seconds, taken at the same status update: ±2 s.
        let kubelet = node.heartbeat - stamp;
        let uncertainty = TimeDelta::seconds(2);
        kubelets.push((node.name.clone(), kubelet));
        if kubelet.abs() > leeway {
            obs.findings.push(kubelet_skew(
                &node.name,
                kubelet,
                uncertainty,
                "lastHeartbeatTime",
                node.heartbeat,
                stamp,
            ));
        }
        let base = apiserver.unwrap_or_default();
        obs.readings.push(ClockReading {
            name: node.name,
            source: ClockSource::NodeStatus,
            offset: kubelet + base.offset,
            uncertainty: uncertainty + base.uncertainty,
        });
    }
    let offsets = kubelet_offsets(kubelets, "lastHeartbeatTime", TimeDelta::seconds(2));
    obs.findings.extend(offsets);
    if !obs.readings.is_empty() {
        obs.findings.push(Finding::info(
            Code::CoarseClock,
            if apiserver.is_some() {
                "--nodes is coarse: heartbeats and managedFields are whole seconds, so each kubelet is placed to ± 2 s against the API server that stored its status; that API server is placed against the reference through the Lease stamps".to_owned()
            } else {
                format!(
                    "--nodes is coarse: heartbeats and managedFields are whole seconds, so each kubelet is placed to ± 2 s against the API server that stored its status, and the kubelet posts status only every {} or so, too rarely to place that API server against the reference: the table assumes it agrees with the reference clock (add --leases to measure it)",
                    seconds_text(NODE_STATUS_REPORT)
                )
            },
        ));
    }
    if !without_fields.is_empty() {
        obs.findings.push(Finding::warning(
            Code::NoManagedFields,
            format!(
                "{} Node(s) carry no kubelet managedFields entry (kubectl hides managedFields unless --show-managed-fields), so their clocks cannot be measured: {}",
                without_fields.len(),
                list_some(&without_fields)
            ),
        ));
    }
    Ok(obs)
}

/// With no other source: the issuing API server's clock from the token's `iat`,
/// assuming the token was minted moments ago. Only a token issued within the
/// leeway of our clock is used: an older `iat` says more about when the token was
/// minted than about anyone's clock, and a clock behind ours by less than the
/// leeway rejects nothing.
pub fn from_token_iat(
    token: &TokenTimes,
    now: DateTime<Utc>,
    leeway: TimeDelta,
) -> (Option<ClockReading>, Finding) {
    let issued = token
        .claims
        .issued_at
        .filter(|_| token.time_checked)
        .map(at_seconds);
    let (reading, message) = match issued {
        None => (
            None,
            "no clock source given and the token has no checked iat: only the reference clock is judged (add --clock, --leases or --nodes)".to_owned(),
        ),
        Some(issued) if now - issued > leeway => (
            None,
            format!(
                "no clock source given, and the token was issued {} before the reference time: too old to estimate the issuing API server's clock from its iat (that works only for a token issued seconds ago); add --clock, --leases or --nodes",
                seconds_text(now - issued)
            ),
        ),
        Some(issued) => {
            // iat is truncated to the second: the minting instant is in [iat, iat + 1).
            let offset = issued + HALF_SECOND - now;
            let reading = ClockReading {
                name: "token issuer".to_owned(),
                source: ClockSource::TokenIat,
                offset,
                uncertainty: TimeDelta::seconds(1),
            };
            let message = format!(
                "no clock source given: the issuing API server's clock is estimated from the token's iat as {} ± 1 s from the reference clock; this holds only if the token was issued seconds ago (e.g. piped straight from kubectl create token)",
                offset_text(offset)
            );
            (Some(reading), message)
        }
    };
    (reading, Finding::info(Code::IatEstimate, message))
}

/// A server's clock from the `Date` headers of its responses (`--server`): the
/// interval [`crate::probe::offset::estimate`] derives, as a reading.
pub fn from_date_interval(name: impl Into<String>, interval: OffsetInterval) -> ClockReading {
    ClockReading {
        name: name.into(),
        source: ClockSource::HttpDate,
        offset: interval.estimate(),
        uncertainty: interval.uncertainty(),
    }
}

struct LeaseItem {
    name: String,
    apiserver: bool,
    renew: DateTime<Utc>,
    duration: TimeDelta,
    /// The kubelet's managedFields time (node Leases only).
    kubelet_stamp: Option<DateTime<Utc>>,
}

impl LeaseItem {
    fn renew_interval(&self) -> TimeDelta {
        if self.apiserver {
            APISERVER_RENEW
        } else {
            self.duration / NODE_LEASE_RENEW_FRACTION
        }
    }
}

/// A reading from renewTime's age alone: renewed within the last renew
/// interval, so the clock is in `[renew − now, renew − now + interval]`.
fn age_reading(lease: &LeaseItem, source: ClockSource, now: DateTime<Utc>) -> ClockReading {
    let interval = lease.renew_interval();
    ClockReading {
        name: lease.name.clone(),
        source,
        offset: lease.renew - now + interval / 2,
        uncertainty: interval / 2 + LISTING_SLACK,
    }
}

fn kubelet_skew(
    name: &str,
    kubelet: TimeDelta,
    uncertainty: TimeDelta,
    field: &str,
    kubelet_time: DateTime<Utc>,
    stamp: DateTime<Utc>,
) -> Finding {
    Finding::warning(
        Code::KubeletClockSkew,
        format!(
            "node {name}: the kubelet's clock is {} {} {} the API server that stored its update ({field} {} vs managedFields time {}); the kubelet times token refreshes by its own clock",
            crate::timefmt::span(crate::timefmt::as_seconds_f64(kubelet.abs())),
            plus_minus(uncertainty),
            if kubelet > TimeDelta::zero() {
                "ahead of"
            } else {
                "behind"
            },
            rfc3339(kubelet_time),
            rfc3339(stamp),
        ),
    )
}

/// One line listing each kubelet's offset from its API server, largest first.
fn kubelet_offsets(
    mut kubelets: Vec<(String, TimeDelta)>,
    field: &str,
    precision: TimeDelta,
) -> Option<Finding> {
    const SHOWN: usize = 8;
    if kubelets.is_empty() {
        return None;
    }
    kubelets.sort_by_key(|(_, offset)| std::cmp::Reverse(offset.abs()));
    let mut text = kubelets
        .iter()
        .take(SHOWN)
        .map(|(name, offset)| format!("{name} {}", offset_text(*offset)))
        .collect::<Vec<_>>()
        .join(", ");
    if let Some((_, largest_rest)) = kubelets.get(SHOWN) {
        text.push_str(&format!(
            " and {} more within {}",
            kubelets.len() - SHOWN,
            plus_minus(largest_rest.abs())
        ));
    }
    Some(Finding::info(
        Code::KubeletOffsets,
        format!(
            "kubelet clock minus the API server that stored its update ({field} vs managedFields time, {}): {text}",
            plus_minus(precision)
        ),
    ))
}

fn median(mut sorted: Vec<Estimate>) -> Option<Estimate> {
    sorted.sort_by_key(|e| e.offset);
    let middle = *sorted.get(sorted.len().checked_sub(1)? / 2)?;
    let uncertainty = sorted.iter().map(|e| e.uncertainty).max()?;
    Some(Estimate {
        offset: middle.offset,
        uncertainty,
    })
}

/// The items of `text`: a `List` (or `LeaseList`, `NodeList`), or one object of `kind`.
fn list_items(
    text: &str,
    kind: &str,
    what: &str,
    expected: &'static str,
) -> Result<Vec<Value>, SourceError> {
    let doc: Value = serde_json::from_str(text).map_err(|e| SourceError::Json {
        what: what.to_owned(),
        expected,
        detail: e.to_string(),
    })?;
    let shape = |detail: String| SourceError::Shape {
        what: what.to_owned(),
        expected,
        detail,
    };
    let Value::Object(mut map) = doc else {
        return Err(shape(format!(
            "expected a List object with items, found {}",
            json_type_name(&doc)
        )));
    };
    match (map.remove("items"), map.get("kind").and_then(Value::as_str)) {
        (Some(Value::Array(items)), _) => Ok(items),
        (Some(other), _) => Err(shape(format!(
            "items is {}, not an array",
            json_type_name(&other)
        ))),
        (None, Some(k)) if k == kind => Ok(vec![Value::Object(map)]),
        (None, Some(k)) => Err(shape(format!(
            "expected a List with items, found kind {k:?}"
        ))),
        (None, None) => Err(shape(
            "expected a List with items, found an object without kind or items".to_owned(),
        )),
    }
}

fn item_name(item: &Value) -> Option<&str> {
    item.pointer("/metadata/name").and_then(Value::as_str)
}

fn item_label(item: &Value, index: usize) -> String {
    let name = item_name(item);
    let namespace = item.pointer("/metadata/namespace").and_then(Value::as_str);
    match (namespace, name) {
        (Some(ns), Some(name)) => format!("item {index} ({ns}/{name})"),
        (None, Some(name)) => format!("item {index} ({name})"),
        _ => format!("item {index}"),
    }
}

fn skipped(reason: &str) -> Finding {
    Finding::warning(Code::ItemSkipped, format!("skipped {reason}"))
}

fn list_some(names: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut text = names[..names.len().min(SHOWN)].join(", ");
    if names.len() > SHOWN {
        text.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    text
}

/// The time at JSON `pointer` in `item`; `field` names it in messages.
fn time_field(
    item: &Value,
    pointer: &str,
    label: &str,
    field: &str,
) -> Result<DateTime<Utc>, String> {
    match item.pointer(pointer) {
        None | Some(Value::Null) => Err(format!("{label}: {field} is missing")),
        Some(Value::String(s)) => DateTime::parse_from_rfc3339(s)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|_| format!("{label}: {field} {s:?} is not an RFC 3339 time")),
        Some(other) => Err(format!(
            "{label}: {field} is {}, not a time",
            json_type_name(other)
        )),
    }
}

/// Checks `kind` and returns the item's label and name.
fn check_kind<'a>(item: &'a Value, index: usize, kind: &str) -> Result<(String, &'a str), String> {
    let label = item_label(item, index);
    if !item.is_object() {
        return Err(format!(
            "{label}: it is {}, not an object",
            json_type_name(item)
        ));
    }
    if let Some(other) = item.get("kind").filter(|k| k.as_str() != Some(kind)) {
        return Err(format!("{label}: kind is {other}, not {kind:?}"));
    }
    match item_name(item) {
        Some(name) => Ok((label, name)),
        None => Err(format!("{label}: metadata.name is missing")),
    }
}

/// The latest managedFields time of a kubelet `Update`, optionally only for
/// entries that manage `status`. `Ok(None)` when there is no such entry.
fn kubelet_stamp(
    item: &Value,
    label: &str,
    status_only: bool,
) -> Result<Option<DateTime<Utc>>, String> {
    let Some(entries) = item.pointer("/metadata/managedFields") else {
        return Ok(None);
    };
    let Some(entries) = entries.as_array() else {
        return Err(format!("{label}: metadata.managedFields is not an array"));
    };
    let mut latest: Option<DateTime<Utc>> = None;
    for entry in entries {
        let text = |key: &str| entry.get(key).and_then(Value::as_str).unwrap_or("");
        // The field manager comes from the kubelet's user agent: "kubelet".
        if !text("manager").starts_with("kubelet") || text("operation") != "Update" {
            continue;
        }
        let manages_status =
            text("subresource") == "status" || entry.pointer("/fieldsV1/f:status").is_some();
        if status_only && !manages_status {
            continue;
        }
        let time = time_field(entry, "/time", label, "metadata.managedFields[].time")?;
        latest = latest.max(Some(time));
    }
    Ok(latest)
}

/// `Ok(None)`: a Lease of another kind (leader election…), not an error.
fn read_lease(item: &Value, index: usize) -> Result<Option<LeaseItem>, String> {
    let (label, lease_name) = check_kind(item, index, "Lease")?;
    let namespace = item.pointer("/metadata/namespace").and_then(Value::as_str);
    let labels = item.pointer("/metadata/labels");
    let label_value = |key: &str| labels.and_then(|l| l.get(key)).and_then(Value::as_str);
    let apiserver = label_value(IDENTITY_LABEL) == Some(IDENTITY_VALUE);
    if !apiserver && namespace != Some(NODE_LEASE_NAMESPACE) {
        return Ok(None);
    }
    let holder = item.pointer("/spec/holderIdentity").and_then(Value::as_str);
    let name = if apiserver {
        // The holder is "<APIServerID>_<uuid>" (pkg/controlplane/instance.go); its
        // host label is the readable part of that identity.
        match label_value(HOSTNAME_LABEL) {
            Some(host) => format!("apiserver/{host}"),
            None => holder
                .and_then(|h| h.split('_').next())
                .unwrap_or(lease_name)
                .to_owned(),
        }
    } else {
        holder.unwrap_or(lease_name).to_owned()
    };
    let renew = time_field(item, "/spec/renewTime", &label, "spec.renewTime")?;
    let duration = match item.pointer("/spec/leaseDurationSeconds") {
        None | Some(Value::Null) if apiserver => DEFAULT_APISERVER_LEASE_SECONDS,
        None | Some(Value::Null) => DEFAULT_NODE_LEASE_SECONDS,
        Some(v) => v
            .as_i64()
            .filter(|d| (1..=366 * 86_400).contains(d))
            .ok_or_else(|| {
                format!("{label}: spec.leaseDurationSeconds {v} is not a positive integer")
            })?,
    };
    let kubelet_stamp = if apiserver {
        None
    } else {
        kubelet_stamp(item, &label, false)?
    };
    Ok(Some(LeaseItem {
        name,
        apiserver,
        renew,
        duration: TimeDelta::seconds(duration),
        kubelet_stamp,
    }))
}

struct NodeItem {
    name: String,
    heartbeat: DateTime<Utc>,
    ready_unknown: bool,
    kubelet_stamp: Option<DateTime<Utc>>,
}

fn read_node(item: &Value, index: usize) -> Result<NodeItem, String> {
    let (label, name) = check_kind(item, index, "Node")?;
    let Some(conditions) = item.pointer("/status/conditions").and_then(Value::as_array) else {
        return Err(format!("{label}: status.conditions is missing"));
    };
    let mut heartbeat: Option<DateTime<Utc>> = None;
    let mut ready_unknown = false;
    for condition in conditions {
        let kind = condition.get("type").and_then(Value::as_str);
        if kind == Some("Ready") {
            ready_unknown = condition.get("status").and_then(Value::as_str) == Some("Unknown");
        }
        if condition.get("lastHeartbeatTime").is_some() {
            let at = time_field(
                condition,
                "/lastHeartbeatTime",
                &label,
                "status.conditions[].lastHeartbeatTime",
            )?;
            heartbeat = heartbeat.max(Some(at));
        }
    }
    let heartbeat =
        heartbeat.ok_or_else(|| format!("{label}: no condition has a lastHeartbeatTime"))?;
    Ok(NodeItem {
        name: name.to_owned(),
        heartbeat,
        ready_unknown,
        kubelet_stamp: kubelet_stamp(item, &label, true)?,
    })
}

#[cfg(test)]
mod tests;
