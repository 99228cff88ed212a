//! Self-consistency: whatever the translator emits must pass the default command builder's
//! policy. Every phrasing of the test corpus (the product's examples, `tests/cases.json`) and
//! generated combinations of single requests are translated on every fixture and built with
//! `command_builder`, natively; any refusal fails.

use crate::tests::{case_inputs, corpus, fixture};
use crate::{translate_probe, translate_task};
use mediaforge_plugin::InputFacts;
use mediaforge_plugin::Task;

#[path = "../tests/support/policy.rs"]
#[allow(dead_code)]
mod policy;

/// Single requests, combined in pairs below; one of each kind the grammar knows.
const SINGLES: &[&str] = &[
    "convert to webm",
    "as an mkv",
    "to mov",
    "extract the audio as mp3",
    "mute it",
    "make it 720p",
    "half size",
    "crop to a square",
    "crop 50 px from the left",
    "cut 80 pixels off the top and bottom",
    "make it 9:16 with black bars",
    "letterbox to 4:3",
    "keep the first 8 seconds",
    "from 2 to 5 seconds",
    "thumbnail at 1 second",
    "make a gif",
    "animated webp",
    "compress it",
    "make the file smaller",
    "speed it up 2x",
    "slow motion",
    "reverse it",
    "rotate 90 degrees",
    "flip horizontally",
    "black and white",
    "fade in and out",
    "append 3 s of silence",
    "put a second of black before it",
    "extend the last frame by 2 s",
    "repeat it 3 times",
    "loop it for 30 seconds",
    "louder",
    "normalize the audio",
    "mono",
    "15 fps",
    "encode with av1",
    "prores",
    "as flac",
    "as opus",
    "as apng",
    "blur",
    "blur a 300x200 area in the top left corner",
    "split it at 1 and 1.5 seconds",
];

const FIXTURES: &[&str] = &["clip.mp4", "short.mp4", "tone.wav", "image.png"];

fn check(text: &str, inputs: &[InputFacts], failures: &mut Vec<String>) {
    if let Ok(task) = translate_task(text, inputs) {
        check_task(text, &task, failures);
    }
}

fn check_task(text: &str, task: &Task, failures: &mut Vec<String>) {
    if let Err(e) = policy::build(task, "/job/in", "/job/out") {
        failures.push(format!("{text:?}: {e}\n    {task:?}"));
    }
}

fn check_probe(text: &str, failures: &mut Vec<String>) {
    let Ok(cfg) = translate_probe(text) else {
        return;
    };
    // The same WIT record, bound by each crate.
    let cfg = command_builder::ProbeConfig {
        format: cfg.format,
        streams: cfg.streams,
        chapters: cfg.chapters,
        programs: cfg.programs,
        frames: cfg.frames,
        packets: cfg.packets,
        error: cfg.error,
        select_streams: cfg.select_streams,
        count_frames: cfg.count_frames,
        analyzeduration: cfg.analyzeduration,
        probesize: cfg.probesize,
        read_intervals: cfg.read_intervals,
        skip_frame: cfg.skip_frame,
    };
    if let Err(r) = command_builder::probe::build_probe(&cfg) {
        failures.push(format!("{text:?}: probe refused: {}", r.message));
    }
}

#[test]
fn every_corpus_task_passes_the_default_policy() {
    let mut failures = Vec::new();
    let cases = corpus();
    assert!(!cases.is_empty());
    for c in &cases {
        let text = c["instructions"].as_str().unwrap();
        if c["endpoint"] == "probe" {
            check_probe(text, &mut failures);
            continue;
        }
        check(text, &case_inputs(c), &mut failures);
        // The same words on every other kind of input.
        for f in FIXTURES {
            check(text, &[fixture(f)], &mut failures);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn generated_combinations_pass_the_default_policy() {
    let mut failures = Vec::new();
    for f in FIXTURES {
        let inputs = [fixture(f)];
        for a in SINGLES {
            check(a, &inputs, &mut failures);
        }
    }
    // Pairs, joined the ways people join requests, on the main fixture.
    let joins = [" and ", ", ", " then ", ", also "];
    let clip = [fixture("clip.mp4")];
    for (i, a) in SINGLES.iter().enumerate() {
        for (j, b) in SINGLES.iter().enumerate().skip(i + 1) {
            let text = format!("{a}{}{b}", joins[(i + j) % joins.len()]);
            check(&text, &clip, &mut failures);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
