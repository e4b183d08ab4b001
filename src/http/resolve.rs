//! Name resolution that does not go through the C library (glibc Linux only).
//!
//! The in-pod build can be a fully static glibc binary (docs/in-pod.md), and a
//! static glibc cannot load the NSS modules `getaddrinfo` needs: it may fail, or
//! load a host's incompatible `libnss_*.so`. So with glibc every client resolves
//! names itself, with hickory-resolver, the way kubectl's pure-Go resolver does
//! (Go's net package, CGO_ENABLED=0): `/etc/hosts` first, then the name servers,
//! search list and `ndots` of `/etc/resolv.conf`. `localhost` always resolves to
//! the loopback addresses (RFC 6761), without any file.
//!
//! We do not use hickory's defaults (reqwest's `hickory-dns` feature did the
//! same): when `/etc/resolv.conf` is missing they fall back to Google's public DNS, which would send the API
//! server's name to a third party from inside a cluster. Here a missing or
//! empty `resolv.conf` leaves `/etc/hosts` and `localhost` working, and every
//! other name fails with a message naming the file.
//!
//! IP-literal URLs (the in-pod default, `KUBERNETES_SERVICE_HOST`) never reach a
//! resolver.
//!
//! musl (the release archives' Linux build) needs none of this: its own
//! `getaddrinfo` reads `/etc/hosts` and `/etc/resolv.conf` (search list,
//! `ndots`) without NSS, statically linked, so it uses the platform resolver
//! like macOS and Windows (src/http/connect.rs).

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};

use hickory_resolver::TokioResolver;
use hickory_resolver::config::{LookupIpStrategy, ResolverConfig};
use hickory_resolver::net::runtime::TokioRuntimeProvider;

use super::DnsError;

/// Where the name servers come from (hickory reads this fixed path).
const RESOLV_CONF: &str = "/etc/resolv.conf";

/// A resolver over `/etc/hosts` and `/etc/resolv.conf`, built on first use
/// (hickory needs the client's tokio runtime, which a lookup runs on).
#[derive(Default, Clone)]
pub(super) struct FilesResolver {
    state: Arc<OnceLock<Built>>,
}

impl std::fmt::Debug for FilesResolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FilesResolver")
    }
}

struct Built {
    resolver: TokioResolver,
    /// Why `/etc/resolv.conf` gave no name servers, if it did not.
    no_servers: Option<String>,
}

impl Built {
    fn new() -> Result<Built, String> {
        let provider = TokioRuntimeProvider::default();
        let (mut builder, no_servers) = match TokioResolver::builder(provider.clone()) {
            Ok(builder) => (builder, None),
            // No name servers: /etc/hosts and localhost still answer.
            Err(e) => (
                TokioResolver::builder_with_config(
                    ResolverConfig::from_parts(None, Vec::new(), Vec::new()),
                    provider,
                ),
                Some(format!("{RESOLV_CONF} gave no name server ({e})")),
            ),
        };
        // IPv4 first: API servers are mostly reached over IPv4, and hyper's
        // happy eyeballs still tries the IPv6 addresses.
        builder.options_mut().ip_strategy = LookupIpStrategy::Ipv4AndIpv6;
        let resolver = builder.build().map_err(|e| e.to_string())?;
        Ok(Built {
            resolver,
            no_servers,
        })
    }
}

impl FilesResolver {
    /// The addresses of `host` (port 0: the connector sets the URL's).
    pub(super) async fn lookup(&self, host: &str) -> Result<Vec<SocketAddr>, DnsError> {
        let built = match self.state.get() {
            Some(built) => built,
            None => {
                let built = Built::new().map_err(DnsError)?;
                self.state.get_or_init(|| built)
            }
        };
        match built.resolver.lookup_ip(host).await {
            Ok(lookup) => {
                let addrs: Vec<SocketAddr> =
                    lookup.iter().map(|ip| SocketAddr::new(ip, 0)).collect();
                if addrs.is_empty() {
                    return Err(DnsError(format!("{host}: no address")));
                }
                Ok(addrs)
            }
            Err(e) => Err(DnsError(match &built.no_servers {
                Some(why) => format!("{host} is not in /etc/hosts and {why}"),
                None => format!("{host}: {e}"),
            })),
        }
    }
}
