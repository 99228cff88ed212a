//! Test support: start the real `mediaforge` binary on a free port with its own data directory
//! and configuration, talk HTTP to it, and make test media with ffmpeg's lavfi sources.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::Value;

pub const ALICE: &str = "key_alice_123456";
pub const BOB: &str = "key_bob_1234567";
pub const PRO: &str = "key_pro_1234567";
/// On a plan with a tiny monthly quota (about 200 KB).
pub const DAVE: &str = "key_dave_123456";
/// `server.operator_token` of every test server: `/metrics` and `/readyz` detail need it.
pub const OPERATOR_TOKEN: &str = "operator_token_test_0123456789";

/// Where `make plugins` put the components (default plugins and test fixtures).
pub fn wasm_dir() -> PathBuf {
    match std::env::var_os("MEDIAFORGE_TEST_WASM") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/wasm32-wasip2/release"),
    }
}

pub fn wasm(name: &str) -> PathBuf {
    let path = wasm_dir().join(format!("{name}.wasm"));
    assert!(
        path.exists(),
        "{} is missing: run `make plugins`",
        path.display()
    );
    path
}

fn scratch_root() -> PathBuf {
    let root = std::env::temp_dir().join("mediaforge-tests");
    std::fs::create_dir_all(&root).unwrap();
    root
}

pub fn temp_dir(tag: &str) -> PathBuf {
    let dir = scratch_root().join(format!("{tag}-{}-{}", std::process::id(), rand_suffix()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn rand_suffix() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("{}{}", N.fetch_add(1, Ordering::Relaxed), nanos % 100_000)
}

pub struct Options {
    /// TOML appended to the base configuration (later keys of a section win only if the
    /// section is not repeated; use `sections` for whole sections).
    pub extra: String,
    /// `None`: `mem://`. `Some`: an on-disk database under the data directory.
    pub disk_db: bool,
    /// Reuse this directory (restarts).
    pub dir: Option<PathBuf>,
    /// Environment overrides.
    pub env: Vec<(String, String)>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            extra: String::new(),
            disk_db: false,
            dir: None,
            env: Vec::new(),
        }
    }
}

pub struct Server {
    pub base: String,
    pub dir: PathBuf,
    child: Option<Child>,
    client: reqwest::Client,
    keep: bool,
}

impl Options {
    pub fn env(pairs: &[(&str, &str)]) -> Options {
        Options {
            env: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Default::default()
        }
    }
}

impl Server {
    pub async fn start() -> Server {
        Self::start_with(Options::default()).await
    }

    pub async fn start_with(opts: Options) -> Server {
        let keep = opts.dir.is_some();
        let dir = opts.dir.clone().unwrap_or_else(|| temp_dir("srv"));
        match Self::try_start(&dir, &opts) {
            Ok((child, base)) => Server {
                base,
                dir,
                child: Some(child),
                client: client(),
                keep,
            },
            Err(e) => panic!("server did not start: {e}\n--- log ---\n{}", read_log(&dir)),
        }
    }

    /// Starts the binary and returns the error text when it exits instead of listening.
    pub fn try_start(dir: &Path, opts: &Options) -> Result<(Child, String), String> {
        let config = dir.join("mediaforge.toml");
        std::fs::write(&config, config_text(dir, opts)).unwrap();
        let log = std::fs::File::create(dir.join("server.log")).unwrap();
        // A benchmark may run another build of the server (`make bench-split`: the release one).
        let bin = std::env::var_os("MEDIAFORGE_TEST_BIN")
            .unwrap_or_else(|| env!("CARGO_BIN_EXE_mediaforge").into());
        let mut cmd = Command::new(bin);
        cmd.args(["serve", "--config"])
            .arg(&config)
            .current_dir(dir);
        cmd.env("MEDIAFORGE_LOG", "info")
            .stdout(Stdio::piped())
            .stderr(log);
        for (k, v) in &opts.env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(addr) = line.strip_prefix("mediaforge listening on ") {
                    let _ = tx.send(addr.to_string());
                }
            }
        });
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            if let Ok(base) = rx.recv_timeout(Duration::from_millis(50)) {
                return Ok((child, base));
            }
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!("exited with {status}: {}", read_log(dir)));
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                return Err("no 'listening' line within 120 s".into());
            }
        }
    }

    pub fn log(&self) -> String {
        read_log(&self.dir)
    }

    /// Kills the server at once (SIGKILL), keeping its data directory.
    pub fn kill(&mut self) -> PathBuf {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        self.keep = true;
        self.dir.clone()
    }

    pub fn pid(&self) -> u32 {
        self.child.as_ref().unwrap().id()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub async fn call(
        &self,
        method: &str,
        path: &str,
        key: Option<&str>,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let method: reqwest::Method = method.parse().unwrap();
        let mut req = self.client.request(method, self.url(path));
        if let Some(key) = key {
            req = req.header("Authorization", format!("Basic {key}"));
        }
        if let Some(body) = body {
            req = req.json(&body);
        }
        let res = req.send().await.unwrap();
        let status = res.status();
        let text = res.text().await.unwrap();
        let json =
            serde_json::from_str(&text).unwrap_or_else(|_| panic!("{status} not JSON: {text}"));
        (status, json)
    }

    pub async fn get(&self, path: &str, key: &str) -> (StatusCode, Value) {
        self.call("GET", path, Some(key), None).await
    }

    pub async fn post(&self, path: &str, key: &str, body: Value) -> (StatusCode, Value) {
        self.call("POST", path, Some(key), Some(body)).await
    }

    /// POST /ffmpeg/process/async with an `Idempotency-Key`.
    pub async fn submit_idempotent(
        &self,
        key: &str,
        idempotency_key: &str,
        body: &Value,
    ) -> (StatusCode, Value) {
        let res = self
            .client
            .post(self.url("/ffmpeg/process/async"))
            .header("Authorization", format!("Basic {key}"))
            .header("Idempotency-Key", idempotency_key)
            .json(body)
            .send()
            .await
            .unwrap();
        let status = res.status();
        (status, res.json().await.unwrap())
    }

    pub async fn delete(&self, path: &str, key: &str) -> (StatusCode, Value) {
        self.call("DELETE", path, Some(key), None).await
    }

    pub async fn raw_post(&self, path: &str, key: &str, body: &'static str) -> (StatusCode, Value) {
        let res = self
            .client
            .post(self.url(path))
            .header("Authorization", format!("Basic {key}"))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        let status = res.status();
        (status, res.json().await.unwrap())
    }

    pub async fn mkdir(&self, key: &str) -> String {
        let (status, body) = self.post("/directory", key, serde_json::json!({})).await;
        assert_eq!(status, 200, "{body}");
        body["directory"]["id"].as_str().unwrap().to_string()
    }

    /// The names of the files in a directory, as GET /directory/{id} lists them.
    pub async fn file_names(&self, key: &str, dir: &str) -> Vec<String> {
        let (status, listing) = self.get(&format!("/directory/{dir}"), key).await;
        assert_eq!(status, 200, "{listing}");
        listing["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["file_name"].as_str().unwrap().to_string())
            .collect()
    }

    /// POST /file then PUT the bytes; returns the file path.
    pub async fn upload(&self, key: &str, dir: Option<&str>, name: &str, bytes: Vec<u8>) -> String {
        let mut body = serde_json::json!({ "file_name": name });
        if let Some(dir) = dir {
            body["dir_id"] = dir.into();
        }
        let (status, created) = self.post("/file", key, body).await;
        assert_eq!(status, 200, "{created}");
        let url = created["upload"]["url"].as_str().unwrap();
        let mut put = self.client.put(url).body(bytes);
        // Headers the store signed into the URL (S3) must be sent as given.
        for (name, value) in created["upload"]["headers"]
            .as_object()
            .into_iter()
            .flatten()
        {
            put = put.header(name, value.as_str().unwrap());
        }
        let res = put.send().await.unwrap();
        assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
        created["file"]["file_path"].as_str().unwrap().to_string()
    }

    pub async fn upload_file(&self, key: &str, dir: Option<&str>, path: &Path) -> String {
        let name = path.file_name().unwrap().to_str().unwrap();
        self.upload(key, dir, name, std::fs::read(path).unwrap())
            .await
    }

    /// GET /file/download/... and then the bytes behind the presigned URL.
    pub async fn download(&self, key: &str, file_path: &str) -> Vec<u8> {
        let (status, body) = self.get(&format!("/file/download/{file_path}"), key).await;
        assert_eq!(status, 200, "{body}");
        let url = body["download"]["url"].as_str().unwrap();
        let res = self.client.get(url).send().await.unwrap();
        assert_eq!(res.status(), 200);
        res.bytes().await.unwrap().to_vec()
    }

    /// POST /ffmpeg/process with `task`.
    pub async fn process(&self, key: &str, task: Value) -> (StatusCode, Value) {
        self.post("/ffmpeg/process", key, serde_json::json!({ "task": task }))
            .await
    }

    /// Downloads every output of a result and probes it.
    pub async fn fetch_outputs(&self, body: &Value) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        for r in body["result"].as_array().expect("result list") {
            let url = r["download_url"].as_str().unwrap();
            let bytes = self
                .client
                .get(url)
                .send()
                .await
                .unwrap()
                .bytes()
                .await
                .unwrap()
                .to_vec();
            assert_eq!(bytes.len() as u64, r["size_bytes"].as_u64().unwrap());
            out.push((r["file_name"].as_str().unwrap().to_string(), bytes));
        }
        out
    }

    pub fn http(&self) -> &reqwest::Client {
        &self.client
    }

    /// The Prometheus text of `/metrics`, asked with the operator token.
    pub async fn metrics(&self) -> String {
        let res = self.operator_get("/metrics").await;
        assert_eq!(res.status(), 200);
        res.text().await.unwrap()
    }

    /// `/readyz` with the operator token (status and detail).
    pub async fn readyz(&self) -> (StatusCode, Value) {
        let res = self.operator_get("/readyz").await;
        (res.status(), res.json().await.unwrap())
    }

    async fn operator_get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(self.url(path))
            .bearer_auth(OPERATOR_TOKEN)
            .send()
            .await
            .unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        if std::thread::panicking() {
            eprintln!(
                "--- server log ({}) ---\n{}",
                self.dir.display(),
                tail(&self.log(), 6000)
            );
        } else if !self.keep {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

fn tail(s: &str, n: usize) -> &str {
    let start = s.len().saturating_sub(n);
    let start = (start..s.len())
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(s.len());
    &s[start..]
}

fn read_log(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("server.log")).unwrap_or_default()
}

pub fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(300))
        .build()
        .unwrap()
}

fn config_text(dir: &Path, opts: &Options) -> String {
    let d = dir.display();
    let db = if opts.disk_db {
        format!("surrealkv://{d}/db")
    } else {
        "mem://".into()
    };
    let cache = scratch_root().join("plugin-cache");
    format!(
        r#"
[server]
listen = "127.0.0.1:0"
public_url = ""
data_dir = "{d}/data"
operator_token = "{OPERATOR_TOKEN}"

[database]
url = "{db}"

[storage]
path = "{d}/files"
sweep_interval_s = 1

[plans.free]
max_file_size_mb = 1
monthly_quota_gb = 1

[plans.pro]
max_file_size_mb = 200
monthly_quota_gb = 100

[plans.tiny]
max_file_size_mb = 1
monthly_quota_gb = 0.0002

[[accounts]]
name = "dave"
plan = "tiny"
api_key = "{DAVE}"

[[accounts]]
name = "alice"
plan = "pro"
api_key = "{ALICE}"

[[accounts]]
name = "bob"
plan = "free"
api_key = "{BOB}"

[[accounts]]
name = "carol"
plan = "pro"
api_key = "{PRO}"

[net]
allow_private_addresses = true

[plugins]
default_dir = "{wasm}"
cache_dir = "{cache}"
{extra}
"#,
        wasm = wasm_dir().display(),
        cache = cache.display(),
        extra = opts.extra,
    )
}

/// The argv of a dry run (`POST /ffmpeg/validate`).
pub fn command_of(body: &Value) -> Vec<&str> {
    body["command"]
        .as_array()
        .expect("a command")
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect()
}

/// Test media made by ffmpeg's lavfi sources, once per test run.
pub struct Media {
    pub dir: PathBuf,
}

impl Media {
    pub fn clip(&self) -> PathBuf {
        self.dir.join("clip.mp4")
    }
    pub fn short(&self) -> PathBuf {
        self.dir.join("short.mp4")
    }
    pub fn tone(&self) -> PathBuf {
        self.dir.join("tone.wav")
    }
    pub fn image(&self) -> PathBuf {
        self.dir.join("image.png")
    }
}

/// Runs ffmpeg with `args` to make `dir/out`.
pub fn make_media(dir: &Path, args: &[&str], out: &str) -> PathBuf {
    let status = Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-y"])
        .args(args)
        .arg(dir.join(out))
        .status()
        .expect("ffmpeg must be installed (make setup)");
    assert!(status.success(), "making {out}");
    dir.join(out)
}

pub fn media() -> &'static Media {
    static MEDIA: OnceLock<Media> = OnceLock::new();
    MEDIA.get_or_init(|| {
        let dir = scratch_root().join(format!("media-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let make = |args: &[&str], out: &str| make_media(&dir, args, out);
        make(
            &[
                "-f",
                "lavfi",
                "-i",
                "testsrc2=size=1280x720:rate=30:duration=10",
                "-f",
                "lavfi",
                "-i",
                "sine=frequency=440:sample_rate=48000:duration=10",
                "-ac",
                "2",
                "-c:v",
                "libx264",
                "-preset",
                "ultrafast",
                "-pix_fmt",
                "yuv420p",
                "-c:a",
                "aac",
                "-shortest",
            ],
            "clip.mp4",
        );
        make(
            &[
                "-f",
                "lavfi",
                "-i",
                "testsrc=size=320x240:rate=25:duration=2",
                "-f",
                "lavfi",
                "-i",
                "sine=frequency=330:duration=2",
                "-c:v",
                "libx264",
                "-preset",
                "ultrafast",
                "-pix_fmt",
                "yuv420p",
                "-c:a",
                "aac",
                "-shortest",
            ],
            "short.mp4",
        );
        make(
            &[
                "-f",
                "lavfi",
                "-i",
                "sine=frequency=220:sample_rate=44100:duration=5",
                "-ac",
                "1",
            ],
            "tone.wav",
        );
        make(
            &[
                "-f",
                "lavfi",
                "-i",
                "testsrc=size=1920x1080:duration=1",
                "-frames:v",
                "1",
            ],
            "image.png",
        );
        Media { dir }
    })
}

/// ffprobe's JSON for a file (format and streams).
pub fn probe(path: &Path) -> Value {
    ffprobe_json(path, &["-show_format", "-show_streams"])
}

/// What `ffprobe -print_format json <args> <path>` prints.
pub fn ffprobe_json(path: &Path, args: &[&str]) -> Value {
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-print_format", "json"])
        .args(args)
        .arg(path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ffprobe {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// ffprobe's JSON for bytes (written to a temp file first).
pub fn probe_bytes(bytes: &[u8], ext: &str) -> Value {
    let path = temp_dir("probe").join(format!("f.{ext}"));
    std::fs::write(&path, bytes).unwrap();
    let v = probe(&path);
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
    v
}

pub fn stream<'a>(probe: &'a Value, kind: &str) -> Option<&'a Value> {
    probe["streams"]
        .as_array()?
        .iter()
        .find(|s| s["codec_type"] == kind)
}

pub fn duration(probe: &Value) -> f64 {
    probe["format"]["duration"]
        .as_str()
        .and_then(|d| d.parse().ok())
        .unwrap_or(0.0)
}

/// A process's own CPU seconds so far (user and system, without its children's), from
/// `/proc/PID/stat`; 0 when it is gone.
pub fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // After the parenthesised command name: state, then (from index 11) utime and stime.
    let f: Vec<f64> = stat
        .rsplit_once(") ")
        .map(|(_, rest)| rest.split(' ').map(|x| x.parse().unwrap_or(0.0)).collect())
        .unwrap_or_default();
    let at = |i: usize| f.get(i).copied().unwrap_or(0.0);
    // USER_HZ is 100 on every Linux the tests run on (sysconf(_SC_CLK_TCK)).
    (at(11) + at(12)) / 100.0
}
