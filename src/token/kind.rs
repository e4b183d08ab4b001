//! Which family a token belongs to, by claim shape rather than by issuer: a cluster
//! may run bound tokens with `--service-account-issuer=kubernetes/serviceaccount`.
//! Rules from pkg/serviceaccount/{claims,legacy}.go (see docs/decode.md).

use strum::{EnumMessage, IntoStaticStr, VariantArray};

use super::Claims;
use crate::wire::string_codes;

/// The token families `decode` tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, IntoStaticStr, VariantArray, EnumMessage)]
#[strum(serialize_all = "kebab-case")]
pub enum TokenKind {
    /// Bound to a pod: the kubelet's projected `kube-api-access-*` volume.
    Projected,
    /// Issued by the TokenRequest API and bound to no pod (`kubectl create token`),
    /// or bound to a Secret or Node.
    TokenRequest,
    /// Minted by the tokens controller into a `kubernetes.io/service-account-token` Secret.
    LegacySecret,
    /// Any other JWT (OIDC id token, cloud token…).
    NotKubernetes,
}

string_codes!(TokenKind);

/// The object a bound token dies with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum Binding {
    Pod,
    Secret,
    Node,
    /// Not bound: valid until it expires or its ServiceAccount goes.
    None,
}

string_codes!(Binding);

/// Whether a header `kid` has the shape of a key id kube-apiserver computes
/// for its own keys: unpadded base64url of a SHA-256 (43 characters), as
/// pkg/serviceaccount/jwt.go `keyIDFromPublicKey` writes it. An external
/// signer (ExternalServiceAccountTokenSigner, KEP-740: alpha 1.32, beta 1.34)
/// names its keys itself (up to 1 KiB), and legacy tokens carry `""`.
pub fn is_kubernetes_key_id(kid: &str) -> bool {
    kid.len() == 43
        && kid
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// What a `kid` that is not a Kubernetes key id means, in one sentence.
pub const FOREIGN_KID_MEANING: &str = "kube-apiserver names its own keys by the base64url SHA-256 of the public key (43 characters); any other kid comes from an external signer (ExternalServiceAccountTokenSigner, KEP-740: alpha 1.32, beta 1.34) that names its keys itself, or from another issuer. With an external signer, keys it marks excludeFromOidcDiscovery are missing from /openid/v1/jwks yet still verify, and while the signer is down kube-apiserver mints no tokens, so mounted tokens stop being refreshed";

/// Classifies claims: flat legacy claims win; nested `kubernetes.io` with a
/// ServiceAccount is the bound family, told apart by what it is bound to (`node`
/// beside `pod` is informational only; `node` alone makes a node-bound token).
pub fn classify(claims: &Claims) -> (TokenKind, Binding) {
    if claims.legacy.is_some() {
        return (TokenKind::LegacySecret, Binding::Secret);
    }
    let Some(k8s) = claims
        .kubernetes
        .as_ref()
        .filter(|k| k.service_account.is_some())
    else {
        return (TokenKind::NotKubernetes, Binding::None);
    };
    if k8s.pod.is_some() {
        (TokenKind::Projected, Binding::Pod)
    } else if k8s.secret.is_some() {
        (TokenKind::TokenRequest, Binding::Secret)
    } else if k8s.node.is_some() {
        (TokenKind::TokenRequest, Binding::Node)
    } else {
        (TokenKind::TokenRequest, Binding::None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::ObjectRef;
    use crate::token::claims::{KubernetesClaims, LegacyClaims};

    fn bound(pod: bool, secret: bool, node: bool) -> Claims {
        Claims {
            kubernetes: Some(KubernetesClaims {
                service_account: Some(ObjectRef::default()),
                pod: pod.then(ObjectRef::default),
                secret: secret.then(ObjectRef::default),
                node: node.then(ObjectRef::default),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn kubernetes_key_ids_have_one_shape() {
        assert!(is_kubernetes_key_id(
            "JVlzkQ3DJ7rPBaRClvKS2IFvW1ZxBxL8oVxFG4E1b1o"
        ));
        for other in [
            "",
            "key-1",
            "projects/p/locations/l/keyRings/r/cryptoKeys/k/cryptoKeyVersions/1",
            "JVlzkQ3DJ7rPBaRClvKS2IFvW1ZxBxL8oVxFG4E1b1o=",
        ] {
            assert!(!is_kubernetes_key_id(other), "{other}");
        }
    }

    #[test]
    fn kinds_by_shape() {
        use Binding as B;
        use TokenKind as K;
        // (pod, secret, node bound; kind and binding)
        for (pod, secret, node, want) in [
            (true, false, true, (K::Projected, B::Pod)),
            (false, true, false, (K::TokenRequest, B::Secret)),
            (false, false, true, (K::TokenRequest, B::Node)),
            (false, false, false, (K::TokenRequest, B::None)),
        ] {
            let got = classify(&bound(pod, secret, node));
            assert_eq!(got, want, "pod {pod}, secret {secret}, node {node}");
        }
        let legacy = Claims {
            legacy: Some(LegacyClaims::default()),
            ..Default::default()
        };
        assert_eq!(classify(&legacy).0, K::LegacySecret);
        assert_eq!(classify(&Claims::default()).0, K::NotKubernetes);
    }
}
