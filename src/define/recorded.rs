//! Lookups from the index's symbol records (`crate::symbols`): the sites of every file whose
//! record holds come from the records (no search, no parse); the files whose records do not
//! hold (not recorded yet, changed, dirty) are searched and parsed as without records. Used
//! when the lookup's scope is the index's (the default walk, under indexed roots whose
//! watcher vouches for the index) and few files lack records; otherwise the lookup searches
//! as without records. Either way a candidate file that has a record of the bytes read (by
//! its content checksum: a file recorded from a read inside the racy window, or touched
//! without a change) takes its sites from the record instead of a parse.

use std::path::{Path, PathBuf};

use crate::grep::GrepQuery;
use crate::symbols;
use crate::workspace::Workspace;

use super::{Site, Want};

/// Files lacking records past which the lookup searches as without records.
const MAX_RESCAN: usize = 2_000;

/// What the records answered.
pub(super) struct Recorded {
    pub(super) sites: Vec<Site>,
    /// Files and dirty paths to search and parse directly, as a search displays them.
    pub(super) rescan: Vec<String>,
    /// Files the records cover.
    pub(super) files: usize,
}

/// The scope is the index's: no globs, types, hidden or ignored files, size limit.
fn plain_scope(q: &GrepQuery) -> bool {
    q.globs.is_empty()
        && q.types.is_empty()
        && q.types_not.is_empty()
        && !q.include_hidden
        && !q.include_ignored
        && q.max_filesize.is_none()
        && !q.follow_links
}

/// The lookup of `want` in `scope` from the records; `None` when they cannot answer it.
pub(super) fn lookup(ws: &Workspace, scope: &GrepQuery, want: &Want) -> Option<Recorded> {
    if !plain_scope(scope) {
        return None;
    }
    let given = scope_paths(scope);
    let mut dirs = Vec::with_capacity(given.len());
    for g in &given {
        // A path that is not there: the search says so, with its error.
        let d = ws.resolve(g).ok().filter(|d| d.exists())?;
        dirs.push(d);
    }
    let lk = symbols::definitions(ws, &dirs, &want.last, MAX_RESCAN)?;
    let show = |abs: &Path| display(ws, scope, &given, &dirs, abs);
    let sites = lk
        .definitions
        .iter()
        .filter_map(|d| site_of(d, want, || show(&d.path)))
        .collect();
    // Paths gone since (a deleted file still dirty, or not yet out of the index) hold
    // nothing to find.
    let mut rescan: Vec<String> = lk
        .unrecorded
        .iter()
        .chain(&lk.dirty)
        .filter(|p| p.exists())
        .map(|p| show(p))
        .collect();
    rescan.sort();
    rescan.dedup();
    Some(Recorded {
        sites,
        rescan,
        files: lk.recorded,
    })
}

/// The site a recorded definition `d` makes, shown at `path()`, when it answers `want`.
pub(super) fn site_of(
    d: &symbols::Definition,
    want: &Want,
    path: impl FnOnce() -> String,
) -> Option<Site> {
    if want.lang.is_some_and(|l| Some(l) != d.lang) {
        return None;
    }
    let package: Vec<&str> = d.package.split('.').filter(|p| !p.is_empty()).collect();
    let fit = want.fit_parts(&package, &d.name, d.kind, &d.qualified, &d.parent, d.lang)?;
    Some(Site {
        path: path(),
        lang: d.lang?,
        kind: d.kind,
        name: d.name.clone(),
        qualified: match package.is_empty() {
            true => d.qualified.clone(),
            false => format!("{}.{}", d.package, d.qualified),
        },
        fit,
        address: d.address.clone(),
        start_line: d.def_line,
        end_line: d.end_line,
        doc_line: (d.start_line < d.def_line).then_some(d.start_line),
        signature: String::new(),
        declaration: d.declaration,
        code: None,
    })
}

/// The paths a scope names (the first root when none).
fn scope_paths(q: &GrepQuery) -> Vec<String> {
    if q.search_paths.is_empty() {
        vec![".".to_string()]
    } else {
        q.search_paths.clone()
    }
}

/// `abs` as the search of `scope` would display it: below the first given path that holds
/// it, relative to the first root (a server) or after the path as given (the command line).
fn display(
    ws: &Workspace,
    scope: &GrepQuery,
    given: &[String],
    dirs: &[PathBuf],
    abs: &Path,
) -> String {
    let first_root = &ws.roots().as_slice()[0];
    for (g, d) in given.iter().zip(dirs) {
        let Ok(rel) = abs.strip_prefix(d) else {
            continue;
        };
        let prefix = if scope.relative_to_root {
            match d.strip_prefix(first_root) {
                Ok(r) => crate::platform::slashed(r.to_string_lossy()).into_owned(),
                Err(_) => d.to_string_lossy().into_owned(),
            }
        } else {
            g.clone()
        };
        return crate::grep::join_shown(&prefix, rel.as_os_str().as_encoded_bytes());
    }
    abs.to_string_lossy().into_owned()
}
