//! The definition lookup tool of docs/find_definition.md: `find_definition`.

use std::sync::Arc;

use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::answer::{Answer, TRUNCATED, output_schema};
use super::budget::{Budget, fit, hold};
use super::params::Parameters;
use super::words::MCP_WORDS;
use super::{MapgrepServer, with_progress};
use crate::define::render::render;
use crate::define::{DefineQuery, Definitions, lookup};
use crate::grep::{GrepQuery, Progress};
use crate::read::ParamError;

const FIND_DEFINITION_DESCRIPTION: &str = r###"Where is NAME defined? Every definition across the roots, parsed: use it instead of grepping a regex. One line per site:
  src/a.rs:40-52: method Parser.parse (rust, doc from 37) — pub fn parse(&self) {
Bodies first; declarations (prototypes, signatures) only with declarations: true or if no body exists; never calls. One site comes with its code (code: true: all); read more with file_read target. name: "parse", "Parser.parse", "Foo::new"; narrow with kind (function, class...), lang, search_path, glob."###;

/// Parameters of `find_definition`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindDefinitionParams {
    // A symbol name ("parse") or qualified name ("Parser.parse", "Foo::new").
    pub name: String,
    // Only this kind ("function", "method", "class", "struct"...).
    pub kind: Option<String>,
    // Only this language ("rust", "py"...).
    pub lang: Option<String>,
    // File or directory (default: the first root).
    #[serde(alias = "path")]
    pub search_path: Option<String>,
    // Globs like "*.rs"; "!" excludes.
    pub glob: Option<Vec<String>>,
    // List declarations (prototypes, signatures) too.
    #[serde(default)]
    pub declarations: bool,
    // Each site's code (default: only for a single site).
    pub code: Option<bool>,
    pub max_output_bytes: Option<u32>,
}

impl FindDefinitionParams {
    fn query(self) -> DefineQuery {
        DefineQuery {
            name: self.name,
            kind: self.kind,
            lang: self.lang,
            declarations: self.declarations,
            code: self.code,
            time_limit: None,
            all_signatures: false,
            scope: GrepQuery {
                search_paths: self.search_path.into_iter().collect(),
                globs: self.glob.unwrap_or_default(),
                ..GrepQuery::default()
            },
        }
    }
}

#[tool_router(router = define_router, vis = "pub(super)")]
impl MapgrepServer {
    #[tool(
        name = "find_definition",
        description = FIND_DEFINITION_DESCRIPTION,
        annotations(title = "Find definitions", read_only_hint = true, open_world_hint = false),
        output_schema = output_schema(&[TRUNCATED])
    )]
    pub async fn find_definition(
        &self,
        Parameters(p): Parameters<FindDefinitionParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let budget = self.budget(&context, p.max_output_bytes);
        let q = p.query();
        let provided = q.provided(&MCP_WORDS);
        let progress = Arc::new(Progress::default());
        let worker = Arc::clone(&progress);
        let name = q.name.clone();
        let work = self.blocking(move |ws| {
            lookup(ws, &q, &worker)
                .map_err(|e| e.to_param_error(&q.provided(&MCP_WORDS), &MCP_WORDS))
        });
        let timeout = self.workspace().limits().search_timeout;
        let outcome = with_progress(&context, progress, timeout, work).await;
        Ok(answer(outcome.transpose()?, &name, &provided, budget).into())
    }
}

/// The answer to a lookup that ended with `outcome` (`None`: still running past its deadline).
fn answer(
    outcome: Option<Result<Definitions, ParamError>>,
    name: &str,
    provided: &str,
    budget: Budget,
) -> Answer {
    match outcome {
        Some(Ok(d)) if !d.timed_out => fit(budget, |room| {
            let r = render(&d, name, room, &MCP_WORDS);
            let text = format!("## find_definition: {}\n\n{}", name.trim(), r.text);
            Answer::ok(text).field("truncated", r.truncated)
        }),
        Some(Err(e)) => hold(budget, Answer::param_error(e)),
        _ => Answer::error(format!(
            "Error: Lookup timed out\n\nYou provided: {provided}\nProblem: The lookup ran past the server's time limit (--search-timeout) and was stopped; its sites are not shown, being incomplete.\nFix: Narrow it with search_path, glob or lang."
        )),
    }
}
