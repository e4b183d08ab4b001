//! Pure: reads kube-apiserver's 403 message and writes the RBAC grant that would
//! allow exactly what was denied.
//!
//! Grammar (k8s.io/apiserver responsewriters + apimachinery `NewForbidden`):
//! ```text
//! <prefix>: <core>[: <reason>]
//! prefix = forbidden | <res>[.<group>] is forbidden | <res>[.<group>] "<name>" is forbidden
//! core   = User "<u>" cannot <verb> path "<path>"
//!        | User "<u>" cannot <verb> resource "<res>[/<sub>]" in API group "<g>" in the namespace "<ns>"
//!        | User "<u>" cannot <verb> resource "<res>[/<sub>]" in API group "<g>" at the cluster scope
//!        | User "<u>" cannot <verb> <res> in the namespace "<ns>"          (before 1.12)
//! ```
//! `&`, `<`, `>`, `'` and `"` inside the core are HTML-escaped by the server.

pub use super::escalation::{ESCALATIONS, Escalation, EscalationPath, GrantRisk};
use super::facts::RequestInfo;
use super::next::Command;
use crate::vocabulary::apimachinery::AUTHORIZER;

pub use super::facts::{ANONYMOUS, Forbidden, service_account_of};

impl Forbidden {
    /// Parses a 403 `message`; `None` if it does not follow the grammar.
    pub fn parse(message: &str) -> Option<Forbidden> {
        if let Some(f) = Forbidden::parse_kubelet(message) {
            return Some(f);
        }
        if let Some(f) = Forbidden::parse_escalation(message) {
            return Some(f);
        }
        let mut message = unescape_html(message.trim());
        if !message.contains('"') {
            message = requoted(&message).unwrap_or(message);
        }
        let (prefix, rest) = message.split_once("User \"")?;
        let prefix = prefix.trim_end().trim_end_matches(':');
        let (user, rest) = rest.split_once("\" cannot ")?;
        let (verb, rest) = rest.split_once(' ')?;
        let parsed = Forbidden {
            user: user.to_owned(),
            request: RequestInfo {
                verb: Some(verb.to_owned()),
                name: name_from_prefix(prefix),
                ..RequestInfo::default()
            },
            ..Forbidden::default()
        };
        // A message cut short (a paste, a truncated body) still names the
        // user and the verb.
        Some(parsed.clone().tail(rest).unwrap_or(parsed))
    }

    /// The kubelet's own authorizer (pkg/kubelet/server/auth.go), which asks
    /// kube-apiserver with a SubjectAccessReview: `Forbidden (user=U,
    /// verb=V, resource=R, subresource=S)`.
    fn parse_kubelet(message: &str) -> Option<Forbidden> {
        let i = message.find("Forbidden (user=")?;
        let inner = message[i + 11..].split(')').next()?;
        let mut f = Forbidden {
            kubelet: true,
            ..Forbidden::default()
        };
        for field in inner.split(", ") {
            let (key, value) = field.split_once('=')?;
            let value = Some(value.to_owned()).filter(|v| !v.is_empty());
            match key {
                "user" => f.user = value?,
                "verb" => f.request.verb = Some(value?),
                "resource" => f.request.resource = value,
                "subresource" => f.request.subresource = value,
                "path" => f.request.path = value,
                _ => {}
            }
        }
        // The kubelet's resources are the node's: nodes/proxy, nodes/stats…
        f.request.api_group = f.request.resource.is_some().then(String::new);
        (!f.user.is_empty() && !f.verb().is_empty()).then_some(f)
    }

    /// RBAC's escalation prevention (the `ConfirmNoEscalation` rows of
    /// [`AUTHORIZER`]): the author of a Role or binding does not hold what it
    /// grants. What allows it is `escalate` on the role, or `bind` on the role
    /// a binding names (or holding the permissions themselves).
    fn parse_escalation(message: &str) -> Option<Forbidden> {
        AUTHORIZER
            .iter()
            .filter(|t| t.by.starts_with("ConfirmNoEscalation"))
            .find(|t| t.found_in(message))?;
        let (prefix, rest) = message.split_once(" is forbidden: ")?;
        let user = match rest.split_once("user=&{") {
            // The early form prints Go's `%v` of the user, `&{NAME UID
            // [GROUPS] EXTRA}`: a name may hold spaces, a UID may be empty.
            Some((_, u)) => u.split_once(" [")?.0.rsplit_once(' ')?.0,
            None => rest.split_once("user \"")?.1.split('"').next()?,
        };
        let (head, _) = prefix.rsplit_once(".rbac.authorization.k8s.io")?;
        let written = head.rsplit([' ', ':']).next()?;
        let (verb, role) = match written {
            "roles" | "clusterroles" => ("escalate", written),
            "rolebindings" => ("bind", "roles"),
            "clusterrolebindings" => ("bind", "clusterroles"),
            _ => return None,
        };
        Some(Forbidden {
            user: user.to_owned(),
            request: RequestInfo {
                verb: Some(verb.to_owned()),
                resource: Some(role.to_owned()),
                api_group: Some("rbac.authorization.k8s.io".to_owned()),
                // A binding's message names the binding, not its role.
                name: (verb == "escalate")
                    .then(|| name_from_prefix(prefix))
                    .flatten(),
                ..RequestInfo::default()
            },
            // RBAC's registry refused after authorization said yes: no
            // authorizer's reason.
            reason: None,
            kubelet: false,
        })
    }

    /// What follows `cannot VERB `: the resource or path, the scope, the reason.
    fn tail(mut self, rest: &str) -> Option<Forbidden> {
        let parsed = &mut self;
        let rest = if let Some(rest) = rest.strip_prefix("path \"") {
            let (path, rest) = rest.split_once('"')?;
            parsed.request.path = Some(path.to_owned());
            rest
        } else if let Some(rest) = rest.strip_prefix("resource \"") {
            let (resource, rest) = rest.split_once('"')?;
            parsed.set_resource(resource);
            let rest = rest.strip_prefix(" in API group \"")?;
            let (group, rest) = rest.split_once('"')?;
            parsed.request.api_group = Some(group.to_owned());
            parsed.scope(rest)?
        } else {
            // Pre-1.12: `cannot list pods in the namespace "ns"`, the group
            // after the resource's name (`deployments.apps`).
            let (resource, rest) = rest.split_at(rest.find(' ')?);
            let (resource, group) = split_off(resource, '.');
            parsed.set_resource(resource);
            parsed.request.api_group = group.map(str::to_owned);
            parsed.scope(rest)?
        };
        parsed.reason = reason(rest);
        Some(self)
    }

    fn set_resource(&mut self, resource: &str) {
        let (resource, sub) = split_off(resource, '/');
        self.request.resource = Some(resource.to_owned());
        self.request.subresource = sub.map(str::to_owned);
    }

    /// Reads ` in the namespace "<ns>"` or ` at the cluster scope`; returns the rest.
    fn scope<'a>(&mut self, rest: &'a str) -> Option<&'a str> {
        if let Some(rest) = rest.strip_prefix(" in the namespace \"") {
            let (ns, rest) = rest.split_once('"')?;
            self.request.namespace = Some(ns.to_owned());
            Some(rest)
        } else {
            rest.strip_prefix(" at the cluster scope")
        }
    }

    /// The message kube-apiserver (1.12+) writes for this denial: the
    /// inverse of [`Forbidden::parse`], for a request seen many times.
    pub fn message(&self) -> String {
        let mut prefix = self.request.qualified_resource(false);
        if let Some(name) = &self.request.name {
            prefix = format!("{prefix} \"{name}\"");
        }
        if !prefix.is_empty() {
            prefix.push_str(" is ");
        }
        let what = match &self.request.path {
            Some(path) => format!("path \"{path}\""),
            None => {
                let mut resource = self.request.resource.clone().unwrap_or_default();
                if let Some(sub) = &self.request.subresource {
                    resource = format!("{resource}/{sub}");
                }
                let scope = match &self.request.namespace {
                    Some(ns) => format!("in the namespace \"{ns}\""),
                    None => "at the cluster scope".to_owned(),
                };
                format!(
                    "resource \"{resource}\" in API group \"{}\" {scope}",
                    self.request.api_group.as_deref().unwrap_or("")
                )
            }
        };
        let reason = self
            .reason
            .as_deref()
            .map(|r| format!(": {r}"))
            .unwrap_or_default();
        format!(
            "{prefix}forbidden: User \"{}\" cannot {} {what}{reason}",
            self.user,
            self.verb()
        )
    }

    pub fn verb(&self) -> &str {
        self.request.verb.as_deref().unwrap_or_default()
    }

    /// The node, when the user is a kubelet (`system:node:NAME`).
    pub fn node(&self) -> Option<&str> {
        self.user.strip_prefix("system:node:")
    }

    /// Whether no token reached the server.
    pub fn is_anonymous(&self) -> bool {
        self.user == ANONYMOUS
    }

    /// `(namespace, name)` when the user is a ServiceAccount.
    pub fn service_account(&self) -> Option<(&str, &str)> {
        service_account_of(&self.user)
    }

    /// What granting exactly this request would give beyond it; `None` when
    /// the grant is as narrow as the request.
    pub fn grant_risk(&self) -> Option<GrantRisk> {
        let r = &self.request;
        let star = |v: &Option<String>| v.as_deref().is_some_and(|v| v.contains('*'));
        let wildcard = [
            (self.verb().contains('*'), "every verb"),
            (star(&r.resource) || star(&r.subresource), "every resource"),
            (star(&r.api_group), "every API group"),
            (star(&r.path), "every path under it"),
        ];
        if let Some((_, what)) = wildcard.into_iter().find(|(starred, _)| *starred) {
            return Some(GrantRisk::Wildcard(what));
        }
        let verb = self.verb();
        let risk = ESCALATIONS.iter().find(|p| p.matches(verb, r))?.escalation;
        Some(GrantRisk::Escalation(risk))
    }

    /// The `kubectl create role|clusterrole` and `… rolebinding|clusterrolebinding`
    /// commands that grant exactly this request to this user. Empty for
    /// anonymous, and for a request for `*`: RBAC reads a `*` grant as every
    /// verb, resource or group, so none is suggested.
    pub fn grant_commands(&self) -> Vec<Command> {
        if self.is_anonymous() || matches!(self.grant_risk(), Some(GrantRisk::Wildcard(_))) {
            return Vec::new();
        }
        // A role for pods/log is not the role for pods: the name says so.
        let (what, flag, target, placeholder) = match (&self.request.path, &self.request.resource) {
            (Some(path), _) => (path.clone(), "--non-resource-url", path.clone(), "PATH"),
            (None, Some(resource)) => (
                match &self.request.subresource {
                    Some(sub) => format!("{resource}-{sub}"),
                    None => resource.clone(),
                },
                "--resource",
                self.request.qualified_resource(true),
                "RESOURCE",
            ),
            (None, None) => return Vec::new(),
        };
        let who = self
            .service_account()
            .map_or_else(|| slug(&self.user), |(_, name)| slug(name));
        let role = format!("{who}-{}-{}", slug(self.verb()), slug(&what));
        // A non-resource URL is granted at the cluster scope only.
        let by_resource = self.request.path.is_none();
        let namespace = self.request.namespace.as_deref().filter(|_| by_resource);
        let (kind, binding, role_flag) = match namespace {
            Some(_) => ("role", "rolebinding", "--role"),
            None => ("clusterrole", "clusterrolebinding", "--clusterrole"),
        };
        let mut create = Command::kubectl()
            .words(&["create", kind])
            .value(Some(&role), "ROLE")
            .flag_value("--verb", Some(self.verb()), "VERB")
            .flag_value(flag, Some(&target), placeholder);
        if let Some(name) = self.request.name.as_deref().filter(|_| by_resource) {
            create = create.flag_value("--resource-name", Some(name), "NAME");
        }
        let bind = Command::kubectl()
            .words(&["create", binding])
            .value(Some(&role), "ROLE")
            .flag_value(role_flag, Some(&role), "ROLE");
        let mut bind = match self.service_account() {
            Some((ns, name)) => bind.word(&format!("--serviceaccount={ns}:{name}")),
            None => bind.flag_value("--user", Some(&self.user), "USER"),
        };
        if namespace.is_some() {
            create = create.namespace(namespace);
            bind = bind.namespace(namespace);
        }
        vec![create, bind]
    }

    /// `kubectl auth can-i` for exactly this request, as this user: re-checks
    /// after a grant. A subresource goes in `--subresource` (kubectl reads
    /// `pods/log/NAME` as resource `pods` named `log/NAME`).
    pub fn can_i(&self) -> Option<Command> {
        let mut c = Command::kubectl()
            .words(&["auth", "can-i"])
            .value(Some(self.verb()), "VERB");
        if let Some(path) = &self.request.path {
            c = c.value(Some(path), "PATH");
        } else {
            self.request.resource.as_ref()?;
            let mut target = self.request.qualified_resource(false);
            if let Some(name) = &self.request.name {
                target = format!("{target}/{name}");
            }
            c = c.value(Some(&target), "RESOURCE");
            if let Some(sub) = &self.request.subresource {
                c = c.flag_value("--subresource", Some(sub), "SUBRESOURCE");
            }
            if let Some(ns) = &self.request.namespace {
                c = c.namespace(Some(ns));
            }
        }
        Some(c.flag_value("--as", Some(&self.user), "USER"))
    }
}

/// The authorizer's reason after the core: `: RBAC: …` (1.12+), `.: "Unknown
/// user \"x\""` (before 1.12: a period, a colon and a Go-quoted string), with
/// kubectl's ` (get pods)` hint and stray quotes or periods around it removed.
fn reason(rest: &str) -> Option<String> {
    // The server writes the reason after a colon (`.: "…"` before 1.12);
    // anything else after the sentence is the client's own text.
    let after = rest.trim_start();
    let after = after.strip_prefix('.').unwrap_or(after);
    if !after.starts_with(':') {
        return None;
    }
    let mut r = after;
    // kubectl ≤1.11 appends `(VERB RESOURCE)`.
    if let Some(open) = r.rfind(" (")
        && r.ends_with(')')
    {
        let hint = &r[open + 2..r.len() - 1];
        let words: Vec<&str> = hint.split(' ').collect();
        if words.len() == 2 && words[0].chars().all(|c| c.is_ascii_lowercase()) {
            r = r[..open].trim_end();
        }
    }
    let r = r
        .trim_start_matches(['.', ':', ' '])
        .trim_end_matches(['.', ' ']);
    // kube-rs prints `{message}: {reason} ({status:?})` (its ErrorResponse
    // before 2.0, Status after): the Status's reason word, not an
    // authorizer's.
    let r = [" (Status {", " (ErrorResponse {"]
        .iter()
        .fold(r, |r, debug| r.split(debug).next().unwrap_or(r));
    if r == "Forbidden" {
        return None;
    }
    let r = match r.strip_prefix('"').and_then(|q| q.strip_suffix('"')) {
        Some(quoted) => quoted.replace("\\\"", "\"").replace("\\n", "; "),
        None => r.to_owned(),
    };
    let r = r.trim();
    (!r.is_empty() && r.chars().any(char::is_alphanumeric)).then(|| r.to_owned())
}

/// The authorizer's sentence with its quotes put back, for a rendering that
/// dropped every quote (a record printed without them): `User U cannot VERB
/// resource R in API group G in the namespace N`. Names hold no spaces, and
/// a namespace ends at the record's next separator.
fn requoted(message: &str) -> Option<String> {
    let (prefix, rest) = message.split_once("User ")?;
    let (user, rest) = rest.split_once(" cannot ")?;
    let (verb, rest) = rest.split_once(' ')?;
    let field = |s: &str| s.find([' ', ',', '}', ';', ':']).unwrap_or(s.len());
    let tail = if let Some(rest) = rest.strip_prefix("path ") {
        let end = field(rest);
        format!("path \"{}\"{}", &rest[..end], &rest[end..])
    } else {
        let (resource, rest) = rest.strip_prefix("resource ")?.split_once(' ')?;
        let rest = rest.strip_prefix("in API group ")?;
        // An empty group leaves two spaces.
        let (group, rest) = rest.split_once(' ')?;
        let scope = match rest.strip_prefix("in the namespace ") {
            Some(ns) => {
                let end = field(ns);
                format!("in the namespace \"{}\"{}", &ns[..end], &ns[end..])
            }
            None => rest.to_owned(),
        };
        format!("resource \"{resource}\" in API group \"{group}\" {scope}")
    };
    Some(format!("{prefix}User \"{user}\" cannot {verb} {tail}"))
}

/// `text` up to `at`, and what follows it, if it is there.
fn split_off(text: &str, at: char) -> (&str, Option<&str>) {
    text.split_once(at)
        .map_or((text, None), |(a, b)| (a, Some(b)))
}

/// `pods "web-0" is forbidden` -> `web-0`.
fn name_from_prefix(prefix: &str) -> Option<String> {
    let start = prefix.find('"')?;
    let end = prefix.rfind('"')?;
    (end > start + 1).then(|| prefix[start + 1..end].to_owned())
}

fn unescape_html(text: &str) -> String {
    text.replace("&#34;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// A lowercase DNS-label-ish fragment for generated role names. Tokens in
/// `text` are masked first: the output redactor cannot recognise a token
/// whose dots became dashes.
fn slug(text: &str) -> String {
    let s: String = crate::redact::redact(text)
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let s = s.trim_matches('-').to_owned();
    if s.is_empty() { "root".to_owned() } else { s }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(message: &str) -> Forbidden {
        Forbidden::parse(message).unwrap_or_else(|| panic!("{message}"))
    }

    fn grants(f: &Forbidden) -> Vec<String> {
        f.grant_commands().iter().map(Command::shell).collect()
    }

    /// The server's reason after the sentence, in every version's wording;
    /// what a client appends after the sentence is no reason.
    /// (logr's key/value pairs, the pre-1.12 wording with kubectl's hint and the
    /// Node authorizer's reason are in the wild classify snapshots.)
    #[test]
    fn the_reason_is_the_authorizer_s_alone() {
        for (message, reason) in [
            // kube-rs: `{message}: {reason} ({status:?})`.
            (
                r#"pods is forbidden: User "system:serviceaccount:a:b" cannot list resource "pods" in API group "" in the namespace "a": Forbidden (Status { code: 403 })"#,
                None,
            ),
            // Node's print of the body, then the error again.
            (
                r#"pods is forbidden: User "system:serviceaccount:a:b" cannot list resource "pods" in API group "" at the cluster scope Error: pods is forbidden"#,
                None,
            ),
            (
                r#"pods is forbidden: User "u" cannot list resource "pods" in API group "" at the cluster scope: Unknown user "u""#,
                Some(r#"Unknown user "u""#),
            ),
            (
                r#"User "system:serviceaccount:default:default" cannot get pods in the namespace "default".."#,
                None,
            ),
        ] {
            assert_eq!(parse(message).reason.as_deref(), reason, "{message}");
        }
        let f = parse(
            r#"User "system:anonymous" cannot get endpoints at the cluster scope.: "No policy matched.\nUnknown user \"system:anonymous\"""#,
        );
        assert!(f.is_anonymous());
        assert_eq!(
            f.reason.as_deref(),
            Some(r#"No policy matched.; Unknown user "system:anonymous""#)
        );
    }

    #[test]
    fn named_object_with_group_and_subresource() {
        let f = parse(
            r#"rayclusters.ray.io "raycluster-kuberay" is forbidden: User "system:serviceaccount:ml:ray-job" cannot get resource "rayclusters/status" in API group "ray.io" in the namespace "ml": RBAC: role.rbac.authorization.k8s.io "ray-reader" not found"#,
        );
        assert_eq!(f.request.subresource.as_deref(), Some("status"));
        assert_eq!(
            grants(&f)[0],
            "kubectl create role ray-job-get-rayclusters-status --verb=get --resource=rayclusters.ray.io/status --resource-name=raycluster-kuberay -n ml"
        );
    }

    #[test]
    fn a_rendering_without_quotes_reads_as_the_quoted_sentence() {
        for quoted in [
            r#"pods is forbidden: User "system:serviceaccount:ci:x" cannot list resource "pods" in API group "" in the namespace "web""#,
            r#"eventlisteners.triggers.tekton.dev is forbidden: User "system:serviceaccount:default:d" cannot list resource "eventlisteners" in API group "triggers.tekton.dev" at the cluster scope"#,
            r#"forbidden: User "system:anonymous" cannot get path "/metrics""#,
            r#"pods/exec is forbidden: User "u" cannot create resource "pods/exec" in API group "" in the namespace "a": RBAC: role.rbac.authorization.k8s.io "r" not found"#,
        ] {
            let bare = quoted.replace('"', "");
            let (b, q) = (parse(&bare), parse(quoted));
            assert_eq!((b.user, b.request), (q.user, q.request), "{bare}");
            // In a record printed without quotes the namespace ends at its
            // field's separator.
            let record = format!("{{message:{bare},reason:Forbidden,code:403}}");
            assert_eq!(parse(&record).request, parse(quoted).request, "{record}");
        }
    }

    #[test]
    fn old_format() {
        let f = parse(r#"User "jane" cannot list pods in the namespace "default""#);
        assert_eq!(f.request.resource.as_deref(), Some("pods"));
        assert_eq!(f.request.namespace.as_deref(), Some("default"));
        assert!(grants(&f)[1].contains("--user=jane"));
        // The old wording puts the group after the resource's name.
        let f = parse(
            r#"User "system:serviceaccount:ci:x" cannot create subjectaccessreviews.authorization.k8s.io at the cluster scope"#,
        );
        assert_eq!(f.request.resource.as_deref(), Some("subjectaccessreviews"));
        assert_eq!(f.request.api_group.as_deref(), Some("authorization.k8s.io"));
        assert!(Forbidden::parse("Unauthorized").is_none());
    }

    #[test]
    fn a_request_for_star_gets_no_grant() {
        let sa = r#"User "system:serviceaccount:ci:deployer" cannot"#;
        for (rest, what) in [
            (
                r#"list resource "*" in API group "*" at the cluster scope"#,
                "every resource",
            ),
            (
                r#"* resource "pods" in API group "" in the namespace "ci""#,
                "every verb",
            ),
            (
                r#"list resource "deployments" in API group "*" in the namespace "ci""#,
                "every API group",
            ),
            (r#"get path "/apis/*""#, "every path under it"),
        ] {
            let f = parse(&format!("{sa} {rest}"));
            assert_eq!(f.grant_risk(), Some(GrantRisk::Wildcard(what)), "{rest}");
            assert!(f.grant_commands().is_empty(), "{rest}");
        }
    }

    #[test]
    fn escalating_grants_are_named_and_narrow_ones_are_not() {
        let sa = r#"User "system:serviceaccount:ci:deployer" cannot"#;
        for (rest, want) in [
            (
                r#"impersonate resource "users" in API group "" at the cluster scope"#,
                Escalation::Impersonate,
            ),
            (
                r#"escalate resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope"#,
                Escalation::EscalateOrBind,
            ),
            (
                r#"bind resource "roles" in API group "rbac.authorization.k8s.io" in the namespace "ci""#,
                Escalation::EscalateOrBind,
            ),
            (
                r#"create resource "rolebindings" in API group "rbac.authorization.k8s.io" in the namespace "ci""#,
                Escalation::WritesRbac,
            ),
            (
                r#"get resource "nodes/proxy" in API group "" at the cluster scope"#,
                Escalation::NodesProxy,
            ),
            (
                r#"create resource "serviceaccounts/token" in API group "" in the namespace "ci""#,
                Escalation::MintTokens,
            ),
            (
                r#"list resource "secrets" in API group "" at the cluster scope"#,
                Escalation::SecretsEverywhere,
            ),
            (
                r#"approve resource "signers" in API group "certificates.k8s.io" at the cluster scope"#,
                Escalation::Approve,
            ),
        ] {
            let f = parse(&format!("{sa} {rest}"));
            assert_eq!(f.grant_risk(), Some(GrantRisk::Escalation(want)), "{rest}");
            // Still granted exactly, with the warning beside it.
            assert_eq!(f.grant_commands().len(), 2, "{rest}");
        }
        for rest in [
            r#"create resource "pods" in API group "" in the namespace "ci""#,
            r#"get resource "configmaps" in API group "" in the namespace "kube-system""#,
            r#"get resource "persistentvolumes" in API group "" at the cluster scope"#,
            r#"get resource "nodes" in API group "" at the cluster scope"#,
            r#"get resource "secrets" in API group "" in the namespace "ci""#,
            r#"list resource "validatingwebhookconfigurations" in API group "admissionregistration.k8s.io" at the cluster scope"#,
            r#"get resource "pods/log" in API group "" in the namespace "ci""#,
            r#"list resource "secrets" in API group "" in the namespace "ci""#,
            r#"get resource "rolebindings" in API group "rbac.authorization.k8s.io" in the namespace "ci""#,
            r#"get resource "nodes/stats" in API group "" at the cluster scope"#,
            r#"list resource "pods" in API group "" in the namespace "ci""#,
        ] {
            assert_eq!(parse(&format!("{sa} {rest}")).grant_risk(), None, "{rest}");
        }
    }

    #[test]
    fn every_escalation_path_is_named() {
        let sa = r#"User "system:serviceaccount:ci:deployer" cannot"#;
        // The paths the good practices page and the RBAC code name, each as
        // a request whose exact grant takes it.
        for (rest, want) in [
            (
                r#"create resource "validatingwebhookconfigurations" in API group "admissionregistration.k8s.io" at the cluster scope"#,
                Escalation::AdmissionWebhooks,
            ),
            (
                r#"patch resource "mutatingwebhookconfigurations" in API group "admissionregistration.k8s.io" at the cluster scope"#,
                Escalation::AdmissionWebhooks,
            ),
            (
                r#"create resource "validatingadmissionpolicybindings" in API group "admissionregistration.k8s.io" at the cluster scope"#,
                Escalation::AdmissionPolicies,
            ),
            (
                r#"delete resource "validatingadmissionpolicies" in API group "admissionregistration.k8s.io" at the cluster scope"#,
                Escalation::AdmissionPolicies,
            ),
            (
                r#"create resource "apiservices" in API group "apiregistration.k8s.io" at the cluster scope"#,
                Escalation::ApiServices,
            ),
            (
                r#"create resource "pods/exec" in API group "" in the namespace "ci""#,
                Escalation::Exec,
            ),
            (
                r#"get resource "pods/exec" in API group "" in the namespace "ci""#,
                Escalation::Exec,
            ),
            (
                r#"create resource "pods/attach" in API group "" in the namespace "ci""#,
                Escalation::Attach,
            ),
            (
                r#"patch resource "pods/ephemeralcontainers" in API group "" in the namespace "ci""#,
                Escalation::EphemeralContainers,
            ),
            (
                r#"get resource "secrets" in API group "" in the namespace "kube-system""#,
                Escalation::SecretsKubeSystem,
            ),
            (
                r#"watch resource "secrets" in API group "" in the namespace "ci""#,
                Escalation::WatchSecrets,
            ),
            (
                r#"update resource "configmaps" in API group "" in the namespace "kube-system""#,
                Escalation::AwsAuth,
            ),
            (
                r#"create resource "pods" in API group "" in the namespace "kube-system""#,
                Escalation::KubeSystemWorkloads,
            ),
            (
                r#"patch resource "daemonsets" in API group "apps" in the namespace "kube-system""#,
                Escalation::KubeSystemWorkloads,
            ),
            (
                r#"create resource "deployments" in API group "apps" in the namespace "kube-system""#,
                Escalation::KubeSystemWorkloads,
            ),
            (
                r#"create resource "persistentvolumes" in API group "" at the cluster scope"#,
                Escalation::PersistentVolumes,
            ),
            (
                r#"sign resource "signers" in API group "certificates.k8s.io" at the cluster scope"#,
                Escalation::Sign,
            ),
            (
                r#"update resource "certificatesigningrequests/approval" in API group "certificates.k8s.io" at the cluster scope"#,
                Escalation::ApproveRequests,
            ),
            (
                r#"patch resource "nodes" in API group "" at the cluster scope"#,
                Escalation::NodeWrites,
            ),
            (
                r#"patch resource "nodes/status" in API group "" at the cluster scope"#,
                Escalation::NodeWrites,
            ),
            (
                r#"patch resource "namespaces" in API group "" at the cluster scope"#,
                Escalation::NamespaceWrites,
            ),
        ] {
            let f = parse(&format!("{sa} {rest}"));
            assert_eq!(f.grant_risk(), Some(GrantRisk::Escalation(want)), "{rest}");
            assert!(!want.words().0.is_empty() && !want.words().1.is_empty());
        }
        // Every row has its words, and each escalation is named by its own row.
        for path in ESCALATIONS {
            assert_eq!(path.escalation.words(), (path.gives, path.instead));
        }
    }

    /// (A subresource as `--subresource`, beside the grant of pods/log, is in
    /// probe/rbac-pods-log-path@json.snap.)
    #[test]
    fn can_i_names_a_path_as_it_is() {
        let f =
            parse(r#"forbidden: User "system:serviceaccount:shop:ci" cannot get path "/metrics""#);
        assert_eq!(
            f.can_i().unwrap().shell(),
            "kubectl auth can-i get /metrics --as=system:serviceaccount:shop:ci"
        );
    }

    #[test]
    fn message_is_the_inverse_of_parse() {
        for text in [
            r#"pods "web-0" is forbidden: User "system:serviceaccount:shop:ci" cannot get resource "pods/log" in API group "" in the namespace "shop""#,
            r#"rayclusters.ray.io is forbidden: User "u" cannot list resource "rayclusters" in API group "ray.io" at the cluster scope: RBAC: role.rbac.authorization.k8s.io "r" not found"#,
            r#"forbidden: User "system:serviceaccount:shop:ci" cannot get path "/metrics""#,
        ] {
            assert_eq!(parse(text).message(), text);
        }
    }

    #[test]
    fn html_escapes_are_undone() {
        let f = parse(r#"forbidden: User "a&amp;b" cannot get path "/x&lt;y&gt;""#);
        assert_eq!(f.user, "a&b");
        assert_eq!(f.request.path.as_deref(), Some("/x<y>"));
    }

    /// RBAC's escalation prevention: what would allow a Role is `escalate`
    /// on it, a binding `bind` on the role it names.
    #[test]
    fn an_escalation_is_the_verb_that_would_allow_it() {
        for (message, verb, resource, name) in [
            (
                r#"clusterrolebindings.rbac.authorization.k8s.io "x" is forbidden: user "u" (groups=["g"]) is attempting to grant RBAC permissions not currently held:"#,
                "bind",
                "clusterroles",
                None,
            ),
            (
                r#"rolebindings.rbac.authorization.k8s.io "x" is forbidden: user "u" (groups=["g"]) is attempting to grant RBAC permissions not currently held:"#,
                "bind",
                "roles",
                None,
            ),
            (
                r#"Error: roles.rbac.authorization.k8s.io "x" is forbidden: attempt to grant extra privileges: [] user=&{u 1 [g] map[]} ownerrules=[]"#,
                "escalate",
                "roles",
                Some("x"),
            ),
        ] {
            let f = parse(message);
            assert_eq!(f.user, "u");
            assert_eq!(f.request.verb.as_deref(), Some(verb));
            assert_eq!(f.request.resource.as_deref(), Some(resource));
            assert_eq!(f.request.name.as_deref(), name);
        }
        // Another registry's refusal in the same words is not RBAC's.
        assert!(
            Forbidden::parse(r#"pods "x" is forbidden: user "u" (groups=["g"]) is attempting to grant RBAC permissions not currently held:"#)
                .is_none()
        );
    }
}
