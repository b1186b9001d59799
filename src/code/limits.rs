//! What one parse may cost, and how a caller stops it: the per-file limits beyond which a file
//! is read as text (its size, how many symbols it defines, how deep its symbols nest), the
//! [`Stop`] a parse checks while it runs (a caller's cancellation or deadline, through
//! tree-sitter's progress callback and between query matches), and the gate that bounds the
//! bytes parsed at once in the whole process (a tree costs up to ~40 bytes per byte of a
//! dense file, so the gate, not the number of callers, bounds what parsing holds).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// Files larger than this are not parsed (read as text): a tree of a dense 8 MiB file
/// takes about 300 MiB.
pub const MAX_PARSE_BYTES: usize = 8 << 20;

/// A file that defines more symbols than this is read as text (a generated table, or a
/// file made to be expensive: each symbol costs a few microseconds and a few hundred
/// bytes).
pub const MAX_SYMBOLS: usize = 100_000;

/// A file whose symbols nest deeper than this (a class in a class in…) is read as text:
/// real code stays within a dozen levels, and every level costs each symbol below it.
pub const MAX_NESTING: usize = 100;

/// Longest qualified name kept, in bytes: a longer one keeps its last components, after
/// `…` (a name's cost stays bounded however deep it sits).
pub const MAX_QUALIFIED: usize = 400;

/// Why a file of a parsed language has no structure: it is read as text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unparsed {
    /// This build has no grammar for it.
    NoGrammar,
    /// Over [`MAX_PARSE_BYTES`].
    TooLarge,
    /// More than [`MAX_SYMBOLS`] symbols.
    TooManySymbols,
    /// Symbols nested deeper than [`MAX_NESTING`].
    TooDeep,
    /// The caller stopped the parse (cancelled, out of time or budget): nothing is known.
    Stopped,
}

impl Unparsed {
    /// Why, in a few words that follow "read as text:".
    pub fn why(self) -> String {
        match self {
            Unparsed::NoGrammar => "its language is not built in".into(),
            Unparsed::TooLarge => format!("over {} MiB", MAX_PARSE_BYTES >> 20),
            Unparsed::TooManySymbols => {
                format!("more than {MAX_SYMBOLS} definitions")
            }
            Unparsed::TooDeep => format!("definitions nested over {MAX_NESTING} levels deep"),
            Unparsed::Stopped => "its parse was stopped".into(),
        }
    }

    /// Whether the outcome depends only on the file's bytes (and may be remembered with
    /// them).
    pub fn is_final(self) -> bool {
        self != Unparsed::Stopped
    }
}

/// When a parse must stop: a cancellation flag and a deadline, either optional.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stop<'a> {
    cancel: Option<&'a AtomicBool>,
    deadline: Option<Instant>,
    /// A lower limit of definitions than [`MAX_SYMBOLS`] (tests).
    symbols: Option<usize>,
}

impl<'a> Stop<'a> {
    /// A parse that runs to its end.
    pub fn never() -> Stop<'static> {
        Stop::default()
    }

    pub fn new(cancel: Option<&'a AtomicBool>, deadline: Option<Instant>) -> Stop<'a> {
        Stop {
            cancel,
            deadline,
            symbols: None,
        }
    }

    /// This stop, with a file of more than `n` definitions read as text (tests: the real
    /// limit takes a large file to reach).
    #[cfg(test)]
    pub(crate) fn max_symbols(self, n: usize) -> Stop<'a> {
        Stop {
            symbols: Some(n),
            ..self
        }
    }

    /// The most definitions a file may have.
    pub(crate) fn symbol_limit(&self) -> usize {
        self.symbols.unwrap_or(MAX_SYMBOLS).min(MAX_SYMBOLS)
    }

    /// This stop, or an earlier deadline.
    pub fn until(self, deadline: Instant) -> Stop<'a> {
        Stop {
            deadline: Some(self.deadline.map_or(deadline, |d| d.min(deadline))),
            ..self
        }
    }

    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Whether the work must stop now.
    pub fn stopped(&self) -> bool {
        self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// Bytes under parse at once in the process (one file alone always fits).
const GATE_BYTES: usize = 4 << 20;

/// The process's bytes under parse, bounded by [`GATE_BYTES`]: a parse waits until its
/// file fits beside the others (one file alone always fits).
static GATE: Gate = Gate {
    used: Mutex::new(0),
    freed: Condvar::new(),
};

struct Gate {
    used: Mutex<usize>,
    freed: Condvar,
}

/// Room in the gate, given back when dropped.
pub(crate) struct Permit(usize);

impl Drop for Permit {
    fn drop(&mut self) {
        if self.0 > 0 {
            *GATE.used.lock().expect("gate") -= self.0;
            GATE.freed.notify_all();
        }
    }
}

/// Files below this size pass the gate without counting: their trees are small, and
/// waiting would cost more than it saves.
const GATE_FREE: usize = 64 << 10;

/// Waits for room to parse `bytes` (checking `stop` while it waits); `None` if stopped.
pub(crate) fn enter(bytes: usize, stop: &Stop) -> Option<Permit> {
    if bytes < GATE_FREE {
        return Some(Permit(0));
    }
    let want = bytes.min(GATE_BYTES);
    let mut used = GATE.used.lock().expect("gate");
    loop {
        if *used == 0 || *used + want <= GATE_BYTES {
            *used += want;
            return Some(Permit(want));
        }
        if stop.stopped() {
            return None;
        }
        used = GATE
            .freed
            .wait_timeout(used, Duration::from_millis(20))
            .expect("gate")
            .0;
    }
}

/// `Err(TooManySymbols)` for a structure (of joined halves) over `stop`'s limit.
pub(crate) fn check_symbols(s: &super::FileStructure, stop: &Stop) -> Result<(), Unparsed> {
    if s.symbols.len() > stop.symbol_limit() {
        return Err(Unparsed::TooManySymbols);
    }
    Ok(())
}

/// `name` cut to [`MAX_QUALIFIED`] bytes: its last components, after `…`.
pub(crate) fn bounded(name: String) -> String {
    if name.len() <= MAX_QUALIFIED {
        return name;
    }
    let mut from = name.len() - (MAX_QUALIFIED - "….".len());
    while !name.is_char_boundary(from) {
        from += 1;
    }
    // Start at a component where one begins in the kept part.
    if let Some(dot) = name[from..].find('.')
        && from + dot + 1 < name.len()
    {
        from += dot + 1;
    }
    format!("….{}", &name[from..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_qualified_name_keeps_its_last_components() {
        let long: String = (0..200).map(|i| format!("m{i}.")).collect::<String>() + "inner";
        let cut = bounded(long.clone());
        assert!(cut.len() <= MAX_QUALIFIED, "{}", cut.len());
        assert!(cut.starts_with("….m"), "{cut}");
        assert!(cut.ends_with(".m199.inner"), "{cut}");
        assert_eq!(bounded("a.b".into()), "a.b");
    }

    #[test]
    fn the_gate_lets_one_large_file_through_and_bounds_the_rest() {
        let stop = Stop::never();
        let a = enter(MAX_PARSE_BYTES, &stop).expect("one file alone fits");
        let small = enter(1000, &stop).expect("a small file passes");
        let flag = AtomicBool::new(true);
        let stopped = Stop::new(Some(&flag), None);
        assert!(enter(1 << 20, &stopped).is_none(), "no room, and stopped");
        drop(a);
        drop(small);
        assert!(enter(1 << 20, &stop).is_some(), "room again");
    }
}
