//! Shared helpers: a temporary root with fixtures, the `mapgrep serve` child process driven by
//! an rmcp client, and parsers for the tools' text output.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{ErrorData, RoleClient, ServiceError, ServiceExt};
use serde_json::Value;

/// Every tool call must answer within this time (a FIFO or a device must never block it).
pub const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// The `mapgrep` binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_mapgrep");

/// A temporary directory `base/` holding the server root `base/repo/`; files written with
/// [`Fixture::write_outside`] land next to the root, outside it.
pub struct Fixture {
    _dir: tempfile::TempDir,
    base: PathBuf,
    pub root: PathBuf,
}

impl Fixture {
    pub fn new() -> Fixture {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = dir.path().canonicalize().expect("canonical tempdir");
        let root = base.join("repo");
        std::fs::create_dir_all(&root).expect("create root");
        Fixture {
            _dir: dir,
            base,
            root,
        }
    }

    /// The directory that contains the root (outside the root).
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// Writes `rel` (relative to the root), creating parent directories; returns its path.
    pub fn write(&self, rel: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        write_file(&self.root.join(rel), contents.as_ref())
    }

    /// Writes `rel` relative to the base directory, i.e. outside the root.
    pub fn write_outside(&self, rel: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        write_file(&self.base.join(rel), contents.as_ref())
    }

    /// The absolute path of `rel` inside the root, as a string.
    pub fn abs(&self, rel: &str) -> String {
        self.root
            .join(rel)
            .to_str()
            .expect("utf-8 path")
            .to_string()
    }

    /// Starts `mapgrep serve ROOT`.
    pub async fn serve(&self) -> Server {
        Server::start(&[self.root.as_path()], &[]).await
    }

    /// Starts `mapgrep serve EXTRA... ROOT`.
    pub async fn serve_with(&self, extra: &[&str]) -> Server {
        Server::start(&[self.root.as_path()], extra).await
    }
}

fn write_file(path: &Path, contents: &[u8]) -> PathBuf {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create parent");
    }
    std::fs::write(path, contents).expect("write fixture");
    path.to_path_buf()
}

/// A running `mapgrep serve` child with an initialized MCP client session.
pub struct Server {
    client: RunningService<RoleClient, ()>,
    pid: Option<u32>,
}

/// The text of a `read_files` answer and whether the tool flagged it as an error.
#[derive(Debug)]
pub struct ToolText {
    pub text: String,
    pub is_error: bool,
}

impl Server {
    pub async fn start(roots: &[&Path], extra: &[&str]) -> Server {
        Server::start_env(roots, extra, &[]).await
    }

    /// [`Server::start`] with extra environment variables.
    pub async fn start_env(roots: &[&Path], extra: &[&str], env: &[(&str, &Path)]) -> Server {
        let cmd = tokio::process::Command::new(BIN).configure(|cmd| {
            cmd.arg("serve").args(extra).args(roots);
            for (k, v) in env {
                cmd.env(k, v);
            }
        });
        let (transport, _stderr) = TokioChildProcess::builder(cmd)
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn mapgrep serve");
        let pid = transport.id();
        let client = tokio::time::timeout(CALL_TIMEOUT, ().serve(transport))
            .await
            .expect("MCP initialization timed out")
            .expect("MCP initialization failed");
        Server { client, pid }
    }

    /// The server process's id.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    pub fn client(&self) -> &RunningService<RoleClient, ()> {
        &self.client
    }

    /// The `instructions` the server sent at initialization.
    pub fn instructions(&self) -> Option<String> {
        self.client.peer_info().and_then(|i| i.instructions.clone())
    }

    /// Calls `tool` with `args` (a JSON object). A JSON-RPC error is returned as `Err`; a
    /// transport failure or a call slower than [`CALL_TIMEOUT`] fails the test.
    pub async fn call(&self, tool: &'static str, args: Value) -> Result<CallToolResult, ErrorData> {
        let args = args
            .as_object()
            .expect("arguments are a JSON object")
            .clone();
        let params = CallToolRequestParams::new(tool).with_arguments(args);
        let answer = tokio::time::timeout(CALL_TIMEOUT, self.client.call_tool(params))
            .await
            .unwrap_or_else(|_| panic!("{tool} did not answer within {CALL_TIMEOUT:?}"));
        match answer {
            Ok(result) => Ok(result),
            Err(ServiceError::McpError(e)) => Err(e),
            Err(e) => panic!("{tool}: transport/service failure: {e}"),
        }
    }

    /// Calls `read_files` with `args` (`{"files": [...], ...}`); a JSON-RPC error fails.
    pub async fn read_files(&self, args: Value) -> ToolText {
        let result = self
            .call("read_files", args)
            .await
            .unwrap_or_else(|e| panic!("read_files returned a JSON-RPC error: {e:?}"));
        ToolText {
            text: text_of(&result),
            is_error: result.is_error == Some(true),
        }
    }

    /// Calls `read_files` with a single request entry.
    pub async fn read_one(&self, entry: Value) -> ToolText {
        self.read_files(serde_json::json!({ "files": [entry] }))
            .await
    }

    /// Calls `read_text_file` with `args`.
    pub async fn read_text_file(&self, args: Value) -> Result<CallToolResult, ErrorData> {
        self.call("read_text_file", args).await
    }

    /// Closes the session and waits for the child to go.
    pub async fn shutdown(self) {
        let _ = tokio::time::timeout(CALL_TIMEOUT, self.client.cancel()).await;
    }
}

/// The text blocks of a tool result, joined with newlines.
pub fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The expected `read_files` block of a successful read.
pub fn block(path: &str, lines: &str, notes: &[&str], content: &str) -> String {
    let mut s = format!("File: {path}\nLines: {lines}\n");
    for n in notes {
        s.push_str(n);
        s.push('\n');
    }
    s.push_str("---\n");
    s.push_str(content);
    s.push_str("---\n");
    s
}

/// An error in the Error/Problem/Fix layout that is the whole text: `Error: short\n\nYou provided: ...\n
/// Problem: ...\nFix: ...` (the tools whose errors have no `File:` line, where
/// [`parse_error_block`] does not apply).
#[derive(Debug)]
pub struct Layout {
    pub short: String,
    pub provided: String,
    pub problem: String,
    pub fix: String,
}

pub fn layout(text: &str) -> Layout {
    let rest = text
        .strip_prefix("Error: ")
        .unwrap_or_else(|| panic!("an error starts with `Error: `:\n{text}"));
    let (short, rest) = rest.split_once("\n\nYou provided: ").unwrap_or_else(|| {
        panic!("a blank line and `You provided:` follow the Error line:\n{text}")
    });
    let (provided, rest) = rest
        .split_once("\nProblem: ")
        .unwrap_or_else(|| panic!("`Problem:` follows `You provided:`:\n{text}"));
    let (problem, fix) = rest
        .split_once("\nFix: ")
        .unwrap_or_else(|| panic!("`Fix:` follows `Problem:`:\n{text}"));
    assert!(!short.contains('\n'), "one-line short message:\n{text}");
    assert!(!provided.contains('\n'), "one-line `You provided`:\n{text}");
    assert!(!fix.trim().is_empty(), "a Fix is given:\n{text}");
    Layout {
        short: short.into(),
        provided: provided.into(),
        problem: problem.into(),
        fix: fix.into(),
    }
}

/// An error in the Error/Problem/Fix layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayoutError {
    pub short: String,
    pub provided: String,
    pub problem: String,
    pub fix: String,
    pub tip: Option<String>,
}

/// Parses a `read_files` error block (`File: ...\nError: ...\n\nYou provided: ...\n...---\n`),
/// asserting the Error/Problem/Fix layout line by line.
pub fn parse_error_block(text: &str) -> LayoutError {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("Error: "))
        .unwrap_or_else(|| panic!("no `Error:` line in:\n{text}"));
    assert!(
        at >= 1 && lines[at - 1].starts_with("File: "),
        "the Error line must follow the File line:\n{text}"
    );
    let get = |i: usize, prefix: &str| -> String {
        let line = lines
            .get(i)
            .unwrap_or_else(|| panic!("missing `{prefix}` line in:\n{text}"));
        line.strip_prefix(prefix)
            .unwrap_or_else(|| panic!("line {i} should start with `{prefix}`: {line:?}\n{text}"))
            .to_string()
    };
    let short = get(at, "Error: ");
    assert_eq!(
        lines.get(at + 1),
        Some(&""),
        "a blank line follows Error:\n{text}"
    );
    let provided = get(at + 2, "You provided: ");
    let mut problem = get(at + 3, "Problem: ");
    // A problem may carry a multi-line detail (a regex syntax error with its caret diagram);
    // it runs until the Fix line.
    let mut fix_at = at + 4;
    while lines
        .get(fix_at)
        .is_some_and(|l| !l.starts_with("Fix: ") && *l != "---")
    {
        problem.push('\n');
        problem.push_str(lines[fix_at]);
        fix_at += 1;
    }
    let fix = get(fix_at, "Fix: ");
    let (tip, end) = match lines.get(fix_at + 1) {
        Some(l) if l.starts_with("Tip: ") => (Some(l.to_string()), fix_at + 2),
        _ => (None, fix_at + 1),
    };
    assert_eq!(
        lines.get(end),
        Some(&"---"),
        "the error block ends with ---:\n{text}"
    );
    LayoutError {
        short,
        provided,
        problem,
        fix,
        tip,
    }
}

/// Extracts `N` from a `Continue with start_line: N.` note.
pub fn continue_line(text: &str) -> Option<u64> {
    let i = text.find("Continue with start_line: ")?;
    let rest = &text[i + "Continue with start_line: ".len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The content between the `---` separators of a single-file `read_files` block.
pub fn block_content(text: &str) -> &str {
    let start = text.find("\n---\n").expect("opening ---") + "\n---\n".len();
    let body = &text[start..];
    body.strip_suffix("---\n").expect("closing ---")
}

/// `n` numbered lines, `"{prefix}{i}\n"` for i in 1..=n.
pub fn numbered(prefix: &str, n: usize) -> String {
    (1..=n).map(|i| format!("{prefix}{i}\n")).collect()
}

/// The text of a successful answer, after checking its structured view carries the same
/// text under `content`.
pub fn both_views(tool: &str, r: &CallToolResult) -> String {
    let text = text_of(r);
    let sc = r
        .structured_content
        .as_ref()
        .unwrap_or_else(|| panic!("{tool}: no structured content:\n{text}"));
    assert_eq!(
        sc["content"],
        text.as_str(),
        "{tool}: both views carry the answer"
    );
    text
}

/// What a doc tool's answer says ([`crate::views::doc_facts`]), read from its text; both
/// views must carry that text.
pub fn doc_view(tool: &str, r: &CallToolResult) -> serde_json::Value {
    crate::views::doc_facts(tool, &both_views(tool, r))
}

/// What a `grep_content` answer says ([`crate::views::grep_facts`]), read from its text; a
/// successful answer's structured view carries the same text and the same cursor.
pub fn grep_view(r: &CallToolResult) -> serde_json::Value {
    if r.is_error == Some(true) {
        return serde_json::Value::Null;
    }
    let facts = crate::views::grep_facts(&both_views("grep_content", r));
    let sc = r.structured_content.as_ref().expect("structured content");
    assert_eq!(
        sc.get("next_cursor").unwrap_or(&serde_json::Value::Null),
        &facts["next_cursor"]
    );
    facts
}

/// What `tool`'s answer says, for a test to assert on: for grep_content, the doc tools and
/// file_read the facts read back from the text both views carry; for read_files and
/// read_text_file (whose structured view is the content itself) the structured view; for a
/// tool error its structured view.
pub fn view(tool: &str, r: &CallToolResult) -> serde_json::Value {
    if r.is_error == Some(true) {
        return r.structured_content.clone().unwrap_or_default();
    }
    match tool {
        "grep_content" => grep_view(r),
        "file_read" => crate::file_read::facts(&both_views(tool, r)),
        t if t.starts_with("doc_") => doc_view(t, r),
        _ => r.structured_content.clone().unwrap_or_default(),
    }
}

/// A `kB` field of `/proc/PID/status` (`RssAnon`, `VmHWM`).
pub fn proc_kb(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
