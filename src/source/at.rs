//! The file-system calls of [`super::replace_file`], [`super::lock_file`] and the no-symlink
//! open, through rustix's safe bindings: `openat2` with `RESOLVE_NO_SYMLINKS`, the `*at`
//! calls relative to an opened directory (so a directory swapped for a link after the check
//! cannot redirect them), `fchown`, `faccessat` and `flock`.

use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::path::Path;

use rustix::fs::{
    Access, AtFlags, CWD, FlockOperation, Gid, Mode, OFlags, ResolveFlags, Uid, accessat,
    fchown as fchown_fd, flock, openat, openat2, renameat, statat, unlinkat,
};
use rustix::io::Errno;

/// Opens `path` with `flags` (`O_*` bits), failing with ELOOP if any component is a symbolic
/// link. `None` when the kernel has no `openat2` (before Linux 5.6) or a sandbox forbids it.
pub(super) fn open_no_symlinks(path: &Path, flags: i32) -> Option<io::Result<File>> {
    let oflags = OFlags::from_bits_retain(flags as u32);
    match openat2(CWD, path, oflags, Mode::empty(), ResolveFlags::NO_SYMLINKS) {
        Ok(fd) => Some(Ok(File::from(fd))),
        Err(Errno::NOSYS) | Err(Errno::PERM) => None,
        Err(e) => Some(Err(e.into())),
    }
}

/// `openat(dir, name, flags, mode)`: opens a name inside an opened directory.
pub(super) fn open_at(dir: &File, name: &OsStr, flags: i32, mode: u32) -> io::Result<File> {
    let oflags = OFlags::from_bits_retain(flags as u32);
    Ok(File::from(openat(
        dir,
        name,
        oflags,
        Mode::from_bits_retain(mode),
    )?))
}

/// `renameat(dir, from, dir, to)`: atomically replaces `to` with `from` in one directory.
pub(super) fn rename_at(dir: &File, from: &OsStr, to: &OsStr) -> io::Result<()> {
    Ok(renameat(dir, from, dir, to)?)
}

/// `flock(file, LOCK_EX | LOCK_NB)`: `Ok(true)` if the exclusive lock is now held through
/// this descriptor, `Ok(false)` if another descriptor holds a lock on the file.
pub(super) fn try_lock_exclusive(file: &File) -> io::Result<bool> {
    loop {
        match flock(file, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => return Ok(true),
            Err(Errno::WOULDBLOCK) => return Ok(false),
            Err(Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
}

/// `fchown(file, uid, gid)`.
pub(super) fn fchown(file: &File, uid: u32, gid: u32) -> io::Result<()> {
    Ok(fchown_fd(
        file,
        Some(Uid::from_raw(uid)),
        Some(Gid::from_raw(gid)),
    )?)
}

/// `faccessat(AT_FDCWD, path, W_OK, AT_EACCESS)`: whether this process (its effective user
/// and groups) may write the file at `path`.
pub(super) fn access_write(path: &Path) -> io::Result<()> {
    Ok(accessat(CWD, path, Access::WRITE_OK, AtFlags::EACCESS)?)
}

/// `unlinkat(dir, name, 0)`: removes a file from an opened directory.
pub(super) fn unlink_at(dir: &File, name: &OsStr) -> io::Result<()> {
    Ok(unlinkat(dir, name, AtFlags::empty())?)
}

/// `fstatat(dir, name, AT_SYMLINK_NOFOLLOW)`: the identity of a name inside an opened
/// directory (one component to resolve, where a path from the root resolves them all).
pub(super) fn identity_at(dir: &File, name: &OsStr) -> io::Result<super::FileId> {
    let st = statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)?;
    let time = |s: i64, ns: u64| {
        u64::try_from(s).ok().map(|s| {
            std::time::UNIX_EPOCH + std::time::Duration::new(s, ns.min(999_999_999) as u32)
        })
    };
    Ok(super::FileId {
        dev: st.st_dev as u64,
        ino: st.st_ino as u64,
        len: st.st_size as u64,
        mtime: time(st.st_mtime as i64, st.st_mtime_nsec as u64),
        ctime: (st.st_ctime as i64, st.st_ctime_nsec as i64),
    })
}
