//! Tool schemas every client can read, and arguments read the way models send them.
//!
//! Clients differ in how much JSON Schema they understand: some turn a `$ref` or an `anyOf`
//! into `string`, some refuse `$defs` or `$schema`, some send every value of a property typed
//! `["integer", "null"]` as a string. [`portable`] reduces a generated schema to the subset
//! they all read: plain objects, one `type` string per property, arrays with inline items,
//! standard formats only. [`coerce`] then reads arguments against that schema with the slack
//! models and clients need: numbers and booleans sent as strings, one value where a list is
//! expected, a bare path where an object with one required field is expected.

use serde_json::{Map, Value};

/// Formats of JSON Schema's standard set that a client may rely on; others (`int64`,
/// `uint32`, ...) are dropped.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "uuid",
    "regex",
];

/// `schema` with every `$ref` inlined and `$defs`, `$schema`, `title`s, `null` types,
/// `null`/`false` defaults and non-standard formats removed. A nullable `anyOf` (`[X, null]`)
/// becomes `X`.
pub fn portable(schema: &Value) -> Value {
    let defs = schema
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut out = reduce(schema, &defs, 0);
    if let Some(o) = out.as_object_mut() {
        o.remove("$schema");
        o.remove("$defs");
    }
    out
}

/// [`portable`] for a schema object as rmcp holds it.
pub fn portable_object(
    schema: &std::sync::Arc<rmcp::model::JsonObject>,
) -> std::sync::Arc<rmcp::model::JsonObject> {
    match portable(&Value::Object((**schema).clone())) {
        Value::Object(o) => std::sync::Arc::new(o),
        _ => std::sync::Arc::clone(schema),
    }
}

fn reduce(schema: &Value, defs: &Map<String, Value>, depth: usize) -> Value {
    let Some(obj) = schema.as_object() else {
        return schema.clone();
    };
    // Inline a reference (definitions cannot recurse deeper than the depth guard).
    if let Some(target) = obj.get("$ref").and_then(Value::as_str)
        && let Some(def) = target.strip_prefix("#/$defs/").and_then(|n| defs.get(n))
        && depth < 16
    {
        let mut inlined = reduce(def, defs, depth + 1);
        // Keys beside the reference (a property's own description) win.
        if let Some(o) = inlined.as_object_mut() {
            for (k, v) in obj {
                if k != "$ref" {
                    o.insert(k.clone(), reduce(v, defs, depth + 1));
                }
            }
        }
        return inlined;
    }
    // `anyOf: [X, {type: null}]` (an optional struct or enum) is X.
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = obj.get(key).and_then(Value::as_array) {
            let real: Vec<&Value> = branches
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) != Some("null"))
                .collect();
            if real.len() == 1 {
                let mut inner = reduce(real[0], defs, depth + 1);
                if let Some(o) = inner.as_object_mut() {
                    for (k, v) in obj {
                        if k != key {
                            o.insert(k.clone(), reduce(v, defs, depth + 1));
                        }
                    }
                }
                return inner;
            }
        }
    }
    let mut out = Map::new();
    for (k, v) in obj {
        match k.as_str() {
            "$schema" | "$defs" | "title" => {}
            "type" => {
                out.insert(k.clone(), single_type(v));
            }
            "format" => {
                if v.as_str().is_some_and(|f| STANDARD_FORMATS.contains(&f)) {
                    out.insert(k.clone(), v.clone());
                }
            }
            // `false` is every flag's default: saying so costs every client bytes.
            "default" if v.is_null() || *v == Value::Bool(false) => {}
            "properties" => {
                let props = v
                    .as_object()
                    .map(|p| {
                        p.iter()
                            .map(|(name, s)| (name.clone(), reduce(s, defs, depth + 1)))
                            .collect::<Map<_, _>>()
                    })
                    .unwrap_or_default();
                out.insert(k.clone(), Value::Object(props));
            }
            _ => {
                out.insert(k.clone(), reduce_any(v, defs, depth));
            }
        }
    }
    Value::Object(out)
}

fn reduce_any(v: &Value, defs: &Map<String, Value>, depth: usize) -> Value {
    match v {
        Value::Object(_) => reduce(v, defs, depth + 1),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|i| reduce_any(i, defs, depth + 1))
                .collect(),
        ),
        _ => v.clone(),
    }
}

/// `["integer", "null"]` → `"integer"`.
fn single_type(v: &Value) -> Value {
    match v.as_array() {
        Some(types) => {
            let real: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
            match real.as_slice() {
                [one] => (*one).clone(),
                _ => v.clone(),
            }
        }
        None => v.clone(),
    }
}

/// Where `schema` breaks the portable subset, one message per violation (empty: portable).
pub fn violations(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    check(schema, "#", &mut out);
    out
}

fn check(schema: &Value, at: &str, out: &mut Vec<String>) {
    let Some(obj) = schema.as_object() else {
        return;
    };
    for (k, v) in obj {
        match k.as_str() {
            "$ref" | "$defs" | "$schema" | "anyOf" | "oneOf" | "allOf" | "not" | "definitions" => {
                out.push(format!("{at}: `{k}`"))
            }
            "type" if !v.is_string() => out.push(format!("{at}: type {v} is not one string")),
            "type" if v == "null" => out.push(format!("{at}: type null")),
            "format" if !v.as_str().is_some_and(|f| STANDARD_FORMATS.contains(&f)) => {
                out.push(format!("{at}: non-standard format {v}"))
            }
            "properties" => {
                for (name, s) in v.as_object().into_iter().flatten() {
                    if s.get("type").is_none() {
                        out.push(format!("{at}/properties/{name}: no type"));
                    }
                    check(s, &format!("{at}/properties/{name}"), out);
                }
            }
            "items" => check(v, &format!("{at}/items"), out),
            _ => {}
        }
    }
    if obj.get("type") == Some(&Value::from("array")) && obj.get("items").is_none() {
        out.push(format!("{at}: array without items"));
    }
}

/// Reads `args` against `schema` (a [`portable`] one) with the slack models need, in place:
/// `"3"` for an integer, `"true"` for a boolean, a JSON text for an array or object, one
/// value for a list of them, and a string for an object whose one required property is a
/// string (`"a.log"` for `{"path": "a.log"}`), and `null` for an optional property as if it
/// were not given. Values that fit no rule are left for the deserializer to name.
pub fn coerce(args: &mut Value, schema: &Value) {
    let Some(ty) = schema.get("type").and_then(Value::as_str) else {
        return;
    };
    match (ty, &*args) {
        ("integer", Value::String(s)) => {
            if let Ok(n) = s.trim().parse::<i64>() {
                *args = Value::from(n);
            } else if let Ok(n) = s.trim().parse::<u64>() {
                *args = Value::from(n);
            }
        }
        ("number", Value::String(s)) => {
            if let Some(n) = s
                .trim()
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
            {
                *args = Value::Number(n);
            }
        }
        ("boolean", Value::String(s)) => match s.trim().to_ascii_lowercase().as_str() {
            "true" => *args = Value::Bool(true),
            "false" => *args = Value::Bool(false),
            _ => {}
        },
        ("array", Value::String(s)) => {
            *args = match serde_json::from_str::<Value>(s) {
                Ok(v @ Value::Array(_)) => v,
                _ => Value::Array(vec![args.take()]),
            };
        }
        ("array", Value::Object(_) | Value::Number(_) | Value::Bool(_)) => {
            *args = Value::Array(vec![args.take()]);
        }
        ("object", Value::String(s)) => {
            if let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(s) {
                *args = v;
            } else if let Some(key) = sole_required_string(schema) {
                let mut o = Map::new();
                o.insert(key.to_string(), args.take());
                *args = Value::Object(o);
            }
        }
        _ => {}
    }
    match args {
        Value::Array(items) if ty == "array" => {
            if let Some(item_schema) = schema.get("items") {
                for item in items {
                    coerce(item, item_schema);
                }
            }
        }
        Value::Object(o) if ty == "object" => {
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                drop_optional_nulls(o, props, schema);
                for (name, value) in o.iter_mut() {
                    if let Some(s) = props.get(name) {
                        coerce(value, s);
                    }
                }
            }
        }
        _ => {}
    }
}

/// Removes the members of `o` that are `null` for an optional property of `schema` (whose
/// `properties` are `props`): `null` there is "not given", whatever the property's type.
fn drop_optional_nulls(o: &mut Map<String, Value>, props: &Map<String, Value>, schema: &Value) {
    let required = schema.get("required").and_then(Value::as_array);
    let required = |name: &str| required.is_some_and(|r| r.iter().any(|n| n == name));
    o.retain(|name, v| !(v.is_null() && props.contains_key(name) && !required(name)));
}

/// The name of an object schema's one required property, if it is a string.
fn sole_required_string(schema: &Value) -> Option<&str> {
    let required = schema.get("required")?.as_array()?;
    let [name] = required.as_slice() else {
        return None;
    };
    let name = name.as_str()?;
    let ty = schema.get("properties")?.get(name)?.get("type")?;
    (ty == "string").then_some(name)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn generated_shapes_become_portable() {
        let s = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "P",
            "type": "object",
            "properties": {
                "files": {"type": "array", "items": {"$ref": "#/$defs/F"}},
                "n": {"type": ["integer", "null"], "format": "int64", "default": null},
                "o": {"anyOf": [{"$ref": "#/$defs/F"}, {"type": "null"}], "description": "d"}
            },
            "required": ["files"],
            "$defs": {"F": {"type": "object", "title": "F", "properties": {"path": {"type": "string"}}, "required": ["path"]}}
        });
        let p = portable(&s);
        assert_eq!(violations(&p), Vec::<String>::new(), "{p:#}");
        assert_eq!(
            p["properties"]["files"]["items"]["required"],
            json!(["path"])
        );
        assert_eq!(p["properties"]["n"], json!({"type": "integer"}));
        assert_eq!(p["properties"]["o"]["description"], "d");
        assert_eq!(p["properties"]["o"]["type"], "object");
        assert!(!violations(&s).is_empty());
    }

    #[test]
    fn arguments_are_read_with_slack() {
        let s = json!({
            "type": "object",
            "properties": {
                "files": {"type": "array", "items": {"type": "object",
                    "properties": {"path": {"type": "string"}, "head": {"type": "integer"}},
                    "required": ["path"]}},
                "flag": {"type": "boolean"},
                "names": {"type": "array", "items": {"type": "string"}},
                "n": {"type": "integer"}
            }
        });
        let mut a = json!({"files": ["a.log", {"path": "b", "head": "3"}], "flag": "TRUE", "names": "x", "n": " 7 "});
        coerce(&mut a, &s);
        assert_eq!(
            a,
            json!({"files": [{"path": "a.log"}, {"path": "b", "head": 3}], "flag": true, "names": ["x"], "n": 7})
        );
        let mut a = json!({"files": "[{\"path\": \"c\"}]", "names": "[\"y\", \"z\"]", "n": "x", "flag": "yes"});
        coerce(&mut a, &s);
        assert_eq!(
            a,
            json!({"files": [{"path": "c"}], "names": ["y", "z"], "n": "x", "flag": "yes"})
        );
        let mut a = json!({"files": "d.md"});
        coerce(&mut a, &s);
        assert_eq!(a, json!({"files": [{"path": "d.md"}]}));
        // `null` is "not given" for an optional property, not for a required one.
        let mut a =
            json!({"files": [{"path": "e", "head": null}], "flag": null, "n": null, "bogus": null});
        coerce(&mut a, &s);
        assert_eq!(a, json!({"files": [{"path": "e"}], "bogus": null}));
        let mut a = json!({"files": [{"path": null}]});
        coerce(&mut a, &s);
        assert_eq!(a, json!({"files": [{"path": null}]}));
    }
}
