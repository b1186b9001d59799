//! The bytes of a symbol side file: the files it records (path, identity, content checksum,
//! language, why unparsed, package) and their symbols, with a table from every name to its
//! definitions, written once and read in place through the map (every part a read meets is
//! checked against the side file's page sums first).
//!
//! Layout of the payload, little-endian:
//!
//! ```text
//! header   "MGSYMB03", then u32 counts: strings, files, kinds; then u64 offsets of the
//!          string blocks, string bytes, file table, symbol bytes, postings index, postings
//! kinds    each kind's name, u8 length then bytes (a symbol's kind is its number here)
//! strings  sorted, front-coded in blocks of 16: u32 offset of each block into the string
//!          bytes (and the end); in a block, the first string whole (varint length, bytes),
//!          each next one as the length it shares with the one before, and the rest
//! files    FILE_ENTRY bytes each, sorted by path: path (string id u32), identity (dev,
//!          ino, len u64; mtime, ctime as i64 seconds + u32 nanoseconds), content checksum
//!          u64, language u8, status u8 (0: parsed; else why it is read as text), 2 spare,
//!          package (string id u32, or u32::MAX), symbol bytes offset u32 and length u32,
//!          symbol count u32
//! symbols  per file, per symbol in document order: name (string id), kind u8, flags u8,
//!          [parent index], [qualified id], [address id], start line (zigzag delta from the
//!          previous symbol's), def line - start, end line - def (zigzag), varints
//! postings u32 offset of each string's postings (and the end; empty for a string no
//!          symbol is named): (file index, symbol index) varint pairs, file indexes as deltas
//! ```
//!
//! A symbol's qualified name is most often its name (top level) or its parent's qualified
//! name and its own joined by `.`: flags say which, and only other ones are stored; its
//! address (a `file_read` target) is its qualified name unless stored.

use std::collections::HashMap;

use crate::index::Ident;

use super::FileRecord;

const MAGIC: &[u8; 8] = b"MGSYMB03";
const HEADER: usize = 8 + 3 * 4 + 6 * 8;
/// Strings per front-coded block.
pub(super) const BLOCK: u32 = 16;
pub(super) const FILE_ENTRY: usize = 4 + 8 * 3 + 12 * 2 + 8 + 4 + 4 + 4 * 3;
pub(super) const NONE: u32 = u32::MAX;

const DECLARATION: u8 = 1;
const HAS_PARENT: u8 = 2;
const QUALIFIED_IS_NAME: u8 = 4;
const QUALIFIED_UNDER_PARENT: u8 = 8;
const ADDRESS_IS_QUALIFIED: u8 = 16;

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// A reader over bytes that never panics: `None` past the end.
pub(super) struct Cursor<'b> {
    b: &'b [u8],
    at: usize,
}

impl<'b> Cursor<'b> {
    pub(super) fn new(b: &'b [u8]) -> Cursor<'b> {
        Cursor { b, at: 0 }
    }

    pub(super) fn varint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = *self.b.get(self.at)?;
            self.at += 1;
            v |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return Some(v);
            }
        }
        None
    }

    fn byte(&mut self) -> Option<u8> {
        let v = *self.b.get(self.at)?;
        self.at += 1;
        Some(v)
    }

    fn u32(&mut self) -> Option<u32> {
        let v = u32::from_le_bytes(self.b.get(self.at..self.at + 4)?.try_into().ok()?);
        self.at += 4;
        Some(v)
    }

    fn u64(&mut self) -> Option<u64> {
        let v = u64::from_le_bytes(self.b.get(self.at..self.at + 8)?.try_into().ok()?);
        self.at += 8;
        Some(v)
    }

    pub(super) fn done(&self) -> bool {
        self.at >= self.b.len()
    }
}

/// Interns the strings of a side file: ids by first use while encoding, sorted at the end.
#[derive(Default)]
struct Strings {
    ids: HashMap<String, u32>,
    list: Vec<String>,
}

impl Strings {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.ids.get(s) {
            return i;
        }
        let i = self.list.len() as u32;
        self.list.push(s.to_string());
        self.ids.insert(s.to_string(), i);
        i
    }
}

/// The payload of a side file recording `files` (sorted by path, one record a path).
pub(super) fn encode(files: &[FileRecord]) -> Vec<u8> {
    let mut strings = Strings::default();
    let kinds: Vec<&'static str> = crate::code::lang::symbol_kinds().collect();
    let kind_of: HashMap<&str, u8> = kinds
        .iter()
        .enumerate()
        .map(|(i, k)| (*k, i as u8))
        .collect();
    // First pass: symbols with provisional string ids.
    let mut blob: Vec<u8> = Vec::new();
    let mut table: Vec<(u32, u32, u32, u32, u32)> = Vec::with_capacity(files.len());
    let mut names: HashMap<u32, Vec<(u32, u32)>> = HashMap::new();
    for (fi, f) in files.iter().enumerate() {
        let path = strings.id(&f.path);
        let package = if f.package.is_empty() {
            NONE
        } else {
            strings.id(&f.package)
        };
        let start = blob.len() as u32;
        let mut prev = 0i64;
        for (si, s) in f.symbols.iter().enumerate() {
            let name = strings.id(&s.name);
            names.entry(name).or_default().push((fi as u32, si as u32));
            varint(&mut blob, u64::from(name));
            blob.push(*kind_of.get(s.kind).unwrap_or(&0));
            let parent_q = s
                .parent
                .and_then(|p| f.symbols.get(p as usize))
                .map(|p| &p.qualified);
            let mut flags = if s.declaration { DECLARATION } else { 0 };
            if s.parent.is_some() {
                flags |= HAS_PARENT;
            }
            if s.qualified == s.name {
                flags |= QUALIFIED_IS_NAME;
            } else if parent_q.is_some_and(|q| {
                s.qualified.len() == q.len() + 1 + s.name.len()
                    && s.qualified.starts_with(q.as_str())
                    && s.qualified[q.len()..].starts_with('.')
                    && s.qualified.ends_with(s.name.as_str())
            }) {
                flags |= QUALIFIED_UNDER_PARENT;
            }
            if s.address == s.qualified {
                flags |= ADDRESS_IS_QUALIFIED;
            }
            blob.push(flags);
            if let Some(p) = s.parent {
                varint(&mut blob, u64::from(p));
            }
            if flags & (QUALIFIED_IS_NAME | QUALIFIED_UNDER_PARENT) == 0 {
                varint(&mut blob, u64::from(strings.id(&s.qualified)));
            }
            if flags & ADDRESS_IS_QUALIFIED == 0 {
                varint(&mut blob, u64::from(strings.id(&s.address)));
            }
            varint(&mut blob, zigzag(i64::from(s.start_line) - prev));
            prev = i64::from(s.start_line);
            varint(
                &mut blob,
                u64::from(s.def_line.saturating_sub(s.start_line)),
            );
            varint(
                &mut blob,
                zigzag(i64::from(s.end_line) - i64::from(s.def_line)),
            );
        }
        table.push((
            path,
            package,
            start,
            blob.len() as u32 - start,
            f.symbols.len() as u32,
        ));
    }
    // Sort the strings; renumber.
    let mut order: Vec<u32> = (0..strings.list.len() as u32).collect();
    order.sort_unstable_by(|a, b| strings.list[*a as usize].cmp(&strings.list[*b as usize]));
    let mut new_id = vec![0u32; order.len()];
    for (new, &old) in order.iter().enumerate() {
        new_id[old as usize] = new as u32;
    }
    // Renumbered ids take other numbers of bytes: each file's symbols move.
    let (blob, spans) = renumber(&blob, files, &new_id);
    for (t, (start, len)) in table.iter_mut().zip(spans) {
        (t.2, t.3) = (start, len);
    }
    write_payload(
        files,
        &strings.list,
        &order,
        &new_id,
        &kinds,
        &table,
        &blob,
        names,
    )
}

/// `blob` with its string ids renumbered by `new_id`, and where each file's symbols are in
/// it now (offset, length).
fn renumber(blob: &[u8], files: &[FileRecord], new_id: &[u32]) -> (Vec<u8>, Vec<(u32, u32)>) {
    let mut out = Vec::with_capacity(blob.len());
    let mut spans = Vec::with_capacity(files.len());
    let mut c = Cursor::new(blob);
    for f in files {
        let start = out.len();
        for _ in &f.symbols {
            let name = c.varint().expect("written") as usize;
            varint(&mut out, u64::from(new_id[name]));
            let kind = c.byte().expect("written");
            let flags = c.byte().expect("written");
            out.extend_from_slice(&[kind, flags]);
            if flags & HAS_PARENT != 0 {
                varint(&mut out, c.varint().expect("written"));
            }
            if flags & (QUALIFIED_IS_NAME | QUALIFIED_UNDER_PARENT) == 0 {
                varint(
                    &mut out,
                    u64::from(new_id[c.varint().expect("written") as usize]),
                );
            }
            if flags & ADDRESS_IS_QUALIFIED == 0 {
                varint(
                    &mut out,
                    u64::from(new_id[c.varint().expect("written") as usize]),
                );
            }
            for _ in 0..3 {
                varint(&mut out, c.varint().expect("written"));
            }
        }
        spans.push((start as u32, (out.len() - start) as u32));
    }
    (out, spans)
}

#[allow(clippy::too_many_arguments)]
fn write_payload(
    files: &[FileRecord],
    list: &[String],
    order: &[u32],
    new_id: &[u32],
    kinds: &[&str],
    table: &[(u32, u32, u32, u32, u32)],
    blob: &[u8],
    names: HashMap<u32, Vec<(u32, u32)>>,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + blob.len() * 2);
    out.extend_from_slice(MAGIC);
    for n in [list.len(), files.len(), kinds.len()] {
        out.extend_from_slice(&(n as u32).to_le_bytes());
    }
    let offsets_at = out.len();
    out.resize(out.len() + 6 * 8, 0);
    for k in kinds {
        out.push(k.len() as u8);
        out.extend_from_slice(k.as_bytes());
    }
    let mut offsets = [0u64; 6];
    let (blocks, coded) = front_coded(list, order);
    offsets[0] = out.len() as u64;
    for b in &blocks {
        out.extend_from_slice(&b.to_le_bytes());
    }
    offsets[1] = out.len() as u64;
    out.extend_from_slice(&coded);
    offsets[2] = out.len() as u64;
    write_files(&mut out, files, table, new_id);
    offsets[3] = out.len() as u64;
    out.extend_from_slice(blob);
    // The postings of every string (empty for those no symbol is named).
    let mut by_id: Vec<Option<Vec<(u32, u32)>>> = vec![None; list.len()];
    for (old, p) in names {
        by_id[new_id[old as usize] as usize] = Some(p);
    }
    offsets[4] = out.len() as u64;
    let postings = write_postings(&mut out, &by_id);
    offsets[5] = out.len() as u64;
    out.extend_from_slice(&postings);
    for (i, o) in offsets.iter().enumerate() {
        out[offsets_at + i * 8..offsets_at + i * 8 + 8].copy_from_slice(&o.to_le_bytes());
    }
    out
}

/// The strings in `order`, front-coded in blocks of [`BLOCK`]: each block's offset (and the
/// end), and the coded bytes.
fn front_coded(list: &[String], order: &[u32]) -> (Vec<u32>, Vec<u8>) {
    let mut coded = Vec::new();
    let mut blocks = Vec::new();
    let mut prev: &[u8] = &[];
    for (i, &old) in order.iter().enumerate() {
        let s = list[old as usize].as_bytes();
        if (i as u32).is_multiple_of(BLOCK) {
            blocks.push(coded.len() as u32);
            varint(&mut coded, s.len() as u64);
            coded.extend_from_slice(s);
        } else {
            let shared = s.iter().zip(prev).take_while(|(a, b)| a == b).count();
            varint(&mut coded, shared as u64);
            varint(&mut coded, (s.len() - shared) as u64);
            coded.extend_from_slice(&s[shared..]);
        }
        prev = s;
    }
    blocks.push(coded.len() as u32);
    (blocks, coded)
}

/// The file table: one [`FILE_ENTRY`] per file.
fn write_files(
    out: &mut Vec<u8>,
    files: &[FileRecord],
    table: &[(u32, u32, u32, u32, u32)],
    new_id: &[u32],
) {
    for (f, &(path, package, start, len, count)) in files.iter().zip(table) {
        out.extend_from_slice(&new_id[path as usize].to_le_bytes());
        let id = &f.ident;
        for v in [id.dev, id.ino, id.len] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for (s, ns) in [id.mtime, id.ctime] {
            out.extend_from_slice(&s.to_le_bytes());
            out.extend_from_slice(&ns.to_le_bytes());
        }
        out.extend_from_slice(&f.hash.to_le_bytes());
        out.extend_from_slice(&[f.lang, f.status, 0, 0]);
        let package = if package == NONE {
            NONE
        } else {
            new_id[package as usize]
        };
        for v in [package, start, len, count] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
}

/// Each string's offset into the postings (and the end) into `out`; returns the postings:
/// per string, (file delta, symbol) varint pairs.
fn write_postings(out: &mut Vec<u8>, by_id: &[Option<Vec<(u32, u32)>>]) -> Vec<u8> {
    let mut postings = Vec::new();
    for p in by_id {
        out.extend_from_slice(&(postings.len() as u32).to_le_bytes());
        let mut last = 0u32;
        for &(f, s) in p.iter().flatten() {
            varint(&mut postings, u64::from(f - last));
            varint(&mut postings, u64::from(s));
            last = f;
        }
    }
    out.extend_from_slice(&(postings.len() as u32).to_le_bytes());
    postings
}

/// The layout of a payload, read from its header (checked for consistency, not yet
/// against its page sums).
#[derive(Clone, Debug, Default)]
pub(super) struct Layout {
    pub strings: u32,
    pub files: u32,
    pub kinds: Vec<&'static str>,
    pub string_blocks: usize,
    pub string_bytes: usize,
    pub file_table: usize,
    pub symbol_bytes: usize,
    pub postings_index: usize,
    pub postings: usize,
    pub end: usize,
}

impl Layout {
    /// The layout of `payload`, `None` if its header is not one of this version or does not
    /// fit.
    pub(super) fn read(payload: &[u8]) -> Option<Layout> {
        let mut c = Cursor::new(payload);
        if payload.get(..8)? != MAGIC {
            return None;
        }
        c.at = 8;
        let (strings, files, nkinds) = (c.u32()?, c.u32()?, c.u32()?);
        let mut o = [0usize; 6];
        for v in &mut o {
            *v = usize::try_from(c.u64()?).ok()?;
        }
        let known: Vec<&'static str> = crate::code::lang::symbol_kinds().collect();
        let mut kinds = Vec::with_capacity(nkinds as usize);
        for _ in 0..nkinds {
            let n = usize::from(c.byte()?);
            let k = std::str::from_utf8(c.b.get(c.at..c.at + n)?).ok()?;
            c.at += n;
            kinds.push(known.iter().copied().find(|x| *x == k).unwrap_or("symbol"));
        }
        let l = Layout {
            strings,
            files,
            kinds,
            string_blocks: o[0],
            string_bytes: o[1],
            file_table: o[2],
            symbol_bytes: o[3],
            postings_index: o[4],
            postings: o[5],
            end: payload.len(),
        };
        let blocks = strings.div_ceil(BLOCK) as usize + 1;
        let ordered = c.at <= l.string_blocks
            && l.string_blocks + blocks * 4 == l.string_bytes
            && l.string_bytes <= l.file_table
            && l.file_table + files as usize * FILE_ENTRY == l.symbol_bytes
            && l.symbol_bytes <= l.postings_index
            && l.postings_index + (strings as usize + 1) * 4 == l.postings
            && l.postings <= l.end;
        ordered.then_some(l)
    }
}

/// The strings of one front-coded block (`bytes`: the block), decoded up to the
/// `upto`-th (0-based) inclusive; `None` if not well formed.
pub(super) fn block_strings(bytes: &[u8], upto: u32) -> Option<Vec<Vec<u8>>> {
    let mut c = Cursor::new(bytes);
    let mut out: Vec<Vec<u8>> = Vec::with_capacity(upto as usize + 1);
    for i in 0..=upto {
        let s = if i == 0 {
            let n = usize::try_from(c.varint()?).ok()?;
            let s = c.b.get(c.at..c.at.checked_add(n)?)?.to_vec();
            c.at += n;
            s
        } else {
            let shared = usize::try_from(c.varint()?).ok()?;
            let n = usize::try_from(c.varint()?).ok()?;
            let prev = out.last()?;
            let mut s = prev.get(..shared)?.to_vec();
            s.extend_from_slice(c.b.get(c.at..c.at.checked_add(n)?)?);
            c.at += n;
            s
        };
        out.push(s);
    }
    Some(out)
}

/// One file's entry as the table holds it.
#[derive(Clone, Copy, Debug)]
pub(super) struct FileEntry {
    pub path: u32,
    pub ident: Ident,
    pub hash: u64,
    pub lang: u8,
    pub status: u8,
    pub package: u32,
    pub symbols_at: u32,
    pub symbols_len: u32,
    pub count: u32,
}

impl FileEntry {
    pub(super) fn read(b: &[u8]) -> Option<FileEntry> {
        let mut c = Cursor::new(b);
        let path = c.u32()?;
        let (dev, ino, len) = (c.u64()?, c.u64()?, c.u64()?);
        let mtime = (c.u64()? as i64, c.u32()?);
        let ctime = (c.u64()? as i64, c.u32()?);
        let hash = c.u64()?;
        let (lang, status) = (c.byte()?, c.byte()?);
        c.at += 2;
        Some(FileEntry {
            path,
            ident: Ident {
                dev,
                ino,
                len,
                mtime,
                ctime,
            },
            hash,
            lang,
            status,
            package: c.u32()?,
            symbols_at: c.u32()?,
            symbols_len: c.u32()?,
            count: c.u32()?,
        })
    }
}

/// A symbol decoded, with its strings as ids.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct RawSymbol {
    pub name: u32,
    pub kind: u8,
    pub declaration: bool,
    pub parent: Option<u32>,
    /// `None`: the name (or under the parent, with `under_parent`).
    pub qualified: Option<u32>,
    pub under_parent: bool,
    pub address: Option<u32>,
    pub start: u32,
    pub def: u32,
    pub end: u32,
}

/// Decodes `count` symbols from a file's symbol bytes; `None` if they are not well formed.
pub(super) fn symbols(bytes: &[u8], count: u32) -> Option<Vec<RawSymbol>> {
    let mut c = Cursor::new(bytes);
    let mut out = Vec::with_capacity(count.min(1 << 20) as usize);
    let mut prev = 0i64;
    for _ in 0..count {
        let name = u32::try_from(c.varint()?).ok()?;
        let kind = c.byte()?;
        let flags = c.byte()?;
        let parent = if flags & HAS_PARENT != 0 {
            let p = u32::try_from(c.varint()?).ok()?;
            (p < out.len() as u32).then_some(p)?;
            Some(p)
        } else {
            None
        };
        let computed = flags & (QUALIFIED_IS_NAME | QUALIFIED_UNDER_PARENT) != 0;
        let qualified = if computed {
            None
        } else {
            Some(u32::try_from(c.varint()?).ok()?)
        };
        let address = if flags & ADDRESS_IS_QUALIFIED != 0 {
            None
        } else {
            Some(u32::try_from(c.varint()?).ok()?)
        };
        let start = prev.checked_add(unzigzag(c.varint()?))?;
        prev = start;
        let def = start.checked_add(i64::try_from(c.varint()?).ok()?)?;
        let end = def.checked_add(unzigzag(c.varint()?))?;
        out.push(RawSymbol {
            name,
            kind,
            declaration: flags & DECLARATION != 0,
            parent,
            qualified,
            under_parent: flags & QUALIFIED_UNDER_PARENT != 0 && parent.is_some(),
            address,
            start: u32::try_from(start).ok()?,
            def: u32::try_from(def).ok()?,
            end: u32::try_from(end).ok()?,
        });
    }
    c.done().then_some(out)
}

/// Decodes one name's postings (all of `bytes`): (file index, symbol index) pairs.
pub(super) fn postings(bytes: &[u8]) -> Option<Vec<(u32, u32)>> {
    let mut c = Cursor::new(bytes);
    let mut out = Vec::new();
    let mut file = 0u32;
    while !c.done() {
        file = file.checked_add(u32::try_from(c.varint()?).ok()?)?;
        out.push((file, u32::try_from(c.varint()?).ok()?));
    }
    Some(out)
}

/// Two consecutive u32 offsets (a span's start and end) at the start of `b`.
pub(super) fn span(b: &[u8]) -> Option<(u32, u32)> {
    let mut c = Cursor::new(b);
    Some((c.u32()?, c.u32()?))
}
