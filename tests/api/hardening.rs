//! What a white-box attack found (issue #32), each case through the real binary: it failed on
//! the main of that day and must hold from now on.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::*;

/// POST /file for `name`; returns (file path, upload URL).
async fn new_file(s: &Server, key: &str, dir: &str, name: &str) -> (String, String) {
    let (status, created) = s
        .post("/file", key, json!({"file_name": name, "dir_id": dir}))
        .await;
    assert_eq!(status, 200, "{created}");
    (
        created["file"]["file_path"].as_str().unwrap().to_string(),
        created["upload"]["url"].as_str().unwrap().to_string(),
    )
}

async fn put(s: &Server, url: &str, body: reqwest::Body) -> (u16, Value) {
    let res = s.http().put(url).body(body).send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

/// A body that arrives in `chunks` pieces, `gap` apart.
fn slow_body(bytes: Vec<u8>, chunks: usize, gap: Duration) -> reqwest::Body {
    let size = bytes.len().div_ceil(chunks);
    let pieces: Vec<bytes::Bytes> = bytes
        .chunks(size)
        .map(bytes::Bytes::copy_from_slice)
        .collect();
    let stream = futures_util::stream::unfold(pieces.into_iter(), move |mut rest| async move {
        let piece = rest.next()?;
        tokio::time::sleep(gap).await;
        Some((Ok::<_, std::io::Error>(piece), rest))
    });
    reqwest::Body::wrap_stream(stream)
}

/// The first frame of `input` as a PNG, through the result cache.
fn frame_task(input: &str) -> Value {
    json!({"inputs": [{"file_path": input}],
           "outputs": [{"file": "frame.png", "options": ["-frames:v", "1"]}]})
}

/// 1. A file's bytes never change under its record: a second PUT to a still-valid upload URL,
/// during the first or after it, is refused, so no hash (nor cached result keyed by it) can be
/// taken from other bytes than the record names. With a global cache, another account that
/// uploads the first bytes gets the first bytes' result.
#[tokio::test]
async fn an_upload_url_fills_its_file_once() {
    let s = Server::start_with(Options {
        extra: "[cache]\nscope = \"global\"\n".into(),
        ..Default::default()
    })
    .await;
    let first = std::fs::read(media().clip()).unwrap();
    let other = std::fs::read(media().short()).unwrap();
    let dir = s.mkdir(ALICE).await;
    let (path, url) = new_file(&s, ALICE, &dir, "in.mp4").await;

    // A slow first upload holds the file: a concurrent one is refused at once.
    let slow = {
        let (http, url, bytes) = (s.http().clone(), url.clone(), first.clone());
        tokio::spawn(async move {
            let res = http
                .put(url)
                .body(slow_body(bytes, 8, Duration::from_millis(150)))
                .send()
                .await
                .unwrap();
            res.status().as_u16()
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (status, body) = put(&s, &url, other.clone().into()).await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"], "Another upload to this file is in progress");
    assert_eq!(slow.await.unwrap(), 200);

    // Once ready, the same URL cannot replace the bytes.
    let (status, body) = put(&s, &url, other.clone().into()).await;
    assert_eq!(status, 409, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .starts_with("File has already been uploaded"),
        "{body}"
    );
    assert_eq!(s.download(ALICE, &path).await, first);

    // The cached result is the first bytes', for whoever asks with them.
    let (status, mine) = s.process(ALICE, frame_task(&path)).await;
    assert_eq!(status, 200, "{mine}");
    let carol = s.upload(PRO, None, "in.mp4", first.clone()).await;
    let (status, theirs) = s.process(PRO, frame_task(&carol)).await;
    assert_eq!(status, 200, "{theirs}");
    assert_eq!(theirs["cache"], "hit", "{theirs}");
    let png = &s.fetch_outputs(&theirs).await[0].1;
    let video = probe_bytes(png, "png");
    assert_eq!(stream(&video, "video").unwrap()["width"], 1280);

    // A refused upload left the file usable, and a broken one frees it for a retry.
    let (_, url2) = new_file(&s, ALICE, &dir, "retry.mp4").await;
    let broken = futures_util::stream::iter(vec![
        Ok::<_, std::io::Error>(bytes::Bytes::from_static(b"partial")),
        Err(std::io::Error::other("client went away")),
    ]);
    let _ = s
        .http()
        .put(&url2)
        .body(reqwest::Body::wrap_stream(broken))
        .send()
        .await;
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (status, body) = put(&s, &url2, other.clone().into()).await;
        if status == 200 {
            break;
        }
        assert_eq!(status, 409, "{body}");
        assert!(
            std::time::Instant::now() < deadline,
            "the claim was never freed"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A video of `frames` one-frame keyframes of 64x64, one a second, and its path.
fn keyframes_only(frames: u32) -> std::path::PathBuf {
    make_media(
        &media().dir,
        &[
            "-f",
            "lavfi",
            "-i",
            &format!("color=c=gray:size=64x64:rate=1:duration={frames}"),
            "-c:v",
            "libx264",
            "-g",
            "1",
            "-preset",
            "ultrafast",
            "-pix_fmt",
            "yuv420p",
        ],
        &format!("keyframes-{frames}.mp4"),
    )
}

/// 120 s of 320x240 at 25 fps (3,000 frames, a keyframe a second), no audio: twelve parts of
/// 250 frames at `segment_s = 10`.
fn twelve_parts() -> std::path::PathBuf {
    make_media(
        &media().dir,
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=320x240:rate=25:duration=120",
            "-c:v",
            "libx264",
            "-g",
            "25",
            "-preset",
            "ultrafast",
            "-pix_fmt",
            "yuv420p",
        ],
        "twelve-parts.mp4",
    )
}

/// `[split]` on for any input over a second, in segments of `segment_s`, with `extra_env`.
fn split_on(segment_s: &str, extra_env: &[(&str, &str)]) -> Options {
    let mut pairs = vec![
        ("MEDIAFORGE__SPLIT__ENABLED", "true"),
        ("MEDIAFORGE__SPLIT__MIN_DURATION_S", "1"),
        ("MEDIAFORGE__SPLIT__SEGMENT_S", segment_s),
    ];
    pairs.extend_from_slice(extra_env);
    Options::env(&pairs)
}

fn encode(input: &str, out: &str, preset: &str) -> Value {
    json!({"inputs": [{"file_path": input}],
           "outputs": [{"file": out, "options": ["-c:v", "libx264", "-preset", preset]}]})
}

/// 2. A tiny input of many keyframes is not cut into a part per keyframe: a part carries at
/// least 250 frames, so 400 frames run whole, in one ffmpeg run.
#[tokio::test]
async fn split_parts_carry_enough_frames() {
    let s = Server::start_with(split_on("1", &[])).await;
    let input = s.upload_file(ALICE, None, &keyframes_only(400)).await;
    let (status, body) = s
        .process(ALICE, encode(&input, "out.mp4", "ultrafast"))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        crate::cache::counter(&s, "mediaforge_split_parts_total").await,
        0
    );
    assert_eq!(
        crate::cache::counter(&s, "mediaforge_split_runs_total").await,
        0
    );
}

/// 2. The task's `process_timeout_s` bounds a split task as a whole (its parts' ffmpeg time
/// summed, and its wall time), not each part: twelve parts of about a second each cannot run
/// for twelve seconds under a 4 s timeout.
#[tokio::test]
async fn a_split_task_keeps_to_its_timeout() {
    let s = Server::start_with(split_on(
        "10",
        &[("MEDIAFORGE__LIMITS__PROCESS_TIMEOUT_S", "4")],
    ))
    .await;
    let input = s.upload_file(ALICE, None, &twelve_parts()).await;
    let started = std::time::Instant::now();
    let (status, body) = s.process(ALICE, encode(&input, "out.mp4", "medium")).await;
    assert_eq!(status, 500, "{body}");
    assert_eq!(body["error"], "Processing timed out after 4 s", "{body}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the split ran {:?}",
        started.elapsed()
    );
}

/// 3. Split segments take turns with other accounts' jobs: a one-frame job of another tenant
/// runs while the split still has segments waiting, not after every segment has started.
#[tokio::test]
async fn another_tenants_job_is_not_held_behind_a_split() {
    let s = Server::start_with(split_on("10", &[])).await;
    let input = s.upload_file(ALICE, None, &twelve_parts()).await;
    let thumb_in = s.upload_file(BOB, None, &media().short()).await;
    let split = crate::jobs::submit(
        &s,
        ALICE,
        json!({"task": encode(&input, "long.mp4", "slow"), "cache": false}),
    )
    .await;
    // Wait for the split to be under way, then queue the other tenant's small job.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while crate::cache::counter(&s, "mediaforge_split_parts_total").await < 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "the split never started"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let small = crate::jobs::submit(&s, BOB, crate::jobs::frame_task(&thumb_in, "f.png")).await;
    crate::jobs::wait_for(&s, BOB, &small, &["completed"], 60).await;
    let started_parts = crate::cache::counter(&s, "mediaforge_split_parts_total").await;
    assert!(
        started_parts < 12,
        "the small job finished only after {started_parts} of 12 segments had started"
    );
    let done = crate::jobs::wait_for(&s, ALICE, &split, &["completed", "failed"], 180).await;
    assert_eq!(done["status"], "completed", "{done}");
}

/// 4. One account's event streams are capped (each re-reads its job): past the cap a stream is
/// refused with 429, a closed one frees its place, and another account is unaffected.
#[tokio::test]
async fn event_streams_are_capped_per_account() {
    let s = Server::start_with(Options::env(&[
        ("MEDIAFORGE__JOBS__WORKERS", "0"),
        ("MEDIAFORGE__JOBS__MAX_WATCHERS_PER_ACCOUNT", "3"),
    ]))
    .await;
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let job = crate::jobs::submit(&s, ALICE, crate::jobs::frame_task(&input, "f.png")).await;
    let open = |key: &'static str| {
        let (http, url) = (s.http().clone(), s.url(&format!("/job/{job}/events")));
        async move {
            http.get(url)
                .header("Authorization", format!("Basic {key}"))
                .send()
                .await
                .unwrap()
        }
    };
    let mut streams = Vec::new();
    for _ in 0..3 {
        let res = open(ALICE).await;
        assert_eq!(res.status(), 200);
        streams.push(res);
    }
    let refused = open(ALICE).await;
    assert_eq!(refused.status(), 429);
    assert_eq!(refused.headers()["retry-after"], "1");
    let body: Value = refused.json().await.unwrap();
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .starts_with("Too many open job watches"),
        "{body}"
    );
    // Another account's own job views are not limited by alice's streams.
    let (status, _) = s.get("/jobs", BOB).await;
    assert_eq!(status, 200);
    // A closed stream gives its place back.
    drop(streams.pop());
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let res = open(ALICE).await;
        if res.status() == 200 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the closed stream kept its place"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// 5. Estimates are made from the account's own runs: another tenant's run of the same kind
/// neither shows in the basis nor changes the figures.
#[tokio::test]
async fn estimates_show_no_other_tenants_runs() {
    let s = Server::start().await;
    let task = |input: &str| {
        json!({"task": {"inputs": [{"file_path": input}],
               "outputs": [{"file": "o.mp4", "options": ["-c:v", "libx264", "-preset", "veryfast", "-vf", "scale=-2:144"]}]}})
    };
    let carol_in = s.upload_file(PRO, None, &media().short()).await;
    let (status, before) = s.post("/ffmpeg/estimate", PRO, task(&carol_in)).await;
    assert_eq!(status, 200, "{before}");
    let alice_in = s.upload_file(ALICE, None, &media().short()).await;
    let (status, ran) = s.post("/ffmpeg/process", ALICE, task(&alice_in)).await;
    assert_eq!(status, 200, "{ran}");
    // The run's measurement is kept in the background.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (_, mine) = s.post("/ffmpeg/estimate", ALICE, task(&alice_in)).await;
        if mine["estimate"]["basis"]
            .as_str()
            .unwrap()
            .contains("1 earlier run")
        {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "alice's run never counted: {mine}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (status, after) = s.post("/ffmpeg/estimate", PRO, task(&carol_in)).await;
    assert_eq!(status, 200, "{after}");
    assert_eq!(after["estimate"], before["estimate"]);
    assert!(
        after["estimate"]["basis"]
            .as_str()
            .unwrap()
            .contains("no run of"),
        "{after}"
    );
}

/// 6. With `plugins.watch`, a default plugin's file missing for a moment (a rebuild replacing
/// it) does not take its world away, and the file's return is loaded.
#[tokio::test]
async fn a_watched_reload_keeps_a_plugin_whose_file_is_gone_for_a_moment() {
    let dir = temp_dir("watched-plugins");
    for name in ["command_builder", "translator", "webhook_formatter"] {
        std::fs::copy(wasm(name), dir.join(format!("{name}.wasm"))).unwrap();
    }
    let s = Server::start_with(Options::env(&[
        ("MEDIAFORGE__PLUGINS__WATCH", "true"),
        ("MEDIAFORGE__PLUGINS__DEFAULT_DIR", dir.to_str().unwrap()),
    ]))
    .await;
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let task = json!({"task": crate::cache::transcode(&input, "o.mp4")});
    let builder = dir.join("command_builder.wasm");
    let kept = dir.join("command_builder.wasm.away");
    std::fs::rename(&builder, &kept).unwrap();
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let (status, body) = s.post("/ffmpeg/validate", ALICE, task.clone()).await;
    assert_eq!(status, 200, "while the file was gone: {body}");
    std::fs::rename(&kept, &builder).unwrap();
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let (status, body) = s.post("/ffmpeg/validate", ALICE, task).await;
    assert_eq!(status, 200, "after it came back: {body}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// 7. A concat list behind an ID3v2 tag is still a list (ffmpeg skips the tag before it probes),
/// so the host checks it: an entry naming a host file is refused.
#[tokio::test]
async fn a_concat_list_behind_an_id3_tag_is_checked() {
    let s = Server::start().await;
    let mut bytes = b"ID3\x04\x00\x00\x00\x00\x00\x14".to_vec();
    bytes.extend_from_slice(&[0u8; 20]);
    bytes.extend_from_slice(b"ffconcat version 1.0\nfile '/etc/passwd'\n");
    let list = s.upload(ALICE, None, "song.mp3", bytes).await;
    let (status, body) = s
        .process(
            ALICE,
            json!({"inputs": [{"file_path": list}],
                   "outputs": [{"file": "o.wav", "options": []}]}),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .starts_with("Concat list 'song.mp3' is not allowed"),
        "{body}"
    );
}

/// 8. A URL whose last segment is 120 four-byte letters is stored under a name of at most 255
/// bytes, which can then be downloaded and deleted.
#[tokio::test]
async fn a_long_url_name_fits_the_byte_limit() {
    let encoded = "%F0%9D%92%9C".repeat(120);
    let path = format!("/{encoded}.mp4");
    let https = crate::servers::HttpsServer::start(vec![(
        path.as_str(),
        crate::servers::Route::Body(std::fs::read(media().short()).unwrap()),
    )])
    .await;
    let s = Server::start_with(Options::env(&[(
        "MEDIAFORGE__NET__EXTRA_CA_FILE",
        https.ca_file.to_str().unwrap(),
    )]))
    .await;
    let dir = s.mkdir(ALICE).await;
    let (status, body) = s
        .process(
            ALICE,
            json!({"inputs": [{"file_path": https.url(&path)}], "output_dir_id": dir,
                   "outputs": [{"file": "f.png", "options": ["-frames:v", "1"]}]}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let names = s.file_names(ALICE, &dir).await;
    let imported = names
        .iter()
        .find(|n| n.ends_with(".mp4"))
        .expect("the import");
    assert!(imported.len() <= 255, "{} bytes", imported.len());
    let file_path = format!("{dir}/{imported}");
    let escaped: String =
        percent_encoding::utf8_percent_encode(&file_path, percent_encoding::NON_ALPHANUMERIC)
            .to_string()
            .replace("%2F", "/");
    assert_eq!(
        s.download(ALICE, &escaped).await,
        std::fs::read(media().short()).unwrap()
    );
    let (status, body) = s.delete(&format!("/file/{escaped}"), ALICE).await;
    assert_eq!(status, 200, "{body}");
}

/// 9. Every plan bounds the bytes an account keeps: without `max_storage_gb`, 50 files of the
/// plan's largest size. A 4 s colour source written raw (311 MB from nothing) is refused with
/// the plan's 403 and leaves nothing stored.
#[tokio::test]
async fn outputs_are_bounded_by_a_default_storage_limit() {
    let s = Server::start().await;
    let dir = s.mkdir(BOB).await;
    let tiny = make_media(
        &media().dir,
        &[
            "-f",
            "lavfi",
            "-i",
            "color=c=black:size=16x16",
            "-frames:v",
            "1",
        ],
        "tiny.png",
    );
    let input = s.upload_file(BOB, Some(&dir), &tiny).await;
    let (status, body) = s
        .process(
            BOB,
            json!({"inputs": [{"file_path": input}],
                   "outputs": [{"file": "raw.yuv", "options": [
                       "-filter_complex", "color=size=1920x1080:rate=25:duration=4",
                       "-f", "rawvideo", "-pix_fmt", "yuv420p"]}]}),
        )
        .await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["error"], "Storage limit exceeded");
    assert_eq!(s.file_names(BOB, &dir).await, vec!["tiny.png".to_string()]);
    // Two outputs of 31 MB: each fits the 50 MB alone, together they do not. The check is made
    // once, for all of a task's outputs (`pipeline/register.rs`): refused, neither kept.
    let raw = |name: &str| {
        json!({"file": name, "options": [
            "-filter_complex", "color=size=1920x1080:rate=25:duration=0.4",
            "-f", "rawvideo", "-pix_fmt", "yuv420p"]})
    };
    let (status, body) = s
        .process(
            BOB,
            json!({"inputs": [{"file_path": input}], "outputs": [raw("a.yuv"), raw("b.yuv")]}),
        )
        .await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["error"], "Storage limit exceeded");
    assert_eq!(s.file_names(BOB, &dir).await, vec!["tiny.png".to_string()]);
    // One of them alone is stored.
    let (status, body) = s
        .process(
            BOB,
            json!({"inputs": [{"file_path": input}], "outputs": [raw("a.yuv")]}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
}

/// 10. A URL that drips a byte at a time is dropped once it falls under the minimum rate after
/// the grace, not after the whole import timeout.
#[tokio::test]
async fn a_dripping_url_is_dropped_after_the_grace() {
    let https = crate::servers::HttpsServer::start(vec![(
        "/drip.mp4",
        crate::servers::Route::Drip {
            total: 10_000,
            every_ms: 500,
        },
    )])
    .await;
    let s = Server::start_with(Options::env(&[
        (
            "MEDIAFORGE__NET__EXTRA_CA_FILE",
            https.ca_file.to_str().unwrap(),
        ),
        ("MEDIAFORGE__NET__MIN_BYTES_PER_S", "1000"),
        ("MEDIAFORGE__NET__SLOW_GRACE_S", "2"),
    ]))
    .await;
    let started = std::time::Instant::now();
    let (status, body) = s
        .process(
            ALICE,
            json!({"inputs": [{"file_path": https.url("/drip.mp4")}],
                   "outputs": [{"file": "f.png", "options": ["-frames:v", "1"]}]}),
        )
        .await;
    assert_eq!(status, 504, "{body}");
    assert_eq!(
        body["error"],
        "Could not fetch input URL: it sent less than 1000 bytes/s on average after the first 2 s"
    );
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
}

/// 11. An old timelapse client: its frames are form parts only its concat list names. In legacy
/// mode the request's parts are the task's inputs, so the list may name them.
#[tokio::test]
async fn legacy_frames_named_only_by_the_list_are_inputs() {
    let s = Server::start_with(Options::env(&[("MEDIAFORGE__COMPAT__LEGACY_RUN", "true")])).await;
    let frame = |color: &str| {
        let path = make_media(
            &media().dir,
            &[
                "-f",
                "lavfi",
                "-i",
                &format!("color=c={color}:size=64x48"),
                "-frames:v",
                "1",
            ],
            &format!("frame-{color}.png"),
        );
        std::fs::read(path).unwrap()
    };
    let list = b"ffconcat version 1.0\nfile f1.png\nduration 0.5\nfile f2.png\nduration 0.5\nfile f3.png\nduration 0.5\n".to_vec();
    let command = json!({"inputs": [{"file": "frames.txt", "options": ["-f", "concat", "-safe", "0"]}],
                         "outputs": [{"file": "timelapse.mp4", "options": ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-r", "10"]}]})
    .to_string();
    let files = [
        ("frames.txt", list),
        ("f1.png", frame("red")),
        ("f2.png", frame("green")),
        ("f3.png", frame("blue")),
    ];
    let res = crate::legacy::legacy_run(&s, &command, &files).await;
    let status = res.status();
    let got: Value = res.json().await.unwrap();
    assert_eq!(status, 200, "{got}");
    let video = probe_bytes(&s.fetch_outputs(&got).await[0].1, "mp4");
    assert_eq!(stream(&video, "video").unwrap()["width"], 64);
    assert!((duration(&video) - 1.5).abs() < 0.3, "{}", duration(&video));
}

/// 11. Clients check a key with GET /: 200 with its account for a valid key, 401 otherwise.
#[tokio::test]
async fn the_root_answers_whose_key_it_is() {
    let s = Server::start().await;
    for prefix in ["", "/v1"] {
        let (status, body) = s.get(&format!("{prefix}/"), ALICE).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["account"], "alice");
        assert_eq!(body["plan"], "pro");
        let (status, body) = s.get(&format!("{prefix}/"), "not_a_key_123456").await;
        assert_eq!(status, 401, "{body}");
        assert_eq!(body["ok"], false);
    }
    let (status, _) = s.call("GET", "/", None, None).await;
    assert_eq!(status, 401);
}
