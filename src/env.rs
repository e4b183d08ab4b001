//! The environment, sampled once at start-up (ripgrep's `State::new`): terminal
//! facts and variables. Everything downstream receives these values instead of
//! asking the process again.

use std::io::IsTerminal as _;

#[derive(Debug, Clone, Default)]
pub struct Env {
    pub stdout_tty: bool,
    pub stderr_tty: bool,
    /// Stdin is a file, pipe or socket: input was given. A terminal or `/dev/null`
    /// (a pod's usual stdin) is not input.
    pub stdin_readable: bool,
    /// `NO_COLOR` set and non-empty (no-color.org).
    pub no_color: bool,
    pub term_dumb: bool,
    /// Width of the terminal on stdout, if it is one.
    pub terminal_width: Option<u16>,
    /// `COLUMNS`, if set to a number.
    pub columns: Option<u16>,
    /// `KUBERNETES_SERVICE_HOST`: the API server as a pod sees it.
    pub kubernetes_service_host: Option<String>,
    pub kubernetes_service_port: Option<String>,
    /// `KUBECONFIG`: colon-separated kubeconfig files (client-go's list).
    pub kubeconfig: Option<String>,
    /// `HOME`, for `~/.kube/config`.
    pub home: Option<std::path::PathBuf>,
}

impl Env {
    pub fn capture() -> Self {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        let text = |name: &str| var(name).and_then(|v| v.into_string().ok());
        let stdout_tty = std::io::stdout().is_terminal();
        Env {
            stdout_tty,
            stderr_tty: std::io::stderr().is_terminal(),
            stdin_readable: stdin_is_readable(),
            no_color: var("NO_COLOR").is_some(),
            term_dumb: var("TERM").is_some_and(|t| t == "dumb"),
            terminal_width: stdout_tty
                .then(|| terminal_size::terminal_size().map(|(w, _)| w.0))
                .flatten(),
            columns: var("COLUMNS").and_then(|c| c.to_str()?.parse().ok()),
            kubernetes_service_host: text("KUBERNETES_SERVICE_HOST"),
            kubernetes_service_port: text("KUBERNETES_SERVICE_PORT"),
            kubeconfig: text("KUBECONFIG"),
            home: var("HOME").map(std::path::PathBuf::from),
        }
    }

    /// This environment with stdin not read for the token when `elsewhere`
    /// (stdin holds other input, or was found empty).
    pub fn without_stdin_if(&self, elsewhere: bool) -> Env {
        Env {
            stdin_readable: self.stdin_readable && !elsewhere,
            ..self.clone()
        }
    }
}

#[cfg(unix)]
fn stdin_is_readable() -> bool {
    use std::os::fd::AsFd as _;
    use std::os::unix::fs::FileTypeExt as _;
    let fd = std::io::stdin().as_fd().try_clone_to_owned();
    fd.and_then(|fd| std::fs::File::from(fd).metadata())
        .is_ok_and(|meta| {
            let kind = meta.file_type();
            kind.is_file() || kind.is_fifo() || kind.is_socket()
        })
}

#[cfg(not(unix))]
fn stdin_is_readable() -> bool {
    !std::io::stdin().is_terminal()
}
