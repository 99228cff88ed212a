//! The host's own look at a stored file (format and streams), for estimates, progress and the
//! facts a translator plugin gets. The argv is fixed by the host, so no plugin is asked.
//! Stored objects never change (a new upload is a new object), so what was read of one is kept:
//! submitting the same input again costs no second ffprobe.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{LazyLock, Mutex};
use std::time::Duration;

use serde_json::Value;

use super::runner::{self, Spec};
use super::sandbox::Rlimits;
use super::scratch::Scratch;
use crate::app::AppState;
use crate::db::FileRecord;

/// Objects whose facts are kept (a few KB each); past it the map starts again.
const KEPT: usize = 2000;

static SEEN: LazyLock<Mutex<HashMap<String, Value>>> = LazyLock::new(Default::default);

/// ffprobe's `format` and `streams` for a stored file; `None` when it cannot be read.
/// `account` is whose process slot the run takes.
pub async fn inspect(state: &AppState, account: &str, file: &FileRecord) -> Option<Value> {
    if let Some(facts) = kept(file) {
        return Some(facts);
    }
    let scratch = Scratch::new(&state.scratch_dir).ok()?;
    let path = scratch.inputs().join("file");
    state.store.stage(&file.object_id, &path).await.ok()?;
    inspect_staged(state, account, file, &path).await
}

/// As `inspect`, reading the copy a run has already staged at `path` instead of staging another.
pub async fn inspect_staged(
    state: &AppState,
    account: &str,
    file: &FileRecord,
    path: &Path,
) -> Option<Value> {
    if let Some(facts) = kept(file) {
        return Some(facts);
    }
    let facts = probe(state, account, path).await?;
    let mut seen = SEEN.lock().expect("inspect lock");
    if seen.len() >= KEPT {
        seen.clear();
    }
    seen.insert(file.object_id.clone(), facts.clone());
    Some(facts)
}

fn kept(file: &FileRecord) -> Option<Value> {
    SEEN.lock()
        .expect("inspect lock")
        .get(&file.object_id)
        .cloned()
}

async fn probe(state: &AppState, account: &str, path: &Path) -> Option<Value> {
    let args = ["-show_format", "-show_streams", "-of", "json"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let stdout = ffprobe(state, account, path, args).await?;
    serde_json::from_slice(&stdout).ok()
}

/// Runs ffprobe with the host's own `args` over `path` (its folder read-only); its stdout, or
/// `None` when it fails. `account` is whose process slot the run takes.
pub async fn ffprobe(
    state: &AppState,
    account: &str,
    path: &Path,
    args: Vec<String>,
) -> Option<Vec<u8>> {
    let dir = path.parent()?.to_path_buf();
    let args = ["-hide_banner", "-v", "error", "-protocol_whitelist", "file"]
        .iter()
        .map(|s| s.to_string())
        .chain(args)
        .chain(["-i".to_string(), path.to_string_lossy().into_owned()])
        .collect();
    let timeout = state.cfg.limits.probe_timeout_s;
    let outcome = {
        let _slot = state.tenants.process_slot(account).await;
        runner::run(
            &state.sandbox,
            Spec {
                program: &state.cfg.sandbox.ffprobe_path,
                args,
                read_only: vec![dir.clone()],
                writable: vec![],
                cwd: &dir,
                timeout: Duration::from_secs(timeout),
                rlimits: Rlimits {
                    file_size: 0,
                    cpu_seconds: timeout * 2,
                    open_files: 256,
                },
                output_cap: None,
                stdout_cap: 64 * 1024 * 1024,
                stderr_cap: runner::STDERR_TAIL,
                progress: None,
            },
        )
        .await
        .ok()?
    };
    outcome.success().then_some(outcome.stdout)
}

/// Duration in seconds from ffprobe's JSON.
pub fn duration_of(facts: &Value) -> Option<f64> {
    facts["format"]["duration"].as_str()?.parse().ok()
}
