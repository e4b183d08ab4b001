//! The cues that tell what a line of a paste is, beside the producers'
//! answers themselves: which client printed it, curl's verbose lines, a
//! prompt's command, a log line's opening, a Status's kind in any rendering,
//! the audit annotations that concern a token, the words that nearly made
//! an answer, and the log prefilter's generic anchors. The extractors and
//! the prefilter read them; none names a cause.

use super::wordings::PROXY_TARGET;

/// Wordings that name the client, first match in this order: each client's
/// package or exception name, or the words its source prints (the sources
/// are [`super::clients::RENDERINGS`]'s).
pub const CLIENT_LABELS: &[(&str, &str)] = &[
    ("ray.exceptions", "ray"),
    ("failed to fetch token: ", "kubelet"),
    ("Request failed with status code", "ray"),
    ("io.fabric8", "fabric8"),
    ("KubernetesClientException", "fabric8"),
    ("Configured service account doesn't have access", "fabric8"),
    ("Token may have expired!", "fabric8"),
    // client-node's ApiException; Python's says `ApiException: (401)`.
    ("HTTP-Code: ", "kubernetes-client-javascript"),
    ("ApiException", "python-kubernetes"),
    ("kubernetes.client.exceptions.", "python-kubernetes"),
    ("HTTP response headers:", "python-kubernetes"),
    ("HTTP response body:", "python-kubernetes"),
    ("HTTPHeaderDict(", "python-kubernetes"),
    (" Client Error: ", "python-requests"),
    (" Server Error: ", "python-requests"),
    ("requests.exceptions", "python-requests"),
    ("HTTPSConnectionPool(", "python-requests"),
    ("WebSocketBadStatusException", "python-websocket"),
    ("statusCode:", "kubernetes-client-javascript"),
    ("invalid status code '", "kubernetes-client-csharp"),
    ("io.kubernetes.client", "kubernetes-client-java"),
    ("HTTP response code: ", "kubernetes-client-java"),
    ("ErrorResponse {", "kube-rs"),
    ("status_code:", "erlang-elixir"),
    ("rpc error: code =", "grpc"),
    ("<-- HTTP/", "okhttp"),
    ("wget: ", "wget"),
    ("curl: (", "curl"),
    // Node's print of an error's cause (`TypeError: fetch failed` above it).
    ("[cause]: ", "nodejs"),
    ("Dashboard reported", "kubernetes-dashboard"),
    ("probe failed", "kubelet-probe"),
];

/// Texts that stand for an answer without a Status around them: (words,
/// status, the message it carries; empty: the line from the words on).
/// gRPC's status (grpc-go `rpc error: code = CODE desc = …`), fabric8's
/// 401 (OperationSupport), and the components named on each row.
#[rustfmt::skip]
pub const STATUS_TEXTS: &[(&str, u16, &str)] = &[
    ("Unauthorized! Token may have expired", 401, "Unauthorized"),
    ("code = Unauthenticated", 401, "Unauthenticated"),
    // Envoy's xDS stream closed with gRPC's UNAUTHENTICATED (16): istiod
    // refused the proxy's token (envoy source/common/config/grpc_stream.h,
    // `gRPC config stream closed: CODE, MESSAGE`).
    ("gRPC config stream closed: 16,", 401, "Unauthenticated"),
    (
        "desc = authentication failure",
        401,
        "authentication failure",
    ),
    ("code = PermissionDenied", 403, "PermissionDenied"),
    // gRPC's own descriptions of the two codes (grpc doc/statuscodes.md),
    // which Rust's tonic prints for a Status (Code::description): ztunnel's
    // and other Rust proxies' xDS and certificate clients.
    (
        "The request does not have valid authentication credentials",
        401,
        "Unauthenticated",
    ),
    (
        "The caller does not have permission to execute the specified operation",
        403,
        "PermissionDenied",
    ),
    // kube-apiserver's proxy (services, pods, nodes proxy): a 503 whose
    // body names the failed call and its target.
    (PROXY_TARGET, 503, ""),
    // kube-controller-manager's check of a ServiceAccount token Secret for
    // its controllers: kube-apiserver answered 401 to it
    // (k8s.io/controller-manager pkg/clientbuilder, SAControllerClientBuilder).
    ("contained an invalid API token for", 401, ""),
    // OpenShift's oc, for a 401 to the token it was given (oc login --token).
    ("The token provided is invalid or expired", 401, ""),
    // The kubelet's own authorizer (pkg/kubelet/server/auth.go).
    ("Forbidden (user=", 403, ""),
    // The kubelet's words for a 404 on TokenRequest.
    (
        "the API server does not have TokenRequest endpoints enabled",
        404,
        "the server could not find the requested resource",
    ),
    // Programs that call the API and say the answer in their own sentence,
    // each in the branch that checks that status. Hazelcast's Kubernetes
    // discovery (KubernetesClient.handleKnownException, then it starts
    // standalone): hazelcast/hazelcast-kubernetes src/main/java/com/
    // hazelcast/kubernetes/KubernetesClient.java 2.1-2.2.x and hazelcast/
    // hazelcast hazelcast/src/main/java/com/hazelcast/kubernetes/
    // KubernetesClient.java 5.0+ (the plugin merged in)...
    ("Kubernetes API authorization failure! To use Hazelcast Kubernetes discovery", 401, ""),
    ("Kubernetes API access is forbidden! Starting standalone", 403, ""),
    // ...and hazelcast-kubernetes 1.4-2.0.x, the same two branches.
    ("Kubernetes API authorization failure, please check your 'api-token' property", 401, ""),
    ("Kubernetes API forbidden access, please check that your Service Account", 403, ""),
    // Akka Management's Kubernetes API discovery, its log line and the
    // exception it fails with, for StatusCodes.Forbidden (akka/akka-management
    // discovery-kubernetes-api/src/main/scala/akka/discovery/kubernetes/
    // KubernetesApiServiceDiscovery.scala 0.20.0+; its AKS discovery,
    // discovery-azure-api/…/AzureRbacAksServiceDiscovery.scala, words the
    // exception `… the Kubernetes API Server. Check if the managed identity
    // …`), Apache Pekko Management's copy (apache/pekko-management
    // discovery-kubernetes-api/…/KubernetesApiServiceDiscovery.scala 1.0+)
    // and Akka.NET's (akkadotnet/Akka.Management src/discovery/kubernetes/
    // Akka.Discovery.KubernetesApi/KubernetesApiServiceDiscovery.cs,
    // HttpStatusCode.Forbidden).
    ("Forbidden to communicate with Kubernetes API server", 403, ""),
    ("Forbidden when communicating with the Kubernetes API", 403, ""),
    // Akka Management's Kubernetes lease and rolling-update support, for
    // StatusCodes.Unauthorized only (a 403 is their `unexpected status
    // code` with the body): akka/akka-management lease-kubernetes/src/main/
    // scala/akka/coordination/lease/kubernetes/internal/KubernetesApiImpl.scala
    // 1.1.0+, rolling-update-kubernetes/…/KubernetesApiImpl.scala; Pekko
    // Management's and Akka.NET's Kubernetes lease the same. Up to `See`:
    // Akka.NET's Azure lease (Akka.Coordination.Azure AzureApiImpl.cs) says
    // the same first sentence for Azure Blob Storage's 401, then `Reason: [`.
    ("Unauthorized to communicate with Kubernetes API server. See", 401, ""),
    // JGroups KUBE_PING (Infinispan's and WildFly's Kubernetes discovery),
    // HTTP_UNAUTHORIZED before it rereads the token file: jgroups-extras/
    // jgroups-kubernetes src/main/java/org/jgroups/protocols/kubernetes/
    // stream/TokenStreamProvider.java 2.0.3.Final, 3.0.0.Final+.
    ("Received HTTP 401 Unauthorized from Kubernetes API server", 401, ""),
    // fluentd's kubernetes_metadata filter, KubeException#error_code 401
    // before it makes a new client (to reread the token; `… exception in
    // watch, …` from its watches), and 404 for a pod's metadata (at debug):
    // fabric8io/fluent-plugin-kubernetes_metadata_filter lib/fluent/plugin/
    // filter_kubernetes_metadata.rb, kubernetes_metadata_watch_pods.rb,
    // kubernetes_metadata_watch_namespaces.rb 2.11.1+ (the 404 3.1.3+).
    ("Encountered '401 Unauthorized' exception", 401, ""),
    ("Encountered '404 Not Found' exception, pod not found", 404, ""),
    // Apache Camel's Kubernetes custom resources producer, a get or delete
    // whose KubernetesClientException has code 404 (apache/camel components/
    // camel-kubernetes/src/main/java/org/apache/camel/component/kubernetes/
    // customresources/KubernetesCustomResourcesProducer.java, 3.x with
    // fabric8's raw custom resources and 4.x with its generic resources).
    ("Custom resource instance not found", 404, ""),
];

/// A Status object's kind in the renderings that keep its fields: Python's
/// `repr`, Lombok's and Scala's `toString`, JSON with and without spaces.
pub const STATUS_MARKERS: &[&str] = &[
    "'kind': 'Status'",
    "kind=Status",
    "\"kind\":\"Status\"",
    "\"kind\": \"Status\"",
];

/// The annotations kube-apiserver writes that say something about a token.
pub const AUDIT_ANNOTATIONS: &[&str] = &[
    "authorization.k8s.io/decision",
    "authentication.k8s.io/stale-token",
    "authentication.k8s.io/legacy-token",
    "authentication.k8s.io/legacy-token-invalidated",
];

/// The request headers curl's verbose output shows after `> ` (besides any
/// `x-` header): what it sends itself, and what a Kubernetes client adds.
pub const CURL_REQUEST_HEADERS: &[&str] = &[
    "host",
    "authorization",
    "user-agent",
    "accept",
    "content-type",
    "content-length",
    "sec-websocket-protocol",
];

/// A JSON object's keys that make it worth walking for a document: a
/// Status's or an event's kind, the Dashboard's `ErrStatus`, Vault's
/// `errors`, a structured log's message fields, an audit event's
/// annotations.
pub const DOCUMENT_CUES: &[&str] = &[
    "\"kind\"",
    "\"ErrStatus\"",
    "\"errors\"",
    "\"message\"",
    "\"msg\"",
    "\"error\"",
    "\"err\"",
    "\"log\"",
    "\"annotations\"",
    "authentication.k8s.io/",
    "authorization.k8s.io/",
];

/// String fields whose value is a program's message (`error_description`:
/// an OAuth 2.0 token endpoint's error response, RFC 6749 section 5.2, as
/// Entra ID and Google's STS answer a token exchange).
pub const TEXT_FIELDS: &[&str] = &[
    "msg",
    "message",
    "error",
    "error_description",
    "err",
    "errors",
    "log",
    "reason",
    "detail",
    "details",
];

/// The fields that follow `message=` in a Java `Status(…)` dump (a
/// `toString` that prints the fields in alphabetical order): where the
/// message ends.
pub const JAVA_STATUS_FIELDS: &[&str] = &[
    ", metadata=",
    ", reason=",
    ", status=",
    ", additionalProperties=",
];

/// What ends a refusal quoted in a log field that runs on: a JSON string's
/// or a Python dict's closing, the kubelet's structured fields after it,
/// fabric8's `. Received status:` after its message, istiod's next
/// `. Authenticator …` after one authenticator's error.
pub const MESSAGE_ENDS: &[&str] = &[
    "\"}",
    "\",\"",
    "\", \"",
    ". Received status:",
    "\" pod=",
    "\" podSandboxID=",
    "\"\n",
    "', '",
    "'}",
    ". Authenticator ",
];

/// What only curl writes after `* ` in its verbose output (its `infof` lines
/// in lib/connect.c, lib/url.c and lib/vtls/) (other programs list items with `* `,
/// Vault its errors).
pub const CURL_INFO: &[&str] = &[
    "Trying ",
    "Connected to ",
    "connect to ",
    "Could not resolve",
    "Closing connection",
    "SSL connection using",
    "TLSv1",
    "ALPN",
    "[HTTP/2]",
    "Failed to connect",
    "Connection #",
    "successfully set certificate",
    "Server certificate:",
    "Host ",
    "IPv4",
    "IPv6",
    "Uses proxy",
    "Using HTTP2",
    "Mark bundle",
    "schannel",
    "OpenSSL SSL_connect",
    "SSL certificate problem",
    "CAfile:",
    "CApath:",
    "Established connection",
];

/// Programs whose command lines start a request worth separating answers by.
pub const PROMPT_PROGRAMS: &[&str] = &[
    "curl",
    "wget",
    "kubectl",
    "k",
    "oc",
    "helm",
    "vault",
    "kube-proxy",
    "journalctl",
    "docker",
    "crictl",
    "make",
    "k3d",
    "minikube",
    "python",
    "python3",
    "export",
    "sudo",
    "ssh",
    "aws",
    "az",
    "gcloud",
    "terraform",
    "kubeadm",
    "microk8s",
    "k3s",
    "http",
    "xh",
];

/// What a log or trace line starts with (besides klog's header, dates and
/// months): a line that starts so is a new line, not a wrapped one.
pub const LINE_OPENERS: &[&str] = &[
    "at ",
    "Caused by",
    "Error",
    "error",
    "ERROR",
    "WARN",
    "INFO",
    "DEBUG",
    "TRACE",
    "Warning",
    "HTTP/",
    "curl:",
    "Traceback",
    "File ",
    "Unable to",
    "time=",
    "level=",
];

/// Words that suggest evidence without making an answer, and what was seen.
/// The numbers are status codes, which `--type status` reads more leniently.
#[rustfmt::skip]
pub const NEAR_MISSES: &[(&str, &str)] = &[
    ("Unauthorized", "the word \"Unauthorized\" without an answer around it"),
    ("Forbidden", "the word \"Forbidden\" without an answer around it"),
    ("forbidden", "the word \"forbidden\" without a refusal's wording"),
    ("401", "the number 401 without an HTTP status around it"),
    ("403", "the number 403 without an HTTP status around it"),
    ("x509", "an x509 text that is not a TLS failure's"),
    ("TokenReview", "a TokenReview that is neither accepted nor rejected"),
    ("token", "the word \"token\" without a known message"),
    ("denied", "the word \"denied\" without a known refusal"),
    // An authorizer's `User "NAME" cannot VERB …`, cut before its verb.
    ("User \"", "a user's name where an authorizer's refusal may have been cut short"),
    // A controller's FailedCreate event (controller_utils.go).
    ("Error creating:", "a controller's failed create whose error is empty or unknown"),
    // kube-runtime's stream_backoff, client-go's reflector.
    ("backing off", "a client retrying after an error it does not print"),
];

/// The anchors besides the wordings tables (matched in any case).
pub const PREFILTER_WORDS: &[&str] = &[
    // Answers and their status words besides the reason phrases
    // (`Unauthorized`, Status reasons, `code = Unauthenticated`).
    "unauthori",
    "authenticat",
    "denied",
    "deny",
    "permission",
    "credential",
    "logged in",
    "status",
    "code",
    "http/1.",
    "http/2 ",
    "http/2.0 ",
    "http/3",
    "already exists",
    "alreadyexists",
    "too many",
    "toomany",
    "too large",
    "unavailable",
    "unprocessable",
    "not allowed",
    "notallowed",
    "not supported",
    "unsupported",
    // A Status reason alone, as a field's value (`Reason: "Timeout",`,
    // `reason=Gone`): the status readers read it, and some values are words
    // every request line says (`timeout=32s`).
    "reason",
    // The reasons and what judges tokens.
    "token",
    "jose",
    "oidc",
    "invalid",
    "expired",
    "not match",
    "not valid",
    "x509",
    "certificate",
    "tls",
    "ssl",
    "tokenreview",
    "audit.k8s.io",
    "aadsts",
    "webidentity",
    // What a failure says of itself (curl ends every failure with its exit
    // code, whatever its backend's words: `curl: (52)`). Not `error` or
    // `unable`: every klog error line says so (etcd's `watch chan error`, a
    // tenth of a busy server's lines), and an answer the engine reads
    // carries a word above.
    "curl: (",
    "fail",
    "refused",
    "cannot",
    "not authorized",
    "unreachable",
];

/// kubectl's wrapping of a server's message with the file it came from
/// (`error when creating "x.yaml": MESSAGE`): k8s.io/kubectl
/// pkg/cmd/util/helpers.go AddSourceToErr (`error when %s %q: %v`), with the
/// verbs create, apply and the retrieval before an apply use.
pub const KUBECTL_SOURCE_ERRORS: &[&str] = &[
    "error when creating ",
    "error when retrieving ",
    "error when applying ",
];

/// What opens a client's line naming its request (`METHOD URL` after it):
/// fabric8's `Failure executing: GET at: URL` (KubernetesClientException),
/// Vault's API error (`URL: PUT …`), OkHttp's logging interceptor (`--> GET
/// URL`), Go's `%v` of an `*http.Request`.
pub const REQUEST_LINE_OPENERS: &[&str] =
    &["Failure executing: ", "URL: ", "--> ", "request [&{Method:"];
