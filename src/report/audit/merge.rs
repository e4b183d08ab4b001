//! Several shards' `audit -o json` documents merged into one (docs/audit.md,
//! "Sharded logs").

use std::collections::BTreeSet;

use super::*;

/// Counts that add up past what a u64 holds: no shards of one log do.
#[derive(Debug, thiserror::Error)]
#[error("the documents' counts add up to more than 2^64: they are not shards of one log")]
pub struct Overflow;

pub(super) fn add(into: &mut u64, n: u64) -> Result<(), Overflow> {
    *into = into.checked_add(n).ok_or(Overflow)?;
    Ok(())
}

/// Several shards' documents as one: sources and counts added up, findings
/// with the same key joined (events added, first and last widened, timelines
/// added, lists united; the diagnosis of the more confident side, else of the
/// side with more events), then ranked again. Every sum is checked.
pub fn merge(docs: Vec<AuditJson>, evaluated_at: Time) -> Result<AuditJson, Overflow> {
    let mut input = AuditInputJson::default();
    let mut span: Option<SpanJson> = None;
    let mut events = 0;
    let mut by_status: BTreeMap<String, u64> = BTreeMap::new();
    let mut findings: BTreeMap<String, FindingJson> = BTreeMap::new();
    let mut notes = Vec::new();
    let mut minting_events = 0;
    let mut credentials = BTreeMap::new();
    let mut credential = None;
    let mut other = Other::default();
    for d in docs {
        add(&mut other.identities, d.other.identities)?;
        add(&mut other.events, d.other.events)?;
        add(&mut minting_events, d.minting_events)?;
        credentials::merge_credentials(&mut credentials, d.credentials);
        credential = credentials::merge_followed(credential, d.credential)?;
        input.sources.extend(d.input.sources);
        add(&mut input.bytes, d.input.bytes)?;
        add(&mut input.lines, d.input.lines)?;
        add(&mut input.not_events, d.input.not_events)?;
        if let Some(a) = d.input.apiserver_log {
            let m = input.apiserver_log.get_or_insert_default();
            add(&mut m.lines, a.lines)?;
            add(&mut m.failures, a.failures)?;
        }
        span = match (span, d.span) {
            (Some(a), Some(b)) => Some(SpanJson {
                first: a.first.min(b.first),
                last: a.last.max(b.last),
            }),
            (a, b) => a.or(b),
        };
        add(&mut events, d.events)?;
        for (code, n) in d.by_status {
            add(by_status.entry(code).or_default(), n)?;
        }
        for f in d.findings {
            let f = match findings.remove(&f.key) {
                Some(mine) => merge_finding(mine, f)?,
                None => f,
            };
            findings.insert(f.key.clone(), f);
        }
        for n in d.notes {
            if !notes.contains(&n) {
                notes.push(n);
            }
        }
    }
    let mut findings: Vec<FindingJson> = findings.into_values().collect();
    // The summary adds the findings' events up.
    findings
        .iter()
        .try_fold(0u64, |sum, f| sum.checked_add(f.events))
        .ok_or(Overflow)?;
    findings.sort_by_cached_key(|f| (f.kind.tier(), std::cmp::Reverse(f.events), f.key.clone()));
    // Past the findings a report lists, the rest fold into `other`.
    for f in findings.split_off(findings.len().min(crate::audit::MAX_FINDINGS)) {
        add(&mut other.identities, 1)?;
        add(&mut other.events, f.events)?;
    }
    notes.retain(|n| !n.contains("counted in `other`"));
    if other.events > 0 {
        notes.push(crate::audit::analyse::other_note(&other));
    }
    Ok(AuditJson {
        input,
        evaluated_at,
        span,
        bucket_seconds: crate::logs::BUCKET_SECONDS,
        events,
        by_status,
        summary: summary(&findings),
        findings,
        minting_events,
        credentials: credentials.into_values().collect(),
        credential,
        other,
        notes,
    })
}

/// `b`'s values added to `a` (up to [`FEW`](crate::audit::aggregate::FEW)),
/// sorted; whether some did not fit.
pub(super) fn unite(a: &mut Vec<String>, b: Vec<String>) -> bool {
    let mut truncated = false;
    for v in b {
        if !a.contains(&v) {
            if a.len() < crate::audit::aggregate::FEW {
                a.push(v);
            } else {
                truncated = true;
            }
        }
    }
    a.sort();
    truncated
}

fn merge_finding(a: FindingJson, b: FindingJson) -> Result<FindingJson, Overflow> {
    let b_wins = (b.diagnosis.confidence, b.events) > (a.diagnosis.confidence, a.events);
    let (mut keep, other) = if b_wins { (b, a) } else { (a, b) };
    let first_is_other = other.first_seen < keep.first_seen;
    add(&mut keep.events, other.events)?;
    if first_is_other {
        keep.first_seen = other.first_seen.clone();
        keep.example_audit_id = other.example_audit_id.clone();
        keep.example_message = other.example_message.clone().or(keep.example_message);
    }
    keep.last_seen = keep.last_seen.max(other.last_seen);
    let mut hours: BTreeMap<Time, u64> = keep.timeline.drain(..).map(|b| (b.at, b.count)).collect();
    for b in other.timeline {
        add(hours.entry(b.at).or_default(), b.count)?;
    }
    keep.timeline = hours
        .into_iter()
        .map(|(at, count)| BucketJson { at, count })
        .collect();
    let id = &mut keep.identity;
    let o = other.identity;
    let mut truncated: BTreeSet<String> = id.truncated.drain(..).chain(o.truncated).collect();
    for (name, mine, theirs) in [
        ("pods", &mut id.pods, o.pods),
        ("nodes", &mut id.nodes, o.nodes),
        ("source_ips", &mut id.source_ips, o.source_ips),
        ("user_agents", &mut id.user_agents, o.user_agents),
        ("credential_ids", &mut id.credential_ids, o.credential_ids),
    ] {
        if unite(mine, theirs) {
            truncated.insert(name.to_owned());
        }
    }
    id.truncated = truncated.into_iter().collect();
    if let (Some(s), Some(os)) = (&mut keep.stale, other.stale) {
        s.max_seconds_past_warnafter = s
            .max_seconds_past_warnafter
            .max(os.max_seconds_past_warnafter);
        s.stale_since = s.stale_since.clone().min(os.stale_since);
    }
    match (&mut keep.reasons, other.reasons) {
        (Some(r), Some(or)) => {
            add(&mut r.ambiguous, or.ambiguous)?;
            add(&mut r.unjoined, or.unjoined)?;
            for j in or.joined {
                match r.joined.iter_mut().find(|x| x.error == j.error) {
                    Some(x) => add(&mut x.events, j.events)?,
                    None => r.joined.push(j),
                }
            }
            r.joined
                .sort_by(|a, b| b.events.cmp(&a.events).then_with(|| a.error.cmp(&b.error)));
        }
        (None, Some(or)) => keep.reasons = Some(or),
        _ => {}
    }
    Ok(keep)
}
