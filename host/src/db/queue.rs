//! The pending queue kept in memory for job views, when this process is the database's only
//! writer (embedded, as `kept.rs`): a job view's place in the queue then costs no query
//! while the queue has not changed. Every write that changes which jobs wait, or an
//! account's last turn, moves `changes` on (`db/jobs.rs`), and a kept snapshot is used only
//! for the count it was read at: a view is never staler than the last write.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::json;

use super::{Db, DbResult};

/// A waiting job, as the queue orders it.
#[derive(Debug, Clone, Deserialize)]
pub struct Waiting {
    pub job_id: String,
    pub account: String,
    pub priority_rank: u8,
    pub created_at: i64,
}

/// Every waiting job and the last turn of each account with one.
#[derive(Debug, Default)]
pub struct Snapshot {
    pub waiting: Vec<Waiting>,
    pub turns: HashMap<String, i64>,
}

#[derive(Default)]
pub struct Queue {
    changes: AtomicU64,
    kept: Mutex<Option<(u64, Arc<Snapshot>)>>,
}

impl Db {
    /// Runs a write that changes which jobs wait (or an account's last turn), then marks the
    /// queue changed, whatever the write's outcome: a kept snapshot is no longer used.
    pub(super) async fn changing_queue<T>(
        &self,
        write: impl std::future::Future<Output = DbResult<T>>,
    ) -> DbResult<T> {
        let done = write.await;
        if let Some(queue) = &self.queue {
            queue.changes.fetch_add(1, Ordering::SeqCst);
        }
        done
    }

    /// The queue as it stands, from memory when nothing changed since it was read; `None` on
    /// a server (other instances write too: ask the database per view).
    pub async fn queue_snapshot(&self) -> DbResult<Option<Arc<Snapshot>>> {
        let Some(queue) = &self.queue else {
            return Ok(None);
        };
        // The count before the read: a write landing during the read makes the copy stale,
        // and the next view reads again.
        let seen = queue.changes.load(Ordering::SeqCst);
        if let Some((at, kept)) = queue.kept.lock().expect("queue lock").as_ref()
            && *at == seen
        {
            return Ok(Some(kept.clone()));
        }
        let waiting: Vec<Waiting> = self
            .rows(
                "SELECT job_id, account, priority_rank, created_at FROM job WHERE status = 'pending'",
                json!({}),
            )
            .await?;
        let mut accounts: Vec<String> = waiting.iter().map(|w| w.account.clone()).collect();
        accounts.sort();
        accounts.dedup();
        let turns = self.last_turns(&accounts).await?;
        let snapshot = Arc::new(Snapshot { waiting, turns });
        *queue.kept.lock().expect("queue lock") = Some((seen, snapshot.clone()));
        Ok(Some(snapshot))
    }
}
