//! Resumable uploads with the tus 1.0 protocol (`api/tus.rs` speaks it): a second way to fill a
//! file record, for large media over networks that break. A creation makes the pending file
//! record (as `POST /file` does) and takes its upload claim (`db/uploads.rs`) for as long as the
//! upload lives, so no presigned PUT can race it; each PATCH appends at the offset the database
//! holds and moves it on; the last byte stores the file and turns the record ready. An upload
//! left alone past its expiry is removed with its record and its bytes (`sweep`).
//!
//! The bytes in flight are kept on the disk of the instance that took them
//! (`<data_dir>/tus/<id>.part`): this first version serves an upload from one instance, and
//! stores it whole at the end on either backend (S3 multipart parts per PATCH are not done yet).

use std::path::PathBuf;
use std::sync::Arc;

use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;

use crate::app::AppState;
use crate::db::{Account, TusUpload};
use crate::error::{AppError, AppResult};
use crate::{clock, directories, files, names};

/// A new upload's resource: its id and what it fills.
pub async fn create(
    state: &AppState,
    account: &Account,
    file_name: &str,
    dir_id: Option<&str>,
    length: u64,
) -> AppResult<TusUpload> {
    if !names::valid_file_name(file_name) {
        return Err(AppError::BadRequest(names::INVALID_FILE_NAME.into()));
    }
    let (plan_name, plan) = state.plan_of(account)?;
    let max = plan.max_file_size_bytes();
    if length > max {
        return Err(AppError::file_too_large(
            file_name,
            length,
            &plan_name,
            plan.max_file_size_mb,
        ));
    }
    let dir = match dir_id {
        Some(dir_id) => directories::owned(state, account, dir_id).await?,
        None => directories::create(state, account, directories::DEFAULT_TTL_S).await?,
    };
    if state.db.file(&dir.dir_id, file_name).await?.is_some() {
        return Err(AppError::FileExists(file_name.to_string()));
    }
    files::check_storage(state, &dir.dir_id, length, Some(account)).await?;
    let record = files::pending(&dir.dir_id, file_name);
    files::create(state, account, &record).await?;
    let upload = TusUpload {
        tus_id: names::random_id(32),
        account: account.name.clone(),
        object_id: record.object_id.clone(),
        claim: names::random_id(24),
        dir_id: dir.dir_id.clone(),
        file_name: file_name.to_string(),
        length,
        offset: 0,
        expires_at: expiry(state),
    };
    let now = clock::now_ms();
    if state
        .db
        .claim_upload(&upload.object_id, &upload.claim, now, upload.expires_at)
        .await?
        .is_err()
    {
        return Err(AppError::UploadInProgress);
    }
    state.db.create_tus(&upload).await?;
    Ok(upload)
}

fn expiry(state: &AppState) -> i64 {
    clock::now_ms() + state.cfg.storage.resumable_ttl_s as i64 * 1000
}

fn part_path(state: &AppState, tus_id: &str) -> PathBuf {
    state
        .cfg
        .server
        .data_dir
        .join("tus")
        .join(format!("{tus_id}.part"))
}

/// The caller's upload `tus_id`; another account's is reported missing.
pub async fn status(state: &AppState, account: &Account, tus_id: &str) -> AppResult<TusUpload> {
    match state.db.tus(tus_id).await? {
        Some(u) if u.account == account.name && u.expires_at >= clock::now_ms() => Ok(u),
        _ => Err(AppError::NotFound),
    }
}

/// A checksum the client sent for one PATCH's bytes (the tus checksum extension).
pub struct Checksum {
    pub sha256: Vec<u8>,
}

/// One PATCH's bytes being appended.
pub struct Append {
    state: Arc<AppState>,
    upload: TusUpload,
    file: tokio::fs::File,
    path: PathBuf,
    written: u64,
    hash: Sha256,
}

/// Starts appending to `tus_id` at `offset`, which must be where it stands (409 otherwise).
pub async fn append(
    state: &Arc<AppState>,
    account: &Account,
    tus_id: &str,
    offset: u64,
) -> AppResult<Append> {
    let upload = status(state, account, tus_id).await?;
    if offset != upload.offset {
        return Err(AppError::TusOffset {
            expected: upload.offset,
        });
    }
    let path = part_path(state, tus_id);
    tokio::fs::create_dir_all(path.parent().expect("in tus/"))
        .await
        .map_err(|e| AppError::Internal(e.into()))?;
    let file = tokio::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(false)
        .open(&path)
        .await
        .map_err(|e| AppError::Internal(e.into()))?;
    // Bytes past the recorded offset are a PATCH that broke off: they were never counted.
    file.set_len(upload.offset)
        .await
        .map_err(|e| AppError::Internal(e.into()))?;
    let mut file = file;
    tokio::io::AsyncSeekExt::seek(&mut file, std::io::SeekFrom::Start(upload.offset))
        .await
        .map_err(|e| AppError::Internal(e.into()))?;
    Ok(Append {
        state: state.clone(),
        upload,
        file,
        path,
        written: 0,
        hash: Sha256::new(),
    })
}

impl Append {
    /// Bytes of the body; past the declared length is refused and nothing of it kept.
    pub async fn write(&mut self, chunk: &[u8]) -> AppResult<()> {
        let end = self.upload.offset + self.written + chunk.len() as u64;
        if end > self.upload.length {
            return Err(AppError::TusPastLength(self.upload.length));
        }
        self.file
            .write_all(chunk)
            .await
            .map_err(|e| AppError::Internal(e.into()))?;
        self.hash.update(chunk);
        self.written += chunk.len() as u64;
        Ok(())
    }

    /// Counts what was written (after the checksum, when one came): the new offset, and whether
    /// that was the last byte (the file is then stored and its record ready).
    pub async fn finish(self, checksum: Option<Checksum>) -> AppResult<(u64, bool)> {
        if let Some(sum) = checksum
            && self.hash.clone().finalize().as_slice() != sum.sha256.as_slice()
        {
            return Err(AppError::TusChecksum);
        }
        self.file
            .sync_data()
            .await
            .map_err(|e| AppError::Internal(e.into()))?;
        let to = self.upload.offset + self.written;
        let state = &self.state;
        let expires = expiry(state);
        if !state
            .db
            .advance_tus(&self.upload.tus_id, self.upload.offset, to, expires)
            .await?
        {
            return Err(AppError::TusOffset {
                expected: self.upload.offset,
            });
        }
        state
            .db
            .renew_upload(&self.upload.object_id, &self.upload.claim, expires)
            .await?;
        if to < self.upload.length {
            return Ok((to, false));
        }
        let u = &self.upload;
        let size = state.store.put_file(&u.object_id, &self.path).await?;
        let kind = crate::storage::attachment::guess_type(&u.file_name);
        let done = state
            .db
            .finish_upload(&u.object_id, &u.claim, size, kind.as_deref())
            .await?;
        state.db.delete_tus(&u.tus_id).await?;
        let _ = tokio::fs::remove_file(&self.path).await;
        done.ok_or(AppError::FileMissing)?;
        Ok((to, true))
    }
}

/// Ends an upload now (the tus termination extension): its record and bytes go.
pub async fn terminate(state: &AppState, account: &Account, tus_id: &str) -> AppResult<()> {
    let upload = status(state, account, tus_id).await?;
    remove(state, &upload).await
}

async fn remove(state: &AppState, upload: &TusUpload) -> AppResult<()> {
    state.db.delete_tus(&upload.tus_id).await?;
    let _ = tokio::fs::remove_file(part_path(state, &upload.tus_id)).await;
    state
        .db
        .release_upload(&upload.object_id, &upload.claim)
        .await?;
    files::delete(state, &upload.dir_id, &upload.file_name).await?;
    Ok(())
}

/// Removes uploads left alone past their expiry (the sweeper's turn).
pub async fn sweep(state: &AppState) -> AppResult<()> {
    for upload in state.db.expired_tus(clock::now_ms(), 200).await? {
        tracing::info!(tus_id = upload.tus_id, "resumable upload expired");
        remove(state, &upload).await?;
    }
    Ok(())
}
