//! The map of a path inside the roots: the facts of its files from the symbol records of the
//! index that covers it (`crate::symbols::facts`), ranked, rendered, and the signatures of
//! the definitions shown read from the files (their definition's line). The one part of the
//! repo map that reads files.

use crate::error::{ParamError, RequestError};
use crate::source::Source;
use crate::workspace::Workspace;

use super::{Def, FileFacts, Focus, MapBudget, RepoMap, Tables, render};

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
    root: std::path::PathBuf,
    files: Vec<FileFacts>,
    ranking: super::Ranking,
    /// The path mapped, relative to its root (empty: the root).
    pub path: String,
    /// Files there whose records do not hold now (changed, or not recorded yet): left out.
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

/// The files of `q.path` with their facts from the records, ranked.
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
    let (facts, unrecorded) = crate::symbols::facts(ws, &root, &rel)
        .ok_or_else(|| not_indexed(&provided, "the index is still being built"))?;
    let crate::symbols::Facts {
        names,
        files: recorded,
    } = facts;
    // The map shows each file's definitions by name; the ranking reads idents only.
    let mut files: Vec<FileFacts> = Vec::with_capacity(recorded.len());
    let mut rows = Vec::with_capacity(recorded.len());
    for f in recorded {
        rows.push((f.defs.iter().map(|d| d.0).collect(), f.uses));
        files.push(FileFacts {
            path: f.path,
            defs: f
                .defs
                .into_iter()
                .map(|(name, kind, line, end_line)| Def {
                    name: names[name as usize].to_string(),
                    kind,
                    line,
                    end_line,
                })
                .collect(),
            uses: Vec::new(),
        });
    }
    let tables = Tables::from_idents(names, rows);
    let focus = focus_of(&files, &q.focus);
    let ranking = tables.rank(&files, &focus);
    Ok(Prepared {
        root,
        files,
        ranking,
        path: rel,
        unrecorded,
    })
}

impl Prepared {
    /// The map within `budget`, the signatures read from the files.
    pub fn render(&self, ws: &Workspace, budget: MapBudget) -> RepoMap {
        let mut opened: Option<(usize, Source)> = None;
        let mut signature = |fi: usize, di: usize| -> Option<String> {
            let f = self.files.get(fi)?;
            let d = f.defs.get(di)?;
            if opened.as_ref().is_none_or(|o| o.0 != fi) {
                let path = crate::platform::join_slashed(&self.root, &*f.path);
                opened = Some((fi, ws.open_source(path.to_str()?).ok()?));
            }
            let (_, source) = opened.as_ref()?;
            line_of(source.bytes(), d.line)
        };
        render(&self.files, &self.ranking, budget, &mut signature)
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
