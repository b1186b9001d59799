//! `mapgrep grep` against ripgrep, flags in combination: colour and headings, counts with
//! other flags, inverted and only-matching with context, `-m` with the modes, symbolic links,
//! binary files, standard input, `--stats` and whole `--json` streams (every field but the
//! times). Each case runs in a generated tree; ripgrep (with `--sort path`: mapgrep prints
//! files in path order) gives the expected bytes and exit code.
//!
//! ripgrep 15's answers are recorded in `tests/data/rg_combos.json`, so the test needs no
//! ripgrep. `MAPGREP_RG=/path/to/rg` compares against that ripgrep live too (it must be 14 or
//! newer: older ones word some outputs differently and are skipped, saying so), and with
//! `MAPGREP_RG_RECORD=1` it rewrites the recorded answers.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::BIN;
use crate::rg::{self, Expected, run};

const TREE: &[(&str, &str)] = &[
    (".gitignore", "target/\n*.log\n"),
    ("target/debug.txt", "alpha in an ignored directory\n"),
    ("run.log", "alpha in an ignored file\n"),
    (".config/settings.toml", "alpha = 1\n"),
    (
        "src/lib.rs",
        "//! Alpha crate.\n\npub fn alpha() -> u32 {\n    let beta = 2;\n    beta + 1\n}\n\npub struct Gamma;\n\nimpl Gamma {\n    pub fn alpha_beta(&self) -> u32 {\n        alpha() * alpha()\n    }\n}\n",
    ),
    (
        "src/util.py",
        "def alpha():\n    return 'beta'\n\n\ndef gamma():\n    return alpha() + alpha()\n",
    ),
    (
        "notes/plan.md",
        "# Plan\n\nalpha first.\n\n## Steps\n\n1. beta\n2. alpha and beta\n3. gamma\n\n## Done\n\nnothing yet\n",
    ),
    (
        "notes/tabs.txt",
        "\talpha\ttabbed\nALPHA upper\nAlpha title\nalphabet soup\n",
    ),
    ("notes/one.txt", "alpha"),
    ("notes/blank.txt", "\n\n\nalpha\n\n"),
    (
        "notes/many.txt",
        "alpha 1\nx\nalpha 2\nx\nx\nx\nalpha 3\nalpha 4\nx\nx\nx\nx\nalpha 5\n",
    ),
];

/// Flag sets (split at spaces; arguments after `grep`, or ripgrep's own).
const CASES: &[&str] = &[
    // Colour, headings and their mixes.
    "--color always alpha",
    "--color always -n alpha",
    "--color always --heading -n alpha",
    "--color always --heading -n -C1 beta",
    "--color always -o alpha",
    "--color always -c alpha",
    "--color always -l alpha",
    "--color always --vimgrep beta",
    "--color always -i -w alpha",
    "--color never --heading -n alpha",
    "--heading -n -A1 gamma",
    "--heading -c alpha",
    "--heading -l alpha",
    // Counts with other flags.
    "-c -i alpha",
    "-c -w alpha",
    "-c -o alpha",
    "-c -m2 alpha",
    "-c -v alpha",
    "--count-matches -i alpha",
    "--count-matches -w alpha",
    "--count-matches -e alpha -e beta",
    "-c -H alpha notes/many.txt",
    "-c alpha notes/many.txt",
    "-c -I alpha",
    // File lists with other flags.
    "-l -v alpha",
    "-l -i ALPHA",
    "-l -m1 alpha",
    "-l -t py alpha",
    "--files-without-match -w alpha",
    "-l -g *.md -g *.txt alpha",
    // Inverted, only-matching, whole lines and words with context.
    "-v -n -C1 alpha notes/many.txt",
    "-v -x -n alpha",
    "-o -w -n alpha",
    "-o -i -e alpha -e beta",
    "-o -n -C1 gamma",
    "-x -i -n alpha",
    "-x -F -n alpha",
    "-w -i alphabet",
    "-F -e ( -e )",
    "-F -x -n 2.\\salpha\\sand\\sbeta",
    // -m with the modes.
    "-m2 -n alpha",
    "-m2 -n -C1 alpha notes/many.txt",
    "-m1 -o -n alpha",
    "-m1 -v -n alpha",
    "-m0 alpha",
    "--vimgrep -m1 alpha",
    // Context edge cases.
    "-n -C5 nothing",
    "-n -A2 -B1 alpha notes/many.txt",
    "-n -B2 alpha notes/blank.txt",
    "-n -A10 beta",
    "-N -C1 beta",
    // Types, globs, hidden and ignored.
    "-t rust -t py -n alpha",
    "-T rust -T py -l alpha",
    "-t markdown -c alpha",
    "-g !notes -l alpha",
    "-. -l alpha",
    "-uu -l alpha",
    "-u -l alpha",
    "--no-ignore --hidden -c alpha",
    "--files -u",
    "--files -g *.rs",
    "--files -T md",
    "--files notes",
    // Smart case with several patterns.
    "-S -e alpha -e Beta -c",
    "-S -e alpha -e beta -c",
    "-S -i ALPHA -c",
    // Paths given.
    "alpha notes/one.txt",
    "-H -n alpha notes/one.txt",
    "alpha notes src",
    "alpha notes/one.txt notes/tabs.txt",
    "-n alpha no/such/file",
    // Multiline.
    "-U -n alpha\\(\\)\\s*\\*",
    "-U -c beta\\n",
    "-U -o -n Gamma;\\n\\nimpl",
    // Max columns.
    "-M 10 -n alpha",
    "-M 10 -o alpha",
    // vimgrep.
    "--vimgrep -i alpha",
    "--vimgrep -w beta",
    // Sorting.
    "--sortr path -l alpha",
    "--sort path -n beta",
    "-j1 -n gamma",
    // Quiet.
    "-q alpha",
    "-q -v alpha",
    "-q nothing",
];

/// `--json` cases, compared as whole events (times left out).
const JSON_CASES: &[&str] = &[
    "alpha",
    "-n -C1 beta",
    "-o alpha",
    "-w -i alpha",
    "-m1 -A2 alpha notes/many.txt",
    "-v beta notes/plan.md",
    "-e alpha -e beta",
    "alpha notes/one.txt",
    "nothing",
];

fn tree() -> tempfile::TempDir {
    let dir = rg::tree(TREE);
    // A binary file (skipped by both) and a link to a directory (followed with -L only).
    std::fs::write(dir.path().join("notes/data.bin"), b"alpha\0beta\n").unwrap();
    #[cfg(unix)]
    mapgrep::platform::test_support::symlink("../src", dir.path().join("notes/linked")).unwrap();
    dir
}

/// The cases that need a link (all of them on unix).
const LINK_CASES: &[&str] = &["-L -l alpha", "-L -c beta", "--files -L"];

fn all_cases() -> Vec<String> {
    let mut all: Vec<String> = CASES.iter().map(|c| c.to_string()).collect();
    if cfg!(unix) {
        all.extend(LINK_CASES.iter().map(|c| c.to_string()));
    }
    all.extend(JSON_CASES.iter().map(|c| format!("--json {c}")));
    all
}

/// ripgrep's answers to every case (see [`rg::answers`]).
fn ripgrep(dir: &Path) -> BTreeMap<String, Expected> {
    rg::answers("rg_combos.json", dir, &all_cases(), true)
}

#[test]
fn flag_combinations_behave_as_in_ripgrep() {
    let dir = tree();
    let rg = ripgrep(dir.path());
    let mut failures = Vec::new();
    for case in all_cases() {
        let Some(want) = rg.get(&case) else {
            failures.push(format!("{case:?}: no answer recorded"));
            continue;
        };
        failures.extend(rg::differs(&case, want, dir.path()));
    }
    assert!(
        failures.is_empty(),
        "{} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// `--stats` prints ripgrep's lines after the results (times differ, so they are left out):
/// ripgrep 15's figures for this tree.
#[test]
fn stats_follow_the_results() {
    let dir = tree();
    let cases: [(&str, &str); 3] = [
        (
            "--stats -c beta",
            "notes/plan.md:2\nsrc/lib.rs:3\nsrc/util.py:1\n\n6 matches\n6 matched lines\n\
             3 files contained matches\n8 files searched\n0 bytes printed\n467 bytes searched\n",
        ),
        ("--stats -l beta", "0 bytes printed\n"),
        ("--stats -n -C1 beta", "411 bytes printed\n"),
    ];
    for (case, want) in cases {
        let o = run(BIN, &["grep"], case, dir.path());
        assert_eq!(o.status.code(), Some(0), "{case}");
        let out = String::from_utf8_lossy(&o.stdout);
        let kept: String = out
            .lines()
            .filter(|l| !l.contains("seconds"))
            .map(|l| format!("{l}\n"))
            .collect();
        assert!(
            kept.ends_with(want) || kept.contains(want),
            "{case}:\n{out}"
        );
    }
}

/// Standard input: piped with no path, named by `-`, with the modes.
#[test]
fn standard_input_with_the_modes() {
    let dir = tree();
    let feed = |args: &[&str], input: &str| {
        let o = rg::feed(dir.path(), args, input);
        (
            String::from_utf8_lossy(&o.stdout).into_owned(),
            o.status.code(),
        )
    };
    let input = "alpha\nbeta\nalpha beta\n";
    assert_eq!(
        feed(&["-n", "beta"], input),
        ("2:beta\n3:alpha beta\n".into(), Some(0))
    );
    assert_eq!(feed(&["-v", "alpha"], input), ("beta\n".into(), Some(0)));
    assert_eq!(feed(&["-c", "alpha", "-"], input), ("2\n".into(), Some(0)));
    assert_eq!(
        feed(&["-o", "-n", "a\\w+"], input),
        ("1:alpha\n3:alpha\n".into(), Some(0))
    );
    assert_eq!(feed(&["-l", "beta"], input), ("<stdin>\n".into(), Some(0)));
    assert_eq!(feed(&["gamma"], input), (String::new(), Some(1)));
    // `-` beside a path: each line says where it comes from.
    let (out, code) = feed(&["-n", "first", "-", "notes/plan.md"], "first\n");
    assert_eq!(code, Some(0));
    assert_eq!(out, "<stdin>:1:first\nnotes/plan.md:3:alpha first.\n");
    // --json names standard input as ripgrep does: `<stdin>`.
    let (out, _) = feed(&["--json", "beta"], "beta\n");
    let first: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(first["type"], "begin");
    assert_eq!(first["data"]["path"]["text"], "<stdin>");
}
