//! The words of C and C++ the masking pass (`cmask.rs`, `cmask_head.rs`) tells apart: class
//! keys, the keywords that open a statement, and the attribute macros blanked wherever they
//! stand.

/// `struct`, `union`, `enum`, `class`.
pub(super) fn is_class_key(word: &[u8]) -> bool {
    matches!(word, b"struct" | b"union" | b"enum" | b"class")
}

/// Words that open a statement, not a declaration.
pub(super) fn is_statement(word: &[u8], cpp: bool) -> bool {
    matches!(
        word,
        b"return"
            | b"if"
            | b"else"
            | b"while"
            | b"for"
            | b"do"
            | b"switch"
            | b"case"
            | b"default"
            | b"goto"
            | b"break"
            | b"continue"
            | b"sizeof"
            | b"_Alignof"
            | b"alignof"
            | b"__alignof__"
            | b"asm"
            | b"__asm__"
            | b"__asm"
    ) || (cpp
        && matches!(
            word,
            b"throw" | b"new" | b"delete" | b"co_return" | b"co_await" | b"co_yield" | b"catch"
        ))
}

/// `Some(takes_arguments)` for the attribute macros blanked wherever they stand (the Linux
/// kernel's, from include/linux/compiler*.h and friends).
pub(super) fn known_attribute(word: &[u8]) -> Option<bool> {
    // All but a few start with `__` (most words are none of them: told at the first bytes).
    if word.len() < 5 || !(word.starts_with(b"__") || matches!(word[0], b'a' | b'n')) {
        return None;
    }
    if ATTRIBUTES_WITH_ARGUMENTS.contains(&word) {
        Some(true)
    } else if BARE_ATTRIBUTES.contains(&word) {
        Some(false)
    } else {
        None
    }
}

const ATTRIBUTES_WITH_ARGUMENTS: &[&[u8]] = &[
    b"__alloc_size",
    b"__realloc_size",
    b"__printf",
    b"__scanf",
    b"__section",
    b"__aligned",
    b"__assume_aligned",
    b"__acquires",
    b"__releases",
    b"__must_hold",
    b"__cond_acquires",
    b"__diagnose_as",
    b"__counted_by",
];

const BARE_ATTRIBUTES: &[&[u8]] = &[
    b"__init",
    b"__exit",
    b"__initdata",
    b"__initconst",
    b"__exitdata",
    b"__ref",
    b"__refdata",
    b"__meminit",
    b"__init_or_module",
    b"__must_check",
    b"__weak",
    b"__always_inline",
    b"noinline",
    b"__noinline",
    b"__visible",
    b"asmlinkage",
    b"notrace",
    b"noinstr",
    b"__cold",
    b"__hot",
    b"__pure",
    b"__malloc",
    b"__maybe_unused",
    b"__always_unused",
    b"__used",
    b"__noreturn",
    b"__iomem",
    b"__user",
    b"__force",
    b"__rcu",
    b"__percpu",
    b"__kernel",
    b"__bitwise",
    b"__attribute_const__",
    b"__latent_entropy",
    b"__ro_after_init",
    b"__read_mostly",
    b"__cacheline_aligned",
    b"__cacheline_aligned_in_smp",
    b"__randomize_layout",
    b"__packed",
    b"__flatten",
    b"__naked",
    b"__nocfi",
    b"__cpuidle",
    b"__sched",
    b"__lockfunc",
    b"__irq_entry",
    b"__kprobes",
    b"nokprobe_inline",
    b"__deprecated",
    b"__nonstring",
    b"__no_kcsan",
    b"__no_sanitize_address",
    b"__assume_kmalloc_alignment",
    b"__assume_slab_alignment",
    b"__assume_page_alignment",
];

#[cfg(test)]
mod tests {
    /// The first bytes `known_attribute` tells most words apart by hold every listed word.
    #[test]
    fn every_listed_attribute_is_known() {
        for w in super::ATTRIBUTES_WITH_ARGUMENTS {
            assert_eq!(
                super::known_attribute(w),
                Some(true),
                "{}",
                String::from_utf8_lossy(w)
            );
        }
        for w in super::BARE_ATTRIBUTES {
            assert_eq!(
                super::known_attribute(w),
                Some(false),
                "{}",
                String::from_utf8_lossy(w)
            );
        }
    }
}
