//! An idle instance stays idle (issue #34): after a history of what clients do — jobs polled
//! every 50 ms, event streams and requests abandoned mid-way, identical tasks at once,
//! idempotent retries — every background task that history started has ended (`/metrics`
//! counts them by kind), the process's CPU over an idle interval is under 1% of a core, and its
//! queries to the database are those of its timed loops (`mediaforge_db_queries_total`).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::json;

use crate::jobs::{frame_task, slow_task, submit, wait_for};
use crate::support::*;

/// `mediaforge_background_tasks{kind="…"} n`, by kind.
fn background(metrics: &str) -> BTreeMap<String, i64> {
    metrics
        .lines()
        .filter_map(|l| l.strip_prefix("mediaforge_background_tasks{kind=\""))
        .filter_map(|l| {
            let (kind, n) = l.split_once("\"} ")?;
            Some((kind.to_string(), n.trim().parse().ok()?))
        })
        .collect()
}

/// A plain counter's value in `/metrics`.
fn counter(metrics: &str, name: &str) -> i64 {
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
        .unwrap_or(0)
}

#[tokio::test]
async fn after_a_busy_history_an_idle_instance_runs_only_its_fixed_loops() {
    // On disk, as an operator runs it, with the sweeper at its default pace (the tests' base
    // configuration sweeps every second to see expiry at once).
    let s = Server::start_with(Options {
        disk_db: true,
        env: vec![("MEDIAFORGE__STORAGE__SWEEP_INTERVAL_S".into(), "60".into())],
        ..Default::default()
    })
    .await;
    let at_start = background(&s.metrics().await);
    let input = s.upload_file(ALICE, None, &media().short()).await;

    // Distinct jobs, each polled every 50 ms by a client of its own.
    let mut jobs = Vec::new();
    for i in 0..24 {
        let mut task = frame_task(&input, &format!("t{i}.png"));
        task["task"]["outputs"][0]["options"] =
            json!(["-ss", format!("0.{i:02}"), "-frames:v", "1"]);
        jobs.push(submit(&s, ALICE, task).await);
    }
    // Event streams opened and abandoned after their first event.
    for job in &jobs[..6] {
        let res = s
            .http()
            .get(s.url(&format!("/job/{job}/events")))
            .header("Authorization", format!("Basic {ALICE}"))
            .send()
            .await
            .unwrap();
        let mut body = res.bytes_stream();
        let _ = body.next().await;
    }
    let s = &s;
    let pollers = jobs.iter().map(|job| async move {
        loop {
            let (_, view) = s.get(&format!("/job/{job}"), ALICE).await;
            if view["status"] == "completed" || view["status"] == "failed" {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    futures_util::future::join_all(pollers).await;

    // Identical tasks at once, sync and async (one ffmpeg, the others wait on it), and sync
    // requests whose clients hang up while ffmpeg runs.
    let slow = slow_task(&input, "same.mp4", 0)["task"].clone();
    let identical = (0..4).map(|_| s.process(ALICE, slow.clone()));
    let queued: Vec<String> = {
        let mut ids = Vec::new();
        for _ in 0..3 {
            ids.push(submit(&s, ALICE, json!({ "task": slow.clone() })).await);
        }
        ids
    };
    let abandoned = (0..3).map(|i| {
        let task = slow_task(&input, &format!("gone{i}.mp4"), 0)["task"].clone();
        async {
            let _ = tokio::time::timeout(Duration::from_millis(700), s.process(ALICE, task)).await;
        }
    });
    let (answers, _) = tokio::join!(
        futures_util::future::join_all(identical),
        futures_util::future::join_all(abandoned)
    );
    assert!(
        answers.iter().all(|(status, _)| *status == 200),
        "{answers:?}"
    );
    // Idempotent retries.
    for _ in 0..3 {
        let (status, body) = s
            .submit_idempotent(ALICE, "retry-1", &frame_task(&input, "again.png"))
            .await;
        assert_eq!(status, 202, "{body}");
    }
    for job in &queued {
        wait_for(&s, ALICE, job, &["completed"], 120).await;
    }
    let (_, list) = s.get("/jobs?limit=100", ALICE).await;
    for job in list["jobs"].as_array().unwrap() {
        wait_for(&s, ALICE, job["id"].as_str().unwrap(), &["completed"], 120).await;
    }

    // Every task the history started ends with its reason: what is left are the loops the
    // instance started with (an abandoned stream is found at its next keep-alive, ≤ 10 s).
    let deadline = Instant::now() + Duration::from_secs(30);
    let settled = loop {
        let now = background(&s.metrics().await);
        let extra: Vec<(&String, &i64)> = now
            .iter()
            .filter(|(kind, n)| **n > at_start.get(*kind).copied().unwrap_or(0))
            .collect();
        if extra.is_empty() {
            break now;
        }
        assert!(
            Instant::now() < deadline,
            "background tasks left after the history: {extra:?} (at start: {at_start:?})"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    for kind in ["job_worker", "job_poll", "webhook_loop", "sweeper"] {
        assert!(
            settled.get(kind).copied().unwrap_or(0) >= 1,
            "{kind}: {settled:?}"
        );
    }

    // Idle: no request, no job. The figure is the process's own CPU time, which other work
    // on the machine does not add to.
    let queries_before = counter(&s.metrics().await, "mediaforge_db_queries_total");
    let (pid, before, started) = (s.pid(), cpu_seconds(s.pid()), Instant::now());
    tokio::time::sleep(Duration::from_secs(10)).await;
    let share = (cpu_seconds(pid) - before) / started.elapsed().as_secs_f64();
    let queries = counter(&s.metrics().await, "mediaforge_db_queries_total") - queries_before;
    eprintln!(
        "idle CPU after the history: {:.2}% of a core; {queries} queries in 10 s",
        share * 100.0
    );
    assert!(share < 0.01, "idle CPU {:.2}% of a core", share * 100.0);
    // Each fixed loop looks once more after the history (the webhooks due: 3 queries; lapsed
    // leases: 1) and then knows nothing waits until a write says otherwise (`db/queue.rs`);
    // the closing `/metrics` read costs 2. Measured 6; 10 while the loops read the database
    // on every timed look (16 in 20 s with no history at all). A loop polling in a tight
    // cycle, or one per thing the history left, would be many more.
    assert!(queries <= 8, "{queries} queries in 10 s of idle");
}
