//! The messages sent to the model: a system message that describes the answer's JSON shape,
//! with a few worked examples, and a user message with the facts of each input and the request.
//!
//! Kept short on purpose: small local models have small context windows (2048 tokens is
//! common), and the answer needs room too.

use crate::config::Config;
use crate::{InputFacts, Message, StreamFacts};

/// Short on purpose: a 135M model given a page of rules does worse than one given a paragraph
/// and examples (tried with SmolLM2-135M-Instruct: tests/llm/run.sh).
const TASK_SYSTEM: &str = r#"You turn a request about media files into one ffmpeg task, written as JSON like the examples: "inputs" (the input files by name, with the options that go before -i), "outputs" (each with its new file name, ffmpeg output options and stream maps), "filter_complex" (null unless inputs are combined) and "refuse" (null, or why it cannot be done). An output name is a plain file name, never an input's name. Options are lists of strings, one token each. Answer only JSON."#;

const PROBE_SYSTEM: &str = r#"You turn a question about a media file into an ffprobe configuration, written as JSON like the examples: "format", "streams", "chapters", "programs", "frames", "packets", "error" (null when not needed, else the ffprobe field names wanted; an empty list means every field), "select_streams" (null, or the streams to show, such as "v:0" or "a:0"), "read_intervals", "skip_frame", "analyzeduration", "probesize" (null unless needed), "count_frames" (null, or true to count frames) and "refuse" (null, or why it cannot be answered). Common fields: format: duration, size, bit_rate, format_name; streams: codec_type, codec_name, width, height, avg_frame_rate, channels, sample_rate. Answer only JSON."#;

/// The input the examples work on.
pub fn example_input() -> InputFacts {
    let stream = |index, kind: &str, codec: &str| StreamFacts {
        index,
        kind: kind.into(),
        codec: codec.into(),
        width: None,
        height: None,
        frame_rate: None,
        channels: None,
        sample_rate: None,
        duration: Some(10.0),
    };
    InputFacts {
        name: "clip.mp4".into(),
        size: 2_400_000,
        container: "mov,mp4,m4a,3gp,3g2,mj2".into(),
        duration: Some(10.0),
        streams: vec![
            StreamFacts {
                width: Some(1280),
                height: Some(720),
                frame_rate: Some(30.0),
                ..stream(0, "video", "h264")
            },
            StreamFacts {
                channels: Some(2),
                sample_rate: Some(48000),
                ..stream(1, "audio", "aac")
            },
        ],
    }
}

/// Worked examples for tasks: (instruction, answer) over `example_input()`. Small models copy
/// the closest example, so they are common requests with the simplest correct answer. There is
/// no refusal example: the schema asks for at least one input and one output, and a small model
/// given one tends to copy it for everything.
pub const TASK_EXAMPLES: [(&str, &str); 4] = [
    (
        "convert to mkv",
        r#"{"inputs":[{"file_path":"clip.mp4","options":[]}],"outputs":[{"file":"clip.mkv","options":["-c","copy"],"maps":[]}],"filter_complex":null,"refuse":null}"#,
    ),
    (
        "remove the sound",
        r#"{"inputs":[{"file_path":"clip.mp4","options":[]}],"outputs":[{"file":"clip_muted.mp4","options":["-c:v","copy","-an"],"maps":[]}],"filter_complex":null,"refuse":null}"#,
    ),
    (
        "extract the audio as flac",
        r#"{"inputs":[{"file_path":"clip.mp4","options":[]}],"outputs":[{"file":"clip.flac","options":["-vn","-c:a","flac"],"maps":[]}],"filter_complex":null,"refuse":null}"#,
    ),
    (
        "keep the first 5 seconds at 480p as webm",
        r#"{"inputs":[{"file_path":"clip.mp4","options":[]}],"outputs":[{"file":"clip_480p.webm","options":["-t","5","-vf","scale=-2:480","-c:v","libvpx-vp9","-crf","33","-b:v","0","-c:a","libopus"],"maps":[]}],"filter_complex":null,"refuse":null}"#,
    ),
];

/// Worked examples for probes: (question, the non-null keys of the answer as JSON pairs).
pub const PROBE_EXAMPLES: [(&str, &str); 3] = [
    ("how long is it?", r#""format":["duration"]"#),
    (
        "what codec and sample rate does the audio have?",
        r#""streams":["codec_name","sample_rate"],"select_streams":"a:0""#,
    ),
    (
        "what is the capital of France?",
        r#""refuse":"This is not a question about the media file.""#,
    ),
];

/// A full probe answer: every key of the schema, in order, `null` unless `set` gives it.
pub fn probe_example_answer(set: &str) -> String {
    let given: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&format!("{{{set}}}")).expect("probe example is JSON");
    let keys = crate::schema::PROBE_SECTIONS
        .iter()
        .chain(crate::schema::PROBE_STRINGS.iter())
        .chain(["count_frames", "refuse"].iter());
    let parts: Vec<String> = keys
        .map(|k| {
            let v = given.get(*k).cloned().unwrap_or(serde_json::Value::Null);
            format!("\"{k}\":{v}")
        })
        .collect();
    format!("{{{}}}", parts.join(","))
}

fn message(role: &str, content: impl Into<String>) -> Message {
    Message {
        role: role.into(),
        content: content.into(),
    }
}

/// The system message: the description, the operator's extra text, then the worked examples
/// (in the system message rather than as earlier turns: small models follow them better).
fn system(base: &str, config: &Config, examples: &[(String, String)]) -> Message {
    let mut text = base.to_string();
    if let Some(extra) = &config.system_prompt_extra {
        text.push('\n');
        text.push_str(extra);
    }
    text.push_str("\n\nExamples:");
    for (request, answer) in examples {
        text.push_str("\n\n");
        text.push_str(request);
        text.push_str("\nAnswer: ");
        text.push_str(answer);
    }
    message("system", text)
}

/// The messages for `translate-task`: the system message, then the request.
pub fn task_messages(config: &Config, instructions: &str, inputs: &[InputFacts]) -> Vec<Message> {
    let example = [example_input()];
    let examples: Vec<(String, String)> = TASK_EXAMPLES
        .iter()
        .map(|(instruction, answer)| {
            (
                request("Request", instruction, &example),
                answer.to_string(),
            )
        })
        .collect();
    vec![
        system(TASK_SYSTEM, config, &examples),
        message("user", request("Request", instructions, inputs)),
    ]
}

/// The messages for `translate-probe`: the system message, then the question.
pub fn probe_messages(config: &Config, instructions: &str, input: &InputFacts) -> Vec<Message> {
    let example = [example_input()];
    let examples: Vec<(String, String)> = PROBE_EXAMPLES
        .iter()
        .map(|(question, set)| {
            (
                request("Question", question, &example),
                probe_example_answer(set),
            )
        })
        .collect();
    vec![
        system(PROBE_SYSTEM, config, &examples),
        message(
            "user",
            request("Question", instructions, std::slice::from_ref(input)),
        ),
    ]
}

/// One user turn: the inputs' facts, then the request.
pub fn request(label: &str, instructions: &str, inputs: &[InputFacts]) -> String {
    let mut text = String::from("Inputs:\n");
    for input in inputs {
        text.push_str("- ");
        text.push_str(&describe_input(input));
        text.push('\n');
    }
    text.push_str(label);
    text.push_str(": ");
    text.push_str(instructions.trim());
    text
}

/// `"clip.mp4": container mov,mp4,…, 10 s, 2.3 MB; stream 0: video h264 1280x720 30 fps; …`
pub fn describe_input(input: &InputFacts) -> String {
    let mut parts = vec![serde_json::Value::String(input.name.clone()).to_string() + ":"];
    if !input.container.is_empty() {
        parts.push(format!("container {},", input.container));
    }
    if let Some(d) = input.duration {
        parts.push(format!("{} s,", number(d)));
    }
    parts.push(size(input.size));
    let mut text = parts.join(" ");
    if input.streams.is_empty() {
        text.push_str("; no streams known");
    }
    for s in &input.streams {
        text.push_str("; ");
        text.push_str(&describe_stream(s));
    }
    text
}

/// `stream 1: audio aac 2 channels 48000 Hz`
pub fn describe_stream(s: &StreamFacts) -> String {
    let mut parts = vec![format!("stream {}:", s.index), s.kind.clone()];
    if !s.codec.is_empty() {
        parts.push(s.codec.clone());
    }
    if let (Some(w), Some(h)) = (s.width, s.height) {
        parts.push(format!("{w}x{h}"));
    }
    if let Some(r) = s.frame_rate {
        parts.push(format!("{} fps", number(r)));
    }
    if let Some(c) = s.channels {
        parts.push(format!("{c} channels"));
    }
    if let Some(r) = s.sample_rate {
        parts.push(format!("{r} Hz"));
    }
    parts.join(" ")
}

/// A number with at most two decimals and no trailing zeros: `10`, `29.97`, `2.5`.
fn number(x: f64) -> String {
    let s = format!("{x:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1_000_000_000 => format!("{} GB", number(b as f64 / 1e9)),
        b if b >= 1_000_000 => format!("{} MB", number(b as f64 / 1e6)),
        b if b >= 1_000 => format!("{} KB", number(b as f64 / 1e3)),
        b => format!("{b} bytes"),
    }
}
