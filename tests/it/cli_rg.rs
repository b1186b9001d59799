//! `mapgrep grep` against ripgrep: a table of flag sets run over one generated tree must give
//! ripgrep 15's output bytes and exit code (ripgrep with `--sort path`, since mapgrep prints
//! files in path order), and `--json` must parse as ripgrep's event stream with the same
//! matches, lines and byte offsets.
//!
//! ripgrep's answers are recorded in `tests/data/rg_expected.json`, so the test needs no
//! ripgrep. To re-record them or compare live, point `MAPGREP_RG` at a ripgrep 15 binary:
//! `MAPGREP_RG=/path/to/rg cargo test --test it cli_rg` compares against it as well, and with
//! `MAPGREP_RG_RECORD=1` it rewrites the recorded file.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::common::BIN;
use crate::rg::{self, Expected, run};

/// The tree: paths and contents (a `.git` directory is made so `.gitignore` applies).
const TREE: &[(&str, &str)] = &[
    (".gitignore", "ignored.txt\nbuild/\n"),
    ("ignored.txt", "foo in an ignored file\n"),
    ("build/out.txt", "foo in an ignored directory\n"),
    (".hidden/secret.md", "# Hidden\nfoo hidden\n"),
    (".env", "FOO=foo\n"),
    (
        "src/main.rs",
        "use std::io;\n\nfn main() {\n    let foo = 1;\n    println!(\"{}\", foo);\n}\n\n// Foo bar baz\nfn helper() { foo(); foo(); }\n",
    ),
    (
        "src/lib.py",
        "import os\n\ndef foo():\n    return 'FOO'\n\nclass Bar:\n    def baz(self):\n        return foo()\n",
    ),
    (
        "notes/guide.md",
        "# Guide\n\nIntro text.\n\n## Install\n\nRun foo.\nThen bar.\n\n## Use\n\nfoo bar foo\nthe end\n",
    ),
    ("notes/crlf.txt", "first foo\r\nsecond\r\nthird foo\r\n"),
    ("notes/unicode.txt", "Grüße foo\nΣίσυφος FOO\n日本語 foo\n"),
    ("notes/noeol.txt", "no newline at the end foo"),
    (
        "notes/long.txt",
        "short foo\nthis is a rather long line with foo in the middle of it and more text after\n",
    ),
    ("data/numbers.txt", "1\n22\n333\nfoo 4444\n55555\n"),
    ("data/empty.txt", ""),
];

/// Flag sets (arguments after `grep`; the search runs in the tree's root).
const CASES: &[&str] = &[
    "foo",
    "-n foo",
    "-N foo",
    "-i foo",
    "-S foo",
    "-S Foo",
    "-s FOO",
    "-w foo",
    "-x the\\send",
    "-F .",
    "-e foo -e bar",
    "-e bar -n -e baz",
    "-v -n foo",
    "-o foo",
    "-o -n -i foo",
    "-c foo",
    "-c -v foo",
    "--count-matches foo",
    "-l foo",
    "--files-without-match foo",
    "-q foo",
    "-q nothing-matches-this",
    "nothing-matches-this",
    "-m1 foo",
    "-m1 -n -A1 foo",
    "-n -A1 foo",
    "-n -B1 foo",
    "-n -C1 foo",
    "-n -C2 bar",
    "-C1 foo notes/guide.md",
    "-H foo notes/guide.md",
    "foo notes/guide.md",
    "-I foo",
    "-n --heading foo",
    "--heading -C1 foo",
    "--no-heading foo",
    "--vimgrep foo",
    "-M 20 foo",
    "-M 20 -C1 -n foo",
    "-t rust foo",
    "-t py -t md foo",
    "-T md foo",
    "-g *.md foo",
    "-g !notes/** foo",
    "--hidden foo",
    "-. foo",
    "-u foo",
    "-uu foo",
    "--no-ignore foo",
    "--files",
    "--files -t md",
    "--files --hidden",
    "-U -n foo\\n\\s*return",
    "-U bar\\.\\n",
    "-n ^$",
    "-c ^",
    "foo$",
    "-n \\bfoo\\(\\)",
    "-n -i σίσυφος",
    "foo src notes",
    "--color always -n foo",
    "--color always --heading -n -C1 foo",
    "--color always -o -i foo",
    "--color always -c foo",
    "--color always -l foo",
];

/// `--json` cases: compared as parsed events.
const JSON_CASES: &[&str] = &[
    "foo",
    "-i foo",
    "-C1 foo",
    "-v foo",
    "-m1 foo",
    "-e foo -e bar",
    "-U foo\\n\\s*return",
    "nothing-matches-this",
];

fn tree() -> tempfile::TempDir {
    rg::tree(TREE)
}

/// ripgrep's answers to the flag sets and the `--json` cases (see [`rg::answers`]; the JSON
/// answers are kept raw and compared as parsed events).
fn ripgrep(dir: &Path) -> BTreeMap<String, Expected> {
    let cases: Vec<String> = CASES
        .iter()
        .map(|c| c.to_string())
        .chain(JSON_CASES.iter().map(|c| format!("--json {c}")))
        .collect();
    rg::answers("rg_expected.json", dir, &cases, false)
}

/// Output lines compared as sets where ripgrep's order is the walk's: `--files` and the
/// per-file modes are sorted by `--sort path` too, so the bytes must be equal.
#[test]
fn flags_behave_as_in_ripgrep() {
    let dir = tree();
    let rg = ripgrep(dir.path());
    let mut failures = Vec::new();
    for case in CASES {
        let want = rg
            .get(*case)
            .unwrap_or_else(|| panic!("no answer recorded for {case:?}"));
        failures.extend(rg::differs(case, want, dir.path()));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// ripgrep's JSON Lines events, as a consumer of `rg --json` reads them.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", content = "data", rename_all = "lowercase")]
enum Event {
    Begin {
        path: Data,
    },
    Match(LineEvent),
    Context(LineEvent),
    End {
        path: Data,
        binary_offset: Option<u64>,
        stats: EventStats,
    },
    Summary {
        #[allow(dead_code)]
        elapsed_total: Elapsed,
        stats: EventStats,
    },
}

#[derive(Debug, Deserialize, PartialEq, Eq, Clone)]
#[serde(untagged)]
enum Data {
    Text { text: String },
    Bytes { bytes: String },
}

#[derive(Debug, Deserialize, PartialEq, Eq)]
struct LineEvent {
    path: Data,
    lines: Data,
    line_number: Option<u64>,
    absolute_offset: u64,
    submatches: Vec<Submatch>,
}

#[derive(Debug, Deserialize, PartialEq, Eq)]
struct Submatch {
    #[serde(rename = "match")]
    matched: Data,
    start: usize,
    end: usize,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Elapsed {
    secs: u64,
    nanos: u32,
    human: String,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct EventStats {
    elapsed: Elapsed,
    searches: u64,
    searches_with_match: u64,
    bytes_searched: u64,
    bytes_printed: u64,
    matched_lines: u64,
    matches: u64,
}

/// What must agree: the line events in order, each file's begin/end and counts, the totals.
fn comparable(stream: &str) -> Vec<String> {
    stream
        .lines()
        .map(|l| {
            let e: Event = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            match e {
                Event::Begin { path } => format!("begin {path:?}"),
                Event::Match(m) => format!("match {m:?}"),
                Event::Context(c) => format!("context {c:?}"),
                Event::End {
                    path,
                    binary_offset,
                    stats,
                } => format!(
                    "end {path:?} {binary_offset:?} lines={} matches={} searched={}",
                    stats.matched_lines, stats.matches, stats.bytes_searched
                ),
                Event::Summary {
                    elapsed_total: _,
                    stats,
                } => format!(
                    "summary lines={} matches={} with_match={}",
                    stats.matched_lines, stats.matches, stats.searches_with_match
                ),
            }
        })
        .collect()
}

#[test]
fn json_is_ripgreps_event_stream() {
    let dir = tree();
    let rg = ripgrep(dir.path());
    for case in JSON_CASES {
        let want = &rg[&format!("--json {case}")];
        let o = run(BIN, &["grep", "--json"], case, dir.path());
        assert_eq!(o.status.code(), Some(want.code), "{case:?}");
        let got = String::from_utf8(o.stdout).unwrap();
        assert_eq!(comparable(&got), comparable(&want.stdout), "{case:?}");
    }
}

#[test]
fn standard_input_is_searched_when_piped_or_named() {
    let dir = tree();
    let feed = |args: &[&str], input: &str| rg::feed(dir.path(), args, input);
    // Piped, no path: standard input, printed without a path (as ripgrep does).
    let o = feed(&["-n", "hello"], "one\nhello world\n");
    assert_eq!(String::from_utf8_lossy(&o.stdout), "2:hello world\n");
    assert_eq!(o.status.code(), Some(0));
    // `-` names it beside a path: both searched, each line with its source.
    let o = feed(&["hello", "-", "notes/guide.md"], "hello\n");
    assert_eq!(String::from_utf8_lossy(&o.stdout), "<stdin>:hello\n");
    let o = feed(&["-c", "foo", "-"], "foo\nfoo\nbar\n");
    assert_eq!(String::from_utf8_lossy(&o.stdout), "2\n");
    // Not piped (no input): the current directory.
    let o = run(BIN, &["grep", "-l"], "Install", dir.path());
    assert_eq!(String::from_utf8_lossy(&o.stdout), "notes/guide.md\n");
}

#[test]
fn hints_show_the_section_and_the_symbol() {
    let dir = tree();
    let o = run(BIN, &["grep", "-n", "--hints"], "foo", dir.path());
    let out = String::from_utf8_lossy(&o.stdout);
    // A markdown hit: its section by slug and lines.
    assert!(
        out.contains(
            "notes/guide.md:7:Run foo.\n    ↳ section lines 5-9 (next ^#{1,2} ); #install (lines 5-9)\n"
        ),
        "{out}"
    );
    // A code hit: the function around it.
    assert!(
        out.contains("src/main.rs:4:    let foo = 1;\n    ↳ in function main (lines 3-6)\n"),
        "{out}"
    );
    // JSON: the same, as extra fields of the match events that ripgrep's readers ignore.
    let o = run(BIN, &["grep", "--json", "--hints"], "Run\\sfoo", dir.path());
    let first_match = String::from_utf8_lossy(&o.stdout)
        .lines()
        .find(|l| l.contains("\"type\":\"match\""))
        .unwrap()
        .to_string();
    let v: serde_json::Value = serde_json::from_str(&first_match).unwrap();
    assert_eq!(v["data"]["mapgrep"]["section"]["slug"], "install");
    assert!(serde_json::from_str::<Event>(&first_match).is_ok());
}
