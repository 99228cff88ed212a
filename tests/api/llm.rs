//! The LLM translator plugin against a real local model: not part of `make test` (it needs a
//! model server and takes minutes). `bash tests/llm/run.sh` starts llama.cpp's OpenAI-compatible
//! server with SmolLM2-135M-Instruct and runs this test with `MEDIAFORGE_LLM_ENDPOINT` set.
//!
//! A 135M model gets some requests wrong, so this does not demand correct answers: it records
//! each instruction's outcome and time, and asserts only that every answer is a 200 with
//! outputs ffprobe can read or a 400 with a clear error (never a 500 or a hang), and that at
//! least one instruction succeeds.

use std::panic::AssertUnwindSafe;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::*;

/// What an instruction's output must look like to count as a success.
struct Expect {
    ext: &'static str,
    video: Option<bool>,
    audio: Option<bool>,
    /// A word ffprobe's `format_name` must contain.
    format: Option<&'static str>,
    acodec: Option<&'static str>,
}

const CASES: [(&str, Expect); 3] = [
    (
        "convert to mov",
        Expect {
            ext: ".mov",
            video: Some(true),
            audio: None,
            format: Some("mov"),
            acodec: None,
        },
    ),
    (
        "remove the audio",
        Expect {
            ext: "",
            video: Some(true),
            audio: Some(false),
            format: None,
            acodec: None,
        },
    ),
    (
        "extract the audio as mp3",
        Expect {
            ext: ".mp3",
            video: Some(false),
            audio: Some(true),
            format: None,
            acodec: Some("mp3"),
        },
    ),
];

/// Longest wait for one answer (model, ffmpeg and all) before it counts as a hang.
const REQUEST_LIMIT: Duration = Duration::from_secs(240);

#[derive(Debug, PartialEq)]
enum Outcome {
    /// 200 and the outputs do what was asked.
    Pass,
    /// 200, outputs probed, but they do not do what was asked.
    Wrong(String),
    /// 400 with an error message (the plugin or the policy refused the model's answer).
    Refused(String),
    /// Anything else: a 5xx, another status, a body without an error, an unreadable output or
    /// no answer in time.
    Broken(String),
}

/// Checks the probed outputs against `expect`; `None` when they do what was asked.
fn check(expect: &Expect, outputs: &[(String, Value)]) -> Option<String> {
    let Some((name, p)) = outputs.first() else {
        return Some("no output".into());
    };
    let mut bad = Vec::new();
    if outputs.len() != 1 {
        bad.push(format!("{} outputs", outputs.len()));
    }
    if !name.to_ascii_lowercase().ends_with(expect.ext) {
        bad.push(format!("name {name} does not end with {}", expect.ext));
    }
    let has = |kind| stream(p, kind).is_some();
    if let Some(want) = expect.video
        && has("video") != want
    {
        bad.push(format!("video present: {}", has("video")));
    }
    if let Some(want) = expect.audio
        && has("audio") != want
    {
        bad.push(format!("audio present: {}", has("audio")));
    }
    if let Some(word) = expect.format {
        let f = p["format"]["format_name"].as_str().unwrap_or("");
        if !f.split(',').any(|x| x == word) {
            bad.push(format!("format {f}"));
        }
    }
    if let Some(codec) = expect.acodec {
        let got = stream(p, "audio").and_then(|a| a["codec_name"].as_str());
        if got != Some(codec) {
            bad.push(format!("audio codec {got:?}"));
        }
    }
    (!bad.is_empty()).then(|| bad.join(", "))
}

#[tokio::test]
#[ignore = "needs a local model server: bash tests/llm/run.sh"]
async fn llm_translator_against_a_local_model() {
    let endpoint = std::env::var("MEDIAFORGE_LLM_ENDPOINT")
        .expect("set MEDIAFORGE_LLM_ENDPOINT (bash tests/llm/run.sh does)");
    let extra = format!(
        r#"
[plugins.translator]
path = "{wasm}"
llm = {{ endpoint = "{endpoint}", model = "smollm2", api_key_env = "", timeout_s = 120 }}
"#,
        wasm = wasm("llm_translator").display(),
    );
    let s = Server::start_with(Options {
        extra,
        env: vec![
            ("MEDIAFORGE__NET__ALLOW_HTTP".into(), "true".into()),
            (
                "MEDIAFORGE__NET__ALLOW_PRIVATE_ADDRESSES".into(),
                "true".into(),
            ),
            // The outbound client's read timeout (30 s by default) also bounds the wait for a
            // completion, whose bytes all come at the end; a cold model on 2 busy cores can
            // take longer than that for the first answer.
            ("MEDIAFORGE__NET__READ_TIMEOUT_S".into(), "150".into()),
        ],
        ..Default::default()
    })
    .await;
    let dir = s.mkdir(ALICE).await;
    let input = s.upload_file(ALICE, Some(&dir), &media().short()).await;

    let mut results = Vec::new();
    for (instruction, expect) in &CASES {
        let started = Instant::now();
        let outcome = run_one(&s, &input, instruction, expect).await;
        let took = started.elapsed().as_secs_f64();
        eprintln!("llm: {instruction:?}: {outcome:?} in {took:.1} s");
        results.push((*instruction, outcome, took));
    }

    let passed = results
        .iter()
        .filter(|(_, o, _)| *o == Outcome::Pass)
        .count();
    let line: Vec<String> = results
        .iter()
        .map(|(i, o, t)| {
            let word = match o {
                Outcome::Pass => "pass",
                Outcome::Wrong(_) => "wrong",
                Outcome::Refused(_) => "refused",
                Outcome::Broken(_) => "BROKEN",
            };
            format!("{i:?} {word} {t:.1}s")
        })
        .collect();
    eprintln!(
        "llm summary: {passed}/{} passed; {}",
        results.len(),
        line.join("; ")
    );

    let broken: Vec<String> = results
        .iter()
        .filter_map(|(i, o, _)| match o {
            Outcome::Broken(why) => Some(format!("{i:?}: {why}")),
            _ => None,
        })
        .collect();
    assert!(
        broken.is_empty(),
        "answers that were neither a 200 with outputs nor a 400 with an error:\n{}\n--- server log ---\n{}",
        broken.join("\n"),
        s.log()
    );
    assert!(passed >= 1, "no instruction succeeded");
}

/// One instruction through POST /ai/ffmpeg/process, classified.
async fn run_one(s: &Server, input: &str, instruction: &str, expect: &Expect) -> Outcome {
    let request = s
        .http()
        .post(s.url("/ai/ffmpeg/process"))
        .header("Authorization", format!("Basic {ALICE}"))
        .timeout(REQUEST_LIMIT)
        .json(&json!({"inputs": [{"file_path": input}], "instructions": instruction}))
        .send();
    let res = match request.await {
        Ok(res) => res,
        Err(e) if e.is_timeout() => {
            return Outcome::Broken(format!("no answer within {} s", REQUEST_LIMIT.as_secs()));
        }
        Err(e) => return Outcome::Broken(format!("request failed: {e}")),
    };
    let status = res.status();
    let text = res.text().await.unwrap_or_default();
    let Ok(body) = serde_json::from_str::<Value>(&text) else {
        return Outcome::Broken(format!("{status}, not JSON: {text}"));
    };
    match status.as_u16() {
        200 => {
            eprintln!(
                "llm: {instruction:?}: generated {}",
                body["generated_command"]
            );
            let mut probed = Vec::new();
            for (name, bytes) in s.fetch_outputs(&body).await {
                let ext = name.rsplit('.').next().unwrap_or("bin").to_string();
                let p = std::panic::catch_unwind(AssertUnwindSafe(|| probe_bytes(&bytes, &ext)));
                match p {
                    Ok(p) => probed.push((name, p)),
                    Err(_) => return Outcome::Broken(format!("ffprobe cannot read output {name}")),
                }
            }
            match check(expect, &probed) {
                None => Outcome::Pass,
                Some(why) => Outcome::Wrong(format!("{why}; task {}", body["generated_command"])),
            }
        }
        400 => match body["error"].as_str() {
            Some(error) if body["ok"] == false && !error.trim().is_empty() => {
                Outcome::Refused(error.to_string())
            }
            _ => Outcome::Broken(format!("400 without an error message: {body}")),
        },
        _ => Outcome::Broken(format!("{status}: {body}")),
    }
}
