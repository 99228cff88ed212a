//! A small file a plugin wrote itself (a recipe's playlist, WebVTT or JSON document), registered
//! in the output directory as ffmpeg's outputs are (`register.rs`: the same name rules, the same
//! storage check, never in place of one of the task's inputs) and charged as output bytes.

use super::resolve::Input;
use crate::app::AppState;
use crate::db::{Account, Directory, StoredOutput};
use crate::error::{AppError, AppResult};
use crate::names;
use crate::usage::{Charge, Usage};

/// Largest file a plugin may write this way.
pub const MAX_TEXT_BYTES: usize = 1024 * 1024;

pub async fn write(
    state: &AppState,
    account: &Account,
    dir: &Directory,
    inputs: &[Input],
    name: &str,
    content: &str,
) -> AppResult<(StoredOutput, Charge)> {
    if !names::valid_file_name(name) || name.starts_with('-') || name.contains('%') {
        return Err(AppError::InvalidOutputName(name.to_string()));
    }
    if content.len() > MAX_TEXT_BYTES {
        return Err(AppError::OutputsTooLarge {
            max_bytes: MAX_TEXT_BYTES as u64,
            max_files: 1,
        });
    }
    let scratch = super::scratch(state)?;
    let path = scratch.outputs().join(name);
    tokio::fs::write(&path, content)
        .await
        .map_err(|e| AppError::Internal(e.into()))?;
    let mut stored =
        super::register::outputs(state, account, dir, inputs, &scratch.outputs()).await?;
    let output = stored.pop().ok_or(AppError::NoOutputProduced)?;
    let bytes = output.size_bytes;
    Ok((output, Charge::of_run(0, bytes, &Usage::new(0.0, 0, bytes))))
}
