//! Tool schemas from the same salvo-oapi types as the OpenAPI document, so a tool's input and
//! structured result are described exactly as the API's request and response are. A type's
//! schema is inlined at the root (MCP wants `type: object` there) and what it refers to travels
//! in `$defs`, so every `$ref` resolves within the tool's own schema.

use rmcp::model::JsonObject;
use salvo::oapi::{Components, ToSchema};
use serde_json::{Map, Value};

const OPENAPI_REFS: &str = "#/components/schemas/";
const DEFS_REFS: &str = "#/$defs/";

/// The JSON Schema of `T`, self-contained.
pub fn of<T: ToSchema>() -> JsonObject {
    let mut components = Components::new();
    let root = serde_json::to_value(T::to_schema(&mut components)).unwrap_or_default();
    let mut defs = serde_json::to_value(&components.schemas).unwrap_or_default();
    let mut root = match ref_name(&root) {
        Some(name) => defs.get(name).cloned().unwrap_or_default(),
        None => root,
    };
    rewrite_refs(&mut root);
    rewrite_refs(&mut defs);
    let mut used = Vec::new();
    collect_refs(&root, &defs, &mut used);
    let mut schema = match root {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    schema.insert("type".into(), "object".into());
    if !used.is_empty() {
        let kept: Map<String, Value> = used
            .into_iter()
            .filter_map(|name| defs.get(&name).map(|d| (name, d.clone())))
            .collect();
        schema.insert("$defs".into(), Value::Object(kept));
    }
    schema
}

/// A tool without arguments.
pub fn no_arguments() -> JsonObject {
    let mut schema = Map::new();
    schema.insert("type".into(), "object".into());
    schema.insert("properties".into(), Value::Object(Map::new()));
    schema
}

fn ref_name(v: &Value) -> Option<&str> {
    v.get("$ref")?.as_str()?.strip_prefix(OPENAPI_REFS)
}

fn rewrite_refs(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                match value {
                    Value::String(s) if key == "$ref" && s.starts_with(OPENAPI_REFS) => {
                        *s = format!("{DEFS_REFS}{}", &s[OPENAPI_REFS.len()..]);
                    }
                    other => rewrite_refs(other),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(rewrite_refs),
        _ => {}
    }
}

/// The definitions `v` refers to, transitively.
fn collect_refs(v: &Value, defs: &Value, used: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (key, value) in map {
                if let (true, Some(name)) = (
                    key == "$ref",
                    value.as_str().and_then(|s| s.strip_prefix(DEFS_REFS)),
                ) {
                    if !used.iter().any(|u| u == name) {
                        used.push(name.to_string());
                        if let Some(def) = defs.get(name) {
                            collect_refs(def, defs, used);
                        }
                    }
                } else {
                    collect_refs(value, defs, used);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| collect_refs(i, defs, used)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refs(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(map) => map.iter().for_each(|(k, v)| {
                if k == "$ref" {
                    out.push(v.as_str().unwrap_or_default().to_string());
                } else {
                    refs(v, out);
                }
            }),
            Value::Array(items) => items.iter().for_each(|i| refs(i, out)),
            _ => {}
        }
    }

    #[test]
    fn self_contained_object_schemas() {
        for schema in [
            of::<crate::api::schemas::ProcessRequest>(),
            of::<crate::api::schemas::JobView>(),
            of::<crate::api::schemas::ProbeResponse>(),
            of::<crate::api::schemas::CreateFileResponse>(),
        ] {
            let schema = Value::Object(schema);
            assert_eq!(schema["type"], "object", "{schema}");
            assert!(schema["properties"].is_object(), "{schema}");
            let mut found = Vec::new();
            refs(&schema, &mut found);
            for r in found {
                let name = r.strip_prefix(DEFS_REFS).expect("a local reference");
                assert!(schema["$defs"].get(name).is_some(), "{r} in {schema}");
            }
        }
    }
}
