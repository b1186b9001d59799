//! The portable sandbox, from cap-std (Bytecode Alliance; wasmtime's filesystem sandbox): the
//! build on macOS, Windows and the BSDs, and on Linux with `--cfg mapgrep_portable`.
//!
//! Each root is opened once as a `cap_std::fs::Dir` ([`register_root`], held by `Roots`).
//! A canonical path beneath a registered root is opened *through that handle*, relative to
//! it: cap-std resolves the rest one component at a time and refuses any step out of the
//! root — `..` past it, an absolute path or a drive or UNC prefix, a symbolic link (on
//! Windows, any name-surrogate reparse point: symlinks and junctions) whose target leaves it —
//! and the last component is opened without following a link. On Windows it also refuses
//! the reserved device names (`CON`, `NUL`, `COM1`, `COM¹`, `LPT1`…, with any extension).
//! cap-std answers an escape with its own `PermissionDenied` error (no system error code);
//! it is reported as the refused link it is (see [`super::OsError::Link`]).
//!
//! The difference from Linux's `RESOLVE_NO_SYMLINKS`: a link swapped in after the check that
//! stays inside the root is followed (it leads to a file inside the root, which the check
//! would have accepted). A path beneath no registered root (the index's own files in the
//! cache directory) is opened through its parent directory with the last component not
//! followed, as Linux before 5.6 does.

use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock, Weak};

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt};
use cap_std::ambient_authority;

use super::FileId;

pub(super) const NAME: &str = "portable";

/// A root opened for the sandbox; the root's handle stays registered while one is alive.
#[derive(Clone, Debug)]
pub struct RootHandle(#[allow(dead_code)] Arc<cap_std::fs::Dir>);

type Registry = Vec<(PathBuf, Weak<cap_std::fs::Dir>)>;

/// The roots of every live `Roots` of the process, by canonical path.
static ROOTS: RwLock<Registry> = RwLock::new(Vec::new());

/// Opens the root at canonical `path` and registers it: opens beneath it go through it.
pub fn register_root(canonical: &Path) -> io::Result<RootHandle> {
    let dir = Arc::new(cap_std::fs::Dir::open_ambient_dir(
        canonical,
        ambient_authority(),
    )?);
    let mut roots = ROOTS.write().unwrap_or_else(|e| e.into_inner());
    roots.retain(|(_, d)| d.strong_count() > 0);
    roots.push((canonical.to_path_buf(), Arc::downgrade(&dir)));
    Ok(RootHandle(dir))
}

/// The registered root handle `path` lies beneath (the deepest one), and the path relative
/// to it.
fn beneath(path: &Path) -> Option<(Arc<cap_std::fs::Dir>, &Path)> {
    let roots = ROOTS.read().unwrap_or_else(|e| e.into_inner());
    roots
        .iter()
        .filter_map(|(root, dir)| {
            let rel = path.strip_prefix(root).ok()?;
            (!rel.as_os_str().is_empty()).then_some((root.as_os_str().len(), dir, rel))
        })
        .filter_map(|(depth, dir, rel)| Some((depth, dir.upgrade()?, rel)))
        .max_by_key(|(depth, _, _)| *depth)
        .map(|(_, dir, rel)| (dir, rel))
}

/// cap-std's "a path led outside" (a `PermissionDenied` of its own making, which a system
/// refusal never is: those carry an error code) is the refused link it is.
fn escape_as_link(e: io::Error) -> io::Error {
    if e.kind() == io::ErrorKind::PermissionDenied && e.raw_os_error().is_none() {
        super::link_refused()
    } else {
        e
    }
}

/// Options to read a file: the last component not followed, never blocking on a FIFO.
fn read_options() -> cap_std::fs::OpenOptions {
    let mut o = cap_std::fs::OpenOptions::new();
    o.read(true).follow(FollowSymlinks::No);
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    o
}

/// Opens `rel` beneath `path`'s registered root, or (beneath none) `path` through its parent.
fn open_with(path: &Path, opts: &cap_std::fs::OpenOptions) -> io::Result<File> {
    if let Some((dir, rel)) = beneath(path) {
        return dir
            .open_with(rel, opts)
            .map(cap_std::fs::File::into_std)
            .map_err(escape_as_link);
    }
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a file path",
        ));
    };
    cap_std::fs::Dir::open_ambient_dir(parent, ambient_authority())?
        .open_with(name, opts)
        .map(cap_std::fs::File::into_std)
        .map_err(escape_as_link)
}

/// Opens the canonical `path` for reading without blocking, inside its root (see the module
/// docs), the last component not followed.
pub fn open_read(path: &Path) -> io::Result<File> {
    open_with(path, &read_options())
}

/// An opened directory: later steps name files relative to it.
#[derive(Debug)]
pub struct Dir(cap_std::fs::Dir);

/// Opens the directory at canonical `path` inside its root, the last component not followed.
pub fn open_dir(path: &Path) -> io::Result<Dir> {
    use cap_fs_ext::DirExt;
    if let Some((dir, rel)) = beneath(path) {
        return dir.open_dir_nofollow(rel).map(Dir).map_err(escape_as_link);
    }
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return cap_std::fs::Dir::open_ambient_dir(path, ambient_authority()).map(Dir);
    };
    cap_std::fs::Dir::open_ambient_dir(parent, ambient_authority())?
        .open_dir_nofollow(name)
        .map(Dir)
        .map_err(escape_as_link)
}

impl Dir {
    /// Opens `name` for reading: never blocking, never following a link.
    pub fn open_read(&self, name: &OsStr) -> io::Result<File> {
        self.0
            .open_with(name, &read_options())
            .map(cap_std::fs::File::into_std)
            .map_err(escape_as_link)
    }

    /// Creates `name` exclusively for writing, with `mode` on Unix (filtered through the
    /// umask; Windows has no mode bits).
    pub fn create_new(&self, name: &OsStr, mode: u32) -> io::Result<File> {
        let mut o = cap_std::fs::OpenOptions::new();
        o.write(true).create_new(true).follow(FollowSymlinks::No);
        #[cfg(unix)]
        {
            use cap_std::fs::OpenOptionsExt;
            o.mode(mode);
        }
        #[cfg(not(unix))]
        let _ = mode;
        self.0
            .open_with(name, &o)
            .map(cap_std::fs::File::into_std)
            .map_err(escape_as_link)
    }

    /// Atomically replaces `to` with `from`, both in this directory.
    pub fn rename(&self, from: &OsStr, to: &OsStr) -> io::Result<()> {
        self.0.rename(from, &self.0, to)
    }

    /// Removes the file `name`.
    pub fn remove(&self, name: &OsStr) -> io::Result<()> {
        self.0.remove_file(name)
    }

    /// Flushes the directory (a rename in it) to disk where the system can (not Windows).
    pub fn sync(&self) -> io::Result<()> {
        #[cfg(unix)]
        {
            self.0.try_clone()?.into_std_file().sync_all()
        }
        #[cfg(not(unix))]
        Ok(())
    }

    /// The identity of `name` without following a link, as [`super::stamp`] gives it for the
    /// `symlink_metadata` of its path.
    pub fn stamp_at(&self, name: &OsStr) -> io::Result<FileId> {
        let md = self.0.symlink_metadata(name)?;
        Ok(stamp_of(&md))
    }
}

#[cfg(unix)]
fn stamp_of(md: &cap_std::fs::Metadata) -> FileId {
    use cap_std::fs::MetadataExt;
    FileId {
        dev: md.dev(),
        ino: md.ino(),
        len: md.len(),
        mtime: md.modified().ok().map(|t| t.into_std()),
        ctime: (md.ctime(), md.ctime_nsec()),
    }
}

#[cfg(windows)]
fn stamp_of(md: &cap_std::fs::Metadata) -> FileId {
    FileId {
        dev: 0,
        ino: 0,
        len: md.len(),
        mtime: md.modified().ok().map(|t| t.into_std()),
        ctime: (0, 0),
    }
}
