//! `explain [CAUSE]`: the cause registry, read back to the user.

use std::io::Write;

use crate::cli::ExplainArgs;
use crate::diagnosis::Cause;
use crate::error::InputError;
use crate::exit::Outcome;
use crate::report::explain::{CauseListJson, ExplainJson, write_list, write_page};
use crate::report::write_data;
use crate::settings::Settings;

/// `explain`.
pub fn run(args: ExplainArgs, settings: &Settings, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let cause = args.cause.as_deref().map(str::parse::<Cause>);
    let cause = cause.transpose().map_err(InputError::from)?;
    match (cause, settings.format.data()) {
        (Some(c), Some(data)) => write_data(out, data, &ExplainJson::new(c))?,
        (Some(c), None) => write_page(out, c, &settings.table)?,
        (None, Some(data)) => write_data(out, data, &CauseListJson::all())?,
        (None, None) => write_list(out, &settings.table)?,
    }
    Ok(Outcome::Healthy)
}
