//! Async jobs: submission (resolved, URL inputs imported, then queued), the workers that run
//! them, and the webhook deliveries that report them. Everything lives in the database, so
//! any instance may submit, run or report any job, and a crash loses nothing.

pub mod scheduler;
pub mod webhooks;
pub mod worker;

use std::sync::Arc;

use sha2::{Digest, Sha256};
use tokio::sync::Notify;

use crate::app::AppState;
use crate::clock;
use crate::db::{Account, Job, JobStatus, Priority};
use crate::error::{AppError, AppResult};
use crate::names;
use crate::pipeline;
use crate::task::{Generated, Task};

/// Wake-ups for this instance's workers and deliverer.
#[derive(Default)]
pub struct Wakers {
    pub jobs: Notify,
    pub webhooks: Notify,
    /// Whether the live query on `job` is open: other instances' submissions then wake this
    /// one, and the timed look at the queue is only a safety net (`jobs/worker.rs`).
    pub live: std::sync::atomic::AtomicBool,
    /// The id of each job the live query saw change (empty: a change it could not read), for
    /// the event streams watching them (`api/jobs.rs`).
    pub changed: Changed,
}

/// A job's id each time it changes, to every event stream: each waits for its own.
pub struct Changed(pub tokio::sync::broadcast::Sender<String>);

impl Default for Changed {
    fn default() -> Changed {
        // A stream that falls this far behind looks at its job again, as for a change.
        Changed(tokio::sync::broadcast::channel(1024).0)
    }
}

impl Changed {
    /// Until `job_id` changes (or an unread change, or one missed while behind, might be it).
    pub async fn of(receiver: &mut tokio::sync::broadcast::Receiver<String>, job_id: &str) {
        use tokio::sync::broadcast::error::RecvError;
        loop {
            match receiver.recv().await {
                Ok(id) if id.is_empty() || id == job_id => return,
                Ok(_) => {}
                Err(RecvError::Lagged(_)) => return,
                // No live query on this instance: only the stream's own timer wakes it.
                Err(RecvError::Closed) => std::future::pending::<()>().await,
            }
        }
    }
}

pub const IDEMPOTENCY_WINDOW_MS: i64 = 24 * 3600 * 1000;

pub struct Submission<'a> {
    pub account: &'a Account,
    pub task: Task,
    pub webhook_url: Option<String>,
    pub idempotency_key: Option<String>,
    /// Natural-language submissions: the task is the translator's.
    pub generated: bool,
    pub priority: Priority,
    /// A recipe job (`task` holds its inputs only, with no outputs).
    pub recipe: Option<crate::task::RecipeCall>,
}

/// Validates, imports URL inputs, queues. Returns the job (an earlier one for a repeated
/// idempotency key).
pub async fn submit(state: &Arc<AppState>, s: Submission<'_>) -> AppResult<Job> {
    if let Some(url) = &s.webhook_url {
        state
            .net
            .check(url)
            .await
            .map_err(|e| AppError::BadRequest(format!("Invalid webhook_url: {e}")))?;
    }
    let idem = s.idempotency_key.as_ref().map(|k| {
        if k.is_empty() || k.len() > 255 {
            return Err(AppError::BadRequest(
                "Idempotency-Key must be 1-255 characters".into(),
            ));
        }
        Ok(hex::encode(Sha256::digest(format!(
            "{}\n{k}",
            s.account.name
        ))))
    });
    let idem = idem.transpose()?;
    if let Some(idem) = &idem {
        let since = clock::now_ms() - IDEMPOTENCY_WINDOW_MS;
        if let Some(job) = state.db.job_by_idempotency(idem, since).await? {
            return Ok(job);
        }
    }
    let mut recipe = s.recipe;
    let mut task = s.task;
    // Boxed: inline, the recipe's checks grew every caller's future (the MCP tool call's
    // overflowed a debug build's worker stack).
    let (resolved, estimate) = match &mut recipe {
        Some(call) => {
            let (resolved, inputs) = Box::pin(queue_recipe(state, s.account, call)).await?;
            task = inputs;
            (resolved, None)
        }
        None => {
            let resolved = Box::pin(pipeline::prepare(state, s.account, task.clone())).await?;
            let estimate = pipeline::estimate::of(state, &resolved).await?;
            (resolved, Some(estimate))
        }
    };
    let run = resolved
        .queued()
        .ok_or_else(|| AppError::Internal(anyhow::anyhow!("inputs not imported")))?;
    let now = clock::now_ms();
    let job = Job {
        job_id: format!("job_{}", names::random_id(20)),
        account: s.account.name.clone(),
        status: JobStatus::Pending,
        priority: s.priority,
        priority_rank: s.priority.rank(),
        claimed_at: 0,
        estimate,
        generated_command: s.generated.then(|| match &recipe {
            Some(recipe) => Generated::Recipe {
                recipe: recipe.clone(),
            },
            None => Generated::Task(task.clone()),
        }),
        input_count: task.inputs.len() as u32,
        task,
        run,
        webhook_url: s.webhook_url,
        created_at: now,
        updated_at: now,
        completed_at: None,
        output_count: 0,
        result: None,
        usage: None,
        command: None,
        cache: None,
        error: None,
        details: None,
        lease_token: None,
        lease_until: 0,
        attempts: 0,
        progress: None,
        idem,
        webhook: None,
        recipe,
        data: None,
    };
    // A concurrent submission with the same key may have won since the look-up above.
    let since = clock::now_ms() - IDEMPOTENCY_WINDOW_MS;
    let created = state.db.create_job(&job, since).await?;
    if created.job_id == job.job_id {
        state.wakers.jobs.notify_one();
    }
    Ok(created)
}

/// A recipe job before it is queued: checked now, so a bad request is refused at once; its
/// inputs resolved and imported as a task's, the call keeping their stored paths and its output
/// directory. Also the task the job view shows: the inputs, no outputs of its own.
async fn queue_recipe(
    state: &Arc<AppState>,
    account: &Account,
    call: &mut crate::task::RecipeCall,
) -> AppResult<(pipeline::Resolved, Task)> {
    crate::recipes::checked(state, call).await?;
    let resolved =
        crate::facts::prepare(state, account, &call.inputs, call.output_dir_id.clone()).await?;
    call.inputs = crate::facts::stored_paths(&resolved);
    call.output_dir_id = resolved.output_dir.as_ref().map(|d| d.dir_id.clone());
    let task = Task {
        inputs: call
            .inputs
            .iter()
            .map(|p| crate::task::TaskInput {
                file_path: p.clone(),
                options: Vec::new(),
            })
            .collect(),
        outputs: Vec::new(),
        filter_complex: None,
        output_dir_id: call.output_dir_id.clone(),
        cache: call.cache,
        split: true,
        export: None,
    };
    Ok((resolved, task))
}
