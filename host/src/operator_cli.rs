//! `mediaforge accounts|keys|audit`: the operator API (`api/operator.rs`) from the command line.
//! The server is found from the same config file as `serve`: its operator listener when it has
//! one (no token needed), else its main port with `server.operator_token`. Answers are printed as
//! the API's JSON, so they can be piped; an API error exits with status 1 and its message.

use serde_json::{Value, json};

use crate::config::Config;

pub const USAGE: &str = "  mediaforge accounts list|create NAME PLAN|set-plan NAME PLAN
  mediaforge keys list ACCOUNT|create ACCOUNT [--scope read|full] [--expires-in-s N]|revoke KEY_ID
  mediaforge audit [--account NAME] [--limit N]
  mediaforge backup [--name NAME]
                                       accounts, keys, the audit log and backups, through the
                                       running server's operator API (README, \"Accounts and
                                       keys\", \"Backups\"); each takes [--config FILE] [--url URL]
  mediaforge restore BACKUP_DIR [--config FILE]
                                       load a backup into the config's fresh data directory
                                       (no server running on it)";

/// One operator call: method, path under `/operator`, body.
pub struct Call {
    pub method: reqwest::Method,
    pub path: String,
    pub body: Option<Value>,
}

/// The call a command line asks for (`args` after the program name, `--config` taken out);
/// `None` for anything else.
pub fn parse(args: &[&str]) -> Option<Call> {
    use reqwest::Method;
    let call =
        |method: Method, path: String, body: Option<Value>| Some(Call { method, path, body });
    let enc = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    match args {
        ["accounts", "list"] => call(Method::GET, "/accounts".into(), None),
        ["accounts", "create", name, plan] => call(
            Method::POST,
            "/accounts".into(),
            Some(json!({"name": name, "plan": plan})),
        ),
        ["accounts", "set-plan", name, plan] => call(
            Method::PATCH,
            format!("/accounts/{}", enc(name)),
            Some(json!({"plan": plan})),
        ),
        ["keys", "list", account] => call(
            Method::GET,
            format!("/accounts/{}/keys", enc(account)),
            None,
        ),
        ["keys", "create", account, options @ ..] => {
            let mut body = json!({});
            for pair in options.chunks(2) {
                match pair {
                    ["--scope", scope] => body["scope"] = json!(scope),
                    ["--expires-in-s", s] => body["expires_in_s"] = json!(s.parse::<u64>().ok()?),
                    _ => return None,
                }
            }
            call(
                Method::POST,
                format!("/accounts/{}/keys", enc(account)),
                Some(body),
            )
        }
        ["keys", "revoke", id] => call(Method::DELETE, format!("/keys/{}", enc(id)), None),
        ["backup"] => call(Method::POST, "/backup".into(), None),
        ["backup", "--name", name] => {
            call(Method::POST, "/backup".into(), Some(json!({"name": name})))
        }
        ["audit", options @ ..] => {
            let mut query = Vec::new();
            for pair in options.chunks(2) {
                match pair {
                    ["--account", a] => query.push(format!("account={}", enc(a))),
                    ["--limit", n] => query.push(format!("limit={}", n.parse::<u32>().ok()?)),
                    _ => return None,
                }
            }
            let query = if query.is_empty() {
                String::new()
            } else {
                format!("?{}", query.join("&"))
            };
            call(Method::GET, format!("/audit{query}"), None)
        }
        _ => None,
    }
}

/// Where the operator API answers for `cfg`, and the token it needs there. `url`: the server
/// named on the command line (with the config's token, unless it is the operator listener).
fn endpoint(cfg: &Config, url: Option<&str>) -> Result<(String, Option<String>), String> {
    if let Some(url) = url {
        let token =
            (!cfg.server.operator_token.is_empty()).then(|| cfg.server.operator_token.clone());
        return Ok((url.trim_end_matches('/').to_string(), token));
    }
    let local = |addr: &str| {
        addr.replacen("0.0.0.0:", "127.0.0.1:", 1)
            .replacen("[::]:", "[::1]:", 1)
    };
    if !cfg.server.operator_listen.is_empty() {
        return Ok((
            format!("http://{}", local(&cfg.server.operator_listen)),
            None,
        ));
    }
    if cfg.server.operator_token.is_empty() {
        return Err(
            "the config has neither server.operator_listen nor server.operator_token: the operator API is not reachable"
                .into(),
        );
    }
    let base = if cfg.server.public_url.is_empty() {
        format!("http://{}", local(&cfg.server.listen))
    } else {
        cfg.server.public_url.trim_end_matches('/').to_string()
    };
    Ok((base, Some(cfg.server.operator_token.clone())))
}

/// Makes the call; `Ok` with the answer when the API said `ok`, else `Err` with its message.
pub async fn run(cfg: &Config, url: Option<&str>, call: Call) -> Result<Value, String> {
    let (base, token) = endpoint(cfg, url)?;
    let url = format!("{base}/operator{}", call.path);
    // The TLS provider is given, not left to feature unification (as `api/mcp/bridge.rs`).
    let tls = crate::net::tls_config(&cfg.net.extra_ca_file).map_err(|e| e.to_string())?;
    let client = reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .timeout(std::time::Duration::from_secs(30))
        .build()
        .map_err(|e| e.to_string())?;
    let mut req = client.request(call.method, &url);
    if let Some(token) = token {
        req = req.bearer_auth(token);
    }
    if let Some(body) = call.body {
        req = req.json(&body);
    }
    let res = req
        .send()
        .await
        .map_err(|e| format!("{url}: {e} (is the server running?)"))?;
    let status = res.status();
    let answer: Value = res
        .json()
        .await
        .map_err(|e| format!("{url}: HTTP {status}, not JSON: {e}"))?;
    if status.is_success() {
        Ok(answer)
    } else {
        Err(format!(
            "HTTP {}: {}",
            status.as_u16(),
            answer["error"].as_str().unwrap_or("(no message)")
        ))
    }
}
