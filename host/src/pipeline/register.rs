//! Stage 6, *register*: every file ffmpeg wrote (or, on a cache hit, every output of the cached
//! run) becomes a stored file of the output directory, replacing an earlier output of the same
//! name (re-running a task replaces its outputs). Nothing is registered unless every name is
//! acceptable: a name that is one of the task's own inputs in that directory (a numbered
//! pattern, an HLS segment or playlist can produce one that resolve could not see) fails the
//! task with the spec's 400 (4.1 rule 4).

use std::path::{Path, PathBuf};

use super::resolve::{Input, InputFile};
use crate::app::AppState;
use crate::db::{Account, CacheEntry, Directory, StoredOutput};
use crate::error::{AppError, AppResult};
use crate::files::{self, Bytes};
use crate::names;

/// The files ffmpeg wrote into `out`.
pub async fn outputs(
    state: &AppState,
    owner: &Account,
    dir: &Directory,
    inputs: &[Input],
    out: &Path,
) -> AppResult<Vec<StoredOutput>> {
    let produced = produced(out).await?;
    if produced.is_empty() {
        return Err(AppError::NoOutputProduced);
    }
    let mut sized = Vec::with_capacity(produced.len());
    for (name, path) in &produced {
        let size = tokio::fs::metadata(path)
            .await
            .map_err(|e| AppError::Internal(e.into()))?
            .len();
        sized.push((name.clone(), Bytes::Local(path), size));
    }
    register(state, owner, dir, inputs, sized).await
}

/// The outputs of a cached run, copied from the entry's own objects (never re-encoded).
pub async fn cached(
    state: &AppState,
    owner: &Account,
    dir: &Directory,
    inputs: &[Input],
    entry: &CacheEntry,
) -> AppResult<Vec<StoredOutput>> {
    let items = entry
        .outputs
        .iter()
        .map(|o| {
            let bytes = Bytes::Object {
                object_id: &o.object_id,
                size: o.size,
                sha256: o.sha256.as_deref(),
            };
            (o.file_name.clone(), bytes, o.size)
        })
        .collect();
    register(state, owner, dir, inputs, items).await
}

async fn register(
    state: &AppState,
    owner: &Account,
    dir: &Directory,
    inputs: &[Input],
    items: Vec<(String, Bytes<'_>, u64)>,
) -> AppResult<Vec<StoredOutput>> {
    for (name, _, _) in &items {
        let is_input = inputs.iter().any(|i| {
            matches!(&i.file, InputFile::Stored(f) if f.dir_id == dir.dir_id && &f.file_name == name)
        });
        if is_input {
            return Err(AppError::OutputConflict(name.clone()));
        }
    }
    // The storage limit is checked as the first output is recorded, for all of them, in the
    // same transaction (`db::replace_file`): the check sums the account's files, so once per
    // task, not once per output (an HLS ladder's segments are hundreds).
    let mut room = Some(items.iter().map(|(_, _, size)| size).sum::<u64>());
    let mut result = Vec::with_capacity(items.len());
    for (name, src, _) in items {
        let file =
            match files::store_output(state, &dir.dir_id, &name, src, owner, room.take()).await {
                Ok(file) => file,
                Err(e) => {
                    // All or nothing: the outputs stored so far go too.
                    for done in &result {
                        let StoredOutput { file_name, .. } = done;
                        let _ = files::delete(state, &dir.dir_id, file_name).await;
                    }
                    return Err(match e {
                        AppError::FileExists(name) => AppError::OutputRace(name),
                        other => expired(other),
                    });
                }
            };
        result.push(StoredOutput {
            file_name: file.file_name,
            size_bytes: file.size,
            object_id: file.object_id,
            sha256: file.sha256,
            dir_id: Some(file.dir_id),
            exported_to: None,
        });
    }
    Ok(result)
}

/// The regular files ffmpeg wrote with names the API accepts, sorted by name.
pub(super) async fn produced(out: &Path) -> AppResult<Vec<(String, PathBuf)>> {
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
    produced.sort();
    Ok(produced)
}

/// The output directory was live when the task was resolved: gone now, it expired meanwhile.
fn expired(e: AppError) -> AppError {
    match e {
        AppError::DirectoryNotFound => AppError::OutputDirectoryExpired,
        other => other,
    }
}
