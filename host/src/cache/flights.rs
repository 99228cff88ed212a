//! Coalescing within one instance: identical cacheable tasks in flight at once (same key) run
//! ffmpeg once. The first to ask leads (runs the task and saves the entry); the others wait for
//! its landing, then take the entry like any hit, or get its failure (failures are not cached).
//! A leader that goes away without landing (its client hung up) lets its waiters try again.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::watch;

use crate::error::AppError;

/// How a led run ended.
#[derive(Clone)]
pub enum Landing {
    /// The outputs are registered and (when they fit) saved as the key's entry.
    Done,
    /// The run failed: every waiter reports the same failure.
    Failed(Arc<AppError>),
}

type Runs = Arc<Mutex<HashMap<String, watch::Receiver<Option<Landing>>>>>;

#[derive(Default)]
pub struct Flights {
    runs: Runs,
    /// Runs landed `Done` so far (any key), counted before their key is released: a request
    /// that missed the cache and then leads looks again only if one landed in between.
    landed: Arc<AtomicU64>,
}

pub enum Join {
    Lead(Flight),
    Wait(watch::Receiver<Option<Landing>>),
}

/// The lead of one key's run; landing (or dropping) it releases the key.
pub struct Flight {
    key: String,
    tx: watch::Sender<Option<Landing>>,
    runs: Runs,
    landed: Arc<AtomicU64>,
    released: bool,
}

impl Flights {
    /// Leads the key's run, or waits for the run in flight.
    pub fn join(&self, key: &str) -> Join {
        let mut runs = self.runs.lock().expect("flights lock");
        if let Some(rx) = runs.get(key) {
            return Join::Wait(rx.clone());
        }
        let (tx, rx) = watch::channel(None);
        runs.insert(key.to_string(), rx);
        Join::Lead(Flight {
            key: key.to_string(),
            tx,
            runs: self.runs.clone(),
            landed: self.landed.clone(),
            released: false,
        })
    }

    /// How many runs have landed `Done` (see `landed`).
    pub fn landed(&self) -> u64 {
        self.landed.load(Ordering::SeqCst)
    }
}

impl Flight {
    pub fn land(mut self, landing: Landing) {
        if matches!(landing, Landing::Done) {
            self.landed.fetch_add(1, Ordering::SeqCst);
        }
        // Released first: whoever asks next finds the saved entry, not this run.
        self.release();
        let _ = self.tx.send(Some(landing));
    }

    /// Frees the key (once: a later lead of the same key is not this one's to free).
    fn release(&mut self) {
        if !std::mem::replace(&mut self.released, true) {
            self.runs.lock().expect("flights lock").remove(&self.key);
        }
    }
}

impl Drop for Flight {
    fn drop(&mut self) {
        self.release();
    }
}

/// The landing of the run waited for; `None` when its leader went away without one.
pub async fn wait(mut rx: watch::Receiver<Option<Landing>>) -> Option<Landing> {
    match rx.wait_for(Option::is_some).await {
        Ok(landing) => landing.clone(),
        Err(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_leads_others_wait_and_a_dropped_lead_releases() {
        let flights = Flights::default();
        let Join::Lead(lead) = flights.join("k") else {
            panic!("first joins lead")
        };
        let Join::Wait(rx) = flights.join("k") else {
            panic!("second waits")
        };
        let waiter = tokio::spawn(wait(rx));
        lead.land(Landing::Done);
        assert!(matches!(waiter.await.unwrap(), Some(Landing::Done)));
        let Join::Lead(lead) = flights.join("k") else {
            panic!("a landed key is free")
        };
        let Join::Wait(rx) = flights.join("k") else {
            panic!("waits")
        };
        drop(lead);
        assert!(wait(rx).await.is_none());
        assert!(matches!(flights.join("k"), Join::Lead(_)));
    }
}
