//! ripgrep's JSON Lines output for `mapgrep grep --json`: `begin`, `match` and `context`
//! events with `lines`, `line_number`, `absolute_offset` and `submatches` (byte offsets),
//! `end` with each file's stats, and the closing `summary`; text that is not UTF-8 as
//! `{"bytes": base64}`; mapgrep's section and symbol in a `mapgrep` field (`--hints`).

use std::io::Write;
use std::time::Instant;

use super::printer::{FileOut, Printer, Stats};
use crate::annotate::Hint;
use crate::grep::Sel;

impl Printer<'_> {
    /// ripgrep's JSON events for one file: begin, match and context, end.
    pub(super) fn json_file(&self, f: &mut FileOut, bytes: &[u8], sels: &[Sel], hints: &[Hint]) {
        if sels.is_empty() {
            return;
        }
        let mut ev = Events {
            out: Vec::new(),
            name: &f.name,
            bytes,
        };
        ev.event(serde_json::json!({"type": "begin", "data": {"path": data(f.name.as_bytes())}}));
        let mut printed: u64 = 0;
        let mut extra = Stats::default();
        for (k, sel) in sels.iter().enumerate() {
            // Leading context, after what is printed.
            for (n, s, e) in
                crate::grep::lines_before(bytes, sel.start, sel.line, printed + 1, self.before)
            {
                ev.line("context", n, s, e, &[], None);
            }
            ev.line(
                "match",
                sel.line,
                sel.start,
                sel.end,
                &sel.subs,
                hints.get(k),
            );
            printed = sel.line;
            // Trailing context, up to the next selected line.
            let stop = sels.get(k + 1).map_or(u64::MAX, |x| x.line);
            // After the last line -m lets through, a matching line of the trailing context is
            // a match, and counted (ripgrep searches on to show it).
            let stopped = k + 1 == sels.len()
                && self.max_count.is_some_and(|m| sels.len() as u64 >= m)
                && !self.invert;
            printed = self.json_after(&mut ev, sel, printed, stop, stopped, &mut extra);
        }
        f.stats.matched_lines += extra.matched_lines;
        f.stats.matches += extra.matches;
        if extra.bytes_searched > 0 {
            f.stats.bytes_searched = extra.bytes_searched;
        }
        f.stats.bytes_printed = ev.out.len() as u64;
        f.stats.files_printed = 1;
        f.out = ev.out;
        f.selected = sels.iter().map(|s| (s.line, 0)).collect();
    }

    /// The trailing context of `sel` up to the line `stop`: context events, or (`stopped`: past
    /// the -m limit) match events for the lines that match, counted in `extra`. Returns the
    /// last line printed.
    fn json_after(
        &self,
        ev: &mut Events<'_>,
        sel: &Sel,
        mut printed: u64,
        stop: u64,
        stopped: bool,
        extra: &mut Stats,
    ) -> u64 {
        let bytes = ev.bytes;
        let mut pos = sel.end + 1;
        let mut left = self.after;
        while left > 0 && printed + 1 < stop && pos < bytes.len() {
            let e = crate::lines::line_end(bytes, pos);
            let subs: Vec<(usize, usize)> = if stopped {
                self.matcher.matches_in(&bytes[pos..e])
            } else {
                Vec::new()
            };
            if subs.is_empty() {
                ev.line("context", printed + 1, pos, e, &[], None);
            } else {
                ev.line("match", printed + 1, pos, e, &subs, None);
                extra.matched_lines += 1;
                extra.matches += subs.len() as u64;
                extra.bytes_searched = (e + 1).min(bytes.len()) as u64;
            }
            printed += 1;
            pos = e + 1;
            left -= 1;
        }
        printed
    }

    pub(super) fn json_end(&self, out: &mut impl Write, f: &FileOut) -> std::io::Result<()> {
        let v = serde_json::json!({"type": "end", "data": {
            "path": data(f.name.as_bytes()),
            "binary_offset": null,
            "stats": stats_json(&f.stats, 1, f.stats.files_with_match, f.elapsed_nanos),
        }});
        serde_json::to_writer(&mut *out, &v)?;
        out.write_all(b"\n")
    }

    /// ripgrep's closing `summary` event; `searches` counts every file searched (binary ones
    /// too, as ripgrep opens them before it sees they are binary).
    pub fn summary(
        &self,
        out: &mut impl Write,
        total: &Stats,
        searches: u64,
        started: Instant,
    ) -> std::io::Result<()> {
        let nanos = started.elapsed().as_nanos();
        let v = serde_json::json!({"data": {
            "elapsed_total": elapsed(nanos),
            "stats": stats_json(total, searches.max(total.files_with_match), total.files_with_match, nanos),
        }, "type": "summary"});
        serde_json::to_writer(&mut *out, &v)?;
        out.write_all(b"\n")
    }
}

/// One file's JSON Lines, as they are written.
struct Events<'a> {
    out: Vec<u8>,
    name: &'a str,
    bytes: &'a [u8],
}

impl Events<'_> {
    fn event(&mut self, v: serde_json::Value) {
        let _ = serde_json::to_writer(&mut self.out, &v);
        self.out.push(b'\n');
    }

    /// A `match` or `context` event for the line `bytes[s..e]` numbered `n`.
    fn line(
        &mut self,
        kind: &str,
        n: u64,
        s: usize,
        e: usize,
        subs: &[(usize, usize)],
        hint: Option<&Hint>,
    ) {
        let bytes = self.bytes;
        let end = if e < bytes.len() { e + 1 } else { e };
        let text = &bytes[s..e];
        let subs: Vec<serde_json::Value> = subs
            .iter()
            .map(|&(a, b)| serde_json::json!({"match": data(&text[a..b]), "start": a, "end": b}))
            .collect();
        let mut d = serde_json::json!({
            "path": data(self.name.as_bytes()),
            "lines": data(&bytes[s..end]),
            "line_number": n,
            "absolute_offset": s,
            "submatches": subs,
        });
        if let Some(h) = hint {
            d["mapgrep"] = hint_json(h);
        }
        self.event(serde_json::json!({"type": kind, "data": d}));
    }
}

/// mapgrep's `mapgrep` field of a match event: the hit's hint.
fn hint_json(h: &Hint) -> serde_json::Value {
    let end = h.section_end_hint.as_ref();
    serde_json::json!({
        "section_end_line": end.map(|e| e.end_line),
        "section_next": end.and_then(|e| e.next.clone()),
        "section_start_line": end.and_then(|e| e.start_line),
        "section": h.section.as_ref().map(|s| serde_json::json!({"slug": s.slug, "start_line": s.start_line, "end_line": s.end_line})),
        "symbol": h.symbol.as_ref().map(|s| serde_json::json!({"name": s.name, "kind": s.kind, "start_line": s.start_line, "end_line": s.end_line})),
    })
}

/// ripgrep's arbitrary data: `{"text": …}` for UTF-8, `{"bytes": base64}` otherwise.
fn data(bytes: &[u8]) -> serde_json::Value {
    match std::str::from_utf8(bytes) {
        Ok(s) => serde_json::json!({ "text": s }),
        Err(_) => serde_json::json!({ "bytes": base64(bytes) }),
    }
}

fn base64(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for k in 0..4 {
            if k <= c.len() {
                s.push(char::from(T[(n >> (18 - 6 * k) & 63) as usize]));
            } else {
                s.push('=');
            }
        }
    }
    s
}

fn elapsed(nanos: u128) -> serde_json::Value {
    let secs = nanos / 1_000_000_000;
    serde_json::json!({
        "secs": secs as u64,
        "nanos": (nanos % 1_000_000_000) as u64,
        "human": format!("{:.6}s", nanos as f64 / 1e9),
    })
}

fn stats_json(s: &Stats, searches: u64, with_match: u64, nanos: u128) -> serde_json::Value {
    serde_json::json!({
        "elapsed": elapsed(nanos),
        "searches": searches,
        "searches_with_match": with_match,
        "bytes_searched": s.bytes_searched,
        "bytes_printed": s.bytes_printed,
        "matched_lines": s.matched_lines,
        "matches": s.matches,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_rfc_examples() {
        for (raw, enc) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(raw.as_bytes()), enc);
        }
    }
}
