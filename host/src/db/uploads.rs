//! Who fills a pending file's bytes. A presigned upload URL stays valid for its whole TTL, so
//! two PUTs can reach the same record (two clients, a retry, an attacker who kept the URL);
//! exactly one may store bytes under it, once. The winner holds a claim (a random token with a
//! renewed lease, so a crashed instance's claim lapses) from the first byte to `finish_upload`,
//! which turns the record ready only while the claim is still its own. A ready file's bytes
//! never change: its size and hash stay those of the bytes it names (issue #32).

use serde::Deserialize;
use serde_json::{Value, json};

use super::{Db, DbResult, FileRecord, FileState, strip_id};

/// Why an upload could not take a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UploadRefusal {
    /// The record is gone (deleted, or its directory expired).
    Gone,
    /// The file already has its bytes.
    Ready,
    /// Another upload holds the file.
    Busy,
}

impl Db {
    /// Takes the right to fill pending file `object_id` until `until` (unix ms): one statement,
    /// so of two concurrent uploads exactly one commits it.
    pub async fn claim_upload(
        &self,
        object_id: &str,
        claim: &str,
        now: i64,
        until: i64,
    ) -> DbResult<Result<(), UploadRefusal>> {
        #[derive(Deserialize)]
        struct Row {
            state: FileState,
        }
        let claimed: Option<Value> = self
            .first(
                "UPDATE type::record('file', $o) SET upload_claim = $c, upload_until = $u
                 WHERE state = 'pending' AND (upload_claim = NONE OR upload_until < $now)
                 RETURN state",
                json!({ "o": object_id, "c": claim, "u": until, "now": now }),
            )
            .await?;
        if claimed.is_some() {
            return Ok(Ok(()));
        }
        let row: Option<Row> = self
            .first(
                "SELECT state FROM type::record('file', $o)",
                json!({ "o": object_id }),
            )
            .await?;
        Ok(Err(match row.map(|r| r.state) {
            None | Some(FileState::Deleting) => UploadRefusal::Gone,
            Some(FileState::Ready) => UploadRefusal::Ready,
            Some(FileState::Pending) => UploadRefusal::Busy,
        }))
    }

    /// Extends a held claim; `false` when it is no longer this upload's.
    pub async fn renew_upload(&self, object_id: &str, claim: &str, until: i64) -> DbResult<bool> {
        let row: Option<Value> = self
            .first(
                "UPDATE type::record('file', $o) SET upload_until = $u
                 WHERE state = 'pending' AND upload_claim = $c RETURN state",
                json!({ "o": object_id, "c": claim, "u": until }),
            )
            .await?;
        Ok(row.is_some())
    }

    /// Gives a claim up (a failed upload), so the client may try again at once.
    pub async fn release_upload(&self, object_id: &str, claim: &str) -> DbResult<()> {
        self.exec(
            "UPDATE type::record('file', $o) SET upload_claim = NONE, upload_until = NONE
             WHERE upload_claim = $c RETURN NONE",
            json!({ "o": object_id, "c": claim }),
        )
        .await
    }

    /// Turns the claimed pending file ready with the bytes just stored. `None` when the claim
    /// is no longer this upload's or the file is gone: the caller's bytes are not the record's.
    pub async fn finish_upload(
        &self,
        object_id: &str,
        claim: &str,
        size: u64,
        content_type: Option<&str>,
    ) -> DbResult<Option<FileRecord>> {
        self.first(
            "UPDATE type::record('file', $o) SET state = 'ready', size = $s, content_type = $t,
                sha256 = NONE, upload_claim = NONE, upload_until = NONE
             WHERE state = 'pending' AND upload_claim = $c RETURN AFTER",
            json!({ "o": object_id, "c": claim, "s": size, "t": content_type }),
        )
        .await
        .map(|r: Option<Value>| r.and_then(|v| serde_json::from_value(strip_id(v)).ok()))
    }
}
