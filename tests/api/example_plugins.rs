//! The third-party example plugins of `examples/plugins/`, each built by `make plugins` and
//! swapped in by config, as an operator would: `preset-builder` as the command builder (named
//! presets expanded into ordinary options, then judged by the default policy it uses as a
//! library) and `phrasebook-translator` as the translator (house phrases rewritten into the
//! default translator's wording). Outputs are downloaded and probed with ffprobe.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::support::*;

fn with_plugin(world: &str, component: &str) -> Options {
    Options {
        extra: format!(
            "[plugins.{world}]\npath = \"{}\"\n",
            wasm(component).display()
        ),
        ..Default::default()
    }
}

async fn preset_server() -> Server {
    Server::start_with(with_plugin("command_builder", "preset_builder")).await
}

async fn phrasebook_server() -> Server {
    Server::start_with(with_plugin("translator", "phrasebook_translator")).await
}

/// The segment names of an HLS media playlist, and the sum of its `#EXTINF` durations.
fn playlist(text: &str) -> (Vec<String>, f64) {
    assert!(text.starts_with("#EXTM3U"), "{text}");
    assert!(text.contains("#EXT-X-PLAYLIST-TYPE:VOD"), "{text}");
    assert!(text.contains("#EXT-X-ENDLIST"), "{text}");
    let mut segments = Vec::new();
    let mut total = 0.0;
    for line in text.lines() {
        if let Some(d) = line.strip_prefix("#EXTINF:") {
            total += d
                .trim_end_matches(',')
                .split(',')
                .next()
                .unwrap()
                .parse::<f64>()
                .unwrap();
        } else if !line.starts_with('#') && !line.trim().is_empty() {
            segments.push(line.trim().to_string());
        }
    }
    (segments, total)
}

#[tokio::test]
async fn preset_builder_expands_hls_ladder_and_thumbnail_sprite() {
    let s = preset_server().await;
    // 10 s, 1280x720, 30 fps, H.264 and AAC stereo.
    let input = s.upload_file(ALICE, None, &media().clip()).await;
    let task = json!({
        "inputs": [{"file_path": input}],
        "outputs": [
            {"file": "stream.m3u8", "options": ["-mf_preset", "hls-ladder"]},
            {"file": "sprite.jpg", "options": ["-mf_preset", "thumbnail-sprite"]},
        ],
    });

    // The dry run: the preset decisions come first, then the default policy's own.
    let (status, body) = s
        .post("/ffmpeg/validate", ALICE, json!({ "task": task }))
        .await;
    assert_eq!(status, 200, "{body}");
    let decisions = body["decisions"].as_array().unwrap();
    assert_eq!(decisions[0]["subject"], "-mf_preset hls-ladder", "{body}");
    assert_eq!(decisions[0]["allowed"], true);
    let reason = decisions[0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("stream_360p.m3u8, stream_720p.m3u8"),
        "{reason}"
    );
    assert_eq!(decisions[1]["subject"], "-mf_preset thumbnail-sprite");
    let command = command_of(&body);
    assert!(!command.contains(&"-mf_preset"), "{command:?}");
    assert!(command.contains(&"-filter_complex"), "{command:?}");

    let (status, body) = s.process(ALICE, task).await;
    assert_eq!(status, 200, "{body}");
    let outputs: BTreeMap<String, Vec<u8>> = s.fetch_outputs(&body).await.into_iter().collect();
    let names: Vec<&str> = outputs.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "sprite.jpg",
            "stream_360p.m3u8",
            "stream_360p_000.ts",
            "stream_360p_001.ts",
            "stream_360p_002.ts",
            "stream_720p.m3u8",
            "stream_720p_000.ts",
            "stream_720p_001.ts",
            "stream_720p_002.ts",
        ],
        "{body}"
    );

    // One 5x5 sheet of 160x90 thumbnails.
    let sprite = probe_bytes(&outputs["sprite.jpg"], "jpg");
    let v = stream(&sprite, "video").unwrap();
    assert_eq!(v["codec_name"], "mjpeg");
    assert_eq!(
        (v["width"].as_u64(), v["height"].as_u64()),
        (Some(800), Some(450))
    );

    for (rung, width, height) in [("360p", 640, 360), ("720p", 1280, 720)] {
        let name = format!("stream_{rung}.m3u8");
        let text = String::from_utf8(outputs[&name].clone()).unwrap();
        let (segments, total) = playlist(&text);
        let expected: Vec<String> = (0..3).map(|i| format!("stream_{rung}_{i:03}.ts")).collect();
        assert_eq!(segments, expected, "{name}: {text}");
        assert!((total - 10.0).abs() < 0.3, "{name}: {total} s");
        // Segments of one rendition concatenate into one transport stream.
        let mut ts = Vec::new();
        for segment in &segments {
            let p = probe_bytes(&outputs[segment], "ts");
            let v = stream(&p, "video").unwrap();
            assert_eq!(v["height"].as_u64(), Some(height), "{segment}");
            ts.extend_from_slice(&outputs[segment]);
        }
        let p = probe_bytes(&ts, "ts");
        let v = stream(&p, "video").expect("video");
        assert_eq!(v["codec_name"], "h264", "{rung}");
        assert_eq!(v["profile"], "Main", "{rung}");
        assert_eq!(
            (v["width"].as_u64(), v["height"].as_u64()),
            (Some(width), Some(height)),
            "{rung}"
        );
        let a = stream(&p, "audio").expect("audio");
        assert_eq!(a["codec_name"], "aac", "{rung}");
        assert!(
            (duration(&p) - 10.0).abs() < 0.5,
            "{rung}: {}",
            duration(&p)
        );
    }
}

#[tokio::test]
async fn preset_builder_refuses_unknown_and_misplaced_presets() {
    let s = preset_server().await;
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let cases = [
        (
            json!({"file": "out.mp4", "options": ["-mf_preset", "x"]}),
            "Unknown preset 'x' (output 1): the known presets are hls-ladder, thumbnail-sprite",
        ),
        (
            json!({"file": "out.m3u8", "options": ["-mf_preset", "hls-ladder", "-crf", "20"]}),
            "-mf_preset must be an output's only option",
        ),
        (
            json!({"file": "stream.mp4", "options": ["-mf_preset", "hls-ladder"]}),
            "The hls-ladder preset writes HLS playlists: name the output NAME.m3u8, without '%' (output 1, 'stream.mp4')",
        ),
    ];
    for (output, message) in cases {
        let task = json!({"inputs": [{"file_path": input}], "outputs": [output]});
        let (status, body) = s.process(ALICE, task).await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(body["ok"], false);
        assert!(
            body["error"].as_str().unwrap().starts_with(message),
            "{body}"
        );
    }
}

#[tokio::test]
async fn preset_builder_passes_ordinary_tasks_to_the_default_policy() {
    let s = preset_server().await;
    let input = s.upload_file(ALICE, None, &media().short()).await;

    // A task without presets is built and run exactly as by the default builder.
    let (status, body) = s
        .process(
            ALICE,
            json!({
                "inputs": [{"file_path": input}],
                "outputs": [
                    {"file": "small.mp4", "options": ["-vf", "scale=160:-2", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"]},
                    {"file": "tone.mp3", "options": ["-vn", "-c:a", "libmp3lame", "-b:a", "96k"]},
                ],
            }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let outputs: BTreeMap<String, Vec<u8>> = s.fetch_outputs(&body).await.into_iter().collect();
    assert_eq!(outputs.len(), 2, "{body}");
    let p = probe_bytes(&outputs["small.mp4"], "mp4");
    let v = stream(&p, "video").unwrap();
    assert_eq!(v["codec_name"], "h264");
    assert_eq!(
        (v["width"].as_u64(), v["height"].as_u64()),
        (Some(160), Some(120))
    );
    assert_eq!(stream(&p, "audio").unwrap()["codec_name"], "aac");
    let p = probe_bytes(&outputs["tone.mp3"], "mp3");
    assert!(stream(&p, "video").is_none());
    assert_eq!(stream(&p, "audio").unwrap()["codec_name"], "mp3");

    // The default policy's refusals still apply, to ordinary outputs and next to a preset.
    for outputs in [
        json!([{"file": "out.mp4", "options": ["-vf", "sendcmd=f=cmds.txt"]}]),
        json!([
            {"file": "sprite.jpg", "options": ["-mf_preset", "thumbnail-sprite"]},
            {"file": "out.mp4", "options": ["-dump_attachment:t", "x.ttf"]},
        ]),
    ] {
        let (status, body) = s
            .process(
                ALICE,
                json!({"inputs": [{"file_path": input}], "outputs": outputs}),
            )
            .await;
        assert_eq!(status, 400, "{body}");
        assert!(
            body["error"].as_str().unwrap().contains("is not allowed"),
            "{body}"
        );
    }

    // Probes are the default builder's.
    let (status, body) = s
        .post(
            "/ffprobe/analyze",
            ALICE,
            json!({"file_path": input, "probe": {"streams": ["codec_name", "width"], "select_streams": "v:0"}}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["streams"][0]["codec_name"], "h264", "{body}");
    assert_eq!(body["result"]["streams"][0]["width"], 320, "{body}");
}

/// `POST /ai/ffmpeg/process` on `clip.mp4`; the one output, probed.
async fn natural(s: &Server, input: &str, instructions: &str) -> (String, Value, Value) {
    let (status, body) = s
        .post(
            "/ai/ffmpeg/process",
            ALICE,
            json!({"inputs": [{"file_path": input}], "instructions": instructions}),
        )
        .await;
    assert_eq!(status, 200, "{instructions}: {body}");
    assert!(
        body["generated_command"]["outputs"].is_array(),
        "{instructions}: {body}"
    );
    let outputs = s.fetch_outputs(&body).await;
    assert_eq!(outputs.len(), 1, "{instructions}: {body}");
    let (name, bytes) = &outputs[0];
    let ext = name.rsplit('.').next().unwrap();
    (name.clone(), probe_bytes(bytes, ext), body)
}

#[tokio::test]
async fn phrasebook_translator_understands_its_house_phrases() {
    let s = phrasebook_server().await;
    let dir = s.mkdir(ALICE).await;
    let input = s.upload_file(ALICE, Some(&dir), &media().clip()).await;

    let (name, p, body) = natural(&s, &input, "make it instagram ready").await;
    assert!(name.ends_with(".mp4"), "{name}");
    assert!(
        p["format"]["format_name"].as_str().unwrap().contains("mp4"),
        "{p}"
    );
    let v = stream(&p, "video").expect("video");
    assert_eq!(v["codec_name"], "h264", "{body}");
    assert_eq!(
        (v["width"].as_u64(), v["height"].as_u64()),
        (Some(1080), Some(1080))
    );
    assert_eq!(stream(&p, "audio").expect("audio")["codec_name"], "aac");
    // Shorter than the 60 s cap: the whole clip.
    assert!((duration(&p) - 10.0).abs() < 0.5, "{}", duration(&p));

    let (name, p, body) = natural(&s, &input, "Podcast version!").await;
    assert!(name.ends_with(".mp3"), "{name}");
    assert!(stream(&p, "video").is_none(), "{body}");
    let a = stream(&p, "audio").expect("audio");
    assert_eq!(a["codec_name"], "mp3");
    assert_eq!(a["channels"], 1);
    let bit_rate: f64 = a["bit_rate"].as_str().unwrap().parse().unwrap();
    assert!((bit_rate - 64_000.0).abs() <= 4_000.0, "{bit_rate}");
    assert!((duration(&p) - 10.0).abs() < 0.5, "{}", duration(&p));
    let options = body["generated_command"]["outputs"][0]["options"].to_string();
    assert!(options.contains("loudnorm"), "{options}");

    // Two house phrases ask for two kinds of output: refused by the phrasebook itself.
    let (status, body) = s
        .post(
            "/ai/ffmpeg/process",
            ALICE,
            json!({"inputs": [{"file_path": input}], "instructions": "make it instagram ready, podcast version"}),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        body["error"],
        "Could not translate the instructions: \"make it instagram ready\" and \"podcast version\" ask for different outputs; use one house phrase per instruction"
    );

    // Instructions without a house phrase go to the default translator unchanged.
    let (name, p, _) = natural(&s, &input, "extract the audio as mp3").await;
    assert!(name.ends_with(".mp3"), "{name}");
    assert_eq!(stream(&p, "audio").unwrap()["channels"], 2);
}

/// `[plugins.translator] fallback`: the default translator first; what it refuses goes to the
/// phrasebook, and a refusal by both is the default translator's.
#[tokio::test]
async fn a_fallback_translator_answers_what_the_first_refuses() {
    let s = Server::start_with(Options {
        extra: format!(
            "[plugins.translator]\npath = \"{}\"\nfallback = \"{}\"\n",
            wasm("translator").display(),
            wasm("phrasebook_translator").display()
        ),
        ..Default::default()
    })
    .await;
    let plain = Server::start().await;
    let dir = s.mkdir(ALICE).await;
    let input = s.upload_file(ALICE, Some(&dir), &media().clip()).await;
    async fn ask(s: &Server, instructions: &str, input: &str) -> (reqwest::StatusCode, Value) {
        let body = json!({"inputs": [{"file_path": input}], "instructions": instructions});
        s.post("/ai/ffmpeg/process", ALICE, body).await
    }

    // Refused by the default translator alone ...
    let plain_input = plain.upload_file(ALICE, None, &media().clip()).await;
    let (status, alone) = ask(&plain, "podcast version", &plain_input).await;
    assert_eq!(status, 400, "{alone}");
    // ... answered by the fallback.
    let (name, p, body) = natural(&s, &input, "podcast version").await;
    assert!(name.ends_with(".mp3"), "{name} {body}");
    assert!(stream(&p, "video").is_none(), "{body}");
    assert_eq!(stream(&p, "audio").expect("audio")["channels"], 1, "{body}");
    // Refused by both: the first translator's message.
    let (status, both) = ask(&s, "make it sparkle like a diamond", &input).await;
    let (_, alone) = ask(&plain, "make it sparkle like a diamond", &plain_input).await;
    assert_eq!(status, 400, "{both}");
    assert_eq!(both["error"], alone["error"]);
}
