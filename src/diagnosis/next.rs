//! What to do next: a [`NextStep`] is a sentence saying why, and optionally a
//! [`Command`] to run, kept apart so that JSON carries the command as an argv
//! and no renderer ever has to find a command inside prose.
//!
//! Commands are pasted into shells at 3 a.m., and their arguments come from
//! tokens, server answers and logs. So an argument is a value, never shell text:
//! [`Command::shell`] quotes every argument for a POSIX shell (`shlex`), and an
//! argument that cannot be a Kubernetes name or a plain value (control or bidi
//! characters, NUL) is replaced by its placeholder rather than printed.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One thing to do, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NextStep {
    /// What the step is for, in words ("confirm the live uid", "fix: …").
    pub why: String,
    /// The command, when the step is one.
    pub command: Option<Command>,
}

impl NextStep {
    pub fn say(why: impl Into<String>) -> Self {
        NextStep {
            why: why.into(),
            command: None,
        }
    }

    pub fn run(why: impl Into<String>, command: Command) -> Self {
        NextStep {
            why: why.into(),
            command: Some(command),
        }
    }
}

/// A command line as words, with an optional pipeline and what its output
/// should show. In JSON it also carries `shell`, the line to paste (read
/// back, it is ignored: [`Command::shell`] quotes the words again).
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
pub struct Command {
    /// The words, unquoted (`["kubectl", "get", "serviceaccount", "web", …]`).
    pub argv: Vec<String>,
    /// Commands this one's output is piped into, in order.
    pub pipe: Vec<Vec<String>>,
    /// The file the (last command's) output is written to (`> FILE`).
    pub output: Option<String>,
    /// What the output must be for the step to pass ("a3c…-uid"), when known.
    pub expect: Option<String>,
    /// Some words are placeholders (UPPERCASE, e.g. `NAMESPACE`) to fill in.
    pub placeholders: bool,
}

impl Command {
    /// `kubectl ARGS…`.
    pub fn kubectl() -> Self {
        Command::new("kubectl")
    }

    /// `kubectl satoken ARGS…`.
    pub fn satoken() -> Self {
        Command::new("kubectl").word("satoken")
    }

    pub fn new(program: &str) -> Self {
        Command {
            argv: vec![program.to_owned()],
            ..Command::default()
        }
    }

    /// Appends fixed words written here (flags, subcommands, literal values).
    pub fn words(mut self, words: &[&str]) -> Self {
        self.argv.extend(words.iter().map(|w| (*w).to_owned()));
        self
    }

    pub fn word(mut self, word: &str) -> Self {
        self.argv.push(word.to_owned());
        self
    }

    /// Appends a value that came from a token, a server or a file, or, when it
    /// is unknown or unsafe to print, the placeholder.
    pub fn value(mut self, value: Option<&str>, placeholder: &str) -> Self {
        let word = self.checked(value, placeholder);
        self.argv.push(word);
        self
    }

    /// `--flag=VALUE` with a value from outside (see [`Command::value`]).
    pub fn flag_value(mut self, flag: &str, value: Option<&str>, placeholder: &str) -> Self {
        let word = self.checked(value, placeholder);
        self.argv.push(format!("{flag}={word}"));
        self
    }

    /// `-n NAMESPACE` when the namespace is known; the placeholder otherwise.
    pub fn namespace(self, namespace: Option<&str>) -> Self {
        self.word("-n").value(namespace, "NAMESPACE")
    }

    /// Pipes the output into another command (`| kubectl satoken decode`).
    pub fn pipe_into(mut self, next: Command) -> Self {
        self.placeholders |= next.placeholders;
        self.pipe.push(next.argv);
        self.pipe.extend(next.pipe);
        self
    }

    /// Writes the output to `path` (`> path`).
    pub fn writing_to(mut self, path: &str) -> Self {
        self.output = Some(path.to_owned());
        self
    }

    /// Marks fixed words written here as placeholders (`TOKEN_FILE`).
    pub fn with_placeholders(mut self) -> Self {
        self.placeholders = true;
        self
    }

    pub fn expecting(mut self, expect: impl Into<String>) -> Self {
        self.expect = Some(expect.into());
        self
    }

    fn checked(&mut self, value: Option<&str>, placeholder: &str) -> String {
        // A value holding a token is not printed: quoted for the shell, its
        // parts would stand apart, where the output redactor cannot see them.
        let holds_token = |v: &str| matches!(crate::redact::redact(v), Cow::Owned(_));
        match value.filter(|v| printable(v) && !holds_token(v)) {
            Some(v) => v.to_owned(),
            None => {
                self.placeholders = true;
                placeholder.to_owned()
            }
        }
    }

    /// Puts `value` where the word `placeholder` is (`TOKEN_FILE` -> the file
    /// the user passed); the command has placeholders after it only if a word
    /// still looks like one (UPPERCASE, alone or after `=`).
    pub fn fill(&mut self, placeholder: &str, value: &str) {
        if !self.placeholders || !printable(value) {
            return;
        }
        let mut filled = false;
        for word in self.argv.iter_mut().chain(self.pipe.iter_mut().flatten()) {
            if word == placeholder {
                value.clone_into(word);
                filled = true;
            }
        }
        if !filled {
            return;
        }
        let looks_like_one = |w: &str| {
            w.len() > 1
                && w.chars().any(|c| c.is_ascii_uppercase())
                && w.chars().all(|c| c.is_ascii_uppercase() || c == '_')
        };
        self.placeholders = (self.argv.iter().chain(self.pipe.iter().flatten()))
            .any(|w| w.split('=').any(looks_like_one));
    }

    /// The command as one line for a POSIX shell: every word quoted as needed.
    pub fn shell(&self) -> String {
        let stages: Vec<String> = std::iter::once(&self.argv)
            .chain(&self.pipe)
            .map(|words| words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" "))
            .collect();
        match &self.output {
            Some(path) => format!("{} > {}", stages.join(" | "), quote(path)),
            None => stages.join(" | "),
        }
    }
}

// What JSON carries for a `Command`: its fields and the shell line. Its
// derived schema is `Command`'s, so the two cannot differ.
/// A command to run: its words, and the line to paste into a shell.
#[derive(Serialize, JsonSchema)]
#[schemars(rename = "Command")]
struct CommandJson<'a> {
    /// The words, unquoted; UPPERCASE placeholders where `placeholders` says so.
    argv: &'a [String],
    /// Commands this one's output is piped into, in order, each as words.
    pipe: &'a [Vec<String>],
    /// The file the (last command's) output is written to (`> FILE`), or null.
    output: Option<&'a str>,
    /// The whole pipeline as one line for a POSIX shell, every word quoted.
    shell: String,
    /// What the output must be for the step to pass, when known.
    expect: Option<&'a str>,
    /// Some words are placeholders (UPPERCASE, e.g. `NAMESPACE`) to fill in.
    placeholders: bool,
}

impl Serialize for Command {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let json = CommandJson {
            argv: &self.argv,
            pipe: &self.pipe,
            output: self.output.as_deref(),
            shell: self.shell(),
            expect: self.expect.as_deref(),
            placeholders: self.placeholders,
        };
        json.serialize(s)
    }
}

impl JsonSchema for Command {
    fn schema_name() -> Cow<'static, str> {
        CommandJson::schema_name()
    }

    fn schema_id() -> Cow<'static, str> {
        CommandJson::schema_id()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        CommandJson::json_schema(generator)
    }
}

/// A value is printed in a command only if a shell and a terminal show it as
/// it is: non-empty, no control, bidi or zero-width characters.
fn printable(value: &str) -> bool {
    !value.is_empty()
        && value.len() <= 1024
        && !value.chars().any(|c| {
            c.is_control()
                || matches!(c,
                    '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
                    | '\u{061C}' | '\u{FEFF}')
        })
}

/// A word as it must be typed: bare when every shell reads it literally
/// (`--verb=list`, `pods.ray.io/status`), quoted by shlex otherwise.
fn quote(word: &str) -> Cow<'_, str> {
    let bare = !word.is_empty()
        && !word.starts_with(['=', '~'])
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
    if bare {
        return Cow::Borrowed(word);
    }
    // `printable` rules out NUL, the only word shlex refuses; keep a safe
    // fallback rather than a panic.
    shlex::try_quote(word).unwrap_or(Cow::Borrowed("''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_holding_a_token_become_placeholders() {
        for value in [
            "x!abcdef\\\\u002e0123456789abcdef!",
            "eyJhbGciOiJSUzI1NiJ9%2EeyJzdWIiOiJ4In0%2EZW5jb2RlZC1zaWduYXR1cmUtbG9uZy1lbm91Z2gtMTIz",
        ] {
            let c = Command::kubectl()
                .words(&["get", "pods"])
                .value(Some(value), "NAME");
            assert_eq!(c.shell(), "kubectl get pods NAME");
            assert!(c.placeholders);
        }
    }

    #[test]
    fn a_placeholder_the_edge_knows_is_filled() {
        let mut c = Command::satoken()
            .words(&["skew", "-f", "TOKEN_FILE", "--leases", "-"])
            .with_placeholders();
        c.fill("TOKEN_FILE", "/tmp/my token");
        assert_eq!(
            c.shell(),
            "kubectl satoken skew -f '/tmp/my token' --leases -"
        );
        assert!(!c.placeholders);
        let mut c = Command::satoken()
            .words(&["probe", "-f", "TOKEN_FILE", "--as=USER"])
            .with_placeholders();
        c.fill("TOKEN_FILE", "t.jwt");
        assert!(c.placeholders, "USER is still to fill");
    }

    #[test]
    fn values_are_quoted_for_the_shell() {
        let c = Command::kubectl()
            .words(&["get", "serviceaccount"])
            .value(Some("x$(touch /tmp/pwned)"), "NAME")
            .namespace(Some("shop"))
            .words(&["-o", "jsonpath={.metadata.uid}"]);
        assert_eq!(
            c.shell(),
            "kubectl get serviceaccount 'x$(touch /tmp/pwned)' -n shop -o 'jsonpath={.metadata.uid}'"
        );
        assert!(!c.placeholders);
        // The argv is what the shell would see after unquoting.
        assert_eq!(shlex::split(&c.shell()).unwrap(), c.argv);
    }

    #[test]
    fn unsafe_or_unknown_values_become_placeholders() {
        let c = Command::kubectl()
            .words(&["get", "pod"])
            .value(Some("web\u{202E}gpj"), "NAME")
            .namespace(None);
        assert_eq!(c.shell(), "kubectl get pod NAME -n NAMESPACE");
        assert!(c.placeholders);
        let c = Command::kubectl().value(Some("a\nb"), "NAME");
        assert_eq!(c.argv[1], "NAME");
    }

    #[test]
    fn plain_words_stay_bare() {
        let c = Command::kubectl()
            .words(&["create", "role", "--verb=list"])
            .value(Some("=x"), "NAME")
            .value(Some("~root"), "NAME");
        assert_eq!(c.shell(), "kubectl create role --verb=list '=x' '~root'");
    }
}
