//! Unit tests of `crate::diagnosis::extract`.

use super::*;
use crate::diagnosis::facts::BindingKind;

/// The instant the tests read year-less stamps against.
pub(super) fn now() -> DateTime<Utc> {
    crate::timefmt::parse_instant("2026-01-01T00:00:00Z").unwrap()
}

fn kinds(text: &str) -> Vec<(usize, Kind)> {
    Scanner::new(text, now())
        .map(|a| (a.at.line, a.kind))
        .collect()
}

/// The transport failures found, with their line numbers.
fn transport_causes(text: &str) -> Vec<(usize, Cause)> {
    kinds(text)
        .into_iter()
        .filter_map(|(n, k)| match k {
            Kind::Transport(t) => Some((n, t.cause)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_traceback_s_source_lines_are_not_output() {
    let text = "Traceback (most recent call last):\n  File \"/usr/lib/python3/site-packages/requests/adapters.py\", line 727, in send\n    raise SSLError(e, request=request)\n    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\nrequests.exceptions.SSLError: HTTPSConnectionPool(host='127.0.0.1', port=6443): Max retries exceeded with url: /api (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate (_ssl.c:1006)')))\n";
    assert_eq!(transport_causes(text), [(5, Cause::TlsUntrustedCa)]);
}

/// Node prints a failed `fetch` with its cause below it, and the cause's
/// `code` property below that: one failure, found once.
#[test]
fn node_s_fetch_failure_is_one_transport_failure() {
    let text = "TypeError: fetch failed\n    at async file:///app/list-pods.mjs:25:11 {\n  [cause]: Error: connect ECONNREFUSED 10.0.0.1:6443\n      at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1637:16) {\n    errno: -111,\n    code: 'ECONNREFUSED',\n    syscall: 'connect'\n  }\n}\n";
    assert_eq!(transport_causes(text), [(3, Cause::ConnectionRefused)]);
}

#[test]
fn a_pretty_status_after_a_prompt() {
    let text = "$ curl -k https://h/api/v1/namespaces/default/services\n{\n  \"kind\": \"Status\",\n  \"metadata\": {\n    \n  },\n  \"message\": \"services is forbidden: User \\\"system:anonymous\\\" cannot list\",\n  \"reason\": \"Forbidden\",\n  \"code\": 403\n}root@pod:/# curl https://h/x\n";
    let k = kinds(text);
    assert!(matches!(k[0].1, Kind::Boundary));
    let http: Vec<_> = k
        .iter()
        .filter_map(|(n, k)| match k {
            Kind::Http(h) => Some((*n, h.status)),
            _ => None,
        })
        .collect();
    assert_eq!(http, [(2, Some(403))]);
    // The command glued after the closing brace starts the next request.
    let boundaries = k.iter().filter(|(_, k)| matches!(k, Kind::Boundary));
    assert_eq!(boundaries.count(), 2);
}

#[test]
fn escaped_and_wrapped_and_dumped() {
    let k = kinds(
        r#"time="2019-11-25T16:30:34Z" level=error msg="namespaces is forbidden: User \"system:serviceaccount:kube-system:pdb\" cannot list resource \"namespaces\" in API group \"\" at the cluster scope""#,
    );
    let Some((_, Kind::Http(h))) = k.first() else {
        panic!("{k:?}")
    };
    assert_eq!(h.status, Some(403));
    assert!(
        h.message
            .as_deref()
            .unwrap()
            .ends_with("at the cluster scope")
    );
    let text = "│ x I0204 20:02:58.118029 1 request.go:1154] Response Body: {\"kind\":\"Status\",\"message\":\"tokenreviews.authentication.k8s.io is forbidden: User \\\"sys │\n│ tem:serviceaccount:r:o\\\" cannot create resource \\\"tokenreviews\\\" in API group \\\"authentication.k8s.io\\\" at the cluster scope\",\"code\":403}           │\n";
    let k = kinds(text);
    assert!(
        k.iter()
            .any(|(_, k)| matches!(k, Kind::CheckerFailure(f) if f.call == CheckerCall::Refused)),
        "{k:?}"
    );
    let text = "Oct 10 10:11:38 n kubelet[1]: 00000460  48 5b 69 6e 76 61 6c 69  64 20 62 65 61 72 65 72  |H[invalid bearer|\nOct 10 10:11:38 n kubelet[1]: 00000470  20 74 6f 6b 65 6e 2c 20  73 71 75 61 72 65 2f 67  | token, square/g|\nOct 10 10:11:38 n kubelet[1]: 00000480  6f 2d 6a 6f 73 65 3a 20  65 72 72 6f 72 20 69 6e  |o-jose: error in|\nOct 10 10:11:38 n kubelet[1]: 00000490  20 63 72 79 70 74 6f 67  72 61 70 68 69 63 20 70  | cryptographic p|\nOct 10 10:11:38 n kubelet[1]: 000004a0  72 69 6d 69 74 69 76 65  5d 1a 00 22 00           |rimitive]..\".|\n";
    let k = kinds(text);
    assert!(
        k.iter()
            .any(|(_, k)| matches!(k, Kind::Reasons { reasons, .. } if reasons.len() == 2)),
        "{k:?}"
    );
}

#[test]
fn server_logs_are_clues() {
    let k = kinds(
        r#"E0101 00:00:00.000000 1 tokens_controller.go:1] secrets "default-token-x" not found"#,
    );
    assert!(
        matches!(&k[0].1, Kind::Missing { kind: BindingKind::Secret, name } if name == "default-token-x"),
        "{k:?}"
    );
    let k = kinds(
        "Mar 26 16:23:32 h microk8s.daemon-apiserver[1]: I0326 16:23:32.570409 1 log.go:172] http: TLS handshake error from 1.2.3.4:34010: remote error: tls: bad certificate",
    );
    assert!(matches!(&k[0].1, Kind::Note(_)), "{k:?}");
}

#[test]
fn near_misses_say_what_was_seen() {
    let mut s = Scanner::new("the deploy failed with 401 somewhere\n", now());
    assert!(s.next().is_none());
    assert_eq!(s.near_miss().unwrap().try_type, Some(SourceType::Status));
}

/// An exec plugin that exited non-zero failed for the reason it printed
/// before: a cloud's refusal there is the answer, the exit only a result.
#[test]
fn a_plugin_s_exit_after_a_refusal_is_not_a_failure_of_its_own() {
    let exit = "Unable to connect to the server: getting credentials: exec: executable aws failed with exit code 255";
    let failures = |text: &str| -> Vec<usize> {
        kinds(text)
            .into_iter()
            .filter_map(|(n, k)| matches!(k, Kind::ServerFailure(_)).then_some(n))
            .collect()
    };
    assert_eq!(failures(exit), [1]);
    // Before 1.19 (Go's ExitError), and a plugin that printed no ExecCredential.
    for other in [
        "Unable to connect to the server: getting credentials: exec: exit status 1",
        r#"Unable to connect to the server: getting credentials: decoding stdout: no kind "ExecCredential" is registered for version "client.authentication.k8s.io/v1alpha1" in scheme "pkg/client/auth/exec/exec.go:62""#,
    ] {
        assert_eq!(failures(other), [1], "{other}");
    }
    let refused = format!(
        "An error occurred (AccessDenied) when calling the AssumeRole operation: Roles may not be assumed by root accounts.\n{exit}\n"
    );
    assert_eq!(failures(&refused), Vec::<usize>::new());
}

/// The Python client's stream calls (exec, port-forward) raise
/// `ApiException(status=0, reason=str(e))`: under `(0)` the reason line is
/// the failure itself, a refused upgrade's status or a transport failure.
#[test]
fn python_s_status_zero_carries_the_failure_in_its_reason() {
    let status = |text: &str| {
        kinds(text).into_iter().find_map(|(_, k)| match k {
            Kind::Http(h) => h.status,
            _ => None,
        })
    };
    let head = "kubernetes.client.exceptions.ApiException: (0)\n";
    assert_eq!(
        status(&format!(
            "{head}Reason: Handshake status 401 Unauthorized\n"
        )),
        Some(401)
    );
    for (reason, cause) in [
        ("[Errno 111] Connection refused", Cause::ConnectionRefused),
        (
            "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate (_ssl.c:1006)",
            Cause::TlsUntrustedCa,
        ),
    ] {
        assert_eq!(
            transport_causes(&format!("{head}Reason: {reason}\n")),
            [(2, cause)],
            "{reason}"
        );
    }
}

/// client-go 1.31+ logs a reflector's failure through HandleError as a
/// structured line: the error is a quoted value with keys after it.
#[test]
fn a_structured_klog_error_ending_in_unauthorized_is_a_401() {
    for line in [
        r#"E1207 12:00:00.000000       1 reflector.go:158] "Unhandled Error" err="k8s.io/client-go@v0.31.0/tools/cache/reflector.go:243: Failed to watch *v1.Pod: failed to list *v1.Pod: Unauthorized" logger="UnhandledError""#,
        r#"E1207 12:00:00.000000       1 reflector.go:166] "Failed to watch" err="failed to list *v1.Pod: Unauthorized" logger="UnhandledError" reflector="k8s.io/client-go/informers/factory.go:160" type="*v1.Pod""#,
    ] {
        let k = kinds(line);
        assert!(
            k.iter()
                .any(|(_, k)| matches!(k, Kind::Http(h) if h.status == Some(401))),
            "{line}: {k:?}"
        );
    }
}

/// A JSON log record's status field is the number it holds, labelled as the
/// record's: its key (`status_code`) names no client.
#[test]
fn a_json_record_s_status_field_is_the_record_s() {
    let line = r#"{"level":"error","msg":"request failed","status_code":401}"#;
    let found: Vec<_> = Scanner::new(line, now()).collect();
    assert!(
        found.iter().any(
            |a| matches!(&a.kind, Kind::Http(h) if h.status == Some(401))
                && a.at.format == "json-log"
        ),
        "{found:?}"
    );
}

/// Every watch URL carries `timeoutSeconds=`: the query parameter is no pod
/// spec's field, and the failure after it is read.
#[test]
fn a_watch_url_s_timeout_parameter_hides_no_failure() {
    let text = "E0322 15:04:19.120993    3455 reflector.go:307] k8s.io/client-go/informers/factory.go:135: Failed to watch *v1.Service: Get https://localhost:8443/api/v1/services?resourceVersion=1&timeoutSeconds=371&watch=true: dial tcp 127.0.0.1:8443: connect: connection refused\n";
    assert_eq!(transport_causes(text), [(1, Cause::ConnectionRefused)]);
    assert!(transport_causes("readinessProbe: {timeoutSeconds: 28}\n").is_empty());
}
