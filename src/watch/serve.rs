//! I/O: `/metrics` and `/healthz` over plain HTTP on `--listen`, the log lines
//! the measuring thread sends, and SIGTERM/SIGINT, all on one current-thread
//! runtime on the calling thread. A signal ends [`serve`] at once: the
//! measuring thread may be in the middle of a request, and nothing it holds
//! needs an orderly end (the process exits).

use std::convert::Infallible;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use prometheus_client::registry::Registry;

/// The exposition format served: OpenMetrics text, which prometheus-client
/// writes and Prometheus scrapes.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// A client has this long to send its request headers.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// When the measuring thread last finished a cycle, for `/healthz`.
#[derive(Debug)]
pub struct Heartbeat {
    origin: Instant,
    /// Milliseconds since `origin` at the last beat.
    last: AtomicU64,
    /// `/healthz` fails when no cycle ended for this long.
    stale_after: Duration,
}

impl Heartbeat {
    /// Starts now, counting as a beat (the first cycle is under way).
    pub fn new(stale_after: Duration) -> Self {
        Heartbeat {
            origin: Instant::now(),
            last: AtomicU64::new(0),
            stale_after,
        }
    }

    /// A cycle ended.
    pub fn beat(&self) {
        let ms = u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last.store(ms, Ordering::Relaxed);
    }

    fn fresh(&self) -> bool {
        let last = Duration::from_millis(self.last.load(Ordering::Relaxed));
        self.origin.elapsed().saturating_sub(last) <= self.stale_after
    }
}

fn respond(status: StatusCode, content_type: &str, body: String) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    if let Ok(value) = hyper::header::HeaderValue::from_str(content_type) {
        response
            .headers_mut()
            .insert(hyper::header::CONTENT_TYPE, value);
    }
    response
}

fn handle(
    request: &Request<Incoming>,
    registry: &Registry,
    heartbeat: &Heartbeat,
) -> Response<Full<Bytes>> {
    let text = "text/plain; charset=utf-8";
    if request.method() != hyper::Method::GET && request.method() != hyper::Method::HEAD {
        return respond(StatusCode::METHOD_NOT_ALLOWED, text, "GET only\n".into());
    }
    match request.uri().path() {
        "/metrics" => {
            let mut body = String::new();
            match prometheus_client::encoding::text::encode(&mut body, registry) {
                Ok(()) => respond(StatusCode::OK, CONTENT_TYPE, body),
                Err(_) => respond(StatusCode::INTERNAL_SERVER_ERROR, text, String::new()),
            }
        }
        "/healthz" if heartbeat.fresh() => respond(StatusCode::OK, text, "ok\n".into()),
        "/healthz" => respond(
            StatusCode::SERVICE_UNAVAILABLE,
            text,
            "no measurement cycle has ended recently\n".into(),
        ),
        _ => respond(
            StatusCode::NOT_FOUND,
            text,
            "not found: /metrics, /healthz\n".into(),
        ),
    }
}

/// Serves until SIGTERM or SIGINT, writing each log line from `logs` to `out`.
pub fn serve(
    listener: std::net::TcpListener,
    registry: Arc<Registry>,
    heartbeat: Arc<Heartbeat>,
    mut logs: tokio::sync::mpsc::UnboundedReceiver<String>,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        listener.set_nonblocking(true)?;
        let listener = tokio::net::TcpListener::from_std(listener)?;
        #[cfg(unix)]
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        let mut interrupt = std::pin::pin!(tokio::signal::ctrl_c());
        loop {
            #[cfg(unix)]
            let terminated = terminate.recv();
            #[cfg(not(unix))]
            let terminated = std::future::pending::<Option<()>>();
            tokio::select! {
                _ = terminated => return Ok(()),
                _ = &mut interrupt => return Ok(()),
                line = logs.recv() => match line {
                    Some(line) => {
                        writeln!(out, "{line}")?;
                        out.flush()?;
                    }
                    // The measuring thread is gone: only a panic ends it.
                    None => return Err(std::io::Error::other("the measuring thread stopped")),
                },
                accepted = listener.accept() => {
                    let Ok((stream, _)) = accepted else { continue };
                    let (registry, heartbeat) = (registry.clone(), heartbeat.clone());
                    let service = hyper::service::service_fn(move |request| {
                        let response = handle(&request, &registry, &heartbeat);
                        async move { Ok::<_, Infallible>(response) }
                    });
                    tokio::spawn(async move {
                        let _ = hyper::server::conn::http1::Builder::new()
                            .timer(TokioTimer::new())
                            .header_read_timeout(HEADER_TIMEOUT)
                            .serve_connection(TokioIo::new(stream), service)
                            .await;
                    });
                }
            }
        }
    })
}
