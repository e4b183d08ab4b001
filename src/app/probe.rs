//! `probe`: resolve targets and trust (flags > kubeconfig > in-pod defaults) ->
//! observe (network) -> analyse -> render.
//!
//! Precedence, per setting: an explicit flag wins; else the kubeconfig, when one
//! is in play (`--kubeconfig`, `--context`, `--use-kubeconfig-credentials`,
//! `--token-review`, or no `--server` outside a pod with a kubeconfig present);
//! else the in-pod defaults (service variables, `<sa-dir>/ca.crt`,
//! `<sa-dir>/namespace`). Inside a pod with no kubeconfig flag the in-pod
//! defaults apply even if `KUBECONFIG` is set.
//!
//! `--anonymous` with no token anywhere (no TOKEN, `--token` or `-f`, stdin
//! not a pipe or file or an empty one, no mounted token) asks what an anonymous
//! request gets: no token is read, and every request goes without credentials.

use std::path::Path;

use anyhow::Context as _;

use super::{Cx, access_query, client_config_with, read_one_bearer, trust_from_flags};
use crate::cli::{ProbeArgs, TlsArgs};
use crate::env::Env;
use crate::exit::Outcome;
use crate::http::target;
use crate::http::{ClientConfig, ClientIdentity, RunClock, Trust};
use crate::input::{self, ShapedToken, TokenSource};
use crate::kubeconfig::{self, Material, Resolved};
use crate::probe::observe::{self, Operator, Plan, Target};
use crate::probe::{self, Context, KubeconfigInfo, bindings};
use crate::report::probe::{ProbeJson, write_probe};
use crate::secret::SecretToken;
use crate::token::Token;

pub fn run(args: ProbeArgs, Cx(settings, env, out, _): Cx<'_>) -> anyhow::Result<Outcome> {
    let given = token_unless_anonymous(&args, env)?;
    if matches!(given, Given::Anonymous)
        && (args.token_review || args.use_kubeconfig_credentials || args.all_endpoints)
    {
        anyhow::bail!(
            "--anonymous with no token sends no credentials at all; --token-review, --use-kubeconfig-credentials and --all-endpoints need a token (give one as TOKEN, --token, -f or on stdin)"
        );
    }
    let sa_dir = &args.token.sa_dir;
    let Connection {
        kube,
        targets,
        trust,
    } = connection(
        KubeconfigFlags {
            path: args.kubeconfig.as_deref(),
            context: args.context.as_deref(),
            credentials: args.use_kubeconfig_credentials || args.token_review,
        },
        &args.servers,
        &args.tls,
        sa_dir,
        env,
    )?;
    let own_token = matches!(given, Given::Nothing(_));
    let given = match given {
        Given::Token(t) => Some(*t),
        Given::Anonymous => None,
        Given::Nothing(mounted) => Some(kubeconfig_token(kube.as_ref(), &mounted)?),
    };
    let token = given.as_ref().and_then(|(_, t)| t.as_ref());
    let raw = given.as_ref().map(|(s, _)| &s.token);
    if args.all_endpoints && trust == Trust::InsecureSkipVerify {
        anyhow::bail!(
            "--all-endpoints needs verified TLS: without it the token would go to addresses read from the API with no certificate check; drop --insecure-skip-tls-verify (or the kubeconfig's insecure-skip-tls-verify) and give the CA"
        );
    }
    let access = access_query(
        &args.access,
        kube.as_ref().and_then(|k| k.namespace.as_deref()),
        sa_dir,
        token,
    )?;
    let (operator, credentials) = if args.use_kubeconfig_credentials || args.token_review {
        let k = kube
            .as_ref()
            .context("--use-kubeconfig-credentials and --token-review need a kubeconfig")?;
        let (op, kind) = operator(k)?;
        (Some(op), Some(kind))
    } else {
        (None, None)
    };
    let proxy = kube.as_ref().and_then(|k| k.cluster.proxy_url.clone());
    if args.all_endpoints && proxy.is_some() {
        anyhow::bail!(
            "--all-endpoints cannot reach each replica through the kubeconfig's proxy-url (the proxy picks the address); run it where the API servers are reachable directly"
        );
    }
    let mut plan = Plan {
        targets,
        client: ClientConfig {
            proxy: proxy.clone(),
            ..client_config_with(&args.tls, trust)
        },
        access,
        path: args.access.path.clone(),
        anonymous: args.anonymous,
        operator,
        token_review: args.token_review,
        review_audiences: args.audiences.clone(),
        always_keys: args.all_endpoints,
        bindings: token.map(bindings::targets).unwrap_or_default(),
    };
    // The clock starts before the clients so their timestamps share its origin.
    let clock = RunClock::start(settings.clock);
    let mut endpoints = None;
    if let (true, Some(raw)) = (args.all_endpoints, raw) {
        let (discovery, targets) = observe::discover_replicas(&plan, clock, raw)?;
        (plan.targets, endpoints) = (targets, Some(discovery));
    }
    let clients = observe::clients(&plan, clock)?;
    let observations = observe::observe(&plan, &clients, raw);
    let context = Context {
        raw: raw.map(|t| t.expose()),
        replicas: endpoints.as_ref().is_some_and(|e| !e.replicas.is_empty()),
        endpoints,
        bindings: plan.bindings.clone(),
        review_audiences: plan.review_audiences.clone(),
    };
    let mut report = probe::analyse(
        observations,
        token,
        context,
        clock.started_at(),
        settings.leeway,
    );
    report.kubeconfig = kube.as_ref().map(|k| KubeconfigInfo {
        files: k.files.iter().map(|f| f.display().to_string()).collect(),
        context: k.context.clone(),
        cluster: k.cluster_name.clone(),
        user: k.user_name.clone(),
        namespace: k.namespace.clone(),
        credentials,
        own_token,
        proxy: proxy.as_ref().map(kubeconfig::without_credentials),
    });
    let json = |r| ProbeJson::new(r, token);
    if let Some(path) = args
        .token
        .token_file
        .as_ref()
        .filter(|p| p.as_os_str() != "-")
    {
        let path = path.display().to_string();
        report.diagnosis.fill_placeholder("TOKEN_FILE", &path);
        for server in &mut report.servers {
            server.diagnosis.fill_placeholder("TOKEN_FILE", &path);
        }
    }
    super::render(out, settings, &report, json, write_probe)?;
    Ok(probe::outcome(&report))
}

/// What the command line and the pod give as the token under test.
enum Given {
    Token(Box<(ShapedToken, Option<Token>)>),
    /// `--anonymous` with no token anywhere: no TOKEN, `--token` or `-f`, an
    /// implicit stdin that is absent or empty, and no mounted token (only its
    /// existence is checked: this mode reads no token).
    Anonymous,
    /// Nothing given outside a pod: this mounted token path does not exist.
    Nothing(std::path::PathBuf),
}

fn token_unless_anonymous(args: &ProbeArgs, env: &Env) -> anyhow::Result<Given> {
    let implicit = args.token.argument().is_none() && args.token.token_file.is_none();
    if !implicit {
        return read_one_bearer(args.token.source(env)).map(|t| Given::Token(Box::new(t)));
    }
    // An implicit stdin that is empty (a pipe nobody wrote to) is no input.
    if env.stdin_readable {
        match read_one_bearer(args.token.source(env)) {
            Err(e) if super::is_empty_input(&e) => {}
            result => return result.map(|t| Given::Token(Box::new(t))),
        }
    }
    let mounted = args.token.sa_dir.join("token");
    if matches!(mounted.try_exists(), Ok(false)) {
        if args.anonymous {
            return Ok(Given::Anonymous);
        }
        if env.kubernetes_service_host.is_none() {
            return Ok(Given::Nothing(mounted));
        }
    }
    read_one_bearer(TokenSource::InPodDefault(mounted)).map(|t| Given::Token(Box::new(t)))
}

/// Outside a pod with no token given, the token under test is the kubeconfig
/// user's own, as kubectl would send it: it goes only to that kubeconfig's
/// server (a `--server` leaves no kubeconfig in play, so none is taken).
fn kubeconfig_token(
    kube: Option<&Resolved>,
    mounted: &Path,
) -> anyhow::Result<(ShapedToken, Option<Token>)> {
    let nothing = format!(
        "no token given, none mounted at {} (not in a pod)",
        mounted.display()
    );
    let Some(k) = kube else {
        anyhow::bail!(
            "{nothing} and no kubeconfig in play: pass TOKEN, -f FILE or pipe one on stdin (kubectl create token SERVICE_ACCOUNT | kubectl satoken probe -f -); without --server, probe tests the kubeconfig user's own token"
        );
    };
    let user = k.user_name.as_deref().unwrap_or("(none)");
    match operator(k)
        .with_context(|| format!("{nothing}, so probe tests the kubeconfig user's own token"))?
    {
        (Operator::Bearer(token), _) => super::bearer(
            input::shape::detect_line(token.expose()),
            "the kubeconfig user's token",
        ),
        (Operator::Certificate(_), _) => anyhow::bail!(
            "{nothing}, and kubeconfig user {user:?} authenticates with a client certificate, not a token: give the token to test (kubectl create token SERVICE_ACCOUNT | kubectl satoken probe -f -)"
        ),
    }
}

/// Where a run connects, as client-go chooses: the kubeconfig (when one is in
/// play), the servers with the name their certificates must carry, and what
/// to trust.
pub(crate) struct Connection {
    pub kube: Option<Resolved>,
    pub targets: Vec<Target>,
    pub trust: Trust,
}

/// The [`Connection`] that the flags, the kubeconfig and the pod's
/// environment make.
pub(crate) fn connection(
    flags: KubeconfigFlags<'_>,
    given: &[String],
    tls: &TlsArgs,
    sa_dir: &Path,
    env: &Env,
) -> anyhow::Result<Connection> {
    let kube = load_kubeconfig(flags, !given.is_empty(), env)?;
    // client-go: an explicit --server clears the kubeconfig's tls-server-name
    // (clientcmd getCluster: "setting a --server will effectively clear the
    // KUBECONFIG value of tls-server-name").
    let verify_name = kube
        .as_ref()
        .filter(|_| given.is_empty())
        .and_then(|k| k.cluster.tls_server_name.clone());
    let targets = servers(given, kube.as_ref(), env)?
        .into_iter()
        .map(|url| Target::new(url, verify_name.clone()))
        .collect();
    let trust = trust(tls, kube.as_ref(), sa_dir)?;
    Ok(Connection {
        kube,
        targets,
        trust,
    })
}

/// The servers to ask: `--server`s, else the kubeconfig's, else the in-pod one.
pub(crate) fn servers(
    given: &[String],
    kube: Option<&Resolved>,
    env: &Env,
) -> anyhow::Result<Vec<url::Url>> {
    Ok(if !given.is_empty() {
        given
            .iter()
            .map(|s| target::parse_server(s))
            .collect::<Result<Vec<_>, _>>()?
    } else if let Some(k) = kube {
        vec![k.cluster.server.clone()]
    } else {
        vec![target::in_pod_server(
            env.kubernetes_service_host.as_deref(),
            env.kubernetes_service_port.as_deref(),
        )?]
    })
}

/// The flags that decide whether a kubeconfig is in play, and which.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KubeconfigFlags<'a> {
    pub path: Option<&'a Path>,
    pub context: Option<&'a str>,
    /// The kubeconfig user's credentials are asked for.
    pub credentials: bool,
}

/// The kubeconfig, when one is in play (see the module docs).
fn load_kubeconfig(
    flags: KubeconfigFlags<'_>,
    servers_given: bool,
    env: &Env,
) -> anyhow::Result<Option<Resolved>> {
    let asked = flags.path.is_some() || flags.context.is_some() || flags.credentials;
    let in_pod = env.kubernetes_service_host.is_some();
    if !asked && (in_pod || servers_given) {
        return Ok(None);
    }
    let candidates =
        kubeconfig::candidate_files(flags.path, env.kubeconfig.as_deref(), env.home.as_deref());
    let mut files = Vec::new();
    for path in &candidates {
        let text = match super::read_file(path) {
            Ok(text) => text,
            // client-go skips missing KUBECONFIG entries; an explicit file must exist.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && flags.path.is_none() => {
                continue;
            }
            Err(e) => {
                return Err(e)
                    .with_context(|| format!("cannot read kubeconfig {}", path.display()));
            }
        };
        files.push(kubeconfig::parse_file(path, &text)?);
    }
    if files.is_empty() && !asked {
        return Ok(None);
    }
    Ok(Some(kubeconfig::resolve(files, flags.context)?))
}

/// Trust: the connection flags when they say something (--insecure-skip-tls-verify,
/// --cacert), else the kubeconfig (CA data or file, insecure-skip-tls-verify; no
/// CA means the system roots, as client-go), else `<sa-dir>/ca.crt`.
pub(crate) fn trust(
    tls: &TlsArgs,
    kube: Option<&Resolved>,
    sa_dir: &Path,
) -> anyhow::Result<Trust> {
    let Some(k) = kube.filter(|_| !tls.insecure_skip_tls_verify && tls.cacert.is_none()) else {
        return trust_from_flags(tls, sa_dir);
    };
    if k.cluster.insecure_skip_tls_verify {
        return Ok(Trust::InsecureSkipVerify);
    }
    let ca_pem = (k.cluster.certificate_authority.as_ref())
        .map(|m| material(m, "certificate-authority"))
        .transpose()?;
    let system = tls.system_roots || ca_pem.is_none();
    Ok(Trust::Roots { ca_pem, system })
}

fn material(m: &Material, what: &str) -> anyhow::Result<Vec<u8>> {
    match m {
        Material::Inline(bytes) => Ok(bytes.clone()),
        Material::File(path) => super::read_file(path)
            .map(String::into_bytes)
            .with_context(|| format!("cannot read kubeconfig {what} {}", path.display())),
    }
}

/// The operator's credentials from the kubeconfig user.
pub(crate) fn operator(k: &Resolved) -> anyhow::Result<(Operator, &'static str)> {
    let c = &k.credentials;
    if let Some(token) = &c.token {
        return Ok((Operator::Bearer(token.clone()), "token"));
    }
    if let Some(path) = &c.token_file {
        let text = super::read_file(path).with_context(|| {
            format!(
                "cannot read the kubeconfig user's tokenFile {}",
                path.display()
            )
        })?;
        let text = text.trim();
        anyhow::ensure!(
            !text.is_empty(),
            "the kubeconfig user's tokenFile {} is empty",
            path.display()
        );
        crate::redact::register_bearer(text);
        return Ok((Operator::Bearer(SecretToken::new(text)), "token-file"));
    }
    if let (Some(cert), Some(key)) = (&c.client_certificate, &c.client_key) {
        let key_pem = material(key, "client-key")?;
        crate::redact::register_credential(&key_pem);
        let identity = ClientIdentity {
            cert_pem: material(cert, "client-certificate")?,
            key_pem,
        };
        return Ok((Operator::Certificate(identity), "client-certificate"));
    }
    let user = k.user_name.as_deref().unwrap_or("(none)");
    if c.exec || c.auth_provider {
        anyhow::bail!(
            "kubeconfig user {user:?} authenticates with an {} plugin, which probe does not run; pass a kubeconfig whose user has a token, tokenFile or client certificate (e.g. kubectl create token ... for an account allowed to create tokenreviews)",
            if c.exec { "exec" } else { "auth-provider" }
        );
    }
    anyhow::bail!("kubeconfig user {user:?} has no token, tokenFile or client certificate to send")
}
