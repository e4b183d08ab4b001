//! I/O: each `--server`'s clock from the `Date` headers of a few token-less
//! `GET /version` requests (the interval arithmetic is `probe::offset`).
//! Servers are asked a few at a time.

use url::Url;

use crate::http::{ClientConfig, ConfigError, HttpClient, Request, RunClock, TransportError};
use crate::probe::offset::{self, DateSample, OffsetInterval};

/// Requests per server: more samples narrow the interval; three keep it quick.
const SAMPLES: usize = 3;

/// What one server's clock looked like.
#[derive(Debug)]
pub enum ServerClock {
    /// Its clock minus the reference clock, as an interval.
    Measured(OffsetInterval),
    /// It answered, but without a `Date` header.
    NoDate,
    /// It answered with a `Date` header that is not an HTTP date (as sent).
    BadDate(String),
    /// No HTTP answer (network or TLS).
    Unreachable(TransportError),
}

/// Measures every server; a bad URL or TLS setting is an error for the whole run.
pub fn measure(
    servers: &[Url],
    config: &ClientConfig,
    clock: RunClock,
) -> Result<Vec<(Url, ServerClock)>, ConfigError> {
    let clients: Vec<HttpClient> = servers
        .iter()
        .map(|url| HttpClient::new(url, config, clock))
        .collect::<Result<_, _>>()?;
    let measured = crate::probe::endpoints::each_bounded(&clients, measure_one);
    let failed =
        || ServerClock::Unreachable(TransportError::Other("measurement thread failed".into()));
    Ok(servers
        .iter()
        .cloned()
        .zip(measured.into_iter().map(|m| m.unwrap_or_else(failed)))
        .collect())
}

fn measure_one(client: &HttpClient) -> ServerClock {
    let mut samples = Vec::new();
    let mut malformed = None;
    for _ in 0..SAMPLES {
        match client.send(&Request::get("/version")) {
            Ok(exchange) => match DateSample::of(&exchange) {
                Some(sample) => samples.push(sample),
                None => malformed = malformed.or(exchange.date_header),
            },
            Err(e) if samples.is_empty() => return ServerClock::Unreachable(e),
            Err(_) => break,
        }
    }
    match (offset::estimate(&samples), malformed) {
        (Some(interval), _) => ServerClock::Measured(interval),
        (None, Some(raw)) => ServerClock::BadDate(raw),
        (None, None) => ServerClock::NoDate,
    }
}
