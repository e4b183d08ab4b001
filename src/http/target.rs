//! Pure: which servers to probe. The in-pod default mirrors client-go's
//! `rest.InClusterConfig` (`"https://" + net.JoinHostPort(host, port)`: IPv6 in
//! brackets) and requires both variables, as client-go does. Port 443 is elided,
//! as kube-rs `incluster_config.rs` does (and as the WHATWG URL type always
//! does for the scheme's default port, so every URL we show is consistent).
//! kube-rs keeps the same split between the environment read and this builder.

use url::Url;

/// Why a server URL could not be formed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    #[error(
        "no server: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not both set (not in a pod?); pass -s/--server URL"
    )]
    NotInPod,
    #[error("KUBERNETES_SERVICE_PORT={0:?} is not a port number")]
    BadPort(String),
    #[error("--server {text:?} is not a URL: {detail}")]
    BadUrl { text: String, detail: String },
}

/// The in-pod API server URL from `KUBERNETES_SERVICE_HOST` and `_PORT`.
pub fn in_pod_server(host: Option<&str>, port: Option<&str>) -> Result<Url, TargetError> {
    let (Some(host), Some(port)) = (
        host.map(str::trim).filter(|h| !h.is_empty()),
        port.map(str::trim).filter(|p| !p.is_empty()),
    ) else {
        return Err(TargetError::NotInPod);
    };
    let port: u16 = port
        .parse()
        .map_err(|_| TargetError::BadPort(port.to_owned()))?;
    let host = if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]")
    } else {
        host.to_owned()
    };
    let text = format!("https://{host}:{port}");
    Url::parse(&text).map_err(|e| TargetError::BadUrl {
        text,
        detail: e.to_string(),
    })
}

/// A `--server` value: a URL, or `host[:port]` (https assumed, as kubectl does).
/// The scheme is checked when the client is built (plain http needs a flag).
pub fn parse_server(text: &str) -> Result<Url, TargetError> {
    let text = text.trim();
    let bad = |detail: String| TargetError::BadUrl {
        text: text.to_owned(),
        detail,
    };
    let with_scheme = if text.contains("://") {
        text.to_owned()
    } else {
        format!("https://{text}")
    };
    let url = Url::parse(&with_scheme).map_err(|e| bad(e.to_string()))?;
    if url.host().is_none() {
        return Err(bad("no host".to_owned()));
    }
    if url.query().is_some() || url.fragment().is_some() || !url.username().is_empty() {
        return Err(bad("a server URL has no user, query or fragment".to_owned()));
    }
    Ok(url)
}

/// The URL as shown: without the trailing `/` the URL type adds.
pub fn display(url: &Url) -> String {
    url.as_str().trim_end_matches('/').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_pod_ipv4_ipv6_and_ports() {
        for (host, port, want) in [
            ("10.96.0.1", "443", "https://10.96.0.1"),
            ("10.96.0.1", "6443", "https://10.96.0.1:6443"),
            ("fd00:10:96::1", "443", "https://[fd00:10:96::1]"),
            ("[fd00::1]", "8443", "https://[fd00::1]:8443"),
            (
                "kubernetes.default.svc",
                "443",
                "https://kubernetes.default.svc",
            ),
        ] {
            let got = in_pod_server(Some(host), Some(port)).map(|u| display(&u));
            assert_eq!(got.as_deref(), Ok(want), "{host} {port}");
        }
        assert_eq!(
            in_pod_server(Some("10.96.0.1"), Some("https")).map(|u| display(&u)),
            Err(TargetError::BadPort("https".into()))
        );
        for (host, port) in [
            (Some("10.96.0.1"), None),
            (None, Some("443")),
            (Some(" "), Some("443")),
        ] {
            let got = in_pod_server(host, port);
            assert_eq!(got, Err(TargetError::NotInPod), "{host:?} {port:?}");
        }
    }

    #[test]
    fn server_flag_values() {
        for (text, want) in [
            ("https://127.0.0.1:6443", "https://127.0.0.1:6443"),
            ("10.0.0.5:6443", "https://10.0.0.5:6443"),
            ("https://10.0.0.5:443", "https://10.0.0.5"),
            ("https://[::1]:6443/", "https://[::1]:6443"),
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
            // kubectl keeps a path prefix (servers behind a proxy path).
            (
                "https://proxy.example/k8s/c1",
                "https://proxy.example/k8s/c1",
            ),
        ] {
            let got = parse_server(text).map(|u| display(&u));
            assert_eq!(got.as_deref(), Ok(want), "{text}");
        }
        for bad in [
            "https://",
            "https://u:p@h:1",
            "https://h:1/?a=b",
            "https://h:99999",
        ] {
            assert!(parse_server(bad).is_err(), "{bad}");
        }
    }
}
