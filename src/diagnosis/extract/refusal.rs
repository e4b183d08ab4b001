//! Refusal messages found anywhere in a line: kube-apiserver's 403 text
//! (`KIND ["NAME"] is forbidden: User "U" cannot …`, `forbidden: User "U"
//! cannot get path "/"`, before 1.12 also without the prefix), admission
//! plugins' texts (`… is forbidden: violates PodSecurity …`), webhooks'
//! (`admission webhook "X" denied the request: …`) and the ServiceAccount
//! plugin's oldest (`No API token found for service account "X"`), cut out of
//! whatever surrounds them (a controller's event, a log field, a client's
//! exception).

use super::super::forbidden::Forbidden;
use crate::vocabulary::cues::MESSAGE_ENDS;
use crate::vocabulary::refusals::{NO_API_TOKEN_CAPITALISED, webhook_words};

/// A refusal in a line: its message, and the status it implies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub message: String,
    /// 403 for `is forbidden` texts; `None` where the status is not stated by
    /// the words (a webhook's denial, the ServerTimeout of old servers).
    pub code: Option<u16>,
    /// The message is a checker's own refusal: `create tokenreviews` or
    /// `create subjectaccessreviews`.
    pub review_call: bool,
    /// The 403's parts, when the message is an authorizer's.
    pub forbidden: Option<Forbidden>,
}

/// Where a message that runs to the end of a log field ends.
fn cut(text: &str) -> &str {
    let mut end = MESSAGE_ENDS
        .iter()
        .filter_map(|stop| text.find(stop))
        .min()
        .unwrap_or(text.len());
    // `" key=` (logfmt, klog structured): the field ended.
    for (i, _) in text.match_indices("\" ") {
        let after = &text[i + 2..];
        let key_len = after
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count();
        if key_len > 0 && after.as_bytes().get(key_len) == Some(&b'=') {
            end = end.min(i);
            break;
        }
    }
    let mut m = text[..end].trim_end();
    // A quote left over from the surrounding text is unbalanced.
    if m.matches('"').count() % 2 == 1 {
        m = m.strip_suffix('"').unwrap_or(m);
    }
    m.trim_end_matches(['\'', ' ', ','])
}

/// The start of the resource before ` is forbidden` (`pods "x"`,
/// `tokenreviews.authentication.k8s.io`).
fn resource_start(before: &str) -> usize {
    let word = |c: char| c.is_ascii_alphanumeric() || "._-/".contains(c);
    let mut end = before.len();
    if let Some(inner) = before.strip_suffix('"') {
        // `KIND "NAME"`: skip the quoted name.
        let Some(open) = inner.rfind('"') else {
            return before.len();
        };
        end = open;
        let b = before[..end].trim_end();
        if b.len() == end {
            return open;
        }
        end = b.len();
    }
    let head = &before[..end];
    head.char_indices()
        .rev()
        .find(|&(_, c)| !word(c))
        .map_or(0, |(i, c)| i + c.len_utf8())
}

pub fn find(line: &str) -> Option<Refusal> {
    let (open, denied) = webhook_words();
    if let Some(i) = line.find(open)
        && line[i..].contains(denied)
    {
        return Some(Refusal {
            message: cut(&line[i..]).to_owned(),
            code: None,
            review_call: false,
            forbidden: None,
        });
    }
    let (start, code) = if let Some(i) = line.find(" is forbidden: ") {
        (resource_start(&line[..i]), Some(403))
    } else if let Some(i) = line.find("forbidden: User \"") {
        (i, Some(403))
    } else if let Some(i) = line.find("User \"")
        && line[i..].contains("\" cannot ")
    {
        (i, Some(403))
    } else if let Some(i) = line.find(NO_API_TOKEN_CAPITALISED.text) {
        (i, None)
    } else {
        return None;
    };
    let message = cut(&line[start..]).trim_end_matches('.').to_owned();
    if message.is_empty() {
        return None;
    }
    // Creating a TokenReview or a SubjectAccessReview is what a checker
    // does to judge someone else's request (delegated authentication and
    // authorization): its refusal is the checker's, not the caller's.
    let forbidden = Forbidden::parse(&message);
    let review_call = forbidden.as_ref().is_some_and(|f| {
        matches!(
            f.request.resource.as_deref(),
            Some("tokenreviews" | "subjectaccessreviews")
        ) && f.verb() == "create"
            && !f.is_anonymous()
    }) || ((message.contains("tokenreviews.authentication.k8s.io")
        || message.contains("subjectaccessreviews.authorization.k8s.io"))
        && message.contains("cannot create"));
    Some(Refusal {
        message,
        code,
        review_call,
        forbidden,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_cut_out_of_their_surroundings() {
        for (line, message) in [
            // A multi-byte character just before the resource.
            (
                r#"Error from server (Forbidden): ray�ters.ray.io "r" is forbidden: User "u" cannot get resource "rayclusters""#,
                r#"ters.ray.io "r" is forbidden: User "u" cannot get resource "rayclusters""#,
            ),
            (
                r#"E1227 reflector.go:178] Failed to list *v1.Pod: pods is forbidden: User "system:serviceaccount:default:x" cannot list resource "pods" in API group "" in the namespace "default""#,
                r#"pods is forbidden: User "system:serviceaccount:default:x" cannot list resource "pods" in API group "" in the namespace "default""#,
            ),
            (
                r#"Error from server: error when creating "mysql.yaml": pods "mysql" is forbidden: no API token found for service account default/default, retry after the token is automatically created"#,
                r#"pods "mysql" is forbidden: no API token found for service account default/default, retry after the token is automatically created"#,
            ),
            (
                r#"level=error msg="nodes is forbidden: User "system:serviceaccount:default:e" cannot list nodes at the cluster scope""#,
                r#"nodes is forbidden: User "system:serviceaccount:default:e" cannot list nodes at the cluster scope"#,
            ),
            (
                r#"err="error processing PVC: pvcs "p" is forbidden: User "system:node:n" cannot get resource "pvcs" in API group "" in the namespace "d": no relationship found between node 'n' and this object" pod="default/x""#,
                r#"pvcs "p" is forbidden: User "system:node:n" cannot get resource "pvcs" in API group "" in the namespace "d": no relationship found between node 'n' and this object"#,
            ),
            (
                r#"{"kind":"Status","message":"pods "x" is forbidden: exceeded quota: q","reason":"Forbidden"}"#,
                r#"pods "x" is forbidden: exceeded quota: q"#,
            ),
            (
                r#"User "system:anonymous" cannot get endpoints at the cluster scope.: "No policy matched.\nUnknown user \"system:anonymous\"""#,
                r#"User "system:anonymous" cannot get endpoints at the cluster scope.: "No policy matched.\nUnknown user \"system:anonymous\"""#,
            ),
        ] {
            assert_eq!(find(line).unwrap().message, message, "{line}");
        }
        let r = find(r#"failed to validate the JWT: tokenreviews.authentication.k8s.io is forbidden: User "system:serviceaccount:i:r" cannot create resource "tokenreviews" in API group "authentication.k8s.io" at the cluster scope. Authenticator"#).unwrap();
        assert!(r.review_call);
        let r = find(r#"E0611 webhook.go:192] Failed to make webhook authorizer request: subjectaccessreviews.authorization.k8s.io is forbidden: User "system:serviceaccount:kube-system:hpa-metrics-server" cannot create resource "subjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope"#).unwrap();
        assert!(r.review_call);
        // A workload's own request for a review is no checker's.
        let r = find(r#"pods is forbidden: User "system:serviceaccount:a:b" cannot list resource "pods" in API group "" in the namespace "a""#).unwrap();
        assert!(!r.review_call);
        let r = find(r#"Error from server: error when creating "x": admission webhook "my.app" denied the request: no"#).unwrap();
        assert_eq!(
            (r.code, r.message.as_str()),
            (None, r#"admission webhook "my.app" denied the request: no"#)
        );
        assert!(find("nothing forbidden here").is_none());
    }
}
