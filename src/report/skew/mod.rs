//! Table rendering of a [`SkewReport`]: the reference and the token's window,
//! the table of clocks, the largest pairwise skew, an ASCII timeline with one row
//! per clock, then the findings. Plain ASCII in the timeline, so it reads the
//! same without colour; everything fits the width it is given (80 by default).

use std::io::{self, Write};

use chrono::{DateTime, TimeDelta, Utc};
use owo_colors::{OwoColorize as _, Style};

pub mod json;

use crate::report::TableStyle;
use crate::report::table::{list_table, write_findings, write_table};
use crate::sanitize::sanitize;
use crate::skew::{ClockResult, ClockSource, SkewReport, TokenTimes, offset_text, seconds_text};
use crate::timefmt::{as_seconds_f64, human_seconds, offset_pm, relative, rfc3339, span};
use crate::window::{self, Verdict, ceil_seconds, floor_seconds};

pub fn write_skew(out: &mut dyn Write, report: &SkewReport, style: &TableStyle) -> io::Result<()> {
    let s = &style.styles;
    writeln!(
        out,
        "{} {} (clock \"{}\"), leeway {}",
        "Reference:".style(s.bold),
        style.time(report.reference),
        crate::skew::REFERENCE_NAME,
        seconds_text(report.leeway)
    )?;
    let token_line = match &report.token {
        None => "none given: clocks are measured, nothing is judged".to_owned(),
        Some(t) if !t.time_checked => format!(
            "sha256:{} (legacy Secret token: never time-checked)",
            t.fingerprint
        ),
        Some(t) => format!("sha256:{}", t.fingerprint),
    };
    writeln!(out, "{}     {token_line}", "Token:".style(s.bold))?;
    if let Some(t) = report.token.as_ref().filter(|t| t.time_checked) {
        let (start, end) = window::window(t.claims, report.leeway);
        writeln!(
            out,
            "{}  by a clock reading {} .. {}",
            "Accepted:".style(s.bold),
            start.map_or_else(|| "any time".to_owned(), rfc3339),
            end.map_or_else(|| "forever (no exp)".to_owned(), rfc3339),
        )?;
    }
    writeln!(out)?;
    write_clocks(out, report, style)?;
    if let Some(pair) = &report.max_pair {
        let text = format!(
            "{} ({} ahead of {})",
            span(as_seconds_f64(pair.skew)),
            sanitize(&pair.ahead),
            sanitize(&pair.behind)
        );
        let styled = if pair.skew > report.leeway {
            text.style(s.error).to_string()
        } else {
            text
        };
        writeln!(out, "{} {styled}", "Largest pairwise skew:".style(s.bold))?;
    }
    if let Some(token) = report.token.as_ref().filter(|t| t.time_checked) {
        writeln!(out)?;
        write_timeline(out, report, token, style)?;
    }
    if !report.findings.is_empty() {
        writeln!(out)?;
    }
    write_findings(out, &report.findings, style)
}

fn write_clocks(out: &mut dyn Write, report: &SkewReport, style: &TableStyle) -> io::Result<()> {
    let s = &style.styles;
    let mut table = list_table(
        style,
        &["CLOCK", "SOURCE", "OFFSET", "READS", "VERDICT", "WHEN"],
    );
    for clock in &report.clocks {
        let r = &clock.reading;
        let offset = if r.uncertainty > TimeDelta::zero() {
            offset_pm(as_seconds_f64(r.offset), as_seconds_f64(r.uncertainty))
        } else {
            offset_text(r.offset)
        };
        let (verdict, when) = verdict_cells(clock, s.ok, s.error);
        table.add_row([
            sanitize(&r.name).into_owned(),
            r.source.as_str().to_owned(),
            offset,
            clock_time(clock.time, report.reference),
            verdict,
            when,
        ]);
    }
    write_table(out, &table)
}

fn verdict_cells(clock: &ClockResult, ok: Style, error: Style) -> (String, String) {
    let Some(j) = clock.judgement else {
        return ("-".to_owned(), "-".to_owned());
    };
    let mark = if clock.uncertain { "?" } else { "" };
    let verdict = match j.verdict {
        Verdict::Accept => format!("accept{mark}").style(ok).to_string(),
        Verdict::RejectNotYetValid => format!("REJECT nbf{mark}").style(error).to_string(),
        Verdict::RejectExpired => format!("REJECT exp{mark}").style(error).to_string(),
        Verdict::RejectIssuedInFuture => format!("REJECT iat{mark}").style(error).to_string(),
    };
    let when = match (j.accepted_in, j.remaining, j.rejected_for) {
        (Some(wait), _, _) => format!("in {}", human_seconds(ceil_seconds(wait))),
        (_, Some(left), _) => format!("{} left", compact(floor_seconds(left))),
        (_, _, Some(since)) => format!("{} ago", compact(floor_seconds(since))),
        _ if j.verdict == Verdict::Accept => "no exp".to_owned(),
        _ => "never".to_owned(),
    };
    (verdict, when)
}

/// Two units at most ("364d 23h"), for narrow cells.
fn compact(seconds: i64) -> String {
    let full = human_seconds(seconds);
    full.split(' ').take(2).collect::<Vec<_>>().join(" ")
}

/// The clock's reading: a time of day (its offset says which day), or the full
/// date for a clock half a day or more away.
fn clock_time(time: DateTime<Utc>, reference: DateTime<Utc>) -> String {
    let shown = time + TimeDelta::milliseconds(500);
    if (time - reference).abs() < TimeDelta::hours(12) {
        shown.format("%H:%M:%S").to_string()
    } else {
        shown.format("%Y-%m-%d %H:%M").to_string()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Axis {
    lo: DateTime<Utc>,
    hi: DateTime<Utc>,
}

impl Axis {
    /// Spans every clock's "now" and each window edge near them; an edge further
    /// than four spans away (exp a year out) is left off the chart.
    fn fit(edges: [Option<DateTime<Utc>>; 2], nows: &[DateTime<Utc>]) -> Axis {
        let mut lo = nows
            .iter()
            .copied()
            .min()
            .unwrap_or(DateTime::<Utc>::MIN_UTC);
        let mut hi = nows.iter().copied().max().unwrap_or(lo);
        let reach = (hi - lo).max(TimeDelta::minutes(5)) * 4;
        let (core_lo, core_hi) = (lo, hi);
        for edge in edges.into_iter().flatten() {
            if edge >= core_lo - reach && edge <= core_hi + reach {
                lo = lo.min(edge);
                hi = hi.max(edge);
            }
        }
        let pad = ((hi - lo) / 10).max(TimeDelta::seconds(5));
        Axis {
            lo: lo - pad,
            hi: hi + pad,
        }
    }

    fn contains(&self, t: DateTime<Utc>) -> bool {
        self.lo <= t && t <= self.hi
    }

    /// Column of `t` in a bar `width` wide (clamped to the bar).
    fn column(&self, t: DateTime<Utc>, width: usize) -> usize {
        let span = (self.hi - self.lo).num_milliseconds().max(1) as f64;
        let x = (t - self.lo).num_milliseconds() as f64 / span * (width - 1) as f64;
        x.round().clamp(0.0, (width - 1) as f64) as usize
    }

    /// The instant at the middle of column `col`.
    fn at(&self, col: usize, width: usize) -> DateTime<Utc> {
        let span = (self.hi - self.lo).num_milliseconds() as f64;
        self.lo + TimeDelta::milliseconds((span * col as f64 / (width - 1) as f64).round() as i64)
    }

    fn label(&self, t: DateTime<Utc>) -> String {
        if self.hi - self.lo > TimeDelta::days(2) {
            t.format("%m-%d %H:%M").to_string()
        } else {
            t.format("%H:%M:%S").to_string()
        }
    }
}

fn write_timeline(
    out: &mut dyn Write,
    report: &SkewReport,
    token: &TokenTimes,
    style: &TableStyle,
) -> io::Result<()> {
    let s = &style.styles;
    let (start, end) = window::window(token.claims, report.leeway);
    if start.is_none() && end.is_none() {
        return Ok(());
    }
    let nows: Vec<DateTime<Utc>> = report.clocks.iter().map(|c| c.time).collect();
    let axis = Axis::fit([start, end], &nows);
    let row_labels: Vec<String> = report
        .clocks
        .iter()
        .map(|c| row_label(c, &report.clocks))
        .collect();
    let name_width = row_labels
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(5)
        .clamp(5, 18);
    let width = (usize::from(style.width))
        .saturating_sub(name_width + 1)
        .clamp(20, 100);

    writeln!(
        out,
        "{} each clock's \"now\" against the token's window, on the clocks' own time",
        "Timeline:".style(s.bold)
    )?;
    // Axis labels: left, right, and the middle when there is room.
    let mut labels = vec![b' '; width];
    let mut put = |text: String, at: usize| {
        let at = at.min(width.saturating_sub(text.len()));
        labels[at..at + text.len()].copy_from_slice(text.as_bytes());
    };
    put(axis.label(axis.lo), 0);
    let right = axis.label(axis.hi);
    put(right.clone(), width - right.len());
    if width >= 3 * right.len() + 4 {
        put(
            axis.label(axis.at(width / 2, width)),
            width / 2 - right.len() / 2,
        );
    }
    writeln!(
        out,
        "{:name_width$} {}",
        "",
        String::from_utf8_lossy(&labels).trim_end()
    )?;

    let base = window_bar(&axis, start, end, width);
    for (clock, label) in report.clocks.iter().zip(&row_labels) {
        let mut row = base.clone();
        let marker = match (clock.uncertain, clock.rejects()) {
            (true, _) => '?',
            (false, true) => 'X',
            (false, false) => '|',
        };
        row[axis.column(clock.time, width)] = marker;
        let bar: String = row
            .iter()
            .map(|&c| {
                let style = match c {
                    'X' => s.error,
                    '?' => s.warning,
                    '|' => s.bold,
                    '.' => s.dim,
                    _ => s.ok,
                };
                c.style(style).to_string()
            })
            .collect();
        writeln!(out, "{:name_width$} {bar}", fit_name(label, name_width))?;
    }

    let edge_label = if token.claims.not_before.unwrap_or(i64::MIN)
        >= token.claims.issued_at.unwrap_or(i64::MIN)
    {
        "nbf"
    } else {
        "iat"
    };
    let leeway = seconds_text(report.leeway);
    for (edge, mark, name) in [
        (start, '[', format!("{edge_label}-{leeway}")),
        (end, ']', format!("exp+{leeway}")),
    ] {
        let Some(edge) = edge else { continue };
        let note = if axis.contains(edge) {
            format!("{mark} {name} {}", axis.label(edge))
        } else {
            format!(
                "{name} {} ({}, off the chart)",
                style.time(edge),
                relative(edge, report.reference)
            )
        };
        writeln!(out, "{:name_width$} {note}", "")?;
    }
    writeln!(
        out,
        "Key: = accepted  . rejected  | its now, accepts  X its now, rejects  ? unsure"
    )
}

/// A clock's row label: its name, with its source when the name has several
/// rows (one node seen through its Lease and its Node).
fn row_label(clock: &ClockResult, clocks: &[ClockResult]) -> String {
    let name = &clock.reading.name;
    if clocks.iter().filter(|c| &c.reading.name == name).count() < 2 {
        return name.clone();
    }
    let tag = match clock.reading.source {
        ClockSource::NodeLease | ClockSource::ApiserverLease => "lease",
        ClockSource::NodeStatus => "status",
        ClockSource::TokenIat => "iat",
        ClockSource::HttpDate => "date",
        ClockSource::Flag => "flag",
        ClockSource::Reference => "ref",
    };
    format!("{name} ({tag})")
}

/// The token's window along the axis: `=` accepted, `.` rejected, `[` and `]`
/// its edges, `<` and `>` where it runs on past the chart.
fn window_bar(
    axis: &Axis,
    start: Option<DateTime<Utc>>,
    end: Option<DateTime<Utc>>,
    width: usize,
) -> Vec<char> {
    let inside = |t: DateTime<Utc>| start.is_none_or(|s| t >= s) && end.is_none_or(|e| t <= e);
    let mut base: Vec<char> = (0..width)
        .map(|col| {
            if inside(axis.at(col, width)) {
                '='
            } else {
                '.'
            }
        })
        .collect();
    for (edge, mark) in [(start, '['), (end, ']')] {
        if let Some(edge) = edge.filter(|e| axis.contains(*e)) {
            base[axis.column(edge, width)] = mark;
        }
    }
    if end.is_some_and(|e| e > axis.hi) || (end.is_none() && inside(axis.hi)) {
        base[width - 1] = '>';
    }
    if start.is_some_and(|s| s < axis.lo) || (start.is_none() && inside(axis.lo)) {
        base[0] = '<';
    }
    base
}

fn fit_name(name: &str, width: usize) -> String {
    let name = sanitize(name);
    if name.chars().count() <= width {
        name.into_owned()
    } else {
        let mut short: String = name.chars().take(width - 1).collect();
        short.push('~');
        short
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skew::analyse;
    use crate::skew::tests::{L, flag, now, token};

    fn render(report: &SkewReport, width: u16) -> String {
        let mut out = Vec::new();
        let style = TableStyle::plain(width);
        write_skew(&mut out, report, &style).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn report(exp_after: i64, offsets: &[(&str, i64)]) -> SkewReport {
        let mut token = token(0, true);
        token.claims.expires_at = Some(now().timestamp() + exp_after);
        let readings = offsets.iter().map(|(n, o)| flag(n, *o)).collect();
        analyse(Some(token), readings, vec![], now(), L)
    }

    fn timeline_row<'a>(text: &'a str, name: &str) -> &'a str {
        text.lines()
            .skip_while(|l| !l.starts_with("Timeline:"))
            .find(|l| l.starts_with(name))
            .unwrap()
    }

    #[test]
    fn a_year_long_token_is_clipped_not_squashed() {
        let r = report(31_536_000, &[("node-a", -90)]);
        let text = render(&r, 80);
        let row = timeline_row(&text, "local");
        assert!(row.ends_with('>'), "{row}");
        assert!(text.contains("off the chart"), "{text}");
        // The nows stay apart: more than 10 columns between them.
        let a = timeline_row(&text, "node-a");
        let gap = row.find('|').unwrap() as i64 - a.find('X').unwrap() as i64;
        assert!(gap > 10, "{text}");
    }

    #[test]
    fn wide_terminals_and_names_are_handled() {
        let r = report(600, &[("a-very-long-node-name-indeed.example", 30)]);
        let text = render(&r, 200);
        assert!(text.contains("a-very-long-node-~"), "{text}");
        let text = render(&r, 40);
        assert!(text.contains("Timeline:"));
    }
}
