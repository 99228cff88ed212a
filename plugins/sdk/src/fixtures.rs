//! Sample inputs for tests: the requests of `docs/plugins/samples/` (what `mediaforge plugin
//! run` reads) as this crate's types, so a unit test and `plugin run` try the same input.

use serde_json::Value;

use crate::{
    Completion, Failure, InputFacts, JobEvent, JobLayout, Outcome, OutputFile, ProbeConfig,
    StagedInput, StreamFacts, Task, TaskInput, TaskOutput, Usage,
};

const BUILD_TASK: &str = include_str!("../../../docs/plugins/samples/build-task.json");
const BUILD_PROBE: &str = include_str!("../../../docs/plugins/samples/build-probe.json");
const TRANSLATE_TASK: &str = include_str!("../../../docs/plugins/samples/translate-task.json");
const TRANSLATE_PROBE: &str = include_str!("../../../docs/plugins/samples/translate-probe.json");
const COMPLETED: &str = include_str!("../../../docs/plugins/samples/format-event.json");
const FAILED: &str = include_str!("../../../docs/plugins/samples/format-event-failed.json");

/// `build-task.json`: a thumbnail task of one input, and its job layout.
pub fn build_task() -> (Task, JobLayout) {
    let v = json(BUILD_TASK);
    let layout = JobLayout {
        inputs: list(&v["inputs"], |i| StagedInput {
            name: text(&i["name"]),
            path: text(&i["path"]),
        }),
        output_dir: text(&v["output_dir"]),
    };
    (task(&v["task"]), layout)
}

/// `build-probe.json`: a probe configuration and the staged input's path.
pub fn build_probe() -> (ProbeConfig, String) {
    let v = json(BUILD_PROBE);
    (probe(&v["probe"]), text(&v["input_path"]))
}

/// `translate-task.json`: an instruction and the facts of its one input.
pub fn translate_task() -> (String, Vec<InputFacts>) {
    let v = json(TRANSLATE_TASK);
    (text(&v["instructions"]), list(&v["inputs"], facts))
}

/// `translate-probe.json`: a question and the facts of the input.
pub fn translate_probe() -> (String, InputFacts) {
    let v = json(TRANSLATE_PROBE);
    (text(&v["instructions"]), facts(&v["input"]))
}

/// `format-event.json`: a completed job with one output file.
pub fn completed_event() -> JobEvent {
    event(&json(COMPLETED)["event"])
}

/// `format-event-failed.json`: a failed job, on its second delivery attempt.
pub fn failed_event() -> JobEvent {
    event(&json(FAILED)["event"])
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).expect("the samples are JSON")
}

fn text(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

fn opt_text(v: &Value) -> Option<String> {
    v.as_str().map(str::to_string)
}

fn list<T>(v: &Value, f: impl Fn(&Value) -> T) -> Vec<T> {
    v.as_array()
        .map(|a| a.iter().map(f).collect())
        .unwrap_or_default()
}

fn texts(v: &Value) -> Vec<String> {
    list(v, text)
}

fn opt_texts(v: &Value) -> Option<Vec<String>> {
    v.is_array().then(|| texts(v))
}

fn opt_u32(v: &Value) -> Option<u32> {
    v.as_u64().map(|n| n as u32)
}

fn task(v: &Value) -> Task {
    Task {
        inputs: list(&v["inputs"], |i| TaskInput {
            file_path: text(&i["file_path"]),
            options: texts(&i["options"]),
        }),
        outputs: list(&v["outputs"], |o| TaskOutput {
            file: text(&o["file"]),
            options: texts(&o["options"]),
            maps: texts(&o["maps"]),
        }),
        filter_complex: opt_text(&v["filter_complex"]),
        output_dir_id: opt_text(&v["output_dir_id"]),
    }
}

fn probe(v: &Value) -> ProbeConfig {
    ProbeConfig {
        format: opt_texts(&v["format"]),
        streams: opt_texts(&v["streams"]),
        chapters: opt_texts(&v["chapters"]),
        programs: opt_texts(&v["programs"]),
        frames: opt_texts(&v["frames"]),
        packets: opt_texts(&v["packets"]),
        error: opt_texts(&v["error"]),
        select_streams: opt_text(&v["select_streams"]),
        read_intervals: opt_text(&v["read_intervals"]),
        count_frames: v["count_frames"].as_bool(),
        skip_frame: opt_text(&v["skip_frame"]),
        analyzeduration: opt_text(&v["analyzeduration"]),
        probesize: opt_text(&v["probesize"]),
    }
}

fn facts(v: &Value) -> InputFacts {
    InputFacts {
        name: text(&v["name"]),
        size: v["size"].as_u64().unwrap_or(0),
        container: text(&v["container"]),
        duration: v["duration"].as_f64(),
        streams: list(&v["streams"], |s| StreamFacts {
            index: opt_u32(&s["index"]).unwrap_or(0),
            kind: text(&s["kind"]),
            codec: text(&s["codec"]),
            width: opt_u32(&s["width"]),
            height: opt_u32(&s["height"]),
            frame_rate: s["frame_rate"].as_f64(),
            channels: opt_u32(&s["channels"]),
            sample_rate: opt_u32(&s["sample_rate"]),
            duration: s["duration"].as_f64(),
        }),
    }
}

fn event(v: &Value) -> JobEvent {
    let o = &v["outcome"];
    let outcome = if o["completed"].is_object() {
        let c = &o["completed"];
        let u = &c["usage"];
        let num = |k: &str| u[k].as_f64().unwrap_or(0.0);
        Outcome::Completed(Completion {
            files: list(&c["files"], |f| OutputFile {
                file_name: text(&f["file_name"]),
                size_bytes: f["size_bytes"].as_u64().unwrap_or(0),
                download_url: text(&f["download_url"]),
            }),
            usage: Usage {
                time_sec: num("time_sec"),
                input_size_gb: num("input_size_gb"),
                output_size_gb: num("output_size_gb"),
                gb_sec: num("gb_sec"),
            },
        })
    } else {
        Outcome::Failed(Failure {
            message: text(&o["failed"]["error"]),
            details: opt_text(&o["failed"]["details"]),
        })
    };
    JobEvent {
        event_id: text(&v["event_id"]),
        job_id: text(&v["job_id"]),
        account_id: text(&v["account_id"]),
        attempt: opt_u32(&v["attempt"]).unwrap_or(1),
        outcome,
        occurred_at: text(&v["occurred_at"]),
        webhook_url: text(&v["webhook_url"]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sample_reads() {
        let (task, layout) = build_task();
        assert_eq!(task.inputs[0].file_path, "dir_1/clip.mp4");
        assert_eq!(task.outputs[0].options[0], "-vf");
        assert_eq!(layout.inputs[0].name, "clip.mp4");
        let (probe, path) = build_probe();
        assert_eq!(probe.streams, Some(vec![]));
        assert_eq!(probe.chapters, None);
        assert!(path.ends_with("0.mp4"));
        let (_, inputs) = translate_task();
        assert_eq!(inputs[0].streams[1].channels, Some(2));
        assert_eq!(translate_probe().1.streams[0].width, Some(1280));
        let done = completed_event();
        assert_eq!((done.account_id.as_str(), done.attempt), ("acct_1", 1));
        assert!(matches!(&done.outcome, Outcome::Completed(c) if c.files.len() == 1));
        let failed = failed_event();
        assert_eq!(failed.attempt, 2);
        assert!(matches!(&failed.outcome, Outcome::Failed(f) if f.details.is_some()));
    }
}
