//! The repo map tool: `repo_map`.

use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::MapgrepServer;
use super::answer::{Answer, TRUNCATED, output_schema};
use super::budget::{Budget, fit, hold};
use super::params::Parameters;
use super::words::MCP_WORDS;
use crate::repomap::{MapBudget, MapQuery, prepare};

const REPO_MAP_DESCRIPTION: &str = r###"What matters in PATH? Its most important definitions, ranked by how the rest of the code uses them (PageRank over who uses whose names), one signature line each under its file, fitted to the answer's size:
  fs/ext4/super.c:
    5680: static int ext4_fill_super(struct super_block *sb, struct fs_context *fc)
focus (files or names) moves their neighbourhood up. Next: file_read target, find_references."###;

/// Parameters of `repo_map`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RepoMapParams {
    // Directory or file (default: the first root).
    pub path: Option<String>,
    // Files or names the map is about.
    pub focus: Option<Vec<String>>,
    pub max_output_bytes: Option<u32>,
}

#[tool_router(router = map_router, vis = "pub(super)")]
impl MapgrepServer {
    #[tool(
        name = "repo_map",
        description = REPO_MAP_DESCRIPTION,
        annotations(title = "Repo map", read_only_hint = true, open_world_hint = false),
        output_schema = output_schema(&[TRUNCATED])
    )]
    pub async fn repo_map(
        &self,
        Parameters(p): Parameters<RepoMapParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let budget = self.budget(&context, p.max_output_bytes);
        let q = MapQuery {
            path: p.path,
            focus: p.focus.unwrap_or_default(),
        };
        self.answer(move |ws| map_answer(ws, &q, budget)).await
    }
}

/// The answer to `q` within `budget`.
fn map_answer(ws: &crate::workspace::Workspace, q: &MapQuery, budget: Budget) -> Answer {
    let provided = format!("path={:?}", q.path.as_deref().unwrap_or("."));
    let prepared = match prepare(ws, q) {
        Ok(p) => p,
        Err(e) => {
            return hold(
                budget,
                Answer::param_error(e.to_param_error(&provided, &MCP_WORDS)),
            );
        }
    };
    let shown = if prepared.path.is_empty() {
        "."
    } else {
        &prepared.path
    };
    let head = format!("## repo_map: {shown}\n\n");
    let note = (prepared.unrecorded > 0).then(|| {
        format!(
            "\nNote: {} files changed since the index recorded them: not in this map yet, or shown as they were recorded.\n",
            prepared.unrecorded
        )
    });
    fit(budget, |room| {
        let m = prepared.render(
            ws,
            MapBudget {
                max_bytes: room.saturating_sub(head.len() + 200),
                max_lines: budget.lines.saturating_sub(6),
            },
        );
        let mut text = format!("{head}{}", m.text);
        if let Some(n) = &note {
            text.push_str(n);
        }
        Answer::ok(text).field("truncated", m.cut)
    })
}
