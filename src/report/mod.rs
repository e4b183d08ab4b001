//! Rendering: reports in, text out. Renderers receive a [`Style`] set and a width
//! and never look at the environment, the terminal or the clock (the instant they
//! show relative times against is in the report).

pub mod classify;
pub mod doctor;
pub mod json;
pub mod probe;
pub mod sanitize;
pub mod table;
pub mod verify;

use owo_colors::Style;

/// `-o` choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// Human-readable tables (default).
    Table,
    /// One JSON document (JSON Lines for batches); schema in docs/output.md.
    Json,
}

/// Colours for the table renderer: plain by default, [`Styles::colorize`] turns
/// them on. The decision is made once, in `settings.rs`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Styles {
    pub error: Style,
    pub warning: Style,
    pub info: Style,
    pub ok: Style,
    pub dim: Style,
    pub bold: Style,
}

impl Styles {
    /// Turns colours on.
    pub fn colorize(&mut self) {
        self.error = Style::new().red().bold();
        self.warning = Style::new().yellow().bold();
        self.info = Style::new().cyan();
        self.ok = Style::new().green().bold();
        self.dim = Style::new().dimmed();
        self.bold = Style::new().bold();
    }

    /// The style for a finding severity.
    pub fn severity(&self, severity: crate::findings::Severity) -> Style {
        match severity {
            crate::findings::Severity::Error => self.error,
            crate::findings::Severity::Warning => self.warning,
            crate::findings::Severity::Info => self.info,
        }
    }
}

/// How to render tables: colours and width.
#[derive(Debug, Clone, Copy)]
pub struct TableStyle {
    pub styles: Styles,
    /// Columns available; tables wrap to fit.
    pub width: u16,
}
