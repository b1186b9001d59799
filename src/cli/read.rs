//! `mapgrep read`: the engine's section read, printed for people with line numbers.

use std::io::Write;
use std::process::ExitCode;

use super::errors::CLI_WORDS;
use crate::read::{self, ReadError, ReadRequest};

#[derive(Debug, clap::Args)]
pub struct ReadArgs {
    /// The file to read.
    pub path: String,
    /// Print the first N lines.
    #[arg(long, value_name = "N", conflicts_with_all = ["tail", "start"])]
    pub head: Option<i64>,
    /// Print the last N lines.
    #[arg(long, value_name = "N", conflicts_with_all = ["start"])]
    pub tail: Option<i64>,
    /// First line to print (1-indexed).
    #[arg(long, value_name = "N")]
    pub start: Option<i64>,
    /// Last line to print (inclusive).
    #[arg(long, value_name = "M", requires = "start", conflicts_with = "to_next")]
    pub end: Option<i64>,
    /// Stop before the next line (after --start) that matches REGEX.
    #[arg(long, value_name = "REGEX", requires = "start")]
    pub to_next: Option<String>,
    /// Print the lines without line numbers.
    #[arg(short = 'N', long)]
    pub no_line_numbers: bool,
}

pub fn run(args: ReadArgs) -> anyhow::Result<ExitCode> {
    // People at a shell may read whatever their user may read: the root is `/`, and relative
    // paths are taken from the current directory.
    let path = std::env::current_dir()?.join(&args.path);
    let ws = super::errors::whole_filesystem(&path)?;
    let req = ReadRequest {
        path: path.to_string_lossy().into_owned(),
        head: args.head,
        tail: args.tail,
        start_line: args.start,
        end_line: args.end,
        read_to_next_pattern: args.to_next,
        large_file_passthrough: true,
    };
    let excerpt = match read::read(&ws, &req, usize::MAX) {
        Ok(e) => e,
        Err(ReadError::Param(p)) => {
            eprintln!("{p}");
            return Ok(ExitCode::from(2));
        }
        Err(ReadError::File(e)) => {
            eprintln!("mapgrep: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let width = excerpt.last_line.max(1).to_string().len();
    for (i, line) in excerpt.text.split_inclusive('\n').enumerate() {
        if args.no_line_numbers {
            out.write_all(line.as_bytes())?;
        } else {
            write!(out, "{:>width$}  {line}", excerpt.first_line + i as u64)?;
        }
    }
    if !excerpt.text.is_empty() && !excerpt.text.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    out.flush()?;
    for note in &excerpt.notes {
        eprintln!("{}", note.text(&CLI_WORDS));
    }
    Ok(ExitCode::SUCCESS)
}
