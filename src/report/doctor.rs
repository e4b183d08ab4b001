//! `doctor` rendering: one line per step as it completes (a step list on a
//! terminal, plain lines in a log), then the verdict with its evidence and fix;
//! and the JSON document embedding the sub-reports.

use std::io::{self, Write};

use owo_colors::OwoColorize as _;
use schemars::JsonSchema;
use serde::Serialize;

use super::TableStyle;
use super::diagnosis::{DiagnosisJson, cause_words, wrap, write_body, write_hanging};
use super::json::{DecodeJson, Time};
use super::probe::ProbeJson;
use super::sanitize::sanitize;
use super::verify::VerifyJson;
use crate::decode::DecodeReport;
use crate::diagnosis::Cause;
use crate::doctor::{DoctorReport, DoctorVerdict, KeysObservation, Step, StepStatus};
use crate::probe::ProbeReport;

const NAME_WIDTH: usize = 13;

/// `doctor -o json`: the in-pod checks, their verdict and diagnosis, and the
/// `decode`, `probe` and `verify` documents they came from.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DoctorJson<'a> {
    /// The one-word answer.
    pub verdict: DoctorVerdict,
    /// The process exit code this verdict gives (0 healthy or degraded,
    /// 1 broken, 3 unreachable).
    pub exit_code: u8,
    /// `--now` or the clock.
    pub evaluated_at: Time,
    /// Every step, in order.
    pub steps: &'a [Step],
    /// The root cause, with its evidence, next steps and alternatives.
    pub diagnosis: DiagnosisJson<'a>,
    /// `decode -o json` of the token.
    pub token: DecodeJson<'a>,
    /// `probe -o json` of the API server.
    pub probe: ProbeJson<'a>,
    /// `verify -o json` against the server's keys, when they could be read;
    /// else null.
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
            verdict: report.verdict,
            exit_code: report.verdict.outcome().code(),
            evaluated_at: Time::new(decode.time.at),
            steps: &report.steps,
            diagnosis: DiagnosisJson::new(&report.diagnosis),
            token: DecodeJson::new(decode, None),
            probe: ProbeJson::new(probe, Some(&decode.token)),
            keys: match keys {
                KeysObservation::Verified(v) => Some(VerifyJson::new(v, &decode.token)),
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
    let first = format!(
        "{} {:<NAME_WIDTH$} ",
        format!("[{label}]").style(look),
        step.name
    );
    write_hanging(out, [&first, &" ".repeat(indent)], &summary, width)?;
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
    let cause = if d.cause() == Cause::None {
        String::new()
    } else {
        format!(": {}", cause_words(d.cause(), d.confidence()))
    };
    writeln!(
        out,
        "{} {}{cause}",
        format!("Verdict: {}", report.verdict.as_str().to_uppercase()).style(look),
        format!("[{}]", d.classification.as_str()).style(s.dim),
    )?;
    if d.cause() != Cause::None || !d.notes.is_empty() {
        write_body(out, d, style)?;
    }
    out.flush()
}
