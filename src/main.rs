//! The `mapgrep` binary: parse the command line, run, map errors to exit codes.

use std::process::ExitCode;

fn main() -> ExitCode {
    match mapgrep::cli::run() {
        Ok(code) => code,
        Err(err) => {
            // A closed pipe (`mapgrep read big.log | head`) is a normal way to stop.
            for cause in err.chain() {
                if let Some(io) = cause.downcast_ref::<std::io::Error>()
                    && io.kind() == std::io::ErrorKind::BrokenPipe
                {
                    return ExitCode::SUCCESS;
                }
            }
            eprintln!("mapgrep: {err:#}");
            ExitCode::from(2)
        }
    }
}
