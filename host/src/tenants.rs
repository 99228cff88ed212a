//! Many tenants on one instance: each account's request rate (a token bucket), its sync tasks
//! at once, and fair shares of this instance's ffmpeg/ffprobe slots (a waiting run of the
//! account with the fewest running gets the next free slot). Per instance and in memory; the
//! async-job limit across instances is the scheduler's (`jobs/scheduler.rs`), in the database.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::oneshot;

use crate::error::{AppError, AppResult};

/// Most accounts whose buckets are kept; past it the fullest buckets are forgotten (a full
/// bucket is what a new one starts as, so nothing is lost).
const MAX_BUCKETS: usize = 100_000;

pub struct Tenants {
    buckets: Mutex<HashMap<String, Bucket>>,
    tasks: Arc<Mutex<HashMap<String, u32>>>,
    /// Open event streams and MCP job waits, by account.
    watchers: Arc<Mutex<HashMap<String, u32>>>,
    /// Work running as a claimed job (a recipe's steps), by account: the scheduler bounded it.
    job_runs: Arc<Mutex<HashMap<String, u32>>>,
    slots: Arc<Mutex<Slots>>,
}

struct Bucket {
    tokens: f64,
    at: Instant,
}

/// The answer to one request under a rate limit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    pub limit: u32,
    pub remaining: u32,
    /// Seconds until the bucket is full again.
    pub reset_s: u64,
    /// `Some(seconds)` when the request is refused.
    pub retry_after_s: Option<u64>,
}

impl Tenants {
    pub fn new(process_slots: usize) -> Tenants {
        Tenants {
            buckets: Default::default(),
            tasks: Default::default(),
            watchers: Default::default(),
            job_runs: Default::default(),
            slots: Arc::new(Mutex::new(Slots {
                free: process_slots.max(1),
                running: HashMap::new(),
                waiting: VecDeque::new(),
                seq: 0,
            })),
        }
    }

    /// Takes one token of `account`'s bucket (`per_minute` tokens, refilled evenly).
    pub fn take_request(&self, account: &str, per_minute: u32) -> Rate {
        let capacity = per_minute.max(1) as f64;
        let per_s = capacity / 60.0;
        let now = Instant::now();
        let mut buckets = self.buckets.lock().expect("tenants lock");
        if buckets.len() >= MAX_BUCKETS && !buckets.contains_key(account) {
            buckets.retain(|_, b| {
                b.tokens + per_s * now.duration_since(b.at).as_secs_f64() < capacity
            });
        }
        let bucket = buckets.entry(account.to_string()).or_insert(Bucket {
            tokens: capacity,
            at: now,
        });
        bucket.tokens =
            (bucket.tokens + per_s * now.duration_since(bucket.at).as_secs_f64()).min(capacity);
        bucket.at = now;
        let retry_after_s = if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            None
        } else {
            Some(((1.0 - bucket.tokens) / per_s).ceil().max(1.0) as u64)
        };
        Rate {
            limit: per_minute,
            remaining: bucket.tokens.floor() as u32,
            reset_s: ((capacity - bucket.tokens) / per_s).ceil() as u64,
            retry_after_s,
        }
    }

    /// Admits one sync task, probe or plain-language call of `account`, or refuses it with a 429
    /// when `max` are running. The permit ends the task when dropped.
    pub fn admit_task(&self, account: &str, max: Option<u32>) -> AppResult<TaskPermit> {
        admit(&self.tasks, account, max).ok_or(AppError::TooManyTasks)
    }

    /// The permit of work that runs as a claimed job (a recipe job's steps): the job scheduler
    /// already gave it its turn, so it never counts against the account's sync tasks.
    pub fn job_turn(&self, account: &str) -> TaskPermit {
        admit(&self.job_runs, account, None).expect("unbounded")
    }

    /// Admits one event stream or MCP job wait of `account`, or refuses it with a 429 when
    /// `max` are open: each re-reads its job while it lasts. Counted until the permit drops
    /// (the client hung up, or the job ended).
    pub fn admit_watcher(&self, account: &str, max: u32) -> AppResult<TaskPermit> {
        admit(&self.watchers, account, Some(max)).ok_or(AppError::TooManyWatchers(max))
    }

    /// Waits for one of this instance's process slots, fairly between accounts.
    pub async fn process_slot(&self, account: &str) -> ProcessSlot {
        let rx = {
            let mut slots = self.slots.lock().expect("tenants lock");
            if slots.free > 0 && slots.waiting.is_empty() {
                slots.free -= 1;
                *slots.running.entry(account.to_string()).or_default() += 1;
                return ProcessSlot {
                    account: account.to_string(),
                    slots: self.slots.clone(),
                };
            }
            let (tx, rx) = oneshot::channel();
            slots.seq += 1;
            let seq = slots.seq;
            slots.waiting.push_back(Waiter {
                account: account.to_string(),
                seq,
                tx,
            });
            rx
        };
        // The sender only drops unanswered if the whole `Tenants` goes away.
        rx.await.expect("slots outlive their waiters")
    }
}

/// Counts one more for `account` in `counts`, unless `max` are counted already.
fn admit(
    counts: &Arc<Mutex<HashMap<String, u32>>>,
    account: &str,
    max: Option<u32>,
) -> Option<TaskPermit> {
    let mut map = counts.lock().expect("tenants lock");
    let running = map.entry(account.to_string()).or_default();
    if max.is_some_and(|max| *running >= max) {
        return None;
    }
    *running += 1;
    Some(TaskPermit {
        account: account.to_string(),
        tasks: counts.clone(),
    })
}

/// One running task (or open watch) of an account; counted until dropped.
pub struct TaskPermit {
    account: String,
    tasks: Arc<Mutex<HashMap<String, u32>>>,
}

impl Drop for TaskPermit {
    fn drop(&mut self) {
        let mut tasks = self.tasks.lock().expect("tenants lock");
        if let Some(n) = tasks.get_mut(&self.account) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                tasks.remove(&self.account);
            }
        }
    }
}

struct Slots {
    free: usize,
    running: HashMap<String, usize>,
    waiting: VecDeque<Waiter>,
    seq: u64,
}

struct Waiter {
    account: String,
    seq: u64,
    tx: oneshot::Sender<ProcessSlot>,
}

impl Slots {
    /// Hands free slots to waiters: the account with the fewest running first, then the
    /// longest waiting.
    fn grant(&mut self, me: &Arc<Mutex<Slots>>) {
        while self.free > 0 {
            let Some(next) = self
                .waiting
                .iter()
                .enumerate()
                .min_by_key(|(_, w)| (self.running.get(&w.account).copied().unwrap_or(0), w.seq))
                .map(|(i, _)| i)
            else {
                return;
            };
            let waiter = self.waiting.remove(next).expect("index from the queue");
            let slot = ProcessSlot {
                account: waiter.account.clone(),
                slots: me.clone(),
            };
            self.free -= 1;
            *self.running.entry(waiter.account).or_default() += 1;
            if let Err(slot) = waiter.tx.send(slot) {
                // The waiter gave up: undo by hand (its drop would take this lock again).
                self.release(&slot.account);
                std::mem::forget(slot);
            }
        }
    }

    fn release(&mut self, account: &str) {
        self.free += 1;
        if let Some(n) = self.running.get_mut(account) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.running.remove(account);
            }
        }
    }
}

/// One ffmpeg/ffprobe process slot; freed (and handed on) when dropped.
pub struct ProcessSlot {
    account: String,
    slots: Arc<Mutex<Slots>>,
}

impl Drop for ProcessSlot {
    fn drop(&mut self) {
        let mut slots = self.slots.lock().expect("tenants lock");
        slots.release(&self.account);
        slots.grant(&self.slots);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_refuse_past_the_limit_and_say_when_to_retry() {
        let t = Tenants::new(1);
        for i in 0..3 {
            let r = t.take_request("a", 3);
            assert_eq!((r.remaining, r.retry_after_s), (2 - i, None));
        }
        let r = t.take_request("a", 3);
        assert_eq!(r.retry_after_s, Some(20));
        assert_eq!(t.take_request("b", 3).retry_after_s, None, "per account");
    }

    #[test]
    fn tasks_are_counted_until_their_permit_drops() {
        let t = Tenants::new(1);
        let first = t.admit_task("a", Some(1)).unwrap();
        assert!(matches!(
            t.admit_task("a", Some(1)),
            Err(AppError::TooManyTasks)
        ));
        assert!(t.admit_task("b", Some(1)).is_ok());
        drop(first);
        assert!(t.admit_task("a", Some(1)).is_ok());
    }

    #[tokio::test]
    async fn a_free_slot_goes_to_the_account_with_fewest_running() {
        let t = Arc::new(Tenants::new(2));
        let long_run = t.process_slot("busy").await;
        let held = t.process_slot("busy").await;
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut waiters = Vec::new();
        for account in ["busy", "busy", "quiet"] {
            let (t, order) = (t.clone(), order.clone());
            waiters.push(tokio::spawn(async move {
                let _slot = t.process_slot(account).await;
                order.lock().unwrap().push(account);
            }));
            tokio::task::yield_now().await;
        }
        drop(held);
        for w in waiters {
            w.await.unwrap();
        }
        // "busy" still runs one: "quiet", though it came last, goes first.
        assert_eq!(*order.lock().unwrap(), ["quiet", "busy", "busy"]);
        drop(long_run);
    }
}
