//! The walk over a search directory as the query sets it (ignore rules, hidden files, links,
//! size limit, globs and types), and the trigram index's view of the query.

use std::path::Path;

use ignore::WalkBuilder;

use super::{GrepError, GrepQuery};

pub(super) fn walk_builder(
    q: &GrepQuery,
    dir: &Path,
    w: &dyn crate::words::Words,
) -> Result<WalkBuilder, GrepError> {
    walk_builder_below(q, dir, dir, w)
}

/// The walk of `start`, a directory at or below the search directory `dir` (the query's globs
/// are relative to `dir`; ignore files above `start` apply as they do to a walk of `dir`).
pub(super) fn walk_builder_below(
    q: &GrepQuery,
    dir: &Path,
    start: &Path,
    w: &dyn crate::words::Words,
) -> Result<WalkBuilder, GrepError> {
    let mut wb = WalkBuilder::new(start);
    let standard = !q.include_ignored;
    wb.hidden(!q.include_hidden)
        .ignore(standard)
        .git_ignore(standard)
        .git_global(standard)
        .git_exclude(standard)
        .parents(standard)
        .follow_links(q.follow_links)
        .max_filesize(q.max_filesize)
        .threads(q.threads.unwrap_or_else(rayon::current_num_threads));
    if !q.globs.is_empty() {
        let mut ob = ignore::overrides::OverrideBuilder::new(dir);
        for g in &q.globs {
            ob.add(g)
                .map_err(|e| GrepError::Param(q.glob_error(w, g, &e.to_string())))?;
        }
        let ov = ob
            .build()
            .map_err(|e| GrepError::Param(q.glob_error(w, &q.globs.join(", "), &e.to_string())))?;
        wb.overrides(ov);
    }
    if !q.types.is_empty() || !q.types_not.is_empty() {
        let mut tb = ignore::types::TypesBuilder::new();
        tb.add_defaults();
        for t in &q.types {
            tb.select(t);
        }
        for t in &q.types_not {
            tb.negate(t);
        }
        let types = tb
            .build()
            .map_err(|e| GrepError::Param(q.type_error(w, &e.to_string())))?;
        wb.types(types);
    }
    Ok(wb)
}

/// The index's view of a query: its regex and whether its walk is the default one.
pub(super) fn select_query<'a>(q: &GrepQuery, pattern: &'a str) -> crate::index::SelectQuery<'a> {
    crate::index::SelectQuery {
        pattern,
        case_insensitive: q.case_insensitive,
        default_walk: q.globs.is_empty()
            && q.types.is_empty()
            && q.types_not.is_empty()
            && !q.follow_links
            && !q.include_hidden
            && !q.include_ignored,
        max_filesize: q.max_filesize,
    }
}
