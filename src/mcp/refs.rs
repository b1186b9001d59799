//! The references tool: `find_references`.

use std::sync::Arc;

use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::answer::{Answer, NEXT_CURSOR, TRUNCATED, output_schema};
use super::budget::{Budget, fit, hold};
use super::params::Parameters;
use super::words::MCP_WORDS;
use super::{MapgrepServer, with_progress};
use crate::grep::{GrepQuery, Progress};
use crate::read::ParamError;
use crate::refs::{Page, RefCursor, References, RefsQuery, find_kept, render};

const FIND_REFERENCES_DESCRIPTION: &str = r###"Who uses NAME? Every use in code (calls, types, macros, imports, member accesses), not comments, strings or its definitions, grouped by file and enclosing symbol (the caller):
  mm/slab.c
    in function kmalloc_node (120-160):
      131: p = kmalloc_array(n, size, flags);
By name, not type; the first line counts all uses. Narrow with lang, search_path, glob."###;

/// Parameters of `find_references`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindReferencesParams {
    // A name ("kmalloc_array"; "A.b" is searched as "b").
    pub name: String,
    // Only this language ("c", "rust"...).
    pub lang: Option<String>,
    // File or directory (default: the first root).
    #[serde(alias = "path")]
    pub search_path: Option<String>,
    // Globs like "*.rs"; "!" excludes.
    pub glob: Option<Vec<String>>,
    // The next_cursor of the previous page.
    pub cursor: Option<String>,
    pub max_output_bytes: Option<u32>,
}

#[tool_router(router = refs_router, vis = "pub(super)")]
impl MapgrepServer {
    #[tool(
        name = "find_references",
        description = FIND_REFERENCES_DESCRIPTION,
        annotations(title = "Find references", read_only_hint = true, open_world_hint = false),
        output_schema = output_schema(&[NEXT_CURSOR, TRUNCATED])
    )]
    pub async fn find_references(
        &self,
        Parameters(p): Parameters<FindReferencesParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let budget = self.budget(&context, p.max_output_bytes);
        let (q, cursor) = match query(p) {
            Ok(x) => x,
            Err(e) => return Ok(hold(budget, Answer::param_error(e)).into()),
        };
        let provided = q.provided(&MCP_WORDS);
        let progress = Arc::new(Progress::default());
        let worker = Arc::clone(&progress);
        // A first page counts the uses after it (from the symbol records) without listing
        // them; the pages after come from a whole search.
        let first = cursor.is_none().then_some(Page {
            bytes: budget.bytes,
            lines: budget.lines,
        });
        let work = self.blocking(move |ws| {
            find_kept(ws, &q, &worker, first)
                .map_err(|e| e.to_param_error(&q.provided(&MCP_WORDS), &MCP_WORDS))
        });
        let timeout = self.workspace().limits().search_timeout;
        let outcome = with_progress(&context, progress, timeout, work).await;
        Ok(answer(outcome.transpose()?, cursor, &provided, budget).into())
    }
}

/// The engine query of a call's parameters and its cursor, or the error for a cursor that
/// is not one.
fn query(p: FindReferencesParams) -> Result<(RefsQuery, Option<RefCursor>), ParamError> {
    let cursor = match &p.cursor {
        None => None,
        Some(c) => Some(RefCursor::decode(c).ok_or_else(|| {
            ParamError::new(
                "Invalid cursor",
                format!("cursor={c:?}"),
                "A cursor has the form LINE:COLUMN:PATH, as returned in next_cursor.".into(),
                "Pass the next_cursor of the previous find_references result unchanged, or omit cursor to start from the beginning.",
            )
        })?),
    };
    let q = RefsQuery {
        name: p.name,
        lang: p.lang,
        scope: GrepQuery {
            search_paths: p.search_path.into_iter().collect(),
            globs: p.glob.unwrap_or_default(),
            relative_to_root: true,
            ..GrepQuery::default()
        },
    };
    Ok((q, cursor))
}

/// The answer to a search that ended with `outcome` (`None`: still running past its
/// deadline).
fn answer(
    outcome: Option<Result<Arc<References>, ParamError>>,
    cursor: Option<RefCursor>,
    provided: &str,
    budget: Budget,
) -> Answer {
    match outcome {
        Some(Ok(r)) => fit(budget, |room| {
            let page = render(&r, cursor.as_ref(), room, &MCP_WORDS);
            let text = format!("## find_references: {}\n\n{}", r.word, page.text);
            let mut a = Answer::ok(text).field("truncated", page.truncated);
            if let Some(c) = page.next_cursor {
                a = a.field("next_cursor", c);
            }
            a
        }),
        Some(Err(e)) => hold(budget, Answer::param_error(e)),
        None => Answer::error(format!(
            "Error: Search timed out\n\nYou provided: {provided}\nProblem: The search for uses ran past the server's time limit (--search-timeout) and was stopped; its uses are not shown, being incomplete.\nFix: Narrow it with search_path, glob or lang."
        )),
    }
}
