//! `define::name::parse` on arbitrary text: it never panics, answers at once whatever the
//! length, refuses what it must (control characters, more than `MAX_NAME_BYTES`, nothing but
//! punctuation), and what it accepts is consistent: a non-empty own name, non-empty
//! qualifier components without separators or whitespace in them (backticks and C++'s
//! `operator new` aside), and a name that fits the full name made of its own components.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mapgrep::define::name::{Fit, MAX_NAME_BYTES, parse};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let started = std::time::Instant::now();
    let parsed = parse(text);
    assert!(
        started.elapsed() < std::time::Duration::from_millis(200),
        "a name of {} bytes took {:?}",
        text.len(),
        started.elapsed()
    );
    let Ok(name) = parsed else {
        return;
    };
    assert!(
        text.len() <= MAX_NAME_BYTES,
        "{} bytes accepted",
        text.len()
    );
    assert!(
        !text.chars().any(char::is_control),
        "a control character accepted"
    );
    assert!(!name.last.is_empty(), "an empty own name from {text:?}");
    for part in &name.qualifier {
        assert!(!part.is_empty(), "an empty component from {text:?}");
        assert!(
            !part.contains("::") && !part.contains('#') && !part.contains('\\'),
            "a separator inside {part:?} from {text:?}"
        );
    }
    // A site whose full name is the name's own components answers it exactly.
    let mut full: Vec<&str> = name.qualifier.iter().map(String::as_str).collect();
    full.push(&name.last);
    if !name.last.contains('.') && name.qualifier.iter().all(|p| !p.contains('.')) {
        assert_eq!(name.fit(&full), Some(Fit::Exact), "{text:?}");
    }
});
