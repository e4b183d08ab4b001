//! The `audit` table, drawn from the wire document so a merged document prints
//! the same way as a single run's. Every string from audit events (users,
//! agents, messages) goes through `sanitize`.

use super::*;
use crate::diagnosis::forbidden::service_account_of;
use crate::logs::BUCKET;
use crate::logs::Micros;

const SPARKS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// The hours of a span, grouped into at most `width` cells: the x axis of
/// every sparkline of one report (`audit`'s and a log's).
pub(crate) struct Axis {
    start: i64,
    pub(crate) hours_per_cell: i64,
    pub(crate) cells: usize,
}

impl Axis {
    pub(crate) fn new(first: Micros, last: Micros, width: usize) -> Axis {
        let (start, end) = (first.div_euclid(BUCKET), last.div_euclid(BUCKET));
        let hours = (end - start + 1).max(1);
        let hours_per_cell = (hours + width as i64 - 1) / width as i64;
        Axis {
            start,
            hours_per_cell,
            cells: ((hours + hours_per_cell - 1) / hours_per_cell) as usize,
        }
    }

    fn of(span: Option<&SpanJson>, width: usize) -> Option<Axis> {
        let span = span?;
        let (first, last) = (parse(&span.first)?, parse(&span.last)?);
        Some(Axis::new(first, last, width))
    }

    /// `PER HOUR`, `PER 2h`: the header of the sparkline column.
    pub(crate) fn header(&self) -> String {
        match self.hours_per_cell {
            1 => "PER HOUR".to_owned(),
            n => format!("PER {n}h"),
        }
    }

    /// Events per hour (hours since the epoch) as one line of bars.
    pub(crate) fn sparkline(&self, hours: impl IntoIterator<Item = (i64, u64)>) -> String {
        let mut cells = vec![0u64; self.cells];
        for (hour, count) in hours {
            let i = (hour - self.start) / self.hours_per_cell;
            if let Some(c) = usize::try_from(i).ok().and_then(|i| cells.get_mut(i)) {
                *c += count;
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

    fn of_timeline(&self, timeline: &[BucketJson]) -> String {
        self.sparkline(
            timeline
                .iter()
                .filter_map(|b| Some((parse(&b.at)?.div_euclid(BUCKET), b.count))),
        )
    }
}

fn parse(t: &str) -> Option<Micros> {
    crate::logs::time::parse_time(t.as_bytes())
}

/// `sa shop/checkout`, `node worker-1`, or the user as it is.
fn short_user(user: Option<&str>) -> String {
    let Some(user) = user else {
        return "(unknown)".to_owned();
    };
    if let Some((ns, name)) = service_account_of(user) {
        return format!("sa {ns}/{name}");
    }
    if let Some(node) = user.strip_prefix("system:node:") {
        return format!("node {node}");
    }
    user.to_owned()
}

fn kind_words(kind: FindingKind) -> &'static str {
    match kind {
        FindingKind::Unauthorized => "401",
        FindingKind::Anonymous => "403 anonymous",
        FindingKind::Forbidden => "403 rbac",
        FindingKind::ForbiddenOther => "403 other",
        FindingKind::StaleToken => "stale token",
        FindingKind::LegacyToken => "legacy token",
    }
}

/// A day in 24 cells on a wide terminal, in 12 on 80 columns.
pub(crate) fn axis_width(style: &TableStyle) -> usize {
    if style.width >= 110 { 24 } else { 12 }
}

pub(crate) fn thousands(n: u64) -> String {
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

pub(crate) fn bytes_words(n: u64) -> String {
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
            let target = r.path.clone().unwrap_or_else(|| r.qualified_resource(true));
            let scope = r
                .namespace
                .as_deref()
                .map_or(String::new(), |ns| format!(" in {ns}"));
            format!("{} {target}{scope}", r.verb.as_deref().unwrap_or("?"))
        }
        None => match f.kind {
            FindingKind::Unauthorized | FindingKind::Anonymous => format!(
                "from {}",
                f.identity.source_ips.first().map_or("?", String::as_str)
            ),
            FindingKind::StaleToken => f
                .stale
                .as_ref()
                .map(|s| format!("{} past warnafter", human(s.max_seconds_past_warnafter)))
                .unwrap_or_default(),
            FindingKind::LegacyToken => f
                .legacy
                .as_ref()
                .and_then(|l| l.secret.clone())
                .map_or("Secret token".to_owned(), |s| format!("Secret {s}")),
            _ => String::new(),
        },
    }
}

pub(super) fn human(seconds: u64) -> String {
    crate::timefmt::human_seconds(i64::try_from(seconds).unwrap_or(i64::MAX))
}

/// The headline: what was read, the answers by class, and what was found.
fn write_headline(
    out: &mut dyn Write,
    doc: &AuditJson,
    s: &crate::report::Styles,
) -> io::Result<()> {
    let span = doc
        .span
        .as_ref()
        .map(|sp| format!(", {} to {}", &*sp.first, &*sp.last))
        .unwrap_or_default();
    let sources = doc.input.sources.len();
    writeln!(
        out,
        "{} {} events in {sources} source{} ({}){span}",
        "Audit:".style(s.bold),
        thousands(doc.events),
        if sources == 1 { "" } else { "s" },
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
        // 401s and 403s apart: a rejected token and a refused request are
        // different fixes.
        let rejected = doc
            .findings
            .iter()
            .filter(|f| f.kind == FindingKind::Unauthorized)
            .count() as u64;
        let refused = sum.failing.saturating_sub(rejected);
        writeln!(
            out,
            "{} {rejected} identit{} with 401s, {refused} with 403s, {} stale token{}, {} legacy Secret token{}",
            "Found:".style(s.bold),
            if rejected == 1 { "y" } else { "ies" },
            sum.stale,
            if sum.stale == 1 { "" } else { "s" },
            sum.legacy,
            if sum.legacy == 1 { "" } else { "s" }
        )?;
    }
    for n in &doc.notes {
        writeln!(out, "{} {}", "Note:".style(s.dim), sanitize(n))?;
    }
    Ok(())
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
    write_headline(out, doc, s)?;
    let width = style.text_width();
    if let Some(f) = &doc.credential {
        writeln!(out)?;
        credentials::write_followed(out, f, doc.span.as_ref(), width)?;
    }
    if doc.findings.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    let axis = Axis::of(doc.span.as_ref(), axis_width(style));
    let timeline_header = axis.as_ref().map_or("TIMELINE".to_owned(), Axis::header);
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
            kind_words(f.kind),
            short_user(f.identity.user.as_deref()),
            what(f)
        );
        let cause = match f.diagnosis.confidence {
            Confidence::High => f.diagnosis.cause.to_string(),
            c => format!("{} ({})", f.diagnosis.cause, c.as_str()),
        };
        table.add_row(vec![
            (i + 1).to_string(),
            thousands(f.events),
            axis.as_ref()
                .map_or(String::new(), |a| a.of_timeline(&f.timeline)),
            cell(problem.trim_end_matches([' ', ':'])),
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
    credentials::write_credentials(out, doc, width)?;
    for (i, f) in doc.findings.iter().enumerate().take(details) {
        writeln!(out)?;
        write_details(out, i + 1, f, style)?;
    }
    let more = doc.findings.len().saturating_sub(details);
    if more > 0 {
        writeln!(
            out,
            "\n{more} more finding{} in the list above: -o json has every one, or raise --details",
            if more == 1 { "" } else { "s" }
        )?;
    }
    Ok(())
}

fn write_details(
    out: &mut dyn Write,
    n: usize,
    f: &FindingJson,
    style: &TableStyle,
) -> io::Result<()> {
    let s = &style.styles;
    let width = style.text_width();
    let heading = format!(
        "{n}. {} {} {}",
        kind_words(f.kind),
        short_user(f.identity.user.as_deref()),
        what(f)
    );
    writeln!(out, "{}", sanitize(heading.trim_end()).style(s.bold))?;
    let id = &f.identity;
    let mut facts: Vec<String> = Vec::new();
    facts.extend(id.user.as_ref().map(|u| format!("user {u}")));
    if let Some(e) = &f.escalation {
        facts.push(format!(
            "asks for more than most workloads should have: {e}"
        ));
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
        &*f.first_seen,
        &*f.last_seen,
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
            &*st.stale_since,
            human(st.max_seconds_past_warnafter)
        ));
    }
    facts.extend(f.example_message.as_ref().map(|m| format!("message: {m}")));
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
        "{} {}",
        "Cause:".style(s.bold),
        cause_words(d.cause, d.confidence)
    )?;
    for line in wrap(&d.summary, width + 2) {
        writeln!(out, "  {}", line.style(s.dim))?;
    }
    for fact in d.support.iter().filter(|x| x.kind != SupportKind::Answer) {
        write_item(out, &fact.text, width)?;
    }
    write_steps(out, &d.next, style)?;
    if !d.alternatives.is_empty() {
        let alts: Vec<String> = d
            .alternatives
            .iter()
            .map(|a| format!("{} ({})", a.cause, a.confidence.as_str()))
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
        let time = |at: &str| Time::new(at.parse().unwrap());
        let span = SpanJson {
            first: time("2026-01-01T00:00:00Z"),
            last: time("2026-01-01T03:59:59Z"),
        };
        let axis = Axis::of(Some(&span), 24).unwrap();
        assert_eq!((axis.cells, axis.hours_per_cell), (4, 1));
        let b = |at: &str, count| BucketJson {
            at: time(at),
            count,
        };
        let line = axis.of_timeline(&[b("2026-01-01T00:00:00Z", 1), b("2026-01-01T03:00:00Z", 8)]);
        assert_eq!(line, "▁  █");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
