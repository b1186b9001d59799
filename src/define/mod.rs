//! Repo-wide definition lookup (docs/find_definition.md): where NAME is defined, and its code.
//!
//! The candidates are the files in which a search finds the name's last component as a
//! whole word: grep's own search (its paths, sandbox, ignore rules, globs and freshness;
//! through the trigram index when it is ready, so an edit is seen by the next lookup), kept
//! to the languages this build parses. Only those are parsed, through
//! [`crate::code::structure_of`] (cached by file identity in the workspace, so a repeated
//! lookup parses nothing that did not change), and their symbols are matched by name and
//! qualifier. Definitions (with a body) come first; declarations (prototypes, signatures,
//! forward declarations) are listed when asked, or when nothing defines the name.
//!
//! Layout: this module holds the query, its validation and the lookup; `render.rs` the text
//! both front-ends show.

mod alias;
mod candidates;
mod fit;
pub mod name;
mod recorded;
pub mod render;
mod shape;
#[cfg(test)]
mod tests;
mod text;

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::code::{self, Lang};
use crate::error::ParamError;
use crate::grep::{GrepQuery, Progress};
use crate::words::{Term, Words};
use crate::workspace::Workspace;
use candidates::Candidate;
pub(crate) use candidates::search as word_search;
pub use shape::could_define;
pub use text::MAX_SIGNED;
use text::{MAX_CODE_BYTES, MAX_CODE_SITES, code_of, sign, signature};

/// A definition lookup.
#[derive(Clone, Debug, Default)]
pub struct DefineQuery {
    /// A name (`kmalloc_array`) or a qualified name (`ArrayList.add`, `Foo::bar`).
    pub name: String,
    /// Only symbols of this kind (one of [`crate::code::lang::symbol_kinds`]).
    pub kind: Option<String>,
    /// Only files of this language: its name (`rust`) or an extension (`rs`).
    pub lang: Option<String>,
    /// List declarations (prototypes, signatures) beside the definitions.
    pub declarations: bool,
    /// Each site's code: `Some(true)` always, `Some(false)` never, `None` when there is
    /// exactly one site.
    pub code: Option<bool>,
    /// How long the lookup may search and parse (default [`LOOKUP_BUDGET`]).
    pub time_limit: Option<Duration>,
    /// Read every site's signature (a server reads those of the first [`MAX_SIGNED`], more
    /// than an answer shows).
    pub all_signatures: bool,
    /// The files to look in, as a search describes them: `search_paths`, `globs`, `types`,
    /// `include_ignored`, `include_hidden`, `max_filesize`, `relative_to_root`, `use_index`,
    /// `threads` (its pattern, word, fixed-strings, context and result settings are the
    /// lookup's own).
    pub scope: GrepQuery,
}

/// One definition (or declaration) site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// As a search displays it (relative to the first root in a server).
    pub path: String,
    pub lang: Lang,
    pub kind: &'static str,
    pub name: String,
    /// The package or module (where the file has one), then `Class.method`, `Type.method`;
    /// the name at the top level: `java.util.ArrayList.add`.
    pub qualified: String,
    /// How it answers the name asked: exactly, or loosely (other components between).
    pub fit: name::Fit,
    /// The name that reads exactly this symbol in a code read (`target`).
    pub address: String,
    /// First line of the definition itself (decorators and export wrapper included).
    pub start_line: u32,
    pub end_line: u32,
    /// First line of the doc comment and attributes right above it, if there are any.
    pub doc_line: Option<u32>,
    /// The definition's first line (up to the line that names it), whitespace collapsed.
    pub signature: String,
    /// A declaration without a body (prototype, signature, forward declaration).
    pub declaration: bool,
    /// Lines `doc_line` (or `start_line`) to `end_line`, when the code was asked for.
    pub code: Option<String>,
}

impl Site {
    /// The first line of the code shown: the doc comment's, or the definition's.
    pub fn code_start(&self) -> u32 {
        self.doc_line.unwrap_or(self.start_line)
    }
}

/// What a lookup found.
#[derive(Clone, Debug, Default)]
pub struct Definitions {
    /// Ranked: definitions by path and line, then (when listed) declarations by path and line.
    pub sites: Vec<Site>,
    /// Declarations found but not listed (definitions exist and none were asked for).
    pub hidden_declarations: usize,
    /// No definition was found, so the declarations are listed.
    pub only_declarations: bool,
    /// Files holding the name as a whole word (of any language).
    pub files_with_name: usize,
    /// Of those, the files parsed (or found parsed in the cache).
    pub files_parsed: usize,
    /// Of those, the files whose sites came from a record of the bytes read (by its content
    /// checksum), not a parse.
    pub files_from_records: usize,
    /// Of those, the files not parsed within the lookup's budget (or before it was stopped).
    pub not_parsed: usize,
    /// Of those, the files read as text (too large, too deep...), sorted by path.
    pub as_text: Vec<(String, code::Unparsed)>,
    /// The search for the name stopped at the budget: files after it were not looked at.
    pub search_cut: bool,
    /// Bytes of the files parsed (or found parsed in the cache).
    pub bytes_parsed: u64,
    /// Files the search looked at (the index's ruled-out files count as looked at).
    pub files_searched: u64,
    pub index: Option<crate::index::IndexUse>,
    /// Files or directories that could not be read or parsed, as messages.
    pub errors: Vec<String>,
    /// The lookup was stopped (cancelled, or out of time): the sites are partial.
    pub cancelled: bool,
    pub timed_out: bool,
    /// Answered from the index's symbol records: the files they cover (the others were
    /// searched and parsed as `files_with_name` and `files_parsed` say).
    pub recorded: Option<usize>,
    /// Found through the imports of the name's module (Python's `os.path` bound by `import
    /// posixpath as path`): each name looked up instead and where it is bound.
    pub via: Vec<(String, String)>,
}

/// Why a lookup cannot run: its parameters, or a path it names.
pub type DefineError = crate::error::RequestError;

/// `text` cut to 80 characters (with `…`), for echoing what a caller gave.
pub(crate) fn clip(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &text[..at]).into(),
        None => text.into(),
    }
}

/// What a symbol must be to be a site: checked parameters.
struct Want {
    /// The name asked for, in components.
    name: name::Name,
    last: String,
    kind: Option<&'static str>,
    lang: Option<Lang>,
}

impl DefineQuery {
    /// The lookup's parameters as an error echoes them.
    pub fn provided(&self, w: &dyn Words) -> String {
        let mut parts = vec![w.given(Term::DefName, &format!("{:?}", clip(&self.name)))];
        let mut add = |term, value: Option<String>| {
            if let Some(v) = value {
                parts.push(w.given(term, &v));
            }
        };
        add(Term::Kind, self.kind.as_ref().map(|k| format!("{k:?}")));
        add(Term::Lang, self.lang.as_ref().map(|l| format!("{l:?}")));
        let paths = &self.scope.search_paths;
        add(
            Term::SearchPath,
            (!paths.is_empty()).then(|| format!("{:?}", paths.join(", "))),
        );
        let globs = &self.scope.globs;
        add(
            Term::Glob,
            (!globs.is_empty()).then(|| format!("{globs:?}")),
        );
        add(Term::Declarations, self.declarations.then(|| "true".into()));
        add(Term::Code, self.code.map(|c| c.to_string()));
        parts.join(", ")
    }

    fn error(&self, w: &dyn Words, short: &str, problem: String, fix: &str) -> ParamError {
        ParamError::new(short, self.provided(w), problem, fix)
    }

    /// The checked parameters, or the first wrong one in the Error/Problem/Fix layout.
    fn want(&self, w: &dyn Words) -> Result<Want, ParamError> {
        let name = self.name.trim();
        let term = w.name(Term::DefName);
        if name.is_empty() {
            return Err(self.error(
                w,
                &format!("Empty {term}"),
                format!("{term} is empty, so there is nothing to look up."),
                "Give a symbol name (\"parse_config\") or a qualified one (\"Parser.parse\", \"Foo::new\").",
            ));
        }
        let parsed = name::parse(name).map_err(|e| {
            let shown = clip(name);
            self.error(
                w,
                &format!("Invalid {term}"),
                format!("{shown:?} is not a symbol name: {}.", e.0),
                "Give one name (\"parse_config\"), a qualified one as the language writes it (\"Parser.parse\", \"Foo::new\", \"java.util.List\", \"Set#add\") or an operator (\"operator+\", \"::\"); to search text, use a search.",
            )
        })?;
        let kind = match &self.kind {
            None => parsed.kind,
            Some(k) => Some(self.kind_of(w, k)?),
        };
        let lang = match &self.lang {
            None => None,
            Some(l) => Some(self.lang_of(w, l)?),
        };
        Ok(Want {
            last: parsed.last.clone(),
            name: parsed,
            kind,
            lang,
        })
    }

    fn kind_of(&self, w: &dyn Words, given: &str) -> Result<&'static str, ParamError> {
        let want = given.trim().to_ascii_lowercase();
        let mut kinds = code::lang::symbol_kinds();
        kinds.find(|k| *k == want).ok_or_else(|| {
            let all: Vec<&str> = code::lang::symbol_kinds().collect();
            self.error(
                w,
                &format!("Unknown {}", w.name(Term::Kind)),
                format!("'{given}' is not a symbol kind."),
                &format!("Use one of: {}; or leave it out.", all.join(", ")),
            )
        })
    }

    fn lang_of(&self, w: &dyn Words, given: &str) -> Result<Lang, ParamError> {
        lang_named(given).ok_or_else(|| {
            self.error(
                w,
                &format!("Unknown {}", w.name(Term::Lang)),
                format!("'{given}' is not a language this build parses."),
                &format!(
                    "Use one of: {} (or a file extension such as \"rs\"); or leave it out.",
                    known_langs().join(", ")
                ),
            )
        })
    }
}

/// The language `given` names: its name as `file_read` lists it, or a file extension.
pub(crate) fn lang_named(given: &str) -> Option<Lang> {
    let want = given.trim().to_ascii_lowercase();
    let by_name = code::lang::ALL
        .iter()
        .find(|l| l.name() == want && l.enabled());
    by_name
        .copied()
        .or_else(|| Lang::from_path(Path::new(&format!("x.{want}"))))
}

/// The names of the languages this build parses.
pub(crate) fn known_langs() -> Vec<&'static str> {
    code::lang::ALL
        .iter()
        .filter(|l| l.enabled())
        .map(|l| l.name())
        .collect()
}

/// How long a lookup may search and parse before it answers with what it found: the
/// candidate search gets [`SEARCH_SHARE`] of it, parsing the rest (at least a second).
/// A name every file holds (`data`, `i`) is answered within it, cut, with a note saying how
/// to narrow; the trigram index and the parse cache make most lookups far shorter.
pub const LOOKUP_BUDGET: Duration = Duration::from_millis(3_000);
const SEARCH_SHARE: f64 = 2.0 / 3.0;
/// A deadline that never comes, for a lookup without a time limit.
const ONE_YEAR: Duration = Duration::from_secs(365 * 24 * 3600);

/// Looks `q` up in `ws`: every site, ranked, with code as asked; within [`LOOKUP_BUDGET`]
/// (cut, and said so, where the name is too common to finish) and the caller's
/// cancellation (`progress`, which a deadline sets too).
pub fn lookup(
    ws: &Workspace,
    q: &DefineQuery,
    progress: &Progress,
) -> Result<Definitions, DefineError> {
    let want = q.want(ws.words()).map_err(DefineError::Param)?;
    let started = Instant::now();
    let d = lookup_want(ws, q, &want, progress)?;
    if !d.sites.is_empty()
        || d.cancelled
        || d.timed_out
        || want.lang.is_some_and(|l| l != Lang::Python)
    {
        return Ok(d);
    }
    // Nothing by that name: a module may bind the qualifier's last part to another module.
    Ok(alias::lookup_through(ws, q, &want, progress, started)?.unwrap_or(d))
}

/// [`lookup`] of a checked name.
fn lookup_want(
    ws: &Workspace,
    q: &DefineQuery,
    want: &Want,
    progress: &Progress,
) -> Result<Definitions, DefineError> {
    let w = ws.words();
    let started = Instant::now();
    let budget = q.time_limit.unwrap_or(LOOKUP_BUDGET).min(ONE_YEAR);
    let until = |share: Duration| started.checked_add(share).unwrap_or(started + ONE_YEAR);
    let search_until = until(budget.mul_f64(SEARCH_SHARE));
    let search = |scope: &GrepQuery| {
        candidates::find(ws, scope, &want.last, want.lang, progress, search_until).map_err(|e| {
            match e {
                DefineError::Param(mut p) => {
                    p.provided = q.provided(w);
                    DefineError::Param(p)
                }
                other => other,
            }
        })
    };
    // From the index's records where they hold; the other files are searched and parsed.
    let (found, recorded_sites, recorded) = match recorded::lookup(ws, &q.scope, want) {
        Some(r) if r.rescan.is_empty() => (candidates::Found::default(), r.sites, Some(r.files)),
        Some(r) => {
            let scope = GrepQuery {
                search_paths: r.rescan,
                ..q.scope.clone()
            };
            (search(&scope)?, r.sites, Some(r.files))
        }
        None => (search(&q.scope)?, Vec::new(), None),
    };
    let order = candidates::ranked(&found.files);
    let (first, rest): (Vec<&Candidate>, Vec<&Candidate>) = order.iter().partition(|c| c.likely());
    let parse_until = until(budget).max(Instant::now() + Duration::from_secs(1));
    let stop = code::Stop::new(Some(&progress.cancelled), Some(parse_until));
    let mut parsed = Parsed::default();
    parse_all(ws, &first, want, q.code == Some(true), &stop, &mut parsed);
    if parsed.sites.iter().all(|s| s.declaration) {
        parse_all(ws, &rest, want, q.code == Some(true), &stop, &mut parsed);
    } else {
        parsed.skipped += rest.len();
    }
    if parsed.bytes > RELEASE_AFTER {
        crate::source::release_free_memory();
    }
    let mut found_sites = std::mem::take(&mut parsed.sites);
    found_sites.extend(recorded_sites);
    found_sites.sort_by(|a, b| (&a.path, a.start_line).cmp(&(&b.path, b.start_line)));
    let mut d = rank(found_sites, q.declarations);
    let signed = if q.all_signatures {
        d.sites.len()
    } else {
        MAX_SIGNED
    };
    let n = d.sites.len().min(signed);
    sign(ws, &mut d.sites[..n], q.code == Some(true));
    if q.code.is_none() && d.sites.len() == 1 {
        let site = &mut d.sites[0];
        site.code = code_of(ws, site).ok();
    }
    d.recorded = recorded;
    d.files_with_name = found.with_name;
    d.search_cut = found.cut;
    d.files_searched = found.searched;
    d.index = found.index;
    d.errors = found.errors;
    parsed.tell(&mut d);
    d.errors.sort();
    d.cancelled = progress.cancelled.load(Ordering::Relaxed);
    d.timed_out = progress.timed_out.load(Ordering::Relaxed);
    Ok(d)
}

/// After parsing this many bytes a lookup gives the freed memory back to the system.
const RELEASE_AFTER: u64 = 32 << 20;

/// What the parse step found.
#[derive(Default)]
struct Parsed {
    sites: Vec<Site>,
    files: usize,
    /// Files answered from a record of their bytes.
    from_records: usize,
    bytes: u64,
    /// Candidates left unparsed: out of budget, or stopped.
    not_parsed: usize,
    /// Candidates not needed (the likely ones defined the name).
    skipped: usize,
    as_text: Vec<(String, code::Unparsed)>,
    errors: Vec<String>,
}

impl Parsed {
    /// Says what was parsed in `d` (the sites aside).
    fn tell(self, d: &mut Definitions) {
        d.files_parsed = self.files;
        d.files_from_records = self.from_records;
        d.bytes_parsed = self.bytes;
        d.not_parsed = self.not_parsed;
        d.as_text = self.as_text;
        d.as_text.sort_by(|a, b| a.0.cmp(&b.0));
        d.errors.extend(self.errors);
    }
}

/// What one candidate gave.
enum Outcome {
    Sites(Vec<Site>, u64),
    Recorded(Vec<Site>),
    Text(code::Unparsed),
    Error(String),
    NotParsed,
}

/// Parses `files` in their order on the pool's threads (each takes the next file), until
/// `stop`; adds what they define to `into`.
fn parse_all(
    ws: &Workspace,
    files: &[&Candidate],
    want: &Want,
    with_code: bool,
    stop: &code::Stop,
    into: &mut Parsed,
) {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let outcomes: Vec<Mutex<Option<Outcome>>> = files.iter().map(|_| Mutex::new(None)).collect();
    let worker = || {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(c) = files.get(i) else { break };
            let outcome = if stop.stopped() {
                Outcome::NotParsed
            } else {
                one_file(ws, c, want, with_code, stop)
            };
            *outcomes[i].lock().expect("outcome") = Some(outcome);
        }
    };
    let threads = rayon::current_num_threads().clamp(1, files.len().max(1));
    rayon::scope(|s| {
        for _ in 0..threads {
            s.spawn(|_| worker());
        }
    });
    for (c, outcome) in files.iter().zip(outcomes) {
        match outcome.into_inner().expect("outcome") {
            Some(Outcome::Sites(sites, bytes)) => {
                into.files += 1;
                into.bytes += bytes;
                into.sites.extend(sites);
            }
            Some(Outcome::Recorded(sites)) => {
                into.from_records += 1;
                into.sites.extend(sites);
            }
            Some(Outcome::Text(code::Unparsed::Stopped)) | Some(Outcome::NotParsed) | None => {
                into.not_parsed += 1
            }
            Some(Outcome::Text(why)) => into.as_text.push((c.path.clone(), why)),
            Some(Outcome::Error(e)) => into.errors.push(e),
        }
    }
}

/// The sites of one candidate file, or why it gave none.
fn one_file(
    ws: &Workspace,
    c: &Candidate,
    want: &Want,
    with_code: bool,
    stop: &code::Stop,
) -> Outcome {
    let source = match ws.open_source(&c.path) {
        Ok(s) => s,
        Err(e) => return Outcome::Error(e.to_string()),
    };
    if source.is_binary() {
        return Outcome::Sites(Vec::new(), 0);
    }
    let bytes = source.bytes().len() as u64;
    let held = crate::symbols::held(Some(source.id()), source.bytes());
    if let Some(defs) = crate::symbols::definitions_in_file(ws, source.path(), held, &want.last) {
        let sites = defs
            .iter()
            .filter_map(|d| recorded::site_of(d, want, || c.path.clone()));
        return Outcome::Recorded(sites.collect());
    }
    match code::parse_of(ws, &source, c.lang, stop) {
        Ok(Ok(structure)) => {
            match sites_in(ws, &source, &c.path, c.lang, &structure, want, with_code) {
                Ok(sites) => Outcome::Sites(sites, bytes),
                Err(e) => Outcome::Error(e),
            }
        }
        Ok(Err(why)) => Outcome::Text(why),
        Err(e) => Outcome::Error(e.to_string()),
    }
}

/// Definitions first, then declarations when asked for (or when nothing defines the name);
/// sites that answer the name only loosely are dropped when others answer it exactly.
fn rank(mut found: Vec<Site>, declarations: bool) -> Definitions {
    if found.iter().any(|s| s.fit == name::Fit::Exact) {
        found.retain(|s| s.fit == name::Fit::Exact);
    }
    let (mut sites, decls): (Vec<Site>, Vec<Site>) =
        found.into_iter().partition(|s| !s.declaration);
    let mut d = Definitions::default();
    if sites.is_empty() {
        d.only_declarations = !decls.is_empty();
        sites = decls;
    } else if declarations {
        sites.extend(decls);
    } else {
        d.hidden_declarations = decls.len();
    }
    d.sites = sites;
    d
}

/// The sites of one parsed file.
fn sites_in(
    ws: &Workspace,
    source: &crate::source::Source,
    path: &str,
    lang: Lang,
    s: &code::FileStructure,
    want: &Want,
    with_code: bool,
) -> Result<Vec<Site>, String> {
    // The package the file declares, or (Python, Rust) the module its path makes.
    let from_path;
    let package: &[String] = if s.package.is_empty() {
        let is_file = |rel: &str| ws.resolve(rel).is_ok_and(|p| p.is_file());
        from_path = code::package::of_path(lang, path, &is_file);
        &from_path
    } else {
        &s.package
    };
    let matched: Vec<(&code::Symbol, name::Fit)> = s
        .symbols
        .iter()
        .filter(|sym| sym.name == want.last)
        .filter_map(|sym| Some((sym, want.fit(package, sym, &s.symbols, s.lang)?)))
        .collect();
    if matched.is_empty() {
        // Most candidates only use the name: no line index for them.
        return Ok(Vec::new());
    }
    let index = ws.index(source);
    let bytes = source.bytes();
    let line = |n: u32| -> &[u8] {
        let r = index.line_range(bytes, n as u64, n as u64);
        let l = &bytes[r];
        l.strip_suffix(b"\n").unwrap_or(l)
    };
    let mut sites = Vec::new();
    for (k, (sym, fit)) in matched.into_iter().enumerate() {
        let qualified = match package {
            [] => sym.qualified.clone(),
            p => format!("{}.{}", p.join("."), sym.qualified),
        };
        let mut site = Site {
            path: path.to_string(),
            lang,
            kind: sym.kind,
            name: sym.name.clone(),
            qualified,
            fit,
            address: sym.address.clone(),
            start_line: sym.def_line,
            end_line: sym.end_line,
            doc_line: (sym.start_line < sym.def_line).then_some(sym.start_line),
            signature: signature(&sym.name, sym.def_line, sym.end_line, line),
            declaration: sym.declaration,
            code: None,
        };
        if with_code && k < MAX_CODE_SITES {
            let r = index.line_range(bytes, site.code_start() as u64, site.end_line as u64);
            let r = r.start..r.end.min(r.start + MAX_CODE_BYTES);
            site.code = Some(String::from_utf8_lossy(&bytes[r]).into_owned());
        }
        sites.push(site);
    }
    source.check_intact().map_err(|e| e.to_string())?;
    Ok(sites)
}
