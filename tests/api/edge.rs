//! Edges of probes, uploads and URL fetches: the plan's size on URL probes, ffprobe's output
//! field for field, bounded probe output, and deadlines on slow peers.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use crate::servers::{HttpsServer, Route};
use crate::support::*;

/// A probe of a URL larger than the plan's file size is the plan's 403, whatever the size
/// announced or seen, though only a prefix is kept.
#[tokio::test]
async fn url_probes_obey_the_plan_file_size() {
    let m = media();
    let mut big = std::fs::read(m.short()).unwrap();
    big.resize(3 * 1024 * 1024, 0);
    let https = HttpsServer::start(vec![
        ("/v/big.mp4", Route::Body(big)),
        (
            "/v/short.mp4",
            Route::Body(std::fs::read(m.short()).unwrap()),
        ),
    ])
    .await;
    let s = Server::start_with(Options::env(&[(
        "MEDIAFORGE__NET__EXTRA_CA_FILE",
        https.ca_file.to_str().unwrap(),
    )]))
    .await;
    let probe_of = |key, path: &str| {
        s.post(
            "/ffprobe/analyze",
            key,
            json!({"file_path": https.url(path), "probe": {"format": ["format_name"]}}),
        )
    };
    let (status, body) = probe_of(BOB, "/v/big.mp4").await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(
        body["error"],
        "File 'big.mp4' size (3 MB) exceeds plan (free) max file size limit of 1 MB."
    );
    // Within the plan: analysed as before.
    let (status, body) = probe_of(BOB, "/v/short.mp4").await;
    assert_eq!(status, 200, "{body}");
    // ALICE's plan is larger: the same big URL is probed (only its prefix is read).
    let (status, body) = probe_of(ALICE, "/v/big.mp4").await;
    assert_eq!(status, 200, "{body}");
}

/// Fixtures with side data: AAC in MP4 (skip samples in the first packet's side data) and
/// H.264 with a rotation (a display matrix) and x264's SEI (side data on the first frame).
fn side_data_fixtures() -> (PathBuf, PathBuf) {
    let dir = temp_dir("side-data");
    let make = |args: &[&str], out: &str| make_media(&dir, args, out);
    let skip = make(
        &["-f", "lavfi", "-i", "sine=duration=1", "-c:a", "aac"],
        "skip.mp4",
    );
    let rotated = make(
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc=size=160x120:rate=10:duration=1",
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
            "-pix_fmt",
            "yuv420p",
            "-metadata:s:v",
            "rotate=90",
        ],
        "rotated.mp4",
    );
    (skip, rotated)
}

#[tokio::test]
async fn probe_results_are_ffprobes_field_for_field() {
    let s = Server::start().await;
    let (skip, rotated) = side_data_fixtures();
    let skip_path = s.upload_file(ALICE, None, &skip).await;
    let dir = skip_path.split('/').next().unwrap().to_string();
    let rotated_path = s.upload_file(ALICE, Some(&dir), &rotated).await;
    // (file, probe, ffprobe's own selection, section compared)
    let cases = [
        (
            &skip_path,
            &skip,
            json!({"packets": ["pts"], "select_streams": "a:0", "read_intervals": "%+#3"}),
            vec![
                "-select_streams",
                "a:0",
                "-read_intervals",
                "%+#3",
                "-show_entries",
                "packet=pts",
            ],
            "packets",
        ),
        (
            &skip_path,
            &skip,
            json!({"packets": [], "select_streams": "a:0", "read_intervals": "%+#3"}),
            vec![
                "-select_streams",
                "a:0",
                "-read_intervals",
                "%+#3",
                "-show_entries",
                "packet",
            ],
            "packets",
        ),
        (
            &skip_path,
            &skip,
            json!({"packets": ["size", "side_data_list"], "select_streams": "a:0", "read_intervals": "%+#3"}),
            vec![
                "-select_streams",
                "a:0",
                "-read_intervals",
                "%+#3",
                "-show_entries",
                "packet=size:packet_side_data_list",
            ],
            "packets",
        ),
        (
            &rotated_path,
            &rotated,
            json!({"frames": ["pts", "pict_type"], "select_streams": "v:0", "read_intervals": "%+#3"}),
            vec![
                "-select_streams",
                "v:0",
                "-read_intervals",
                "%+#3",
                "-show_entries",
                "frame=pts,pict_type",
            ],
            "frames",
        ),
        (
            &rotated_path,
            &rotated,
            json!({"streams": ["codec_name", "side_data_list"]}),
            vec!["-show_entries", "stream=codec_name:stream_side_data_list"],
            "streams",
        ),
    ];
    for (file_path, local, probe, args, section) in cases {
        let (status, body) = s
            .post(
                "/ffprobe/analyze",
                ALICE,
                json!({"file_path": file_path, "probe": probe}),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        let raw = ffprobe_json(local, &args);
        assert_eq!(body["result"][section], raw[section], "{probe}");
    }
    // The rows above must carry the empty entries this test is about.
    let raw = ffprobe_json(
        &skip,
        &[
            "-select_streams",
            "a:0",
            "-read_intervals",
            "%+#3",
            "-show_entries",
            "packet=pts",
        ],
    );
    assert_eq!(raw["packets"][0]["side_data_list"], json!([{}]), "{raw}");
}

/// A dense subtitle file (every cue within the default 30 s) answers with at most 3000
/// packets, however much ffprobe prints.
#[tokio::test]
async fn dense_probes_answer_at_most_3000_entries() {
    let s = Server::start().await;
    let mut srt = String::new();
    let cues = 60_000;
    for i in 0..cues {
        let ms = i * 10_000 / cues;
        srt.push_str(&format!(
            "{}\n00:00:{:02},{:03} --> 00:00:{:02},{:03}\nCue {i}\n\n",
            i + 1,
            ms / 1000,
            ms % 1000,
            ms / 1000,
            ms % 1000 + 5.min(999 - ms % 1000),
        ));
    }
    let path = s.upload(ALICE, None, "dense.srt", srt.into_bytes()).await;
    let (status, body) = s
        .post(
            "/ffprobe/analyze",
            ALICE,
            json!({"file_path": path, "probe": {"packets": [], "streams": ["codec_name"], "select_streams": "0"}}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["packets"].as_array().unwrap().len(), 3000);
    assert_eq!(body["result"]["streams"][0]["codec_name"], "subrip");
}

/// A plain TCP server on loopback that answers every connection by dripping: an HTTP head
/// announcing `len` bytes, then one byte every `every`.
async fn drip_server(len: usize, every: Duration) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut tcp, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = tcp.read(&mut buf).await;
                let head = format!("HTTP/1.1 200 OK\r\ncontent-length: {len}\r\n\r\n");
                if tcp.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                for _ in 0..len {
                    tokio::time::sleep(every).await;
                    if tcp.write_all(b"x").await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    port
}

#[tokio::test]
async fn slow_urls_hit_the_probe_and_import_deadlines() {
    let port = drip_server(1000, Duration::from_millis(500)).await;
    let s = Server::start_with(Options::env(&[
        ("MEDIAFORGE__NET__ALLOW_HTTP", "true"),
        ("MEDIAFORGE__LIMITS__PROBE_TIMEOUT_S", "2"),
        ("MEDIAFORGE__LIMITS__IMPORT_TIMEOUT_S", "2"),
    ]))
    .await;
    let url = format!("http://127.0.0.1:{port}/slow.mp4");
    let started = Instant::now();
    let (status, body) = s
        .post(
            "/ffprobe/analyze",
            ALICE,
            json!({"file_path": url, "probe": {"format": []}}),
        )
        .await;
    assert_eq!(status, 504, "{body}");
    assert_eq!(
        body["error"],
        "Could not fetch input URL: no complete answer within 2 s"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    let started = Instant::now();
    let (status, body) = s
        .process(
            ALICE,
            json!({"inputs": [{"file_path": url}], "outputs": [{"file": "out.mp4"}]}),
        )
        .await;
    assert_eq!(status, 504, "{body}");
    assert!(started.elapsed() < Duration::from_secs(10));
}

/// Sends a request head and then its body one byte every `every`; returns the status line
/// and the elapsed time, or `None` when the server answered nothing.
async fn drip_request(base: &str, head: &str, body: &[u8], every: Duration) -> (String, Duration) {
    let addr = base.trim_start_matches("http://");
    let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    tcp.write_all(head.as_bytes()).await.unwrap();
    let started = Instant::now();
    let (mut rd, mut wr) = tcp.into_split();
    let writer = {
        let body = body.to_vec();
        tokio::spawn(async move {
            for b in body {
                tokio::time::sleep(every).await;
                if wr.write_all(&[b]).await.is_err() {
                    return;
                }
            }
        })
    };
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    while !answer.windows(4).any(|w| w == b"\r\n\r\n") {
        match tokio::time::timeout(Duration::from_secs(30), rd.read(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => answer.extend_from_slice(&buf[..n]),
            _ => break,
        }
    }
    writer.abort();
    let text = String::from_utf8_lossy(&answer).to_string();
    (text, started.elapsed())
}

#[tokio::test]
async fn slow_request_bodies_are_408() {
    let s = Server::start_with(Options::env(&[
        ("MEDIAFORGE__SERVER__BODY_TIMEOUT_S", "1"),
        ("MEDIAFORGE__SERVER__BODY_MIN_BYTES_PER_S", "100"),
    ]))
    .await;
    // An upload to a presigned URL.
    let (_, created) = s
        .post("/file", ALICE, json!({"file_name": "slow.bin"}))
        .await;
    let url = created["upload"]["url"].as_str().unwrap();
    let path_and_query = &url[s.base.len()..];
    let head = format!("PUT {path_and_query} HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n");
    let (answer, took) =
        drip_request(&s.base, &head, &[b'x'; 100], Duration::from_millis(400)).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("too slowly"), "{answer}");
    assert!(took < Duration::from_secs(10), "{took:?}");
    let file_path = created["file"]["file_path"].as_str().unwrap();
    let (status, info) = s.get(&format!("/file/{file_path}"), ALICE).await;
    assert_ne!(info["file"]["state"], "ready", "{status} {info}");

    // A JSON body.
    let json_body = br#"{"ttl_seconds": 3600}"#;
    let head = format!(
        "POST /directory HTTP/1.1\r\nhost: x\r\nauthorization: Basic {ALICE}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        json_body.len()
    );
    let (answer, _) = drip_request(&s.base, &head, json_body, Duration::from_millis(400)).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");

    // A body at a fair pace is fine.
    let path = s.upload(ALICE, None, "ok.bin", vec![7u8; 1000]).await;
    assert!(path.ends_with("ok.bin"));
}
