//! The one wire shape and the one text layout of a [`Diagnosis`], shared by
//! `probe`, `classify` and `doctor`. Commands come typed from the engine: JSON
//! carries their argv and their shell form, tables print them on a line of
//! their own after `$`, never wrapped, so they can be copied as they are.

use std::borrow::Cow;
use std::io::{self, Write};

use owo_colors::OwoColorize as _;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::TableStyle;
use super::sanitize::sanitize;
use crate::diagnosis::{
    Basis, Candidate, Cause, Classification, Command, Confidence, Diagnosis, NextStep, Support,
    SupportKind,
};

/// A diagnosis: the class of answer, the most likely cause with its support
/// and next steps, the other causes the evidence allows, and notes.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct DiagnosisJson<'a> {
    /// What kind of answer the request got (or could not get).
    pub classification: Classification,
    /// The most likely cause (`kubectl satoken explain CAUSE` says more).
    pub cause: Cause,
    /// How sure (docs/classify.md, "How sure"): high when the party that
    /// decided said so, satoken saw it, or the protocol proves it; medium on a
    /// client's words or facts that do not quite meet; low for one guess
    /// among several.
    pub confidence: Confidence,
    /// What the confidence was earned on: `said`, `observed`, `proven`,
    /// `inferred` or `possible`.
    pub basis: Basis,
    /// The cause's one-line summary.
    pub summary: Cow<'static, str>,
    /// The facts behind the cause.
    pub support: Cow<'a, [Support]>,
    /// What to do: confirm, then fix.
    pub next: Cow<'a, [NextStep]>,
    /// The other causes the evidence allows, most likely first.
    pub alternatives: Vec<CandidateJson<'a>>,
    /// Facts about the case that support no cause in particular.
    pub notes: Cow<'a, [Support]>,
}

/// One other candidate cause.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct CandidateJson<'a> {
    /// The cause.
    pub cause: Cause,
    /// How sure.
    pub confidence: Confidence,
    /// What the confidence was earned on.
    pub basis: Basis,
    /// The cause's one-line summary.
    pub summary: Cow<'static, str>,
    /// The facts behind this cause (left out in `audit`'s findings, which
    /// name their alternatives only).
    #[serde(default, skip_serializing_if = "<[_]>::is_empty")]
    pub support: Cow<'a, [Support]>,
    /// What confirms or fixes it (left out in `audit`'s findings: `kubectl
    /// satoken explain CAUSE`).
    #[serde(default, skip_serializing_if = "<[_]>::is_empty")]
    pub next: Cow<'a, [NextStep]>,
}

/// A field read back that this version writes itself (a summary, a token).
pub(crate) fn ignored<'de, D: serde::Deserializer<'de>, T: Default>(d: D) -> Result<T, D::Error> {
    serde::de::IgnoredAny::deserialize(d)?;
    Ok(T::default())
}

impl<'a> DiagnosisJson<'a> {
    pub fn new(d: &'a Diagnosis) -> Self {
        let top = d.top();
        DiagnosisJson {
            classification: d.classification,
            cause: top.cause,
            confidence: top.confidence,
            basis: top.basis,
            summary: Cow::Borrowed(top.cause.summary()),
            support: Cow::Borrowed(&top.support),
            next: Cow::Borrowed(&top.next),
            alternatives: d.alternatives().iter().map(CandidateJson::new).collect(),
            notes: Cow::Borrowed(&d.notes),
        }
    }

    /// Owned, with the alternatives named but not argued (no support, no
    /// steps: `kubectl satoken explain CAUSE` has them): a report of
    /// thousands of findings carries each one's answer, not every guess's case.
    pub fn brief(d: &Diagnosis) -> DiagnosisJson<'static> {
        let top = d.top();
        let named = |c: &Candidate| CandidateJson {
            cause: c.cause,
            confidence: c.confidence,
            basis: c.basis,
            summary: Cow::Borrowed(c.cause.summary()),
            support: Cow::Borrowed(&[]),
            next: Cow::Borrowed(&[]),
        };
        DiagnosisJson {
            classification: d.classification,
            cause: top.cause,
            confidence: top.confidence,
            basis: top.basis,
            summary: Cow::Borrowed(top.cause.summary()),
            support: Cow::Owned(top.support.clone()),
            next: Cow::Owned(top.next.clone()),
            alternatives: d.others().map(named).collect(),
            notes: Cow::Owned(d.notes.clone()),
        }
    }

    /// The diagnosis as this version holds it (read back from a document).
    pub fn to_diagnosis(&self) -> Diagnosis {
        let top = Candidate {
            cause: self.cause,
            confidence: self.confidence,
            basis: self.basis,
            support: self.support.to_vec(),
            next: self.next.to_vec(),
        };
        let others = self.alternatives.iter().map(|c| Candidate {
            cause: c.cause,
            confidence: c.confidence,
            basis: c.basis,
            support: c.support.to_vec(),
            next: c.next.to_vec(),
        });
        Diagnosis {
            classification: self.classification,
            candidates: std::iter::once(top).chain(others).collect(),
            notes: self.notes.to_vec(),
        }
    }
}

impl<'a> CandidateJson<'a> {
    fn new(c: &'a Candidate) -> Self {
        CandidateJson {
            cause: c.cause,
            confidence: c.confidence,
            basis: c.basis,
            summary: Cow::Borrowed(c.cause.summary()),
            support: Cow::Borrowed(&c.support),
            next: Cow::Borrowed(&c.next),
        }
    }
}

/// A diagnosis in full: its heading
/// (`Diagnosis: 401-invalid-token: clock-skew (medium confidence)`) and its body.
pub fn write_diagnosis(out: &mut dyn Write, d: &Diagnosis, style: &TableStyle) -> io::Result<()> {
    let s = &style.styles;
    writeln!(
        out,
        "{} {}: {}",
        "Diagnosis:".style(s.bold),
        d.classification.as_str(),
        cause_words(d.cause(), d.confidence()).style(s.bold)
    )?;
    write_body(out, d, style)
}

/// `clock-skew (medium confidence)`.
pub fn cause_words(cause: Cause, confidence: Confidence) -> String {
    format!("{} ({} confidence)", cause.as_str(), confidence.as_str())
}

/// The body under a diagnosis heading: the summary, Evidence, Next steps,
/// Other candidates and Notes, each item wrapped to the width.
pub fn write_body(out: &mut dyn Write, d: &Diagnosis, style: &TableStyle) -> io::Result<()> {
    let s = &style.styles;
    let width = style.text_width();
    write_lead(out, d, style)?;
    let section = |out: &mut dyn Write, title: &str| writeln!(out, "{}", title.style(s.bold));
    let others: Vec<&Candidate> = d.others().collect();
    if !others.is_empty() {
        section(out, "Other candidates:")?;
        for c in others {
            let mut text = cause_words(c.cause, c.confidence);
            // The answer line is the same for every candidate: show what is
            // particular to this one.
            let first = c
                .support
                .iter()
                .find(|s| s.kind != SupportKind::Answer)
                .or(c.support.first());
            if let Some(first) = first {
                text.push_str(&format!(": {}", support_text(first)));
            }
            write_item(out, &text, width)?;
            let command = c.next.iter().find_map(|n| n.command.as_ref());
            write_command(out, command)?;
        }
    }
    if !d.notes.is_empty() {
        section(out, "Notes:")?;
        for item in &d.notes {
            write_item(out, &support_text(item), width)?;
        }
    }
    Ok(())
}

/// The most likely cause's summary, Evidence and Next steps, each item
/// wrapped to the text width: what every table of a diagnosis shows in full.
pub(crate) fn write_lead(out: &mut dyn Write, d: &Diagnosis, style: &TableStyle) -> io::Result<()> {
    let s = &style.styles;
    let width = style.text_width();
    let top = d.top();
    for line in wrap(top.cause.summary(), width + 2) {
        writeln!(out, "  {}", line.style(s.dim))?;
    }
    if !top.support.is_empty() {
        writeln!(out, "{}", "Evidence:".style(s.bold))?;
        for item in &top.support {
            write_item(out, &support_text(item), width)?;
        }
    }
    write_steps(out, &top.next, style)
}

/// `Next steps:`, each step's why and its command; nothing without steps.
pub(crate) fn write_steps(
    out: &mut dyn Write,
    steps: &[NextStep],
    style: &TableStyle,
) -> io::Result<()> {
    if !steps.is_empty() {
        writeln!(out, "{}", "Next steps:".style(style.styles.bold))?;
    }
    for step in steps {
        write_item(out, &step.why, style.text_width())?;
        write_command(out, step.command.as_ref())?;
    }
    Ok(())
}

/// `server: text` when the fact is about one of several servers.
pub(crate) fn support_text(s: &Support) -> String {
    match &s.server {
        Some(server) => format!("{server}: {}", s.text),
        None => s.text.clone(),
    }
}

pub(crate) fn write_item(out: &mut dyn Write, text: &str, width: usize) -> io::Result<()> {
    write_hanging(out, BULLET, &sanitize(text), width)
}

/// `  - text`, its further lines under the text ([`write_hanging`]).
pub(crate) const BULLET: [&str; 2] = ["  - ", "    "];

/// `text` wrapped to `width`, its first line after `first`, the others
/// after `rest`.
pub(crate) fn write_hanging(
    out: &mut dyn Write,
    [first, rest]: [&str; 2],
    text: &str,
    width: usize,
) -> io::Result<()> {
    for (i, line) in wrap(text, width).iter().enumerate() {
        writeln!(out, "{}{line}", if i == 0 { first } else { rest })?;
    }
    Ok(())
}

/// `    $ command   # expect`, under its bullet, on one line however long.
fn write_command(out: &mut dyn Write, command: Option<&Command>) -> io::Result<()> {
    let Some(c) = command else { return Ok(()) };
    let expect = c.expect.as_ref().map(|e| format!("   # {e}"));
    let expect = expect.unwrap_or_default();
    writeln!(out, "    $ {}{}", sanitize(&c.shell()), sanitize(&expect))
}

/// Word wrap (linear), words longer than the width on a line of their own.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let options = textwrap::Options::new(width.max(1))
        .break_words(false)
        .word_separator(textwrap::WordSeparator::AsciiSpace)
        .word_splitter(textwrap::WordSplitter::NoHyphenation);
    // Never empty: textwrap makes an empty text one empty line.
    textwrap::wrap(text, options)
        .into_iter()
        .map(Cow::into_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_on_words_and_keeps_long_words_whole() {
        assert_eq!(wrap("aa bb cc", 5), ["aa bb", "cc"]);
        assert_eq!(wrap("a-very-long-word x", 4), ["a-very-long-word", "x"]);
        assert_eq!(wrap("", 10), [""]);
    }

    #[test]
    fn commands_are_printed_whole_after_a_dollar() {
        let c = Command::kubectl()
            .words(&["get", "pods"])
            .value(Some("a b"), "NAME")
            .expecting("a uid");
        let mut out = Vec::new();
        write_command(&mut out, Some(&c)).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "    $ kubectl get pods 'a b'   # a uid\n"
        );
    }
}
