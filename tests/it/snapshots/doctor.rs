//! `doctor` snapshots, run as a pod runs it (a ServiceAccount directory,
//! KUBERNETES_SERVICE_HOST/PORT, stdin /dev/null) against the test API
//! server: the cases of tests/it/doctor.rs and the incidents of
//! docs/troubleshooting.md (tests/it/docs_examples.rs), plus a deleted pod, an
//! untrusted CA and a subresource check.

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::json;

use super::lab::{GET_POD_LOG, Lab};
use super::{Invocation, check_fresh};
use crate::support::apiserver::Config;
use crate::support::pki::Pki;
use crate::support::tokens::{self, NAMESPACE};
use crate::support::{base, fresh_token};

const AREA: &str = "doctor";
const USER: &str = "system:serviceaccount:debug-lab:reporter";

/// doctor in a pod whose mounted token is `token`, against one server with `config`.
fn doctor(config: Config, token: &str, args: &[&str]) -> Invocation {
    let mut lab = Lab::new();
    lab.start(config);
    lab.in_pod("doctor", token, args)
}

/// A kubelet-mounted token issued at `iat`: extended (`exp` a year out,
/// `warnafter` = iat + 3607), as kube-apiserver signs the default volume's.
fn extended(iat: DateTime<Utc>) -> String {
    let mut claims = tokens::projected(iat, 31_536_000);
    claims["kubernetes.io"]["warnafter"] = json!(iat.timestamp() + 3607);
    tokens::sign(&claims)
}

fn behind() -> Config {
    let mut config = Config::new(base());
    config.offset = TimeDelta::seconds(-90);
    config
}

#[test]
fn healthy() {
    check_fresh(AREA, "healthy", |_| {
        doctor(Config::new(base()), &fresh_token(), &[])
    });
}

#[test]
fn api_server_90s_behind() {
    check_fresh(AREA, "clock-skew", |_| {
        doctor(
            behind(),
            &tokens::sign(&tokens::projected(base(), 3607)),
            &[],
        )
    });
    check_fresh(AREA, "clock-skew-extended-token", |_| {
        doctor(behind(), &extended(base()), &[])
    });
}

/// The server's clock and the pod's agree; the token was minted on a clock
/// 90 s ahead of both: server-clock passes, freshness cannot be judged, and
/// pod-clock is the check that fails, as the verdict says.
#[test]
fn token_from_a_fast_issuer() {
    check_fresh(AREA, "clock-skew-fast-issuer", |_| {
        doctor(
            Config::new(base()),
            &tokens::sign(&tokens::projected(base() + TimeDelta::seconds(90), 3607)),
            &[],
        )
    });
}

#[test]
fn expired_and_stale() {
    check_fresh(AREA, "expired", |_| {
        let token = tokens::sign(&tokens::projected(base() - TimeDelta::hours(2), 3600));
        doctor(Config::new(base()), &token, &[])
    });
    check_fresh(AREA, "stale-extended-token", |_| {
        doctor(
            Config::new(base()),
            &extended(base() - TimeDelta::hours(2)),
            &[],
        )
    });
}

#[test]
fn service_account_recreated() {
    check_fresh(AREA, "service-account-recreated", |_| {
        let mut config = Config::new(base());
        config.recreate_service_account();
        doctor(config, &fresh_token(), &[])
    });
}

#[test]
fn pod_deleted() {
    check_fresh(AREA, "pod-deleted", |_| {
        let mut config = Config::new(base());
        config.objects.retain(|o| o.resource != "pods");
        doctor(config, &fresh_token(), &[])
    });
}

#[test]
fn rbac_denied() {
    check_fresh(AREA, "rbac-list-pods-path", |_| {
        let path = format!("/api/v1/namespaces/{NAMESPACE}/pods");
        doctor(Config::new(base()), &fresh_token(), &["--path", &path])
    });
    check_fresh(AREA, "rbac-list-pods-review", |_| {
        doctor(
            Config::new(base()),
            &fresh_token(),
            &["--verb", "list", "--resource", "pods"],
        )
    });
    check_fresh(AREA, "rbac-pods-log-review", |_| {
        doctor(Config::new(base()), &fresh_token(), &GET_POD_LOG)
    });
}

#[test]
fn anonymous() {
    check_fresh(AREA, "authorization-stripped", |_| {
        let mut config = Config::new(base());
        config.strip_authorization = true;
        doctor(config, &fresh_token(), &[])
    });
    check_fresh(AREA, "empty-token-file", |_| {
        doctor(Config::new(base()), "", &[])
    });
}

#[test]
fn not_found() {
    check_fresh(AREA, "not-found-path", |_| {
        let config = Config::new(base()).allow(USER, &["get"], &["configmaps"], Some(NAMESPACE));
        doctor(
            config,
            &extended(base() - TimeDelta::minutes(10)),
            &["--path", "/api/v1/namespaces/debug-lab/configmaps/settings"],
        )
    });
}

#[test]
fn rotated_key() {
    let rotated = || std::fs::read_to_string(tokens::testdata("tokens/rotated-key.jwt")).unwrap();
    check_fresh(AREA, "rotated-key-default-rbac", |_| {
        doctor(Config::new(base()), &rotated(), &[])
    });
    check_fresh(AREA, "rotated-key-keys-readable-anonymously", |_| {
        let mut config = Config::new(base());
        config.anonymous_discovery = true;
        doctor(config, &rotated(), &[])
    });
}

#[test]
fn issuer_changed() {
    check_fresh(AREA, "issuer-changed", |_| {
        let mut config = Config::new(base());
        config.issuers = vec!["https://oidc.example.com/cluster-2".to_owned()];
        doctor(config, &extended(base() - TimeDelta::minutes(10)), &[])
    });
}

#[test]
fn unreachable_and_untrusted() {
    check_fresh(AREA, "connection-refused", |_| {
        let mut lab = Lab::new();
        let port = lab.closed_port();
        let ca = lab.pki.ca_pem.clone();
        lab.in_pod_at("doctor", port, &ca, &fresh_token(), &[])
    });
    check_fresh(AREA, "tls-untrusted-ca", |_| {
        let mut lab = Lab::new();
        let port = lab.start(Config::new(base())).port();
        let other = Pki::new("some-other-ca").ca_pem;
        lab.in_pod_at("doctor", port, &other, &fresh_token(), &[])
    });
}
