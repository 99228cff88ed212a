//! Backups that restore (#31): a busy instance (a job running, uploads arriving) is backed up
//! through the operator API; `mediaforge restore` loads the copy into a fresh data directory; a
//! server started on it finds every file (same bytes), directory, finished job and API key.

use serde_json::{Value, json};

use crate::jobs::{frame_task, slow_task, submit, wait_for};
use crate::support::*;

#[tokio::test]
async fn a_busy_instance_is_backed_up_and_restores_into_a_fresh_one() {
    let a = Server::start_with(Options {
        disk_db: true,
        ..Default::default()
    })
    .await;
    // What must come back: two directories of files, a task's output, a finished job, a key.
    let mut files: Vec<(String, String)> = Vec::new();
    let input = a.upload_file(ALICE, None, &media().short()).await;
    files.push((ALICE.into(), input.clone()));
    let bob_dir = a.mkdir(BOB).await;
    let bob_file = a
        .upload(BOB, Some(&bob_dir), "notes.txt", b"kept".to_vec())
        .await;
    files.push((BOB.into(), bob_file));
    let job = submit(&a, ALICE, frame_task(&input, "frame.png")).await;
    let done = wait_for(&a, ALICE, &job, &["completed"], 60).await;
    let dir = input.split('/').next().unwrap().to_string();
    files.push((ALICE.into(), format!("{dir}/frame.png")));
    let (status, made) = a
        .http()
        .post(a.url("/operator/accounts/bob/keys"))
        .bearer_auth(OPERATOR_TOKEN)
        .send()
        .await
        .map(|r| (r.status(), r))
        .unwrap();
    assert_eq!(status, 200);
    let made: Value = made.json().await.unwrap();
    let bob_key = made["key"].as_str().unwrap().to_string();

    // Busy: a job running and uploads arriving while the backup is taken.
    let running = submit(&a, ALICE, slow_task(&input, "slow.mp4", 3)).await;
    wait_for(&a, ALICE, &running, &["processing"], 30).await;
    let uploads = async {
        let mut made = Vec::new();
        for i in 0..5 {
            let name = format!("during-{i}.bin");
            made.push(
                a.upload(ALICE, Some(&dir), &name, vec![i as u8; 1000])
                    .await,
            );
        }
        made
    };
    let backup = async {
        a.http()
            .post(a.url("/operator/backup"))
            .bearer_auth(OPERATOR_TOKEN)
            .json(&json!({"name": "nightly"}))
            .send()
            .await
            .unwrap()
            .json::<Value>()
            .await
            .unwrap()
    };
    let (during, taken) = tokio::join!(uploads, backup);
    assert_eq!(taken["ok"], true, "{taken}");
    let path = std::path::PathBuf::from(taken["backup"]["path"].as_str().unwrap());
    assert_eq!(taken["backup"]["missing"], 0, "{taken}");
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(path.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["store"], "local");
    // A name is used once.
    let (status, again) = a
        .http()
        .post(a.url("/operator/backup"))
        .bearer_auth(OPERATOR_TOKEN)
        .json(&json!({"name": "nightly"}))
        .send()
        .await
        .map(|r| (r.status(), r))
        .unwrap();
    assert_eq!(status, 400, "{:?}", again.text().await);

    // A fresh data directory, restored with the command line, then served.
    let fresh = temp_dir("restored");
    let old = a.dir.display().to_string();
    let config = std::fs::read_to_string(a.dir.join("mediaforge.toml"))
        .unwrap()
        .replace(&old, &fresh.display().to_string());
    std::fs::write(fresh.join("mediaforge.toml"), config).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mediaforge"))
        .args(["restore", path.to_str().unwrap(), "--config"])
        .arg(fresh.join("mediaforge.toml"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // Restoring twice into the same place is refused: it is not fresh any more.
    let twice = std::process::Command::new(env!("CARGO_BIN_EXE_mediaforge"))
        .args(["restore", path.to_str().unwrap(), "--config"])
        .arg(fresh.join("mediaforge.toml"))
        .output()
        .unwrap();
    assert!(!twice.status.success());
    assert!(
        String::from_utf8_lossy(&twice.stderr).contains("fresh data directory"),
        "{}",
        String::from_utf8_lossy(&twice.stderr)
    );

    let b = Server::start_with(Options {
        disk_db: true,
        dir: Some(fresh),
        ..Default::default()
    })
    .await;
    for (key, file) in &files {
        assert_eq!(
            b.download(key, file).await,
            a.download(key, file).await,
            "{file}"
        );
    }
    // Uploads that finished before the export are there whole; one whose bytes had not come
    // by then is a record still waiting for them, as it was; none is there with other bytes.
    for file in &during {
        let (status, body) = b.get(&format!("/file/{file}"), ALICE).await;
        if status == 200 && body["file_info"]["file_size"] == 0 {
            let (status, waiting) = b.get(&format!("/file/download/{file}"), ALICE).await;
            assert_eq!(status, 404, "{file}: {waiting}");
        } else if status == 200 {
            assert_eq!(b.download(ALICE, file).await.len(), 1000, "{file}");
        } else {
            assert_eq!(status, 404, "{file}: {body}");
        }
    }
    let (status, listed) = b.get(&format!("/directory/{bob_dir}"), BOB).await;
    assert_eq!(status, 200, "{listed}");
    let view = wait_for(&b, ALICE, &job, &["completed"], 5).await;
    let names = |v: &Value| -> Vec<String> {
        v["result"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["file_name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&view), names(&done));
    assert_eq!(b.get("/directory", &bob_key).await.0, 200);
}
