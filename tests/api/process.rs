//! POST /ffmpeg/process and /ffmpeg/validate through the real binary, real ffmpeg and the
//! default command-builder plugin; outputs are downloaded and probed.

use serde_json::json;

use crate::servers::{HttpsServer, Route};
use crate::support::*;

#[tokio::test]
async fn transcode_and_probe_the_output() {
    let s = Server::start().await;
    let m = media();
    let input = s.upload_file(ALICE, None, &m.short()).await;
    let (status, body) = s
        .process(ALICE, json!({
            "inputs": [{"file_path": input}],
            "outputs": [{"file": "short.webm", "options": ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "300k", "-c:a", "libopus"]}],
        }))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["ok"], true);
    let usage = &body["usage"];
    for k in ["time_sec", "input_size_gb", "output_size_gb", "gb_sec"] {
        assert!(usage[k].as_f64().unwrap() > 0.0, "{k}: {usage}");
    }
    let expected_gb_sec = (usage["input_size_gb"].as_f64().unwrap()
        + usage["output_size_gb"].as_f64().unwrap())
        * usage["time_sec"].as_f64().unwrap();
    assert!((usage["gb_sec"].as_f64().unwrap() - expected_gb_sec).abs() < 1e-6);
    let outputs = s.fetch_outputs(&body).await;
    assert_eq!(outputs.len(), 1);
    assert_eq!(outputs[0].0, "short.webm");
    let p = probe_bytes(&outputs[0].1, "webm");
    assert_eq!(stream(&p, "video").unwrap()["codec_name"], "vp9");
    assert_eq!(stream(&p, "audio").unwrap()["codec_name"], "opus");
    assert!((duration(&p) - 2.0).abs() < 0.3, "{}", duration(&p));

    // The output is a file record of the input's directory.
    let dir = input.split('/').next().unwrap();
    let (_, info) = s.get(&format!("/file/{dir}/short.webm"), ALICE).await;
    assert_eq!(info["file_info"]["file_size"], outputs[0].1.len());
}

#[tokio::test]
async fn thumbnails_with_a_numbering_pattern() {
    let s = Server::start().await;
    let input = s.upload_file(ALICE, None, &media().clip()).await;
    let (status, body) = s
        .process(ALICE, json!({
            "inputs": [{"file_path": input}],
            "outputs": [{"file": "thumb_%03d.jpg", "options": ["-vf", "fps=1/2,scale=320:-2", "-q:v", "5"]}],
        }))
        .await;
    assert_eq!(status, 200, "{body}");
    let outputs = s.fetch_outputs(&body).await;
    let names: Vec<&str> = outputs.iter().map(|(n, _)| n.as_str()).collect();
    assert!((5..=6).contains(&names.len()), "{names:?}");
    assert_eq!(names[0], "thumb_001.jpg");
    let p = probe_bytes(&outputs[0].1, "jpg");
    assert_eq!(p["streams"][0]["width"], 320);
    assert_eq!(p["streams"][0]["height"], 180);
}

#[tokio::test]
async fn two_inputs_filter_complex_maps_and_placeholders() {
    let s = Server::start().await;
    let m = media();
    let video = s.upload_file(ALICE, None, &m.short()).await;
    let dir = video.split('/').next().unwrap().to_string();
    let image = s.upload_file(ALICE, Some(&dir), &m.image()).await;
    let (status, body) = s
        .process(ALICE, json!({
            "inputs": [{"file_path": video}, {"file_path": image}],
            "filter_complex": "[1:v]scale=64:-1[logo];[0:v][logo]overlay=W-w-8:8[v]",
            "outputs": [{"file": "overlay.mp4", "maps": ["[v]", "0:a"], "options": ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "copy"]}],
        }))
        .await;
    assert_eq!(status, 200, "{body}");
    let out = s.fetch_outputs(&body).await;
    let p = probe_bytes(&out[0].1, "mp4");
    assert_eq!(stream(&p, "video").unwrap()["width"], 320);
    assert!(stream(&p, "audio").is_some());

    // @{name} names one of the task's own inputs inside a filter.
    let (status, body) = s
        .process(ALICE, json!({
            "inputs": [{"file_path": video}, {"file_path": image}],
            "outputs": [{"file": "wm.mp4", "maps": ["0:v"], "options": ["-vf", "movie=@{image.png},scale=32:32[wm];[in][wm]overlay=4:4", "-c:v", "libx264", "-preset", "ultrafast"]}],
        }))
        .await;
    assert_eq!(status, 200, "{body}");
    let out = s.fetch_outputs(&body).await;
    assert_eq!(
        stream(&probe_bytes(&out[0].1, "mp4"), "video").unwrap()["height"],
        240
    );
}

#[tokio::test]
async fn output_dir_id_and_rerun_replaces_outputs() {
    let s = Server::start().await;
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let target = s.mkdir(ALICE).await;
    let task = json!({
        "inputs": [{"file_path": input}],
        "outputs": [{"file": "frame.png", "options": ["-frames:v", "1"]}],
        "output_dir_id": target,
    });
    // Listed once while empty, so a listing kept from before the outputs would show here.
    let (_, list) = s.get(&format!("/directory/{target}"), ALICE).await;
    assert_eq!(list["files"], json!([]));
    let (status, body) = s.process(ALICE, task.clone()).await;
    assert_eq!(status, 200, "{body}");
    let stored = crate::storage::count_objects(&s);
    let (status, _) = s.process(ALICE, task).await;
    assert_eq!(status, 200);
    let (_, list) = s.get(&format!("/directory/{target}"), ALICE).await;
    assert_eq!(list["files"].as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list["files"][0]["file_name"], "frame.png");
    // The replaced output's bytes went with its record (the orphan sweep would take an hour).
    assert_eq!(crate::storage::count_objects(&s), stored);
    // Someone else's directory as output: refused.
    let bob_dir = s.mkdir(BOB).await;
    let (status, body) = s
        .process(ALICE, json!({"inputs": [{"file_path": input}], "outputs": [{"file": "x.png"}], "output_dir_id": bob_dir}))
        .await;
    assert_eq!(
        (status.as_u16(), body["error"].as_str().unwrap()),
        (403, "Unauthorized access to directory")
    );
}

#[tokio::test]
async fn url_inputs_are_imported_into_a_new_directory() {
    let m = media();
    let https = HttpsServer::start(vec![
        (
            "/media/short.mp4",
            Route::Body(std::fs::read(m.short()).unwrap()),
        ),
        ("/moved", Route::Redirect("/media/short.mp4".into())),
        ("/gone", Route::Status(404)),
    ])
    .await;
    let s = Server::start_with(Options::env(&[(
        "MEDIAFORGE__NET__EXTRA_CA_FILE",
        https.ca_file.to_str().unwrap(),
    )]))
    .await;
    let (status, body) = s
        .process(
            ALICE,
            json!({
                "inputs": [{"file_path": https.url("/moved")}],
                "outputs": [{"file": "from_url.png", "options": ["-frames:v", "1"]}],
            }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (_, dirs) = s.get("/directory", ALICE).await;
    let dirs = dirs["directories"].as_array().unwrap();
    assert_eq!(
        dirs.len(),
        1,
        "a temporary directory holds the import and the output"
    );
    assert_eq!(dirs[0]["ttl"], 86400);
    let (_, files) = s
        .get(
            &format!("/directory/{}", dirs[0]["id"].as_str().unwrap()),
            ALICE,
        )
        .await;
    let mut names: Vec<&str> = files["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file_name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, vec!["from_url.png", "moved"]);

    let (status, body) = s
        .process(
            ALICE,
            json!({"inputs": [{"file_path": https.url("/gone")}], "outputs": [{"file": "x.png"}]}),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    // Bob's plan allows 1 MB: a larger URL input is refused with the plan message.
    let big = HttpsServer::start(vec![(
        "/big.mp4",
        Route::Body(std::fs::read(m.clip()).unwrap()),
    )])
    .await;
    let s2 = Server::start_with(Options::env(&[(
        "MEDIAFORGE__NET__EXTRA_CA_FILE",
        big.ca_file.to_str().unwrap(),
    )]))
    .await;
    let (status, body) = s2
        .process(
            BOB,
            json!({"inputs": [{"file_path": big.url("/big.mp4")}], "outputs": [{"file": "x.png"}]}),
        )
        .await;
    assert_eq!(status, 403, "{body}");
    let error = body["error"].as_str().unwrap();
    assert!(
        error.starts_with("File 'big.mp4' size (")
            && error.ends_with("exceeds plan (free) max file size limit of 1 MB."),
        "{error}"
    );
}

#[tokio::test]
async fn hls_output_keeps_every_file_in_the_job() {
    let s = Server::start().await;
    let input = s.upload_file(ALICE, None, &media().clip()).await;
    let (status, body) = s
        .process(ALICE, json!({
            "inputs": [{"file_path": input}],
            "outputs": [{"file": "stream.m3u8", "options": ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", "-hls_segment_filename", "seg_%03d.ts"]}],
        }))
        .await;
    assert_eq!(status, 200, "{body}");
    let outputs = s.fetch_outputs(&body).await;
    let names: Vec<&str> = outputs.iter().map(|(n, _)| n.as_str()).collect();
    // Segments split at keyframes (x264's default GOP is 250 frames): at least two here.
    assert!(
        names.contains(&"stream.m3u8") && names.contains(&"seg_001.ts"),
        "{names:?}"
    );
    let playlist = String::from_utf8(
        outputs
            .iter()
            .find(|(n, _)| n == "stream.m3u8")
            .unwrap()
            .1
            .clone(),
    )
    .unwrap();
    assert!(
        playlist.contains("\nseg_000.ts"),
        "segments are named relative to the playlist: {playlist}"
    );
    assert!(
        !playlist.contains('/'),
        "no host path leaks into the playlist: {playlist}"
    );
}

#[tokio::test]
async fn spec_error_messages() {
    let s = Server::start().await;
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let dir = input.split('/').next().unwrap().to_string();
    let other = s
        .upload(
            ALICE,
            None,
            "other.mp4",
            std::fs::read(media().short()).unwrap(),
        )
        .await;
    let bob_file = s.upload(BOB, None, "b.mp4", b"x".to_vec()).await;

    let (status, body) = s.raw_post("/ffmpeg/process", ALICE, "{\"task\": ").await;
    assert_eq!(
        (status.as_u16(), body["error"].as_str().unwrap()),
        (400, "Invalid JSON in request body")
    );
    let (status, body) = s.raw_post("/ffmpeg/process", ALICE, "").await;
    assert_eq!(
        (status.as_u16(), body["error"].as_str().unwrap()),
        (400, "Request body is required")
    );
    let cases = [
        (json!({}), 400, "Task object is required in request body"),
        (
            json!({"task": "x"}),
            400,
            "Task object is required in request body",
        ),
        (
            json!({"task": {"inputs": [{"file_path": "no-slash"}], "outputs": [{"file": "a.mp4"}]}}),
            400,
            "Invalid file_path format. Expected <dir_id>/<file_name>",
        ),
        (
            json!({"task": {"inputs": [{"file_path": "a/b/c.mp4"}], "outputs": [{"file": "a.mp4"}]}}),
            400,
            "Invalid file_path format. Expected <dir_id>/<file_name>",
        ),
        (
            json!({"task": {"inputs": [{"file_path": input}], "outputs": [{"file": "short.mp4"}]}}),
            400,
            "Output filename 'short.mp4' conflicts with an existing input file",
        ),
        (
            json!({"task": {"inputs": [{"file_path": input}, {"file_path": other}], "outputs": [{"file": "a.mp4"}]}}),
            400,
            "All input files must be from the same directory",
        ),
        (
            json!({"task": {"inputs": [{"file_path": "nosuchdir/a.mp4"}], "outputs": [{"file": "a.mp4"}]}}),
            404,
            "Directory not found",
        ),
        (
            json!({"task": {"inputs": [{"file_path": format!("{dir}/missing.mp4")}], "outputs": [{"file": "a.mp4"}]}}),
            404,
            "File not found in directory",
        ),
        (
            json!({"task": {"inputs": [{"file_path": bob_file}], "outputs": [{"file": "a.mp4"}]}}),
            403,
            "Unauthorized access to directory",
        ),
        (
            json!({"task": {"inputs": [{"file_path": input}], "outputs": [{"file": "a.mp4", "maps": ["0:s"]}]}}),
            500,
            "FFmpeg command failed with exit code 1",
        ),
    ];
    for (body, want_status, want_error) in cases {
        let (status, got) = s.post("/ffmpeg/process", ALICE, body.clone()).await;
        assert_eq!(status.as_u16(), want_status, "{body} -> {got}");
        assert_eq!(got["error"].as_str().unwrap(), want_error, "{body}");
        assert_eq!(got["ok"], false);
    }
    // The failure carries a bounded excerpt of ffmpeg's error, without host paths.
    let (_, got) = s.process(ALICE, json!({"inputs": [{"file_path": input}], "outputs": [{"file": "a.mp4", "maps": ["0:s"]}]})).await;
    let details = got["details"].as_str().unwrap_or("");
    assert!(
        details.len() <= 2000
            && !details.contains("/scratch/")
            && !details.contains(&s.dir.display().to_string()),
        "{details}"
    );
    // Failed runs are not charged: only the first and the (refused) others ran, none succeeded.
    let (_, list) = s.get(&format!("/directory/{dir}"), ALICE).await;
    assert_eq!(
        list["files"].as_array().unwrap().len(),
        1,
        "no output of a failed run is kept: {list}"
    );
}

#[tokio::test]
async fn quota_is_enforced_and_failed_runs_are_free() {
    let s = Server::start().await;
    let input = s.upload_file(DAVE, None, &media().short()).await;
    let task = |out: &str| json!({"inputs": [{"file_path": input}], "outputs": [{"file": out, "options": ["-frames:v", "1"]}]});
    // The tiny plan allows ~214 KB of input a month; short.mp4 is ~55 KB.
    let mut ok = 0;
    let mut last = json!(null);
    for i in 0..6 {
        let (status, body) = s.process(DAVE, task(&format!("f{i}.png"))).await;
        if status == 200 {
            ok += 1;
        } else {
            assert_eq!(status, 403, "{body}");
            last = body;
            break;
        }
    }
    assert!((2..=4).contains(&ok), "ran {ok} times");
    let error = last["error"].as_str().unwrap();
    assert!(
        error == "Quota exceeded" || error.starts_with("Quota exceeded. Input files size ("),
        "{error}"
    );
}

#[tokio::test]
async fn dry_run_shows_the_command_without_running_or_charging() {
    let s = Server::start().await;
    let input = s.upload_file(DAVE, None, &media().short()).await;
    let dir = input.split('/').next().unwrap().to_string();
    for _ in 0..5 {
        let (status, body) = s
            .post("/ffmpeg/validate", DAVE, json!({"task": {"inputs": [{"file_path": input}], "outputs": [{"file": "out.mp4", "options": ["-crf", "23"]}]}}))
            .await;
        assert_eq!(status, 200, "{body}");
        let command = command_of(&body);
        assert_eq!(command[0], "ffmpeg");
        assert!(
            command.contains(&input.as_str())
                && command.contains(&"out.mp4")
                && command.contains(&"-crf"),
            "{command:?}"
        );
        assert!(
            !command.iter().any(|a| a.contains("/scratch/")),
            "{command:?}"
        );
        assert!(
            body["decisions"]
                .as_array()
                .unwrap()
                .iter()
                .any(|d| d["subject"] == "-crf" && d["allowed"] == true),
            "{body}"
        );
    }
    let (_, list) = s.get(&format!("/directory/{dir}"), DAVE).await;
    assert_eq!(list["files"].as_array().unwrap().len(), 1, "nothing ran");
    // Five dry runs charged nothing: a real run still fits the tiny quota.
    let (status, body) = s.process(DAVE, json!({"inputs": [{"file_path": input}], "outputs": [{"file": "f.png", "options": ["-frames:v", "1"]}]})).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = s
        .post("/ffmpeg/validate", DAVE, json!({"task": {"inputs": [{"file_path": input}], "outputs": [{"file": "o.mp4", "options": ["-filter_script:v", "/etc/hostname"]}]}}))
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("-filter_script"),
        "{body}"
    );
}

#[tokio::test]
async fn concat_lists_join_the_tasks_own_inputs() {
    let s = Server::start_with(Options::env(&[("MEDIAFORGE__COMPAT__LEGACY_RUN", "true")])).await;
    let dir = s.mkdir(ALICE).await;
    let clip = std::fs::read(media().short()).unwrap();
    let a = s.upload(ALICE, Some(&dir), "a.mp4", clip.clone()).await;
    let b = s
        .upload(ALICE, Some(&dir), "b clip.mp4", clip.clone())
        .await;
    // What the timelapse client sends: a plain list, `-f concat -safe 0`, entries by name, a
    // quoted name and an outpoint kept.
    let text = b"# shots\nfile 'a.mp4'\noutpoint 1\nfile 'b clip.mp4'\n".to_vec();
    let list = s.upload(ALICE, Some(&dir), "list.txt", text.clone()).await;
    let encode = json!(["-c:v", "libx264", "-preset", "ultrafast", "-an"]);
    let task = |list_options: serde_json::Value, out: &str| {
        json!({"inputs": [{"file_path": list, "options": list_options}, {"file_path": a}, {"file_path": b}],
               "outputs": [{"file": out, "options": encode, "maps": ["0:v"]}]})
    };
    let declared = task(json!(["-f", "concat", "-safe", "0"]), "joined.mp4");
    let (status, body) = s
        .post("/ffmpeg/validate", ALICE, json!({ "task": declared }))
        .await;
    assert_eq!(status, 200, "{body}");
    let command = command_of(&body);
    assert!(
        command
            .windows(4)
            .any(|w| w == ["-f", "concat", "-safe", "0"])
            && command.contains(&list.as_str()),
        "{command:?}"
    );
    let (status, body) = s.process(ALICE, declared).await;
    assert_eq!(status, 200, "{body}");
    let joined = probe_bytes(&s.fetch_outputs(&body).await[0].1, "mp4");
    assert!(
        (duration(&joined) - 3.0).abs() < 0.2,
        "{}",
        duration(&joined)
    );
    // The stored list is untouched by its rewrite.
    assert_eq!(s.download(ALICE, &list).await, text);

    // A list ffmpeg detects by its first line, with no options at all.
    let auto = b"ffconcat version 1.0\nfile a.mp4\nfile 'b clip.mp4'\ninpoint 0.5\n".to_vec();
    let auto = s.upload(ALICE, Some(&dir), "shots.txt", auto).await;
    let (status, body) = s
        .process(
            ALICE,
            json!({"inputs": [{"file_path": auto}, {"file_path": a}, {"file_path": b}],
                   "outputs": [{"file": "auto.mp4", "options": encode, "maps": ["0:v"]}]}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let joined = probe_bytes(&s.fetch_outputs(&body).await[0].1, "mp4");
    assert!(
        (duration(&joined) - 3.5).abs() < 0.2,
        "{}",
        duration(&joined)
    );

    // The legacy route, as the old client calls it, with its uploaded files.
    let command = json!({"inputs": [{"file": "list.txt", "options": ["-f", "concat", "-safe", "0"]}, {"file": "a.mp4"}, {"file": "b clip.mp4"}],
                         "outputs": [{"file": "legacy.mp4", "options": ["-map", "0:v", "-c:v", "libx264", "-preset", "ultrafast"]}]})
    .to_string();
    let files = [
        ("list.txt", text),
        ("a.mp4", clip.clone()),
        ("b clip.mp4", clip),
    ];
    let res = crate::legacy::legacy_run(&s, &command, &files).await;
    let got: serde_json::Value = res.json().await.unwrap();
    assert_eq!(got["ok"], true, "{got}");
    let joined = probe_bytes(&s.fetch_outputs(&got).await[0].1, "mp4");
    assert!(
        (duration(&joined) - 3.0).abs() < 0.2,
        "{}",
        duration(&joined)
    );
}
