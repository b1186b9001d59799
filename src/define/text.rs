//! What a lookup reads of a site's file beside its lines: the signature (the definition's
//! first line, joined up to the line that names it) and the code, for sites the records
//! gave or a lookup asked code of.

use crate::workspace::Workspace;

use super::Site;

/// Sites whose signature (and code, when asked) a lookup reads, unless asked for all.
pub const MAX_SIGNED: usize = 256;

/// Reads the signature (and, with `with_code`, the code) of each of `sites` that lacks it
/// (those from the records), a file at a time.
pub(super) fn sign(ws: &Workspace, sites: &mut [Site], with_code: bool) {
    for group in sites.chunk_by_mut(|a, b| a.path == b.path) {
        if group
            .iter()
            .all(|s| !s.signature.is_empty() || s.code.is_some())
        {
            continue;
        }
        let Ok(f) = ws.open(&group[0].path) else {
            continue;
        };
        let bytes = f.source.bytes();
        let line = |n: u32| -> &[u8] {
            let r = f.index.line_range(bytes, n as u64, n as u64);
            let l = &bytes[r];
            l.strip_suffix(b"\n").unwrap_or(l)
        };
        for (k, site) in group.iter_mut().enumerate() {
            if site.signature.is_empty() {
                site.signature = signature(&site.name, site.start_line, site.end_line, line);
            }
            if with_code && site.code.is_none() && k < MAX_CODE_SITES {
                let r = f
                    .index
                    .line_range(bytes, site.code_start() as u64, site.end_line as u64);
                let r = r.start..r.end.min(r.start + MAX_CODE_BYTES);
                site.code = Some(String::from_utf8_lossy(&bytes[r]).into_owned());
            }
        }
    }
}

/// Sites of one file whose code is read (an answer shows far fewer), and the bytes of code
/// read per site (an answer's budget is smaller).
pub(super) const MAX_CODE_SITES: usize = 64;
pub(super) const MAX_CODE_BYTES: usize = 1 << 20;

/// The code of a site, read again (for the one site of a lookup that asked for none).
pub(super) fn code_of(ws: &Workspace, site: &Site) -> Result<String, crate::error::Error> {
    let f = ws.open(&site.path)?;
    let bytes = f.source.bytes();
    let r = f
        .index
        .line_range(bytes, site.code_start() as u64, site.end_line as u64);
    let r = r.start..r.end.min(r.start + MAX_CODE_BYTES);
    let text = String::from_utf8_lossy(&bytes[r]).into_owned();
    f.source.check_intact()?;
    Ok(text)
}

/// Longest signature kept, in characters.
const MAX_SIGNATURE: usize = 200;

/// The definition's first line, joined with the next ones up to the one that names it (a C
/// return type on a line of its own), decorator and attribute lines left out; whitespace
/// collapsed, cut at [`MAX_SIGNATURE`] characters.
pub(super) fn signature<'b>(
    name: &str,
    first: u32,
    last: u32,
    line: impl Fn(u32) -> &'b [u8],
) -> String {
    let mut parts: Vec<String> = Vec::new();
    let stop = last.min(first + 4);
    for n in first..=stop {
        // A line of a megabyte costs its first few hundred bytes, not a copy per site.
        let bytes = line(n);
        let bytes = &bytes[..bytes.len().min(4 * MAX_SIGNATURE)];
        let text = String::from_utf8_lossy(bytes).trim().to_string();
        let decorator = text.starts_with('@') || text.starts_with("#[");
        let named = text.contains(name);
        if (!decorator || named) && !text.is_empty() {
            parts.push(text);
        }
        if named {
            break;
        }
    }
    if !parts.iter().any(|p| p.contains(name)) {
        // The name is further down (or not on a line of its own): the first line alone.
        parts.truncate(1);
    }
    let joined = parts
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    match joined.char_indices().nth(MAX_SIGNATURE) {
        Some((at, _)) => format!("{}…", &joined[..at]),
        None => joined,
    }
}
