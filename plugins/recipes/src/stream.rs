//! `hls` and `dash`: an adaptive ladder from one decode. Each rung is scaled from one `split`
//! of the input's video (never above the input's height), every rendition gets keyframes at the
//! same times (`-force_key_frames` on the segment length, no scene-cut keyframes), so segments
//! align across renditions and a player can switch at any segment boundary.

use mediaforge_plugin::serde_json::{Value, json};
use mediaforge_plugin::{InputFacts, Next, Refusal, Step, StepResult, refusal};
use serde::Deserialize;

use super::{
    Recipe, boolean, done, input, integer, object, one_of, output, picture, stream, task, text,
    width_for,
};

pub const HLS: Recipe = Recipe {
    name: "hls",
    description: "Adaptive HLS: an H.264 ladder chosen from the input, a master playlist, playable from its playback_url",
    schema: || schema(true),
    example: || json!({"rungs": [720, 480, 360], "segment_s": 4}),
    inputs: (1, 1),
    plan: |p, inputs, results| plan(p, inputs, results, Kind::Hls),
};

pub const DASH: Recipe = Recipe {
    name: "dash",
    description: "Adaptive DASH: an H.264 ladder chosen from the input in CMAF segments and an MPD, playable from its playback_url",
    schema: || schema(false),
    example: || json!({"rungs": [720, 360], "segment_s": 4}),
    inputs: (1, 1),
    plan: |p, inputs, results| plan(p, inputs, results, Kind::Dash),
};

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Hls,
    Dash,
}

#[derive(Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Params {
    rungs: Vec<u32>,
    segment_s: u32,
    audio_kbps: u32,
    preset: String,
    fmp4: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            rungs: vec![1080, 720, 480, 360],
            segment_s: 4,
            audio_kbps: 128,
            preset: "veryfast".into(),
            fmp4: false,
        }
    }
}

fn schema(hls: bool) -> Value {
    let mut properties = json!({
        "rungs": {
            "type": "array",
            "items": {"type": "integer", "minimum": 144, "maximum": 2160},
            "minItems": 1, "maxItems": 6, "uniqueItems": true,
            "default": [1080, 720, 480, 360],
            "description": "Heights of the renditions; those above the input's height are left out (never upscaled)"
        },
        "segment_s": integer(1, 20, 4, "Segment length in seconds (keyframes every segment)"),
        "audio_kbps": integer(32, 320, 128, "AAC bit rate of the audio, kbit/s"),
        "preset": one_of(&["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow"], "veryfast", "x264 preset"),
    });
    if hls {
        properties["fmp4"] = boolean(false, "fMP4 (CMAF) segments instead of MPEG-TS");
    }
    object(properties)
}

/// A rung: its height, width and video bit rate (kbit/s).
struct Rung {
    height: u32,
    width: u32,
    kbps: u32,
}

/// The bit rate for a height at 30 fps or less (Apple's HLS authoring figures, rounded).
fn kbps_for(height: u32, fps: f64) -> u32 {
    let base = match height {
        h if h >= 2160 => 14000,
        h if h >= 1440 => 9000,
        h if h >= 1080 => 5000,
        h if h >= 720 => 2800,
        h if h >= 540 => 1800,
        h if h >= 480 => 1400,
        h if h >= 360 => 800,
        h if h >= 240 => 450,
        _ => 250,
    };
    if fps > 31.0 { base * 3 / 2 } else { base }
}

/// The H.264 level for a picture (high profile), as the CODECS attribute names it.
fn level(width: u32, height: u32, fps: f64) -> (&'static str, &'static str) {
    let macroblocks_per_s = (width.div_ceil(16) * height.div_ceil(16)) as f64 * fps;
    match macroblocks_per_s {
        m if m <= 108_000.0 => ("3.1", "avc1.64001f"),
        m if m <= 216_000.0 => ("3.2", "avc1.640020"),
        m if m <= 245_760.0 => ("4.0", "avc1.640028"),
        m if m <= 522_240.0 => ("4.2", "avc1.64002a"),
        _ => ("5.1", "avc1.640033"),
    }
}

fn ladder(p: &Params, size: (u32, u32), fps: f64) -> Vec<Rung> {
    let mut heights: Vec<u32> = p.rungs.iter().copied().filter(|h| *h <= size.1).collect();
    if heights.is_empty() {
        // Every rung is above the input: one rendition at the input's own height.
        heights.push(size.1 / 2 * 2);
    }
    heights.sort_unstable_by(|a, b| b.cmp(a));
    heights.dedup();
    heights
        .into_iter()
        .map(|h| Rung {
            height: h,
            width: width_for(h, size),
            kbps: kbps_for(h, fps),
        })
        .collect()
}

fn plan(
    params: &Value,
    inputs: &[InputFacts],
    results: &[StepResult],
    kind: Kind,
) -> Result<Next, Refusal> {
    let p: Params = super::params(params)?;
    let source = &inputs[0];
    let (w, h, fps) = picture(source)?;
    let audio = stream(source, "audio").is_some();
    let rungs = ladder(&p, (w, h), fps);
    if !results.is_empty() {
        return done(json!({
            "renditions": rungs.iter().map(|r| json!({
                "width": r.width, "height": r.height, "video_kbps": r.kbps,
            })).collect::<Vec<_>>(),
            "segment_s": p.segment_s,
            "playlist": if kind == Kind::Hls { "master.m3u8" } else { "manifest.mpd" },
        }));
    }
    if p.segment_s == 0 {
        return Err(refusal("segment_s", "segment_s must be at least 1"));
    }
    let n = rungs.len();
    let mut graph = format!("[0:v]split={n}");
    for i in 0..n {
        graph.push_str(&format!("[s{i}]"));
    }
    for (i, r) in rungs.iter().enumerate() {
        graph.push_str(&format!(
            ";[s{i}]scale={}:{},setdar={w}/{h}[v{i}]",
            r.width, r.height
        ));
    }
    let keyframes = format!("expr:gte(t,n_forced*{})", p.segment_s);
    let video = || -> Vec<String> {
        vec![
            "-c:v".into(),
            "libx264".into(),
            "-preset".into(),
            p.preset.clone(),
            "-profile:v".into(),
            "high".into(),
            "-force_key_frames".into(),
            keyframes.clone(),
            "-sc_threshold".into(),
            "0".into(),
            "-pix_fmt".into(),
            "yuv420p".into(),
        ]
    };
    let audio_args = |args: &mut Vec<String>| {
        if audio {
            args.extend(
                [
                    "-c:a",
                    "aac",
                    "-b:a",
                    &format!("{}k", p.audio_kbps),
                    "-ac",
                    "2",
                ]
                .map(String::from),
            );
        }
    };
    let step = match kind {
        Kind::Hls => {
            let mut outputs = Vec::new();
            for (i, r) in rungs.iter().enumerate() {
                let mut args = video();
                args.extend(rate_args(":v", r.kbps));
                args.extend(["-level:v".into(), level(r.width, r.height, fps).0.into()]);
                audio_args(&mut args);
                let ext = if p.fmp4 { "m4s" } else { "ts" };
                args.extend(
                    [
                        "-f",
                        "hls",
                        "-hls_time",
                        &p.segment_s.to_string(),
                        "-hls_playlist_type",
                        "vod",
                        "-hls_segment_filename",
                        &format!("v{i}_%04d.{ext}"),
                    ]
                    .map(String::from),
                );
                if p.fmp4 {
                    args.extend(
                        [
                            "-hls_segment_type",
                            "fmp4",
                            "-hls_fmp4_init_filename",
                            &format!("v{i}_init.mp4"),
                        ]
                        .map(String::from),
                    );
                }
                let label = format!("[v{i}]");
                let maps: Vec<&str> = if audio {
                    vec![&label, "0:a:0"]
                } else {
                    vec![&label]
                };
                outputs.push(output(&format!("v{i}.m3u8"), args, &maps));
            }
            Step::Ffmpeg(task(vec![input(&source.name, &[])], Some(graph), outputs))
        }
        Kind::Dash => {
            let mut args = video();
            for (i, r) in rungs.iter().enumerate() {
                args.extend(rate_args(&format!(":v:{i}"), r.kbps));
                args.extend([
                    format!("-level:v:{i}"),
                    level(r.width, r.height, fps).0.into(),
                ]);
            }
            audio_args(&mut args);
            let sets = if audio {
                "id=0,streams=v id=1,streams=a"
            } else {
                "id=0,streams=v"
            };
            args.extend(
                [
                    "-f",
                    "dash",
                    "-seg_duration",
                    &p.segment_s.to_string(),
                    "-use_template",
                    "1",
                    "-use_timeline",
                    "1",
                    "-adaptation_sets",
                    sets,
                ]
                .map(String::from),
            );
            let labels: Vec<String> = (0..n).map(|i| format!("[v{i}]")).collect();
            let mut maps: Vec<&str> = labels.iter().map(String::as_str).collect();
            if audio {
                maps.push("0:a:0");
            }
            Step::Ffmpeg(task(
                vec![input(&source.name, &[])],
                Some(graph),
                vec![output("manifest.mpd", args, &maps)],
            ))
        }
    };
    let mut steps = vec![step];
    if kind == Kind::Hls {
        steps.push(text("master.m3u8", master(&rungs, fps, audio, &p)));
    }
    Ok(Next::Steps(steps))
}

/// Capped VBR: peaks at 110% of the rung's rate, a buffer of one and a half times it.
fn rate_args(spec: &str, kbps: u32) -> Vec<String> {
    vec![
        format!("-b{spec}"),
        format!("{kbps}k"),
        format!("-maxrate{spec}"),
        format!("{}k", kbps * 11 / 10),
        format!("-bufsize{spec}"),
        format!("{}k", kbps * 3 / 2),
    ]
}

/// The master playlist: one variant per rung, with its peak bandwidth, size and codecs.
fn master(rungs: &[Rung], fps: f64, audio: bool, p: &Params) -> String {
    use m3u8_rs::{MasterPlaylist, Resolution, VariantStream};
    let variants = rungs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let (_, codec) = level(r.width, r.height, fps);
            let audio_bps = if audio { p.audio_kbps as u64 * 1000 } else { 0 };
            VariantStream {
                uri: format!("v{i}.m3u8"),
                bandwidth: r.kbps as u64 * 1100 + audio_bps,
                average_bandwidth: Some(r.kbps as u64 * 1000 + audio_bps),
                codecs: Some(if audio {
                    format!("{codec},mp4a.40.2")
                } else {
                    codec.to_string()
                }),
                resolution: Some(Resolution {
                    width: r.width as u64,
                    height: r.height as u64,
                }),
                frame_rate: Some((fps * 1000.0).round() / 1000.0),
                ..Default::default()
            }
        })
        .collect();
    let playlist = MasterPlaylist {
        version: Some(if p.fmp4 { 7 } else { 3 }),
        independent_segments: true,
        variants,
        ..Default::default()
    };
    let mut out = Vec::new();
    playlist
        .write_to(&mut out)
        .expect("writing to a Vec cannot fail");
    String::from_utf8(out).expect("m3u8-rs writes UTF-8")
}
