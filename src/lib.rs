//! kubectl-satoken: why is this ServiceAccount token rejected?
//!
//! One pipeline for every subcommand, with I/O only at the ends:
//!
//! ```text
//! argv -> cli::Cli ─┐
//! env::Env::capture ┴-> settings::Settings {format, styles, clock, leeway}   edge
//! read     input::TokenSource::open + input::read_tokens -> ShapedToken      I/O
//! parse    token::parse(&SecretToken) -> Token                               pure
//! analyse  decode::analyse(token, now, leeway) -> DecodeReport               pure
//! render   report::{table, json}                                             pure over Write
//! exit     exit::Outcome -> 0 | 1 | 2 | 3                                    main.rs
//! ```
//!
//! Analysis takes `now` and the leeway as parameters; only `clock.rs` reads the
//! system clock. Rendering never decides; analysis never prints.

pub mod app;
pub mod audit;
pub mod authconfig;
pub mod classify;
pub mod cli;
pub mod clock;
pub mod complete;
pub mod decode;
pub mod diagnosis;
pub mod doctor;
pub mod env;
pub mod error;
pub mod exit;
pub mod findings;
#[doc(hidden)]
pub mod fuzzing;
pub mod http;
pub mod input;
pub mod kubeconfig;
pub mod logs;
pub mod probe;
pub mod redact;
pub mod report;
pub mod sanitize;
pub mod secret;
pub mod settings;
pub mod skew;
pub mod timefmt;
pub mod token;
pub mod verify;
pub mod vocabulary;
pub mod watch;
pub mod window;
pub mod wire;
