//! The parse limits (issue 35): a file past a limit is read as text with the reason, in every
//! language; a stopped parse says so and is not remembered; costs stay linear on one-line
//! files and deep nesting.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use crate::code::limits::{MAX_NESTING, Stop, Unparsed};
use crate::code::{FileStructure, Lang};

/// A scope nested `depth` deep in `lang`, a function at the bottom.
fn nested(lang: Lang, depth: usize) -> String {
    let (open, close, inner) = match lang {
        Lang::Rust => ("mod m {\n", "}\n", "fn inner() {}\n"),
        Lang::Cpp => ("namespace n {\n", "}\n", "int inner() { return 0; }\n"),
        Lang::Java | Lang::CSharp => ("class C {\n", "}\n", "void inner() {}\n"),
        Lang::Kotlin => ("class C {\n", "}\n", "fun inner() {}\n"),
        Lang::Scala => ("object O {\n", "}\n", "def inner(): Int = 1\n"),
        Lang::Swift => ("struct S {\n", "}\n", "func inner() {}\n"),
        Lang::Ruby => ("module M\n", "end\n", "def inner; end\n"),
        Lang::TypeScript | Lang::Tsx => ("namespace N {\n", "}\n", "function inner() {}\n"),
        Lang::Php => ("class C {\n", "}\n", "function inner() {}\n"),
        Lang::JavaScript => ("class C {\n", "}\n", "inner() {}\n"),
        Lang::C => ("struct s {\n", "};\n", "int inner;\n"),
        Lang::Python => {
            return (0..depth)
                .map(|i| format!("{}class C{i}:\n", " ".repeat(i)))
                .collect::<String>()
                + &" ".repeat(depth)
                + "def inner(self): pass\n";
        }
        Lang::Go | Lang::Bash => ("", "", ""),
    };
    let prefix = if lang == Lang::Php { "<?php\n" } else { "" };
    format!(
        "{prefix}{}{inner}{}",
        open.repeat(depth),
        close.repeat(depth)
    )
}

#[test]
fn symbols_nested_past_the_limit_make_a_file_text_in_every_language() {
    for lang in crate::code::lang::ALL {
        if !lang.enabled() || matches!(lang, Lang::Go | Lang::Bash) {
            continue;
        }
        let shallow = nested(lang, 3);
        let built = FileStructure::build_with(lang, shallow.as_bytes(), &Stop::never());
        assert!(built.is_ok(), "{lang:?}: {built:?}");
        let deep = nested(lang, MAX_NESTING * 3);
        let t = Instant::now();
        let built = FileStructure::build_with(lang, deep.as_bytes(), &Stop::never());
        // C's nested structs are members, and JavaScript and PHP nest no named scopes (the
        // text is not valid there): text or a structure, but never slow.
        if !matches!(lang, Lang::C | Lang::JavaScript | Lang::Php) {
            assert_eq!(built.err(), Some(Unparsed::TooDeep), "{lang:?}");
        }
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "{lang:?}: {:?}",
            t.elapsed()
        );
    }
}

#[test]
fn too_many_definitions_make_a_file_text() {
    let text = "int f(void) { return 0; }\n".repeat(300);
    let stop = Stop::never().max_symbols(200);
    let built = FileStructure::build_with(Lang::C, text.as_bytes(), &stop);
    assert_eq!(built.err(), Some(Unparsed::TooManySymbols));
    let built =
        FileStructure::build_with(Lang::C, text.as_bytes(), &Stop::never().max_symbols(300));
    assert_eq!(built.map(|s| s.symbols.len()).ok(), Some(300));
}

#[test]
fn a_file_over_the_size_limit_is_not_parsed() {
    let text = vec![b' '; crate::code::limits::MAX_PARSE_BYTES + 1];
    assert_eq!(
        FileStructure::build_with(Lang::C, &text, &Stop::never()).err(),
        Some(Unparsed::TooLarge)
    );
}

#[test]
fn a_stopped_parse_says_so() {
    let cancelled = AtomicBool::new(true);
    let text = "int f(void) { return 0; }\n".repeat(1000);
    let stop = Stop::new(Some(&cancelled), None);
    assert_eq!(
        FileStructure::build_with(Lang::C, text.as_bytes(), &stop).err(),
        Some(Unparsed::Stopped)
    );
    let past = Stop::new(None, Some(Instant::now()));
    assert_eq!(
        FileStructure::build_with(Lang::Rust, b"fn a() {}\n", &past).err(),
        Some(Unparsed::Stopped)
    );
}

#[test]
fn one_line_of_many_definitions_costs_each_once() {
    // 4,096 definitions on one line: addresses and signatures stay linear.
    let text = "void z(void){}".repeat(4096);
    let t = Instant::now();
    let s = FileStructure::build(Lang::C, text.as_bytes()).expect("parsed");
    assert_eq!(s.symbols.len(), 4096);
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    // Adjacent siblings of one name are read together, under one address.
    assert!(s.symbols.iter().all(|s| s.address == "z"));
}

/// The CPU a record of the files under `MAPGREP_COST_TREE` takes, one thread, in the mode
/// `MAPGREP_COST_MODE`: `parse` (tree-sitter alone, after C's attribute blanking), `build`
/// (the whole structure). Run under `perf stat` to read the CPU time.
#[test]
#[ignore = "measures: MAPGREP_COST_TREE=dir MAPGREP_COST_MODE=parse perf stat cargo test --release --lib record_cost -- --ignored --nocapture"]
fn record_cost() {
    let tree = std::env::var_os("MAPGREP_COST_TREE").expect("MAPGREP_COST_TREE");
    let mode = std::env::var("MAPGREP_COST_MODE").unwrap_or_else(|_| "build".into());
    let mut files = Vec::new();
    for e in ignore::WalkBuilder::new(tree).build().flatten() {
        if e.file_type().is_some_and(|t| t.is_file())
            && let Some(lang) = Lang::from_path(e.path())
        {
            files.push((lang, std::fs::read(e.path()).unwrap()));
        }
    }
    let bytes: usize = files.iter().map(|f| f.1.len()).sum();
    let t = Instant::now();
    let mut symbols: usize = 0;
    for (lang, b) in &files {
        if b.len() > crate::code::limits::MAX_PARSE_BYTES {
            continue;
        }
        if mode == "parse" {
            let masked = match lang {
                Lang::C | Lang::Cpp => crate::code::cmask::mask(*lang, b),
                _ => b.as_slice().into(),
            };
            let mut p = tree_sitter::Parser::new();
            p.set_language(&lang.compiled().unwrap().language).unwrap();
            symbols += p
                .parse(&*masked, None)
                .map_or(0, |t| t.root_node().child_count() as usize);
        } else {
            symbols += FileStructure::build(*lang, b).map_or(0, |s| s.symbols.len());
        }
    }
    println!(
        "{mode}: {} files, {:.1} MB, {symbols}, {:?}",
        files.len(),
        bytes as f64 / 1e6,
        t.elapsed()
    );
}
