//! Extractors: from what programs print (and from satoken's own typed
//! observations) to the typed evidence the rules read. Each knows the
//! wordings of one kind of artefact, in every version, and nothing else.

pub mod transport;
