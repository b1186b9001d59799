//! The answers of reference searches kept between calls: a page after the first costs its
//! rendering, not a new search, while nothing changed.

use super::{Page, References, RefsQuery};
use crate::error::RequestError;
use crate::grep::Progress;
use crate::workspace::Workspace;

/// The answers kept for the pages after the first (a search costs what its files cost, a
/// page only its rendering): the last few, each with the state of the index it was found
/// under; an edit since (a file changed, the index moved on) makes it a new search.
static KEPT: std::sync::Mutex<Vec<(Key, std::sync::Arc<References>)>> =
    std::sync::Mutex::new(Vec::new());
const KEPT_ANSWERS: usize = 4;

/// A search and the state it was made in: the workspace, the query, and per indexed root
/// its index (by identity: a weak reference keeps its address from being reused) and the
/// paths changed since it.
#[derive(Clone)]
struct Key {
    ws: usize,
    query: (String, Option<String>, Vec<String>, Vec<String>, bool, bool),
    state: Vec<(
        std::sync::Weak<crate::index::TrigramIndex>,
        Vec<std::path::PathBuf>,
    )>,
}

impl PartialEq for Key {
    fn eq(&self, o: &Key) -> bool {
        self.ws == o.ws
            && self.query == o.query
            && self.state.len() == o.state.len()
            && self
                .state
                .iter()
                .zip(&o.state)
                .all(|(a, b)| std::sync::Weak::ptr_eq(&a.0, &b.0) && a.1 == b.1)
    }
}

/// [`super::find`], or its answer kept from a search of the same query when nothing changed
/// since (only where every root is indexed and its watcher trusted: else a new search).
/// With `first`, only the first page is asked for: an answer whose later uses were only
/// counted ([`super::find_first`]) does.
pub fn find_kept(
    ws: &Workspace,
    q: &RefsQuery,
    progress: &Progress,
    first: Option<Page>,
) -> Result<std::sync::Arc<References>, RequestError> {
    let key = key_of(ws, q);
    if let Some(k) = &key
        && let Some((_, r)) = KEPT
            .lock()
            .expect("kept")
            .iter()
            .find(|(kk, r)| kk == k && (first.is_some() || r.counted == 0))
    {
        return Ok(std::sync::Arc::clone(r));
    }
    let r = std::sync::Arc::new(match first {
        Some(page) => super::find_first(ws, q, progress, page)?,
        None => super::find(ws, q, progress)?,
    });
    if let Some(k) = key
        && !r.timed_out
    {
        let mut kept = KEPT.lock().expect("kept");
        kept.retain(|(kk, _)| kk.ws != k.ws || kk.query != k.query);
        if kept.len() >= KEPT_ANSWERS {
            kept.remove(0);
        }
        kept.push((k, std::sync::Arc::clone(&r)));
    }
    Ok(r)
}

fn key_of(ws: &Workspace, q: &RefsQuery) -> Option<Key> {
    let mut state = Vec::new();
    for root in ws.roots().as_slice() {
        let view = crate::index::root_view(ws, root, true)?;
        if !view.trusted {
            return None;
        }
        state.push((std::sync::Arc::downgrade(&view.index), view.dirty));
    }
    let s = &q.scope;
    Some(Key {
        ws: ws as *const Workspace as usize,
        query: (
            q.name.trim().to_string(),
            q.lang.clone(),
            s.search_paths.clone(),
            s.globs.clone(),
            s.include_hidden,
            s.include_ignored,
        ),
        state,
    })
}
