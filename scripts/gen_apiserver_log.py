#!/usr/bin/env python3
"""Writes a realistic kube-apiserver log (klog text, as `kubectl logs` shows it),
deterministic from a seed, of any size, with a small configurable share of
authentication failures, and the counts it planted.

Most of the log is routine chatter at -v=3: one httplog line per request
(`"HTTP" verb=… URI=… latency=… userAgent=… audit-ID=… srcIP=… resp=200`; node
lease renewals, kubelet status patches, controllers' lists and watches,
workloads' reads, probes of /livez and /readyz, discovery, the odd 404, 409 and
429), watch starts, cacher lines, request traces, quota and IP allocation,
leader election, etcd client warnings. Among it:

  - authentication failures: the "Unable to authenticate the request" line in
    the wording of the version of the time (`--versions`: the span is split
    into one part per version, in order, as in logs kept across upgrades;
    ≤1.20 klog `… due to an error: […]`, 1.21+ structured `err="[…]"`, each
    version's authentication.go and httplog.go line numbers and reason
    wordings: k8s.io/apiserver pkg/endpoints/filters/authentication.go,
    kubernetes pkg/serviceaccount), followed by the httplog `resp=401` line of
    the same request at the same timestamp; each with its cause as `kubectl
    satoken explain` names it (expired, clock-skew, service-account-deleted…);
  - 401s without a reason line (a request with no token, anonymous off);
  - 403s (httplog `resp=403`: RBAC denials are not logged at -v=3).

The counts go to FILE.counts.json beside the log (`-o FILE`), or to stderr:
lines, bytes, requests, what `grep -c -E 'Unable to authenticate|resp=40[13]'`
counts, and the planted failures per cause. No routine line matches that grep.

Usage:
  scripts/gen_apiserver_log.py --size 200M -o /tmp/apiserver.log
  scripts/gen_apiserver_log.py --lines 5000 --seed 7 --failures 0.01 -o small.log
  scripts/gen_apiserver_log.py --size 20M --versions 1.33 --timestamps -o cri.log
"""

import argparse
import datetime as dt
import json
import random
import sys
import uuid

from gen_audit import parse_size

START = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
API_AUD = "https://kubernetes.default.svc.cluster.local"

# Version -> (authentication.go line, httplog.go line, wording era). Eras: "old"
# is ≤1.22 ("Token has expired."), "new" 1.23+.
VERSIONS = {
    "1.20": (53, 89, "old"),
    "1.22": (63, 131, "old"),
    "1.25": (63, 131, "new"),
    "1.28": (70, 132, "new"),
    "1.30": (73, 132, "new"),
    "1.32": (74, 134, "new"),
    "1.33": (75, 134, "new"),
}


def minor(version):
    return int(version.split(".")[1])


def reasons(version, rng):
    """Cause -> the reason (inside `[invalid bearer token, …]`) this version logs."""
    era = VERSIONS[version][2]
    m = minor(version)
    old_uid, new_uid = uid(rng), uid(rng)
    sa = rng.choice(WORKLOADS)
    ns = rng.choice(NAMESPACES)
    r = {
        "expired": "service account token has expired" if era == "new" else "Token has expired.",
        "clock-skew": ("service account token is not valid yet" if era == "new" else "Token could not be validated."),
        "service-account-deleted": f'serviceaccounts \\"{sa}\\" not found',
        "service-account-recreated": (f"service account UID ({new_uid}) does not match claim ({old_uid})" if era == "new"
                                      else f"ServiceAccount UID ({new_uid}) does not match claim ({old_uid})"),
        "pod-deleted": (f"pod UID ({new_uid}) does not match service account pod ref claim ({old_uid})" if era == "new"
                        else f"Pod UID ({new_uid}) does not match claim ({old_uid})"),
        "secret-deleted": (f"secret UID ({new_uid}) does not match service account secret ref claim ({old_uid})" if era == "new"
                           else "Token has been invalidated"),
        "signature-invalid": ("go-jose/go-jose" if m >= 33 else "square/go-jose") + ": error in cryptographic primitive",
        "audience-mismatch": f'token audiences [\\"vault\\"] is invalid for the target audiences [\\"{API_AUD}\\"]',
        "legacy-token-invalidated": "Token does not match server's copy",
    }
    if m >= 27:
        r["clock-skew"] = rng.choice([r["clock-skew"], "service account token is issued in the future"])
    if m >= 29:
        r["legacy-token-invalidated"] = rng.choice([
            r["legacy-token-invalidated"],
            f"the token in secret {ns}/{sa}-token-{rng.getrandbits(20):05x} for service account {ns}/{sa} has been marked "
            "invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the "
            "'kubernetes.io/legacy-token-invalid-since' label from the secret to temporarily allow use of this token"])
    if m >= 30:
        r["node-recreated"] = f"node UID ({new_uid}) does not match service account node ref claim ({old_uid})"
    if m >= 31:
        r["key-mismatch"] = "invalid signature, no keys found"
    return r


NAMESPACES = ["shop", "payments", "ml", "monitoring", "batch", "analytics", "ci", "search", "orders", "billing"]
WORKLOADS = ["api", "worker", "web", "cron", "sync", "indexer", "gateway", "cache", "metrics", "agent"]
NODES = [f"worker-{i}" for i in range(1, 13)] + ["cp-1", "cp-2", "cp-3"]
CONTROLLERS = ["replicaset-controller", "deployment-controller", "endpointslice-controller", "job-controller",
               "namespace-controller", "garbage-collector", "daemon-set-controller", "statefulset-controller"]
K8S = "(linux/amd64) kubernetes/8adc0f0"
RESOURCES = [("pods", ""), ("configmaps", ""), ("secrets", ""), ("services", ""), ("endpoints", ""),
             ("deployments", "apps"), ("replicasets", "apps"), ("jobs", "batch"),
             ("endpointslices", "discovery.k8s.io"), ("events", "events.k8s.io")]


def uid(rng):
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def path(resource, group, ns=None, name=None):
    base = f"/apis/{group}/v1" if group else "/api/v1"
    out = base + (f"/namespaces/{ns}" if ns else "") + f"/{resource}"
    return out + (f"/{name}" if name else "")


def latency(rng, long=False):
    if long:
        return f"{rng.randint(5, 9)}m{rng.randint(0, 59)}.{rng.getrandbits(20):06d}s"
    us = rng.lognormvariate(7.2, 0.9)
    if us < 1000:
        return f"{us:.1f}µs"
    return f"{us / 1000:.6f}ms"


class Log:
    def __init__(self, args, rng):
        self.a = args
        self.rng = rng
        self.versions = args.versions.split(",")
        self.out = sys.stdout if args.output in (None, "-") else open(args.output, "w", encoding="utf-8")
        self.lines = self.bytes = self.requests = self.grep = 0
        self.planted = {}
        self.ips = {n: f"10.0.{i // 250}.{10 + i % 250}" for i, n in enumerate(NODES)}

    def write(self, t, text):
        stamp = f"{t:%Y-%m-%dT%H:%M:%S.%f}000Z " if self.a.timestamps else ""
        line = f"{stamp}{text}\n"
        self.out.write(line)
        self.lines += 1
        self.bytes += len(line.encode())

    def klog(self, t, level, where, message):
        self.write(t, f"{level}{t:%m%d %H:%M:%S.%f}       1 {where}] {message}")

    def httplog(self, t, version, verb, uri, agent, ip, code, lat=None):
        self.requests += 1
        self.grep += code in (401, 403)
        line = VERSIONS[version][1]
        audit = f' audit-ID="{uid(self.rng)}"' if minor(version) >= 22 else ""
        port = self.rng.randint(32768, 60999)
        self.klog(t, "I", f"httplog.go:{line}",
                  f'"HTTP" verb="{verb}" URI="{uri}" latency="{lat or latency(self.rng)}" userAgent="{agent}"{audit} '
                  f'srcIP="{ip}:{port}" resp={code}')

    def count(self, cause):
        self.planted[cause] = self.planted.get(cause, 0) + 1

    def close(self):
        if self.out is not sys.stdout:
            self.out.close()
        counts = {"lines": self.lines, "bytes": self.bytes, "requests": self.requests, "grep_c": self.grep,
                  "seed": self.a.seed, "versions": self.versions, "planted": dict(sorted(self.planted.items()))}
        text = json.dumps(counts, indent=2) + "\n"
        if self.out is sys.stdout:
            sys.stderr.write(text)
        else:
            with open(self.a.counts or self.a.output + ".counts.json", "w") as f:
                f.write(text)


def workload(rng):
    ns, name = rng.choice(NAMESPACES), rng.choice(WORKLOADS)
    agent = rng.choice([f"{name}/v0.0.0 {K8S}", "python-requests/2.31.0", "OpenAPI-Generator/29.0.0/python",
                        "Go-http-client/2.0", "fabric8-kubernetes-client/6.10.0", f"kubectl/v1.33.0 {K8S}"])
    return ns, name, agent, f"10.244.{rng.randint(0, 15)}.{rng.randint(2, 254)}"


def request(log, t, version):
    """One routine request's httplog line."""
    rng = log.rng
    x = rng.random()
    if x < 0.30:
        node = rng.choice(NODES)
        log.httplog(t, version, "PUT", f"/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/{node}?timeout=10s",
                    f"kubelet/v1.33.1 {K8S}", log.ips[node], 200)
    elif x < 0.40:
        node = rng.choice(NODES)
        ns, name = rng.choice(NAMESPACES), rng.choice(WORKLOADS)
        verb, uri = rng.choice([("PATCH", f"/api/v1/nodes/{node}/status?timeout=10s"),
                                ("GET", f"/api/v1/namespaces/{ns}/pods/{name}-{rng.getrandbits(16):04x}"),
                                ("PATCH", f"/api/v1/namespaces/{ns}/pods/{name}-{rng.getrandbits(16):04x}/status"),
                                ("POST", f"/api/v1/namespaces/{ns}/serviceaccounts/{name}/token")])
        log.httplog(t, version, verb, uri, f"kubelet/v1.33.1 {K8S}", log.ips[node], 201 if verb == "POST" else 200)
    elif x < 0.58:
        c = rng.choice(CONTROLLERS)
        res, group = rng.choice(RESOURCES)
        ns = rng.choice(NAMESPACES)
        verb, uri, code = rng.choice([("GET", path(res, group, ns, f"x-{rng.getrandbits(16):04x}"), 200),
                                      ("PUT", path(res, group, ns, f"x-{rng.getrandbits(16):04x}"), 200),
                                      ("POST", path(res, group, ns), 201),
                                      ("GET", path(res, group) + "?limit=500&resourceVersion=0", 200)])
        if rng.random() < 0.02:
            code = rng.choice([404, 409])
        log.httplog(t, version, verb, uri, f"kube-controller-manager/v1.33.1 {K8S}/system:serviceaccount:kube-system:{c}",
                    log.ips["cp-1"], code)
    elif x < 0.64:
        res, group = rng.choice(RESOURCES)
        rv = rng.randint(10**6, 10**7)
        timeout = rng.randint(300, 600)
        agent = rng.choice([f"kubelet/v1.33.1 {K8S}", f"kube-scheduler/v1.33.1 {K8S}/scheduler",
                            f"kube-controller-manager/v1.33.1 {K8S}/shared-informers"])
        log.httplog(t, version, "WATCH",
                    path(res, group) + f"?allowWatchBookmarks=true&resourceVersion={rv}&timeout={timeout // 60}m{timeout % 60}s"
                    f"&timeoutSeconds={timeout}&watch=true", agent, log.ips[rng.choice(NODES)], 200, latency(rng, long=True))
    elif x < 0.72:
        probe = rng.choice(["/livez", "/readyz", "/healthz"])
        log.httplog(t, version, "GET", probe, "kube-probe/1.33", log.ips["cp-1"], 200)
    elif x < 0.75:
        uri = rng.choice(["/api?timeout=32s", "/apis?timeout=32s", "/openapi/v2?timeout=32s", "/version?timeout=32s"])
        log.httplog(t, version, "GET", uri, f"kubectl/v1.33.0 {K8S}", f"192.0.2.{rng.randint(2, 254)}", 200)
    else:
        ns, name, agent, ip = workload(rng)
        res, group = rng.choice(RESOURCES)
        code = 200
        if rng.random() < 0.01:
            code = rng.choice([404, 409, 429])
        verb = rng.choice(["GET", "GET", "PATCH", "LIST"])
        uri = path(res, group, ns) if verb == "LIST" else path(res, group, ns, f"{name}-config")
        log.httplog(t, version, verb, uri, agent, ip, code)


def chatter(log, t):
    """One (or a few) routine line that is not an httplog line."""
    rng = log.rng
    x = rng.random()
    res, group = rng.choice(RESOURCES)
    gr = f"{res}.{group}" if group else res
    if x < 0.30:
        fields = f"spec.nodeName={rng.choice(NODES)}" if res == "pods" and rng.random() < 0.5 else ""
        log.klog(t, "I", "get.go:262", f'"Starting watch" path="{path(res, group)}" resourceVersion="{rng.randint(10**6, 10**7)}" '
                 f'labels="" fields="{fields}" timeout="{rng.randint(5, 9)}m{rng.randint(0, 59)}s"')
    elif x < 0.45:
        log.klog(t, "I", "cacher.go:847", f"cacher ({gr}): {rng.randint(1, 40)} objects queued in incoming channel.")
    elif x < 0.52:
        log.klog(t, "W", "cacher.go:171", f"Terminating all watchers from cacher {gr}")
    elif x < 0.62:
        trace = rng.getrandbits(30)
        total = rng.randint(500, 3000)
        log.klog(t, "I", "trace.go:236", f'Trace[{trace}]: "List" accept:application/json, */*,protocol:HTTP/2.0,resource:{res},'
                 f'scope:cluster,url:{path(res, group)},user-agent:kube-controller-manager/v1.33.1,verb:LIST '
                 f'({t:%d-%b-%Y %H:%M:%S.%f}) (total time: {total}ms):')
        log.write(t, f'Trace[{trace}]: ---"Writing http response done" count:{rng.randint(100, 9000)} {total - 3}ms ({t:%H:%M:%S.%f})')
        log.write(t, f"Trace[{trace}]: [{total}.{rng.randint(0, 999)}ms] [{total}.{rng.randint(0, 999)}ms] END")
    elif x < 0.72:
        log.klog(t, "I", "controller.go:615", f"quota admission added evaluator for: {gr}")
    elif x < 0.78:
        log.klog(t, "I", "alloc.go:330", f'"allocated clusterIPs" service="{rng.choice(NAMESPACES)}/{rng.choice(WORKLOADS)}" '
                 f'clusterIPs={{"IPv4":"10.96.{rng.randint(0, 255)}.{rng.randint(1, 254)}"}}')
    elif x < 0.86:
        log.klog(t, "I", "leaderelection.go:271", "successfully renewed lease kube-system/apiserver-" + f"{rng.getrandbits(64):016x}"[:26])
    elif x < 0.92:
        log.klog(t, "I", "lease.go:250", "Resetting endpoints for master service \"kubernetes\" to [10.0.0.10 10.0.0.11 10.0.0.12]")
    else:
        log.klog(t, "W", "logging.go:55", f"[core] [Channel #{rng.randint(1, 900)} SubChannel #{rng.randint(1, 900)}]grpc: "
                 "addrConn.createTransport failed to connect to {Addr: \"127.0.0.1:2379\", ServerName: \"127.0.0.1:2379\", }. "
                 "Err: connection error: desc = \"transport: Error while dialing: dial tcp 127.0.0.1:2379: connect: connection refused\"")


def failure(log, t, version, causes):
    """An authentication failure: the reason line, then the request's httplog 401."""
    rng = log.rng
    auth_line = VERSIONS[version][0]
    by_cause = reasons(version, rng)
    cause = rng.choice([c for c in causes if c in by_cause])
    reason = by_cause[cause]
    if minor(version) <= 20:
        log.klog(t, "E", f"authentication.go:{auth_line}",
                 f"Unable to authenticate the request due to an error: [invalid bearer token, {reason}]".replace('\\"', '"'))
    else:
        log.klog(t, "E", f"authentication.go:{auth_line}",
                 f'"Unable to authenticate the request" err="[invalid bearer token, {reason}]"')
    log.grep += 1
    log.count(cause)
    ns, name, agent, ip = workload(rng)
    res, group = rng.choice(RESOURCES)
    log.httplog(t, version, rng.choice(["GET", "LIST", "WATCH"]), path(res, group, ns), agent, ip, 401)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", help="target size in bytes (K, M, G suffixes)")
    ap.add_argument("--lines", type=int, help="about this many lines instead of --size (a failure at the end adds its second)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hours", type=float, default=24)
    ap.add_argument("--failures", type=float, default=0.003, help="share of requests that fail authentication with a reason line (default 0.003)")
    ap.add_argument("--no-reason", type=float, default=0.0005, help="share of requests that get a 401 without a reason line")
    ap.add_argument("--forbidden", type=float, default=0.001, help="share of requests that get a 403")
    ap.add_argument("--versions", default=",".join(VERSIONS), help=f"Kubernetes versions the log goes through, in order (default {','.join(VERSIONS)})")
    ap.add_argument("--causes", help="causes to plant, comma-separated (default: every one the version logs)")
    ap.add_argument("--timestamps", action="store_true", help="prefix each line with its RFC 3339 time, as kubectl logs --timestamps does")
    ap.add_argument("--counts", help="write the counts here (default: OUTPUT.counts.json)")
    ap.add_argument("-o", "--output", help="output file (default stdout, counts on stderr)")
    a = ap.parse_args()
    for v in a.versions.split(","):
        if v not in VERSIONS:
            ap.error(f"--versions: {v} is not one of {', '.join(VERSIONS)}")
    rng = random.Random(a.seed)
    causes = a.causes.split(",") if a.causes else sorted(reasons("1.33", random.Random(0)))
    log = Log(a, rng)
    target_bytes = parse_size(a.size or "20M") if not a.lines else None
    # About 285 bytes a step (a trace is three lines, a failure two): spreads
    # the log over --hours.
    expected = a.lines or max(1, target_bytes // 285)
    span = a.hours * 3600
    n = 0
    while (a.lines and log.lines < a.lines) or (target_bytes and log.bytes < target_bytes):
        n += 1
        share = min(n / expected, 0.999999)
        t = START + dt.timedelta(seconds=span * share)
        version = log.versions[int(share * len(log.versions))]
        x = rng.random()
        if x < 0.12:
            chatter(log, t)
            continue
        y = rng.random()
        if y < a.failures:
            failure(log, t, version, causes)
        elif y < a.failures + a.no_reason:
            ns, name, agent, ip = workload(rng)
            log.count("401-no-reason")
            log.httplog(t, version, "GET", path("pods", "", ns), agent, ip, 401)
        elif y < a.failures + a.no_reason + a.forbidden:
            ns, name, agent, ip = workload(rng)
            res, group = rng.choice(RESOURCES)
            log.count("403")
            log.httplog(t, version, rng.choice(["GET", "LIST", "POST", "DELETE"]), path(res, group, ns), agent, ip, 403)
        else:
            request(log, t, version)
    log.close()


if __name__ == "__main__":
    main()
