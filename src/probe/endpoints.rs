//! Pure: the `kubernetes` Service's endpoints, from an EndpointSlice list
//! (`discovery.k8s.io/v1`, label `kubernetes.io/service-name=kubernetes`) or,
//! for older servers and callers that may only read Endpoints, from
//! `/api/v1/namespaces/default/endpoints/kubernetes`; and the replica targets
//! built from them.
//!
//! Each API server writes its own address into these objects (the endpoint
//! reconciler, pkg/controlplane/reconcilers), so they list every control-plane
//! replica. EndpointSlice ports are per slice; an address is only paired with
//! the ports of its own slice. Endpoints that are explicitly not ready
//! (`conditions.ready: false`) are kept: a broken replica is exactly what we
//! are looking for, and it is marked.

use std::net::{IpAddr, SocketAddr};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

/// Most replicas `--all-endpoints` probes. A control plane has 1 to 7
/// (etcd quorum sizes); a list of thousands is not one, and probing each costs
/// two threads and a TLS handshake.
pub const MAX_REPLICAS: usize = 32;

/// Replicas probed at the same time.
pub const CONCURRENCY: usize = 8;

/// `work` over every item, on at most [`CONCURRENCY`] threads, each taking the
/// next item: threads and memory stay bounded however many replicas there
/// are. An item whose work panicked is `None`, in its place.
pub fn each_bounded<T: Sync, R: Send + Sync>(
    items: &[T],
    work: impl Fn(&T) -> R + Sync,
) -> Vec<Option<R>> {
    let next = AtomicUsize::new(0);
    let results: Vec<OnceLock<R>> = items.iter().map(|_| OnceLock::new()).collect();
    std::thread::scope(|scope| {
        for _ in 0..items.len().min(CONCURRENCY) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    let _ = results[i].set(work(item));
                }
            });
        }
    });
    results.into_iter().map(OnceLock::into_inner).collect()
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replica {
    pub addr: SocketAddr,
    /// `conditions.ready` was `false` (EndpointSlice) or the address was in
    /// `notReadyAddresses` (Endpoints).
    pub not_ready: bool,
}

/// The EndpointSlice list path for the `kubernetes` Service.
pub const SLICES_PATH: &str = "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dkubernetes";
/// The Endpoints object of the `kubernetes` Service.
pub const ENDPOINTS_PATH: &str = "/api/v1/namespaces/default/endpoints/kubernetes";

/// The `https` port of a ports list (by name), else the only port.
fn pick_port(ports: Option<&Vec<Value>>) -> Option<u16> {
    let ports = ports?;
    let port = |p: &Value| p.get("port")?.as_u64().and_then(|n| u16::try_from(n).ok());
    ports
        .iter()
        .find(|p| p.get("name").and_then(Value::as_str) == Some("https"))
        .and_then(port)
        .or_else(|| (ports.len() == 1).then(|| port(&ports[0])).flatten())
}

fn array<'a>(value: &'a Value, key: &str) -> impl Iterator<Item = &'a Value> {
    value
        .get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn push(out: &mut Vec<Replica>, ip: &str, port: u16, not_ready: bool) {
    let Ok(ip) = ip.parse::<IpAddr>() else {
        return;
    };
    let addr = SocketAddr::new(ip, port);
    if !out.iter().any(|r| r.addr == addr) {
        out.push(Replica { addr, not_ready });
    }
}

/// Addresses from an `EndpointSliceList`; `None` if the body is not one.
pub fn from_slices(body: &Value) -> Option<Vec<Replica>> {
    let items = body.get("items")?.as_array()?;
    let mut out = Vec::new();
    for slice in items {
        let Some(port) = pick_port(slice.get("ports").and_then(Value::as_array)) else {
            continue;
        };
        for endpoint in array(slice, "endpoints") {
            let not_ready = endpoint
                .pointer("/conditions/ready")
                .and_then(Value::as_bool)
                == Some(false);
            for ip in array(endpoint, "addresses").filter_map(Value::as_str) {
                push(&mut out, ip, port, not_ready);
            }
        }
    }
    Some(out)
}

/// Addresses from an `Endpoints` object; `None` if the body is not one.
pub fn from_endpoints(body: &Value) -> Option<Vec<Replica>> {
    let subsets = body.get("subsets")?.as_array()?;
    let mut out = Vec::new();
    for subset in subsets {
        let Some(port) = pick_port(subset.get("ports").and_then(Value::as_array)) else {
            continue;
        };
        for (key, not_ready) in [("addresses", false), ("notReadyAddresses", true)] {
            for ip in array(subset, key).filter_map(|a| a.get("ip")?.as_str()) {
                push(&mut out, ip, port, not_ready);
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn slices_pair_addresses_with_their_own_ports() {
        let list = json!({"kind": "EndpointSliceList", "items": [
            {"addressType": "IPv4", "ports": [{"name": "https", "port": 6443, "protocol": "TCP"}],
             "endpoints": [{"addresses": ["10.0.0.11"], "conditions": {"ready": true}},
                           {"addresses": ["10.0.0.12"], "conditions": {"ready": false}}]},
            {"addressType": "IPv6", "ports": [{"name": "https", "port": 7443}],
             "endpoints": [{"addresses": ["fd00::13"]}]},
            {"ports": [], "endpoints": [{"addresses": ["10.0.0.99"]}]}
        ]});
        let r = from_slices(&list).unwrap();
        assert_eq!(r.len(), 3);
        assert_eq!(r[0].addr.to_string(), "10.0.0.11:6443");
        assert!(!r[0].not_ready && r[1].not_ready);
        assert_eq!(r[2].addr.to_string(), "[fd00::13]:7443");
        assert_eq!(from_slices(&json!({"kind": "Status"})), None);
    }

    #[test]
    fn endpoints_object() {
        let ep = json!({"kind": "Endpoints", "subsets": [{
            "addresses": [{"ip": "172.18.0.2"}, {"ip": "172.18.0.3"}],
            "notReadyAddresses": [{"ip": "172.18.0.4"}],
            "ports": [{"name": "https", "port": 6443}]}]});
        let r = from_endpoints(&ep).unwrap();
        assert_eq!(r.len(), 3);
        assert!(r[2].not_ready);
        assert_eq!(from_endpoints(&json!({})), None);
    }
}
