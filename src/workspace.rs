//! `Workspace`: the long-lived state behind every tool call — the roots, the line-index cache
//! (bounded by a byte budget) and the compiled-regex cache.
//!
//! Every cached value is keyed by what makes it valid: a line index by the file's identity
//! from `fstat` (device, inode, length, modification time), so a changed file is never served
//! stale; a regex by its pattern and flags.

use std::any::{Any, TypeId};
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use regex_automata::meta::Regex;

use crate::cache::{FileCache, LruCache};
use crate::error::{Error, ParamError, Result};
use crate::lines::LineIndex;
use crate::roots::Roots;
use crate::source::{FileId, Source, SourceOptions};
use crate::words::{NEUTRAL, Words};

/// Default byte budget of the line-index cache.
pub const DEFAULT_INDEX_BUDGET: usize = 64 * 1024 * 1024;

/// Default byte budget of the markdown outline cache.
pub const DEFAULT_OUTLINE_BUDGET: usize = 256 * 1024 * 1024;

/// Default byte budget of one tool response's text: about 20,000 tokens of code or prose,
/// within the 25,000-token default limit of the strictest common client (Claude Code), with
/// room for the response's other fields.
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 80_000;

/// Default deadline of one search in a server.
pub const DEFAULT_SEARCH_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// Default byte budget of the file-content cache (0 in the command line).
pub const DEFAULT_CONTENT_BUDGET: usize = 0;

/// The content cache's doorkeeper forgets every file read once when it holds this many.
const MAX_SEEN: usize = 1 << 20;

/// Files larger than this are never kept in the content cache.
pub const MAX_CACHED_FILE: u64 = 8 * 1024 * 1024;

/// Bytes of compiled regexes kept (their automata as `Regex::memory_usage` counts them).
pub const REGEX_CACHE_BYTES: usize = 64 * 1024 * 1024;

/// Limits that shape every response.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Bytes of file text one response may carry before it is cut (and says so).
    pub max_output_bytes: usize,
    /// Whole-file reads of JSON/YAML files above this size are refused unless the caller
    /// passes `large_file_passthrough`.
    pub large_structured_file: u64,
    /// How long one search may run before it is stopped (a front-end's deadline; `None`:
    /// no deadline).
    pub search_timeout: Option<std::time::Duration>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
            large_structured_file: 256 * 1024,
            search_timeout: Some(DEFAULT_SEARCH_TIMEOUT),
        }
    }
}

/// Builds a [`Workspace`].
#[derive(Clone, Debug)]
pub struct WorkspaceBuilder {
    source: SourceOptions,
    limits: Limits,
    index_budget: usize,
    content_budget: usize,
    outline_budget: usize,
    allow_write: bool,
    words: &'static dyn Words,
}

impl Default for WorkspaceBuilder {
    fn default() -> WorkspaceBuilder {
        WorkspaceBuilder {
            source: SourceOptions::default(),
            limits: Limits::default(),
            index_budget: DEFAULT_INDEX_BUDGET,
            content_budget: DEFAULT_CONTENT_BUDGET,
            outline_budget: DEFAULT_OUTLINE_BUDGET,
            allow_write: false,
            words: &NEUTRAL,
        }
    }
}

/// A regex parameter of a tool, for [`Workspace::regex_param`].
pub struct RegexParam<'a> {
    /// The parameter's name as the front-end spells it.
    pub name: &'a str,
    /// The pattern as given (echoed in errors).
    pub pattern: &'a str,
    /// The regex compiled from it (escaped or bounded as the tool asks; else the pattern).
    pub source: &'a str,
    pub case_insensitive: bool,
    /// How to mend a pattern that does not compile, for this parameter.
    pub fix: &'a str,
    /// How to match one line instead, for this parameter.
    pub line_fix: &'a str,
}

impl WorkspaceBuilder {
    pub fn new() -> WorkspaceBuilder {
        WorkspaceBuilder::default()
    }

    /// The front-end's words for operations and fields, used in the engine's messages
    /// (default: [`NEUTRAL`]).
    pub fn words(&mut self, words: &'static dyn Words) -> &mut WorkspaceBuilder {
        self.words = words;
        self
    }

    /// Files at least this large are memory-mapped; smaller ones are read.
    pub fn mmap_threshold(&mut self, bytes: u64) -> &mut WorkspaceBuilder {
        self.source.mmap_threshold = bytes;
        self
    }

    /// How long one search may run (`None`: as long as it takes).
    pub fn search_timeout(&mut self, limit: Option<std::time::Duration>) -> &mut WorkspaceBuilder {
        self.limits.search_timeout = limit;
        self
    }

    /// Bytes of file text one response may carry.
    pub fn max_output_bytes(&mut self, bytes: usize) -> &mut WorkspaceBuilder {
        self.limits.max_output_bytes = bytes.max(1);
        self
    }

    /// Byte budget of the line-index cache.
    pub fn index_budget(&mut self, bytes: usize) -> &mut WorkspaceBuilder {
        self.index_budget = bytes;
        self
    }

    /// Byte budget of the file-content cache: a long-lived server keeps the bytes of files it
    /// searched (up to 8 MiB each) and re-reads only files whose identity changed. 0 disables.
    pub fn content_budget(&mut self, bytes: usize) -> &mut WorkspaceBuilder {
        self.content_budget = bytes;
        self
    }

    /// Byte budget of the markdown outline cache (heading trees of documents, by identity),
    /// and separately of the code structure cache (`file_read`).
    pub fn outline_budget(&mut self, bytes: usize) -> &mut WorkspaceBuilder {
        self.outline_budget = bytes;
        self
    }

    /// Whether edits (`doc_replace`) may write files. Off by default: the workspace is
    /// read-only.
    pub fn allow_write(&mut self, yes: bool) -> &mut WorkspaceBuilder {
        self.allow_write = yes;
        self
    }

    pub fn build(&self, roots: Roots) -> Workspace {
        Workspace {
            roots,
            source: self.source.clone(),
            limits: self.limits.clone(),
            indexes: Mutex::new(FileCache::new(self.index_budget)),
            contents: Mutex::new(FileCache::new(self.content_budget)),
            seen: Mutex::new(HashSet::new()),
            has_contents: std::sync::atomic::AtomicBool::new(false),
            content_budget: self.content_budget,
            parses: Mutex::new(LruCache::new(self.outline_budget)),
            allow_write: self.allow_write,
            words: self.words,
            regexes: Mutex::new(LruCache::new(REGEX_CACHE_BYTES)),
            states: Mutex::new(HashMap::new()),
        }
    }
}

/// A file opened for one call: its bytes and their line index.
pub struct OpenFile {
    pub source: Source,
    pub index: Arc<LineIndex>,
    /// When set, only this many first bytes are indexed and read (a read of the first lines
    /// of a large file, see `read`).
    pub prefix: Option<usize>,
}

impl OpenFile {
    /// The bytes read: the file's, or the indexed prefix of them.
    pub fn bytes(&self) -> &[u8] {
        let bytes = self.source.bytes();
        match self.prefix {
            Some(n) => &bytes[..n.min(bytes.len())],
            None => bytes,
        }
    }

    pub fn total_lines(&self) -> u64 {
        self.index.total_lines(self.source.bytes())
    }
}

/// Parses of files by path and type, tagged with the identity of the bytes parsed.
type ParseCache = LruCache<(PathBuf, TypeId), FileId, Arc<dyn Any + Send + Sync>>;

/// Compiled line regexes by pattern list (one pattern, or the alternation of several) and
/// case-insensitivity.
type RegexCache = LruCache<(Vec<String>, bool), (), Arc<Regex>>;

/// Long-lived engine state; share it behind an `Arc`.
pub struct Workspace {
    roots: Roots,
    source: SourceOptions,
    limits: Limits,
    indexes: Mutex<FileCache<Arc<LineIndex>>>,
    contents: Mutex<FileCache<Arc<[u8]>>>,
    /// The content cache's doorkeeper: hashes of the paths read once (a file enters the
    /// cache when it is read again; see [`Workspace::admits_content`]).
    seen: Mutex<HashSet<u64>>,
    /// Whether anything entered the content cache yet (a fresh server's first scan then
    /// skips looking it up).
    has_contents: std::sync::atomic::AtomicBool,
    content_budget: usize,
    /// Parses of files (markdown outlines, code structures), by path and type.
    parses: Mutex<ParseCache>,
    allow_write: bool,
    words: &'static dyn Words,
    regexes: Mutex<RegexCache>,
    /// State the engine's modules keep in the workspace, one value per type (grep's walk
    /// lists).
    states: Mutex<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
}

impl Workspace {
    pub fn new(roots: Roots) -> Workspace {
        WorkspaceBuilder::new().build(roots)
    }

    pub fn roots(&self) -> &Roots {
        &self.roots
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The words the engine's messages use for operations and fields.
    pub fn words(&self) -> &'static dyn Words {
        self.words
    }

    /// Resolves a caller's path inside the roots (see [`Roots::resolve`]).
    pub fn resolve(&self, path: &str) -> Result<PathBuf> {
        self.roots.resolve(path)
    }

    /// Resolves `path` and opens it as a regular file, without indexing it.
    pub fn open_source(&self, path: &str) -> Result<Source> {
        let resolved = self.resolve(path)?;
        self.open_resolved(&resolved)
    }

    /// Opens a path [`Workspace::resolve`] gave as a regular file, without indexing it.
    pub fn open_resolved(&self, resolved: &Path) -> Result<Source> {
        Source::open(resolved, &self.source)
    }

    /// Resolves and opens `path` and gives its line index (cached). Binary files are refused.
    pub fn open(&self, path: &str) -> Result<OpenFile> {
        let source = self.open_source(path)?;
        source.refuse_binary(path)?;
        let index = self.index(&source);
        Ok(OpenFile {
            source,
            index,
            prefix: None,
        })
    }

    /// Whether the line index of `source` (as it is now) is cached.
    pub fn has_index(&self, source: &Source) -> bool {
        let cached = self
            .indexes
            .lock()
            .expect("index cache lock")
            .get(source.path());
        cached.is_some_and(|(id, _)| id == source.id())
    }

    /// The line index of an opened source: cached by file identity, extended when the file
    /// only grew, rebuilt otherwise.
    pub fn index(&self, source: &Source) -> Arc<LineIndex> {
        self.index_bytes(source.path(), source.id(), source.bytes())
    }

    /// The line index of `bytes`, the text of the file at canonical `key` with identity `id`
    /// (cached like [`Workspace::index`]).
    pub fn index_bytes(&self, key: &Path, id: FileId, bytes: &[u8]) -> Arc<LineIndex> {
        let cached = self.indexes.lock().expect("index cache lock").get(key);
        let previous = match cached {
            Some((cached_id, index)) if cached_id == id => return index,
            // Same file, longer: if it only grew, the index is extended, not rebuilt.
            Some((cached_id, index)) if cached_id.same_file(&id) && id.len > cached_id.len => {
                Some(index)
            }
            _ => None,
        };
        let index = previous
            .and_then(|old| old.extended(bytes))
            .unwrap_or_else(|| LineIndex::build(bytes));
        let index = Arc::new(index);
        if (id.dev != 0 || id.ino != 0) && !id.is_racy(std::time::SystemTime::now()) {
            let cost = index.heap_bytes();
            self.indexes.lock().expect("index cache lock").insert(
                key.to_path_buf(),
                id,
                Arc::clone(&index),
                cost,
            );
        }
        index
    }

    /// A parse of `source` (`build` gives the value and its heap cost, or `None` if the file
    /// is not to be parsed): cached by file identity and type within the parse budget (a
    /// changed file is parsed again; files changed within the racy window are not cached).
    ///
    /// Another process may rewrite a mapped file while it is parsed. With `snapshot`, `build`
    /// reads a copy this process owns (for parsers that keep views into their input, such as
    /// validated strings); without it, `build` reads the mapping and must not care that its
    /// bytes may change (a parser that reads them once into text of its own and never panics
    /// on any bytes, fuzzed as such: the markdown outline). Either way a file that shrank is
    /// `Err(Changed)`, and a parse that raced a write is not cached.
    pub fn parsed<T: Any + Send + Sync>(
        &self,
        source: &Source,
        snapshot: bool,
        build: impl FnOnce(&[u8]) -> Option<(T, usize)>,
    ) -> Result<Option<Arc<T>>, Error> {
        if let Some(value) = self.cached_parse::<T>(source) {
            return Ok(Some(value));
        }
        // Parsing reads every byte: map the whole file in one go.
        source.prefault();
        let copy;
        let bytes = if snapshot && source.is_mapped() {
            copy = source.bytes().to_vec();
            copy.as_slice()
        } else {
            source.bytes()
        };
        let built = build(bytes);
        source.check_intact()?;
        let Some((value, cost)) = built else {
            return Ok(None);
        };
        Ok(Some(self.remember_parse(source, value, cost)))
    }

    /// The parse of type `T` the cache holds for `source`'s current version, if any.
    pub fn cached_parse<T: Any + Send + Sync>(&self, source: &Source) -> Option<Arc<T>> {
        let key = (source.path().to_path_buf(), TypeId::of::<T>());
        let (cached_id, value) = self.parses.lock().expect("parse cache lock").get(&key)?;
        (cached_id == source.id())
            .then(|| value.downcast::<T>().ok())
            .flatten()
    }

    /// Keeps `value`, a parse of `source` costing `cost` heap bytes, unless the file may
    /// still be changing (its identity is racy, or it changed under its mapping).
    pub fn remember_parse<T: Any + Send + Sync>(
        &self,
        source: &Source,
        value: T,
        cost: usize,
    ) -> Arc<T> {
        let id = source.id();
        let value = Arc::new(value);
        if (id.dev != 0 || id.ino != 0)
            && !id.is_racy(std::time::SystemTime::now())
            && source.check_intact().is_ok()
        {
            let key = (source.path().to_path_buf(), TypeId::of::<T>());
            let shared: Arc<dyn Any + Send + Sync> = Arc::clone(&value) as _;
            self.parses
                .lock()
                .expect("parse cache lock")
                .insert(key, id, shared, cost);
        }
        value
    }

    /// Bytes the parse cache holds now.
    pub fn parse_cache_bytes(&self) -> usize {
        self.parses.lock().expect("parse cache lock").bytes()
    }

    /// The workspace's one value of type `T` (created empty on first use): state an engine
    /// module keeps across calls without the workspace knowing its type.
    pub fn state<T: Default + Send + Sync + 'static>(&self) -> Arc<T> {
        let mut states = self.states.lock().expect("state lock");
        let any = states
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Arc::new(T::default()) as Arc<dyn Any + Send + Sync>);
        Arc::clone(any).downcast::<T>().expect("keyed by its type")
    }

    /// Whether edits may write files (`--allow-write`).
    pub fn allows_write(&self) -> bool {
        self.allow_write
    }

    /// The content cache's byte budget.
    pub fn content_budget(&self) -> usize {
        self.content_budget
    }

    /// Whether the content cache is on.
    pub fn caches_contents(&self) -> bool {
        self.content_budget > 0
    }

    /// The cached bytes of `path` with the identity of the file they were read from, for a
    /// caller that knows the file's current identity without looking at it again.
    pub fn cached_version(&self, path: &Path) -> Option<(FileId, Arc<[u8]>)> {
        if !self.has_contents.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        self.contents.lock().expect("content cache lock").get(path)
    }

    /// Whether the content cache would keep `path` once read: when it was read before (the
    /// doorkeeper remembers paths read once), so a one-off scan (a fresh server's first
    /// search) neither fills the cache nor needs the identity of every file it reads.
    pub fn admits_content(&self, path: &Path) -> bool {
        if !self.caches_contents() {
            return false;
        }
        let key = {
            let mut h = std::hash::DefaultHasher::new();
            path.hash(&mut h);
            h.finish()
        };
        let mut seen = self.seen.lock().expect("doorkeeper lock");
        if seen.len() >= MAX_SEEN {
            seen.clear();
        }
        !seen.insert(key)
    }

    /// Remembers the bytes of `path` as read from a file with identity `id`. `chosen`: the
    /// file was picked for this search (by the trigram index), so it may evict the least
    /// recently used; else (a scan's file) it is kept only if it fits, as a scan would
    /// otherwise evict everything in turn.
    pub fn cache_content(&self, path: &Path, id: FileId, bytes: &[u8], chosen: bool) {
        if !self.caches_contents()
            || id.len > MAX_CACHED_FILE
            || bytes.len() as u64 != id.len
            || id.is_racy(std::time::SystemTime::now())
        {
            return;
        }
        let value: Arc<[u8]> = Arc::from(bytes);
        let mut cache = self.contents.lock().expect("content cache lock");
        self.has_contents
            .store(true, std::sync::atomic::Ordering::Relaxed);
        if chosen {
            cache.insert(path.to_path_buf(), id, value, bytes.len());
        } else {
            cache.insert_if_room(path.to_path_buf(), id, value, bytes.len());
        }
    }

    /// Bytes the content cache holds now.
    pub fn content_cache_bytes(&self) -> usize {
        self.contents.lock().expect("content cache lock").bytes()
    }

    /// Bytes the line-index cache holds now.
    pub fn index_cache_bytes(&self) -> usize {
        self.indexes.lock().expect("index cache lock").bytes()
    }

    /// Compiles (or fetches from the cache) a line-oriented regex: `^`/`$` match at line
    /// boundaries (CRLF-aware), Unicode on.
    pub fn regex(
        &self,
        pattern: &str,
        case_insensitive: bool,
    ) -> Result<Arc<Regex>, Box<regex_automata::meta::BuildError>> {
        self.regex_any(&[pattern.to_string()], case_insensitive)
    }

    /// Compiles (or fetches from the cache) a line regex that matches a line when any of
    /// `patterns` matches it ([`crate::matcher::build_line_regex_any`]); for one pattern, its
    /// [`Workspace::regex`].
    pub fn regex_any(
        &self,
        patterns: &[String],
        case_insensitive: bool,
    ) -> Result<Arc<Regex>, Box<regex_automata::meta::BuildError>> {
        let key = (patterns.to_vec(), case_insensitive);
        if let Some(((), re)) = self.regexes.lock().expect("regex cache lock").get(&key) {
            return Ok(re);
        }
        let re = Arc::new(crate::matcher::build_line_regex_any(
            patterns,
            case_insensitive,
        )?);
        let cost = re.memory_usage();
        self.regexes
            .lock()
            .expect("regex cache lock")
            .insert(key, (), Arc::clone(&re), cost);
        Ok(re)
    }

    /// A tool's regex parameter compiled as a line regex, checked and worded once for every
    /// tool that takes one: a pattern that does not compile or is too large
    /// ([`ParamError::regex`]), or that can only match across a line break
    /// ([`ParamError::needs_line_break`]). `provided` makes the `You provided:` line.
    pub fn regex_param(
        &self,
        p: &RegexParam<'_>,
        provided: &dyn Fn() -> String,
    ) -> std::result::Result<Arc<Regex>, ParamError> {
        let re = self
            .regex(p.source, p.case_insensitive)
            .map_err(|e| ParamError::regex(p.name, p.pattern, &e, provided(), p.fix))?;
        if !crate::matcher::can_match_within_a_line(p.source, p.case_insensitive) {
            return Err(ParamError::needs_line_break(
                p.name,
                p.pattern,
                provided(),
                p.line_fix,
            ));
        }
        Ok(re)
    }

    /// Bytes of compiled regexes held by the regex cache.
    pub fn regex_cache_bytes(&self) -> usize {
        self.regexes.lock().expect("regex cache lock").bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_regex_cache_stays_within_its_byte_budget() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(Roots::new([dir.path()]).unwrap());
        let mut compiled = 0;
        for i in 0..256 {
            let re = ws.regex(&format!(r"\w{{40}}Q{i}"), false).unwrap();
            compiled += re.memory_usage();
            assert!(ws.regex_cache_bytes() <= REGEX_CACHE_BYTES);
        }
        assert!(
            compiled > 4 * REGEX_CACHE_BYTES,
            "{compiled} bytes compiled in all"
        );
        // The latest patterns are the ones kept.
        let again = ws.regex(r"\w{40}Q255", false).unwrap();
        assert!(ws.regex_cache_bytes() > REGEX_CACHE_BYTES / 2);
        drop(again);
    }

    #[test]
    fn a_changed_file_is_reindexed_and_a_grown_one_extended() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f.txt");
        std::fs::write(&f, "a\nb\n").unwrap();
        let ws = Workspace::new(Roots::new([dir.path()]).unwrap());
        let open = ws.open("f.txt").unwrap();
        assert_eq!(open.total_lines(), 2);
        std::fs::write(&f, "a\nb\nc\n").unwrap();
        assert_eq!(ws.open("f.txt").unwrap().total_lines(), 3);
        std::fs::write(&f, "x\n").unwrap();
        assert_eq!(ws.open("f.txt").unwrap().total_lines(), 1);
    }

    #[test]
    fn the_cache_stays_within_its_budget() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..50 {
            std::fs::write(dir.path().join(format!("{i}.txt")), "x\n").unwrap();
        }
        let ws = WorkspaceBuilder::new()
            .index_budget(1000)
            .build(Roots::new([dir.path()]).unwrap());
        for i in 0..50 {
            ws.open(&format!("{i}.txt")).unwrap();
            assert!(ws.index_cache_bytes() <= 1000);
        }
    }
}
