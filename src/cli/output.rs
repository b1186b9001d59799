//! The command line's output stream: each file's rendered output written as it comes, in path
//! order, with ripgrep's separators between files, up to `--max-results` selected lines in
//! all; totals kept for `--stats` and the JSON summary. It is the sink of the engine's
//! ordered visit ([`crate::grep::visit_in_order`]): a write that fails (a closed pipe) stops
//! the search at once.

use std::io::Write;
use std::process::ExitCode;

use super::printer::{FileOut, Printer, Stats};
use crate::grep::{self, Flow, GrepQuery, Progress, Sink};
use crate::workspace::Workspace;

/// Writes files' outputs in order and keeps the totals.
pub struct Output<'a, W: Write> {
    printer: &'a Printer<'a>,
    out: W,
    /// `--max-results`, and how many selected lines it still lets through.
    cap: Option<u64>,
    left: u64,
    first: bool,
    total: Stats,
    /// Every file's selected lines, printed or not (for the exit code).
    selected: u64,
    /// Standard input's output, held until the files given before its `-` are written.
    stdin: Option<FileOut>,
    /// The first write that failed.
    failed: Option<std::io::Error>,
}

impl<'a, W: Write> Output<'a, W> {
    pub fn new(printer: &'a Printer<'a>, out: W, cap: Option<u64>) -> Output<'a, W> {
        Output {
            printer,
            out,
            cap,
            left: cap.unwrap_or(u64::MAX),
            first: true,
            total: Stats::default(),
            selected: 0,
            stdin: None,
            failed: None,
        }
    }

    /// Holds standard input's output until the first file that comes after it.
    pub fn hold_stdin(&mut self, f: FileOut) {
        self.stdin = Some(f);
    }

    /// Writes what is left (standard input's output, if no file came after it) and flushes;
    /// returns the totals (matched lines: those printed under a cap, else all of them), the
    /// writer and the first write error.
    pub fn finish(mut self) -> (Stats, W, Option<std::io::Error>) {
        if let Some(f) = self.stdin.take()
            && self.failed.is_none()
        {
            self.push(f);
        }
        if self.failed.is_none()
            && let Err(e) = self.out.flush()
        {
            self.failed = Some(e);
        }
        let mut total = self.total;
        if self.cap.is_none() {
            total.matched_lines = self.selected;
        }
        (total, self.out, self.failed)
    }

    /// Writes one file's output; `Stop` once the cap is reached or a write failed.
    pub fn push(&mut self, f: FileOut) -> Flow {
        if let Some(held) = self.stdin.take_if(|s| s.order < f.order)
            && self.checked(held) == Flow::Stop
        {
            return Flow::Stop;
        }
        self.checked(f)
    }

    /// Writes one file's output, keeping a failed write's error.
    fn checked(&mut self, f: FileOut) -> Flow {
        match self.write(f) {
            Ok(flow) => flow,
            Err(e) => {
                self.failed = Some(e);
                Flow::Stop
            }
        }
    }

    fn write(&mut self, f: FileOut) -> std::io::Result<Flow> {
        let p = self.printer;
        self.total.matches += f.stats.matches;
        self.total.bytes_searched += f.stats.bytes_searched;
        self.total.files_with_match += f.stats.files_with_match;
        self.selected += f.stats.matched_lines;
        if f.out.is_empty() {
            return Ok(Flow::Continue);
        }
        if self.left == 0 {
            if let Some(&(line, _)) = f.selected.first() {
                self.stopped_at(&f.name, line);
            }
            return Ok(Flow::Stop);
        }
        if !self.first && !p.json && !p.counting() {
            let sep: &[u8] = if p.heading {
                b"\n"
            } else if p.context() {
                b"--\n"
            } else {
                b""
            };
            self.out.write_all(sep)?;
            self.total.bytes_printed += sep.len() as u64;
        }
        self.first = false;
        let mut text = &f.out[..];
        let mut lines = f.stats.matched_lines;
        let cut = !p.json && !p.counting() && lines > self.left;
        if cut {
            let kept = self.left as usize;
            text = &f.out[..f.selected[kept - 1].1];
            lines = self.left;
        }
        self.out.write_all(text)?;
        if p.json {
            p.json_end(&mut self.out, &f)?;
        }
        self.left = self.left.saturating_sub(lines);
        self.total.matched_lines += lines;
        self.total.bytes_printed += text.len() as u64;
        self.total.files_printed += f.stats.files_printed;
        if cut {
            let (next, _) = f.selected[lines as usize];
            self.stopped_at(&f.name, next);
            return Ok(Flow::Stop);
        }
        Ok(Flow::Continue)
    }

    /// The note of a cut by `--max-results`: where the next selected line is.
    fn stopped_at(&self, name: &str, line: u64) {
        eprintln!(
            "mapgrep: stopped at {} matching lines; the next is {}:{line}",
            self.total.matched_lines,
            crate::quote::name(name)
        );
    }
}

impl<W: Write> Sink<FileOut> for Output<'_, W> {
    fn file(&mut self, f: FileOut) -> Flow {
        self.push(f)
    }

    /// Nothing is ready: what is buffered goes out (a pipe's reader sees results as they
    /// are found, not when a buffer fills).
    fn idle(&mut self) -> Flow {
        match self.out.flush() {
            Ok(()) => Flow::Continue,
            Err(e) => {
                self.failed = Some(e);
                Flow::Stop
            }
        }
    }
}

/// Collects the outputs, for an order that needs them all (`--sort` by a time, `--sortr`).
#[derive(Default)]
pub struct Collect(pub Vec<FileOut>);

impl Sink<FileOut> for Collect {
    fn file(&mut self, f: FileOut) -> Flow {
        self.0.push(f);
        Flow::Continue
    }
}

/// `--files`: the files a search would read, in path order, written as they are found.
pub fn list_files(ws: &Workspace, q: &GrepQuery, reverse: bool) -> anyhow::Result<ExitCode> {
    /// Writes each name as it comes (or keeps them all for `--sortr`).
    struct Names<W: Write> {
        out: W,
        keep: Option<Vec<String>>,
        any: bool,
        failed: Option<std::io::Error>,
    }
    impl<W: Write> grep::Sink<String> for Names<W> {
        fn file(&mut self, name: String) -> Flow {
            self.any = true;
            if let Some(all) = &mut self.keep {
                all.push(name);
                return Flow::Continue;
            }
            match writeln!(self.out, "{}", crate::quote::name(&name)) {
                Ok(()) => Flow::Continue,
                Err(e) => {
                    self.failed = Some(e);
                    Flow::Stop
                }
            }
        }
    }
    let stdout = std::io::stdout();
    let mut names = Names {
        out: std::io::BufWriter::new(stdout.lock()),
        keep: reverse.then(Vec::new),
        any: false,
        failed: None,
    };
    let visited = match grep::visit_in_order(
        ws,
        q,
        &Progress::default(),
        grep::Reading::Names,
        &|f| f.name(),
        &mut names,
    ) {
        Ok(v) => v,
        Err(e) => return Ok(super::errors::error_exit(&e)),
    };
    if let Some(all) = names.keep.take() {
        for n in all.iter().rev() {
            writeln!(names.out, "{}", crate::quote::name(n))?;
        }
    }
    match names.failed.take().map_or_else(|| names.out.flush(), Err) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e.into()),
        _ => {}
    }
    for e in &visited.errors {
        eprintln!("mapgrep: {}", crate::quote::line(e));
    }
    Ok(if !visited.errors.is_empty() {
        ExitCode::from(2)
    } else if !names.any {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
