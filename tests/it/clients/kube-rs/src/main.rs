//! A user's program with the Rust client, kube-rs: a kubeconfig built in code
//! (server, CA file unless the test withholds it, token unless anonymous),
//! then the list or get of pods, and on failure the error as `main` returning
//! `anyhow::Result` prints it (kube-rs's examples' way). tests/it/clients.rs
//! runs it with U (server URL), CA, T (token), NS and NAME in the environment.

use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, ListParams};
use kube::config::{
    AuthInfo, Cluster, Context, KubeConfigOptions, Kubeconfig, NamedAuthInfo, NamedCluster,
    NamedContext,
};
use kube::{Client, Config};

/// A variable that is set and not empty.
fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

fn kubeconfig() -> Kubeconfig {
    Kubeconfig {
        clusters: vec![NamedCluster {
            name: "test".into(),
            cluster: Some(Cluster {
                server: var("U"),
                certificate_authority: var("CA"),
                ..Cluster::default()
            }),
            ..NamedCluster::default()
        }],
        auth_infos: vec![NamedAuthInfo {
            name: "sa".into(),
            auth_info: Some(AuthInfo {
                token: var("T").map(Into::into),
                ..AuthInfo::default()
            }),
            ..NamedAuthInfo::default()
        }],
        contexts: vec![NamedContext {
            name: "test".into(),
            context: Some(Context {
                cluster: "test".into(),
                user: Some("sa".into()),
                namespace: var("NS"),
                ..Context::default()
            }),
            ..NamedContext::default()
        }],
        current_context: Some("test".into()),
        ..Kubeconfig::default()
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut config =
        Config::from_custom_kubeconfig(kubeconfig(), &KubeConfigOptions::default()).await?;
    // Only a guard against a hang: the server is local.
    config.connect_timeout = Some(Duration::from_secs(10));
    config.read_timeout = Some(Duration::from_secs(10));
    let pods: Api<Pod> = Api::default_namespaced(Client::try_from(config)?);
    match var("NAME") {
        Some(name) => {
            let pod = pods.get(&name).await?;
            println!("{}", pod.metadata.name.unwrap_or_default());
        }
        None => {
            let list = pods.list(&ListParams::default()).await?;
            println!("{} pods", list.items.len());
        }
    }
    Ok(())
}
