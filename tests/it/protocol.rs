//! JSON-RPC robustness of `mapgrep serve` over raw stdin/stdout pipes: the MCP handshake by
//! hand, then malformed lines, bad requests, unknown methods and tools, bad parameters, huge
//! lines, ids of every type and notifications. Each bad message gets the JSON-RPC answer rmcp
//! gives (or none, where rmcp ignores it), and a following valid `tools/call` still answers
//! correctly, matched by id.
//!
//! What rmcp 3.11 does, as asserted here:
//! - a line that is not JSON (syntax error) is ignored without an answer: JSON-RPC 2.0 asks
//!   for -32700, but rmcp deliberately drops unparsable input (modelcontextprotocol/rust-sdk
//!   #938, like the other MCP SDKs);
//! - JSON that is not a request object (array, number, string, null, no `jsonrpc`, a bad
//!   id) gets -32600 "Invalid request", with no `id` member (JSON-RPC asks for `"id": null`);
//! - an unknown method gets -32601 with the request's id; an unknown tool -32602;
//! - parameters that do not deserialize (unknown, missing, wrong type) are a tool result with
//!   `isError: true` ("failed to deserialize parameters: ..."), not a JSON-RPC error;
//! - lines over 16 MiB are refused by mapgrep's own transport (rmcp would drop them) with
//!   -32600 and the request's id when its head (or tail) holds one.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::common::{BIN, Fixture};

/// Every read and write must complete within this.
const IO_TIMEOUT: Duration = Duration::from_secs(20);

/// The content of `ok.txt` in the fixture.
const OK_TXT: &str = "hello\nworld\n";

/// `mapgrep serve ROOT` with raw pipes.
struct Raw {
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
    next_id: i64,
}

impl Raw {
    async fn start(root: &std::path::Path) -> Raw {
        Raw::start_with(root, Stdio::null()).await
    }

    /// [`Raw::start`] with the server's log (stderr) going to `stderr`.
    async fn start_with(root: &std::path::Path, stderr: Stdio) -> Raw {
        let mut child = Command::new(BIN)
            .arg("serve")
            .arg(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .kill_on_drop(true)
            .spawn()
            .expect("spawn mapgrep serve");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout")).lines();
        Raw {
            child,
            stdin,
            stdout,
            next_id: 1000,
        }
    }

    /// Starts the server and does the initialize handshake.
    async fn ready(root: &std::path::Path) -> Raw {
        let mut raw = Raw::start(root).await;
        raw.handshake().await;
        raw
    }

    async fn handshake(&mut self) {
        self.handshake_as("t").await;
    }

    /// The initialize handshake, the client named `client`.
    async fn handshake_as(&mut self, client: &str) {
        self.send_json(&Raw::initialize_msg(1, client)).await;
        let init = self.recv().await;
        assert_eq!(init["id"], 1, "{init}");
        assert_eq!(init["result"]["protocolVersion"], "2025-06-18", "{init}");
        assert_eq!(init["result"]["serverInfo"]["name"], "mapgrep", "{init}");
        assert!(
            init["result"]["capabilities"]["tools"].is_object(),
            "{init}"
        );
        self.send_json(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
    }

    /// Writes `line` and a newline.
    async fn send_line(&mut self, line: &[u8]) {
        let write = async {
            self.stdin.write_all(line).await?;
            self.stdin.write_all(b"\n").await?;
            self.stdin.flush().await
        };
        tokio::time::timeout(IO_TIMEOUT, write)
            .await
            .expect("write timed out")
            .expect("write to the server");
    }

    async fn send_json(&mut self, v: &Value) {
        self.send_line(v.to_string().as_bytes()).await;
    }

    /// The next message from the server.
    async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(IO_TIMEOUT, self.stdout.next_line())
            .await
            .expect("no message from the server in time")
            .expect("read from the server")
            .expect("the server closed stdout");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("server sent non-JSON ({e}): {line}"))
    }

    /// Reads messages until the response with `id`; returns the others seen first, and it.
    async fn until_id(&mut self, id: &Value) -> (Vec<Value>, Value) {
        let mut others = Vec::new();
        loop {
            let m = self.recv().await;
            if m.get("id") == Some(id) && (m.get("result").is_some() || m.get("error").is_some()) {
                return (others, m);
            }
            others.push(m);
            assert!(others.len() < 100, "no answer to id {id}: {others:?}");
        }
    }

    /// An `initialize` request from the client named `client`.
    fn initialize_msg(id: i64, client: &str) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": client, "version": "0"}
        }})
    }

    fn fresh_id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    /// A `tools/call` request.
    fn call_msg(id: &Value, tool: &str, args: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": tool, "arguments": args}})
    }

    /// A valid `read_files` call, answered correctly, matched by id; returns the messages
    /// that arrived before its answer.
    async fn good_call(&mut self) -> Vec<Value> {
        let id = json!(self.fresh_id());
        self.send_json(&Raw::call_msg(
            &id,
            "read_files",
            json!({"files": [{"path": "ok.txt"}]}),
        ))
        .await;
        let (others, answer) = self.until_id(&id).await;
        assert_good_answer(&answer);
        others
    }

    /// Sends `line`, then a good call: returns what the server answered to `line` (every
    /// message before the good call's answer).
    async fn answers_to(&mut self, line: &[u8]) -> Vec<Value> {
        self.send_line(line).await;
        self.good_call().await
    }

    /// Closes stdin: the server exits by itself, promptly.
    async fn shutdown(mut self) {
        assert!(
            self.child.try_wait().expect("try_wait").is_none(),
            "the server died"
        );
        drop(self.stdin);
        let status = tokio::time::timeout(IO_TIMEOUT, self.child.wait())
            .await
            .expect("the server did not exit after stdin closed")
            .expect("wait");
        assert!(status.success(), "exit status {status}");
    }
}

/// The answer of the good `read_files` call.
fn assert_good_answer(answer: &Value) {
    assert!(answer.get("error").is_none(), "{answer}");
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert_eq!(
        answer["result"]["content"][0]["text"],
        format!("File: ok.txt\nLines: 1-2 of 2\n---\n{OK_TXT}---\n"),
        "{answer}"
    );
}

/// The JSON-RPC error code of `m` (panics if `m` is not an error response).
fn error_code(m: &Value) -> i64 {
    m["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error response: {m}"))
}

/// The text of a tool result.
fn tool_text(m: &Value) -> &str {
    m["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("not a tool result: {m}"))
}

fn fixture() -> Fixture {
    let fx = Fixture::new();
    fx.write("ok.txt", OK_TXT);
    fx.write("a.md", "# A\nneedle\n## B\nb\n");
    fx.write("a.ts", "function f() {\n  return 1;\n}\n");
    fx
}

#[tokio::test]
async fn the_handshake_by_hand_and_a_good_call() {
    let fx = fixture();
    let mut raw = Raw::ready(&fx.root).await;
    assert!(raw.good_call().await.is_empty());
    // tools/list names the eight tools a read-only server runs.
    raw.send_json(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .await;
    let (others, list) = raw.until_id(&json!(2)).await;
    assert!(others.is_empty(), "{others:?}");
    let mut names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "doc_find",
            "doc_read",
            "doc_read_many",
            "doc_toc",
            "file_read",
            "find_definition",
            "find_files",
            "find_references",
            "grep_content",
            "read_files",
            "read_text_file",
            "repo_map"
        ]
    );
    raw.shutdown().await;
}

#[tokio::test]
async fn lines_that_are_not_json_get_a_parse_error_and_the_server_keeps_serving() {
    let fx = fixture();
    let mut raw = Raw::ready(&fx.root).await;
    let deep = "[".repeat(10_000) + &"]".repeat(10_000);
    for line in [
        &b"this is not json"[..],
        b"{\"jsonrpc\":\"2.0\",\"id\":",
        b"}{",
        b"{\"jsonrpc\":\"2.0\",\"id\":58,\"method\":\"ping\"} {\"jsonrpc\":\"2.0\",\"id\":59,\"method\":\"ping\"}",
        b"\xff\xfe\x00garbage",
        b"'single quotes'",
        deep.as_bytes(),
    ] {
        // JSON-RPC 2.0: -32700 (parse error), id null.
        let answered = raw.answers_to(line).await;
        assert_eq!(answered.len(), 1, "{:?}", String::from_utf8_lossy(&line[..line.len().min(80)]));
        assert!(answered[0]["id"].is_null(), "{answered:?}");
        assert_eq!(error_code(&answered[0]), -32700, "{answered:?}");
        assert!(
            answered[0]["error"]["message"].as_str().unwrap().starts_with("Parse error: "),
            "{answered:?}"
        );
    }
    // Blank lines are no messages: nothing to answer.
    for line in [&b"   "[..], b""] {
        assert!(raw.answers_to(line).await.is_empty());
    }
    raw.shutdown().await;
}

#[tokio::test]
async fn json_that_is_not_a_request_is_an_invalid_request() {
    let fx = fixture();
    let mut raw = Raw::ready(&fx.root).await;
    for line in [
        "[1,2]",
        "[]",
        r#"[{"jsonrpc":"2.0","id":3,"method":"ping"}]"#,
        "42",
        r#""a string""#,
        "null",
        "true",
        "{}",
        r#"{"id":5,"method":"ping"}"#,
        r#"{"jsonrpc":"1.0","id":11,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":55}"#,
        r#"{"jsonrpc":"2.0","id":54,"method":5}"#,
        r#"{"jsonrpc":"2.0","id":53,"method":"tools/call","params":[]}"#,
        r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#,
    ] {
        let answered = raw.answers_to(line.as_bytes()).await;
        assert_eq!(answered.len(), 1, "{line}: {answered:?}");
        let m = &answered[0];
        assert_eq!(m["jsonrpc"], "2.0", "{line}: {m}");
        assert_eq!(error_code(m), -32600, "{line}: {m}");
        // rmcp leaves the id out (JSON-RPC 2.0 asks for "id": null).
        assert!(m.get("id").is_none_or(Value::is_null), "{line}: {m}");
    }
    raw.shutdown().await;
}

#[tokio::test]
async fn an_unknown_method_is_method_not_found() {
    let fx = fixture();
    let mut raw = Raw::ready(&fx.root).await;
    for (id, method) in [
        (json!(6), "nope/unknown"),
        (json!("m"), "tools/nonexistent"),
        (json!(7), "prompts/get"),
    ] {
        raw.send_json(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {}}))
            .await;
        let (others, m) = raw.until_id(&id).await;
        assert!(others.is_empty(), "{method}: {others:?}");
        assert_eq!(error_code(&m), -32601, "{method}: {m}");
        assert!(raw.good_call().await.is_empty());
    }
    // tools/call without params, or with a name that is not a string, is also answered
    // -32601 by rmcp (-32602 would say more).
    for (id, params) in [(json!(8), None), (json!(9), Some(json!({"name": 5})))] {
        let mut msg = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call"});
        if let Some(p) = params {
            msg["params"] = p;
        }
        raw.send_json(&msg).await;
        let (others, m) = raw.until_id(&id).await;
        assert!(others.is_empty(), "{others:?}");
        assert_eq!(error_code(&m), -32601, "{m}");
    }
    assert!(raw.good_call().await.is_empty());
    raw.shutdown().await;
}

#[tokio::test]
async fn tools_call_of_an_unknown_tool_is_invalid_params() {
    let fx = fixture();
    let mut raw = Raw::ready(&fx.root).await;
    for tool in ["no_such_tool", "", "READ_FILES", "read_files "] {
        let id = json!(raw.fresh_id());
        raw.send_json(&Raw::call_msg(&id, tool, json!({}))).await;
        let (others, m) = raw.until_id(&id).await;
        assert!(others.is_empty(), "{tool:?}: {others:?}");
        assert_eq!(error_code(&m), -32602, "{tool:?}: {m}");
        assert_eq!(m["error"]["message"], "tool not found", "{m}");
        assert!(raw.good_call().await.is_empty());
    }
    raw.shutdown().await;
}

/// One valid argument object per tool.
fn valid_args(fx: &Fixture) -> Vec<(&'static str, Value)> {
    vec![
        ("read_files", json!({"files": [{"path": "ok.txt"}]})),
        ("read_text_file", json!({"path": fx.abs("ok.txt")})),
        ("grep_content", json!({"pattern": "needle"})),
        ("doc_toc", json!({"path": "a.md"})),
        ("doc_read", json!({"path": "a.md", "section": "B"})),
        ("doc_read_many", json!({"path": "a.md", "sections": ["B"]})),
        ("doc_find", json!({"path": "a.md", "pattern": "*"})),
        (
            "doc_replace",
            json!({"path": "a.md", "section": "B", "content": "x\n", "expected_hash": "0"}),
        ),
        ("file_read", json!({"file": "a.ts"})),
    ]
}

#[tokio::test]
async fn tools_call_with_unknown_parameters_is_a_tool_error_for_every_tool() {
    let fx = fixture();
    let mut raw = Raw::ready(&fx.root).await;
    for (tool, args) in valid_args(&fx) {
        let mut args = args;
        args["bogus"] = json!(1);
        let id = json!(raw.fresh_id());
        raw.send_json(&Raw::call_msg(&id, tool, args)).await;
        let (others, m) = raw.until_id(&id).await;
        assert!(others.is_empty(), "{tool}: {others:?}");
        // deny_unknown_fields: rmcp reports it as a tool error the model can read.
        assert_eq!(m["result"]["isError"], true, "{tool}: {m}");
        let text = tool_text(&m);
        assert!(
            text.starts_with("failed to deserialize parameters: unknown field `bogus`, expected "),
            "{tool}: {text}"
        );
    }
    // Nested unknown fields too (a read_files entry).
    let id = json!(raw.fresh_id());
    raw.send_json(&Raw::call_msg(
        &id,
        "read_files",
        json!({"files": [{"path": "ok.txt", "lines": 3}]}),
    ))
    .await;
    let (_, m) = raw.until_id(&id).await;
    assert_eq!(m["result"]["isError"], true, "{m}");
    assert!(tool_text(&m).contains("unknown field `lines`"), "{m}");
    // Unknown members of the request itself and of params are ignored.
    let id = json!(raw.fresh_id());
    let mut msg = Raw::call_msg(&id, "read_files", json!({"files": [{"path": "ok.txt"}]}));
    msg["extra"] = json!(1);
    msg["params"]["extra"] = json!(2);
    msg["params"]["_meta"] = json!({"progressToken": "tok"});
    raw.send_json(&msg).await;
    let (others, m) = raw.until_id(&id).await;
    assert!(others.is_empty(), "{others:?}");
    assert_good_answer(&m);
    assert!(raw.good_call().await.is_empty());
    raw.shutdown().await;
}

#[tokio::test]
async fn tools_call_with_missing_required_parameters_is_a_tool_error() {
    let fx = fixture();
    let mut raw = Raw::ready(&fx.root).await;
    let required = [
        ("read_files", "files"),
        ("read_text_file", "path"),
        ("grep_content", "pattern"),
        ("doc_toc", "path"),
        ("doc_read", "path"),
        ("doc_read_many", "path"),
        ("doc_find", "path"),
        ("doc_replace", "path"),
        ("file_read", "file"),
    ];
    for (tool, field) in required {
        // Arguments empty, null, or left out: all the same.
        for arguments in [Some(json!({})), Some(Value::Null), None] {
            let id = json!(raw.fresh_id());
            let mut msg = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                                 "params": {"name": tool}});
            if let Some(a) = &arguments {
                msg["params"]["arguments"] = a.clone();
            }
            raw.send_json(&msg).await;
            let (others, m) = raw.until_id(&id).await;
            assert!(others.is_empty(), "{tool}: {others:?}");
            assert_eq!(m["result"]["isError"], true, "{tool} {arguments:?}: {m}");
            assert_eq!(
                tool_text(&m),
                format!("failed to deserialize parameters: missing field `{field}`"),
                "{tool}"
            );
        }
    }
    // A field required after another: doc_read with only a path.
    let id = json!(raw.fresh_id());
    raw.send_json(&Raw::call_msg(&id, "doc_read", json!({"path": "a.md"})))
        .await;
    let (_, m) = raw.until_id(&id).await;
    assert_eq!(
        tool_text(&m),
        "failed to deserialize parameters: missing field `section`"
    );
    // arguments that are not an object at all.
    let id = json!(raw.fresh_id());
    let mut msg = Raw::call_msg(&id, "read_files", json!(null));
    msg["params"]["arguments"] = json!("a string");
    raw.send_json(&msg).await;
    let (_, m) = raw.until_id(&id).await;
    assert!(m.get("error").is_some(), "{m}");
    assert!(raw.good_call().await.is_empty());
    raw.shutdown().await;
}

/// A valid `read_files` call of `ok.txt` with `pad` bytes of JSON whitespace on its line.
fn padded_read(id: &Value, pad: usize) -> String {
    let text = Raw::call_msg(id, "read_files", json!({"files": [{"path": "ok.txt"}]})).to_string();
    let (head, tail) = text.split_at(1);
    format!("{head}{}{tail}", " ".repeat(pad))
}

#[tokio::test]
async fn a_ten_megabyte_json_line_is_answered() {
    let fx = fixture();
    let mut raw = Raw::ready(&fx.root).await;
    // A valid tools/call padded with 10 MB of JSON whitespace on one line.
    let id = raw.fresh_id();
    let line = padded_read(&json!(id), 10 << 20);
    raw.send_line(line.as_bytes()).await;
    let (others, m) = raw.until_id(&json!(id)).await;
    assert!(others.is_empty(), "{others:?}");
    assert_good_answer(&m);
    // 10 MB of real data in the arguments: 200,000 entries of a read_files batch (the answer
    // is cut at the response limit; see bad_input.rs for its size).
    let id = raw.fresh_id();
    let files: Vec<Value> = (0..200_000)
        .map(|i| json!({"path": "ok.txt", "head": 1 + i % 2}))
        .collect();
    let line = Raw::call_msg(&json!(id), "read_files", json!({"files": files})).to_string();
    assert!(line.len() > 5 << 20, "{}", line.len());
    raw.send_line(line.as_bytes()).await;
    let (others, m) = raw.until_id(&json!(id)).await;
    assert!(others.is_empty(), "{others:?}");
    assert_eq!(m["result"]["isError"], false);
    assert!(tool_text(&m).starts_with("File: ok.txt\nLines: 1-1 of 2\n---\nhello\n---\n"));
    // Over the 16 MiB line limit: an invalid-request error that names the limit, and the
    // server goes on.
    let id = raw.fresh_id();
    let line = padded_read(&json!(id), 17 << 20);
    let answered = raw.answers_to(line.as_bytes()).await;
    assert_eq!(answered.len(), 1, "{answered:?}");
    assert_eq!(error_code(&answered[0]), -32600, "{answered:?}");
    let message = answered[0]["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!(
            "over the server's limit of {} bytes",
            mapgrep::mcp::transport::MAX_LINE_BYTES
        )),
        "{message}"
    );
    raw.shutdown().await;
}

/// A request over the 16 MiB line limit is answered with its own id (read from the line's
/// head, or its tail when the id comes last), and the server goes on.
#[tokio::test]
async fn a_seventeen_megabyte_request_is_answered_with_its_id() {
    let fx = fixture();
    let mut raw = Raw::ready(&fx.root).await;
    let big = "#".repeat(17 << 20);
    let id = raw.fresh_id();
    let head_first = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"doc_replace","arguments":{{"path":"a.md","section":"a","expected_hash":"x","content":"{big}"}}}}}}"#
    );
    assert!(head_first.len() > 17 << 20);
    raw.send_line(head_first.as_bytes()).await;
    let (others, m) = raw.until_id(&json!(id)).await;
    assert!(others.is_empty(), "{others:?}");
    assert_eq!(error_code(&m), -32600, "{m}");
    assert!(
        m["error"]["message"]
            .as_str()
            .unwrap()
            .contains("send less in one call"),
        "{m}"
    );
    let id_last = format!(
        r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"grep_content","arguments":{{"pattern":"{big}"}}}},"id":"last-{id}"}}"#
    );
    raw.send_line(id_last.as_bytes()).await;
    let (others, m) = raw.until_id(&json!(format!("last-{id}"))).await;
    assert!(others.is_empty(), "{others:?}");
    assert_eq!(error_code(&m), -32600, "{m}");
    assert!(raw.good_call().await.is_empty());
    raw.shutdown().await;
}

#[tokio::test]
async fn ids_of_every_allowed_type_are_echoed_exactly() {
    let fx = fixture();
    let mut raw = Raw::ready(&fx.root).await;
    let ids = [
        json!("abc"),
        json!(""),
        json!("7"),
        json!(7),
        json!(0),
        json!(-3),
        json!(9_007_199_254_740_993_i64),
        json!(i64::MAX),
        json!("ünïcødé id ✓"),
    ];
    // Pipelined: every request is written before any answer is read.
    for (i, id) in ids.iter().enumerate() {
        let msg = if i % 2 == 0 {
            Raw::call_msg(id, "read_files", json!({"files": [{"path": "ok.txt"}]}))
        } else {
            json!({"jsonrpc": "2.0", "id": id, "method": "ping"})
        };
        raw.send_json(&msg).await;
    }
    let mut answers = Vec::new();
    while answers.len() < ids.len() {
        answers.push(raw.recv().await);
    }
    for (i, id) in ids.iter().enumerate() {
        let matching: Vec<&Value> = answers.iter().filter(|m| m["id"] == *id).collect();
        assert_eq!(matching.len(), 1, "id {id}: {answers:?}");
        // Same JSON type: "7" and 7 are different ids.
        assert_eq!(matching[0]["id"].is_string(), id.is_string(), "{id}");
        if i % 2 == 0 {
            assert_good_answer(matching[0]);
        } else {
            assert_eq!(matching[0]["result"], json!({}), "{id}");
        }
    }
    assert!(raw.good_call().await.is_empty());
    raw.shutdown().await;
}

#[tokio::test]
async fn notifications_and_stray_responses_get_no_answer() {
    let fx = fixture();
    let mut raw = Raw::ready(&fx.root).await;
    for msg in [
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 12345}}),
        json!({"jsonrpc": "2.0", "method": "notifications/whatever"}),
        json!({"jsonrpc": "2.0", "method": "unknown/notification", "params": [1]}),
        json!({"jsonrpc": "2.0", "method": "ping"}),
        // A request without an id is a notification: nothing may answer it.
        Raw::call_msg(
            &json!(0),
            "read_files",
            json!({"files": [{"path": "ok.txt"}]}),
        )
        .as_object()
        .map(|o| {
            let mut o = o.clone();
            o.remove("id");
            Value::Object(o)
        })
        .unwrap(),
        // Responses to requests the server never sent.
        json!({"jsonrpc": "2.0", "id": 99, "result": {}}),
        json!({"jsonrpc": "2.0", "id": 98, "error": {"code": 1, "message": "x"}}),
    ] {
        let answered = raw.answers_to(msg.to_string().as_bytes()).await;
        assert!(answered.is_empty(), "{msg}: {answered:?}");
    }
    raw.shutdown().await;
}

#[tokio::test]
async fn requests_before_initialize_are_refused_and_the_handshake_still_works() {
    let fx = fixture();
    let mut raw = Raw::start(&fx.root).await;
    // ping is allowed before initialization.
    raw.send_json(&json!({"jsonrpc": "2.0", "id": "p", "method": "ping"}))
        .await;
    let (others, m) = raw.until_id(&json!("p")).await;
    assert!(others.is_empty());
    assert_eq!(m["result"], json!({}));
    // Other requests get an error (rmcp: -32602, asking for the protocol version in _meta).
    for (id, msg) in [
        (
            json!(2),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        ),
        (
            json!(3),
            Raw::call_msg(
                &json!(3),
                "read_files",
                json!({"files": [{"path": "ok.txt"}]}),
            ),
        ),
    ] {
        raw.send_json(&msg).await;
        let (others, m) = raw.until_id(&id).await;
        assert!(others.is_empty(), "{others:?}");
        assert!(m.get("error").is_some(), "{m}");
        assert!(
            !m.to_string().contains("hello"),
            "no file content before initialize: {m}"
        );
    }
    raw.handshake().await;
    assert!(raw.good_call().await.is_empty());
    // A second initialize is answered, and the session goes on.
    raw.send_json(
        &json!({"jsonrpc": "2.0", "id": "again", "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"}}}),
    )
    .await;
    let (_, m) = raw.until_id(&json!("again")).await;
    assert!(m.get("result").is_some() || m.get("error").is_some(), "{m}");
    assert!(raw.good_call().await.is_empty());
    raw.shutdown().await;
}

#[tokio::test]
async fn a_burst_of_good_and_bad_lines_is_answered_by_id() {
    let fx = fixture();
    let mut raw = Raw::ready(&fx.root).await;
    let mut expect: Vec<(Value, &str)> = Vec::new();
    let mut lines: Vec<String> = Vec::new();
    for i in 0..60 {
        let id = json!(format!("b{i}"));
        match i % 6 {
            0 => {
                lines.push(
                    Raw::call_msg(&id, "read_files", json!({"files": [{"path": "ok.txt"}]}))
                        .to_string(),
                );
                expect.push((id, "good"));
            }
            1 => {
                lines.push("not json at all".into());
                expect.push((Value::Null, "-32700"));
            }
            2 => {
                lines.push(Raw::call_msg(&id, "no_such_tool", json!({})).to_string());
                expect.push((id, "-32602"));
            }
            3 => {
                lines.push(
                    Raw::call_msg(&id, "grep_content", json!({"pattern": "a(b"})).to_string(),
                );
                expect.push((id, "tool error"));
            }
            4 => {
                lines.push(json!({"jsonrpc": "2.0", "id": id, "method": "nope"}).to_string());
                expect.push((id, "-32601"));
            }
            _ => {
                lines.push(
                    Raw::call_msg(
                        &id,
                        "read_text_file",
                        json!({"path": fx.abs("ok.txt"), "line": 0}),
                    )
                    .to_string(),
                );
                expect.push((id, "-32600"));
            }
        }
    }
    // One write with every line.
    let all = lines.join("\n");
    raw.send_line(all.as_bytes()).await;
    let mut answers = Vec::new();
    while answers.len() < expect.len() {
        answers.push(raw.recv().await);
    }
    // Each line not JSON: one parse error, without an id.
    let parse_errors = answers.iter().filter(|m| m["id"].is_null()).count();
    assert_eq!(
        parse_errors,
        expect.iter().filter(|(id, _)| id.is_null()).count()
    );
    for (id, kind) in expect.iter().filter(|(id, _)| !id.is_null()) {
        let m: Vec<&Value> = answers.iter().filter(|m| m["id"] == *id).collect();
        assert_eq!(m.len(), 1, "{id}: {answers:?}");
        let m = m[0];
        match *kind {
            "good" => assert_good_answer(m),
            "tool error" => {
                assert_eq!(m["result"]["isError"], true, "{m}");
                assert!(
                    tool_text(m).starts_with("Error: Invalid regex in pattern\n"),
                    "{m}"
                );
            }
            code => assert_eq!(error_code(m).to_string(), code, "{m}"),
        }
    }
    assert!(raw.good_call().await.is_empty());
    raw.shutdown().await;
}

/// The lines of `read_files` of the fixture's 500-line `long.txt`, in a session of `raw`.
async fn long_read_lines(raw: &mut Raw) -> String {
    let id = json!(raw.fresh_id());
    raw.send_json(&Raw::call_msg(
        &id,
        "read_files",
        json!({"files": ["long.txt"]}),
    ))
    .await;
    let (_, answer) = raw.until_id(&id).await;
    let text = tool_text(&answer);
    text.lines()
        .find_map(|l| l.strip_prefix("Lines: "))
        .unwrap_or_else(|| panic!("{text}"))
        .to_string()
}

#[tokio::test]
async fn a_second_initialize_is_refused_and_the_first_budget_kept() {
    let fx = fixture();
    fx.write("long.txt", crate::common::numbered("line ", 500));
    // Codex's budget (200 lines) cuts the read...
    let mut codex = Raw::start(&fx.root).await;
    codex.handshake_as("codex-mcp-client").await;
    let cut = long_read_lines(&mut codex).await;
    assert!(cut.starts_with("1-") && cut != "1-500 of 500", "{cut}");
    codex.shutdown().await;
    // ...Claude Code's does not, and a second initialize cannot switch to Codex's.
    let mut raw = Raw::start(&fx.root).await;
    raw.handshake_as("claude-code").await;
    raw.send_json(&Raw::initialize_msg(7, "codex-mcp-client"))
        .await;
    let (others, again) = raw.until_id(&json!(7)).await;
    assert!(others.is_empty(), "{others:?}");
    assert_eq!(error_code(&again), -32600, "{again}");
    assert!(
        again["error"]["message"]
            .as_str()
            .unwrap()
            .contains("initialize was already received"),
        "{again}"
    );
    assert_eq!(long_read_lines(&mut raw).await, "1-500 of 500");
    assert!(raw.good_call().await.is_empty());
    raw.shutdown().await;
}

#[tokio::test]
async fn a_long_client_name_is_cut_before_it_is_logged() {
    let fx = fixture();
    let log = fx.base().join("serve.log");
    let file = std::fs::File::create(&log).unwrap();
    let mut raw = Raw::start_with(&fx.root, Stdio::from(file)).await;
    // 15 MB of name, with a newline and an escape sequence early on.
    let name = format!("codex\n\u{1b}[31m{}", "A".repeat(15_000_000));
    raw.handshake_as(&name).await;
    assert!(raw.good_call().await.is_empty());
    raw.shutdown().await;
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.len() < 4_000, "{} bytes of log", text.len());
    assert!(text.lines().all(|l| l.len() < 400), "{text}");
    let line = text
        .lines()
        .find(|l| l.contains("client "))
        .unwrap_or_else(|| panic!("{text}"));
    let want = format!(
        "mapgrep: client \"codex\\n\\u001b[31m{}…\": answers of at most 9000 bytes and 200 lines",
        "A".repeat(100 - "codex\n\u{1b}[31m".chars().count())
    );
    assert_eq!(line, want);
}
