//! I/O: sends the probe's requests to every server, concurrently (up to
//! [`endpoints::CONCURRENCY`] at a time), and records what came back.
//! No judgement here: that is [`super::analyse`].

use serde_json::{Value, json};
use url::Url;

use super::bindings::BindingTarget;
use super::{
    AccessQuery, Answer, EndpointDiscovery, RequestKind, RequestObservation, ServerObservation,
    StatusBody,
};
use super::{endpoints, review};
use crate::diagnosis::forbidden::Forbidden;
use crate::http::target::display;
use crate::http::{
    ClientConfig, ClientIdentity, ConfigError, Connected, Exchange, HttpClient, Method, Request,
    RunClock, TransportError,
};
use crate::secret::SecretToken;

/// SelfSubjectReview versions, newest first: v1 GA in 1.28, v1beta1 1.27,
/// v1alpha1 1.26 behind a gate (k8s.io/api authentication/*).
pub const REVIEW_VERSIONS: [&str; 3] = ["v1", "v1beta1", "v1alpha1"];

#[derive(Debug, Clone)]
pub struct Target {
    pub url: Url,
    /// As shown (a replica: `https://IP:PORT`).
    pub shown: String,
    /// The certificate name, when not the URL's host.
    pub verify_name: Option<String>,
    /// Pin the URL's host name to one replica address (SNI and verification
    /// keep the name).
    pub resolve: Option<(String, std::net::SocketAddr)>,
}

impl Target {
    /// A server as given (`--server`, kubeconfig, in-pod), with kubeconfig's
    /// `tls-server-name` if any.
    pub fn new(url: Url, verify_name: Option<String>) -> Self {
        Target {
            shown: display(&url),
            url,
            verify_name,
            resolve: None,
        }
    }

    /// A replica at `addr` of the server `original`: verified against the
    /// original's name (or its `tls-server-name`). A DNS name is pinned to the
    /// address ([`ClientConfig::resolve`]), so SNI carries it too; an IP (no SNI
    /// exists for IPs) is verified through the name override.
    pub fn replica(original: &Target, addr: std::net::SocketAddr) -> Self {
        let shown = format!("https://{addr}");
        let host = original.url.host_str().unwrap_or_default().to_owned();
        let is_dns = matches!(original.url.host(), Some(url::Host::Domain(_)));
        let (url, resolve) = if is_dns {
            let mut url = original.url.clone();
            let _ = url.set_port(Some(addr.port()));
            (url, Some((host.clone(), addr)))
        } else {
            (
                Url::parse(&shown).unwrap_or_else(|_| original.url.clone()),
                None,
            )
        };
        Target {
            url,
            shown,
            verify_name: original.verify_name.clone().or(Some(host)),
            resolve,
        }
    }
}

/// The operator's kubeconfig credentials, for the side requests (TokenReview,
/// JWKS, object reads, EndpointSlices): never the token under test.
#[derive(Debug, Clone)]
pub enum Operator {
    Bearer(SecretToken),
    Certificate(ClientIdentity),
}

#[derive(Debug, Clone)]
pub struct Plan {
    pub targets: Vec<Target>,
    pub client: ClientConfig,
    pub access: Option<AccessQuery>,
    pub path: Option<String>,
    pub anonymous: bool,
    pub operator: Option<Operator>,
    pub token_review: bool,
    /// `--audience`: a second TokenReview with these `spec.audiences`.
    pub review_audiences: Vec<String>,
    /// Also read JWKS and discovery on servers that accept the token (to
    /// compare replicas' keys).
    pub always_keys: bool,
    /// The objects the token is bound to (read after a 401).
    pub bindings: Vec<BindingTarget>,
}

/// A server's clients: one for the token under test; one presenting the
/// operator's client certificate, if that is the operator's credential (it
/// must not ride along with the token under test: x509 authenticates first).
#[derive(Debug)]
pub struct ServerClients {
    pub main: HttpClient,
    pub operator: Option<HttpClient>,
    pub target: Target,
}

/// Builds the clients per server (each with its own verifier, so a refusal is
/// attributed to the right server); configuration errors end the run (exit 2).
pub fn clients(plan: &Plan, clock: RunClock) -> Result<Vec<ServerClients>, ConfigError> {
    plan.targets
        .iter()
        .map(|target| {
            let client = |identity: Option<&ClientIdentity>| {
                let config = ClientConfig {
                    verify_name: target.verify_name.clone(),
                    resolve: target.resolve.clone(),
                    identity: identity.cloned(),
                    ..plan.client.clone()
                };
                HttpClient::new(&target.url, &config, clock)
            };
            let operator = match &plan.operator {
                Some(Operator::Certificate(identity)) => Some(client(Some(identity))?),
                _ => None,
            };
            Ok(ServerClients {
                main: client(None)?,
                operator,
                target: target.clone(),
            })
        })
        .collect()
}

/// Probes every server concurrently; results keep the order of `clients`.
/// With no token (`--anonymous` alone) every request goes without one.
pub fn observe(
    plan: &Plan,
    clients: &[ServerClients],
    token: Option<&SecretToken>,
) -> Vec<ServerObservation> {
    let results = endpoints::each_bounded(clients, |c| observe_one(plan, c, token));
    // A server whose worker panicked has an observation with no requests.
    let mut observations: Vec<ServerObservation> = results
        .into_iter()
        .zip(clients)
        .map(|(slot, c)| slot.unwrap_or_else(|| finish(plan, c, Vec::new(), token.is_some())))
        .collect();
    let Some(token) = token else {
        return observations;
    };
    // Without operator credentials the token itself may read its bindings, on a
    // server that accepts it, when another one rejects it.
    let rejected = observations.iter().any(|o| token_status(o) == Some(401));
    let reader = (plan.operator.is_none() && rejected && !plan.bindings.is_empty())
        .then(|| {
            observations
                .iter()
                .position(|o| token_status(o).is_some_and(|s| s != 401))
        })
        .flatten();
    if let Some(i) = reader
        && let Ok((via, _)) = clients[i].main.preflight(&Request::get("/version"))
    {
        let sender = Sender::new(via, Some(token));
        for target in &plan.bindings {
            let request = Request::get(target.path());
            observations[i]
                .requests
                .push(sender.send(RequestKind::ReadObject, &request));
        }
    }
    observations
}

/// The status of the last request that decides the classification.
fn token_status(o: &ServerObservation) -> Option<u16> {
    let decisive: Vec<&RequestObservation> = o
        .requests
        .iter()
        .filter(|r| r.kind.decides() && !r.anonymous && !r.operator)
        .collect();
    if decisive
        .iter()
        .any(|r| matches!(&r.result, Ok(a) if a.exchange.status == 401))
    {
        return Some(401);
    }
    decisive
        .last()
        .and_then(|r| r.result.as_ref().ok())
        .map(|a| a.exchange.status)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum As {
    Token,
    Operator,
    Nobody,
}

/// Who sends, over which connection, with which token (none: no
/// `Authorization` at all).
#[derive(Clone, Copy)]
struct Sender<'a> {
    who: As,
    via: Connected<'a>,
    token: Option<&'a SecretToken>,
}

impl<'a> Sender<'a> {
    /// The token under test, or nobody without one.
    fn new(via: Connected<'a>, token: Option<&'a SecretToken>) -> Self {
        let who = token.map_or(As::Nobody, |_| As::Token);
        Sender { who, via, token }
    }

    /// The operator's: its bearer token over `via`, or its certificate client
    /// after that client's own token-less preflight; none without operator
    /// credentials or when that preflight failed.
    fn operator(plan: &'a Plan, clients: &'a ServerClients, via: Connected<'a>) -> Option<Self> {
        let (via, token) = match (&plan.operator, &clients.operator) {
            (Some(Operator::Bearer(t)), _) => (via, Some(t)),
            (Some(Operator::Certificate(_)), Some(c)) => {
                (c.preflight(&Request::get("/version")).ok()?.0, None)
            }
            _ => return None,
        };
        Some(Sender {
            who: As::Operator,
            via,
            token,
        })
    }

    fn send(self, kind: RequestKind, request: &Request) -> RequestObservation {
        let result = self.via.send(request, self.token);
        observed(kind, request, self.who, result)
    }
}

fn observed(
    kind: RequestKind,
    request: &Request,
    who: As,
    result: Result<Exchange, TransportError>,
) -> RequestObservation {
    RequestObservation {
        kind,
        method: request.method,
        path: request.path.clone(),
        anonymous: who == As::Nobody,
        operator: who == As::Operator,
        // A review's, from its path (`/apis/GROUP/VERSION/PLURAL`).
        api_version: request
            .path
            .strip_prefix("/apis/")
            .filter(|_| request.method == Method::Post)
            .and_then(|p| Some(p.rsplit_once('/')?.0.to_owned())),
        result: result.map(answer),
    }
}

/// The requests about the token, recorded in `requests`; false when one got
/// no answer (nothing more is sent then).
fn ask(
    plan: &Plan,
    via: Connected<'_>,
    token: Option<&SecretToken>,
    requests: &mut Vec<RequestObservation>,
) -> bool {
    // With the token, then (with --anonymous) the same without it; with no
    // token, only without.
    let passes: &[Option<&SecretToken>] = match token {
        Some(_) if plan.anonymous => &[token, None],
        Some(_) => &[token],
        None => &[None],
    };
    for &token in passes {
        let sender = Sender::new(via, token);
        // Whether the request got an answer, and whether that was a 404.
        let mut send = |kind, request: &Request| {
            let observation = sender.send(kind, request);
            let answered = observation.result.as_ref().ok();
            let not_found = answered.map(|a| a.exchange.status == 404);
            requests.push(observation);
            not_found
        };
        for version in REVIEW_VERSIONS {
            match send(
                RequestKind::SelfSubjectReview,
                &self_subject_review(version),
            ) {
                None => return false,
                Some(true) => continue,
                Some(false) => break,
            }
        }
        if let Some(query) = &plan.access {
            let request = self_subject_access_review(query);
            if send(RequestKind::SelfSubjectAccessReview, &request).is_none() {
                return false;
            }
        }
        if let Some(path) = &plan.path
            && send(RequestKind::Get, &Request::get(path.clone())).is_none()
        {
            return false;
        }
    }
    true
}

fn observe_one(
    plan: &Plan,
    clients: &ServerClients,
    token: Option<&SecretToken>,
) -> ServerObservation {
    let version = Request::get("/version");
    let (connected, result) = match clients.main.preflight(&version) {
        Ok((connected, exchange)) => (Some(connected), Ok(exchange)),
        Err(e) => (None, Err(e)),
    };
    let mut requests = vec![observed(RequestKind::Version, &version, As::Nobody, result)];
    let complete = connected.is_some_and(|c| ask(plan, c, token, &mut requests));
    let mut done = finish(plan, clients, requests, token.is_some());
    // Side requests are about the token under test: none without one.
    let (Some(connected), true, Some(token)) = (connected, complete, token) else {
        return done;
    };
    let rejected = token_status(&done) == Some(401);
    let operator = Sender::operator(plan, clients, connected);
    let mut push = |sender: Sender<'_>, kind, request: &Request| {
        done.requests.push(sender.send(kind, request));
    };
    // The plain TokenReview, then the one asking for `--audience`.
    let reviews = [
        (plan.token_review, RequestKind::TokenReview, &[][..]),
        (
            !plan.review_audiences.is_empty(),
            RequestKind::AudienceReview,
            &plan.review_audiences,
        ),
    ];
    for (asked, kind, audiences) in reviews {
        if let Some(operator) = operator.filter(|_| asked) {
            push(operator, kind, &super::review::request(token, audiences));
        }
    }
    if rejected || plan.always_keys {
        // ServiceAccounts may read these by default (system:service-account-
        // issuer-discovery); a rejected token cannot, so try without one.
        let reader = operator.unwrap_or(Sender::new(connected, Some(token).filter(|_| !rejected)));
        for (kind, path) in [
            (RequestKind::Discovery, "/.well-known/openid-configuration"),
            (RequestKind::Jwks, "/openid/v1/jwks"),
        ] {
            push(reader, kind, &Request::get(path));
        }
    }
    if let Some(operator) = operator.filter(|_| rejected) {
        for target in &plan.bindings {
            push(
                operator,
                RequestKind::ReadObject,
                &Request::get(target.path()),
            );
        }
    }
    done
}

/// `--all-endpoints`: reads the `kubernetes` Service's EndpointSlices (then
/// its Endpoints) from the first target, as the operator, else with the
/// token; and the targets to probe: each replica found, else the targets as given.
pub fn discover_replicas(
    plan: &Plan,
    clock: RunClock,
    token: &SecretToken,
) -> Result<(EndpointDiscovery, Vec<Target>), ConfigError> {
    let original = &plan.targets[0];
    let first = clients(
        &Plan {
            targets: vec![original.clone()],
            ..plan.clone()
        },
        clock,
    )?;
    let discovery = discover_endpoints(plan, &first[0], token);
    let targets = if discovery.replicas.is_empty() {
        plan.targets.clone()
    } else {
        (discovery.replicas.iter())
            .map(|r| Target::replica(original, r.addr))
            .collect()
    };
    Ok((discovery, targets))
}

fn discover_endpoints(
    plan: &Plan,
    clients: &ServerClients,
    token: &SecretToken,
) -> EndpointDiscovery {
    let mut discovery = EndpointDiscovery {
        via: clients.target.shown.clone(),
        ..EndpointDiscovery::default()
    };
    let connected = match clients.main.preflight(&Request::get("/version")) {
        Ok((c, _)) => c,
        Err(e) => {
            discovery.error = Some(format!("cannot reach {}: {e}", clients.target.shown));
            return discovery;
        }
    };
    let sender = Sender::operator(plan, clients, connected)
        .unwrap_or_else(|| Sender::new(connected, Some(token)));
    let mut failures = Vec::new();
    let readers: [(_, _, fn(&Value) -> _); 2] = [
        (
            endpoints::SLICES_PATH,
            "endpointslices",
            endpoints::from_slices,
        ),
        (
            endpoints::ENDPOINTS_PATH,
            "endpoints",
            endpoints::from_endpoints,
        ),
    ];
    for (path, source, read) in readers {
        let observation = sender.send(RequestKind::Endpoints, &Request::get(path));
        let parsed = match &observation.result {
            Ok(a) if (200..300).contains(&a.exchange.status) => a.json.as_ref().and_then(read),
            _ => None,
        };
        failures.push(match &observation.result {
            Ok(a) => format!("GET {source}: HTTP {}", a.exchange.status),
            Err(e) => format!("GET {source}: {e}"),
        });
        discovery.requests.push(observation);
        if let Some(mut replicas) = parsed.filter(|r| !r.is_empty()) {
            discovery.source = Some(source);
            discovery.omitted = replicas.len().saturating_sub(endpoints::MAX_REPLICAS);
            replicas.truncate(endpoints::MAX_REPLICAS);
            discovery.replicas = replicas;
            return discovery;
        }
    }
    discovery.error = Some(format!(
        "the kubernetes Service's endpoints were not readable ({}); probing {} alone. Who may: kubectl auth can-i list endpointslices.discovery.k8s.io -n default",
        failures.join(", "),
        clients.target.shown
    ));
    discovery
}

fn finish(
    plan: &Plan,
    clients: &ServerClients,
    requests: Vec<RequestObservation>,
    token_sent: bool,
) -> ServerObservation {
    ServerObservation {
        url: clients.target.shown.clone(),
        verifies_tls: clients.main.verifies(),
        requests,
        access: plan.access.clone(),
        verify_name: clients.target.verify_name.clone(),
        token_sent,
    }
}

pub fn self_subject_review(version: &str) -> Request {
    let api_version = format!("authentication.k8s.io/{version}");
    review::post(&api_version, "SelfSubjectReview", None)
}

pub fn self_subject_access_review(query: &AccessQuery) -> Request {
    let mut attributes = json!({
        "verb": query.verb,
        "group": query.group,
        "resource": query.resource,
    });
    for (key, value) in [
        ("namespace", &query.namespace),
        ("subresource", &query.subresource),
        ("name", &query.name),
    ] {
        if let Some(value) = value {
            attributes[key] = Value::String(value.clone());
        }
    }
    let spec = json!({"resourceAttributes": attributes});
    review::post(
        "authorization.k8s.io/v1",
        "SelfSubjectAccessReview",
        Some(spec),
    )
}

/// Reduces an exchange to an [`Answer`]: parses JSON and `Status` bodies.
pub fn answer(exchange: Exchange) -> Answer {
    let json: Option<Value> = serde_json::from_slice(&exchange.body).ok();
    let status_body = json
        .as_ref()
        .filter(|v| v.get("kind").and_then(Value::as_str) == Some("Status"))
        .map(|v| {
            let text = |key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
            let message = text("message");
            StatusBody {
                reason: text("reason"),
                forbidden: message.as_deref().and_then(Forbidden::parse),
                message,
                details: v.get("details").cloned(),
            }
        });
    Answer {
        exchange: Exchange {
            body: Vec::new(),
            ..exchange
        },
        status_body,
        json,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replicas_keep_the_original_name() {
        let ip = Target::new(Url::parse("https://10.96.0.1").unwrap(), None);
        let addr: std::net::SocketAddr = "172.18.0.3:6443".parse().unwrap();
        let r = Target::replica(&ip, addr);
        assert_eq!(r.shown, "https://172.18.0.3:6443");
        assert_eq!(r.url.as_str(), "https://172.18.0.3:6443/");
        assert_eq!(r.verify_name.as_deref(), Some("10.96.0.1"));
        assert_eq!(r.resolve, None);
        // A DNS name: the URL keeps it (SNI), pinned to the replica's address.
        let named = Target::new(Url::parse("https://cp.example:6443").unwrap(), None);
        let r = Target::replica(&named, addr);
        assert_eq!(r.url.as_str(), "https://cp.example:6443/");
        assert_eq!(r.resolve, Some(("cp.example".to_owned(), addr)));
        assert_eq!(r.shown, "https://172.18.0.3:6443");
        // kubeconfig's tls-server-name wins over the host.
        let with_name = Target::new(
            Url::parse("https://10.0.0.1:6443").unwrap(),
            Some("kubernetes".to_owned()),
        );
        let v6: std::net::SocketAddr = "[fd00::3]:6443".parse().unwrap();
        let r = Target::replica(&with_name, v6);
        assert_eq!(r.verify_name.as_deref(), Some("kubernetes"));
        assert_eq!(r.shown, "https://[fd00::3]:6443");
    }
}
