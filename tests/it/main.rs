//! The integration tests: one binary (one link of tokio, hyper and jsonschema
//! instead of one per file). Each module runs the built `kubectl-satoken`
//! (through [`support::satoken`]) or calls the library directly.

mod support;

mod audit;
mod classify;
mod classify_log;
mod clients;
mod confidence_guard;
mod decode;
mod diagnosis;
mod docs;
mod docs_examples;
mod docs_excerpts;
mod doctor;
mod features;
mod help;
mod hostile;
mod hostile_server;
mod krew;
mod kubectl_plugin;
mod man;
mod platforms;
mod probe;
mod probe_anonymous;
mod probe_cluster;
mod probe_kubectl;
mod props;
mod redaction;
mod schema;
mod secrets;
mod seeds;
mod skew;
mod skew_server;
mod snapshots;
mod static_chroot;
mod steps;
mod terminal;
mod verify;
mod verify_url;
mod vocabulary;
mod watch;
mod watch_prometheus;
mod wild;
mod yaml;
