//! `mapgrep outline FILE` and `mapgrep symbol FILE NAME...`: the skeleton and symbol reads
//! of `file_read`, for people.

use std::io::Write;
use std::process::ExitCode;

use super::errors::CLI_WORDS;
use crate::code::answer::answer;
use crate::code::{CodeFile, ReadQuery};
use crate::read::file_error_layout;

#[derive(Debug, clap::Args)]
pub struct OutlineArgs {
    /// The code file (TypeScript, JavaScript, Rust, Python, Go, C, C++, Java, C#, Kotlin, Ruby,
    /// PHP, Swift, Scala, Bash).
    pub path: String,
}

#[derive(Debug, clap::Args)]
pub struct SymbolArgs {
    /// The code file.
    pub path: String,
    /// Symbols to print: a name ("initializeApp") or qualified name ("App.start").
    #[arg(required = true)]
    pub names: Vec<String>,
    /// Print members in full instead of collapsing them to stubs.
    #[arg(long, short = 'r')]
    pub recursive: bool,
}

pub fn outline(args: OutlineArgs) -> anyhow::Result<ExitCode> {
    let query = ReadQuery {
        skeleton: true,
        ..ReadQuery::default()
    };
    run(&args.path, &query, &format!("path={:?}", args.path))
}

pub fn symbol(args: SymbolArgs) -> anyhow::Result<ExitCode> {
    let provided = format!("path={:?}, names={:?}", args.path, args.names);
    let query = ReadQuery {
        targets: args.names,
        recursive: args.recursive,
        ..ReadQuery::default()
    };
    run(&args.path, &query, &provided)
}

/// A workspace for a person at a shell (everything their user may read), one answer.
fn run(path: &str, query: &ReadQuery, provided: &str) -> anyhow::Result<ExitCode> {
    let full = std::env::current_dir()?.join(path);
    let ws = super::errors::whole_filesystem(&full)?;
    let file = match CodeFile::open(&ws, &full.to_string_lossy()) {
        Ok(file) => file,
        Err(e) => {
            eprintln!("{}", file_error_layout(&e, provided, &CLI_WORDS));
            return Ok(ExitCode::from(2));
        }
    };
    let shown = crate::quote::name(path);
    match answer(&file, &shown, query, provided, usize::MAX, &CLI_WORDS) {
        Ok(a) => {
            std::io::stdout().lock().write_all(a.text.as_bytes())?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("{e}");
            Ok(ExitCode::from(2))
        }
    }
}
