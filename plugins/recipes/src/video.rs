//! Recipes that re-encode video for a place: `web` (H.264/AAC MP4 with faststart, and WebM) and
//! `vertical` (9:16 with a blurred fill instead of black bars).

use mediaforge_plugin::serde_json::{Value, json};
use mediaforge_plugin::{InputFacts, Next, Refusal, Step, StepResult};
use serde::Deserialize;

use super::{
    Recipe, boolean, done, input, integer, object, output, picture, stream, strings, task,
};

pub const WEB: Recipe = Recipe {
    name: "web",
    description: "Web video: H.264/AAC MP4 with faststart, and a VP9/Opus WebM, no larger than max_height",
    schema: || {
        object(json!({
            "max_height": integer(144, 2160, 1080, "Largest height; the input is never upscaled"),
            "crf": integer(15, 40, 23, "x264 quality (lower is better)"),
            "webm": boolean(true, "Also make a WebM (VP9/Opus)"),
        }))
    },
    example: || json!({"max_height": 720, "webm": false}),
    inputs: (1, 1),
    plan: web,
};

#[derive(Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Web {
    max_height: u32,
    crf: u32,
    webm: bool,
}

impl Default for Web {
    fn default() -> Self {
        Web {
            max_height: 1080,
            crf: 23,
            webm: true,
        }
    }
}

fn web(params: &Value, inputs: &[InputFacts], results: &[StepResult]) -> Result<Next, Refusal> {
    let p: Web = super::params(params)?;
    let source = &inputs[0];
    let (_, h, _) = picture(source)?;
    if !results.is_empty() {
        return done(Value::Null);
    }
    let audio = stream(source, "audio").is_some();
    let height = h.min(p.max_height) / 2 * 2;
    let vf = format!("scale=-2:{height},setsar=1,format=yuv420p");
    let maps: Vec<&str> = if audio {
        vec!["0:v:0", "0:a:0"]
    } else {
        vec!["0:v:0"]
    };
    let mut mp4 = strings(&[
        "-vf",
        &vf,
        "-c:v",
        "libx264",
        "-preset",
        "veryfast",
        "-crf",
        &p.crf.to_string(),
        "-profile:v",
        "high",
        "-movflags",
        "+faststart",
    ]);
    if audio {
        mp4.extend(strings(&["-c:a", "aac", "-b:a", "128k", "-ac", "2"]));
    }
    let mut outputs = vec![output("web.mp4", mp4, &maps)];
    if p.webm {
        let mut webm = strings(&[
            "-vf",
            &vf,
            "-c:v",
            "libvpx-vp9",
            "-b:v",
            "0",
            "-crf",
            &(p.crf + 10).to_string(),
            "-deadline",
            "realtime",
            "-cpu-used",
            "8",
        ]);
        if audio {
            webm.extend(strings(&["-c:a", "libopus", "-b:a", "96k"]));
        }
        outputs.push(output("web.webm", webm, &maps));
    }
    Ok(Next::Steps(vec![Step::Ffmpeg(task(
        vec![input(&source.name, &[])],
        None,
        outputs,
    ))]))
}

pub const VERTICAL: Recipe = Recipe {
    name: "vertical",
    description: "A 9:16 vertical video: the whole picture over a blurred, cropped copy of itself instead of black bars",
    schema: || {
        object(json!({
            "height": integer(320, 1920, 1280, "Output height (width is 9/16 of it)"),
            "blur": integer(1, 100, 20, "Strength of the background blur"),
        }))
    },
    example: || json!({"height": 1280}),
    inputs: (1, 1),
    plan: vertical,
};

#[derive(Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Vertical {
    height: u32,
    blur: u32,
}

impl Default for Vertical {
    fn default() -> Self {
        Vertical {
            height: 1280,
            blur: 20,
        }
    }
}

fn vertical(
    params: &Value,
    inputs: &[InputFacts],
    results: &[StepResult],
) -> Result<Next, Refusal> {
    let p: Vertical = super::params(params)?;
    let source = &inputs[0];
    picture(source)?;
    if !results.is_empty() {
        return done(Value::Null);
    }
    let h = p.height / 2 * 2;
    let w = (h * 9 / 16) / 2 * 2;
    let graph = format!(
        "[0:v:0]split[bg][fg];[bg]scale={w}:{h}:force_original_aspect_ratio=increase,crop={w}:{h},gblur=sigma={}[b];\
         [fg]scale={w}:{h}:force_original_aspect_ratio=decrease[f];[b][f]overlay=(W-w)/2:(H-h)/2,setsar=1,format=yuv420p[v]",
        p.blur
    );
    let audio = stream(source, "audio").is_some();
    let mut args = strings(&[
        "-c:v",
        "libx264",
        "-preset",
        "veryfast",
        "-crf",
        "23",
        "-movflags",
        "+faststart",
    ]);
    let mut maps = vec!["[v]"];
    if audio {
        args.extend(strings(&["-c:a", "aac", "-b:a", "128k"]));
        maps.push("0:a:0");
    }
    Ok(Next::Steps(vec![Step::Ffmpeg(task(
        vec![input(&source.name, &[])],
        Some(graph),
        vec![output("vertical.mp4", args, &maps)],
    ))]))
}
