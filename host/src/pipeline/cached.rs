//! Between *build* and *run*: the result cache (`cache/`). A cacheable task's key is made from
//! its inputs' hashes and its built command; a fresh entry answers it (outputs copied into the
//! output directory, no time charged), and identical tasks in flight at once run ffmpeg once:
//! on one instance through `cache::flights`, across instances through `cache::lease`.
//! A task is not cacheable when the operator turned the cache off, the request said
//! `"cache": false`, or the command builder said so (`plugins::types::cacheable`).

use std::future::Future;
use std::sync::Arc;

use super::Completed;
use super::build::Built;
use super::register;
use super::resolve::Resolved;
use super::stage;
use crate::app::AppState;
use crate::cache::flights::{self, Join, Landing};
use crate::cache::lease::{self, Claim};
use crate::cache::{self, Outcome};
use crate::db::{Directory, StoredOutput};
use crate::error::{AppError, AppResult};
use crate::metrics;
use crate::plugins::types::{StagedInput, cacheable};
use crate::usage::{Charge, Usage};

/// The task's cache key, or `None` when it is not to be cached.
pub async fn key(
    state: &AppState,
    resolved: &Resolved,
    staged: &[StagedInput],
    built: &Built,
) -> AppResult<Option<String>> {
    if !state.cfg.cache.enabled || !resolved.task.cache || !cacheable(&built.decisions) {
        return Ok(None);
    }
    let hashes = stage::hashes(state, &resolved.inputs, staged).await?;
    let hashes: Vec<&str> = hashes.iter().map(String::as_str).collect();
    let builder = state.plugins.builder_identity().unwrap_or_default();
    Ok(Some(state.cache.key(
        state.cfg.cache.scope,
        &resolved.account.name,
        &builder,
        &hashes,
        &built.canonical,
    )))
}

/// The entry's outputs, or `run` (led here, its outputs saved for the next identical task), or
/// the outcome of an identical run in flight.
pub async fn run_once<Fut>(
    state: &Arc<AppState>,
    resolved: &Resolved,
    dir: &Directory,
    key: &str,
    shown: &[String],
    run: impl FnOnce() -> Fut,
) -> AppResult<Completed>
where
    Fut: Future<Output = AppResult<Completed>>,
{
    loop {
        let landed = state.cache.flights.landed();
        if let Some(done) = hit(state, resolved, dir, key, shown).await? {
            return Ok(done);
        }
        match state.cache.flights.join(key) {
            Join::Lead(flight) => {
                // A run that landed between the look-up and the join saved its entry: look
                // again if one did here, or (another instance's) may have.
                let again = state.cache.flights.landed() != landed || !state.db.sole_writer();
                if again && let Some(done) = hit(state, resolved, dir, key, shown).await? {
                    flight.land(Landing::Done);
                    return Ok(done);
                }
                let lease = match lease::claim(state, key).await? {
                    Claim::Led(lease) => lease,
                    // Another instance ran it: this one's waiters look the entry up too.
                    Claim::Landed(None) => {
                        flight.land(Landing::Done);
                        continue;
                    }
                    Claim::Landed(Some(e)) => {
                        flight.land(Landing::Failed(Arc::new(e.joined())));
                        return Err(e);
                    }
                };
                metrics::count(metrics::CACHE_MISSES);
                let result = run().await;
                match &result {
                    Ok(done) => {
                        save(state, key, &resolved.account.name, &done.outputs).await;
                        lease.end(None).await;
                        flight.land(Landing::Done);
                    }
                    Err(e) if same_for_everyone(e) => {
                        lease.end(Some(e)).await;
                        flight.land(Landing::Failed(Arc::new(e.joined())));
                    }
                    // A failure of this request's own (its directory, its storage): the others
                    // try for themselves.
                    Err(_) => drop((lease, flight)),
                }
                return result;
            }
            Join::Wait(rx) => {
                if let Some(Landing::Failed(e)) = flights::wait(rx).await {
                    return Err(e.joined());
                }
            }
        }
    }
}

/// Saves the run's outputs as the key's entry, then (without making the request wait) brings
/// the cache back within `cache.max_gb` (`cache::evict_soon`). Not being cached fails nothing.
async fn save(state: &Arc<AppState>, key: &str, account: &str, outputs: &[StoredOutput]) {
    match cache::save(state, key, account, outputs).await {
        Ok(()) => cache::evict_soon(state),
        Err(e) => tracing::warn!("result not cached: {e:#}"),
    }
}

/// Failures of the run itself, which an identical task would meet too.
fn same_for_everyone(e: &AppError) -> bool {
    matches!(
        e,
        AppError::FfmpegFailed { .. }
            | AppError::TimedOut { .. }
            | AppError::OutputsTooLarge { .. }
            | AppError::OutOfMemory(_)
            | AppError::NoOutputProduced
            | AppError::CommandTooLong(_)
    )
}

/// The task answered from a fresh entry: its outputs registered under their names, charged
/// for the bytes but no time.
async fn hit(
    state: &AppState,
    resolved: &Resolved,
    dir: &Directory,
    key: &str,
    shown: &[String],
) -> AppResult<Option<Completed>> {
    let Some(entry) = cache::lookup(state, key).await? else {
        return Ok(None);
    };
    let outputs =
        match register::cached(state, &resolved.account, dir, &resolved.inputs, &entry).await {
            Ok(outputs) => outputs,
            Err(AppError::Internal(e)) => {
                // Its objects are unreadable (evicted under it, say): run instead.
                tracing::warn!("cache entry unusable, running the task: {e:#}");
                if let Err(e) = cache::remove(state, key).await {
                    tracing::warn!("removing a cache entry: {e:#}");
                }
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
    metrics::count(metrics::CACHE_HITS);
    let input_bytes = resolved.stored_bytes();
    let output_bytes = outputs.iter().map(|o| o.size_bytes).sum();
    let usage = Usage::new(0.0, input_bytes, output_bytes);
    Ok(Some(Completed {
        charge: Charge::of_run(input_bytes, output_bytes, &usage),
        outputs,
        usage,
        command: shown.to_vec(),
        cache: Outcome::Hit,
    }))
}
