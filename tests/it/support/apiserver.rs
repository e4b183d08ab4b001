//! A kube-apiserver front door for tests: HTTPS on 127.0.0.1 only (hyper 1 +
//! tokio-rustls), its own clock (a fixed base instant + a per-instance offset,
//! advancing in real time, also written into `Date`), ServiceAccount token
//! validation as pkg/serviceaccount does it, a tiny RBAC table, and the exact
//! Status bodies and headers of 401/403/404, the issuer discovery documents
//! (serving testdata/jwks.json) (../shared/k8s-token-semantics.md
//! sections 2-5). It records every request so tests can assert what was sent,
//! shuts down on Drop, and stops by itself after [`LIFETIME`].
//!
//! One file of about 1,300 lines: the handlers share one state, one routing
//! table and one authenticator, and split apart they would each need all three.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, TimeDelta, Utc};
use http_body_util::{BodyExt as _, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::{Value, json};

use super::pki::Pki;
use super::tokens;

/// A test server never outlives this, even if a test leaks it.
pub const LIFETIME: Duration = Duration::from_secs(60);

/// How the server answers, besides normally. The modes after `Slow` are
/// hostile: a server (or something in front of one) misbehaving on purpose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    Normal,
    /// Every request gets `302 Found` with this `Location`.
    Redirect(String),
    /// Every request gets a `401` Status with this `Location` (a login page,
    /// as some authenticating proxies answer): not a redirect.
    LoginLocation(String),
    /// Sleeps this long before answering anything.
    Slow(Duration),
    /// Answers as usual, but echoes the request headers (the `Authorization`
    /// header with the bearer token among them) into every text field:
    /// a Status's `message` and `reason`, a `details.name` and `details.causes`,
    /// a SelfSubjectReview's `username` and `groups`, a TokenReview's
    /// `status.error` and `user`, and the `Location`, `WWW-Authenticate` and
    /// `Warning` headers of every answer.
    Echo,
    /// An nginx in front of nothing: `200 OK` with its HTML welcome page on
    /// every path and method.
    NginxWelcome,
    /// An authenticating proxy: `401` with an HTML page and
    /// `WWW-Authenticate: Basic realm="Restricted"` on every path.
    AuthProxy,
    /// A web application firewall: `403` with an HTML "request blocked" page
    /// on every path.
    WafBlock,
    /// Headers at once, then the body one byte per this interval (each answer,
    /// `/version` included). [`ApiServer::cut_off`] counts bodies the client
    /// hung up on before their end.
    DripBody(Duration),
    /// `/version` answers normally (so the token goes out); every other path
    /// gets a 401 Status whose `message` and `reason` are this many bytes of
    /// one unbroken word (past 1 MiB: a body over the client's bound).
    HugeReason(usize),
    /// `/version` answers with a document that is not Kubernetes' shape
    /// (`{"version": "2.4.1", "name": "edge-gateway"}`); the rest is normal.
    ForeignVersion,
    /// SelfSubjectReview creation answers `201` with a body that is not JSON.
    GarbageReview,
    /// SelfSubjectReview creation answers `201 Created` with a failure Status
    /// inside (`kind: Status`, `code: 401`) instead of a review.
    StatusIn201,
    /// A server before 1.26 (or with the API disabled): no SelfSubjectReview in
    /// any version, a 404 for each; TokenReview and the rest as usual.
    NoSelfSubjectReview,
    /// RBAC denies `create selfsubjectreviews` (a cluster that removed the
    /// default `system:basic-user` binding): a 403 Status for each version.
    DenySelfSubjectReview,
    /// Every answer carries this `Date` header instead of the server's clock.
    DateHeader(String),
    /// AWS STS in the API server's place: every request is an
    /// `AssumeRoleWithWebIdentity` judged against this trust and refused in
    /// STS's words ([`super::sts`]), on the server's clock.
    Sts(super::sts::Trust),
}

/// An object the server knows: `(resource, namespace, name) -> uid`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Object {
    /// Plural resource (`serviceaccounts`, `pods`, `secrets`, `configmaps`).
    pub resource: String,
    /// API group; empty for core.
    pub group: String,
    pub namespace: String,
    pub name: String,
    pub uid: String,
    /// `metadata.deletionTimestamp`, RFC 3339.
    pub deletion_timestamp: Option<String>,
    /// `metadata.labels`.
    pub labels: Vec<(String, String)>,
}

impl Object {
    /// An object in the test namespace.
    pub fn new(resource: &str, name: &str, uid: &str) -> Object {
        Object {
            resource: resource.to_owned(),
            group: String::new(),
            namespace: tokens::NAMESPACE.to_owned(),
            name: name.to_owned(),
            uid: uid.to_owned(),
            deletion_timestamp: None,
            labels: Vec::new(),
        }
    }

    /// A Node (cluster-scoped).
    pub fn node(name: &str, uid: &str) -> Object {
        Object {
            namespace: String::new(),
            ..Object::new("nodes", name, uid)
        }
    }

    /// The Secret of [`super::tokens::legacy`]'s token, labelled
    /// `kubernetes.io/legacy-token-invalid-since` (the legacy token cleaner).
    pub fn invalidated_legacy_secret(since: &str) -> Object {
        let mut secret = Object::new(
            "secrets",
            "reporter-token-x7k2p",
            "5f0c2b1a-0000-4000-8000-000000000001",
        );
        secret.labels.push((
            "kubernetes.io/legacy-token-invalid-since".to_owned(),
            since.to_owned(),
        ));
        secret
    }

    fn json(&self) -> Value {
        let mut meta = json!({"name": self.name, "uid": self.uid});
        if !self.namespace.is_empty() {
            meta["namespace"] = json!(self.namespace);
        }
        if let Some(t) = &self.deletion_timestamp {
            meta["deletionTimestamp"] = json!(t);
        }
        if !self.labels.is_empty() {
            let labels: serde_json::Map<String, Value> = self
                .labels
                .iter()
                .map(|(k, v)| (k.clone(), json!(v)))
                .collect();
            meta["labels"] = Value::Object(labels);
        }
        json!({"apiVersion": "v1", "kind": "Object", "metadata": meta})
    }
}

/// Which kube-apiserver wording the authentication errors use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wording {
    /// 1.31+: "service account token has expired", "invalid signature, no keys found".
    Current,
    /// 1.22: "Token has expired.", "Token could not be validated.", square/go-jose,
    /// every key tried (an unknown kid fails the signature).
    V1_22,
}

/// One RBAC grant: `subject` (a username or group) may `verbs` on `resources`
/// in `group`, in `namespace` (a RoleBinding) or everywhere (`None`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub subject: String,
    pub verbs: Vec<String>,
    pub group: String,
    pub resources: Vec<String>,
    pub namespace: Option<String>,
}

/// Server configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// The instant the server's clock starts at, before `offset`.
    pub base: DateTime<Utc>,
    /// This instance's clock error (a node running behind: negative).
    pub offset: TimeDelta,
    /// `--service-account-issuer` values.
    pub issuers: Vec<String>,
    /// `--api-audiences`.
    pub audiences: Vec<String>,
    /// `--anonymous-auth`.
    pub anonymous: bool,
    /// Serve SelfSubjectReview v1 (off: a 1.27 server, v1beta1 only).
    pub review_v1: bool,
    pub objects: Vec<Object>,
    pub rbac: Vec<Rule>,
    pub mode: Mode,
    /// Drop `Authorization` before authenticating (a misbehaving proxy).
    pub strip_authorization: bool,
    pub wording: Wording,
    /// The kids of testdata/jwks.json this server verifies with and publishes
    /// (`None`: all of them). A rotation leaves some replicas without a kid.
    pub kids: Option<Vec<String>>,
    /// Static tokens (`--token-auth-file`): token -> (username, groups);
    /// `system:authenticated` is added.
    pub static_tokens: Vec<(String, String, Vec<String>)>,
    /// Client certificates (DER) -> username, in group system:masters.
    pub client_certs: Vec<(Vec<u8>, String)>,
    /// Serve EndpointSlices (else 404, leaving the Endpoints fallback).
    pub endpoint_slices: bool,
    /// Let anonymous requests read the issuer discovery documents (the
    /// documented `system:service-account-issuer-discovery` binding to
    /// `system:unauthenticated`); ServiceAccounts may always read them.
    pub anonymous_discovery: bool,
    /// The `jwks_uri` the discovery document names (default: this server's
    /// `/openid/v1/jwks`), e.g. another server's, for a cross-origin key set.
    pub jwks_uri: Option<String>,
    /// Plain HTTP, no TLS (for `--allow-plain-http`).
    pub plain_http: bool,
}

impl Config {
    /// A healthy cluster at `base`: the test ServiceAccount and pod exist.
    pub fn new(base: DateTime<Utc>) -> Config {
        let object = |resource: &str, name: &str, uid: &str| Object {
            resource: resource.to_owned(),
            group: String::new(),
            namespace: tokens::NAMESPACE.to_owned(),
            name: name.to_owned(),
            uid: uid.to_owned(),
            deletion_timestamp: None,
            labels: Vec::new(),
        };
        Config {
            base,
            offset: TimeDelta::zero(),
            issuers: vec![tokens::ISSUER.to_owned()],
            audiences: vec![tokens::ISSUER.to_owned()],
            anonymous: true,
            review_v1: true,
            objects: vec![
                object("serviceaccounts", tokens::SA, tokens::SA_UID),
                object("pods", tokens::POD, tokens::POD_UID),
            ],
            rbac: Vec::new(),
            mode: Mode::Normal,
            strip_authorization: false,
            wording: Wording::Current,
            kids: None,
            static_tokens: Vec::new(),
            client_certs: Vec::new(),
            endpoint_slices: true,
            anonymous_discovery: false,
            jwks_uri: None,
            plain_http: false,
        }
    }

    /// The ServiceAccount deleted and recreated under the same name: the server
    /// now holds it with a new uid, [`super::tokens::RECREATED_SA_UID`].
    pub fn recreate_service_account(&mut self) {
        self.objects.retain(|o| o.resource != "serviceaccounts");
        self.objects.push(Object::new(
            "serviceaccounts",
            super::tokens::SA,
            super::tokens::RECREATED_SA_UID,
        ));
    }

    /// A healthy cluster that also holds shop/checkout, the ServiceAccount the
    /// Secret-bound and node-bound fixtures of testdata/tokens name.
    pub fn shop(base: DateTime<Utc>) -> Config {
        let mut checkout = Object::new("serviceaccounts", "checkout", tokens::CHECKOUT_UID);
        checkout.namespace = "shop".to_owned();
        let mut config = Config::new(base);
        config.objects.push(checkout);
        config
    }

    /// An operator with a static admin token (system:masters).
    pub fn admin(mut self, token: &str) -> Self {
        self.static_tokens.push((
            token.to_owned(),
            "kubernetes-admin".to_owned(),
            vec!["system:masters".to_owned()],
        ));
        self
    }

    /// A user with a static token and no group beyond system:authenticated.
    pub fn user_token(mut self, token: &str, username: &str) -> Self {
        self.static_tokens
            .push((token.to_owned(), username.to_owned(), Vec::new()));
        self
    }

    /// Adds a grant in an API group, cluster-wide (a ClusterRoleBinding).
    pub fn allow_cluster(
        mut self,
        subject: &str,
        verbs: &[&str],
        group: &str,
        resources: &[&str],
    ) -> Self {
        self.rbac.push(Rule {
            subject: subject.to_owned(),
            verbs: verbs.iter().map(|s| (*s).to_owned()).collect(),
            group: group.to_owned(),
            resources: resources.iter().map(|s| (*s).to_owned()).collect(),
            namespace: None,
        });
        self
    }

    /// Adds a grant.
    pub fn allow(
        mut self,
        subject: &str,
        verbs: &[&str],
        resources: &[&str],
        namespace: Option<&str>,
    ) -> Self {
        self.rbac.push(Rule {
            subject: subject.to_owned(),
            verbs: verbs.iter().map(|s| (*s).to_owned()).collect(),
            group: String::new(),
            resources: resources.iter().map(|s| (*s).to_owned()).collect(),
            namespace: namespace.map(str::to_owned),
        });
        self
    }
}

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub path: String,
    /// Lowercase names, values as sent.
    pub headers: Vec<(String, String)>,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

struct State {
    config: Config,
    started: Instant,
    port: u16,
    seen: Mutex<Vec<Seen>>,
    /// The reason each 401 had, as kube-apiserver logs it.
    rejections: Mutex<Vec<String>>,
    handshake_failures: AtomicUsize,
    keys: HashMap<String, (jsonwebtoken::DecodingKey, jsonwebtoken::Algorithm)>,
    audit: AtomicUsize,
    /// Ports of the replicas the EndpointSlices name (all on 127.0.0.1).
    endpoints: Mutex<Vec<u16>>,
    /// [`Mode::DripBody`] bodies dropped before their last byte.
    cut_off: AtomicUsize,
}

impl State {
    fn now(&self) -> DateTime<Utc> {
        self.config.base + self.config.offset + TimeDelta::from_std(self.started.elapsed()).unwrap()
    }
}

/// A running test API server.
pub struct ApiServer {
    state: Arc<State>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    addr: SocketAddr,
}

impl ApiServer {
    /// Starts a server presenting `pki`'s leaf.
    pub fn start(config: Config, pki: &Pki) -> ApiServer {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        listener.set_nonblocking(true).expect("nonblocking");
        let addr = listener.local_addr().expect("local addr");
        let state = Arc::new(State {
            started: Instant::now(),
            port: addr.port(),
            seen: Mutex::default(),
            rejections: Mutex::default(),
            handshake_failures: AtomicUsize::new(0),
            keys: load_keys()
                .into_iter()
                .filter(|(kid, _)| config.kids.as_ref().is_none_or(|k| k.contains(kid)))
                .collect(),
            audit: AtomicUsize::new(0),
            endpoints: Mutex::default(),
            cut_off: AtomicUsize::new(0),
            config,
        });
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(pki.server_config()));
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let thread_state = state.clone();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
                let serve = accept_loop(listener, acceptor, thread_state);
                tokio::select! {
                    _ = serve => {}
                    _ = rx => {}
                    _ = tokio::time::sleep(LIFETIME) => {}
                }
            });
        });
        ApiServer {
            state,
            shutdown: Some(tx),
            thread: Some(thread),
            addr,
        }
    }

    /// `https://127.0.0.1:PORT` (`http://` when plain).
    pub fn url(&self) -> String {
        let scheme = if self.state.config.plain_http {
            "http"
        } else {
            "https"
        };
        format!("{scheme}://{}", self.addr)
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Every request seen so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.state.seen.lock().unwrap().clone()
    }

    /// Whether any request carried an `Authorization` header.
    pub fn saw_authorization(&self) -> bool {
        self.seen()
            .iter()
            .any(|s| s.header("authorization").is_some())
    }

    /// The 401 reasons, as the API server log would show them.
    pub fn rejections(&self) -> Vec<String> {
        self.state.rejections.lock().unwrap().clone()
    }

    /// Names these replicas (127.0.0.1:PORT) in the kubernetes Service's
    /// EndpointSlices (one slice per replica: ports are per slice) and Endpoints.
    pub fn set_endpoints(&self, ports: &[u16]) {
        *self.state.endpoints.lock().unwrap() = ports.to_vec();
    }

    /// TLS handshakes that failed (e.g. the client did not trust our CA).
    pub fn handshake_failures(&self) -> usize {
        self.state.handshake_failures.load(Ordering::SeqCst)
    }

    /// [`Mode::DripBody`] answers whose client hung up before the last byte.
    pub fn cut_off(&self) -> usize {
        self.state.cut_off.load(Ordering::SeqCst)
    }
}

impl Drop for ApiServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn accept_loop(
    listener: tokio::net::TcpListener,
    acceptor: tokio_rustls::TlsAcceptor,
    state: Arc<State>,
) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let acceptor = acceptor.clone();
        let state = state.clone();
        tokio::spawn(async move {
            if state.config.plain_http {
                let service =
                    hyper::service::service_fn(move |req| handle(state.clone(), req, None));
                let builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
                let _ = builder
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
                return;
            }
            let tls = match acceptor.accept(stream).await {
                Ok(tls) => tls,
                Err(_) => {
                    state.handshake_failures.fetch_add(1, Ordering::SeqCst);
                    return;
                }
            };
            let peer = tls
                .get_ref()
                .1
                .peer_certificates()
                .and_then(|c| c.first())
                .map(|c| c.to_vec());
            let service =
                hyper::service::service_fn(move |req| handle(state.clone(), req, peer.clone()));
            let mut builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
            builder.http1().title_case_headers(true);
            let _ = builder.serve_connection(TokioIo::new(tls), service).await;
        });
    }
}

/// The authenticated user.
#[derive(Debug, Clone)]
struct User {
    name: String,
    uid: String,
    groups: Vec<String>,
    extra: Value,
}

fn anonymous() -> User {
    User {
        name: "system:anonymous".to_owned(),
        uid: String::new(),
        groups: vec!["system:unauthenticated".to_owned()],
        extra: json!({}),
    }
}

/// A response body: whole, or dripped ([`Mode::DripBody`]).
type Body = http_body_util::Either<Full<Bytes>, Drip>;

async fn handle(
    state: Arc<State>,
    req: Request<Incoming>,
    peer: Option<Vec<u8>>,
) -> Result<Response<Body>, Infallible> {
    let echo = req
        .headers()
        .iter()
        .map(|(n, v)| format!("{}: {}", n, v.to_str().unwrap_or("")))
        .collect::<Vec<_>>()
        .join("; ");
    let response = answer(state.clone(), req, peer).await?;
    let response = match &state.config.mode {
        Mode::Echo => echo_into(response, &echo).await,
        Mode::DateHeader(date) => {
            let mut response = response;
            response
                .headers_mut()
                .insert("Date", date.parse().expect("a header value"));
            response
        }
        Mode::DripBody(interval) => {
            let (parts, body) = response.into_parts();
            let bytes = body.collect().await.expect("infallible").to_bytes();
            let drip = Drip {
                body: bytes,
                sent: 0,
                interval: *interval,
                sleep: None,
                state: state.clone(),
            };
            return Ok(Response::from_parts(parts, Body::Right(drip)));
        }
        _ => response,
    };
    Ok(response.map(Body::Left))
}

/// [`Mode::Echo`]: `echo` into every text field and three headers.
async fn echo_into(response: Response<Full<Bytes>>, echo: &str) -> Response<Full<Bytes>> {
    fn walk(value: &mut Value, echo: &str) {
        match value {
            Value::Object(map) => {
                for (key, v) in map.iter_mut() {
                    match (key.as_str(), v) {
                        (
                            "message" | "reason" | "username" | "error" | "name",
                            Value::String(t),
                        ) => {
                            *t = format!("{t} {echo}");
                        }
                        ("groups", Value::Array(items)) => items.push(json!(echo)),
                        (_, v) => walk(v, echo),
                    }
                }
                if map.get("kind").and_then(Value::as_str) == Some("Status") {
                    map.insert(
                        "details".into(),
                        json!({"name": echo, "causes": [{"reason": echo, "message": echo, "field": echo}]}),
                    );
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| walk(v, echo)),
            _ => {}
        }
    }
    let (mut parts, body) = response.into_parts();
    let bytes = body.collect().await.expect("infallible").to_bytes();
    let body = match serde_json::from_slice::<Value>(&bytes) {
        Ok(mut value) => {
            walk(&mut value, echo);
            Bytes::from(format!("{value}\n"))
        }
        Err(_) => bytes,
    };
    let header = |text: String| {
        text.parse::<hyper::header::HeaderValue>()
            .expect("visible ASCII")
    };
    parts.headers.insert(
        "Location",
        header(format!(
            "https://127.0.0.1:1/login?{}",
            echo.replace(' ', "%20")
        )),
    );
    parts.headers.insert(
        "WWW-Authenticate",
        header(format!("Bearer realm=\"{echo}\"")),
    );
    parts
        .headers
        .insert("Warning", header(format!("299 - \"{echo}\"")));
    Response::from_parts(parts, Full::new(body))
}

/// A body written one byte per `interval` ([`Mode::DripBody`]).
pub struct Drip {
    body: Bytes,
    sent: usize,
    interval: Duration,
    sleep: Option<std::pin::Pin<Box<tokio::time::Sleep>>>,
    state: Arc<State>,
}

impl hyper::body::Body for Drip {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, Infallible>>> {
        use std::future::Future as _;
        let this = &mut *self;
        if this.sent >= this.body.len() {
            return std::task::Poll::Ready(None);
        }
        let interval = this.interval;
        let sleep = this
            .sleep
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(interval)));
        std::task::ready!(sleep.as_mut().poll(cx));
        this.sleep = None;
        let byte = this.body.slice(this.sent..this.sent + 1);
        this.sent += 1;
        std::task::Poll::Ready(Some(Ok(hyper::body::Frame::data(byte))))
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        hyper::body::SizeHint::with_exact((self.body.len() - self.sent) as u64)
    }
}

impl Drop for Drip {
    fn drop(&mut self) {
        if self.sent < self.body.len() {
            self.state.cut_off.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// The HTML page of [`Mode::NginxWelcome`], [`Mode::AuthProxy`] or [`Mode::WafBlock`].
fn html(state: &State, status: StatusCode, title: &str, text: &str) -> Response<Full<Bytes>> {
    let body = format!(
        "<!DOCTYPE html>\n<html>\n<head><title>{title}</title></head>\n<body>\n<center><h1>{title}</h1></center>\n<p>{text}</p>\n<hr><center>nginx/1.27.3</center>\n</body>\n</html>\n"
    );
    let mut response = respond(state, status, body, false);
    let headers = response.headers_mut();
    headers.insert("Content-Type", "text/html".parse().unwrap());
    headers.insert("Server", "nginx/1.27.3".parse().unwrap());
    headers.remove("Audit-Id");
    headers.remove("Cache-Control");
    response
}

/// The normal answer (and the modes that replace it wholesale).
async fn answer(
    state: Arc<State>,
    req: Request<Incoming>,
    peer: Option<Vec<u8>>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let method = req.method().as_str().to_owned();
    let path = req.uri().path().to_owned();
    let headers: Vec<(String, String)> = req
        .headers()
        .iter()
        .map(|(n, v)| (n.as_str().to_owned(), v.to_str().unwrap_or("").to_owned()))
        .collect();
    state.seen.lock().unwrap().push(Seen {
        method: method.clone(),
        path: path.clone(),
        headers: headers.clone(),
    });
    let body = req
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    match &state.config.mode {
        Mode::Normal => {}
        Mode::Sts(trust) => {
            let n = state.audit.fetch_add(1, Ordering::SeqCst);
            return Ok(super::sts::answer(trust, state.now(), &body, n));
        }
        Mode::Redirect(location) => {
            let mut response = respond(&state, StatusCode::FOUND, String::new(), false);
            response
                .headers_mut()
                .insert("Location", location.parse().unwrap());
            return Ok(response);
        }
        Mode::LoginLocation(location) => {
            let mut response = unauthorized(&state);
            response
                .headers_mut()
                .insert("Location", location.parse().unwrap());
            return Ok(response);
        }
        Mode::Slow(delay) => tokio::time::sleep(*delay).await,
        Mode::NginxWelcome => {
            return Ok(html(
                &state,
                StatusCode::OK,
                "Welcome to nginx!",
                "If you see this page, the nginx web server is successfully installed and working.",
            ));
        }
        Mode::AuthProxy => {
            let mut response = html(
                &state,
                StatusCode::UNAUTHORIZED,
                "401 Authorization Required",
                "This server could not verify that you are authorized.",
            );
            response.headers_mut().insert(
                "WWW-Authenticate",
                "Basic realm=\"Restricted\"".parse().unwrap(),
            );
            return Ok(response);
        }
        Mode::WafBlock => {
            return Ok(html(
                &state,
                StatusCode::FORBIDDEN,
                "403 Forbidden",
                "Request blocked by the web application firewall. Incident ID: 7f3a9c2e.",
            ));
        }
        Mode::HugeReason(size) if path != "/version" => {
            let word = "x".repeat(*size);
            let body = format!(
                "{{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{{}},\"status\":\"Failure\",\"message\":\"{word}\",\"reason\":\"{word}\",\"code\":401}}\n"
            );
            return Ok(respond(&state, StatusCode::UNAUTHORIZED, body, false));
        }
        Mode::ForeignVersion if path == "/version" => {
            return Ok(respond(
                &state,
                StatusCode::OK,
                "{\"version\":\"2.4.1\",\"name\":\"edge-gateway\"}\n".to_owned(),
                false,
            ));
        }
        _ => {}
    }
    let authorization = if state.config.strip_authorization {
        None
    } else {
        headers
            .iter()
            .find(|(n, _)| n == "authorization")
            .map(|(_, v)| v.clone())
    };
    // Authentication (k8s.io/apiserver filters/authentication.go): x509 before
    // bearer tokens.
    let by_cert = peer.as_ref().and_then(|der| {
        state
            .config
            .client_certs
            .iter()
            .find(|(d, _)| d == der)
            .map(|(_, name)| User {
                name: name.clone(),
                uid: String::new(),
                groups: vec![
                    "system:masters".to_owned(),
                    "system:authenticated".to_owned(),
                ],
                extra: json!({}),
            })
    });
    let user = match by_cert
        .map(|u| Ok(Some(u)))
        .unwrap_or_else(|| authenticate(&state, authorization.as_deref()))
    {
        Ok(Some(user)) => user,
        Ok(None) if state.config.anonymous => anonymous(),
        Ok(None) => return Ok(unauthorized(&state)),
        Err(reason) => {
            state
                .rejections
                .lock()
                .unwrap()
                .push(format!("[invalid bearer token, {reason}]"));
            return Ok(unauthorized(&state));
        }
    };
    // Authorization runs before routing (filters/authorization.go).
    let attrs = attributes(&method, &path);
    if !authorize(&state.config, &user, &attrs) {
        return Ok(forbidden(&state, &user, &attrs));
    }
    Ok(route(&state, &user, &attrs, &path, &body))
}

/// Bearer token validation as pkg/serviceaccount/{jwt,claims}.go does it.
/// `Ok(None)`: no credentials; `Err(reason)`: the log line's reason.
fn authenticate(state: &State, header: Option<&str>) -> Result<Option<User>, String> {
    // bearertoken.go: trimmed, split on single spaces, scheme case-insensitive;
    // an empty token is "no credentials".
    let Some(header) = header else {
        return Ok(None);
    };
    let parts: Vec<&str> = header.trim().split(' ').collect();
    if parts.len() != 2 || !parts[0].eq_ignore_ascii_case("bearer") || parts[1].is_empty() {
        return Ok(None);
    }
    let token = parts[1];
    if let Some((_, name, groups)) = state
        .config
        .static_tokens
        .iter()
        .find(|(t, _, _)| t == token)
    {
        let mut groups = groups.clone();
        groups.push("system:authenticated".to_owned());
        return Ok(Some(User {
            name: name.clone(),
            uid: String::new(),
            groups,
            extra: json!({}),
        }));
    }
    validate(state, token, &state.config.audiences)
        .map(Some)
        .map_err(|reason| reword(state.config.wording, &reason))
}

/// The current (1.31+) wording rewritten as 1.22 printed it (pkg/serviceaccount
/// before PR #105917; go-jose under its square/ import path; no kid lookup).
fn reword(wording: Wording, reason: &str) -> String {
    if wording == Wording::Current {
        return reason.to_owned();
    }
    let fixed = [
        ("service account token has expired", "Token has expired."),
        (
            "service account token is not valid yet",
            "Token could not be validated.",
        ),
        (
            "service account token is issued in the future",
            "Token could not be validated.",
        ),
        (
            "invalid signature, no keys found",
            "square/go-jose: error in cryptographic primitive",
        ),
        (
            "go-jose/go-jose: error in cryptographic primitive",
            "square/go-jose: error in cryptographic primitive",
        ),
        (
            "service account token has been invalidated",
            "Token has been invalidated",
        ),
    ];
    if let Some((_, old)) = fixed.iter().find(|(new, _)| *new == reason) {
        return (*old).to_owned();
    }
    for (new, old) in [
        ("service account UID (", "ServiceAccount UID ("),
        ("pod UID (", "Pod UID ("),
        ("secret UID (", "Secret UID ("),
    ] {
        if let Some(rest) = reason.strip_prefix(new) {
            return format!(
                "{old}{}",
                rest.replace(" service account pod ref claim", " claim")
                    .replace(" service account secret ref claim", " claim")
            );
        }
    }
    reason.to_owned()
}

/// Validates a service account token as pkg/serviceaccount does, against
/// `audiences` (the API audiences, or a TokenReview's `spec.audiences`).
fn validate(state: &State, token: &str, audiences: &[String]) -> Result<User, String> {
    let invalid = || "invalid bearer token".to_owned();
    let header = jsonwebtoken::decode_header(token).map_err(|_| invalid())?;
    let payload = token.split('.').nth(1).ok_or_else(invalid)?;
    use base64::Engine as _;
    let unverified: Value = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or_else(invalid)?;
    let iss = unverified.get("iss").and_then(Value::as_str).unwrap_or("");
    if !state.config.issuers.iter().any(|i| i == iss) {
        return Err(invalid());
    }
    let kid = header.kid.clone().unwrap_or_default();
    let (key, alg) = state
        .keys
        .get(&kid)
        .ok_or_else(|| "invalid signature, no keys found".to_owned())?;
    let mut validation = jsonwebtoken::Validation::new(*alg);
    validation.validate_exp = false;
    validation.validate_nbf = false;
    validation.validate_aud = false;
    validation.required_spec_claims.clear();
    let claims = jsonwebtoken::decode::<Value>(token, key, &validation)
        .map_err(|_| "go-jose/go-jose: error in cryptographic primitive".to_owned())?
        .claims;
    let auds: Vec<String> = match claims.get("aud") {
        Some(Value::String(a)) => vec![a.clone()],
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    if !auds.is_empty() && !auds.iter().any(|a| audiences.contains(a)) {
        return Err(format!(
            "token audiences {auds:?} is invalid for the target audiences {audiences:?}"
        ));
    }
    if let Some(ns) = claims
        .get("kubernetes.io/serviceaccount/namespace")
        .and_then(Value::as_str)
    {
        return validate_legacy(state, &claims, ns);
    }
    // go-jose ValidateWithLeeway, 60 s, on this server's clock.
    let now = state.now();
    let leeway = TimeDelta::seconds(60);
    let at = |key: &str| {
        claims
            .get(key)
            .and_then(Value::as_i64)
            .and_then(|s| DateTime::from_timestamp(s, 0))
    };
    if at("nbf").is_some_and(|nbf| now + leeway < nbf) {
        return Err("service account token is not valid yet".to_owned());
    }
    if at("exp").is_some_and(|exp| now - leeway > exp) {
        return Err("service account token has expired".to_owned());
    }
    if at("iat").is_some_and(|iat| now + leeway < iat) {
        return Err("service account token is issued in the future".to_owned());
    }
    let k8s = claims.get("kubernetes.io").cloned().unwrap_or(Value::Null);
    let ns = k8s["namespace"].as_str().unwrap_or("").to_owned();
    let sa_name = k8s["serviceaccount"]["name"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    let sa_uid = k8s["serviceaccount"]["uid"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    let lookup = |resource: &str, name: &str| {
        state
            .config
            .objects
            .iter()
            .find(|o| o.resource == resource && o.namespace == ns && o.name == name)
    };
    let live = lookup("serviceaccounts", &sa_name)
        .ok_or_else(|| format!("serviceaccounts \"{sa_name}\" not found"))?;
    if live.uid != sa_uid {
        return Err(format!(
            "service account UID ({}) does not match claim ({sa_uid})",
            live.uid
        ));
    }
    if live.deletion_timestamp.is_some() {
        return Err(format!("service account {ns}/{sa_name} has been deleted"));
    }
    // A node beside a pod is informational; a node alone is the binding,
    // checked cluster-wide (ServiceAccountTokenNodeBindingValidation, 1.32+).
    if k8s["pod"].is_null()
        && let Some(node) = k8s["node"]["name"].as_str()
    {
        let uid = k8s["node"]["uid"].as_str().unwrap_or("");
        let live = state
            .config
            .objects
            .iter()
            .find(|o| o.resource == "nodes" && o.namespace.is_empty() && o.name == node)
            .ok_or_else(|| "service account token has been invalidated".to_owned())?;
        if live.uid != uid {
            return Err(format!(
                "node UID ({}) does not match service account node ref claim ({uid})",
                live.uid
            ));
        }
    }
    for (resource, claim, what) in [("secrets", "secret", "secret"), ("pods", "pod", "pod")] {
        if let Some(name) = k8s[claim]["name"].as_str() {
            let uid = k8s[claim]["uid"].as_str().unwrap_or("");
            let live = lookup(resource, name)
                .ok_or_else(|| "service account token has been invalidated".to_owned())?;
            if live.uid != uid {
                return Err(format!(
                    "{what} UID ({}) does not match service account {what} ref claim ({uid})",
                    live.uid
                ));
            }
        }
    }
    let mut extra = serde_json::Map::new();
    if let Some(pod) = k8s["pod"]["name"].as_str() {
        extra.insert("authentication.kubernetes.io/pod-name".into(), json!([pod]));
        extra.insert(
            "authentication.kubernetes.io/pod-uid".into(),
            json!([k8s["pod"]["uid"].as_str().unwrap_or("")]),
        );
    }
    if let Some(jti) = claims.get("jti").and_then(Value::as_str) {
        extra.insert(
            "authentication.kubernetes.io/credential-id".into(),
            json!([format!("JTI={jti}")]),
        );
    }
    Ok(User {
        name: claims
            .get("sub")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        uid: sa_uid,
        groups: vec![
            "system:serviceaccounts".to_owned(),
            format!("system:serviceaccounts:{ns}"),
            "system:authenticated".to_owned(),
        ],
        extra: Value::Object(extra),
    })
}

/// pkg/serviceaccount/legacy.go (time is never checked).
fn validate_legacy(state: &State, claims: &Value, ns: &str) -> Result<User, String> {
    let text = |k: &str| {
        claims
            .get(format!("kubernetes.io/serviceaccount/{k}"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let (secret, sa, sa_uid) = (
        text("secret.name"),
        text("service-account.name"),
        text("service-account.uid"),
    );
    let lookup = |resource: &str, name: &str| {
        state
            .config
            .objects
            .iter()
            .find(|o| o.resource == resource && o.namespace == ns && o.name == name)
    };
    let live_secret = lookup("secrets", &secret)
        .filter(|s| s.deletion_timestamp.is_none())
        .ok_or_else(|| "Token has been invalidated".to_owned())?;
    let live_sa = lookup("serviceaccounts", &sa)
        .ok_or_else(|| format!("serviceaccounts \"{sa}\" not found"))?;
    if live_sa.uid != sa_uid {
        return Err(format!(
            "ServiceAccount UID ({}) does not match claim ({sa_uid})",
            live_sa.uid
        ));
    }
    if live_secret
        .labels
        .iter()
        .any(|(k, _)| k == "kubernetes.io/legacy-token-invalid-since")
    {
        return Err(format!(
            "the token in secret {ns}/{secret} for service account {ns}/{sa} has been marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the 'kubernetes.io/legacy-token-invalid-since' label from the secret to temporarily allow use of this token"
        ));
    }
    Ok(User {
        name: format!("system:serviceaccount:{ns}:{sa}"),
        uid: sa_uid,
        groups: vec![
            "system:serviceaccounts".to_owned(),
            format!("system:serviceaccounts:{ns}"),
            "system:authenticated".to_owned(),
        ],
        extra: json!({}),
    })
}

fn load_keys() -> HashMap<String, (jsonwebtoken::DecodingKey, jsonwebtoken::Algorithm)> {
    let text = std::fs::read_to_string(tokens::testdata("jwks.json")).expect("jwks.json");
    let set: jsonwebtoken::jwk::JwkSet = serde_json::from_str(&text).expect("jwks");
    set.keys
        .iter()
        .filter_map(|jwk| {
            let kid = jwk.common.key_id.clone()?;
            let alg = match jwk.common.key_algorithm? {
                jsonwebtoken::jwk::KeyAlgorithm::RS256 => jsonwebtoken::Algorithm::RS256,
                jsonwebtoken::jwk::KeyAlgorithm::ES256 => jsonwebtoken::Algorithm::ES256,
                jsonwebtoken::jwk::KeyAlgorithm::ES384 => jsonwebtoken::Algorithm::ES384,
                _ => return None,
            };
            Some((kid, (jsonwebtoken::DecodingKey::from_jwk(jwk).ok()?, alg)))
        })
        .collect()
}

/// Request attributes (k8s.io/apiserver request/requestinfo.go, simplified).
#[derive(Debug, Clone, Default)]
struct Attrs {
    verb: String,
    resource: Option<String>,
    subresource: Option<String>,
    group: String,
    namespace: Option<String>,
    name: Option<String>,
    path: String,
}

fn attributes(method: &str, path: &str) -> Attrs {
    let parts: Vec<&str> = path
        .trim_matches('/')
        .split('/')
        .filter(|p| !p.is_empty())
        .collect();
    let (group, rest): (String, &[&str]) = match parts.as_slice() {
        ["api", "v1", rest @ ..] if !rest.is_empty() => (String::new(), rest),
        ["apis", group, _version, rest @ ..] if !rest.is_empty() => ((*group).to_owned(), rest),
        _ => (String::new(), &[]),
    };
    let mut attrs = Attrs {
        path: path.to_owned(),
        group,
        ..Attrs::default()
    };
    let named = |rest: &[&str], attrs: &mut Attrs| {
        attrs.resource = rest.first().map(|s| (*s).to_owned());
        attrs.name = rest.get(1).map(|s| (*s).to_owned());
        attrs.subresource = rest.get(2).map(|s| (*s).to_owned());
    };
    match rest {
        [] => {}
        ["namespaces", ns, rest @ ..] if !rest.is_empty() => {
            attrs.namespace = Some((*ns).to_owned());
            named(rest, &mut attrs);
        }
        rest => named(rest, &mut attrs),
    }
    attrs.verb = match (method, attrs.resource.is_some(), attrs.name.is_some()) {
        ("GET", true, false) => "list",
        ("GET", _, _) => "get",
        ("POST", _, _) => "create",
        ("PUT", _, _) => "update",
        ("DELETE", _, _) => "delete",
        _ => "patch",
    }
    .to_owned();
    if attrs.resource.is_none() && method == "GET" {
        attrs.verb = "get".to_owned();
    }
    attrs
}

/// The issuer discovery documents (pkg/routes/openidmetadata.go).
const DISCOVERY_PATHS: [&str; 2] = ["/.well-known/openid-configuration", "/openid/v1/jwks"];

/// The default ClusterRoles (system:public-info-viewer, system:discovery,
/// system:basic-user) plus the configured rules.
fn authorize(config: &Config, user: &User, attrs: &Attrs) -> bool {
    let authenticated = user.groups.iter().any(|g| g == "system:authenticated");
    if user.groups.iter().any(|g| g == "system:masters") {
        return true;
    }
    let Some(resource) = &attrs.resource else {
        // system:service-account-issuer-discovery, bound by default to
        // system:serviceaccounts (plugin/pkg/auth/authorizer/rbac/bootstrappolicy).
        if DISCOVERY_PATHS.contains(&attrs.path.as_str()) && attrs.verb == "get" {
            let group = |g: &str| user.groups.iter().any(|have| have == g);
            return group("system:serviceaccounts")
                || (config.anonymous_discovery && group("system:unauthenticated"));
        }
        let public = ["/version", "/healthz", "/livez", "/readyz"].contains(&attrs.path.as_str());
        let discovery = attrs.path == "/api"
            || attrs.path.starts_with("/api/")
            || attrs.path == "/apis"
            || attrs.path.starts_with("/apis/");
        return public || (authenticated && discovery && attrs.verb == "get");
    };
    let self_review = matches!(
        (attrs.group.as_str(), resource.as_str()),
        ("authentication.k8s.io", "selfsubjectreviews")
            | (
                "authorization.k8s.io",
                "selfsubjectaccessreviews" | "selfsubjectrulesreviews"
            )
    );
    let denied_review =
        config.mode == Mode::DenySelfSubjectReview && resource == "selfsubjectreviews";
    if self_review && authenticated && attrs.verb == "create" && !denied_review {
        return true;
    }
    rbac_allows(
        config,
        user,
        &attrs.verb,
        &attrs.group,
        resource,
        attrs.namespace.as_deref(),
    )
}

fn rbac_allows(
    config: &Config,
    user: &User,
    verb: &str,
    group: &str,
    resource: &str,
    namespace: Option<&str>,
) -> bool {
    config.rbac.iter().any(|rule| {
        (rule.subject == user.name || user.groups.contains(&rule.subject))
            && rule.verbs.iter().any(|v| v == verb || v == "*")
            && rule.group == group
            && rule.resources.iter().any(|r| r == resource || r == "*")
            && (rule.namespace.is_none() || rule.namespace.as_deref() == namespace)
    })
}

#[expect(
    clippy::too_many_lines,
    reason = "one arm per API path the test server answers: a table, not logic"
)]
fn route(
    state: &State,
    user: &User,
    attrs: &Attrs,
    path: &str,
    body: &[u8],
) -> Response<Full<Bytes>> {
    let ok = |status, value: Value| respond(state, status, format!("{value}\n"), true);
    match path {
        "/version" => {
            let (minor, git) = match state.config.wording {
                Wording::Current => ("34", "v1.34.1"),
                Wording::V1_22 => ("22", "v1.22.17"),
            };
            return ok(
                StatusCode::OK,
                json!({"major": "1", "minor": minor, "gitVersion": git, "platform": "linux/amd64"}),
            );
        }
        "/api" => {
            return ok(
                StatusCode::OK,
                json!({"kind": "APIVersions", "versions": ["v1"],
                "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": format!("127.0.0.1:{}", state.port)}]}),
            );
        }
        "/apis" => {
            let group = |name: &str| {
                json!({"name": name, "versions": [{"groupVersion": format!("{name}/v1"), "version": "v1"}],
                "preferredVersion": {"groupVersion": format!("{name}/v1"), "version": "v1"}})
            };
            return ok(
                StatusCode::OK,
                json!({"kind": "APIGroupList", "apiVersion": "v1",
                "groups": [group("authentication.k8s.io"), group("authorization.k8s.io")]}),
            );
        }
        "/api/v1" => {
            let resource = |name: &str, kind: &str, short: &str| {
                json!({"name": name, "singularName": "",
                "namespaced": true, "kind": kind, "verbs": ["get", "list"], "shortNames": [short]})
            };
            return ok(
                StatusCode::OK,
                json!({"kind": "APIResourceList", "groupVersion": "v1", "resources": [
                resource("pods", "Pod", "po"), resource("serviceaccounts", "ServiceAccount", "sa"),
                resource("secrets", "Secret", "secret"), resource("configmaps", "ConfigMap", "cm")]}),
            );
        }
        _ => {}
    }
    match path {
        "/.well-known/openid-configuration" => {
            let issuer = &state.config.issuers[0];
            let mut response = ok(
                StatusCode::OK,
                json!({"issuer": issuer, "jwks_uri": state.config.jwks_uri.clone().unwrap_or_else(|| format!("https://127.0.0.1:{}/openid/v1/jwks", state.port)),
                "response_types_supported": ["id_token"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["ES256", "ES384", "RS256"]}),
            );
            response
                .headers_mut()
                .insert("Cache-Control", "public, max-age=3600".parse().unwrap());
            return response;
        }
        "/openid/v1/jwks" => {
            let text = std::fs::read_to_string(tokens::testdata("jwks.json")).expect("jwks.json");
            let mut set: Value = serde_json::from_str(&text).unwrap();
            if let Some(kids) = &state.config.kids {
                set["keys"].as_array_mut().unwrap().retain(|k| {
                    kids.iter()
                        .any(|kid| Some(kid.as_str()) == k["kid"].as_str())
                });
            }
            let mut response = ok(StatusCode::OK, set);
            response
                .headers_mut()
                .insert("Content-Type", "application/jwk-set+json".parse().unwrap());
            return response;
        }
        "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices"
            if state.config.endpoint_slices =>
        {
            let ports = state.endpoints.lock().unwrap().clone();
            let items: Vec<Value> = ports
                .iter()
                .enumerate()
                .map(|(i, port)| {
                    json!({
                        "metadata": {"name": format!("kubernetes-{i}"), "namespace": "default",
                            "labels": {"kubernetes.io/service-name": "kubernetes"}},
                        "addressType": "IPv4",
                        "endpoints": [{"addresses": ["127.0.0.1"], "conditions": {"ready": true}}],
                        "ports": [{"name": "https", "port": port, "protocol": "TCP"}]
                    })
                })
                .collect();
            return ok(
                StatusCode::OK,
                json!({"kind": "EndpointSliceList", "apiVersion": "discovery.k8s.io/v1", "metadata": {}, "items": items}),
            );
        }
        "/api/v1/namespaces/default/endpoints/kubernetes" => {
            let ports = state.endpoints.lock().unwrap().clone();
            let subsets: Vec<Value> = ports.iter().map(|port| json!({
                "addresses": [{"ip": "127.0.0.1"}], "ports": [{"name": "https", "port": port, "protocol": "TCP"}]
            })).collect();
            return ok(
                StatusCode::OK,
                json!({"kind": "Endpoints", "apiVersion": "v1", "metadata": {"name": "kubernetes", "namespace": "default"}, "subsets": subsets}),
            );
        }
        "/apis/authentication.k8s.io/v1/tokenreviews" if attrs.verb == "create" => {
            // pkg/registry/authentication/tokenreview: the request authenticator chain.
            let review: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
            let token = review["spec"]["token"].as_str().unwrap_or("");
            let audiences: Vec<String> = review["spec"]["audiences"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .filter(|a: &Vec<String>| !a.is_empty())
                .unwrap_or_else(|| state.config.audiences.clone());
            let status = match validate(state, token, &audiences) {
                Ok(u) => {
                    json!({"authenticated": true, "user": {"username": u.name, "uid": u.uid, "groups": u.groups}, "audiences": audiences})
                }
                Err(reason) => {
                    json!({"user": {}, "error": format!("[invalid bearer token, {}]", reword(state.config.wording, &reason))})
                }
            };
            return ok(
                StatusCode::CREATED,
                json!({"kind": "TokenReview", "apiVersion": "authentication.k8s.io/v1",
                "metadata": {"creationTimestamp": null}, "spec": review["spec"], "status": status}),
            );
        }
        _ => {}
    }
    let resource = attrs.resource.clone().unwrap_or_default();
    let version = path.split('/').nth(3).unwrap_or("");
    if attrs.group == "authentication.k8s.io"
        && resource == "selfsubjectreviews"
        && attrs.verb == "create"
    {
        match state.config.mode {
            Mode::NoSelfSubjectReview => return not_found(state, None, attrs),
            Mode::GarbageReview => {
                return respond(
                    state,
                    StatusCode::CREATED,
                    "<<<\u{0}garbage, not a review>>>".to_owned(),
                    true,
                );
            }
            Mode::StatusIn201 => {
                return respond(
                    state,
                    StatusCode::CREATED,
                    UNAUTHORIZED_BODY.to_owned(),
                    true,
                );
            }
            _ => {}
        }
        if version == "v1" && !state.config.review_v1 {
            return not_found(state, None, attrs);
        }
        return ok(
            StatusCode::CREATED,
            json!({
                "kind": "SelfSubjectReview", "apiVersion": format!("authentication.k8s.io/{version}"),
                "metadata": {"creationTimestamp": null},
                "status": {"userInfo": {"username": user.name, "uid": user.uid, "groups": user.groups, "extra": user.extra}}
            }),
        );
    }
    if attrs.group == "authorization.k8s.io"
        && resource == "selfsubjectaccessreviews"
        && attrs.verb == "create"
    {
        let review: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        let ra = &review["spec"]["resourceAttributes"];
        let text = |key: &str| ra[key].as_str().unwrap_or("").to_owned();
        let ns = text("namespace");
        let allowed = rbac_allows(
            &state.config,
            user,
            &text("verb"),
            &text("group"),
            &text("resource"),
            (!ns.is_empty()).then_some(ns.as_str()),
        );
        let mut status = json!({"allowed": allowed});
        if allowed {
            status["reason"] = json!("RBAC: allowed by a test rule");
        }
        return ok(
            StatusCode::CREATED,
            json!({"kind": "SelfSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1",
            "metadata": {"creationTimestamp": null}, "spec": review["spec"], "status": status}),
        );
    }
    if attrs.verb == "get" && attrs.resource.is_some() {
        let name = attrs.name.clone().unwrap_or_default();
        let found = state.config.objects.iter().find(|o| {
            o.resource == resource
                && o.group == attrs.group
                && (Some(&o.namespace) == attrs.namespace.as_ref()
                    || (o.namespace.is_empty() && attrs.namespace.is_none()))
                && o.name == name
        });
        return match found {
            Some(o) => ok(StatusCode::OK, o.json()),
            None => not_found(state, Some(&name), attrs),
        };
    }
    if attrs.verb == "list" {
        let items: Vec<Value> = state
            .config
            .objects
            .iter()
            .filter(|o| {
                o.resource == resource
                    && o.group == attrs.group
                    && attrs.namespace.as_ref().is_none_or(|ns| *ns == o.namespace)
            })
            .map(|o| json!({"metadata": {"name": o.name, "namespace": o.namespace, "uid": o.uid}}))
            .collect();
        return ok(
            StatusCode::OK,
            json!({"kind": "List", "apiVersion": "v1", "metadata": {"resourceVersion": "1"}, "items": items}),
        );
    }
    not_found(state, None, attrs)
}

/// A JSON string literal (Go's encoder escapes the same characters, plus `<>&`).
fn q(text: &str) -> String {
    serde_json::to_string(text)
        .unwrap()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

fn respond(
    state: &State,
    status: StatusCode,
    body: String,
    authenticated: bool,
) -> Response<Full<Bytes>> {
    let audit = state.audit.fetch_add(1, Ordering::SeqCst);
    let date = state.now().format("%a, %d %b %Y %H:%M:%S GMT").to_string();
    let mut builder = Response::builder()
        .status(status)
        .header(
            "Audit-Id",
            format!("6f1e{audit:04x}-6a4a-4843-830a-073c7e3f5d7f"),
        )
        .header("Cache-Control", "no-cache, private")
        .header("Content-Type", "application/json")
        .header("Date", date);
    if status == StatusCode::FORBIDDEN {
        builder = builder.header("X-Content-Type-Options", "nosniff");
    }
    if authenticated {
        // API Priority and Fairness runs after authentication.
        builder = builder
            .header(
                "X-Kubernetes-Pf-Flowschema-Uid",
                "0a3b0c7e-1111-4d6e-8a5c-2b9d0e6f1a73",
            )
            .header(
                "X-Kubernetes-Pf-Prioritylevel-Uid",
                "5b2e9d14-2222-4e6f-8a1b-0d9c2f4e6a85",
            );
    }
    builder.body(Full::new(Bytes::from(body))).unwrap()
}

/// The 129-byte generic 401 (the reason is only logged).
pub const UNAUTHORIZED_BODY: &str = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}\n";

fn unauthorized(state: &State) -> Response<Full<Bytes>> {
    respond(
        state,
        StatusCode::UNAUTHORIZED,
        UNAUTHORIZED_BODY.to_owned(),
        false,
    )
}

/// kube-apiserver's 403 (responsewriters.Forbidden + apimachinery NewForbidden).
fn forbidden(state: &State, user: &User, attrs: &Attrs) -> Response<Full<Bytes>> {
    let (message, details) = match &attrs.resource {
        None => (
            format!(
                "forbidden: User \"{}\" cannot {} path \"{}\"",
                user.name, attrs.verb, attrs.path
            ),
            "{}".to_owned(),
        ),
        Some(resource) => {
            let qualified = if attrs.group.is_empty() {
                resource.clone()
            } else {
                format!("{resource}.{}", attrs.group)
            };
            let prefix = match &attrs.name {
                Some(name) => format!("{qualified} \"{name}\" is forbidden"),
                None => format!("{qualified} is forbidden"),
            };
            let full = match &attrs.subresource {
                Some(sub) => format!("{resource}/{sub}"),
                None => resource.clone(),
            };
            let scope = match &attrs.namespace {
                Some(ns) => format!("in the namespace \"{ns}\""),
                None => "at the cluster scope".to_owned(),
            };
            let mut details = Vec::new();
            if let Some(name) = &attrs.name {
                details.push(format!("\"name\":{}", q(name)));
            }
            if !attrs.group.is_empty() {
                details.push(format!("\"group\":{}", q(&attrs.group)));
            }
            details.push(format!("\"kind\":{}", q(resource)));
            (
                format!(
                    "{prefix}: User \"{}\" cannot {} resource \"{full}\" in API group \"{}\" {scope}",
                    user.name, attrs.verb, attrs.group
                ),
                format!("{{{}}}", details.join(",")),
            )
        }
    };
    let body = format!(
        "{{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{{}},\"status\":\"Failure\",\"message\":{},\"reason\":\"Forbidden\",\"details\":{details},\"code\":403}}\n",
        q(&message)
    );
    respond(state, StatusCode::FORBIDDEN, body, true)
}

/// 404: a missing object (`pods "x" not found`) or an unknown resource path.
fn not_found(state: &State, name: Option<&str>, attrs: &Attrs) -> Response<Full<Bytes>> {
    let (message, details) = match (name, &attrs.resource) {
        (Some(name), Some(resource)) => {
            let qualified = if attrs.group.is_empty() {
                resource.clone()
            } else {
                format!("{resource}.{}", attrs.group)
            };
            let group = if attrs.group.is_empty() {
                String::new()
            } else {
                format!(",\"group\":{}", q(&attrs.group))
            };
            (
                format!("{qualified} \"{name}\" not found"),
                format!("{{\"name\":{}{group},\"kind\":{}}}", q(name), q(resource)),
            )
        }
        _ => (
            "the server could not find the requested resource".to_owned(),
            "{}".to_owned(),
        ),
    };
    let body = format!(
        "{{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{{}},\"status\":\"Failure\",\"message\":{},\"reason\":\"NotFound\",\"details\":{details},\"code\":404}}\n",
        q(&message)
    );
    respond(state, StatusCode::NOT_FOUND, body, true)
}
