//! The map of a path inside the roots: the facts of its files from the symbol records of the
//! index that covers it (`crate::symbols::facts`), ranked, rendered, and the signatures of
//! the definitions shown read from the files (their definition's line). The one part of the
//! repo map that reads files.

use std::sync::Arc;

use crate::error::{ParamError, RequestError};
use crate::source::Source;
use crate::workspace::Workspace;

use super::graph::{Graph, build};
use super::{MapBudget, RepoMap, render};

/// Files a map is made of at most. On the Linux tree from the command line (names interned
/// once per side file string, not once per use): `fs/ext4` 0.2 s and 63 MB, `drivers/net`
/// (5,700 files) 1.2 s and 170 MB, the whole tree (78,000 files) 13 s and 1.3 GB (it was a
/// minute and 2.1 GB when every use was decoded into a string of its own).
pub const MAX_FILES: usize = 100_000;

/// What to map.
#[derive(Clone, Debug, Default)]
pub struct MapQuery {
    /// A directory or file inside the roots (default: the first root).
    pub path: Option<String>,
    /// Files (paths as the map shows them, or their last parts) and names the map is about.
    pub focus: Vec<String>,
}

/// A map and what it covers.
#[derive(Clone, Debug, Default)]
pub struct TreeMap {
    pub map: RepoMap,
    /// The path mapped, relative to its root (empty: the root).
    pub path: String,
    /// Files there whose records do not hold now (changed, or not recorded yet): left out.
    pub unrecorded: usize,
}

/// The files of a path ranked, ready to be rendered at any size.
pub struct Prepared {
    graph: Arc<Graph>,
    ranking: Arc<super::Ranking>,
    /// The path mapped, relative to its root (empty: the root).
    pub path: String,
    /// Files there whose records do not hold now (changed, or not recorded yet): left out,
    /// or (a map kept between calls) shown as they were recorded.
    pub unrecorded: usize,
}

/// The map of `q.path` within `budget`.
pub fn map_tree(ws: &Workspace, q: &MapQuery, budget: MapBudget) -> Result<TreeMap, RequestError> {
    let p = prepare(ws, q)?;
    Ok(TreeMap {
        map: p.render(ws, budget),
        path: p.path.clone(),
        unrecorded: p.unrecorded,
    })
}

/// The files of `q.path` with their facts from the records, ranked. A path of many files is
/// kept between calls and brought up to date ([`super::held`]).
pub fn prepare(ws: &Workspace, q: &MapQuery) -> Result<Prepared, RequestError> {
    let given = q.path.clone().unwrap_or_else(|| ".".into());
    let abs = ws.resolve(&given)?;
    let provided = format!("path={given:?}");
    let root = crate::index::indexed_roots(ws)
        .into_iter()
        .find(|r| abs.starts_with(r))
        .ok_or_else(|| not_indexed(&provided, "no index covers it (the server was started with --no-index, or the path is outside the indexed roots)"))?;
    let rel = abs
        .strip_prefix(&root)
        .ok()
        .and_then(|r| r.to_str())
        .unwrap_or("")
        .replace(std::path::MAIN_SEPARATOR, "/");
    let files_there = crate::index::root_view(ws, &root, false).map_or(0, |v| {
        v.index
            .files()
            .filter(|f| {
                let p = &f.path;
                rel.is_empty()
                    || p.as_ref() == rel.as_bytes()
                    || (p.starts_with(rel.as_bytes()) && p.get(rel.len()) == Some(&b'/'))
            })
            .count()
    });
    if files_there > MAX_FILES {
        return Err(RequestError::Param(ParamError::new(
            "Too large to map",
            provided,
            format!(
                "{given} holds {files_there} indexed files; a map is made of at most {MAX_FILES} (a map holds every name of its files in memory: about 1.3 GB for the Linux tree's 78,000)."
            ),
            "Map a directory below it (`fs/ext4`, `drivers/net`), or give a focus within one.",
        )));
    }
    let held = ws.state::<super::held::HeldMaps>();
    if held.takes(files_there) {
        let (graph, ranking, unrecorded) = held
            .prepare(ws, &root, &rel, &q.focus)
            .ok_or_else(|| not_indexed(&provided, "the index is still being built"))?;
        return Ok(Prepared::new(graph, ranking, unrecorded));
    }
    let (graph, unrecorded) = build(ws, &root, &rel)
        .ok_or_else(|| not_indexed(&provided, "the index is still being built"))?;
    let ranking = Arc::new(graph.rank(&q.focus));
    Ok(Prepared {
        graph: Arc::new(graph),
        ranking,
        path: rel,
        unrecorded,
    })
}

impl Prepared {
    fn new(graph: Arc<Graph>, ranking: Arc<super::Ranking>, unrecorded: usize) -> Prepared {
        Prepared {
            path: graph.rel.clone(),
            graph,
            ranking,
            unrecorded,
        }
    }

    /// The map within `budget`, the signatures read from the files.
    pub fn render(&self, ws: &Workspace, budget: MapBudget) -> RepoMap {
        let g = &*self.graph;
        let mut opened: Option<(usize, Source)> = None;
        let mut signature = |fi: usize, di: usize| -> Option<String> {
            let f = g.files.get(fi)?;
            let d = f.defs.get(di)?;
            if g.stale.get(fi).copied().unwrap_or(true) {
                return None;
            }
            if opened.as_ref().is_none_or(|o| o.0 != fi) {
                let path = crate::platform::join_slashed(&g.root, &*f.path);
                opened = Some((fi, ws.open_source(path.to_str()?).ok()?));
            }
            let (_, source) = opened.as_ref()?;
            line_of(source.bytes(), d.line)
        };
        render(&g.files, &self.ranking, budget, &mut signature)
    }
}

fn not_indexed(provided: &str, why: &str) -> RequestError {
    RequestError::Param(ParamError::new(
        "No symbol index",
        provided.to_string(),
        format!("The map is made from the symbol index, and {why}."),
        "Wait for the index (a server builds it at start; `mapgrep index ROOT` builds it for the command line), then ask again.",
    ))
}

/// Line `line` (1-based) of `bytes`.
fn line_of(bytes: &[u8], line: u32) -> Option<String> {
    let mut start = 0usize;
    for _ in 1..line {
        start += memchr::memchr(b'\n', bytes.get(start..)?)? + 1;
    }
    let rest = bytes.get(start..)?;
    let end = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
    Some(String::from_utf8_lossy(&rest[..end]).into_owned())
}
