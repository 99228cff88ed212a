//! Directory listings kept in memory, for the API's hottest read (`GET /directory/{id}`).
//!
//! Only sound when this process is the database's one writer: the embedded stores (surrealkv
//! locks its directory to one process). Every change to a directory's files then passes
//! through `Db`, which calls `changed` once the write has ended. A fill races with writes,
//! so it is kept only when no write ended while its query ran (one counter for all
//! directories: a busy writer costs hit rate, never truth).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::FileListing;

/// Listings kept at most (directories), and files per listing worth keeping.
const MAX_LISTINGS: usize = 10_000;
const MAX_FILES: usize = 1_000;

#[derive(Default)]
pub struct Listings {
    map: Mutex<HashMap<String, Arc<Vec<FileListing>>>>,
    writes: AtomicU64,
}

/// What a miss remembers until its query returns.
#[derive(Debug)]
pub struct Fill(u64);

impl Listings {
    pub fn get(&self, dir_id: &str) -> Result<Arc<Vec<FileListing>>, Fill> {
        let map = self.map.lock().expect("lock");
        match map.get(dir_id) {
            Some(files) => Ok(files.clone()),
            // Read under the lock, so a write that removed this entry has also counted.
            None => Err(Fill(self.writes.load(Ordering::Acquire))),
        }
    }

    pub fn fill(&self, ticket: Fill, dir_id: &str, files: &Arc<Vec<FileListing>>) {
        if files.len() > MAX_FILES {
            return;
        }
        let mut map = self.map.lock().expect("lock");
        if self.writes.load(Ordering::Acquire) != ticket.0 {
            return;
        }
        if map.len() >= MAX_LISTINGS {
            map.clear();
        }
        map.insert(dir_id.to_string(), files.clone());
    }

    /// After any write (committed or not) to the files of `dir_id`.
    pub fn changed(&self, dir_id: &str) {
        let mut map = self.map.lock().expect("lock");
        self.writes.fetch_add(1, Ordering::AcqRel);
        map.remove(dir_id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(name: &str) -> Arc<Vec<FileListing>> {
        Arc::new(vec![FileListing {
            file_name: name.into(),
            added_at: 1,
        }])
    }

    #[test]
    fn a_fill_that_raced_a_write_is_not_kept() {
        let l = Listings::default();
        let ticket = l.get("d").unwrap_err();
        l.changed("other");
        l.fill(ticket, "d", &listing("stale"));
        assert!(l.get("d").is_err());

        let ticket = l.get("d").unwrap_err();
        l.fill(ticket, "d", &listing("a"));
        assert_eq!(l.get("d").unwrap()[0].file_name, "a");
        l.changed("d");
        assert!(l.get("d").is_err());
    }
}
