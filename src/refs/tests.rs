//! Engine tests of references on a small tree in several languages: calls, type uses,
//! imports and member accesses found; comments, strings and definitions left out; the
//! enclosing symbol of each use; pages that together are the whole answer; an edit seen at
//! once; the parameter errors.

use std::path::Path;

use super::*;
use crate::roots::Roots;
use crate::words::NEUTRAL as CLI_WORDS;

const C: &str = "\
#include <stdlib.h>
/* grow_pool doubles a pool; see grow_pool() below */
struct grow_pool;
static int grow_pool(struct pool *p);

static int grow_pool(struct pool *p)
{
\tp->items = realloc(p->items, 2 * p->n);
\treturn p->items ? 0 : -1;
}

int fill(struct pool *p)
{
\tif (grow_pool(p))
\t\treturn puts(\"grow_pool failed\");
\treturn grow_pool(p);
}
";

const PY: &str = "\
from pools import grow_pool


class Filler:
    \"\"\"Calls grow_pool when full.\"\"\"

    def fill(self, pool):
        # grow_pool here is a comment
        return grow_pool(pool) or self.grow_pool
";

const RUST: &str = "\
use crate::pool::grow_pool;

pub struct Keeper;

impl Keeper {
    pub fn keep(&self) -> usize {
        let s = \"grow_pool\";
        grow_pool(s.len())
    }
}
";

const TS: &str = "\
import { grow_pool } from './pool';

export function start(): number {
  // grow_pool(1)
  const label = `grow_pool ${1}`;
  return grow_pool(label.length);
}
";

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pool.c"), C).unwrap();
    std::fs::write(dir.path().join("filler.py"), PY).unwrap();
    std::fs::write(dir.path().join("keeper.rs"), RUST).unwrap();
    std::fs::write(dir.path().join("start.ts"), TS).unwrap();
    std::fs::write(dir.path().join("notes.txt"), "grow_pool in prose\n").unwrap();
    dir
}

fn ws(dir: &Path) -> Workspace {
    Workspace::new(Roots::new([dir]).unwrap())
}

fn query(name: &str) -> RefsQuery {
    RefsQuery {
        name: name.into(),
        scope: GrepQuery {
            relative_to_root: true,
            ..GrepQuery::default()
        },
        ..RefsQuery::default()
    }
}

fn uses(r: &References) -> Vec<String> {
    r.refs
        .iter()
        .map(|u| {
            let sym = u.enclosing.as_ref().map_or("-", |e| e.name.as_str());
            format!("{}:{}:{} {sym}", u.path, u.line, u.column)
        })
        .collect()
}

#[test]
fn code_uses_with_their_symbols_and_no_comment_string_or_definition() {
    let dir = tree();
    let ws = ws(dir.path());
    let r = find(&ws, &query("grow_pool"), &Progress::default()).unwrap();
    assert_eq!(
        uses(&r),
        [
            "filler.py:1:19 -",
            "filler.py:9:16 Filler.fill",
            "filler.py:9:40 Filler.fill",
            "keeper.rs:1:18 -",
            "keeper.rs:8:9 Keeper.keep",
            "pool.c:14:6 fill",
            "pool.c:16:9 fill",
            "start.ts:1:10 -",
            "start.ts:6:10 start",
        ]
    );
    // The forward declaration, the C prototype and the definition: their lines set aside.
    assert_eq!(r.set_aside, 3);
    assert_eq!(r.files, 4);
    assert_eq!(r.parsed, 4);
    assert_eq!(r.refs[5].text, "if (grow_pool(p))");
}

#[test]
fn pages_together_are_the_whole_answer() {
    let dir = tree();
    let ws = ws(dir.path());
    let r = find(&ws, &query("grow_pool"), &Progress::default()).unwrap();
    let whole = render(&r, None, usize::MAX, &CLI_WORDS);
    assert!(!whole.truncated);
    assert_eq!(whole.shown, r.refs.len());
    for room in [200, 400, 700] {
        let mut seen = Vec::new();
        let mut cursor = None;
        loop {
            let page = render(&r, cursor.as_ref(), room, &CLI_WORDS);
            assert!(page.shown >= 1);
            seen.extend(r.refs[page.first..page.first + page.shown].iter().cloned());
            match page.next_cursor {
                Some(c) => cursor = Some(RefCursor::decode(&c).unwrap()),
                None => break,
            }
        }
        assert_eq!(seen, r.refs, "room {room}");
    }
}

#[test]
fn an_edit_is_seen_at_once_and_a_qualifier_is_said_to_narrow_nothing() {
    let dir = tree();
    let ws = ws(dir.path());
    let before = find(&ws, &query("grow_pool"), &Progress::default()).unwrap();
    std::fs::write(
        dir.path().join("more.go"),
        "package more\n\nfunc Again() int {\n\treturn pool.grow_pool(2)\n}\n",
    )
    .unwrap();
    let after = find(&ws, &query("pools.grow_pool"), &Progress::default()).unwrap();
    assert_eq!(after.refs.len(), before.refs.len() + 1);
    assert!(uses(&after).contains(&"more.go:4:14 Again".to_string()));
    assert_eq!(after.qualifier.as_deref(), Some("pools"));
    let text = render(&after, None, usize::MAX, &CLI_WORDS).text;
    assert!(
        text.contains("the qualifier `pools` is not checked"),
        "{text}"
    );
}

#[test]
fn lang_and_glob_narrow_and_bad_parameters_are_errors() {
    let dir = tree();
    let ws = ws(dir.path());
    let mut q = query("grow_pool");
    q.lang = Some("c".into());
    let r = find(&ws, &q, &Progress::default()).unwrap();
    assert!(r.refs.iter().all(|u| u.path == "pool.c"));
    let mut q = query("grow_pool");
    q.scope.globs = vec!["*.rs".into()];
    let r = find(&ws, &q, &Progress::default()).unwrap();
    assert_eq!(uses(&r), ["keeper.rs:1:18 -", "keeper.rs:8:9 Keeper.keep"]);
    for bad in ["", "a b", "+="] {
        let e = find(&ws, &query(bad), &Progress::default()).unwrap_err();
        assert!(matches!(e, RequestError::Param(_)), "{bad:?}");
    }
    let mut q = query("grow_pool");
    q.lang = Some("cobol".into());
    assert!(matches!(
        find(&ws, &q, &Progress::default()),
        Err(RequestError::Param(_))
    ));
}
