//! Pure: the merged aggregate in, the fleet view out. Each group becomes one
//! finding: its identity (for 401s, attributed by source IP and user agent,
//! and marked as a guess), one engine [`Case`] built from the group's
//! evidence and diagnosed once, and its timeline. Causes and next steps come
//! from the engine's cause definitions, as in `probe`, `classify` and `doctor`.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::aggregate::{Aggregate, Client, ForbiddenKey, Group, GroupKey, ObjectEvent, Seen};
use super::event::Micros;
use super::{
    ApiserverLog, Attribution, AuditReport, Credential, Finding, FindingKind, Followed, Identity,
    Joined, MAX_FINDINGS, Other, Reasons, instant,
};
use crate::diagnosis::facts::RequestInfo;
use crate::diagnosis::facts::{
    Answer, AnswerOrigin, BindingKind, BindingTarget, Case, HttpAnswer, ObjectChange, ObjectSeen,
    ReasonSource,
};
use crate::diagnosis::forbidden::{ANONYMOUS, Forbidden, service_account_of};
use crate::diagnosis::reasons::{self, AuthReason};
use crate::diagnosis::{self, Cause, Support, SupportKind};
use crate::logs::{Join, ReasonIndex, WINDOW};
use crate::timefmt::rfc3339;

/// A client as the attribution sees it: who, which pod, and its tallies.
struct Known<'a> {
    user: &'a str,
    pod: &'a str,
    client: &'a Client,
}

pub fn analyse(
    agg: Aggregate,
    index: Option<&ReasonIndex>,
    sources: Vec<String>,
    bytes: u64,
    now: DateTime<Utc>,
    leeway: chrono::TimeDelta,
) -> AuditReport {
    let mut by_origin: HashMap<(&str, &str), Vec<Known<'_>>> = HashMap::new();
    let mut history = History::default();
    for (key, client) in &agg.clients {
        let [ip, agent, user, pod] = key.splitn(4, '\0').collect::<Vec<_>>()[..] else {
            continue;
        };
        by_origin
            .entry((ip, agent))
            .or_default()
            .push(Known { user, pod, client });
        history.add(user, pod, client);
    }
    let mut objects = agg.objects.clone();
    objects.sort();
    // The most impact first; past MAX_FINDINGS the rest fold into `other`.
    let mut ranked: Vec<(&GroupKey, &Group)> = agg.groups.iter().collect();
    ranked.sort_by_key(|&(k, g)| (kind_of(k).tier(), std::cmp::Reverse(g.seen.count), k));
    let folded = ranked.split_off(ranked.len().min(MAX_FINDINGS));
    // With the events of groups past the aggregation's budget, never kept.
    let other = Other {
        identities: folded.len() as u64,
        events: folded.iter().map(|(_, g)| g.seen.count).sum::<u64>() + agg.dropped_groups,
    };
    let mut findings: Vec<Finding> = ranked
        .into_iter()
        .map(|(key, group)| finding(key, group, &by_origin, &history, &objects, index, leeway))
        .collect();
    let rank = |f: &Finding| (f.kind.tier(), std::cmp::Reverse(f.seen.count));
    findings.sort_by(|a, b| (rank(a), &a.key).cmp(&(rank(b), &b.key)));
    let mut notes = Vec::new();
    if other.events > 0 {
        notes.push(other_note(&other));
    }
    for (dropped, what) in [
        (
            agg.dropped_groups,
            "events of further failing or stale identities are counted but not listed",
        ),
        (
            agg.dropped_clients,
            "accepted requests of further clients were not kept for attributing 401s",
        ),
        (agg.dropped_objects, "deletions and creations were not kept"),
    ] {
        if dropped > 0 {
            notes.push(format!(
                "over the {} MiB the aggregation keeps: {dropped} {what}",
                super::aggregate::AGGREGATE_BYTES >> 20
            ));
        }
    }
    if agg.dropped_mints > 0 {
        notes.push(format!(
            "over {} TokenRequest events: {} further ones were not indexed, so their credentials show no minting event",
            super::mint::MAX_MINTS,
            agg.dropped_mints
        ));
    }
    let credentials = credentials(&findings, &agg);
    let followed = agg.follow.clone().map(|f| Followed {
        mint: agg.mints.get(f.id.as_str()).cloned(),
        ..f
    });
    if agg.not_events > 0 {
        notes.push(format!(
            "{} lines were not audit events (skipped)",
            agg.not_events
        ));
    }
    if let Some(i) = index {
        if i.undated > 0 {
            notes.push(format!(
                "{} API server failure lines had no timestamp and were not joined",
                i.undated
            ));
        }
        if i.dropped > 0 {
            notes.push(format!(
                "over {} API server failure lines: {} were not kept for the join",
                crate::logs::MAX_LINES,
                i.dropped
            ));
        }
    }
    AuditReport {
        evaluated_at: now,
        sources,
        bytes,
        lines: agg.lines,
        events: agg.events,
        not_events: agg.not_events,
        by_code: agg.by_code.clone(),
        span: agg.span.map(|(f, l)| (instant(f), instant(l))),
        findings,
        apiserver: index.map(|i| ApiserverLog {
            lines: i.read,
            failures: i.failures,
        }),
        mints: agg.mints.len() as u64,
        credentials,
        followed,
        other,
        notes,
    }
}

/// The kind of finding a group makes (the diagnosis may still tell a 403
/// from RBAC apart from another).
fn kind_of(key: &GroupKey) -> FindingKind {
    match key {
        GroupKey::Unauthorized { .. } => FindingKind::Unauthorized,
        GroupKey::Anonymous { .. } => FindingKind::Anonymous,
        GroupKey::Forbidden(f) if f.rbac => FindingKind::Forbidden,
        GroupKey::Forbidden(_) => FindingKind::ForbiddenOther,
        GroupKey::Stale { .. } => FindingKind::StaleToken,
        GroupKey::Legacy { .. } => FindingKind::LegacyToken,
    }
}

pub fn other_note(other: &Other) -> String {
    format!(
        "{} more failing or stale identities ({} events, with those past the aggregation's memory) are over the {MAX_FINDINGS} findings listed: counted in `other` and the totals, not listed",
        other.identities, other.events
    )
}

/// Every credential id the findings name, with its minting event.
fn credentials(findings: &[Finding], agg: &Aggregate) -> Vec<Credential> {
    let mut by_id: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
    for f in findings {
        for id in &f.identity.credential_ids.items {
            by_id.entry(id).or_default().push(f.key.clone());
        }
    }
    by_id
        .into_iter()
        .map(|(id, findings)| Credential {
            id: id.to_owned(),
            mint: agg.mints.get(id).cloned(),
            findings,
        })
        .collect()
}

type UidSeen<'a> = (&'a str, Seen);

/// Every uid each ServiceAccount user and each pod was seen with.
#[derive(Default)]
struct History<'a> {
    sa: HashMap<&'a str, Vec<UidSeen<'a>>>,
    pods: HashMap<(&'a str, &'a str), Vec<UidSeen<'a>>>,
}

impl<'a> History<'a> {
    fn add(&mut self, user: &'a str, pod: &'a str, c: &'a Client) {
        let put = |list: &mut Vec<UidSeen<'a>>, values: &'a [(String, Seen)]| {
            for (uid, seen) in values {
                match list.iter_mut().find(|(u, _)| u == uid) {
                    Some((_, s)) => s.merge(seen),
                    None => list.push((uid, *seen)),
                }
            }
        };
        if user.starts_with("system:serviceaccount:") {
            put(self.sa.entry(user).or_default(), &c.uids);
        }
        if !pod.is_empty() {
            put(self.pods.entry((user, pod)).or_default(), &c.pod_uids);
        }
    }

    /// The uid seen last, with when it was first seen, if it is not `mine`.
    fn newer(list: Option<&Vec<UidSeen<'a>>>, mine: &str) -> Option<(String, Micros)> {
        let (uid, seen) = list?.iter().max_by_key(|(_, s)| s.last)?;
        (*uid != mine && !mine.is_empty()).then(|| (uid.to_string(), seen.first))
    }
}

/// The uid a client used last.
fn last_value(list: &[(String, Seen)]) -> &str {
    list.iter()
        .max_by_key(|(_, s)| s.last)
        .map_or("", |(v, _)| v.as_str())
}

fn finding(
    key: &GroupKey,
    g: &Group,
    by_origin: &HashMap<(&str, &str), Vec<Known<'_>>>,
    history: &History<'_>,
    objects: &[ObjectEvent],
    index: Option<&ReasonIndex>,
    leeway: chrono::TimeDelta,
) -> Finding {
    let mut identity = Identity {
        user: g.users.items.first().cloned(),
        attribution: Attribution::Exact,
        pods: g.pods.clone(),
        nodes: g.nodes.clone(),
        source_ips: g.source_ips.clone(),
        user_agents: g.user_agents.clone(),
        credential_ids: g.credential_ids.clone(),
    };
    let message = g
        .example
        .message
        .as_deref()
        .map(|m| crate::redact::redact(m).into_owned());
    let mut case = Case {
        leeway,
        ..Case::default()
    };
    let mut request = None;
    let mut reasons_out = None;
    let mut escalation = None;
    let kind = kind_of(key);
    let key_text = match key {
        GroupKey::Unauthorized {
            source_ip,
            user_agent,
        } => {
            case.answer = http(401, message.clone());
            let origin = by_origin.get(&(source_ip.as_str(), user_agent.as_str()));
            let (attribution, user, seen) = attribute(origin, g);
            let alone =
                matches!(&attribution, Attribution::Guess { others, .. } if others.is_empty());
            identity.attribution = attribution;
            identity.user = user.map(|k| k.user.to_owned());
            if let Some(k) = user {
                identity.pods.add(k.pod);
                identity.nodes.add(&k.client.node);
                case.user = Some(k.user.to_owned());
                case.audit.objects = objects_seen(k, history, objects, g, seen, !alone);
            }
            case.audit.legacy_token_invalidated = g.invalidated.clone();
            if let Some(index) = index {
                let (reasons, joined) = join_reasons(g, index);
                if let Some(dominant) = reasons {
                    case.reasons = dominant;
                    case.reasons_from = Some(ReasonSource::ApiserverLog);
                    let exact = g.exact == g.reasons.values().sum::<u64>();
                    case.joined = if exact { Join::Exact } else { Join::Guess };
                }
                case.notes.push(Support::new(
                    SupportKind::ServerReason,
                    join_words(&joined, g.seen.count),
                ));
                reasons_out = Some(joined);
            }
            format!("{source_ip}|{user_agent}")
        }
        GroupKey::Anonymous {
            source_ip,
            user_agent,
        } => {
            case.answer = http(403, message.clone());
            case.user = Some(ANONYMOUS.to_owned());
            identity.user = Some(ANONYMOUS.to_owned());
            format!("{source_ip}|{user_agent}")
        }
        GroupKey::Forbidden(f) => {
            identity.user = Some(f.user.clone());
            let (info, risk, key) = forbidden(f, g, message.as_deref(), &mut case);
            escalation = risk;
            request = Some(info);
            key
        }
        GroupKey::Stale { user, pod } => {
            case.answer = http(200, None);
            case.user = Some(user.clone());
            case.audit.stale_token = g.example.annotation.clone();
            format!("{user}|{pod}")
        }
        GroupKey::Legacy { user, secret: s } => {
            case.answer = http(200, None);
            case.user = Some(user.clone());
            case.audit.legacy_token = g.example.annotation.clone();
            case.audit.legacy_secret = (!s.is_empty()).then(|| s.clone());
            format!("{user}|{s}")
        }
    };
    let key_text = format!("{}|{key_text}", kind.as_str());
    crate::diagnosis::extract::read_answer(&mut case, "the audit log");
    let diagnosis = diagnosis::diagnose(&case);
    // The authorization sentence is every authorizer's: whose refusal it was
    // is the engine's finding.
    let kind = match diagnosis.cause() {
        Cause::RbacDenied | Cause::RbacRoleMissing => kind,
        _ if kind == FindingKind::Forbidden => FindingKind::ForbiddenOther,
        _ => kind,
    };
    Finding {
        kind,
        key: key_text,
        identity,
        request,
        seen: g.seen,
        example_audit_id: g.example.audit_id.clone(),
        example_message: message,
        hours: g.hours.clone(),
        // Only a stale-token group has a `stale_since`, and only a legacy
        // one a Secret.
        stale: g
            .stale_since
            .map(|since| (g.stale_max_seconds, instant(since))),
        secret: case.audit.legacy_secret.clone(),
        reasons: reasons_out,
        escalation,
        diagnosis,
    }
}

fn http(status: u16, message: Option<String>) -> Answer {
    Answer::Http(HttpAnswer {
        status: Some(status),
        message,
        origin: AnswerOrigin::Kubernetes,
        ..HttpAnswer::default()
    })
}

/// A 403 group's case: its request, the answer as the engine reads it (one
/// message for the whole group), a grant's risk and the group's key text.
fn forbidden(
    f: &ForbiddenKey,
    g: &Group,
    message: Option<&str>,
    case: &mut Case<'_>,
) -> (RequestInfo, Option<String>, String) {
    case.user = Some(f.user.clone());
    let name = (g.names.items.len() == 1 && !g.names.more).then(|| g.names.items[0].clone());
    let info = RequestInfo {
        verb: Some(f.verb.clone()),
        resource: f.resource.clone(),
        subresource: f.subresource.clone(),
        api_group: f.api_group.clone(),
        namespace: f.namespace.clone(),
        name,
        path: f.path.clone(),
    };
    let mut escalation = None;
    let message = if f.rbac {
        // The object named only when every event named the same one.
        let reason = g.example.annotation.clone();
        let denied = Forbidden {
            user: f.user.clone(),
            request: info.clone(),
            reason,
            kubelet: false,
        };
        escalation = denied.grant_risk().map(|r| r.words());
        let shown = denied.message();
        case.refusal = Some(crate::diagnosis::extract::denial::by_authorizer(denied));
        Some(shown)
    } else {
        case.request = Some(info.clone());
        message.map(str::to_owned)
    };
    case.answer = http(403, message);
    let key = format!(
        "{}|{}|{}/{}/{}|{}|{}|{}",
        f.user,
        f.verb,
        f.api_group.as_deref().unwrap_or(""),
        f.resource.as_deref().unwrap_or(""),
        f.subresource.as_deref().unwrap_or(""),
        f.namespace.as_deref().unwrap_or(""),
        f.path.as_deref().unwrap_or(""),
        f.shape
    );
    (info, escalation, key)
}

/// The identity last accepted from a 401 group's source IP and user agent
/// before its last failure (else the last one at all), the words why, and
/// when it was last accepted.
fn attribute<'k, 'a>(
    origin: Option<&'k Vec<Known<'a>>>,
    g: &Group,
) -> (Attribution, Option<&'k Known<'a>>, Micros) {
    let Some(known) = origin.filter(|k| !k.is_empty()) else {
        return (Attribution::Unknown, None, 0);
    };
    let before = known
        .iter()
        .filter(|k| k.client.seen.first <= g.seen.last)
        .max_by_key(|k| (k.client.seen.last.min(g.seen.last), k.user, k.pod));
    let chosen = before.unwrap_or_else(|| {
        known
            .iter()
            .max_by_key(|k| (k.client.seen.last, k.user, k.pod))
            .expect("not empty")
    });
    let mut others: Vec<String> = known
        .iter()
        .map(|k| k.user.to_owned())
        .filter(|u| u != chosen.user)
        .collect();
    others.sort();
    others.dedup();
    let at = chosen.client.seen.last;
    let basis = format!(
        "the identity last accepted from this source IP and user agent (at {}){}",
        rfc3339(instant(at)),
        if others.is_empty() {
            " and the only one seen from there".to_owned()
        } else {
            format!("; {} other identities were seen from there", others.len())
        }
    );
    (Attribution::Guess { basis, others }, Some(chosen), at)
}

/// Deletions and uid changes of the objects the attributed client's token was
/// bound to, seen in the log after it was last accepted.
fn objects_seen(
    k: &Known<'_>,
    history: &History<'_>,
    objects: &[ObjectEvent],
    g: &Group,
    last_accepted: Micros,
    guessed: bool,
) -> Vec<ObjectSeen> {
    let Some((ns, name)) = service_account_of(k.user) else {
        return Vec::new();
    };
    let deleted = |resource: &str, object: &str| {
        objects
            .iter()
            .filter(|o| {
                o.verb == "delete"
                    && o.resource == resource
                    && o.namespace == ns
                    && o.name == object
                    && o.at >= last_accepted
                    && o.at <= g.seen.last
            })
            .map(|o| o.at)
            .min()
            .map(|at| ObjectChange::Deleted {
                at: rfc3339(instant(at)),
            })
    };
    let recreated = |(new_uid, at): (String, Micros)| ObjectChange::Recreated {
        new_uid,
        at: rfc3339(instant(at)),
    };
    let sa_uid = last_value(&k.client.uids);
    let sa = History::newer(history.sa.get(k.user), sa_uid)
        .map(recreated)
        .or_else(|| deleted("serviceaccounts", name));
    let mut changes = vec![(BindingKind::ServiceAccount, name, sa_uid, sa)];
    if !k.pod.is_empty() {
        let pod_uid = last_value(&k.client.pod_uids);
        let pod = deleted("pods", k.pod)
            .or_else(|| History::newer(history.pods.get(&(k.user, k.pod)), pod_uid).map(recreated));
        changes.push((BindingKind::Pod, k.pod, pod_uid, pod));
    }
    let accepted = rfc3339(instant(last_accepted));
    changes
        .into_iter()
        .filter_map(|(kind, name, uid, change)| {
            Some(ObjectSeen {
                target: BindingTarget {
                    kind,
                    namespace: ns.to_owned(),
                    name: name.to_owned(),
                    claim_uid: (!uid.is_empty()).then(|| uid.to_owned()),
                    legacy: false,
                },
                change: change?,
                last_accepted: accepted.clone(),
                guessed,
            })
        })
        .collect()
}

/// The dominant reason set of a group's joined 401s (for the engine), and
/// every joined cause with its count.
fn join_reasons(g: &Group, index: &ReasonIndex) -> (Option<Vec<AuthReason>>, Reasons) {
    let mut joined = Vec::new();
    let mut dominant: Option<(u64, u32)> = None;
    for (&set, &n) in &g.reasons {
        let Some(reasons) = index.sets.get(set as usize) else {
            continue;
        };
        let specific = reasons::specific(reasons);
        let cause = specific.first().map_or(Cause::Unknown, |r| r.cause);
        let text = reasons
            .iter()
            .map(|r| r.message.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        joined.push(Joined {
            cause,
            error: format!("[{text}]"),
            events: n,
        });
        if dominant.is_none_or(|(m, _)| n > m) {
            dominant = Some((n, set));
        }
    }
    joined.sort_by(|a, b| b.events.cmp(&a.events).then_with(|| a.error.cmp(&b.error)));
    let reasons = dominant.and_then(|(_, set)| index.sets.get(set as usize).cloned());
    (
        reasons,
        Reasons {
            joined,
            ambiguous: g.ambiguous,
            unjoined: g.unjoined,
        },
    )
}

fn join_words(r: &Reasons, events: u64) -> String {
    let joined: u64 = r.joined.iter().map(|j| j.events).sum();
    let mut text = format!(
        "{joined} of {events} 401s matched kube-apiserver \"Unable to authenticate the request\" lines within {} s (joined by time: the line names no client)",
        WINDOW / 1_000_000
    );
    if r.joined.len() > 1 {
        text.push_str(&format!(
            "; {} different reasons among them",
            r.joined.len()
        ));
    }
    if r.ambiguous > 0 {
        text.push_str(&format!(
            "; {} had lines with different reasons in reach",
            r.ambiguous
        ));
    }
    text
}
