//! The records: encoded and read back whole; a file's symbols and the definitions of a name
//! found; damage read as absent.

use super::format;
use super::read::{BlockCache, Part};
use super::{FileRecord, SymbolRecord};
use crate::index::{Ident, SideFile};

fn sym(name: &str, qualified: &str, parent: Option<u32>, lines: (u32, u32, u32)) -> SymbolRecord {
    SymbolRecord {
        name: name.into(),
        qualified: qualified.into(),
        address: qualified.into(),
        kind: "function",
        declaration: false,
        parent,
        start_line: lines.0,
        def_line: lines.1,
        end_line: lines.2,
    }
}

fn files() -> Vec<FileRecord> {
    vec![
        FileRecord {
            path: "a/app.rs".into(),
            ident: Ident {
                dev: 1,
                ino: 2,
                len: 300,
                mtime: (10, 5),
                ctime: (11, 6),
            },
            hash: 77,
            lang: 3,
            status: 0,
            package: "crate.app".into(),
            symbols: vec![
                sym("App", "App", None, (1, 2, 20)),
                sym("start", "App.start", Some(0), (4, 5, 9)),
                sym("weird", "Other.weird", Some(0), (10, 10, 12)),
                SymbolRecord {
                    address: "App.stop@14".into(),
                    ..sym("stop", "App.stop", Some(0), (14, 14, 19))
                },
            ],
            uses: [("HashMap", 1), ("println", 2), ("start", 8), ("z", 4)]
                .into_iter()
                .collect(),
        },
        FileRecord {
            path: "b/lib.c".into(),
            ident: Ident::default(),
            hash: 5,
            lang: 6,
            status: 0,
            package: String::new(),
            symbols: vec![
                sym("start", "start", None, (3, 3, 8)),
                sym("z", "z", None, (1, 1, 1)),
            ],
            uses: {
                // `App` also forward-declared twice (`struct App;`): set aside.
                let mut u = super::Uses::default();
                u.push_aside("App", 1, 2);
                u.push("malloc", 300);
                u.partial = true;
                u
            },
        },
        FileRecord {
            path: "c/big.c".into(),
            ident: Ident::default(),
            hash: 6,
            lang: 6,
            status: 2,
            package: String::new(),
            symbols: Vec::new(),
            uses: Default::default(),
        },
    ]
}

/// A file using many names: its uses are found through the skip table, every one of them
/// and none of the names it does not use, at the table's edges too.
#[test]
fn one_use_among_many_is_found_through_the_skip_table() {
    let name = |k: usize| format!("n{k:04}");
    let record = |path: &str, keep: &dyn Fn(usize) -> bool| FileRecord {
        path: path.into(),
        ident: Ident::default(),
        hash: 1,
        lang: 6,
        status: 0,
        package: String::new(),
        symbols: Vec::new(),
        uses: {
            let mut u = super::Uses::default();
            for k in (0..700).filter(|&k| keep(k)) {
                u.push_aside(&name(k), k as u32 % 9 + 1, k as u32 % 3);
            }
            u
        },
    };
    // Every name in the strings, and one file that uses only some of them.
    let files = vec![
        record("all.c", &|_| true),
        record("some.c", &|k| k % 3 != 1 && !(64..=100).contains(&k)),
        record("few.c", &|k| k % 100 == 7),
    ];
    let payload = super::encode::encode(&files);
    let part = Part::open(std::sync::Arc::new(SideFile::in_memory(&payload))).expect("read");
    for (i, want) in files.iter().enumerate() {
        let f = part.file(i as u32).unwrap();
        let all = part.uses(&f).unwrap();
        assert_eq!(all.len(), want.uses.len());
        for k in 0..700 {
            let id = part.find_string(&name(k)).unwrap().unwrap();
            let found = all.iter().find(|u| u.id == id).cloned();
            assert_eq!(part.use_of(&f, id), Some(found), "{} {k}", want.path);
        }
        assert_eq!(part.use_of(&f, u32::MAX), Some(None));
        assert_eq!(
            part.use_of(&f, 0),
            Some(all.first().filter(|u| u.id == 0).cloned())
        );
    }
}

#[test]
fn records_read_back_whole() {
    let payload = super::encode::encode(&files());
    let part = Part::open(std::sync::Arc::new(SideFile::in_memory(&payload))).expect("read");
    assert_eq!(part.files(), 3);
    for (k, want) in files().iter().enumerate() {
        let f = part.file(k as u32).unwrap();
        assert_eq!(part.string(f.path).as_deref(), Some(want.path.as_str()));
        assert_eq!(
            (f.ident, f.hash, f.lang, f.status),
            (want.ident, want.hash, want.lang, want.status)
        );
        let syms = part.symbols(&f).unwrap();
        assert_eq!(syms.len(), want.symbols.len());
        for (i, s) in want.symbols.iter().enumerate() {
            assert_eq!(part.string(syms[i].name).as_deref(), Some(s.name.as_str()));
            assert_eq!(
                part.qualified(&syms, i).as_deref(),
                Some(s.qualified.as_str())
            );
            assert_eq!(
                (syms[i].start, syms[i].def, syms[i].end),
                (s.start_line, s.def_line, s.end_line)
            );
            assert_eq!(syms[i].parent, s.parent);
        }
        // The uses come back with their counts, and those set aside.
        let uses: Vec<(String, u32, u32)> = part
            .uses(&f)
            .unwrap()
            .into_iter()
            .map(|u| (part.string(u.id).unwrap(), u.uses, u.aside))
            .collect();
        let want_uses: Vec<(String, u32, u32)> = want
            .uses
            .iter_aside()
            .map(|(n, c, a)| (n.to_string(), c, a))
            .collect();
        assert_eq!(uses, want_uses);
        assert_eq!(f.uses_partial, want.uses.partial);
        // One use is read alone, up to it.
        for u in part.uses(&f).unwrap() {
            assert_eq!(part.use_of(&f, u.id), Some(Some(u)));
        }
        assert_eq!(part.use_of(&f, u32::MAX), Some(None));
    }
    assert_eq!(part.find_file("b/lib.c"), Some(1));
    assert_eq!(part.find_file("b/lib.h"), None);
    let mut starts = part.named("start").unwrap();
    starts.sort();
    assert_eq!(starts, [(0, 1), (1, 0)]);
    assert_eq!(part.named("nothing").unwrap(), []);
    let merged = super::merge::records_of(
        &super::state::Records::new(&[std::sync::Arc::new(SideFile::in_memory(&payload))]),
        0..1,
    );
    assert_eq!(merged, files());
}

#[test]
fn damaged_bytes_never_panic() {
    let payload = super::encode::encode(&files());
    for i in (0..payload.len()).step_by(7) {
        let mut bad = payload.clone();
        bad[i] ^= 0x5a;
        let Some(part) = Part::open(std::sync::Arc::new(SideFile::in_memory(&bad))) else {
            continue;
        };
        for k in 0..part.files() {
            if let Some(f) = part.file(k) {
                let _ = part.string(f.path);
                if let Some(syms) = part.symbols(&f) {
                    for j in 0..syms.len() {
                        let _ = part.qualified(&syms, j);
                    }
                }
            }
        }
        let _ = part.named("start");
        let _ = part.find_file("a/app.rs");
    }
}

#[test]
fn many_files_and_names_are_all_found() {
    let mut files = Vec::new();
    for f in 0..3000u32 {
        let symbols = (0..20u32)
            .map(|s| {
                let name = format!("name_{}", (f * 7 + s * 13) % 5000);
                sym(&name, &name, None, (s * 3 + 1, s * 3 + 1, s * 3 + 2))
            })
            .collect();
        files.push(FileRecord {
            path: format!("dir{}/file{f:05}.c", f % 17),
            ident: Ident::default(),
            hash: u64::from(f),
            lang: 6,
            status: 0,
            package: String::new(),
            symbols,
            uses: [(format!("used_{}", f % 300), 2), ("zz_last".into(), 1)]
                .into_iter()
                .collect(),
        });
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let payload = super::encode::encode(&files);
    let part = Part::open(std::sync::Arc::new(SideFile::in_memory(&payload))).expect("read");
    for n in [0u32, 1, 777, 4999] {
        let name = format!("name_{n}");
        let want: usize = files
            .iter()
            .map(|f| f.symbols.iter().filter(|s| s.name == name).count())
            .sum();
        let got = part.named(&name).unwrap();
        assert_eq!(got.len(), want, "{name}");
        for (k, s) in got {
            let f = part.file(k).unwrap();
            let syms = part.symbols(&f).unwrap();
            assert_eq!(
                part.string(syms[s as usize].name).as_deref(),
                Some(name.as_str())
            );
        }
    }
}

#[test]
fn strings_read_through_kept_blocks_equal_those_read_one_by_one() {
    // Names with long shared prefixes, a long one, and more than a few blocks of them.
    let mut files = Vec::new();
    for f in 0..700u32 {
        let mut symbols = vec![sym(
            &format!("a_common_prefix_of_every_name_{f:04}"),
            "",
            None,
            (1, 1, 2),
        )];
        if f == 350 {
            symbols.push(sym(&"x".repeat(100_000), "", None, (3, 3, 4)));
        }
        files.push(FileRecord {
            path: format!("src/f{f:04}.c"),
            ident: Ident::default(),
            hash: u64::from(f),
            lang: 6,
            status: 0,
            package: String::new(),
            symbols,
            uses: [(format!("used_{}", f % 9), 1)].into_iter().collect(),
        });
    }
    let payload = super::encode::encode(&files);
    let part = Part::open(std::sync::Arc::new(SideFile::in_memory(&payload))).expect("read");
    let mut own = BlockCache::new(&part);
    for round in 0..2 {
        // The second round reads the blocks the first one kept.
        let mut kept = BlockCache::kept(&part);
        let mut id = 0;
        while let Some(want) = part.string(id) {
            assert_eq!(
                kept.get(id),
                Some(want.clone()),
                "string {id}, round {round}"
            );
            assert_eq!(own.get(id), Some(want), "string {id}");
            id += 1;
        }
        assert!(id > 3 * super::format::BLOCK, "{id} strings");
    }
}

/// Prints the size of each section of the side files in `MAPGREP_SIDE_DIR` (an index's
/// store directory): where a symbol index's bytes go.
#[test]
#[ignore = "reads a real index: MAPGREP_SIDE_DIR=<store dir> cargo test --release --lib side_file_sections -- --ignored --nocapture"]
fn side_file_sections() {
    let dir = std::env::var_os("MAPGREP_SIDE_DIR").expect("MAPGREP_SIDE_DIR");
    let mut total = [0usize; 7];
    let mut counts = [0u64; 2];
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.path().extension().is_none_or(|x| x != "side") {
            continue;
        }
        let bytes = std::fs::read(e.path()).unwrap();
        let payload = &bytes[8..];
        let Some(l) = format::Layout::read(payload) else {
            continue;
        };
        let parts = [
            l.string_bytes - l.string_blocks,
            l.file_table - l.string_bytes,
            l.symbol_bytes - l.file_table,
            l.postings_index - l.symbol_bytes,
            l.postings - l.postings_index,
            l.end - l.postings,
            bytes.len() - payload.len().min(bytes.len()),
        ];
        for (t, p) in total.iter_mut().zip(parts) {
            *t += p;
        }
        counts[0] += u64::from(l.strings);
        counts[1] += u64::from(l.files);
    }
    println!(
        "strings {} (blocks {} MB, bytes {} MB), files {} ({} MB), symbols {} MB, postings index {} MB, postings {} MB",
        counts[0],
        total[0] >> 20,
        total[1] >> 20,
        counts[1],
        total[2] >> 20,
        total[3] >> 20,
        total[4] >> 20,
        total[5] >> 20
    );
}

/// The files under `MAPGREP_COST_TREE`, sorted.
fn cost_tree_files() -> Vec<std::path::PathBuf> {
    let tree = std::env::var_os("MAPGREP_COST_TREE").expect("MAPGREP_COST_TREE");
    let mut paths = Vec::new();
    for e in ignore::WalkBuilder::new(&tree).build().flatten() {
        if e.file_type().is_some_and(|t| t.is_file()) {
            paths.push(e.into_path());
        }
    }
    paths.sort();
    paths
}

/// What recording a tree costs, single-threaded, by step: reading the files, `record`
/// (parse and symbols), encoding side files of 8,192 files.
#[test]
#[ignore = "measures: MAPGREP_COST_TREE=dir cargo test --release --lib symbols_cost -- --ignored --nocapture"]
fn symbols_cost() {
    use std::time::Instant;
    let paths = cost_tree_files();
    let t = Instant::now();
    let files: Vec<(String, Vec<u8>)> = paths
        .iter()
        .map(|p| {
            (
                p.to_string_lossy().into_owned(),
                std::fs::read(p).unwrap_or_default(),
            )
        })
        .collect();
    let read = t.elapsed();
    let stop = crate::code::Stop::never();
    let t = Instant::now();
    let mut hash = std::time::Duration::ZERO;
    let mut recs = Vec::with_capacity(files.len());
    let mut by_lang: std::collections::BTreeMap<u8, (usize, usize, f64)> = Default::default();
    for (p, b) in &files {
        let h = Instant::now();
        std::hint::black_box(super::content_hash(b));
        hash += h.elapsed();
        let r0 = Instant::now();
        let r = super::record(p, &|_| false, Ident::default(), b, &stop);
        let e = by_lang.entry(r.lang).or_default();
        e.0 += 1;
        e.1 += b.len();
        e.2 += r0.elapsed().as_secs_f64();
        recs.push(r);
    }
    let record = t.elapsed();
    let t = Instant::now();
    for (r, (_, b)) in recs.iter().zip(&files) {
        if let Some(l) = super::extract::lang_of_byte(r.lang) {
            std::hint::black_box(crate::code::idents::identifiers(l, b));
        }
    }
    println!(
        "the identifier scan alone: {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let mut bytes = 0;
    for chunk in recs.chunks(8192) {
        bytes += super::encode::encode(chunk).len();
    }
    let encode = t.elapsed();
    let symbols: usize = recs.iter().map(|r| r.symbols.len()).sum();
    println!(
        "{} files, {} MB: read {:.1} s, record {:.1} s (content hash {:.1} s), encode {:.1} s; {} symbols, {} MB of side files",
        files.len(),
        files.iter().map(|f| f.1.len()).sum::<usize>() >> 20,
        read.as_secs_f64(),
        record.as_secs_f64(),
        hash.as_secs_f64(),
        encode.as_secs_f64(),
        symbols,
        bytes >> 20
    );
    for (lang, (n, b, s)) in by_lang {
        let name =
            super::extract::lang_of_byte(lang).map_or("none".to_string(), |l| format!("{l:?}"));
        println!("  {name:12} {n:6} files {:5} MB {s:6.1} s", b >> 20);
    }
}

/// Writes every file's record under a tree, one line per symbol, to compare two builds' records
/// (`MAPGREP_COST_TREE=dir MAPGREP_DUMP=file`).
#[test]
#[ignore = "compares: MAPGREP_COST_TREE=dir MAPGREP_DUMP=file cargo test --release --lib symbols_dump -- --ignored"]
fn symbols_dump() {
    use rayon::prelude::*;
    use std::fmt::Write as _;
    let out = std::env::var_os("MAPGREP_DUMP").expect("MAPGREP_DUMP");
    let paths = cost_tree_files();
    let stop = crate::code::Stop::never();
    let lines: Vec<String> = paths
        .par_iter()
        .map(|p| {
            let b = std::fs::read(p).unwrap_or_default();
            let r = super::record(
                &p.to_string_lossy(),
                &|_| false,
                Ident::default(),
                &b,
                &stop,
            );
            let mut s = format!(
                "{} {} {} {} {}\n",
                r.path,
                r.lang,
                r.status,
                r.package,
                r.uses.len()
            );
            for y in &r.symbols {
                let _ = writeln!(
                    s,
                    "  {} {} {} {} {:?} {} {} {} {}",
                    y.name,
                    y.qualified,
                    y.address,
                    y.kind,
                    y.parent,
                    y.declaration,
                    y.start_line,
                    y.def_line,
                    y.end_line
                );
            }
            s
        })
        .collect();
    std::fs::write(out, lines.concat()).unwrap();
}
