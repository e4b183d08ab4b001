//! Pure: completions for kubectl's plugin completion protocol (Cobra's
//! `__complete` output), computed from the clap command tree so they never drift
//! from the real flags. kubectl 1.26+ runs `kubectl_complete-<plugin> ARGS… WORD`
//! and reads one candidate per line (`value<TAB>description`), then `:<directive>`.

use clap::Command;

/// Cobra's `ShellCompDirectiveNoFileComp`: do not fall back to file names.
pub const NO_FILE_COMPLETION: u8 = 4;
/// Cobra's `ShellCompDirectiveDefault`: the shell may complete file names.
pub const DEFAULT: u8 = 0;

/// Candidates (value, description) and the directive for `words`, whose last
/// element is the word being completed.
pub fn complete(root: &Command, words: &[String]) -> (Vec<(String, String)>, u8) {
    let (current, done) = match words.split_last() {
        Some((last, done)) => (last.as_str(), done),
        None => ("", &[][..]),
    };
    let mut command = root;
    let mut expects_value: Option<&clap::Arg> = None;
    for word in done {
        if expects_value.take().is_some() {
            continue;
        }
        // `--flag=value` carries its value.
        if let Some(flag) = word.strip_prefix("--").filter(|f| !f.contains('=')) {
            expects_value = find(command, root, |a| {
                a.get_long() == Some(flag)
                    || a.get_all_aliases().is_some_and(|al| al.contains(&flag))
            });
        } else if let Some(short) = word.strip_prefix('-').filter(|s| s.len() == 1) {
            let c = short.chars().next().unwrap_or('-');
            expects_value = find(command, root, |a| a.get_short() == Some(c));
        } else if let Some(sub) = command.find_subcommand(word) {
            command = sub;
        }
    }
    // A closed set of values, else the shell's file names.
    let values = |values: Vec<(String, String)>| {
        let directive = if values.is_empty() {
            DEFAULT
        } else {
            NO_FILE_COMPLETION
        };
        (values, directive)
    };
    if let Some(arg) = expects_value {
        return values(possible_values(arg, current));
    }
    if current.starts_with('-') {
        let mut flags: Vec<(String, String)> = command
            .get_arguments()
            .chain(root.get_arguments().filter(|a| a.is_global_set()))
            .filter(|a| !a.is_hide_set())
            .filter_map(|a| {
                let long = format!("--{}", a.get_long()?);
                let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
                long.starts_with(current).then_some((long, help))
            })
            .collect();
        flags.sort();
        flags.dedup();
        return (flags, NO_FILE_COMPLETION);
    }
    if command.has_subcommands() && std::ptr::eq(command, root) {
        let subs = command
            .get_subcommands()
            .filter(|s| !s.is_hide_set() && s.get_name().starts_with(current))
            .map(|s| {
                let about = s.get_about().map(|a| a.to_string()).unwrap_or_default();
                (s.get_name().to_owned(), about)
            })
            .collect();
        return (subs, NO_FILE_COMPLETION);
    }
    // A positional: its values when it has a closed set (explain's codes),
    // else token or evidence file names.
    values(
        command
            .get_positionals()
            .flat_map(|arg| possible_values(arg, current))
            .collect(),
    )
}

/// Renders the protocol's output.
pub fn render(candidates: &[(String, String)], directive: u8) -> String {
    let mut out: String = candidates
        .iter()
        .map(|(value, description)| match description.lines().next() {
            Some(first) if !first.is_empty() => format!("{value}\t{first}\n"),
            _ => format!("{value}\n"),
        })
        .collect();
    out.push_str(&format!(":{directive}\n"));
    out
}

/// The flag of `command` (or a global one) that `is`, if it takes a value.
fn find<'a>(
    command: &'a Command,
    root: &'a Command,
    is: impl Fn(&clap::Arg) -> bool,
) -> Option<&'a clap::Arg> {
    command
        .get_arguments()
        .chain(root.get_arguments())
        .find(|a| is(a))
        .filter(|a| a.get_num_args().is_some_and(|n| n.takes_values()))
}

fn possible_values(arg: &clap::Arg, current: &str) -> Vec<(String, String)> {
    arg.get_possible_values()
        .into_iter()
        .filter(|v| !v.is_hide_set() && v.get_name().starts_with(current))
        .map(|v| {
            let help = v.get_help().map(|h| h.to_string()).unwrap_or_default();
            (v.get_name().to_owned(), help)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory as _;

    fn run(words: &[&str]) -> (Vec<String>, u8) {
        let mut root = crate::cli::Cli::command();
        root.build();
        let words: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
        let (candidates, directive) = complete(&root, &words);
        (candidates.into_iter().map(|c| c.0).collect(), directive)
    }

    #[test]
    fn subcommands_flags_and_values() {
        let (subs, d) = run(&[""]);
        assert!(subs.contains(&"decode".to_owned()), "{subs:?}");
        assert!(
            !subs.iter().any(|s| s.starts_with("__")),
            "hidden stays hidden"
        );
        assert_eq!(d, NO_FILE_COMPLETION);
        let (subs, _) = run(&["de"]);
        assert_eq!(subs, ["decode"]);
        let (flags, _) = run(&["decode", "--tok"]);
        assert_eq!(flags, ["--token", "--token-file"]);
        let (flags, _) = run(&["decode", "--no"]);
        assert!(flags.contains(&"--now".to_owned()) && flags.contains(&"--no-color".to_owned()));
        let (values, d) = run(&["decode", "-o", ""]);
        assert_eq!(
            (values, d),
            (
                vec!["table".to_owned(), "json".to_owned(), "yaml".to_owned()],
                NO_FILE_COMPLETION
            )
        );
        let (values, d) = run(&["decode", "-f", ""]);
        assert_eq!((values.len(), d), (0, DEFAULT), "file names for -f");
        let (values, d) = run(&["explain", "clock-"]);
        assert_eq!(
            (values, d),
            (vec!["clock-skew".to_owned()], NO_FILE_COMPLETION)
        );
        let (values, _) = run(&["explain", "not-yet"]);
        assert_eq!(values, ["not-yet-valid"], "a finding's code too");
        let (values, d) = run(&["decode", ""]);
        assert_eq!((values.len(), d), (0, DEFAULT), "file names for TOKEN");
    }

    #[test]
    fn protocol_output() {
        let text = render(
            &[("decode".into(), "Decode a token".into())],
            NO_FILE_COMPLETION,
        );
        assert_eq!(text, "decode\tDecode a token\n:4\n");
    }
}
