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

/// OpenMetrics text, which prometheus-client writes and Prometheus asks for.
pub const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Prometheus' older text format, for any other client (curl, promtool).
pub const TEXT_FORMAT: &str = "text/plain; version=0.0.4; charset=utf-8";

/// OpenMetrics text as Prometheus' text format 0.0.4: a counter's `# HELP` and
/// `# TYPE` name its samples' `_total` name (OpenMetrics names the family
/// without it), and `# EOF` goes. The samples themselves are the same.
pub fn to_text_format(openmetrics: &str) -> String {
    let mut counters = std::collections::HashSet::new();
    for line in openmetrics.lines() {
        if let Some(name) = line
            .strip_prefix("# TYPE ")
            .and_then(|rest| rest.strip_suffix(" counter"))
        {
            counters.insert(name);
        }
    }
    let mut out = String::with_capacity(openmetrics.len());
    for line in openmetrics.lines() {
        if line == "# EOF" || line.starts_with("# UNIT ") {
            continue;
        }
        let renamed = ["# HELP ", "# TYPE "].iter().find_map(|prefix| {
            let rest = line.strip_prefix(prefix)?;
            let (name, tail) = rest.split_once(' ')?;
            counters
                .contains(name)
                .then(|| format!("{prefix}{name}_total {tail}"))
        });
        out.push_str(renamed.as_deref().unwrap_or(line));
        out.push('\n');
    }
    out
}

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
            let openmetrics = request
                .headers()
                .get(hyper::header::ACCEPT)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.contains("application/openmetrics-text"));
            match prometheus_client::encoding::text::encode(&mut body, registry) {
                Ok(()) if openmetrics => respond(StatusCode::OK, OPENMETRICS, body),
                Ok(()) => respond(StatusCode::OK, TEXT_FORMAT, to_text_format(&body)),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_are_named_by_their_samples_in_the_text_format() {
        let om = "# HELP satoken_cycles Cycles.\n# TYPE satoken_cycles counter\nsatoken_cycles_total 5\n# HELP satoken_replicas Replicas.\n# TYPE satoken_replicas gauge\nsatoken_replicas 3\n# EOF\n";
        assert_eq!(
            to_text_format(om),
            "# HELP satoken_cycles_total Cycles.\n# TYPE satoken_cycles_total counter\nsatoken_cycles_total 5\n# HELP satoken_replicas Replicas.\n# TYPE satoken_replicas gauge\nsatoken_replicas 3\n"
        );
    }
}
