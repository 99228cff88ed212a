//! Stored files: records in a directory whose bytes live in the object store. The order of
//! every write keeps the crash-safety rule of `sweeper.rs`: a record exists (pending) before
//! its bytes, and turns `deleting` (invisible) before they go.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::app::AppState;
use crate::clock;
use crate::config::Plan;
use crate::db::{Account, DbError, FileRecord, FileState, Room};
use crate::error::{AppError, AppResult};
use crate::names;
use crate::storage::attachment::guess_type;

/// A new pending record for `name` in `dir_id` (bytes not yet stored).
pub fn pending(dir_id: &str, name: &str) -> FileRecord {
    FileRecord {
        object_id: names::random_id(32),
        dir_id: dir_id.to_string(),
        file_name: name.to_string(),
        state: FileState::Pending,
        size: 0,
        content_type: None,
        added_at: clock::now_ms(),
        sha256: None,
    }
}

/// Where the bytes of a file being stored come from.
pub enum Bytes<'a> {
    /// A local file (a task's output), moved into the store.
    Local(&'a Path),
    /// An object of the store (a cached output), copied without passing through this process;
    /// its size and hash are known.
    Object {
        object_id: &'a str,
        size: u64,
        sha256: Option<&'a str>,
    },
}

/// Hashes a ready file's `size` bytes at `path` after the request that stored them has its answer,
/// and keeps the hash on the record: the upload runs at disk speed, and the first cached task
/// on the file usually finds its hash ready (`pipeline/stage.rs` takes it itself otherwise).
pub fn hash_later(state: &Arc<AppState>, object_id: &str, size: u64, path: PathBuf) {
    let (state, object_id) = (state.clone(), object_id.to_string());
    tokio::spawn(async move {
        let _task = crate::metrics::background("file_hash");
        // A file deleted meanwhile has nothing left to hash.
        if let Ok(hash) = sha256_of(&path).await
            && let Err(e) = state.db.set_file_hash(&object_id, size, &hash).await
        {
            tracing::warn!(object_id, "keeping an upload's hash: {e}");
        }
    });
}

/// How long an upload's claim on its file lasts without renewal: an instance that died
/// mid-upload frees the file for a retry this long after its last renewal.
const UPLOAD_CLAIM_MS: i64 = 60_000;

/// The one upload allowed to fill a pending file (`db/uploads.rs`), held from the first byte
/// to `finish`: renewed while held, and given back by `release` (a refused or broken body) or,
/// if the request is dropped midway, by a task its drop starts, so the client's retry may take
/// the file at once.
pub struct UploadClaim {
    state: Arc<AppState>,
    object_id: String,
    token: String,
    renewing: tokio::task::JoinHandle<()>,
    finished: bool,
}

/// Claims pending file `object_id` for one upload: 409 when it already has its bytes or another
/// upload holds it, 404 when it is gone.
pub async fn claim_upload(state: &Arc<AppState>, object_id: &str) -> AppResult<UploadClaim> {
    use crate::db::UploadRefusal;
    let token = names::random_id(24);
    let now = clock::now_ms();
    match state
        .db
        .claim_upload(object_id, &token, now, now + UPLOAD_CLAIM_MS)
        .await?
    {
        Ok(()) => {}
        Err(UploadRefusal::Ready) => return Err(AppError::AlreadyUploaded),
        Err(UploadRefusal::Busy) => return Err(AppError::UploadInProgress),
        Err(UploadRefusal::Gone) => return Err(AppError::FileMissing),
    }
    let renewing = {
        let (state, object_id, token) = (state.clone(), object_id.to_string(), token.clone());
        tokio::spawn(async move {
            let _task = crate::metrics::background("upload_claim");
            let period = std::time::Duration::from_millis(UPLOAD_CLAIM_MS as u64 / 3);
            loop {
                tokio::time::sleep(period).await;
                let until = clock::now_ms() + UPLOAD_CLAIM_MS;
                match state.db.renew_upload(&object_id, &token, until).await {
                    Ok(true) => {}
                    Ok(false) => return,
                    Err(e) => tracing::warn!(object_id, "renewing an upload's claim: {e}"),
                }
            }
        })
    };
    Ok(UploadClaim {
        state: state.clone(),
        object_id: object_id.to_string(),
        token,
        renewing,
        finished: false,
    })
}

impl UploadClaim {
    /// Turns the file ready with the `size` bytes just stored under it, and hashes them after
    /// the answer where they lie on this disk. `None` when the file went (deleted, or its
    /// directory expired) or the claim lapsed to another upload meanwhile.
    pub async fn finish(
        mut self,
        size: u64,
        content_type: Option<&str>,
        local_path: Option<PathBuf>,
    ) -> AppResult<Option<FileRecord>> {
        self.renewing.abort();
        let file = self
            .state
            .db
            .finish_upload(&self.object_id, &self.token, size, content_type)
            .await?;
        self.finished = true;
        if let (Some(_), Some(path)) = (&file, local_path) {
            hash_later(&self.state, &self.object_id, size, path);
        }
        Ok(file)
    }
}

impl UploadClaim {
    /// Gives the file back unfilled (a refused or broken upload).
    pub async fn release(mut self) {
        self.renewing.abort();
        self.finished = true;
        if let Err(e) = self
            .state
            .db
            .release_upload(&self.object_id, &self.token)
            .await
        {
            // It lapses by itself after `UPLOAD_CLAIM_MS`.
            tracing::warn!(self.object_id, "releasing an upload's claim: {e}");
        }
    }
}

impl Drop for UploadClaim {
    fn drop(&mut self) {
        self.renewing.abort();
        if !self.finished {
            let (state, object_id, token) = (
                self.state.clone(),
                std::mem::take(&mut self.object_id),
                std::mem::take(&mut self.token),
            );
            tokio::spawn(async move {
                if let Err(e) = state.db.release_upload(&object_id, &token).await {
                    // It lapses by itself after `UPLOAD_CLAIM_MS`.
                    tracing::warn!(object_id, "releasing an upload's claim: {e}");
                }
            });
        }
    }
}

/// SHA-256 (hex) of a local file, read once in 1 MiB blocks off the async threads.
pub async fn sha256_of(path: &Path) -> AppResult<String> {
    use sha2::Digest;
    use std::io::Read;
    let path = path.to_path_buf();
    tokio::task::spawn_blocking(move || -> std::io::Result<String> {
        let mut file = std::fs::File::open(path)?;
        let mut hasher = sha2::Sha256::new();
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n = file.read(&mut buf)?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
        }
        Ok(hex::encode(hasher.finalize()))
    })
    .await
    .map_err(|e| AppError::Internal(e.into()))?
    .map_err(|e| AppError::Internal(e.into()))
}

/// Refuses (403) when `adding` more bytes to `dir_id` would take its account past its plan's
/// storage bound (`Plan::max_storage_bytes`: bytes in live directories); a new file record (size still unknown) needs
/// the account to be under the limit. `owner` is the directory's account when the caller has
/// it (a request's, a task's), which saves reading it again.
pub async fn check_storage(
    state: &AppState,
    dir_id: &str,
    adding: u64,
    owner: Option<&Account>,
) -> AppResult<()> {
    let Some(dir) = state.db.directory(dir_id, clock::now_ms()).await? else {
        return Err(AppError::DirectoryNotFound);
    };
    let read;
    let account = match owner {
        Some(account) => account,
        None => match state.auth.account(&dir.account).await? {
            Some(account) => {
                read = account;
                &read
            }
            None => return Ok(()),
        },
    };
    let limit = state.plan_of(account)?.1.max_storage_bytes();
    let used = state
        .db
        .storage_used(&account.name, clock::now_ms())
        .await?;
    if used + adding > limit || (adding == 0 && used >= limit) {
        return Err(AppError::StorageLimitExceeded);
    }
    Ok(())
}

/// Creates a record in a directory of `owner`, 409 when the name is taken, 404 when the
/// directory is no longer live, 403 when the account is at its storage limit.
pub async fn create(state: &AppState, owner: &Account, record: &FileRecord) -> AppResult<()> {
    check_storage(state, &record.dir_id, 0, Some(owner)).await?;
    insert(state, record).await
}

/// The record, its storage already checked.
async fn insert(state: &AppState, record: &FileRecord) -> AppResult<()> {
    match state.db.create_file(record, clock::now_ms()).await {
        Ok(()) => Ok(()),
        Err(DbError::Conflict) => Err(AppError::FileExists(record.file_name.clone())),
        Err(DbError::DirectoryGone) => Err(AppError::DirectoryNotFound),
        Err(e) => Err(e.into()),
    }
}

/// Stores bytes (an import, a legacy upload part) as a new file `name` in `dir_id`, a
/// directory of `owner`: a taken name is refused and the account's storage checked. Record
/// first (it reserves the name while the bytes go in), then the bytes, then the record turns
/// ready.
pub async fn store(
    state: &AppState,
    dir_id: &str,
    name: &str,
    src: &Path,
    owner: &Account,
) -> AppResult<FileRecord> {
    let bytes = tokio::fs::metadata(src)
        .await
        .map_err(anyhow::Error::from)?
        .len();
    check_storage(state, dir_id, bytes, Some(owner)).await?;
    let record = pending(dir_id, name);
    insert(state, &record).await?;
    let size = match state.store.put_file(&record.object_id, src).await {
        Ok(size) => size,
        Err(e) => {
            // No record without bytes: the pending record goes with whatever was written.
            if let Err(cleanup) = delete(state, dir_id, name).await {
                tracing::warn!(dir_id, name, "removing a failed store: {cleanup}");
            }
            return Err(e.into());
        }
    };
    match state
        .db
        .mark_uploaded(&record.object_id, size, guess_type(name).as_deref(), None)
        .await?
    {
        Some(file) => Ok(file),
        None => {
            // The directory expired (its sweep marked the record) while the bytes went in; the
            // sweep may have finished before they landed, so they are removed here too.
            state.store.delete(&record.object_id).await?;
            Err(AppError::DirectoryNotFound)
        }
    }
}

/// Stores a task's output (or a cached output, with its hash) as `name` in `dir_id`, in place
/// of any file of that name: re-running a task replaces its outputs. The owner's storage limit
/// is checked in the write that records it, for `room` bytes (this output's and those of the
/// task's outputs stored after it), when given. Bytes first, under an object no record names
/// (a crash here leaves an orphan the sweeper removes), then one write puts the ready record
/// in place of the old one, whose bytes go last.
pub async fn store_output(
    state: &AppState,
    dir_id: &str,
    name: &str,
    src: Bytes<'_>,
    owner: &Account,
    room: Option<u64>,
) -> AppResult<FileRecord> {
    let limit = match room {
        Some(adding) => Some(Room {
            account: &owner.name,
            limit: state.plan_of(owner)?.1.max_storage_bytes(),
            adding,
        }),
        None => None,
    };
    let mut record = pending(dir_id, name);
    let (size, sha256) = match src {
        Bytes::Local(path) => (state.store.put_file(&record.object_id, path).await?, None),
        Bytes::Object {
            object_id,
            size,
            sha256,
        } => {
            state.store.copy(object_id, &record.object_id).await?;
            (size, sha256.map(str::to_string))
        }
    };
    record.state = FileState::Ready;
    record.size = size;
    record.content_type = guess_type(name);
    record.sha256 = sha256;
    match state.db.replace_file(&record, clock::now_ms(), limit).await {
        Ok(replaced) => {
            for object in replaced {
                if let Err(e) = state.store.delete(&object).await {
                    // Its record is gone: the orphan sweep takes the bytes later.
                    tracing::warn!(dir_id, name, "removing a replaced output: {e}");
                }
            }
            Ok(record)
        }
        Err(e) => {
            let _ = state.store.delete(&record.object_id).await;
            Err(match e {
                DbError::Conflict => AppError::FileExists(name.to_string()),
                DbError::DirectoryGone => AppError::DirectoryNotFound,
                DbError::StorageFull => AppError::StorageLimitExceeded,
                other => other.into(),
            })
        }
    }
}

/// The file if its bytes are in the store. An upload made straight to a store that cannot cap
/// its size (S3), or one whose record update a crash lost, is adopted here at first use: its
/// size is read, and an object over the plan's limit is deleted with its record and refused
/// with the plan's 403. Idempotent, so instances (and the sweeper) adopting at once agree.
pub async fn adopt(
    state: &AppState,
    file: FileRecord,
    plan_name: &str,
    max_file_size_mb: f64,
) -> AppResult<Option<FileRecord>> {
    match file.state {
        FileState::Ready => return Ok(Some(file)),
        FileState::Pending => {}
        _ => return Ok(None),
    }
    let Some(size) = state.store.size(&file.object_id).await? else {
        return Ok(None);
    };
    if size > crate::config::mb_to_bytes(max_file_size_mb) {
        if delete(state, &file.dir_id, &file.file_name).await? {
            tracing::info!(
                file.dir_id,
                file.file_name,
                size,
                "upload over the plan's limit deleted"
            );
        }
        return Err(AppError::file_too_large(
            &file.file_name,
            size,
            plan_name,
            max_file_size_mb,
        ));
    }
    if let Err(e) = check_storage(state, &file.dir_id, size, None).await {
        delete(state, &file.dir_id, &file.file_name).await?;
        return Err(e);
    }
    let content_type = guess_type(&file.file_name);
    Ok(state
        .db
        .mark_uploaded(&file.object_id, size, content_type.as_deref(), None)
        .await?)
}

/// A stored file a task or probe may read: uploaded, and within the plan's size.
pub async fn readable(
    state: &AppState,
    dir_id: &str,
    file_name: &str,
    plan_name: &str,
    plan: &Plan,
) -> AppResult<FileRecord> {
    let file = state
        .db
        .file(dir_id, file_name)
        .await?
        .ok_or(AppError::FileNotFound)?;
    let file = adopt(state, file, plan_name, plan.max_file_size_mb)
        .await?
        .ok_or(AppError::FileNotFound)?;
    if file.size > plan.max_file_size_bytes() {
        return Err(AppError::file_too_large(
            &file.file_name,
            file.size,
            plan_name,
            plan.max_file_size_mb,
        ));
    }
    Ok(file)
}

/// Deletes a file: hidden first, then bytes, then record, so a crash in between leaves a
/// `deleting` record that the sweeper finishes, never bytes without a record. `false` when
/// the file was already gone (or another request is deleting it).
pub async fn delete(state: &AppState, dir_id: &str, file_name: &str) -> AppResult<bool> {
    let Some(file) = state.db.mark_deleting(dir_id, file_name).await? else {
        return Ok(false);
    };
    state.store.delete(&file.object_id).await?;
    state.db.finish_delete(&file.object_id).await?;
    Ok(true)
}

/// A fresh presigned download URL for a stored object.
pub async fn download_url(state: &AppState, object_id: &str, name: &str) -> AppResult<String> {
    let ttl = state.cfg.storage.download_url_ttl_s;
    Ok(state
        .store
        .presign_download(object_id, name, ttl)
        .await?
        .url)
}

/// A playback URL for an HLS playlist or DASH manifest `name` of directory `dir_id`
/// (`api/share.rs`); `None` for any other file.
pub fn playback_url(state: &AppState, dir_id: &str, name: &str) -> Option<String> {
    if !is_manifest(name) {
        return None;
    }
    let prefix = state
        .blob_urls
        .share_prefix(dir_id, state.cfg.storage.playback_url_ttl_s);
    let name = percent_encoding::utf8_percent_encode(name, URL_NAME);
    Some(format!("{prefix}{name}"))
}

/// What a file name escapes in a URL path: all but RFC 3986's unreserved characters.
const URL_NAME: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'.')
    .remove(b'-')
    .remove(b'_')
    .remove(b'~');

/// An HLS playlist or a DASH manifest: what a player opens first and resolves the other files
/// of its directory against.
pub fn is_manifest(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".m3u8") || lower.ends_with(".mpd")
}
