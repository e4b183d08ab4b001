//! Test certificates, generated per test with rcgen: a CA and a server leaf for
//! `127.0.0.1` and `localhost`. A second `Pki` is a CA the client does not trust.

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// A CA and one server certificate it signed.
pub struct Pki {
    /// The CA certificate, PEM (what `--cacert` points at).
    pub ca_pem: String,
    pub ca_der: CertificateDer<'static>,
    pub leaf_der: CertificateDer<'static>,
    pub leaf_key_der: Vec<u8>,
    issuer: Issuer<'static, KeyPair>,
}

/// A client certificate (kubeadm's admin.conf style: CN = user, O = group).
pub struct ClientCert {
    pub cert_pem: String,
    pub key_pem: String,
    pub der: Vec<u8>,
}

impl Pki {
    /// A fresh CA named `name`, and a leaf for 127.0.0.1 and localhost.
    pub fn new(name: &str) -> Pki {
        Pki::custom(name, &["127.0.0.1", "localhost"], false)
    }

    /// A CA and a leaf for 127.0.0.1 and localhost whose validity starts in
    /// 2200 (a server whose clock, or whose CA's, is far ahead).
    pub fn not_yet_valid(name: &str) -> Pki {
        Pki::build(name, &["127.0.0.1", "localhost"], |leaf| {
            leaf.not_before = rcgen::date_time_ymd(2200, 1, 1);
            leaf.not_after = rcgen::date_time_ymd(2201, 1, 1);
        })
    }

    /// A CA and a leaf for `names`; `expired` makes the leaf's validity end in 2001.
    pub fn custom(name: &str, names: &[&str], expired: bool) -> Pki {
        Pki::build(name, names, |leaf| {
            if expired {
                leaf.not_before = rcgen::date_time_ymd(2000, 1, 1);
                leaf.not_after = rcgen::date_time_ymd(2001, 1, 1);
            }
        })
    }

    fn build(name: &str, names: &[&str], validity: impl FnOnce(&mut CertificateParams)) -> Pki {
        let ca_key = KeyPair::generate().expect("CA key");
        let mut ca = CertificateParams::new(Vec::<String>::new()).expect("CA params");
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.distinguished_name.push(DnType::CommonName, name);
        ca.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let ca_cert = ca.self_signed(&ca_key).expect("CA cert");
        let issuer = Issuer::new(ca, ca_key);
        let leaf_key = KeyPair::generate().expect("leaf key");
        let names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
        let mut leaf = CertificateParams::new(names).expect("leaf params");
        validity(&mut leaf);
        leaf.distinguished_name
            .push(DnType::CommonName, "kube-apiserver");
        leaf.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let leaf_cert = leaf.signed_by(&leaf_key, &issuer).expect("leaf cert");
        Pki {
            ca_pem: ca_cert.pem(),
            ca_der: ca_cert.der().clone(),
            leaf_der: leaf_cert.der().clone(),
            leaf_key_der: leaf_key.serialize_der(),
            issuer,
        }
    }

    /// A client certificate for `user` in `group`, signed by this CA.
    pub fn client(&self, user: &str, group: &str) -> ClientCert {
        let key = KeyPair::generate().expect("client key");
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("client params");
        params.distinguished_name.push(DnType::CommonName, user);
        params
            .distinguished_name
            .push(DnType::OrganizationName, group);
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        let cert = params.signed_by(&key, &self.issuer).expect("client cert");
        ClientCert {
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
            der: cert.der().to_vec(),
        }
    }

    /// The rustls server configuration presenting the leaf.
    pub fn server_config(&self) -> rustls::ServerConfig {
        let provider = std::sync::Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.leaf_key_der.clone()));
        // kube-apiserver asks for a client certificate and accepts none
        // (x509 is one authenticator of several).
        let mut roots = rustls::RootCertStore::empty();
        roots.add(self.ca_der.clone()).expect("CA root");
        let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
            std::sync::Arc::new(roots),
            provider.clone(),
        )
        .allow_unauthenticated()
        .build()
        .expect("client verifier");
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("protocol versions")
            .with_client_cert_verifier(verifier)
            .with_single_cert(vec![self.leaf_der.clone()], key)
            .expect("server cert");
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        config
    }

    /// Writes the CA to `dir/name` and returns the path.
    pub fn write_ca(&self, dir: &std::path::Path, name: &str) -> std::path::PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, &self.ca_pem).expect("write CA");
        path
    }
}
