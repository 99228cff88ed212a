//! Webhook deliveries with a misbehaving formatter (`tests/plugins/misbehaving`, its mode chosen
//! by the webhook URL): deliveries run side by side, and a formatter's failures are the
//! operator's to read (log, metric), while the tenant learns only that the formatter failed.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::jobs::{frame_task, submit, wait_for};
use crate::servers::Receiver;
use crate::support::*;

async fn formatter_server(receiver: &Receiver, env: &[(&str, &str)]) -> Server {
    let extra = format!(
        "[plugins.webhook_formatter]\npath = \"{}\"\n",
        wasm("misbehaving").display()
    );
    let mut all = vec![(
        "MEDIAFORGE__NET__EXTRA_CA_FILE".to_string(),
        receiver.ca_file.to_str().unwrap().to_string(),
    )];
    all.extend(env.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    Server::start_with(Options {
        extra,
        env: all,
        ..Default::default()
    })
    .await
}

/// A completed job of `key`'s whose callback goes to `url`.
async fn job_with_hook(s: &Server, key: &str, name: &str, url: String) -> String {
    let input = s.upload_file(key, None, &media().short()).await;
    let mut body = frame_task(&input, name);
    body["webhook_url"] = json!(url);
    let job = submit(s, key, body).await;
    wait_for(s, key, &job, &["completed"], 30).await;
    job
}

async fn webhook_of(s: &Server, key: &str, job: &str) -> Value {
    let (_, view) = s.get(&format!("/job/{job}"), key).await;
    view["webhook"].clone()
}

#[tokio::test]
async fn a_slow_formatter_call_holds_back_no_other_callback() {
    let receiver = Receiver::start(vec![200]).await;
    let s = formatter_server(&receiver, &[("MEDIAFORGE__PLUGINS__TIMEOUT_MS", "30000")]).await;
    // ALICE's callback: the formatter sleeps (30 s, its whole time limit).
    let slow = job_with_hook(&s, ALICE, "slow.png", receiver.url("/slow?mode=sleep")).await;
    // BOB's, due later, is delivered while ALICE's attempt is still under way.
    job_with_hook(&s, BOB, "fast.png", receiver.url("/fast")).await;
    let deadline = Instant::now() + Duration::from_secs(20);
    while !receiver.requests().iter().any(|r| r.path == "/fast") {
        assert!(
            Instant::now() < deadline,
            "BOB's callback waits behind ALICE's formatter call"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let hook = webhook_of(&s, ALICE, &slow).await;
    assert_eq!(
        hook["attempts"], 0,
        "the slow attempt is still running: {hook}"
    );
    assert!(receiver.requests().iter().all(|r| r.path == "/fast"));
}

#[tokio::test]
async fn formatter_failures_are_the_operators_and_deterministic_ones_are_not_retried() {
    let receiver = Receiver::start(vec![200]).await;
    let s = formatter_server(
        &receiver,
        &[
            ("MEDIAFORGE__WEBHOOKS__INITIAL_BACKOFF_S", "1"),
            ("MEDIAFORGE__WEBHOOKS__MAX_ATTEMPTS", "2"),
        ],
    )
    .await;
    let mut jobs = Vec::new();
    for mode in ["header", "refuse", "big", "trap"] {
        let url = receiver.url(&format!("/hook?mode={mode}"));
        jobs.push((
            mode,
            job_with_hook(&s, ALICE, &format!("{mode}.png"), url).await,
        ));
    }
    for (mode, job) in &jobs {
        let deadline = Instant::now() + Duration::from_secs(30);
        let hook = loop {
            let hook = webhook_of(&s, ALICE, job).await;
            if hook["state"] == "failed" {
                break hook;
            }
            assert!(Instant::now() < deadline, "{mode}: {hook}");
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        // A trap may not happen again; a refusal or a refused request will.
        let attempts = if *mode == "trap" { 2 } else { 1 };
        assert_eq!(hook["attempts"], attempts, "{mode}: {hook}");
        assert_eq!(hook["last_error"], "the webhook formatter failed", "{mode}");
    }
    assert!(receiver.requests().is_empty(), "nothing was sent");
    let metrics = s.metrics().await;
    for (kind, n) in [("output", 2), ("refused", 1), ("trap", 2)] {
        let line = format!(
            "mediaforge_plugin_failures_total{{plugin=\"webhook-formatter\",kind=\"{kind}\"}} {n}"
        );
        assert!(metrics.contains(&line), "{line} in:\n{metrics}");
    }
    // The operator's log has the reason and the plugin.
    let log = s.log();
    for reason in [
        "webhook formatter may not set header 'webhook-signature'",
        "this test plugin refuses the event",
        "webhook formatter returned a body over 1 MiB",
        "it trapped",
    ] {
        let line = log
            .lines()
            .find(|l| l.contains(reason))
            .unwrap_or_else(|| panic!("{reason} not logged:\n{log}"));
        assert!(
            line.contains("WARN") && line.contains("misbehaving.wasm"),
            "{line}"
        );
    }
}

/// A server whose webhook formatter is the component `name`.
async fn server_with_formatter(receiver: &Receiver, name: &str) -> Server {
    Server::start_with(Options {
        extra: format!(
            "[plugins.webhook_formatter]\npath = \"{}\"\n",
            wasm(name).display()
        ),
        env: vec![(
            "MEDIAFORGE__NET__EXTRA_CA_FILE".to_string(),
            receiver.ca_file.to_str().unwrap().to_string(),
        )],
        ..Default::default()
    })
    .await
}

/// The default formatter (WIT 0.2.0) and its copy built against 0.1.0 deliver the same
/// callback through a real server: the host speaks both versions.
#[tokio::test]
async fn formatters_of_both_wit_versions_deliver_the_same_callback() {
    let mut bodies = Vec::new();
    for name in ["webhook_formatter", "formatter_0_1_0"] {
        let receiver = Receiver::start(vec![200]).await;
        let s = server_with_formatter(&receiver, name).await;
        let job = job_with_hook(&s, ALICE, "thumb.png", receiver.url("/hook")).await;
        let deadline = Instant::now() + Duration::from_secs(20);
        while receiver.requests().is_empty() {
            assert!(Instant::now() < deadline, "{name}: no callback");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let mut body: Value = serde_json::from_slice(&receiver.requests()[0].body).unwrap();
        assert_eq!(body["job_id"], job.as_str(), "{name}: {body}");
        assert_eq!(body["status"], "completed", "{name}: {body}");
        assert_eq!(
            body["result"][0]["file_name"], "thumb.png",
            "{name}: {body}"
        );
        for varies in ["job_id", "result", "usage"] {
            body[varies] = Value::Null;
        }
        bodies.push(body);
    }
    assert_eq!(bodies[0], bodies[1]);
}
