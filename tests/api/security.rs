//! The attack classes (plugins/command-builder/README.md, "Always refused"), each a row, through the real binary: no byte of a host
//! file in any output or error, no request to a canary server, no write outside the job, no
//! private address fetched, no endless run, and a misbehaving plugin that fails only its call.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::servers::Canary;
use crate::support::*;

/// A line of /etc/passwd that must never come back.
const SECRET: &str = "root:x:0:0";

fn leaks(body: &Value, outputs: &[(String, Vec<u8>)]) -> bool {
    body.to_string().contains(SECRET)
        || body.to_string().contains("/etc/passwd") && body["ok"] == true
        || outputs
            .iter()
            .any(|(_, b)| String::from_utf8_lossy(b).contains(SECRET))
}

#[tokio::test]
async fn option_and_filter_attacks_are_refused() {
    let canary = Canary::start().await;
    let c = canary.port;
    let s = Server::start().await;
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let out = |options: Value| json!({"inputs": [{"file_path": input}], "outputs": [{"file": "o.mp4", "options": options}]});
    let inp = |options: Value| json!({"inputs": [{"file_path": input, "options": options}], "outputs": [{"file": "o.mp4"}]});
    let rows: Vec<(&str, Value)> = vec![
        ("tty input format", inp(json!(["-f", "tty"]))),
        ("-i inside options", out(json!(["-i", "/etc/passwd"]))),
        ("stray positional token", out(json!(["/tmp/evil.mp4"]))),
        (
            "ffmpeg 7 file-value prefix",
            out(json!(["-/vf", "/etc/passwd"])),
        ),
        (
            "filter script",
            out(json!(["-filter_script:v", "/etc/hostname"])),
        ),
        (
            "filter complex script",
            out(json!(["-filter_complex_script", "/etc/passwd"])),
        ),
        ("preset file", out(json!(["-fpre", "/etc/passwd"]))),
        (
            "movie filter",
            out(json!(["-vf", "movie=/etc/passwd:f=tty[x];[in][x]overlay"])),
        ),
        (
            "movie over tcp",
            out(json!([
                "-vf",
                format!("movie=tcp\\://127.0.0.1\\:{c}[x];[in][x]overlay")
            ])),
        ),
        (
            "drawtext textfile",
            out(json!(["-vf", "drawtext=textfile=/etc/passwd"])),
        ),
        (
            "subtitles file",
            out(json!(["-vf", "subtitles=/etc/passwd"])),
        ),
        ("sendcmd", out(json!(["-vf", "sendcmd=f=/etc/passwd,null"]))),
        ("zmq", out(json!(["-vf", "zmq,null"]))),
        ("ladspa", out(json!(["-af", "ladspa=f=/tmp/x.so"]))),
        ("dump attachment", out(json!(["-dump_attachment:t", ""]))),
        ("attach", out(json!(["-attach", "/etc/passwd"]))),
        ("pass log", out(json!(["-passlogfile", "/tmp/x"]))),
        ("vstats", out(json!(["-vstats_file", "/tmp/x"]))),
        ("report", out(json!(["-report"]))),
        ("sdp file", out(json!(["-sdp_file", "/tmp/x.sdp"]))),
        ("progress file", out(json!(["-progress", "/tmp/x"]))),
        ("concat unsafe", inp(json!(["-f", "concat", "-safe", "0"]))),
        ("hls extensions", inp(json!(["-allowed_extensions", "ALL"]))),
        (
            "protocol whitelist",
            inp(json!(["-protocol_whitelist", "file,http,tcp"])),
        ),
        ("endless loop", inp(json!(["-stream_loop", "-1"]))),
        ("tee muxer", out(json!(["-f", "tee", "[f=mp4]/tmp/x.mp4"]))),
        (
            "segment outside",
            out(json!(["-f", "segment", "-segment_list", "/tmp/list.m3u8"])),
        ),
        (
            "hls segments outside",
            out(json!([
                "-f",
                "hls",
                "-hls_segment_filename",
                "/tmp/seg_%03d.ts"
            ])),
        ),
    ];
    for (name, task) in rows {
        let (status, body) = s.process(ALICE, task.clone()).await;
        assert_eq!(status, 400, "{name}: {task} -> {body}");
        assert_eq!(body["ok"], false, "{name}");
        assert!(!leaks(&body, &[]), "{name} leaked: {body}");
    }
    for (name, file) in [
        ("parent path", "../escaped.mp4"),
        ("absolute", "/tmp/x.mp4"),
        ("option-like", "-y.mp4"),
    ] {
        let (status, body) = s
            .process(
                ALICE,
                json!({"inputs": [{"file_path": input}], "outputs": [{"file": file}]}),
            )
            .await;
        assert_eq!(status, 400, "{name}: {body}");
    }
    assert!(
        !std::path::Path::new("/tmp/seg_000.ts").exists()
            && !std::path::Path::new("/tmp/x").exists()
    );
    assert_eq!(canary.hits(), 0);
}

#[tokio::test]
async fn playlists_cannot_reach_host_files_or_the_network() {
    let canary = Canary::start().await;
    let s = Server::start().await;
    let dir = s.mkdir(ALICE).await;
    let playlist = format!(
        "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\n/etc/passwd\n#EXTINF:1.0,\nhttp://127.0.0.1:{}/seg.ts\n#EXTINF:1.0,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n",
        canary.port
    );
    let list = s
        .upload(ALICE, Some(&dir), "evil.m3u8", playlist.into_bytes())
        .await;
    let tasks = [
        json!({"inputs": [{"file_path": list}], "outputs": [{"file": "a.mp4"}]}),
        json!({"inputs": [{"file_path": list, "options": ["-f", "hls"]}], "outputs": [{"file": "b.mp4"}]}),
        json!({"inputs": [{"file_path": list}], "outputs": [{"file": "c.txt", "options": ["-f", "data", "-map", "0"]}]}),
    ];
    for task in tasks {
        let (status, body) = s.process(ALICE, task.clone()).await;
        assert_ne!(status, 200, "{task} -> {body}");
        let outputs = if status == 200 {
            s.fetch_outputs(&body).await
        } else {
            Vec::new()
        };
        assert!(!leaks(&body, &outputs), "{task} leaked: {body}");
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(canary.hits(), 0, "the sandbox has no network");
}

/// Concat lists (plugins/command-builder/README.md, "Concat lists"): every `file` entry must
/// name another input of the task; anything else is a 400 naming the entry, whether the list is
/// declared (`-f concat -safe 0`) or found by its first line, and in the dry run too.
#[tokio::test]
async fn concat_lists_cannot_reach_beyond_the_tasks_inputs() {
    let canary = Canary::start().await;
    let s = Server::start().await;
    let dir = s.mkdir(ALICE).await;
    let clip = std::fs::read(media().short()).unwrap();
    let a = s.upload(ALICE, Some(&dir), "a.mp4", clip.clone()).await;
    // In the same directory, but not an input of the task.
    s.upload(ALICE, Some(&dir), "other.mp4", clip).await;
    let inner = s
        .upload(
            ALICE,
            Some(&dir),
            "inner.ffconcat",
            b"file a.mp4\n".to_vec(),
        )
        .await;
    let host_path = media().short().display().to_string();
    let canary_url = format!("http://127.0.0.1:{}/x.mp4", canary.port);
    let rows: Vec<(&str, String, String)> = vec![
        (
            "host path",
            format!("file '{host_path}'"),
            host_path.clone(),
        ),
        (
            "/etc/passwd",
            "file /etc/passwd".into(),
            "/etc/passwd".into(),
        ),
        (
            "canary URL",
            format!("file {canary_url}"),
            canary_url.clone(),
        ),
        ("protocol", "file file:a.mp4".into(), "file:a.mp4".into()),
        ("parent", "file ../in/1.mp4".into(), "../in/1.mp4".into()),
        ("staged name", "file 1.mp4".into(), "1.mp4".into()),
        (
            "not in the task",
            "file other.mp4".into(),
            "other.mp4".into(),
        ),
        (
            "nested list",
            "file inner.ffconcat".into(),
            "inner.ffconcat".into(),
        ),
        ("itself", "file evil8.txt".into(), "evil8.txt".into()),
    ];
    for (i, (row, entry, named)) in rows.iter().enumerate() {
        let text = format!("ffconcat version 1.0\nfile a.mp4\n{entry}\n");
        let name = format!("evil{i}.txt");
        let list = s.upload(ALICE, Some(&dir), &name, text.into_bytes()).await;
        for (how, options) in [
            ("declared", json!(["-f", "concat", "-safe", "0"])),
            ("detected", json!([])),
        ] {
            let task = json!({"inputs": [{"file_path": list, "options": options}, {"file_path": a}, {"file_path": inner}],
                              "outputs": [{"file": format!("out{i}.mp4"), "options": ["-t", "1"]}]});
            for route in ["/ffmpeg/process", "/ffmpeg/validate"] {
                let (status, body) = s.post(route, ALICE, json!({ "task": task })).await;
                assert_eq!(status, 400, "{row} {how} {route}: {body}");
                let error = body["error"].as_str().unwrap();
                assert!(
                    error.starts_with(&format!("Concat list '{name}' is not allowed: "))
                        && error.contains(&format!("'{named}'")),
                    "{row} {how} {route}: {error}"
                );
                assert!(!leaks(&body, &[]), "{row} leaked: {body}");
                if how == "detected" {
                    // A list found by its bytes is only checked when the task runs.
                    break;
                }
            }
        }
    }
    let names = s.file_names(ALICE, &dir).await;
    assert!(
        !names.iter().any(|n| n.starts_with("out")),
        "no output kept: {names:?}"
    );
    // Other directives (demuxer options, streams) are refused by name; lists in playlists and
    // other demuxers stay refused (playlists_cannot_reach_host_files_or_the_network).
    let list = s
        .upload(
            ALICE,
            Some(&dir),
            "opts.txt",
            b"file a.mp4\noption safe 0\n".to_vec(),
        )
        .await;
    let (status, body) = s
        .process(ALICE, json!({"inputs": [{"file_path": list, "options": ["-f", "concat"]}, {"file_path": a}], "outputs": [{"file": "p.mp4"}]}))
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("directive 'option'"),
        "{body}"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(canary.hits(), 0);
}

#[tokio::test]
async fn private_url_spellings_are_refused() {
    let canary = Canary::start().await;
    let p = canary.port;
    let s = Server::start_with(Options::env(&[(
        "MEDIAFORGE__NET__ALLOW_PRIVATE_ADDRESSES",
        "false",
    )]))
    .await;
    let urls = [
        format!("https://127.0.0.1:{p}/a.mp4"),
        format!("https://127.1:{p}/a.mp4"),
        format!("https://2130706433:{p}/a.mp4"),
        format!("https://0x7f000001:{p}/a.mp4"),
        format!("https://0177.0.0.1:{p}/a.mp4"),
        format!("https://[::1]:{p}/a.mp4"),
        format!("https://[::ffff:127.0.0.1]:{p}/a.mp4"),
        format!("https://localhost:{p}/a.mp4"),
        format!("https://169.254.169.254/latest/meta-data/"),
        format!("https://10.0.0.1/a.mp4"),
        format!("https://[fd00:ec2::254]/a.mp4"),
        format!("http://127.0.0.1:{p}/a.mp4"),
        format!("http://example.com/a.mp4"),
        format!("ftp://example.com/a.mp4"),
    ];
    for url in urls {
        let (status, body) = s
            .process(
                ALICE,
                json!({"inputs": [{"file_path": url}], "outputs": [{"file": "o.mp4"}]}),
            )
            .await;
        assert_eq!(status, 400, "{url}: {body}");
        assert_eq!(body["ok"], false);
    }
    assert_eq!(canary.hits(), 0);
    let (_, dirs) = s.get("/directory", ALICE).await;
    assert_eq!(
        dirs["directories"],
        json!([]),
        "a refused task leaves no directory behind"
    );
}

#[tokio::test]
async fn a_never_ending_task_is_killed_while_the_server_keeps_answering() {
    let s = Server::start_with(Options::env(&[(
        "MEDIAFORGE__LIMITS__PROCESS_TIMEOUT_S",
        "2",
    )]))
    .await;
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let task = json!({
        "inputs": [{"file_path": input, "options": ["-re", "-stream_loop", "50"]}],
        "outputs": [{"file": "long.mp4", "options": ["-c:v", "libx264", "-preset", "ultrafast"]}],
    });
    let started = Instant::now();
    let pending = {
        let s_url = s.url("/ffmpeg/process");
        let client = s.http().clone();
        tokio::spawn(async move {
            let res = client
                .post(s_url)
                .header("Authorization", format!("Basic {ALICE}"))
                .json(&json!({"task": task}))
                .send()
                .await
                .unwrap();
            (res.status(), res.json::<Value>().await.unwrap())
        })
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    let t = Instant::now();
    let (status, _) = s.call("GET", "/healthz", None, None).await;
    assert_eq!(status, 200);
    assert!(
        t.elapsed() < Duration::from_secs(1),
        "health answered while ffmpeg runs"
    );
    let (status, body) = pending.await.unwrap();
    assert_eq!(status, 500, "{body}");
    assert_eq!(body["error"], "Processing timed out after 2 s");
    assert!(started.elapsed() < Duration::from_secs(10));
    // No ffmpeg of this server is left running.
    let out = std::process::Command::new("pgrep")
        .args(["-f", &s.dir.display().to_string()])
        .output()
        .unwrap();
    let pids = String::from_utf8_lossy(&out.stdout);
    let strays: Vec<&str> = pids
        .lines()
        .filter(|p| p.trim() != s.pid().to_string())
        .collect();
    assert!(strays.is_empty(), "stray processes: {strays:?}");
}

#[tokio::test]
async fn a_misbehaving_plugin_fails_only_its_own_call() {
    for (mode, want) in [
        ("trap", "trapped"),
        ("spin", "ran out of time"),
        ("sleep", "ran out of time"),
        ("hog", "ran out of memory"),
    ] {
        let extra = format!(
            "[plugins.command_builder]\npath = \"{}\"\nconfig = {{ mode = \"{mode}\" }}\n",
            wasm("misbehaving").display()
        );
        let s = Server::start_with(Options {
            extra,
            env: vec![("MEDIAFORGE__PLUGINS__TIMEOUT_MS".into(), "500".into())],
            ..Default::default()
        })
        .await;
        let input = s.upload(ALICE, None, "a.mp4", b"x".to_vec()).await;
        let task =
            json!({"task": {"inputs": [{"file_path": input}], "outputs": [{"file": "o.mp4"}]}});
        for _ in 0..2 {
            let t = Instant::now();
            let (status, body) = s.post("/ffmpeg/validate", ALICE, task.clone()).await;
            assert_eq!(status, 500, "{mode}: {body}");
            let error = body["error"].as_str().unwrap();
            assert!(
                error.contains("command-builder") && error.contains(want),
                "{mode}: {error}"
            );
            assert!(
                t.elapsed() < Duration::from_secs(5),
                "{mode} took {:?}",
                t.elapsed()
            );
        }
        let (status, _) = s.call("GET", "/healthz", None, None).await;
        assert_eq!(status, 200, "{mode}: the server keeps serving");
        let (status, _) = s.get("/directory", ALICE).await;
        assert_eq!(status, 200);
    }
}

/// Where bubblewrap cannot run, Landlock confines the run instead: tasks work, and neither
/// host files nor the network are reachable from ffmpeg.
#[tokio::test]
async fn the_landlock_sandbox_runs_tasks_and_confines_them() {
    let canary = Canary::start().await;
    let s = Server::start_with(Options::env(&[("MEDIAFORGE__SANDBOX__MODE", "landlock")])).await;
    let (_, ready) = s.readyz().await;
    assert_eq!(ready["sandbox"], "landlock", "{ready}");
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let (status, body) = s
        .process(
            ALICE,
            json!({"inputs": [{"file_path": input}],
                   "outputs": [{"file": "t.png", "options": ["-frames:v", "1"]},
                               {"file": "s.mp4", "options": ["-t", "1", "-c:v", "libx264", "-preset", "ultrafast"]}]}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let out = s.fetch_outputs(&body).await;
    let bytes = |name: &str| &out.iter().find(|(n, _)| n == name).unwrap().1;
    assert_eq!(&bytes("t.png")[1..4], b"PNG");
    assert!((duration(&probe_bytes(bytes("s.mp4"), "mp4")) - 1.0).abs() < 0.2);

    // The layer itself, below the option checks: ffmpeg run by hand under it.
    let (sandbox, job, inputs, outputs) =
        sandbox_job(mediaforge::config::SandboxMode::Landlock, "landlock").await;
    let run = |args: Vec<String>| sandboxed_ffmpeg(&sandbox, &inputs, &outputs, args, 1 << 30);
    let arg = |s: &str| s.to_string();
    let ok = run(vec![
        arg("-v"),
        arg("error"),
        arg("-i"),
        inputs.join("0").display().to_string(),
        arg("-frames:v"),
        arg("1"),
        outputs.join("ok.png").display().to_string(),
    ])
    .await;
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    for (what, args) in [
        (
            "read a host file",
            vec![
                arg("-f"),
                arg("data"),
                arg("-i"),
                arg("/etc/passwd"),
                arg("-map"),
                arg("0"),
                arg("-c"),
                arg("copy"),
                arg("-f"),
                arg("data"),
                outputs.join("p.txt").display().to_string(),
            ],
        ),
        (
            "write outside the output folder",
            vec![
                arg("-i"),
                inputs.join("0").display().to_string(),
                arg("-frames:v"),
                arg("1"),
                inputs.join("x.png").display().to_string(),
            ],
        ),
        (
            "connect out",
            vec![
                arg("-i"),
                format!("http://127.0.0.1:{}/x.ts", canary.port),
                outputs.join("n.mp4").display().to_string(),
            ],
        ),
    ] {
        let out = run(args).await;
        assert!(!out.status.success(), "{what} must fail");
    }
    assert!(
        !outputs.join("p.txt").exists() || std::fs::read(outputs.join("p.txt")).unwrap().is_empty()
    );
    assert!(!inputs.join("x.png").exists());
    assert_eq!(canary.hits(), 0, "no connection left the sandbox");
    let _ = std::fs::remove_dir_all(job);
}

/// A sandbox layer as the server detects it, and a job folder laid out as a run's: `in/0` (the
/// short test clip, read-only to the run) and `out/` (writable).
async fn sandbox_job(
    mode: mediaforge::config::SandboxMode,
    name: &str,
) -> (
    mediaforge::media::sandbox::Sandbox,
    std::path::PathBuf,
    std::path::PathBuf,
    std::path::PathBuf,
) {
    let sandbox = mediaforge::media::sandbox::Sandbox::detect(&mediaforge::config::Sandbox {
        mode,
        ..Default::default()
    })
    .await
    .unwrap();
    let job = temp_dir(name);
    let (inputs, outputs) = (job.join("in"), job.join("out"));
    std::fs::create_dir_all(&inputs).unwrap();
    std::fs::create_dir_all(&outputs).unwrap();
    std::fs::copy(media().short(), inputs.join("0")).unwrap();
    (sandbox, job, inputs, outputs)
}

/// ffmpeg with `args` under `sandbox`, the job's folders as a run has them, at most
/// `file_size` bytes a file.
async fn sandboxed_ffmpeg(
    sandbox: &mediaforge::media::sandbox::Sandbox,
    inputs: &std::path::Path,
    outputs: &std::path::Path,
    args: Vec<String>,
    file_size: u64,
) -> std::process::Output {
    let limits = mediaforge::media::sandbox::Rlimits {
        file_size,
        cpu_seconds: 60,
        open_files: 1024,
    };
    let mut cmd = sandbox.command(
        "ffmpeg",
        &args,
        &[inputs.to_path_buf()],
        &[outputs.to_path_buf()],
        outputs,
        limits,
    );
    cmd.output().await.unwrap()
}

/// Under bubblewrap the limits are set by `prlimit` inside the sandbox (so the server is not
/// forked to set them): a run that writes past its file-size limit is stopped there, and the
/// same run under a larger limit succeeds.
#[tokio::test]
async fn the_bubblewrap_sandbox_applies_the_run_limits() {
    let (sandbox, job, inputs, outputs) =
        sandbox_job(mediaforge::config::SandboxMode::Bwrap, "bwrap-limits").await;
    let run = |file_size: u64, name: &str| {
        let args: Vec<String> = [
            "-v",
            "error",
            "-i",
            &inputs.join("0").display().to_string(),
            "-c:v",
            "rawvideo",
            "-f",
            "nut",
            &outputs.join(name).display().to_string(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        sandboxed_ffmpeg(&sandbox, &inputs, &outputs, args, file_size)
    };
    let small = run(100_000, "small.nut").await;
    assert!(!small.status.success(), "a run past RLIMIT_FSIZE must fail");
    let written = std::fs::metadata(outputs.join("small.nut")).map_or(0, |m| m.len());
    assert!(written <= 100_000, "{written} bytes written past the limit");
    let large = run(1 << 30, "large.nut").await;
    assert!(
        large.status.success(),
        "{}",
        String::from_utf8_lossy(&large.stderr)
    );
    assert!(std::fs::metadata(outputs.join("large.nut")).unwrap().len() > 100_000);
    let _ = std::fs::remove_dir_all(job);
}

/// `@{name}` in text that lands in the output (metadata, drawn text) becomes the input's name:
/// no path of the host is written into a tenant's file.
#[tokio::test]
async fn placeholders_in_text_write_names_not_host_paths() {
    let s = Server::start().await;
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let (status, body) = s
        .process(
            ALICE,
            json!({"inputs": [{"file_path": input}],
                   "outputs": [{"file": "tagged.mp4", "options": ["-t", "1", "-metadata", "title=from @{short.mp4}", "-c:v", "libx264", "-preset", "ultrafast"]}]}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let out = s.fetch_outputs(&body).await;
    let probe = probe_bytes(&out[0].1, "mp4");
    assert_eq!(
        probe["format"]["tags"]["title"], "from short.mp4",
        "{probe}"
    );
    let data_dir = s.dir.to_string_lossy().to_string();
    assert!(
        !String::from_utf8_lossy(&out[0].1).contains(&data_dir),
        "the output holds a host path"
    );
}
