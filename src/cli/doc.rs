//! `mapgrep toc FILE` and `mapgrep section FILE QUERY...`: the markdown outline and section
//! reads of the document tools, for people.

use std::io::Write;
use std::process::ExitCode;

use super::errors::CLI_WORDS;
use crate::markdown::doc::{self, Document};
use crate::markdown::render;
use crate::read::file_error_layout;
use crate::workspace::Workspace;

#[derive(Debug, clap::Args)]
pub struct TocArgs {
    /// The markdown file.
    pub path: String,
    /// Only sections this deep in the outline (1 = top level).
    #[arg(long, short = 'd', value_name = "N")]
    pub max_depth: Option<usize>,
    /// Only this section and its subsections (slug, index path, line or title).
    #[arg(long, short = 's', value_name = "QUERY")]
    pub section: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct SectionArgs {
    /// The markdown file.
    pub path: String,
    /// Sections to print: slug ("phase-b"), index path ("6.2"), line ("120") or title.
    #[arg(required = true)]
    pub queries: Vec<String>,
    /// Print only the text before each section's first subsection.
    #[arg(long)]
    pub no_children: bool,
    /// Print only the section text, without the header lines.
    #[arg(short = 'q', long)]
    pub quiet: bool,
}

/// A workspace for a person at a shell: everything their user may read.
fn open(path: &str) -> anyhow::Result<Result<(Workspace, Document, String), ExitCode>> {
    let full = std::env::current_dir()?.join(path);
    let ws = super::errors::whole_filesystem(&full)?;
    let full = full.to_string_lossy().into_owned();
    match Document::open(&ws, &full) {
        Ok(doc) => Ok(Ok((ws, doc, full))),
        Err(e) => {
            eprintln!(
                "{}",
                file_error_layout(&e, &format!("path={path:?}"), &CLI_WORDS)
            );
            Ok(Err(ExitCode::from(2)))
        }
    }
}

pub fn toc(args: TocArgs) -> anyhow::Result<ExitCode> {
    let (_ws, doc, _) = match open(&args.path)? {
        Ok(opened) => opened,
        Err(code) => return Ok(code),
    };
    let outline = doc.outline();
    let under = match &args.section {
        Some(q) => match doc::find_section(outline, q) {
            Ok((s, _)) => Some(s),
            Err(e) => {
                eprintln!(
                    "{}",
                    e.to_param_error(&format!("section={q:?}"), &CLI_WORDS)
                );
                return Ok(ExitCode::from(2));
            }
        },
        None => None,
    };
    let mut text = String::new();
    render::toc_lines(
        &mut text,
        &doc::toc(outline, under, args.max_depth),
        usize::MAX,
    );
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(if outline.is_empty() {
        eprintln!("mapgrep: {}: no headings", args.path);
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

pub fn section(args: SectionArgs) -> anyhow::Result<ExitCode> {
    let (_ws, doc, _) = match open(&args.path)? {
        Ok(opened) => opened,
        Err(code) => return Ok(code),
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut failed = false;
    for q in &args.queries {
        match doc::read_section(&doc, q, !args.no_children, usize::MAX) {
            Ok(r) if args.quiet => out.write_all(r.text.as_bytes())?,
            Ok(r) => {
                let mut text = String::new();
                render::section_block(&mut text, &args.path, &r, &CLI_WORDS);
                out.write_all(text.as_bytes())?;
            }
            Err(e) => {
                failed = true;
                out.flush()?;
                eprintln!(
                    "{}",
                    e.to_param_error(&format!("section={q:?}"), &CLI_WORDS)
                );
            }
        }
    }
    out.flush()?;
    Ok(if failed {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}
