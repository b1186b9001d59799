//! The tools' parameter extractor: rmcp's `Parameters`, but arguments are first read with
//! the slack models need ([`super::schema::coerce`]: `"3"` for 3, `["a.log"]` for
//! `[{"path": "a.log"}]`), and a parameter that still fails to deserialize is named
//! (`files[0].head`), so the agent knows which one to fix.
//!
//! The `#[tool]` macro finds the parameters type by its name, `Parameters`, and takes the
//! input schema from it; the error keeps rmcp's `failed to deserialize parameters:` prefix,
//! which rmcp turns into a tool error (`isError`) the model reads.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use rmcp::ErrorData;
use rmcp::handler::server::common::{FromContextPart, schema_for_type};
use rmcp::handler::server::tool::ToolCallContext;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;

/// A tool's deserialized arguments.
#[derive(Debug, Clone)]
pub struct Parameters<P>(pub P);

impl<P: JsonSchema> JsonSchema for Parameters<P> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        P::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        P::json_schema(generator)
    }
}

impl<S, P: DeserializeOwned + JsonSchema + 'static> FromContextPart<ToolCallContext<'_, S>>
    for Parameters<P>
{
    fn from_context_part(context: &mut ToolCallContext<'_, S>) -> Result<Self, ErrorData> {
        let mut arguments = serde_json::Value::Object(context.arguments.take().unwrap_or_default());
        super::schema::coerce(&mut arguments, &portable_schema::<P>());
        parse(arguments)
            .map(Parameters)
            .map_err(|message| ErrorData::invalid_params(message, None))
    }
}

/// `P`'s input schema as the tools list it ([`super::schema::portable`]), built once per type.
fn portable_schema<P: JsonSchema + 'static>() -> Arc<serde_json::Value> {
    static CACHE: OnceLock<Mutex<HashMap<TypeId, Arc<serde_json::Value>>>> = OnceLock::new();
    let mut cache = CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    Arc::clone(cache.entry(TypeId::of::<P>()).or_insert_with(|| {
        let schema = serde_json::Value::Object((*schema_for_type::<P>()).clone());
        Arc::new(super::schema::portable(&schema))
    }))
}

/// `arguments` as `P`, or the message naming the parameter that failed.
fn parse<P: DeserializeOwned>(arguments: serde_json::Value) -> Result<P, String> {
    serde_path_to_error::deserialize(arguments).map_err(|e| {
        let path = e.path().to_string();
        let mut inner = e.into_inner().to_string();
        // serde names Rust types; the agent knows JSON's.
        for rust in ["i64", "u64", "u32", "usize", "u8"] {
            inner = inner.replace(&format!("expected {rust}"), "expected an integer");
        }
        let mut message = format!("failed to deserialize parameters: {inner}");
        if !path.is_empty() && path != "." {
            message.push_str(&format!(
                " (parameter `{path}`)\nFix: send `{path}` with the type the tool's input schema gives it."
            ));
        }
        message
    })
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::parse;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Entry {
        path: String,
        head: Option<i64>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Batch {
        files: Vec<Entry>,
    }

    #[test]
    fn a_failing_parameter_is_named() {
        let e = parse::<Batch>(json!({"files": [{"path": "a"}, {"path": "b", "head": "five"}]}))
            .unwrap_err();
        assert!(
            e.starts_with(
                "failed to deserialize parameters: invalid type: string \"five\", expected an integer (parameter `files[1].head`)\nFix: "
            ),
            "{e}"
        );
        let e = parse::<Batch>(json!({"files": [], "bogus": 1})).unwrap_err();
        assert!(
            e.starts_with("failed to deserialize parameters: unknown field `bogus`, expected "),
            "{e}"
        );
        let e = parse::<Batch>(json!({})).unwrap_err();
        assert_eq!(e, "failed to deserialize parameters: missing field `files`");
        assert_eq!(
            parse::<Batch>(json!({"files": [{"path": "a", "head": null}]}))
                .unwrap()
                .files[0]
                .head,
            None
        );
    }
}
