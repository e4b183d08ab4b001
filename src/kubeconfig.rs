//! Pure: kubeconfig files, merged and resolved the way client-go does it
//! (k8s.io/client-go/tools/clientcmd `loader.go` and `client_config.go`):
//!
//! - which files: `--kubeconfig PATH` alone; else every entry of `KUBECONFIG`
//!   (colon-separated; empty and repeated entries skipped, missing files
//!   ignored); else `~/.kube/config` ([`candidate_files`]);
//! - merging: for clusters, contexts and users the **first** file that defines a
//!   name wins, and `current-context` comes from the first file that sets it
//!   (`ClientConfigLoadingRules.Load`: "the first file to set a particular map
//!   key wins and map key's value is never changed");
//! - relative paths (`certificate-authority`, `client-certificate`,
//!   `client-key`, `tokenFile`) are relative to the directory of the file that
//!   defined the entry (`ResolveLocalPaths`), resolved before merging;
//! - `--context` picks a context, else `current-context`; `-n` defaults to the
//!   context's namespace.
//!
//! YAML is parsed with serde-saphyr under a small budget (a kubeconfig is a few
//! KiB; alias bombs and deep nesting are refused). Credentials are wrapped in
//! [`SecretToken`] the moment they are read and never printed.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde::Deserialize;
use url::Url;

use crate::secret::SecretToken;

/// Largest kubeconfig file read.
pub const MAX_FILE_BYTES: usize = 4 * 1024 * 1024;

/// Why a kubeconfig cannot be used (bad input: exit 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KubeconfigError {
    #[error("{path}: not a kubeconfig: {detail}")]
    Parse { path: String, detail: String },
    #[error(
        "no kubeconfig: --kubeconfig not given, KUBECONFIG names no existing file, and ~/.kube/config does not exist"
    )]
    NoFile,
    #[error("the kubeconfig has no current-context; pass --context NAME (contexts: {0})")]
    NoContext(String),
    #[error("{what} {name:?} is not in the kubeconfig")]
    Missing { what: &'static str, name: String },
    #[error("cluster {cluster:?}: server {server:?} is not a URL: {detail}")]
    BadServer {
        cluster: String,
        server: String,
        detail: String,
    },
    /// A `proxy-url` that is not an http(s) URL (client-go also takes socks5,
    /// which this build does not).
    #[error("cluster {cluster:?}: proxy-url {proxy:?}: {detail}")]
    BadProxy {
        cluster: String,
        proxy: String,
        detail: &'static str,
    },
    #[error("{field} of {owner:?} is not base64: {detail}")]
    BadData {
        field: &'static str,
        owner: String,
        detail: String,
    },
}

// Missing fields are `None` (serde's default for an `Option`).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
struct RawConfig {
    clusters: Option<Vec<Named<RawCluster>>>,
    contexts: Option<Vec<Named<RawContext>>>,
    users: Option<Vec<Named<RawUser>>>,
    current_context: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Named<T> {
    name: String,
    #[serde(alias = "cluster", alias = "context", alias = "user")]
    value: Option<T>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "kebab-case")]
struct RawCluster {
    server: Option<String>,
    certificate_authority: Option<String>,
    certificate_authority_data: Option<String>,
    tls_server_name: Option<String>,
    insecure_skip_tls_verify: Option<bool>,
    proxy_url: Option<String>,
}

#[derive(Debug, Default, Clone, Deserialize)]
struct RawContext {
    cluster: Option<String>,
    user: Option<String>,
    namespace: Option<String>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "kebab-case")]
struct RawUser {
    token: Option<String>,
    #[serde(rename = "tokenFile")]
    token_file: Option<String>,
    client_certificate: Option<String>,
    client_certificate_data: Option<String>,
    client_key: Option<String>,
    client_key_data: Option<String>,
    exec: Option<serde_json::Value>,
    auth_provider: Option<serde_json::Value>,
}

/// Bytes given inline (`*-data`) or a file to read (absolute after resolving).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Material {
    Inline(Vec<u8>),
    File(PathBuf),
}

/// A cluster entry, paths resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cluster {
    pub server: Url,
    pub certificate_authority: Option<Material>,
    pub tls_server_name: Option<String>,
    pub insecure_skip_tls_verify: bool,
    /// `proxy-url`: an HTTP(S) proxy that tunnels the TLS connection (CONNECT),
    /// so the token stays inside TLS verified against the API server.
    pub proxy_url: Option<Url>,
}

/// A user's credentials, paths resolved. Only what `probe` can send; the rest
/// is named so the user can be told it is not supported.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Credentials {
    pub token: Option<SecretToken>,
    pub token_file: Option<PathBuf>,
    pub client_certificate: Option<Material>,
    pub client_key: Option<Material>,
    /// An `exec` plugin is configured (not supported: probe runs no plugins).
    pub exec: bool,
    /// A legacy `auth-provider` is configured (not supported).
    pub auth_provider: bool,
}

/// The chosen context, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The files read, in order.
    pub files: Vec<PathBuf>,
    pub context: String,
    pub cluster_name: String,
    pub cluster: Cluster,
    pub user_name: Option<String>,
    pub credentials: Credentials,
    /// The context's namespace (`-n` default).
    pub namespace: Option<String>,
}

/// Validates a cluster's `proxy-url`. The URL is echoed only without its
/// credentials (a proxy URL may carry a password).
fn proxy_url(cluster: &str, text: Option<&str>) -> Result<Option<Url>, KubeconfigError> {
    let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    let bad = |detail| KubeconfigError::BadProxy {
        cluster: cluster.to_owned(),
        proxy: Url::parse(text)
            .map_or_else(|_| "(unparsable)".to_owned(), |u| without_credentials(&u)),
        detail,
    };
    let url = Url::parse(text).map_err(|_| bad("not a URL"))?;
    match url.scheme() {
        "http" | "https" if url.host_str().is_some() => Ok(Some(url)),
        "http" | "https" => Err(bad("no host")),
        "socks5" | "socks5h" => Err(bad(
            "SOCKS proxies are not supported; use an HTTP CONNECT proxy, or run the probe where the API server is reachable",
        )),
        _ => Err(bad("the scheme must be http or https")),
    }
}

/// `url` with any user name and password removed, for display.
pub fn without_credentials(url: &Url) -> String {
    let mut shown = url.clone();
    let _ = shown.set_username("");
    let _ = shown.set_password(None);
    shown.to_string()
}

/// The files client-go would read, in order (see the module docs); the caller
/// checks that they exist.
pub fn candidate_files(
    explicit: Option<&Path>,
    kubeconfig_env: Option<&str>,
    home: Option<&Path>,
) -> Vec<PathBuf> {
    if let Some(path) = explicit {
        return vec![path.to_owned()];
    }
    if let Some(list) = kubeconfig_env.filter(|l| !l.trim().is_empty()) {
        let mut out: Vec<PathBuf> = Vec::new();
        for entry in std::env::split_paths(list) {
            if !entry.as_os_str().is_empty() && !out.contains(&entry) {
                out.push(entry);
            }
        }
        return out;
    }
    home.map(|h| vec![h.join(".kube").join("config")])
        .unwrap_or_default()
}

/// One parsed file: its entries with paths already made absolute.
#[derive(Debug, Default)]
pub struct File {
    path: PathBuf,
    clusters: Vec<(String, RawCluster)>,
    contexts: Vec<(String, RawContext)>,
    users: Vec<(String, RawUser)>,
    current_context: Option<String>,
}

/// Parses one kubeconfig file's text; relative paths are resolved against the
/// file's directory (client-go `ResolveLocalPaths`).
pub fn parse_file(path: &Path, text: &str) -> Result<File, KubeconfigError> {
    let error = |detail: String| KubeconfigError::Parse {
        path: path.display().to_string(),
        detail,
    };
    if text.len() > MAX_FILE_BYTES {
        return Err(error(format!("over {MAX_FILE_BYTES} bytes")));
    }
    let raw: RawConfig = if text.trim().is_empty() {
        RawConfig::default()
    } else {
        crate::error::from_yaml(text, 1_000).map_err(error)?
    };
    let dir = path.parent().unwrap_or(Path::new("")).to_owned();
    let resolve = |p: &Option<String>| -> Option<String> {
        p.as_ref().filter(|p| !p.is_empty()).map(|p| {
            let p = Path::new(p);
            if p.is_absolute() {
                p.display().to_string()
            } else {
                dir.join(p).display().to_string()
            }
        })
    };
    Ok(File {
        path: path.to_owned(),
        clusters: entries(raw.clusters, |c| {
            c.certificate_authority = resolve(&c.certificate_authority);
        }),
        contexts: entries(raw.contexts, |_| {}),
        users: entries(raw.users, |u| {
            u.client_certificate = resolve(&u.client_certificate);
            u.client_key = resolve(&u.client_key);
            u.token_file = resolve(&u.token_file);
        }),
        current_context: raw.current_context.filter(|c| !c.is_empty()),
    })
}

/// A list's entries by name (an entry without a value is an empty one), each
/// passed through `fix`.
fn entries<T: Default>(list: Option<Vec<Named<T>>>, fix: impl Fn(&mut T)) -> Vec<(String, T)> {
    list.unwrap_or_default()
        .into_iter()
        .map(|n| {
            let mut value = n.value.unwrap_or_default();
            fix(&mut value);
            (n.name, value)
        })
        .collect()
}

/// The first file's entry of this name (`what`: context, cluster or user).
fn first<'a, T>(
    files: &'a [File],
    pick: impl Fn(&'a File) -> &'a [(String, T)],
    what: &'static str,
    name: &str,
) -> Result<&'a T, KubeconfigError> {
    files
        .iter()
        .find_map(|f| pick(f).iter().find(|(n, _)| n == name).map(|(_, v)| v))
        .ok_or_else(|| KubeconfigError::Missing {
            what,
            name: name.to_owned(),
        })
}

/// Merges the files (first definition of a name wins) and resolves `context`
/// (or the first `current-context`).
pub fn resolve(files: Vec<File>, context: Option<&str>) -> Result<Resolved, KubeconfigError> {
    if files.is_empty() {
        return Err(KubeconfigError::NoFile);
    }
    let context_name = match context {
        Some(c) => c.to_owned(),
        None => files
            .iter()
            .find_map(|f| f.current_context.clone())
            .ok_or_else(|| {
                // client-go merges files first-wins: each name once, in order.
                let mut names: Vec<&str> = Vec::new();
                for (name, _) in files.iter().flat_map(|f| &f.contexts) {
                    if !names.contains(&name.as_str()) {
                        names.push(name);
                    }
                }
                KubeconfigError::NoContext(if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                })
            })?,
    };
    let ctx = first(&files, |f| &f.contexts, "context", &context_name)?;
    let cluster_name = ctx.cluster.clone().unwrap_or_default();
    let raw_cluster = first(&files, |f| &f.clusters, "cluster", &cluster_name)?;
    let server_text = raw_cluster.server.clone().unwrap_or_default();
    let server = crate::http::target::parse_server(&server_text).map_err(|e| {
        KubeconfigError::BadServer {
            cluster: cluster_name.clone(),
            server: server_text.clone(),
            detail: e.to_string(),
        }
    })?;
    let data = |field: &'static str, owner: &str, text: &Option<String>| {
        text.as_ref()
            .filter(|t| !t.trim().is_empty())
            .map(|t| {
                let compact: String = t.split_whitespace().collect();
                base64::engine::general_purpose::STANDARD
                    .decode(compact)
                    .map_err(|e| KubeconfigError::BadData {
                        field,
                        owner: owner.to_owned(),
                        detail: e.to_string(),
                    })
            })
            .transpose()
    };
    // client-go: inline data wins over a path when both are set.
    let material = |inline: Option<Vec<u8>>, path: &Option<String>| {
        inline
            .map(Material::Inline)
            .or_else(|| path.as_ref().map(|p| Material::File(PathBuf::from(p))))
    };
    let ca = material(
        data(
            "certificate-authority-data",
            &cluster_name,
            &raw_cluster.certificate_authority_data,
        )?,
        &raw_cluster.certificate_authority,
    );
    let proxy_url = proxy_url(&cluster_name, raw_cluster.proxy_url.as_deref())?;
    let cluster = Cluster {
        server,
        certificate_authority: ca,
        tls_server_name: raw_cluster
            .tls_server_name
            .clone()
            .filter(|n| !n.is_empty()),
        insecure_skip_tls_verify: raw_cluster.insecure_skip_tls_verify.unwrap_or(false),
        proxy_url,
    };
    let user_name = ctx.user.clone().filter(|u| !u.is_empty());
    let credentials = match &user_name {
        None => Credentials::default(),
        Some(name) => {
            let user = first(&files, |f| &f.users, "user", name)?;
            Credentials {
                token: user
                    .token
                    .as_ref()
                    .filter(|t| !t.trim().is_empty())
                    .map(|t| {
                        // Pinned for the whole run, before SecretToken::new
                        // registers it as one of the rotating tokens.
                        crate::redact::register_bearer(t);
                        SecretToken::new(t.trim())
                    }),
                token_file: user.token_file.as_ref().map(PathBuf::from),
                client_certificate: material(
                    data(
                        "client-certificate-data",
                        name,
                        &user.client_certificate_data,
                    )?,
                    &user.client_certificate,
                ),
                client_key: material(
                    data("client-key-data", name, &user.client_key_data)?.inspect(|key| {
                        crate::redact::register_credential(key);
                    }),
                    &user.client_key,
                ),
                exec: user.exec.as_ref().is_some_and(|v| !v.is_null()),
                auth_provider: user.auth_provider.as_ref().is_some_and(|v| !v.is_null()),
            }
        }
    };
    Ok(Resolved {
        files: files.iter().map(|f| f.path.clone()).collect(),
        context: context_name,
        cluster_name,
        cluster,
        user_name,
        credentials,
        namespace: ctx.namespace.clone().filter(|n| !n.is_empty()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxy_urls_http_and_https_only_shown_without_credentials() {
        let ok = proxy_url("c", Some(" https://ops:pw@proxy.corp:3128 "))
            .unwrap()
            .unwrap();
        assert_eq!(without_credentials(&ok), "https://proxy.corp:3128/");
        assert_eq!(proxy_url("c", Some("")).unwrap(), None);
        assert_eq!(proxy_url("c", None).unwrap(), None);
        for (text, detail) in [
            ("socks5://u:secret@127.0.0.1:1080", "SOCKS"),
            ("ftp://proxy:21", "scheme"),
            ("proxy.corp:3128", "scheme"),
            ("not a url", "not a URL"),
        ] {
            let message = proxy_url("c", Some(text)).unwrap_err().to_string();
            assert!(message.contains(detail), "{text}: {message}");
            assert!(!message.contains("secret"), "{message}");
        }
    }

    const A: &str = r#"
apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev-cluster
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority: pki/ca.crt
    tls-server-name: kubernetes.default.svc
contexts:
- name: dev
  context: {cluster: dev-cluster, user: admin, namespace: shop}
- name: prod
  context:
    cluster: prod-cluster
    user: admin
users:
- name: admin
  user:
    token: s3cr3t
"#;

    const B: &str = r#"
current-context: prod
clusters:
- name: prod-cluster
  cluster:
    server: https://prod.example:443
    certificate-authority-data: LS0tLS1CRUdJTg==
    insecure-skip-tls-verify: false
- name: dev-cluster
  cluster:
    server: https://shadowed.example
users:
- name: admin
  user:
    token: shadowed
- name: kind
  user:
    client-certificate-data: Y2VydA==
    client-key: /abs/key.pem
    exec: {command: aws}
"#;

    fn files() -> Vec<File> {
        vec![
            parse_file(Path::new("/home/me/.kube/a.yaml"), A).unwrap(),
            parse_file(Path::new("/etc/kube/b.yaml"), B).unwrap(),
        ]
    }

    #[test]
    fn first_file_wins_and_paths_are_relative_to_their_file() {
        let r = resolve(files(), None).unwrap();
        assert_eq!(r.context, "dev");
        assert_eq!(r.cluster.server.as_str(), "https://10.0.0.1:6443/");
        assert_eq!(
            r.cluster.certificate_authority,
            Some(Material::File("/home/me/.kube/pki/ca.crt".into()))
        );
        assert_eq!(
            r.cluster.tls_server_name.as_deref(),
            Some("kubernetes.default.svc")
        );
        assert_eq!(r.namespace.as_deref(), Some("shop"));
        assert_eq!(r.credentials.token.as_ref().unwrap().expose(), "s3cr3t");
    }

    #[test]
    fn context_flag_picks_a_cluster_from_a_later_file() {
        let r = resolve(files(), Some("prod")).unwrap();
        assert_eq!(r.cluster_name, "prod-cluster");
        assert_eq!(r.cluster.server.as_str(), "https://prod.example/");
        assert_eq!(
            r.cluster.certificate_authority,
            Some(Material::Inline(b"-----BEGIN".to_vec()))
        );
        assert_eq!(r.namespace, None);
        let e = resolve(files(), Some("nope")).unwrap_err();
        assert_eq!(e.to_string(), "context \"nope\" is not in the kubeconfig");
    }

    #[test]
    fn current_context_from_the_first_file_that_sets_it() {
        let mut f = files();
        f[0].current_context = None;
        assert_eq!(resolve(f, None).unwrap().context, "prod");
        let none = vec![parse_file(Path::new("/x"), "clusters: []").unwrap()];
        assert!(matches!(
            resolve(none, None),
            Err(KubeconfigError::NoContext(_))
        ));
        assert_eq!(resolve(Vec::new(), None), Err(KubeconfigError::NoFile));
        // Each context once, though two files define it apart from each other.
        let ctx = |names: &str| {
            let list: String = names
                .split(' ')
                .map(|n| format!("- name: {n}\n  context: {{cluster: c}}\n"))
                .collect();
            parse_file(Path::new("/x"), &format!("contexts:\n{list}")).unwrap()
        };
        assert_eq!(
            resolve(vec![ctx("a b"), ctx("a")], None),
            Err(KubeconfigError::NoContext("a, b".to_owned()))
        );
    }

    #[test]
    fn client_certificates_and_exec_are_read() {
        let yaml = "current-context: k\ncontexts:\n- name: k\n  context: {cluster: c, user: kind}\nclusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:1'}\n";
        let f = vec![
            parse_file(Path::new("/x/c.yaml"), yaml).unwrap(),
            parse_file(Path::new("/etc/kube/b.yaml"), B).unwrap(),
        ];
        let r = resolve(f, None).unwrap();
        let c = &r.credentials;
        assert_eq!(
            c.client_certificate,
            Some(Material::Inline(b"cert".to_vec()))
        );
        assert_eq!(c.client_key, Some(Material::File("/abs/key.pem".into())));
        assert!(c.exec);
        assert!(c.token.is_none());
        assert_eq!(r.cluster.certificate_authority, None);
    }

    #[test]
    fn candidate_files_follow_client_go() {
        let home = Path::new("/home/me");
        assert_eq!(
            candidate_files(Some(Path::new("k.yaml")), Some("/a:/b"), Some(home)),
            vec![PathBuf::from("k.yaml")]
        );
        assert_eq!(
            candidate_files(None, Some("/a::/b:/a"), Some(home)),
            vec![PathBuf::from("/a"), PathBuf::from("/b")]
        );
        assert_eq!(
            candidate_files(None, None, Some(home)),
            vec![PathBuf::from("/home/me/.kube/config")]
        );
        assert!(candidate_files(None, Some(""), None).is_empty());
    }

    #[test]
    fn hostile_yaml_is_refused() {
        let bomb = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e]\ng: [*f, *f, *f, *f, *f, *f, *f, *f]\n";
        // Either refused by the budget or ignored as unknown keys; never a hang.
        let _ = parse_file(Path::new("/x"), bomb);
        let deep = format!("clusters: {}{}", "[".repeat(100), "]".repeat(100));
        assert!(parse_file(Path::new("/x"), &deep).is_err());
        assert!(parse_file(Path::new("/x"), "clusters: 12").is_err());
        let bad = "current-context: x\ncontexts:\n- name: x\n  context: {cluster: c}\nclusters:\n- name: c\n  cluster: {server: 'https://h', certificate-authority-data: '%%%'}\n";
        let f = vec![parse_file(Path::new("/x"), bad).unwrap()];
        assert!(matches!(
            resolve(f, None),
            Err(KubeconfigError::BadData { .. })
        ));
    }
}
