//! Requests as texts show them: a method and a URL in a Go `url.Error`
//! (`Get "https://…": …`), kubectl's `-v` log (`GET https://… 401`), OkHttp
//! (`--> GET https://… HTTP/1.1`), fabric8 (`Failure executing: GET at: …`),
//! Vault (`URL: PUT https://…`), a Go request dump (`Method:GET URL:https://…`),
//! `requests` (`for url: …`); and Kubernetes REST paths read into a
//! [`RequestInfo`].

use super::super::facts::RequestInfo;
use crate::vocabulary::cues::REQUEST_LINE_OPENERS;

/// A Kubernetes REST request from an HTTP method and a URL or path.
/// `/api/v1/namespaces/NS/RES[/NAME[/SUB]]`, `/apis/GROUP/VERSION/…`, cluster
/// scope without `namespaces/NS`; anything else is a non-resource path.
pub fn request_from_url(method: Option<&str>, url: &str) -> RequestInfo {
    let path = url
        .split_once("://")
        .map_or(url, |(_, rest)| rest.find('/').map_or("/", |i| &rest[i..]));
    let (path, query) = path.split_once('?').unwrap_or((path, ""));
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let mut info = RequestInfo::default();
    let rest: &[&str] = match segments.as_slice() {
        ["api", _version, rest @ ..] if !rest.is_empty() => {
            info.api_group = Some(String::new());
            rest
        }
        ["apis", group, _version, rest @ ..] if !rest.is_empty() => {
            info.api_group = Some((*group).to_owned());
            rest
        }
        _ => {
            info.path = Some(path.to_owned());
            info.verb = method.map(|m| m.to_ascii_lowercase());
            return info;
        }
    };
    let rest = match rest {
        ["namespaces", ns, rest @ ..] if !rest.is_empty() => {
            info.namespace = Some((*ns).to_owned());
            rest
        }
        other => other,
    };
    info.resource = rest.first().map(|s| (*s).to_owned());
    info.name = rest.get(1).map(|s| (*s).to_owned());
    info.subresource = rest.get(2).map(|s| (*s).to_owned());
    let watch = query
        .split('&')
        .any(|kv| kv == "watch=true" || kv == "watch=1");
    info.verb = method.map(|m| {
        match (m.to_ascii_uppercase().as_str(), info.name.is_some()) {
            ("GET", _) if watch => "watch",
            ("GET", true) => "get",
            ("GET", false) => "list",
            ("POST", _) => "create",
            ("PUT", _) => "update",
            ("PATCH", _) => "patch",
            ("DELETE", true) => "delete",
            ("DELETE", false) => "deletecollection",
            _ => return m.to_ascii_lowercase(),
        }
        .to_owned()
    });
    info
}

/// `pods "web-0" not found` -> the request it names.
pub fn not_found_request(message: &str) -> Option<RequestInfo> {
    let (resource, group, name) = not_found(message)?;
    Some(RequestInfo {
        verb: Some("get".to_owned()),
        resource: Some(resource.to_owned()),
        api_group: Some(group.to_owned()),
        name: Some(name.to_owned()),
        ..RequestInfo::default()
    })
}

/// `KIND[.GROUP] "NAME" not found` as the whole message -> (kind, group, name).
pub fn not_found(message: &str) -> Option<(&str, &str, &str)> {
    let message = message.trim().trim_end_matches('.');
    let (what, rest) = message.split_once(" \"")?;
    let (name, tail) = rest.split_once('"')?;
    if tail.trim() != "not found" || what.contains(' ') || what.is_empty() {
        return None;
    }
    let (resource, group) = what.split_once('.').unwrap_or((what, ""));
    Some((resource, group, name))
}

const METHODS: [&str; 7] = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/// The first method-and-URL a line states, in any of the layouts above.
pub fn method_and_url(line: &str) -> Option<(Option<&str>, &str)> {
    // Go url.Error: `Get "https://…"`, `Post "…"`.
    // Go's spellings of the first five methods.
    for (method, upper) in ["Get", "Post", "Put", "Patch", "Delete"]
        .into_iter()
        .zip(METHODS)
    {
        if let Some(i) = line.find(&format!("{method} \"")) {
            let rest = &line[i + method.len() + 2..];
            if let Some(end) = rest.find('"')
                && rest.starts_with("http")
            {
                return Some((Some(upper), &rest[..end]));
            }
        }
        // Before Go 1.14: `Get https://…: dial tcp`.
        if let Some(i) = line.find(&format!("{method} http")) {
            let rest = &line[i + method.len() + 1..];
            let end = rest.find(": ").unwrap_or(rest.len());
            let url = rest[..end].split_whitespace().next().unwrap_or("");
            return Some((Some(upper), url));
        }
    }
    let after = |prefix: &str| -> Option<(Option<&'static str>, &str)> {
        let rest = &line[line.find(prefix)? + prefix.len()..];
        if prefix == "request [&{Method:" {
            let (method, rest) = rest.split_once(' ')?;
            let url = rest.strip_prefix("URL:")?.split_whitespace().next()?;
            return Some((Some(method_of(method)?), url));
        }
        let mut words = rest.split_whitespace();
        let method = words.next().and_then(method_of)?;
        let mut url = words.next()?;
        if url == "at:" {
            url = words.next()?;
        }
        let url = url.trim_end_matches(['.', ',']);
        url.starts_with("http").then_some((Some(method), url))
    };
    if let Some(found) = REQUEST_LINE_OPENERS.iter().find_map(|p| after(p)) {
        return Some(found);
    }
    // kubectl -v: `round_trippers.go:553] GET https://… 401 Unauthorized in 4 milliseconds`.
    if let Some(i) = line.find("] ") {
        let mut words = line[i + 2..].split_whitespace();
        if let (Some(m), Some(url)) = (words.next().and_then(method_of), words.next())
            && url.starts_with("http")
        {
            return Some((Some(m), url));
        }
    }
    if let Some(i) = line.find(" for url: ") {
        let url = line[i + 10..].split_whitespace().next()?;
        return Some((None, url));
    }
    None
}

/// `word` as an HTTP method, when it is one as a request line writes it.
pub fn method_of(word: &str) -> Option<&'static str> {
    METHODS.iter().find(|m| **m == word).copied()
}

/// The first `http(s)://…` URL in a command line, without shell quoting.
pub fn url_in_command(line: &str) -> Option<&str> {
    let i = line.find("https://").or_else(|| line.find("http://"))?;
    line[i..]
        .split(|c: char| c.is_whitespace() || c == '"' || c == '\'')
        .next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rest_paths() {
        // `describe` shows the verb, resource, group, subresource, name,
        // namespace (or cluster scope) and a non-resource path.
        for (url, want) in [
            (
                "https://10.96.0.1/api/v1/namespaces/shop/pods?limit=500",
                r#"list pods in namespace "shop""#,
            ),
            (
                "/apis/ray.io/v1/namespaces/ml/rayclusters/rc/status",
                r#"get rayclusters.ray.io/status "rc" in namespace "ml""#,
            ),
            (
                "/api/v1/nodes?watch=true",
                "watch nodes at the cluster scope",
            ),
            ("/version", "get path /version"),
        ] {
            assert_eq!(request_from_url(Some("GET"), url).describe(), want, "{url}");
        }
        let r = not_found_request(r#"rayclusters.ray.io "rc" not found"#).unwrap();
        assert_eq!(
            r.describe(),
            r#"get rayclusters.ray.io "rc" at the cluster scope"#
        );
    }

    #[test]
    fn urls_in_every_layout() {
        for (line, method, url) in [
            (
                r#"failed to list *v1.Pod: Get "https://10.96.0.1:443/api/v1/pods": dial tcp"#,
                Some("GET"),
                "https://10.96.0.1:443/api/v1/pods",
            ),
            (
                "error: couldn't read version from server: Get https://146.148.119.50:6443/api: x509",
                Some("GET"),
                "https://146.148.119.50:6443/api",
            ),
            (
                "Failure executing: GET at: https://k/api/v1/namespaces/default/pods/x. Message: Forbidden!",
                Some("GET"),
                "https://k/api/v1/namespaces/default/pods/x",
            ),
            (
                "URL: PUT https://vault:8200/v1/auth/kubernetes/login",
                Some("PUT"),
                "https://vault:8200/v1/auth/kubernetes/login",
            ),
            (
                "I0101 round_trippers.go:553] GET https://h/api/v1/pods 401 Unauthorized in 16 milliseconds",
                Some("GET"),
                "https://h/api/v1/pods",
            ),
            (
                "Unable to load services: request [&{Method:GET URL:https://master:6443/api/v1beta1/services?namespace= Proto:HTTP/1.1",
                Some("GET"),
                "https://master:6443/api/v1beta1/services?namespace=",
            ),
            (
                "requests.exceptions.HTTPError: 403 Client Error: Forbidden for url: https://k:443/apis/apps/v1/x",
                None,
                "https://k:443/apis/apps/v1/x",
            ),
        ] {
            assert_eq!(method_and_url(line), Some((method, url)), "{line}");
        }
        assert_eq!(
            url_in_command(r#"curl -H "Authorization: Bearer $T" "https://h:6443/api/v1/x""#),
            Some("https://h:6443/api/v1/x")
        );
    }
}
