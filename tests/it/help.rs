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

/// The generated script for `shell`, in a temporary file.
fn script(shell: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let out = satoken().args(["completion", shell]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("satoken.{shell}"));
    std::fs::write(&path, out.stdout).unwrap();
    (dir, path)
}

fn shell_available(shell: &str) -> bool {
    let found = std::process::Command::new(shell)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    crate::support::tool_available(shell, found)
}

/// fish loads its script without an error and completes through it
/// (`complete -C` asks fish what it would offer for a command line).
#[test]
fn fish_completion_works() {
    if !shell_available("fish") {
        return;
    }
    let (_dir, path) = script("fish");
    let ask = |line: &str| {
        let out = std::process::Command::new("fish")
            .args(["--no-config", "-c"])
            .arg(format!("source {}; complete -C '{line}'", path.display()))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.is_empty(), "{line}: {stderr}");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| l.split('\t').next().unwrap_or("").to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(ask("kubectl-satoken de"), ["decode"]);
    assert_eq!(
        ask("kubectl-satoken decode --tok"),
        ["--token", "--token-file"]
    );
    assert_eq!(ask("kubectl-satoken probe -o "), ["json", "table", "yaml"]);
    assert_eq!(ask("kubectl-satoken explain clock"), ["clock-skew"]);
    assert_eq!(ask("kubectl-satoken explain not-yet"), ["not-yet-valid"]);
}

/// zsh completes through its script at a real line editor: a pseudo-terminal
/// (zsh/zpty) types the words and TAB, and compadd reports what was offered.
#[test]
fn zsh_completion_works() {
    if !shell_available("zsh") {
        return;
    }
    let (dir, path) = script("zsh");
    let driver = dir.path().join("ask.zsh");
    // Each step waits for its own marker (quoted when typed, so the echo of
    // the typed line does not match), and the line is typed only once the
    // prompt shows: zsh drops what is typed before its line editor starts.
    std::fs::write(
        &driver,
        r#"zmodload zsh/zpty
zpty z zsh -f -i
step() { zpty -w z "$1; print S''TEP$2"; zpty -r z _ "*STEP$2*" }
step 'PROMPT=; RPROMPT=; unsetopt beep zle_bracketed_paste; autoload -U compinit; compinit -u -D' 1
step "source $1" 2
step 'compadd () { local -a __m; builtin compadd -O __m "$@"; (( $#__m )) && print -r -- "<<${(j: :)__m}>>"; builtin compadd "$@" }' 3
step "bindkey '^I' complete-word; PROMPT='RE''ADY>'" 4
zpty -r z _ '*READY>*'
zpty -w -n z "$2"$'\t'
zpty -w z $'\x15'"print EN''D"
zpty -r z out '*END*'
print -r -- "$out" | tr -d '\r' | grep -ao '<<[^>$]*>>'
zpty -d z
"#,
    )
    .unwrap();
    let ask = |line: &str| {
        let out = std::process::Command::new("timeout")
            .args(["20", "zsh", "-f"])
            .arg(&driver)
            .arg(&path)
            .arg(line)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    // compadd may be called more than once (a group per description).
    let offered = |line: &str, want: &str| {
        let got = ask(line);
        assert!(
            !got.is_empty() && got.lines().all(|l| l == want),
            "{line}: {got}"
        );
    };
    offered("kubectl-satoken decode --tok", "<<--token --token-file>>");
    offered("kubectl-satoken probe -o ", "<<table json yaml>>");
    offered("kubectl-satoken explain clock", "<<clock-skew>>");
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
