//! `probe` snapshots through a kubeconfig (the setups of
//! tests/it/probe_cluster.rs): the kubeconfig identity reads the bindings and
//! keys (`--use-kubeconfig-credentials`) or asks a TokenReview
//! (`--token-review`, in the current and the 1.22 wording), `--all-endpoints`
//! with replicas that disagree, Secret- and node-bound tokens, legacy Secret
//! tokens, a client-certificate identity and a kubeconfig proxy.

use base64::Engine as _;
use chrono::TimeDelta;
use serde_json::json;

use super::lab::{ADMIN, Lab};
use super::{Invocation, check_fresh};
use crate::support::apiserver::{ApiServer, Config, Object, Wording};
use crate::support::tokens;
use crate::support::{base, fresh_token};

const AREA: &str = "probe";
const FRESH: &str = "fresh-token.jwt";
use crate::support::tokens::ES256_KID;
const CREDENTIALS: &str = "--use-kubeconfig-credentials";

/// One server with `config` (plus the admin token user), probed through a
/// kubeconfig whose user is that admin.
fn kube(config: Config, args: &[&str], label: &str, token: &str) -> Invocation {
    let mut lab = Lab::new();
    lab.start(config.admin(ADMIN));
    lab.probe_kubeconfig(args, label, token)
}

fn recreated() -> Config {
    let mut config = Config::new(base());
    config.recreate_service_account();
    config
}

fn without(resource: &str) -> Config {
    let mut config = Config::new(base());
    config.objects.retain(|o| o.resource != resource);
    config
}

#[test]
fn service_account_recreated() {
    check_fresh(
        AREA,
        "service-account-recreated-kubeconfig-no-credentials",
        |_| kube(recreated(), &[], FRESH, &fresh_token()),
    );
    check_fresh(AREA, "service-account-recreated-binding-reads", |_| {
        kube(recreated(), &[CREDENTIALS], FRESH, &fresh_token())
    });
    check_fresh(AREA, "service-account-recreated-token-review", |_| {
        kube(recreated(), &["--token-review"], FRESH, &fresh_token())
    });
}

#[test]
fn pod_deleted() {
    check_fresh(AREA, "pod-deleted-binding-reads", |_| {
        kube(without("pods"), &[CREDENTIALS], FRESH, &fresh_token())
    });
    // The kubeconfig user is the token itself: it may read nothing.
    check_fresh(AREA, "pod-deleted-bindings-unreadable", |_| {
        let mut lab = Lab::new();
        lab.start(without("pods"));
        let kubeconfig = lab.kubeconfig(0, &fresh_token());
        lab.probe_through(&kubeconfig, &[CREDENTIALS], FRESH, &fresh_token())
    });
    // A user that authenticates but may not create tokenreviews.
    check_fresh(AREA, "pod-deleted-token-review-forbidden", |_| {
        let mut lab = Lab::new();
        lab.start(without("pods").user_token("dev-token", "jane"));
        let kubeconfig = lab.kubeconfig(0, "dev-token");
        lab.probe_through(&kubeconfig, &["--token-review"], FRESH, &fresh_token())
    });
    // system:auth-delegator alone: the review is authoritative.
    check_fresh(AREA, "pod-deleted-token-review-delegator", |_| {
        let mut lab = Lab::new();
        lab.start(
            without("pods")
                .user_token("delegator-token", "reviewer")
                .allow_cluster(
                    "reviewer",
                    &["create"],
                    "authentication.k8s.io",
                    &["tokenreviews"],
                ),
        );
        let kubeconfig = lab.kubeconfig(0, "delegator-token");
        lab.probe_through(&kubeconfig, &["--token-review"], FRESH, &fresh_token())
    });
}

/// The TokenReview cases of tests/it/probe_cluster.rs, in both wordings.
#[test]
fn token_review_in_two_wordings() {
    type Breaker = fn(&mut Config) -> (&'static str, String);
    let cases: [(&str, Breaker); 5] = [
        ("clock-skew", |c| {
            c.offset = TimeDelta::seconds(-90);
            (
                "minted-at-now.jwt",
                tokens::sign(&tokens::projected(base(), 3607)),
            )
        }),
        ("expired", |_| {
            (
                "expired-2h-ago.jwt",
                tokens::sign(&tokens::projected(base() - TimeDelta::hours(3), 3607)),
            )
        }),
        ("service-account-deleted", |c| {
            c.objects.retain(|o| o.resource != "serviceaccounts");
            (FRESH, fresh_token())
        }),
        ("service-account-recreated", |c| {
            c.recreate_service_account();
            (FRESH, fresh_token())
        }),
        ("unknown-kid", |c| {
            c.kids = Some(vec![ES256_KID.to_owned()]);
            (FRESH, fresh_token())
        }),
    ];
    for (name, breaks) in cases {
        for (wording, era) in [(Wording::Current, "current"), (Wording::V1_22, "1.22")] {
            check_fresh(AREA, &format!("token-review-{name}-{era}"), |_| {
                let mut config = Config::new(base());
                config.wording = wording;
                let (label, token) = breaks(&mut config);
                kube(config, &["--token-review"], label, &token)
            });
        }
    }
}

#[test]
fn rotated_key() {
    let rotated = || {
        let mut config = Config::new(base());
        config.kids = Some(vec![ES256_KID.to_owned()]);
        config
    };
    check_fresh(AREA, "rotated-key-guess", |_| {
        kube(rotated(), &[], FRESH, &fresh_token())
    });
    check_fresh(AREA, "rotated-key-jwks-read", |_| {
        kube(rotated(), &[CREDENTIALS], FRESH, &fresh_token())
    });
    check_fresh(AREA, "rotated-key-anonymous-discovery", |_| {
        let mut config = rotated();
        config.anonymous_discovery = true;
        kube(config, &[], FRESH, &fresh_token())
    });
}

#[test]
fn wrong_audience() {
    let token = || {
        let mut claims = tokens::projected(base() - TimeDelta::minutes(10), 3607);
        claims["aud"] = json!(["vault"]);
        tokens::sign(&claims)
    };
    check_fresh(AREA, "wrong-audience-binding-reads", |_| {
        kube(
            Config::new(base()),
            &[CREDENTIALS],
            "audience-vault.jwt",
            &token(),
        )
    });
    check_fresh(AREA, "wrong-audience-token-review", |_| {
        kube(
            Config::new(base()),
            &["--token-review"],
            "audience-vault.jwt",
            &token(),
        )
    });
}

#[test]
fn secret_and_node_bound_tokens() {
    let fixture =
        |name: &str| std::fs::read_to_string(tokens::testdata(&format!("tokens/{name}"))).unwrap();
    check_fresh(AREA, "secret-bound-secret-deleted-token-review", |_| {
        kube(
            Config::shop(base()),
            &["--token-review"],
            "testdata/tokens/token-request-secret-bound.jwt",
            &fixture("token-request-secret-bound.jwt"),
        )
    });
    check_fresh(AREA, "node-bound-token-review", |_| {
        kube(
            Config::shop(base()),
            &["--token-review"],
            "testdata/tokens/token-request-node-bound.jwt",
            &fixture("token-request-node-bound.jwt"),
        )
    });
}

#[test]
fn legacy_secret_tokens() {
    let legacy = || {
        let mut config = Config::new(base());
        config.issuers.push("kubernetes/serviceaccount".to_owned());
        config
    };
    check_fresh(AREA, "legacy-secret-deleted", |_| {
        kube(
            legacy(),
            &[CREDENTIALS],
            "legacy-secret-token.jwt",
            &tokens::legacy(),
        )
    });
    check_fresh(AREA, "legacy-token-invalidated", |_| {
        let mut config = legacy();
        config
            .objects
            .push(Object::invalidated_legacy_secret("2025-12-01"));
        kube(
            config,
            &[CREDENTIALS],
            "legacy-secret-token.jwt",
            &tokens::legacy(),
        )
    });
}

/// Three replicas, the first serving the `kubernetes` endpoints; the third runs
/// 90 s behind and missed a key rotation (tests/it/probe_cluster.rs).
fn three_replicas(lab: &mut Lab) {
    for i in 0..3 {
        let mut config = Config::new(base()).admin(ADMIN);
        if i == 2 {
            config.offset = TimeDelta::seconds(-90);
            config.kids = Some(vec![ES256_KID.to_owned()]);
        }
        lab.start(config);
    }
    let ports: Vec<u16> = lab.servers.iter().map(ApiServer::port).collect();
    lab.servers[0].set_endpoints(&ports);
}

#[test]
fn all_endpoints_replicas_disagree() {
    for (name, args) in [
        ("all-endpoints-binding-reads", [CREDENTIALS]),
        ("all-endpoints-token-review", ["--token-review"]),
    ] {
        check_fresh(AREA, name, |_| {
            let mut lab = Lab::new();
            three_replicas(&mut lab);
            lab.probe_kubeconfig(
                &[&["--all-endpoints"][..], &args].concat(),
                FRESH,
                &fresh_token(),
            )
        });
    }
    check_fresh(AREA, "all-endpoints-endpoints-fallback", |_| {
        let mut lab = Lab::new();
        let mut config = Config::new(base()).admin(ADMIN);
        config.endpoint_slices = false;
        let port = lab.start(config).port();
        lab.servers[0].set_endpoints(&[port]);
        lab.probe_kubeconfig(&["--all-endpoints", CREDENTIALS], FRESH, &fresh_token())
    });
}

#[test]
fn client_certificate_identity() {
    check_fresh(AREA, "client-certificate-token-review", |_| {
        let mut lab = Lab::new();
        let admin = lab.pki.client("kubernetes-admin", "system:masters");
        let mut config = without("serviceaccounts");
        config
            .client_certs
            .push((admin.der.clone(), "kubernetes-admin".to_owned()));
        lab.start(config);
        let dir = lab.dir.path();
        std::fs::write(dir.join("admin.key"), &admin.key_pem).unwrap();
        let cert = base64::engine::general_purpose::STANDARD.encode(&admin.cert_pem);
        let ca = base64::engine::general_purpose::STANDARD.encode(&lab.pki.ca_pem);
        let kubeconfig = dir.join("admin.conf");
        std::fs::write(
            &kubeconfig,
            format!(
                "current-context: kubernetes-admin@kubernetes\nclusters:\n- name: kubernetes\n  cluster: {{server: '{}', certificate-authority-data: {ca}}}\ncontexts:\n- name: kubernetes-admin@kubernetes\n  context: {{cluster: kubernetes, user: kubernetes-admin}}\nusers:\n- name: kubernetes-admin\n  user:\n    client-certificate-data: {cert}\n    client-key: admin.key\n",
                lab.url(0)
            ),
        )
        .unwrap();
        let kubeconfig = kubeconfig.display().to_string();
        lab.probe_through(&kubeconfig, &["--token-review"], FRESH, &fresh_token())
    });
}

#[test]
fn kubeconfig_proxy() {
    check_fresh(AREA, "kubeconfig-proxy-url", |_| {
        let mut lab = Lab::new();
        lab.start(Config::new(base()).admin(ADMIN));
        let proxy = crate::support::proxy::Proxy::start();
        let with_credentials = proxy.url().replace("http://", "http://ops:hunter2@");
        let path = lab.kubeconfig(0, ADMIN);
        let text = std::fs::read_to_string(&path).unwrap().replace(
            "    certificate-authority-data:",
            &format!("    proxy-url: {with_credentials}\n    certificate-authority-data:"),
        );
        std::fs::write(&path, text).unwrap();
        let port: u16 = proxy.url().rsplit(':').next().unwrap().parse().unwrap();
        lab.name_port(port);
        lab.keep(proxy);
        lab.probe_through(&path, &[], FRESH, &fresh_token())
    });
}
