//! The plugin host at start-up: a plugin that is missing, implements the wrong world or was built
//! against a different WIT stops the server with a message naming the file and the world. And
//! while serving: components reloaded on SIGHUP or on change.

use serde_json::json;

use crate::support::*;

/// What the server says when `world` (a config section name) is given the plugin at `path` and
/// it refuses to start.
fn start_up_error(world: &str, path: &str) -> String {
    start_up_error_with(&format!("[plugins.{world}]\npath = \"{path}\"\n"))
}

/// What the server says when it refuses to start with `extra` in its config file.
fn start_up_error_with(extra: &str) -> String {
    let dir = temp_dir("badplugin");
    let extra = extra.to_string();
    let err = Server::try_start(
        &dir,
        &Options {
            extra,
            ..Default::default()
        },
    )
    .err()
    .expect("must not start");
    let _ = std::fs::remove_dir_all(&dir);
    err
}

#[tokio::test]
async fn a_plugin_of_the_wrong_world_stops_start_up() {
    let err = start_up_error(
        "command_builder",
        wasm("webhook_formatter").to_str().unwrap(),
    );
    assert!(err.contains("webhook_formatter.wasm"), "{err}");
    assert!(err.contains("command-builder"), "{err}");
}

/// Its export names are right and its types are not: found at start-up, not at the first call.
#[tokio::test]
async fn a_plugin_built_against_a_changed_wit_stops_start_up() {
    let err = start_up_error("webhook_formatter", wasm("changed_wit").to_str().unwrap());
    assert!(
        err.contains("changed_wit.wasm does not fit the webhook-formatter world")
            && err.contains("built against a different WIT than this host's")
            && err.contains("record `callback-request`"),
        "{err}"
    );
}

/// A 0.2.0 plugin's `check-config` runs at load: a config it refuses stops start-up with the
/// plugin's own message, not the first call. (The default formatter takes no keys.)
#[tokio::test]
async fn a_config_the_plugin_refuses_stops_start_up() {
    let err = start_up_error_with(&format!(
        "[plugins.webhook_formatter]\npath = \"{}\"\nconfig = {{ retries = 3 }}\n",
        wasm("webhook_formatter").display()
    ));
    assert!(
        err.contains(
            "webhook_formatter.wasm refuses its config (`plugins.webhook_formatter.config`): \
             config: unknown field `retries`"
        ),
        "{err}"
    );
}

#[tokio::test]
async fn a_missing_plugin_stops_start_up() {
    let err = start_up_error("translator", "/nonexistent/translator.wasm");
    assert!(err.contains("/nonexistent/translator.wasm"), "{err}");
}

#[tokio::test]
async fn config_errors_name_the_key() {
    let dir = temp_dir("badconfig");
    let opts = Options {
        env: vec![("MEDIAFORGE__JOBS__WORKERS".into(), "\"lots\"".into())],
        ..Default::default()
    };
    let err = Server::try_start(&dir, &opts)
        .err()
        .expect("must not start");
    assert!(err.contains("jobs.workers"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Hot reload under load: a stream of dry runs while the command builder's file is replaced
/// (by a builder that knows `-mf_preset`), then by junk; SIGHUP swaps the new one in (with
/// `plugins.watch`, the change itself does); junk keeps the loaded one and says why; no
/// request fails throughout.
#[tokio::test]
async fn plugins_reload_on_sighup_and_on_change_without_failing_a_request() {
    for watch in [false, true] {
        let dir = temp_dir("reload");
        let builder = dir.join("builder.wasm");
        let replace = |from: &std::path::Path| {
            let next = dir.join("next.wasm");
            std::fs::copy(from, &next).unwrap();
            std::fs::rename(&next, &builder).unwrap();
        };
        replace(&wasm("command_builder"));
        let s = Server::start_with(Options {
            extra: format!(
                "watch = {watch}\n[plugins.command_builder]\npath = \"{}\"\n",
                builder.display()
            ),
            ..Default::default()
        })
        .await;
        let input = s.upload_file(ALICE, None, &media().short()).await;
        let plain = json!({"task": {"inputs": [{"file_path": input}], "outputs": [{"file": "a.png", "options": ["-frames:v", "1"]}]}});
        let preset = json!({"task": {"inputs": [{"file_path": input}], "outputs": [{"file": "s.jpg", "options": ["-mf_preset", "thumbnail-sprite"]}]}});
        let knows_presets =
            || async { s.post("/ffmpeg/validate", ALICE, preset.clone()).await.0 == 200 };
        assert!(!knows_presets().await);

        let stop = std::sync::atomic::AtomicBool::new(false);
        let load = async {
            let mut answered = 0;
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                let (status, body) = s.post("/ffmpeg/validate", ALICE, plain.clone()).await;
                assert_eq!(status, 200, "a dry run during the reload: {body}");
                answered += 1;
            }
            answered
        };
        let swaps = async {
            replace(&wasm("preset_builder"));
            if watch {
                tokio::time::sleep(std::time::Duration::from_secs(3)).await;
            } else {
                // Nothing changes until the signal.
                tokio::time::sleep(std::time::Duration::from_secs(2)).await;
                assert!(!knows_presets().await, "reloaded without a SIGHUP");
                hangup(&s);
            }
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
            while !knows_presets().await {
                assert!(
                    std::time::Instant::now() < deadline,
                    "not reloaded: {}",
                    s.log()
                );
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            }
            // Junk in place of the component: the loaded one stays, and the log says why.
            let junk = dir.join("junk.wasm");
            std::fs::write(&junk, b"not a component").unwrap();
            replace(&junk);
            if !watch {
                hangup(&s);
            }
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
            while !s
                .log()
                .contains("plugins not reloaded, the loaded ones stay")
            {
                assert!(
                    std::time::Instant::now() < deadline,
                    "no refusal logged: {}",
                    s.log()
                );
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            }
            assert!(knows_presets().await);
            stop.store(true, std::sync::atomic::Ordering::SeqCst);
        };
        let (answered, ()) = tokio::join!(load, swaps);
        assert!(answered > 5, "{answered} dry runs");
    }
}

/// A reload asks the new component about the config too: one whose `check-config` refuses the
/// config of start-up (the default formatter takes no keys, the CloudEvents one's `source` is
/// configured) is not swapped in, and the log says why.
#[tokio::test]
async fn a_reload_keeps_the_loaded_plugin_when_the_new_one_refuses_its_config() {
    let dir = temp_dir("reload-config");
    let formatter = dir.join("formatter.wasm");
    std::fs::copy(wasm("cloudevents_formatter"), &formatter).unwrap();
    let s = Server::start_with(Options {
        extra: format!(
            "[plugins.webhook_formatter]\npath = \"{}\"\nconfig = {{ source = \"/media\" }}\n",
            formatter.display()
        ),
        ..Default::default()
    })
    .await;
    let next = dir.join("next.wasm");
    std::fs::copy(wasm("webhook_formatter"), &next).unwrap();
    std::fs::rename(&next, &formatter).unwrap();
    hangup(&s);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let line = loop {
        let log = s.log();
        if let Some(line) = log.lines().find(|l| l.contains("plugins not reloaded")) {
            break line.to_string();
        }
        assert!(std::time::Instant::now() < deadline, "no refusal: {log}");
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    };
    assert!(
        line.contains("refuses its config (`plugins.webhook_formatter.config`): config: unknown field `source`"),
        "{line}"
    );
}

fn hangup(s: &Server) {
    let status = std::process::Command::new("kill")
        .args(["-HUP", &s.pid().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}
