//! Recipes that make pictures: `storyboard` (sprite sheets and the WebVTT players read beside
//! them), `thumbnails`, `gif` and `waveform` (a PNG and audiowaveform-format peaks).

use mediaforge_plugin::serde_json::{Value, json};
use mediaforge_plugin::{InputFacts, Next, Refusal, Step, StepResult, refusal};
use serde::Deserialize;

use super::{
    Recipe, boolean, done, duration, height_for, input, integer, number, object, one_of, output,
    picture, secs, stream, strings, task, text,
};

pub const STORYBOARD: Recipe = Recipe {
    name: "storyboard",
    description: "Sprite sheets of frames at a fixed interval, and a WebVTT storyboard whose cues point into them (#xywh=)",
    schema: || {
        object(json!({
            "interval_s": number(0.5, 600.0, 5.0, "Seconds between frames"),
            "width": integer(40, 640, 160, "Width of one frame in the sheet"),
            "columns": integer(1, 20, 10, "Frames per row of a sheet"),
            "rows": integer(1, 20, 10, "Rows per sheet"),
        }))
    },
    example: || json!({"interval_s": 2, "width": 160}),
    inputs: (1, 1),
    plan: storyboard,
};

#[derive(Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Board {
    interval_s: f64,
    width: u32,
    columns: u32,
    rows: u32,
}

impl Default for Board {
    fn default() -> Self {
        Board {
            interval_s: 5.0,
            width: 160,
            columns: 10,
            rows: 10,
        }
    }
}

/// Most frames a storyboard holds (a sheet a hundred, ten sheets).
const MAX_FRAMES: f64 = 1000.0;

fn storyboard(
    params: &Value,
    inputs: &[InputFacts],
    results: &[StepResult],
) -> Result<Next, Refusal> {
    let b: Board = super::params(params)?;
    let source = &inputs[0];
    let (w, h, _) = picture(source)?;
    let length = duration(source)?;
    let interval = b.interval_s.max(length / MAX_FRAMES);
    let (fw, fh) = (b.width, height_for(b.width, (w, h)));
    let Some(sheets) = results.first() else {
        let graph = format!(
            "fps=1/{interval},scale={fw}:{fh},setsar=1,tile={}x{}",
            b.columns, b.rows
        );
        return Ok(Next::Steps(vec![Step::Ffmpeg(task(
            vec![input(&source.name, &[])],
            None,
            vec![output(
                "sprite_%03d.jpg",
                strings(&["-vf", &graph, "-q:v", "4"]),
                &[],
            )],
        ))]));
    };
    if results.len() > 1 {
        return done(json!({"frames": cue_count(length, interval, sheets.files.len(), &b)}));
    }
    let per_sheet = b.columns * b.rows;
    let count = cue_count(length, interval, sheets.files.len(), &b);
    let mut vtt = String::from("WEBVTT\n");
    for i in 0..count {
        let start = i as f64 * interval;
        let end = (start + interval).min(length);
        let sheet = &sheets.files[(i / per_sheet) as usize];
        let at = i % per_sheet;
        let (x, y) = ((at % b.columns) * fw, (at / b.columns) * fh);
        vtt.push_str(&format!(
            "\n{} --> {}\n{sheet}#xywh={x},{y},{fw},{fh}\n",
            vtt_time(start),
            vtt_time(end)
        ));
    }
    Ok(Next::Steps(vec![text("storyboard.vtt", vtt)]))
}

/// Cues for the frames the sheets hold: one per interval of the input, at most what was made.
fn cue_count(length: f64, interval: f64, sheets: usize, b: &Board) -> u32 {
    let wanted = (length / interval).ceil().max(1.0) as u32;
    wanted.min(sheets as u32 * b.columns * b.rows)
}

/// `HH:MM:SS.mmm`, as WebVTT writes a cue's times.
pub(crate) fn vtt_time(t: f64) -> String {
    let ms = (t.max(0.0) * 1000.0).round() as u64;
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000
    )
}

pub const THUMBNAILS: Recipe = Recipe {
    name: "thumbnails",
    description: "Thumbnails: N evenly spaced or at given times, optionally the most representative frame near each",
    schema: || {
        object(json!({
            "count": integer(1, 30, 5, "How many, evenly spaced (ignored when times are given)"),
            "times": {"type": "array", "items": {"type": "number", "minimum": 0}, "maxItems": 30,
                      "description": "Times in seconds; each must lie within the input"},
            "width": integer(16, 1920, 320, "Width of each thumbnail"),
            "representative": boolean(false, "Pick the most representative frame of the second around each time"),
            "format": one_of(&["jpg", "png", "webp"], "jpg", "Picture format"),
        }))
    },
    example: || json!({"count": 3, "width": 320}),
    inputs: (1, 1),
    plan: thumbnails,
};

#[derive(Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Thumbs {
    count: u32,
    times: Option<Vec<f64>>,
    width: u32,
    representative: bool,
    format: String,
}

impl Default for Thumbs {
    fn default() -> Self {
        Thumbs {
            count: 5,
            times: None,
            width: 320,
            representative: false,
            format: "jpg".into(),
        }
    }
}

fn thumbnails(
    params: &Value,
    inputs: &[InputFacts],
    results: &[StepResult],
) -> Result<Next, Refusal> {
    let t: Thumbs = super::params(params)?;
    let source = &inputs[0];
    let (w, h, fps) = picture(source)?;
    let length = duration(source)?;
    let times: Vec<f64> = match &t.times {
        Some(times) if !times.is_empty() => {
            if let Some(late) = times.iter().find(|&&at| at >= length) {
                return Err(refusal(
                    "times",
                    format!(
                        "times: {late} s is past the end of '{}' ({length:.3} s)",
                        source.name
                    ),
                ));
            }
            times.clone()
        }
        _ => (0..t.count)
            .map(|i| length * (i as f64 + 0.5) / t.count as f64)
            .collect(),
    };
    if let Some(made) = results.first() {
        return done(json!({
            "thumbnails": made.files.iter().zip(&times).map(|(f, at)| json!({"file": f, "time_s": at})).collect::<Vec<_>>(),
        }));
    }
    let height = height_for(t.width, (w, h));
    let window = 1.0_f64.min(length / times.len() as f64);
    let mut inputs_ = Vec::new();
    let mut outputs = Vec::new();
    for (i, at) in times.iter().enumerate() {
        let start = if t.representative {
            (at - window / 2.0).max(0.0)
        } else {
            *at
        };
        let mut opts = vec!["-ss".to_string(), secs(start)];
        if t.representative {
            opts.extend(["-t".to_string(), secs(window)]);
        }
        inputs_.push(mediaforge_plugin::TaskInput {
            file_path: source.name.clone(),
            options: opts,
        });
        let frames = (window * fps).round().max(2.0) as u32;
        let vf = if t.representative {
            format!("thumbnail={frames},scale={}:{height},setsar=1", t.width)
        } else {
            format!("scale={}:{height},setsar=1", t.width)
        };
        let map = format!("{i}:v:0");
        outputs.push(output(
            &format!("thumb_{:02}.{}", i + 1, t.format),
            strings(&["-vf", &vf, "-frames:v", "1", "-update", "1"]),
            &[&map],
        ));
    }
    Ok(Next::Steps(vec![Step::Ffmpeg(task(
        inputs_, None, outputs,
    ))]))
}

pub const GIF: Recipe = Recipe {
    name: "gif",
    description: "An animated GIF of a clip, with a palette made for it (two-pass palettegen/paletteuse)",
    schema: || {
        object(json!({
            "start_s": number(0.0, 86400.0, 0.0, "Where the clip starts"),
            "duration_s": number(0.1, 30.0, 5.0, "How long it lasts"),
            "fps": integer(1, 30, 12, "Frames per second"),
            "width": integer(16, 1280, 480, "Width"),
        }))
    },
    example: || json!({"start_s": 1, "duration_s": 3, "width": 320}),
    inputs: (1, 1),
    plan: gif,
};

#[derive(Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Gif {
    start_s: f64,
    duration_s: f64,
    fps: u32,
    width: u32,
}

impl Default for Gif {
    fn default() -> Self {
        Gif {
            start_s: 0.0,
            duration_s: 5.0,
            fps: 12,
            width: 480,
        }
    }
}

fn gif(params: &Value, inputs: &[InputFacts], results: &[StepResult]) -> Result<Next, Refusal> {
    let g: Gif = super::params(params)?;
    let source = &inputs[0];
    picture(source)?;
    let length = duration(source)?;
    if g.start_s >= length {
        return Err(refusal(
            "start_s",
            format!(
                "start_s: {} s is past the end of '{}' ({length:.3} s)",
                g.start_s, source.name
            ),
        ));
    }
    if !results.is_empty() {
        return done(Value::Null);
    }
    let graph = format!(
        "[0:v]fps={},scale={}:-2:flags=lanczos,split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=dither=bayer:bayer_scale=4[out]",
        g.fps, g.width
    );
    Ok(Next::Steps(vec![Step::Ffmpeg(task(
        vec![input(
            &source.name,
            &["-ss", &secs(g.start_s), "-t", &secs(g.duration_s)],
        )],
        Some(graph),
        vec![output("clip.gif", strings(&["-loop", "0"]), &["[out]"])],
    ))]))
}

pub const WAVEFORM: Recipe = Recipe {
    name: "waveform",
    description: "A waveform picture (PNG) and its peaks as JSON in BBC audiowaveform's format (peaks.js, wavesurfer.js)",
    schema: || {
        object(json!({
            "width": integer(100, 8000, 1800, "Width of the picture"),
            "height": integer(50, 2000, 280, "Height of the picture"),
            "color": {"type": "string", "pattern": "^#[0-9a-fA-F]{6}$", "default": "#3a7bd5", "description": "Colour of the wave"},
            "pixels_per_second": integer(1, 200, 20, "Peaks per second in the JSON (fewer for long inputs: at most 4000 peaks)"),
        }))
    },
    example: || json!({"width": 1200, "height": 200}),
    inputs: (1, 1),
    plan: waveform,
};

#[derive(Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Wave {
    width: u32,
    height: u32,
    color: String,
    pixels_per_second: u32,
}

impl Default for Wave {
    fn default() -> Self {
        Wave {
            width: 1800,
            height: 280,
            color: "#3a7bd5".into(),
            pixels_per_second: 20,
        }
    }
}

/// Most peaks the JSON holds: longer inputs get more samples per peak.
const MAX_PEAKS: f64 = 4000.0;

fn waveform(
    params: &Value,
    inputs: &[InputFacts],
    results: &[StepResult],
) -> Result<Next, Refusal> {
    let wv: Wave = super::params(params)?;
    let source = &inputs[0];
    let audio = stream(source, "audio").ok_or_else(|| {
        refusal(
            source.name.clone(),
            format!("'{}' has no audio stream", source.name),
        )
    })?;
    let length = duration(source)?;
    let rate = audio.sample_rate.unwrap_or(44_100).max(1);
    let per_peak = (rate / wv.pixels_per_second.max(1))
        .max((length * rate as f64 / MAX_PEAKS).ceil() as u32)
        .max(1);
    match results.len() {
        0 => {
            let color = wv.color.trim_start_matches('#');
            let picture = format!(
                "[0:a:0]aformat=channel_layouts=mono,showwavespic=s={}x{}:colors=0x{color}[pic]",
                wv.width, wv.height
            );
            let measure = format!(
                "aresample={rate},aformat=sample_fmts=s16:channel_layouts=mono,asetnsamples=n={per_peak}:p=0,astats=metadata=1:reset=1:measure_perchannel=none:measure_overall=Min_level+Max_level,ametadata=mode=print"
            );
            Ok(Next::Steps(vec![
                Step::Ffmpeg(task(
                    vec![input(&source.name, &[])],
                    Some(picture),
                    vec![output(
                        "waveform.png",
                        strings(&["-frames:v", "1"]),
                        &["[pic]"],
                    )],
                )),
                Step::Analysis(task(
                    vec![input(&source.name, &[])],
                    None,
                    vec![output(
                        "peaks.null",
                        strings(&["-af", &measure, "-f", "null"]),
                        &["0:a:0"],
                    )],
                )),
            ]))
        }
        2 => {
            let data = peaks(&results[1].output);
            let doc = json!({
                "version": 2,
                "channels": 1,
                "sample_rate": rate,
                "samples_per_pixel": per_peak,
                "bits": 8,
                "length": data.len() / 2,
                "data": data,
            });
            Ok(Next::Steps(vec![text("peaks.json", doc.to_string())]))
        }
        _ => done(json!({"samples_per_pixel": per_peak, "sample_rate": rate})),
    }
}

/// Min and max of each window from `ametadata`'s log, as 8-bit values (the s16 sample >> 8).
pub(crate) fn peaks(log: &str) -> Vec<i32> {
    let value = |line: &str, key: &str| -> Option<f64> {
        line.split_once(key)?
            .1
            .trim_start_matches('=')
            .trim()
            .parse()
            .ok()
    };
    let mut data = Vec::new();
    let mut min = None;
    for line in log.lines() {
        if let Some(v) = value(line, "lavfi.astats.Overall.Min_level") {
            min = Some(v);
        } else if let Some(v) = value(line, "lavfi.astats.Overall.Max_level") {
            if let Some(lo) = min.take() {
                let eight = |s: f64| ((s / 256.0).round() as i32).clamp(-128, 127);
                data.push(eight(lo));
                data.push(eight(v));
            }
        }
    }
    data
}
