//! Writing a side file's payload (the layout is in [`super::format`]): every string the
//! records use, sorted and numbered first, so that the symbols are written once with their
//! final ids; shapes numbered by use, so that most symbols' shape takes one byte.

use super::FileRecord;
use super::SymbolRecord;
use super::format::{
    ADDRESS_IS_QUALIFIED, BLOCK, DECLARATION, FILE_ENTRY, HAS_PARENT, HEADER, MAGIC, NONE,
    ONE_LINE, QUALIFIED_IS_NAME, QUALIFIED_UNDER_PARENT, varint, zigzag,
};

type Fast<K, V> = crate::fasthash::FastMap<K, V>;

/// The flags of `s` (the `k`-th symbol of `syms`).
fn flags_of(syms: &[SymbolRecord], s: &SymbolRecord) -> u8 {
    let mut flags = if s.declaration { DECLARATION } else { 0 };
    let parent_q = s
        .parent
        .and_then(|p| syms.get(p as usize))
        .map(|p| &p.qualified);
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
    if s.start_line == s.def_line && s.def_line == s.end_line {
        flags |= ONE_LINE;
    }
    flags
}

/// The strings of a side file: every one `files` use, sorted and without repeats (a
/// string's id is its rank), and the id of each use in the order [`encode`] writes them
/// (per file: its path, its package if any, then per symbol its name, its qualified name
/// and address where stored, then the names it uses); and each symbol's flags. Repeats are dropped by hash before
/// the sort (sorting every use compared long shared prefixes millions of times), and each
/// use is hashed once.
struct Strings<'f> {
    list: Vec<&'f str>,
    uses: Vec<u32>,
    flags: Vec<u8>,
}

fn strings_of(files: &[FileRecord]) -> Strings<'_> {
    let mut first: Fast<&str, u32> = Fast::default();
    let mut list: Vec<&str> = Vec::new();
    let mut uses: Vec<u32> = Vec::new();
    let mut flags_all = Vec::new();
    let mut add = |s| {
        let next = list.len() as u32;
        let id = *first.entry(s).or_insert(next);
        if id == next {
            list.push(s);
        }
        uses.push(id);
    };
    for f in files {
        add(f.path.as_str());
        if !f.package.is_empty() {
            add(f.package.as_str());
        }
        for s in &f.symbols {
            add(s.name.as_str());
            let flags = flags_of(&f.symbols, s);
            flags_all.push(flags);
            if flags & (QUALIFIED_IS_NAME | QUALIFIED_UNDER_PARENT) == 0 {
                add(s.qualified.as_str());
            }
            if flags & ADDRESS_IS_QUALIFIED == 0 {
                add(s.address.as_str());
            }
        }
        for (name, _) in f.uses.iter() {
            add(name);
        }
    }
    let mut order: Vec<u32> = (0..list.len() as u32).collect();
    order.sort_unstable_by_key(|&i| list[i as usize]);
    let mut rank = vec![0u32; list.len()];
    for (r, &i) in order.iter().enumerate() {
        rank[i as usize] = r as u32;
    }
    for u in &mut uses {
        *u = rank[*u as usize];
    }
    let list = order.into_iter().map(|i| list[i as usize]).collect();
    Strings {
        list,
        uses,
        flags: flags_all,
    }
}

/// A symbol's shape: its kind (by the address of its text: kinds are static names, and the
/// same text at two addresses only makes two shapes of one meaning) and flags.
type ShapeKey = (usize, u8);

/// The shapes of `files`' symbols (each symbol's flags in `all_flags`), most used first, and
/// each one's number.
fn shapes_of<'f>(
    files: &'f [FileRecord],
    all_flags: &[u8],
) -> (Vec<(&'f str, u8)>, Fast<ShapeKey, u32>) {
    let mut counts: Fast<ShapeKey, (usize, &'static str)> = Fast::default();
    let mut flags_at = all_flags.iter();
    for f in files {
        for s in &f.symbols {
            let flags = *flags_at.next().expect("one a symbol");
            let k = (s.kind.as_ptr() as usize, flags);
            counts.entry(k).or_insert((0, s.kind)).0 += 1;
        }
    }
    let mut shapes: Vec<((&str, u8), usize, ShapeKey)> = counts
        .into_iter()
        .map(|(k, (n, kind))| ((kind, k.1), n, k))
        .collect();
    shapes.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)).then(a.2.cmp(&b.2)));
    let ids = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| (s.2, i as u32))
        .collect();
    (shapes.into_iter().map(|s| s.0).collect(), ids)
}

/// The payload of a side file recording `files` (sorted by path, one record a path).
pub(super) fn encode(files: &[FileRecord]) -> Vec<u8> {
    let Strings {
        list,
        uses: ids,
        flags: all_flags,
    } = strings_of(files);
    let key = |kind: &'static str, flags: u8| (kind.as_ptr() as usize, flags);
    let (shapes, shape_id) = shapes_of(files, &all_flags);
    let mut blob: Vec<u8> = Vec::new();
    let mut table: Vec<[u32; 6]> = Vec::with_capacity(files.len());
    // (name, file, symbol), in file and symbol order.
    let mut postings: Vec<(u32, u32, u32)> = Vec::with_capacity(all_flags.len());
    let mut flags_at = all_flags.iter();
    let mut id_at = ids.iter().copied();
    let mut next_id = || id_at.next().expect("one id a use");
    for (fi, f) in files.iter().enumerate() {
        let path = next_id();
        let package = if f.package.is_empty() {
            NONE
        } else {
            next_id()
        };
        let start = blob.len() as u32;
        let (mut prev, mut prev_name) = (0i64, 0i64);
        let mut last_shape: Option<(ShapeKey, u32)> = None;
        for (si, s) in f.symbols.iter().enumerate() {
            let flags = *flags_at.next().expect("one a symbol");
            let name = next_id();
            postings.push((name, fi as u32, si as u32));
            let k = key(s.kind, flags);
            let shape = match last_shape {
                Some((lk, id)) if lk == k => id,
                _ => shape_id[&k],
            };
            last_shape = Some((k, shape));
            varint(&mut blob, u64::from(shape));
            varint(&mut blob, zigzag(i64::from(name) - prev_name));
            prev_name = i64::from(name);
            if let Some(p) = s.parent {
                varint(&mut blob, u64::from(si as u32 - p));
            }
            if flags & (QUALIFIED_IS_NAME | QUALIFIED_UNDER_PARENT) == 0 {
                varint(&mut blob, u64::from(next_id()));
            }
            if flags & ADDRESS_IS_QUALIFIED == 0 {
                varint(&mut blob, u64::from(next_id()));
            }
            varint(&mut blob, zigzag(i64::from(s.start_line) - prev));
            prev = i64::from(s.start_line);
            if flags & ONE_LINE == 0 {
                varint(
                    &mut blob,
                    u64::from(s.def_line.saturating_sub(s.start_line)),
                );
                varint(
                    &mut blob,
                    zigzag(i64::from(s.end_line) - i64::from(s.def_line)),
                );
            }
        }
        let uses_at = blob.len() as u32 - start;
        write_uses(&mut blob, &f.uses, &mut next_id);
        table.push([
            path,
            package,
            start,
            blob.len() as u32 - start,
            f.symbols.len() as u32,
            uses_at,
        ]);
    }
    // By name, each name's in file and symbol order (the triples are distinct).
    postings.sort_unstable();
    write_payload(files, &list, &shapes, &table, &blob, &postings)
}

/// A file's uses after its symbols: their count; past [`super::format::USES_SKIP`] uses, a skip
/// table (every that many uses, the id of the use before and where the use starts, both as
/// deltas) so that one name's use is found without reading them all; then each use: its id
/// as a delta from the one before (ids are ranks of the sorted strings, and the uses are
/// sorted), its count, and its count set aside when there is one.
fn write_uses(blob: &mut Vec<u8>, uses: &super::Uses, next_id: &mut dyn FnMut() -> u32) {
    varint(blob, uses.len() as u64);
    let mut body = Vec::new();
    let mut skips = Vec::new();
    let mut last = 0u32;
    for (k, (_, n, aside)) in uses.iter_aside().enumerate() {
        if k > 0 && k % super::format::USES_SKIP == 0 {
            skips.push((last, body.len()));
        }
        let id = next_id();
        debug_assert!(id >= last);
        varint(
            &mut body,
            (u64::from(id - last) << 1) | u64::from(aside > 0),
        );
        varint(&mut body, u64::from(n));
        if aside > 0 {
            varint(&mut body, u64::from(aside));
        }
        last = id;
    }
    let (mut id, mut at) = (0u32, 0usize);
    for (before, start) in skips {
        varint(blob, u64::from(before - id));
        varint(blob, (start - at) as u64);
        (id, at) = (before, start);
    }
    blob.extend_from_slice(&body);
}

fn write_payload(
    files: &[FileRecord],
    list: &[&str],
    shapes: &[(&str, u8)],
    table: &[[u32; 6]],
    blob: &[u8],
    postings: &[(u32, u32, u32)],
) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + blob.len() * 2);
    out.extend_from_slice(MAGIC);
    for n in [list.len(), files.len(), shapes.len()] {
        out.extend_from_slice(&(n as u32).to_le_bytes());
    }
    let offsets_at = out.len();
    out.resize(out.len() + 6 * 8, 0);
    for (kind, flags) in shapes {
        out.push(kind.len() as u8);
        out.extend_from_slice(kind.as_bytes());
        out.push(*flags);
    }
    let mut offsets = [0u64; 6];
    let (blocks, coded) = front_coded(list);
    offsets[0] = out.len() as u64;
    for b in &blocks {
        out.extend_from_slice(&b.to_le_bytes());
    }
    offsets[1] = out.len() as u64;
    out.extend_from_slice(&coded);
    offsets[2] = out.len() as u64;
    write_files(&mut out, files, table);
    offsets[3] = out.len() as u64;
    out.extend_from_slice(blob);
    offsets[4] = out.len() as u64;
    let coded = write_postings(&mut out, list.len(), postings);
    offsets[5] = out.len() as u64;
    out.extend_from_slice(&coded);
    for (i, o) in offsets.iter().enumerate() {
        out[offsets_at + i * 8..offsets_at + i * 8 + 8].copy_from_slice(&o.to_le_bytes());
    }
    out
}

/// The strings, front-coded in blocks of [`BLOCK`] (all but each block's first deflated):
/// each block's offset (and the end), and the coded bytes.
fn front_coded(list: &[&str]) -> (Vec<u32>, Vec<u8>) {
    let flags = miniz_oxide::deflate::core::create_comp_flags_from_zip_params(1, 0, 0);
    let mut packer = Box::new(miniz_oxide::deflate::core::CompressorOxide::new(flags));
    let mut coded = Vec::new();
    let mut blocks = Vec::new();
    let mut rest = Vec::new();
    for block in list.chunks(BLOCK as usize) {
        blocks.push(coded.len() as u32);
        let head = block[0].as_bytes();
        varint(&mut coded, head.len() as u64);
        coded.extend_from_slice(head);
        if block.len() == 1 {
            continue;
        }
        rest.clear();
        let mut prev = head;
        for s in &block[1..] {
            let s = s.as_bytes();
            let shared = s.iter().zip(prev).take_while(|(a, b)| a == b).count();
            varint(&mut rest, shared as u64);
            varint(&mut rest, (s.len() - shared) as u64);
            rest.extend_from_slice(&s[shared..]);
            prev = s;
        }
        let packed = super::format::deflate(&mut packer, &rest);
        let stored: &[u8] = if packed.len() < rest.len() {
            &packed
        } else {
            &rest
        };
        varint(&mut coded, rest.len() as u64);
        varint(&mut coded, stored.len() as u64);
        coded.extend_from_slice(stored);
    }
    blocks.push(coded.len() as u32);
    (blocks, coded)
}

/// The file table: one [`FILE_ENTRY`] per file.
fn write_files(out: &mut Vec<u8>, files: &[FileRecord], table: &[[u32; 6]]) {
    for (f, &[path, package, start, len, count, uses_at]) in files.iter().zip(table) {
        let at = out.len();
        out.extend_from_slice(&path.to_le_bytes());
        let id = &f.ident;
        for v in [id.dev, id.ino, id.len] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for (s, ns) in [id.mtime, id.ctime] {
            out.extend_from_slice(&s.to_le_bytes());
            out.extend_from_slice(&ns.to_le_bytes());
        }
        out.extend_from_slice(&f.hash.to_le_bytes());
        out.extend_from_slice(&[f.lang, f.status, u8::from(f.uses.partial), 0]);
        for v in [package, start, len, count, uses_at] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        debug_assert_eq!(out.len() - at, FILE_ENTRY);
    }
}

/// Each block's offset into the postings (and the end) into `out`; returns the postings:
/// per string of the `strings`, its count and (file delta, symbol) varint pairs (`by_name`:
/// (name, file, symbol) sorted by name).
fn write_postings(out: &mut Vec<u8>, strings: usize, by_name: &[(u32, u32, u32)]) -> Vec<u8> {
    let mut coded = Vec::new();
    let mut rest = by_name;
    for i in 0..strings as u32 {
        if i.is_multiple_of(BLOCK) {
            out.extend_from_slice(&(coded.len() as u32).to_le_bytes());
        }
        let n = rest.iter().take_while(|p| p.0 == i).count();
        varint(&mut coded, n as u64);
        let mut last = 0u32;
        for &(_, f, s) in &rest[..n] {
            varint(&mut coded, u64::from(f - last));
            varint(&mut coded, u64::from(s));
            last = f;
        }
        rest = &rest[n..];
    }
    out.extend_from_slice(&(coded.len() as u32).to_le_bytes());
    coded
}
