//! `decode` arguments.

use clap::Args;

use super::TokenArgs;

pub(super) const EXAMPLES: &str = "\
Input: a JWT, `Bearer <jwt>`, an `Authorization: Bearer <jwt>` line, TokenRequest
JSON (status.token), or a Secret as JSON (data.token). Several tokens, one per
line, are decoded one by one (JSON Lines with -o json).

Examples:
  kubectl satoken decode                      # the mounted token, inside a pod
  kubectl create token my-sa | kubectl satoken decode
  kubectl get secret my-sa-token -o json | kubectl satoken decode
  kubectl satoken decode -f tokens.txt -o json  # one token per line";

// The arguments of `decode` (a plain comment: see `GlobalArgs`).
#[derive(Debug, Args)]
pub struct DecodeArgs {
    #[command(flatten)]
    pub token: TokenArgs,
}
