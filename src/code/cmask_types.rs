//! The state of the C/C++ masking pass (`cmask.rs`), shared by its files: the pass itself
//! (`Masker`), the braces it keeps, a declaration head's items (`cmask_head.rs`) and the
//! open conditionals (`cmask_cond.rs`).

/// What a `{` opened, as far as the pass cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Brace {
    /// A namespace, class, `extern "C"` block: declarations follow.
    Scope,
    /// A function's body.
    Body,
    Other,
}

pub(super) struct Masker<'a> {
    pub(super) src: &'a [u8],
    /// The masked copy, made at the first blanked byte.
    pub(super) out: Option<Vec<u8>>,
    pub(super) cpp: bool,
    pub(super) at: usize,
    pub(super) line_start: bool,
    /// The braces open, innermost last.
    pub(super) braces: Vec<Brace>,
    /// How many of them are functions' bodies.
    pub(super) bodies: usize,
    /// `;`, `{` and `}` read so far.
    pub(super) boundaries: u64,
    /// The tokens of the declaration being read since the last `;`, `{` or `}`.
    pub(super) head: Vec<Item>,
    /// Past the head's end (an `=`, a `,`…): nothing is read up to the next `;`, `{`, `}`.
    pub(super) skipping: bool,
    /// A `::` or `~` was read: the next word joins the last item.
    pub(super) scope_pending: bool,
    /// The items of the head that were blanked (bit `i` for item `i`).
    pub(super) blanked: u64,
    pub(super) conds: Vec<Cond>,
    /// When the pass goes past the insides of bodies and initializers: those it went past.
    pub(super) skips: Option<Vec<(usize, usize)>>,
    /// A body's braces ran to the end of the text: no more bodies are gone past.
    pub(super) skips_ended: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// A word, a qualified name (`a::b`), with its template arguments (`vector<int>`).
    Name,
    /// A name and its `(…)`.
    Call,
    /// `*`, `&`, `&&`
    Ptr,
    /// A string literal (`extern "C"`).
    Str,
    /// A `[[…]]` attribute.
    Attr,
}

/// One token of a head.
#[derive(Clone, Copy, Debug)]
pub(super) struct Item {
    pub kind: Kind,
    pub start: usize,
    /// Its end, a call's arguments included.
    pub end: usize,
    /// The end of its name, template arguments included.
    pub name_end: usize,
    /// Its last word (`bar` of `foo::bar<int>`), which tells its class.
    pub word: (usize, usize),
}

impl Item {
    pub(super) fn new(kind: Kind, start: usize, end: usize, name_end: usize) -> Item {
        Item {
            kind,
            start,
            end,
            name_end,
            word: (start, name_end),
        }
    }
}

/// Where the pass stands, compared at each end of a conditional's branches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct State {
    pub(super) braces: usize,
    pub(super) head: usize,
    pub(super) skipping: bool,
    /// `;`, `{` and `}` read so far.
    pub(super) boundaries: u64,
}

impl State {
    /// Whether a branch from `self` to `end` leaves things as they were: the same braces
    /// open, and the same declaration under way (or, when the branch ended the one under
    /// way, none: `_GLIBCXX_BEGIN_NAMESPACE_VERSION` before `#if` is ended either way).
    pub(super) fn balanced(self, end: State) -> bool {
        self.braces == end.braces
            && if self.boundaries == end.boundaries {
                self.head == end.head && self.skipping == end.skipping
            } else {
                end.head == 0 && !end.skipping
            }
    }
}

/// An open `#if`.
pub(super) struct Cond {
    /// The `#if` line, while it still stands.
    pub(super) open: Option<(usize, usize)>,
    pub(super) state: State,
    /// The head under way at the `#if` (each branch starts with it).
    pub(super) head: Vec<Item>,
    /// Where the first `#elif`/`#else` line starts.
    pub(super) alt: Option<usize>,
}
