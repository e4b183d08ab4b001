//! Rendering: reports in, text out. Renderers receive a [`Style`] set and a width
//! and never look at the environment, the terminal or the clock (the instant they
//! show relative times against is in the report).

pub mod audit;
pub mod authconfig;
pub mod classify;
pub mod classify_log;
pub mod diagnosis;
pub mod doctor;
pub mod explain;
pub mod json;
pub mod probe;
pub use crate::sanitize;
pub mod skew;
pub mod table;
pub mod verify;
pub mod yaml;

use chrono::{DateTime, TimeDelta, Utc};
use owo_colors::Style;

/// `-o` choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// Human-readable tables (default).
    Table,
    /// One JSON document (JSON Lines for batches); schema in docs/output.md.
    Json,
    /// The JSON document's fields as YAML (one document per token for batches).
    Yaml,
}

/// A machine-readable format: what `-o json|yaml` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataFormat {
    Json,
    Yaml,
}

impl OutputFormat {
    pub fn data(self) -> Option<DataFormat> {
        match self {
            OutputFormat::Table => None,
            OutputFormat::Json => Some(DataFormat::Json),
            OutputFormat::Yaml => Some(DataFormat::Yaml),
        }
    }
}

/// Writes one report as pretty JSON or as YAML (same fields, same names).
pub fn write_data(
    out: &mut dyn std::io::Write,
    format: DataFormat,
    value: &impl serde::Serialize,
) -> std::io::Result<()> {
    match format {
        DataFormat::Json => json::write_pretty(out, value),
        DataFormat::Yaml => out.write_all(yaml::to_string(value)?.as_bytes()),
    }
}

/// One record of a stream: a JSON line, or a YAML document opened with `---`.
pub fn write_record(
    out: &mut dyn std::io::Write,
    format: DataFormat,
    value: &impl serde::Serialize,
) -> std::io::Result<()> {
    match format {
        DataFormat::Json => json::write_line(out, value),
        DataFormat::Yaml => {
            out.write_all(b"---\n")?;
            out.write_all(yaml::to_string(value)?.as_bytes())
        }
    }
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
    pub fn colorize(&mut self) {
        self.error = Style::new().red().bold();
        self.warning = Style::new().yellow().bold();
        self.info = Style::new().cyan();
        self.ok = Style::new().green().bold();
        self.dim = Style::new().dimmed();
        self.bold = Style::new().bold();
    }

    pub fn severity(&self, severity: crate::findings::Severity) -> Style {
        match severity {
            crate::findings::Severity::Error => self.error,
            crate::findings::Severity::Warning => self.warning,
            crate::findings::Severity::Info => self.info,
        }
    }
}

/// `at` in the local time zone (`TZ`, else the system's).
#[cfg(not(target_os = "macos"))]
fn local(at: chrono::DateTime<chrono::Utc>) -> chrono::DateTime<chrono::Local> {
    at.with_timezone(&chrono::Local)
}

/// `at` in the local time zone (`TZ`, else the system's), from libc's
/// `localtime_r`: chrono's `Local` asks CoreFoundation on macOS, a framework
/// the cross-built release cannot link (docs/release.md).
#[cfg(target_os = "macos")]
fn local(at: chrono::DateTime<chrono::Utc>) -> chrono::DateTime<chrono::FixedOffset> {
    let seconds = at.timestamp() as libc::time_t;
    // SAFETY: localtime_r only writes the `tm` it is given; a zeroed `tm` is a
    // valid value, left as it is (offset 0, UTC) if the call fails.
    let offset = unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        libc::localtime_r(&seconds, &mut tm);
        tm.tm_gmtoff
    };
    let offset = chrono::FixedOffset::east_opt(offset as i32)
        .unwrap_or_else(|| chrono::FixedOffset::east_opt(0).expect("zero offset"));
    at.with_timezone(&offset)
}

#[derive(Debug, Clone, Copy)]
pub struct TableStyle {
    pub styles: Styles,
    /// Columns available; tables wrap to fit.
    pub width: u16,
    /// `--local-time`: show instants in the local time zone (JSON stays UTC).
    pub local_time: bool,
}

impl TableStyle {
    pub fn plain(width: u16) -> Self {
        TableStyle {
            styles: Styles::default(),
            width,
            local_time: false,
        }
    }

    /// Columns for text wrapped under a heading (bullets, their commands):
    /// the width less an indent, and never under 30.
    pub fn text_width(&self) -> usize {
        usize::from(self.width).saturating_sub(4).max(30)
    }

    /// An instant as the table shows it: RFC 3339 in UTC, or in the local time
    /// zone with its offset under `--local-time`.
    pub fn time(&self, at: DateTime<Utc>) -> String {
        if self.local_time {
            local(at).to_rfc3339_opts(chrono::SecondsFormat::AutoSi, false)
        } else {
            crate::timefmt::rfc3339(at)
        }
    }

    /// `at <instant> (leeway 60s)`: when, and how leniently, a token was judged.
    pub fn judged_at(&self, at: DateTime<Utc>, leeway: TimeDelta) -> String {
        format!("at {} (leeway {}s)", self.time(at), leeway.num_seconds())
    }
}

/// A shard document that cannot be merged (exit 2).
#[derive(Debug, thiserror::Error)]
#[error("{what} is not a `{command}` document: {detail}")]
pub struct ShardError {
    pub what: String,
    /// The command that writes the documents merged.
    pub command: &'static str,
    pub detail: String,
}

/// Another run's document (`--merge`), written by `command`, read from
/// `what`: every string sanitised, then typed as `T` (so every code must be
/// one this version knows) and taken in by `take`.
pub fn read_shard<T: serde::de::DeserializeOwned, U>(
    mut value: serde_json::Value,
    what: &str,
    command: &'static str,
    take: impl FnOnce(T) -> Result<U, String>,
) -> Result<U, ShardError> {
    let error = |detail: String| ShardError {
        what: what.to_owned(),
        command,
        detail,
    };
    crate::sanitize::sanitize_json(&mut value);
    let doc = serde_json::from_value(value).map_err(|e| error(e.to_string()))?;
    take(doc).map_err(error)
}
