//! What one segment of a line gave the [`Scanner`](super::Scanner) before it
//! becomes artefacts: each extractor's hit with its provenance.

use crate::diagnosis::artefact::{Kind, Provenance, Review, SourceType};
use crate::diagnosis::facts::{CheckerCall, CheckerFailure, ServerFailure, TransportFailure};
use crate::diagnosis::facts::{HttpAnswer, ServerClock};
use crate::diagnosis::reasons::AuthReason;
use crate::vocabulary::cause::Cause;

/// A found value and where it came from.
#[derive(Debug)]
pub(super) struct Hit<T> {
    pub(super) value: T,
    pub(super) origin: Origin,
}

/// Who said an artefact, the evidence type it counts as, and its format.
pub(super) type Origin = (Provenance, SourceType, &'static str);

/// What one segment gave, before it becomes artefacts.
#[derive(Debug, Default)]
pub(super) struct Segment {
    pub(super) number: usize,
    pub(super) stamp: Option<ServerClock>,
    pub(super) boundary: bool,
    pub(super) http: Option<Hit<HttpAnswer>>,
    pub(super) reasons: Option<Hit<(Vec<AuthReason>, Option<String>)>>,
    pub(super) transport: Option<Hit<TransportFailure>>,
    pub(super) checker: Option<CheckerFailure>,
    pub(super) review: Option<Hit<Review>>,
    /// A part of the server's own setup that failed.
    pub(super) server: Option<ServerFailure>,
    pub(super) audits: Vec<(
        Box<crate::diagnosis::facts::Case<'static>>,
        Option<ServerClock>,
        String,
    )>,
    pub(super) context: Vec<Kind>,
}

impl Segment {
    pub(super) fn new(number: usize, stamp: Option<ServerClock>) -> Self {
        Segment {
            number,
            stamp,
            ..Segment::default()
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.http.is_none()
            && self.reasons.is_none()
            && self.transport.is_none()
            && self.checker.is_none()
            && self.review.is_none()
            && self.server.is_none()
            && self.audits.is_empty()
            && self
                .context
                .iter()
                .all(|k| matches!(k, Kind::Missing { .. }))
    }

    /// Another view of the segment's HTTP answer: merged, the strongest
    /// artefact naming the format.
    pub(super) fn http(&mut self, facts: HttpAnswer, source: SourceType, format: &'static str) {
        let origin = (Provenance::Answer, source, format);
        match &mut self.http {
            Some(hit) => {
                if facts.weight > hit.value.weight {
                    hit.origin = origin;
                }
                hit.value.absorb(facts);
            }
            None => {
                self.http = Some(Hit {
                    value: facts,
                    origin,
                })
            }
        }
    }

    /// The segment is a line of a client's request log: its answer is a
    /// request the client made on its way, not its verdict.
    pub(super) fn request_log(&mut self) {
        if let Some(hit) = self.http.as_mut().filter(|h| h.origin.2 != "kubectl -v") {
            hit.origin.2 = "client-go -v";
        }
    }

    pub(super) fn reasons(
        &mut self,
        reasons: Vec<AuthReason>,
        from: Option<String>,
        origin: Origin,
    ) {
        if self.reasons.is_none() && !reasons.is_empty() {
            let value = (reasons, from);
            self.reasons = Some(Hit { value, origin });
        }
    }

    /// A transport failure: its cause and the others its words fit.
    pub(super) fn transport(
        &mut self,
        (cause, also): (Cause, Vec<Cause>),
        detail: String,
        source: SourceType,
        format: &'static str,
    ) {
        if self.transport.is_none() {
            let endpoint = crate::vocabulary::clouds::credential_endpoint_in(&detail);
            let value = TransportFailure {
                cause,
                detail,
                also,
                endpoint,
            };
            let origin = (Provenance::Answer, source, format);
            self.transport = Some(Hit { value, origin });
        }
    }

    /// A checker's own call failed, as `call` says; `certain` unless the
    /// words fit another reading.
    pub(super) fn checker_failed(
        &mut self,
        checker: Option<&'static str>,
        detail: String,
        call: CheckerCall,
        certain: bool,
    ) {
        self.checker.get_or_insert(CheckerFailure {
            call,
            checker,
            detail,
            certain,
        });
    }
}
