//! The facts a markdown tool's answer gives the model, read back from its text.
//!
//! Every tool answers with one text, shown as the text block and as `structuredContent.content`
//! (a client may show either alone). These parsers turn the doc tools' text layouts back into
//! the values the tests assert on, so a test checks exactly what the model reads.

use serde_json::{Value, json};

/// `(index_path, level, title)` of `6.2 ## Title`.
fn heading(s: &str) -> (String, u64, String) {
    let (path, rest) = s.split_once(' ').expect("`PATH ## TITLE`");
    let (hashes, title) = rest.split_once(' ').unwrap_or((rest, ""));
    (path.into(), hashes.len() as u64, title.into())
}

/// The number a phrase starts with (`12 lines` → 12).
fn leading_number(s: &str) -> u64 {
    s.split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a number: {s}"))
}

/// `(a, b)` of `a-b`.
fn span(s: &str) -> (u64, u64) {
    let (a, b) = s.split_once('-').expect("`A-B`");
    (
        a.parse().expect("first line"),
        b.parse().expect("last line"),
    )
}

/// A size as rendered (`512 B`, `1.2 KB`) in bytes, rounded as shown.
fn size(s: &str) -> u64 {
    let (n, unit) = s.split_once(' ').expect("`N UNIT`");
    let n: f64 = n.parse().expect("a size");
    let scale = match unit {
        "B" => 1.0,
        "KB" => 1024.0,
        _ => 1024.0 * 1024.0,
    };
    (n * scale).round() as u64
}

/// One outline line: `  1.2 ## Title  (#slug, lines 9-20, 1.2 KB)`.
pub fn toc_entry(line: &str) -> Value {
    let (head, rest) = line
        .trim_start()
        .rsplit_once("  (#")
        .expect("`...  (#slug, ...)`");
    let (index_path, level, title) = heading(head);
    let rest = rest.strip_suffix(')').expect("`)`");
    let (slug, rest) = rest.rsplit_once(", lines ").expect("`, lines`");
    let (lines, bytes) = rest.split_once(", ").expect("`A-B, SIZE`");
    let (a, b) = span(lines);
    json!({"index_path": index_path, "level": level, "title": title, "slug": slug,
           "line_start": a, "line_end": b, "size": size(bytes)})
}

/// A candidate line: `6.2 ## Title (#slug, lines 9-20)`.
fn candidate(line: &str) -> Value {
    let (head, rest) = line.rsplit_once(" (#").expect("`... (#slug, lines A-B)`");
    let (index_path, level, title) = heading(head);
    let (slug, lines) = rest
        .strip_suffix(')')
        .and_then(|r| r.rsplit_once(", lines "))
        .expect("`slug, lines A-B`");
    let (a, b) = span(lines);
    json!({"index_path": index_path, "level": level, "title": title, "slug": slug,
           "line_start": a, "line_end": b})
}

/// A section block (`File:`, `Section:`, `Lines: ... · Hash: ... · Matched by: ...`, notes,
/// the text between dashes) as `{slug, title, level, index_path, line_start, line_end,
/// total_lines, hash, matched_by, content, cut_section_end?, omitted_children}`.
pub fn section_block(block: &str) -> Value {
    let (head, body) = block.split_once("\n---\n").expect("a header, then `---`");
    let content = body
        .strip_suffix("---\n")
        .expect("the text ends with `---`");
    let mut v = json!({"content": content});
    v["include_children"] = (!head.contains("(include_children: false)")).into();
    let mut cut = None;
    for l in head.lines() {
        if let Some(s) = l.strip_prefix("Section: ") {
            let (h, slug) = s.rsplit_once(" (#").expect("`(#slug)`");
            let (index_path, level, title) = heading(h);
            v["index_path"] = index_path.into();
            v["level"] = level.into();
            v["title"] = title.into();
            v["slug"] = slug.strip_suffix(')').expect(")").into();
        } else if let Some(s) = l.strip_prefix("Lines: ") {
            let mut parts = s.split(" · ");
            let (lines, total) = parts.next().unwrap().split_once(" of ").expect("of");
            let (a, b) = span(lines);
            v["line_start"] = a.into();
            v["line_end"] = b.into();
            v["total_lines"] = total.parse::<u64>().expect("total").into();
            v["hash"] = parts
                .next()
                .unwrap()
                .strip_prefix("Hash: ")
                .expect("hash")
                .into();
            v["matched_by"] = parts
                .next()
                .unwrap()
                .strip_prefix("Matched by: ")
                .expect("tier")
                .into();
        } else if let Some(c) = l.strip_prefix("  - ") {
            if v.get("omitted_children").is_none() {
                v["omitted_children"] = json!([]);
            }
            v["omitted_children"]
                .as_array_mut()
                .unwrap()
                .push(candidate(c));
        } else if let Some(s) = l.strip_prefix("Note: Cut at line ") {
            let (at, rest) = s.split_once(' ').unwrap();
            let end = rest.split("runs to line ").nth(1).unwrap();
            let end: u64 = end.split('.').next().unwrap().parse().unwrap();
            cut = Some((at.parse::<u64>().unwrap(), end));
        }
    }
    if let Some((at, end)) = cut {
        v["line_end"] = at.into();
        v["cut_section_end"] = end.into();
    }
    v
}

/// What `tool`'s answer `text` says, in the shape the tests assert on.
pub fn doc_facts(tool: &str, text: &str) -> Value {
    let path = text
        .strip_prefix("File: ")
        .or_else(|| text.split("\nFile: ").nth(1))
        .map(|r| {
            r.lines()
                .next()
                .unwrap()
                .split(" · ")
                .next()
                .unwrap()
                .to_string()
        });
    match tool {
        "doc_read" => json!({"path": path, "section": section_block(text)}),
        "doc_toc" | "doc_find" => {
            let mut lines = text.lines();
            let header = lines.next().unwrap();
            let parts: Vec<&str> = header.split(" · ").collect();
            let mut v = json!({"path": path, "truncated": text.contains("\n[cut: ")});
            let mut entries = Vec::new();
            for l in lines {
                if let Some(m) = l.trim_start().strip_prefix('L')
                    && let Some((n, t)) = m.split_once(": ")
                    && let Ok(n) = n.parse::<u64>()
                {
                    let last: &mut Value = entries.last_mut().expect("a hit before its line");
                    last["matched_line"] = n.into();
                    last["matched_text"] = t.into();
                } else if l.contains("  (#") && l.ends_with(')') {
                    entries.push(toc_entry(l));
                }
            }
            if tool == "doc_toc" {
                v["total_lines"] = leading_number(parts[1]).into();
                v["total_sections"] = leading_number(parts[2]).into();
                v["sections"] = entries.into();
            } else {
                v["total_matches"] = leading_number(parts[1]).into();
                v["matches"] = entries.into();
            }
            v
        }
        "doc_read_many" => {
            let mut results = Vec::new();
            let mut rest = text;
            while let Some(start) = rest.find('[') {
                let block = &rest[start..];
                let (head, after) = block.split_once('\n').unwrap();
                let next = next_entry(after).map_or(after.len(), |i| i + 1);
                let body = &after[..next];
                let body = body
                    .strip_suffix('\n')
                    .filter(|b| b.ends_with('\n'))
                    .unwrap_or(body);
                let request = head
                    .split_once("] section: ")
                    .map(|(_, q)| serde_json::from_str::<String>(q).unwrap_or(q.to_string()));
                let mut entry = json!({"request": request});
                if body.starts_with("Error: ") {
                    entry["error"] = body.strip_suffix("\n---\n").unwrap_or(body).into();
                } else {
                    entry["section"] = section_block(body);
                }
                results.push(entry);
                rest = &after[next..];
            }
            json!({"path": path, "results": results})
        }
        "doc_replace" => {
            let replaced = text
                .split("\nReplaced: ")
                .nth(1)
                .unwrap()
                .lines()
                .next()
                .unwrap();
            let (c, was) = replaced.rsplit_once(" (was lines ").unwrap();
            let (a, b) = span(was.strip_suffix(')').unwrap());
            let hash = text
                .split("\nNew hash: ")
                .nth(1)
                .unwrap()
                .lines()
                .next()
                .unwrap();
            let total = text
                .rsplit("\nFile: ")
                .next()
                .unwrap()
                .split(' ')
                .next()
                .unwrap();
            json!({"path": path, "section": candidate(c), "hash": hash, "old_line_start": a,
                   "old_line_end": b, "total_lines": total.parse::<u64>().unwrap()})
        }
        _ => panic!("no text layout known for {tool}"),
    }
}

/// Where the next `[i/n] section:` (or `[i-n/n]`) header starts in `s` (its `\n`).
fn next_entry(s: &str) -> Option<usize> {
    s.match_indices("\n[").map(|(i, _)| i).find(|&i| {
        let rest = &s[i + 2..];
        let head = rest.split(']').next().unwrap_or("");
        !head.is_empty()
            && head.contains('/')
            && head
                .chars()
                .all(|c| c.is_ascii_digit() || c == '/' || c == '-')
    })
}

/// What a `grep_content` answer says: `matches` (`path`, `line`, `text`,
/// `section_end_hint {end_line, next}`, `symbol {name, start_line, end_line}`, `context
/// {before, after}`), the counts of its summary (`total_matches`, `files_matched`,
/// `files_searched`, `binary_skipped`), `truncated` and `next_cursor`.
pub fn grep_facts(text: &str) -> Value {
    let lines: Vec<&str> = text.lines().collect();
    let mut matches = Vec::new();
    let mut i = 0;
    let mut summary = Vec::new();
    while i < lines.len() {
        let Some(header) = lines[i].strip_prefix("File: ") else {
            summary.push(lines[i]);
            i += 1;
            continue;
        };
        let (path, rest) = header.split_once(", Line: ").expect("`File: P, Line: N`");
        // The fields after the line number, each `, KEY: value`, in this order.
        let keys = [
            ", Section-End-Hint: ",
            ", Section-Start: ",
            ", Section: ",
            ", Symbol: ",
        ];
        let rest = format!(", Line: {rest}");
        let field = |key: &str| -> Option<&str> {
            let from = rest.find(key)? + key.len();
            let to = keys
                .iter()
                .filter_map(|k| rest[from..].find(k))
                .min()
                .map_or(rest.len(), |i| from + i);
            Some(&rest[from..to])
        };
        let line: u64 = field(", Line: ").unwrap().parse().expect("line number");
        let mut hint = Value::Null;
        if let Some(h) = field(", Section-End-Hint: ") {
            let (end, paren) = h.split_once(' ').expect("`H (...)`");
            let next = paren
                .strip_prefix("(next: ")
                .and_then(|p| p.strip_suffix(')'))
                .map(str::to_string);
            let start = field(", Section-Start: ").map(|s| s.parse::<u64>().unwrap());
            hint =
                json!({"end_line": end.parse::<u64>().unwrap(), "next": next, "start_line": start});
        }
        let named = |s: &str| {
            let (name, lines) = s.rsplit_once(" (lines ").expect("`NAME (lines A-B)`");
            let (a, b) = span(lines.strip_suffix(')').unwrap());
            json!({"name": name, "start_line": a, "end_line": b})
        };
        let symbol = field(", Symbol: ").map_or(Value::Null, named);
        let section = field(", Section: ").map_or(Value::Null, named);
        assert_eq!(
            lines.get(i + 1),
            Some(&"---"),
            "a match block opens with ---"
        );
        let mut j = i + 2;
        let mut body = Vec::new();
        while j < lines.len() && lines[j] != "---" {
            body.push(lines[j]);
            j += 1;
        }
        let numbered = |l: &str, sep: &str| -> Option<(u64, String)> {
            let (n, t) = l.split_once(sep)?;
            Some((n.parse().ok()?, t.to_string()))
        };
        let own = format!("{line}: ");
        let (mut before, mut after, mut own_text) = (Vec::new(), Vec::new(), None);
        if body.len() == 1 && !body[0].starts_with(&own) {
            own_text = Some(body[0].to_string());
        } else {
            for l in &body {
                if own_text.is_none() && l.starts_with(&own) {
                    own_text = Some(l[own.len()..].to_string());
                } else if let Some((n, t)) = numbered(l, "- ") {
                    let c = json!({"line": n, "text": t});
                    if own_text.is_none() {
                        before.push(c)
                    } else {
                        after.push(c)
                    }
                }
            }
        }
        let own_text = own_text.expect("the matching line");
        let own_text = own_text
            .strip_suffix(" […line cut]")
            .unwrap_or(&own_text)
            .to_string();
        matches.push(json!({"path": path, "line": line, "text": own_text,
            "section_end_hint": hint, "symbol": symbol, "section": section,
            "context": {"before": before, "after": after}}));
        i = j + 1;
    }
    let count = |prefix: &str| -> u64 {
        summary
            .iter()
            .find_map(|l| l.strip_prefix(prefix))
            .and_then(|r| r.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    let searched = summary
        .iter()
        .find_map(|l| l.split("(searched ").nth(1))
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or(0);
    let found = summary.iter().find_map(|l| l.strip_prefix("Found "));
    let files_matched = found
        .and_then(|f| f.split(" in ").nth(1))
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or(0);
    let binary = count("Skipped ").max(
        summary
            .iter()
            .find_map(|l| l.strip_prefix("Skipped binary files ("))
            .and_then(|r| r.split(')').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0),
    );
    let errors = count("Could not read ").max(
        summary
            .iter()
            .find_map(|l| l.strip_prefix("Could not read ("))
            .and_then(|r| r.split(')').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0),
    );
    // With list_skipped: the names listed under `Skipped binary files (N):`.
    let skipped: Vec<&str> = summary
        .iter()
        .skip_while(|l| !l.starts_with("Skipped binary files ("))
        .skip(1)
        .map_while(|l| l.strip_prefix("  "))
        .filter(|l| !l.starts_with('…'))
        .collect();
    let cursor = text
        .split("cursor: \"")
        .nth(1)
        .and_then(|r| r.split("\".").next())
        .map(str::to_string);
    json!({
        "total_matches": matches.len(),
        "matches": matches,
        "files_matched": files_matched,
        "files_searched": searched,
        "binary_skipped": binary,
        "errors": errors,
        "skipped_binary": skipped,
        "truncated": text.contains("\nResults cut at ") || text.starts_with("Results cut at "),
        "next_cursor": cursor,
    })
}
