//! Result cache entries (`cache/`): one record per cache key, naming the objects the entry owns.
//! Shared by every instance through the database; the objects live in the shared store.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{Db, DbError, DbResult};

/// One output of a cached run, as its own object (never a directory's file).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CachedOutput {
    pub file_name: String,
    pub object_id: String,
    pub size: u64,
    pub sha256: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CacheEntry {
    pub key: String,
    /// The account whose run made it (for the operator; the scope is in the key).
    pub account: String,
    pub outputs: Vec<CachedOutput>,
    pub bytes: u64,
    pub created_at: i64,
    pub last_used: i64,
}

/// The cache's bytes and keys as this process last counted them, where it is the database's
/// only writer (embedded): counted once, then moved by each entry it adds or takes. Counting
/// the bytes on every eviction pass scanned every entry, a cost that grew with the cache, and
/// a look-up that misses (most of a queue of distinct thumbnails) was a database write's cost
/// (issue #34). A count read while an entry changed is not kept (`changes`), as `queue.rs`
/// does with the queue.
#[derive(Default)]
pub struct HeldBytes {
    changes: std::sync::atomic::AtomicU64,
    counted: std::sync::Mutex<Option<u64>>,
    keys: std::sync::Mutex<Option<std::collections::HashSet<String>>>,
}

impl HeldBytes {
    fn moved(&self, key: &str, added: bool, by: impl FnOnce(u64) -> u64) {
        self.changes
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let mut counted = self.counted.lock().expect("cache bytes lock");
        if let Some(bytes) = counted.as_mut() {
            *bytes = by(*bytes);
        }
        drop(counted);
        if let Some(keys) = self.keys.lock().expect("cache keys lock").as_mut() {
            if added {
                keys.insert(key.to_owned());
            } else {
                keys.remove(key);
            }
        }
    }
}

impl Db {
    /// The entry for `key` made after `fresh_after` (ms), marked used now.
    pub async fn use_cache_entry(
        &self,
        key: &str,
        fresh_after: i64,
        now: i64,
    ) -> DbResult<Option<CacheEntry>> {
        if !self.may_hold_cache_entry(key).await? {
            return Ok(None);
        }
        self.first(
            "UPDATE type::record('cache_entry', $k) SET last_used = $now
             WHERE created_at > $fresh RETURN AFTER",
            json!({ "k": key, "fresh": fresh_after, "now": now }),
        )
        .await
        .map(|row: Option<serde_json::Value>| {
            row.and_then(|v| serde_json::from_value(super::strip_id(v)).ok())
        })
    }

    /// Adds an entry; `false` when one for the key exists already (another run made it first).
    pub async fn put_cache_entry(&self, entry: &CacheEntry) -> DbResult<bool> {
        match self
            .exec(
                "CREATE type::record('cache_entry', $e.key) CONTENT $e RETURN NONE",
                json!({ "e": entry }),
            )
            .await
        {
            Ok(()) => {
                if let Some(held) = &self.cache_held {
                    held.moved(&entry.key, true, |b| b + entry.bytes);
                }
                Ok(true)
            }
            Err(DbError::Conflict) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Removes an entry and returns it, so that of evictions racing for it only one (the one
    /// that got it back) deletes its objects.
    pub async fn take_cache_entry(&self, key: &str) -> DbResult<Option<CacheEntry>> {
        let taken: Option<CacheEntry> = self
            .first(
                "DELETE type::record('cache_entry', $k) RETURN BEFORE",
                json!({ "k": key }),
            )
            .await
            .map(|row: Option<serde_json::Value>| {
                row.and_then(|v| serde_json::from_value(super::strip_id(v)).ok())
            })?;
        if let (Some(held), Some(entry)) = (&self.cache_held, &taken) {
            held.moved(key, false, |b| b.saturating_sub(entry.bytes));
        }
        Ok(taken)
    }

    /// Whether an entry for `key` may exist: `false` only where this process keeps the keys
    /// (the only writer), read once and then moved by its own writes.
    async fn may_hold_cache_entry(&self, key: &str) -> DbResult<bool> {
        let Some(held) = &self.cache_held else {
            return Ok(true);
        };
        if let Some(keys) = held.keys.lock().expect("cache keys lock").as_ref() {
            return Ok(keys.contains(key));
        }
        let at = held.changes.load(std::sync::atomic::Ordering::SeqCst);
        let keys: Vec<String> = self
            .rows("SELECT VALUE key FROM cache_entry", json!({}))
            .await?;
        let known = keys.iter().any(|k| k == key);
        // Checked under the lock, as for the bytes: an entry added or taken while the keys
        // were read leaves them unkept, to be read again.
        let mut kept = held.keys.lock().expect("cache keys lock");
        if held.changes.load(std::sync::atomic::Ordering::SeqCst) == at {
            *kept = Some(keys.into_iter().collect());
        }
        Ok(known)
    }

    /// Bytes the cache holds.
    pub async fn cache_bytes(&self) -> DbResult<u64> {
        #[derive(Deserialize)]
        struct Row {
            n: Option<u64>,
        }
        let seen = self.cache_held.as_ref().map(|held| {
            (
                held.counted.lock().expect("cache bytes lock").to_owned(),
                held.changes.load(std::sync::atomic::Ordering::SeqCst),
            )
        });
        if let Some((Some(bytes), _)) = seen {
            return Ok(bytes);
        }
        let bytes = self
            .first::<Row>(
                "SELECT math::sum(bytes) AS n FROM cache_entry GROUP ALL",
                json!({}),
            )
            .await?
            .and_then(|r| r.n)
            .unwrap_or(0);
        if let (Some(held), Some((_, at))) = (&self.cache_held, seen) {
            // Checked under the lock: an entry added after the check waits for it, then moves
            // the count kept here.
            let mut counted = held.counted.lock().expect("cache bytes lock");
            if held.changes.load(std::sync::atomic::Ordering::SeqCst) == at {
                *counted = Some(bytes);
            }
        }
        Ok(bytes)
    }

    /// Keys of entries made at or before `stale_before` (ms).
    pub async fn stale_cache_entries(
        &self,
        stale_before: i64,
        limit: u32,
    ) -> DbResult<Vec<String>> {
        self.rows(
            "SELECT VALUE key FROM cache_entry WHERE created_at <= $b LIMIT $limit",
            json!({ "b": stale_before, "limit": limit }),
        )
        .await
    }

    /// Keys and sizes of the entries used longest ago, oldest use first.
    pub async fn least_used_cache_entries(&self, limit: u32) -> DbResult<Vec<(String, u64)>> {
        #[derive(Deserialize)]
        struct Row {
            key: String,
            bytes: u64,
        }
        let rows: Vec<Row> = self
            .rows(
                "SELECT key, bytes, last_used FROM cache_entry ORDER BY last_used LIMIT $limit",
                json!({ "limit": limit }),
            )
            .await?;
        Ok(rows.into_iter().map(|r| (r.key, r.bytes)).collect())
    }

    /// Which of `objects` (cache objects) no entry names.
    pub async fn unowned_cache_objects(&self, objects: &[String]) -> DbResult<Vec<String>> {
        let owned: Vec<Vec<String>> = self
            .rows("SELECT VALUE outputs.object_id FROM cache_entry", json!({}))
            .await?;
        let owned: std::collections::HashSet<String> = owned.into_iter().flatten().collect();
        Ok(objects
            .iter()
            .filter(|o| !owned.contains(*o))
            .cloned()
            .collect())
    }
}

/// An identical task's run in flight on some instance (`cache/flights.rs`): its holder renews
/// `lease_until` while it runs and removes the record when done; a failure stays a while in
/// `failed`, for the waiters on other instances to report.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CacheFlight {
    pub key: String,
    pub holder: String,
    pub lease_until: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<FlightFailure>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FlightFailure {
    pub status: u16,
    pub message: String,
    pub details: Option<String>,
}

impl Db {
    /// Takes the lead of `key`'s run for `holder` until `until`: when no run holds it, its
    /// holder's lease lapsed, or it failed (a failure is told to the runs' waiters, never to a
    /// later task). `false`: another holds it.
    pub async fn claim_cache_flight(
        &self,
        key: &str,
        holder: &str,
        now: i64,
        until: i64,
    ) -> DbResult<bool> {
        let flight = CacheFlight {
            key: key.to_string(),
            holder: holder.to_string(),
            lease_until: until,
            failed: None,
        };
        match self
            .exec(
                "CREATE type::record('cache_flight', $f.key) CONTENT $f",
                json!({ "f": flight }),
            )
            .await
        {
            Ok(()) => return Ok(true),
            Err(DbError::Conflict) => {}
            Err(e) => return Err(e),
        }
        let taken: Option<serde_json::Value> = self
            .first(
                "UPDATE type::record('cache_flight', $k) SET holder = $h, lease_until = $until, failed = NONE
                 WHERE lease_until < $now OR type::is_object(failed) RETURN AFTER",
                json!({ "k": key, "h": holder, "until": until, "now": now }),
            )
            .await?;
        Ok(taken.is_some())
    }

    pub async fn cache_flight(&self, key: &str) -> DbResult<Option<CacheFlight>> {
        self.first(
            "SELECT * OMIT id FROM type::record('cache_flight', $k)",
            json!({ "k": key }),
        )
        .await
    }

    /// Extends the lease while `holder` still holds it.
    pub async fn renew_cache_flight(&self, key: &str, holder: &str, until: i64) -> DbResult<()> {
        self.exec(
            "UPDATE type::record('cache_flight', $k) SET lease_until = $until WHERE holder = $h",
            json!({ "k": key, "h": holder, "until": until }),
        )
        .await
    }

    /// Ends `holder`'s run: the record goes, or on a failure stays until `until` to tell the
    /// waiters (and lets the next asker lead after that).
    pub async fn end_cache_flight(
        &self,
        key: &str,
        holder: &str,
        failed: Option<&FlightFailure>,
        until: i64,
    ) -> DbResult<()> {
        match failed {
            None => {
                self.exec(
                    "DELETE type::record('cache_flight', $k) WHERE holder = $h",
                    json!({ "k": key, "h": holder }),
                )
                .await
            }
            Some(f) => {
                self.exec(
                    "UPDATE type::record('cache_flight', $k) SET failed = $f, lease_until = $until WHERE holder = $h",
                    json!({ "k": key, "h": holder, "f": f, "until": until }),
                )
                .await
            }
        }
    }
}
