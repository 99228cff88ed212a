//! Playback URLs (issue #29, item 3): an HLS task's playlist plays straight from the service,
//! on both storage backends. ffmpeg itself is the player here (its HLS demuxer over HTTP): it
//! resolves the playlist's relative segment names against the playback URL, as hls.js does.
//! A token for one directory reads nothing of another.

use std::process::Command;

use serde_json::{Value, json};

use crate::scaleout::with;
use crate::servers::S3Server;
use crate::support::*;

fn hls_task(input: &str) -> Value {
    json!({"inputs": [{"file_path": input}],
           "outputs": [{"file": "index.m3u8", "options": [
               "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-c:a", "aac",
               "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod"]}]})
}

/// Frames and duration of what ffmpeg plays from `url` (every segment fetched and decoded).
fn play(url: &str) -> (u64, f64) {
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-count_frames", "-select_streams", "v:0"])
        .args([
            "-show_entries",
            "stream=nb_read_frames:format=duration",
            "-of",
            "json",
        ])
        .arg(url)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ffprobe {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    let frames = j["streams"][0]["nb_read_frames"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    (frames, duration(&j))
}

async fn plays_from_the_service(s: &Server, local: bool) {
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let (status, body) = s.process(ALICE, hls_task(&input)).await;
    assert_eq!(status, 200, "{body}");
    let results = body["result"].as_array().unwrap();
    let playlist = results
        .iter()
        .find(|r| r["file_name"] == "index.m3u8")
        .expect("the playlist");
    let url = playlist["playback_url"].as_str().expect("a playback URL");
    assert!(results.len() >= 3, "segments registered: {body}");
    for segment in results.iter().filter(|r| r["file_name"] != "index.m3u8") {
        assert!(segment.get("playback_url").is_none(), "{segment}");
    }
    // short.mp4: 2 s at 25 fps.
    let (frames, seconds) = play(url);
    assert_eq!(frames, 50, "{url}");
    assert!((seconds - 2.0).abs() < 0.2, "{seconds}");

    // The prefix reads its own directory only.
    let (prefix, _) = url.rsplit_once('/').unwrap();
    let (base, dir) = prefix.rsplit_once('/').unwrap();
    let other = s
        .upload(ALICE, None, "secret.mp4", b"not yours".to_vec())
        .await;
    let (other_dir, _) = other.split_once('/').unwrap();
    let get = |u: String| {
        let http = s.http().clone();
        async move { http.get(u).send().await.unwrap() }
    };
    let res = get(format!("{base}/{other_dir}/secret.mp4")).await;
    assert_eq!(res.status(), 403, "another directory under this token");
    let res = get(format!("{prefix}/secret.mp4")).await;
    assert_eq!(res.status(), 404, "a file of another directory by name");
    let res = get(format!("{prefix}/index0.ts")).await;
    assert_eq!(res.status(), 200);
    if local {
        // Players run on other origins. (On S3 a segment is a redirect to the bucket, whose
        // own CORS rules apply: README.)
        assert_eq!(res.headers()["access-control-allow-origin"], "*");
    }
    let res = get(format!("{prefix}/index.m3u8")).await;
    assert_eq!(res.headers()["access-control-allow-origin"], "*");
    assert!(res.text().await.unwrap().contains("index0.ts"));
    // A token changed in any part is refused.
    let token = base.rsplit_once('/').unwrap().1;
    let (exp, rest) = token.split_once('.').unwrap();
    let later = (exp.parse::<u64>().unwrap() + 60).to_string();
    let forged = base.replace(token, &format!("{later}.{rest}"));
    let res = get(format!("{forged}/{dir}/index.m3u8")).await;
    assert_eq!(res.status(), 403);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["ok"], false);
}

#[tokio::test]
async fn an_hls_task_plays_from_its_playback_url() {
    let s = Server::start().await;
    plays_from_the_service(&s, true).await;
}

#[tokio::test]
async fn an_hls_task_plays_from_its_playback_url_on_s3() {
    let s3 = S3Server::start();
    let s = Server::start_with(with(&[s3.env()], &[])).await;
    plays_from_the_service(&s, false).await;
}
