//! What a search of a directory must read, as the index of its root says: the candidates
//! of its trigram query, trusted as the watcher vouches for them (with the dirty paths
//! walked and read directly), or checked by metadata when nothing vouches.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::build::rel_bytes;
use super::live::{
    DirtyWalk, IndexStatus, IndexUse, Indexes, RootState, WalkFound, WalkKey, outside_ignores,
};
use super::persist::os_str;
use super::watch::MAX_DIRTY;
use super::{
    Candidate, FLAG_BINARY, FLAG_RACY, FLAG_UNREAD, Ident, Known, Span, TriQuery, TrigramIndex,
    line_hir, plan,
};
use crate::workspace::Workspace;

/// A search as the index sees it.
pub struct SelectQuery<'a> {
    /// The regex grep compiles (after `fixed_strings` and `word`).
    pub pattern: &'a str,
    pub case_insensitive: bool,
    /// The walk is the default one (no globs, hidden and ignored files skipped).
    pub default_walk: bool,
    pub max_filesize: Option<u64>,
}

/// The files a search of directory `dir` must read, and the binary files it would skip.
pub struct Selection {
    pub search: Vec<PathBuf>,
    /// Beside each of `search`: what the index knows of it (its current identity and the
    /// only parts of it that can match), if it lists it.
    pub known: Vec<Option<Known>>,
    pub binary: Vec<PathBuf>,
    /// Bytes of the candidates the index knows (whole files: what the content cache would
    /// hold of them).
    pub bytes: u64,
    /// What the walks made for the selection could not read (as the scan reports it).
    pub errors: Vec<String>,
    pub used: IndexUse,
}

/// What the index says a search of `dir` (walked by `wb`, the scan's walker for the
/// query) must read: `None` when there is no ready index for `dir` or the pattern requires
/// no trigram (then the caller scans). `note` is told why not, when an index is building.
pub fn select(
    ws: &Workspace,
    dir: &Path,
    q: &SelectQuery<'_>,
    wb: &ignore::WalkBuilder,
    note: &mut Option<String>,
) -> Option<Selection> {
    let st = ws.state::<Indexes>().for_dir(dir)?;
    if st.current().is_none() {
        if let IndexStatus::Building { done, total } = st.status() {
            *note = Some(if total == 0 {
                "the index is being built (listing files); this search scans".into()
            } else {
                format!("the index is being built ({done} of {total} files); this search scans")
            });
        }
        return None;
    };
    let tq = plan(&line_hir(q.pattern, q.case_insensitive)?);
    if tq == TriQuery::All {
        return None;
    }
    let rel = rel_bytes(&st.root, dir);
    let rel = &rel[..];
    check_outside(&st);
    let synced = q.default_walk && st.dirty.sync();
    // The index and the dirty paths that go with it, read together.
    let (ix, dirty, seq) = {
        let d = st.dirty.inner.lock().expect("dirty");
        let ix = st.current()?;
        (ix, d.paths.keys().cloned().collect::<Vec<PathBuf>>(), d.seq)
    };
    let ids = ix.candidate_spans(&tq)?;
    if synced && ix.walked_dir(rel) && dirty.len() <= MAX_DIRTY {
        let dirty = (dirty, seq);
        return Some(watched(&st, &ix, dir, rel, &ids, dirty, q, wb));
    }
    Some(validated(&ix, &ids, &st.root, wb))
}

/// An ignore source outside the root changed since the last look: everything is dirty until
/// the rebuild.
pub(super) fn check_outside(st: &RootState) {
    let outside = outside_ignores(&st.root);
    let changed = {
        let mut seen = st.outside.lock().expect("outside");
        let changed = seen.as_ref().is_some_and(|s| *s != outside);
        *seen = Some(outside);
        changed
    };
    if changed {
        st.dirty.mark(&st.root, &st.root);
    }
}

fn too_big(q: &SelectQuery<'_>, len: u64) -> bool {
    q.max_filesize.is_some_and(|m| len > m)
}

/// The selection with a healthy watcher: candidates outside the dirty paths are trusted as
/// indexed (their identity unchecked), and the dirty paths (and what the index's walk could
/// not read) are walked with the scan's rules.
#[allow(clippy::too_many_arguments)]
fn watched(
    st: &RootState,
    ix: &TrigramIndex,
    dir: &Path,
    rel: &[u8],
    ids: &[Candidate],
    (dirty, seq): (Vec<PathBuf>, u64),
    q: &SelectQuery<'_>,
    wb: &ignore::WalkBuilder,
) -> Selection {
    let range = ix.under(rel);
    let (skip, relevant) = dirty_in_scope(st, ix, dir, range.clone(), dirty);
    let mut picked = pick(st, ix, range.clone(), ids, &skip, q);
    let mut errors = Vec::new();
    if !relevant.is_empty() {
        let key = WalkKey {
            seq,
            dir: dir.to_path_buf(),
            relevant,
            max_filesize: q.max_filesize,
        };
        let found = dirty_walk(st, key, wb);
        picked
            .search
            .extend(found.0.iter().map(|p| (p.clone(), None)));
        errors.extend(found.1.iter().cloned());
        picked.search.sort_by(|a, b| a.0.cmp(&b.0));
        picked.search.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same && later.1.is_none() {
                kept.1 = None;
            }
            same
        });
    }
    let (search, known): (Vec<PathBuf>, Vec<Option<Known>>) = picked.search.into_iter().unzip();
    Selection {
        used: IndexUse {
            in_scope: range.len() as u64,
            searched: search.len() as u64,
            validated: false,
            ruled_out: picked.ruled_out,
        },
        search,
        known,
        binary: picked.binary,
        bytes: picked.bytes,
        errors,
    }
}

/// What the index says of the entries `range` outside the dirty paths (`skip`): the
/// candidates `ids` and the unread files to read, the binary files, how many are ruled out.
fn pick(
    st: &RootState,
    ix: &TrigramIndex,
    range: std::ops::Range<usize>,
    ids: &[Candidate],
    skip: &[bool],
    q: &SelectQuery<'_>,
) -> Picked {
    let mut picked = Picked::default();
    let lo = ids.partition_point(|c| (c.0 as usize) < range.start);
    let cand = ids[lo..]
        .iter()
        .take_while(|c| (c.0 as usize) < range.end)
        .map(|c| (c.0 as usize, Some(&c.1)));
    let path = |i: usize| crate::platform::join_slashed(&st.root, os_str(&ix.file(i).path));
    // Only the candidates and the binary or unread files are looked at (not every file of
    // the scope): the rest are ruled out, counted from the scope's size.
    let special = special_in(ix, range.clone())
        .iter()
        .map(|&i| (i as usize, None));
    let (mut looked, mut too_big_looked) = (0u64, 0u64);
    let mut last = None;
    for (i, spans) in merge_ids(cand, special) {
        let f = ix.file(i);
        if last.replace(i) == Some(i) || skip[i - range.start] {
            continue;
        }
        looked += 1;
        if too_big(q, f.id.len) {
            too_big_looked += 1;
        } else if f.flags & FLAG_UNREAD != 0 {
            picked.search.push((path(i), None));
        } else if let Some(spans) = spans {
            // Not dirty: the watcher vouches that the file is still the version indexed.
            let k = Known {
                id: f.id,
                spans: spans.clone(),
            };
            picked.bytes += f.id.len;
            picked.search.push((path(i), Some(k)));
        } else if f.flags & FLAG_BINARY != 0 {
            picked.binary.push(path(i));
        } else {
            looked -= 1;
        }
    }
    let skipped = skip.iter().filter(|s| **s).count() as u64;
    picked.ruled_out = range.len() as u64 - skipped - looked;
    if q.max_filesize.is_some() {
        // The files too big to search are not ruled out by the index: count them apart.
        let big = range
            .clone()
            .filter(|&i| !skip[i - range.start] && too_big(q, ix.file(i).id.len))
            .count() as u64;
        picked.ruled_out -= big - too_big_looked;
    }
    picked
}

/// The files under the dirty paths of `key` and what their walk could not read: the last
/// search's walk when it was of the same dirty set, else a new walk (kept for the next).
fn dirty_walk(st: &RootState, key: WalkKey, wb: &ignore::WalkBuilder) -> Arc<WalkFound> {
    let kept = st.walked.lock().expect("walked").clone();
    match kept {
        Some(w) if w.key == key => w.found,
        _ => {
            let found = Arc::new(walk_relevant(wb, &key.relevant));
            *st.walked.lock().expect("walked") = Some(DirtyWalk {
                key,
                found: Arc::clone(&found),
            });
            found
        }
    }
}

/// The view ids of the binary and unread files among the live entries of `segs` (what
/// every search reads or lists, whatever it looks for), sorted; `view_of` maps a
/// segment's positions to view ids (`u32::MAX`: not live).
pub(super) fn special_ids(segs: &[Arc<super::Segment>], view_of: &[Vec<u32>]) -> Vec<u32> {
    let mut ids: Vec<u32> = segs
        .iter()
        .zip(view_of)
        .flat_map(|(seg, view)| seg.special.iter().map(|&k| view[k as usize]))
        .filter(|&i| i != u32::MAX)
        .collect();
    ids.sort_unstable();
    ids
}

/// The view ids of `ix`'s binary and unread files within `range`, in order.
fn special_in(ix: &TrigramIndex, range: std::ops::Range<usize>) -> &[u32] {
    let lo = ix.special.partition_point(|&i| (i as usize) < range.start);
    let hi = ix.special.partition_point(|&i| (i as usize) < range.end);
    &ix.special[lo..hi]
}

/// A candidate's parts that can match (`None`: all of it).
type Spans = Option<Box<[Span]>>;

/// The ids of two ascending sequences, merged in order (an id in both comes twice, the
/// first sequence's first).
fn merge_ids<'s, A, B>(a: A, b: B) -> impl Iterator<Item = (usize, Option<&'s Spans>)>
where
    A: Iterator<Item = (usize, Option<&'s Spans>)>,
    B: Iterator<Item = (usize, Option<&'s Spans>)>,
{
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some(x), Some(y)) if y.0 < x.0 => b.next(),
        (Some(_), _) => a.next(),
        (None, _) => b.next(),
    })
}

/// What [`watched`] takes from the index.
#[derive(Default)]
struct Picked {
    /// Files to read, with what the index knows of them when it is trusted.
    search: Vec<(PathBuf, Option<Known>)>,
    binary: Vec<PathBuf>,
    ruled_out: u64,
    /// Bytes of the trusted candidates.
    bytes: u64,
}

/// Which entries of `range` (the index's files under `dir`) a dirty path covers, and the
/// paths to walk instead: the dirty paths at, above or under `dir`, and what the index's
/// walk could not read there.
pub(super) fn dirty_in_scope(
    st: &RootState,
    ix: &TrigramIndex,
    dir: &Path,
    range: std::ops::Range<usize>,
    dirty: Vec<PathBuf>,
) -> (Vec<bool>, Vec<PathBuf>) {
    let mut skip = vec![false; range.len()];
    let mut relevant = Vec::new();
    for d in dirty {
        if dir.starts_with(&d) {
            skip.iter_mut().for_each(|s| *s = true);
        } else if d.starts_with(dir) {
            let r = rel_bytes(&st.root, &d);
            let r = &r[..];
            let mut mark = |i: usize| {
                if range.contains(&i) {
                    skip[i - range.start] = true;
                }
            };
            ix.find(r).into_iter().for_each(&mut mark);
            ix.under(r).for_each(mark);
        } else {
            continue;
        }
        relevant.push(d);
    }
    // What the index's walk could not read is walked again, so the search reports it.
    relevant.extend(
        ix.unreadable
            .iter()
            .filter(|u| u.starts_with(dir) || dir.starts_with(u))
            .cloned(),
    );
    (skip, relevant)
}

/// Walks the `relevant` paths with the scan's rules: their files, and what it could not
/// read.
pub(super) fn walk_relevant(wb: &ignore::WalkBuilder, relevant: &[PathBuf]) -> WalkFound {
    let mut wb = wb.clone();
    let rel2 = relevant.to_vec();
    wb.filter_entry(move |e| {
        rel2.iter()
            .any(|d| within(e.path(), d) || within(d, e.path()))
    });
    let (mut files, mut errors) = (Vec::new(), Vec::new());
    for e in wb.build() {
        match e {
            Ok(e) => {
                if e.file_type().is_some_and(|t| t.is_file())
                    && relevant.iter().any(|d| within(e.path(), d))
                {
                    files.push(e.into_path());
                }
            }
            Err(e) => errors.push(e.to_string()),
        }
    }
    (files, errors)
}

fn validated(
    ix: &TrigramIndex,
    ids: &[Candidate],
    root: &Path,
    wb: &ignore::WalkBuilder,
) -> Selection {
    let mut cand: Vec<Option<Option<&[Span]>>> = vec![None; ix.len()];
    for (i, spans) in ids {
        cand[*i as usize] = Some(spans.as_deref());
    }
    let out = Mutex::new((Vec::new(), Vec::new(), 0u64, 0u64, 0u64));
    let errors = Mutex::new(Vec::new());
    wb.build_parallel().run(|| {
        Box::new(|e| {
            let e = match e {
                Ok(e) => e,
                Err(e) => {
                    errors.lock().expect("selection").push(e.to_string());
                    return ignore::WalkState::Continue;
                }
            };
            if !e.file_type().is_some_and(|t| t.is_file()) {
                return ignore::WalkState::Continue;
            }
            let p = e.path();
            let known = ix.find(&rel_bytes(root, p)).filter(|&i| {
                let f = ix.file(i);
                f.flags & (FLAG_RACY | FLAG_UNREAD) == 0
                    && e.metadata().is_ok_and(|m| Ident::from_metadata(&m) == f.id)
            });
            let mut o = out.lock().expect("selection");
            match known {
                Some(i) => {
                    o.2 += 1;
                    if let Some(spans) = cand[i] {
                        // Just seen with the identity indexed.
                        let k = Known {
                            id: ix.file(i).id,
                            spans: spans.map(Into::into),
                        };
                        o.4 += k.id.len;
                        o.0.push((e.into_path(), Some(k)));
                    } else if ix.file(i).flags & FLAG_BINARY != 0 {
                        o.1.push(e.into_path());
                    } else {
                        o.3 += 1;
                    }
                }
                None => o.0.push((e.into_path(), None)),
            }
            ignore::WalkState::Continue
        })
    });
    let (mut search, mut binary, in_scope, ruled_out, bytes) = out.into_inner().expect("selection");
    search.sort_by(|a: &(PathBuf, Option<Known>), b| a.0.cmp(&b.0));
    binary.sort();
    let (search, known): (Vec<PathBuf>, Vec<Option<Known>>) = search.into_iter().unzip();
    Selection {
        used: IndexUse {
            in_scope,
            searched: search.len() as u64,
            validated: true,
            ruled_out,
        },
        search,
        known,
        binary,
        bytes,
        errors: errors.into_inner().expect("selection"),
    }
}

/// Whether `p` is `d` or lies under it, by whole components (compared as bytes: paths here
/// are joined from the same root, never spelled with `.` or doubled separators).
pub(super) fn within(p: &Path, d: &Path) -> bool {
    let (p, d) = (
        p.as_os_str().as_encoded_bytes(),
        d.as_os_str().as_encoded_bytes(),
    );
    p.starts_with(d)
        && (p.len() == d.len()
            || std::path::is_separator(char::from(p[d.len()]))
            || d.ends_with(b"/"))
}
