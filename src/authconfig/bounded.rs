//! The second line behind CEL's static estimate: every evaluation runs in a
//! child process (this binary again, [`CHILD_ARGUMENT`]) under an address
//! space limit ([`MEMORY_BOUND`]) and a CPU limit, and is killed at a deadline
//! tied to `--timeout`. Whatever a configuration file holds, an allocation it
//! makes fails in the child, not here, and no evaluation outlasts the bound.
//! Without a binary to start (the library's own tests), evaluation runs in
//! this process, bounded by the estimate alone.

use std::io::{Read as _, Write as _};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use cel::Value;
use cel::objects::{Key, Map as CelMap};
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use super::cel::{Input, Outcome, execute};

/// The hidden first argument that makes this binary a CEL evaluator.
pub const CHILD_ARGUMENT: &str = "__evaluate-cel";
/// The child's address space: the binary, its stack and what an expression
/// may build (kube-apiserver's per-call limit is a tenth of a second's work).
pub const MEMORY_BOUND: u64 = 256 << 20;
/// The most of a value read back from the child.
const MAX_ANSWER_BYTES: u64 = 1 << 20;

/// Where this binary is, once `main` said evaluations may run in a child.
static EXECUTABLE: OnceLock<PathBuf> = OnceLock::new();
/// How long all of this run's evaluations may take together (`--timeout`).
static TIME_BOUND: Mutex<Duration> = Mutex::new(crate::http::DEFAULT_TIMEOUT);
/// When that time runs out, counted from the first evaluation.
static DEADLINE: OnceLock<Instant> = OnceLock::new();

/// Evaluations run in a child process started from `executable`.
pub fn isolate_in(executable: PathBuf) {
    let _ = EXECUTABLE.set(executable);
}

/// All evaluations together take at most `bound` (`verify --timeout`).
pub fn set_time_bound(bound: Duration) {
    if let Ok(mut b) = TIME_BOUND.lock() {
        *b = bound;
    }
}

#[derive(Serialize, Deserialize)]
struct Request {
    source: String,
    name: String,
    value: Json,
}

/// A CEL value across the pipe, with its type (an int stays an int).
#[derive(Serialize, Deserialize)]
enum Wire {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(u64),
    String(String),
    Bytes(Vec<u8>),
    List(Vec<Wire>),
    Map(Vec<(Wire, Wire)>),
    Other(String),
}

fn to_wire(v: &Value) -> Wire {
    match v {
        Value::Null => Wire::Null,
        Value::Bool(b) => Wire::Bool(*b),
        Value::Int(i) => Wire::Int(*i),
        Value::UInt(u) => Wire::UInt(*u),
        Value::Float(f) => Wire::Float(f.to_bits()),
        Value::String(s) => Wire::String(s.as_str().to_owned()),
        Value::Bytes(b) => Wire::Bytes(b.to_vec()),
        Value::List(l) => Wire::List(l.iter().map(to_wire).collect()),
        Value::Map(m) => Wire::Map(
            m.map
                .iter()
                .map(|(k, v)| (to_wire(&Value::from(k.clone())), to_wire(v)))
                .collect(),
        ),
        other => Wire::Other(format!("{other:?}")),
    }
}

fn from_wire(w: Wire) -> Result<Value, String> {
    Ok(match w {
        Wire::Null => Value::Null,
        Wire::Bool(b) => Value::Bool(b),
        Wire::Int(i) => Value::Int(i),
        Wire::UInt(u) => Value::UInt(u),
        Wire::Float(f) => Value::Float(f64::from_bits(f)),
        Wire::String(s) => Value::String(Arc::new(s)),
        Wire::Bytes(b) => Value::Bytes(Arc::new(b)),
        Wire::List(l) => Value::List(Arc::new(
            l.into_iter().map(from_wire).collect::<Result<_, _>>()?,
        )),
        Wire::Map(entries) => {
            let mut map = std::collections::HashMap::with_capacity(entries.len());
            for (k, v) in entries {
                let key = match from_wire(k)? {
                    Value::Int(i) => Key::Int(i),
                    Value::UInt(u) => Key::Uint(u),
                    Value::Bool(b) => Key::Bool(b),
                    Value::String(s) => Key::String(s),
                    _ => return Err("a map key CEL does not have".to_owned()),
                };
                map.insert(key, from_wire(v)?);
            }
            Value::Map(CelMap::from(map))
        }
        Wire::Other(what) => return Err(format!("it gives {what}, not a value this tool reads")),
    })
}

/// Evaluates `source` with the variable in `input` bound: refused by the
/// static bounds, or run under the run-time ones, in a child process when
/// `main` allowed one, else here.
pub fn evaluate(source: &str, input: &Input<'_>) -> Outcome {
    let refused = super::cel::refusal(source, input).map(Outcome::NotEvaluated);
    refused.unwrap_or_else(|| match EXECUTABLE.get() {
        Some(exe) => in_child(exe, source, input),
        None => execute(source, input),
    })
}

fn in_child(exe: &PathBuf, source: &str, input: &Input<'_>) -> Outcome {
    let bound = TIME_BOUND
        .lock()
        .map_or(crate::http::DEFAULT_TIMEOUT, |b| *b);
    let deadline = *DEADLINE.get_or_init(|| Instant::now() + bound);
    let spent = || {
        Outcome::NotEvaluated(format!(
            "it ran past the time bound on CEL ({}, --timeout) and was stopped",
            humantime::format_duration(bound)
        ))
    };
    if Instant::now() >= deadline {
        return spent();
    }
    let request = serde_json::to_vec(&Request {
        source: source.to_owned(),
        name: input.name.to_owned(),
        value: input.value.clone(),
    })
    .unwrap_or_default();
    let cpu_seconds = bound.as_secs().saturating_add(1);
    let child = Command::new(exe)
        .arg(CHILD_ARGUMENT)
        .arg(cpu_seconds.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .env_clear()
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return Outcome::NotEvaluated(format!("its evaluator could not start: {e}")),
    };
    let (stdin, stdout) = (child.stdin.take(), child.stdout.take());
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || {
            if let Some(mut stdin) = stdin {
                let _ = stdin.write_all(&request);
            }
            let mut answer = Vec::new();
            if let Some(stdout) = stdout {
                let _ = stdout.take(MAX_ANSWER_BYTES + 1).read_to_end(&mut answer);
            }
            answer
        });
        let status = wait_until(&mut child, deadline);
        let answer = reader.join().unwrap_or_default();
        match status {
            None => spent(),
            Some(_) if answer.len() as u64 > MAX_ANSWER_BYTES => Outcome::NotEvaluated(format!(
                "its value is over the {} MiB bound on what is read back",
                MAX_ANSWER_BYTES >> 20
            )),
            Some(status) if !status.success() => Outcome::NotEvaluated(format!(
                "it was stopped at the run-time bound on CEL ({} MiB of memory, {})",
                MEMORY_BOUND >> 20,
                humantime::format_duration(bound)
            )),
            Some(_) => match serde_json::from_slice::<Outcome<Wire>>(&answer) {
                Ok(Outcome::Value(w)) => from_wire(w).map_or_else(Outcome::Error, Outcome::Value),
                Ok(Outcome::Error(e)) => Outcome::Error(e),
                Ok(Outcome::NotEvaluated(e)) => Outcome::NotEvaluated(e),
                Err(_) => Outcome::NotEvaluated("its evaluator gave no answer".to_owned()),
            },
        }
    })
}

/// The child's exit status, or `None` when it was killed at `deadline`.
fn wait_until(
    child: &mut std::process::Child,
    deadline: Instant,
) -> Option<std::process::ExitStatus> {
    let mut pause = Duration::from_micros(50);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(pause.min(deadline.saturating_duration_since(Instant::now())));
                pause = (pause * 2).min(Duration::from_millis(5));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

/// The child: `kubectl-satoken __evaluate-cel CPU_SECONDS`, a request on
/// stdin, the answer on stdout. Limits first, then nothing but the work.
pub fn child_main(args: &[std::ffi::OsString]) -> ExitCode {
    let cpu = args
        .get(2)
        .and_then(|a| a.to_str())
        .and_then(|a| a.parse::<u64>().ok())
        .unwrap_or(1);
    if !limit(cpu) {
        return ExitCode::from(3);
    }
    let mut request = Vec::new();
    if std::io::stdin().read_to_end(&mut request).is_err() {
        return ExitCode::from(2);
    }
    let Ok(request) = serde_json::from_slice::<Request>(&request) else {
        return ExitCode::from(2);
    };
    let name = if request.name == "user" {
        "user"
    } else {
        "claims"
    };
    let answer = match execute(
        &request.source,
        &Input {
            name,
            value: &request.value,
        },
    ) {
        Outcome::Value(v) => Outcome::Value(to_wire(&v)),
        Outcome::Error(e) => Outcome::Error(e),
        Outcome::NotEvaluated(e) => Outcome::NotEvaluated(e),
    };
    let mut out = std::io::stdout().lock();
    let written = serde_json::to_writer(&mut out, &answer).is_ok() && out.flush().is_ok();
    if written {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Sets the child's limits: address space, CPU seconds, no core file, no
/// files written. False when the system refuses one.
#[cfg(unix)]
fn limit(cpu_seconds: u64) -> bool {
    let set = |resource, value: u64| {
        let limit = libc::rlimit {
            rlim_cur: value as libc::rlim_t,
            rlim_max: value as libc::rlim_t,
        };
        // SAFETY: setrlimit reads the struct it is given and nothing else.
        unsafe { libc::setrlimit(resource, &limit) == 0 }
    };
    set(libc::RLIMIT_CORE, 0)
        && set(libc::RLIMIT_FSIZE, 0)
        && set(libc::RLIMIT_CPU, cpu_seconds)
        && set(libc::RLIMIT_AS, MEMORY_BOUND)
}

#[cfg(not(unix))]
fn limit(_cpu_seconds: u64) -> bool {
    true
}
