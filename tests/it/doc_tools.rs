//! The read-only document tools through the MCP server.
//!
//! `doc_toc`, `doc_read`, `doc_read_many` and `doc_find` on small fixtures whose line numbers
//! and byte sizes the tests work out from the fixture text itself: docs/doc_tools.md, "Addressing a section"'s
//! acceptance checks, every addressing tier with its `matched_by`, Unicode titles and slugs,
//! duplicate headings, setext headings and `#` lines that are not headings, line ranges and
//! include_children, content hashes across file changes (outline cache included), the batch
//! read's per-entry errors, doc_find's filters, doc_toc's subtree and file errors, "did you
//! mean" suggestions, the response size limit, and every listed slug reading its own section.

use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use crate::common::{
    Fixture, Server, doc_view, found, layout, lines, read, read_with, str_of, text_of,
};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

const BY_SLUG: &str = "slug";
const BY_TITLE_NUMBER: &str = "index path (the numbering written in the title)";
const BY_POSITION: &str = "index path (position in the outline)";
const BY_LINE: &str = "line number (innermost section containing it)";
const BY_EXACT: &str = "exact title";
const BY_NORMALIZED: &str = "normalized title";
const BY_SUBSTRING: &str = "part of the normalized title";
const BY_TOKENS: &str = "all words of the title";

fn u64_of(v: &Value) -> u64 {
    v.as_u64()
        .unwrap_or_else(|| panic!("not an unsigned integer: {v}"))
}

/// The 1-based number of the first line of `doc` equal to `line`.
fn line_no(doc: &str, line: &str) -> u64 {
    doc.lines()
        .position(|l| l == line)
        .unwrap_or_else(|| panic!("no line {line:?} in the fixture")) as u64
        + 1
}

/// The number of lines of `doc` (a last line without a newline counts).
fn total_lines(doc: &str) -> u64 {
    doc.split_inclusive('\n').count() as u64
}

/// A field of `entries` (an array of objects) as strings.
fn field(entries: &Value, name: &str) -> Vec<String> {
    entries
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {entries}"))
        .iter()
        .map(|e| str_of(&e[name]))
        .collect()
}

/// The list lines (`  - ...`) of a Fix, in order.
fn listed(fix: &str) -> Vec<&str> {
    fix.lines().filter_map(|l| l.strip_prefix("  - ")).collect()
}

// ---------------------------------------------------------------------------------------------
// 1. docs/doc_tools.md, "Addressing a section"
// ---------------------------------------------------------------------------------------------

const PLAN: &str = "\
# Roadmap

Overview of the plan.

## Phase B

Phase B summary.

## 6.1 Phase B: Design

Design notes.

## 6.2 Phase B 验证计划

验证 steps: run the suite.

## Risks

Risk list.
";

#[tokio::test]
async fn spec_004_section_4_1_fuzzy_matching_and_multi_read() {
    let fx = Fixture::new();
    fx.write("plan.md", PLAN);
    let srv = fx.serve().await;

    // assert find_section("验证计划", toc) is not None
    let s = read(&srv, "plan.md", "验证计划").await.unwrap();
    assert_eq!(s["title"], "6.2 Phase B 验证计划");
    assert_eq!(s["slug"], "62-phase-b-验证计划");
    assert_eq!(s["matched_by"], BY_SUBSTRING);
    let at = line_no(PLAN, "## 6.2 Phase B 验证计划");
    assert_eq!(u64_of(&s["line_start"]), at);
    assert_eq!(u64_of(&s["line_end"]), at + 3);
    assert_eq!(str_of(&s["content"]), lines(PLAN, at, at + 3));

    // assert find_section("phase b", toc).slug == "phase-b": the normalized title "phaseb"
    // equals only "Phase B"'s (the other two merely contain it, a later tier).
    assert_eq!(
        found(&srv, "plan.md", "phase b").await,
        Ok(("phase-b".into(), BY_NORMALIZED.into()))
    );
    // assert find_section("PhaseB", toc).slug == "phase-b"
    assert_eq!(
        found(&srv, "plan.md", "PhaseB").await,
        Ok(("phase-b".into(), BY_NORMALIZED.into()))
    );

    // results = doc_read_many(sections=["a", "b", "c"]); assert len(results) == 3
    let (text, v) = srv
        .ok(
            "doc_read_many",
            json!({"path": "plan.md", "sections": ["phase-b", "6.1", "Risks"]}),
        )
        .await
        .pair();
    assert_eq!(v["path"], "plan.md");
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 3, "{v}");
    assert_eq!(field(&v["results"], "request"), ["phase-b", "6.1", "Risks"]);
    let slugs: Vec<String> = results
        .iter()
        .map(|r| str_of(&r["section"]["slug"]))
        .collect();
    assert_eq!(slugs, ["phase-b", "61-phase-b-design", "risks"]);
    assert!(results.iter().all(|r| r.get("error").is_none()), "{v}");
    for (i, q) in ["phase-b", "6.1", "Risks"].iter().enumerate() {
        assert!(
            text.contains(&format!("[{}/3] section: \"{q}\"\nFile: plan.md\n", i + 1)),
            "{text}"
        );
    }
    // Each result is the same as a single doc_read of it.
    for r in results {
        let single = read(&srv, "plan.md", &str_of(&r["request"])).await.unwrap();
        assert_eq!(r["section"], single);
    }
    srv.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// 2. Every addressing tier
// ---------------------------------------------------------------------------------------------

const TIERS: &str = include_str!("../data/tiers.md");

#[tokio::test]
async fn every_addressing_tier_and_its_matched_by() {
    let fx = Fixture::new();
    fx.write("tiers.md", TIERS);
    let srv = fx.serve().await;

    // The outline the positions refer to.
    let (_, toc) = srv.ok("doc_toc", json!({"path": "tiers.md"})).await.pair();
    assert_eq!(
        field(&toc["sections"], "index_path"),
        [
            "1", "1.1", "1.1.1", "1.1.2", "1.2", "2", "2.1", "2.1.1", "2.2", "2.3"
        ]
    );
    assert_eq!(
        field(&toc["sections"], "slug"),
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

    // Each tier through the server, with the words its `matched_by` says; the whole matrix of
    // queries and tiers is an engine test (`src/markdown/tests.rs`,
    // `every_addressing_tier_on_a_three_level_document`).
    let install = line_no(TIERS, "### Install the Tools");
    let middle = line_no(TIERS, "Install step two.");
    let cases: Vec<(String, &str, &str)> = vec![
        ("#user-content-error-codes".into(), "error-codes", BY_SLUG),
        ("2.1".into(), "21-configure", BY_TITLE_NUMBER),
        ("2.1.1".into(), "error-codes", BY_POSITION),
        (middle.to_string(), "install-the-tools", BY_LINE),
        ("Install the Tools".into(), "install-the-tools", BY_EXACT),
        (
            "install THE tools".into(),
            "install-the-tools",
            BY_NORMALIZED,
        ),
        ("error cod".into(), "error-codes", BY_SUBSTRING),
        ("codes error".into(), "error-codes", BY_TOKENS),
    ];
    for (query, slug, tier) in &cases {
        assert_eq!(
            found(&srv, "tiers.md", query).await,
            Ok((slug.to_string(), tier.to_string())),
            "query {query:?}"
        );
    }

    // A line in the middle of a subsection reads that subsection, whole.
    let s = read(&srv, "tiers.md", &middle.to_string()).await.unwrap();
    let configure = line_no(TIERS, "### 2.1 Configure");
    assert_eq!(u64_of(&s["line_start"]), install);
    assert_eq!(u64_of(&s["line_end"]), configure - 1);
    assert_eq!(str_of(&s["content"]), lines(TIERS, install, configure - 1));

    // A line before the first heading is in no section: the error echoes the request in the
    // server's words.
    let err = read(&srv, "tiers.md", "3").await.unwrap_err();
    let e = layout(&err);
    assert_eq!(e.short, "Section not found", "{err}");
    assert_eq!(
        e.problem,
        format!(
            "Line 3 is in no section: the document has {} lines and its first heading is at line 4.",
            total_lines(TIERS)
        ),
        "{err}"
    );
    assert_eq!(
        e.provided,
        "path=\"tiers.md\", section=\"3\", include_children=true"
    );
    // A blank section is refused as such.
    let err = read(&srv, "tiers.md", "   ").await.unwrap_err();
    assert_eq!(layout(&err).short, "Empty section", "{err}");

    // The text block names the rule too.
    let r = srv
        .call("doc_read", json!({"path": "tiers.md", "section": "2.1"}))
        .await
        .unwrap();
    let text = text_of(&r);
    assert!(
        text.contains(&format!("· Matched by: {BY_TITLE_NUMBER}\n")),
        "{text}"
    );
    assert!(
        text.starts_with("File: tiers.md\nSection: 1.1.2 ### 2.1 Configure (#21-configure)\n"),
        "{text}"
    );
    srv.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// 3. Unicode titles
// ---------------------------------------------------------------------------------------------

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

#[tokio::test]
async fn unicode_titles_and_github_slugs() {
    let fx = Fixture::new();
    fx.write("uni.md", UNICODE);
    // A UTF-8 byte-order mark does not hide the first heading.
    fx.write("bom.md", "\u{feff}# Überblick\n\nText.\n");
    let srv = fx.serve().await;

    let (_, toc) = srv.ok("doc_toc", json!({"path": "uni.md"})).await.pair();
    assert_eq!(
        field(&toc["sections"], "title"),
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
    let slugs = [
        "文档",
        "安装指南",
        "日本語の見出し",
        "привет-мир",
        "ｆｕｌｌ-width-heading",
        "straße-notes",
        "ελληνικά-κεφάλαιο",
    ];
    assert_eq!(field(&toc["sections"], "slug"), slugs);

    // A slug (also with `#`) and a fragment or another writing of a title find a section
    // through the server; every script's slugs and titles are an engine test
    // (`src/markdown/tests.rs`, `every_script_addresses_by_slug_and_by_title`).
    let cases = [
        ("привет-мир", "привет-мир", BY_SLUG),
        ("#ελληνικά-κεφάλαιο", "ελληνικά-κεφάλαιο", BY_SLUG),
        ("指南", "安装指南", BY_SUBSTRING),
        (
            "ＦＵＬＬ ＷＩＤＴＨ ＨＥＡＤＩＮＧ",
            "ｆｕｌｌ-width-heading",
            BY_NORMALIZED,
        ),
    ];
    for (query, slug, tier) in cases {
        assert_eq!(
            found(&srv, "uni.md", query).await,
            Ok((slug.to_string(), tier.to_string())),
            "query {query:?}"
        );
    }

    // The content is the file's text, multi-byte characters intact.
    let s = read(&srv, "uni.md", "日本語").await.unwrap();
    let at = line_no(UNICODE, "## 日本語の見出し");
    assert_eq!(str_of(&s["content"]), lines(UNICODE, at, at + 3));
    assert_eq!(u64_of(&s["line_start"]), at);

    let (_, toc) = srv.ok("doc_toc", json!({"path": "bom.md"})).await.pair();
    assert_eq!(toc["total_sections"], 1);
    assert_eq!(toc["sections"][0]["title"], "Überblick");
    assert_eq!(toc["sections"][0]["slug"], "überblick");
    assert_eq!(toc["sections"][0]["line_start"], 1);
    let s = read(&srv, "bom.md", "uberblick").await;
    assert!(s.is_err(), "ü is not u: {s:?}");
    let s = read(&srv, "bom.md", "ÜBERBLICK").await.unwrap();
    assert_eq!(s["matched_by"], BY_NORMALIZED);
    assert_eq!(s["content"], "# Überblick\n\nText.\n");
    srv.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// 4. Duplicate headings
// ---------------------------------------------------------------------------------------------

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

#[tokio::test]
async fn duplicate_headings_get_suffixed_slugs_and_titles_are_ambiguous() {
    let fx = Fixture::new();
    fx.write("dupes.md", DUPES);
    let srv = fx.serve().await;

    let (_, toc) = srv.ok("doc_toc", json!({"path": "dupes.md"})).await.pair();
    // github-slugger: a repeated slug gets -1, -2; "Tag 1" then skips the taken "tag-1",
    // and a second "Item" skips "item-1", taken by "Item 1" before it.
    assert_eq!(
        field(&toc["sections"], "slug"),
        [
            "log", "notes", "notes-1", "notes-2", "tag", "tag-1", "tag-1-1", "item-1", "item",
            "item-2"
        ]
    );

    // The title names three sections: nothing is guessed, all three are offered.
    for (query, tier) in [("Notes", BY_EXACT), ("NOTES", BY_NORMALIZED)] {
        let err = read(&srv, "dupes.md", query).await.unwrap_err();
        let e = layout(&err);
        assert_eq!(e.short, "Ambiguous section", "{err}");
        assert_eq!(
            e.problem,
            format!("\"{query}\" matches 3 sections by {tier}; no guess was made."),
            "{err}"
        );
        let offered = listed(&e.fix);
        assert_eq!(offered.len(), 3, "{err}");
        for (line, slug) in offered.iter().zip(["notes", "notes-1", "notes-2"]) {
            assert!(
                line.contains(&format!("## Notes (#{slug}, lines ")),
                "{err}"
            );
        }
    }

    // A slug names exactly one, its heading and text as in the file; positions, lines and
    // the other duplicates are an engine test (`src/markdown/tests.rs`,
    // `duplicate_titles_are_ambiguous_and_slugs_or_positions_name_one`).
    let s = read(&srv, "dupes.md", "notes-1").await.unwrap();
    assert_eq!(s["slug"], "notes-1");
    assert_eq!(s["matched_by"], BY_SLUG);
    let at = u64_of(&s["line_start"]);
    assert_eq!(at, line_no(DUPES, "second notes") - 2);
    assert_eq!(str_of(&s["content"]), lines(DUPES, at, at + 3));
    srv.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// 5. Setext headings and `#` lines that are not headings
// ---------------------------------------------------------------------------------------------

const SETEXT: &str = "\
---
title: front matter
# not a heading (front matter)
---
Main Title
==========

Intro text.

Sub Part
--------

Sub text.

```text
# not a heading (backtick fence)
## nor this
```

~~~
### not a heading (tilde fence)
~~~

    # not a heading (indented code)

<!--
# not a heading (HTML comment)
-->

#not-a-heading (no space)

\\# not a heading (escaped)

> ## Quoted Heading

- ## Listed Heading

## Real ATX ##

Last text.
";

#[tokio::test]
async fn setext_headings_count_and_code_comments_front_matter_do_not() {
    let fx = Fixture::new();
    fx.write("setext.md", SETEXT);
    let srv = fx.serve().await;

    let (text, toc) = srv.ok("doc_toc", json!({"path": "setext.md"})).await.pair();
    let got: Vec<(u64, String, u64)> = toc["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                u64_of(&s["level"]),
                str_of(&s["title"]),
                u64_of(&s["line_start"]),
            )
        })
        .collect();
    let expected: Vec<(u64, String, u64)> = [
        (1, "Main Title", "Main Title"),
        (2, "Sub Part", "Sub Part"),
        (2, "Quoted Heading", "> ## Quoted Heading"),
        (2, "Listed Heading", "- ## Listed Heading"),
        (2, "Real ATX", "## Real ATX ##"),
    ]
    .iter()
    .map(|&(level, title, line)| (level, title.to_string(), line_no(SETEXT, line)))
    .collect();
    assert_eq!(got, expected, "{text}");
    assert_eq!(toc["total_sections"], 5);
    assert_eq!(u64_of(&toc["total_lines"]), total_lines(SETEXT));
    assert!(!text.contains("not a heading"), "{text}");
    assert!(
        text.starts_with(&format!(
            "File: setext.md · {} lines · 5 sections\n",
            total_lines(SETEXT)
        )),
        "{text}"
    );

    // A level-1 setext section runs to the end; a level-2 one to the next level-2 heading,
    // and the fenced `#` lines are part of its text.
    let main = line_no(SETEXT, "Main Title");
    let s = read(&srv, "setext.md", "main-title").await.unwrap();
    assert_eq!(
        (u64_of(&s["line_start"]), u64_of(&s["line_end"])),
        (main, total_lines(SETEXT))
    );
    assert_eq!(s["level"], 1);
    let sub = line_no(SETEXT, "Sub Part");
    let quoted = line_no(SETEXT, "> ## Quoted Heading");
    let s = read(&srv, "setext.md", "Sub Part").await.unwrap();
    assert_eq!(s["level"], 2);
    assert_eq!(s["index_path"], "1.1");
    assert_eq!(
        (u64_of(&s["line_start"]), u64_of(&s["line_end"])),
        (sub, quoted - 1)
    );
    let content = str_of(&s["content"]);
    assert_eq!(content, lines(SETEXT, sub, quoted - 1));
    assert!(
        content.contains("# not a heading (HTML comment)"),
        "{content}"
    );

    // include_children false stops after the setext heading's own text; the underline is
    // part of the heading.
    let s = read_with(
        &srv,
        json!({"path": "setext.md", "section": "Main Title", "include_children": false}),
    )
    .await
    .unwrap();
    assert_eq!(str_of(&s["content"]), lines(SETEXT, main, sub - 1));
    assert_eq!(s["omitted_children"].as_array().unwrap().len(), 4);

    // None of the non-headings can be addressed as a section.
    for q in ["not a heading", "nor this", "front matter"] {
        let err = read(&srv, "setext.md", q).await.unwrap_err();
        assert!(err.starts_with("Error: Section not found"), "{q}: {err}");
    }
    assert_eq!(
        found(&srv, "setext.md", "real-atx").await,
        Ok(("real-atx".into(), BY_SLUG.into()))
    );
    srv.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// 6. Line ranges and include_children
// ---------------------------------------------------------------------------------------------

const RANGES: &str = "\
# Top

top text

## Alpha

alpha text

### Alpha One

a1 text

#### Deep
deep text

### Alpha Two

a2 text

## Beta

beta text
# Second
second text
";

#[tokio::test]
async fn sections_end_before_the_next_heading_of_the_same_or_higher_level() {
    let fx = Fixture::new();
    fx.write("ranges.md", RANGES);
    fx.write("crlf.md", RANGES.replace('\n', "\r\n"));
    fx.write("noeol.md", RANGES.trim_end_matches('\n'));
    let srv = fx.serve().await;
    let n = total_lines(RANGES);
    let l = |s: &str| line_no(RANGES, s);

    // (slug, first line, last line, index path)
    let expected = [
        ("top", l("# Top"), l("# Second") - 1, "1"),
        ("alpha", l("## Alpha"), l("## Beta") - 1, "1.1"),
        (
            "alpha-one",
            l("### Alpha One"),
            l("### Alpha Two") - 1,
            "1.1.1",
        ),
        ("deep", l("#### Deep"), l("### Alpha Two") - 1, "1.1.1.1"),
        ("alpha-two", l("### Alpha Two"), l("## Beta") - 1, "1.1.2"),
        ("beta", l("## Beta"), l("# Second") - 1, "1.2"),
        ("second", l("# Second"), n, "2"),
    ];
    let (text, toc) = srv.ok("doc_toc", json!({"path": "ranges.md"})).await.pair();
    assert_eq!(u64_of(&toc["total_lines"]), n);
    for (entry, (slug, a, b, path)) in toc["sections"].as_array().unwrap().iter().zip(expected) {
        assert_eq!(entry["slug"], slug);
        assert_eq!(entry["index_path"], path);
        assert_eq!(
            (u64_of(&entry["line_start"]), u64_of(&entry["line_end"])),
            (a, b)
        );
        // size: the section's bytes, subsections included.
        assert_eq!(
            u64_of(&entry["size"]),
            lines(RANGES, a, b).len() as u64,
            "{slug}"
        );
    }
    let alpha_size = lines(RANGES, l("## Alpha"), l("## Beta") - 1).len();
    assert!(
        text.contains(&format!(
            "\n  1.1 ## Alpha  (#alpha, lines {}-{}, {alpha_size} B)\n",
            l("## Alpha"),
            l("## Beta") - 1
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "\n      1.1.1.1 #### Deep  (#deep, lines {}-{}, ",
            l("#### Deep"),
            l("### Alpha Two") - 1
        )),
        "{text}"
    );

    // Every section's content is exactly those lines of the file, LF, CRLF or no final EOL.
    for (file, doc) in [
        ("ranges.md", RANGES.to_string()),
        ("crlf.md", RANGES.replace('\n', "\r\n")),
        ("noeol.md", RANGES.trim_end_matches('\n').to_string()),
    ] {
        for (slug, a, b, _) in expected {
            let s = read(&srv, file, slug).await.unwrap();
            assert_eq!(
                (u64_of(&s["line_start"]), u64_of(&s["line_end"])),
                (a, b),
                "{file} {slug}"
            );
            // The text view ends every read with a newline, a file's last line too.
            let mut want = lines(&doc, a, b);
            if !want.ends_with('\n') {
                want.push('\n');
            }
            assert_eq!(str_of(&s["content"]), want, "{file} {slug}");
            assert_eq!(u64_of(&s["total_lines"]), n, "{file}");
            assert_eq!(s["include_children"], true);
            assert!(s.get("omitted_children").is_none(), "{s}");
            assert!(s.get("cut_section_end").is_none(), "{s}");
        }
    }

    // The whole text block of one read.
    let r = srv
        .call("doc_read", json!({"path": "ranges.md", "section": "alpha"}))
        .await
        .unwrap();
    let s = &doc_view("doc_read", &r)["section"];
    let (a, b) = (l("## Alpha"), l("## Beta") - 1);
    assert_eq!(
        text_of(&r),
        format!(
            "File: ranges.md\nSection: 1.1 ## Alpha (#alpha)\nLines: {a}-{b} of {n} · Hash: {} · Matched by: slug\n---\n{}---\n",
            str_of(&s["hash"]),
            lines(RANGES, a, b)
        )
    );
    // Without a final newline the block still ends on its own line.
    let r = srv
        .call("doc_read", json!({"path": "noeol.md", "section": "second"}))
        .await
        .unwrap();
    assert!(
        text_of(&r).ends_with("\n---\n# Second\nsecond text\n---\n"),
        "{}",
        text_of(&r)
    );

    // include_children: false stops before the first subsection and lists the direct
    // subsections left out.
    let s = read_with(
        &srv,
        json!({"path": "ranges.md", "section": "alpha", "include_children": false}),
    )
    .await
    .unwrap();
    let own_end = l("### Alpha One") - 1;
    assert_eq!(
        (u64_of(&s["line_start"]), u64_of(&s["line_end"])),
        (l("## Alpha"), own_end)
    );
    assert_eq!(str_of(&s["content"]), lines(RANGES, l("## Alpha"), own_end));
    assert_eq!(s["include_children"], false);
    assert_eq!(
        field(&s["omitted_children"], "slug"),
        ["alpha-one", "alpha-two"]
    );
    let omitted = &s["omitted_children"][1];
    assert_eq!(omitted["index_path"], "1.1.2");
    assert_eq!(
        (u64_of(&omitted["line_start"]), u64_of(&omitted["line_end"])),
        (l("### Alpha Two"), l("## Beta") - 1)
    );
    let r = srv
        .call(
            "doc_read",
            json!({"path": "ranges.md", "section": "alpha", "include_children": false}),
        )
        .await
        .unwrap();
    let text = text_of(&r);
    assert!(
        text.contains(&format!(
            "Lines: {}-{own_end} of {n} · Hash: ",
            l("## Alpha")
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "Note: 2 subsection(s) not included (include_children: false):\n  - 1.1.1 ### Alpha One (#alpha-one, lines {}-{})\n  - 1.1.2 ### Alpha Two (#alpha-two, lines {}-{})\n---\n",
            l("### Alpha One"),
            l("### Alpha Two") - 1,
            l("### Alpha Two"),
            l("## Beta") - 1
        )),
        "{text}"
    );
    // The same in a CRLF file, line endings kept.
    let s = read_with(
        &srv,
        json!({"path": "crlf.md", "section": "1.1.1", "include_children": false}),
    )
    .await
    .unwrap();
    assert_eq!(
        str_of(&s["content"]),
        lines(
            &RANGES.replace('\n', "\r\n"),
            l("### Alpha One"),
            l("#### Deep") - 1
        )
    );
    // A leaf reads the same either way (same hash, nothing omitted).
    let whole = read(&srv, "ranges.md", "beta").await.unwrap();
    let own = read_with(
        &srv,
        json!({"path": "ranges.md", "section": "beta", "include_children": false}),
    )
    .await
    .unwrap();
    assert_eq!(whole["content"], own["content"]);
    assert_eq!(whole["hash"], own["hash"]);
    assert!(own.get("omitted_children").is_none(), "{own}");
    srv.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// 7. Hashes and file changes
// ---------------------------------------------------------------------------------------------

/// Sets the modification time of `path` to `t`.
fn set_mtime(path: &std::path::Path, t: SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .expect("open fixture")
        .set_modified(t)
        .expect("set mtime");
}

#[tokio::test]
async fn hash_is_stable_and_follows_changes_of_the_file() {
    let fx = Fixture::new();
    let path = fx.write("h.md", RANGES);
    let srv = fx.serve().await;

    let first = read(&srv, "h.md", "alpha").await.unwrap();
    let again = read(&srv, "h.md", "alpha").await.unwrap();
    let hash = str_of(&first["hash"]);
    assert_eq!(hash.len(), 16, "{hash}");
    assert!(hash.bytes().all(|b| b.is_ascii_hexdigit()), "{hash}");
    assert_eq!(again["hash"], first["hash"]);
    // Other sections, and the same section without children, have other hashes.
    let beta = read(&srv, "h.md", "beta").await.unwrap();
    assert_ne!(beta["hash"], first["hash"]);
    let own = read_with(
        &srv,
        json!({"path": "h.md", "section": "alpha", "include_children": false}),
    )
    .await
    .unwrap();
    assert_ne!(own["hash"], first["hash"]);

    // A change to that section: a new hash and the new text.
    let v2 = RANGES.replace("a1 text\n", "a1 text, now longer\nand a second line\n");
    std::fs::write(&path, &v2).unwrap();
    std::thread::sleep(Duration::from_millis(10));
    let changed = read(&srv, "h.md", "alpha").await.unwrap();
    assert_ne!(changed["hash"], first["hash"]);
    let (a, b) = (line_no(&v2, "## Alpha"), line_no(&v2, "## Beta") - 1);
    assert_eq!(
        (u64_of(&changed["line_start"]), u64_of(&changed["line_end"])),
        (a, b)
    );
    assert_eq!(str_of(&changed["content"]), lines(&v2, a, b));
    // The unchanged Beta keeps its hash though its lines moved.
    let beta2 = read(&srv, "h.md", "beta").await.unwrap();
    assert_eq!(beta2["hash"], beta["hash"]);
    assert_ne!(beta2["line_start"], beta["line_start"]);
    // doc_toc sees the new outline too.
    let (_, toc) = srv.ok("doc_toc", json!({"path": "h.md"})).await.pair();
    assert_eq!(u64_of(&toc["total_lines"]), total_lines(&v2));

    // A file old enough for its outline to be cached, then rewritten in place with the same
    // length and the same modification time but a heading moved: the outline must not be
    // served stale.
    let old = SystemTime::now() - Duration::from_secs(3600);
    let v3 = "# A\n\nxx\n## B\n\nyy\n";
    let v4 = "# A\n\nxx\n\n## B\nyy\n";
    assert_eq!(v3.len(), v4.len());
    let cached = fx.write("cached.md", v3);
    set_mtime(&cached, old);
    let b3 = read(&srv, "cached.md", "b").await.unwrap();
    assert_eq!(b3["line_start"], 4);
    assert_eq!(b3["content"], "## B\n\nyy\n");
    let b3_again = read(&srv, "cached.md", "b").await.unwrap();
    assert_eq!(b3_again, b3);
    std::thread::sleep(Duration::from_millis(10));
    std::fs::write(&cached, v4).unwrap();
    set_mtime(&cached, old);
    std::thread::sleep(Duration::from_millis(10));
    let b4 = read(&srv, "cached.md", "b").await.unwrap();
    assert_eq!(b4["line_start"], 5, "{b4}");
    assert_eq!(b4["content"], "## B\nyy\n", "{b4}");
    assert_ne!(b4["hash"], b3["hash"]);
    let a4 = read(&srv, "cached.md", "a").await.unwrap();
    assert_eq!(a4["content"], "# A\n\nxx\n\n## B\nyy\n");
    srv.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// 8. doc_read_many
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn read_many_reports_errors_per_entry() {
    let fx = Fixture::new();
    fx.write("dupes.md", DUPES);
    fx.write("ranges.md", RANGES);
    let srv = fx.serve().await;

    let sections = ["notes-1", "Notes", "Nothing Like It", "1.2", "1.3"];
    let r = srv
        .call(
            "doc_read_many",
            json!({"path": "dupes.md", "sections": sections}),
        )
        .await
        .unwrap();
    let text = text_of(&r);
    assert_ne!(r.is_error, Some(true), "{text}");
    let v = doc_view("doc_read_many", &r);
    assert_eq!(v["path"], "dupes.md");
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 5);
    assert_eq!(field(&v["results"], "request"), sections);
    let ok: Vec<Option<String>> = results
        .iter()
        .map(|r| r["section"]["slug"].as_str().map(String::from))
        .collect();
    assert_eq!(
        ok,
        [
            Some("notes-1".to_string()),
            None,
            None,
            Some("notes-1".to_string()),
            Some("notes-2".to_string())
        ]
    );
    for (i, short) in [(1, "Ambiguous section"), (2, "Section not found")] {
        let err = str_of(&results[i]["error"]);
        let e = layout(&err);
        assert_eq!(e.short, short, "{err}");
        assert_eq!(
            e.provided,
            format!("path=\"dupes.md\", section=\"{}\"", sections[i])
        );
        assert!(results[i].get("section").is_none());
        // The same error stands in the text, under its entry's header.
        assert!(
            text.contains(&format!(
                "[{}/5] section: \"{}\"\n{err}\n---\n",
                i + 1,
                sections[i]
            )),
            "{text}"
        );
    }
    assert_eq!(listed(&layout(&str_of(&results[1]["error"])).fix).len(), 3);
    for i in [0, 3, 4] {
        assert!(results[i].get("error").is_none(), "{}", results[i]);
        assert!(
            text.contains(&format!(
                "[{}/5] section: \"{}\"\nFile: dupes.md\nSection: ",
                i + 1,
                sections[i]
            )),
            "{text}"
        );
    }
    assert_eq!(results[3]["section"]["matched_by"], BY_POSITION);
    // Entries are separated by a blank line; every entry closes with `---`.
    assert_eq!(text.matches("\n\n[").count(), 4, "{text}");

    // include_children applies to every entry.
    let (_, v) = srv
        .ok(
            "doc_read_many",
            json!({"path": "ranges.md", "sections": ["top", "alpha"], "include_children": false}),
        )
        .await
        .pair();
    let l = |s: &str| line_no(RANGES, s);
    let got: Vec<(u64, u64)> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                u64_of(&r["section"]["line_start"]),
                u64_of(&r["section"]["line_end"]),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (l("# Top"), l("## Alpha") - 1),
            (l("## Alpha"), l("### Alpha One") - 1)
        ]
    );
    assert_eq!(
        field(&v["results"][0]["section"]["omitted_children"], "slug"),
        ["alpha", "beta"]
    );

    // Every entry failing fails the call, still with each entry's error.
    let text = srv
        .err(
            "doc_read_many",
            json!({"path": "dupes.md", "sections": ["Notes", "zzzz qqqq"]}),
        )
        .await;
    assert!(
        text.starts_with("[1/2] section: \"Notes\"\nError: Ambiguous section\n"),
        "{text}"
    );
    assert!(
        text.contains("[2/2] section: \"zzzz qqqq\"\nError: Section not found\n"),
        "{text}"
    );

    // No sections at all.
    let text = srv
        .err("doc_read_many", json!({"path": "dupes.md", "sections": []}))
        .await;
    let e = layout(&text);
    assert_eq!(e.short, "No sections requested", "{text}");
    assert!(e.provided.contains("sections=[]"), "{text}");

    // A missing file fails the whole call once, in the file error layout.
    let text = srv
        .err(
            "doc_read_many",
            json!({"path": "missing.md", "sections": ["a", "b"]}),
        )
        .await;
    assert_eq!(layout(&text).short, "File not found", "{text}");
    srv.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// 9. doc_find
// ---------------------------------------------------------------------------------------------

const FIND: &str = "\
# Project Plan

Overview. TODO: fill in.

## Phase A

Alpha work.

## Phase B

Beta work.
FIXME: risky

### Phase B Tests

TODO write tests

## Risks

Risk one is described at length here so that this section is clearly the largest leaf of the document by far, well past every other one.
# Appendix

phase notes
";

#[tokio::test]
async fn doc_find_filters_by_title_level_content_size_and_depth() {
    let fx = Fixture::new();
    fx.write("find.md", FIND);
    let srv = fx.serve().await;
    let l = |s: &str| line_no(FIND, s);

    async fn find(srv: &Server, args: Value) -> Value {
        let mut args = args;
        args["path"] = json!("find.md");
        srv.ok("doc_find", args).await.pair().1
    }
    async fn slugs(srv: &Server, args: Value) -> Vec<String> {
        let v = find(srv, args).await;
        let matches = field(&v["matches"], "slug");
        assert_eq!(u64_of(&v["total_matches"]), matches.len() as u64, "{v}");
        assert_eq!(v["truncated"], false);
        matches
    }

    // Title globs, case-insensitive; without a wildcard a substring.
    let phases = ["phase-a", "phase-b", "phase-b-tests"];
    assert_eq!(slugs(&srv, json!({"pattern": "*Phase*"})).await, phases);
    assert_eq!(slugs(&srv, json!({"pattern": "phase"})).await, phases);
    assert_eq!(
        slugs(&srv, json!({"pattern": "PHASE B"})).await,
        ["phase-b", "phase-b-tests"]
    );
    assert_eq!(
        slugs(&srv, json!({"pattern": "Phase ?"})).await,
        ["phase-a", "phase-b"]
    );
    assert_eq!(
        slugs(&srv, json!({"pattern": "*s"})).await,
        ["phase-b-tests", "risks"]
    );
    assert!(slugs(&srv, json!({"pattern": "*Gamma*"})).await.is_empty());

    // Level.
    assert_eq!(
        slugs(&srv, json!({"level": 2})).await,
        ["phase-a", "phase-b", "risks"]
    );
    assert_eq!(slugs(&srv, json!({"level": 3})).await, ["phase-b-tests"]);
    assert!(slugs(&srv, json!({"level": 6})).await.is_empty());

    // Content regex in each section's own text (not its subsections'), with the first
    // matching line.
    let v = find(&srv, json!({"content_pattern": "TODO"})).await;
    let got: Vec<(String, u64, String)> = v["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                str_of(&m["slug"]),
                u64_of(&m["matched_line"]),
                str_of(&m["matched_text"]),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "project-plan".to_string(),
                l("Overview. TODO: fill in."),
                "Overview. TODO: fill in.".to_string()
            ),
            (
                "phase-b-tests".to_string(),
                l("TODO write tests"),
                "TODO write tests".to_string()
            ),
        ]
    );
    let v = find(&srv, json!({"content_pattern": "FIXME|TODO", "level": 2})).await;
    assert_eq!(field(&v["matches"], "slug"), ["phase-b"]);
    assert_eq!(u64_of(&v["matches"][0]["matched_line"]), l("FIXME: risky"));
    assert_eq!(v["matches"][0]["matched_text"], "FIXME: risky");
    // The heading line is part of a section's own text.
    let v = find(&srv, json!({"content_pattern": "(?m)^## Risks$"})).await;
    assert_eq!(field(&v["matches"], "slug"), ["risks"]);
    assert_eq!(u64_of(&v["matches"][0]["matched_line"]), l("## Risks"));
    // Matched lines show in the text under their hit.
    let (text, _) = srv
        .ok(
            "doc_find",
            json!({"path": "find.md", "content_pattern": "work"}),
        )
        .await
        .pair();
    assert!(
        text.contains(&format!(
            "  1.1 ## Phase A  (#phase-a, lines {}-{}, ",
            l("## Phase A"),
            l("## Phase B") - 1
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("\n      L{}: Alpha work.\n", l("Alpha work."))),
        "{text}"
    );
    assert!(
        text.starts_with("File: find.md · 2 of 6 sections match\n"),
        "{text}"
    );
    // Without a content pattern there is no matched line.
    let v = find(&srv, json!({"pattern": "risks"})).await;
    assert!(v["matches"][0].get("matched_line").is_none(), "{v}");

    // Size: the whole section's bytes, subsections included; the bound is inclusive.
    let risks = lines(FIND, l("## Risks"), l("# Appendix") - 1).len() as u64;
    let phase_b = lines(FIND, l("## Phase B"), l("## Risks") - 1).len() as u64;
    assert!(risks > phase_b, "fixture: Risks is the largest leaf");
    assert_eq!(
        slugs(&srv, json!({"min_size": risks})).await,
        ["project-plan", "risks"]
    );
    assert_eq!(
        slugs(&srv, json!({"min_size": risks + 1})).await,
        ["project-plan"]
    );
    assert_eq!(
        slugs(&srv, json!({"min_size": phase_b, "level": 2})).await,
        ["phase-b", "risks"]
    );
    assert_eq!(slugs(&srv, json!({"min_size": 0})).await.len(), 6);

    // Depth in the outline.
    assert_eq!(
        slugs(&srv, json!({"max_depth": 1})).await,
        ["project-plan", "appendix"]
    );
    assert_eq!(
        slugs(&srv, json!({"pattern": "phase", "max_depth": 2})).await,
        ["phase-a", "phase-b"]
    );

    // All filters together.
    let v = find(
        &srv,
        json!({"pattern": "*phase*", "level": 2, "content_pattern": "work", "min_size": 1, "max_depth": 2}),
    )
    .await;
    assert_eq!(field(&v["matches"], "slug"), ["phase-a", "phase-b"]);
    let lines_found: Vec<u64> = v["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| u64_of(&m["matched_line"]))
        .collect();
    assert_eq!(lines_found, [l("Alpha work."), l("Beta work.")]);
    // Each hit carries its outline entry.
    let hit = &v["matches"][1];
    assert_eq!(hit["index_path"], "1.2");
    assert_eq!(hit["level"], 2);
    assert_eq!(hit["title"], "Phase B");
    assert_eq!(u64_of(&hit["size"]), phase_b);
    assert_eq!(
        (u64_of(&hit["line_start"]), u64_of(&hit["line_end"])),
        (l("## Phase B"), l("## Risks") - 1)
    );

    // Nothing matching is an answer, not an error.
    let (text, v) = srv
        .ok(
            "doc_find",
            json!({"path": "find.md", "pattern": "phase", "level": 1}),
        )
        .await
        .pair();
    assert_eq!(v["total_matches"], 0);
    assert!(text.contains("No section matches every filter."), "{text}");

    // Bad filters.
    for (args, short) in [
        (
            json!({"content_pattern": "("}),
            "Invalid regex in content_pattern",
        ),
        (
            json!({"content_pattern": "[a-"}),
            "Invalid regex in content_pattern",
        ),
        (json!({"content_pattern": ""}), "Empty content_pattern"),
        (json!({"level": 9}), "Invalid level"),
        (json!({"level": 0}), "Invalid level"),
        (json!({"min_size": -1}), "Invalid min_size"),
        (json!({"max_depth": 0}), "Invalid max_depth"),
    ] {
        let mut a = args.clone();
        a["path"] = json!("find.md");
        let text = srv.err("doc_find", a).await;
        let e = layout(&text);
        assert_eq!(e.short, short, "{args}: {text}");
        assert!(e.provided.starts_with("path=\"find.md\", "), "{text}");
    }
    let text = srv
        .err("doc_find", json!({"path": "find.md", "level": 9}))
        .await;
    assert!(
        layout(&text).problem.contains("between 1 and 6; got 9"),
        "{text}"
    );
    srv.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// 10. doc_toc
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn doc_toc_depth_subtree_and_file_errors() {
    let fx = Fixture::new();
    fx.write("find.md", FIND);
    fx.write("plain.md", "no headings here\njust text\n");
    fx.write("image.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00");
    fx.write_outside("outside.md", "# Outside\n");
    fx.write("dir/inner.md", "# Inner\n");
    let srv = fx.serve().await;
    let l = |s: &str| line_no(FIND, s);

    // The whole outline, as text lines and structured entries.
    let (text, toc) = srv.ok("doc_toc", json!({"path": "find.md"})).await.pair();
    assert_eq!(toc["path"], "find.md");
    assert_eq!(toc["total_sections"], 6);
    assert_eq!(u64_of(&toc["total_lines"]), total_lines(FIND));
    assert_eq!(toc["truncated"], false);
    assert_eq!(
        field(&toc["sections"], "slug"),
        [
            "project-plan",
            "phase-a",
            "phase-b",
            "phase-b-tests",
            "risks",
            "appendix"
        ]
    );
    let entries = toc["sections"].as_array().unwrap();
    let mut expected_text = format!("File: find.md · {} lines · 6 sections\n", total_lines(FIND));
    for e in entries {
        let depth = str_of(&e["index_path"]).matches('.').count();
        let (a, b) = (u64_of(&e["line_start"]), u64_of(&e["line_end"]));
        let size = lines(FIND, a, b).len();
        assert_eq!(u64_of(&e["size"]), size as u64);
        assert!(size < 1024);
        expected_text.push_str(&format!(
            "{}{} {} {}  (#{}, lines {a}-{b}, {size} B)\n",
            "  ".repeat(depth),
            str_of(&e["index_path"]),
            "#".repeat(u64_of(&e["level"]) as usize),
            str_of(&e["title"]),
            str_of(&e["slug"]),
        ));
    }
    assert_eq!(text, expected_text);

    // max_depth 1: the top level only.
    let (text, toc) = srv
        .ok("doc_toc", json!({"path": "find.md", "max_depth": 1}))
        .await
        .pair();
    assert_eq!(
        field(&toc["sections"], "slug"),
        ["project-plan", "appendix"]
    );
    assert_eq!(toc["total_sections"], 6);
    assert!(
        text.starts_with(&format!(
            "File: find.md · {} lines · 6 sections (listing 2)\n",
            total_lines(FIND)
        )),
        "{text}"
    );
    let (_, toc) = srv
        .ok("doc_toc", json!({"path": "find.md", "max_depth": 2}))
        .await
        .pair();
    assert_eq!(
        field(&toc["sections"], "slug"),
        ["project-plan", "phase-a", "phase-b", "risks", "appendix"]
    );

    // A subtree: the section and its subsections, addressed like doc_read.
    for q in ["phase-b", "1.2", "Phase B", &l("Beta work.").to_string()] {
        let (_, toc) = srv
            .ok("doc_toc", json!({"path": "find.md", "section": q}))
            .await
            .pair();
        assert_eq!(
            field(&toc["sections"], "slug"),
            ["phase-b", "phase-b-tests"],
            "{q}"
        );
    }
    let (_, toc) = srv
        .ok(
            "doc_toc",
            json!({"path": "find.md", "section": "project-plan", "max_depth": 2}),
        )
        .await
        .pair();
    assert_eq!(
        field(&toc["sections"], "slug"),
        ["project-plan", "phase-a", "phase-b", "risks"]
    );
    let (_, toc) = srv
        .ok("doc_toc", json!({"path": "find.md", "section": "appendix"}))
        .await
        .pair();
    assert_eq!(field(&toc["sections"], "slug"), ["appendix"]);
    // A section that is not there, or names several, is an error.
    let text = srv
        .err(
            "doc_toc",
            json!({"path": "find.md", "section": "Gamma Delta"}),
        )
        .await;
    assert_eq!(layout(&text).short, "Section not found", "{text}");
    let text = srv
        .err("doc_toc", json!({"path": "find.md", "section": "phase"}))
        .await;
    assert_eq!(layout(&text).short, "Ambiguous section", "{text}");
    let text = srv
        .err("doc_toc", json!({"path": "find.md", "max_depth": 0}))
        .await;
    assert_eq!(layout(&text).short, "Invalid max_depth", "{text}");

    // A file without headings is no error.
    let (text, toc) = srv.ok("doc_toc", json!({"path": "plain.md"})).await.pair();
    assert_eq!(toc["total_sections"], 0);
    assert_eq!(toc["sections"], json!([]));
    assert!(text.contains("No headings"), "{text}");
    let err = read(&srv, "plain.md", "anything").await.unwrap_err();
    assert!(layout(&err).problem.contains("no headings"), "{err}");

    // Paths: relative in a subdirectory and absolute inside the root work.
    let (_, toc) = srv
        .ok("doc_toc", json!({"path": "dir/inner.md"}))
        .await
        .pair();
    assert_eq!(toc["sections"][0]["slug"], "inner");
    let (_, toc) = srv
        .ok("doc_toc", json!({"path": fx.abs("find.md")}))
        .await
        .pair();
    assert_eq!(toc["total_sections"], 6);

    // File errors, in the Error / You provided / Problem / Fix layout, for every tool.
    let outside_abs = fx.base().join("outside.md").to_str().unwrap().to_string();
    let bad = [
        ("missing.md", "File not found"),
        ("../outside.md", "Path outside the allowed roots"),
        (outside_abs.as_str(), "Path outside the allowed roots"),
        ("image.png", "Binary file"),
        ("dir", "Not a regular file"),
    ];
    for (path, short) in bad {
        let calls: [(&'static str, Value); 4] = [
            ("doc_toc", json!({"path": path})),
            ("doc_read", json!({"path": path, "section": "outside"})),
            (
                "doc_read_many",
                json!({"path": path, "sections": ["outside"]}),
            ),
            ("doc_find", json!({"path": path, "pattern": "*"})),
        ];
        for (tool, args) in calls {
            let text = srv.err(tool, args).await;
            let e = layout(&text);
            assert_eq!(e.short, short, "{tool} {path}: {text}");
            assert!(
                e.provided.starts_with(&format!("path={path:?}")),
                "{tool} {path}: {text}"
            );
            assert!(!e.problem.is_empty() && !e.fix.is_empty(), "{text}");
            assert!(!text.contains("# Outside"), "{tool} {path}: {text}");
        }
    }
    srv.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// 11. Not found: suggestions
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn not_found_suggests_the_closest_titles() {
    let fx = Fixture::new();
    fx.write("find.md", FIND);
    fx.write("plan.md", PLAN);
    let srv = fx.serve().await;

    let err = read(&srv, "find.md", "Phsae B").await.unwrap_err();
    let e = layout(&err);
    assert_eq!(e.short, "Section not found", "{err}");
    assert_eq!(
        e.provided,
        "path=\"find.md\", section=\"Phsae B\", include_children=true"
    );
    assert_eq!(
        e.problem,
        "No section matches \"Phsae B\" by slug, index path, line number or title (exact, normalized, part, or all words)."
    );
    assert!(e.fix.starts_with("Did you mean one of these?\n"), "{err}");
    let offered = listed(&e.fix);
    assert!(!offered.is_empty() && offered.len() <= 5, "{err}");
    let l = |s: &str| line_no(FIND, s);
    assert_eq!(
        offered[0],
        format!(
            "1.2 ## Phase B (#phase-b, lines {}-{})",
            l("## Phase B"),
            l("## Risks") - 1
        ),
        "{err}"
    );
    assert!(
        offered.iter().any(|o| o.contains("(#phase-b-tests,")),
        "{err}"
    );

    // Other typos.
    let err = read(&srv, "find.md", "Riks").await.unwrap_err();
    assert!(listed(&layout(&err).fix)[0].contains("(#risks,"), "{err}");
    let err = read(&srv, "plan.md", "Roadmpa").await.unwrap_err();
    assert!(listed(&layout(&err).fix)[0].contains("(#roadmap,"), "{err}");
    let err = read(&srv, "plan.md", "验证计画").await.unwrap_err();
    assert!(
        listed(&layout(&err).fix)[0].contains("(#62-phase-b-验证计划,"),
        "{err}"
    );
    // Nothing alike: no suggestions, a pointer to doc_toc instead.
    let err = read(&srv, "find.md", "zzqqxxww").await.unwrap_err();
    let e = layout(&err);
    assert!(!e.fix.contains("Did you mean"), "{err}");
    assert!(e.fix.contains("doc_toc"), "{err}");
    srv.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// 12. The response size limit
// ---------------------------------------------------------------------------------------------

/// `n` level-2 sections `## Part i` of `body_lines` lines each, under `# Big`.
fn big_doc(n: usize, body_lines: usize) -> String {
    let mut doc = String::from("# Big\n\n");
    for i in 1..=n {
        doc.push_str(&format!("## Part {i}\n\n"));
        for j in 1..=body_lines {
            doc.push_str(&format!("part {i} line {j} with some filler text\n"));
        }
        doc.push('\n');
    }
    doc
}

#[tokio::test]
async fn long_sections_lists_and_batches_are_cut_at_the_limit() {
    const LIMIT: usize = 600;
    let fx = Fixture::new();
    let doc = big_doc(30, 20);
    fx.write("big.md", &doc);
    let srv = fx
        .serve_with(&["--max-output-bytes", &LIMIT.to_string()])
        .await;
    let full = Fixture::new();
    full.write("big.md", &doc);
    let unlimited = full.serve().await;

    // A section longer than the limit: whole lines up to the limit, where it really ends,
    // and the hash of the whole section (what doc_replace checks).
    let r = srv
        .call("doc_read", json!({"path": "big.md", "section": "part-3"}))
        .await
        .unwrap();
    let text = text_of(&r);
    assert_ne!(r.is_error, Some(true), "{text}");
    let s = doc_view("doc_read", &r)["section"].clone();
    let whole = read(&unlimited, "big.md", "part-3").await.unwrap();
    let (a, b) = (line_no(&doc, "## Part 3"), line_no(&doc, "## Part 4") - 1);
    assert_eq!(
        (u64_of(&whole["line_start"]), u64_of(&whole["line_end"])),
        (a, b)
    );
    assert_eq!(str_of(&whole["content"]), lines(&doc, a, b));
    assert!(lines(&doc, a, b).len() > LIMIT);
    let content = str_of(&s["content"]);
    let shown_end = u64_of(&s["line_end"]);
    assert!(content.len() <= LIMIT, "{}", content.len());
    assert_eq!(content, lines(&doc, a, shown_end));
    // The whole answer (its structured view's JSON) counts: one more line would not fit.
    let answer_bytes = serde_json::to_string(r.structured_content.as_ref().unwrap())
        .unwrap()
        .len();
    assert!(answer_bytes <= LIMIT, "{answer_bytes}");
    assert!(
        answer_bytes + lines(&doc, shown_end + 1, shown_end + 1).len() > LIMIT,
        "as many whole lines as fit"
    );
    assert_eq!(u64_of(&s["cut_section_end"]), b);
    assert_eq!(s["hash"], whole["hash"]);
    assert!(
        text.contains(&format!(
            "Note: Cut at line {shown_end} (response size limit); the section runs to line {b}. Read the rest with read_files start_line: {}, end_line: {b}",
            shown_end + 1
        )),
        "{text}"
    );
    assert!(text.contains(&format!("Lines: {a}-{b} of ")), "{text}");

    // A batch shares the limit: once it is spent, one last entry says which were not read.
    let (text, v) = srv
        .ok(
            "doc_read_many",
            json!({"path": "big.md", "sections": ["part-1", "part-2", "part-3"]}),
        )
        .await
        .pair();
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{v}");
    let first = &results[0]["section"];
    assert!(first.get("cut_section_end").is_some(), "{v}");
    let shown: usize = results
        .iter()
        .filter_map(|r| r["section"]["content"].as_str())
        .map(str::len)
        .sum();
    assert!(shown <= LIMIT, "{shown} bytes of sections in {text}");
    let last = &results[1];
    assert!(last.get("section").is_none(), "{v}");
    let error = str_of(&last["error"]);
    assert!(error.starts_with("Error: Response limit reached"), "{v}");
    assert!(
        error.contains(
            "\nYou provided: path=\"big.md\", sections 2-3 of 3: \"part-2\", \"part-3\"\n"
        ),
        "{error}"
    );
    assert!(text.contains("[2-3/3] sections not read\n"), "{text}");

    // The outline listing and find results are cut too, and say where to continue.
    let (text, toc) = srv.ok("doc_toc", json!({"path": "big.md"})).await.pair();
    assert_eq!(toc["truncated"], true);
    assert_eq!(toc["total_sections"], 31);
    let listed_n = toc["sections"].as_array().unwrap().len();
    assert!(listed_n > 0 && listed_n < 31, "{text}");
    let next = format!("1.{listed_n}");
    assert!(
        text.contains(&format!(
            "[cut: {listed_n} of 31 sections listed (response size limit). Narrow with max_depth, or list one part with section: \"{next}\".]"
        )),
        "{text}"
    );
    let (_, v) = srv
        .ok("doc_find", json!({"path": "big.md", "level": 2}))
        .await
        .pair();
    assert_eq!(v["truncated"], true);
    assert_eq!(v["total_matches"], 30);
    assert!(v["matches"].as_array().unwrap().len() < 30);
    srv.shutdown().await;
    unlimited.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// 13. Slugs round-trip
// ---------------------------------------------------------------------------------------------

const ODD: &str = "\
# The `foo()` **bold** [link](http://x) <em>html</em>

text

## C++ & C#: \"quotes\" — dash

## a - b

## Emoji 🎉 party

## Trailing hashes ###

## Spaces   Inside

<details>

## Inside Details

</details>

   ## Three Space Indent

## Über-Größe
";

#[tokio::test]
async fn every_slug_doc_toc_lists_reads_its_own_section() {
    let fx = Fixture::new();
    let docs = [
        ("plan.md", PLAN),
        ("tiers.md", TIERS),
        ("uni.md", UNICODE),
        ("dupes.md", DUPES),
        ("setext.md", SETEXT),
        ("ranges.md", RANGES),
        ("find.md", FIND),
        ("odd.md", ODD),
    ];
    for (path, doc) in docs {
        fx.write(path, doc);
    }
    let srv = fx.serve().await;

    // GitHub's anchors for the odd headings.
    let (_, toc) = srv.ok("doc_toc", json!({"path": "odd.md"})).await.pair();
    assert_eq!(
        field(&toc["sections"], "title"),
        [
            "The foo() bold link html",
            "C++ & C#: \"quotes\" — dash",
            "a - b",
            "Emoji 🎉 party",
            "Trailing hashes",
            "Spaces   Inside",
            "Inside Details",
            "Three Space Indent",
            "Über-Größe",
        ]
    );
    assert_eq!(
        field(&toc["sections"], "slug"),
        [
            "the-foo-bold-link-html",
            "c--c-quotes--dash",
            "a---b",
            "emoji--party",
            "trailing-hashes",
            "spaces---inside",
            "inside-details",
            "three-space-indent",
            "über-größe",
        ]
    );

    for (path, doc) in docs {
        let (_, toc) = srv.ok("doc_toc", json!({"path": path})).await.pair();
        for entry in toc["sections"].as_array().unwrap() {
            let slug = str_of(&entry["slug"]);
            for query in [
                slug.clone(),
                format!("#{slug}"),
                format!("user-content-{slug}"),
            ] {
                let s = read(&srv, path, &query)
                    .await
                    .unwrap_or_else(|e| panic!("{path} {query:?}: {e}"));
                assert_eq!(s["index_path"], entry["index_path"], "{path} {query:?}");
                assert_eq!(s["matched_by"], BY_SLUG, "{path} {query:?}");
                let (a, b) = (u64_of(&entry["line_start"]), u64_of(&entry["line_end"]));
                assert_eq!(str_of(&s["content"]), lines(doc, a, b), "{path} {query:?}");
            }
        }
    }
    srv.shutdown().await;
}

/// A heading whose own slug starts with `user-content-` ("User Content Foo" →
/// `user-content-foo`): doc_toc lists `#user-content-foo`, and that exact slug must read that
/// section, not the section `foo` the prefix-stripped form names.
#[tokio::test]
async fn an_exact_slug_beginning_with_user_content_reads_its_own_section() {
    const DOC: &str = "## Foo\n\nfoo text\n\n## User Content Foo\n\nuser content text\n";
    let fx = Fixture::new();
    fx.write("uc.md", DOC);
    let srv = fx.serve().await;
    let (_, toc) = srv.ok("doc_toc", json!({"path": "uc.md"})).await.pair();
    assert_eq!(field(&toc["sections"], "slug"), ["foo", "user-content-foo"]);
    for query in ["user-content-foo", "#user-content-foo"] {
        let s = read(&srv, "uc.md", query).await.unwrap();
        assert_eq!(
            (str_of(&s["slug"]), str_of(&s["matched_by"])),
            ("user-content-foo".to_string(), BY_SLUG.to_string()),
            "{query}"
        );
        assert_eq!(s["content"], "## User Content Foo\n\nuser content text\n");
    }
    // GitHub's element id of that heading, with the prefix, still names it.
    let s = read(&srv, "uc.md", "user-content-user-content-foo")
        .await
        .unwrap();
    assert_eq!(s["slug"], "user-content-foo");
    // ...and the prefixed form of `foo` still names `foo`.
    let s = read(&srv, "uc.md", "user-content-foo-x").await;
    assert!(s.is_err(), "{s:?}");
    srv.shutdown().await;
}
