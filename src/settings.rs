//! Flags meet the environment: the resolved settings every subcommand runs with.

use chrono::TimeDelta;

use crate::cli::GlobalArgs;
use crate::clock::Clock;
use crate::env::Env;
use crate::report::{OutputFormat, Styles, TableStyle};

/// Width used when stdout is not a terminal and `COLUMNS` is unset.
pub const DEFAULT_WIDTH: u16 = 80;

#[derive(Debug, Clone)]
pub struct Settings {
    pub format: OutputFormat,
    pub table: TableStyle,
    pub clock: Clock,
    pub leeway: TimeDelta,
}

impl Settings {
    pub fn new(global: &GlobalArgs, env: &Env) -> Self {
        let mut styles = Styles::default();
        if should_colorize(global.no_color, env) {
            styles.colorize();
        }
        let width = env
            .terminal_width
            .or(env.columns)
            .unwrap_or(DEFAULT_WIDTH)
            .max(40);
        Settings {
            format: global.output,
            table: TableStyle {
                styles,
                width,
                local_time: global.local_time,
            },
            clock: global.now.map_or(Clock::System, Clock::Fixed),
            leeway: global.leeway,
        }
    }
}

/// Colour precedence: `--no-color`, then non-empty `NO_COLOR`, then `TERM=dumb`,
/// then whether stdout is a terminal.
pub fn should_colorize(no_color_flag: bool, env: &Env) -> bool {
    !no_color_flag && !env.no_color && !env.term_dumb && env.stdout_tty
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_only_on_a_terminal_and_when_not_refused() {
        let env = |no_color, term_dumb, stdout_tty| Env {
            no_color,
            term_dumb,
            stdout_tty,
            ..Env::default()
        };
        // (--no-color, NO_COLOR, TERM=dumb, a terminal, colour)
        for (flag, no_color, dumb, tty, want) in [
            (false, false, false, true, true),
            (true, false, false, true, false),
            (false, true, false, true, false),
            (false, false, true, true, false),
            (false, false, false, false, false),
        ] {
            let env = env(no_color, dumb, tty);
            assert_eq!(should_colorize(flag, &env), want, "{env:?}");
        }
    }
}
