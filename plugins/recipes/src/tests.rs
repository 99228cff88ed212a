//! The plans as data, and the log parsers on lines ffmpeg 7 prints.

use mediaforge_plugin::serde_json::json;
use mediaforge_plugin::{InputFacts, Next, NoConfig, Recipes, Step, StepResult, StreamFacts};

use super::Builtins;

fn clip(w: u32, h: u32, audio: bool) -> InputFacts {
    let mut streams = vec![StreamFacts {
        index: 0,
        kind: "video".into(),
        codec: "h264".into(),
        width: Some(w),
        height: Some(h),
        frame_rate: Some(25.0),
        channels: None,
        sample_rate: None,
        duration: Some(12.0),
    }];
    if audio {
        streams.push(StreamFacts {
            index: 1,
            kind: "audio".into(),
            codec: "aac".into(),
            width: None,
            height: None,
            frame_rate: None,
            channels: Some(2),
            sample_rate: Some(48000),
            duration: Some(12.0),
        });
    }
    InputFacts {
        name: "in.mp4".into(),
        size: 1000,
        container: "mov,mp4,m4a,3gp,3g2,mj2".into(),
        duration: Some(12.0),
        streams,
    }
}

fn steps(
    recipe: &str,
    params: serde_json::Value,
    inputs: Vec<InputFacts>,
    results: Vec<StepResult>,
) -> Vec<Step> {
    match Builtins::plan(&NoConfig {}, recipe, &params, inputs, results).unwrap() {
        Next::Steps(s) => s,
        Next::Done(d) => panic!("done early: {d}"),
    }
}

use mediaforge_plugin::serde_json;

#[test]
fn every_recipe_publishes_a_schema_that_admits_its_example() {
    let list = Builtins::recipes(&NoConfig {});
    assert!(list.len() >= 10);
    for r in list {
        let schema: serde_json::Value = serde_json::from_str(&r.params_schema).unwrap();
        let example: serde_json::Value = serde_json::from_str(&r.example).unwrap();
        for key in example.as_object().unwrap().keys() {
            assert!(schema["properties"].get(key).is_some(), "{}: {key}", r.name);
        }
    }
}

#[test]
fn the_ladder_is_never_upscaled_and_the_master_names_every_rung() {
    let s = steps("hls", json!({}), vec![clip(1280, 720, true)], vec![]);
    let Step::Ffmpeg(task) = &s[0] else { panic!() };
    assert_eq!(task.outputs.len(), 3, "720, 480, 360 of 1080/720/480/360");
    let Step::Text(master) = &s[1] else { panic!() };
    assert!(
        master.content.contains("RESOLUTION=1280x720"),
        "{}",
        master.content
    );
    assert!(master.content.contains("RESOLUTION=640x360"));
    assert!(!master.content.contains("1920x1080"));
    assert!(master.content.contains("mp4a.40.2"));
    let tiny = steps(
        "hls",
        json!({"rungs": [720]}),
        vec![clip(320, 240, false)],
        vec![],
    );
    let Step::Ffmpeg(task) = &tiny[0] else {
        panic!()
    };
    assert_eq!(task.outputs.len(), 1);
    assert!(
        task.filter_complex
            .as_ref()
            .unwrap()
            .contains("scale=320:240")
    );
}

#[test]
fn storyboard_cues_point_inside_their_sheets() {
    let made = StepResult {
        output: String::new(),
        files: vec!["sprite_001.jpg".into()],
    };
    let s = steps(
        "storyboard",
        json!({"interval_s": 2, "columns": 3, "rows": 2}),
        vec![clip(640, 360, false)],
        vec![made],
    );
    let Step::Text(vtt) = &s[0] else { panic!() };
    assert!(vtt.content.starts_with("WEBVTT\n"));
    // 12 s at 2 s: 6 cues, exactly one 3x2 sheet of 160x90.
    assert_eq!(vtt.content.matches("#xywh=").count(), 6);
    assert!(vtt.content.contains("sprite_001.jpg#xywh=320,90,160,90"));
    assert_eq!(crate::pictures::vtt_time(3725.5), "01:02:05.500");
}

#[test]
fn detections_are_read_from_the_log() {
    let log = "[scdet @ 0x1] lavfi.scd.score: 45.210, lavfi.scd.time: 4\n\
        [blackdetect @ 0x2] black_start:6 black_end:8 black_duration:2\n\
        [freezedetect @ 0x3] lavfi.freezedetect.freeze_start: 9.5\n\
        [freezedetect @ 0x3] lavfi.freezedetect.freeze_duration: 1.5\n\
        [freezedetect @ 0x3] lavfi.freezedetect.freeze_end: 11\n\
        [silencedetect @ 0x4] silence_start: 2.001\n\
        [silencedetect @ 0x4] silence_end: 3.5 | silence_duration: 1.499\n\
        [Parsed_loudnorm_1 @ 0x5] \n{\n\t\"input_i\" : \"-20.51\",\n\t\"input_tp\" : \"-3.02\",\n\t\"input_lra\" : \"1.20\",\n\t\"input_thresh\" : \"-30.6\"\n}\n";
    let doc = crate::analyze::report(log, Some(12.0), true, true);
    assert_eq!(doc["scenes"][0]["time_s"], 4.0);
    assert_eq!(doc["black"][0]["start_s"], 6.0);
    assert_eq!(doc["black"][0]["end_s"], 8.0);
    assert_eq!(doc["freezes"][0]["end_s"], 11.0);
    assert_eq!(doc["silences"][0]["start_s"], 2.001);
    assert_eq!(doc["silences"][0]["end_s"], 3.5);
    assert_eq!(doc["loudness"]["integrated_lufs"], -20.51);
}

#[test]
fn peaks_come_in_min_max_pairs_of_eight_bits() {
    let log = "lavfi.astats.Overall.Min_level=-16384.000000\nlavfi.astats.Overall.Max_level=32767.000000\n\
               lavfi.astats.Overall.Min_level=-256\nlavfi.astats.Overall.Max_level=256\n";
    assert_eq!(crate::pictures::peaks(log), vec![-64, 127, -1, 1]);
}

#[test]
fn loudness_measures_then_normalises_with_the_measured_values_then_measures_again() {
    let first = steps(
        "loudness",
        json!({"i": -16}),
        vec![clip(640, 360, true)],
        vec![],
    );
    assert!(matches!(first[0], Step::Analysis(_)));
    let measured = StepResult {
        output: "{\n\"input_i\" : \"-27.1\",\n\"input_tp\" : \"-9.0\",\n\"input_lra\" : \"3.0\",\n\"input_thresh\" : \"-37.5\",\n\"target_offset\" : \"0.4\"\n}".into(),
        files: vec![],
    };
    let second = steps(
        "loudness",
        json!({"i": -16}),
        vec![clip(640, 360, true)],
        vec![measured],
    );
    let Step::Ffmpeg(task) = &second[0] else {
        panic!()
    };
    let args = task.outputs[0].options.join(" ");
    assert!(args.contains("measured_I=-27.1"), "{args}");
    assert_eq!(task.outputs[0].file, "normalized.mp4");
}

#[test]
fn a_silent_first_pass_is_refused_with_a_reason() {
    let none = StepResult {
        output: String::new(),
        files: vec![],
    };
    let refused = Builtins::plan(
        &NoConfig {},
        "loudness",
        &json!({}),
        vec![clip(640, 360, true)],
        vec![none],
    );
    assert!(
        refused
            .unwrap_err()
            .message
            .contains("measured no loudness")
    );
}
