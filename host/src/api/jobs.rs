//! Async jobs (spec 4.3–4.6): POST /ffmpeg/process/async, GET /jobs, GET and DELETE
//! /job/{jobId}, and GET /job/{jobId}/events (server-sent events until the job ends).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use salvo::prelude::*;
use salvo::sse::{self, SseEvent};
use serde_json::{Value, json};

use super::process::task_from;
use super::{account, body_value, max_body, state};
use crate::app::AppState;
use crate::clock;
use crate::db::{Account, Job, ListQuery};
use crate::error::{AppError, AppResult};
use crate::jobs::{self, Submission};

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
        Some(_) => Err(AppError::BadRequest("webhook_url must be a string".into())),
    }
}

pub fn idempotency_key(req: &Request) -> Option<String> {
    req.headers()
        .get("idempotency-key")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// 202 `{ok, job_id, status}`.
pub fn accepted(res: &mut Response, job: &Job, extra: Option<(&str, Value)>) -> Json<Value> {
    res.status_code(StatusCode::ACCEPTED);
    let mut body = json!({ "ok": true, "job_id": job.job_id, "status": job.status });
    if let Some((k, v)) = extra {
        body[k] = v;
    }
    Json(body)
}

#[endpoint(tags("jobs"), request_body = super::schemas::AsyncRequest, responses((status_code = 202, body = super::schemas::Accepted)), status_codes(202, 400, 401, 403, 404, 413, 500, 502), security(("api_key" = [])))]
pub async fn submit(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> AppResult<Json<Value>> {
    let state = state(depot);
    let body = body_value(req, max_body(&state)).await?;
    let task = task_from(&body)?;
    let account = account(depot);
    let job = jobs::submit(
        &state,
        Submission {
            account: &account,
            task,
            webhook_url: webhook_url(&body)?,
            idempotency_key: idempotency_key(req),
            generated_command: None,
        },
    )
    .await?;
    Ok(accepted(res, &job, None))
}

const STATUSES: [&str; 5] = ["pending", "processing", "completed", "failed", "cancelled"];

#[endpoint(tags("jobs"), responses((status_code = 200, body = super::schemas::JobList)), parameters(("status" = Option<String>, Query, description = "Comma-separated statuses"), ("limit" = Option<u32>, Query, description = "1-100, default 20"), ("offset" = Option<u32>, Query, description = "Default 0"), ("sort" = Option<String>, Query, description = "created_at_desc (default) or created_at_asc")), status_codes(200, 400, 401, 500), security(("api_key" = [])))]
async fn list_jobs(req: &mut Request, depot: &mut Depot) -> AppResult<Json<Value>> {
    let state = state(depot);
    let account = account(depot);
    let q = |name: &str| req.queries().get(name).cloned();
    let statuses = match q("status") {
        None => None,
        Some(raw) => {
            let wanted: Vec<String> = raw
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect();
            if let Some(bad) = wanted.iter().find(|s| !STATUSES.contains(&s.as_str())) {
                return Err(AppError::BadRequest(format!(
                    "Invalid status '{bad}': use a comma-separated list of {}",
                    STATUSES.join(", ")
                )));
            }
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
    Ok(Json(json!({
        "ok": true,
        "jobs": jobs.iter().map(jobs::list_entry).collect::<Vec<_>>(),
        "pagination": {
            "total": total,
            "limit": limit,
            "offset": offset,
            "has_more": (offset as u64 + jobs.len() as u64) < total,
        },
    })))
}

/// The caller's job: 404 when unknown, 403 when another account's.
async fn owned_job(state: &AppState, account: &Account, req: &Request) -> AppResult<Job> {
    let id = req.param::<String>("job_id").unwrap_or_default();
    if id.len() > 100
        || !id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Err(AppError::JobNotFound);
    }
    let job = state.db.job(&id).await?.ok_or(AppError::JobNotFound)?;
    if job.account != account.name {
        return Err(AppError::JobForbidden);
    }
    Ok(job)
}

#[endpoint(tags("jobs"), responses((status_code = 200, body = super::schemas::JobView)), parameters(("job_id" = String, Path, description = "Job id")), status_codes(200, 401, 403, 404, 500), security(("api_key" = [])))]
async fn show(req: &mut Request, depot: &mut Depot) -> AppResult<Json<Value>> {
    let state = state(depot);
    let job = owned_job(&state, &account(depot), req).await?;
    Ok(Json(jobs::job_view(&state, &job).await))
}

#[endpoint(tags("jobs"), responses((status_code = 200, body = super::schemas::Message)), parameters(("job_id" = String, Path, description = "Job id")), status_codes(200, 401, 404, 409, 500), security(("api_key" = [])))]
async fn cancel(req: &mut Request, depot: &mut Depot) -> AppResult<Json<Value>> {
    let state = state(depot);
    // DELETE lists no 403 (spec 4.6): another account's job is simply not found.
    let job = match owned_job(&state, &account(depot), req).await {
        Err(AppError::JobForbidden) => return Err(AppError::JobNotFound),
        other => other?,
    };
    // One statement that re-checks `pending`: a cancel racing a worker's claim ends in
    // exactly one of the two.
    match state.db.cancel_job(&job.job_id, clock::now_ms()).await? {
        Some(_) => Ok(Json(
            json!({ "ok": true, "message": "Job cancelled successfully" }),
        )),
        None => {
            let now = state
                .db
                .job(&job.job_id)
                .await?
                .map(|j| j.status)
                .unwrap_or(job.status);
            Err(AppError::JobNotCancellable(now))
        }
    }
}

#[endpoint(tags("jobs"), parameters(("job_id" = String, Path, description = "Job id")), status_codes(200, 401, 403, 404, 500), security(("api_key" = [])))]
async fn events(req: &mut Request, depot: &mut Depot, res: &mut Response) -> AppResult<()> {
    let state = state(depot);
    let job = owned_job(&state, &account(depot), req).await?;
    let stream = futures_util::stream::unfold(
        (state, job.job_id, None::<Value>, false),
        |(state, id, last, done): (Arc<AppState>, String, Option<Value>, bool)| async move {
            if done {
                return None;
            }
            loop {
                let job = state.db.job(&id).await.ok().flatten()?;
                let view = jobs::job_view(&state, &job).await;
                let snapshot =
                    json!({ "status": view["status"], "progress": view.get("progress") });
                if last.as_ref() != Some(&snapshot) {
                    let terminal = jobs::is_terminal(&job.status);
                    let event = SseEvent::default()
                        .name(if terminal { "end" } else { "status" })
                        .text(view.to_string());
                    return Some((
                        Ok::<_, Infallible>(event),
                        (state, id, Some(snapshot), terminal),
                    ));
                }
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
        },
    );
    sse::stream(res, stream);
    Ok(())
}
