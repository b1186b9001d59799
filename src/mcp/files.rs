//! The `find_files` tool (docs/find_files.md): files by name or glob, as `rg --files -g`.

use std::fmt::Write as _;
use std::sync::Arc;

use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::answer::{Answer, NEXT_CURSOR, TRUNCATED, output_schema, plural};
use super::budget::{Budget, fit, hold};
use super::params::Parameters;
use super::{MapgrepServer, with_progress};
use crate::grep::{FileList, GrepError, GrepQuery, Progress};
use crate::quote;

const FIND_FILES_DESCRIPTION: &str = r###"Find files by name: the paths matching globs, as `rg --files -g`, sorted by path. "*.rs" or "Makefile" (no slash) match at any depth, "src/**/test_*.py" from path, "!**/vendor/**" excludes. Honours .gitignore and skips hidden files (the answer counts those that match; include_ignored / include_hidden list them)."###;

/// Parameters of `find_files`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindFilesParams {
    // Globs as rg -g takes them ("!" excludes); one may be a string.
    #[serde(alias = "glob")]
    pub pattern: Vec<String>,
    // Directory to list (default: the first root).
    #[serde(alias = "search_path")]
    pub path: Option<String>,
    #[serde(default)]
    pub include_ignored: bool,
    #[serde(default)]
    pub include_hidden: bool,
    // The next_cursor of the previous page.
    pub cursor: Option<String>,
    pub max_output_bytes: Option<u32>,
}

#[tool_router(router = files_router, vis = "pub(super)")]
impl MapgrepServer {
    #[tool(
        name = "find_files",
        description = FIND_FILES_DESCRIPTION,
        annotations(title = "Find files", read_only_hint = true, open_world_hint = false),
        output_schema = output_schema(&[NEXT_CURSOR, TRUNCATED])
    )]
    pub async fn find_files(
        &self,
        Parameters(p): Parameters<FindFilesParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let budget = self.budget(&context, p.max_output_bytes);
        let cursor = p.cursor.clone();
        let q = query(p);
        let provided = provided(&q);
        let progress = Arc::new(Progress::default());
        let worker = Arc::clone(&progress);
        let work = self.blocking(move |ws| crate::grep::find_files(ws, &q, &worker));
        let timeout = self.workspace().limits().search_timeout;
        let outcome = with_progress(&context, progress, timeout, work).await;
        Ok(answer(outcome.transpose()?, cursor.as_deref(), &provided, budget).into())
    }
}

/// The engine query of a call's parameters.
fn query(p: FindFilesParams) -> GrepQuery {
    GrepQuery {
        search_paths: p.path.into_iter().collect(),
        globs: p.pattern,
        include_hidden: p.include_hidden,
        include_ignored: p.include_ignored,
        relative_to_root: true,
        ..GrepQuery::default()
    }
}

/// The call as the answer repeats it.
fn provided(q: &GrepQuery) -> String {
    let mut s = format!("pattern={:?}", q.globs);
    if let Some(p) = q.search_paths.first() {
        let _ = write!(s, ", path={p:?}");
    }
    for (on, name) in [
        (q.include_hidden, "include_hidden"),
        (q.include_ignored, "include_ignored"),
    ] {
        if on {
            let _ = write!(s, ", {name}=true");
        }
    }
    s
}

/// The answer to a listing that ended with `outcome` (`None`: still running past its
/// deadline).
fn answer(
    outcome: Option<Result<Arc<FileList>, GrepError>>,
    cursor: Option<&str>,
    provided: &str,
    budget: Budget,
) -> Answer {
    match outcome {
        // Room left for the lines after the names, so that the first page made fits.
        Some(Ok(list)) => fit(budget, |room| {
            render(&list, cursor, room.saturating_sub(400))
        }),
        Some(Err(GrepError::Param(e))) => hold(budget, Answer::param_error(e)),
        Some(Err(GrepError::File(e))) => hold(budget, Answer::error(e.to_string())),
        None => Answer::error(format!(
            "Error: Listing timed out\n\nYou provided: {provided}\nProblem: The walk ran past the server's time limit (--search-timeout) and was stopped; its files are not shown, being incomplete.\nFix: List a smaller directory with path."
        )),
    }
}

/// One page of the list: the names after `cursor` that fit `room` bytes (one at least),
/// then the count, what the ignore rules hid and how to go on.
fn render(list: &FileList, cursor: Option<&str>, room: usize) -> Answer {
    let start = cursor.map_or(0, |c| list.after(c));
    let mut text = String::new();
    let mut shown = 0;
    for name in &list.files[start..] {
        let mark = text.len();
        let _ = writeln!(text, "{}", quote::name(name));
        if shown > 0 && text.len() > room {
            text.truncate(mark);
            break;
        }
        shown += 1;
    }
    let total = list.files.len();
    let end = start + shown;
    let cut = end < total;
    match (total, start, cut) {
        (0, _, _) => text.push_str("No files match.\n"),
        (n, 0, false) => {
            let _ = writeln!(text, "{} match.", plural(n as u64, "file"));
        }
        (n, s, _) => {
            let _ = writeln!(text, "Files {}-{end} of {n} shown.", s + 1);
        }
    }
    if let Some(h) = list.hidden
        && (h.files > 0 || h.dirs > 0)
    {
        let mut what = Vec::new();
        if h.files > 0 {
            what.push(format!("{} that match", plural(h.files, "file")));
        }
        if h.dirs > 0 {
            what.push(format!("{} not entered", plural(h.dirs, "directory")));
        }
        let _ = writeln!(
            text,
            "Hidden or .gitignored, not listed: {} (include_hidden / include_ignored list them).",
            what.join(", ")
        );
    }
    if let Some(e) = list.errors.first() {
        let _ = writeln!(
            text,
            "Could not read {} (e.g. {}).",
            plural(list.errors.len() as u64, "directory"),
            quote::line(e)
        );
    }
    let next = cut.then(|| list.files[end - 1].clone());
    if let Some(c) = &next {
        let _ = writeln!(
            text,
            "More files follow: call find_files again with the same arguments and cursor: {}.",
            quote::json(c)
        );
    }
    Answer::ok(text)
        .field("next_cursor", next)
        .field("truncated", cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_continues_after_its_cursor_and_says_how_far_it_is() {
        let list = FileList {
            files: ["a/b/c.rs", "a/b.rs", "z.rs"].map(String::from).to_vec(),
            hidden: Some(crate::grep::Hidden { files: 2, dirs: 1 }),
            ..FileList::default()
        };
        let a = render(&list, None, 10);
        assert!(a.text().starts_with("a/b/c.rs\n"), "{}", a.text());
        assert!(a.text().contains("Files 1-1 of 3 shown."), "{}", a.text());
        assert!(a.text().contains("cursor: \"a/b/c.rs\""), "{}", a.text());
        let b = render(&list, Some("a/b/c.rs"), 1000);
        assert!(
            b.text().starts_with("a/b.rs\nz.rs\nFiles 2-3 of 3"),
            "{}",
            b.text()
        );
        assert!(
            b.text()
                .contains("2 files that match, 1 directory not entered")
        );
        assert!(!b.text().contains("cursor"));
    }
}
