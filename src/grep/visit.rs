//! The files a search would read, handed to a visitor: for a front-end that matches and prints
//! by itself (the command line's ripgrep-compatible modes: inverted, counted, only-matching,
//! JSON with byte offsets). The same paths, walk, ignore rules, globs, types, size limit and
//! binary rule as [`super::search`].

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use ignore::WalkState;

use super::collect::Display;
use super::walk::walk_builder;
use super::{GrepError, GrepQuery, Progress};
use crate::error::Error;
use crate::source::{self, SourceOptions};
use crate::workspace::Workspace;

/// What a visit went through.
#[derive(Clone, Debug, Default)]
pub struct Visited {
    /// Text files handed to the visitor.
    pub files: u64,
    /// Files skipped as binary (a NUL in their first 64 KiB).
    pub binary_skipped: u64,
    /// Files or directories that could not be read: messages, sorted.
    pub errors: Vec<String>,
    /// How the trigram index narrowed the files read (`None`: every file was read).
    pub index: Option<crate::index::IndexUse>,
}

/// One text file: its display name and bytes (a UTF-8 BOM skipped, UTF-16 transcoded).
pub struct VisitedFile<'a> {
    /// Which of the query's paths it was found under (0-based).
    pub given: usize,
    pub name: &'a str,
    pub bytes: &'a [u8],
}

/// Calls `visit` for every text file the query's paths name or contain, from several threads
/// at once, in no particular order. With `names_only` the files are not read (nor tested
/// for binary content) and `visit` gets empty bytes.
pub fn visit_files(
    ws: &Workspace,
    q: &GrepQuery,
    progress: &Progress,
    names_only: bool,
    visit: &(dyn Fn(VisitedFile<'_>) + Sync),
) -> Result<Visited, GrepError> {
    let w = ws.words();
    let files = AtomicU64::new(0);
    let binary = AtomicU64::new(0);
    let errors = Mutex::new(Vec::new());
    let mut index_use: Option<crate::index::IndexUse> = None;
    let one = |given: usize, path: &Path, name: &str, buf: &mut Vec<u8>| {
        if names_only {
            files.fetch_add(1, Ordering::Relaxed);
            visit(VisitedFile {
                given,
                name,
                bytes: &[],
            });
            return;
        }
        // Files are opened by canonical path (no link in it); a walk that follows links
        // reaches them through links, so it opens what the link leads to.
        let canonical;
        let open = if q.follow_links {
            match std::fs::canonicalize(path) {
                Ok(p) => {
                    canonical = p;
                    canonical.as_path()
                }
                Err(e) => {
                    let e = Error::io(path, e);
                    errors.lock().expect("errors").push(e.to_string());
                    return;
                }
            }
        } else {
            path
        };
        match source::load(
            open,
            &SourceOptions::for_search(super::file::WALK_MMAP_MIN, false),
            buf,
        ) {
            Ok((_, hay)) => {
                if source::looks_binary(&hay) {
                    binary.fetch_add(1, Ordering::Relaxed);
                    return;
                }
                let done = source::guard_mapped(hay.is_mapped(), path, || {
                    visit(VisitedFile {
                        given,
                        name,
                        bytes: &hay,
                    })
                });
                if done.is_err() || !hay.intact() {
                    let e = Error::Changed {
                        path: path.to_path_buf(),
                    };
                    errors.lock().expect("errors").push(e.to_string());
                }
                files.fetch_add(1, Ordering::Relaxed);
                progress.files_searched.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => errors.lock().expect("errors").push(e.to_string()),
        }
    };
    for (index, given) in q.paths().into_iter().enumerate() {
        let resolved = ws
            .resolve(&given)
            .map_err(|e| GrepError::Param(q.path_error(w, &given, &e)))?;
        let md = std::fs::metadata(&resolved).map_err(|e| {
            GrepError::Param(q.path_error(w, &given, &Error::io(Path::new(&given), e)))
        })?;
        let display = Display::new(ws, q, &given, &resolved);
        if !md.is_dir() {
            one(index, &resolved, &display.of(&resolved), &mut Vec::new());
            continue;
        }
        let wb = walk_builder(q, &resolved, w)?;
        if let Some(sel) = indexed(ws, q, &resolved, &wb, names_only) {
            binary.fetch_add(sel.binary.len() as u64, Ordering::Relaxed);
            files.fetch_add(sel.used.ruled_out, Ordering::Relaxed);
            let u = index_use.get_or_insert_with(Default::default);
            u.in_scope += sel.used.in_scope;
            u.searched += sel.used.searched;
            u.validated |= sel.used.validated;
            let mut buf = Vec::new();
            for f in &sel.search {
                one(index, f, &display.of(f), &mut buf);
            }
            continue;
        }
        wb.build_parallel().run(|| {
            let mut buf = Vec::new();
            let (one, display, errors) = (&one, &display, &errors);
            Box::new(move |entry| {
                if progress.cancelled.load(Ordering::Relaxed) {
                    return WalkState::Quit;
                }
                match entry {
                    Ok(e) if e.file_type().is_some_and(|t| t.is_file()) => {
                        one(index, e.path(), &display.of(e.path()), &mut buf);
                    }
                    Ok(_) => {}
                    Err(e) => errors.lock().expect("errors").push(e.to_string()),
                }
                WalkState::Continue
            })
        });
    }
    let mut errors = errors.into_inner().expect("errors");
    errors.sort();
    Ok(Visited {
        files: files.into_inner(),
        binary_skipped: binary.into_inner(),
        errors,
        index: index_use,
    })
}

/// The files of `dir` a ready trigram index cannot rule out, if the query may use one.
fn indexed(
    ws: &Workspace,
    q: &GrepQuery,
    dir: &Path,
    wb: &ignore::WalkBuilder,
    names_only: bool,
) -> Option<crate::index::Selection> {
    if names_only || !q.use_index {
        return None;
    }
    let pattern = q.regex_source(ws.words()).ok()?;
    let sq = super::walk::select_query(q, &pattern);
    crate::index::select(ws, dir, &sq, wb, &mut None)
}
