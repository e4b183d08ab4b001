//! `explain`: every cause's one definition ([`crate::diagnosis::CauseDef`]) laid
//! out for people (a list, or one page) and as JSON (tests/it/docs.rs lays the
//! same pages out as docs/causes.md), and `--wordings`: every table of the
//! vocabulary. The wordings are the rows detection reads (`crate::vocabulary`),
//! so they cannot drift from what the engine matches.

use std::io::{self, Write};

use owo_colors::OwoColorize as _;
use schemars::JsonSchema;
use serde::Serialize;

use super::TableStyle;
use super::diagnosis::{BULLET, write_hanging};
use crate::diagnosis::reasons::ReasonKind;
use crate::diagnosis::wordings as other;
use crate::diagnosis::{Case, Cause, Classification, NextStep};
use crate::vocabulary::authenticators;
use crate::vocabulary::row::Wording;

/// `explain -o json CAUSE`: everything said about one cause.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ExplainJson {
    /// The cause.
    pub code: Cause,
    /// A few words, for headings.
    pub title: &'static str,
    /// One line: what it means for the user.
    pub summary: &'static str,
    /// The answers it explains.
    pub explains: Vec<Classification>,
    /// Why it happens and how kube-apiserver decides it, in paragraphs.
    pub explanation: Vec<&'static str>,
    /// Generic steps that confirm it (placeholders in UPPERCASE); a diagnosis
    /// fills them in.
    pub confirm: Vec<NextStep>,
    /// Generic steps that fix it.
    pub fix: Vec<NextStep>,
    /// kube-apiserver's messages that mean this cause, with their versions.
    pub wordings: Vec<WordingJson>,
    /// What other programs say when this is the cause (the kubelet,
    /// NodeRestriction, JWT authenticators, clients' TLS and network
    /// libraries, cloud token exchanges, checkers), with their versions.
    pub other_wordings: Vec<OtherWordingJson>,
    /// Upstream sources (Kubernetes files, KEPs) the rule follows.
    pub sources: &'static [&'static str],
}

/// One wording.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WordingJson {
    /// The message, with `…` where values go.
    pub text: &'static str,
    /// Which kube-apiserver versions print it.
    pub versions: &'static str,
    /// The reason kind, as in `classify`'s reasons.
    pub kind: ReasonKind,
}

/// One wording of another program.
#[derive(Debug, Serialize, JsonSchema)]
pub struct OtherWordingJson {
    /// Who prints it.
    pub said_by: &'static str,
    /// The message, with UPPERCASE placeholders where values go.
    pub text: &'static str,
    /// Which Kubernetes versions print it.
    pub versions: &'static str,
    /// The file that prints it.
    pub source: &'static str,
}

/// A code `explain` knows: a cause, or another code the tool prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Explained {
    Cause(Cause),
    /// The class of a request's answer (`401-invalid-token`).
    Answer(Classification),
    /// A finding of `decode`, `skew` or `doctor` (`not-yet-valid`).
    Finding(crate::findings::Code),
    /// A token family `decode` tells apart (`projected`).
    TokenKind(crate::token::TokenKind),
}

impl Explained {
    /// Every code the tool prints, as what it is; a cause first (`expired`
    /// is a cause and a finding).
    pub fn all() -> impl Iterator<Item = (&'static str, Explained)> {
        let causes = Cause::ALL
            .iter()
            .map(|c| (c.as_str(), Explained::Cause(*c)));
        let answers = Classification::ALL
            .iter()
            .map(|c| (c.as_str(), Explained::Answer(*c)));
        let findings = crate::findings::Code::ALL
            .iter()
            .map(|c| (c.as_str(), Explained::Finding(*c)));
        let kinds = crate::token::TokenKind::ALL
            .iter()
            .map(|k| (k.as_str(), Explained::TokenKind(*k)));
        causes.chain(answers).chain(findings).chain(kinds)
    }
}

/// What kind of code [`CodeJson`] explains.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CodeKind {
    Answer,
    Finding,
    TokenKind,
}

/// `explain -o json CODE` for a code that is not a cause.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CodeJson {
    /// The code, as printed.
    pub code: &'static str,
    /// What kind of code it is.
    pub kind: CodeKind,
    /// What it means.
    pub meaning: &'static str,
    /// The causes behind it (`explain CAUSE` for each).
    pub causes: Vec<Cause>,
}

impl CodeJson {
    /// `causes`: the causes behind the code, as the caller found them.
    pub fn new(explained: Explained, causes: &[Cause]) -> Self {
        use strum::EnumMessage as _;
        let (code, kind, meaning) = match explained {
            Explained::Answer(c) => (c.as_str(), CodeKind::Answer, c.get_documentation()),
            Explained::Finding(c) => (c.as_str(), CodeKind::Finding, c.get_documentation()),
            Explained::TokenKind(k) => (k.as_str(), CodeKind::TokenKind, k.get_documentation()),
            Explained::Cause(c) => (c.as_str(), CodeKind::Answer, Some(c.summary())),
        };
        CodeJson {
            code,
            kind,
            meaning: meaning.unwrap_or_default().trim(),
            causes: causes.to_vec(),
        }
    }
}

/// `explain CODE` for a code that is not a cause: what it is, and its causes.
pub fn write_code_page(out: &mut dyn Write, page: &CodeJson, style: &TableStyle) -> io::Result<()> {
    let s = &style.styles;
    let width = usize::from(style.width).saturating_sub(2).max(30);
    let kind = match page.kind {
        CodeKind::Answer => "an answer: the class of a request's outcome",
        CodeKind::Finding => "a finding of decode, skew and doctor about the token",
        CodeKind::TokenKind => "a token kind decode tells apart",
    };
    writeln!(out, "{} — {kind}", page.code.style(s.bold))?;
    write_hanging(out, ["  "; 2], &unbreak(page.meaning), width)?;
    if page.causes.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(out, "Causes:")?;
    write_cause_lines(out, &page.causes, "  ", usize::from(style.width), style)
}

/// `explain -o json` with no cause: every cause in one line.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CauseListJson {
    /// Every cause, in the registry's order.
    pub causes: Vec<CauseLineJson>,
}

/// One line of the list.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CauseLineJson {
    /// The cause.
    pub code: Cause,
    /// One line: what it means for the user.
    pub summary: &'static str,
    /// The answers it explains.
    pub explains: Vec<Classification>,
}

impl ExplainJson {
    pub fn new(cause: Cause) -> Self {
        let def = cause.def();
        let generic = Case::default();
        ExplainJson {
            code: cause,
            title: def.title,
            summary: def.summary,
            explains: def.explains.to_vec(),
            explanation: paragraphs(def.explanation),
            confirm: def.confirm.for_case(&generic),
            fix: def.fix.for_case(&generic),
            wordings: wordings(cause),
            other_wordings: other_wordings(cause),
            sources: def.sources,
        }
    }
}

impl CauseListJson {
    pub fn all() -> Self {
        CauseListJson {
            causes: Cause::ALL
                .iter()
                .map(|c| CauseLineJson {
                    code: *c,
                    summary: c.summary(),
                    explains: c.def().explains.to_vec(),
                })
                .collect(),
        }
    }
}

fn paragraphs(text: &'static str) -> Vec<&'static str> {
    text.split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

fn wordings(cause: Cause) -> Vec<WordingJson> {
    let own = authenticators::listed().filter(|w| w.cause == cause);
    // "has been invalidated" names no object: it belongs to every bound object.
    let bound = matches!(
        cause,
        Cause::SecretDeleted | Cause::NodeDeleted | Cause::PodDeleted
    );
    let invalidated = authenticators::listed().filter(|w| {
        bound
            && matches!(
                w.kind,
                ReasonKind::TokenInvalidated | ReasonKind::TokenInvalidatedOldWording
            )
            && w.cause != cause
    });
    own.chain(invalidated)
        .map(|w| WordingJson {
            text: w.text(),
            versions: w.era,
            kind: w.kind,
        })
        .collect()
}

fn other_wordings(cause: Cause) -> Vec<OtherWordingJson> {
    other::for_cause(cause)
        .map(|w| OtherWordingJson {
            said_by: w.printed_by,
            text: w.text,
            versions: w.versions,
            source: w.source,
        })
        .collect()
}

/// `explain --wordings -o json`: every wording the tool reads, table by
/// table, with who prints it and the cause it names.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WordingListJson {
    /// The vocabulary's tables, kube-apiserver's authenticators first.
    pub tables: Vec<WordingTableJson>,
}

/// One table of the vocabulary.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WordingTableJson {
    /// What the table holds.
    pub table: &'static str,
    /// Its rows, in the order detection tries them.
    pub wordings: Vec<Wording>,
}

impl WordingListJson {
    pub fn all() -> Self {
        let authenticators = WordingTableJson {
            table: "kube-apiserver's authenticators (its log, a TokenReview's error)",
            wordings: authenticators::listed()
                .map(|m| Wording {
                    printed_by: "kube-apiserver",
                    text: m.text(),
                    versions: m.era,
                    cause: Some(m.cause),
                    source: m.source,
                })
                .collect(),
        };
        let others = other::TABLES.iter().map(|(table, rows)| WordingTableJson {
            table,
            wordings: rows.to_vec(),
        });
        WordingListJson {
            tables: std::iter::once(authenticators).chain(others).collect(),
        }
    }
}

/// `explain --wordings`: every wording, under its table's heading, with the
/// cause it names.
pub fn write_wordings(out: &mut dyn Write, style: &TableStyle) -> io::Result<()> {
    let s = &style.styles;
    let width = usize::from(style.width).saturating_sub(2).max(30);
    for table in WordingListJson::all().tables {
        writeln!(out, "{}", table.table.style(s.bold))?;
        for w in table.wordings {
            let cause = w.cause.map(|c| format!(" → {}", c.as_str()));
            let line = format!(
                "{}: \"{}\" ({}){}",
                w.printed_by,
                w.text,
                w.versions,
                cause.unwrap_or_default()
            );
            write_hanging(out, BULLET, &line, width.saturating_sub(2))?;
        }
        writeln!(out)?;
    }
    writeln!(
        out,
        "{}",
        "kubectl satoken explain CAUSE: a cause's page, with the wordings that name it"
            .style(s.dim)
    )
}

/// `explain`: every cause, one line each.
pub fn write_list(out: &mut dyn Write, style: &TableStyle) -> io::Result<()> {
    write_cause_lines(out, Cause::ALL, "", usize::from(style.width), style)
}

/// Each cause's code and summary, the summary wrapped beside the codes, then
/// how to read one.
fn write_cause_lines(
    out: &mut dyn Write,
    causes: &[Cause],
    indent: &str,
    width: usize,
    style: &TableStyle,
) -> io::Result<()> {
    let s = &style.styles;
    let code_width = causes.iter().map(|c| c.as_str().len()).max().unwrap_or(0);
    let room = width.saturating_sub(indent.len() + code_width + 2).max(30);
    let rest = " ".repeat(indent.len() + code_width + 2);
    for cause in causes {
        let code = format!("{:<code_width$}", cause.as_str());
        let first = format!("{indent}{}  ", code.style(s.bold));
        write_hanging(out, [&first, &rest], cause.summary(), room)?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "{}",
        "kubectl satoken explain CAUSE: what it means, how to confirm it, how to fix it"
            .style(s.dim)
    )
}

/// `explain CAUSE`: the cause's page.
pub fn write_page(out: &mut dyn Write, cause: Cause, style: &TableStyle) -> io::Result<()> {
    let s = &style.styles;
    let page = ExplainJson::new(cause);
    let width = usize::from(style.width).saturating_sub(2).max(30);
    writeln!(out, "{} — {}", cause.as_str().style(s.bold), page.title)?;
    write_hanging(out, ["  "; 2], page.summary, width)?;
    let explains: Vec<&str> = page.explains.iter().map(|c| c.as_str()).collect();
    writeln!(
        out,
        "  {}",
        format!("Answers: {}", explains.join(", ")).style(s.dim)
    )?;
    for para in page.explanation {
        writeln!(out)?;
        write_hanging(out, ["  "; 2], &unbreak(para), width)?;
    }
    let section = |out: &mut dyn Write, title: &str| writeln!(out, "\n{}", title.style(s.bold));
    for (title, steps) in [("How to confirm:", page.confirm), ("How to fix:", page.fix)] {
        if steps.is_empty() {
            continue;
        }
        section(out, title)?;
        for step in steps {
            write_hanging(out, BULLET, &step.why, width.saturating_sub(2))?;
            if let Some(c) = &step.command {
                writeln!(out, "    $ {}", c.shell())?;
            }
        }
    }
    if !page.wordings.is_empty() {
        section(out, "What kube-apiserver says (log, TokenReview):")?;
        for w in page.wordings {
            let line = format!("\"{}\" ({})", w.text, w.versions);
            write_hanging(out, BULLET, &line, width.saturating_sub(2))?;
        }
    }
    if !page.other_wordings.is_empty() {
        section(out, "What other programs say:")?;
        for w in page.other_wordings {
            let line = format!("{}: \"{}\" ({})", w.said_by, w.text, w.versions);
            write_hanging(out, BULLET, &line, width.saturating_sub(2))?;
        }
    }
    section(out, "Sources:")?;
    for source in page.sources {
        writeln!(out, "  - {source}")?;
    }
    Ok(())
}

/// Explanations are written with line breaks inside paragraphs; wrap anew.
fn unbreak(paragraph: &str) -> String {
    paragraph.split_whitespace().collect::<Vec<_>>().join(" ")
}
