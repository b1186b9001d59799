//! Who uses a name: every use of it in code (a call, a type, a macro, an import, a member
//! access by that name) outside comments and string literals, with the symbol each use sits
//! in, definitions of that name set aside (they are `find_definition`'s).
//!
//! The files are grep's (its paths, sandbox, ignore rules, globs, and the trigram index when
//! it is ready): those that hold the name as a whole word. Each is scanned lexically
//! (`code::idents`: the language's comments and strings left out) with its bytes in hand;
//! the definitions of the name and the symbol around each use come from the index's symbol
//! records of that version, else from a parse within the search's parse budget, else (past
//! it) the lines shaped like a definition are set aside and the uses go without their symbol,
//! and the answer says how many. The match is by name, not by type: every symbol of that name
//! is counted; a qualified name narrows nothing yet, and the answer says so.

mod kept;
mod render;

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::code::{Lang, Stop};
use crate::error::{ParamError, RequestError};
use crate::grep::{self, EnclosingSymbol, Flow, GrepQuery, Progress, Sink, VisitedFile};
use crate::words::{Term, Words};
use crate::workspace::Workspace;

pub use kept::find_kept;
pub use render::{RefCursor, Rendered, render};

/// A search for the uses of a name.
#[derive(Clone, Debug, Default)]
pub struct RefsQuery {
    /// As `find_definition` takes it: `kmalloc_array`, `Parser.parse`, `std::vector`.
    pub name: String,
    /// Only files of this language (`rust`, `py`...).
    pub lang: Option<String>,
    /// Where to look: its paths, globs and walk options (its pattern is ignored).
    pub scope: GrepQuery,
}

/// One use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// As a search displays it.
    pub path: String,
    pub line: u64,
    /// 1-based byte column of the name.
    pub column: u32,
    /// The line, trimmed, at most [`MAX_TEXT`] bytes.
    pub text: String,
    pub enclosing: Option<EnclosingSymbol>,
}

/// Bytes of a line shown with its use.
pub const MAX_TEXT: usize = crate::code::SHOWN_LINE;

/// Every use found.
#[derive(Clone, Debug, Default)]
pub struct References {
    /// The name searched for: the last part of the name given.
    pub word: String,
    /// The qualifier given (`std` of `std::vector`), which narrows nothing.
    pub qualifier: Option<String>,
    /// In the visit's order: by path, then line and column.
    pub refs: Vec<Reference>,
    /// Uses counted from the symbol records, after the first page, and not listed
    /// ([`find_first`]): 0 when every use is in `refs`.
    pub counted: usize,
    /// Files with a use.
    pub files: usize,
    /// Uses on the definition lines of that name, set aside.
    pub set_aside: usize,
    /// Files whose symbols came from the records, from a parse, and (past the parse budget)
    /// from neither.
    pub from_records: usize,
    pub parsed: usize,
    pub unparsed: usize,
    pub searched: u64,
    pub errors: Vec<String>,
    /// The search stopped at its deadline: the uses of the files after are missing.
    pub timed_out: bool,
}

impl References {
    /// Every use found: listed or only counted.
    pub fn total(&self) -> usize {
        self.refs.len() + self.counted
    }
}

/// The room of a first page: once the uses listed fill it, the files after are counted from
/// their symbol records where those can tell, and read only where they cannot.
#[derive(Clone, Copy, Debug)]
pub struct Page {
    pub bytes: usize,
    pub lines: usize,
}

/// How long one search may spend parsing files whose records are not there yet.
pub const PARSE_BUDGET: Duration = Duration::from_millis(2_000);

/// What one file gave.
struct FileRefs {
    refs: Vec<Reference>,
    /// Uses counted from the records, not listed.
    counted: usize,
    set_aside: usize,
    how: How,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum How {
    Records,
    Parsed,
    Unparsed,
}

struct Collect<'a> {
    out: &'a mut References,
    /// The first page's room, and what the uses listed so far take of it.
    page: Option<Page>,
    filled: (usize, usize),
    /// Set once the page is full: the files after are only counted.
    counting: &'a AtomicBool,
}

impl Sink<Option<FileRefs>> for Collect<'_> {
    fn file(&mut self, result: Option<FileRefs>) -> Flow {
        let Some(f) = result else {
            return Flow::Continue;
        };
        let out = &mut self.out;
        out.set_aside += f.set_aside;
        match f.how {
            How::Records => out.from_records += 1,
            How::Parsed => out.parsed += 1,
            How::Unparsed => out.unparsed += 1,
        }
        if f.refs.is_empty() && f.counted == 0 {
            return Flow::Continue;
        }
        out.files += 1;
        if self.counting.load(Ordering::Relaxed) {
            out.counted += f.counted + f.refs.len();
            return Flow::Continue;
        }
        if let Some(page) = self.page {
            let (bytes, lines) = render::file_size(&f.refs);
            self.filled = (self.filled.0 + bytes, self.filled.1 + lines);
            if self.filled.0 >= page.bytes || self.filled.1 >= page.lines {
                self.counting.store(true, Ordering::Relaxed);
            }
        }
        out.refs.extend(f.refs);
        Flow::Continue
    }
}

impl RefsQuery {
    /// The parameters as an error echoes them.
    pub fn provided(&self, w: &dyn Words) -> String {
        let mut parts = vec![w.given(Term::DefName, &format!("{:?}", self.name))];
        if let Some(l) = &self.lang {
            parts.push(w.given(Term::Lang, &format!("{l:?}")));
        }
        if !self.scope.search_paths.is_empty() {
            let paths = self.scope.search_paths.join(", ");
            parts.push(w.given(Term::SearchPath, &format!("{paths:?}")));
        }
        if !self.scope.globs.is_empty() {
            parts.push(w.given(Term::Glob, &format!("{:?}", self.scope.globs)));
        }
        parts.join(", ")
    }

    /// The name's last part and its qualifier, or the error for a name that is not one.
    fn word(&self, w: &dyn Words) -> Result<(String, Option<String>), ParamError> {
        let given = self.name.trim();
        let term = w.name(Term::DefName);
        let parsed = crate::define::name::parse(given).map_err(|why| {
            ParamError::new(
                &format!("Invalid {term}"),
                self.provided(w),
                format!("{:?} is not a symbol name: {}.", crate::define::clip(given), why.0),
                "Give one name (\"kmalloc_array\") or a qualified one as the language writes it (\"Parser.parse\", \"std::vector\"); to search text, use a search.",
            )
        })?;
        if !parsed
            .last
            .bytes()
            .any(|b| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80)
        {
            return Err(ParamError::new(
                &format!("Invalid {term}"),
                self.provided(w),
                format!(
                    "{:?} is an operator: its uses are not names in code.",
                    crate::define::clip(given)
                ),
                "Give a name made of letters, digits and underscores.",
            ));
        }
        let qualifier = (!parsed.qualifier.is_empty()).then(|| parsed.qualifier.join("."));
        Ok((parsed.last, qualifier))
    }

    fn lang(&self, w: &dyn Words) -> Result<Option<Lang>, ParamError> {
        let Some(given) = &self.lang else {
            return Ok(None);
        };
        crate::define::lang_named(given).map(Some).ok_or_else(|| {
            ParamError::new(
                &format!("Unknown {}", w.name(Term::Lang)),
                self.provided(w),
                format!("'{given}' is not a language this build parses."),
                &format!(
                    "Use one of: {} (or a file extension such as \"rs\"); or leave it out.",
                    crate::define::known_langs().join(", ")
                ),
            )
        })
    }
}

/// Every use of `q.name` in the files `q.scope` covers, within the caller's cancellation
/// (`progress`, which a deadline sets too).
pub fn find(
    ws: &Workspace,
    q: &RefsQuery,
    progress: &Progress,
) -> Result<References, RequestError> {
    search(ws, q, progress, None)
}

/// [`find`] for a first page of `page`'s room: the uses that fill it listed, those of the
/// files after counted (from the symbol records where they can tell: such a file is not
/// read).
pub fn find_first(
    ws: &Workspace,
    q: &RefsQuery,
    progress: &Progress,
    page: Page,
) -> Result<References, RequestError> {
    search(ws, q, progress, Some(page))
}

fn search(
    ws: &Workspace,
    q: &RefsQuery,
    progress: &Progress,
    page: Option<Page>,
) -> Result<References, RequestError> {
    let w = ws.words();
    let (word, qualifier) = q.word(w).map_err(RequestError::Param)?;
    let lang = q.lang(w).map_err(RequestError::Param)?;
    let search = crate::define::word_search(&q.scope, &word);
    let parse_spent = AtomicU64::new(0);
    let ids = crate::symbols::NameIds::default();
    let finder = memchr::memmem::Finder::new(word.as_bytes());
    let visit = Progress::default();
    let work = |f: VisitedFile<'_>| -> Option<FileRefs> {
        progress.files_searched.fetch_add(1, Ordering::Relaxed);
        if progress.cancelled.load(Ordering::Relaxed) {
            visit.cancel();
            return None;
        }
        finder.find(f.bytes)?;
        let name = f.name();
        let file_lang = Lang::of_file(Path::new(&name), f.bytes)?;
        if lang.is_some_and(|l| l != file_lang) {
            return None;
        }
        let ctx = FileCtx {
            ws,
            word: &word,
            lang: file_lang,
            bytes: f.bytes,
            path: f.path(),
            parse_spent: &parse_spent,
            ids: &ids,
        };
        Some(ctx.uses(name))
    };
    let counting = AtomicBool::new(false);
    let counts = crate::symbols::UseCounts::new(ws, &word);
    // Past the first page, a file the index picked is counted from its record.
    let picked = |f: grep::PickedFile<'_>| -> Option<Option<FileRefs>> {
        if !counting.load(Ordering::Relaxed) {
            return None;
        }
        let abs = absolute(f.path);
        let r = counts.of(&abs, f.id)?;
        progress.files_searched.fetch_add(1, Ordering::Relaxed);
        if lang.is_some_and(|l| Some(l) != r.lang) {
            return Some(None);
        }
        Some(Some(FileRefs {
            refs: Vec::new(),
            counted: r.uses as usize,
            set_aside: r.aside as usize,
            how: How::Records,
        }))
    };
    let mut out = References {
        word: word.clone(),
        qualifier,
        ..References::default()
    };
    let mut sink = Collect {
        out: &mut out,
        page,
        filled: (0, 0),
        counting: &counting,
    };
    let read = grep::Reading::Bytes;
    let visited = grep::visit_picked(ws, &search, &visit, read, Some(&picked), &work, &mut sink)
        .map_err(|e| with_provided(e, q, w))?;
    out.searched = visited.files;
    out.errors = visited.errors;
    out.timed_out = visit.cancelled.load(Ordering::Relaxed);
    Ok(out)
}

/// A search's error, its parameters as `q` gave them.
fn with_provided(e: RequestError, q: &RefsQuery, w: &dyn Words) -> RequestError {
    match e {
        RequestError::Param(p) => RequestError::Param(ParamError {
            provided: q.provided(w),
            ..p
        }),
        other => other,
    }
}

/// What [`FileCtx::symbols`] finds.
type Symbols = (
    Vec<(u32, u32)>,
    Vec<Option<EnclosingSymbol>>,
    How,
    Option<u32>,
);

/// One file being read for the uses of a name.
struct FileCtx<'a> {
    ws: &'a Workspace,
    word: &'a str,
    lang: Lang,
    bytes: &'a [u8],
    path: &'a Path,
    parse_spent: &'a AtomicU64,
    ids: &'a crate::symbols::NameIds,
}

impl FileCtx<'_> {
    /// The uses in this file (shown as `name`).
    fn uses(&self, name: String) -> FileRefs {
        // Where the name is written; when the file's record counts as many uses in its code,
        // those are they, else its comments and strings are scanned for.
        let word = self.word.as_bytes();
        let written = crate::code::idents::written(self.lang, self.bytes, word);
        let at_written = lines_of(self.bytes, &written);
        let lines: Vec<u64> = at_written.iter().map(|a| a.0).collect();
        let (definitions, enclosing, how, recorded) = self.symbols(&lines);
        let keep: Vec<usize> = if recorded == Some(written.len() as u32) {
            (0..written.len()).collect()
        } else {
            // The uses in code are among the places it is written.
            crate::code::idents::occurrences(self.lang, self.bytes, word)
                .iter()
                .filter_map(|o| written.binary_search(o).ok())
                .collect()
        };
        let at: Vec<(u64, u32, usize)> = keep.iter().map(|&k| at_written[k]).collect();
        let enclosing: Vec<Option<EnclosingSymbol>> = keep
            .iter()
            .map(|&k| enclosing.get(k).cloned().flatten())
            .collect();
        let lines: Vec<u64> = at.iter().map(|a| a.0).collect();
        // Each definition of the name sets aside the first line at or after its own first
        // line that holds the name (its name's line).
        let mut aside: Vec<u64> = definitions
            .iter()
            .filter_map(|&(from, to)| {
                lines
                    .iter()
                    .copied()
                    .find(|&l| l >= u64::from(from) && l <= u64::from(to))
            })
            .collect();
        // A C or C++ forward declaration (`struct task_struct;`) declares the name.
        if matches!(self.lang, Lang::C | Lang::Cpp) {
            aside.extend(
                at.iter()
                    .filter(|a| forward_declares(&line_text(self.bytes, a.2), self.word))
                    .map(|a| a.0),
            );
        }
        if how == How::Unparsed {
            aside.extend(
                at.iter()
                    .filter(|a| {
                        crate::define::could_define(
                            &line_text(self.bytes, a.2),
                            self.word,
                            self.lang,
                        )
                    })
                    .map(|a| a.0),
            );
        }
        let mut refs = Vec::with_capacity(at.len());
        let mut set_aside = 0;
        for (k, &(line, column, start)) in at.iter().enumerate() {
            if aside.contains(&line) {
                set_aside += 1;
                continue;
            }
            refs.push(Reference {
                path: name.clone(),
                line,
                column,
                text: line_text(self.bytes, start),
                enclosing: enclosing.get(k).cloned().flatten(),
            });
        }
        FileRefs {
            refs,
            counted: 0,
            set_aside,
            how,
        }
    }

    /// The lines of the definitions of the name, the symbol around each of `lines`, and
    /// (from a record that keeps it) the count of the name's uses in code: from the records,
    /// else a parse within the budget, else nothing.
    fn symbols(&self, lines: &[u64]) -> Symbols {
        let abs = absolute(self.path);
        let version = crate::symbols::held(None, self.bytes);
        if let Some(n) =
            crate::symbols::name_in_file(self.ws, &abs, version, self.word, lines, self.ids)
        {
            let enclosing = n
                .enclosing
                .into_iter()
                .map(|e| {
                    e.map(|e| EnclosingSymbol {
                        name: e.address,
                        kind: e.kind.to_string(),
                        start_line: e.start_line.into(),
                        end_line: e.end_line.into(),
                    })
                })
                .collect();
            return (n.definitions, enclosing, How::Records, n.uses);
        }
        let spent = Duration::from_nanos(self.parse_spent.load(Ordering::Relaxed));
        if spent >= PARSE_BUDGET {
            return (Vec::new(), Vec::new(), How::Unparsed, None);
        }
        let started = Instant::now();
        let stop = Stop::new(None, Some(started + (PARSE_BUDGET - spent)));
        let parsed = crate::code::FileStructure::build_with(self.lang, self.bytes, &stop);
        let took = started.elapsed().as_nanos() as u64;
        self.parse_spent.fetch_add(took, Ordering::Relaxed);
        let Ok(s) = parsed else {
            return (Vec::new(), Vec::new(), How::Unparsed, None);
        };
        let definitions = s
            .symbols
            .iter()
            .filter(|sym| sym.name == self.word)
            .map(|sym| (sym.def_line, sym.end_line))
            .collect();
        let enclosing = lines
            .iter()
            .map(|&l| {
                let k = s.innermost_at(u32::try_from(l).ok()?)?;
                let sym = s.symbols.get(k as usize)?;
                Some(EnclosingSymbol {
                    name: sym.address.clone(),
                    kind: sym.kind.to_string(),
                    start_line: sym.start_line.into(),
                    end_line: sym.end_line.into(),
                })
            })
            .collect();
        (definitions, enclosing, How::Parsed, None)
    }
}

/// `path` made absolute (under the current directory).
fn absolute(path: &Path) -> std::path::PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    }
}

/// Whether `line` is a forward declaration of `word` (`struct NAME;`, `class NAME;`).
fn forward_declares(line: &str, word: &str) -> bool {
    crate::code::forward_declared(line.trim()) == Some(word)
}

/// For each offset (ascending) into `bytes`: its 1-based line, 1-based byte column, and the
/// offset of its line's start.
fn lines_of(bytes: &[u8], offsets: &[usize]) -> Vec<(u64, u32, usize)> {
    let mut out = Vec::with_capacity(offsets.len());
    let (mut line, mut line_start, mut counted) = (1u64, 0usize, 0usize);
    for &at in offsets {
        // Counted at once (a vector count), then the line's start looked for backwards.
        let seg = &bytes[counted..at];
        let newlines = memchr::memchr_iter(b'\n', seg).count();
        if newlines > 0 {
            line += newlines as u64;
            line_start = counted + memchr::memrchr(b'\n', seg).map_or(0, |k| k + 1);
        }
        counted = at;
        let column = u32::try_from(at - line_start + 1).unwrap_or(u32::MAX);
        out.push((line, column, line_start));
    }
    out
}

/// The line starting at `start`, trimmed, at most [`MAX_TEXT`] bytes (on a character edge).
fn line_text(bytes: &[u8], start: usize) -> String {
    let rest = &bytes[start..];
    let end = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
    let line = String::from_utf8_lossy(&rest[..end]);
    let line = line.trim();
    if line.len() <= MAX_TEXT {
        return line.to_string();
    }
    let mut cut = MAX_TEXT;
    while !line.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…", &line[..cut])
}

#[cfg(test)]
mod tests;
