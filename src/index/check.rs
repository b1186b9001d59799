//! Comparing an index with the tree by metadata: the validation of a loaded index (every
//! file walked and compared), and the sweep that catches changes no watcher reports (see
//! the `live` module docs).

use std::path::PathBuf;
use std::sync::Mutex;

use super::build::{error_path, rel_bytes, walker};
use super::live::RootState;
use super::persist::os_str;
use super::{FLAG_RACY, FLAG_UNREAD, Ident, TrigramIndex};

impl RootState {
    /// Marks dirty every file whose identity differs from `ix`'s record, every new file
    /// and every deleted one. Returns (changed, files, what the walk could not read).
    pub(super) fn validate(&self, ix: &TrigramIndex) -> (usize, usize, Vec<PathBuf>) {
        let seen = Mutex::new(Vec::new());
        let unreadable = Mutex::new(Vec::new());
        walker(&self.root).build_parallel().run(|| {
            Box::new(|e| {
                match e {
                    Ok(e) if e.file_type().is_some_and(|t| t.is_file()) => {
                        let id = e.metadata().ok().map(|m| Ident::from_metadata(&m));
                        seen.lock().expect("seen").push((e.into_path(), id));
                    }
                    Err(e) => {
                        if let Some(p) = error_path(&e) {
                            unreadable.lock().expect("seen").push(p.to_path_buf());
                        }
                    }
                    Ok(_) => {}
                }
                ignore::WalkState::Continue
            })
        });
        let seen = seen.into_inner().expect("seen");
        let mut present = vec![false; ix.len()];
        let mut changed = 0;
        for (p, id) in &seen {
            match ix.find(&rel_bytes(&self.root, p)) {
                Some(i) if Some(ix.file(i).id) == *id => {
                    present[i] = true;
                    // Unchanged, as far as its identity can tell: trusted unless it was
                    // written within the racy window of its reading (then read directly
                    // until the upkeep reads it again).
                    if ix.file(i).flags & FLAG_RACY != 0 {
                        self.dirty.mark(&self.root, p);
                    }
                }
                Some(i) => {
                    present[i] = true;
                    changed += 1;
                    self.dirty.mark(&self.root, p);
                }
                None => {
                    changed += 1;
                    self.dirty.mark(&self.root, p);
                }
            }
        }
        for (i, f) in ix.files().enumerate() {
            if !present[i] {
                changed += 1;
                self.dirty.mark(
                    &self.root,
                    &crate::platform::join_slashed(&self.root, os_str(&f.path)),
                );
            }
        }
        let mut unreadable = unreadable.into_inner().expect("seen");
        unreadable.sort_unstable();
        unreadable.dedup();
        (changed, ix.len(), unreadable)
    }

    /// Compares the identity of `n` indexed files from `*pos` with their files now, and
    /// marks dirty those that differ (changes no watcher reports: see the module docs).
    pub(super) fn sweep(&self, ix: &TrigramIndex, pos: &mut usize, n: usize) {
        let len = ix.len();
        if len == 0 {
            return;
        }
        // Files in path order: those of one directory are looked up inside it, opened once.
        let mut dir: Option<(&[u8], Option<crate::platform::Dir>)> = None;
        for _ in 0..n.min(len) {
            *pos = (*pos + 1) % len;
            let f = ix.file(*pos);
            if f.flags & FLAG_UNREAD != 0 {
                continue;
            }
            let (parent, name) = match f.path.iter().rposition(|&b| b == b'/') {
                Some(i) => (&f.path[..i], &f.path[i + 1..]),
                None => (&f.path[..0], &f.path[..]),
            };
            if dir.as_ref().is_none_or(|d| d.0 != parent) {
                let handle = crate::platform::open_dir(&crate::platform::join_slashed(
                    &self.root,
                    os_str(parent),
                ))
                .ok();
                dir = Some((parent, handle));
            }
            let now = dir
                .as_ref()
                .and_then(|d| d.1.as_ref())
                .and_then(|d| d.stamp_at(os_str(name)).ok())
                .map(|id| Ident::from_id(&id));
            if now != Some(f.id) {
                self.dirty.mark(
                    &self.root,
                    &crate::platform::join_slashed(&self.root, os_str(&f.path)),
                );
            }
        }
    }
}
