//! Recipes about sound: `loudness` (two-pass EBU R128 normalisation, measured before and after)
//! and `audiogram` (a sound and a picture into a video with a moving waveform).

use mediaforge_plugin::serde_json::{Value, json};
use mediaforge_plugin::{InputFacts, Next, Refusal, Step, StepResult, refusal};
use serde::Deserialize;

use super::{
    Recipe, done, input, integer, number, object, one_of, output, picture, stream, strings, task,
};
use crate::analyze::loudnorm_json;

pub const LOUDNESS: Recipe = Recipe {
    name: "loudness",
    description: "Two-pass EBU R128 loudness normalisation to a target; the loudness measured before and after comes back in data",
    schema: || {
        object(json!({
            "i": number(-70.0, -5.0, -16.0, "Target integrated loudness, LUFS"),
            "tp": number(-9.0, 0.0, -1.5, "Maximum true peak, dBTP"),
            "lra": number(1.0, 50.0, 11.0, "Target loudness range, LU"),
            "format": one_of(&["auto", "mp4", "m4a", "wav", "flac", "mp3"], "auto", "Output container (auto: mp4 for video, m4a for sound)"),
        }))
    },
    example: || json!({"i": -16, "tp": -1.5}),
    inputs: (1, 1),
    plan: loudness,
};

#[derive(Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Target {
    i: f64,
    tp: f64,
    lra: f64,
    format: String,
}

impl Default for Target {
    fn default() -> Self {
        Target {
            i: -16.0,
            tp: -1.5,
            lra: 11.0,
            format: "auto".into(),
        }
    }
}

fn loudness(
    params: &Value,
    inputs: &[InputFacts],
    results: &[StepResult],
) -> Result<Next, Refusal> {
    let t: Target = super::params(params)?;
    let source = &inputs[0];
    if stream(source, "audio").is_none() {
        return Err(refusal(
            source.name.clone(),
            format!("'{}' has no audio stream to normalise", source.name),
        ));
    }
    let video = stream(source, "video").is_some_and(|v| v.width.is_some());
    let format = match t.format.as_str() {
        "auto" if video => "mp4",
        "auto" => "m4a",
        f => f,
    };
    if video && format != "mp4" {
        return Err(refusal(
            "format",
            format!(
                "format: '{}' has video, which {format} cannot hold; use mp4 or auto",
                source.name
            ),
        ));
    }
    let target = format!("I={}:TP={}:LRA={}", t.i, t.tp, t.lra);
    let measure = |name: &str| {
        Step::Analysis(task(
            vec![input(name, &[])],
            None,
            vec![output(
                "loudness.null",
                strings(&[
                    "-af",
                    &format!("loudnorm={target}:print_format=json"),
                    "-f",
                    "null",
                ]),
                &["0:a:0"],
            )],
        ))
    };
    let file = format!("normalized.{format}");
    match results.len() {
        0 => Ok(Next::Steps(vec![measure(&source.name)])),
        1 => {
            let m = loudnorm_json(&results[0].output).ok_or_else(|| {
                refusal(
                    "loudness",
                    "The first pass measured no loudness (is the audio silent or too short?)",
                )
            })?;
            let field = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or("0").to_string();
            // loudnorm works at 192 kHz: back to the input's rate (48 kHz when it is unknown),
            // so normalising changes the level and nothing the user did not ask for.
            let rate = stream(source, "audio")
                .and_then(|a| a.sample_rate)
                .unwrap_or(48000);
            let graph = format!(
                "loudnorm={target}:measured_I={}:measured_TP={}:measured_LRA={}:measured_thresh={}:offset={}:linear=true,aresample={rate}",
                field("input_i"),
                field("input_tp"),
                field("input_lra"),
                field("input_thresh"),
                field("target_offset"),
            );
            // The layout stated (a WAV may leave it unknown, which the encoder cannot pick for).
            let channels = stream(source, "audio")
                .and_then(|a| a.channels)
                .unwrap_or(2)
                .clamp(1, 8)
                .to_string();
            let mut args = strings(&["-af", &graph, "-ac", &channels]);
            let codec: &[&str] = match format {
                "wav" => &["-c:a", "pcm_s16le"],
                "flac" => &["-c:a", "flac"],
                "mp3" => &["-c:a", "libmp3lame", "-b:a", "192k"],
                _ => &["-c:a", "aac", "-b:a", "192k"],
            };
            args.extend(strings(codec));
            let mut maps = vec!["0:a:0"];
            if video {
                args.extend(strings(&["-c:v", "copy", "-movflags", "+faststart"]));
                maps.insert(0, "0:v:0");
            }
            Ok(Next::Steps(vec![Step::Ffmpeg(task(
                vec![input(&source.name, &[])],
                None,
                vec![output(&file, args, &maps)],
            ))]))
        }
        2 => Ok(Next::Steps(vec![measure(&file)])),
        _ => {
            let figures = |r: &StepResult| {
                let m = loudnorm_json(&r.output).unwrap_or(Value::Null);
                let num = |k: &str| {
                    m.get(k)
                        .and_then(Value::as_str)
                        .and_then(|s| s.parse::<f64>().ok())
                };
                json!({
                    "integrated_lufs": num("input_i"),
                    "true_peak_dbtp": num("input_tp"),
                    "lra_lu": num("input_lra"),
                })
            };
            done(json!({
                "target": {"integrated_lufs": t.i, "true_peak_dbtp": t.tp, "lra_lu": t.lra},
                "before": figures(&results[0]),
                "after": figures(&results[2]),
                "file": file,
            }))
        }
    }
}

pub const AUDIOGRAM: Recipe = Recipe {
    name: "audiogram",
    description: "An audiogram: a sound and a picture into a video with a moving waveform over the picture",
    schema: || {
        object(json!({
            "width": integer(160, 1920, 1080, "Video width"),
            "height": integer(160, 1920, 1080, "Video height"),
            "wave_height": integer(20, 800, 240, "Height of the waveform band at the bottom"),
            "color": {"type": "string", "pattern": "^#[0-9a-fA-F]{6}$", "default": "#ffffff", "description": "Colour of the wave"},
        }))
    },
    example: || json!({"width": 720, "height": 720}),
    inputs: (2, 2),
    plan: audiogram,
};

#[derive(Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Gram {
    width: u32,
    height: u32,
    wave_height: u32,
    color: String,
}

impl Default for Gram {
    fn default() -> Self {
        Gram {
            width: 1080,
            height: 1080,
            wave_height: 240,
            color: "#ffffff".into(),
        }
    }
}

fn audiogram(
    params: &Value,
    inputs: &[InputFacts],
    results: &[StepResult],
) -> Result<Next, Refusal> {
    let g: Gram = super::params(params)?;
    // The sound is the input with audio; the picture the other (in either order).
    let sound = inputs
        .iter()
        .position(|i| stream(i, "audio").is_some())
        .ok_or_else(|| refusal("inputs", "Neither input has an audio stream"))?;
    let image = 1 - sound;
    picture(&inputs[image])?;
    if !results.is_empty() {
        return done(Value::Null);
    }
    let (w, h) = (g.width / 2 * 2, g.height / 2 * 2);
    let band = g.wave_height.min(h) / 2 * 2;
    let color = g.color.trim_start_matches('#');
    let graph = format!(
        "[1:v]scale={w}:{h}:force_original_aspect_ratio=increase,crop={w}:{h},setsar=1,format=yuv420p[bg];\
         [0:a:0]showwaves=s={w}x{band}:mode=cline:rate=25:colors=0x{color},format=yuva420p[wave];\
         [bg][wave]overlay=0:{}:shortest=1[v]",
        h - band
    );
    let mut sorted = vec![input(&inputs[sound].name, &[])];
    sorted.push(input(
        &inputs[image].name,
        &["-loop", "1", "-framerate", "25"],
    ));
    Ok(Next::Steps(vec![Step::Ffmpeg(task(
        sorted,
        Some(graph),
        vec![output(
            "audiogram.mp4",
            strings(&[
                "-c:v",
                "libx264",
                "-preset",
                "veryfast",
                "-tune",
                "stillimage",
                "-pix_fmt",
                "yuv420p",
                "-c:a",
                "aac",
                "-b:a",
                "160k",
                "-shortest",
                "-movflags",
                "+faststart",
            ]),
            &["[v]", "0:a:0"],
        )],
    ))]))
}
