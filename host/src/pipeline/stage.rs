//! Stage 3, *stage*: where each input sits in the run's scratch directory (`in/{index}.{ext}`,
//! the extension from its name, since ffmpeg guesses formats from it), and copying the bytes
//! there. The dry run lays inputs out with the same function, so it plans on the same paths.

use std::path::{Path, PathBuf};

use super::resolve::{Input, InputFile};
use crate::app::AppState;
use crate::error::{AppError, AppResult};
use crate::media::scratch::Scratch;
use crate::plugins::types::StagedInput;

/// The staged path and `@{name}` of every input, without touching any bytes.
pub fn layout(scratch: &Scratch, inputs: &[Input]) -> Vec<StagedInput> {
    let dir = scratch.inputs();
    inputs
        .iter()
        .enumerate()
        .map(|(i, input)| StagedInput {
            name: input.name.clone(),
            path: staged_path(&dir, i, &input.name)
                .to_string_lossy()
                .into_owned(),
        })
        .collect()
}

/// Lays the inputs out and copies their bytes in; returns the layout and the bytes staged.
pub async fn stage(
    state: &AppState,
    scratch: &Scratch,
    inputs: &[Input],
) -> AppResult<(Vec<StagedInput>, u64)> {
    let staged = layout(scratch, inputs);
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
    Ok((staged, bytes))
}

/// The content hash of every input, in order. One without a hash yet (an upload made straight
/// to S3) is staged now and hashed from its staged copy, and the hash kept on its record.
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
                state.db.set_file_hash(&file.object_id, &h).await?;
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
        InputFile::Url(_) => Err(AppError::Internal(anyhow::anyhow!("input not imported"))),
    }
}

fn staged_path(dir: &Path, index: usize, name: &str) -> PathBuf {
    let ext: String = name
        .rsplit_once('.')
        .map(|(_, e)| {
            e.chars()
                .filter(char::is_ascii_alphanumeric)
                .take(10)
                .collect::<String>()
                .to_ascii_lowercase()
        })
        .unwrap_or_default();
    if ext.is_empty() {
        dir.join(format!("{index}"))
    } else {
        dir.join(format!("{index}.{ext}"))
    }
}
