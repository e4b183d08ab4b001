//! The connection stack under [`super::HttpClient`], built from hyper's parts
//! rather than reqwest, so that no platform verifier or OS trust-store code is
//! linked in (reqwest 0.13's rustls features always bring
//! rustls-platform-verifier, which on macOS needs the Security framework, so a
//! darwin binary could not be linked without Apple's SDK). What we use of it:
//!
//! ```text
//! hyper-util Client (pool, HTTP/1.1 or h2 by ALPN)
//!   └ hyper-rustls: TLS with our rustls ClientConfig (tls.rs), SNI from the URL
//!       └ [hyper-util Tunnel: HTTP CONNECT through the kubeconfig proxy-url,
//!          itself over TLS for an https:// proxy]
//!           └ hyper-util HttpConnector: TCP, connect timeout, our Resolver
//! ```
//!
//! Everything runs on a current-thread tokio runtime owned by the client: no
//! thread is started (reqwest's blocking client started one per client).

use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use base64::Engine as _;
use hyper::Uri;
use hyper::body::{Bytes, Incoming};
use hyper::header::HeaderValue;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::connect::dns::Name;
use hyper_util::client::legacy::connect::proxy::Tunnel;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use url::Url;

use super::ConfigError;
use super::DnsError;

/// A request body: the whole JSON document, or nothing.
pub(super) type Body = http_body_util::Full<Bytes>;

type Tcp = HttpConnector<Resolver>;

/// The pooled client, with or without a proxy in front.
#[derive(Debug)]
pub(super) enum Pool {
    Direct(Client<HttpsConnector<Tcp>, Body>),
    /// `http://` proxy: CONNECT over plain TCP.
    Proxied(Client<HttpsConnector<Tunnel<Tcp>>, Body>),
    /// `https://` proxy: CONNECT over TLS to the proxy, then TLS to the server
    /// inside the tunnel.
    ProxiedTls(Client<HttpsConnector<Tunnel<HttpsConnector<Tcp>>>, Body>),
}

impl Pool {
    /// Sends one request; the caller bounds it in time.
    pub(super) async fn send(
        &self,
        request: hyper::Request<Body>,
    ) -> Result<hyper::Response<Incoming>, hyper_util::client::legacy::Error> {
        match self {
            Pool::Direct(c) => c.request(request).await,
            Pool::Proxied(c) => c.request(request).await,
            Pool::ProxiedTls(c) => c.request(request).await,
        }
    }
}

/// What [`pool`] needs besides the TLS configuration.
pub(super) struct Route<'a> {
    pub connect_timeout: Duration,
    pub pinned: Option<(String, SocketAddr)>,
    pub proxy: Option<&'a Url>,
    /// TLS to an `https://` proxy: the same trust, verified against the
    /// proxy's own name.
    pub proxy_tls: Option<rustls::ClientConfig>,
}

pub(super) fn pool(tls: rustls::ClientConfig, route: Route<'_>) -> Result<Pool, ConfigError> {
    let mut tcp = HttpConnector::new_with_resolver(Resolver::new(route.pinned));
    tcp.enforce_http(false);
    tcp.set_nodelay(true);
    tcp.set_connect_timeout(Some(route.connect_timeout));
    let mut builder = Client::builder(TokioExecutor::new());
    builder
        .pool_timer(TokioTimer::new())
        .timer(TokioTimer::new());
    let Some(proxy) = route.proxy else {
        return Ok(Pool::Direct(builder.build(https(tls, tcp))));
    };
    let uri: Uri = proxy
        .as_str()
        .parse()
        .map_err(|_| ConfigError::Proxy("not a valid URI"))?;
    let credentials = proxy_authorization(proxy)?;
    Ok(match route.proxy_tls {
        Some(proxy_tls) => {
            // HTTP/1.1 only to the proxy: CONNECT is an HTTP/1.1 request here.
            let tls_to_proxy = hyper_rustls::HttpsConnectorBuilder::new()
                .with_tls_config(proxy_tls)
                .https_or_http()
                .enable_http1()
                .wrap_connector(tcp);
            let to_proxy = tunnel(uri, credentials, tls_to_proxy);
            Pool::ProxiedTls(builder.build(https(tls, to_proxy)))
        }
        None => Pool::Proxied(builder.build(https(tls, tunnel(uri, credentials, tcp)))),
    })
}

/// A CONNECT tunnel through the proxy at `uri`, over `inner`.
fn tunnel<C>(uri: Uri, credentials: Option<HeaderValue>, inner: C) -> Tunnel<C> {
    let tunnel = Tunnel::new(uri, inner);
    match credentials {
        Some(value) => tunnel.with_auth(value),
        None => tunnel,
    }
}

/// TLS over `inner` with our configuration; plain `http://` passes through
/// (HttpClient::new has already refused it unless allowed).
fn https<T>(tls: rustls::ClientConfig, inner: T) -> HttpsConnector<T> {
    hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls)
        .https_or_http()
        .enable_http1()
        .enable_http2()
        .wrap_connector(inner)
}

/// `Proxy-Authorization: Basic …` from the proxy URL's user information, as
/// kubectl (Go's net/http) sends it.
fn proxy_authorization(proxy: &Url) -> Result<Option<HeaderValue>, ConfigError> {
    if proxy.username().is_empty() && proxy.password().is_none() {
        return Ok(None);
    }
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8_lossy()
            .into_owned()
    };
    let pair = format!(
        "{}:{}",
        decode(proxy.username()),
        decode(proxy.password().unwrap_or_default())
    );
    let encoded = base64::engine::general_purpose::STANDARD.encode(pair);
    let mut value = HeaderValue::try_from(format!("Basic {encoded}"))
        .map_err(|_| ConfigError::Proxy("its credentials cannot be sent"))?;
    value.set_sensitive(true);
    Ok(Some(value))
}

/// Name resolution for the connector: a pinned replica address first, then the
/// platform's resolver (see [`super::resolve`] for the static glibc build).
#[derive(Debug, Clone)]
pub(super) struct Resolver {
    pinned: Option<(String, SocketAddr)>,
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    system: super::resolve::FilesResolver,
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    system: hyper_util::client::legacy::connect::dns::GaiResolver,
}

impl Resolver {
    fn new(pinned: Option<(String, SocketAddr)>) -> Self {
        Resolver {
            pinned,
            #[cfg(all(target_os = "linux", target_env = "gnu"))]
            system: super::resolve::FilesResolver::default(),
            #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
            system: hyper_util::client::legacy::connect::dns::GaiResolver::new(),
        }
    }
}

type Addrs = std::vec::IntoIter<SocketAddr>;
type Resolving = Pin<Box<dyn Future<Output = Result<Addrs, DnsError>> + Send>>;

impl tower_service::Service<Name> for Resolver {
    type Response = Addrs;
    type Error = DnsError;
    type Future = Resolving;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), DnsError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, name: Name) -> Resolving {
        if let Some((host, addr)) = &self.pinned
            && host.eq_ignore_ascii_case(name.as_str())
        {
            let addrs = vec![*addr];
            return Box::pin(async move { Ok(addrs.into_iter()) });
        }
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        {
            let system = self.system.clone();
            Box::pin(async move { system.lookup(name.as_str()).await.map(Vec::into_iter) })
        }
        #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
        {
            let lookup = self.system.call(name.clone());
            Box::pin(async move {
                let host = name.as_str();
                #[cfg(target_env = "musl")]
                let lookup = match musl_without_resolv_conf(lookup).await {
                    Some(result) => result,
                    None => {
                        return Err(DnsError(format!(
                            "{host} is not in /etc/hosts and there is no {RESOLV_CONF} (musl then asks 127.0.0.1:53, which did not answer)"
                        )));
                    }
                };
                #[cfg(not(target_env = "musl"))]
                let lookup = lookup.await;
                match lookup {
                    Ok(addrs) => Ok(addrs.collect::<Vec<_>>().into_iter()),
                    Err(e) => Err(DnsError(format!("{host}: {e}"))),
                }
            })
        }
    }
}

/// Where musl reads its name servers.
#[cfg(target_env = "musl")]
const RESOLV_CONF: &str = "/etc/resolv.conf";

/// musl's `getaddrinfo` reads `/etc/hosts` and `/etc/resolv.conf` itself (no
/// NSS, so the static build needs no resolver of its own), but with no
/// `resolv.conf` it silently asks 127.0.0.1:53 for 5 s, and the failure would
/// read as a request timeout. Only then is the lookup bounded (an `/etc/hosts`
/// answer takes microseconds), and `None` means "nothing answered".
#[cfg(target_env = "musl")]
async fn musl_without_resolv_conf<F: Future>(lookup: F) -> Option<F::Output> {
    if std::path::Path::new(RESOLV_CONF).exists() {
        return Some(lookup.await);
    }
    tokio::time::timeout(Duration::from_secs(1), lookup)
        .await
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxy_credentials_are_percent_decoded_basic_auth() {
        let url = Url::parse("http://ops%40corp:p%3Ass@proxy.corp:3128").unwrap();
        let value = proxy_authorization(&url).unwrap().unwrap();
        // base64("ops@corp:p:ss")
        assert_eq!(value.to_str().unwrap(), "Basic b3BzQGNvcnA6cDpzcw==");
        assert!(value.is_sensitive());
        let plain = Url::parse("http://proxy.corp:3128").unwrap();
        assert_eq!(proxy_authorization(&plain).unwrap(), None);
    }
}
