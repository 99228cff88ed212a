//! The JSON schemas handed to the model endpoint (`completion-request.json-schema`).
//!
//! They follow the rules of OpenAI's strict structured outputs (every property required,
//! `additionalProperties: false`, optional values as `anyOf [..., null]`), which grammar-based
//! servers (llama.cpp and the like) also accept. Keys are written in the order the model should
//! produce them (the host keeps the order), so the schema is built as text rather than through
//! `serde_json::json!`, whose maps are sorted.

/// `{"type":"array","items":{"type":"string"}}`
const STRINGS: &str = r#"{"type":"array","items":{"type":"string"}}"#;
const NULLABLE_STRING: &str = r#"{"anyOf":[{"type":"string"},{"type":"null"}]}"#;
const NULLABLE_STRINGS: &str =
    r#"{"anyOf":[{"type":"array","items":{"type":"string"}},{"type":"null"}]}"#;
const NULLABLE_BOOL: &str = r#"{"anyOf":[{"type":"boolean"},{"type":"null"}]}"#;

/// An object schema with `props` (in order), all required, nothing else allowed.
fn object(props: &[(&str, String)]) -> String {
    let body: Vec<String> = props
        .iter()
        .map(|(name, schema)| format!("{}:{schema}", quote(name)))
        .collect();
    let required: Vec<String> = props.iter().map(|(name, _)| quote(name)).collect();
    format!(
        r#"{{"type":"object","properties":{{{}}},"required":[{}],"additionalProperties":false}}"#,
        body.join(","),
        required.join(",")
    )
}

fn quote(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// The task answer: `inputs` (by name: the names are an enum, so a constrained model cannot
/// invent one), `outputs` (at least one of each: a constrained model cannot answer with an
/// empty task), `filter_complex`, and `refuse` (null, or why the model cannot; it wins over the
/// rest).
pub fn task_schema(inputs: &[crate::InputFacts]) -> String {
    let names: Vec<String> = inputs.iter().map(|i| quote(&i.name)).collect();
    let input = object(&[
        (
            "file_path",
            format!(r#"{{"type":"string","enum":[{}]}}"#, names.join(",")),
        ),
        ("options", STRINGS.to_string()),
    ]);
    let output = object(&[
        ("file", r#"{"type":"string"}"#.to_string()),
        ("options", STRINGS.to_string()),
        ("maps", STRINGS.to_string()),
    ]);
    object(&[
        (
            "inputs",
            format!(r#"{{"type":"array","items":{input},"minItems":1}}"#),
        ),
        (
            "outputs",
            format!(r#"{{"type":"array","items":{output},"minItems":1}}"#),
        ),
        ("filter_complex", NULLABLE_STRING.to_string()),
        ("refuse", NULLABLE_STRING.to_string()),
    ])
}

/// The fields of a probe answer, in order, with their schema.
pub const PROBE_SECTIONS: [&str; 7] = [
    "format", "streams", "chapters", "programs", "frames", "packets", "error",
];
pub const PROBE_STRINGS: [&str; 5] = [
    "select_streams",
    "read_intervals",
    "skip_frame",
    "analyzeduration",
    "probesize",
];

/// The probe answer: the probe configuration's fields (null when not asked for), then `refuse`.
pub fn probe_schema() -> String {
    let mut props: Vec<(&str, String)> = Vec::new();
    for section in PROBE_SECTIONS {
        props.push((section, NULLABLE_STRINGS.to_string()));
    }
    for key in PROBE_STRINGS {
        props.push((key, NULLABLE_STRING.to_string()));
    }
    props.push(("count_frames", NULLABLE_BOOL.to_string()));
    props.push(("refuse", NULLABLE_STRING.to_string()));
    object(&props)
}
