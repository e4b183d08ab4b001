//! `completion` and the hidden `__complete` arguments.

use clap::Args;
use clap_complete::Shell;

pub(super) const EXAMPLES: &str = "\
Examples:
  # bash, for this shell and every new one
  source <(kubectl-satoken completion bash)
  kubectl-satoken completion bash > ~/.local/share/bash-completion/completions/kubectl-satoken

  # `kubectl satoken <TAB>`: kubectl (1.26+) asks an executable named
  # kubectl_complete-satoken on PATH; a symlink to this binary is enough
  ln -s \"$(command -v kubectl-satoken)\" ~/.local/bin/kubectl_complete-satoken";

#[derive(Debug, Args)]
pub struct CompletionArgs {
    /// The shell to print a completion script for.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: Shell,
}

// `__complete ARGS… WORD`: the words after `kubectl satoken`, the last being the
// (possibly empty) word to complete, as kubectl passes them to plugins.
#[derive(Debug, Args)]
pub struct CompleteArgs {
    #[arg(allow_hyphen_values = true, trailing_var_arg = true, num_args = 0..)]
    pub words: Vec<String>,
}
