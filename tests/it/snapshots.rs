//! Snapshots of what people read: every subcommand's table (`--no-color`) and
//! `-o json` output, its stderr and its exit code, for the token fixtures, the
//! evidence corpus, the skew fixtures, and `probe`/`doctor` against the local
//! test API server in every failure the other tests build. Each case is two
//! files, tests/it/snapshots/AREA/CASE@table.snap and CASE@json.snap, each
//! starting with `exit: N` and the command as typed (`< LABEL`: what stdin
//! held). A behaviour change (a cause, a confidence, an evidence line, a next
//! step, a JSON field) shows up as a snapshot diff to review.
//!
//! Determinism. Tables get `COLUMNS=100`; runs against test servers get 200,
//! so that no request table has to shrink a column (its wrapping would follow
//! the width of the latency column). Every run against test servers gets fresh
//! servers: a server's clock starts at its configured instant and advances in
//! real time, so it is read within its first second; a run that read a later
//! second (a loaded machine) is repeated ([`check_fresh`]). What still varies
//! is redacted, and nothing else ([`Redact`], [`round_offsets`]): ports
//! (`[PORT1]`… in start order), temporary directories (`[TMP]`), latencies
//! (`[MS]`), measured clock offsets (rounded to 10 s, `≈-90`) and their
//! uncertainty (`[U]`), doctor's direction word for an offset that rounds
//! to zero, and the wall-clock time rustls quotes for an expired certificate.
//!
//! ## Reviewing and accepting changes
//!
//! A changed output fails its test with a diff (the first per test). To see
//! every change at once and accept the intended ones, without installing
//! anything:
//!
//! ```text
//! INSTA_UPDATE=always cargo nextest run --locked -E 'test(/^snapshots::/)'
//! git diff tests/it/snapshots/      # review; `git checkout` what is wrong
//! ```
//!
//! `INSTA_UPDATE=always` rewrites the `.snap` files in place and passes. With
//! cargo-insta installed (`cargo install cargo-insta`), `cargo insta test
//! --review` does the same interactively through `.snap.new` files, which a
//! plain failed local run also leaves (git ignores them). A new case writes
//! its files the same way; a removed case leaves its files behind: delete them
//! with it.
//!
//! CI fails on any changed or missing snapshot and writes nothing: insta does
//! not update under `CI=true` (as CI runs .ci/run), and .ci/run also sets
//! `INSTA_UPDATE=no` and unsets `INSTA_FORCE_PASS` so no environment can turn
//! that off.

mod audit;
mod classify;
mod decode;
mod doctor;
mod explain;
mod features;
mod lab;
mod probe;
mod probe_kubeconfig;
mod skew;
mod verify;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use regex::{Captures, Regex};

/// The `--now` of every case (the instant the fixtures are designed around).
pub const NOW: &str = crate::support::BASE;

/// Table width: fixed, so wrapping does not depend on the terminal running the tests.
const COLUMNS: u16 = 100;

/// Table width of the network cases: wide enough that no request table has to
/// shrink a column, whose wrapping would then depend on the width of the
/// latency column (`9ms` or `1234ms`, whatever the machine's load).
pub const NETWORK_COLUMNS: u16 = 200;

/// The two ways a case is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `--no-color`: the table a terminal shows.
    Table,
    /// `-o json`.
    Json,
}

impl Format {
    fn args(self) -> &'static [&'static str] {
        match self {
            Format::Table => &["--no-color"],
            Format::Json => &["-o", "json"],
        }
    }

    fn suffix(self) -> &'static str {
        match self {
            Format::Table => "table",
            Format::Json => "json",
        }
    }
}

/// What a run reads on stdin.
enum Input {
    /// `/dev/null`, as in a pod.
    Null,
    /// These bytes, shown in the command line as `< label`.
    Bytes { label: String, bytes: Vec<u8> },
}

/// One run of the binary, as a user types it: `kubectl satoken ARGS`, with
/// the environment variables the case sets (shown before the command).
pub struct Invocation {
    /// `(value, as shown)`: a token argument is shown as `"$(cat FILE)"`.
    args: Vec<(String, String)>,
    env: Vec<(String, String)>,
    input: Input,
    redact: Redact,
    /// `COLUMNS`.
    columns: u16,
    /// What must outlive the run (a [`lab::Lab`]: its servers and files).
    keep: Option<Box<dyn std::any::Any>>,
}

impl Invocation {
    /// `kubectl satoken ARGS` with stdin `/dev/null` and no redaction beyond the crate path.
    pub fn new<S: AsRef<str>>(args: &[S]) -> Invocation {
        Invocation {
            args: args.iter().map(|a| shown_as_typed(a.as_ref())).collect(),
            env: Vec::new(),
            input: Input::Null,
            redact: Redact::default(),
            columns: COLUMNS,
            keep: None,
        }
    }

    /// More arguments.
    pub fn args<S: AsRef<str>>(mut self, args: &[S]) -> Invocation {
        self.args
            .extend(args.iter().map(|a| shown_as_typed(a.as_ref())));
        self
    }

    /// An argument shown as `shown` (e.g. a token as `"$(cat token.jwt)"`).
    pub fn arg_shown(mut self, value: &str, shown: &str) -> Invocation {
        self.args.push((value.to_owned(), shown.to_owned()));
        self
    }

    /// An environment variable, shown before the command.
    pub fn env(mut self, name: &str, value: impl Into<String>) -> Invocation {
        self.env.push((name.to_owned(), value.into()));
        self
    }

    /// Feeds `bytes` on stdin; the command line shows `< label`.
    pub fn stdin(mut self, label: &str, bytes: impl Into<Vec<u8>>) -> Invocation {
        self.input = Input::Bytes {
            label: label.to_owned(),
            bytes: bytes.into(),
        };
        self
    }

    /// The redactions this run needs (its servers' ports, its temp dirs).
    pub fn redact(mut self, redact: Redact) -> Invocation {
        self.redact = redact;
        self
    }

    /// Runs with `COLUMNS=columns` instead of the usual 100.
    pub fn columns(mut self, columns: u16) -> Invocation {
        self.columns = columns;
        self
    }

    /// Keeps `thing` alive as long as this invocation.
    pub fn keep(mut self, thing: impl std::any::Any) -> Invocation {
        self.keep = Some(Box::new(thing));
        self
    }

    /// Runs it in `format` and renders the snapshot text (before filtering).
    fn run(&self, format: Format) -> String {
        let format_args = format.args();
        let mut std = crate::support::satoken_std();
        std.current_dir(crate_dir())
            .env("COLUMNS", self.columns.to_string())
            .args(self.args.iter().map(|(value, _)| value))
            .args(format_args);
        for (name, value) in &self.env {
            std.env(name, value);
        }
        let output = match &self.input {
            // assert_cmd always pipes stdin; a pod's is /dev/null.
            Input::Null => std.stdin(Stdio::null()).output().unwrap(),
            Input::Bytes { bytes, .. } => assert_cmd::Command::from_std(std)
                .write_stdin(bytes.clone())
                // Only a guard against a hang; no case comes near it.
                .timeout(Duration::from_secs(60))
                .output()
                .unwrap(),
        };
        let mut shown: Vec<String> = self
            .env
            .iter()
            .map(|(n, v)| format!("{n}={}", shell_word(v)))
            .collect();
        shown.push("kubectl satoken".to_owned());
        shown.extend(self.args.iter().map(|(_, shown)| shown.clone()));
        shown.extend(format_args.iter().map(|a| (*a).to_owned()));
        if let Input::Bytes { label, .. } = &self.input {
            shown.push(format!("< {label}"));
        }
        let mut text = format!(
            "exit: {}\n$ {}\n--- stdout\n{}",
            output
                .status
                .code()
                .map_or_else(|| "signal".to_owned(), |c| c.to_string()),
            shown.join(" "),
            String::from_utf8_lossy(&output.stdout)
        );
        if !text.ends_with('\n') {
            text.push_str("[no newline at end]\n");
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        if !stderr.is_empty() {
            text.push_str("--- stderr\n");
            text.push_str(&stderr);
        }
        text
    }
}

fn shown_as_typed(arg: &str) -> (String, String) {
    (arg.to_owned(), shell_word(arg))
}

/// Quotes a word the way a shell would need it (single quotes when it holds
/// anything but safe characters), so the shown command can be pasted.
fn shell_word(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./:=@,+%[]".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The crate root: every case runs there, so testdata paths print relative.
pub fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The volatile parts of one run's output, and how each is named instead.
#[derive(Default, Clone)]
pub struct Redact {
    /// `(port, name)`: a test server's port, shown as `[name]`.
    ports: Vec<(u16, String)>,
    /// Temporary directories, shown as `[TMP]`.
    temp_dirs: Vec<PathBuf>,
    /// Measured clock offsets, uncertainties and latencies (network cases).
    network: bool,
}

impl Redact {
    /// Redactions for a run against test servers: latencies and measured offsets.
    pub fn network() -> Redact {
        Redact {
            network: true,
            ..Redact::default()
        }
    }

    /// Shows `port` as `[PORTn]`, numbered in the order ports are added.
    pub fn port(mut self, port: u16) -> Redact {
        let name = format!("PORT{}", self.ports.len() + 1);
        self.ports.push((port, name));
        self
    }

    /// Shows `dir` (and anything under it) as `[TMP]`.
    pub fn temp(mut self, dir: &Path) -> Redact {
        self.temp_dirs.push(dir.to_owned());
        self
    }

    /// The insta filters, in the order they apply.
    fn filters(&self) -> Vec<(String, String)> {
        let mut filters = Vec::new();
        for dir in &self.temp_dirs {
            filters.push((
                regex::escape(&dir.display().to_string()),
                "[TMP]".to_owned(),
            ));
        }
        filters.push((
            regex::escape(&crate_dir().display().to_string()),
            "[CRATE]".to_owned(),
        ));
        // A port follows a host (`127.0.0.1:P`, `localhost:P`) or
        // `KUBERNETES_SERVICE_PORT=`; a bare number elsewhere is left alone.
        for (port, name) in &self.ports {
            filters.push((format!(r"(:|_PORT=){port}\b"), format!("${{1}}[{name}]")));
        }
        if self.network {
            // Latency: the TIME column, and the JSON fields in milliseconds.
            filters.push((r"\b\d+ms\b".to_owned(), "[MS]".to_owned()));
            filters.push((r#"("\w*_ms": )\d+"#.to_owned(), "${1}[MS]".to_owned()));
            // doctor words the direction of the offset ("within measurement of"
            // when the interval holds zero); for an offset within the rounding
            // of zero which word applies depends on the run's timing.
            filters.push((
                r"(is )(?:ahead of|behind|within measurement of)( this pod's \(≈\+0\s*s)"
                    .to_owned(),
                "${1}[direction]${2}".to_owned(),
            ));
            // rustls names the wall-clock time it checked an expired certificate at.
            // (A table may wrap inside the message.)
            filters.push((
                r"verification time \d+(\s+)\(UNIX\)".to_owned(),
                "verification time [UNIX-NOW]${1}(UNIX)".to_owned(),
            ));
            filters.push((
                r"\(\d+(\s+)seconds(\s+)ago\)".to_owned(),
                "([N]${1}seconds${2}ago)".to_owned(),
            ));
        }
        filters
    }
}

/// Rounds every measured clock offset to the nearest 10 s (`≈-90`) and hides
/// its uncertainty (`[U]`): both come from `Date` headers (whole seconds) and
/// the moment each request left, so they move by tenths of a second between
/// runs, and by more on a loaded machine. Whitespace (a table may wrap between
/// the number and its unit) is kept as printed.
fn round_offsets(text: &str) -> String {
    let approx = |value: &str| {
        let v: f64 = value.parse().unwrap();
        let tens = (v / 10.0).round() as i64 * 10;
        format!("≈{tens:+}")
    };
    // Text: "+0.4 s ± 0.5 s" (probe) and "(-89.6s ± 0.5s)" (doctor).
    let text_form =
        Regex::new(r"([+-]\d+(?:\.\d+)?|\b0)(\s*s\s+±\s+)(\d+(?:\.\d+)?)(\s*s)").unwrap();
    let text = text_form.replace_all(text, |c: &Captures| {
        format!("{}{}[U]{}", approx(&c[1]), &c[2], &c[4])
    });
    // JSON: "clock_offset_seconds": -89.61, "clock_offset_uncertainty_seconds": 0.5.
    let json_offset =
        Regex::new(r#"("clock_offset_seconds": )(-?\d+(?:\.\d+)?(?:e-?\d+)?)"#).unwrap();
    let text = json_offset.replace_all(&text, |c: &Captures| {
        format!("{}\"{}\"", &c[1], approx(&c[2]))
    });
    let json_uncertainty =
        Regex::new(r#"("clock_offset_uncertainty_seconds": )\d+(?:\.\d+)?(?:e-?\d+)?"#).unwrap();
    let text = json_uncertainty.replace_all(&text, "${1}\"[U]\"");
    // How long until the token is valid on the measured clock moves with
    // the offset's measurement by a second or two.
    let wait = Regex::new(r#"(on its clock the token [^,"]*, for )\d+(s)"#).unwrap();
    wait.replace_all(&text, "${1}[N]${2}").into_owned()
}

/// Runs `invocation` as a table and as JSON and checks both against
/// tests/it/snapshots/`area`/`name`@{table,json}.snap.
pub fn check(area: &str, name: &str, invocation: &Invocation) {
    for format in [Format::Table, Format::Json] {
        assert_one(
            area,
            name,
            format,
            &invocation.run(format),
            &invocation.redact,
        );
    }
}

/// [`check`] for a case whose every run needs its own setup (fresh test
/// servers): `run` builds the invocation for one format.
///
/// A test server's clock starts at its configured instant and advances in
/// real time; its `Date` header has whole seconds. A run that reaches a server
/// a second or more after it started (a loaded machine) reads the next second,
/// and every time derived from it moves (`in about 29 s`). Such a run measured
/// too late to be compared: it is repeated with fresh servers (twice at most).
pub fn check_fresh(area: &str, name: &str, run: impl Fn(Format) -> Invocation) {
    for format in [Format::Table, Format::Json] {
        for attempt in 1.. {
            let invocation = run(format);
            let text = invocation.run(format);
            if attempt < 3 && server_clock_moved(&text) {
                eprintln!("{area}/{name}: a server's clock passed its first second; again");
                continue;
            }
            assert_one(area, name, format, &text, &invocation.redact);
            break;
        }
    }
}

/// Whether a server's clock, as the output reports it, read past the first
/// second of its start: the instants the cases configure are NOW (offset 0)
/// and NOW - 90 s.
fn server_clock_moved(text: &str) -> bool {
    let late = Regex::new(
        r#"(Date |"date": "|"server_time": "|read about )(2026-01-01T00:00:0[1-9]|2025-12-31T23:58:3[1-9])Z"#,
    )
    .unwrap();
    late.is_match(text)
}

fn assert_one(area: &str, name: &str, format: Format, text: &str, redact: &Redact) {
    let text = if redact.network {
        round_offsets(text)
    } else {
        text.to_owned()
    };
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(format!("snapshots/{area}"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_snapshot_suffix(format.suffix());
    settings.set_omit_expression(true);
    for (pattern, replacement) in redact.filters() {
        settings.add_filter(&pattern, replacement);
    }
    settings.bind(|| insta::assert_snapshot!(name, text));
}

/// The normalisers themselves: what they change and what they leave alone.
#[test]
fn offsets_round_and_late_server_clocks_are_seen() {
    assert_eq!(
        round_offsets("Clock:   -89.6 s ± 0.5 s from\n(+0.4s ± 0.5s) (-0.3\n    s ± 0.6 s)"),
        "Clock:   ≈-90 s ± [U] s from\n(≈+0s ± [U]s) (≈+0\n    s ± [U] s)"
    );
    assert_eq!(
        round_offsets(
            r#""clock_offset_seconds": -88.712, "clock_offset_uncertainty_seconds": 0.5"#
        ),
        r#""clock_offset_seconds": "≈-90", "clock_offset_uncertainty_seconds": "[U]""#
    );
    // Token times and skew's fixed offsets are not measurements.
    let fixed = r#"nbf 2026-01-01T00:00:00Z, "offset_seconds": 90.0, +90s ±1s"#;
    assert_eq!(round_offsets(fixed), fixed);
    assert!(!server_clock_moved(
        r#"Date 2026-01-01T00:00:00Z "date": "2025-12-31T23:58:30Z""#
    ));
    assert!(server_clock_moved("Date 2026-01-01T00:00:01Z"));
    assert!(server_clock_moved(
        r#""server_time": "2025-12-31T23:58:31Z""#
    ));
    assert!(!server_clock_moved("expires 2026-01-01T00:00:07Z"));
}
