//! GitHub-compatible heading slugs: github-slugger's algorithm, de-duplication included.
//!
//! A slug is the heading's text lowercased, with every character GitHub drops removed (see
//! [`slug_table`](super::slug_table)) and each space turned into `-`; nothing is trimmed or
//! collapsed, so `"a - b"` gives `"a---b"`. Within one document a repeated slug gets the
//! suffix `-1`, `-2`…: the [`Slugger`] counts, per base slug, how many suffixes it has handed
//! out and skips any candidate already taken, so `foo`, `foo`, `foo 1` give `foo`, `foo-1`,
//! `foo-1-1`, and `foo-1`, `foo`, `foo` give `foo-1`, `foo`, `foo-2`.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use caseless::Caseless;
use unicode_normalization::UnicodeNormalization;

use super::slug_table::KEPT;

/// The slug of one heading text, without de-duplication.
pub fn slug(text: &str) -> String {
    if text.is_ascii() {
        return text
            .bytes()
            .filter_map(|b| match b {
                b' ' => Some('-'),
                b'A'..=b'Z' => Some(char::from(b.to_ascii_lowercase())),
                b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-' => Some(char::from(b)),
                _ => None,
            })
            .collect();
    }
    let lower = text.to_lowercase();
    let mut out = String::with_capacity(lower.len());
    for c in lower.chars() {
        if c == ' ' {
            out.push('-');
        } else if is_kept(c) {
            out.push(c);
        }
    }
    out
}

/// Whether a slug keeps `c` (space and `-` included).
fn is_kept(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' ');
    }
    let cp = u32::from(c);
    KEPT.binary_search_by(|&(first, last)| {
        if last < cp {
            Ordering::Less
        } else if first > cp {
            Ordering::Greater
        } else {
            Ordering::Equal
        }
    })
    .is_ok()
}

/// Hands out the unique slugs of one document's headings, in document order.
#[derive(Clone, Debug, Default)]
pub struct Slugger {
    /// Every slug handed out, with (for base slugs) how many suffixes were tried.
    occurrences: HashMap<String, u32, BuildHasherDefault<Fnv>>,
}

/// FNV-1a: slugs are short and not adversarial, and SipHash showed in profiles of documents
/// with a hundred thousand headings.
#[derive(Default)]
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

impl Slugger {
    pub fn new() -> Slugger {
        Slugger::default()
    }

    /// A slugger with room for `headings` slugs.
    pub fn with_capacity(headings: usize) -> Slugger {
        Slugger {
            occurrences: HashMap::with_capacity_and_hasher(headings, Default::default()),
        }
    }

    /// The slug of `text`, unique among the slugs this slugger has handed out.
    pub fn slug(&mut self, text: &str) -> String {
        self.unique(slug(text))
    }

    /// `base` (a [`slug`]) made unique among the slugs this slugger has handed out.
    pub fn unique(&mut self, base: String) -> String {
        let mut candidate = base.clone();
        while self.occurrences.contains_key(&candidate) {
            let count = self
                .occurrences
                .get_mut(&base)
                .expect("the base slug was handed out before any of its suffixes");
            *count += 1;
            candidate = format!("{base}-{count}");
        }
        self.occurrences.insert(candidate.clone(), 0);
        candidate
    }

    /// Forgets every slug handed out.
    pub fn reset(&mut self) {
        self.occurrences.clear();
    }
}

/// Folds text for fuzzy title matching: NFKC, full Unicode case folding (`ß` → `ss`), NFKC
/// again, then only letters and digits.
pub fn fold(text: &str) -> String {
    if text.is_ascii() {
        return text
            .bytes()
            .filter(u8::is_ascii_alphanumeric)
            .map(|b| char::from(b.to_ascii_lowercase()))
            .collect();
    }
    text.nfkc()
        .default_case_fold()
        .nfkc()
        .filter(|c| c.is_alphanumeric())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding() {
        assert_eq!(fold("Phase B"), "phaseb");
        assert_eq!(fold("PhaseB"), "phaseb");
        assert_eq!(fold("6.2 Phase B 验证计划"), "62phaseb验证计划");
        assert_eq!(fold("Straße"), "strasse");
        assert_eq!(fold("STRASSE"), "strasse");
        assert_eq!(fold("ＰＨＡＳＥ　Ｂ"), "phaseb");
        assert_eq!(fold("Ⅻ ﬁle"), "xiifile");
        assert_eq!(fold("ΣΊΣΥΦΟΣ"), fold("σίσυφος"));
        assert_eq!(fold("!!!"), "");
    }

    #[derive(serde::Deserialize)]
    struct Case {
        name: String,
        input: String,
        expected: String,
    }

    /// github-slugger's published fixture (`test/fixtures.json`): one sequence of headings
    /// fed to a single slugger, so later cases see the slugs of earlier ones.
    #[test]
    fn github_slugger_fixtures() {
        let cases: Vec<Case> =
            serde_json::from_str(include_str!("../../tests/data/github_slugger_cases.json"))
                .expect("the fixture is valid JSON");
        assert_eq!(cases.len(), 78);
        let mut slugger = Slugger::new();
        for case in &cases {
            assert_eq!(
                slugger.slug(&case.input),
                case.expected,
                "case {:?}",
                case.name
            );
        }
    }

    #[test]
    fn duplicates_get_numbered_suffixes() {
        let mut s = Slugger::new();
        let got: Vec<String> = ["foo", "foo", "foo-1", "foo", "foo 1"]
            .iter()
            .map(|t| s.slug(t))
            .collect();
        assert_eq!(got, ["foo", "foo-1", "foo-1-1", "foo-2", "foo-1-2"]);

        s.reset();
        let got: Vec<String> = ["foo-1", "foo", "foo"].iter().map(|t| s.slug(t)).collect();
        assert_eq!(got, ["foo-1", "foo", "foo-2"]);
    }

    #[test]
    fn basic_shapes() {
        assert_eq!(slug("Phase B"), "phase-b");
        assert_eq!(slug("6.2 Phase B 验证计划"), "62-phase-b-验证计划");
        assert_eq!(slug("  Initial spaces"), "--initial-spaces");
        assert_eq!(slug("`code` and *emphasis*"), "code-and-emphasis");
        assert_eq!(slug("Привет мир"), "привет-мир");
        assert_eq!(slug("日本語の見出し"), "日本語の見出し");
        assert_eq!(slug("ＦＵＬＬ　ＷＩＤＴＨ"), "ｆｕｌｌｗｉｄｔｈ");
        assert_eq!(slug("I ♥ emoji 🎉!"), "i--emoji-");
        assert_eq!(slug(""), "");
    }
}
