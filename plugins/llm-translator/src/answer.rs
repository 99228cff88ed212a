//! The model's answer: parsed strictly (JSON, known keys only, option lists of strings) and
//! checked (inputs exist, at least one output, output names are plain file names that are not
//! input names). Anything wrong becomes a refusal saying what the model answered wrong; the
//! host's command-builder policy still validates every option and filter of what passes.

use serde::Deserialize;
use serde_json::Value;

use crate::{InputFacts, ProbeConfig, Refusal, Task, TaskInput, TaskOutput, refusal, show};

/// How much of a bad answer a refusal quotes.
const QUOTE_CHARS: usize = 240;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TaskAnswer {
    #[serde(default)]
    inputs: Vec<InputAnswer>,
    #[serde(default)]
    outputs: Vec<OutputAnswer>,
    #[serde(default)]
    filter_complex: Option<String>,
    #[serde(default)]
    #[allow(dead_code)] // read from the JSON value before this parse
    refuse: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct InputAnswer {
    file_path: String,
    #[serde(default)]
    options: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OutputAnswer {
    file: String,
    #[serde(default)]
    options: Vec<String>,
    #[serde(default)]
    maps: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProbeAnswer {
    #[serde(default)]
    format: Option<Vec<String>>,
    #[serde(default)]
    streams: Option<Vec<String>>,
    #[serde(default)]
    chapters: Option<Vec<String>>,
    #[serde(default)]
    programs: Option<Vec<String>>,
    #[serde(default)]
    frames: Option<Vec<String>>,
    #[serde(default)]
    packets: Option<Vec<String>>,
    #[serde(default)]
    error: Option<Vec<String>>,
    #[serde(default)]
    select_streams: Option<String>,
    #[serde(default)]
    read_intervals: Option<String>,
    #[serde(default)]
    skip_frame: Option<String>,
    #[serde(default)]
    analyzeduration: Option<String>,
    #[serde(default)]
    probesize: Option<String>,
    #[serde(default)]
    count_frames: Option<bool>,
    #[serde(default)]
    #[allow(dead_code)] // read from the JSON value before this parse
    refuse: Option<String>,
}

/// A refusal about a bad answer, quoting it.
fn wrong(answer: &str, subject: Option<&str>, what: impl std::fmt::Display) -> Refusal {
    refusal(
        subject,
        format!(
            "The language model's answer could not be used: {what}. It answered: {}",
            show(answer.trim(), QUOTE_CHARS)
        ),
    )
}

/// The answer as a JSON object: the whole text must be one (a Markdown code fence around it is
/// tolerated, nothing else). A non-empty `refuse` becomes the refusal.
fn parse_object(answer: &str) -> Result<serde_json::Map<String, Value>, Refusal> {
    let text = strip_fence(answer.trim());
    if text.is_empty() {
        return Err(refusal(None, "The language model gave an empty answer"));
    }
    let value: Value =
        serde_json::from_str(text).map_err(|e| wrong(answer, None, format!("not JSON ({e})")))?;
    let Value::Object(map) = value else {
        return Err(wrong(answer, None, "not a JSON object"));
    };
    match map.get("refuse") {
        None | Some(Value::Null) => {}
        Some(Value::String(reason)) if no_reason(reason) => {}
        Some(Value::String(reason)) => {
            return Err(refusal(
                None,
                format!("The language model declined: {}", show(reason.trim(), 300)),
            ));
        }
        Some(_) => {
            return Err(wrong(
                answer,
                Some("refuse"),
                "refuse is not a string or null",
            ));
        }
    }
    Ok(map)
}

/// A `refuse` string that says there is no refusal: small models write `"None"` or `"no"`
/// where the schema means null.
fn no_reason(reason: &str) -> bool {
    let r = reason.trim().trim_end_matches('.').to_ascii_lowercase();
    matches!(
        r.as_str(),
        "" | "none" | "null" | "no" | "false" | "n/a" | "nothing"
    )
}

/// ```` ```json\n{...}\n``` ```` → `{...}`.
fn strip_fence(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("```") else {
        return text;
    };
    let Some(rest) = rest.strip_suffix("```") else {
        return text;
    };
    let rest = rest.strip_prefix("json").unwrap_or(rest);
    rest.trim()
}

/// Checks that `map[key][i][list]` are lists of strings, so the message can name the place
/// (serde's would only give a column).
fn check_string_lists(
    answer: &str,
    map: &serde_json::Map<String, Value>,
    key: &str,
    lists: &[&str],
) -> Result<(), Refusal> {
    let Some(items) = map.get(key) else {
        return Ok(());
    };
    let Value::Array(items) = items else {
        return Err(wrong(answer, Some(key), format!("{key} is not a list")));
    };
    for (i, item) in items.iter().enumerate() {
        for list in lists {
            match item.get(list) {
                None | Some(Value::Null) => {}
                Some(Value::Array(tokens)) if tokens.iter().all(Value::is_string) => {}
                Some(_) => {
                    return Err(wrong(
                        answer,
                        Some(list),
                        format!("{key}[{i}].{list} is not a list of strings"),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Parses and checks a task answer.
pub fn task_from_answer(answer: &str, inputs: &[InputFacts]) -> Result<Task, Refusal> {
    let map = parse_object(answer)?;
    check_string_lists(answer, &map, "inputs", &["options"])?;
    check_string_lists(answer, &map, "outputs", &["options", "maps"])?;
    let parsed: TaskAnswer = serde_json::from_value(Value::Object(map))
        .map_err(|e| wrong(answer, None, format!("it is not a task ({e})")))?;
    if parsed.outputs.is_empty() {
        return Err(refusal(
            None,
            "The language model produced no output file for this request",
        ));
    }
    if parsed.inputs.is_empty() {
        return Err(wrong(answer, Some("inputs"), "it names no input"));
    }
    let names: Vec<&str> = inputs.iter().map(|i| i.name.as_str()).collect();
    for input in &parsed.inputs {
        if !names.contains(&input.file_path.as_str()) {
            return Err(wrong(
                answer,
                Some(&input.file_path),
                format!(
                    "it refers to an unknown input \"{}\" (the inputs are {})",
                    show(&input.file_path, 80),
                    names
                        .iter()
                        .map(|n| format!("\"{}\"", show(n, 80)))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        check_tokens(answer, "input", &input.file_path, &input.options)?;
    }
    let mut seen: Vec<&str> = Vec::new();
    for output in &parsed.outputs {
        let file = output.file.as_str();
        if let Some(problem) = file_name_problem(file) {
            return Err(wrong(
                answer,
                Some(file),
                format!("output name \"{}\" {problem}", show(file, 80)),
            ));
        }
        if names.contains(&file) {
            return Err(wrong(
                answer,
                Some(file),
                format!("output name \"{}\" is the name of an input", show(file, 80)),
            ));
        }
        if seen.contains(&file) {
            return Err(wrong(
                answer,
                Some(file),
                format!("two outputs are named \"{}\"", show(file, 80)),
            ));
        }
        seen.push(file);
        check_tokens(answer, "output", file, &output.options)?;
    }
    let filter_complex = parsed
        .filter_complex
        .map(|g| g.trim().to_string())
        .filter(|g| !g.is_empty());
    Ok(Task {
        inputs: parsed
            .inputs
            .into_iter()
            .map(|i| TaskInput {
                file_path: i.file_path,
                options: i.options,
            })
            .collect(),
        outputs: parsed
            .outputs
            .into_iter()
            .map(|o| TaskOutput {
                file: o.file,
                options: o.options,
                maps: o.maps,
            })
            .collect(),
        filter_complex,
        output_dir_id: None,
    })
}

/// An option name with its value in one token (`"-c:v libx264"`) is a typical model mistake
/// that the policy would report less clearly.
fn check_tokens(answer: &str, what: &str, name: &str, options: &[String]) -> Result<(), Refusal> {
    for token in options {
        if token.starts_with('-') && token.contains(char::is_whitespace) {
            return Err(wrong(
                answer,
                Some(token),
                format!(
                    "the {what} \"{}\" has the option \"{}\" with its value in one string (each token must be its own string)",
                    show(name, 80),
                    show(token, 80)
                ),
            ));
        }
    }
    Ok(())
}

/// Why `name` is not a plain output file name, if it is not one.
pub fn file_name_problem(name: &str) -> Option<&'static str> {
    if name.trim().is_empty() {
        Some("is empty")
    } else if name.len() > 255 {
        Some("is longer than 255 bytes")
    } else if name.contains('/') || name.contains('\\') {
        Some("is a path, not a plain file name")
    } else if name == "." || name == ".." || name.contains("..") {
        Some("is not a plain file name")
    } else if name.starts_with('-') {
        Some("starts with '-'")
    } else if name.chars().any(char::is_control) {
        Some("holds control characters")
    } else if name != name.trim() {
        Some("starts or ends with a space")
    } else if name.contains("://") || name.contains("@{") {
        Some("is not a plain file name")
    } else {
        None
    }
}

/// Parses and checks a probe answer.
pub fn probe_from_answer(answer: &str) -> Result<ProbeConfig, Refusal> {
    let map = parse_object(answer)?;
    for key in crate::schema::PROBE_SECTIONS {
        match map.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::Array(fields)) if fields.iter().all(Value::is_string) => {}
            Some(_) => {
                return Err(wrong(
                    answer,
                    Some(key),
                    format!("{key} is not null or a list of field names"),
                ));
            }
        }
    }
    let p: ProbeAnswer = serde_json::from_value(Value::Object(map)).map_err(|e| {
        wrong(
            answer,
            None,
            format!("it is not a probe configuration ({e})"),
        )
    })?;
    let blank = |s: Option<String>| s.map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
    let config = ProbeConfig {
        format: p.format,
        streams: p.streams,
        chapters: p.chapters,
        programs: p.programs,
        frames: p.frames,
        packets: p.packets,
        error: p.error,
        select_streams: blank(p.select_streams),
        read_intervals: blank(p.read_intervals),
        count_frames: p.count_frames,
        skip_frame: blank(p.skip_frame),
        analyzeduration: blank(p.analyzeduration),
        probesize: blank(p.probesize),
    };
    let sections = [
        &config.format,
        &config.streams,
        &config.chapters,
        &config.programs,
        &config.frames,
        &config.packets,
        &config.error,
    ];
    if sections.iter().all(|s| s.is_none()) {
        return Err(wrong(
            answer,
            None,
            "it asks for no section (format, streams, …)",
        ));
    }
    Ok(config)
}
