//! Shell prompts and the commands typed after them: a command starts a new
//! request (answers on either side of it are different answers), and a curl
//! or wget command line names the URL and whether an `Authorization` header
//! was passed at all. `cat: …/token: No such file` in the same paste means
//! the header carried nothing.

use super::super::facts::BearerSeen;
use crate::vocabulary::cues::PROMPT_PROGRAMS;

/// A command typed at a prompt (or a bare command line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandLine<'a> {
    pub program: &'a str,
    /// The command, without the prompt.
    pub line: &'a str,
}

/// The command on `text`, if it is a prompt followed by a known program, or a
/// line starting with one (`curl -k https://…`, `kubectl get pods`).
pub fn command(text: &str) -> Option<CommandLine<'_>> {
    let t = text.trim();
    let after_prompt = prompt_end(t).map_or(t, |i| t[i..].trim_start());
    let word = after_prompt.split_whitespace().next()?;
    let program = word.rsplit('/').next().unwrap_or(word);
    if !PROMPT_PROGRAMS.contains(&program) && !program.starts_with("kubectl-") {
        return None;
    }
    // A bare line must look like a command (flags or arguments follow).
    if after_prompt.len() == t.len() && !after_prompt[word.len()..].starts_with(' ') {
        return None;
    }
    Some(CommandLine {
        program,
        line: after_prompt,
    })
}

/// Where a shell prompt ends: `user@host:dir$ `, `[root@host dir]# `, `$ `,
/// `# `, `> `, `PS C:\dir> `, `path # ` (busybox), `host ~ (branch) $ `.
fn prompt_end(t: &str) -> Option<usize> {
    let head = &t[..t.floor_char_boundary(160)];
    for marker in ["$ ", "# ", "> "] {
        if let Some(i) = head.find(marker) {
            let before = &head[..i];
            let plausible = before.is_empty()
                || before.contains('@')
                || before.starts_with(['[', '/'])
                || before.starts_with("PS ")
                || before.ends_with(['~', ')', ':']);
            if plausible && !before.contains(['"', '=']) {
                return Some(i + marker.len());
            }
        }
    }
    None
}

/// For a curl or wget command: whether it passes an `Authorization` header
/// (or client certificate); `Some(Absent)` when it passes no credentials.
pub fn credentials(cmd: &CommandLine<'_>) -> Option<BearerSeen> {
    if !matches!(cmd.program, "curl" | "wget") {
        return None;
    }
    let l = cmd.line.to_ascii_lowercase();
    let passes = l.contains("authorization") || l.contains("--oauth2-bearer") || no_header(&l);
    (!passes).then_some(BearerSeen::Absent)
}

/// Whether a lower-cased command line passes credentials that are no
/// `Authorization` header: a client certificate, basic auth.
fn no_header(l: &str) -> bool {
    ["--cert", " -e ", "--user ", " -u "]
        .iter()
        .any(|flag| l.contains(flag))
}

/// For a curl command: whether it passes credentials that are no
/// `Authorization` header (a client certificate, basic auth), which curl's
/// `-v` request lines do not show.
pub fn other_credentials(cmd: &CommandLine<'_>) -> bool {
    let l = cmd.line.to_ascii_lowercase();
    !l.contains("authorization") && no_header(&l)
}

/// `cat: can't open '…/token': No such file or directory`: the token the
/// command meant to send was empty.
pub fn token_file_missing(text: &str) -> bool {
    text.starts_with("cat: ")
        && text.contains("token")
        && (text.contains("No such file") || text.contains("can't open"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_and_commands() {
        for (line, program) in [
            (
                "root@authpod:/# curl --cacert ca.crt https://kubernetes.default/api",
                "curl",
            ),
            (
                "[root@km01 nginx]# kubectl create -f pod-nginx.yaml",
                "kubectl",
            ),
            ("$ kubectl get pods", "kubectl"),
            ("PS C:\\Users\\dee> kubectl logs quick-start", "kubectl"),
            (
                "/var/run/secrets/kubernetes.io/serviceaccount # wget --header x https://h/metrics",
                "wget",
            ),
            (
                "hwang8@intuitdep88fe9 argo (master) $ k logs -f workflow-controller",
                "k",
            ),
            (
                " curl --cacert /etc/pki/ca.pem https://10.0.0.1:6443",
                "curl",
            ),
            ("# journalctl -f -u kubelet.service", "journalctl"),
            ("> kubectl version", "kubectl"),
            ("/usr/bin/curl -k https://10.0.0.1:6443/api", "curl"),
        ] {
            assert_eq!(command(line).map(|c| c.program), Some(program), "{line}");
        }
        for line in [
            "Error from server (Forbidden): x",
            "curl: (7) Failed to connect",
            "the kubectl binary",
            "msg=\"$ kubectl\"",
            "/usr/bin/curl",
        ] {
            assert_eq!(command(line), None, "{line}");
        }
        let c = command(" curl --cacert /etc/pki/ca.pem https://10.0.0.1:6443").unwrap();
        assert_eq!(credentials(&c), Some(BearerSeen::Absent));
        let c = command("$ curl -H \"Authorization: Bearer $T\" https://h").unwrap();
        assert_eq!(credentials(&c), None);
    }
}
