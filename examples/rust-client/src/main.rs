//! A small Mediaforge client: upload a video, make a thumbnail and a small mp4 from it with
//! `POST /ffmpeg/process`, download the outputs, and delete everything it made.
//!
//! ```sh
//! MEDIAFORGE_URL=http://127.0.0.1:8080 MEDIAFORGE_KEY=mf_demo_change_me \
//!     cargo run -p mediaforge-client-example -- clip.mp4 [OUT_DIR]
//! ```

use std::error::Error;
use std::path::{Path, PathBuf};
use std::time::Duration;

use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

type Result<T> = std::result::Result<T, Box<dyn Error + Send + Sync>>;

/// The API: a base URL, a key, and one HTTP client for every call.
struct Mediaforge {
    http: Client,
    base: String,
    key: String,
}

impl Mediaforge {
    fn from_env() -> Result<Mediaforge> {
        let base =
            std::env::var("MEDIAFORGE_URL").unwrap_or_else(|_| "http://127.0.0.1:8080".into());
        let key = std::env::var("MEDIAFORGE_KEY").unwrap_or_else(|_| "mf_demo_change_me".into());
        let http = Client::builder()
            .connect_timeout(Duration::from_secs(10))
            // A synchronous task answers when ffmpeg is done; leave it time.
            .timeout(Duration::from_secs(900))
            .build()?;
        Ok(Mediaforge {
            http,
            base: base.trim_end_matches('/').to_string(),
            key,
        })
    }

    /// Calls `path` with the key and returns the JSON answer, or an error carrying the
    /// server's `error` message when the status is not a success or `ok` is not true.
    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> Result<Value> {
        let mut request = self
            .http
            .request(method.clone(), format!("{}{path}", self.base))
            .header("Authorization", format!("Basic {}", self.key));
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await?;
        let status = response.status();
        let text = response.text().await?;
        let answer: Value = serde_json::from_str(&text)
            .map_err(|_| format!("{method} {path}: {status}, not JSON: {text:.300}"))?;
        if !status.is_success() || answer["ok"] != true {
            let error = answer["error"].as_str().unwrap_or("no error message");
            return Err(format!("{method} {path}: {status}: {error}").into());
        }
        Ok(answer)
    }

    async fn get(&self, path: &str) -> Result<Value> {
        self.call(Method::GET, path, None).await
    }

    async fn post(&self, path: &str, body: Value) -> Result<Value> {
        self.call(Method::POST, path, Some(body)).await
    }

    async fn delete(&self, path: &str) -> Result<Value> {
        self.call(Method::DELETE, path, None).await
    }

    /// `POST /file`, then the bytes, streamed from disk, to the presigned upload URL (no key,
    /// but every header the server listed). Returns the `file_path` (`<dir_id>/<file_name>`).
    async fn upload(&self, file: &Path, dir_id: &str) -> Result<String> {
        let name = file
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or("the input's file name is not UTF-8")?;
        let created = self
            .post("/file", json!({ "file_name": name, "dir_id": dir_id }))
            .await?;
        let url = str_at(&created, "/upload/url")?;
        let size = tokio::fs::metadata(file).await?.len();
        let mut put = self
            .http
            .put(url)
            .header("Content-Length", size)
            .body(tokio::fs::File::open(file).await?);
        for (name, value) in created["upload"]["headers"]
            .as_object()
            .into_iter()
            .flatten()
        {
            put = put.header(name, value.as_str().unwrap_or_default());
        }
        let response = put.send().await?;
        let status = response.status();
        let answer: Value = response.json().await.unwrap_or(Value::Null);
        if status != StatusCode::OK || answer["ok"] != true {
            return Err(format!("upload of {name}: {status}: {answer}").into());
        }
        Ok(str_at(&created, "/file/file_path")?.to_string())
    }

    /// GETs a presigned URL (no key) into `dest`, chunk by chunk; returns the bytes written.
    async fn download(&self, url: &str, dest: &Path) -> Result<u64> {
        let mut response = self.http.get(url).send().await?.error_for_status()?;
        let mut out = tokio::fs::File::create(dest).await?;
        let mut written = 0u64;
        while let Some(chunk) = response.chunk().await? {
            out.write_all(&chunk).await?;
            written += chunk.len() as u64;
        }
        out.flush().await?;
        Ok(written)
    }
}

fn str_at<'a>(v: &'a Value, pointer: &str) -> Result<&'a str> {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("answer lacks {pointer}: {v}").into())
}

/// Percent-encodes a file name for a path segment.
fn encode(name: &str) -> String {
    name.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

async fn run(input: PathBuf, out_dir: PathBuf) -> Result<()> {
    let api = Mediaforge::from_env()?;
    println!("server: {}   input: {}", api.base, input.display());

    println!("\n==> POST /directory");
    let directory = api.post("/directory", json!({ "ttl": 3600 })).await?;
    let dir = str_at(&directory, "/directory/id")?.to_string();
    println!("    directory {dir}, ttl {}", directory["directory"]["ttl"]);

    println!("\n==> POST /file, then PUT the bytes");
    let input_path = api.upload(&input, &dir).await?;
    let info = api
        .get(&format!("/file/{dir}/{}", encode(file_name(&input_path))))
        .await?;
    println!("    uploaded {input_path}: {}", info["file_info"]);

    println!("\n==> POST /ffmpeg/process: a thumbnail and a small mp4");
    let stem = input
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("input");
    let task = json!({
        "task": {
            "inputs": [{ "file_path": input_path }],
            "outputs": [
                { "file": format!("{stem}_thumb.jpg"),
                  "options": ["-vf", "thumbnail,scale=320:-2", "-frames:v", "1", "-q:v", "4"] },
                { "file": format!("{stem}_small.mp4"),
                  "options": ["-vf", "scale=-2:240", "-c:v", "libx264", "-preset", "veryfast",
                              "-crf", "30", "-c:a", "aac", "-b:a", "64k", "-movflags", "+faststart"] },
            ],
        }
    });
    let processed = api.post("/ffmpeg/process", task).await?;
    println!("    usage: {}", processed["usage"]);

    println!("\n==> download the outputs into {}", out_dir.display());
    tokio::fs::create_dir_all(&out_dir).await?;
    let mut outputs = Vec::new();
    for output in processed["result"].as_array().ok_or("no result list")? {
        let name = str_at(output, "/file_name")?;
        let dest = out_dir.join(name);
        let written = api
            .download(str_at(output, "/download_url")?, &dest)
            .await?;
        let expected = output["size_bytes"].as_u64();
        if Some(written) != expected {
            return Err(format!("{name}: got {written} bytes, expected {expected:?}").into());
        }
        println!("    saved {} ({written} bytes)", dest.display());
        outputs.push(name.to_string());
    }

    println!("\n==> DELETE the input and the outputs");
    for name in std::iter::once(file_name(&input_path).to_string()).chain(outputs) {
        let deleted = api
            .delete(&format!("/file/{dir}/{}", encode(&name)))
            .await?;
        println!("    deleted {}", deleted["deleted"]["file_path"]);
    }
    let listing = api.get(&format!("/directory/{dir}")).await?;
    println!("    directory {dir} now holds {}", listing["files"]);
    println!("\ndone");
    Ok(())
}

fn file_name(file_path: &str) -> &str {
    file_path
        .split_once('/')
        .map_or(file_path, |(_, name)| name)
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    // reqwest is built with `rustls-no-provider`: choose the crypto provider before any request.
    let _ = rustls::crypto::ring::default_provider().install_default();

    let mut args = std::env::args_os().skip(1);
    let Some(input) = args.next().map(PathBuf::from) else {
        eprintln!("usage: mediaforge-client-example VIDEO_FILE [OUT_DIR]");
        eprintln!("environment: MEDIAFORGE_URL (default http://127.0.0.1:8080), MEDIAFORGE_KEY");
        return std::process::ExitCode::from(2);
    };
    let out_dir = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("mediaforge-output"));
    match run(input, out_dir).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
