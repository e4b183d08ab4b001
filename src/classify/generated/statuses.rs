//! Generated, not collected: every answer kube-apiserver (or client-go, for
//! a bodiless answer) can word, printed the way every client prints it, is
//! classified by its status; and numbers that are not statuses never are.

use super::super::*;
use super::ctx;
use crate::diagnosis::{Cause, Classification};
use crate::vocabulary::apimachinery::{self, GENERIC, TEMPLATES, Template};
use crate::vocabulary::clients::{
    GO_JSON_PLAIN_BODY, JACKSON_PLAIN_BODY, Parts, RENDERINGS, Rendering, UPGRADE_PLAIN_BODY,
};
use crate::vocabulary::cues::STATUS_TEXTS;

/// A template's words with example values in its placeholders.
fn instantiate(t: &Template) -> String {
    const VALUES: &[(&str, &str)] = &[
        ("{resource}", "serviceaccounts"),
        ("{name}", "default"),
        (
            "{err}",
            "the object has been modified; please apply your changes to the latest version and try again",
        ),
        ("{message}", "the request could not be served"),
        ("{kind}", "ServiceAccount"),
        ("{field}", "metadata.name"),
        ("{value}", "\"Default\""),
        (
            "{detail}",
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters",
        ),
        ("{verb}", "deletecollection"),
        ("{operation}", "get"),
    ];
    VALUES
        .iter()
        .fold(t.text.to_owned(), |text, (k, v)| text.replace(k, v))
}

/// `r`'s printing of `t`.
fn rendered(t: &Template, r: &Rendering) -> String {
    let status = apimachinery::http_status(t.code).unwrap();
    let message = instantiate(t);
    r.render(&Parts {
        code: t.code,
        reason: t.reason,
        phrase: status.phrase,
        dotnet: status.dotnet,
        message: &message,
        verb: "GET",
        url: "https://10.0.0.1:6443/api/v1/namespaces/a/serviceaccounts/default",
    })
}

/// The log prefilter keeps what the engine reads: every rendering of every
/// template, cut to the lines the prefilter passes, reads as the whole does.
#[test]
fn the_log_prefilter_keeps_every_rendering_of_every_template() {
    let mut lost = Vec::new();
    for t in TEMPLATES.iter().chain(GENERIC) {
        for r in RENDERINGS {
            let text = rendered(t, r);
            let kept: Vec<&str> = text
                .lines()
                .filter(|l| crate::classify::prefilter::candidate(l.as_bytes()))
                .collect();
            let read = |text: &str| {
                classify(text, None, ctx()).ok().map(|report| {
                    let d = &report.results[0].diagnosis;
                    (d.classification, d.cause())
                })
            };
            if read(&text) != read(&kept.join("\n")) {
                lost.push(format!("{} × {}:\n{text}", t.by, r.client));
            }
        }
    }
    assert!(lost.is_empty(), "{} lost:\n{}", lost.len(), lost.join("\n"));
}

/// What a rendering of `t` by `r` reads as, or why it does not.
fn read(t: &Template, r: &Rendering) -> Result<(Classification, Cause), String> {
    let text = rendered(t, r);
    let report = classify(&text, None, ctx()).map_err(|e| format!("{e}\n{text}"))?;
    let d = &report.results[0].diagnosis;
    Ok((d.classification, d.cause()))
}

/// The cause the status alone fixes, whoever words it.
fn cause_of(code: u16) -> Option<Cause> {
    match code {
        429 => Some(Cause::Throttled),
        500..=599 => Some(Cause::ServerError),
        // Not found, conflicts, invalid objects: the token was accepted.
        400 | 404 | 405 | 406 | 409 | 410 | 413 | 415 | 422 => None,
        _ => None,
    }
}

#[test]
fn every_template_in_every_client_s_rendering_reads_as_its_status() {
    let mut wrong = Vec::new();
    let mut read_count = 0;
    for t in TEMPLATES.iter().chain(GENERIC) {
        for r in RENDERINGS {
            // A client that prints the message alone says what the words say.
            if !r.states_status && !t.distinctive {
                continue;
            }
            read_count += 1;
            let want = Classification::from_status(t.code);
            match read(t, r) {
                Ok((class, cause)) => {
                    let cause_ok = match cause_of(t.code) {
                        Some(c) => cause == c,
                        None if t.code == 404 => {
                            matches!(
                                cause,
                                Cause::ObjectNotFound | Cause::ApiNotServed | Cause::Unknown
                            )
                        }
                        // 409, 410, 422…: never a token's fault.
                        None => {
                            t.code < 400
                                || t.code == 401
                                || t.code == 403
                                || cause == Cause::Unknown
                        }
                    };
                    if class != want || !cause_ok {
                        wrong.push(format!(
                            "{} × {}: {class:?} {cause:?}, want {want:?} {:?}",
                            t.by,
                            r.client,
                            cause_of(t.code)
                        ));
                    }
                }
                Err(e) => wrong.push(format!("{} × {}: {e}", t.by, r.client)),
            }
        }
    }
    assert!(read_count > 300, "{read_count}");
    assert!(
        wrong.is_empty(),
        "{} of {read_count}:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// An old Java client reading a plain-text body as JSON quotes its word.
#[test]
fn a_json_parser_s_complaint_about_a_plain_body_names_the_status() {
    for (code, want) in [
        (401, Classification::Unauthorized),
        (403, Classification::Forbidden),
    ] {
        let t = TEMPLATES.iter().find(|t| t.code == code).unwrap();
        assert_eq!(read(t, &JACKSON_PLAIN_BODY).unwrap().0, want);
    }
    for body in apimachinery::PLAIN_BODIES {
        let want = Classification::from_status(body.code);
        assert_eq!(
            read(body, &GO_JSON_PLAIN_BODY).unwrap().0,
            want,
            "{}",
            body.text
        );
    }
}

/// `kubectl exec` (attach, port-forward, cp) whose upgrade is answered with
/// a plain-text body: a reason phrase alone (Go's `http.Error` with its
/// status text), or a body kube-apiserver or the kubelet writes, is read as
/// its status, as kubectl prints it.
#[test]
fn a_failed_upgrade_s_plain_body_names_the_status() {
    let phrases = apimachinery::HTTP_STATUSES.iter().filter(|s| s.code >= 400);
    let bodies = apimachinery::PLAIN_BODIES
        .iter()
        .chain(apimachinery::KUBELET_BODIES);
    let bodies = bodies.map(|b| (instantiate(b), b.code));
    let wrong: Vec<String> = phrases
        .map(|s| (s.phrase.to_owned(), s.code))
        .chain(bodies)
        .filter_map(|(body, code)| {
            // kubectl prints the error after its `error: `.
            let text = format!(
                "error: {}",
                UPGRADE_PLAIN_BODY.text.replace("{message}", &body)
            );
            let got = classify(&text, None, ctx()).map(|r| r.results[0].diagnosis.classification);
            (got.as_ref().ok() != Some(&Classification::from_status(code)))
                .then(|| format!("{text}: {got:?}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Ports, line numbers, durations, sizes, versions, pids and instants are
/// never statuses.
#[test]
fn numbers_that_are_not_statuses_are_never_read_as_one() {
    for line in [
        "listening on https://0.0.0.0:6443 and :443",
        "I0101 00:00:00.000000 1 main.go:401] starting the controller",
        "router.go:404] registered the NotFound handler",
        "request took 401ms",
        "wrote 403 bytes",
        "kube-proxy version v1.403.0",
        "process 404 exited",
        "pid=429 worker started",
        "2026-01-01T12:04:01.403Z started",
        "retrying in 500 seconds",
        "line 4011 of the file",
        "exit status 255",
    ] {
        assert!(
            matches!(
                classify(line, None, ctx()),
                Err(ClassifyError::Unrecognised(_))
            ),
            "{line}"
        );
        assert_eq!(
            crate::diagnosis::extract::status::stated_code(line),
            None,
            "{line}"
        );
    }
}

/// Ruby prints kubeclient's error by its message, which for a bodiless or
/// bare answer is the status's name: the class beside it makes it an answer.
#[test]
fn a_ruby_error_whose_message_is_a_status_s_name_reads_as_that_status() {
    let ruby: Vec<&Rendering> = RENDERINGS
        .iter()
        .filter(|r| r.client.starts_with("ruby kubeclient HttpError "))
        .collect();
    assert_eq!(ruby.len(), 2);
    let mut wrong = Vec::new();
    for status in apimachinery::HTTP_STATUSES.iter().filter(|s| s.code >= 400) {
        for r in &ruby {
            let text = r.render(&Parts {
                code: status.code,
                reason: "",
                phrase: status.phrase,
                dotnet: status.dotnet,
                message: status.phrase,
                verb: "GET",
                url: "https://10.0.0.1:6443/api",
            });
            let got = classify(&text, None, ctx())
                .ok()
                .map(|report| report.results[0].diagnosis.classification);
            if got != Some(Classification::from_status(status.code)) {
                wrong.push(format!("{text}: {got:?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Every authorizer's sentence (RBAC's, the managed clusters', RBAC's
/// escalation prevention), after `NewForbidden`'s prefix, in every client's
/// rendering: a 403 the authorizers refused, never an admission plugin's.
#[test]
fn every_authorizer_sentence_in_every_rendering_is_the_authorizers_refusal() {
    const VALUES: &[(&str, &str)] = &[
        ("{verb}", "create"),
        ("{resource}", "roles"),
        ("{group}", "rbac.authorization.k8s.io"),
        ("{namespace}", "a"),
        ("{path}", "/metrics"),
        ("{permission}", "container.roles.create"),
        ("{groups}", "[\"system:serviceaccounts\"]"),
        (
            "{rules}",
            "[{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"delete\"]}]",
        ),
    ];
    let mut wrong = Vec::new();
    for t in apimachinery::AUTHORIZER {
        // The early escalation wording prints Go's `%v` of the user.
        let user = if t.text.contains("user={user}") {
            "&{system:serviceaccount:a:b 6e3c [system:serviceaccounts] map[]}"
        } else {
            "system:serviceaccount:a:b"
        };
        let sentence = VALUES
            .iter()
            .fold(t.text.replace("{user}", user), |s, (k, v)| s.replace(k, v));
        let message = format!("roles.rbac.authorization.k8s.io \"x\" is forbidden: {sentence}");
        // A rendering without the message cannot carry the sentence; and
        // the reader of client-node 0.x's object dump cuts a message at the
        // early wording's Go-printed rules (`[{APIGroups:…`), before the user.
        let early = t.text.contains("user={user}");
        let carried = |r: &&Rendering| {
            r.text.contains("{message") && !(early && r.client == "client-node 0.x HttpError body")
        };
        for r in RENDERINGS.iter().filter(carried) {
            let status = apimachinery::http_status(403).unwrap();
            let text = r.render(&Parts {
                code: 403,
                reason: "Forbidden",
                phrase: status.phrase,
                dotnet: status.dotnet,
                message: &message,
                verb: "POST",
                url: "https://10.0.0.1:6443/apis/rbac.authorization.k8s.io/v1/namespaces/a/roles",
            });
            let got = classify(&text, None, ctx()).ok().map(|report| {
                let d = &report.results[0].diagnosis;
                (d.classification, d.cause())
            });
            // GKE's sentence names its IAM authorizer beside RBAC.
            let cause = if t.by.starts_with("GKE") {
                Cause::NonRbacAuthorizerDenied
            } else {
                Cause::RbacDenied
            };
            if got != Some((Classification::Forbidden, cause)) {
                wrong.push(format!("{} × {}: {got:?}\n{text}", t.by, r.client));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Every text that stands for an answer without a Status (gRPC's codes, the
/// components' and the discovery libraries' and agents' own sentences), as
/// its program logs it and alone, is read as its status, and the log
/// prefilter keeps its line.
#[test]
fn every_status_text_in_a_log_line_reads_as_its_status() {
    let mut wrong = Vec::new();
    for &(text, code, _) in STATUS_TEXTS {
        let logged =
            format!("2026-01-01 00:00:00.000  WARN 1 --- [main] c.e.Discovery : {text}: retrying");
        for line in [logged.as_str(), text] {
            let got = classify(line, None, ctx()).ok().map(|report| {
                let d = &report.results[0].diagnosis;
                (d.classification, d.cause())
            });
            let kept = crate::classify::prefilter::candidate(line.as_bytes());
            if got.map(|(class, _)| class) != Some(Classification::from_status(code)) || !kept {
                wrong.push(format!("{line}: {got:?}, kept {kept}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Akka.NET's Azure lease says the Kubernetes lease's first sentence for
    // Azure Blob Storage's 401: not the API server's answer.
    let azure = "LeaseException: Unauthorized to communicate with Kubernetes API server. Reason: [InvalidAuthenticationInfo]";
    assert_eq!(crate::diagnosis::extract::status::generic_text(azure), None);
}
