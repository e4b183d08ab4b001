//! `explain [CAUSE]`.

use clap::Args;

pub(super) const EXAMPLES: &str = "\
Examples:
  # every cause, one line each
  kubectl satoken explain

  # what a cause means, how to confirm it and how to fix it
  kubectl satoken explain clock-skew
  kubectl satoken explain service-account-recreated -o json";

// `explain [CAUSE]` (a plain comment: see `GlobalArgs`).
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The cause to explain (the code in a diagnosis); none lists every cause.
    #[arg(value_name = "CAUSE")]
    pub cause: Option<String>,
}
