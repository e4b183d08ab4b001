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

use serde::Serialize;

use super::next::Command;

/// The parts of a 403 message.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Forbidden {
    pub user: String,
    pub verb: String,
    /// Resource without subresource (`pods`); `None` for a non-resource path.
    pub resource: Option<String>,
    pub subresource: Option<String>,
    /// API group; `""` is the core group.
    pub api_group: Option<String>,
    /// `None` at the cluster scope.
    pub namespace: Option<String>,
    /// The object's name, when the request named one.
    pub name: Option<String>,
    /// Non-resource URL (`/api`, `/healthz`…).
    pub path: Option<String>,
    /// The authorizer's reason after the core (e.g. `RBAC: role … not found`).
    pub reason: Option<String>,
    /// The kubelet refused (its own authorizer's wording), not kube-apiserver.
    pub kubelet: bool,
}

/// The username of anonymous requests: no token (or an empty one) reached the server.
pub const ANONYMOUS: &str = "system:anonymous";

impl Forbidden {
    /// Parses a 403 `message`; `None` if it does not follow the grammar.
    pub fn parse(message: &str) -> Option<Forbidden> {
        if let Some(f) = Forbidden::parse_kubelet(message) {
            return Some(f);
        }
        let message = unescape_html(message.trim());
        let user_at = message.find("User \"")?;
        let prefix = message[..user_at].trim_end().trim_end_matches(':');
        let rest = &message[user_at + 6..];
        let user_end = rest.find("\" cannot ")?;
        let user = rest[..user_end].to_owned();
        let rest = &rest[user_end + 9..];
        let (verb, rest) = rest.split_once(' ')?;
        let parsed = Forbidden {
            user,
            verb: verb.to_owned(),
            name: name_from_prefix(prefix),
            ..Forbidden::default()
        };
        // A message cut short (a paste, a truncated body) still names the
        // user and the verb.
        let mut partial = parsed.clone();
        partial.resource = None;
        Some(parsed.tail(rest).unwrap_or(partial))
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
                "verb" => f.verb = value?,
                "resource" => f.resource = value,
                "subresource" => f.subresource = value,
                "path" => f.path = value,
                _ => {}
            }
        }
        // The kubelet's resources are the node's: nodes/proxy, nodes/stats…
        f.api_group = f.resource.is_some().then(String::new);
        (!f.user.is_empty() && !f.verb.is_empty()).then_some(f)
    }

    /// What follows `cannot VERB `: the resource or path, the scope, the reason.
    fn tail(mut self, rest: &str) -> Option<Forbidden> {
        let parsed = &mut self;
        let rest = if let Some(rest) = rest.strip_prefix("path \"") {
            let (path, rest) = rest.split_once('"')?;
            parsed.path = Some(path.to_owned());
            rest
        } else if let Some(rest) = rest.strip_prefix("resource \"") {
            let (resource, rest) = rest.split_once('"')?;
            parsed.set_resource(resource);
            let rest = rest.strip_prefix(" in API group \"")?;
            let (group, rest) = rest.split_once('"')?;
            parsed.api_group = Some(group.to_owned());
            parsed.scope(rest)?
        } else {
            // Pre-1.12: `cannot list pods in the namespace "ns"`.
            let space = rest.find(' ')?;
            parsed.set_resource(&rest[..space]);
            parsed.scope(&rest[space..])?
        };
        parsed.reason = reason(rest);
        Some(self)
    }

    fn set_resource(&mut self, resource: &str) {
        match resource.split_once('/') {
            Some((res, sub)) => {
                self.resource = Some(res.to_owned());
                self.subresource = Some(sub.to_owned());
            }
            None => self.resource = Some(resource.to_owned()),
        }
    }

    /// Reads ` in the namespace "<ns>"` or ` at the cluster scope`; returns the rest.
    fn scope<'a>(&mut self, rest: &'a str) -> Option<&'a str> {
        if let Some(rest) = rest.strip_prefix(" in the namespace \"") {
            let (ns, rest) = rest.split_once('"')?;
            self.namespace = Some(ns.to_owned());
            Some(rest)
        } else {
            rest.strip_prefix(" at the cluster scope")
        }
    }

    /// The message kube-apiserver (1.12+) writes for this denial: the
    /// inverse of [`Forbidden::parse`], for a request seen many times.
    pub fn message(&self) -> String {
        let mut prefix = self.resource.clone().unwrap_or_default();
        if let Some(group) = self.api_group.as_deref().filter(|g| !g.is_empty()) {
            prefix = format!("{prefix}.{group}");
        }
        if let Some(name) = &self.name {
            prefix = format!("{prefix} \"{name}\"");
        }
        let prefix = if prefix.is_empty() {
            "forbidden".to_owned()
        } else {
            format!("{prefix} is forbidden")
        };
        let what = match &self.path {
            Some(path) => format!("path \"{path}\""),
            None => {
                let mut resource = self.resource.clone().unwrap_or_default();
                if let Some(sub) = &self.subresource {
                    resource = format!("{resource}/{sub}");
                }
                let scope = match &self.namespace {
                    Some(ns) => format!("in the namespace \"{ns}\""),
                    None => "at the cluster scope".to_owned(),
                };
                format!(
                    "resource \"{resource}\" in API group \"{}\" {scope}",
                    self.api_group.as_deref().unwrap_or("")
                )
            }
        };
        let reason = self
            .reason
            .as_deref()
            .map(|r| format!(": {r}"))
            .unwrap_or_default();
        format!(
            "{prefix}: User \"{}\" cannot {} {what}{reason}",
            self.user, self.verb
        )
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
        self.user
            .strip_prefix("system:serviceaccount:")?
            .split_once(':')
    }

    /// The `kubectl create role|clusterrole` and `… rolebinding|clusterrolebinding`
    /// commands that grant exactly this request to this user. Empty for anonymous.
    pub fn grant_commands(&self) -> Vec<Command> {
        if self.is_anonymous() {
            return Vec::new();
        }
        let subject = |c: Command| match self.service_account() {
            Some((ns, name)) => c.word(&format!("--serviceaccount={ns}:{name}")),
            None => c.flag_value("--user", Some(&self.user), "USER"),
        };
        let who = self
            .service_account()
            .map_or_else(|| slug(&self.user), |(_, name)| slug(name));
        let verb = |c: Command| c.flag_value("--verb", Some(&self.verb), "VERB");
        if let Some(path) = &self.path {
            let role = format!("{who}-{}-{}", slug(&self.verb), slug(path));
            return vec![
                verb(
                    Command::kubectl()
                        .words(&["create", "clusterrole"])
                        .value(Some(&role), "ROLE"),
                )
                .flag_value("--non-resource-url", Some(path), "PATH"),
                subject(
                    Command::kubectl()
                        .words(&["create", "clusterrolebinding"])
                        .value(Some(&role), "ROLE")
                        .flag_value("--clusterrole", Some(&role), "ROLE"),
                ),
            ];
        }
        let Some(resource) = &self.resource else {
            return Vec::new();
        };
        // A role for pods/log is not the role for pods: the name says so.
        let what = match &self.subresource {
            Some(sub) => format!("{resource}-{sub}"),
            None => resource.clone(),
        };
        let role = format!("{who}-{}-{}", slug(&self.verb), slug(&what));
        let (kind, binding, role_flag) = match &self.namespace {
            Some(_) => ("role", "rolebinding", "--role"),
            None => ("clusterrole", "clusterrolebinding", "--clusterrole"),
        };
        let mut create = verb(
            Command::kubectl()
                .words(&["create", kind])
                .value(Some(&role), "ROLE"),
        )
        .flag_value(
            "--resource",
            Some(&self.qualified_resource(true)),
            "RESOURCE",
        );
        if let Some(name) = &self.name {
            create = create.flag_value("--resource-name", Some(name), "NAME");
        }
        let mut bind = subject(
            Command::kubectl()
                .words(&["create", binding])
                .value(Some(&role), "ROLE")
                .flag_value(role_flag, Some(&role), "ROLE"),
        );
        if let Some(ns) = &self.namespace {
            create = create.namespace(Some(ns));
            bind = bind.namespace(Some(ns));
        }
        vec![create, bind]
    }

    /// `resource[.group][/subresource]`, as `kubectl create role --resource` takes it.
    fn qualified_resource(&self, with_subresource: bool) -> String {
        let mut qualified = self.resource.clone().unwrap_or_default();
        if let Some(group) = self.api_group.as_deref().filter(|g| !g.is_empty()) {
            qualified = format!("{qualified}.{group}");
        }
        if with_subresource && let Some(sub) = &self.subresource {
            qualified = format!("{qualified}/{sub}");
        }
        qualified
    }

    /// `kubectl auth can-i` for exactly this request, as this user: re-checks
    /// after a grant. A subresource goes in `--subresource` (kubectl reads
    /// `pods/log/NAME` as resource `pods` named `log/NAME`).
    pub fn can_i(&self) -> Option<Command> {
        let mut c = Command::kubectl()
            .words(&["auth", "can-i"])
            .value(Some(&self.verb), "VERB");
        if let Some(path) = &self.path {
            c = c.value(Some(path), "PATH");
        } else {
            self.resource.as_ref()?;
            let mut target = self.qualified_resource(false);
            if let Some(name) = &self.name {
                target = format!("{target}/{name}");
            }
            c = c.value(Some(&target), "RESOURCE");
            if let Some(sub) = &self.subresource {
                c = c.flag_value("--subresource", Some(sub), "SUBRESOURCE");
            }
            if let Some(ns) = &self.namespace {
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
    // kube-rs prints `{message}: {reason} ({status:?})`: the Status's reason
    // word, not an authorizer's.
    let r = r.split(" (Status {").next().unwrap_or(r);
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

    #[test]
    fn what_a_client_appends_after_the_sentence_is_no_reason() {
        for text in [
            // kube-rs: `{message}: {reason} ({status:?})`.
            r#"pods is forbidden: User "system:serviceaccount:a:b" cannot list resource "pods" in API group "" in the namespace "a": Forbidden (Status { code: 403 })"#,
            // Node's print of the body, then the error again.
            r#"pods is forbidden: User "system:serviceaccount:a:b" cannot list resource "pods" in API group "" at the cluster scope Error: pods is forbidden"#,
            // logr's key/value pairs after the quoted message.
            r#"x.y is forbidden: User "system:serviceaccount:a:b" cannot create resource "x" in API group "y" at the cluster scope" "key"="a/b""#,
        ] {
            assert_eq!(Forbidden::parse(text).unwrap().reason, None, "{text}");
        }
        let f = Forbidden::parse(
            r#"pods is forbidden: User "u" cannot list resource "pods" in API group "" at the cluster scope: Unknown user "u""#,
        )
        .unwrap();
        assert_eq!(f.reason.as_deref(), Some(r#"Unknown user "u""#));
    }

    #[test]
    fn namespaced_resource() {
        let f = Forbidden::parse(
            r#"pods is forbidden: User "system:serviceaccount:debug-lab:reporter" cannot list resource "pods" in API group "" in the namespace "debug-lab""#,
        )
        .unwrap();
        assert_eq!(f.user, "system:serviceaccount:debug-lab:reporter");
        assert_eq!(f.verb, "list");
        assert_eq!(f.resource.as_deref(), Some("pods"));
        assert_eq!(f.api_group.as_deref(), Some(""));
        assert_eq!(f.namespace.as_deref(), Some("debug-lab"));
        assert_eq!(f.reason, None);
        assert_eq!(
            f.grant_commands()
                .iter()
                .map(Command::shell)
                .collect::<Vec<_>>(),
            [
                "kubectl create role reporter-list-pods --verb=list --resource=pods -n debug-lab",
                "kubectl create rolebinding reporter-list-pods --role=reporter-list-pods --serviceaccount=debug-lab:reporter -n debug-lab",
            ]
        );
    }

    #[test]
    fn named_object_with_group_subresource_and_reason() {
        let f = Forbidden::parse(
            r#"rayclusters.ray.io "raycluster-kuberay" is forbidden: User "system:serviceaccount:ml:ray-job" cannot get resource "rayclusters/status" in API group "ray.io" in the namespace "ml": RBAC: role.rbac.authorization.k8s.io "ray-reader" not found"#,
        )
        .unwrap();
        assert_eq!(f.name.as_deref(), Some("raycluster-kuberay"));
        assert_eq!(f.subresource.as_deref(), Some("status"));
        assert_eq!(
            f.reason.as_deref(),
            Some(r#"RBAC: role.rbac.authorization.k8s.io "ray-reader" not found"#)
        );
        assert_eq!(
            f.grant_commands()[0].shell(),
            "kubectl create role ray-job-get-rayclusters-status --verb=get --resource=rayclusters.ray.io/status --resource-name=raycluster-kuberay -n ml"
        );
    }

    #[test]
    fn cluster_scope_path_anonymous_and_old_format() {
        let f = Forbidden::parse(
            r#"nodes is forbidden: User "system:serviceaccount:shop:checkout" cannot list resource "nodes" in API group "" at the cluster scope"#,
        )
        .unwrap();
        assert_eq!(f.namespace, None);
        assert!(
            f.grant_commands()[0]
                .shell()
                .starts_with("kubectl create clusterrole checkout-list-nodes")
        );
        let f = Forbidden::parse(r#"forbidden: User "system:anonymous" cannot get path "/api""#)
            .unwrap();
        assert!(f.is_anonymous());
        assert_eq!(f.path.as_deref(), Some("/api"));
        assert!(f.grant_commands().is_empty());
        let f =
            Forbidden::parse(r#"User "jane" cannot list pods in the namespace "default""#).unwrap();
        assert_eq!(f.resource.as_deref(), Some("pods"));
        assert_eq!(f.namespace.as_deref(), Some("default"));
        assert!(f.grant_commands()[1].shell().contains("--user=jane"));
        assert!(Forbidden::parse("Unauthorized").is_none());
    }

    #[test]
    fn can_i_takes_a_subresource_as_a_flag() {
        let f = Forbidden::parse(
            r#"pods "web-0" is forbidden: User "system:serviceaccount:shop:ci" cannot get resource "pods/log" in API group "" in the namespace "shop""#,
        )
        .unwrap();
        // `pods/log/web-0` would be resource pods named log/web-0 to kubectl.
        assert_eq!(
            f.can_i().unwrap().shell(),
            "kubectl auth can-i get pods/web-0 --subresource=log -n shop --as=system:serviceaccount:shop:ci"
        );
        assert_eq!(
            f.grant_commands()[0].shell(),
            "kubectl create role ci-get-pods-log --verb=get --resource=pods/log --resource-name=web-0 -n shop"
        );
        let f = Forbidden::parse(
            r#"forbidden: User "system:serviceaccount:shop:ci" cannot get path "/metrics""#,
        )
        .unwrap();
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
            let f = Forbidden::parse(text).unwrap();
            assert_eq!(f.message(), text);
        }
    }

    #[test]
    fn old_reasons_and_kubectl_hints() {
        let f = Forbidden::parse(
            r#"User "system:serviceaccount:kube-system:default" cannot list pods in the namespace "default".: "Unknown user \"system:serviceaccount:kube-system:default\"" (get pods)"#,
        )
        .unwrap();
        assert_eq!(
            f.reason.as_deref(),
            Some(r#"Unknown user "system:serviceaccount:kube-system:default""#)
        );
        let f = Forbidden::parse(
            r#"configmaps "kube-dns" is forbidden: User "system:node:127.0.0.1" cannot get configmaps in the namespace "kube-system".: "no path found to object""#,
        )
        .unwrap();
        assert_eq!(f.reason.as_deref(), Some("no path found to object"));
        let f = Forbidden::parse(
            r#"User "system:serviceaccount:default:default" cannot get pods in the namespace "default".."#,
        )
        .unwrap();
        assert_eq!(f.reason, None);
        let f = Forbidden::parse(
            r#"User "system:anonymous" cannot get endpoints at the cluster scope.: "No policy matched.\nUnknown user \"system:anonymous\"""#,
        )
        .unwrap();
        assert!(f.is_anonymous());
        assert_eq!(
            f.reason.as_deref(),
            Some(r#"No policy matched.; Unknown user "system:anonymous""#)
        );
    }

    #[test]
    fn html_escapes_are_undone() {
        let f =
            Forbidden::parse(r#"forbidden: User "a&amp;b" cannot get path "/x&lt;y&gt;""#).unwrap();
        assert_eq!(f.user, "a&b");
        assert_eq!(f.path.as_deref(), Some("/x<y>"));
    }
}
