//! The records: encoded and read back whole; a file's symbols and the definitions of a name
//! found; damage read as absent.

use super::format;
use super::read::Part;
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
        },
        FileRecord {
            path: "c/big.c".into(),
            ident: Ident::default(),
            hash: 6,
            lang: 6,
            status: 2,
            package: String::new(),
            symbols: Vec::new(),
        },
    ]
}

#[test]
fn records_read_back_whole() {
    let payload = format::encode(&files());
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
    let payload = format::encode(&files());
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
        });
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let payload = format::encode(&files);
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
