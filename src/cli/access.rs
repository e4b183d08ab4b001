//! What to ask an API server besides "who am I" (`doctor`; shared with `probe`).

use clap::Args;

// `--verb/--resource` (a SelfSubjectAccessReview) and `--path` (a GET).
#[derive(Debug, Clone, Args)]
pub struct AccessArgs {
    /// Also GET this path with the token (e.g. the object the workload needs).
    #[arg(hide_short_help = true, long, value_name = "PATH", value_parser = api_path)]
    pub path: Option<String>,

    /// Ask "can I VERB RESOURCE?" with a SelfSubjectAccessReview.
    #[arg(
        hide_short_help = true,
        long,
        value_name = "VERB",
        requires = "resource"
    )]
    pub verb: Option<String>,

    /// Resource for --verb (plural, e.g. pods, rayclusters).
    #[arg(
        hide_short_help = true,
        long,
        value_name = "RESOURCE",
        requires = "verb"
    )]
    pub resource: Option<String>,

    /// Subresource for --verb (e.g. log, status).
    #[arg(
        hide_short_help = true,
        long,
        value_name = "SUBRESOURCE",
        requires = "verb"
    )]
    pub subresource: Option<String>,

    /// API group for --resource (empty: the core group).
    #[arg(
        hide_short_help = true,
        long,
        value_name = "GROUP",
        default_value = "",
        requires = "verb"
    )]
    pub group: String,

    /// Namespace for --verb. Default: the kubeconfig context's namespace (when a
    /// kubeconfig is used), else the mounted namespace file, else the token's.
    #[arg(short = 'n', long, value_name = "NAMESPACE")]
    pub namespace: Option<String>,

    /// Object name for --verb.
    #[arg(hide_short_help = true, long, value_name = "NAME", requires = "verb")]
    pub name: Option<String>,

    /// Cluster-scoped --verb check (no namespace).
    #[arg(
        hide_short_help = true,
        long,
        requires = "verb",
        conflicts_with = "namespace"
    )]
    pub cluster_scope: bool,
}

/// An API path: one leading slash, no query, no spaces.
pub fn api_path(text: &str) -> Result<String, String> {
    if text.starts_with('/') && !text.starts_with("//") && !text.contains(['?', '#', ' ']) {
        Ok(text.to_owned())
    } else {
        Err(format!(
            "{text:?} is not an API path like /api/v1/namespaces/NS/pods"
        ))
    }
}
