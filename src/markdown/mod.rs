//! Markdown documents as sections: the heading [`Outline`], GitHub-compatible slugs, and
//! [`resolve`], which finds a section by slug, index path, line or fuzzy (Unicode) title —
//! the engine under spec/004's document tools.
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
mod outline;
pub mod render;
mod resolve;
mod skeleton;
mod slug;
mod slug_table;
#[cfg(test)]
mod tests;

pub use outline::{Outline, Section, content_hash};
pub use resolve::{Candidate, MAX_SUGGESTIONS, Resolution, Suggestion, Tier, fold, resolve};
pub use slug::{Slugger, slug};
