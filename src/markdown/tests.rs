//! Tests of the outline and of section addressing on whole documents.

use super::*;
use crate::LineIndex;

/// `(level, title, slug, index_path, line_start, line_end)` of every section.
fn summary(doc: &str) -> Vec<(u8, String, String, String, u64, u64)> {
    Outline::build(doc.as_bytes())
        .sections()
        .iter()
        .map(|s| {
            (
                s.level,
                s.title.clone(),
                s.slug.clone(),
                s.index_path.clone(),
                s.line_start,
                s.line_end,
            )
        })
        .collect()
}

fn titles(doc: &str) -> Vec<String> {
    let outline = Outline::build(doc.as_bytes());
    outline.sections().iter().map(|s| s.title.clone()).collect()
}

fn slugs(doc: &str) -> Vec<String> {
    let outline = Outline::build(doc.as_bytes());
    outline.sections().iter().map(|s| s.slug.clone()).collect()
}

/// Checks an outline's invariants against the document and the crate's `LineIndex`.
fn check_invariants(doc: &[u8], outline: &Outline) {
    let index = LineIndex::build(doc);
    assert_eq!(outline.total_lines(), index.total_lines(doc));
    assert_eq!(outline.doc_len(), doc.len());
    for s in outline.sections() {
        assert_eq!(
            index.line_of_offset(doc, s.bytes.start),
            s.line_start,
            "{s:?}"
        );
        assert_eq!(
            index.line_range(doc, s.line_start, s.line_end),
            s.bytes,
            "bytes of {s:?}"
        );
        assert_eq!(s.size, s.bytes.len());
        assert!(s.line_start <= s.heading_line_end && s.heading_line_end <= s.line_end);
        for c in outline.children(s) {
            assert_eq!(c.parent, Some(s.id));
            assert!(c.level > s.level);
            assert!(s.bytes.start < c.bytes.start && c.bytes.end <= s.bytes.end);
        }
    }
}

#[test]
fn unicode_titles_and_slugs() {
    let doc = "# 验证计划\n\n## 日本語の見出し：テスト\n\n## Профили пользователей\n\n## ＦＵＬＬ　ＷＩＤＴＨ Ｔｉｔｌｅ\n\n## Ünïcödé — Ñame\n";
    assert_eq!(
        titles(doc),
        [
            "验证计划",
            "日本語の見出し：テスト",
            "Профили пользователей",
            "ＦＵＬＬ　ＷＩＤＴＨ Ｔｉｔｌｅ",
            "Ünïcödé — Ñame",
        ]
    );
    assert_eq!(
        slugs(doc),
        [
            "验证计划",
            "日本語の見出しテスト",
            "профили-пользователей",
            "ｆｕｌｌｗｉｄｔｈ-ｔｉｔｌｅ",
            "ünïcödé--ñame",
        ]
    );
}

#[test]
fn duplicate_headings_get_numbered_slugs() {
    let doc = "# Notes\n## Examples\n## Examples\n## Examples\n## Examples 1\n## examples-1\n";
    assert_eq!(
        slugs(doc),
        [
            "notes",
            "examples",
            "examples-1",
            "examples-2",
            "examples-1-1",
            "examples-1-2"
        ]
    );
}

#[test]
fn setext_headings_count() {
    let doc = "Title\n=====\n\nSub *one*\nspans lines\n---\n\ntext\n\n   Indented\n  ===\n";
    let outline = Outline::build(doc.as_bytes());
    let s = outline.sections();
    assert_eq!(s.len(), 3);
    assert_eq!(
        (s[0].level, s[0].title.as_str(), s[0].slug.as_str()),
        (1, "Title", "title")
    );
    assert_eq!(
        (s[0].line_start, s[0].heading_line_end, s[0].line_end),
        (1, 2, 9)
    );
    assert_eq!(
        (s[1].level, s[1].title.as_str()),
        (2, "Sub one spans lines")
    );
    assert_eq!(s[1].slug, "sub-onespans-lines");
    assert_eq!(
        (s[1].line_start, s[1].heading_line_end, s[1].line_end),
        (4, 6, 9)
    );
    assert_eq!(
        (s[2].level, s[2].title.as_str(), s[2].line_start),
        (1, "Indented", 10)
    );
    check_invariants(doc.as_bytes(), &outline);
}

#[test]
fn hash_lines_in_code_are_not_headings() {
    let doc = "# Real\n\n```sh\n# a comment\n## another\n```\n\n~~~~\n# tilde fence\n```\n# still code\n~~~~\n\n    # indented code\n\n- item\n\n      # code in a list item\n\n```\n# unclosed fence runs to the end\n";
    assert_eq!(titles(doc), ["Real"]);
    let outline = Outline::build(doc.as_bytes());
    assert_eq!(outline.sections()[0].line_end, outline.total_lines());
}

#[test]
fn html_and_front_matter_are_not_headings() {
    let doc = "---\ntitle: Doc\n# yaml comment\n---\n# One\n\n<!--\n# commented out\n\n## still commented\n-->\n\n<div>\n# in a div\n</div>\n\n<details>\n\n# after a blank line the div is over\n\n</details>\n";
    assert_eq!(titles(doc), ["One", "after a blank line the div is over"]);
    assert_eq!(Outline::build(doc.as_bytes()).sections()[0].line_start, 5);

    let toml = "+++\ntitle = \"Doc\"\n# comment\n+++\n# One\n";
    assert_eq!(titles(toml), ["One"]);
    let toml_crlf = "+++\r\ntitle = 1\r\n+++\r\n# One\r\n";
    assert_eq!(titles(toml_crlf), ["One"]);
}

#[test]
fn metadata_blocks_only_at_the_start() {
    // pulldown-cmark's metadata blocks may start anywhere; front matter may not.
    let doc = "# One\n\ntext\n\n---\n## Two\n\nmore\n\n---\n";
    assert_eq!(titles(doc), ["One", "Two"]);
    // Not front matter: a blank second line, or no closing line.
    assert_eq!(titles("---\n\n# A\n\n---\n"), ["A"]);
    assert_eq!(titles("---\n# A\n"), ["A"]);
}

#[test]
fn headings_in_lists_and_blockquotes_count() {
    let doc = "# Top\n\n- # In a list\n- item\n  ## Nested in item\n\n> # Quoted\n> ## Quoted two\n\n1. > ### Deep\n";
    let outline = Outline::build(doc.as_bytes());
    let got: Vec<(u8, &str, u64)> = outline
        .sections()
        .iter()
        .map(|s| (s.level, s.title.as_str(), s.line_start))
        .collect();
    assert_eq!(
        got,
        [
            (1, "Top", 1),
            (1, "In a list", 3),
            (2, "Nested in item", 5),
            (1, "Quoted", 7),
            (2, "Quoted two", 8),
            (3, "Deep", 10)
        ]
    );
    // The section starts at the start of its heading's line.
    assert_eq!(
        outline.sections()[1].bytes.start,
        doc.find("- # In").unwrap()
    );
    check_invariants(doc.as_bytes(), &outline);
}

#[test]
fn index_paths_number_the_tree() {
    let doc = "## A\n### A1\n### A2\n#### A2a\n## B\n#### B1 skips a level\n### B2\n# C\n## C1\n";
    let got: Vec<(String, String)> = summary(doc)
        .into_iter()
        .map(|(_, title, _, path, _, _)| (path, title))
        .collect();
    let want = [
        ("1", "A"),
        ("1.1", "A1"),
        ("1.2", "A2"),
        ("1.2.1", "A2a"),
        ("2", "B"),
        ("2.1", "B1 skips a level"),
        ("2.2", "B2"),
        ("3", "C"),
        ("3.1", "C1"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
    assert_eq!(got, want);
    let outline = Outline::build(doc.as_bytes());
    let roots: Vec<&str> = outline.roots().map(|s| s.title.as_str()).collect();
    assert_eq!(roots, ["A", "B", "C"]);
    let b = &outline.sections()[4];
    let kids: Vec<&str> = outline.children(b).map(|s| s.title.as_str()).collect();
    assert_eq!(kids, ["B1 skips a level", "B2"]);
    assert_eq!(outline.sections()[6].parent, Some(4));
}

#[test]
fn line_ranges_end_before_the_next_same_or_higher_heading() {
    let doc = "intro\n\n# A\ntext a\n## A.1\ntext\n### A.1.1\ndeep\n## A.2\nx\n# B\nlast\nline";
    let got: Vec<(String, u64, u64)> = summary(doc)
        .into_iter()
        .map(|(_, title, _, _, start, end)| (title, start, end))
        .collect();
    let want = [
        ("A", 3, 10),
        ("A.1", 5, 8),
        ("A.1.1", 7, 8),
        ("A.2", 9, 10),
        ("B", 11, 13),
    ];
    let want: Vec<(String, u64, u64)> = want.iter().map(|&(t, a, b)| (t.into(), a, b)).collect();
    assert_eq!(got, want);
    let outline = Outline::build(doc.as_bytes());
    let a = &outline.sections()[0];
    assert_eq!(
        a.text(doc.as_bytes()),
        b"# A\ntext a\n## A.1\ntext\n### A.1.1\ndeep\n## A.2\nx\n"
    );
    let b = &outline.sections()[4];
    assert_eq!(b.text(doc.as_bytes()), b"# B\nlast\nline");
    assert_eq!(b.size, 13);
    check_invariants(doc.as_bytes(), &outline);

    // A trailing newline: the last section still ends on the last line.
    let doc = "# Only\nbody\n";
    assert_eq!(summary(doc)[0].5, 2);
    let outline = Outline::build(doc.as_bytes());
    assert_eq!(outline.sections()[0].bytes, 0..doc.len());
    check_invariants(doc.as_bytes(), &outline);
}

#[test]
fn titles_are_plain_text() {
    let doc = "# `code` and *emph* __strong__ [link *text*](http://x) ![image alt](y.png) <span>html</span> ~~struck~~ &amp; end #\n";
    let outline = Outline::build(doc.as_bytes());
    let s = &outline.sections()[0];
    assert_eq!(s.title, "code and emph strong link text  html struck & end");
    assert_eq!(s.slug, "code-and-emph-strong-link-text--html-struck--end");
    // An entity-encoded space survives the heading's trimming, as on GitHub.
    assert_eq!(slugs("# &#x20;a\n"), ["-a"]);
}

#[test]
fn content_hash_tracks_section_bytes() {
    let doc = b"# A\none\n# B\ntwo\n";
    let outline = Outline::build(doc);
    let (a, b) = (&outline.sections()[0], &outline.sections()[1]);
    assert_eq!(a.content_hash(doc), content_hash(b"# A\none\n"));
    assert_eq!(a.content_hash(doc).len(), 16);
    assert_ne!(a.content_hash(doc), b.content_hash(doc));
    assert_eq!(content_hash(b""), "cbf29ce484222325");
    assert_eq!(content_hash(b"a"), "af63dc4c8601ec8c");
    let edited = b"# A\nONE\n# B\ntwo\n";
    let again = Outline::build(edited);
    assert_ne!(
        again.sections()[0].content_hash(edited),
        a.content_hash(doc)
    );
    assert_eq!(
        again.sections()[1].content_hash(edited),
        b.content_hash(doc)
    );
}

#[test]
fn crlf_invalid_utf8_and_bom() {
    let doc = b"\xEF\xBB\xBF# Caf\xE9\r\ntext \xFF\r\n## Next\r\nend\r\n";
    let outline = Outline::build(doc);
    let s = outline.sections();
    assert_eq!(s.len(), 2);
    assert_eq!(s[0].title, "Caf\u{FFFD}");
    assert_eq!((s[0].line_start, s[0].line_end), (1, 4));
    assert_eq!((s[1].line_start, s[1].line_end), (3, 4));
    assert_eq!(s[1].bytes.start, 19);
    check_invariants(doc, &outline);
}

#[test]
fn lines_end_at_newlines_only() {
    // pulldown-cmark would end a line at a bare `\r`; mapgrep's lines end at `\n`, so a bare
    // `\r` is a blank inside its line and two headings never share one.
    let doc = b"# a\r# b\n## c\r\ntext\rmore\n";
    let outline = Outline::build(doc);
    let s = outline.sections();
    assert_eq!(s.len(), 2);
    assert_eq!(s[0].title, "a # b");
    assert_eq!((s[0].line_start, s[0].line_end), (1, 3));
    assert_eq!(
        (s[1].title.as_str(), s[1].line_start, s[1].line_end),
        ("c", 2, 3)
    );
    check_invariants(doc, &outline);
    // Vertical tabs and form feeds are blanks after a setext underline.
    assert_eq!(titles("Title\n===\u{c}\n"), ["Title"]);
    assert_eq!(titles("m\n-\u{b}\n"), ["m"]);
    // A document that is only a byte order mark is one empty line.
    assert_eq!(Outline::build(b"\xEF\xBB\xBF").total_lines(), 1);
}

#[test]
fn documents_without_headings() {
    for doc in ["", "\n", "just text\n", "```\n# code\n```\n"] {
        let outline = Outline::build(doc.as_bytes());
        assert!(outline.is_empty(), "{doc:?}");
        assert!(matches!(
            resolve(&outline, "anything"),
            Resolution::NotFound(s) if s.is_empty()
        ));
    }
}

/// Tricky documents: the skeleton must give exactly what parsing the whole text gives.
const TRICKY: &[&str] = &[
    "Para line one\nline two\n===\n",
    "Para\nmore\n- item\n---\n",
    "| a | b |\n|---|---|\n| c | d |\n---\n# after\n",
    "a | b\n- | -\ncell\nmore text\n\n---\ntext\n---\n",
    "[foo]: /url\n===\n\n[bar]: /u 'multi\nline\ntitle'\nbar\n---\n",
    "[foo]:\nhttp://example.com\n'title'\n===\n# [foo] link\n",
    "> quote\nlazy line\n===\n> # h\n",
    "- a\n  b\n  ===\n- c\n\n      code\n  ---\n",
    "1. one\n2. two\n   # nested\n\n10) ten\n    ===\n",
    "<div>\ntext\n# not\n\n# yes\n",
    "<!-- a\nb\n\n# no\n--> x\n# yes\n",
    "<script>\n# no\n\n# still no\n</SCRIPT>\n# yes\n",
    "<?php\n# no\n?>\n# yes\n<![CDATA[\n# no\n]]>\n<!DOCTYPE\n# no\n>\n# yes2\n",
    "text\n<div>\n# h\n",
    "   ```\n  # code\n     ```\n# yes\n",
    "````\n```\n# no\n````\n~~~\n# no\n```\n~~~\n",
    "- ```\n  # code\n- # item heading\n```\n",
    "\tcode\n# h\n \t# not code?\n",
    "Text\r\nmore\r\n===\r\n# crlf\r\n",
    "a\rb\n# h\rnot\n",
    "* * *\n- - -\nfoo\n- - -\nbar\n***\n",
    "Foo\n    ---\n\nFoo\n---- -\n\nFoo\n= =\n",
    "- foo\n\n  bar\n  ---\n\n-\n  baz\n  ===\n",
    "> - a\n>   b\n>   ===\n> c\nd\n---\n",
    "Title\n=\n\n   Title\n   ---\n\n    Title\n    ---\n",
    "# Heading #\n## Heading ##   \n### ###\n#\n#5 not\n####### seven\n",
    "  x\n  y\n  ---\n\nx\n  y\n---\n",
    "- [ ] task\n  more\n  ===\n",
    "hello\n<div>\n# inside\n\n# outside\n",
    "<pre>\n\n# no\n</pre>\n# yes\n",
    "paragraph\n[ref]: /x\n===\n",
    "Setext with `code\nspan` inside\n---\n",
    "x\n\u{a0}# nbsp\n",
    "[foo]:\n/url\n'title'\n<custom-tag>\n# inside html\n",
    "[foo]: /url\n\"title\"\n<custom-tag attr=\"1\">\n# inside html\n\n# out\n",
    "> [a]: /u\n> (title)\n> <x-y>\n> # h\n",
    "para\n-   \n  foo\n",
    "> a\n> b\n> -\n",
    // Found by fuzzing: bare `\r`, vertical tabs and form feeds.
    "#\r#",
    "#\n##\r#",
    "# a\r# b\n## c\r\n",
    "m\n-\re",
    "\u{cc}\n-\u{b}",
    "m\n-\u{b}",
    "Title\n===\u{c}\n",
    "a\nb\n\u{b}\n===\n# h\n",
    "para\n\u{c}\u{b}\r\n- \u{b}item\n---\n",
    "a\r\r\n===\r\n",
    "Setext heading\n--1-\n\r-------------\n\n",
    "a\n\r# h\n\r```\n# no\n```\n",
    "| a |\n\r|---|\nrow\n===\n",
];

fn assert_same(doc: &[u8]) {
    let fast = Outline::build(doc);
    let slow = Outline::build_verbatim(doc);
    assert_eq!(
        fast.sections(),
        slow.sections(),
        "skeleton and verbatim parses differ on {:?}",
        String::from_utf8_lossy(doc)
    );
    check_invariants(doc, &fast);
    for parts in [2, 3, 5] {
        assert_eq!(
            Outline::build_in_parts(doc, parts).sections(),
            slow.sections(),
            "a parse in {parts} chunks differs on {:?}",
            String::from_utf8_lossy(doc)
        );
    }
}

#[test]
fn skeleton_parses_like_the_whole_text_on_tricky_documents() {
    for doc in TRICKY {
        assert_same(doc.as_bytes());
    }
}

/// Random documents made of lines that matter to block structure.
#[test]
fn skeleton_parses_like_the_whole_text_on_random_documents() {
    const PIECES: &[&str] = &[
        "",
        "",
        "",
        "Plain words here",
        "more words",
        "Ünïcode 文字",
        "text with `code` and [a](b) (parens) 'quotes' \"dq\"",
        "# Heading",
        "## Sub *heading*",
        "### Third #",
        "   #### indented",
        "    # four spaces",
        "===",
        "---",
        "- - -",
        "***",
        "- item",
        "* item",
        "+ item",
        "1. item",
        "2) item",
        "  continued",
        "    deeper",
        "      deepest",
        "> quote",
        "> # quoted heading",
        "> > nested",
        ">",
        "- # list heading",
        "- > quote in list",
        "```",
        "~~~",
        "````rust",
        "  ```",
        "<div>",
        "</div>",
        "<!--",
        "-->",
        "<script>",
        "</script>",
        "<?php",
        "?>",
        "<!X",
        ">",
        "[ref]: /url",
        "[ref]:",
        "/dest 'title",
        "continues'",
        "| a | b |",
        "|---|---|",
        "| c | d |",
        "a | b",
        "--- | ---",
        "\tTabbed",
        "-\tTab item",
        "Title\r",
        "x\ry",
        "# a\r# b",
        "-\u{b}",
        "===\u{c}",
        "\u{b}",
        "\r\r",
        "\r---",
        "\r# r",
        "\r```",
        "+++",
        "...",
        "Setext text",
        "  ===",
        "[x]",
        "- [ ] task",
        "-",
        "-   ",
        "1.",
        "*",
        "=",
        "`` not a fence",
        "~ tilde",
        "'quoted' start",
        "[not]: a def",
        "[LOG-1] - entry",
        "<custom-tag>",
        "<x-y attr=\"1\">",
        "</custom-tag>",
        "| x |",
        "|:-:|",
    ];
    const PREFIXES: &[&str] = &["", "", "", "", "> ", "  ", "- ", "    ", "> - ", "1. "];
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let rounds: usize = std::env::var("MARKDOWN_RANDOM_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(4000);
    for _ in 0..rounds {
        let lines = 1 + next() % 24;
        let mut doc = String::new();
        for _ in 0..lines {
            if next() % 3 == 0 {
                doc.push_str(PREFIXES[(next() % PREFIXES.len() as u64) as usize]);
            }
            doc.push_str(PIECES[(next() % PIECES.len() as u64) as usize]);
            doc.push('\n');
        }
        if next() % 4 == 0 {
            doc.pop();
        }
        assert_same(doc.as_bytes());
    }
}

#[test]
fn skeleton_parses_like_the_whole_text_on_the_repository_docs() {
    let root = env!("CARGO_MANIFEST_DIR");
    for name in [
        "README.md",
        "BENCHMARKS.md",
        "benchmarks/2026-history.md",
        "SECURITY.md",
        "ARCHITECTURE.md",
        "docs/doc_tools.md",
    ] {
        if let Ok(doc) = std::fs::read(format!("{root}/{name}")) {
            assert_same(&doc);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Addressing.

const GUIDE: &str = "---
title: fixture
---
# Guide
Intro.

## Install
Steps.

### From source
Build it.

## 6.2 Phase B 验证计划
Plan.

## Phase B
Text.

## Usage
### Examples
One.
## Notes
### Examples
Two.
## Straße
End.
";

fn guide() -> Outline {
    Outline::build(GUIDE.as_bytes())
}

/// The title and tier of a found section.
fn found(outline: &Outline, query: &str) -> (String, Tier) {
    match resolve(outline, query) {
        Resolution::Found(s, tier) => (s.title.clone(), tier),
        other => panic!("{query:?}: {other:?}"),
    }
}

fn title_tier(title: &str, tier: Tier) -> (String, Tier) {
    (title.to_string(), tier)
}

#[test]
fn guide_outline() {
    let outline = guide();
    check_invariants(GUIDE.as_bytes(), &outline);
    let got: Vec<(&str, &str, &str, u64, u64)> = outline
        .sections()
        .iter()
        .map(|s| {
            (
                s.index_path.as_str(),
                s.title.as_str(),
                s.slug.as_str(),
                s.line_start,
                s.line_end,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("1", "Guide", "guide", 4, 26),
            ("1.1", "Install", "install", 7, 12),
            ("1.1.1", "From source", "from-source", 10, 12),
            ("1.2", "6.2 Phase B 验证计划", "62-phase-b-验证计划", 13, 15),
            ("1.3", "Phase B", "phase-b", 16, 18),
            ("1.4", "Usage", "usage", 19, 21),
            ("1.4.1", "Examples", "examples", 20, 21),
            ("1.5", "Notes", "notes", 22, 24),
            ("1.5.1", "Examples", "examples-1", 23, 24),
            ("1.6", "Straße", "straße", 25, 26),
        ]
    );
}

#[test]
fn tier_slug() {
    let o = guide();
    assert_eq!(found(&o, "install"), title_tier("Install", Tier::Slug));
    assert_eq!(
        found(&o, "#from-source"),
        title_tier("From source", Tier::Slug)
    );
    assert_eq!(
        found(&o, "user-content-examples-1"),
        title_tier("Examples", Tier::Slug)
    );
    assert_eq!(resolve(&o, "examples-1").found().unwrap().line_start, 23);
    assert_eq!(
        found(&o, "#user-content-62-phase-b-验证计划"),
        title_tier("6.2 Phase B 验证计划", Tier::Slug)
    );
}

#[test]
fn tier_index_path_by_written_number() {
    let o = guide();
    assert_eq!(
        found(&o, "6.2"),
        title_tier("6.2 Phase B 验证计划", Tier::TitleNumber)
    );
    assert_eq!(
        found(&o, "6.2."),
        title_tier("6.2 Phase B 验证计划", Tier::TitleNumber)
    );
    // Two headings numbered alike: ambiguous, no guess.
    let doc = "# 1. One\n## 1.1 A\n# 1. Again\n";
    let o = Outline::build(doc.as_bytes());
    assert!(matches!(
        resolve(&o, "1."),
        Resolution::Ambiguous(Tier::TitleNumber, c) if c.len() == 2
    ));
}

#[test]
fn tier_index_path_by_position() {
    let o = guide();
    assert_eq!(found(&o, "1."), title_tier("Guide", Tier::TreePosition));
    assert_eq!(
        found(&o, "1.1.1"),
        title_tier("From source", Tier::TreePosition)
    );
    assert_eq!(
        found(&o, "1.4.1"),
        title_tier("Examples", Tier::TreePosition)
    );
    // No heading is numbered 1.2 in its text, so the tree position answers.
    assert_eq!(
        found(&o, "1.2"),
        title_tier("6.2 Phase B 验证计划", Tier::TreePosition)
    );
    assert!(matches!(resolve(&o, "1.9"), Resolution::NotFound(_)));
    assert!(matches!(resolve(&o, "0.1"), Resolution::NotFound(_)));
}

#[test]
fn tier_line_number() {
    let o = guide();
    assert_eq!(found(&o, "4"), title_tier("Guide", Tier::Line));
    assert_eq!(found(&o, "11"), title_tier("From source", Tier::Line));
    assert_eq!(found(&o, "12"), title_tier("From source", Tier::Line));
    assert_eq!(
        found(&o, "13"),
        title_tier("6.2 Phase B 验证计划", Tier::Line)
    );
    assert_eq!(resolve(&o, "21").found().unwrap().slug, "examples");
    assert_eq!(resolve(&o, "26").found().unwrap().slug, "straße");
    // Past the end, or before the first heading: not a line of any section.
    assert!(!matches!(
        resolve(&o, "27"),
        Resolution::Found(_, Tier::Line)
    ));
    assert!(!matches!(
        resolve(&o, "3"),
        Resolution::Found(_, Tier::Line)
    ));
}

#[test]
fn tier_exact_title() {
    let o = guide();
    assert_eq!(found(&o, "Straße"), title_tier("Straße", Tier::ExactTitle));
    assert_eq!(
        found(&o, "  From source "),
        title_tier("From source", Tier::ExactTitle)
    );
    assert!(matches!(
        resolve(&Outline::build(b"# A b\n# A b\n"), "A b"),
        Resolution::Ambiguous(Tier::ExactTitle, c) if c.len() == 2
    ));
}

#[test]
fn tier_folded_title() {
    let o = guide();
    assert_eq!(
        found(&o, "STRASSE"),
        title_tier("Straße", Tier::FoldedTitle)
    );
    assert_eq!(
        found(&o, "PhaseB"),
        title_tier("Phase B", Tier::FoldedTitle)
    );
    assert_eq!(
        found(&o, "phase b"),
        title_tier("Phase B", Tier::FoldedTitle)
    );
    assert_eq!(
        found(&o, "ＰＨＡＳＥ　Ｂ"),
        title_tier("Phase B", Tier::FoldedTitle)
    );
    assert_eq!(
        found(&o, "from-source!"),
        title_tier("From source", Tier::FoldedTitle)
    );
    let cyrillic = Outline::build("# Профили Пользователей\n".as_bytes());
    assert_eq!(
        found(&cyrillic, "профили пользователей"),
        title_tier("Профили Пользователей", Tier::FoldedTitle)
    );
}

#[test]
fn tier_title_substring() {
    let o = guide();
    assert_eq!(
        found(&o, "验证计划"),
        title_tier("6.2 Phase B 验证计划", Tier::TitleSubstring)
    );
    assert_eq!(
        found(&o, "sourc"),
        title_tier("From source", Tier::TitleSubstring)
    );
    let ja = Outline::build("# 概要\n## インストール手順\n".as_bytes());
    assert_eq!(
        found(&ja, "インストール"),
        title_tier("インストール手順", Tier::TitleSubstring)
    );
}

#[test]
fn tier_title_tokens() {
    let o = guide();
    assert_eq!(
        found(&o, "source from"),
        title_tier("From source", Tier::TitleTokens)
    );
    assert_eq!(
        found(&o, "验证计划 phase"),
        title_tier("6.2 Phase B 验证计划", Tier::TitleTokens)
    );
}

#[test]
fn ambiguity_lists_candidates_without_guessing() {
    let o = guide();
    match resolve(&o, "EXAMPLES") {
        Resolution::Ambiguous(Tier::FoldedTitle, candidates) => {
            let got: Vec<(&str, u8, u64, u64)> = candidates
                .iter()
                .map(|c| (c.slug.as_str(), c.level, c.line_start, c.line_end))
                .collect();
            assert_eq!(got, [("examples", 3, 20, 21), ("examples-1", 3, 23, 24)]);
        }
        other => panic!("{other:?}"),
    }
    match resolve(&o, "phase") {
        Resolution::Ambiguous(Tier::TitleSubstring, candidates) => {
            let slugs: Vec<&str> = candidates.iter().map(|c| c.slug.as_str()).collect();
            assert_eq!(slugs, ["62-phase-b-验证计划", "phase-b"]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn not_found_suggests_similar_titles() {
    let o = guide();
    match resolve(&o, "Instalation") {
        Resolution::NotFound(suggestions) => {
            assert!(!suggestions.is_empty() && suggestions.len() <= MAX_SUGGESTIONS);
            assert_eq!(suggestions[0].candidate.slug, "install");
            assert!(suggestions.windows(2).all(|w| w[0].score >= w[1].score));
        }
        other => panic!("{other:?}"),
    }
    match resolve(&o, "exampels") {
        Resolution::NotFound(suggestions) => {
            let slugs: Vec<&str> = suggestions
                .iter()
                .take(2)
                .map(|s| s.candidate.slug.as_str())
                .collect();
            assert_eq!(slugs, ["examples", "examples-1"]);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(resolve(&o, "zzzz"), Resolution::NotFound(s) if s.is_empty()));
    assert!(matches!(resolve(&o, "   "), Resolution::NotFound(s) if s.is_empty()));
}

/// docs/doc_tools.md, "Addressing a section": the acceptance asserts of the fuzzy matching, on the table of contents
/// they imply.
#[test]
fn spec_004_acceptance() {
    let doc = "# DX-77: MCP Document Tools Enhancements

## 6 Implementation Plan

### 6.1 Phase B: Fuzzy Matching

### Phase B

### 6.2 Phase B 验证计划
";
    let toc = Outline::build(doc.as_bytes());
    let find_section = |q: &str| resolve(&toc, q).found();

    assert!(find_section("验证计划").is_some());
    assert_eq!(find_section("phase b").unwrap().slug, "phase-b");
    assert_eq!(find_section("PhaseB").unwrap().slug, "phase-b");

    // And by the tiers the module promises: "phase b" and "PhaseB" match "Phase B" whole
    // (folded) before the substring tier, where three titles would match.
    assert_eq!(
        found(&toc, "phase b"),
        title_tier("Phase B", Tier::FoldedTitle)
    );
    assert_eq!(
        found(&toc, "PhaseB"),
        title_tier("Phase B", Tier::FoldedTitle)
    );
    assert_eq!(
        found(&toc, "验证计划"),
        title_tier("6.2 Phase B 验证计划", Tier::TitleSubstring)
    );
    assert!(matches!(
        resolve(&toc, "phase"),
        Resolution::Ambiguous(Tier::TitleSubstring, c) if c.len() == 3
    ));
    assert_eq!(find_section("phase-b").unwrap().title, "Phase B");
    assert_eq!(find_section("6.2").unwrap().slug, "62-phase-b-验证计划");
    assert_eq!(
        find_section("61-phase-b-fuzzy-matching")
            .unwrap()
            .index_path,
        "1.1.1"
    );
}

// ---- The addressing tiers on whole documents (moved from the server tests) -------------------

/// Headings at three levels, a title that carries its own numbering ("2.1 Configure", at
/// position 1.1.2, while position 2.1 is "API Details"), a heading whose title is another
/// heading's slug ("foo-bar"), and a preamble before the first heading.
const TIERS: &str = include_str!("../../tests/data/tiers.md");

/// Titles in several scripts, full-width letters and a sharp s.
const UNICODE: &str = "\
# 文档

## 安装指南

中文内容。

## 日本語の見出し

日本語の本文。

## Привет мир

Текст.

## ＦＵＬＬ Width Heading

Full-width text.

## Straße Notes

German text.

## Ελληνικά Κεφάλαιο

Greek text.
";

/// Repeated titles, and titles that collide with the suffixed slugs of others.
const DUPES: &str = "\
# Log

## Notes

first notes

## Notes

second notes

## Notes

third notes

## Tag

## Tag

## Tag 1

## Item 1

## Item

## Item
";

/// The 1-based number of the first line of `doc` equal to `line`.
fn line_no(doc: &str, line: &str) -> u64 {
    doc.lines()
        .position(|l| l == line)
        .unwrap_or_else(|| panic!("no line {line:?}")) as u64
        + 1
}

/// The slug and tier of the one section `query` finds in `outline`.
fn slug_tier(outline: &Outline, query: &str) -> (String, Tier) {
    match resolve(outline, query) {
        Resolution::Found(s, tier) => (s.slug.clone(), tier),
        other => panic!("{query:?}: {other:?}"),
    }
}

/// The error `find_section` gives for `query`, in neutral words.
fn section_error(outline: &Outline, query: &str) -> crate::error::ParamError {
    doc::find_section(outline, query)
        .map(|(s, _)| s.slug.clone())
        .expect_err(query)
        .to_param_error("given", &crate::words::Neutral)
}

#[test]
fn every_addressing_tier_on_a_three_level_document() {
    let o = Outline::build(TIERS.as_bytes());
    let paths: Vec<&str> = o.sections().iter().map(|s| s.index_path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "1", "1.1", "1.1.1", "1.1.2", "1.2", "2", "2.1", "2.1.1", "2.2", "2.3"
        ]
    );
    assert_eq!(
        slugs(TIERS),
        [
            "guide",
            "setup",
            "install-the-tools",
            "21-configure",
            "usage-notes",
            "reference",
            "api-details",
            "error-codes",
            "foo-bar",
            "foo-bar-1"
        ]
    );
    let line = |l: &str| line_no(TIERS, l).to_string();
    let last = o.total_lines().to_string();
    let cases: Vec<(String, &str, Tier)> = vec![
        // 1. Slug, bare, with `#`, with GitHub's `user-content-` prefix, with spaces around.
        ("setup".into(), "setup", Tier::Slug),
        ("#setup".into(), "setup", Tier::Slug),
        ("user-content-setup".into(), "setup", Tier::Slug),
        (
            "#user-content-error-codes".into(),
            "error-codes",
            Tier::Slug,
        ),
        ("  usage-notes  ".into(), "usage-notes", Tier::Slug),
        // The slug tier comes before the exact title: "foo-bar" is the slug of "Foo Bar"
        // even though another heading's title is exactly "foo-bar" (slug foo-bar-1).
        ("foo-bar".into(), "foo-bar", Tier::Slug),
        ("foo-bar-1".into(), "foo-bar-1", Tier::Slug),
        // 2. Index path: the numbering written in a title wins over the tree position...
        ("2.1".into(), "21-configure", Tier::TitleNumber),
        ("2.1.".into(), "21-configure", Tier::TitleNumber),
        // ...and a path no title carries is a position.
        ("2.1.1".into(), "error-codes", Tier::TreePosition),
        ("1.2".into(), "usage-notes", Tier::TreePosition),
        ("1.1.2".into(), "21-configure", Tier::TreePosition),
        ("2.".into(), "reference", Tier::TreePosition),
        ("2.3".into(), "foo-bar-1", Tier::TreePosition),
        // 3. Line number: the innermost section containing it.
        (line("Install step two."), "install-the-tools", Tier::Line),
        (
            line("### Install the Tools"),
            "install-the-tools",
            Tier::Line,
        ),
        (line("Setup text."), "setup", Tier::Line),
        (line("# Guide"), "guide", Tier::Line),
        (last, "foo-bar-1", Tier::Line),
        // 4. Exact title.
        (
            "Install the Tools".into(),
            "install-the-tools",
            Tier::ExactTitle,
        ),
        ("2.1 Configure".into(), "21-configure", Tier::ExactTitle),
        // 5. Normalized title: case, spacing and punctuation do not matter.
        (
            "install THE tools".into(),
            "install-the-tools",
            Tier::FoldedTitle,
        ),
        (
            "INSTALLTHETOOLS".into(),
            "install-the-tools",
            Tier::FoldedTitle,
        ),
        ("api-details!".into(), "api-details", Tier::FoldedTitle),
        ("21 configure".into(), "21-configure", Tier::FoldedTitle),
        // 6. Part of the normalized title.
        ("error cod".into(), "error-codes", Tier::TitleSubstring),
        ("USAGE".into(), "usage-notes", Tier::TitleSubstring),
        ("the tool".into(), "install-the-tools", Tier::TitleSubstring),
        // 7. All words, any order.
        ("codes error".into(), "error-codes", Tier::TitleTokens),
        (
            "tools install".into(),
            "install-the-tools",
            Tier::TitleTokens,
        ),
        ("Details  API".into(), "api-details", Tier::TitleTokens),
    ];
    for (query, slug, tier) in &cases {
        assert_eq!(slug_tier(&o, query), (slug.to_string(), *tier), "{query:?}");
    }
    // A line in the middle of a subsection names that subsection, whole.
    let s = resolve(&o, &line("Install step two.")).found().unwrap();
    assert_eq!(
        (s.line_start, s.line_end),
        (
            line_no(TIERS, "### Install the Tools"),
            line_no(TIERS, "### 2.1 Configure") - 1
        )
    );

    // A line before the first heading, line 0 and a line past the end are in no section.
    // (Only digits no title contains: a number that is no line falls through to the title
    // rules, and "2" is part of "2.1 Configure"'s normalized title "21configure".)
    const PRE: &str = "Preamble.\n\nMore preamble.\n\n# First Heading\n\ntext\n";
    let pre = Outline::build(PRE.as_bytes());
    for (outline, doc, query) in [(&o, TIERS, "3"), (&pre, PRE, "1"), (&pre, PRE, "4")] {
        let e = section_error(outline, query);
        assert_eq!(e.short, "Section not found");
        assert_eq!(
            e.problem,
            format!(
                "Line {query} is in no section: the document has {} lines and its first heading is at line {}.",
                doc.split_inclusive('\n').count(),
                doc.lines().position(|l| l.starts_with('#')).unwrap() + 1
            )
        );
        assert_eq!(e.provided, "given");
    }
    assert_eq!(
        slug_tier(&pre, "5"),
        ("first-heading".to_string(), Tier::Line)
    );
    // Line 0, a line past the end, and an index path that is no title's numbering and no
    // position are not found; a blank query is refused as empty.
    for query in ["0", "999", "3.1"] {
        assert_eq!(
            section_error(&o, query).short,
            "Section not found",
            "{query}"
        );
    }
    assert_eq!(section_error(&o, "   ").short, "Empty section");
}

#[test]
fn every_script_addresses_by_slug_and_by_title() {
    let o = Outline::build(UNICODE.as_bytes());
    assert_eq!(
        titles(UNICODE),
        [
            "文档",
            "安装指南",
            "日本語の見出し",
            "Привет мир",
            "ＦＵＬＬ Width Heading",
            "Straße Notes",
            "Ελληνικά Κεφάλαιο"
        ]
    );
    // GitHub's slugs: lowercased, letters of every script kept, spaces to `-`.
    let all = [
        "文档",
        "安装指南",
        "日本語の見出し",
        "привет-мир",
        "ｆｕｌｌ-width-heading",
        "straße-notes",
        "ελληνικά-κεφάλαιο",
    ];
    assert_eq!(slugs(UNICODE), all);
    for slug in all {
        assert_eq!(slug_tier(&o, slug), (slug.to_string(), Tier::Slug));
        assert_eq!(
            slug_tier(&o, &format!("#{slug}")),
            (slug.to_string(), Tier::Slug)
        );
    }
    let cases = [
        ("安装", "安装指南", Tier::TitleSubstring),
        ("指南", "安装指南", Tier::TitleSubstring),
        ("見出し", "日本語の見出し", Tier::TitleSubstring),
        ("日本語の見出し", "日本語の見出し", Tier::Slug),
        ("привет", "привет-мир", Tier::TitleSubstring),
        ("ПРИВЕТ МИР", "привет-мир", Tier::FoldedTitle),
        ("мир привет", "привет-мир", Tier::TitleTokens),
        ("Привет мир", "привет-мир", Tier::ExactTitle),
        ("full width", "ｆｕｌｌ-width-heading", Tier::TitleSubstring),
        (
            "ＦＵＬＬ ＷＩＤＴＨ ＨＥＡＤＩＮＧ",
            "ｆｕｌｌ-width-heading",
            Tier::FoldedTitle,
        ),
        (
            "full width heading",
            "ｆｕｌｌ-width-heading",
            Tier::FoldedTitle,
        ),
        ("STRASSE NOTES", "straße-notes", Tier::FoldedTitle),
        ("strasse", "straße-notes", Tier::TitleSubstring),
        ("ΕΛΛΗΝΙΚΆ", "ελληνικά-κεφάλαιο", Tier::TitleSubstring),
    ];
    for (query, slug, tier) in cases {
        assert_eq!(slug_tier(&o, query), (slug.to_string(), tier), "{query:?}");
    }
    // "ü" is not "u", but folds from "Ü".
    let bom = Outline::build("# Überblick\n\nText.\n".as_bytes());
    assert!(matches!(
        resolve(&bom, "uberblick"),
        Resolution::NotFound(_)
    ));
    assert_eq!(
        slug_tier(&bom, "ÜBERBLICK"),
        ("überblick".to_string(), Tier::FoldedTitle)
    );
}

#[test]
fn duplicate_titles_are_ambiguous_and_slugs_or_positions_name_one() {
    let o = Outline::build(DUPES.as_bytes());
    // github-slugger: a repeated slug gets -1, -2; "Tag 1" then skips the taken "tag-1", and
    // a second "Item" skips "item-1", taken by "Item 1" before it.
    assert_eq!(
        slugs(DUPES),
        [
            "log", "notes", "notes-1", "notes-2", "tag", "tag-1", "tag-1-1", "item-1", "item",
            "item-2"
        ]
    );
    // The title names three sections: nothing is guessed, all three are offered.
    for (query, tier) in [("Notes", "exact title"), ("NOTES", "normalized title")] {
        let e = section_error(&o, query);
        assert_eq!(e.short, "Ambiguous section");
        assert_eq!(
            e.problem,
            format!("\"{query}\" matches 3 sections by {tier}; no guess was made.")
        );
        let offered: Vec<&str> = e
            .fix
            .lines()
            .filter_map(|l| l.strip_prefix("  - "))
            .collect();
        assert_eq!(offered.len(), 3, "{}", e.fix);
        for (line, slug) in offered.iter().zip(["notes", "notes-1", "notes-2"]) {
            assert!(
                line.contains(&format!("## Notes (#{slug}, lines ")),
                "{line}"
            );
        }
    }
    // A slug names exactly one, whose section is its heading and text.
    for (slug, body) in [
        ("notes", "first notes"),
        ("notes-1", "second notes"),
        ("notes-2", "third notes"),
    ] {
        let s = resolve(&o, slug).found().unwrap();
        assert_eq!(slug_tier(&o, slug), (slug.to_string(), Tier::Slug));
        assert_eq!(s.line_start, line_no(DUPES, body) - 2);
        assert_eq!(s.line_end, s.line_start + 3);
    }
    // So does an index path (position) and a line.
    assert_eq!(
        slug_tier(&o, "1.3"),
        ("notes-2".to_string(), Tier::TreePosition)
    );
    assert_eq!(
        slug_tier(&o, &line_no(DUPES, "third notes").to_string()),
        ("notes-2".to_string(), Tier::Line)
    );
    // "Tag" is exact for two, "Tag 1" exact for one.
    assert!(matches!(
        resolve(&o, "Tag"),
        Resolution::Ambiguous(Tier::ExactTitle, c) if c.len() == 2
    ));
    assert_eq!(
        slug_tier(&o, "Tag 1"),
        ("tag-1-1".to_string(), Tier::ExactTitle)
    );
}

/// Front matter, fenced, indented and commented `#` lines, setext headings, repeated titles
/// and a title numbered "2.1" that is not at position 2.1 (moved from the server tests).
const PLAN_DOC: &str = include_str!("../../tests/data/plan_doc.md");

#[test]
fn every_addressing_tier_past_front_matter_code_and_setext() {
    let o = Outline::build(PLAN_DOC.as_bytes());
    // docs/doc_tools.md, "Addressing a section".
    assert_eq!(slug_tier(&o, "验证计划").0, "62-phase-b-验证计划");
    assert_eq!(slug_tier(&o, "phase b").0, "phase-b");
    assert_eq!(slug_tier(&o, "PhaseB").0, "phase-b");
    let cases = [
        ("phase-b", "phase-b", Tier::Slug),
        ("#phase-b", "phase-b", Tier::Slug),
        ("user-content-phase-b", "phase-b", Tier::Slug),
        ("notes-1", "notes-1", Tier::Slug),
        // The numbering written in a title wins over the position in the outline...
        ("6.2", "62-phase-b-验证计划", Tier::TitleNumber),
        ("2.1", "21-written-number", Tier::TitleNumber),
        // ...and a path no title carries is a position: 1.3.1 is the first "Notes".
        ("1.3.1", "notes", Tier::TreePosition),
        // Line 38 is inside the second "### Notes".
        ("38", "notes-1", Tier::Line),
        ("Phase B", "phase-b", Tier::ExactTitle),
        ("ＰＨＡＳＥ　Ｂ", "phase-b", Tier::FoldedTitle),
        ("STRASSE UND WEG", "straße-und-weg", Tier::FoldedTitle),
        ("日本語", "日本語の見出し", Tier::TitleSubstring),
        ("проверка", "проверка-данных", Tier::TitleSubstring),
        (
            "full width",
            "ｆｕｌｌｗｉｄｔｈ-title",
            Tier::TitleSubstring,
        ),
        ("number written", "21-written-number", Tier::TitleTokens),
    ];
    for (query, slug, tier) in cases {
        assert_eq!(slug_tier(&o, query), (slug.to_string(), tier), "{query:?}");
    }
    // Duplicates: ambiguous, no guess, candidates listed.
    let e = section_error(&o, "Notes");
    assert_eq!(e.short, "Ambiguous section");
    assert!(e.problem.contains("no guess"), "{e:?}");
    for slug in ["#notes,", "#notes-1,", "#notes-2,"] {
        assert!(e.fix.contains(slug), "{slug} in {e:?}");
    }
    // A line before the first heading or past the end is in no section, and says why.
    for line in ["3", "999"] {
        assert_eq!(
            section_error(&o, line).problem,
            format!(
                "Line {line} is in no section: the document has 69 lines and its first heading is at line 5."
            )
        );
    }
    // Not found: suggestions.
    let e = section_error(&o, "Phsae B Desgin");
    assert_eq!(e.short, "Section not found");
    assert!(
        e.fix.starts_with("Did you mean") && e.fix.contains("#61-phase-b-design"),
        "{e:?}"
    );
}

#[test]
fn chunked_parse_checks_its_cuts() {
    // Each piece is long enough to be cut at its headings; the blocks before the cuts decide
    // whether the chunks may be parsed apart.
    let filler = "Some words of a paragraph.\n\n".repeat(50);
    let pieces = [
        "```\n",
        "```\n\n",
        "````\n    ````\n",
        "  ```\n",
        "<div>\n",
        "<!--\n",
        "<div>\n\n",
        "[ref]: /url\n",
        "- item\n  ```\n",
        "> ```\n",
        // The skeleton's fence tracking is fooled here (it sees the list item's fence close),
        // so only the parse's own check keeps the chunks together.
        "- item\n  ```\ncode\n```\n",
    ];
    for piece in pieces {
        let doc = format!(
            "# Start [ref]\n{filler}{piece}# One [ref]\n{filler}{piece}# Two\n{filler}```\n# Three\n```\n"
        );
        let slow = Outline::build_verbatim(doc.as_bytes());
        for parts in [2, 3, 4, 8] {
            assert_eq!(
                Outline::build_in_parts(doc.as_bytes(), parts).sections(),
                slow.sections(),
                "{parts} chunks, piece {piece:?}"
            );
        }
    }
    let fence = "```\nx\n```";
    assert!(super::headings::fence_is_closed_for_tests(fence));
    assert!(!super::headings::fence_is_closed_for_tests("````\nx\n```"));
    assert!(!super::headings::fence_is_closed_for_tests(
        "```\nx\n    ```"
    ));
    assert!(super::headings::fence_is_closed_for_tests(
        "~~~\nx\n   ~~~~  "
    ));
}

#[test]
fn parallel_skeleton_carries_open_html_blocks_across_parts() {
    // The skeleton is built in parts that start after blank lines; here the blank line is
    // inside an HTML comment whose end marker follows text, so the part after it must know.
    for tail in [
        "<!--\n\nfoo\nbar -->\n# after\n",
        "<script>\n\nlet a;\nx </script>\n# after\n",
        "<?php\n\necho 1;\nx ?>\n# after\n",
    ] {
        let doc = format!("{}{tail}", "a\n".repeat(20));
        let slow = Outline::build_verbatim(doc.as_bytes());
        assert_eq!(slow.len(), 1);
        for parts in [2, 3] {
            assert_eq!(
                Outline::build_in_parts(doc.as_bytes(), parts).sections(),
                slow.sections(),
                "{parts} parts: {doc:?}"
            );
        }
    }
}

/// A document with thousands of sections, long enough to be parsed in many chunks and placed
/// in several batches: the result equals the whole-text parse.
#[test]
fn large_documents_parse_like_the_whole_text() {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let blocks: &[&str] = &[
        "Plain words of a paragraph that runs on\nand on for a second line.\n\n",
        "- item one\n- item two\n  - nested item\n\n",
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n",
        "```bash\n# not a heading\necho hi\n```\n\n",
        "> quoted text\n> # quoted heading\n\n",
        "Setext title\n------------\n\n",
        "<!--\n# commented out\n-->\n\n",
        "    # indented code\n\n",
        "1. first\n2. second\n\n",
        "Ünïcode 文字 данные\n\n",
    ];
    let mut doc = String::new();
    let mut n = 0;
    while doc.len() < 3 * 1024 * 1024 {
        n += 1;
        let level = 1 + next() % 3;
        doc.push_str(&"#".repeat(level as usize));
        doc.push_str(&format!(" {n}. Section {} 验证\n\n", next() % 50));
        for _ in 0..1 + next() % 4 {
            doc.push_str(blocks[(next() % blocks.len() as u64) as usize]);
        }
    }
    let bytes = doc.as_bytes();
    let whole = Outline::build_verbatim(bytes);
    assert!(whole.len() > 5 * 1024, "{} sections", whole.len());
    assert_eq!(Outline::build(bytes).sections(), whole.sections());
    assert_eq!(
        Outline::build_in_parts(bytes, 40).sections(),
        whole.sections()
    );
    check_invariants(bytes, &whole);
}

/// The generated benchmark handbook (`corpora/gen_handbook.py`) parses like the whole text.
/// Slow (a verbatim parse of 60 MB); run with `cargo test --release -- --ignored handbook`.
#[test]
#[ignore = "needs corpora/generated/HANDBOOK.md; slow"]
fn handbook_parses_like_the_whole_text() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/corpora/generated/HANDBOOK.md");
    let bytes = std::fs::read(path).expect("generate it with python3 corpora/gen_handbook.py");
    let fast = Outline::build(&bytes);
    let slow = Outline::build_verbatim(&bytes);
    assert_eq!(fast.len(), slow.len());
    assert!(fast.sections() == slow.sections(), "outlines differ");
}

#[test]
fn index_paths_count_past_nine() {
    let mut doc = String::new();
    for i in 1..=12 {
        doc.push_str(&format!("# Top {i}\n"));
    }
    for i in 1..=10 {
        doc.push_str(&format!("## Sub {i}\n"));
    }
    let outline = Outline::build(doc.as_bytes());
    let paths: Vec<&str> = outline
        .sections()
        .iter()
        .map(|s| s.index_path.as_str())
        .collect();
    assert_eq!(paths[0], "1");
    assert_eq!(paths[9], "10");
    assert_eq!(paths[11], "12");
    assert_eq!(paths[12], "12.1");
    assert_eq!(paths[21], "12.10");
}

/// `doc_replace`'s engine on a file in a temporary root, with writes allowed.
mod replace {
    use std::path::PathBuf;

    #[cfg(unix)]
    use crate::platform::test_support as sys;

    use crate::markdown::doc::{self, Document};
    use crate::markdown::edit::{self, ReplaceError, ReplaceRequest};
    use crate::roots::Roots;
    use crate::workspace::{Workspace, WorkspaceBuilder};

    const TWO: &str = "# Top\n\nIntro.\n\n## A\n\nText of A.\n\n## B\n\nText of B.\n";

    fn editable(text: &str) -> (tempfile::TempDir, Workspace, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("doc.md");
        std::fs::write(&path, text).unwrap();
        let ws = WorkspaceBuilder::new()
            .allow_write(true)
            .build(Roots::new([dir.path()]).unwrap());
        (dir, ws, path)
    }

    fn hash(ws: &Workspace, section: &str) -> String {
        let d = Document::open(ws, "doc.md").unwrap();
        doc::read_section(&d, section, true, usize::MAX)
            .unwrap()
            .hash
    }

    fn request(section: &str, content: &str, hash: &str) -> ReplaceRequest {
        ReplaceRequest {
            section: section.into(),
            content: content.into(),
            expected_hash: hash.into(),
            include_children: true,
            allow_outline_change: false,
            allow_read_only: false,
        }
    }

    /// Content is judged by the headings it makes in the new document: alone, this text is
    /// front matter (no heading); after "## A" it is a thematic break and a level-2 setext
    /// heading, a new sibling of A.
    #[test]
    fn content_is_judged_by_the_outline_it_makes_in_the_document() {
        let (_dir, ws, path) = editable(TWO);
        let h = hash(&ws, "a");
        let mut req = request("a", "---\ntitle: x\n---\n", &h);
        match edit::replace(&ws, "doc.md", &req) {
            Err(ReplaceError::Outline(problem)) => {
                assert!(
                    problem.contains("\"title: x\" a level-2 heading"),
                    "{problem}"
                )
            }
            other => panic!("expected an outline refusal, got {other:?}"),
        }
        assert_eq!(std::fs::read_to_string(&path).unwrap(), TWO);
        // What was refused before still is: a sibling, a higher level, a changed level.
        for content in [
            "Text.\n\n## Sneaky\n",
            "# Top 2\n\nx",
            "### A\n\nx",
            "A\n==\n",
        ] {
            req.content = content.into();
            assert!(
                matches!(
                    edit::replace(&ws, "doc.md", &req),
                    Err(ReplaceError::Outline(_))
                ),
                "{content:?}"
            );
        }
        // Deeper headings are fine, and asked for, the sibling is made.
        req.content = "Text.\n\n### Deeper\n\nx".into();
        let r = edit::replace(&ws, "doc.md", &req).unwrap();
        req.content = "---\ntitle: x\n---\n".into();
        req.expected_hash = r.hash;
        req.allow_outline_change = true;
        edit::replace(&ws, "doc.md", &req).unwrap();
        let d = Document::open(&ws, "doc.md").unwrap();
        let level2: Vec<&str> = d
            .outline()
            .sections()
            .iter()
            .filter(|s| s.level == 2)
            .map(|s| s.title.as_str())
            .collect();
        assert_eq!(level2, ["A", "title: x", "B"]);
    }

    /// A carriage return that no line feed follows is a line ending to CommonMark, not to the
    /// outline: such content is refused, naming the line; CRLF is not.
    #[test]
    fn content_with_a_lone_carriage_return_is_refused() {
        let (_dir, ws, path) = editable(TWO);
        let h = hash(&ws, "a");
        for (content, line) in [
            ("## A\r\rx\r# Injected\r", 1),
            ("## A\r\n\r\nx\r# Injected\r\n", 3),
            ("Text.\n\nMore.\r", 3),
        ] {
            match edit::replace(&ws, "doc.md", &request("a", content, &h)) {
                Err(ReplaceError::LoneCr { line: l }) => assert_eq!(l, line, "{content:?}"),
                other => panic!("{content:?}: expected a refusal, got {other:?}"),
            }
        }
        assert_eq!(std::fs::read_to_string(&path).unwrap(), TWO);
        edit::replace(&ws, "doc.md", &request("a", "## A\r\n\r\nNew.\r\n", &h)).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            TWO.replace("Text of A.", "New.")
        );
    }

    /// 12 threads replace one section with the same hash at once, 50 times: one wins each
    /// time, the others are refused as stale with the winner's hash, and the file holds the
    /// winner's edit.
    #[test]
    fn concurrent_edits_with_one_hash_have_one_winner() {
        let (_dir, ws, path) = editable(TWO);
        for _ in 0..50 {
            std::fs::write(&path, TWO).unwrap();
            let h = hash(&ws, "a");
            let start = std::sync::Barrier::new(12);
            let results: Vec<_> = std::thread::scope(|s| {
                let tasks: Vec<_> = (0..12)
                    .map(|i| {
                        let (ws, h, start) = (&ws, &h, &start);
                        s.spawn(move || {
                            start.wait();
                            edit::replace(ws, "doc.md", &request("a", &format!("Writer {i}."), h))
                        })
                    })
                    .collect();
                tasks.into_iter().map(|t| t.join().unwrap()).collect()
            });
            let winners: Vec<usize> = (0..12).filter(|&i| results[i].is_ok()).collect();
            assert_eq!(winners.len(), 1, "{results:?}");
            let won = results[winners[0]].as_ref().unwrap();
            for r in &results {
                match r {
                    Ok(_) => {}
                    Err(ReplaceError::Stale { current }) => assert_eq!(current, &won.hash),
                    Err(e) => panic!("expected a stale hash, got {e:?}"),
                }
            }
            assert_eq!(
                std::fs::read_to_string(&path).unwrap(),
                TWO.replace("Text of A.", &format!("Writer {}.", winners[0]))
            );
        }
    }

    /// A file whose mode gives its owner no write permission is not replaced (a rename over it
    /// needs only the directory's permission, so it would be, even for a user who is not
    /// root).
    #[test]
    #[cfg(unix)]
    fn a_read_only_file_is_refused() {
        let (_dir, ws, path) = editable(TWO);
        sys::set_mode(&path, 0o444).unwrap();
        let ino = sys::ino(&std::fs::metadata(&path).unwrap());
        let h = hash(&ws, "a");
        match edit::replace(&ws, "doc.md", &request("a", "New.", &h)) {
            Err(ReplaceError::ReadOnlyFile(reason)) => assert!(reason.contains("0444"), "{reason}"),
            other => panic!("expected a read-only refusal, got {other:?}"),
        }
        let md = std::fs::metadata(&path).unwrap();
        assert_eq!((sys::ino(&md), sys::mode(&md)), (ino, 0o444));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), TWO);
    }

    /// A replace keeps the mode bits, and the owner and group where the process may set them
    /// (running as root, the file is given to another user first).
    #[test]
    #[cfg(unix)]
    fn mode_owner_and_group_are_kept() {
        let (_dir, ws, path) = editable(TWO);
        sys::set_mode(&path, 0o640).unwrap();
        let md = std::fs::metadata(&path).unwrap();
        let owner = if sys::owner(&md).0 == 0 {
            sys::chown(&path, 65534, 65534).unwrap();
            (65534, 65534)
        } else {
            sys::owner(&md)
        };
        let h = hash(&ws, "a");
        edit::replace(&ws, "doc.md", &request("a", "New.", &h)).unwrap();
        let md = std::fs::metadata(&path).unwrap();
        assert_eq!(sys::mode(&md), 0o640);
        assert_eq!(sys::owner(&md), owner);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            TWO.replace("Text of A.", "New.")
        );
    }
}
