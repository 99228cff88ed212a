//! `mediaforge mcp --url URL --key-env VAR`: the stdio transport for desktop clients that only
//! speak it. Each JSON-RPC message read on stdin (one a line) is POSTed to `URL/mcp` with
//! `Authorization: Bearer <the key in $VAR>`; what comes back (a JSON body, or each message of
//! an event stream: progress first, then the response) is written to stdout, one message a
//! line. Requests run concurrently, so a long `process` does not hold up a `ping` or a
//! cancellation. stdout carries only protocol messages; anything else goes to stderr.

use std::sync::{Arc, Mutex};

use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const PROTOCOL_VERSION_META: &str = "io.modelcontextprotocol/protocolVersion";
/// How much of a refusal's body is quoted back in a JSON-RPC error.
const QUOTE_MAX: usize = 500;

struct Bridge {
    client: reqwest::Client,
    endpoint: url::Url,
    authorization: String,
    /// Learnt from the `initialize` result, sent on every later request.
    protocol_version: Mutex<Option<String>>,
    /// When the server keeps sessions (this one does not), its id.
    session_id: Mutex<Option<String>>,
    stdout: tokio::sync::Mutex<tokio::io::Stdout>,
}

/// The endpoint of a server URL: `http://host:8080` → `http://host:8080/mcp` (a URL already
/// ending in `/mcp` is kept).
pub fn endpoint(url: &str) -> anyhow::Result<url::Url> {
    let mut u = url::Url::parse(url).map_err(|e| anyhow::anyhow!("--url {url}: {e}"))?;
    if !matches!(u.scheme(), "http" | "https") {
        anyhow::bail!("--url {url}: must be an http(s) URL");
    }
    let path = u.path().trim_end_matches('/').to_string();
    if !path.ends_with("/mcp") {
        u.set_path(&format!("{path}/mcp"));
    }
    Ok(u)
}

/// Runs until stdin closes and every request in flight has been answered.
pub async fn run(url: &str, key_env: &str) -> anyhow::Result<()> {
    let key = std::env::var(key_env)
        .ok()
        .map(|k| k.trim().to_string())
        .filter(|k| !k.is_empty())
        .ok_or_else(|| anyhow::anyhow!("environment variable {key_env} holds no API key"))?;
    let client = reqwest::Client::builder()
        .tls_backend_preconfigured(crate::net::tls_config("")?)
        .connect_timeout(std::time::Duration::from_secs(10))
        .build()?;
    let bridge = Arc::new(Bridge {
        client,
        endpoint: endpoint(url)?,
        authorization: format!("Bearer {key}"),
        protocol_version: Mutex::new(None),
        session_id: Mutex::new(None),
        stdout: tokio::sync::Mutex::new(tokio::io::stdout()),
    });
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut in_flight = tokio::task::JoinSet::new();
    while let Some(line) = lines.next_line().await? {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let message: Value = match serde_json::from_str(line) {
            Ok(m) => m,
            Err(_) => {
                bridge
                    .write(&json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}}))
                    .await;
                continue;
            }
        };
        // The handshake and notifications in order (what follows may depend on them);
        // requests side by side.
        let is_request = message.get("id").is_some() && message.get("method").is_some();
        let method = message.get("method").and_then(Value::as_str).unwrap_or("");
        if is_request && method != "initialize" {
            let bridge = bridge.clone();
            in_flight.spawn(async move { bridge.forward(message).await });
        } else {
            bridge.forward(message).await;
        }
        while in_flight.try_join_next().is_some() {}
    }
    while in_flight.join_next().await.is_some() {}
    Ok(())
}

impl Bridge {
    async fn write(&self, message: &Value) {
        let mut line = message.to_string();
        line.push('\n');
        let mut out = self.stdout.lock().await;
        if out.write_all(line.as_bytes()).await.is_err() || out.flush().await.is_err() {
            // The client is gone; nothing left to answer to.
            std::process::exit(0);
        }
    }

    /// A JSON-RPC error for the request `id` (nothing for a notification or a response).
    async fn fail(&self, id: Option<&Value>, message: String) {
        if let Some(id) = id {
            self.write(
                &json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32000, "message": message}}),
            )
            .await;
        }
    }

    async fn forward(&self, message: Value) {
        let id = message
            .get("method")
            .and(message.get("id"))
            .filter(|id| !id.is_null())
            .cloned();
        let initialize = message.get("method").and_then(Value::as_str) == Some("initialize");
        let version = message
            .pointer("/params/_meta")
            .and_then(|m| m.get(PROTOCOL_VERSION_META))
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| self.protocol_version.lock().expect("lock").clone());
        let mut request = self
            .client
            .post(self.endpoint.clone())
            .header("authorization", &self.authorization)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(message.to_string());
        if let Some(v) = version.filter(|_| !initialize) {
            request = request.header("mcp-protocol-version", v);
        }
        if let Some(s) = self.session_id.lock().expect("lock").clone() {
            request = request.header("mcp-session-id", s);
        }
        let response = match request.send().await {
            Ok(r) => r,
            Err(e) => {
                let e = e.without_url();
                eprintln!("mediaforge mcp: {}: {e}", self.endpoint);
                self.fail(id.as_ref(), format!("Cannot reach {}: {e}", self.endpoint))
                    .await;
                return;
            }
        };
        if let Some(s) = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
        {
            *self.session_id.lock().expect("lock") = Some(s.to_string());
        }
        let status = response.status();
        let is_stream = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| t.starts_with("text/event-stream"));
        if !status.is_success() {
            let text = response.text().await.unwrap_or_default();
            let parsed: Option<Value> = serde_json::from_str(&text).ok();
            // A JSON-RPC error from the MCP layer goes through as it is; anything else (the
            // API's 401, a proxy's page) becomes one for the request.
            if let Some(rpc) = parsed.as_ref().filter(|v| v.get("jsonrpc").is_some()) {
                self.write(rpc).await;
                return;
            }
            let said = parsed
                .as_ref()
                .and_then(|v| v.get("error"))
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| text.trim().chars().take(QUOTE_MAX).collect());
            eprintln!("mediaforge mcp: HTTP {}: {said}", status.as_u16());
            self.fail(id.as_ref(), format!("HTTP {}: {said}", status.as_u16()))
                .await;
            return;
        }
        if !is_stream {
            let bytes = response.bytes().await.unwrap_or_default();
            if bytes.iter().all(u8::is_ascii_whitespace) {
                return; // 202 for a notification or a response
            }
            match serde_json::from_slice::<Value>(&bytes) {
                Ok(reply) => self.deliver(reply, initialize).await,
                Err(_) => {
                    self.fail(id.as_ref(), "The server answered with invalid JSON".into())
                        .await
                }
            }
            return;
        }
        let mut body = response.bytes_stream();
        let mut buffer: Vec<u8> = Vec::new();
        let mut answered = false;
        while let Some(chunk) = body.next().await {
            let Ok(chunk) = chunk else { break };
            buffer.extend_from_slice(&chunk);
            while let Some((event, rest)) = split_event(&buffer) {
                if let Some(reply) = event_data(&event) {
                    answered |= reply.get("id").is_some_and(|i| Some(i) == id.as_ref())
                        && reply.get("method").is_none();
                    self.deliver(reply, initialize).await;
                }
                buffer = rest;
            }
        }
        if !answered {
            self.fail(
                id.as_ref(),
                "The server closed the stream without answering".into(),
            )
            .await;
        }
    }

    async fn deliver(&self, reply: Value, initialize: bool) {
        if initialize {
            if let Some(v) = reply
                .pointer("/result/protocolVersion")
                .and_then(Value::as_str)
            {
                *self.protocol_version.lock().expect("lock") = Some(v.to_string());
            }
        }
        self.write(&reply).await;
    }
}

/// The first complete event of an event stream (up to a blank line), and what follows it.
fn split_event(buffer: &[u8]) -> Option<(String, Vec<u8>)> {
    let text = String::from_utf8_lossy(buffer);
    let normal = text.replace("\r\n", "\n");
    let end = normal.find("\n\n")?;
    Some((
        normal[..end].to_string(),
        normal[end + 2..].as_bytes().to_vec(),
    ))
}

/// An event's `data` lines joined, as JSON; `None` for keep-alives, priming events and
/// anything that is not JSON.
fn event_data(event: &str) -> Option<Value> {
    let data: Vec<&str> = event
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(|d| d.strip_prefix(' ').unwrap_or(d))
        .collect();
    if data.is_empty() {
        return None;
    }
    serde_json::from_str(&data.join("\n")).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints() {
        for (given, expected) in [
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080/mcp"),
            ("http://127.0.0.1:8080/", "http://127.0.0.1:8080/mcp"),
            ("https://media.example/mcp", "https://media.example/mcp"),
            (
                "https://media.example/base/",
                "https://media.example/base/mcp",
            ),
        ] {
            assert_eq!(endpoint(given).unwrap().as_str(), expected);
        }
        assert!(endpoint("ftp://x").is_err());
        assert!(endpoint("not a url").is_err());
    }

    #[test]
    fn event_stream() {
        let raw = b"id: 1\r\nretry: 3000\r\ndata: \r\n\r\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\ndata: \"id\":1}\n\n: ping\n\ndata: {\"par";
        let (first, rest) = split_event(raw).unwrap();
        assert_eq!(event_data(&first), None);
        let (second, rest) = split_event(&rest).unwrap();
        assert_eq!(
            event_data(&second),
            Some(json!({"jsonrpc": "2.0", "id": 1}))
        );
        let (third, rest) = split_event(&rest).unwrap();
        assert_eq!(event_data(&third), None);
        assert!(split_event(&rest).is_none());
    }
}
