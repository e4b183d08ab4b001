//! Steps follow the facts: the party that rejected the token decides what the
//! user is told to check, and a client-side view that cannot show a fact
//! never proves its absence.

use serde_json::Value;

use crate::support::diagnosis::candidates;

/// `classify -o json` of `text`: the first result's diagnosis.
fn diagnosis_of(text: &str) -> Value {
    let out = crate::support::satoken()
        .args(["classify", "--now", "2026-01-01T00:00:00Z", "-o", "json"])
        .write_stdin(text.to_owned())
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    doc["results"][0]["diagnosis"].clone()
}

/// Every step's words and argv of every candidate, as one text.
fn steps_text(d: &Value) -> String {
    candidates(d)
        .iter()
        .flat_map(|c| c["next"].as_array().cloned().unwrap_or_default())
        .map(|n| format!("{} {}", n["why"], n["command"]["argv"]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// kube-apiserver's log line for an authenticator aggregate.
fn logged(err: &str) -> String {
    format!(
        "E0101 00:00:00.000000       1 authentication.go:73] \"Unable to authenticate the request\" err=\"[invalid bearer token, {err}]\"\n"
    )
}

/// An OIDC (JWT) authenticator's signature, issuer, audience and expiry failures:
/// the identity provider's keys and the authenticator's configuration, never
/// the cluster's ServiceAccount keys or a ServiceAccount token. Wordings:
/// k8s.io/apiserver plugin/pkg/authenticator/token/oidc/oidc.go wraps the
/// verifier's error as `oidc: verify token: %v`; go-oidc v2/v3 oidc/verify.go
/// and jwks.go print the rest.
#[test]
fn a_jwt_authenticators_failure_points_at_the_identity_provider() {
    for (err, cause) in [
        (
            r#"oidc: verify token: failed to verify signature: failed to verify id token signature"#,
            "signature-invalid",
        ),
        (
            r#"oidc: verify token: oidc: id token issued by a different provider, expected \"https://idp.example\" got \"https://other.example\""#,
            "issuer-mismatch",
        ),
        (
            r#"oidc: verify token: oidc: expected audience \"kubernetes\" got [\"headlamp\"]"#,
            "audience-mismatch",
        ),
        // Its exp is the identity provider's too: a login or a refresh, not
        // a projected file or a ServiceAccount token.
        (
            "oidc: verify token: oidc: token is expired (Token Expiry: 2026-01-01 00:00:00 +0000 UTC)",
            "expired",
        ),
    ] {
        let d = diagnosis_of(&logged(err));
        assert_eq!(d["cause"], cause, "{err}: {d:#}");
        let steps = steps_text(&d);
        for wrong in [
            "/openid/v1/jwks",
            "--service-account-key-file",
            "delete the pod",
        ] {
            assert!(!steps.contains(wrong), "{err}: {wrong} in\n{steps}");
        }
        assert!(
            !steps.contains(r#""create","token""#),
            "{err}: kubectl create token in\n{steps}"
        );
        assert!(
            steps.contains("identity provider"),
            "{err}: the identity provider is not named in\n{steps}"
        );
    }
}

/// client-go's debug round-tripper (`kubectl -v=8`/`-v=9`, round_trippers.go)
/// wraps the transport outside the exec-plugin and auth-provider wrappers
/// (transport.HTTPWrappersForConfig: WrapTransport first, DebugWrappers
/// around it), so the request it echoes never shows the header they add: no
/// `Authorization` there proves nothing, and the step that tells the two
/// apart is the kubeconfig user's credential source.
#[test]
fn a_debug_trace_without_the_header_proves_nothing() {
    let trace = "\
I0101 00:00:00.000000   12345 loader.go:372] Config loaded from file:  /home/u/.kube/config
I0101 00:00:00.000000   12345 round_trippers.go:466] curl -v -XGET  -H \"Accept: application/json\" -H \"User-Agent: kubectl/v1.25.0 (linux/amd64) kubernetes/a866cbe\" 'https://10.0.0.1:6443/api/v1/namespaces/default/pods?limit=500'
I0101 00:00:00.000000   12345 round_trippers.go:553] GET https://10.0.0.1:6443/api/v1/namespaces/default/pods?limit=500 401 Unauthorized in 5 milliseconds
I0101 00:00:00.000000   12345 request.go:1154] Response Body: {\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}
";
    let d = diagnosis_of(trace);
    for c in candidates(&d) {
        if c["cause"] == "token-not-sent" {
            assert_ne!(c["confidence"], "high", "{d:#}");
        }
    }
    let steps = steps_text(&d);
    assert!(
        steps.contains(r#""config","view","--minify""#) && steps.contains("exec"),
        "no step reads the kubeconfig user's credential source:\n{steps}"
    );
}

/// go-jose's claim-time errors (jwt/validation.go: ErrExpired, ErrNotValidYet,
/// ErrIssuedInTheFuture; "validation field" in v2–v4, and the spelling
/// corrected to "failed") name the clock, never a malformed token.
#[test]
fn go_joses_time_errors_are_the_clock() {
    for (err, cause) in [
        (
            "square/go-jose/jwt: validation failed, token issued in the future (iat)",
            "clock-skew",
        ),
        (
            "go-jose/go-jose/jwt: validation failed, token issued in the future (iat)",
            "clock-skew",
        ),
        (
            "square/go-jose/jwt: validation field, token not valid yet (nbf)",
            "clock-skew",
        ),
        (
            "go-jose/go-jose/jwt: validation failed, token is expired (exp)",
            "expired",
        ),
    ] {
        let d = diagnosis_of(&logged(err));
        assert_eq!(d["cause"], cause, "{err}: {d:#}");
        for c in candidates(&d) {
            assert!(
                !(c["cause"] == "token-malformed" && c["confidence"] == "high"),
                "{err}: {d:#}"
            );
        }
    }
}

/// A request whose credentials are not an `Authorization` header: a client
/// certificate (`curl --cert`), or the bearer token kube-apiserver reads from
/// a websocket subprotocol (k8s.io/apiserver pkg/authentication/request/
/// websocket/protocol.go: `base64url.bearer.authorization.k8s.io.<token>`).
/// No header line is then no proof that nothing was sent.
#[test]
fn credentials_outside_the_header_are_not_token_not_sent() {
    let status = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}"#;
    let cert = format!(
        "$ curl -v --cacert ca.crt --cert client.crt --key client.key https://10.0.0.1:6443/api\n\
         > GET /api HTTP/1.1\n> Host: 10.0.0.1:6443\n> User-Agent: curl/7.81.0\n> Accept: */*\n>\n\
         < HTTP/1.1 401 Unauthorized\n< Content-Type: application/json\n<\n{status}\n"
    );
    let websocket = format!(
        "> GET /api/v1/namespaces/default/pods/web/exec?command=sh&stdin=true HTTP/1.1\n\
         > Host: 10.0.0.1:6443\n> Upgrade: websocket\n\
         > Sec-WebSocket-Protocol: base64url.bearer.authorization.k8s.io.ZXlKaGJHY2lPaUpTVXpJMU5pSjkuZXlKcGMzTWlPaUpyZFdKbGNtNWxkR1Z6SW4wLnNpZw, v4.channel.k8s.io\n\
         >\n< HTTP/1.1 401 Unauthorized\n< Content-Type: application/json\n<\n{status}\n"
    );
    for (name, text) in [("curl --cert", cert), ("websocket", websocket)] {
        let d = diagnosis_of(&text);
        assert_eq!(d["classification"], "401-invalid-token", "{name}: {d:#}");
        for c in candidates(&d) {
            assert!(
                !(c["cause"] == "token-not-sent" && c["confidence"] != "low"),
                "{name}: {d:#}"
            );
        }
    }
}

/// An audience a checker asked for (a TokenReview's spec.audiences) or checks
/// itself (Vault's role `audience`, hashicorp/cap jwt: "invalid audience (aud)
/// claim"): the token must be requested for that audience, the opposite of
/// the API server's own audience fix.
#[test]
fn a_checkers_audience_asks_for_a_token_of_that_audience() {
    let review = r#"{"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1","metadata":{},"spec":{"token":"REDACTED","audiences":["vault"]},"status":{"user":{},"error":"[invalid bearer token, token audiences [\"https://kubernetes.default.svc.cluster.local\"] is invalid for the target audiences [\"vault\"]]"}}
"#;
    let vault = "Error writing data to auth/kubernetes/login: Error making API request.\n\nURL: PUT https://vault.example:8200/v1/auth/kubernetes/login\nCode: 403. Errors:\n\n* invalid audience (aud) claim: audience claim does not match any expected audience\n";
    for (name, text) in [("review", review), ("vault", vault)] {
        let d = diagnosis_of(text);
        assert_eq!(d["cause"], "audience-mismatch", "{name}: {d:#}");
        let steps = steps_text(&d);
        assert!(
            steps.contains(r#""--audience""#),
            "{name}: no token for the checker's audience in\n{steps}"
        );
        assert!(
            !steps.contains("without --audience"),
            "{name}: the API server's fix in\n{steps}"
        );
    }
}
