//! Credential provenance in `audit` output: the wire types of the TokenRequest
//! event that minted a credential (docs/audit.md, "Who minted a token"), their
//! merge across shards, and the table's section.

use super::*;
use crate::audit::mint::{Bound, Mint};
use crate::audit::{Credential, Followed};

/// A credential id seen on findings, with the event that minted it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct CredentialJson {
    /// `JTI=<jti>` (`user.extra` `authentication.kubernetes.io/credential-id`).
    pub id: String,
    /// The keys of the findings it was seen on.
    pub findings: Vec<String>,
    /// The TokenRequest event that issued it; null when the log holds none
    /// (minted before the log starts, or the audit policy does not log
    /// `create` on `serviceaccounts/token` at Metadata or above).
    pub minted: Option<MintJson>,
}

/// The TokenRequest (`create` on `serviceaccounts/token`) audit event that
/// issued a credential (annotation `authentication.kubernetes.io/issued-credential-id`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct MintJson {
    /// When it was minted.
    pub at: Time,
    /// The event's audit ID.
    pub audit_id: String,
    /// Who asked for it (`system:node:<node>`: the kubelet, for a pod).
    pub by: String,
    /// The node whose kubelet minted it, or null.
    pub node: Option<String>,
    /// The ServiceAccount it is for.
    pub service_account: ServiceAccountJson,
    /// The event's audit level: `Metadata` events carry no request or response,
    /// so the fields below stay null.
    pub level: String,
    /// `spec.audiences` (level Request and up).
    pub audiences: Vec<String>,
    /// `spec.expirationSeconds` asked (level Request and up).
    pub requested_seconds: Option<i64>,
    /// `spec.boundObjectRef` (level Request and up), or null.
    pub bound: Option<Bound>,
    /// `status.expirationTimestamp` (level RequestResponse), or null.
    pub expires: Option<Time>,
    /// Seconds issued (expiry minus minting time), or null.
    pub issued_seconds: Option<i64>,
}

/// `--jti` / `--token-file`: one credential and the requests made with it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct FollowedJson {
    /// `JTI=<jti>`.
    pub id: String,
    /// The TokenRequest event that issued it, or null (see `credentials`).
    pub minted: Option<MintJson>,
    /// Requests made with it. A rejected request (401) names no user and so
    /// no credential: 401s are never counted here.
    pub requests: u64,
    /// Those requests per HTTP status code.
    pub by_status: BTreeMap<String, u64>,
    /// The first request, or null.
    pub first_seen: Option<Time>,
    /// The last request, or null.
    pub last_seen: Option<Time>,
    /// The first request's audit ID, or null.
    pub first_audit_id: Option<String>,
    /// Users seen with it, up to 8.
    pub users: Vec<String>,
    /// Pods (`user.extra` pod-name), up to 8.
    pub pods: Vec<String>,
    /// Nodes (`user.extra` node-name), up to 8.
    pub nodes: Vec<String>,
    /// Source IPs, up to 8.
    pub source_ips: Vec<String>,
    /// User agents, up to 8.
    pub user_agents: Vec<String>,
}

impl FollowedJson {
    /// Exit 1: no minting event in the log, or a request made with it was refused.
    pub fn is_problem(&self) -> bool {
        self.minted.is_none()
            || self
                .by_status
                .keys()
                .any(|c| c.parse::<u16>().is_ok_and(|c| (400..500).contains(&c)))
    }
}

pub(super) fn mint_json(m: &Mint) -> MintJson {
    let at = |micros| Time::new(crate::audit::instant(micros));
    MintJson {
        at: at(m.at),
        audit_id: m.audit_id.clone(),
        by: m.minted_by.clone(),
        node: m.node().map(str::to_owned),
        service_account: ServiceAccountJson {
            namespace: m.namespace.clone(),
            name: m.service_account.clone(),
        },
        level: m.level.clone(),
        audiences: m.audiences.clone(),
        requested_seconds: m.requested_seconds,
        bound: m.bound.clone(),
        expires: m.expires.map(at),
        issued_seconds: m.issued_seconds(),
    }
}

pub(super) fn credential_json(c: &Credential) -> CredentialJson {
    CredentialJson {
        id: c.id.clone(),
        findings: c.findings.clone(),
        minted: c.mint.as_ref().map(mint_json),
    }
}

pub(super) fn followed_json(r: &Followed) -> FollowedJson {
    FollowedJson {
        id: r.id.clone(),
        minted: r.mint.as_ref().map(mint_json),
        requests: r.seen.map_or(0, |s| s.count),
        by_status: r.by_code.iter().map(|(c, n)| (c.to_string(), *n)).collect(),
        first_seen: r.seen.map(|s| Time::new(crate::audit::instant(s.first))),
        last_seen: r.seen.map(|s| Time::new(crate::audit::instant(s.last))),
        first_audit_id: r.seen.map(|_| r.first_audit_id.clone()),
        users: r.users.sorted(),
        pods: r.pods.sorted(),
        nodes: r.nodes.sorted(),
        source_ips: r.source_ips.sorted(),
        user_agents: r.user_agents.sorted(),
    }
}

/// The earlier of two minting events of one credential (the same event, when
/// two shards both hold it).
fn earlier(a: Option<MintJson>, b: Option<MintJson>) -> Option<MintJson> {
    a.into_iter()
        .chain(b)
        .min_by(|x, y| (&x.at, &x.audit_id).cmp(&(&y.at, &y.audit_id)))
}

/// Shards' credential lists as one: findings united, the minting event taken
/// from whichever shard holds it.
pub(super) fn merge_credentials(
    into: &mut BTreeMap<String, CredentialJson>,
    from: Vec<CredentialJson>,
) {
    for c in from {
        match into.get_mut(&c.id) {
            Some(mine) => {
                mine.findings.extend(c.findings);
                mine.findings.sort();
                mine.findings.dedup();
                mine.minted = earlier(mine.minted.take(), c.minted);
            }
            None => {
                into.insert(c.id.clone(), c);
            }
        }
    }
}

/// Two shards' views of the one credential asked about.
pub(super) fn merge_followed(
    a: Option<FollowedJson>,
    b: Option<FollowedJson>,
) -> Result<Option<FollowedJson>, merge::Overflow> {
    let (mut a, b) = match (a, b) {
        (Some(a), Some(b)) if a.id == b.id => (a, b),
        (a, b) => return Ok(a.or(b)),
    };
    a.minted = earlier(a.minted.take(), b.minted);
    merge::add(&mut a.requests, b.requests)?;
    for (c, n) in b.by_status {
        merge::add(a.by_status.entry(c).or_default(), n)?;
    }
    if b.first_seen.is_some() && (a.first_seen.is_none() || b.first_seen < a.first_seen) {
        a.first_seen = b.first_seen;
        a.first_audit_id = b.first_audit_id;
    }
    a.last_seen = a.last_seen.max(b.last_seen);
    for (mine, theirs) in [
        (&mut a.users, b.users),
        (&mut a.pods, b.pods),
        (&mut a.nodes, b.nodes),
        (&mut a.source_ips, b.source_ips),
        (&mut a.user_agents, b.user_agents),
    ] {
        merge::unite(mine, theirs);
    }
    Ok(Some(a))
}

/// `3607s (1h 0m 7s)`.
fn seconds_words(s: i64) -> String {
    match u64::try_from(s) {
        Ok(u) if u >= 60 => format!("{s}s ({})", table::human(u)),
        _ => format!("{s}s"),
    }
}

/// One line on a minting event: who, when, for what, how long.
pub(super) fn mint_words(m: &MintJson) -> String {
    let mut out = format!(
        "minted by {} at {} for {}/{}",
        sanitize(&m.by),
        sanitize(&m.at),
        sanitize(&m.service_account.namespace),
        sanitize(&m.service_account.name)
    );
    if let Some(b) = &m.bound {
        out.push_str(&format!(
            ", bound to {} {} (uid {})",
            sanitize(&b.kind).to_lowercase(),
            sanitize(&b.name),
            sanitize(&b.uid)
        ));
    }
    if let Some(s) = m.requested_seconds {
        out.push_str(&format!(", asked {}", seconds_words(s)));
    }
    match (&m.expires, m.issued_seconds) {
        (Some(e), Some(s)) => {
            let after = u64::try_from(s).map_or_else(|_| format!("{s}s"), table::human);
            out.push_str(&format!(", issued until {} ({after})", sanitize(e)));
        }
        (Some(e), None) => out.push_str(&format!(", issued until {}", sanitize(e))),
        _ => {}
    }
    if m.level == "Metadata" {
        out.push_str(" (a Metadata-level event: the lifetime and bound object are not logged)");
    }
    out
}

/// Why a credential may have no minting event in the log.
pub(super) fn unminted_words(span: Option<&SpanJson>) -> String {
    let since = span.map_or(String::new(), |s| format!(" ({})", sanitize(&s.first)));
    format!(
        "minted before the log starts{since}, or the audit policy does not log create on serviceaccounts/token at Metadata or above"
    )
}

/// Credentials the table lists (JSON has them all).
const CREDENTIAL_LINES: usize = 12;

/// The table's section on the credentials seen on findings: each minted one
/// on its own line, then those the log holds no minting event for, together.
pub(super) fn write_credentials(
    out: &mut dyn Write,
    doc: &AuditJson,
    width: usize,
) -> io::Result<()> {
    if doc.credentials.is_empty() {
        return Ok(());
    }
    let (minted, unminted): (Vec<&CredentialJson>, Vec<&CredentialJson>) =
        doc.credentials.iter().partition(|c| c.minted.is_some());
    writeln!(
        out,
        "\nCredentials: {} on findings, {} minted in this log ({} TokenRequest events indexed)",
        doc.credentials.len(),
        minted.len(),
        doc.minting_events
    )?;
    // The credential asked about (--token-file) is described above in full.
    let followed = doc.credential.as_ref().map(|f| f.id.as_str());
    for c in minted.iter().take(CREDENTIAL_LINES) {
        if Some(c.id.as_str()) == followed {
            continue;
        }
        if let Some(m) = &c.minted {
            write_item(
                out,
                &format!("{}: {}", sanitize(&c.id), mint_words(m)),
                width,
            )?;
        }
    }
    if minted.len() > CREDENTIAL_LINES {
        writeln!(
            out,
            "  … {} more minted (-o json lists them all)",
            minted.len() - CREDENTIAL_LINES
        )?;
    }
    if !unminted.is_empty() {
        let mut ids: Vec<String> = unminted
            .iter()
            .take(CREDENTIAL_LINES)
            .map(|c| cell(&c.id))
            .collect();
        if unminted.len() > CREDENTIAL_LINES {
            ids.push(format!("… {} more", unminted.len() - CREDENTIAL_LINES));
        }
        write_item(
            out,
            &format!(
                "no minting event in this log for {} ({}): {}",
                unminted.len(),
                ids.join(", "),
                unminted_words(doc.span.as_ref())
            ),
            width,
        )?;
    }
    Ok(())
}

/// The table's section on the one credential asked about.
pub(super) fn write_followed(
    out: &mut dyn Write,
    f: &FollowedJson,
    span: Option<&SpanJson>,
    width: usize,
) -> io::Result<()> {
    writeln!(out, "Credential {}", sanitize(&f.id))?;
    match &f.minted {
        Some(m) => {
            write_item(out, &mint_words(m), width)?;
            if !m.audiences.is_empty() {
                let auds: Vec<String> = m.audiences.iter().map(|a| cell(a)).collect();
                write_item(out, &format!("audiences {}", auds.join(", ")), width)?;
            }
            write_item(
                out,
                &format!("minting event audit ID {}", sanitize(&m.audit_id)),
                width,
            )?;
        }
        None => write_item(
            out,
            &format!("no minting event in this log: {}", unminted_words(span)),
            width,
        )?,
    }
    if f.requests == 0 {
        write_item(out, "no request made with it in this log", width)?;
    } else {
        let statuses: Vec<String> = f
            .by_status
            .iter()
            .map(|(c, n)| format!("{c} {}", table::thousands(*n)))
            .collect();
        write_item(
            out,
            &format!(
                "{} requests made with it ({}) from {} to {}; first audit ID {}",
                table::thousands(f.requests),
                statuses.join(", "),
                f.first_seen.as_deref().map_or(Default::default(), sanitize),
                f.last_seen.as_deref().map_or(Default::default(), sanitize),
                f.first_audit_id
                    .as_deref()
                    .map_or(Default::default(), sanitize)
            ),
            width,
        )?;
        for (what, values) in [
            ("users", &f.users),
            ("pods", &f.pods),
            ("nodes", &f.nodes),
            ("source IPs", &f.source_ips),
            ("user agents", &f.user_agents),
        ] {
            if !values.is_empty() {
                let v: Vec<String> = values.iter().map(|v| cell(v)).collect();
                write_item(out, &format!("{what} {}", v.join(", ")), width)?;
            }
        }
    }
    write_item(
        out,
        "401s name no user and so no credential: requests this token had rejected are not counted here",
        width,
    )?;
    writeln!(out)
}
