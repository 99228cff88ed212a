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
    /// No job waits, as last read.
    empty: Nothing,
    /// No job runs, as last read (a claim moves `changes` on): the timed look for lapsed
    /// leases then has nothing to look at.
    idle: Nothing,
    /// Moved on by every write that may make a webhook delivery pending or under way (a
    /// job's end, a lapsed job failed, a claim, an attempt recorded).
    deliveries: AtomicU64,
    /// No delivery pending or under way, as last read.
    quiet: Nothing,
}

/// That a read found nothing, kept against the count of writes that could change it: one
/// more than the count read before it (0: not known). A write moves the count on, and the
/// next look reads again.
#[derive(Default)]
struct Nothing(AtomicU64);

impl Nothing {
    /// `Err` when nothing is known to be there at `count`; else the count to mark with.
    fn look(&self, count: &AtomicU64) -> Result<Look, ()> {
        let seen = count.load(Ordering::SeqCst);
        if self.0.load(Ordering::SeqCst) == seen + 1 {
            return Err(());
        }
        Ok(Look(Some(seen)))
    }

    /// After the look's read found nothing.
    fn found(&self, look: Look) {
        if let Look(Some(seen)) = look {
            self.0.store(seen + 1, Ordering::SeqCst);
        }
    }
}

/// A look taken before the database is read: the count it is marked with.
pub struct Look(Option<u64>);

impl Db {
    /// Runs a write that changes which jobs wait (or an account's last turn), then marks the
    /// queue changed, whatever the write's outcome: a kept snapshot is no longer used.
    pub(super) async fn changing_queue<T>(
        &self,
        write: impl std::future::Future<Output = DbResult<T>>,
    ) -> DbResult<T> {
        let done = write.await;
        self.queue_changed();
        done
    }

    /// After a write that changed (or may have changed) which jobs wait.
    pub(super) fn queue_changed(&self) {
        if let Some(queue) = &self.queue {
            queue.changes.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// Before an idle worker's look at the queue (`claim_view`): `Err` when the queue is known
    /// empty. An idle instance's looks (a wake after each job ends, the timed safety poll)
    /// then cost no query (issue #34).
    pub(super) fn look(&self) -> Result<Look, ()> {
        self.queue
            .as_ref()
            .map_or(Ok(Look(None)), |q| q.empty.look(&q.changes))
    }

    /// After the look's read found no job waiting.
    pub(super) fn looked_empty(&self, look: Look) {
        if let Some(q) = &self.queue {
            q.empty.found(look);
        }
    }

    /// Before the timed look for lapsed leases (`requeue_expired`): `Err` when no job was
    /// running when last looked and none has been claimed since.
    pub(super) fn lease_look(&self) -> Result<Look, ()> {
        self.queue
            .as_ref()
            .map_or(Ok(Look(None)), |q| q.idle.look(&q.changes))
    }

    /// After that look found no job running.
    pub(super) fn looked_idle(&self, look: Look) {
        if let Some(q) = &self.queue {
            q.idle.found(look);
        }
    }

    /// After a write that may have made a webhook delivery pending or under way.
    pub(super) fn deliveries_changed(&self) {
        if let Some(queue) = &self.queue {
            queue.deliveries.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// Whether no webhook delivery is pending or under way, nothing having written one since
    /// that was read (`next_delivery_at`): the idle delivery loop's looks then cost no query.
    pub fn deliveries_quiet(&self) -> bool {
        self.queue
            .as_ref()
            .is_some_and(|q| q.quiet.look(&q.deliveries).is_err())
    }

    /// The count before a read of the deliveries, for `looked_quiet`.
    pub(super) fn delivery_look(&self) -> Look {
        Look(
            self.queue
                .as_ref()
                .map(|q| q.deliveries.load(Ordering::SeqCst)),
        )
    }

    /// After that read found nothing pending and nothing under way.
    pub(super) fn looked_quiet(&self, look: Look) {
        if let Some(q) = &self.queue {
            q.quiet.found(look);
        }
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
