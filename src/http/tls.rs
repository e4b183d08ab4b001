//! rustls configuration for the HTTPS client: trust exactly the given CA (plus
//! the system roots only when asked: the OS store, or on macOS Mozilla's
//! bundle), or skip verification when explicitly told to.
//!
//! Verification goes through [`RecordingVerifier`], a thin wrapper around
//! rustls's WebPKI verifier that remembers *why* a certificate was refused. The
//! reason then comes from a typed `rustls::Error` we kept ourselves instead of
//! from walking the HTTP stack's error chain (xh's `error_reporting.rs` calls that
//! walk "fragile").

use std::sync::{Arc, Mutex, PoisonError};

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, RootCertStore, SignatureScheme};

use super::{ClientIdentity, ConfigError, TlsReason, Trust};

/// The last certificate refusal a [`RecordingVerifier`] saw.
pub(super) type FailureSlot = Arc<Mutex<Option<rustls::Error>>>;

/// Builds the rustls client configuration for `trust`; refusals land in `slot`.
pub(super) fn client_config(
    trust: &Trust,
    slot: FailureSlot,
    verify_name: Option<&str>,
    identity: Option<&ClientIdentity>,
) -> Result<rustls::ClientConfig, ConfigError> {
    let verify_name = verify_name
        .map(|n| {
            ServerName::try_from(n.trim_start_matches('[').trim_end_matches(']').to_owned())
                .map_err(|e| ConfigError::Tls(format!("TLS server name {n:?}: {e}")))
        })
        .transpose()?;
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| ConfigError::Tls(e.to_string()))?;
    let chain = match trust {
        Trust::Roots { ca_pem, system } => {
            let mut roots = RootCertStore::empty();
            if let Some(pem) = ca_pem {
                let unusable = |e: &dyn std::fmt::Display| ConfigError::CaBundle(e.to_string());
                for cert in CertificateDer::pem_slice_iter(pem) {
                    roots
                        .add(cert.map_err(|e| unusable(&e))?)
                        .map_err(|e| unusable(&e))?;
                }
                if roots.is_empty() {
                    return Err(ConfigError::CaBundle(
                        "no PEM certificate found in it".to_owned(),
                    ));
                }
            }
            if *system {
                // Errors for single unreadable system certificates are not fatal:
                // the ones that loaded still count.
                roots.add_parsable_certificates(system_roots());
            }
            if roots.is_empty() {
                return Err(ConfigError::CaBundle(
                    "no trusted certificate at all".to_owned(),
                ));
            }
            let roots = Arc::new(roots);
            let chain = WebPkiServerVerifier::builder_with_provider(roots, provider.clone())
                .build()
                .map_err(|e| ConfigError::Tls(e.to_string()))?;
            Some(chain)
        }
        // With PlainHttpOnly only plain HTTP is spoken; refusing every
        // certificate is the belt to that brace.
        Trust::InsecureSkipVerify | Trust::PlainHttpOnly => None,
    };
    let builder = builder
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(RecordingVerifier {
            chain,
            accept: *trust == Trust::InsecureSkipVerify,
            algorithms: provider.signature_verification_algorithms,
            slot,
            verify_name,
        }));
    let config = match identity {
        None => builder.with_no_client_auth(),
        Some(identity) => {
            let certs: Vec<CertificateDer<'static>> =
                CertificateDer::pem_slice_iter(&identity.cert_pem)
                    .collect::<Result<_, _>>()
                    .map_err(|e| ConfigError::ClientCertificate(e.to_string()))?;
            if certs.is_empty() {
                return Err(ConfigError::ClientCertificate(
                    "no PEM certificate in client-certificate".to_owned(),
                ));
            }
            let key = PrivateKeyDer::from_pem_slice(&identity.key_pem)
                .map_err(|e| ConfigError::ClientCertificate(format!("client-key: {e}")))?;
            builder
                .with_client_auth_cert(certs, key)
                .map_err(|e| ConfigError::ClientCertificate(e.to_string()))?
        }
    };
    // ALPN (h2, http/1.1: kube-apiserver speaks both) is set by hyper-rustls,
    // which wants it empty here (src/http/connect.rs).
    Ok(config)
}

/// `--system-roots` on Linux and Windows: the operating system's store
/// (`/etc/ssl` and `SSL_CERT_FILE`/`SSL_CERT_DIR`; the Windows certificate store).
#[cfg(not(target_os = "macos"))]
fn system_roots() -> Vec<CertificateDer<'static>> {
    rustls_native_certs::load_native_certs().certs
}

/// `--system-roots` on macOS: Mozilla's root program as shipped by the
/// webpki-root-certs crate, not the Keychain. Reading the Keychain needs the
/// Security framework, which cannot be linked without Apple's SDK (the release
/// is cross-built on Linux); a CA only the Keychain trusts is given with
/// `--cacert` (docs/release.md shows how to export it).
#[cfg(target_os = "macos")]
fn system_roots() -> Vec<CertificateDer<'static>> {
    webpki_root_certs::TLS_SERVER_ROOT_CERTS.to_vec()
}

/// Sorts a rustls refusal into the reasons people act on differently.
pub fn reason_of(error: &rustls::Error) -> TlsReason {
    use CertificateError as E;
    let rustls::Error::InvalidCertificate(cert) = error else {
        return TlsReason::Other;
    };
    match cert {
        E::UnknownIssuer | E::BadSignature => TlsReason::UnknownCa,
        E::NotValidForName | E::NotValidForNameContext { .. } => TlsReason::NameMismatch,
        E::Expired | E::ExpiredContext { .. } => TlsReason::Expired,
        E::NotValidYet | E::NotValidYetContext { .. } => TlsReason::NotYetValid,
        _ => TlsReason::Other,
    }
}

/// WebPKI verification against our roots, remembering the last refusal.
/// `verify_name` replaces the name the certificate must carry: kubeconfig's
/// `tls-server-name` (client-go sets `tls.Config.ServerName`), or the original
/// server's host when an `--all-endpoints` replica is reached by its own address.
/// Without a `chain` nothing is verified: `--insecure-skip-tls-verify` accepts
/// any certificate for any name, [`Trust::PlainHttpOnly`] refuses every one. The
/// handshake signatures are checked either way, so the peer holds the
/// certificate's key.
#[derive(Debug)]
struct RecordingVerifier {
    chain: Option<Arc<WebPkiServerVerifier>>,
    accept: bool,
    algorithms: WebPkiSupportedAlgorithms,
    slot: FailureSlot,
    verify_name: Option<ServerName<'static>>,
}

impl ServerCertVerifier for RecordingVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Some(chain) = &self.chain else {
            return if self.accept {
                Ok(ServerCertVerified::assertion())
            } else {
                Err(CertificateError::UnknownIssuer.into())
            };
        };
        let server_name = self.verify_name.as_ref().unwrap_or(server_name);
        chain
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
            .inspect_err(|e| {
                *self.slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(e.clone());
            })
    }

    // The provider's algorithms, as rustls's WebPKI verifier checks them.
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons() {
        let cert = |e| rustls::Error::InvalidCertificate(e);
        for (error, want) in [
            (cert(CertificateError::UnknownIssuer), TlsReason::UnknownCa),
            (
                cert(CertificateError::NotValidForName),
                TlsReason::NameMismatch,
            ),
            (cert(CertificateError::Expired), TlsReason::Expired),
            (cert(CertificateError::NotValidYet), TlsReason::NotYetValid),
            (cert(CertificateError::Revoked), TlsReason::Other),
            (rustls::Error::HandshakeNotComplete, TlsReason::Other),
        ] {
            assert_eq!(reason_of(&error), want, "{error:?}");
        }
    }

    #[test]
    fn empty_ca_bundle_is_refused() {
        let slot = FailureSlot::default();
        let trust = Trust::Roots {
            ca_pem: Some(b"not a pem".to_vec()),
            system: false,
        };
        assert!(matches!(
            client_config(&trust, slot, None, None),
            Err(ConfigError::CaBundle(_))
        ));
    }
}
