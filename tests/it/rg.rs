//! What the ripgrep comparisons share: a generated tree, running a binary on one case, and
//! ripgrep's answers — recorded in `tests/data/`, compared live with a ripgrep ≥ 14
//! (`MAPGREP_RG`, or `rg` on PATH) and re-recorded with `MAPGREP_RG_RECORD=1` (the matrices
//! `cli_rg.rs`, `cli_combos.rs`); and the `(path, line)` set of a live ripgrep's `-n` answer.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde::{Deserialize, Serialize};

use crate::common::BIN;

/// A tree of `files` (a `.git` directory is made so `.gitignore` applies).
pub fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join(".git")).expect(".git");
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

/// `bin PRE... CASE...` in `dir` (the case split at spaces), without input or `NO_COLOR`.
pub fn run(bin: &str, pre: &[&str], case: &str, dir: &Path) -> Output {
    Command::new(bin)
        .args(pre)
        .args(case.split(' '))
        .current_dir(dir)
        .stdin(Stdio::null())
        .env_remove("NO_COLOR")
        .output()
        .expect("run")
}

/// `mapgrep grep ARGS` in `dir` with `input` piped in.
pub fn feed(dir: &Path, args: &[&str], input: &str) -> Output {
    let mut child = Command::new(BIN)
        .arg("grep")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// A tool's answer to one case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Expected {
    pub stdout: String,
    pub code: i32,
}

impl Expected {
    pub fn of(o: &Output) -> Expected {
        Expected {
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            code: o.status.code().unwrap_or(-1),
        }
    }
}

/// `mapgrep grep CASE` in `dir` against ripgrep's answer `want` (JSON output without its
/// timings): `None` when they agree, else a message that shows both.
pub fn differs(case: &str, want: &Expected, dir: &Path) -> Option<String> {
    let o = run(crate::common::BIN, &["grep"], case, dir);
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    let got = Expected {
        stdout: if case.starts_with("--json") {
            without_times(&stdout)
        } else {
            stdout
        },
        code: o.status.code().unwrap_or(-1),
    };
    (&got != want).then(|| {
        format!(
            "{case:?}:\n--- ripgrep (exit {})\n{}--- mapgrep (exit {})\n{}{}",
            want.code,
            want.stdout,
            got.code,
            got.stdout,
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

#[path = "../support/rg_lines.rs"]
mod rg_lines;
pub use rg_lines::matching_lines;

/// The ripgrep to compare with live: `MAPGREP_RG`, or `rg` on PATH, if it is 14 or newer.
fn live_rg() -> Option<String> {
    let rg = std::env::var("MAPGREP_RG").unwrap_or_else(|_| "rg".to_string());
    let o = Command::new(&rg).arg("--version").output().ok()?;
    let v = String::from_utf8_lossy(&o.stdout).into_owned();
    let major: u32 = v
        .split_whitespace()
        .nth(1)?
        .split('.')
        .next()?
        .parse()
        .ok()?;
    if major < 14 {
        eprintln!(
            "{rg} is {}; comparing with ripgrep 15's recorded answers only",
            v.lines().next().unwrap_or("")
        );
        return None;
    }
    Some(rg)
}

/// ripgrep's answers to `cases` (run with `--sort path`: mapgrep prints files in path order)
/// in `dir`: recorded in `tests/data/RECORDED`, and live when a ripgrep ≥ 14 is at hand.
/// With `strip_times`, `--json` answers are kept without their elapsed times (and compared
/// whole); without it they are kept raw and only the other answers are compared live.
pub fn answers(
    recorded: &str,
    dir: &Path,
    cases: &[String],
    strip_times: bool,
) -> BTreeMap<String, Expected> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(recorded);
    let saved: BTreeMap<String, Expected> =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_default())
            .unwrap_or_default();
    let Some(rg) = live_rg() else {
        assert!(
            !saved.is_empty(),
            "no recorded answers and no ripgrep to ask"
        );
        return saved;
    };
    let mut live = BTreeMap::new();
    for case in cases {
        let mut answer = Expected::of(&run(&rg, &["--sort", "path"], case, dir));
        if strip_times && case.starts_with("--json") {
            answer.stdout = without_times(&answer.stdout);
        }
        live.insert(case.clone(), answer);
    }
    if std::env::var_os("MAPGREP_RG_RECORD").is_some() {
        let text = serde_json::to_string_pretty(&live).unwrap() + "\n";
        std::fs::write(&path, text).unwrap();
    } else {
        for (k, v) in &saved {
            if strip_times || !k.starts_with("--json") {
                assert_eq!(
                    live.get(k),
                    Some(v),
                    "the recorded answer of {k:?} is not this ripgrep's"
                );
            }
        }
    }
    live
}

/// A JSON Lines stream with its elapsed times zeroed (all else compared).
pub fn without_times(stream: &str) -> String {
    fn zero(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m.iter_mut() {
                    if k == "elapsed" || k == "elapsed_total" {
                        *x = serde_json::Value::Null;
                    } else {
                        zero(x);
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(zero),
            _ => {}
        }
    }
    let mut out = String::new();
    for line in stream.lines() {
        let mut v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        zero(&mut v);
        out += &serde_json::to_string(&v).unwrap();
        out.push('\n');
    }
    out
}
