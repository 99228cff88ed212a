//! Native tests: recognising the phrases, the tasks they become, that everything else is the
//! default translator's, and (when ffmpeg is installed) that the tasks pass the default
//! command builder and run.

use std::path::Path;
use std::process::Command;

use crate::phrasebook::rewrite;
use crate::{InputFacts, StreamFacts, translate_probe, translate_task};
use mediaforge_plugin::Task;

fn stream(index: u32, kind: &str, codec: &str) -> StreamFacts {
    StreamFacts {
        index,
        kind: kind.into(),
        codec: codec.into(),
        width: None,
        height: None,
        frame_rate: None,
        channels: None,
        sample_rate: None,
        duration: None,
    }
}

fn video(w: u32, h: u32, secs: f64) -> StreamFacts {
    StreamFacts {
        width: Some(w),
        height: Some(h),
        frame_rate: Some(30.0),
        duration: Some(secs),
        ..stream(0, "video", "h264")
    }
}

fn audio(index: u32, codec: &str, channels: u32, secs: f64) -> StreamFacts {
    StreamFacts {
        channels: Some(channels),
        sample_rate: Some(48000),
        duration: Some(secs),
        ..stream(index, "audio", codec)
    }
}

/// What the host tells the translator about an input.
fn facts(name: &str) -> InputFacts {
    let mp4 = "mov,mp4,m4a,3gp,3g2,mj2".to_string();
    let (duration, streams, container) = match name {
        // The black-box tests' clip: 10 s, 1280x720, H.264 + AAC stereo.
        "clip.mp4" => (
            Some(10.0),
            vec![video(1280, 720, 10.0), audio(1, "aac", 2, 10.0)],
            mp4,
        ),
        "long.mp4" => (
            Some(90.0),
            vec![video(1920, 1080, 90.0), audio(1, "mp3", 2, 90.0)],
            mp4,
        ),
        "portrait.mov" => (
            Some(20.0),
            vec![video(1080, 1920, 20.0), audio(1, "aac", 2, 20.0)],
            mp4,
        ),
        "tone.wav" => (Some(5.0), vec![audio(0, "pcm_s16le", 1, 5.0)], "wav".into()),
        "image.png" => (
            None,
            vec![StreamFacts {
                codec: "png".into(),
                duration: None,
                ..video(1920, 1080, 0.0)
            }],
            "png_pipe".into(),
        ),
        other => panic!("no facts for {other}"),
    };
    InputFacts {
        name: name.into(),
        size: 1_000_000,
        container,
        duration,
        streams,
    }
}

fn translate(instructions: &str, input: &str) -> Result<Task, String> {
    translate_task(instructions, &[facts(input)]).map_err(|r| r.message)
}

fn task(instructions: &str, input: &str) -> Task {
    translate(instructions, input).unwrap_or_else(|m| panic!("{instructions:?} refused: {m}"))
}

/// The task's single output as (file, options), with its input's options.
fn shape(t: &Task) -> (Vec<String>, String, Vec<String>) {
    assert_eq!(t.inputs.len(), 1);
    assert_eq!(t.outputs.len(), 1);
    assert!(t.filter_complex.is_none());
    assert!(t.outputs[0].maps.is_empty());
    (
        t.inputs[0].options.clone(),
        t.outputs[0].file.clone(),
        t.outputs[0].options.clone(),
    )
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

const INSTAGRAM: &str = "crop to a square, resize to 1080x1080, keep the first 60 seconds, as mp4 with h264 video and aac audio";
const PODCAST: &str = "extract the audio as mp3, mono, 64k audio, normalize";

// ---- recognition -------------------------------------------------------------------------

#[test]
fn phrases_are_recognised_by_their_words() {
    let cases = [
        ("make it instagram ready", INSTAGRAM.to_string()),
        ("Make it Instagram-ready!", format!("{INSTAGRAM}!")),
        (
            "get this ready for Instagram",
            format!("get this {INSTAGRAM}"),
        ),
        (
            "an instagram version, black and white",
            format!("an {INSTAGRAM}, black and white"),
        ),
        ("podcast version", PODCAST.to_string()),
        ("Podcast  Version please", format!("{PODCAST} please")),
        (
            "make a podcast version of the first 10 seconds",
            format!("{PODCAST} of the first 10 seconds"),
        ),
        // A repeat of the same phrase is dropped.
        ("podcast version, as a podcast", format!("{PODCAST}, ")),
    ];
    for (said, want) in cases {
        let r = rewrite(said)
            .unwrap()
            .unwrap_or_else(|| panic!("{said:?} not recognised"));
        assert_eq!(r.text, want, "{said:?}");
    }
    let r = rewrite("Make it Instagram-ready!").unwrap().unwrap();
    assert_eq!(
        (r.name, r.written.as_str()),
        ("instagram", "Make it Instagram-ready")
    );
}

#[test]
fn other_wording_is_left_alone() {
    for said in [
        "convert to webm",
        "instagram",
        "make it ready",
        "a podcast",
        "instagrams ready",
        "podcasting version",
        "",
    ] {
        assert_eq!(rewrite(said).unwrap(), None, "{said:?}");
    }
}

#[test]
fn two_different_phrases_are_refused() {
    let r = rewrite("make it instagram ready and a podcast version").unwrap_err();
    assert_eq!(
        r.message,
        "\"make it instagram ready\" and \"podcast version\" ask for different outputs; use one house phrase per instruction"
    );
    assert_eq!(r.subject.as_deref(), Some("podcast"));
}

// ---- the tasks -----------------------------------------------------------------------------

#[test]
fn instagram_ready_is_a_square_1080_h264_aac_mp4() {
    let t = task("make it instagram ready", "clip.mp4");
    assert_eq!(t.inputs[0].file_path, "clip.mp4");
    let (input_options, file, options) = shape(&t);
    assert!(input_options.is_empty(), "a 10 s clip needs no trim");
    assert_eq!(file, "clip_trimmed_square_1080x1080.mp4");
    assert_eq!(
        options,
        strings(&[
            "-vf",
            "crop=720:720:280:0,scale=1080:1080",
            "-c:v",
            "libx264",
            "-crf",
            "23",
            "-preset",
            "medium",
            "-pix_fmt",
            "yuv420p",
            "-c:a",
            "copy",
            "-movflags",
            "+faststart",
        ])
    );
}

#[test]
fn instagram_ready_trims_to_60_seconds_and_makes_aac() {
    let t = task("Instagram ready", "long.mp4");
    let all: Vec<String> = t.inputs[0]
        .options
        .iter()
        .chain(&t.outputs[0].options)
        .cloned()
        .collect();
    let joined = all.join(" ");
    assert!(joined.contains("-t 60"), "{joined}");
    assert!(
        joined.contains("crop=1080:1080:420:0,scale=1080:1080"),
        "{joined}"
    );
    assert!(joined.contains("-c:v libx264"), "{joined}");
    assert!(
        joined.contains("-c:a aac"),
        "mp3 audio is re-encoded: {joined}"
    );
    assert!(t.outputs[0].file.ends_with(".mp4"));

    let t = task("for instagram", "portrait.mov");
    let joined = t.outputs[0].options.join(" ");
    assert!(
        joined.contains("crop=1080:1080:0:420,scale=1080:1080"),
        "{joined}"
    );
}

#[test]
fn podcast_version_is_mono_64k_mp3_loudness_normalised() {
    let t = task("podcast version", "clip.mp4");
    let (input_options, file, options) = shape(&t);
    assert!(input_options.is_empty());
    assert_eq!(file, "clip.mp3");
    assert_eq!(
        options,
        strings(&[
            "-vn",
            "-af",
            "loudnorm=I=-16:TP=-1.5:LRA=11",
            "-c:a",
            "libmp3lame",
            "-b:a",
            "64k",
            "-ac",
            "1",
            // loudnorm works at 192 kHz; the input's rate is restored.
            "-ar",
            "48000",
        ])
    );
    // Audio-only inputs too.
    let t = task("podcast version", "tone.wav");
    assert_eq!(t.outputs[0].file, "tone.mp3");
    assert!(t.outputs[0].options.join(" ").contains("-b:a 64k"));
}

#[test]
fn house_phrases_combine_with_the_default_vocabulary() {
    let t = task("podcast version of the first 5 seconds", "clip.mp4");
    assert_eq!(t.inputs[0].options, strings(&["-t", "5"]));
    assert!(t.outputs[0].options.join(" ").contains("libmp3lame"));

    let t = task("make it instagram ready and black and white", "clip.mp4");
    assert!(
        t.outputs[0]
            .options
            .join(" ")
            .contains("crop=720:720:280:0,scale=1080:1080,hue=s=0")
    );
}

#[test]
fn refusals_say_how_the_phrase_was_read() {
    let m = translate("podcast version", "image.png").unwrap_err();
    assert!(m.contains("image.png"), "{m}");
    assert!(
        m.ends_with(&format!("(\"podcast version\" is read as: {PODCAST}.)")),
        "{m}"
    );
}

/// Debug text, since the generated records do not implement `PartialEq`.
fn debug<T: std::fmt::Debug>(value: T) -> String {
    format!("{value:?}")
}

#[test]
fn everything_else_is_the_default_translators() {
    for said in [
        "convert to webm",
        "make it instagram",
        "trim the first 3 seconds and remove the audio",
        "book a table",
    ] {
        assert_eq!(
            debug(translate_task(said, &[facts("clip.mp4")])),
            debug(translator::translate_task(said, &[facts("clip.mp4")])),
            "{said:?}"
        );
    }
    assert_eq!(
        debug(translate_probe("how long is it?")),
        debug(translator::translate_probe("how long is it?"))
    );
}

// ---- the tasks run -------------------------------------------------------------------------

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn run(tool: &str, args: &[String]) -> String {
    let out = Command::new(tool).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{tool} {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn probe(path: &Path, entries: &str) -> String {
    run(
        "ffprobe",
        &strings(&[
            "-v",
            "error",
            "-show_entries",
            entries,
            "-of",
            "csv=p=0",
            path.to_str().unwrap(),
        ]),
    )
}

/// A translated task as the host hands it to the command builder: inputs named
/// `<dir_id>/<name>`. (The two crates have their own, identical, generated records.)
fn for_builder(t: &Task) -> command_builder::Task {
    command_builder::Task {
        inputs: t
            .inputs
            .iter()
            .map(|i| command_builder::TaskInput {
                file_path: format!("dir1/{}", i.file_path),
                options: i.options.clone(),
            })
            .collect(),
        outputs: t
            .outputs
            .iter()
            .map(|o| command_builder::TaskOutput {
                file: o.file.clone(),
                options: o.options.clone(),
                maps: o.maps.clone(),
            })
            .collect(),
        filter_complex: t.filter_complex.clone(),
        output_dir_id: None,
    }
}

/// Each phrase's task, over a real `clip.mp4`, goes through the default command builder (as
/// the host does with a translated task) and runs with ffmpeg.
#[test]
fn phrase_tasks_pass_the_default_builder_and_run() {
    use command_builder::{JobLayout, StagedInput};
    assert!(
        have("ffmpeg") && have("ffprobe"),
        "ffmpeg and ffprobe are required (make setup installs them)"
    );
    let dir = std::env::temp_dir().join(format!("phrasebook-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("in")).unwrap();
    std::fs::create_dir_all(dir.join("out")).unwrap();
    let clip = dir.join("in/0-clip.mp4");
    run(
        "ffmpeg",
        &strings(&[
            "-nostdin",
            "-loglevel",
            "error",
            "-f",
            "lavfi",
            "-i",
            "testsrc2=d=10:s=1280x720:r=30",
            "-f",
            "lavfi",
            "-i",
            "sine=f=440:d=10:sample_rate=48000",
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
            "-c:a",
            "aac",
            "-ac",
            "2",
            clip.to_str().unwrap(),
        ]),
    );
    let layout = JobLayout {
        inputs: vec![StagedInput {
            name: "clip.mp4".into(),
            path: clip.to_str().unwrap().into(),
        }],
        output_dir: dir.join("out").to_str().unwrap().into(),
    };
    let config = command_builder::config::Config::default();

    for (said, check) in [
        ("make it instagram ready", "stream=codec_name,width,height"),
        ("podcast version", "stream=codec_name,channels,bit_rate"),
    ] {
        let t = task(said, "clip.mp4");
        let cmd = command_builder::task::build_task(&for_builder(&t), &layout, &config)
            .unwrap_or_else(|r| panic!("{said:?}: the default builder refused: {}", r.message));
        let mut args = strings(&["-nostdin", "-hide_banner", "-loglevel", "error", "-n"]);
        args.extend(cmd.global_args.iter().cloned());
        for i in &cmd.inputs {
            args.extend(i.args.iter().cloned());
            args.extend(["-i".to_string(), i.path.clone()]);
        }
        for o in &cmd.outputs {
            args.extend(o.args.iter().cloned());
            args.push(o.path.clone());
        }
        run("ffmpeg", &args);
        let got = probe(&dir.join("out").join(&t.outputs[0].file), check);
        let lines: Vec<&str> = got.lines().map(str::trim).collect();
        match said {
            "podcast version" => assert_eq!(lines, ["mp3,1,64000"], "{got}"),
            _ => assert_eq!(lines, ["h264,1080,1080", "aac"], "{got}"),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
