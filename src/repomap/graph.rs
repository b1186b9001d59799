//! A path's files as a map ranks them: each file's definitions (named), the version of the
//! record they come from, and the graph's tables over them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::fasthash::FastMap;
use crate::symbols::Version;
use crate::workspace::Workspace;

use super::{Def, FileFacts, Focus, Tables};

/// The files of a path with their facts, and the graph's tables over them.
pub(super) struct Graph {
    pub(super) root: PathBuf,
    /// Relative to the root (empty: the root).
    pub(super) rel: String,
    /// The definitions of each file (its uses are in the tables only).
    pub(super) files: Vec<FileFacts>,
    /// By file: the version of the record its facts come from.
    pub(super) versions: Vec<Version>,
    /// By file: changed since its facts were recorded (kept between calls until recorded
    /// again): its signatures are not read from its bytes, whose lines may have moved.
    pub(super) stale: Vec<bool>,
    /// Path -> file.
    pub(super) index_of: FastMap<Box<str>, u32>,
    pub(super) tables: Tables,
    /// Grows with every change of the facts (a ranking holds for one generation).
    pub(super) generation: u64,
}

/// The graph of the files under `rel` of `root` from their records, and how many files there
/// the records do not cover now; `None` when the root has no index or records yet.
pub(super) fn build(ws: &Workspace, root: &Path, rel: &str) -> Option<(Graph, usize)> {
    let (facts, unrecorded) = crate::symbols::facts(ws, root, rel)?;
    let crate::symbols::Facts {
        names,
        ids,
        files: recorded,
    } = facts;
    // The map shows each file's definitions by name; the ranking reads idents only.
    let mut files: Vec<FileFacts> = Vec::with_capacity(recorded.len());
    let mut versions = Vec::with_capacity(recorded.len());
    let mut index_of = FastMap::default();
    let mut rows = Vec::with_capacity(recorded.len());
    for f in recorded {
        rows.push((f.defs.iter().map(|d| d.0).collect(), f.uses));
        index_of.insert(f.path.as_str().into(), files.len() as u32);
        versions.push(f.version);
        files.push(FileFacts {
            path: f.path,
            defs: defs_named(&names, f.defs),
            uses: Vec::new(),
        });
    }
    let tables = Tables::from_idents(names, rows).with_ids(ids);
    let graph = Graph {
        root: root.to_path_buf(),
        rel: rel.to_string(),
        stale: vec![false; files.len()],
        files,
        versions,
        index_of,
        tables,
        generation: 0,
    };
    Some((graph, unrecorded))
}

/// Definitions as the records give them (name ident, kind, line, end line), named.
pub(super) fn defs_named(names: &[Arc<str>], defs: Vec<(u32, &'static str, u32, u32)>) -> Vec<Def> {
    defs.into_iter()
        .map(|(name, kind, line, end_line)| Def {
            name: Arc::clone(&names[name as usize]),
            kind,
            line,
            end_line,
        })
        .collect()
}

impl Graph {
    /// The ranking for the files or names of `focus`.
    pub(super) fn rank(&self, focus: &[String]) -> super::Ranking {
        self.rank_from(focus, None)
    }

    /// [`Graph::rank`], its walk started from the file ranks of an earlier ranking.
    pub(super) fn rank_from(&self, focus: &[String], start: Option<&[f64]>) -> super::Ranking {
        let focus = focus_of(&self.files, focus);
        self.tables.rank_from(&self.files, &focus, start)
    }
}

/// The focus: entries that name a file (its path, or the end of it after a `/`) are files;
/// the others names.
fn focus_of(files: &[FileFacts], given: &[String]) -> Focus {
    let mut focus = Focus::default();
    for g in given {
        let g = g.trim().trim_start_matches("./");
        let hits: Vec<usize> = files
            .iter()
            .enumerate()
            .filter(|(_, f)| f.path == g || f.path.ends_with(&format!("/{g}")))
            .map(|(i, _)| i)
            .collect();
        if hits.is_empty() {
            focus.names.push(g.to_string());
        } else {
            focus.files.extend(hits);
        }
    }
    focus
}
