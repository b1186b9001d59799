//! Markdown documents as sections: the heading [`Outline`], GitHub-compatible slugs, and
//! [`resolve`], which finds a section by slug, index path, line or fuzzy (Unicode) title —
//! the engine under the doc tools contract's document tools.
//!
//! ```
//! use mapgrep::markdown::{resolve, Outline, Resolution, Tier};
//!
//! let doc = b"# Plan\n\n## Phase B\n\ntext\n\n## 6.2 Phase B \xE9\xAA\x8C\xE8\xAF\x81\xE8\xAE\xA1\xE5\x88\x92\n";
//! let outline = Outline::build(doc);
//! let Resolution::Found(section, Tier::FoldedTitle) = resolve(&outline, "phase b") else {
//!     panic!("not found")
//! };
//! assert_eq!((section.slug.as_str(), section.index_path.as_str()), ("phase-b", "1.1"));
//! assert_eq!((section.line_start, section.line_end), (3, 6));
//! assert_eq!(resolve(&outline, "验证计划").found().unwrap().index_path, "1.2");
//! ```

pub mod doc;
pub mod edit;
pub mod find;
mod headings;
mod line_start;
mod outline;
mod reduce;
pub mod render;
mod resolve;
mod skeleton;
mod slug;
mod slug_table;
#[cfg(test)]
mod tests;

pub use outline::{Outline, Section, content_hash};

use std::sync::Arc;

use crate::error::Error;
use crate::source::Source;
use crate::workspace::Workspace;

/// The largest markdown document an outline is built for (the doc tools refuse larger ones,
/// which stay readable by lines).
pub const MAX_OUTLINE_BYTES: usize = 256 * 1024 * 1024;

/// The heading outline of an opened markdown source, cached in the workspace by file
/// identity. A document over [`MAX_OUTLINE_BYTES`] or holding NUL bytes is refused before a
/// byte is copied (the parse keeps a reduced copy of the document). `Err(Changed)` if a mapped
/// file shrank while it was parsed.
pub fn outline_of(ws: &Workspace, source: &Source) -> Result<Arc<Outline>, Error> {
    let unparsable = |reason: String| Error::Unparsable {
        path: source.path().to_path_buf(),
        reason,
    };
    let len = source.id().len;
    if len > MAX_OUTLINE_BYTES as u64 {
        return Err(unparsable(format!(
            "the document is {len} bytes, over the {MAX_OUTLINE_BYTES} bytes an outline is built for"
        )));
    }
    // No copy: the outline reads the bytes once, into its skeleton, and never panics on any
    // bytes (fuzzed), so a rewrite under the parse can only give a result that is not cached.
    // The NUL check runs only when the outline is built, not on every open of a cached one.
    let nul = std::cell::Cell::new(None);
    let outline = ws.parsed(source, false, |bytes| {
        if let Some(at) = memchr::memchr(0, bytes) {
            nul.set(Some(at));
            return None;
        }
        let outline = Outline::build(bytes);
        let cost = outline.heap_bytes();
        Some((outline, cost))
    })?;
    if let Some(at) = nul.get() {
        return Err(unparsable(format!(
            "it holds NUL bytes (the first at byte {at}), which a markdown document does not"
        )));
    }
    Ok(outline.expect("an outline is always built"))
}
pub use resolve::{Candidate, MAX_SUGGESTIONS, Resolution, Suggestion, Tier, resolve};
pub use slug::{Slugger, fold, slug};
