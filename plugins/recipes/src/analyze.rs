//! `analyze`: scene changes, silences, black and frozen intervals and loudness, from one pass
//! of ffmpeg's detection filters, as one JSON document (in `data`, and as `analysis.json`).
//! The filters report on ffmpeg's log; the parsers here read those lines.

use mediaforge_plugin::serde_json::{self, Value, json};
use mediaforge_plugin::{InputFacts, Next, Refusal, Step, StepResult, refusal};
use serde::Deserialize;

use super::{Recipe, done, input, number, object, output, stream, strings, task, text};

pub const ANALYZE: Recipe = Recipe {
    name: "analyze",
    description: "Scene changes, silences, black and frozen intervals and loudness, as one JSON document",
    schema: || {
        object(json!({
            "scene_threshold": number(1.0, 100.0, 10.0, "Scene change score (0-100) above which a cut is reported"),
            "silence_db": number(-90.0, 0.0, -50.0, "Level below which sound is silence, dB"),
            "silence_s": number(0.05, 60.0, 0.5, "Shortest silence reported, seconds"),
            "black_s": number(0.04, 60.0, 0.5, "Shortest black interval reported, seconds"),
            "freeze_s": number(0.1, 60.0, 1.0, "Shortest frozen interval reported, seconds"),
        }))
    },
    example: || json!({"scene_threshold": 10}),
    inputs: (1, 1),
    plan: analyze,
};

#[derive(Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Params {
    scene_threshold: f64,
    silence_db: f64,
    silence_s: f64,
    black_s: f64,
    freeze_s: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            scene_threshold: 10.0,
            silence_db: -50.0,
            silence_s: 0.5,
            black_s: 0.5,
            freeze_s: 1.0,
        }
    }
}

fn analyze(params: &Value, inputs: &[InputFacts], results: &[StepResult]) -> Result<Next, Refusal> {
    let p: Params = super::params(params)?;
    let source = &inputs[0];
    let video = stream(source, "video").is_some_and(|v| v.width.is_some());
    let audio = stream(source, "audio").is_some();
    if !video && !audio {
        return Err(refusal(
            source.name.clone(),
            format!("'{}' has neither video nor audio to analyse", source.name),
        ));
    }
    match results.len() {
        0 => {
            let mut graph = Vec::new();
            let mut maps = Vec::new();
            if video {
                graph.push(format!(
                    "[0:v:0]scdet=threshold={},blackdetect=d={}:pix_th=0.10,freezedetect=n=-60dB:d={}[v]",
                    p.scene_threshold, p.black_s, p.freeze_s
                ));
                maps.push("[v]");
            }
            if audio {
                graph.push(format!(
                    "[0:a:0]silencedetect=n={}dB:d={},loudnorm=print_format=json[a]",
                    p.silence_db, p.silence_s
                ));
                maps.push("[a]");
            }
            Ok(Next::Steps(vec![Step::Analysis(task(
                vec![input(&source.name, &[])],
                Some(graph.join(";")),
                vec![output("analysis.null", strings(&["-f", "null"]), &maps)],
            ))]))
        }
        1 => {
            let doc = report(&results[0].output, source.duration, video, audio);
            Ok(Next::Steps(vec![text(
                "analysis.json",
                serde_json::to_string_pretty(&doc).unwrap_or_default(),
            )]))
        }
        _ => {
            let doc = report(&results[0].output, source.duration, video, audio);
            done(doc)
        }
    }
}

/// The document: every detection, from the log of the one pass.
pub(crate) fn report(log: &str, duration: Option<f64>, video: bool, audio: bool) -> Value {
    let loud = loudnorm_json(log);
    let num = |k: &str| {
        loud.as_ref()
            .and_then(|m| m.get(k))
            .and_then(Value::as_str)
            .and_then(|s| s.parse::<f64>().ok())
            .filter(|v| v.is_finite())
    };
    json!({
        "duration_s": duration,
        "scenes": if video { json!(scenes(log)) } else { Value::Null },
        "black": if video { json!(intervals(log, "black_start:", "black_end:")) } else { Value::Null },
        "freezes": if video { json!(intervals(log, "freezedetect.freeze_start:", "freezedetect.freeze_end:")) } else { Value::Null },
        "silences": if audio { json!(intervals(log, "silence_start:", "silence_end:")) } else { Value::Null },
        "loudness": if audio { json!({
            "integrated_lufs": num("input_i"),
            "true_peak_dbtp": num("input_tp"),
            "lra_lu": num("input_lra"),
        }) } else { Value::Null },
    })
}

/// The number after `key` on a line (`black_start:2.5`, `silence_end: 3.1 | ...`).
fn after(line: &str, key: &str) -> Option<f64> {
    let rest = line.split_once(key)?.1.trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == 'e'))
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// `scdet`'s `lavfi.scd.score: S, lavfi.scd.time: T` lines.
pub(crate) fn scenes(log: &str) -> Vec<Value> {
    log.lines()
        .filter_map(|l| {
            let time = after(l, "lavfi.scd.time:")?;
            let score = after(l, "lavfi.scd.score:");
            Some(json!({"time_s": time, "score": score}))
        })
        .collect()
}

/// Intervals from start and end markers, in order; an interval still open at the end of the
/// input ends with it (`end_s` null when the filter did not say).
pub(crate) fn intervals(log: &str, start: &str, end: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut open: Option<f64> = None;
    for line in log.lines() {
        // blackdetect puts both on one line; the others one per line.
        if let Some(s) = after(line, start) {
            open = Some(s);
        }
        if let Some(e) = after(line, end) {
            if let Some(s) = open.take() {
                out.push(json!({"start_s": s, "end_s": e, "duration_s": ((e - s) * 1000.0).round() / 1000.0}));
            }
        }
    }
    if let Some(s) = open {
        out.push(json!({"start_s": s, "end_s": Value::Null, "duration_s": Value::Null}));
    }
    out
}

/// The JSON object `loudnorm=print_format=json` prints at the end of its run (its last one).
pub(crate) fn loudnorm_json(log: &str) -> Option<Value> {
    let at = log.rfind("\"input_i\"")?;
    let open = log[..at].rfind('{')?;
    let close = open + log[open..].find('}')?;
    serde_json::from_str(&log[open..=close]).ok()
}
