//! `doc_replace` through the MCP server: refused without `--allow-write`, with a stale hash,
//! an ambiguous section, content that would break the outline (judged in the document as
//! written) or holds a lone `\r`, or a read-only file (the file byte-for-byte unchanged each
//! time); otherwise an atomic edit that keeps line endings, the blank line before the next
//! heading, every other section, and the file's mode, owner and group. Concurrent edits from
//! one read, through one server or two, have exactly one winner.

use mapgrep::platform::test_support as sys;

use serde_json::{Value, json};

use crate::common::{Fixture, Server, doc_view, text_of};

const DOC: &str = "\
# Guide

Intro.

## Install

Run the installer.

### Notes

Install notes.

## Usage

Use it.

## Notes

Usage notes.

## Last

The end.
";

/// `doc_read`'s hash of `section` (include_children as given).
async fn hash_of(srv: &Server, section: &str, include_children: bool) -> String {
    let r = srv
        .call(
            "doc_read",
            json!({"path": "doc.md", "section": section, "include_children": include_children}),
        )
        .await
        .expect("doc_read answers");
    assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
    doc_view("doc_read", &r)["section"]["hash"]
        .as_str()
        .expect("hash")
        .to_string()
}

async fn replace(srv: &Server, args: Value) -> (bool, String, Option<Value>) {
    let r = srv
        .call("doc_replace", args)
        .await
        .expect("doc_replace answers");
    let facts = (r.is_error != Some(true)).then(|| doc_view("doc_replace", &r));
    (r.is_error == Some(true), text_of(&r), facts)
}

fn no_temp_files(fx: &Fixture) {
    let leftovers: Vec<_> = std::fs::read_dir(&fx.root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".mapgrep-"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

#[tokio::test]
async fn refused_without_allow_write_and_the_file_is_unchanged() {
    let fx = Fixture::new();
    let path = fx.write("doc.md", DOC);
    let srv = fx.serve().await;
    let hash = hash_of(&srv, "usage", true).await;
    let (err, text, _) = replace(
        &srv,
        json!({"path": "doc.md", "section": "usage", "content": "New.", "expected_hash": hash}),
    )
    .await;
    assert!(err, "{text}");
    assert!(text.starts_with("Error: Editing is disabled"), "{text}");
    assert!(text.contains("--allow-write"), "{text}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), DOC);
    no_temp_files(&fx);
}

#[tokio::test]
async fn refusals_leave_the_file_byte_for_byte_unchanged() {
    let fx = Fixture::new();
    let path = fx.write("doc.md", DOC);
    let srv = fx.serve_with(&["--allow-write"]).await;
    let hash = hash_of(&srv, "usage", true).await;
    let cases: Vec<(Value, &str)> = vec![
        // A stale hash: the refusal names the current one.
        (
            json!({"path": "doc.md", "section": "usage", "content": "x", "expected_hash": "0000000000000000"}),
            "Error: Stale hash",
        ),
        // Ambiguous: two sections titled "Notes".
        (
            json!({"path": "doc.md", "section": "Notes", "content": "x", "expected_hash": hash}),
            "Error: Ambiguous section",
        ),
        (
            json!({"path": "doc.md", "section": "no such section", "content": "x", "expected_hash": hash}),
            "Error: Section not found",
        ),
        // A heading at the section's level inside the content would split the section.
        (
            json!({"path": "doc.md", "section": "usage", "content": "Use it.\n\n## Sneaky\n\nx", "expected_hash": hash}),
            "Error: Content would change the outline",
        ),
        // A higher-level heading.
        (
            json!({"path": "doc.md", "section": "usage", "content": "# Top\n\nx", "expected_hash": hash}),
            "Error: Content would change the outline",
        ),
        // An unclosed fence would swallow every later heading.
        (
            json!({"path": "doc.md", "section": "usage", "content": "```\ncode without end", "expected_hash": hash}),
            "Error: Content would change the outline",
        ),
        // An HTML comment left open, likewise.
        (
            json!({"path": "doc.md", "section": "usage", "content": "<!-- open comment", "expected_hash": hash}),
            "Error: Content would change the outline",
        ),
        (
            json!({"path": "missing.md", "section": "usage", "content": "x", "expected_hash": hash}),
            "Error: File not found",
        ),
        (
            json!({"path": "../outside.md", "section": "usage", "content": "x", "expected_hash": hash}),
            "Error: Path outside the allowed roots",
        ),
    ];
    fx.write_outside("outside.md", DOC);
    for (args, expected) in cases {
        let (err, text, _) = replace(&srv, args.clone()).await;
        assert!(err, "{args}: not refused: {text}");
        assert!(text.starts_with(expected), "{args}: {text}");
        assert!(
            text.contains("You provided:") && text.contains("Fix:"),
            "{text}"
        );
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            DOC,
            "{args} changed the file"
        );
    }
    let (_, text, _) = replace(
        &srv,
        json!({"path": "doc.md", "section": "usage", "content": "x", "expected_hash": "0000000000000000"}),
    )
    .await;
    assert!(
        text.contains(&hash),
        "the stale-hash refusal names the current hash: {text}"
    );
    assert_eq!(
        std::fs::read_to_string(fx.base().join("outside.md")).unwrap(),
        DOC
    );
    no_temp_files(&fx);
}

#[tokio::test]
async fn an_edit_replaces_one_section_and_keeps_the_rest() {
    let fx = Fixture::new();
    let path = fx.write("doc.md", DOC);
    let srv = fx.serve_with(&["--allow-write"]).await;
    let hash = hash_of(&srv, "usage", true).await;
    // Content without a heading replaces the text below the heading.
    let (err, text, structured) = replace(
        &srv,
        json!({"path": "doc.md", "section": "usage", "content": "Use it well.\nTwice.", "expected_hash": hash}),
    )
    .await;
    assert!(!err, "{text}");
    let expected = DOC.replace("Use it.\n", "Use it well.\nTwice.\n");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), expected);
    let structured = structured.expect("structured result");
    assert_eq!(structured["section"]["slug"], "usage");
    assert_eq!(structured["section"]["line_start"], 13);
    assert_eq!(structured["section"]["line_end"], 17);
    // The returned hash is the one a fresh read gives: edits chain without a re-read.
    let new_hash = structured["hash"].as_str().unwrap().to_string();
    assert_eq!(hash_of(&srv, "usage", true).await, new_hash);

    // Content with its own heading (same level) renames the section; the blank line before
    // the next heading is kept even though the content ends without one.
    let (err, text, structured) = replace(
        &srv,
        json!({"path": "doc.md", "section": "usage", "content": "## Using it\n\nBody.", "expected_hash": new_hash}),
    )
    .await;
    assert!(!err, "{text}");
    let expected = expected.replace(
        "## Usage\n\nUse it well.\nTwice.\n",
        "## Using it\n\nBody.\n",
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), expected);
    assert_eq!(structured.unwrap()["section"]["slug"], "using-it");

    // The last section: the file keeps its final newline.
    let hash = hash_of(&srv, "last", true).await;
    let (err, text, _) = replace(
        &srv,
        json!({"path": "doc.md", "section": "last", "content": "## Last\n\nNew end.\n\n\n", "expected_hash": hash}),
    )
    .await;
    assert!(!err, "{text}");
    let expected = expected.replace("The end.\n", "New end.\n");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), expected);

    // A subsection inside content is allowed (deeper than the section).
    let hash = hash_of(&srv, "last", true).await;
    let (err, text, _) = replace(
        &srv,
        json!({"path": "doc.md", "section": "last", "content": "New end.\n\n### Appendix\n\nMore.", "expected_hash": hash}),
    )
    .await;
    assert!(!err, "{text}");
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .ends_with("## Last\n\nNew end.\n\n### Appendix\n\nMore.\n")
    );
    no_temp_files(&fx);
}

#[tokio::test]
async fn include_children_false_replaces_only_the_text_before_subsections() {
    let fx = Fixture::new();
    let path = fx.write("doc.md", DOC);
    let srv = fx.serve_with(&["--allow-write"]).await;
    let whole = hash_of(&srv, "install", true).await;
    let own = hash_of(&srv, "install", false).await;
    assert_ne!(whole, own);
    // The hash of the whole section does not stand for the partial one.
    let (err, text, _) = replace(
        &srv,
        json!({"path": "doc.md", "section": "install", "content": "Download it.", "expected_hash": whole, "include_children": false}),
    )
    .await;
    assert!(err && text.starts_with("Error: Stale hash"), "{text}");
    let (err, text, _) = replace(
        &srv,
        json!({"path": "doc.md", "section": "install", "content": "Download it.", "expected_hash": own, "include_children": false}),
    )
    .await;
    assert!(!err, "{text}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        DOC.replace("Run the installer.\n", "Download it.\n")
    );
}

#[tokio::test]
async fn outline_changes_only_when_asked() {
    let fx = Fixture::new();
    let path = fx.write("doc.md", DOC);
    let srv = fx.serve_with(&["--allow-write"]).await;
    let hash = hash_of(&srv, "usage", true).await;
    let args = json!({"path": "doc.md", "section": "usage", "content": "### Usage\n\nDemoted.", "expected_hash": hash});
    let (err, text, _) = replace(&srv, args.clone()).await;
    assert!(err && text.contains("level 3"), "{text}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), DOC);
    let mut allowed = args;
    allowed["allow_outline_change"] = json!(true);
    let (err, text, _) = replace(&srv, allowed).await;
    assert!(!err, "{text}");
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .contains("\n### Usage\n\nDemoted.\n\n## Notes\n")
    );
    // Even when asked, an unclosed fence is refused: later headings would vanish.
    let before = std::fs::read_to_string(&path).unwrap();
    let (err, text, _) = replace(
        &srv,
        json!({"path": "doc.md", "section": "install", "content": "## Install\n\n```\nopen", "expected_hash": hash_of(&srv, "install", true).await, "allow_outline_change": true}),
    )
    .await;
    assert!(
        err && text.contains("no longer be the same heading"),
        "{text}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
}

#[tokio::test]
async fn crlf_files_keep_crlf_and_permissions_are_kept() {
    let fx = Fixture::new();
    let crlf = DOC.replace('\n', "\r\n");
    let path = fx.write("doc.md", &crlf);
    sys::set_mode(&path, 0o640).unwrap();
    let srv = fx.serve_with(&["--allow-write"]).await;
    let hash = hash_of(&srv, "usage", true).await;
    let (err, text, _) = replace(
        &srv,
        json!({"path": "doc.md", "section": "usage", "content": "Line one.\nLine two.\r\n", "expected_hash": hash}),
    )
    .await;
    assert!(!err, "{text}");
    let after = std::fs::read(&path).unwrap();
    let expected = crlf.replace("Use it.\r\n", "Line one.\r\nLine two.\r\n");
    assert_eq!(String::from_utf8_lossy(&after), expected);
    let lone_lf = after
        .iter()
        .enumerate()
        .filter(|&(i, &b)| b == b'\n' && (i == 0 || after[i - 1] != b'\r'))
        .count();
    assert_eq!(lone_lf, 0, "every line ends with CRLF");
    // Mode bits where the system has them (Windows: a read-only attribute only).
    if sys::supported() {
        let mode = sys::mode(&std::fs::metadata(&path).unwrap());
        assert_eq!(mode, 0o640);
    }
    no_temp_files(&fx);
}

#[tokio::test]
async fn doc_replace_is_listed_as_destructive_and_the_read_tools_as_read_only() {
    let fx = Fixture::new();
    // A read-only server does not list the tool it could not run.
    let srv = fx.serve().await;
    let tools = srv.client().list_all_tools().await.unwrap();
    assert!(tools.iter().all(|t| t.name != "doc_replace"));
    let srv = fx.serve_with(&["--allow-write"]).await;
    let tools = srv.client().list_all_tools().await.unwrap();
    for name in ["doc_toc", "doc_read", "doc_read_many", "doc_find"] {
        let t = tools.iter().find(|t| t.name == name).expect(name);
        assert_eq!(
            t.annotations.as_ref().and_then(|a| a.read_only_hint),
            Some(true),
            "{name}"
        );
        assert!(t.output_schema.is_some(), "{name} has an output schema");
    }
    let t = tools.iter().find(|t| t.name == "doc_replace").unwrap();
    let ann = t.annotations.as_ref().unwrap();
    assert_eq!(ann.read_only_hint, Some(false));
    assert_eq!(ann.destructive_hint, Some(true));
}

/// One trial of the lost-update race: `n` replaces of the same section carrying the same hash,
/// sent at once, spread over `servers`. Returns the winner's index.
async fn race_once(servers: &[&Server], path: &std::path::Path, n: usize) -> usize {
    std::fs::write(path, DOC).unwrap();
    let hash = hash_of(servers[0], "usage", true).await;
    let mut calls = tokio::task::JoinSet::new();
    for i in 0..n {
        let peer = servers[i % servers.len()].client().peer().clone();
        let args = json!({"path": "doc.md", "section": "usage", "content": format!("Writer {i}."), "expected_hash": hash});
        calls.spawn(async move {
            let params = rmcp::model::CallToolRequestParams::new("doc_replace")
                .with_arguments(args.as_object().unwrap().clone());
            let r = tokio::time::timeout(crate::common::CALL_TIMEOUT, peer.call_tool(params))
                .await
                .expect("doc_replace answers in time")
                .expect("doc_replace answers");
            (i, r)
        });
    }
    let mut winners = Vec::new();
    let mut losers = Vec::new();
    while let Some(done) = calls.join_next().await {
        let (i, r) = done.expect("the call task ran");
        if r.is_error == Some(true) {
            losers.push(text_of(&r));
        } else {
            let hash = doc_view("doc_replace", &r)["hash"]
                .as_str()
                .expect("hash")
                .to_string();
            winners.push((i, hash));
        }
    }
    assert_eq!(
        winners.len(),
        1,
        "exactly one of {n} replaces with one hash succeeds: {winners:?}"
    );
    let (winner, new_hash) = winners.pop().unwrap();
    for text in &losers {
        assert!(text.starts_with("Error: Stale hash"), "{text}");
        assert!(
            text.contains(&new_hash),
            "a loser is told the winner's hash {new_hash}: {text}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(path).unwrap(),
        DOC.replace("Use it.\n", &format!("Writer {winner}.\n")),
        "the file holds what the one winner wrote"
    );
    winner
}

/// `trials` races of 12 replaces with one hash against `servers` servers of one root.
async fn race_trials(servers: usize, trials: usize) {
    let fx = Fixture::new();
    let path = fx.write("doc.md", DOC);
    let mut running = Vec::new();
    for _ in 0..servers {
        running.push(fx.serve_with(&["--allow-write"]).await);
    }
    let servers: Vec<&Server> = running.iter().collect();
    let started = std::time::Instant::now();
    let mut wins = [0usize; 12];
    for _ in 0..trials {
        wins[race_once(&servers, &path, 12).await] += 1;
    }
    eprintln!(
        "{trials} trials of 12 concurrent replaces over {} server(s): exactly one winner each time, {:?}; wins by writer: {wins:?}",
        servers.len(),
        started.elapsed()
    );
    no_temp_files(&fx);
}

/// Lost updates: replaces of one file are serialized and each re-reads the file under the
/// lock, so of 12 concurrent replaces carrying the same hash exactly one succeeds, the others
/// are refused as stale with the winner's hash, and the file holds the winner's edit. (About
/// a second for 100 trials in a debug build: only the winner writes.)
#[tokio::test]
async fn concurrent_replaces_with_one_hash_have_exactly_one_winner() {
    race_trials(1, 100).await;
}

/// The same across processes: two servers of one root honour each other's `flock`.
#[tokio::test]
async fn concurrent_replaces_through_two_servers_have_exactly_one_winner() {
    race_trials(2, 30).await;
}

const TWO: &str = "\
# Top

Intro.

## A

Text of A.

## B

Text of B.
";

/// Content is checked for the outline it makes in the document as written, not alone: front
/// matter alone is a thematic break and a setext heading after a section's heading.
#[tokio::test]
async fn front_matter_like_content_cannot_add_a_sibling_heading() {
    let fx = Fixture::new();
    let path = fx.write("doc.md", TWO);
    let srv = fx.serve_with(&["--allow-write"]).await;
    let hash = hash_of(&srv, "a", true).await;
    let args = json!({"path": "doc.md", "section": "a", "content": "---\ntitle: x\n---\n", "expected_hash": hash});
    let (err, text, _) = replace(&srv, args.clone()).await;
    assert!(err, "not refused: {text}");
    assert!(
        text.starts_with("Error: Content would change the outline"),
        "{text}"
    );
    assert!(
        text.contains("title: x"),
        "the refusal names the heading: {text}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), TWO);
    // Asked for, the change is made: "title: x" becomes a sibling of A.
    let mut allowed = args;
    allowed["allow_outline_change"] = json!(true);
    let (err, text, _) = replace(&srv, allowed).await;
    assert!(!err, "{text}");
    let r = srv
        .call("doc_find", json!({"path": "doc.md", "level": 2}))
        .await
        .unwrap();
    let found = text_of(&r);
    assert!(found.contains("title: x"), "{found}");
}

/// A lone `\r` is a line ending to CommonMark but not to mapgrep's outline: content holding
/// one is refused, so the outline check never vouches for a heading it cannot see.
#[tokio::test]
async fn content_with_a_lone_carriage_return_is_refused() {
    let fx = Fixture::new();
    let path = fx.write("doc.md", TWO);
    let srv = fx.serve_with(&["--allow-write"]).await;
    let hash = hash_of(&srv, "a", true).await;
    for content in ["## A\r\rx\r# Injected\r", "Text.\rMore.", "Text.\r"] {
        let (err, text, _) = replace(
            &srv,
            json!({"path": "doc.md", "section": "a", "content": content, "expected_hash": hash}),
        )
        .await;
        assert!(err, "{content:?} not refused: {text}");
        let l = crate::common::layout(&text);
        assert_eq!(l.short, "Lone carriage return in content", "{text}");
        assert!(l.fix.contains("\\n or \\r\\n line endings"), "{text}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), TWO);
    }
    // CRLF is fine.
    let (err, text, _) = replace(
        &srv,
        json!({"path": "doc.md", "section": "a", "content": "## A\r\n\r\nNew A.\r\n", "expected_hash": hash}),
    )
    .await;
    assert!(!err, "{text}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        TWO.replace("Text of A.", "New A.")
    );
}

/// Content with a NUL byte is refused (the file would turn binary: the doc tools would
/// refuse it and grep skip it); the file is unchanged, and the same edit without it works.
#[tokio::test]
async fn content_with_a_nul_byte_is_refused_and_the_file_is_unchanged() {
    let fx = Fixture::new();
    let path = fx.write("doc.md", TWO);
    let srv = fx.serve_with(&["--allow-write"]).await;
    let hash = hash_of(&srv, "a", true).await;
    for (content, line) in [("## A\n\nNew\0A.\n", 3), ("\0", 1)] {
        let (err, text, _) = replace(
            &srv,
            json!({"path": "doc.md", "section": "a", "content": content, "expected_hash": hash}),
        )
        .await;
        assert!(err, "{content:?} not refused: {text}");
        let l = crate::common::layout(&text);
        assert_eq!(l.short, "NUL byte in content", "{text}");
        assert!(l.problem.contains(&format!("on its line {line}")), "{text}");
        assert!(l.problem.contains("nothing was written"), "{text}");
        assert!(l.fix.starts_with("Remove the NUL byte"), "{text}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), TWO);
    }
    no_temp_files(&fx);
    let (err, text, _) = replace(
        &srv,
        json!({"path": "doc.md", "section": "a", "content": "## A\n\nNew A.\n", "expected_hash": hash}),
    )
    .await;
    assert!(!err, "{text}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        TWO.replace("Text of A.", "New A.")
    );
}

/// A file without write permission for its owner is not replaced (renaming over it would
/// succeed: that needs only the directory's permission). Unix: mode bits, as the unit test.
#[tokio::test]
#[cfg(unix)]
async fn a_read_only_file_is_refused_and_unchanged() {
    let fx = Fixture::new();
    let path = fx.write("doc.md", DOC);
    sys::set_mode(&path, 0o444).unwrap();
    let before = std::fs::metadata(&path).unwrap();
    let srv = fx.serve_with(&["--allow-write"]).await;
    let hash = hash_of(&srv, "usage", true).await;
    let (err, text, _) = replace(
        &srv,
        json!({"path": "doc.md", "section": "usage", "content": "New.", "expected_hash": hash}),
    )
    .await;
    assert!(err, "not refused: {text}");
    let l = crate::common::layout(&text);
    assert_eq!(l.short, "File is read-only", "{text}");
    assert!(l.problem.contains("0444"), "{text}");
    assert!(l.fix.contains("writable"), "{text}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), DOC);
    let after = std::fs::metadata(&path).unwrap();
    assert_eq!(
        (sys::ino(&after), sys::owner(&after), sys::mode(&after)),
        (sys::ino(&before), sys::owner(&before), 0o444),
        "the same file, owner and mode"
    );
    no_temp_files(&fx);
    // Asked for, the edit is made and the file stays read-only.
    let (err, text, _) = replace(
        &srv,
        json!({"path": "doc.md", "section": "usage", "content": "Asked.", "expected_hash": hash, "allow_read_only": true}),
    )
    .await;
    assert!(!err, "{text}");
    assert!(std::fs::read_to_string(&path).unwrap().contains("Asked."));
    assert_eq!(sys::mode(&std::fs::metadata(&path).unwrap()), 0o444);
    let hash = hash_of(&srv, "usage", true).await;
    // Made writable, the same edit (same hash) goes through.
    sys::set_mode(&path, 0o644).unwrap();
    let (err, text, _) = replace(
        &srv,
        json!({"path": "doc.md", "section": "usage", "content": "New.", "expected_hash": hash}),
    )
    .await;
    assert!(!err, "{text}");
}

/// A replace keeps the file's mode bits and, where the server may set them, its owner and
/// group (when the tests run as root: a file given to another user stays that user's). Unix:
/// mode bits and numeric owners.
#[tokio::test]
#[cfg(unix)]
async fn mode_owner_and_group_are_kept() {
    let fx = Fixture::new();
    let path = fx.write("doc.md", DOC);
    sys::set_mode(&path, 0o640).unwrap();
    // A file the tests created is owned by the tests' user.
    let root = sys::owner(&std::fs::metadata(&path).unwrap()).0 == 0;
    let owner = if root {
        sys::chown(&path, 65534, 65534).unwrap();
        (65534, 65534)
    } else {
        let md = std::fs::metadata(&path).unwrap();
        sys::owner(&md)
    };
    let srv = fx.serve_with(&["--allow-write"]).await;
    let hash = hash_of(&srv, "usage", true).await;
    let (err, text, _) = replace(
        &srv,
        json!({"path": "doc.md", "section": "usage", "content": "Kept.", "expected_hash": hash}),
    )
    .await;
    assert!(!err, "{text}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        DOC.replace("Use it.\n", "Kept.\n")
    );
    let md = std::fs::metadata(&path).unwrap();
    assert_eq!(sys::mode(&md), 0o640);
    assert_eq!(sys::owner(&md), owner, "owner and group kept");
    no_temp_files(&fx);
}
