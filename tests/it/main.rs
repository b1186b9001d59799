//! End-to-end tests of the `mapgrep` binary: the MCP server over stdio (driven by an rmcp
//! client) and the command line. Nothing here calls the engine directly.

mod bad_input;
mod bounded;
mod budgets;
mod cli;
mod cli_combos;
mod cli_rg;
// `mapgrep serve` on a terminal through util-linux's `script` (Linux only).
#[cfg(target_os = "linux")]
mod cli_serve;
mod common;
mod defs_langs_a;
mod doc_read;
mod doc_replace;
mod doc_tools;
mod file_read;
mod file_read_clike;
mod file_read_langs;
mod file_read_langs_b;
mod find_definition;
mod find_definition_langs;
mod find_files;
mod find_references;
// File names with newlines and quotes (not allowed on Windows).
#[cfg(unix)]
mod forged_names;
mod grep_tool;
mod hints_agree;
mod hostile;
mod http;
mod index_damage;
mod index_restart;
mod index_upkeep;
mod load;
mod protocol;
mod read_files;
mod read_text_file;
mod rg;
mod sandbox;
mod sandbox_table;
mod snapshots;
mod symbols;
mod tools;
mod views;
