//! Markdown lines as [`super::skeleton`] reads them: where they are (`\n` ends a line), blank
//! lines, and what the start of a line may open: the container prefix, ATX headings,
//! underline and delimiter rows, link reference definitions, HTML blocks, and text that
//! opens nothing.

/// Splits `bytes` at `\n`: `(start, end)` of each line, terminator excluded.
pub(super) fn lines(bytes: &[u8], from: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut pos = from;
    std::iter::from_fn(move || {
        if pos >= bytes.len() {
            return None;
        }
        let start = pos;
        let end = crate::lines::line_end(bytes, pos);
        pos = end + 1;
        Some((start, end))
    })
}

/// A line without its trailing `\r`.
pub(super) fn content(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// A blank line: blanks and bare `\r` only. Not vertical tabs or form feeds: pulldown-cmark
/// lets a paragraph run on over a line of them.
pub(super) fn is_blank(line: &[u8]) -> bool {
    content(line)
        .iter()
        .all(|&b| matches!(b, b' ' | b'\t' | b'\r'))
}

/// End markers of HTML blocks that may span blank lines (CommonMark types 1 to 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum HtmlEnd {
    /// `</script>`, `</pre>`, `</style>` or `</textarea>`, any case.
    RawTag,
    Marker(&'static [u8]),
}

/// Whether `line` starts with 1 to 6 `#` followed by a blank or the line's end.
pub(super) fn opens_atx_heading(line: &[u8]) -> bool {
    let hashes = line.iter().take(7).take_while(|&&b| b == b'#').count();
    (1..=6).contains(&hashes) && matches!(line.get(hashes), None | Some(b' ' | b'\t' | b'\r'))
}

/// Whether a line whose text (after its container prefix) is `rest` cannot open or close
/// a block by its content: it starts with a letter, a non-ASCII character, or punctuation
/// that starts no block (backticks and tildes short of a fence; `[` when it cannot open a
/// link reference definition and is not a task list's box).
pub(super) fn plain_start(rest: &[u8], has_marker: bool) -> bool {
    let Some(&c) = rest.first() else {
        return false;
    };
    match c {
        b'a'..=b'z' | b'A'..=b'Z' | 0x80..=0xFF => true,
        b'!' | b'"' | b'$' | b'%' | b'&' | b'\'' | b'(' | b')' | b',' | b'.' | b'/' | b':'
        | b';' | b'?' | b'@' | b'\\' | b'^' | b'{' | b'}' | b'|' => true,
        b'`' | b'~' => !rest.starts_with(&[c, c, c]),
        b'[' => !has_marker && !may_open_reference(rest),
        _ => false,
    }
}

/// For a line starting with `[`: whether it may open a link reference definition (its
/// label is not closed on the line, or is closed by `]:`).
pub(super) fn may_open_reference(rest: &[u8]) -> bool {
    let mut i = 1;
    while i < rest.len() {
        match rest[i] {
            b'\\' => i += 2,
            b']' => return rest.get(i + 1) == Some(&b':'),
            b'[' => return false,
            _ => i += 1,
        }
    }
    true
}

/// Length of a line's container prefix (blanks, `>`, list markers followed by a blank) and
/// whether it holds a list marker.
pub(super) fn prefix_len(line: &[u8]) -> (usize, bool) {
    let mut j = 0;
    let mut marker = false;
    loop {
        while j < line.len() && matches!(line[j], b' ' | b'\t' | b'>') {
            j += 1;
        }
        let blank_at = |k: usize| k < line.len() && matches!(line[k], b' ' | b'\t');
        if j < line.len() && matches!(line[j], b'-' | b'+' | b'*') && blank_at(j + 1) {
            j += 1;
            marker = true;
            continue;
        }
        let digits = line[j..]
            .iter()
            .take(10)
            .take_while(|b| b.is_ascii_digit())
            .count();
        if (1..=9).contains(&digits)
            && j + digits < line.len()
            && matches!(line[j + digits], b'.' | b')')
            && blank_at(j + digits + 1)
        {
            j += digits + 1;
            marker = true;
            continue;
        }
        return (j, marker);
    }
}

/// A line that could underline a setext heading or be a table's delimiter row.
pub(super) fn is_underline_like(rest: &[u8]) -> bool {
    matches!(rest.first(), Some(b'=' | b'-' | b'|' | b':'))
        && rest
            .iter()
            .all(|&b| matches!(b, b'=' | b'-' | b'|' | b':') || is_space(b))
        && rest.iter().any(|&b| b == b'=' || b == b'-')
}

/// For a line starting with `<`: the end marker if it may open an HTML block that runs to a
/// marker (CommonMark types 1–5), `None` if it may open one that runs to a blank line.
pub(super) fn html_start(rest: &[u8]) -> Option<HtmlEnd> {
    let after = &rest[1..];
    if after.starts_with(b"!--") {
        return Some(HtmlEnd::Marker(b"-->"));
    }
    if after.starts_with(b"?") {
        return Some(HtmlEnd::Marker(b"?>"));
    }
    if after.starts_with(b"![CDATA[") {
        return Some(HtmlEnd::Marker(b"]]>"));
    }
    if after.first() == Some(&b'!') && after.get(1).is_some_and(u8::is_ascii_alphabetic) {
        return Some(HtmlEnd::Marker(b">"));
    }
    for tag in [&b"script"[..], b"pre", b"style", b"textarea"] {
        if after.len() >= tag.len() && after[..tag.len()].eq_ignore_ascii_case(tag) {
            match after.get(tag.len()) {
                None | Some(b' ' | b'\t' | b'>' | b'\r') => return Some(HtmlEnd::RawTag),
                _ => {}
            }
        }
    }
    None
}

pub(super) fn html_end_in(line: &[u8], end: HtmlEnd) -> bool {
    match end {
        HtmlEnd::Marker(m) => memchr::memmem::find(line, m).is_some(),
        HtmlEnd::RawTag => {
            let lower = line.to_ascii_lowercase();
            [&b"</script>"[..], b"</pre>", b"</style>", b"</textarea>"]
                .iter()
                .any(|m| memchr::memmem::find(&lower, m).is_some())
        }
    }
}

/// Blanks that may end a setext underline as pulldown-cmark reads the skeleton: spaces, tabs,
/// vertical tabs, form feeds, and bare `\r` (given to it as a blank, see the module docs).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\x0b' | b'\x0c' | b'\r')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes() {
        assert_eq!(prefix_len(b"> - 1. text"), (7, true));
        assert_eq!(prefix_len(b"    code"), (4, false));
        assert_eq!(prefix_len(b"-not a marker"), (0, false));
        assert_eq!(prefix_len(b"1234567890. x"), (0, false));
        assert_eq!(prefix_len(b"*\temph"), (2, true));
    }
}
