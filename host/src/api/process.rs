//! POST /ffmpeg/process (spec 4.1) and the dry run POST /ffmpeg/validate (beyond the spec: what
//! would run, and each policy decision, without running or charging).

use salvo::prelude::*;
use serde_json::{Value, json};

use super::{account, body_value, from_value, max_body, state};
use crate::error::{AppError, AppResult};
use crate::media::task::{self, Input, Scratch};
use crate::metering;
use crate::plugins::builder::StagedInput;
use crate::task::Task;

pub fn router() -> Router {
    Router::with_path("ffmpeg")
        .push(
            Router::with_path("process")
                .post(process)
                .push(Router::with_path("async").post(super::jobs::submit)),
        )
        .push(Router::with_path("validate").post(validate))
}

/// `task` out of `{task: {...}}`, with the spec's messages for each way it can be missing.
pub fn task_from(body: &Value) -> AppResult<Task> {
    match body.get("task") {
        Some(t) if t.is_object() => from_value(t.clone()),
        _ => Err(AppError::TaskRequired),
    }
}

#[endpoint(tags("processing"), request_body = super::schemas::ProcessRequest, responses((status_code = 200, body = super::schemas::ProcessResponse)), status_codes(200, 400, 401, 403, 404, 413, 500, 502, 503), security(("api_key" = [])))]
async fn process(req: &mut Request, depot: &mut Depot) -> AppResult<Json<Value>> {
    let state = state(depot);
    let body = body_value(req, max_body(&state)).await?;
    let task = task_from(&body)?;
    let mut resolved = task::resolve(&state, &account(depot), task).await?;
    task::import(&state, &mut resolved).await?;
    let done = task::execute(&state, &resolved, None).await?;
    metering::charge(
        &state,
        &resolved.account.name,
        done.input_bytes,
        done.output_bytes,
        &done.usage,
    )
    .await?;
    Ok(Json(
        json!({ "ok": true, "result": done.result, "usage": done.usage }),
    ))
}

#[endpoint(tags("processing"), request_body = super::schemas::ProcessRequest, responses((status_code = 200, body = super::schemas::ValidateResponse)), status_codes(200, 400, 401, 403, 404, 413, 500, 503), security(("api_key" = [])))]
async fn validate(req: &mut Request, depot: &mut Depot) -> AppResult<Json<Value>> {
    let state = state(depot);
    let body = body_value(req, max_body(&state)).await?;
    let task = task_from(&body)?;
    let resolved = task::resolve(&state, &account(depot), task).await?;
    let scratch = Scratch::new(&state).map_err(|e| AppError::Internal(e.into()))?;
    let staged: Vec<StagedInput> = resolved
        .inputs
        .iter()
        .enumerate()
        .map(|(i, input)| StagedInput {
            name: input.name().to_string(),
            path: scratch
                .inputs()
                .join(format!("{i}"))
                .to_string_lossy()
                .into_owned(),
        })
        .collect();
    let plan = task::plan(&state, &resolved.task, &staged, &scratch.dir).await?;
    // Shown with the tenant's own names, never the host's paths.
    let out_prefix = format!("{}/", scratch.outputs().display());
    let command: Vec<String> = std::iter::once("ffmpeg".to_string())
        .chain(plan.argv.iter().map(|arg| {
            let mut arg = arg.replace(&out_prefix, "");
            for (s, input) in staged.iter().zip(&resolved.inputs) {
                let shown = match input {
                    Input::Stored(f) => format!("{}/{}", f.dir_id, f.file_name),
                    Input::Url { url, .. } => url.to_string(),
                };
                arg = arg.replace(&s.path, &shown);
            }
            arg
        }))
        .collect();
    let decisions: Vec<Value> = plan
        .decisions
        .iter()
        .map(|d| json!({ "subject": d.subject, "allowed": d.allowed, "reason": d.reason }))
        .collect();
    Ok(Json(json!({
        "ok": true,
        "command": command,
        "decisions": decisions,
        "output_dir_id": resolved.output_dir.map(|d| d.dir_id),
    })))
}
