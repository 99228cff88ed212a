//! Records kept in memory by key, for the API's hottest reads: directory listings
//! (`GET /directory/{id}`) and job views (`GET /job/{id}`, polled by clients every few tens of
//! milliseconds).
//!
//! Only sound when this process is the database's one writer: the embedded stores (surrealkv
//! locks its directory to one process). Every change to what is kept then passes through `Db`,
//! which forgets the key once the write has ended (`Db::write_kept`). A fill races with
//! writes, so it is kept only when no write ended while its query ran (one counter for all
//! keys: a busy writer costs hit rate, never truth).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Keys kept at most; past it the map starts again empty.
const MAX_KEPT: usize = 10_000;

pub struct Kept<V> {
    map: Mutex<HashMap<String, Arc<V>>>,
    writes: AtomicU64,
}

impl<V> Default for Kept<V> {
    fn default() -> Self {
        Kept {
            map: Default::default(),
            writes: AtomicU64::new(0),
        }
    }
}

/// What a miss remembers until its query returns.
#[derive(Debug)]
pub struct Fill(u64);

/// What a write changed, as far as the kept records go.
pub enum Touched {
    Nothing,
    One(String),
    /// Any (a write over many rows, or one whose outcome is unknown).
    All,
}

impl<V> Kept<V> {
    pub fn get(&self, key: &str) -> Result<Arc<V>, Fill> {
        let map = self.map.lock().expect("lock");
        match map.get(key) {
            Some(v) => Ok(v.clone()),
            // Read under the lock, so a write that removed this entry has also counted.
            None => Err(Fill(self.writes.load(Ordering::Acquire))),
        }
    }

    pub fn fill(&self, ticket: Fill, key: &str, value: &Arc<V>) {
        let mut map = self.map.lock().expect("lock");
        if self.writes.load(Ordering::Acquire) != ticket.0 {
            return;
        }
        if map.len() >= MAX_KEPT {
            map.clear();
        }
        map.insert(key.to_string(), value.clone());
    }

    /// After a write whose outcome is known: `value` is what the store now holds for `key`.
    pub fn set(&self, key: &str, value: V) {
        let mut map = self.map.lock().expect("lock");
        self.writes.fetch_add(1, Ordering::AcqRel);
        if map.len() >= MAX_KEPT {
            map.clear();
        }
        map.insert(key.to_string(), Arc::new(value));
    }

    /// After any write (committed or not) that may have changed what is kept.
    pub fn changed(&self, touched: &Touched) {
        let mut map = self.map.lock().expect("lock");
        match touched {
            Touched::Nothing => return,
            Touched::One(key) => {
                map.remove(key);
            }
            Touched::All => map.clear(),
        }
        self.writes.fetch_add(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fill_that_raced_a_write_is_not_kept() {
        let k = Kept::<&str>::default();
        let ticket = k.get("d").unwrap_err();
        k.changed(&Touched::One("other".into()));
        k.fill(ticket, "d", &Arc::new("stale"));
        assert!(k.get("d").is_err());

        let ticket = k.get("d").unwrap_err();
        k.fill(ticket, "d", &Arc::new("a"));
        assert_eq!(*k.get("d").unwrap(), "a");
        k.changed(&Touched::Nothing);
        assert_eq!(*k.get("d").unwrap(), "a");
        k.changed(&Touched::One("d".into()));
        assert!(k.get("d").is_err());

        let ticket = k.get("e").unwrap_err();
        k.fill(ticket, "e", &Arc::new("e"));
        k.changed(&Touched::All);
        assert!(k.get("e").is_err());
    }
}
