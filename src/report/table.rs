//! Table rendering with comfy-table. `force_no_tty()` everywhere: whether to use
//! colour was decided once into [`Styles`], so comfy-table must not sniff the
//! terminal itself.

use std::io::{self, Write};

use comfy_table::{ContentArrangement, Table, presets};
use owo_colors::OwoColorize as _;

use super::TableStyle;
use super::sanitize::{cell, ellipsize, or_dash, sanitize};
use crate::decode::DecodeReport;
use crate::findings::{Finding, Severity};
use crate::timefmt::{human_seconds, relative};
use crate::token::{Binding, ObjectRef};
use crate::window::{Verdict, at_seconds};

/// A borderless two-column table, like `kubectl describe`: a row for each
/// key that has a value, the key in bold with a colon.
pub fn key_value_table<'k>(
    style: &TableStyle,
    rows: impl IntoIterator<Item = (&'k str, Option<String>)>,
) -> Table {
    let mut table = table_of(style, presets::NOTHING, &[]);
    let bold = style.styles.bold;
    for (key, value) in rows.into_iter().filter_map(|(k, v)| Some((k, v?))) {
        table.add_row([format!("{key}:").style(bold).to_string(), value]);
    }
    table
}

/// A borderless list with bold column headers, like `kubectl get`: two spaces
/// between columns and none at the edges, so 80 columns go further.
pub fn list_table(style: &TableStyle, headers: &[&str]) -> Table {
    let mut table = table_of(style, presets::NOTHING, headers);
    for column in table.column_iter_mut() {
        column.set_padding((0, 2));
    }
    table
}

pub fn bordered_table(style: &TableStyle, headers: &[&str]) -> Table {
    table_of(style, presets::UTF8_FULL_CONDENSED, headers)
}

pub(crate) fn table_of(style: &TableStyle, preset: &str, headers: &[&str]) -> Table {
    let mut table = Table::new();
    table
        .load_preset(preset)
        .force_no_tty()
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(style.width);
    if !headers.is_empty() {
        table.set_header(
            headers
                .iter()
                .map(|h| h.style(style.styles.bold).to_string()),
        );
    }
    table
}

/// The findings as a bordered table, most severe first; nothing when there are none.
pub fn write_findings(
    out: &mut dyn Write,
    findings: &[Finding],
    style: &TableStyle,
) -> io::Result<()> {
    if findings.is_empty() {
        return Ok(());
    }
    let s = &style.styles;
    let mut table = bordered_table(style, &["SEVERITY", "CODE", "MESSAGE"]);
    for f in findings {
        table.add_row([
            f.severity
                .as_str()
                .to_uppercase()
                .style(s.severity(f.severity))
                .to_string(),
            f.code.as_str().to_owned(),
            cell(&f.message),
        ]);
    }
    write_table(out, &table)
}

/// Writes a table without the trailing blanks comfy-table pads lines with.
/// A table wider than its width has its widest column wrapped first at word,
/// `-`, `/` and `=` boundaries ([`fit_widest_column`]): comfy-table would
/// break a long flag or URL anywhere, so it could no longer be copied.
pub fn write_table(out: &mut dyn Write, table: &Table) -> io::Result<()> {
    let fitted = fit_widest_column(table);
    for line in fitted.as_ref().unwrap_or(table).lines() {
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

/// Narrowest room worth wrapping a column into ourselves; below it the
/// table is left to comfy-table.
const MIN_WRAP_WIDTH: usize = 20;

/// `table` with its widest column's cells wrapped to the room the other
/// columns leave ([`wrap_at_boundaries`]), or `None` when it fits as it is
/// or the room is too narrow.
fn fit_widest_column(table: &Table) -> Option<Table> {
    use comfy_table::{Row, TableComponent};
    let width = usize::from(table.width()?);
    let mut fitted = table.clone();
    let widths: Vec<usize> = fitted
        .column_max_content_widths()
        .into_iter()
        .map(usize::from)
        .collect();
    let padding: usize = fitted
        .column_iter()
        .map(|c| usize::from(c.padding_width()))
        .sum();
    let mut drawn = |c| usize::from(Table::style(&mut fitted, c).is_some());
    let borders = drawn(TableComponent::LeftBorder)
        + drawn(TableComponent::RightBorder)
        + widths.len().saturating_sub(1) * drawn(TableComponent::VerticalLines);
    if widths.iter().sum::<usize>() + padding + borders <= width {
        return None;
    }
    let (wide, wide_width) = widths.iter().copied().enumerate().max_by_key(|(_, w)| *w)?;
    let others = widths.iter().sum::<usize>() - wide_width;
    let room = width.checked_sub(others + padding + borders)?;
    if room < MIN_WRAP_WIDTH {
        return None;
    }
    let rewrap = |row: &Row| -> Vec<String> {
        row.cell_iter()
            .enumerate()
            .map(|(i, cell)| {
                let text = cell.content();
                // Styled text keeps comfy-table's wrapping, which knows its escapes.
                if i == wide && !text.contains('\x1b') {
                    wrap_at_boundaries(&text, room)
                } else {
                    text
                }
            })
            .collect()
    };
    for row in fitted.row_iter_mut() {
        *row = Row::from(rewrap(row));
    }
    Some(fitted)
}

/// `text` wrapped to `width` columns: at spaces; a word longer than a line
/// after a `-`, `/` or `=` in it; only a piece with none of them is cut
/// anywhere.
pub fn wrap_at_boundaries(text: &str, width: usize) -> String {
    let measure = textwrap::core::display_width;
    let mut lines = Vec::new();
    for paragraph in text.split('\n') {
        let mut line = String::new();
        for word in paragraph.split(' ') {
            let pieces = if measure(word) > width {
                boundary_pieces(word, width)
            } else {
                vec![word.to_owned()]
            };
            for (i, piece) in pieces.into_iter().enumerate() {
                let space = usize::from(i == 0 && !line.is_empty());
                if !line.is_empty() && measure(&line) + space + measure(&piece) > width {
                    lines.push(std::mem::take(&mut line));
                } else if space == 1 {
                    line.push(' ');
                }
                line.push_str(&piece);
            }
        }
        lines.push(line);
    }
    lines.join("\n")
}

/// A long word cut after each `-`, `/` and `=` (runs of them kept together),
/// and any piece still over `width` cut at `width`.
fn boundary_pieces(word: &str, width: usize) -> Vec<String> {
    let mut pieces: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        current.push(c);
        let boundary = matches!(c, '-' | '/' | '=');
        let run = chars.peek().is_some_and(|n| matches!(n, '-' | '/' | '='));
        if boundary && !run {
            pieces.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        pieces.push(current);
    }
    pieces
        .into_iter()
        .flat_map(|piece| {
            if textwrap::core::display_width(&piece) <= width {
                return vec![piece];
            }
            let chars: Vec<char> = piece.chars().collect();
            chars
                .chunks(width.max(1))
                .map(|c| c.iter().collect())
                .collect()
        })
        .collect()
}

/// `decode` for one token: identity, times, then findings.
pub fn write_decode(
    out: &mut dyn Write,
    report: &DecodeReport,
    style: &TableStyle,
) -> io::Result<()> {
    let s = &style.styles;
    let token = &report.token;
    let claims = &token.claims;
    let now = report.time.at;
    let token_line = format!(
        "sha256:{} (read as {})",
        token.fingerprint,
        report.shape.as_str()
    );
    let bound_to = match report.binding {
        Binding::Pod => " (bound to a pod)",
        Binding::Secret => " (bound to a Secret)",
        Binding::Node => " (bound to a node)",
        Binding::None => " (bound to no object)",
    };
    let mut alg = or_dash(token.header.alg.as_deref());
    if let Some(kid) = token.header.kid.as_deref().filter(|k| !k.is_empty()) {
        alg.push_str(&format!("  kid {}", sanitize(kid)));
    }
    if let Some(typ) = token.header.typ.as_deref() {
        alg.push_str(&format!("  typ {}", sanitize(typ)));
    }
    let audiences = (!claims.audiences.is_empty()).then(|| claims.audiences.join(", "));
    let object = |r: Option<ObjectRef>| {
        r.map(|r| {
            let name = or_dash(r.name.as_deref());
            match r.uid {
                Some(uid) => format!("{name}  {}", format!("uid {}", sanitize(&uid)).style(s.dim)),
                None => name,
            }
        })
    };
    let k8s = claims.kubernetes.as_ref();
    let when = |secs: Option<i64>| {
        secs.map(|secs| {
            let at = at_seconds(secs);
            format!(
                "{}  {}",
                style.time(at),
                format!("({})", relative(at, now)).style(s.dim)
            )
        })
    };
    let jti = claims
        .jwt_id
        .as_deref()
        .map(|j| format!("JTI={}", sanitize(j)));
    let signature = if token.signature_len == 0 {
        "none".style(s.error).to_string()
    } else {
        format!("{} bytes (not shown)", token.signature_len)
    };
    let rows = [
        ("Token", Some(token_line)),
        ("Kind", Some(format!("{}{bound_to}", report.kind.as_str()))),
        ("Algorithm", Some(alg)),
        ("Issuer", Some(or_dash(claims.issuer.as_deref()))),
        ("Subject", Some(or_dash(claims.subject.as_deref()))),
        ("Audiences", audiences.as_deref().map(cell)),
        ("Namespace", claims.namespace().map(cell)),
        ("ServiceAccount", object(claims.service_account())),
        ("Pod", object(k8s.and_then(|k| k.pod.clone()))),
        ("Node", object(k8s.and_then(|k| k.node.clone()))),
        ("Secret", object(claims.secret())),
        ("Issued at", when(claims.issued_at)),
        ("Not before", when(claims.not_before)),
        (
            "Expires",
            when(claims.expires_at).or(Some("never (no exp)".to_owned())),
        ),
        ("Warn after", when(k8s.and_then(|k| k.warn_after))),
        ("Lifetime", report.lifetime_seconds.map(human_seconds)),
        ("Credential ID", jti),
        ("Signature", Some(signature)),
    ];
    write_verdict_line(out, report, style)?;
    write_table(out, &key_value_table(style, rows))?;
    writeln!(out)?;
    if let Some(authn) = &report.authn {
        super::authconfig::write_authn(out, authn, style)?;
    }
    write_findings(out, &report.findings, style)
}

/// The line above each token of a CSI map.
pub fn write_csi_heading(
    out: &mut dyn Write,
    index: usize,
    of: usize,
    audience: &str,
    style: &TableStyle,
) -> io::Result<()> {
    writeln!(
        out,
        "{}",
        format!("CSI token {index} of {of}: audience {}", sanitize(audience))
            .style(style.styles.bold)
    )
}

fn write_verdict_line(
    out: &mut dyn Write,
    report: &DecodeReport,
    style: &TableStyle,
) -> io::Result<()> {
    let s = &style.styles;
    let at = style.judged_at(report.time.at, report.time.leeway);
    let (verdict, look) = match report.time.verdict() {
        None => (report.time.summary(), s.warning),
        Some(Verdict::Accept) => ("accepted (within its time window)".to_owned(), s.ok),
        Some(v) => (format!("rejected: {}", v.words()), s.error),
    };
    let summary = counts(&report.findings);
    writeln!(out, "Verdict {at}: {}{summary}", verdict.style(look))?;
    if matches!(report.time.verdict(), None | Some(Verdict::Accept)) {
        let bound = match report.binding {
            Binding::Pod => " and its pod",
            Binding::Secret => " and its Secret",
            Binding::Node => " and its node",
            Binding::None => "",
        };
        let exist = if bound.is_empty() { "exists" } else { "exist" };
        let note = format!(
            "Offline, not checked: the signature and key, and whether its ServiceAccount{bound} still {exist}. On a 401: kubectl satoken probe"
        );
        for line in super::diagnosis::wrap(&note, usize::from(style.width).max(30)) {
            writeln!(out, "{}", line.style(s.dim))?;
        }
    }
    writeln!(out)
}

fn counts(findings: &[Finding]) -> String {
    let parts: Vec<String> = Severity::ALL
        .iter()
        .rev()
        .filter_map(|&severity| {
            let n = findings.iter().filter(|f| f.severity == severity).count();
            let plural = if n > 1 && severity != Severity::Info {
                "s"
            } else {
                ""
            };
            (n > 0).then(|| format!("{n} {}{plural}", severity.as_str()))
        })
        .collect();
    if parts.is_empty() {
        "; no findings".to_owned()
    } else {
        format!("; {}", parts.join(", "))
    }
}

const WHO_WIDTH: usize = 23;

pub fn write_batch_header(out: &mut dyn Write, style: &TableStyle) -> io::Result<()> {
    writeln!(
        out,
        "{}",
        format!(
            "{:>5}  {:<8}  {:<14}  {:<WHO_WIDTH$}  {:<12}  FINDINGS",
            "LINE", "SHA256", "KIND", "WHO", "EXPIRES"
        )
        .style(style.styles.bold)
    )
}

/// One compact row of a batch (streamed: no table is kept in memory). Findings
/// that would push the row past the width go on a continuation line.
pub fn write_batch_row(
    out: &mut dyn Write,
    line: usize,
    report: &DecodeReport,
    style: &TableStyle,
) -> io::Result<()> {
    let s = &style.styles;
    let claims = &report.token.claims;
    // namespace/name says the same as system:serviceaccount:namespace:name in less room.
    let who = match (
        claims.namespace(),
        claims.service_account().and_then(|sa| sa.name),
    ) {
        (Some(ns), Some(name)) => format!("{ns}/{name}"),
        _ => claims.subject.clone().unwrap_or_else(|| "-".to_owned()),
    };
    let expires = claims
        .expires_at
        .map(|e| relative(at_seconds(e), report.time.at))
        .unwrap_or_else(|| "never".to_owned());
    let codes: Vec<&str> = report.findings.iter().map(|f| f.code.as_str()).collect();
    let plain_len = codes.join(",").len();
    let findings = if codes.is_empty() {
        "-".style(s.dim).to_string()
    } else {
        report
            .findings
            .iter()
            .map(|f| f.code.as_str().style(s.severity(f.severity)).to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let prefix = format!(
        "{line:>5}  {:<8}  {:<14}  {:<WHO_WIDTH$}  {:<12}  ",
        report.token.fingerprint,
        report.kind.as_str(),
        ellipsize(&sanitize(&who), WHO_WIDTH),
        expires
    );
    if prefix.chars().count() + plain_len <= usize::from(style.width) {
        writeln!(out, "{prefix}{findings}")
    } else {
        writeln!(out, "{}", prefix.trim_end())?;
        writeln!(out, "{:7}{findings}", "")
    }
}

pub fn write_batch_error(
    out: &mut dyn Write,
    line: usize,
    error: &str,
    style: &TableStyle,
) -> io::Result<()> {
    writeln!(
        out,
        "{line:>5}  {:<8}  {}",
        "-",
        format!("error: {}", sanitize(error)).style(style.styles.error)
    )
}

#[cfg(test)]
mod wrap_tests {
    use super::*;

    #[test]
    fn long_words_break_after_dashes_slashes_and_equals_only() {
        let text = "runs with --service-account-extend-token-expiration=false (managed) see https://kubernetes.io/docs/reference/access-authn-authz/service-accounts-admin/";
        let wrapped = wrap_at_boundaries(text, 30);
        for line in wrapped.lines() {
            assert!(line.chars().count() <= 30, "{line:?}");
        }
        for piece in [
            "--service-account-",
            "extend-token-",
            "expiration=",
            "https://",
            "kubernetes.io/",
        ] {
            assert!(
                wrapped.lines().any(|l| l.contains(piece)),
                "{piece}: {wrapped}"
            );
        }
        assert_eq!(wrap_at_boundaries("aa bb cc", 5), "aa bb\ncc");
        assert_eq!(
            wrap_at_boundaries("kube-apiserver x", 14),
            "kube-apiserver\nx"
        );
    }

    #[test]
    fn an_80_column_table_never_splits_inside_an_identifier() {
        let style = TableStyle::plain(80);
        let mut table = bordered_table(&style, &["SEVERITY", "CODE", "MESSAGE"]);
        table.add_row([
            "INFO",
            "no-extended-expiry",
            "a kubelet token of 3607s with no one-year grace (no warnafter): kube-apiserver runs with --service-account-extend-token-expiration=false (managed OIDC-issuer clusters do)",
        ]);
        let mut out = Vec::new();
        write_table(&mut out, &table).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        assert!(
            text.contains("--service-account-extend-token-") && text.contains("expiration=false"),
            "{text}"
        );
    }
}
