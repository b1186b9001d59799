//! Packages of Python, Go, Rust, TypeScript and JavaScript files (see `package.rs`). All five
//! take their module from the file's path, as their imports write it:
//!
//! - Python: the dotted path below the topmost directory that still has an `__init__.py`
//!   (`xml/etree/ElementTree.py` → `xml.etree.ElementTree`, `json/__init__.py` → `json`), or
//!   the file's stem for a module outside any package (`kunit_parser`).
//! - Rust: the crate, then the modules below `src/` (`serde-1.0.215/src/ser/mod.rs` →
//!   `serde::ser`): the crate's name is its directory's (the one with the nearest
//!   `Cargo.toml`), less a version suffix, with `-` read as `_`; `lib.rs`, `main.rs` and
//!   `mod.rs` are the module of their directory; `src/bin/NAME`, `tests/NAME`,
//!   `examples/NAME` and `benches/NAME` are crates of their own.
//! - Go: the package's directory as import paths write it: below the nearest `go.mod` (or a
//!   `vendor/` directory, or a GOPATH `src/`), `net/http`; the last element is the package
//!   name but for a few packages (`main`, `foo_test`, `yaml.v3`), whose files still answer
//!   loosely.
//! - TypeScript and JavaScript: the file's stem (`utils.js` → `utils`, `Observable.d.ts` →
//!   `Observable`), or its directory's name for an `index` file, as an import binds it.
//!
//! Go's `package http` clause is not used: define reads a file's declared package instead of
//! its path, and the path says more (`net/http` answers both `http.Get` and
//! `net/http.(*Client).Do`).

use tree_sitter::Node;

use super::Lang;

/// How far up a module's path is followed (`__init__.py`, `Cargo.toml`, `go.mod` looked for).
const MAX_LEVELS: usize = 32;

/// The package a file declares: none for these languages (their modules come from the path,
/// see [`of_path`]).
pub(super) fn of(_lang: Lang, _root: Node, _bytes: &[u8]) -> Vec<String> {
    Vec::new()
}

/// The module a file's path gives its symbols, outermost first. `rel` is `/`-separated;
/// `is_file` tells whether a path beside it exists (at most one call per directory level
/// above the file, up to [`MAX_LEVELS`]; none for TypeScript and JavaScript).
pub(super) fn of_path(lang: Lang, rel: &str, is_file: &dyn Fn(&str) -> bool) -> Vec<String> {
    let (dir, file) = match rel.rfind('/') {
        Some(at) => (&rel[..at], &rel[at + 1..]),
        None => ("", rel),
    };
    match lang {
        Lang::Python => python(dir, file, is_file),
        Lang::Rust => rust(dir, file, is_file),
        Lang::Go => go(dir, is_file),
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript => script(dir, file),
        _ => Vec::new(),
    }
}

/// The directories of `dir`, innermost first, each with its name: `a/b` → `(a/b, b)`, `(a, a)`.
fn ancestors(dir: &str) -> impl Iterator<Item = (&str, &str)> {
    let mut at = Some(dir).filter(|d| !d.is_empty() && *d != "/");
    std::iter::from_fn(move || {
        let d = at?;
        let (parent, name) = match d.rfind('/') {
            Some(i) => (&d[..i], &d[i + 1..]),
            None => ("", d),
        };
        at = Some(parent).filter(|p| !p.is_empty());
        Some((d, name))
    })
    .take(MAX_LEVELS)
}

/// The file name without its extension (`.d.ts` as one: `Observable.d.ts` → `Observable`).
fn stem(file: &str) -> &str {
    let base = match file.rfind('.') {
        Some(at) if at > 0 => &file[..at],
        _ => file,
    };
    base.strip_suffix(".d").unwrap_or(base)
}

/// The end (byte offset) of the last component of `path` named `name`, if one is.
fn after_component(path: &str, name: &str) -> Option<usize> {
    path.match_indices(name)
        .filter(|&(i, _)| {
            let end = i + name.len();
            (i == 0 || path[..i].ends_with('/'))
                && (end == path.len() || path[end..].starts_with('/'))
        })
        .map(|(i, _)| i + name.len())
        .last()
}

/// `dir/name`, or `name` when `dir` is the root.
fn beside(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

fn python(dir: &str, file: &str, is_file: &dyn Fn(&str) -> bool) -> Vec<String> {
    let stem = stem(file);
    let mut parts: Vec<String> = Vec::new();
    let package = stem == "__init__";
    if !package {
        parts.push(stem.to_string());
    }
    for (k, (d, name)) in ancestors(dir).enumerate() {
        // An `__init__.py` is its directory's module: that one has a package file.
        let in_package = (package && k == 0) || is_file(&beside(d, "__init__.py"));
        if !in_package {
            break;
        }
        parts.push(name.to_string());
    }
    parts.reverse();
    parts
}

fn rust(dir: &str, file: &str, is_file: &dyn Fn(&str) -> bool) -> Vec<String> {
    // The crate's directory: most often the one above `src/`, so look there first.
    let above_src = after_component(dir, "src").map(|end| dir[..end - 3].trim_end_matches('/'));
    let manifest = |d: &str| is_file(&beside(d, "Cargo.toml"));
    let root = above_src
        .filter(|d| manifest(d))
        .or_else(|| ancestors(dir).map(|(d, _)| d).find(|d| manifest(d)))
        .or(above_src);
    let (krate, below) = match root {
        Some(r) => (
            r.rsplit('/').next().filter(|n| !n.is_empty()),
            dir[r.len()..].trim_start_matches('/'),
        ),
        None => (None, dir),
    };
    let mut dirs: Vec<&str> = below.split('/').filter(|c| !c.is_empty()).collect();
    let mut krate = krate.map(crate_name);
    let stem = stem(file);
    // Where a crate of its own starts (`src/bin/`, `tests/`...): its name's index in `dirs`.
    let own = match dirs.first().copied() {
        Some("src") if dirs.get(1) == Some(&"bin") => Some(2),
        Some("tests" | "examples" | "benches") => Some(1),
        Some("src") => {
            dirs.remove(0);
            None
        }
        _ => None,
    };
    let mut file_is_root = false;
    if let Some(at) = own {
        // `tests/smoke.rs` is the crate `smoke`; `tests/it/main.rs` the crate `it`.
        file_is_root = dirs.len() == at;
        krate = Some(dirs.get(at).copied().unwrap_or(stem).replace('-', "_"));
        dirs.drain(..dirs.len().min(at + 1));
    }
    let mut parts: Vec<String> = krate.into_iter().collect();
    parts.extend(dirs.iter().map(|d| d.to_string()));
    let dir_module = matches!(stem, "mod") || (dirs.is_empty() && matches!(stem, "lib" | "main"));
    if !file_is_root && !dir_module {
        parts.push(stem.to_string());
    }
    parts
}

/// A crate's name from its directory's: `serde-1.0.215` → `serde`, `regex-automata` →
/// `regex_automata`.
fn crate_name(dir: &str) -> String {
    let name = match dir.rfind('-') {
        Some(at)
            if dir[at + 1..].starts_with(|c: char| c.is_ascii_digit())
                && dir[at + 1..].contains('.') =>
        {
            &dir[..at]
        }
        _ => dir,
    };
    name.replace('-', "_")
}

fn go(dir: &str, is_file: &dyn Fn(&str) -> bool) -> Vec<String> {
    // The nearest `go.mod`, up to the root of the search.
    let root = (!dir.is_empty()).then_some("");
    let module = ancestors(dir)
        .map(|(d, _)| d)
        .chain(root)
        .find(|d| is_file(&beside(d, "go.mod")));
    let mut below = match module {
        Some(m) => dir[m.len()..].trim_start_matches('/'),
        None => dir,
    };
    // Vendored packages, and a GOPATH's, are imported by their path below `vendor/`, `src/`.
    if let Some(end) = after_component(below, "vendor") {
        below = &below[end..];
    } else if module.is_none()
        && let Some(end) = after_component(below, "src")
    {
        below = &below[end..];
    }
    let mut parts: Vec<String> = below
        .split('/')
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect();
    if parts.is_empty()
        && let Some(name) = module
            .and_then(|m| m.rsplit('/').next())
            .filter(|n| !n.is_empty())
    {
        // A package at the module's root: named like its directory, most often.
        parts.push(name.to_string());
    }
    parts
}

fn script(dir: &str, file: &str) -> Vec<String> {
    match stem(file) {
        "index" => ancestors(dir)
            .next()
            .map(|(_, name)| vec![name.to_string()]),
        stem => Some(vec![stem.to_string()]),
    }
    .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(lang: Lang, rel: &str, files: &[&str]) -> String {
        let asked = std::cell::RefCell::new(0);
        let parts = of_path(lang, rel, &|p| {
            *asked.borrow_mut() += 1;
            files.contains(&p)
        });
        assert!(*asked.borrow() <= 8, "{rel}: {} lookups", asked.borrow());
        parts.join(".")
    }

    #[test]
    fn python_modules_are_dotted_paths_below_the_topmost_package() {
        let files = [
            "lib/xml/__init__.py",
            "lib/xml/etree/__init__.py",
            "lib/json/__init__.py",
            "pypi/requests/src/requests/__init__.py",
        ];
        let m = |rel| module(Lang::Python, rel, &files);
        assert_eq!(m("lib/xml/etree/ElementTree.py"), "xml.etree.ElementTree");
        assert_eq!(m("lib/json/__init__.py"), "json");
        assert_eq!(m("lib/dataclasses.py"), "dataclasses");
        assert_eq!(m("kunit/kunit_parser.py"), "kunit_parser");
        assert_eq!(m("stubs.pyi"), "stubs");
        assert_eq!(
            m("pypi/requests/src/requests/sessions.py"),
            "requests.sessions"
        );
        assert_eq!(m("/abs/lib/json/__init__.py"), "json");
    }

    #[test]
    fn rust_modules_are_the_crate_then_the_path_below_src() {
        let files = [
            "crates/serde-1.0.215/Cargo.toml",
            "crates/regex-automata-0.4.9/Cargo.toml",
            "Cargo.toml",
        ];
        let m = |rel| module(Lang::Rust, rel, &files);
        assert_eq!(m("crates/serde-1.0.215/src/ser/mod.rs"), "serde.ser");
        assert_eq!(m("crates/serde-1.0.215/src/lib.rs"), "serde");
        assert_eq!(
            m("crates/regex-automata-0.4.9/src/util/primitives.rs"),
            "regex_automata.util.primitives"
        );
        // The crate at the root of the search: its name is not in the path.
        assert_eq!(m("src/index/store.rs"), "index.store");
        assert_eq!(m("crates/serde-1.0.215/src/serde.rs"), "serde.serde");
        assert_eq!(m("src/main.rs"), "");
        assert_eq!(m("src/bin/tool.rs"), "tool");
        assert_eq!(m("tests/it/main.rs"), "it");
        assert_eq!(m("tests/it/common.rs"), "it.common");
        assert_eq!(m("src/bin/tool/util.rs"), "tool.util");
        assert_eq!(m("tests/smoke.rs"), "smoke");
        // No manifest: the directory above `src/` names the crate.
        assert_eq!(m("vendor/anyhow/src/context.rs"), "anyhow.context");
        assert_eq!(m("loose.rs"), "loose");
    }

    #[test]
    fn go_packages_are_import_paths() {
        let files = ["go-src/go.mod", "mod/go.mod"];
        let m = |rel| module(Lang::Go, rel, &files);
        assert_eq!(m("go-src/net/http/client.go"), "net.http");
        assert_eq!(m("go-src/fmt/print.go"), "fmt");
        assert_eq!(
            m("go-src/vendor/golang.org/x/net/http2/hpack/huffman.go"),
            "golang.org.x.net.http2.hpack"
        );
        assert_eq!(
            m("gopath/src/github.com/u/p/sub/x.go"),
            "github.com.u.p.sub"
        );
        assert_eq!(m("mod/top.go"), "mod");
        assert_eq!(m("lone/x.go"), "lone");
        // The module at the root of the search: its `src/` is a package like any other.
        let rooted = |rel| module(Lang::Go, rel, &["go.mod"]);
        assert_eq!(rooted("src/api/x.go"), "src.api");
        assert_eq!(rooted("main.go"), "");
    }

    #[test]
    fn script_modules_are_file_stems() {
        let m = |rel| module(Lang::JavaScript, rel, &[]);
        assert_eq!(m("axios/lib/utils.js"), "utils");
        assert_eq!(m("axios/lib/defaults/index.js"), "defaults");
        assert_eq!(m("rxjs/dist/types/internal/Observable.d.ts"), "Observable");
        assert_eq!(m("index.js"), "");
    }
}
