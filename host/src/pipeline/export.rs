//! After *register*, a task's `export`: every output copied to the tenant's bucket as
//! `<prefix><file name>`, streamed from the store (`bucket.rs`), and each output's
//! `exported_to` set. An export that fails fails the task, naming the object; the outputs it
//! registered are removed, so a failed task delivers nothing (objects already written to the
//! bucket stay there).

use super::resolve::ExportTarget;
use crate::app::AppState;
use crate::db::StoredOutput;
use crate::error::AppResult;
use crate::{files, names};

pub async fn outputs(
    state: &AppState,
    target: &ExportTarget,
    outputs: &mut [StoredOutput],
) -> AppResult<()> {
    let mut failure = None;
    for output in outputs.iter_mut() {
        let key = format!("{}{}", target.prefix, output.file_name);
        match one(state, target, output, &key).await {
            Ok(()) => output.exported_to = Some(target.bucket.shown(&key)),
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    let Some(failure) = failure else {
        return Ok(());
    };
    for output in outputs.iter() {
        if let Some(dir) = &output.dir_id {
            if let Err(e) = files::delete(state, dir, &output.file_name).await {
                tracing::warn!(
                    file = output.file_name,
                    "output of a failed export kept: {e}"
                );
            }
        }
    }
    Err(failure)
}

async fn one(
    state: &AppState,
    target: &ExportTarget,
    output: &StoredOutput,
    key: &str,
) -> AppResult<()> {
    let tmp = state
        .scratch_dir
        .join(format!("export-{}", names::random_id(16)));
    state.store.stage(&output.object_id, &tmp).await?;
    let content_type = mime_guess::from_path(&output.file_name)
        .first_or_octet_stream()
        .to_string();
    let deadline = std::time::Duration::from_secs(state.cfg.limits.import_timeout_s);
    let put = target
        .bucket
        .put(&state.net, key, &tmp, &content_type, deadline)
        .await;
    let _ = tokio::fs::remove_file(&tmp).await;
    put.map_err(|e| crate::credentials::failed(&target.bucket, key, "write", e))
}
