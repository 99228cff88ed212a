//! The result cache: a task whose inputs, command, command builder and ffmpeg are those of an
//! earlier run is answered with that run's outputs, copied (never re-encoded), and charged no
//! processing time. The pipeline asks it between *build* and *run* (`pipeline/cached.rs`).
//!
//! - The key is a SHA-256 over the scope (the account, or everyone), the builder's component
//!   hash and config, the ffmpeg build, the inputs' content hashes in order, and the canonical
//!   command (staged paths replaced by input positions, outputs by their names).
//! - Entries are database records (`db/cache.rs`) that own their objects: copies named
//!   `cache-…` in the store, which no directory's expiry or delete touches and which the orphan
//!   sweep keeps while an entry names them (`sweeper.rs`). So entries survive restarts and are
//!   shared by every instance on the same database and bucket.
//! - Bounded by `cache.ttl_s` (age) and `cache.max_gb` (least recently used go first).

pub mod flights;
pub mod lease;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::app::AppState;
use crate::config::CacheScope;
use crate::db::{CacheEntry, CachedOutput, StoredOutput};
use crate::{clock, names};

/// Names of the objects cache entries own.
pub const OBJECT_PREFIX: &str = "cache-";

/// Whether the task's outputs came from the cache; shown as `"cache"` in responses.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, salvo::oapi::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Hit,
    Miss,
}

/// The cache of one instance: what every key shares, and the runs in flight here.
pub struct Cache {
    /// The ffmpeg build: with the command builder's identity (which a plugin reload may
    /// change, so it is read per key), what besides the task decides the outputs.
    ffmpeg_version: String,
    pub flights: flights::Flights,
    /// Whether an eviction pass is scheduled, and when the last one started.
    eviction: (AtomicBool, Mutex<Option<Instant>>),
}

/// Least time between two eviction passes: a queue of distinct tasks saves an entry every few
/// tens of milliseconds, and a pass asks the database the cache's size where this process does
/// not keep it (a database server; issue #34: the queue at saturation). The cache may pass
/// `cache.max_gb` by the entries saved within it.
const EVICT_EVERY: Duration = Duration::from_millis(250);

impl Cache {
    pub fn new(ffmpeg_version: &str) -> Cache {
        Cache {
            ffmpeg_version: ffmpeg_version.to_string(),
            flights: Default::default(),
            eviction: Default::default(),
        }
    }

    /// The key of a task of `account` with these input hashes and canonical command.
    pub fn key(
        &self,
        scope: CacheScope,
        account: &str,
        builder_identity: &str,
        input_hashes: &[&str],
        command: &[String],
    ) -> String {
        let scope = match scope {
            CacheScope::Account => format!("account:{account}"),
            CacheScope::Global => "global".to_string(),
        };
        let canonical = serde_json::json!({
            "v": 1,
            "scope": scope,
            "fingerprint": format!("{builder_identity}\n{}", self.ffmpeg_version),
            "inputs": input_hashes,
            "command": command,
        });
        hex::encode(Sha256::digest(canonical.to_string().as_bytes()))
    }
}

pub fn is_cache_object(name: &str) -> bool {
    name.starts_with(OBJECT_PREFIX)
}

/// The entry for `key` if it is fresh (younger than `cache.ttl_s`), marked used.
pub async fn lookup(state: &AppState, key: &str) -> anyhow::Result<Option<CacheEntry>> {
    let now = clock::now_ms();
    let fresh_after = now - (state.cfg.cache.ttl_s as i64).saturating_mul(1000);
    Ok(state.db.use_cache_entry(key, fresh_after, now).await?)
}

/// Saves a run's registered outputs as `key`'s entry: each copied to an object of the entry's
/// own. Outputs larger than the whole cache are not kept; another run's entry for the key wins.
pub async fn save(
    state: &AppState,
    key: &str,
    account: &str,
    outputs: &[StoredOutput],
) -> anyhow::Result<()> {
    let bytes: u64 = outputs.iter().map(|o| o.size_bytes).sum();
    if bytes > state.cfg.cache.max_bytes() {
        return Ok(());
    }
    let mut copies = Vec::with_capacity(outputs.len());
    for o in outputs {
        let object_id = format!("{OBJECT_PREFIX}{}", names::random_id(32));
        if let Err(e) = state.store.copy(&o.object_id, &object_id).await {
            remove_objects(state, &copies).await;
            return Err(e);
        }
        copies.push(CachedOutput {
            file_name: o.file_name.clone(),
            object_id,
            size: o.size_bytes,
            sha256: o.sha256.clone(),
        });
    }
    let now = clock::now_ms();
    let entry = CacheEntry {
        key: key.to_string(),
        account: account.to_string(),
        outputs: copies,
        bytes,
        created_at: now,
        last_used: now,
    };
    match state.db.put_cache_entry(&entry).await {
        Ok(true) => Ok(()),
        Ok(false) => {
            remove_objects(state, &entry.outputs).await;
            Ok(())
        }
        Err(e) => {
            remove_objects(state, &entry.outputs).await;
            Err(e.into())
        }
    }
}

/// Removes an entry, then its objects (a crash in between leaves objects no entry names, which
/// the orphan sweep removes).
pub async fn remove(state: &AppState, key: &str) -> anyhow::Result<()> {
    if let Some(entry) = state.db.take_cache_entry(key).await? {
        remove_objects(state, &entry.outputs).await;
    }
    Ok(())
}

async fn remove_objects(state: &AppState, outputs: &[CachedOutput]) {
    for o in outputs {
        if let Err(e) = state.store.delete(&o.object_id).await {
            tracing::warn!(object = o.object_id, "removing a cache object: {e:#}");
        }
    }
}

/// Brings the cache back within its size soon, without making the caller wait: one pass
/// (`bound_size`) at most every `EVICT_EVERY`, which sees every entry saved before it starts.
/// Entries past `cache.ttl_s` are never served, so dropping them waits for the sweeper's
/// `evict` (a query per save saved, issue #34).
pub fn evict_soon(state: &Arc<AppState>) {
    if state.cache.eviction.0.swap(true, Ordering::SeqCst) {
        return;
    }
    let state = state.clone();
    tokio::spawn(async move {
        let (scheduled, last) = &state.cache.eviction;
        let previous = *last.lock().expect("eviction lock");
        if let Some(previous) = previous {
            tokio::time::sleep_until((previous + EVICT_EVERY).into()).await;
        }
        *last.lock().expect("eviction lock") = Some(Instant::now());
        // Cleared before the pass: an entry saved during it schedules the next.
        scheduled.store(false, Ordering::SeqCst);
        if let Err(e) = bound_size(&state).await {
            tracing::warn!("cache eviction failed: {e:#}");
        }
    });
}

/// Drops entries older than `cache.ttl_s`, then the least recently used until the cache holds
/// at most `cache.max_gb`. Files registered in directories are never touched: hits made copies.
pub async fn evict(state: &AppState) -> anyhow::Result<()> {
    let stale_before = clock::now_ms() - (state.cfg.cache.ttl_s as i64).saturating_mul(1000);
    loop {
        let stale = state.db.stale_cache_entries(stale_before, 200).await?;
        if stale.is_empty() {
            break;
        }
        for key in stale {
            remove(state, &key).await?;
        }
    }
    bound_size(state).await
}

/// Drops the least recently used entries until the cache holds at most `cache.max_gb`.
async fn bound_size(state: &AppState) -> anyhow::Result<()> {
    let max = state.cfg.cache.max_bytes();
    let mut held = state.db.cache_bytes().await?;
    while held > max {
        let oldest = state.db.least_used_cache_entries(100).await?;
        if oldest.is_empty() {
            break;
        }
        for (key, bytes) in oldest {
            if held <= max {
                break;
            }
            remove(state, &key).await?;
            held = held.saturating_sub(bytes);
        }
    }
    Ok(())
}
