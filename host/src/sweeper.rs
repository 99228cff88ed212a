//! The background sweeper: deletes expired directories with their files, finishes deletes a
//! crash interrupted, adopts uploads whose bytes landed but whose record update was lost, and
//! clears half-written uploads. Every step is idempotent, so several instances may sweep at once.
//!
//! Why no crash leaves bytes without a record or a record pointing at missing bytes:
//! - upload: the record exists (pending) before any byte; bytes go to `tmp/` and are renamed
//!   into place, then the record turns ready. A crash before the rename leaves a temp file
//!   (cleared here after a day); after it, pending + bytes, which this adopts.
//! - delete (and expiry): the record turns `deleting` (invisible) first, then bytes go, then the
//!   record. A crash in between leaves a `deleting` record, which this finishes.
//! - bytes that landed after their record was swept (a store racing its directory's expiry)
//!   have no record at all: the orphan sweep removes them after a grace period.
//! - result cache objects (`cache-…`, `cache/mod.rs`) belong to no directory: they live while
//!   a cache entry names them. The sweep also evicts entries past `cache.ttl_s` and `max_gb`.
//! - split segments (`split-…`, `pipeline/split/`) belong to a part row: they go with it, when
//!   the split ends or, if its coordinator died, once its heartbeat lapses.
//! - resumable uploads' tails (`tus-…`, `resumable/parts.rs`) belong to a tus row that names
//!   them: one no row names (an instance died mid-PATCH) goes after the orphan grace period.

use std::sync::Arc;
use std::time::Duration;

use crate::app::AppState;
use crate::clock;

pub async fn run(state: Arc<AppState>) {
    let _task = crate::metrics::background("sweeper");
    let every = Duration::from_secs(state.cfg.storage.sweep_interval_s.max(1));
    // The orphan sweep lists the whole store, a cost that grows with every file kept: it runs
    // a few times per grace period (at most every 15 min), not on every sweep, since an
    // orphan is only removed once a grace old anyway.
    let mut orphans = clock::Every::new(
        Duration::from_secs(state.cfg.storage.orphan_grace_s / 4)
            .min(Duration::from_secs(15 * 60))
            .max(every),
    );
    loop {
        if let Err(e) = sweep(&state, orphans.due()).await {
            tracing::warn!("sweep failed: {e:#}");
        }
        tokio::time::sleep(every).await;
    }
}

/// One sweep; `orphans`: with the orphan sweep too.
pub async fn sweep(state: &AppState, orphans: bool) -> anyhow::Result<()> {
    let now = clock::now_ms();
    for dir_id in state.db.expired_directories(now, 200).await? {
        state.db.retire_directory(&dir_id).await?;
        tracing::info!(dir_id, "directory expired");
    }
    loop {
        let objects = state.db.deleting_objects(500).await?;
        if objects.is_empty() {
            break;
        }
        for object in objects {
            state.store.delete(&object).await?;
            state.db.finish_delete(&object).await?;
        }
    }
    let upload_window = (state.cfg.storage.upload_url_ttl_s as i64 + 600) * 1000;
    for file in state
        .db
        .stale_pending(now - 60_000, now - upload_window, 500)
        .await?
    {
        let (plan_name, max_mb) = state.plan_of_dir(&file.dir_id).await;
        if max_mb > 0.0 {
            // As at first use: adopted, or deleted when over the plan's limit.
            let _ = crate::files::adopt(state, file, &plan_name, max_mb).await;
        }
    }
    crate::resumable::sweep(state).await?;
    if let Some(local) = &state.local {
        local.sweep_temp(Duration::from_secs(24 * 3600)).await?;
    }
    crate::cache::evict(state).await?;
    crate::pipeline::split::sweep(state).await?;
    if orphans {
        sweep_orphans(state).await?;
    }
    Ok(())
}

/// Removes objects that no file record refers to, once older than `storage.orphan_grace_s`.
/// A record is always made before its bytes and removed after them, so an object without one
/// is a leftover: a store that raced its directory's expiry, or a crash mid-delete.
async fn sweep_orphans(state: &AppState) -> anyhow::Result<()> {
    let grace = Duration::from_secs(state.cfg.storage.orphan_grace_s);
    let cutoff = std::time::SystemTime::now() - grace;
    let (tails, listed): (Vec<String>, Vec<String>) = state
        .store
        .list()
        .await?
        .into_iter()
        .filter(|(_, written)| *written < cutoff)
        .map(|(name, _)| name)
        .partition(|name| crate::resumable::is_tail(name));
    crate::resumable::sweep_tails(state, &tails).await?;
    let (cached, old): (Vec<String>, Vec<String>) = listed
        .into_iter()
        .filter(|name| object_id_like(name) || crate::cache::is_cache_object(name))
        .partition(|name| crate::cache::is_cache_object(name));
    for batch in old.chunks(500) {
        for object in state.db.unrecorded_objects(batch).await? {
            state.store.delete(&object).await?;
            tracing::info!(object, "orphaned object removed");
        }
    }
    if !cached.is_empty() {
        for object in state.db.unowned_cache_objects(&cached).await? {
            state.store.delete(&object).await?;
            tracing::info!(object, "orphaned cache object removed");
        }
    }
    Ok(())
}

/// Whether `name` could be an object id the service made (`files::pending`), so the orphan
/// sweep leaves anything else in a shared bucket alone.
fn object_id_like(name: &str) -> bool {
    name.len() == 32 && name.bytes().all(|b| b.is_ascii_alphanumeric())
}
