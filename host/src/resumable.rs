//! Resumable uploads with the tus 1.0 protocol (`api/tus.rs` speaks it): a second way to fill a
//! file record, for large media over networks that break. A creation makes the pending file
//! record (as `POST /file` does) and takes its upload claim (`db/uploads.rs`) for as long as the
//! upload lives, so no presigned PUT can race it; each PATCH appends at the offset the database
//! holds and moves it on; the last byte stores the file and turns the record ready. An upload
//! left alone past its expiry is removed with its record and its bytes (`sweep`).
//!
//! A PATCH holds the upload's lock in the database (`db/tus.rs`) while it runs, with a lease it
//! renews every few seconds: a second PATCH of the same upload waits a little for it, then is
//! refused (423), and an instance that dies mid-PATCH holds it no longer than the lease.
//!
//! Where the bytes go depends on the store:
//! - S3 (any store with multipart uploads): each upload is an S3 multipart upload, started at
//!   creation. A PATCH's bytes are cut into parts in memory and sent as they fill; the bytes
//!   after its last whole part go to a small tail object in the bucket, read back by the next
//!   PATCH (`parts.rs` says why). The row holds the multipart upload's id, the parts counted
//!   and the tail, so any instance may take the next PATCH, and no instance's disk holds any of
//!   it. The last byte completes the multipart upload into the file's object.
//! - the local disk: the bytes are appended to `<data_dir>/tus/<id>.part` and stored whole at
//!   the end (`put_file`, a rename on the same disk); an upload is then served by the instance
//!   that holds its file, as the local backend's files are.
//!
//! Termination and expiry abort the multipart upload and delete the tail (or the `.part` file),
//! so an upload that does not finish leaves no object behind.

mod parts;
mod writers;

pub use writers::Writers;
use writers::{Found, Kept};

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::app::AppState;
use crate::db::{Account, TusAdvance, TusLock, TusPart, TusUpload};
use crate::error::{AppError, AppResult};
use crate::storage::Multipart;
use crate::storage::spool::Spool;
use crate::{clock, directories, files, names};

/// How long a PATCH's lock lasts unless renewed, and how often it is renewed while the PATCH
/// lives (by a task of its own, so a slow client or a slow part does not let it lapse).
const LEASE_MS: i64 = 60_000;
const RENEW_EVERY: Duration = Duration::from_secs(10);
/// How long a PATCH waits for another PATCH of its upload to end before it is refused.
const LOCK_WAIT: Duration = Duration::from_secs(10);

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
    let mut upload = TusUpload {
        tus_id: names::random_id(32),
        account: account.name.clone(),
        object_id: record.object_id.clone(),
        claim: names::random_id(24),
        dir_id: dir.dir_id.clone(),
        file_name: file_name.to_string(),
        length,
        offset: 0,
        expires_at: expiry(state),
        multipart: None,
        parts: Vec::new(),
        tail: None,
        lock: None,
        locked_until: 0,
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
    if let Some(multipart) = state.store.clone().multipart() {
        match multipart.start(&upload.object_id).await {
            Ok(id) => upload.multipart = Some(id),
            Err(e) => {
                let _ = state
                    .db
                    .release_upload(&upload.object_id, &upload.claim)
                    .await;
                let _ = files::delete(state, &upload.dir_id, &upload.file_name).await;
                return Err(AppError::Internal(e));
            }
        }
    }
    if let Err(e) = state.db.create_tus(&upload).await {
        if let (Some(m), Some(id)) = (state.store.clone().multipart(), &upload.multipart) {
            let _ = m.abort(&upload.object_id, id).await;
        }
        return Err(e.into());
    }
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
        Some(mut u) if u.account == account.name && u.expires_at >= clock::now_ms() => {
            // Counts a kept chain of PATCHes holds in memory (`resumable/writers.rs`).
            if let Some(offset) = state.tus_writers.offset_of(tus_id) {
                u.offset = offset;
            }
            Ok(u)
        }
        _ => Err(AppError::NotFound),
    }
}

/// A checksum the client sent for one PATCH's bytes (the tus checksum extension).
pub struct Checksum {
    pub sha256: Vec<u8>,
}

/// Where a PATCH's bytes go.
enum Sink {
    /// Written by a thread of its own as the bytes arrive, as a PUT's are (`storage/spool.rs`);
    /// `None` once finished.
    Disk { spool: Option<Spool>, path: PathBuf },
    Parts {
        store: Arc<dyn Multipart>,
        parts: parts::Parts,
    },
}

/// One PATCH's bytes being appended, with the upload's lock held until it is dropped.
pub struct Append {
    state: Arc<AppState>,
    upload: TusUpload,
    token: String,
    heartbeat: Heartbeat,
    /// The lock is let go (or was, by `advance_tus`), or kept for the next PATCH.
    released: bool,
    /// The offset the upload's row holds, and when this PATCH's chain wrote it (`None`: a PATCH
    /// that took the lock itself, which counts in the row whatever happens).
    recorded: u64,
    recorded_at: Option<Instant>,
    sink: Sink,
    written: u64,
    /// Only when the PATCH carries a checksum: hashing every byte would slow every upload.
    hash: Option<Sha256>,
}

/// Takes the upload's lock for a PATCH at `offset`: waits up to `LOCK_WAIT` for a PATCH running
/// now; 409 when the upload is at another offset.
async fn lock(state: &AppState, tus_id: &str, offset: u64, token: &str) -> AppResult<TusUpload> {
    let waited = Instant::now();
    loop {
        let now = clock::now_ms();
        match state
            .db
            .lock_tus(tus_id, offset, token, now, now + LEASE_MS)
            .await?
        {
            TusLock::Taken(upload) => return Ok(*upload),
            TusLock::Moved(expected) => return Err(AppError::TusOffset { expected }),
            TusLock::Gone => return Err(AppError::NotFound),
            TusLock::Locked if waited.elapsed() < LOCK_WAIT => {
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            TusLock::Locked => return Err(AppError::TusLocked),
        }
    }
}

/// Starts appending to `tus_id` at `offset`, which must be where it stands (409 otherwise);
/// `checked`: a checksum of the bytes will be given to `finish`.
pub async fn append(
    state: &Arc<AppState>,
    account: &Account,
    tus_id: &str,
    offset: u64,
    checked: bool,
) -> AppResult<Append> {
    // The chain of PATCHes this one continues on this instance, if one was kept: its writer,
    // its lock and the upload as it stands (`resumable/writers.rs`).
    match state.tus_writers.take(tus_id, &account.name, offset) {
        Found::Elsewhere(expected) => return Err(AppError::TusOffset { expected }),
        Found::Kept(kept) if kept.upload.expires_at >= clock::now_ms() && kept.intact().await => {
            let Kept {
                spool,
                path,
                upload,
                token,
                recorded,
                recorded_at,
                ..
            } = *kept;
            return Ok(Append {
                state: state.clone(),
                heartbeat: Heartbeat::start(state.clone(), &upload.tus_id, &token),
                upload,
                token,
                released: false,
                recorded,
                recorded_at: Some(recorded_at),
                sink: Sink::Disk {
                    spool: Some(spool),
                    path,
                },
                written: 0,
                hash: checked.then(Sha256::new),
            });
        }
        // Expired, or its file cut under it: ended, and the PATCH goes the long way.
        Found::Kept(kept) => writers::release(state, *kept).await,
        Found::None => {}
    }
    // The lock first, its row read with it (one query a PATCH less); an upload not the
    // caller's is let go at once, and any refusal waits for `status` to say 404 to another
    // account before it says anything of the upload.
    let token = names::random_id(24);
    let upload = match lock(state, tus_id, offset, &token).await {
        Ok(u) if u.account == account.name && u.expires_at >= clock::now_ms() => u,
        Ok(_) => {
            let _ = state.db.unlock_tus(tus_id, &token).await;
            return Err(AppError::NotFound);
        }
        Err(e) => {
            status(state, account, tus_id).await?;
            return Err(e);
        }
    };
    let sink = match sink(state, &upload, &token).await {
        Ok(sink) => sink,
        Err(e) => {
            let _ = state.db.unlock_tus(tus_id, &token).await;
            return Err(e);
        }
    };
    Ok(Append {
        state: state.clone(),
        heartbeat: Heartbeat::start(state.clone(), &upload.tus_id, &token),
        recorded: upload.offset,
        recorded_at: None,
        upload,
        token,
        released: false,
        sink,
        written: 0,
        hash: checked.then(Sha256::new),
    })
}

async fn sink(state: &AppState, upload: &TusUpload, token: &str) -> AppResult<Sink> {
    Ok(match state.store.clone().multipart() {
        Some(store) if upload.multipart.is_some() => Sink::Parts {
            parts: parts::Parts::open(store.clone(), upload)
                .await
                .map_err(AppError::Internal)?,
            store,
        },
        _ => {
            let (file, path) = open_part(state, upload, token).await?;
            Sink::Disk {
                spool: Some(Spool::append(file, upload.offset)),
                path,
            }
        }
    })
}

/// The local store's `.part` file, cut at the recorded offset and positioned there.
///
/// A PATCH's bytes are written to the file before it counts them but synced only at the end
/// (as tusd does): a sync per PATCH held every PATCH up while the disk caught up, at more
/// than half the upload's time (`make bench tus`). Written bytes survive the process; a
/// machine that went down may lose the last ones, which leaves the file shorter than the
/// offset counted. The upload then goes back to what the file holds (a 409 with that offset;
/// HEAD answers it after), and the client sends the rest again from there.
async fn open_part(
    state: &AppState,
    upload: &TusUpload,
    token: &str,
) -> AppResult<(std::fs::File, PathBuf)> {
    let path = part_path(state, &upload.tus_id);
    let offset = upload.offset;
    // One blocking call for the file's few steps: each is a hop to the blocking pool otherwise,
    // and every PATCH pays them (`make bench tus`).
    let opened = {
        let path = path.clone();
        tokio::task::spawn_blocking(move || -> std::io::Result<(std::fs::File, u64)> {
            use std::io::Seek;
            std::fs::create_dir_all(path.parent().expect("in tus/"))?;
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .write(true)
                .truncate(false)
                .open(&path)?;
            let held = file.metadata()?.len();
            if held >= offset {
                // Bytes past the recorded offset are a PATCH that broke off: never counted.
                file.set_len(offset)?;
                file.seek(std::io::SeekFrom::Start(offset))?;
            }
            Ok((file, held))
        })
        .await
        .map_err(|e| AppError::Internal(e.into()))?
    };
    let (file, held) = opened.map_err(|e| AppError::from(anyhow::Error::from(e)))?;
    if held < offset {
        tracing::warn!(
            tus_id = upload.tus_id,
            held,
            counted = offset,
            "a resumable upload lost bytes it had counted (a crash?): it goes back"
        );
        state
            .db
            .rewind_tus(&upload.tus_id, token, offset, held)
            .await?;
        return Err(AppError::TusOffset { expected: held });
    }
    Ok((file, path))
}

impl Append {
    /// Bytes of the body; past the declared length is refused and nothing of it kept.
    pub async fn write(&mut self, chunk: bytes::Bytes) -> AppResult<()> {
        let end = self.upload.offset + self.written + chunk.len() as u64;
        if end > self.upload.length {
            return Err(AppError::TusPastLength(self.upload.length));
        }
        if self.heartbeat.lost.load(Ordering::SeqCst) {
            return Err(AppError::TusLocked);
        }
        let len = chunk.len() as u64;
        if let Some(hash) = &mut self.hash {
            hash.update(&chunk);
        }
        match &mut self.sink {
            Sink::Disk { spool, .. } => spool
                .as_mut()
                .expect("open until finish")
                .write(chunk)
                .await
                .map_err(|e| AppError::from(anyhow::Error::from(e)))?,
            Sink::Parts { parts, .. } => parts.write(&chunk).await.map_err(AppError::Internal)?,
        }
        self.written += len;
        Ok(())
    }

    /// Counts what was written (after the checksum, when one came): the new offset, and the
    /// upload's new expiry, or `None` when that was the last byte (the file is then stored and
    /// its record ready).
    pub async fn finish(mut self, checksum: Option<Checksum>) -> AppResult<(u64, Option<i64>)> {
        if let Some(sum) = checksum
            && self.hash.take().map(|h| h.finalize().to_vec()).as_deref()
                != Some(sum.sha256.as_slice())
        {
            return Err(AppError::TusChecksum);
        }
        let from = self.upload.offset;
        let to = from + self.written;
        let last = to == self.upload.length;
        let mut new_parts: Vec<TusPart> = Vec::new();
        let mut tail = self.upload.tail.clone();
        let state = self.state.clone();
        // A writer still writing, kept with the lock for the next PATCH once this one counts
        // (`resumable/writers.rs`); the last PATCH's bytes are written and synced first.
        let mut writing = None;
        match &mut self.sink {
            Sink::Disk { spool, .. } => {
                let spool = spool.take().expect("open until finish");
                let done = if last {
                    spool.finish().await
                } else if state.tus_writers.room() {
                    writing = Some(spool);
                    Ok(0)
                } else {
                    spool.written().await.map(|(n, _)| n)
                };
                done.map_err(|e| AppError::from(anyhow::Error::from(e)))?;
            }
            // An empty PATCH before the end changes nothing: the tail stays.
            Sink::Parts { .. } if self.written == 0 && !last => {}
            Sink::Parts { parts, .. } => {
                new_parts = parts
                    .finish(last, &self.upload.tus_id, to)
                    .await
                    .map_err(AppError::Internal)?
                    .to_vec();
                tail = parts.new_tail.clone();
            }
        }
        crate::timing::mark("sync");
        let expires = expiry(&state);
        // A renewal still on its way finds the lock gone with the token (`advance_tus`), or
        // renews it for the chain that keeps it.
        self.heartbeat.task.abort();
        // A chain's count waits in memory while its last one is recent (it also renews the
        // lock's lease and the upload's expiry in the row).
        let waits = writing.is_some()
            && self
                .recorded_at
                .is_some_and(|at| at.elapsed() < writers::COUNT_EVERY);
        if !waits {
            let counted = state
                .db
                .advance_tus(
                    &self.upload.tus_id,
                    &TusAdvance {
                        from: self.recorded,
                        to,
                        expires_at: expires,
                        lock: &self.token,
                        parts: &new_parts,
                        tail: tail.as_ref(),
                        object_id: &self.upload.object_id,
                        claim: &self.upload.claim,
                        keep_lock_until: writing.is_some().then(|| clock::now_ms() + LEASE_MS),
                    },
                )
                .await?;
            if !counted {
                if let Some(spool) = writing {
                    // Its bytes land before another PATCH reopens the file.
                    let _ = spool.written().await;
                }
                return Err(AppError::TusOffset { expected: from });
            }
            self.recorded = to;
            self.recorded_at = Some(Instant::now());
        }
        // Counted: the lock went with it (or stays with the chain kept below), and the tail
        // this PATCH left is the upload's now.
        self.released = true;
        if let (Some(spool), Sink::Disk { path, .. }) = (writing, &self.sink) {
            let mut upload = self.upload.clone();
            upload.offset = to;
            upload.expires_at = expires;
            let kept = Kept {
                spool,
                path: path.clone(),
                upload,
                token: self.token.clone(),
                recorded: self.recorded,
                recorded_at: self.recorded_at.unwrap_or_else(Instant::now),
                since: Instant::now(),
            };
            if let Err(kept) = state.tus_writers.keep(kept) {
                // No room left: written, counted and let go now.
                writers::release(&state, *kept).await;
            }
        }
        if let Some(old) = &self.upload.tail
            && tail.as_ref() != Some(old)
        {
            // The tail before this PATCH, now in a part or in the new tail.
            let _ = state.store.delete(&old.object).await;
        }
        self.upload.parts.extend(new_parts);
        self.upload.tail = tail;
        crate::timing::mark("count");
        if !last {
            return Ok((to, Some(expires)));
        }
        let u = &self.upload;
        let size = match &self.sink {
            Sink::Disk { path, .. } => state.store.put_file(&u.object_id, path).await?,
            Sink::Parts { store, .. } => complete(&state, store.as_ref(), u).await?,
        };
        let kind = crate::storage::attachment::guess_type(&u.file_name);
        let done = state
            .db
            .finish_upload(&u.object_id, &u.claim, size, kind.as_deref())
            .await?;
        state.db.delete_tus(&u.tus_id).await?;
        if let Sink::Disk { path, .. } = &self.sink {
            let _ = tokio::fs::remove_file(path).await;
        }
        done.ok_or(AppError::FileMissing)?;
        crate::timing::mark("store");
        Ok((to, None))
    }
}

/// Joins the counted parts into the file's object: its size. Safe to run again (an empty PATCH
/// at the end retries it) after a completion whose answer was lost.
async fn complete(state: &AppState, store: &dyn Multipart, u: &TusUpload) -> AppResult<u64> {
    let id = u.multipart.as_deref().expect("an upload with parts");
    if u.parts.is_empty() {
        // An empty file: S3 completes no upload without a part.
        store.abort(&u.object_id, id).await?;
        store.put_bytes(&u.object_id, bytes::Bytes::new()).await?;
        return Ok(0);
    }
    let list: Vec<(u32, String)> = u.parts.iter().map(|p| (p.number, p.etag.clone())).collect();
    let completed = store.complete(&u.object_id, id, &list).await;
    // The object the store made, whatever it answered (a lost answer, a retried completion).
    match (completed, state.store.size(&u.object_id).await?) {
        (_, Some(size)) if size == u.length => Ok(size),
        (Err(e), _) => Err(e.into()),
        (Ok(()), size) => Err(AppError::Internal(anyhow::anyhow!(
            "upload {}: the parts made an object of {size:?} bytes, not {}",
            u.tus_id,
            u.length
        ))),
    }
}

/// Renews a PATCH's lock every `RENEW_EVERY` while the PATCH lives; `lost` once another PATCH
/// holds it (this one stalled past the lease, say: it must send nothing more).
struct Heartbeat {
    task: tokio::task::AbortHandle,
    lost: Arc<AtomicBool>,
}

impl Heartbeat {
    fn start(state: Arc<AppState>, tus_id: &str, token: &str) -> Heartbeat {
        let lost = Arc::new(AtomicBool::new(false));
        let (tus_id, token, flag) = (tus_id.to_string(), token.to_string(), lost.clone());
        let task = tokio::spawn(async move {
            let _task = crate::metrics::background("tus_lock");
            loop {
                tokio::time::sleep(RENEW_EVERY).await;
                let until = clock::now_ms() + LEASE_MS;
                match state
                    .db
                    .renew_tus_lock(&tus_id, &token, until, expiry(&state))
                    .await
                {
                    Ok(true) => {}
                    Ok(false) => {
                        flag.store(true, Ordering::SeqCst);
                        break;
                    }
                    // The database may answer again within the lease.
                    Err(e) => tracing::warn!(tus_id, "renewing a PATCH's lock failed: {e}"),
                }
            }
        })
        .abort_handle();
        Heartbeat { task, lost }
    }
}

impl Drop for Append {
    /// A PATCH that did not count (an error, a body cut off, a client gone): its lock goes once
    /// its part in flight has landed, and the tail it left, if any, is deleted.
    fn drop(&mut self) {
        if self.released {
            return;
        }
        let state = self.state.clone();
        // Counts of the chain this PATCH continued may wait in memory (`recorded` short of the
        // upload's offset): the bytes before this PATCH's are good, once the writer is drained.
        let (upload, token, recorded) = (self.upload.clone(), self.token.clone(), self.recorded);
        let (sending, new_tail, spool) = match &mut self.sink {
            Sink::Parts { parts, .. } => (parts.in_flight(), parts.new_tail.take(), None),
            Sink::Disk { spool, .. } => (None, None, spool.take()),
        };
        let heartbeat = self.heartbeat.task.clone();
        tokio::spawn(async move {
            // The lock stays (renewed) until the part in flight has landed.
            if let Some(sending) = sending {
                let _ = sending.await;
            }
            // Likewise the writer's queued chunks, so none lands after the next PATCH's.
            let mut written = true;
            if let Some(spool) = spool {
                written = spool.written().await.is_ok();
            }
            heartbeat.abort();
            if let Some(tail) = new_tail {
                let _ = state.store.delete(&tail.object).await;
            }
            writers::let_go(&state, &upload, &token, recorded, written).await;
        });
    }
}

/// Ends an upload now (the tus termination extension): its record and bytes go.
pub async fn terminate(state: &AppState, account: &Account, tus_id: &str) -> AppResult<()> {
    let upload = status(state, account, tus_id).await?;
    remove(state, &upload).await
}

async fn remove(state: &AppState, upload: &TusUpload) -> AppResult<()> {
    if let (Some(store), Some(id)) = (state.store.clone().multipart(), &upload.multipart)
        && let Err(e) = store.abort(&upload.object_id, id).await
    {
        // A store that does not answer: tried again at the next sweep. Any other refusal is an
        // upload already gone (S3 answers 404, s3s-fs 403 for an id it no longer knows).
        if e.is::<crate::storage::Unavailable>() {
            return Err(e.into());
        }
        tracing::warn!(
            tus_id = upload.tus_id,
            "aborting the multipart upload failed, taken as gone: {e:#}"
        );
    }
    if let Some(tail) = &upload.tail {
        state.store.delete(&tail.object).await?;
    }
    state.db.delete_tus(&upload.tus_id).await?;
    state.tus_writers.close(&upload.tus_id).await;
    let _ = tokio::fs::remove_file(part_path(state, &upload.tus_id)).await;
    state
        .db
        .release_upload(&upload.object_id, &upload.claim)
        .await?;
    files::delete(state, &upload.dir_id, &upload.file_name).await?;
    Ok(())
}

/// Whether `object` is a resumable upload's tail (`parts.rs`).
pub fn is_tail(object: &str) -> bool {
    parts::tail_upload(object).is_some()
}

/// Deletes tails (older than the orphan sweep's grace) that their upload does not name: left by
/// an instance that died between storing a PATCH's tail and counting or dropping it.
pub async fn sweep_tails(state: &AppState, objects: &[String]) -> AppResult<()> {
    for object in objects {
        let Some(tus_id) = parts::tail_upload(object) else {
            continue;
        };
        let named = state
            .db
            .tus(tus_id)
            .await?
            .and_then(|u| u.tail)
            .is_some_and(|t| &t.object == object);
        if !named {
            state.store.delete(object).await?;
            tracing::info!(object, "orphaned resumable upload tail removed");
        }
    }
    Ok(())
}

/// Removes uploads left alone past their expiry (the sweeper's turn).
pub async fn sweep(state: &AppState) -> AppResult<()> {
    state.tus_writers.close_idle(state).await;
    for upload in state.db.expired_tus(clock::now_ms(), 200).await? {
        tracing::info!(tus_id = upload.tus_id, "resumable upload expired");
        remove(state, &upload).await?;
    }
    Ok(())
}
