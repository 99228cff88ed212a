//! `mediaforge plugin check` and `mediaforge plugin run`, through the real binary on real
//! components: the default plugins, the misbehaving fixture, and a formatter built against an
//! edited copy of the WIT (`tests/plugins/changed-wit`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::*;

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

fn mediaforge(args: &[&str]) -> Ran {
    let out = Command::new(env!("CARGO_BIN_EXE_mediaforge"))
        .args(args)
        .current_dir(temp_dir("plugin-cli"))
        .output()
        .unwrap();
    Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into(),
        stderr: String::from_utf8_lossy(&out.stderr).into(),
    }
}

fn check(file: &Path, extra: &[&str]) -> Ran {
    let mut args = vec!["plugin", "check", file.to_str().unwrap()];
    args.extend_from_slice(extra);
    mediaforge(&args)
}

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../docs/plugins/samples/{name}.json"))
}

fn run(world: &str, file: &Path, input: &Path, config: Option<&Path>) -> (Ran, Value) {
    let mut args = vec![
        "plugin",
        "run",
        world,
        file.to_str().unwrap(),
        input.to_str().unwrap(),
    ];
    if let Some(config) = config {
        args.extend(["--config", config.to_str().unwrap()]);
    }
    let ran = mediaforge(&args);
    let answer = serde_json::from_str(&ran.stdout).unwrap_or(Value::Null);
    (ran, answer)
}

/// A server configuration giving every world's plugin `plugin_config`, with a short time limit.
fn config_file(plugin_config: &str) -> PathBuf {
    let path = temp_dir("plugin-cli").join("plugins.toml");
    let mut text = "[plugins]\ntimeout_ms = 500\n".to_string();
    for world in ["command_builder", "translator", "webhook_formatter"] {
        text.push_str(&format!(
            "[plugins.{world}]\npath = \"unused.wasm\"\nconfig = {plugin_config}\n"
        ));
    }
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn check_says_which_worlds_a_component_implements() {
    let ran = check(&wasm("webhook_formatter"), &[]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout
            .contains("implements the webhook-formatter world (WIT 0.2.0; its check-config accepts the config)"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains("not a command-builder plugin"),
        "{}",
        ran.stdout
    );

    let ran = check(&wasm("misbehaving"), &[]);
    assert_eq!(ran.code, 0, "{}", ran.stdout);
    assert_eq!(
        ran.stdout.matches("implements the").count(),
        3,
        "{}",
        ran.stdout
    );

    // Asked about one world, the answer is about that world alone.
    let ran = check(
        &wasm("webhook_formatter"),
        &["--world", "webhook-formatter"],
    );
    assert_eq!(ran.code, 0, "{}", ran.stdout);
    assert_eq!(ran.stdout.lines().count(), 1, "{}", ran.stdout);
    let ran = check(&wasm("webhook_formatter"), &["--world", "command-builder"]);
    assert_eq!(ran.code, 1, "{}", ran.stdout);
    assert!(
        ran.stdout
            .contains("does not implement the command-builder world"),
        "{}",
        ran.stdout
    );
    let ran = check(&wasm("webhook_formatter"), &["--world", "painter"]);
    assert_eq!(ran.code, 1);
    assert!(
        ran.stderr.contains("unknown world 'painter'"),
        "{}",
        ran.stderr
    );
}

/// Both contract versions load; `check` names the one it found, and a 0.2.0 component's own
/// `check-config` judges the config of `--config` (0.1.0 has no such export).
#[test]
fn check_names_the_wit_version_and_asks_the_plugin_about_its_config() {
    let old = check(&wasm("formatter_0_1_0"), &["--world", "webhook-formatter"]);
    assert_eq!(old.code, 0, "{}{}", old.stdout, old.stderr);
    assert!(
        old.stdout
            .ends_with("implements the webhook-formatter world (WIT 0.1.0)\n"),
        "{}",
        old.stdout
    );
    let bad = config_file("{ chanel = \"#ops\" }");
    let config = [
        "--world",
        "webhook-formatter",
        "--config",
        bad.to_str().unwrap(),
    ];
    let refused = check(&wasm("webhook_formatter"), &config);
    assert_eq!(refused.code, 1, "{}{}", refused.stdout, refused.stderr);
    assert_eq!(refused.stdout.lines().count(), 1, "{}", refused.stdout);
    assert!(
        refused.stdout.contains(
            "webhook_formatter.wasm refuses its config (`plugins.webhook_formatter.config`): \
             config: unknown field `chanel`"
        ),
        "{}",
        refused.stdout
    );
    // The 0.1.0 copy of the same formatter cannot say: it loads, and is called with that config.
    assert_eq!(check(&wasm("formatter_0_1_0"), &config).code, 0);
}

#[test]
fn check_type_checks_exports_and_names_the_record_that_differs() {
    for extra in [&[][..], &["--world", "webhook-formatter"][..]] {
        let ran = check(&wasm("changed_wit"), extra);
        assert_eq!(ran.code, 1, "{extra:?}: {}", ran.stdout);
        let line = ran
            .stdout
            .lines()
            .find(|l| l.contains("webhook-formatter"))
            .unwrap_or_default();
        assert!(
            line.contains("built against a different WIT than this host's")
                && line.contains("record `callback-request`")
                && line.contains("priority"),
            "{line}"
        );
    }
}

#[test]
fn check_refuses_junk_in_one_line() {
    let dir = temp_dir("plugin-junk");
    let text = dir.join("notes.wasm");
    std::fs::write(&text, "not wasm at all\n".repeat(100)).unwrap();
    // A core module (the smallest valid one), not a component.
    let module = dir.join("module.wasm");
    std::fs::write(&module, b"\0asm\x01\0\0\0").unwrap();
    // A component header followed by garbage.
    let truncated = dir.join("truncated.wasm");
    std::fs::write(&truncated, b"\0asm\x0d\0\x01\0\xff\xff\xff\xff\xff\xff").unwrap();
    for (file, want) in [
        (&text, "is not a WebAssembly component"),
        (&module, "core WebAssembly module, not a component"),
        (&truncated, "is not a valid WebAssembly component"),
        (&dir.join("missing.wasm"), "cannot read plugin"),
    ] {
        let ran = check(file, &[]);
        assert_eq!(ran.code, 1, "{}", file.display());
        assert_eq!(ran.stdout, "");
        assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
        assert!(ran.stderr.contains(want), "{}", ran.stderr);
        assert!(!ran.stderr.contains("[0x"), "no byte dump: {}", ran.stderr);
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn run_calls_every_sample_through_the_default_plugins() {
    for (world, plugin, function) in [
        ("command-builder", "command_builder", "build-task"),
        ("command-builder", "command_builder", "build-probe"),
        ("translator", "translator", "translate-task"),
        ("translator", "translator", "translate-recipe"),
        ("translator", "translator", "translate-probe"),
        ("recipe", "recipes", "recipes"),
        ("recipe", "recipes", "plan"),
        ("webhook-formatter", "webhook_formatter", "format-event"),
        (
            "webhook-formatter",
            "webhook_formatter",
            "format-event-failed",
        ),
    ] {
        let (ran, answer) = run(world, &wasm(plugin), &sample(function), None);
        assert_eq!(ran.code, 0, "{function}: {}{}", ran.stdout, ran.stderr);
        assert_eq!(answer["ok"], true, "{function}: {answer}");
        // `recipes` answers the list; every other function one record.
        let shaped = if function == "recipes" {
            answer["result"].as_array().is_some_and(|l| !l.is_empty())
        } else {
            answer["result"].is_object()
        };
        assert!(shaped, "{function}: {answer}");
    }
    // The builder's answer is the argv the host would run, after its checks.
    let (_, answer) = run(
        "command-builder",
        &wasm("command_builder"),
        &sample("build-task"),
        None,
    );
    let argv: Vec<&str> = answer["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(
        argv.windows(2)
            .any(|w| w == ["-protocol_whitelist", "file"]),
        "{argv:?}"
    );
    assert_eq!(argv.last(), Some(&"/scratch/job_1/out/thumb.png"));

    // The recipe plugin's first round of the sample: steps, each of a kind the host runs.
    let (_, answer) = run("recipe", &wasm("recipes"), &sample("plan"), None);
    let steps = answer["result"]["steps"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer}"));
    assert!(!steps.is_empty(), "{answer}");

    // A 0.3.0 translator offered recipes may answer with one of them.
    let (_, answer) = run(
        "translator",
        &wasm("translator"),
        &sample("translate-recipe"),
        None,
    );
    assert_eq!(answer["result"]["recipe"]["name"], "hls", "{answer}");

    // Input for another world, or input that does not parse: nothing is called.
    let (ran, _) = run(
        "translator",
        &wasm("translator"),
        &sample("format-event"),
        None,
    );
    assert_eq!(ran.code, 2);
    assert!(
        ran.stderr
            .contains("belongs to the webhook-formatter world"),
        "{}",
        ran.stderr
    );
}

#[test]
fn run_reports_refusals_traps_timeouts_and_refused_output_as_json() {
    for (mode, world, function, want) in [
        ("sleep", "command-builder", "build-task", "timeout"),
        ("sleep", "translator", "translate-task", "timeout"),
        ("sleep", "webhook-formatter", "format-event", "timeout"),
        ("spin", "translator", "translate-probe", "timeout"),
        ("trap", "webhook-formatter", "format-event", "trap"),
        ("hog", "command-builder", "build-probe", "memory"),
        ("header", "webhook-formatter", "format-event", "output"),
    ] {
        let config = config_file(&format!("{{ mode = \"{mode}\" }}"));
        let t = Instant::now();
        let (ran, answer) = run(
            world,
            &wasm("misbehaving"),
            &sample(function),
            Some(&config),
        );
        // The sleep is 30 s; the limit is 500 ms.
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "{mode} {world}: took {:?}",
            t.elapsed()
        );
        assert_eq!(ran.code, 1, "{mode} {world}: {}{}", ran.stdout, ran.stderr);
        assert_eq!(answer["ok"], false, "{mode} {world}: {answer}");
        assert_eq!(answer["failed"]["kind"], want, "{mode} {world}: {answer}");
        if want == "timeout" {
            assert_eq!(answer["failed"]["reason"], "it ran out of time");
        }
    }
    let config = config_file("{ mode = \"polite\" }");
    let (ran, answer) = run(
        "command-builder",
        &wasm("misbehaving"),
        &sample("build-task"),
        Some(&config),
    );
    assert_eq!(ran.code, 1);
    assert_eq!(
        answer["refused"]["message"], "this test plugin refuses everything",
        "{answer}"
    );
}

/// A panic traps the call; the SDK's panic hook has put its message (and where it was raised)
/// in the host's log first, which `plugin run` prints on stderr.
#[test]
fn a_panic_message_reaches_the_log() {
    let (ran, answer) = run(
        "webhook-formatter",
        &wasm("panicking"),
        &sample("format-event"),
        None,
    );
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(answer["failed"]["kind"], "trap", "{answer}");
    let line = ran
        .stderr
        .lines()
        .find(|l| l.contains("deliberate panic for job_1"))
        .unwrap_or_else(|| panic!("no panic message in: {}", ran.stderr));
    assert!(
        line.contains("ERROR") && line.contains("plugin panicked at") && line.contains("lib.rs"),
        "{line}"
    );
}

/// `plugin new` writes a crate on the SDK (built and checked by tests/plugins/new.sh in
/// `make test`); what it refuses, it refuses in one line and writes nothing.
#[test]
fn new_writes_a_crate_for_the_world_and_refuses_bad_requests_in_one_line() {
    let dir = temp_dir("plugin-new");
    let target = dir.join("hooks");
    let sdk = Path::new(env!("CARGO_MANIFEST_DIR")).join("../plugins/sdk");
    let new = |world: &str, name: &str, sdk: &Path| {
        mediaforge(&[
            "plugin",
            "new",
            "--world",
            world,
            name,
            "--dir",
            target.to_str().unwrap(),
            "--sdk",
            sdk.to_str().unwrap(),
        ])
    };
    let ran = new("webhook-formatter", "chat-hooks", &sdk);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout
            .contains("plugin check target/wasm32-wasip2/release/chat_hooks.wasm")
    );
    let manifest = std::fs::read_to_string(target.join("Cargo.toml")).unwrap();
    let sdk_dir = sdk.canonicalize().unwrap();
    assert!(manifest.contains("name = \"chat-hooks\""), "{manifest}");
    assert!(
        manifest.contains(&format!(
            "mediaforge-plugin = {{ path = \"{}\" }}",
            sdk_dir.display()
        )),
        "{manifest}"
    );
    let lib = std::fs::read_to_string(target.join("src/lib.rs")).unwrap();
    assert!(lib.contains("export_webhook_formatter!(Plugin)"), "{lib}");
    assert!(
        target.join("Cargo.lock").exists(),
        "the SDK's versions are pinned"
    );

    for (world, name, sdk, want) in [
        (
            "webhook-formatter",
            "chat-hooks",
            &sdk,
            "exists and is not empty",
        ),
        ("painter", "x", &sdk, "unknown world 'painter'"),
        ("translator", "Bad Name", &sdk, "is not a plugin name"),
        ("translator", "x", &dir, "not the SDK"),
    ] {
        let ran = new(world, name, sdk);
        assert_eq!(ran.code, 1, "{world} {name}: {}", ran.stdout);
        assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
        assert!(ran.stderr.contains(want), "{want}: {}", ran.stderr);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The chat formatter of docs/plugins.md (examples/plugins/chat-formatter, on the SDK) does what
/// the docs show, and its config is checked when it is loaded.
#[test]
fn run_calls_the_chat_formatter_of_the_docs() {
    let (ran, answer) = run(
        "webhook-formatter",
        &wasm("chat_formatter"),
        &sample("format-event-failed"),
        Some(&config_file("{ channel = \"#ops\" }")),
    );
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    let body: Value = serde_json::from_str(answer["result"]["body"].as_str().unwrap()).unwrap();
    assert_eq!(
        body,
        serde_json::json!({"channel": "#ops", "text": "job job_2 failed: ffmpeg exited with status 1"})
    );
    let (ran, _) = run(
        "webhook-formatter",
        &wasm("chat_formatter"),
        &sample("format-event"),
        Some(&config_file("{ chanel = \"#ops\" }")),
    );
    assert_eq!(ran.code, 2, "nothing was called: {}", ran.stdout);
    assert!(
        ran.stderr
            .contains("config: unknown field `chanel`, expected `channel`"),
        "{}",
        ran.stderr
    );
}
