//! Colour appears on a terminal and never in a pipe, and every opt-out works.
//! The terminal is a real pseudo-terminal from util-linux `script`.

use std::process::Command;

const NOW: &str = "2026-01-01T00:00:00Z";

/// Runs the binary under a pseudo-terminal; None when `script` is missing.
fn on_a_terminal(extra_env: &[(&str, &str)], extra_args: &str) -> Option<String> {
    let script = ["/usr/bin/script", "/bin/script"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists());
    let Some(script) = script else {
        assert!(
            std::env::var_os("CI").is_none(),
            "util-linux `script` is required in CI"
        );
        eprintln!("`script` not installed: skipping the terminal test");
        return None;
    };
    let bin = assert_cmd::cargo::cargo_bin("kubectl-satoken");
    let command = format!(
        "{} decode --now {NOW} -f {}/testdata/tokens/expired.jwt {extra_args}",
        bin.display(),
        env!("CARGO_MANIFEST_DIR")
    );
    let mut cmd = Command::new(script);
    cmd.args(["-qec", &command, "/dev/null"])
        .env("TERM", "xterm-256color")
        .env_remove("NO_COLOR");
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn colour_on_a_terminal() {
    let Some(text) = on_a_terminal(&[], "") else {
        return;
    };
    assert!(
        text.contains("\x1b["),
        "expected ANSI colour on a terminal:\n{text}"
    );
    assert!(text.contains("rejected: expired"));
}

#[test]
fn no_colour_when_refused() {
    for (env, args) in [
        (vec![("NO_COLOR", "1")], ""),
        (vec![("TERM", "dumb")], ""),
        (vec![], "--no-color"),
        (vec![], "-o json"),
    ] {
        let Some(text) = on_a_terminal(&env, args) else {
            return;
        };
        assert!(
            !text.contains("\x1b["),
            "{env:?} {args}: colour leaked:\n{text}"
        );
    }
}

#[test]
fn no_colour_in_a_pipe() {
    let out = crate::support::satoken()
        .args(["decode", "--now", NOW, "-f", "testdata/tokens/expired.jwt"])
        .env("TERM", "xterm-256color")
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    assert!(!out.stdout.contains(&0x1b));
}

/// Characters that must not reach a terminal raw (C1 controls, bidi overrides
/// and isolates, the Arabic letter mark, line separators, zero-width space),
/// in a claim: escaped in tables as `\u{…}` and in JSON and YAML as `\uXXXX`,
/// and still the same data when parsed back.
#[test]
fn terminal_tricks_in_claims_are_escaped_in_every_format() {
    use crate::support::tokens;
    let tricky = "a\u{9b}31m\u{202e}gnp.exe\u{2066}x\u{61c}y\u{2028}z\u{200b}";
    let mut claims = tokens::projected(crate::support::base(), 3607);
    claims["sub"] = tricky.into();
    let token = tokens::sign(&claims);
    let raw = [
        '\u{9b}', '\u{202e}', '\u{2066}', '\u{61c}', '\u{2028}', '\u{200b}',
    ];
    for format in ["table", "json", "yaml"] {
        let out = crate::support::satoken()
            .args(["decode", "--now", NOW, "-o", format, &token])
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        for c in raw {
            assert!(
                !text.contains(c),
                "-o {format}: raw U+{:04X} in {text}",
                u32::from(c)
            );
        }
        let sub = match format {
            "json" => serde_json::from_str::<serde_json::Value>(&text).unwrap()["subject"].clone(),
            "yaml" => {
                serde_saphyr::from_str::<serde_json::Value>(&text).unwrap()["subject"].clone()
            }
            _ => {
                assert!(
                    text.contains("\\u{202e}") && text.contains("\\u{61c}"),
                    "{text}"
                );
                continue;
            }
        };
        assert_eq!(sub, tricky, "-o {format}: the data survives the escaping");
    }
}

/// A hostile log line reaches `classify --events` escaped, like every other
/// JSON output, and parses back to the same text.
#[test]
fn terminal_tricks_in_a_log_are_escaped_in_streamed_events() {
    let line = "E0101 00:00:00.000000       1 authentication.go:63] \"Unable to authenticate the request\" err=\"[invalid bearer token, \u{202e}gnp.exe\u{2028}x]\"\n";
    let out = crate::support::satoken()
        .args(["classify", "--now", NOW, "--log", "--events"])
        .write_stdin(line)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        !text.contains('\u{202e}') && !text.contains('\u{2028}'),
        "{text}"
    );
    let event: serde_json::Value = serde_json::from_str(text.trim_end()).unwrap();
    assert!(
        event["excerpt"]
            .as_str()
            .unwrap()
            .contains("\u{202e}gnp.exe"),
        "{event}"
    );
}

/// A long read shows a progress line on a terminal's stderr (bytes, lines,
/// rate, events so far), cleared at the end; `--quiet` (or `--no-progress`)
/// turns it off. The log arrives in two parts a second apart, so the line
/// has a moment to appear whatever the machine's speed.
#[test]
fn a_long_read_shows_its_progress_unless_quiet() {
    let script = ["/usr/bin/script", "/bin/script"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists());
    if !crate::support::tool_available("util-linux `script`", script.is_some()) {
        return;
    }
    let bin = assert_cmd::cargo::cargo_bin("kubectl-satoken");
    let log = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/logs/apiserver-day.log.gz"
    );
    for (flag, shown) in [("", true), ("--quiet", false), ("--no-progress", false)] {
        let command = format!(
            "(gzip -dc {log}; sleep 1.5; gzip -dc {log}) | {} classify --now {NOW} --log {flag} - >/dev/null",
            bin.display()
        );
        let out = Command::new(script.unwrap())
            .args(["-qec", &command, "/dev/null"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{flag}: {text:?}");
        assert_eq!(text.contains("reading: "), shown, "{flag}: {text:?}");
        if shown {
            assert!(
                text.contains(" lines, ") && text.contains(" events"),
                "{text:?}"
            );
            assert!(text.ends_with("\r\x1b[K"), "{text:?}");
        }
    }
}
