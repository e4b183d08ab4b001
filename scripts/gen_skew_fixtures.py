#!/usr/bin/env python3
"""Writes the `skew` fixtures under testdata/skew/ (standard library only).

Run from the repository root:  python3 scripts/gen_skew_fixtures.py

Everything is designed around the reference instant NOW = 2026-01-01T00:00:00Z
(tests pass `--now 2026-01-01T00:00:00Z`). Output is deterministic, so re-running
changes nothing unless this script changes.

The cluster (see testdata/skew/README.md for the expected readings):
  node-a   healthy, kubelet in step with the API server
  node-b   healthy, kubelet clock 90 s AHEAD of the API server
  node-c   healthy, in step
  node-d   down for ten minutes (stale Lease, Ready=Unknown): node-down, not skew
  node-e   malformed item (renewTime / lastHeartbeatTime not a time): skipped
  cp-1     kube-apiserver in step with the reference
  cp-2     kube-apiserver whose clock is 90 s BEHIND cp-1
Node Leases are stored through cp-1 (its clock stamps their managedFields).
"""

import json
import os
import uuid
from datetime import datetime, timedelta, timezone

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
OUT = os.path.join("testdata", "skew")
KUBELET_VERSION = "v1.34.2"


def uid(name):
    """A stable UID per object name."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "satoken-skew/" + name))


def micro(t):
    """A MicroTime, as Lease.spec.renewTime is serialised."""
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%06dZ" % t.microsecond


def seconds(t):
    """A metav1.Time: whole seconds, truncated (managedFields, heartbeats)."""
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def ago(s):
    return NOW - timedelta(seconds=s)


def node_lease(name, renewed_ago, kubelet_ahead=0.0, latency=0.004, renew_text=None):
    """A kube-node-lease Lease renewed `renewed_ago` seconds before NOW (reference
    time). The kubelet writes renewTime from its clock; cp-1 (in step with the
    reference) stamps managedFields `latency` seconds later."""
    written = ago(renewed_ago)
    renew = written + timedelta(seconds=kubelet_ahead)
    stored = written + timedelta(seconds=latency)
    return {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {
            "creationTimestamp": "2025-11-02T09:14:31Z",
            "managedFields": [
                {
                    "apiVersion": "coordination.k8s.io/v1",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {
                        "f:metadata": {
                            "f:ownerReferences": {
                                ".": {},
                                'k:{"uid":"%s"}' % uid("node/" + name): {},
                            }
                        },
                        "f:spec": {
                            "f:holderIdentity": {},
                            "f:leaseDurationSeconds": {},
                            "f:renewTime": {},
                        },
                    },
                    "manager": "kubelet",
                    "operation": "Update",
                    "time": seconds(stored),
                }
            ],
            "name": name,
            "namespace": "kube-node-lease",
            "ownerReferences": [
                {
                    "apiVersion": "v1",
                    "kind": "Node",
                    "name": name,
                    "uid": uid("node/" + name),
                }
            ],
            "resourceVersion": str(4_800_000 + int(1000 - renewed_ago)),
            "uid": uid("lease/" + name),
        },
        "spec": {
            "holderIdentity": name,
            "leaseDurationSeconds": 40,
            "renewTime": renew_text or micro(renew),
        },
    }


def apiserver_lease(host, renewed_ago, clock_ahead=0.0):
    """A kube-apiserver identity Lease (kube-system). The API server renews it
    through its own loopback client, so renewTime and managedFields are both
    its own clock."""
    apiserver_id = "apiserver-" + uid("host/" + host).replace("-", "")[:26]
    own = ago(renewed_ago) + timedelta(seconds=clock_ahead)
    return {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {
            "creationTimestamp": "2025-12-30T07:01:12Z",
            "labels": {
                "apiserver.kubernetes.io/identity": "kube-apiserver",
                "kubernetes.io/hostname": host,
            },
            "managedFields": [
                {
                    "apiVersion": "coordination.k8s.io/v1",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {
                        "f:metadata": {
                            "f:labels": {
                                ".": {},
                                "f:apiserver.kubernetes.io/identity": {},
                                "f:kubernetes.io/hostname": {},
                            }
                        },
                        "f:spec": {
                            "f:holderIdentity": {},
                            "f:leaseDurationSeconds": {},
                            "f:renewTime": {},
                        },
                    },
                    "manager": "kube-apiserver",
                    "operation": "Update",
                    "time": seconds(own),
                }
            ],
            "name": apiserver_id,
            "namespace": "kube-system",
            "resourceVersion": str(4_800_500 + int(1000 - renewed_ago)),
            "uid": uid("lease/" + apiserver_id),
        },
        "spec": {
            "holderIdentity": apiserver_id + "_" + uid("holder/" + host),
            "leaseDurationSeconds": 3600,
            "renewTime": micro(own),
        },
    }


def leader_lease(name, holder, renewed_ago):
    """A leader-election Lease: neither a node nor an API server identity."""
    return {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {
            "creationTimestamp": "2025-11-02T09:12:50Z",
            "managedFields": [
                {
                    "apiVersion": "coordination.k8s.io/v1",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {
                        "f:spec": {
                            "f:acquireTime": {},
                            "f:holderIdentity": {},
                            "f:leaseDurationSeconds": {},
                            "f:leaseTransitions": {},
                            "f:renewTime": {},
                        }
                    },
                    "manager": name,
                    "operation": "Update",
                    "time": seconds(ago(renewed_ago)),
                }
            ],
            "name": name,
            "namespace": "kube-system",
            "resourceVersion": "4799998",
            "uid": uid("lease/" + name),
        },
        "spec": {
            "acquireTime": "2025-12-30T07:01:40.000000Z",
            "holderIdentity": holder + "_" + uid("leader/" + name),
            "leaseDurationSeconds": 15,
            "leaseTransitions": 3,
            "renewTime": micro(ago(renewed_ago)),
        },
    }


def condition(kind, status, heartbeat, transition, reason, message):
    return {
        "lastHeartbeatTime": seconds(heartbeat),
        "lastTransitionTime": seconds(transition),
        "message": message,
        "reason": reason,
        "status": status,
        "type": kind,
    }


def node(name, index, reported_ago, kubelet_ahead=0.0, latency=0.3, down=False, heartbeat_text=None):
    """A Node whose kubelet last posted status `reported_ago` seconds before NOW
    (reference time): lastHeartbeatTime from the kubelet's clock, the status
    managedFields entry stamped by cp-1 `latency` seconds later."""
    written = ago(reported_ago)
    heartbeat = written + timedelta(seconds=kubelet_ahead)
    stored = written + timedelta(seconds=latency)
    since = datetime(2025, 12, 30, 7, 2, 11, tzinfo=timezone.utc)
    if down:
        conditions = [
            condition(k, "Unknown", heartbeat, ago(reported_ago - 40), "NodeStatusUnknown",
                      "Kubelet stopped posting node status.")
            for k in ("MemoryPressure", "DiskPressure", "PIDPressure", "Ready")
        ]
    else:
        conditions = [
            condition("MemoryPressure", "False", heartbeat, since, "KubeletHasSufficientMemory",
                      "kubelet has sufficient memory available"),
            condition("DiskPressure", "False", heartbeat, since, "KubeletHasNoDiskPressure",
                      "kubelet has no disk pressure"),
            condition("PIDPressure", "False", heartbeat, since, "KubeletHasSufficientPID",
                      "kubelet has sufficient PID available"),
            condition("Ready", "True", heartbeat, since, "KubeletReady",
                      "kubelet is posting ready status"),
        ]
    if heartbeat_text:
        for c in conditions:
            c["lastHeartbeatTime"] = heartbeat_text
    address = "10.0.1.%d" % (10 + index)
    managed = [
        {
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:metadata": {"f:annotations": {"f:kubeadm.alpha.kubernetes.io/cri-socket": {}}}},
            "manager": "kubeadm",
            "operation": "Update",
            "time": "2025-11-02T09:14:33Z",
        },
        {
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {
                "f:metadata": {
                    "f:annotations": {".": {}, "f:node.alpha.kubernetes.io/ttl": {}},
                    "f:labels": {".": {}, "f:kubernetes.io/hostname": {}, "f:kubernetes.io/os": {}},
                }
            },
            "manager": "kubelet",
            "operation": "Update",
            "time": "2025-12-30T07:02:11Z",
        },
        {
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:spec": {"f:podCIDR": {}, "f:podCIDRs": {".": {}, 'v:"10.244.%d.0/24"' % index: {}}}},
            "manager": "kube-controller-manager",
            "operation": "Update",
            "time": "2025-11-02T09:14:45Z",
        },
        {
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {
                "f:status": {
                    "f:conditions": {
                        'k:{"type":"DiskPressure"}': {"f:lastHeartbeatTime": {}},
                        'k:{"type":"MemoryPressure"}': {"f:lastHeartbeatTime": {}},
                        'k:{"type":"PIDPressure"}': {"f:lastHeartbeatTime": {}},
                        'k:{"type":"Ready"}': {
                            "f:lastHeartbeatTime": {},
                            "f:lastTransitionTime": {},
                            "f:message": {},
                            "f:reason": {},
                            "f:status": {},
                        },
                    },
                    "f:images": {},
                    "f:nodeInfo": {"f:bootID": {}},
                }
            },
            "manager": "kubelet",
            "operation": "Update",
            "subresource": "status",
            "time": seconds(stored),
        },
    ]
    if down:
        managed.append(
            {
                "apiVersion": "v1",
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:spec": {"f:taints": {}}, "f:status": {"f:conditions": {}}},
                "manager": "kube-controller-manager",
                "operation": "Update",
                "subresource": "status",
                "time": seconds(ago(reported_ago - 40)),
            }
        )
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "annotations": {
                "kubeadm.alpha.kubernetes.io/cri-socket": "unix:///run/containerd/containerd.sock",
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
            },
            "creationTimestamp": "2025-11-02T09:14:31Z",
            "labels": {
                "beta.kubernetes.io/arch": "amd64",
                "beta.kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
            },
            "managedFields": managed,
            "name": name,
            "resourceVersion": str(4_790_000 + index),
            "uid": uid("node/" + name),
        },
        "spec": {
            "podCIDR": "10.244.%d.0/24" % index,
            "podCIDRs": ["10.244.%d.0/24" % index],
            **({"taints": [
                {"effect": "NoSchedule", "key": "node.kubernetes.io/unreachable",
                 "timeAdded": seconds(ago(reported_ago - 40))},
                {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable",
                 "timeAdded": seconds(ago(reported_ago - 45))},
            ]} if down else {}),
        },
        "status": {
            "addresses": [
                {"address": address, "type": "InternalIP"},
                {"address": name, "type": "Hostname"},
            ],
            "allocatable": {"cpu": "4", "ephemeral-storage": "95500736Ki", "memory": "16179436Ki", "pods": "110"},
            "capacity": {"cpu": "4", "ephemeral-storage": "103623740Ki", "memory": "16281836Ki", "pods": "110"},
            "conditions": conditions,
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {
                "architecture": "amd64",
                "bootID": uid("boot/" + name),
                "containerRuntimeVersion": "containerd://2.1.4",
                "kernelVersion": "6.8.0-88-generic",
                "kubeProxyVersion": KUBELET_VERSION,
                "kubeletVersion": KUBELET_VERSION,
                "machineID": uid("machine/" + name).replace("-", ""),
                "operatingSystem": "linux",
                "osImage": "Ubuntu 24.04.3 LTS",
                "systemUUID": uid("system/" + name),
            },
        },
    }


def kubectl_list(items):
    """`kubectl get … -o json` prints a v1 List."""
    return {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}


def write(name, doc):
    path = os.path.join(OUT, name)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=4, sort_keys=False)
        f.write("\n")
    print("wrote", path)


def main():
    os.makedirs(OUT, exist_ok=True)
    node_leases = [
        node_lease("node-a", 3.214567),
        node_lease("node-b", 6.5, kubelet_ahead=90.0),
        node_lease("node-c", 8.9),
        node_lease("node-d", 600.0),
        node_lease("node-e", 4.0, renew_text="yesterday"),
    ]
    write("node-leases.json", kubectl_list(node_leases))
    everything = [
        leader_lease("kube-controller-manager", "cp-1", 1.2),
        leader_lease("kube-scheduler", "cp-1", 0.8),
        apiserver_lease("cp-1", 4.0),
        apiserver_lease("cp-2", 2.0, clock_ahead=-90.0),
    ] + node_leases
    write("leases-all.json", kubectl_list(everything))
    write("apiserver-leases.json", kubectl_list(everything[2:4]))
    nodes = [
        node("node-a", 1, 130.0),
        node("node-b", 2, 40.0, kubelet_ahead=90.0),
        node("node-c", 3, 239.0),
        node("node-d", 4, 600.0, down=True),
        node("node-e", 5, 60.0, heartbeat_text="2026-13-45T99:00:00Z"),
    ]
    write("nodes.json", kubectl_list(nodes))
    # kubectl 1.21+ hides managedFields unless --show-managed-fields.
    plain = json.loads(json.dumps(node_leases[:3]))
    for item in plain:
        del item["metadata"]["managedFields"]
    write("node-leases-no-managed-fields.json", kubectl_list(plain))


if __name__ == "__main__":
    main()
