//! The causes the tool can name, as codes: what the vocabulary's rows say a
//! wording means. Each is explained once, by its `CauseDef` in the diagnosis
//! (`Cause::def`); the enum lives here, at the bottom, so that the tables
//! can name causes without reaching up into the engine.

/// Why: a cause, with a stable kebab-case code (its variant's name).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    strum::EnumString,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[strum(serialize_all = "kebab-case", ascii_case_insensitive)]
pub enum Cause {
    None,
    ClockSkew,
    Expired,
    KeyMismatch,
    SignatureInvalid,
    IssuerMismatch,
    AudienceMismatch,
    TokenMalformed,
    JwtAuthenticatorRejected,
    JwtIssuerUnreachable,
    ServiceAccountDeleted,
    ServiceAccountRecreated,
    PodDeleted,
    SecretDeleted,
    NodeDeleted,
    NodeRecreated,
    LegacyTokenInvalidated,
    StaleToken,
    LegacyTokenInUse,
    LegacyTokenNotGenerated,
    TokenNotSent,
    AnonymousForbidden,
    AnonymousRefused,
    KubeletTokenNotReviewed,
    RbacDenied,
    RbacRoleMissing,
    NodeAudienceNotAllowed,
    CredentialProviderConfigInvalid,
    CredentialSourceFailed,
    NonRbacAuthorizerDenied,
    ServiceAccountAdmission,
    PodSecurityDenied,
    NodeRestrictionDenied,
    WebhookDenied,
    QuotaExceeded,
    AdmissionDenied,
    CheckerUnauthorized,
    CheckerUnreachable,
    CheckerPolicyDenied,
    CloudFederationMismatch,
    CloudOidcProviderMissing,
    CloudTrustPolicyDenied,
    CloudCallerDenied,
    CloudOidcDiscoveryFailed,
    CloudClientNotFound,
    CloudRoleArnInvalid,
    PodIdentityAssociationMissing,
    ClientCertificateExpired,
    ClientCertificateUntrusted,
    ObjectNotFound,
    ApiNotServed,
    Redirected,
    Throttled,
    ServerError,
    NotApiServer,
    WrongEndpoint,
    TlsUntrustedCa,
    TlsNameMismatch,
    TlsCertificateExpired,
    TlsCertificateNotYetValid,
    TlsOther,
    DnsFailure,
    ConnectionRefused,
    NetworkUnreachable,
    Timeout,
    Unknown,
}

impl Cause {
    /// A TLS handshake failure.
    pub fn is_tls(self) -> bool {
        matches!(
            self,
            Cause::TlsUntrustedCa
                | Cause::TlsNameMismatch
                | Cause::TlsCertificateExpired
                | Cause::TlsCertificateNotYetValid
                | Cause::TlsOther
        )
    }
}
