//! `mapgrep serve --http` (streamable HTTP): the Origin check (403), the bearer token (401),
//! the refusal to serve a non-loopback address without a token, sessions that answer tools
//! with their own budgets over one workspace, and the bounds on sessions. Spoken to in plain
//! HTTP/1.1 over a loopback socket, one connection per request.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{BIN, Fixture};

/// Every request is answered within this time.
const TIMEOUT: Duration = Duration::from_secs(20);

/// A `mapgrep serve --http 127.0.0.1:0` child, killed when dropped.
struct HttpServer {
    child: Child,
    addr: SocketAddr,
}

impl HttpServer {
    /// Starts it with `extra` flags and the token `token` in its environment, and reads the
    /// address it listens on from its log.
    fn start(fx: &Fixture, extra: &[&str], token: Option<&str>) -> HttpServer {
        let mut cmd = Command::new(BIN);
        cmd.args(["serve", "--http", "127.0.0.1:0"])
            .args(extra)
            .arg(&fx.root)
            .env(
                "XDG_CACHE_HOME",
                std::env::temp_dir().join("mapgrep-it-cache"),
            )
            .env_remove("MAPGREP_HTTP_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(t) = token {
            cmd.env("MAPGREP_HTTP_TOKEN", t);
        }
        let mut child = cmd.spawn().expect("spawn mapgrep serve --http");
        let mut log = BufReader::new(child.stderr.take().expect("stderr"));
        let mut seen = String::new();
        let addr = loop {
            let mut line = String::new();
            if log.read_line(&mut line).unwrap_or(0) == 0 {
                let _ = child.kill();
                panic!("the server ended before it listened:\n{seen}");
            }
            seen.push_str(&line);
            if let Some(rest) = line.split("at http://").nth(1) {
                let addr = rest.split('/').next().expect("an address");
                break addr.parse().expect("a socket address");
            }
        };
        // The rest of the log is drained so that the server never blocks on it.
        std::thread::spawn(move || std::io::copy(&mut log, &mut std::io::sink()));
        HttpServer { child, addr }
    }

    /// Sends `method /mcp` with `headers` and `body`; the status, the response's headers
    /// (lowercase names) and its body.
    fn request(&self, method: &str, headers: &[(&str, &str)], body: &str) -> Reply {
        let mut s = TcpStream::connect_timeout(&self.addr, TIMEOUT).expect("connect");
        s.set_read_timeout(Some(TIMEOUT)).unwrap();
        let mut req = format!(
            "{method} /mcp HTTP/1.1\r\nConnection: close\r\n\
             Accept: application/json, text/event-stream\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        );
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            req.push_str(&format!("Host: {}\r\n", self.addr));
        }
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        req.push_str(body);
        s.write_all(req.as_bytes()).expect("send");
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).expect("read the response");
        Reply::parse(&raw)
    }

    /// POSTs one JSON-RPC message, in session `session` when given.
    fn post(&self, session: Option<&str>, extra: &[(&str, &str)], msg: &Value) -> Reply {
        let mut headers = extra.to_vec();
        if let Some(id) = session {
            headers.push(("Mcp-Session-Id", id));
            headers.push(("MCP-Protocol-Version", "2025-11-25"));
        }
        self.request("POST", &headers, &msg.to_string())
    }

    /// Opens a session as client `name`: initialize, then the initialized notification; its
    /// id.
    fn open(&self, name: &str, extra: &[(&str, &str)]) -> String {
        let r = self.post(None, extra, &initialize(name));
        assert_eq!(r.status, 200, "initialize: {}", r.body);
        let id = r
            .header("mcp-session-id")
            .expect("a session id")
            .to_string();
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let n = self.post(Some(&id), extra, &note);
        assert_eq!(n.status, 202, "initialized: {}", n.body);
        id
    }

    /// The result of tool `name` with `args`, called in session `id`.
    fn call(&self, id: &str, name: &str, args: Value) -> Value {
        let msg = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                         "params": {"name": name, "arguments": args}});
        let r = self.post(Some(id), &[], &msg);
        assert_eq!(r.status, 200, "{name}: {}", r.body);
        r.message(2)["result"].clone()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An `initialize` request from client `name`.
fn initialize(name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": name, "version": "1.0"}}})
}

/// One HTTP response.
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn parse(raw: &[u8]) -> Reply {
        let text = String::from_utf8_lossy(raw);
        let (head, body) = text.split_once("\r\n\r\n").expect("a complete response");
        let mut lines = head.lines();
        let status = lines.next().expect("a status line");
        let status = status.split(' ').nth(1).expect("a status").parse().unwrap();
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        let chunked = headers
            .iter()
            .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
        let body = if chunked {
            dechunk(body)
        } else {
            body.to_string()
        };
        Reply {
            status,
            headers,
            body,
        }
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The JSON-RPC message with id `id` among the body's server-sent events.
    fn message(&self, id: u64) -> Value {
        self.body
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .find(|m| m["id"] == id)
            .unwrap_or_else(|| panic!("no message {id} in:\n{}", self.body))
    }
}

/// A chunked body's data.
fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).expect("a chunk size");
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        body = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// The text view of a tool result.
fn text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_foreign_origin_is_refused_with_403_and_local_ones_pass() {
    let fx = Fixture::new();
    let srv = HttpServer::start(&fx, &[], None);
    for origin in [
        "http://evil.example",
        "null",
        "http://localhost.evil.example:80",
    ] {
        let r = srv.post(None, &[("Origin", origin)], &initialize("x"));
        assert_eq!(r.status, 403, "{origin}: {}", r.body);
        assert!(r.body.contains("Origin"), "{}", r.body);
    }
    // A rebound name reaches the loopback address with a foreign Host: rmcp refuses it.
    let r = srv.request(
        "POST",
        &[("Host", "evil.example")],
        &initialize("x").to_string(),
    );
    assert_eq!(r.status, 403, "{}", r.body);
    for origin in [
        "http://localhost:6274",
        "http://127.0.0.1",
        "http://[::1]:9",
    ] {
        let r = srv.post(None, &[("Origin", origin)], &initialize("x"));
        assert_eq!(r.status, 200, "{origin}: {}", r.body);
    }
}

#[test]
fn with_a_token_only_its_bearer_is_served() {
    let fx = Fixture::new();
    let token = "it-token-0123456789abcdef";
    let srv = HttpServer::start(&fx, &[], Some(token));
    let r = srv.post(None, &[], &initialize("x"));
    assert_eq!(r.status, 401, "{}", r.body);
    assert_eq!(r.header("www-authenticate"), Some("Bearer"));
    for wrong in [
        "Bearer it-token-0123456789abcdeX",
        "Bearer it-token",
        "Basic x",
    ] {
        let r = srv.post(None, &[("Authorization", wrong)], &initialize("x"));
        assert_eq!(r.status, 401, "{wrong}: {}", r.body);
    }
    let bearer = format!("Bearer {token}");
    let auth = [("Authorization", bearer.as_str())];
    let r = srv.post(None, &auth, &initialize("x"));
    assert_eq!(r.status, 200, "{}", r.body);
    // Every request of the session needs it, not only the first.
    let id = srv.open("x", &auth);
    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
    assert_eq!(srv.post(Some(&id), &[], &list).status, 401);
    let r = srv.post(Some(&id), &auth, &list);
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.message(3)["result"]["tools"].is_array(), "{}", r.body);
}

#[test]
fn a_non_loopback_address_without_a_token_is_refused_at_start() {
    let fx = Fixture::new();
    for addr in ["0.0.0.0:0", "[::]:0"] {
        let t = Instant::now();
        let o = Command::new(BIN)
            .args(["serve", "--http", addr])
            .arg(&fx.root)
            .env_remove("MAPGREP_HTTP_TOKEN")
            .stdin(Stdio::null())
            .output()
            .expect("run mapgrep serve");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{addr}: {err}");
        assert!(
            err.contains("refusing to serve HTTP") && err.contains("MAPGREP_HTTP_TOKEN"),
            "{err}"
        );
        assert!(t.elapsed() < TIMEOUT, "{addr}: took {:?}", t.elapsed());
    }
    // An empty token is a mistake, not a token.
    let o = Command::new(BIN)
        .args(["serve", "--http", "127.0.0.1:0"])
        .arg(&fx.root)
        .env("MAPGREP_HTTP_TOKEN", "")
        .stdin(Stdio::null())
        .output()
        .expect("run mapgrep serve");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("empty"));
}

#[test]
fn sessions_answer_a_grep_each_with_its_own_budget() {
    let fx = Fixture::new();
    let lines: String = (0..2000).map(|i| format!("needle line {i}\n")).collect();
    fx.write("many.txt", &lines);
    fx.write("notes.md", "# Notes\n\n## One\n\nthe needle is here\n");
    let srv = HttpServer::start(&fx, &[], None);
    let codex = srv.open("codex", &[]);
    let other = srv.open("some-client", &[]);
    let r = srv.call(&other, "grep_content", json!({"pattern": "needle is"}));
    let t = text(&r);
    assert!(t.contains("File: notes.md, Line: 5"), "{t}");
    // The same search, cut at each session's budget: Codex's 9,000 bytes, 80,000 others'.
    let many = json!({"pattern": "needle line", "max_results": 2000});
    let small = text(&srv.call(&codex, "grep_content", many.clone()));
    let large = text(&srv.call(&other, "grep_content", many));
    assert!(
        small.len() <= 9_000 && small.lines().count() <= 200,
        "{}",
        small.len()
    );
    assert!(large.len() > 20_000, "{}", large.len());
}

#[test]
fn sessions_are_bounded_and_a_closed_or_idle_one_frees_its_place() {
    let fx = Fixture::new();
    let srv = HttpServer::start(
        &fx,
        &["--max-sessions", "1", "--session-idle-timeout", "2"],
        None,
    );
    let first = srv.open("a", &[]);
    let r = srv.post(None, &[], &initialize("b"));
    assert_eq!(r.status, 503, "{}", r.body);
    assert!(r.body.contains("--max-sessions 1)"), "{}", r.body);
    // Closed by its client: the place is free at once.
    let r = srv.request("DELETE", &[("Mcp-Session-Id", &first)], "");
    assert!(r.status < 300, "{} {}", r.status, r.body);
    let second = srv.open("b", &[]);
    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
    assert_eq!(srv.post(Some(&first), &[], &list).status, 404);
    // Idle for longer than the timeout: closed, and its place taken by another.
    let t = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(500));
        let r = srv.post(None, &[], &initialize("c"));
        if r.status == 200 {
            break;
        }
        assert_eq!(r.status, 503, "{}", r.body);
        assert!(t.elapsed() < TIMEOUT, "the idle session was never closed");
    }
    assert!(
        t.elapsed() >= Duration::from_millis(1500),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(srv.post(Some(&second), &[], &list).status, 404);
}
