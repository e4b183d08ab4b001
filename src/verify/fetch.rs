//! I/O: fetch the keys a cluster publishes (`verify --jwks URL`). A
//! `/.well-known/openid-configuration` URL is followed to its `jwks_uri`.
//!
//! Token rules: every request is first made without a token. Only if the server
//! answers 401/403 (by default `/openid/v1/jwks` is readable by ServiceAccounts
//! only, through `system:service-account-issuer-discovery`) is it repeated with
//! the token, over the same verified connection, and only to the origin the user
//! named; a `jwks_uri` on another origin is fetched token-less.

use url::Url;

use super::keys::{self, OpenIdConfiguration};
use crate::http::{
    ClientConfig, ConfigError, Exchange, HttpClient, Request, RunClock, TransportError,
};
use crate::secret::SecretToken;

/// Why the keys could not be fetched (exit 3), or the URL could not be used (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("cannot fetch {url}: {error}")]
    Transport { url: String, error: TransportError },
    #[error("cannot fetch {url}: HTTP {status}{hint}")]
    Status {
        url: String,
        status: u16,
        hint: &'static str,
    },
    #[error("{url} is not an OpenID discovery document: {detail}")]
    Discovery { url: String, detail: String },
}

/// The fetched JWKS bytes, the URL they came from, and the discovery document
/// when one was followed.
#[derive(Debug)]
pub struct Fetched {
    pub jwks: Vec<u8>,
    pub jwks_url: Url,
    pub discovery: Option<OpenIdConfiguration>,
}

/// Fetches the JWKS at `url`, following a discovery document.
pub fn fetch(
    url: &Url,
    config: &ClientConfig,
    clock: RunClock,
    token: &SecretToken,
) -> Result<Fetched, FetchError> {
    let named = origin_client(url, config, clock)?;
    let (mut jwks_url, mut discovery) = (url.clone(), None);
    if url.path().ends_with("/.well-known/openid-configuration") {
        let doc = get(&named, url, Some(token))?;
        let bad = |detail| FetchError::Discovery {
            url: url.to_string(),
            detail,
        };
        let found = keys::parse_openid_configuration(&doc.body).map_err(|e| bad(e.to_string()))?;
        jwks_url = Url::parse(&found.jwks_uri)
            .map_err(|e| bad(format!("jwks_uri {:?} is not a URL: {e}", found.jwks_uri)))?;
        discovery = Some(found);
    }
    let jwks = if jwks_url.origin() == url.origin() {
        get(&named, &jwks_url, Some(token))?
    } else {
        // Another origin (the API server's external address): no token goes there.
        get(&origin_client(&jwks_url, config, clock)?, &jwks_url, None)?
    };
    Ok(Fetched {
        jwks: jwks.body,
        jwks_url,
        discovery,
    })
}

/// A client for `url`'s origin.
fn origin_client(
    url: &Url,
    config: &ClientConfig,
    clock: RunClock,
) -> Result<HttpClient, FetchError> {
    let base = Url::parse(&url.origin().ascii_serialization())
        .map_err(|_| ConfigError::Path(url.to_string()))?;
    Ok(HttpClient::new(&base, config, clock)?)
}

/// GET without a token; on 401/403, again with `token` if one may be sent here.
fn get(
    client: &HttpClient,
    url: &Url,
    token: Option<&SecretToken>,
) -> Result<Exchange, FetchError> {
    let request = Request::get(&url[url::Position::BeforePath..url::Position::AfterQuery]);
    let transport = |error| FetchError::Transport {
        url: url.to_string(),
        error,
    };
    let (connected, mut exchange) = client.preflight(&request).map_err(transport)?;
    let mut token_sent = false;
    if let (401 | 403, Some(token)) = (exchange.status, token) {
        exchange = connected.send(&request, Some(token)).map_err(transport)?;
        token_sent = true;
    }
    match exchange.status {
        // The keys are the body: one too large to hold is no answer.
        200 if exchange.body_over_limit => Err(transport(TransportError::BodyTooLarge {
            limit: crate::http::MAX_BODY_BYTES,
        })),
        200 => Ok(exchange),
        status => Err(FetchError::Status {
            url: url.to_string(),
            status,
            hint: match status {
                401 if token_sent => {
                    ": the token was rejected too; fetch the keys with an identity that can read them (kubectl get --raw /openid/v1/jwks > jwks.json) and pass the file"
                }
                // Only a jwks_uri on another origin is asked without the token.
                401 => {
                    ": it wants credentials, and the token is not sent to an origin other than the one named; fetch the keys with kubectl get --raw /openid/v1/jwks > jwks.json and pass the file"
                }
                403 => {
                    ": not allowed to read the keys (system:service-account-issuer-discovery); fetch them with kubectl get --raw /openid/v1/jwks > jwks.json and pass the file"
                }
                301..=308 => ": a redirect, which is not followed",
                _ => "",
            },
        }),
    }
}
