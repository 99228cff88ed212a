//! The client examples a newcomer copies (examples/curl and examples/rust-client), run against
//! the real server, so they stay true.

use std::process::Command;

use crate::support::*;

fn run(cmd: &mut Command, what: &str) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test]
async fn curl_and_rust_examples_run() {
    let s = Server::start().await;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let clip = media().short();
    for script in [
        "upload-process-download.sh",
        "async-with-webhook.sh",
        "probe.sh",
        "natural-language.sh",
    ] {
        run(
            Command::new("bash")
                .arg(root.join("examples/curl").join(script))
                .arg(&clip)
                .env("MEDIAFORGE_URL", &s.base)
                .env("MEDIAFORGE_KEY", ALICE),
            script,
        );
    }
    // The Rust client is a member of this workspace: `cargo test` built it beside this binary.
    let exe = std::env::current_exe().unwrap();
    let client = exe
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("mediaforge-client-example");
    if client.exists() {
        // It saves its downloads in the working directory: give it a scratch one.
        let cwd = temp_dir("rust-client");
        run(
            Command::new(&client)
                .arg(&clip)
                .current_dir(&cwd)
                .env("MEDIAFORGE_URL", &s.base)
                .env("MEDIAFORGE_KEY", ALICE),
            "rust client",
        );
        let _ = std::fs::remove_dir_all(cwd);
    } else {
        panic!(
            "{} was not built (cargo test --workspace builds it)",
            client.display()
        );
    }
}
