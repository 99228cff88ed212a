//! The plugin host at start-up: a plugin that is missing, implements the wrong world or was built
//! against a different WIT stops the server with a message naming the file and the world.

use crate::support::*;

/// What the server says when `world` (a config section name) is given the plugin at `path` and
/// it refuses to start.
fn start_up_error(world: &str, path: &str) -> String {
    let dir = temp_dir("badplugin");
    let extra = format!("[plugins.{world}]\npath = \"{path}\"\n");
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
