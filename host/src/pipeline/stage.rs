//! Stage 3, *stage*: where each input sits in the run's scratch directory (`in/{index}.{ext}`,
//! the extension from its name, since ffmpeg guesses formats from it; a declared concat list's
//! is `ffconcat`), and copying the bytes there, concat lists rewritten (`concat.rs`). The dry
//! run lays inputs out with the same function, so it plans on the same paths, and checks the
//! declared lists already stored.

use std::path::{Path, PathBuf};

use super::concat::{self, Target};
use super::resolve::{Input, InputFile};
use crate::app::AppState;
use crate::error::{AppError, AppResult};
use crate::media::scratch::Scratch;
use crate::plugins::types::StagedInput;
use crate::task::Task;

/// The staged path and `@{name}` of every input, without touching any bytes.
pub fn layout(scratch: &Scratch, task: &Task, inputs: &[Input]) -> Vec<StagedInput> {
    let dir = scratch.inputs();
    inputs
        .iter()
        .enumerate()
        .map(|(i, input)| {
            let options = task.inputs.get(i).map_or(&[][..], |t| &t.options);
            let ext = if concat::declared(&input.name, options) {
                concat::STAGED_EXT.to_string()
            } else {
                extension(&input.name)
            };
            StagedInput {
                name: input.name.clone(),
                path: staged_path(&dir, i, &ext).to_string_lossy().into_owned(),
            }
        })
        .collect()
}

/// Lays the inputs out and copies their bytes in, concat lists rewritten; returns the layout
/// and the bytes staged.
pub async fn stage(
    state: &AppState,
    scratch: &Scratch,
    task: &Task,
    inputs: &[Input],
) -> AppResult<(Vec<StagedInput>, u64)> {
    let staged = layout(scratch, task, inputs);
    let mut bytes = 0;
    for (input, at) in inputs.iter().zip(&staged) {
        let file = stored(input)?;
        // Already staged by `hashes`: copying onto a hard link would truncate the object.
        if !tokio::fs::try_exists(&at.path).await.unwrap_or(false) {
            state
                .store
                .stage(&file.object_id, Path::new(&at.path))
                .await?;
        }
        bytes += file.size;
    }
    let mut lists = Vec::with_capacity(staged.len());
    for at in &staged {
        lists.push(concat::is_staged_list(&at.path) || concat::sniffed(Path::new(&at.path)).await?);
    }
    confine_lists(&staged, &lists).await?;
    Ok((staged, bytes))
}

/// The dry run's layout, with the declared concat lists already stored staged and checked as
/// a run would (lists found by their bytes are checked only when the task runs).
pub async fn plan(
    state: &AppState,
    scratch: &Scratch,
    task: &Task,
    inputs: &[Input],
) -> AppResult<Vec<StagedInput>> {
    let staged = layout(scratch, task, inputs);
    let mut lists = Vec::with_capacity(staged.len());
    for (input, at) in inputs.iter().zip(&staged) {
        let list = concat::is_staged_list(&at.path);
        let stored = match &input.file {
            InputFile::Stored(file) if list => Some(file),
            _ => None,
        };
        if let Some(file) = stored {
            state
                .store
                .stage(&file.object_id, Path::new(&at.path))
                .await?;
        }
        lists.push(stored.is_some());
    }
    confine_lists(&staged, &lists).await?;
    Ok(staged)
}

/// Rewrites each staged input marked a list so that it names only the task's other inputs.
async fn confine_lists(staged: &[StagedInput], lists: &[bool]) -> AppResult<()> {
    let targets: Vec<Target> = staged
        .iter()
        .zip(lists)
        .map(|(at, &list)| Target {
            name: &at.name,
            staged: &at.path,
            list: list || concat::is_staged_list(&at.path),
        })
        .collect();
    for (at, _) in staged.iter().zip(lists).filter(|(_, list)| **list) {
        concat::confine(&at.name, Path::new(&at.path), &targets).await?;
    }
    Ok(())
}

/// The content hash of every input, in order. One without a hash yet (uploads and outputs are
/// hashed at their first cached use, not when stored) is staged now and hashed from its staged
/// copy, and the hash kept on its record.
pub async fn hashes(
    state: &AppState,
    inputs: &[Input],
    staged: &[StagedInput],
) -> AppResult<Vec<String>> {
    let mut hashes = Vec::with_capacity(inputs.len());
    for (input, at) in inputs.iter().zip(staged) {
        let file = stored(input)?;
        let hash = match &file.sha256 {
            Some(h) => h.clone(),
            None => {
                let path = Path::new(&at.path);
                state.store.stage(&file.object_id, path).await?;
                let h = crate::files::sha256_of(path).await?;
                state
                    .db
                    .set_file_hash(&file.object_id, file.size, &h)
                    .await?;
                h
            }
        };
        hashes.push(hash);
    }
    Ok(hashes)
}

fn stored(input: &Input) -> AppResult<&crate::db::FileRecord> {
    match &input.file {
        InputFile::Stored(file) => Ok(file),
        InputFile::Url(_) | InputFile::Bucket { .. } => {
            Err(AppError::Internal(anyhow::anyhow!("input not imported")))
        }
    }
}

fn staged_path(dir: &Path, index: usize, ext: &str) -> PathBuf {
    if ext.is_empty() {
        dir.join(format!("{index}"))
    } else {
        dir.join(format!("{index}.{ext}"))
    }
}

/// The extension ffmpeg guesses a format from: the name's, short and plain.
fn extension(name: &str) -> String {
    name.rsplit_once('.')
        .map(|(_, e)| {
            e.chars()
                .filter(char::is_ascii_alphanumeric)
                .take(10)
                .collect::<String>()
                .to_ascii_lowercase()
        })
        .unwrap_or_default()
}
