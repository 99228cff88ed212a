//! Stage 6, *register*: every file ffmpeg wrote becomes a stored file of the output directory,
//! replacing an earlier output of the same name (re-running a task replaces its outputs).

use std::path::Path;

use crate::app::AppState;
use crate::db::{Directory, StoredOutput};
use crate::error::{AppError, AppResult};
use crate::{files, names};

pub async fn outputs(
    state: &AppState,
    dir: &Directory,
    out: &Path,
) -> AppResult<Vec<StoredOutput>> {
    let io = |e: std::io::Error| AppError::Internal(e.into());
    let mut entries = tokio::fs::read_dir(out).await.map_err(io)?;
    let mut produced = Vec::new();
    while let Some(entry) = entries.next_entry().await.map_err(io)? {
        let meta = tokio::fs::symlink_metadata(entry.path())
            .await
            .map_err(io)?;
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        if meta.is_file() && names::valid_file_name(&name) {
            produced.push((name, entry.path()));
        }
    }
    if produced.is_empty() {
        return Err(AppError::NoOutputProduced);
    }
    produced.sort();
    let mut result = Vec::with_capacity(produced.len());
    for (name, path) in produced {
        let file = match files::store(state, &dir.dir_id, &name, &path, true).await {
            Err(AppError::FileExists(name)) => return Err(AppError::OutputRace(name)),
            other => other?,
        };
        result.push(StoredOutput {
            file_name: file.file_name,
            size_bytes: file.size,
            object_id: file.object_id,
        });
    }
    Ok(result)
}
