//! A local upload's writer kept from one PATCH to the next (the local store only).
//!
//! A PATCH's bytes reach the `.part` file through a writer thread (`storage/spool.rs`). Waiting
//! at each PATCH's end for that thread to catch up left the disk idle while the next PATCH's
//! request came in: on an idle machine a 1 GB upload in 16 MB PATCHes spent about a quarter of
//! its time there (`make bench tus`). So a PATCH that did not finish the upload counts its bytes
//! and leaves its writer here, still writing, and the next PATCH at that offset on this
//! instance writes on behind it, as one PUT's bytes do. The last PATCH drains and syncs it.
//!
//! Counted bytes may then still be on their way to the file when the process dies: the next
//! PATCH finds the file shorter than the offset and sends the client back to what it holds,
//! as after a machine that went down (`open_part` in `resumable.rs`); so does a file found
//! shorter than its kept writer has written (cut by hand under it). A writer not taken again
//! within `KEEP_FOR` is closed by the sweeper; at most `MOST` are kept at once (each holds a
//! thread of the blocking pool while it waits).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::storage::spool::Spool;

/// How long a writer waits for its upload's next PATCH.
const KEEP_FOR: Duration = Duration::from_secs(30);
/// Writers kept at once; past that a PATCH drains its own as before.
const MOST: usize = 64;

struct Kept {
    spool: Spool,
    path: PathBuf,
    /// Where the bytes it was given end: the upload's offset when it was kept.
    offset: u64,
    since: Instant,
}

#[derive(Default)]
pub struct Writers {
    kept: Mutex<HashMap<String, Kept>>,
}

impl Writers {
    /// The writer the last PATCH of `tus_id` left at `offset`. One left at another offset (the
    /// upload went back) has its bytes written first, and is not used.
    pub async fn take(&self, tus_id: &str, offset: u64) -> Option<(Spool, PathBuf)> {
        let kept = self.kept.lock().expect("writers lock").remove(tus_id)?;
        // A file shorter than what its writer has written was cut under it (by hand; a crash
        // leaves no writer): it is reopened, and the upload goes back to what it holds.
        let written = kept.spool.written_end();
        let held = tokio::fs::metadata(&kept.path).await.map(|m| m.len());
        if kept.offset == offset && held.is_ok_and(|held| held >= written) {
            return Some((kept.spool, kept.path));
        }
        let _ = kept.spool.written().await;
        None
    }

    /// Keeps `spool` (writing `path`, its bytes ending at `offset`) for the upload's next
    /// PATCH; `Err` gives it back when `MOST` are kept already.
    pub fn keep(
        &self,
        tus_id: &str,
        spool: Spool,
        path: PathBuf,
        offset: u64,
    ) -> Result<(), Spool> {
        let mut kept = self.kept.lock().expect("writers lock");
        if kept.len() >= MOST {
            return Err(spool);
        }
        let since = Instant::now();
        kept.insert(
            tus_id.to_string(),
            Kept {
                spool,
                path,
                offset,
                since,
            },
        );
        Ok(())
    }

    /// Closes the upload's writer, if one is kept, once its bytes are written (before its file
    /// is removed or reopened).
    pub async fn close(&self, tus_id: &str) {
        let kept = self.kept.lock().expect("writers lock").remove(tus_id);
        if let Some(kept) = kept {
            let _ = kept.spool.written().await;
        }
    }

    /// Closes the writers kept longer than `KEEP_FOR` (the sweeper's turn).
    pub async fn close_idle(&self) {
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
            let _ = kept.spool.written().await;
        }
    }
}
