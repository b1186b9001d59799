//! The stdio transport: every line the client sends gets an answer, and the server knows
//! when its input ends.
//!
//! rmcp's own stdio transport drops what it cannot parse without a word, and a line over its
//! length limit likewise: the client then waits for an answer forever. Here a pump reads
//! standard input first: a line that is not JSON is answered with a JSON-RPC parse error
//! (-32700), a line over [`MAX_LINE_BYTES`] with an invalid-request error (-32600) naming the
//! limit and carrying the request's id (read from the line's head, or its tail when the id
//! comes last), both logged on stderr; every other line goes on to rmcp. Standard output is written
//! a whole line at a time by one pump, so these answers never cut into rmcp's.

use std::sync::Arc;

use rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::{Mutex, Notify};

/// The longest request line accepted (bytes before its newline): rmcp's line limit.
pub const MAX_LINE_BYTES: usize = DEFAULT_MAX_LINE_LENGTH - 1;

/// The pumped stdio: the two ends rmcp reads and writes, and a notice when the input ends.
pub struct Pumped {
    pub read: DuplexStream,
    pub write: DuplexStream,
    /// Notified once the client's input has ended (after the last line went to rmcp).
    pub closed: Arc<Notify>,
}

/// Starts the pumps between the process's stdin/stdout and rmcp.
pub fn stdio() -> Pumped {
    pumped(tokio::io::stdin(), tokio::io::stdout(), MAX_LINE_BYTES)
}

/// Starts the pumps over `input` and `output` (tests use small limits).
pub fn pumped<R, W>(input: R, output: W, limit: usize) -> Pumped
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (read, feed) = tokio::io::duplex(1 << 20);
    let (write, drain) = tokio::io::duplex(1 << 20);
    let output = Arc::new(Mutex::new(output));
    let closed = Arc::new(Notify::new());
    tokio::spawn(pump_in(
        input,
        feed,
        Arc::clone(&output),
        Arc::clone(&closed),
        limit,
    ));
    tokio::spawn(pump_out(drain, output));
    Pumped {
        read,
        write,
        closed,
    }
}

/// Writes one line to the output (whole, under the lock).
async fn write_line<W: AsyncWrite + Unpin>(output: &Mutex<W>, line: &[u8]) -> std::io::Result<()> {
    let mut out = output.lock().await;
    out.write_all(line).await?;
    if !line.ends_with(b"\n") {
        out.write_all(b"\n").await?;
    }
    out.flush().await
}

/// Copies rmcp's output to the real output a line at a time.
async fn pump_out<W: AsyncWrite + Unpin>(drain: DuplexStream, output: Arc<Mutex<W>>) {
    let mut lines = BufReader::new(drain);
    let mut line = Vec::new();
    loop {
        line.clear();
        match lines.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                if write_line(&output, &line).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// Reads the client's lines: good ones go to rmcp, bad ones are answered here.
async fn pump_in<R, W>(
    input: R,
    mut feed: DuplexStream,
    output: Arc<Mutex<W>>,
    closed: Arc<Notify>,
    limit: usize,
) where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        line.clear();
        let (read, over, tail) = match read_line(&mut input, &mut line, limit).await {
            Ok(Some(r)) => r,
            Ok(None) => break,
            Err(e) => {
                super::log(format_args!("reading the client's input: {e}"));
                break;
            }
        };
        let refusal = if over {
            super::log(format_args!(
                "refused a request line of {read} bytes (limit {limit} bytes)"
            ));
            Some(error(
                request_id(&line, &tail),
                -32600,
                &format!(
                    "Invalid request: the line is {read} bytes, over the server's limit of {limit} bytes per JSON-RPC message; send less in one call (for doc_replace, a smaller section)"
                ),
            ))
        } else {
            let text = trim_line(&line);
            if text.is_empty() {
                continue;
            }
            match serde_json::from_slice::<serde_json::Value>(text) {
                Ok(_) => None,
                Err(e) => {
                    super::log(format_args!("a request line is not JSON: {e}"));
                    Some(error(
                        serde_json::Value::Null,
                        -32700,
                        &format!("Parse error: {e}"),
                    ))
                }
            }
        };
        match refusal {
            Some(answer) => {
                if write_line(&output, answer.as_bytes()).await.is_err() {
                    break;
                }
            }
            None => {
                if feed.write_all(&line).await.is_err()
                    || (!line.ends_with(b"\n") && feed.write_all(b"\n").await.is_err())
                {
                    break;
                }
            }
        }
    }
    let _ = feed.shutdown().await;
    closed.notify_one();
}

/// Bytes kept of the head of a line over the limit (to read its id from).
const HEAD_BYTES: usize = 64 * 1024;

/// Bytes kept of the tail of a line over the limit (its id may come last).
const TAIL_BYTES: usize = 256;

/// Reads one line into `line` (at most `limit` bytes kept; the rest of a longer line is
/// skipped). Returns the line's length, whether it was over the limit and, if it was, the
/// line's last bytes (`line` then holds its first [`HEAD_BYTES`]); `None` at the end of the
/// input.
async fn read_line<R: AsyncRead + Unpin>(
    input: &mut BufReader<R>,
    line: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<Option<(usize, bool, Vec<u8>)>> {
    let mut total = 0;
    let mut tail: Vec<u8> = Vec::new();
    loop {
        let buf = input.fill_buf().await?;
        if buf.is_empty() {
            if total > limit {
                line.truncate(HEAD_BYTES);
            }
            return Ok((total > 0).then_some((total, total > limit, tail)));
        }
        let (take, done) = match memchr::memchr(b'\n', buf) {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        if total + take <= limit + 1 {
            line.extend_from_slice(&buf[..take]);
        } else {
            let room = (limit + 1).saturating_sub(total);
            line.extend_from_slice(&buf[..room.min(take)]);
        }
        tail.extend_from_slice(&buf[take.saturating_sub(TAIL_BYTES)..take]);
        if tail.len() > TAIL_BYTES {
            tail.drain(..tail.len() - TAIL_BYTES);
        }
        total += take;
        input.consume(take);
        if done {
            let len = total - 1;
            if len > limit {
                line.truncate(HEAD_BYTES);
            }
            return Ok(Some((len, len > limit, tail)));
        }
    }
}

/// `line` without its line ending and surrounding blanks.
fn trim_line(line: &[u8]) -> &[u8] {
    line.trim_ascii()
}

/// A JSON-RPC error response to the request `id` (null: its id could not be read).
fn error(id: serde_json::Value, code: i32, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

/// The id of a request too long to parse, read from its first bytes `head` (a top-level
/// `"id"` member before the cut) or, when the id comes last, its last bytes `tail`; null if
/// neither holds one.
fn request_id(head: &[u8], tail: &[u8]) -> serde_json::Value {
    head_id(head)
        .or_else(|| tail_id(tail))
        .unwrap_or(serde_json::Value::Null)
}

/// A JSON-RPC id (a string or an integer) at the start of `bytes`.
fn id_value(bytes: &[u8]) -> Option<(serde_json::Value, usize)> {
    let mut values = serde_json::Deserializer::from_slice(bytes).into_iter::<serde_json::Value>();
    match values.next()? {
        Ok(v @ (serde_json::Value::String(_) | serde_json::Value::Number(_))) => {
            Some((v, values.byte_offset()))
        }
        _ => None,
    }
}

/// Skips JSON whitespace from `at`.
fn skip_ws(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(|b| b.is_ascii_whitespace()) {
        at += 1;
    }
    at
}

/// The value of the top-level `"id"` member of the JSON object `head` starts (whose end may
/// be cut off), if it comes before the cut.
fn head_id(head: &[u8]) -> Option<serde_json::Value> {
    let mut at = skip_ws(head, 0);
    if head.get(at) != Some(&b'{') {
        return None;
    }
    let (mut depth, mut in_string, mut key_start) = (0usize, false, None);
    while at < head.len() {
        let b = head[at];
        if in_string {
            match b {
                b'\\' => at += 1,
                b'"' => {
                    in_string = false;
                    if let Some(start) = key_start.take() {
                        let after = skip_ws(head, at + 1);
                        if &head[start..at] == b"id" && head.get(after) == Some(&b':') {
                            let value_at = skip_ws(head, after + 1);
                            // The value must be whole: followed by `,` or `}`.
                            let (id, len) = id_value(&head[value_at..])?;
                            let next = skip_ws(head, value_at + len);
                            return matches!(head.get(next), Some(b',' | b'}')).then_some(id);
                        }
                    }
                }
                _ => {}
            }
        } else {
            match b {
                b'{' | b'[' => depth += 1,
                b'}' | b']' => depth = depth.saturating_sub(1),
                b'"' => {
                    in_string = true;
                    // A string right after `{` or `,` at the top level is a member's name.
                    let before = head[..at].iter().rev().find(|c| !c.is_ascii_whitespace());
                    if depth == 1 && matches!(before, Some(b'{' | b',')) {
                        key_start = Some(at + 1);
                    }
                }
                _ => {}
            }
        }
        at += 1;
    }
    None
}

/// The value of an `"id"` member that closes the object whose last bytes are `tail`
/// (`..., "id": 7}`).
fn tail_id(tail: &[u8]) -> Option<serde_json::Value> {
    let end = tail.trim_ascii_end().strip_suffix(b"}")?;
    let key = memchr::memmem::rfind(end, b"\"id\"")?;
    let before = end[..key].trim_ascii_end();
    if !before.ends_with(b",") {
        return None;
    }
    let colon = skip_ws(end, key + 4);
    if end.get(colon) != Some(&b':') {
        return None;
    }
    let value_at = skip_ws(end, colon + 1);
    let (id, len) = id_value(&end[value_at..])?;
    (skip_ws(end, value_at + len) == end.len()).then_some(id)
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    #[tokio::test]
    async fn bad_lines_are_answered_and_good_ones_passed_on() {
        let (mut client, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, mut client_out) = tokio::io::duplex(1 << 16);
        let mut p = pumped(server_in, server_out, 64);
        client
            .write_all(b"{\"a\": 1}\nnot json\n\n  \n{\"b\":\n")
            .await
            .unwrap();
        client.write_all(&[b'x'; 100]).await.unwrap();
        client.write_all(b"\n\xff\xfe\n[1]\n").await.unwrap();
        drop(client);
        let mut passed = String::new();
        p.read.read_to_string(&mut passed).await.unwrap();
        assert_eq!(passed, "{\"a\": 1}\n[1]\n");
        p.closed.notified().await;
        drop(p.write);
        let mut answered = String::new();
        client_out.read_to_string(&mut answered).await.unwrap();
        let codes: Vec<i64> = answered
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["error"]["code"]
                    .as_i64()
                    .unwrap()
            })
            .collect();
        assert_eq!(codes, [-32700, -32700, -32600, -32700]);
        assert!(
            answered.contains("100 bytes, over the server's limit of 64 bytes"),
            "{answered}"
        );
    }

    #[tokio::test]
    async fn a_line_over_the_limit_is_answered_with_its_id() {
        let (mut client, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, mut client_out) = tokio::io::duplex(1 << 16);
        let p = pumped(server_in, server_out, 64);
        let long = "x".repeat(200);
        let lines = [
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"a":"{long}"}}}}"#
            ),
            format!(r#"{{"method":"tools/call","params":{{"id":1,"a":"{long}"}},"id":"abc"}}"#),
            format!(r#"{{"method":"notifications/x","params":{{"id":1,"a":"{long}"}}}}"#),
        ];
        for l in &lines {
            client.write_all(l.as_bytes()).await.unwrap();
            client.write_all(b"\n").await.unwrap();
        }
        drop(client);
        p.closed.notified().await;
        drop(p.write);
        let mut answered = String::new();
        client_out.read_to_string(&mut answered).await.unwrap();
        let ids: Vec<serde_json::Value> = answered
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["id"].clone())
            .collect();
        assert_eq!(ids, [json!(7), json!("abc"), json!(null)], "{answered}");
    }

    #[test]
    fn ids_are_read_only_from_the_top_level() {
        assert_eq!(
            head_id(br#"{"jsonrpc":"2.0", "id" : 12, "params":{"#),
            Some(json!(12))
        );
        assert_eq!(head_id(br#"{"params":{"id":3,"x":"#), None);
        assert_eq!(head_id(br#"{"method":"id","params":"#), None);
        assert_eq!(head_id(br#"{"a":"\"id\":4","id":"q","#), Some(json!("q")));
        assert_eq!(
            head_id(br#"{"id":12"#),
            None,
            "an id cut short is not guessed"
        );
        assert_eq!(tail_id(br#"xx","id":9}"#), Some(json!(9)));
        assert_eq!(tail_id(br#"xx"},"id":9}}"#), None);
        assert_eq!(tail_id(br#"xx":{"id":9}"#), None);
    }
}
