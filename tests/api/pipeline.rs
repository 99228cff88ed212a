//! One pipeline for every way a task runs: a task behaves the same sync and async, `@{name}`
//! means the same input whichever way it runs, and the dry run shows exactly the argv that ran.

use serde_json::{Value, json};

use crate::jobs::{submit, wait_for};
use crate::servers::{HttpsServer, Route};
use crate::support::*;

async fn with_https(routes: Vec<(&str, Route)>) -> (HttpsServer, Server) {
    let https = HttpsServer::start(routes).await;
    let s = Server::start_with(Options::env(&[(
        "MEDIAFORGE__NET__EXTRA_CA_FILE",
        https.ca_file.to_str().unwrap(),
    )]))
    .await;
    (https, s)
}

/// Runs `task` sync and async; returns (sync status, sync body, finished job).
async fn both_ways(s: &Server, task: Value) -> (u16, Value, Value) {
    let (status, sync) = s.process(ALICE, task.clone()).await;
    let job = submit(s, ALICE, json!({ "task": task })).await;
    let done = wait_for(s, ALICE, &job, &["completed", "failed"], 60).await;
    (status.as_u16(), sync, done)
}

#[tokio::test]
async fn url_inputs_with_one_name_behave_the_same_sync_and_async() {
    let image = std::fs::read(media().image()).unwrap();
    let (https, s) = with_https(vec![
        ("/a/image.png", Route::Body(image.clone())),
        ("/b/image.png", Route::Body(image)),
    ])
    .await;
    let inputs =
        json!([{"file_path": https.url("/a/image.png")}, {"file_path": https.url("/b/image.png")}]);

    // Not named: both ways run (the second import is stored as image_1.png, but that is
    // a storage detail, not the input's name).
    let task = json!({"inputs": inputs, "outputs": [{"file": "both.png", "options": [
        "-filter_complex", "[0:v][1:v]hstack", "-frames:v", "1"]}]});
    let (status, sync, job) = both_ways(&s, task).await;
    assert_eq!(status, 200, "{sync}");
    assert_eq!(job["status"], "completed", "{job}");

    // Named: ambiguous both ways, with the same message.
    let task = json!({"inputs": inputs, "outputs": [{"file": "named.png", "options": [
        "-vf", "movie=@{image.png},scale=16:16[m];[in][m]overlay", "-frames:v", "1"]}]});
    let (status, sync, job) = both_ways(&s, task).await;
    assert_eq!(status, 400, "{sync}");
    assert!(
        sync["error"].as_str().unwrap().contains("ambiguous"),
        "{sync}"
    );
    assert_eq!(job["status"], "failed", "{job}");
    assert_eq!(job["error"], sync["error"], "{job}");
}

#[tokio::test]
async fn a_renamed_url_import_keeps_its_name() {
    let m = media();
    let (https, s) = with_https(vec![(
        "/brand/logo.png",
        Route::Body(std::fs::read(m.image()).unwrap()),
    )])
    .await;
    let clip = s.upload_file(ALICE, None, &m.short()).await;
    let dir = clip.split('/').next().unwrap().to_string();
    // A file of the same name already sits in the directory the import goes to.
    s.upload(ALICE, Some(&dir), "logo.png", b"not the logo".to_vec())
        .await;
    let task = json!({
        "inputs": [{"file_path": clip}, {"file_path": https.url("/brand/logo.png")}],
        "outputs": [{"file": "branded.mp4", "maps": ["0:v"], "options": [
            "-vf", "movie=@{logo.png},scale=16:16[m];[in][m]overlay=2:2",
            "-c:v", "libx264", "-preset", "ultrafast", "-t", "1"]}],
    });
    let (status, sync, job) = both_ways(&s, task).await;
    assert_eq!(status, 200, "{sync}");
    assert_eq!(job["status"], "completed", "{job}");
    let names = s.file_names(ALICE, &dir).await;
    assert!(
        names.iter().any(|n| n == "logo_1.png") && names.iter().any(|n| n == "logo.png"),
        "{names:?}"
    );
}

#[tokio::test]
async fn the_dry_run_shows_the_argv_that_ran() {
    let m = media();
    let (https, s) = with_https(vec![(
        "/audio/tone.wav",
        Route::Body(std::fs::read(m.tone()).unwrap()),
    )])
    .await;
    let clip = s.upload_file(ALICE, None, &m.short()).await;
    let task = json!({
        "inputs": [{"file_path": clip, "options": ["-t", "1"]}, {"file_path": https.url("/audio/tone.wav")}],
        "outputs": [{"file": "mixed.mp4", "maps": ["0:v", "1:a"], "options": [
            "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest",
            "-metadata", "comment=@{tone.wav}"]}],
    });
    let (status, dry) = s
        .post("/ffmpeg/validate", ALICE, json!({ "task": task }))
        .await;
    assert_eq!(status, 200, "{dry}");
    let job = submit(&s, ALICE, json!({ "task": task })).await;
    let done = wait_for(&s, ALICE, &job, &["completed", "failed"], 60).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["command"], dry["command"], "{done}");
    let command = command_of(&dry);
    assert!(
        command.contains(&clip.as_str())
            && command.contains(&https.url("/audio/tone.wav").as_str()),
        "{command:?}"
    );
}
