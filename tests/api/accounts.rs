//! Accounts and keys as objects (#31): the operator API makes accounts and keys without a
//! restart; a key is shown once, listed by prefix with its use, scoped `read` or `full`, and
//! revoked on every instance within a second; destructive actions are audited; the config
//! file's accounts stay the bootstrap and a restart keeps what the API made.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::scaleout::with;
use crate::servers::SurrealServer;
use crate::support::*;

/// The operator API on the main port, with the operator token.
async fn operator(s: &Server, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let method: reqwest::Method = method.parse().unwrap();
    let mut req = s
        .http()
        .request(method, s.url(path))
        .bearer_auth(OPERATOR_TOKEN);
    if let Some(body) = body {
        req = req.json(&body);
    }
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

fn error(body: &Value) -> &str {
    body["error"].as_str().unwrap_or("")
}

#[tokio::test]
async fn accounts_and_keys_are_objects_with_scopes_and_an_audit_log() {
    let mut s = Server::start_with(Options {
        disk_db: true,
        ..Default::default()
    })
    .await;

    // Only the operator: no token, a tenant's key, a wrong token.
    for auth in [
        None,
        Some(format!("Basic {ALICE}")),
        Some("Bearer nope".into()),
    ] {
        let mut req = s.http().get(s.url("/operator/accounts"));
        if let Some(auth) = auth {
            req = req.header("Authorization", auth);
        }
        assert_eq!(req.send().await.unwrap().status(), 401);
    }

    // An account without a restart; the name and the plan are checked.
    let (status, body) = operator(
        &s,
        "POST",
        "/operator/accounts",
        Some(json!({"name": "dora", "plan": "free"})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["account"]["source"], "api");
    let (status, body) = operator(
        &s,
        "POST",
        "/operator/accounts",
        Some(json!({"name": "dora", "plan": "free"})),
    )
    .await;
    assert_eq!(
        (status, error(&body)),
        (409, "Account 'dora' already exists")
    );
    let (status, body) = operator(
        &s,
        "POST",
        "/operator/accounts",
        Some(json!({"name": "dave", "plan": "platinum"})),
    )
    .await;
    assert_eq!(status, 400);
    assert!(
        error(&body).starts_with("Unknown plan 'platinum'"),
        "{body}"
    );
    let (status, _) = operator(
        &s,
        "POST",
        "/operator/accounts",
        Some(json!({"name": "../x", "plan": "free"})),
    )
    .await;
    assert_eq!(status, 400);

    // Two keys, each shown once: one full, one read-only.
    let (status, full) = operator(&s, "POST", "/operator/accounts/dora/keys", None).await;
    assert_eq!(status, 200, "{full}");
    let full_key = full["key"].as_str().unwrap().to_string();
    assert_eq!(full["scope"], "full");
    assert!(full_key.starts_with(full["prefix"].as_str().unwrap()));
    let (_, read) = operator(
        &s,
        "POST",
        "/operator/accounts/dora/keys",
        Some(json!({"scope": "read", "expires_in_s": 3600})),
    )
    .await;
    let read_key = read["key"].as_str().unwrap().to_string();
    assert!(read["expires_at"].as_i64().unwrap() > 0, "{read}");

    // The full key works at once; the read key reads and probes, and changes nothing.
    let dir_id = s.mkdir(&full_key).await;
    let file = s
        .upload_file(&full_key, Some(&dir_id), &media().short())
        .await;
    let (status, _) = s.get(&format!("/directory/{dir_id}"), &read_key).await;
    assert_eq!(status, 200);
    let (status, probed) = s
        .post(
            "/ffprobe/analyze",
            &read_key,
            json!({"file_path": file, "probe": {"format": ["duration"]}}),
        )
        .await;
    assert_eq!(status, 200, "{probed}");
    let (status, body) = s.delete(&format!("/file/{file}"), &read_key).await;
    assert_eq!(status, 403, "{body}");
    assert!(error(&body).contains("read-only"), "{body}");
    let (status, _) = s.post("/directory", &read_key, json!({})).await;
    assert_eq!(status, 403);

    // Listed by prefix, with their use; never the secret nor its hash.
    let (_, keys) = operator(&s, "GET", "/operator/accounts/dora/keys", None).await;
    let text = keys.to_string();
    assert!(
        !text.contains(&full_key) && !text.contains(&read_key),
        "{text}"
    );
    let listed = keys["keys"].as_array().unwrap();
    assert_eq!(listed.len(), 2, "{keys}");
    assert!(
        listed.iter().all(|k| k["last_used_at"].as_i64().is_some()),
        "{keys}"
    );
    assert!(listed.iter().all(|k| k.get("key_hash").is_none()));

    // A destructive action is audited: who (account and key), what, when, from where.
    let (status, _) = s.delete(&format!("/file/{file}"), &full_key).await;
    assert_eq!(status, 200);
    let (_, audit) = operator(&s, "GET", "/operator/audit?account=dora", None).await;
    let entries = audit["entries"].as_array().unwrap();
    let deleted = entries
        .iter()
        .find(|e| e["action"] == "file.delete")
        .unwrap_or_else(|| panic!("{audit}"));
    assert_eq!(deleted["subject"], json!(file));
    assert_eq!(
        deleted["actor"],
        json!(format!("dora/{}", full["id"].as_str().unwrap()))
    );
    assert!(
        deleted["address"].as_str().unwrap().contains("127.0.0.1"),
        "{deleted}"
    );
    assert!(
        entries
            .iter()
            .any(|e| e["action"] == "key.create" && e["actor"] == "operator")
    );

    // A plan changed without a restart.
    let (status, body) = operator(
        &s,
        "PATCH",
        "/operator/accounts/dora",
        Some(json!({"plan": "pro"})),
    )
    .await;
    assert_eq!(
        (status, body["account"]["plan"].clone()),
        (200, json!("pro"))
    );

    // A restart keeps what the API made; the config file's account and key still work.
    let dir = s.kill();
    let s = Server::start_with(Options {
        disk_db: true,
        dir: Some(dir),
        ..Default::default()
    })
    .await;
    let (status, _) = s.get("/directory", &full_key).await;
    assert_eq!(status, 200);
    let (status, _) = s.get("/directory", ALICE).await;
    assert_eq!(status, 200);
    let (_, accounts) = operator(&s, "GET", "/operator/accounts", None).await;
    let dora = accounts["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "dora")
        .cloned()
        .unwrap();
    assert_eq!(dora["plan"], "pro");

    // The command line is a client of the same API: a key made there works, a bad call says why.
    let cli = |args: &[&str]| {
        let config = s.dir.join("mediaforge.toml");
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--url", &s.base, "--config", config.to_str().unwrap()]);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_mediaforge"))
            .args(&all)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let (code, out, err) = cli(&["keys", "create", "dora", "--scope", "read"]);
    assert_eq!(code, Some(0), "{out}{err}");
    let made: Value = serde_json::from_str(&out).unwrap();
    let cli_key = made["key"].as_str().unwrap();
    assert_eq!(s.get("/directory", cli_key).await.0, 200);
    let (code, out, _) = cli(&["keys", "list", "dora"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        serde_json::from_str::<Value>(&out).unwrap()["keys"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    let (code, _, err) = cli(&["accounts", "create", "dora", "free"]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("HTTP 409: Account 'dora' already exists"),
        "{err}"
    );
    let (code, _, _) = cli(&["keys", "explode"]);
    assert_eq!(code, Some(2));

    // Revoked: refused from then on; an unknown id is a 404.
    let id = full["id"].as_str().unwrap();
    let (status, body) = operator(&s, "DELETE", &format!("/operator/keys/{id}"), None).await;
    assert_eq!(status, 200, "{body}");
    let (status, _) = s.get("/directory", &full_key).await;
    assert_eq!(status, 401);
    let (status, _) = operator(&s, "DELETE", &format!("/operator/keys/{id}"), None).await;
    assert_eq!(status, 404);
}

/// A key's look-up is cached until a key or an account changes (`auth.rs`): a plan changed and
/// a key's expiry reached each take effect at once, though the key was in use (in the cache)
/// just before.
#[tokio::test]
async fn a_cached_key_follows_its_account_and_its_expiry() {
    let s = Server::start().await;
    let (status, _) = operator(
        &s,
        "POST",
        "/operator/accounts",
        Some(json!({"name": "erin", "plan": "free"})),
    )
    .await;
    assert_eq!(status, 200);
    let (_, made) = operator(&s, "POST", "/operator/accounts/erin/keys", None).await;
    let key = made["key"].as_str().unwrap().to_string();
    let plan = |body: Value| body["plan"]["name"].clone();
    for _ in 0..3 {
        let (status, body) = s.get("/usage", &key).await;
        assert_eq!(status, 200);
        assert_eq!(plan(body), json!("free"));
    }
    let (status, _) = operator(
        &s,
        "PATCH",
        "/operator/accounts/erin",
        Some(json!({"plan": "pro"})),
    )
    .await;
    assert_eq!(status, 200);
    // The change reaches the cache through the live query, a moment after the write: within
    // a second, where a cache that ignored it would answer the old plan for a minute.
    let changed = Instant::now();
    loop {
        let (status, body) = s.get("/usage", &key).await;
        assert_eq!(status, 200);
        if plan(body.clone()) == json!("pro") {
            break;
        }
        assert!(
            changed.elapsed() < Duration::from_secs(1),
            "the old plan {:?} after the change: {body}",
            changed.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // A key that expires in 2 s works until then, used all along, and not after.
    let (_, brief) = operator(
        &s,
        "POST",
        "/operator/accounts/erin/keys",
        Some(json!({"expires_in_s": 2})),
    )
    .await;
    let brief_key = brief["key"].as_str().unwrap().to_string();
    let expires_at = brief["expires_at"].as_i64().unwrap();
    let now_ms = mediaforge::clock::now_ms;
    let mut accepted = 0;
    loop {
        let before = now_ms();
        let (status, _) = s.get("/directory", &brief_key).await;
        if before > expires_at {
            assert_eq!(
                status,
                401,
                "accepted {} ms after its expiry",
                before - expires_at
            );
            break;
        }
        if now_ms() < expires_at {
            assert_eq!(status, 200, "refused before its expiry");
            accepted += 1;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        accepted > 5,
        "the key worked {accepted} times before expiring"
    );
}

/// Revocation on one instance is seen by another (sharing a SurrealDB server) within a second:
/// at once through the live query, and within the half-second cache on an instance without
/// live queries (a multi-node cluster's setting).
#[tokio::test]
async fn a_key_revoked_on_one_instance_stops_working_on_another_within_a_second() {
    let db = SurrealServer::start();
    let env = [db.env()];
    let a = Server::start_with(with(&env, &[])).await;
    let b = Server::start_with(with(&env, &[])).await;
    let unwatched = [("MEDIAFORGE__JOBS__LIVE_QUERIES", "false")];
    let c = Server::start_with(with(&env, &unwatched)).await;
    let (_, made) = operator(&a, "POST", "/operator/accounts/alice/keys", None).await;
    let key = made["key"]
        .as_str()
        .unwrap_or_else(|| panic!("{made}"))
        .to_string();
    // b and c have used the key (and hold it in their caches) before the revocation.
    for other in [&b, &c] {
        for _ in 0..3 {
            assert_eq!(other.get("/directory", &key).await.0, 200);
        }
    }
    let id = made["id"].as_str().unwrap();
    let (status, _) = operator(&a, "DELETE", &format!("/operator/keys/{id}"), None).await;
    assert_eq!(status, 200);
    let revoked = Instant::now();
    for (other, name) in [(&b, "with a live query"), (&c, "without live queries")] {
        loop {
            let (status, _) = other.get("/directory", &key).await;
            if status == 401 {
                break;
            }
            assert_eq!(status, 200);
            assert!(
                revoked.elapsed() < Duration::from_millis(1500),
                "still accepted {:?} after the revocation by an instance {name}",
                revoked.elapsed()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        println!(
            "revocation seen by an instance {name} after {} ms",
            revoked.elapsed().as_millis()
        );
    }
    // A SurrealDB server's database is backed up with its own tools: the API says so.
    let (status, body) = operator(&a, "POST", "/operator/backup", None).await;
    assert_eq!(status, 400, "{body}");
    assert!(error(&body).contains("surreal export"), "{body}");
}
