//! The default recipe plugin: named jobs built from ffmpeg steps (`docs/recipes.md`). Pure: it
//! reads the inputs' facts and the results of earlier steps, and returns the next steps; the
//! host runs each through its pipeline. Each recipe is a module with its parameters (a serde
//! type whose JSON Schema is published beside it) and its `plan`.

mod analyze;
mod pictures;
mod sound;
mod stream;
mod video;

use mediaforge_plugin::serde_json::{self, Value, json};
use mediaforge_plugin::{
    InputFacts, Next, NoConfig, RecipeInfo, Recipes, Refusal, Step, StepResult, StreamFacts, Task,
    TaskInput, TaskOutput, TextFile, refusal,
};
use serde::de::DeserializeOwned;

pub struct Builtins;

/// One recipe: its name, what it does, its params' schema and example, how many inputs.
struct Recipe {
    name: &'static str,
    description: &'static str,
    schema: fn() -> Value,
    example: fn() -> Value,
    inputs: (u32, u32),
    plan: fn(&Value, &[InputFacts], &[StepResult]) -> Result<Next, Refusal>,
}

const RECIPES: &[Recipe] = &[
    stream::HLS,
    stream::DASH,
    pictures::STORYBOARD,
    pictures::THUMBNAILS,
    pictures::GIF,
    pictures::WAVEFORM,
    sound::LOUDNESS,
    sound::AUDIOGRAM,
    analyze::ANALYZE,
    video::WEB,
    video::VERTICAL,
];

impl Recipes for Builtins {
    type Config = NoConfig;

    fn recipes(_: &NoConfig) -> Vec<RecipeInfo> {
        RECIPES
            .iter()
            .map(|r| RecipeInfo {
                name: r.name.into(),
                description: r.description.into(),
                params_schema: (r.schema)().to_string(),
                example: (r.example)().to_string(),
                min_inputs: r.inputs.0,
                max_inputs: r.inputs.1,
            })
            .collect()
    }

    fn plan(
        _: &NoConfig,
        recipe: &str,
        params: &Value,
        inputs: Vec<InputFacts>,
        results: Vec<StepResult>,
    ) -> Result<Next, Refusal> {
        let r = RECIPES
            .iter()
            .find(|r| r.name == recipe)
            .ok_or_else(|| refusal("recipe", format!("There is no recipe '{recipe}'")))?;
        (r.plan)(params, &inputs, &results)
    }
}

mediaforge_plugin::export_recipes!(Builtins);

/// The params as the recipe's type. The host checked them against the schema, so an error here
/// is a schema this plugin got wrong; it still names the parameter.
fn params<T: DeserializeOwned>(params: &Value) -> Result<T, Refusal> {
    serde_json::from_value(params.clone()).map_err(|e| refusal("params", format!("params: {e}")))
}

/// An object schema: `properties`, no other keys.
fn object(properties: Value) -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": properties,
        "additionalProperties": false,
    })
}

fn integer(min: i64, max: i64, default: i64, description: &str) -> Value {
    json!({"type": "integer", "minimum": min, "maximum": max, "default": default, "description": description})
}

fn number(min: f64, max: f64, default: f64, description: &str) -> Value {
    json!({"type": "number", "minimum": min, "maximum": max, "default": default, "description": description})
}

fn boolean(default: bool, description: &str) -> Value {
    json!({"type": "boolean", "default": default, "description": description})
}

fn one_of(values: &[&str], default: &str, description: &str) -> Value {
    json!({"type": "string", "enum": values, "default": default, "description": description})
}

/// The first stream of `kind` of an input.
fn stream<'a>(input: &'a InputFacts, kind: &str) -> Option<&'a StreamFacts> {
    input.streams.iter().find(|s| s.kind == kind)
}

/// The input's picture: width, height and frame rate, or a refusal naming the input.
fn picture(input: &InputFacts) -> Result<(u32, u32, f64), Refusal> {
    let v = stream(input, "video").ok_or_else(|| {
        refusal(
            input.name.clone(),
            format!("'{}' has no video stream", input.name),
        )
    })?;
    match (v.width, v.height) {
        (Some(w), Some(h)) if w > 0 && h > 0 => Ok((w, h, v.frame_rate.unwrap_or(25.0))),
        _ => Err(refusal(
            input.name.clone(),
            format!("the size of '{}' is unknown", input.name),
        )),
    }
}

/// The input's duration, or a refusal: recipes that place things in time need it.
fn duration(input: &InputFacts) -> Result<f64, Refusal> {
    input
        .duration
        .or_else(|| input.streams.iter().find_map(|s| s.duration))
        .filter(|d| *d > 0.0)
        .ok_or_else(|| {
            refusal(
                input.name.clone(),
                format!("the duration of '{}' is unknown", input.name),
            )
        })
}

/// The even width of a picture `height` high with the input's shape.
fn width_for(height: u32, (w, h): (u32, u32)) -> u32 {
    even((height as f64 * w as f64 / h as f64).round() as u32)
}

/// The even height of a picture `width` wide with the input's shape.
fn height_for(width: u32, (w, h): (u32, u32)) -> u32 {
    even((width as f64 * h as f64 / w as f64).round() as u32)
}

fn even(n: u32) -> u32 {
    (n / 2 * 2).max(2)
}

fn input(name: &str, options: &[&str]) -> TaskInput {
    TaskInput {
        file_path: name.into(),
        options: strings(options),
    }
}

fn output(file: &str, options: Vec<String>, maps: &[&str]) -> TaskOutput {
    TaskOutput {
        file: file.into(),
        options,
        maps: strings(maps),
    }
}

fn strings(s: &[&str]) -> Vec<String> {
    s.iter().map(|s| s.to_string()).collect()
}

fn task(inputs: Vec<TaskInput>, graph: Option<String>, outputs: Vec<TaskOutput>) -> Task {
    Task {
        inputs,
        outputs,
        filter_complex: graph,
        output_dir_id: None,
    }
}

fn text(file: &str, content: String) -> Step {
    Step::Text(TextFile {
        file: file.into(),
        content,
    })
}

/// Seconds as ffmpeg reads them, to the millisecond.
fn secs(t: f64) -> String {
    format!("{:.3}", t.max(0.0))
}

/// The recipe's data, done.
fn done(data: Value) -> Result<Next, Refusal> {
    Ok(Next::Done(data.to_string()))
}

#[cfg(test)]
mod tests;
