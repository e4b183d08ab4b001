#!/usr/bin/env python3
"""Writes a realistic Kubernetes audit log (audit.k8s.io/v1 events, as the log
backend writes them: one JSON object per line, kube-apiserver's field order),
deterministic from a seed, of any size.

The log is a day (by default) of a cluster of several hundred identities:
kubelets, controllers, operators and workloads with pod-bound tokens (user.extra
carries the pod, node and credential id), at least 97 % of requests accepted,
a realistic mix of verbs and resources, and these problems, which the tests
of `kubectl satoken audit` assert (tests/it/audit.rs):

  - payments/ledger: its ServiceAccount is deleted and recreated at 08:00 (the
    delete is in the log, and the new uid shows in later requests); the pod
    that kept its old token gets 401 from then on (attributed by source IP and
    user agent: a guess).
  - batch/exporter: its pod is deleted at 15:00 (the delete is in the log); a
    laptop that copied the pod's token keeps using it and gets 401.
  - shop/reporter: an external client whose token expires at 13:00: 401s.
  - ml/ray-job: RBAC 403 on rayclusters/status (ray.io); monitoring/prom: RBAC
    403 listing nodes at the cluster scope.
  - shop/checkout: 403 from quota (create pods); ci/deployer: 403 from an
    admission webhook (create deployments): not RBAC.
  - 10.244.9.9: anonymous 403s (a client that sends no token).
  - analytics/*: stale tokens (clients that never re-read the projected token).
  - ci/deployer and legacy/backup: legacy Secret tokens.

With --token-requests it also writes, at the start of the day, the TokenRequest
events (create on serviceaccounts/token, annotated with the issued credential
id) that minted the pod tokens: by each pod's kubelet, at the levels Metadata,
Request and RequestResponse in turn (the last with a fake status.token that
must never be printed), except analytics/etl-* (stale tokens: minted before the
log starts); and a token minted by a user (alice@example.com, `kubectl create
token`, bound to the batch/exporter pod) that the laptop uses. These events
come from their own random stream: the rest of the log is byte-identical with
and without the flag.

With --apiserver-log FILE it also writes the kube-apiserver log lines
("Unable to authenticate the request" with each 401's reason, at the same
instant, among unrelated lines).

Usage:
  scripts/gen_audit.py --size 200M -o /tmp/audit.log
  scripts/gen_audit.py --events 20000 --seed 7 -o audit.jsonl --apiserver-log apiserver.log
  scripts/gen_audit.py --events 300 --format eventlist -o list.json
  scripts/gen_audit.py --size 50M --gzip -o audit.log.gz
"""

import argparse
import datetime as dt
import gzip
import json
import random
import sys
import uuid

START = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)

AGENTS = {
    "kubelet": "kubelet/v1.33.1 (linux/amd64) kubernetes/8adc0f0",
    "controller": "kube-controller-manager/v1.33.1 (linux/amd64) kubernetes/8adc0f0/system:serviceaccount:kube-system:{name}",
    "scheduler": "kube-scheduler/v1.33.1 (linux/amd64) kubernetes/8adc0f0/scheduler",
    "operator": "manager/v0.0.0 (linux/amd64) kubernetes/$Format",
    "python": "python-requests/2.31.0",
    "python-k8s": "OpenAPI-Generator/29.0.0/python",
    "go": "Go-http-client/2.0",
    "java": "fabric8-kubernetes-client/6.10.0",
    "prometheus": "Prometheus/2.53.0",
    "argocd": "argocd-application-controller/v2.11.3 (linux/amd64)",
    "kubectl": "kubectl/v1.33.0 (linux/amd64) kubernetes/8adc0f0",
}

RESOURCES = [
    # (resource, group, namespaced, weight)
    ("pods", "", True, 22),
    ("configmaps", "", True, 12),
    ("secrets", "", True, 8),
    ("leases", "coordination.k8s.io", True, 18),
    ("events", "", True, 6),
    ("endpointslices", "discovery.k8s.io", True, 8),
    ("services", "", True, 5),
    ("deployments", "apps", True, 5),
    ("replicasets", "apps", True, 3),
    ("nodes", "", False, 7),
    ("namespaces", "", False, 2),
    ("jobs", "batch", True, 2),
    ("customresourcedefinitions", "apiextensions.k8s.io", False, 1),
]
VERBS = [("get", 34), ("list", 14), ("watch", 10), ("update", 14), ("patch", 10), ("create", 12), ("delete", 3)]

NAMESPACES = [
    "shop", "payments", "ml", "monitoring", "batch", "analytics", "ci", "legacy",
    "search", "auth", "media", "inventory", "orders", "billing", "notify", "data",
    "edge", "ingress", "logging", "platform",
]
WORKLOADS = [
    "api", "worker", "web", "cron", "sync", "indexer", "gateway", "cache", "scheduler",
    "metrics", "controller", "agent",
]


def uid(rng):
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def stamp(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Identity:
    def __init__(self, user, uid_, agent, ip, pod=None, pod_uid=None, node=None, node_uid=None, jti=None, groups=None, weight=1.0):
        self.user = user
        self.uid = uid_
        self.agent = agent
        self.ip = ip
        self.pod = pod
        self.pod_uid = pod_uid
        self.node = node
        self.node_uid = node_uid
        self.jti = jti
        self.groups = groups or ["system:authenticated"]
        self.weight = weight
        self.stale_from = None  # seconds since start when warnafter passes
        self.legacy_secret = None
        self.namespace = user.split(":")[2] if user.startswith("system:serviceaccount:") else None

    def user_json(self):
        u = {"username": self.user, "uid": self.uid, "groups": self.groups}
        if self.pod:
            u["extra"] = {
                "authentication.kubernetes.io/credential-id": ["JTI=" + self.jti],
                "authentication.kubernetes.io/node-name": [self.node],
                "authentication.kubernetes.io/node-uid": [self.node_uid],
                "authentication.kubernetes.io/pod-name": [self.pod],
                "authentication.kubernetes.io/pod-uid": [self.pod_uid],
            }
        return u


def build_identities(rng):
    nodes = [(f"worker-{i}", uid(rng), f"10.0.{i // 200}.{10 + i % 200}") for i in range(30)]
    ids = []
    for name, nuid, nip in nodes:
        ids.append(Identity(f"system:node:{name}", "", AGENTS["kubelet"], nip, groups=["system:nodes", "system:authenticated"], weight=6))
    for c in ["replicaset-controller", "deployment-controller", "endpointslice-controller", "namespace-controller", "job-controller", "generic-garbage-collector"]:
        ids.append(Identity(f"system:serviceaccount:kube-system:{c}", uid(rng), AGENTS["controller"].format(name=c), "10.0.0.2", weight=8))
    ids.append(Identity("system:kube-scheduler", "", AGENTS["scheduler"], "10.0.0.2", weight=10))
    ids.append(Identity("system:kube-controller-manager", "", AGENTS["controller"].format(name="leader"), "10.0.0.2", weight=10))
    pod_ip = [0]

    def next_ip():
        pod_ip[0] += 1
        return f"10.244.{pod_ip[0] // 250}.{1 + pod_ip[0] % 250}"

    sa_uids = {}
    for ns in NAMESPACES:
        for w in rng.sample(WORKLOADS, 5):
            sa = f"system:serviceaccount:{ns}:{w}"
            sa_uids[sa] = uid(rng)
            agent = AGENTS[rng.choice(["python", "python-k8s", "go", "go", "java", "operator"])]
            for r in range(rng.randint(1, 4)):
                node = rng.choice(nodes)
                pod = f"{w}-{rng.getrandbits(32):08x}"[:14] + f"-{rng.getrandbits(20):05x}"
                ids.append(Identity(sa, sa_uids[sa], agent, next_ip(), pod=pod, pod_uid=uid(rng), node=node[0], node_uid=node[1], jti=uid(rng),
                                    groups=["system:serviceaccounts", f"system:serviceaccounts:{ns}", "system:authenticated"], weight=rng.choice([0.5, 1, 1, 2, 4])))
    return ids, nodes, sa_uids, next_ip


class Scenario:
    """The injected problems: identities and when they happen."""

    def __init__(self, rng, ids, nodes, next_ip):
        self.rng = rng
        node = nodes[3]

        def sa_pod(ns, name, agent, ip=None, weight=1.0):
            sa = f"system:serviceaccount:{ns}:{name}"
            i = Identity(sa, uid(rng), agent, ip or next_ip(), pod=f"{name}-7d9f8b6c5-{rng.getrandbits(20):05x}", pod_uid=uid(rng),
                         node=node[0], node_uid=node[1], jti=uid(rng),
                         groups=["system:serviceaccounts", f"system:serviceaccounts:{ns}", "system:authenticated"], weight=weight)
            ids.append(i)
            return i

        # payments/ledger: ServiceAccount recreated at 08:00.
        self.ledger_old = sa_pod("payments", "ledger", AGENTS["java"], weight=2)
        self.ledger_new = Identity(self.ledger_old.user, uid(rng), AGENTS["java"], next_ip(), pod=f"ledger-5c8d7-{rng.getrandbits(20):05x}", pod_uid=uid(rng),
                                   node=node[0], node_uid=node[1], jti=uid(rng), groups=self.ledger_old.groups, weight=2)
        self.ledger_at = 8 * 3600
        # batch/exporter: pod deleted at 15:00; a laptop kept a copy of its token.
        self.exporter = sa_pod("batch", "exporter", AGENTS["go"])
        self.laptop = Identity(self.exporter.user, self.exporter.uid, AGENTS["kubectl"], "192.0.2.77", pod=self.exporter.pod, pod_uid=self.exporter.pod_uid,
                               node=self.exporter.node, node_uid=self.exporter.node_uid, jti=uid(rng), groups=self.exporter.groups, weight=3)
        ids.append(self.laptop)
        self.exporter_at = 15 * 3600
        # shop/reporter: an external client; its token expires at 13:00.
        self.reporter = Identity("system:serviceaccount:shop:reporter", uid(rng), AGENTS["python"], "198.51.100.23",
                                 groups=["system:serviceaccounts", "system:serviceaccounts:shop", "system:authenticated"], weight=1)
        self.reporter_at = 13 * 3600
        ids.append(self.reporter)
        # RBAC 403s, quota and webhook 403s.
        self.ray = sa_pod("ml", "ray-job", AGENTS["python-k8s"], weight=1)
        self.prom = sa_pod("monitoring", "prom", AGENTS["prometheus"], weight=1)
        self.checkout = sa_pod("shop", "checkout", AGENTS["go"], weight=2)
        self.deployer = Identity("system:serviceaccount:ci:deployer", uid(rng), AGENTS["argocd"], "10.244.30.5",
                                 groups=["system:serviceaccounts", "system:serviceaccounts:ci", "system:authenticated"], weight=2)
        self.deployer.legacy_secret = ("autogenerated", "deployer-token-x7k2p")
        ids.append(self.deployer)
        self.backup = Identity("system:serviceaccount:legacy:backup", uid(rng), AGENTS["go"], "10.244.30.6",
                               groups=["system:serviceaccounts", "system:serviceaccounts:legacy", "system:authenticated"], weight=0.5)
        self.backup.legacy_secret = ("manual", "backup-token")
        ids.append(self.backup)
        self.anonymous_ip = "10.244.9.9"
        # analytics/*: stale tokens (python clients that read the token once).
        self.stale = []
        for k in range(8):
            s = sa_pod("analytics", f"etl-{k}", AGENTS["python-k8s"], weight=0.8)
            s.stale_from = rng.randint(0, 10 * 3600)
            self.stale.append(s)


def weighted(rng, items):
    total = sum(w for *_, w in items)
    x = rng.uniform(0, total)
    for item in items:
        x -= item[-1]
        if x <= 0:
            return item
    return items[-1]


class Writer:
    def __init__(self, args, rng):
        self.args = args
        self.rng = rng
        self.out = None
        self.bytes = 0
        self.events = 0
        self.log = open(args.apiserver_log, "w") if args.apiserver_log else None
        self.items = []

    def open(self):
        a = self.args
        if a.output in (None, "-"):
            raw = sys.stdout.buffer
        else:
            raw = open(a.output, "wb")
        self.out = gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=1) if a.gzip else raw
        self.raw = raw

    def event(self, t, identity, verb, uri, obj, code, message=None, reason=None, annotations=None, user=None, stage="ResponseComplete"):
        ev = {
            "kind": "Event",
            "apiVersion": "audit.k8s.io/v1",
            "level": "Metadata",
            "auditID": uid(self.rng),
            "stage": stage,
            "requestURI": uri,
            "verb": verb,
            "user": user if user is not None else identity.user_json(),
            "sourceIPs": [identity.ip],
            "userAgent": identity.agent,
        }
        if obj:
            ev["objectRef"] = obj
        status = {"metadata": {}}
        if code >= 300:
            status["status"] = "Failure"
            status["message"] = message or ""
            status["reason"] = reason if reason is not None else ""
        status["code"] = code
        ev["responseStatus"] = status
        ev["requestReceivedTimestamp"] = stamp(t)
        ev["stageTimestamp"] = stamp(t + dt.timedelta(microseconds=self.rng.randint(800, 40000)))
        if annotations:
            ev["annotations"] = annotations
        self.write(ev)

    def write(self, ev):
        self.events += 1
        if self.args.format == "eventlist":
            self.items.append(ev)
            return
        line = (json.dumps(ev, separators=(",", ":")) + "\n").encode()
        self.out.write(line)
        self.bytes += len(line)

    def apiserver(self, t, err):
        if self.log:
            quoted = json.dumps(err)
            self.log.write(f'E{t:%m%d %H:%M:%S.%f}       1 authentication.go:75] "Unable to authenticate the request" err={quoted}\n')

    def noise(self, t):
        if self.log and self.rng.random() < 0.3:
            self.log.write(f'I{t:%m%d %H:%M:%S.%f}       1 trace.go:236] Trace[{self.rng.getrandbits(30)}]: "List" accept:application/json (total time: 612ms)\n')

    def close(self):
        if self.args.format == "eventlist":
            doc = {"kind": "EventList", "apiVersion": "audit.k8s.io/v1", "metadata": {}, "items": self.items}
            data = (json.dumps(doc, indent=2) + "\n").encode()
            self.out.write(data)
            self.bytes += len(data)
        if self.args.gzip:
            self.out.close()
        if self.raw is not sys.stdout.buffer:
            self.raw.close()
        else:
            self.raw.flush()
        if self.log:
            self.log.close()


FAKE_TOKEN = "eyJhbGciOiJSUzI1NiIsImtpZCI6ImZha2UifQ.eyJzdWIiOiJmYWtlIn0.ZmFrZS1zaWduYXR1cmU"
LEVELS = ["RequestResponse", "Metadata", "Request"]


def token_request(w, rng, t, minter, identity, level, seconds, audiences):
    """One TokenRequest audit event minting identity's token (its jti)."""
    _, _, ns, sa = identity.user.split(":")
    spec = {"audiences": audiences, "expirationSeconds": seconds,
            "boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": identity.pod, "uid": identity.pod_uid}}
    ev = {
        "kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": level, "auditID": uid(rng),
        "stage": "ResponseComplete", "requestURI": f"/api/v1/namespaces/{ns}/serviceaccounts/{sa}/token",
        "verb": "create", "user": minter.user_json(), "sourceIPs": [minter.ip], "userAgent": minter.agent,
        "objectRef": {"resource": "serviceaccounts", "namespace": ns, "name": sa, "apiVersion": "v1", "subresource": "token"},
        "responseStatus": {"metadata": {}, "code": 201},
    }
    if level in ("Request", "RequestResponse"):
        ev["requestObject"] = {"kind": "TokenRequest", "apiVersion": "authentication.k8s.io/v1", "metadata": {"creationTimestamp": None}, "spec": spec, "status": {"token": "", "expirationTimestamp": None}}
    if level == "RequestResponse":
        # The kubelet's 3607 s are extended to a year (extended expiry).
        issued = 365 * 86400 if seconds == 3607 else seconds
        ev["responseObject"] = {"kind": "TokenRequest", "apiVersion": "authentication.k8s.io/v1", "metadata": {"name": sa, "namespace": ns, "creationTimestamp": stamp(t)},
                                "spec": dict(spec, expirationSeconds=issued), "status": {"token": FAKE_TOKEN, "expirationTimestamp": (t + dt.timedelta(seconds=issued)).strftime("%Y-%m-%dT%H:%M:%SZ")}}
    ev["requestReceivedTimestamp"] = stamp(t)
    ev["stageTimestamp"] = stamp(t + dt.timedelta(microseconds=rng.randint(800, 9000)))
    ev["annotations"] = {"authentication.kubernetes.io/issued-credential-id": "JTI=" + identity.jti,
                         "authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": ""}
    w.write(ev)


def token_requests(w, seed, ids, nodes, sc):
    """The minting events of the pod tokens (see --token-requests)."""
    rng = random.Random(seed * 7919 + 17)
    kubelets = {name: Identity(f"system:node:{name}", "", AGENTS["kubelet"], nip, groups=["system:nodes", "system:authenticated"]) for name, _, nip in nodes}
    t = START
    n = 0
    for i in ids:
        if not i.pod or i is sc.laptop or i in sc.stale:
            continue
        t += dt.timedelta(milliseconds=rng.randint(50, 900))
        token_request(w, rng, t, kubelets[i.node], i, LEVELS[n % 3], 3607, ["https://kubernetes.default.svc.cluster.local"])
        n += 1
    alice = Identity("alice@example.com", "", AGENTS["kubectl"], "192.0.2.77", groups=["devs", "system:authenticated"])
    token_request(w, rng, t + dt.timedelta(seconds=1), alice, sc.laptop, "Request", 86400, ["https://kubernetes.default.svc.cluster.local"])


def request(rng, identity):
    res, group, namespaced, _ = weighted(rng, RESOURCES)
    verb = weighted(rng, VERBS)[0]
    ns = identity.namespace or rng.choice(NAMESPACES)
    base = f"/apis/{group}/v1" if group else "/api/v1"
    name = None
    if verb in ("get", "update", "patch", "delete"):
        name = f"{res[:-1]}-{rng.getrandbits(16):04x}"
    if namespaced:
        uri = f"{base}/namespaces/{ns}/{res}"
    else:
        uri = f"{base}/{res}"
    if name:
        uri += "/" + name
    if verb == "watch":
        uri += "?watch=true&resourceVersion=" + str(rng.randint(10**6, 10**7))
    obj = {"resource": res}
    if namespaced:
        obj["namespace"] = ns
    if name:
        obj["name"] = name
    if group:
        obj["apiGroup"] = group
    obj["apiVersion"] = "v1"
    return verb, uri, obj, (res, group, namespaced, ns, name)


def parse_size(text):
    units = {"K": 10**3, "M": 10**6, "G": 10**9}
    if text[-1].upper() in units:
        return int(float(text[:-1]) * units[text[-1].upper()])
    return int(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", help="target size in bytes (K, M, G suffixes), uncompressed")
    ap.add_argument("--events", type=int, help="number of requests instead of --size")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hours", type=float, default=24)
    ap.add_argument("--gzip", action="store_true")
    ap.add_argument("--format", choices=["jsonl", "eventlist"], default="jsonl")
    ap.add_argument("--request-received", type=float, default=0.05, help="fraction of requests that also get a RequestReceived event")
    ap.add_argument("--apiserver-log", help="also write kube-apiserver log lines here")
    ap.add_argument("--token-requests", action="store_true", help="also write the TokenRequest events that minted the pod tokens")
    ap.add_argument("-o", "--output", help="output file (default stdout)")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    ids, nodes, sa_uids, next_ip = build_identities(rng)
    sc = Scenario(rng, ids, nodes, next_ip)
    target_events = a.events or max(1, parse_size(a.size or "20M") // 1050)
    span = a.hours * 3600
    w = Writer(a, rng)
    w.open()
    weights = [i.weight for i in ids]
    cum = []
    acc = 0.0
    for x in weights:
        acc += x
        cum.append(acc)
    import bisect

    def pick():
        return ids[bisect.bisect_left(cum, rng.uniform(0, acc))]

    if a.token_requests:
        token_requests(w, a.seed, ids, nodes, sc)
    target_bytes = parse_size(a.size) if a.size and not a.events else None
    n = 0
    deleted = {"ledger": False, "exporter": False}
    while True:
        if a.events and n >= a.events:
            break
        if target_bytes and w.bytes >= target_bytes:
            break
        n += 1
        total = a.events or target_events
        secs = span * min(n / total, 0.999999)
        t = START + dt.timedelta(seconds=secs)
        w.noise(t)
        # The injected deletions happen once, at their time.
        if not deleted["ledger"] and secs >= sc.ledger_at:
            deleted["ledger"] = True
            admin = Identity("kubernetes-admin", "", AGENTS["argocd"], "10.0.0.9", groups=["system:masters", "system:authenticated"])
            w.event(t, admin, "delete", "/api/v1/namespaces/payments/serviceaccounts/ledger",
                    {"resource": "serviceaccounts", "namespace": "payments", "name": "ledger", "apiVersion": "v1"}, 200)
            w.event(t, admin, "create", "/api/v1/namespaces/payments/serviceaccounts",
                    {"resource": "serviceaccounts", "namespace": "payments", "name": "ledger", "apiVersion": "v1"}, 201)
            ids.append(sc.ledger_new)
            weights.append(sc.ledger_new.weight)
            acc += sc.ledger_new.weight
            cum.append(acc)
        if not deleted["exporter"] and secs >= sc.exporter_at:
            deleted["exporter"] = True
            rs = Identity("system:serviceaccount:kube-system:replicaset-controller", "", AGENTS["controller"].format(name="replicaset-controller"), "10.0.0.2")
            w.event(t, rs, "delete", f"/api/v1/namespaces/batch/pods/{sc.exporter.pod}",
                    {"resource": "pods", "namespace": "batch", "name": sc.exporter.pod, "apiVersion": "v1"}, 200)
        x = rng.random()
        # About 2.4 % of requests are the injected failures; the rest is traffic.
        if x < 0.004 and secs >= sc.ledger_at:
            i = sc.ledger_old
            verb, uri, obj, _ = request(rng, i)
            w.event(t, i, verb, uri, obj, 401, "Authentication failed, attempted: bearer", user={}, stage="ResponseStarted")
            w.apiserver(t, f"[invalid bearer token, service account UID ({sc.ledger_new.uid}) does not match claim ({sc.ledger_old.uid})]")
            continue
        if x < 0.006 and secs >= sc.exporter_at:
            i = sc.laptop
            verb, uri, obj, _ = request(rng, i)
            w.event(t, i, verb, uri, obj, 401, "Authentication failed, attempted: bearer", user={}, stage="ResponseStarted")
            w.apiserver(t, "[invalid bearer token, service account token has been invalidated]")
            continue
        if x < 0.008 and secs >= sc.reporter_at:
            i = sc.reporter
            verb, uri, obj, _ = request(rng, i)
            w.event(t, i, verb, uri, obj, 401, "Authentication failed, attempted: bearer", user={}, stage="ResponseStarted")
            w.apiserver(t, "[invalid bearer token, service account token has expired]")
            continue
        if x < 0.012:
            i = sc.ray
            w.event(t, i, "get", "/apis/ray.io/v1/namespaces/ml/rayclusters/raycluster-kuberay/status",
                    {"resource": "rayclusters", "subresource": "status", "namespace": "ml", "name": "raycluster-kuberay", "apiGroup": "ray.io", "apiVersion": "v1"},
                    403, f'rayclusters.ray.io "raycluster-kuberay" is forbidden: User "{i.user}" cannot get resource "rayclusters/status" in API group "ray.io" in the namespace "ml"',
                    "Forbidden", {"authorization.k8s.io/decision": "forbid", "authorization.k8s.io/reason": ""})
            continue
        if x < 0.014:
            i = sc.prom
            w.event(t, i, "list", "/api/v1/nodes", {"resource": "nodes", "apiVersion": "v1"},
                    403, f'nodes is forbidden: User "{i.user}" cannot list resource "nodes" in API group "" at the cluster scope',
                    "Forbidden", {"authorization.k8s.io/decision": "forbid", "authorization.k8s.io/reason": ""})
            continue
        if x < 0.0155:
            i = sc.checkout
            used = rng.randint(8, 16)
            w.event(t, i, "create", "/api/v1/namespaces/shop/pods", {"resource": "pods", "namespace": "shop", "apiVersion": "v1"},
                    403, f'pods "checkout-job-{rng.getrandbits(20):05x}" is forbidden: exceeded quota: compute, requested: cpu=500m, used: cpu={used}, limited: cpu={used}',
                    "Forbidden", {"authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": "RBAC: allowed by RoleBinding"})
            continue
        if x < 0.0165:
            i = sc.deployer
            w.event(t, i, "create", "/apis/apps/v1/namespaces/shop/deployments", {"resource": "deployments", "namespace": "shop", "apiGroup": "apps", "apiVersion": "v1"},
                    403, 'admission webhook "validate.kyverno.svc-fail" denied the request: policy Deployment/shop/web for resource violation: require-requests-limits',
                    "Forbidden", {"authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": "RBAC: allowed by ClusterRoleBinding"})
            continue
        if x < 0.0175:
            i = Identity("system:anonymous", "", AGENTS["go"], sc.anonymous_ip)
            w.event(t, i, "get", "/api/v1/namespaces/shop/configmaps/settings", {"resource": "configmaps", "namespace": "shop", "name": "settings", "apiVersion": "v1"},
                    403, 'configmaps "settings" is forbidden: User "system:anonymous" cannot get resource "configmaps" in API group "" in the namespace "shop"',
                    "Forbidden", {"authorization.k8s.io/decision": "forbid", "authorization.k8s.io/reason": ""},
                    user={"username": "system:anonymous", "groups": ["system:unauthenticated"]})
            continue
        i = pick()
        if i is sc.ledger_old and secs >= sc.ledger_at:
            i = sc.ledger_new
        if i is sc.exporter and secs >= sc.exporter_at:
            continue
        if i is sc.laptop and secs >= sc.exporter_at:
            continue
        if i is sc.reporter and secs >= sc.reporter_at:
            continue
        verb, uri, obj, (res, group, namespaced, ns, name) = request(rng, i)
        r = rng.random()
        code, message, reason = (201 if verb == "create" else 200), None, None
        if r < 0.006 and verb in ("get", "delete", "patch", "update"):
            code, reason = 404, "NotFound"
            message = f'{res}{"." + group if group else ""} "{name}" not found'
        elif r < 0.008 and verb in ("update", "patch"):
            code, reason = 409, "Conflict"
            message = f'Operation cannot be fulfilled on {res} "{name}": the object has been modified; please apply your changes to the latest version and try again'
        elif r < 0.0083:
            code, reason, message = 429, "TooManyRequests", "Too many requests, please try again later."
        annotations = {"authorization.k8s.io/decision": "allow",
                       "authorization.k8s.io/reason": f'RBAC: allowed by ClusterRoleBinding "system:{i.user.split(":")[-1]}" of ClusterRole "edit" to User "{i.user}"'}
        if i.stale_from is not None and secs >= i.stale_from:
            annotations["authentication.k8s.io/stale-token"] = f"subject: {i.user}, seconds after warning threshold: {int(secs - i.stale_from)}"
        if i.legacy_secret:
            annotations["authentication.k8s.io/legacy-token"] = i.user
            kind, secret = i.legacy_secret
            annotations[f"authentication.k8s.io/legacy-token-{kind}-secret"] = secret
        if a.request_received and rng.random() < a.request_received:
            ev_user = i.user_json()
            w.event(t, i, verb, uri, obj, code, message, reason, None, user=ev_user, stage="RequestReceived")
        w.event(t, i, verb, uri, obj, code, message, reason, annotations)
    w.close()
    print(f"{w.events} events, {w.bytes} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
