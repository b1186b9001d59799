//! Python modules that bind another module under a name: `os.path.join` where `os.py` says
//! `import posixpath as path` (or `from a.b import c as path`, `from .impl import x as
//! path`). When a qualified name finds nothing, the names its module's imports make of it
//! are looked up instead (`posixpath.join`, `ntpath.join`).

use crate::grep::{GrepQuery, Progress};
use crate::workspace::Workspace;

use super::name::Name;
use super::{DefineError, DefineQuery, Definitions, Want, lookup_want};

/// The sites of the names `want` stands for through its module's imports (see the module
/// docs), with the names and where they are bound; `None` when none answers.
pub(super) fn lookup_through(
    ws: &Workspace,
    q: &DefineQuery,
    want: &Want,
    progress: &Progress,
    started: std::time::Instant,
) -> Result<Option<Definitions>, DefineError> {
    // Within the lookup's one budget (from `started`): what the first try left of it.
    let budget = q.time_limit.unwrap_or(super::LOOKUP_BUDGET);
    let mut through: Option<Definitions> = None;
    for (name, at) in through_imports(ws, &q.scope, &want.name, progress) {
        let left = budget.saturating_sub(started.elapsed());
        if left.is_zero() {
            break;
        }
        let q = DefineQuery {
            time_limit: Some(left),
            ..q.clone()
        };
        let shown = [name.qualifier.join("."), name.last.clone()].join(".");
        let other = Want {
            name,
            last: want.last.clone(),
            kind: want.kind,
            lang: want.lang,
        };
        let found = lookup_want(ws, &q, &other, progress)?;
        if found.sites.is_empty() {
            continue;
        }
        let t = through.get_or_insert_with(|| Definitions {
            sites: Vec::new(),
            ..found.clone()
        });
        t.sites.extend(found.sites);
        t.via.push((shown, at));
    }
    if let Some(t) = &mut through {
        let key = |s: &super::Site| (s.declaration, s.path.clone(), s.start_line);
        t.sites.sort_by_key(key);
        t.sites
            .dedup_by(|a, b| a.path == b.path && a.start_line == b.start_line);
    }
    Ok(through)
}

/// At most this many names are looked up instead (a module binds a name once per branch).
const MAX_ALIASES: usize = 4;

/// The names `name` (`a.b.attr.last`) stands for when module `a.b`, a Python file of the
/// scope (`a/b.py` or `a/b/__init__.py`), binds `attr` by an `import … as attr`: each with
/// where it is bound (`path:line`). Empty when the name has no module and attribute.
fn through_imports(
    ws: &Workspace,
    scope: &GrepQuery,
    name: &Name,
    progress: &Progress,
) -> Vec<(Name, String)> {
    let Some((attr, module)) = name.qualifier.split_last() else {
        return Vec::new();
    };
    let words_only = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_');
    if module.is_empty() || !words_only(attr) || !module.iter().all(|m| words_only(m)) {
        return Vec::new();
    }
    let file = module.join("/");
    // The module's own files as the indexes list them (a lookup in the whole workspace);
    // else every file of the scope that holds both words (the index narrows them).
    let search_paths = match scope.search_paths.is_empty() {
        true => match module_files(ws, &file) {
            Some(files) if files.is_empty() => return Vec::new(),
            Some(files) => files,
            None => Vec::new(),
        },
        false => scope.search_paths.clone(),
    };
    let pattern = format!(r"^\s*(from\s+\S+\s+)?import\s.*\bas\s+{attr}\b");
    let q = GrepQuery {
        max_results: 200,
        section_patterns: Some(Vec::new()),
        search_paths,
        ..GrepQuery::new(pattern)
    };
    let Ok(found) = crate::grep::search(ws, &q, progress) else {
        return Vec::new();
    };
    let mut out: Vec<(Name, String)> = Vec::new();
    for m in &found.matches {
        let path = m.path.replace('\\', "/");
        let package = if !is_module(&path, &file) {
            continue;
        } else if path.ends_with("/__init__.py") || path == "__init__.py" {
            module
        } else {
            &module[..module.len() - 1]
        };
        let Some(target) = bound(&m.text, attr, package) else {
            continue;
        };
        let alias = Name {
            qualifier: target,
            last: name.last.clone(),
            kind: name.kind,
        };
        if out.len() < MAX_ALIASES && !out.iter().any(|(n, _)| *n == alias) {
            out.push((alias, format!("{}:{}", m.path, m.line)));
        }
    }
    out
}

/// Whether `rel` (`/`-separated) is the file of module `file` (`a/b`): `a/b.py` or
/// `a/b/__init__.py`, at the top or below a directory.
fn is_module(rel: &str, file: &str) -> bool {
    [format!("{file}.py"), format!("{file}/__init__.py")]
        .iter()
        .any(|e| {
            rel == e
                || rel
                    .strip_suffix(e.as_str())
                    .is_some_and(|d| d.ends_with('/'))
        })
}

/// The files of module `file` in every root, as their indexes list them (and the changed
/// paths not taken in yet), absolute; `None` when a root has no ready index to ask or too
/// many changes to trust it.
fn module_files(ws: &Workspace, file: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for root in ws.roots().as_slice() {
        let view = crate::index::root_view(ws, root, false)?;
        if !view.trusted {
            return None;
        }
        for f in view.index.files() {
            if let Ok(rel) = std::str::from_utf8(&f.path)
                && is_module(rel, file)
            {
                out.push(
                    crate::platform::join_slashed(&view.root, rel)
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
        for d in &view.dirty {
            if let Some(rel) = d.strip_prefix(&view.root).ok().and_then(|r| r.to_str())
                && is_module(&rel.replace('\\', "/"), file)
            {
                out.push(d.to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    out.dedup();
    Some(out)
}

/// The module `line` (a Python import) binds to `attr`, in components, for a file whose
/// package is `package` (relative imports start there).
fn bound(line: &str, attr: &str, package: &[String]) -> Option<Vec<String>> {
    let code = line.split('#').next()?.trim();
    let (from, items) = match code.strip_prefix("from ") {
        Some(rest) => {
            let (from, items) = rest.split_once(" import ")?;
            (Some(from.trim()), items)
        }
        None => (None, code.strip_prefix("import ")?),
    };
    let items = items.trim().trim_start_matches('(').trim_end_matches(')');
    let item = items.split(',').find_map(|item| {
        let mut words = item.split_whitespace();
        let (what, as_, name) = (words.next()?, words.next()?, words.next()?);
        (as_ == "as" && name == attr && words.next().is_none()).then_some(what)
    })?;
    let mut target: Vec<String> = match from {
        None => Vec::new(),
        Some(from) => {
            let dots = from.len() - from.trim_start_matches('.').len();
            let mut base: Vec<String> = if dots == 0 {
                Vec::new()
            } else {
                package[..package.len().checked_sub(dots - 1)?].to_vec()
            };
            base.extend(
                from[dots..]
                    .split('.')
                    .filter(|s| !s.is_empty())
                    .map(String::from),
            );
            base
        }
    };
    target.extend(item.split('.').map(String::from));
    target.iter().all(|c| !c.is_empty()).then_some(target)
}

#[cfg(test)]
mod tests {
    use super::bound;

    fn pkg(p: &[&str]) -> Vec<String> {
        p.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_module_an_import_binds_to_a_name() {
        let none: Vec<String> = Vec::new();
        let b = |line: &str, package: &[String]| bound(line, "path", package).map(|t| t.join("."));
        assert_eq!(
            b("    import posixpath as path", &none).as_deref(),
            Some("posixpath")
        );
        assert_eq!(
            b("import a.b as path  # note", &none).as_deref(),
            Some("a.b")
        );
        assert_eq!(
            b("import sys, ntpath as path", &none).as_deref(),
            Some("ntpath")
        );
        assert_eq!(
            b("from a.b import c as path", &none).as_deref(),
            Some("a.b.c")
        );
        assert_eq!(
            b("from . import posix_impl as path", &pkg(&["tools", "fs"])).as_deref(),
            Some("tools.fs.posix_impl")
        );
        assert_eq!(
            b("from ..impl import x as path", &pkg(&["tools", "fs"])).as_deref(),
            Some("tools.impl.x")
        );
        assert_eq!(
            b("from x import (a as path, b)", &none).as_deref(),
            Some("x.a")
        );
        assert_eq!(b("import posixpath as paths", &none), None);
        assert_eq!(b("import path", &none), None);
        assert_eq!(b("from ... import x as path", &pkg(&["a"])), None);
    }
}
