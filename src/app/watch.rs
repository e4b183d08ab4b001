//! `watch`: flags, kubeconfig and trust resolved as `probe` resolves them,
//! the token read once (an unreadable one is exit 2), the listen address
//! bound; then the measuring thread ([`crate::watch::run`]) and the metrics
//! server on this thread until a signal.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;

use super::probe::{Connection, KubeconfigFlags, connection, operator};
use super::{Cx, client_config_with, read_one_bearer};
use crate::cli::WatchArgs;
use crate::env::Env;
use crate::exit::{self, Outcome};
use crate::http::{ClientConfig, RunClock, Trust};
use crate::input::TokenSource;
use crate::probe::observe::Plan;
use crate::sanitize::sanitize;
use crate::settings::Settings;
use crate::watch::{self, Options, ReadToken, metrics::Metrics, serve};

pub fn run(args: WatchArgs, Cx(settings, env, out, _): Cx<'_>) -> anyhow::Result<Outcome> {
    let path = args
        .token_file
        .clone()
        .unwrap_or_else(|| args.sa_dir.join("token"));
    anyhow::ensure!(
        path.as_os_str() != "-",
        "watch re-reads the token file every cycle: give a file, not - (stdin)"
    );
    let read_token = move || -> ReadToken {
        read_one_bearer(TokenSource::File(path.clone()))
            .map(|(shaped, token)| (shaped.token, token))
            .map_err(|e| sanitize(&exit::one_line(&e)).into_owned())
    };
    read_token().map_err(|e| anyhow::anyhow!(e))?;
    let options = options(&args, settings, env)?;
    let listener = std::net::TcpListener::bind(args.listen)
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    let (metrics, registry) = Metrics::register();
    let interval = options.interval;
    let stale_after = (interval * 5).max(Duration::from_secs(120));
    let heartbeat = Arc::new(serve::Heartbeat::new(stale_after));
    let (log_tx, log_rx) = tokio::sync::mpsc::unbounded_channel();
    let (stop_tx, stop_rx) = std::sync::mpsc::channel();
    let beat = heartbeat.clone();
    std::thread::Builder::new()
        .name("measure".into())
        .spawn(move || {
            let log = |line: String| {
                let _ = log_tx.send(line);
            };
            watch::run(&options, read_token, &metrics, &beat, log, &stop_rx);
        })
        .context("cannot start the measuring thread")?;
    serve::serve(listener, Arc::new(registry), heartbeat, log_rx, out)?;
    drop(stop_tx);
    Ok(Outcome::Healthy)
}

/// The measuring loop's options: the servers and trust as `probe` finds them.
fn options(args: &WatchArgs, settings: &Settings, env: &Env) -> anyhow::Result<Options> {
    let Connection {
        kube,
        targets,
        trust,
    } = connection(
        KubeconfigFlags {
            path: args.kubeconfig.as_deref(),
            context: args.context.as_deref(),
            credentials: args.use_kubeconfig_credentials,
        },
        &args.servers,
        &args.tls,
        &args.sa_dir,
        env,
    )?;
    let discover = !args.no_discovery;
    if discover && trust == Trust::InsecureSkipVerify {
        anyhow::bail!(
            "replica discovery needs verified TLS: without it the token would go to addresses read from the API with no certificate check; give the CA, or pass --no-discovery"
        );
    }
    let proxy = kube.as_ref().and_then(|k| k.cluster.proxy_url.clone());
    if discover && proxy.is_some() {
        anyhow::bail!(
            "replica discovery cannot reach each replica through the kubeconfig's proxy-url; pass --no-discovery, or run it where the API servers are reachable directly"
        );
    }
    let operator = match (&kube, args.use_kubeconfig_credentials) {
        (Some(k), true) => Some(operator(k)?.0),
        (None, true) => anyhow::bail!("--use-kubeconfig-credentials needs a kubeconfig"),
        _ => None,
    };
    let plan = Plan {
        targets,
        // No overall deadline: the run is long; each request keeps its timeout.
        client: ClientConfig {
            proxy,
            deadline: None,
            ..client_config_with(&args.tls, trust)
        },
        access: None,
        path: None,
        anonymous: false,
        operator,
        token_review: false,
        review_audiences: Vec::new(),
        always_keys: false,
        bindings: Vec::new(),
    };
    Ok(Options {
        plan,
        discover,
        interval: args.interval.to_std().unwrap_or(Duration::from_secs(30)),
        samples: usize::from(args.clock_samples),
        leeway: settings.leeway,
        clock: RunClock::start(settings.clock),
        text_logs: env.stdout_tty,
    })
}
