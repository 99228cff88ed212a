//! Prometheus metrics at `/metrics`: requests by route and status, ffmpeg/ffprobe run
//! durations, plugin call durations and failures, webhook attempts, and (read from the database at scrape
//! time, so every instance reports the shared queue) job counts by status and the age of the
//! oldest pending job; and the background tasks alive now, by kind (`background`), so an idle
//! instance can be seen to run only its fixed loops. A small registry of our own: the figures
//! are few and fixed.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::{LazyLock, Mutex};
use std::time::Duration;

const BUCKETS: &[f64] = &[
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0,
];

#[derive(Default)]
struct Histogram {
    counts: Vec<u64>,
    sum: f64,
    count: u64,
}

impl Histogram {
    fn observe(&mut self, v: f64) {
        if self.counts.is_empty() {
            self.counts = vec![0; BUCKETS.len()];
        }
        for (i, b) in BUCKETS.iter().enumerate() {
            if v <= *b {
                self.counts[i] += 1;
            }
        }
        self.sum += v;
        self.count += 1;
    }
}

#[derive(Default)]
struct Registry {
    requests: BTreeMap<(String, String, u16), u64>,
    histograms: BTreeMap<(&'static str, String), Histogram>,
    webhooks: BTreeMap<String, u64>,
    plugin_failures: BTreeMap<(&'static str, &'static str), u64>,
    counters: BTreeMap<&'static str, u64>,
    background: BTreeMap<&'static str, i64>,
}

static REGISTRY: LazyLock<Mutex<Registry>> = LazyLock::new(Default::default);

pub fn request(method: &str, route: &str, status: u16) {
    let mut r = REGISTRY.lock().expect("metrics lock");
    *r.requests
        .entry((method.to_string(), route.to_string(), status))
        .or_default() += 1;
}

/// `name` is one of the histogram families below; `label` its label value.
pub fn observe(name: &'static str, label: &str, took: Duration) {
    let mut r = REGISTRY.lock().expect("metrics lock");
    r.histograms
        .entry((name, label.to_string()))
        .or_default()
        .observe(took.as_secs_f64());
}

pub fn webhook_attempt(outcome: &str) {
    let mut r = REGISTRY.lock().expect("metrics lock");
    *r.webhooks.entry(outcome.to_string()).or_default() += 1;
}

/// A failed plugin call: the world's name and the kind of failure (`plugins::Failure`).
pub fn plugin_failure(plugin: &'static str, kind: &'static str) {
    let mut r = REGISTRY.lock().expect("metrics lock");
    *r.plugin_failures.entry((plugin, kind)).or_default() += 1;
}

/// Adds one to a counter family below.
pub fn count(name: &'static str) {
    let mut r = REGISTRY.lock().expect("metrics lock");
    *r.counters.entry(name).or_default() += 1;
}

/// A background task alive: counted in `mediaforge_background_tasks{kind}` until dropped.
/// Held by every task that outlives the request or job that started it (and by the fixed
/// loops), so one that outlives its reason shows up as a count that does not come down.
#[must_use = "the task is counted while this lives"]
pub struct Background(&'static str);

pub fn background(kind: &'static str) -> Background {
    *REGISTRY
        .lock()
        .expect("metrics lock")
        .background
        .entry(kind)
        .or_default() += 1;
    Background(kind)
}

impl Drop for Background {
    fn drop(&mut self) {
        if let Ok(mut r) = REGISTRY.lock() {
            *r.background.entry(self.0).or_default() -= 1;
        }
    }
}

pub const CACHE_HITS: &str = "mediaforge_cache_hits_total";
pub const CACHE_MISSES: &str = "mediaforge_cache_misses_total";
pub const FFMPEG_RUNS: &str = "mediaforge_ffmpeg_runs_total";
pub const SPLIT_RUNS: &str = "mediaforge_split_runs_total";
pub const SPLIT_PARTS: &str = "mediaforge_split_parts_total";
pub const DB_RETRIES: &str = "mediaforge_db_retries_total";
pub const DB_QUERIES: &str = "mediaforge_db_queries_total";

/// The plain counters, with their help lines.
const COUNTERS: &[(&str, &str)] = &[
    (
        CACHE_HITS,
        "Tasks answered from the result cache (a coalesced wait included).",
    ),
    (CACHE_MISSES, "Tasks that ran ffmpeg for their outputs."),
    (FFMPEG_RUNS, "ffmpeg processes started for tasks."),
    (
        SPLIT_RUNS,
        "Tasks encoded in keyframe segments (split encodes coordinated here).",
    ),
    (
        SPLIT_PARTS,
        "Segments of split encodes this instance started encoding (retries included).",
    ),
    (
        DB_QUERIES,
        "Queries sent to the database (a transaction is one; retries are counted apart).",
    ),
    (
        DB_RETRIES,
        "Database transactions run again after losing a write conflict (each waits a few ms).",
    ),
];

pub const PROCESS_SECONDS: &str = "mediaforge_process_seconds";
pub const PLUGIN_SECONDS: &str = "mediaforge_plugin_call_seconds";

/// The text exposition format, with the queue figures passed in.
pub fn render(
    jobs_by_status: &[(crate::db::JobStatus, u64)],
    oldest_pending_s: Option<f64>,
) -> String {
    let r = REGISTRY.lock().expect("metrics lock");
    let mut out = String::new();
    out.push_str("# HELP mediaforge_http_requests_total HTTP requests by route and status.\n# TYPE mediaforge_http_requests_total counter\n");
    for ((method, route, status), n) in &r.requests {
        let _ = writeln!(
            out,
            "mediaforge_http_requests_total{{method=\"{method}\",route=\"{}\",status=\"{status}\"}} {n}",
            escape(route)
        );
    }
    for (family, label, help) in [
        (
            PROCESS_SECONDS,
            "program",
            "Wall time of ffmpeg and ffprobe runs.",
        ),
        (
            PLUGIN_SECONDS,
            "world",
            "Wall time of plugin calls, instantiation included.",
        ),
    ] {
        let _ = write!(out, "# HELP {family} {help}\n# TYPE {family} histogram\n");
        for ((name, value), h) in r.histograms.iter().filter(|((n, _), _)| *n == family) {
            let _ = name;
            for (i, b) in BUCKETS.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "{family}_bucket{{{label}=\"{value}\",le=\"{b}\"}} {}",
                    h.counts.get(i).copied().unwrap_or(0)
                );
            }
            let _ = writeln!(
                out,
                "{family}_bucket{{{label}=\"{value}\",le=\"+Inf\"}} {}",
                h.count
            );
            let _ = writeln!(out, "{family}_sum{{{label}=\"{value}\"}} {}", h.sum);
            let _ = writeln!(out, "{family}_count{{{label}=\"{value}\"}} {}", h.count);
        }
    }
    out.push_str("# HELP mediaforge_webhook_attempts_total Webhook delivery attempts by outcome.\n# TYPE mediaforge_webhook_attempts_total counter\n");
    for (outcome, n) in &r.webhooks {
        let _ = writeln!(
            out,
            "mediaforge_webhook_attempts_total{{outcome=\"{outcome}\"}} {n}"
        );
    }
    out.push_str("# HELP mediaforge_plugin_failures_total Failed plugin calls by plugin and kind.\n# TYPE mediaforge_plugin_failures_total counter\n");
    for ((plugin, kind), n) in &r.plugin_failures {
        let _ = writeln!(
            out,
            "mediaforge_plugin_failures_total{{plugin=\"{plugin}\",kind=\"{kind}\"}} {n}"
        );
    }
    for (family, help) in COUNTERS {
        let _ = write!(
            out,
            "# HELP {family} {help}\n# TYPE {family} counter\n{family} {}\n",
            r.counters.get(family).copied().unwrap_or(0)
        );
    }
    out.push_str("# HELP mediaforge_background_tasks Background tasks alive on this instance, by kind.\n# TYPE mediaforge_background_tasks gauge\n");
    for (kind, n) in &r.background {
        let _ = writeln!(out, "mediaforge_background_tasks{{kind=\"{kind}\"}} {n}");
    }
    out.push_str("# HELP mediaforge_jobs Jobs in the shared queue by status.\n# TYPE mediaforge_jobs gauge\n");
    for (status, n) in jobs_by_status {
        let _ = writeln!(out, "mediaforge_jobs{{status=\"{}\"}} {n}", status.as_str());
    }
    out.push_str("# HELP mediaforge_oldest_pending_job_seconds Age of the oldest pending job.\n# TYPE mediaforge_oldest_pending_job_seconds gauge\n");
    let _ = writeln!(
        out,
        "mediaforge_oldest_pending_job_seconds {}",
        oldest_pending_s.unwrap_or(0.0)
    );
    out
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}
