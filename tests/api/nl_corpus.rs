//! The offline translator's own corpus (`plugins/translator/tests/cases.json`, issue #17)
//! through the real binary: every case goes through `POST /ai/ffmpeg/process` or
//! `POST /ai/ffprobe/analyze` with the default plugins, its outputs are downloaded and probed
//! against what the case promises, as the plugin crate's native harness
//! (`plugins/translator/tests/ffmpeg_examples.rs`) checks them on ffmpeg directly.
//!
//! `NL_CASE=id1,id2` runs only those cases; `NL_CORPUS_JOBS` sets how many run at once
//! (default 3).

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use serde_json::{Value, json};
use tokio::sync::Semaphore;

use crate::ai::{check_outputs, lookup};
use crate::support::*;

/// Cases the product refuses, each with the reason (none now: reversal and borders were the
/// last, fixed in the translator). A gap that passes again fails the test, so that it is taken
/// off this list.
const KNOWN_GAPS: &[(&str, &str)] = &[];

/// The classes of issue #17, named by the id's prefix (the corpus's `about`); other ids are
/// the earlier unseen phrasings.
const CLASSES: &[&str] = &[
    "compound",
    "adding",
    "repeat",
    "aspect",
    "crop",
    "subs",
    "formats",
    "casual",
    "smaller",
    "probes",
    "lang",
    "meaning",
    "precision",
];

fn class_of(id: &str) -> &'static str {
    let prefix = id.split('-').next().unwrap_or("");
    CLASSES
        .iter()
        .find(|c| **c == prefix)
        .copied()
        .unwrap_or("earlier")
}

fn corpus() -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../plugins/translator/tests/cases.json");
    let j: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    j["cases"].as_array().unwrap().clone()
}

/// The fixtures the corpus names, made as the native harness makes them
/// (`plugins/translator/tests/support/mod.rs`). `tone.wav` and `image.png` are the shared
/// test media (same shape); `clip.mp4` and `short.mp4` are not: the shared ones are encoded
/// with another preset (sizes matter to `size_lt_input`/`max_bytes`) and `short.mp4` is
/// 25 fps with 44.1 kHz audio where the corpus assumes 30 fps and 48 kHz.
fn fixtures() -> &'static [PathBuf] {
    static FIXTURES: OnceLock<Vec<PathBuf>> = OnceLock::new();
    FIXTURES.get_or_init(|| {
        let m = media();
        let dir = temp_dir("nl-corpus-media");
        let clip = make_media(
            &dir,
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
            "clip.mp4",
        );
        let short = make_media(
            &dir,
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
            "short.mp4",
        );
        let subs = dir.join("subs.srt");
        std::fs::write(
            &subs,
            "1\n00:00:00,200 --> 00:00:01,500\nHello there\n\n\
             2\n00:00:01,600 --> 00:00:04,000\nSecond line\n",
        )
        .unwrap();
        let subbed = make_media(
            &dir,
            &[
                "-f",
                "lavfi",
                "-i",
                "testsrc=size=320x240:rate=30:duration=2",
                "-i",
                subs.to_str().unwrap(),
                "-c:v",
                "libx264",
                "-pix_fmt",
                "yuv420p",
                "-c:s",
                "srt",
                "-metadata:s:s:0",
                "language=eng",
            ],
            "subbed.mkv",
        );
        // As the native harness makes it (`plugins/translator/tests/support/mod.rs`).
        let song = make_media(
            &dir,
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
            "song.mp3",
        );
        // The logo the seventeenth pass's cases lay over the video, as the native harness
        // makes it.
        let logo = make_media(
            &dir,
            &[
                "-f",
                "lavfi",
                "-i",
                "color=c=red@0.5:size=200x100,format=rgba",
                "-frames:v",
                "1",
            ],
            "logo.png",
        );
        vec![clip, short, m.tone(), m.image(), subs, subbed, song, logo]
    })
}

/// The corpus's checks that the product examples' `check_outputs` (tests/api/ai.rs) does not
/// make: at most so many outputs, stream counts, the subtitle codec, a size bound, and that
/// there is an output at all.
fn check_more(expect: &Value, outputs: &[(String, Vec<u8>)]) -> Vec<String> {
    let mut bad = Vec::new();
    if let Some(n) = expect["max_outputs"].as_u64()
        && outputs.len() as u64 > n
    {
        bad.push(format!("outputs {} > {n}", outputs.len()));
    }
    let Some((name, bytes)) = outputs.first() else {
        bad.push("no output".into());
        return bad;
    };
    if let Some(max) = expect["max_bytes"].as_u64()
        && bytes.len() as u64 > max
    {
        bad.push(format!("size {} > {max}", bytes.len()));
    }
    let wants_streams = ["video", "audio", "subtitle"]
        .iter()
        .any(|k| expect.get(format!("{k}_streams")).is_some())
        || expect.get("scodec_in").is_some();
    if !wants_streams {
        return bad;
    }
    let ext = name.rsplit('.').next().unwrap_or("bin");
    let p = probe_bytes(bytes, ext);
    let streams = p["streams"].as_array().cloned().unwrap_or_default();
    for kind in ["video", "audio", "subtitle"] {
        if let Some(want) = expect[format!("{kind}_streams")].as_u64() {
            let got = streams.iter().filter(|s| s["codec_type"] == kind).count() as u64;
            if got != want {
                bad.push(format!("{kind} streams {got} != {want}"));
            }
        }
    }
    if let Some(list) = expect["scodec_in"].as_array() {
        let codec = stream(&p, "subtitle").and_then(|s| s["codec_name"].as_str());
        if !codec.is_some_and(|c| list.iter().any(|l| l == c)) {
            bad.push(format!("subtitle codec {codec:?}"));
        }
    }
    bad
}

/// Every output of a result (as `Server::fetch_outputs`, but a short or failed download is a
/// problem of the case, not a panic of the whole run).
async fn fetch_outputs(s: &Server, body: &Value) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut out = Vec::new();
    for r in body["result"].as_array().ok_or("no result list")? {
        let name = r["file_name"].as_str().unwrap_or("?").to_string();
        let url = r["download_url"].as_str().ok_or("no download_url")?;
        let res = s.http().get(url).send().await.map_err(|e| e.to_string())?;
        let status = res.status();
        let bytes = res.bytes().await.map_err(|e| e.to_string())?.to_vec();
        if status != 200 || Some(bytes.len() as u64) != r["size_bytes"].as_u64() {
            return Err(format!(
                "download of {name}: {status}, {} bytes of {} ({})",
                bytes.len(),
                r["size_bytes"],
                String::from_utf8_lossy(&bytes[..bytes.len().min(200)])
            ));
        }
        out.push((name, bytes));
    }
    Ok(out)
}

struct Outcome {
    id: String,
    took: f64,
    problems: Vec<String>,
}

async fn run_case(s: &Server, dir: &str, case: &Value) -> Outcome {
    let id = case["id"].as_str().unwrap().to_string();
    let expect = &case["expect"];
    let inputs: Vec<&str> = case["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let probe = case["endpoint"] == "probe";
    // Outputs go to the input directory by default, and a task replaces earlier outputs of
    // the same name: cases running at once would take each other's files.
    let out_dir = if probe {
        String::new()
    } else {
        s.mkdir(ALICE).await
    };
    let started = Instant::now();
    let (path, request) = if probe {
        (
            "/ai/ffprobe/analyze",
            json!({"file_path": format!("{dir}/{}", inputs[0]), "instructions": case["instructions"]}),
        )
    } else {
        let inputs: Vec<Value> = inputs
            .iter()
            .map(|n| json!({"file_path": format!("{dir}/{n}")}))
            .collect();
        (
            "/ai/ffmpeg/process",
            json!({"inputs": inputs, "instructions": case["instructions"], "output_dir_id": out_dir}),
        )
    };
    // As a client is told to (503 with Retry-After: nothing was changed): again after the pause
    // it names, up to three times. The embedded store answers 503 when a query waits past its
    // timeout on a loaded machine.
    let (mut status, mut body) = s.post(path, ALICE, request.clone()).await;
    for _ in 0..3 {
        if status != 503 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_secs(5)).await;
        (status, body) = s.post(path, ALICE, request.clone()).await;
    }
    let took = started.elapsed().as_secs_f64();
    let mut problems = Vec::new();
    if let Some(want) = expect["status"].as_u64() {
        if status.as_u16() as u64 != want || body["ok"] != false || !body["error"].is_string() {
            problems.push(format!("expected {want}, got {status} {body}"));
        }
        // A refusal names what it could not do: one of these words, as the native harness
        // judges it (`plugins/translator/tests/corpus.rs`).
        let error = body["error"].as_str().unwrap_or_default().to_lowercase();
        let names: Vec<&str> = expect["names_any"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if !names.is_empty() && !names.iter().any(|n| error.contains(&n.to_lowercase())) {
            problems.push(format!("the refusal names none of {names:?}: {error}"));
        }
        return Outcome { id, took, problems };
    }
    if status != 200 {
        problems.push(format!("{status} {body}"));
        return Outcome { id, took, problems };
    }
    let generated = body
        .get("generated_command")
        .or(body.get("generated_probe"))
        .cloned()
        .unwrap_or(Value::Null);
    if probe {
        for path in expect["result_has"].as_array().into_iter().flatten() {
            if lookup(&body["result"], path.as_str().unwrap()).is_none() {
                problems.push(format!("result lacks {path}"));
            }
        }
        for (path, want) in expect["equals"].as_object().into_iter().flatten() {
            let got = lookup(&body["result"], path);
            if got != Some(want) {
                problems.push(format!("{path} = {got:?}, want {want}"));
            }
        }
        if generated.is_null() {
            problems.push("no generated_probe".into());
        }
    } else {
        let outputs = match fetch_outputs(s, &body).await {
            Ok(o) => o,
            Err(e) => {
                problems.push(format!("{e}; generated {generated}"));
                return Outcome { id, took, problems };
            }
        };
        let first = fixtures().iter().find(|f| f.ends_with(inputs[0])).unwrap();
        let input_size = std::fs::metadata(first).unwrap().len();
        // ffprobe runs here: keep it off the runtime's other requests.
        problems = tokio::task::block_in_place(|| {
            let mut bad = check_outputs(expect, &outputs, input_size);
            bad.extend(check_more(expect, &outputs));
            bad
        });
        // A task, or a recipe call (a named job, answered as `POST /recipes/{name}` would).
        if !generated["outputs"].is_array() && !generated["recipe"]["name"].is_string() {
            problems.push("no generated_command".into());
        }
    }
    if !problems.is_empty() {
        problems.push(format!("generated {generated}"));
    }
    Outcome { id, took, problems }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn translator_corpus_through_the_binary() {
    let wall = Instant::now();
    let s = Arc::new(Server::start().await);
    let dir = s.mkdir(ALICE).await;
    for f in fixtures() {
        s.upload_file(ALICE, Some(&dir), f).await;
    }
    let only = std::env::var("NL_CASE").ok();
    let mut cases: Vec<Value> = corpus()
        .into_iter()
        .filter(|c| {
            let id = c["id"].as_str().unwrap();
            only.as_deref()
                .is_none_or(|o| o.split(',').any(|o| o == id))
        })
        .collect();
    // The 10 s 720p clip's encodes are the long ones: start them first, so the short cases
    // fill the gaps at the end instead of one long encode running alone.
    cases.sort_by_key(|c| {
        let inputs = c["inputs"].as_array().unwrap();
        !inputs.iter().any(|i| i == "clip.mp4") || c["endpoint"] == "probe"
    });
    for (id, _) in KNOWN_GAPS {
        assert!(
            cases.iter().any(|c| c["id"] == *id) || only.is_some(),
            "known gap {id} is not in the corpus"
        );
    }
    let jobs = std::env::var("NL_CORPUS_JOBS")
        .ok()
        .and_then(|j| j.parse().ok())
        .unwrap_or(3);
    let gate = Arc::new(Semaphore::new(jobs));
    let mut running = Vec::new();
    for case in cases.iter().cloned() {
        let (s, dir, gate) = (s.clone(), dir.clone(), gate.clone());
        let id = case["id"].as_str().unwrap().to_string();
        running.push((
            id,
            tokio::spawn(async move {
                let _turn = gate.acquire_owned().await.unwrap();
                let outcome = run_case(&s, &dir, &case).await;
                eprintln!(
                    "{}: {:.2} s {}",
                    outcome.id,
                    outcome.took,
                    if outcome.problems.is_empty() {
                        "ok".to_string()
                    } else {
                        outcome.problems.join("; ")
                    }
                );
                outcome
            }),
        ));
    }
    let mut outcomes = Vec::new();
    for (id, r) in running {
        // A panic of one case (an unreadable output, say) is that case's failure.
        outcomes.push(r.await.unwrap_or_else(|e| Outcome {
            id,
            took: 0.0,
            problems: vec![format!("panicked: {e}")],
        }));
    }

    let mut failures = Vec::new();
    let mut gaps_passing = Vec::new();
    // Per class: passed, known gaps, cases.
    let mut classes: Vec<(&str, usize, usize, usize)> = Vec::new();
    for o in &outcomes {
        let class = class_of(&o.id);
        let row = match classes.iter().position(|c| c.0 == class) {
            Some(i) => &mut classes[i],
            None => {
                classes.push((class, 0, 0, 0));
                classes.last_mut().unwrap()
            }
        };
        row.3 += 1;
        let gap = KNOWN_GAPS.iter().find(|(id, _)| *id == o.id);
        match (o.problems.is_empty(), gap) {
            (true, None) => row.1 += 1,
            (true, Some(_)) => {
                row.1 += 1;
                gaps_passing.push(o.id.clone());
            }
            (false, Some((_, why))) => {
                row.2 += 1;
                eprintln!("known gap {}: {why} (got: {})", o.id, o.problems.join("; "));
            }
            (false, None) => failures.push(format!("{}: {}", o.id, o.problems.join("; "))),
        }
    }
    classes.sort_by_key(|c| c.0);
    for (class, passed, gaps, total) in &classes {
        eprintln!("{class:>9}: {passed}/{total} passed, {gaps} known gaps");
    }
    let mut times: Vec<f64> = outcomes.iter().map(|o| o.took).collect();
    times.sort_by(f64::total_cmp);
    let median = times.get(times.len() / 2).copied().unwrap_or(0.0);
    eprintln!(
        "translator corpus: {} cases, {} passed, {} known gaps, {} failed; \
         median server time {median:.2} s; wall {:.1} s ({jobs} at a time)",
        outcomes.len(),
        outcomes.iter().filter(|o| o.problems.is_empty()).count(),
        classes.iter().map(|c| c.2).sum::<usize>(),
        failures.len(),
        wall.elapsed().as_secs_f64()
    );
    assert!(
        gaps_passing.is_empty(),
        "known gaps now pass (remove them from KNOWN_GAPS): {gaps_passing:?}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
