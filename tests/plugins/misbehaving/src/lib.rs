//! A deliberately bad plugin for tests, implementing all three worlds: its `config` chooses how
//! each call fails. `{"mode":"trap"}` panics (a trap), `"spin"` loops forever, `"hog"` allocates
//! without bound, `"sleep"` blocks in a WASI sleep for `seconds` (default 30). As a webhook
//! formatter it also returns a body over 1 MiB (`"big"`), a header the host forbids
//! (`"header"`) or a refusal (`"refuse"`), and otherwise a small JSON callback; there a `mode=`
//! in the event's webhook URL overrides the config, so one server can test every mode. Any
//! other call refuses politely.

wit_bindgen::generate!({
    path: "../../../wit",
    inline: "
        package test:misbehaving;
        world misbehaving {
            include mediaforge:plugin/command-builder@0.1.0;
            include mediaforge:plugin/translator@0.1.0;
            include mediaforge:plugin/webhook-formatter@0.1.0;
        }
    ",
    world: "misbehaving",
    generate_all,
});

use exports::mediaforge::plugin::builder::{self, FfmpegCommand, FfprobeCommand, JobLayout};
use exports::mediaforge::plugin::format::{self, CallbackRequest, Header, JobEvent};
use exports::mediaforge::plugin::translate::{self, InputFacts};
use mediaforge::plugin::types::{ProbeConfig, Refusal, Task};

struct Misbehaving;

fn config() -> serde_json::Value {
    serde_json::from_str(&mediaforge::plugin::host::config()).unwrap_or_default()
}

/// Fails as `mode` says (trap, spin, hog, sleep), or returns to let the caller answer.
fn misbehave(mode: Option<&str>, config: &serde_json::Value) {
    match mode {
        Some("trap") => panic!("deliberate trap"),
        Some("spin") => {
            let mut n: u64 = 0;
            loop {
                n = std::hint::black_box(n.wrapping_add(1));
            }
        }
        Some("hog") => {
            // Zeroed 16 MB blocks: fresh linear memory is zero already, so the limit is
            // reached in a few grows, not after filling each page (a loaded CI machine had run
            // the 1 MB filled blocks into the time limit first).
            let mut hoard: Vec<Vec<u8>> = Vec::new();
            loop {
                hoard.push(vec![0u8; 16 << 20]);
                std::hint::black_box(&hoard);
            }
        }
        Some("sleep") => {
            let seconds = config["seconds"].as_u64().unwrap_or(30);
            std::thread::sleep(std::time::Duration::from_secs(seconds));
        }
        _ => {}
    }
}

fn refuse() -> Refusal {
    let config = config();
    misbehave(config["mode"].as_str(), &config);
    Refusal {
        message: "this test plugin refuses everything".into(),
        subject: None,
    }
}

impl builder::Guest for Misbehaving {
    fn build_task(_task: Task, _layout: JobLayout) -> Result<FfmpegCommand, Refusal> {
        Err(refuse())
    }

    fn build_probe(_probe: ProbeConfig, _input: String) -> Result<FfprobeCommand, Refusal> {
        Err(refuse())
    }
}

impl translate::Guest for Misbehaving {
    fn translate_task(_instructions: String, _inputs: Vec<InputFacts>) -> Result<Task, Refusal> {
        Err(refuse())
    }

    fn translate_probe(_instructions: String, _input: InputFacts) -> Result<ProbeConfig, Refusal> {
        Err(refuse())
    }
}

impl format::Guest for Misbehaving {
    fn format_event(event: JobEvent) -> Result<CallbackRequest, String> {
        let config = config();
        let mode = match event.webhook_url.split_once("mode=") {
            Some((_, rest)) => rest.split('&').next(),
            None => config["mode"].as_str(),
        };
        misbehave(mode, &config);
        let mut request = CallbackRequest {
            content_type: "application/json".into(),
            body: serde_json::json!({ "job_id": event.job_id }).to_string(),
            headers: Vec::new(),
        };
        match mode {
            Some("big") => request.body = "x".repeat(2 << 20),
            Some("header") => request.headers.push(Header {
                name: "webhook-signature".into(),
                value: "forged".into(),
            }),
            Some("refuse") => return Err("this test plugin refuses the event".into()),
            _ => {}
        }
        Ok(request)
    }
}

export!(Misbehaving);
