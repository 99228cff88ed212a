//! Coalescing across instances, the second layer under `flights.rs`: the instance whose
//! request leads a key's run here also takes the key's record in the database (`cache_flight`)
//! with a lease (`jobs.lease_s`) it renews while ffmpeg runs. An instance that finds the record held waits
//! (polling) until it goes (look the entry up), shows a failure (report it), or its lease lapses
//! (the holder died: take the lead).
//! Where this process is the database's only writer (embedded) there is no other instance:
//! the lead in `flights.rs` is the whole of it, and no record is written (two queries a run).

use std::time::Duration;

use crate::app::AppState;
use crate::clock;
use crate::db::{Db, FlightFailure};
use crate::error::{AppError, AppResult};
use crate::names;

/// How long a failure stays readable for the waiters (they poll every `POLL`).
const FAILURE_MS: i64 = 5_000;
const POLL: Duration = Duration::from_millis(100);

pub enum Claim {
    /// This request runs the task; end the lease when done.
    Led(Lease),
    /// Another instance's run ended: with its failure, or (`None`) look the entry up.
    Landed(Option<AppError>),
}

/// This instance's hold on a key's run. Dropped without `end` (the request went away), it
/// gives the key up at once rather than after the lease lapses.
pub struct Lease(Option<Held>);

/// The lease's record in the database (none on an embedded store).
struct Held {
    db: Db,
    key: String,
    holder: String,
    renew: tokio::task::JoinHandle<()>,
    ended: bool,
}

/// Leads `key`'s run across instances, or waits for the instance that leads it.
pub async fn claim(state: &AppState, key: &str) -> AppResult<Claim> {
    if state.db.sole_writer() {
        return Ok(Claim::Led(Lease(None)));
    }
    // As a job's: a holder that stops renewing for `jobs.lease_s` is taken to have died.
    let lease_ms = (state.cfg.jobs.lease_s.max(1) * 1000) as i64;
    let holder = names::random_id(16);
    let mut waited = false;
    loop {
        let now = clock::now_ms();
        if waited {
            match state.db.cache_flight(key).await? {
                None => return Ok(Claim::Landed(None)),
                Some(f) => {
                    if let Some(failed) = f.failed {
                        return Ok(Claim::Landed(Some(AppError::Joined {
                            status: failed.status,
                            message: failed.message,
                            details: failed.details,
                        })));
                    }
                    if f.lease_until >= now {
                        tokio::time::sleep(POLL).await;
                        continue;
                    }
                }
            }
        }
        if state
            .db
            .claim_cache_flight(key, &holder, now, now + lease_ms)
            .await?
        {
            let (db, k, h) = (state.db.clone(), key.to_string(), holder.clone());
            let renew = tokio::spawn(async move {
                let _task = crate::metrics::background("cache_lease");
                loop {
                    tokio::time::sleep(Duration::from_millis(lease_ms as u64 / 3)).await;
                    let until = clock::now_ms() + lease_ms;
                    if let Err(e) = db.renew_cache_flight(&k, &h, until).await {
                        tracing::warn!("renewing a cache flight: {e}");
                    }
                }
            });
            return Ok(Claim::Led(Lease(Some(Held {
                db: state.db.clone(),
                key: key.to_string(),
                holder,
                renew,
                ended: false,
            }))));
        }
        waited = true;
        tokio::time::sleep(POLL).await;
    }
}

impl Lease {
    /// Ends the run: `None` when its outputs are saved, or the failure every waiter reports.
    pub async fn end(mut self, failed: Option<&AppError>) {
        let Some(held) = self.0.as_mut() else {
            return;
        };
        held.ended = true;
        held.renew.abort();
        let failure = failed.map(|e| FlightFailure {
            status: e.status().as_u16(),
            message: e.to_string(),
            details: e.details().map(str::to_string),
        });
        let until = clock::now_ms() + FAILURE_MS;
        if let Err(e) = held
            .db
            .end_cache_flight(&held.key, &held.holder, failure.as_ref(), until)
            .await
        {
            tracing::warn!("ending a cache flight: {e}");
        }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.renew.abort();
        if !self.ended {
            let (db, key, holder) = (self.db.clone(), self.key.clone(), self.holder.clone());
            tokio::spawn(async move {
                let _ = db.end_cache_flight(&key, &holder, None, 0).await;
            });
        }
    }
}
