//! Unit tests of Kotlin, Ruby, PHP, Swift and Scala: detection, names (nested, qualified,
//! overloads, companions, extensions, singleton methods), doc comments, items, and the
//! partition on the fixtures of `tests/it/fixtures/`.

use std::path::Path;

use super::super::{FileStructure, Lang, TargetMatch, resolve_target};
use super::assert_partition;

const KOTLIN: &str = include_str!("../../../tests/it/fixtures/inventory.kt");
const RUBY: &str = include_str!("../../../tests/it/fixtures/billing.rb");
const PHP: &str = include_str!("../../../tests/it/fixtures/UserController.php");
const SWIFT: &str = include_str!("../../../tests/it/fixtures/Shapes.swift");
const SCALA: &str = include_str!("../../../tests/it/fixtures/Pipeline.scala");

fn build(name: &str, src: &str) -> FileStructure {
    let lang = Lang::from_path(Path::new(name)).expect("a language");
    let s = FileStructure::build(lang, src.as_bytes()).expect("parsed");
    assert_partition(&s, src.as_bytes());
    s
}

/// `(kind, qualified, start, end)` of the symbol a target reads; panics unless it is one.
fn one(s: &FileStructure, target: &str) -> (&'static str, String, u32, u32) {
    match resolve_target(s, target) {
        TargetMatch::Found(hits) if hits.len() == 1 => {
            let sym = s.symbol(hits[0]);
            (
                sym.kind,
                sym.qualified.clone(),
                sym.start_line,
                sym.end_line,
            )
        }
        other => panic!("{target}: {other:?}"),
    }
}

fn found(s: &FileStructure, target: &str) -> Vec<(String, u32)> {
    match resolve_target(s, target) {
        TargetMatch::Found(hits) => hits
            .iter()
            .map(|&i| (s.symbol(i).qualified.clone(), s.symbol(i).start_line))
            .collect(),
        other => panic!("{target}: {other:?}"),
    }
}

fn items(list: &[super::super::Item]) -> Vec<(&'static str, &str, u32)> {
    list.iter()
        .map(|i| (i.kind, i.name.as_str(), i.start_line))
        .collect()
}

fn assert_addresses_resolve(s: &FileStructure) {
    for (i, sym) in s.symbols.iter().enumerate() {
        match resolve_target(s, &sym.address) {
            TargetMatch::Found(hits) => assert!(hits.contains(&(i as u32)), "{sym:?}"),
            other => panic!("{sym:?}: {other:?}"),
        }
    }
}

#[test]
fn languages_by_extension_and_file_name() {
    for (path, lang) in [
        ("a/Main.kt", Lang::Kotlin),
        ("build.gradle.kts", Lang::Kotlin),
        ("lib/billing.rb", Lang::Ruby),
        ("lib/tasks/db.rake", Lang::Ruby),
        ("mygem.gemspec", Lang::Ruby),
        ("config.ru", Lang::Ruby),
        ("Rakefile", Lang::Ruby),
        ("app/Gemfile", Lang::Ruby),
        ("src/Controller.PHP", Lang::Php),
        ("Sources/App.swift", Lang::Swift),
        ("src/main/scala/Job.scala", Lang::Scala),
        ("script.sc", Lang::Scala),
    ] {
        assert_eq!(Lang::from_path(Path::new(path)), Some(lang), "{path}");
    }
    assert_eq!(Lang::from_path(Path::new("Gemfile.lock")), None);
    assert_eq!(Lang::from_path(Path::new("rakefile.txt")), None);
}

/// `(qualified, declaration)` of the symbols named `name`.
fn declared(s: &FileStructure, name: &str) -> Vec<(String, bool)> {
    s.symbols
        .iter()
        .filter(|x| x.name == name)
        .map(|x| (x.qualified.clone(), x.declaration))
        .collect()
}

/// A Kotlin function with a body (a block or `=`) is a definition, an interface's without
/// one a declaration; a Swift protocol's requirements are declarations.
#[test]
fn bodies_tell_definitions_from_declarations() {
    let kt = build("inventory.kt", KOTLIN);
    assert_eq!(
        declared(&kt, "restock"),
        [
            ("Item.restock".into(), false),
            ("Item.restock".into(), false)
        ]
    );
    assert_eq!(declared(&kt, "main"), [("main".into(), false)]);
    assert_eq!(declared(&kt, "find"), [("Repository.find".into(), true)]);
    let sw = build("Shapes.swift", SWIFT);
    assert_eq!(
        declared(&sw, "scaled"),
        [
            ("Shape.scaled".into(), true),
            ("Circle.scaled".into(), false)
        ]
    );
    assert_eq!(
        declared(&sw, "area"),
        [("Shape.area".into(), true), ("Circle.area".into(), false)]
    );
}

#[test]
fn kotlin_companions_extensions_overloads_and_kinds() {
    let s = build("inventory.kt", KOTLIN);
    // The KDoc above the class is its first line.
    assert_eq!(one(&s, "Item"), ("class", "Item".into(), 12, 31));
    // A companion's members are the class's: `Item.parse`, as Kotlin calls it.
    assert_eq!(
        one(&s, "Item.parse"),
        ("method", "Item.parse".into(), 26, 29)
    );
    assert_eq!(
        one(&s, "Companion"),
        ("object", "Item.Companion".into(), 25, 30)
    );
    // An extension function is qualified by its receiver type.
    assert_eq!(
        one(&s, "String.slugify"),
        ("function", "String.slugify".into(), 59, 61)
    );
    assert_eq!(one(&s, "slugify").1, "String.slugify");
    // Overloads (adjacent, one name) are read together.
    assert_eq!(
        found(&s, "Item.restock"),
        [("Item.restock".into(), 21), ("Item.restock".into(), 23)]
    );
    assert_eq!(one(&s, "Repository").0, "interface");
    assert_eq!(one(&s, "Repository.find").0, "method");
    assert_eq!(one(&s, "Measure").0, "enum");
    assert_eq!(one(&s, "Measure.label").0, "method");
    assert_eq!(one(&s, "Warehouses").0, "object");
    assert_eq!(
        one(&s, "Event.Cleared"),
        ("object", "Event.Cleared".into(), 40, 40)
    );
    assert_eq!(one(&s, "Event.Added").0, "class");
    assert_eq!(one(&s, "Sku").0, "type");
    assert_eq!(
        one(&s, "SHELF_CAPACITY"),
        ("constant", "SHELF_CAPACITY".into(), 7, 8)
    );
    assert_eq!(one(&s, "Warehouses.all").0, "property");
    assert_eq!(
        items(&s.imports),
        [
            ("import", "java.time.Instant", 4),
            ("import", "kotlinx.coroutines.flow.Flow as StockFlow", 5)
        ]
    );
    assert_eq!(
        items(&s.directives),
        [
            ("file-annotation", "@file:JvmName(\"Inventory\")", 1),
            ("package", "com.example.inventory", 2)
        ]
    );
    assert_addresses_resolve(&s);
}

#[test]
fn ruby_modules_singleton_methods_and_comment_runs() {
    let s = build("billing.rb", RUBY);
    assert_eq!(one(&s, "Billing"), ("module", "Billing".into(), 6, 66));
    // The run of `#` lines above a class is its doc comment.
    assert_eq!(
        one(&s, "Invoice"),
        ("class", "Billing.Invoice".into(), 13, 53)
    );
    // Instance methods, `def self.x` and `class << self` members are all `Class.name`;
    // `::` and Ruby's `Class#method` read the same.
    for t in [
        "Billing.Invoice.total",
        "Billing::Invoice#total",
        "Invoice#total",
        "total",
    ] {
        assert_eq!(
            one(&s, t),
            ("method", "Billing.Invoice.total".into(), 30, 32),
            "{t}"
        );
    }
    assert_eq!(
        one(&s, "Billing::Invoice.from_json"),
        ("method", "Billing.Invoice.from_json".into(), 34, 40)
    );
    assert_eq!(one(&s, "Invoice.empty").1, "Billing.Invoice.empty");
    assert_eq!(one(&s, "Billing.settle").0, "method");
    // `class Ledger::Entry` inside `module Billing`.
    assert_eq!(
        one(&s, "Entry"),
        ("class", "Billing.Ledger.Entry".into(), 55, 59)
    );
    assert_eq!(
        one(&s, "Ledger::Entry#amount").1,
        "Billing.Ledger.Entry.amount"
    );
    assert_eq!(one(&s, "VERSION").0, "constant");
    assert_eq!(one(&s, "format_cents").0, "function");
    assert_eq!(
        items(&s.imports),
        [
            ("require", "json", 3),
            ("require-relative", "support/money", 4)
        ]
    );
    assert_eq!(
        items(&s.directives),
        [("magic-comment", "frozen_string_literal: true", 1)]
    );
    assert_addresses_resolve(&s);
}

#[test]
fn php_namespaces_traits_attributes_and_docs() {
    let s = build("UserController.php", PHP);
    // PHPDoc and the `#[Route]` attribute belong to the class.
    assert_eq!(
        one(&s, "UserController"),
        ("class", "UserController".into(), 38, 71)
    );
    assert_eq!(one(&s, "UserController::show").2, 54);
    assert_eq!(one(&s, "Timestamps").0, "trait");
    assert_eq!(one(&s, "Presentable").0, "interface");
    assert_eq!(one(&s, "Role").0, "enum");
    assert_eq!(one(&s, "Role.label").0, "method");
    assert_eq!(one(&s, "PER_PAGE").0, "constant");
    assert_eq!(one(&s, "updatedAt").0, "property");
    assert_eq!(one(&s, "helper").0, "function");
    // `present` is declared twice (interface and class): ambiguous by its plain name.
    assert!(matches!(
        resolve_target(&s, "present"),
        TargetMatch::Ambiguous(_)
    ));
    assert_eq!(
        items(&s.directives),
        [
            ("php-tag", "<?php", 1),
            ("declare", "(strict_types=1)", 3),
            ("namespace", "App\\Http\\Controllers", 5)
        ]
    );
    assert_eq!(
        items(&s.imports)[2],
        ("use", "function App\\Support\\slugify", 9)
    );
    assert_addresses_resolve(&s);
}

#[test]
fn php_braced_namespaces_are_symbols_and_html_is_a_gap() {
    let src = "<html>\n<?php\nnamespace Shop\\Cart {\n    function total(): int { return 0; }\n    class Line {}\n}\n?>\n</html>\n";
    let s = build("cart.php", src);
    assert_eq!(
        one(&s, "Shop\\Cart"),
        ("namespace", "Shop\\Cart".into(), 3, 6)
    );
    // A function in a namespace stays a function, qualified by the namespace's parts.
    assert_eq!(
        one(&s, "total"),
        ("function", "Shop.Cart.total".into(), 4, 4)
    );
    assert_eq!(one(&s, "Line").0, "class");
}

#[test]
fn swift_extensions_protocols_and_overloads() {
    let s = build("Shapes.swift", SWIFT);
    assert_eq!(one(&s, "Shape"), ("protocol", "Shape".into(), 4, 8));
    assert_eq!(
        one(&s, "Shape.area"),
        ("property", "Shape.area".into(), 6, 6)
    );
    // An extension is a site of its type, named as the type; its members are the type's.
    // Apart in one file, the struct and its extension are told apart by their lines.
    assert!(matches!(
        resolve_target(&s, "Circle"),
        TargetMatch::Ambiguous(_)
    ));
    assert_eq!(one(&s, "Circle@10"), ("struct", "Circle".into(), 10, 20));
    assert_eq!(one(&s, "Circle@53"), ("extension", "Circle".into(), 53, 59));
    assert_eq!(
        one(&s, "Circle.unit"),
        ("method", "Circle.unit".into(), 56, 58)
    );
    // `///` above a method is its doc.
    assert_eq!(one(&s, "Circle.scaled").2, 16);
    assert_eq!(
        found(&s, "Canvas.add"),
        [("Canvas.add".into(), 27), ("Canvas.add".into(), 31)]
    );
    assert_eq!(one(&s, "Canvas.init").0, "method");
    assert_eq!(one(&s, "Canvas.Layer.draw").0, "method");
    assert_eq!(one(&s, "Direction").0, "enum");
    assert_eq!(one(&s, "Direction.opposite").2, 43);
    assert_eq!(one(&s, "Shapes").0, "type");
    // A `/* */` comment right above a function is its own.
    assert_eq!(
        one(&s, "totalArea"),
        ("function", "totalArea".into(), 61, 64)
    );
    assert_eq!(
        items(&s.imports),
        [
            ("import", "Foundation", 1),
            ("import", "struct CoreGraphics.CGPoint", 2)
        ]
    );
    assert_addresses_resolve(&s);
}

#[test]
fn scala_objects_traits_companions_and_nesting() {
    let s = build("Pipeline.scala", SCALA);
    assert_eq!(one(&s, "Stage"), ("trait", "Stage".into(), 6, 10));
    assert_eq!(one(&s, "Stage.run").0, "method");
    // A class and its companion object: adjacent, one name, read together.
    assert_eq!(
        found(&s, "WordCount"),
        [("WordCount".into(), 12), ("WordCount".into(), 20)]
    );
    // Overloads of `run`; an indented body ends at its last line, not where the next
    // definition starts.
    assert_eq!(
        found(&s, "WordCount.run"),
        [("WordCount.run".into(), 14), ("WordCount.run".into(), 17)]
    );
    assert_eq!(
        s.symbols
            .iter()
            .find(|x| x.qualified == "WordCount.run")
            .unwrap()
            .end_line,
        15
    );
    assert_eq!(one(&s, "WordCount.apply").0, "method");
    assert_eq!(
        one(&s, "Main.Inner.helper"),
        ("method", "Main.Inner.helper".into(), 48, 48)
    );
    assert_eq!(one(&s, "Status.Running").0, "object");
    assert_eq!(one(&s, "Priority").0, "enum");
    assert_eq!(one(&s, "Report").0, "type");
    assert_eq!(one(&s, "Main"), ("object", "Main".into(), 40, 50));
    assert_eq!(items(&s.directives), [("package", "com.example.jobs", 1)]);
    assert_eq!(
        items(&s.imports)[1],
        ("import", "scala.util.{Failure, Success}", 4)
    );
    assert_addresses_resolve(&s);
}

#[test]
fn scala_3_indented_definitions_end_at_their_last_line() {
    let src = "object Tools:\n  def twice(x: Int): Int =\n    x * 2\n\n  def thrice(x: Int): Int =\n    x * 3\n\nend Tools\n\ndef top(): Unit =\n  println(1)\n\n";
    let s = build("tools.sc", src);
    assert_eq!(
        one(&s, "Tools.twice"),
        ("method", "Tools.twice".into(), 2, 3)
    );
    assert_eq!(
        one(&s, "Tools.thrice"),
        ("method", "Tools.thrice".into(), 5, 6)
    );
    assert_eq!(one(&s, "top"), ("function", "top".into(), 10, 11));
}

#[test]
fn broken_sources_still_partition() {
    for (name, src) in [
        ("a.kt", "class A {\n  fun x( {\n"),
        ("a.rb", "module M\n  def x\n    if\n"),
        ("a.php", "<?php\nclass {\n  function (\n"),
        ("a.swift", "extension {\n  func\n"),
        ("a.scala", "object {\n  def = \n"),
    ] {
        build(name, src);
    }
}

/// Every Kotlin, Ruby, PHP, Swift and Scala file of real trees parses without a panic and
/// partitions its lines; prints files, MB, symbols and speed per language (tree-sitter's
/// parse alone, then the whole structure), one thread. Trees: `MAPGREP_LANGS_B_TREES`
/// (paths separated by `:`), by default corpora/langs-b (`bash corpora/fetch_langs_b.sh`).
#[test]
#[ignore = "walks large trees; run by hand: cargo test --release --lib langs_b_parse_real_trees -- --ignored --nocapture"]
fn langs_b_parse_real_trees() {
    let roots: Vec<std::path::PathBuf> = match std::env::var_os("MAPGREP_LANGS_B_TREES") {
        Some(list) => std::env::split_paths(&list).collect(),
        None => vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/langs-b")],
    };
    let mut files: Vec<(Lang, std::path::PathBuf)> = Vec::new();
    for root in roots.iter().filter(|r| r.exists()) {
        let walk = ignore::WalkBuilder::new(root)
            .standard_filters(false)
            .build();
        for entry in walk.flatten() {
            let lang = Lang::from_path(entry.path()).filter(|l| l.is_b());
            if let (Some(lang), true) = (lang, entry.file_type().is_some_and(|t| t.is_file())) {
                files.push((lang, entry.path().to_path_buf()));
            }
        }
    }
    // Per language: files, bytes, symbols, parse time, build time, failures.
    let mut stats: std::collections::BTreeMap<&str, (usize, usize, usize, f64, f64)> =
        Default::default();
    let mut failures = Vec::new();
    for (lang, path) in &files {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        if bytes.len() > super::super::structure::MAX_PARSE_BYTES || bytes.contains(&0) {
            continue;
        }
        let compiled = lang.compiled().unwrap();
        let outcome = std::panic::catch_unwind(|| {
            let started = std::time::Instant::now();
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&compiled.language).unwrap();
            std::hint::black_box(parser.parse(&bytes, None).unwrap());
            let parsed = started.elapsed().as_secs_f64();
            let started = std::time::Instant::now();
            let s = FileStructure::build_split(*lang, &bytes, usize::MAX).expect("parsed");
            let built = started.elapsed().as_secs_f64();
            assert_partition(&s, &bytes);
            (s.symbols.len(), parsed, built)
        });
        match outcome {
            Ok((symbols, parsed, built)) => {
                let e = stats.entry(lang.name()).or_default();
                *e = (
                    e.0 + 1,
                    e.1 + bytes.len(),
                    e.2 + symbols,
                    e.3 + parsed,
                    e.4 + built,
                );
            }
            Err(_) => failures.push(path.display().to_string()),
        }
    }
    for (name, (n, bytes, symbols, parsed, built)) in &stats {
        let mb = *bytes as f64 / 1e6;
        println!(
            "{name:>7}: {n:>6} files, {mb:>7.1} MB, {symbols:>7} symbols; parse {:>5.1} MB/s, whole structure {:>5.1} MB/s",
            mb / parsed,
            mb / built
        );
    }
    assert!(
        failures.is_empty(),
        "{} files break:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn scala_comments_after_an_indented_body_are_not_the_body() {
    let src = "class Opt {\n  /** Gets. */\n  def get: Int =\n    1\n\n  /** The value,\n   * or null. */\n  def orNull: Any = null\n}\n";
    let s = build("opt.scala", src);
    assert_eq!(one(&s, "Opt.get"), ("method", "Opt.get".into(), 2, 4));
    assert_eq!(one(&s, "Opt.orNull").3, 8);
}
