//! mapgrep: a memory-mapped, high-throughput grep/read engine for AI agents.
//!
//! The engine (this library) opens files as [`Source`]s (mapped or read), indexes their lines
//! with [`LineIndex`], and answers section reads ([`read`]) inside the allowed [`Roots`] of a
//! long-lived [`Workspace`]. Front-ends live beside it: the MCP server ([`mcp`]) and the
//! command line ([`cli`]); they parse parameters, call one engine function and render. They
//! are the `server` and `cli` features (on by default); without them the crate is the engine
//! alone.
//!
//! Every operating-system call lives in one module, [`platform`] (Linux's fast paths, and a
//! portable implementation on cap-std for every other system), and so does all `unsafe`
//! code (the compiler holds the rest of the crate to it; `scripts/check_platform.py` holds
//! it to the rest).

#![deny(unsafe_code)]

pub mod annotate;
pub mod cache;
#[cfg(test)]
mod changing_files_tests;
#[cfg(feature = "cli")]
pub mod cli;
pub mod code;
pub mod define;
pub mod error;
pub mod fasthash;
pub mod grep;
pub mod index;
pub mod lines;
pub mod markdown;
pub mod matcher;
#[cfg(feature = "server")]
pub mod mcp;
pub mod platform;
pub mod quote;
pub mod read;
pub mod refs;
pub mod repomap;
pub mod roots;
pub mod source;
pub mod symbols;
pub mod words;
pub mod workspace;

pub use error::{Error, Result};
pub use lines::LineIndex;
pub use read::{Excerpt, ReadRequest};
pub use roots::Roots;
pub use source::Source;
pub use workspace::{Workspace, WorkspaceBuilder};
