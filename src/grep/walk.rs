//! The walk over a search directory: `ignore`'s parallel walker, or, in a server, the cached
//! and revalidated file list searched by a fixed set of workers.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use ignore::{WalkBuilder, WalkState};

use super::file::{Admit, Ctx, Scratch};
use super::{GrepError, GrepQuery, WalkCache, WalkKey, WalkList};

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

/// Searches every file under `dir`: the files the trigram index cannot rule out, if it is
/// ready; else inline with the parallel walk, or — in a server that keeps file lists, from
/// a walk's second time on — over the cached, revalidated list.
pub(super) fn walk(ctx: &Ctx<'_>, dir: &Path) -> Result<(), GrepError> {
    let wb = walk_builder(ctx.q, dir, ctx.ws.words())?;
    if indexed(ctx, dir, &wb) {
        return Ok(());
    }
    if ctx.ws.caches_contents() {
        let key = WalkKey {
            dir: dir.to_path_buf(),
            include_hidden: ctx.q.include_hidden,
            include_ignored: ctx.q.include_ignored,
            globs: ctx.q.globs.clone(),
            max_filesize: ctx.q.max_filesize,
            types: (ctx.q.types.clone(), ctx.q.types_not.clone()),
            follow_links: ctx.q.follow_links,
            display_prefix: ctx.display.prefix.clone(),
        };
        let cache = ctx.ws.state::<WalkCache>();
        if let Some(list) = cache.fresh(&key) {
            for e in &list.errors {
                ctx.stats.error(e.clone());
            }
            search_list(ctx, &list.files, Some(&list.names), None);
            return Ok(());
        }
        // No list yet (or a stale one): search the files as the walk finds them, and keep
        // the list it makes (unless the search was stopped) if this walk is not a first.
        if !cache.walked_before(&key) {
            return stream(ctx, dir, &wb);
        }
        let list = WalkList::build(
            &wb,
            &key,
            |p| ctx.display.of(p),
            || {
                let mut scratch = Scratch::new(ctx.compiled);
                move |path: &Path, name: &str| walked_file(ctx, dir, path, Some(name), &mut scratch)
            },
        );
        if let Some(list) = list {
            for e in &list.errors {
                ctx.stats.error(e.clone());
            }
            cache.keep(key, list);
        }
        return Ok(());
    }
    stream(ctx, dir, &wb)
}

/// Searches every file under `dir` as the walk finds them.
fn stream(ctx: &Ctx<'_>, dir: &Path, wb: &WalkBuilder) -> Result<(), GrepError> {
    let ctx = &Ctx {
        admit: Admit::Never,
        ..*ctx
    };
    wb.build_parallel().run(|| {
        let mut scratch = Scratch::new(ctx.compiled);
        Box::new(move |entry| {
            if ctx.progress.is_cancelled() {
                return WalkState::Quit;
            }
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    ctx.stats.error(e.to_string());
                    return WalkState::Continue;
                }
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            if walked_file(ctx, dir, entry.path(), None, &mut scratch) {
                WalkState::Continue
            } else {
                WalkState::Quit
            }
        })
    });
    Ok(())
}

/// Searches a file a walk of `dir` found (displayed as `name` if known); false once the
/// search is cancelled.
fn walked_file(
    ctx: &Ctx<'_>,
    dir: &Path,
    path: &Path,
    name: Option<&str>,
    scratch: &mut Scratch,
) -> bool {
    if ctx.progress.is_cancelled() {
        return false;
    }
    // The walk starts inside a root and never follows links; a final check costs nothing
    // and keeps the invariant local.
    if ctx.ws.roots().contains(path) || path.starts_with(dir) {
        ctx.search_file(path, name, None, scratch);
    }
    true
}

/// Searches `files` (with their display names if known, and what the index knows of each:
/// its current identity and the only spans that can match) on a fixed set of workers
/// pulling from a shared counter: each keeps one scratch (buffer + regex cache) for the
/// whole call, so the lazy DFA is built once per thread.
fn search_list(
    ctx: &Ctx<'_>,
    files: &[std::path::PathBuf],
    names: Option<&[String]>,
    known: Option<&[Option<crate::index::Known>]>,
) {
    let known_of = |i: usize| known.and_then(|k| k[i].as_ref());
    ctx.progress
        .files_total
        .fetch_add(files.len() as u64, Ordering::Relaxed);
    let next = AtomicU64::new(0);
    let threads = ctx
        .q
        .threads
        .unwrap_or_else(rayon::current_num_threads)
        .clamp(1, files.len().max(1));
    if threads == 1 {
        let mut scratch = Scratch::new(ctx.compiled);
        for (i, f) in files.iter().enumerate() {
            if ctx.progress.is_cancelled() {
                break;
            }
            ctx.search_file(f, names.map(|n| n[i].as_str()), known_of(i), &mut scratch);
        }
        return;
    }
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut scratch = Scratch::new(ctx.compiled);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                    if i >= files.len() || ctx.progress.is_cancelled() {
                        break;
                    }
                    let name = names.map(|n| n[i].as_str());
                    ctx.search_file(&files[i], name, known_of(i), &mut scratch);
                }
            });
        }
    });
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

/// Searches `dir` through the trigram index if the workspace has a ready one for it and the
/// pattern requires trigrams: only the files it cannot rule out are read. False: scan.
fn indexed(ctx: &Ctx<'_>, dir: &Path, wb: &WalkBuilder) -> bool {
    let q = ctx.q;
    if !q.use_index {
        return false;
    }
    let sq = select_query(q, &ctx.compiled.pattern);
    let mut note = None;
    let sel = crate::index::select(ctx.ws, dir, &sq, wb, &mut note);
    if let Some(n) = note {
        *ctx.progress.note.lock().expect("note") = Some(n);
    }
    let Some(sel) = sel else {
        return false;
    };
    for e in &sel.errors {
        ctx.stats.error(e.clone());
    }
    for b in &sel.binary {
        let name = ctx.display.of(b);
        // As the scan: files before a cursor (or after a full cap) are not looked at.
        if !ctx.collector.lock().expect("collector").wants(&name) {
            continue;
        }
        super::collect::record(
            ctx.collector,
            ctx.stats,
            &name,
            super::collect::FileResult::Binary,
        );
    }
    ctx.stats.used_index(&sel.used);
    // Files the index ruled out were searched, through it.
    ctx.stats
        .searched
        .fetch_add(sel.used.ruled_out, Ordering::Relaxed);
    // The files picked may evict others when they all fit (half the budget, so that a few
    // queries' picks stay together).
    let admit = if sel.bytes <= ctx.ws.content_budget() as u64 / 2 {
        Admit::Evict
    } else {
        Admit::IfRoom
    };
    let ctx = &Ctx { admit, ..*ctx };
    search_list(ctx, &sel.search, None, Some(&sel.known));
    true
}
