//! Typed errors of the engine, carrying the path they are about. Messages are lowercase and
//! say what went wrong; front-ends turn them into the specs' formats.

use std::io;
use std::path::{Path, PathBuf};

/// An engine error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("file not found: {}", path.display())]
    NotFound { path: PathBuf },
    #[error("permission denied: {}", path.display())]
    PermissionDenied { path: PathBuf },
    #[error("{} is not a regular file (it is a {kind})", path.display())]
    NotAFile { path: PathBuf, kind: &'static str },
    #[error("cannot read binary file: {}", path.display())]
    Binary { path: PathBuf },
    #[error("{} is outside the allowed roots ({roots})", path.display())]
    OutsideRoots { path: PathBuf, roots: String },
    #[error("invalid path {path:?}: {reason}")]
    InvalidPath { path: String, reason: String },
    /// A file that is read as lines but not parsed (too large, or not text of its kind).
    #[error("{} is not parsed: {reason}", path.display())]
    Unparsable { path: PathBuf, reason: String },
    #[error("no allowed roots are configured; refusing every path")]
    NoRoots,
    #[error("file changed while it was being read, retry: {}", path.display())]
    Changed { path: PathBuf },
    /// A file that may be read but is not to be replaced: its mode gives its owner no write
    /// permission, this process may not write it, or a replacement could not keep its owner.
    #[error("{} is read-only: {reason}", path.display())]
    ReadOnly { path: PathBuf, reason: String },
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
}

impl Error {
    /// Classifies an `io::Error` on `path`.
    pub fn io(path: &Path, e: io::Error) -> Error {
        let path = path.to_path_buf();
        match e.kind() {
            io::ErrorKind::NotFound => Error::NotFound { path },
            io::ErrorKind::PermissionDenied => Error::PermissionDenied { path },
            _ if e.raw_os_error() == Some(libc::ELOOP) => Error::InvalidPath {
                path: path.display().to_string(),
                reason: "a symbolic link that does not lead to a file inside the roots (a loop, a dangling link, or a link swapped in after the check)".into(),
            },
            _ if e.raw_os_error() == Some(libc::ENAMETOOLONG) => Error::InvalidPath {
                path: path.display().to_string(),
                reason: "a name in it is longer than the filesystem allows (255 bytes)".into(),
            },
            _ if e.raw_os_error() == Some(libc::EISDIR) => Error::NotAFile {
                path,
                kind: "directory",
            },
            _ => Error::Io { path, source: e },
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
