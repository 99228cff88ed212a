//! Async jobs: submission (validated, URL inputs imported, then queued), the workers that run
//! them, and the webhook deliveries that report them. Everything lives in the database, so
//! any instance may submit, run or report any job, and a crash loses nothing.

pub mod webhooks;
pub mod worker;

use std::sync::Arc;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::sync::Notify;

use crate::app::AppState;
use crate::clock;
use crate::db::{Account, Job};
use crate::error::{AppError, AppResult};
use crate::media::task::{self, Input, Resolved};
use crate::names;
use crate::task::{Task, TaskInput};

/// Wake-ups for this instance's workers and deliverer.
#[derive(Default)]
pub struct Wakers {
    pub jobs: Notify,
    pub webhooks: Notify,
}

pub const IDEMPOTENCY_WINDOW_MS: i64 = 24 * 3600 * 1000;

pub struct Submission<'a> {
    pub account: &'a Account,
    pub task: Task,
    pub webhook_url: Option<String>,
    pub idempotency_key: Option<String>,
    pub generated_command: Option<Value>,
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
    let mut resolved = task::resolve(state, s.account, s.task.clone()).await?;
    task::import(state, &mut resolved).await?;
    let now = clock::now_ms();
    let job = Job {
        job_id: format!("job_{}", names::random_id(20)),
        account: s.account.name.clone(),
        status: "pending".into(),
        task: serde_json::to_value(&s.task).map_err(|e| AppError::Internal(e.into()))?,
        exec: serde_json::to_value(exec_task(&resolved))
            .map_err(|e| AppError::Internal(e.into()))?,
        generated_command: s.generated_command,
        webhook_url: s.webhook_url,
        created_at: now,
        updated_at: now,
        completed_at: None,
        input_count: s.task.inputs.len() as u32,
        output_count: 0,
        result: None,
        usage: None,
        error: None,
        details: None,
        lease_token: None,
        lease_until: 0,
        attempts: 0,
        progress: None,
        idem,
        webhook: None,
    };
    state.db.create_job(&job).await?;
    state.wakers.jobs.notify_one();
    Ok(job)
}

/// The task a worker runs: inputs as stored files (URLs already imported), output directory
/// fixed, so running it never fetches again and lands where the submission said.
fn exec_task(resolved: &Resolved) -> Task {
    let mut task = resolved.task.clone();
    task.inputs = resolved
        .inputs
        .iter()
        .zip(&resolved.task.inputs)
        .map(|(input, original)| match input {
            Input::Stored(f) => TaskInput {
                file_path: format!("{}/{}", f.dir_id, f.file_name),
                options: original.options.clone(),
            },
            Input::Url { .. } => original.clone(),
        })
        .collect();
    task.output_dir_id = resolved.output_dir.as_ref().map(|d| d.dir_id.clone());
    task
}

/// Output files as stored on the job: names, sizes and object ids (URLs are made when shown,
/// so they are always fresh).
pub fn stored_result(files: &[task::OutputFile]) -> Value {
    Value::Array(
        files
            .iter()
            .map(|f| json!({ "file_name": f.file_name, "size_bytes": f.size_bytes, "object_id": f.object_id }))
            .collect(),
    )
}

/// `[{file_name, size_bytes, download_url}]` with fresh presigned URLs.
pub async fn result_view(state: &AppState, stored: &Value) -> Value {
    let ttl = state.cfg.storage.download_url_ttl_s;
    let mut files = Vec::new();
    for f in stored.as_array().into_iter().flatten() {
        let name = f["file_name"].as_str().unwrap_or_default();
        let url = match f["object_id"].as_str() {
            Some(o) => state.store.presign_download(o, name, ttl).await.ok(),
            None => None,
        };
        let url = url.map(|p| p.url).unwrap_or_default();
        files.push(
            json!({ "file_name": f["file_name"], "size_bytes": f["size_bytes"], "download_url": url }),
        );
    }
    Value::Array(files)
}

/// GET /job/{jobId} in each state's shape (spec 4.5), plus progress and webhook delivery.
pub async fn job_view(state: &AppState, job: &Job) -> Value {
    let ok = !matches!(job.status.as_str(), "failed" | "cancelled");
    let mut v = json!({ "ok": ok, "job_id": job.job_id, "status": job.status, "task": job.task });
    if let Some(generated) = &job.generated_command {
        v["generated_command"] = generated.clone();
    }
    match job.status.as_str() {
        "processing" => {
            if let Some(p) = &job.progress {
                v["progress"] = p.clone();
            }
        }
        "completed" => {
            v["result"] = result_view(state, job.result.as_ref().unwrap_or(&Value::Null)).await;
            v["usage"] = job.usage.clone().unwrap_or(Value::Null);
        }
        "failed" => {
            v["error"] = json!(job.error.clone().unwrap_or_else(|| "Job failed".into()));
            if let Some(d) = &job.details {
                v["details"] = json!(d);
            }
        }
        _ => {}
    }
    if let Some(w) = &job.webhook {
        v["webhook"] = json!({
            "url": job.webhook_url,
            "state": w.state,
            "attempts": w.attempts,
            "last_status": w.last_status,
            "last_error": w.last_error,
            "delivered_at": w.delivered_at.map(clock::ms_rfc3339),
        });
    }
    v
}

/// An entry of GET /jobs (spec section 2, "Job list entry").
pub fn list_entry(job: &Job) -> Value {
    json!({
        "id": job.job_id,
        "status": job.status,
        "webhook_url": job.webhook_url,
        "created_at": clock::ms_rfc3339(job.created_at),
        "updated_at": clock::ms_rfc3339(job.updated_at),
        "completed_at": job.completed_at.map(clock::ms_rfc3339),
        "input_count": job.input_count,
        "output_count": job.output_count,
        "has_error": job.error.is_some(),
    })
}

pub fn is_terminal(status: &str) -> bool {
    matches!(status, "completed" | "failed" | "cancelled")
}
