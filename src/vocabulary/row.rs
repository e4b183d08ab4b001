//! One row of the vocabulary: a wording, who prints it, in which versions,
//! the cause it names and where it comes from. Every table's rows are of this
//! kind, so detection and `explain` read them alike.

pub use super::cause::Cause;

/// One wording a program prints, and the cause it names (in `explain
/// --wordings -o json`, one row of a table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[schemars(rename = "ListedWording")]
pub struct Wording {
    /// Who prints it, as people name it (`kube-apiserver`, `the kubelet`,
    /// `Go crypto/x509`, `curl`, `AWS STS`…).
    #[serde(rename = "said_by")]
    pub printed_by: &'static str,
    /// The words, as printed; UPPERCASE placeholders (or `…`) where values go.
    pub text: &'static str,
    /// The versions that print it (`all` when it never changed).
    pub versions: &'static str,
    /// The cause it names (`explain CAUSE`); none when it names no failure
    /// by itself.
    pub cause: Option<Cause>,
    /// Where the words come from (a source file, an API reference).
    pub source: &'static str,
}

pub(crate) const fn w(
    printed_by: &'static str,
    text: &'static str,
    versions: &'static str,
    cause: Option<Cause>,
    source: &'static str,
) -> Wording {
    Wording {
        printed_by,
        text,
        versions,
        cause,
        source,
    }
}
