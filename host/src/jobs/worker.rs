//! Job workers: `jobs.workers` per instance. Each claims the oldest pending job, runs it while
//! renewing its lease (and publishing progress), and finalises it only if it still holds the
//! lease. A worker that dies lets its lease lapse; any worker then gives the job back.
//! Segments of split encodes (`pipeline/split/`) are taken in the same way, in turn with jobs
//! (`scheduler::segment_turn`).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::watch;

use super::scheduler::{self, SegmentTurn};
use crate::app::AppState;
use crate::db::{Job, JobEnd, Progress};
use crate::error::AppError;
use crate::media::inspect;
use crate::pipeline::{self, Completed};
use crate::{clock, metering, metrics, names};

/// The look at the queue while a live query wakes the workers (`poll_loop`).
const SAFETY_POLL: Duration = Duration::from_secs(5);

/// A job whose worker died this many times is failed rather than tried again.
const MAX_ATTEMPTS: u32 = 3;

pub fn spawn(state: &Arc<AppState>) {
    for _ in 0..state.cfg.jobs.workers {
        tokio::spawn(worker_loop(state.clone()));
    }
    if state.cfg.jobs.workers > 0 {
        tokio::spawn(poll_loop(state.clone()));
    }
    if state.cfg.jobs.live_queries {
        tokio::spawn(wake_on_changes(state.clone()));
    }
    tokio::spawn(super::webhooks::deliver_loop(state.clone()));
}

/// Other instances' submissions (and split segments) reach this one through live queries.
async fn wake_on_changes(state: Arc<AppState>) {
    let _task = metrics::background("live_query");
    if state.cfg.split.enabled {
        tokio::spawn(wake_on_parts(state.clone()));
    }
    let own = state.db.sole_writer();
    loop {
        match state.db.changes("job").await {
            Ok(mut changes) => {
                state.wakers.live.store(true, Ordering::SeqCst);
                // Only changes that may give work: a job running (claimed, its progress,
                // its lease renewed) gives none, and a webhook only once it is due. Every
                // wake costs the woken a look at the queue or at the webhooks, taken from
                // ffmpeg's cores (issue #34: the queue at saturation).
                while let Some(change) = changes.next().await {
                    state.db.forget_job(change.id.as_deref());
                    // No receiver (no event stream open) is not an error.
                    let _ = state
                        .wakers
                        .changed
                        .0
                        .send(change.id.clone().unwrap_or_default());
                    // Where this process is the database's only writer, every change was
                    // written here, and whoever it gives work was woken where it was written
                    // (a submission, a requeue, a split's parts, a job's end). Waking every
                    // worker again had two race for each new job: two claims where one does
                    // (issue #34: the queue at saturation).
                    if own {
                        continue;
                    }
                    if !change.known || change.status.as_deref() != Some("processing") {
                        state.wakers.jobs.notify_waiters();
                    }
                    if !change.known || change.webhook.as_deref() == Some("pending") {
                        state.wakers.webhooks.notify_waiters();
                    }
                }
                state.wakers.live.store(false, Ordering::SeqCst);
                // Missed changes while it was down: look at the queue now.
                state.wakers.jobs.notify_one();
            }
            Err(e) => tracing::warn!("job live query unavailable, polling only: {e}"),
        }
        tokio::time::sleep(Duration::from_secs(5)).await;
    }
}

/// The instance's one timed look at the queue: leases that lapsed (a dead worker's jobs) go
/// back to the queue, and one idle worker is woken to claim. One look per instance, not one
/// per worker: an idle instance's cost is that of one poll, whatever its number of workers
/// (issue #34). A worker that claims wakes the next (below), so a queue found full is taken by
/// every idle worker, as before. Every `jobs.poll_interval_ms` while no live query is open
/// (a cluster, `live_queries = false`, or the query down); while one is, every submission
/// anywhere wakes the workers already, and the look is a safety net every `SAFETY_POLL`.
async fn poll_loop(state: Arc<AppState>) {
    let _task = metrics::background("job_poll");
    let fast = Duration::from_millis(state.cfg.jobs.poll_interval_ms.max(50));
    let poll = || {
        if state.wakers.live.load(Ordering::SeqCst) {
            SAFETY_POLL.max(fast)
        } else {
            fast
        }
    };
    // A lapsed lease is found within a quarter of a lease (at most 5 s) of lapsing: looking on
    // every poll would cost an idle instance two writes a second for nothing.
    let lease = Duration::from_secs(state.cfg.jobs.lease_s.max(1));
    let requeue_every = (lease / 4).clamp(fast, Duration::from_secs(5).max(fast));
    let mut requeue = clock::Every::new(requeue_every);
    // Where `[split]` is on, this instance's workers are counted among the segment takers a
    // split is planned for, while it renews the count (three leases' grace).
    let mut offer = clock::Every::new(lease);
    while !state.stopping.is_cancelled() {
        if state.cfg.split.enabled && offer.due() {
            let until = clock::now_ms() + 3 * lease.as_millis() as i64;
            let workers = state.cfg.jobs.workers;
            if let Err(e) = state.db.offer_takers(&state.instance, workers, until).await {
                tracing::warn!("segment takers not counted: {e}");
            }
        }
        if requeue.due() {
            if let Err(e) = state
                .db
                .requeue_expired(clock::now_ms(), MAX_ATTEMPTS)
                .await
            {
                tracing::warn!("requeue failed: {e}");
            }
            if state.cfg.split.enabled {
                pipeline::split::requeue(&state, clock::now_ms()).await;
            }
        }
        state.wakers.jobs.notify_one();
        tokio::select! {
            _ = tokio::time::sleep(poll().min(requeue_every)) => {}
            _ = state.stopping.cancelled() => {}
        }
    }
    if state.cfg.split.enabled {
        let _ = state.db.withdraw_takers(&state.instance).await;
    }
}

async fn worker_loop(state: Arc<AppState>) {
    let _task = metrics::background("job_worker");
    let lease_ms = (state.cfg.jobs.lease_s * 1000) as i64;
    while !state.stopping.is_cancelled() {
        let woken = state.wakers.jobs.notified();
        let now = clock::now_ms();
        let token = names::random_id(24);
        // Segments of running split encodes take turns with jobs: first when their account
        // runs no more than any account waiting with a job (a task under way waits on them),
        // else after those jobs. Only where `[split]` is on (on every instance, as the docs
        // say): the queries are not worth a loop that never meets a segment.
        let segment = if state.cfg.split.enabled {
            scheduler::segment_turn(&state, now)
                .await
                .unwrap_or_else(|e| {
                    tracing::warn!("segment turn failed: {e}");
                    SegmentTurn::None
                })
        } else {
            SegmentTurn::None
        };
        if segment == SegmentTurn::First && take_segment(&state, &token, lease_ms).await {
            continue;
        }
        match scheduler::claim(&state, &token, now, lease_ms).await {
            Ok(Some(job)) => {
                // There may be more: the next idle worker looks too.
                state.wakers.jobs.notify_one();
                state
                    .running_jobs
                    .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                run(&state, job, &token).await;
                state
                    .running_jobs
                    .fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                continue;
            }
            Ok(None) => {}
            Err(e) => tracing::warn!("claim failed: {e}"),
        }
        if segment == SegmentTurn::AfterJobs && take_segment(&state, &token, lease_ms).await {
            continue;
        }
        // Woken by a submission here, a live query, a split's part, or the poll above.
        tokio::select! {
            _ = woken => {}
            _ = state.stopping.cancelled() => {}
        }
    }
}

/// Claims and encodes the oldest pending split segment; `false` when none was left to claim.
async fn take_segment(state: &Arc<AppState>, token: &str, lease_ms: i64) -> bool {
    // The time now, not the loop's start: the lease must not begin already spent.
    match state
        .db
        .claim_part(None, token, clock::now_ms(), lease_ms)
        .await
    {
        Ok(Some(part)) => {
            pipeline::split::work(state, part, token).await;
            true
        }
        Ok(None) => false,
        Err(e) => {
            tracing::warn!("segment claim failed: {e}");
            false
        }
    }
}

/// A run that finished: its outputs and figures, its quota hold, and a recipe's data.
type Finished = (Completed, metering::Hold, Option<serde_json::Value>);

enum Ended {
    Done(Result<Finished, AppError>),
    LeaseLost,
}

async fn run(state: &Arc<AppState>, job: Job, token: &str) {
    tracing::info!(job_id = job.job_id, attempt = job.attempts, "job started");
    let (progress_tx, progress_rx) = watch::channel(0u64);
    let hold_id = metering::job_hold_id(&job.job_id, token);
    let started = std::time::Instant::now();
    // The pipeline's stages, as a request's `Server-Timing` shows them, for the log line below.
    let work = crate::timing::measured(
        pipeline::split::ON_WORKER.scope((), execute(state, &job, &hold_id, progress_tx)),
    );
    let keep = keep_lease(state.clone(), &job, token, progress_rx);
    // Dropping `work` when the lease is lost kills its ffmpeg process group.
    let (ended, stages) = tokio::select! {
        (r, stages) = work => (Ended::Done(r), stages),
        () = keep => (Ended::LeaseLost, Vec::new()),
    };
    let now = clock::now_ms();
    let mut kept_hold = None;
    let finished = match ended {
        Ended::LeaseLost => {
            tracing::warn!(
                job_id = job.job_id,
                "lease lost; another worker owns the job now"
            );
            return;
        }
        Ended::Done(Ok((done, hold, data))) => {
            // `finish_job` charges the run and ends its hold in one transaction; if it does
            // not finish the job, dropping the hold releases it.
            kept_hold = Some(hold);
            let end = JobEnd::Completed {
                result: &done.outputs,
                usage: &done.usage,
                command: &done.command,
                cache: done.cache,
                data: data.as_ref(),
                account: &job.account,
                charge: &done.charge,
                month: &metering::this_month(),
            };
            state
                .db
                .finish_job(&job.job_id, token, now, end, &hold_id)
                .await
        }
        Ended::Done(Err(AppError::DatabaseUnavailable)) => {
            // Not the task's fault, and its end could not be recorded reliably now: the lease
            // lapses and the job runs again once the database answers.
            tracing::warn!(
                job_id = job.job_id,
                "database unavailable during the run; the job runs again when its lease lapses"
            );
            return;
        }
        Ended::Done(Err(e)) => {
            // The tenant sees the error table's message; the operator needs the cause.
            if let AppError::Internal(cause) = &e {
                tracing::error!(job_id = job.job_id, "job failed: {cause:#}");
            }
            let end = JobEnd::Failed {
                error: e.to_string(),
                details: e.details().map(str::to_string),
            };
            state
                .db
                .finish_job(&job.job_id, token, now, end, &hold_id)
                .await
        }
    };
    match finished {
        Ok(true) => {
            kept_hold.map(metering::Hold::ended);
            let timing = crate::timing::header(&stages, started.elapsed());
            tracing::info!(job_id = job.job_id, timing, "job finished")
        }
        Ok(false) => tracing::warn!(job_id = job.job_id, "job was taken over before it finished"),
        Err(e) => tracing::error!(job_id = job.job_id, "cannot finish job: {e}"),
    }
    // Its webhook, if it has one, is due now: nothing else is.
    if job.webhook_url.is_some() {
        state.wakers.webhooks.notify_one();
    }
}

async fn execute(
    state: &Arc<AppState>,
    job: &Job,
    hold_id: &str,
    progress: watch::Sender<u64>,
) -> Result<Finished, AppError> {
    let account =
        state.auth.account(&job.account).await?.ok_or_else(|| {
            AppError::Internal(anyhow::anyhow!("account {} is gone", job.account))
        })?;
    if let Some(recipe) = &job.recipe {
        return Box::pin(execute_recipe(state, &account, recipe, hold_id, progress)).await;
    }
    let resolved = pipeline::reload(state, &account, &job.task, &job.run).await?;
    let hold = metering::hold(state, &account, resolved.stored_bytes(), hold_id.into()).await?;
    let done = pipeline::execute(state, &resolved, Some(progress)).await?;
    Ok((done, hold, None))
}

/// A recipe job: its steps charge themselves as they run (`recipes::run`), so the job's own
/// end charges nothing more and holds nothing.
async fn execute_recipe(
    state: &Arc<AppState>,
    account: &crate::db::Account,
    recipe: &crate::task::RecipeCall,
    hold_id: &str,
    progress: watch::Sender<u64>,
) -> Result<Finished, AppError> {
    let turn = state.tenants.job_turn(&account.name);
    let ran = crate::recipes::run(state, account, recipe, &turn, Some(progress)).await?;
    let hold = metering::hold(state, account, 0, hold_id.into()).await?;
    let done = Completed {
        outputs: ran.outputs,
        usage: ran.usage,
        charge: crate::usage::Charge::default(),
        command: Vec::new(),
        cache: crate::cache::Outcome::Miss,
    };
    Ok((done, hold, Some(ran.data)))
}

async fn wake_on_parts(state: Arc<AppState>) {
    let _task = metrics::background("live_query");
    loop {
        match state.db.changes("part").await {
            Ok(mut changes) => {
                while changes.next().await.is_some() {
                    state.wakers.jobs.notify_waiters();
                }
            }
            Err(e) => tracing::warn!("segment live query unavailable, polling only: {e}"),
        }
        tokio::time::sleep(Duration::from_secs(5)).await;
    }
}

/// Renews the lease (and publishes progress) until it is lost; never returns otherwise.
async fn keep_lease(state: Arc<AppState>, job: &Job, token: &str, progress: watch::Receiver<u64>) {
    let lease_ms = (state.cfg.jobs.lease_s * 1000) as i64;
    let every = Duration::from_millis((lease_ms as u64 / 3).clamp(200, 1000));
    // Found out alongside the renewals, which must not wait for it, and only for jobs that
    // outlive the first tick: short jobs should not pay for a second process.
    let mut expected: Option<f64> = None;
    let mut estimate = None;
    let mut first = true;
    let started = std::time::Instant::now();
    loop {
        tokio::time::sleep(every).await;
        if std::mem::take(&mut first) {
            let (state, job) = (state.clone(), job.clone());
            estimate = Some(tokio::spawn(async move {
                expected_duration(&state, &job).await
            }));
        }
        if estimate.as_ref().is_some_and(|h| h.is_finished()) {
            expected = estimate.take().expect("checked").await.ok().flatten();
        }
        let processed = *progress.borrow() as f64 / 1e6;
        let running_s = started.elapsed().as_secs_f64();
        let report = Progress {
            processed_sec: (processed * 100.0).round() / 100.0,
            percent: expected.map(|d| ((processed / d) * 100.0).clamp(0.0, 99.0).round()),
            // At the speed measured so far; none until ffmpeg has reported some progress.
            eta_sec: expected
                .filter(|_| processed > 0.0)
                .map(|d| ((d - processed).max(0.0) * running_s / processed * 10.0).round() / 10.0),
        };
        match state
            .db
            .renew_lease(
                &job.job_id,
                token,
                clock::now_ms() + lease_ms,
                Some(&report),
            )
            .await
        {
            Ok(true) => {}
            Ok(false) => return,
            Err(e) => tracing::warn!(job_id = job.job_id, "lease renewal failed: {e}"),
        }
    }
}

/// The first input's duration, against which progress is reported.
async fn expected_duration(state: &AppState, job: &Job) -> Option<f64> {
    let first = job.run.inputs.first()?;
    let file = state
        .db
        .file(&first.dir_id, &first.file_name)
        .await
        .ok()??;
    inspect::duration_of(&inspect::inspect(state, &job.account, &file).await?)
}
