//! `probe` snapshots against the test API server, named `-s` servers and
//! `--cacert` (the setups of tests/it/probe.rs): ok, clock skew between two
//! servers, expired, recreated ServiceAccount, RBAC 403 (path, named object,
//! pods/log), 404, anonymous contrast, anonymous with no token at all, a
//! stripped Authorization header,
//! redirect, TLS failures, connection refused, timeout and the v1beta1 review.
//! The kubeconfig-based cases are in `probe_kubeconfig`.

use std::time::Duration;

use chrono::TimeDelta;

use super::lab::{GET_POD_LOG, Lab};
use super::{Invocation, check_fresh};
use crate::support::apiserver::{Config, Mode};
use crate::support::pki::Pki;
use crate::support::tokens::{self, NAMESPACE, POD};
use crate::support::{base, fresh_token};

const AREA: &str = "probe";
const USER: &str = "system:serviceaccount:debug-lab:reporter";
/// The label a fresh token (10 minutes old, valid an hour) is shown with.
const FRESH: &str = "fresh-token.jwt";

/// One server with `config`, probed with a fresh token and `args`.
fn one(config: Config, args: &[&str]) -> Invocation {
    let mut lab = Lab::new();
    lab.start(config);
    lab.probe(&[0], args, FRESH, &fresh_token())
}

#[test]
fn ok() {
    check_fresh(AREA, "ok", |_| one(Config::new(base()), &[]));
}

#[test]
fn two_servers_one_90s_behind_not_yet_valid() {
    check_fresh(AREA, "two-servers-one-90s-behind", |_| {
        let mut lab = Lab::new();
        lab.start(Config::new(base()));
        let mut behind = Config::new(base());
        behind.offset = TimeDelta::seconds(-90);
        lab.start(behind);
        let token = tokens::sign(&tokens::projected(base(), 3607));
        lab.probe(&[0, 1], &[], "minted-at-now.jwt", &token)
    });
}

#[test]
fn expired() {
    check_fresh(AREA, "expired", |_| {
        let mut lab = Lab::new();
        lab.start(Config::new(base()));
        let token = tokens::sign(&tokens::projected(base() - TimeDelta::hours(2), 3600));
        lab.probe(&[0], &[], "expired-an-hour-ago.jwt", &token)
    });
}

#[test]
fn service_account_recreated_without_credentials() {
    check_fresh(AREA, "service-account-recreated", |_| {
        let mut config = Config::new(base());
        config.recreate_service_account();
        one(config, &[])
    });
}

#[test]
fn rbac_denied() {
    check_fresh(AREA, "rbac-list-pods-path", |_| {
        one(
            Config::new(base()),
            &["--path", "/api/v1/namespaces/debug-lab/pods"],
        )
    });
    check_fresh(AREA, "rbac-get-configmap-by-name", |_| {
        one(
            Config::new(base()),
            &[
                "--verb",
                "get",
                "--resource",
                "configmaps",
                "--name",
                "settings",
            ],
        )
    });
    // A subresource, asked both ways: a review, and the GET itself.
    check_fresh(AREA, "rbac-pods-log-review", |_| {
        one(Config::new(base()), &GET_POD_LOG)
    });
    check_fresh(AREA, "rbac-pods-log-path", |_| {
        let path = format!("/api/v1/namespaces/{NAMESPACE}/pods/{POD}/log");
        one(Config::new(base()), &["--path", &path])
    });
}

#[test]
fn not_found() {
    check_fresh(AREA, "not-found-path", |_| {
        let config = Config::new(base()).allow(USER, &["get"], &["pods"], Some(NAMESPACE));
        one(
            config,
            &["--path", "/api/v1/namespaces/debug-lab/pods/no-such-pod"],
        )
    });
    check_fresh(AREA, "not-found-path-anonymous", |_| {
        let config = Config::new(base()).allow(USER, &["get"], &["configmaps"], Some(NAMESPACE));
        one(
            config,
            &[
                "--path",
                "/api/v1/namespaces/debug-lab/configmaps/settings",
                "--anonymous",
            ],
        )
    });
}

#[test]
fn anonymous() {
    check_fresh(AREA, "anonymous-403", |_| {
        one(Config::new(base()), &["--anonymous"])
    });
    check_fresh(AREA, "anonymous-auth-off", |_| {
        let mut config = Config::new(base());
        config.anonymous = false;
        one(config, &["--anonymous"])
    });
    // No token anywhere: only what an anonymous request gets.
    check_fresh(AREA, "anonymous-only-403", |_| {
        let mut lab = Lab::new();
        lab.start(Config::new(base()));
        lab.probe_anonymous(&[0], &["--path", "/api/v1/namespaces/debug-lab/pods"])
    });
    check_fresh(AREA, "anonymous-only-auth-off", |_| {
        let mut lab = Lab::new();
        let mut config = Config::new(base());
        config.anonymous = false;
        lab.start(config);
        lab.probe_anonymous(&[0], &[])
    });
    check_fresh(AREA, "authorization-stripped", |_| {
        let mut config = Config::new(base());
        config.strip_authorization = true;
        one(config, &[])
    });
}

#[test]
fn redirect() {
    check_fresh(AREA, "redirect", |_| {
        let mut lab = Lab::new();
        lab.start(Config::new(base()));
        let mut config = Config::new(base());
        config.mode = Mode::Redirect(format!("{}/api/v1/namespaces/debug-lab/pods", lab.url(0)));
        lab.start(config);
        lab.probe(&[1], &[], FRESH, &fresh_token())
    });
}

#[test]
fn tls_failures() {
    check_fresh(AREA, "tls-untrusted-ca", |_| {
        let mut lab = Lab::new();
        lab.start(Config::new(base()));
        // The client trusts another CA than the one that signed the server.
        lab.pki = Pki::new("some-other-ca");
        lab.probe(&[0], &["--path", "/api"], FRESH, &fresh_token())
    });
    for (name, pki) in [
        (
            "tls-name-mismatch",
            (|| Pki::custom("ca", &["localhost"], false)) as fn() -> Pki,
        ),
        ("tls-certificate-expired", || {
            Pki::custom("ca", &["127.0.0.1"], true)
        }),
    ] {
        check_fresh(AREA, name, |_| {
            let mut lab = Lab::new();
            lab.pki = pki();
            lab.start(Config::new(base()));
            lab.probe(&[0], &[], FRESH, &fresh_token())
        });
    }
}

#[test]
fn connection_refused() {
    check_fresh(AREA, "connection-refused", |_| {
        let mut lab = Lab::new();
        let port = lab.closed_port();
        let ca = lab.ca();
        lab.run(
            Invocation::new(&["probe", "--now", super::NOW, "-f", "-", "--cacert", &ca])
                .args(&["-s", &format!("https://127.0.0.1:{port}")])
                .stdin(FRESH, fresh_token()),
        )
    });
}

#[test]
fn timeout() {
    check_fresh(AREA, "timeout", |_| {
        let mut config = Config::new(base());
        config.mode = Mode::Slow(Duration::from_secs(4));
        one(config, &["--request-timeout", "1s"])
    });
}

#[test]
fn review_falls_back_to_v1beta1() {
    check_fresh(AREA, "review-v1beta1", |_| {
        let mut config = Config::new(base());
        config.review_v1 = false;
        one(config, &[])
    });
}

#[test]
fn plain_http_is_refused() {
    check_fresh(AREA, "plain-http-refused", |_| {
        let mut lab = Lab::new();
        let port = lab.start(Config::new(base())).port();
        let ca = lab.ca();
        lab.run(
            Invocation::new(&["probe", "--now", super::NOW, "-f", "-", "--cacert", &ca])
                .args(&["-s", &format!("http://127.0.0.1:{port}")])
                .stdin(FRESH, fresh_token()),
        )
    });
}

#[test]
fn in_pod_defaults() {
    check_fresh(AREA, "in-pod-list-pods", |_| {
        let mut lab = Lab::new();
        lab.start(Config::new(base()).allow(USER, &["list"], &["pods"], Some(NAMESPACE)));
        lab.in_pod(
            "probe",
            &fresh_token(),
            &["--verb", "list", "--resource", "pods"],
        )
    });
}
