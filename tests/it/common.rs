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

    /// Starts `mapgrep serve --index-dir BASE/index ROOT` with its log in `BASE/log`, and
    /// waits until its index is built; returns the server and the log's path.
    pub async fn serve_indexed(&self) -> (Server, PathBuf) {
        let idx = self.base.join("index");
        let log = self.base.join("log");
        let srv = Server::start_logged(
            &[self.root.as_path()],
            &["--index-dir", idx.to_str().unwrap()],
            &log,
        )
        .await;
        wait_for_log(&log, "built");
        (srv, log)
    }

    /// Starts `mapgrep serve EXTRA... ROOT`.
    pub async fn serve_with(&self, extra: &[&str]) -> Server {
        Server::start(&[self.root.as_path()], extra).await
    }
}

/// Every file under `dir`, at any depth.
pub fn walk_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk_files(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Dates the file at `path` back an hour: files written within two seconds of an index
/// build are not trusted by it (tests about the trusted case date their fixtures back).
pub fn date_back(path: &Path) {
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(old).unwrap();
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
        Server::spawn(roots, extra, env, Stdio::null()).await
    }

    /// [`Server::start`] with the server's log (stderr) written to `log`.
    pub async fn start_logged(roots: &[&Path], extra: &[&str], log: &Path) -> Server {
        let file = std::fs::File::create(log).expect("create the log file");
        Server::spawn(roots, extra, &[], Stdio::from(file)).await
    }

    async fn spawn(
        roots: &[&Path],
        extra: &[&str],
        env: &[(&str, &Path)],
        stderr: Stdio,
    ) -> Server {
        let cmd = tokio::process::Command::new(BIN).configure(|cmd| {
            cmd.arg("serve").args(extra).args(roots);
            // Index files go to a cache directory of the tests, not the user's.
            cmd.env(
                "XDG_CACHE_HOME",
                std::env::temp_dir().join("mapgrep-it-cache"),
            );
            for (k, v) in env {
                cmd.env(k, v);
            }
        });
        let (transport, _stderr) = TokioChildProcess::builder(cmd)
            .stderr(stderr)
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
        call_on(&self.client, tool, args, CALL_TIMEOUT).await
    }

    /// A tool answer (success or tool error); a JSON-RPC error fails the test.
    pub async fn answer(&self, tool: &'static str, args: Value) -> Answer {
        let shown = args.to_string();
        match self.call(tool, args).await {
            Ok(r) => Answer::of(tool, &r),
            Err(e) => panic!("{tool} {shown}: unexpected JSON-RPC error {e:?}"),
        }
    }

    /// A successful tool answer (not flagged as an error).
    pub async fn ok(&self, tool: &'static str, args: Value) -> Answer {
        let shown = args.to_string();
        let a = self.answer(tool, args).await;
        assert!(!a.is_error, "{tool} {shown} should succeed:\n{}", a.text);
        a
    }

    /// A tool error (flagged isError, not a JSON-RPC error): its text.
    pub async fn err(&self, tool: &'static str, args: Value) -> String {
        let shown = args.to_string();
        let a = self.answer(tool, args).await;
        assert!(
            a.is_error,
            "{tool} {shown} should be a tool error:\n{}",
            a.text
        );
        a.text
    }

    /// A tool error in the Error/Problem/Fix layout, found anywhere in the answer
    /// ([`layout_in`]).
    pub async fn layout_err(&self, tool: &'static str, args: Value) -> Layout {
        layout_in(&self.err(tool, args).await)
    }

    /// The JSON-RPC error (code, message) of a call that must fail with one.
    pub async fn rpc_err(&self, tool: &'static str, args: Value) -> (i32, String) {
        let shown = args.to_string();
        match self.call(tool, args).await {
            Ok(r) => panic!("{tool} {shown}: expected a JSON-RPC error, got {r:?}"),
            Err(e) => (e.code.0, e.message.to_string()),
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

/// Calls `tool` with `args` (a JSON object) on `client` within `timeout`. A JSON-RPC error is
/// returned as `Err`; a transport failure or a slower call fails the test.
pub async fn call_on(
    client: &RunningService<RoleClient, ()>,
    tool: &'static str,
    args: Value,
    timeout: Duration,
) -> Result<CallToolResult, ErrorData> {
    let args = args
        .as_object()
        .expect("arguments are a JSON object")
        .clone();
    let params = CallToolRequestParams::new(tool).with_arguments(args);
    let answer = tokio::time::timeout(timeout, client.call_tool(params))
        .await
        .unwrap_or_else(|_| panic!("{tool} did not answer within {timeout:?}"));
    match answer {
        Ok(result) => Ok(result),
        Err(ServiceError::McpError(e)) => Err(e),
        Err(e) => panic!("{tool}: transport/service failure: {e}"),
    }
}

/// A tool answer that is not a JSON-RPC error: its text, whether it is flagged as an error,
/// and what it says ([`view`]).
#[derive(Debug)]
pub struct Answer {
    pub text: String,
    pub is_error: bool,
    pub structured: Value,
}

impl Answer {
    /// The text and what it says.
    pub fn pair(self) -> (String, Value) {
        (self.text, self.structured)
    }

    pub fn of(tool: &str, r: &CallToolResult) -> Answer {
        Answer {
            text: text_of(r),
            is_error: r.is_error == Some(true),
            structured: view(tool, r),
        }
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

/// One block of a `read_files` answer, parsed: `File: PATH`, then either `Lines: ...`, the
/// `Note:` lines and the content between `---` lines, or an error in the Error/Problem/Fix
/// layout ([`Layout`]) closed by `---`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub path: String,
    /// What follows `Lines: ` (`3-5 of 10`, `none (empty file)`); empty for an error.
    pub lines: String,
    pub notes: Vec<String>,
    pub content: String,
    pub error: Option<Layout>,
}

/// The blocks of a `read_files` answer, in order (blocks are separated by one blank line).
/// Each block is checked line by line against the layout while it is parsed.
pub fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let header_end = rest
            .find("\n")
            .unwrap_or_else(|| panic!("a block line ends with a newline:\n{text}"));
        let path = rest[..header_end]
            .strip_prefix("File: ")
            .unwrap_or_else(|| panic!("a block starts with `File: `:\n{rest}"))
            .to_string();
        let body = &rest[header_end + 1..];
        let (block, len) = if body.starts_with("Error: ") {
            let end = body
                .find("\n---\n")
                .unwrap_or_else(|| panic!("an error block ends with ---:\n{rest}"))
                + "\n---\n".len();
            let error = parse_error_block(&rest[..header_end + 1 + end]);
            let block = Block {
                path,
                lines: String::new(),
                notes: Vec::new(),
                content: String::new(),
                error: Some(error),
            };
            (block, end)
        } else {
            let open = body
                .find("---\n")
                .unwrap_or_else(|| panic!("the content opens with ---:\n{rest}"));
            let mut header = body[..open].lines();
            let lines = header
                .next()
                .and_then(|l| l.strip_prefix("Lines: "))
                .unwrap_or_else(|| panic!("`Lines:` follows `File:`:\n{rest}"))
                .to_string();
            let notes: Vec<String> = header.map(str::to_string).collect();
            assert!(
                notes.iter().all(|n| n.starts_with("Note: ")),
                "only notes between Lines and ---: {notes:?}"
            );
            let content_start = open + "---\n".len();
            let close = closing_dashes(&body[content_start..])
                .map(|at| content_start + at)
                .unwrap_or_else(|| panic!("the content closes with ---:\n{rest}"));
            let block = Block {
                path,
                lines,
                notes,
                content: body[content_start..close].to_string(),
                error: None,
            };
            (block, close + "---\n".len())
        };
        out.push(block);
        rest = &body[len..];
        if !rest.is_empty() {
            rest = rest
                .strip_prefix('\n')
                .unwrap_or_else(|| panic!("blocks are separated by a blank line:\n{text}"));
        }
    }
    out
}

/// Where the `---` line that closes a block's content is in `content_and_after`: the first
/// `---` line (at the start or after a newline) followed by the end of the answer or by the
/// next block (content may itself hold `---` lines).
fn closing_dashes(content_and_after: &str) -> Option<usize> {
    let s = content_and_after;
    let mut from = 0;
    loop {
        let at = if from == 0 && s.starts_with("---\n") {
            0
        } else {
            from + s[from..].find("\n---\n")? + 1
        };
        let after = &s[at + "---\n".len()..];
        if after.is_empty() || after.starts_with("\nFile: ") {
            return Some(at);
        }
        from = at + 1;
    }
}

/// The one block of a single-entry `read_files` answer.
pub fn one_block(text: &str) -> Block {
    let mut all = blocks(text);
    assert_eq!(all.len(), 1, "one block expected:\n{text}");
    all.remove(0)
}

/// A successful read's block: `path`, `lines` (`3-5 of 10`), `notes` and `content`.
pub fn read_block(path: &str, lines: &str, notes: &[&str], content: &str) -> Block {
    Block {
        path: path.into(),
        lines: lines.into(),
        notes: notes.iter().map(|n| n.to_string()).collect(),
        content: content.into(),
        error: None,
    }
}

/// An error in the Error/Problem/Fix layout: `Error: short`, a blank line, `You provided:`,
/// `Problem:` (which may run over several lines, as a regex syntax error's caret diagram
/// does), `Fix:` (which may carry a list on the lines after it) and an optional `Tip:` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub short: String,
    pub provided: String,
    pub problem: String,
    pub fix: String,
    /// The whole `Tip: ...` line, if there is one.
    pub tip: Option<String>,
}

/// Parses the layout from the `Error:` line at `at` of `lines`; returns it and the index of
/// the first line after it (a closing `---`, or the end).
fn layout_at(text: &str, lines: &[&str], at: usize) -> (Layout, usize) {
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
    let mut i = at + 4;
    while lines
        .get(i)
        .is_some_and(|l| !l.starts_with("Fix: ") && *l != "---")
    {
        problem.push('\n');
        problem.push_str(lines[i]);
        i += 1;
    }
    let mut fix = get(i, "Fix: ");
    i += 1;
    while lines
        .get(i)
        .is_some_and(|l| !l.starts_with("Tip: ") && *l != "---")
    {
        fix.push('\n');
        fix.push_str(lines[i]);
        i += 1;
    }
    assert!(!fix.trim().is_empty(), "a Fix is given:\n{text}");
    let tip = match lines.get(i) {
        Some(l) if l.starts_with("Tip: ") => {
            i += 1;
            Some(l.to_string())
        }
        _ => None,
    };
    let layout = Layout {
        short,
        provided,
        problem,
        fix,
        tip,
    };
    (layout, i)
}

/// An error whose whole text is the layout (the tools whose errors have no `File:` line).
pub fn layout(text: &str) -> Layout {
    assert!(
        text.starts_with("Error: "),
        "an error starts with `Error: `:\n{text}"
    );
    let lines: Vec<&str> = text.lines().collect();
    let (layout, end) = layout_at(text, &lines, 0);
    assert_eq!(end, lines.len(), "nothing follows the layout:\n{text}");
    layout
}

/// The first error in the layout anywhere in a tool answer (after a `File:` or
/// `[i/n] section:` line of a batch, before a closing `---`).
pub fn layout_in(text: &str) -> Layout {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("Error: "))
        .unwrap_or_else(|| panic!("no `Error:` line in:\n{text}"));
    layout_at(text, &lines, at).0
}

/// Parses a `read_files` error block (`File: ...\nError: ...\n\nYou provided: ...\n...---\n`),
/// asserting the layout line by line: the Error line follows the File line and `---` closes
/// the block.
pub fn parse_error_block(text: &str) -> Layout {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("Error: "))
        .unwrap_or_else(|| panic!("no `Error:` line in:\n{text}"));
    assert!(
        at >= 1 && lines[at - 1].starts_with("File: "),
        "the Error line must follow the File line:\n{text}"
    );
    let (layout, end) = layout_at(text, &lines, at);
    assert_eq!(
        lines.get(end),
        Some(&"---"),
        "the error block ends with ---:\n{text}"
    );
    layout
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

/// Lines `a..=b` (1-based) of `text`, line endings kept, exactly as in the file.
pub fn lines<N: TryInto<usize>>(text: &str, a: N, b: N) -> String
where
    N::Error: std::fmt::Debug,
{
    let (a, b): (usize, usize) = (a.try_into().unwrap(), b.try_into().unwrap());
    text.split_inclusive('\n')
        .skip(a - 1)
        .take(b + 1 - a)
        .collect()
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

/// `doc_read` of one section of `path`: the `section` object, or the error text.
pub async fn read(srv: &Server, path: &str, section: &str) -> Result<Value, String> {
    read_with(srv, serde_json::json!({"path": path, "section": section})).await
}

/// `doc_read` with `args`: the `section` object, or the error text.
pub async fn read_with(srv: &Server, args: Value) -> Result<Value, String> {
    let r = srv
        .call("doc_read", args.clone())
        .await
        .unwrap_or_else(|e| panic!("doc_read {args}: JSON-RPC error {e:?}"));
    if r.is_error == Some(true) {
        return Err(text_of(&r));
    }
    Ok(doc_view("doc_read", &r)["section"].clone())
}

/// `doc_read` → (slug, matched_by), or the error text.
pub async fn found(srv: &Server, path: &str, section: &str) -> Result<(String, String), String> {
    let s = read(srv, path, section).await?;
    Ok((str_of(&s["slug"]), str_of(&s["matched_by"])))
}

/// A JSON string as a `String`.
pub fn str_of(v: &Value) -> String {
    v.as_str()
        .unwrap_or_else(|| panic!("not a string: {v}"))
        .to_string()
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

/// insta settings for snapshots of answers from `fx`'s server: its temporary directory is
/// written `[TMP]`.
pub fn snapshot_settings(fx: &Fixture) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    for (regex, to) in mapgrep::platform::test_support::temp_path_filters(fx.base(), "[TMP]") {
        settings.add_filter(&regex, to);
    }
    settings
}

/// A `kB` field of `/proc/PID/status` (`RssAnon`, `VmHWM`).
pub fn proc_kb(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Waits until the server's log has a line with `what` (two minutes at most); returns
/// that line.
pub fn wait_for_log(log: &Path, what: &str) -> String {
    let t = std::time::Instant::now();
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        // Only whole lines: a line may be written in several pieces.
        let whole = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
        if let Some(line) = whole.lines().find(|l| l.contains(what)) {
            return line.to_string();
        }
        assert!(
            t.elapsed() < Duration::from_secs(120),
            "no {what:?} in the log:\n{text}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The files a `grep_content` for `pattern` names.
pub async fn files_with(srv: &Server, pattern: &str) -> Vec<String> {
    let a = srv
        .ok(
            "grep_content",
            serde_json::json!({"pattern": pattern, "section_patterns": []}),
        )
        .await;
    let mut files: Vec<String> = a
        .text
        .lines()
        .filter_map(|l| l.strip_prefix("File: "))
        .map(|l| l.split(',').next().unwrap().to_string())
        .collect();
    files.dedup();
    files
}

/// The summary line of a lookup.
pub async fn summary(srv: &Server, name: &str) -> (String, String) {
    let a = srv
        .ok(
            "find_definition",
            serde_json::json!({"name": name, "code": false}),
        )
        .await;
    let line = a
        .text
        .lines()
        .find(|l| l.starts_with("Found") || l.starts_with("No definition"))
        .unwrap_or_default()
        .to_string();
    (a.text, line)
}

/// Waits until lookups of `name` answer from the records alone.
pub async fn wait_recorded(srv: &Server, name: &str) -> String {
    let t = std::time::Instant::now();
    loop {
        let (text, line) = summary(srv, name).await;
        if line.contains("from the symbol index") && !line.contains("not indexed yet") {
            return text;
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "never recorded: {line}"
        );
        // Apart by more than the recorder's quiet period (a call pauses it for 250 ms).
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}
