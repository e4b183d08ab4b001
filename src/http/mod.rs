//! The HTTPS client every network-facing subcommand uses (`probe` now; `skew
//! --server` and `verify --jwks URL` later): reqwest's blocking client on rustls
//! with aws-lc-rs, configured the way a credential-carrying diagnostic tool must be.
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
//! whatever a future reqwest/rustls does with early data or connection set-up,
//! and the preflight's `Date` is one more clock sample for free. Any later
//! connection the pool opens runs the same verifier before a byte of HTTP is
//! written. Requests are only ever sent to the base URL's own origin.
//!
//! Constructing a client starts reqwest's runtime thread: only subcommands that
//! talk to the network build one (decode never pays for it).
//!
//! On Linux, host names are resolved from `/etc/hosts` and `/etc/resolv.conf`
//! without the C library ([`resolve`]), so the static in-pod binary resolves
//! names like the dynamic one.

pub mod clock;
#[cfg(target_os = "linux")]
mod resolve;
mod tls;

use std::io::Read as _;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use url::Url;

pub use clock::RunClock;
pub use tls::reason_of;

use crate::secret::SecretToken;
use crate::wire::string_codes;

/// Default per-request timeout (kubectl's --request-timeout has none; a
/// diagnostic must not hang).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// A command's requests together get this many per-request timeouts
/// ([`overall_deadline`]): enough for a slow server to answer the dozen
/// requests a probe makes, not enough to hang.
pub const OVERALL_TIMEOUTS: u32 = 6;

/// The overall deadline for a command whose per-request timeout is `timeout`,
/// counted from now.
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

/// How to build a client.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    pub trust: Trust,
    pub timeout: Duration,
    pub max_body: usize,
    pub allow_plain_http: bool,
    /// The name the certificate must carry instead of the URL's host
    /// (kubeconfig `tls-server-name`; a replica's original server name).
    pub verify_name: Option<String>,
    /// Connect to this address for the URL's host name (reqwest `resolve`), so
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
    /// Verified TLS against `trust`, default timeout and body bound, no plain HTTP.
    pub fn new(trust: Trust) -> Self {
        ClientConfig {
            trust,
            timeout: DEFAULT_TIMEOUT,
            max_body: MAX_BODY_BYTES,
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
    /// The CA bundle holds no usable certificate.
    #[error("unusable CA bundle: {0}")]
    CaBundle(String),
    /// rustls or reqwest refused the configuration.
    #[error("cannot set up TLS: {0}")]
    Tls(String),
    /// `http://` without `--allow-plain-http`.
    #[error(
        "refusing plain http:// for {0}: the token would cross the network unencrypted (pass --allow-plain-http to insist)"
    )]
    PlainHttp(String),
    /// Neither https nor http.
    #[error("unsupported URL scheme {scheme:?} in {url}: use https://")]
    Scheme { scheme: String, url: String },
    /// The HTTP client refused the proxy (the URL is not repeated: it may hold
    /// a password).
    #[error("unusable proxy-url: {0}")]
    Proxy(&'static str),
    /// The kubeconfig's client certificate or key is unusable.
    #[error("unusable client certificate: {0}")]
    ClientCertificate(String),
    /// A request path that would leave the server's origin.
    #[error("request path {0:?} must start with a single /")]
    Path(String),
    /// An `https://` URL with no CA to verify it (only `--allow-plain-http`).
    #[error(
        "no CA to verify {0} with (--allow-plain-http covers http:// URLs only): pass --cacert PATH, or --system-roots"
    )]
    NoCa(String),
}

/// Why a TLS handshake failed, as people act on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

string_codes!(TlsReason: UnknownCa, NameMismatch, Expired, NotYetValid, Other);

impl TlsReason {
    /// Stable kebab-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            TlsReason::UnknownCa => "unknown-ca",
            TlsReason::NameMismatch => "name-mismatch",
            TlsReason::Expired => "expired",
            TlsReason::NotYetValid => "not-yet-valid",
            TlsReason::Other => "other",
        }
    }
}

/// Why no HTTP response came back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransportError {
    /// The TLS handshake failed; nothing was sent.
    #[error("TLS handshake failed ({}): {detail}", reason.as_str())]
    Tls { reason: TlsReason, detail: String },
    /// The host name did not resolve.
    #[error("DNS lookup failed: {0}")]
    Dns(String),
    /// Nothing listens at that address and port.
    #[error("connection refused: {0}")]
    Refused(String),
    /// No complete answer within the timeout.
    #[error("timed out: {0}")]
    Timeout(String),
    /// The body exceeded the bound (an answer whose status line came is an
    /// [`Exchange`] with `body_over_limit` instead).
    #[error("response body over the {limit}-byte limit")]
    BodyTooLarge { limit: usize },
    /// Anything else (reset, protocol error…).
    #[error("{0}")]
    Other(String),
}

/// HTTP methods we use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
}

string_codes!(Method: Get, Post);

impl Method {
    /// As on the request line.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
        }
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

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

    pub fn post_json(path: impl Into<String>, body: Vec<u8>) -> Self {
        Request {
            method: Method::Post,
            path: path.into(),
            json_body: Some(body),
        }
    }
}

/// One response, with the instants around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exchange {
    pub status: u16,
    /// The `Date` header as sent.
    pub date_header: Option<String>,
    /// The `Date` header parsed (RFC 1123, whole seconds).
    pub date: Option<DateTime<Utc>>,
    /// `Location`, for a 3xx.
    pub location: Option<String>,
    pub content_type: Option<String>,
    /// `WWW-Authenticate` (a proxy asking for Basic credentials is not kube-apiserver).
    pub www_authenticate: Option<String>,
    /// The body; empty when it was over the configured bound.
    pub body: Vec<u8>,
    /// The body was over the bound and was not read: the status stands, the
    /// body is unknown.
    pub body_over_limit: bool,
    /// Run clock just before sending.
    pub sent_at: DateTime<Utc>,
    /// Run clock when the whole body had arrived.
    pub received_at: DateTime<Utc>,
    /// Monotonic round-trip time.
    pub latency: Duration,
}

/// A client for one server (one base URL, one trust decision).
#[derive(Debug)]
pub struct HttpClient {
    inner: reqwest::blocking::Client,
    base: Url,
    slot: Arc<Mutex<Option<rustls::Error>>>,
    clock: RunClock,
    max_body: usize,
    verifies: bool,
    timeout: Duration,
    deadline: Option<Instant>,
}

/// Proof that a token-less request to this server got an HTTP answer over the
/// configured trust; the only way to send a token. See the module docs.
#[derive(Debug)]
pub struct Connected<'a> {
    client: &'a HttpClient,
}

impl HttpClient {
    /// Builds a client for `base` (scheme checked here). Starts reqwest's runtime thread.
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
        let mut builder = reqwest::blocking::Client::builder();
        #[cfg(target_os = "linux")]
        {
            builder = builder.dns_resolver(Arc::new(resolve::FilesResolver::default()));
        }
        if let Some((host, addr)) = &config.resolve {
            builder = builder.resolve(host, *addr);
        }
        builder = match &config.proxy {
            // CONNECT for https targets: TLS runs end to end through the tunnel,
            // verified as without a proxy.
            Some(proxy) => builder.proxy(
                reqwest::Proxy::all(proxy.as_str())
                    .map_err(|_| ConfigError::Proxy("the HTTP client does not accept it"))?,
            ),
            None => builder.no_proxy(),
        };
        let inner = builder
            .tls_backend_preconfigured(tls)
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(config.timeout)
            .user_agent(concat!("kubectl-satoken/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ConfigError::Tls(chain(&e)))?;
        Ok(HttpClient {
            inner,
            base: base.clone(),
            slot,
            clock,
            max_body: config.max_body,
            verifies: !matches!(config.trust, Trust::InsecureSkipVerify),
            timeout: config.timeout,
            deadline: config.deadline,
        })
    }

    /// Whether certificates are verified (false with `--insecure-skip-tls-verify`).
    pub fn verifies(&self) -> bool {
        self.verifies
    }

    /// The server's base URL.
    pub fn base(&self) -> &Url {
        &self.base
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
        let budget = match self.deadline {
            Some(deadline) => self
                .timeout
                .min(deadline.saturating_duration_since(Instant::now())),
            None => self.timeout,
        };
        if budget.is_zero() {
            return Err(TransportError::Timeout(format!(
                "not sent: the command's overall time bound ({} x the request timeout) is spent",
                OVERALL_TIMEOUTS
            )));
        }
        // A request timeout in reqwest is total: from connecting until the body
        // has ended (the client-wide one in the blocking client is per read).
        let mut builder = match request.method {
            Method::Get => self.inner.get(url),
            Method::Post => self.inner.post(url),
        }
        .timeout(budget)
        .header("Accept", "application/json");
        if let Some(body) = &request.json_body {
            builder = builder
                .header("Content-Type", "application/json")
                .body(body.clone());
        }
        if let Some(token) = token {
            builder = builder.bearer_auth(token.expose());
        }
        let sent_at = self.clock.now();
        let started = Instant::now();
        let mut response = builder.send().map_err(|e| self.classify(&e))?;
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let date_header = header("date");
        let location = header("location");
        let content_type = header("content-type");
        let www_authenticate = header("www-authenticate");
        let status = response.status().as_u16();
        let mut body = Vec::new();
        let announced_over = response
            .content_length()
            .is_some_and(|n| n > self.max_body as u64);
        let mut body_over_limit = announced_over;
        if !announced_over {
            let limit = self.max_body as u64 + 1;
            (&mut response)
                .take(limit)
                .read_to_end(&mut body)
                .map_err(|e| self.classify_io(&e))?;
            body_over_limit = body.len() > self.max_body;
        }
        if body_over_limit {
            // The status line came; the body is what we refuse to hold.
            body = Vec::new();
        }
        let latency = started.elapsed();
        let received_at = self.clock.now();
        Ok(Exchange {
            status,
            date: date_header.as_deref().and_then(parse_http_date),
            date_header,
            location,
            content_type,
            www_authenticate,
            body,
            body_over_limit,
            sent_at,
            received_at,
            latency,
        })
    }

    /// `base` + `path`, refusing anything that would change the origin.
    fn url(&self, path: &str) -> Result<Url, ConfigError> {
        if !path.starts_with('/') || path.starts_with("//") {
            return Err(ConfigError::Path(path.to_owned()));
        }
        let base = self.base.as_str().trim_end_matches('/');
        let url =
            Url::parse(&format!("{base}{path}")).map_err(|_| ConfigError::Path(path.to_owned()))?;
        if url.origin() != self.base.origin() {
            return Err(ConfigError::Path(path.to_owned()));
        }
        Ok(url)
    }

    fn take_tls_failure(&self) -> Option<rustls::Error> {
        self.slot
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    fn classify(&self, error: &reqwest::Error) -> TransportError {
        let detail = chain(error);
        if let Some(refusal) = self.take_tls_failure() {
            return TransportError::Tls {
                reason: reason_of(&refusal),
                detail: refusal.to_string(),
            };
        }
        if error.is_timeout() {
            return TransportError::Timeout(detail);
        }
        classify_chain(error, detail)
    }

    fn classify_io(&self, error: &std::io::Error) -> TransportError {
        let detail = chain(error);
        let reqwest_timeout = error
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<reqwest::Error>())
            .is_some_and(reqwest::Error::is_timeout);
        if reqwest_timeout
            || error.kind() == std::io::ErrorKind::TimedOut
            || detail.contains("timed out")
        {
            return TransportError::Timeout(detail);
        }
        classify_chain(error, detail)
    }
}

impl Connected<'_> {
    /// Sends `request` with `Authorization: Bearer <token>` to the same server.
    pub fn send_with_token(
        &self,
        request: &Request,
        token: &SecretToken,
    ) -> Result<Exchange, TransportError> {
        self.client.execute(request, Some(token))
    }

    /// Sends `request` without a token (the anonymous contrast).
    pub fn send(&self, request: &Request) -> Result<Exchange, TransportError> {
        self.client.execute(request, None)
    }
}

/// Sorts an error chain into DNS, refused, timeout, TLS or other.
fn classify_chain(error: &(dyn std::error::Error + 'static), detail: String) -> TransportError {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = cause {
        if let Some(tls) = e.downcast_ref::<rustls::Error>() {
            return TransportError::Tls {
                reason: reason_of(tls),
                detail,
            };
        }
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            match io.kind() {
                std::io::ErrorKind::ConnectionRefused => return TransportError::Refused(detail),
                std::io::ErrorKind::TimedOut => return TransportError::Timeout(detail),
                _ => {}
            }
            if let Some(tls) = io
                .get_ref()
                .and_then(|inner| inner.downcast_ref::<rustls::Error>())
            {
                return TransportError::Tls {
                    reason: reason_of(tls),
                    detail,
                };
            }
        }
        cause = e.source();
    }
    // hyper-util's resolver error has no public type; its text is stable
    // ("dns error: failed to lookup address information").
    if detail.contains("dns error") || detail.contains("failed to lookup address") {
        return TransportError::Dns(detail);
    }
    if detail.contains("connection refused") || detail.contains("Connection refused") {
        return TransportError::Refused(detail);
    }
    TransportError::Other(detail)
}

/// The error and its sources as one line.
fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        let part = e.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        cause = e.source();
    }
    text
}

/// Parses an HTTP `Date` (RFC 1123, `Sun, 05 Oct 2025 12:34:56 GMT`).
pub fn parse_http_date(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc2822(text.trim())
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// Formats an instant as an HTTP `Date` (RFC 1123, whole seconds, GMT).
pub fn format_http_date(at: DateTime<Utc>) -> String {
    at.format("%a, %d %b %Y %H:%M:%S GMT").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;

    #[test]
    fn http_dates_round_trip() {
        let at = parse_http_date("Sun, 05 Oct 2025 12:34:56 GMT").unwrap();
        assert_eq!(at.to_rfc3339(), "2025-10-05T12:34:56+00:00");
        assert_eq!(format_http_date(at), "Sun, 05 Oct 2025 12:34:56 GMT");
        assert_eq!(parse_http_date("yesterday"), None);
    }

    #[test]
    fn plain_http_and_odd_schemes_are_refused() {
        let clock = RunClock::start(Clock::System);
        let config = ClientConfig::new(Trust::InsecureSkipVerify);
        let url = Url::parse("http://127.0.0.1:1/").unwrap();
        assert!(matches!(
            HttpClient::new(&url, &config, clock),
            Err(ConfigError::PlainHttp(_))
        ));
        let url = Url::parse("ftp://127.0.0.1/").unwrap();
        assert!(matches!(
            HttpClient::new(&url, &config, clock),
            Err(ConfigError::Scheme { .. })
        ));
    }

    #[test]
    fn paths_never_leave_the_origin() {
        let clock = RunClock::start(Clock::System);
        let config = ClientConfig::new(Trust::InsecureSkipVerify);
        let base = Url::parse("https://10.0.0.1:6443/prefix/").unwrap();
        let client = HttpClient::new(&base, &config, clock).unwrap();
        assert_eq!(
            client.url("/api").unwrap().as_str(),
            "https://10.0.0.1:6443/prefix/api"
        );
        for bad in ["//evil.example/x", "api", "@evil.example/x"] {
            assert!(client.url(bad).is_err(), "{bad}");
        }
    }
}
