//! `doctor` rendering: one line per step as it completes (a step list on a
//! terminal, plain lines in a log), then the verdict with its evidence and fix;
//! and the JSON document embedding the sub-reports.

use std::io::{self, Write};

use owo_colors::OwoColorize as _;
use serde::Serialize;

use super::TableStyle;
use super::json::DecodeJson;
use super::probe::ProbeJson;
use super::sanitize::sanitize;
use super::verify::VerifyJson;
use crate::decode::DecodeReport;
use crate::diagnosis::Diagnosis;
use crate::doctor::{DoctorReport, DoctorVerdict, KeysObservation, Step, StepStatus};
use crate::probe::ProbeReport;
use crate::timefmt::rfc3339;

/// Width of the step-name column.
const NAME_WIDTH: usize = 13;

/// `doctor -o json`.
#[derive(Debug, Serialize)]
pub struct DoctorJson<'a> {
    /// healthy | degraded | broken | unreachable.
    pub verdict: &'static str,
    pub exit_code: u8,
    pub evaluated_at: String,
    pub steps: &'a [Step],
    /// The root cause: `{classification, cause, confidence, evidence, next_steps, candidates}`.
    pub diagnosis: &'a Diagnosis,
    /// `decode -o json` of the token.
    pub token: DecodeJson<'a>,
    /// `probe -o json` of the API server.
    pub probe: ProbeJson<'a>,
    /// `verify -o json` against the server's keys, when they could be read.
    pub keys: Option<VerifyJson<'a>>,
}

impl<'a> DoctorJson<'a> {
    pub fn new(
        report: &'a DoctorReport,
        decode: &'a DecodeReport,
        probe: &'a ProbeReport,
        keys: &'a KeysObservation,
    ) -> Self {
        DoctorJson {
            verdict: report.verdict.as_str(),
            exit_code: report.verdict.outcome().code(),
            evaluated_at: rfc3339(decode.evaluated_at),
            steps: &report.steps,
            diagnosis: &report.diagnosis,
            token: DecodeJson::new(decode, None),
            probe: ProbeJson::new(probe),
            keys: match keys {
                KeysObservation::Verified(v) => Some(VerifyJson::new(v)),
                _ => None,
            },
        }
    }
}

/// One step, as soon as it is known: `[PASS] token        summary…`, wrapped.
pub fn write_step(out: &mut dyn Write, step: &Step, style: &TableStyle) -> io::Result<()> {
    let s = &style.styles;
    let (label, look) = match step.status {
        StepStatus::Pass => ("PASS", s.ok),
        StepStatus::Warn => ("WARN", s.warning),
        StepStatus::Fail => ("FAIL", s.error),
        StepStatus::Skip => ("SKIP", s.dim),
    };
    let indent = 7 + NAME_WIDTH + 1;
    let width = usize::from(style.width).saturating_sub(indent).max(30);
    let summary = sanitize(&step.summary);
    let mut lines = wrap(&summary, width).into_iter();
    writeln!(
        out,
        "{} {:<NAME_WIDTH$} {}",
        format!("[{label}]").style(look),
        step.name,
        lines.next().unwrap_or_default()
    )?;
    for line in lines {
        writeln!(out, "{:indent$}{line}", "")?;
    }
    if step.status != StepStatus::Pass {
        for detail in &step.details {
            for (i, line) in wrap(&sanitize(detail), width.saturating_sub(2))
                .into_iter()
                .enumerate()
            {
                let bullet = if i == 0 { "- " } else { "  " };
                writeln!(
                    out,
                    "{:indent$}{}",
                    "",
                    format!("{bullet}{line}").style(s.dim)
                )?;
            }
        }
    }
    out.flush()
}

/// The verdict block after the steps.
pub fn write_verdict(
    out: &mut dyn Write,
    report: &DoctorReport,
    style: &TableStyle,
) -> io::Result<()> {
    let s = &style.styles;
    let d = &report.diagnosis;
    let look = match report.verdict {
        DoctorVerdict::Healthy => s.ok,
        DoctorVerdict::Degraded => s.warning,
        DoctorVerdict::Broken | DoctorVerdict::Unreachable => s.error,
    };
    writeln!(out)?;
    let cause = if d.cause.as_str() == "none" {
        String::new()
    } else {
        format!(
            ": {} ({} confidence)",
            d.cause.as_str(),
            confidence(d.confidence)
        )
    };
    writeln!(
        out,
        "{} {}{cause}",
        format!("Verdict: {}", report.verdict.as_str().to_uppercase()).style(look),
        format!("[{}]", d.classification.as_str()).style(s.dim),
    )?;
    let width = usize::from(style.width).saturating_sub(4).max(30);
    for (title, lines) in [("Evidence", &d.evidence), ("Fix", &d.next_steps)] {
        if lines.is_empty() {
            continue;
        }
        writeln!(out, "{}", format!("{title}:").style(s.bold))?;
        for line in lines {
            for (i, part) in item_lines(&sanitize(line), width).iter().enumerate() {
                writeln!(out, "  {}{part}", if i == 0 { "- " } else { "  " })?;
            }
        }
    }
    // The other causes the evidence allows (a 401 body never says which), each
    // with the command that tells it apart; the evidence above refers to them.
    let others = d.candidates.iter().skip(1);
    if others.len() > 0 {
        writeln!(out, "{}", "Other candidates:".style(s.bold))?;
        for c in others {
            let mut text = format!("{} ({})", c.cause.as_str(), confidence(c.confidence));
            if let Some(e) = c.evidence.first() {
                text.push_str(": ");
                text.push_str(e);
            }
            let mut lines = wrap(&sanitize(&text), width);
            lines.extend(c.next_steps.iter().map(|n| format!("$ {}", sanitize(n))));
            for (i, part) in lines.iter().enumerate() {
                writeln!(out, "  {}{part}", if i == 0 { "- " } else { "  " })?;
            }
        }
    }
    out.flush()
}

fn confidence(c: crate::diagnosis::Confidence) -> &'static str {
    match c {
        crate::diagnosis::Confidence::High => "high",
        crate::diagnosis::Confidence::Medium => "medium",
        crate::diagnosis::Confidence::Low => "low",
    }
}

/// One evidence or fix line, wrapped; a command (`kubectl …`, also after
/// "prose: ") stays on one line of its own, so it can be copied and pasted.
fn item_lines(text: &str, width: usize) -> Vec<String> {
    let (prose, command) = match text.find(": kubectl ") {
        _ if text.starts_with("kubectl ") => ("", text),
        Some(at) => (&text[..=at], &text[at + 2..]),
        None => (text, ""),
    };
    let mut lines = if prose.is_empty() {
        Vec::new()
    } else {
        wrap(prose, width)
    };
    if !command.is_empty() {
        lines.push(command.to_owned());
    }
    lines
}

/// Greedy word wrap; words longer than `width` (URLs, uids) stand on their own line.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_stay_on_one_line_after_their_prose() {
        let cmd = "kubectl get leases -n kube-system -o custom-columns=NAME:.metadata.name";
        assert_eq!(
            item_lines(&format!("compare the clocks: {cmd}"), 12),
            ["compare the", "clocks:", cmd]
        );
        assert_eq!(item_lines(cmd, 12), [cmd]);
        assert_eq!(item_lines("a b c", 3), ["a b", "c"]);
    }

    #[test]
    fn wraps_on_words() {
        assert_eq!(wrap("aa bb cc", 5), ["aa bb", "cc"]);
        assert_eq!(wrap("", 5), [""]);
        assert_eq!(
            wrap("averyveryverylongword x", 5),
            ["averyveryverylongword", "x"]
        );
    }
}
