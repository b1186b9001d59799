//! What tests need of the system (links, modes, owners, sockets), so that unit and
//! integration tests name no `std::os::unix` either and compile on every system. Not part
//! of the engine's API (hidden from the docs); tests of Unix-only behaviour (FIFOs, sockets,
//! mode bits) check [`supported`] or are `#[cfg(unix)]`.

use std::fs::Metadata;
use std::io;
use std::path::Path;

/// Whether this system has what the Unix-only fixtures need (FIFOs, sockets, mode bits,
/// owners).
pub const fn supported() -> bool {
    cfg!(unix)
}

/// Creates a symbolic link at `link` to `target` (on Windows a directory link when the target
/// is a directory, else a file link).
pub fn symlink(target: impl AsRef<Path>, link: impl AsRef<Path>) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(target, link)
    }
    #[cfg(windows)]
    {
        if target.as_ref().is_dir() {
            std::os::windows::fs::symlink_dir(target, link)
        } else {
            std::os::windows::fs::symlink_file(target, link)
        }
    }
}

/// Sets the permission bits of the file at `path` (Windows: read-only unless the owner's
/// write bit is set).
pub fn set_mode(path: impl AsRef<Path>, mode: u32) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
    }
    #[cfg(windows)]
    {
        let mut p = std::fs::metadata(&path)?.permissions();
        p.set_readonly(mode & 0o200 == 0);
        std::fs::set_permissions(path, p)
    }
}

/// The permission bits of `md` (Windows: 0o444 read-only, else 0o666).
pub fn mode(md: &Metadata) -> u32 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        md.mode() & 0o7777
    }
    #[cfg(windows)]
    {
        if md.permissions().readonly() {
            0o444
        } else {
            0o666
        }
    }
}

/// The inode number of `md` (0 where the system gives none).
pub fn ino(md: &Metadata) -> u64 {
    super::stamp(md).ino
}

/// Owner and group of `md` ((0, 0) where the system has no numeric owners).
pub fn owner(md: &Metadata) -> (u32, u32) {
    super::owner_of(md)
}

/// Gives the file at `path` another owner and group (Unix; needs privileges).
pub fn chown(path: impl AsRef<Path>, uid: u32, gid: u32) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::chown(path, Some(uid), Some(gid))
    }
    #[cfg(windows)]
    {
        let _ = (path, uid, gid);
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "no numeric owners",
        ))
    }
}

/// Whether this process runs as the superuser (root ignores mode bits).
pub fn is_root() -> bool {
    #[cfg(unix)]
    {
        rustix::process::geteuid().is_root()
    }
    #[cfg(windows)]
    {
        false
    }
}

/// Binds a Unix-domain socket at `path`, kept while the returned value lives (Unix only).
pub fn bind_socket(path: impl AsRef<Path>) -> io::Result<Box<dyn std::any::Any>> {
    #[cfg(unix)]
    {
        Ok(Box::new(std::os::unix::net::UnixListener::bind(path)?))
    }
    #[cfg(windows)]
    {
        let _ = path;
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "no Unix sockets",
        ))
    }
}

/// Asks process `pid` to end as a service manager or a client closing it does (SIGTERM;
/// Unix only).
pub fn terminate(pid: u32) -> io::Result<()> {
    #[cfg(unix)]
    {
        let pid = rustix::process::Pid::from_raw(pid as i32)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "pid 0"))?;
        rustix::process::kill_process(pid, rustix::process::Signal::TERM).map_err(io::Error::from)
    }
    #[cfg(windows)]
    {
        let _ = pid;
        Err(io::Error::new(io::ErrorKind::Unsupported, "no signals"))
    }
}

/// Sets the modification time of the file or directory at `path` (Windows opens a directory
/// only with backup semantics, and its times with write-attributes access).
pub fn set_mtime(path: &Path, t: std::time::SystemTime) -> io::Result<()> {
    let mut o = std::fs::File::options();
    o.read(true);
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt;
        const FILE_WRITE_ATTRIBUTES: u32 = 0x100;
        const FILE_FLAG_BACKUP_SEMANTICS: u32 = 0x0200_0000;
        o.access_mode(FILE_WRITE_ATTRIBUTES)
            .custom_flags(FILE_FLAG_BACKUP_SEMANTICS);
    }
    o.open(path)?.set_modified(t)
}

/// insta filters (a regex and its replacement, applied in turn) that write the directory
/// `dir` (canonical) as `label` wherever an answer shows it, and the rest of a path below it
/// as Unix writes it, so that snapshots read the same on every system. Unix: `dir` itself.
/// Windows: `dir` as canonicalizing gives it (`\\?\C:\…`), without its verbatim prefix, and
/// with `/` between its names; then each `\` of a path that follows `label` as `/`.
pub fn temp_path_filters(dir: &Path, label: &str) -> Vec<(String, String)> {
    let escape = |s: &str| -> String {
        s.chars()
            .flat_map(|c| {
                let special = "\\.+*?()|[]{}^$#&-~".contains(c);
                special
                    .then_some('\\')
                    .into_iter()
                    .chain(std::iter::once(c))
            })
            .collect()
    };
    let dir = dir.to_str().expect("a UTF-8 temporary directory");
    #[cfg(unix)]
    {
        vec![(escape(dir), label.to_string())]
    }
    #[cfg(windows)]
    {
        let plain = dir.strip_prefix(r"\\?\").unwrap_or(dir);
        let mut filters: Vec<(String, String)> = [dir, plain, &plain.replace('\\', "/")]
            .iter()
            .map(|s| (escape(s), label.to_string()))
            .collect();
        // One `\` after the label per pass (a path in an answer is a few names deep).
        let tail = format!(r"({}[^\s\\]*)\\", escape(label));
        filters.extend((0..12).map(|_| (tail.clone(), "$1/".to_string())));
        filters
    }
}
