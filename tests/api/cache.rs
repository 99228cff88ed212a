//! The result cache through the real binary: a repeated task answers from the cache with the
//! same bytes and no time charged; accounts do not share it (by default); the opt-out and the
//! command builder's "not cacheable" are kept; identical tasks at once run ffmpeg once; the
//! cache is bounded and survives a restart.

use std::time::Duration;

use serde_json::{Value, json};

use crate::jobs::{submit, wait_for};
use crate::support::*;

/// A counter of `/metrics`.
pub(crate) async fn counter(s: &Server, name: &str) -> u64 {
    let text = s.metrics().await;
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{name} ")))
        .unwrap_or_else(|| panic!("{name} missing from /metrics"))
        .trim()
        .parse()
        .unwrap()
}

pub(crate) async fn ffmpeg_runs(s: &Server) -> u64 {
    counter(s, "mediaforge_ffmpeg_runs_total").await
}

pub(crate) fn transcode(input: &str, out: &str) -> Value {
    json!({"inputs": [{"file_path": input}],
           "outputs": [{"file": out, "options": ["-vf", "scale=160:-2", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"]}]})
}

/// Runs a task and returns the response, checking it succeeded with the expected outcome.
async fn run(s: &Server, key: &str, task: Value, cache: &str) -> Value {
    run_body(s, key, json!({ "task": task }), cache).await
}

/// `run` with a whole request body.
async fn run_body(s: &Server, key: &str, body: Value, cache: &str) -> Value {
    let (status, res) = s.post("/ffmpeg/process", key, body).await;
    assert_eq!(status, 200, "{res}");
    assert_eq!(res["ok"], true);
    assert_eq!(res["cache"], cache, "{res}");
    res
}

#[tokio::test]
async fn a_repeated_task_is_a_hit_with_the_same_bytes_and_no_time() {
    let s = Server::start().await;
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let before = ffmpeg_runs(&s).await;

    let miss = run(&s, ALICE, transcode(&input, "small.mp4"), "miss").await;
    assert!(miss["usage"]["time_sec"].as_f64().unwrap() > 0.0);
    let first = s.fetch_outputs(&miss).await;

    let hit = run(&s, ALICE, transcode(&input, "small.mp4"), "hit").await;
    assert_eq!(hit["usage"]["time_sec"], 0.0);
    assert_eq!(hit["usage"]["gb_sec"], 0.0);
    assert_eq!(
        hit["usage"]["input_size_gb"],
        miss["usage"]["input_size_gb"]
    );
    assert_eq!(
        hit["usage"]["output_size_gb"],
        miss["usage"]["output_size_gb"]
    );
    assert_eq!(s.fetch_outputs(&hit).await, first);

    // Content-addressed: the same bytes under another name, in another directory, hit too,
    // and the outputs land in that directory.
    let other_dir = s.mkdir(ALICE).await;
    let input2 = s
        .upload(
            ALICE,
            Some(&other_dir),
            "again.mp4",
            std::fs::read(media().short()).unwrap(),
        )
        .await;
    let elsewhere = run(&s, ALICE, transcode(&input2, "small.mp4"), "hit").await;
    assert_eq!(s.fetch_outputs(&elsewhere).await, first);
    let (status, info) = s.get(&format!("/file/{other_dir}/small.mp4"), ALICE).await;
    assert_eq!(status, 200, "{info}");

    assert_eq!(
        ffmpeg_runs(&s).await - before,
        1,
        "one ffmpeg run for three tasks"
    );
    assert_eq!(counter(&s, "mediaforge_cache_hits_total").await, 2);
    assert_eq!(counter(&s, "mediaforge_cache_misses_total").await, 1);

    // Charged: three tasks' bytes, one run's time.
    let (_, usage) = s.get("/usage", ALICE).await;
    let time = usage["usage"]["time_sec"].as_f64().unwrap();
    assert!(
        (time - miss["usage"]["time_sec"].as_f64().unwrap()).abs() < 0.01,
        "{usage}"
    );
}

#[tokio::test]
async fn another_account_the_opt_out_and_non_cacheable_tasks_miss() {
    let s = Server::start().await;
    let alice_in = s.upload_file(ALICE, None, &media().short()).await;
    let carol_in = s.upload_file(PRO, None, &media().short()).await;
    run(&s, ALICE, transcode(&alice_in, "a.mp4"), "miss").await;
    // Same bytes, same command, other account: its own cache.
    run(&s, PRO, transcode(&carol_in, "a.mp4"), "miss").await;
    run(&s, PRO, transcode(&carol_in, "a.mp4"), "hit").await;

    // `"cache": false` neither reads nor writes the cache.
    let opted = json!({"task": transcode(&alice_in, "a.mp4"), "cache": false});
    let res = run_body(&s, ALICE, opted, "miss").await;
    assert!(res["usage"]["time_sec"].as_f64().unwrap() > 0.0);
    let (status, res) = s
        .post(
            "/ffmpeg/process",
            ALICE,
            json!({"task": transcode(&alice_in, "a.mp4"), "cache": "no"}),
        )
        .await;
    assert_eq!(status, 400, "{res}");
    assert_eq!(res["ok"], false);
    assert_eq!(res["error"], "Invalid field 'cache': must be true or false");

    // The command builder says a wall-clock creation time is not a function of the inputs.
    let stamped = json!({"inputs": [{"file_path": alice_in}],
        "outputs": [{"file": "stamped.mp4", "options": ["-c", "copy", "-metadata", "creation_time=now"]}]});
    let (status, dry) = s
        .post("/ffmpeg/validate", ALICE, json!({"task": stamped}))
        .await;
    assert_eq!(status, 200, "{dry}");
    let decision = dry["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["subject"] == "cache")
        .unwrap_or_else(|| panic!("no cache decision: {dry}"));
    assert_eq!(decision["allowed"], false);
    let before = ffmpeg_runs(&s).await;
    for _ in 0..2 {
        run(&s, ALICE, stamped.clone(), "miss").await;
    }
    assert_eq!(ffmpeg_runs(&s).await - before, 2);
}

#[tokio::test]
async fn global_scope_answers_across_accounts() {
    let s = Server::start_with(Options::env(&[("MEDIAFORGE__CACHE__SCOPE", "global")])).await;
    let alice_in = s.upload_file(ALICE, None, &media().short()).await;
    let carol_in = s.upload_file(PRO, None, &media().short()).await;
    run(&s, ALICE, transcode(&alice_in, "g.mp4"), "miss").await;
    run(&s, PRO, transcode(&carol_in, "g.mp4"), "hit").await;
}

#[tokio::test]
async fn identical_tasks_at_once_run_ffmpeg_once() {
    let s = Server::start().await;
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let before = ffmpeg_runs(&s).await;
    // Each into its own directory: every request gets its own registered outputs.
    let mut dirs = Vec::new();
    for _ in 0..4 {
        dirs.push(s.mkdir(ALICE).await);
    }
    let runs = dirs.iter().map(|dir| {
        let mut task = transcode(&input, "together.mp4");
        task["output_dir_id"] = json!(dir);
        s.post("/ffmpeg/process", ALICE, json!({"task": task}))
    });
    let answers = futures_util::future::join_all(runs).await;
    let mut outcomes = Vec::new();
    let mut bytes = Vec::new();
    for (status, res) in &answers {
        assert_eq!(*status, 200, "{res}");
        outcomes.push(res["cache"].as_str().unwrap().to_string());
        bytes.push(s.fetch_outputs(res).await);
    }
    outcomes.sort();
    assert_eq!(outcomes, ["hit", "hit", "hit", "miss"]);
    assert!(bytes.windows(2).all(|w| w[0] == w[1]));
    for dir in &dirs {
        let (status, _) = s.get(&format!("/file/{dir}/together.mp4"), ALICE).await;
        assert_eq!(status, 200);
    }
    assert_eq!(ffmpeg_runs(&s).await - before, 1);

    // A failure is not cached, and every waiter gets it. This ffmpeg fails at once: on a
    // loaded machine the three requests may not all arrive while it runs (CI saw 2 runs), so
    // up to three tries of the three must show them joined in one run at least once.
    let failing =
        json!({"inputs": [{"file_path": input}], "outputs": [{"file": "x.mp4", "maps": ["0:s"]}]});
    let mut joined = Vec::new();
    for _ in 0..3 {
        let before = ffmpeg_runs(&s).await;
        let runs = (0..3).map(|_| s.post("/ffmpeg/process", ALICE, json!({"task": failing})));
        for (status, res) in futures_util::future::join_all(runs).await {
            assert_eq!(status, 500, "{res}");
            assert_eq!(
                res["error"], "FFmpeg command failed with exit code 1",
                "{res}"
            );
            assert!(res["details"].as_str().is_some(), "{res}");
        }
        joined.push(ffmpeg_runs(&s).await - before);
        if joined.last() == Some(&1) {
            break;
        }
    }
    assert_eq!(joined.last(), Some(&1), "ffmpeg runs per try: {joined:?}");
    let before = ffmpeg_runs(&s).await;
    let (status, _) = s
        .post("/ffmpeg/process", ALICE, json!({"task": failing}))
        .await;
    assert_eq!(status, 500);
    assert_eq!(
        ffmpeg_runs(&s).await - before,
        1,
        "the failure was not cached"
    );
}

#[tokio::test]
async fn plain_language_tasks_hit_the_cache_too() {
    let s = Server::start().await;
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let ask = json!({"inputs": [{"file_path": input}],
        "instructions": "Resize to 480p, keep the first 10 seconds and make it black and white"});
    let ai = |body: Value| s.post("/ai/ffmpeg/process", ALICE, body);
    let (status, first) = ai(ask.clone()).await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["cache"], "miss", "{first}");
    let first_bytes = s.fetch_outputs(&first).await;
    let (status, second) = ai(ask.clone()).await;
    assert_eq!(status, 200, "{second}");
    assert_eq!(second["cache"], "hit", "{second}");
    assert_eq!(second["usage"]["time_sec"], 0.0);
    assert_eq!(s.fetch_outputs(&second).await, first_bytes);
    let mut opted = ask;
    opted["cache"] = json!(false);
    let (status, third) = ai(opted).await;
    assert_eq!(status, 200, "{third}");
    assert_eq!(third["cache"], "miss", "{third}");
}

#[tokio::test]
async fn async_jobs_hit_the_cache_too() {
    let s = Server::start().await;
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let first = submit(&s, ALICE, json!({"task": transcode(&input, "job.mp4")})).await;
    let first = wait_for(&s, ALICE, &first, &["completed", "failed"], 60).await;
    assert_eq!(first["cache"], "miss", "{first}");
    // Fetched now: the second run replaces the directory's `job.mp4`.
    let first_bytes = s.fetch_outputs(&first).await;
    let second = submit(&s, ALICE, json!({"task": transcode(&input, "job.mp4")})).await;
    let second = wait_for(&s, ALICE, &second, &["completed", "failed"], 60).await;
    assert_eq!(second["status"], "completed", "{second}");
    assert_eq!(second["cache"], "hit", "{second}");
    assert_eq!(second["usage"]["time_sec"], 0.0);
    assert_eq!(s.fetch_outputs(&second).await, first_bytes);
}

/// Outputs of `secs` seconds of 44.1 kHz mono PCM: about 88 KB a second.
fn pcm(input: &str, out: &str, secs: u32) -> Value {
    json!({"inputs": [{"file_path": input}],
        "outputs": [{"file": out, "options": ["-t", secs.to_string(), "-c:a", "pcm_s16le"]}]})
}

#[tokio::test]
async fn the_cache_keeps_within_max_gb_and_never_touches_registered_files() {
    // 0.0002 GB ≈ 215 KB: a 1 s (88 KB) and a 2 s (176 KB) output do not fit together.
    let s = Server::start_with(Options::env(&[("MEDIAFORGE__CACHE__MAX_GB", "0.0002")])).await;
    let input = s.upload_file(ALICE, None, &media().tone()).await;
    let one = run(&s, ALICE, pcm(&input, "one.wav", 1), "miss").await;
    let kept = s.fetch_outputs(&one).await;
    let one = run(&s, ALICE, pcm(&input, "one.wav", 1), "hit").await;
    run(&s, ALICE, pcm(&input, "two.wav", 2), "miss").await;
    // Eviction runs beside the request; the least recently used entry (one.wav) went.
    tokio::time::sleep(Duration::from_millis(500)).await;
    run(&s, ALICE, pcm(&input, "two.wav", 2), "hit").await;
    // The registered output of the evicted entry is untouched.
    assert_eq!(s.fetch_outputs(&one).await, kept);
    run(&s, ALICE, pcm(&input, "one.wav", 1), "miss").await;
}

#[tokio::test]
async fn entries_outlive_their_directory_and_a_restart() {
    // The orphan sweep (every second here) removes any object no file record names once a
    // second old: the cache's own objects are live while an entry names them.
    let sweep_all = || Options {
        disk_db: true,
        env: vec![(
            "MEDIAFORGE__STORAGE__ORPHAN_GRACE_S".to_string(),
            "1".to_string(),
        )],
        ..Default::default()
    };
    let mut s = Server::start_with(sweep_all()).await;
    let dir = s.mkdir(ALICE).await;
    let input = s.upload_file(ALICE, Some(&dir), &media().short()).await;
    let first = run(&s, ALICE, transcode(&input, "kept.mp4"), "miss").await;
    let bytes = s.fetch_outputs(&first).await;
    // Deleting the registered output (as an expiry would) leaves the entry whole.
    let (status, res) = s.delete(&format!("/file/{dir}/kept.mp4"), ALICE).await;
    assert_eq!(status, 200, "{res}");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let dir_path = s.kill();

    let s = Server::start_with(Options {
        dir: Some(dir_path),
        ..sweep_all()
    })
    .await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let again = run(&s, ALICE, transcode(&input, "kept.mp4"), "hit").await;
    assert_eq!(s.fetch_outputs(&again).await, bytes);
}
