//! The `mapgrep` binary: parse the command line, run, map errors to exit codes.

use std::process::ExitCode;

/// musl builds allocate with mimalloc: musl's own malloc serialises threads on one lock, and
/// a search's workers allocate per file (see README, "Systems"). glibc and the system
/// allocators of macOS and Windows are kept.
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
