//! Faults of the servers the service depends on, made for real: while one lasts, requests fail
//! promptly with the API's error shape and lose nothing; when it ends, the service recovers by
//! itself.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::jobs::{frame_task, slow_task, submit, wait_for};
use crate::servers::{SurrealServer, free_port};
use crate::support::*;

/// The SurrealDB server (scale-out mode) is stopped under load and started again with its
/// data: requests in the outage fail with 503 within `database.query_timeout_s`, the instance reconnects by itself,
/// the job that was running when the server went ends completed, charged once, and new work
/// runs.
#[tokio::test]
async fn the_database_server_restarted_under_load() {
    let port = free_port();
    let data = temp_dir("surreal-data").join("db");
    let db = SurrealServer::start_on_disk(port, &data);
    let s = Server::start_with(Options {
        env: db
            .env()
            .into_iter()
            .chain([
                ("MEDIAFORGE__JOBS__LEASE_S".into(), "4".into()),
                ("MEDIAFORGE__DATABASE__QUERY_TIMEOUT_S".into(), "3".into()),
            ])
            .collect(),
        ..Default::default()
    })
    .await;
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let job = submit(&s, ALICE, slow_task(&input, "through.mp4", 1)).await;
    wait_for(&s, ALICE, &job, &["processing"], 30).await;

    drop(db);
    // Requests during the outage: an error in the API's shape, not a hang or a dropped connection.
    for path in ["/directory", &format!("/job/{job}")] {
        let asked = Instant::now();
        let (status, body) = s.get(path, ALICE).await;
        assert_eq!(status, 503, "{path}: {body}");
        assert_eq!(
            body["error"],
            "The database is unavailable; nothing was changed, try again shortly"
        );
        assert!(
            asked.elapsed() < Duration::from_secs(30),
            "{path} answered in {:?}",
            asked.elapsed()
        );
    }
    tokio::time::sleep(Duration::from_secs(2)).await;

    let _db = SurrealServer::start_on_disk(port, &data);
    let back = Instant::now();
    loop {
        let (status, _) = s.get("/directory", ALICE).await;
        if status == 200 {
            break;
        }
        assert!(
            back.elapsed() < Duration::from_secs(60),
            "not reconnected: {}",
            s.log()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }

    let done = wait_for(&s, ALICE, &job, &["completed", "failed"], 120).await;
    assert_eq!(done["status"], "completed", "{done}\n{}", s.log());
    let out = s.fetch_outputs(&done).await;
    assert_eq!(out.len(), 1, "{done}");
    assert!((duration(&probe_bytes(&out[0].1, "mp4")) - 4.0).abs() < 0.5);

    let next = submit(&s, ALICE, frame_task(&input, "after.png")).await;
    let after = wait_for(&s, ALICE, &next, &["completed", "failed"], 60).await;
    assert_eq!(after["status"], "completed", "{after}");
    let (_, usage) = s.get("/usage", ALICE).await;
    let one = std::fs::metadata(media().short()).unwrap().len() as f64 / 1_073_741_824.0;
    let charged: Value = usage["usage"]["input_size_gb"].clone();
    assert!(
        (charged.as_f64().unwrap() - 2.0 * one).abs() < 1e-9,
        "each job charged once: {charged}"
    );
}
