//! A recipe plugin that asks the host for what no step may do, one recipe an attempt: read a
//! host file through a filter, name a host path or a URL as a step's input, write a file outside
//! the output directory, keep an analysis's output, and never finish. The host must fail each
//! recipe naming the step, and keep nothing it should not. Loaded as an extra recipe plugin, its
//! `thumbnails` (which only says so) replaces the built-in one of that name, and its `probe`
//! (no built-in recipe has a probe step) hands ffprobe's answer back as its data.

use mediaforge_plugin::serde_json::{Value, json};
use mediaforge_plugin::{
    InputFacts, Next, NoConfig, ProbeConfig, ProbeStep, RecipeInfo, Recipes, Refusal, Step,
    StepResult, Task, TaskInput, TaskOutput, TextFile,
};

pub struct Hostile;

const NAMES: &[&str] = &[
    "filter-file",
    "host-path",
    "url",
    "escape",
    "kept-analysis",
    "endless",
    "thumbnails",
    "probe",
];

fn task(input: &str, graph: Option<&str>, file: &str, options: &[&str]) -> Task {
    Task {
        inputs: vec![TaskInput {
            file_path: input.into(),
            options: vec![],
        }],
        outputs: vec![TaskOutput {
            file: file.into(),
            options: options.iter().map(|s| s.to_string()).collect(),
            maps: vec![],
        }],
        filter_complex: graph.map(str::to_string),
        output_dir_id: None,
    }
}

/// ffprobe's `format.duration` alone.
fn duration_only() -> ProbeConfig {
    ProbeConfig {
        format: Some(vec!["duration".into()]),
        streams: None,
        chapters: None,
        programs: None,
        frames: None,
        packets: None,
        error: None,
        select_streams: None,
        read_intervals: None,
        count_frames: None,
        skip_frame: None,
        analyzeduration: None,
        probesize: None,
    }
}

impl Recipes for Hostile {
    type Config = NoConfig;

    fn recipes(_: &NoConfig) -> Vec<RecipeInfo> {
        NAMES
            .iter()
            .map(|n| RecipeInfo {
                name: n.to_string(),
                description: "hostile".into(),
                params_schema: json!({"type": "object"}).to_string(),
                example: "{}".into(),
                min_inputs: 1,
                max_inputs: 1,
            })
            .collect()
    }

    fn plan(
        _: &NoConfig,
        recipe: &str,
        _: &Value,
        inputs: Vec<InputFacts>,
        results: Vec<StepResult>,
    ) -> Result<Next, Refusal> {
        if recipe == "thumbnails" {
            return Ok(Next::Done(
                json!({"planned_by": "hostile-recipe"}).to_string(),
            ));
        }
        if recipe == "probe" {
            return Ok(match results.first() {
                None => Next::Steps(vec![Step::Probe(ProbeStep {
                    input: inputs[0].name.clone(),
                    probe: duration_only(),
                })]),
                Some(probed) => Next::Done(probed.output.clone()),
            });
        }
        let me = inputs[0].name.as_str();
        // A harmless first step, so the failing one is step 2.
        if results.is_empty() && recipe != "endless" {
            return Ok(Next::Steps(vec![Step::Text(TextFile {
                file: "first.txt".into(),
                content: "ok".into(),
            })]));
        }
        let step = match recipe {
            "filter-file" => Step::Ffmpeg(task(me, None, "out.mp4", &["-vf", "movie=/etc/passwd"])),
            "host-path" => Step::Ffmpeg(task("/etc/passwd", None, "out.txt", &[])),
            "url" => Step::Ffmpeg(task("https://example.com/a.mp4", None, "out.mp4", &[])),
            "escape" => Step::Text(TextFile {
                file: "../escaped.txt".into(),
                content: "x".into(),
            }),
            "kept-analysis" => Step::Analysis(task(me, None, "kept.mp4", &["-c", "copy"])),
            _ => Step::Text(TextFile {
                file: format!("again-{}.txt", results.len()),
                content: "x".into(),
            }),
        };
        Ok(Next::Steps(vec![step]))
    }
}

mediaforge_plugin::export_recipes!(Hostile);
