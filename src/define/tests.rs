//! Engine tests of the definition lookup on a small tree in five languages: several sites,
//! overloads and trait signatures (declarations), qualified and nested names, the kind and
//! language filters, no call sites, the ranking rule, edits seen at once, the room's cuts,
//! and the parameter errors.

use std::path::Path;

use super::render::{render, site_line};
use super::*;
use crate::roots::Roots;

const RUST: &str = "\
/// A shape with an area.
pub trait Shape {
    /// The area.
    fn area(&self) -> f64;
}

pub struct Circle {
    pub r: f64,
}

impl Shape for Circle {
    fn area(&self) -> f64 {
        3.0 * self.r * self.r
    }
}

pub struct Square(pub f64);

impl Shape for Square {
    fn area(&self) -> f64 {
        self.0 * self.0
    }
}

impl Circle {
    /// Makes a circle.
    pub fn new(r: f64) -> Circle {
        Circle { r }
    }
}

pub fn total(shapes: &[&dyn Shape]) -> f64 {
    shapes.iter().map(|s| s.area()).sum()
}

/// A thing with a label.
pub trait Labelled {
    fn label(&self) -> String;
}
";

const PYTHON: &str = "\
class Point:
    \"\"\"A point of the plane.\"\"\"

    def __init__(self, x, y):
        self.x = x
        self.y = y

    def area(self):
        return 0.0


def area(points):
    \"\"\"The area of a polygon (shoelace).\"\"\"
    pairs = zip(points, points[1:] + points[:1])
    return abs(sum(a.x * b.y - b.x * a.y for a, b in pairs)) / 2


def describe(points):
    return f\"{len(points)} points, area {area(points)}\"
";

const TS: &str = "\
export interface Measured {
  area(): number;
}

export function area(width: number, height: number): number;
export function area(side: number): number;
export function area(a: number, b?: number): number {
  return b === undefined ? a * a : a * b;
}

export class Rect implements Measured {
  constructor(private w: number, private h: number) {}

  /** The rectangle's area. */
  area(): number {
    return area(this.w, this.h);
  }
}
";

const GO: &str = "\
package svc

// Server serves requests.
type Server struct {
\taddr string
}

// Start starts the server.
func (s *Server) Start() error {
\treturn nil
}

func Start(addr string) *Server {
\ts := &Server{addr: addr}
\ts.Start()
\treturn s
}
";

const JS: &str = "\
function start() {
  return 1;
}

const helpers = { start };
module.exports = { start, helpers };
";

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    for (rel, text) in [
        ("src/shapes.rs", RUST),
        ("geometry/plane.py", PYTHON),
        ("web/shapes.ts", TS),
        ("svc/server.go", GO),
        ("lib/util.js", JS),
        ("notes.md", "The area of a shape, see `area`.\n"),
    ] {
        std::fs::create_dir_all(p.join(rel).parent().unwrap()).unwrap();
        std::fs::write(p.join(rel), text).unwrap();
    }
    dir
}

fn ws(dir: &Path) -> Workspace {
    Workspace::new(Roots::new([dir]).unwrap())
}

fn query(name: &str) -> DefineQuery {
    DefineQuery {
        name: name.into(),
        ..DefineQuery::default()
    }
}

fn find(ws: &Workspace, q: &DefineQuery) -> Definitions {
    lookup(ws, q, &Progress::default()).unwrap()
}

/// `path:start-end qualified` of each site.
fn keys(d: &Definitions) -> Vec<String> {
    d.sites
        .iter()
        .map(|s| format!("{}:{}-{} {}", s.path, s.start_line, s.end_line, s.qualified))
        .collect()
}

#[test]
fn every_definition_site_in_every_language_and_no_call_site() {
    let dir = tree();
    let ws = ws(dir.path());
    let d = find(&ws, &query("area"));
    assert_eq!(
        keys(&d),
        [
            "geometry/plane.py:8-9 plane.Point.area",
            "geometry/plane.py:12-15 plane.area",
            "src/shapes.rs:12-14 shapes.Circle.area",
            "src/shapes.rs:20-22 shapes.Square.area",
            "web/shapes.ts:7-9 shapes.area",
            "web/shapes.ts:15-17 shapes.Rect.area",
        ]
    );
    // The trait's signature and the two overload signatures are declarations.
    assert_eq!(d.hidden_declarations, 3);
    assert!(!d.only_declarations);
    // Calls (`return area(points)`, `s.area()`, `area(this.w, this.h)`) are never sites.
    for s in &d.sites {
        assert!(
            ["def ", "fn ", "function ", "area(): number"]
                .iter()
                .any(|p| s.signature.contains(p)),
            "{}",
            site_line(s)
        );
    }
    // Several sites: no code unless asked for.
    assert!(d.sites.iter().all(|s| s.code.is_none()));
    assert_eq!((d.files_with_name, d.files_parsed), (4, 3));
    assert_eq!(d.sites[5].doc_line, Some(14));
    assert_eq!(d.sites[0].lang, Lang::Python);
}

#[test]
fn declarations_come_after_definitions_when_asked_or_alone() {
    let dir = tree();
    let ws = ws(dir.path());
    let all = find(
        &ws,
        &DefineQuery {
            declarations: true,
            ..query("area")
        },
    );
    let flags: Vec<bool> = all.sites.iter().map(|s| s.declaration).collect();
    assert_eq!(
        flags,
        [false, false, false, false, false, false, true, true, true]
    );
    assert_eq!(
        keys(&all)[6..],
        [
            "src/shapes.rs:4-4 shapes.Shape.area",
            "web/shapes.ts:5-5 shapes.area",
            "web/shapes.ts:6-6 shapes.area",
        ]
    );
    assert_eq!(all.hidden_declarations, 0);
    // A trait's method by the trait's name: the impls' methods, the signature hidden.
    let by_trait = find(&ws, &query("Shape::area"));
    assert_eq!(
        keys(&by_trait),
        [
            "src/shapes.rs:12-14 shapes.Circle.area",
            "src/shapes.rs:20-22 shapes.Square.area"
        ]
    );
    assert_eq!(by_trait.hidden_declarations, 1);
    assert!(find(&ws, &query("Other::area")).sites.is_empty());
    // Only a declaration has the name: it is listed, and said to be one.
    let only = find(&ws, &query("Labelled::label"));
    assert_eq!(keys(&only), ["src/shapes.rs:38-38 shapes.Labelled.label"]);
    assert!(only.only_declarations);
    let text = render(&only, "Labelled::label", 10_000, &crate::words::NEUTRAL).text;
    assert!(text.contains("Found 1 declaration in 1 file"), "{text}");
    assert!(text.contains("no definition with a body"), "{text}");
}

#[test]
fn qualified_names_with_dots_or_colons_pick_one_site_with_its_code() {
    let dir = tree();
    let ws = ws(dir.path());
    for name in ["Circle.area", "Circle::area", "shapes::Circle::area"] {
        let d = find(&ws, &query(name));
        // `shapes` is the module the file's path makes.
        assert_eq!(
            keys(&d),
            ["src/shapes.rs:12-14 shapes.Circle.area"],
            "{name}"
        );
        let code = d.sites[0]
            .code
            .as_deref()
            .expect("one site comes with its code");
        assert!(code.contains("3.0 * self.r * self.r"), "{code}");
        assert_eq!(d.sites[0].address, "Circle.area");
    }
    // Go: a receiver method and a function of one name.
    let d = find(&ws, &query("Start"));
    assert_eq!(
        keys(&d),
        [
            "svc/server.go:9-11 svc.Server.Start",
            "svc/server.go:13-17 svc.Start"
        ]
    );
    let d = find(&ws, &query("Server.Start"));
    assert_eq!(keys(&d), ["svc/server.go:9-11 svc.Server.Start"]);
    assert_eq!(d.sites[0].doc_line, Some(8));
    // The doc comment is part of the code shown.
    let d = find(&ws, &query("new"));
    assert_eq!(
        d.sites[0].code.as_deref().unwrap().lines().next(),
        Some("    /// Makes a circle.")
    );
    // Code asked off, and on for several sites.
    let none = find(
        &ws,
        &DefineQuery {
            code: Some(false),
            ..query("new")
        },
    );
    assert!(none.sites[0].code.is_none());
    let all = find(
        &ws,
        &DefineQuery {
            code: Some(true),
            ..query("area")
        },
    );
    assert!(all.sites.iter().all(|s| s.code.is_some()));
}

#[test]
fn kind_and_language_filters() {
    let dir = tree();
    let ws = ws(dir.path());
    let functions = find(
        &ws,
        &DefineQuery {
            kind: Some("Function".into()),
            ..query("area")
        },
    );
    assert_eq!(
        keys(&functions),
        [
            "geometry/plane.py:12-15 plane.area",
            "web/shapes.ts:7-9 shapes.area"
        ]
    );
    for lang in ["python", "py"] {
        let d = find(
            &ws,
            &DefineQuery {
                lang: Some(lang.into()),
                ..query("area")
            },
        );
        assert_eq!(d.sites.len(), 2, "{lang}");
        assert_eq!(d.files_parsed, 1);
    }
    let types = find(
        &ws,
        &DefineQuery {
            kind: Some("struct".into()),
            ..query("Server")
        },
    );
    assert_eq!(keys(&types), ["svc/server.go:4-6 svc.Server"]);
}

#[test]
fn paths_and_globs_are_the_searchs() {
    let dir = tree();
    let ws = ws(dir.path());
    let scoped = |paths: &[&str], globs: &[&str]| {
        let q = DefineQuery {
            scope: GrepQuery {
                search_paths: paths.iter().map(|s| s.to_string()).collect(),
                globs: globs.iter().map(|s| s.to_string()).collect(),
                ..GrepQuery::default()
            },
            ..query("area")
        };
        keys(&find(&ws, &q))
    };
    assert_eq!(scoped(&["src"], &[]).len(), 2);
    assert_eq!(scoped(&["web/shapes.ts"], &[]).len(), 2);
    assert_eq!(scoped(&[], &["*.py"]).len(), 2);
    assert_eq!(scoped(&[], &["!*.py", "!*.ts"]).len(), 2);
    let outside = lookup(
        &ws,
        &DefineQuery {
            scope: GrepQuery {
                search_paths: vec!["nope".into()],
                ..GrepQuery::default()
            },
            ..query("area")
        },
        &Progress::default(),
    );
    let Err(DefineError::Param(e)) = outside else {
        panic!("{outside:?}")
    };
    assert!(e.provided.starts_with("name=\"area\""), "{e}");
}

#[test]
fn an_edit_that_adds_moves_or_removes_a_definition_is_seen_by_the_next_lookup() {
    let dir = tree();
    let ws = ws(dir.path());
    let path = dir.path().join("lib/util.js");
    assert_eq!(
        keys(&find(&ws, &query("start"))),
        ["lib/util.js:1-3 util.start"]
    );
    // Moved down, and a second one added in another file.
    std::fs::write(&path, format!("// moved\n\n{JS}")).unwrap();
    std::fs::write(
        dir.path().join("lib/more.js"),
        "export const start = () => 2;\n",
    )
    .unwrap();
    assert_eq!(
        keys(&find(&ws, &query("start"))),
        ["lib/more.js:1-1 more.start", "lib/util.js:3-5 util.start"]
    );
    // Removed.
    std::fs::write(&path, "module.exports = {};\n").unwrap();
    assert_eq!(
        keys(&find(&ws, &query("start"))),
        ["lib/more.js:1-1 more.start"]
    );
}

#[test]
fn parameter_errors_say_what_to_do() {
    let dir = tree();
    let ws = ws(dir.path());
    let err = |q: DefineQuery| match lookup(&ws, &q, &Progress::default()) {
        Err(DefineError::Param(e)) => e,
        other => panic!("{other:?}"),
    };
    let e = err(query("  "));
    assert_eq!(e.short, "Empty name");
    let e = err(query("a..b"));
    assert_eq!(e.short, "Invalid name");
    let e = err(query("two words"));
    assert_eq!(e.short, "Invalid name");
    let e = err(DefineQuery {
        kind: Some("fn".into()),
        ..query("area")
    });
    assert_eq!(e.short, "Unknown kind");
    assert!(e.fix.contains("function, method"), "{}", e.fix);
    assert_eq!(e.provided, "name=\"area\", kind=\"fn\"");
    let e = err(DefineQuery {
        lang: Some("cobol".into()),
        ..query("area")
    });
    assert_eq!(e.short, "Unknown lang");
    assert!(e.fix.contains("rust"), "{}", e.fix);
}

#[test]
fn nothing_found_says_where_it_looked() {
    let dir = tree();
    let ws = ws(dir.path());
    let d = find(&ws, &query("shape"));
    assert!(d.sites.is_empty());
    let text = render(&d, "shape", 10_000, &crate::words::NEUTRAL).text;
    // The word is in the markdown file and in a Rust doc comment ("A shape with an area").
    assert!(
        text.starts_with("No definition of 'shape' found (2 files contain the word 'shape', 1 of them parsed; searched 6 files).\nIt may be defined in a file type this build does not parse"),
        "{text}"
    );
}

#[test]
fn the_room_cuts_code_and_sites_and_says_how_to_read_the_rest() {
    let dir = tree();
    let ws = ws(dir.path());
    let d = find(&ws, &query("Rect"));
    assert_eq!(d.sites.len(), 1);
    let full = render(&d, "Rect", 10_000, &crate::words::NEUTRAL);
    assert!(!full.truncated);
    assert!(
        full.text.contains("    return area(this.w, this.h);\n"),
        "{}",
        full.text
    );
    let cut = render(&d, "Rect", 200, &crate::words::NEUTRAL);
    assert!(cut.truncated);
    assert!(
        cut.text.contains("left out (response size limit). Read them with a line read {\"path\": \"web/shapes.ts\", \"start_line\": "),
        "{}",
        cut.text
    );
    assert!(cut.text.contains("\"target\": \"Rect\"}"), "{}", cut.text);
    assert!(
        !cut.text.contains("return area(this.w, this.h)"),
        "{}",
        cut.text
    );
    // Sites beyond the room: the first ones, and how many more.
    let many = find(&ws, &query("area"));
    let text = render(&many, "area", 150, &crate::words::NEUTRAL).text;
    assert!(text.contains("[cut: 5 more sites left out"), "{text}");
}

#[test]
fn the_signature_joins_a_return_type_line_and_skips_decorators() {
    let lines = [
        "static inline void *",
        "kmalloc_array(size_t n, size_t size)",
        "{",
        "@cached",
        "def   area(self):",
    ];
    let at = |n: u32| lines[n as usize - 1].as_bytes();
    assert_eq!(
        signature("kmalloc_array", 1, 3, at),
        "static inline void * kmalloc_array(size_t n, size_t size)"
    );
    assert_eq!(signature("area", 4, 5, at), "def area(self):");
    // A name on none of the first lines: the first line alone.
    assert_eq!(signature("zzz", 1, 3, at), "static inline void *");
}

#[test]
fn qualified_names_split_at_dots_colons_and_hashes() {
    let n = super::name::parse("Billing::Invoice#add").unwrap();
    assert_eq!(
        (n.qualifier, n.last.as_str()),
        (vec!["Billing".to_string(), "Invoice".into()], "add")
    );
    let n = super::name::parse("geo::Circle.area").unwrap();
    assert_eq!(
        (n.qualifier, n.last.as_str()),
        (vec!["geo".to_string(), "Circle".into()], "area")
    );
}

#[test]
fn a_lookup_out_of_time_answers_what_it_found_and_says_so() {
    let dir = tree();
    let ws = ws(dir.path());
    let q = DefineQuery {
        time_limit: Some(std::time::Duration::ZERO),
        ..query("area")
    };
    let d = find(&ws, &q);
    assert!(d.search_cut, "the search had no time");
    assert!(!d.timed_out && !d.cancelled);
    let text = render(&d, "area", 10_000, &crate::words::NEUTRAL).text;
    assert!(text.contains("too common to search every file"), "{text}");
    assert!(text.contains("Narrow it with"), "{text}");
}

#[test]
fn a_cancelled_lookup_stops_and_says_so() {
    let dir = tree();
    let ws = ws(dir.path());
    let progress = Progress::default();
    progress.cancel();
    let t = std::time::Instant::now();
    let d = lookup(&ws, &query("area"), &progress).unwrap();
    assert!(d.cancelled);
    assert!(t.elapsed() < std::time::Duration::from_secs(2));
    let text = render(&d, "area", 10_000, &crate::words::NEUTRAL).text;
    assert!(text.contains("cancelled"), "{text}");
}

#[test]
fn names_that_are_not_identifiers_are_refused_before_any_search() {
    let dir = tree();
    let ws = ws(dir.path());
    for bad in ["(", "*", "a b", "x;"] {
        let progress = Progress::default();
        let Err(DefineError::Param(e)) = lookup(&ws, &query(bad), &progress) else {
            panic!("{bad} accepted");
        };
        assert_eq!(e.short, "Invalid name", "{bad}");
        assert!(e.problem.contains("is not a symbol name"), "{}", e.problem);
        assert_eq!(
            progress
                .files_searched
                .load(std::sync::atomic::Ordering::Relaxed),
            0
        );
    }
}

#[test]
fn a_python_module_that_imports_another_under_a_name_answers_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    for (rel, text) in [
        (
            "lib/ospkg.py",
            "import sys\n\nif sys.platform == 'win32':\n    import winpaths as path\nelse:\n    import unixpaths as path  # the usual one\n",
        ),
        (
            "lib/unixpaths.py",
            "def join(a, *parts):\n    \"\"\"Joins with a slash.\"\"\"\n    return '/'.join((a,) + parts)\n",
        ),
        (
            "lib/winpaths.py",
            "def join(a, *parts):\n    return '\\\\'.join((a,) + parts)\n",
        ),
        ("tools/__init__.py", ""),
        (
            "tools/fs/__init__.py",
            "from .impl import posix_side as side\n",
        ),
        ("tools/fs/impl/__init__.py", ""),
        (
            "tools/fs/impl/posix_side.py",
            "def make(x):\n    return x\n",
        ),
    ] {
        std::fs::create_dir_all(p.join(rel).parent().unwrap()).unwrap();
        std::fs::write(p.join(rel), text).unwrap();
    }
    let ws = ws(p);
    let at = |d: &Definitions| -> Vec<String> {
        d.sites
            .iter()
            .map(|s| format!("{}:{}", s.path, s.start_line))
            .collect()
    };
    let d = find(&ws, &query("ospkg.path.join"));
    assert_eq!(at(&d), ["lib/unixpaths.py:1", "lib/winpaths.py:1"]);
    let text = render(&d, "ospkg.path.join", usize::MAX, &crate::words::NEUTRAL).text;
    assert!(
        text.contains("unixpaths.join (bound at lib/ospkg.py:6)"),
        "{text}"
    );
    assert!(
        text.contains("winpaths.join (bound at lib/ospkg.py:4)"),
        "{text}"
    );
    // A relative import in a package's `__init__.py`.
    let d = find(&ws, &query("tools.fs.side.make"));
    assert_eq!(at(&d), ["tools/fs/impl/posix_side.py:1"]);
    // Nothing bound by that name, or nothing by that name where it is bound.
    assert!(find(&ws, &query("ospkg.paths.join")).sites.is_empty());
    assert!(find(&ws, &query("ospkg.path.split")).sites.is_empty());
    assert!(find(&ws, &query("ospkg.path.join")).via.len() == 2);
}
