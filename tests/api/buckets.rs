//! The tenant's own buckets (#30): a `credentials` resource whose secret is sealed and never
//! shown, `s3://<credential>/<key>` inputs read from the tenant's bucket, and a task's
//! `export` copying every output there. The service stores its files on one s3s-fs server; a
//! second one plays the tenant's bucket, and its objects are read straight from its folder.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::jobs::{submit, wait_delivered, wait_for};
use crate::scaleout::with;
use crate::servers::{Receiver, S3_KEY_ID, S3_SECRET, S3Server};
use crate::support::*;

/// 32 bytes of base64, as `openssl rand -base64 32` makes them.
const CREDENTIALS_KEY: &str = "q8Xr3m0mFq4s6xM0eR1k2p7T9vY5bW3nL8cJ2hD4fA0=";

fn credential(name: &str, tenant: &S3Server, secret: &str) -> Value {
    json!({"name": name, "endpoint": tenant.endpoint(), "bucket": tenant.bucket,
           "access_key_id": S3_KEY_ID, "secret_access_key": secret})
}

/// The tenant bucket's folder for `key` (s3s-fs keeps objects as files).
fn object_path(tenant: &S3Server, key: &str) -> PathBuf {
    tenant
        .server
        .dir
        .join("root")
        .join(&tenant.bucket)
        .join(key)
}

/// Every file under `dir` whose bytes hold `needle`.
fn files_holding(dir: &std::path::Path, needle: &[u8]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(bytes) = std::fs::read(&path) {
                if bytes.windows(needle.len()).any(|w| w == needle) {
                    found.push(path);
                }
            }
        }
    }
    found
}

/// The body of `job`'s webhook once delivered.
async fn delivered(s: &Server, hooks: &Receiver, job: &str) -> String {
    wait_delivered(s, ALICE, job).await;
    hooks
        .requests()
        .iter()
        .map(|r| String::from_utf8_lossy(&r.body).into_owned())
        .find(|b| b.contains(job))
        .expect("a webhook naming the job")
}

#[tokio::test]
async fn tenant_buckets_in_and_out() {
    let store = S3Server::start();
    let tenant = S3Server::start();
    // Receives the jobs' webhooks: they say where outputs landed, or which object failed.
    let hooks = Receiver::start(vec![200]).await;
    let ca = hooks.ca_file.to_str().unwrap().to_string();
    let opts = with(
        &[store.env()],
        &[
            ("MEDIAFORGE__STORAGE__CREDENTIALS_KEY", CREDENTIALS_KEY),
            ("MEDIAFORGE__NET__ALLOW_HTTP", "true"),
            ("MEDIAFORGE__NET__EXTRA_CA_FILE", ca.as_str()),
        ],
    );
    let s = Server::start_with(Options {
        disk_db: true,
        ..opts
    })
    .await;

    // The credential: answered and listed without its secret.
    let (status, made) = s
        .post(
            "/credentials",
            ALICE,
            credential("archive", &tenant, S3_SECRET),
        )
        .await;
    assert_eq!(status, 200, "{made}");
    assert_eq!(made["credential"]["name"], "archive");
    assert_eq!(made["credential"]["bucket"], tenant.bucket.as_str());
    let (_, listed) = s.get("/credentials", ALICE).await;
    assert_eq!(
        listed["credentials"].as_array().unwrap().len(),
        1,
        "{listed}"
    );
    let (status, again) = s
        .post(
            "/credentials",
            ALICE,
            credential("archive", &tenant, S3_SECRET),
        )
        .await;
    assert_eq!(status, 409, "{again}");
    let (status, odd) = s
        .post(
            "/credentials",
            ALICE,
            json!({"name": "x", "endpoint": tenant.endpoint(), "bucket": "Bad_Bucket",
                   "access_key_id": "a", "secret_access_key": "b"}),
        )
        .await;
    assert_eq!(status, 400, "{odd}");
    assert!(odd["error"].as_str().unwrap().contains("bucket"), "{odd}");

    // An input read from the tenant's bucket, every output exported back to it.
    let clip = std::fs::read(media().clip()).unwrap();
    let source = object_path(&tenant, "incoming/clip one.mp4");
    std::fs::create_dir_all(source.parent().unwrap()).unwrap();
    std::fs::write(&source, &clip).unwrap();
    let out_dir = s.mkdir(ALICE).await;
    let task = json!({
        "output_dir_id": out_dir,
        "inputs": [{"file_path": "s3://archive/incoming/clip one.mp4"}],
        "outputs": [
            {"file": "thumb.jpg", "options": ["-frames:v", "1"]},
            {"file": "small.mp4", "options": ["-t", "1", "-vf", "scale=160:-2", "-c:v", "libx264", "-preset", "ultrafast"]}
        ],
        "export": {"credential": "archive", "prefix": "renders/2026/"}
    });
    let (status, done) = s.process(ALICE, task.clone()).await;
    assert_eq!(status, 200, "{done}");
    let outputs = s.fetch_outputs(&done).await;
    assert_eq!(outputs.len(), 2);
    for ((name, bytes), link) in outputs.iter().zip(done["result"].as_array().unwrap()) {
        assert_eq!(
            link["exported_to"],
            format!("s3://archive/renders/2026/{name}"),
            "{link}"
        );
        let exported = std::fs::read(object_path(&tenant, &format!("renders/2026/{name}")))
            .unwrap_or_else(|e| panic!("{name} not in the tenant's bucket: {e}"));
        assert!(exported == *bytes, "{name}: exported bytes differ");
    }
    // The input was imported into the output directory under its key's last segment.
    assert!(
        s.file_names(ALICE, &out_dir)
            .await
            .contains(&"clip_one.mp4".to_string()),
        "{done}"
    );

    // The same through the queue: the job's result says where each output landed.
    let job = submit(
        &s,
        ALICE,
        json!({"task": {
            "inputs": [{"file_path": "s3://archive/incoming/clip one.mp4"}],
            "outputs": [{"file": "poster.png", "options": ["-frames:v", "1"]}],
            "export": {"credential": "archive", "prefix": "jobs/"}},
            "webhook_url": hooks.url("/done")}),
    )
    .await;
    let view = wait_for(&s, ALICE, &job, &["completed", "failed"], 60).await;
    assert_eq!(view["status"], "completed", "{view}");
    assert_eq!(
        view["result"][0]["exported_to"], "s3://archive/jobs/poster.png",
        "{view}"
    );
    assert!(object_path(&tenant, "jobs/poster.png").exists());
    // The callback names the job's outputs; where each was exported is in the job's view (the
    // 0.2.0 formatter world's event file has no field for it).
    let hook = delivered(&s, &hooks, &job).await;
    assert!(hook.contains("poster.png"), "{hook}");

    // A recipe reads and exports the same way: every file it wrote lands in the bucket.
    let (status, drawn) = s
        .post(
            "/recipes/waveform",
            ALICE,
            json!({"inputs": ["s3://archive/incoming/clip one.mp4"],
                   "export": {"credential": "archive", "prefix": "recipes/"}}),
        )
        .await;
    assert_eq!(status, 200, "{drawn}");
    let drawn_outputs = s.fetch_outputs(&drawn).await;
    assert!(!drawn_outputs.is_empty());
    for (name, bytes) in &drawn_outputs {
        let exported = std::fs::read(object_path(&tenant, &format!("recipes/{name}")))
            .unwrap_or_else(|e| panic!("{name} not in the tenant's bucket: {e}"));
        assert!(exported == *bytes, "{name}: exported bytes differ");
    }

    // Wrong keys: the read fails naming the object and what the bucket said.
    let (status, _) = s
        .post(
            "/credentials",
            ALICE,
            credential("wrongkey", &tenant, "not-the-secret"),
        )
        .await;
    assert_eq!(status, 200);
    let mut bad_in = task.clone();
    bad_in["inputs"][0]["file_path"] = json!("s3://wrongkey/incoming/clip one.mp4");
    bad_in["export"] = Value::Null;
    let (status, refused) = s.process(ALICE, bad_in).await;
    assert_eq!(status, 502, "{refused}");
    let message = refused["error"].as_str().unwrap();
    assert!(
        message.contains("s3://wrongkey/incoming/clip one.mp4") && message.contains("403"),
        "{refused}"
    );
    // A missing object is named too.
    let mut missing = task.clone();
    missing["inputs"][0]["file_path"] = json!("s3://archive/incoming/nope.mp4");
    let (status, refused) = s.process(ALICE, missing).await;
    assert_eq!(status, 502, "{refused}");
    assert!(
        refused["error"].as_str().unwrap().contains("404"),
        "{refused}"
    );

    // An export that cannot be written fails the task naming the object, and delivers nothing.
    let dir = s.mkdir(ALICE).await;
    let input = s.upload_file(ALICE, Some(&dir), &media().short()).await;
    let (status, failed) = s
        .process(
            ALICE,
            json!({"inputs": [{"file_path": input}],
                   "outputs": [{"file": "frame.png", "options": ["-frames:v", "1"]}],
                   "export": {"credential": "wrongkey", "prefix": "x/"}}),
        )
        .await;
    assert_eq!(status, 502, "{failed}");
    assert!(
        failed["error"]
            .as_str()
            .unwrap()
            .contains("s3://wrongkey/x/frame.png"),
        "{failed}"
    );
    assert!(
        !s.file_names(ALICE, &dir)
            .await
            .contains(&"frame.png".to_string())
    );
    // A job whose export fails ends failed with the same message (its webhook carries it).
    let job = submit(
        &s,
        ALICE,
        json!({"task": {"inputs": [{"file_path": input}],
                        "outputs": [{"file": "late.png", "options": ["-frames:v", "1"]}],
                        "export": {"credential": "wrongkey", "prefix": "x/"}},
               "webhook_url": hooks.url("/failed")}),
    )
    .await;
    let failed_job = wait_for(&s, ALICE, &job, &["completed", "failed"], 60).await;
    assert_eq!(failed_job["status"], "failed", "{failed_job}");
    assert!(
        failed_job.to_string().contains("s3://wrongkey/x/late.png"),
        "{failed_job}"
    );
    let hook = delivered(&s, &hooks, &job).await;
    assert!(
        hook.contains("failed") && hook.contains("s3://wrongkey/x/late.png"),
        "{hook}"
    );

    // Another account's credential is not usable, nor visible.
    let (status, other) = s
        .process(
            BOB,
            json!({"inputs": [{"file_path": "s3://archive/incoming/clip one.mp4"}],
                   "outputs": [{"file": "t.jpg", "options": ["-frames:v", "1"]}]}),
        )
        .await;
    assert_eq!(status, 404, "{other}");
    assert!(
        other["error"].as_str().unwrap().contains("archive"),
        "{other}"
    );
    let (_, bobs) = s.get("/credentials", BOB).await;
    assert_eq!(bobs["credentials"], json!([]), "{bobs}");
    let (status, _) = s.delete("/credentials/archive", BOB).await;
    assert_eq!(status, 404);

    // Keys that do not parse as an object's are refused before anything runs.
    let (status, odd) = s
        .process(
            ALICE,
            json!({"inputs": [{"file_path": "s3://archive/../etc/passwd"}],
                   "outputs": [{"file": "t.jpg"}]}),
        )
        .await;
    assert_eq!(status, 400, "{odd}");

    // The secret is in no response, log line, database file or backup.
    let (status, backup) = s
        .http()
        .post(s.url("/operator/backup"))
        .bearer_auth(OPERATOR_TOKEN)
        .json(&json!({"name": "with-credentials"}))
        .send()
        .await
        .map(|r| (r.status(), r))
        .unwrap();
    assert_eq!(status, 200);
    let backup: Value = backup.json().await.unwrap();
    let backup_dir = PathBuf::from(backup["backup"]["path"].as_str().unwrap());
    for needle in [S3_SECRET, "not-the-secret"] {
        for text in [&made, &listed, &done, &view, &refused, &failed] {
            assert!(!text.to_string().contains(needle), "{needle} in {text}");
        }
        assert_eq!(
            files_holding(&s.dir, needle.as_bytes()),
            Vec::<PathBuf>::new()
        );
        assert_eq!(
            files_holding(&backup_dir, needle.as_bytes()),
            Vec::<PathBuf>::new()
        );
    }

    // Deleted, it reads no more.
    let (status, _) = s.delete("/credentials/archive", ALICE).await;
    assert_eq!(status, 200);
    let (status, gone) = s.process(ALICE, task).await;
    assert_eq!(status, 404, "{gone}");
}

#[tokio::test]
async fn bucket_endpoints_obey_the_outbound_rules() {
    let tenant = S3Server::start();
    // A strict instance: no private or loopback addresses, https only.
    let s = Server::start_with(Options::env(&[
        ("MEDIAFORGE__STORAGE__CREDENTIALS_KEY", CREDENTIALS_KEY),
        ("MEDIAFORGE__NET__ALLOW_PRIVATE_ADDRESSES", "false"),
    ]))
    .await;
    let (status, refused) = s
        .post(
            "/credentials",
            ALICE,
            credential("local", &tenant, S3_SECRET),
        )
        .await;
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused["error"].as_str().unwrap().contains("endpoint"),
        "{refused}"
    );
    let mut loopback = credential("local", &tenant, S3_SECRET);
    loopback["endpoint"] = json!("https://127.0.0.1:9000");
    let (status, refused) = s.post("/credentials", ALICE, loopback).await;
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused["error"].as_str().unwrap().contains("private"),
        "{refused}"
    );
    // An instance without a credentials key takes no credentials.
    let plain = Server::start().await;
    let (status, off) = plain
        .post("/credentials", ALICE, credential("c", &tenant, S3_SECRET))
        .await;
    assert_eq!(status, 503, "{off}");
    assert!(
        off["error"].as_str().unwrap().contains("credentials_key"),
        "{off}"
    );
    let (status, listed) = plain.get("/credentials", ALICE).await;
    assert_eq!(status, 200, "{listed}");
}

/// A TCP relay to `upstream` that cuts the first connection to carry more than `budget` bytes
/// towards it (then relays everything): a bucket that breaks off in the middle of one request.
async fn cutting_relay(upstream: u16, budget: usize) -> u16 {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let cut = Arc::new(AtomicBool::new(false));
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let cut = cut.clone();
            tokio::spawn(async move {
                let Ok(server) = tokio::net::TcpStream::connect(("127.0.0.1", upstream)).await
                else {
                    return;
                };
                let (mut client_in, mut client_out) = client.into_split();
                let (mut server_in, mut server_out) = server.into_split();
                let back = tokio::spawn(async move {
                    let _ = tokio::io::copy(&mut server_in, &mut client_out).await;
                });
                let mut sent = 0;
                let mut buf = vec![0; 64 * 1024];
                loop {
                    let Ok(n) = client_in.read(&mut buf).await else {
                        break;
                    };
                    if n == 0 {
                        break;
                    }
                    sent += n;
                    if sent > budget && !cut.swap(true, Ordering::SeqCst) {
                        break;
                    }
                    if server_out.write_all(&buf[..n]).await.is_err() {
                        break;
                    }
                }
                // Dropping both halves resets the connection mid-request.
                back.abort();
            });
        }
    });
    port
}

#[tokio::test]
async fn large_exports_go_as_multipart_uploads() {
    let tenant = S3Server::start();
    const PART: usize = 5 * 1024 * 1024;
    let part = PART.to_string();
    let s = Server::start_with(Options::env(&[
        ("MEDIAFORGE__STORAGE__CREDENTIALS_KEY", CREDENTIALS_KEY),
        ("MEDIAFORGE__NET__ALLOW_HTTP", "true"),
        // Multipart above 5 MiB in 5 MiB parts (S3's least), instead of 1 GiB in 64 MiB.
        ("MEDIAFORGE_TEST_EXPORT_PART_BYTES", part.as_str()),
    ]))
    .await;
    let relay = cutting_relay(tenant.server.port, PART + PART / 2).await;
    for (name, endpoint, secret) in [
        ("archive", tenant.endpoint(), S3_SECRET),
        ("wrongkey", tenant.endpoint(), "not-the-secret"),
        ("flaky", format!("http://127.0.0.1:{relay}"), S3_SECRET),
    ] {
        let mut made = credential(name, &tenant, secret);
        made["endpoint"] = json!(endpoint);
        let (status, body) = s.post("/credentials", ALICE, made).await;
        assert_eq!(status, 200, "{body}");
    }
    let dir = s.mkdir(ALICE).await;
    let input = s.upload_file(ALICE, Some(&dir), &media().clip()).await;
    // Twelve raw 720p frames: about 16 MiB, so four parts.
    let task = |credential: &str, file: &str| {
        json!({"inputs": [{"file_path": input}],
               "outputs": [{"file": file, "options": ["-frames:v", "12", "-c:v", "rawvideo", "-an"]}],
               "export": {"credential": credential, "prefix": "big/"}})
    };

    let (status, done) = s.process(ALICE, task("archive", "frames.nut")).await;
    assert_eq!(status, 200, "{done}");
    let outputs = s.fetch_outputs(&done).await;
    let (_, bytes) = &outputs[0];
    assert!(bytes.len() > 3 * PART, "{} bytes", bytes.len());
    assert_eq!(
        done["result"][0]["exported_to"],
        "s3://archive/big/frames.nut"
    );
    let exported = std::fs::read(object_path(&tenant, "big/frames.nut")).unwrap();
    assert!(exported == *bytes, "exported bytes differ");
    // It went as parts: s3s-fs gives a multipart object the ETag `<md5 of md5s>-<parts>`.
    let parts = format!("-{}", bytes.len().div_ceil(PART));
    let etags: Vec<String> = std::fs::read_dir(tenant.server.dir.join("root"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".internal.json"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert!(
        etags.iter().any(|e| e.contains(&parts)),
        "no ETag of {parts} parts: {etags:?}"
    );

    // The connection breaks off in the second part: the task fails naming the object, and the
    // upload is aborted, so neither the object nor any part is left in the bucket.
    let (status, failed) = s.process(ALICE, task("flaky", "cut.nut")).await;
    assert_eq!(status, 502, "{failed}");
    assert!(
        failed["error"]
            .as_str()
            .unwrap()
            .contains("s3://flaky/big/cut.nut"),
        "{failed}"
    );
    // Wrong keys: refused at the upload's start, named the same way.
    let (status, refused) = s.process(ALICE, task("wrongkey", "denied.nut")).await;
    assert_eq!(status, 502, "{refused}");
    let message = refused["error"].as_str().unwrap();
    assert!(
        message.contains("s3://wrongkey/big/denied.nut") && message.contains("403"),
        "{refused}"
    );
    for key in ["big/cut.nut", "big/denied.nut"] {
        assert!(!object_path(&tenant, key).exists(), "{key} was written");
    }
    let pending: Vec<String> = std::fs::read_dir(tenant.server.dir.join("root"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".upload_id-"))
        .collect();
    assert_eq!(pending, Vec::<String>::new(), "parts left in the bucket");
    // A failed task delivers nothing.
    let names = s.file_names(ALICE, &dir).await;
    assert!(
        !names.iter().any(|n| n == "cut.nut" || n == "denied.nut"),
        "{names:?}"
    );
}
