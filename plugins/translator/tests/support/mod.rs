//! Test support: fixtures made with ffmpeg's lavfi sources, input facts read with ffprobe,
//! and the ffmpeg/ffprobe argv a task or probe configuration implies (the way the host's
//! command builder lays them out: per input its options then `-i`, per output its options,
//! its maps, then the file).
#![allow(dead_code)]

pub mod policy;

use std::path::{Path, PathBuf};
use std::process::Command;

use mediaforge_plugin::{InputFacts, StreamFacts};
pub use mediaforge_plugin::{ProbeConfig, Task};
use serde_json::Value;

pub fn have_ffmpeg() -> bool {
    Command::new("ffmpeg")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The fixtures of shared/examples/nl-examples.json.
pub const FIXTURES: &[(&str, &[&str])] = &[
    (
        "clip.mp4",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=1280x720:rate=30:duration=10",
            "-f",
            "lavfi",
            "-i",
            "sine=frequency=440:sample_rate=48000:duration=10",
            "-ac",
            "2",
            "-c:v",
            "libx264",
            "-preset",
            "veryfast",
            "-pix_fmt",
            "yuv420p",
            "-c:a",
            "aac",
            "-shortest",
        ],
    ),
    (
        "short.mp4",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc=size=320x240:rate=30:duration=2",
            "-f",
            "lavfi",
            "-i",
            "sine=frequency=330:sample_rate=48000:duration=2",
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
            "-c:a",
            "aac",
            "-shortest",
        ],
    ),
    (
        "tone.wav",
        &[
            "-f",
            "lavfi",
            "-i",
            "sine=frequency=440:sample_rate=44100:duration=5",
            "-ac",
            "1",
        ],
    ),
    (
        "image.png",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc=size=1920x1080:rate=1",
            "-frames:v",
            "1",
        ],
    ),
    // The sourced corpus's (tests/corpus/) second clip, music track and logo.
    (
        "clip2.mp4",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=1280x720:rate=30:duration=5",
            "-f",
            "lavfi",
            "-i",
            "sine=frequency=550:sample_rate=48000:duration=5",
            "-ac",
            "2",
            "-c:v",
            "libx264",
            "-preset",
            "veryfast",
            "-pix_fmt",
            "yuv420p",
            "-c:a",
            "aac",
            "-shortest",
        ],
    ),
    (
        "song.mp3",
        &[
            "-f",
            "lavfi",
            "-i",
            "sine=frequency=262:sample_rate=44100:duration=10",
            "-ac",
            "2",
            "-c:a",
            "libmp3lame",
            "-b:a",
            "128k",
        ],
    ),
    (
        "logo.png",
        &[
            "-f",
            "lavfi",
            "-i",
            "color=c=red@0.5:size=200x100,format=rgba",
            "-frames:v",
            "1",
        ],
    ),
];

/// Fixtures written as text: a subtitle file covering the first seconds.
pub const TEXT_FIXTURES: &[(&str, &str)] = &[(
    "subs.srt",
    "1\n00:00:00,200 --> 00:00:01,500\nHello there\n\n2\n00:00:01,600 --> 00:00:04,000\nSecond line\n",
)];

/// Fixtures made from others (after them): a video with a tagged subtitle track.
pub const DERIVED_FIXTURES: &[(&str, &[&str])] = &[(
    "subbed.mkv",
    &[
        "-f",
        "lavfi",
        "-i",
        "testsrc=size=320x240:rate=30:duration=2",
        "-i",
        "{dir}/subs.srt",
        "-c:v",
        "libx264",
        "-pix_fmt",
        "yuv420p",
        "-c:s",
        "srt",
        "-metadata:s:s:0",
        "language=eng",
    ],
)];

/// A corpus case's input names.
pub fn case_inputs(case: &Value) -> Vec<&str> {
    case["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect()
}

/// Makes the fixtures in `dir` (once).
pub fn make_fixtures(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    for (name, text) in TEXT_FIXTURES {
        let path = dir.join(name);
        if !path.exists() {
            std::fs::write(&path, text).unwrap();
        }
    }
    let dir_text = dir.to_string_lossy();
    let derived = DERIVED_FIXTURES.iter().map(|(name, args)| {
        let args: Vec<String> = args.iter().map(|a| a.replace("{dir}", &dir_text)).collect();
        (*name, args)
    });
    let made = FIXTURES.iter().map(|(name, args)| {
        (
            *name,
            args.iter().map(|a| a.to_string()).collect::<Vec<_>>(),
        )
    });
    for (name, args) in made.chain(derived) {
        let path = dir.join(name);
        if path.exists() {
            continue;
        }
        let status = Command::new("ffmpeg")
            .args(["-hide_banner", "-loglevel", "error", "-y"])
            .args(&args)
            .arg(&path)
            .status()
            .unwrap();
        assert!(status.success(), "making {name}");
    }
}

fn num(v: &Value) -> Option<f64> {
    match v {
        Value::String(s) => s.parse().ok(),
        Value::Number(n) => n.as_f64(),
        _ => None,
    }
}

fn rate(v: &Value) -> Option<f64> {
    let s = v.as_str()?;
    let (a, b) = s.split_once('/')?;
    let (a, b): (f64, f64) = (a.parse().ok()?, b.parse().ok()?);
    (b != 0.0 && a != 0.0).then(|| a / b)
}

pub fn ffprobe_json(path: &Path, args: &[String]) -> Value {
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-of", "json"])
        .args(args)
        .arg(path)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or(Value::Null)
}

/// Input facts as the host would give them.
pub fn facts(path: &Path) -> InputFacts {
    let j = ffprobe_json(path, &["-show_format".into(), "-show_streams".into()]);
    let streams = j["streams"]
        .as_array()
        .map(|a| a.as_slice())
        .unwrap_or(&[])
        .iter()
        .map(|s| StreamFacts {
            index: s["index"].as_u64().unwrap_or(0) as u32,
            kind: s["codec_type"].as_str().unwrap_or("data").to_string(),
            codec: s["codec_name"].as_str().unwrap_or("").to_string(),
            width: s["width"].as_u64().map(|w| w as u32),
            height: s["height"].as_u64().map(|h| h as u32),
            frame_rate: rate(&s["avg_frame_rate"]).or_else(|| rate(&s["r_frame_rate"])),
            channels: s["channels"].as_u64().map(|c| c as u32),
            sample_rate: num(&s["sample_rate"]).map(|r| r as u32),
            duration: num(&s["duration"]),
        })
        .collect();
    InputFacts {
        name: path.file_name().unwrap().to_string_lossy().into_owned(),
        size: std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
        container: j["format"]["format_name"]
            .as_str()
            .unwrap_or("")
            .to_string(),
        duration: num(&j["format"]["duration"]),
        streams,
    }
}

/// ffmpeg's argv for a task, reading inputs from `in_dir` and writing to `out_dir`.
pub fn ffmpeg_argv(task: &Task, in_dir: &Path, out_dir: &Path) -> Vec<String> {
    let mut a: Vec<String> = vec![
        "-hide_banner".into(),
        "-loglevel".into(),
        "error".into(),
        "-nostdin".into(),
        "-y".into(),
    ];
    for i in &task.inputs {
        a.extend(i.options.iter().cloned());
        a.push("-i".into());
        a.push(in_dir.join(&i.file_path).to_string_lossy().into_owned());
    }
    if let Some(fc) = &task.filter_complex {
        a.push("-filter_complex".into());
        a.push(fc.clone());
    }
    for o in &task.outputs {
        a.extend(o.options.iter().cloned());
        for m in &o.maps {
            a.push("-map".into());
            a.push(m.clone());
        }
        a.push(out_dir.join(&o.file).to_string_lossy().into_owned());
    }
    a
}

/// ffmpeg's argv for a task as the host would run it: through the default command builder's
/// policy (which also resolves `@{name}` placeholders to the staged inputs).
pub fn policy_argv(task: &Task, in_dir: &Path, out_dir: &Path) -> Result<Vec<String>, String> {
    let cmd = policy::build(task, &in_dir.to_string_lossy(), &out_dir.to_string_lossy())?;
    let mut a: Vec<String> = ["-hide_banner", "-loglevel", "error", "-nostdin", "-y"]
        .map(String::from)
        .to_vec();
    a.extend(policy::argv(&cmd));
    Ok(a)
}

/// ffprobe's argv for a probe configuration (without the output format and path).
pub fn ffprobe_argv(cfg: &ProbeConfig) -> Vec<String> {
    let mut entries = Vec::new();
    let sections = [
        ("format", &cfg.format),
        ("stream", &cfg.streams),
        ("chapter", &cfg.chapters),
        ("program", &cfg.programs),
        ("frame", &cfg.frames),
        ("packet", &cfg.packets),
        ("error", &cfg.error),
    ];
    for (name, fields) in sections {
        if let Some(f) = fields {
            entries.push(if f.is_empty() {
                name.to_string()
            } else {
                format!("{name}={}", f.join(","))
            });
        }
    }
    let mut a = vec!["-show_entries".to_string(), entries.join(":")];
    if let Some(s) = &cfg.select_streams {
        a.extend(["-select_streams".into(), s.clone()]);
    }
    if cfg.count_frames == Some(true) {
        a.push("-count_frames".into());
    }
    if let Some(s) = &cfg.skip_frame {
        a.extend(["-skip_frame".into(), s.clone()]);
    }
    if let Some(r) = &cfg.read_intervals {
        a.extend(["-read_intervals".into(), r.clone()]);
    }
    a
}

/// The output files a task wrote, expanding `%03d` patterns.
pub fn outputs(task: &Task, out_dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for o in &task.outputs {
        if let Some((pre, rest)) = o.file.split_once('%') {
            let post = rest.split_once('d').map(|(_, p)| p).unwrap_or("");
            let mut found: Vec<PathBuf> = std::fs::read_dir(out_dir)
                .unwrap()
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    let n = p.file_name().unwrap().to_string_lossy();
                    n.starts_with(pre) && n.ends_with(post)
                })
                .collect();
            found.sort();
            files.extend(found);
        } else {
            let p = out_dir.join(&o.file);
            if p.exists() {
                files.push(p);
            }
        }
    }
    files
}

/// Checks one case's expectations (nl-examples.json's `expect_keys`); returns what failed.
pub fn check_outputs(expect: &Value, files: &[PathBuf], first_input: &Path) -> Vec<String> {
    let mut bad = Vec::new();
    let e = |k: &str| expect.get(k);
    if let Some(n) = e("outputs").and_then(Value::as_u64)
        && files.len() as u64 != n
    {
        bad.push(format!("{} outputs, expected {n}", files.len()));
    }
    if let Some(n) = e("min_outputs").and_then(Value::as_u64)
        && (files.len() as u64) < n
    {
        bad.push(format!("{} outputs, expected at least {n}", files.len()));
    }
    if let Some(n) = e("max_outputs").and_then(Value::as_u64)
        && files.len() as u64 > n
    {
        bad.push(format!("{} outputs, expected at most {n}", files.len()));
    }
    if let Some(ext) = e("ext").and_then(Value::as_str) {
        for f in files {
            if !f.to_string_lossy().ends_with(ext) {
                bad.push(format!("{} does not end with {ext}", f.display()));
            }
        }
    }
    let Some(first) = files.first() else {
        bad.push("no output".into());
        return bad;
    };
    let j = ffprobe_json(
        first,
        &[
            "-show_format".into(),
            "-show_streams".into(),
            "-count_frames".into(),
        ],
    );
    let streams: Vec<Value> = j["streams"].as_array().cloned().unwrap_or_default();
    let v = streams.iter().find(|s| s["codec_type"] == "video");
    let a = streams.iter().find(|s| s["codec_type"] == "audio");
    let in_list = |key: &str, s: Option<&Value>| {
        if let Some(list) = e(key).and_then(Value::as_array) {
            let codec = s.and_then(|s| s["codec_name"].as_str()).unwrap_or("none");
            if !list.iter().any(|c| c.as_str() == Some(codec)) {
                return Some(format!("{key}: {codec} not in {list:?}"));
            }
        }
        None
    };
    // Stream counts: "audio_streams": 2 (a second track), "subtitle_streams": 1.
    for kind in ["video", "audio", "subtitle"] {
        if let Some(want) = e(&format!("{kind}_streams")).and_then(Value::as_u64) {
            let got = streams.iter().filter(|s| s["codec_type"] == kind).count() as u64;
            if got != want {
                bad.push(format!("{got} {kind} streams, expected {want}"));
            }
        }
    }
    let scodec = streams.iter().find(|s| s["codec_type"] == "subtitle");
    bad.extend(in_list("scodec_in", scodec));
    bad.extend(in_list("vcodec_in", v));
    bad.extend(in_list("acodec_in", a));
    if e("no_video") == Some(&Value::Bool(true)) && v.is_some() {
        bad.push("has video".into());
    }
    if e("no_audio") == Some(&Value::Bool(true)) && a.is_some() {
        bad.push("has audio".into());
    }
    if let Some(r) = e("duration").and_then(Value::as_array) {
        let d = num(&j["format"]["duration"])
            .or_else(|| v.and_then(|v| num(&v["duration"])))
            .unwrap_or(-1.0);
        let (lo, hi) = (r[0].as_f64().unwrap(), r[1].as_f64().unwrap());
        if !(lo..=hi).contains(&d) {
            bad.push(format!("duration {d} not in [{lo}, {hi}]"));
        }
    }
    let vnum = |k: &str| v.and_then(|v| v[k].as_u64());
    for (key, field, exact) in [
        ("width", "width", true),
        ("height", "height", true),
        ("max_width", "width", false),
        ("max_height", "height", false),
    ] {
        if let Some(want) = e(key).and_then(Value::as_u64) {
            let got = vnum(field).unwrap_or(0);
            if (exact && got != want) || (!exact && got > want) {
                bad.push(format!(
                    "{field} {got}, expected {}{want}",
                    if exact { "" } else { "at most " }
                ));
            }
        }
    }
    if let Some(r) = e("fps").and_then(Value::as_array) {
        let got = v.and_then(|v| rate(&v["avg_frame_rate"])).unwrap_or(0.0);
        let (lo, hi) = (r[0].as_f64().unwrap(), r[1].as_f64().unwrap());
        if !(lo..=hi).contains(&got) {
            bad.push(format!("fps {got} not in [{lo}, {hi}]"));
        }
    }
    if let Some(want) = e("channels").and_then(Value::as_u64)
        && a.and_then(|a| a["channels"].as_u64()) != Some(want)
    {
        bad.push(format!(
            "channels {:?}, expected {want}",
            a.map(|a| &a["channels"])
        ));
    }
    if let Some(want) = e("sample_rate").and_then(Value::as_u64)
        && a.and_then(|a| num(&a["sample_rate"])) != Some(want as f64)
    {
        bad.push(format!(
            "sample rate {:?}, expected {want}",
            a.map(|a| &a["sample_rate"])
        ));
    }
    if let Some(max) = e("max_bytes").and_then(Value::as_u64) {
        let got = std::fs::metadata(first).unwrap().len();
        if got > max {
            bad.push(format!("output {got} bytes, expected at most {max}"));
        }
    }
    if e("size_lt_input") == Some(&Value::Bool(true)) {
        let (o, i) = (
            std::fs::metadata(first).unwrap().len(),
            std::fs::metadata(first_input).unwrap().len(),
        );
        if o >= i {
            bad.push(format!("output {o} bytes not smaller than input {i}"));
        }
    }
    bad
}

/// Looks a path such as `streams[0].width` up in a probe result.
pub fn lookup<'a>(mut v: &'a Value, path: &str) -> Option<&'a Value> {
    for part in path.split('.') {
        let (name, index) = match part.split_once('[') {
            Some((n, i)) => (n, Some(i.trim_end_matches(']').parse::<usize>().ok()?)),
            None => (part, None),
        };
        v = v.get(name)?;
        if let Some(i) = index {
            v = v.get(i)?;
        }
    }
    (!v.is_null()).then_some(v)
}
