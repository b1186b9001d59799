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
