//! POST /ffprobe/analyze through the real binary, compared with raw ffprobe on the same files.

use serde_json::json;

use crate::servers::{Canary, HttpsServer, Route};
use crate::support::*;

#[tokio::test]
async fn results_match_raw_ffprobe_and_keep_only_what_was_asked() {
    let s = Server::start().await;
    let m = media();
    let clip = s.upload_file(ALICE, None, &m.clip()).await;
    let dir = clip.split('/').next().unwrap().to_string();
    let tone = s.upload_file(ALICE, Some(&dir), &m.tone()).await;
    let raw = probe(&m.clip());

    let (status, body) = s
        .post(
            "/ffprobe/analyze",
            ALICE,
            json!({"file_path": clip, "probe": {"format": [], "streams": []}}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["ok"], true);
    let result = &body["result"];
    assert_eq!(
        result["format"]["duration"], raw["format"]["duration"],
        "durations stay strings, equal to ffprobe's"
    );
    assert_eq!(
        result["format"]["format_name"],
        raw["format"]["format_name"]
    );
    assert_eq!(result["streams"].as_array().unwrap().len(), 2);
    assert_eq!(result["streams"][0]["width"], 1280, "numbers stay numbers");
    assert_eq!(result["streams"][0]["codec_name"], "h264");
    assert_eq!(result["streams"][1]["sample_rate"], "48000");
    assert!(result.get("chapters").is_none() && result.get("frames").is_none());
    assert!(
        body["usage"]["input_size_gb"].as_f64().unwrap() > 0.0
            && body["usage"]["output_size_gb"] == 0.0
    );

    // Exactly the fields asked for.
    let (_, body) = s
        .post("/ffprobe/analyze", ALICE, json!({"file_path": clip, "probe": {"format": ["duration", "size"], "streams": ["codec_name"], "select_streams": "a:0"}}))
        .await;
    let format = body["result"]["format"].as_object().unwrap();
    let mut keys: Vec<&String> = format.keys().collect();
    keys.sort();
    assert_eq!(keys, vec!["duration", "size"]);
    assert_eq!(body["result"]["streams"], json!([{"codec_name": "aac"}]));

    let (_, body) = s
        .post(
            "/ffprobe/analyze",
            ALICE,
            json!({"file_path": tone, "probe": {"streams": ["sample_rate", "channels"]}}),
        )
        .await;
    assert_eq!(
        body["result"]["streams"],
        json!([{"sample_rate": "44100", "channels": 1}])
    );

    // count_frames adds nb_read_frames; the count matches ffprobe's.
    let (_, body) = s
        .post("/ffprobe/analyze", ALICE, json!({"file_path": clip, "probe": {"streams": ["nb_read_frames"], "select_streams": "v:0", "count_frames": true}}))
        .await;
    assert_eq!(
        body["result"]["streams"][0]["nb_read_frames"], "300",
        "{body}"
    );
}

#[tokio::test]
async fn frames_need_select_streams_and_are_bounded() {
    let s = Server::start().await;
    let clip = s.upload_file(ALICE, None, &media().clip()).await;
    for probe in [json!({"frames": []}), json!({"packets": ["pts"]})] {
        let (status, body) = s
            .post(
                "/ffprobe/analyze",
                ALICE,
                json!({"file_path": clip, "probe": probe}),
            )
            .await;
        assert_eq!(status, 400);
        assert_eq!(
            body["error"],
            "select_streams is required when requesting frames or packets"
        );
    }
    let (status, body) = s
        .post("/ffprobe/analyze", ALICE, json!({"file_path": clip, "probe": {"frames": ["pts_time", "pict_type"], "select_streams": "v:0", "read_intervals": "%+1"}}))
        .await;
    assert_eq!(status, 200, "{body}");
    let frames = body["result"]["frames"].as_array().unwrap();
    assert!(
        (29..=32).contains(&frames.len()),
        "one second of 30 fps: {}",
        frames.len()
    );
    // ffprobe adds the side-data subsection (an empty entry per side data) to the fields.
    assert!(frames.iter().all(|f| {
        f.get("pict_type").is_some()
            && f.as_object()
                .unwrap()
                .keys()
                .all(|k| ["pts_time", "pict_type", "side_data_list"].contains(&k.as_str()))
    }));
    let (status, body) = s
        .post("/ffprobe/analyze", ALICE, json!({"file_path": clip, "probe": {"packets": [], "select_streams": "v:0", "read_intervals": "bogus;rm -rf"}}))
        .await;
    assert_eq!(status, 400, "{body}");
}

#[tokio::test]
async fn urls_are_analysed_in_place_and_private_ones_refused() {
    let m = media();
    let https = HttpsServer::start(vec![(
        "/v/short.mp4",
        Route::Body(std::fs::read(m.short()).unwrap()),
    )])
    .await;
    let s = Server::start_with(Options::env(&[(
        "MEDIAFORGE__NET__EXTRA_CA_FILE",
        https.ca_file.to_str().unwrap(),
    )]))
    .await;
    let (status, body) = s.post("/ffprobe/analyze", ALICE, json!({"file_path": https.url("/v/short.mp4"), "probe": {"format": ["format_name", "duration"]}})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["result"]["format"]["format_name"],
        "mov,mp4,m4a,3gp,3g2,mj2"
    );
    let (_, dirs) = s.get("/directory", ALICE).await;
    assert_eq!(
        dirs["directories"],
        json!([]),
        "a probed URL is not imported"
    );

    let strict = Server::start_with(Options::env(&[(
        "MEDIAFORGE__NET__ALLOW_PRIVATE_ADDRESSES",
        "false",
    )]))
    .await;
    for url in [
        https.url("/v/short.mp4"),
        "https://127.0.0.1/x".into(),
        "https://[::1]/x".into(),
        "http://example.com/x".into(),
    ] {
        let (status, body) = strict
            .post(
                "/ffprobe/analyze",
                ALICE,
                json!({"file_path": url, "probe": {"format": []}}),
            )
            .await;
        assert_eq!(status, 400, "{url}: {body}");
    }
}

#[tokio::test]
async fn probe_errors_and_access() {
    let s = Server::start().await;
    let clip = s.upload_file(ALICE, None, &media().short()).await;
    let dir = clip.split('/').next().unwrap();
    let junk = s
        .upload(
            ALICE,
            Some(dir),
            "junk.mp4",
            b"this is not a video".to_vec(),
        )
        .await;
    let cases = [
        (
            BOB,
            json!({"file_path": clip, "probe": {}}),
            403,
            "Unauthorized access to directory",
        ),
        (
            ALICE,
            json!({"file_path": format!("{dir}/nope.mp4"), "probe": {}}),
            404,
            "File not found in directory",
        ),
        (
            ALICE,
            json!({"file_path": "nodir/x.mp4", "probe": {}}),
            404,
            "Directory not found",
        ),
        (
            ALICE,
            json!({"file_path": "bad", "probe": {}}),
            400,
            "Invalid file_path format. Expected <dir_id>/<file_name>",
        ),
        (
            ALICE,
            json!({"file_path": clip}),
            400,
            "probe object is required in request body",
        ),
        (ALICE, json!({"probe": {}}), 400, "file_path is required"),
    ];
    for (key, body, want_status, want_error) in cases {
        let (status, got) = s.post("/ffprobe/analyze", key, body.clone()).await;
        assert_eq!(
            (status.as_u16(), got["error"].as_str().unwrap_or("")),
            (want_status, want_error),
            "{body}"
        );
    }
    // A file ffprobe cannot read: 200 with ok:false, the error, and the error section.
    let (status, body) = s
        .post(
            "/ffprobe/analyze",
            ALICE,
            json!({"file_path": junk, "probe": {"format": [], "error": []}}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["ok"], false);
    assert!(
        body["error"].as_str().unwrap().contains("Invalid data"),
        "{body}"
    );
    assert!(body["result"]["error"]["code"].is_number(), "{body}");
}

#[tokio::test]
async fn a_malicious_playlist_leaks_nothing() {
    let canary = Canary::start().await;
    let s = Server::start().await;
    let playlist = format!(
        "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\n/etc/passwd\n#EXTINF:1.0,\nhttp://127.0.0.1:{}/x.ts\n#EXT-X-ENDLIST\n",
        canary.port
    );
    let path = s
        .upload(ALICE, None, "evil.m3u8", playlist.into_bytes())
        .await;
    let (_, body) = s
        .post("/ffprobe/analyze", ALICE, json!({"file_path": path, "probe": {"format": [], "streams": [], "packets": [], "select_streams": "0", "error": []}}))
        .await;
    assert!(!body.to_string().contains("root:x:0:0"), "{body}");
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(canary.hits(), 0);
}

/// Requests charging one account at once all succeed and are all charged: the store's write
/// conflicts between their transactions are retried, not reported as 500s.
#[tokio::test]
async fn concurrent_charges_to_one_account_all_count() {
    let s = Server::start().await;
    let clip = s.upload_file(ALICE, None, &media().short()).await;
    let n = 12;
    let calls = (0..n).map(|_| {
        s.post(
            "/ffprobe/analyze",
            ALICE,
            json!({"file_path": clip, "probe": {"format": ["duration"]}}),
        )
    });
    for (status, body) in futures_util::future::join_all(calls).await {
        assert_eq!(status, 200, "{body}");
    }
    let (_, usage) = s.get("/usage", ALICE).await;
    let charged = usage["usage"]["input_size_gb"].as_f64().unwrap();
    let one = std::fs::metadata(media().short()).unwrap().len() as f64 / 1_073_741_824.0;
    assert!(
        (charged - n as f64 * one).abs() < 1e-9,
        "{charged} vs {n} x {one}"
    );
    // Totals are rounded as each run's figures are, not printed as float sums.
    for k in ["input_size_gb", "time_sec", "gb_sec"] {
        let v = usage["usage"][k].as_f64().unwrap();
        assert_eq!(v, (v * 1e9).round() / 1e9, "{k}: {v}");
    }
    let quota = usage["plan"]["monthly_quota_gb"].as_f64().unwrap();
    let remaining = usage["remaining_gb"].as_f64().unwrap();
    assert!((quota - charged - remaining).abs() < 1e-6, "{usage}");
}
