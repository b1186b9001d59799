//! The repo map's graph as two tables kept per file: the names a file uses (with counts) and
//! the names it defines, over one table of interned names. No edge is stored: the edges of a
//! name are its users times its definers, and [`super::pagerank`] walks them through these
//! rows. A file's rows are replaced on their own ([`Tables::replace`]), so an edit costs what
//! the file holds.

use std::sync::Arc;

use super::FileFacts;
use crate::fasthash::FastMap;

/// A name of at least this many bytes, written `snake_case` or `camelCase`, says what it is:
/// its edges weigh more.
const MEANINGFUL_LEN: usize = 8;

/// The interned names and each file's rows (see the module docs).
#[derive(Default)]
pub struct Tables {
    /// Name -> ident.
    ids: FastMap<Arc<str>, u32>,
    /// Tables made from idents: ident -> name, hashed into `ids` only when a file's rows are
    /// replaced (a map asks `id` for its few focus names).
    unhashed: Vec<Arc<str>>,
    /// Per ident: the weight its name alone gives its edges (meaningful x10, `_private` x0.1).
    name_mul: Vec<f64>,
    /// Per ident: how many files define it.
    def_count: Vec<u32>,
    /// Per file: the idents it uses with their counts (counts of at least 1, one entry an
    /// ident).
    uses: Vec<Vec<(u32, u32)>>,
    /// Per file: the ident of each of its definitions, in the facts' order.
    defs: Vec<Vec<u32>>,
    /// Per file: the idents it defines, sorted, each once.
    def_set: Vec<Vec<u32>>,
    /// Per file: removed ([`Tables::remove`]): no rows, and no part in the walk.
    gone: Vec<bool>,
}

impl Tables {
    /// The tables of `files` (file `i` is `files[i]`).
    pub fn new(files: &[FileFacts]) -> Tables {
        let mut t = Tables::default();
        for (i, f) in files.iter().enumerate() {
            t.replace(i, f);
        }
        t
    }

    /// The tables of files whose names are interned already (`names`: ident -> name): file
    /// `i` is the `i`th of `files`, its definitions' idents and its uses (ident, count; each
    /// ident once). Nothing is hashed per use: on a whole tree the uses are tens of millions.
    pub fn from_idents(
        names: Vec<Arc<str>>,
        files: impl IntoIterator<Item = (Vec<u32>, Vec<(u32, u32)>)>,
    ) -> Tables {
        let mut t = Tables {
            ids: FastMap::default(),
            name_mul: names.iter().map(|n| name_mul(n)).collect(),
            def_count: vec![0; names.len()],
            unhashed: names,
            ..Tables::default()
        };
        for (file, (defs, mut uses)) in files.into_iter().enumerate() {
            uses.retain(|u| u.1 > 0);
            t.put(file, defs, uses);
        }
        t
    }

    /// These tables with `ids` (name -> ident, the inverse of the names they were made
    /// from) hashed already: the first [`Tables::replace`] need not hash every name.
    pub fn with_ids(mut self, ids: FastMap<Arc<str>, u32>) -> Tables {
        debug_assert_eq!(ids.len(), self.unhashed.len(), "the ids of the names");
        if !self.unhashed.is_empty() {
            self.unhashed = Vec::new();
            self.ids = ids;
        }
        self
    }

    /// Replaces file `file`'s rows by those of `facts` (a new file when `file` is the number
    /// of files held). Only this file's rows and the definer counts of the names it defined or
    /// defines change; a name no file uses or defines any more keeps its ident until the
    /// tables are built again.
    pub fn replace(&mut self, file: usize, facts: &FileFacts) {
        let defs: Vec<u32> = facts.defs.iter().map(|d| self.intern(&d.name)).collect();
        let uses = self.use_row(&facts.uses);
        self.put(file, defs, uses);
    }

    /// Removes file `file` (it left the tree): its rows go, and the walk gives it no rank,
    /// so the ranking of the others is what tables made without it give (its place stays,
    /// so the other files keep theirs).
    pub fn remove(&mut self, file: usize) {
        self.put(file, Vec::new(), Vec::new());
        self.gone[file] = true;
    }

    /// Whether file `file` was removed.
    pub(super) fn is_gone(&self, file: usize) -> bool {
        self.gone[file]
    }

    /// Sets file `file`'s rows (a new file when `file` is the number of files held): its
    /// definitions' idents and its use row; the definer counts follow.
    fn put(&mut self, file: usize, defs: Vec<u32>, uses: Vec<(u32, u32)>) {
        assert!(file <= self.uses.len(), "file {file} past the end");
        if file == self.uses.len() {
            self.uses.push(Vec::new());
            self.defs.push(Vec::new());
            self.def_set.push(Vec::new());
            self.gone.push(false);
        }
        self.gone[file] = false;
        for &id in &self.def_set[file] {
            self.def_count[id as usize] -= 1;
        }
        let mut set = defs.clone();
        set.sort_unstable();
        set.dedup();
        for &id in &set {
            self.def_count[id as usize] += 1;
        }
        self.uses[file] = uses;
        self.defs[file] = defs;
        self.def_set[file] = set;
    }

    /// A file's uses as idents, one entry a name (repeated names summed), zero counts left out.
    fn use_row(&mut self, uses: &[(String, u32)]) -> Vec<(u32, u32)> {
        let sorted = uses.windows(2).all(|w| w[0].0 < w[1].0);
        let mut row: Vec<(u32, u32)> = Vec::with_capacity(uses.len());
        if sorted {
            for (name, n) in uses.iter().filter(|u| u.1 > 0) {
                row.push((self.intern(name), *n));
            }
            return row;
        }
        let mut merged: FastMap<&str, u32> = FastMap::default();
        for (name, n) in uses.iter().filter(|u| u.1 > 0) {
            let e = merged.entry(name.as_str()).or_default();
            *e = e.saturating_add(*n);
        }
        let mut names: Vec<(&str, u32)> = merged.into_iter().collect();
        names.sort_unstable();
        for (name, n) in names {
            row.push((self.intern(name), n));
        }
        row
    }

    fn intern(&mut self, name: &str) -> u32 {
        if !self.unhashed.is_empty() {
            for (i, n) in std::mem::take(&mut self.unhashed).into_iter().enumerate() {
                self.ids.insert(n, i as u32);
            }
        }
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = u32::try_from(self.name_mul.len()).expect("fewer than 2^32 names");
        self.ids.insert(name.into(), id);
        self.name_mul.push(name_mul(name));
        self.def_count.push(0);
        id
    }

    /// The ident of `name`, if some file uses or defines it.
    pub(super) fn id(&self, name: &str) -> Option<u32> {
        if !self.unhashed.is_empty() {
            return self
                .unhashed
                .iter()
                .position(|n| &**n == name)
                .map(|i| i as u32);
        }
        self.ids.get(name).copied()
    }

    pub(super) fn files(&self) -> usize {
        self.uses.len()
    }

    pub(super) fn idents(&self) -> usize {
        self.name_mul.len()
    }

    pub(super) fn name_mul(&self, id: u32) -> f64 {
        self.name_mul[id as usize]
    }

    pub(super) fn def_count(&self, id: u32) -> u32 {
        self.def_count[id as usize]
    }

    pub(super) fn uses(&self, file: usize) -> &[(u32, u32)] {
        &self.uses[file]
    }

    pub(super) fn defs(&self, file: usize) -> &[u32] {
        &self.defs[file]
    }

    pub(super) fn def_set(&self, file: usize) -> &[u32] {
        &self.def_set[file]
    }
}

/// The weight a name's own shape gives its edges: x10 for a meaningful name (long, and
/// `snake_case` or `camelCase`), x0.1 for a `_private` one (both may apply).
pub(super) fn name_mul(name: &str) -> f64 {
    let mut mul = 1.0;
    if name.len() >= MEANINGFUL_LEN && (is_snake(name) || is_camel(name)) {
        mul *= 10.0;
    }
    if name.starts_with('_') {
        mul *= 0.1;
    }
    mul
}

/// Words joined by `_` (`list_add`, `MAX_ORDER`): an underscore with a letter somewhere.
fn is_snake(name: &str) -> bool {
    name.contains('_') && name.bytes().any(|b| b.is_ascii_alphabetic())
}

/// Words joined by capitals (`getValue`, `HashMap`): a capital after the first character,
/// and a lower-case letter.
fn is_camel(name: &str) -> bool {
    name.chars().skip(1).any(char::is_uppercase) && name.chars().any(char::is_lowercase)
}
