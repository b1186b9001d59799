//! Side files of an index: records a higher layer computes once per file version (the
//! symbols of `crate::symbols`), stored beside the segments and kept as they are. The index
//! treats their contents as opaque bytes; it writes them (a private temporary file, synced
//! and renamed into place), lists them in the manifest beside the segments (so a reader
//! picks them up, and a writer removes those no manifest lists), maps them, and checks them:
//! the checksum of every byte when opened (a server; recorded by the manifest), and a sum
//! per page for what a reader reads ([`SideFile::checked`]), so that bytes changed in place
//! after mapping are seen by the read that meets them.
//!
//! Layout, little-endian:
//!
//! ```text
//! magic "MGSIDE01"
//! payload        the higher layer's bytes
//! page sums      u32 per 256-byte page of the file from its start up to the sums
//! tail           payload length u64, checksum of every byte before the tail u64, "MGSIDEND"
//! ```

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use super::checksum::{self, PAGE};
use super::persist::{self, IndexFileError};
use super::store::{SegRef, Store};
use crate::source::{Source, SourceOptions};

const MAGIC: &[u8; 8] = b"MGSIDE01";
const END: &[u8; 8] = b"MGSIDEND";
const TAIL: usize = 8 + 8 + 8;

enum Data {
    Owned(Vec<u8>),
    Mapped(Source),
}

/// One side file, mapped (or held in memory when the index is).
pub struct SideFile {
    data: Data,
    payload_len: usize,
    /// Where the page sums start.
    sums_off: usize,
    /// Its number in the store (0: in memory only), and its checksum.
    pub number: u64,
    pub sum: u64,
    damaged: AtomicBool,
}

impl std::fmt::Debug for SideFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SideFile")
            .field("number", &self.number)
            .field("payload", &self.payload_len)
            .finish()
    }
}

/// The bytes of a side file holding `payload`.
fn encode(payload: &[u8]) -> Vec<u8> {
    let mut b = Vec::with_capacity(payload.len() + payload.len() / 64 + 64);
    b.extend_from_slice(MAGIC);
    b.extend_from_slice(payload);
    let sums: Vec<u32> = b
        .chunks(PAGE)
        .enumerate()
        .map(|(k, page)| checksum::page_sum(k as u64, page))
        .collect();
    for s in sums {
        b.extend_from_slice(&s.to_le_bytes());
    }
    b.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    let sum = checksum::checksum(&b);
    b.extend_from_slice(&sum.to_le_bytes());
    b.extend_from_slice(END);
    b
}

/// The payload length, sums offset and checksum of a side file's bytes, checked (`verify`:
/// the checksum of every byte too).
fn parse(b: &[u8], path: &Path, verify: bool) -> Result<(usize, usize, u64), IndexFileError> {
    let bad = |why: &str| persist::refused(path, why);
    if b.len() < MAGIC.len() + TAIL || &b[..8] != MAGIC || &b[b.len() - 8..] != END {
        return Err(bad("not a mapgrep side file of this version"));
    }
    let tail = b.len() - TAIL;
    let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
    let payload_len = u64_at(tail) as usize;
    let sum = u64_at(tail + 8);
    let covered = MAGIC.len().checked_add(payload_len).filter(|&c| c <= tail);
    let Some(covered) = covered else {
        return Err(bad("inconsistent layout"));
    };
    if tail - covered != covered.div_ceil(PAGE) * 4 {
        return Err(bad("inconsistent layout"));
    }
    if verify && checksum::checksum(&b[..tail + 8]) != sum {
        return Err(bad("checksum mismatch (damaged or altered)"));
    }
    Ok((payload_len, covered, sum))
}

impl SideFile {
    /// A side file held in memory (an index kept in memory only).
    pub fn in_memory(payload: &[u8]) -> SideFile {
        let bytes = encode(payload);
        let (payload_len, sums_off, sum) =
            parse(&bytes, Path::new("(memory)"), false).expect("written just now");
        SideFile {
            data: Data::Owned(bytes),
            payload_len,
            sums_off,
            number: 0,
            sum,
            damaged: AtomicBool::new(false),
        }
    }

    /// Opens side file `number` at `path`, refused unless its checks hold and (when given)
    /// its checksum is `sum`.
    fn open(
        path: &Path,
        number: u64,
        sum: Option<u64>,
        verify: bool,
    ) -> Result<SideFile, IndexFileError> {
        let io = |e: std::io::Error| IndexFileError::Io {
            path: path.to_path_buf(),
            source: e,
        };
        let path = &std::fs::canonicalize(path).map_err(io)?;
        persist::check_owner(path)?;
        let opts = SourceOptions {
            mmap_threshold: 0,
            identity: true,
        };
        let source =
            Source::open(path, &opts).map_err(|e| io(std::io::Error::other(e.to_string())))?;
        let parsed = super::mapped::guard(&source, || parse(source.bytes(), path, verify))
            .map_err(|()| persist::refused(path, "changed while it was read"))??;
        let (payload_len, sums_off, found) = parsed;
        if sum.is_some_and(|s| s != found) {
            return Err(persist::refused(
                path,
                "not the side file its manifest lists",
            ));
        }
        Ok(SideFile {
            data: Data::Mapped(source),
            payload_len,
            sums_off,
            number,
            sum: found,
            damaged: AtomicBool::new(false),
        })
    }

    fn bytes(&self) -> &[u8] {
        match &self.data {
            Data::Owned(b) => b,
            Data::Mapped(s) => s.bytes(),
        }
    }

    /// The payload, unchecked: what is read of it must pass [`SideFile::checked`] before it
    /// is trusted.
    pub fn payload(&self) -> &[u8] {
        let b = self.bytes();
        b.get(MAGIC.len()..MAGIC.len() + self.payload_len)
            .unwrap_or(&[])
    }

    /// Whether the payload's bytes `range` are those written (their pages' sums match):
    /// `false` (and the file marked damaged) when not. Memory is not checked.
    pub fn checked(&self, range: std::ops::Range<usize>) -> bool {
        if self.is_damaged() {
            return false;
        }
        let Data::Mapped(src) = &self.data else {
            return true;
        };
        let b = self.bytes();
        let (start, end) = (MAGIC.len() + range.start, MAGIC.len() + range.end);
        if range.start > range.end || end > self.sums_off || b.len() < self.sums_off {
            self.damaged.store(true, Ordering::Relaxed);
            return false;
        }
        let pages = checksum::pages_of(start as u64, end.max(start + 1) as u64);
        let ok = super::mapped::guard(src, || checksum::pages_match(b, self.sums_off, pages))
            .unwrap_or(false);
        if !ok {
            self.damaged.store(true, Ordering::Relaxed);
        }
        ok
    }

    /// Whether a read found bytes of it that are not those written.
    pub fn is_damaged(&self) -> bool {
        self.damaged.load(Ordering::Relaxed)
    }
}

impl Store {
    /// Writes a side file of `payload` as side file `number` (private temporary file,
    /// synced, renamed into place) and opens it. Only the writer calls this.
    pub fn write_side(&self, number: u64, payload: &[u8]) -> std::io::Result<SideFile> {
        let target = self.side_path(number);
        self.side_pending(number);
        let (tmp, mut f) = persist::temp_file(&target)?;
        let bytes = encode(payload);
        let r = std::io::Write::write_all(&mut f, &bytes)
            .and_then(|()| f.sync_all())
            .and_then(|()| std::fs::rename(&tmp, &target));
        if let Err(e) = r {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
        SideFile::open(&target, number, None, false).map_err(std::io::Error::other)
    }

    /// The side files the current manifest lists, opened and checked (every byte, for a
    /// server). Side files opened before (`reuse`) are kept.
    pub fn side_files(
        &self,
        reuse: &[std::sync::Arc<SideFile>],
    ) -> Result<Vec<std::sync::Arc<SideFile>>, IndexFileError> {
        let Some(m) = self.manifest()? else {
            return Ok(Vec::new());
        };
        let mut out = Vec::with_capacity(m.sides.len());
        for r in &m.sides {
            if let Some(s) = reuse
                .iter()
                .find(|s| s.number == r.number && s.sum == r.sum && !s.is_damaged())
            {
                out.push(std::sync::Arc::clone(s));
                continue;
            }
            out.push(std::sync::Arc::new(SideFile::open(
                &self.side_path(r.number),
                r.number,
                Some(r.sum),
                self.verifies(),
            )?));
        }
        Ok(out)
    }

    /// The side files the current manifest lists (numbers and checksums), to tell whether
    /// what a reader holds is current.
    pub fn side_refs(&self) -> Vec<(u64, u64)> {
        self.manifest()
            .ok()
            .flatten()
            .map(|m| m.sides.iter().map(|s| (s.number, s.sum)).collect())
            .unwrap_or_default()
    }

    /// Publishes `files` as the store's side files (the segments stay as they are); the
    /// side files no longer listed are removed. Only the writer calls this.
    pub fn publish_sides(&self, files: &[std::sync::Arc<SideFile>]) -> std::io::Result<()> {
        let refs = files
            .iter()
            .map(|s| SegRef {
                number: s.number,
                sum: s.sum,
            })
            .collect();
        self.publish_with(|m| m.sides = refs)
    }

    /// The bytes on disk of the side files the current manifest lists.
    pub fn side_bytes(&self) -> u64 {
        let Ok(Some(m)) = self.manifest() else {
            return 0;
        };
        m.sides
            .iter()
            .filter_map(|r| std::fs::metadata(self.side_path(r.number)).ok())
            .map(|m| m.len())
            .sum()
    }

    /// The highest number of a side file in the directory (0: none).
    fn highest_side_file(&self) -> u64 {
        let Ok(entries) = std::fs::read_dir(self.dir()) else {
            return 0;
        };
        entries
            .flatten()
            .filter_map(|e| super::store::side_number(&e.file_name()))
            .max()
            .unwrap_or(0)
    }

    /// The next number for a side file (above every one listed or present).
    pub fn next_side_number(&self) -> u64 {
        let listed = self
            .manifest()
            .ok()
            .flatten()
            .and_then(|m| m.sides.iter().map(|s| s.number).max())
            .unwrap_or(0);
        listed.max(self.highest_side_file()) + 1
    }
}
