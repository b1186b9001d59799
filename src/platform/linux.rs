//! Linux's sandbox: `openat2` with `RESOLVE_NO_SYMLINKS` on the canonical path (any symbolic
//! link in any component fails), `O_NOFOLLOW` on kernels before 5.6 (or where a seccomp
//! filter forbids `openat2`), and the `*at` calls relative to an opened directory, through
//! rustix's safe bindings. Nothing to hold per root: the path is canonical and inside a root,
//! and a link anywhere in it was swapped in after the check.

use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use rustix::fs::{AtFlags, CWD, Mode, OFlags, ResolveFlags, openat, openat2, renameat, statat};
use rustix::io::Errno;

use super::FileId;

pub(super) const NAME: &str = "linux";

/// A root as the sandbox holds it: nothing on Linux (see the module docs).
#[derive(Clone, Debug)]
pub struct RootHandle;

/// Nothing to open on Linux: `openat2` checks every component of the canonical path.
pub fn register_root(_canonical: &Path) -> io::Result<RootHandle> {
    Ok(RootHandle)
}

/// Opens `path` with `flags`, failing with ELOOP if any component is a symbolic link:
/// `openat2(RESOLVE_NO_SYMLINKS)`, else (no `openat2`) `O_NOFOLLOW` on the last component.
fn open_no_symlinks(path: &Path, flags: i32) -> io::Result<File> {
    let oflags = OFlags::from_bits_retain(flags as u32);
    match openat2(CWD, path, oflags, Mode::empty(), ResolveFlags::NO_SYMLINKS) {
        Ok(fd) => Ok(File::from(fd)),
        Err(Errno::NOSYS) | Err(Errno::PERM) => std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(flags | libc::O_NOFOLLOW)
            .open(path),
        Err(e) => Err(e.into()),
    }
}

/// Opens the canonical `path` for reading without ever blocking (a FIFO swapped in for a
/// file opens at once, and is refused by its caller's `fstat`), and without following a
/// symbolic link anywhere in it.
pub fn open_read(path: &Path) -> io::Result<File> {
    open_no_symlinks(
        path,
        libc::O_RDONLY | libc::O_NONBLOCK | libc::O_CLOEXEC | libc::O_NOCTTY,
    )
}

/// An opened directory: later steps name files relative to it, so a directory swapped for a
/// link after it was opened cannot redirect them.
#[derive(Debug)]
pub struct Dir(File);

/// Opens the directory at canonical `path` without following a link anywhere in it.
pub fn open_dir(path: &Path) -> io::Result<Dir> {
    open_no_symlinks(path, libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC).map(Dir)
}

impl Dir {
    fn at(&self, name: &OsStr, flags: i32, mode: u32) -> io::Result<File> {
        let oflags = OFlags::from_bits_retain(flags as u32);
        Ok(File::from(openat(
            &self.0,
            name,
            oflags,
            Mode::from_bits_retain(mode),
        )?))
    }

    /// Opens `name` for reading: never blocking, never following a link.
    pub fn open_read(&self, name: &OsStr) -> io::Result<File> {
        let flags = libc::O_RDONLY | libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        self.at(name, flags, 0)
    }

    /// Creates `name` exclusively (`O_CREAT|O_EXCL|O_NOFOLLOW`) for writing, with `mode`
    /// (filtered through the umask).
    pub fn create_new(&self, name: &OsStr, mode: u32) -> io::Result<File> {
        let flags =
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        self.at(name, flags, mode)
    }

    /// `renameat(dir, from, dir, to)`: atomically replaces `to` with `from`.
    pub fn rename(&self, from: &OsStr, to: &OsStr) -> io::Result<()> {
        Ok(renameat(&self.0, from, &self.0, to)?)
    }

    /// `unlinkat(dir, name, 0)`.
    pub fn remove(&self, name: &OsStr) -> io::Result<()> {
        Ok(rustix::fs::unlinkat(&self.0, name, AtFlags::empty())?)
    }

    /// Flushes the directory (a rename in it) to disk.
    pub fn sync(&self) -> io::Result<()> {
        self.0.sync_all()
    }

    /// `fstatat(dir, name, AT_SYMLINK_NOFOLLOW)`: the identity of `name`, as
    /// [`super::stamp`] gives it for the `symlink_metadata` of its path (one component to
    /// resolve, where a path from the root resolves them all).
    pub fn stamp_at(&self, name: &OsStr) -> io::Result<FileId> {
        let st = statat(&self.0, name, AtFlags::SYMLINK_NOFOLLOW)?;
        let time = |s: i64, ns: u64| {
            u64::try_from(s).ok().map(|s| {
                std::time::UNIX_EPOCH + std::time::Duration::new(s, ns.min(999_999_999) as u32)
            })
        };
        Ok(FileId {
            dev: st.st_dev as u64,
            ino: st.st_ino as u64,
            len: st.st_size as u64,
            mtime: time(st.st_mtime as i64, st.st_mtime_nsec as u64),
            ctime: (st.st_ctime as i64, st.st_ctime_nsec as i64),
        })
    }
}
