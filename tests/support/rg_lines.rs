//! A live ripgrep's matching lines: the one way the tests take them, shared by the library's
//! own tests (`src/index/tests.rs`) and the integration tests (`tests/it/rg.rs`), each of
//! which includes this file. Plain `std`, so it compiles in either crate.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// The ripgrep to run: `MAPGREP_RG`, `rg` on PATH, or `~/.cargo/bin/rg` (any version); the
/// first that answers `--version`, looked for once per test binary.
pub fn ripgrep() -> Option<String> {
    static FOUND: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    FOUND
        .get_or_init(|| {
            let home = std::env::var("HOME").unwrap_or_default();
            let candidates = [
                std::env::var("MAPGREP_RG").unwrap_or_default(),
                "rg".into(),
                format!("{home}/.cargo/bin/rg"),
            ];
            candidates.into_iter().filter(|c| !c.is_empty()).find(|rg| {
                Command::new(rg)
                    .arg("--version")
                    .output()
                    .is_ok_and(|o| o.status.success())
            })
        })
        .clone()
}

/// The `(path, line)` of every line that ripgrep prints for `args` (with `-n --no-heading`)
/// in `dir`, the path as ripgrep prints it (its notices, such as "binary file matches", are
/// not lines); `None` when no ripgrep is at hand.
pub fn matching_lines(dir: &Path, args: &[&str]) -> Option<BTreeSet<(String, u64)>> {
    let o = Command::new(ripgrep()?)
        .args(["-n", "--no-heading"])
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    let found = String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| {
            let mut parts = l.splitn(3, ':');
            let path = parts.next()?.to_string();
            let line = parts.next()?.parse().ok()?;
            parts.next()?;
            Some((path, line))
        })
        .collect();
    Some(found)
}
