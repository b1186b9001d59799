//! `Roots`: the directories mapgrep may touch, and the resolution of every path a caller gives.
//!
//! A path is accepted only if, after canonicalization (every symlink resolved), it lies inside
//! one root *by whole path components* (`/srv/repo-evil` is not inside `/srv/repo`). Relative
//! paths resolve against the first root. A path that does not exist is checked through its
//! deepest existing ancestor, so a missing file under a symlink that leaves the roots is still
//! refused as outside rather than reported as "not found". No roots means every path is refused.

use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};

/// The allowed roots, canonicalized.
#[derive(Clone, Debug)]
pub struct Roots {
    roots: Vec<PathBuf>,
}

impl Roots {
    /// Canonicalizes each root; a root that does not exist or is not a directory is an error.
    pub fn new<I, P>(roots: I) -> Result<Roots>
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        let mut out = Vec::new();
        for r in roots {
            let r = r.as_ref();
            let c = r.canonicalize().map_err(|e| Error::io(r, e))?;
            if !c.is_dir() {
                return Err(Error::InvalidPath {
                    path: r.display().to_string(),
                    reason: "a root must be a directory".into(),
                });
            }
            if !out.contains(&c) {
                out.push(c);
            }
        }
        Ok(Roots { roots: out })
    }

    pub fn as_slice(&self) -> &[PathBuf] {
        &self.roots
    }

    /// The roots as a human list, for messages.
    pub fn describe(&self) -> String {
        self.roots
            .iter()
            .map(|r| r.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Whether a canonical path lies inside a root (component-wise).
    pub fn contains(&self, canonical: &Path) -> bool {
        self.roots.iter().any(|r| canonical.starts_with(r))
    }

    /// Resolves a caller's path to a canonical path inside the roots. The result may not exist
    /// (the caller's open reports "not found"); it never lies outside the roots.
    pub fn resolve(&self, path: &str) -> Result<PathBuf> {
        if self.roots.is_empty() {
            return Err(Error::NoRoots);
        }
        if path.is_empty() {
            return Err(Error::InvalidPath {
                path: path.into(),
                reason: "the path is empty".into(),
            });
        }
        if path.contains('\0') {
            return Err(Error::InvalidPath {
                path: path.escape_debug().to_string(),
                reason: "the path contains a NUL byte".into(),
            });
        }
        let given = Path::new(path);
        let joined = if given.is_absolute() {
            given.to_path_buf()
        } else {
            self.roots[0].join(given)
        };
        let canonical = canonicalize_lenient(&joined)?;
        if self.contains(&canonical) {
            Ok(canonical)
        } else {
            Err(Error::OutsideRoots {
                path: given.to_path_buf(),
                roots: self.describe(),
            })
        }
    }
}

/// Canonicalizes `path`; if it does not exist, canonicalizes its deepest existing ancestor and
/// appends the rest lexically (refusing `..` in the missing part, which cannot be resolved).
fn canonicalize_lenient(path: &Path) -> Result<PathBuf> {
    match path.canonicalize() {
        Ok(c) => return Ok(c),
        // A loop, a permission problem on a parent, ...: never swallow it (CVE-2025-53109).
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(Error::io(path, e)),
        Err(_) => {}
    }
    for ancestor in path.ancestors().skip(1) {
        match ancestor.canonicalize() {
            Ok(base) => {
                let rest = path
                    .strip_prefix(ancestor)
                    .expect("an ancestor is a prefix");
                if rest
                    .components()
                    .any(|c| !matches!(c, Component::Normal(_)))
                {
                    return Err(Error::InvalidPath {
                        path: path.display().to_string(),
                        reason: "'..' below a missing directory cannot be resolved".into(),
                    });
                }
                return Ok(base.join(rest));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io(ancestor, e)),
        }
    }
    Err(Error::NotFound {
        path: path.to_path_buf(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sibling_prefix_is_outside() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        let evil = dir.path().join("repo-evil");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&evil).unwrap();
        std::fs::write(evil.join("x"), "x").unwrap();
        let roots = Roots::new([&root]).unwrap();
        let p = evil.join("x");
        assert!(matches!(
            roots.resolve(p.to_str().unwrap()),
            Err(Error::OutsideRoots { .. })
        ));
    }

    #[test]
    fn relative_paths_resolve_against_first_root_and_dotdot_escapes_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::fs::write(root.join("a/f.txt"), "x").unwrap();
        std::fs::write(dir.path().join("secret"), "x").unwrap();
        let roots = Roots::new([&root]).unwrap();
        assert_eq!(
            roots.resolve("a/f.txt").unwrap(),
            root.canonicalize().unwrap().join("a/f.txt")
        );
        assert!(matches!(
            roots.resolve("../secret"),
            Err(Error::OutsideRoots { .. })
        ));
        assert!(matches!(
            roots.resolve("a/../../secret"),
            Err(Error::OutsideRoots { .. })
        ));
        // Missing files inside are fine (the open reports "not found").
        assert!(roots.resolve("a/missing.txt").is_ok());
        assert!(roots.resolve("nope/../../secret").is_err());
    }

    #[test]
    fn symlinks_out_are_refused_even_when_the_target_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("f"), "x").unwrap();
        std::os::unix::fs::symlink(outside.join("f"), root.join("link")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("dirlink")).unwrap();
        let roots = Roots::new([&root]).unwrap();
        assert!(matches!(
            roots.resolve("link"),
            Err(Error::OutsideRoots { .. })
        ));
        assert!(matches!(
            roots.resolve("dirlink/f"),
            Err(Error::OutsideRoots { .. })
        ));
        assert!(matches!(
            roots.resolve("dirlink/missing"),
            Err(Error::OutsideRoots { .. })
        ));
    }

    #[test]
    fn no_roots_refuses_everything() {
        let roots = Roots::new(Vec::<PathBuf>::new()).unwrap();
        assert!(matches!(roots.resolve("/etc/passwd"), Err(Error::NoRoots)));
    }

    #[test]
    fn nul_bytes_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let roots = Roots::new([dir.path()]).unwrap();
        assert!(matches!(
            roots.resolve("a\0b"),
            Err(Error::InvalidPath { .. })
        ));
    }
}
