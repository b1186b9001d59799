//! The C/C++ masking pass (`cmask.rs`) on small heads: what is blanked, what is kept.

use super::super::cmask::mask;
use super::super::Lang;

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
    assert_eq!(text.lines().count(), src.lines().count(), "every line keeps its place");
    text.lines().map(str::trim_end).collect::<Vec<_>>().join("\n")
}

#[test]
fn constructor_behind_a_macro() {
    assert_eq!(
        cpp("_GLIBCXX23_CONSTEXPR\n__impl(pointer __p) : _M_t() { }\n"),
        "[[x]]\n__impl(pointer __p) : _M_t() { }"
    );
}
