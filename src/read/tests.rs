//! Engine tests of the read modes against a naive reference (split the whole file into lines,
//! slice, and scan line by line as the read_files contract's pseudocode does), over the mmap and the read
//! code paths.

use super::*;
use crate::roots::Roots;
use crate::workspace::WorkspaceBuilder;

/// the read_files contract's pseudocode, generalised to "the regex matches somewhere in the line".
fn naive_to_next(text: &str, start: usize, pattern: &str) -> (usize, usize) {
    let re = regex_automata::meta::Regex::new(pattern).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut end = lines.len();
    for (i, line) in lines.iter().enumerate().skip(start) {
        if re.is_match(*line) {
            end = i;
            break;
        }
    }
    (start, end) // 1-based first line, inclusive last line
}

fn fixture(text: &str, mmap: bool) -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.md"), text).unwrap();
    let ws = WorkspaceBuilder::new()
        .mmap_threshold(if mmap { 0 } else { u64::MAX })
        .build(Roots::new([dir.path()]).unwrap());
    (dir, ws)
}

fn req(f: impl FnOnce(&mut ReadRequest)) -> ReadRequest {
    let mut r = ReadRequest::new("f.md");
    f(&mut r);
    r
}

fn log_text(entries: usize) -> String {
    let mut s = String::from("# Log\n\n## Current\nsome text\n\n");
    for i in 0..entries {
        s.push_str(&format!(
            "[LOG-{i:06}] - [2026-01-27] - [NOTE] - Task: T{i}\n"
        ));
        for j in 0..(i % 5) {
            s.push_str(&format!("body {i}.{j}\n"));
        }
        if i % 7 == 0 {
            s.push('\n');
        }
        if i % 40 == 39 {
            s.push_str(&format!("## Phase {}\n", i / 40));
        }
    }
    s
}

#[test]
fn read_to_next_pattern_matches_the_naive_reference_on_both_paths() {
    let text = log_text(300);
    let total = text.lines().count();
    for mmap in [false, true] {
        let (_d, ws) = fixture(&text, mmap);
        for pattern in [
            r"^\[LOG-",
            r"^## ",
            r"^#+ ",
            r"^$",
            r"Phase",
            r"body \d+\.3",
        ] {
            for start in (1..=total).step_by(7) {
                let r = req(|r| {
                    r.start_line = Some(start as i64);
                    r.read_to_next_pattern = Some(pattern.into());
                });
                let got = read(&ws, &r, usize::MAX).unwrap();
                let (first, last) = naive_to_next(&text, start, pattern);
                assert_eq!(
                    (got.first_line, got.last_line),
                    (first as u64, last as u64),
                    "pattern {pattern} start {start} mmap {mmap}"
                );
                let want: String = text
                    .lines()
                    .skip(first - 1)
                    .take(last - first + 1)
                    .map(|l| format!("{l}\n"))
                    .collect();
                assert_eq!(got.text, want);
                let not_found = got
                    .notes
                    .iter()
                    .any(|n| matches!(n, Note::PatternNotFound { .. }));
                assert_eq!(
                    not_found,
                    last == total && {
                        // Not found means no line after start matched.
                        let re = regex_automata::meta::Regex::new(pattern).unwrap();
                        !text.lines().skip(start).any(|l| re.is_match(l))
                    }
                );
            }
        }
    }
}

#[test]
fn spec_000_edge_cases() {
    // Lines: 1 "[LOG-1]", 2 "a", 3 "[LOG-2]", 4 "[LOG-3]", 5 "b"
    let (_d, ws) = fixture("[LOG-1]\na\n[LOG-2]\n[LOG-3]\nb\n", false);
    let to_next = |start| {
        read(
            &ws,
            &req(|r| {
                r.start_line = Some(start);
                r.read_to_next_pattern = Some(r"^\[LOG-".into());
            }),
            usize::MAX,
        )
    };
    let e = to_next(1).unwrap();
    assert_eq!(
        (e.first_line, e.last_line, e.text.as_str()),
        (1, 2, "[LOG-1]\na\n")
    );
    // Pattern on the immediate next line: a single line.
    let e = to_next(3).unwrap();
    assert_eq!((e.first_line, e.last_line), (3, 3));
    // The starting line matches too, yet it is included and the scan starts after it.
    let e = to_next(4).unwrap();
    assert_eq!((e.first_line, e.last_line), (4, 5));
    assert_eq!(
        e.notes,
        vec![Note::PatternNotFound {
            pattern: r"^\[LOG-".into(),
            start_line: 4
        }]
    );
    assert_eq!(
        e.notes[0].text(&crate::words::Neutral),
        r"Note: Pattern '^\[LOG-' not found after line 4. Read to end of file."
    );
    // start_line past the end.
    let err = to_next(6)
        .unwrap_err()
        .to_param_error("x", &crate::words::Neutral);
    let s = err.to_string();
    assert!(s.starts_with("Error: start_line is past the end of the file\n\nYou provided: "));
    assert!(s.contains("\nProblem: start_line is 6, but the file has only 5 lines."));
    assert!(s.ends_with("\nTip: Use a search to find valid line numbers first"));
}

#[test]
fn validation_follows_spec_000() {
    // (request, short message, what `You provided` echoes after the path): every invalid
    // combination of the line parameters, and every parameter below 1.
    let cases: Vec<(ReadRequest, &str, &str)> = vec![
        (
            req(|r| r.read_to_next_pattern = Some("x".into())),
            "start_line is required when using read_to_next_pattern",
            r#"read_to_next_pattern="x""#,
        ),
        (
            req(|r| {
                r.start_line = Some(3);
                r.end_line = Some(5);
                r.read_to_next_pattern = Some("x".into());
            }),
            "Cannot specify both end_line and read_to_next_pattern",
            r#"start_line=3, end_line=5, read_to_next_pattern="x""#,
        ),
        (
            req(|r| {
                r.start_line = Some(1);
                r.head = Some(2);
                r.read_to_next_pattern = Some("x".into());
            }),
            "Cannot mix head/tail with read_to_next_pattern",
            r#"head=2, start_line=1, read_to_next_pattern="x""#,
        ),
        (
            req(|r| {
                r.start_line = Some(1);
                r.tail = Some(2);
                r.read_to_next_pattern = Some("x".into());
            }),
            "Cannot mix head/tail with read_to_next_pattern",
            r#"tail=2, start_line=1, read_to_next_pattern="x""#,
        ),
        (
            req(|r| {
                r.start_line = Some(1);
                r.read_to_next_pattern = Some(String::new());
            }),
            "read_to_next_pattern is empty",
            r#"start_line=1, read_to_next_pattern="""#,
        ),
        (
            req(|r| {
                r.head = Some(1);
                r.tail = Some(1);
            }),
            "Cannot specify both head and tail",
            "head=1, tail=1",
        ),
        (
            req(|r| {
                r.head = Some(2);
                r.start_line = Some(1);
            }),
            "Cannot mix head/tail with start_line/end_line",
            "head=2, start_line=1",
        ),
        (
            req(|r| {
                r.tail = Some(2);
                r.end_line = Some(4);
            }),
            "Cannot mix head/tail with start_line/end_line",
            "tail=2, end_line=4",
        ),
        (
            req(|r| r.start_line = Some(0)),
            "start_line must be at least 1",
            "start_line=0",
        ),
        (
            req(|r| r.head = Some(0)),
            "head must be at least 1",
            "head=0",
        ),
        (
            req(|r| r.head = Some(-3)),
            "head must be at least 1",
            "head=-3",
        ),
        (
            req(|r| r.tail = Some(0)),
            "tail must be at least 1",
            "tail=0",
        ),
        (
            req(|r| r.end_line = Some(0)),
            "end_line must be at least 1",
            "end_line=0",
        ),
        (
            req(|r| {
                r.start_line = Some(5);
                r.end_line = Some(2);
            }),
            "end_line is before start_line",
            "start_line=5, end_line=2",
        ),
    ];
    for (r, short, provided) in cases {
        let e = r.mode(&crate::words::Neutral).unwrap_err();
        assert_eq!(e.short, short);
        assert_eq!(e.provided, format!("path=\"f.md\", {provided}"), "{short}");
        let text = e.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], format!("Error: {short}"));
        assert_eq!(lines[1], "");
        assert_eq!(lines[2], format!("You provided: {}", e.provided));
        assert!(lines[3].starts_with("Problem: "));
        assert!(lines[4].starts_with("Fix: "));
    }
    // The fix of a pattern without a start line shows a request that has one.
    let e = req(|r| r.read_to_next_pattern = Some("x".into()))
        .mode(&crate::words::Neutral)
        .unwrap_err();
    assert!(e.fix.contains("start_line"), "{e:?}");
}

#[test]
fn invalid_regex_is_a_parameter_error() {
    let (_d, ws) = fixture("a\n", false);
    let e = read(
        &ws,
        &req(|r| {
            r.start_line = Some(1);
            r.read_to_next_pattern = Some("[LOG-".into());
        }),
        usize::MAX,
    )
    .unwrap_err();
    let ReadError::Param(p) = e else {
        panic!("expected a parameter error")
    };
    assert_eq!(p.short, "Invalid regex in read_to_next_pattern");
}

#[test]
fn head_tail_range_and_whole_match_slices_of_the_lines() {
    let text: String = (1..=50).map(|i| format!("line {i}\n")).collect();
    let lines: Vec<String> = text.lines().map(|l| format!("{l}\n")).collect();
    for mmap in [false, true] {
        let (_d, ws) = fixture(&text, mmap);
        let get = |r: ReadRequest| read(&ws, &r, usize::MAX).unwrap();
        let join = |a: usize, b: usize| lines[a - 1..b].concat();
        assert_eq!(get(req(|_| {})).text, text);
        assert_eq!(get(req(|r| r.head = Some(5))).text, join(1, 5));
        assert_eq!(get(req(|r| r.head = Some(500))).text, text);
        assert_eq!(get(req(|r| r.tail = Some(5))).text, join(46, 50));
        assert_eq!(get(req(|r| r.tail = Some(500))).text, text);
        let e = get(req(|r| {
            r.start_line = Some(10);
            r.end_line = Some(14);
        }));
        assert_eq!((e.first_line, e.last_line, e.total_lines), (10, 14, 50));
        assert_eq!(e.text, join(10, 14));
        assert_eq!(get(req(|r| r.start_line = Some(48))).text, join(48, 50));
        assert_eq!(get(req(|r| r.end_line = Some(3))).text, join(1, 3));
        let e = get(req(|r| {
            r.start_line = Some(49);
            r.end_line = Some(80);
        }));
        assert_eq!(e.text, join(49, 50));
        assert_eq!(
            e.notes,
            vec![Note::EndClamped {
                requested: 80,
                total: 50
            }]
        );
    }
}

#[test]
fn the_budget_cuts_at_a_line_and_says_where_to_continue() {
    let text: String = (1..=100).map(|i| format!("line {i:03}\n")).collect();
    let (_d, ws) = fixture(&text, false);
    let e = read(&ws, &req(|_| {}), 100).unwrap();
    assert_eq!((e.first_line, e.last_line), (1, 11)); // 9 bytes a line
    assert_eq!(e.cut_at(), Some(12));
    let rest = read(&ws, &req(|r| r.start_line = Some(12)), usize::MAX).unwrap();
    assert_eq!(format!("{}{}", e.text, rest.text), text);
    // A single line over the budget is cut inside the line, on a char boundary.
    let (_d, ws) = fixture(&format!("{}\nnext\n", "é".repeat(100)), false);
    let e = read(&ws, &req(|_| {}), 11).unwrap();
    assert_eq!(e.text, "é".repeat(5));
    assert!(
        e.notes
            .iter()
            .any(|n| matches!(n, Note::LineCut { line: 1, .. }))
    );
    assert_eq!(e.cut_at(), Some(2));
}

#[test]
fn odd_files() {
    // Empty file.
    let (_d, ws) = fixture("", false);
    let e = read(&ws, &req(|_| {}), usize::MAX).unwrap();
    assert_eq!((e.line_count(), e.total_lines, e.text.as_str()), (0, 0, ""));
    // No trailing newline; CRLF with a blank-line boundary.
    let (_d, ws) = fixture("a\r\nb\r\n\r\nc", true);
    let e = read(
        &ws,
        &req(|r| {
            r.start_line = Some(1);
            r.read_to_next_pattern = Some("^$".into());
        }),
        usize::MAX,
    )
    .unwrap();
    assert_eq!((e.first_line, e.last_line), (1, 2));
    assert_eq!(e.text, "a\r\nb\r\n");
    let e = read(&ws, &req(|r| r.tail = Some(1)), usize::MAX).unwrap();
    assert_eq!((e.first_line, e.total_lines, e.text.as_str()), (4, 4, "c"));
    // BOM is not part of the text; UTF-16 is transcoded.
    let (_d, ws) = fixture("\u{feff}# T\nx\n", false);
    assert_eq!(
        read(&ws, &req(|_| {}), usize::MAX).unwrap().text,
        "# T\nx\n"
    );
    let dir = tempfile::tempdir().unwrap();
    let mut utf16 = vec![0xFF, 0xFE];
    for u in "héllo\nwörld\n".encode_utf16() {
        utf16.extend_from_slice(&u.to_le_bytes());
    }
    std::fs::write(dir.path().join("f.md"), utf16).unwrap();
    let ws = Workspace::new(Roots::new([dir.path()]).unwrap());
    let e = read(&ws, &req(|r| r.start_line = Some(2)), usize::MAX).unwrap();
    assert_eq!(e.text, "wörld\n");
    // Invalid UTF-8 is decoded lossily, not dropped.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.md"), b"ok\n\xff\xfe bad\n").unwrap();
    let ws = Workspace::new(Roots::new([dir.path()]).unwrap());
    let e = read(&ws, &req(|r| r.start_line = Some(2)), usize::MAX).unwrap();
    assert_eq!(e.text, "\u{fffd}\u{fffd} bad\n");
}

#[test]
fn binary_and_large_structured_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("b.bin"), b"abc\0def").unwrap();
    std::fs::write(dir.path().join("big.json"), "[1]\n".repeat(100_000)).unwrap();
    let ws = Workspace::new(Roots::new([dir.path()]).unwrap());
    assert!(matches!(
        read(&ws, &ReadRequest::new("b.bin"), usize::MAX),
        Err(ReadError::File(Error::Binary { .. }))
    ));
    let e = read(&ws, &ReadRequest::new("big.json"), usize::MAX).unwrap_err();
    assert!(e.to_string().contains("Large structured data file"));
    let mut r = ReadRequest::new("big.json");
    r.head = Some(2);
    assert_eq!(read(&ws, &r, usize::MAX).unwrap().text, "[1]\n[1]\n");
    let mut r = ReadRequest::new("big.json");
    r.large_file_passthrough = true;
    assert_eq!(read(&ws, &r, usize::MAX).unwrap().total_lines, 100_000);
}

#[test]
fn pages_follow_spec_002() {
    let text: String = (1..=100).map(|i| format!("{i}\n")).collect();
    let (_d, ws) = fixture(&text, false);
    let e = read_page(&ws, "f.md", 10, Some(5), usize::MAX).unwrap();
    assert_eq!(e.text, "10\n11\n12\n13\n14\n");
    assert_eq!((e.line_count(), e.total_lines), (5, 100));
    let e = read_page(&ws, "f.md", 101, Some(5), usize::MAX).unwrap();
    assert_eq!((e.line_count(), e.text.as_str()), (0, ""));
}

#[test]
fn a_bare_cr_does_not_start_a_line_for_read_to_next_pattern() {
    // Found by fuzzing: `^` matched after a bare `\r` (regex CRLF mode), so `^## ` stopped at
    // `a\r## b`. Lines end at `\n`; `\r\n` still ends a line for `$`.
    let text = "start\na\r## b\n\u{94}\r\nend\r\n\r\n## c\r\n";
    for mmap in [false, true] {
        let (_d, ws) = fixture(text, mmap);
        for (pattern, last) in [("^## ", 5), ("^$", 4), ("end$", 3), ("^b", 6)] {
            let r = req(|r| {
                r.start_line = Some(1);
                r.read_to_next_pattern = Some(pattern.into());
            });
            let got = read(&ws, &r, usize::MAX).unwrap();
            assert_eq!(got.last_line, last, "pattern {pattern} mmap {mmap}");
        }
    }
}
