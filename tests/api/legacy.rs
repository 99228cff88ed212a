//! POST /ffmpeg/run: gone by default, working behind `[compat] legacy_run`.

use serde_json::json;

use crate::support::*;

fn multipart(command: &str, files: &[(&str, Vec<u8>)]) -> (String, Vec<u8>) {
    let boundary = "mediaforgeboundary7d3f";
    let mut body = Vec::new();
    body.extend(
        format!(
            "--{boundary}\r\ncontent-disposition: form-data; name=\"command\"\r\n\r\n{command}\r\n"
        )
        .as_bytes(),
    );
    for (name, bytes) in files {
        body.extend(
            format!("--{boundary}\r\ncontent-disposition: form-data; name=\"{name}\"; filename=\"{name}\"\r\ncontent-type: application/octet-stream\r\n\r\n")
                .as_bytes(),
        );
        body.extend(bytes);
        body.extend(b"\r\n");
    }
    body.extend(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// POST /ffmpeg/run with `command` and `files`, as the old clients send it.
pub async fn legacy_run(s: &Server, command: &str, files: &[(&str, Vec<u8>)]) -> reqwest::Response {
    let (ct, body) = multipart(command, files);
    s.http()
        .post(s.url("/ffmpeg/run"))
        .header("Authorization", format!("Basic {ALICE}"))
        .header("content-type", &ct)
        .body(body)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn legacy_run_is_gone_unless_enabled() {
    let command = json!({"inputs": [{"file": "short.mp4"}], "outputs": [{"file": "thumb.png", "options": ["-frames:v", "1"]}]}).to_string();
    let files = [("short.mp4", std::fs::read(media().short()).unwrap())];

    let s = Server::start().await;
    let res = legacy_run(&s, &command, &files).await;
    assert_eq!(res.status(), 410);
    let got: serde_json::Value = res.json().await.unwrap();
    assert_eq!(got["ok"], false);
    assert!(
        got["error"]
            .as_str()
            .unwrap()
            .contains("POST /ffmpeg/process"),
        "{got}"
    );

    let s = Server::start_with(Options::env(&[("MEDIAFORGE__COMPAT__LEGACY_RUN", "true")])).await;
    let res = legacy_run(&s, &command, &files).await;
    assert_eq!(res.status(), 200);
    assert!(res.headers().contains_key("deprecation") && res.headers().contains_key("sunset"));
    let got: serde_json::Value = res.json().await.unwrap();
    assert_eq!(got["ok"], true, "{got}");
    // What the old endpoint's clients read: `file` is the URL, `filename` the name.
    let first = &got["result"][0];
    assert_eq!(first["file"], first["download_url"], "{got}");
    assert_eq!(first["filename"], "thumb.png", "{got}");
    let out = s.fetch_outputs(&got).await;
    assert_eq!(probe_bytes(&out[0].1, "png")["streams"][0]["width"], 320);
    // The same policy applies: an attack through the old route is refused too.
    let bad = json!({"inputs": [{"file": "short.mp4"}], "outputs": [{"file": "x.mp4", "options": ["-vf", "movie=/etc/passwd"]}]}).to_string();
    assert_eq!(legacy_run(&s, &bad, &files).await.status(), 400);
}
