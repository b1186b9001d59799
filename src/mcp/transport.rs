//! The stdio transport: every line the client sends gets an answer, and the server knows
//! when its input ends.
//!
//! rmcp's own stdio transport drops what it cannot parse without a word, and a line over its
//! length limit likewise: the client then waits for an answer forever. Here a pump reads
//! standard input first: a line that is not JSON is answered with a JSON-RPC parse error
//! (-32700), a line over [`MAX_LINE_BYTES`] with an invalid-request error (-32600) naming the
//! limit, both logged on stderr; every other line goes on to rmcp. Standard output is written
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
        let (read, over) = match read_line(&mut input, &mut line, limit).await {
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
                    Some(error(-32700, &format!("Parse error: {e}")))
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

/// Reads one line into `line` (at most `limit` bytes kept; the rest of a longer line is
/// skipped). Returns the line's length and whether it was over the limit; `None` at the end
/// of the input.
async fn read_line<R: AsyncRead + Unpin>(
    input: &mut BufReader<R>,
    line: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<Option<(usize, bool)>> {
    let mut total = 0;
    loop {
        let buf = input.fill_buf().await?;
        if buf.is_empty() {
            return Ok((total > 0).then_some((total, total > limit)));
        }
        let (take, done) = match memchr::memchr(b'\n', buf) {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        if total + take <= limit + 1 {
            line.extend_from_slice(&buf[..take]);
        }
        total += take;
        input.consume(take);
        if done {
            let len = total - 1;
            if len > limit {
                line.clear();
            }
            return Ok(Some((len, len > limit)));
        }
    }
}

/// `line` without its line ending and surrounding blanks.
fn trim_line(line: &[u8]) -> &[u8] {
    line.trim_ascii()
}

/// A JSON-RPC error response with no id (the request's could not be read).
fn error(code: i32, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}}).to_string()
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
}
