//! Failures before any HTTP answer, in the words of each program that prints
//! them: curl (its exit codes, and the text each TLS backend puts after
//! them), Go's `crypto/x509`, `crypto/tls` and `net`, Java's JSSE and
//! `java.net`, Python's `ssl` and urllib3, Node.js's error codes, .NET's
//! `SslStream` and sockets (and .NET Framework's `WebException`), Ruby's
//! net/http, rustls and tokio, Erlang/OTP's ssl and inet, GNU Wget and botocore.
//!
//! [`TRANSPORT`] is matched in its order, without regard to case, each text
//! starting a word: the more specific a text, the earlier it stands (a TLS
//! handshake timeout is a timeout, a name mismatch is more specific than
//! "verify failed"). [`CURL_CODES`] names the failure by curl's exit code
//! alone: when the backend's text is one this table does not hold, the code
//! still decides the class.
//!
//! Sources, each row naming its own: curl `include/curl/curl.h`,
//! `lib/strerror.c` and `lib/vtls/` (`openssl.c`, `gtls.c`, `nss.c` until
//! 8.2, `schannel.c` and `schannel_verify.c`, `sectransp.c` until 8.14,
//! `wolfssl.c`, `mbedtls.c`, `rustls.c`) at curl-7_29_0 to 8.17; NSS
//! `lib/util/SECerrs.h` and `lib/ssl/SSLerrs.h`; Windows `winerror.h`; Go
//! `src/crypto/x509/verify.go`, `src/crypto/tls/`, `src/net/`; OpenJDK
//! `sun/security/util/HostnameChecker.java` and
//! `sun/security/validator/PKIXValidator.java`; CPython `Modules/_ssl.c` and
//! `Lib/ssl.py`, urllib3 `connection.py`; Node.js `src/crypto/crypto_common.cc`
//! and `lib/tls.js`; .NET `System.Net.Security` `SslPolicyErrors` and
//! `X509ChainStatusFlags`; rustls `src/error.rs`; Wget `src/openssl.c`.

use super::row::Cause;
use super::row::{Wording, w};

const GO_X509: &str = "Go crypto/x509 (kubectl, client-go)";
const GO_NET: &str = "Go net (kubectl, client-go)";
const GO_TLS: &str = "Go crypto/tls";
const OPENSSL: &str = "OpenSSL (curl, Python, Node.js, Ruby)";
const CURL: &str = "curl";
const GNUTLS: &str = "curl with GnuTLS";
const NSS: &str = "curl with NSS";
const SCHANNEL: &str = "curl with Schannel (Windows)";
const SECURE_TRANSPORT: &str = "curl with Secure Transport (macOS)";
const WOLFSSL: &str = "curl with wolfSSL";
const MBEDTLS: &str = "curl with mbedTLS";
const PYTHON: &str = "Python (urllib3, requests, ssl)";
const JAVA: &str = "Java (OkHttp, the JDK: fabric8, the Java client)";
const NODE: &str = "Node.js";
const DOTNET: &str = ".NET (KubernetesClient, HttpClient)";
const RUSTLS: &str = "rustls (Rust clients: kube-rs)";
const GETADDRINFO: &str = "the C library's resolver (getaddrinfo)";
const RUBY: &str = "Ruby (net/http: kubeclient, rest-client, Faraday)";
const RUBY_NET_HTTP: &str = "ruby/net-http lib/net/protocol.rb (OpenTimeout, ReadTimeout)";
const WGET: &str = "GNU Wget";
const ERLANG: &str = "Erlang/OTP ssl (Elixir and Erlang clients)";
const TOKIO: &str = "Rust (tokio: hyper, kube-rs)";
const ERLANG_INET: &str = "Erlang/OTP httpc and inet (Elixir and Erlang clients)";
const OTP_INET: &str = "erlang/otp lib/inets/src/http_client/httpc.erl (failed_connect), lib/kernel/src/inet.erl (posix and nxdomain reasons)";
const OTP_SSL: &str = "erlang/otp lib/ssl/src/ssl_alert.erl, lib/public_key/src/pubkey_cert.erl (path validation reasons)";
const BUSYBOX: &str = "BusyBox (wget, nc in a minimal image)";
const BOTOCORE: &str = "botocore (boto3, the AWS CLI)";
const BOTOCORE_EXCEPTIONS: &str = "github.com/boto/botocore botocore/exceptions.py";

const GTLS_C: &str = "curl lib/vtls/gtls.c";
const NSS_ERRS: &str =
    "NSS lib/util/SECerrs.h, lib/ssl/SSLerrs.h (curl lib/vtls/nss.c prints them)";
const SCHANNEL_C: &str = "curl lib/vtls/schannel.c (Windows winerror.h texts)";
const SCHANNEL_VERIFY_C: &str = "curl lib/vtls/schannel_verify.c";
const SECTRANSP_C: &str = "curl lib/vtls/sectransp.c";
const WOLFSSL_C: &str = "curl lib/vtls/wolfssl.c";
const MBEDTLS_C: &str = "curl lib/vtls/mbedtls.c (mbedtls_x509_crt_verify_info)";
const OPENSSL_C: &str = "curl lib/vtls/openssl.c";
const WGET_OPENSSL_C: &str = "GNU Wget src/openssl.c (ssl_check_certificate)";
const X509_VERIFY: &str = "Go src/crypto/x509/verify.go";
const HOSTNAME_CHECKER: &str = "OpenJDK sun/security/util/HostnameChecker.java";
const NODE_CODES: &str = "Node.js src/crypto/crypto_common.cc (X509 verify error codes)";
const SSL_POLICY: &str = ".NET System.Net.Security SslPolicyErrors, X509ChainStatusFlags";
const RUSTLS_ERROR: &str = "rustls src/error.rs CertificateError";
const OPENSSL_X509_TXT: &str = "OpenSSL crypto/x509/x509_txt.c (X509_verify_cert_error_string)";
const OPENSSL_SSL_ERR: &str = "OpenSSL crypto/err/openssl.txt, ssl/ssl_err.c (SSL_R_ reasons)";

/// Failures before any HTTP answer, as clients print them, in the order they
/// are matched (see the module documentation). In a chain of exceptions on
/// one line the innermost cause decides.
#[rustfmt::skip]
pub const TRANSPORT: &[Wording] = &[
    w(GO_TLS, "TLS handshake timeout", "all", Some(Cause::Timeout), "Go src/net/http/transport.go"),
    w(PYTHON, "handshake timed out", "all", Some(Cause::Timeout), "CPython Lib/ssl.py"),
    // The chain was read and a certificate in it may not serve its place: a
    // leaf where a CA should be, a usage (client auth) the server's lacks.
    // Before "failed to verify certificate", which Go 1.20+ puts in front.
    w(GO_X509, "x509: certificate is not authorized to sign other certificates", "all", Some(Cause::TlsOther), X509_VERIFY),
    w(GO_X509, "x509: certificate specifies an incompatible key usage", "all", Some(Cause::TlsOther), X509_VERIFY),
    // The name the client connected to is not in the certificate.
    w(OPENSSL, "no alternative certificate subject name matches", "curl 7.x-8.x", Some(Cause::TlsNameMismatch), OPENSSL_C),
    w(CURL, "does not match target host", "curl 7.x-8.x (OpenSSL, GnuTLS: `certificate subject name 'NAME' does not match target host name 'HOST'`; `hostname` from 8.12)", Some(Cause::TlsNameMismatch), "curl lib/vtls/openssl.c, lib/vtls/gtls.c"),
    w(GO_X509, "x509: certificate is valid for", "all", Some(Cause::TlsNameMismatch), X509_VERIFY),
    w(GO_X509, "because it doesn't contain any IP SANs", "all", Some(Cause::TlsNameMismatch), X509_VERIFY),
    w(GO_X509, "certificate is not valid for any names", "all", Some(Cause::TlsNameMismatch), X509_VERIFY),
    w(GO_X509, "x509: certificate relies on legacy Common Name field", "Go 1.15+", Some(Cause::TlsNameMismatch), X509_VERIFY),
    w(PYTHON, "hostname mismatch", "Python 3.7+", Some(Cause::TlsNameMismatch), "CPython Modules/_ssl.c"),
    w(PYTHON, "IP address mismatch", "Python 3.7+", Some(Cause::TlsNameMismatch), "CPython Modules/_ssl.c"),
    w(PYTHON, "doesn't match either of", "Python before 3.7 (ssl.match_hostname)", Some(Cause::TlsNameMismatch), "CPython Lib/ssl.py"),
    w(PYTHON, "CertificateError(\"hostname", "Python before 3.7 (urllib3's repr of ssl.CertificateError)", Some(Cause::TlsNameMismatch), "CPython Lib/ssl.py"),
    w(JAVA, "No subject alternative names matching", "all", Some(Cause::TlsNameMismatch), HOSTNAME_CHECKER),
    w(JAVA, "No subject alternative DNS name matching", "all", Some(Cause::TlsNameMismatch), HOSTNAME_CHECKER),
    w(JAVA, "No subject alternative names present", "all", Some(Cause::TlsNameMismatch), HOSTNAME_CHECKER),
    w(JAVA, "No name matching", "all", Some(Cause::TlsNameMismatch), HOSTNAME_CHECKER),
    w(JAVA, "SSLPeerUnverifiedException: Hostname", "OkHttp 3+", Some(Cause::TlsNameMismatch), "OkHttp RealConnection.kt"),
    w(PYTHON, "doesn't match any of the subject alternative names", "urllib3", Some(Cause::TlsNameMismatch), "urllib3 connection.py"),
    w(PYTHON, "Certificate did not match expected hostname: ", "urllib3 1.x (its log line before CertificateError)", Some(Cause::TlsNameMismatch), "urllib3 connection.py (_match_hostname)"),
    w(NODE, "does not match certificate's altnames", "all", Some(Cause::TlsNameMismatch), "Node.js lib/tls.js checkServerIdentity"),
    w(NODE, "ERR_TLS_CERT_ALTNAME_INVALID", "all", Some(Cause::TlsNameMismatch), "Node.js lib/tls.js"),
    w(DOTNET, "RemoteCertificateNameMismatch", "all", Some(Cause::TlsNameMismatch), SSL_POLICY),
    w(RUSTLS, "invalid peer certificate: NotValidForName", "rustls before 0.23.17", Some(Cause::TlsNameMismatch), RUSTLS_ERROR),
    w(RUSTLS, "certificate not valid for name", "rustls 0.23.17+", Some(Cause::TlsNameMismatch), RUSTLS_ERROR),
    w(SECURE_TRANSPORT, "SSL certificate peer verification failed, the certificate did not match", "curl 7.x-8.14", Some(Cause::TlsNameMismatch), SECTRANSP_C),
    w(NSS, "requested domain name does not match the server's certificate", "curl before 8.3", Some(Cause::TlsNameMismatch), NSS_ERRS),
    w(NSS, "SSL_ERROR_BAD_CERT_DOMAIN", "curl before 8.3", Some(Cause::TlsNameMismatch), NSS_ERRS),
    w(SCHANNEL, "SEC_E_WRONG_PRINCIPAL", "all", Some(Cause::TlsNameMismatch), SCHANNEL_C),
    w(SCHANNEL, "CERT_E_CN_NO_MATCH", "all", Some(Cause::TlsNameMismatch), SCHANNEL_C),
    w(SCHANNEL, "server certificate name verification failed", "curl 7.51+", Some(Cause::TlsNameMismatch), SCHANNEL_VERIFY_C),
    w(WOLFSSL, "subject alt name(s) or common name do not match", "curl 7.x-8.x", Some(Cause::TlsNameMismatch), WOLFSSL_C),
    w(MBEDTLS, "BADCERT_CN_MISMATCH", "curl before 8.10", Some(Cause::TlsNameMismatch), MBEDTLS_C),
    w(MBEDTLS, "does not match with the expected CN", "curl 8.10+", Some(Cause::TlsNameMismatch), MBEDTLS_C),
    w(WGET, "doesn't match requested host name", "1.10+ (`certificate common name NAME doesn't match requested host name HOST`)", Some(Cause::TlsNameMismatch), WGET_OPENSSL_C),
    w(WGET, "no certificate subject alternative name matches", "1.12+", Some(Cause::TlsNameMismatch), WGET_OPENSSL_C),
    // The certificate is outside its validity period.
    w(OPENSSL, "certificate has expired", "all", Some(Cause::TlsCertificateExpired), "OpenSSL X509_V_ERR_CERT_HAS_EXPIRED; GnuTLS in curl 8.10+; wolfSSL in curl"),
    w(OPENSSL, "certificate is not yet valid", "all", Some(Cause::TlsCertificateExpired), "OpenSSL X509_V_ERR_CERT_NOT_YET_VALID (Go's `has expired or is not yet valid` holds it)"),
    w(NODE, "CERT_HAS_EXPIRED", "all", Some(Cause::TlsCertificateExpired), NODE_CODES),
    w(NODE, "CERT_NOT_YET_VALID", "all", Some(Cause::TlsCertificateNotYetValid), NODE_CODES),
    w(JAVA, "CertificateExpiredException", "all", Some(Cause::TlsCertificateExpired), "OpenJDK java/security/cert"),
    w(JAVA, "CertificateNotYetValidException", "all", Some(Cause::TlsCertificateNotYetValid), "OpenJDK java/security/cert"),
    w(JAVA, "CertPathValidatorException: validity check failed", "all", Some(Cause::TlsCertificateExpired), "OpenJDK sun/security/provider/certpath/BasicChecker.java"),
    w(RUSTLS, "invalid peer certificate: Expired", "rustls before 0.23.17", Some(Cause::TlsCertificateExpired), RUSTLS_ERROR),
    w(RUSTLS, "invalid peer certificate: certificate expired", "rustls 0.23.17+", Some(Cause::TlsCertificateExpired), RUSTLS_ERROR),
    w(RUSTLS, "invalid peer certificate: NotValidYet", "rustls before 0.23.17", Some(Cause::TlsCertificateNotYetValid), RUSTLS_ERROR),
    w(RUSTLS, "invalid peer certificate: certificate not valid yet", "rustls 0.23.17+", Some(Cause::TlsCertificateNotYetValid), RUSTLS_ERROR),
    w(GNUTLS, "server certificate expiration date has passed", "curl 7.x-8.x", Some(Cause::TlsCertificateExpired), GTLS_C),
    w(GNUTLS, "server cert expiration date verify failed", "curl 7.x-8.x", Some(Cause::TlsCertificateExpired), GTLS_C),
    w(GNUTLS, "server certificate not activated yet", "curl 7.x-8.x", Some(Cause::TlsCertificateNotYetValid), GTLS_C),
    w(GNUTLS, "server cert activation date verify failed", "curl 7.x-8.x", Some(Cause::TlsCertificateNotYetValid), GTLS_C),
    w(NSS, "Peer's Certificate has expired", "curl before 8.3", Some(Cause::TlsCertificateExpired), NSS_ERRS),
    w(NSS, "Peer's Certificate issuer has expired", "curl before 8.3", Some(Cause::TlsCertificateExpired), NSS_ERRS),
    w(NSS, "SEC_ERROR_EXPIRED_CERTIFICATE", "curl before 8.3", Some(Cause::TlsCertificateExpired), NSS_ERRS),
    w(SCHANNEL, "SEC_E_CERT_EXPIRED", "all", Some(Cause::TlsCertificateExpired), SCHANNEL_C),
    w(SCHANNEL, "CERT_E_EXPIRED", "all", Some(Cause::TlsCertificateExpired), SCHANNEL_C),
    w(SCHANNEL, "CERT_TRUST_IS_NOT_TIME_VALID", "curl 7.51-8.x", Some(Cause::TlsCertificateExpired), SCHANNEL_VERIFY_C),
    w(SCHANNEL, "in the certificate chain is not time valid", "curl 7.51+", Some(Cause::TlsCertificateExpired), SCHANNEL_VERIFY_C),
    w(SECURE_TRANSPORT, "Certificate chain had an expired certificate", "curl 7.x-8.14", Some(Cause::TlsCertificateExpired), SECTRANSP_C),
    w(SECURE_TRANSPORT, "certificate that is not yet valid", "curl 7.x-8.14", Some(Cause::TlsCertificateNotYetValid), SECTRANSP_C),
    w(WOLFSSL, "certificate not valid yet", "curl 7.x-8.x", Some(Cause::TlsCertificateNotYetValid), WOLFSSL_C),
    w(MBEDTLS, "BADCERT_EXPIRED", "curl before 8.10", Some(Cause::TlsCertificateExpired), MBEDTLS_C),
    w(MBEDTLS, "The certificate validity has expired", "curl 8.10+", Some(Cause::TlsCertificateExpired), MBEDTLS_C),
    w(WGET, "Issued certificate has expired", "all (under `ERROR: cannot verify HOST's certificate`)", Some(Cause::TlsCertificateExpired), WGET_OPENSSL_C),
    w(WGET, "Issued certificate not yet valid", "all (under `ERROR: cannot verify HOST's certificate`)", Some(Cause::TlsCertificateExpired), WGET_OPENSSL_C),
    w(MBEDTLS, "BADCERT_FUTURE", "curl before 8.10", Some(Cause::TlsCertificateNotYetValid), MBEDTLS_C),
    w(MBEDTLS, "The certificate validity starts in the future", "curl 8.10+", Some(Cause::TlsCertificateNotYetValid), MBEDTLS_C),
    w(DOTNET, "NotTimeValid", "all", Some(Cause::TlsCertificateExpired), SSL_POLICY),
    // The client does not trust the CA that signed the server's certificate.
    w(GO_X509, "certificate signed by unknown authority", "all", Some(Cause::TlsUntrustedCa), X509_VERIFY),
    w(GO_X509, "certificate is not trusted", "Go 1.18+ on macOS (the platform verifier)", Some(Cause::TlsUntrustedCa), "Go src/crypto/x509/root_darwin.go"),
    // Go's other verify errors: a chain found but refused, or a signature
    // it cannot check (after "signed by unknown authority", which quotes
    // them as "possibly because of …"; before Go 1.20's "failed to verify
    // certificate" in front of them).
    w(GO_X509, "x509: cannot verify signature", "all (algorithm unimplemented; insecure algorithm since Go 1.18)", Some(Cause::TlsOther), "Go src/crypto/x509/x509.go (ErrUnsupportedAlgorithm, InsecureAlgorithmError)"),
    w(GO_X509, "x509: invalid signature", "all (parent certificate cannot sign this kind of certificate)", Some(Cause::TlsOther), "Go src/crypto/x509/x509.go (ConstraintViolationError)"),
    w(GO_X509, "x509: a root or intermediate certificate is not authorized", "all (to sign for this name; for an extended key usage)", Some(Cause::TlsOther), X509_VERIFY),
    w(GO_X509, "x509: too many intermediates for path length constraint", "all", Some(Cause::TlsOther), X509_VERIFY),
    w(GO_X509, "x509: issuer name does not match subject from issuing certificate", "all", Some(Cause::TlsOther), X509_VERIFY),
    w(GO_X509, "x509: issuer has name constraints", "all", Some(Cause::TlsOther), X509_VERIFY),
    w(GO_X509, "certificate is not standards compliant", "Go 1.18+ on macOS (the platform verifier)", Some(Cause::TlsOther), "Go src/crypto/x509/root_darwin.go"),
    w(GO_X509, "x509: unhandled critical extension", "all", Some(Cause::TlsOther), "Go src/crypto/x509/x509.go (UnhandledCriticalExtension)"),
    // OpenSSL's verification reasons that are no untrusted CA: a chain
    // found and refused (revoked, too weak, a certificate that may not serve
    // its place, Python 3.13's strict checks of a CA's extensions). They
    // come after `certificate verify failed:` (Python, Ruby) and `SSL
    // certificate problem:` (curl), which alone read as an untrusted CA, so
    // they stand before those rows.
    w(OPENSSL, "certificate revoked", "all (X509_V_ERR_CERT_REVOKED)", Some(Cause::TlsOther), OPENSSL_X509_TXT),
    w(OPENSSL, "CA signature digest algorithm too weak", "1.1+ (X509_V_ERR_CA_MD_TOO_WEAK)", Some(Cause::TlsOther), OPENSSL_X509_TXT),
    w(OPENSSL, "EE certificate key too weak", "1.1+ (X509_V_ERR_EE_KEY_TOO_SMALL)", Some(Cause::TlsOther), OPENSSL_X509_TXT),
    w(OPENSSL, "CA certificate key too weak", "1.1+ (X509_V_ERR_CA_KEY_TOO_SMALL)", Some(Cause::TlsOther), OPENSSL_X509_TXT),
    w(OPENSSL, "unsupported certificate purpose", "older releases (X509_V_ERR_INVALID_PURPOSE)", Some(Cause::TlsOther), OPENSSL_X509_TXT),
    w(OPENSSL, "unsuitable certificate purpose", "newer releases (X509_V_ERR_INVALID_PURPOSE)", Some(Cause::TlsOther), OPENSSL_X509_TXT),
    w(OPENSSL, "invalid CA certificate", "all (X509_V_ERR_INVALID_CA)", Some(Cause::TlsOther), OPENSSL_X509_TXT),
    w(OPENSSL, "invalid non-CA certificate (has CA markings)", "1.1+ (X509_V_ERR_INVALID_NON_CA)", Some(Cause::TlsOther), OPENSSL_X509_TXT),
    w(OPENSSL, "key usage does not include certificate signing", "all (X509_V_ERR_KEYUSAGE_NO_CERTSIGN)", Some(Cause::TlsOther), OPENSSL_X509_TXT),
    w(OPENSSL, "path length constraint exceeded", "all (X509_V_ERR_PATH_LENGTH_EXCEEDED)", Some(Cause::TlsOther), OPENSSL_X509_TXT),
    w(OPENSSL, "certificate signature failure", "all (X509_V_ERR_CERT_SIGNATURE_FAILURE)", Some(Cause::TlsOther), OPENSSL_X509_TXT),
    w(OPENSSL, "unhandled critical extension", "all (X509_V_ERR_UNHANDLED_CRITICAL_EXTENSION)", Some(Cause::TlsOther), OPENSSL_X509_TXT),
    w(OPENSSL, "unable to get certificate CRL", "all (X509_V_ERR_UNABLE_TO_GET_CRL: CRL checks on, none found)", Some(Cause::TlsOther), OPENSSL_X509_TXT),
    w(OPENSSL, "Basic Constraints of CA cert not marked critical", "3.0+ (X509_V_ERR_CA_BCONS_NOT_CRITICAL; X509_V_FLAG_X509_STRICT, Python 3.13+'s default)", Some(Cause::TlsOther), OPENSSL_X509_TXT),
    w(OPENSSL, "Missing Authority Key Identifier", "3.0+ (X509_V_ERR_MISSING_AUTHORITY_KEY_IDENTIFIER; strict, Python 3.13+)", Some(Cause::TlsOther), OPENSSL_X509_TXT),
    w(OPENSSL, "Missing Subject Key Identifier", "3.0+ (X509_V_ERR_MISSING_SUBJECT_KEY_IDENTIFIER; strict, Python 3.13+)", Some(Cause::TlsOther), OPENSSL_X509_TXT),
    w(OPENSSL, "CA cert does not include key usage extension", "3.0+ (X509_V_ERR_CA_CERT_MISSING_KEY_USAGE; strict, Python 3.13+)", Some(Cause::TlsOther), OPENSSL_X509_TXT),
    // Erlang/OTP's ssl (Elixir and Erlang clients): a fatal alert, or
    // public_key's path validation reason.
    w(ERLANG, "hostname_check_failed", "OTP 19+ ({bad_cert,hostname_check_failed})", Some(Cause::TlsNameMismatch), OTP_SSL),
    // Unknown CA: the client's own check, or the server's alert about the
    // client's certificate (`received SERVER ALERT`), which says nothing of
    // the server's.
    w(ERLANG, "generated CLIENT ALERT: Fatal - Unknown CA", "OTP 20+", Some(Cause::TlsUntrustedCa), OTP_SSL),
    w(ERLANG, "{bad_cert,unknown_ca}", "all", Some(Cause::TlsUntrustedCa), OTP_SSL),
    w(ERLANG, "selfsigned_peer", "all ({bad_cert,selfsigned_peer})", Some(Cause::TlsUntrustedCa), OTP_SSL),
    w(ERLANG, "cert_expired", "all ({bad_cert,cert_expired})", Some(Cause::TlsCertificateExpired), OTP_SSL),
    w(ERLANG, "tls_alert", "all", Some(Cause::TlsOther), OTP_SSL),
    w(JAVA, "No trusted certificate found", "all (SimpleValidator)", Some(Cause::TlsUntrustedCa), "OpenJDK sun/security/validator/SimpleValidator.java"),
    w(OPENSSL, "unable to get local issuer certificate", "all", Some(Cause::TlsUntrustedCa), "OpenSSL X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY"),
    // The server sent only its own certificate and its issuer is not trusted.
    w(OPENSSL, "unable to verify the first certificate", "all", Some(Cause::TlsUntrustedCa), "OpenSSL X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE"),
    w(OPENSSL, "unable to get issuer certificate", "all", Some(Cause::TlsUntrustedCa), "OpenSSL X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT"),
    w(OPENSSL, "self-signed certificate", "OpenSSL 3", Some(Cause::TlsUntrustedCa), "OpenSSL X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT"),
    w(OPENSSL, "self signed certificate", "OpenSSL 1.1", Some(Cause::TlsUntrustedCa), "OpenSSL X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT"),
    w(NODE, "UNABLE_TO_VERIFY_LEAF_SIGNATURE", "all", Some(Cause::TlsUntrustedCa), NODE_CODES),
    w(NODE, "SELF_SIGNED_CERT_IN_CHAIN", "all", Some(Cause::TlsUntrustedCa), NODE_CODES),
    w(NODE, "DEPTH_ZERO_SELF_SIGNED_CERT", "all", Some(Cause::TlsUntrustedCa), NODE_CODES),
    w(WGET, "Unable to locally verify the issuer's authority", "all (under `ERROR: cannot verify HOST's certificate`)", Some(Cause::TlsUntrustedCa), WGET_OPENSSL_C),
    w(WGET, "Self-signed certificate encountered", "all (under `ERROR: cannot verify HOST's certificate`)", Some(Cause::TlsUntrustedCa), WGET_OPENSSL_C),
    w(NODE, "UNABLE_TO_GET_ISSUER_CERT", "all (and _LOCALLY)", Some(Cause::TlsUntrustedCa), NODE_CODES),
    w(JAVA, "PKIX path building failed", "all", Some(Cause::TlsUntrustedCa), "OpenJDK sun/security/validator/PKIXValidator.java"),
    w(JAVA, "unable to find valid certification path", "all", Some(Cause::TlsUntrustedCa), "OpenJDK sun/security/provider/certpath/SunCertPathBuilder.java"),
    w(JAVA, "Trust anchor for certification path not found", "Android, OkHttp", Some(Cause::TlsUntrustedCa), "Android conscrypt TrustManagerImpl"),
    w(PYTHON, "CERTIFICATE_VERIFY_FAILED", "all", Some(Cause::TlsUntrustedCa), "CPython Modules/_ssl.c"),
    w(GNUTLS, "server certificate verification failed", "curl 7.x-8.9 (`… failed. CAfile: FILE CRLfile: FILE`)", Some(Cause::TlsUntrustedCa), GTLS_C),
    w(GNUTLS, "certificate signer not trusted", "curl 8.10+", Some(Cause::TlsUntrustedCa), GTLS_C),
    w(GNUTLS, "The certificate issuer is unknown", "GnuTLS gnutls_certificate_verification_status_print", Some(Cause::TlsUntrustedCa), "GnuTLS lib/cert-session.c"),
    w(NSS, "Peer's Certificate issuer is not recognized", "curl before 8.3", Some(Cause::TlsUntrustedCa), NSS_ERRS),
    w(NSS, "issuer has been marked as not trusted", "curl before 8.3", Some(Cause::TlsUntrustedCa), NSS_ERRS),
    w(NSS, "SEC_ERROR_UNKNOWN_ISSUER", "curl before 8.3", Some(Cause::TlsUntrustedCa), NSS_ERRS),
    w(NSS, "SEC_ERROR_UNTRUSTED_ISSUER", "curl before 8.3", Some(Cause::TlsUntrustedCa), NSS_ERRS),
    w(SCHANNEL, "SEC_E_UNTRUSTED_ROOT", "all", Some(Cause::TlsUntrustedCa), SCHANNEL_C),
    w(SCHANNEL, "CERT_E_UNTRUSTEDROOT", "all", Some(Cause::TlsUntrustedCa), SCHANNEL_C),
    w(SCHANNEL, "CERT_TRUST_IS_UNTRUSTED_ROOT", "curl 7.51-8.x (`CertGetCertificateChain trust error …`)", Some(Cause::TlsUntrustedCa), SCHANNEL_VERIFY_C),
    w(SCHANNEL, "CERT_TRUST_IS_PARTIAL_CHAIN", "curl 7.51-8.x", Some(Cause::TlsUntrustedCa), SCHANNEL_VERIFY_C),
    w(SCHANNEL, "issued by an authority that is not trusted", "all (SEC_E_UNTRUSTED_ROOT's text)", Some(Cause::TlsUntrustedCa), SCHANNEL_C),
    w(SCHANNEL, "based on an untrusted root", "curl 7.51+", Some(Cause::TlsUntrustedCa), SCHANNEL_VERIFY_C),
    w(SCHANNEL, "the certificate chain is incomplete", "curl 7.51+", Some(Cause::TlsUntrustedCa), SCHANNEL_VERIFY_C),
    w(SECURE_TRANSPORT, "Invalid certificate chain", "curl 7.x-8.14", Some(Cause::TlsUntrustedCa), SECTRANSP_C),
    w(SECURE_TRANSPORT, "Untrusted root certificate", "curl 7.x-8.14", Some(Cause::TlsUntrustedCa), SECTRANSP_C),
    w(SECURE_TRANSPORT, "No root certificate", "curl 7.x-8.14", Some(Cause::TlsUntrustedCa), SECTRANSP_C),
    w(WOLFSSL, "CA signer not available for verification", "curl 7.x-8.x", Some(Cause::TlsUntrustedCa), WOLFSSL_C),
    w(MBEDTLS, "BADCERT_NOT_TRUSTED", "curl before 8.10", Some(Cause::TlsUntrustedCa), MBEDTLS_C),
    w(MBEDTLS, "not correctly signed by the trusted CA", "curl 8.10+", Some(Cause::TlsUntrustedCa), MBEDTLS_C),
    w(DOTNET, "UntrustedRoot", "all", Some(Cause::TlsUntrustedCa), SSL_POLICY),
    w(DOTNET, "PartialChain", "all", Some(Cause::TlsUntrustedCa), SSL_POLICY),
    w(DOTNET, "RemoteCertificateChainErrors", "all", Some(Cause::TlsUntrustedCa), SSL_POLICY),
    w(DOTNET, "errors in the certificate chain", ".NET 5+", Some(Cause::TlsUntrustedCa), SSL_POLICY),
    w(CURL, "SSL certificate problem", "curl 7.x-8.x (OpenSSL, Secure Transport: the verification failed)", Some(Cause::TlsUntrustedCa), OPENSSL_C),
    w(GO_X509, "failed to verify certificate", "Go 1.20+", Some(Cause::TlsUntrustedCa), "Go src/crypto/tls/handshake_client.go"),
    w(RUSTLS, "invalid peer certificate: UnknownIssuer", "all", Some(Cause::TlsUntrustedCa), RUSTLS_ERROR),
    // The handshake failed for another reason.
    // An alert the peer sent, in each stack's words: the server refused the
    // client's certificate (bad certificate, unknown CA, certificate
    // required), the version or the ciphers. A received `unknown ca` or
    // `certificate expired` is about the client's certificate, never the
    // server's: the client's own verdicts on the server's certificate have
    // their words above, and these rows stand after them.
    w(OPENSSL, "sslv3 alert ", "1.x-3.0 (`sslv3 alert handshake failure`, `… bad certificate`, `… certificate expired`, `… certificate unknown`)", Some(Cause::TlsOther), OPENSSL_SSL_ERR),
    w(OPENSSL, "ssl/tls alert ", "3.x after 3.0 (the sslv3 alerts renamed: `ssl/tls alert handshake failure`)", Some(Cause::TlsOther), OPENSSL_SSL_ERR),
    w(OPENSSL, "tlsv1 alert ", "all (`tlsv1 alert protocol version`, `… unknown ca`, `… internal error`, `… access denied`, `… decrypt error`)", Some(Cause::TlsOther), OPENSSL_SSL_ERR),
    w(OPENSSL, "tlsv13 alert ", "1.1.1+ (`tlsv13 alert certificate required`, `… missing extension`)", Some(Cause::TlsOther), OPENSSL_SSL_ERR),
    w(OPENSSL, "tlsv1 unrecognized name", "all (the server's unrecognized_name alert: the name sent by SNI)", Some(Cause::TlsOther), OPENSSL_SSL_ERR),
    // OpenSSL's own refusals before any alert: no version or cipher both
    // ends allow, a server's key below the security level. Not `unsupported
    // protocol` on its own (Go's `unsupported protocol scheme` holds it) nor
    // `unexpected eof while reading`: each comes inside OpenSSL's error
    // line (`SSL routines`), Python's `[SSL: …]` or Node's `ERR_SSL_…`.
    w(OPENSSL, "no protocols available", "all (SSL_R_NO_PROTOCOLS_AVAILABLE: every version the client allows is disabled)", Some(Cause::TlsOther), OPENSSL_SSL_ERR),
    w(OPENSSL, "no ciphers available", "all (SSL_R_NO_CIPHERS_AVAILABLE)", Some(Cause::TlsOther), OPENSSL_SSL_ERR),
    w(OPENSSL, "dh key too small", "1.0.2+ (SSL_R_DH_KEY_TOO_SMALL: the server's DH key is below the security level)", Some(Cause::TlsOther), OPENSSL_SSL_ERR),
    w(OPENSSL, "unsafe legacy renegotiation disabled", "all (a server without secure renegotiation; 3.0+ refuses it by default)", Some(Cause::TlsOther), OPENSSL_SSL_ERR),
    // OpenSSL's reasons as codes: Node.js's error code (`ERR_SSL_` and the
    // reason, upper case), and Python's SSLError by the source line it ends
    // with (`[SSL: CODE] reason (_ssl.c:N)`; its `[SSL: ` reads as a value).
    w(NODE, "ERR_SSL_", "all (`ERR_SSL_WRONG_VERSION_NUMBER`, `ERR_SSL_TLSV1_ALERT_UNKNOWN_CA`, `ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE`)", Some(Cause::TlsOther), "Node.js src/crypto/crypto_util.cc (error::Decorate)"),
    w(PYTHON, "(_ssl.c:", "all (after the reason: `[SSL: TLSV1_ALERT_PROTOCOL_VERSION] tlsv1 alert protocol version (_ssl.c:N)`, `[SSL: UNSUPPORTED_PROTOCOL] unsupported protocol (_ssl.c:N)`)", Some(Cause::TlsOther), "CPython Modules/_ssl.c (fill_and_set_sslerror)"),
    w(PYTHON, "SSLEOFError", "3.3+ (ssl.SSLEOFError: the connection closed in the handshake)", Some(Cause::TlsOther), "CPython Lib/ssl.py, Modules/_ssl.c"),
    // Go's refusals of a version, and a reply that is not TLS (before
    // Go's catch-all `tls: `).
    w(GO_TLS, "tls: first record does not look like a TLS handshake", "all (plain HTTP or another protocol on the port)", Some(Cause::TlsOther), "Go src/crypto/tls/conn.go"),
    w(GO_TLS, "tls: server selected unsupported protocol version", "all", Some(Cause::TlsOther), "Go src/crypto/tls/handshake_client.go"),
    w(GO_TLS, "tls: no supported versions satisfy MinVersion and MaxVersion", "1.12+", Some(Cause::TlsOther), "Go src/crypto/tls/handshake_client.go"),
    // Java's JSSE: the peer's alert by its name, a version or cipher no
    // end allows, a reply that is not TLS, a connection closed mid-handshake.
    w(JAVA, "Received fatal alert: ", "all (`Received fatal alert: handshake_failure`, `… bad_certificate`, `… certificate_unknown`, `… unknown_ca`, `… protocol_version`, `… certificate_required`)", Some(Cause::TlsOther), "OpenJDK sun/security/ssl/Alert.java (11+), SSLSocketImpl.java and Alerts.java (8)"),
    w(JAVA, "No appropriate protocol (protocol is disabled or cipher suites are inappropriate)", "all", Some(Cause::TlsOther), "OpenJDK sun/security/ssl/HandshakeContext.java"),
    w(JAVA, "is not accepted by client preferences", "11+ (`The server selected protocol version TLS10 is not accepted by client preferences [TLS13, TLS12]`)", Some(Cause::TlsOther), "OpenJDK sun/security/ssl/ServerHello.java"),
    w(JAVA, "Remote host terminated the handshake", "11+", Some(Cause::TlsOther), "OpenJDK sun/security/ssl/SSLSocketImpl.java"),
    w(JAVA, "Remote host closed connection during handshake", "8", Some(Cause::TlsOther), "OpenJDK sun/security/ssl/SSLSocketImpl.java"),
    w(JAVA, "Unsupported or unrecognized SSL message", "11+ (plain HTTP where TLS was expected)", Some(Cause::TlsOther), "OpenJDK sun/security/ssl/SSLSocketInputRecord.java"),
    w(JAVA, "Unrecognized SSL message, plaintext connection?", "8 (SSLEngine's in 11+)", Some(Cause::TlsOther), "OpenJDK sun/security/ssl/InputRecord.java (8), SSLEngineInputRecord.java"),
    w(JAVA, "Empty client certificate chain", "11+ (a Java server that requires a client certificate got none)", Some(Cause::TlsOther), "OpenJDK sun/security/ssl/CertificateMessage.java"),
    // rustls: the peer's alert by its name (`UnknownCA` received is about
    // the client's certificate), no version or cipher in common, a reply
    // that is not TLS.
    w(RUSTLS, "received fatal alert: ", "all (`received fatal alert: HandshakeFailure`, `… BadCertificate`, `… UnknownCA`, `… CertificateRequired`)", Some(Cause::TlsOther), "rustls rustls/src/error.rs (Error::AlertReceived)"),
    w(RUSTLS, "peer is incompatible: ", "all (`peer is incompatible: NoCipherSuitesInCommon`, `… ServerDoesNotSupportTls12Or13`)", Some(Cause::TlsOther), "rustls rustls/src/error.rs (Error::PeerIncompatible)"),
    w(RUSTLS, "peer misbehaved: ", "all", Some(Cause::TlsOther), "rustls rustls/src/error.rs (Error::PeerMisbehaved)"),
    w(RUSTLS, "received corrupt message", "all (`… of type InvalidContentType`: not TLS on the port)", Some(Cause::TlsOther), "rustls rustls/src/error.rs (Error::InvalidMessage)"),
    // .NET's SslStream: the peer's alert, the peer closing or answering
    // something else than TLS in the handshake, the client's own callback
    // refusing the certificate (its reason not said).
    w(DOTNET, "Authentication failed because the remote party sent a TLS alert", "newer .NET (`… TLS alert: 'HandshakeFailure'.`)", Some(Cause::TlsOther), "dotnet/runtime System.Net.Security Strings.resx (net_auth_tls_alert)"),
    w(DOTNET, "Authentication failed because the remote party has closed the transport stream", "all", Some(Cause::TlsOther), "dotnet/runtime System.Net.Security Strings.resx (net_auth_eof)"),
    w(DOTNET, "The handshake failed due to an unexpected packet format", "all (not TLS on the port)", Some(Cause::TlsOther), "dotnet/runtime System.Net.Security Strings.resx (net_ssl_io_frame)"),
    w(DOTNET, "SSL Handshake failed with OpenSSL error", "Linux (`… - SSL_ERROR_SSL.`)", Some(Cause::TlsOther), "dotnet/runtime System.Net.Security Strings.resx (net_ssl_handshake_failed_error)"),
    w(DOTNET, "The remote certificate was rejected by", "all (`… by the provided RemoteCertificateValidationCallback`: a client's own check, ServerCertificateCustomValidationCallback)", Some(Cause::TlsOther), "dotnet/runtime System.Net.Security Strings.resx (net_ssl_io_cert_custom_validation)"),
    w(GO_TLS, "remote error: tls:", "all", Some(Cause::TlsOther), "Go src/crypto/tls/alert.go"),
    w(GO_TLS, "tls: ", "all", Some(Cause::TlsOther), "Go src/crypto/tls"),
    w("Go net/http", "server gave HTTP response to HTTPS client", "all", Some(Cause::TlsOther), "Go src/net/http/transport.go"),
    // One end spoke plain HTTP where the other spoke TLS: a plain reply to a
    // TLS client (netty names the record, hex: `485454502f…` is `HTTP/`), or
    // a TLS alert to a plain-HTTP client (`\x15\x03\x01`).
    w("Go net/http", "transport connection broken: malformed HTTP response \"\\x15\\x03", "all", Some(Cause::TlsOther), "Go src/net/http/transport.go (a TLS alert read as HTTP: http:// to a TLS port)"),
    w(JAVA, "NotSslRecordException", "all", Some(Cause::TlsOther), "netty handler/src/main/java/io/netty/handler/ssl/NotSslRecordException.java (Vert.x, fabric8 6.x's vertx client)"),
    // The connection closed while the handshake ran (a proxy, a firewall, a
    // server that refused the client certificate): ECONNRESET during TLS.
    w(NODE, "Client network socket disconnected before secure TLS connection was established", "Node.js 8+", Some(Cause::TlsOther), "Node.js lib/_tls_wrap.js (onConnectEnd)"),
    w(JAVA, "SSLHandshakeException", "all", Some(Cause::TlsOther), "OpenJDK javax/net/ssl"),
    w(JAVA, "PKIX path validation failed", "all", Some(Cause::TlsOther), "OpenJDK sun/security/validator/PKIXValidator.java"),
    w(PYTHON, "SSLError", "all", Some(Cause::TlsOther), "CPython Lib/ssl.py"),
    w(PYTHON, "EOF occurred in violation of protocol", "all", Some(Cause::TlsOther), "CPython Modules/_ssl.c (SSLEOFError)"),
    w(BOTOCORE, "SSL validation failed for", "1.x (`SSL validation failed for URL ERROR`)", Some(Cause::TlsOther), BOTOCORE_EXCEPTIONS),
    w(OPENSSL, "SSL routines", "all", Some(Cause::TlsOther), "OpenSSL error queue"),
    w(OPENSSL, "SSL_connect", "all", Some(Cause::TlsOther), OPENSSL_C),
    w(OPENSSL, "wrong version number", "all", Some(Cause::TlsOther), "OpenSSL SSL_R_WRONG_VERSION_NUMBER: not TLS on that port"),
    w(NODE, "EPROTO", "all", Some(Cause::TlsOther), "Node.js lib/_tls_wrap.js"),
    w(GNUTLS, "gnutls_handshake() failed", "curl 7.x-8.x", Some(Cause::TlsOther), GTLS_C),
    w(SCHANNEL, "SSL/TLS connection failed", "curl 7.x-8.x", Some(Cause::TlsOther), SCHANNEL_C),
    w(SCHANNEL, "CERT_TRUST_IS_REVOKED", "curl 7.51-8.x", Some(Cause::TlsOther), SCHANNEL_VERIFY_C),
    w(SCHANNEL, "CRYPT_E_REVOCATION_OFFLINE", "all", Some(Cause::TlsOther), SCHANNEL_C),
    w(SCHANNEL, "CRYPT_E_NO_REVOCATION_CHECK", "all", Some(Cause::TlsOther), SCHANNEL_C),
    w(DOTNET, "The SSL connection could not be established", ".NET Core 2.1+", Some(Cause::TlsOther), "dotnet/runtime System.Net.Http SR.net_http_ssl_connection_failed"),
    w(DOTNET, "The remote certificate is invalid", "all", Some(Cause::TlsOther), "dotnet/runtime System.Net.Security SR.net_ssl_io_cert_validation"),
    // .NET Framework's WebException (PowerShell 5's Invoke-WebRequest): any
    // failed check of the certificate, its reason not said.
    w(DOTNET, "Could not establish trust relationship for the SSL/TLS secure channel", ".NET Framework (WebExceptionStatus.TrustFailure)", Some(Cause::TlsOther), "referencesource System/net/System/Net/WebException.cs (net_webstatus_TrustFailure)"),
    // wget says it cannot verify, then why on the next line.
    w(WGET, "certificate, issued by", "all (`ERROR: cannot verify HOST's certificate, issued by ISSUER:`)", Some(Cause::TlsOther), WGET_OPENSSL_C),
    w(RUSTLS, "invalid peer certificate", "all", Some(Cause::TlsOther), RUSTLS_ERROR),
    // The name does not resolve.
    w(GO_NET, "no such host", "all", Some(Cause::DnsFailure), "Go src/net/dnsclient.go (DNSError)"),
    w(CURL, "Could not resolve host", "all", Some(Cause::DnsFailure), "curl lib/hostip.c"),
    w(CURL, "Couldn't resolve host", "curl before 7.83", Some(Cause::DnsFailure), "curl lib/hostip.c"),
    w(BUSYBOX, "bad address '", "all (`wget: bad address 'HOST'`, nc, ping)", Some(Cause::DnsFailure), "busybox libbb/xconnect.c (str2sockaddr)"),
    w(GETADDRINFO, "Name or service not known", "glibc", Some(Cause::DnsFailure), "EAI_NONAME"),
    w(GETADDRINFO, "nodename nor servname provided", "macOS", Some(Cause::DnsFailure), "EAI_NONAME"),
    w(GETADDRINFO, "Temporary failure in name resolution", "glibc", Some(Cause::DnsFailure), "EAI_AGAIN"),
    w(JAVA, "UnknownHostException", "all", Some(Cause::DnsFailure), "OpenJDK java/net"),
    w(NODE, "getaddrinfo", "all", Some(Cause::DnsFailure), "Node.js lib/dns.js"),
    w(PYTHON, "Failed to resolve", "urllib3 2", Some(Cause::DnsFailure), "urllib3 NameResolutionError"),
    w(GETADDRINFO, "Name does not resolve", "musl", Some(Cause::DnsFailure), "EAI_NONAME"),
    w(GO_NET, ": server misbehaving", "all", Some(Cause::DnsFailure), "Go src/net/dnsclient_unix.go"),
    w(GETADDRINFO, "No address associated with hostname", "glibc", Some(Cause::DnsFailure), "EAI_NODATA"),
    w(PYTHON, "name resolution failed", "all", Some(Cause::DnsFailure), "urllib3"),
    w(NODE, "ENOTFOUND", "all", Some(Cause::DnsFailure), "Node.js lib/dns.js"),
    w(NODE, "EAI_AGAIN", "all", Some(Cause::DnsFailure), "Node.js lib/dns.js"),
    w(JAVA, "UnresolvedAddressException", "all (java.nio: netty, Vert.x)", Some(Cause::DnsFailure), "OpenJDK java/nio/channels/UnresolvedAddressException.java"),
    w(WGET, "unable to resolve host address", "all (`wget: unable to resolve host address 'HOST'`)", Some(Cause::DnsFailure), "GNU Wget src/host.c (lookup_host)"),
    w(ERLANG_INET, "nxdomain", "all (httpc's `{failed_connect,[…,{inet,[inet],nxdomain}]}`)", Some(Cause::DnsFailure), OTP_INET),
    w(DOTNET, "No such host is known", "Windows (WSAHOST_NOT_FOUND)", Some(Cause::DnsFailure), "Windows winerror.h"),
    // Nothing listens there.
    w(GO_NET, "connection refused", "all", Some(Cause::ConnectionRefused), "ECONNREFUSED"),
    w(JAVA, "ConnectException", "all", Some(Cause::ConnectionRefused), "OpenJDK java/net"),
    w(NODE, "ECONNREFUSED", "all", Some(Cause::ConnectionRefused), "Node.js error code"),
    w(PYTHON, "[Errno 111]", "Linux", Some(Cause::ConnectionRefused), "ECONNREFUSED"),
    w(RUSTLS, "Connection refused (os error 111)", "Linux", Some(Cause::ConnectionRefused), "Rust std::io"),
    w("kubectl", "was refused - did you specify the right host or port", "all", Some(Cause::ConnectionRefused), "kubectl"),
    w(DOTNET, "actively refused it", "Windows (WSAECONNREFUSED)", Some(Cause::ConnectionRefused), "Windows winerror.h"),
    // No answer in time.
    w(GO_NET, "i/o timeout", "all", Some(Cause::Timeout), "Go src/net/net.go"),
    w(GO_NET, "timed out", "all", Some(Cause::Timeout), "ETIMEDOUT"),
    w(GO_NET, "deadline exceeded", "all", Some(Cause::Timeout), "Go context.DeadlineExceeded"),
    w(GO_NET, "timeout awaiting", "all", Some(Cause::Timeout), "Go src/net/http/transport.go"),
    w("Go net/http", "Client.Timeout exceeded while awaiting headers", "all", Some(Cause::Timeout), "Go src/net/http/client.go"),
    w(JAVA, "SocketTimeoutException", "all", Some(Cause::Timeout), "OpenJDK java/net"),
    // By the exception's name: a client's `connectTimeout=5000` setting is none.
    w(PYTHON, "ConnectTimeoutError", "all", Some(Cause::Timeout), "urllib3 ConnectTimeoutError"),
    w(PYTHON, "exceptions.ConnectTimeout", "all", Some(Cause::Timeout), "requests exceptions.ConnectTimeout"),
    w(BOTOCORE, "Connect timeout on endpoint URL", "1.x (ConnectTimeoutError)", Some(Cause::Timeout), BOTOCORE_EXCEPTIONS),
    w(BOTOCORE, "Read timeout on endpoint URL", "1.x (ReadTimeoutError)", Some(Cause::Timeout), BOTOCORE_EXCEPTIONS),
    w(PYTHON, "Connection timeout to host", "aiohttp 3.x (ServerTimeoutError, ConnectionTimeoutError)", Some(Cause::Timeout), "aio-libs/aiohttp aiohttp/connector.py"),
    w(TOKIO, "deadline has elapsed", "tokio 1.x (time::error::Elapsed: hyper's and kube-rs's connect and read timeouts)", Some(Cause::Timeout), "tokio-rs/tokio tokio/src/time/error.rs"),
    w(ERLANG_INET, "{failed_connect,", "all (the reason inside names the failure: econnrefused, nxdomain, timeout)", Some(Cause::Unknown), OTP_INET),
    w(NODE, "ETIMEDOUT", "all", Some(Cause::Timeout), "Node.js error code"),
    w(DOTNET, "did not properly respond after a period of time", "Windows (WSAETIMEDOUT)", Some(Cause::Timeout), "Windows winerror.h"),
    w(DOTNET, "due to the configured HttpClient.Timeout of", ".NET 5+ (TaskCanceledException)", Some(Cause::Timeout), "dotnet/runtime src/libraries/System.Net.Http/src/Resources/Strings.resx (net_http_request_timedout)"),
    // The connection failed in a way that names no cause of the engine's.
    w(GO_NET, "no route to host", "all", Some(Cause::NetworkUnreachable), "EHOSTUNREACH"),
    w(GO_NET, "network is unreachable", "all", Some(Cause::NetworkUnreachable), "ENETUNREACH"),
    w(GO_NET, "connection reset by peer", "all", Some(Cause::Unknown), "ECONNRESET"),
    w(NODE, "ECONNRESET", "all", Some(Cause::Unknown), "Node.js error code"),
    w(NODE, "socket hang up", "all (the connection closed before an answer)", Some(Cause::Unknown), "Node.js lib/_http_client.js (connResetException)"),
    w(GO_NET, "http2: client connection lost", "all (golang.org/x/net/http2, net/http's bundle)", Some(Cause::Unknown), "golang.org/x/net http2/transport.go (errClientConnLost)"),
    w(NODE, "EHOSTUNREACH", "all", Some(Cause::NetworkUnreachable), "Node.js error code"),
    w(NODE, "ENETUNREACH", "all", Some(Cause::NetworkUnreachable), "Node.js error code"),
    w(JAVA, "NoRouteToHostException", "all", Some(Cause::NetworkUnreachable), "OpenJDK java/net"),
    // botocore's words for urllib3's failed connect, whatever failed (a name
    // lookup, a refusal, an unreachable network: the error after it says).
    w(BOTOCORE, "Could not connect to the endpoint URL", "1.x (EndpointConnectionError)", Some(Cause::Unknown), BOTOCORE_EXCEPTIONS),
    w(BOTOCORE, "Connection was closed before we received a valid response", "1.x (ConnectionClosedError)", Some(Cause::Unknown), BOTOCORE_EXCEPTIONS),
    w(BOTOCORE, "Failed to connect to proxy URL", "1.x (ProxyConnectionError)", Some(Cause::Unknown), BOTOCORE_EXCEPTIONS),
    // The caller gave up (its own deadline, a shutdown) before any answer came.
    w(GO_NET, "context canceled", "all", Some(Cause::Unknown), "Go context.Canceled"),
    // EADDRNOTAVAIL: the caller ran out of local ports or addresses.
    w(GO_NET, "cannot assign requested address", "all", Some(Cause::Unknown), "EADDRNOTAVAIL"),
    // The connection closed before an answer came, in each stack's words:
    // HTTP/2's GOAWAY and stream resets, a write to a closed socket. Not Go's
    // `unexpected EOF`: a truncated body or JSON document says it too. Rows
    // leave out a leading "unexpected": the log prefilter keeps a row's first
    // ten bytes, and those would pass every "Unexpected watch close".
    w(GO_NET, "http2: server sent GOAWAY and closed the connection", "all (`; LastStreamID=N, ErrCode=CODE, debug=\"…\"` after it)", Some(Cause::Unknown), "golang.org/x/net http2/transport.go (GoAwayError.Error)"),
    w(GO_NET, "stream error: stream ID", "all (`stream error: stream ID N; CODE`, `; received from peer` since x/net 2022)", Some(Cause::Unknown), "golang.org/x/net http2/errors.go (StreamError.Error)"),
    w("Go net/http", "transport connection broken", "all (`net/http: HTTP/1.x transport connection broken: ERR`)", Some(Cause::Unknown), "Go src/net/http/transport.go (persistConn.readLoop)"),
    w("Go net/http", "http: server closed idle connection", "Go 1.11+", Some(Cause::Unknown), "Go src/net/http/transport.go (errServerClosedIdle)"),
    w(GO_NET, "use of closed network connection", "all (net.ErrClosed since Go 1.16)", Some(Cause::Unknown), "Go src/net/net.go"),
    w(GO_NET, "broken pipe", "all", Some(Cause::Unknown), "EPIPE"),
    w(GO_NET, "too many open files", "all", Some(Cause::Unknown), "EMFILE: the caller ran out of file descriptors"),
    w(JAVA, "Connection reset", "all (java.net.SocketException, javax.net.ssl.SSLException)", Some(Cause::Unknown), "OpenJDK sun/nio/ch/NioSocketImpl.java (13+), java/net/SocketInputStream.java before"),
    w(JAVA, "end of stream on", "okhttp 3.x-5.x", Some(Cause::Unknown), "square/okhttp okhttp/src/main/kotlin/okhttp3/internal/http1/Http1ExchangeCodec.kt (readResponseHeaders)"),
    w(JAVA, "StreamResetException", "okhttp 3.x-5.x (`stream was reset: CODE`)", Some(Cause::Unknown), "square/okhttp okhttp3/internal/http2/StreamResetException.kt"),
    w(JAVA, "EOFException", "all", Some(Cause::Unknown), "OpenJDK java/io/EOFException.java (OkHttp's `\\n not found: limit=0`: no status line)"),
    w(JAVA, "InterruptedIOException: timeout", "okhttp 3.12+ (callTimeout)", Some(Cause::Timeout), "square/okhttp okhttp3/internal/connection/RealCall.kt (timeoutExit)"),
    // JSSE's exceptions by name, whatever their message: after the
    // connection's own failures (`SSLException: Connection reset`, `Read
    // timed out`), which they wrap.
    w(JAVA, "SSLProtocolException", "all", Some(Cause::TlsOther), "OpenJDK javax/net/ssl/SSLProtocolException.java (sun/security/ssl/Alert.java: an unexpected_message)"),
    w(JAVA, "SSLException", "all", Some(Cause::TlsOther), "OpenJDK javax/net/ssl/SSLException.java"),
    w(PYTHON, "Remote end closed connection without response", "Python 3.5+ (http.client.RemoteDisconnected)", Some(Cause::Unknown), "CPython Lib/http/client.py"),
    w(DOTNET, "The response ended prematurely", ".NET Core 3.0+", Some(Cause::Unknown), "dotnet/runtime System.Net.Http Strings.resx (net_http_invalid_response_premature_eof)"),
    w(DOTNET, "Received an unexpected EOF or 0 bytes from the transport stream", "all (SslStream: the connection closed, in the handshake or after it)", Some(Cause::Unknown), "dotnet/runtime System.Net.Security Strings.resx (net_io_eof)"),
    w(DOTNET, "Resource temporarily unavailable", "Linux (EAGAIN's text; a name lookup to try again)", Some(Cause::Unknown), "dotnet/runtime System.Net.Http ConnectHelper (`MESSAGE (HOST:PORT)`)"),
    w(RUBY, "Net::OpenTimeout", "all", Some(Cause::Timeout), RUBY_NET_HTTP),
    w(RUBY, "Net::ReadTimeout", "all", Some(Cause::Timeout), RUBY_NET_HTTP),
    w(RUBY, "end of file reached", "all (EOFError)", Some(Cause::Unknown), "Ruby io.c (rb_eof_error)"),
    PROXY_TUNNEL_REFUSED[0],
    PROXY_TUNNEL_REFUSED[1],
    PROXY_TUNNEL_REFUSED[2],
    PROXY_TUNNEL_REFUSED[3],
    // Fluent Bit's kubernetes filter got no connection to the API server (or
    // the kubelet) from its upstream pool: the connect failed, its own
    // `[net]` or `[tls]` line before says how. After the plugin's tag
    // (`[filter_kube]` before v1.5, `[filter:kubernetes:NAME]` since), which
    // a line's prefixes are read without; `kubelet …` since v1.7.5 (with
    // Use_Kubelet), `kube api …` since v3.0.
    w(FLUENT_BIT, "upstream connection error", "v0.12+", Some(Cause::Unknown), FLUENT_BIT_KUBE_META),
];

/// An HTTP proxy refused the tunnel (CONNECT) to the API server: the status
/// these words carry is the proxy's, and no request reached kube-apiserver
/// (rows of [`TRANSPORT`]).
#[rustfmt::skip]
pub const PROXY_TUNNEL_REFUSED: [Wording; 4] = [
    w(PYTHON, "Tunnel connection failed", "all (`Tunnel connection failed: CODE PHRASE`)", Some(Cause::Unknown), "CPython Lib/http/client.py (HTTPConnection._tunnel), which urllib3 wraps in ProxyError"),
    w(NODE, "tunneling socket could not be established", "all (`, statusCode=CODE`)", Some(Cause::Unknown), "request/tunnel-agent index.js (onConnect: the request library's proxy agent)"),
    w(JAVA, "response code for CONNECT", "okhttp 3.x-5.x", Some(Cause::Unknown), "square/okhttp okhttp3/internal/connection/ConnectPlan.kt (createTunnel; RealConnection before 5.0)"),
    w(CURL, "CONNECT tunnel failed", "7.x-8.x (`CONNECT tunnel failed, response CODE`; `Received HTTP code CODE from proxy after CONNECT` before 7.77)", Some(Cause::Unknown), "curl lib/cf-h1-proxy.c (lib/http_proxy.c before 8.0)"),
];

const FLUENT_BIT: &str = "Fluent Bit";
const FLUENT_BIT_KUBE_META: &str =
    "github.com/fluent/fluent-bit plugins/filter_kubernetes/kube_meta.c";

const CURL_H: &str = "curl include/curl/curl.h, lib/strerror.c";

/// curl's exit codes, `curl: (CODE) TEXT` (`curl#CODE` in libcurl's
/// wrappers: yum, pycurl). TEXT is the backend's own message when it left
/// one, else `curl_easy_strerror`'s, the one given here. The code names the
/// failure whatever the text: the backend's words refine the cause only
/// within the code's class (a TLS code stays a TLS failure). The first row of
/// a code is the one read; a row naming no cause is an answer (22).
#[rustfmt::skip]
pub const CURL_CODES: &[Wording] = &[
    w(CURL, "curl: (5) Could not resolve proxy name", "all (`Couldn't resolve proxy name` before 7.83)", Some(Cause::DnsFailure), CURL_H),
    w(CURL, "curl: (6) Could not resolve hostname", "all (`Couldn't resolve host name` before 7.83)", Some(Cause::DnsFailure), CURL_H),
    w(CURL, "curl: (7) Could not connect to server", "all (`Couldn't connect to server` before 7.83)", Some(Cause::ConnectionRefused), CURL_H),
    // `curl -f` (`--fail`): the server answered with a status of 400 or more.
    w(CURL, "curl: (22) The requested URL returned error: STATUS", "all (with the reason phrase after STATUS over HTTP/1.1 in older curl)", None, CURL_H),
    w(CURL, "curl: (28) Timeout was reached", "all", Some(Cause::Timeout), CURL_H),
    w(CURL, "curl: (35) SSL connect error", "all", Some(Cause::TlsOther), CURL_H),
    // 51 was CURLE_PEER_FAILED_VERIFICATION before 7.62.0, which gave it
    // for a name mismatch; 7.62.0 merged it into 60.
    w(CURL, "curl: (51) SSL peer certificate or SSH remote key was not OK", "before 7.62.0", Some(Cause::TlsNameMismatch), CURL_H),
    w(CURL, "curl: (52) Server returned nothing (no headers, no data)", "all (the tool says `Empty reply from server`)", Some(Cause::Unknown), CURL_H),
    w(CURL, "curl: (55) Failed sending data to the peer", "all", Some(Cause::Unknown), CURL_H),
    w(CURL, "curl: (56) Failure when receiving data from the peer", "all", Some(Cause::Unknown), CURL_H),
    w(CURL, "curl: (58) Problem with the local SSL certificate", "all", Some(Cause::TlsOther), CURL_H),
    w(CURL, "curl: (59) Could not use specified SSL cipher", "all", Some(Cause::TlsOther), CURL_H),
    // 7.62.0+: any failed verification of the peer (the CA, the name, the
    // dates); before, the CA only (CURLE_SSL_CACERT).
    w(CURL, "curl: (60) SSL peer certificate or SSH remote key was not OK", "7.62.0+", Some(Cause::TlsUntrustedCa), CURL_H),
    w(CURL, "curl: (60) Peer certificate cannot be authenticated with given CA certificates", "before 7.62.0", Some(Cause::TlsUntrustedCa), CURL_H),
    w(CURL, "curl: (77) Problem with the SSL CA cert (path? access rights?)", "all", Some(Cause::TlsUntrustedCa), CURL_H),
    w(CURL, "curl: (80) Failed to shut down the SSL connection", "all", Some(Cause::TlsOther), CURL_H),
    w(CURL, "curl: (82) Failed to load CRL file (path? access rights?, format?)", "all", Some(Cause::TlsOther), CURL_H),
    w(CURL, "curl: (83) Issuer check against peer certificate failed", "7.19.0+", Some(Cause::TlsUntrustedCa), CURL_H),
    w(CURL, "curl: (90) SSL public key does not match pinned public key", "7.39.0+", Some(Cause::TlsOther), CURL_H),
    w(CURL, "curl: (91) SSL server certificate status verification FAILED", "7.41.0+", Some(Cause::TlsOther), CURL_H),
    w(CURL, "curl: (97) proxy handshake error", "7.73.0+", Some(Cause::Unknown), CURL_H),
    w(CURL, "curl: (98) SSL Client Certificate required", "7.77.0+", Some(Cause::TlsOther), CURL_H),
];

/// What curl's code 60 stands for besides an untrusted CA since 7.62.0,
/// when its text does not say which: the name and the dates are verified
/// under the same code.
pub const CURL_PEER_VERIFICATION_ALSO: &[Cause] =
    &[Cause::TlsNameMismatch, Cause::TlsCertificateExpired];

/// Where Python's own hostname check names the host it was given
/// (ssl.match_hostname's `hostname 'HOST' doesn't match …`, urllib3's log
/// line `Certificate did not match expected hostname: HOST.`). Before Python
/// 3.5 that check compares an IP address with the certificate's DNS names
/// only (CPython Lib/ssl.py, match_hostname; urllib3
/// packages/ssl_match_hostname): a mismatch for an address may be the
/// client's, not the certificate's.
pub const PYTHON_CHECKED_HOST: &[&str] = &["hostname '", "expected hostname: "];

/// Texts that contain a transport failure's words and are no failure of the
/// client's connection.
#[rustfmt::skip]
pub const NOT_A_FAILURE: &[Wording] = &[
    w("client-go (kubectl wait, informers)", "timed out waiting for the condition", "all", None, "k8s.io/apimachinery wait.ErrWaitTimeout"),
    SERVER_HANDSHAKE_LOG,
    // The field, in YAML and JSON; not the query parameter every watch URL
    // carries (`…&timeoutSeconds=457&watch=true: dial tcp …`).
    w("a pod spec's probe", "timeoutSeconds:", "all", None, "a field, not an error"),
    w("a pod spec's probe", "timeoutSeconds\":", "all", None, "a field, not an error"),
    w(CURL, "continuing anyway", "all", None, "curl -k: verification failed and curl went on"),
];

/// A server's log of a client's failed handshake: the client's own error is
/// the answer.
pub const SERVER_HANDSHAKE_LOG: Wording = w(
    "kube-apiserver, the kubelet",
    "TLS handshake error from",
    "all",
    None,
    "Go src/net/http/server.go: a client aborted its handshake",
);
