//! How each client library prints an API server's answer: its error's
//! `Display`/`str`/`toString`, and the debug dumps of the Status beside it.
//! Each rendering is a template over one answer's parts, so that every
//! message template of [`super::apimachinery`] can be rendered the way every
//! client prints it (the generated tests do exactly that).
//!
//! Placeholders: `{code}`, `{reason}` (the Status reason), `{phrase}` (the
//! HTTP reason phrase), `{dotnet}` (.NET's `HttpStatusCode` name), `{message}`
//! as is, `{message_q}` quoted and escaped the Go/Rust way (`"pods \"x\""`),
//! `{message_j}` as a JSON string, `{url}` and `{verb}`.

/// The klog callers of client-go's request log: what a kubectl or a
/// controller run at `-v=6` and above logs of each request it makes (its
/// round-tripper) and of API discovery (the cached and memory discovery
/// clients, kubectl's shortcut expander). An answer on such a line is a
/// request the client made on its way, not a verdict it printed.
/// Source: k8s.io/client-go transport/round_trippers.go, discovery/
/// discovery_client.go, discovery/cached/memory/memcache.go, discovery/cached/
/// disk/cached_discovery.go, restmapper/shortcut.go (1.10-1.35).
pub const REQUEST_LOG_CALLERS: &[&str] = &[
    "round_trippers.go",
    "discovery_client.go",
    "memcache.go",
    "cached_discovery.go",
    "shortcut.go",
];

/// One way a client prints an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rendering {
    /// The client and the form (`client-go StatusError %#v`).
    pub client: &'static str,
    pub text: &'static str,
    /// Whether the rendering states the status (a code or a reason): one
    /// that prints the message alone says only what the message says.
    pub states_status: bool,
    pub versions: &'static str,
    pub source: &'static str,
}

const fn r(
    client: &'static str,
    text: &'static str,
    states_status: bool,
    versions: &'static str,
    source: &'static str,
) -> Rendering {
    Rendering {
        client,
        text,
        states_status,
        versions,
        source,
    }
}

const CLIENT_GO: &str = "k8s.io/apimachinery/pkg/api/errors/errors.go (StatusError.Error); Go fmt's %#v and %+v of its fields (k8s.io/apimachinery/pkg/apis/meta/v1/types.go)";
const KUBECTL: &str = "k8s.io/kubectl/pkg/cmd/util/helpers.go (StandardErrorMessage)";
const PYTHON: &str = "kubernetes-client/python kubernetes/client/exceptions.py (ApiException.__str__; rest.py before 12.0)";
const JAVA: &str = "kubernetes-client/java kubernetes/src/main/java/io/kubernetes/client/openapi/ApiException.java and models/V1Status.java (toString)";
const FABRIC8: &str = "fabric8io/kubernetes-client kubernetes-client-api/.../KubernetesClientException.java (requestFailure); OperationSupport.java before 6.0; Status's toString (Lombok)";
const NODE: &str = "kubernetes-client/javascript src/gen/apis/exception.ts (ApiException, 1.0+); src/api.ts HttpError (0.x)";
const KUBE_RS: &str = "kube-rs/kube kube-core/src/error.rs (ErrorResponse: #[error(\"{message}: {reason}\")]) and kube-client/src/error.rs (#[error(\"ApiError: {0} ({0:?})\")])";
const RUBY: &str = "ManageIQ/kubeclient lib/kubeclient/http_error.rb (HttpError#to_s, and attr_reader :message; kube_exception.rb KubeException before 3.0)";
const DOTNET: &str = "kubernetes-client/csharp src/KubernetesClient/Autorest/HttpOperationException.cs and the generated operations (\"Operation returned an invalid status code '{0}'\")";
const SKUBER: &str = "hagay3/skuber (doriordan/skuber) client/src/main/scala/skuber/api/client/package.scala (case class Status, K8SException)";
const SPRING: &str =
    "spring-framework spring-webflux WebClientResponseException.java (initMessage)";
const OKHTTP: &str = "square/okhttp okhttp/src/main/kotlin/okhttp3/Response.kt (toString: \"Response{protocol=$protocol, code=$code, message=$message, url=${request.url}}\"; Response.java before 4.0), which fabric8 and the Java client quote";
const JACKSON: &str = "FasterXML/jackson-core ParserBase/ReaderBasedJsonParser._reportInvalidToken";

/// Words a program puts before a Status message it passes on whole, and who
/// writes them: what follows is kube-apiserver's message, whose template
/// names the status the wrapper leaves out.
pub const STATUS_WRAPPERS: &[(&str, &str)] = &[(
    "failed to fetch token: ",
    "k8s.io/kubernetes pkg/kubelet/token/token_manager.go (GetServiceAccountToken: the pod's projected token), 1.12+",
)];

/// Every rendering: client, words, whether the status is in them.
pub const RENDERINGS: &[Rendering] = &[
    r(
        "client-go StatusError %v",
        "E0101 00:00:00.000000       1 main.go:42] {message}",
        false,
        "all",
        CLIENT_GO,
    ),
    r(
        "client-go StatusError %#v",
        "error: &errors.StatusError{ErrStatus:v1.Status{TypeMeta:v1.TypeMeta{Kind:\"\", APIVersion:\"\"}, ListMeta:v1.ListMeta{SelfLink:\"\", ResourceVersion:\"\", Continue:\"\", RemainingItemCount:(*int64)(nil)}, Status:\"Failure\", Message:{message_q}, Reason:\"{reason}\", Details:(*v1.StatusDetails)(0xc0004a2f00), Code:{code}}}",
        true,
        "1.6+",
        CLIENT_GO,
    ),
    r(
        "client-go Status %+v",
        "status: {TypeMeta:{Kind: APIVersion:} ListMeta:{SelfLink: ResourceVersion: Continue: RemainingItemCount:<nil>} Status:Failure Message:{message} Reason:{reason} Details:0xc0004a2f00 Code:{code}}",
        true,
        "1.6+",
        CLIENT_GO,
    ),
    r(
        "kubectl",
        "Error from server ({reason}): {message}",
        true,
        "all",
        KUBECTL,
    ),
    r(
        "python kubernetes ApiException",
        "kubernetes.client.exceptions.ApiException: ({code})\nReason: {phrase}\nHTTP response headers: HTTPHeaderDict({'Content-Type': 'application/json', 'Date': 'Thu, 01 Jan 2026 00:00:00 GMT', 'Content-Length': '180'})\nHTTP response body: {\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":{message_j},\"reason\":\"{reason}\",\"code\":{code}}\n",
        true,
        "4.0+",
        PYTHON,
    ),
    // Its stream calls (exec, attach, port-forward) over websocket-client:
    // a refused upgrade is `ApiException(status=0, reason=str(e))`, the
    // status in websocket-client's words (`-+-+- HEADERS -+-+- BODY` after
    // them since 1.2).
    r(
        "python kubernetes stream ApiException",
        "kubernetes.client.exceptions.ApiException: (0)\nReason: Handshake status {code} {phrase}",
        true,
        "all (websocket-client before 1.2: the status alone)",
        "kubernetes-client/python kubernetes/base/stream/ws_client.py (websocket_call); websocket-client websocket/_handshake.py (_get_resp_headers)",
    ),
    r(
        "java ApiException (openapi-generator message)",
        "io.kubernetes.client.openapi.ApiException: Message: {phrase}\nHTTP response code: {code}\nHTTP response body: {\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":{message_j},\"reason\":\"{reason}\",\"code\":{code}}\nHTTP response headers: {content-type=[application/json]}",
        true,
        "18.0+",
        JAVA,
    ),
    r(
        "java ApiException (reason phrase)",
        "io.kubernetes.client.openapi.ApiException: {phrase}",
        true,
        "5.0–17.x",
        JAVA,
    ),
    r(
        "java V1Status toString",
        "class V1Status {\n    apiVersion: v1\n    code: {code}\n    details: null\n    kind: Status\n    message: {message}\n    metadata: class V1ListMeta {\n        _continue: null\n        remainingItemCount: null\n        resourceVersion: null\n        selfLink: null\n    }\n    reason: {reason}\n    status: Failure\n}",
        true,
        "all",
        JAVA,
    ),
    r(
        "OkHttp Response toString",
        "java.io.IOException: Unexpected response Response{protocol=h2, code={code}, message=, url={url}}",
        true,
        "okhttp 3.0+ (HTTP/2: no reason phrase)",
        OKHTTP,
    ),
    r(
        "JVM client log line",
        "WARN  [okhttp] Received a response with HTTP status {code} from {verb} {url}",
        true,
        "-",
        "a JVM program's own log line around any client (the issue's shape; no one upstream)",
    ),
    r(
        "fabric8 KubernetesClientException",
        "io.fabric8.kubernetes.client.KubernetesClientException: Failure executing: {verb} at: {url}. Message: {message}. Received status: Status(apiVersion=v1, code={code}, details=null, kind=Status, message={message}, metadata=ListMeta(_continue=null, remainingItemCount=null, resourceVersion=null, selfLink=null, additionalProperties={}), reason={reason}, status=Failure, additionalProperties={}).",
        true,
        "1.x+",
        FABRIC8,
    ),
    // An answer without a Status body: fabric8 makes one of the code and
    // OkHttp's message, the reason phrase (empty over HTTP/2).
    r(
        "fabric8 KubernetesClientException (no Status body)",
        "io.fabric8.kubernetes.client.KubernetesClientException: Failure executing: {verb} at: {url}. Message: {phrase}.",
        true,
        "4.x+ (OperationSupport.createStatus)",
        FABRIC8,
    ),
    r(
        "client-node 0.x HttpError body",
        "  body: V1Status {\n    apiVersion: 'v1',\n    kind: 'Status',\n    metadata: V1ListMeta {},\n    status: 'Failure',\n    message: {message_j},\n    reason: '{reason}',\n    code: {code}\n  },\n  statusCode: {code}\n}",
        true,
        "0.x",
        NODE,
    ),
    r(
        "client-node 1.x ApiException",
        "ApiException [Error]: HTTP-Code: {code}\nMessage: Unknown API Status Code!\nBody: {\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":{message_j},\"reason\":\"{reason}\",\"code\":{code}}\nHeaders: {\"content-type\":\"application/json\"}",
        true,
        "1.0+",
        NODE,
    ),
    r(
        "kube-rs Error::Api Display",
        "Error: ApiError: {message}: {reason} (ErrorResponse { status: \"Failure\", message: {message_q}, reason: \"{reason}\", code: {code} })",
        true,
        "0.x",
        KUBE_RS,
    ),
    r(
        "kube-rs Error::Api Debug",
        "Error: Api(ErrorResponse { status: \"Failure\", message: {message_q}, reason: \"{reason}\", code: {code} })",
        true,
        "0.x",
        KUBE_RS,
    ),
    r(
        "kube-rs Error::Api Debug (Status)",
        "Error: Api(Status { status: Some(Failure), code: {code}, message: {message_q}, reason: \"{reason}\", details: None })",
        true,
        "2.0+",
        KUBE_RS,
    ),
    r(
        "ruby kubeclient HttpError",
        "Kubeclient::HttpError: HTTP status code {code}, {message} for {verb} {url}",
        true,
        "3.0+",
        RUBY,
    ),
    r(
        "ruby kubeclient KubeException",
        "KubeException: HTTP status code {code}, {message}",
        true,
        "≤2.x",
        RUBY,
    ),
    // KubeException's attr_reader :message hides its to_s from Ruby's own
    // printers: an uncaught error and Rails' log show the Status message.
    r(
        "ruby kubeclient HttpError uncaught",
        "/usr/local/bundle/gems/kubeclient-4.11.0/lib/kubeclient/common.rb:130:in `rescue in handle_exception': {message} (Kubeclient::HttpError)",
        false,
        "all",
        RUBY,
    ),
    r(
        "ruby kubeclient HttpError in a Rails log",
        "Kubeclient::HttpError ({message}):",
        false,
        "all",
        RUBY,
    ),
    r(
        "dotnet KubernetesClient HttpOperationException",
        "Unhandled exception. k8s.Autorest.HttpOperationException: Operation returned an invalid status code '{dotnet}'",
        true,
        "all",
        DOTNET,
    ),
    r(
        "scala skuber K8SException",
        "skuber.api.client.K8SException: Status(v1,Status,ListMeta(,,None),Some(Failure),Some({message}),Some({reason}),None,Some({code}))",
        true,
        "all",
        SKUBER,
    ),
    r(
        "spring WebClientResponseException",
        "WebClientResponseException: {code} {phrase} from {verb} {url}",
        true,
        "5.0+",
        SPRING,
    ),
    r(
        "terraform kubernetes provider",
        "│ Error: {message}",
        false,
        "all",
        "hashicorp/terraform-provider-kubernetes (client-go's Error() as the diagnostic)",
    ),
    r(
        "helm",
        "Error: INSTALLATION FAILED: {message}",
        false,
        "3.x",
        "helm/helm cmd/helm (client-go's Error() after its own prefix)",
    ),
];

/// An old Java client's JSON parser, given a plain-text body (`Unauthorized`)
/// where it expected a Status: Jackson quotes the body's first word, so the
/// status is in it. (Gson's `Expected BEGIN_OBJECT but was STRING` does not
/// quote it, and says nothing about the answer.)
pub const JACKSON_PLAIN_BODY: Rendering = r(
    "Jackson on a plain-text body",
    "com.fasterxml.jackson.core.JsonParseException: Unrecognized token '{phrase}': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')",
    true,
    "all",
    JACKSON,
);

/// kubectl's prompt for a username (client-go tools/clientcmd
/// auth_loaders.go, promptForString: `Please enter %s: `), shown only when
/// the kubeconfig's user holds no credential at all (no token, certificate,
/// exec plugin or auth-provider): whatever is typed, no token is sent.
pub const KUBECTL_CREDENTIAL_PROMPT: &str = "Please enter Username: ";

/// The first and the last-but-some column of kubectl's table of the objects
/// a request listed or got (`NAME  READY  STATUS  RESTARTS  AGE`): column
/// names in capitals, two spaces or more apart (k8s.io/cli-runtime
/// pkg/printers/tableprinter.go; the server's Table columns, upper-cased).
pub const KUBECTL_TABLE_COLUMNS: (&str, &str) = ("NAME", "AGE");

/// The words Jackson puts before the token it could not read.
pub const JACKSON_UNRECOGNIZED: &str = "Unrecognized token '";

/// Go's `encoding/json` on a plain-text body: only the body's first letter
/// is quoted (`invalid character 'U' looking for beginning of value`).
pub const GO_JSON_PLAIN_BODY: Rendering = r(
    "Go encoding/json on a plain-text body",
    "invalid character '{first}' looking for beginning of value",
    true,
    "all",
    "golang/go src/encoding/json/scanner.go (stateBeginValue: \"looking for beginning of value\")",
);

/// client-go's failed upgrade of a streaming request (`kubectl exec`,
/// `attach`, `port-forward`, `cp`) whose answer's body is not a Status: the
/// body, trimmed, is quoted whole (a Status body is its `StatusError`).
pub const UPGRADE_PLAIN_BODY: Rendering = r(
    "client-go's SPDY upgrade on a plain-text body",
    "unable to upgrade connection: {message}",
    true,
    "1.0-1.36",
    "k8s.io/apimachinery pkg/util/httpstream/spdy/roundtripper.go (SpdyRoundTripper.NewConnection: \"unable to upgrade connection: %s\")",
);

/// The parts of one answer a rendering is made of.
#[derive(Debug, Clone, Copy)]
pub struct Parts<'a> {
    pub code: u16,
    pub reason: &'a str,
    pub phrase: &'a str,
    pub dotnet: &'a str,
    pub message: &'a str,
    pub verb: &'a str,
    pub url: &'a str,
}

impl Rendering {
    /// The words this client prints for `p`.
    pub fn render(&self, p: &Parts<'_>) -> String {
        let quoted = format!("{:?}", p.message);
        let json = serde_json::Value::String(p.message.to_owned()).to_string();
        self.text
            .replace("{code}", &p.code.to_string())
            .replace("{reason}", p.reason)
            .replace("{phrase}", p.phrase)
            .replace("{dotnet}", p.dotnet)
            .replace("{verb}", p.verb)
            .replace("{url}", p.url)
            .replace("{message_q}", &quoted)
            .replace("{message_j}", &json)
            .replace("{message}", p.message)
            .replace("{first}", p.phrase.get(..1).unwrap_or(""))
    }
}
