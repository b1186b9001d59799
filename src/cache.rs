//! `LruCache`: values evicted least-recently-used beyond a byte budget. `FileCache` is the
//! one for values derived from files (line indexes, contents, parses), keyed by canonical path
//! and remembered with the file identity they were built from; compiled regexes are kept by
//! pattern in another.

use std::borrow::Borrow;
use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;
use std::path::PathBuf;

use crate::source::FileId;

struct Entry<I, V> {
    id: I,
    value: V,
    cost: usize,
    stamp: u64,
}

/// A key's own heap bytes, counted in its entry's cost.
pub trait KeyBytes {
    fn key_bytes(&self) -> usize;
}

impl KeyBytes for PathBuf {
    fn key_bytes(&self) -> usize {
        self.as_os_str().len()
    }
}

impl KeyBytes for (PathBuf, std::any::TypeId) {
    fn key_bytes(&self) -> usize {
        self.0.as_os_str().len()
    }
}

impl KeyBytes for (Vec<String>, bool) {
    fn key_bytes(&self) -> usize {
        self.0.iter().map(String::len).sum()
    }
}

/// An LRU map from key to `(I, V)` (`I` a cheap tag such as the file identity a value was
/// built from) whose entries' costs stay within a budget.
pub struct LruCache<K, I, V> {
    map: HashMap<K, Entry<I, V>>,
    order: BTreeMap<u64, K>,
    budget: usize,
    bytes: usize,
    clock: u64,
}

/// Values derived from files, keyed by path, tagged with the file's identity.
pub type FileCache<V> = LruCache<PathBuf, FileId, V>;

impl<K: Hash + Eq + Clone + KeyBytes, I: Copy, V: Clone> LruCache<K, I, V> {
    pub fn new(budget: usize) -> LruCache<K, I, V> {
        LruCache {
            map: HashMap::new(),
            order: BTreeMap::new(),
            budget,
            bytes: 0,
            clock: 0,
        }
    }

    /// The cached value and the identity it was built from (marks it recently used: the LRU
    /// order is updated lazily at eviction time, so a hit costs one hash lookup).
    pub fn get<Q: Hash + Eq + ?Sized>(&mut self, path: &Q) -> Option<(I, V)>
    where
        K: Borrow<Q>,
    {
        self.clock += 1;
        let e = self.map.get_mut(path)?;
        e.stamp = self.clock;
        Some((e.id, e.value.clone()))
    }

    /// Caches `value` (costing `cost` bytes plus bookkeeping) unless it alone is over budget;
    /// evicts the least recently used entries to make room.
    pub fn insert(&mut self, path: K, id: I, value: V, cost: usize) {
        let cost = cost + path.key_bytes() + 128;
        if cost > self.budget {
            self.remove(&path);
            return;
        }
        self.remove(&path);
        self.clock += 1;
        self.order.insert(self.clock, path.clone());
        self.map.insert(
            path,
            Entry {
                id,
                value,
                cost,
                stamp: self.clock,
            },
        );
        self.bytes += cost;
        while self.bytes > self.budget {
            let Some((stamp, victim)) = self.order.pop_first() else {
                break;
            };
            match self.map.get(&victim) {
                // Used since it was queued: queue it again at its last use.
                Some(e) if e.stamp != stamp => {
                    let s = e.stamp;
                    self.order.insert(s, victim);
                }
                Some(_) => {
                    let e = self.map.remove(&victim).expect("present");
                    self.bytes -= e.cost;
                }
                None => {}
            }
        }
        // Stale queue entries (removed or re-inserted paths) are dropped now and then.
        if self.order.len() > 2 * self.map.len() + 64 {
            self.order = self.map.iter().map(|(p, e)| (e.stamp, p.clone())).collect();
        }
    }

    /// Caches `value` only if it fits beside what is cached (after dropping this path's old
    /// entry): nothing is evicted for it. A scan over more files than the budget holds then
    /// keeps the first ones instead of churning through all of them on every pass — and
    /// memory never runs through the budget again and again.
    pub fn insert_if_room(&mut self, path: K, id: I, value: V, cost: usize) {
        self.remove(&path);
        if self.bytes + cost + path.key_bytes() + 128 <= self.budget {
            self.insert(path, id, value, cost);
        }
    }

    pub fn remove<Q: Hash + Eq + ?Sized>(&mut self, path: &Q)
    where
        K: Borrow<Q>,
    {
        if let Some(e) = self.map.remove(path) {
            self.bytes -= e.cost;
        }
    }

    /// Bytes held (entry costs).
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn id(len: u64) -> FileId {
        FileId {
            dev: 1,
            ino: len,
            len,
            mtime: None,
            ctime: (0, 0),
        }
    }

    #[test]
    fn insert_if_room_never_evicts() {
        let mut c: FileCache<u32> = FileCache::new(1000);
        c.insert_if_room(PathBuf::from("/a"), id(1), 1, 500);
        c.insert_if_room(PathBuf::from("/b"), id(1), 2, 500);
        assert_eq!(c.len(), 1, "the second does not fit beside the first");
        assert!(c.get(Path::new("/a")).is_some());
        // A new version of a cached file replaces it.
        c.insert_if_room(PathBuf::from("/a"), id(2), 3, 400);
        assert_eq!(
            c.get(Path::new("/a")).map(|(i, v)| (i.len, v)),
            Some((2, 3))
        );
        assert!(c.bytes() <= 1000);
    }

    #[test]
    fn evicts_least_recently_used_within_budget() {
        let mut c = FileCache::new(3 * (100 + 1 + 128));
        for name in ["a", "b", "c"] {
            c.insert(PathBuf::from(name), id(1), name, 100);
        }
        assert_eq!(c.len(), 3);
        assert!(c.get(Path::new("a")).is_some()); // a is now the most recent
        c.insert(PathBuf::from("d"), id(1), "d", 100);
        assert!(c.get(Path::new("b")).is_none());
        assert!(c.get(Path::new("a")).is_some());
        assert!(c.bytes() <= 3 * 229);
        c.insert(PathBuf::from("huge"), id(1), "h", 10_000);
        assert!(c.get(Path::new("huge")).is_none());
    }
}
