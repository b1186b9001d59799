//! The walk over a search directory: `ignore`'s parallel walker, or, in a server, the cached
//! and revalidated file list searched by a fixed set of workers.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use ignore::{WalkBuilder, WalkState};

use super::file::{Ctx, Scratch};
use super::{GrepError, GrepQuery, WalkCache, WalkKey, WalkList};

pub(super) fn walk_builder(
    q: &GrepQuery,
    dir: &Path,
    w: &dyn crate::words::Words,
) -> Result<WalkBuilder, GrepError> {
    let mut wb = WalkBuilder::new(dir);
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

/// Searches every file under `dir`: inline with the parallel walk, or — in a server that
/// keeps file lists — over the cached, revalidated list with rayon.
pub(super) fn walk(ctx: &Ctx<'_>, dir: &Path) -> Result<(), GrepError> {
    let wb = walk_builder(ctx.q, dir, ctx.ws.words())?;
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
        let list = ctx
            .ws
            .state::<WalkCache>()
            .list(&key, || WalkList::build(&wb, &key, |p| ctx.display.of(p)));
        for e in &list.errors {
            ctx.stats.error(e.clone());
        }
        ctx.progress
            .files_total
            .fetch_add(list.files.len() as u64, Ordering::Relaxed);
        // A fixed set of workers pulling files from a shared counter: each keeps one scratch
        // (buffer + regex cache) for the whole call, so the lazy DFA is built once per thread.
        let next = AtomicU64::new(0);
        let threads = ctx
            .q
            .threads
            .unwrap_or_else(rayon::current_num_threads)
            .max(1);
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    let mut scratch = Scratch::new(ctx.compiled);
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                        if i >= list.files.len() || ctx.progress.is_cancelled() {
                            break;
                        }
                        ctx.search_file(&list.files[i], Some(&list.names[i]), &mut scratch);
                    }
                });
            }
        });
        return Ok(());
    }
    let roots = ctx.ws.roots();
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
            let path = entry.path();
            // The walk starts inside a root and never follows links; a final check costs
            // nothing and keeps the invariant local.
            if roots.contains(path) || path.starts_with(dir) {
                ctx.search_file(path, None, &mut scratch);
            }
            WalkState::Continue
        })
    });
    Ok(())
}
