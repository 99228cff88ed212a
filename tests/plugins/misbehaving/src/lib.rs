//! A deliberately bad command builder, for tests: its `config` chooses how it fails.
//! `{"mode":"trap"}` panics (a trap), `"spin"` loops forever, `"hog"` allocates without bound,
//! anything else refuses politely.

wit_bindgen::generate!({
    path: "../../../wit",
    world: "command-builder",
});

use exports::mediaforge::plugin::builder::{FfmpegCommand, FfprobeCommand, Guest, JobLayout};
use mediaforge::plugin::types::{ProbeConfig, Refusal, Task};

struct Misbehaving;

fn misbehave() -> Refusal {
    let config: serde_json::Value =
        serde_json::from_str(&mediaforge::plugin::host::config()).unwrap_or_default();
    match config["mode"].as_str() {
        Some("trap") => panic!("deliberate trap"),
        Some("spin") => {
            let mut n: u64 = 0;
            loop {
                n = std::hint::black_box(n.wrapping_add(1));
            }
        }
        Some("hog") => {
            let mut hoard: Vec<Vec<u8>> = Vec::new();
            loop {
                hoard.push(vec![1u8; 1 << 20]);
                std::hint::black_box(&hoard);
            }
        }
        _ => Refusal {
            message: "this test plugin refuses everything".into(),
            subject: None,
        },
    }
}

impl Guest for Misbehaving {
    fn build_task(_task: Task, _layout: JobLayout) -> Result<FfmpegCommand, Refusal> {
        Err(misbehave())
    }

    fn build_probe(_probe: ProbeConfig, _input: String) -> Result<FfprobeCommand, Refusal> {
        Err(misbehave())
    }
}

export!(Misbehaving);
