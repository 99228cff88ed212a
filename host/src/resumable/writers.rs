//! A local upload's PATCHes on one instance as one stream (the local store only).
//!
//! Each PATCH of a 1 GB upload in 16 MB PATCHes paid, on an idle machine, for waiting for its
//! writer thread (`storage/spool.rs`) to catch up, for taking the upload's lock and for counting
//! its bytes: a quarter and then a third of the upload's time against one PUT of the same bytes
//! (`make bench tus`). So a PATCH that does not finish the upload leaves here its writer (still
//! writing), the upload's lock (still held) and the upload as it now stands, and the upload's
//! next PATCH on this instance at that offset takes them and goes on, as one PUT's bytes do. Its
//! count reaches the database at most `COUNT_EVERY` later (the count also renews the lock's lease
//! and the upload's expiry); the last PATCH drains, syncs and counts.
//!
//! What this risks is what the local store already takes (`open_part` in `resumable.rs`):
//! - a process that dies loses the counts not yet written and the bytes not yet on disk. The
//!   next PATCH finds the upload at its last written count (a 409, then `HEAD`); bytes past it
//!   are cut, bytes short of it send the client back to what the file holds;
//! - a file found shorter than its writer wrote (cut under it by hand, as `tests/tus` does) is
//!   reopened and goes back the same way.
//!
//! A chain not taken again within `KEEP_FOR` is closed by the sweeper (its count written, its
//! lock let go). At most `MOST` are kept at once: each holds a thread of the blocking pool.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::app::AppState;
use crate::db::{TusAdvance, TusUpload};
use crate::storage::spool::Spool;

/// How long a chain waits for its upload's next PATCH.
const KEEP_FOR: Duration = Duration::from_secs(30);
/// Chains kept at once; past that a PATCH drains, counts and lets go as alone.
const MOST: usize = 64;
/// How long a count may wait in memory.
pub const COUNT_EVERY: Duration = Duration::from_secs(1);

/// What a PATCH leaves for the next.
pub struct Kept {
    pub(super) spool: Spool,
    pub(super) path: PathBuf,
    /// The upload as the PATCH left it: its bytes end at `offset`.
    pub(super) upload: TusUpload,
    /// The lock the upload's row holds for the chain.
    pub(super) token: String,
    /// The offset the row holds, and when it was written.
    pub(super) recorded: u64,
    pub(super) recorded_at: Instant,
    /// When it was kept (`KEEP_FOR`).
    pub(super) since: Instant,
}

impl Kept {
    /// Whether its file still holds what its writer wrote (not cut under it).
    pub async fn intact(&self) -> bool {
        let written = self.spool.written_end();
        tokio::fs::metadata(&self.path)
            .await
            .is_ok_and(|m| m.len() >= written)
    }
}

/// What `take` found for a PATCH.
pub enum Found {
    Kept(Box<Kept>),
    /// The caller's upload stands at this other offset (its chain stays).
    Elsewhere(u64),
    None,
}

#[derive(Default)]
pub struct Writers {
    kept: Mutex<HashMap<String, Kept>>,
}

impl Writers {
    /// The chain `account`'s PATCH at `offset` of `tus_id` continues. Another account's upload
    /// is not reported here (its chain stays).
    pub fn take(&self, tus_id: &str, account: &str, offset: u64) -> Found {
        let mut kept = self.kept.lock().expect("writers lock");
        match kept.get(tus_id) {
            Some(k) if k.upload.account != account => Found::None,
            Some(k) if k.upload.offset != offset => Found::Elsewhere(k.upload.offset),
            Some(_) => kept
                .remove(tus_id)
                .map_or(Found::None, |k| Found::Kept(Box::new(k))),
            None => Found::None,
        }
    }

    /// Where the upload's kept chain has it (counts the database may not hold yet).
    pub fn offset_of(&self, tus_id: &str) -> Option<u64> {
        let kept = self.kept.lock().expect("writers lock");
        kept.get(tus_id).map(|k| k.upload.offset)
    }

    /// Whether one more chain may be kept.
    pub fn room(&self) -> bool {
        self.kept.lock().expect("writers lock").len() < MOST
    }

    /// Keeps `kept` for the upload's next PATCH; `Err` gives it back when there is no room.
    pub fn keep(&self, kept: Kept) -> Result<(), Box<Kept>> {
        let mut all = self.kept.lock().expect("writers lock");
        if all.len() >= MOST {
            return Err(Box::new(kept));
        }
        all.insert(kept.upload.tus_id.clone(), kept);
        Ok(())
    }

    /// Drops the upload's chain, once its bytes are written (the upload is being removed).
    pub async fn close(&self, tus_id: &str) {
        let kept = self.kept.lock().expect("writers lock").remove(tus_id);
        if let Some(kept) = kept {
            let _ = kept.spool.written().await;
        }
    }

    /// Ends the chains kept longer than `KEEP_FOR` (the sweeper's turn).
    pub async fn close_idle(&self, state: &AppState) {
        let idle: Vec<Kept> = {
            let mut kept = self.kept.lock().expect("writers lock");
            let old: Vec<String> = kept
                .iter()
                .filter(|(_, k)| k.since.elapsed() >= KEEP_FOR)
                .map(|(id, _)| id.clone())
                .collect();
            old.iter().filter_map(|id| kept.remove(id)).collect()
        };
        for kept in idle {
            release(state, kept).await;
        }
    }
}

/// Ends a chain: its bytes written, its count (if one waits) written, its lock let go.
pub async fn release(state: &AppState, kept: Kept) {
    let written = kept.spool.written().await.is_ok();
    let_go(state, &kept.upload, &kept.token, kept.recorded, written).await;
}

/// Lets an upload's lock go, writing first the count that waited in memory (`upload` stands
/// past the `recorded` offset) when its bytes were `written`. A writer that failed counts
/// nothing more: the upload goes back to what its file holds at the next PATCH.
pub async fn let_go(
    state: &AppState,
    upload: &TusUpload,
    token: &str,
    recorded: u64,
    written: bool,
) {
    let tus_id = &upload.tus_id;
    let result = if written && recorded < upload.offset {
        state
            .db
            .advance_tus(
                tus_id,
                &TusAdvance {
                    from: recorded,
                    to: upload.offset,
                    expires_at: upload.expires_at,
                    lock: token,
                    parts: &[],
                    tail: None,
                    object_id: &upload.object_id,
                    claim: &upload.claim,
                    keep_lock_until: None,
                },
            )
            .await
            .map(drop)
    } else {
        state.db.unlock_tus(tus_id, token).await
    };
    if let Err(e) = result {
        tracing::warn!(tus_id, "letting a resumable upload's lock go failed: {e}");
    }
}
