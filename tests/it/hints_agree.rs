//! One hint rule for every front-end: on the same files, `grep_content` and the command
//! line's `--hints --json` give each hit the same section (first line, last line, the boundary
//! after it), the same markdown section and the same enclosing symbol.

use serde_json::{Value, json};

use crate::common::{BIN, Fixture, grep_view};
use crate::rg;

/// A work log in markdown: headings of three levels, log entries, a hit before the first
/// heading, one in a fenced block, one in a subsection, one in the last entry.
const WORK_MD: &str = "\
NEEDLE before any heading
# Work

## Plan
Step one NEEDLE.
### Details
NEEDLE in a subsection
```
## not a heading NEEDLE
```

## Log
[LOG-000001] - started
body NEEDLE
[LOG-000002] - went on
more
NEEDLE again
## Next
[LOG-000003] - last NEEDLE
";

/// The same boundaries in a plain text log (only the patterns count there).
const WORK_LOG: &str = "\
preamble NEEDLE
## Morning
[LOG-1] build
NEEDLE failed
[LOG-2] retry
ok NEEDLE
# Evening
tail NEEDLE
";

const APP_RS: &str = "\
//! A tiny service.

pub struct Service {
    name: String,
}

impl Service {
    pub fn start(&self) -> bool {
        // NEEDLE: start up
        !self.name.is_empty()
    }

    fn stop(&self) {
        let _ = \"NEEDLE\";
    }
}

fn helper() -> u8 {
    1 // NEEDLE
}
";

const TOOL_PY: &str = "\
class Tool:
    \"\"\"A tool.\"\"\"

    def run(self):
        return 'NEEDLE'

    class Inner:
        def go(self):
            pass  # NEEDLE


def main():
    Tool().run()  # NEEDLE
";

const APP_TS: &str = "\
export class App {
  start(): void {
    console.log('NEEDLE');
  }
}

export function boot(): App {
  // NEEDLE
  return new App();
}
";

/// The hints the command line gives: `(path, line) -> facts` in `grep_content`'s terms.
fn cli_hints(fx: &Fixture) -> Vec<Value> {
    let out = rg::run(BIN, &["grep", "--json", "--hints"], "NEEDLE", &fx.root);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let mut found = Vec::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["type"] != "match" {
            continue;
        }
        let d = &v["data"];
        let line = d["line_number"].as_u64().unwrap();
        let m = &d["mapgrep"];
        let hint = if m["section_end_line"].is_null() {
            Value::Null
        } else {
            // grep_content names the start only when it is above the hit.
            let start = m["section_start_line"].as_u64().filter(|&s| s < line);
            json!({"end_line": m["section_end_line"], "next": m["section_next"], "start_line": start})
        };
        let named = |v: &Value, name: Value| {
            if v.is_null() {
                Value::Null
            } else {
                json!({"name": name, "start_line": v["start_line"], "end_line": v["end_line"]})
            }
        };
        let section = &m["section"];
        let symbol = &m["symbol"];
        found.push(json!({
            "path": d["path"]["text"],
            "line": line,
            "section_end_hint": hint,
            "section": named(section, json!(format!("#{}", section["slug"].as_str().unwrap_or("")))),
            "symbol": named(symbol, symbol["name"].clone()),
        }));
    }
    found
}

/// The hints of the command line's text output (`path:line:text`, then `    ↳ ...`), read
/// back into the same facts.
fn cli_text_hints(fx: &Fixture) -> Vec<Value> {
    let out = rg::run(BIN, &["grep", "-n", "--hints"], "NEEDLE", &fx.root);
    let text = String::from_utf8(out.stdout).unwrap();
    let mut found: Vec<Value> = Vec::new();
    let span = |s: &str| -> (u64, u64) {
        let (a, b) = s.split_once('-').unwrap();
        (a.parse().unwrap(), b.parse().unwrap())
    };
    let named = |part: &str, prefix: &str| -> Option<Value> {
        let rest = part.strip_prefix(prefix)?;
        let (name, lines) = rest.rsplit_once(" (lines ")?;
        let (a, b) = span(lines.strip_suffix(')')?);
        Some(json!({"name": name, "start_line": a, "end_line": b}))
    };
    for l in text.lines() {
        let Some(parts) = l.strip_prefix("    ↳ ") else {
            let mut f = l.splitn(3, ':');
            let (path, line) = (f.next().unwrap(), f.next().unwrap().parse::<u64>().unwrap());
            found.push(json!({"path": path, "line": line, "section_end_hint": null,
                "section": null, "symbol": null}));
            continue;
        };
        let hit = found.last_mut().unwrap();
        let line = hit["line"].as_u64().unwrap();
        for part in parts.split("; ") {
            if let Some(rest) = part.strip_prefix("section ") {
                let (lines, next) = rest.split_once(" (").unwrap();
                let next = next.strip_suffix(')').unwrap();
                let next = next.strip_prefix("next ").map(str::to_string);
                let (start, end) = match lines.strip_prefix("to line ") {
                    Some(end) => (None, end.parse::<u64>().unwrap()),
                    None => {
                        let (a, b) = span(lines.strip_prefix("lines ").unwrap());
                        (Some(a), b)
                    }
                };
                let start = start.filter(|&s| s < line);
                hit["section_end_hint"] =
                    json!({"end_line": end, "next": next, "start_line": start});
            } else if let Some(v) = named(part, "in ") {
                // `in KIND NAME (lines A-B)`: the kind is the first word.
                let (_, name) = v["name"].as_str().unwrap().split_once(' ').unwrap();
                hit["symbol"] =
                    json!({"name": name, "start_line": v["start_line"], "end_line": v["end_line"]});
            } else {
                hit["section"] = named(part, "").unwrap();
            }
        }
    }
    found
}

#[tokio::test]
async fn grep_content_and_the_command_line_give_the_same_hints() {
    let fx = Fixture::new();
    fx.write("WORK.md", WORK_MD);
    fx.write("work.log", WORK_LOG);
    fx.write("src/app.rs", APP_RS);
    fx.write("lib/tool.py", TOOL_PY);
    fx.write("web/app.ts", APP_TS);
    fx.write("plain.txt", "no boundaries NEEDLE here\n");
    let srv = fx.serve().await;
    let r = srv
        .call(
            "grep_content",
            json!({"pattern": "NEEDLE", "max_results": 1000}),
        )
        .await
        .unwrap();
    let facts = grep_view(&r);
    srv.shutdown().await;
    let server: Vec<Value> = facts["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            json!({
                "path": m["path"], "line": m["line"], "section_end_hint": m["section_end_hint"],
                "section": m["section"], "symbol": m["symbol"],
            })
        })
        .collect();
    let cli = cli_hints(&fx);
    assert_eq!(server.len(), 20, "{server:#?}");
    assert_eq!(cli, server);
    assert_eq!(cli_text_hints(&fx), server);
    // Every kind of hint is among them: a log entry's bounds, a markdown section, symbols.
    let all = serde_json::to_string(&server).unwrap();
    for part in [
        r#""next":"^\\[LOG-""#,
        "\"name\":\"#plan\"",
        "\"name\":\"Service.start\"",
        "\"name\":\"Tool.Inner.go\"",
        "\"name\":\"App.start\"",
    ] {
        assert!(all.contains(part), "{part} in {all}");
    }
}
