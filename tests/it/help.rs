//! The help system through the built binary: `explain` of every code the tool
//! prints, the completion scripts in a real shell, a closed pipe, short `-h`.

use std::io::Read as _;
use std::process::Stdio;

use crate::support::{satoken, satoken_std};

#[test]
fn explain_takes_answers_findings_and_kinds_and_suggests_the_nearest() {
    for (code, want) in [
        ("not-yet-valid", "clock-skew"),
        ("401-invalid-token", "expired"),
        ("no-extended-expiry", "expired"),
        ("not-kubernetes", "not-api-server"),
        ("projected", "token kind"),
    ] {
        let out = satoken().args(["explain", code]).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{code}: {out:?}");
        assert!(
            stdout.starts_with(code) && stdout.contains(want),
            "{code}: {stdout}"
        );
        let json = satoken()
            .args(["explain", code, "-o", "json"])
            .output()
            .unwrap();
        let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
        assert_eq!(json["code"], code);
    }
    let out = satoken().args(["explain", "clock-skw"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains("did you mean clock-skew?"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

/// `completion fish | head -1`: the reader goes away; the writer ends quietly.
#[test]
fn a_closed_pipe_is_a_quiet_exit() {
    for args in [
        &["completion", "fish"][..],
        &["completion", "bash"],
        &["explain"],
        &["--help"],
    ] {
        let mut child = satoken_std()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
}

/// The bash script, loaded by a real bash: registered for the binary, and
/// completing flags and values below the top level, never the hidden
/// `__complete`.
#[test]
fn bash_completion_works_below_the_top_level() {
    if std::process::Command::new("bash")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("no bash: skipped");
        return;
    }
    let out = satoken().args(["completion", "bash"]).output().unwrap();
    let script = String::from_utf8(out.stdout).unwrap();
    assert!(!script.contains("__complete"), "hidden subcommand offered");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("satoken.bash");
    std::fs::write(&path, script).unwrap();
    // Each line: the words so far, then what bash offers for the last one.
    let driver = format!(
        r#"source {script}
complete -p kubectl-satoken
ask() {{ COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
  _kubectl__satoken kubectl-satoken "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"
  echo "$*: ${{COMPREPLY[*]}}"; }}
ask kubectl-satoken ''
ask kubectl-satoken decode --tok
ask kubectl-satoken probe -o ''
ask kubectl-satoken completion ''
"#,
        script = path.display()
    );
    let out = std::process::Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &driver])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].starts_with("complete ") && lines[0].ends_with(" kubectl-satoken"),
        "{stdout}"
    );
    assert!(
        lines[1].contains("decode") && !lines[1].contains("__complete"),
        "{stdout}"
    );
    assert!(lines[2].ends_with(": --token --token-file"), "{stdout}");
    assert!(lines[3].ends_with(": table json yaml"), "{stdout}");
    assert!(
        lines[4].contains("bash") && lines[4].contains("fish"),
        "{stdout}"
    );
}

/// `-h` fits a screen; `--help` has the rest.
#[test]
fn short_help_is_under_thirty_lines() {
    let cli = <satoken::cli::Cli as clap::CommandFactory>::command();
    for sub in std::iter::once(None).chain(
        cli.get_subcommands()
            .filter(|s| !s.is_hide_set() && s.get_name() != "help")
            .map(|s| Some(s.get_name().to_owned())),
    ) {
        let args: Vec<&str> = sub.iter().map(String::as_str).chain(["-h"]).collect();
        let out = satoken().args(&args).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(
            text.lines().count() < 30,
            "{args:?}: {} lines",
            text.lines().count()
        );
        assert!(text.contains("--help"), "{args:?}: says where the rest is");
        let long = satoken()
            .args(&args[..args.len() - 1])
            .arg("--help")
            .output()
            .unwrap();
        assert!(
            String::from_utf8_lossy(&long.stdout).contains("Examples:"),
            "{args:?}"
        );
    }
}
