//! Directories: short-lived workspaces of one account that expire after a TTL. Made explicitly
//! (POST /directory) or implicitly (an upload or a URL task without one).

use crate::app::AppState;
use crate::clock;
use crate::db::{Account, Directory};
use crate::error::{AppError, AppResult};
use crate::names;

pub const DEFAULT_TTL_S: u64 = 86_400;
pub const MAX_TTL_S: u64 = 604_800;

/// Creates a directory for `account`.
pub async fn create(state: &AppState, account: &Account, ttl: u64) -> AppResult<Directory> {
    let now = clock::now_ms();
    let dir = Directory {
        dir_id: names::random_id(20),
        account: account.name.clone(),
        ttl,
        added_at: now,
        expires_at: now + (ttl as i64) * 1000,
    };
    state.db.create_directory(&dir).await?;
    Ok(dir)
}

/// The caller's live directory: 404 when missing or expired, 403 when another account's.
pub async fn owned(state: &AppState, account: &Account, dir_id: &str) -> AppResult<Directory> {
    if !names::valid_dir_id(dir_id) {
        return Err(AppError::DirectoryNotFound);
    }
    let dir = state
        .db
        .directory(dir_id, clock::now_ms())
        .await?
        .ok_or(AppError::DirectoryNotFound)?;
    if dir.account != account.name {
        return Err(AppError::DirectoryForbidden);
    }
    Ok(dir)
}
