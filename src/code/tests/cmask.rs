//! The C/C++ masking pass (`cmask.rs`) on small heads: what is blanked, what is kept.

use super::super::Lang;
use super::super::cmask::mask;

fn c(src: &str) -> String {
    masked(Lang::C, src)
}

fn cpp(src: &str) -> String {
    masked(Lang::Cpp, src)
}

fn masked(lang: Lang, src: &str) -> String {
    let out = mask(lang, src.as_bytes());
    assert_eq!(out.len(), src.len(), "every byte keeps its place");
    let text = String::from_utf8(out.into_owned()).unwrap();
    assert_eq!(
        text.lines().count(),
        src.lines().count(),
        "every line keeps its place"
    );
    text.lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn constructor_behind_a_macro() {
    assert_eq!(
        cpp("_GLIBCXX23_CONSTEXPR\n__impl(pointer __p) : _M_t() { }\n"),
        "[[x]]\n__impl(pointer __p) : _M_t() { }"
    );
}

#[test]
fn attribute_macros_of_no_list_blanked_before_a_definition() {
    let out =
        c("static inline RING_HOT int\nring_len(const struct ring *r)\n{\n\treturn r->len;\n}\n");
    assert!(!out.contains("RING_HOT"), "{out}");
    assert!(out.contains("static inline"), "{out}");
    assert!(out.contains("int\nring_len(const struct ring *r)"), "{out}");
    // A macro call that stands for a whole declaration is not an attribute.
    let kept = c("DEFINE_RING(rx_ring);\nint ring_len(const struct ring *r);\n");
    assert!(kept.contains("int ring_len"), "{kept}");
}

/// How much of a tree's C the skim reads without its bodies, and how much is parsed whole
/// (`MAPGREP_C_TREE`).
#[test]
#[ignore = "measures: MAPGREP_C_TREE=dir cargo test --release --lib skim_coverage -- --ignored --nocapture"]
fn skim_coverage() {
    let tree = std::env::var_os("MAPGREP_C_TREE").expect("MAPGREP_C_TREE");
    let (mut skimmed, mut whole, mut directives) = ((0, 0), (0, 0), (0, 0));
    let mut parsed_bytes = 0usize;
    let mut fallback = 0;
    let mut largest: Vec<(usize, String)> = Vec::new();
    for e in ignore::WalkBuilder::new(tree).build().flatten() {
        let p = e.path();
        if !p.extension().is_some_and(|x| x == "c" || x == "h") {
            continue;
        }
        let Ok(b) = std::fs::read(p) else { continue };
        if crate::code::skim::directive_only(&b) {
            directives = (directives.0 + 1, directives.1 + b.len());
            continue;
        }
        let (masked, skipped) = crate::code::cmask::mask_outside_bodies(Lang::C, &b);
        let ranges = crate::code::skim::outside_bodies_and(&masked, &skipped, true).or_else(|| {
            if skipped.is_empty() {
                return None;
            }
            fallback += 1;
            crate::code::skim::outside_bodies(&mask(Lang::C, &b), true)
        });
        match ranges {
            Some(ranges) => {
                skimmed = (skimmed.0 + 1, skimmed.1 + b.len());
                parsed_bytes += ranges
                    .iter()
                    .map(|r| r.end_byte - r.start_byte)
                    .sum::<usize>();
            }
            None => {
                whole = (whole.0 + 1, whole.1 + b.len());
                parsed_bytes += b.len();
                if p.extension().is_some_and(|x| x == "c") {
                    largest.push((b.len(), p.display().to_string()));
                }
            }
        }
    }
    largest.sort_unstable_by(|a, b| b.cmp(a));
    let c_whole: usize = largest.iter().map(|l| l.0).sum();
    println!(
        "masked again {fallback}; .c files parsed whole {} ({} MB)",
        largest.len(),
        c_whole >> 20
    );
    println!(
        "skimmed {} files {} MB, whole {} files {} MB, directives only {} files {} MB; bytes parsed {} MB",
        skimmed.0,
        skimmed.1 >> 20,
        whole.0,
        whole.1 >> 20,
        directives.0,
        directives.1 >> 20,
        parsed_bytes >> 20
    );
    for (n, p) in largest.iter().take(15) {
        println!("  whole: {n} {p}");
    }
}

/// The pass for a skimmed parse goes past the insides of function bodies and initializers
/// (not masked: the parse leaves them out), but not past a body in a branch after the first
/// of a conditional (the skim reads none of it, so it is parsed with its body, masked).
#[test]
fn the_pass_goes_past_bodies_the_skim_leaves_out() {
    let src = "static int __init f(void) {\n\tfor_each_cpu(c) x++;\n}\nstatic int t[] = { 1, 2 };\n#ifdef A\nint g(void) { return 0; }\n#else\nint g(void) { return __must_check_x(1); }\n#endif\n";
    let (text, skipped) = crate::code::cmask::mask_outside_bodies(Lang::C, src.as_bytes());
    let inside: Vec<&str> = skipped.iter().map(|&(a, b)| src[a..b].trim()).collect();
    assert_eq!(inside, ["for_each_cpu(c) x++;", "1, 2", "return 0;"]);
    let text = std::str::from_utf8(&text).unwrap();
    // Masked where the parse reads: the attribute, and not the loop macro it went past.
    assert!(
        text.starts_with("static int        f(void) {\n\tfor_each_cpu(c)"),
        "{text}"
    );
    // Outside the bodies, the text is what the whole pass makes of it.
    let whole = mask(Lang::C, src.as_bytes());
    let outside = |t: &[u8]| -> Vec<u8> {
        let mut t = t.to_vec();
        for &(a, b) in &skipped {
            t[a..b].fill(b' ');
        }
        t
    };
    assert_eq!(outside(text.as_bytes()), outside(&whole));
}

/// Bodies that never close do not make the pass read to the end of the text once per body
/// (20,000 of them: one look to the end, then none).
#[test]
fn unclosed_bodies_cost_one_look_to_the_end() {
    let src: String = (0..20_000)
        .map(|i| format!("static int f{i}(void) {{\n\tint x = {{ {i};\n"))
        .collect();
    let t = std::time::Instant::now();
    let (_, skipped) = crate::code::cmask::mask_outside_bodies(Lang::C, src.as_bytes());
    assert!(skipped.is_empty());
    assert!(
        t.elapsed() < std::time::Duration::from_secs(2),
        "{:?}",
        t.elapsed()
    );
}
