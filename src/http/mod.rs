//! The HTTPS client every network-facing subcommand uses (`probe`, `doctor`,
//! `skew --server`, `verify --jwks URL`): a blocking client over hyper and rustls
//! with aws-lc-rs ([`connect`]), configured the way a credential-carrying
//! diagnostic tool must be.
//!
//! - Trust: only the given CA bundle (the OS roots only when asked), or an explicit
//!   [`Trust::InsecureSkipVerify`]; a refused certificate is a typed
//!   [`TransportError::Tls`] with its [`TlsReason`].
//! - Redirects are never followed: a 3xx is returned as it is, so the token is
//!   never re-sent anywhere else.
//! - Plain `http://` is refused unless the caller allows it.
//! - Every request has a total deadline (connect, TLS, headers and body; not a
//!   per-read timeout, which a server sending one byte a second would keep
//!   alive for ever), and a command's requests share an overall one
//!   ([`ClientConfig::deadline`]). A body over the size bound is not read; the
//!   status line that came before it is kept.
//! - Send/receive instants come from the run's [`RunClock`], so `--now` stays
//!   coherent with the Date headers measured against it.
//!
//! **Token safety.** A request carrying a token can only be made through a
//! [`Connected`] handle, and the only way to get one is a token-less first request
//! ([`HttpClient::preflight`]) that came back with an HTTP response: the TLS
//! handshake with our verifier has then completed on that connection. We chose
//! this over relying on a verifier alone because it holds at the type level,
//! whatever a future hyper/rustls does with early data or connection set-up,
//! and the preflight's `Date` is one more clock sample for free. Any later
//! connection the pool opens runs the same verifier before a byte of HTTP is
//! written. Requests are only ever sent to the base URL's own origin.
//!
//! Constructing a client builds a current-thread tokio runtime (no thread):
//! only subcommands that talk to the network build one (decode never pays for it).
//!
//! With glibc on Linux, host names are resolved from `/etc/hosts` and
//! `/etc/resolv.conf` without the C library ([`resolve`]), so the static glibc
//! binary resolves names like the dynamic one; elsewhere (musl, macOS, Windows)
//! the platform's `getaddrinfo` does, and needs no NSS.

pub mod clock;
mod connect;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod resolve;
pub mod target;
mod tls;

use http_body_util::BodyExt as _;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use url::Url;

pub use clock::RunClock;
pub use tls::reason_of;

use strum::{IntoStaticStr, VariantArray};

use crate::secret::SecretToken;
use crate::wire::string_codes;

/// A host name that did not resolve (typed, so the error sorts as DNS).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct DnsError(pub String);

/// Default per-request timeout (kubectl's --request-timeout has none; a
/// diagnostic must not hang).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// A command's requests together get this many per-request timeouts
/// ([`overall_deadline`]): enough for a slow server to answer the dozen
/// requests a probe makes, not enough to hang.
pub const OVERALL_TIMEOUTS: u32 = 6;

pub fn overall_deadline(timeout: Duration) -> Instant {
    Instant::now() + timeout.saturating_mul(OVERALL_TIMEOUTS)
}

/// Largest response body read. Status bodies, reviews and JWKS documents are a
/// few KiB; anything this large is not what we asked for.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// What certificates to trust.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trust {
    /// PEM CA bundle (e.g. the pod's `ca.crt`), plus the OS roots if `system`.
    Roots {
        ca_pem: Option<Vec<u8>>,
        system: bool,
    },
    /// `--insecure-skip-tls-verify`: any certificate is accepted.
    InsecureSkipVerify,
    /// No CA at all, with `--allow-plain-http`: only `http://` URLs can be
    /// used; an `https://` one is refused before connecting, and a certificate
    /// would be refused whatever it is.
    PlainHttpOnly,
}

/// A client certificate and its key, PEM (kubeconfig `client-certificate(-data)`
/// and `client-key(-data)`). Presented in the handshake, only to a server whose
/// certificate verified.
#[derive(Clone, PartialEq, Eq)]
pub struct ClientIdentity {
    pub cert_pem: Vec<u8>,
    pub key_pem: Vec<u8>,
}

impl std::fmt::Debug for ClientIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClientIdentity(..)")
    }
}

#[derive(Debug, Clone)]
pub struct ClientConfig {
    pub trust: Trust,
    pub timeout: Duration,
    pub allow_plain_http: bool,
    /// The name the certificate must carry instead of the URL's host
    /// (kubeconfig `tls-server-name`; a replica's original server name).
    pub verify_name: Option<String>,
    /// Connect to this address for the URL's host name (a pinned address), so
    /// SNI and verification use the name while the packets go to one replica.
    pub resolve: Option<(String, std::net::SocketAddr)>,
    /// A client certificate to present (the operator's kubeconfig identity).
    pub identity: Option<ClientIdentity>,
    /// An HTTP(S) proxy to tunnel through (kubeconfig `proxy-url`); none means
    /// a direct connection, whatever HTTPS_PROXY says.
    pub proxy: Option<Url>,
    /// When every request of the command must have ended; each request gets
    /// the smaller of `timeout` and what is left. `None`: `timeout` alone.
    pub deadline: Option<Instant>,
}

impl ClientConfig {
    pub fn new(trust: Trust) -> Self {
        ClientConfig {
            trust,
            timeout: DEFAULT_TIMEOUT,
            allow_plain_http: false,
            verify_name: None,
            resolve: None,
            identity: None,
            proxy: None,
            deadline: None,
        }
    }
}

/// Why a client could not be built (bad flags or files: exit 2).
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("unusable CA bundle: {0}")]
    CaBundle(String),
    #[error("cannot set up TLS: {0}")]
    Tls(String),
    #[error(
        "refusing plain http:// for {0}: the token would cross the network unencrypted (pass --allow-plain-http to insist)"
    )]
    PlainHttp(String),
    #[error("unsupported URL scheme {scheme:?} in {url}: use https://")]
    Scheme { scheme: String, url: String },
    /// The URL is not repeated: it may hold a password.
    #[error("unusable proxy-url: {0}")]
    Proxy(&'static str),
    #[error("unusable client certificate: {0}")]
    ClientCertificate(String),
    #[error("request path {0:?} must start with a single /")]
    Path(String),
    #[error(
        "no CA to verify {0} with (--allow-plain-http covers http:// URLs only): pass --cacert PATH, or --system-roots"
    )]
    NoCa(String),
}

/// Why a TLS handshake failed, as people act on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum TlsReason {
    /// The certificate is not signed by a trusted CA (wrong `--cacert`).
    UnknownCa,
    /// The certificate does not name the host we connected to.
    NameMismatch,
    /// The certificate has expired.
    Expired,
    /// The certificate is not valid yet (its notBefore is ahead of this
    /// machine's clock: a clock behind, or a certificate issued by a clock ahead).
    NotYetValid,
    /// Any other handshake failure.
    Other,
}

string_codes!(TlsReason);

/// Why no HTTP response came back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransportError {
    /// The TLS handshake failed; nothing was sent.
    #[error("TLS handshake failed ({}): {detail}", reason.as_str())]
    Tls { reason: TlsReason, detail: String },
    #[error("DNS lookup failed: {0}")]
    Dns(String),
    #[error("connection refused: {0}")]
    Refused(String),
    #[error("timed out: {0}")]
    Timeout(String),
    /// The body exceeded the bound (an answer whose status line came is an
    /// [`Exchange`] with `body_over_limit` instead).
    #[error("response body over the {limit}-byte limit")]
    BodyTooLarge { limit: usize },
    #[error("{0}")]
    Other(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, IntoStaticStr, VariantArray, strum::Display)]
#[strum(serialize_all = "UPPERCASE")]
pub enum Method {
    Get,
    Post,
}

string_codes!(Method);

/// One request: method, a path on the server (starting with `/`), and a JSON body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub method: Method,
    pub path: String,
    pub json_body: Option<Vec<u8>>,
}

impl Request {
    pub fn get(path: impl Into<String>) -> Self {
        Request {
            method: Method::Get,
            path: path.into(),
            json_body: None,
        }
    }
}

/// One response, with the instants around it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Exchange {
    pub status: u16,
    /// The `Date` header as sent, and parsed (RFC 1123, whole seconds).
    pub date_header: Option<String>,
    pub date: Option<DateTime<Utc>>,
    pub location: Option<String>,
    pub content_type: Option<String>,
    /// `WWW-Authenticate` (a proxy asking for Basic credentials is not kube-apiserver).
    pub www_authenticate: Option<String>,
    /// The body; empty when it was over the configured bound.
    pub body: Vec<u8>,
    /// The body was over the bound and was not read: the status stands, the
    /// body is unknown.
    pub body_over_limit: bool,
    /// Run clock just before sending and when the whole body had arrived.
    pub sent_at: DateTime<Utc>,
    pub received_at: DateTime<Utc>,
    pub latency: Duration,
}

/// A client for one server (one base URL, one trust decision).
#[derive(Debug)]
pub struct HttpClient {
    /// Always `Some` until dropped (see the `Drop` impl).
    runtime: Option<tokio::runtime::Runtime>,
    pool: connect::Pool,
    base: Url,
    slot: Arc<Mutex<Option<rustls::Error>>>,
    clock: RunClock,
    timeout: Duration,
    verifies: bool,
    deadline: Option<Instant>,
}

impl Drop for HttpClient {
    /// Without waiting for a name lookup still running on the blocking pool
    /// (getaddrinfo after a timeout): dropping a runtime would wait for it.
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// Proof that a token-less request to this server got an HTTP answer over the
/// configured trust; the only way to send a token. See the module docs.
#[derive(Debug, Clone, Copy)]
pub struct Connected<'a> {
    client: &'a HttpClient,
}

impl HttpClient {
    /// Builds a client for `base` (scheme checked here). Builds its (thread-less) I/O runtime.
    pub fn new(base: &Url, config: &ClientConfig, clock: RunClock) -> Result<Self, ConfigError> {
        match base.scheme() {
            "https" if config.trust == Trust::PlainHttpOnly => {
                return Err(ConfigError::NoCa(base.to_string()));
            }
            "https" => {}
            "http" if config.allow_plain_http => {}
            "http" => return Err(ConfigError::PlainHttp(base.to_string())),
            other => {
                return Err(ConfigError::Scheme {
                    scheme: other.to_owned(),
                    url: base.to_string(),
                });
            }
        }
        let slot = Arc::new(Mutex::new(None));
        let tls = tls::client_config(
            &config.trust,
            slot.clone(),
            config.verify_name.as_deref(),
            config.identity.as_ref(),
        )?;
        // TLS to an https:// proxy: the same trust, the proxy's own name, and
        // its refusals kept apart from the server's.
        let proxy_tls = (config.proxy.as_ref())
            .filter(|proxy| proxy.scheme() == "https")
            .map(|_| tls::client_config(&config.trust, tls::FailureSlot::default(), None, None))
            .transpose()?;
        // Timers for the timeouts, I/O for the sockets; everything runs inside
        // `block_on` on the calling thread.
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| ConfigError::Tls(format!("cannot start the I/O runtime: {e}")))?;
        let pool = connect::pool(
            tls,
            connect::Route {
                connect_timeout: config.timeout,
                pinned: config.resolve.clone(),
                proxy: config.proxy.as_ref(),
                proxy_tls,
            },
        )?;
        Ok(HttpClient {
            runtime: Some(runtime),
            pool,
            base: base.clone(),
            slot,
            clock,
            timeout: config.timeout,
            verifies: !matches!(config.trust, Trust::InsecureSkipVerify),
            deadline: config.deadline,
        })
    }

    /// Whether certificates are verified (false with `--insecure-skip-tls-verify`).
    pub fn verifies(&self) -> bool {
        self.verifies
    }

    /// A token-less request (`skew --server`, `verify --jwks`, anonymous probes).
    pub fn send(&self, request: &Request) -> Result<Exchange, TransportError> {
        self.execute(request, None)
    }

    /// A token-less first request; an HTTP answer (any status) proves the TLS
    /// handshake completed, and yields the handle that may send the token.
    pub fn preflight(
        &self,
        request: &Request,
    ) -> Result<(Connected<'_>, Exchange), TransportError> {
        let exchange = self.execute(request, None)?;
        Ok((Connected { client: self }, exchange))
    }

    fn execute(
        &self,
        request: &Request,
        token: Option<&SecretToken>,
    ) -> Result<Exchange, TransportError> {
        let url = self
            .url(&request.path)
            .map_err(|e| TransportError::Other(e.to_string()))?;
        let left = |deadline: Instant| deadline.saturating_duration_since(Instant::now());
        let budget = self
            .deadline
            .map_or(self.timeout, |d| self.timeout.min(left(d)));
        if budget.is_zero() {
            return Err(TransportError::Timeout(format!(
                "not sent: the command's overall time bound ({} x the request timeout) is spent",
                OVERALL_TIMEOUTS
            )));
        }
        let mut builder = hyper::Request::builder()
            .method(request.method.as_str())
            .uri(url.as_str())
            .header(hyper::header::ACCEPT, "application/json")
            .header(
                hyper::header::USER_AGENT,
                concat!("kubectl-satoken/", env!("CARGO_PKG_VERSION")),
            );
        if request.json_body.is_some() {
            builder = builder.header(hyper::header::CONTENT_TYPE, "application/json");
        }
        if let Some(token) = token {
            let mut value =
                hyper::header::HeaderValue::try_from(format!("Bearer {}", token.expose()))
                    .map_err(|_| {
                        TransportError::Other("the token cannot be sent in a header".to_owned())
                    })?;
            value.set_sensitive(true);
            builder = builder.header(hyper::header::AUTHORIZATION, value);
        }
        let body = connect::Body::from(request.json_body.clone().unwrap_or_default());
        let http_request = builder
            .body(body)
            .map_err(|e| TransportError::Other(e.to_string()))?;
        let sent_at = self.clock.now();
        let started = Instant::now();
        // One bound for the whole exchange, connect to the last body byte.
        let exchange = async {
            let response = self
                .pool
                .send(http_request)
                .await
                .map_err(|e| self.classify(&e))?;
            let (parts, mut incoming) = response.into_parts();
            // Over the bound, the status stands and the body is not held
            // (a 401 with a huge page is still a 401).
            let mut body_over_limit = hyper::body::Body::size_hint(&incoming)
                .exact()
                .is_some_and(|n| n > MAX_BODY_BYTES as u64);
            let mut body = Vec::new();
            while !body_over_limit && let Some(frame) = incoming.frame().await {
                let frame = frame.map_err(|e| self.classify(&e))?;
                if let Ok(data) = frame.into_data() {
                    body_over_limit = body.len() + data.len() > MAX_BODY_BYTES;
                    if !body_over_limit {
                        body.extend_from_slice(&data);
                    }
                }
            }
            if body_over_limit {
                body = Vec::new();
            }
            Ok((parts, body, body_over_limit))
        };
        let (parts, body, body_over_limit) = self
            .runtime
            .as_ref()
            .expect("the runtime lives until drop")
            .block_on(async { tokio::time::timeout(budget, exchange).await })
            .map_err(|_| {
                TransportError::Timeout(if budget < self.timeout {
                    format!(
                        "no complete answer within {}, what was left of the command's overall time bound ({OVERALL_TIMEOUTS} x the request timeout)",
                        humantime::format_duration(Duration::from_millis(budget.as_millis() as u64))
                    )
                } else {
                    format!(
                        "no complete answer within {}",
                        humantime::format_duration(budget)
                    )
                })
            })??;
        let header = |name: &str| {
            parts
                .headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let date_header = header("date");
        let latency = started.elapsed();
        let received_at = self.clock.now();
        Ok(Exchange {
            status: parts.status.as_u16(),
            date: date_header.as_deref().and_then(parse_http_date),
            date_header,
            // A `Location` on any other status (a 401 naming a login page)
            // is not a redirect.
            location: header("location").filter(|_| parts.status.is_redirection()),
            content_type: header("content-type"),
            www_authenticate: header("www-authenticate"),
            body,
            body_over_limit,
            sent_at,
            received_at,
            latency,
        })
    }

    /// `base` + `path`, refusing anything that would change the origin.
    fn url(&self, path: &str) -> Result<Url, ConfigError> {
        let base = self.base.as_str().trim_end_matches('/');
        let relative = path.starts_with('/') && !path.starts_with("//");
        (Url::parse(&format!("{base}{path}")).ok())
            .filter(|url| relative && url.origin() == self.base.origin())
            .ok_or_else(|| ConfigError::Path(path.to_owned()))
    }

    fn classify(&self, error: &(dyn std::error::Error + 'static)) -> TransportError {
        let detail = chain(error);
        let refusal = self
            .slot
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(refusal) = refusal {
            return TransportError::Tls {
                reason: reason_of(&refusal),
                detail: refusal.to_string(),
            };
        }
        classify_chain(error, detail)
    }
}

impl Connected<'_> {
    /// Sends `request` to the same server, with `Authorization: Bearer <token>`
    /// if there is one.
    pub fn send(
        &self,
        request: &Request,
        token: Option<&SecretToken>,
    ) -> Result<Exchange, TransportError> {
        self.client.execute(request, token)
    }
}

/// Sorts an error chain into DNS, refused, timeout, TLS or other.
fn classify_chain(error: &(dyn std::error::Error + 'static), detail: String) -> TransportError {
    for e in std::iter::successors(Some(error), |e| e.source()) {
        if e.is::<DnsError>() {
            return TransportError::Dns(detail);
        }
        let io = e.downcast_ref::<std::io::Error>();
        match io.map(std::io::Error::kind) {
            Some(std::io::ErrorKind::ConnectionRefused) => return TransportError::Refused(detail),
            Some(std::io::ErrorKind::TimedOut) => return TransportError::Timeout(detail),
            _ => {}
        }
        // rustls's own error, or one an I/O error carries.
        let inner = io.and_then(|io| io.get_ref()?.downcast_ref::<rustls::Error>());
        if let Some(tls) = e.downcast_ref::<rustls::Error>().or(inner) {
            return TransportError::Tls {
                reason: reason_of(tls),
                detail,
            };
        }
    }
    // hyper-util's connector names a resolver failure "dns error"; getaddrinfo's
    // own text follows ("failed to lookup address information").
    if detail.contains("dns error") || detail.contains("failed to lookup address") {
        return TransportError::Dns(detail);
    }
    if detail.contains("connection refused") || detail.contains("Connection refused") {
        return TransportError::Refused(detail);
    }
    TransportError::Other(detail)
}

fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    for e in std::iter::successors(error.source(), |e| e.source()) {
        let part = e.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
    }
    text
}

/// Parses an HTTP `Date` (RFC 1123, `Sun, 05 Oct 2025 12:34:56 GMT`).
pub fn parse_http_date(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc2822(text.trim())
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;

    /// A client for `url` that trusts any certificate.
    fn client(url: &str, deadline: Option<Instant>) -> Result<HttpClient, ConfigError> {
        let config = ClientConfig {
            deadline,
            ..ClientConfig::new(Trust::InsecureSkipVerify)
        };
        let clock = RunClock::start(Clock::System);
        HttpClient::new(&Url::parse(url).unwrap(), &config, clock)
    }

    #[test]
    fn http_dates_parse() {
        let at = parse_http_date("Sun, 05 Oct 2025 12:34:56 GMT").unwrap();
        assert_eq!(at.to_rfc3339(), "2025-10-05T12:34:56+00:00");
        assert_eq!(parse_http_date("yesterday"), None);
    }

    #[test]
    fn plain_http_and_odd_schemes_are_refused() {
        let plain = client("http://127.0.0.1:1/", None);
        assert!(matches!(plain, Err(ConfigError::PlainHttp(_))));
        let ftp = client("ftp://127.0.0.1/", None);
        assert!(matches!(ftp, Err(ConfigError::Scheme { .. })));
    }

    #[test]
    fn paths_never_leave_the_origin() {
        let client = client("https://10.0.0.1:6443/prefix/", None).unwrap();
        assert_eq!(
            client.url("/api").unwrap().as_str(),
            "https://10.0.0.1:6443/prefix/api"
        );
        for bad in ["//evil.example/x", "api", "@evil.example/x"] {
            assert!(client.url(bad).is_err(), "{bad}");
        }
    }

    /// Once the command's overall deadline has passed, no request is sent at
    /// all (so nothing connects: the address here has no server).
    #[test]
    fn nothing_is_sent_after_the_overall_deadline() {
        let client = client("https://127.0.0.1:1/", Some(Instant::now())).unwrap();
        match client.preflight(&Request::get("/version")) {
            Err(TransportError::Timeout(detail)) => {
                assert!(detail.starts_with("not sent"), "{detail}");
            }
            other => panic!("{other:?}"),
        }
    }
}
