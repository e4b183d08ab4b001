//! `doctor`: every check in order, each printed as it completes (table mode),
//! then one verdict. The edge does the I/O (token file, API server, keys); the
//! steps and the verdict come from the pure `crate::doctor`.

use std::io::Write;

use chrono::{DateTime, Utc};
use url::Url;

use super::{Cx, access_query, client_config, read_one_token_or_mounted};
use crate::cli::DoctorArgs;
use crate::decode;
use crate::diagnosis::Classification;
use crate::doctor::{self, KeysObservation, Step};
use crate::exit::Outcome;
use crate::http::ClientConfig;
use crate::http::RunClock;
use crate::input::TokenSource;
use crate::probe;
use crate::probe::observe::{self, Plan, Target};
use crate::report::doctor::{DoctorJson, write_step, write_verdict};
use crate::secret::SecretToken;
use crate::settings::Settings;
use crate::token::Token;
use crate::verify::fetch::{self, FetchError};
use crate::verify::{self, Expectations, keys};

pub fn run(args: DoctorArgs, Cx(settings, env, out, _): Cx<'_>) -> anyhow::Result<Outcome> {
    let table = settings.format.data().is_none();
    let mut steps: Vec<Step> = Vec::new();
    let mut record = |step: Step, out: &mut dyn Write| -> std::io::Result<()> {
        if table {
            write_step(out, &step, &settings.table)?;
        }
        steps.push(step);
        Ok(())
    };

    // 1. The token, on this pod's clock.
    if let TokenSource::InPodDefault(path) = args.token.source(env)
        && !path.exists()
    {
        anyhow::bail!(
            "no token given and none mounted at {}: doctor checks a pod from inside it (kubectl exec POD -- kubectl-satoken doctor); from here, kubectl satoken probe tests your kubeconfig user's own token against its server, or give doctor a token (kubectl create token SERVICE_ACCOUNT | kubectl satoken doctor)",
            path.display()
        );
    }
    let (shaped, token) = read_one_token_or_mounted(&args.token, env)?;
    let token_file = match args.token.source(env) {
        TokenSource::File(path) | TokenSource::InPodDefault(path) => Some(path),
        _ => None,
    };
    // When the kubelet last rewrote the file: its mtime is on the real clock,
    // meaningless against a pinned --now.
    let file_written = token_file
        .as_ref()
        .filter(|_| settings.clock == crate::clock::Clock::System)
        .and_then(|path| Some(std::fs::metadata(path).ok()?.modified().ok()?.into()));
    let clock = RunClock::start(settings.clock);
    let now = clock.started_at();
    let decoded = decode::analyse(token.clone(), &shaped, now, settings.leeway);
    record(doctor::token_step(&decoded), out)?;
    record(doctor::pod_clock_step(&decoded), out)?;

    // 2. The API server: who am I (and can I), and its clock.
    let server = super::probe::servers(args.server.as_slice(), None, env)?.remove(0);
    let config = client_config(&args.tls, &args.token.sa_dir)?;
    let access = access_query(&args.access, None, &args.token.sa_dir, Some(&token))?;
    let plan = Plan {
        targets: vec![Target::new(server.clone(), None)],
        client: config.clone(),
        access,
        path: args.access.path.clone(),
        anonymous: false,
        operator: None,
        token_review: false,
        review_audiences: Vec::new(),
        always_keys: false,
        bindings: Vec::new(),
    };
    let clients = observe::clients(&plan, clock)?;
    let observations = observe::observe(&plan, &clients, Some(&shaped.token));
    let probed = probe::analyse(
        observations,
        Some(&token),
        probe::Context::default(),
        now,
        settings.leeway,
    );
    let answered = probed.servers.first().filter(|s| {
        !matches!(
            s.classification,
            Classification::TlsError | Classification::NetworkError
        )
    });
    if let Some(s) = probed.servers.first() {
        record(doctor::server_step(s), out)?;
    }
    if let Some(s) = answered {
        record(doctor::server_clock_step(&decoded, s), out)?;
    }

    // 3. The keys the server publishes.
    let keys = if args.no_jwks {
        KeysObservation::Skipped("not asked (--no-jwks)".to_owned())
    } else if answered.is_none() {
        KeysObservation::Skipped("the API server did not answer".to_owned())
    } else {
        server_keys(
            &server,
            &config,
            clock,
            &shaped.token,
            &token,
            now,
            settings,
        )
    };
    record(doctor::keys_step(&keys), out)?;

    // 4. Is the mounted token kept fresh, and does the client send it?
    record(doctor::freshness_step(&decoded, file_written), out)?;

    let mut report = doctor::diagnose(steps, &probed, &keys, &token, settings.leeway);
    if let Some(path) = &token_file {
        report
            .diagnosis
            .fill_placeholder("TOKEN_FILE", &path.display().to_string());
    }
    let json = |r| DoctorJson::new(r, &decoded, &probed, &keys);
    super::render(out, settings, &report, json, write_verdict)?;
    Ok(report.verdict.outcome())
}

/// Fetches `/openid/v1/jwks` from the server and checks the token against it.
fn server_keys(
    server: &Url,
    config: &ClientConfig,
    clock: RunClock,
    secret: &SecretToken,
    token: &Token,
    now: DateTime<Utc>,
    settings: &Settings,
) -> KeysObservation {
    let Ok(url) = server.join("/openid/v1/jwks") else {
        return KeysObservation::Skipped("no JWKS URL for this server".to_owned());
    };
    let fetched = match fetch::fetch(&url, config, clock, secret) {
        Ok(f) => f,
        Err(FetchError::Status { status, .. }) => {
            return KeysObservation::Skipped(format!(
                "the server's keys are not readable with this token (HTTP {status} for /openid/v1/jwks)"
            ));
        }
        Err(e) => {
            return KeysObservation::Skipped(format!("cannot read the server's keys: {e}"));
        }
    };
    match keys::parse_jwks(&fetched.jwks) {
        Ok(set) => {
            let mut keys = keys::KeySet::default();
            keys.extend(set, url.as_str());
            KeysObservation::Verified(Box::new(verify::verify(
                secret.expose(),
                token,
                &keys,
                &Expectations::default(),
                now,
                settings.leeway,
            )))
        }
        Err(e) => KeysObservation::Skipped(format!("the server's JWKS is not usable: {e}")),
    }
}
