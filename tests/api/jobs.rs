//! Async jobs and webhooks through the real binary: lifecycle, listing, cancel, progress,
//! signed and retried callbacks, idempotency, and kill -9 in the middle of a job.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::servers::Receiver;
use crate::support::*;

pub(crate) async fn wait_for(s: &Server, key: &str, job: &str, want: &[&str], secs: u64) -> Value {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let (status, body) = s.get(&format!("/job/{job}"), key).await;
        assert_eq!(status, 200, "{body}");
        if want.contains(&body["status"].as_str().unwrap()) {
            return body;
        }
        assert!(
            Instant::now() < deadline,
            "job {job} still {} after {secs} s: {body}",
            body["status"]
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The job's view once its webhook is delivered (30 s at most).
pub(crate) async fn wait_delivered(s: &Server, key: &str, job: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (_, view) = s.get(&format!("/job/{job}"), key).await;
        if view["webhook"]["state"] == "delivered" {
            return view;
        }
        assert!(Instant::now() < deadline, "not delivered: {view}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

pub(crate) async fn submit(s: &Server, key: &str, body: Value) -> String {
    let (status, res) = s.post("/ffmpeg/process/async", key, body).await;
    assert_eq!(status, 202, "{res}");
    assert_eq!(res["ok"], true);
    assert_eq!(res["status"], "pending");
    res["job_id"].as_str().unwrap().to_string()
}

pub(crate) fn frame_task(input: &str, out: &str) -> Value {
    json!({"task": {"inputs": [{"file_path": input}], "outputs": [{"file": out, "options": ["-frames:v", "1"]}]}})
}

/// Runs about `secs` seconds of real-time reading: long enough to watch and cancel.
pub(crate) fn slow_task(input: &str, out: &str, loops: u32) -> Value {
    json!({"task": {"inputs": [{"file_path": input, "options": ["-re", "-stream_loop", loops.to_string()]}],
                    "outputs": [{"file": out, "options": ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"]}]}})
}

#[tokio::test]
async fn lifecycle_completed_and_failed() {
    let s = Server::start().await;
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let job = submit(&s, ALICE, frame_task(&input, "f.png")).await;
    let done = wait_for(&s, ALICE, &job, &["completed", "failed"], 30).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["ok"], true);
    assert_eq!(done["job_id"], job);
    assert_eq!(done["task"]["outputs"][0]["file"], "f.png");
    assert!(done["usage"]["time_sec"].as_f64().unwrap() > 0.0);
    let out = s.fetch_outputs(&done).await;
    assert_eq!(probe_bytes(&out[0].1, "png")["streams"][0]["width"], 320);

    let failing = json!({"task": {"inputs": [{"file_path": input}], "outputs": [{"file": "x.mp4", "maps": ["0:s"]}]}});
    let job2 = submit(&s, ALICE, failing).await;
    let failed = wait_for(&s, ALICE, &job2, &["completed", "failed"], 30).await;
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["ok"], false);
    assert_eq!(failed["error"], "FFmpeg command failed with exit code 1");

    let (_, list) = s.get("/jobs", ALICE).await;
    let entries = list["jobs"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    let e = entries.iter().find(|e| e["id"] == job).unwrap();
    assert_eq!(e["status"], "completed");
    assert_eq!(
        (
            e["input_count"].as_u64(),
            e["output_count"].as_u64(),
            e["has_error"].as_bool()
        ),
        (Some(1), Some(1), Some(false))
    );
    assert!(
        e["created_at"].is_string() && e["updated_at"].is_string() && e["completed_at"].is_string()
    );
    assert_eq!(e["webhook_url"], Value::Null);
    let e2 = entries.iter().find(|e| e["id"] == job2).unwrap();
    assert_eq!(e2["has_error"], true);

    // Submission errors come before the 202.
    let (status, body) = s
        .post(
            "/ffmpeg/process/async",
            ALICE,
            json!({"task": {"inputs": [{"file_path": "bad"}], "outputs": [{"file": "a.mp4"}]}}),
        )
        .await;
    assert_eq!(
        (status.as_u16(), body["error"].as_str().unwrap()),
        (
            400,
            "Invalid file_path format. Expected <dir_id>/<file_name>"
        )
    );
    let (status, _) = s.post("/ffmpeg/process/async", ALICE, json!({"task": {"inputs": [{"file_path": input}], "outputs": [{"file": "a.mp4", "options": ["-vf", "movie=/etc/passwd"]}]}})).await;
    assert_eq!(
        status, 202,
        "policy is applied when the job runs, by the same builder"
    );
    for hook in [
        "http://example.com/hook",
        "not a url",
        "ftp://example.com/x",
    ] {
        let mut body = frame_task(&input, "w.png");
        body["webhook_url"] = json!(hook);
        let (status, res) = s.post("/ffmpeg/process/async", ALICE, body).await;
        assert_eq!(status, 400, "{hook}: {res}");
    }
}

#[tokio::test]
async fn listing_pagination_sort_filters_and_access() {
    let s = Server::start().await;
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let mut ids = Vec::new();
    for i in 0..5 {
        ids.push(submit(&s, ALICE, frame_task(&input, &format!("f{i}.png"))).await);
    }
    for id in &ids {
        wait_for(&s, ALICE, id, &["completed"], 60).await;
    }
    let (_, page) = s.get("/jobs?limit=2&offset=1", ALICE).await;
    assert_eq!(
        page["pagination"],
        json!({"total": 5, "limit": 2, "offset": 1, "has_more": true})
    );
    let got: Vec<&str> = page["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        got,
        vec![ids[3].as_str(), ids[2].as_str()],
        "newest first by default"
    );
    let (_, page) = s
        .get("/jobs?limit=2&offset=4&sort=created_at_asc", ALICE)
        .await;
    assert_eq!(page["pagination"]["has_more"], false);
    assert_eq!(page["jobs"][0]["id"], ids[4]);
    let (_, page) = s.get("/jobs?sort=created_at_asc", ALICE).await;
    assert_eq!(page["jobs"][0]["id"], ids[0]);
    assert_eq!(page["pagination"]["limit"], 20);
    let (_, page) = s.get("/jobs?status=failed,pending", ALICE).await;
    assert_eq!(page["pagination"]["total"], 0);
    let (_, page) = s.get("/jobs?status=completed", ALICE).await;
    assert_eq!(page["pagination"]["total"], 5);
    for (query, param) in [
        ("status=done", "status"),
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("limit=x", "limit"),
        ("offset=-1", "offset"),
        ("sort=name", "sort"),
    ] {
        let (status, body) = s.get(&format!("/jobs?{query}"), ALICE).await;
        assert_eq!(status, 400, "{query}");
        assert!(
            body["error"].as_str().unwrap().contains(param),
            "{query}: {body}"
        );
    }
    // Bob sees none of them and may not read or cancel them.
    let (_, page) = s.get("/jobs", BOB).await;
    assert_eq!(page["pagination"]["total"], 0);
    let (status, _) = s.get(&format!("/job/{}", ids[0]), BOB).await;
    assert_eq!(status, 403);
    let (status, _) = s.delete(&format!("/job/{}", ids[0]), BOB).await;
    assert_eq!(status, 404);
    let (status, body) = s.get("/job/job_doesnotexist", ALICE).await;
    assert_eq!((status.as_u16(), body["ok"].clone()), (404, json!(false)));
}

#[tokio::test]
async fn cancel_only_pending_and_watch_progress() {
    let s = Server::start_with(Options::env(&[("MEDIAFORGE__JOBS__WORKERS", "1")])).await;
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let running = submit(&s, ALICE, slow_task(&input, "slow.mp4", 2)).await;
    let queued = submit(&s, ALICE, frame_task(&input, "q.png")).await;
    let seen = wait_for(&s, ALICE, &running, &["processing"], 20).await;
    assert_eq!(seen["ok"], true);

    let (status, body) = s.delete(&format!("/job/{queued}"), ALICE).await;
    assert_eq!(
        (status.as_u16(), body.clone()),
        (
            200,
            json!({"ok": true, "message": "Job cancelled successfully"})
        )
    );
    let (_, view) = s.get(&format!("/job/{queued}"), ALICE).await;
    assert_eq!(
        (view["status"].as_str(), view["ok"].as_bool()),
        (Some("cancelled"), Some(false))
    );
    let (status, body) = s.delete(&format!("/job/{running}"), ALICE).await;
    assert_eq!(status, 409);
    assert_eq!(
        body["error"],
        "Cannot cancel job in 'processing' status. Only pending jobs can be cancelled."
    );

    // Progress while processing: processed media time grows.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (_, view) = s.get(&format!("/job/{running}"), ALICE).await;
        let processed = view["progress"]["processed_sec"].as_f64().unwrap_or(0.0);
        let percent = view["progress"]["percent"].as_f64().unwrap_or(0.0);
        if view["status"] == "processing" && processed > 0.5 && percent > 0.0 {
            break;
        }
        assert!(Instant::now() < deadline, "no progress reported: {view}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // The event stream reports until the job ends.
    let res = s
        .http()
        .get(s.url(&format!("/job/{running}/events")))
        .header("Authorization", format!("Basic {ALICE}"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.headers()["content-type"], "text/event-stream");
    let text = tokio::time::timeout(Duration::from_secs(30), res.text())
        .await
        .expect("stream ends with the job")
        .unwrap();
    assert!(
        text.contains("event: status")
            && text.contains("event: end")
            && text.contains("\"completed\""),
        "{text}"
    );

    let (status, body) = s.delete(&format!("/job/{running}"), ALICE).await;
    assert_eq!(
        (status.as_u16(), body["error"].as_str().unwrap()),
        (
            409,
            "Cannot cancel job in 'completed' status. Only pending jobs can be cancelled."
        )
    );
    let (_, page) = s.get("/jobs?status=cancelled", ALICE).await;
    assert_eq!(page["jobs"][0]["id"], queued.as_str());
}

#[tokio::test]
async fn webhooks_are_signed_retried_and_recorded() {
    let receiver = Receiver::start(vec![500, 503, 200]).await;
    let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    let s = Server::start_with(Options::env(&[
        (
            "MEDIAFORGE__NET__EXTRA_CA_FILE",
            receiver.ca_file.to_str().unwrap(),
        ),
        ("MEDIAFORGE__WEBHOOKS__SIGNING_SECRET", secret),
        ("MEDIAFORGE__WEBHOOKS__INITIAL_BACKOFF_S", "1"),
    ]))
    .await;
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let mut body = frame_task(&input, "hook.png");
    body["webhook_url"] = json!(receiver.url("/hooks/media"));
    let job = submit(&s, ALICE, body).await;
    wait_for(&s, ALICE, &job, &["completed"], 30).await;
    let view = wait_delivered(&s, ALICE, &job).await;
    assert_eq!(view["webhook"]["attempts"], 3);
    assert_eq!(view["webhook"]["last_status"], 200);
    assert!(view["webhook"]["delivered_at"].is_string());
    let got = receiver.requests();
    assert_eq!(got.len(), 3);
    // Operators see the attempts: two retried, one delivered.
    let metrics = s.metrics().await;
    for line in [
        "mediaforge_webhook_attempts_total{outcome=\"retry\"} 2",
        "mediaforge_webhook_attempts_total{outcome=\"delivered\"} 1",
    ] {
        assert!(metrics.contains(line), "{line} in:\n{metrics}");
    }
    let id = got[0].header("webhook-id").unwrap().to_string();
    assert!(
        got.iter()
            .all(|r| r.header("webhook-id") == Some(id.as_str()) && r.path == "/hooks/media"),
        "same id on every retry"
    );
    for r in &got {
        let ts = r.header("webhook-timestamp").unwrap();
        let body = String::from_utf8(r.body.clone()).unwrap();
        let expected = webhook_signature(secret, &id, ts, &body);
        assert_eq!(r.header("webhook-signature"), Some(expected.as_str()));
        assert_eq!(r.header("content-type"), Some("application/json"));
    }
    let payload = got[2].json();
    assert_eq!(payload["job_id"], job);
    assert_eq!(payload["status"], "completed");
    assert_eq!(payload["result"][0]["file_name"], "hook.png");
    assert!(
        payload["result"][0]["download_url"]
            .as_str()
            .unwrap()
            .starts_with("http")
    );
    for k in ["time_sec", "input_size_gb", "output_size_gb", "gb_sec"] {
        assert!(payload["usage"][k].is_number(), "{k}");
    }
    // The URL in the callback downloads the output.
    let bytes = s
        .http()
        .get(payload["result"][0]["download_url"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(&bytes[1..4], b"PNG");

    // A failed job reports {job_id, status:"failed", error}.
    let mut body = json!({"task": {"inputs": [{"file_path": input}], "outputs": [{"file": "x.mp4", "maps": ["0:s"]}]}});
    body["webhook_url"] = json!(receiver.url("/hooks/media"));
    let job = submit(&s, ALICE, body).await;
    wait_for(&s, ALICE, &job, &["failed"], 30).await;
    let deadline = Instant::now() + Duration::from_secs(20);
    while receiver.requests().len() < 4 {
        assert!(Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let payload = receiver.requests()[3].json();
    assert_eq!(
        payload,
        json!({"job_id": job, "status": "failed", "error": "FFmpeg command failed with exit code 1"})
    );
}

/// Standard Webhooks, computed independently of the server's code.
fn webhook_signature(secret: &str, id: &str, ts: &str, body: &str) -> String {
    use base64::Engine;
    use hmac::Mac;
    let key = base64::engine::general_purpose::STANDARD
        .decode(secret.trim_start_matches("whsec_"))
        .unwrap();
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(&key).unwrap();
    mac.update(format!("{id}.{ts}.{body}").as_bytes());
    format!(
        "v1,{}",
        base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
    )
}

#[tokio::test]
async fn idempotency_key_returns_the_same_job() {
    let s = Server::start().await;
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let task = frame_task(&input, "i.png");
    let (_, a) = s.submit_idempotent(ALICE, "order-42", &task).await;
    let (_, b) = s.submit_idempotent(ALICE, "order-42", &task).await;
    let (_, c) = s.submit_idempotent(ALICE, "order-43", &task).await;
    assert_eq!(a["job_id"], b["job_id"]);
    assert_ne!(a["job_id"], c["job_id"]);
    let (_, page) = s.get("/jobs", ALICE).await;
    assert_eq!(page["pagination"]["total"], 2);
}

#[tokio::test]
async fn kill_9_mid_job_then_restart_completes_once() {
    let receiver = Receiver::start(vec![200]).await;
    let env = vec![
        (
            "MEDIAFORGE__NET__EXTRA_CA_FILE".to_string(),
            receiver.ca_file.to_str().unwrap().to_string(),
        ),
        ("MEDIAFORGE__JOBS__LEASE_S".to_string(), "2".to_string()),
    ];
    let mut s = Server::start_with(Options {
        disk_db: true,
        env: env.clone(),
        ..Default::default()
    })
    .await;
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let mut body = slow_task(&input, "survivor.mp4", 1);
    body["webhook_url"] = json!(receiver.url("/done"));
    let job = submit(&s, ALICE, body).await;
    wait_for(&s, ALICE, &job, &["processing"], 20).await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    let dir = s.kill();

    let s = Server::start_with(Options {
        disk_db: true,
        dir: Some(dir),
        env,
        ..Default::default()
    })
    .await;
    let done = wait_for(&s, ALICE, &job, &["completed", "failed"], 60).await;
    assert_eq!(done["status"], "completed", "{done}");
    let out = s.fetch_outputs(&done).await;
    assert_eq!(out.len(), 1);
    let p = probe_bytes(&out[0].1, "mp4");
    assert!(
        (duration(&p) - 4.0).abs() < 0.5,
        "the output is whole: {}",
        duration(&p)
    );
    // Charged once: the usage of exactly one run (input counted once).
    let (_, usage) = s.get("/usage", ALICE).await;
    let input_gb = usage["usage"]["input_size_gb"].as_f64().unwrap();
    let one_run = std::fs::metadata(media().short()).unwrap().len() as f64 / 1_073_741_824.0;
    assert!((input_gb - one_run).abs() < 1e-9, "{input_gb} vs {one_run}");
    let deadline = Instant::now() + Duration::from_secs(20);
    while receiver.requests().is_empty() {
        assert!(Instant::now() < deadline, "webhook not delivered");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        receiver.requests().len(),
        1,
        "one delivery per terminal state"
    );
    let _ = std::fs::remove_dir_all(&s.dir);
}

/// The CloudEvents example (WIT 0.2.0) reads the event's named fields: the account and the
/// attempt, which counts the retry after a refused delivery.
#[tokio::test]
async fn a_third_party_formatter_is_swapped_in_by_config() {
    let receiver = Receiver::start(vec![503, 200]).await;
    let extra = format!(
        "[plugins.webhook_formatter]\npath = \"{}\"\nconfig = {{ source = \"https://media.example.com\" }}\n",
        wasm("cloudevents_formatter").display()
    );
    let s = Server::start_with(Options {
        extra,
        env: vec![
            (
                "MEDIAFORGE__NET__EXTRA_CA_FILE".into(),
                receiver.ca_file.to_str().unwrap().into(),
            ),
            ("MEDIAFORGE__WEBHOOKS__INITIAL_BACKOFF_S".into(), "1".into()),
        ],
        ..Default::default()
    })
    .await;
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let mut body = frame_task(&input, "ce.png");
    body["webhook_url"] = json!(receiver.url("/ce"));
    let job = submit(&s, ALICE, body).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while receiver.requests().len() < 2 {
        assert!(Instant::now() < deadline, "no retried callback");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (first, r) = (&receiver.requests()[0].json(), &receiver.requests()[1]);
    assert_eq!(first["mediaforgeattempt"], 1, "{first}");
    assert_eq!(r.json()["mediaforgeattempt"], 2);
    assert_eq!(first["mediaforgeaccount"], "alice");
    assert_eq!(first["id"], r.json()["id"]);
    assert_eq!(
        r.header("content-type"),
        Some("application/cloudevents+json; charset=utf-8")
    );
    let ce = r.json();
    assert_eq!(ce["specversion"], "1.0");
    assert_eq!(ce["type"], "com.mediaforge.job.completed");
    assert_eq!(ce["source"], "https://media.example.com");
    assert_eq!(ce["subject"], job);
    assert_eq!(ce["id"], r.header("webhook-id").unwrap());
    assert_eq!(ce["data"]["status"], "completed");
    assert_eq!(ce["data"]["result"][0]["file_name"], "ce.png");
}
