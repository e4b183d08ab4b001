//! `explain [CAUSE]`.

use clap::Args;

pub(super) const EXAMPLES: &str = "\
Examples:
  # every cause, one line each
  kubectl satoken explain

  # every wording the tool reads, and the cause each names
  kubectl satoken explain --wordings

  # what a cause means, how to confirm it and how to fix it
  kubectl satoken explain clock-skew
  kubectl satoken explain service-account-recreated -o json";

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The cause to explain (the code in a diagnosis); none lists every cause.
    #[arg(value_name = "CAUSE", value_parser = Codes, hide_possible_values = true)]
    pub cause: Option<String>,
    /// List every wording the tool reads (kube-apiserver's, the clients',
    /// the transports', the clouds', the services'), with who prints it, its
    /// versions and the cause it names.
    #[arg(long, conflicts_with = "cause")]
    pub wordings: bool,
}

/// Any text (`explain` says itself what it does not know, with a did-you-mean),
/// offering every code the tool prints to shell completion.
#[derive(Debug, Clone, Copy)]
struct Codes;

impl clap::builder::TypedValueParser for Codes {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        let mut seen = std::collections::BTreeSet::new();
        Some(Box::new(
            crate::report::explain::Explained::all()
                .filter(move |(code, _)| seen.insert(*code))
                .map(|(code, _)| clap::builder::PossibleValue::new(code)),
        ))
    }
}
