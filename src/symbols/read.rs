//! One symbol side file read in place: its files by path, its names' definitions, a file's
//! symbols decoded; every byte checked against the side file's page sums before it is
//! trusted (a damaged part reads as absent, and the side file is marked damaged).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::fasthash::FastMap;
use crate::index::SideFile;

use super::format::{self, BLOCK, Block, FILE_ENTRY, FileEntry, Layout, NONE, RawSymbol};

/// One side file and its layout.
pub(super) struct Part {
    pub(super) side: Arc<SideFile>,
    layout: Layout,
    /// Blocks of strings decoded by earlier queries (a grep's enclosing symbols read the
    /// same few hundred blocks call after call), within [`DECODED_BUDGET`] for all parts.
    decoded: Mutex<Decoded>,
}

/// The decoded blocks of one part, and their bytes.
#[derive(Default)]
struct Decoded {
    blocks: FastMap<u32, Arc<Block>>,
    bytes: usize,
}

/// Bytes of decoded strings kept for later queries, all parts together.
const DECODED_BUDGET: usize = 24 << 20;

/// Bytes of decoded strings kept now, all parts together.
static DECODED: AtomicUsize = AtomicUsize::new(0);

impl Drop for Part {
    fn drop(&mut self) {
        let d = self.decoded.get_mut().map(|d| d.bytes).unwrap_or(0);
        DECODED.fetch_sub(d, Ordering::Relaxed);
    }
}

impl Part {
    /// The side file's records, if its header is one of this version and sound.
    pub(super) fn open(side: Arc<SideFile>) -> Option<Part> {
        let payload = side.payload();
        let head = payload.len().min(4096);
        if !side.checked(0..head) {
            return None;
        }
        let layout = Layout::read(payload)?;
        Some(Part {
            side,
            layout,
            decoded: Mutex::default(),
        })
    }

    /// `len` bytes at `at` of the payload, checked.
    fn bytes(&self, at: usize, len: usize) -> Option<&[u8]> {
        let end = at.checked_add(len)?;
        let b = self.side.payload().get(at..end)?;
        self.side.checked(at..end).then_some(b)
    }

    pub(super) fn files(&self) -> u32 {
        self.layout.files
    }

    pub(super) fn kind(&self, k: u32) -> &'static str {
        self.layout
            .kinds
            .get(k as usize)
            .copied()
            .unwrap_or("symbol")
    }

    /// Block `b` of the strings: its bytes.
    fn block(&self, b: u32) -> Option<&[u8]> {
        let at = self.layout.string_blocks + b as usize * 4;
        let (start, end) = format::span(self.bytes(at, 8)?)?;
        let len = end.checked_sub(start)? as usize;
        self.bytes(self.layout.string_bytes + start as usize, len)
    }

    /// Every string of block `b`.
    pub(super) fn block_all(&self, b: u32) -> Option<Block> {
        let n = self
            .layout
            .strings
            .checked_sub(b.checked_mul(BLOCK)?)?
            .min(BLOCK);
        if n == 0 {
            return None;
        }
        format::block_decode(self.block(b)?, n)
    }

    /// Block `b` decoded, from the blocks earlier queries decoded or kept for later ones.
    fn block_kept(&self, b: u32) -> Option<Arc<Block>> {
        if let Some(k) = self.decoded.lock().expect("decoded").blocks.get(&b) {
            return Some(Arc::clone(k));
        }
        let block = Arc::new(self.block_all(b)?);
        let size = block.size() + 64;
        let mut d = self.decoded.lock().expect("decoded");
        if DECODED.load(Ordering::Relaxed) + size > DECODED_BUDGET {
            // Full: this part's blocks go (the parts in use fill it again).
            DECODED.fetch_sub(d.bytes, Ordering::Relaxed);
            d.blocks.clear();
            d.bytes = 0;
        }
        if size <= DECODED_BUDGET / 8 && d.blocks.insert(b, Arc::clone(&block)).is_none() {
            d.bytes += size;
            DECODED.fetch_add(size, Ordering::Relaxed);
        }
        Some(block)
    }

    /// How many strings the part holds (ids `0..strings()`).
    pub(super) fn strings(&self) -> u32 {
        self.layout.strings
    }

    /// String `id` (the queries read through a [`BlockCache`]).
    #[cfg(test)]
    pub(super) fn string(&self, id: u32) -> Option<String> {
        if id >= self.layout.strings {
            return None;
        }
        let mut all = format::block_strings(self.block(id / BLOCK)?, id % BLOCK)?;
        String::from_utf8(all.pop()?).ok()
    }

    /// The id of the string `s`: `Some(None)` when the side file does not hold it, `None`
    /// when the bytes read are damaged.
    pub(super) fn find_string(&self, s: &str) -> Option<Option<u32>> {
        let blocks = self.layout.strings.div_ceil(BLOCK);
        // The last block whose first string is at most `s`.
        let (mut lo, mut hi) = (0u32, blocks);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let first = format::block_strings(self.block(mid)?, 0)?.pop()?;
            if first.as_slice() <= s.as_bytes() {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let Some(b) = lo.checked_sub(1) else {
            return Some(None);
        };
        let upto = (self.layout.strings - b * BLOCK).min(BLOCK) - 1;
        let all = format::block_strings(self.block(b)?, upto)?;
        let k = all.iter().position(|x| x.as_slice() == s.as_bytes());
        Some(k.map(|k| b * BLOCK + k as u32))
    }

    /// File `k`'s entry.
    pub(super) fn file(&self, k: u32) -> Option<FileEntry> {
        if k >= self.layout.files {
            return None;
        }
        let at = self.layout.file_table + k as usize * FILE_ENTRY;
        FileEntry::read(self.bytes(at, FILE_ENTRY)?)
    }

    /// The index of the file recorded at `path` (by binary search; the records keep a map).
    #[cfg(test)]
    pub(super) fn find_file(&self, path: &str) -> Option<u32> {
        let (mut lo, mut hi) = (0u32, self.layout.files);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let p = self.string(self.file(mid)?.path)?;
            match p.as_str().cmp(path) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// The (file, symbol) pairs of the definitions named `name`; `None` when the bytes read
    /// are damaged.
    pub(super) fn named(&self, name: &str) -> Option<Vec<(u32, u32)>> {
        let Some(id) = self.find_string(name)? else {
            return Some(Vec::new());
        };
        let at = self.layout.postings_index + (id / BLOCK) as usize * 4;
        let (start, end) = format::span(self.bytes(at, 8)?)?;
        let len = end.checked_sub(start)? as usize;
        format::postings(
            self.bytes(self.layout.postings + start as usize, len)?,
            id % BLOCK,
        )
    }

    /// The bytes of a file's symbols and uses.
    fn body(&self, f: &FileEntry) -> Option<&[u8]> {
        let at = self.layout.symbol_bytes + f.symbols_at as usize;
        if at + f.symbols_len as usize > self.layout.postings_index {
            return None;
        }
        self.bytes(at, f.symbols_len as usize)
    }

    /// The symbols of a file's entry, decoded.
    pub(super) fn symbols(&self, f: &FileEntry) -> Option<Vec<RawSymbol>> {
        format::symbols(self.body(f)?, f.count, &self.layout.flags).map(|(s, _)| s)
    }

    /// The names a file's code uses and does not define, in string order.
    pub(super) fn uses(&self, f: &FileEntry) -> Option<Vec<format::Use>> {
        format::uses(self.body(f)?.get(f.uses_at as usize..)?)
    }

    /// The use of string `id` in a file's uses (`Some(None)`: not among them).
    pub(super) fn use_of(&self, f: &FileEntry, id: u32) -> Option<Option<format::Use>> {
        format::use_of(self.body(f)?.get(f.uses_at as usize..)?, id)
    }

    /// The qualified name of symbol `k` of `syms`: its own, or its parent's and its name.
    #[cfg(test)]
    pub(super) fn qualified(&self, syms: &[RawSymbol], k: usize) -> Option<String> {
        qualified_by(syms, k, &mut |id| self.string(id))
    }
}

/// The strings of a part read through their blocks, each block decoded once (a block is
/// inflated to read any string of it but its first).
pub(super) struct BlockCache<'p> {
    pub(super) part: &'p Part,
    blocks: FastMap<u32, Option<Arc<Block>>>,
    /// Whether the blocks come from (and go to) the part's blocks kept across queries.
    kept: bool,
}

impl<'p> BlockCache<'p> {
    /// A cache of its own (a merge or a map reads every block once).
    pub(super) fn new(part: &'p Part) -> BlockCache<'p> {
        BlockCache {
            part,
            blocks: FastMap::default(),
            kept: false,
        }
    }

    /// A cache that reads through the part's blocks kept across queries (a lookup, a
    /// grep's enclosing symbols).
    pub(super) fn kept(part: &'p Part) -> BlockCache<'p> {
        BlockCache {
            kept: true,
            ..BlockCache::new(part)
        }
    }

    /// String `id` (`NONE`: empty).
    pub(super) fn get(&mut self, id: u32) -> Option<String> {
        if id == NONE {
            return Some(String::new());
        }
        let (part, kept) = (self.part, self.kept);
        let all = self
            .blocks
            .entry(id / BLOCK)
            .or_insert_with(|| {
                if kept {
                    part.block_kept(id / BLOCK)
                } else {
                    part.block_all(id / BLOCK).map(Arc::new)
                }
            })
            .as_ref()?;
        String::from_utf8(all.get(id % BLOCK)?.to_vec()).ok()
    }

    /// Symbol `k`'s qualified name (as [`Part::qualified`]).
    pub(super) fn qualified(&mut self, syms: &[RawSymbol], k: usize) -> Option<String> {
        qualified_by(syms, k, &mut |id| self.get(id))
    }
}

/// Symbol `k`'s qualified name, its strings read by `get`: stored, or its parent's and its
/// own name joined by `.`, or its name.
pub(super) fn qualified_by(
    syms: &[RawSymbol],
    k: usize,
    get: &mut dyn FnMut(u32) -> Option<String>,
) -> Option<String> {
    let s = syms.get(k)?;
    if let Some(q) = s.qualified {
        return get(q);
    }
    let name = get(s.name)?;
    match s.parent {
        Some(p) if s.under_parent && (p as usize) < k => {
            Some(format!("{}.{name}", qualified_by(syms, p as usize, get)?))
        }
        _ => Some(name),
    }
}
