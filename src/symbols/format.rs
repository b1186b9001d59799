//! The bytes of a symbol side file: the files it records (path, identity, content checksum,
//! language, why unparsed, package) and their symbols, with a table from every name to its
//! definitions, written once and read in place through the map (every part a read meets is
//! checked against the side file's page sums first).
//!
//! Layout of the payload, little-endian:
//!
//! ```text
//! header   "MGSYMB08", then u32 counts: strings, files, shapes; then u64 offsets of the
//!          string blocks, string bytes, file table, symbol bytes, postings index, postings
//! shapes   each shape (a kind and the flags of a symbol, most used first): the kind's name
//!          (u8 length, bytes), the flags u8
//! strings  sorted, front-coded in blocks of 256: u32 offset of each block into the string
//!          bytes (and the end); in a block, the first string whole (varint length, bytes:
//!          what a binary search reads), then, if the block has more, varint lengths of the
//!          rest as coded and as stored, and the rest (stored raw-deflated unless that is no
//!          smaller): each next string as the length it shares with the one before, and the
//!          rest
//! files    FILE_ENTRY bytes each, sorted by path: path (string id u32), identity (dev,
//!          ino, len u64; mtime, ctime as i64 seconds + u32 nanoseconds), content checksum
//!          u64, language u8, status u8 (0: parsed; else why it is read as text), u8 1 if
//!          its uses below are not all its names (else 0), 1 spare,
//!          package (string id u32, or u32::MAX), symbol bytes offset u32 and length u32,
//!          symbol count u32, offset of its uses in its symbol bytes u32 (a reference
//!          search reads them alone)
//! symbols  per file, per symbol in document order, varints: shape, name (zigzag delta from
//!          the previous symbol's name id), [its index - its parent's], [qualified id],
//!          [address id], start line (zigzag delta from the previous symbol's), and unless
//!          the symbol is on one line: def line - start, end line - def (zigzag); then
//!          the names its code uses and does not define: varint count; past USES_SKIP
//!          names, a skip table: for every USES_SKIP-th name, varint deltas of the id of
//!          the name before it and of where its entry starts (from the first entry); then
//!          per name (in string order) varint (string id delta << 1 | 1 if some uses were
//!          set aside), varint uses, [varint uses set aside: on lines that only declare
//!          the name]
//! postings per block of 256 strings, u32 offset of its postings (and the end); there, per
//!          string of the block: varint count, then (file index, symbol index) varint pairs,
//!          file indexes as deltas
//! ```
//!
//! A symbol's qualified name is most often its name (top level) or its parent's qualified
//! name and its own joined by `.`: flags say which, and only other ones are stored; its
//! address (a `file_read` target) is its qualified name unless stored.

use crate::index::Ident;

pub(super) const MAGIC: &[u8; 8] = b"MGSYMB08";
pub(super) const HEADER: usize = 8 + 3 * 4 + 6 * 8;
/// Strings per front-coded block (and per block of postings).
pub(super) const BLOCK: u32 = 256;
pub(super) const FILE_ENTRY: usize = 4 + 8 * 3 + 12 * 2 + 8 + 4 + 4 + 4 * 4;
pub(super) const NONE: u32 = u32::MAX;
/// A file's uses are found through a skip table of every this many (see the layout).
pub(super) const USES_SKIP: usize = 32;

pub(super) const DECLARATION: u8 = 1;
pub(super) const HAS_PARENT: u8 = 2;
pub(super) const QUALIFIED_IS_NAME: u8 = 4;
pub(super) const QUALIFIED_UNDER_PARENT: u8 = 8;
pub(super) const ADDRESS_IS_QUALIFIED: u8 = 16;
pub(super) const ONE_LINE: u8 = 32;

pub(super) fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub(super) fn zigzag(v: i64) -> u64 {
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

/// The layout of a payload, read from its header (checked for consistency, not yet
/// against its page sums).
#[derive(Clone, Debug, Default)]
pub(super) struct Layout {
    pub strings: u32,
    pub files: u32,
    /// Each shape's kind.
    pub kinds: Vec<&'static str>,
    /// Each shape's flags.
    pub flags: Vec<u8>,
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
        let (strings, files, nshapes) = (c.u32()?, c.u32()?, c.u32()?);
        let mut o = [0usize; 6];
        for v in &mut o {
            *v = usize::try_from(c.u64()?).ok()?;
        }
        let known: Vec<&'static str> = crate::code::lang::symbol_kinds().collect();
        let mut kinds = Vec::with_capacity(nshapes.min(1 << 16) as usize);
        let mut flags = Vec::with_capacity(kinds.capacity());
        for _ in 0..nshapes {
            let n = usize::from(c.byte()?);
            let k = std::str::from_utf8(c.b.get(c.at..c.at + n)?).ok()?;
            c.at += n;
            kinds.push(known.iter().copied().find(|x| *x == k).unwrap_or("symbol"));
            flags.push(c.byte()?);
        }
        let l = Layout {
            strings,
            files,
            kinds,
            flags,
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
            && l.postings_index + blocks * 4 == l.postings
            && l.postings <= l.end;
        ordered.then_some(l)
    }
}

/// The strings of one front-coded block (`bytes`: the block), decoded up to the
/// `upto`-th (0-based) inclusive; `None` if not well formed.
pub(super) fn block_strings(bytes: &[u8], upto: u32) -> Option<Vec<Vec<u8>>> {
    let block = block_decode(bytes, upto.checked_add(1)?)?;
    (0..=upto)
        .map(|k| block.get(k).map(<[u8]>::to_vec))
        .collect()
}

/// Every string of one block, decoded: their bytes end to end and where each ends.
#[derive(Debug, Default)]
pub(super) struct Block {
    text: Vec<u8>,
    ends: Vec<u32>,
}

impl Block {
    /// String `k` of the block.
    pub(super) fn get(&self, k: u32) -> Option<&[u8]> {
        let k = k as usize;
        let end = *self.ends.get(k)? as usize;
        let start = if k == 0 { 0 } else { self.ends[k - 1] as usize };
        self.text.get(start..end)
    }

    /// The bytes the block holds (what keeping it costs).
    pub(super) fn size(&self) -> usize {
        self.text.len() + self.ends.len() * 4
    }
}

/// The `n` strings of one front-coded block (`bytes`: the block), decoded in two
/// allocations; `None` if not well formed.
pub(super) fn block_decode(bytes: &[u8], n: u32) -> Option<Block> {
    let mut c = Cursor::new(bytes);
    let len = usize::try_from(c.varint()?).ok()?;
    let mut text = c.b.get(c.at..c.at.checked_add(len)?)?.to_vec();
    c.at += len;
    let mut ends = Vec::with_capacity(n as usize);
    ends.push(u32::try_from(text.len()).ok()?);
    if n <= 1 {
        return Some(Block { text, ends });
    }
    let raw_len = usize::try_from(c.varint()?).ok()?;
    let stored = usize::try_from(c.varint()?).ok()?;
    let packed = c.b.get(c.at..c.at.checked_add(stored)?)?;
    // Deflate packs at most 1,032 to 1: a larger claim is not a block this wrote.
    if raw_len > stored.saturating_mul(1032).max(64) {
        return None;
    }
    let rest = if stored == raw_len {
        std::borrow::Cow::Borrowed(packed)
    } else {
        std::borrow::Cow::Owned(inflate(packed, raw_len)?)
    };
    let mut c = Cursor::new(&rest);
    let mut prev = 0usize;
    for _ in 1..n {
        let shared = usize::try_from(c.varint()?).ok()?;
        let len = usize::try_from(c.varint()?).ok()?;
        let start = text.len();
        if shared > start - prev {
            return None;
        }
        text.extend_from_within(prev..prev + shared);
        text.extend_from_slice(c.b.get(c.at..c.at.checked_add(len)?)?);
        c.at += len;
        prev = start;
        ends.push(u32::try_from(text.len()).ok()?);
    }
    Some(Block { text, ends })
}

/// The `len` bytes raw-deflated into `packed`; `None` unless they are exactly that many.
fn inflate(packed: &[u8], len: usize) -> Option<Vec<u8>> {
    let mut out = vec![0u8; len];
    let n = miniz_oxide::inflate::decompress_slice_iter_to_slice(
        &mut out,
        std::iter::once(packed),
        false,
        true,
    )
    .ok()?;
    (n == len).then_some(out)
}

/// Raw-deflates `data` (level 1: a block is small and read often) with `c`.
pub(super) fn deflate(c: &mut miniz_oxide::deflate::core::CompressorOxide, data: &[u8]) -> Vec<u8> {
    use miniz_oxide::deflate::core::{TDEFLFlush, TDEFLStatus, compress};
    c.reset();
    let mut out = vec![0u8; data.len() + data.len() / 8 + 64];
    let (mut pos, mut input) = (0, data);
    loop {
        let (status, read, wrote) = compress(c, input, &mut out[pos..], TDEFLFlush::Finish);
        pos += wrote;
        input = &input[read..];
        match status {
            TDEFLStatus::Done => break,
            TDEFLStatus::Okay if pos == out.len() => out.resize(out.len() * 2, 0),
            TDEFLStatus::Okay => {}
            // Cannot happen with a buffer given; a block left raw is still read.
            _ => return data.to_vec(),
        }
    }
    out.truncate(pos);
    out
}

/// One file's entry as the table holds it.
#[derive(Clone, Copy, Debug)]
pub(super) struct FileEntry {
    pub path: u32,
    pub ident: Ident,
    pub hash: u64,
    pub lang: u8,
    pub status: u8,
    /// Its uses are not all the names it uses ([`super::Uses::partial`]).
    pub uses_partial: bool,
    pub package: u32,
    pub symbols_at: u32,
    pub symbols_len: u32,
    pub count: u32,
    pub uses_at: u32,
}

impl FileEntry {
    pub(super) fn read(b: &[u8]) -> Option<FileEntry> {
        let mut c = Cursor::new(b);
        let path = c.u32()?;
        let (dev, ino, len) = (c.u64()?, c.u64()?, c.u64()?);
        let mtime = (c.u64()? as i64, c.u32()?);
        let ctime = (c.u64()? as i64, c.u32()?);
        let hash = c.u64()?;
        let (lang, status, uses_partial) = (c.byte()?, c.byte()?, c.byte()? == 1);
        c.at += 1;
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
            uses_partial,
            package: c.u32()?,
            symbols_at: c.u32()?,
            symbols_len: c.u32()?,
            count: c.u32()?,
            uses_at: c.u32()?,
        })
    }
}

/// A symbol decoded, with its strings as ids.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct RawSymbol {
    pub name: u32,
    /// Its shape (see [`Layout::kinds`]).
    pub kind: u32,
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

/// Decodes `count` symbols from a file's symbol bytes, given each shape's flags, and where
/// they end (its uses follow); `None` if they are not well formed.
pub(super) fn symbols(bytes: &[u8], count: u32, shapes: &[u8]) -> Option<(Vec<RawSymbol>, usize)> {
    let mut c = Cursor::new(bytes);
    let mut out = Vec::with_capacity(count.min(1 << 20) as usize);
    let (mut prev, mut prev_name) = (0i64, 0i64);
    let id = |v: u64| u32::try_from(v).ok();
    for k in 0..count {
        let kind = id(c.varint()?)?;
        let flags = *shapes.get(kind as usize)?;
        let name = prev_name.checked_add(unzigzag(c.varint()?))?;
        prev_name = name;
        let parent = if flags & HAS_PARENT != 0 {
            Some(k.checked_sub(id(c.varint()?)?)?).filter(|&p| p < k)
        } else {
            None
        };
        if flags & HAS_PARENT != 0 && parent.is_none() {
            return None;
        }
        let computed = flags & (QUALIFIED_IS_NAME | QUALIFIED_UNDER_PARENT) != 0;
        let qualified = if computed {
            None
        } else {
            Some(id(c.varint()?)?)
        };
        let address = if flags & ADDRESS_IS_QUALIFIED != 0 {
            None
        } else {
            Some(id(c.varint()?)?)
        };
        let start = prev.checked_add(unzigzag(c.varint()?))?;
        prev = start;
        let (def, end) = if flags & ONE_LINE != 0 {
            (start, start)
        } else {
            let def = start.checked_add(i64::try_from(c.varint()?).ok()?)?;
            (def, def.checked_add(unzigzag(c.varint()?))?)
        };
        out.push(RawSymbol {
            name: u32::try_from(name).ok()?,
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
    Some((out, c.at))
}

/// One name a file's code uses: its string id, its count of uses, and of those set aside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Use {
    pub id: u32,
    pub uses: u32,
    pub aside: u32,
}

/// The names a file's code uses, from the bytes after its symbols; `None` if not well
/// formed.
pub(super) fn uses(bytes: &[u8]) -> Option<Vec<Use>> {
    let mut c = Cursor::new(bytes);
    let n = c.varint()?;
    for _ in 0..skips(n) {
        c.varint()?;
        c.varint()?;
    }
    let mut out = Vec::with_capacity(n.min(1 << 16) as usize);
    let mut id = 0u32;
    for _ in 0..n {
        let u = next_use(&mut c, id)?;
        id = u.id;
        out.push(u);
    }
    c.done().then_some(out)
}

/// How many entries the skip table of `n` uses has.
fn skips(n: u64) -> u64 {
    n.saturating_sub(1) / USES_SKIP as u64
}

/// The use of string `want` among a file's uses (`Some(None)`: not among them), read from
/// the last skip before it; `None` if not well formed.
pub(super) fn use_of(bytes: &[u8], want: u32) -> Option<Option<Use>> {
    let mut c = Cursor::new(bytes);
    let n = c.varint()?;
    // The last skip whose use before is before `want`: the uses from it on.
    let (mut from, mut id, mut offset) = (0u64, 0u32, 0usize);
    let (mut skip_id, mut skip_at) = (0u64, 0u64);
    let table = skips(n);
    for k in 1..=table {
        skip_id = skip_id.checked_add(c.varint()?)?;
        skip_at = skip_at.checked_add(c.varint()?)?;
        if skip_id < u64::from(want) {
            from = k * USES_SKIP as u64;
            id = u32::try_from(skip_id).ok()?;
            offset = usize::try_from(skip_at).ok()?;
        }
    }
    let mut c = Cursor::new(bytes.get(c.at.checked_add(offset)?..)?);
    for _ in from..n {
        let u = next_use(&mut c, id)?;
        if u.id >= want {
            return Some((u.id == want).then_some(u));
        }
        id = u.id;
    }
    Some(None)
}

/// The use after the one of string `id`.
fn next_use(c: &mut Cursor<'_>, id: u32) -> Option<Use> {
    let v = c.varint()?;
    let id = u64::from(id).checked_add(v >> 1)?;
    let uses = u32::try_from(c.varint()?).ok()?;
    let aside = if v & 1 == 1 {
        u32::try_from(c.varint()?).ok()?
    } else {
        0
    };
    Some(Use {
        id: u32::try_from(id).ok()?,
        uses,
        aside,
    })
}

/// A count of uses as its class (what the repo map weighs by): 1, 2-3, 4-7, 8 or more.
pub(super) fn uses_class(n: u32) -> u8 {
    match n {
        0 | 1 => 0,
        2 | 3 => 1,
        4..=7 => 2,
        _ => 3,
    }
}

/// The count of uses a class stands for (its least).
pub(super) fn class_uses(class: u8) -> u32 {
    1 << class.min(3)
}

/// The postings of the `k`-th string of a block, from the block's postings (`bytes`):
/// (file index, symbol index) pairs.
pub(super) fn postings(bytes: &[u8], k: u32) -> Option<Vec<(u32, u32)>> {
    let mut c = Cursor::new(bytes);
    for _ in 0..k {
        let n = c.varint()?;
        for _ in 0..n.checked_mul(2)? {
            c.varint()?;
        }
    }
    let n = c.varint()?;
    let mut out = Vec::with_capacity(n.min(1 << 16) as usize);
    let mut file = 0u32;
    for _ in 0..n {
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
