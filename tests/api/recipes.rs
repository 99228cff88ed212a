//! Recipes (issue #29): named jobs from the recipe plugin, each step run through the pipeline.
//! What comes back is checked as a user would: players' view of the streaming outputs (ffmpeg's
//! HLS and DASH demuxers over HTTP), an independent loudness measurement, the storyboard's cues
//! against its sprites, the waveform JSON against audiowaveform's documented format, and the
//! analysis against a clip made with known events.

use std::process::Command;
use std::sync::OnceLock;

use serde_json::{Value, json};

use crate::scaleout::with;
use crate::servers::S3Server;
use crate::support::*;

/// A 640x360 30 fps clip of 6 s with a tone: a ladder's input.
fn ladder_clip() -> &'static std::path::PathBuf {
    static CLIP: OnceLock<std::path::PathBuf> = OnceLock::new();
    CLIP.get_or_init(|| {
        make_media(
            &media().dir,
            &[
                "-f",
                "lavfi",
                "-i",
                "testsrc2=size=640x360:rate=30:duration=6",
                "-f",
                "lavfi",
                "-i",
                "sine=frequency=440:sample_rate=48000:duration=6",
                "-c:v",
                "libx264",
                "-preset",
                "ultrafast",
                "-pix_fmt",
                "yuv420p",
                "-c:a",
                "aac",
                "-shortest",
            ],
            "ladder.mp4",
        )
    })
}

/// 6 s with known events: a scene cut at 2 s (testsrc2 to a red field), black from 4 to 5 s,
/// and silence from 2 to 3.5 s in a -20 dBFS-ish tone.
fn events_clip() -> &'static std::path::PathBuf {
    static CLIP: OnceLock<std::path::PathBuf> = OnceLock::new();
    CLIP.get_or_init(|| {
        make_media(
            &media().dir,
            &[
                "-f",
                "lavfi",
                "-i",
                "testsrc2=size=320x240:rate=25:duration=2",
                "-f",
                "lavfi",
                "-i",
                "color=c=red:size=320x240:rate=25:duration=2",
                "-f",
                "lavfi",
                "-i",
                "color=c=black:size=320x240:rate=25:duration=1",
                "-f",
                "lavfi",
                "-i",
                "testsrc=size=320x240:rate=25:duration=1",
                "-f",
                "lavfi",
                "-i",
                "aevalsrc='0.3*sin(2*PI*440*t)*not(between(t,2,3.5))':s=48000:d=6",
                "-filter_complex",
                "[0:v][1:v][2:v][3:v]concat=n=4:v=1:a=0[v]",
                "-map",
                "[v]",
                "-map",
                "4:a",
                "-c:v",
                "libx264",
                "-preset",
                "ultrafast",
                "-pix_fmt",
                "yuv420p",
                "-c:a",
                "aac",
            ],
            "events.mp4",
        )
    })
}

async fn run(s: &Server, name: &str, body: Value) -> Value {
    let (status, answer) = s.post(&format!("/recipes/{name}"), ALICE, body).await;
    assert_eq!(status, 200, "{name}: {answer}");
    assert_eq!(answer["ok"], true);
    answer
}

fn link<'a>(answer: &'a Value, name: &str) -> &'a Value {
    answer["result"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["file_name"] == name)
        .unwrap_or_else(|| panic!("{name} in {answer}"))
}

/// The bytes of the output called `name`, by its download URL.
async fn bytes_of(s: &Server, answer: &Value, name: &str) -> Vec<u8> {
    let url = link(answer, name)["download_url"]
        .as_str()
        .unwrap()
        .to_string();
    s.http()
        .get(url)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap()
        .to_vec()
}

/// The text of the output called `name`.
async fn text_named(s: &Server, answer: &Value, name: &str) -> String {
    String::from_utf8(bytes_of(s, answer, name).await).unwrap()
}

async fn text_of(s: &Server, url: &str) -> String {
    s.http()
        .get(url)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

fn ffprobe_url(url: &str, args: &[&str]) -> Value {
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-of", "json"])
        .args(args)
        .arg(url)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ffprobe {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Times of the video keyframes of what is played from `url`.
fn keyframes(url: &str) -> Vec<String> {
    let j = ffprobe_url(
        url,
        &[
            "-select_streams",
            "v:0",
            "-show_entries",
            "frame=pts_time,key_frame",
        ],
    );
    j["frames"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["key_frame"] == 1)
        .map(|f| f["pts_time"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn recipes_are_listed_and_their_params_checked() {
    let s = Server::start().await;
    let (status, body) = s.get("/recipes", ALICE).await;
    assert_eq!(status, 200, "{body}");
    let names: Vec<&str> = body["recipes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    for wanted in [
        "hls",
        "dash",
        "storyboard",
        "loudness",
        "waveform",
        "analyze",
        "thumbnails",
        "web",
        "vertical",
        "audiogram",
        "gif",
    ] {
        assert!(names.contains(&wanted), "{wanted} in {names:?}");
    }
    let (status, hls) = s.get("/recipes/hls", ALICE).await;
    assert_eq!(status, 200);
    assert_eq!(hls["recipe"]["params_schema"]["type"], "object");
    assert!(hls["recipe"]["example"].is_object());

    let (status, body) = s.get("/recipes/nope", ALICE).await;
    assert_eq!(status, 404, "{body}");
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let (status, body) = s
        .post(
            "/recipes/hls",
            ALICE,
            json!({"inputs": [input], "params": {"rungs": [5000]}}),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(
        body["error"],
        "Invalid params for recipe 'hls': rungs/0: 5000 is greater than the maximum of 2160"
    );
    let (status, body) = s
        .post(
            "/recipes/hls",
            ALICE,
            json!({"inputs": [input], "params": {"segment": 2}}),
        )
        .await;
    assert_eq!(status, 400);
    assert!(
        body["error"].as_str().unwrap().contains("'segment'"),
        "{body}"
    );
    let (status, body) = s.post("/recipes/hls", ALICE, json!({"inputs": []})).await;
    assert_eq!(status, 400);
    assert_eq!(body["error"], "Recipe 'hls' takes 1 input(s); 0 given");
    let (status, body) = s
        .post(
            "/recipes/thumbnails",
            ALICE,
            json!({"inputs": [input], "params": {"times": [60]}}),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("past the end"),
        "{body}"
    );
    // What it would cost, nothing run: the first round's ffmpeg steps estimated as tasks.
    let (status, cost) = s
        .post(
            "/recipes/hls/estimate",
            ALICE,
            json!({"inputs": [input], "params": {"rungs": [240]}}),
        )
        .await;
    assert_eq!(status, 200, "{cost}");
    assert!(
        cost["estimate"]["time_sec"].as_f64().unwrap() > 0.0,
        "{cost}"
    );
    assert!(
        cost["estimate"]["input_size_gb"].as_f64().unwrap() > 0.0,
        "{cost}"
    );
    assert_eq!(cost["quota"]["fits"], true);
    let (_, jobs) = s.get("/usage", ALICE).await;
    assert_eq!(
        jobs["usage"]["time_sec"].as_f64(),
        Some(0.0),
        "nothing charged: {jobs}"
    );
    // Nothing runs in a dry run; the steps show their commands.
    let (status, body) = s
        .post(
            "/recipes/hls/validate",
            ALICE,
            json!({"inputs": [input], "params": {"rungs": [240]}}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["steps"][0]["kind"], "ffmpeg");
    assert!(body["steps"][0]["command"].to_string().contains("libx264"));
    assert_eq!(body["steps"][1]["kind"], "text");
    assert_eq!(body["steps"][1]["file"], "master.m3u8");
}

async fn hls_plays(s: &Server) {
    let input = s.upload_file(ALICE, None, ladder_clip()).await;
    let params = json!({"rungs": [1080, 360, 240], "segment_s": 2});
    let answer = run(s, "hls", json!({"inputs": [input], "params": params})).await;
    let master = answer["playback_url"]
        .as_str()
        .expect("a playback URL")
        .to_string();
    assert!(master.ends_with("/master.m3u8"), "{master}");
    let text = text_of(s, &master).await;
    assert!(text.starts_with("#EXTM3U"), "{text}");
    // Never upscaled: 1080 is left out of a 360p input.
    assert!(!text.contains("1920x1080"), "{text}");
    assert!(
        text.contains("RESOLUTION=640x360") && text.contains("RESOLUTION=426x240"),
        "{text}"
    );
    assert!(text.contains("CODECS=\"avc1.64001f,mp4a.40.2\""), "{text}");
    assert_eq!(answer["data"]["renditions"].as_array().unwrap().len(), 2);
    // Each rendition plays from the service, at its size, with keyframes at the same times.
    let (prefix, _) = master.rsplit_once('/').unwrap();
    let mut times = Vec::new();
    for (i, (w, h)) in [(640, 360), (426, 240)].into_iter().enumerate() {
        let url = format!("{prefix}/v{i}.m3u8");
        let j = ffprobe_url(&url, &["-show_streams"]);
        let v = stream(&j, "video").expect("video");
        assert_eq!(
            (v["width"].as_u64(), v["height"].as_u64()),
            (Some(w), Some(h)),
            "{url}"
        );
        assert_eq!(v["codec_name"], "h264");
        assert!(stream(&j, "audio").is_some(), "{url}");
        times.push(keyframes(&url));
    }
    assert_eq!(times[0], times[1], "keyframes aligned across renditions");
    assert!(
        times[0].len() >= 3,
        "a keyframe every 2 s of 6 s: {:?}",
        times[0]
    );
    // The master playlist plays too: ffmpeg lists a program per variant.
    let j = ffprobe_url(&master, &["-show_programs"]);
    assert_eq!(j["programs"].as_array().unwrap().len(), 2, "{j}");
}

#[tokio::test]
async fn hls_recipe_plays_from_its_playback_url_and_a_repeat_comes_from_the_cache() {
    let s = Server::start().await;
    hls_plays(&s).await;
    let input = s.upload_file(ALICE, None, ladder_clip()).await;
    let again = run(
        &s,
        "hls",
        json!({"inputs": [input], "params": {"rungs": [1080, 360, 240], "segment_s": 2}}),
    )
    .await;
    assert_eq!(again["steps"][0]["cache"], "hit", "{again}");
}

#[tokio::test]
async fn hls_recipe_plays_from_its_playback_url_on_s3() {
    let s3 = S3Server::start();
    let s = Server::start_with(with(&[s3.env()], &[])).await;
    hls_plays(&s).await;
}

#[tokio::test]
async fn dash_recipe_plays_from_its_playback_url() {
    let s = Server::start().await;
    let input = s.upload_file(ALICE, None, ladder_clip()).await;
    let answer = run(
        &s,
        "dash",
        json!({"inputs": [input], "params": {"rungs": [360, 240], "segment_s": 2}}),
    )
    .await;
    let mpd = answer["playback_url"].as_str().expect("a playback URL");
    assert!(mpd.ends_with("/manifest.mpd"), "{mpd}");
    let text = text_of(&s, mpd).await;
    assert!(
        text.contains("<MPD") && text.contains("bandwidth=") && text.contains("codecs=\"avc1"),
        "{text}"
    );
    let j = ffprobe_url(mpd, &["-show_streams"]);
    let videos: Vec<&Value> = j["streams"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["codec_type"] == "video")
        .collect();
    let sizes: Vec<(u64, u64)> = videos
        .iter()
        .map(|v| (v["width"].as_u64().unwrap(), v["height"].as_u64().unwrap()))
        .collect();
    assert_eq!(sizes, vec![(640, 360), (426, 240)], "{j}");
    assert!(stream(&j, "audio").is_some());
}

#[tokio::test]
async fn loudness_recipe_reaches_its_target_measured_independently() {
    let s = Server::start().await;
    let input = s.upload_file(ALICE, None, &media().tone()).await;
    let answer = run(
        &s,
        "loudness",
        json!({"inputs": [input], "params": {"i": -16, "tp": -1}}),
    )
    .await;
    let bytes = bytes_of(&s, &answer, "normalized.m4a").await;
    let path = temp_dir("loudness").join("normalized.m4a");
    std::fs::write(&path, &bytes).unwrap();
    let measured = Command::new("ffmpeg")
        .args(["-hide_banner", "-nostats", "-i"])
        .arg(&path)
        .args(["-af", "ebur128", "-f", "null", "-"])
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&measured.stderr);
    let summary = log.rsplit("Summary:").next().unwrap();
    let integrated: f64 = summary
        .split("I:")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{log}"));
    assert!(
        (integrated - -16.0).abs() <= 1.0,
        "integrated {integrated} LUFS"
    );
    // lavfi's sine is at 1/8 of full scale: about -22 LUFS before.
    let data = &answer["data"];
    let before = data["before"]["integrated_lufs"].as_f64().unwrap();
    assert!((before - -22.0).abs() <= 1.0, "{data}");
    let after = data["after"]["integrated_lufs"].as_f64().unwrap();
    assert!((after - -16.0).abs() <= 1.0, "{data}");
}

#[tokio::test]
async fn storyboard_cues_lie_inside_their_sprites() {
    let s = Server::start().await;
    let input = s.upload_file(ALICE, None, &media().clip()).await;
    let answer = run(&s, "storyboard", json!({"inputs": [input], "params": {"interval_s": 1, "width": 128, "columns": 4, "rows": 2}})).await;
    let vtt = text_named(&s, &answer, "storyboard.vtt").await;
    assert!(vtt.starts_with("WEBVTT"), "{vtt}");
    let mut sizes = std::collections::HashMap::new();
    let mut cues = 0;
    for line in vtt.lines().filter(|l| l.contains("#xywh=")) {
        let (sheet, rect) = line.split_once("#xywh=").unwrap();
        let r: Vec<u64> = rect.split(',').map(|v| v.parse().unwrap()).collect();
        if !sizes.contains_key(sheet) {
            let bytes = bytes_of(&s, &answer, sheet).await;
            let p = probe_bytes(&bytes, "jpg");
            let v = stream(&p, "video").unwrap();
            sizes.insert(
                sheet.to_string(),
                (v["width"].as_u64().unwrap(), v["height"].as_u64().unwrap()),
            );
        }
        let (w, h) = sizes[sheet];
        assert!(
            r[0] + r[2] <= w && r[1] + r[3] <= h,
            "{line} inside {w}x{h}"
        );
        cues += 1;
    }
    // 10 s at 1 s: ten cues on two sheets of 4x2.
    assert_eq!(cues, 10, "{vtt}");
    assert_eq!(sizes.len(), 2);
    assert_eq!(sizes.values().next(), Some(&(512, 144)));
}

#[tokio::test]
async fn waveform_peaks_follow_the_audiowaveform_format() {
    let s = Server::start().await;
    let input = s.upload_file(ALICE, None, &media().tone()).await;
    let answer = run(&s, "waveform", json!({"inputs": [input], "params": {"width": 600, "height": 120, "pixels_per_second": 10}})).await;
    let png = bytes_of(&s, &answer, "waveform.png").await;
    let p = probe_bytes(&png, "png");
    assert_eq!(stream(&p, "video").unwrap()["width"], 600);
    let peaks: Value = serde_json::from_str(&text_named(&s, &answer, "peaks.json").await).unwrap();
    // audiowaveform's JSON format, version 2 (docs of bbc/audiowaveform).
    assert_eq!(peaks["version"], 2);
    assert_eq!(peaks["channels"], 1);
    assert_eq!(peaks["bits"], 8);
    assert_eq!(peaks["sample_rate"], 44100);
    assert_eq!(peaks["samples_per_pixel"], 4410);
    let data = peaks["data"].as_array().unwrap();
    let length = peaks["length"].as_u64().unwrap();
    assert_eq!(data.len() as u64, 2 * length);
    assert!(
        (49..=51).contains(&length),
        "5 s at 10 per second: {length}"
    );
    for pair in data.chunks(2) {
        let (lo, hi) = (pair[0].as_i64().unwrap(), pair[1].as_i64().unwrap());
        assert!(
            (-128..=127).contains(&lo) && (-128..=127).contains(&hi) && lo <= hi,
            "{pair:?}"
        );
    }
    // lavfi's sine is at 1/8 of full scale: every window peaks at about ±16 of 128.
    for pair in data.chunks(2).take(length as usize - 1) {
        assert!((-17..=-15).contains(&pair[0].as_i64().unwrap()), "{pair:?}");
        assert!((15..=17).contains(&pair[1].as_i64().unwrap()), "{pair:?}");
    }
}

#[tokio::test]
async fn analyze_finds_the_scene_cut_the_black_and_the_silence() {
    let s = Server::start().await;
    let input = s.upload_file(ALICE, None, events_clip()).await;
    let answer = run(&s, "analyze", json!({"inputs": [input]})).await;
    let data = &answer["data"];
    let near = |v: &Value, t: f64| (v.as_f64().unwrap() - t).abs() < 0.25;
    let scenes = data["scenes"].as_array().unwrap();
    assert!(scenes.iter().any(|c| near(&c["time_s"], 2.0)), "{data}");
    let black = data["black"].as_array().unwrap();
    assert_eq!(black.len(), 1, "{data}");
    assert!(
        near(&black[0]["start_s"], 4.0) && near(&black[0]["end_s"], 5.0),
        "{data}"
    );
    let silences = data["silences"].as_array().unwrap();
    assert_eq!(silences.len(), 1, "{data}");
    assert!(
        near(&silences[0]["start_s"], 2.0) && near(&silences[0]["end_s"], 3.5),
        "{data}"
    );
    assert!(
        data["loudness"]["integrated_lufs"].as_f64().is_some(),
        "{data}"
    );
    // The same document as a file.
    let file: Value =
        serde_json::from_str(&text_named(&s, &answer, "analysis.json").await).unwrap();
    assert_eq!(&file, data);
}

#[tokio::test]
async fn the_other_recipes_make_what_they_say() {
    let s = Server::start().await;
    let clip = s.upload_file(ALICE, None, &media().short()).await;
    let dir = s.mkdir(ALICE).await;
    let image = s.upload_file(ALICE, Some(&dir), &media().image()).await;
    let tone = s.upload_file(ALICE, Some(&dir), &media().tone()).await;
    let fetch = async |answer: Value, name: &str| {
        probe_bytes(
            &bytes_of(&s, &answer, name).await,
            name.rsplit('.').next().unwrap(),
        )
    };
    let thumbs = run(
        &s,
        "thumbnails",
        json!({"inputs": [clip], "params": {"count": 3, "width": 160, "representative": true}}),
    )
    .await;
    assert_eq!(thumbs["result"].as_array().unwrap().len(), 3, "{thumbs}");
    let p = fetch(thumbs, "thumb_02.jpg").await;
    assert_eq!(stream(&p, "video").unwrap()["width"], 160);

    let gif = run(
        &s,
        "gif",
        json!({"inputs": [clip], "params": {"duration_s": 1, "width": 160, "fps": 10}}),
    )
    .await;
    let p = fetch(gif, "clip.gif").await;
    assert_eq!(p["format"]["format_name"], "gif");

    let vertical = run(
        &s,
        "vertical",
        json!({"inputs": [clip], "params": {"height": 640}}),
    )
    .await;
    let p = fetch(vertical, "vertical.mp4").await;
    let v = stream(&p, "video").unwrap();
    assert_eq!(
        (v["width"].as_u64(), v["height"].as_u64()),
        (Some(360), Some(640))
    );

    let web = run(&s, "web", json!({"inputs": [clip]})).await;
    let mp4 = fetch(web.clone(), "web.mp4").await;
    assert_eq!(stream(&mp4, "video").unwrap()["codec_name"], "h264");
    let webm = fetch(web, "web.webm").await;
    assert_eq!(stream(&webm, "video").unwrap()["codec_name"], "vp9");
    assert_eq!(stream(&webm, "audio").unwrap()["codec_name"], "opus");

    let gram = run(
        &s,
        "audiogram",
        json!({"inputs": [image, tone], "params": {"width": 320, "height": 320}}),
    )
    .await;
    let p = fetch(gram, "audiogram.mp4").await;
    let v = stream(&p, "video").unwrap();
    assert_eq!(
        (v["width"].as_u64(), v["height"].as_u64()),
        (Some(320), Some(320))
    );
    assert!(stream(&p, "audio").is_some());
    assert!((duration(&p) - 5.0).abs() < 0.3, "{p}");
}

/// A recipe plugin swapped in by config whose steps try what no step may: each recipe fails at
/// the step that tried, naming it, and nothing it tried to write is anywhere.
#[tokio::test]
async fn a_hostile_recipe_fails_at_the_step_that_tried() {
    // Added beside the built-in recipes (`plugins.extra_recipes`), not instead of them.
    let extra = format!(
        "[[plugins.extra_recipes]]\npath = \"{}\"\n",
        wasm("hostile_recipe").display()
    );
    let s = Server::start_with(Options {
        extra,
        ..Default::default()
    })
    .await;
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let (_, listed) = s.get("/recipes", ALICE).await;
    let names: Vec<&str> = listed["recipes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"hls") && names.contains(&"filter-file"),
        "{names:?}"
    );
    assert_eq!(names.iter().filter(|n| **n == "thumbnails").count(), 1);
    // Its `thumbnails` replaced the built-in one; the other built-ins are untouched.
    let replaced = run(&s, "thumbnails", json!({"inputs": [input]})).await;
    assert_eq!(
        replaced["data"]["planned_by"], "hostile-recipe",
        "{replaced}"
    );
    // A probe step: ffprobe's answer, only the field asked for, comes back to the plugin.
    let probed = run(&s, "probe", json!({"inputs": [input]})).await;
    let duration = probed["data"]["format"]["duration"].as_str().unwrap_or("");
    assert!(duration.parse::<f64>().is_ok_and(|d| d > 1.0), "{probed}");
    assert_eq!(probed["steps"][0]["kind"], "probe");
    assert!(probed["data"]["streams"].is_null(), "{probed}");
    let gif = run(
        &s,
        "gif",
        json!({"inputs": [input], "params": {"width": 80, "start_s": 0, "duration_s": 1}}),
    )
    .await;
    assert!(
        link(&gif, "clip.gif")["size_bytes"].as_u64().unwrap() > 0,
        "{gif}"
    );
    let cases = [
        ("filter-file", 400, "step 2 (ffmpeg): Filter 'movie'"),
        (
            "host-path",
            400,
            "step 2 (ffmpeg): The recipe referred to '/etc/passwd', which is neither",
        ),
        (
            "url",
            400,
            "step 2 (ffmpeg): The recipe referred to 'https://example.com/a.mp4', which is neither",
        ),
        (
            "escape",
            400,
            "step 2 (text): Invalid output file name '../escaped.txt'",
        ),
        (
            "kept-analysis",
            400,
            "step 2 (analysis): The command builder produced a command the host refuses: an analysis writes nothing: its output 'kept.mp4' must use the null muxer (-f null)",
        ),
        ("endless", 500, "did not finish in 8 rounds"),
    ];
    for (name, status, message) in cases {
        let (got, body) = s
            .post(
                &format!("/recipes/{name}"),
                ALICE,
                json!({"inputs": [input]}),
            )
            .await;
        assert_eq!(got, status, "{name}: {body}");
        let error = body["error"].as_str().unwrap();
        assert!(error.contains(message), "{name}: {error}");
        if status == 400 {
            assert!(
                error.starts_with(&format!("Recipe '{name}' failed at step 2")),
                "{error}"
            );
        }
    }
    // Nothing escaped the output directory; nothing was kept of the analysis.
    let escaped = s.dir.join("escaped.txt");
    assert!(!escaped.exists());
    let found = Command::new("find")
        .arg(&s.dir)
        .args(["-name", "escaped.txt", "-o", "-name", "kept.mp4"])
        .output()
        .unwrap();
    assert!(
        found.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&found.stdout)
    );
}

/// A recipe as a job: queued at once, its steps run by a worker, its view with the recipe's
/// outputs, data and playback URL; a bad request is refused before it is queued.
#[tokio::test]
async fn a_recipe_runs_as_an_async_job() {
    let s = Server::start().await;
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let (status, body) = s
        .post(
            "/recipes/hls/async",
            ALICE,
            json!({"inputs": [input], "params": {"rungs": [240], "segment_s": 1}}),
        )
        .await;
    assert_eq!(status, 202, "{body}");
    let job = body["job_id"].as_str().unwrap().to_string();
    let done = crate::jobs::wait_for(&s, ALICE, &job, &["completed", "failed"], 60).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["recipe"]["name"], "hls");
    assert_eq!(done["data"]["playlist"], "master.m3u8", "{done}");
    let url = done["playback_url"].as_str().expect("a playback URL");
    let j = ffprobe_url(url, &["-show_streams"]);
    assert_eq!(stream(&j, "video").unwrap()["height"], 240, "{j}");
    assert!(
        done["result"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["file_name"] == "v0.m3u8")
    );
    assert!(done["usage"]["time_sec"].as_f64().unwrap() > 0.0, "{done}");

    let (status, body) = s
        .post(
            "/recipes/hls/async",
            ALICE,
            json!({"inputs": [input], "params": {"rungs": "all"}}),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .starts_with("Invalid params for recipe 'hls': rungs"),
        "{body}"
    );
}

/// Plain language answered with a recipe (#29, #33): the translator names the recipe, the `/ai`
/// endpoints run it (now, as a job, or as a dry run) and answer with what the recipe answers;
/// what a recipe cannot also do is refused by name, nothing run.
#[tokio::test]
async fn plain_language_runs_a_recipe() {
    let s = Server::start().await;
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let ask = |text: &str| json!({"inputs": [{"file_path": input}], "instructions": text});

    // A dry run: the recipe call and its first steps, nothing run.
    let (status, body) = s
        .post("/ai/ffmpeg/validate", ALICE, ask("make it streamable"))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["generated_command"]["recipe"]["name"], "hls", "{body}");
    assert_eq!(body["generated_command"]["recipe"]["inputs"][0], input);
    assert!(body.get("command").is_none(), "{body}");
    assert_eq!(body["steps"][0]["kind"], "ffmpeg", "{body}");
    assert!(body["estimate"]["time_sec"].as_f64().is_some(), "{body}");

    // Now: the ladder plays from its playback URL.
    let (status, body) = s
        .post("/ai/ffmpeg/process", ALICE, ask("convert it to HLS"))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["generated_command"]["recipe"]["name"], "hls");
    let master = body["playback_url"].as_str().expect("a playback URL");
    let j = ffprobe_url(master, &["-show_programs"]);
    assert!(!j["programs"].as_array().unwrap().is_empty(), "{j}");
    assert_eq!(body["data"]["playlist"], "master.m3u8", "{body}");
    assert!(body["usage"]["time_sec"].as_f64().unwrap() > 0.0, "{body}");

    // Analysis comes back as data.
    let (status, body) = s
        .post("/ai/ffmpeg/process", ALICE, ask("find the silences"))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["generated_command"]["recipe"]["name"], "analyze");
    assert!(body["data"]["silences"].is_array(), "{body}");

    // As a job: the job view names the recipe, and its data and files are the recipe's.
    let (status, body) = s
        .post(
            "/ai/ffmpeg/process/async",
            ALICE,
            ask("draw the waveform of the sound"),
        )
        .await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(body["generated_command"]["recipe"]["name"], "waveform");
    let job = body["job_id"].as_str().unwrap().to_string();
    let done = crate::jobs::wait_for(&s, ALICE, &job, &["completed", "failed"], 60).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["generated_command"]["recipe"]["name"], "waveform");
    let names: Vec<&str> = done["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["file_name"].as_str().unwrap())
        .collect();
    assert!(names.iter().any(|n| n.ends_with(".png")), "{done}");
    assert!(names.iter().any(|n| n.ends_with(".json")), "{done}");

    // A recipe and something else: refused by name, nothing run or charged.
    let runs = crate::cache::ffmpeg_runs(&s).await;
    for (text, named) in [
        ("make it streamable and add a fade in", "fade"),
        ("make it HLS and draw the waveform", "one at a time"),
    ] {
        let (status, body) = s.post("/ai/ffmpeg/process", ALICE, ask(text)).await;
        assert_eq!(status, 400, "{text}: {body}");
        let error = body["error"].as_str().unwrap();
        assert!(error.contains(named), "{text}: {error}");
        assert!(error.contains("Nothing was run"), "{text}: {error}");
    }
    assert_eq!(crate::cache::ffmpeg_runs(&s).await, runs, "nothing ran");
}
