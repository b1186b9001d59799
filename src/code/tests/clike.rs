//! The C, C++, Java, C# and Bash symbol queries on small files in each language's idioms:
//! prototypes told from definitions, macros, preprocessor branches, attribute macros,
//! qualified and nested names, overloads.

use std::path::Path;

use super::super::*;

/// `(qualified, kind, start, end)` of every symbol of `src` parsed as the file `name`.
fn symbols(name: &str, src: &str) -> Vec<(String, &'static str, u32, u32)> {
    let s = structure(name, src);
    s.symbols
        .iter()
        .map(|s| (s.qualified.clone(), s.kind, s.start_line, s.end_line))
        .collect()
}

fn structure(name: &str, src: &str) -> FileStructure {
    let lang = Lang::from_path(Path::new(name)).expect("a parsed language");
    let s = FileStructure::build(lang, src.as_bytes()).expect("parsed");
    super::assert_partition(&s, src.as_bytes());
    s
}

fn sym(q: &str, kind: &'static str, a: u32, b: u32) -> (String, &'static str, u32, u32) {
    (q.to_string(), kind, a, b)
}

fn kinds_of<'a>(
    all: &'a [(String, &'static str, u32, u32)],
    name: &str,
) -> Vec<&'a (String, &'static str, u32, u32)> {
    all.iter().filter(|s| s.0 == name).collect()
}

#[test]
fn extensions_pick_the_language() {
    for (path, lang) in [
        ("a.c", Lang::C),
        ("a.h", Lang::C),
        ("a.cc", Lang::Cpp),
        ("a.cpp", Lang::Cpp),
        ("a.hpp", Lang::Cpp),
        ("a.ipp", Lang::Cpp),
        ("A.java", Lang::Java),
        ("A.cs", Lang::CSharp),
        ("run.sh", Lang::Bash),
        ("run.bash", Lang::Bash),
    ] {
        assert_eq!(Lang::from_path(Path::new(path)), Some(lang), "{path}");
    }
}

const C_PROTOTYPES: &str = "\
#include <stddef.h>

int ring_push(struct ring *r, int v);
static int (*handler)(int);

/* Pushes one value. */
int ring_push(struct ring *r, int v)
{
\treturn r->len++;
}

char *(*pick(int which))(void)
{
\treturn 0;
}
";

#[test]
fn c_prototype_is_a_declaration_and_the_body_a_function() {
    let all = symbols("ring.c", C_PROTOTYPES);
    assert_eq!(
        kinds_of(&all, "ring_push"),
        [
            &sym("ring_push", "prototype", 3, 3),
            &sym("ring_push", "function", 6, 10)
        ]
    );
    assert_eq!(
        kinds_of(&all, "handler"),
        [&sym("handler", "variable", 4, 4)]
    );
    assert_eq!(kinds_of(&all, "pick"), [&sym("pick", "function", 12, 15)]);
    // The definition, not its prototype, is what a target of that name reads.
    let s = structure("ring.c", C_PROTOTYPES);
    match resolve_target(&s, "ring_push") {
        TargetMatch::Found(hits) => {
            assert_eq!(hits.len(), 1);
            assert_eq!(s.symbol(hits[0]).kind, "function");
        }
        other => panic!("{other:?}"),
    }
    // The prototype is a declaration (a definition lookup lists it only when asked).
    let decl: Vec<(&str, bool)> = s
        .symbols
        .iter()
        .filter(|x| x.name == "ring_push")
        .map(|x| (x.kind, x.declaration))
        .collect();
    assert_eq!(decl, [("prototype", true), ("function", false)]);
}

/// A C++ pure virtual method and an in-class prototype are declarations; an inline method
/// and an out-of-line one are not.
#[test]
fn cpp_prototypes_and_pure_virtuals_are_declarations() {
    let src = "struct S {\n    virtual int f() const = 0;\n    int g();\n    int h() { return 1; }\n};\nint S::g() { return 2; }\n";
    let s = structure("s.hpp", src);
    let decl: Vec<(&str, u32, bool)> = s
        .symbols
        .iter()
        .filter(|x| x.kind != "struct")
        .map(|x| (x.name.as_str(), x.start_line, x.declaration))
        .collect();
    assert_eq!(
        decl,
        [
            ("f", 2, true),
            ("g", 3, true),
            ("h", 4, false),
            ("g", 6, false)
        ]
    );
}

const C_MACROS: &str = "\
#ifndef RING_H
#define RING_H

#define RING_MAX 64
#define RING_NEXT(i) (((i) + 1) % RING_MAX)

#ifdef CONFIG_RING_DEBUG
static inline void ring_check(const struct ring *r)
{
\tassert(r->len <= RING_MAX);
}
#else
static inline void ring_check(const struct ring *r) { }
#endif

#if defined(CONFIG_A)
# if CONFIG_B
int nested_deep(void) { return 2; }
# endif
#endif

EXPORT_SYMBOL(ring_check);

#endif /* RING_H */
";

#[test]
fn c_macros_and_definitions_under_ifdef() {
    let all = symbols("ring.h", C_MACROS);
    assert_eq!(
        kinds_of(&all, "RING_MAX"),
        [&sym("RING_MAX", "macro", 4, 4)]
    );
    assert_eq!(
        kinds_of(&all, "RING_NEXT"),
        [&sym("RING_NEXT", "macro", 5, 5)]
    );
    assert_eq!(
        kinds_of(&all, "ring_check"),
        [
            &sym("ring_check", "function", 8, 11),
            &sym("ring_check", "function", 13, 13)
        ]
    );
    assert_eq!(
        kinds_of(&all, "nested_deep"),
        [&sym("nested_deep", "function", 18, 18)]
    );
    assert!(
        all.iter().all(|s| s.0 != "EXPORT_SYMBOL"),
        "a macro call is no prototype: {all:?}"
    );
}

const C_ATTRIBUTES: &str = "\
/**
 * buf_alloc_array - allocate an array of buffers.
 */
static inline __alloc_size(1, 2) void *buf_alloc_array(size_t n, size_t size, gfp_t flags)
{
\treturn buf_alloc(n * size, flags);
}

static int __init buf_init(void)
{
\treturn 0;
}

int __must_check buf_reserve(struct buf *b, size_t n);
void *buf_raw(size_t size) __assume_kmalloc_alignment __alloc_size(1);

__printf(2, 3) void buf_log(struct buf *b, const char *fmt, ...)
{
}
";

#[test]
fn c_attribute_macros_do_not_hide_the_name() {
    let all = symbols("buf.h", C_ATTRIBUTES);
    assert_eq!(
        all,
        [
            sym("buf_alloc_array", "function", 1, 7),
            sym("buf_init", "function", 9, 12),
            sym("buf_reserve", "prototype", 14, 14),
            sym("buf_raw", "prototype", 15, 15),
            sym("buf_log", "function", 17, 19),
        ]
    );
}

const C_TYPES: &str = "\
struct list_node;

/* A doubly linked node. */
struct list_node {
\tstruct list_node *next, *prev;
};

typedef struct list_node list_node_t;

typedef struct {
\tint x, y;
} point_t;

typedef struct pair {
\tint a, b;
} pair_t;

typedef int (*cmp_fn)(const void *, const void *);

union value {
\tint i;
\tdouble d;
};

enum color { RED, GREEN, BLUE };

static const int limits[] = { 1, 2, 3 };
";

#[test]
fn c_structs_unions_enums_and_typedefs() {
    let all = symbols("list.h", C_TYPES);
    assert_eq!(
        all,
        [
            sym("list_node", "struct", 3, 6),
            sym("list_node_t", "type", 8, 8),
            sym("point_t", "type", 10, 12),
            sym("pair_t", "type", 14, 16),
            sym("pair", "struct", 14, 16),
            sym("cmp_fn", "type", 18, 18),
            sym("value", "union", 20, 23),
            sym("color", "enum", 25, 25),
            sym("limits", "variable", 27, 27),
        ]
    );
}

const CPP: &str = "\
#include <string>
#include \"shape.hpp\"

namespace geo {

/// A shape with an area.
class Shape {
public:
    explicit Shape(std::string name);
    virtual ~Shape() = default;
    virtual double area() const = 0;
    const std::string &name() const { return name_; }

    struct Stats {
        int calls;
    };

private:
    std::string name_;
};

template <typename T>
T clamp(T v, T lo, T hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

Shape::Shape(std::string name) : name_(std::move(name)) {}

namespace detail {
int scale(int v) { return v * 2; }
int scale(int v, int by) { return v * by; }
}  // namespace detail

}  // namespace geo

double geo::Circle::area() const {
    return 3.14159 * r_ * r_;
}

extern \"C\" {
int geo_version(void);
}

using ShapePtr = std::unique_ptr<geo::Shape>;
";

#[test]
fn cpp_classes_namespaces_and_out_of_line_members() {
    let all = symbols("shape.cpp", CPP);
    assert_eq!(
        all,
        [
            sym("geo", "namespace", 4, 34),
            sym("geo.Shape", "class", 6, 20),
            sym("geo.Shape.Shape", "prototype", 9, 9),
            // `= default`: a definition.
            sym("geo.Shape.~Shape", "method", 10, 10),
            sym("geo.Shape.area", "prototype", 11, 11),
            sym("geo.Shape.name", "method", 12, 12),
            sym("geo.Shape.Stats", "struct", 14, 16),
            sym("geo.clamp", "function", 22, 25),
            sym("geo.Shape.Shape", "function", 27, 27),
            sym("geo.detail", "namespace", 29, 32),
            sym("geo.detail.scale", "function", 30, 30),
            sym("geo.detail.scale", "function", 31, 31),
            sym("geo.Circle.area", "function", 36, 38),
            sym("geo_version", "prototype", 41, 41),
            sym("ShapePtr", "type", 44, 44),
        ]
    );
    let s = structure("shape.cpp", CPP);
    // `::` reads as `.`; the out-of-line definition wins over the in-class declaration.
    for target in ["geo::Shape::Shape", "geo.Shape.Shape"] {
        match resolve_target(&s, target) {
            TargetMatch::Found(hits) => assert_eq!(s.symbol(hits[0]).start_line, 27),
            other => panic!("{target}: {other:?}"),
        }
    }
    // Overloads are adjacent siblings: read together.
    match resolve_target(&s, "geo::detail::scale") {
        TargetMatch::Found(hits) => assert_eq!(hits.len(), 2),
        other => panic!("{other:?}"),
    }
    super::assert_addresses_resolve(&s);
}

const JAVA: &str = "\
package org.example.shop;

import java.util.ArrayList;
import java.util.List;

/**
 * A shopping cart.
 */
public class Cart implements Iterable<Item> {
    private final List<Item> items = new ArrayList<>();

    public Cart() {}

    public Cart(List<Item> initial) {
        items.addAll(initial);
    }

    /** Adds one item. */
    @Override
    public void add(Item item) {
        items.add(item);
    }

    public void add(Item item, int count) {
        for (int i = 0; i < count; i++) {
            add(item);
        }
    }

    public static class Builder {
        public Cart build() { return new Cart(); }
    }

    interface Listener {
        void changed(Cart cart);
    }

    enum State {
        OPEN, PAID;

        boolean done() { return this == PAID; }
    }

    record Line(Item item, int count) {}
}
";

#[test]
fn java_classes_overloads_and_nested_types() {
    let all = symbols("Cart.java", JAVA);
    assert_eq!(
        all,
        [
            sym("Cart", "class", 6, 45),
            sym("Cart.items", "field", 10, 10),
            sym("Cart.Cart", "constructor", 12, 12),
            sym("Cart.Cart", "constructor", 14, 16),
            sym("Cart.add", "method", 18, 22),
            sym("Cart.add", "method", 24, 28),
            sym("Cart.Builder", "class", 30, 32),
            sym("Cart.Builder.build", "method", 31, 31),
            sym("Cart.Listener", "interface", 34, 36),
            sym("Cart.Listener.changed", "method", 35, 35),
            sym("Cart.State", "enum", 38, 42),
            sym("Cart.State.done", "method", 41, 41),
            sym("Cart.Line", "record", 44, 44),
        ]
    );
    let s = structure("Cart.java", JAVA);
    assert_eq!(s.imports.len(), 2);
    assert_eq!(s.directives[0].kind, "package");
    match resolve_target(&s, "add") {
        TargetMatch::Found(hits) => assert_eq!(hits.len(), 2, "overloads read together"),
        other => panic!("{other:?}"),
    }
}

const CSHARP: &str = "\
using System;
using System.Collections.Generic;

namespace Shop.Billing
{
    /// <summary>An invoice.</summary>
    [Serializable]
    public class Invoice : IComparable<Invoice>
    {
        private readonly List<decimal> lines = new();

        public Invoice() { }

        public decimal Total { get; private set; }

        public void Add(decimal amount) => lines.Add(amount);

        public void Add(decimal amount, int times)
        {
            for (var i = 0; i < times; i++) Add(amount);
        }

        public int CompareTo(Invoice other) => Total.CompareTo(other.Total);

        public struct Line { public decimal Amount; }
    }

    public interface IPayable
    {
        void Pay();
    }

    public enum Status { Draft, Sent }

    public record Receipt(Invoice Invoice, DateTime At);
}
";

#[test]
fn csharp_namespaces_classes_and_overloads() {
    let all = symbols("Invoice.cs", CSHARP);
    assert_eq!(
        all,
        [
            sym("Shop.Billing", "namespace", 4, 36),
            sym("Shop.Billing.Invoice", "class", 6, 26),
            sym("Shop.Billing.Invoice.lines", "field", 10, 10),
            sym("Shop.Billing.Invoice.Invoice", "constructor", 12, 12),
            sym("Shop.Billing.Invoice.Total", "property", 14, 14),
            sym("Shop.Billing.Invoice.Add", "method", 16, 16),
            sym("Shop.Billing.Invoice.Add", "method", 18, 21),
            sym("Shop.Billing.Invoice.CompareTo", "method", 23, 23),
            sym("Shop.Billing.Invoice.Line", "struct", 25, 25),
            sym("Shop.Billing.Invoice.Line.Amount", "field", 25, 25),
            sym("Shop.Billing.IPayable", "interface", 28, 31),
            sym("Shop.Billing.IPayable.Pay", "method", 30, 30),
            sym("Shop.Billing.Status", "enum", 33, 33),
            sym("Shop.Billing.Receipt", "record", 35, 35),
        ]
    );
    let s = structure("Invoice.cs", CSHARP);
    assert_eq!(s.imports.len(), 2);
}

const BASH: &str = "\
#!/usr/bin/env bash
# Deploys the site.
set -euo pipefail

source ./lib/common.sh
. \"$HOME/.deployrc\"

# Prints usage.
usage() {
    echo \"usage: $0 TARGET\" >&2
}

function deploy {
    local target=$1
    rsync -a build/ \"$target\"
}

function cleanup() {
    rm -rf build
}

deploy \"${1:?$(usage)}\"
";

#[test]
fn bash_functions_of_both_forms_and_sourced_files() {
    let all = symbols("deploy.sh", BASH);
    assert_eq!(
        all,
        [
            sym("usage", "function", 8, 11),
            sym("deploy", "function", 13, 16),
            sym("cleanup", "function", 18, 20),
        ]
    );
    let s = structure("deploy.sh", BASH);
    assert_eq!(s.imports.len(), 2);
    assert_eq!(s.directives[0].kind, "shebang");
}

/// The Linux tree's `include/linux/slab.h` (corpora/linux, or the tree `MAPGREP_LINUX` names):
/// `kmalloc_array` and friends, behind `__alloc_size(…)`, are function definitions.
#[test]
#[ignore = "needs the Linux tree: bash corpora/fetch_linux.sh"]
fn c_kmalloc_array_in_the_linux_tree() {
    let root = std::env::var_os("MAPGREP_LINUX")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/linux"));
    let Ok(src) = std::fs::read_to_string(root.join("include/linux/slab.h")) else {
        return;
    };
    let all = symbols("slab.h", &src);
    for name in [
        "kmalloc_array",
        "kcalloc",
        "kmalloc",
        "kzalloc",
        "kmalloc_array_node",
    ] {
        let found = kinds_of(&all, name);
        assert!(found.iter().any(|s| s.1 == "function"), "{name}: {found:?}");
    }
    let found = kinds_of(&all, "kmalloc_array");
    println!("{} symbols; kmalloc_array: {found:?}", all.len());
}

/// Parses every file of real trees in the languages of this build, without panicking, and
/// prints per language: files, symbols found, MB and parse speed (MB/s of one core: the
/// bytes over the summed time of the whole structure build of each file); then what telling
/// the languages cost ([`Lang::of_file`] on every file's first 16 KiB). Trees:
/// `MAPGREP_CODE_TREES` (paths separated by `:`), by default corpora/langs
/// (`bash corpora/fetch_langs.sh`) and corpora/linux.
#[test]
#[ignore = "walks large trees; run by hand: cargo test --release --lib parse_speed_per_language -- --ignored --nocapture"]
fn parse_speed_per_language() {
    use rayon::prelude::*;
    use std::time::{Duration, Instant};
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let roots: Vec<std::path::PathBuf> = match std::env::var_os("MAPGREP_CODE_TREES") {
        Some(list) => std::env::split_paths(&list).collect(),
        None => vec![repo.join("corpora/langs"), repo.join("corpora/linux")],
    };
    let mut files = Vec::new();
    for root in roots.iter().filter(|r| r.exists()) {
        let walk = ignore::WalkBuilder::new(root)
            .standard_filters(false)
            .follow_links(true)
            .build();
        for entry in walk.flatten() {
            if entry.file_type().is_some_and(|t| t.is_file()) {
                files.push(entry.path().to_path_buf());
            }
        }
    }
    // (files, bytes, symbols, time, failures) per language
    type Tally = (usize, usize, usize, Duration, Vec<String>);
    let detected: Vec<(Option<(Lang, Tally)>, Duration)> = files
        .par_iter()
        .filter_map(|path| {
            let bytes = std::fs::read(path).ok()?;
            let started = Instant::now();
            let head = &bytes[..bytes.len().min(16 << 10)];
            let lang = Lang::of_file(path, head);
            let detection = started.elapsed();
            let lang =
                lang.filter(|_| bytes.len() <= structure::MAX_PARSE_BYTES && !bytes.contains(&0));
            Some((
                lang.map(|lang| (lang, parse_timed(lang, path, &bytes))),
                detection,
            ))
        })
        .collect();
    let detection: Duration = detected.iter().map(|d| d.1).sum();
    let mut by_lang: std::collections::BTreeMap<&str, Tally> = Default::default();
    for (lang, (f, b, s, t, mut failed)) in detected.into_iter().filter_map(|d| d.0) {
        let e = by_lang.entry(lang.name()).or_default();
        (e.0, e.1, e.2, e.3) = (e.0 + f, e.1 + b, e.2 + s, e.3 + t);
        e.4.append(&mut failed);
    }
    println!("language  files  symbols  MB  MB/s (one core)");
    for (name, (files, bytes, symbols, time, _)) in &by_lang {
        let mb = *bytes as f64 / 1e6;
        let speed = mb / time.as_secs_f64().max(1e-9);
        println!("{name:9} {files:6} {symbols:8} {mb:7.1} {speed:6.1}");
    }
    println!(
        "detection: {} files in {:.0} ms of one core ({:.1} µs a file)",
        files.len(),
        detection.as_secs_f64() * 1e3,
        detection.as_secs_f64() * 1e6 / files.len().max(1) as f64
    );
    let failed: Vec<&String> = by_lang.values().flat_map(|t| &t.4).collect();
    assert!(
        failed.is_empty(),
        "{} files failed: {failed:?}",
        failed.len()
    );
}

/// One file's structure build, timed: `(1, bytes, symbols, time, [path if it failed])`.
fn parse_timed(
    lang: Lang,
    path: &Path,
    bytes: &[u8],
) -> (usize, usize, usize, std::time::Duration, Vec<String>) {
    let started = std::time::Instant::now();
    let built = std::panic::catch_unwind(|| {
        FileStructure::build_split(lang, bytes, usize::MAX).map(|s| s.symbols.len())
    });
    let time = started.elapsed();
    let (symbols, failed) = match built {
        Ok(Some(n)) => (n, vec![]),
        _ => (0, vec![path.display().to_string()]),
    };
    (1, bytes.len(), symbols, time, failed)
}

/// The skim (function bodies and initializers left out of the parse) gives the symbols of
/// the whole parse, file for file, over the C files of `MAPGREP_SKIM_TREE` (default
/// corpora/linux/drivers/net): prints the files that differ and how.
#[test]
#[ignore = "walks a large tree: MAPGREP_SKIM_TREE=dir cargo test --release --lib skim_gives_the_whole_parse_s_symbols -- --ignored --nocapture"]
fn skim_gives_the_whole_parse_s_symbols() {
    let root = std::env::var_os("MAPGREP_SKIM_TREE")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/linux/drivers/net"));
    let (mut files, mut differ) = (0, 0);
    for e in ignore::WalkBuilder::new(&root).build().flatten() {
        let p = e.path();
        if !p.extension().is_some_and(|x| x == "c" || x == "h") {
            continue;
        }
        let Ok(bytes) = std::fs::read(p) else {
            continue;
        };
        let key = |s: &FileStructure| -> Vec<(String, &'static str, u32, u32, u32)> {
            s.symbols
                .iter()
                .map(|s| {
                    (
                        s.qualified.clone(),
                        s.kind,
                        s.start_line,
                        s.def_line,
                        s.end_line,
                    )
                })
                .collect()
        };
        let (Ok(skimmed), Some(whole)) = (
            FileStructure::build_with(Lang::C, &bytes, &Stop::never()),
            FileStructure::build_unskimmed(Lang::C, &bytes),
        ) else {
            continue;
        };
        files += 1;
        let (a, b) = (key(&skimmed), key(&whole));
        if a != b {
            differ += 1;
            let only_a: Vec<_> = a.iter().filter(|x| !b.contains(x)).take(3).collect();
            let only_b: Vec<_> = b.iter().filter(|x| !a.contains(x)).take(3).collect();
            println!("{}: skim {only_a:?} whole {only_b:?}", p.display());
        }
    }
    println!("{differ} of {files} files differ");
}

/// A C header whose records define nothing inside is parsed without their insides: every
/// record keeps its lines, a `#define` inside a struct is still found, and a nested record
/// too.
#[test]
fn c_records_left_out_of_the_parse_keep_their_symbols() {
    let src = "/* Flags. */\nstruct dev_cfg {\n\tint flags;\n#define DEV_CFG_ON 1\n};\n\nstruct plain {\n\tint a;\n\tlong b;\n};\n\nenum mode {\n\tMODE_OFF,\n\tMODE_ON,\n};\n\nstruct outer {\n\tstruct inner { int x; } in;\n};\n\nint use_cfg(struct dev_cfg *c);\n";
    let s = crate::code::FileStructure::build(crate::code::Lang::C, src.as_bytes()).unwrap();
    let got: Vec<(String, u32, u32)> = s
        .symbols
        .iter()
        .map(|y| (y.name.clone(), y.start_line, y.end_line))
        .collect();
    let want = [
        ("dev_cfg", 1, 5),
        ("DEV_CFG_ON", 4, 4),
        ("plain", 7, 10),
        ("mode", 12, 15),
        ("outer", 17, 19),
        ("inner", 18, 18),
        ("use_cfg", 21, 21),
    ];
    let want: Vec<(String, u32, u32)> = want
        .iter()
        .map(|(n, a, b)| (n.to_string(), *a, *b))
        .collect();
    assert_eq!(got, want);
}
