//! Resumable uploads (tus 1.0, `resumable.rs`): one row per upload under way, naming the pending
//! file it fills, how long it is, how many bytes are in, and until when it may continue. The
//! offset moves only from the value a PATCH started at, so two PATCHes of one upload cannot both
//! append.

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

    /// Moves the offset from `from` to `to` (and the expiry on); `false` when it was not at
    /// `from` any more (another PATCH moved it, or the upload ended).
    pub async fn advance_tus(
        &self,
        tus_id: &str,
        from: u64,
        to: u64,
        expires_at: i64,
    ) -> DbResult<bool> {
        let row: Option<serde_json::Value> = self
            .first(
                "UPDATE type::record('tus', $id) SET offset = $to, expires_at = $e
                 WHERE offset = $from RETURN offset",
                json!({ "id": tus_id, "from": from, "to": to, "e": expires_at }),
            )
            .await?;
        Ok(row.is_some())
    }

    pub async fn delete_tus(&self, tus_id: &str) -> DbResult<()> {
        self.exec(
            "DELETE type::record('tus', $id) RETURN NONE",
            json!({ "id": tus_id }),
        )
        .await
    }

    /// Uploads abandoned before `now`, at most `limit`.
    pub async fn expired_tus(&self, now: i64, limit: u32) -> DbResult<Vec<TusUpload>> {
        self.rows(
            "SELECT * OMIT id FROM tus WHERE expires_at < $now LIMIT $limit",
            json!({ "now": now, "limit": limit }),
        )
        .await
    }
}
