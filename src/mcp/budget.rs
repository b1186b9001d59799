//! How much one answer may carry, per client (docs/README.md, "Answers that fit each
//! client"), and the fitting that holds every answer to it.
//!
//! The budget counts what the client receives: every text block (header, results, notes,
//! cursor) and the structured view's JSON, which Claude Code and Codex pass to the model in
//! place of the text. An answer over its budget is rendered again with less room for file
//! text, so its own cut note says where to go on.

use super::answer::Answer;

/// What one answer may carry: bytes (of the text, and of the structured view's JSON) and
/// lines (of the text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub bytes: usize,
    pub lines: usize,
}

/// The budget of a client that cuts nothing we know of: today's default.
pub const DEFAULT_BYTES: usize = crate::workspace::DEFAULT_MAX_OUTPUT_BYTES;

/// Claude Code's budget, declared to it as `_meta["anthropic/maxResultSizeChars"]` (it
/// files away larger results; without the declaration, those over 50,000 characters).
pub const CLAUDE_CODE_BYTES: usize = 100_000;

/// The most Claude Code accepts as a declared result size.
pub const MAX_DECLARED_CHARS: usize = 500_000;

/// The smallest budget a call may ask for.
pub const MIN_CALL_BYTES: usize = 1_000;

/// The clients whose limits are known: a lowercase part of `clientInfo.name`, and the
/// budget that survives the client's cut whole (bytes, lines; `None`: the declared size).
const CLIENTS: &[(&str, Option<(usize, usize)>)] = &[
    // Codex keeps 10 KiB / 256 lines of a tool's output, head and tail.
    ("codex", Some((9_000, 200))),
    // Copilot CLI cuts MCP results at 10 KiB.
    ("copilot", Some((9_000, 200))),
    // OpenCode cuts tool output at 50 KiB / 2,000 lines.
    ("opencode", Some((48_000, 1_800))),
    ("claude-code", None),
];

/// The longest client name kept, in characters: a longer `clientInfo.name` is cut before it
/// is logged or matched against [`CLIENTS`].
pub const MAX_CLIENT_NAME: usize = 100;

/// A client's `clientInfo.name` as the server keeps it: its first [`MAX_CLIENT_NAME`]
/// characters, and `…` when it was longer.
pub fn client_name(raw: &str) -> String {
    match raw.char_indices().nth(MAX_CLIENT_NAME) {
        Some((end, _)) => format!("{}…", &raw[..end]),
        None => raw.to_string(),
    }
}

/// The budgets a server gives its clients.
#[derive(Clone, Copy, Debug)]
pub struct Budgets {
    /// `--max-output-bytes` when given: every client's byte budget.
    fixed: Option<usize>,
}

impl Budgets {
    pub fn new(fixed: Option<usize>) -> Budgets {
        Budgets {
            fixed: fixed.map(|b| b.max(1)),
        }
    }

    /// The largest budget this server uses (a call may ask for up to this much).
    pub fn ceiling(&self) -> usize {
        self.fixed.unwrap_or(0).max(CLAUDE_CODE_BYTES)
    }

    /// The size declared to Claude Code on every tool whose answer can be long.
    pub fn declared(&self) -> usize {
        self.ceiling().min(MAX_DECLARED_CHARS)
    }

    /// The budget of a call from the client named `client` (only its first
    /// [`MAX_CLIENT_NAME`] characters count), which asked for `asked` bytes.
    pub fn of(&self, client: Option<&str>, asked: Option<u32>) -> Budget {
        let name = client_name(client.unwrap_or_default()).to_ascii_lowercase();
        let known = CLIENTS.iter().find(|(part, _)| name.contains(part));
        let (bytes, lines) = match known {
            Some((_, Some((bytes, lines)))) => (*bytes, *lines),
            Some((_, None)) => (self.declared(), usize::MAX),
            None => (DEFAULT_BYTES, usize::MAX),
        };
        let bytes = match asked {
            Some(n) => (n as usize).clamp(MIN_CALL_BYTES, self.ceiling()),
            None => self.fixed.unwrap_or(bytes),
        };
        Budget { bytes, lines }
    }
}

/// `answer` as it is if it fits `budget`, else cut to fit (for answers made once: a write's,
/// an error's).
pub fn hold(budget: Budget, answer: Answer) -> Answer {
    let (bytes, lines) = answer.size();
    if bytes <= budget.bytes && lines <= budget.lines {
        answer
    } else {
        answer.cut_to(budget.bytes, budget.lines)
    }
}

/// How many times an answer is rendered again with less room before it is cut as text.
const ROUNDS: usize = 8;

/// Renders an answer with `render(room)` (`room`: bytes of file text the engine may put in)
/// until the whole answer fits `budget`, with as much room as fits (found by bisection once
/// a first answer is over); as a last resort the text is cut at a line end and says so.
pub fn fit(budget: Budget, mut render: impl FnMut(usize) -> Answer) -> Answer {
    let fits = |a: &Answer| {
        let (bytes, lines) = a.size();
        bytes <= budget.bytes && lines <= budget.lines
    };
    let mut room = budget.bytes;
    let mut answer = render(room);
    if fits(&answer) {
        return answer;
    }
    // Shrink in proportion until an answer fits...
    let mut over = room;
    let mut fitting = None;
    for _ in 0..ROUNDS {
        let (bytes, lines) = answer.size();
        let scale = |have: usize, want: usize| {
            (room as u128 * want as u128 / have.max(1) as u128) as usize * 15 / 16
        };
        let by_lines = if lines > budget.lines {
            scale(lines, budget.lines)
        } else {
            usize::MAX
        };
        let smaller = scale(bytes, budget.bytes).min(by_lines);
        if smaller == 0 || smaller >= room {
            break;
        }
        over = room;
        room = smaller;
        answer = render(room);
        if fits(&answer) {
            fitting = Some(room);
            break;
        }
    }
    let Some(mut low) = fitting else {
        return hold(budget, answer);
    };
    // ...then take the most room that still fits, within a 64th of it: each round renders
    // the whole page again (a page of a thousand uses took 15 rounds to the byte).
    let mut high = over;
    while high - low > (high / 64).max(1) {
        let mid = low + (high - low) / 2;
        let a = render(mid);
        if fits(&a) {
            low = mid;
            answer = a;
        } else {
            high = mid;
        }
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_client_gets_its_budget() {
        let b = Budgets::new(None);
        let codex = b.of(Some("codex-mcp-client"), None);
        assert_eq!((codex.bytes, codex.lines), (9_000, 200));
        assert_eq!(b.of(Some("github-copilot-developer"), None).bytes, 9_000);
        assert_eq!(b.of(Some("opencode"), None).bytes, 48_000);
        let claude = b.of(Some("claude-code"), None);
        assert_eq!((claude.bytes, claude.lines), (100_000, usize::MAX));
        assert_eq!(b.of(Some("rmcp"), None).bytes, DEFAULT_BYTES);
        assert_eq!(b.of(None, None).bytes, DEFAULT_BYTES);
        // A call's own budget wins, within bounds; the client's line limit stays.
        assert_eq!(b.of(Some("codex-mcp-client"), Some(20_000)).bytes, 20_000);
        assert_eq!(b.of(Some("codex-mcp-client"), Some(20_000)).lines, 200);
        assert_eq!(b.of(None, Some(5)).bytes, MIN_CALL_BYTES);
        assert_eq!(b.of(None, Some(u32::MAX)).bytes, 100_000);
        // The server option sets every client's bytes and lifts the ceiling.
        let fixed = Budgets::new(Some(1_000_000));
        assert_eq!(fixed.of(Some("codex-mcp-client"), None).bytes, 1_000_000);
        assert_eq!(fixed.declared(), MAX_DECLARED_CHARS);
        assert_eq!(Budgets::new(Some(2_000)).declared(), CLAUDE_CODE_BYTES);
    }

    #[test]
    fn long_client_names_are_cut() {
        assert_eq!(client_name("codex-mcp-client"), "codex-mcp-client");
        let long = "é".repeat(5_000_000);
        let cut = client_name(&long);
        assert_eq!(cut.chars().count(), MAX_CLIENT_NAME + 1);
        assert!(cut.ends_with('…'));
        // Only the kept part picks the budget.
        let b = Budgets::new(None);
        let late = format!("{}codex", "x".repeat(MAX_CLIENT_NAME));
        assert_eq!(b.of(Some(&late), None).bytes, DEFAULT_BYTES);
    }

    #[test]
    fn fitting_renders_again_with_less_room() {
        let budget = Budget {
            bytes: 1_000,
            lines: 20,
        };
        let mut rooms = Vec::new();
        let a = fit(budget, |room| {
            rooms.push(room);
            // A header, then `room` bytes of two-byte lines.
            let mut text = String::from("header\n");
            text.push_str(&"x\n".repeat(room / 2));
            Answer::ok(text)
        });
        let (bytes, lines) = a.size();
        assert!(
            bytes <= 1_000 && lines <= 20,
            "{bytes} bytes, {lines} lines"
        );
        assert!(rooms.len() > 1, "{rooms:?}");
    }

    #[test]
    fn the_room_found_is_within_a_64th_of_the_most_that_fits_in_few_renders() {
        let budget = Budget {
            bytes: 80_000,
            lines: usize::MAX,
        };
        let mut rooms = Vec::new();
        // Text and structured copies: twice the room, as an answer with both is.
        let a = fit(budget, |room| {
            rooms.push(room);
            Answer::ok("y".repeat(room * 2 + 500))
        });
        let (bytes, _) = a.size();
        let most = (80_000 - 500) / 2;
        let room = *rooms
            .iter()
            .filter(|&&r| r * 2 + 500 <= 80_000)
            .max()
            .unwrap();
        assert!(bytes <= 80_000 && room >= most - most / 64, "{rooms:?}");
        assert!(rooms.len() <= 9, "{rooms:?}");
    }

    #[test]
    fn an_answer_that_will_not_shrink_is_cut_and_says_so() {
        let budget = Budget {
            bytes: 300,
            lines: usize::MAX,
        };
        let a = fit(budget, |_| Answer::ok("a line of text\n".repeat(100)));
        let (bytes, _) = a.size();
        assert!(bytes <= 300, "{bytes}");
        assert!(a.text().contains("response size limit"), "{}", a.text());
    }
}
