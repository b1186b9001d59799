//! `markdown::Outline::build` on arbitrary bytes: never panics; sections lie within the
//! document and nest properly; their headings, titles and slugs equal those of a plain
//! pulldown-cmark parse of the whole text (the engine parses a reduced "skeleton" instead);
//! every slug resolves back to its section with `doc::find_section`; `doc::toc` of a section
//! is the section and its descendants; the slugger is deterministic and hands out unique
//! slugs.

#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::fuzz_target;
use mapgrep::LineIndex;
use mapgrep::markdown::{Outline, Resolution, Section, Slugger, Tier, doc, resolve, slug};
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A heading of the reference parse.
#[derive(Debug, PartialEq, Eq)]
struct Heading {
    level: u8,
    first_line: u64,
    last_line: u64,
    title: String,
    base_slug: String,
}

fn trim_end(line: &[u8]) -> &[u8] {
    let mut end = line.len();
    while end > 0 && matches!(line[end - 1], b' ' | b'\t' | b'\r') {
        end -= 1;
    }
    &line[..end]
}

/// `(start, end)` of each `\n`-separated line from `from`, terminator excluded.
fn lines(bytes: &[u8], from: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut pos = from;
    while pos < bytes.len() {
        let end = bytes[pos..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |i| pos + i);
        out.push((pos, end));
        pos = end + 1;
    }
    out
}

/// The documented front-matter rule (spec'd in the engine's skeleton module): after an
/// optional BOM, a first line `---` or `+++`, a non-blank second line that does not close it,
/// and a closing line (`---`/`...` or `+++`). Returns the text start and the number of
/// front-matter lines.
fn front_matter(bytes: &[u8]) -> (usize, usize) {
    let start = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
    let ls: Vec<&[u8]> = lines(bytes, start)
        .into_iter()
        .map(|(s, e)| trim_end(&bytes[s..e]))
        .collect();
    let delim: &[u8] = match ls.first() {
        Some(&l) if l == b"---" => b"---",
        Some(&l) if l == b"+++" => b"+++",
        _ => return (start, 0),
    };
    let closes = |l: &[u8]| l == delim || (delim == b"---" && l == b"...");
    match ls.get(1) {
        Some(&l) if !l.is_empty() && !closes(l) => {}
        _ => return (start, 0),
    }
    for (i, &l) in ls.iter().enumerate().skip(2) {
        if closes(l) {
            return (start, i + 1);
        }
    }
    (start, 0)
}

/// The headings of the whole document, parsed verbatim (front matter blanked, invalid UTF-8
/// as U+FFFD) with the engine's parser options.
fn reference(doc: &[u8]) -> Vec<Heading> {
    let (start, fm_lines) = front_matter(doc);
    let mut text = String::new();
    let mut pos = start;
    for (_, end) in lines(doc, start).into_iter().take(fm_lines) {
        text.push('\n');
        pos = end + 1;
    }
    if pos < doc.len() {
        // The engine's line rule: lines end at `\n` only, a bare `\r` (followed by neither
        // `\n` nor the end) is a blank inside its line.
        let rest = &doc[pos..];
        let mut body = rest.to_vec();
        for i in 0..body.len().saturating_sub(1) {
            if body[i] == b'\r' && body[i + 1] != b'\n' {
                body[i] = b' ';
            }
        }
        text.push_str(&String::from_utf8_lossy(&body));
    }
    let line_of = |offset: usize| -> u64 {
        let offset = offset.min(text.len());
        1 + text.as_bytes()[..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u64
    };
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_STRIKETHROUGH);
    options.insert(Options::ENABLE_TASKLISTS);
    let mut out = Vec::new();
    let mut current: Option<(u8, std::ops::Range<usize>)> = None;
    let mut buf = String::new();
    let mut in_image = 0u32;
    for (event, range) in Parser::new_ext(&text, options).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                current = Some((level as u8, range));
                buf.clear();
                in_image = 0;
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, range)) = current.take() {
                    let trimmed = buf.trim();
                    out.push(Heading {
                        level,
                        first_line: line_of(range.start),
                        last_line: line_of(range.end.max(range.start + 1) - 1),
                        title: trimmed.replace('\n', " "),
                        base_slug: slug(&buf),
                    });
                }
            }
            _ if current.is_none() => {}
            Event::Start(Tag::Image { .. }) => in_image += 1,
            Event::End(TagEnd::Image) => in_image = in_image.saturating_sub(1),
            Event::Text(t) | Event::Code(t) if in_image == 0 => buf.push_str(&t),
            Event::SoftBreak | Event::HardBreak if in_image == 0 => buf.push('\n'),
            _ => {}
        }
    }
    out
}

/// The section and its descendants, in document order.
fn subtree<'o>(outline: &'o Outline, s: &'o Section, out: &mut Vec<usize>) {
    out.push(s.id);
    for c in outline.children(s) {
        subtree(outline, c, out);
    }
}

fn check_slugger(titles: &[&str]) {
    let run = |sg: &mut Slugger| -> Vec<String> { titles.iter().map(|t| sg.slug(t)).collect() };
    let mut sg = Slugger::new();
    let first = run(&mut sg);
    let unique: HashSet<&String> = first.iter().collect();
    assert_eq!(
        unique.len(),
        first.len(),
        "slugger repeated a slug: {first:?}"
    );
    for (t, s) in titles.iter().zip(&first) {
        let base = slug(t);
        assert_eq!(base, slug(t), "slug is not deterministic for {t:?}");
        assert!(!base.contains(' ') && !base.bytes().any(|b| b.is_ascii_uppercase()));
        let suffix_ok = s == &base
            || s.strip_prefix(base.as_str())
                .and_then(|r| r.strip_prefix('-'))
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        assert!(
            suffix_ok,
            "slug {s:?} of {t:?} is not its base {base:?} with a suffix"
        );
    }
    sg.reset();
    assert_eq!(run(&mut sg), first, "slugger differs after reset");
    assert_eq!(run(&mut Slugger::new()), first, "a new slugger differs");
}

fuzz_target!(|data: &[u8]| {
    let outline = Outline::build(data);
    let index = LineIndex::build(data);
    let total = index.total_lines(data);
    assert_eq!(outline.total_lines(), total, "total_lines");
    assert_eq!(outline.doc_len(), data.len());
    let sections = outline.sections();
    assert_eq!(outline.len(), sections.len());

    // The same headings as a verbatim parse.
    let want = reference(data);
    let got: Vec<Heading> = sections
        .iter()
        .map(|s| Heading {
            level: s.level,
            first_line: s.line_start,
            last_line: s.heading_line_end,
            title: s.title.clone(),
            base_slug: String::new(),
        })
        .collect();
    let want_cmp: Vec<Heading> = want
        .iter()
        .map(|h| Heading {
            base_slug: String::new(),
            title: h.title.clone(),
            ..*h
        })
        .collect();
    assert_eq!(got, want_cmp, "outline differs from a verbatim parse");
    let mut slugger = Slugger::new();
    let want_slugs: Vec<String> = want
        .iter()
        .map(|h| slugger.unique(h.base_slug.clone()))
        .collect();
    let got_slugs: Vec<&str> = sections.iter().map(|s| s.slug.as_str()).collect();
    assert_eq!(got_slugs, want_slugs, "slugs differ from a verbatim parse");

    // Structure.
    // Lines end at `\n` only: no two headings share one (found by this target, fixed).
    assert!(
        sections
            .windows(2)
            .all(|w| w[0].heading_line_end < w[1].line_start),
        "two headings share a line"
    );
    let mut roots = Vec::new();
    for (i, s) in sections.iter().enumerate() {
        assert_eq!(s.id, i);
        assert!((1..=6).contains(&s.level), "level {}", s.level);
        assert!(
            1 <= s.line_start
                && s.line_start <= s.heading_line_end
                && s.heading_line_end <= s.line_end,
            "lines of {s:?}"
        );
        assert!(
            s.line_end <= total.max(1),
            "{s:?} past the end ({total} lines)"
        );
        assert!(
            s.bytes.start <= s.bytes.end && s.bytes.end <= data.len(),
            "bytes of {s:?}"
        );
        assert_eq!(s.size, s.bytes.len());
        assert_eq!(s.text(data), &data[s.bytes.clone()]);
        assert_eq!(
            index.line_of_offset(data, s.bytes.start),
            s.line_start,
            "start of {s:?}"
        );
        // The heading that closes the section (the next of the same or a higher level).
        let next = sections[i + 1..].iter().find(|n| n.level <= s.level);
        assert_eq!(
            index.line_range(data, s.line_start, s.line_end),
            s.bytes,
            "bytes of {s:?} are not its lines"
        );
        if i > 0 {
            assert!(sections[i - 1].line_start <= s.line_start, "document order");
        }
        // The section ends before the next heading of the same or a higher level.
        match next {
            Some(n) => {
                assert_eq!(s.bytes.end, n.bytes.start, "end of {s:?}");
                assert_eq!(s.line_end, (n.line_start - 1).max(s.heading_line_end));
            }
            None => {
                assert_eq!(s.bytes.end, data.len(), "end of the last {s:?}");
                assert_eq!(s.line_end, total.max(s.heading_line_end));
            }
        }
        match s.parent {
            None => {
                roots.push(s.id);
                assert_eq!(s.index_path, roots.len().to_string());
            }
            Some(p) => {
                assert!(p < i, "parent after child");
                let parent = &sections[p];
                let ordinal = parent
                    .children
                    .iter()
                    .position(|&c| c == i)
                    .expect("listed")
                    + 1;
                assert_eq!(s.index_path, format!("{}.{ordinal}", parent.index_path));
                // The parent is the nearest earlier heading of a lower level.
                let nearest = sections[..i]
                    .iter()
                    .rev()
                    .find(|x| x.level < s.level)
                    .map(|x| x.id);
                assert_eq!(Some(p), nearest);
            }
        }
        for c in outline.children(s) {
            assert_eq!(c.parent, Some(s.id));
            assert!(c.level > s.level);
            assert!(
                s.bytes.start <= c.bytes.start && c.bytes.end <= s.bytes.end,
                "child {c:?} outside {s:?}"
            );
            assert!(
                s.line_start <= c.line_start && c.line_end <= s.line_end,
                "child {c:?} outside the lines of {s:?}"
            );
        }
        assert!(s.children.windows(2).all(|w| w[0] < w[1]));
        // doc_toc under the section: it and its descendants.
        let mut want_toc = Vec::new();
        subtree(&outline, s, &mut want_toc);
        let toc: Vec<usize> = doc::toc(&outline, Some(s), None)
            .iter()
            .map(|x| x.id)
            .collect();
        assert_eq!(toc, want_toc, "toc under {s:?}");
    }
    let got_roots: Vec<usize> = outline.roots().map(|s| s.id).collect();
    assert_eq!(got_roots, roots);
    assert_eq!(doc::toc(&outline, None, None).len(), sections.len());

    // Every slug is unique and names its section.
    let mut seen = HashSet::new();
    for s in sections {
        assert!(seen.insert(s.slug.as_str()), "duplicate slug {:?}", s.slug);
        assert_eq!(
            outline.by_slug(&s.slug).map(|x| x.id),
            Some(s.id),
            "by_slug({:?})",
            s.slug
        );
        if s.slug.is_empty() {
            // An empty query is refused: such a heading is reached by index path, line or title.
            continue;
        }
        for q in [s.slug.clone(), format!("#{}", s.slug)] {
            match doc::find_section(&outline, &q) {
                Ok((found, Tier::Slug)) => assert_eq!(found.id, s.id, "slug {q:?}"),
                other => panic!("slug {q:?} of {s:?} resolved to {other:?}"),
            }
        }
        // `user-content-SLUG`: a section whose slug is literally that wins, else this one.
        let prefixed = format!("user-content-{}", s.slug);
        let want_id = outline.by_slug(&prefixed).map_or(s.id, |x| x.id);
        match resolve(&outline, &prefixed) {
            Resolution::Found(found, Tier::Slug) => assert_eq!(found.id, want_id),
            other => panic!("{prefixed:?} resolved to {other:?}"),
        }
    }

    // Other queries never panic; an exact-title hit has that title.
    for s in sections.iter().take(16) {
        for q in [s.title.as_str(), s.index_path.as_str()] {
            if let Resolution::Found(found, Tier::ExactTitle) = resolve(&outline, q) {
                assert_eq!(found.title, q.trim());
            }
        }
    }
    let text = String::from_utf8_lossy(data);
    let _ = resolve(&outline, &text.chars().take(64).collect::<String>());
    let _ = resolve(&outline, &(total / 2 + 1).to_string());

    // The slugger on arbitrary titles: the input's lines.
    let titles: Vec<&str> = text.lines().take(64).collect();
    check_slugger(&titles);
});
