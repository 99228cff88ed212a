//! `make bench`: figures of the real service, each printed with the ratio to the same work done
//! directly (ffmpeg run by hand, the disk written by hand). Not a test: nothing is asserted
//! about time; targets are printed beside the figures.

#[path = "../api/support.rs"]
mod support;

use std::io::Write;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::*;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = xs.len();
    // Of an even count, the mean of the middle two: never the larger alone.
    if n.is_multiple_of(2) {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    } else {
        xs[n / 2]
    }
}

fn line(name: &str, figure: String, reference: String, ratio: f64, target: &str) {
    println!(
        "{name:<34} {figure:<26} reference {reference:<22} ratio {ratio:>6.3}   target {target}"
    );
}

#[tokio::main]
async fn main() {
    let only: Option<String> = std::env::args().nth(1).filter(|a| !a.starts_with('-'));
    let run = |name: &str| only.as_deref().is_none_or(|o| name.contains(o));
    println!(
        "mediaforge benchmarks ({} cores)",
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    );
    if run("upload") {
        upload().await;
    }
    if run("tus") {
        tus_upload().await;
    }
    if run("requests") {
        requests().await;
    }
    if run("database") {
        database_routes().await;
    }
    if run("plugin") {
        plugin_calls().await;
    }
    if run("memory") {
        idle_memory().await;
    }
    if run("process") {
        processing().await;
    }
    if run("cache") {
        cache().await;
    }
    if run("jobs") {
        async_jobs().await;
    }
    if run("translator") {
        translator().await;
    }
    if run("tenants") {
        tenants().await;
    }
    if run("recipe") {
        recipe().await;
    }
}

/// A 256 MB presigned upload against writing (and syncing) the same bytes on the same disk.
async fn upload() {
    const SIZE: usize = 256 * 1024 * 1024;
    let s = Server::start_with(Options::env(&[(
        "MEDIAFORGE__PLANS__PRO__MAX_FILE_SIZE_MB",
        "1024",
    )]))
    .await;
    // Shared, so each round's body is the same memory (no 256 MB copy or free around a round).
    let data = bytes::Bytes::from(
        (0..SIZE)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect::<Vec<u8>>(),
    );
    let mut direct = Vec::new();
    let mut api = Vec::new();
    // Each side removes what it wrote and the disk settles before the next write: a virtual
    // disk's write cache fills with kept files (here 256 MB synced took 0.17 s on an empty
    // cache and 0.8 s after four kept files), which would time the disk's state, not the path.
    let settle = || {
        Command::new("sync").status().unwrap();
        std::thread::sleep(Duration::from_millis(500));
    };
    for round in 0..9 {
        let path = s.dir.join(format!("direct-{round}.bin"));
        settle();
        let t = Instant::now();
        let mut f = std::fs::File::create(&path).unwrap();
        f.write_all(&data).unwrap();
        f.sync_all().unwrap();
        direct.push(t.elapsed().as_secs_f64());
        std::fs::remove_file(&path).unwrap();

        let (_, created) = s
            .post(
                "/file",
                ALICE,
                json!({"file_name": format!("big{round}.bin")}),
            )
            .await;
        let url = created["upload"]["url"].as_str().unwrap().to_string();
        let body = data.clone();
        settle();
        let t = Instant::now();
        let res = s.http().put(url).body(body).send().await.unwrap();
        assert_eq!(res.status(), 200);
        api.push(t.elapsed().as_secs_f64());
        let file_path = created["file"]["file_path"].as_str().unwrap();
        // After the hash the service takes of an upload (`files::hash_later`), once it is done.
        tokio::time::sleep(Duration::from_millis(500)).await;
        let (status, _) = s.delete(&format!("/file/{file_path}"), ALICE).await;
        assert_eq!(status, 200);
    }
    let (d, a) = (median(direct.clone()), median(api.clone()));
    let mb = SIZE as f64 / 1_048_576.0;
    line(
        "presigned upload 256 MB",
        format!("{:.0} MB/s", mb / a),
        format!("{:.0} MB/s", mb / d),
        d / a,
        ">= 0.90 of direct",
    );
    // The rounds too: this machine's disk is noisy (the direct write's median moves most).
    let secs = |xs: &[f64]| {
        xs.iter()
            .map(|x| format!("{x:.3}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let best = |xs: &[f64]| xs.iter().copied().fold(f64::MAX, f64::min);
    println!(
        "  rounds (s): direct {}; upload {}; best against best: ratio {:.3}",
        secs(&direct),
        secs(&api),
        best(&direct) / best(&api)
    );
}

/// The load average (1, 5 and 15 min), printed beside figures a shared machine can skew.
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// A 1 GB resumable upload (tus, 16 MB PATCHes, as tus-js-client and tuspy send them) against a
/// presigned PUT of the same bytes to the same server, rounds alternating which goes first.
async fn tus_upload() {
    use base64::Engine;
    const SIZE: usize = 1024 * 1024 * 1024;
    const CHUNK: usize = 16 * 1024 * 1024;
    // Even, so each goes first as often: the second of a round pays for reclaiming the first's
    // gigabyte of page cache (measured: the second was the slower in most rounds, either way).
    const ROUNDS: usize = 6;
    let s = Server::start_with(Options::env(&[
        ("MEDIAFORGE__PLANS__PRO__MAX_FILE_SIZE_MB", "2048"),
        ("MEDIAFORGE__PLANS__PRO__MONTHLY_QUOTA_GB", "1000"),
    ]))
    .await;
    let data = bytes::Bytes::from(
        (0..SIZE)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect::<Vec<u8>>(),
    );
    let dir = s.mkdir(ALICE).await;
    let settle = || {
        Command::new("sync").status().unwrap();
        std::thread::sleep(Duration::from_millis(500));
    };
    // Each file is deleted as soon as it is timed, so the next upload starts from the same page
    // cache and is not the one that pays for reclaiming the last one's pages (nor runs beside
    // the hash the service takes of a PUT's bytes after answering, `files::hash_later`).
    let gone = async |name: &str| {
        let (status, _) = s.delete(&format!("/file/{dir}/{name}"), ALICE).await;
        assert_eq!(status, 200);
    };
    let put = async |name: &str| -> f64 {
        let (_, created) = s
            .post("/file", ALICE, json!({"file_name": name, "dir_id": dir}))
            .await;
        let url = created["upload"]["url"].as_str().unwrap().to_string();
        settle();
        let t = Instant::now();
        let res = s.http().put(url).body(data.clone()).send().await.unwrap();
        assert_eq!(res.status(), 200);
        let took = t.elapsed().as_secs_f64();
        gone(name).await;
        took
    };
    // Each PATCH's `Server-Timing` stages (ms), added up over the upload.
    let tus = async |name: &str| -> (f64, std::collections::BTreeMap<String, f64>) {
        let meta = format!(
            "filename {},dir_id {}",
            base64::engine::general_purpose::STANDARD.encode(name),
            base64::engine::general_purpose::STANDARD.encode(&dir)
        );
        let mut stages = std::collections::BTreeMap::new();
        settle();
        let t = Instant::now();
        let res = s
            .http()
            .post(s.url("/tus"))
            .header("authorization", format!("Basic {ALICE}"))
            .header("tus-resumable", "1.0.0")
            .header("upload-length", SIZE.to_string())
            .header("upload-metadata", meta)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 201);
        let location = res.headers()["location"].to_str().unwrap().to_string();
        let mut offset = 0;
        while offset < SIZE {
            let end = (offset + CHUNK).min(SIZE);
            let res = s
                .http()
                .patch(&location)
                .header("authorization", format!("Basic {ALICE}"))
                .header("tus-resumable", "1.0.0")
                .header("upload-offset", offset.to_string())
                .header("content-type", "application/offset+octet-stream")
                .body(data.slice(offset..end))
                .send()
                .await
                .unwrap();
            assert_eq!(res.status(), 204);
            let timing = res
                .headers()
                .get("server-timing")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            // The last PATCH's own (it syncs the whole file and stores it) under `last <stage>`.
            let last = if end == SIZE { "last " } else { "" };
            for stage in timing.split(',') {
                if let Some((name, ms)) = stage.trim().split_once(";dur=") {
                    *stages.entry(format!("{last}{name}")).or_insert(0.0) +=
                        ms.parse::<f64>().unwrap_or(0.0);
                }
            }
            offset = end;
        }
        let took = t.elapsed().as_secs_f64();
        gone(name).await;
        (took, stages)
    };
    let before = load();
    let (mut puts, mut tuses, mut accounts) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let (p, t) = (format!("put{round}.bin"), format!("tus{round}.bin"));
        let (tus_s, stages) = if round % 2 == 0 {
            puts.push(put(&p).await);
            tus(&t).await
        } else {
            let done = tus(&t).await;
            puts.push(put(&p).await);
            done
        };
        tuses.push(tus_s);
        accounts.push(stages);
    }
    let (p, t) = (median(puts.clone()), median(tuses.clone()));
    let mb = SIZE as f64 / 1_048_576.0;
    // The ratio is the median of each round's (the rounds alternate, so a slow spell of the
    // machine shifts both halves of a pair), as the thumbnail's overhead is; the ratio of the
    // medians is printed below it.
    let ratios: Vec<f64> = puts.iter().zip(&tuses).map(|(p, t)| p / t).collect();
    line(
        "tus upload 1 GB, 16 MB chunks",
        format!("{:.0} MB/s", mb / t),
        format!("{:.0} MB/s PUT", mb / p),
        median(ratios.clone()),
        ">= 0.90 of the PUT",
    );
    let secs = |xs: &[f64]| {
        xs.iter()
            .map(|x| format!("{x:.2}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let (lo, hi) = ratios
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), r| (lo.min(*r), hi.max(*r)));
    println!(
        "  rounds (s): PUT {}; tus {}; ratio per round {:.3} to {:.3}, of the medians {:.3}; load before {before}, after {}",
        secs(&puts),
        secs(&tuses),
        lo,
        hi,
        p / t,
        load()
    );
    // Where the PATCHes' time went, in the median tus round (ms over the first 63 PATCHes, then
    // the last one's; `total` is the server's whole time, the rest is the client's).
    let mut order: Vec<usize> = (0..ROUNDS).collect();
    order.sort_by(|a, b| tuses[*a].partial_cmp(&tuses[*b]).unwrap());
    let middle = &accounts[order[ROUNDS / 2]];
    println!(
        "  median tus round, server stages (ms): {}",
        middle
            .iter()
            .map(|(n, ms)| format!("{n} {ms:.0}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
}

/// Authenticated GET /directory/{id} under 16 connections, with wrk.
async fn requests() {
    if Command::new("wrk").arg("--version").output().is_err() {
        println!("requests: wrk is not installed (make bench installs it)");
        return;
    }
    let s = Server::start_with(Options::env(&[("MEDIAFORGE_LOG", "warn")])).await;
    let dir = s.mkdir(ALICE).await;
    s.upload(ALICE, Some(&dir), "a.txt", b"x".to_vec()).await;
    let wrk = |path: &str, auth: bool| {
        let mut cmd = Command::new("wrk");
        cmd.args(["-t2", "-c16", "-d8s", "--latency"]);
        if auth {
            cmd.args(["-H", &format!("Authorization: Basic {ALICE}")]);
        }
        let out = cmd.arg(s.url(path)).output().unwrap();
        parse_wrk(&String::from_utf8_lossy(&out.stdout))
    };
    let (health_rps, ..) = wrk("/healthz", false);
    let (rps, p50, p99) = wrk(&format!("/directory/{dir}"), true);
    line(
        "GET /directory/{id} (auth, 16 conn)",
        format!("{rps:.0} req/s p50 {p50:.2} ms p99 {p99:.2} ms"),
        format!("{health_rps:.0} req/s /healthz"),
        rps / health_rps,
        ">= 10k req/s, p99 < 10 ms",
    );
}

/// Routes that write the database (a directory, a file record), one request at a time, against
/// GET /healthz over the same connection: what a request costs beyond HTTP.
async fn database_routes() {
    let s = Server::start_with(Options::env(&[("MEDIAFORGE_LOG", "warn")])).await;
    let dir = s.mkdir(ALICE).await;
    let (http, auth) = (s.http(), format!("Basic {ALICE}"));
    let health = median(timed(300, |_| http.get(s.url("/healthz"))).await);
    // `n` file records made one at a time in `dir` with `key`.
    let make_files = async |key: &str, dir: &str, prefix: &str, n: usize| {
        let auth = format!("Basic {key}");
        timed(n, |i| {
            http.post(s.url("/file"))
                .header("authorization", &auth)
                .json(&json!({"dir_id": dir, "file_name": format!("{prefix}{i}.bin")}))
        })
        .await
    };
    let files = make_files(ALICE, &dir, "f", 300).await;
    // After the files: each file record checks the storage of every live directory of its
    // account, so these 300 would slow the files' figure.
    let dirs = timed(300, |_| {
        http.post(s.url("/directory"))
            .header("authorization", &auth)
            .json(&json!({}))
    })
    .await;
    // Another tenant's history must not slow this one: bob's 5,000 files, then carol (alice's
    // plan, no files yet, as alice was) makes hers as alice did.
    for d in 0..50 {
        make_files(BOB, &s.mkdir(BOB).await, &format!("b{d}-"), 100).await;
    }
    let beside = make_files(PRO, &s.mkdir(PRO).await, "f", 300).await;
    let (alone, crowded) = (median(files.clone()), median(beside));
    line(
        "POST /file beside 5,000 of another's",
        format!("p50 {crowded:.2} ms"),
        format!("{alone:.2} ms alice alone"),
        alone / crowded,
        "unchanged (tenants apart)",
    );
    for (name, ms) in [("POST /directory", dirs), ("POST /file", files)] {
        let mut sorted = ms.clone();
        sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let p95 = sorted[sorted.len() * 95 / 100];
        let p50 = median(ms);
        line(
            &format!("{name} (one at a time)"),
            format!("p50 {p50:.2} ms p95 {p95:.2} ms"),
            format!("{health:.2} ms /healthz"),
            health / p50,
            "within 20% of the last build",
        );
    }
}

/// Milliseconds of `n` requests made one after another.
async fn timed(n: usize, mut request: impl FnMut(usize) -> reqwest::RequestBuilder) -> Vec<f64> {
    let mut ms = Vec::with_capacity(n);
    for i in 0..n {
        let t = Instant::now();
        let res = request(i).send().await.unwrap();
        assert!(res.status().is_success(), "{}", res.status());
        res.bytes().await.unwrap();
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    ms
}

/// (requests per second, p50 ms, p99 ms) from wrk's --latency output.
fn parse_wrk(text: &str) -> (f64, f64, f64) {
    let ms = |v: &str| -> f64 {
        let v = v.trim();
        if let Some(x) = v.strip_suffix("us") {
            x.parse::<f64>().unwrap_or(0.0) / 1000.0
        } else if let Some(x) = v.strip_suffix("ms") {
            x.parse().unwrap_or(0.0)
        } else if let Some(x) = v.strip_suffix('s') {
            x.parse::<f64>().unwrap_or(0.0) * 1000.0
        } else {
            0.0
        }
    };
    let mut rps = 0.0;
    let (mut p50, mut p99) = (0.0, 0.0);
    for l in text.lines() {
        let l = l.trim();
        if let Some(v) = l.strip_prefix("Requests/sec:") {
            rps = v.trim().parse().unwrap_or(0.0);
        } else if let Some(v) = l.strip_prefix("50%") {
            p50 = ms(v);
        } else if let Some(v) = l.strip_prefix("99%") {
            p99 = ms(v);
        }
    }
    (rps, p50, p99)
}

/// One webhook-formatter call, a fresh instance each time, through the host's plugin runtime.
async fn plugin_calls() {
    use mediaforge::plugins::types::{EventOutcome, JobEvent};
    let cfg = mediaforge::config::Plugins {
        default_dir: wasm_dir(),
        ..Default::default()
    };
    let net = mediaforge::net::Net::new(&Default::default()).unwrap();
    let cache = temp_dir("bench-cache");
    let host = mediaforge::plugins::PluginHost::load(&cfg, &cache, &net)
        .await
        .unwrap();
    let event = || JobEvent {
        event_id: "evt_1".into(),
        job_id: "job_1".into(),
        account_id: "alice".into(),
        attempt: 1,
        outcome: EventOutcome::Failed {
            error: "boom".into(),
            details: None,
        },
        occurred_at: "2026-01-01T00:00:00Z".into(),
        webhook_url: "https://example.com".into(),
    };
    for _ in 0..200 {
        host.format_event(&event()).await.unwrap();
    }
    let n = 5000;
    let t = Instant::now();
    for _ in 0..n {
        host.format_event(&event()).await.unwrap();
    }
    let per_call = t.elapsed().as_secs_f64() / n as f64 * 1e6;
    // The reference: a tokio blocking round trip alone (what every call pays to leave the async threads).
    let t = Instant::now();
    for _ in 0..n {
        tokio::task::spawn_blocking(|| ()).await.unwrap();
    }
    let hop = t.elapsed().as_secs_f64() / n as f64 * 1e6;
    line(
        "plugin call (fresh instance)",
        format!("{per_call:.1} µs"),
        format!("{hop:.1} µs thread hop"),
        hop / per_call,
        "<= 30 µs",
    );
    let _ = std::fs::remove_dir_all(cache);
}

async fn idle_memory() {
    let s = Server::start().await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let status = std::fs::read_to_string(format!("/proc/{}/status", s.pid())).unwrap();
    let rss = status
        .lines()
        .find(|l| l.starts_with("VmRSS"))
        .unwrap_or("VmRSS: ?")
        .trim()
        .to_string();
    println!("{:<34} {rss}", "idle server memory");
}

fn ffmpeg_direct(args: &[&str]) -> f64 {
    let t = Instant::now();
    let status = Command::new("ffmpeg")
        .args(["-nostdin", "-hide_banner", "-loglevel", "error", "-y"])
        .args(args)
        .status()
        .unwrap();
    assert!(status.success());
    t.elapsed().as_secs_f64()
}

/// A thumbnail and a 10 s 720p transcode through the API against the same ffmpeg by hand.
async fn processing() {
    let s = Server::start_with(Options::env(&[("MEDIAFORGE_LOG", "warn")])).await;
    let m = media();
    let input = s.upload_file(ALICE, None, &m.clip()).await;
    let out_dir = temp_dir("bench-direct");
    let clip = m.clip().to_string_lossy().into_owned();
    let cases: [(&str, Vec<&str>, &str); 2] = [
        ("thumbnail", vec!["-ss", "5", "-frames:v", "1"], "thumb.jpg"),
        (
            "transcode 10 s 720p",
            vec![
                "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-c:a", "aac",
            ],
            "out.mp4",
        ),
    ];
    for (name, opts, out) in cases {
        let mut direct = Vec::new();
        let mut api = Vec::new();
        let mut timings = Vec::new();
        // Short runs are noisy on a shared machine: more rounds for the thumbnail.
        let rounds = if name == "thumbnail" { 15 } else { 5 };
        for _ in 0..rounds {
            let out_path = out_dir.join(out).to_string_lossy().into_owned();
            let mut args = vec!["-i", clip.as_str()];
            args.extend(opts.iter().copied());
            args.push(out_path.as_str());
            direct.push(ffmpeg_direct(&args));
            let t = Instant::now();
            // Out of the result cache: each round runs ffmpeg (`cache` below measures hits).
            let res = s
                .http()
                .post(s.url("/ffmpeg/process"))
                .header("Authorization", format!("Basic {ALICE}"))
                .json(&json!({"task": {"inputs": [{"file_path": input}], "outputs": [{"file": out, "options": opts}]}, "cache": false}))
                .send()
                .await
                .unwrap();
            let status = res.status();
            let timing = res
                .headers()
                .get("server-timing")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string();
            let body: Value = res.json().await.unwrap();
            assert_eq!(status, 200, "{body}");
            api.push(t.elapsed().as_secs_f64());
            timings.push(timing);
        }
        // The overhead is the median of each round's difference (the rounds alternate, so a
        // slow spell of the machine shifts both halves of a pair), not a difference of medians.
        let over = median(api.iter().zip(&direct).map(|(a, d)| a - d).collect());
        let (d, a) = (median(direct), median(api));
        line(
            &format!("{name} via API"),
            format!("{:.0} ms (+{:.0} ms)", a * 1000.0, over * 1000.0),
            format!("{:.0} ms ffmpeg", d * 1000.0),
            d / a,
            if name == "thumbnail" {
                "+10 ms at most"
            } else {
                "within 3%"
            },
        );
        if name == "thumbnail" {
            breakdown("thumbnail server stages", &timings, over);
        }
    }
    let _ = std::fs::remove_dir_all(out_dir);
}

/// Where a thumbnail's time went, from the server's `Server-Timing` headers or a job's `timing`
/// (medians per stage, ms): the stages before ffmpeg, ffmpeg in its sandbox, and those after.
fn breakdown(what: &str, headers: &[String], over: f64) {
    let mut stages: Vec<(String, Vec<f64>)> = Vec::new();
    for header in headers {
        for part in header.split(", ") {
            let Some((name, dur)) = part.split_once(";dur=") else {
                continue;
            };
            let ms: f64 = dur.parse().unwrap_or(0.0);
            match stages.iter_mut().find(|(n, _)| n == name) {
                Some((_, v)) => v.push(ms),
                None => stages.push((name.to_string(), vec![ms])),
            }
        }
    }
    let shown: Vec<String> = stages
        .into_iter()
        .map(|(n, v)| format!("{n} {:.1}", median(v)))
        .collect();
    println!(
        "  {what} (median ms; +{:.0} ms over ffmpeg by hand end to end): {}",
        over * 1000.0,
        shown.join(", ")
    );
}

/// The 10 s 720p transcode repeated: a result cache hit (server time from the request log, and
/// the client's wall time on loopback) against the miss that ran ffmpeg.
async fn cache() {
    let s = Server::start_with(Options::env(&[("MEDIAFORGE_LOG_FORMAT", "json")])).await;
    let input = s.upload_file(ALICE, None, &media().clip()).await;
    let task = json!({"task": {"inputs": [{"file_path": input}], "outputs": [{"file": "out.mp4",
        "options": ["-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-c:a", "aac"]}]}});
    let t = Instant::now();
    let (status, body) = s.post("/ffmpeg/process", ALICE, task.clone()).await;
    assert_eq!(
        (status.as_u16(), body["cache"].as_str()),
        (200, Some("miss")),
        "{body}"
    );
    let miss = t.elapsed().as_secs_f64();
    let first = s.fetch_outputs(&body).await;
    let mut wall = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        let (status, body) = s.post("/ffmpeg/process", ALICE, task.clone()).await;
        wall.push(t.elapsed().as_secs_f64());
        assert_eq!(
            (status.as_u16(), body["cache"].as_str()),
            (200, Some("hit")),
            "{body}"
        );
        assert_eq!(
            s.fetch_outputs(&body).await,
            first,
            "byte-identical outputs"
        );
    }
    // The server's own time: the `ms` of its request log lines for the hits.
    let server: Vec<f64> = s
        .log()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|l| l["fields"]["route"] == "/ffmpeg/process")
        .filter_map(|l| l["fields"]["ms"].as_f64())
        .skip(1)
        .collect();
    let (hit, server) = (median(wall), median(server));
    line(
        "transcode 10 s 720p, cache hit",
        format!("{:.1} ms (server {server:.0} ms)", hit * 1000.0),
        format!("{:.0} ms miss", miss * 1000.0),
        miss / hit,
        "server <= 10 ms, client <= 30 ms",
    );
}

/// A clock tick of `/proc` (USER_HZ), in ms.
const TICK_MS: f64 = 10.0;

/// The machine's (busy, all) CPU time so far, in ticks of every core (`/proc/stat`).
fn machine_ticks() -> (f64, f64) {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let f: Vec<f64> = stat
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .skip(1)
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    let all: f64 = f.iter().sum();
    // idle and iowait are the cores' time unused.
    let idle = f.get(3).copied().unwrap_or(0.0) + f.get(4).copied().unwrap_or(0.0);
    (all - idle, all)
}

/// The queue at saturation: 40 distinct thumbnails through the async API against the same 40
/// ffmpeg runs by hand with as many at once as the server has workers (`xargs -P`), rounds
/// alternating; once with a client that waits on each job's event stream, once with one that
/// polls every job every 50 ms (what a poll costs the server is part of the queue's speed).
async fn async_jobs() {
    const N: usize = 40;
    const ROUNDS: usize = 3;
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .to_string();
    // Each job's stages are in its `job finished` line (no request lines: they cost time).
    let s = Server::start_with(Options::env(&[
        ("MEDIAFORGE_LOG", "warn,mediaforge::jobs::worker=info"),
        ("MEDIAFORGE_LOG_FORMAT", "json"),
        ("MEDIAFORGE__JOBS__WORKERS", workers.as_str()),
        ("MEDIAFORGE__JOBS__MAX_WATCHERS_PER_ACCOUNT", "100"),
        // The operator's default sweep (the tests' 1 s put six queries a second into every
        // round, counted as the queue's).
        ("MEDIAFORGE__STORAGE__SWEEP_INTERVAL_S", "60"),
    ]))
    .await;
    let m = media();
    let input = s.upload_file(ALICE, None, &m.short()).await;
    let short = m.short().to_string_lossy().into_owned();
    let out_dir = temp_dir("bench-jobs");
    let server_pid = s.pid();
    let mut round = 0;
    let (mut direct_all, mut api_all) = (Vec::new(), Vec::new());
    for (mode, polling) in [("events", false), ("polling 50 ms", true)] {
        let (mut direct, mut api) = (Vec::new(), Vec::new());
        // CPU per job (ms): the server's own, and its sandboxed ffmpeg runs' against xargs' runs
        // (the machine's, less the processes measured: read on an idle machine); and how busy
        // the cores were (a core left idle is time the queue lost).
        let (mut server_cpu, mut ffmpeg_cpu, mut direct_cpu) = (Vec::new(), Vec::new(), Vec::new());
        let (mut api_busy, mut direct_busy) = (Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            round += 1;
            // Distinct seek points each round: no run is answered from the result cache.
            let seek = |i: usize| format!("{}.{:03}", round % 2, i * 20 + round);
            // xargs reads "index seek" pairs and keeps `workers` ffmpeg runs going.
            let pairs: String = (0..N).map(|i| format!("{i} {}\n", seek(i))).collect();
            let script = format!(
                "xargs -P {workers} -n 2 sh -c 'ffmpeg -nostdin -hide_banner -loglevel error -y \
                 -ss \"$1\" -i {short} -frames:v 1 {}/x\"$0\".png'",
                out_dir.display()
            );
            let (t, self_pid) = (Instant::now(), std::process::id());
            let (me0, machine0) = (cpu_seconds(self_pid) * 1000.0, machine_ticks());
            let mut xargs = Command::new("sh")
                .args(["-c", &script])
                .stdin(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            xargs
                .stdin
                .take()
                .unwrap()
                .write_all(pairs.as_bytes())
                .unwrap();
            assert!(xargs.wait().unwrap().success());
            direct.push(t.elapsed().as_secs_f64());
            let (me1, machine1) = (cpu_seconds(self_pid) * 1000.0, machine_ticks());
            // The cores' busy time less this process's own: xargs and its ffmpeg runs.
            let busy_ms = (machine1.0 - machine0.0) * TICK_MS;
            direct_cpu.push((busy_ms - (me1 - me0)) / N as f64);
            direct_busy.push((machine1.0 - machine0.0) / (machine1.1 - machine0.1));

            let t = Instant::now();
            let (cpu0, me0, machine0) = (
                cpu_seconds(server_pid) * 1000.0,
                cpu_seconds(self_pid) * 1000.0,
                machine_ticks(),
            );
            let mut ids = Vec::new();
            for i in 0..N {
                let (status, body) = s
                    .post("/ffmpeg/process/async", ALICE, json!({"task": {"inputs": [{"file_path": input, "options": ["-ss", seek(i)]}], "outputs": [{"file": format!("r{round}j{i}.png"), "options": ["-frames:v", "1"]}]}}))
                    .await;
                assert_eq!(status, 202, "{body}");
                ids.push(body["job_id"].as_str().unwrap().to_string());
            }
            let waits = ids.iter().map(|id| {
                let s = &s;
                async move {
                    if polling {
                        loop {
                            let (_, v): (_, Value) = s.get(&format!("/job/{id}"), ALICE).await;
                            if v["status"] == "completed" {
                                return;
                            }
                            assert_ne!(v["status"], "failed", "{v}");
                            tokio::time::sleep(Duration::from_millis(50)).await;
                        }
                    }
                    let res = s
                        .http()
                        .get(s.url(&format!("/job/{id}/events")))
                        .header("Authorization", format!("Basic {ALICE}"))
                        .send()
                        .await
                        .unwrap();
                    let text = res.text().await.unwrap();
                    assert!(
                        text.contains("event: end") && text.contains("completed"),
                        "{text}"
                    );
                }
            });
            futures_util::future::join_all(waits).await;
            api.push(t.elapsed().as_secs_f64());
            let (cpu1, me1, machine1) = (
                cpu_seconds(server_pid) * 1000.0,
                cpu_seconds(self_pid) * 1000.0,
                machine_ticks(),
            );
            // The sandboxed runs are not the server's children once bubblewrap's own pid 1
            // reaps them: the cores' busy time less the server's and this client's.
            let busy_ms = (machine1.0 - machine0.0) * TICK_MS;
            let server_ms = cpu1 - cpu0;
            server_cpu.push(server_ms / N as f64);
            ffmpeg_cpu.push((busy_ms - server_ms - (me1 - me0)) / N as f64);
            api_busy.push((machine1.0 - machine0.0) / (machine1.1 - machine0.1));
        }
        let spread = |xs: &[f64]| {
            let (lo, hi) = xs
                .iter()
                .fold((f64::MAX, 0f64), |(lo, hi), x| (lo.min(*x), hi.max(*x)));
            format!("{lo:.2}-{hi:.2}")
        };
        direct_all.extend(&direct);
        api_all.extend(&api);
        let (d, a) = (median(direct.clone()), median(api.clone()));
        line(
            &format!("{N} async thumbnails ({mode})"),
            format!("{a:.2} s ({} s)", spread(&api)),
            format!("{d:.2} s xargs -P {workers}"),
            d / a,
            if polling {
                "ratio >= 0.91 (1.10x)"
            } else {
                "ratio >= 0.95 (1.05x)"
            },
        );
        println!(
            "  CPU per job (median ms): server {:.1}, ffmpeg in its sandbox {:.1} against {:.1} by hand; cores busy {:.0}% against {:.0}%",
            median(server_cpu),
            median(ffmpeg_cpu),
            median(direct_cpu),
            median(api_busy) * 100.0,
            median(direct_busy) * 100.0
        );
    }
    // Per job on its worker: what the service adds to each run, against xargs' runs.
    let timings: Vec<String> = s
        .log()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|l| l["fields"]["timing"].as_str().map(str::to_string))
        .collect();
    let per_job =
        (median(api_all) - median(direct_all)) * workers.parse::<f64>().unwrap_or(2.0) / N as f64;
    breakdown(
        "job stages on their worker, all rounds (claim and finish outside them)",
        &timings,
        per_job,
    );
    let _ = std::fs::remove_dir_all(out_dir);
}

/// Two tenants on one queue: one floods 40 jobs, another then submits 5. Fair turns let the
/// second through as workers free up; the reference is the time the whole queue takes (what
/// the second account would wait first come, first served).
async fn tenants() {
    let s = Server::start_with(Options::env(&[("MEDIAFORGE_LOG", "warn")])).await;
    let m = media();
    let flood_input = s.upload_file(ALICE, None, &m.short()).await;
    let other_input = s.upload_file(PRO, None, &m.short()).await;
    let task = |input: &str, out: String| {
        json!({"task": {"inputs": [{"file_path": input}], "outputs": [{"file": out,
            "options": ["-c:v", "libx264", "-preset", "ultrafast", "-t", "1"]}]}})
    };
    let submit = async |key: &str, body: Value| {
        let (status, res) = s.post("/ffmpeg/process/async", key, body).await;
        assert_eq!(status, 202, "{res}");
        res["job_id"].as_str().unwrap().to_string()
    };
    let started = Instant::now();
    let mut flood = Vec::new();
    for i in 0..40 {
        flood.push(submit(ALICE, task(&flood_input, format!("f{i}.mp4"))).await);
    }
    let t = Instant::now();
    let mut mine = Vec::new();
    for i in 0..5 {
        mine.push(submit(PRO, task(&other_input, format!("m{i}.mp4"))).await);
    }
    let wait_all = async |key: &str, ids: &[String]| {
        for id in ids {
            loop {
                let (_, v): (_, Value) = s.get(&format!("/job/{id}"), key).await;
                if v["status"] == "completed" {
                    break;
                }
                assert_ne!(v["status"], "failed", "{v}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    };
    wait_all(PRO, &mine).await;
    let waited = t.elapsed().as_secs_f64();
    let (_, done) = s.get("/jobs?status=completed&limit=1", ALICE).await;
    let flood_done = done["pagination"]["total"].as_u64().unwrap_or(0);
    wait_all(ALICE, &flood).await;
    let whole = started.elapsed().as_secs_f64();
    line(
        "second tenant's 5 jobs behind 40",
        format!("{waited:.2} s ({flood_done}/40 of the flood done)"),
        format!("{whole:.2} s whole queue"),
        whole / waited,
        "(ratio > 1: not behind the flood)",
    );
}

/// Time per translation of the example instructions through the offline translator plugin.
async fn translator() {
    use mediaforge::plugins::facts_from_probe;
    let cfg = mediaforge::config::Plugins {
        default_dir: wasm_dir(),
        ..Default::default()
    };
    let net = mediaforge::net::Net::new(&Default::default()).unwrap();
    let cache = temp_dir("bench-cache");
    let host = mediaforge::plugins::PluginHost::load(&cfg, &cache, &net)
        .await
        .unwrap();
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/nl-examples.json");
    let examples: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let m = media();
    let facts = |name: &str| {
        let p = probe(&m.dir.join(name));
        facts_from_probe(
            name,
            std::fs::metadata(m.dir.join(name)).unwrap().len(),
            Some(&p),
        )
    };
    // Facts are gathered first (the host probes inputs once); only translation is timed.
    let cases: Vec<(Value, Vec<_>)> = examples["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c.clone(),
                c["inputs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|i| facts(i.as_str().unwrap()))
                    .collect(),
            )
        })
        .collect();
    let (mut n, mut answered, mut refused_right) = (0, 0, 0);
    let t = Instant::now();
    for (case, inputs) in cases {
        let text = case["instructions"].as_str().unwrap();
        let ok = if case["endpoint"] == "probe" {
            host.translate_probe(text, &inputs[0]).await.is_ok()
        } else {
            host.translate_task(text, &inputs, &[]).await.is_ok()
        };
        n += 1;
        let should_refuse = case["expect"]["status"] == 400;
        if ok && !should_refuse {
            answered += 1;
        }
        if !ok && should_refuse {
            refused_right += 1;
        }
    }
    let per = t.elapsed().as_secs_f64() / n as f64 * 1000.0;
    println!(
        "{:<34} {per:.2} ms per translation; {answered} translated, {refused_right} refused as expected, of {n}",
        "offline translator"
    );
    println!(
        "{:<34} outputs checked with ffprobe: see `natural-language examples:` below",
        "translator accuracy"
    );
    let _ = std::fs::remove_dir_all(cache);
}

/// The `hls` recipe on the 10 s 720p clip (a 720/480/360 ladder and its master playlist)
/// against the ladder's one ffmpeg command run by hand: the argv the recipe's dry run shows,
/// over the local file in an empty directory. Then the same recipe again, from the cache.
async fn recipe() {
    let s = Server::start_with(Options::env(&[("MEDIAFORGE_LOG", "warn")])).await;
    let clip = media().clip();
    let input = s.upload_file(ALICE, None, &clip).await;
    let body = json!({"inputs": [input], "params": {}, "cache": false});
    let (status, dry) = s.post("/recipes/hls/validate", ALICE, body.clone()).await;
    assert_eq!(status, 200, "{dry}");
    let argv: Vec<String> = dry["steps"][0]["command"]
        .as_array()
        .expect("the ladder's command")
        .iter()
        .skip(1)
        .map(|a| {
            a.as_str()
                .unwrap()
                .replace(input.as_str(), &clip.to_string_lossy())
        })
        .collect();
    let (mut direct, mut api) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        let dir = temp_dir("bench-ladder");
        let t = Instant::now();
        let status = Command::new("ffmpeg")
            .args(&argv)
            .current_dir(&dir)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        direct.push(t.elapsed().as_secs_f64());
        let _ = std::fs::remove_dir_all(dir);
        let t = Instant::now();
        let (status, ran) = s.post("/recipes/hls", ALICE, body.clone()).await;
        assert_eq!(status, 200, "{ran}");
        api.push(t.elapsed().as_secs_f64());
    }
    let (d, a) = (median(direct), median(api));
    line(
        "hls recipe, 10 s 720p, 3 rungs",
        format!("{:.2} s", a),
        format!("{d:.2} s ffmpeg"),
        a / d,
        "1.10 at most (ratio is recipe/ffmpeg)",
    );
    let cached = json!({"inputs": [input], "params": {}});
    let (status, first) = s.post("/recipes/hls", ALICE, cached.clone()).await;
    assert_eq!(status, 200, "{first}");
    let mut hits = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let (status, again) = s.post("/recipes/hls", ALICE, cached.clone()).await;
        assert_eq!(status, 200, "{again}");
        assert_eq!(again["steps"][0]["cache"], "hit", "{again}");
        hits.push(t.elapsed().as_secs_f64());
    }
    let hit = median(hits);
    line(
        "hls recipe repeated (cache hit)",
        format!("{:.0} ms", hit * 1000.0),
        format!("{:.2} s run", a),
        a / hit,
        "a fraction of the run",
    );
}
