#!/usr/bin/env python3
"""Writes the `classify` evidence corpus: testdata/evidence/NAME.EXT plus
NAME.expected.json (what `kubectl satoken classify` must answer) and README.md.

Standard library only; deterministic (no clock, no randomness). Every piece of
evidence was written for this project, in the shape kube-apiserver, kubectl,
curl, client-go, fabric8, the Python clients and Ray print (see
docs/classify.md for the sources). Run from the repository root:

    python3 scripts/gen_evidence.py

The expected results are written here by hand, from the rules, not by running
the binary; tests/it/classify.rs runs the binary over every file and compares.
Everything is designed around `--now 2026-01-01T00:00:00Z` (a Thursday), like
testdata/tokens/*.
"""

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "testdata", "evidence")
TOKENS = os.path.join(ROOT, "testdata", "tokens")

DATE = "Thu, 01 Jan 2026 00:00:00 GMT"
SA_UID = "3f1c2a4e-8d1b-4c55-9a2e-1b7f5d0c9e41"  # shop/checkout in the token fixtures
SA_UID_NEW = "c0d5e3b2-71f4-4a9e-8b6d-5e2f1a9c7d30"
POD_UID = "a6d0f5c2-3b1e-4f7a-9c8d-2e4b6a1f0c37"  # checkout-7d9f8b6c5-x2x4q
POD_UID_NEW = "e81b4d29-0c6a-4f35-b7d2-93a1c5e6f804"
API_AUD = "https://kubernetes.default.svc.cluster.local"

STATUS_401 = ('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
              '"message":"Unauthorized","reason":"Unauthorized","code":401}')


def status(code, reason, message, details=None):
    body = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": reason}
    if details is not None:
        body["details"] = details
    body["code"] = code
    return json.dumps(body, separators=(",", ":"))


def forbidden_msg(user, verb, resource, ns=None, group="", name=None, reason=None):
    prefix = resource + ("." + group if group else "")
    prefix += f' "{name}" is forbidden' if name else " is forbidden"
    scope = f' in the namespace "{ns}"' if ns else " at the cluster scope"
    msg = (f'{prefix}: User "{user}" cannot {verb} resource "{resource}" '
           f'in API group "{group}"{scope}')
    if reason:
        msg += ": " + reason
    return msg


def token(name):
    with open(os.path.join(TOKENS, name)) as f:
        return f.read().strip()


def r(line, classification, cause, confidence):
    return {"line": line, "classification": classification, "cause": cause,
            "confidence": confidence}


CORPUS = []


def add(name, text, kind, results, what, token_file=None, args=None, exit_code=None):
    """Registers one piece of evidence and what classify must say about it."""
    if exit_code is None:
        ok = all(x["classification"] in ("ok", "404-not-found") for x in results)
        exit_code = 0 if ok else 1
    CORPUS.append({
        "name": name, "text": text, "expected": {
            "type": kind,
            "token_file": token_file,
            "args": args or [],
            "exit": exit_code,
            "results": results,
        }, "what": what,
    })


def http_response(code, phrase, body, extra_headers=(), date=DATE):
    headers = [f"HTTP/1.1 {code} {phrase}",
               "Audit-Id: 659c389e-6a4a-4843-830a-073c7e3f5d7f",
               "Cache-Control: no-cache, private",
               "Content-Type: application/json"]
    headers += list(extra_headers)
    headers += [f"Date: {date}", f"Content-Length: {len(body) + 1}"]
    return "\r\n".join(headers) + "\r\n\r\n" + body + "\n"


# --- status -------------------------------------------------------------------------

add("status-401-generic.http", http_response(401, "Unauthorized", STATUS_401), "status",
    [r(1, "401-invalid-token", "unknown", "low")],
    "the generic 401 response: the body never says why")
add("status-401-skew.http", http_response(401, "Unauthorized", STATUS_401), "status",
    [r(1, "401-invalid-token", "clock-skew", "medium")],
    "same 401, with the token: nbf 90 s after the Date header (the server's clock, not its word: medium)",
    token_file="not-yet-valid.jwt")
add("status-401-expired.http", http_response(401, "Unauthorized", STATUS_401), "status",
    [r(1, "401-invalid-token", "expired", "medium")],
    "same 401, with a token that expired an hour before the Date header",
    token_file="expired.jwt")
add("status-403-rbac.json", status(403, "Forbidden", forbidden_msg(
    "system:serviceaccount:debug-lab:reporter", "list", "pods", ns="debug-lab"),
    {"kind": "pods"}) + "\n", "status",
    [r(1, "403-forbidden", "rbac-denied", "medium")], "a 403 Status body: RBAC grants nothing")
add("status-403-anonymous.http", http_response(403, "Forbidden", status(
    403, "Forbidden", 'forbidden: User "system:anonymous" cannot get path "/api"', {}),
    ["X-Content-Type-Options: nosniff"]), "status",
    [r(1, "403-forbidden", "token-not-sent", "high")], "anonymous 403: no token reached the server")
add("status-403-admission.json", status(403, "Forbidden",
    'pods "debug-shell" is forbidden: violates PodSecurity "restricted:latest": '
    'allowPrivilegeEscalation != false (container "shell" must set '
    'securityContext.allowPrivilegeEscalation=false)',
    {"name": "debug-shell", "kind": "pods"}) + "\n", "status",
    [r(1, "403-forbidden", "pod-security-denied", "high")],
    "a 403 from admission (PodSecurity), not RBAC")
add("status-404.http", "HTTP/2 404 \ncontent-type: application/json\ndate: " + DATE + "\n\n"
    + status(404, "NotFound", 'pods "web-0" not found', {"name": "web-0", "kind": "pods"})
    + "\n", "status", [r(1, "404-not-found", "object-not-found", "high")],
    "404: authenticated and authorised, the pod does not exist")
add("status-200.http", "HTTP/1.1 200 OK\r\nAudit-Id: 0c5e1f7a-2b3d-4e8f-9a1b-6c7d8e9f0a1b\r\n"
    "Content-Type: application/json\r\nDate: " + DATE + "\r\n\r\n"
    '{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"48213"},"items":[]}\n',
    "status", [r(1, "ok", "none", "high")], "200 OK")
add("status-503.http", http_response(503, "Service Unavailable", status(
    503, "ServiceUnavailable", "the server is currently unable to handle the request")),
    "status", [r(1, "other-status", "server-error", "high")], "503: not an authentication answer")
add("status-codes.txt", "401\n403 Forbidden\n404\nHTTP 429 Too Many Requests\n", "status",
    [r(1, "401-invalid-token", "unknown", "low"),
     r(2, "403-forbidden", "rbac-denied", "medium"),
     r(3, "404-not-found", "object-not-found", "medium"),
     r(4, "other-status", "throttled", "high")],
    "bare status codes, one per line")

# --- curl -v --------------------------------------------------------------------------

TLS_OK = """*   Trying 10.96.0.1:443...
* Connected to 10.96.0.1 (10.96.0.1) port 443
* ALPN: curl offers h2,http/1.1
* TLSv1.3 (OUT), TLS handshake, Client hello (1):
*  CAfile: /var/run/secrets/kubernetes.io/serviceaccount/ca.crt
*  CApath: /etc/ssl/certs
* TLSv1.3 (IN), TLS handshake, Server hello (2):
* TLSv1.3 (IN), TLS handshake, Encrypted Extensions (8):
* TLSv1.3 (IN), TLS handshake, Request CERT (13):
* TLSv1.3 (IN), TLS handshake, Certificate (11):
* TLSv1.3 (IN), TLS handshake, CERT verify (15):
* TLSv1.3 (IN), TLS handshake, Finished (20):
* TLSv1.3 (OUT), TLS change cipher, Change cipher spec (1):
* TLSv1.3 (OUT), TLS handshake, Certificate (11):
* TLSv1.3 (OUT), TLS handshake, Finished (20):
* SSL connection using TLSv1.3 / TLS_AES_128_GCM_SHA256 / X25519 / RSASSA-PSS
* ALPN: server accepted h2
* Server certificate:
*  subject: CN=kube-apiserver
*  start date: Mar  3 10:12:41 2025 GMT
*  expire date: Mar  3 10:17:41 2026 GMT
*  subjectAltName: host "10.96.0.1" matched cert's IP address!
*  issuer: CN=kubernetes
*  SSL certificate verify ok.
* using HTTP/2
"""


def curl(path, auth, code, body, headers=()):
    lines = [TLS_OK.rstrip("\n")]
    lines += [f"* [HTTP/2] [1] OPENED stream for https://10.96.0.1{path}",
              "* [HTTP/2] [1] [:method: GET]",
              "* [HTTP/2] [1] [:scheme: https]",
              "* [HTTP/2] [1] [:authority: 10.96.0.1]",
              f"* [HTTP/2] [1] [:path: {path}]",
              "* [HTTP/2] [1] [user-agent: curl/8.5.0]",
              "* [HTTP/2] [1] [accept: */*]"]
    if auth is not None:
        lines.append(f"* [HTTP/2] [1] [authorization: {auth}]")
    lines += [f"> GET {path} HTTP/2", "> Host: 10.96.0.1", "> User-Agent: curl/8.5.0",
              "> Accept: */*"]
    if auth is not None:
        lines.append(f"> Authorization: {auth}")
    lines += [">", "* TLSv1.3 (IN), TLS handshake, Newsession Ticket (4):",
              f"< HTTP/2 {code} ",
              "< audit-id: 2b1c7e4d-9f3a-4c61-8d2e-5a7b9c0d1e2f",
              "< cache-control: no-cache, private",
              "< content-type: application/json"]
    lines += [f"< {h}" for h in headers]
    lines += [f"< content-length: {len(body) + 1}", f"< date: {DATE}", "<", body,
              "* Connection #0 to host 10.96.0.1 left intact"]
    return "\n".join(lines) + "\n"


def line_with(text, needle):
    """1-based number of the first line containing `needle` (where an event is)."""
    for i, line in enumerate(text.splitlines()):
        if needle in line:
            return i + 1
    raise ValueError(needle)


def add_curl(name, text, classification, cause, confidence, what):
    add(name, text, "curl", [r(line_with(text, "< HTTP/"), classification, cause, confidence)],
        what)


add_curl("curl-401-expired-token.txt",
    curl("/api/v1/namespaces/shop/pods", "Bearer " + token("expired.jwt"), 401, STATUS_401),
    "401-invalid-token", "expired", "high",
    "curl -v 401 after a good TLS handshake; the token the request carried expired before the server's Date (proven)")
add_curl("curl-401-no-token.txt",
    curl("/api/v1/namespaces/shop/pods", None, 401, STATUS_401),
    "401-invalid-token", "token-not-sent", "high",
    "curl -v 401 without an Authorization header (anonymous auth off)")
add_curl("curl-403-rbac.txt",
    curl("/api/v1/namespaces/shop/secrets", "Bearer " + token("token-request.jwt"), 403,
         status(403, "Forbidden", forbidden_msg("system:serviceaccount:shop:checkout", "list",
                                                "secrets", ns="shop"), {"kind": "secrets"}),
         headers=["x-content-type-options: nosniff",
                  "x-kubernetes-pf-flowschema-uid: 6f1e2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b",
                  "x-kubernetes-pf-prioritylevel-uid: 0a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d"]),
    "403-forbidden", "rbac-denied", "medium",
    "curl -v 403: the token works, RBAC does not allow listing secrets")
add_curl("curl-403-extra-space.txt",
    curl("/api/v1/namespaces/shop/pods", "Bearer  " + token("token-request.jwt"), 403,
         status(403, "Forbidden", forbidden_msg("system:anonymous", "list", "pods", ns="shop"),
                {"kind": "pods"})),
    "403-forbidden", "token-not-sent", "high",
    "two spaces after Bearer: the server sees no token, the request is anonymous")
add_curl("curl-200-version.txt",
    curl("/version", "Bearer " + token("token-request.jwt"), 200,
         '{"major":"1","minor":"34","gitVersion":"v1.34.2","platform":"linux/amd64"}'),
    "ok", "none", "high", "curl -v 200 on /version")
add("curl-tls-untrusted.txt", """*   Trying 192.168.49.2:8443...
* Connected to 192.168.49.2 (192.168.49.2) port 8443
* ALPN: curl offers h2,http/1.1
* TLSv1.3 (OUT), TLS handshake, Client hello (1):
*  CAfile: /etc/ssl/certs/ca-certificates.crt
*  CApath: /etc/ssl/certs
* TLSv1.3 (IN), TLS handshake, Server hello (2):
* TLSv1.3 (IN), TLS handshake, Encrypted Extensions (8):
* TLSv1.3 (IN), TLS handshake, Request CERT (13):
* TLSv1.3 (IN), TLS handshake, Certificate (11):
* TLSv1.3 (OUT), TLS alert, unknown CA (560):
* SSL certificate problem: unable to get local issuer certificate
* Closing connection
curl: (60) SSL certificate problem: unable to get local issuer certificate
More details here: https://curl.se/docs/sslcerts.html

curl failed to verify the legitimacy of the server and therefore could not
establish a secure connection to it. To learn more about this situation and
how to fix it, please visit the web page mentioned above.
""", "curl", [r(14, "tls-error", "tls-untrusted-ca", "medium")],
    "curl without --cacert: the cluster CA is not trusted")
add("curl-tls-name.txt", """*   Trying 203.0.113.10:6443...
* Connected to k8s.example.com (203.0.113.10) port 6443
* ALPN: curl offers h2,http/1.1
* TLSv1.3 (OUT), TLS handshake, Client hello (1):
*  CAfile: ca.crt
* TLSv1.3 (IN), TLS handshake, Server hello (2):
* TLSv1.3 (IN), TLS handshake, Certificate (11):
* TLSv1.3 (IN), TLS handshake, CERT verify (15):
* TLSv1.3 (IN), TLS handshake, Finished (20):
* SSL connection using TLSv1.3 / TLS_AES_128_GCM_SHA256 / X25519 / RSASSA-PSS
* Server certificate:
*  subject: CN=kube-apiserver
*  subjectAltName does not match k8s.example.com
* SSL: no alternative certificate subject name matches target host name 'k8s.example.com'
* Closing connection
curl: (60) SSL: no alternative certificate subject name matches target host name 'k8s.example.com'
""", "curl", [r(16, "tls-error", "tls-name-mismatch", "medium")],
    "the API server certificate does not name the host used")
add("curl-dns.txt", """* Could not resolve host: kubernetes.default.svc.cluster.local
* Closing connection
curl: (6) Could not resolve host: kubernetes.default.svc.cluster.local
""", "curl", [r(3, "network-error", "dns-failure", "medium")], "DNS lookup failed")
add("curl-refused.txt", """*   Trying 10.96.0.1:6443...
* connect to 10.96.0.1 port 6443 from 10.244.1.17 port 50412 failed: Connection refused
* Failed to connect to 10.96.0.1 port 6443 after 2 ms: Couldn't connect to server
* Closing connection
curl: (7) Failed to connect to 10.96.0.1 port 6443 after 2 ms: Couldn't connect to server
""", "curl", [r(2, "network-error", "connection-refused", "medium")],
    "nothing listens on the port (curl's summary line does not say why; the * line does)")

# --- kubectl ----------------------------------------------------------------------------

add("kubectl-401.txt", "error: You must be logged in to the server (Unauthorized)\n", "kubectl",
    [r(1, "401-invalid-token", "unknown", "low")], "kubectl's 401")
add("kubectl-401-credentials.txt",
    "E0101 00:00:00.412093   48213 memcache.go:265] couldn't get current server API group list: "
    "the server has asked for the client to provide credentials\n"
    "error: You must be logged in to the server (the server has asked for the client to provide "
    "credentials)\n", "kubectl", [r(2, "401-invalid-token", "unknown", "low")],
    "kubectl's 401 when the body was not a Status")
add("kubectl-401-v6.txt",
    "I0101 00:00:00.101223   51734 loader.go:395] Config loaded from file:  /home/dev/.kube/config\n"
    "I0101 00:00:00.118804   51734 round_trippers.go:553] GET https://203.0.113.10:6443/api/v1/"
    "namespaces/shop/pods?limit=500 401 Unauthorized in 16 milliseconds\n"
    "I0101 00:00:00.119211   51734 helpers.go:246] server response object: [{\n"
    '  "metadata": {},\n  "status": "Failure",\n  "message": "Unauthorized",\n'
    '  "reason": "Unauthorized",\n  "code": 401\n}]\n'
    "error: You must be logged in to the server (Unauthorized)\n", "kubectl",
    [r(10, "401-invalid-token", "unknown", "low")], "kubectl -v=6: the request line gives the request")
add("kubectl-401-skew.txt", "error: You must be logged in to the server (Unauthorized)\n",
    "kubectl", [r(1, "401-invalid-token", "unknown", "low")],
    "kubectl 401 plus the token and when it happened (--at is not the server's clock: clock skew is only the first candidate)",
    token_file="not-yet-valid.jwt", args=["--at", "2025-12-31T23:59:59Z"])
add("kubectl-403.txt", "Error from server (Forbidden): " + forbidden_msg(
    "system:serviceaccount:debug-lab:reporter", "list", "pods", ns="debug-lab") + "\n",
    "kubectl", [r(1, "403-forbidden", "rbac-denied", "medium")], "kubectl 403, RBAC")
add("kubectl-403-role-missing.txt", "Error from server (Forbidden): " + forbidden_msg(
    "system:serviceaccount:ml:ray-job", "get", "rayclusters", ns="ml", group="ray.io",
    name="raycluster-kuberay",
    reason='RBAC: role.rbac.authorization.k8s.io "ray-reader" not found') + "\n",
    "kubectl", [r(1, "403-forbidden", "rbac-role-missing", "high")],
    "kubectl 403: the binding names a Role that does not exist")
add("kubectl-404.txt", 'Error from server (NotFound): pods "web-0" not found\n', "kubectl",
    [r(1, "404-not-found", "object-not-found", "high")], "kubectl 404")
add("kubectl-tls.txt", "E0101 00:00:00.204518   60211 memcache.go:265] couldn't get current "
    "server API group list: Get \"https://203.0.113.10:6443/api?timeout=32s\": tls: failed to "
    "verify certificate: x509: certificate signed by unknown authority\n"
    "Unable to connect to the server: tls: failed to verify certificate: x509: certificate "
    "signed by unknown authority\n", "kubectl",
    [r(2, "tls-error", "tls-untrusted-ca", "medium")], "kubectl with the wrong CA")
add("kubectl-refused.txt", "E0101 00:00:00.013554   60392 memcache.go:265] couldn't get current "
    "server API group list: Get \"http://localhost:8080/api?timeout=32s\": dial tcp "
    "127.0.0.1:8080: connect: connection refused\n"
    "The connection to the server localhost:8080 was refused - did you specify the right host "
    "or port?\n", "kubectl", [r(2, "network-error", "connection-refused", "medium")],
    "kubectl without a kubeconfig")

# --- client libraries ---------------------------------------------------------------------

add("client-go-reflector-401.log",
    "I0101 00:00:00.000000       1 leaderelection.go:250] attempting to acquire leader lease "
    "shop/checkout-controller...\n"
    "W0101 00:00:00.216734       1 reflector.go:547] k8s.io/client-go@v0.30.2/tools/cache/"
    "reflector.go:232: failed to list *v1.Pod: Unauthorized\n"
    "E0101 00:00:00.216790       1 reflector.go:150] k8s.io/client-go@v0.30.2/tools/cache/"
    "reflector.go:232: Failed to watch *v1.Pod: failed to list *v1.Pod: Unauthorized\n",
    "client-error", [r(2, "401-invalid-token", "unknown", "low"),
                     r(3, "401-invalid-token", "unknown", "low")],
    "a controller's informer gets 401s (one result per line)")
add("client-go-reflector-403.log",
    "W0101 00:00:00.318221       1 reflector.go:547] k8s.io/client-go@v0.30.2/tools/cache/"
    "reflector.go:232: failed to list *v1.ConfigMap: " + forbidden_msg(
        "system:serviceaccount:shop:checkout", "list", "configmaps", ns="kube-system") + "\n",
    "client-error", [r(1, "403-forbidden", "rbac-denied", "medium")], "informer 403")
add("client-go-dns.log",
    "E0101 00:00:00.501117       1 reflector.go:150] pkg/mod/k8s.io/client-go@v0.30.2/tools/cache/"
    "reflector.go:232: Failed to watch *v1.Pod: failed to list *v1.Pod: Get \"https://"
    "kubernetes.default.svc:443/api/v1/namespaces/shop/pods?limit=500&resourceVersion=0\": "
    "dial tcp: lookup kubernetes.default.svc on 10.96.0.10:53: no such host\n",
    "client-error", [r(1, "network-error", "dns-failure", "medium")], "client-go DNS failure")
add("fabric8-401.txt",
    "io.fabric8.kubernetes.client.KubernetesClientException: Failure executing: GET at: "
    "https://10.96.0.1:443/api/v1/namespaces/spark/pods/spark-pi-driver. Message: Unauthorized! "
    "Configured service account doesn't have access. Service account may have been revoked. "
    "Unauthorized. Received status: Status(apiVersion=v1, code=401, details=null, kind=Status, "
    "message=Unauthorized, metadata=ListMeta(_continue=null, remainingItemCount=null, "
    "resourceVersion=null, selfLink=null, additionalProperties={}), reason=Unauthorized, "
    "status=Failure, additionalProperties={}).\n"
    "\tat io.fabric8.kubernetes.client.dsl.internal.OperationSupport.requestFailure("
    "OperationSupport.java:709)\n"
    "\tat io.fabric8.kubernetes.client.dsl.internal.OperationSupport.assertResponseCode("
    "OperationSupport.java:689)\n"
    "\tat io.fabric8.kubernetes.client.dsl.internal.OperationSupport.handleResponse("
    "OperationSupport.java:638)\n", "client-error",
    [r(1, "401-invalid-token", "unknown", "low")],
    "fabric8 401: 'Service account may have been revoked' is its stock text")
add("fabric8-403.txt",
    "Exception in thread \"main\" io.fabric8.kubernetes.client.KubernetesClientException: "
    "Failure executing: GET at: https://kubernetes.default.svc/api/v1/namespaces/spark/pods. "
    "Message: Forbidden!Configured service account doesn't have access. Service account may "
    "have been revoked. " + forbidden_msg("system:serviceaccount:spark:default", "list", "pods",
                                          ns="spark") + ".\n"
    "\tat io.fabric8.kubernetes.client.dsl.base.OperationSupport.requestFailure("
    "OperationSupport.java:568)\n", "client-error",
    [r(1, "403-forbidden", "rbac-denied", "medium")],
    "fabric8 403 (Spark driver without RBAC): the token works")
add("python-kubernetes-401.txt", """Traceback (most recent call last):
  File "/app/report.py", line 41, in <module>
    pods = v1.list_namespaced_pod("shop")
  File "/usr/local/lib/python3.12/site-packages/kubernetes/client/api/core_v1_api.py", line 15823, in list_namespaced_pod
    return self.list_namespaced_pod_with_http_info(namespace, **kwargs)  # noqa: E501
  File "/usr/local/lib/python3.12/site-packages/kubernetes/client/rest.py", line 238, in request
    raise ApiException(http_resp=r)
kubernetes.client.exceptions.ApiException: (401)
Reason: Unauthorized
HTTP response headers: HTTPHeaderDict({'Audit-Id': '7d2a9c1e-3b4f-4e5a-8c6d-0f1e2a3b4c5d', 'Cache-Control': 'no-cache, private', 'Content-Type': 'application/json', 'Date': '%s', 'Content-Length': '129'})
HTTP response body: %s

""" % (DATE, STATUS_401), "client-error", [r(8, "401-invalid-token", "clock-skew", "medium")],
    "Python kubernetes 401 with its Date header, plus the not-yet-valid token",
    token_file="not-yet-valid.jwt")
add("python-kubernetes-403.txt", """kubernetes.client.exceptions.ApiException: (403)
Reason: Forbidden
HTTP response headers: HTTPHeaderDict({'Audit-Id': '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', 'Cache-Control': 'no-cache, private', 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff', 'Date': '%s', 'Content-Length': '318'})
HTTP response body: %s
""" % (DATE, status(403, "Forbidden", forbidden_msg(
    "system:serviceaccount:reports:nightly", "create", "jobs", ns="reports", group="batch"),
    {"group": "batch", "kind": "jobs"})), "client-error",
    [r(1, "403-forbidden", "rbac-denied", "medium")], "Python kubernetes 403")
add("python-requests-401.txt", """Traceback (most recent call last):
  File "/app/sync.py", line 18, in <module>
    resp.raise_for_status()
  File "/usr/local/lib/python3.11/site-packages/requests/models.py", line 1021, in raise_for_status
    raise HTTPError(http_error_msg, response=self)
requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://10.96.0.1:443/apis/apps/v1/namespaces/shop/deployments/checkout
""", "client-error", [r(6, "401-invalid-token", "unknown", "low")], "requests raise_for_status 401")
add("python-urllib3-refused.txt", """urllib3.exceptions.MaxRetryError: HTTPSConnectionPool(host='10.96.0.1', port=443): Max retries exceeded with url: /api/v1/namespaces/shop/pods (Caused by NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f3b2c1d9e50>: Failed to establish a new connection: [Errno 111] Connection refused'))
""", "client-error", [r(1, "network-error", "connection-refused", "medium")],
    "Python client, nothing listening")
add("ray-job-submit-401.txt", """Traceback (most recent call last):
  File "/home/ray/anaconda3/bin/ray", line 8, in <module>
    sys.exit(main())
  File "/home/ray/anaconda3/lib/python3.10/site-packages/ray/dashboard/modules/job/cli.py", line 279, in submit
    job_id = client.submit_job(
  File "/home/ray/anaconda3/lib/python3.10/site-packages/ray/dashboard/modules/job/sdk.py", line 254, in submit_job
    self._raise_error(r)
  File "/home/ray/anaconda3/lib/python3.10/site-packages/ray/dashboard/modules/dashboard_sdk.py", line 283, in _raise_error
    raise RuntimeError(
RuntimeError: Request failed with status code 401: Unauthorized
.
""", "client-error", [r(10, "401-invalid-token", "unknown", "low")],
    "ray job submit through kube-rbac-proxy (TokenReview) rejected the token")
add("ray-task-403.txt", """ray.exceptions.RayTaskError(ApiException): ray::scale_workers() (pid=2210, ip=10.244.3.12)
  File "/app/autoscale.py", line 27, in scale_workers
    apps.patch_namespaced_deployment_scale(name, "ml", body)
kubernetes.client.exceptions.ApiException: (403)
Reason: Forbidden
HTTP response headers: HTTPHeaderDict({'Audit-Id': '9e8d7c6b-5a4f-4e3d-2c1b-0a9f8e7d6c5b', 'Cache-Control': 'no-cache, private', 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff', 'Date': '%s', 'Content-Length': '341'})
HTTP response body: %s
""" % (DATE, status(403, "Forbidden",
    'deployments.apps "feature-store" is forbidden: User "system:serviceaccount:ml:ray-worker" '
    'cannot patch resource "deployments/scale" in API group "apps" in the namespace "ml"',
    {"name": "feature-store", "group": "apps", "kind": "deployments"})),
    "client-error", [r(4, "403-forbidden", "rbac-denied", "medium")],
    "a Ray task wrapping a Python kubernetes 403")

# --- kube-apiserver logs --------------------------------------------------------------------

def structured(ts, err, line=75):
    esc = err.replace("\\", "\\\\").replace('"', '\\"')
    return (f'E1231 {ts}       1 authentication.go:{line}] "Unable to authenticate the request" '
            f'err="{esc}"')


LEGACY_INVALID = ("the token in secret shop/checkout-token-x7k2p for service account shop/checkout"
                  " has been marked invalid. Use tokens from the TokenRequest API or manually "
                  "created secret-based tokens, or remove the 'kubernetes.io/legacy-token-invalid-"
                  "since' label from the secret to temporarily allow use of this token")
mixed = [
    ('I1231 23:58:01.100231       1 trace.go:236] Trace[1093821]: "List" accept:application/json'
     ' (31-Dec-2025 23:58:00.500) (total time: 600ms):', None),
    (structured("23:58:10.000001", "[invalid bearer token, service account token is not valid yet]"),
     ("clock-skew", "high")),
    (structured("23:58:11.000002", "[invalid bearer token, service account token has expired]"),
     ("expired", "high")),
    (structured("23:58:12.000003", '[invalid bearer token, serviceaccounts "reporter" not found]'),
     ("service-account-deleted", "high")),
    (structured("23:58:13.000004", f"[invalid bearer token, service account UID ({SA_UID_NEW}) "
                                    f"does not match claim ({SA_UID})]"),
     ("service-account-recreated", "high")),
    (structured("23:58:14.000005", "[invalid bearer token, invalid signature, no keys found]"),
     ("key-mismatch", "high")),
    (structured("23:58:15.000006", "[invalid bearer token, go-jose/go-jose: error in "
                                    "cryptographic primitive]"),
     ("signature-invalid", "high")),
    (structured("23:58:16.000007", f'[invalid bearer token, token audiences ["vault"] is invalid '
                                    f'for the target audiences ["{API_AUD}"]]'),
     ("audience-mismatch", "high")),
    (structured("23:58:17.000008", "[invalid bearer token, service account token has been "
                                    "invalidated]"),
     ("pod-deleted", "medium")),
    (structured("23:58:18.000009", f"[invalid bearer token, pod UID ({POD_UID_NEW}) does not match "
                                    f"service account pod ref claim ({POD_UID})]"),
     ("pod-deleted", "high")),
    (structured("23:58:19.000010", "[invalid bearer token, secret UID (5b2c8e1f-0000-4a6d-9e3f-"
                                    "7c1d2b3a4f50) does not match service account secret ref claim "
                                    "(1e4f7a2b-0000-4c8d-9b1e-3f5a6c7d8e90)]"),
     ("secret-deleted", "high")),
    (structured("23:58:20.000011", "[invalid bearer token, node UID (8d9e0f1a-0000-4b2c-8d3e-"
                                    "4f5a6b7c8d91) does not match service account node ref claim "
                                    "(2a3b4c5d-0000-4e6f-8a7b-9c0d1e2f3a41)]"),
     ("node-recreated", "high")),
    (structured("23:58:21.000012", f"[invalid bearer token, {LEGACY_INVALID}]"),
     ("legacy-token-invalidated", "high")),
    (structured("23:58:22.000013", "[invalid bearer token, Token does not match server's copy]"),
     ("legacy-token-invalidated", "high")),
    (structured("23:58:23.000014", "invalid bearer token"), ("issuer-mismatch", "medium")),
    (structured("23:58:24.000015", '[invalid bearer token, token issuer '
                                    '"https://old-issuer.example.com" is invalid]'),
     ("issuer-mismatch", "high")),
    (structured("23:58:25.000016", "[invalid bearer token, service account token is issued in the "
                                    "future]"),
     ("clock-skew", "high")),
    ('W1231 23:58:26.000017       1 dispatcher.go:217] Failed calling webhook, failing open '
     'policy.example.com: context deadline exceeded', None),
    (structured("23:58:27.000018", '[invalid bearer token, oidc: verify token: oidc: expected '
                                    'audience "kubernetes" got ["argo"]]'),
     ("audience-mismatch", "high")),
]
add("apiserver-1.33-mixed.log", "\n".join(l for l, _ in mixed) + "\n", "apiserver-log",
    [r(i + 1, "401-invalid-token", e[0], e[1]) for i, (_, e) in enumerate(mixed) if e],
    "kube-apiserver 1.33+ structured lines, one per 401 cause family, among other lines")

klog = [
    ("E0315 10:22:31.884512       1 authentication.go:53] Unable to authenticate the request due "
     "to an error: [invalid bearer token, Token has expired.]", ("expired", "high")),
    ("E0315 10:22:32.101847       1 authentication.go:53] Unable to authenticate the request due "
     "to an error: [invalid bearer token, Token could not be validated.]", ("clock-skew", "high")),
    ("E0315 10:22:33.557103       1 authentication.go:53] Unable to authenticate the request due "
     f"to an error: [invalid bearer token, ServiceAccount UID ({SA_UID_NEW}) does not match claim "
     f"({SA_UID})]", ("service-account-recreated", "high")),
    ("E0315 10:22:34.009954       1 authentication.go:53] Unable to authenticate the request due "
     "to an error: [invalid bearer token, square/go-jose: error in cryptographic primitive]",
     ("signature-invalid", "medium")),
    ("E0315 10:22:35.771265       1 authentication.go:53] Unable to authenticate the request due "
     "to an error: [invalid bearer token, ServiceAccount shop/checkout has been deleted]",
     ("service-account-deleted", "high")),
    ("E0315 10:22:36.320148       1 authentication.go:53] Unable to authenticate the request due "
     f"to an error: [invalid bearer token, Pod UID ({POD_UID_NEW}) does not match claim "
     f"({POD_UID})]", ("pod-deleted", "high")),
    ("E0315 10:22:37.448291       1 authentication.go:53] Unable to authenticate the request due "
     "to an error: [invalid bearer token, Token has been invalidated]", ("secret-deleted", "medium")),
]
add("apiserver-1.20-klog.log", "\n".join(l for l, _ in klog) + "\n", "apiserver-log",
    [r(i + 1, "401-invalid-token", e[0], e[1]) for i, (_, e) in enumerate(klog)],
    "kube-apiserver ≤1.20 klog lines with the ≤1.22 wordings")
add("apiserver-json.log",
    '{"ts":1767225585.442,"caller":"filters/authentication.go:73","msg":"Unable to authenticate '
    'the request","err":"[invalid bearer token, service account token has expired]"}\n'
    '{"ts":1767225590.01,"caller":"traces/traces.go:156","msg":"Trace","v":0}\n'
    '{"ts":1767225596.8,"caller":"filters/authentication.go:73","msg":"Unable to authenticate the '
    'request","err":"[invalid bearer token, serviceaccounts \\"checkout\\" not found]"}\n',
    "apiserver-log", [r(1, "401-invalid-token", "expired", "high"),
                      r(3, "401-invalid-token", "service-account-deleted", "high")],
    "kube-apiserver with --logging-format=json")
add("apiserver-cri-skew.log",
    "2025-12-31T23:59:59.512345678Z stderr F " + structured(
        "23:59:59.512301", "[invalid bearer token, service account token is not valid yet]") + "\n"
    "2025-12-31T23:59:59.913377201Z stderr F I1231 23:59:59.913341       1 "
    "controller.go:615] quota admission added evaluator for: leases.coordination.k8s.io\n",
    "apiserver-log", [r(1, "401-invalid-token", "clock-skew", "high")],
    "CRI log of a 1.33+ apiserver plus the token: nbf 90 s ahead of the line's timestamp",
    token_file="not-yet-valid.jwt")
add("apiserver-recreated-with-token.log",
    structured("23:59:40.004410", f"[invalid bearer token, service account UID ({SA_UID_NEW}) "
                                  f"does not match claim ({SA_UID})]") + "\n",
    "apiserver-log", [r(1, "401-invalid-token", "service-account-recreated", "high")],
    "recreated ServiceAccount; the token's uid is the claim in the message",
    token_file="token-request.jwt")
add("token-review.json", json.dumps({
    "kind": "TokenReview", "apiVersion": "authentication.k8s.io/v1",
    "metadata": {"creationTimestamp": None},
    "spec": {"token": "(redacted)"},
    "status": {"user": {}, "error": f"[invalid bearer token, service account UID ({SA_UID_NEW}) "
                                    f"does not match claim ({SA_UID})]"},
}, indent=2) + "\n", "apiserver-log",
    [r(1, "401-invalid-token", "service-account-recreated", "high")],
    "TokenReview status.error carries the same text as the log")

# --- audit ---------------------------------------------------------------------------------


def audit(stage, code, verb, uri, user, obj=None, message=None, reason=None, annotations=None,
          audit_id="4b7c2f1e-9a3d-4e6b-8c5a-1d2e3f4a5b6c", t="2026-01-01T00:00:00.000000Z",
          t_end="2026-01-01T00:00:00.004213Z", extra=None):
    ev = {"kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": "Metadata",
          "auditID": audit_id, "stage": stage, "requestURI": uri, "verb": verb,
          "user": user, "sourceIPs": ["10.244.1.17"], "userAgent": "python-requests/2.31.0"}
    if extra:
        ev["user"] = dict(user, extra=extra)
    if obj:
        ev["objectRef"] = obj
    if code is not None:
        rs = {"metadata": {}, "code": code}
        if message:
            rs = {"metadata": {}, "status": "Failure", "message": message, "reason": reason,
                  "code": code}
        ev["responseStatus"] = rs
    ev["requestReceivedTimestamp"] = t
    ev["stageTimestamp"] = t_end if code is not None else t
    if annotations:
        ev["annotations"] = annotations
    return json.dumps(ev, separators=(",", ":"))


SA_USER = {"username": "system:serviceaccount:shop:checkout",
           "uid": SA_UID, "groups": ["system:serviceaccounts", "system:serviceaccounts:shop",
                                     "system:authenticated"]}
SA_EXTRA = {"authentication.kubernetes.io/credential-id":
            ["JTI=00001c20-5f3c-4b2a-9e1d-7a6b5c4d3e2f"],
            "authentication.kubernetes.io/node-name": ["worker-2"],
            "authentication.kubernetes.io/node-uid": ["7b1e2d3c-4a5f-4e6d-8c7b-9a0f1e2d3c4b"],
            "authentication.kubernetes.io/pod-name": ["checkout-7d9f8b6c5-x2x4q"],
            "authentication.kubernetes.io/pod-uid": [POD_UID]}
PODS = {"resource": "pods", "namespace": "shop", "apiVersion": "v1"}

add("audit-401.jsonl", "\n".join([
    audit("RequestReceived", None, "list", "/api/v1/namespaces/shop/pods", {}, PODS),
    audit("ResponseStarted", 401, "list", "/api/v1/namespaces/shop/pods", {}, PODS,
          "Authentication failed, attempted: bearer", ""),
    audit("ResponseStarted", 401, "get", "/api/v1/namespaces/shop/secrets/db", {},
          dict(PODS, resource="secrets", name="db"), "Authentication failed, attempted: bearer",
          "", annotations={"authentication.k8s.io/legacy-token-invalidated":
                           "checkout-token-x7k2p/shop"},
          audit_id="8e2d4c6a-1b3f-4a5e-9c7d-2f4e6a8c0b1d"),
]) + "\n", "audit", [r(2, "401-invalid-token", "unknown", "low"),
                     r(3, "401-invalid-token", "legacy-token-invalidated", "high")],
    "audit: 401s (the RequestReceived stage has no response and is skipped)")
add("audit-401-expired.jsonl", audit(
    "ResponseStarted", 401, "list", "/api/v1/namespaces/shop/pods", {}, PODS,
    "Authentication failed, attempted: bearer", "") + "\n", "audit",
    [r(1, "401-invalid-token", "expired", "medium")],
    "audit 401 plus the token: expired at the event's stageTimestamp", token_file="expired.jwt")
add("audit-403.json", json.dumps(json.loads(audit(
    "ResponseComplete", 403, "create", "/apis/batch/v1/namespaces/reports/jobs",
    {"username": "system:serviceaccount:reports:nightly", "groups": ["system:serviceaccounts"]},
    {"resource": "jobs", "namespace": "reports", "apiGroup": "batch", "apiVersion": "v1"},
    forbidden_msg("system:serviceaccount:reports:nightly", "create", "jobs", ns="reports",
                  group="batch"), "Forbidden",
    {"authorization.k8s.io/decision": "forbid", "authorization.k8s.io/reason": ""})),
    indent=2) + "\n", "audit", [r(1, "403-forbidden", "rbac-denied", "medium")],
    "one pretty-printed audit event: 403")
add("audit-403-anonymous.jsonl", audit(
    "ResponseComplete", 403, "list", "/api/v1/namespaces/shop/pods",
    {"username": "system:anonymous", "groups": ["system:unauthenticated"]}, PODS,
    forbidden_msg("system:anonymous", "list", "pods", ns="shop"), "Forbidden",
    {"authorization.k8s.io/decision": "forbid", "authorization.k8s.io/reason": ""}) + "\n",
    "audit", [r(1, "403-forbidden", "token-not-sent", "high")], "audit: anonymous 403")
add("audit-stale-token.jsonl", "\n".join([
    audit("ResponseComplete", 200, "list", "/api/v1/namespaces/shop/pods", SA_USER, PODS,
          annotations={"authentication.k8s.io/stale-token":
                       "subject: system:serviceaccount:shop:checkout, seconds after warning "
                       "threshold: 3593",
                       "authorization.k8s.io/decision": "allow",
                       "authorization.k8s.io/reason": 'RBAC: allowed by RoleBinding '
                       '"checkout-reader/shop" of Role "pod-reader" to ServiceAccount '
                       '"checkout/shop"'}, extra=SA_EXTRA),
    audit("ResponseComplete", 200, "get", "/api/v1/namespaces/shop/configmaps/checkout",
          SA_USER, dict(PODS, resource="configmaps", name="checkout"),
          annotations={"authorization.k8s.io/decision": "allow",
                       "authorization.k8s.io/reason": 'RBAC: allowed by RoleBinding '
                       '"checkout-reader/shop" of Role "pod-reader" to ServiceAccount '
                       '"checkout/shop"'},
          audit_id="0f1e2d3c-4b5a-4968-8776-5a4b3c2d1e0f",
          extra={"authentication.kubernetes.io/credential-id":
                 ["JTI=00000258-5f3c-4b2a-9e1d-7a6b5c4d3e2f"]}),
]) + "\n", "audit", [r(1, "ok", "stale-token", "high"), r(2, "ok", "none", "high")],
    "audit: accepted, but the first request used a token past warnafter")
add("audit-eventlist.json", json.dumps({
    "kind": "EventList", "apiVersion": "audit.k8s.io/v1", "metadata": {},
    "items": [json.loads(audit("ResponseComplete", 404, "get",
                               "/api/v1/namespaces/shop/pods/web-0", SA_USER,
                               dict(PODS, name="web-0"), 'pods "web-0" not found', "NotFound")),
              json.loads(audit("ResponseComplete", 200, "get", "/version",
                               {"username": "system:anonymous",
                                "groups": ["system:unauthenticated"]},
                               annotations={"authentication.k8s.io/credential-id":
                                            "JTI=00000258-5f3c-4b2a-9e1d-7a6b5c4d3e2f"}))],
}) + "\n", "audit", [r(1, "404-not-found", "object-not-found", "high"), r(1, "ok", "none", "high")],
    "an EventList: 404 and 200 (the second carries the non-standard credential-id annotation)")

# --- not evidence ---------------------------------------------------------------------------

add("unrecognised.txt", "Deployed checkout v2.3.1 to shop at 00:00; all pods ready.\n", None, [],
    "not evidence of anything: exit 2", exit_code=2)


def main():
    os.makedirs(OUT, exist_ok=True)
    # Only the generated files: wild/ (real-world text, never generated) stays.
    for old in os.listdir(OUT):
        if os.path.isfile(os.path.join(OUT, old)):
            os.remove(os.path.join(OUT, old))
    readme = ["# classify evidence corpus", "",
              "Generated by `python3 scripts/gen_evidence.py`; do not edit by hand. Each `NAME` has",
              "`NAME.expected.json`: the evidence `type` classify must detect (null: unrecognised),",
              "the token file from `testdata/tokens/` to pass with `-f` (if any), extra `args`, the",
              "`exit` code and per event the `line`, `classification`, `cause` and `confidence`.",
              "tests/it/classify.rs runs the binary over every file with `--now 2026-01-01T00:00:00Z`.",
              "", "| file | what | expected |", "|---|---|---|"]
    for item in CORPUS:
        with open(os.path.join(OUT, item["name"]), "w", newline="") as f:
            f.write(item["text"])
        with open(os.path.join(OUT, item["name"] + ".expected.json"), "w") as f:
            json.dump(item["expected"], f, indent=2)
            f.write("\n")
        exp = item["expected"]
        summary = "; ".join(f'{x["classification"]}/{x["cause"]}/{x["confidence"]}'
                            for x in exp["results"]) or "exit 2"
        extra = f' (token `{exp["token_file"]}`)' if exp["token_file"] else ""
        readme.append(f'| `{item["name"]}` | {item["what"]}{extra} | {summary} |')
    with open(os.path.join(OUT, "README.md"), "w") as f:
        f.write("\n".join(readme) + "\n")
    print(f"wrote {len(CORPUS)} pieces of evidence to {os.path.relpath(OUT, ROOT)}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
