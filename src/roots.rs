//! `Roots`: the directories mapgrep may touch, and the resolution of every path a caller gives.
//!
//! A path is accepted only if, after canonicalization (every symlink resolved), it lies inside
//! one root *by whole path components* (`/srv/repo-evil` is not inside `/srv/repo`). Relative
//! paths resolve against the first root. A path that does not exist is checked through its
//! deepest existing ancestor, so a missing file under a symlink that leaves the roots is still
//! refused as outside rather than reported as "not found". No roots means every path is refused.

use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};

/// The allowed roots, canonicalized, with the sandbox's handle of each (see
/// [`crate::platform::register_root`]: the portable sandbox opens files through them).
#[derive(Clone, Debug)]
pub struct Roots {
    roots: Vec<PathBuf>,
    _handles: Vec<crate::platform::RootHandle>,
}

impl Roots {
    /// Canonicalizes each root; a root that does not exist or is not a directory is an error.
    pub fn new<I, P>(roots: I) -> Result<Roots>
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        let mut out = Vec::new();
        let mut handles = Vec::new();
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
                handles.push(crate::platform::register_root(&c).map_err(|e| Error::io(&c, e))?);
                out.push(c);
            }
        }
        Ok(Roots {
            roots: out,
            _handles: handles,
        })
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
        let spelled = spelled_path(path)?;
        let given = Path::new(spelled.as_ref());
        let native = crate::platform::native_path(given);
        let joined = if native.is_absolute() {
            native.into_owned()
        } else {
            self.roots[0].join(native)
        };
        let canonical = canonicalize_lenient(&joined)?;
        // A trailing separator names a directory: Linux refuses a file so named (`ENOTDIR`, from
        // the canonicalization above); Windows drops the separator, so the check is made here.
        if spelled.ends_with(std::path::is_separator)
            && std::fs::metadata(&canonical).is_ok_and(|m| !m.is_dir())
        {
            return Err(Error::io(&joined, crate::platform::not_a_directory()));
        }
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

/// A path as callers write it, read as a filesystem path: a `file://` URI (percent-encoded
/// bytes decoded, `file://localhost/` accepted) and a leading `~` (the home directory) are
/// understood; other URI schemes are refused with a word that they are not supported.
pub fn spelled_path(path: &str) -> Result<std::borrow::Cow<'_, str>> {
    let invalid = |reason: &str| Error::InvalidPath {
        path: path.into(),
        reason: reason.into(),
    };
    if let Some(rest) = path
        .strip_prefix("file://localhost/")
        .map(|r| ("/", r))
        .or_else(|| path.strip_prefix("file:///").map(|r| ("/", r)))
    {
        let decoded = percent_decode(rest.1)
            .ok_or_else(|| invalid("a file:// URI with a malformed %-escape or non-UTF-8 bytes"))?;
        // Windows: `file:///C:/x` is `C:/x`, a drive letter with no slash before it.
        let drive =
            decoded.as_bytes().get(1) == Some(&b':') && decoded.as_bytes()[0].is_ascii_alphabetic();
        if cfg!(windows) && drive {
            return Ok(decoded.into());
        }
        return Ok(format!("{}{decoded}", rest.0).into());
    }
    if path.starts_with("file://") {
        return Err(invalid(
            "a file:// URI must name a local absolute path (file:///path or file://localhost/path)",
        ));
    }
    if let Some((scheme, _)) = path.split_once("://")
        && !scheme.is_empty()
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
    {
        return Err(invalid(
            "only local paths and file:// URIs are supported; pass a path relative to the first root or absolute",
        ));
    }
    if path == "~" || path.starts_with("~/") || (cfg!(windows) && path.starts_with("~\\")) {
        let home = crate::platform::home_dir()
            .ok_or_else(|| invalid("'~' is the home directory, but HOME is not set"))?;
        let home = home
            .into_os_string()
            .into_string()
            .map_err(|_| invalid("'~' is the home directory, whose name is not UTF-8"))?;
        return Ok(format!("{home}{}", &path[1..]).into());
    }
    Ok(path.into())
}

/// `s` with `%XX` escapes decoded, if they are well formed and the result is UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
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
                // The first missing name may be a symlink whose target is missing: say so (its
                // target may lie outside the roots), rather than "not found".
                if let Some(first) = rest.components().next()
                    && std::fs::symlink_metadata(base.join(first))
                        .is_ok_and(|m| m.file_type().is_symlink())
                {
                    return Err(Error::io(path, crate::platform::link_refused()));
                }
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
    fn file_uris_and_home_are_spelled_as_paths() {
        assert_eq!(spelled_path("file:///tmp/a%20b.md").unwrap(), "/tmp/a b.md");
        assert_eq!(
            spelled_path("file://localhost/x/%E9%AA%8C.md").unwrap(),
            "/x/验.md"
        );
        assert_eq!(spelled_path("src/a.rs").unwrap(), "src/a.rs");
        // `HOME`, or on Windows where it is not set, the system's (`%USERPROFILE%`).
        let home = crate::platform::home_dir().unwrap();
        let home = home.to_str().unwrap();
        assert_eq!(
            spelled_path("~/notes.md").unwrap(),
            format!("{home}/notes.md")
        );
        assert_eq!(spelled_path("~").unwrap(), home);
        assert_eq!(spelled_path("~user/x").unwrap(), "~user/x");
        for bad in [
            "file://host/x",
            "https://example.org/a",
            "file:///a%zz",
            "file:///%ff",
        ] {
            assert!(
                matches!(spelled_path(bad), Err(Error::InvalidPath { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_dangling_symlink_is_called_a_symlink_not_missing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir(&root).unwrap();
        crate::platform::test_support::symlink(dir.path().join("outside/gone"), root.join("link"))
            .unwrap();
        let roots = Roots::new([&root]).unwrap();
        for p in ["link", "link/below.txt"] {
            match roots.resolve(p) {
                Err(Error::InvalidPath { reason, .. }) => {
                    assert!(reason.contains("dangling"), "{reason}")
                }
                other => panic!("{p}: {other:?}"),
            }
        }
        assert!(roots.resolve("missing.txt").is_ok());
    }

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
        crate::platform::test_support::symlink(outside.join("f"), root.join("link")).unwrap();
        crate::platform::test_support::symlink(&outside, root.join("dirlink")).unwrap();
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
