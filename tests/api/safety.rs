//! Issue #15: what one tenant sends cannot overwrite its inputs, repeat a job, outlive its
//! directory, exhaust memory or disk, read operator figures, and faults lose nothing.

use serde_json::json;

use crate::support::*;

/// Names ffmpeg produces (a numbering pattern, HLS segments) that equal one of the task's
/// inputs fail the task with the spec's 400 and register nothing; the input is unchanged.
#[tokio::test]
async fn produced_names_never_replace_an_input() {
    let s = Server::start().await;
    let m = media();
    let still = s
        .upload(
            ALICE,
            None,
            "still_1.png",
            std::fs::read(m.image()).unwrap(),
        )
        .await;
    let dir = still.split('/').next().unwrap().to_string();
    let clip = s.upload_file(ALICE, Some(&dir), &m.short()).await;
    let before = s.download(ALICE, &still).await;

    let (status, body) = s
        .process(ALICE, json!({
            "inputs": [{"file_path": clip}, {"file_path": still}],
            "outputs": [{"file": "still_%d.png", "maps": ["0:v"], "options": ["-frames:v", "2"]}],
        }))
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        body["error"],
        "Output filename 'still_1.png' conflicts with an existing input file"
    );
    assert_eq!(
        s.download(ALICE, &still).await,
        before,
        "the input was replaced"
    );
    let (_, other) = s.get(&format!("/file/{dir}/still_2.png"), ALICE).await;
    assert_eq!(other["ok"], false, "an output was registered: {other}");

    // An HLS playlist whose first segment is named like an input.
    let clip_bytes = std::fs::read(m.short()).unwrap();
    let seg = s
        .upload(ALICE, Some(&dir), "p0.ts", clip_bytes.clone())
        .await;
    let (status, body) = s
        .process(ALICE, json!({
            "inputs": [{"file_path": clip}, {"file_path": seg}],
            "outputs": [{"file": "p.m3u8", "maps": ["0:v"], "options": ["-c:v", "libx264", "-preset", "ultrafast", "-f", "hls", "-hls_time", "1"]}],
        }))
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        body["error"],
        "Output filename 'p0.ts' conflicts with an existing input file"
    );
    assert!(
        s.download(ALICE, &seg).await == clip_bytes,
        "the input was replaced"
    );
    let (_, listing) = s.get(&format!("/directory/{dir}"), ALICE).await;
    let names: Vec<&str> = listing["files"]
        .as_array()
        .map(|f| f.iter().filter_map(|f| f["file_name"].as_str()).collect())
        .unwrap_or_default();
    assert!(!names.contains(&"p.m3u8"), "{listing}");
}

/// Simultaneous submissions with one `Idempotency-Key` make one job.
#[tokio::test]
async fn concurrent_submissions_with_one_idempotency_key_make_one_job() {
    let s = Server::start().await;
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let task = json!({ "task": {
        "inputs": [{"file_path": input}],
        "outputs": [{"file": "one.png", "options": ["-frames:v", "1"]}],
    }});
    let posts = (0..8).map(|_| s.submit_idempotent(ALICE, "same-order", &task));
    let mut ids = std::collections::BTreeSet::new();
    for (status, body) in futures_util::future::join_all(posts).await {
        assert!(status.is_success(), "{status} {body}");
        ids.insert(body["job_id"].as_str().unwrap().to_string());
    }
    assert_eq!(ids.len(), 1, "{ids:?}");
    let (_, page) = s.get("/jobs", ALICE).await;
    assert_eq!(page["pagination"]["total"], 1, "{page}");
}

/// Every object file under the local store.
fn stored_objects(s: &Server) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for shard in std::fs::read_dir(s.dir.join("files/objects")).unwrap() {
        for object in std::fs::read_dir(shard.unwrap().path()).unwrap() {
            found.push(object.unwrap().path());
        }
    }
    found
}

/// A task that outlives its output directory fails, and none of its bytes stay behind: once
/// the directory's sweep ran, the store holds nothing.
#[tokio::test]
async fn a_task_that_outlives_its_directory_leaves_nothing() {
    let s = Server::start().await;
    let (status, dir) = s.post("/directory", ALICE, json!({"ttl": 4})).await;
    assert_eq!(status, 200, "{dir}");
    let dir = dir["directory"]["id"].as_str().unwrap().to_string();
    let input = s.upload_file(ALICE, Some(&dir), &media().short()).await;
    // About 6 s of real-time reading, two outputs.
    let (status, body) = s
        .process(ALICE, json!({
            "inputs": [{"file_path": input, "options": ["-re", "-stream_loop", "2"]}],
            "outputs": [
                {"file": "a.mp4", "options": ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"]},
                {"file": "b.wav", "maps": ["0:a"]},
            ],
        }))
        .await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(
        body["error"],
        "The output directory expired before the task finished; its outputs were discarded"
    );
    let (status, _) = s.get(&format!("/directory/{dir}"), ALICE).await;
    assert_eq!(status, 404);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !stored_objects(&s).is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "objects left: {:?}",
            stored_objects(&s)
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

/// Bytes in the store that no record refers to are removed after the grace period; objects
/// with a record, and files that are not object ids, stay.
#[tokio::test]
async fn orphaned_objects_are_swept() {
    let s = Server::start_with(Options::env(&[(
        "MEDIAFORGE__STORAGE__ORPHAN_GRACE_S",
        "2",
    )]))
    .await;
    let kept = s.upload(ALICE, None, "kept.bin", b"kept".to_vec()).await;
    let shard = s.dir.join("files/objects/Zz");
    std::fs::create_dir_all(&shard).unwrap();
    let orphan = shard.join("Zz3456789012345678901234567890ab");
    let foreign = shard.join("not-an-object.txt");
    std::fs::write(&orphan, b"orphan").unwrap();
    std::fs::write(&foreign, b"foreign").unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while orphan.exists() {
        assert!(std::time::Instant::now() < deadline, "the orphan stayed");
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    assert!(foreign.exists());
    assert_eq!(s.download(ALICE, &kept).await, b"kept");
}

/// Every run has a memory ceiling: a filter graph that buffers far more than it allows fails
/// with a message naming the limit, while ordinary runs under the same ceiling succeed.
#[tokio::test]
async fn a_run_over_the_memory_ceiling_fails_clearly() {
    let s = Server::start_with(Options::env(&[(
        "MEDIAFORGE__LIMITS__PROCESS_MEMORY_MB",
        "512",
    )]))
    .await;
    let clip = s.upload_file(ALICE, None, &media().short()).await;
    let (status, body) = s
        .process(ALICE, json!({
            "inputs": [{"file_path": clip}],
            "outputs": [{"file": "small.mp4", "options": ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"]}],
        }))
        .await;
    assert_eq!(status, 200, "{body}");
    // Thirty 4096x4096 frames held at once: about 750 MB.
    let (status, body) = s
        .process(ALICE, json!({
            "inputs": [{"file_path": clip}],
            "outputs": [{"file": "big.mp4", "options": ["-vf", "scale=4096:4096,format=yuv420p,loop=loop=1:size=30:start=0,scale=64:64", "-c:v", "libx264", "-preset", "ultrafast", "-an"]}],
        }))
        .await;
    assert_eq!(status, 500, "{body}");
    assert_eq!(
        body["error"], "Processing exceeded the memory limit of 512 MB",
        "{body}"
    );
}

/// An argv the kernel would refuse is a 400 naming the limit, not a failed exec.
#[tokio::test]
async fn an_overlong_command_is_refused_with_the_limit() {
    let s = Server::start_with(Options::env(&[(
        "MEDIAFORGE__SERVER__MAX_JSON_BODY_KB",
        "4096",
    )]))
    .await;
    let clip = s.upload_file(ALICE, None, &media().short()).await;
    // Within the command builder's bounds (4 KB a value, 512 tokens an output): 1.2 MB in all.
    let outputs: Vec<_> = (0..4)
        .map(|o| {
            let mut options = vec!["-c".to_string(), "copy".to_string()];
            for i in 0..200 {
                options.push("-metadata".into());
                options.push(format!("c{i}={}", "x".repeat(1500)));
            }
            json!({"file": format!("long{o}.mp4"), "options": options})
        })
        .collect();
    let (status, body) = s
        .process(
            ALICE,
            json!({"inputs": [{"file_path": clip}], "outputs": outputs}),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        body["error"],
        "The command is too long: arguments may total at most 1048576 bytes, each at most 131071"
    );
}

/// `/metrics` (job counts across tenants) and `/readyz`'s detail are for the operator: with
/// the token on the main port, or through the operator listener; `/healthz` stays public.
#[tokio::test]
async fn operator_figures_need_the_token_or_the_operator_listener() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let listen = format!("127.0.0.1:{port}");
    let s = Server::start_with(Options::env(&[(
        "MEDIAFORGE__SERVER__OPERATOR_LISTEN",
        &listen,
    )]))
    .await;
    let http = s.http();
    for auth in [None, Some("Bearer wrong"), Some(&*format!("Basic {ALICE}"))] {
        let mut req = http.get(s.url("/metrics"));
        if let Some(auth) = auth {
            req = req.header("Authorization", auth);
        }
        let res = req.send().await.unwrap();
        assert_eq!(res.status(), 401, "{auth:?}");
        let text = res.text().await.unwrap();
        assert!(!text.contains("mediaforge_"), "{text}");
    }
    let (status, ready) = s.call("GET", "/readyz", None, None).await;
    assert_eq!(status, 200);
    assert_eq!(ready, json!({"ok": true}));
    let (status, _) = s.call("GET", "/healthz", None, None).await;
    assert_eq!(status, 200);

    assert!(s.metrics().await.contains("mediaforge_jobs"));
    let (_, ready) = s.readyz().await;
    assert_eq!(ready["database"], "ok");

    let res = http
        .get(format!("http://{listen}/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert!(res.text().await.unwrap().contains("mediaforge_jobs"));
    let ready: serde_json::Value = http
        .get(format!("http://{listen}/readyz"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(ready["database"], "ok", "{ready}");
}

const ERIN: &str = "key_erin_1234567";

/// 50 raw 320x240 frames of the short clip: 5.7 MB from a 55 KB input.
fn raw_video(clip: &str) -> serde_json::Value {
    json!({
        "inputs": [{"file_path": clip}],
        "outputs": [{"file": "raw.yuv", "options": ["-f", "rawvideo", "-pix_fmt", "yuv420p"]}],
    })
}

/// A plan's `max_storage_gb` bounds the bytes an account keeps: an output that would pass it
/// fails the task with 403 and registers nothing; an account at its limit makes no new file.
#[tokio::test]
async fn storage_per_account_is_bounded_by_the_plan() {
    let s = Server::start_with(Options {
        extra: format!(
            r#"
[plans.capped]
max_file_size_mb = 10
monthly_quota_gb = 10
max_storage_gb = 0.0002

[[accounts]]
name = "erin"
plan = "capped"
api_key = "{ERIN}"
"#
        ),
        ..Default::default()
    })
    .await;
    let clip = s.upload_file(ERIN, None, &media().short()).await;
    let dir = clip.split('/').next().unwrap().to_string();
    let (status, body) = s.process(ERIN, raw_video(&clip)).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["error"], "Storage limit exceeded");
    let (status, _) = s.get(&format!("/file/{dir}/raw.yuv"), ERIN).await;
    assert_eq!(status, 404);
    // A small output fits.
    let (status, body) = s
        .process(
            ERIN,
            json!({
                "inputs": [{"file_path": clip}],
                "outputs": [{"file": "one.png", "options": ["-frames:v", "1"]}],
            }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    // An upload takes the account past its limit (its size is known only once it lands);
    // then no new file is accepted, in any directory.
    s.upload_file(ERIN, Some(&dir), &media().tone()).await;
    let (status, body) = s
        .post("/file", ERIN, json!({"file_name": "more.bin"}))
        .await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["error"], "Storage limit exceeded");
    // Other accounts are not affected.
    let (status, _) = s
        .post("/file", ALICE, json!({"file_name": "more.bin"}))
        .await;
    assert_eq!(status, 200);
}

/// The store's filesystem full while a task's outputs go in: 507, no record and no half file
/// left, and the service works again (the space the failed copy took is freed at once).
#[tokio::test]
async fn a_full_store_fails_the_task_cleanly_and_recovers() {
    let dir = temp_dir("full");
    let files = dir.join("files");
    std::fs::create_dir_all(&files).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=1m", "tmpfs"])
        .arg(&files)
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("SKIPPED a_full_store_fails_the_task_cleanly_and_recovers: cannot mount a tmpfs");
        return;
    }
    struct Unmount(std::path::PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount").arg(&self.0).status();
        }
    }
    let _unmount = Unmount(files.clone());
    let s = Server::start_with(Options {
        dir: Some(dir.clone()),
        ..Default::default()
    })
    .await;
    let clip = s.upload_file(ALICE, None, &media().short()).await;
    let folder = clip.split('/').next().unwrap().to_string();
    let (status, body) = s.process(ALICE, raw_video(&clip)).await;
    assert_eq!(status, 507, "{body}");
    assert_eq!(body["error"], "Insufficient storage");
    let (status, _) = s.get(&format!("/file/{folder}/raw.yuv"), ALICE).await;
    assert_eq!(status, 404);
    let leftovers: Vec<_> = std::fs::read_dir(files.join("tmp")).unwrap().collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // An upload that cannot fit: the same 507, no record made ready, no spooled bytes left.
    let (status, created) = s
        .post(
            "/file",
            ALICE,
            json!({"dir_id": folder, "file_name": "big.bin"}),
        )
        .await;
    assert_eq!(status, 200, "{created}");
    let url = created["upload"]["url"].as_str().unwrap();
    let res = s
        .http()
        .put(url)
        .body(vec![7u8; 2 << 20])
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(status, 507, "{body}");
    assert_eq!(body["error"], "Insufficient storage");
    let leftovers: Vec<_> = std::fs::read_dir(files.join("tmp")).unwrap().collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let (_, info) = s.get(&format!("/file/{folder}/big.bin"), ALICE).await;
    assert_eq!(
        info["file_info"]["file_size"], 0,
        "still waiting for its bytes: {info}"
    );
    let (status, body) = s
        .process(
            ALICE,
            json!({
                "inputs": [{"file_path": clip}],
                "outputs": [{"file": "one.png", "options": ["-frames:v", "1"]}],
            }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs admitted at once hold their inputs' bytes against the month's quota from the check to
/// the charge: with room for two runs, of eight simultaneous ones exactly two run, the others
/// answer the quota's 403, and the month's usage stays within the quota.
#[tokio::test]
async fn simultaneous_runs_cannot_pass_the_quota_together() {
    const FRED: &str = "key_fred_1234567";
    let size = std::fs::metadata(media().short()).unwrap().len();
    // Room for 2 runs of short.mp4, not 3.
    let quota_gb = (size as f64 * 2.5) / 1_073_741_824.0;
    let s = Server::start_with(Options {
        extra: format!(
            r#"
[plans.metered]
max_file_size_mb = 10
monthly_quota_gb = {quota_gb}
max_concurrent_tasks = 16

[[accounts]]
name = "fred"
plan = "metered"
api_key = "{FRED}"
"#
        ),
        ..Default::default()
    })
    .await;
    let input = s.upload_file(FRED, None, &media().short()).await;
    // A run that fails is not charged and releases its hold (else only one more would run).
    let (status, body) = s.process(FRED, json!({"inputs": [{"file_path": input}], "outputs": [{"file": "a.mp4", "maps": ["0:s"]}]})).await;
    assert!(
        status.is_client_error() || status.is_server_error(),
        "{body}"
    );
    let runs = (0..8).map(|i| {
        let task = json!({"inputs": [{"file_path": input}], "outputs": [{"file": format!("f{i}.png"), "options": ["-frames:v", "1"]}]});
        let s = &s;
        async move { s.process(FRED, task).await }
    });
    let answers = futures_util::future::join_all(runs).await;
    let ran = answers.iter().filter(|(status, _)| *status == 200).count();
    for (status, body) in &answers {
        if *status != 200 {
            assert_eq!(*status, 403, "{body}");
            let error = body["error"].as_str().unwrap();
            assert!(error.starts_with("Quota exceeded"), "{error}");
        }
    }
    assert_eq!(ran, 2, "{answers:?}");
    let (_, usage) = s.get("/usage", FRED).await;
    let used_gb = usage["usage"]["input_size_gb"].as_f64().unwrap();
    assert!(used_gb <= quota_gb, "{usage}");
    let (status, body) = s.process(FRED, json!({"inputs": [{"file_path": input}], "outputs": [{"file": "g.png", "options": ["-frames:v", "1"]}]})).await;
    assert_eq!(status, 403, "{body}");
}
