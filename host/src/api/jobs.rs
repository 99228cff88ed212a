//! Async jobs: POST /ffmpeg/process/async, GET /jobs, GET and DELETE
//! /job/{jobId}, and GET /job/{jobId}/events (server-sent events until the job ends).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use salvo::prelude::*;
use salvo::sse::{self, SseEvent};
use serde_json::{Value, json};

use super::process::task_from;
use super::schemas::{
    Accepted, JobEntry, JobList, JobView, Message, Pagination, RecipeOfJob, WebhookView,
};
use super::{account, body_value, caller, max_body, state};
use crate::accounts::{self, Actor};
use crate::app::AppState;
use crate::clock;
use crate::db::{Account, Job, JobStatus, ListQuery, Priority};
use crate::error::{AppError, AppResult};
use crate::jobs::{self, Submission};
use crate::pipeline;
use crate::tenants::TaskPermit;

pub fn router() -> Router {
    Router::new()
        .push(Router::with_path("jobs").get(list_jobs))
        .push(
            Router::with_path("job/{job_id}")
                .get(show)
                .delete(cancel)
                .push(Router::with_path("events").get(events)),
        )
}

/// The optional `webhook_url` of an async request.
pub fn webhook_url(body: &Value) -> AppResult<Option<String>> {
    match body.get("webhook_url") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(AppError::WebhookUrlType),
    }
}

/// The optional `priority` of an async request: `high`, `normal` (the default) or `low`.
pub fn priority(body: &Value) -> AppResult<Priority> {
    match body.get("priority") {
        None | Some(Value::Null) => Ok(Priority::Normal),
        Some(Value::String(s)) => Priority::parse(s).ok_or(AppError::InvalidPriority),
        Some(_) => Err(AppError::InvalidPriority),
    }
}

pub fn idempotency_key(req: &Request) -> Option<String> {
    req.headers()
        .get("idempotency-key")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// `{ok, job_id, status}` (and the derived task of a natural-language job).
pub fn accepted_body(job: &Job) -> Accepted {
    Accepted {
        ok: true,
        job_id: job.job_id.clone(),
        status: job.status.as_str().into(),
        generated_command: job.generated_command.clone(),
        priority: job.priority.as_str().into(),
        estimate: job.estimate.clone(),
    }
}

/// 202 with `accepted_body`.
pub fn accepted(res: &mut Response, job: &Job) -> Json<Accepted> {
    res.status_code(StatusCode::ACCEPTED);
    Json(accepted_body(job))
}

/// POST /ffmpeg/process/async (and the MCP tool `submit_job`): `{task, webhook_url?}` queued.
pub async fn submit_of(
    state: &Arc<AppState>,
    account: &Account,
    body: &Value,
    idempotency_key: Option<String>,
) -> AppResult<Job> {
    let task = task_from(body)?;
    jobs::submit(
        state,
        Submission {
            account,
            task,
            webhook_url: webhook_url(body)?,
            idempotency_key,
            generated: false,
            priority: priority(body)?,
            recipe: None,
        },
    )
    .await
}

#[endpoint(tags("jobs"), request_body = super::schemas::AsyncRequest, responses((status_code = 202, body = Accepted)), status_codes(202, 400, 401, 403, 404, 413, 429, 500, 502, 503), security(("api_key" = [])))]
pub async fn submit(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> AppResult<Json<Accepted>> {
    let state = state(depot);
    let body = body_value(req, max_body(&state)).await?;
    let job = submit_of(&state, &account(depot), &body, idempotency_key(req)).await?;
    Ok(accepted(res, &job))
}

#[endpoint(tags("jobs"), parameters(("status" = Option<String>, Query, description = "Comma-separated statuses"), ("limit" = Option<u32>, Query, description = "1-100, default 20"), ("offset" = Option<u32>, Query, description = "Default 0"), ("sort" = Option<String>, Query, description = "created_at_desc (default) or created_at_asc")), status_codes(200, 400, 401, 429, 500), security(("api_key" = [])))]
async fn list_jobs(req: &mut Request, depot: &mut Depot) -> AppResult<Json<JobList>> {
    let q = |name: &str| req.queries().get(name).cloned();
    Ok(Json(list_of(&state(depot), &account(depot), &q).await?))
}

/// GET /jobs (and the MCP tool `list_jobs`): `q` gives the query parameters `status`, `limit`,
/// `offset` and `sort` as the URL carries them.
pub async fn list_of(
    state: &AppState,
    account: &Account,
    q: &(dyn Fn(&str) -> Option<String> + Sync),
) -> AppResult<JobList> {
    let statuses = match q("status") {
        None => None,
        Some(raw) => {
            let wanted = raw
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| {
                    JobStatus::parse(s).ok_or_else(|| {
                        let all: Vec<&str> = JobStatus::ALL.iter().map(|v| v.as_str()).collect();
                        AppError::BadRequest(format!(
                            "Invalid status '{s}': use a comma-separated list of {}",
                            all.join(", ")
                        ))
                    })
                })
                .collect::<AppResult<Vec<_>>>()?;
            (!wanted.is_empty()).then_some(wanted)
        }
    };
    let limit = match q("limit") {
        None => 20,
        Some(raw) => raw
            .parse::<u32>()
            .ok()
            .filter(|l| (1..=100).contains(l))
            .ok_or_else(|| {
                AppError::BadRequest(format!(
                    "Invalid limit '{raw}': must be an integer from 1 to 100"
                ))
            })?,
    };
    let offset = match q("offset") {
        None => 0,
        Some(raw) => raw.parse::<u32>().map_err(|_| {
            AppError::BadRequest(format!(
                "Invalid offset '{raw}': must be a non-negative integer"
            ))
        })?,
    };
    let ascending = match q("sort").as_deref() {
        None | Some("created_at_desc") => false,
        Some("created_at_asc") => true,
        Some(other) => {
            return Err(AppError::BadRequest(format!(
                "Invalid sort '{other}': must be created_at_desc or created_at_asc"
            )));
        }
    };
    let (jobs, total) = state
        .db
        .list_jobs(&ListQuery {
            account: &account.name,
            statuses,
            limit,
            offset,
            ascending,
        })
        .await?;
    Ok(JobList {
        ok: true,
        pagination: Pagination {
            total,
            limit,
            offset,
            has_more: (offset as u64 + jobs.len() as u64) < total,
        },
        jobs: jobs.iter().map(list_entry).collect(),
    })
}

/// The caller's job: 404 when unknown, 403 when another account's.
pub async fn owned_job(state: &AppState, account: &Account, id: &str) -> AppResult<Job> {
    if id.len() > 100
        || !id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Err(AppError::JobNotFound);
    }
    let job = state.db.job(id).await?.ok_or(AppError::JobNotFound)?;
    if job.account != account.name {
        return Err(AppError::JobForbidden);
    }
    Ok(job)
}

fn job_id(req: &Request) -> String {
    req.param::<String>("job_id").unwrap_or_default()
}

#[endpoint(tags("jobs"), parameters(("job_id" = String, Path, description = "Job id")), status_codes(200, 401, 403, 404, 429, 500), security(("api_key" = [])))]
async fn show(req: &mut Request, depot: &mut Depot) -> AppResult<Json<JobView>> {
    let state = state(depot);
    let job = owned_job(&state, &account(depot), &job_id(req)).await?;
    Ok(Json(job_view(&state, &job).await?))
}

/// DELETE /job/{job_id} (and the MCP tool `cancel_job`).
pub async fn cancel_of(
    state: &AppState,
    account: &Account,
    actor: &Actor,
    id: &str,
) -> AppResult<Message> {
    // DELETE documents no 403: another account's job is simply not found.
    let job = match owned_job(state, account, id).await {
        Err(AppError::JobForbidden) => return Err(AppError::JobNotFound),
        other => other?,
    };
    // One statement that re-checks `pending`: a cancel racing a worker's claim ends in
    // exactly one of the two.
    if state.db.cancel_job(&job.job_id, clock::now_ms()).await? {
        accounts::audit(state, actor, "job.cancel", &job.job_id).await;
        return Ok(Message {
            ok: true,
            message: "Job cancelled successfully".into(),
        });
    }
    let now = state
        .db
        .job(&job.job_id)
        .await?
        .map(|j| j.status)
        .unwrap_or(job.status);
    Err(AppError::JobNotCancellable(now.as_str()))
}

#[endpoint(tags("jobs"), parameters(("job_id" = String, Path, description = "Job id")), status_codes(200, 401, 404, 409, 429, 500), security(("api_key" = [])))]
async fn cancel(req: &mut Request, depot: &mut Depot) -> AppResult<Json<Message>> {
    let actor = Actor::caller(&caller(depot), req.remote_addr().to_string());
    Ok(Json(
        cancel_of(&state(depot), &account(depot), &actor, &job_id(req)).await?,
    ))
}

/// An event stream's state between events: its job, what it last sent, its watch permit (gone
/// once the job ended) and the job changes it is woken by.
type Watching = (
    Arc<AppState>,
    String,
    Option<Value>,
    Option<(TaskPermit, crate::metrics::Background)>,
    tokio::sync::broadcast::Receiver<String>,
);

#[endpoint(tags("jobs"), parameters(("job_id" = String, Path, description = "Job id")), status_codes(200, 401, 403, 404, 429, 500), security(("api_key" = [])))]
async fn events(req: &mut Request, depot: &mut Depot, res: &mut Response) -> AppResult<()> {
    let state = state(depot);
    let account = account(depot);
    let job = owned_job(&state, &account, &job_id(req)).await?;
    // Held by the stream: dropped when the client hangs up or the job ends.
    let permit = state
        .tenants
        .admit_watcher(&account.name, state.cfg.jobs.max_watchers_per_account)?;
    // Woken when its job changes (the live query on `job`), or by its timer without one.
    let changes = state.wakers.changed.0.subscribe();
    let stream = futures_util::stream::unfold(
        (
            state,
            job.job_id,
            None::<Value>,
            Some((permit, crate::metrics::background("event_stream"))),
            changes,
        ),
        |(state, id, last, permit, mut changes): Watching| async move {
            permit.as_ref()?;
            loop {
                let job = state.db.job(&id).await.ok().flatten()?;
                let view = job_view(&state, &job).await.ok()?;
                // A waiting job's place in the queue is news too, not only status and progress.
                let snapshot = json!({ "status": view.status, "progress": view.progress, "queue_position": view.queue_position });
                if last.as_ref() != Some(&snapshot) {
                    let terminal = job.status.is_terminal();
                    let event = SseEvent::default()
                        .name(if terminal { "end" } else { "status" })
                        .text(serde_json::to_string(&view).unwrap_or_default());
                    return Some((
                        Ok::<_, Infallible>(event),
                        (
                            state,
                            id,
                            Some(snapshot),
                            permit.filter(|_| !terminal),
                            changes,
                        ),
                    ));
                }
                // A change of the job wakes the stream at once; the timer is for its place in
                // the queue (which other jobs move) and for instances without a live query. A
                // waiting job's place changes slowly and costs the most to work out: it is
                // read less often than a running one's progress.
                let pause = if job.status == JobStatus::Pending {
                    1000
                } else {
                    250
                };
                tokio::select! {
                    () = tokio::time::sleep(Duration::from_millis(pause)) => {}
                    () = crate::jobs::Changed::of(&mut changes, &id) => {}
                }
            }
        },
    );
    // A comment every 10 s when nothing else is sent: a client that went away without closing
    // its connection is found by the failed write, and its stream (and watch permit) dropped.
    sse::SseKeepAlive::new(stream)
        .max_interval(Duration::from_secs(10))
        .stream(res);
    Ok(())
}

/// GET /job/{jobId} in each state's shape (fields by status, as the README shows), plus progress and webhook delivery.
pub async fn job_view(state: &AppState, job: &Job) -> AppResult<JobView> {
    let completed = job.status == JobStatus::Completed;
    let failed = job.status == JobStatus::Failed;
    let result = match (&job.result, completed) {
        (Some(outputs), true) => Some(pipeline::links(state, outputs).await?),
        _ => None,
    };
    let playback_url = match (&job.data, &result) {
        (Some(data), Some(links)) => super::recipes::playback_of(data, links),
        _ => None,
    };
    let queue_position = match job.status {
        JobStatus::Pending => Some(jobs::scheduler::queue_position(state, job).await?),
        _ => None,
    };
    Ok(JobView {
        ok: !matches!(job.status, JobStatus::Failed | JobStatus::Cancelled),
        job_id: job.job_id.clone(),
        status: job.status.as_str().into(),
        priority: job.priority.as_str().into(),
        queue_position,
        estimate: job.estimate.clone(),
        task: job.task.clone(),
        generated_command: job.generated_command.clone(),
        progress: job.progress.filter(|_| job.status == JobStatus::Processing),
        result,
        usage: job.usage.filter(|_| completed),
        command: job
            .command
            .clone()
            .filter(|_| completed && job.recipe.is_none()),
        cache: job.cache.filter(|_| completed && job.recipe.is_none()),
        recipe: job.recipe.as_ref().map(|r| RecipeOfJob {
            name: r.name.clone(),
            params: r.params.clone(),
        }),
        data: job.data.clone().filter(|_| completed),
        playback_url,
        error: failed.then(|| job.error.clone().unwrap_or_else(|| "Job failed".into())),
        details: job.details.clone().filter(|_| failed),
        webhook: job.webhook.as_ref().map(|w| WebhookView {
            url: job.webhook_url.clone(),
            state: w.state.as_str().into(),
            attempts: w.attempts,
            last_status: w.last_status,
            last_error: w.last_error.clone(),
            delivered_at: w.delivered_at.map(clock::ms_rfc3339),
        }),
    })
}

/// An entry of GET /jobs.
fn list_entry(job: &Job) -> JobEntry {
    JobEntry {
        id: job.job_id.clone(),
        status: job.status.as_str().into(),
        priority: job.priority.as_str().into(),
        webhook_url: job.webhook_url.clone(),
        created_at: clock::ms_rfc3339(job.created_at),
        updated_at: clock::ms_rfc3339(job.updated_at),
        completed_at: job.completed_at.map(clock::ms_rfc3339),
        input_count: job.input_count,
        output_count: job.output_count,
        has_error: job.error.is_some(),
    }
}
