//! Real servers the tests point the service at: an HTTPS file server with its own test CA (for
//! URL inputs and probes of URLs), and a canary that counts every connection it receives.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use crate::support::temp_dir;

#[derive(Clone)]
pub enum Route {
    Body(Vec<u8>),
    Redirect(String),
    Status(u16),
    /// A body of `total` bytes announced in full, then sent one byte every `every_ms`.
    Drip {
        total: usize,
        every_ms: u64,
    },
}

pub struct HttpsServer {
    pub port: u16,
    /// PEM of the CA that signed the server's certificate (for `net.extra_ca_file`).
    pub ca_file: PathBuf,
    pub hits: Arc<AtomicUsize>,
}

impl HttpsServer {
    pub async fn start(routes: Vec<(&str, Route)>) -> HttpsServer {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let (acceptor, ca_file) = tls_acceptor();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let hits = Arc::new(AtomicUsize::new(0));
        let routes: Arc<Vec<(String, Route)>> = Arc::new(
            routes
                .into_iter()
                .map(|(p, r)| (p.to_string(), r))
                .collect(),
        );
        let counter = hits.clone();
        tokio::spawn(async move {
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    break;
                };
                let acceptor = acceptor.clone();
                let routes = routes.clone();
                let counter = counter.clone();
                tokio::spawn(async move {
                    let Ok(mut tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let Some(path) = read_request_path(&mut tls).await else {
                        return;
                    };
                    counter.fetch_add(1, Ordering::SeqCst);
                    let route = routes
                        .iter()
                        .find(|(p, _)| *p == path)
                        .map(|(_, r)| r.clone());
                    let _ = respond(&mut tls, route).await;
                });
            }
        });
        HttpsServer {
            port,
            ca_file,
            hits,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("https://localhost:{}{path}", self.port)
    }

    /// The TOML that makes the service trust this server's CA.
    pub fn trust(&self) -> String {
        format!("extra_ca_file = \"{}\"\n", self.ca_file.display())
    }
}

async fn read_request_path<S: AsyncReadExt + Unpin>(s: &mut S) -> Option<String> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = s.read(&mut chunk).await.ok()?;
        if n == 0 || buf.len() > 65536 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let head = String::from_utf8_lossy(&buf);
    head.lines()
        .next()?
        .split_whitespace()
        .nth(1)
        .map(str::to_string)
}

async fn respond<S: AsyncWriteExt + Unpin>(s: &mut S, route: Option<Route>) -> std::io::Result<()> {
    let head = match &route {
        Some(Route::Body(b)) => format!(
            "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            b.len()
        ),
        Some(Route::Redirect(to)) => format!(
            "HTTP/1.1 302 Found\r\nlocation: {to}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
        ),
        Some(Route::Status(code)) => {
            format!("HTTP/1.1 {code} X\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
        }
        Some(Route::Drip { total, .. }) => {
            format!("HTTP/1.1 200 OK\r\ncontent-length: {total}\r\nconnection: close\r\n\r\n")
        }
        None => {
            "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".to_string()
        }
    };
    s.write_all(head.as_bytes()).await?;
    match route {
        Some(Route::Body(b)) => s.write_all(&b).await?,
        Some(Route::Drip { total, every_ms }) => {
            for _ in 0..total {
                s.write_all(b"x").await?;
                s.flush().await?;
                tokio::time::sleep(std::time::Duration::from_millis(every_ms)).await;
            }
        }
        _ => {}
    }
    s.shutdown().await
}

/// A plain TCP listener that must never be reached: it counts connections.
pub struct Canary {
    pub port: u16,
    pub hits: Arc<AtomicUsize>,
}

impl Canary {
    pub async fn start() -> Canary {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let hits = Arc::new(AtomicUsize::new(0));
        let counter = hits.clone();
        tokio::spawn(async move {
            while let Ok((mut s, _)) = listener.accept().await {
                counter.fetch_add(1, Ordering::SeqCst);
                let _ = s
                    .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")
                    .await;
            }
        });
        Canary { port, hits }
    }

    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

/// One request a `Receiver` got.
#[derive(Debug, Clone)]
pub struct Received {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

/// An HTTPS server that records every request and answers with scripted statuses (the last
/// one repeats): a webhook receiver.
pub struct Receiver {
    pub port: u16,
    pub ca_file: PathBuf,
    pub got: Arc<std::sync::Mutex<Vec<Received>>>,
}

impl Receiver {
    pub async fn start(statuses: Vec<u16>) -> Receiver {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let (acceptor, ca_file) = tls_acceptor();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let got = Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = got.clone();
        let statuses = Arc::new(statuses);
        tokio::spawn(async move {
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    break;
                };
                let (acceptor, log, statuses) = (acceptor.clone(), log.clone(), statuses.clone());
                tokio::spawn(async move {
                    let Ok(mut tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let Some(req) = read_request(&mut tls).await else {
                        return;
                    };
                    let n = {
                        let mut log = log.lock().unwrap();
                        log.push(req);
                        log.len()
                    };
                    let status = statuses
                        .get(n - 1)
                        .or(statuses.last())
                        .copied()
                        .unwrap_or(200);
                    let head = format!(
                        "HTTP/1.1 {status} X\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                    );
                    let _ = tls.write_all(head.as_bytes()).await;
                    let _ = tls.shutdown().await;
                });
            }
        });
        Receiver { port, ca_file, got }
    }

    pub fn url(&self, path: &str) -> String {
        format!("https://localhost:{}{path}", self.port)
    }

    pub fn requests(&self) -> Vec<Received> {
        self.got.lock().unwrap().clone()
    }
}

fn tls_acceptor() -> (tokio_rustls::TlsAcceptor, PathBuf) {
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let ca = rcgen::CertifiedIssuer::self_signed(ca_params, rcgen::KeyPair::generate().unwrap())
        .unwrap();
    let leaf_params =
        rcgen::CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])
            .unwrap();
    let leaf_key = rcgen::KeyPair::generate().unwrap();
    let leaf = leaf_params.signed_by(&leaf_key, &ca).unwrap();
    let ca_file = temp_dir("ca").join("ca.pem");
    std::fs::write(&ca_file, ca.pem()).unwrap();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(leaf_key.serialize_der().into());
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(vec![leaf.der().clone()], key)
    .unwrap();
    (tokio_rustls::TlsAcceptor::from(Arc::new(config)), ca_file)
}

async fn read_request<S: AsyncReadExt + Unpin>(s: &mut S) -> Option<Received> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
        let n = s.read(&mut chunk).await.ok()?;
        if n == 0 || buf.len() > 1 << 20 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.lines();
    let path = lines.next()?.split_whitespace().nth(1)?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| {
            l.split_once(':')
                .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        })
        .collect();
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end..].to_vec();
    while body.len() < len {
        let n = s.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some(Received {
        path,
        headers,
        body,
    })
}

/// A child process serving on a port, killed (and its data removed) when dropped.
pub struct ChildServer {
    pub port: u16,
    pub dir: PathBuf,
    child: std::process::Child,
}

impl ChildServer {
    /// Starts `cmd` (which must listen on `port`) and waits until it accepts connections.
    fn start(cmd: std::process::Command, port: u16, dir: PathBuf, what: &str) -> ChildServer {
        let child = Self::spawn(cmd, port, &dir, what);
        ChildServer { port, dir, child }
    }

    fn spawn(
        mut cmd: std::process::Command,
        port: u16,
        dir: &Path,
        what: &str,
    ) -> std::process::Child {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("server.log"))
            .unwrap();
        let mut child = cmd
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("starting {what}: {e}"));
        let log = || std::fs::read_to_string(dir.join("server.log")).unwrap_or_default();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = child.try_wait() {
                panic!("{what} exited with {status}: {}", log());
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{what} not listening: {}",
                log()
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        child
    }

    /// Kills the process, keeping its data for `restart`.
    pub fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Starts `cmd` again on the same port and data.
    fn restart(&mut self, cmd: std::process::Command, what: &str) {
        self.child = Self::spawn(cmd, self.port, &self.dir, what);
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default()
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for ChildServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// s3s-fs: an S3-compatible server on the local disk that checks SigV4 signatures (installed
/// once per machine by `tests/servers/install-s3s.sh`, which `make test` runs).
pub struct S3Server {
    pub server: ChildServer,
    pub bucket: String,
    bin: PathBuf,
}

pub const S3_KEY_ID: &str = "mediaforge-test";
pub const S3_SECRET: &str = "mediaforge-test-secret";

impl S3Server {
    pub fn start() -> S3Server {
        let bin = std::env::var_os("MEDIAFORGE_TEST_S3S")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                let home = std::env::var_os("HOME").expect("HOME");
                PathBuf::from(home).join(".cache/mediaforge/bin/s3s-fs-0.14.1")
            });
        assert!(
            bin.exists(),
            "{} is missing: run `make test-servers`",
            bin.display()
        );
        let dir = temp_dir("s3");
        let root = dir.join("root");
        let bucket = "media".to_string();
        // s3s-fs serves each folder under its root as a bucket.
        std::fs::create_dir_all(root.join(&bucket)).unwrap();
        let port = free_port();
        let cmd = Self::command(&bin, port, &dir);
        S3Server {
            server: ChildServer::start(cmd, port, dir, "s3s-fs"),
            bucket,
            bin,
        }
    }

    fn command(bin: &Path, port: u16, dir: &Path) -> std::process::Command {
        let mut cmd = std::process::Command::new(bin);
        cmd.args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--access-key", S3_KEY_ID, "--secret-key", S3_SECRET])
            .arg(dir.join("root"));
        cmd
    }

    /// Stops the server (the bucket's objects stay for `restart`).
    pub fn stop(&mut self) {
        self.server.stop();
    }

    /// Serves the same bucket on the same port again.
    pub fn restart(&mut self) {
        let cmd = Self::command(&self.bin, self.server.port, &self.server.dir);
        self.server.restart(cmd, "s3s-fs");
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.server.port)
    }

    /// The objects in the bucket (s3s-fs keeps them as files under the bucket's folder).
    pub fn objects(&self) -> Vec<String> {
        fn walk(dir: &std::path::Path, base: &std::path::Path, out: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, base, out);
                } else {
                    let rel = path
                        .strip_prefix(base)
                        .unwrap()
                        .to_string_lossy()
                        .to_string();
                    // s3s-fs keeps upload bookkeeping in hidden files.
                    if !rel.split('/').any(|part| part.starts_with('.')) {
                        out.push(rel);
                    }
                }
            }
        }
        let base = self.server.dir.join("root").join(&self.bucket);
        let mut out = Vec::new();
        walk(&base, &base, &mut out);
        out.sort();
        out
    }

    /// The service's environment for this bucket.
    pub fn env(&self) -> Vec<(String, String)> {
        [
            ("MEDIAFORGE__STORAGE__BACKEND", "s3".to_string()),
            ("MEDIAFORGE__STORAGE__S3__BUCKET", self.bucket.clone()),
            ("MEDIAFORGE__STORAGE__S3__ENDPOINT", self.endpoint()),
            ("MEDIAFORGE__STORAGE__S3__REGION", "us-east-1".to_string()),
            (
                "MEDIAFORGE__STORAGE__S3__FORCE_PATH_STYLE",
                "true".to_string(),
            ),
            // Credentials from the standard AWS environment, as operators often pass them.
            ("AWS_ACCESS_KEY_ID", S3_KEY_ID.to_string()),
            ("AWS_SECRET_ACCESS_KEY", S3_SECRET.to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

/// The real SurrealDB server (`tests/surreal-server`, built with the workspace), in memory or on
/// disk.
pub struct SurrealServer {
    pub server: ChildServer,
}

impl SurrealServer {
    pub fn start() -> SurrealServer {
        Self::start_on(free_port())
    }

    pub fn start_on(port: u16) -> SurrealServer {
        Self::start_storing(port, "memory")
    }

    /// On disk (SurrealKV in `data`), so that it can be stopped and started again with its data.
    pub fn start_on_disk(port: u16, data: &Path) -> SurrealServer {
        Self::start_storing(port, &format!("surrealkv://{}", data.display()))
    }

    fn start_storing(port: u16, storage: &str) -> SurrealServer {
        // target/debug/deps/api-… → target/debug/surreal, unless a benchmark names another build.
        let exe = std::env::current_exe().unwrap();
        let bin = std::env::var_os("MEDIAFORGE_TEST_SURREAL")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| exe.parent().unwrap().parent().unwrap().join("surreal"));
        assert!(
            bin.exists(),
            "{} is missing: run `cargo build --workspace --bins`",
            bin.display()
        );
        let dir = temp_dir("surreal");
        let mut cmd = std::process::Command::new(bin);
        cmd.args(["start", "--no-banner", "--log", "warn"])
            .args(["--username", "root", "--password", "root"])
            .args(["--bind", &format!("127.0.0.1:{port}")])
            .arg(storage)
            .current_dir(&dir);
        SurrealServer {
            server: ChildServer::start(cmd, port, dir, "surreal"),
        }
    }

    /// The service's environment for this database.
    pub fn env(&self) -> Vec<(String, String)> {
        [
            (
                "MEDIAFORGE__DATABASE__URL",
                format!("ws://127.0.0.1:{}", self.server.port),
            ),
            ("MEDIAFORGE__DATABASE__USERNAME", "root".to_string()),
            ("MEDIAFORGE__DATABASE__PASSWORD", "root".to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}
