//! Many tenants on one service: request rates, tasks at once, running jobs per account, fair
//! turns between accounts, priorities, estimates before running, and ETAs while running.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::jobs::{frame_task, slow_task, submit, wait_for};
use crate::support::*;

fn pro(key: &str, value: &str) -> (String, String) {
    (format!("MEDIAFORGE__PLANS__PRO__{key}"), value.to_string())
}

async fn server(env: &[(String, String)]) -> Server {
    let pairs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    Server::start_with(Options::env(&pairs)).await
}

#[tokio::test]
async fn requests_past_the_rate_are_refused_with_when_to_retry() {
    let s = server(&[pro("REQUESTS_PER_MINUTE", "5")]).await;
    for left in (0..5).rev() {
        let res = s
            .http()
            .get(s.url("/directory"))
            .header("Authorization", format!("Basic {ALICE}"))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
        let h = |n: &str| res.headers()[n].to_str().unwrap().to_string();
        assert_eq!(
            (h("ratelimit-limit"), h("ratelimit-remaining")),
            ("5".into(), left.to_string())
        );
    }
    let res = s
        .http()
        .get(s.url("/v1/directory"))
        .header("Authorization", format!("Basic {ALICE}"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 429);
    let retry: u64 = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=12).contains(&retry), "{retry}");
    let body: Value = res.json().await.unwrap();
    assert_eq!(body, json!({"ok": false, "error": "Rate limit exceeded"}));
    // Per account: another plan without a rate has no headers and no limit.
    let res = s
        .http()
        .get(s.url("/directory"))
        .header("Authorization", format!("Basic {BOB}"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert!(!res.headers().contains_key("ratelimit-limit"));
}

#[tokio::test]
async fn a_second_task_at_once_is_refused_then_admitted() {
    let s = server(&[pro("MAX_CONCURRENT_TASKS", "1")]).await;
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let long = slow_task(&input, "long.mp4", 1)["task"].clone();
    let first = {
        let (http, url) = (s.http().clone(), s.url("/ffmpeg/process"));
        tokio::spawn(async move {
            http.post(url)
                .header("Authorization", format!("Basic {ALICE}"))
                .json(&json!({ "task": long }))
                .send()
                .await
                .unwrap()
                .status()
        })
    };
    tokio::time::sleep(Duration::from_millis(800)).await;
    let res = s
        .http()
        .post(s.url("/ffmpeg/process"))
        .header("Authorization", format!("Basic {ALICE}"))
        .json(&frame_task(&input, "now.png"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 429);
    assert_eq!(res.headers()["retry-after"], "1");
    let body: Value = res.json().await.unwrap();
    assert_eq!(
        body,
        json!({"ok": false, "error": "Too many concurrent tasks"})
    );
    // A probe counts too; another account does not.
    let (status, _) = s
        .post(
            "/ffprobe/analyze",
            ALICE,
            json!({"file_path": input, "probe": {"format": []}}),
        )
        .await;
    assert_eq!(status, 429);
    let other = s.upload_file(PRO, None, &media().short()).await;
    let (status, body) = s
        .process(PRO, frame_task(&other, "p.png")["task"].clone())
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(first.await.unwrap(), 200);
    let (status, body) = s
        .process(ALICE, frame_task(&input, "after.png")["task"].clone())
        .await;
    assert_eq!(status, 200, "{body}");
}

/// Waits until every job completed.
async fn finished(s: &Server, key: &str, jobs: &[String]) {
    for j in jobs {
        wait_for(s, key, j, &["completed"], 120).await;
    }
}

#[tokio::test]
async fn accounts_take_turns_and_priorities_order_an_account() {
    let s = server(&[("MEDIAFORGE__JOBS__WORKERS".into(), "1".into())]).await;
    let a = s.upload_file(ALICE, None, &media().short()).await;
    let b = s.upload_file(PRO, None, &media().short()).await;
    // Alice floods the single worker with 6 jobs of about 2 s each.
    let mut flood = Vec::new();
    for i in 0..6 {
        flood.push(submit(&s, ALICE, slow_task(&a, &format!("f{i}.mp4"), 0)).await);
    }
    wait_for(&s, ALICE, &flood[0], &["processing", "completed"], 30).await;
    // Carol submits one, then Alice three more with priorities.
    let carol = submit(&s, PRO, frame_task(&b, "mine.png")).await;
    let (_, view) = s.get(&format!("/job/{carol}"), PRO).await;
    assert_eq!(view["status"], "pending");
    assert_eq!(view["priority"], "normal");
    // Fair turns: Alice just had hers, so Carol's only job is next, before Alice's five.
    assert_eq!(view["queue_position"], 0, "{view}");
    let with = |p: &str, out: &str| {
        let mut t = frame_task(&a, out);
        t["priority"] = json!(p);
        t
    };
    let low = submit(&s, ALICE, with("low", "low.png")).await;
    let high = submit(&s, ALICE, with("high", "high.png")).await;
    let (status, body) = s
        .post("/ffmpeg/process/async", ALICE, with("urgent", "x.png"))
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("priority"),
        "{body}"
    );

    wait_for(&s, PRO, &carol, &["completed"], 120).await;
    let mut all = flood.clone();
    all.extend([low.clone(), high.clone()]);
    finished(&s, ALICE, &all).await;
    // Completion times from the job lists.
    let completed = |list: &Value| -> Vec<(String, String)> {
        let mut done: Vec<(String, String)> = list["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["completed_at"].as_str().unwrap().to_string(),
                    e["id"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        done.sort();
        done
    };
    let (_, theirs) = s.get("/jobs?limit=100", PRO).await;
    let carol_at = completed(&theirs)[0].0.clone();
    let (_, mine) = s.get("/jobs?limit=100", ALICE).await;
    let alice_times = completed(&mine);
    let before_carol = alice_times.iter().filter(|(t, _)| *t < carol_at).count();
    assert!(
        before_carol <= 2,
        "Carol waited for {before_carol} of Alice's jobs"
    );
    // Within Alice's queue: high before the normal ones still pending, low last.
    let order: Vec<&String> = alice_times.iter().map(|(_, j)| j).collect();
    let place = |j: &String| order.iter().position(|o| *o == j).unwrap();
    assert!(place(&high) < place(&flood[5]), "{order:?}");
    assert_eq!(place(&low), order.len() - 1, "{order:?}");
    let (_, list) = s.get("/jobs?limit=100", ALICE).await;
    assert!(
        list["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["priority"] == "high")
    );
}

#[tokio::test]
async fn an_account_at_its_running_limit_waits_its_turn() {
    let s = server(&[
        pro("MAX_RUNNING_JOBS", "1"),
        ("MEDIAFORGE__JOBS__WORKERS".into(), "3".into()),
    ])
    .await;
    let input = s.upload_file(ALICE, None, &media().short()).await;
    let mut jobs = Vec::new();
    for i in 0..3 {
        jobs.push(submit(&s, ALICE, slow_task(&input, &format!("r{i}.mp4"), 0)).await);
    }
    let most = most_running_until_done(&s, ALICE, 3).await;
    assert_eq!(most, 1, "never more than one of Alice's jobs at once");
}

/// The most of `key`'s jobs seen processing at once (sampled every 100 ms) until `n` have
/// completed.
pub(crate) async fn most_running_until_done(s: &Server, key: &str, n: u64) -> u64 {
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut most = 0;
    loop {
        let (_, list) = s.get("/jobs?status=processing", key).await;
        most = most.max(list["pagination"]["total"].as_u64().unwrap());
        let (_, done) = s.get("/jobs?status=completed", key).await;
        if done["pagination"]["total"] == n {
            return most;
        }
        assert!(Instant::now() < deadline, "jobs did not finish");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn estimates_learn_from_runs_and_jobs_report_an_eta() {
    let s = Server::start().await;
    let clip = s.upload_file(ALICE, None, &media().clip()).await;
    let task = json!({"inputs": [{"file_path": clip}], "outputs": [{"file": "t.mp4",
        "options": ["-c:v", "libx264", "-preset", "veryfast", "-vf", "scale=-2:720", "-c:a", "aac"]}]});
    let (status, first) = s
        .post("/ffmpeg/estimate", ALICE, json!({ "task": task }))
        .await;
    assert_eq!(status, 200, "{first}");
    let e = &first["estimate"];
    for k in ["time_sec", "input_size_gb", "output_size_gb", "gb_sec"] {
        assert!(e[k].as_f64().is_some_and(|v| v >= 0.0), "{k}: {first}");
    }
    assert_eq!(e["confidence"], "low");
    assert!(
        e["basis"]
            .as_str()
            .unwrap()
            .contains("libx264/veryfast/720"),
        "{first}"
    );
    assert_eq!(first["quota"]["fits"], true);
    assert!(first["quota"]["remaining_gb"].as_f64().unwrap() > 0.0);
    // Nothing ran or was charged.
    let (_, usage) = s.get("/usage", ALICE).await;
    assert_eq!(usage["usage"]["time_sec"], 0.0);

    // Each run runs ffmpeg (a result cache hit would teach the estimate nothing).
    let uncached = json!({"task": task, "cache": false});
    for _ in 0..2 {
        let (status, body) = s.post("/ffmpeg/process", ALICE, uncached.clone()).await;
        assert_eq!(status, 200, "{body}");
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (_, third) = s
        .post("/ffmpeg/estimate", ALICE, json!({ "task": task }))
        .await;
    assert_eq!(third["estimate"]["confidence"], "medium", "{third}");
    let (status, run) = s.post("/ffmpeg/process", ALICE, uncached).await;
    assert_eq!(status, 200, "{run}");
    let (guess, actual) = (
        third["estimate"]["time_sec"].as_f64().unwrap(),
        run["usage"]["time_sec"].as_f64().unwrap(),
    );
    assert!(
        guess <= actual * 2.0 && guess >= actual / 2.0,
        "estimated {guess} s, took {actual} s"
    );
    // A plan's quota that the inputs exceed: the estimate says so instead of refusing.
    let tiny = s.upload_file(DAVE, None, &media().short()).await;
    let (status, body) = s
        .post(
            "/ffmpeg/estimate",
            DAVE,
            json!({"task": {"inputs": [{"file_path": tiny}], "outputs": [{"file": "o.png"}]}}),
        )
        .await;
    assert_eq!(status, 200, "{body}");

    // Jobs carry the estimate, and an ETA while they run.
    let short = s.upload_file(ALICE, None, &media().short()).await;
    let (status, accepted) = s
        .post(
            "/ffmpeg/process/async",
            ALICE,
            slow_task(&short, "eta.mp4", 2),
        )
        .await;
    assert_eq!(status, 202, "{accepted}");
    assert!(accepted["estimate"]["time_sec"].is_number(), "{accepted}");
    let job = accepted["job_id"].as_str().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (_, v) = s.get(&format!("/job/{job}"), ALICE).await;
        if v["progress"]["eta_sec"].is_number() {
            assert!(v["estimate"]["time_sec"].is_number(), "{v}");
            break;
        }
        assert!(
            v["status"] != "completed" && Instant::now() < deadline,
            "no ETA seen: {v}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// First come, first served (`jobs.scheduling = "fifo"`): a waiting job's place counts every
/// job queued before it, its own account's and others'.
#[tokio::test]
async fn fifo_places_count_every_job_queued_before() {
    let s = server(&[
        ("MEDIAFORGE__JOBS__SCHEDULING".into(), "fifo".into()),
        ("MEDIAFORGE__JOBS__WORKERS".into(), "1".into()),
    ])
    .await;
    let a = s.upload_file(ALICE, None, &media().short()).await;
    let b = s.upload_file(PRO, None, &media().short()).await;
    let busy = submit(&s, ALICE, slow_task(&a, "busy.mp4", 1)).await;
    wait_for(&s, ALICE, &busy, &["processing"], 30).await;
    let mut waiting = Vec::new();
    for i in 0..3 {
        waiting.push((
            ALICE,
            submit(&s, ALICE, frame_task(&a, &format!("w{i}.png"))).await,
        ));
    }
    waiting.push((PRO, submit(&s, PRO, frame_task(&b, "last.png")).await));
    for (place, (key, job)) in waiting.iter().enumerate() {
        let (_, view) = s.get(&format!("/job/{job}"), key).await;
        assert_eq!(view["status"], "pending", "{view}");
        assert_eq!(view["queue_position"], place as u64, "{view}");
    }
}
