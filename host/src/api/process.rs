//! POST /ffmpeg/process and the dry run POST /ffmpeg/validate (beyond the spec: what
//! would run, and each policy decision, without running or charging).

use std::sync::Arc;

use salvo::prelude::*;
use serde_json::Value;
use tokio::sync::watch;

use super::schemas::{EstimateResponse, ProcessResponse, QuotaFit, ValidateResponse};
use super::{account, body_value, from_value, max_body, state};
use crate::app::AppState;
use crate::db::Account;
use crate::error::{AppError, AppResult};
use crate::pipeline;
use crate::task::Task;
use crate::usage::remaining_gb;

pub fn router() -> Router {
    Router::with_path("ffmpeg")
        .push(
            Router::with_path("process")
                .post(process)
                .push(Router::with_path("async").post(super::jobs::submit)),
        )
        .push(Router::with_path("validate").post(validate))
        .push(Router::with_path("estimate").post(estimate))
}

/// `task` out of `{task: {...}, cache?, split?}`, with the API's message for each way it can
/// be missing; a top-level `"cache": false` opts the task out of the result cache, and
/// `"split": false` out of split encoding.
pub fn task_from(body: &Value) -> AppResult<Task> {
    match body.get("task") {
        Some(t) if t.is_object() => from_value::<Task>(t.clone())?.with_flags(body),
        _ => Err(AppError::TaskRequired),
    }
}

/// POST /ffmpeg/process (and the MCP tool `process`, which watches progress): run now.
pub async fn run_task(
    state: &Arc<AppState>,
    account: &Account,
    task: Task,
    progress: Option<watch::Sender<u64>>,
) -> AppResult<ProcessResponse> {
    let done = pipeline::run_now_watched(state, account, task, progress).await?;
    let result = pipeline::links(state, &done.outputs).await?;
    crate::timing::mark("links");
    Ok(ProcessResponse {
        ok: true,
        result,
        usage: done.usage,
        cache: done.cache,
    })
}

/// POST /ffmpeg/validate (and the MCP tool `validate`): the dry run.
pub async fn dry_run_task(
    state: &AppState,
    account: &Account,
    task: Task,
) -> AppResult<ValidateResponse> {
    let dry = pipeline::dry_run(state, account, task).await?;
    Ok(ValidateResponse {
        ok: true,
        command: dry.command,
        decisions: dry.decisions,
        output_dir_id: dry.output_dir_id,
    })
}

#[endpoint(tags("processing"), request_body = super::schemas::ProcessRequest, status_codes(200, 400, 401, 403, 404, 413, 429, 500, 502, 503), security(("api_key" = [])))]
async fn process(req: &mut Request, depot: &mut Depot) -> AppResult<Json<ProcessResponse>> {
    let state = state(depot);
    let body = body_value(req, max_body(&state)).await?;
    crate::timing::mark("body");
    Ok(Json(
        run_task(&state, &account(depot), task_from(&body)?, None).await?,
    ))
}

#[endpoint(tags("processing"), request_body = super::schemas::ProcessRequest, status_codes(200, 400, 401, 403, 404, 413, 429, 500, 502, 503), security(("api_key" = [])))]
async fn validate(req: &mut Request, depot: &mut Depot) -> AppResult<Json<ValidateResponse>> {
    let state = state(depot);
    let body = body_value(req, max_body(&state)).await?;
    Ok(Json(
        dry_run_task(&state, &account(depot), task_from(&body)?).await?,
    ))
}

/// What a task would cost, without running or charging it: time from the inputs' duration
/// and the speed measured here on earlier runs of the same kind, output size from bitrates or
/// measured bytes per second, and whether the inputs fit the month's remaining quota.
#[endpoint(tags("processing"), request_body = super::schemas::ProcessRequest, status_codes(200, 400, 401, 403, 404, 413, 429, 500, 502, 503), security(("api_key" = [])))]
async fn estimate(req: &mut Request, depot: &mut Depot) -> AppResult<Json<EstimateResponse>> {
    let state = state(depot);
    let body = body_value(req, max_body(&state)).await?;
    Ok(Json(
        estimate_task(&state, &account(depot), task_from(&body)?).await?,
    ))
}

/// POST /ffmpeg/estimate's body, for the handler and the MCP `estimate` tool.
pub async fn estimate_task(
    state: &AppState,
    account: &Account,
    task: Task,
) -> AppResult<EstimateResponse> {
    let (resolved, expected) = pipeline::estimate(state, account, task).await?;
    Ok(EstimateResponse {
        ok: true,
        quota: quota_fit(state, account, resolved.stored_bytes()).await?,
        estimate: expected,
    })
}

/// What is left of the account's monthly quota, and whether `input_bytes` more fit in it.
pub async fn quota_fit(
    state: &AppState,
    account: &Account,
    input_bytes: u64,
) -> AppResult<QuotaFit> {
    let (_, plan) = state.plan_of(account)?;
    let used = state
        .db
        .usage(&account.name, &crate::metering::this_month())
        .await?;
    let quota = plan.monthly_quota_bytes();
    Ok(QuotaFit {
        remaining_gb: remaining_gb(quota, &used),
        fits: used.input_bytes + input_bytes <= quota,
    })
}
