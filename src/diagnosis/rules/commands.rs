//! Commands several causes suggest, built once: a fresh token for the case's
//! ServiceAccount, decoding the token the client sends, the server URL a
//! kubeconfig names, one request by hand.

use super::prelude::*;

/// `kubectl create token SA -n NS` for the case's ServiceAccount.
pub fn create_token(case: &Case<'_>) -> Command {
    create_token_for(case, case.service_account().as_deref())
}

/// `kubectl create token NAME -n NS`.
pub fn create_token_for(case: &Case<'_>, service_account: Option<&str>) -> Command {
    Command::kubectl()
        .words(&["create", "token"])
        .value(service_account, "SERVICE_ACCOUNT")
        .namespace(case.namespace())
}

/// `kubectl satoken decode -f TOKEN_FILE`.
pub fn decode_token() -> Command {
    Command::satoken()
        .words(&["decode", "-f", "TOKEN_FILE"])
        .with_placeholders()
}

/// A field of the kubeconfig's current context (`kubectl config view`
/// redacts its secrets).
pub fn kubeconfig_view(jsonpath: &str) -> Command {
    Command::kubectl().words(&["config", "view", "--minify", "-o", jsonpath])
}

/// `kubectl get serviceaccount NAME -o jsonpath={PATH}`: a field of the
/// ServiceAccount a cause turns on (its secrets, a cloud's annotation).
pub fn serviceaccount_field(path: &str) -> Command {
    Command::kubectl()
        .words(&["get", "serviceaccount"])
        .value(None, "NAME")
        .words(&["-o", &format!("jsonpath={path}")])
}

/// The server URL the kubeconfig's current context uses.
pub const KUBECONFIG_SERVER: &str = "jsonpath={.clusters[0].cluster.server}";

/// `kubectl config view --raw --minify -o JSONPATH | base64 -d`: a
/// base64 field of the kubeconfig's current context, decoded.
pub fn kubeconfig_data(jsonpath: &str) -> Command {
    Command::kubectl()
        .words(&["config", "view", "--raw", "--minify", "-o", jsonpath])
        .pipe_into(Command::new("base64").word("-d"))
}

/// `curl -sv --cacert CA_FILE [ARGS] https://SERVER/version`: one request by
/// hand to the server of the case.
pub fn curl_version(case: &Case<'_>, args: &[&str]) -> Command {
    Command::new("curl")
        .words(&["-sv", "--cacert", "CA_FILE"])
        .words(args)
        .value(
            case.server
                .as_deref()
                .map(|s| format!("{s}/version"))
                .as_deref(),
            "https://SERVER/version",
        )
        .with_placeholders()
}
