//! Engine tests of the code structure: the line partition, range pieces, target resolution,
//! and the one-category-per-line property over real files.

use std::path::Path;

mod clike;
mod cmask;
mod detect;
mod lang_a;
mod lang_b;
mod lang_b_defs;
mod lang_b_recall;
mod limits;
mod nested_defs;

use super::answer::answer;
use super::*;
use crate::roots::Roots;

/// Writes `src` as `name` in a temporary root and answers `query` on it.
fn read(name: &str, src: &str, query: ReadQuery) -> Result<String, String> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(name), src).unwrap();
    let ws = Workspace::new(Roots::new([dir.path()]).unwrap());
    let file = CodeFile::open(&ws, name).map_err(|e| e.to_string())?;
    answer(
        &file,
        name,
        &query,
        "test",
        usize::MAX,
        &crate::words::Neutral,
    )
    .map(|a| a.text)
    .map_err(|e| e.to_string())
}

fn structure(name: &str, src: &str) -> FileStructure {
    FileStructure::build(Lang::from_path(Path::new(name)).unwrap(), src.as_bytes()).unwrap()
}

const CONFIG_TS: &str = "\
import { foo } from 'bar';
import { baz } from 'qux';

export const CONFIG = {
  a: 1,
  b: 2,
};
const logger = createLogger();

export function initializeApp() {
  logger.info('start');
  return foo(baz);
}
// Footer comment
export default app;
";

fn range(start: Option<i64>, end: Option<i64>, skeleton: bool) -> ReadQuery {
    ReadQuery {
        start_line: start,
        end_line: end,
        skeleton,
        ..ReadQuery::default()
    }
}

#[test]
fn structured_range_of_the_spec_example() {
    let text = read("config.ts", CONFIG_TS, range(Some(1), Some(15), false)).unwrap();
    assert_eq!(
        text,
        "## code: config.ts

**Range:** lines 1-15 of 15

import { foo } from 'bar';
import { baz } from 'qux';

--- symbol: CONFIG (constant, lines 4-7) ---
Use { target: \"CONFIG\" } to read this symbol

--- symbol: logger (variable, lines 8-8) ---
Use { target: \"logger\" } to read this symbol

--- symbol: initializeApp (function, lines 10-13) ---
Use { target: \"initializeApp\" } to read this symbol

// Footer comment
export default app;
"
    );
    let text = read("config.ts", CONFIG_TS, range(Some(1), Some(15), true)).unwrap();
    assert_eq!(
        text,
        "## code: config.ts

**Range:** lines 1-15 of 15

--- imports (2 items, lines 1-2) ---

--- symbol: CONFIG (constant, lines 4-7) ---
Use { target: \"CONFIG\" } to read this symbol

--- symbol: logger (variable, lines 8-8) ---
Use { target: \"logger\" } to read this symbol

--- symbol: initializeApp (function, lines 10-13) ---
Use { target: \"initializeApp\" } to read this symbol

--- comment (line 14) ---
--- export (line 15) ---
"
    );
}

#[test]
fn every_line_has_one_category_in_the_example() {
    let s = structure("config.ts", CONFIG_TS);
    assert_partition(&s, CONFIG_TS.as_bytes());
    let cats: Vec<(u32, u32, &str)> = s
        .blocks
        .iter()
        .map(|b| (b.start_line, b.end_line, b.category.name()))
        .collect();
    assert_eq!(
        cats,
        [
            (1, 2, "import"),
            (3, 3, "gap"),
            (4, 7, "symbol"),
            (8, 8, "symbol"),
            (9, 9, "gap"),
            (10, 13, "symbol"),
            (14, 14, "comment"),
            (15, 15, "export"),
        ]
    );
}

/// The partition property: blocks are in order, contiguous, cover `1..=total_lines` and
/// never repeat a symbol; every listed item lies in blocks of its own category unless a
/// line it shares with an earlier entity went to that one; every symbol block lies in its
/// symbol's range.
pub(crate) fn assert_partition(s: &FileStructure, bytes: &[u8]) {
    let total = LineIndex::build(bytes).total_lines(bytes) as u32;
    if let Err(e) = s.check_partition(total) {
        panic!("{e}");
    }
}

/// Two structures of one text are equal (a whole parse against a parse in two halves).
fn assert_same(a: &FileStructure, b: &FileStructure) {
    assert_eq!(a.total_lines, b.total_lines);
    assert_eq!(
        a.symbols, b.symbols,
        "symbols of a whole parse and of halves"
    );
    assert_eq!(a.roots, b.roots);
    assert_eq!(a.imports, b.imports);
    assert_eq!(a.exports, b.exports);
    assert_eq!(a.comments, b.comments);
    assert_eq!(a.directives, b.directives);
    assert_eq!(a.blocks, b.blocks, "blocks of a whole parse and of halves");
}

/// Checks the partition property on every parsed file under `roots`; returns the number of
/// files checked per extension. Failures name the file.
fn check_tree(roots: &[std::path::PathBuf]) -> std::collections::BTreeMap<String, usize> {
    use rayon::prelude::*;
    let mut files = Vec::new();
    for root in roots {
        let walk = ignore::WalkBuilder::new(root)
            .standard_filters(false)
            .follow_links(true)
            .build();
        for entry in walk.flatten() {
            let path = entry.path();
            if entry.file_type().is_some_and(|t| t.is_file()) && Lang::from_path(path).is_some() {
                files.push(path.to_path_buf());
            }
        }
    }
    let failures: Vec<String> = files
        .par_iter()
        .filter_map(|path| {
            let bytes = std::fs::read(path).ok()?;
            if bytes.len() > structure::MAX_PARSE_BYTES || bytes.contains(&0) {
                return None;
            }
            let lang = Lang::from_path(path)?;
            let outcome = std::panic::catch_unwind(|| {
                let s = FileStructure::build_split(lang, &bytes, usize::MAX).expect("parsed");
                assert_partition(&s, &bytes);
                // Parsed in two halves where the file splits cleanly: the same structure.
                let halves = FileStructure::build_split(lang, &bytes, 0).expect("parsed");
                assert_same(&s, &halves);
            });
            outcome.err().map(|e| {
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                format!("{}: {msg}", path.display())
            })
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} files break the partition:\n{}",
        failures.len(),
        files.len(),
        failures[..failures.len().min(20)].join("\n")
    );
    let mut counts = std::collections::BTreeMap::new();
    for path in &files {
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        if size as usize <= structure::MAX_PARSE_BYTES {
            let ext = path.extension().unwrap().to_string_lossy().to_lowercase();
            *counts.entry(ext).or_insert(0) += 1;
        }
    }
    counts
}

/// The project's own sources: real Rust files, checked in every test run.
#[test]
fn one_category_per_line_over_this_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let counts = check_tree(&[root.join("src"), root.join("tests"), root.join("benches")]);
    assert!(counts.get("rs").copied().unwrap_or(0) >= 40, "{counts:?}");
}

/// Every .ts/.tsx/.js/.rs/.py/.go file of real trees: `MAPGREP_CODE_TREES` (paths separated
/// by `:`), by default corpora/code (`bash corpora/fetch_code.sh`), corpora/linux and the
/// cargo registry's sources.
#[test]
#[ignore = "walks large trees; run by hand: cargo test --release --lib one_category_per_line_over_real_trees -- --ignored --nocapture"]
fn one_category_per_line_over_real_trees() {
    let roots: Vec<std::path::PathBuf> = match std::env::var_os("MAPGREP_CODE_TREES") {
        Some(list) => std::env::split_paths(&list).collect(),
        None => {
            let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
            let cargo_home = std::env::var_os("CARGO_HOME")
                .map(std::path::PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
                .unwrap_or_default();
            vec![
                repo.join("corpora/code"),
                repo.join("corpora/linux"),
                cargo_home.join("registry/src"),
            ]
        }
    };
    let roots: Vec<_> = roots.into_iter().filter(|r| r.exists()).collect();
    let started = std::time::Instant::now();
    let counts = check_tree(&roots);
    let total: usize = counts.values().sum();
    println!(
        "one category per line: {total} files checked in {:.1} s, none broken: {counts:?}",
        started.elapsed().as_secs_f64()
    );
}

/// Stage timings (minimum of 30 runs) of the structure of a file: tree-sitter parse alone,
/// then the whole build. Run by hand: `MAPGREP_STAGE_FILE=path cargo test --release --lib
/// structure_stage_timings -- --ignored --nocapture`.
#[test]
#[ignore = "timing, run by hand"]
fn structure_stage_timings() {
    let Some(path) = std::env::var_os("MAPGREP_STAGE_FILE") else {
        return;
    };
    let path = std::path::PathBuf::from(path);
    let bytes = std::fs::read(&path).unwrap();
    let lang = Lang::from_path(&path).unwrap();
    let compiled = lang.compiled().unwrap();
    // (minimum, median) of 30 runs
    let min = |f: &mut dyn FnMut()| {
        let mut times: Vec<_> = (0..30)
            .map(|_| {
                let t = std::time::Instant::now();
                f();
                t.elapsed()
            })
            .collect();
        times.sort();
        (times[0], times[15])
    };
    let parse = min(&mut || {
        let mut p = tree_sitter::Parser::new();
        p.set_language(&compiled.language).unwrap();
        std::hint::black_box(p.parse(&bytes, None).unwrap());
    });
    let build = min(&mut || {
        std::hint::black_box(FileStructure::build(lang, &bytes).unwrap());
    });
    println!(
        "{}: (min, median) parse {parse:?}, whole build {build:?}",
        path.display()
    );
}

/// A TypeScript text of `n` declarations of several kinds.
fn many_declarations(n: usize) -> String {
    let mut src = String::from("import { a } from 'a';\n\n");
    for i in 0..n {
        src.push_str(&match i % 4 {
            0 => format!(
                "/** Doc {i}. */\nexport function f{i}(x: number) {{\n  return x + {i};\n}}\n\n"
            ),
            1 => format!("export class C{i} {{\n  m(): void {{}}\n\n  n = () => {i};\n}}\n\n"),
            2 => format!("interface I{i} {{ a: string }}\nconst V{i} = {i};\n\n"),
            _ => format!("// note {i}\nfunction g{i}() {{}}\n\n"),
        });
    }
    src
}

#[test]
fn a_parse_in_two_halves_equals_the_whole_parse() {
    let src = many_declarations(400);
    assert!(build::split_point(Lang::TypeScript, src.as_bytes()).is_some());
    let whole = FileStructure::build_split(Lang::TypeScript, src.as_bytes(), usize::MAX).unwrap();
    let halves = FileStructure::build_split(Lang::TypeScript, src.as_bytes(), 0).unwrap();
    assert_same(&whole, &halves);
    assert_partition(&halves, src.as_bytes());
    assert_eq!(whole.roots.len(), 500);

    // A template literal across the middle holding "\n\nexport function": the cut would
    // land inside it, the halves do not parse cleanly, and the whole file is parsed.
    let half = many_declarations(200);
    let tricky = format!(
        "{half}const T = `{}`;\n\n{half}",
        "\n\nexport function notReal() {}\n".repeat(50)
    );
    let cut = build::split_point(Lang::TypeScript, tricky.as_bytes()).unwrap();
    assert!(
        tricky[..cut].ends_with("\n\n") && tricky[cut..].starts_with("export function notReal")
    );
    let whole =
        FileStructure::build_split(Lang::TypeScript, tricky.as_bytes(), usize::MAX).unwrap();
    let halves = FileStructure::build_split(Lang::TypeScript, tricky.as_bytes(), 0).unwrap();
    assert_same(&whole, &halves);
    assert!(whole.symbols.iter().all(|s| s.name != "notReal"));
}

#[test]
fn whole_and_range_reads_stop_at_the_response_limit() {
    let dir = tempfile::tempdir().unwrap();
    let mut big = String::new();
    for i in 0..200_000 {
        big.push_str(&format!("line {i} of a large text file\r\n"));
    }
    std::fs::write(dir.path().join("big.txt"), &big).unwrap();
    std::fs::write(dir.path().join("big.ts"), big.replace("line", "// line")).unwrap();
    let ws = Workspace::new(Roots::new([dir.path()]).unwrap());
    for name in ["big.txt", "big.ts"] {
        let file = CodeFile::open(&ws, name).unwrap();
        for query in [ReadQuery::default(), range(Some(10), None, false)] {
            let started = std::time::Instant::now();
            let a = answer(
                &file,
                name,
                &query,
                "test",
                64 << 10,
                &crate::words::Neutral,
            )
            .unwrap();
            assert!(a.truncated, "{name} {query:?}");
            assert!(a.text.len() <= 64 << 10, "{name}: {} bytes", a.text.len());
            assert!(a.text.contains("[cut: "), "{name}");
            assert!(!a.text.contains('\r'));
            assert!(started.elapsed() < std::time::Duration::from_secs(2));
        }
    }
}

#[test]
fn lines_split_like_a_naive_split() {
    let dir = tempfile::tempdir().unwrap();
    let text = "a\r\nb\n\nlast without newline";
    std::fs::write(dir.path().join("f.txt"), text).unwrap();
    let ws = Workspace::new(Roots::new([dir.path()]).unwrap());
    let file = CodeFile::open(&ws, "f.txt").unwrap();
    assert_eq!(file.total_lines(), 4);
    let naive: Vec<&[u8]> = ["a", "b", "", "last without newline"]
        .iter()
        .map(|s| s.as_bytes())
        .collect();
    for first in 1..=4 {
        for last in first..=4 {
            let got: Vec<&[u8]> = file.lines(first, last).collect();
            assert_eq!(
                got,
                naive[first as usize - 1..last as usize],
                "{first}-{last}"
            );
            assert_eq!(file.line(first), naive[first as usize - 1]);
        }
    }
}

#[test]
fn the_partition_check_catches_broken_structures() {
    let s = structure("config.ts", CONFIG_TS);
    assert_eq!(s.check_partition(15), Ok(()));
    assert!(s.check_partition(16).is_err(), "a line count that differs");
    let mut gap = structure("config.ts", CONFIG_TS);
    gap.blocks.remove(2);
    assert!(gap.check_partition(15).is_err(), "a missing block");
    let mut member = structure("config.ts", CONFIG_TS);
    member.symbols[0].parent = Some(1);
    assert!(
        member.check_partition(15).is_err(),
        "a member owning a block"
    );
}

/// Every symbol's address reads exactly that symbol (or its overload group).
fn assert_addresses_resolve(s: &FileStructure) {
    for (i, sym) in s.symbols.iter().enumerate() {
        match resolve_target(s, &sym.address) {
            TargetMatch::Found(hits) => assert!(hits.contains(&(i as u32)), "{sym:?}: {hits:?}"),
            other => panic!("{sym:?}: {other:?}"),
        }
    }
}

/// Found by fuzzing (fuzz/README.md): names made of invalid UTF-8, and two symbols of one
/// name on one line.
#[test]
fn fuzz_regressions_addresses_always_resolve() {
    let s = FileStructure::build(Lang::Rust, b"impl m\xe7()").unwrap();
    assert_addresses_resolve(&s);
    assert_eq!(s.symbols[0].name, "impl m");
    let s = FileStructure::build(Lang::JavaScript, b"const a,b=2const a").unwrap();
    assert_addresses_resolve(&s);
    let addresses: Vec<&str> = s.symbols.iter().map(|s| s.address.as_str()).collect();
    assert_eq!(addresses, ["a@1#1", "b", "a@1#2"]);
}

/// The parameter matrix of a code read (docs/file_read.md, "Choosing the mode"): a target
/// with a range, an inverted range and a start past the end are refused; a start below 1 and
/// an end past the end are brought into the file.
#[test]
fn parameters_are_validated_or_clamped() {
    let target = |start, end, skeleton| ReadQuery {
        targets: vec!["CONFIG".into(), "initializeApp".into()],
        start_line: start,
        end_line: end,
        skeleton,
        ..ReadQuery::default()
    };
    let refused = [
        (
            target(Some(1), None, false),
            "target and start_line/end_line together",
        ),
        (
            target(None, Some(9), false),
            "target and start_line/end_line together",
        ),
        (
            target(Some(1), Some(9), false),
            "target and start_line/end_line together",
        ),
        (
            target(Some(1), None, true),
            "target and start_line/end_line together",
        ),
        (range(Some(9), Some(3), false), "start_line after end_line"),
        (
            range(Some(41), Some(50), false),
            "start_line past the end of the file",
        ),
        (
            range(Some(41), None, false),
            "start_line past the end of the file",
        ),
    ];
    for (query, short) in refused {
        let e = read("a.ts", CONFIG_TS, query.clone()).unwrap_err();
        assert!(
            e.starts_with(&format!("Error: {short}\n\nYou provided: ")),
            "{query:?}: {e}"
        );
        if short.starts_with("target") {
            assert!(e.contains("They are mutually exclusive."), "{e}");
        }
    }
    let e = read("a.ts", CONFIG_TS, range(Some(9), Some(3), false)).unwrap_err();
    assert!(
        e.contains("\nProblem: start_line (9) is greater than end_line (3).\n"),
        "{e}"
    );
    let e = read("a.ts", CONFIG_TS, range(Some(41), None, false)).unwrap_err();
    assert!(
        e.contains("the file's 15 lines") && e.ends_with("from 1 to 15."),
        "{e}"
    );
    // Clamped: (start, end) asked → lines read.
    for (start, end, first, last) in [
        (Some(0), Some(3), 1, 3),
        (Some(-4), Some(3), 1, 3),
        (Some(14), Some(999), 14, 15),
        (Some(-1), Some(1000), 1, 15),
    ] {
        let text = read("a.ts", CONFIG_TS, range(start, end, false)).unwrap();
        assert!(
            text.contains(&format!("**Range:** lines {first}-{last} of 15\n")),
            "{start:?}-{end:?}: {text}"
        );
    }
}
