//! The natural-language endpoints (beta): `crate::translate` turns the instructions into a task,
//! a recipe call or a probe configuration, which then runs through the same pipeline as a
//! hand-written one and is returned as `generated_command` / `generated_probe`.

use std::sync::Arc;

use salvo::prelude::*;
use serde_json::Value;

use super::jobs::{accepted, idempotency_key, priority, webhook_url};
use super::recipes;
use super::schemas::{Accepted, AiProcessResponse, AiValidateResponse, ProbeResponse};
use super::{account, body_value, max_body, state};
use crate::app::AppState;
use crate::cache::Outcome;
use crate::db::Account;
use crate::error::{AppError, AppResult};
use crate::jobs::{self, Submission};
use crate::pipeline::{self, probe};
use crate::task::Generated;
use crate::translate::{self, TaskRequest};

pub fn router() -> Router {
    Router::with_path("ai")
        .push(
            Router::with_path("ffmpeg/process")
                .post(process)
                .push(Router::with_path("async").post(process_async)),
        )
        .push(Router::with_path("ffmpeg/validate").post(validate))
        .push(Router::with_path("ffprobe/analyze").post(analyze))
}

/// `{inputs: [{file_path}], instructions, output_dir_id?}` out of a request body (the MCP tool
/// `ask` takes the same object).
pub fn task_request(body: &Value) -> AppResult<TaskRequest> {
    let instructions = translate::instructions(body.get("instructions").and_then(Value::as_str))?;
    let inputs: Vec<String> = match body.get("inputs") {
        Some(Value::Array(items)) if !items.is_empty() => items
            .iter()
            .map(|i| match i.get("file_path").and_then(Value::as_str) {
                Some(p) => Ok(p.to_string()),
                None => Err(AppError::BadRequest("Each input needs a file_path".into())),
            })
            .collect::<AppResult<_>>()?,
        _ => {
            return Err(AppError::BadRequest(
                "inputs must be a non-empty array".into(),
            ));
        }
    };
    let output_dir_id = super::output_dir_id(body)?;
    Ok(TaskRequest {
        instructions,
        inputs,
        output_dir_id,
    })
}

/// POST /ai/ffmpeg/process (and the MCP tool `ask`): translate, then run now (the task, or
/// the recipe the translator answered with).
pub async fn run_request(
    state: &Arc<AppState>,
    account: &Account,
    body: &Value,
) -> AppResult<AiProcessResponse> {
    let admitted = pipeline::admit(state, account)?;
    let request = task_request(body)?;
    let generated = translate::task(state, account, &request)
        .await?
        .with_flags(body)?;
    match &generated {
        Generated::Task(task) => {
            let done =
                pipeline::run_admitted(state, account, task.clone(), &admitted, None).await?;
            Ok(AiProcessResponse {
                ok: true,
                result: pipeline::links(state, &done.outputs).await?,
                usage: done.usage,
                cache: done.cache,
                generated_command: generated,
                data: None,
                playback_url: None,
            })
        }
        Generated::Recipe { recipe } => {
            let ran = Box::pin(recipes::run_admitted(state, account, recipe, &admitted)).await?;
            let missed = ran.steps.iter().any(|s| s.cache == Some(Outcome::Miss));
            Ok(AiProcessResponse {
                ok: true,
                result: ran.result,
                usage: ran.usage,
                cache: if missed { Outcome::Miss } else { Outcome::Hit },
                generated_command: generated,
                data: Some(ran.data),
                playback_url: ran.playback_url,
            })
        }
    }
}

/// POST /ai/ffmpeg/validate (and the MCP tool `ask` unless told to run): translate, then the
/// dry run and the estimate of the task (or of the recipe's first steps); nothing runs and
/// nothing is charged.
pub async fn validate_request(
    state: &Arc<AppState>,
    account: &Account,
    body: &Value,
) -> AppResult<AiValidateResponse> {
    let request = task_request(body)?;
    let generated = translate::task(state, account, &request)
        .await?
        .with_flags(body)?;
    match &generated {
        Generated::Task(task) => {
            let dry = super::process::dry_run_task(state, account, task.clone()).await?;
            let cost = super::process::estimate_task(state, account, task.clone()).await?;
            Ok(AiValidateResponse {
                ok: true,
                generated_command: generated,
                command: Some(dry.command),
                decisions: Some(dry.decisions),
                steps: None,
                output_dir_id: dry.output_dir_id,
                estimate: cost.estimate,
                quota: cost.quota,
            })
        }
        Generated::Recipe { recipe } => {
            // One plan of the first round for both: the inputs resolved and probed once.
            let first = crate::recipes::FirstRound::plan(state, account, recipe).await?;
            let steps = first.dry_run(state, account, recipe).await?;
            let cost = recipes::estimate_of(state, account, recipe, &first).await?;
            Ok(AiValidateResponse {
                ok: true,
                output_dir_id: recipe.output_dir_id.clone(),
                generated_command: generated,
                command: None,
                decisions: None,
                steps: Some(steps),
                estimate: cost.estimate,
                quota: cost.quota,
            })
        }
    }
}

/// POST /ai/ffprobe/analyze (and the MCP tool `ask_probe`): translate, then probe.
pub async fn probe_request(
    state: &AppState,
    account: &Account,
    body: &Value,
) -> AppResult<ProbeResponse> {
    let instructions = translate::instructions(body.get("instructions").and_then(Value::as_str))?;
    let file_path = body
        .get("file_path")
        .and_then(Value::as_str)
        .ok_or(AppError::Required("file_path"))?;
    let generated = translate::probe(state, account, &instructions, file_path).await?;
    let probed = probe::analyze(state, account, file_path, generated.clone()).await?;
    let mut out = super::probe::probed_body(probed);
    out.generated_probe = Some(generated);
    Ok(out)
}

#[endpoint(tags("natural language"), request_body = super::schemas::AiProcessRequest, status_codes(200, 400, 401, 403, 404, 413, 429, 500, 502, 503), security(("api_key" = [])))]
async fn process(req: &mut Request, depot: &mut Depot) -> AppResult<Json<AiProcessResponse>> {
    let state = state(depot);
    let body = body_value(req, max_body(&state)).await?;
    Ok(Json(run_request(&state, &account(depot), &body).await?))
}

#[endpoint(tags("natural language"), request_body = super::schemas::AiProcessRequest, responses((status_code = 202, body = Accepted)), status_codes(202, 400, 401, 403, 404, 413, 429, 500, 502, 503), security(("api_key" = [])))]
async fn process_async(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> AppResult<Json<Accepted>> {
    let state: Arc<AppState> = state(depot);
    let account = account(depot);
    let body = body_value(req, max_body(&state)).await?;
    let hook = webhook_url(&body)?;
    let priority = priority(&body)?;
    let request = task_request(&body)?;
    let generated = translate::task(&state, &account, &request)
        .await?
        .with_flags(&body)?;
    let job = match generated {
        Generated::Task(task) => {
            jobs::submit(
                &state,
                Submission {
                    account: &account,
                    task,
                    webhook_url: hook,
                    idempotency_key: idempotency_key(req),
                    generated: true,
                    priority,
                    recipe: None,
                },
            )
            .await?
        }
        Generated::Recipe { recipe } => {
            let key = idempotency_key(req);
            Box::pin(recipes::queue(&state, &account, recipe, &body, key, true)).await?
        }
    };
    Ok(accepted(res, &job))
}

#[endpoint(tags("natural language"), request_body = super::schemas::AiProcessRequest, status_codes(200, 400, 401, 403, 404, 413, 429, 500, 502, 503), security(("api_key" = [])))]
async fn validate(req: &mut Request, depot: &mut Depot) -> AppResult<Json<AiValidateResponse>> {
    let state = state(depot);
    let body = body_value(req, max_body(&state)).await?;
    Ok(Json(
        validate_request(&state, &account(depot), &body).await?,
    ))
}

#[endpoint(tags("natural language"), request_body = super::schemas::AiProbeRequest, status_codes(200, 400, 401, 403, 404, 413, 429, 500, 502, 503), security(("api_key" = [])))]
async fn analyze(req: &mut Request, depot: &mut Depot) -> AppResult<Json<ProbeResponse>> {
    let state = state(depot);
    let body = body_value(req, max_body(&state)).await?;
    Ok(Json(probe_request(&state, &account(depot), &body).await?))
}
