//! Resumable uploads (tus 1.0, `resumable.rs`): one row per upload under way, naming the pending
//! file it fills, how long it is, how many bytes are in, and until when it may continue. The
//! offset moves only from the value a PATCH started at, so two PATCHes of one upload cannot both
//! append. A PATCH also holds the row's lock (a token with a lease it renews) while it runs, so
//! on a store with multipart uploads no two PATCHes send parts of one upload at once; the row
//! then names the store's multipart upload, the parts counted so far and the tail (bytes after
//! the last part, kept in a small object of their own).

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{Db, DbResult};

/// An upload under way.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TusUpload {
    pub tus_id: String,
    pub account: String,
    /// The pending file it fills, and the claim it holds on it (`db/uploads.rs`).
    pub object_id: String,
    pub claim: String,
    pub dir_id: String,
    pub file_name: String,
    pub length: u64,
    pub offset: u64,
    /// Unix ms after which it is abandoned (moved on by every PATCH).
    pub expires_at: i64,
    /// The store's multipart upload the bytes go to (S3), or none (bytes on the local disk).
    #[serde(default)]
    pub multipart: Option<String>,
    /// Parts of `multipart` counted so far, in order, numbered from 1.
    #[serde(default)]
    pub parts: Vec<TusPart>,
    /// Bytes after the last part (fewer than a part's minimum), in an object of their own.
    #[serde(default)]
    pub tail: Option<TusTail>,
    /// The PATCH running now, if `locked_until` is still ahead (unix ms).
    #[serde(default)]
    pub lock: Option<String>,
    #[serde(default)]
    pub locked_until: i64,
}

/// A part of an upload's multipart upload.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TusPart {
    pub number: u32,
    pub etag: String,
    pub size: u64,
}

/// The bytes of an upload after its last part.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TusTail {
    pub object: String,
    pub size: u64,
}

/// What a PATCH that succeeded adds to its upload.
pub struct TusAdvance<'a> {
    pub from: u64,
    pub to: u64,
    pub expires_at: i64,
    /// The PATCH's lock token.
    pub lock: &'a str,
    pub parts: &'a [TusPart],
    pub tail: Option<&'a TusTail>,
    /// The pending file the upload fills and its claim, held on to `expires_at` with it.
    pub object_id: &'a str,
    pub claim: &'a str,
    /// Keep the lock until then (unix ms) for the PATCHes that follow on this instance
    /// (`resumable/writers.rs`), instead of letting it go.
    pub keep_lock_until: Option<i64>,
}

/// What `lock_tus` found.
#[derive(Debug, PartialEq)]
pub enum TusLock {
    /// The upload as the lock found it.
    Taken(Box<TusUpload>),
    /// Another PATCH runs now.
    Locked,
    /// The upload is at this other offset.
    Moved(u64),
    Gone,
}

impl Db {
    pub async fn create_tus(&self, upload: &TusUpload) -> DbResult<()> {
        self.exec(
            "CREATE type::record('tus', $id) CONTENT $row RETURN NONE",
            json!({ "id": upload.tus_id, "row": upload }),
        )
        .await
    }

    pub async fn tus(&self, tus_id: &str) -> DbResult<Option<TusUpload>> {
        self.first(
            "SELECT * OMIT id FROM type::record('tus', $id)",
            json!({ "id": tus_id }),
        )
        .await
    }

    /// Takes the upload's lock for a PATCH starting at `offset`, unless another PATCH holds it
    /// (`Locked`) or the upload is elsewhere (`Moved`) or gone (`Gone`).
    pub async fn lock_tus(
        &self,
        tus_id: &str,
        offset: u64,
        token: &str,
        now: i64,
        until: i64,
    ) -> DbResult<TusLock> {
        let row: Option<serde_json::Value> = self
            .first(
                "UPDATE type::record('tus', $id) SET lock = $t, locked_until = $until
                 WHERE offset = $o AND (locked_until ?? 0) < $now RETURN AFTER",
                json!({ "id": tus_id, "o": offset, "t": token, "now": now, "until": until }),
            )
            .await?;
        if let Some(row) = row {
            return serde_json::from_value(super::strip_id(row))
                .map(|u| TusLock::Taken(Box::new(u)))
                .map_err(|e| super::DbError::Other(format!("tus row: {e}")));
        }
        Ok(match self.tus(tus_id).await? {
            None => TusLock::Gone,
            Some(u) if u.offset != offset => TusLock::Moved(u.offset),
            Some(_) => TusLock::Locked,
        })
    }

    /// Moves the lease of the lock `token` holds (and the upload's expiry) on; `false` when it
    /// holds it no more.
    pub async fn renew_tus_lock(
        &self,
        tus_id: &str,
        token: &str,
        until: i64,
        expires_at: i64,
    ) -> DbResult<bool> {
        let row: Option<serde_json::Value> = self
            .first(
                "UPDATE type::record('tus', $id)
                 SET locked_until = $until, expires_at = math::max([expires_at, $e])
                 WHERE lock = $t RETURN lock",
                json!({ "id": tus_id, "t": token, "until": until, "e": expires_at }),
            )
            .await?;
        Ok(row.is_some())
    }

    /// Lets the lock `token` holds go (a PATCH that failed). The token goes with it, so a
    /// renewal still on its way cannot take the lock again (nor can one after `advance_tus`).
    pub async fn unlock_tus(&self, tus_id: &str, token: &str) -> DbResult<()> {
        self.exec(
            "UPDATE type::record('tus', $id) SET lock = NONE, locked_until = 0 WHERE lock = $t
             RETURN NONE",
            json!({ "id": tus_id, "t": token }),
        )
        .await
    }

    /// Counts a PATCH: moves the offset from `from` to `to`, adds its parts, sets the tail, moves
    /// the expiry on (the file's claim with it) and lets the lock go (or keeps it, with
    /// `keep_lock_until`); `false` when the offset was
    /// not at `from` any more or the PATCH's lock was lost (another PATCH took over), when
    /// nothing changes. One query: every PATCH pays it (`make bench tus`).
    pub async fn advance_tus(&self, tus_id: &str, a: &TusAdvance<'_>) -> DbResult<bool> {
        // Statements: 0 BEGIN, 1 LET, 2 IF, 3 SELECT (whether it counted), 4 COMMIT.
        let rows: Vec<serde_json::Value> = self
            .rows_at(
                "BEGIN TRANSACTION;
                 LET $done = (UPDATE type::record('tus', $id)
                     SET offset = $to, expires_at = $e, parts = array::concat(parts ?? [], $parts),
                         tail = $tail, lock = IF $kept != NONE { lock } ELSE { NONE },
                         locked_until = $kept ?? 0
                     WHERE offset = $from AND lock = $t RETURN offset);
                 IF array::len($done) > 0 {
                     UPDATE type::record('file', $o) SET upload_until = $e
                     WHERE state = 'pending' AND upload_claim = $c RETURN NONE;
                 };
                 SELECT * FROM $done;
                 COMMIT TRANSACTION;",
                json!({ "id": tus_id, "from": a.from, "to": a.to, "e": a.expires_at,
                        "t": a.lock, "parts": a.parts, "tail": a.tail,
                        "o": a.object_id, "c": a.claim, "kept": a.keep_lock_until }),
                3,
            )
            .await?;
        Ok(!rows.is_empty())
    }

    /// Moves a locked upload's offset back from `from` to `to` (the bytes its `.part` file
    /// still holds after a crash) and lets the lock go.
    pub async fn rewind_tus(&self, tus_id: &str, token: &str, from: u64, to: u64) -> DbResult<()> {
        self.exec(
            "UPDATE type::record('tus', $id) SET offset = $to, lock = NONE, locked_until = 0
             WHERE offset = $from AND lock = $t RETURN NONE",
            json!({ "id": tus_id, "t": token, "from": from, "to": to }),
        )
        .await
    }

    pub async fn delete_tus(&self, tus_id: &str) -> DbResult<()> {
        self.exec(
            "DELETE type::record('tus', $id) RETURN NONE",
            json!({ "id": tus_id }),
        )
        .await
    }

    /// Uploads abandoned before `now` (and no PATCH running), at most `limit`.
    pub async fn expired_tus(&self, now: i64, limit: u32) -> DbResult<Vec<TusUpload>> {
        self.rows(
            "SELECT * OMIT id FROM tus WHERE expires_at < $now AND (locked_until ?? 0) < $now
             LIMIT $limit",
            json!({ "now": now, "limit": limit }),
        )
        .await
    }
}
