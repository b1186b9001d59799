//! `mapgrep grep`: ripgrep's flags with ripgrep's meaning, its text and JSON Lines output, plus
//! mapgrep's section hints and enclosing symbols (`--hints`). The engine walks (same ignore
//! rules, globs, types and binary rule as the server) and hands each file's bytes over; the
//! matching and printing are [`super::printer`]'s.

use std::io::{IsTerminal, Read, Write};
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use clap::ValueEnum;

use super::output::{Collect, Output};
use super::printer::{FileOut, Printer, Stats};
use crate::annotate::Hinter;
use crate::grep::{self, Bound, Flow, GrepError, GrepQuery, Progress, Selector, VisitedFile};
use crate::index::Span;
use crate::roots::Roots;
use crate::source::FileId;
use crate::workspace::Workspace;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Never,
    Auto,
    Always,
    Ansi,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SortBy {
    Path,
    Modified,
    Accessed,
    Created,
    None,
}

#[derive(Debug, clap::Args)]
pub struct GrepArgs {
    /// The regex to search for (Rust regex syntax); with -e, the first path.
    pub pattern: Option<String>,
    /// Files or directories to search (default: standard input when it is a pipe or a file,
    /// else the current directory); `-` is standard input.
    pub paths: Vec<String>,
    /// A pattern to search for (repeatable; a line matching any of them matches).
    #[arg(
        short = 'e',
        long = "regexp",
        value_name = "PATTERN",
        allow_hyphen_values = true
    )]
    pub regexps: Vec<String>,
    /// Show line numbers (the default on a terminal).
    #[arg(short = 'n', long = "line-number", overrides_with = "no_line_number")]
    pub line_number: bool,
    /// Hide line numbers.
    #[arg(short = 'N', long)]
    pub no_line_number: bool,
    /// Case-insensitive search.
    #[arg(short = 'i', long, overrides_with_all = ["case_sensitive", "smart_case"])]
    pub ignore_case: bool,
    /// Case-sensitive search (the default).
    #[arg(short = 's', long, overrides_with_all = ["ignore_case", "smart_case"])]
    pub case_sensitive: bool,
    /// Case-insensitive if the patterns are all lowercase, sensitive otherwise.
    #[arg(short = 'S', long, overrides_with_all = ["ignore_case", "case_sensitive"])]
    pub smart_case: bool,
    /// Only whole-word matches.
    #[arg(short = 'w', long)]
    pub word_regexp: bool,
    /// Only matches that are a whole line.
    #[arg(short = 'x', long)]
    pub line_regexp: bool,
    /// Treat the patterns as literal strings.
    #[arg(short = 'F', long)]
    pub fixed_strings: bool,
    /// Select the lines that do not match.
    #[arg(short = 'v', long)]
    pub invert_match: bool,
    /// Print only the matched parts of a line, one per line.
    #[arg(short = 'o', long)]
    pub only_matching: bool,
    /// Print the number of matching lines per file.
    #[arg(short = 'c', long)]
    pub count: bool,
    /// Print the number of matches per file.
    #[arg(long)]
    pub count_matches: bool,
    /// Print only the paths of files with a match.
    #[arg(short = 'l', long)]
    pub files_with_matches: bool,
    /// Print only the paths of files without a match.
    #[arg(long)]
    pub files_without_match: bool,
    /// Follow symbolic links while walking directories.
    #[arg(short = 'L', long)]
    pub follow: bool,
    /// Print nothing; exit 0 at the first match.
    #[arg(short = 'q', long)]
    pub quiet: bool,
    /// Stop after N matching lines in each file.
    #[arg(short = 'm', long = "max-count", value_name = "N")]
    pub max_count: Option<u64>,
    /// Stop after N matching lines in all (mapgrep's total cap; the output says where the
    /// next match is).
    #[arg(long = "max-results", value_name = "N")]
    pub max_results: Option<u64>,
    /// Print the path with every line (the default when searching more than one file).
    #[arg(short = 'H', long, overrides_with = "no_filename")]
    pub with_filename: bool,
    /// Never print the path.
    #[arg(short = 'I', long, overrides_with = "with_filename")]
    pub no_filename: bool,
    /// Print the path above each file's matches (the default on a terminal).
    #[arg(long, overrides_with = "no_heading")]
    pub heading: bool,
    /// Print the path on each line.
    #[arg(long, overrides_with = "heading")]
    pub no_heading: bool,
    /// When to colour the output (auto: on a terminal, unless NO_COLOR is set).
    #[arg(long, value_enum, value_name = "WHEN", default_value = "auto")]
    pub color: ColorChoice,
    /// Lines of context before and after each match.
    #[arg(short = 'C', long, value_name = "N")]
    pub context: Option<usize>,
    /// Lines of context after each match.
    #[arg(short = 'A', long, value_name = "N")]
    pub after_context: Option<usize>,
    /// Lines of context before each match.
    #[arg(short = 'B', long, value_name = "N")]
    pub before_context: Option<usize>,
    /// Include or exclude files (`!` excludes), as ripgrep's -g.
    #[arg(
        short = 'g',
        long = "glob",
        value_name = "GLOB",
        allow_hyphen_values = true
    )]
    pub globs: Vec<String>,
    /// Only files of this type (rust, py, js, md…; repeatable).
    #[arg(short = 't', long = "type", value_name = "TYPE")]
    pub types: Vec<String>,
    /// No files of this type (repeatable).
    #[arg(short = 'T', long = "type-not", value_name = "TYPE")]
    pub types_not: Vec<String>,
    /// Search hidden files and directories.
    #[arg(short = '.', long = "hidden")]
    pub hidden: bool,
    /// Do not honour .gitignore/.ignore files.
    #[arg(long = "no-ignore")]
    pub no_ignore: bool,
    /// Fewer filters: -u is --no-ignore, -uu adds --hidden (-uuu also searches binary files
    /// in ripgrep; here binary files are always skipped).
    #[arg(short = 'u', long = "unrestricted", action = clap::ArgAction::Count)]
    pub unrestricted: u8,
    /// Print the files that would be searched, and search nothing.
    #[arg(long)]
    pub files: bool,
    /// Sort the output by path (the default: output is always in path order), or by a time.
    #[arg(long, value_enum, value_name = "SORTBY")]
    pub sort: Option<SortBy>,
    /// Sort in reverse.
    #[arg(long, value_enum, value_name = "SORTBY")]
    pub sortr: Option<SortBy>,
    /// Print statistics after the results.
    #[arg(long)]
    pub stats: bool,
    /// Let matches span lines (the pattern may match `\n`).
    #[arg(short = 'U', long)]
    pub multiline: bool,
    /// Treat `\r\n` as a line terminator (`$` matches before the `\r`), as the server does.
    #[arg(long)]
    pub crlf: bool,
    /// Search inside compressed files (gzip, bzip2, xz, zstd, lz4, brotli) with their tools.
    #[arg(short = 'z', long = "search-zip")]
    pub search_zip: bool,
    /// One line per match: path:line:column:text.
    #[arg(long)]
    pub vimgrep: bool,
    /// Omit lines longer than N bytes.
    #[arg(short = 'M', long, value_name = "N")]
    pub max_columns: Option<usize>,
    /// Skip files larger than this many bytes.
    #[arg(long, value_name = "BYTES")]
    pub max_filesize: Option<u64>,
    /// Show each hit's section (where it starts and ends) and enclosing symbol.
    #[arg(long)]
    pub hints: bool,
    /// ripgrep's JSON Lines output (begin, match, context, end, summary).
    #[arg(long)]
    pub json: bool,
    /// Worker threads (default: one per core).
    #[arg(short = 'j', long, value_name = "N")]
    pub threads: Option<usize>,
}

impl GrepArgs {
    /// The patterns, and the paths (a positional pattern is a path when -e is given).
    fn split(&self) -> (Vec<String>, Vec<String>) {
        let mut paths = self.paths.clone();
        if self.files {
            if let Some(p) = &self.pattern {
                paths.insert(0, p.clone());
            }
            return (Vec::new(), paths);
        }
        if self.regexps.is_empty() {
            (self.pattern.iter().cloned().collect(), paths)
        } else {
            if let Some(p) = &self.pattern {
                paths.insert(0, p.clone());
            }
            (self.regexps.clone(), paths)
        }
    }

    fn case_insensitive(&self, patterns: &[String]) -> bool {
        if self.ignore_case {
            return true;
        }
        if self.smart_case && !self.case_sensitive {
            return !patterns.iter().any(|p| p.chars().any(char::is_uppercase));
        }
        false
    }
}

/// The engine query for the walk (and, with `--hints`, the engine's own search).
fn query(args: &GrepArgs, pattern: &str, paths: &[String], ci: bool) -> GrepQuery {
    GrepQuery {
        pattern: pattern.to_string(),
        relative_to_root: paths.is_empty(),
        search_paths: paths.to_vec(),
        case_insensitive: ci,
        fixed_strings: false,
        word: false,
        before_context: 0,
        after_context: 0,
        section_patterns: if args.hints { None } else { Some(Vec::new()) },
        globs: args.globs.clone(),
        include_ignored: args.no_ignore || args.unrestricted >= 1,
        include_hidden: args.hidden || args.unrestricted >= 2,
        max_filesize: args.max_filesize,
        max_results: u32::MAX as usize,
        max_result_bytes: None,
        cursor: None,
        threads: args.threads,
        types: args.types.clone(),
        types_not: args.types_not.clone(),
        follow_links: args.follow,
        use_index: !args.invert_match && !args.files_without_match && !args.multiline,
        // The command line prints its own modes from the walk.
        output: crate::grep::OutputMode::Content,
    }
}

/// The single regex the patterns make: escaped (-F), bounded (-w, -x), joined by `|`.
fn combined(args: &GrepArgs, patterns: &[String]) -> String {
    let bound = if args.line_regexp {
        Bound::Line
    } else if args.word_regexp {
        Bound::Word
    } else {
        Bound::Anywhere
    };
    grep::patterns_regex(patterns, args.fixed_strings, bound)
}

pub fn run(args: GrepArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let (patterns, mut paths) = args.split();
    if patterns.is_empty() && !args.files {
        eprintln!("mapgrep: no pattern given (give PATTERN, or -e PATTERN)");
        return Ok(ExitCode::from(2));
    }
    let stdin_at = paths.iter().position(|p| p == "-");
    let use_stdin = stdin_at.is_some()
        || (paths.is_empty() && crate::platform::stdin_has_input() && !args.files);
    paths.retain(|p| p != "-");
    let cwd = std::env::current_dir()?;
    // People at a shell search whatever their user may read: relative paths resolve against
    // the current directory, and `/` is a root too.
    let ws = super::errors::workspace(Roots::new([cwd.as_path(), std::path::Path::new("/")])?);
    let ci = args.case_insensitive(&patterns);
    let regex = combined(&args, &patterns);
    let q = query(&args, &regex, &paths, ci);
    if q.use_index && !args.files {
        super::index::use_persisted(&ws, &paths);
    }
    if args.files {
        return super::output::list_files(&ws, &q, args.sortr.is_some());
    }
    let matcher = match Selector::new(&ws, &q, &regex, ci, args.multiline, args.crlf) {
        Ok(m) => m,
        Err(e) => return Ok(super::errors::error_exit(&e)),
    };
    let hinter = match args.hints.then(|| Hinter::new(&ws, &q)).transpose() {
        Ok(h) => h,
        Err(e) => return Ok(super::errors::error_exit(&e)),
    };
    let single = use_stdin && paths.is_empty()
        || paths.len() == 1 && std::path::Path::new(&paths[0]).is_file() && !use_stdin;
    let printer = printer(&args, &matcher, single, hinter.as_ref().map(|h| (&ws, h)));
    let search = Search {
        ws: &ws,
        q: &q,
        args: &args,
        printer: &printer,
        stdin_at,
        use_stdin,
        walk: !paths.is_empty() || !use_stdin,
        started,
    };
    let (total, visited) = match search.run()? {
        Ok(done) => done,
        Err(e) => return Ok(super::errors::error_exit(&e)),
    };
    if let Some(n) = hinter.as_ref().map(Hinter::left_out).filter(|&n| n > 0) {
        eprintln!(
            "mapgrep: {n} hits printed without their enclosing symbol: their files could not be parsed within {} s (mapgrep outline FILE gives a file's symbols)",
            crate::annotate::CLI_HINT_BUDGET.as_secs()
        );
    }
    Ok(finish(&args, &total, &visited, started))
}

/// How to print, from the flags and whether the output is a terminal.
fn printer<'a>(
    args: &GrepArgs,
    matcher: &'a Selector,
    single: bool,
    hints: Option<(&'a Workspace, &'a Hinter)>,
) -> Printer<'a> {
    let tty = std::io::stdout().is_terminal();
    let color = match args.color {
        ColorChoice::Always | ColorChoice::Ansi => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    };
    Printer {
        matcher,
        invert: args.invert_match,
        only_matching: args.only_matching,
        count: args.count,
        count_matches: args.count_matches,
        files_with_matches: args.files_with_matches,
        files_without_match: args.files_without_match,
        quiet: args.quiet,
        max_count: args.max_count,
        before: args.before_context.or(args.context).unwrap_or(0),
        after: args.after_context.or(args.context).unwrap_or(0),
        line_numbers: args.line_number
            || args.vimgrep
            || (!args.no_line_number && tty && !args.count && !args.count_matches),
        with_filename: (args.with_filename || !single || args.vimgrep) && !args.no_filename,
        heading: (args.heading || (tty && !args.no_heading)) && !args.vimgrep,
        color,
        vimgrep: args.vimgrep,
        max_columns: args.max_columns,
        json: args.json,
        hints,
    }
}

/// The output buffer's size.
const OUTPUT_BUFFER: usize = 8 * 1024;

/// One search: the walk's files and standard input rendered by the printer, and written in
/// order as they come (or, for an order by file time, all at the end).
struct Search<'a> {
    ws: &'a Workspace,
    q: &'a GrepQuery,
    args: &'a GrepArgs,
    printer: &'a Printer<'a>,
    stdin_at: Option<usize>,
    use_stdin: bool,
    /// The paths are searched (else standard input alone).
    walk: bool,
    started: Instant,
}

/// The totals and what the walk went through; a path or query error; a failed write.
type Searched = std::io::Result<Result<(Stats, grep::Visited), GrepError>>;

impl Search<'_> {
    fn run(&self) -> Searched {
        let progress = Progress::default();
        let stdout = std::io::stdout();
        // A small buffer, as ripgrep's: a pipe's reader has the first lines as soon as a few
        // kilobytes are found, and learns of a closed pipe as soon.
        let buffered = std::io::BufWriter::with_capacity(OUTPUT_BUFFER, stdout.lock());
        let mut output = Output::new(self.printer, buffered, self.args.max_results);
        let mut visited = grep::Visited::default();
        if self.use_stdin {
            let mut bytes = Vec::new();
            std::io::stdin().lock().read_to_end(&mut bytes)?;
            visited.files += 1;
            // Standard input prints at its `-` among the paths given.
            let order = self.stdin_at.unwrap_or(0);
            let stdin: (&dyn Fn() -> String, &[u8]) = (&|| "<stdin>".to_string(), &bytes);
            output.hold_stdin(self.render(&progress, order, stdin, None));
        }
        // Files print in the order of the paths given (standard input at its `-`).
        let order = |given: usize| match self.stdin_at {
            Some(at) if given >= at => given + 1,
            _ => given,
        };
        let render = |f: VisitedFile<'_>| {
            let at = f.id.map(|id| (f.path(), id, f.spans));
            self.render(&progress, order(f.given), (&|| f.name(), f.bytes), at)
        };
        if self.walk {
            match self.walk(&progress, &render, &mut output) {
                Ok(v) => visited.add(v),
                Err(e) => return Ok(Err(e)),
            }
        }
        let (total, mut out, mut failed) = output.finish();
        if self.args.json && failed.is_none() {
            let searched = visited.files + visited.binary_skipped;
            // A reader gone by the closing summary ends the output quietly, as before it.
            failed = self
                .printer
                .summary(&mut out, &total, searched, self.started)
                .and_then(|()| out.flush())
                .err();
        }
        if failed.is_some() {
            // Nobody reads what is still buffered: dropped, not written again.
            drop(out.into_parts());
        }
        match failed {
            Some(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e),
            _ => {}
        }
        if let Some(u) = &visited.index {
            eprintln!(
                "mapgrep: used the trigram index: read {} of {} indexed files{}",
                u.searched,
                u.in_scope,
                if u.validated {
                    " (validated by metadata)"
                } else {
                    " (kept fresh by a server watching the root)"
                }
            );
        }
        Ok(Ok((total, visited)))
    }

    /// The paths' files rendered and pushed to `output`: in the walk's order as they come,
    /// or all at the end for an order by file time.
    fn walk<W: Write>(
        &self,
        progress: &Progress,
        render: &(dyn Fn(VisitedFile<'_>) -> FileOut + Sync),
        output: &mut Output<'_, W>,
    ) -> Result<grep::Visited, GrepError> {
        let by = self.args.sort.or(self.args.sortr);
        let needs_all = self.args.sortr.is_some()
            || matches!(
                by,
                Some(SortBy::Modified | SortBy::Accessed | SortBy::Created)
            );
        // Hints need the bytes' identity: their symbols are kept per file version.
        let reading = if self.printer.hints.is_some() {
            grep::Reading::Identified
        } else {
            grep::Reading::Bytes
        };
        if !needs_all {
            return grep::visit_in_order(self.ws, self.q, progress, reading, render, output);
        }
        let mut all = Collect::default();
        let v = grep::visit_in_order(self.ws, self.q, progress, reading, render, &mut all);
        sort(&mut all.0, by, self.args.sortr.is_some());
        for f in all.0 {
            if output.push(f) == Flow::Stop {
                break;
            }
        }
        v
    }

    /// Renders one file (decompressed with -z), at `order` among the paths given; `name` makes
    /// its display name when the output needs it. With -q, the first match ends the search.
    fn render(
        &self,
        progress: &Progress,
        order: usize,
        (name, bytes): (&dyn Fn() -> String, &[u8]),
        at: Option<(&Path, FileId, Option<&[Span]>)>,
    ) -> FileOut {
        let decompressed;
        let known;
        let (name, bytes): (&dyn Fn() -> String, _) = if self.args.search_zip {
            // The name says whether the file is compressed.
            let n = name();
            let bytes = match super::zip::decompress(&n, bytes) {
                Some(d) => {
                    decompressed = d;
                    &decompressed[..]
                }
                None => bytes,
            };
            known = move || n.clone();
            (&known, bytes)
        } else {
            (name, bytes)
        };
        // Decompressed bytes are not the file's: no identity for the hints, no spans.
        let at = at.filter(|_| !self.args.search_zip);
        let out = self.printer.file(order, (name, bytes), at);
        if self.args.quiet && out.stats.matched_lines > 0 {
            progress.cancel();
        }
        out
    }
}

/// After the output: the errors, `--stats`, and the exit code.
fn finish(args: &GrepArgs, total: &Stats, visited: &grep::Visited, started: Instant) -> ExitCode {
    for e in &visited.errors {
        eprintln!("mapgrep: {}", crate::quote::line(e));
    }
    if args.stats && !args.json {
        // ripgrep counts the bytes of lines printed; its counts and file lists are not.
        let counted =
            args.count || args.count_matches || args.files_with_matches || args.files_without_match;
        let total = Stats {
            bytes_printed: if counted { 0 } else { total.bytes_printed },
            ..total.clone()
        };
        print_stats(&total, visited.files + visited.binary_skipped, started);
    }
    let found = if args.files_without_match {
        // ripgrep sees no match in a binary file (it stops at the NUL byte), so one counts as
        // a file without a match for the exit code, though it is not printed.
        total.files_printed > 0 || visited.binary_skipped > 0
    } else {
        total.matched_lines > 0
    };
    if !visited.errors.is_empty() && (!args.quiet || !found) {
        ExitCode::from(2)
    } else if found {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Orders the files' outputs (which come in path order) by a file time, or reversed.
fn sort(outs: &mut [FileOut], by: Option<SortBy>, reverse: bool) {
    let time = |name: &str, by: SortBy| {
        let md = std::fs::metadata(name).ok()?;
        match by {
            SortBy::Modified => md.modified().ok(),
            SortBy::Accessed => md.accessed().ok(),
            SortBy::Created => md.created().ok(),
            _ => None,
        }
    };
    if let Some(by @ (SortBy::Modified | SortBy::Accessed | SortBy::Created)) = by {
        outs.sort_by_cached_key(|o| (o.order, time(&o.name, by), o.name.clone()));
    }
    if reverse {
        outs.reverse();
    }
}

/// `--stats`, after the results (as ripgrep prints them).
fn print_stats(total: &Stats, searched: u64, started: Instant) {
    let secs = started.elapsed().as_secs_f64();
    println!();
    println!("{} matches", total.matches);
    println!("{} matched lines", total.matched_lines);
    println!("{} files contained matches", total.files_with_match);
    println!("{searched} files searched");
    println!("{} bytes printed", total.bytes_printed);
    println!("{} bytes searched", total.bytes_searched);
    println!("{secs:.6} seconds spent searching");
    println!("{secs:.6} seconds total");
}
