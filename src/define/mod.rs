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

pub mod render;
mod shape;
#[cfg(test)]
mod tests;

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::Ordering;

use rayon::prelude::*;

use crate::code::{self, Lang};
use crate::error::ParamError;
use crate::grep::{self, GrepMatch, GrepQuery, Progress};
use crate::words::{Term, Words};
use crate::workspace::Workspace;

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
    /// `Class.method`, `Type.method`; the name at the top level.
    pub qualified: String,
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
    /// Files holding the name as a whole word.
    pub files_with_name: usize,
    /// Of those, the files parsed (a language with a grammar, and the `lang` asked).
    pub files_parsed: usize,
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
}

/// Why a lookup cannot run: its parameters, or a path it names.
pub type DefineError = crate::error::RequestError;

/// The name split at `.`, `::` and `#` (Ruby's and Javadoc's `Klass#method`): its
/// components, last one the symbol's own name.
fn components(name: &str) -> Vec<&str> {
    name.split("::").flat_map(|p| p.split(['.', '#'])).collect()
}

/// What a symbol must be to be a site: checked parameters.
struct Want {
    /// The components of a qualified name (empty for a plain name).
    qualifier: String,
    last: String,
    kind: Option<&'static str>,
    lang: Option<Lang>,
}

impl Want {
    fn matches(&self, sym: &code::Symbol) -> bool {
        if sym.name != self.last || self.kind.is_some_and(|k| k != sym.kind) {
            return false;
        }
        if self.qualifier.is_empty() {
            return true;
        }
        let qualified = sym.qualified.replace("::", ".");
        let tail = qualified
            .strip_suffix(self.last.as_str())
            .and_then(|q| q.strip_suffix('.'));
        tail.is_some_and(|t| t == self.qualifier || t.ends_with(&format!(".{}", self.qualifier)))
    }
}

impl DefineQuery {
    /// The lookup's parameters as an error echoes them.
    pub fn provided(&self, w: &dyn Words) -> String {
        let mut parts = vec![w.given(Term::DefName, &format!("{:?}", self.name))];
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
        let parts = components(name);
        if name.chars().any(char::is_whitespace) || parts.iter().any(|p| p.is_empty()) {
            return Err(self.error(
                w,
                &format!("Invalid {term}"),
                format!("'{name}' is not a symbol name: names hold no spaces, and '.', '::' or '#' separate non-empty parts."),
                "Give one name (\"parse_config\") or a qualified one (\"Parser.parse\", \"Foo::new\"); to search text, use a search.",
            ));
        }
        let kind = match &self.kind {
            None => None,
            Some(k) => Some(self.kind_of(w, k)?),
        };
        let lang = match &self.lang {
            None => None,
            Some(l) => Some(self.lang_of(w, l)?),
        };
        let (last, qualifier) = parts.split_last().expect("a name has a part");
        Ok(Want {
            qualifier: qualifier.join("."),
            last: (*last).to_string(),
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
        let want = given.trim().to_ascii_lowercase();
        let by_name = code::lang::ALL
            .iter()
            .find(|l| l.name() == want && l.enabled());
        let by_ext = || Lang::from_path(Path::new(&format!("x.{want}")));
        by_name.copied().or_else(by_ext).ok_or_else(|| {
            let known: Vec<&str> = code::lang::ALL
                .iter()
                .filter(|l| l.enabled())
                .map(|l| l.name())
                .collect();
            self.error(
                w,
                &format!("Unknown {}", w.name(Term::Lang)),
                format!("'{given}' is not a language this build parses."),
                &format!(
                    "Use one of: {} (or a file extension such as \"rs\"); or leave it out.",
                    known.join(", ")
                ),
            )
        })
    }

    /// The search for the files that hold the name's last component as a whole word.
    fn search(&self, last: &str) -> GrepQuery {
        let edge = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        GrepQuery {
            pattern: last.to_string(),
            fixed_strings: true,
            word: edge(last.chars().next()) && edge(last.chars().last()),
            case_insensitive: false,
            before_context: 0,
            after_context: 0,
            section_patterns: Some(Vec::new()),
            max_results: usize::MAX,
            cursor: None,
            ..self.scope.clone()
        }
    }
}

/// Looks `q` up in `ws`: every site, ranked, with code as asked.
pub fn lookup(
    ws: &Workspace,
    q: &DefineQuery,
    progress: &Progress,
) -> Result<Definitions, DefineError> {
    let w = ws.words();
    let want = q.want(w).map_err(DefineError::Param)?;
    let report = grep::search(ws, &q.search(&want.last), progress).map_err(|e| match e {
        DefineError::Param(mut p) => {
            p.provided = q.provided(w);
            DefineError::Param(p)
        }
        other => other,
    })?;
    let files = files_of(&report.matches);
    let candidates: Vec<(&str, Lang)> = files
        .iter()
        .filter_map(|f| Some((*f, Lang::from_path(Path::new(f))?)))
        .filter(|(_, l)| want.lang.is_none_or(|w| w == *l))
        .collect();
    // The files with a line where the name stands in a definition's place first; the others
    // only when those define nothing.
    let likely = likely_files(&report.matches, &want.last);
    let (first, rest): (Vec<_>, Vec<_>) = candidates.iter().partition(|(f, _)| likely.contains(f));
    let errors = Mutex::new(report.errors.clone());
    let bytes = std::sync::atomic::AtomicU64::new(0);
    let parse = |files: &[(&str, Lang)]| -> Vec<Site> {
        files
            .par_iter()
            .flat_map_iter(|(path, lang)| {
                if progress.cancelled.load(Ordering::Relaxed) {
                    return Vec::new();
                }
                let code = q.code == Some(true);
                sites_in(ws, path, *lang, &want, code, &bytes).unwrap_or_else(|e| {
                    errors.lock().expect("errors").push(e);
                    Vec::new()
                })
            })
            .collect()
    };
    let mut found = parse(&first);
    let mut parsed = first.len();
    if found.iter().all(|s| s.declaration) {
        found.extend(parse(&rest));
        parsed += rest.len();
    }
    found.sort_by(|a, b| (&a.path, a.start_line).cmp(&(&b.path, b.start_line)));
    let mut d = rank(found, q.declarations);
    if q.code.is_none() && d.sites.len() == 1 {
        let site = &mut d.sites[0];
        site.code = code_of(ws, site).ok();
    }
    d.files_with_name = files.len();
    d.files_parsed = parsed;
    d.bytes_parsed = bytes.into_inner();
    d.files_searched = report.files_searched;
    d.index = report.index;
    d.errors = errors.into_inner().expect("errors");
    d.errors.sort();
    d.cancelled = report.cancelled || progress.cancelled.load(Ordering::Relaxed);
    d.timed_out = report.timed_out || progress.timed_out.load(Ordering::Relaxed);
    Ok(d)
}

/// The files with a line where `name` could be defined ([`shape::could_define`]).
fn likely_files<'m>(matches: &'m [GrepMatch], name: &str) -> std::collections::HashSet<&'m str> {
    // Matches come sorted by path: one language per file.
    matches
        .chunk_by(|a, b| a.path == b.path)
        .filter(|file| {
            Lang::from_path(Path::new(&file[0].path)).is_some_and(|lang| {
                file.iter()
                    .any(|m| shape::could_define(&m.text, name, lang))
            })
        })
        .map(|file| file[0].path.as_str())
        .collect()
}

/// The distinct paths of sorted matches.
fn files_of(matches: &[GrepMatch]) -> Vec<&str> {
    let mut files: Vec<&str> = matches.iter().map(|m| m.path.as_str()).collect();
    files.dedup();
    files
}

/// Definitions first, then declarations when asked for (or when nothing defines the name).
fn rank(found: Vec<Site>, declarations: bool) -> Definitions {
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

/// The sites of one file.
fn sites_in(
    ws: &Workspace,
    path: &str,
    lang: Lang,
    want: &Want,
    with_code: bool,
    parsed_bytes: &std::sync::atomic::AtomicU64,
) -> Result<Vec<Site>, String> {
    let source = ws.open_source(path).map_err(|e| e.to_string())?;
    if source.is_binary() {
        return Ok(Vec::new());
    }
    parsed_bytes.fetch_add(source.bytes().len() as u64, Ordering::Relaxed);
    let structure = code::structure_of(ws, &source, lang).map_err(|e| e.to_string())?;
    let Some(s) = structure else {
        return Ok(Vec::new());
    };
    let matched: Vec<&code::Symbol> = s.symbols.iter().filter(|sym| want.matches(sym)).collect();
    if matched.is_empty() {
        // Most candidates only use the name: no line index for them.
        return Ok(Vec::new());
    }
    let index = ws.index(&source);
    let bytes = source.bytes();
    let line = |n: u32| -> &[u8] {
        let r = index.line_range(bytes, n as u64, n as u64);
        let l = &bytes[r];
        l.strip_suffix(b"\n").unwrap_or(l)
    };
    let mut sites = Vec::new();
    for sym in matched {
        let mut site = Site {
            path: path.to_string(),
            lang,
            kind: sym.kind,
            name: sym.name.clone(),
            qualified: sym.qualified.clone(),
            address: sym.address.clone(),
            start_line: sym.def_line,
            end_line: sym.end_line,
            doc_line: (sym.start_line < sym.def_line).then_some(sym.start_line),
            signature: signature(&sym.name, sym.def_line, sym.end_line, line),
            declaration: sym.declaration,
            code: None,
        };
        if with_code {
            let r = index.line_range(bytes, site.code_start() as u64, site.end_line as u64);
            site.code = Some(String::from_utf8_lossy(&bytes[r]).into_owned());
        }
        sites.push(site);
    }
    source.check_intact().map_err(|e| e.to_string())?;
    Ok(sites)
}

/// The code of a site, read again (for the one site of a lookup that asked for none).
fn code_of(ws: &Workspace, site: &Site) -> Result<String, crate::error::Error> {
    let f = ws.open(&site.path)?;
    let bytes = f.source.bytes();
    let r = f
        .index
        .line_range(bytes, site.code_start() as u64, site.end_line as u64);
    let text = String::from_utf8_lossy(&bytes[r]).into_owned();
    f.source.check_intact()?;
    Ok(text)
}

/// Longest signature kept, in characters.
const MAX_SIGNATURE: usize = 200;

/// The definition's first line, joined with the next ones up to the one that names it (a C
/// return type on a line of its own), decorator and attribute lines left out; whitespace
/// collapsed, cut at [`MAX_SIGNATURE`] characters.
fn signature<'b>(name: &str, first: u32, last: u32, line: impl Fn(u32) -> &'b [u8]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let stop = last.min(first + 4);
    for n in first..=stop {
        let text = String::from_utf8_lossy(line(n)).trim().to_string();
        let decorator = text.starts_with('@') || text.starts_with("#[");
        let named = text.contains(name);
        if (!decorator || named) && !text.is_empty() {
            parts.push(text);
        }
        if named {
            break;
        }
    }
    if !parts.iter().any(|p| p.contains(name)) {
        // The name is further down (or not on a line of its own): the first line alone.
        parts.truncate(1);
    }
    let joined = parts
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    match joined.char_indices().nth(MAX_SIGNATURE) {
        Some((at, _)) => format!("{}…", &joined[..at]),
        None => joined,
    }
}
